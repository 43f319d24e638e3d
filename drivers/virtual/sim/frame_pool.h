/*
 * frame_pool.h - the frames mac80211 hands to the driver (its skbs).
 *
 * The stack owns a frame from the moment it builds it until the TX status
 * comes back; the card only holds its index. The driver sees index + 1 as
 * the opaque `frame` id of ath9k_model_driver.tx.
 */
#ifndef RB_SIM_FRAME_POOL_H
#define RB_SIM_FRAME_POOL_H

#include <stdint.h>

#define FRAME_POOL_SIZE 1024

enum sim_frame_type {
	SIM_FRAME_PROBE_REQUEST = 0,
	SIM_FRAME_AUTH,
	SIM_FRAME_ASSOC_REQUEST,
	SIM_FRAME_DEAUTH,
	SIM_FRAME_NULLFUNC,	/* carries the power-management bit */
	SIM_FRAME_ECHO_REQUEST,	/* an ICMP echo request from the host */
};

struct sim_frame {
	int in_use;
	enum sim_frame_type type;
	int power_mgmt;		/* PM bit: the station dozes after this frame */
	int broadcast;		/* no ACK expected */
	int to_ap_bssid;	/* addressed to the AP (not another BSSID) */
	int to_ap_address;	/* echo request addressed to the AP's IP */
	unsigned int ping_sequence;
	unsigned int bytes;	/* MPDU length */
	int queue;
	/* filled in by the card */
	int attempts;
	int acked;
	int heard_by_ap;
	int stuck;		/* was pending while the MAC was dead */
	uint64_t handed_at_us;
};

struct frame_pool {
	struct sim_frame frames[FRAME_POOL_SIZE];
	uint32_t free_list[FRAME_POOL_SIZE];
	uint32_t free_count;
};

void frame_pool_init(struct frame_pool *pool);
/* A zeroed frame's index, or -ENOBUFS when every frame is in flight. */
int frame_pool_get(struct frame_pool *pool);
void frame_pool_put(struct frame_pool *pool, uint32_t index);
struct sim_frame *frame_pool_frame(struct frame_pool *pool, uint32_t index);

#endif
