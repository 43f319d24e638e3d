#!/usr/bin/env bash
# lava_probe.sh - run a real LAVA (see lava_env.sh) against a private sshd
# "board" and record real REST API responses under tests/data/lava/ for the
# LAVA backend's unit tests (issue 8). Standalone, not part of `make check`.
#
#   sudo bash tests/integration/lava_probe.sh [OUTDIR]
#
# OUTDIR defaults to tests/data/lava. Work files go to $LAVA_PROBE_WORKDIR
# (default: a fresh /tmp/rb-lava-probe.XXXXXX, removed on success unless
# LAVA_PROBE_KEEP=1). Listeners: LAVA on 127.77.17.1 (8017 http, 8018 ws,
# 5517 zmq), sshd on 127.77.17.2:2222. Everything started is stopped by PID.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$HERE/../data/lava}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# shellcheck source=lava_env.sh
. "$HERE/lava_env.sh"

SSH_ADDR=127.77.17.2
SSH_PORT=2222
DEVICE=rb-ssh-01
JOB_TIMEOUT=${LAVA_PROBE_JOB_TIMEOUT:-300}
W=${LAVA_PROBE_WORKDIR:-$(mktemp -d /tmp/rb-lava-probe.XXXXXX)}
SSHD_PID=
JOB_IDS=()
ok=0

