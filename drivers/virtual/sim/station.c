/*
 * station.c - mac80211's managed-mode station and cfg80211's SME for wlan0,
 * reduced to what drives the ath9k power-save paths (see station.h).
 * Timings are those of mac80211 in 3.3: 200 ms per authentication or
 * association try, 3 tries each, 100 ms dynamic PS timeout.
 */
#include "virtual/sim/board.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define AUTH_TIMEOUT_US 200000
#define ASSOC_TIMEOUT_US 200000
#define AUTH_MAX_TRIES 3
#define ASSOC_MAX_TRIES 3
#define SCAN_PROBE_DELAY_US 30000	/* IEEE80211_PROBE_DELAY: listen, then probe */
#define SCAN_CHANNEL_TIME_US 30000	/* IEEE80211_CHANNEL_TIME: wait for responses */
#define DYNAMIC_PS_TIMEOUT_US 100000
#define KEEPALIVE_INTERVAL_US 30000000	/* the stack's keepalive period */
#define DEAUTH_STATUS_WAIT_US 50000	/* waiting longer for a dead chip is pointless */
#define BEACONS_MISSED_BEFORE_LOSS 7
#define FIRST_CHANNEL_FREQ 2412
#define WLAN_STATUS_UNSPECIFIED_FAILURE 1

#define MGMT_AUTH_BYTES 30
#define MGMT_ASSOC_BYTES 90
#define MGMT_DEAUTH_BYTES 26
#define MGMT_PROBE_BYTES 70
#define NULLFUNC_BYTES 24
#define ECHO_OVERHEAD_BYTES 60		/* 802.11 + LLC/SNAP + IP + ICMP headers */

void station_init(struct sim_station *station)
{
	memset(station, 0, sizeof(*station));
	station->state = STATION_DOWN;
	station->idle = 1;
	station->power_save = 1;	/* CONFIG_CFG80211_DEFAULT_PS */
	station->hw_freq = FIRST_CHANNEL_FREQ;
	station->deauth_frame = -1;
}

int station_is_associated(const struct sim_station *station)
{
	return station->state == STATION_ASSOCIATED;
}

/* ---- talking to the driver ------------------------------------------------ */

static void config(struct sim_board *board, unsigned int changed)
{
	struct sim_station *sta = &board->station;
	struct ieee80211_conf conf = {
		.flags = (sta->idle ? IEEE80211_CONF_IDLE : 0) | (sta->ps ? IEEE80211_CONF_PS : 0),
		.freq = sta->hw_freq,
	};

	board_driver_config(board, changed, &conf);
}

static int state_is_idle(const struct sim_station *sta)
{
	return !sta->scanning && (sta->state == STATION_IDLE || sta->state == STATION_IDLE_GAP);
}

/* ieee80211_recalc_idle(): tell the driver when idleness changes. */
static void recalc_idle(struct sim_board *board)
{
	struct sim_station *sta = &board->station;
	int idle = state_is_idle(sta);

	if (sta->state == STATION_DOWN || idle == sta->idle)
		return;
	sta->idle = idle;
	config(board, IEEE80211_CONF_CHANGE_IDLE);
}

static void set_channel(struct sim_board *board, int freq)
{
	board->station.hw_freq = freq;
	config(board, IEEE80211_CONF_CHANGE_CHANNEL);
}

static void set_ps(struct sim_board *board, int on)
{
	if (board->station.ps == on)
		return;
	board->station.ps = on;
	config(board, IEEE80211_CONF_CHANGE_PS);
}

static enum ath_frame_kind frame_kind(enum sim_frame_type type)
{
	switch (type) {
	case SIM_FRAME_NULLFUNC:
		return ATH_FRAME_NULLFUNC;
	case SIM_FRAME_ECHO_REQUEST:
		return ATH_FRAME_DATA;
	default:
		return ATH_FRAME_MGMT;
	}
}

static int frame_queue(enum sim_frame_type type)
{
	return type == SIM_FRAME_ECHO_REQUEST ? CARD_QUEUE_BE : CARD_QUEUE_VO;
}

