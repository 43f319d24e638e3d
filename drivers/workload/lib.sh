# shellcheck shell=sh disable=SC2034 # a library: the scripts use what it sets
# lib.sh - helpers shared by the workloads W1-W4 (POSIX sh, sourced).
#
# The workloads run unchanged on a real Debian machine with an AR9xxx card and
# on a virtual board, so they use only what both offer: iw, ip, ping, sleep,
# dmesg, uname, /proc/uptime, ath9k debugfs, the hwmon power meter, and POSIX
# utilities (awk, sed, grep, cat, wc, tail, head). No date, no mktemp, no
# temporary files: on a virtual board time only moves inside sleep, ping and
# iw, so durations come from the uptime file and waits are sleeps.
#
# Every process costs (thousands per run, slow to start on some boards), so
# what runs once per test parses tool output with the shell's own read and
# case, and does fixed-point arithmetic in milliseconds; awk is for what runs
# once per run or only on a failure.
#
# Values from the command line are never evaluated: they are validated with
# case patterns, always quoted, and reach awk through -v only when validated
# as numbers or plain names (free text such as an SSID goes through ENVIRON).
#
# Test hook (the only one): RACKBISECT_UPTIME_FILE names the file read for
# elapsed time instead of /proc/uptime.

RB_PROG=${0##*/}
RB_NL='
'
RB_UPTIME_FILE=${RACKBISECT_UPTIME_FILE:-/proc/uptime}
# A reconnect must be associated within this many seconds (ath9k-model.md §7).
RB_RECONNECT_LIMIT=15
# Failure rules (§7): ping loss over 5 %, tx failed over 2 % of tx packets.
RB_PING_LOSS_LIMIT=5
RB_TX_FAILED_LIMIT=2
# Quote at most this many kernel log lines per test.
RB_QUOTE_MAX=20

# Options every workload accepts (a coordinator passes them uniformly).
rb_iface=wlan0
rb_ssid=rackbisect-ap
rb_bssid=00:0b:6b:de:ad:01
rb_freq=2437
rb_target=127.80.2.1
rb_seed=1

RB_COMMON_OPTIONS="--iface --ssid --bssid --freq --target --seed"
RB_COMMON_USAGE="  --iface NAME       wireless interface (default wlan0)
  --ssid SSID        access point's SSID (default rackbisect-ap)
  --bssid MAC        access point's BSSID (default 00:0b:6b:de:ad:01)
  --freq MHZ         access point's channel frequency (default 2437)
  --target ADDR      address that answers ping (default 127.80.2.1)
  --seed N           seed for the workload's own random choices (default 1)
  -h, --help         this text"

# ---- usage and exit codes ---------------------------------------------------

# Exit 2: bad command line. The script defines usage().
rb_usage_error() {
	printf '%s: %s\n' "$RB_PROG" "$1" >&2
	usage >&2
	exit 2
}

# Exit 3: the machine lacks what the workload needs.
rb_missing() {
	printf '# %s: cannot run: %s\n' "$RB_PROG" "$1"
	printf '%s: cannot run: %s\n' "$RB_PROG" "$1" >&2
	exit 3
}

rb_is_uint() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	return 0
}

# Non-negative decimal: 10, 0.2, .5
rb_is_decimal() {
	case $1 in '' | . | *[!0-9.]* | *.*.*) return 1 ;; esac
	return 0
}

# rb_no_leading_zeros DIGITS: sets rb_digits to DIGITS without leading zeros
# ("0" stays), so that $(( )) does not read them as octal
rb_no_leading_zeros() {
	rb_digits=$1
	while :; do
		case $rb_digits in 0?*) rb_digits=${rb_digits#0} ;; *) break ;; esac
	done
}

# rb_need_uint OPTION VALUE MIN
rb_need_uint() {
	rb_is_uint "$2" || rb_usage_error "$1 needs a whole number, not '$2'"
	rb_no_leading_zeros "$2"
	[ "${#rb_digits}" -le 9 ] || rb_usage_error "$1 is too large: $rb_digits"
	[ "$rb_digits" -ge "$3" ] || rb_usage_error "$1 must be at least $3"
	rb_uint=$rb_digits
}

# rb_need_decimal OPTION VALUE: a number of seconds > 0
rb_need_decimal() {
	rb_is_decimal "$2" || rb_usage_error "$1 needs a number, not '$2'"
	[ "${#2}" -le 12 ] || rb_usage_error "$1 is too long: $2"
	rb_gt "$2" 0 || rb_usage_error "$1 must be greater than 0"
}

# ---- option parsing ---------------------------------------------------------

# rb_parse_options SCRIPT_OPTIONS "$@"
# SCRIPT_OPTIONS lists the script's own long options ("--cycles --seed");
# each is handed to the script's script_option OPTION VALUE. Options take a
# value, as "--name VALUE" or "--name=VALUE".
rb_parse_options() {
	rb_known=" $RB_COMMON_OPTIONS $1 "
	shift
	while [ $# -gt 0 ]; do
		rb_opt=$1
		case $rb_opt in
		-h | --help)
			usage
			exit 0
			;;
		--*=*)
			rb_val=${rb_opt#*=}
			rb_opt=${rb_opt%%=*}
			rb_has_val=1
			;;
		--?*) rb_has_val=0 ;;
		*) rb_usage_error "unexpected argument: $rb_opt" ;;
		esac
		case $rb_known in
		*" $rb_opt "*) ;;
		*) rb_usage_error "unknown option: $rb_opt" ;;
		esac
		if [ "$rb_has_val" = 0 ]; then
			[ $# -ge 2 ] || rb_usage_error "option $rb_opt needs a value"
			rb_val=$2
			shift
		fi
		shift
		case $rb_opt in
		--iface) rb_iface=$rb_val ;;
		--ssid) rb_ssid=$rb_val ;;
		--bssid) rb_bssid=$rb_val ;;
		--freq) rb_freq=$rb_val ;;
		--target) rb_target=$rb_val ;;
		--seed) rb_seed=$rb_val ;;
		*) script_option "$rb_opt" "$rb_val" ;;
		esac
	done
	rb_validate_common
}

