#!/bin/bash
# build/rackbisect on the virtual lab, 8 boards over real SSH (issue 4):
# v3.3 all PASS; v3.3.1-rc1 W3 FAIL on the RTC-reset chips quoting
# auth-timeout and txdma-stop-fail; the bad backport W2 FAIL; a hang is
# FAIL(hang) with the console kept and the board back on its fallback; a
# workload stalled past its timeout is killed on the board and is FAIL
# workload-timeout; two labs sharing a state keep their runs and boards
# apart; a board powered off is INFRA, retried on its twin; a build break is SKIP;
# `git bisect run rackbisect test` names the culprit; a changed host key is
# refused until `lab trust`; an SSH identity that cannot be used is said as
# the lab's set-up, the board not blamed; kill -9 mid-run loses nothing; bad config exits 2.
#
# Prints "ok N - ..." / "not ok N - ..."; every wait is on an event with a timeout.
# tests/run-all.sh runs it beside the other tests (it waits on its own boards):
# lane: own
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
rb=$(rackbisect_under_test "$root")
# The coordinator under test is sanitized; the boards it drives need not be
# (test_lab_ssh.sh covers the sanitized lab), and unsanitized they are 3x faster.
export RACKBISECT_VLAB=${RACKBISECT_BUILD:-$root/build}/rackbisect-vlab
SECONDS=0
section() { echo "# $SECONDS s: $*"; }
work=$(mktemp -d /tmp/rackbisect-coordinator-test-XXXXXX)
state=$work/state
lab=$work/lab.yaml
hang_lab=$work/hang-lab.yaml
job=$work/quick.yaml

cleanup() {
	[ -n "${background:-}" ] && kill -9 "$background" 2>/dev/null
	[ -n "${twin_a:-}" ] && kill -9 "$twin_a" 2>/dev/null
	[ -n "${console_pid:-}" ] && kill -9 "$console_pid" 2>/dev/null
	"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
	"$rb" lab down "$hang_lab" --state "$state" >/dev/null 2>&1
	"$rb" lab down "$work/twin-a.yaml" --state "$state" >/dev/null 2>&1
	"$rb" lab down "$work/twin-b.yaml" --state "$state" >/dev/null 2>&1
	for t in tree backport noboot; do
		[ -d "$work/$t" ] && git -C "$work/$t" worktree prune 2>/dev/null
	done
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Eight boards, the chips of labs/virtual.yaml, on addresses of this test.
eight_board_lab coordinator cb 127.77.2 >"$lab"

# A board whose card wedges RX DMA and hangs the host bus whenever the
# driver lets it fully sleep: 3.3.1-rc1 hangs it on W3's first idle.
cat >"$hang_lab" <<'YAML'
name: hanging
type: virtual
boards:
  - name: hb1
    chip: ar9285
    transport: {host: 127.77.3.1, port: 2222}
    console: {driver: virtual, port: 7000}
    boot: {driver: virtual, fallback: 3.3.0-lab-fallback}
    limits: {boot: 60, hang: 3}
    seed: 1
    knobs: {p_rx_busy: 1, p_wedge: 1, p_bus_hang: 1}
  - name: nb1
    chip: ar9280
    transport: {host: 127.77.3.2, port: 2222}
    console: {driver: virtual, port: 7000}
    boot: {driver: virtual, fallback: 3.3.0-lab-fallback}
    limits: {boot: 15, hang: 5}
    seed: 2
  - name: sb1
    chip: ar9160
    transport: {host: 127.77.3.3, port: 2222}
    console: {driver: virtual, port: 7000}
    boot: {driver: virtual, fallback: 3.3.0-lab-fallback}
    limits: {boot: 60, hang: 5}
    seed: 3
    faults: {stall-workload: 2}
YAML

# jobs/ath9k-ps.yaml with shorter workloads (lib.sh): W1-W4, and W3 alone
# for the hang and for `git bisect run` (W3 is what 3.3.1 breaks on these
# chips; the other workloads would only add time).
quick_job "$root" W1 W2 W3 W4 >"$job"
quick_job "$root" W3 >"$work/w3.yaml"

rbx() { "$rb" "$@" --lab "$lab" --state "$state"; }
cell() {	# cell JSON BOARD WORKLOAD: the outcome of the first repeat
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(" ".join(r["outcome"] for r in d["runs"] if r["board"] == sys.argv[2] and r["workload"] == sys.argv[3]))' "$@"
}

# ---- lab up, two histories ---------------------------------------------------------
"$rb" lab up "$lab" --state "$state" >"$work/up.out" 2>&1
check "rackbisect lab up starts the virtual lab" test $? -eq 0
"$rb" lab status "$lab" --state "$state" >"$work/status.out" 2>&1
check "lab status lists 8 boards up" bash -c "grep -c ' up ' '$work/status.out' | grep -qx 8"
vlab=$(vlab_under_test "$root")
"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --out "$work/tree" --truth "$work/truth.json" >/dev/null 2>&1
"$vlab" make-tree --scenario txack-backport --seed 1 --out "$work/backport" --truth "$work/backport.json" >/dev/null 2>&1
check "model kernel histories made" test -d "$work/tree/.git" -a -d "$work/backport/.git"
truth() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

section "v3.3: every"
# ---- v3.3: every board, every workload, PASS ------------------------------------------
rbx run "$job" --tree "$work/tree" --commit v3.3 --json --junit "$work/v3.3.xml" \
	>"$work/v3.3.json" 2>"$work/v3.3.err"
status=$?
check "v3.3: exit 0" test $status -eq 0
check "v3.3: 32 runs (8 boards x W1-W4), all PASS" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (len(d["runs"]) == 32 and all(r["outcome"] == "PASS" for r in d["runs"])))' "$work/v3.3.json"
check "v3.3: the release booted is the build's" bash -c "grep -q '\"release\": \"3.3.0' '$work/v3.3.json'"
check "v3.3: JUnit XML with 32 test cases, no failure" \
	bash -c "grep -q 'tests=\"32\" failures=\"0\" errors=\"0\"' '$work/v3.3.xml'"

