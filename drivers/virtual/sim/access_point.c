/* access_point.c - the AP: beacons, responses, PS buffering, delivery. */
#include "virtual/sim/board.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A DTIM beacon announces buffered multicast this often (assumed). */
#define CAB_PROBABILITY 0.1
#define BEACON_BYTES 160
#define DOWNLINK_RETRY_MIN_US 300
#define DOWNLINK_RETRY_MAX_US 1000

static int parse_mac(const char *text, unsigned char mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6 || strlen(text) != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = (unsigned char)b[i];
	return 0;
}

static int valid_ipv4(const char *text)
{
	unsigned int a, b, c, d;
	char tail;

	return sscanf(text, "%3u.%3u.%3u.%3u%c", &a, &b, &c, &d, &tail) == 4 &&
	       a < 256 && b < 256 && c < 256 && d < 256;
}

int ap_init(struct sim_access_point *ap, const char *ssid, const char *bssid,
	    int freq, const char *ip)
{
	memset(ap, 0, sizeof(*ap));
	if (strlen(ssid) > 32 || parse_mac(bssid, ap->bssid) < 0 || !valid_ipv4(ip) || freq <= 0)
		return -EINVAL;
	snprintf(ap->ssid, sizeof(ap->ssid), "%s", ssid);
	snprintf(ap->bssid_text, sizeof(ap->bssid_text), "%02x:%02x:%02x:%02x:%02x:%02x",
		 ap->bssid[0], ap->bssid[1], ap->bssid[2], ap->bssid[3], ap->bssid[4],
		 ap->bssid[5]);
	ap->freq = freq;
	snprintf(ap->ip, sizeof(ap->ip), "%s", ip);
	return 0;
}

int ap_is_own_address(const struct sim_access_point *ap, const char *ip)
{
	return strcmp(ap->ip, ip) == 0;
}

static void schedule_tbtt(struct sim_board *board, uint64_t delay_us)
{
	board->ap.next_tbtt_us = board->now_us + delay_us;
	board_schedule(board, delay_us, SIM_EVENT_BEACON, 0, 0);
	/* the TIM timer only exists on chips that do not wake themselves */
	if (!board->chip->autosleep && delay_us > SIM_TIM_TIMER_LEAD_US)
		board_schedule(board, delay_us - SIM_TIM_TIMER_LEAD_US, SIM_EVENT_TIM_TIMER, 0, 0);
}

void ap_start(struct sim_board *board)
{
	schedule_tbtt(board, sim_rng_between(&board->rng, SIM_TIM_TIMER_LEAD_US + 1,
					     AP_BEACON_INTERVAL_US));
}

/* ---- downlink ------------------------------------------------------------ */

static void send_downlink(struct sim_board *board, const struct ap_frame *frame,
			  uint64_t delay_us)
{
	struct sim_access_point *ap = &board->ap;
	uint32_t slot;

	for (slot = 0; slot < AP_DOWNLINK_SLOTS; slot++)
		if (!ap->downlink[slot].in_use)
			break;
	if (slot == AP_DOWNLINK_SLOTS)
		return;		/* the AP's queue overflows: the frame is dropped */
	ap->downlink[slot].in_use = 1;
	ap->downlink[slot].generation++;
	ap->downlink[slot].attempts = 0;
	ap->downlink[slot].frame = *frame;
	board_schedule(board, delay_us, SIM_EVENT_AP_DELIVERY, ap->downlink[slot].generation, slot);
}

static void buffer_for_dozing_station(struct sim_access_point *ap, const struct ap_frame *frame)
{
	if (ap->buffered_count < AP_BUFFER_DEPTH)
		ap->buffered[ap->buffered_count++] = *frame;
}

static void release_buffered(struct sim_board *board)
{
	struct sim_access_point *ap = &board->ap;
	unsigned int i;

	for (i = 0; i < ap->buffered_count; i++)
		send_downlink(board, &ap->buffered[i], 200 + (uint64_t)i * 300);
	ap->buffered_count = 0;
}

static void forget_station(struct sim_access_point *ap)
{
	ap->station_authenticated = 0;
	ap->station_associated = 0;
	ap->station_dozing = 0;
	ap->buffered_count = 0;
}

/* An interference spell (interference.h) costs the AP's data frames, sent at
 * a high rate, every attempt; its management frames, at the lowest rate, get
 * through. Checked before the ACK-loss draw, which a jammed attempt skips. */
static int jammed(const struct sim_board *board, const struct ap_frame *frame)
{
	return frame->type == AP_FRAME_ECHO_REPLY && interference_now(board);
}

