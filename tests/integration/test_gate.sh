#!/bin/bash
# `rackbisect gate` on the virtual lab, 4 boards over real SSH (issue 6):
# v3.3.1-rc1 against v3.3 is a REGRESSION whose bisection in the queue names
# the c1afdaff backport, with the stable rules' advice: "drop it from the
# queue" before release and "mainline has no fix yet" against a mainline
# (v3.4-rc1) that has none; released, against a mainline (master) holding
# the revert, the advice names that revert, and the regression bisected
# before is not bisected again; released, against a master made without the
# revert (--mainline-revert none), "mainline has no fix yet: report to". v3.3 against itself is a PASS with a
# Tested-by reply. The bad txack backport is a REGRESSION in W2. The queue
# audit lists the stray patch with no upstream commit; the reply carries git
# describe, the baseline, boards with chips, counts and the upstream commit;
# the matrix runs for both kernels, the baseline's then more where needed.
# A queue with two bad patches whose regressions show different symptoms (W2
# ping loss, W3 auth timeouts) gets a bisection each and a culprit each in
# the reply, also when the gate is killed in its second bisection and resumed. A failure the baseline shares is "known failing" (v3.3.1-rc1 against
# itself passes). A candidate failure that does not come back when asked
# again is no regression (exit 3). Bad options exit 2.
#
# Prints "ok N - ..." / "not ok N - ..."; every wait is on an event with a timeout.
# tests/run-all.sh runs it beside the other tests (it waits on its own boards):
# lane: own
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
rb=$(rackbisect_under_test "$root")
export RACKBISECT_VLAB=${RACKBISECT_BUILD:-$root/build}/rackbisect-vlab
vlab=$RACKBISECT_VLAB
SECONDS=0
section() { echo "# $SECONDS s: $*"; }
work=$(mktemp -d /tmp/rackbisect-gate-test-XXXXXX)
state=$work/state
lab=$work/lab.yaml
job=$root/jobs/stable-gate.yaml

