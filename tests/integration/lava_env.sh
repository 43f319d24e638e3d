# shellcheck shell=bash
# lava_env.sh - bring a real LAVA (Debian 12 lava-server/lava-dispatcher
# 2023.01) up and down on this machine for integration tests (issue 8).
#
# SOURCE this file, then:
#   lava_install                 install the Debian packages if missing
#   lava_start WORKDIR           private PostgreSQL + LAVA web/REST + scheduler
#                                + publisher + worker; exports LAVA_URL,
#                                LAVA_TOKEN, LAVA_USER (superuser; LAVA_PASSWORD),
#                                LAVA_WORKDIR, LAVA_{PG,PUBLISHER,GUNICORN,
#                                SCHEDULER,WORKER}_PID and LAVA_PIDS
#   lava_api METHOD PATH [curl args]   authenticated REST call (body on stdout)
#   lava_add_ssh_device NAME HOST PORT USER IDENTITY_FILE [TAG...]
#                                a device of type ssh (with those tags); its connection_command
#                                (the same ssh) and the minimal boot method let
#                                a job log in again after a kexec (job.h)
#   lava_serve_artifacts DIR PORT   a web server showing DIR (python3 http.server)
#   lava_stop [WORKDIR]          stop (by PID) everything lava_start started
# Callers should `trap lava_stop EXIT` right after sourcing.
#
# Design notes (what was found while building this on Debian 12):
# * No systemd: every daemon is started here, each with `setsid` so that it
#   leads its own process group (the recorded PID is the daemon itself, and
#   lava_stop can also reap its children - gunicorn workers, lava-run - by
#   that group id). Command lines are those of the packages' units:
#     lava-server-gunicorn.service: gunicorn3 lava_server.wsgi -u lavaserver
#         -g lavaserver --worker-class eventlet --workers N --bind ...
#     lava-scheduler.service: lava-server manage lava-scheduler --event-url ...
#     lava-publisher.service: lava-server manage lava-publisher --host --port
#     lava-worker.service:    lava-worker --url --token --name ...
# * lava-server's postinst (/usr/share/lava-server/postinst.py) does NOT fail
#   without PostgreSQL: it runs `pg_isready` (default socket
#   /var/run/postgresql:5432) and, when that fails, prints "Skipping database
#   creation as PostgreSQL is not running", skips writing
#   /etc/lava-server/settings.d/00-database.yaml and skips migrations. dpkg
#   ends with every package configured (no `dpkg --configure -a` needed).
#   If a system PostgreSQL WERE running, the postinst would create role and DB
#   "lavaserver" in it and write 00-database.yaml: lava_install prevents that
#   by running apt with PGHOST/PGPORT pointing at nothing, so pg_isready fails.
# * The postinst writes /etc/lava-server/settings.d/00-secret-key.yaml (kept).
# * Nothing at all is written under /etc/lava-server or /etc/lava-dispatcher
#   by this library: lava_server/settings/prod.py reads LAVA_SETTINGS_<NAME>
#   and LAVA_YAML_SETTINGS_<NAME> environment variables last, so DATABASES,
#   DEVICES_PATH, DEVICE_TYPES_PATHS, HEALTH_CHECKS_PATH, MEDIA_ROOT (job
#   logs), DJANGO_LOGFILE and the event sockets all point into WORKDIR. They
#   live in WORKDIR/lava.env and are given only to the processes we start.
# * The worker polls the server (--ping-interval); the scheduler runs every
#   20 s unless an event (job submitted, device idle) arrives from
#   lava-publisher, so the publisher is started too (ZMQ on 127.77.17.1:5517,
#   websocket on 127.77.17.1:8018) and jobs are scheduled within ~1 s.
# * PostgreSQL listens on NO TCP port: unix socket in WORKDIR/pgsock (port
#   number 5417 only names the socket file), scram password for lavaserver.
#   fsync is off: the cluster is thrown away.
# * Outside WORKDIR the only things touched are: the packages (their postinst
#   creates user lavaserver, /etc/lava-server/settings.d/00-secret-key.yaml,
#   /var/lib/lava-server, /var/log/lava-server and enables - but cannot start -
#   systemd units), lava-run's per-job scratch dir /var/lib/lava/dispatcher/tmp/<id>
#   (hard-coded, removed by lava-run at job end), /run/sshd (lava_probe.sh), and
#   on the "DUT" side LAVA ssh jobs unpack their overlay into /lava-<jobid>
#   (lava_probe.sh removes it: the DUT is this machine).
# * Every daemon gets its PID recorded with its start time in WORKDIR/pids;
#   lava_stop only signals a PID whose start time still matches.

