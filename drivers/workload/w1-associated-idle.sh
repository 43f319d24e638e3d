#!/bin/sh
# W1 associated idle: power save on, associated, no traffic from the host for
# 10 minutes, checked in phases of 60 s. The keepalive of ath9k-model.md §7 is
# mac80211's own (a nullfunc every 30 s, sent with power save off); a host
# ping as keepalive (--keepalive S) is traffic sent while power save is on,
# which makes W1 a traffic test too. ath9k debugfs is read once, at the end:
# reading it wakes the chip.
# Prints KTAP: one test per phase. See README.md beside this file.
set -u
# shellcheck source=drivers/workload/lib.sh
# beside this script (${0%/*}: dirname would be one more process per run)
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

duration=600
phase=60
keepalive=0

usage() {
	cat <<EOF
usage: $RB_PROG [OPTION VALUE]...
Stays associated and idle with power save on; prints KTAP.
  --duration S       seconds of idle (default 600)
  --phase S          seconds per checked phase, one KTAP test each (default 60)
  --keepalive S      also a one-packet host ping every S seconds (default 0: none)
$RB_COMMON_USAGE
EOF
}

script_option() {
	case $1 in
	--duration) duration=$2 ;;
	--phase) phase=$2 ;;
	--keepalive) keepalive=$2 ;;
	esac
}

rb_parse_options "--duration --phase --keepalive" "$@"
rb_need_uint --duration "$duration" 1
duration=$rb_uint
rb_need_uint --phase "$phase" 1
phase=$rb_uint
rb_need_uint --keepalive "$keepalive" 0
keepalive=$rb_uint

if [ "$keepalive" -gt 0 ]; then
	rb_require iw ip ping sleep dmesg uname
else
	rb_require iw ip sleep dmesg uname
fi
rb_require_interface

phases=$(((duration + phase - 1) / phase))
rb_setup
rb_err=$(iw dev "$rb_iface" set power_save on 2>&1) ||
	rb_missing "iw dev $rb_iface set power_save on failed: $rb_err"
rb_ktap_begin "$phases" "$duration s associated idle with power save on, $phases phases of $phase s, keepalive every $keepalive s"
rb_setup_print

rb_power_begin
ka_sent_total=0
ka_recv_total=0
keep_due=$keepalive
n=1
if [ "$rb_setup_ok" = 0 ]; then
	rb_setup_failed_report "phase 1 associated idle"
	n=2
	while [ "$n" -le "$phases" ]; do
		echo "ok $n phase $n associated idle # SKIP not associated at start"
		n=$((n + 1))
	done
fi
while [ "$n" -le "$phases" ]; do
	len=$phase
	left=$((duration - (n - 1) * phase))
	[ "$left" -ge "$len" ] || len=$left
	rb_test_begin
	rb_station_begin
	ka_sent=0
	ka_recv=0
	remaining=$len
	while [ "$remaining" -gt 0 ]; do
		step=$remaining
		[ "$keepalive" -gt 0 ] && [ "$keep_due" -lt "$remaining" ] && step=$keep_due
		sleep "$step"
		remaining=$((remaining - step))
		[ "$keepalive" -gt 0 ] || continue
		keep_due=$((keep_due - step))
		if [ "$keep_due" -le 0 ]; then
			rb_ping 1 -q -c 1 -W 1 "$rb_target"
			ka_sent=$((ka_sent + rb_ping_tx))
			ka_recv=$((ka_recv + rb_ping_rx))
			[ -z "$rb_ping_said" ] || rb_diag_add "keepalive ping: $rb_ping_said"
			keep_due=$keepalive
		fi
	done
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
	rb_diag_add "phase $n: ${len}s idle, keepalives $ka_recv/$ka_sent answered, tx packets $rb_d_p retries $rb_d_r failed $rb_d_f"
	if [ "$ka_sent" -gt 0 ] && [ $(((ka_sent - ka_recv) * 100)) -gt $((ka_sent * RB_PING_LOSS_LIMIT)) ]; then
		rb_kind_add ping_loss
		rb_diag_add "keepalive loss $((ka_sent - ka_recv)) of $ka_sent (limit $RB_PING_LOSS_LIMIT %)"
	fi
	ka_sent_total=$((ka_sent_total + ka_sent))
	ka_recv_total=$((ka_recv_total + ka_recv))
	rb_power_sample
	rb_test_end "$n" "phase $n associated idle"
	n=$((n + 1))
done

rb_metric keepalives_sent "$ka_sent_total" count
if [ "$ka_sent_total" -gt 0 ]; then
	rb_loss_percent "$ka_sent_total" "$ka_recv_total"
	rb_metric keepalive_loss "$rb_value" %
fi
# shellcheck disable=SC2086 # a list of words
rb_report_run phases $RB_KINDS
exit 0
