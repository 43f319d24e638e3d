#!/bin/sh
# Runs every test `make check` promises: the cmocka unit tests (built with
# ASan and UBSan) and the integration tests on the virtual lab, then prints
# one closing line: "N passed, N failed".
# usage: tests/run-all.sh BUILD_DIR [NAME_FILTER]
set -u
build=${1:-build}
filter=${2:-}
passed=0
failed=0
failed_names=""
failed_checks=$(mktemp)	# every "not ok" line, repeated at the end where CI's tail shows it
timings=""		# "name:seconds ..." of each test, slowest first at the end

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export RACKBISECT_BUILD=$(cd "$build" && pwd)
# One kernel build cache for every test: most bisect the same model kernel
# histories (same seed, same tree ids), at about the same moment, and a
# build waits for another process's build of the same tree (build.h's entry
# lock) instead of building it too: two stable-3.3.1 bisections at once ran
# make 75 times instead of 118. A test that looks into its state's kernels/
# unsets it.
kernel_cache=$(mktemp -d /tmp/rackbisect-check-kernels-XXXXXX)
export RACKBISECT_KERNEL_CACHE=$kernel_cache

# A test past its limit gets TERM with every process below it, then this
# long to run its cleanup trap (lab down, QEMU, LAVA) before KILL:
# tests/run-limited.sh says why timeout(1) was not enough.
CLEANUP_GRACE=120

# run_logged LOG LIMIT COMMAND...: runs COMMAND (ended after LIMIT seconds)
# with its output in LOG, its status in LOG.status, its seconds in LOG.seconds
run_logged() {
	log=$1
	limit=$2
	shift 2
	started=$(date +%s)
	tests/run-limited.sh "$limit" "$CLEANUP_GRACE" "$@" >"$log" 2>&1 9>&-
	echo $? >"$log.status"
	echo $(($(date +%s) - started)) >"$log.seconds"
}

# An integration test whose header has the line "# lane: own" runs in the
# background from the start, beside everything else: it spends most of its
# time waiting on its own boards, and the other tests need not wait for it.
# One with "# lane: last" runs after all the others: a QEMU board under
# software emulation needs the CPU the other lanes would take. It runs on one
# core; those with "# lane: end" run beside it, on the other (the fault
# matrix's two halves: mostly waiting on their hang and boot limits, which are
# met only on a host not loaded by every lane).
# start_own_lane TEST LIMIT COMMAND...: runs COMMAND in the background with its
# output, status and seconds beside a new log; sets lane_entry to "TEST:LOG".
start_own_lane() {
	lane_entry="$1:$(mktemp)"
	limit=$2
	shift 2
	{ run_logged "${lane_entry#*:}" "$limit" "$@"; echo >&9; } &
}

# The last and end lanes start once the own lanes are done, or earlier when
# they leave half the CPU idle: on a machine that runs them fast, the own
# lanes' last minutes are a LAVA server's and a few boards' waits, and the
# QEMU board and the fault matrix waited behind them with the CPU 80 % idle
# (ci33: 157 s). On a machine they keep busy (0 % idle in ci26-ci32), this
# is the old order. Every own lane tells lane_events when it ends, so the
# wait ends at once with the last one; between, the CPU is read every
# IDLE_WINDOW seconds.
IDLE_WINDOW=15
lane_events=$(mktemp -d)
mkfifo "$lane_events/fifo"
exec 9<>"$lane_events/fifo"
rm -rf "$lane_events"	# the open descriptor keeps it

