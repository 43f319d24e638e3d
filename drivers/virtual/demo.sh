#!/bin/bash
# make demo: the main job (jobs/ath9k-ps.yaml) on the virtual lab.
# Brings up labs/virtual.yaml (8 boards, each a real sshd), generates the
# stable-3.3.1 model history, and has the coordinator build, boot and test
# v3.3.1-rc1 on every board and v3.3 on two, over SSH, printing the board x
# workload matrices with the kernel log lines behind each FAIL. The lab is
# brought down at the end unless KEEP_LAB=1. State: build/demo/state.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
rb=$build/rackbisect
vlab=$build/rackbisect-vlab
lab=$root/labs/virtual.yaml
job=$root/jobs/ath9k-ps.yaml
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

say "rackbisect run $job --commit v3.3.1-rc1 (every board, W1-W4)"
"$rb" run "$job" --lab "$lab" --state "$state" --tree "$demo/tree" --commit v3.3.1-rc1 \
	--junit "$demo/v3.3.1-rc1.xml"
echo "  exit $? (1: a FAIL)"

say "rackbisect run $job --commit v3.3 --boards vb01,vb02 (the baseline)"
"$rb" run "$job" --lab "$lab" --state "$state" --tree "$demo/tree" --commit v3.3 \
	--boards vb01,vb02
echo "  exit $? (0: all PASS)"

say "stored: $rb runs --state $state; $rb show RUN --state $state"
"$rb" runs --last 5 --lab "$lab" --state "$state"