rb_validate_common() {
	case $rb_iface in
	'' | -* | *[!A-Za-z0-9_.-]*) rb_usage_error "--iface: not an interface name: '$rb_iface'" ;;
	esac
	[ "${#rb_iface}" -le 15 ] || rb_usage_error "--iface: name longer than 15 characters"
	case $rb_ssid in
	'' | *[![:print:]]*) rb_usage_error "--ssid: empty or not printable" ;;
	esac
	[ "${#rb_ssid}" -le 32 ] || rb_usage_error "--ssid: longer than 32 bytes"
	rb_hex='[0-9A-Fa-f][0-9A-Fa-f]'
	# shellcheck disable=SC2254 # the pattern is ours, built from a constant
	case $rb_bssid in
	$rb_hex:$rb_hex:$rb_hex:$rb_hex:$rb_hex:$rb_hex) ;;
	*) rb_usage_error "--bssid: not a MAC address: '$rb_bssid'" ;;
	esac
	rb_need_uint --freq "$rb_freq" 1
	rb_freq=$rb_uint
	case $rb_target in
	'' | -* | *[!A-Za-z0-9.:_-]*) rb_usage_error "--target: not an address or host name: '$rb_target'" ;;
	esac
	rb_need_uint --seed "$rb_seed" 0
	rb_seed=$rb_uint
}

# ---- arithmetic (the values are validated numbers) ---------------------------

# rb_exact_ms VALUE: 0, with rb_ms set, when VALUE is a decimal of at most
# three decimals (what options and uptimes have): whole milliseconds then
# compare exactly as awk's doubles would.
rb_exact_ms() {
	rb_is_decimal "$1" || return 1
	case $1 in *.????*) return 1 ;; esac
	[ "${#1}" -le 13 ] || return 1
	rb_ms "$1"
}

# rb_compare TEST_OP AWK_OP A B: A compared with B (-gt and >, -ge and >=);
# by the shell when it can be exact (an awk is a process: several per run
# add up on a lab's thousands of runs)
rb_compare() {
	if rb_exact_ms "$3" && rb_a_ms=$rb_ms && rb_exact_ms "$4"; then
		test "$rb_a_ms" "$1" "$rb_ms"
	else
		awk -v a="$3" -v b="$4" "BEGIN { exit !(a + 0 $2 b + 0) }"
	fi
}
rb_gt() { rb_compare -gt '>' "$1" "$2"; }
rb_ge() { rb_compare -ge '>=' "$1" "$2"; }
# rb_calc EXPR_OF_a_b A B [FORMAT]: sets rb_value to the expression's value
# (called as is, not in $(...): a subshell around the awk would be one more
# process)
rb_calc() {
	rb_value=$(awk -v a="$2" -v b="$3" -v fmt="${4:-%.3f}" "BEGIN { printf fmt, $1 }")
}

# rb_loss_percent SENT RECEIVED: sets rb_value to the share lost, "12.50";
# no awk for the usual answer, none lost
rb_loss_percent() {
	if [ "$1" -eq "$2" ]; then
		rb_value=0.00
	else
		rb_calc '(a - b) * 100 / a' "$1" "$2" '%.2f'
	fi
}

# ---- time --------------------------------------------------------------------

# Sets rb_now to the seconds since boot (simulated on a virtual board).
rb_now() {
	rb_now=
	read -r rb_now rb_ignored 2>/dev/null <"$RB_UPTIME_FILE"
	rb_is_decimal "$rb_now" || rb_now=0
}

# rb_ms DECIMAL: sets rb_ms to DECIMAL (a validated number of seconds) in
# whole milliseconds; digits past the third decimal are dropped (uptimes
# have two).
rb_ms() {
	rb_ms_int=${1%%.*}
	rb_ms_frac=
	case $1 in *.*) rb_ms_frac=${1#*.} ;; esac
	rb_ms_frac=${rb_ms_frac}000
	rb_ms_frac=${rb_ms_frac%"${rb_ms_frac#???}"}
	rb_no_leading_zeros "$rb_ms_int"
	rb_ms=$((${rb_digits:-0} * 1000 + 1$rb_ms_frac - 1000))
}

# rb_ms_text MS: sets rb_text to MS milliseconds as seconds, "12.340"
rb_ms_text() {
	rb_text=
	rb_ms_abs=$1
	if [ "$rb_ms_abs" -lt 0 ]; then
		rb_text=-
		rb_ms_abs=$((-rb_ms_abs))
	fi
	rb_ms_frac=$((rb_ms_abs % 1000))
	case ${#rb_ms_frac} in
	1) rb_ms_frac=00$rb_ms_frac ;;
	2) rb_ms_frac=0$rb_ms_frac ;;
	esac
	rb_text=$rb_text$((rb_ms_abs / 1000)).$rb_ms_frac
}

