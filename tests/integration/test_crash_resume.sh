#!/bin/bash
# Crash safety (issue 9): `rackbisect gate --bisect` of v3.3.1-rc1 against v3.3
# on 4 virtual boards (W2 and W3), then a gate of v3.3 against itself, then
# standalone `rackbisect bisect`s of the regression, are killed with SIGKILL at CRASH_KILLS (default 100) seeded
# points (CRASH_SEED), each time resumed (`gate resume`, `bisect resume`),
# and the last let finish. The points land in every phase: opening the session
# and closing what the last one left, health checks and power cycles, builds,
# boots, workloads, the gate's rounds and its bisection's, and the store writes
# behind each event line. Checks:
#  - after every kill the database passes PRAGMA integrity_check, and every
#    run that had finished before it is still there with the same outcome;
#  - every job's answer is the uninterrupted one's (test_gate.sh and
#    test_bisect_lab.sh run those): REGRESSION (exit 1) and the culprit the
#    truth file names, at probability >= 0.99; PASS with a Tested-by line;
#  - no finished run repeated: each cell of a gate's candidate matrix has
#    exactly one result, and every resume of a bisection replays all the
#    evidence stored before it;
#  - runs cut off are INFRA, never evidence, and every board one was cut off on
#    was power cycled onto its fallback kernel and checked before it ran again;
#    no board is left offline.
#
# Prints "ok N - ..." / "not ok N - ..."; every wait is on an event with a timeout.
# tests/run-all.sh runs it beside the other tests (it waits on its own boards):
# lane: own
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
rb=$(rackbisect_under_test "$root")
# The coordinator under test is sanitized; its boards need not be (3x faster).
export RACKBISECT_VLAB=${RACKBISECT_BUILD:-$root/build}/rackbisect-vlab
vlab=$RACKBISECT_VLAB
SECONDS=0
section() { echo "# $SECONDS s: $*"; }
work=$(mktemp -d /tmp/rackbisect-crash-test-XXXXXX)
state=$work/state
lab=$work/lab.yaml
job=$work/quick.yaml
kills=${CRASH_KILLS:-100}
RANDOM=${CRASH_SEED:-1}

cleanup() {
	[ -n "${background:-}" ] && kill -9 "$background" 2>/dev/null
	"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

eight_board_lab crashlab cb 127.77.22 4 >"$lab"
# W2 and W3, as short as test_bisect_lab.sh's (lib.sh): 8 cells of a gate's matrix.
quick_job "$root" W2 W3 >"$job"

rbx() { "$rb" "$@" --lab "$lab" --state "$state"; }
truth() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# db QUERY...: each query's rows, one per line, columns split by spaces
db() {
	python3 - "$state/state.db" "$@" <<'PY'
import sqlite3, sys
c = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True, timeout=30)
for q in sys.argv[2:]:
    for row in c.execute(q):
        print(" ".join(str(x) for x in row))
PY
}

"$rb" lab up "$lab" --state "$state" >"$work/up.out" 2>&1
check "rackbisect lab up starts 4 boards" test $? -eq 0
"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --out "$work/tree" --truth "$work/truth.json" \
	>/dev/null 2>&1
check "model kernel history made" test -d "$work/tree/.git"
culprit=$(truth "$work/truth.json" 'd["culprits"]["linux-3.3.y"]')
rbx gate resume >"$work/none.out" 2>&1
check "gate resume with no gate stored exits 2, saying so" \
	bash -c "test $? -eq 2 && grep -q 'no gate at all in ' '$work/none.out'"