LAVA_ADDR=${LAVA_ADDR:-127.77.17.1}
LAVA_HTTP_PORT=${LAVA_HTTP_PORT:-8017}
LAVA_WS_PORT=${LAVA_WS_PORT:-8018}
LAVA_EVENT_PORT=${LAVA_EVENT_PORT:-5517}
LAVA_PG_PORT=${LAVA_PG_PORT:-5417}
LAVA_USER=${LAVA_USER:-rbtest}
LAVA_WORKER_NAME=${LAVA_WORKER_NAME:-rbworker}
# Each start-up wait's bound, in seconds. Alone LAVA is up in about 15 s; at
# the start of make check it shares 2 cores with six other lanes and the unit
# tests, and a 60-90 s bound was once missed there (CI, 70ddf42). A bound
# costs nothing when LAVA is up sooner.
LAVA_START_LIMIT=${LAVA_START_LIMIT:-300}
LAVA_PACKAGES="lava-server lava-dispatcher"
LAVA_BASE_PACKAGES="postgresql openssh-server openssh-client curl python3"

_lava_log() { echo "# lava: $*" >&2; }

# _lava_wait SECONDS DESCRIPTION CMD...: run CMD until it succeeds, bounded.
_lava_wait() {
	local secs=$1 what=$2; shift 2
	local deadline=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		if ((SECONDS >= deadline)); then
			_lava_log "timeout (${secs}s) waiting for $what"
			return 1
		fi
		sleep 0.2
	done
}

_lava_missing_packages() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
			echo "$p"
	done
}

# shellcheck disable=SC2086 # the package lists are meant to be split
lava_install() {
	local t0=$SECONDS missing_base missing_lava made_policy='' rc=0 log
	missing_base=$(_lava_missing_packages $LAVA_BASE_PACKAGES)
	missing_lava=$(_lava_missing_packages $LAVA_PACKAGES)
	if [ -z "$missing_base$missing_lava" ] && [ -z "$(dpkg --audit 2>/dev/null)" ]; then
		echo "# lava packages already installed"
		return 0
	fi
	log=$(mktemp /tmp/rb-lava-install.XXXXXX.log)
	# Package scripts must not start services: with no policy-rc.d,
	# postgresql's postinst would start the system cluster, and uuid-runtime
	# and mdadm (pulled in by lava-dispatcher) their daemons, via invoke-rc.d.
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\n# temporary, rackbisect lava_install\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	local DEBIAN_FRONTEND=noninteractive
	export DEBIAN_FRONTEND
	local apt=(apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=300
		-o Dpkg::Options::=--force-confold)
	# --no-install-recommends: lava-server recommends apache2 and
	# lava-dispatcher recommends qemu, nfs, tftpd, lxc, ... - none needed.
	_lava_apt() { # try with the current lists, then once more after an update
		"${apt[@]}" "$@" >>"$log" 2>&1 && return 0
		apt-get update -q -o DPkg::Lock::Timeout=300 >>"$log" 2>&1 || return 1
		"${apt[@]}" "$@" >>"$log" 2>&1
	}
	if [ -n "$missing_base" ]; then
		# shellcheck disable=SC2086
		_lava_apt $missing_base || rc=1
	fi
	if [ $rc = 0 ] && [ -n "$missing_lava" ]; then
		# PGHOST/PGPORT point at nothing so lava-server's postinst sees "no
		# PostgreSQL" even if a system cluster runs, and never touches it.
		PGHOST=/nonexistent PGPORT=1 _lava_apt $LAVA_PACKAGES || rc=1
	fi
	# Half-configured packages (e.g. an earlier interrupted install): retry.
	if [ -n "$(dpkg --audit 2>/dev/null)" ]; then
		PGHOST=/nonexistent PGPORT=1 dpkg --configure -a >>"$log" 2>&1 || rc=1
	fi
	if [ -n "$made_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
	if [ $rc != 0 ] || [ -n "$(_lava_missing_packages $LAVA_BASE_PACKAGES $LAVA_PACKAGES)" ]; then
		tail -n 40 "$log" >&2
		_lava_log "package installation failed, full log: $log"
		return 1
	fi
	rm -f "$log"
	echo "# lava packages installed in $((SECONDS - t0)) s"
}

# Run a command with the LAVA settings of this instance (subshell: the
# caller's environment is not touched).
_lava_run() { (set -a; . "$LAVA_WORKDIR/lava.env"; set +a; exec "$@"); }
# Same, as the lavaserver user (one-shot `lava-server manage` commands).
_lava_manage() {
	_lava_run setpriv --reuid=lavaserver --regid=lavaserver --init-groups \
		lava-server manage "$@"
}

# _lava_spawn NAME LOGFILE CMD...: start a daemon in its own session/process
# group, record its PID in LAVA_<NAME>_PID, LAVA_PIDS and WORKDIR/pids.
_lava_spawn() {
	local name=$1 log=$2; shift 2
	# In a script (no job control) the background subshell shares our process
	# group, so setsid execs in place without forking; under `set -m` the job
	# already leads its own group and we exec directly. Either way $! is the
	# daemon's PID and also its process group id.
	(
		set -a; . "$LAVA_WORKDIR/lava.env"; set +a
		read -r _ _ _ _ pgrp _ </proc/$BASHPID/stat
		if [ "$pgrp" = "$BASHPID" ]; then exec "$@"; else exec setsid "$@"; fi
	) </dev/null >>"$log" 2>&1 &
	local pid=$!
	printf -v "LAVA_${name}_PID" '%s' "$pid"
	export "LAVA_${name}_PID"
	LAVA_PIDS="$LAVA_PIDS $pid"
	export LAVA_PIDS
	echo "$name $pid $(_lava_starttime "$pid")" >>"$LAVA_WORKDIR/pids"
}

# Start time (clock ticks since boot) of a PID: with the PID it identifies
# the process even if the PID is later reused.
_lava_starttime() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return 0; }
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	echo "${20}"
}

