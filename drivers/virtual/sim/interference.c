/* interference.c - the interferer of interference.h. */
#include "virtual/sim/board.h"

#include <math.h>

#define MINUTE_US 60e6
/* A wait longer than any simulated run: no spell this boot. */
#define NEVER_US 1e15
/* Mixed into the board's seed so the interferer's stream is not the board's. */
#define STREAM_SALT 0x6a09e667f3bcc909ULL

void interference_init(struct sim_interference *interference, uint64_t seed)
{
	sim_rng_seed(&interference->rng, seed ^ STREAM_SALT);
	interference->until_us = 0;
}

/* Mean wait between spell starts: P(no start in a minute) = 1 - p. */
static double mean_gap_us(double p)
{
	return MINUTE_US / -log1p(-p);
}

static void schedule_next_spell(struct sim_board *board)
{
	double wait = sim_rng_exponential(&board->interference.rng,
					  mean_gap_us(board->knobs.p_interference));

	if (wait < NEVER_US)
		board_schedule(board, (uint64_t)wait, SIM_EVENT_INTERFERENCE, 0, 0);
}

void interference_start(struct sim_board *board)
{
	double p = board->knobs.p_interference;

	/* the clock restarted at 0: a spell from before the boot is over */
	board->interference.until_us = 0;
	if (p <= 0.0)
		return;		/* no draw: a board without it runs as it always did */
	if (p >= 1.0) {
		/* a spell begins every minute for sure: the air is never clear */
		board->interference.until_us = UINT64_MAX;
		board->stats.interference_spells++;
		return;
	}
	schedule_next_spell(board);
}

void interference_on_spell(struct sim_board *board)
{
	struct sim_interference *interference = &board->interference;
	uint64_t end = board->now_us + (uint64_t)(board->knobs.interference_ms * 1000.0);

	board->stats.interference_spells++;
	if (end > interference->until_us)
		interference->until_us = end;
	/* starts are independent of the spells (Poisson): the next one may
	 * come while this one lasts, and then lengthens it */
	schedule_next_spell(board);
}

int interference_now(const struct sim_board *board)
{
	return board->now_us < board->interference.until_us;
}