# rb_elapsed_since START: sets rb_elapsed_ms and rb_elapsed ("2.340", in
# seconds) to the time since START, an uptime.
rb_elapsed_since() {
	rb_now
	rb_ms "$rb_now"
	rb_elapsed_ms=$rb_ms
	rb_ms "$1"
	rb_elapsed_ms=$((rb_elapsed_ms - rb_ms))
	rb_ms_text "$rb_elapsed_ms"
	rb_elapsed=$rb_text
}

# ---- reading tool output (no process per line) ---------------------------------

# rb_trim_leading TEXT: sets rb_trimmed to TEXT without its leading blanks
rb_trim_leading() {
	rb_trimmed=${1#"${1%%[! 	]*}"}
}

# rb_count TEXT: sets rb_count to the number TEXT starts with (after blanks),
# 0 when none, without leading zeros (the shell would read them as octal).
rb_count() {
	rb_trim_leading "$1"
	rb_no_leading_zeros "${rb_trimmed%%[!0-9]*}"
	rb_count=${rb_digits:-0}
}

# ---- checks of the machine ----------------------------------------------------

# rb_require TOOL...: exit 3 naming every tool that is missing.
rb_require() {
	rb_missing_tools=
	for rb_tool in "$@"; do
		command -v "$rb_tool" >/dev/null 2>&1 || rb_missing_tools="$rb_missing_tools $rb_tool"
	done
	[ -z "$rb_missing_tools" ] || rb_missing "missing tools:$rb_missing_tools"
	[ -r "$RB_UPTIME_FILE" ] || rb_missing "cannot read $RB_UPTIME_FILE"
	dmesg >/dev/null 2>&1 || rb_missing "cannot read the kernel log with dmesg (run as root)"
}

# Exit 3 unless iw lists the interface; sets rb_phy (phy0) for debugfs.
# `iw dev` says "phy#0" at the start of a line, then "\tInterface wlan0".
rb_require_interface() {
	rb_out=$(iw dev 2>/dev/null)
	rb_phy=
	rb_have=
	rb_this_phy=
	while IFS= read -r rb_line; do
		case $rb_line in
		phy#*)
			rb_this_phy=${rb_line%%[ 	]*}
			rb_this_phy=phy${rb_this_phy#phy#}
			continue
			;;
		esac
		rb_trim_leading "$rb_line"
		case $rb_trimmed in "Interface "* | "Interface	"*) ;; *) continue ;; esac
		rb_trim_leading "${rb_trimmed#Interface}"
		rb_name=${rb_trimmed%%[ 	]*}
		rb_have="$rb_have $rb_name"
		[ -n "$rb_phy" ] || [ "$rb_name" != "$rb_iface" ] || rb_phy=$rb_this_phy
	done <<EOF
$rb_out
EOF
	[ -n "$rb_phy" ] || rb_missing "no wireless interface $rb_iface (iw dev lists:${rb_have:- none})"
}

# ---- kernel log ----------------------------------------------------------------

# Remembers where the kernel log ends now; rb_check_log reads what came after.
rb_log_mark() {
	rb_mark=$(dmesg 2>/dev/null | awk '{ last = $0 } END { print NR " " last }')
	rb_mark_count=${rb_mark%% *}
	rb_mark_last=${rb_mark#* }
}

# One pass over the kernel log: the lines added since rb_log_mark ("L LINE"),
# those a failure rule names ("H KIND LINE"), and where the log ends now
# ("M COUNT LAST"). The line count finds the new lines; if the ring buffer
# dropped old lines meanwhile, the last line seen does.
rb_log_read() {
	dmesg 2>/dev/null | RB_MARK_LAST=$rb_mark_last awk -v n="$rb_mark_count" -v ifc="$rb_iface" '
		{ line[NR] = $0 }
		END {
			last = ENVIRON["RB_MARK_LAST"]; start = 0
			if (n > 0 && n <= NR && line[n] == last)
				start = n
			else if (n > 0)
				for (i = NR; i >= 1; i--)
					if (line[i] == last) { start = i; break }
			for (i = start + 1; i <= NR; i++) {
				l = line[i]
				print "L " l
				if (index(l, ifc ": authentication with ") && l ~ / timed out/) print "H auth_timeout " l
				else if (index(l, ifc ": Connection to AP ") && l ~ / lost/) print "H connection_lost " l
				else if (l ~ /Failed to stop TX DMA/) print "H tx_dma_stop " l
				else if (l ~ /DMA failed to stop|Could not stop RX/) print "H rx_dma_stop " l
			}
			print "M " NR " " line[NR]
		}'
}

# ---- per-test results ------------------------------------------------------------

# A test collects diagnostics (printed before its result line, as KTAP
# wants) and failure kinds; rb_test_end prints them. It takes the kernel log
# from where the previous test's reading ended (nothing runs between two
# tests, and no line falls between them), else from where the log ends now.
rb_test_begin() {
	rb_diag=
	rb_kinds=
	rb_test_log=
	rb_test_hits=
	[ "$rb_mark_fresh" = 1 ] || rb_log_mark
	rb_mark_fresh=0
}
rb_mark_fresh=0

rb_diag_add() { rb_diag="$rb_diag# $1$RB_NL"; }

rb_kind_add() {
	case " $rb_kinds " in
	*" $1 "*) ;;
	*) rb_kinds="${rb_kinds:+$rb_kinds }$1" ;;
	esac
}

