/*
 * bisect.h - the bisection engine: which commit first shows a regression
 * that may show only in some runs, and how sure we are of it.
 *
 * A pure library, apart from any command (as git keeps bisect.c apart from
 * builtin/bisect.c): no I/O, no argv, no terminal, no global state, no
 * randomness. The same candidates, options and sequence of results give the
 * same proposals and the same answer, so a bisection replayed from the state
 * database after a crash ends where the first one would have.
 *
 *   struct bisect_options options;
 *   bisect_options_init(&options);
 *   options.confidence = 0.99;
 *   struct bisect *bisect;
 *   bisect_new(commits, count, bad_index, &options, &bisect);
 *   for (;;) {
 *       bisect_status(bisect, &status);
 *       if (status.state != BISECT_RUNNING)
 *           break;
 *       bisect_next(bisect, free_boards, proposals, &proposal_count);
 *       ... run each proposal on a board, then for each result:
 *       bisect_record(bisect, proposals[i], BISECT_FAIL);
 *   }
 *   ... status.best, status.best_probability, status.undecided ...
 *   bisect_free(bisect);
 *
 * Candidates are the commits reachable from the bad commit and from no good
 * one (`git rev-list --parents BAD ^GOOD...`): a DAG with merges, the bad
 * commit included. The caller passes them as an array; a commit's parents
 * are indexes into that array, and parents outside the candidates (the good
 * ends and what they reach) are simply left out.
 *
 * The model. At most one candidate c is the first bad commit; a commit t is
 * then bad if and only if c is t or an ancestor of t. A run at t gives PASS,
 * FAIL (with the tracked symptom; a FAIL with another symptom is no evidence
 * and must not be recorded) or SKIP (t does not build or boot: no evidence).
 *   P(FAIL | t bad)  = p, the detection rate (a flaky reproducer has p < 1);
 *   P(FAIL | t good) = epsilon, the false-failure rate.
 * Both are unknown and learned from the runs: they are integrated out under
 * a prior that mixes the kinds of test a lab meets (deterministic, flaky,
 * reliable but noisy, both; noise_model.h), or stated by the caller when
 * known. Runs are independent given c, p and epsilon. The belief is then
 * exact: the probabilities this library reports are posterior
 * probabilities, not scores, and BISECT_FOUND is reported only when the
 * answer's posterior reaches the confidence. Unless the ends are trusted
 * (git's assumption), two more hypotheses share the prior: "no regression"
 * (no commit is bad; the bad end's failures were false) and "the good end is
 * bad" (the regression is older than the range).
 *
 * Confirmation. A posterior is only as good as its prior, and flaky data can
 * look clean by chance (a bad commit that happened to pass looks good to a
 * deterministic test). So before BISECT_FOUND the answer must have failed
 * at least once, and each of its parents (the good end, for a root) must
 * have passed as often as it takes for a bad commit to have shown a FAIL
 * with the confidence under every kind of test the runs still leave
 * plausible: where the data look clean, this asks for the runs that would
 * expose a flaky test mimicking a deterministic one. And each kind still
 * plausible must itself hold the answer nearly as sure (at 0.97 where the
 * confidence is 0.99): a false FAIL read under "no false failures" proves
 * its commit bad, and that kind alone must not carry the answer.
 *
 * Functions that can fail return 0 or a negative errno:
 *   -EINVAL  a bad argument: an index out of range, a parent cycle, a
 *            candidate the bad commit does not reach, an option out of range;
 *   -ENOMEM  out of memory;
 *   -EOVERFLOW  more results than a counter holds.
 */
#ifndef RB_BISECT_H
#define RB_BISECT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bisect;

struct bisect_commit {
	const char *id;          /* the commit's name (a hash); may be NULL */
	const size_t *parents;   /* indexes into the candidate array */
	size_t parent_count;     /* parents among the candidates only */
};

/* A rate the runs teach (the default), as opposed to one the caller states. */
#define BISECT_LEARNED (-1.0)
/* max_runs: no budget at all. */
#define BISECT_NO_RUN_LIMIT UINT_MAX
/* A proposal of bisect_next that is no candidate: run a good end, and
 * record the result with bisect_record_good_end. */
#define BISECT_GOOD_END SIZE_MAX

/*
 * Options. Fill with bisect_options_init() and change what you need: zero is
 * a meaningful value for several fields (epsilon = 0), so an all-zero struct
 * is not "the defaults".
 */
struct bisect_options {
	/* Stop when the answer's probability reaches this [0.99]; in (0, 1). */
	double confidence;
	/* p, P(FAIL with the symptom | commit bad): BISECT_LEARNED [default],
	 * or stated, in (0, 1]. */
	double fail_rate_when_bad;
	/* epsilon, P(FAIL with the symptom | commit good): BISECT_LEARNED
	 * [default], or stated, in [0, 1); below a stated p. */
	double fail_rate_when_good;
	/* The bad end is bad and the good ends are good, as the caller says
	 * (git's assumption) [false]. Else "no regression" and "the good end
	 * is bad" are hypotheses too (a good end that SKIPs is then taken as
	 * good all the same: nothing can test it). */
	bool trust_ends;
	/* Confirm the answer before BISECT_FOUND (see above) [true]. */
	bool confirm;
	/* Results to record at most before BISECT_BUDGET_SPENT [0: the
	 * default, bisect_default_max_runs(); BISECT_NO_RUN_LIMIT: none]. */
	unsigned max_runs;
	/* Breaks ties between equally good proposals (two side branches of
	 * the same weight), so that trials can differ on purpose [0]. */
	uint64_t seed;
};