static int has_peer(const struct sim_station *sta)
{
	return sta->state >= STATION_AUTHENTICATING;
}

/* A frame from the stack's pool, counted as sent; its index, or -1. */
static int build_frame(struct sim_board *board, enum sim_frame_type type, unsigned int bytes,
		       int power_mgmt)
{
	struct sim_station *sta = &board->station;
	int index = frame_pool_get(&board->frames);
	struct sim_frame *frame;

	if (index < 0)
		return -1;
	frame = frame_pool_frame(&board->frames, (uint32_t)index);
	frame->type = type;
	frame->bytes = bytes;
	frame->power_mgmt = power_mgmt;
	frame->broadcast = type == SIM_FRAME_PROBE_REQUEST;
	frame->to_ap_bssid = !sta->has_target ||
			     memcmp(sta->target_bssid, board->ap.bssid, 6) == 0;
	frame->handed_at_us = board->now_us;
	board->stats.tx_packets++;
	if (has_peer(sta) && !frame->broadcast) {
		sta->peer.tx_packets++;
		sta->peer.tx_bytes += bytes;
	}
	return index;
}

static void hand_to_driver(struct sim_board *board, int index)
{
	enum sim_frame_type type = frame_pool_frame(&board->frames, (uint32_t)index)->type;

	board_driver_tx(board, frame_queue(type), (unsigned long)index + 1, frame_kind(type));
}

/* Builds a frame and hands it to the driver; its index, or -1. */
static int send_frame(struct sim_board *board, enum sim_frame_type type, unsigned int bytes,
		      int power_mgmt)
{
	int index = build_frame(board, type, bytes, power_mgmt);

	if (index >= 0)
		hand_to_driver(board, index);
	return index;
}

/* ---- connect outcome ------------------------------------------------------ */

static void set_target(struct sim_station *sta, const unsigned char bssid[6])
{
	memcpy(sta->target_bssid, bssid, 6);
	snprintf(sta->target_bssid_text, sizeof(sta->target_bssid_text),
		 "%02x:%02x:%02x:%02x:%02x:%02x", bssid[0], bssid[1], bssid[2], bssid[3],
		 bssid[4], bssid[5]);
	sta->has_target = 1;
}

static void finish_connect(struct sim_board *board, enum station_connect_outcome outcome)
{
	struct sim_station *sta = &board->station;

	if (sta->outcome == STATION_CONNECT_PENDING) {
		sta->outcome = outcome;
		sta->outcome_status = outcome == STATION_CONNECT_FAILED ?
				      WLAN_STATUS_UNSPECIFIED_FAILURE : 0;
		/* cfg80211 names the BSS it tried, or the one userspace asked for */
		sta->outcome_has_bssid = sta->has_target || sta->request.have_bssid;
		if (!sta->has_target && sta->request.have_bssid)
			set_target(sta, sta->request.bssid);
	}
}

static void connect_failed(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	sim_timer_cancel(&sta->sme_timer);
	sta->state = STATION_IDLE;
	finish_connect(board, STATION_CONNECT_FAILED);
	recalc_idle(board);
}

/* ---- dynamic power save --------------------------------------------------- */

static void note_traffic(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	if (sta->state != STATION_ASSOCIATED)
		return;
	sta->traffic_since_ps_request = 1;
	if (sta->power_save && !sta->ps)
		board_timer_arm(board, &sta->dynamic_ps_timer, DYNAMIC_PS_TIMEOUT_US,
				SIM_EVENT_STATION_DYNAMIC_PS, 0);
}

/* The stack has traffic of its own: leave PS first, as mac80211 does. */
static void wake_for_own_traffic(struct sim_board *board)
{
	set_ps(board, 0);
	send_frame(board, SIM_FRAME_NULLFUNC, NULLFUNC_BYTES, 0);
	note_traffic(board);
}