# ---- the kills --------------------------------------------------------------------------------
# The jobs killed in turn: the gate first; once it has ended, standalone
# bisections of the same regression, one after another, until every kill
# point is used; the last one is then resumed to its end.
# A kill point is "J event lines after the Dth run finished since the
# (re)start", J in 1..10 and D = 1 one time in 3, else 0: D = 1 makes sure a
# killed coordinator still gets somewhere (a kill cuts off every run in
# flight), D = 0 lands in the start itself (closing what the last one left,
# the health checks and power cycles of the boards it left mid-run) or in
# the first runs. So most points fall in the gate and its bisection.
section "$kills kills, each followed by a resume"
# start_killed D J COMMAND...: runs it in the background and kills it with
# SIGKILL at that point (or it ended first); sets $hit to "killed" or
# "ended" and $status to its status. Its output goes to $work/$tag.out/.err.
start_killed() {
	local d=$1 j=$2 out=$work/$tag.out err=$work/$tag.err
	shift 2
	rm -f "$work/point"
	mkfifo "$work/point"
	"$@" >"$out" 2> >(tee "$err" | { awk -v d="$d" -v j="$j" '/event=/ {
			if (f < d) { if (/ run=[0-9]+ event=done/) f++; next }
			if (++n >= j) { hit = 1; exit } }
		END { print hit ? "killed" : "ended" }' >"$work/point"; cat >/dev/null; }) &
	background=$!
	hit=$(timeout 900 cat "$work/point")
	[ "$hit" = killed ] && kill -9 "$background" 2>/dev/null
	{ wait "$background"; } 2>/dev/null
	status=$?
	background=
}
finished_runs() { db "SELECT id, outcome FROM runs WHERE state = 'done'" | sort; }
# job_command N FRESH ID: the command line of job N, new (FRESH 1) or the
# resume of its stored gate or bisection ID. Job 1 is the regression's gate,
# bisected; job 2 a gate that passes; then bisections.
job_command() {
	if [ "$1" -le 2 ] && [ "$2" -eq 0 ]; then
		echo gate resume "$3"
	elif [ "$1" -eq 1 ]; then
		echo gate "$job" --tree "$work/tree" --baseline v3.3 --candidate v3.3.1-rc1 --bisect \
			--reply "$work/reply-1.txt"
	elif [ "$1" -eq 2 ]; then
		echo gate "$job" --tree "$work/tree" --baseline v3.3 --candidate v3.3 --reply "$work/reply-2.txt"
	elif [ "$2" -eq 1 ]; then
		echo bisect "$job" --tree "$work/tree" --good v3.3 --bad v3.3.1-rc1 --workload W3
	else
		echo bisect resume "$3"
	fi
}
# newest_record N: the id of the newest gate (jobs 1, 2) or bisection, 0 if none
newest_record() {
	if [ "$1" -le 2 ]; then db 'SELECT coalesce(max(id), 0) FROM gates'
	else db 'SELECT coalesce(max(id), 0) FROM bisections'; fi
}
# job_ended N STATUS OUT: the answer of job N, as its uninterrupted run gives it
job_ended() {
	if [ "$1" -eq 1 ]; then
		[ "$2" -eq 1 ] && grep -q '^v3.3.1-rc1: REGRESSION' "$work/reply-1.txt" &&
			grep -q "${culprit:0:12}" "$work/reply-1.txt"
	elif [ "$1" -eq 2 ]; then
		[ "$2" -eq 0 ] && grep -q '^v3.3: PASS' "$work/reply-2.txt" && grep -q '^Tested-by: ' "$work/reply-2.txt"
	elif grep -q '^bisection [0-9]* is done: ' "$3"; then
		# killed after its answer was stored, before it was printed: the
		# resume prints the stored answer
		[ "$2" -eq 1 ] && sed -n 's/^bisection [0-9]* is done: //p' "$3" | python3 -c '
import json, sys
a = json.load(sys.stdin)
sys.exit(not (a["state"] == "found" and a["culprit"] == sys.argv[1] and a["probability"] >= 0.99))' "$culprit"
	else
		[ "$2" -eq 1 ] && grep -q "^first bad commit: $culprit" "$3" &&
			awk '/^  probability / { found = 1; ok = ($2 >= 0.99) } END { exit !(found && ok) }' "$3"
	fi && echo "$1 right" >>"$work/answers.txt" || echo "$1 wrong (status $2, $3)" >>"$work/answers.txt"
}

integrity_bad=0 lost=0 killed=0 job_number=1 fresh=1 attempt=0 record=0
in_gate=0 in_gate_bisection=0 in_bisect=0
: >"$work/kept.txt"
: >"$work/answers.txt"
while [ "$killed" -lt "$kills" ]; do
	attempt=$((attempt + 1))
	tag=j$job_number-$attempt
	[ "$fresh" -eq 1 ] && before=$(newest_record "$job_number")
	# shellcheck disable=SC2046 # words of our own making, no spaces in them
	start_killed $((RANDOM % 3 == 0)) $((1 + RANDOM % 10)) "$rb" \
		$(job_command "$job_number" "$fresh" "$record") --lab "$lab" --state "$state"
	if [ "$hit" = ended ]; then
		job_ended "$job_number" "$status" "$work/$tag.out"
		job_number=$((job_number + 1))
		fresh=1
		continue
	fi
	killed=$((killed + 1))
	# killed before it stored its gate or bisection: it starts anew
	if [ "$fresh" -eq 1 ] && [ "$(newest_record "$job_number")" -gt "$before" ]; then
		record=$(newest_record "$job_number")
		fresh=0
	fi
	[ "$(db 'PRAGMA integrity_check')" = ok ] || integrity_bad=$((integrity_bad + 1))
	finished_runs >"$work/now.txt"
	# every run finished before this kill is still there, with its outcome
	lost=$((lost + $(comm -23 "$work/kept.txt" "$work/now.txt" | wc -l)))
	mv "$work/now.txt" "$work/kept.txt"
	if [ "$job_number" -gt 2 ]; then
		in_bisect=$((in_bisect + 1))
	elif [ -n "$(db 'SELECT bisection_id FROM gates WHERE id = 1 AND bisection_id IS NOT NULL')" ] &&
	     [ "$job_number" -eq 1 ]; then
		in_gate_bisection=$((in_gate_bisection + 1))
	else
		in_gate=$((in_gate + 1))
	fi
done
tag=j$job_number-final
"$rb" $(job_command "$job_number" "$fresh" "$record") --lab "$lab" --state "$state" >"$work/$tag.out" \
	2>"$work/$tag.err"
job_ended "$job_number" $? "$work/$tag.out"
section "killed $killed times: $in_gate in the gates, $in_gate_bisection in the first one's bisection," \
	"$in_bisect in $((job_number - 2)) bisections after them"
check "$kills kills: in the gates ($in_gate), in the first one's bisection ($in_gate_bisection) and in bisections ($in_bisect)" \
	test "$killed" -eq "$kills" -a "$in_gate" -gt 0 -a "$in_gate_bisection" -gt 0 -a "$in_bisect" -gt 0
check "the database passed integrity_check after every kill" test "$integrity_bad" -eq 0
check "no finished run was lost or changed by a kill" test "$lost" -eq 0

# ---- the answers ------------------------------------------------------------------------------
section "the answers"
check "every job killed and resumed gave the uninterrupted answer ($(grep -c right "$work/answers.txt") of $job_number)" \
	bash -c "[ \$(grep -c right '$work/answers.txt') -eq $job_number ] && ! grep -q wrong '$work/answers.txt'"
check "... the first gate: REGRESSION, the culprit the truth file names (${culprit:0:12})" grep -qx '1 right' "$work/answers.txt"
check "... the second: PASS, with a Tested-by line" grep -qx '2 right' "$work/answers.txt"
probability=$(db "SELECT json_extract(b.answer, '$.probability') FROM gates g
		   JOIN bisections b ON b.id = g.bisection_id WHERE g.id = 1")
check "... found at probability >= 0.99 ($probability)" \
	awk -v p="$probability" 'BEGIN { exit !(p >= 0.99) }'
[ "$(db 'PRAGMA integrity_check')" = ok ]
check "the database passes integrity_check at the end" test $? -eq 0
finished_runs >"$work/now.txt"
check "every run finished before the last kill is still there" \
	bash -c "comm -23 '$work/kept.txt' '$work/now.txt' | wc -l | grep -qx 0"

db "SELECT gate_runs.gate_id, runs.board, runs.workload, count(*) FROM gate_runs
    JOIN runs ON runs.id = gate_runs.run_id
    WHERE gate_runs.role = 'candidate' AND runs.outcome IN ('PASS', 'FAIL', 'SKIP')
    GROUP BY gate_runs.gate_id, runs.board, runs.workload" >"$work/cells.txt"
check "no finished run repeated: each of the 2 gates' 8 candidate cells has exactly one result" \
	bash -c "[ \$(wc -l <'$work/cells.txt') -eq 16 ] && awk '\$4 != 1 { exit 1 }' '$work/cells.txt'"
# lab_bisect prints "resumed: N runs stored, M of them evidence": in each
# bisection, M never shrinks from one resume to the next
replay_ok=0 replay_bad=0
for n in $(seq 1 "$job_number"); do
	for a in $(seq 1 "$attempt") final; do
		[ -f "$work/j$n-$a.out" ] && grep -h 'resumed: [0-9]* runs stored' "$work/j$n-$a.out"
	done | sed 's/.*stored, \([0-9]*\) of them.*/\1/' >"$work/replayed-$n.txt"
	[ -s "$work/replayed-$n.txt" ] || continue
	if sort -n -c "$work/replayed-$n.txt" 2>/dev/null; then replay_ok=$((replay_ok + 1))
	else replay_bad=$((replay_bad + 1)); fi
done
check "every resume of a bisection replayed all the evidence stored before it ($replay_ok bisections)" \
	test "$replay_ok" -gt 0 -a "$replay_bad" -eq 0
interrupted=$(db "SELECT count(*) FROM runs WHERE cause LIKE 'interrupted:%'")
counted=$(db "SELECT count(*) FROM runs WHERE cause LIKE 'interrupted:%' AND outcome <> 'INFRA'")
check "runs cut off by a kill are INFRA ($interrupted), none evidence" \
	test "$interrupted" -gt 0 -a "$counted" -eq 0
# the boards cut off mid-run: in the event log, each was power cycled onto its
# fallback kernel and passed its health check before its next run started
python3 - "$state/state.db" >"$work/recovery.txt" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
pending, left, recovered, early = {}, 0, 0, 0
for board, kind, detail in c.execute("SELECT board, kind, detail FROM events ORDER BY id"):
    detail = detail or ""
    if kind == "offline" and detail.startswith("left mid-run"):
        pending[board] = "left"
        left += 1
    elif kind == "power-cycle" and pending.get(board) == "left":
        pending[board] = "cycled"
    elif kind == "health-check" and detail.startswith("passed") and pending.get(board) == "cycled":
        del pending[board]
        recovered += 1
    elif kind == "start" and board in pending:
        early += 1
print(left, recovered, early)
PY
read -r left recovered early <"$work/recovery.txt"
check "every board left mid-run was power cycled and passed its check before its next run ($recovered of $left; $early ran before)" \
	test "$left" -gt 0 -a "$early" -eq 0 -a "$recovered" -eq "$left"
check "no board is left offline" test "$(db 'SELECT count(*) FROM board_health WHERE offline = 1')" -eq 0
rbx gate resume 1 >"$work/again.out" 2>&1
check "gate resume of the finished gate gives its reply again (exit 1)" \
	bash -c "test $? -eq 1 && grep -q 'done: its reply again' '$work/again.out' && grep -q '^v3.3.1-rc1: REGRESSION' '$work/again.out'"

check "no sanitizer report from the coordinator" \
	bash -c "! grep -l 'ERROR: AddressSanitizer\|runtime error:\|LeakSanitizer' '$work'/*.err"
section "done"
[ "$failures" -eq 0 ]