section "v3.3.1-rc1"
# ---- v3.3.1-rc1: W3 fails where full sleep resets the RTC --------------------------------
rbx run "$job" --tree "$work/tree" --commit v3.3.1-rc1 >"$work/rc1.out" 2>"$work/rc1.err"
status=$?
check "v3.3.1-rc1: exit 1" test $status -eq 1
for b in cb01 cb02 cb04 cb05 cb06 cb08; do
	check "v3.3.1-rc1: W3 FAIL on $b (RTC reset)" bash -c "grep -E '^$b ' '$work/rc1.out' | awk '{ print \$5 }' | grep -q FAIL"
done
check "v3.3.1-rc1: no run was lost to the lab (no INFRA)" lacks "$work/rc1.out" "INFRA"
check "v3.3.1-rc1: auth-timeout quoted from the kernel log" \
	contains "$work/rc1.out" "auth-timeout: .*authentication with .* timed out"
check "v3.3.1-rc1: txdma-stop-fail quoted from the kernel log" \
	contains "$work/rc1.out" "txdma-stop-fail: .*Failed to stop TX DMA"
run_id=$(sed -n 's/^  cb0[0-9] W3 #1: run \([0-9]*\): FAIL .*(cycle.*/\1/p' "$work/rc1.out" | head -n 1)
rbx show "$run_id" >"$work/show.out" 2>&1
check "show RUN: verdict, symptoms, metrics and files" bash -c "
	grep -q 'outcome FAIL' '$work/show.out' && grep -q '^symptom auth-timeout: ' '$work/show.out' &&
	grep -q '^metric ' '$work/show.out' && grep -q 'console.log' '$work/show.out' &&
	grep -q 'output.ktap' '$work/show.out'"