_lava_alive() { kill -0 "$1" 2>/dev/null; }

_lava_http_ok() { curl -fsS -o /dev/null --max-time 5 "$1"; }

_lava_rand() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

lava_start() {
	local W=${1:?usage: lava_start WORKDIR}
	local t0=$SECONDS pgbin
	mkdir -p "$W" || return 1
	W=$(cd "$W" && pwd)
	export LAVA_WORKDIR=$W
	# A previous instance in this WORKDIR still running? Stop it first.
	lava_stop "$W"
	LAVA_PIDS=
	: >"$W/pids"
	# The daemons run as postgres / lavaserver and must traverse WORKDIR.
	chmod 755 "$W"
	if ! setpriv --reuid=postgres --regid=postgres --init-groups test -x "$W"; then
		_lava_log "$W is not reachable by user postgres (a parent dir is not o+x)"
		return 1
	fi
	if _lava_http_ok "http://$LAVA_ADDR:$LAVA_HTTP_PORT/" 2>/dev/null; then
		_lava_log "something already listens on $LAVA_ADDR:$LAVA_HTTP_PORT"
		return 1
	fi
	rm -rf "$W/pg" "$W/pgsock" "$W/lava" "$W/worker"
	mkdir -p "$W/pg" "$W/pgsock" "$W/logs" "$W/worker" \
		"$W/lava/media/job-output" "$W/lava/devices" "$W/lava/device-types" \
		"$W/lava/health-checks" "$W/lava/dispatcher.d"
	chown postgres:postgres "$W/pg" "$W/pgsock"
	chmod 700 "$W/pg"
	chown -R lavaserver:lavaserver "$W/lava"
	touch "$W/logs/django.log"
	chown lavaserver:lavaserver "$W/logs" "$W/logs/django.log"

	# ---- PostgreSQL: private cluster, unix socket only -------------------
	pgbin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n1)
	[ -x "$pgbin/initdb" ] || { _lava_log "no PostgreSQL server binaries"; return 1; }
	runuser -u postgres -- "$pgbin/initdb" -D "$W/pg/data" -U postgres \
		-E UTF8 --locale=C.UTF-8 --auth-local=peer --auth-host=reject \
		--no-sync >"$W/logs/initdb.log" 2>&1 ||
		{ _lava_log "initdb failed, see $W/logs/initdb.log"; return 1; }
	cat >"$W/pg/data/pg_hba.conf" <<-EOF
		local all postgres peer
		local all all scram-sha-256
	EOF
	_lava_spawn PG "$W/logs/postgres.log" \
		setpriv --reuid=postgres --regid=postgres --init-groups \
		"$pgbin/postgres" -D "$W/pg/data" -k "$W/pgsock" -p "$LAVA_PG_PORT" \
		-c listen_addresses= -c fsync=off -c synchronous_commit=off \
		-c full_page_writes=off -c max_connections=50 -c logging_collector=off
	# setsid/setpriv exec in place: LAVA_PG_PID is the postmaster itself.
	if ! _lava_wait "$LAVA_START_LIMIT" postgres pg_isready -q -h "$W/pgsock" -p "$LAVA_PG_PORT"; then
		tail -n 20 "$W/logs/postgres.log" >&2
		lava_stop; return 1
	fi
	local dbpw; dbpw=$(_lava_rand 16)
	runuser -u postgres -- psql -q -h "$W/pgsock" -p "$LAVA_PG_PORT" -v ON_ERROR_STOP=1 \
		-c "CREATE ROLE lavaserver LOGIN PASSWORD '$dbpw'" \
		-c "CREATE DATABASE lavaserver OWNER lavaserver ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' TEMPLATE template0" \
		>>"$W/logs/setup.log" 2>&1 || { _lava_log "creating the database failed"; lava_stop; return 1; }

	# ---- LAVA settings, for our processes only (see notes at the top) ----
	cat >"$W/lava.env" <<-EOF
		LAVA_YAML_SETTINGS_DATABASES='{default: {ENGINE: django.db.backends.postgresql, NAME: lavaserver, USER: lavaserver, PASSWORD: "$dbpw", HOST: "$W/pgsock", PORT: "$LAVA_PG_PORT"}}'
		ALLOWED_HOSTS='$LAVA_ADDR'
		LAVA_SETTINGS_MEDIA_ROOT='$W/lava/media/'
		LAVA_SETTINGS_DEVICES_PATH='$W/lava/devices'
		LAVA_YAML_SETTINGS_DEVICE_TYPES_PATHS='["$W/lava/device-types", "/usr/share/lava-server/device-types"]'
		LAVA_SETTINGS_HEALTH_CHECKS_PATH='$W/lava/health-checks'
		LAVA_SETTINGS_DISPATCHER_CONFIG_PATH='$W/lava/dispatcher.d'
		LAVA_SETTINGS_DJANGO_LOGFILE='$W/logs/django.log'
		LAVA_YAML_SETTINGS_EVENT_NOTIFICATION='true'
		LAVA_SETTINGS_INTERNAL_EVENT_SOCKET='ipc://$W/lava/events.ipc'
		LAVA_SETTINGS_EVENT_SOCKET='tcp://$LAVA_ADDR:$LAVA_EVENT_PORT'
		HOME=/var/lib/lava-server/home
		LC_ALL=C.UTF-8
	EOF
	chmod 640 "$W/lava.env"
	chgrp lavaserver "$W/lava.env"

	# ---- schema + user, token and worker ----------------------------------
	if ! _lava_manage migrate --noinput >"$W/logs/migrate.log" 2>&1; then
		_lava_log "migrate failed, see $W/logs/migrate.log"
		tail -n 20 "$W/logs/migrate.log" >&2
		lava_stop; return 1
	fi
	local token wtoken pw
	token=$(_lava_rand 32); wtoken=$(_lava_rand 16); pw=$(_lava_rand 8)
	if ! _lava_manage shell -c "
