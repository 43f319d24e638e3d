/*
 * board.h - the inside of a `struct sim_board` (sim.h) and the services its
 * modules share: simulated time and the event queue, timers, the kernel
 * log, the host's hang, and calls into the booted driver.
 *
 * Every piece of mutable state of a board hangs off this struct; the only
 * state outside it is the driver's static softc inside the loaded kernel
 * copy, which model_kernel.c keeps private to the board.
 */
#ifndef RB_SIM_BOARD_H
#define RB_SIM_BOARD_H

#include <stdarg.h>
#include <stdint.h>

#include "virtual/sim/access_point.h"
#include "virtual/sim/card.h"
#include "virtual/sim/event_queue.h"
#include "virtual/sim/frame_pool.h"
#include "virtual/sim/interference.h"
#include "virtual/sim/kernel_log.h"
#include "virtual/sim/model_kernel.h"
#include "virtual/sim/power_meter.h"
#include "virtual/sim/rng.h"
#include "virtual/sim/sim.h"
#include "virtual/sim/station.h"

enum sim_event_kind {
	SIM_EVENT_BEACON = 0,		/* the AP's TBTT */
	SIM_EVENT_TIM_TIMER,		/* the card's TIM timer, 2 ms before a TBTT */
	SIM_EVENT_CAB_DONE,		/* multicast after a DTIM beacon is over */
	SIM_EVENT_TX_ATTEMPT_END,	/* the ACK of the frame on air is due */
	SIM_EVENT_TX_STATUS,		/* a drained frame's status reaches mac80211 */
	SIM_EVENT_DRIVER_WORK,		/* delayed work of the driver (arg: enum ath_work) */
	SIM_EVENT_AP_DELIVERY,		/* the AP tries to send a frame (arg: slot) */
	SIM_EVENT_STATION_SME,		/* mac80211/cfg80211 state machine timer */
	SIM_EVENT_STATION_DYNAMIC_PS,
	SIM_EVENT_STATION_KEEPALIVE,
	SIM_EVENT_INTERFERENCE,		/* an interference spell begins */
};

/* The chip's TIM timer fires this long before each TBTT. */
#define SIM_TIM_TIMER_LEAD_US 2000

#define SIM_WRITTEN_FILES 16

struct sim_board {
	char name[64];
	enum sim_chip chip_id;
	const struct sim_chip_info *chip;
	struct sim_knobs knobs;
	uint64_t seed;
	unsigned char mac_address[6];

	int on;
	int hung;
	uint64_t now_us;
	struct sim_rng rng;
	struct event_queue events;
	struct kernel_log log;
	struct power_meter meter;
	struct model_kernel kernel;
	struct ath_hw card;
	struct sim_access_point ap;
	struct sim_station station;
	struct frame_pool frames;
	struct sim_interference interference;
	struct sim_board_stats stats;

	/* the AP's settings as configured (ap is rebuilt from them at boot) */
	char ap_ssid[33];
	char ap_bssid[18];
	int ap_freq;
	char ap_ip[16];

	/* What sim_board_write_files() last wrote where: a file whose text did
	 * not change is not written again (a rename per file per tool call was
	 * most of a virtual board's disk traffic). */
	struct sim_written_file {
		uint64_t path_hash, text_hash;
	} written[SIM_WRITTEN_FILES];
	size_t written_count;

	char error[256];
};

/* Schedules an event delay_us from now. */
void board_schedule(struct sim_board *board, uint64_t delay_us, enum sim_event_kind kind,
		    uint32_t generation, uint64_t arg);
/* (Re)arms a timer: the event comes back with the timer's new generation. */
void board_timer_arm(struct sim_board *board, struct sim_timer *timer, uint64_t delay_us,
		     enum sim_event_kind kind, uint64_t arg);
/* Whether an event of this timer is live (and disarms it if so). */
int board_timer_fired(struct sim_timer *timer, uint32_t generation);

/* printk of the simulated kernel, stamped with simulated time. Nothing is
 * logged once the host hung. */
void board_log(struct sim_board *board, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* The host freezes now: no more events, log lines or tool output. */
void board_hang(struct sim_board *board);

/*
 * Runs events until `until_us`, or until done(board, arg) holds (checked
 * before each event). 1 when done() held, 0 at the deadline (time is then
 * until_us), -EDEADLK when the host hung meanwhile.
 */
int board_run(struct sim_board *board, uint64_t until_us,
	      int (*done)(struct sim_board *board, void *arg), void *arg);

/* mac80211 / interrupt / workqueue calls into the booted driver; each is a
 * no-op when the board is off or hung. */
int board_driver_start(struct sim_board *board, int freq);
void board_driver_stop(struct sim_board *board);
int board_driver_config(struct sim_board *board, unsigned int changed,
			const struct ieee80211_conf *conf);
void board_driver_tx(struct sim_board *board, int qnum, unsigned long frame,
		     enum ath_frame_kind kind);
void board_driver_tx_tasklet(struct sim_board *board, int qnum, unsigned long frame, int acked);
void board_driver_tim_timer(struct sim_board *board);
void board_driver_rx_beacon(struct sim_board *board, int cab_pending);
void board_driver_rx_cab_done(struct sim_board *board);
void board_driver_run_work(struct sim_board *board, enum ath_work work);

/* The card's draw changed: tell the power meter. */
void board_update_power(struct sim_board *board);

#endif