cleanup() {
	[ -n "${background:-}" ] && kill -9 "$background" 2>/dev/null
	"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
	[ -f "$work/once.yaml" ] && "$rb" lab down "$work/once.yaml" --state "$work/once-state" >/dev/null 2>&1
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

eight_board_lab gatelab gb 127.77.10 4 >"$lab"
rbx() { "$rb" "$@" --lab "$lab" --state "$state"; }
truth() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

"$rb" lab up "$lab" --state "$state" >"$work/up.out" 2>&1
check "rackbisect lab up starts 4 boards" test $? -eq 0
"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --mainline-revert present --out "$work/reverted" \
	--truth "$work/reverted.json" >/dev/null 2>&1
"$vlab" make-tree --scenario txack-backport --seed 1 --out "$work/backport" \
	--truth "$work/backport.json" >/dev/null 2>&1
check "model kernel histories made" test -d "$work/reverted/.git" -a -d "$work/backport/.git"
culprit=$(truth "$work/reverted.json" 'd["culprits"]["linux-3.3.y"][:12]')
stray=$(truth "$work/reverted.json" 'd["stable_queue"]["stray"][:12]')
revert=$(truth "$work/reverted.json" 'd["revert"]["master"]')
check "mainline's revert came after v3.4-rc1 (so v3.4-rc1 is a mainline without it)" \
	bash -c "! git -C '$work/reverted' merge-base --is-ancestor $revert v3.4-rc1"
revert=${revert:0:12}

section "usage errors"
rbx gate "$job" --tree "$work/reverted" --baseline v3.3 >"$work/usage1.out" 2>&1
check "no --candidate exits 2 with the usage" bash -c "test $? -eq 2 && grep -q 'usage: rackbisect gate JOB' '$work/usage1.out'"
rbx gate "$job" --tree "$work/reverted" --baseline v3.3 --candidate no-such-tag >"$work/usage2.out" 2>&1
check "a candidate that names no commit exits 2" test $? -eq 2
check "... naming it" contains "$work/usage2.out" "no-such-tag names no commit"
rbx gate "$job" --tree "$work/reverted" --baseline v3.3 --candidate v3.3.1-rc1 --mainline --upload-pack=x \
	>"$work/usage3.out" 2>&1
check "a --mainline that looks like an option exits 2" test $? -eq 2

section "v3.3 against itself"
rbx gate "$job" --tree "$work/reverted" --baseline v3.3 --candidate v3.3 --reply "$work/pass.txt" \
	>"$work/pass.out" 2>"$work/pass.err"
check "gate of v3.3 against v3.3 passes (exit 0)" test $? -eq 0
check "... the reply says PASS" contains "$work/pass.txt" "^v3.3: PASS"
check "... with a Tested-by line" contains "$work/pass.txt" "^Tested-by: "
check "... counting the candidate's runs (4 boards x 2 workloads)" contains "$work/pass.txt" \
	"candidate 8 (8 pass, 0 fail"

section "v3.3.1-rc1 against v3.3, bisected, before release"
rbx gate "$job" --tree "$work/reverted" --baseline v3.3 --candidate v3.3.1-rc1 --mainline v3.4-rc1 \
	--bisect >"$work/rc1.out" 2>"$work/rc1.err"
check "gate of v3.3.1-rc1 is a REGRESSION (exit 1)" test $? -eq 1
check "... the reply says REGRESSION" contains "$work/rc1.out" "^v3.3.1-rc1: REGRESSION"
check "... W3 fails on the candidate where the baseline passes" contains "$work/rc1.out" \
	"^  W3: .*auth-timeout"
check "... with the kernel log lines" contains "$work/rc1.out" "authentication with .* timed out"
check "... the culprit in the queue is the c1afdaff backport (truth file)" contains "$work/rc1.out" \
	"^  commit $culprit "
check "... advice: drop it from the queue before release" contains "$work/rc1.out" \
	"drop it from the queue before release"
check "... mainline has no fix yet: report to its author" contains "$work/rc1.out" \
	"mainline has no fix yet: report to .*Felix Fietkau"
check "... no Tested-by on a regression" lacks "$work/rc1.out" "^Tested-by:"
check "... the queue audit lists the stray patch with no upstream commit" contains "$work/rc1.out" \
	"^  $stray .*names no upstream commit"
check "... the reply names the candidate with git describe, and the baseline" bash -c \
	"grep -q '^Candidate: v3.3.1-rc1 (git describe: v3.3.1-rc1, ' '$work/rc1.out' && grep -q '^Baseline:  v3.3 (' '$work/rc1.out'"
check "... the boards with their chips, and the counts of both kernels" bash -c \
	"grep -q '^Boards: gb01 (ar9285) gb02 (ar9280) ' '$work/rc1.out' &&
	 grep -q '^Runs: [0-9]* in all; candidate [0-9]* ([0-9]* pass, [1-9][0-9]* fail, [0-9]* skip, [0-9]* lab trouble), baseline ' '$work/rc1.out'"
check "... the culprit's upstream commit" contains "$work/rc1.out" "^  upstream commit [0-9a-f]\{12\}$"
check "... the matrix ran for both kernels, the baseline's after the candidate's" \
	bash -c "grep -A 2 '^candidate v3.3.1-rc1: the matrix, 4 boards x 2 workloads' '$work/rc1.out' |
		 grep -q '^baseline v3.3: the matrix, 4 boards x 2 workloads'"
rc1_gate=$(sed -n 's/^gate \([0-9]*\): v3.3.1-rc1 against v3.3, .*/\1/p' "$work/rc1.out")
check "... a baseline run in each of the 8 cells, and more where the candidate failed" \
	python3 - "$state/state.db" "$rc1_gate" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
counts = [n for (n,) in db.execute(
    "select count(*) from gate_runs g join runs r on r.id = g.run_id "
    "where g.gate_id = ? and g.role = 'baseline' group by r.board, r.workload", (int(sys.argv[2]),))]
sys.exit(not (len(counts) == 8 and min(counts) >= 1 and sum(counts) > 8))
PY
reply=$(sed -n 's/^reply written to //p' "$work/rc1.out")
check "... and the reply is written to the lab's state" test -s "$reply"
rbx bisect status 1 >"$work/rc1-status.out" 2>&1
# the queue's commits that do not build were found by building them ahead,
# none was given a round (where its board would have idled)
check "... the queue's unbuildable commits cost no round" \
	bash -c "grep -q '\"skips_in_rounds\":0' '$work/rc1-status.out' && grep -q '\"skips_found_ahead\":[1-9]' '$work/rc1-status.out'"

section "released, mainline (master) has reverted it"
rbx gate "$job" --tree "$work/reverted" --baseline v3.3 --candidate v3.3.1-rc1 --mainline master \
	--bisect --released >"$work/released.out" 2>"$work/released.err"
check "gate of the released candidate is a REGRESSION (exit 1)" test $? -eq 1
check "... the regression bisected before is not bisected again" contains "$work/released.out" \
	"W3 ([a-z-]*) was bisected before: bisection 1 named $culprit, which this candidate holds; not bisected again"
check "... the culprit is the c1afdaff backport again" contains "$work/released.out" "^  commit $culprit "
check "... advice names mainline's revert (truth file)" contains "$work/released.out" \
	"mainline's revert $revert"
check "... and does not say to drop it from a queue" lacks "$work/released.out" "drop it from the queue"

section "released, mainline (master, made with --mainline-revert none) has no fix"
"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --mainline-revert none --out "$work/unfixed" \
	--truth "$work/unfixed.json" >/dev/null 2>&1
rbx gate "$job" --tree "$work/unfixed" --baseline v3.3 --candidate v3.3.1-rc1 --mainline master \
	--bisect --released >"$work/no-fix.out" 2>"$work/no-fix.err"
check "gate of the released candidate, mainline without a fix: REGRESSION (exit 1)" test $? -eq 1
check "... the culprit is the c1afdaff backport (its truth file)" contains "$work/no-fix.out" \
	"^  commit $(truth "$work/unfixed.json" 'd["culprits"]["linux-3.3.y"][:12]') "
check "... advice: mainline has no fix yet, report to its author" contains "$work/no-fix.out" \
	"mainline has no fix yet: report to .*Felix Fietkau"
check "... neither a revert to wait for nor a queue to drop it from" \
	bash -c "! grep -q \"mainline's revert\|drop it from the queue\" '$work/no-fix.out'"

section "txack-backport queue"
rbx gate "$job" --tree "$work/backport" --baseline v3.3 --candidate v3.3.1-rc1 \
	>"$work/backport.out" 2>"$work/backport.err"
check "gate of the bad txack backport is a REGRESSION (exit 1)" test $? -eq 1
check "... in W2" contains "$work/backport.out" "^  W2: "
check "... not bisected without --bisect, and says so" contains "$work/backport.out" "give --bisect"

section "two regressions in one queue, a bisection each"
# A history of its own (seed 2: no bisection stored answers it), whose queue
# gets one more patch on top of v3.3.1-rc1, tagged v3.3.1-rc2: it drops the
# TX-ACK wait when ath9k wakes the chip for a data frame (the rule the lab
# defends), so W2 loses pings, while c1afdaff's backport still times out W3's
# reconnects. Two symptoms, two culprits: the gate bisects each.
"$vlab" make-tree --scenario stable-3.3.1 --seed 2 --out "$work/two" --truth "$work/two.json" >/dev/null 2>&1
two_culprit=$(truth "$work/two.json" 'd["culprits"]["linux-3.3.y"][:12]')
git -C "$work/two" checkout -q v3.3.1-rc1 &&
	python3 - "$work/two/drivers/net/wireless/ath/ath9k/main.c" <<'PY' &&
import sys
path = sys.argv[1]
text = open(path).read()
wait = '\t\t} else {\n\t\t\tath_dbg(sc, "Wake up to complete TX\\n");\n\t\t\tsc->ps_flags |= PS_WAIT_FOR_TX_ACK;\n\t\t}\n'
assert text.count(wait) == 1
open(path, "w").write(text.replace(wait, '\t\t}\n'))
PY
	git -C "$work/two" -c user.name="A Backporter" -c user.email=backport@example.org commit -q -a \
		-m "ath9k: do not wait for the TX status of a data frame sent from PS" &&
	git -C "$work/two" tag v3.3.1-rc2
check "a second bad patch queued on top of v3.3.1-rc1 (v3.3.1-rc2)" test $? -eq 0
second=$(git -C "$work/two" rev-parse --short=12 v3.3.1-rc2)
# The gate is killed (kill -9) once its second bisection has started a
# round, and resumed: the first bisection's answer stands, the second goes on.
mkfifo "$work/second"
"$rb" gate "$job" --lab "$lab" --state "$state" --tree "$work/two" --baseline v3.3 \
	--candidate v3.3.1-rc2 --mainline v3.4-rc1 --bisect 2>"$work/two-killed.err" \
	> >(tee "$work/two-killed.out" | { line_awk '/^bisection [0-9]+: W[0-9] .* in the queue/ { n++ }
		n == 2 && /bisect: round 1:/ { seen = 1; exit } END { print seen ? "seen" : "ended" }' \
		>"$work/second"; cat >/dev/null; }) &
background=$!
kill_at_event "$work/second" "$background"
background=
check "gate of v3.3.1-rc2 reaches its second bisection's rounds" test "$event" = seen
rbx gate resume --json >"$work/two.out" 2>"$work/two.err"
check "... killed there, gate resume ends it: a REGRESSION (exit 1)" test $? -eq 1
check "... in W2 with ping loss and in W3 with auth timeouts" \
	bash -c "grep -q '^  W2: ping-loss' '$work/two.out' && grep -q '^  W3: auth-timeout' '$work/two.out'"
check "... two bisections in the queue, one per regression, neither started twice" \
	bash -c "[ \"\$(grep -c '^bisection [0-9]*: W[23] ([a-z-]*) in the queue' '$work/two-killed.out')\" -eq 2 ] &&
		 grep -q '^bisection [0-9]* resumed' '$work/two.out' &&
		 ! grep -q '^bisection [0-9]*: W[23] ([a-z-]*) in the queue' '$work/two.out'"
check "... the reply names both culprits, each behind its own regression" \
	bash -c "grep -q '^Culprit [12] of 2 in the queue, behind W3 (auth-timeout)' '$work/two.out' &&
		 grep -q '^Culprit [12] of 2 in the queue, behind W2 (ping-loss)' '$work/two.out'"
check "... the c1afdaff backport (truth file) and the new patch" \
	bash -c "grep -q '^  commit $two_culprit ' '$work/two.out' && grep -q '^  commit $second ' '$work/two.out'"
check "... each with what the stable rules allow" \
	bash -c "[ \"\$(grep -c '^What the stable rules allow:' '$work/two.out')\" -eq 2 ]"
check "... the new patch names no upstream commit: the audit lists it" contains "$work/two.out" \
	"^  $second .*names no upstream commit"
# json_culprits FILE: the culprits --json printed at FILE's end, sorted
json_culprits() {
	python3 - "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
start = text.rindex("\n{\n") + 1
for commit in sorted(c["commit"][:12] for c in json.loads(text[start:])["culprits"]):
    print(commit)
PY
}
check "... --json lists both culprits" \
	test "$(json_culprits "$work/two.out" | tr '\n' ' ')" = "$(printf '%s\n' "$two_culprit" "$second" | sort | tr '\n' ' ')"

two_gate=$(sed -n 's/^gate \([0-9]*\) resumed: v3.3.1-rc2 .*/\1/p' "$work/two.out")
rbx report gate "$two_gate" --format kcidb --out "$work/two-kcidb.json" >/dev/null 2>"$work/two-report.err" &&
	rbx report gate "$two_gate" --format html --out "$work/two.html" >/dev/null 2>>"$work/two-report.err"
check "... its KCIDB report has an issue per culprit, each with incidents, valid against KCIDB v5.3" \
	/usr/bin/python3 - "$root/tests/data/kcidb-io.schema.v5.3.json" "$work/two-kcidb.json" "$two_culprit" "$second" <<'PY'
import json, sys, jsonschema
schema, data = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
if list(jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).iter_errors(data)):
    sys.exit(1)
del sys.argv[1]
culprits = sorted(i["misc"]["culprit_commit"][:12] for i in data["issues"])
incidents = {i["issue_id"] for i in data["incidents"]}
sys.exit(culprits != sorted(sys.argv[2:]) or incidents != {i["id"] for i in data["issues"]})
PY
check "... and its page names the other bisection's culprit too" \
	bash -c "grep -q \"The gate's other bisections\" '$work/two.html' &&
		 grep -q -e '$two_culprit' '$work/two.html' && grep -q -e '$second' '$work/two.html'"

section "known failing: v3.3.1-rc1 against itself"
# The baseline fails W3 where the candidate does, with the same symptom: that
# is "known failing", not a regression, and the gate passes. (W3 alone: it
# fails about every run on the chips that reset their RTC, W2 less often.)
quick_job "$root" W3 >"$work/w3.yaml"
rbx gate "$work/w3.yaml" --tree "$work/reverted" --baseline v3.3.1-rc1 --candidate v3.3.1-rc1 \
	>"$work/known.out" 2>"$work/known.err"
check "a candidate failing as its baseline does passes (exit 0)" test $? -eq 0
check "... W3 said known failing, on the boards where the baseline failed it too" contains "$work/known.out" \
	"W3: fails on the baseline too (gb[0-9]*[,gb0-9]*): known failing"
check "... no regression in the reply" lacks "$work/known.out" "REGRESSION"

section "the lab goes away mid-bisection"
# A bisection that stops without an answer (here every board is gone: the
# lab is taken down once the bisection has started) is said in the reply,
# and not started again and again: the gate ends with its verdict.
"$vlab" make-tree --scenario stable-3.3.1 --seed 3 --out "$work/gone" --truth "$work/gone.json" >/dev/null 2>&1
mkfifo "$work/gone-started"
"$rb" gate "$work/w3.yaml" --lab "$lab" --state "$state" --tree "$work/gone" --baseline v3.3 \
	--candidate v3.3.1-rc1 --bisect 2>"$work/gone.err" \
	> >(tee "$work/gone.out" | { line_awk '/^bisection [0-9]+: W3/ { seen = 1; exit } END { print seen ? "seen" : "ended" }' \
		>"$work/gone-started"; cat >/dev/null; }) &
background=$!
event=$(timeout 600 cat "$work/gone-started")
check "a gate of another history reaches its bisection" test "$event" = seen
"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
if timeout 300 tail --pid="$background" -f /dev/null; then
	wait "$background"
	status=$?
else
	kill -9 "$background"
	wait "$background" 2>/dev/null
	status="still running after 300 s"
fi
background=
check "... with every board gone, the gate still ends: REGRESSION (exit 1)" test "$status" = 1
check "... after one bisection, not a bisection started again and again" \
	test "$(grep -c '^bisection [0-9]*: W3' "$work/gone.out")" -eq 1
check "... its reply says the bisection stopped without a culprit, and why" contains "$work/gone.out" \
	"W3 ([a-z-]*): the bisection ended .* without a culprit: .*online"

section "a failure that does not come back"
# One board that hangs once, in the candidate's first run (hang-workload: its
# 3rd workload tool call): v3.3 against itself fails W3 once (FAIL(hang)).
# One failure in one run would need 99 baseline passes at 0.99, so the gate
# asks the candidate again; it passes, and the gate says it cannot tell the
# kernels apart (exit 3), neither a REGRESSION nor a silent PASS.
# (on the addresses of this test's lab, which it no longer needs)
"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
eight_board_lab oncelab ob 127.77.10 1 "hang-workload: 3" >"$work/once.yaml"
"$rb" lab up "$work/once.yaml" --state "$work/once-state" >"$work/once-up.out" 2>&1
"$rb" gate "$work/w3.yaml" --tree "$work/reverted" --baseline v3.3 --candidate v3.3 \
	--lab "$work/once.yaml" --state "$work/once-state" >"$work/once.out" 2>"$work/once.err"
check "a gate whose candidate failed once and passed when asked again exits 3" test $? -eq 3
check "... the candidate was asked again on that board, twice" contains "$work/once.out" \
	"candidate v3.3: W3 on 1 boards, 2 runs each (too few failures yet"
check "... the baseline was not run for one failure" lacks "$work/once.out" "^baseline v3.3: W3"
check "... and the reply says why" contains "$work/once.out" \
	"then passed it every time it was asked again (1 fails in 3 runs)"
check "... no REGRESSION, no Tested-by" bash -c "! grep -q 'REGRESSION\|^Tested-by:' '$work/once.out'"
"$rb" lab down "$work/once.yaml" --state "$work/once-state" >/dev/null 2>&1

check "no sanitizer report from the coordinator" \
	bash -c "! grep -l 'ERROR: AddressSanitizer\|runtime error:\|LeakSanitizer' '$work'/*.err"
section "done"
[ "$failures" -eq 0 ]
