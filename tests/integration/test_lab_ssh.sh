#!/bin/bash
# The virtual lab over real SSH (OpenSSH client against each board's sshd):
# lab up; v3.3 and v3.3.1-rc1 of a model kernel history built, uploaded and
# booted with kexec (uname -r checked); W3 passes on v3.3 and fails on
# v3.3.1-rc1; an injected hang freezes SSH, open sessions and the console; a
# power cycle brings the fallback kernel back and empties the board's own
# TMPDIR; lab down leaves no process.
# Bad input exits 2 with a message saying where.
#
# Prints one "ok N - description" / "not ok N - description" per assertion.
# Every wait is on an event (console line, session output) with a timeout.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
vlab=$(vlab_under_test "$root")
work=$(mktemp -d /tmp/rackbisect-lab-test-XXXXXX)
state=$work/state
lab=$work/lab.yaml

cleanup() {
	exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 2>/dev/null
	"$vlab" down "$lab" --state "$state" >/dev/null 2>&1
	[ -d "$work/tree" ] && git -C "$work/tree" worktree prune 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP


# The lab of this test: two boards on addresses of their own.
cat >"$lab" <<'YAML'
name: integration
type: virtual
boards:
  - name: it1
    chip: ar9285
    transport: {host: 127.77.1.1, port: 2222}
    console: {driver: virtual, port: 7000}
    seed: 11
  - name: it2
    chip: ar9280
    transport: {host: 127.77.1.2, port: 2222}
    console: {driver: virtual, port: 7000}
    seed: 12
YAML

ssh_config=$state/labs/integration/ssh_config
board_ssh() { ssh -F "$ssh_config" "$@"; }

# capture_console FD FILE SECONDS: keeps the console's output up to the login
# prompt's line (the last thing a boot prints), so no line is lost to reading.
capture_console() {
	timeout "$3" sed -u '/^Debian GNU\/Linux .* ttyS0/q' <&"$1" >"$2"
	grep -q "^Debian GNU/Linux .* ttyS0" "$2"
}

# alive PID: the process exists and is not merely a zombie awaiting its reaper.
alive() {
	[ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

# lab_processes: live processes whose command line names this test's state.
lab_processes() {
	ps -eo stat=,args= >"$work/ps.txt"
	awk -v s="$state" 'index($0, s) && $1 !~ /^Z/' "$work/ps.txt"
}

# ---- up ----------------------------------------------------------------------
"$vlab" up "$lab" --state "$state" >"$work/up.out" 2>&1
check "lab up exits 0" test $? -eq 0
check "status shows both boards up" \
	bash -c "\"$vlab\" status \"$lab\" --state \"$state\" | grep -c ' up ' | grep -qx 2"
board_ssh it1 uname -r >"$work/fallback-release" 2>"$work/ssh.err"
check "ssh into a board with the lab's key and known_hosts" test -s "$work/fallback-release"
check "a fresh board runs its fallback kernel" contains "$work/fallback-release" "lab-fallback"

# ---- two kernels of a model history -------------------------------------------
"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --out "$work/tree" --truth "$work/truth.json" \
	>"$work/make-tree.out" 2>&1
check "make-tree stable-3.3.1" test -d "$work/tree/.git"

build_kernel() {	# build_kernel REF NAME: image to $work/NAME.img, release to $work/NAME.rel
	local image release
	read -r image release < <("$vlab" build --tree "$work/tree" --commit "$1" --cache "$work/cache") &&
		cp "$image" "$work/$2.img" && echo "$release" >"$work/$2.rel"
}
build_kernel v3.3 good
check "v3.3 builds" test -s "$work/good.img"
build_kernel v3.3.1-rc1 bad
check "v3.3.1-rc1 builds" test -s "$work/bad.img"
check "v3.3.1-rc1's release string" contains "$work/bad.rel" "^3\.3\.1-rc1$"

# boot_kernel BOARD NAME: upload, kexec, wait for the login prompt, check uname -r
boot_kernel() {
	local board=$1 name=$2 release console_port=7000 host
	release=$(cat "$work/$name.rel")
	host=$(awk -v b="$board" '$1 == "Host" { h = ($2 == b) } h && $1 == "HostName" { print $2 }' "$ssh_config")
	scp -F "$ssh_config" -q "$work/$name.img" "$board:/boot/vmlinuz-$release" || return 1
	exec 5<>"/dev/tcp/$host/$console_port" || return 1
	board_ssh "$board" "kexec -l /boot/vmlinuz-$release --append='console=ttyS0,115200' && kexec -e" \
		>/dev/null 2>&1
	capture_console 5 "$work/console-$board.log" 30 || return 1
	grep -q "Linux version $release" "$work/console-$board.log" || return 1
	exec 5>&-
	[ "$(board_ssh "$board" uname -r)" = "$release" ]
}
check "v3.3 uploaded and booted on it1 (uname -r)" boot_kernel it1 good
check "v3.3.1-rc1 uploaded and booted on it2 (uname -r)" boot_kernel it2 bad

# ---- W3 over SSH -------------------------------------------------------------
run_w3() {	# run_w3 BOARD OUT
	scp -F "$ssh_config" -q -r "$root/drivers/workload" "$1:$work/workload-$1" &&
		board_ssh "$1" "sh $work/workload-$1/w3-idle-transitions.sh --cycles 20 --seed 5" >"$2"
}
run_w3 it1 "$work/w3-good.ktap"
check "W3 on v3.3 prints KTAP with 20 cycles" contains "$work/w3-good.ktap" "^1\.\.20$"
check "W3 passes on v3.3" lacks "$work/w3-good.ktap" "^not ok"
run_w3 it2 "$work/w3-bad.ktap"
check "W3 fails on v3.3.1-rc1" contains "$work/w3-bad.ktap" "^not ok"
check "the failure quotes the auth timeout" contains "$work/w3-bad.ktap" "authentication with .* timed out"

# ---- the board's own /tmp ----------------------------------------------------
# A run cut off leaves its workload directory behind; on the host's shared
# /tmp nothing ever removed it. A board's sessions get a TMPDIR of its own,
# which each boot empties as a tmpfs /tmp is.
board_tmp=$state/labs/integration/boards/it2/tmp
board_ssh it2 'mkdir "$TMPDIR/rackbisect-workload.left" && echo "$TMPDIR"' >"$work/tmpdir.out" 2>&1
check "a board's sessions have a TMPDIR of the board's own" \
	bash -c "[ \"\$(cat '$work/tmpdir.out')\" = '$board_tmp' ] && test -d '$board_tmp/rackbisect-workload.left'"

# ---- hang --------------------------------------------------------------------
mkfifo "$work/session-in" "$work/session-out"
board_ssh it2 'echo started; cat' <"$work/session-in" >"$work/session-out" 2>/dev/null &
exec 6>"$work/session-in" 7<"$work/session-out"
read -r -t 20 first <&7
check "an open session runs before the hang" test "${first:-}" = started
exec 4<>/dev/tcp/127.77.1.2/7000
"$vlab" hang it2 --lab "$lab" --state "$state" >"$work/hang.out" 2>&1
check "hang injected" contains "$work/hang.out" "hung"
echo "are you there" >&6
check "the open session produces nothing more" bash -c "! read -r -t 2 line <&7"
timeout 20 ssh -F "$ssh_config" -o ConnectTimeout=3 it2 true >"$work/hung-ssh.out" 2>&1
check "a new SSH connection gets no banner" contains "$work/hung-ssh.out" "banner exchange"
check "the console is silent" bash -c "! read -r -t 2 -N 1 c <&4"

# ---- power cycle -------------------------------------------------------------
"$vlab" power it2 cycle --lab "$lab" --state "$state" >"$work/cycle.out" 2>&1
check "power cycle" test $? -eq 0
check "the console shows the board booting to its login prompt" capture_console 4 "$work/console-cycle.log" 30
check "the fallback kernel's boot banner is on the console" contains "$work/console-cycle.log" "Linux version .*lab-fallback"
check "after a power cycle the board runs its fallback kernel" \
	bash -c "[ \"\$(ssh -F '$ssh_config' it2 uname -r)\" = \"\$(cat '$work/fallback-release')\" ]"
check "... with an empty TMPDIR: what a session left there before is gone" \
	bash -c "test -d '$board_tmp' && ! test -e '$board_tmp/rackbisect-workload.left'"
exec 4>&- 6>&- 7<&-
wait 2>/dev/null

# ---- power off / on ----------------------------------------------------------
# The console line stays connected across power off and on, as a serial line
# does; the login prompt it shows comes once sshd accepts connections.
exec 8<>/dev/tcp/127.77.1.1/7000
"$vlab" power it1 off --lab "$lab" --state "$state" >/dev/null 2>&1
timeout 20 ssh -F "$ssh_config" -o ConnectTimeout=3 it1 true >"$work/off-ssh.out" 2>&1
check "a board that is off refuses SSH" contains "$work/off-ssh.out" "refused"
"$vlab" power it1 on --lab "$lab" --state "$state" >/dev/null 2>&1
check "power on: the console shows it booting to its login prompt" capture_console 8 "$work/console-on.log" 30
check "power on boots it again" bash -c "ssh -F '$ssh_config' it1 uname -r | grep -q lab-fallback"
exec 8>&-

# ---- down --------------------------------------------------------------------
pid=$(cat "$state/labs/integration/supervisor.pid" 2>/dev/null)
"$vlab" down "$lab" --state "$state" >"$work/down.out" 2>&1
check "lab down exits 0" test $? -eq 0
check "the supervisor is gone" eval "[ -n '$pid' ] && ! alive '$pid'"
lab_processes >"$work/left.txt"
check "no process of the lab is left" test ! -s "$work/left.txt"
sed 's/^/# left: /' "$work/left.txt"
check "its cgroups are gone" bash -c "! ls -d /sys/fs/cgroup/unified/rackbisect/lab-integration-* /sys/fs/cgroup/rackbisect/lab-integration-* 2>/dev/null | grep -q ."

# ---- a supervisor killed with SIGKILL: down still ends what it left -----------
"$vlab" up "$lab" --state "$state" >/dev/null 2>&1
pid=$(cat "$state/labs/integration/supervisor.pid" 2>/dev/null)
check "the lab comes up again" test -n "$pid"
kill -9 "$pid"
"$vlab" down "$lab" --state "$state" >"$work/down-orphans.out" 2>&1
check "down after a killed supervisor ends its boards' processes" \
	contains "$work/down-orphans.out" "ended the processes of 2 boards"
lab_processes >"$work/left-orphans.txt"
check "and no process of the lab is left" test ! -s "$work/left-orphans.txt"
sed 's/^/# left: /' "$work/left-orphans.txt"

# ---- bad input ---------------------------------------------------------------
sed 's/chip: ar9280/chip: ar1234/' "$lab" >"$work/bad-chip.yaml"
"$vlab" up "$work/bad-chip.yaml" --state "$state" >"$work/bad-chip.out" 2>&1
check "unknown chip: exit 2" test $? -eq 2
check "unknown chip: file:line:col named" contains "$work/bad-chip.out" "bad-chip.yaml:10:11: board 'it2': unknown chip 'ar1234'"
printf 'name: x\nboards:\n  - name: [\n' >"$work/broken.yaml"
"$vlab" up "$work/broken.yaml" --state "$state" >"$work/broken.out" 2>&1
check "malformed lab YAML: exit 2" test $? -eq 2
check "malformed lab YAML: says where" contains "$work/broken.out" "broken.yaml:[0-9]*:[0-9]*: YAML syntax error"
"$vlab" make-tree --scenario nope --seed 1 --out "$work/nope" --truth "$work/nope.json" >"$work/nope.out" 2>&1
check "unknown scenario: exit 2" test $? -eq 2
check "unknown scenario: named" contains "$work/nope.out" "nope"
"$vlab" sim --kernel "$work/good.img" --workload W3 --chip ar1234 >"$work/sim-chip.out" 2>&1
check "sim with an unknown chip: exit 2" test $? -eq 2
sed 's/seed: 12/seed: 12\n    knobs: {p_wake_dead: 1.5}/' "$lab" >"$work/bad-knob.yaml"
"$vlab" up "$work/bad-knob.yaml" --state "$state" >"$work/bad-knob.out" 2>&1
check "knob out of range: exit 2 with file:line:col" \
	bash -c "[ $? -eq 2 ] && grep -q 'bad-knob.yaml:14:[0-9]*: .*p_wake_dead' '$work/bad-knob.out'"

[ "$failures" -eq 0 ]
