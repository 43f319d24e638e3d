#!/bin/bash
# lane: own
# (not "end", beside the QEMU board: the end phase has most of a core idle,
# but LAVA there took the QEMU board from 345 to 517 s, its TCG guest slowed
# by the load)
# A lab of type lava (issue 8) against a real LAVA: Debian's lava-server and
# lava-dispatcher, set up and started here (tests/integration/lava_env.sh:
# a private PostgreSQL, LAVA's web server, scheduler, publisher and a
# worker, all on 127.77.17.1, stopped by PID after). A device of LAVA's
# `ssh` type points at a virtual board's real sshd; `rackbisect run` turns
# each run into a LAVA job, follows it through LAVA's queue, reads its
# results and log back, and judges them as any run. A board whose sshd is
# gone makes LAVA end the job Incomplete (Infrastructure): INFRA, retried; a
# job LAVA refuses is INFRA too, and not retried.
#
# Prints "ok N - ..." / "not ok N - ..."; every wait is on an event with a timeout.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
. "$root/tests/integration/lava_env.sh"
rb=$(rackbisect_under_test "$root")
vlab=$(vlab_under_test "$root")
work=$(mktemp -d /tmp/rackbisect-lava-test-XXXXXX)
chmod 0755 "$work"	# LAVA's PostgreSQL (user postgres) keeps its cluster under it
state=$work/state
vlab_file=$work/virtual.yaml
lava_lab=$work/lava-lab.yaml

cleanup() {
	"$rb" lab down "$vlab_file" --state "$state" >/dev/null 2>&1
	lava_stop "$work/lava" >/dev/null 2>&1
	# LAVA's ssh deploy unpacks each job's overlay at the device's /: a
	# virtual board shares this machine's root, so its jobs' go here
	for id in $(cat "$work/job-ids" 2>/dev/null); do rm -rf "/lava-$id" "/lava-$id"-overlay-*.tar.gz; done
	[ -n "${RACKBISECT_KEEP_TEST:-}" ] && echo "# kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

started=$SECONDS
lava_install >"$work/install.log" 2>&1
check "LAVA's Debian packages are installed ($(tail -n 1 "$work/install.log" | tr -d '#'))" test $? -eq 0
lava_start "$work/lava" >"$work/start.log" 2>&1
lava_up=$?
check "LAVA is up: database, web server, scheduler, worker" test $lava_up -eq 0
if [ $lava_up -ne 0 ]; then
	# nothing after this can pass: say why (which wait, LAVA's own log tail)
	sed 's/^/#   /' "$work/start.log"
	exit 1
fi
echo "# LAVA set up in $((SECONDS - started)) s"
mkdir -p "$work/artifacts"
lava_serve_artifacts "$work/artifacts" 8019 >"$work/artifacts-http.out" 2>&1
check "a web server shows the artifacts directory to LAVA's devices" test $? -eq 0

cat >"$vlab_file" <<'YAML'
name: lavaboards
type: virtual
boards:
  - name: lv01
    chip: ar9285
    transport: {host: 127.77.17.11, port: 2222}
    console: {driver: virtual, port: 7000}
    boot: {driver: virtual, fallback: 3.3.0-lab-fallback}
    seed: 1
  - name: lv02
    chip: ar9285
    transport: {host: 127.77.17.12, port: 2222}
    console: {driver: virtual, port: 7001}
    boot: {driver: virtual, fallback: 3.3.0-lab-fallback}
    seed: 2
YAML
"$rb" lab up "$vlab_file" --state "$state" >"$work/up.out" 2>&1
check "the virtual boards LAVA will drive are up" test $? -eq 0
key=$state/labs/lavaboards/id_ed25519
lava_add_ssh_device lava-lv01 127.77.17.11 2222 root "$key" lv01 >"$work/device.log" 2>&1 &&
	lava_add_ssh_device lava-lv02 127.77.17.12 2222 root "$key" lv02 >>"$work/device.log" 2>&1
check "LAVA has two devices of type ssh, tagged, pointing at the boards' sshd" test $? -eq 0

cat >"$lava_lab" <<YAML
name: lavalab
type: lava
lava:
  url: $LAVA_URL
  token_env: RB_LAVA_TOKEN
  priority: medium
  timeouts: {job: 600, queue: 300}
  artifacts: {dir: $work/artifacts, url: "http://127.77.17.1:8019/"}
boards:
  - name: la01
    chip: ar9285
    lava: {device_type: ssh, tags: [lv01]}
    limits: {boot: 9}
YAML
# the bisect's lab: both devices, so a round keeps two jobs in flight
cat "$lava_lab" - >"$work/lava-two.yaml" <<YAML
  - name: la02
    chip: ar9285
    lava: {device_type: ssh, tags: [lv02]}
    limits: {boot: 9}
YAML
cat >"$work/job.yaml" <<'YAML'
name: lava-w4
boards: all
workloads:
  - name: W4
    parameters: {cycles: 3, down-time: 1}
    timeout: 300
symptoms:
  - name: not-associated
    metric: failed_not_associated
    compare: ">"
    threshold: 0
YAML
"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --out "$work/tree" --truth "$work/truth.json" \
	>"$work/tree.out" 2>&1

started=$SECONDS
RB_LAVA_TOKEN=$LAVA_TOKEN timeout 600 "$rb" run "$work/job.yaml" --lab "$lava_lab" \
	--state "$state" --tree "$work/tree" --commit v3.3 >"$work/run.out" 2>"$work/run.err"
status=$?
echo "# rackbisect run through LAVA took $((SECONDS - started)) s"
grep -h '^job ' "$state"/runs/*/lava.txt 2>/dev/null | cut -d' ' -f2 >>"$work/job-ids"
check "rackbisect run through LAVA: exit 0, W4 PASS on la01" \
	bash -c "[ $status -eq 0 ] && grep -qE '^la01 +ar9285 +PASS *$' '$work/run.out'"
check "... the run followed the job through LAVA's queue" contains "$work/run.err" "event=lava-submitted"
check "... and saw it run on LAVA's device" contains "$work/run.err" "event=lava-running.*lava-lv01"
run_dir=$(dirname "$(ls "$state"/runs/*/lava.txt | head -n 1)")
check "... the run keeps the job it sent (job.yaml) and LAVA's job id (lava.txt)" \
	bash -c "grep -q '^device_type: ssh' '$run_dir/job.yaml' && grep -q '^job [0-9]' '$run_dir/lava.txt'"
