#!/bin/bash
# `rackbisect report` on a stored state: a REGRESSION gate with its bisection
# (PASS, FAIL with symptoms and power metrics, INFRA, SKIP runs; a culprit
# whose subject is hostile HTML), made with the store API by the unit test
# binary test_report_data (RACKBISECT_REPORT_FIXTURE=DIR: it makes the
# fixture there and exits). Checks: usage errors exit 2 and say what to do,
# an unreadable state exits 3; text puts the verdict first; KCIDB validates
# against the vendored KCIDB v5.3 JSON Schema (python3-jsonschema, Draft-07
# with format checks); JUnit parses with the counts per outcome; the HTML page
# renders in headless Chromium with its SVG plots, no console message at all
# (the page has no script: a console line means an error, a blocked resource
# or a script that should not be there), its log links resolving to files,
# and a screenshot kept in BUILD/test-output/report/.
# `report nightly` on the fixture's four nights (two branches): usage and
# "nothing stored" exit 2, the text table, JUnit counts per branch, KCIDB
# valid against the same schema, the HTML trend rendered in Chromium (a
# square per night, no console message, a screenshot kept), and a night
# gate's own page showing its branch's trend.
#
# No lab, no network: Chromium gets a throwaway profile, a resolver that
# resolves nothing, and a timeout; only the processes this test starts are
# ever killed (their own process group). About 25 s.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
build=${RACKBISECT_BUILD:-$root/build}
rb=$(rackbisect_under_test "$root")
python=/usr/bin/python3		# Debian's, with python3-jsonschema (PATH may hold another)
schema=$root/tests/data/kcidb-io.schema.v5.3.json
kept=$build/test-output/report
SECONDS=0
section() { echo "# $SECONDS s: $*"; }
work=$(mktemp -d /tmp/rackbisect-report-test-XXXXXX)
state=$work/state
browser_pid=

