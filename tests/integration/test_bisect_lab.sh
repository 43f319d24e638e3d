#!/bin/bash
# `rackbisect bisect JOB` on the virtual lab, 8 boards over real SSH (issue 5):
# the stable-3.3.1 queue ends on the c1afdaff backport with confidence >= 0.99,
# several boards per round, the revert check passing, and a `kill -9` of the
# coordinator mid-bisect followed by `bisect resume` ends on the same culprit
# with every finished run replayed, none redone; the mainline-3.4 history ends
# on c1afdaff behind a merge; the txack-backport queue ends on the bad
# backport with symptom W2 ping-loss (on 4 boards, to save time); a bad end that does not fail is "no
# regression"; `bisect status` and `bisect log` read the stored evidence;
# bad options exit 2.
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
work=$(mktemp -d /tmp/rackbisect-bisect-lab-test-XXXXXX)
state=$work/state
lab=$work/lab.yaml
job=$work/quick.yaml

cleanup() {
	[ -n "${background:-}" ] && kill -9 "$background" 2>/dev/null
	"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
	for t in stable mainline backport; do
		[ -d "$work/$t" ] && git -C "$work/$t" worktree prune 2>/dev/null
	done
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Eight boards, the chips of labs/virtual.yaml, on addresses of this test.
eight_board_lab bisectlab lb 127.77.7 >"$lab"

# The job's rules with shorter workloads (lib.sh).
quick_job "$root" W2 W3 >"$job"

rbx() { "$rb" "$@" --lab "$lab" --state "$state"; }
truth() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# probability_at_least FILE X: the culprit's printed probability is >= X
probability_at_least() {
	awk -v x="$2" '/^  probability / { found = 1; ok = ($2 >= x) } END { exit !(found && ok) }' "$1"
}
# evidence_ids LOG: "run outcome" of each run `bisect log` shows as evidence
evidence_ids() {
	awk '$1 ~ /^[0-9]+$/ && ($7 == "PASS" || $7 == "FAIL" || $7 == "SKIP") { print $1, $6 }' "$1"
}

# ---- lab up, three histories --------------------------------------------------------------
"$rb" lab up "$lab" --state "$state" >"$work/up.out" 2>&1
check "rackbisect lab up starts 8 boards" test $? -eq 0
for pair in stable:stable-3.3.1 mainline:mainline-3.4 backport:txack-backport; do
	"$vlab" make-tree --scenario "${pair#*:}" --seed 1 --out "$work/${pair%%:*}" \
		--truth "$work/${pair%%:*}.json" >/dev/null 2>&1
done
check "model kernel histories made" test -d "$work/stable/.git" -a -d "$work/mainline/.git" \
	-a -d "$work/backport/.git"
stable_culprit=$(truth "$work/stable.json" 'd["culprits"]["linux-3.3.y"]')
mainline_culprit=$(truth "$work/mainline.json" 'd["culprits"]["master"]')
backport_culprit=$(truth "$work/backport.json" 'd["culprits"]["linux-3.3.y"]')

# ---- usage errors ---------------------------------------------------------------------------
section "usage errors"
rbx bisect "$job" --tree "$work/stable" --good v3.3 --bad v3.3.1-rc1 --symptom no-such \
	>"$work/usage1.out" 2>&1
check "an unknown --symptom exits 2" test $? -eq 2
check "... naming the symptom and the job" contains "$work/usage1.out" "no-such: job .* has no such symptom"
rbx bisect "$job" --tree "$work/stable" --good v3.3.1-rc1 --bad v3.3 >"$work/usage2.out" 2>&1
check "bad an ancestor of good exits 2" test $? -eq 2
rbx bisect "$job" --tree "$work/stable" --good v3.3 >"$work/usage3.out" 2>&1
check "no --bad exits 2 with the usage" bash -c "test $? -eq 2 && grep -q 'usage: rackbisect bisect JOB' '$work/usage3.out'"

# ---- stable-3.3.1: kill -9 mid-bisect, resume, revert check -------------------------------------
section "stable-3.3.1 queue, killed in round 2, resumed"
# Its event lines go through a watcher that says, through a FIFO, when a run
# of round 2 has started on a board (or the output ended); $! is rackbisect
# itself, the process killed. The run's first event, not its workload's: a
# short W3 that fails in its first cycle could end before the kill lands,
# and the check below needs a run cut off.
mkfifo "$work/round2"
"$rb" bisect "$job" --lab "$lab" --state "$state" --tree "$work/stable" --good v3.3 \
	--bad v3.3.1-rc1 --workload W3 --revert-check >"$work/stable.out" \
	2> >(tee "$work/stable.err" | { line_awk '/round 2:/ { round2 = 1 }
		round2 && /event=start/ { seen = 1; exit } END { print seen ? "seen" : "ended" }' \
		>"$work/round2"; cat >/dev/null; }) &
background=$!
kill_at_event "$work/round2" "$background"
background=
check "the bisection reaches round 2's runs" test "$event" = seen
rbx bisect log >"$work/before.log" 2>&1
evidence_ids "$work/before.log" | sort >"$work/before.ids"
before=$(wc -l <"$work/before.ids")
check "runs finished before the kill are stored as evidence ($before)" test "$before" -ge 16
rbx bisect status >"$work/status-killed.out" 2>&1
check "bisect status of the killed bisection says where it stands" \
	contains "$work/status-killed.out" "running (or its coordinator died)"
rbx bisect resume >"$work/resume.out" 2>"$work/resume.err"
status=$?
check "bisect resume ends with a culprit (exit 1)" test "$status" -eq 1
check "... the c1afdaff backport, as the truth file says" contains "$work/resume.out" "^first bad commit: $stable_culprit"
check "... with probability >= 0.99" probability_at_least "$work/resume.out" 0.99
check "... after replaying every run finished before the kill ($before)" \
	contains "$work/resume.out" "^resumed: [0-9]* runs stored, $before of them evidence"
rbx bisect log >"$work/after.log" 2>&1
evidence_ids "$work/after.log" | sort >"$work/after.ids"
check "... each of those runs still there with its result, none redone" \
	bash -c "comm -23 '$work/before.ids' '$work/after.ids' | wc -l | grep -qx 0"
check "runs cut off by the kill are INFRA, not evidence" \
	bash -c "grep -q 'INFRA.*ignored.*INFRA: lab trouble' '$work/after.log'"
check "rounds used several boards at once" grep -q "testing [2-8]$" "$work/stable.out"
check "the culprit is confirmed: it fails, its parent passes" \
	contains "$work/resume.out" "confirmed: ${stable_culprit:0:12} failed with .*; parent .* passed"
check "the revert check passes on top of bad" contains "$work/resume.out" "revert check: the revert .* passes"
check "the answer names the commit's subject" contains "$work/resume.out" "ath9k: fix going to full-sleep on PS idle"
rbx bisect status >"$work/status-done.out" 2>&1
check "bisect status of the finished one shows the answer" \
	bash -c "grep -q ': done' '$work/status-done.out' && grep -q '\"culprit\":\"$stable_culprit\"' '$work/status-done.out'"
rbx bisect resume >"$work/resume-again.out" 2>&1
check "resuming a finished bisection runs nothing and exits with its answer (1)" \
	bash -c "test $? -eq 1 && grep -q 'is done' '$work/resume-again.out'"

# ---- mainline-3.4: the culprit behind a merge --------------------------------------------------
section "mainline-3.4 history"
rbx bisect "$job" --tree "$work/mainline" --good v3.3 --bad v3.4-rc1 --workload W3 \
	>"$work/mainline.out" 2>"$work/mainline.err"
check "mainline-3.4 bisection ends with a culprit (exit 1)" test $? -eq 1
check "... c1afdaff, as the truth file says" contains "$work/mainline.out" "^first bad commit: $mainline_culprit"
check "... with probability >= 0.99" probability_at_least "$work/mainline.out" 0.99
found=$(sed -n 's/^first bad commit: \([0-9a-f]*\).*/\1/p' "$work/mainline.out")
check "... a commit behind a merge (not on v3.4-rc1's first-parent line)" \
	bash -c "test -n '$found' && ! git -C '$work/mainline' rev-list --first-parent v3.4-rc1 | grep -qx '$found'"
check "... among thousands of candidates" grep -q "^bisection [0-9]*: [0-9][0-9][0-9][0-9] candidates" "$work/mainline.out"

# ---- txack-backport: symptom W2 ping loss ------------------------------------------------------
section "txack-backport queue"
rbx bisect "$job" --tree "$work/backport" --good v3.3 --bad v3.3.1-rc1 --symptom ping-loss \
	--boards lb01,lb02,lb03,lb04 >"$work/backport.out" 2>"$work/backport.err"
check "txack-backport bisection ends with a culprit (exit 1)" test $? -eq 1
check "... the bad backport, as the truth file says" contains "$work/backport.out" "^first bad commit: $backport_culprit"
check "... tracking ping-loss in W2, found by checking the bad end" \
	contains "$work/backport.out" "symptom ping-loss in W2"
check "... on the boards --boards selected" contains "$work/backport.out" "on 4 boards (lb01,lb02,lb03,lb04)"

# ---- no regression -----------------------------------------------------------------------------
section "no regression"
rbx bisect "$job" --tree "$work/stable" --good v3.3 --bad "$stable_culprit~1" --workload W3 \
	--boards lb01,lb02 >"$work/none.out" 2>"$work/none.err"
check "a bad end that never fails is no regression (exit 0)" test $? -eq 0
check "... said as such" contains "$work/none.out" "no regression: the bad end .* showed any symptom in none of"

check "no sanitizer report from the coordinator" \
	bash -c "! grep -l 'Sanitizer\|runtime error' '$work'/*.err '$work'/*.out"
section "done"
[ "$failures" -eq 0 ]
