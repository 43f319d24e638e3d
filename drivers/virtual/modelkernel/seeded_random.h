/*
 * seeded_random.h - a small deterministic random number generator.
 *
 * The model kernel history must come out byte-identical for the same seed
 * on every machine and libc, so it cannot use rand() or random(): this is
 * splitmix64, fully specified here, with helpers that never depend on
 * floating-point rounding where a count or an index is drawn.
 */
#ifndef RB_SEEDED_RANDOM_H
#define RB_SEEDED_RANDOM_H

#include <stdint.h>

struct seeded_random {
	uint64_t state;
};

/* Starts a stream from `seed`, mixed with `stream_name` so that separate
 * streams of one seed (one per scenario, say) do not repeat each other. */
void seeded_random_init(struct seeded_random *random, uint64_t seed,
			const char *stream_name);

uint64_t seeded_random_next(struct seeded_random *random);

/* Uniform in [0, bound); bound 0 gives 0. */
uint64_t seeded_random_below(struct seeded_random *random, uint64_t bound);

/* Uniform in [low, high] (inclusive); high < low gives low. */
int64_t seeded_random_between(struct seeded_random *random, int64_t low,
			      int64_t high);

/* 1 with probability `probability` (clamped to [0, 1]), else 0. */
int seeded_random_chance(struct seeded_random *random, double probability);

#endif
