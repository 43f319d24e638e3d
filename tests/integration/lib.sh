# Shared by the integration tests (sourced, not run): TAP-like assertions.
# Each check prints "ok N - description" or "not ok N - description";
# tests/run-all.sh counts those lines.

assertions=0
failures=0

# python3 is Debian's (make deps installs it), also in the `bash -c` of a
# check: a version manager's shim first on PATH costs far more than the
# query it runs (pyenv's: about half a CPU-second a call on this project's
# machines, and the crash test makes hundreds of calls).
if [ -x /usr/bin/python3 ]; then
	python3() { /usr/bin/python3 "$@"; }
	export -f python3
fi

# check DESCRIPTION COMMAND...: runs COMMAND; its status is the verdict.
check() {
	local description=$1
	shift
	assertions=$((assertions + 1))
	if "$@"; then
		echo "ok $assertions - $description"
	else
		failures=$((failures + 1))
		echo "not ok $assertions - $description"
	fi
}

# line_awk ARGS...: awk that acts on each line as it arrives, for watchers
# of a live command's output. mawk (Debian's awk) fills a 4 KiB buffer from
# a pipe before it looks at a line: a watcher then sees its event only once
# enough output followed it, maybe when the command ended (test_gate's kill
# landed after the gate was done when a bisection printed less).
line_awk() {
	if awk -W version 2>&1 | grep -q mawk; then
		awk -W interactive "$@"
	else
		awk "$@"
	fi
}

# kill_at_event FIFO PID: waits (up to 600 s) for the word a watcher writes
# to FIFO ("seen", or "ended" when the output ended first), then kills PID
# with SIGKILL and reaps it; the word is left in $event
kill_at_event() {
	event=$(timeout 600 cat "$1")
	kill -9 "$2"
	wait "$2" 2>/dev/null
}

# contains FILE PATTERN / lacks FILE PATTERN
contains() { grep -q -e "$2" "$1"; }
lacks() { ! grep -q -e "$2" "$1"; }

# The vlab binary under test: the sanitized one when it was built.
vlab_under_test() {
	local build=${RACKBISECT_BUILD:-$1/build}
	if [ -x "$build/asan/rackbisect-vlab" ]; then
		echo "$build/asan/rackbisect-vlab"
	else
		echo "$build/rackbisect-vlab"
	fi
}

# The coordinator under test: the sanitized one when it was built.
rackbisect_under_test() {
	local build=${RACKBISECT_BUILD:-$1/build}
	if [ -x "$build/asan/rackbisect" ]; then
		echo "$build/asan/rackbisect"
	else
		echo "$build/rackbisect"
	fi
}

# eight_board_lab NAME PREFIX SUBNET [COUNT [FAULTS [KNOBS]]]: a lab file (on
# stdout) of eight boards (or the first COUNT) PREFIX01..PREFIX08 with the
# chips of labs/virtual.yaml on SUBNET.1-8, each a test's own loopback
# addresses; FAULTS (a fault plan's entries, "hang-workload: 3") and KNOBS
# (model knobs, "p_interference: 0.1") go to every board.
eight_board_lab() {
	local n=0 chip
	echo "name: $1"
	echo "type: virtual"
	echo "boards:"
	for chip in ar9285 ar9280 ar5416 ar9160 ar9287 ar9380 ar9462 ar9285; do
		[ "$n" -lt "${4:-8}" ] || break
		n=$((n + 1))
		cat <<YAML
  - name: ${2}0$n
    chip: $chip
    tags: [$chip]
    transport: {host: $3.$n, port: 2222}
    console: {driver: virtual, port: 7000}
    boot: {driver: virtual, fallback: 3.3.0-lab-fallback}
    limits: {boot: 60, hang: 5}
    seed: $n
YAML
		[ -z "${5:-}" ] || echo "    faults: {$5}"
		[ -z "${6:-}" ] || echo "    knobs: {$6}"
	done
}

# quick_job ROOT WORKLOAD...: jobs/ath9k-ps.yaml's rules and symptoms (on
# stdout) with shorter workloads, those named (W1-W4): W3's 8 cycles miss
# 3.3.1's failure on an RTC-reset chip with probability 0.55^8 (< 1 %), W1
# and W2 run 2 minutes of simulated time, W4 6 cycles; a bisection learns the
# rest. The same steps as the job's, fewer times: the full lengths would
# cost make check CPU and test nothing more.
quick_job() {
	local root=$1 workload
	shift
	sed -n '1,/^workloads:/p' "$root/jobs/ath9k-ps.yaml"
	for workload in "$@"; do
		case $workload in
		W1) printf '  - name: W1\n    parameters: {duration: 120, phase: 30}\n    timeout: 600\n' ;;
		W2) printf '  - name: W2\n    parameters: {duration: 120, phase: 30, interval: 0.2, burst: 20}\n    timeout: 600\n' ;;
		W3) printf '  - name: W3\n    parameters: {cycles: 8, idle-min: 1, idle-max: 10, reconnect: mixed, seed: 42}\n    timeout: 600\n' ;;
		W4) printf '  - name: W4\n    parameters: {cycles: 6, down-time: 1}\n    timeout: 600\n' ;;
		esac
	done
	sed -n '/^symptoms:/,$p' "$root/jobs/ath9k-ps.yaml"
}