# Failure kinds and their counters (a fixed set: no eval).
RB_KINDS="not_associated auth_timeout connection_lost tx_dma_stop rx_dma_stop ping_loss tx_failed"
# ... of workloads that do not ping
RB_KINDS_NO_PING="not_associated auth_timeout connection_lost tx_dma_stop rx_dma_stop tx_failed"
rb_n_failed=0
rb_n_not_associated=0
rb_n_auth_timeout=0
rb_n_connection_lost=0
rb_n_tx_dma_stop=0
rb_n_rx_dma_stop=0
rb_n_ping_loss=0
rb_n_tx_failed=0

rb_kind_count() {
	case $1 in
	not_associated) rb_n_not_associated=$((rb_n_not_associated + 1)) ;;
	auth_timeout) rb_n_auth_timeout=$((rb_n_auth_timeout + 1)) ;;
	connection_lost) rb_n_connection_lost=$((rb_n_connection_lost + 1)) ;;
	tx_dma_stop) rb_n_tx_dma_stop=$((rb_n_tx_dma_stop + 1)) ;;
	rx_dma_stop) rb_n_rx_dma_stop=$((rb_n_rx_dma_stop + 1)) ;;
	ping_loss) rb_n_ping_loss=$((rb_n_ping_loss + 1)) ;;
	tx_failed) rb_n_tx_failed=$((rb_n_tx_failed + 1)) ;;
	esac
}

# rb_kind_total KIND: sets rb_total to the tests that failed with KIND
rb_kind_total() {
	case $1 in
	not_associated) rb_total=$rb_n_not_associated ;;
	auth_timeout) rb_total=$rb_n_auth_timeout ;;
	connection_lost) rb_total=$rb_n_connection_lost ;;
	tx_dma_stop) rb_total=$rb_n_tx_dma_stop ;;
	rx_dma_stop) rb_total=$rb_n_rx_dma_stop ;;
	ping_loss) rb_total=$rb_n_ping_loss ;;
	tx_failed) rb_total=$rb_n_tx_failed ;;
	*) rb_total=0 ;;
	esac
}

# Reads the kernel log since the test began (adding to what an earlier call
# read, with the lines a failure rule names) and marks where it ends now.
rb_check_log() {
	rb_read=$(rb_log_read)
	while IFS= read -r rb_line; do
		case $rb_line in
		"L "*) rb_test_log="$rb_test_log${rb_line#L }$RB_NL" ;;
		"H "*) rb_test_hits="$rb_test_hits${rb_line#H }$RB_NL" ;;
		"M "*)
			rb_line=${rb_line#M }
			rb_mark_count=${rb_line%% *}
			rb_mark_last=${rb_line#* }
			;;
		esac
	done <<EOF
$rb_read
EOF
}

# Adds a failure kind for each kernel log line of the test a failure rule
# names, and quotes the line.
rb_classify_log() {
	rb_quoted=0
	while IFS= read -r rb_hit; do
		[ -n "$rb_hit" ] || continue
		rb_kind_add "${rb_hit%% *}"
		rb_quoted=$((rb_quoted + 1))
		[ "$rb_quoted" -le "$RB_QUOTE_MAX" ] && rb_diag_add "dmesg: ${rb_hit#* }"
	done <<EOF
$rb_test_hits
EOF
	if [ "$rb_quoted" -gt "$RB_QUOTE_MAX" ]; then
		rb_diag_add "dmesg: ... $((rb_quoted - RB_QUOTE_MAX)) more such lines"
	fi
}

# When a test failed without a kernel line naming why (not associated, ping
# loss, tx failures), quote the card's last log lines of the test as context.
rb_quote_context() {
	[ "$rb_quoted" -eq 0 ] || return 0
	rb_context=$(printf '%s' "$rb_test_log" | awk -v ifc="$rb_iface" '
		index($0, ifc ": ") || / ath: / || /ath9k/ { l[++n] = $0 }
		END { for (i = (n > 10 ? n - 9 : 1); i <= n; i++) print l[i] }')
	if [ -z "$rb_context" ]; then
		rb_diag_add "dmesg: (no $rb_iface or ath9k line in the kernel log during this test)"
		return 0
	fi
	while IFS= read -r rb_line; do
		rb_diag_add "dmesg: $rb_line"
	done <<EOF
$rb_context
EOF
}

# rb_test_end NUMBER NAME: prints the diagnostics and the result line.
rb_test_end() {
	rb_check_log
	rb_mark_fresh=1
	rb_classify_log
	if [ -n "$rb_kinds" ]; then
		rb_quote_context
		rb_diag_add "failed: $rb_kinds"
		for rb_k in $rb_kinds; do rb_kind_count "$rb_k"; done
		rb_n_failed=$((rb_n_failed + 1))
		printf '%s' "$rb_diag"
		printf 'not ok %s %s\n' "$1" "$2"
	else
		printf '%s' "$rb_diag"
		printf 'ok %s %s\n' "$1" "$2"
	fi
	rb_diag=
}

rb_metric() { printf '# metric %s=%s %s\n' "$1" "$2" "$3"; }

# rb_report_failures UNIT KIND...: failed_KIND=N UNIT, then failed=N UNIT
rb_report_failures() {
	rb_unit=$1
	shift
	for rb_k in "$@"; do
		rb_kind_total "$rb_k"
		rb_metric "failed_$rb_k" "$rb_total" "$rb_unit"
	done
	rb_metric failed "$rb_n_failed" "$rb_unit"
}

# rb_report_run UNIT KIND...: the run-level metrics every workload ends with:
# failures by kind, TX counters, power, and the debugfs reset causes (read
# last: reading debugfs wakes the chip).
rb_report_run() {
	rb_report_failures "$@"
	rb_report_tx
	rb_power_report
	rb_debugfs_report
}

# ---- KTAP header -------------------------------------------------------------------

# rb_ktap_begin PLAN DESCRIPTION
rb_ktap_begin() {
	echo "KTAP version 1"
	echo "1..$1"
	printf '# %s: %s\n' "$RB_PROG" "$2"
	printf '# kernel %s, interface %s (%s), access point %s %s at %s MHz\n' \
		"$(uname -r 2>/dev/null)" "$rb_iface" "$rb_phy" "$rb_ssid" "$rb_bssid" "$rb_freq"
}

# ---- link state --------------------------------------------------------------------

# 0 when the interface is associated with the SSID; sets rb_link_bssid.
# `iw dev IFACE link` says "Connected to BSSID (on IFACE)" and "\tSSID: NAME".
rb_associated() {
	rb_link=$(iw dev "$rb_iface" link 2>/dev/null)
	rb_link_bssid=
	rb_link_ssid=
	while IFS= read -r rb_line; do
		case $rb_line in
		"Connected to "*)
			rb_trim_leading "${rb_line#Connected to }"
			rb_link_bssid=${rb_trimmed%%[ 	]*}
			;;
		*)
			rb_trim_leading "$rb_line"
			case $rb_trimmed in "SSID: "*) rb_link_ssid=${rb_trimmed#SSID: } ;; esac
			;;
		esac
	done <<EOF
$rb_link
EOF
	[ -n "$rb_link_bssid" ] && [ "$rb_link_ssid" = "$rb_ssid" ]
}