void station_on_dynamic_ps_timer(struct sim_board *board, uint32_t generation)
{
	struct sim_station *sta = &board->station;

	if (!board_timer_fired(&sta->dynamic_ps_timer, generation))
		return;
	if (sta->state != STATION_ASSOCIATED || !sta->power_save || sta->ps ||
	    sta->ps_entering || sta->scanning)
		return;
	/* tell the AP first (PS_NULLFUNC_STACK); PS goes on once it is ACKed */
	sta->ps_entering = 1;
	sta->traffic_since_ps_request = 0;
	send_frame(board, SIM_FRAME_NULLFUNC, NULLFUNC_BYTES, 1);
}

static void ps_nullfunc_status(struct sim_board *board, int acked)
{
	struct sim_station *sta = &board->station;

	sta->ps_entering = 0;
	if (sta->state != STATION_ASSOCIATED || !sta->power_save || sta->scanning)
		return;
	if (acked && !sta->traffic_since_ps_request)
		set_ps(board, 1);
	else
		note_traffic(board);
}

/* The stack's own keepalive (mac80211's connection monitor probe: a
 * nullfunc sent with PS off) every 30 s while associated. */
static void arm_keepalive(struct sim_board *board)
{
	board_timer_arm(board, &board->station.keepalive_timer, KEEPALIVE_INTERVAL_US,
			SIM_EVENT_STATION_KEEPALIVE, 0);
}

void station_on_keepalive_timer(struct sim_board *board, uint32_t generation)
{
	struct sim_station *sta = &board->station;

	if (!board_timer_fired(&sta->keepalive_timer, generation) ||
	    sta->state != STATION_ASSOCIATED)
		return;
	wake_for_own_traffic(board);
	arm_keepalive(board);
}

int station_set_power_save(struct sim_board *board, int on)
{
	struct sim_station *sta = &board->station;

	sta->power_save = !!on;
	if (sta->state != STATION_ASSOCIATED)
		return 0;
	if (!on && sta->ps)
		wake_for_own_traffic(board);
	else if (on)
		note_traffic(board);
	return 0;
}

/* ---- scanning ------------------------------------------------------------- */

static int other_channel(struct sim_board *board, int avoid)
{
	int choice = (int)sim_rng_between(&board->rng, 0, 11);
	int freq = FIRST_CHANNEL_FREQ + 5 * choice;

	return freq >= avoid ? freq + 5 : freq;
}

/* All 13 channels; the one scanned last (where the hardware stays) is the
 * AP's with p_same_channel_scan, another one otherwise. */
static void plan_scan(struct sim_board *board, int only_freq)
{
	struct sim_station *sta = &board->station;
	int ap_freq = board->ap.freq, last, i;

	sta->scan_channel_count = 0;
	sta->scan_next = 0;
	if (only_freq) {
		sta->scan_channels[sta->scan_channel_count++] = only_freq;
		return;
	}
	last = sim_rng_chance(&board->rng, board->knobs.p_same_channel_scan) ?
	       ap_freq : other_channel(board, ap_freq);
	for (i = 0; i < 13; i++) {
		int freq = FIRST_CHANNEL_FREQ + 5 * i;

		if (freq != last)
			sta->scan_channels[sta->scan_channel_count++] = freq;
	}
	if (last != ap_freq && (ap_freq < FIRST_CHANNEL_FREQ || ap_freq > FIRST_CHANNEL_FREQ + 60))
		sta->scan_channels[sta->scan_channel_count++] = ap_freq;
	sta->scan_channels[sta->scan_channel_count++] = last;
}

/* A channel's dwell: tune, listen for the probe delay, then probe (for the
 * SSID and the wildcard, as a connect's scan request carries both) and wait
 * the channel time for responses. */
static void scan_next_channel(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	set_channel(board, sta->scan_channels[sta->scan_next++]);
	sta->scan_probe_pending = 1;
	board_timer_arm(board, &sta->sme_timer, SCAN_PROBE_DELAY_US, SIM_EVENT_STATION_SME, 0);
}

static void scan_probe(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	sta->scan_probe_pending = 0;
	send_frame(board, SIM_FRAME_PROBE_REQUEST, MGMT_PROBE_BYTES, 0);
	send_frame(board, SIM_FRAME_PROBE_REQUEST, MGMT_PROBE_BYTES, 0);
	board_timer_arm(board, &sta->sme_timer, SCAN_CHANNEL_TIME_US, SIM_EVENT_STATION_SME, 0);
}

