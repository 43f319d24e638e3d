#!/bin/bash
# Seeded fault injection in the virtual lab (issue 9), first half: through
# `run`; test_fault_gate.sh is the second half, `gate --bisect`. Both share
# fault_matrix_lib.sh.
#
# Faults (drivers/virtual/board/fault_plan.h): a hang at deploy, at boot and
# during a workload; an SSH drop during the kernel upload and during a
# workload; a spontaneous reset during a workload; a console disconnect; a
# slow boot; a power switch that answers an error, and one that never
# answers. Seed s (1..10) picks the event each strikes at.
#
# run: 100 boards, every fault x 10 seeds (one fault each), 4 clean boards,
#   W1 on v3.3, in four `run`s of 26 boards. Each board's struck fault must be classified as DESIGN.md
#   says (INFRA for the lab's trouble, SKIP for a boot that never came up,
#   FAIL(hang) for a hang under the kernel under test), with a cause that
#   names the board; any other run on that board passes, or is lab trouble
#   naming the board (it was still coming back): never evidence; no
#   result lost.
# A corrupted artifact (the coordinator's build cache damaged on disk: a
#   byte flipped or the image cut, at a seeded place): built again, never
#   booted, said as event cache-corrupt; the run passes. 10 seeds.
# (The power switch that prints its password is in the second half, which
#   ends sooner.)
#
# Prints "ok N - ..." / "not ok N - ..."; every wait is on an event with a timeout.
# lane: end
set -u
# The corrupted-artifact section damages builds in its state's own cache.
unset RACKBISECT_KERNEL_CACHE

. "$(dirname "$0")/fault_matrix_lib.sh"
fault_matrix_begin fault-matrix
run_lab=$work/run-lab.yaml
fault_labs=$run_lab

# The run lab: board KIND-SEED has that one fault. A workload fault strikes
# at the seed's workload tool call (1..9, W1 makes more); a power fault
# needs a power cycle, so its board also hangs during the workload.
# A batch of 26 boards beside the QEMU board and the gate half keeps both cores busy: a board
# may take seconds to answer, so silence is a hang only after 30 s here (a
# rack's default is 120).
limits="{boot: 30, hang: 30, power: 15}"
n=0
{
	echo "name: faults-run"
	echo "type: virtual"
	echo "boards:"
	k=0
	for kind in $kinds; do
		k=$((k + 1))
		for seed in 1 2 3 4 5 6 7 8 9 10; do
			n=$((n + 1))
			case $kind in
			*-workload | console-drop) spec="$kind: $((1 + (seed * 7 + k) % 9))" ;;
			slow-boot) spec="$kind: $((300 * seed))" ;;
			power-*) spec="hang-workload: $((1 + seed % 3)), $kind: 1" ;;
			*) spec="$kind: 1" ;;
			esac
			board "$kind-$seed" "127.77.19.$n" "$n" "$spec"
		done
	done
	for c in 1 2 3 4; do
		n=$((n + 1))
		board "clean-$c" "127.77.19.$n" "$n" ""
	done
} >"$run_lab"

# ---- run: every fault x 10 seeds -------------------------------------------------------------
section "run: 104 boards, every fault x 10 seeds"
"$rb" lab up "$run_lab" --state "$state" >"$work/run-up.out" 2>&1
check "the run lab is up (104 boards)" test $? -eq 0
# In four batches of 26 boards, each with every kind and a clean board: 104
# runs at once beside make check's other lanes left a board seconds from
# its turn on the CPU, past the limits above.
batch=0
statuses=
for seeds in "1 2 3" "4 5 6" "7 8" "9 10"; do
	batch=$((batch + 1))
	boards=clean-$batch
	for kind in $kinds; do
		for seed in $seeds; do boards="$boards,$kind-$seed"; done
	done
	"$rb" run "$work/w1.yaml" --lab "$run_lab" --state "$state" --tree "$work/tree" --commit v3.3 \
		--boards "$boards" --json >"$work/run-$batch.json" 2>"$work/run-$batch.err"
	statuses="$statuses $?"
done
cat "$work"/run-[1-4].err >"$work/run.err"
python3 -c '
import json, sys
print(json.dumps({"runs": [r for f in sys.argv[1:] for r in json.load(open(f))["runs"]]}))' \
	"$work"/run-[1-4].json >"$work/run.json"
check "run: every batch exits 1 (the hangs under the kernel under test are FAILs)" \
	test "$statuses" = " 1 1 1 1"
lab_json "$run_lab" >"$work/run-lab.json"
"$rb" runs --last 100000 --json --state "$state" >"$work/run-runs.json" 2>"$work/runs.err"
check "runs --json lists the stored runs" test -s "$work/run-runs.json"