rbx runs --last 5 >"$work/runs.out" 2>&1
check "runs --last 5 lists five runs" bash -c "[ \$(grep -cE '^ *[0-9]+ ' '$work/runs.out') -eq 5 ]"

section "the bad backport"
# ---- the bad backport: W2 fails ----------------------------------------------------------
rbx run "$job" --tree "$work/backport" --commit v3.3.1-rc1 --boards cb01,cb02 --json \
	>"$work/backport.json" 2>"$work/backport.err"
check "bad backport: exit 1" test $? -eq 1
check "bad backport: W2 FAIL on cb01" test "$(cell "$work/backport.json" cb01 W2)" = FAIL
check "bad backport: W2 FAIL on cb02" test "$(cell "$work/backport.json" cb02 W2)" = FAIL

section "a hang"
# ---- a hang: FAIL(hang), console kept, board back on its fallback ---------------------------
"$rb" lab up "$hang_lab" --state "$state" >/dev/null 2>&1
"$rb" run "$work/w3.yaml" --lab "$hang_lab" --state "$state" --tree "$work/tree" \
	--commit v3.3.1-rc1 --boards hb1 --json >"$work/hang.json" 2>"$work/hang.err"
check "hang: exit 1" test $? -eq 1
check "hang: W3 is FAIL" test "$(cell "$work/hang.json" hb1 W3)" = FAIL
check "hang: the summary names the hang" bash -c "grep -q '\"summary\": \"FAIL.*hang' '$work/hang.json'"
check "hang: the watchdog said why" contains "$work/hang.err" "event=hang"
check "hang: the board was power-cycled" contains "$work/hang.err" "event=power-cycle"
hang_run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["run"])' "$work/hang.json")
check "hang: the console capture is kept, up to the hang" \
	contains "$state/runs/$hang_run/console.log" "rackbisect declared a hang"
check "hang: the console shows the kernel under test booting" \
	contains "$state/runs/$hang_run/console.log" "Linux version 3.3.1-rc1"
ssh -F "$state/labs/hanging/ssh_config" hb1 uname -r >"$work/hang-after.out" 2>&1
check "hang: the board is back on its fallback kernel" contains "$work/hang-after.out" "^3.3.0-lab-fallback$"
section "a kernel that does not boot"
# a commit whose image is not a kernel: the board never comes back with it
git clone -q "$work/tree" "$work/noboot"
git -C "$work/noboot" checkout -q -b noboot v3.3
sed -i 's|^\t@mv \$@.tmp \$@$|\t@echo "not a kernel" >$@|' "$work/noboot/Makefile"
git -C "$work/noboot" commit -qam "x86: an image that does not boot"
"$rb" run "$work/w3.yaml" --lab "$hang_lab" --state "$state" --tree "$work/noboot" \
	--commit noboot --boards nb1 >"$work/noboot.out" 2>"$work/noboot.err"
check "no boot: run exits 1, the cell is SKIP (the job's boot_failure policy)" \
	bash -c "[ $? -eq 1 ] && grep -qE '^nb1 +ar9280 +SKIP' '$work/noboot.out'"
check "no boot: says the board did not come back within the boot limit" \
	contains "$work/noboot.out" "boot failed: no SSH within 15 s"
check "no boot: the board was power-cycled onto its fallback kernel" \
	contains "$work/noboot.err" 'event=recovered detail="running 3.3.0-lab-fallback"'
section "a stalled workload"
# ---- a workload stalled past its timeout on a board that answers (issue 31) ------------------
# sb1's second workload tool call never returns (stall-workload: a tool stuck
# on a wedged driver). W1's timeout is 20 s: the run must kill W1's processes
# on the board, say so, and count it against the kernel; the board's next
# run must not meet them.
quick_job "$root" W1 | sed 's/timeout: 600/timeout: 20/' >"$work/w1-short.yaml"
"$rb" run "$work/w1-short.yaml" --lab "$hang_lab" --state "$state" --tree "$work/tree" \
	--commit v3.3 --boards sb1 --json >"$work/stall.json" 2>"$work/stall.err"
