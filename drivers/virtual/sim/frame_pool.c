/* frame_pool.c - fixed pool of in-flight frames with a free list. */
#include "virtual/sim/frame_pool.h"

#include <errno.h>
#include <string.h>

void frame_pool_init(struct frame_pool *pool)
{
	uint32_t i;

	memset(pool->frames, 0, sizeof(pool->frames));
	/* hand out low indices first so runs stay easy to read in a debugger */
	for (i = 0; i < FRAME_POOL_SIZE; i++)
		pool->free_list[i] = FRAME_POOL_SIZE - 1 - i;
	pool->free_count = FRAME_POOL_SIZE;
}

int frame_pool_get(struct frame_pool *pool)
{
	uint32_t index;

	if (!pool->free_count)
		return -ENOBUFS;
	index = pool->free_list[--pool->free_count];
	pool->frames[index] = (struct sim_frame){ .in_use = 1 };
	return (int)index;
}

void frame_pool_put(struct frame_pool *pool, uint32_t index)
{
	if (index >= FRAME_POOL_SIZE || !pool->frames[index].in_use)
		return;
	pool->frames[index].in_use = 0;
	pool->free_list[pool->free_count++] = index;
}

struct sim_frame *frame_pool_frame(struct frame_pool *pool, uint32_t index)
{
	return index < FRAME_POOL_SIZE ? &pool->frames[index] : NULL;
}
