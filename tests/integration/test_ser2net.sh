#!/bin/bash
# The tcp console driver against Debian's ser2net (issue 7): ser2net serves a
# pseudo-terminal (the board's serial line: what this test writes into its
# other side is what the board "printed") as a raw TCP port and as a telnet
# port. `rackbisect console` captures exactly what was written, across a
# forced reconnect (ser2net restarted), and in telnet a 0xff byte arrives
# once, with ser2net's option negotiation left out.
#
# Prints "ok N - ..." / "not ok N - ..."; every wait is on an event with a timeout.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
rb=$(rackbisect_under_test "$root")
work=$(mktemp -d /tmp/rackbisect-ser2net-test-XXXXXX)
lab=$work/lab.yaml
ser2net_pid= console_pids=

cleanup() {
	for pid in $console_pids $ser2net_pid ${WRITER_PID:-}; do
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The board's side of the serial line: a pty whose name comes first, then
# every byte on this process's stdin goes into the line.
coproc WRITER {
	python3 -u -c '
import os, pty, sys, tty
board, line = pty.openpty()
tty.setraw(line)
print(os.ttyname(line), flush=True)
for chunk in iter(lambda: os.read(0, 4096), b""):
    os.write(board, chunk)
'
}
read -r pts <&"${WRITER[0]}"
check "a pseudo-terminal for the board's serial line" test -c "$pts"
write_line() { printf "$@" >&"${WRITER[1]}"; }

cat >"$work/ser2net.yaml" <<YAML
connection: &raw
  accepter: tcp,127.77.14.1,7001
  connector: serialdev,$pts,115200n81,local
  options:
    kickolduser: true
connection: &telnet
  accepter: telnet,tcp,127.77.14.1,7002
  connector: serialdev,$pts,115200n81,local
  options:
    kickolduser: true
YAML
cat >"$lab" <<'YAML'
name: serial
type: ssh
boards:
  - name: sr1
    chip: ar9285
    transport: {host: 127.77.14.2}
    power: {driver: command, on: [/bin/true], off: [/bin/true]}
    console: {driver: tcp, host: 127.77.14.1, port: 7001}
    boot: {driver: virtual, fallback: 3.3.0}
  - name: st1
    chip: ar9285
    transport: {host: 127.77.14.2}
    power: {driver: command, on: [/bin/true], off: [/bin/true]}
    console: {driver: tcp, host: 127.77.14.1, port: 7002, protocol: telnet}
    boot: {driver: virtual, fallback: 3.3.0}
YAML

start_ser2net() {
	ser2net -n -u -c "$work/ser2net.yaml" -P "$work/ser2net.pid" >>"$work/ser2net.out" 2>&1 &
	ser2net_pid=$!
}
# waits (up to 20 s) until FILE has COUNT lines matching PATTERN
wait_for() {
	timeout 20 grep -q -m"$3" -e "$2" <(timeout 20 tail -n +1 -F "$1" 2>/dev/null)
}
follow() {	# follow BOARD: rackbisect console BOARD into $work/BOARD.{out,err}
	"$rb" console "$1" --lab "$lab" --state "$work/state" >"$work/$1.out" 2>"$work/$1.err" &
	console_pids="$console_pids $!"
}

start_ser2net
follow sr1
wait_for "$work/sr1.err" "console connected" 1
check "rackbisect console sr1 connects to ser2net's raw port" test $? -eq 0
write_line 'U-Boot 2012.04\r\n[    0.000000] Linux version 3.3.1\r\n'
wait_for "$work/sr1.out" "Linux version 3.3.1" 1
check "... and captures what the board writes" test $? -eq 0

kill "$ser2net_pid" && wait "$ser2net_pid" 2>/dev/null
wait_for "$work/sr1.err" "console lost" 1
check "ser2net restarted: the console says the connection was lost" test $? -eq 0
start_ser2net
wait_for "$work/sr1.err" "console connected" 2
check "... and reconnects by itself" test $? -eq 0
write_line '[    5.656464] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\r\n'
wait_for "$work/sr1.out" "timed out" 1
printf 'U-Boot 2012.04\r\n[    0.000000] Linux version 3.3.1\r\n[    5.656464] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\r\n' >"$work/written"
check "... the capture is what was written, byte for byte, across the reconnect" cmp -s "$work/written" "$work/sr1.out"

# one serial line, one user: ser2net opens the device for one connection at a time
kill $console_pids && wait $console_pids 2>/dev/null
console_pids=
follow st1
wait_for "$work/st1.err" "console connected" 1
check "rackbisect console st1 connects to ser2net's telnet port" test $? -eq 0
write_line 'ath9k: byte \xff once\r\n'
wait_for "$work/st1.out" "once" 1
printf 'ath9k: byte \xff once\r\n' >"$work/written-telnet"
check "... the capture holds the data alone: 0xff once, no telnet negotiation" cmp -s "$work/written-telnet" "$work/st1.out"

[ "$failures" -eq 0 ]