check "stall: exit 1" test $? -eq 1
check "stall: W1 is FAIL workload-timeout (the kernel's, not INFRA unreachable)" \
	bash -c "grep -q '\"summary\": \"FAIL workload-timeout' '$work/stall.json'"
check "stall: the events say the workload timed out and was killed" \
	bash -c "grep 'event=workload-timeout' '$work/stall.err' | grep -q 'its processes were killed'"
check "stall: no unreachable board and no power cycle" \
	bash -c "! grep -qE 'unreachable|event=power-cycle' '$work/stall.err'"
ps -eo stat=,args= >"$work/stall-ps.txt"
awk -v s="$state/" 'index($0, s) && index($0, "rackbisect-workload") && $1 !~ /^Z/' \
	"$work/stall-ps.txt" >"$work/stall-left.txt"
check "stall: nothing of W1 is left running on the board" test ! -s "$work/stall-left.txt"
"$rb" run "$work/w1-short.yaml" --lab "$hang_lab" --state "$state" --tree "$work/tree" \
	--commit v3.3 --boards sb1 --json >"$work/after-stall.json" 2>"$work/after-stall.err"
check "stall: the board's next run starts clean and passes" test $? -eq 0
"$rb" lab down "$hang_lab" --state "$state" >/dev/null 2>&1

section "two labs, one state"
# ---- two labs share one --state, each with a board named tw01 (issue 31) -----------------------
# Lab A's run is live (its W1 stalls until its 20 s timeout) when lab B's
# coordinator starts: B must not close A's run as interrupted nor take A's
# tw01 offline, and A's own result must be stored.
for side in a b; do
	n=$([ $side = a ] && echo 1 || echo 2)
	cat >"$work/twin-$side.yaml" <<YAML
name: twin-$side
type: virtual
boards:
  - name: tw01
    chip: ar9285
    transport: {host: 127.77.4.$n, port: 2222}
    console: {driver: virtual, port: 7000}
    boot: {driver: virtual, fallback: 3.3.0-lab-fallback}
    limits: {boot: 60, hang: 5}
    seed: $n
YAML
done
echo "    faults: {stall-workload: 2}" >>"$work/twin-a.yaml"
"$rb" lab up "$work/twin-a.yaml" --state "$state" >/dev/null 2>&1
"$rb" lab up "$work/twin-b.yaml" --state "$state" >/dev/null 2>&1
"$rb" run "$work/w1-short.yaml" --lab "$work/twin-a.yaml" --state "$state" --tree "$work/tree" \
	--commit v3.3 --json >"$work/twin-a.json" 2>"$work/twin-a.err" &
twin_a=$!
timeout 120 grep -q -m1 "event=workload " <(timeout 120 tail -n +1 -F "$work/twin-a.err" 2>/dev/null)
check "two labs: lab A's run is live" test $? -eq 0
"$rb" run "$work/w1-short.yaml" --lab "$work/twin-b.yaml" --state "$state" --tree "$work/tree" \
	--commit v3.3 >"$work/twin-b.out" 2>&1
check "two labs: lab B's run passes beside it" test $? -eq 0
check "two labs: lab B closed no run of lab A and took no board offline" \
	bash -c "! grep -qE 'event=(interrupted|offline)' '$work/twin-b.out'"
wait "$twin_a"
check "two labs: lab A's own result is stored (FAIL workload-timeout, not interrupted)" \
	bash -c "grep -q '\"summary\": \"FAIL workload-timeout' '$work/twin-a.json'"