cleanup() {
	local rc=$?
	set +e
	if [ -n "$SSHD_PID" ]; then _lava_stop_pids TERM "SSHD:$SSHD_PID"; SSHD_PID=; fi
	lava_stop "$W"
	# LAVA's ssh deploy unpacks the job overlay into /lava-<id> on the "DUT",
	# which here is this machine: remove what our jobs created.
	local id
	for id in "${JOB_IDS[@]}"; do
		rm -rf "/lava-$id" /lava-"$id"-overlay-*.tar.gz
	done
	if [ $ok = 1 ] && [ "${LAVA_PROBE_KEEP:-0}" != 1 ] && [ -z "${LAVA_PROBE_WORKDIR:-}" ]; then
		rm -rf "$W"
	else
		echo "# work files kept in $W" >&2
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "# $*"; }
fail() { echo "not ok - $*" >&2; exit 1; }
json_get() { python3 -c 'import json,sys; d=json.load(sys.stdin)
for k in sys.argv[1].split("."): d=d[int(k)] if isinstance(d,list) else d[k]
print(d)' "$1"; }
pretty() { python3 -m json.tool --no-ensure-ascii --indent 2; }

T0=$SECONDS
lava_install || fail "lava_install"
T_INSTALL=$((SECONDS - T0))

T1=$SECONDS
lava_start "$W" || fail "lava_start"
T_START=$((SECONDS - T1))

# ---- a private sshd as the "board" ------------------------------------------
mkdir -p "$W/ssh"
ssh-keygen -q -t ed25519 -N '' -C rb-lava-host -f "$W/ssh/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -C rb-lava-client -f "$W/ssh/id_ed25519"
cp "$W/ssh/id_ed25519.pub" "$W/ssh/authorized_keys"
cat >"$W/ssh/sshd_config" <<EOF
ListenAddress $SSH_ADDR:$SSH_PORT
HostKey $W/ssh/host_ed25519
PidFile $W/ssh/sshd.pid
AuthorizedKeysFile $W/ssh/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
PrintLastLog no
Subsystem sftp internal-sftp
EOF
# sshd insists on its privilege separation directory (normally made by the
# init script / tmpfiles.d).
mkdir -p /run/sshd && chmod 755 /run/sshd
/usr/sbin/sshd -t -f "$W/ssh/sshd_config" || fail "sshd config"
setsid /usr/sbin/sshd -D -e -f "$W/ssh/sshd_config" </dev/null >>"$W/logs/sshd.log" 2>&1 &
SSHD_PID=$!
SSH=(ssh -i "$W/ssh/id_ed25519" -p "$SSH_PORT" -o BatchMode=yes
	-o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR
	-o ConnectTimeout=5 "root@$SSH_ADDR")
_lava_wait 30 "sshd on $SSH_ADDR:$SSH_PORT" "${SSH[@]}" true || fail "sshd did not come up"
say "sshd up, pid $SSHD_PID"

lava_add_ssh_device "$DEVICE" "$SSH_ADDR" "$SSH_PORT" root "$W/ssh/id_ed25519" ||
	fail "lava_add_ssh_device"
say "device $DEVICE registered"

# ---- job definitions ----------------------------------------------------------
cat >"$OUT/job-ssh.yaml" <<'EOF'
device_type: ssh
job_name: rackbisect lava probe - ssh target
timeouts:
  job:
    minutes: 10
  action:
    minutes: 3
  connection:
    minutes: 2
priority: medium
visibility: public
metadata:
  rackbisect.kernel: v3.3.1-rc1
  rackbisect.board: rb-ssh-01
actions:
- deploy:
    to: ssh
    os: debian
    timeout:
      minutes: 2
- boot:
    method: ssh
    connection: ssh
    prompts:
    - 'root@'
    timeout:
      minutes: 2
- test:
    timeout:
      minutes: 5
    definitions:
    - from: inline
      name: rb-probe
      path: inline/rb-probe.yaml
      repository:
        metadata:
          format: Lava-Test Test Definition 1.0
          name: rb-probe
          description: rackbisect LAVA probe (pass, fail, skip, measurement, KTAP)
        run:
          steps:
          - lava-test-case rb-pass --result pass
          - lava-test-case rb-fail --result fail
          - lava-test-case rb-skip --result skip
          - lava-test-case rb-power --result pass --measurement 12.5 --units mW
          - 'echo "KTAP version 1"'
          - 'echo "1..3"'
          - 'echo "ok 1 ath9k_ps_idle"'
          - 'echo "not ok 2 ath9k_ps_traffic"'
          - 'echo "ok 3 ath9k_scan # SKIP no AR9xxx card"'
          - uname -r
EOF
# Rejected at submission: no device_type.
cat >"$OUT/job-invalid.yaml" <<'EOF'
job_name: rackbisect lava probe - invalid
timeouts:
  job:
    minutes: 10
priority: medium
visibility: public
actions:
- deploy:
    to: ssh
EOF
# Schema-invalid (unknown deploy method) but with a device_type: the
# validate endpoint rejects it, yet POST /jobs/ accepts it (201).
cat >"$OUT/job-schema-invalid.yaml" <<'EOF'
device_type: ssh
job_name: rackbisect lava probe - schema invalid
timeouts:
  job:
    minutes: 10
priority: medium
visibility: public
actions:
- deploy:
    to: nowhere
EOF

defjson() { python3 -c 'import json,sys; print(json.dumps({"definition": open(sys.argv[1]).read()}))' "$1"; }

# api_save METHOD PATH OUTFILE [json-body-file]: call, save body, print status.
api_save() {
	local method=$1 path=$2 out=$3 body=${4:-} code
	local args=(-sS --max-time 60 -o "$out.raw" -w '%{http_code}' -X "$method"
		-H "Authorization: Token $LAVA_TOKEN" -H 'Accept: application/json')
	[ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "@$body")
	code=$(curl "${args[@]}" "$LAVA_URL$path")
	case $out in
	*.json) if pretty <"$out.raw" >"$out" 2>/dev/null; then rm -f "$out.raw"; else mv "$out.raw" "$out"; fi ;;
	*) mv "$out.raw" "$out" ;;
	esac
	echo "$code"
}

record() { printf '%-28s HTTP %s  %s %s\n' "$1" "$2" "$3" "$4" >>"$W/status.txt"; }
: >"$W/status.txt"

# wait_job ID: poll the job until state Finished (bounded); echo seconds.
wait_job() {
	local id=$1 t=$SECONDS deadline=$((SECONDS + JOB_TIMEOUT)) state
	while :; do
		state=$(lava_api GET "/api/v0.2/jobs/$id/" | json_get state 2>/dev/null || true)
		[ "$state" = Finished ] && break
		((SECONDS < deadline)) || fail "job $id not Finished after ${JOB_TIMEOUT}s (state: $state)"
		sleep 0.5
	done
	echo $((SECONDS - t))
}

