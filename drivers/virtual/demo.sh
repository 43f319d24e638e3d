#!/bin/bash
# make demo: the story rackbisect exists for, on the virtual lab. Brings up
# labs/virtual.yaml (8 boards, each a real sshd), generates the stable-3.3.1
# model history (mainline on master, the 3.3.y queue ending at v3.3.1-rc1),
# and gates v3.3.1-rc1 against v3.3 with jobs/stable-gate.yaml: REGRESSION,
# the bisection in the queue naming the c1afdaff backport, what the stable
# rules allow (drop it before release; mainline has no fix yet: report to its
# authors), the queue audit, and the stable-review reply written to a file.
# The reply, an HTML page and KCIDB JSON are written to build/demo. The lab
# is brought down at the end unless KEEP_LAB=1. State: build/demo/state.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
rb=$build/rackbisect
vlab=$build/rackbisect-vlab
lab=$root/labs/virtual.yaml
job=$root/jobs/stable-gate.yaml
demo=$build/demo
state=$demo/state

say() { printf '\n== %s\n' "$*"; }

cleanup() {
	if [ "${KEEP_LAB:-0}" != 1 ]; then
		say "lab down"
		"$rb" lab down "$lab" --state "$state"
	fi
}

say "lab up: 8 boards, each an OpenSSH sshd on its own 127.77.0.x address"
rm -rf "$demo"
mkdir -p "$demo"
"$rb" lab up "$lab" --state "$state" || exit 3
trap cleanup EXIT

say "model kernel history: scenario stable-3.3.1, seed 1"
"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --out "$demo/tree" --truth "$demo/truth.json" || exit 3
git -C "$demo/tree" log --oneline -3 v3.3.1-rc1 | sed 's/^/  /'

say "rackbisect gate jobs/stable-gate.yaml --baseline v3.3 --candidate v3.3.1-rc1 --mainline master --bisect"
started=$SECONDS
"$rb" gate "$job" --lab "$lab" --state "$state" --tree "$demo/tree" --baseline v3.3 \
	--candidate v3.3.1-rc1 --mainline master --bisect --reply "$demo/reply.txt" 2>"$demo/gate.log"
status=$?
echo "  exit $status (1: REGRESSION) after $((SECONDS - started)) s; the event log: $demo/gate.log"

say "the reports"
"$rb" report gate --format html --out "$demo/report.html" --lab "$lab" --state "$state" &&
	"$rb" report gate --format kcidb --out "$demo/kcidb.json" --lab "$lab" --state "$state"
echo "  $demo/reply.txt    the stable-review reply, to send to the stable list"
echo "  $demo/report.html  the page: verdict, matrix, bisection path and power plots, logs"
echo "  $demo/kcidb.json   the same for KernelCI (KCIDB v5)"
say "stored: $rb runs --state $state; $rb show RUN --state $state; $rb bisect log --state $state"
