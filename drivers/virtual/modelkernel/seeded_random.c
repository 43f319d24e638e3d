/* seeded_random.c - splitmix64, see seeded_random.h for why. */
#include "seeded_random.h"

static uint64_t splitmix64_step(uint64_t *state)
{
	uint64_t z;

	*state += 0x9e3779b97f4a7c15ULL;
	z = *state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void seeded_random_init(struct seeded_random *random, uint64_t seed,
			const char *stream_name)
{
	/* FNV-1a of the name, so "stable-3.3.1" and "random" differ at seed 1 */
	uint64_t name_hash = 0xcbf29ce484222325ULL;
	const unsigned char *c;

	for (c = (const unsigned char *)stream_name; c && *c; c++) {
		name_hash ^= *c;
		name_hash *= 0x100000001b3ULL;
	}
	random->state = seed ^ name_hash;
	(void)splitmix64_step(&random->state);
}

uint64_t seeded_random_next(struct seeded_random *random)
{
	return splitmix64_step(&random->state);
}

uint64_t seeded_random_below(struct seeded_random *random, uint64_t bound)
{
	uint64_t limit, value;

	if (bound == 0)
		return 0;
	/* rejection sampling: no modulo bias, and still exact integer math */
	limit = UINT64_MAX - UINT64_MAX % bound;
	do
		value = seeded_random_next(random);
	while (value >= limit);
	return value % bound;
}

int64_t seeded_random_between(struct seeded_random *random, int64_t low,
			      int64_t high)
{
	if (high <= low)
		return low;
	return low + (int64_t)seeded_random_below(random,
						  (uint64_t)(high - low) + 1);
}

int seeded_random_chance(struct seeded_random *random, double probability)
{
	/* 53 random bits compared against the probability: exact in IEEE double */
	double draw = (double)(seeded_random_next(random) >> 11) * 0x1.0p-53;

	if (probability <= 0.0)
		return 0;
	if (probability >= 1.0)
		return 1;
	return draw < probability;
}
