/*
 * rng.h - the board's random numbers: xoshiro256** seeded through splitmix64.
 *
 * Every random decision of a board (beacon loss, ACK loss, wake-dead chips,
 * idle gaps, ...) draws from the board's own generator, in event order, so
 * the same seed replays the same run. Nothing here touches rand().
 */
#ifndef RB_SIM_RNG_H
#define RB_SIM_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t state[4];
};

void sim_rng_seed(struct sim_rng *rng, uint64_t seed);
uint64_t sim_rng_next(struct sim_rng *rng);
/* Uniform in [0, 1). */
double sim_rng_uniform(struct sim_rng *rng);
/* 1 with probability p (p <= 0 never, p >= 1 always, without drawing then). */
int sim_rng_chance(struct sim_rng *rng, double probability);
/* Uniform in [low, high] (integers, inclusive). */
uint64_t sim_rng_between(struct sim_rng *rng, uint64_t low, uint64_t high);
/* Exponential with this mean: the wait for the next event of a Poisson process. */
double sim_rng_exponential(struct sim_rng *rng, double mean);

#endif