# rb_last_words TEXT: sets rb_last_words to TEXT's last line that is not blank
rb_last_words() {
	rb_last_words=
	while IFS= read -r rb_line; do
		case $rb_line in *[!\ \	]*) rb_last_words=$rb_line ;; esac
	done <<EOF
$1
EOF
}

# `iw connect -w` waits for the kernel's connect event, and on a real stack
# (mac80211_hwsim with hostapd, seen 2 in 3 W3 runs) it sometimes never ends
# although the station did associate: where `timeout` exists (coreutils,
# busybox) an attempt is cut after this many seconds and the link decides.
RB_CONNECT_WAIT=10

# rb_connect_once scan|same-channel: one `iw connect -w`; its last line of
# output goes to rb_connect_said. The iw (or the timeout) is what the command
# substitution runs itself: no shell function between, no process more.
rb_connect_once() {
	rb_bound=
	command -v timeout >/dev/null 2>&1 && rb_bound="timeout $RB_CONNECT_WAIT"
	# shellcheck disable=SC2086 # $rb_bound: the words "timeout N", or none
	if [ "$1" = same-channel ]; then
		rb_out=$($rb_bound iw dev "$rb_iface" connect -w "$rb_ssid" "$rb_freq" "$rb_bssid" 2>&1)
	else
		rb_out=$($rb_bound iw dev "$rb_iface" connect -w "$rb_ssid" 2>&1)
	fi
	rb_last_words "$rb_out"
	rb_connect_said=$rb_last_words
}

# rb_reconnect KIND START: connects (first as KIND, retries with a scan, as a
# supplicant would) until associated or RB_RECONNECT_LIMIT seconds after
# START (an uptime). 0 when associated in time. Sets rb_reconnect_time and
# rb_connect_attempts; adds a diagnostic per failed attempt.
rb_reconnect() {
	rb_kind=$1
	rb_start=$2
	rb_connect_attempts=0
	rb_reconnect_time=
	while :; do
		rb_connect_attempts=$((rb_connect_attempts + 1))
		rb_connect_once "$rb_kind"
		if rb_associated; then
			rb_elapsed_since "$rb_start"
			rb_reconnect_time=$rb_elapsed
			[ "$rb_elapsed_ms" -gt $((RB_RECONNECT_LIMIT * 1000)) ] || return 0
			rb_diag_add "associated only after $rb_reconnect_time s (limit $RB_RECONNECT_LIMIT s)"
			return 1
		fi
		# the first attempts say why; the summary below counts the rest
		[ "$rb_connect_attempts" -gt 5 ] ||
			rb_diag_add "connect attempt $rb_connect_attempts ($rb_kind): ${rb_connect_said:-no output}"
		rb_elapsed_since "$rb_start"
		if [ "$rb_elapsed_ms" -ge $((RB_RECONNECT_LIMIT * 1000)) ] || [ "$rb_connect_attempts" -ge 200 ]; then
			rb_diag_add "not associated with $rb_ssid within $RB_RECONNECT_LIMIT s ($rb_connect_attempts attempts, $rb_elapsed s)"
			return 1
		fi
		# An attempt that failed at once (e.g. interface not ready) must not
		# spin: on a virtual board only a tool moves time.
		sleep 0.1
		rb_kind=scan
	done
}

# rb_reconnect_test KIND START: rb_reconnect inside a test: records the
# reconnect time (also of a late association) and the failure.
rb_reconnect_test() {
	rb_reconnect "$1" "$2" || rb_kind_add not_associated
	[ -n "$rb_reconnect_time" ] || return 0
	rb_times_add "$rb_reconnect_time"
	rb_diag_add "metric reconnect_time=$rb_reconnect_time s"
	[ "$rb_connect_attempts" -eq 1 ] || rb_diag_add "associated after $rb_connect_attempts connect attempts"
}