"$rb" lab down "$work/twin-a.yaml" --state "$state" >/dev/null 2>&1
"$rb" lab down "$work/twin-b.yaml" --state "$state" >/dev/null 2>&1

section "a board powered off"
# ---- a board powered off: INFRA, retried on its twin, verdict unaffected -----------------------
rbx power cb01 off >"$work/off.out" 2>&1
check "power cb01 off" test $? -eq 0
rbx run "$job" --tree "$work/tree" --commit v3.3 --boards ar9285 --json \
	>"$work/off.json" 2>"$work/off.err"
check "board off: exit 0 (the retries passed)" test $? -eq 0
check "board off: cb01's cells PASS, retried on its twin cb08" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
mine = [r for r in d["runs"] if r["board"] == "cb01"]
sys.exit(not (mine and all(r["outcome"] == "PASS" for r in mine) and
              any(r["ran_on"] == "cb08" and r["attempts"] >= 2 for r in mine)))' "$work/off.json"
check "board off: the INFRA attempts are stored, naming the board" \
	bash -c "'$rb' runs --last 20 --lab '$lab' --state '$state' | grep -E 'INFRA +cb01' | grep -q unreachable"
check "board off: taken offline after three INFRA in a row, health-checked" \
	contains "$work/off.err" "board=cb01 event=offline"

section "console and power"
mkfifo "$work/console"
"$rb" console cb02 --lab "$lab" --state "$state" >"$work/console" 2>&1 &
console_pid=$!
exec 9<"$work/console"
IFS= read -r -t 30 line <&9
check "console BOARD connects" bash -c "case '$line' in *'console connected'*) ;; *) false ;; esac"
rbx power cb02 cycle >"$work/cycle.out" 2>&1
check "power cb02 cycle" contains "$work/cycle.out" "cb02: power cycle done"
# follow the console until the fallback kernel's login prompt (the end of a boot)
seen=
while IFS= read -r -t 60 line <&9; do
	case $line in
	*"Linux version"*lab-fallback*) seen="$seen banner" ;;
	*"Debian GNU/Linux 12 cb02 ttyS0"*) seen="$seen getty"; break ;;
	esac
done
check "console BOARD follows the boot live: banner, then the getty" test "$seen" = " banner getty"
kill -INT "$console_pid"
wait "$console_pid"
check "console ends on Ctrl-C with exit 0" test $? -eq 0
exec 9<&-

section "a build break"
# ---- a build break: SKIP ----------------------------------------------------------------------
broken=$(truth "$work/truth.json" "d['build_breaks'][2]['broken']")
rbx run "$job" --tree "$work/tree" --commit "$broken" --boards cb03 >"$work/break.out" 2>&1
check "build break: run exits 1 (SKIP is not PASS)" test $? -eq 1
check "build break: every cell SKIP" bash -c "grep -E '^cb03 ' '$work/break.out' | grep -q 'SKIP *SKIP *SKIP *SKIP'"
rbx test "$job" --tree "$work/tree" --commit "$broken" --boards cb03 >/dev/null 2>&1
check "build break: test exits 125" test $? -eq 125
# RACKBISECT_KERNEL_CACHE (make check sets one for all its tests): a new,
# empty one builds again what the cache before held, and keeps it
shared=$work/shared-kernels
for n in 1 2; do
	RACKBISECT_KERNEL_CACHE=$shared rbx run "$job" --tree "$work/tree" --commit "$broken" \
		--boards cb03 >"$work/shared-$n.out" 2>"$work/shared-$n.err"
done
check "RACKBISECT_KERNEL_CACHE: the build is made and kept there" \
	bash -c "ls '$shared'/*/failed >/dev/null && grep -q 'event=build-failed' '$work/shared-1.err' &&
		 ! grep -q 'event=build-failed.*(cached)' '$work/shared-1.err'"
check "... and found there the next time" contains "$work/shared-2.err" "event=build-failed.*(cached)"