from django.contrib.auth.models import User
from linaro_django_xmlrpc.models import AuthToken
from lava_scheduler_app.models import Worker
u, _ = User.objects.get_or_create(username='$LAVA_USER')
u.is_staff = u.is_superuser = True
u.set_password('$pw'); u.save()
AuthToken.objects.get_or_create(user=u, secret='$token', defaults={'description': 'rackbisect tests'})
w, _ = Worker.objects.get_or_create(hostname='$LAVA_WORKER_NAME')
w.token = '$wtoken'; w.health = Worker.HEALTH_ACTIVE; w.save()
" >>"$W/logs/setup.log" 2>&1; then
		_lava_log "user/token/worker setup failed, see $W/logs/setup.log"
		lava_stop; return 1
	fi
	export LAVA_URL="http://$LAVA_ADDR:$LAVA_HTTP_PORT" LAVA_TOKEN=$token LAVA_USER
	export LAVA_PASSWORD=$pw
	printf 'LAVA_URL=%s\nLAVA_TOKEN=%s\nLAVA_USER=%s\n' "$LAVA_URL" "$LAVA_TOKEN" "$LAVA_USER" >"$W/credentials"
	chmod 600 "$W/credentials"

	# ---- daemons ----------------------------------------------------------
	_lava_spawn PUBLISHER "$W/logs/lava-publisher.out" \
		lava-server manage lava-publisher --level DEBUG \
		--log-file "$W/logs/lava-publisher.log" --host "$LAVA_ADDR" --port "$LAVA_WS_PORT"
	_lava_spawn GUNICORN "$W/logs/gunicorn.out" \
		gunicorn3 lava_server.wsgi --log-level INFO --log-file "$W/logs/gunicorn.log" \
		-u lavaserver -g lavaserver --worker-class eventlet --workers 2 \
		--bind "$LAVA_ADDR:$LAVA_HTTP_PORT" --timeout 120
	_lava_spawn SCHEDULER "$W/logs/lava-scheduler.out" \
		lava-server manage lava-scheduler --level DEBUG \
		--log-file "$W/logs/lava-scheduler.log" --event-url "tcp://$LAVA_ADDR:$LAVA_EVENT_PORT"
	if ! _lava_wait "$LAVA_START_LIMIT" "LAVA REST API" _lava_http_ok "$LAVA_URL/api/v0.2/system/version/"; then
		tail -n 30 "$W/logs/gunicorn.log" "$W/logs/gunicorn.out" >&2
		lava_stop; return 1
	fi
	(umask 077; printf '%s' "$wtoken" >"$W/worker/token")
	_lava_spawn WORKER "$W/logs/lava-worker.out" \
		lava-worker --level DEBUG --url "$LAVA_URL/" --token-file "$W/worker/token" \
		--name "$LAVA_WORKER_NAME" --worker-dir "$W/worker" \
		--log-file "$W/logs/lava-worker.log" \
		--ws-url "http://$LAVA_ADDR:$LAVA_WS_PORT/ws/" --ping-interval 2 \
		--job-log-interval 1
	if ! _lava_wait "$LAVA_START_LIMIT" "worker online" _lava_worker_online; then
		tail -n 30 "$W/logs/lava-worker.log" >&2
		lava_stop; return 1
	fi
	local name
	for name in PG PUBLISHER GUNICORN SCHEDULER WORKER; do
		local v="LAVA_${name}_PID"
		if ! _lava_alive "${!v}"; then
			_lava_log "$name (pid ${!v}) died; logs in $W/logs"
			lava_stop; return 1
		fi
	done
	echo "# lava up in $((SECONDS - t0)) s ($LAVA_URL, pids:$LAVA_PIDS)"
}