# rb_setup: interface up and associated (retrying up to the limit), before
# the plan is printed. Sets rb_setup_ok (1/0) and leaves diagnostics in
# rb_setup_diag; a workload whose setup failed reports it in its first test.
rb_setup() {
	rb_diag=
	rb_log_mark
	rb_setup_mark_count=$rb_mark_count
	rb_setup_mark_last=$rb_mark_last
	rb_setup_ok=1
	# "3: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 ...": the third word
	rb_out=$(ip link show "$rb_iface" 2>/dev/null)
	rb_link_flags=
	read -r rb_ignored rb_ignored rb_link_flags rb_ignored <<EOF
${rb_out%%"$RB_NL"*}
EOF
	case $rb_link_flags in
	'<'UP[,\>]* | '<'*,UP[,\>]*) ;;
	*)
		if ! rb_err=$(ip link set "$rb_iface" up 2>&1); then
			rb_diag_add "setup: ip link set $rb_iface up failed: $rb_err"
		fi
		;;
	esac
	rb_now
	rb_setup_start=$rb_now
	if rb_associated; then
		rb_diag_add "setup: $rb_iface already associated with $rb_ssid ($rb_link_bssid)"
	elif rb_reconnect scan "$rb_setup_start"; then
		rb_diag_add "setup: associated with $rb_ssid ($rb_link_bssid) in $rb_reconnect_time s"
	else
		rb_setup_ok=0
		rb_diag_add "setup: $rb_iface could not associate with $rb_ssid"
		if iw dev "$rb_iface" scan 2>/dev/null | RB_SSID=$rb_ssid awk '
			/^[ \t]*SSID: / { sub(/^[ \t]*SSID: /, ""); if ($0 == ENVIRON["RB_SSID"]) f = 1 }
			END { exit !f }'; then
			rb_diag_add "setup: a scan sees $rb_ssid"
		else
			rb_diag_add "setup: a scan does not see $rb_ssid (access point down or out of range?)"
		fi
	fi
	rb_setup_diag=$rb_diag
	rb_diag=
}

# The setup's diagnostics after the KTAP header (a failed setup's go with
# test 1 instead, see rb_setup_failed_report).
rb_setup_print() {
	[ "$rb_setup_ok" = 0 ] || printf '%s' "$rb_setup_diag"
	# "Power save: on"
	rb_out=$(iw dev "$rb_iface" get power_save 2>/dev/null)
	rb_line=${rb_out%%"$RB_NL"*}
	case $rb_line in
	*": "*)
		rb_line=${rb_line#*: }
		rb_line=${rb_line%%": "*}
		;;
	*) rb_line= ;;
	esac
	echo "# power_save: $rb_line"
}

# rb_setup_failed_report NAME_OF_TEST_1: the setup failure as test 1
# (with the kernel log of the setup); the other tests are skipped by the
# caller.
rb_setup_failed_report() {
	rb_test_begin
	rb_mark_count=$rb_setup_mark_count
	rb_mark_last=$rb_setup_mark_last
	rb_diag=$rb_setup_diag
	rb_kind_add not_associated
	rb_test_end 1 "$1"
}

# Reconnect times of the run, for max/mean at the end.
rb_times=

rb_times_add() { rb_times="$rb_times $1"; }

rb_report_reconnect_times() {
	# shellcheck disable=SC2086 # numbers only
	set -- $rb_times
	rb_metric reconnects_associated "$#" count
	[ $# -gt 0 ] || return 0
	printf '%s\n' "$@" | awk '
		NR == 1 || $1 > max { max = $1 }
		{ sum += $1 }
		END { printf "# metric reconnect_time_max=%.3f s\n# metric reconnect_time_mean=%.3f s\n", max, sum / NR }'
}

# ---- station counters -----------------------------------------------------------

# Reads tx packets/retries/failed of the AP station into rb_sta_p/r/f;
# 1 (and zeros) when not associated.
# The first station's lines: "Station BSSID (on IFACE)", "\ttx packets:\tN".
rb_station_read() {
	rb_sta=$(iw dev "$rb_iface" station dump 2>/dev/null)
	rb_sta_p=0 rb_sta_r=0 rb_sta_f=0
	rb_sta_n=0
	while IFS= read -r rb_line; do
		case $rb_line in "Station "*) rb_sta_n=$((rb_sta_n + 1)) ;; esac
		[ "$rb_sta_n" -eq 1 ] || continue
		rb_trim_leading "$rb_line"
		case $rb_trimmed in
		"tx packets:"*) rb_count "${rb_trimmed#*:}" && rb_sta_p=$rb_count ;;
		"tx retries:"*) rb_count "${rb_trimmed#*:}" && rb_sta_r=$rb_count ;;
		"tx failed:"*) rb_count "${rb_trimmed#*:}" && rb_sta_f=$rb_count ;;
		esac
	done <<EOF
$rb_sta
EOF
	[ "$rb_sta_n" -gt 0 ]
}

rb_tx_p_total=0
rb_tx_r_total=0
rb_tx_f_total=0

# rb_tx_account PACKETS RETRIES FAILED WHAT: adds to the run's totals and
# applies the tx failed rule to them (WHAT names the span in diagnostics).
rb_tx_account() {
	rb_tx_p_total=$((rb_tx_p_total + $1))
	rb_tx_r_total=$((rb_tx_r_total + $2))
	rb_tx_f_total=$((rb_tx_f_total + $3))
	if [ "$1" -gt 0 ] && [ $(($3 * 100)) -gt $(($1 * RB_TX_FAILED_LIMIT)) ]; then
		rb_kind_add tx_failed
		rb_calc 'a * 100 / b' "$3" "$1" '%.1f'
		rb_diag_add "tx failed $3 of $1 packets ($rb_value %, limit $RB_TX_FAILED_LIMIT %) $4"
	fi
}

