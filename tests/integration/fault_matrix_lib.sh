# Shared by the fault matrix's two halves, test_fault_matrix.sh (run) and
# test_fault_gate.sh (gate --bisect), sourced, not run: the work directory
# and its cleanup, the fault kinds, a board's lab lines, the jobs and the
# model kernel history. tests/run-all.sh runs both halves at once, beside the
# QEMU board ("lane: end"): the matrix mostly waits on its limits.
#
# fault_matrix_begin NAME: sets root, rb, vlab, work (/tmp/rackbisect-NAME-*),
# state and job; makes w1.yaml, w3.yaml, the tree and its truth.json in
# $work, and culprit; a lab file added to fault_labs is taken down at exit.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

kinds="hang-deploy hang-boot hang-workload ssh-drop-upload ssh-drop-workload reboot-workload
       console-drop slow-boot power-error power-timeout"
fault_labs=""

fault_matrix_cleanup() {
	local lab
	for lab in $fault_labs; do
		"$rb" lab down "$lab" --state "$state" >/dev/null 2>&1
	done
	[ -d "$work/tree" ] && git -C "$work/tree" worktree prune 2>/dev/null
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}

section() { echo "# $SECONDS s: $*"; }

fault_matrix_begin() {
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	rb=$(rackbisect_under_test "$root")
	vlab=$(vlab_under_test "$root")
	# Unsanitized boards are 3x faster; the coordinator under test is sanitized.
	export RACKBISECT_VLAB=${RACKBISECT_BUILD:-$root/build}/rackbisect-vlab
	SECONDS=0
	work=$(mktemp -d "/tmp/rackbisect-$1-XXXXXX")
	state=$work/state
	trap fault_matrix_cleanup EXIT
	trap 'exit 130' INT TERM HUP
	job=$root/jobs/ath9k-ps.yaml
	one_workload_job W1 "{duration: 120, phase: 30}" >"$work/w1.yaml"
	one_workload_job W3 "{cycles: 10, idle-min: 1, idle-max: 10, reconnect: mixed, seed: 42}" >"$work/w3.yaml"
	"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --out "$work/tree" --truth "$work/truth.json" >/dev/null 2>&1
	check "model kernel history made" test -d "$work/tree/.git"
	culprit=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["culprits"]["linux-3.3.y"][:12])' "$work/truth.json")
}

# board NAME ADDRESS SEED FAULTS: one board of a lab file, with $limits.
board() {
	cat <<YAML
  - name: $1
    chip: ar9285
    transport: {host: $2, port: 2222}
    console: {driver: virtual, port: 7000}
    boot: {driver: virtual, fallback: 3.3.0-lab-fallback}
    limits: $limits
    seed: $3
YAML
	[ -z "$4" ] || echo "    faults: {$4}"
}

one_workload_job() {	# one_workload_job NAME PARAMETERS > job file
	sed -n '1,/^workloads:/p' "$job"
	echo "  - name: $1"
	echo "    parameters: $2"
	echo "    timeout: 900"
	sed -n '/^symptoms:/,$p' "$job"
}

lab_json() { "$vlab" status "$1" --state "$state" --json; }