# wait_for_lanes_or_idle_cpu ENTRY...: returns once every "TEST:LOG" entry
# has ended, or a window of IDLE_WINDOW seconds left half the CPU idle;
# lanes_left says which, for the phase line
wait_for_lanes_or_idle_cpu() {
	while :; do
		left=0
		for entry in "$@"; do
			[ -f "${entry#*:}.seconds" ] || left=$((left + 1))
		done
		if [ "$left" -eq 0 ]; then
			lanes_left="the own lanes done"
			return
		fi
		read_cpu_times
		window_total=$total window_idle=$idle
		# one own lane's end (count again), or the window's: whichever first
		timeout "$IDLE_WINDOW" head -c 1 <&9 >/dev/null && continue
		read_cpu_times
		window_idle=$(((idle - window_idle) * 100 / (total - window_total + 1)))
		if [ "$window_idle" -ge 50 ]; then
			lanes_left="own lanes still running: $left; the CPU $window_idle % idle over ${IDLE_WINDOW} s: the last and end lanes start now"
			return
		fi
	done
}

# finish_logged KIND LANE COUNTER ENTRY...: prints and counts each finished
# "TEST:LOG" of run_logged, as "== KIND (LANE lane): TEST" (LANE empty: "== KIND: TEST")
finish_logged() {
	kind=$1
	lane=$2
	counter=$3
	shift 3
	for entry in "$@"; do
		t=${entry%%:*}
		log=${entry#*:}
		echo "== $kind${lane:+ ($lane lane)}: $(basename "$t")"
		cat "$log"
		"$counter" "$(basename "$t")" "$log" "$(cat "$log.status" 2>/dev/null || echo 1)"
		timings="$timings $(basename "$t")${lane:+($lane)}:$(cat "$log.seconds" 2>/dev/null || echo '?')"
		rm -f "$log" "$log.status" "$log.seconds"
	done
}

# start_lane LANE: starts every integration test whose header says
# "# lane: LANE" in the background; sets lane_entries to their entries
start_lane() {
	lane_entries=""
	for t in tests/integration/test_*.sh; do
		[ -f "$t" ] || continue
		case "$t" in *"$filter"*) ;; *) continue ;; esac
		grep -q "^# lane: $1\$" "$t" || continue
		start_own_lane "$t" 1500 bash "$t"
		lane_entries="$lane_entries $lane_entry"
	done
}

# "# run-all: N s: WHAT" marks each phase's end, for reading where a slow
# check spent its time: a test's own seconds do not show the waits between.
# The clock and the load average at the start tell a slow build (make
# check's start to here) or a machine busy with others' work.
# Each phase line also says how much of the machine's CPU time since the
# last one was idle (/proc/stat: idle and iowait over all) and stolen (a
# virtual machine's CPU the host gave to others): a phase that leaves a core
# idle can take more tests, one with none only less CPU.
run_started=$(date +%s)
# read_cpu_times: sets total, idle and steal to /proc/stat's sums (ticks)
read_cpu_times() {
	read -r total idle steal <<EOF_TIMES
$(awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6, $9 }' /proc/stat)
EOF_TIMES
}
read_cpu_times
phase_total=$total phase_idle=$idle phase_steal=$steal
phase() {
	read_cpu_times
	elapsed=$((total - phase_total + 1))
	echo "# run-all: $(($(date +%s) - run_started)) s: $* (since the last such line, CPU" \
		"$(((idle - phase_idle) * 100 / elapsed)) % idle, $(((steal - phase_steal) * 100 / elapsed)) % stolen)"
	phase_total=$total phase_idle=$idle phase_steal=$steal
}
echo "# run-all: started $(date -u '+%F %T') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"

start_lane own
own_lane=$lane_entries

# count_integration NAME LOG STATUS: adds a finished integration test's checks
count_integration() {
	grep '^not ok ' "$2" | sed "s/^/$1: /" >>"$failed_checks"
	p=$(grep -c '^ok ' "$2")
	f=$(grep -c '^not ok ' "$2")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1))
		failed_names="$failed_names $1(exit $3)"
	elif [ "$f" -ne 0 ]; then
		failed_names="$failed_names $1"
	fi
}

