#!/bin/sh
# shellcheck disable=SC2016,SC2034 # single-quoted code is eval'd or written into stand-ins
# The workload scripts W1-W4 (drivers/workload/) against stand-in tools.
#
# Each run gets a "board": a directory whose bin/ holds small stand-ins for
# iw, ip, ping, sleep, dmesg and uname that print the formats of
# docs/virtual-lab.md and follow a scripted scenario, plus links to the POSIX
# utilities the scripts may use (awk, sed, grep, cat, wc, tail, head,
# dirname) and nothing else: PATH is that bin/ alone, so a script that calls
# anything else fails here. The stand-ins keep their state in files (uptime,
# kernel log, link, counters); the scripts read the uptime through their one
# test hook, RACKBISECT_UPTIME_FILE. Simulated time moves only inside the
# stand-in sleep, ping and iw, as on a virtual board, so nothing here waits.
#
# Prints one "ok N - description" / "not ok N - description" per assertion.
# usage: sh tests/integration/test_workload_scripts.sh
set -u

here=$(cd "$(dirname "$0")" && pwd)
workload_dir=$(cd "$here/../../drivers/workload" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-workload-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

assertions=0
failures=0

# check DESCRIPTION COMMAND...: one ok/not ok line.
check() {
	description=$1
	shift
	assertions=$((assertions + 1))
	if "$@"; then
		echo "ok $assertions - $description"
	else
		failures=$((failures + 1))
		echo "not ok $assertions - $description"
		if [ -n "${last_out:-}" ] && [ -f "$last_out" ]; then
			echo "# output of the last run ($last_out):"
			sed 's/^/#   /' "$last_out"
			[ ! -s "$last_err" ] || { echo "# its stderr:"; sed 's/^/#   /' "$last_err"; }
		fi
	fi
}

# ---- the stand-in board --------------------------------------------------------

STANDIN_COMMON='
st=${0%/bin/*}/state
calls() { printf "%s\n" "$*" >>"$st/calls.log"; }
uptime() { read -r u rest <"$st/uptime"; echo "$u"; }
advance() {
	new=$(awk -v d="$1" "{ printf \"%.3f %.3f\\n\", \$1 + d, \$2 + d }" "$st/uptime")
	printf "%s\n" "$new" >"$st/uptime"
}
klog() {
	awk -v u="$(uptime)" -v m="$1" "BEGIN { printf \"[%5d.%06d] %s\\n\", int(u), (u - int(u)) * 1000000, m }" >>"$st/dmesg.log"
}
get() { cat "$st/$1"; }
put() { printf "%s\n" "$2" >"$st/$1"; }
# count TOOL: the number of this call of TOOL
count() { n=$(($(cat "$st/$1.n" 2>/dev/null || echo 0) + 1)); put "$1.n" "$n"; echo "$n"; }
# scenario TOOL N: the action the scenario names for call N of TOOL
# (scenario lines: "TOOL N ACTION..." or "TOOL FIRST-LAST ACTION...")
scenario() {
	awk -v t="$1" -v n="$2" "\$1 == t {
		lo = \$2; hi = \$2; d = index(\$2, \"-\")
		if (d) { lo = substr(\$2, 1, d - 1); hi = substr(\$2, d + 1) }
		if (n + 0 >= lo + 0 && n + 0 <= hi + 0) { \$1 = \"\"; \$2 = \"\"; sub(/^ +/, \"\"); print }
	}" "$st/scenario"
}
BSSID=00:0b:6b:de:ad:01
SSID=rackbisect-ap
AP=127.80.2.1
'

STANDIN_IW='
calls iw "$@"
if [ "$#" -eq 1 ] && [ "$1" = dev ]; then
	printf "phy#0\n\tInterface wlan0\n\t\tifindex 3\n\t\ttype managed\n"
	exit 0
fi
[ "$1" = dev ] || { echo "iw: unknown command" >&2; exit 1; }
if [ "$2" != wlan0 ]; then
	echo "command failed: No such device (-19)" >&2
	exit 237
fi
shift 2
case $1 in
link)
	if [ "$(get assoc)" = yes ]; then
		printf "Connected to %s (on wlan0)\n\tSSID: %s\n\tfreq: 2437\n\tsignal: -42 dBm\n\ttx bitrate: 54.0 MBit/s\n" "$BSSID" "$SSID"
	else
		echo "Not connected."
	fi ;;
station)
	[ "$(get assoc)" = yes ] || exit 0
	read -r p r f <"$st/sta"
	printf "Station %s (on wlan0)\n\tinactive time:\t304 ms\n\trx bytes:\t%d\n\trx packets:\t%d\n" "$BSSID" $((p * 98)) "$p"
	printf "\ttx bytes:\t%d\n\ttx packets:\t%d\n\ttx retries:\t%d\n\ttx failed:\t%d\n" $((p * 98)) "$p" "$r" "$f"
	printf "\tsignal:  \t-42 dBm\n\tsignal avg:\t-42 dBm\n\ttx bitrate:\t54.0 MBit/s\n" ;;
set) put ps "$3" ;;
get) echo "Power save: $(get ps)" ;;
disconnect)
	if [ "$(get assoc)" = yes ]; then
		klog "wlan0: deauthenticating from $BSSID by local choice (reason=3)"
		put assoc no
	fi ;;
scan)
	advance 1.0
	printf "BSS %s(on wlan0)\n\tfreq: 2437\n\tSSID: %s\n" "$BSSID" "$SSID" ;;
connect)
	if [ "$(get link)" != up ]; then
		echo "command failed: Network is down (-100)" >&2
		exit 156
	fi
	shift
	[ "$1" = -w ] && shift
	ssid=$1 freq=${2:-}
	n=$(count connect)
	action=$(scenario connect "$n")
	[ -n "$freq" ] || advance 1.0
	case $action in *txdma*) klog "ath: Failed to stop TX DMA, queues=0x004!" ;; esac
	if [ "$ssid" != "$SSID" ]; then
		advance 5
		echo "failed to connect to $BSSID, status: 1: Unspecified failure"
		exit 0
	fi
	case "$action $(get dead)" in
	*fail* | *yes)
		for try in 1 2 3; do
			klog "wlan0: authenticate with $BSSID (try $try)"
			advance 0.2
		done
		klog "wlan0: authentication with $BSSID timed out"
		echo "failed to connect to $BSSID, status: 1: Unspecified failure"
		exit 0 ;;
	esac
	klog "wlan0: authenticate with $BSSID (try 1)"
	advance 0.05
	klog "wlan0: associate with $BSSID (try 1)"
	klog "wlan0: RX AssocResp from $BSSID (capab=0x431 status=0 aid=1)"
	klog "wlan0: associated"
	put assoc yes
	put sta "0 0 0"
	echo "connected to $BSSID" ;;
*) echo "iw: unknown command $1" >&2; exit 1 ;;
esac
'

STANDIN_IP='
calls ip "$@"
[ "$1" = link ] || exit 1
case "$2 ${3:-}" in
"show wlan0")
	if [ "$(get link)" = up ]; then flags="BROADCAST,MULTICAST,UP,LOWER_UP" state=UP
	else flags="BROADCAST,MULTICAST" state=DOWN; fi
	echo "3: wlan0: <$flags> mtu 1500 qdisc mq state $state mode DORMANT group default qlen 1000" ;;
"set wlan0")
	case $4 in
	down)
		if [ "$(get assoc)" = yes ]; then
			klog "wlan0: deauthenticating from $BSSID by local choice (reason=3)"
		fi
		put assoc no
		put link down ;;
	up)
		n=$(count up)
		put link up
		put dead no
		case $(scenario up "$n") in *dead*) put dead yes ;; esac ;;
	*) exit 1 ;;
	esac ;;
*) echo "Device \"$3\" does not exist." >&2; exit 1 ;;
esac
'

STANDIN_PING='
calls ping "$@"
c=1 i=1 q=0
while [ $# -gt 1 ]; do
	case $1 in
	-c) c=$2; shift ;;
	-i) i=$2; shift ;;
	-W|-s) shift ;;
	-q) q=1 ;;
	*) echo "ping: bad option $1" >&2; exit 2 ;;
	esac
	shift
done
host=$1
n=$(count ping)
action=$(scenario ping "$n")
lost=0 txfail=0
case $action in
lose*) lost=${action#lose } ;;
txfail*) txfail=${action#txfail } ;;
esac
[ "$(get assoc)" = yes ] && [ "$host" = "$AP" ] || lost=$c
if [ "$(get assoc)" = yes ]; then
	read -r p r f <"$st/sta"
	put sta "$((p + c)) $((r + txfail)) $((f + txfail))"
fi
advance "$(awk -v c="$c" -v i="$i" "BEGIN { print c * i }")"
echo "PING $host ($host) 56(84) bytes of data."
rx=$((c - lost))
if [ "$q" = 0 ]; then
	s=1
	while [ "$s" -le "$rx" ]; do
		echo "64 bytes from $host: icmp_seq=$s ttl=64 time=1.84 ms"
		s=$((s + 1))
	done
fi
echo
echo "--- $host ping statistics ---"
echo "$c packets transmitted, $rx received, $((lost * 100 / c))% packet loss, time 9012ms"
[ "$rx" -gt 0 ] || exit 1
echo "rtt min/avg/max/mdev = 1.201/1.840/2.912/0.301 ms"
'

STANDIN_SLEEP='
calls sleep "$@"
case $1 in "" | *[!0-9.]*) echo "sleep: invalid time interval" >&2; exit 1 ;; esac
n=$(count sleep)
case $(scenario sleep "$n") in
*lost*)
	advance 0.5
	klog "wlan0: Connection to AP $BSSID lost."
	put assoc no ;;
esac
advance "$1"
'

STANDIN_DMESG='
calls dmesg "$@"
cat "$st/dmesg.log"
'

STANDIN_UNAME='
case ${1:-} in
-r) echo 3.3.1-rc1-00042-g1a2b3c4d ;;
*) echo Linux ;;
esac
'

# new_board NAME [busybox]: a board directory with the stand-ins, associated,
# its interface up, uptime 100 s, an empty scenario.
new_board() {
	board=$tmp/$1
	rm -rf "$board"
	mkdir -p "$board/bin" "$board/state"
	for tool in awk sed grep cat wc tail head dirname; do
		if [ "${2:-}" = busybox ]; then
			ln -s "$(command -v busybox)" "$board/bin/$tool"
		else
			ln -s "$(command -v "$tool")" "$board/bin/$tool"
		fi
	done
	for tool in iw ip ping sleep dmesg uname; do
		case $tool in
		iw) body=$STANDIN_IW ;;
		ip) body=$STANDIN_IP ;;
		ping) body=$STANDIN_PING ;;
		sleep) body=$STANDIN_SLEEP ;;
		dmesg) body=$STANDIN_DMESG ;;
		uname) body=$STANDIN_UNAME ;;
		esac
		printf '#!/bin/sh\n%s\n%s\n' "$STANDIN_COMMON" "$body" >"$board/bin/$tool"
		chmod +x "$board/bin/$tool"
	done
	s=$board/state
	echo "100.000 90.000" >"$s/uptime"
	printf '[    0.000000] Linux version 3.3.1-rc1-00042-g1a2b3c4d\n[    5.100000] wlan0: associated\n' >"$s/dmesg.log"
	echo up >"$s/link"
	echo yes >"$s/assoc"
	echo no >"$s/dead"
	echo off >"$s/ps"
	echo "0 0 0" >"$s/sta"
	: >"$s/scenario"
	: >"$s/calls.log"
}

# The shells that run the workloads, found before PATH shrinks to a board's.
dash=$(command -v dash)
busybox=$(command -v busybox || true)

# run NAME SHELL SCRIPT ARG...: runs a workload on board NAME under SHELL (a
# path); its stdout goes to $tmp/NAME.out, stderr to
# $tmp/NAME.err, its exit status to $status.
run() {
	name=$1 shell=$2 script=$3
	shift 3
	last_out=$tmp/$name.out
	last_err=$tmp/$name.err
	set -- "$shell" "$workload_dir/$script" "$@"
	(
		cd "$tmp/$name" &&
			PATH=$tmp/$name/bin RACKBISECT_UPTIME_FILE=$tmp/$name/state/uptime "$@"
	) >"$last_out" 2>"$last_err"
	status=$?
}

# ---- assertions on KTAP ------------------------------------------------------------

# KTAP header, a plan 1..N with N > 0, and exactly N result lines numbered 1..N.
ktap_consistent() {
	awk '
		NR == 1 && $0 != "KTAP version 1" { bad = 1 }
		NR == 2 { if ($0 !~ /^1\.\.[0-9]+$/) bad = 1; plan = substr($0, 4) + 0 }
		/^(not )?ok / { k++; num = $1 == "not" ? $3 : $2; if (num != k) bad = 1 }
		!/^(not )?ok / && !/^#/ && NR > 2 { bad = 1 }
		END { exit !(!bad && plan > 0 && k == plan) }' "$1"
}

plan_is() { sed -n 2p "$1" | grep -qx "1\.\.$2"; }

# The diagnostic lines just before test NUMBER's result line.
diag_of() {
	awk -v t="$2" '
		/^(not )?ok / {
			num = $1 == "not" ? $3 : $2
			if (num == t) { printf "%s", block; exit }
			block = ""; next
		}
		/^#/ { block = block $0 "\n" }' "$1"
}

diag_has() { diag_of "$1" "$2" | grep -q -- "$3"; }
has_line() { grep -q -- "$2" "$1"; }
has_exact() { grep -qx -- "$2" "$1"; }
lacks() { ! grep -q -- "$2" "$1"; }
count_is() { [ "$(grep -c -- "$2" "$1")" -eq "$3" ]; }
status_is() { [ "$status" -eq "$1" ]; }

# ---- syntax --------------------------------------------------------------------------

for f in "$workload_dir"/*.sh; do
	check "dash -n ${f##*/}" dash -n "$f"
	if command -v busybox >/dev/null 2>&1; then
		check "busybox sh -n ${f##*/}" busybox sh -n "$f"
	fi
done

# ---- W3: an auth timeout on cycle 2, recovered by the scan retry --------------------

new_board w3
printf 'connect 2 fail\nconnect 3 txdma\n' >"$tmp/w3/state/scenario"
run w3 "$dash" w3-idle-transitions.sh --cycles 4 --seed 7
out=$tmp/w3.out
calls=$tmp/w3/state/calls.log
check "w3: exit 0" status_is 0
check "w3: KTAP header, plan and result lines agree" ktap_consistent "$out"
check "w3: plan 1..4" plan_is "$out" 4
check "w3: cycle 2 is not ok" has_line "$out" '^not ok 2 cycle 2 \(scan\|same-channel\) reconnect$'
check "w3: cycle 2 quotes the auth timeout from the kernel log" \
	diag_has "$out" 2 '^# dmesg: \[ *[0-9.]*\] wlan0: authentication with 00:0b:6b:de:ad:01 timed out$'
check "w3: cycle 2 quotes the TX DMA line of its retry" \
	diag_has "$out" 2 '^# dmesg: .*ath: Failed to stop TX DMA, queues=0x004!$'
check "w3: cycle 2 quotes those two lines and no other" \
	eval '[ "$(diag_of "$out" 2 | grep -c "^# dmesg: ")" -eq 2 ]'
check "w3: cycles 1, 3, 4 are ok" eval \
	'has_line "$out" "^ok 1 cycle 1 " && has_line "$out" "^ok 3 cycle 3 " && has_line "$out" "^ok 4 cycle 4 "'
check "w3: half the cycles scan, half reconnect on the same channel" eval \
	'count_is "$out" "^\(not \)\?ok [0-9]* cycle [0-9]* scan reconnect$" 2 &&
	 count_is "$out" "^\(not \)\?ok [0-9]* cycle [0-9]* same-channel reconnect$" 2'
check "w3: same-channel cycles connect with FREQ and BSSID, scan ones without" eval \
	'[ "$(grep -c "^iw dev wlan0 connect -w rackbisect-ap 2437 00:0b:6b:de:ad:01$" "$calls")" -eq 2 ] &&
	 [ "$(grep -c "^iw dev wlan0 connect -w rackbisect-ap$" "$calls")" -eq 3 ]'
check "w3: every cycle disconnects first" count_is "$calls" '^iw dev wlan0 disconnect$' 4
idles=$(grep '^sleep ' "$calls" | grep -v '^sleep 0\.1$' | sed 's/^sleep //')
check "w3: four idle periods, each within 1..10 s" eval \
	'[ "$(echo "$idles" | awk "\$1 >= 1 && \$1 <= 10" | wc -l)" -eq 4 ]'
check "w3: the idle periods slept are the ones the diagnostics name" eval \
	'[ "$(grep "^# cycle [0-9]*: scan=" "$out" | sed "s/.*idle=\(.*\)s$/\1/")" = "$idles" ]'
check "w3: a reconnect_time metric per associated cycle" count_is "$out" '^# metric reconnect_time=[0-9.]* s$' 4
check "w3: reconnect_time max and mean" eval \
	'has_line "$out" "^# metric reconnect_time_max=[0-9.]* s$" && has_line "$out" "^# metric reconnect_time_mean=[0-9.]* s$"'
check "w3: cycles failed by kind" eval \
	'has_exact "$out" "# metric failed_auth_timeout=1 cycles" && has_exact "$out" "# metric failed_tx_dma_stop=1 cycles" &&
	 has_exact "$out" "# metric failed_not_associated=0 cycles" && has_exact "$out" "# metric failed=1 cycles"'
check "w3: tx counters reported" eval \
	'has_line "$out" "^# metric tx_packets=[0-9]* count$" && has_line "$out" "^# metric tx_failed=[0-9]* count$"'
check "w3: duration from the uptime file" has_line "$out" '^# metric duration=[0-9.]* s$'
check "w3: no power meter is a diagnostic" has_line "$out" '^# no power meter'
check "w3: unreadable debugfs is a diagnostic" has_line "$out" '^# ath9k debugfs not readable'
check "w3: no ping metric in a workload without ping" lacks "$out" 'ping_loss'

new_board w3b
run w3b "$dash" w3-idle-transitions.sh --cycles 4 --seed 7
check "w3: the same seed gives the same kinds and idle periods on a fresh board" eval \
	'[ "$(grep "^# cycle [0-9]*: scan=" "$tmp/w3b.out")" = "$(grep "^# cycle [0-9]*: scan=" "$tmp/w3.out")" ]'
check "w3: all cycles ok without a scenario" eval '! grep -q "^not ok" "$tmp/w3b.out"'

new_board w3s
run w3s "$dash" w3-idle-transitions.sh --cycles 3 --reconnect same-channel --idle-min 2 --idle-max 2
check "w3: --reconnect same-channel makes every cycle same-channel" \
	count_is "$tmp/w3s.out" '^ok [0-9]* cycle [0-9]* same-channel reconnect$' 3
check "w3: --idle-min = --idle-max fixes the idle period" \
	count_is "$tmp/w3s/state/calls.log" '^sleep 2$' 3

# ---- W3 with busybox's awk, sed, grep... --------------------------------------------
# (Not under busybox sh itself: busybox-static's sh runs its own applets, ip,
# sleep, dmesg, ping..., before anything on PATH, so no stand-in would run.)

if [ -n "$busybox" ]; then
	new_board bb busybox
	printf 'connect 1 fail\n' >"$tmp/bb/state/scenario"
	run bb "$dash" w3-idle-transitions.sh --cycles 2 --seed 3
	check "busybox utilities: w3 exits 0" status_is 0
	check "busybox utilities: w3 KTAP is consistent" ktap_consistent "$tmp/bb.out"
	check "busybox utilities: w3 cycle 1 not ok with the auth timeout quoted" \
		diag_has "$tmp/bb.out" 1 'dmesg: .*authentication with 00:0b:6b:de:ad:01 timed out'
fi

# ---- W4: cycle 2's card stays dead after up: not associated within 15 s -------------

new_board w4
printf 'up 2 dead\n' >"$tmp/w4/state/scenario"
run w4 "$dash" w4-ifdown-up.sh --cycles 3
out=$tmp/w4.out
calls=$tmp/w4/state/calls.log
check "w4: exit 0" status_is 0
check "w4: KTAP consistent, plan 1..3" eval 'ktap_consistent "$out" && plan_is "$out" 3'
check "w4: cycle 2 is not ok" has_exact "$out" 'not ok 2 cycle 2 down/up reconnect'
check "w4: cycle 2 says it was not associated within 15 s" \
	diag_has "$out" 2 '^# not associated with rackbisect-ap within 15 s'
check "w4: cycle 2 quotes the kernel's auth timeouts" \
	diag_has "$out" 2 '^# dmesg: .*wlan0: authentication with 00:0b:6b:de:ad:01 timed out$'
check "w4: cycles 1 and 3 are ok" eval \
	'has_exact "$out" "ok 1 cycle 1 down/up reconnect" && has_exact "$out" "ok 3 cycle 3 down/up reconnect"'
check "w4: each cycle is down, sleep 1, up, connect" eval \
	'[ "$(grep -A3 "^ip link set wlan0 down$" "$calls" | grep -v "^iw dev wlan0 link$" | grep -c "^sleep 1$")" -eq 3 ] &&
	 [ "$(grep -A1 "^sleep 1$" "$calls" | grep -c "^ip link set wlan0 up$")" -eq 3 ]'
check "w4: retries poll with sleep 0.1, never a busy loop" eval \
	'[ "$(grep -c "^sleep 0\.1$" "$calls")" -ge 1 ] && ! grep "^sleep " "$calls" | grep -qv "^sleep \(1\|0\.1\)$"'
check "w4: the failed cycle gave up after 15 s, not before" eval \
	'diag_of "$out" 2 | sed -n "s/.*attempts, \([0-9.]*\) s)$/\1/p" | awk "{ exit !(\$1 >= 15 && \$1 < 20) }"'
check "w4: metrics" eval \
	'has_exact "$out" "# metric failed_not_associated=1 cycles" && has_exact "$out" "# metric reconnects_associated=2 count" &&
	 has_line "$out" "^# metric reconnect_time_max="'

# ---- W1: the link is lost in phase 2 ------------------------------------------------

new_board w1
printf 'sleep 3 lost\n' >"$tmp/w1/state/scenario"
run w1 "$dash" w1-associated-idle.sh --duration 150 --keepalive 30
out=$tmp/w1.out
calls=$tmp/w1/state/calls.log
check "w1: exit 0" status_is 0
check "w1: KTAP consistent, 3 phases for 150 s" eval 'ktap_consistent "$out" && plan_is "$out" 3'
check "w1: power save set on before idling" \
	awk '/^iw dev wlan0 set power_save on$/ { s = NR } /^sleep / && !f { f = NR } END { exit !(s && s < f) }' "$calls"
check "w1: phase 2 not ok, quoting the lost connection" eval \
	'has_exact "$out" "not ok 2 phase 2 associated idle" &&
	 diag_has "$out" 2 "^# dmesg: .*wlan0: Connection to AP 00:0b:6b:de:ad:01 lost\.$"'
check "w1: phase 2 reassociated for phase 3" eval \
	'diag_has "$out" 2 "associated again after" && has_exact "$out" "ok 3 phase 3 associated idle"'
check "w1: keepalive every 30 s (5 in 150 s), idle in 30 s sleeps" eval \
	'count_is "$calls" "^ping -q -c 1 -W 1 127.80.2.1$" 5 && count_is "$calls" "^sleep 30$" 5'
check "w1: metrics" eval \
	'has_exact "$out" "# metric keepalives_sent=5 count" && has_exact "$out" "# metric failed_connection_lost=1 phases" &&
	 has_line "$out" "^# metric keepalive_loss=" && has_exact "$out" "# metric failed=1 phases"'

# ---- W2: tx failures in phase 1, ping loss in phase 2 ------------------------------

new_board w2
printf 'ping 1 txfail 10\nping 3 lose 30\n' >"$tmp/w2/state/scenario"
run w2 "$dash" w2-associated-traffic.sh --duration 180
out=$tmp/w2.out
calls=$tmp/w2/state/calls.log
check "w2: exit 0" status_is 0
check "w2: KTAP consistent, 3 phases" eval 'ktap_consistent "$out" && plan_is "$out" 3'
check "w2: pings every 0.2 s for the phase, then a burst" eval \
	'count_is "$calls" "^ping -q -i 0.2 -c 300 -W 1 127.80.2.1$" 3 && count_is "$calls" "^ping -q -i 0.01 -c 20 -W 1 127.80.2.1$" 3'
check "w2: phase 1 fails on tx failed over 2 %" eval \
	'has_exact "$out" "not ok 1 phase 1 associated traffic" && diag_has "$out" 1 "^# tx failed 10 of 320 packets"'
check "w2: phase 2 fails on ping loss over 5 %" eval \
	'has_exact "$out" "not ok 2 phase 2 associated traffic" && diag_has "$out" 2 "^# ping loss 9.38 %" &&
	 diag_has "$out" 2 "^# metric ping_loss=9.38 %$"'
check "w2: phase 3 ok" has_exact "$out" 'ok 3 phase 3 associated traffic'
check "w2: metrics" eval \
	'has_exact "$out" "# metric pings_sent=960 count" && has_exact "$out" "# metric pings_received=930 count" &&
	 has_exact "$out" "# metric failed_ping_loss=1 phases" && has_exact "$out" "# metric failed_tx_failed=1 phases" &&
	 has_exact "$out" "# metric tx_failed=10 count" && has_line "$out" "^# metric tx_failed_ratio=" &&
	 has_line "$out" "^# metric ping_loss_total="'

# ---- values from arguments are never evaluated; a failed setup --------------------

new_board evil
# shellcheck disable=SC2016 # literally, that is the point
# (builtins only: the board's PATH has no touch)
evil_ssid='$(: >pwned)`: >pwned2`'
run evil "$dash" w3-idle-transitions.sh --cycles 2 --ssid "$evil_ssid"
out=$tmp/evil.out
check "quoting: a command in --ssid is not run" eval '[ ! -e "$tmp/evil/pwned" ] && [ ! -e "$tmp/evil/pwned2" ]'
check "quoting: iw gets the SSID literally" grep -qF "connect -w $evil_ssid" "$tmp/evil/state/calls.log"
check "setup failure: exit 0, KTAP consistent" eval 'status_is 0 && ktap_consistent "$out"'
check "setup failure: test 1 not ok, the rest skipped" eval \
	'has_line "$out" "^not ok 1 cycle 1 " && has_line "$out" "^ok 2 cycle 2 .* # SKIP not associated at start$"'
check "setup failure: diagnostics say why, once, with test 1" eval \
	'diag_has "$out" 1 "^# setup: wlan0 could not associate" && count_is "$out" "^# setup: wlan0 could not associate" 1'

# ---- setup brings a down interface up and associates it -----------------------------

new_board down
echo down >"$tmp/down/state/link"
echo no >"$tmp/down/state/assoc"
run down "$dash" w3-idle-transitions.sh --cycles 1
check "setup: a down interface is brought up, then connected" eval \
	'status_is 0 &&
	 awk "/^ip link set wlan0 up\$/ { u = NR } /^iw dev wlan0 connect/ && !c { c = NR } END { exit !(u && u < c) }" "$tmp/down/state/calls.log" &&
	 has_line "$tmp/down.out" "^# setup: associated with rackbisect-ap (00:0b:6b:de:ad:01) in [0-9.]* s$" &&
	 has_line "$tmp/down.out" "^ok 1 cycle 1 "'

# ---- W1 without keepalives needs no ping --------------------------------------------

new_board quiet
rm "$tmp/quiet/bin/ping"
run quiet "$dash" w1-associated-idle.sh --duration 120
check "w1 by default (no host keepalive): runs without ping, idles in phase-long sleeps" eval \
	'status_is 0 && ktap_consistent "$tmp/quiet.out" && count_is "$tmp/quiet/state/calls.log" "^sleep 60$" 2 &&
	 ! has_line "$tmp/quiet.out" "^not ok" && ! has_line "$tmp/quiet.out" "keepalive_loss"'

# ---- usage errors: exit 2, usage on stderr, nothing run ----------------------------

usage_error() {
	new_board usage
	run usage "$dash" "$@"
	[ "$status" -eq 2 ] && grep -q '^usage: ' "$tmp/usage.err" && [ ! -s "$tmp/usage/state/calls.log" ]
}
for script in w1-associated-idle.sh w2-associated-traffic.sh w3-idle-transitions.sh w4-ifdown-up.sh; do
	check "usage: $script --bogus exits 2" usage_error "$script" --bogus
	check "usage: $script with a stray argument exits 2" usage_error "$script" stray
	check "usage: $script --iface without a value exits 2" usage_error "$script" --iface
	check "usage: $script --target -f exits 2" usage_error "$script" --target -f
done
check "usage: w3 --cycles abc exits 2" usage_error w3-idle-transitions.sh --cycles abc
check "usage: w3 --cycles=0 exits 2" usage_error w3-idle-transitions.sh --cycles=0
check "usage: w3 --idle-min 5 --idle-max 2 exits 2" usage_error w3-idle-transitions.sh --idle-min 5 --idle-max 2
check "usage: w3 --reconnect sometimes exits 2" usage_error w3-idle-transitions.sh --reconnect sometimes
check "usage: w2 --interval 0.2.1 exits 2" usage_error w2-associated-traffic.sh --interval 0.2.1
check "usage: w1 --duration '1;reboot' exits 2" usage_error w1-associated-idle.sh --duration '1;reboot'
check "usage: w4 --bssid nonsense exits 2" usage_error w4-ifdown-up.sh --bssid nonsense
new_board help
run help "$dash" w3-idle-transitions.sh --help
check "usage: --help prints usage on stdout, exit 0" eval 'status_is 0 && grep -q "^usage: " "$tmp/help.out"'

# ---- a machine that lacks something: exit 3 with a diagnostic -----------------------

for script in w1-associated-idle.sh w2-associated-traffic.sh w3-idle-transitions.sh w4-ifdown-up.sh; do
	new_board noiface
	run noiface "$dash" "$script" --iface wlan9
	check "missing: $script --iface wlan9 exits 3 naming it" eval \
		'status_is 3 && grep -q "^# .*no wireless interface wlan9" "$tmp/noiface.out"'
done
new_board noiw
rm "$tmp/noiw/bin/iw"
run noiw "$dash" w3-idle-transitions.sh
check "missing: no iw exits 3 naming it" eval 'status_is 3 && grep -q "^# .*missing tools: iw$" "$tmp/noiw.out"'
new_board noping
rm "$tmp/noping/bin/ping"
run noping "$dash" w2-associated-traffic.sh
check "missing: w2 without ping exits 3 naming it" eval 'status_is 3 && grep -q "^# .*missing tools: ping$" "$tmp/noping.out"'

# ---- lib.sh's power meter and debugfs parsing -----------------------------------------
# A board's /sys cannot be faked here, so these call the functions behind
# rb_power_begin and rb_debugfs_report on files of the same format.

lib_run() {
	# lib_run NAME COMMANDS: COMMANDS in a shell that sourced lib.sh ($T is
	# the temporary directory)
	name=$1
	last_out=$tmp/$name.out
	last_err=$tmp/$name.err
	T=$tmp RACKBISECT_UPTIME_FILE=$tmp/$name.uptime "$dash" -c \
		'usage() { :; }; . "$1/lib.sh"; eval "$2"' lib "$workload_dir" "$2" >"$last_out" 2>"$last_err"
	status=$?
}

mkdir -p "$tmp/hwmon0"
echo ath9k_power >"$tmp/hwmon0/name"
echo 100.000 90.000 >"$tmp/meter.uptime"
echo 5000000 >"$tmp/hwmon0/energy1_input"
echo 116000 >"$tmp/hwmon0/power1_input"
lib_run meter 'rb_meter=$T/hwmon0; rb_power_start
	echo "120.000 110.000" >"$RACKBISECT_UPTIME_FILE"; echo 7000000 >"$rb_meter/energy1_input"; rb_power_sample
	echo "160.000 150.000" >"$RACKBISECT_UPTIME_FILE"; echo 11960000 >"$rb_meter/energy1_input"; rb_power_sample
	rb_power_report'
check "power: energy and average power from energy1_input" eval \
	'has_exact "$tmp/meter.out" "# metric duration=60.000 s" && has_exact "$tmp/meter.out" "# metric energy=6.960 J" &&
	 has_exact "$tmp/meter.out" "# metric power_avg=116.0 mW"'
# 2 J over the first test's 20 s, 4.96 J over the second's 40 s
check "power: each test's own power from the counter's rise, in test order" eval \
	'[ "$(sed -n "s/^# metric phase_power_//p" "$tmp/meter.out" | tr "\n" " ")" = "1=100.0 mW 2=124.0 mW " ]'

# a test whose reading cannot be had (no time passed) leaves a gap in the
# numbers, and the tests after it keep theirs
echo 100.000 90.000 >"$tmp/meter3.uptime"
echo 5000000 >"$tmp/hwmon0/energy1_input"
lib_run meter3 'rb_meter=$T/hwmon0; rb_power_start
	echo "110.000 100.000" >"$RACKBISECT_UPTIME_FILE"; echo 6000000 >"$rb_meter/energy1_input"; rb_power_sample
	rb_power_sample
	echo "130.000 120.000" >"$RACKBISECT_UPTIME_FILE"; echo 8333333 >"$rb_meter/energy1_input"; rb_power_sample
	rb_power_report'
check "power: a test with no reading leaves a gap, not a shift (and tenths are rounded)" eval \
	'[ "$(sed -n "s/^# metric phase_power_//p" "$tmp/meter3.out" | tr "\n" " ")" = "1=100.0 mW 3=116.7 mW " ]'

rm "$tmp/hwmon0/energy1_input"
echo 100.000 90.000 >"$tmp/meter2.uptime"
lib_run meter2 'rb_meter=$T/hwmon0; rb_power_start
	rb_power_sample; echo 232000 >"$rb_meter/power1_input"; rb_power_sample
	echo "110.000 100.000" >"$RACKBISECT_UPTIME_FILE"; rb_power_report'
check "power: without energy1_input, the mean of power1_input samples" eval \
	'has_exact "$tmp/meter2.out" "# metric power_avg=174.0 mW" && has_exact "$tmp/meter2.out" "# metric energy=1.740 J"'
check "power: ... and each test's sample as its own power" eval \
	'[ "$(sed -n "s/^# metric phase_power_//p" "$tmp/meter2.out" | tr "\n" " ")" = "1=116.0 mW 2=232.0 mW " ]'

mkdir -p "$tmp/dfs-3.3" "$tmp/dfs-current"
printf '%s\n' "primary: 2437 (HT20)" "addr: 00:03:7f:11:22:33" "addrmask: ff:ff:ff:ff:ff:ff" \
	"rxfilter: 0x1097 UCAST MCAST BCAST BEACON MYBEACON" "INTERRUPT: 0x00000000" \
	"BB HANG:            0" "BB WATCHDOG:        0" "FATAL HW:           0" \
	"TX HW errors:       0" "TX Path Hang:       3" "PLL RX Hang:        0" >"$tmp/dfs-3.3/wiphy"
printf '%17s: %2d\n' "Baseband Hang" 0 "Baseband Watchdog" 0 "Fatal HW Error" 0 "TX HW error" 1 \
	"Transmit timeout" 0 "TX Path Hang" 2 "PLL RX Hang" 0 "MAC Hang" 0 "Stuck Beacon" 0 "MCI Reset" 0 \
	"Calibration error" 0 "Tx DMA stop error" 4 "Rx DMA stop error" 1 >"$tmp/dfs-current/reset"
echo 1 >"$tmp/dfs.uptime"
lib_run dfs 'rb_reset_counters "$T/dfs-3.3/wiphy"; echo --; rb_reset_counters "$T/dfs-current/reset"'
check "debugfs: the reset causes at the end of 3.3's wiphy, and nothing else" eval \
	'[ "$(sed -n "1,/^--$/p" "$tmp/dfs.out" | tr "\n" " ")" = "bb_hang 0 bb_watchdog 0 fatal_hw_error 0 tx_hw_error 0 tx_path_hang 3 pll_rx_hang 0 -- " ]'
check "debugfs: the reset file of current kernels, DMA stop errors included" eval \
	'sed "1,/^--$/d" "$tmp/dfs.out" | grep -qx "tx_path_hang 2" && sed "1,/^--$/d" "$tmp/dfs.out" | grep -qx "tx_dma_stop_error 4" &&
	 sed "1,/^--$/d" "$tmp/dfs.out" | grep -qx "rx_dma_stop_error 1" && sed "1,/^--$/d" "$tmp/dfs.out" | grep -qx "tx_hw_error 1" &&
	 [ "$(sed "1,/^--$/d" "$tmp/dfs.out" | wc -l)" -eq 13 ]'

# ---- lib.sh's readers of tool output (the shell's read and case, no awk) -------------
# Stand-in functions shadow the tools, with the formats the real ones print.
has_line() { grep -qxF -- "$2" "$1"; }	# has_line FILE LINE: the line, literally

echo 100.05 90.00 >"$tmp/readers.uptime"
lib_run readers '
	ping() { printf "%s\n" "PING 127.80.2.1 56(84) bytes of data." "" "--- 127.80.2.1 ping statistics ---" \
		"5 packets transmitted, 4 received, +1 errors, 20% packet loss, time 4005ms"; }
	rb_ping 5 -c 5 x; echo "iputils $rb_ping_tx $rb_ping_rx [$rb_ping_said]"
	ping() { printf "%s\n" "--- 127.80.2.1 ping statistics ---" "5 packets transmitted, 3 packets received, 40% packet loss"; }
	rb_ping 5 -c 5 x; echo "busybox $rb_ping_tx $rb_ping_rx"
	ping() { printf "%s\n" "" "ping: connect: Network is unreachable"; }
	rb_ping 7 -c 7 x; echo "none $rb_ping_tx $rb_ping_rx [$rb_ping_said]"
	iw() { printf "Station 00:0b:6b:de:ad:01 (on wlan0)\n\ttx packets:\t010\n\ttx retries:\t2\n\ttx failed:\t1\n"
		printf "Station 00:0b:6b:de:ad:02 (on wlan0)\n\ttx packets:\t99\n\ttx retries:\t98\n\ttx failed:\t97\n"; }
	rb_station_read && echo "station $rb_sta_p $rb_sta_r $rb_sta_f"
	iw() { :; }
	rb_station_read || echo "no station $rb_sta_p $rb_sta_r $rb_sta_f"
	iw() { printf "Connected to 00:0b:6b:de:ad:01 (on wlan0)\n\tSSID: rackbisect ap 2\n\tfreq: 2437\n"; }
	rb_ssid="rackbisect ap 2"; rb_associated && echo "link $rb_link_bssid [$rb_link_ssid]"
	rb_ssid=rackbisect; rb_associated || echo "other ssid"
	rb_elapsed_since 99.5; echo "elapsed $rb_elapsed"
	rb_elapsed_since 100.5; echo "elapsed $rb_elapsed"
	rb_elapsed_since 2; echo "elapsed $rb_elapsed $rb_elapsed_ms"'
check "readers: iputils ping statistics (with errors)" has_line "$tmp/readers.out" "iputils 5 4 []"
check "readers: busybox ping statistics" has_exact "$tmp/readers.out" "busybox 5 3"
check "readers: a ping without statistics counts the packets lost and says why" \
	has_line "$tmp/readers.out" "none 7 0 [ping: connect: Network is unreachable]"
check "readers: the first station's counters of a station dump, as numbers" has_exact "$tmp/readers.out" "station 10 2 1"
check "readers: no station is 1 with zeros" has_exact "$tmp/readers.out" "no station 0 0 0"
check "readers: the link's BSSID and an SSID with spaces" has_line "$tmp/readers.out" "link 00:0b:6b:de:ad:01 [rackbisect ap 2]"
check "readers: associated with another SSID is not associated" has_exact "$tmp/readers.out" "other ssid"
check "readers: elapsed time in milliseconds, printed as seconds" eval \
	'has_exact "$tmp/readers.out" "elapsed 0.550" && has_exact "$tmp/readers.out" "elapsed -0.450" &&
	 has_exact "$tmp/readers.out" "elapsed 98.050 98050"'

# The kernel log, read once per test end: a line logged between two tests
# belongs to the next one; a ring buffer that dropped old lines is found by
# the last line seen.
printf '%s\n' "boot 1" "boot 2" >"$tmp/klog"
echo 1 >"$tmp/log.uptime"
lib_run log '
	dmesg() { cat "$T/klog"; }
	rb_test_begin; echo "wlan0: authentication with 00:0b:6b:de:ad:01 timed out" >>"$T/klog"
	rb_test_end 1 one
	echo "ath: phy0: Failed to stop TX DMA, queues=0x004!" >>"$T/klog"
	rb_test_begin; rb_test_end 2 two
	printf "%s\n" "ath: phy0: Failed to stop TX DMA, queues=0x004!" "wlan0: Connection to AP 00:0b:6b:de:ad:01 lost" >"$T/klog"
	rb_test_begin; rb_test_end 3 three
	rb_test_begin; rb_test_end 4 four'
check "kernel log: each test quotes its own lines" eval \
	'sed -n "1,/^not ok 1 /p" "$tmp/log.out" | grep -q "^# dmesg: wlan0: authentication with .* timed out" &&
	 ! sed -n "1,/^not ok 1 /p" "$tmp/log.out" | grep -q "TX DMA"'
check "kernel log: a line logged between two tests goes to the next" eval \
	'sed -n "/^not ok 1 /,/^not ok 2 /p" "$tmp/log.out" | grep -q "^# failed: tx_dma_stop$"'
check "kernel log: after the ring buffer dropped lines, the lines after the last one seen" eval \
	'sed -n "/^not ok 2 /,/^not ok 3 /p" "$tmp/log.out" | grep -q "^# failed: connection_lost$"'
check "kernel log: nothing new, the test is ok" has_exact "$tmp/log.out" "ok 4 four"

echo "# $assertions assertions, $failures failed"
[ "$failures" -eq 0 ]