submit() { # submit YAML OUTFILE -> prints job id (or nothing)
	defjson "$1" >"$W/submit.json"
	local code
	code=$(api_save POST /api/v0.2/jobs/ "$2" "$W/submit.json")
	record "$(basename "$2")" "$code" POST /api/v0.2/jobs/
	[ "$code" = 201 ] || { echo "submit $1: HTTP $code: $(cat "$2")" >&2; return 1; }
	json_get job_ids.0 <"$2"
}

# ---- validate endpoint (no auth needed: AllowAny) ------------------------------
defjson "$OUT/job-ssh.yaml" >"$W/v1.json"
c=$(api_save POST /api/v0.2/jobs/validate/ "$OUT/validate-valid.json" "$W/v1.json")
record validate-valid.json "$c" POST /api/v0.2/jobs/validate/
defjson "$OUT/job-schema-invalid.yaml" >"$W/v2.json"
c=$(api_save POST /api/v0.2/jobs/validate/ "$OUT/validate-invalid.json" "$W/v2.json")
record validate-invalid.json "$c" POST /api/v0.2/jobs/validate/

# ---- 1: a job that completes ------------------------------------------------------
T2=$SECONDS
id=$(submit "$OUT/job-ssh.yaml" "$OUT/submit-response.json") || fail "submit job-ssh.yaml"
JOB_IDS+=("$id")
say "job $id submitted"
T_JOB=$(wait_job "$id")
T_JOB_TOTAL=$((SECONDS - T2))
for pair in "/:job-complete.json" "/tests/:tests-complete.json" "/suites/:suites-complete.json" \
	"/junit/:junit-complete.xml" "/logs/:logs-complete.yaml"; do
	c=$(api_save GET "/api/v0.2/jobs/$id${pair%%:*}" "$OUT/${pair#*:}")
	record "${pair#*:}" "$c" GET "/api/v0.2/jobs/$id${pair%%:*}"
done
# pagination of the nested tests listing (limit/offset, ordering by id)
c=$(api_save GET "/api/v0.2/jobs/$id/tests/?limit=3&offset=3&ordering=id" "$OUT/tests-complete-page2.json")
record tests-complete-page2.json "$c" GET "/api/v0.2/jobs/$id/tests/?limit=3&offset=3&ordering=id"
c=$(api_save GET "/api/v0.2/jobs/$id/tests/?result=fail" "$OUT/tests-complete-fail.json")
record tests-complete-fail.json "$c" GET "/api/v0.2/jobs/$id/tests/?result=fail"
health=$(json_get health <"$OUT/job-complete.json")
say "job $id: Finished/$health in ${T_JOB}s"
[ "$health" = Complete ] || { tail -n 40 "$OUT/logs-complete.yaml" >&2; fail "job $id health $health"; }
grep -q '"name": "rb-power"' "$OUT/tests-complete.json" || fail "rb-power missing from tests"
grep -q '"measurement": "12.5' "$OUT/tests-complete.json" || fail "measurement missing"

# ---- 1b: a job canceled while running -------------------------------------------
sed -e 's/^job_name: .*/job_name: rackbisect lava probe - canceled/' \
	-e 's/^          - uname -r$/          - sleep 90/' "$OUT/job-ssh.yaml" >"$OUT/job-cancel.yaml"
grep -q 'sleep 90' "$OUT/job-cancel.yaml" || fail "job-cancel.yaml"
idc=$(submit "$OUT/job-cancel.yaml" "$W/submit-c.json") || fail "submit job-cancel.yaml"
JOB_IDS+=("$idc")
# wait until the test shell runs on the board (its log shows the sleep), bounded
deadline=$((SECONDS + JOB_TIMEOUT))
until lava_api GET "/api/v0.2/jobs/$idc/logs/" | grep -q '+ sleep 90'; do
	((SECONDS < deadline)) || fail "job $idc never reached its sleep step"
	sleep 0.5