cleanup() {
	# the browser's whole process group, if a run of it is still going
	if [ -n "$browser_pid" ] && kill -0 "$browser_pid" 2>/dev/null; then
		kill -TERM -- "-$browser_pid" 2>/dev/null
		sleep 1
		kill -KILL -- "-$browser_pid" 2>/dev/null
	fi
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# browser OUT ERR ARGS...: headless Chromium in its own process group, 60 s at most
# (a loaded 2-core machine has been seen to take 20 s for one page).
browser() {
	local out=$1 err=$2
	shift 2
	setsid timeout -k 5 60 chromium --headless=new --no-sandbox --disable-gpu \
		--user-data-dir="$work/chromium-profile" --no-first-run --disable-extensions \
		--host-resolver-rules='MAP * ~NOTFOUND' --enable-logging=stderr --v=0 "$@" \
		>"$out" 2>"$err" </dev/null &
	browser_pid=$!
	wait "$browser_pid"
	local status=$?
	browser_pid=
	return $status
}

section "the fixture state"
fixture=$build/asan/tests/test_report_data
[ -x "$fixture" ] || fixture=$build/tests/test_report_data
check "the fixture maker is built ($fixture; make unit-tests builds it)" test -x "$fixture"
RACKBISECT_REPORT_FIXTURE=$state "$fixture" >"$work/ids" 2>"$work/fixture.err"
check "test_report_data makes the fixture state" test $? -eq 0 -a -f "$state/state.db"
ids=$(cat "$work/ids")
id() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$ids"; }
gate=$(id gate) bisection=$(id bisection) lone=$(id lone) culprit=$(id culprit)
night_gate=$(id night_bisected)
rbx() { "$rb" report "$@" --state "$state"; }

section "usage and state errors"
rbx gate --format pdf --out "$work/x" >"$work/e1" 2>&1
check "an unknown format exits 2" test $? -eq 2
check "... naming it and the formats there are" contains "$work/e1" "unknown report format 'pdf': give --format html, junit, kcidb or text"
rbx 9999 --format text >"$work/e2" 2>&1
check "a run that is not stored exits 2" test $? -eq 2
check "... saying so and where to look" contains "$work/e2" "no run 9999 in .*rackbisect runs"
rbx gate 77 --format kcidb --out "$work/x" >"$work/e3" 2>&1
check "a gate that is not stored exits 2 with what to do" bash -c "test $? -eq 2 && grep -q 'no gate 77 in .*give the ID' '$work/e3'"
rbx bisect 77 >"$work/e4" 2>&1
check "a bisection that is not stored exits 2" bash -c "test $? -eq 2 && grep -q 'no bisection 77' '$work/e4'"
rbx gate --format html >"$work/e5" 2>&1
check "html without --out exits 2" bash -c "test $? -eq 2 && grep -q 'needs --out PATH' '$work/e5'"
"$rb" report --state "$work/no-such-state" >"$work/e6" 2>&1
check "a state that cannot be read exits 3" test $? -eq 3
check "... saying which and what to do" contains "$work/e6" "cannot read the state database .*no-such-state.*--state DIR"
check "... and creates nothing there" test ! -e "$work/no-such-state"
check "nothing was written for the failed reports" test ! -e "$work/x"

section "text"
rbx >"$work/latest.txt" 2>"$work/latest.err"
check "text to stdout by default exits 0" test $? -eq 0
check "the verdict comes first" bash -c "head -n 1 '$work/latest.txt' | grep -q '^REGRESSION  gate $gate: v3.3.1-rc1 against v3.3'"
check "the culprit is named" contains "$work/latest.txt" "first bad commit: ${culprit:0:12}"
check "text is plain ASCII" bash -c "! LC_ALL=C grep -q '[^[:print:][:space:]]' '$work/latest.txt'"

section "KCIDB"
for subject in "gate $gate" "bisect $bisection" "$lone"; do
	name=${subject// /-}
	rbx $subject --format kcidb --out "$work/$name.kcidb.json" 2>"$work/$name.err"
	check "kcidb of '$subject' is written" test $? -eq 0 -a -s "$work/$name.kcidb.json"
	"$python" - "$schema" "$work/$name.kcidb.json" >"$work/$name.valid" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
data = json.load(open(sys.argv[2]))
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = list(validator.iter_errors(data))
for error in errors[:5]:
    print("invalid:", "/".join(map(str, error.absolute_path)), error.message)
statuses = sorted({t.get("status") for t in data.get("tests", []) if t.get("status")})
print("statuses", " ".join(statuses))
sys.exit(1 if errors else 0)
PY
	check "kcidb of '$subject' is valid against the KCIDB v5.3 schema" test $? -eq 0
done
check "the gate's tests are FAIL, MISS, SKIP, PASS and DONE (measurements)" \
	contains "$work/gate-$gate.valid" "^statuses DONE FAIL MISS PASS SKIP$"
# the check above must be able to fail: a status the schema does not know is refused
sed 's/"status": "MISS"/"status": "INFRA"/' "$work/gate-$gate.kcidb.json" >"$work/broken.json"
"$python" -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	"$schema" "$work/broken.json" >/dev/null 2>&1
check "... and a report with a status KCIDB lacks is refused by the same validation" test $? -ne 0

section "JUnit"
rbx gate "$gate" --format junit --out "$work/gate.xml" 2>/dev/null
check "junit is written" test $? -eq 0
"$python" - "$work/gate.xml" >"$work/junit.counts" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
for suite in root.iter("testsuite"):
    cases = suite.findall("testcase")
    counted = {kind: sum(1 for c in cases if c.find(kind) is not None) for kind in ("failure", "error", "skipped")}
    ok = (len(cases) == int(suite.get("tests")) and counted["failure"] == int(suite.get("failures"))
          and counted["error"] == int(suite.get("errors")) and counted["skipped"] == int(suite.get("skipped")))
    print(suite.get("name").split(":")[0], len(cases), counted["failure"], counted["error"], counted["skipped"], "ok" if ok else "MISMATCH")
PY
check "junit parses as XML" test $? -eq 0
check "the gate's suite: 6 runs, 1 failure (FAIL), 1 error (INFRA), 1 skipped, as its attributes say" \
	contains "$work/junit.counts" "^gate $gate 6 1 1 1 ok$"
check "the bisection's suite: 7 runs, 3 failures, 1 error, as its attributes say" \
	contains "$work/junit.counts" "^bisection $bisection 7 3 1 0 ok$"

section "HTML in headless Chromium"
mkdir -p "$state/reports" "$kept"
echo stale >"$state/reports/gate.html"
rbx gate "$gate" --format html --out "$state/reports/gate.html" 2>/dev/null
check "html is written over the old file" bash -c "test $? -eq 0 && ! grep -q '^stale$' '$state/reports/gate.html'"
check "... atomically (no temporary file left)" test ! -e "$state/reports/gate.html.new"
# tags only: stored text is escaped, so '<' in the page opens a real tag
grep -o '<[^>]*>' "$state/reports/gate.html" >"$work/tags"
check "the page is one file that loads nothing (no tag with src=, a URL, link or script)" \
	bash -c "grep -q '<svg ' '$work/tags' && ! grep -qiE 'src=|https?:|url\(|^<link|^<script|^<iframe|^<object' '$work/tags'"
missing=0
for href in $(grep -o 'href="[^#"][^"]*"' "$state/reports/gate.html" | sed 's/^href="//; s/"$//'); do
	[ -f "$state/reports/$href" ] || { echo "# no file behind $href"; missing=$((missing + 1)); }
done
check "every log link resolves to a run's file from where the page is" \
	bash -c "test $missing -eq 0 && grep -q 'href=\"../runs/' '$state/reports/gate.html'"
browser "$work/dom.html" "$work/dom.err" --dump-dom "file://$state/reports/gate.html"
check "chromium renders the page" test $? -eq 0 -a -s "$work/dom.html"
check "the rendered page has the bisection plot" contains "$work/dom.html" '<svg id="bisection-plot"'
check "... the power and energy plots" bash -c "grep -q '<svg id=\"power_avg\"' '$work/dom.html' && grep -q '<svg id=\"energy\"' '$work/dom.html'"
check "... the verdict" contains "$work/dom.html" '<h1 id="verdict">REGRESSION</h1>'
check "... and the hostile subject as text, not as a script" \
	bash -c "grep -q '&lt;script&gt;alert' '$work/dom.html' && ! grep -qi '<script' '$work/dom.html'"
check "no console message (error, blocked resource, script) while rendering" lacks "$work/dom.err" ':CONSOLE'
rm -f "$kept/gate.png"
browser "$work/shot.out" "$work/shot.err" --window-size=1200,3200 --hide-scrollbars \
	--screenshot="$kept/gate.png" "file://$state/reports/gate.html"
check "a screenshot is kept in $kept/gate.png" \
	bash -c "test $? -eq 0 && test \$(head -c 8 '$kept/gate.png' | od -An -tx1 | tr -d ' ') = 89504e470d0a1a0a"
check "... with no console message either" lacks "$work/shot.err" ':CONSOLE'

section "nightly"
rbx nightly >"$work/nightly.txt" 2>"$work/nightly.err"
check "report nightly (text) exits 0" test $? -eq 0
check "... the verdict first: the worst newest night of 4 nights of 2 branches" \
	bash -c "head -n 1 '$work/nightly.txt' | grep -q '^REGRESSION  nightly: 4 nights of 2 branches'"
check "... a table per branch" bash -c "grep -q '^Branch stable/linux-3.3.y (3 nights' '$work/nightly.txt' && grep -q '^Branch mainline/master (1 night' '$work/nightly.txt'"
check "... the reused bisection is known, the first one new" \
	bash -c "grep -q '(new, bisection ' '$work/nightly.txt' && grep -q '(known, bisection ' '$work/nightly.txt'"
rbx nightly stable >"$work/n1" 2>&1
check "a branch that is not TREE/BRANCH exits 2 saying so" bash -c "test $? -eq 2 && grep -q \"'stable' is not TREE/BRANCH\" '$work/n1'"
rbx nightly stable/no-such --format junit --out "$work/x" >"$work/n2" 2>&1
check "a branch with no night exits 2 saying so" bash -c "test $? -eq 2 && grep -q 'no night of stable/no-such' '$work/n2'"
mkdir -p "$work/empty" && : >"$work/empty/state.db"
"$rb" report nightly --state "$work/empty" >"$work/n3" 2>&1
check "a state with no night exits 2 and says what to run" \
	bash -c "test $? -eq 2 && grep -q 'no nights stored.*rackbisect nightly NIGHTLY.yaml' '$work/n3'"
rbx nightly mainline/master >"$work/one.txt" 2>/dev/null
check "one branch's nights" bash -c "head -n 1 '$work/one.txt' | grep -q '^INCOMPLETE  nightly of mainline/master: 1 night' && ! grep -q 'stable/linux' '$work/one.txt'"

rbx nightly --format kcidb --out "$work/nightly.kcidb.json" 2>/dev/null
check "kcidb of the nights is written" test $? -eq 0 -a -s "$work/nightly.kcidb.json"
"$python" - "$schema" "$work/nightly.kcidb.json" >"$work/nightly.valid" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
data = json.load(open(sys.argv[2]))
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = list(validator.iter_errors(data))
for error in errors[:5]:
    print("invalid:", "/".join(map(str, error.absolute_path)), error.message)
ids = [t["id"] for t in data["tests"]]
branches = sorted({c["git_repository_branch"] for c in data["checkouts"] if "git_repository_branch" in c})
print("runs", sum(1 for t in data["tests"] if "number" not in t), "unique", len(ids) == len(set(ids)))
print("branches", " ".join(branches))
sys.exit(1 if errors else 0)
PY
check "kcidb of the nights is valid against the KCIDB v5.3 schema" test $? -eq 0
check "... a test per night's run (6), no id twice" contains "$work/nightly.valid" "^runs 6 unique True$"
check "... the heads' checkouts name their branches" contains "$work/nightly.valid" "^branches linux-3.3.y master$"

rbx nightly --format junit --out "$work/nightly.xml" 2>/dev/null
check "junit of the nights is written" test $? -eq 0
"$python" - "$work/nightly.xml" >"$work/nightly.counts" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
for suite in ET.parse(sys.argv[1]).getroot().iter("testsuite"):
    cases = suite.findall("testcase")
    failures = sum(1 for c in cases if c.find("failure") is not None)
    errors = sum(1 for c in cases if c.find("error") is not None)
    ok = len(cases) == int(suite.get("tests")) and failures == int(suite.get("failures")) and errors == int(suite.get("errors"))
    print(suite.get("name"), len(cases), failures, errors, "ok" if ok else "MISMATCH")
PY
check "junit: a suite per branch, a case per night, REGRESSION failures, INCOMPLETE an error" \
	bash -c "grep -q '^stable/linux-3.3.y 3 2 0 ok$' '$work/nightly.counts' && grep -q '^mainline/master 1 0 1 ok$' '$work/nightly.counts'"

rbx nightly --format html --out "$state/reports/nightly.html" 2>/dev/null
check "html of the nights is written" test $? -eq 0 -a -s "$state/reports/nightly.html"
grep -o '<[^>]*>' "$state/reports/nightly.html" >"$work/nightly.tags"
check "... one file that loads nothing" \
	bash -c "grep -q '<svg ' '$work/nightly.tags' && ! grep -qiE 'src=|https?:|url\(|^<link|^<script|^<iframe|^<object' '$work/nightly.tags'"
browser "$work/nightly.dom" "$work/nightly.dom.err" --dump-dom "file://$state/reports/nightly.html"
check "chromium renders the nights' page" test $? -eq 0 -a -s "$work/nightly.dom"
check "... a trend plot per branch" bash -c "grep -q '<svg id=\"trend-0\"' '$work/nightly.dom' && grep -q '<svg id=\"trend-1\"' '$work/nightly.dom'"
check "... a verdict square per night in each branch's fail ratio plot (3 + 1)" \
	bash -c "test \$(sed -n '/<svg id=\"trend-[01]\"/,/<\/svg>/p' '$work/nightly.dom' | grep -c '<rect class=\"mark ') -eq 4"
check "... the hostile symptom as text" \
	bash -c "grep -q '&lt;svg onload=alert(2)&gt;' '$work/nightly.dom' && ! grep -q '<svg onload' '$work/nightly.dom'"
check "... no console message while rendering" lacks "$work/nightly.dom.err" ':CONSOLE'
rm -f "$kept/nightly.png"
browser "$work/nshot.out" "$work/nshot.err" --window-size=1200,2400 --hide-scrollbars \
	--screenshot="$kept/nightly.png" "file://$state/reports/nightly.html"
check "a screenshot of the nights is kept in $kept/nightly.png" \
	bash -c "test $? -eq 0 && test \$(head -c 8 '$kept/nightly.png' | od -An -tx1 | tr -d ' ') = 89504e470d0a1a0a"
rbx gate "$night_gate" --format html --out "$state/reports/night-gate.html" 2>/dev/null
check "a night's gate page shows its branch's trend, its night highlighted" \
	bash -c "test $? -eq 0 && sed -n '/<section id=\"trend\">/,/<\/section>/p' '$state/reports/night-gate.html' | grep -q '<tr class=\"current\">'"

section "done"
echo "# $assertions checks, $failures failed, $SECONDS s"
[ "$failures" -eq 0 ]
