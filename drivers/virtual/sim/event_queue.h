/*
 * event_queue.h - the board's pending events in simulated time (µs).
 *
 * A binary min-heap ordered by due time, then by the order events were
 * pushed (a sequence number), so two events due at the same microsecond
 * always run in the same order and a seed replays exactly.
 *
 * Events are never removed early: a cancellable event carries a generation
 * that its owner compares when the event comes due (see struct sim_timer in
 * board.h), which keeps cancelling O(1).
 */
#ifndef RB_SIM_EVENT_QUEUE_H
#define RB_SIM_EVENT_QUEUE_H

#include <stddef.h>
#include <stdint.h>

struct sim_event {
	uint64_t due_us;
	uint64_t sequence;
	uint32_t kind;
	uint32_t generation;
	uint64_t arg;
};

struct event_queue {
	struct sim_event *heap;
	size_t count;
	size_t capacity;
	uint64_t next_sequence;
};

void event_queue_init(struct event_queue *queue);
void event_queue_free(struct event_queue *queue);
/* Drops every pending event (a reboot); keeps the storage. */
void event_queue_clear(struct event_queue *queue);
/* 0, or -ENOMEM. */
int event_queue_push(struct event_queue *queue, uint64_t due_us, uint32_t kind,
		     uint32_t generation, uint64_t arg);
/* The earliest event's due time; UINT64_MAX when empty. */
uint64_t event_queue_next_due(const struct event_queue *queue);
/* Removes the earliest event into *event; 0, or -ENOENT when empty. */
int event_queue_pop(struct event_queue *queue, struct sim_event *event);

#endif