done
c=$(api_save GET "/api/v0.2/jobs/$idc/" "$OUT/job-running.json")
record job-running.json "$c" GET "/api/v0.2/jobs/$idc/ (while running)"
c=$(api_save GET "/api/v0.2/jobs/$idc/cancel/" "$OUT/cancel-response.json")
record cancel-response.json "$c" GET "/api/v0.2/jobs/$idc/cancel/"
T_JOBC=$(wait_job "$idc")
c=$(api_save GET "/api/v0.2/jobs/$idc/" "$OUT/job-canceled.json")
record job-canceled.json "$c" GET "/api/v0.2/jobs/$idc/"
healthc=$(json_get health <"$OUT/job-canceled.json")
say "job $idc: Finished/$healthc ${T_JOBC}s after cancel"
[ "$healthc" = Canceled ] || fail "job $idc health $healthc, expected Canceled"

# ---- 1c: a job whose test action times out (error on the job side) -----------
sed -e 's/^job_name: .*/job_name: rackbisect lava probe - test timeout/' \
	-e 's/^          - uname -r$/          - sleep 90/' \
	-e 's/^      minutes: 5$/      seconds: 10/' "$OUT/job-ssh.yaml" >"$OUT/job-timeout.yaml"
grep -q 'seconds: 10' "$OUT/job-timeout.yaml" || fail "job-timeout.yaml"
idt=$(submit "$OUT/job-timeout.yaml" "$W/submit-t.json") || fail "submit job-timeout.yaml"
JOB_IDS+=("$idt")
T_JOBT=$(wait_job "$idt")
c=$(api_save GET "/api/v0.2/jobs/$idt/" "$OUT/job-timeout.json")
record job-timeout.json "$c" GET "/api/v0.2/jobs/$idt/"
c=$(api_save GET "/api/v0.2/jobs/$idt/tests/" "$OUT/tests-timeout.json")
record tests-timeout.json "$c" GET "/api/v0.2/jobs/$idt/tests/"
healtht=$(json_get health <"$OUT/job-timeout.json")
say "job $idt: Finished/$healtht in ${T_JOBT}s (test timeout)"
[ "$healtht" = Incomplete ] || fail "job $idt health $healtht, expected Incomplete"

# ---- 1d: the schema-invalid definition, submitted anyway ------------------------
ids=$(submit "$OUT/job-schema-invalid.yaml" "$OUT/submit-schema-invalid.json") ||
	fail "submit job-schema-invalid.yaml"
JOB_IDS+=("$ids")
T_JOBS=$(wait_job "$ids")
c=$(api_save GET "/api/v0.2/jobs/$ids/" "$OUT/job-schema-invalid.json")
record job-schema-invalid.json "$c" GET "/api/v0.2/jobs/$ids/"
c=$(api_save GET "/api/v0.2/jobs/$ids/tests/" "$OUT/tests-schema-invalid.json")
record tests-schema-invalid.json "$c" GET "/api/v0.2/jobs/$ids/tests/"
c=$(api_save GET "/api/v0.2/jobs/$ids/logs/" "$OUT/logs-schema-invalid.yaml")
record logs-schema-invalid.yaml "$c" GET "/api/v0.2/jobs/$ids/logs/"
say "job $ids: Finished/$(json_get health <"$OUT/job-schema-invalid.json") in ${T_JOBS}s (schema-invalid definition)"

# ---- 2: a job that fails for an infrastructure reason (board unreachable) -----
_lava_stop_pids TERM "SSHD:$SSHD_PID"; SSHD_PID=
id2=$(submit "$OUT/job-ssh.yaml" "$W/submit-2.json") || fail "submit 2"
JOB_IDS+=("$id2")
T_JOB2=$(wait_job "$id2")
c=$(api_save GET "/api/v0.2/jobs/$id2/" "$OUT/job-incomplete.json")
record job-incomplete.json "$c" GET "/api/v0.2/jobs/$id2/"
c=$(api_save GET "/api/v0.2/jobs/$id2/logs/" "$OUT/logs-incomplete.yaml")
record logs-incomplete.yaml "$c" GET "/api/v0.2/jobs/$id2/logs/"
c=$(api_save GET "/api/v0.2/jobs/$id2/tests/" "$OUT/tests-incomplete.json")
record tests-incomplete.json "$c" GET "/api/v0.2/jobs/$id2/tests/"
health2=$(json_get health <"$OUT/job-incomplete.json")
say "job $id2: Finished/$health2 in ${T_JOB2}s"
[ "$health2" = Incomplete ] || fail "job $id2 health $health2, expected Incomplete"
c=$(api_save GET "/api/v0.2/devices/$DEVICE/" "$OUT/device-after-incomplete.json")
record device-after-incomplete.json "$c" GET "/api/v0.2/devices/$DEVICE/"