# _lava_api METHOD PATH [curl args...]: authenticated REST call, body on stdout.
lava_api() {
	local method=$1 path=$2; shift 2
	curl -sS --max-time 30 -X "$method" -H "Authorization: Token $LAVA_TOKEN" \
		"$@" "$LAVA_URL$path"
}

_lava_worker_online() {
	lava_api GET "/api/v0.2/workers/$LAVA_WORKER_NAME/" |
		python3 -c 'import json,sys; sys.exit(json.load(sys.stdin).get("state") != "Online")'
}

lava_add_ssh_device() {
	local name=${1:?usage: lava_add_ssh_device NAME HOST PORT USER IDENTITY_FILE [TAG...]}
	local host=${2:?} port=${3:?} user=${4:?} ident=${5:?}
	shift 5
	local tags="$*"		# plain words: LAVA tag names
	[ -n "${LAVA_WORKDIR:-}" ] || { _lava_log "lava_start first"; return 1; }
	local dict="$LAVA_WORKDIR/lava/devices/$name.jinja2"
	cat >"$dict" <<-EOF
		{% extends 'ssh.jinja2' %}
		{% set ssh_host = '$host' %}
		{% set ssh_port = $port %}
		{% set ssh_user = '$user' %}
		{% set ssh_identity_file = '$ident' %}
		{% set connection_command = 'ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o PasswordAuthentication=no -o LogLevel=FATAL -p $port -i $ident $user@$host' %}
		{% block schroot %}
		      minimal:
		{% endblock schroot %}
	EOF
	chown lavaserver:lavaserver "$dict"
	if ! _lava_manage shell -c "
from lava_scheduler_app.models import Device, DeviceType, Tag, Worker
dt, _ = DeviceType.objects.get_or_create(name='ssh')
dt.display = True; dt.save()
w = Worker.objects.get(hostname='$LAVA_WORKER_NAME')
d, created = Device.objects.get_or_create(hostname='$name', defaults={
    'device_type': dt, 'worker_host': w,
    'state': Device.STATE_IDLE, 'health': Device.HEALTH_GOOD})
d.device_type = dt; d.worker_host = w; d.health = Device.HEALTH_GOOD
d.save()
for name in '$tags'.split():
    d.tags.add(Tag.objects.get_or_create(name=name)[0])
" >>"$LAVA_WORKDIR/logs/setup.log" 2>&1; then
		_lava_log "adding device $name failed, see $LAVA_WORKDIR/logs/setup.log"
		return 1
	fi
	# The server renders the dictionary: make sure it is valid and complete.
	local out
	out=$(lava_api GET "/api/v0.2/devices/$name/dictionary/?render=true")
	case $out in
	*"host: \"$host\""*) ;;
	*) _lava_log "device $name: rendered dictionary lacks host $host: $out"; return 1 ;;
	esac
}

