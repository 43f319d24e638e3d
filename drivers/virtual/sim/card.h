/*
 * card.h - the simulated AR9xxx card: the `struct ath_hw` a model kernel's
 * driver drives through `struct ath_hw_ops` (hw-model.h).
 *
 * What the card models (ath9k-model.md §4): power states AWAKE /
 * NETWORK_SLEEP / FULL_SLEEP with their power draw; chip_fullsleep (cleared
 * only by a full reset); a MAC that may come back dead from full sleep
 * (mac_ok); RX DMA that may wedge when full sleep catches it running; TX
 * queues whose frames need the chip awake when their ACK is due; the
 * deferred work the driver queues; and the driver's printk.
 *
 * The ops never call back into the driver or the stack directly: whatever
 * they cause (a drained frame's status, a work item) becomes an event, so
 * the driver is never re-entered from inside its own call.
 */
#ifndef RB_SIM_CARD_H
#define RB_SIM_CARD_H

#include <stdint.h>

#include "virtual/sim/model_kernel.h"
#include "virtual/sim/sim.h"
#include "virtual/sim/timer.h"

struct sim_board;

/* TX queues, numbered as mac80211 numbers its access categories. The stack
 * sends management frames and nullfuncs on VO and host data on BE. */
#define CARD_QUEUE_VO 0
#define CARD_QUEUE_VI 1
#define CARD_QUEUE_BE 2
#define CARD_QUEUE_BK 3
#define CARD_QUEUE_DEPTH 128

/* Power draw (ath9k-model.md §6), µW. */
#define CARD_POWER_AWAKE_UW 1090000
#define CARD_POWER_TX_EXTRA_UW 600000
#define CARD_POWER_FULL_SLEEP_UW 20000

struct card_tx_queue {
	uint16_t frames[CARD_QUEUE_DEPTH];	/* frame pool indices, FIFO */
	unsigned int head, count;
	int stop_failed;	/* the last abort_tx_dma could not stop it */
	/* debugfs xmit counters */
	uint64_t queued, completed, xretries, bytes, attempts, drained;
};

struct card_counters {
	uint64_t rx_packets, rx_bytes, rx_beacons;
	uint64_t irq_rx, irq_tx, irq_tim, irq_cabend, irq_bmiss, irq_total;
};

struct ath_hw {
	struct sim_board *board;
	const struct sim_chip_info *chip;
	enum ath9k_power_mode power;
	int chip_fullsleep;	/* entered FULL_SLEEP since the last reset */
	int context_lost;	/* this full sleep lost the MAC state */
	int mac_ok;		/* the MAC transmits and receives */
	int freq;		/* channel of the last reset, MHz; 0 before any */
	int rx_dma_active;	/* started and not stopped since */
	int rx_abort;
	int rx_wedged;		/* only a reset clears it */
	struct card_tx_queue queues[ATH9K_NUM_TX_QUEUES];
	int transmitting;	/* an attempt is on air */
	int tx_queue;		/* ... from this queue */
	int tx_started_awake;	/* ... begun with the chip AWAKE */
	uint32_t tx_generation;	/* bumped to abandon the attempt on air */
	struct sim_timer work[__ATH_WORK_MAX];
	unsigned int reset_stats[__RESET_TYPE_MAX];
	struct card_counters counters;
};

extern const struct ath_hw_ops card_hw_ops;

void card_init(struct ath_hw *card, struct sim_board *board, const struct sim_chip_info *chip);
uint64_t card_power_uw(const struct ath_hw *card, int aspm_l1);
/* Network-sleep draw, calibrated so that associated PS-on idle averages
 * 116 mW with ASPM L1 and 365 mW without (ath9k-model.md §6). */
uint64_t card_network_sleep_uw(int aspm_l1);

/* Whether a frame from the AP on `freq` reaches the driver now. */
int card_can_receive(const struct ath_hw *card, int freq, int is_beacon);
/* An autosleep chip in network sleep woke itself for a beacon: charge it. */
void card_charge_autosleep_wake(struct sim_board *board);
/* Bookkeeping of a received frame (debugfs recv/interrupt). */
void card_count_rx(struct ath_hw *card, unsigned int bytes, int is_beacon);

/* Event handlers (board.c dispatches them). */
void card_on_tx_attempt_end(struct sim_board *board, uint32_t generation);
void card_on_work_due(struct sim_board *board, enum ath_work work, uint32_t generation);
void card_on_tim_timer(struct sim_board *board);
void card_on_cab_done(struct sim_board *board);
/* Our beacon arrived while associated: the driver's RX path sees it. */
void card_on_beacon(struct sim_board *board, int cab_pending);

#endif