# judge_run KIND: every seed's board of KIND classified as the design says
judge_run() {
	python3 - "$1" "$work/run-lab.json" "$work/run-runs.json" "$work/run.err" <<'PY'
import json, re, sys
kind, lab, runs, log = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), open(sys.argv[4]).read()
boards = {b["name"]: b for b in lab["boards"]}
# what the struck run must be: outcome, and a pattern its cause or symptoms must match
expected = {
    "hang-deploy": ("INFRA", r"kexec -l failed.*board hung while not running the kernel under test"),
    "hang-boot": ("SKIP", r"boot failed: no SSH within"),
    "hang-workload": ("FAIL", r"^hang$"),
    # the drop lands in the kernel upload, or just before it
    "ssh-drop-upload": ("INFRA", r"upload failed|`uname -r` failed"),
    # the session breaks, or the next command after it gets no answer
    "ssh-drop-workload": ("INFRA", r"session failed|reading the kernel log failed"),
    "reboot-workload": ("INFRA", r"session failed|reading the kernel log failed"),
    "console-drop": ("INFRA", r"console lost"),
    "slow-boot": (None, None),
    "power-error": ("FAIL", r"^hang$"),
    "power-timeout": ("FAIL", r"^hang$"),
}[kind]
bad = []
for seed in range(1, 11):
    name = f"{kind}-{seed}"
    struck = boards[name]["faults"]["struck"]
    if kind not in struck:
        bad.append(f"{name}: the fault never struck (struck: {struck})")
        continue
    mine = [r for r in runs if r["board"] == name]
    if any(r["state"] != "done" for r in mine):
        bad.append(f"{name}: a run was left unfinished")
    others = sorted((r for r in mine if r["outcome"] != "PASS"), key=lambda r: r["id"])
    outcome, pattern = expected
    if outcome is None:
        if others:
            bad.append(f"{name}: {len(others)} runs not PASS: {[(r['id'], r['outcome'], r['cause']) for r in others]}")
        continue
    if not others:
        # a console dropped near a run's end may be noticed only after it:
        # that run saw its whole workload and kernel log, and stays PASS
        if kind != "console-drop":
            bad.append(f"{name}: the fault struck and every run passed")
        continue
    # the first run that did not pass is the one the fault struck; a later
    # one may only be lab trouble (the board still coming back), never evidence
    r = others[0]
    for later in others[1:]:
        if later["outcome"] != "INFRA" or name not in (later["cause"] or ""):
            bad.append(f"{name}: run {later['id']} after the fault is {later['outcome']} "
                       f"({later['cause']}), not lab trouble naming the board")
    said = [s["name"] for s in r["symptoms"]] if outcome == "FAIL" else [r["cause"] or ""]
    if r["outcome"] != outcome or not any(re.search(pattern, s) for s in said):
        bad.append(f"{name}: run {r['id']} is {r['outcome']} {said}, expected {outcome} /{pattern}/")
    if outcome != "FAIL" and name not in (r["cause"] or ""):
        bad.append(f"{name}: run {r['id']}'s cause does not name the board: {r['cause']}")
    if kind.startswith("power-"):
        want = "refused" if kind == "power-error" else "no answer to"
        if not re.search(rf"board={re.escape(name)} run={r['id']} event=lab-error detail=\"board {re.escape(name)}: power switch .*{want}", log):
            bad.append(f"{name}: no lab-error naming the board and the power switch ({want})")
        if boards[name]["state"] != "up":
            bad.append(f"{name}: not back up after its health check: {boards[name]['state']}")
for line in bad:
    print("#   " + line)
sys.exit(1 if bad else 0)
PY
}
for kind in $kinds; do
	check "run: $kind x 10 seeds: struck, classified as designed, board named, nothing else failed" \
		judge_run "$kind"
done
check "run: the clean boards passed every run" python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))
mine = [r for r in runs if r["board"].startswith("clean-")]
sys.exit(not (mine and all(r["outcome"] == "PASS" for r in mine)))' "$work/run-runs.json"
check "run: no result lost: every run the log finished is stored, done" python3 -c '
import json, re, sys
runs = json.load(open(sys.argv[1]))
done = set(int(m) for m in re.findall(r"run=(\d+) event=done", open(sys.argv[2]).read()))
stored = set(r["id"] for r in runs if r["state"] == "done")
sys.exit(not (done and done == stored and len(stored) == len(runs)))' "$work/run-runs.json" "$work/run.err"
check "run: every cell ended with a verdict" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (len(d["runs"]) == 104 and all(r["outcome"] in ("PASS", "FAIL", "SKIP", "INFRA") for r in d["runs"])))' \
	"$work/run.json"
# ---- a corrupted artifact: built again, never booted ------------------------------------------
section "a corrupted artifact x 10 seeds"
# the builds are cached in the state directory: this test's own
image=$(ls "$state"/kernels/*/image | head -n 1)
for seed in 1 2 3 4 5 6 7 8 9 10; do
	# odd seeds flip one byte, even ones cut the image short, at a seeded place
	python3 -c '
import sys
path, seed = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
at = seed * 7919 % len(data)
if seed % 2:
    data[at] ^= 0xff
else:
    del data[at:]
open(path, "wb").write(data)' "$image" "$seed"
	"$rb" run "$work/w1.yaml" --lab "$run_lab" --state "$state" --tree "$work/tree" --commit v3.3 \
		--boards "clean-$((1 + seed % 4))" >"$work/corrupt-$seed.out" 2>"$work/corrupt-$seed.err"
	echo $? >"$work/corrupt-$seed.status"
done
check "corrupted artifact: every seed's run passed (exit 0)" \
	bash -c "[ \"\$(cat '$work'/corrupt-*.status | sort -u)\" = 0 ]"
check "corrupted artifact: every seed said cache-corrupt and built again" \
	bash -c "[ \$(grep -l 'event=cache-corrupt detail=\"[0-9a-f]*: its cached build did not match its checksums; moved to .*corrupt/' '$work'/corrupt-*.err | wc -l) -eq 10 ]"
check "corrupted artifact: the 10 damaged entries are kept aside" \
	bash -c "[ \$(ls '$state/kernels/corrupt' | wc -l) -eq 10 ]"
"$rb" lab down "$run_lab" --state "$state" >/dev/null 2>&1

check "no sanitizer report from the coordinator" \
	bash -c "! grep -l 'ERROR: AddressSanitizer\|runtime error:\|LeakSanitizer' '$work'/*.err"
section "done"
[ "$failures" -eq 0 ]