check "... the workload's KTAP came back from LAVA's log" grep -q '^ok ' "$run_dir/output.ktap"
check "... so did the board's kernel log" test -s "$run_dir/dmesg.log"
job_id=$(sed -n 's/^job //p' "$run_dir/lava.txt")
lava_api GET "/api/v0.2/jobs/$job_id/tests/?limit=1000" >"$work/tests.json" 2>&1
check "LAVA holds the workload's KTAP results and metrics as test cases" \
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["results"]
names = {t["name"]: t for t in r}
assert any(n.startswith("metric-") and t["measurement"] is not None for n, t in names.items()), names
assert any(t["result"] == "pass" and not n.startswith("metric-") and t["metadata"].find("definition: lava\n") < 0 for n, t in names.items()), names' "$work/tests.json"
python3 -c 'import json,sys; print(json.dumps({"definition": open(sys.argv[1]).read()}))' \
	"$run_dir/job.yaml" >"$work/validate.json"
curl -fsS -H 'Content-Type: application/json' --data @"$work/validate.json" \
	"$LAVA_URL/api/v0.2/jobs/validate/" >"$work/validate.out" 2>&1
check "LAVA's own validator calls the job rackbisect wrote valid" grep -q '"Job valid."' "$work/validate.out"
check "the token is in no log or file of the run" \
	bash -c "! grep -rqF -- \"\$1\" '$state/runs' '$work/run.out' '$work/run.err'" sh "$LAVA_TOKEN"

# The same runs on the virtual lab directly and through LAVA: the same
# verdicts, the build under test booted each time (v3.3.1-rc1 carries the
# c1afdaff backport; W3 is where it shows).
cat >"$work/job-w3.yaml" <<'YAML'
name: lava-w3
boards: all
workloads:
  - name: W3
    parameters: {cycles: 20, idle-min: 1, idle-max: 10, reconnect: mixed, seed: 42}
    timeout: 90   # a board the bad commit hangs (lv02 does) costs this much
symptoms:
  - {name: not-associated, metric: failed_not_associated, compare: ">", threshold: 0}
  - {name: auth-timeout, log: 'authentication with .* timed out'}
  - {name: connection-lost, log: 'Connection to AP .* lost'}
