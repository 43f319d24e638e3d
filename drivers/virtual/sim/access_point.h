/*
 * access_point.h - the access point the board's card talks to, and the air
 * between them.
 *
 * It beacons every 100 TU (102.4 ms) with a DTIM every dtim_period beacons,
 * answers probe requests, authentication and association, keeps a power-save
 * buffer for a dozing station (announced in the beacons' TIM), relays the
 * host's pings to its own address and delivers its frames with retries.
 * Uplink frames reach it through the card (card.c); downlink frames reach
 * the station only when card_can_receive() says the card is listening.
 */
#ifndef RB_SIM_ACCESS_POINT_H
#define RB_SIM_ACCESS_POINT_H

#include <stdint.h>

#include "virtual/sim/frame_pool.h"

struct sim_board;

#define AP_BEACON_INTERVAL_US 102400
#define AP_DOWNLINK_SLOTS 64
#define AP_BUFFER_DEPTH 64

enum ap_frame_type {
	AP_FRAME_PROBE_RESPONSE = 0,
	AP_FRAME_AUTH_RESPONSE,
	AP_FRAME_ASSOC_RESPONSE,
	AP_FRAME_ECHO_REPLY,
};

struct ap_frame {
	enum ap_frame_type type;
	unsigned int ping_sequence;
	unsigned int bytes;
};

struct ap_downlink {
	int in_use;
	uint32_t generation;
	int attempts;
	struct ap_frame frame;
};

struct sim_access_point {
	char ssid[33];
	unsigned char bssid[6];
	char bssid_text[18];
	int freq;
	char ip[16];
	uint64_t beacon_count;
	uint64_t next_tbtt_us;
	int station_authenticated;
	int station_associated;
	int station_dozing;	/* PM bit of the station's last frame */
	struct ap_frame buffered[AP_BUFFER_DEPTH];
	unsigned int buffered_count;
	struct ap_downlink downlink[AP_DOWNLINK_SLOTS];
};

/* 0, or -EINVAL for an unparsable BSSID or address. */
int ap_init(struct sim_access_point *ap, const char *ssid, const char *bssid,
	    int freq, const char *ip);
/* Powers the AP's beacons on the board's event queue (at a random phase). */
void ap_start(struct sim_board *board);
/* An uplink frame was received by the AP (each frame counts once). */
void ap_hear_frame(struct sim_board *board, struct sim_frame *frame);
/* Whether an address text is the AP's. */
int ap_is_own_address(const struct sim_access_point *ap, const char *ip);

/* Event handlers. */
void ap_on_beacon(struct sim_board *board);
void ap_on_delivery(struct sim_board *board, uint32_t slot, uint32_t generation);

#endif