# Remember counters at a span's start; rb_station_delta gives the span's own.
rb_station_begin() {
	rb_station_read
	rb_sta_p0=$rb_sta_p rb_sta_r0=$rb_sta_r rb_sta_f0=$rb_sta_f
}

# Counters since rb_station_begin into rb_d_p/r/f. A reassociation restarts
# the station's counters: a smaller value is then the new station's count.
rb_station_delta() {
	rb_station_read
	if [ "$rb_sta_p" -ge "$rb_sta_p0" ] && [ "$rb_sta_f" -ge "$rb_sta_f0" ] &&
		[ "$rb_sta_r" -ge "$rb_sta_r0" ]; then
		rb_d_p=$((rb_sta_p - rb_sta_p0)) rb_d_r=$((rb_sta_r - rb_sta_r0)) rb_d_f=$((rb_sta_f - rb_sta_f0))
	else
		rb_d_p=$rb_sta_p rb_d_r=$rb_sta_r rb_d_f=$rb_sta_f
	fi
}

# After the last cycle: the counters of the association it made (a tx
# failure there is reported, not attributed to a cycle).
rb_last_association_tx() {
	rb_diag=
	if rb_station_read; then
		rb_tx_account "$rb_sta_p" "$rb_sta_r" "$rb_sta_f" "on the last association"
		printf '%s' "$rb_diag"
	fi
	rb_diag=
}

rb_report_tx() {
	rb_metric tx_packets "$rb_tx_p_total" count
	rb_metric tx_retries "$rb_tx_r_total" count
	rb_metric tx_failed "$rb_tx_f_total" count
	if [ "$rb_tx_p_total" -gt 0 ]; then
		# tx failed of tx packets in %, the same sum as a loss (none: no awk)
		rb_loss_percent "$rb_tx_p_total" "$((rb_tx_p_total - rb_tx_f_total))"
		rb_metric tx_failed_ratio "$rb_value" %
	fi
}

# ---- ping ----------------------------------------------------------------------------

# rb_ping EXPECTED ARG...: runs ping ARG...; sets rb_ping_tx/rx (a ping that
# printed no statistics counts EXPECTED packets, all lost) and rb_ping_said.
rb_ping() {
	rb_expect=$1
	shift
	rb_out=$(ping "$@" 2>&1)
	rb_pstat=
	rb_ping_said=
	while IFS= read -r rb_line; do
		case $rb_line in
		*"packets transmitted"*) rb_pstat=$rb_line ;;
		*[!\ \	]*) [ -n "$rb_ping_said" ] || rb_ping_said=$rb_line ;;
		esac
	done <<EOF
$rb_out
EOF
	if [ -n "$rb_pstat" ]; then
		# "5 packets transmitted, 4 received, ..." (busybox: "4 packets received")
		rb_count "$rb_pstat"
		rb_ping_tx=$rb_count
		rb_ping_rx=0
		case $rb_pstat in
		*received*)
			rb_before=${rb_pstat%%received*}
			rb_before=${rb_before%"${rb_before##*[! ]}"}
			case ${rb_before##* } in
			*[!0-9]* | '') rb_before=${rb_before% *} ;;
			esac
			rb_count "${rb_before##* }"
			rb_ping_rx=$rb_count
			;;
		esac
		rb_ping_said=
	else
		rb_ping_tx=$rb_expect
		rb_ping_rx=0
	fi
}

# ---- power meter -----------------------------------------------------------------------

# Finds the hwmon meter named ath9k_power (rb_meter, empty when none) and
# starts measuring.
rb_power_begin() {
	rb_meter=
	for rb_d in /sys/class/hwmon/hwmon*; do
		[ -r "$rb_d/name" ] || continue
		read -r rb_name <"$rb_d/name" || continue
		if [ "$rb_name" = ath9k_power ]; then
			rb_meter=$rb_d
			break
		fi
	done
	rb_power_start
}

# Remembers the time and the meter's energy counter at the start.
rb_power_start() {
	rb_now
	rb_power_t0=$rb_now
	rb_power_e0=
	rb_power_sum=0
	rb_power_n=0
	rb_phase_powers=
	rb_phase_n=0
	rb_ms "$rb_now"
	rb_phase_ms=$rb_ms
	[ -n "$rb_meter" ] || return 0
	if [ -r "$rb_meter/energy1_input" ]; then
		read -r rb_power_e0 <"$rb_meter/energy1_input"
		rb_is_uint "$rb_power_e0" || rb_power_e0=
		rb_count "$rb_power_e0"
		rb_phase_e=$rb_count
	fi
}

