#!/bin/bash
# `rackbisect nightly` on the virtual lab, 4 boards over real SSH (issue 6):
# three nights of two tracked branches of a model kernel tree, run at once on
# the same boards (the gates' runs interleave, no board ever runs two at
# once); the second branch, "steady", stays good. Night 1 (the
# branch at v3.3) is its first night and good; on night 2 the branch has moved
# to a head holding the c1afdaff equivalent: a REGRESSION in W3, bisected
# automatically to that commit (the truth file's culprit); on night 3 one more
# commit has arrived and the regression is still there: it is recognised (its
# culprit is in the branch) and not bisected again. The shipped systemd units
# name a command line rackbisect accepts. Bad nightly files exit 2 at
# file:line:col.
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
work=$(mktemp -d /tmp/rackbisect-nightly-test-XXXXXX)
state=$work/state
lab=$work/lab.yaml
tree=$work/tree

cleanup() {
	"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

eight_board_lab nightlab nb 127.77.11 4 >"$lab"
# a nightly that hangs (a gate waiting for a board forever) fails instead of holding CI
rbx() { timeout -k 10 600 "$rb" "$@" --lab "$lab" --state "$state"; }
truth() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

"$rb" lab up "$lab" --state "$state" >"$work/up.out" 2>&1
check "rackbisect lab up starts 4 boards" test $? -eq 0
"$vlab" make-tree --scenario random --seed 3 --commits 20 --build-break-rate 0 --merge-density 0 \
	--out "$tree" --truth "$work/truth.json" >/dev/null 2>&1
check "a model kernel tree with 20 commits after v3.3" test -d "$tree/.git"
culprit=$(truth "$work/truth.json" 'd["culprits"]["master"][:12]')
git -C "$tree" branch nightly-test v3.3
git -C "$tree" branch steady v3.3

# the stable gate's job with W3 alone: the regression shows there, in half the time
sed -e '/- name: W2/,/timeout: 600/d' -e 's/^name: stable-gate/name: nightly-w3/' \
	"$root/jobs/stable-gate.yaml" >"$work/w3.yaml"
cat >"$work/nightly.yaml" <<YAML
# the test's nightly file: one tree, two branches
job: w3.yaml
trees:
  - name: model
    path: tree
    branches: [nightly-test, steady]
YAML
# night_runs DB GATE...: each gate's runs as "gate board started finished"
night_runs() {
	python3 - "$@" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
for gate in sys.argv[2:]:
    for board, started, finished in db.execute(
            "SELECT board, started_at, finished_at FROM runs JOIN gate_runs ON run_id = id "
            "WHERE gate_id = ? AND board IS NOT NULL AND started_at IS NOT NULL", (int(gate),)):
        print(gate, board, started, finished)
PY
}
# the gates' runs overlap in time: each gate started a run before the other's last one ended
gates_overlap() {
	night_runs "$@" | awk '{ s = $3; f = $4; if (!(($1) in first) || s < first[$1]) first[$1] = s
		if (f > last[$1]) last[$1] = f; n[$1]++ }
		END { k = 0; for (g in n) gate[k++] = g
		      exit !(k == 2 && first[gate[0]] < last[gate[1]] && first[gate[1]] < last[gate[0]]) }'
}
# no board ran two runs at once, whichever gate or bisection they were for
boards_one_run_at_a_time() {
	python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
runs = db.execute("SELECT board, started_at, finished_at FROM runs WHERE board IS NOT NULL "
                  "AND started_at IS NOT NULL ORDER BY board, started_at").fetchall()
clashes = [(a, b) for a, b in zip(runs, runs[1:]) if a[0] == b[0] and b[1] < a[2]]
print("%d runs, %d on a busy board" % (len(runs), len(clashes)), file=sys.stderr)
sys.exit(1 if clashes or not runs else 0)
PY
}
gate_of() { sed -n "s|^  $1 .*(gate \([0-9]*\))\$|\1|p" "$2"; }

section "bad nightly files"
printf 'job: %s\ntrees:\n  - name: model\n    path: nowhere\n    branches: [master]\n' \
	"$root/jobs/stable-gate.yaml" >"$work/bad-path.yaml"
rbx nightly "$work/bad-path.yaml" >"$work/bad-path.out" 2>&1
check "a tree that is no git repository: exit 2" test $? -eq 2
check "... at file:line:col, naming it" contains "$work/bad-path.out" \
	"bad-path.yaml:4:11: tree 'model': .*nowhere is not a git repository"
printf 'job: %s\ntrees:\n  - name: model\n    path: tree\n    branches: [--upload-pack=x]\n' \
	"$root/jobs/stable-gate.yaml" >"$work/bad-branch.yaml"
rbx nightly "$work/bad-branch.yaml" >"$work/bad-branch.out" 2>&1
check "a branch that looks like an option: exit 2" \
	bash -c "test $? -eq 2 && grep -q \"bad-branch.yaml:5:15: .*'--upload-pack=x' is not a branch name\" '$work/bad-branch.out'"
printf 'trees:\n  - name: model\n    path: tree\n    branches: [master]\n' >"$work/no-job.yaml"
rbx nightly "$work/no-job.yaml" >"$work/no-job.out" 2>&1
check "no job: exit 2 saying so" \
	bash -c "test $? -eq 2 && grep -q 'no-job.yaml:1:1: the nightly file names no job' '$work/no-job.out'"

