/* event_queue.c - binary min-heap of simulation events. */
#include "virtual/sim/event_queue.h"

#include <errno.h>
#include <stdlib.h>

void event_queue_init(struct event_queue *queue)
{
	*queue = (struct event_queue){ 0 };
}

void event_queue_free(struct event_queue *queue)
{
	free(queue->heap);
	*queue = (struct event_queue){ 0 };
}

void event_queue_clear(struct event_queue *queue)
{
	queue->count = 0;
}

static int event_earlier(const struct sim_event *a, const struct sim_event *b)
{
	if (a->due_us != b->due_us)
		return a->due_us < b->due_us;
	return a->sequence < b->sequence;
}

static void swap_events(struct sim_event *a, struct sim_event *b)
{
	struct sim_event t = *a;

	*a = *b;
	*b = t;
}

static void sift_up(struct sim_event *heap, size_t at)
{
	while (at > 0) {
		size_t parent = (at - 1) / 2;

		if (!event_earlier(&heap[at], &heap[parent]))
			break;
		swap_events(&heap[at], &heap[parent]);
		at = parent;
	}
}

static void sift_down(struct sim_event *heap, size_t count, size_t at)
{
	for (;;) {
		size_t left = 2 * at + 1, right = left + 1, smallest = at;

		if (left < count && event_earlier(&heap[left], &heap[smallest]))
			smallest = left;
		if (right < count && event_earlier(&heap[right], &heap[smallest]))
			smallest = right;
		if (smallest == at)
			return;
		swap_events(&heap[at], &heap[smallest]);
		at = smallest;
	}
}

static int grow(struct event_queue *queue)
{
	size_t capacity = queue->capacity ? queue->capacity * 2 : 256;
	struct sim_event *heap = realloc(queue->heap, capacity * sizeof(*heap));

	if (!heap)
		return -ENOMEM;
	queue->heap = heap;
	queue->capacity = capacity;
	return 0;
}

int event_queue_push(struct event_queue *queue, uint64_t due_us, uint32_t kind,
		     uint32_t generation, uint64_t arg)
{
	struct sim_event *event;

	if (queue->count == queue->capacity && grow(queue) < 0)
		return -ENOMEM;
	event = &queue->heap[queue->count];
	*event = (struct sim_event){
		.due_us = due_us,
		.sequence = queue->next_sequence++,
		.kind = kind,
		.generation = generation,
		.arg = arg,
	};
	sift_up(queue->heap, queue->count++);
	return 0;
}

uint64_t event_queue_next_due(const struct event_queue *queue)
{
	return queue->count ? queue->heap[0].due_us : UINT64_MAX;
}

int event_queue_pop(struct event_queue *queue, struct sim_event *event)
{
	if (!queue->count)
		return -ENOENT;
	*event = queue->heap[0];
	queue->heap[0] = queue->heap[--queue->count];
	sift_down(queue->heap, queue->count, 0);
	return 0;
}