# Called at the end of each test (a phase, a cycle): that test's own average
# power, kept as "N:TENTHS_OF_MW" for rb_power_report's phase_power_N lines
# (N the test's number, so a test with no reading leaves a gap, not a shift).
# With an energy counter it is the counter's rise since the last test ended
# over the time between (uJ per ms is mW; tenths, rounded, by shell
# arithmetic: no process; the counter's uJ need 64-bit arithmetic, as dash
# and bash have); without one it is the sample of power1_input (its mean over
# the last second), which the run's average is then made of too.
rb_power_sample() {
	[ -n "$rb_meter" ] || return 0
	rb_phase_n=$((rb_phase_n + 1))
	if [ -n "$rb_power_e0" ]; then
		read -r rb_p <"$rb_meter/energy1_input" || return 0
		rb_is_uint "$rb_p" || return 0
		rb_count "$rb_p"
		rb_now
		rb_ms "$rb_now"
		if [ "$rb_ms" -gt "$rb_phase_ms" ] && [ "$rb_count" -ge "$rb_phase_e" ]; then
			rb_phase_powers="$rb_phase_powers $rb_phase_n:$((((rb_count - rb_phase_e) * 100 / (rb_ms - rb_phase_ms) + 5) / 10))"
		fi
		rb_phase_e=$rb_count
		rb_phase_ms=$rb_ms
		return 0
	fi
	[ -r "$rb_meter/power1_input" ] || return 0
	read -r rb_p <"$rb_meter/power1_input" || return 0
	rb_is_uint "$rb_p" || return 0
	rb_count "$rb_p"
	rb_power_sum=$((rb_power_sum + rb_count))
	rb_power_n=$((rb_power_n + 1))
	rb_phase_powers="$rb_phase_powers $rb_phase_n:$(((rb_count + 50) / 100))"
}

# phase_power_N per test that had a reading, from tenths of mW.
rb_phase_power_report() {
	for rb_t in $rb_phase_powers; do
		rb_v=${rb_t#*:}
		rb_metric "phase_power_${rb_t%%:*}" "$((rb_v / 10)).$((rb_v % 10))" mW
	done
}

# duration, energy and average power of the run, then each test's power.
rb_power_report() {
	rb_elapsed_since "$rb_power_t0"
	rb_duration=$rb_elapsed
	rb_metric duration "$rb_duration" s
	if [ -z "$rb_meter" ]; then
		echo "# no power meter (no hwmon device named ath9k_power): energy and power not measured"
		return 0
	fi
	rb_power_e1=
	[ -z "$rb_power_e0" ] || read -r rb_power_e1 <"$rb_meter/energy1_input"
	if rb_is_uint "$rb_power_e1" && [ -n "$rb_power_e0" ]; then
		# energy in J, then the average power in mW when time passed: one awk
		rb_value=$(awk -v e1="$rb_power_e1" -v e0="$rb_power_e0" -v d="$rb_duration" 'BEGIN {
			uj = sprintf("%.0f", e1 - e0) + 0
			printf "%.3f", uj / 1000000
			if (d + 0 > 0) printf " %.1f", uj / d / 1000 }')
		rb_metric energy "${rb_value%% *}" J
		case $rb_value in *" "*) rb_metric power_avg "${rb_value#* }" mW ;; esac
	elif [ "$rb_power_n" -gt 0 ]; then
		rb_calc 'a / b / 1000' "$rb_power_sum" "$rb_power_n" '%.1f'
		rb_mw=$rb_value
		rb_calc 'a * b / 1000' "$rb_mw" "$rb_duration" '%.3f'
		rb_metric energy "$rb_value" J
		rb_metric power_avg "$rb_mw" mW
		echo "# power from $rb_power_n samples of power1_input (the meter has no energy1_input)"
	else
		echo "# power meter $rb_meter gave no reading"
	fi
	rb_phase_power_report
}

# ---- ath9k debugfs (read once, at the end: reading wakes the chip) -----------------------

# rb_reset_counters FILE: "NAME COUNT" per reset cause in an ath9k debugfs
# `reset` or `wiphy` file, NAME the same for both formats where they overlap.
rb_reset_counters() {
	rb_is_reset_file=0
	[ "${1##*/}" = reset ] && rb_is_reset_file=1
	awk -F: -v is_reset="$rb_is_reset_file" '
		NF == 2 && $2 ~ /^[ \t]*[0-9]+[ \t]*$/ {
			name = $1; gsub(/^[ \t]+|[ \t]+$/, "", name)
			if (name == "BB HANG" || name == "Baseband Hang") key = "bb_hang"
			else if (name == "BB WATCHDOG" || name == "Baseband Watchdog") key = "bb_watchdog"
			else if (name == "FATAL HW" || name == "Fatal HW Error") key = "fatal_hw_error"
			else if (name == "TX HW errors" || name == "TX HW error") key = "tx_hw_error"
			else if (name == "TX Path Hang") key = "tx_path_hang"
			else if (name == "PLL RX Hang") key = "pll_rx_hang"
			else if (is_reset) {
				key = tolower(name); gsub(/[^a-z0-9]+/, "_", key)
			} else next
			printf "%s %d\n", key, $2 + 0
		}' 2>/dev/null <"$1"
}

# Reset causes as metrics reset_NAME=N count: the `reset` file where the kernel
# has one (3.6+, with DMA stop error counters in current kernels), else the
# reset causes at the end of `wiphy` (3.3).
rb_debugfs_report() {
	rb_dfs=/sys/kernel/debug/ieee80211/$rb_phy/ath9k
	if [ -r "$rb_dfs/reset" ]; then
		rb_dfs_file=$rb_dfs/reset
	elif [ -r "$rb_dfs/wiphy" ]; then
		rb_dfs_file=$rb_dfs/wiphy
	else
		echo "# ath9k debugfs not readable at $rb_dfs (mount debugfs, run as root): no reset counters"
		return 0
	fi
	rb_resets=$(rb_reset_counters "$rb_dfs_file")
	if [ -z "$rb_resets" ]; then
		echo "# no reset counters in $rb_dfs_file"
		return 0
	fi
	while read -r rb_key rb_count; do
		[ -n "$rb_key" ] && rb_metric "reset_$rb_key" "$rb_count" count
	done <<EOF
$rb_resets
EOF
}