# run_integration TEST: runs it in the foreground and counts its checks
run_integration() {
	log=$(mktemp)
	echo "== integration: $(basename "$1")"
	started=$(date +%s)
	tests/run-limited.sh 1200 "$CLEANUP_GRACE" bash "$1" >"$log" 2>&1 9>&-
	status=$?
	timings="$timings $(basename "$1"):$(($(date +%s) - started))"
	cat "$log"
	count_integration "$(basename "$1")" "$log" "$status"
	rm -f "$log"
}

count_cmocka() {
	# cmocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s), listed below:"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | tail -n 1)
	echo "${p:-0} ${f:-0}"
}

# count_unit NAME LOG STATUS: adds a finished unit test's cmocka counts
count_unit() {
	grep '^\[  FAILED  \] [a-z]' "$2" | sed "s/^/$1: /" >>"$failed_checks"
	set -- "$1" "$2" "$3" $(count_cmocka "$2")
	passed=$((passed + $4))
	failed=$((failed + $5))
	if [ "$3" -ne 0 ] && [ "$5" -eq 0 ]; then
		# crashed or a sanitizer stopped it before cmocka's summary
		failed=$((failed + 1))
		failed_names="$failed_names $1"
	elif [ "$5" -ne 0 ]; then
		failed_names="$failed_names $1"
	fi
}

# A unit test whose source says " * lane: own" (long, CPU only, nothing to
# wait for) starts in the background too: the tests in the foreground then
# need not wait for it.
unit_own_lane=""
for t in "$build"/asan/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *"$filter"*) ;; *) continue ;; esac
	grep -q '^ \* lane: own$' "tests/unit/$(basename "$t").c" 2>/dev/null || continue
	start_own_lane "$t" 900 "$t"
	unit_own_lane="$unit_own_lane $lane_entry"
done

# The other unit tests run one after another in the background, beside the
# foreground integration tests, and are printed and counted after them. As
# one chain with those, they left a core idle at the end of this phase: the
# own lanes ended about two minutes before the chain (690 and 837 s).
unit_chain=$(mktemp -d)
unit_chain_entries=""
for t in "$build"/asan/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *"$filter"*) ;; *) continue ;; esac
	case " $unit_own_lane" in *" $t:"*) continue ;; esac
	unit_chain_entries="$unit_chain_entries $t:$unit_chain/$(basename "$t")"
done
# shellcheck disable=SC2086 # a list of words
(for entry in $unit_chain_entries; do run_logged "${entry#*:}" 900 "${entry%%:*}"; done) &
unit_chain_pid=$!

for t in tests/integration/test_*.sh; do
	[ -f "$t" ] || continue
	case "$t" in *"$filter"*) ;; *) continue ;; esac
	grep -q -E '^# lane: (own|last|end)$' "$t" && continue
	run_integration "$t"
done

wait "$unit_chain_pid"
# shellcheck disable=SC2086
finish_logged unit "" count_unit $unit_chain_entries
rm -rf "$unit_chain"

phase "the foreground tests done; waiting for the own lanes"
# shellcheck disable=SC2086 # lists of words
wait_for_lanes_or_idle_cpu $own_lane $unit_own_lane
phase "$lanes_left"

start_lane end
end_lane=$lane_entries
for t in tests/integration/test_*.sh; do
	[ -f "$t" ] || continue
	case "$t" in *"$filter"*) ;; *) continue ;; esac
	grep -q '^# lane: last$' "$t" && run_integration "$t"
done
phase "the last lane done; waiting for the own and end lanes"
wait	# the own and end lanes
phase "every lane done"
# shellcheck disable=SC2086 # lists of words
finish_logged unit own count_unit $unit_own_lane
# shellcheck disable=SC2086
finish_logged integration own count_integration $own_lane
# shellcheck disable=SC2086
finish_logged integration own count_integration $end_lane

echo "seconds per test:$(echo "$timings" | tr ' ' '\n' | sort -t: -k2 -rn | tr '\n' ' ')"
cat "$failed_checks"
rm -rf "$failed_checks" "$kernel_cache"
[ -n "$failed_names" ] && echo "failing:$failed_names"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
