#!/bin/sh
# W3 idle-transition cycling: N x (disconnect -> idle -> reconnect), half the
# reconnects with a fresh scan, half on the same channel without one. The
# idle period puts the card through mac80211's idle state (full sleep on
# kernels with c1afdaff); the reconnect is where 3.3.1 fails.
# Prints KTAP: one test per cycle. See README.md beside this file.
set -u
# shellcheck source=drivers/workload/lib.sh
# beside this script (${0%/*}: dirname would be one more process per run)
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

cycles=20
idle_min=1
idle_max=10
reconnect=mixed

usage() {
	cat <<EOF
usage: $RB_PROG [OPTION VALUE]...
Cycles the interface through disconnect, idle and reconnect; prints KTAP.
  --cycles N         disconnect/idle/reconnect cycles (default 20)
  --idle-min S       shortest idle period in seconds (default 1)
  --idle-max S       longest idle period in seconds (default 10)
  --reconnect KIND   mixed (half scan, half same-channel; default), scan, same-channel
$RB_COMMON_USAGE
EOF
}

script_option() {
	case $1 in
	--cycles) cycles=$2 ;;
	--idle-min) idle_min=$2 ;;
	--idle-max) idle_max=$2 ;;
	--reconnect) reconnect=$2 ;;
	esac
}

rb_parse_options "--cycles --idle-min --idle-max --reconnect" "$@"
rb_need_uint --cycles "$cycles" 1
cycles=$rb_uint
rb_is_decimal "$idle_min" || rb_usage_error "--idle-min needs a number, not '$idle_min'"
rb_need_decimal --idle-max "$idle_max"
rb_ge "$idle_max" "$idle_min" || rb_usage_error "--idle-max must not be less than --idle-min"
case $reconnect in
mixed | scan | same-channel) ;;
*) rb_usage_error "--reconnect must be mixed, scan or same-channel, not '$reconnect'" ;;
esac

rb_require iw ip sleep dmesg uname
rb_require_interface

# The seeded plan, one "CYCLE KIND IDLE" per cycle: with mixed, exactly half
# (rounded down) of the cycles are same-channel, in a shuffled order.
plan=$(awk -v seed="$rb_seed" -v n="$cycles" -v lo="$idle_min" -v hi="$idle_max" \
	-v mode="$reconnect" 'BEGIN {
	srand(seed)
	for (i = 1; i <= n; i++)
		kind[i] = mode == "mixed" ? (i <= int(n / 2) ? "same-channel" : "scan") : mode
	for (i = n; i > 1; i--) {
		j = int(rand() * i) + 1
		t = kind[i]; kind[i] = kind[j]; kind[j] = t
	}
	for (i = 1; i <= n; i++) {
		idle = sprintf("%.1f", lo + rand() * (hi - lo)) + 0
		if (idle < lo + 0) idle = lo + 0
		if (idle > hi + 0) idle = hi + 0
		print i, kind[i], idle
	}
}')

rb_setup
rb_ktap_begin "$cycles" "$cycles cycles of disconnect, idle ${idle_min}-${idle_max} s, reconnect ($reconnect), seed $rb_seed"
rb_setup_print

rb_power_begin
# shellcheck disable=SC2086 # the plan is our own words and numbers
set -- $plan
if [ "$rb_setup_ok" = 0 ]; then
	rb_setup_failed_report "cycle 1 $2 reconnect"
	shift 3
	while [ $# -ge 3 ]; do
		echo "ok $1 cycle $1 $2 reconnect # SKIP not associated at start"
		shift 3
	done
fi
while [ $# -ge 3 ]; do
	cycle=$1 kind=$2 idle=$3
	shift 3
	rb_test_begin
	if [ "$kind" = scan ]; then scan=yes; else scan=no; fi
	rb_diag_add "cycle $cycle: scan=$scan idle=${idle}s"
	# the association this cycle ends: its tx counters
	if rb_station_read; then
		rb_tx_account "$rb_sta_p" "$rb_sta_r" "$rb_sta_f" "on the association before cycle $cycle"
	fi
	iw dev "$rb_iface" disconnect >/dev/null 2>&1
	sleep "$idle"
	rb_now
	rb_reconnect_test "$kind" "$rb_now"
	rb_power_sample
	rb_test_end "$cycle" "cycle $cycle $kind reconnect"
done

rb_last_association_tx
rb_report_reconnect_times
# shellcheck disable=SC2086 # a list of words
rb_report_run cycles $RB_KINDS_NO_PING
exit 0