YAML
verdicts() { sed -n 's/^ *[a-z0-9]* *ar9285 *\([A-Z]*\) *$/\1/p' "$1" | tr '\n' ' '; }
symptoms() { sed -n 's/^ *[a-z0-9]* W3 #[0-9]*: run [0-9]*: FAIL \([a-z, -]*\) (.*/\1/p' "$1"; }
for commit in v3.3 v3.3.1-rc1; do
	"$rb" run "$work/job-w3.yaml" --lab "$vlab_file" --boards lv01 --state "$state" \
		--tree "$work/tree" --commit "$commit" >"$work/direct-$commit.out" 2>"$work/direct-$commit.err"
	echo $? >"$work/direct-$commit.status"
	RB_LAVA_TOKEN=$LAVA_TOKEN timeout 600 "$rb" run "$work/job-w3.yaml" --lab "$lava_lab" \
		--state "$state" --tree "$work/tree" --commit "$commit" >"$work/lava-$commit.out" \
		2>"$work/lava-$commit.err"
	echo $? >"$work/lava-$commit.status"
	grep -h '^job ' "$state"/runs/*/lava.txt 2>/dev/null | cut -d' ' -f2 >>"$work/job-ids"
done
check "W3 of v3.3 directly on the virtual lab: PASS (exit 0)" \
	bash -c "[ \$(cat '$work/direct-v3.3.status') = 0 ] && [ '$(verdicts "$work/direct-v3.3.out")' = 'PASS ' ]"
check "... and through LAVA: PASS (exit 0)" \
	bash -c "[ \$(cat '$work/lava-v3.3.status') = 0 ] && [ '$(verdicts "$work/lava-v3.3.out")' = 'PASS ' ]"
check "W3 of v3.3.1-rc1 directly on the virtual lab: FAIL (exit 1)" \
	bash -c "[ \$(cat '$work/direct-v3.3.1-rc1.status') = 1 ] && [ '$(verdicts "$work/direct-v3.3.1-rc1.out")' = 'FAIL ' ]"
check "... and through LAVA: FAIL (exit 1)" \
	bash -c "[ \$(cat '$work/lava-v3.3.1-rc1.status') = 1 ] && [ '$(verdicts "$work/lava-v3.3.1-rc1.out")' = 'FAIL ' ]"
direct_symptoms=$(symptoms "$work/direct-v3.3.1-rc1.out")
check "... with the same symptoms (${direct_symptoms:-none})" \
	bash -c "[ -n '$direct_symptoms' ] && [ '$direct_symptoms' = '$(symptoms "$work/lava-v3.3.1-rc1.out")' ]"
lava_run_dir=$(dirname "$(grep -l "^job " "$state"/runs/*/lava.txt | tail -n 1)")
check "... LAVA's device ran the build, its release and this run's marker checked first" \
	grep -q "^RACKBISECT-BOOTED ok: .*rc1.* with rackbisect.run=$(basename "$lava_run_dir")$" \
	"$lava_run_dir/console.log"
check "... and the build's copy for LAVA's devices is gone once the runs ended" \
	bash -c "[ -z \"\$(ls -A '$work/artifacts')\" ]"

# A short bisect through LAVA, from the c1afdaff backport's parent to the
# next commit that builds after it (a state of its own: no evidence from the
# runs above): each of its runs a LAVA job booting that commit's build.
# --deterministic: 20 W3 cycles at about 45 % each fail on every bad kernel,
# and this is about LAVA's plumbing, not the learning of rates (the learned
# way, its confirmation alone is some ten runs, 90 s each on the board the
# backport hangs: test_bisect_lab and test_bisect_noisy_lab learn them).
culprit=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["culprits"]["linux-3.3.y"])' \
	"$work/truth.json")
# the ends: commits that build (the scenario breaks the build here and there)
builds() {
	python3 -c 'import json, sys
broken = {c for b in json.load(open(sys.argv[1]))["build_breaks"] for c in b["broken_commits"]}
print(next(c for c in sys.stdin.read().split() if c not in broken))' "$work/truth.json"
}
good=$(git -C "$work/tree" rev-parse "$culprit^")
bad=$(git -C "$work/tree" rev-list --reverse --ancestry-path "$culprit..v3.3.1-rc1" | builds)
started=$SECONDS
RB_LAVA_TOKEN=$LAVA_TOKEN timeout 900 "$rb" bisect "$work/job-w3.yaml" --lab "$work/lava-two.yaml" \
	--state "$work/bisect-state" --tree "$work/tree" --good "$good" --bad "$bad" --deterministic \
	>"$work/bisect.out" 2>"$work/bisect.err"