# _lava_stop_pids SIGNAL NAME:PID...: signal them all, wait (bounded) for all
# to exit, SIGKILL the stragglers; then SIGKILL whatever is left in each
# one's process group (lava-run, gunicorn workers: the group was created by
# setsid for that daemon only).
_lava_stop_pids() {
	local sig=$1; shift
	local item pid deadline left
	# (every command here tolerates failure: callers may run under set -e)
	for item in "$@"; do kill "-$sig" "${item#*:}" 2>/dev/null || true; done
	deadline=$((SECONDS + ${LAVA_STOP_TIMEOUT:-20}))
	while :; do
		left=
		for item in "$@"; do _lava_alive "${item#*:}" && left="$left $item"; done
		[ -z "$left" ] && break
		if ((SECONDS >= deadline)); then
			_lava_log "still running after SIG$sig:$left; SIGKILL"
			for item in $left; do kill -KILL "${item#*:}" 2>/dev/null || true; done
			break
		fi
		sleep 0.1
	done
	for item in "$@"; do
		pid=${item#*:}
		kill -KILL -- "-$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	return 0
}

# lava_serve_artifacts DIR PORT: a web server showing DIR at
# http://$LAVA_ADDR:PORT/, as a lab's own web server shows the coordinator's
# artifact directory to its devices; stopped with the rest by lava_stop.
lava_serve_artifacts() {
	local dir=${1:?usage: lava_serve_artifacts DIR PORT} port=${2:?}
	_lava_spawn ARTIFACTS "$LAVA_WORKDIR/artifacts-http.log" \
		/usr/bin/python3 -m http.server --bind "$LAVA_ADDR" --directory "$dir" "$port" ||
		return 1
	_lava_wait "$LAVA_START_LIMIT" "the artifacts web server" _lava_http_ok "http://$LAVA_ADDR:$port/"
}

lava_stop() {
	local W=${1:-${LAVA_WORKDIR:-}}
	[ -n "$W" ] && [ -f "$W/pids" ] || return 0
	local name pid start lava=() pg=()
	while read -r name pid start; do
		[ -n "$pid" ] || continue
		# Only a process that is still the one we started (PID + start time).
		[ "$(_lava_starttime "$pid")" = "$start" ] || continue
		if [ "$name" = PG ]; then pg+=("$name:$pid"); else lava+=("$name:$pid"); fi
	done <"$W/pids"
	# LAVA daemons first (in parallel: the publisher alone takes ~5 s to
	# drain), then PostgreSQL with SIGINT (= "fast" shutdown).
	if ((${#lava[@]})); then _lava_stop_pids TERM "${lava[@]}"; fi
	if ((${#pg[@]})); then _lava_stop_pids INT "${pg[@]}"; fi
	: >"$W/pids"
	unset LAVA_ARTIFACTS_PID LAVA_PG_PID LAVA_PUBLISHER_PID LAVA_GUNICORN_PID LAVA_SCHEDULER_PID LAVA_WORKER_PID
	LAVA_PIDS=
	return 0
}
