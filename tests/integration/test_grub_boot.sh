#!/bin/bash
# The grub boot driver (issue 7) on a virtual board that starts through
# GRUB (drivers/virtual/board/grub_firmware.c): rackbisect installs the
# build, writes its menu entry, chooses it once with the real grub-reboot
# (grub2-common) and reboots; the board's GRUB boots the entry (its command
# line starts BOOT_IMAGE=, as GRUB's does) and clears the choice, so a power
# cycle, and a build that never comes back, land on GRUB's default: the
# board's installed kernel.
#
# Prints "ok N - ..." / "not ok N - ..."; every wait is on an event with a timeout.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
rb=$(rackbisect_under_test "$root")
vlab=$(vlab_under_test "$root")
work=$(mktemp -d /tmp/rackbisect-grub-test-XXXXXX)
state=$work/state
lab=$work/lab.yaml

cleanup() {
	"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! command -v grub-reboot >/dev/null; then
	echo "not ok 1 - grub-reboot is installed (grub2-common: run \`make deps\`)"
	exit 1
fi

cat >"$lab" <<'YAML'
name: grubbed
type: virtual
boards:
  - name: gb01
    chip: ar9285
    transport: {host: 127.77.16.1, port: 2222}
    console: {driver: virtual, port: 7000}
    power: {driver: virtual}
    boot: {driver: grub, fallback: 3.3.0-lab-fallback,
           command_line: "root=/dev/sda1 ro console=ttyS0,115200"}
    limits: {boot: 15, hang: 5}
    seed: 1
YAML
cat >"$work/job.yaml" <<'YAML'
name: grub-w4
kernel: {command_line: "rackbisect.test=grub"}
boards: all
workloads:
  - name: W4
    parameters: {cycles: 3, down-time: 1}
    timeout: 300
policy: {boot_failure: skip}
timeouts: {boot: 15, hang: 5}
YAML
"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --out "$work/tree" --truth "$work/truth.json" \
	>"$work/tree.out" 2>&1
check "the model kernel tree is made" git -C "$work/tree" rev-parse -q --verify v3.3

"$rb" lab up "$lab" --state "$state" >"$work/up.out" 2>&1
check "rackbisect lab up: the board is up" test $? -eq 0
board() { ssh -F "$state/labs/grubbed/ssh_config" gb01 "$@"; }

"$rb" run "$work/job.yaml" --lab "$lab" --state "$state" --tree "$work/tree" --commit v3.3 \
	>"$work/run.out" 2>"$work/run.err"
check "rackbisect run v3.3 through GRUB: exit 0, W4 PASS" \
	bash -c "[ $? -eq 0 ] && grep -qE '^gb01 +ar9285 +PASS *$' '$work/run.out'"
board cat /proc/cmdline >"$work/cmdline" 2>&1
check "... GRUB booted the build's entry (BOOT_IMAGE, the board's words, the job's, the marker)" \
	grep -qE '^BOOT_IMAGE=/boot/vmlinuz-3\.3\.0[^ ]* root=/dev/sda1 ro console=ttyS0,115200 rackbisect\.test=grub rackbisect\.run=[0-9]+$' "$work/cmdline"
board cat /boot/grub/rackbisect.cfg >"$work/entry" 2>&1
check "... from the one entry of /boot/grub/rackbisect.cfg" \
	grep -q "^menuentry 'rackbisect 3.3.0[^']*' --id rackbisect {$" "$work/entry"
board grub-editenv /boot/grub/grubenv list >"$work/grubenv" 2>&1
check "... and cleared the one-shot choice (the real grub-editenv reads next_entry=)" \
	grep -qx 'next_entry=' "$work/grubenv"

"$rb" power gb01 cycle --lab "$lab" --state "$state" >"$work/cycle.out" 2>&1
check "rackbisect power gb01 cycle: exit 0" test $? -eq 0
deadline=$((SECONDS + 30))
until board uname -r >"$work/after-cycle" 2>/dev/null || [ $SECONDS -ge $deadline ]; do :; done
check "... the board comes back on GRUB's default, its installed kernel" \
	grep -qx 3.3.0-lab-fallback "$work/after-cycle"

# A build whose image is not a kernel: GRUB's one boot of it fails, the
# coordinator power-cycles the board, and GRUB (its choice spent) boots the
# default: SKIP, the board recovered on its fallback.
git clone -q "$work/tree" "$work/noboot"
git -C "$work/noboot" checkout -q -b noboot v3.3
sed -i 's|^\t@mv \$@.tmp \$@$|\t@echo "not a kernel" >$@|' "$work/noboot/Makefile"
git -C "$work/noboot" -c user.name=t -c user.email=t@example.org commit -qam "an image that does not boot"
"$rb" run "$work/job.yaml" --lab "$lab" --state "$state" --tree "$work/noboot" --commit noboot \
	>"$work/noboot.out" 2>"$work/noboot.err"
check "a build that does not boot through GRUB: exit 1, SKIP" \
	bash -c "[ $? -eq 1 ] && grep -qE '^gb01 +ar9285 +SKIP *$' '$work/noboot.out'"
check "... power-cycled onto GRUB's default, the fallback kernel" \
	contains "$work/noboot.err" 'event=recovered detail="running 3.3.0-lab-fallback"'
grep 'event=grub-once' "$state/labs/grubbed/supervisor.log" >"$work/grub-once" 2>&1
check "GRUB booted each build's entry exactly once (the board's log)" \
	bash -c "[ \$(wc -l <'$work/grub-once') -eq 2 ] && grep -q 'vmlinuz-3.3.0-00001-g' '$work/grub-once'"

exit $((failures > 0))
