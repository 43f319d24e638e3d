#!/bin/bash
# lane: last
# A real kernel on a real Wi-Fi stack (issue 7): a QEMU board
# (drivers/qemu/board.sh) boots Debian's own kernel with an initramfs of
# busybox, dropbear, kexec-tools, hostapd and iw; two mac80211_hwsim radios
# are its access point and its station. rackbisect drives it as a rack
# machine: the qemu power driver (QMP) switches it, the tcp console reads
# its serial line, the kexec boot driver boots the built kernel with the
# job's command line, and W1-W4, unchanged, run on the real iw, ip, ping and
# hostapd and PASS. The build is a kbuild build (kernel: kbuild:) of the test
# tree tests/data/kbuild-tree, whose make hands over Debian's image and
# modules: configured with a fragment, built out of tree, its modules packed,
# unpacked on the board by the kexec driver and loaded by the kexec'd kernel.
#
# QEMU uses KVM where the CPU offers it (board.sh accel), TCG otherwise:
# timeouts are sized for TCG on a loaded host (a workload that outruns its
# timeout is now the kernel's FAIL, not INFRA retried: 300 s for seconds of
# work). Prints "ok N - ..." / "not ok N - ..."; every wait is on an event
# with a timeout.
set -u
# Its checks read the build logs in its state's own kernels/.
unset RACKBISECT_KERNEL_CACHE

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
rb=$(rackbisect_under_test "$root")
board_sh=$root/drivers/qemu/board.sh
work=$(mktemp -d /tmp/rackbisect-qemu-test-XXXXXX)
state=$work/state
lab=$work/lab.yaml
addr=127.77.15.1 ssh_port=2201 console_port=7015