enum bisect_result {
	BISECT_PASS,
	BISECT_FAIL,   /* with the tracked symptom */
	/* did not build or boot. A commit that also got a PASS or FAIL, before
	 * or after, builds and boots: its SKIPs are the board's trouble (a lab
	 * hang during boot), not the commit's, and do not count. */
	BISECT_SKIP,
};

enum bisect_state {
	BISECT_RUNNING,            /* more runs are needed */
	BISECT_FOUND,              /* best reached the confidence */
	/* "no candidate is bad" reached the confidence, or the bad end never
	 * failed in the runs after which a regression would have shown with
	 * the confidence (see no_regression_probability for how sure) */
	BISECT_NO_REGRESSION,
	BISECT_GOOD_END_BAD,       /* "the good end is bad too" reached it */
	/* The commits left can only be told apart by testing skipped ones:
	 * the first bad commit is one of `undecided` (git: "only skipped
	 * commits left to test ... The first bad commit could be any of:"). */
	BISECT_ONLY_SKIPPED_LEFT,
	BISECT_BUDGET_SPENT,       /* max_runs recorded; best is the best guess */
};

/* Below this probability a commit is no longer counted as a candidate left. */
#define BISECT_NEGLIGIBLE_PROBABILITY 1e-6

struct bisect_status {
	enum bisect_state state;
	size_t best;                       /* the most probable first bad commit */
	double best_probability;
	double no_regression_probability;  /* 0 when the ends are trusted */
	double good_end_bad_probability;   /* 0 when the ends are trusted */
	/* best reached the confidence, and runs confirming it are asked for
	 * (false while only a kind of test still doubts it: then the runs
	 * that inform most) */
	bool confirming;
	double fail_rate_estimate;         /* posterior mean of p */
	double fail_rate_when_good_estimate; /* posterior mean of epsilon */
	unsigned runs;                     /* results recorded, SKIPs and good ends included */
	size_t candidates_left;            /* commits with probability >= NEGLIGIBLE */
	size_t skipped_count;              /* commits that got a SKIP and never ran */
	/* BISECT_ONLY_SKIPPED_LEFT: the commits the first bad commit could be
	 * (skipped commits and at most one tested commit), in candidate array
	 * order; valid until the next result is recorded or bisect_free. Else
	 * NULL and 0. */
	const size_t *undecided;
	size_t undecided_count;
};

void bisect_options_init(struct bisect_options *options);
/* git bisect's model: p = 1, epsilon = 0, the ends trusted, no
 * confirmation; with k = 1 the proposals are git's halfway points. */
void bisect_options_deterministic(struct bisect_options *options);
/* The default budget for `count` candidates at `confidence`: generous
 * enough for a test that catches the bug one run in ten and fails falsely
 * one run in a hundred, so that it cuts off only what cannot end. */
unsigned bisect_default_max_runs(size_t count, double confidence);

/*
 * Starts a bisection over `count` candidates; commits[bad_index] is the bad
 * end. `options` may be NULL for the defaults. The arrays are copied: the
 * caller may free them on return; ids are only hashed (tie-breaking). Memory
 * is about N * (number of chains of single-parent commits) / 8 bytes, N the
 * candidate count, plus up to 1.5 MiB of working space: a few MiB at
 * N = 10,000 with kernel-like merges.
 */
int bisect_new(const struct bisect_commit *commits, size_t count, size_t bad_index,
	       const struct bisect_options *options, struct bisect **out);
void bisect_free(struct bisect *bisect);

/* One result of a run at candidate `commit`. A SKIP moves no probability,
 * and bisect_next never proposes that commit again. */
int bisect_record(struct bisect *bisect, size_t commit, enum bisect_result result);

/* One result of a run at a good end (outside the candidates): evidence about
 * epsilon, and about "the good end is bad". A SKIP counts as a run and
 * says nothing. */
int bisect_record_good_end(struct bisect *bisect, enum bisect_result result);

/*
 * Up to k commits to run next, for k boards free now, into out[0..k): the
 * set whose results are expected to tell the most about the first bad
 * commit and about the test's rates (mutual information, with git's
 * ancestor weight generalised to probability mass: a commit is bad with the
 * probability of its ancestor set). With p = 1 these are the commits at the i/(k+1) quantiles, so k
 * boards cut the candidates k+1 ways per round. With p < 1 the same commit
 * may appear several times: one PASS says little, and a repeat can be worth
 * more than a new commit. Up to 8 boards the batch is searched for the most
 * information; beyond, quantiles with a rule-of-thumb number of repeats.
 * Fewer than k when more runs would tell nothing (p = 1 and few candidates
 * left) or when fewer runs are left in the budget; none unless the state is
 * RUNNING. Skipped commits are never proposed. Repeats are adjacent in out.
 * The proposals assume the results of earlier proposals are recorded before
 * this is called again (rounds).
 *
 * Bad must show the symptom: unless the ends are trusted and p is stated,
 * the bad end is the first proposal of every round until it has failed
 * (until then nothing tells a flaky regression from none at all, nor pins
 * a learned p). While confirming,
 * the confirmation runs come first; an entry may then be BISECT_GOOD_END.
 */
int bisect_next(struct bisect *bisect, size_t k, size_t *out, size_t *count);

int bisect_status(const struct bisect *bisect, struct bisect_status *status);

/* The probability that `commit` is the first bad commit; 0 for an index
 * that is not a candidate. */
double bisect_probability(const struct bisect *bisect, size_t commit);

const char *bisect_state_name(enum bisect_state state);

#endif /* RB_BISECT_H */