static void start_scan(struct sim_board *board, int for_connect, int only_freq)
{
	struct sim_station *sta = &board->station;

	sta->scanning = 1;
	sta->scan_for_connect = for_connect;
	sta->scan_while_associated = sta->state == STATION_ASSOCIATED;
	sta->bss_found = 0;
	plan_scan(board, only_freq);
	if (sta->scan_while_associated) {
		/* leaving the channel: the AP buffers for us meanwhile */
		set_ps(board, 0);
		send_frame(board, SIM_FRAME_NULLFUNC, NULLFUNC_BYTES, 1);
	}
	recalc_idle(board);
	scan_next_channel(board);
}

static int bss_matches_request(const struct sim_board *board)
{
	const struct sim_station *sta = &board->station;
	const struct sim_access_point *ap = &board->ap;

	return sta->bss_found && strcmp(sta->request.ssid, ap->ssid) == 0 &&
	       (!sta->request.freq || sta->request.freq == ap->freq) &&
	       (!sta->request.have_bssid || memcmp(sta->request.bssid, ap->bssid, 6) == 0);
}

static void start_auth(struct sim_board *board, int reconnect);

static void scan_finished(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	sta->scanning = 0;
	if (sta->scan_while_associated) {
		set_channel(board, board->ap.freq);
		send_frame(board, SIM_FRAME_NULLFUNC, NULLFUNC_BYTES, 0);
		note_traffic(board);
		return;
	}
	recalc_idle(board);
	if (!sta->scan_for_connect)
		return;
	if (!bss_matches_request(board)) {
		connect_failed(board);
		return;
	}
	/* cfg80211 hands the BSS to mac80211 a little later: idle meanwhile */
	sta->state = STATION_IDLE_GAP;
	board_timer_arm(board, &sta->sme_timer,
			(uint64_t)(1000.0 * (board->knobs.idle_gap_min_ms +
					     sim_rng_uniform(&board->rng) *
					     (board->knobs.idle_gap_max_ms -
					      board->knobs.idle_gap_min_ms))),
			SIM_EVENT_STATION_SME, 0);
}

int station_scan(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	if (sta->state == STATION_DOWN)
		return -ENETDOWN;
	if (sta->scanning || sta->outcome == STATION_CONNECT_PENDING ||
	    (sta->state != STATION_IDLE && sta->state != STATION_ASSOCIATED))
		return -EBUSY;
	start_scan(board, 0, 0);
	return 0;
}

/* ---- authentication and association --------------------------------------- */

static void send_auth(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	sta->tries++;
	board_log(board, "wlan0: authenticate with %s (try %d)", board->station.target_bssid_text, sta->tries);
	send_frame(board, SIM_FRAME_AUTH, MGMT_AUTH_BYTES, 0);
	board_timer_arm(board, &sta->sme_timer, AUTH_TIMEOUT_US, SIM_EVENT_STATION_SME, 0);
}

static int bss_freq(const struct sim_board *board)
{
	return board->station.request.freq ? board->station.request.freq : board->ap.freq;
}

static void start_auth(struct sim_board *board, int reconnect)
{
	struct sim_station *sta = &board->station;
	int freq = bss_freq(board);
	int change_channel = sta->hw_freq != freq;

	sta->state = STATION_AUTHENTICATING;
	sta->tries = 0;
	set_target(sta, sta->request.have_bssid ? sta->request.bssid : board->ap.bssid);
	memset(&sta->peer, 0, sizeof(sta->peer));
	recalc_idle(board);
	/* a same-AP reconnect normally finds the hardware still on the channel */
	if (reconnect && !change_channel &&
	    !sim_rng_chance(&board->rng, board->knobs.p_same_channel_reconnect))
		change_channel = 1;
	if (change_channel)
		set_channel(board, freq);
	send_auth(board);
}

