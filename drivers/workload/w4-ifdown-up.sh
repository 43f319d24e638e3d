#!/bin/sh
# W4 interface down/up cycles: N x (ip link set down -> pause -> up ->
# reconnect within 15 s). Down stops the driver (the chip goes to full
# sleep); up starts it again with a chip reset.
# Prints KTAP: one test per cycle. See README.md beside this file.
set -u
# shellcheck source=drivers/workload/lib.sh
# beside this script (${0%/*}: dirname would be one more process per run)
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

cycles=20
down_time=1

usage() {
	cat <<EOF
usage: $RB_PROG [OPTION VALUE]...
Takes the interface down and up again, reconnecting each time; prints KTAP.
  --cycles N         down/up cycles (default 20)
  --down-time S      seconds the interface stays down (default 1)
$RB_COMMON_USAGE
EOF
}

script_option() {
	case $1 in
	--cycles) cycles=$2 ;;
	--down-time) down_time=$2 ;;
	esac
}

rb_parse_options "--cycles --down-time" "$@"
rb_need_uint --cycles "$cycles" 1
cycles=$rb_uint
rb_need_decimal --down-time "$down_time"

rb_require iw ip sleep dmesg uname
rb_require_interface

rb_setup
rb_ktap_begin "$cycles" "$cycles cycles of ip link down, ${down_time} s, up, reconnect"
rb_setup_print

rb_power_begin
cycle=1
if [ "$rb_setup_ok" = 0 ]; then
	rb_setup_failed_report "cycle 1 down/up reconnect"
	cycle=2
	while [ "$cycle" -le "$cycles" ]; do
		echo "ok $cycle cycle $cycle down/up reconnect # SKIP not associated at start"
		cycle=$((cycle + 1))
	done
fi
while [ "$cycle" -le "$cycles" ]; do
	rb_test_begin
	rb_diag_add "cycle $cycle: down ${down_time}s"
	if rb_station_read; then
		rb_tx_account "$rb_sta_p" "$rb_sta_r" "$rb_sta_f" "on the association before cycle $cycle"
	fi
	if ! rb_err=$(ip link set "$rb_iface" down 2>&1); then
		rb_diag_add "ip link set $rb_iface down failed: $rb_err"
	fi
	sleep "$down_time"
	rb_now
	rb_up_start=$rb_now
	if ! rb_err=$(ip link set "$rb_iface" up 2>&1); then
		rb_diag_add "ip link set $rb_iface up failed: $rb_err"
	fi
	rb_reconnect_test scan "$rb_up_start"
	rb_power_sample
	rb_test_end "$cycle" "cycle $cycle down/up reconnect"
	cycle=$((cycle + 1))
done

rb_last_association_tx
rb_report_reconnect_times
# shellcheck disable=SC2086 # a list of words
rb_report_run cycles $RB_KINDS_NO_PING
exit 0
