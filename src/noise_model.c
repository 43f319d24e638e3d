/* noise_model.c - the prior over a test's two error rates and what runs say; see noise_model.h. */
#include "noise_model.h"

#include <math.h>
#include <string.h>

double noise_clamp_probability(double value)
{
	if (value < NOISE_PROBABILITY_FLOOR)
		return NOISE_PROBABILITY_FLOOR;
	if (value > 1 - NOISE_PROBABILITY_FLOOR)
		return 1 - NOISE_PROBABILITY_FLOOR;
	return value;
}

/* lgamma_r, not lgamma: lgamma writes the global signgam. */
static double log_gamma(double value)
{
	int sign;

	return lgamma_r(value, &sign);
}

static double log_beta(double a, double b)
{
	return log_gamma(a) + log_gamma(b) - log_gamma(a + b);
}

static struct rate_prior point_at(double value)
{
	return (struct rate_prior){ .is_point = true, .value = noise_clamp_probability(value) };
}

static struct rate_prior beta_of(double alpha, double beta)
{
	return (struct rate_prior){ .alpha = alpha, .beta = beta,
				    .log_beta_of_prior = log_beta(alpha, beta) };
}

static void add_component(struct noise_model *model, const char *name, double weight,
			  struct rate_prior when_bad, struct rate_prior when_good)
{
	model->components[model->count++] = (struct noise_component){
		.name = name, .log_weight = log(weight), .when_bad = when_bad, .when_good = when_good,
	};
}

/* Weights given as ratios, made to sum to 1. */
static void normalise_weights(struct noise_model *model)
{
	double total = 0;

	for (size_t i = 0; i < model->count; i++)
		total += exp(model->components[i].log_weight);
	for (size_t i = 0; i < model->count; i++)
		model->components[i].log_weight -= log(total);
}

/*
 * The kinds of test a kernel lab meets, and how much each is expected:
 *  - deterministic: a build or boot test, or a reproducer that never misses
 *    (p = 1, eps = 0). Common, and cheap to bisect: the largest share, so
 *    that a few clean results make it the belief;
 *  - flaky: a race reproducer that catches the bug in some runs only (p
 *    anywhere, leaning low: Beta(1, 1.5)), with no false failures;
 *  - noisy: a reliable test that now and then fails for an unrelated
 *    reason (p near 1, Beta(12, 1); eps about 2 %, Beta(1, 50));
 *  - flaky and noisy: both at once (p as flaky, eps as noisy);
 *  - flaky and very noisy: as flaky, with eps about 6 % (Beta(2, 30)).
 * The weights below are ratios (they sum to 1.1), made to sum to 1.
 * Why not one broad prior: clean data would then never look clean. After a
 * handful of runs that agree, a broad prior still spreads p over (0, 1), so
 * each PASS at a bad commit stays plausible and a deterministic test costs
 * as much as a flaky one; a point mass on "never lies" lets agreement count.
 * Why not only that: a mixture keeps every kind alive, so one FAIL at a good
 * commit moves belief to the noisy kinds instead of to a wrong commit.
 * The weights and shapes were chosen on tests/bench/bench_bisect.c's rows
 * (p 1 to 0.1, eps 0 to 0.05, symmetric 5 %), where the answer has to be
 * right as often as it claims in every row, not on average:
 *  - "noisy" is small (0.10): a high p with room for one miss lets flaky
 *    data mimic a deterministic test (a bad commit that passed a few times
 *    then looks good); at 0.20 the p = 0.5 row was right 98.9 % of the time
 *    with 0.99 claimed (1,000 trials), at 0.10 99.3 % (3,000 trials);
 *  - eps's prior mean is 2 % (Beta(1, 50)) in the two common noisy kinds,
 *    not 5 % (Beta(1, 20)): with room for 5 % false failures every FAIL of
 *    a p = 0.3 test is weak evidence, and that row took 92 runs instead of
 *    81 at N = 100;
 *  - but a test that does fail falsely 5 % of the time is then too far in
 *    that prior's tail: its false FAILs read as real ones, and the p = 0.3
 *    and 0.5 rows with eps = 0.05 were right 97.4 % and 98.0 % of the time
 *    at 0.99 claimed. "flaky and very noisy" at 0.10 brings them to 99.3 %
 *    and 99.1 % (1,000 trials each, every commit building), for 7 % more
 *    runs at p = 0.3, eps = 0. With 5 % of the commits unbuildable
 *    (bench_bisect) p = 0.3 was still right only 97.7 % of the time: the
 *    rest is bisect.c's rule that every plausible kind hold the answer.
 */
