#!/bin/sh
# W2 associated traffic: power save on, a ping every 200 ms to the access
# point for 10 minutes plus a burst per phase. Frames sent while the chip
# dozes catch a kernel that sleeps with a TX ACK outstanding (lost pings,
# `tx failed`). Checked in phases of 60 s; debugfs read once, at the end.
# Prints KTAP: one test per phase. See README.md beside this file.
set -u
# shellcheck source=drivers/workload/lib.sh
# beside this script (${0%/*}: dirname would be one more process per run)
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

duration=600
phase=60
interval=0.2
burst=20
burst_interval=0.01

usage() {
	cat <<EOF
usage: $RB_PROG [OPTION VALUE]...
Pings the access point with power save on; prints KTAP.
  --duration S        seconds of traffic (default 600)
  --phase S           seconds per checked phase, one KTAP test each (default 60)
  --interval S        seconds between pings (default 0.2)
  --burst N           pings in the burst at the end of each phase, 0 for none (default 20)
  --burst-interval S  seconds between burst pings (default 0.01)
$RB_COMMON_USAGE
EOF
}

script_option() {
	case $1 in
	--duration) duration=$2 ;;
	--phase) phase=$2 ;;
	--interval) interval=$2 ;;
	--burst) burst=$2 ;;
	--burst-interval) burst_interval=$2 ;;
	esac
}

rb_parse_options "--duration --phase --interval --burst --burst-interval" "$@"
rb_need_uint --duration "$duration" 1
duration=$rb_uint
rb_need_uint --phase "$phase" 1
phase=$rb_uint
rb_need_decimal --interval "$interval"
rb_need_uint --burst "$burst" 0
burst=$rb_uint
rb_need_decimal --burst-interval "$burst_interval"

rb_require iw ip ping sleep dmesg uname
rb_require_interface

phases=$(((duration + phase - 1) / phase))
rb_setup
rb_err=$(iw dev "$rb_iface" set power_save on 2>&1) ||
	rb_missing "iw dev $rb_iface set power_save on failed: $rb_err"
rb_ktap_begin "$phases" "$duration s of ping every $interval s to $rb_target with power save on, $phases phases of $phase s, a burst of $burst per phase"
rb_setup_print

rb_power_begin
sent_total=0
recv_total=0
n=1
if [ "$rb_setup_ok" = 0 ]; then
	rb_setup_failed_report "phase 1 associated traffic"
	n=2
	while [ "$n" -le "$phases" ]; do
		echo "ok $n phase $n associated traffic # SKIP not associated at start"
		n=$((n + 1))
	done
fi
while [ "$n" -le "$phases" ]; do
	len=$phase
	left=$((duration - (n - 1) * phase))
	[ "$left" -ge "$len" ] || len=$left
	# pings per phase (awk: the interval is a decimal); phases share a length
	if [ "$len" != "${count_len:-}" ]; then
		count=$(awk -v len="$len" -v i="$interval" 'BEGIN { c = int(len / i + 0.5); print c < 1 ? 1 : c }')
		count_len=$len
	fi
	rb_test_begin
	rb_station_begin
	rb_ping "$count" -q -i "$interval" -c "$count" -W 1 "$rb_target"
	sent=$rb_ping_tx recv=$rb_ping_rx
	[ -z "$rb_ping_said" ] || rb_diag_add "ping: $rb_ping_said"
	if [ "$burst" -gt 0 ]; then
		rb_ping "$burst" -q -i "$burst_interval" -c "$burst" -W 1 "$rb_target"
		sent=$((sent + rb_ping_tx)) recv=$((recv + rb_ping_rx))
		[ -z "$rb_ping_said" ] || rb_diag_add "burst ping: $rb_ping_said"
	fi
	if ! rb_associated; then
		rb_kind_add not_associated
		rb_diag_add "phase $n: $rb_iface no longer associated with $rb_ssid"
		rb_now
		if rb_reconnect scan "$rb_now"; then
			rb_diag_add "phase $n: associated again after $rb_reconnect_time s"
		fi
	fi
	rb_station_delta
	rb_tx_account "$rb_d_p" "$rb_d_r" "$rb_d_f" "in phase $n"
	loss=0
	if [ "$sent" -ne 0 ]; then
		rb_loss_percent "$sent" "$recv"
		loss=$rb_value
	fi
	rb_diag_add "phase $n: ping $recv/$sent answered, tx packets $rb_d_p retries $rb_d_r failed $rb_d_f"
	if [ $(((sent - recv) * 100)) -gt $((sent * RB_PING_LOSS_LIMIT)) ]; then
		rb_kind_add ping_loss
		rb_diag_add "ping loss $loss % (limit $RB_PING_LOSS_LIMIT %)"
	fi
	rb_diag_add "metric ping_loss=$loss %"
	sent_total=$((sent_total + sent))
	recv_total=$((recv_total + recv))
	rb_power_sample
	rb_test_end "$n" "phase $n associated traffic"
	n=$((n + 1))
done

rb_metric pings_sent "$sent_total" count
rb_metric pings_received "$recv_total" count
if [ "$sent_total" -gt 0 ]; then
	rb_loss_percent "$sent_total" "$recv_total"
	rb_metric ping_loss_total "$rb_value" %
fi
# shellcheck disable=SC2086 # a list of words
rb_report_run phases $RB_KINDS
exit 0