section "git bisect run"
# ---- git bisect run names the culprit ------------------------------------------------------------
culprit=$(truth "$work/truth.json" "d['culprits']['linux-3.3.y']")
(
	cd "$work/tree" && git bisect start v3.3.1-rc1 v3.3 >/dev/null &&
		git bisect run "$rb" test "$work/w3.yaml" --lab "$lab" --state "$state" --boards cb01,cb02
) >"$work/bisect.out" 2>&1
check "git bisect run rackbisect test: finds a first bad commit" contains "$work/bisect.out" "is the first bad commit"
check "git bisect run rackbisect test: it is the c1afdaff equivalent" \
	contains "$work/bisect.out" "^$culprit is the first bad commit"
git -C "$work/tree" bisect reset >/dev/null 2>&1

section "a changed host key"
# ---- a changed host key is refused; lab trust records the new one --------------------------------
known=$state/labs/coordinator/known_hosts
cp "$known" "$work/known_hosts.saved"
ssh-keygen -q -t ed25519 -N '' -f "$work/other-key" >/dev/null
other=$(cut -d' ' -f1,2 "$work/other-key.pub")
awk -v k="$other" '$1 == "[127.77.2.3]:2222" { print $1, k; next } { print }' "$work/known_hosts.saved" >"$known"
rbx run "$job" --tree "$work/tree" --commit v3.3 --boards cb03 >"$work/key.out" 2>&1
check "changed host key: exit 3" test $? -eq 3
check "changed host key: refused naming board and fingerprints" \
	bash -c "grep -q 'cb03' '$work/key.out' && grep -q 'SHA256:' '$work/key.out'"
"$rb" lab trust "$lab" --state "$state" </dev/null >"$work/trust-asked.out" 2>&1
check "lab trust with no terminal to ask on and no --yes: exit 2, nothing recorded" \
	bash -c "[ $? -eq 2 ] && grep -q 'SHA256:' '$work/trust-asked.out' &&
		grep -q 'run again with --yes' '$work/trust-asked.out' && grep -q '$other' '$known'"
"$rb" lab trust "$lab" --state "$state" --yes >"$work/trust.out" 2>&1
check "lab trust --yes shows fingerprints and records them" \
	bash -c "grep -q 'SHA256:' '$work/trust.out' && ! grep -q '$other' '$known'"
rbx run "$job" --tree "$work/tree" --commit v3.3 --boards cb03 >/dev/null 2>&1
check "after lab trust the board is reachable again" test $? -eq 0
# a board that names its own known_hosts: trust writes there, as its sessions read there
sed 's|{host: 127.77.2.3, port: 2222}|{host: 127.77.2.3, port: 2222, known_hosts: '"$work"'/cb03.known}|' \
	"$lab" >"$work/own-known.yaml"
"$rb" lab trust "$work/own-known.yaml" --state "$state" --yes >"$work/trust-own.out" 2>&1
check "lab trust honours a board's own known_hosts: file" \
	bash -c "grep -q '^\[127.77.2.3\]:2222 ' '$work/cb03.known' && grep -q 'cb03.known' '$work/trust-own.out'"

section "an unusable identity"
# ---- our own SSH key that cannot be used: said as ours; the board is not blamed ------------------
ssh-keygen -q -t ed25519 -N 'a passphrase' -f "$work/encrypted-key" >/dev/null
sed 's|{host: 127.77.2.4, port: 2222}|{host: 127.77.2.4, port: 2222, identity: '"$work"'/encrypted-key}|' \
	"$lab" >"$work/bad-identity.yaml"
"$rb" run "$job" --lab "$work/bad-identity.yaml" --state "$state" --tree "$work/tree" --commit v3.3 \
	--boards cb04 >"$work/identity.out" 2>&1
check "unusable identity: exit 3, a lab set-up error naming the key and what is wrong with it" \
	bash -c "[ $? -eq 3 ] && grep -q 'lab set-up error: .*encrypted-key cannot be used: it is not an unencrypted private key' '$work/identity.out'"