static void send_assoc(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	sta->tries++;
	board_log(board, "wlan0: associate with %s (try %d)", board->station.target_bssid_text, sta->tries);
	send_frame(board, SIM_FRAME_ASSOC_REQUEST, MGMT_ASSOC_BYTES, 0);
	board_timer_arm(board, &sta->sme_timer, ASSOC_TIMEOUT_US, SIM_EVENT_STATION_SME, 0);
}

static void start_assoc(struct sim_board *board)
{
	board->station.state = STATION_ASSOCIATING;
	board->station.tries = 0;
	send_assoc(board);
}

static void associated(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	sim_timer_cancel(&sta->sme_timer);
	board_log(board, "wlan0: RX AssocResp from %s (capab=0x431 status=0 aid=1)",
		  sta->target_bssid_text);
	board_log(board, "wlan0: associated");
	if (!sta->link_ready_reported) {
		board_log(board, "ADDRCONF(NETDEV_CHANGE): wlan0: link becomes ready");
		sta->link_ready_reported = 1;
	}
	sta->state = STATION_ASSOCIATED;
	sta->missed_beacons = 0;
	sta->peer.associated_at_us = board->now_us;
	sta->peer.last_unicast_rx_us = board->now_us;
	finish_connect(board, STATION_CONNECT_SUCCEEDED);
	note_traffic(board);
	arm_keepalive(board);
}

static void auth_timer(struct sim_board *board)
{
	if (board->station.tries < AUTH_MAX_TRIES) {
		send_auth(board);
		return;
	}
	board_log(board, "wlan0: authentication with %s timed out",
		  board->station.target_bssid_text);
	board->stats.auth_timeouts++;
	connect_failed(board);
}

static void assoc_timer(struct sim_board *board)
{
	if (board->station.tries < ASSOC_MAX_TRIES) {
		send_assoc(board);
		return;
	}
	board_log(board, "wlan0: association with %s timed out",
		  board->station.target_bssid_text);
	connect_failed(board);
}

int station_connect(struct sim_board *board, const struct station_connect_request *request)
{
	struct sim_station *sta = &board->station;

	if (sta->state == STATION_DOWN)
		return -ENETDOWN;
	if (sta->state != STATION_IDLE || sta->outcome == STATION_CONNECT_PENDING)
		return -EALREADY;
	if (sta->scanning)
		return -EBUSY;
	sta->request = *request;
	sta->outcome = STATION_CONNECT_PENDING;
	sta->has_target = 0;
	sta->reconnect_without_scan = request->freq && request->have_bssid;
	if (sta->reconnect_without_scan)
		start_auth(board, 1);
	else
		start_scan(board, 1, request->freq);
	return 0;
}

/* ---- disconnecting and the interface ------------------------------------- */

static void stop_driver(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	sim_timer_cancel(&sta->sme_timer);
	sim_timer_cancel(&sta->dynamic_ps_timer);
	sim_timer_cancel(&sta->keepalive_timer);
	board_driver_stop(board);
	sta->state = STATION_DOWN;
	sta->scanning = 0;
	sta->idle = 1;
	sta->ps = 0;
	sta->down_after_disconnect = 0;
	sta->link_ready_reported = 0;
	finish_connect(board, STATION_CONNECT_FAILED);
}

static void disconnect_done(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	sim_timer_cancel(&sta->sme_timer);
	sta->deauth_frame = -1;
	sta->state = STATION_IDLE;
	recalc_idle(board);
	if (sta->down_after_disconnect)
		stop_driver(board);
}

/* PS off, deauth, wait for its TX status, then idle: the order mac80211
 * keeps, which never leaves v3.3's "idle with an ACK pending" path. */