cleanup() {
	[ -n "${console_pid:-}" ] && kill "$console_pid" 2>/dev/null
	bash "$board_sh" stop "$work/board" 2>/dev/null
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! command -v qemu-system-x86_64 >/dev/null || ! ls /lib/modules/*/kernel/drivers/net/wireless/mac80211_hwsim.ko* >/dev/null 2>&1; then
	echo "not ok 1 - qemu-system-x86 and linux-image-amd64 are installed (run \`make deps\`)"
	exit 1
fi
accel=$(bash "$board_sh" accel)
echo "# accelerator: $accel (/dev/kvm $([ -w /dev/kvm ] && echo writable || echo absent);" \
	"CPU virtualisation flags: $(grep -o -w -E 'vmx|svm' /proc/cpuinfo | sort -u | tr '\n' ' ')" \
	"modules: $(ls -d /sys/module/kvm* 2>/dev/null | xargs -r -n1 basename | tr '\n' ' '))"
# A /dev/kvm without vmx or svm (PVM's, on some of this project's machines)
# hangs Debian's kernel: KVM only where the CPU offers it, unless told.
if [ -z "${RACKBISECT_QEMU_ACCEL:-}" ]; then
	grep -q -w -E 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ] && want=kvm || want=tcg
	check "board.sh chooses KVM only with /dev/kvm and the CPU's vmx or svm ($want here)" test "$accel" = "$want"
fi
RACKBISECT_QEMU_ACCEL=fast bash "$board_sh" accel >/dev/null 2>"$work/accel.err"
check "... RACKBISECT_QEMU_ACCEL=fast: exit 1, naming what it takes" \
	bash -c "test $? -eq 1 && grep -q 'say kvm, tcg or auto' '$work/accel.err'"

ssh-keygen -q -t ed25519 -N '' -f "$work/key"
started=$SECONDS
bash "$board_sh" image "$work/image" "$work/key.pub" 2>"$work/image.err"
check "the board's initramfs is built (Debian's kernel $(cat "$work/image/release" 2>/dev/null))" test -s "$work/image/initrd.img"
echo "# image built in $((SECONDS - started)) s"
release=$(cat "$work/image/release")

cat >"$lab" <<YAML
name: qemu
type: ssh
boards:
  - name: q1
    chip: {name: hwsim}
    transport: {host: $addr, port: $ssh_port, user: root, identity: key}
    console: {driver: tcp, host: $addr, port: $console_port}
    power: {driver: qemu, qmp: $work/board/qmp.sock}
    boot: {driver: kexec, fallback: $release, initrd: /boot/initrd.img,
           command_line: "console=ttyS0,115200 panic=-1"}
    limits: {boot: 240, hang: 60}
YAML

# The kernel tree: kbuild's make interface, handing over Debian's image and
# modules as the build; each commit's release is Debian's, so only the
# command line tells a kexec'd kernel from the installed one. The modules the
# fragment asks for are all the board loads (e1000 for its network, hwsim
# and what it needs for its radios): unpacked over the board's own, they are
# what the kexec'd kernel runs on.
tree=$work/tree
cp -R "$root/tests/data/kbuild-tree" "$tree"
git -C "$tree" init -q && git -C "$tree" add -A &&
	git -C "$tree" -c user.name=t -c user.email=t@example.org commit -q -m "a kernel"
printf 'CONFIG_%s=m\n' RFKILL CRYPTO_LIB_ARC4 VIRTIO E1000 CFG80211 MAC80211 MAC80211_HWSIM \
	>"$work/hwsim.config"
kernel_section="kernel:
  command_line: \"rackbisect.test=kexec-marker\"
  build: [make, KERNEL_IMAGE=$work/image/vmlinuz, KERNEL_RELEASE=$release,
          PREBUILT_MODULES=/lib/modules/$release]
  kbuild: {config: x86_64_defconfig, fragment: hwsim.config}"

cat >"$work/job.yaml" <<YAML
name: wifi-qemu
$kernel_section
boards: all
workloads:
  - name: W1
    parameters: {duration: 6, phase: 3, keepalive: 2, target: 10.80.0.1}
    timeout: 300
  - name: W2
    parameters: {duration: 6, phase: 3, target: 10.80.0.1}
    timeout: 300
  - name: W3
    parameters: {cycles: 3, idle-min: 1, idle-max: 2, target: 10.80.0.1}
    timeout: 300
  - name: W4
    parameters: {cycles: 3, target: 10.80.0.1}
    timeout: 300
symptoms:
  - name: not-associated
    metric: failed_not_associated
    compare: ">"
    threshold: 0
  - name: ping-loss
    metric: ping_loss_total
    compare: ">"
    threshold: 5
policy: {boot_failure: fail}
timeouts: {boot: 240, hang: 60}
YAML

guest() {	# guest COMMAND: over the board's SSH port, with the test's key
	timeout 60 ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
		-o LogLevel=ERROR -o ConnectTimeout=10 -i "$work/key" -p "$ssh_port" "root@$addr" "$@"
}
# waits (up to 240 s: TCG) until the guest's /proc/cmdline has WORD
cmdline_has() {
	local deadline=$((SECONDS + 240))
	while [ $SECONDS -lt $deadline ]; do
		guest cat /proc/cmdline 2>/dev/null | grep -q -w -e "$1" && return 0
	done
	return 1
}

started=$SECONDS
bash "$board_sh" start "$work/image" "$work/board" "$addr" "$ssh_port" "$console_port" 2>"$work/start.err"
check "QEMU starts the board" test -f "$work/board/qemu.pid"
cmdline_has rackbisect.installed
up=$?
check "... it boots its installed kernel and answers SSH" test $up -eq 0
if [ $up -ne 0 ]; then
	# every later check needs the board: say what QEMU said, not 30 failures
	echo "# no answer in $((SECONDS - started)) s (accelerator $accel); QEMU said:"
	sed 's/^/#   /' "$work/board/qemu.err" "$work/start.err" 2>/dev/null | tail -n 5
	exit 1
fi
echo "# board up in $((SECONDS - started)) s"

timeout 60 "$rb" lab trust "$lab" --state "$state" --yes >"$work/trust.out" 2>&1
check "rackbisect lab trust records the board's host key" test $? -eq 0
fingerprint=$(ssh-keygen -l -E sha256 -f "$work/image/host_key.pub" | awk '{print $2}')
check "... the fingerprint it shows is the board's own" contains "$work/trust.out" "$fingerprint"

"$rb" console q1 --lab "$lab" --state "$state" >"$work/console.out" 2>"$work/console.err" &
console_pid=$!
# QEMU's serial port serves one client at a time, and the run's coordinator
# reads it too: the run starts once this reader holds it (ci15 lost that race)
timeout 30 grep -q -m1 "console connected" <(timeout 30 tail -n +1 -F "$work/console.err" 2>/dev/null)

started=$SECONDS
timeout 900 "$rb" run "$work/job.yaml" --lab "$lab" --state "$state" --tree "$tree" \
	--commit HEAD >"$work/run.out" 2>"$work/run.err"
status=$?
echo "# rackbisect run took $((SECONDS - started)) s"
check "rackbisect run: W1-W4 PASS on the real Wi-Fi stack (exit 0)" test "$status" -eq 0
check "... the matrix says PASS for each of W1-W4 on q1" \
	grep -q -E '^q1 +hwsim +PASS +PASS +PASS +PASS *$' "$work/run.out"
guest cat /proc/cmdline >"$work/cmdline" 2>&1
check "... the build was booted by kexec: the board's command line has the job's words" \
	grep -q -w rackbisect.test=kexec-marker "$work/cmdline"
check "... after the board's own (the kexec driver's command_line)" \
	grep -q -E '^console=ttyS0,115200 panic=-1 rackbisect.test=kexec-marker rackbisect.run=[0-9]+$' "$work/cmdline"
check "the build was a kbuild build: fragment merged, olddefconfig, out of tree, modules packed" \
	sh -c 'for step in "fragment: " "olddefconfig: make" "make: make KERNEL_IMAGE" "pack modules: tar"; do
		grep -q "# rackbisect: $step" "$1"/*/build.log || exit 1; done' sh "$state/kernels"
guest cat "/lib/modules/$release/kbuild-test.stamp" >"$work/stamp" 2>&1
check "... its modules were unpacked on the board and reached the kexec'd kernel" \
	grep -q "^$release from " "$work/stamp"
guest cat /proc/modules >"$work/modules" 2>&1
check "... which runs its radios on them (mac80211_hwsim loaded)" grep -q '^mac80211_hwsim ' "$work/modules"

runs=$state/runs
ktap() { cat "$runs"/*/output.ktap 2>/dev/null; }
ktap >"$work/all.ktap"
check "the workloads read the real station dump (tx packets counted)" \
	grep -q -E '^# metric tx_packets=[1-9][0-9]* count' "$work/all.ktap"
check "... switched real power save on (iw get power_save)" grep -q -E '^# power_save: on' "$work/all.ktap"
check "... reconnected through real iw connect (reconnect times measured)" \
	grep -q -E '^# metric reconnect_time_max=[0-9.]+ s' "$work/all.ktap"
check "... and pinged across the radio with no loss" grep -q -E '^# metric ping_loss_total=0.00 %' "$work/all.ktap"
check "the kernel log of a run is the real mac80211's" grep -q -E 'wlan0: associated' "$runs"/*/dmesg.log

timeout 20 grep -q -m1 "rackbisect-qemu-board: ready" <(timeout 20 tail -n +1 -F "$work/console.out" 2>/dev/null)
check "rackbisect console read the board's serial line (QEMU's TCP serial port)" test $? -eq 0
check "... the kexec'd kernel's boot is in the capture" grep -q "rackbisect.test=kexec-marker" "$work/console.out"

# A build that never comes back (its init, busybox's sleep, never starts
# the board's SSH; the words the kernel does not know are init's arguments):
# after the board's boot limit the coordinator power-cycles it through QMP
# onto its installed kernel, and the run is SKIP, not a FAIL of the kernel.
# (No init at all, panic=0, also stays, but a panicked kernel spins in its
# delay loop: under TCG a core busy for the whole limit, beside the fault
# matrix; a sleeping init leaves the guest idle.)
sed 's/limits: {boot: 240, hang: 60}/limits: {boot: 50, hang: 60}/' "$lab" >"$work/lab-short.yaml"
# (one workload: each run of a build that does not boot waits out the limit)
cat >"$work/job-noboot.yaml" <<YAML
name: wifi-qemu-noboot
${kernel_section/rackbisect.test=kexec-marker/rdinit=/bin/busybox sleep 86400}
boards: all
workloads:
  - name: W4
    parameters: {cycles: 1, target: 10.80.0.1}
    timeout: 120
policy: {boot_failure: skip}
YAML
timeout 900 "$rb" run "$work/job-noboot.yaml" --lab "$work/lab-short.yaml" --state "$state" \
	--tree "$tree" --commit HEAD >"$work/noboot.out" 2>"$work/noboot.err"
check "a build that does not come back: rackbisect run exits 1 (SKIP)" test $? -eq 1
check "... the matrix says SKIP" grep -q -E '^q1 +hwsim +SKIP *$' "$work/noboot.out"
check "... the coordinator power-cycled the board (QMP)" contains "$work/noboot.err" "event=power-cycle"
check "... and found it on its installed kernel" \
	contains "$work/noboot.err" "event=recovered detail=\"running $release\""
guest cat /proc/cmdline >"$work/cmdline" 2>&1
check "... the board runs its installed kernel again" grep -q -w rackbisect.installed "$work/cmdline"

# The board's power switched from the command line. After off, the board
# (up since the SKIP run's recovery) no longer answers; after on and after
# a cycle it starts its installed kernel again, as its console shows: the
# SKIP run above waited for such a boot to its end, so these need not.
installed_boot="Command line: console=ttyS0,115200 panic=-1 rackbisect.installed"
# new_boot_seen: waits (up to 90 s) for the console to show one more start of
# the installed kernel than it had shown when $boots_before was counted
new_boot_seen() {
	timeout 90 awk -v want=$((boots_before + 1)) -v line="$installed_boot" \
		'index($0, line) && ++n >= want { found = 1; exit } END { exit !found }' \
		<(timeout 90 tail -n +1 -F "$work/console.out" 2>/dev/null)
}
timeout 60 "$rb" power q1 off --lab "$lab" --state "$state" >"$work/off.out" 2>&1
check "rackbisect power q1 off: exit 0" test $? -eq 0
silent() { ! guest true 2>/dev/null; }
check "... the board no longer answers" silent
boots_before=$(grep -c -F "$installed_boot" "$work/console.out")
timeout 60 "$rb" power q1 on --lab "$lab" --state "$state" >"$work/on.out" 2>&1
check "rackbisect power q1 on: exit 0" test $? -eq 0
new_boot_seen
check "... and it starts its installed kernel again (a new boot on its console)" test $? -eq 0

boots_before=$(grep -c -F "$installed_boot" "$work/console.out")
timeout 60 "$rb" power q1 cycle --lab "$lab" --state "$state" >"$work/cycle.out" 2>&1
check "rackbisect power q1 cycle through QMP: exit 0" test $? -eq 0
new_boot_seen
check "... the board restarts on its installed kernel (a new boot on its console)" test $? -eq 0

kill "$console_pid" 2>/dev/null && wait "$console_pid" 2>/dev/null
exit $((failures > 0))