void noise_model_default(struct noise_model *model)
{
	memset(model, 0, sizeof(*model));
	add_component(model, "deterministic", 0.35, point_at(1), point_at(0));
	add_component(model, "flaky", 0.30, beta_of(1, 1.5), point_at(0));
	add_component(model, "noisy", 0.10, beta_of(12, 1), beta_of(1, 50));
	add_component(model, "flaky and noisy", 0.25, beta_of(1, 1.5), beta_of(1, 50));
	add_component(model, "flaky and very noisy", 0.10, beta_of(1, 1.5), beta_of(2, 30));
	normalise_weights(model);
}

void noise_model_state_fail_rate_when_bad(struct noise_model *model, double p)
{
	for (size_t i = 0; i < model->count; i++)
		model->components[i].when_bad = point_at(p);
}

void noise_model_state_fail_rate_when_good(struct noise_model *model, double epsilon)
{
	for (size_t i = 0; i < model->count; i++)
		model->components[i].when_good = point_at(epsilon);
}

bool noise_model_learns_fail_rate_when_bad(const struct noise_model *model)
{
	for (size_t i = 0; i < model->count; i++)
		if (!model->components[i].when_bad.is_point)
			return true;
	return false;
}

bool noise_model_learns_fail_rate_when_good(const struct noise_model *model)
{
	for (size_t i = 0; i < model->count; i++)
		if (!model->components[i].when_good.is_point)
			return true;
	return false;
}

/* log P(fails, passes in this order | the rate's prior). */
static double rate_log_evidence(const struct rate_prior *prior, double fails, double passes)
{
	if (prior->is_point)
		return (fails > 0 ? fails * log(prior->value) : 0) +
		       (passes > 0 ? passes * log1p(-prior->value) : 0);
	return log_beta(prior->alpha + fails, prior->beta + passes) - prior->log_beta_of_prior;
}

static double component_log_evidence(const struct noise_component *component,
				     const struct noise_counts *counts)
{
	return rate_log_evidence(&component->when_bad, counts->fails_bad, counts->passes_bad) +
	       rate_log_evidence(&component->when_good, counts->fails_good, counts->passes_good);
}

double noise_model_log_evidence(const struct noise_model *model, const struct noise_counts *counts,
				double *component_log)
{
	double logs[NOISE_MAX_COMPONENTS], largest = -INFINITY, total = 0;

	for (size_t i = 0; i < model->count; i++) {
		const struct noise_component *component = &model->components[i];

		logs[i] = component->log_weight + component_log_evidence(component, counts);
		if (logs[i] > largest)
			largest = logs[i];
		if (component_log)
			component_log[i] = logs[i];
	}
	for (size_t i = 0; i < model->count; i++)
		total += exp(logs[i] - largest);
	return largest + log(total);
}

static double rate_posterior_mean(const struct rate_prior *prior, double fails, double passes)
{
	if (prior->is_point)
		return prior->value;
	return (prior->alpha + fails) / (prior->alpha + prior->beta + fails + passes);
}

double noise_component_mean_false_fail_rate(const struct noise_component *component,
					    const struct noise_counts *counts)
{
	return rate_posterior_mean(&component->when_good, counts->fails_good, counts->passes_good);
}

double noise_component_mean_fail_rate(const struct noise_component *component,
				      const struct noise_counts *counts)
{
	return rate_posterior_mean(&component->when_bad, counts->fails_bad, counts->passes_bad);
}

/* E[(1 - p)^n] under p's posterior Beta(alpha + fails, beta + passes), or
 * its point mass. */
double noise_component_all_pass_probability(const struct noise_component *component,
					     const struct noise_counts *counts, double n)
{
	const struct rate_prior *p = &component->when_bad;
	double a = p->alpha + counts->fails_bad, b = p->beta + counts->passes_bad;

	if (p->is_point)
		return pow(1 - p->value, n);
	return exp(log_beta(a, b + n) - log_beta(a, b));
}