static void begin_disconnect(struct sim_board *board, int by_local_choice)
{
	struct sim_station *sta = &board->station;

	sim_timer_cancel(&sta->dynamic_ps_timer);
	sim_timer_cancel(&sta->keepalive_timer);
	sta->scanning = 0;
	sta->ps_entering = 0;
	if (by_local_choice)
		board_log(board, "wlan0: deauthenticating from %s by local choice (reason=3)",
			  sta->target_bssid_text);
	finish_connect(board, STATION_CONNECT_FAILED);
	sta->state = STATION_DISCONNECTING;
	set_ps(board, 0);
	sta->deauth_frame = send_frame(board, SIM_FRAME_DEAUTH, MGMT_DEAUTH_BYTES, 0);
	board_timer_arm(board, &sta->sme_timer, DEAUTH_STATUS_WAIT_US, SIM_EVENT_STATION_SME, 0);
}

/* A connect still scanning or waiting in the idle gap: nothing on air yet. */
static void abort_connect(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	sta->scanning = 0;
	connect_failed(board);
}

int station_disconnect(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	switch (sta->state) {
	case STATION_DOWN:
		return -ENETDOWN;
	case STATION_IDLE:
		if (sta->outcome != STATION_CONNECT_PENDING)
			return -EINVAL;	/* cfg80211: the SME is idle */
		abort_connect(board);
		return 0;
	case STATION_IDLE_GAP:
		abort_connect(board);
		return 0;
	case STATION_DISCONNECTING:
		return 0;
	default:
		begin_disconnect(board, 1);
		return 0;
	}
}

int station_interface_down(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	switch (sta->state) {
	case STATION_DOWN:
		return 0;
	case STATION_IDLE:
	case STATION_IDLE_GAP:
		sta->scanning = 0;
		sim_timer_cancel(&sta->sme_timer);
		sta->state = STATION_IDLE;
		recalc_idle(board);
		stop_driver(board);
		return 0;
	case STATION_DISCONNECTING:
		sta->down_after_disconnect = 1;
		return 0;
	default:
		sta->down_after_disconnect = 1;
		begin_disconnect(board, 1);
		return 0;
	}
}

int station_interface_up(struct sim_board *board)
{
	struct sim_station *sta = &board->station;
	int r;

	if (sta->state != STATION_DOWN)
		return 0;
	r = board_driver_start(board, sta->hw_freq);
	sta->state = STATION_IDLE;
	sta->idle = 1;
	sta->ps = 0;
	sta->outcome = STATION_CONNECT_NONE;
	board_log(board, "ADDRCONF(NETDEV_UP): wlan0: link is not ready");
	/* "we're brought up, everything changes": ieee80211_hw_config(~0) */
	config(board, IEEE80211_CONF_CHANGE_IDLE | IEEE80211_CONF_CHANGE_PS |
		      IEEE80211_CONF_CHANGE_CHANNEL);
	return r;
}

static void connection_lost(struct sim_board *board)
{
	board_log(board, "wlan0: Connection to AP %s lost.", board->station.target_bssid_text);
	begin_disconnect(board, 0);
}

/* ---- events from the card and the AP -------------------------------------- */

void station_on_tx_status(struct sim_board *board, uint32_t frame_index)
{
	struct sim_station *sta = &board->station;
	struct sim_frame *frame = frame_pool_frame(&board->frames, frame_index);
	unsigned int retries;

	if (!frame || !frame->in_use)
		return;
	retries = frame->attempts > 0 ? (unsigned int)frame->attempts - 1 : 0;
	board->stats.tx_retries += retries;
	if (!frame->acked)
		board->stats.tx_failed++;
	if (has_peer(sta) && !frame->broadcast) {
		sta->peer.tx_retries += retries;
		sta->peer.tx_failed += !frame->acked;
	}
	if (frame->type == SIM_FRAME_NULLFUNC && frame->power_mgmt && sta->ps_entering)
		ps_nullfunc_status(board, frame->acked);
	if (frame->type == SIM_FRAME_DEAUTH && (int)frame_index == sta->deauth_frame &&
	    sta->state == STATION_DISCONNECTING)
		disconnect_done(board);
	frame_pool_put(&board->frames, frame_index);
}