status=$?
grep -h '^job ' "$work/bisect-state"/runs/*/lava.txt 2>/dev/null | cut -d' ' -f2 >>"$work/job-ids"
echo "# the bisect through LAVA took $((SECONDS - started)) s"
check "a short bisect through LAVA ends on the c1afdaff backport (exit 1)" \
	bash -c "[ $status -eq 1 ] && grep -q '^first bad commit: $culprit' '$work/bisect.out'"
check "... each of its runs a LAVA job ($(grep -c 'event=lava-submitted' "$work/bisect.err") of them)" \
	bash -c "[ \$(grep -c 'event=lava-submitted' '$work/bisect.err') -ge 3 ] &&
		[ \$(grep -c 'event=lava-submitted' '$work/bisect.err') -eq \$(grep -c '^board=la0[12] run=[0-9]* event=done' '$work/bisect.err') ]"
# most jobs running at once, from the bisect's own events
in_flight=$(awk '/event=lava-running/ { n++; if (n > most) most = n }
	/^board=la0[12] run=[0-9]* event=done/ { if (n > 0) n-- } END { print most + 0 }' "$work/bisect.err")
check "... two of them running in LAVA at once, one per device ($in_flight)" test "$in_flight" -ge 2

# Stopping rackbisect (Ctrl-C) cancels its jobs in LAVA before it ends: a
# stopped coordinator leaves no device busy with a job nobody reads.
mkfifo "$work/running"
RB_LAVA_TOKEN=$LAVA_TOKEN "$rb" run "$work/job-w3.yaml" --lab "$lava_lab" --state "$state" \
	--tree "$work/tree" --commit v3.3 >"$work/stop.out" \
	2> >(tee "$work/stop.err" | { line_awk '/event=lava-running/ { seen = 1; exit }
		END { print seen ? "seen" : "ended" }' >"$work/running"; cat >/dev/null; }) &
stopped=$!
event=$(timeout 300 cat "$work/running")
check "a run's job reaches LAVA's device" test "$event" = seen
kill -INT "$stopped"
wait "$stopped"
status=$?
stopped_job=$(sed -n 's/.*as LAVA job \([0-9]*\)"$/\1/p' "$work/stop.err" | tail -n 1)
echo "$stopped_job" >>"$work/job-ids"
check "Ctrl-C: rackbisect stops (exit 130)" test "$status" -eq 130
check "... canceling its LAVA job ($stopped_job) first" \
	bash -c "grep -q 'event=lava-cancel detail=\"canceling 1 LAVA job' '$work/stop.err' &&
		grep -q 'event=lava-canceled detail=\"LAVA took the cancels' '$work/stop.err'"
job_canceled() { lava_api GET "/api/v0.2/jobs/$stopped_job/" | grep -q '"health": *"Canceled"'; }
_lava_wait 120 "LAVA job $stopped_job canceled" job_canceled
check "... which LAVA ends Canceled" test $? -eq 0

# The board's sshd gone: LAVA cannot reach its device, the job ends
# Incomplete with an Infrastructure error, and the run is INFRA (retried).
"$vlab" power --lab "$vlab_file" --state "$state" lv01 off >"$work/off.out" 2>&1
RB_LAVA_TOKEN=$LAVA_TOKEN timeout 900 "$rb" run "$work/job.yaml" --lab "$lava_lab" \
	--state "$state" --tree "$work/tree" --commit v3.3 >"$work/infra.out" 2>"$work/infra.err"
status=$?
grep -h '^job ' "$state"/runs/*/lava.txt 2>/dev/null | cut -d' ' -f2 >>"$work/job-ids"
check "an unreachable device: rackbisect run exits 3 (lab trouble)" test "$status" -eq 3
check "... the runs are INFRA, naming LAVA's job and its Infrastructure error" \
	bash -c "grep -q 'INFRA' '$work/infra.out' && grep -q 'LAVA job [0-9]* on lava-lv01 ended Incomplete (Infrastructure error)' '$work/infra.out' '$work/infra.err'"
check "... and were retried" bash -c "[ \$(grep -c 'event=lava-submitted' '$work/infra.err') -ge 2 ]"

# A job LAVA refuses (no device of its type): INFRA naming LAVA's reason,
# and not sent again, here or elsewhere: no retry can mend it.
sed 's/device_type: ssh/device_type: no-such-type/' "$lava_lab" >"$work/bad-type.yaml"
RB_LAVA_TOKEN=$LAVA_TOKEN timeout 300 "$rb" run "$work/job.yaml" --lab "$work/bad-type.yaml" \
	--state "$state" --tree "$work/tree" --commit v3.3 >"$work/refused.out" 2>"$work/refused.err"
check "a job LAVA refuses: exit 3, naming LAVA's reason" \
	bash -c "[ $? -eq 3 ] && grep -q \"Device type 'no-such-type' is unavailable\" '$work/refused.out'"
check "... and it is not sent again (one run)" \
	bash -c "[ \$(grep -c 'event=done' '$work/refused.err') -eq 1 ]"

bad_lab=$work/bad-token.yaml
sed 's/token_env: RB_LAVA_TOKEN/token_env: RB_NO_SUCH_TOKEN/' "$lava_lab" >"$bad_lab"
"$rb" run "$work/job.yaml" --lab "$bad_lab" --state "$state" --tree "$work/tree" --commit v3.3 \
	>"$work/notoken.out" 2>&1
check "no token: exit 2, saying which variable to set" \
	bash -c "[ $? -eq 2 ] && grep -q 'RB_NO_SUCH_TOKEN (lava token_env) is not set' '$work/notoken.out'"

exit $((failures > 0))
