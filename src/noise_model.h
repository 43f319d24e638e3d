/*
 * noise_model.h - what one run's result says about a commit, when runs lie:
 * P(FAIL | the commit is bad) = p (detection; a flaky reproducer has p < 1)
 * and P(FAIL | the commit is good) = eps (false failures: unrelated trouble
 * that looks like the symptom). Both are unknown to the bisection, so both
 * are integrated out under a prior over (p, eps), and what a set of runs
 * says is a marginal likelihood, never a guess of the rates.
 *
 * The prior is a mixture of a few kinds of test, each a product of a prior
 * on p and a prior on eps (a point mass, or a Beta). With Beta parts the
 * marginal likelihood is a ratio of Beta functions (Beta-binomial), so a
 * hypothesis is scored in closed form from four counts: the FAILs and
 * PASSes at commits it calls bad, and those at commits it calls good.
 *
 *   struct noise_model model;
 *   noise_model_default(&model);              (or state p, eps, or both)
 *   struct noise_counts counts = { fails_bad, passes_bad, fails_good, passes_good };
 *   double log_evidence = noise_model_log_evidence(&model, &counts, NULL);
 *
 * A pure library: no I/O, no global state. Rates of exactly 0 or 1 are held
 * NOISE_PROBABILITY_FLOOR away, so that a result a point mass calls
 * impossible is overwhelming evidence, never a zero that leaves nothing.
 */
#ifndef RB_NOISE_MODEL_H
#define RB_NOISE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#define NOISE_PROBABILITY_FLOOR 1e-9
#define NOISE_MAX_COMPONENTS 6

/* A prior over one rate: a point mass at `value`, or Beta(alpha, beta). */
struct rate_prior {
	bool is_point;
	double value;
	double alpha, beta;
	double log_beta_of_prior;	/* log B(alpha, beta) */
};

/* One kind of test: its prior weight and its priors on p and on eps. */
struct noise_component {
	const char *name;
	double log_weight;
	struct rate_prior when_bad;	/* p */
	struct rate_prior when_good;	/* eps */
};

struct noise_model {
	size_t count;
	struct noise_component components[NOISE_MAX_COMPONENTS];
};

/* Runs under one hypothesis about the first bad commit. Doubles: sums of
 * counters may pass UINT_MAX. */
struct noise_counts {
	double fails_bad, passes_bad;	/* at commits the hypothesis calls bad */
	double fails_good, passes_good;	/* at commits it calls good */
};

/*
 * Both rates learned: the mixture of bisect.h's defaults (see noise_model.c
 * for the kinds of test and why their weights).
 */
void noise_model_default(struct noise_model *model);

/* Every component's prior on p (or on eps) becomes a point mass at the
 * stated value: the caller knows it. Components that become equal stay
 * apart, which changes nothing. */
void noise_model_state_fail_rate_when_bad(struct noise_model *model, double p);
void noise_model_state_fail_rate_when_good(struct noise_model *model, double epsilon);

/* Whether p (eps) is learned, i.e. some component has a Beta prior on it. */
bool noise_model_learns_fail_rate_when_bad(const struct noise_model *model);
bool noise_model_learns_fail_rate_when_good(const struct noise_model *model);

/*
 * log P(these runs | the hypothesis), (p, eps) integrated out under the
 * mixture. component_log (may be NULL) receives, per component, log of its
 * weight times its marginal likelihood: the unnormalised posterior of the
 * component given the hypothesis.
 */
double noise_model_log_evidence(const struct noise_model *model, const struct noise_counts *counts,
				double *component_log);

/* E[p] and E[eps] under one kind of test, given the runs (posterior means). */
double noise_component_mean_fail_rate(const struct noise_component *component,
				      const struct noise_counts *counts);
double noise_component_mean_false_fail_rate(const struct noise_component *component,
					    const struct noise_counts *counts);

/*
 * E[(1 - p)^n | the runs] under one kind of test: the probability that n
 * more runs at a bad commit all pass, p integrated over its posterior. It
 * says how many passes make a bad commit unlikely.
 */
double noise_component_all_pass_probability(const struct noise_component *component,
					     const struct noise_counts *counts, double n);

/* log of the clamped rate and of one minus it, for point masses. */
double noise_clamp_probability(double value);

#endif /* RB_NOISE_MODEL_H */