void station_on_frame(struct sim_board *board, const struct ap_frame *frame)
{
	struct sim_station *sta = &board->station;

	if (has_peer(sta) && frame->type != AP_FRAME_PROBE_RESPONSE) {
		sta->peer.rx_packets++;
		sta->peer.rx_bytes += frame->bytes;
		sta->peer.last_unicast_rx_us = board->now_us;
	}
	switch (frame->type) {
	case AP_FRAME_PROBE_RESPONSE:
		if (sta->scanning && sta->hw_freq == board->ap.freq) {
			sta->bss_found = 1;
			sta->bss_seen_us = board->now_us;
		}
		break;
	case AP_FRAME_AUTH_RESPONSE:
		if (sta->state == STATION_AUTHENTICATING) {
			sim_timer_cancel(&sta->sme_timer);
			start_assoc(board);
		}
		break;
	case AP_FRAME_ASSOC_RESPONSE:
		if (sta->state == STATION_ASSOCIATING)
			associated(board);
		break;
	case AP_FRAME_ECHO_REPLY:
		if (sta->state != STATION_ASSOCIATED)
			break;
		if (!sta->ps)
			note_traffic(board);
		if (sta->on_echo_reply)
			sta->on_echo_reply(sta->echo_reply_arg, frame->ping_sequence);
		break;
	}
}

void station_on_beacon(struct sim_board *board, int tim_for_us)
{
	struct sim_station *sta = &board->station;

	if (sta->scanning && sta->hw_freq == board->ap.freq) {
		sta->bss_found = 1;
		sta->bss_seen_us = board->now_us;
	}
	if (sta->state != STATION_ASSOCIATED)
		return;
	sta->missed_beacons = 0;
	sta->peer.rx_packets++;
	sta->peer.rx_bytes += 160;
	/* buffered data for us: wake up and fetch it (PS_NULLFUNC_STACK) */
	if (tim_for_us && sta->ps)
		wake_for_own_traffic(board);
}

void station_on_beacon_missed(struct sim_board *board)
{
	struct sim_station *sta = &board->station;

	if (sta->state != STATION_ASSOCIATED || sta->scanning)
		return;
	if (++sta->missed_beacons >= BEACONS_MISSED_BEFORE_LOSS)
		connection_lost(board);
}

void station_on_sme_timer(struct sim_board *board, uint32_t generation)
{
	struct sim_station *sta = &board->station;

	if (!board_timer_fired(&sta->sme_timer, generation))
		return;
	if (sta->scanning) {
		if (sta->scan_probe_pending)
			scan_probe(board);
		else if (sta->scan_next < sta->scan_channel_count)
			scan_next_channel(board);
		else
			scan_finished(board);
		return;
	}
	switch (sta->state) {
	case STATION_IDLE_GAP:
		start_auth(board, 0);
		break;
	case STATION_AUTHENTICATING:
		auth_timer(board);
		break;
	case STATION_ASSOCIATING:
		assoc_timer(board);
		break;
	case STATION_DISCONNECTING:
		disconnect_done(board);
		break;
	default:
		break;
	}
}

/* ---- the host's traffic ---------------------------------------------------- */

int station_send_echo_request(struct sim_board *board, unsigned int sequence,
			      unsigned int payload_bytes, int to_ap_address)
{
	struct sim_station *sta = &board->station;
	int index;
	struct sim_frame *frame;

	if (sta->state != STATION_ASSOCIATED)
		return -ENETUNREACH;
	/* host data goes out as it is, PS or not: only the stack's own traffic
	 * leaves PS first, which is what exercises PS_WAIT_FOR_TX_ACK */
	index = build_frame(board, SIM_FRAME_ECHO_REQUEST, payload_bytes + ECHO_OVERHEAD_BYTES,
			    sta->ps);
	if (index < 0)
		return -ENOBUFS;
	frame = frame_pool_frame(&board->frames, (uint32_t)index);
	frame->to_ap_address = to_ap_address;
	frame->ping_sequence = sequence;
	if (!sta->ps)
		note_traffic(board);
	hand_to_driver(board, index);
	return 0;
}

void station_set_echo_listener(struct sim_board *board, station_echo_reply_fn fn, void *arg)
{
	board->station.on_echo_reply = fn;
	board->station.echo_reply_arg = arg;
}
