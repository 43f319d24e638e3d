#!/bin/bash
# The pdudaemon power driver against Debian's pdudaemon (issue 7): a virtual
# lab whose two boards are powered through pdudaemon's HTTP API; pdudaemon's
# localcmdline PDU "vlab" switches them with `rackbisect-vlab power`, as a
# real PDU would cut and restore their power. `rackbisect power` switches
# them off, on and through a cycle (pdudaemon's reboot), a burst of cycles
# on the one PDU all land, and with pdudaemon gone the failure names the PDU
# and its port.
#
# Prints "ok N - ..." / "not ok N - ..."; every wait is on an event with a timeout.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
rb=$(rackbisect_under_test "$root")
vlab=$(vlab_under_test "$root")
work=$(mktemp -d /tmp/rackbisect-pdudaemon-test-XXXXXX)
state=$work/state
lab=$work/lab.yaml
url=http://127.77.12.2:16421
pdudaemon_pid=

cleanup() {
	[ -n "$pdudaemon_pid" ] && kill "$pdudaemon_pid" 2>/dev/null && wait "$pdudaemon_pid" 2>/dev/null
	"$vlab" down "$lab" --state "$state" >/dev/null 2>&1
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

cat >"$lab" <<YAML
name: pdulab
type: virtual
boards:
  - name: pd01
    chip: ar9285
    transport: {host: 127.77.12.11, port: 2222}
    console: {driver: virtual, port: 7000}
    power: {driver: pdudaemon, url: "$url", hostname: vlab, port: 1, delay: 0}
  - name: pd02
    chip: ar9380
    transport: {host: 127.77.12.12, port: 2222}
    console: {driver: virtual, port: 7000}
    power: {driver: pdudaemon, url: "$url", hostname: vlab, port: 2, delay: 0}
YAML
# pdudaemon runs its commands through a shell, with one %s, the port: "vlab"
# port N is board pd0N; every switch is also logged
cat >"$work/switch" <<SH
#!/bin/sh
echo "pd0\$1 \$2" >>'$work/switched'
exec '$vlab' power --lab '$lab' --state '$state' "pd0\$1" "\$2"
SH
chmod +x "$work/switch"
cat >"$work/pdudaemon.json" <<JSON
{"daemon": {"hostname": "127.77.12.2", "port": 16421, "listener": "http"},
 "pdus": {"vlab": {"driver": "localcmdline",
   "cmd_on": "$work/switch %s on", "cmd_off": "$work/switch %s off"}}}
JSON

"$vlab" up "$lab" --state "$state" >"$work/up.out" 2>&1
check "the lab of two boards is up" test $? -eq 0
pdudaemon --conf "$work/pdudaemon.json" --logfile "$work/pdudaemon.log" >/dev/null 2>&1 &
pdudaemon_pid=$!
touch "$work/pdudaemon.log"
timeout 120 grep -q -m1 "Listening on 127.77.12.2:16421" <(timeout 120 tail -n +1 -F "$work/pdudaemon.log" 2>/dev/null)
check "pdudaemon (Debian's) listens on 127.77.12.2:16421" test $? -eq 0

power() { timeout 60 "$rb" power "$@" --lab "$lab" --state "$state"; }
# powered BOARD off|on: the lab's own view (on: booting its fallback kernel, or up)
powered() {
	local words=off
	[ "$2" = on ] && words='booting|up'
	"$vlab" power --lab "$lab" --state "$state" "$1" status 2>&1 | grep -q -w -E "$words"
}

power pd01 off >"$work/off.out" 2>&1
check "rackbisect power pd01 off through pdudaemon: exit 0" test $? -eq 0
check "... the board is off" powered pd01 off
check "... pdudaemon ran the PDU's command for port 1" contains "$work/switched" "^pd01 off$"
power pd01 on >"$work/on.out" 2>&1
check "rackbisect power pd01 on: exit 0, the board is on" bash -c "test $? -eq 0 && $(declare -f powered); vlab='$vlab' lab='$lab' state='$state' powered pd01 on"
: >"$work/switched"
power pd02 cycle >"$work/cycle.out" 2>&1
check "a cycle is pdudaemon's reboot: off, then on" bash -c "test $? -eq 0 && [ \"\$(cat '$work/switched')\" = \"\$(printf 'pd02 off\npd02 on')\" ]"
check "... and the board is on again" powered pd02 on

: >"$work/switched"
for i in 1 2 3; do
	power pd01 cycle >"$work/burst-1-$i.out" 2>&1 &
	power pd02 cycle >"$work/burst-2-$i.out" 2>&1 &
done
failed=0
for job in $(jobs -p); do
	[ "$job" = "$pdudaemon_pid" ] && continue
	wait "$job" || failed=$((failed + 1))
done
check "a burst of 6 cycles on the one PDU: every one exit 0" test "$failed" -eq 0
check "... pdudaemon switched each: 6 offs and 6 ons" \
	bash -c "[ \$(grep -c ' off$' '$work/switched') -eq 6 ] && [ \$(grep -c ' on$' '$work/switched') -eq 6 ]"
check "... both boards end on" bash -c "$(declare -f powered); vlab='$vlab' lab='$lab' state='$state'; powered pd01 on && powered pd02 on"

kill "$pdudaemon_pid" && wait "$pdudaemon_pid" 2>/dev/null
pdudaemon_pid=
power pd01 cycle >"$work/gone.out" 2>&1
check "pdudaemon gone: exit 3 (lab trouble)" test $? -eq 3
check "... naming the PDU and its port" contains "$work/gone.out" \
	"board pd01: power switch 'pdudaemon' (PDU vlab port 1 at $url): cycle\|reboot"

[ "$failures" -eq 0 ]
