#!/bin/bash
# tests/run-limited.sh, the limit make check puts on each test (issue 31):
# a test past its limit gets TERM, with every process below it, so its bash
# cleanup trap runs (it stops the test's boards, QEMU or LAVA) even while it
# waits on a child in a process group of its own; one whose cleanup hangs is
# KILLed after the grace; one that ends in time keeps its exit status.
# Under timeout(1), which make check used before, the trap never ran.
#
# Prints "ok N - ..." / "not ok N - ...".
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
work=$(mktemp -d /tmp/rackbisect-run-limited-XXXXXX)
cleanup() {
	[ -s "$work/daemon" ] && kill -9 "$(cat "$work/daemon")" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# A test that hangs in a `timeout 600 ...` of its own (its own process
# group), beside a daemon it started with setsid; its cleanup stops the
# daemon and says so.
cat >"$work/hung-test.sh" <<EOF_TEST
#!/bin/bash
cleanup() { echo "cleanup ran" >>"$work/marker"; kill "\$(cat "$work/daemon")" 2>/dev/null; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
setsid tail -f /dev/null &
echo \$! >"$work/daemon"
timeout 600 tail -f /dev/null
echo "the test went on" >>"$work/marker"
EOF_TEST

"$root/tests/run-limited.sh" 2 60 bash "$work/hung-test.sh" >"$work/out" 2>&1
check "a test past its limit: exit 124" test $? -eq 124
check "... its cleanup trap ran" contains "$work/marker" "^cleanup ran$"
check "... and it did not go on past its hung step" lacks "$work/marker" "went on"
check "... its daemon is gone" bash -c "! kill -0 \$(cat '$work/daemon') 2>/dev/null"
check "... the runner said what it did" contains "$work/out" "ran past 2 s: TERM"

# A test whose cleanup hangs too: KILLed after the grace, nothing left.
cat >"$work/stuck-test.sh" <<EOF_TEST
#!/bin/bash
echo \$\$ >>"$work/stuck-pids"
trap 'timeout 600 tail -f /dev/null & echo \$! >>"$work/stuck-pids"; wait' EXIT
trap 'exit 130' TERM
timeout 600 tail -f /dev/null &
echo \$! >>"$work/stuck-pids"
wait
EOF_TEST
"$root/tests/run-limited.sh" 1 2 bash "$work/stuck-test.sh" >"$work/out-stuck" 2>&1
check "a test whose cleanup hangs: exit 124 once the grace is over" test $? -eq 124
check "... KILLed, said so" contains "$work/out-stuck" "still running 2 s later: KILL"
# alive PID: it exists and is no zombie awaiting its reaper
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
left=0
while read -r pid; do alive "$pid" && left=$((left + 1)); done <"$work/stuck-pids"
check "... none of its 3 processes left" \
	bash -c "[ \$(wc -l <'$work/stuck-pids') -eq 3 ] && [ $left -eq 0 ]"

"$root/tests/run-limited.sh" 60 10 bash -c 'exit 3'
check "a test that ends in time keeps its exit status" test $? -eq 3

[ "$failures" -eq 0 ]
