/*
 * interference.h - an interferer near the board (knobs p_interference and
 * interference_ms): something on the AP's channel that has nothing to do
 * with the kernel under test, so a lab can fail good kernels now and then
 * the way a real rack's air does.
 *
 * Spells begin as a Poisson process in simulated time, at the rate that
 * makes a spell begin in a given minute with probability p_interference,
 * and each lasts interference_ms (spells that overlap merge). While one
 * lasts, the AP's data frames (its echo replies, sent at a high rate) are
 * lost at the card on every attempt, so pings go unanswered through the
 * same path a TX-ACK regression loses them on; beacons and management
 * frames (the lowest basic rate) still get through, and so do the card's
 * own frames and the AP's ACKs of them. The interferer draws from its own
 * generator, seeded from the board's seed: its spells do not depend on
 * what the kernel does, and do not change the board's other draws.
 */
#ifndef RB_SIM_INTERFERENCE_H
#define RB_SIM_INTERFERENCE_H

#include <stdint.h>

#include "virtual/sim/rng.h"

struct sim_board;

struct sim_interference {
	struct sim_rng rng;	/* lives as long as the board: boots do not replay it */
	uint64_t until_us;	/* the current spell's end; 0: none yet since boot */
};

/* At board creation. */
void interference_init(struct sim_interference *interference, uint64_t seed);
/* At boot, once the clock restarted: schedules the first spell. */
void interference_start(struct sim_board *board);
/* SIM_EVENT_INTERFERENCE: a spell begins; the next one is scheduled. */
void interference_on_spell(struct sim_board *board);
/* Whether a spell lasts now. */
int interference_now(const struct sim_board *board);

#endif