check "unusable identity: the board is not power-cycled, retried or taken offline" \
	bash -c "! grep -qE 'event=(power-cycle|retry|offline|health-check)|unreachable' '$work/identity.out'"

section "kill -9"
# ---- kill -9 mid-run loses nothing; the next run recovers ----------------------------------------
before=$(rbx runs --last 1000 --json | python3 -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin) if r["state"] == "done"))')
mkfifo "$work/events"
"$rb" run "$job" --lab "$lab" --state "$state" --tree "$work/tree" --commit v3.3.1-rc1 \
	--boards cb01,cb02,cb03 >"$work/killed.out" 2>"$work/events" &
background=$!
exec 8<"$work/events"
# kill it right after its first result is stored, while the other boards are mid-run
while IFS= read -r -t 120 line <&8; do
	echo "$line" >>"$work/killed.err"
	case $line in *event=done*) break ;; esac
done
kill -9 "$background"
exec 8<&-
wait "$background" 2>/dev/null
check "kill -9: the coordinator is gone" bash -c "! kill -0 $background 2>/dev/null"
background=
after=$(rbx runs --last 1000 --json | python3 -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin) if r["state"] == "done"))')
check "kill -9: every result stored before the kill is still there, and more" test "$after" -gt "$before"
rbx run "$job" --tree "$work/tree" --commit v3.3 --boards cb01,cb02,cb03 >"$work/after-kill.out" 2>"$work/after-kill.err"
check "kill -9: the next run on those boards passes" test $? -eq 0
check "kill -9: runs left running are closed as INFRA, not lost" contains "$work/after-kill.err" "event=interrupted"

section "bad configuration"
# ---- bad configuration: exit 2 with file:line:col ---------------------------------------------
sed 's/power: {driver: virtual}/power: {driver: pdu9000}/; 0,/console: {driver: virtual, port: 7000}/s//console: {driver: virtual, port: 7000}\n    power: {driver: pdu9000}/' "$lab" >"$work/bad-driver.yaml"
"$rb" run "$job" --lab "$work/bad-driver.yaml" --state "$state" --tree "$work/tree" --commit v3.3 >"$work/bad-driver.out" 2>&1
check "unknown power driver: exit 2" test $? -eq 2
check "unknown power driver: file:line:col and the known names" \
	contains "$work/bad-driver.out" "bad-driver.yaml:[0-9]*:[0-9]*: board 'cb01': unknown power driver 'pdu9000' (known: command, pdudaemon, qemu, virtual)"
rbx run "$job" --tree "$work/tree" --commit no-such-ref >"$work/bad-ref.out" 2>&1
check "unknown commit: exit 2" test $? -eq 2
rbx test "$job" --tree "$work/tree" --commit no-such-ref >/dev/null 2>&1
check "unknown commit under test: exit 128 (git bisect must stop)" test $? -eq 128
rbx run "$job" --tree "$work/tree" --commit '--upload-pack=touch /tmp/pwned' >"$work/bad-opt.out" 2>&1
check "a ref that looks like an option: exit 2" test $? -eq 2

flock "$state/labs/coordinator/coordinator.lock" \
	"$rb" run "$job" --lab "$lab" --state "$state" --tree "$work/tree" --commit v3.3 >"$work/locked.out" 2>&1
check "a second coordinator on the same lab: exit 3, saying who holds it" \
	bash -c "[ $? -eq 3 ] && grep -q 'another rackbisect is using lab coordinator' '$work/locked.out'"

section "lab down"
# ---- lab down ------------------------------------------------------------------------------------
"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
check "lab down" test $? -eq 0

check "no sanitizer report from the coordinator" \
	bash -c "! grep -l 'Sanitizer\|runtime error' '$work'/*.err '$work'/*.out"

[ "$failures" -eq 0 ]
