/* rng.c - xoshiro256** (Blackman & Vigna), seeded with splitmix64. */
#include "virtual/sim/rng.h"

#include <math.h>

static uint64_t splitmix64_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void sim_rng_seed(struct sim_rng *rng, uint64_t seed)
{
	uint64_t x = seed;
	int i;

	/* splitmix64 never yields four zero words, which xoshiro cannot leave */
	for (i = 0; i < 4; i++)
		rng->state[i] = splitmix64_next(&x);
}

static uint64_t rotate_left(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(struct sim_rng *rng)
{
	uint64_t *s = rng->state;
	uint64_t result = rotate_left(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotate_left(s[3], 45);
	return result;
}

double sim_rng_uniform(struct sim_rng *rng)
{
	return (double)(sim_rng_next(rng) >> 11) * 0x1.0p-53;
}

int sim_rng_chance(struct sim_rng *rng, double probability)
{
	/* certain outcomes draw nothing, so forcing a knob to 0 or 1 does not
	 * shift the rest of the run's random sequence more than needed */
	if (probability <= 0.0)
		return 0;
	if (probability >= 1.0)
		return 1;
	return sim_rng_uniform(rng) < probability;
}

uint64_t sim_rng_between(struct sim_rng *rng, uint64_t low, uint64_t high)
{
	uint64_t span, offset;

	if (high <= low)
		return low;
	span = high - low + 1;
	offset = (uint64_t)(sim_rng_uniform(rng) * (double)span);
	/* rounding may reach span itself for very wide ranges */
	return offset >= span ? high : low + offset;
}

double sim_rng_exponential(struct sim_rng *rng, double mean)
{
	/* 1 - U is in (0, 1]: the logarithm stays finite */
	return -log(1.0 - sim_rng_uniform(rng)) * mean;
}