section "night 1: the branch at v3.3"
rbx nightly "$work/nightly.yaml" >"$work/night1.out" 2>"$work/night1.err"
check "night 1 passes (exit 0)" test $? -eq 0
check "... as the branch's first night" contains "$work/night1.out" \
	"^  model/nightly-test .* PASS .*first night"
check "... and the second branch's too" contains "$work/night1.out" "^  model/steady .* PASS .*first night"
check "... their progress lines say which branch" bash -c \
	"grep -q '^model/steady: gate [0-9]*: ' '$work/night1.out' && grep -q '^model/nightly-test: gate [0-9]*: ' '$work/night1.out'"
check "... both gates ran at once" gates_overlap "$state/state.db" \
	"$(gate_of model/nightly-test "$work/night1.out")" "$(gate_of model/steady "$work/night1.out")"

section "night 2: the branch moved to a head with the regression"
: "${culprit:?}"
git -C "$tree" branch -f nightly-test master
git -C "$tree" branch -f steady "$culprit^"	# the last good commit: a new head, still good
rbx nightly "$work/night2.out.yaml" >/dev/null 2>&1	# a missing file is a usage error, nothing run
check "a nightly file that is not there: exit 2" test $? -eq 2
rbx nightly "$work/nightly.yaml" >"$work/night2.out" 2>"$work/night2.err"
check "night 2 is a REGRESSION (exit 1)" test $? -eq 1
check "... against the last good night (v3.3)" contains "$work/night2.out" \
	"last good night $(git -C "$tree" rev-parse --short=12 "v3.3^{commit}")"
check "... in W3" contains "$work/night2.out" "^  model/nightly-test .* REGRESSION  W3 (auth-timeout)"
check "... bisected tonight to the culprit (truth file)" contains "$work/night2.out" \
	"^  model/nightly-test .* culprit $culprit, bisected tonight (bisection 1)"
check "... while the steady branch passed beside it" contains "$work/night2.out" "^  model/steady .* PASS  *(gate"
check "... both gates ran at once" gates_overlap "$state/state.db" \
	"$(gate_of model/nightly-test "$work/night2.out")" "$(gate_of model/steady "$work/night2.out")"
check "... and no board ever ran two runs at once (gates and bisection)" \
	boards_one_run_at_a_time "$state/state.db"

section "night 3: one more commit, the regression still there"
git -C "$tree" -c user.name=t -c user.email=t@localhost commit -q --allow-empty \
	-m "MAINTAINERS: one more commit on the branch"
git -C "$tree" branch -f nightly-test master
check "the branch has moved on" bash -c "[ \"\$(git -C '$tree' rev-parse nightly-test)\" != \"\$(git -C '$tree' rev-parse v3.4-rc1)\" ]"
rbx nightly "$work/nightly.yaml" >"$work/night3.out" 2>"$work/night3.err"
check "night 3 is a REGRESSION again (exit 1)" test $? -eq 1
check "... the known regression is named, not bisected again" contains "$work/night3.out" \
	"^  model/nightly-test .* culprit $culprit, known: not bisected again (bisection 1)"
rbx bisect status 2 >"$work/status2.out" 2>&1
check "... no second bisection was stored" \
	bash -c "test $? -eq 2 && grep -q 'no bisection 2 in' '$work/status2.out' && '$rb' bisect status 1 --lab '$lab' --state '$state' >/dev/null"
check "... night 3 is still compared with night 1's head" contains "$work/night3.out" \
	"last good night $(git -C "$tree" rev-parse --short=12 "v3.3^{commit}")"

section "systemd units"
service=$root/docs/systemd/rackbisect-nightly.service
timer=$root/docs/systemd/rackbisect-nightly.timer
check "a service and a timer are shipped" test -f "$service" -a -f "$timer"
check "... the timer starts the service nightly" bash -c "grep -q '^OnCalendar=' '$timer' && grep -q '^Unit=rackbisect-nightly.service' '$timer'"
exec_line=$(sed -n 's/^ExecStart=//p' "$service")
# the service's command line, with --help added, is one rackbisect takes
read -r -a words <<<"$exec_line"
"$rb" "${words[@]:1}" --help >"$work/unit-help.out" 2>&1
check "... the service's ExecStart is a nightly command rackbisect accepts" \
	bash -c "test $? -eq 0 && grep -q 'usage: rackbisect nightly' '$work/unit-help.out' && [ '${words[0]##*/}' = rackbisect ]"
# ... and run as it stands, its paths put to this test's lab and state and to
# a nightly file that is not there: it reads that file, in that place (exit
# 2 naming it) and runs no night
unit_words=()
for word in "${words[@]:1}"; do
	case $word in
	/etc/rackbisect/lab.yaml) unit_words+=("$lab") ;;
	/var/lib/rackbisect) unit_words+=("$state") ;;
	/etc/rackbisect/nightly.yaml) unit_words+=("$work/no-such-nightly.yaml") ;;
	*) unit_words+=("$word") ;;
	esac
done
"$rb" "${unit_words[@]}" >"$work/unit-run.out" 2>&1
check "... whose arguments are where rackbisect reads them (the nightly file named, exit 2)" \
	bash -c "test $? -eq 2 && grep -q 'no-such-nightly.yaml: cannot open nightly file: No such file' '$work/unit-run.out'"
check "no sanitizer report from the coordinator" bash -c "! grep -q 'Sanitizer' '$work'/night*.err"

section "done"
[ "$failures" -eq 0 ]
