/*
 * station.h - mac80211 and cfg80211 (the SME) for wlan0, as far as the
 * power-save story needs them.
 *
 * States: DOWN (interface down, driver stopped) -> IDLE -> [scan] -> idle
 * gap U(idle_gap_min, idle_gap_max) -> AUTHENTICATING (3 tries x 200 ms) ->
 * ASSOCIATING (3 x 200 ms) -> ASSOCIATED -> DISCONNECTING (PS off, deauth,
 * wait for its TX status) -> IDLE. Scanning is orthogonal: a user scan may
 * run while associated. The driver hears about all this through config()
 * (IDLE, PS, CHANNEL) and tx(), exactly when mac80211 would call them:
 *   - a scan changes channel on every channel (a chip reset each);
 *   - authentication changes channel only when the hardware is on another
 *     channel than the AP;
 *   - dynamic PS: PS on after 100 ms without traffic (a PM=1 nullfunc first),
 *     off for the stack's own traffic (a keepalive every 30 s, buffered data
 *     announced in a TIM), while the host's pings go out with PS still on.
 *
 * Frames: management and nullfunc on queue VO (0), host data on BE (2).
 */
#ifndef RB_SIM_STATION_H
#define RB_SIM_STATION_H

#include <stdint.h>

#include "virtual/sim/access_point.h"
#include "virtual/sim/timer.h"

struct sim_board;

enum station_state {
	STATION_DOWN = 0,
	STATION_IDLE,
	STATION_IDLE_GAP,	/* scan done, authentication not started yet */
	STATION_AUTHENTICATING,
	STATION_ASSOCIATING,
	STATION_ASSOCIATED,
	STATION_DISCONNECTING,
};

enum station_connect_outcome {
	STATION_CONNECT_NONE = 0,
	STATION_CONNECT_PENDING,
	STATION_CONNECT_SUCCEEDED,
	STATION_CONNECT_FAILED,
};

struct station_connect_request {
	char ssid[33];
	int freq;		/* 0: any */
	int have_bssid;
	unsigned char bssid[6];
};

/* The AP's station entry: what `iw station dump` shows. */
struct station_peer_stats {
	uint64_t rx_bytes, rx_packets, tx_bytes, tx_packets, tx_retries, tx_failed;
	uint64_t last_unicast_rx_us, associated_at_us;
};

typedef void (*station_echo_reply_fn)(void *arg, unsigned int sequence);

struct sim_station {
	enum station_state state;
	int scanning;
	int scan_for_connect;
	int scan_while_associated;
	int scan_channels[16];
	int scan_channel_count;
	int scan_next;
	int scan_probe_pending;	/* the probe delay of this channel is running */
	int bss_found;		/* cfg80211's BSS cache holds the AP */
	uint64_t bss_seen_us;

	int idle;		/* IEEE80211_CONF_IDLE as the driver last heard it */
	int ps;			/* IEEE80211_CONF_PS as the driver last heard it */
	int hw_freq;		/* the channel mac80211 last configured */
	int power_save;		/* iw ... set power_save */
	int ps_entering;	/* a PM=1 nullfunc is on its way */
	int traffic_since_ps_request;
	int link_ready_reported;
	int missed_beacons;

	struct station_connect_request request;
	int reconnect_without_scan;
	enum station_connect_outcome outcome;
	int outcome_status;	/* IEEE 802.11 status code of a failure */
	int outcome_has_bssid;	/* the result names a BSS (iw prints " to BSSID") */
	unsigned char target_bssid[6];	/* the BSS being authenticated with */
	char target_bssid_text[18];
	int has_target;
	int tries;
	int deauth_frame;	/* frame index of the deauth in flight, or -1 */
	int down_after_disconnect;

	struct sim_timer sme_timer;
	struct sim_timer dynamic_ps_timer;
	struct sim_timer keepalive_timer;

	struct station_peer_stats peer;
	station_echo_reply_fn on_echo_reply;
	void *echo_reply_arg;
};

void station_init(struct sim_station *station);

/* Requests from userspace (iw, ip, ping). 0 or a negative errno as the
 * kernel returns it (-ENETDOWN, -EALREADY, -EINVAL, -EBUSY, ...). */
int station_interface_up(struct sim_board *board);
/* Starts taking the interface down; it is DOWN once station_state() says so. */
int station_interface_down(struct sim_board *board);
int station_connect(struct sim_board *board, const struct station_connect_request *request);
int station_disconnect(struct sim_board *board);
int station_scan(struct sim_board *board);
int station_set_power_save(struct sim_board *board, int on);
/* Hands one ICMP echo request to the stack; -ENETUNREACH when not associated. */
int station_send_echo_request(struct sim_board *board, unsigned int sequence,
			      unsigned int payload_bytes, int to_ap_address);
void station_set_echo_listener(struct sim_board *board, station_echo_reply_fn fn, void *arg);

/* From the card and the AP. */
void station_on_tx_status(struct sim_board *board, uint32_t frame_index);
void station_on_frame(struct sim_board *board, const struct ap_frame *frame);
void station_on_beacon(struct sim_board *board, int tim_for_us);
void station_on_beacon_missed(struct sim_board *board);
/* Timer events. */
void station_on_sme_timer(struct sim_board *board, uint32_t generation);
void station_on_dynamic_ps_timer(struct sim_board *board, uint32_t generation);
void station_on_keepalive_timer(struct sim_board *board, uint32_t generation);

int station_is_associated(const struct sim_station *station);

#endif
