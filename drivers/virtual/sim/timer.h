/*
 * timer.h - a cancellable one-shot timer on the board's event queue.
 *
 * Arming pushes an event stamped with the timer's generation; cancelling or
 * re-arming bumps the generation, so the stale event is recognised and
 * skipped when it comes due (board_timer_arm / board_timer_fired in board.h).
 */
#ifndef RB_SIM_TIMER_H
#define RB_SIM_TIMER_H

#include <stdint.h>

struct sim_timer {
	uint32_t generation;
	int pending;
	uint64_t due_us;
};

static inline void sim_timer_cancel(struct sim_timer *timer)
{
	timer->generation++;
	timer->pending = 0;
}

#endif