void ap_on_delivery(struct sim_board *board, uint32_t slot, uint32_t generation)
{
	struct sim_access_point *ap = &board->ap;
	struct ap_downlink *downlink;
	struct ap_frame frame;

	if (slot >= AP_DOWNLINK_SLOTS)
		return;
	downlink = &ap->downlink[slot];
	if (!downlink->in_use || downlink->generation != generation)
		return;
	frame = downlink->frame;
	if (frame.type == AP_FRAME_ECHO_REPLY && ap->station_dozing) {
		downlink->in_use = 0;
		buffer_for_dozing_station(ap, &frame);
		return;
	}
	downlink->attempts++;
	if (card_can_receive(&board->card, ap->freq, 0) && !jammed(board, &frame) &&
	    !sim_rng_chance(&board->rng, board->knobs.p_ack_loss)) {
		downlink->in_use = 0;
		card_count_rx(&board->card, frame.bytes, 0);
		station_on_frame(board, &frame);
		return;
	}
	if (downlink->attempts >= board->knobs.retry_limit) {
		downlink->in_use = 0;
		return;
	}
	board_schedule(board, sim_rng_between(&board->rng, DOWNLINK_RETRY_MIN_US,
					      DOWNLINK_RETRY_MAX_US),
		       SIM_EVENT_AP_DELIVERY, generation, slot);
}

/* ---- uplink -------------------------------------------------------------- */

static void answer(struct sim_board *board, enum ap_frame_type type, unsigned int bytes,
		   uint64_t min_us, uint64_t max_us)
{
	struct ap_frame frame = { .type = type, .bytes = bytes };

	send_downlink(board, &frame, sim_rng_between(&board->rng, min_us, max_us));
}

static void hear_echo_request(struct sim_board *board, const struct sim_frame *request)
{
	struct ap_frame reply = {
		.type = AP_FRAME_ECHO_REPLY,
		.ping_sequence = request->ping_sequence,
		.bytes = request->bytes,
	};

	if (!request->to_ap_address)
		return;		/* nobody else answers on this network */
	send_downlink(board, &reply, sim_rng_between(&board->rng, 100, 300));
}

void ap_hear_frame(struct sim_board *board, struct sim_frame *frame)
{
	struct sim_access_point *ap = &board->ap;

	if (frame->heard_by_ap || (!frame->broadcast && !frame->to_ap_bssid))
		return;		/* a retransmission, or a frame for another BSS */
	frame->heard_by_ap = 1;
	switch (frame->type) {
	case SIM_FRAME_PROBE_REQUEST:
		answer(board, AP_FRAME_PROBE_RESPONSE, 180, 200, 600);
		break;
	case SIM_FRAME_AUTH:
		forget_station(ap);
		ap->station_authenticated = 1;
		answer(board, AP_FRAME_AUTH_RESPONSE, 30, 500, 1500);
		break;
	case SIM_FRAME_ASSOC_REQUEST:
		if (!ap->station_authenticated)
			break;
		ap->station_associated = 1;
		answer(board, AP_FRAME_ASSOC_RESPONSE, 90, 500, 1500);
		break;
	case SIM_FRAME_DEAUTH:
		forget_station(ap);
		break;
	case SIM_FRAME_NULLFUNC:
	case SIM_FRAME_ECHO_REQUEST:
		if (!ap->station_associated)
			break;
		/* every frame's PM bit tells the AP whether the station dozes */
		ap->station_dozing = frame->power_mgmt;
		if (!ap->station_dozing)
			release_buffered(board);
		if (frame->type == SIM_FRAME_ECHO_REQUEST)
			hear_echo_request(board, frame);
		break;
	}
}

/* ---- beacons ------------------------------------------------------------- */

void ap_on_beacon(struct sim_board *board)
{
	struct sim_access_point *ap = &board->ap;
	int dtim, cab, tim, received;

	ap->beacon_count++;
	schedule_tbtt(board, AP_BEACON_INTERVAL_US);
	dtim = ap->beacon_count % (uint64_t)board->knobs.dtim_period == 0;
	cab = dtim && sim_rng_chance(&board->rng, CAB_PROBABILITY);
	tim = ap->station_dozing && ap->buffered_count > 0;

	card_charge_autosleep_wake(board);
	received = card_can_receive(&board->card, ap->freq, 1) &&
		   !sim_rng_chance(&board->rng, board->knobs.p_beacon_loss);
	if (!received) {
		station_on_beacon_missed(board);
		return;
	}
	card_count_rx(&board->card, BEACON_BYTES, 1);
	if (station_is_associated(&board->station))
		card_on_beacon(board, cab);
	station_on_beacon(board, tim);
}