# ---- 3: a rejected submission, and an unauthenticated one ---------------------------
defjson "$OUT/job-invalid.yaml" >"$W/inv.json"
c=$(api_save POST /api/v0.2/jobs/ "$OUT/submit-invalid.json" "$W/inv.json")
record submit-invalid.json "$c" POST /api/v0.2/jobs/
[ "${c:0:1}" = 4 ] || fail "invalid submission got HTTP $c"
printf '{"definition": "device_type: [ssh\\njob_name: x\\n"}' >"$W/badyaml.json"
c=$(api_save POST /api/v0.2/jobs/ "$OUT/submit-bad-yaml.json" "$W/badyaml.json")
record submit-bad-yaml.json "$c" "POST /api/v0.2/jobs/" "(definition is not YAML)"
sed 's/^device_type: .*/device_type: no-such-type/' "$OUT/job-ssh.yaml" >"$W/nodt.yaml"
defjson "$W/nodt.yaml" >"$W/nodt.json"
c=$(api_save POST /api/v0.2/jobs/ "$OUT/submit-unknown-device-type.json" "$W/nodt.json")
record submit-unknown-device-type.json "$c" "POST /api/v0.2/jobs/" "(device_type: no-such-type)"
c=$(api_save GET /api/v0.2/jobs/999999/ "$OUT/job-not-found.json")
record job-not-found.json "$c" GET /api/v0.2/jobs/999999/
c=$(LAVA_TOKEN=not-a-token api_save POST /api/v0.2/jobs/ "$OUT/submit-badtoken.json" "$W/v1.json")
record submit-badtoken.json "$c" POST "/api/v0.2/jobs/ (Authorization: Token not-a-token)"
c=$(api_save GET "/api/v0.2/jobs/?limit=1&ordering=-id" "$OUT/jobs-list-limit1.json")
record jobs-list-limit1.json "$c" GET "/api/v0.2/jobs/?limit=1&ordering=-id"

# Trim huge logs (keep head and tail, valid YAML line boundaries).
for f in "$OUT"/logs-*.yaml; do
	if [ "$(stat -c %s "$f")" -ge 60000 ]; then
		{ head -c 30000 "$f" | sed '$d'; echo '# ... trimmed by lava_probe.sh ...'; tail -c 28000 "$f" | sed '1d'; } >"$f.t"
		mv "$f.t" "$f"
	fi
done

{
	echo "recorded: $(date -u +%Y-%m-%dT%H:%M:%SZ) by tests/integration/lava_probe.sh"
	echo "lava: GET /api/v0.2/system/version/ -> $(lava_api GET /api/v0.2/system/version/)"
	echo "debian packages: $(dpkg-query -W -f='${Package} ${Version}  ' lava-server lava-dispatcher postgresql-15 openssh-server)"
	echo "jobs: complete=$id canceled=$idc test-timeout=$idt schema-invalid=$ids infrastructure-incomplete=$id2"
	echo "timings: install ${T_INSTALL}s, lava_start ${T_START}s, complete job submit-to-Finished ${T_JOB_TOTAL}s, cancel-to-Finished ${T_JOBC}s, test-timeout job ${T_JOBT}s, schema-invalid job ${T_JOBS}s, infrastructure-incomplete job submit-to-Finished ${T_JOB2}s"
	echo "HTTP statuses:"
	cat "$W/status.txt"
} >"$OUT/probe-run.txt"
cat "$OUT/probe-run.txt"
ok=1
echo "ok - lava probe (install ${T_INSTALL}s, start ${T_START}s, job ${T_JOB_TOTAL}s)"
