/* bisect.c - the bisection engine: belief over the first bad commit, next commits, stop; see bisect.h. */
#include "bisect.h"
#include "noise_model.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NO_POSITION SIZE_MAX
#define BITS_PER_WORD 64
#define PROBABILITY_FLOOR NOISE_PROBABILITY_FLOOR

/*
 * Proposals for up to this many boards are chosen by maximising the mutual
 * information of the whole batch, which enumerates every combination of
 * results (2^8 = 256 at most). Beyond it a rule of thumb spreads the boards
 * over quantiles (choose_batch_by_quantiles).
 */
#define JOINT_SEARCH_MAX_BOARDS 8
#define MAX_RESULT_PATTERNS (1u << JOINT_SEARCH_MAX_BOARDS)
/*
 * The rates differ between hypotheses, and between the kinds of test of the
 * noise model under one hypothesis: a hypothesis that blames a commit which
 * kept passing survives only with a low p; under "deterministic" a repeat
 * tells nothing, under "flaky" it tells a lot. So the information of a
 * batch is about the first bad commit and about the rates at once: each
 * hypothesis is split by kind of test, and the parts are grouped into cells
 * by their estimates of p (FAIL_RATE_BINS bins of equal width) and of
 * epsilon (FALSE_FAIL_BINS bins, split where the kinds of test differ).
 */
#define FAIL_RATE_BINS 8
#define FALSE_FAIL_BINS 4
#define RATE_CELLS (FAIL_RATE_BINS * FALSE_FAIL_BINS)
#define MAX_GROUPS (MAX_RESULT_PATTERNS * RATE_CELLS)
/* Steepest-ascent passes over a batch: the quantile start is close to the
 * optimum, so a few passes reach it; the bound keeps bisect_next fast. A
 * pass that gains less than this share of the information ends the search:
 * such gains are below what the plug-in rates can tell apart anyway. */
#define LOCAL_SEARCH_MAX_PASSES 6
#define LOCAL_SEARCH_MIN_GAIN 1e-3
/*
 * A run expected to tell less than this (in nats) is not worth a board.
 * Ruled-out commits keep a trace of probability (PROBABILITY_FLOOR), so a
 * commit already settled still promises a few millionths; a useful run,
 * even at p = 0.05, promises hundreds of times this.
 */
#define MIN_USEFUL_INFORMATION 1e-4
/* The prior share of "no regression" when the ends are not trusted: a user
 * who saw the bad end fail is usually right, but flaky tests make ghosts. */
#define NO_REGRESSION_PRIOR 0.1
/* Confirmation heeds a kind of test while its posterior share, given the
 * answer, is at least this: below it, its objection is itself unlikely. */
#define CONFIRMATION_PLAUSIBLE 0.01
/* How much more doubt than the answer's each plausible kind may keep
 * (sure_under_every_kind). */
#define KIND_DOUBT_FACTOR 3.0
/* More passes than this are never asked of one parent: a commit that needs
 * them is beyond any budget, and the bisection ends on it. */
#define MAX_CONFIRMATION_PASSES 4096
/* Nor more runs of a bad end that never fails. */
#define MAX_BAD_END_RUNS 100000

/* ---- small helpers --------------------------------------------------------- */

static size_t words_for_bits(size_t bits)
{
	return (bits + BITS_PER_WORD - 1) / BITS_PER_WORD;
}

static void bit_set(uint64_t *bits, size_t index)
{
	bits[index / BITS_PER_WORD] |= UINT64_C(1) << (index % BITS_PER_WORD);
}

static bool bit_test(const uint64_t *bits, size_t index)
{
	return (bits[index / BITS_PER_WORD] >> (index % BITS_PER_WORD)) & 1;
}

/* Sets bits first..last (inclusive) a word at a time: chains are
 * contiguous, so ancestor sets are mostly long runs of ones. */
static void bit_set_range(uint64_t *bits, size_t first, size_t last)
{
	while (first <= last) {
		size_t word = first / BITS_PER_WORD;
		size_t offset = first % BITS_PER_WORD;
		size_t span = BITS_PER_WORD - offset;

		if (last - first + 1 < span)
			span = last - first + 1;
		uint64_t mask = span == BITS_PER_WORD ? ~UINT64_C(0)
						      : ((UINT64_C(1) << span) - 1) << offset;
		bits[word] |= mask;
		first += span;
	}
}

/* The bits of the last word that stand for candidates. */
static uint64_t valid_mask_of_word(size_t word, size_t bit_count)
{
	size_t bits_before = word * BITS_PER_WORD;
	size_t bits_here = bit_count - bits_before;

	if (bits_here >= BITS_PER_WORD)
		return ~UINT64_C(0);
	return (UINT64_C(1) << bits_here) - 1;
}

/* splitmix64: a well-mixed 64-bit hash for tie-breaking keys. */
static uint64_t mix64(uint64_t value)
{
	value += UINT64_C(0x9e3779b97f4a7c15);
	value = (value ^ (value >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	value = (value ^ (value >> 27)) * UINT64_C(0x94d049bb133111eb);
	return value ^ (value >> 31);
}

/* FNV-1a, so that a commit's tie-break key follows its id, not where the
 * caller happened to put it in the array. */
static uint64_t hash_string(const char *text)
{
	uint64_t hash = UINT64_C(0xcbf29ce484222325);

	for (; *text; text++)
		hash = (hash ^ (unsigned char)*text) * UINT64_C(0x100000001b3);
	return hash;
}

static double clamp_probability(double value)
{
	return noise_clamp_probability(value);
}

static double entropy_term(double probability)
{
	return probability > 0 ? -probability * log(probability) : 0;
}

/* ---- the engine's state ---------------------------------------------------- */

/*
 * Candidates are kept in "positions": a topological order (parents first) in
 * which every chain of single-parent commits is contiguous. The ancestors
 * of a commit are then its chain head's ancestors plus the range from the
 * head to the commit, so only chain heads need an ancestor bitset, and an
 * ancestor set is a union of chain prefixes: runs of ones a word at a time.
 */
struct bisect_graph {
	size_t count;
	size_t words;                  /* words of a bitset over positions */
	size_t *position_of;           /* caller index -> position */
	size_t *commit_at;             /* position -> caller index */
	size_t *chain_head;            /* position -> position of its chain head */
	size_t *parent_count;          /* position -> parents among candidates */
	size_t *single_parent;         /* position -> its parent's position, if one */
	size_t *parent_first;          /* position -> its parents in parent_list; count + 1 */
	size_t *parent_list;           /* parents' positions */
	size_t *head_bitset_index;     /* position of a head -> its row in head_ancestors */
	uint64_t *head_ancestors;      /* one row of `words` per chain head */
	uint64_t *tie_key;             /* position -> tie-break key */
};

/* The distribution of the number of FAILs among a commit's runs in a batch. */
typedef double fail_count_distribution[JOINT_SEARCH_MAX_BOARDS + 1];

/*
 * Everything the enumeration of a batch's result combinations needs: the
 * groups of hypotheses (see group_masses) and, per group and per commit of
 * the batch, the distribution of its number of FAILs. Kept in the scratch
 * space, not on the stack; there are never more groups than hypotheses
 * times kinds of test, so a small history needs small tables.
 */
struct outcome_walk {
	size_t slot_count;
	size_t group_count;
	size_t group_capacity;
	unsigned repeats[JOINT_SEARCH_MAX_BOARDS];
	double table_mass[MAX_GROUPS];        /* by pattern * RATE_CELLS + cell */
	double table_fail_mass[MAX_GROUPS];   /* ... sum of mass * p */
	double table_false_mass[MAX_GROUPS];  /* ... sum of mass * epsilon */
	/* The table's cells that hold mass, so that neither clearing it nor
	 * reading it walks all of its 8,192 cells (a batch of 8 commits on a
	 * line fills at most 9 patterns): that was half of bisect_next's time
	 * at k = 8. */
	size_t touched[MAX_GROUPS];
	size_t touched_count;
	bool is_touched[MAX_GROUPS];
	size_t *group_pattern;                /* the non-empty groups, compacted */
	double *group_mass;
	fail_count_distribution *pmf;         /* group * JOINT_SEARCH_MAX_BOARDS + slot */
	double *partial;                      /* depth * group_capacity + group */
};

/* What the evidence says, refreshed after every result. */
struct bisect_summary {
	enum bisect_state state;
	bool confirming;
	size_t best_position;
	double best_probability;
	double fail_rate_estimate;
	double fail_rate_when_good_estimate;
	size_t candidates_left;
	size_t *undecided;             /* caller indexes */
	size_t undecided_count;
};

/* One hypothesis split by kind of test, as the batch information sees it. */
struct rate_part {
	double mass;
	double fail_rate;              /* E[p | hypothesis, kind of test] */
	double false_fail_rate;        /* E[epsilon | ...] */
	unsigned char cell;
};

/* Buffers bisect_next reuses, so that a call allocates nothing. */
struct bisect_scratch {
	double *ancestor_mass;         /* position -> P(commit is bad) */
	struct rate_part *parts;       /* position * kinds + kind */
	double *word_mass;             /* word of positions -> its probability */
	double *word_cell_mass;        /* word * RATE_CELLS + cell -> probability */
	double *word_cell_fail_mass;   /* ... -> sum of probability * p */
	double *word_cell_false_mass;  /* ... -> sum of probability * epsilon */
	struct outcome_walk *walk;     /* batch_information's tables */
	struct batch_memo *memo;       /* weighings of the current search */
	struct line_entry *line;       /* testable commits by ancestor mass */
	uint64_t *membership;          /* JOINT_SEARCH_MAX_BOARDS ancestor bitsets */
	uint64_t *ancestors;           /* one ancestor bitset */
};

/* A hypothesis outside the candidates ("no regression", "the good end is
 * bad"): its prior, its evidence and its kinds of test. */
struct outside_hypothesis {
	double log_prior;
	double log_evidence;
	double component_log[NOISE_MAX_COMPONENTS];
	double probability;
};

struct bisect {
	struct bisect_graph graph;
	size_t bad_position;
	struct bisect_options options;
	struct noise_model noise;

	/* Evidence. Under hypothesis "c is the first bad commit", the runs at
	 * commits that are then bad are fails/passes_where_bad[c]; the rest of
	 * the candidate runs, and every good-end run, were at good commits. */
	unsigned *fails_where_bad;
	unsigned *passes_where_bad;
	unsigned *fails_at;            /* position -> its own FAILs */
	unsigned *passes_at;           /* position -> its own PASSes */
	unsigned candidate_fails;
	unsigned candidate_passes;
	unsigned good_end_fails;
	unsigned good_end_passes;
	bool good_end_skipped;         /* got a SKIP, and no PASS or FAIL */
	unsigned runs;
	bool *skipped;                 /* position -> got a SKIP, and no PASS or FAIL */
	bool *ran;                     /* position -> got a PASS or FAIL */
	size_t skipped_count;

	/* Belief: position -> probability of being the first bad commit; and
	 * per position, log P(runs | it), and per kind of test log of its
	 * weight times P(runs | it, that kind). */
	double *probability;
	double *log_evidence;
	double *component_log;         /* position * kinds + kind */
	struct outside_hypothesis no_regression;
	struct outside_hypothesis good_end_bad;
	struct bisect_summary summary;
	struct bisect_scratch scratch;

	double log_prior_commit;
	unsigned max_runs;             /* the budget in force: options' or the default */
	unsigned bad_end_budget;       /* passes of a bad end that never fails */
};

struct line_entry {
	double ancestor_mass;
	uint64_t tie_key;
	size_t position;
};

/* ---- options --------------------------------------------------------------- */

void bisect_options_init(struct bisect_options *options)
{
	memset(options, 0, sizeof(*options));
	options->confidence = 0.99;
	options->fail_rate_when_bad = BISECT_LEARNED;
	options->fail_rate_when_good = BISECT_LEARNED;
	options->trust_ends = false;
	options->confirm = true;
	options->max_runs = 0;
	options->seed = 0;
}

void bisect_options_deterministic(struct bisect_options *options)
{
	options->fail_rate_when_bad = 1;
	options->fail_rate_when_good = 0;
	options->trust_ends = true;
	options->confirm = false;
}

/*
 * Runs per bit the default budget allows. Bits: those that name one of the
 * candidates with the confidence (log2 N + log2 1/(1 - confidence)). A test
 * with p = 0.1 and eps = 0.01 needs some 40 runs per bit on average at best
 * and this engine some 2.6 times that, its slowest trials 4 times the mean:
 * the default budget lets such a test end, and cuts off only what could not
 * end in any lab's patience (eps as large as p / 2).
 */
#define DEFAULT_BUDGET_RUNS_PER_BIT 250

unsigned bisect_default_max_runs(size_t count, double confidence)
{
	double bits = log2((double)count + 2) - log2(1 - confidence);
	double runs = ceil(bits * DEFAULT_BUDGET_RUNS_PER_BIT);

	return runs > UINT_MAX - 1 ? UINT_MAX - 1 : (unsigned)runs;
}

/* Finite and in [low, high). NaN fails every comparison, so it is out. */
static bool is_in_half_open(double value, double low, double high)
{
	return isfinite(value) && value >= low && value < high;
}

static bool is_learned(double rate)
{
	return rate == BISECT_LEARNED;
}

static int options_validate(const struct bisect_options *options)
{
	double p = options->fail_rate_when_bad, epsilon = options->fail_rate_when_good;

	if (!is_in_half_open(options->confidence, 0, 1) || options->confidence == 0)
		return -EINVAL;
	if (!is_learned(epsilon) && !is_in_half_open(epsilon, 0, 1))
		return -EINVAL;
	if (!is_learned(p) && !(isfinite(p) && p > 0 && p <= 1))
		return -EINVAL;
	/* p <= epsilon would make bad commits the quiet ones: a different model. */
	if (!is_learned(p) && !is_learned(epsilon) && p <= epsilon)
		return -EINVAL;
	return 0;
}

/*
 * Runs of a bad end that never fails, after which "no regression" is the
 * answer: a regression drawn from the prior over p would have shown a FAIL
 * by then with the confidence (a deterministic test: one run; p stated as
 * 0.3, 13 runs at 0.99; the default prior, whose flaky kinds keep mass near
 * p = 0, 88). The answer then says how sure it is: the posterior of "no
 * regression" (0.89 after those 88 runs), which would take some 800 runs
 * to reach 0.99 by itself.
 */
static unsigned bad_end_budget_of(const struct noise_model *noise, double confidence)
{
	const struct noise_counts no_runs = { 0 };
	double total_weight = 0, allowed = 1 - confidence;
	unsigned low = 1, high = MAX_BAD_END_RUNS;

	for (size_t i = 0; i < noise->count; i++)
		total_weight += exp(noise->components[i].log_weight);
	while (low < high) {
		unsigned n = low + (high - low) / 2;
		double all_pass = 0;
		for (size_t i = 0; i < noise->count; i++)
			all_pass += exp(noise->components[i].log_weight) *
				    noise_component_all_pass_probability(&noise->components[i],
									 &no_runs, n);
		/* a hair of slack: a prior that meets the bound exactly (as an
		 * earlier default did, at 81 runs) must not miss it by rounding */
		if (all_pass <= allowed * total_weight * (1 + 1e-9))
			high = n;
		else
			low = n + 1;
	}
	return high;
}

static void model_from_options(struct bisect *bisect)
{
	const struct bisect_options *options = &bisect->options;
	double candidates = (double)bisect->graph.count;

	noise_model_default(&bisect->noise);
	if (!is_learned(options->fail_rate_when_bad))
		noise_model_state_fail_rate_when_bad(&bisect->noise, options->fail_rate_when_bad);
	if (!is_learned(options->fail_rate_when_good))
		noise_model_state_fail_rate_when_good(&bisect->noise, options->fail_rate_when_good);

	/* Every candidate is a priori as likely as any other (git's count);
	 * "the good end is bad" is one more commit, older than them all. */
	if (options->trust_ends) {
		bisect->log_prior_commit = -log(candidates);
		bisect->no_regression.log_prior = -INFINITY;
		bisect->good_end_bad.log_prior = -INFINITY;
	} else {
		bisect->log_prior_commit = log((1 - NO_REGRESSION_PRIOR) / (candidates + 1));
		bisect->no_regression.log_prior = log(NO_REGRESSION_PRIOR);
		bisect->good_end_bad.log_prior = bisect->log_prior_commit;
	}
	bisect->max_runs = options->max_runs ? options->max_runs
					     : bisect_default_max_runs(bisect->graph.count,
								       options->confidence);
	bisect->bad_end_budget = bad_end_budget_of(&bisect->noise, options->confidence);
}

/* ---- the candidate graph --------------------------------------------------- */

/* Parents and children of each caller index, flattened. */
struct adjacency {
	size_t *parent_start;          /* count + 1 */
	size_t *parents;
	size_t *child_start;           /* count + 2: shifted for the counting sort */
	size_t *children;
};

static void adjacency_free(struct adjacency *adjacency)
{
	free(adjacency->parent_start);
	free(adjacency->parents);
	free(adjacency->child_start);
	free(adjacency->children);
}

static int adjacency_build(const struct bisect_commit *commits, size_t count,
			   struct adjacency *adjacency)
{
	size_t edges = 0;

	for (size_t commit = 0; commit < count; commit++) {
		if (commits[commit].parent_count > 0 && !commits[commit].parents)
			return -EINVAL;
		for (size_t i = 0; i < commits[commit].parent_count; i++)
			if (commits[commit].parents[i] >= count)
				return -EINVAL;
		edges += commits[commit].parent_count;
	}
	adjacency->parent_start = calloc(count + 1, sizeof(size_t));
	adjacency->parents = calloc(edges + 1, sizeof(size_t));
	adjacency->child_start = calloc(count + 2, sizeof(size_t));
	adjacency->children = calloc(edges + 1, sizeof(size_t));
	if (!adjacency->parent_start || !adjacency->parents || !adjacency->child_start ||
	    !adjacency->children)
		return -ENOMEM;

	size_t next = 0;
	for (size_t commit = 0; commit < count; commit++) {
		adjacency->parent_start[commit] = next;
		for (size_t i = 0; i < commits[commit].parent_count; i++) {
			size_t parent = commits[commit].parents[i];
			adjacency->parents[next++] = parent;
			adjacency->child_start[parent + 2]++;
		}
	}
	adjacency->parent_start[count] = next;
	/* Counting sort of the edges by parent, children in index order. */
	for (size_t commit = 0; commit < count; commit++)
		adjacency->child_start[commit + 2] += adjacency->child_start[commit + 1];
	for (size_t commit = 0; commit < count; commit++)
		for (size_t i = adjacency->parent_start[commit];
		     i < adjacency->parent_start[commit + 1]; i++) {
			size_t parent = adjacency->parents[i];
			adjacency->children[adjacency->child_start[parent + 1]++] = commit;
		}
	return 0;
}

static size_t parents_of(const struct adjacency *adjacency, size_t commit)
{
	return adjacency->parent_start[commit + 1] - adjacency->parent_start[commit];
}

/*
 * A commit with exactly one parent continues that parent's chain, unless a
 * sibling with a smaller index already did; every other commit (a root, a
 * merge, a second child of a fork) heads a chain of its own.
 * continuation[q] is the commit continuing q's chain, or NO_POSITION.
 */
static void choose_chain_continuations(const struct adjacency *adjacency, size_t count,
				       size_t *continuation, bool *is_head)
{
	for (size_t commit = 0; commit < count; commit++)
		continuation[commit] = NO_POSITION;
	for (size_t commit = 0; commit < count; commit++) {
		is_head[commit] = true;
		if (parents_of(adjacency, commit) != 1)
			continue;
		size_t parent = adjacency->parents[adjacency->parent_start[commit]];
		if (continuation[parent] == NO_POSITION && parent != commit) {
			continuation[parent] = commit;
			is_head[commit] = false;
		}
	}
}

/*
 * Places whole chains, parents first (Kahn's algorithm over chains: a chain
 * is ready when every parent of its head is placed). Fails with -EINVAL on a
 * cycle, which leaves some chain never ready.
 */
static int place_chains(const struct adjacency *adjacency, size_t count,
			const size_t *continuation, const bool *is_head, size_t *commit_at)
{
	size_t *waiting_parents = calloc(count, sizeof(size_t));
	size_t *ready = calloc(count, sizeof(size_t));
	size_t ready_first = 0, ready_end = 0, placed = 0;

	if (!waiting_parents || !ready) {
		free(waiting_parents);
		free(ready);
		return -ENOMEM;
	}
	for (size_t commit = 0; commit < count; commit++) {
		waiting_parents[commit] = parents_of(adjacency, commit);
		if (is_head[commit] && waiting_parents[commit] == 0)
			ready[ready_end++] = commit;
	}
	while (ready_first < ready_end) {
		size_t member = ready[ready_first++];

		for (; member != NO_POSITION; member = continuation[member]) {
			commit_at[placed++] = member;
			for (size_t i = adjacency->child_start[member];
			     i < adjacency->child_start[member + 1]; i++) {
				size_t child = adjacency->children[i];
				if (is_head[child] && --waiting_parents[child] == 0)
					ready[ready_end++] = child;
			}
		}
	}
	free(waiting_parents);
	free(ready);
	return placed == count ? 0 : -EINVAL;
}

static const uint64_t *head_ancestors_of(const struct bisect_graph *graph, size_t head)
{
	return graph->head_ancestors + graph->head_bitset_index[head] * graph->words;
}

/* Is `ancestor` the commit at `position` or one of its ancestors? */
static bool is_ancestor_or_self(const struct bisect_graph *graph, size_t ancestor,
				size_t position)
{
	size_t head = graph->chain_head[position];

	if (ancestor >= head && ancestor <= position)
		return true;
	return bit_test(head_ancestors_of(graph, head), ancestor);
}

/* Writes the set of `position` and its ancestors, as a bitset over positions. */
static void ancestors_into(const struct bisect_graph *graph, size_t position, uint64_t *bits)
{
	size_t head = graph->chain_head[position];

	memcpy(bits, head_ancestors_of(graph, head), graph->words * sizeof(uint64_t));
	bit_set_range(bits, head, position);
}

/* A chain head's ancestors: itself and, for each parent, the parent's
 * head's ancestors plus the parent's chain up to the parent. */
static void fill_head_ancestors(struct bisect_graph *graph, const struct adjacency *adjacency)
{
	for (size_t position = 0; position < graph->count; position++) {
		if (graph->head_bitset_index[position] == NO_POSITION)
			continue;
		uint64_t *bits = graph->head_ancestors +
				 graph->head_bitset_index[position] * graph->words;
		size_t commit = graph->commit_at[position];

		bit_set(bits, position);
		for (size_t i = adjacency->parent_start[commit];
		     i < adjacency->parent_start[commit + 1]; i++) {
			size_t parent = graph->position_of[adjacency->parents[i]];
			size_t parent_head = graph->chain_head[parent];
			const uint64_t *parent_bits = head_ancestors_of(graph, parent_head);

			for (size_t word = 0; word < graph->words; word++)
				bits[word] |= parent_bits[word];
			bit_set_range(bits, parent_head, parent);
		}
	}
}

static void graph_free(struct bisect_graph *graph)
{
	free(graph->position_of);
	free(graph->commit_at);
	free(graph->chain_head);
	free(graph->parent_count);
	free(graph->single_parent);
	free(graph->parent_first);
	free(graph->parent_list);
	free(graph->head_bitset_index);
	free(graph->head_ancestors);
	free(graph->tie_key);
}

static int graph_allocate(struct bisect_graph *graph, size_t count)
{
	graph->count = count;
	graph->words = words_for_bits(count);
	graph->position_of = calloc(count, sizeof(size_t));
	graph->commit_at = calloc(count, sizeof(size_t));
	graph->chain_head = calloc(count, sizeof(size_t));
	graph->parent_count = calloc(count, sizeof(size_t));
	graph->single_parent = calloc(count, sizeof(size_t));
	graph->parent_first = calloc(count + 1, sizeof(size_t));
	graph->head_bitset_index = calloc(count, sizeof(size_t));
	graph->tie_key = calloc(count, sizeof(uint64_t));
	if (!graph->position_of || !graph->commit_at || !graph->chain_head ||
	    !graph->parent_count || !graph->single_parent || !graph->parent_first ||
	    !graph->head_bitset_index ||
	    !graph->tie_key)
		return -ENOMEM;
	return 0;
}

/* Chain heads, parent facts and tie keys per position, once positions exist. */
static int index_positions(struct bisect_graph *graph, const struct adjacency *adjacency,
			   const struct bisect_commit *commits, const bool *is_head, uint64_t seed)
{
	size_t heads = 0;

	for (size_t position = 0; position < graph->count; position++)
		graph->position_of[graph->commit_at[position]] = position;
	for (size_t position = 0; position < graph->count; position++) {
		size_t commit = graph->commit_at[position];
		size_t parents = parents_of(adjacency, commit);

		graph->parent_count[position] = parents;
		graph->single_parent[position] =
			parents == 1 ? graph->position_of[adjacency->parents[adjacency->parent_start[commit]]]
				     : NO_POSITION;
		graph->chain_head[position] =
			is_head[commit] ? position : graph->chain_head[position - 1];
		graph->head_bitset_index[position] = is_head[commit] ? heads++ : NO_POSITION;
		graph->parent_first[position + 1] = graph->parent_first[position] + parents;
		uint64_t identity = commits[commit].id ? hash_string(commits[commit].id) : commit;
		graph->tie_key[position] = mix64(identity ^ mix64(seed));
	}
	graph->parent_list = calloc(graph->parent_first[graph->count] + 1, sizeof(size_t));
	if (!graph->parent_list)
		return -ENOMEM;
	for (size_t position = 0; position < graph->count; position++) {
		size_t commit = graph->commit_at[position], next = graph->parent_first[position];
		for (size_t i = adjacency->parent_start[commit]; i < adjacency->parent_start[commit + 1];
		     i++)
			graph->parent_list[next++] = graph->position_of[adjacency->parents[i]];
	}
	if (heads > SIZE_MAX / sizeof(uint64_t) / graph->words)
		return -ENOMEM;
	graph->head_ancestors = calloc(heads * graph->words, sizeof(uint64_t));
	return graph->head_ancestors ? 0 : -ENOMEM;
}

static int graph_build(struct bisect_graph *graph, const struct bisect_commit *commits,
		       size_t count, uint64_t seed)
{
	struct adjacency adjacency = { 0 };
	size_t *continuation = calloc(count, sizeof(size_t));
	bool *is_head = calloc(count, sizeof(bool));
	int rc = continuation && is_head ? 0 : -ENOMEM;

	if (rc == 0)
		rc = graph_allocate(graph, count);
	if (rc == 0)
		rc = adjacency_build(commits, count, &adjacency);
	if (rc == 0) {
		choose_chain_continuations(&adjacency, count, continuation, is_head);
		rc = place_chains(&adjacency, count, continuation, is_head, graph->commit_at);
	}
	if (rc == 0)
		rc = index_positions(graph, &adjacency, commits, is_head, seed);
	if (rc == 0)
		fill_head_ancestors(graph, &adjacency);
	adjacency_free(&adjacency);
	free(continuation);
	free(is_head);
	return rc;
}

/* The model needs every candidate to be bad when the first bad commit is
 * any of them: the bad end must reach them all. */
static int check_bad_reaches_all(const struct bisect_graph *graph, size_t bad_position,
				 uint64_t *scratch_bits)
{
	size_t reached = 0;

	ancestors_into(graph, bad_position, scratch_bits);
	for (size_t word = 0; word < graph->words; word++)
		reached += (size_t)__builtin_popcountll(scratch_bits[word]);
	return reached == graph->count ? 0 : -EINVAL;
}

/* ---- belief ---------------------------------------------------------------- */

/* The runs as hypothesis "the commit at `position` is the first bad one"
 * sees them. */
static void counts_under(const struct bisect *bisect, size_t position, struct noise_counts *counts)
{
	double fails_bad = bisect->fails_where_bad[position];
	double passes_bad = bisect->passes_where_bad[position];

	counts->fails_bad = fails_bad;
	counts->passes_bad = passes_bad;
	counts->fails_good = (double)bisect->candidate_fails - fails_bad + bisect->good_end_fails;
	counts->passes_good = (double)bisect->candidate_passes - passes_bad + bisect->good_end_passes;
}

/* "No regression": every run was at a good commit. */
static void counts_under_no_regression(const struct bisect *bisect, struct noise_counts *counts)
{
	*counts = (struct noise_counts){
		.fails_good = (double)bisect->candidate_fails + bisect->good_end_fails,
		.passes_good = (double)bisect->candidate_passes + bisect->good_end_passes,
	};
}

/* "The good end is bad": every run was at a bad commit. */
static void counts_under_good_end_bad(const struct bisect *bisect, struct noise_counts *counts)
{
	*counts = (struct noise_counts){
		.fails_bad = (double)bisect->candidate_fails + bisect->good_end_fails,
		.passes_bad = (double)bisect->candidate_passes + bisect->good_end_passes,
	};
}

static bool same_counts(const struct noise_counts *a, const struct noise_counts *b)
{
	return a->fails_bad == b->fails_bad && a->passes_bad == b->passes_bad &&
	       a->fails_good == b->fails_good && a->passes_good == b->passes_good;
}

/*
 * A good end that does not build or boot cannot tell "the good end is bad"
 * from "the oldest candidate is the first bad commit": it is then taken as
 * good, as the caller says (git's assumption), never proposed again, and no
 * confirmation waits for it. A PASS or FAIL later says the SKIP was the
 * board's, as for a candidate.
 */
static bool good_end_testable(const struct bisect *bisect)
{
	return !bisect->options.trust_ends && !bisect->good_end_skipped;
}

static double weigh_outside(const struct bisect *bisect, struct outside_hypothesis *hypothesis,
			    const struct noise_counts *counts, bool possible)
{
	if (!possible || !isfinite(hypothesis->log_prior)) {
		hypothesis->log_evidence = -INFINITY;
		return -INFINITY;
	}
	hypothesis->log_evidence =
		noise_model_log_evidence(&bisect->noise, counts, hypothesis->component_log);
	return hypothesis->log_prior + hypothesis->log_evidence;
}

/*
 * The posterior from the counts, normalised in log space so that no
 * sequence of results, however long or extreme, underflows to 0/0. Commits
 * of one chain between two tested commits see the same counts, so each
 * stretch is scored once.
 */
static void recompute_probabilities(struct bisect *bisect)
{
	size_t count = bisect->graph.count, kinds = bisect->noise.count;
	double *log_weight = bisect->probability;
	struct noise_counts counts, previous = { -1, -1, -1, -1 };
	double largest = -INFINITY, total = 0;

	for (size_t position = 0; position < count; position++) {
		double *component_log = bisect->component_log + position * kinds;

		counts_under(bisect, position, &counts);
		if (position > 0 && same_counts(&counts, &previous)) {
			memcpy(component_log, component_log - kinds, kinds * sizeof(double));
			bisect->log_evidence[position] = bisect->log_evidence[position - 1];
		} else {
			bisect->log_evidence[position] =
				noise_model_log_evidence(&bisect->noise, &counts, component_log);
			previous = counts;
		}
		log_weight[position] = bisect->log_prior_commit + bisect->log_evidence[position];
		if (log_weight[position] > largest)
			largest = log_weight[position];
	}
	counts_under_no_regression(bisect, &counts);
	double log_none = weigh_outside(bisect, &bisect->no_regression, &counts, true);
	counts_under_good_end_bad(bisect, &counts);
	double log_older = weigh_outside(bisect, &bisect->good_end_bad, &counts,
					 good_end_testable(bisect));
	largest = fmax(largest, fmax(log_none, log_older));

	for (size_t position = 0; position < count; position++) {
		log_weight[position] = exp(log_weight[position] - largest);
		total += log_weight[position];
	}
	double none = isfinite(log_none) ? exp(log_none - largest) : 0;
	double older = isfinite(log_older) ? exp(log_older - largest) : 0;
	total += none + older;
	for (size_t position = 0; position < count; position++)
		bisect->probability[position] = log_weight[position] / total;
	bisect->no_regression.probability = none / total;
	bisect->good_end_bad.probability = older / total;
}

/* P(kind of test | the hypothesis, the runs), from its component logs. */
static double kind_share(const double *component_log, double log_evidence, size_t kind)
{
	return exp(component_log[kind] - log_evidence);
}

/* E[p] and E[epsilon] under one hypothesis, added with weight `mass`. */
static void add_rate_estimates(const struct bisect *bisect, const double *component_log,
			       double log_evidence, const struct noise_counts *counts, double mass,
			       double *p, double *epsilon)
{
	if (mass <= 0 || !isfinite(log_evidence))
		return;
	for (size_t kind = 0; kind < bisect->noise.count; kind++) {
		const struct noise_component *component = &bisect->noise.components[kind];
		double share = mass * kind_share(component_log, log_evidence, kind);

		*p += share * noise_component_mean_fail_rate(component, counts);
		*epsilon += share * noise_component_mean_false_fail_rate(component, counts);
	}
}

/* Posterior means of p and epsilon, averaged over the hypotheses and kinds
 * of test: what the runs say the rates are. With no bad commit, runs say
 * nothing about p, and "no regression" adds its prior mean. */
static void estimate_rates(const struct bisect *bisect, struct bisect_summary *summary)
{
	const size_t kinds = bisect->noise.count;
	struct noise_counts counts;
	double p = 0, epsilon = 0;

	for (size_t position = 0; position < bisect->graph.count; position++) {
		counts_under(bisect, position, &counts);
		add_rate_estimates(bisect, bisect->component_log + position * kinds,
				   bisect->log_evidence[position], &counts, bisect->probability[position],
				   &p, &epsilon);
	}
	counts_under_no_regression(bisect, &counts);
	add_rate_estimates(bisect, bisect->no_regression.component_log,
			   bisect->no_regression.log_evidence, &counts,
			   bisect->no_regression.probability, &p, &epsilon);
	counts_under_good_end_bad(bisect, &counts);
	add_rate_estimates(bisect, bisect->good_end_bad.component_log,
			   bisect->good_end_bad.log_evidence, &counts,
			   bisect->good_end_bad.probability, &p, &epsilon);
	summary->fail_rate_estimate = p;
	summary->fail_rate_when_good_estimate = epsilon;
}

/* ---- only skipped commits left --------------------------------------------- */

/*
 * Hypotheses a and b predict the same for every run still possible when
 * every commit that is not skipped is bad under both or good under both:
 * no run can then move probability between them.
 */
static bool indistinguishable(const struct bisect *bisect, size_t a, size_t b)
{
	const struct bisect_graph *graph = &bisect->graph;

	for (size_t position = 0; position < graph->count; position++) {
		if (bisect->skipped[position])
			continue;
		if (is_ancestor_or_self(graph, a, position) != is_ancestor_or_self(graph, b, position))
			return false;
	}
	return true;
}

static int compare_size(const void *left, const void *right)
{
	size_t a = *(const size_t *)left, b = *(const size_t *)right;

	return (a > b) - (a < b);
}

/*
 * The commits testing cannot tell from the best one, when together they
 * hold the confidence and so no run can decide among them. Two commits that
 * were not skipped can always be told apart (testing the one that is not
 * the other's ancestor decides), so such a set is skipped commits plus at
 * most one tested commit: the best itself, or, when the best was skipped,
 * a descendant of it. Without skips there is no such set, and an upper
 * bound on its mass skips the exact check in the usual case.
 */
static size_t find_undecided(const struct bisect *bisect, size_t best, size_t *undecided)
{
	const struct bisect_graph *graph = &bisect->graph;
	double skipped_mass = 0, largest_tested = 0;

	if (bisect->skipped_count == 0)
		return 0;
	for (size_t position = 0; position < graph->count; position++) {
		if (position == best)
			continue;
		if (bisect->skipped[position])
			skipped_mass += bisect->probability[position];
		else if (bisect->probability[position] > largest_tested)
			largest_tested = bisect->probability[position];
	}
	double bound = bisect->probability[best] + skipped_mass + largest_tested;
	if (bound < bisect->options.confidence)
		return 0;

	size_t members = 0;
	double mass = 0;
	for (size_t position = 0; position < graph->count; position++) {
		if (bisect->probability[position] < BISECT_NEGLIGIBLE_PROBABILITY)
			continue;
		bool may_be_member = bisect->skipped[position] ||
				     (bisect->skipped[best] && is_ancestor_or_self(graph, best, position));
		if (position == best || (may_be_member && indistinguishable(bisect, position, best))) {
			undecided[members++] = graph->commit_at[position];
			mass += bisect->probability[position];
		}
	}
	if (members < 2 || mass < bisect->options.confidence)
		return 0;
	qsort(undecided, members, sizeof(size_t), compare_size);
	return members;
}

/* ---- confirmation ------------------------------------------------------------ */

/* Whether the runs leave this kind of test plausible, given the hypothesis
 * at `position`: both confirmation rules heed only those. */
static bool kind_plausible(const struct bisect *bisect, size_t position, size_t kind)
{
	const double *component_log = bisect->component_log + position * bisect->noise.count;

	return kind_share(component_log, bisect->log_evidence[position], kind) >=
	       CONFIRMATION_PLAUSIBLE;
}

/* The fewest n in [1, MAX_CONFIRMATION_PASSES] with P(n passes | bad) at
 * most `allowed` under one kind of test, given the runs. */
static unsigned passes_to_expose(const struct noise_component *component,
				 const struct noise_counts *counts, double allowed)
{
	unsigned low = 1, high = 1;

	while (high < MAX_CONFIRMATION_PASSES &&
	       noise_component_all_pass_probability(component, counts, high) > allowed) {
		low = high + 1;
		high = high * 2 > MAX_CONFIRMATION_PASSES ? MAX_CONFIRMATION_PASSES : high * 2;
	}
	while (low < high) {
		unsigned middle = low + (high - low) / 2;
		if (noise_component_all_pass_probability(component, counts, middle) > allowed)
			low = middle + 1;
		else
			high = middle;
	}
	return high;
}

/*
 * Passes each parent of the answer needs: a bad commit would have shown a
 * FAIL among them with the confidence, under every kind of test that the
 * runs leave plausible given the answer. Where the data look clean the
 * deterministic kind asks for one, but a flaky kind that is still plausible
 * asks for as many as its p needs: the runs that would expose a flaky test
 * mimicking a deterministic one.
 */
static unsigned confirmation_passes_needed(const struct bisect *bisect, size_t position)
{
	double allowed = 1 - bisect->options.confidence;
	struct noise_counts counts;
	unsigned needed = 1;

	counts_under(bisect, position, &counts);
	for (size_t kind = 0; kind < bisect->noise.count; kind++) {
		if (!kind_plausible(bisect, position, kind))
			continue;
		unsigned n = passes_to_expose(&bisect->noise.components[kind], &counts, allowed);
		if (n > needed)
			needed = n;
	}
	return needed;
}

/* log(exp(a) + exp(b)), with -INFINITY as the empty sum. */
static double log_add(double a, double b)
{
	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	return fmax(a, b) + log1p(exp(-fabs(a - b)));
}

/* P(the hypothesis at `position` | the runs, the test is of this kind). */
static double probability_under_kind(const struct bisect *bisect, size_t position, size_t kind)
{
	const size_t kinds = bisect->noise.count;
	double log_total = -INFINITY;

	for (size_t other = 0; other < bisect->graph.count; other++)
		log_total = log_add(log_total, bisect->component_log[other * kinds + kind]);
	log_total += bisect->log_prior_commit;
	if (isfinite(bisect->no_regression.log_evidence))
		log_total = log_add(log_total, bisect->no_regression.log_prior +
						       bisect->no_regression.component_log[kind]);
	if (isfinite(bisect->good_end_bad.log_evidence))
		log_total = log_add(log_total, bisect->good_end_bad.log_prior +
						       bisect->good_end_bad.component_log[kind]);
	return exp(bisect->log_prior_commit + bisect->component_log[position * kinds + kind] -
		   log_total);
}

/*
 * The answer holds under every kind of test the runs leave plausible given
 * it, not only mixed over them. A noisy test's false FAIL can mimic a
 * one-sided flaky one: under "no false failures" a lone FAIL proves its
 * commit bad, and where the runs looked clean enough that kind's certainty
 * carried the mixture to 0.99 on a good commit (p = 0.1, eps = 0.01: 97.3 %
 * right of 300 claims at 0.99). Each kind still plausible must be nearly as
 * sure as the mixture: within KIND_DOUBT_FACTOR times its doubt (0.97 for
 * 0.99). Measured on the same 300 trials (N = 100, k = 1), as sure as the
 * mixture: 99.7 % right, and 19 % more runs for a deterministic test, 15 %
 * at p = 0.3; within 3x: 99.7 %, +8 % and +15 %; within 5x: 98.3 %.
 * bench_bisect (1,000 trials, N = 100, k = 1), within 3x: p = 0.3 with
 * eps = 0.05 went from 97.7 % right to 99.2 %, p = 0.1 with eps = 0.01
 * from 99.0 % to 99.5 %; the price, 14.1 -> 15.3 runs for a deterministic
 * test, 90 -> 105 at p = 0.3, eps = 0. Heeding only kinds with a share of
 * 0.05 or more keeps the deterministic cost but leaves p = 0.3, eps = 0.05
 * at 97.8 %: there the kind that doubts is the true one, still unlikely.
 */
static bool sure_under_every_kind(const struct bisect *bisect, size_t position)
{
	double least = 1 - KIND_DOUBT_FACTOR * (1 - bisect->options.confidence);

	for (size_t kind = 0; kind < bisect->noise.count; kind++)
		if (kind_plausible(bisect, position, kind) &&
		    probability_under_kind(bisect, position, kind) < least)
			return false;
	return true;
}

static void propose(size_t *out, size_t room, size_t *count, size_t commit)
{
	if (*count < room)
		out[*count] = commit;
	(*count)++;
}

/*
 * The runs confirming the best commit still needs (0: confirmed), written
 * to out up to `room` (caller indexes, BISECT_GOOD_END for the good end):
 * a FAIL of its own if it has none, and passes of each parent that can run.
 */
static size_t confirmation_runs(const struct bisect *bisect, size_t *out, size_t room)
{
	const struct bisect_graph *graph = &bisect->graph;
	size_t best = bisect->summary.best_position, count = 0;
	unsigned needed = confirmation_passes_needed(bisect, best);

	if (bisect->fails_at[best] == 0 && !bisect->skipped[best])
		propose(out, room, &count, graph->commit_at[best]);
	for (size_t i = graph->parent_first[best]; i < graph->parent_first[best + 1]; i++) {
		size_t parent = graph->parent_list[i];
		if (bisect->skipped[parent])
			continue;
		for (unsigned have = bisect->passes_at[parent]; have < needed; have++)
			propose(out, room, &count, graph->commit_at[parent]);
	}
	if (graph->parent_first[best] == graph->parent_first[best + 1] && good_end_testable(bisect))
		for (unsigned have = bisect->good_end_passes; have < needed; have++)
			propose(out, room, &count, BISECT_GOOD_END);
	return count;
}

/* The bad end never failed in the runs that would have shown a regression. */
static bool bad_end_never_failed(const struct bisect *bisect)
{
	size_t bad = bisect->bad_position;

	return !bisect->options.trust_ends && bisect->fails_at[bad] == 0 &&
	       bisect->passes_at[bad] >= bisect->bad_end_budget;
}

static void refresh_summary(struct bisect *bisect)
{
	struct bisect_summary *summary = &bisect->summary;
	const struct bisect_graph *graph = &bisect->graph;
	size_t best = 0;

	summary->candidates_left = 0;
	for (size_t position = 0; position < graph->count; position++) {
		double probability = bisect->probability[position];
		double best_probability = bisect->probability[best];

		if (probability >= BISECT_NEGLIGIBLE_PROBABILITY)
			summary->candidates_left++;
		/* Ties go to the smaller caller index, whatever the layout. */
		if (probability > best_probability ||
		    (probability == best_probability &&
		     graph->commit_at[position] < graph->commit_at[best]))
			best = position;
	}
	summary->best_position = best;
	summary->best_probability = bisect->probability[best];
	summary->undecided_count = 0;
	summary->confirming = false;
	estimate_rates(bisect, summary);

	double confidence = bisect->options.confidence;
	bool sure = summary->best_probability >= confidence;
	size_t confirmations = sure && bisect->options.confirm ? confirmation_runs(bisect, NULL, 0) : 0;
	if (sure && (!bisect->options.confirm ||
		     (confirmations == 0 && sure_under_every_kind(bisect, best))))
		summary->state = BISECT_FOUND;
	else if (bisect->no_regression.probability >= confidence || bad_end_never_failed(bisect))
		summary->state = BISECT_NO_REGRESSION;
	else if (bisect->good_end_bad.probability >= confidence)
		summary->state = BISECT_GOOD_END_BAD;
	else if (!sure &&
		 (summary->undecided_count = find_undecided(bisect, best, summary->undecided)) > 0)
		summary->state = BISECT_ONLY_SKIPPED_LEFT;
	else if (bisect->runs >= bisect->max_runs)
		summary->state = BISECT_BUDGET_SPENT;
	else {
		summary->state = BISECT_RUNNING;
		/* sure and confirmed, but a kind of test still doubts: then
		 * the runs that inform most */
		summary->confirming = confirmations > 0;
	}
}

/* ---- creating and recording ------------------------------------------------ */

static void outcome_walk_free(struct outcome_walk *walk)
{
	if (!walk)
		return;
	free(walk->group_pattern);
	free(walk->group_mass);
	free(walk->pmf);
	free(walk->partial);
	free(walk);
}

static struct outcome_walk *outcome_walk_new(size_t hypotheses)
{
	struct outcome_walk *walk = calloc(1, sizeof(*walk));

	if (!walk)
		return NULL;
	walk->group_capacity = hypotheses < MAX_GROUPS ? hypotheses : MAX_GROUPS;
	walk->group_pattern = calloc(walk->group_capacity, sizeof(size_t));
	walk->group_mass = calloc(walk->group_capacity, sizeof(double));
	walk->pmf = calloc(walk->group_capacity * JOINT_SEARCH_MAX_BOARDS,
			   sizeof(fail_count_distribution));
	walk->partial = calloc(walk->group_capacity * JOINT_SEARCH_MAX_BOARDS, sizeof(double));
	if (!walk->group_pattern || !walk->group_mass || !walk->pmf || !walk->partial) {
		outcome_walk_free(walk);
		return NULL;
	}
	return walk;
}

static struct batch_memo *batch_memo_new(void);

static int allocate_evidence(struct bisect *bisect)
{
	size_t count = bisect->graph.count, words = bisect->graph.words;
	size_t kinds = bisect->noise.count;
	struct bisect_scratch *scratch = &bisect->scratch;

	bisect->fails_where_bad = calloc(count, sizeof(unsigned));
	bisect->passes_where_bad = calloc(count, sizeof(unsigned));
	bisect->fails_at = calloc(count, sizeof(unsigned));
	bisect->passes_at = calloc(count, sizeof(unsigned));
	bisect->skipped = calloc(count, sizeof(bool));
	bisect->ran = calloc(count, sizeof(bool));
	bisect->probability = calloc(count, sizeof(double));
	bisect->log_evidence = calloc(count, sizeof(double));
	bisect->component_log = calloc(count * kinds, sizeof(double));
	bisect->summary.undecided = calloc(count, sizeof(size_t));
	scratch->ancestor_mass = calloc(count, sizeof(double));
	scratch->parts = calloc(count * kinds, sizeof(struct rate_part));
	scratch->word_mass = calloc(words, sizeof(double));
	scratch->word_cell_mass = calloc(words * RATE_CELLS, sizeof(double));
	scratch->word_cell_fail_mass = calloc(words * RATE_CELLS, sizeof(double));
	scratch->word_cell_false_mass = calloc(words * RATE_CELLS, sizeof(double));
	scratch->walk = outcome_walk_new((count + 2) * kinds);
	scratch->line = calloc(count + 1, sizeof(struct line_entry));
	scratch->membership = calloc(words * JOINT_SEARCH_MAX_BOARDS, sizeof(uint64_t));
	scratch->ancestors = calloc(words, sizeof(uint64_t));
	scratch->memo = batch_memo_new();
	if (!scratch->memo || !bisect->fails_where_bad || !bisect->passes_where_bad || !bisect->fails_at ||
	    !bisect->passes_at || !bisect->skipped || !bisect->ran || !bisect->probability ||
	    !bisect->log_evidence || !bisect->component_log || !bisect->summary.undecided ||
	    !scratch->ancestor_mass || !scratch->parts || !scratch->word_mass ||
	    !scratch->word_cell_mass || !scratch->word_cell_fail_mass ||
	    !scratch->word_cell_false_mass || !scratch->walk || !scratch->line ||
	    !scratch->membership || !scratch->ancestors)
		return -ENOMEM;
	return 0;
}

int bisect_new(const struct bisect_commit *commits, size_t count, size_t bad_index,
	       const struct bisect_options *options, struct bisect **out)
{
	struct bisect_options defaults;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!commits || count == 0 || bad_index >= count)
		return -EINVAL;
	if (!options) {
		bisect_options_init(&defaults);
		options = &defaults;
	}
	rc = options_validate(options);
	if (rc != 0)
		return rc;

	struct bisect *bisect = calloc(1, sizeof(*bisect));
	if (!bisect)
		return -ENOMEM;
	bisect->options = *options;
	rc = graph_build(&bisect->graph, commits, count, options->seed);
	if (rc == 0) {
		model_from_options(bisect);
		rc = allocate_evidence(bisect);
	}
	if (rc == 0) {
		bisect->bad_position = bisect->graph.position_of[bad_index];
		rc = check_bad_reaches_all(&bisect->graph, bisect->bad_position,
					   bisect->scratch.ancestors);
	}
	if (rc != 0) {
		bisect_free(bisect);
		return rc;
	}
	recompute_probabilities(bisect);
	refresh_summary(bisect);
	*out = bisect;
	return 0;
}

void bisect_free(struct bisect *bisect)
{
	if (!bisect)
		return;
	graph_free(&bisect->graph);
	free(bisect->fails_where_bad);
	free(bisect->passes_where_bad);
	free(bisect->fails_at);
	free(bisect->passes_at);
	free(bisect->skipped);
	free(bisect->ran);
	free(bisect->probability);
	free(bisect->log_evidence);
	free(bisect->component_log);
	free(bisect->summary.undecided);
	free(bisect->scratch.ancestor_mass);
	free(bisect->scratch.parts);
	free(bisect->scratch.word_mass);
	free(bisect->scratch.word_cell_mass);
	free(bisect->scratch.word_cell_fail_mass);
	free(bisect->scratch.word_cell_false_mass);
	outcome_walk_free(bisect->scratch.walk);
	free(bisect->scratch.line);
	free(bisect->scratch.membership);
	free(bisect->scratch.ancestors);
	free(bisect->scratch.memo);
	free(bisect);
}

static bool is_valid_result(enum bisect_result result)
{
	return result == BISECT_PASS || result == BISECT_FAIL || result == BISECT_SKIP;
}

/* A run at `position` was at a bad commit under exactly the hypotheses that
 * are `position` or its ancestors: count it there. */
static void count_where_bad(struct bisect *bisect, size_t position, unsigned *counts)
{
	const struct bisect_graph *graph = &bisect->graph;
	uint64_t *bits = bisect->scratch.ancestors;

	ancestors_into(graph, position, bits);
	for (size_t word = 0; word < graph->words; word++)
		for (uint64_t rest = bits[word]; rest; rest &= rest - 1)
			counts[word * BITS_PER_WORD + (size_t)__builtin_ctzll(rest)]++;
}

int bisect_record(struct bisect *bisect, size_t commit, enum bisect_result result)
{
	if (!bisect || commit >= bisect->graph.count || !is_valid_result(result))
		return -EINVAL;
	if (bisect->runs == UINT_MAX || bisect->candidate_fails == UINT_MAX ||
	    bisect->candidate_passes == UINT_MAX)
		return -EOVERFLOW;

	size_t position = bisect->graph.position_of[commit];
	bisect->runs++;
	if (result == BISECT_SKIP) {
		/* No evidence: the belief stays as it is; only what may be
		 * proposed, and so the state, changes. */
		if (!bisect->skipped[position] && !bisect->ran[position]) {
			bisect->skipped_count++;
			bisect->skipped[position] = true;
		}
		refresh_summary(bisect);
		return 0;
	}
	bisect->ran[position] = true;
	if (bisect->skipped[position]) {
		bisect->skipped[position] = false;	/* it boots: that SKIP was the board's */
		bisect->skipped_count--;
	}
	if (result == BISECT_FAIL) {
		bisect->candidate_fails++;
		bisect->fails_at[position]++;
		count_where_bad(bisect, position, bisect->fails_where_bad);
	} else {
		bisect->candidate_passes++;
		bisect->passes_at[position]++;
		count_where_bad(bisect, position, bisect->passes_where_bad);
	}
	recompute_probabilities(bisect);
	refresh_summary(bisect);
	return 0;
}

int bisect_record_good_end(struct bisect *bisect, enum bisect_result result)
{
	if (!bisect || !is_valid_result(result))
		return -EINVAL;
	if (bisect->runs == UINT_MAX || bisect->good_end_fails == UINT_MAX ||
	    bisect->good_end_passes == UINT_MAX)
		return -EOVERFLOW;
	bisect->runs++;
	if (result == BISECT_FAIL)
		bisect->good_end_fails++;
	else if (result == BISECT_PASS)
		bisect->good_end_passes++;
	bisect->good_end_skipped = result == BISECT_SKIP &&
				   bisect->good_end_fails + bisect->good_end_passes == 0;
	recompute_probabilities(bisect);
	refresh_summary(bisect);
	return 0;
}

/* ---- choosing the next commits --------------------------------------------- */

/* A cell of rates: p in FAIL_RATE_BINS bins of equal width, epsilon split
 * where the kinds of test differ (none, about 1 %, about 5 %, more). */
static unsigned char rate_cell(double fail_rate, double false_fail_rate)
{
	static const double false_fail_bounds[FALSE_FAIL_BINS - 1] = { 0.002, 0.02, 0.06 };
	size_t bin = (size_t)(fail_rate * FAIL_RATE_BINS), false_bin = 0;

	if (bin >= FAIL_RATE_BINS)
		bin = FAIL_RATE_BINS - 1;
	while (false_bin < FALSE_FAIL_BINS - 1 && false_fail_rate >= false_fail_bounds[false_bin])
		false_bin++;
	return (unsigned char)(bin * FALSE_FAIL_BINS + false_bin);
}

/*
 * A hypothesis split by kind of test: each part's mass, its p and its cell.
 * Epsilon is the hypothesis's own mean over the kinds, in every part:
 * split by kind, a run at a commit that every hypothesis calls good would
 * promise information about which kind has which false-failure rate, and
 * the search spent dozens of runs on one surely good commit (measured: a
 * p = 0.3, eps = 0.01 bisection of 100 commits ran the culprit's
 * grandparent 48 times and the culprit's parent, whose one FAIL was false,
 * twice; merged, that row costs 115 runs instead of 122 and is wrong 0.4 %
 * of the time instead of 1.2 %). Split by p it stays: a repeat at a commit
 * that is surely bad tells "flaky" from "deterministic".
 */
static void split_by_kind(const struct bisect *bisect, const double *component_log,
			  double log_evidence, const struct noise_counts *counts, double mass,
			  struct rate_part *parts)
{
	double false_fail_rate = 0, total = 0;

	for (size_t kind = 0; kind < bisect->noise.count; kind++) {
		const struct noise_component *component = &bisect->noise.components[kind];
		struct rate_part *part = &parts[kind];

		part->mass = mass > 0 && isfinite(log_evidence)
				     ? mass * kind_share(component_log, log_evidence, kind)
				     : 0;
		part->fail_rate = clamp_probability(noise_component_mean_fail_rate(component, counts));
		false_fail_rate += part->mass * noise_component_mean_false_fail_rate(component, counts);
		total += part->mass;
	}
	false_fail_rate = clamp_probability(total > 0 ? false_fail_rate / total : 0);
	for (size_t kind = 0; kind < bisect->noise.count; kind++) {
		parts[kind].false_fail_rate = false_fail_rate;
		parts[kind].cell = rate_cell(parts[kind].fail_rate, false_fail_rate);
	}
}

/* Every hypothesis split by kind of test, and the mass of each cell per
 * word, with its sums of p and epsilon. */
static void compute_rate_parts(struct bisect *bisect)
{
	const struct bisect_graph *graph = &bisect->graph;
	struct bisect_scratch *scratch = &bisect->scratch;
	const size_t kinds = bisect->noise.count;
	struct noise_counts counts;

	for (size_t i = 0; i < graph->words * RATE_CELLS; i++) {
		scratch->word_cell_mass[i] = 0;
		scratch->word_cell_fail_mass[i] = 0;
		scratch->word_cell_false_mass[i] = 0;
	}
	for (size_t position = 0; position < graph->count; position++) {
		struct rate_part *parts = scratch->parts + position * kinds;

		counts_under(bisect, position, &counts);
		split_by_kind(bisect, bisect->component_log + position * kinds,
			      bisect->log_evidence[position], &counts, bisect->probability[position],
			      parts);
		for (size_t kind = 0; kind < kinds; kind++) {
			size_t cell = position / BITS_PER_WORD * RATE_CELLS + parts[kind].cell;

			scratch->word_cell_mass[cell] += parts[kind].mass;
			scratch->word_cell_fail_mass[cell] += parts[kind].mass * parts[kind].fail_rate;
			scratch->word_cell_false_mass[cell] +=
				parts[kind].mass * parts[kind].false_fail_rate;
		}
	}
}

/*
 * git's ancestor weight with probabilities: the mass of a commit's ancestor
 * set is the probability that it is bad. A single-parent commit adds its own
 * mass to its parent's (it is not among its parent's ancestors); only merges
 * need a union, summed a word at a time over runs of ones.
 */
static void compute_ancestor_masses(struct bisect *bisect)
{
	const struct bisect_graph *graph = &bisect->graph;
	double *mass = bisect->scratch.ancestor_mass;
	double *word_mass = bisect->scratch.word_mass;
	uint64_t *bits = bisect->scratch.ancestors;

	for (size_t word = 0; word < graph->words; word++)
		word_mass[word] = 0;
	for (size_t position = 0; position < graph->count; position++)
		word_mass[position / BITS_PER_WORD] += bisect->probability[position];
	compute_rate_parts(bisect);

	for (size_t position = 0; position < graph->count; position++) {
		double own = bisect->probability[position];

		if (graph->chain_head[position] != position) {
			mass[position] = mass[position - 1] + own;
		} else if (graph->parent_count[position] == 1) {
			mass[position] = mass[graph->single_parent[position]] + own;
		} else if (graph->parent_count[position] == 0) {
			mass[position] = own;
		} else {
			ancestors_into(graph, position, bits);
			double total = 0;
			for (size_t word = 0; word < graph->words; word++) {
				if (bits[word] == valid_mask_of_word(word, graph->count)) {
					total += word_mass[word];
					continue;
				}
				for (uint64_t rest = bits[word]; rest; rest &= rest - 1)
					total += bisect->probability[word * BITS_PER_WORD +
								     (size_t)__builtin_ctzll(rest)];
			}
			mass[position] = total;
		}
	}
}

static int compare_line_entries(const void *left, const void *right)
{
	const struct line_entry *a = left, *b = right;

	if (a->ancestor_mass != b->ancestor_mass)
		return a->ancestor_mass < b->ancestor_mass ? -1 : 1;
	if (a->tie_key != b->tie_key)
		return a->tie_key < b->tie_key ? -1 : 1;
	return (a->position > b->position) - (a->position < b->position);
}

/* On the line, the good end: bad only if "the good end is bad". */
#define GOOD_END_POSITION SIZE_MAX

/* The commits that may be proposed (not skipped), by ancestor mass: the
 * DAG seen as git sees it, a line from "surely good" to "surely bad". When
 * the ends are in doubt, the good end is on it too, below every candidate:
 * it alone tells "the good end is bad" from "the first candidate is". */
static size_t build_line(struct bisect *bisect)
{
	const struct bisect_graph *graph = &bisect->graph;
	struct line_entry *line = bisect->scratch.line;
	size_t length = 0;

	if (good_end_testable(bisect))
		line[length++] = (struct line_entry){
			.ancestor_mass = bisect->good_end_bad.probability,
			.position = GOOD_END_POSITION,
		};

	for (size_t position = 0; position < graph->count; position++) {
		if (bisect->skipped[position])
			continue;
		/* "the good end is bad" makes every candidate bad */
		line[length].ancestor_mass =
			bisect->scratch.ancestor_mass[position] + bisect->good_end_bad.probability;
		line[length].tie_key = graph->tie_key[position];
		line[length].position = position;
		length++;
	}
	qsort(line, length, sizeof(*line), compare_line_entries);
	return length;
}

/* A batch: distinct commits (as ranks on the line), each run `repeats` times. */
struct batch {
	size_t slot_count;
	size_t rank[JOINT_SEARCH_MAX_BOARDS];
	unsigned repeats[JOINT_SEARCH_MAX_BOARDS];
};

/* What the information of a batch is computed from. */
struct selection {
	struct bisect *bisect;
	const struct line_entry *line;
	size_t line_length;
	double mass_below;             /* the probability that every candidate is bad */
	double commit_mass;            /* that some candidate is the first bad commit */
	double fail_rate_when_bad;     /* plug-in estimates, clamped */
	double fail_rate_when_good;
};

/* Slots sorted by rank, merged when equal, empty ones dropped: one form per
 * batch, so that equal batches compare equal and ties resolve the same way. */
static void batch_normalise(struct batch *batch)
{
	for (size_t i = 1; i < batch->slot_count; i++)
		for (size_t j = i; j > 0 && batch->rank[j - 1] > batch->rank[j]; j--) {
			size_t rank = batch->rank[j];
			unsigned repeats = batch->repeats[j];
			batch->rank[j] = batch->rank[j - 1];
			batch->repeats[j] = batch->repeats[j - 1];
			batch->rank[j - 1] = rank;
			batch->repeats[j - 1] = repeats;
		}
	size_t kept = 0;
	for (size_t slot = 0; slot < batch->slot_count; slot++) {
		if (batch->repeats[slot] == 0)
			continue;
		if (kept > 0 && batch->rank[kept - 1] == batch->rank[slot]) {
			batch->repeats[kept - 1] += batch->repeats[slot];
			continue;
		}
		batch->rank[kept] = batch->rank[slot];
		batch->repeats[kept] = batch->repeats[slot];
		kept++;
	}
	batch->slot_count = kept;
}

/* Binomial(runs, rate): probabilities of 0..runs FAILs, and their entropy. */
static double binomial_distribution(unsigned runs, double rate, double *pmf)
{
	double odds = rate / (1 - rate);
	double entropy;

	pmf[0] = pow(1 - rate, runs);
	entropy = entropy_term(pmf[0]);
	for (unsigned fails = 1; fails <= runs; fails++) {
		pmf[fails] = pmf[fails - 1] * (runs - fails + 1) / fails * odds;
		entropy += entropy_term(pmf[fails]);
	}
	return entropy;
}

/*
 * A group's distribution of FAILs at every slot of the batch, and the sum
 * of their entropies. Slots alike (bad or good, as many repeats) share one
 * computation: at k = 8 with one run each, two instead of eight.
 */
static double group_distributions(struct outcome_walk *walk, size_t group, size_t pattern,
				  double fail_rate, double false_fail_rate)
{
	fail_count_distribution *pmf = walk->pmf + group * JOINT_SEARCH_MAX_BOARDS;
	double entropy = 0, slot_entropy[JOINT_SEARCH_MAX_BOARDS];

	for (size_t slot = 0; slot < walk->slot_count; slot++) {
		bool bad = (pattern >> slot) & 1;
		size_t twin = 0;

		while (twin < slot && (((pattern >> twin) & 1) != bad ||
				       walk->repeats[twin] != walk->repeats[slot]))
			twin++;
		if (twin < slot) {
			memcpy(pmf[slot], pmf[twin], sizeof(pmf[slot]));
			slot_entropy[slot] = slot_entropy[twin];
		} else {
			slot_entropy[slot] = binomial_distribution(
				walk->repeats[slot], bad ? fail_rate : false_fail_rate, pmf[slot]);
		}
		entropy += slot_entropy[slot];
	}
	return entropy;
}

/* Adds mass to a cell of the table, noting the cells in use. */
static void add_to_table(struct outcome_walk *walk, size_t group, double mass, double fail_mass,
			 double false_mass)
{
	if (mass <= 0)
		return;
	if (!walk->is_touched[group]) {
		walk->is_touched[group] = true;
		walk->touched[walk->touched_count++] = group;
	}
	walk->table_mass[group] += mass;
	walk->table_fail_mass[group] += fail_mass;
	walk->table_false_mass[group] += false_mass;
}

/* Empties the cells in use (the rest is empty already). */
static void clear_table(struct outcome_walk *walk)
{
	for (size_t i = 0; i < walk->touched_count; i++) {
		size_t group = walk->touched[i];

		walk->table_mass[group] = 0;
		walk->table_fail_mass[group] = 0;
		walk->table_false_mass[group] = 0;
		walk->is_touched[group] = false;
	}
	walk->touched_count = 0;
}

/* Adds a part of a hypothesis to the group of its pattern and cell. */
static void add_to_group(struct outcome_walk *walk, size_t pattern, const struct rate_part *part)
{
	add_to_table(walk, pattern * RATE_CELLS + part->cell, part->mass,
		     part->mass * part->fail_rate, part->mass * part->false_fail_rate);
}

/* "No regression" (every commit good) and "the good end is bad" (every
 * commit bad), split by kind of test like the candidates. */
static void add_outside_hypotheses(const struct bisect *bisect, size_t slots,
				   struct outcome_walk *walk)
{
	struct rate_part parts[NOISE_MAX_COMPONENTS];
	struct noise_counts counts;

	counts_under_no_regression(bisect, &counts);
	split_by_kind(bisect, bisect->no_regression.component_log,
		      bisect->no_regression.log_evidence, &counts,
		      bisect->no_regression.probability, parts);
	for (size_t kind = 0; kind < bisect->noise.count; kind++)
		if (parts[kind].mass > 0)
			add_to_group(walk, 0, &parts[kind]);
	counts_under_good_end_bad(bisect, &counts);
	split_by_kind(bisect, bisect->good_end_bad.component_log, bisect->good_end_bad.log_evidence,
		      &counts, bisect->good_end_bad.probability, parts);
	for (size_t kind = 0; kind < bisect->noise.count; kind++)
		if (parts[kind].mass > 0)
			add_to_group(walk, ((size_t)1 << slots) - 1, &parts[kind]);
}

/*
 * Hypotheses fall into groups by which commits of the batch they make bad
 * (a bit per slot, the pattern) and, split by kind of test, by their cell of
 * rates: the parts of one group predict (nearly) the same results, so the
 * group masses, and their mean rates, are all the batch's information
 * depends on.
 */
static void group_masses(const struct selection *selection, const struct batch *batch,
			 struct outcome_walk *walk)
{
	const struct bisect *bisect = selection->bisect;
	const struct bisect_graph *graph = &bisect->graph;
	const struct bisect_scratch *scratch = &bisect->scratch;
	const uint64_t *membership = scratch->membership;
	const size_t kinds = bisect->noise.count;
	size_t slots = batch->slot_count;

	clear_table(walk);
	for (size_t slot = 0; slot < slots; slot++) {
		size_t position = selection->line[batch->rank[slot]].position;
		uint64_t *bits = scratch->membership + slot * graph->words;

		if (position == GOOD_END_POSITION)
			memset(bits, 0, graph->words * sizeof(uint64_t));
		else
			ancestors_into(graph, position, bits);
	}

	for (size_t word = 0; word < graph->words; word++) {
		uint64_t valid = valid_mask_of_word(word, graph->count);
		size_t pattern = 0;
		bool uniform = true;

		for (size_t slot = 0; slot < slots && uniform; slot++) {
			uint64_t bits = membership[slot * graph->words + word] & valid;
			if (bits == valid)
				pattern |= (size_t)1 << slot;
			else if (bits != 0)
				uniform = false;
		}
		if (uniform) {
			for (size_t cell = 0; cell < RATE_CELLS; cell++) {
				size_t from = word * RATE_CELLS + cell, group = pattern * RATE_CELLS + cell;
				add_to_table(walk, group, scratch->word_cell_mass[from],
					     scratch->word_cell_fail_mass[from],
					     scratch->word_cell_false_mass[from]);
			}
			continue;
		}
		for (uint64_t rest = valid; rest; rest &= rest - 1) {
			size_t bit = (size_t)__builtin_ctzll(rest);
			size_t position = word * BITS_PER_WORD + bit;
			size_t bit_pattern = 0;
			for (size_t slot = 0; slot < slots; slot++)
				bit_pattern |= (size_t)((membership[slot * graph->words + word] >> bit) & 1)
					       << slot;
			for (size_t kind = 0; kind < kinds; kind++)
				add_to_group(walk, bit_pattern, &scratch->parts[position * kinds + kind]);
		}
	}
	add_outside_hypotheses(bisect, slots, walk);
	/* groups in cell order, whatever order they filled in: the sums over
	 * them, and so the choice between close batches, stay the same */
	for (size_t i = 1; i < walk->touched_count; i++)
		for (size_t j = i; j > 0 && walk->touched[j - 1] > walk->touched[j]; j--) {
			size_t group = walk->touched[j];
			walk->touched[j] = walk->touched[j - 1];
			walk->touched[j - 1] = group;
		}
}

/* Entropy of the batch's results: every combination of FAIL counts, each
 * with its probability summed over the groups. `partial` holds, per group,
 * its mass times the probability of the results chosen for earlier slots. */
static double results_entropy_from(struct outcome_walk *walk, size_t slot, const double *partial)
{
	if (slot == walk->slot_count) {
		double probability = 0;
		for (size_t group = 0; group < walk->group_count; group++)
			probability += partial[group];
		return entropy_term(probability);
	}
	double *next = walk->partial + slot * walk->group_capacity;
	double entropy = 0;
	for (unsigned fails = 0; fails <= walk->repeats[slot]; fails++) {
		double total = 0;
		for (size_t group = 0; group < walk->group_count; group++) {
			next[group] = partial[group] *
				      walk->pmf[group * JOINT_SEARCH_MAX_BOARDS + slot][fails];
			total += next[group];
		}
		if (total > 0)
			entropy += results_entropy_from(walk, slot + 1, next);
	}
	return entropy;
}

/*
 * The mutual information (nats) between the batch's results and the
 * hypotheses split by kind of test: H(results) minus H(results | group),
 * each group at its own mean rates. So it counts what the results tell
 * about the first bad commit and about which kind of test this is (a
 * repeat at a commit that is surely bad tells "flaky" from
 * "deterministic"). Repeats at one commit are counted by their number of
 * FAILs, which is all they tell given the group. Plug-in rates make this an
 * approximation; it only ranks batches, while the belief stays exact.
 */
static double batch_information(const struct selection *selection, const struct batch *batch)
{
	struct outcome_walk *walk = selection->bisect->scratch.walk;
	double conditional = 0;

	if (batch->slot_count == 0)
		return 0;
	group_masses(selection, batch, walk);
	walk->slot_count = batch->slot_count;
	for (size_t slot = 0; slot < batch->slot_count; slot++)
		walk->repeats[slot] = batch->repeats[slot];
	walk->group_count = 0;
	for (size_t i = 0; i < walk->touched_count && walk->group_count < walk->group_capacity; i++) {
		size_t cell = walk->touched[i];
		double mass = walk->table_mass[cell];
		size_t group = walk->group_count++, pattern = cell / RATE_CELLS;
		double fail_rate = clamp_probability(walk->table_fail_mass[cell] / mass);
		double false_fail_rate = clamp_probability(walk->table_false_mass[cell] / mass);

		walk->group_pattern[group] = pattern;
		walk->group_mass[group] = mass;
		conditional += mass * group_distributions(walk, group, pattern, fail_rate,
							  false_fail_rate);
	}
	double information = results_entropy_from(walk, 0, walk->group_mass) - conditional;
	return information > 0 ? information : 0;
}

/* Information of one run at a commit that is bad with probability `bad`:
 * the single-run case of batch_information, in closed form. */
static double single_run_information(const struct selection *selection, double bad)
{
	double p = selection->fail_rate_when_bad, epsilon = selection->fail_rate_when_good;
	double fail = bad * p + (1 - bad) * epsilon;
	double entropy = entropy_term(fail) + entropy_term(1 - fail);
	double conditional = bad * (entropy_term(p) + entropy_term(1 - p)) +
			     (1 - bad) * (entropy_term(epsilon) + entropy_term(1 - epsilon));
	double information = entropy - conditional;
	return information > 0 ? information : 0;
}

/* The line rank whose ancestor mass is nearest `target`. */
static size_t rank_nearest(const struct selection *selection, double target)
{
	size_t low = 0, high = selection->line_length;

	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (selection->line[middle].ancestor_mass < target)
			low = middle + 1;
		else
			high = middle;
	}
	if (low == selection->line_length)
		return low - 1;
	if (low > 0 && target - selection->line[low - 1].ancestor_mass <=
			       selection->line[low].ancestor_mass - target)
		return low - 1;
	return low;
}

/*
 * `distinct` commits at the i/(distinct+1) quantiles of the first-bad
 * posterior along ancestor mass (git's halfway point, k ways), sharing `runs`
 * runs; the extra runs go to the commits a single run tells most about.
 */
static void batch_at_quantiles(const struct selection *selection, size_t distinct,
			       unsigned runs, struct batch *batch)
{
	batch->slot_count = distinct;
	for (size_t slot = 0; slot < distinct; slot++) {
		double level = (double)(slot + 1) / (double)(distinct + 1);
		batch->rank[slot] = rank_nearest(selection, selection->mass_below + level * selection->commit_mass);
		batch->repeats[slot] = (unsigned)(runs / distinct);
	}
	for (unsigned extra = (unsigned)(runs % distinct); extra > 0; extra--) {
		size_t chosen = 0;
		double chosen_value = -1;
		for (size_t slot = 0; slot < distinct; slot++) {
			double value = single_run_information(
				selection, selection->line[batch->rank[slot]].ancestor_mass) /
				(1.0 + batch->repeats[slot]);
			if (value > chosen_value) {
				chosen_value = value;
				chosen = slot;
			}
		}
		batch->repeats[chosen]++;
	}
	batch_normalise(batch);
}

/*
 * Batches already weighed in this search, by a hash of their normal form:
 * each pass of the ascent weighs the neighbours of the best batch again,
 * most of which the last pass weighed too (at k = 8 a weighing enumerates
 * 256 result patterns). Entries of older searches are told apart by the
 * search's number.
 */
#define MEMO_SLOTS 2048
struct batch_memo {
	unsigned search;
	struct {
		unsigned search;
		struct batch batch;
		double information;
	} entries[MEMO_SLOTS];
};

static struct batch_memo *batch_memo_new(void)
{
	return calloc(1, sizeof(struct batch_memo));
}

static uint64_t batch_hash(const struct batch *batch)
{
	uint64_t hash = batch->slot_count;

	for (size_t slot = 0; slot < batch->slot_count; slot++)
		hash = mix64(hash ^ ((uint64_t)batch->rank[slot] << 8) ^ batch->repeats[slot]);
	return hash;
}

static bool same_batch(const struct batch *a, const struct batch *b)
{
	if (a->slot_count != b->slot_count)
		return false;
	for (size_t slot = 0; slot < a->slot_count; slot++)
		if (a->rank[slot] != b->rank[slot] || a->repeats[slot] != b->repeats[slot])
			return false;
	return true;
}

/* batch_information, remembered for the rest of the search. */
static double weigh(const struct selection *selection, const struct batch *batch)
{
	struct batch_memo *memo = selection->bisect->scratch.memo;
	size_t slot = (size_t)(batch_hash(batch) % MEMO_SLOTS);

	for (size_t probe = 0; probe < 8; probe++, slot = (slot + 1) % MEMO_SLOTS) {
		if (memo->entries[slot].search != memo->search)
			break;
		if (same_batch(&memo->entries[slot].batch, batch))
			return memo->entries[slot].information;
	}
	double information = batch_information(selection, batch);
	if (memo->entries[slot].search != memo->search) {
		memo->entries[slot].search = memo->search;
		memo->entries[slot].batch = *batch;
		memo->entries[slot].information = information;
	}
	return information;
}

/* Steepest ascent keeps the best neighbour seen; this keeps that short. */
struct search_best {
	struct batch batch;
	double information;
};

static void consider(const struct selection *selection, struct batch *candidate,
		     struct search_best *best)
{
	batch_normalise(candidate);
	if (candidate->slot_count == 0)
		return;
	double information = weigh(selection, candidate);
	/* Strictly better only: a tie keeps the earlier batch, deterministically. */
	if (information > best->information + 1e-12) {
		best->batch = *candidate;
		best->information = information;
	}
}

/* Moving one commit along the line: by 1, 2, 4, ... ranks either way. */
static void consider_moves(const struct selection *selection, const struct batch *current,
			   struct search_best *best)
{
	for (size_t slot = 0; slot < current->slot_count; slot++)
		for (size_t step = 1; step < selection->line_length; step *= 2)
			for (int direction = -1; direction <= 1; direction += 2) {
				size_t rank = current->rank[slot];
				if (direction < 0 ? rank < step : rank + step >= selection->line_length)
					continue;
				struct batch candidate = *current;
				candidate.rank[slot] = direction < 0 ? rank - step : rank + step;
				consider(selection, &candidate, best);
			}
}

/* Moving one run from one commit to another (a repeat where it helps more). */
static void consider_transfers(const struct selection *selection, const struct batch *current,
			       struct search_best *best)
{
	for (size_t from = 0; from < current->slot_count; from++)
		for (size_t to = 0; to < current->slot_count; to++) {
			if (from == to)
				continue;
			struct batch candidate = *current;
			candidate.repeats[from]--;
			candidate.repeats[to]++;
			consider(selection, &candidate, best);
		}
}

/* Giving one run of a repeated commit to a new commit nearby on the line. */
static void consider_splits(const struct selection *selection, const struct batch *current,
			    struct search_best *best)
{
	if (current->slot_count >= JOINT_SEARCH_MAX_BOARDS)
		return;
	for (size_t slot = 0; slot < current->slot_count; slot++) {
		if (current->repeats[slot] < 2)
			continue;
		for (size_t step = 1; step < selection->line_length; step *= 2)
			for (int direction = -1; direction <= 1; direction += 2) {
				size_t rank = current->rank[slot];
				if (direction < 0 ? rank < step : rank + step >= selection->line_length)
					continue;
				struct batch candidate = *current;
				candidate.repeats[slot]--;
				candidate.rank[candidate.slot_count] =
					direction < 0 ? rank - step : rank + step;
				candidate.repeats[candidate.slot_count] = 1;
				candidate.slot_count++;
				consider(selection, &candidate, best);
			}
	}
}

/*
 * The batch of `runs` runs (at most JOINT_SEARCH_MAX_BOARDS) with the most
 * information: start from the best of the quantile batches with 1..runs
 * distinct commits (all distinct is optimal when p = 1; fewer, repeated, can
 * win when p is low), then steepest ascent over moves, transfers and splits.
 */
static void choose_batch_by_information(const struct selection *selection, unsigned runs,
					struct batch *chosen)
{
	struct search_best best = { .information = -1 };

	/* a new search: every remembered weighing is stale (0 is never one) */
	if (++selection->bisect->scratch.memo->search == 0)
		selection->bisect->scratch.memo->search = 1;
	for (size_t distinct = 1; distinct <= runs && distinct <= selection->line_length;
	     distinct++) {
		struct batch candidate;
		batch_at_quantiles(selection, distinct, runs, &candidate);
		consider(selection, &candidate, &best);
	}
	for (int pass = 0; pass < LOCAL_SEARCH_MAX_PASSES; pass++) {
		struct batch current = best.batch;
		double before = best.information;

		consider_moves(selection, &current, &best);
		consider_transfers(selection, &current, &best);
		consider_splits(selection, &current, &best);
		if (best.information <= before * (1 + LOCAL_SEARCH_MIN_GAIN))
			break;
	}
	*chosen = best.batch;
}

/* Drops runs that would tell (almost) nothing: repeats when p = 1, commits
 * whose fate is already sure. Fewest-information runs go first. One run is
 * always kept: while the bisection runs, the best run there is beats none. */
static void trim_useless_runs(const struct selection *selection, struct batch *batch)
{
	double information = batch_information(selection, batch);

	while (batch->slot_count > 1 || (batch->slot_count == 1 && batch->repeats[0] > 1)) {
		size_t weakest = 0;
		double weakest_loss = INFINITY, weakest_information = 0;
		for (size_t slot = 0; slot < batch->slot_count; slot++) {
			struct batch fewer = *batch;
			fewer.repeats[slot]--;
			batch_normalise(&fewer);
			double remaining = batch_information(selection, &fewer);
			if (information - remaining < weakest_loss) {
				weakest_loss = information - remaining;
				weakest_information = remaining;
				weakest = slot;
			}
		}
		if (weakest_loss >= MIN_USEFUL_INFORMATION)
			break;
		batch->repeats[weakest]--;
		batch_normalise(batch);
		information = weakest_information;
	}
}

/*
 * More boards than the exact search handles: quantiles again, with each
 * commit repeated until a bad one would more likely than not show one FAIL
 * among its runs (1 when p >= 0.5), so that a PASS there means something.
 */
static void choose_batch_by_quantiles(const struct selection *selection, unsigned runs,
				      size_t *ranks, unsigned *repeats, size_t *distinct_out)
{
	double p = selection->fail_rate_when_bad;
	unsigned per_commit = (unsigned)ceil(log(0.5) / log1p(-p));
	if (per_commit < 1 || p > 1 - 1e-6)
		per_commit = 1;
	if (per_commit > runs)
		per_commit = runs;
	size_t distinct = (runs + per_commit - 1) / per_commit;
	if (distinct > selection->line_length)
		distinct = selection->line_length;

	size_t kept = 0;
	for (size_t i = 0; i < distinct; i++) {
		double level = (double)(i + 1) / (double)(distinct + 1);
		size_t rank = rank_nearest(selection, selection->mass_below + level * selection->commit_mass);
		if (single_run_information(selection, selection->line[rank].ancestor_mass) <
		    MIN_USEFUL_INFORMATION)
			continue;
		if (kept > 0 && ranks[kept - 1] == rank)
			continue;
		ranks[kept++] = rank;
	}
	*distinct_out = kept;
	if (kept == 0)
		return;
	/* Share the runs; when p is near 1 a repeat tells nothing. */
	for (size_t i = 0; i < kept; i++)
		repeats[i] = p > 1 - 1e-6 ? 1 : (unsigned)(runs / kept);
	for (size_t i = 0; p <= 1 - 1e-6 && i < runs % kept; i++)
		repeats[i]++;
}

static void write_proposals(const struct selection *selection, const size_t *ranks,
			    const unsigned *repeats, size_t distinct, size_t *out, size_t *count)
{
	const struct bisect_graph *graph = &selection->bisect->graph;

	*count = 0;
	for (size_t slot = 0; slot < distinct; slot++)
		for (unsigned run = 0; run < repeats[slot]; run++)
			out[(*count)++] = selection->line[ranks[slot]].position == GOOD_END_POSITION
						  ? BISECT_GOOD_END
						  : graph->commit_at[selection->line[ranks[slot]].position];
}

static void selection_prepare(struct bisect *bisect, struct selection *selection)
{
	compute_ancestor_masses(bisect);
	selection->bisect = bisect;
	selection->line = bisect->scratch.line;
	selection->line_length = build_line(bisect);
	selection->mass_below = bisect->good_end_bad.probability;
	selection->commit_mass =
		1 - bisect->no_regression.probability - bisect->good_end_bad.probability;
	selection->fail_rate_when_bad = clamp_probability(bisect->summary.fail_rate_estimate);
	selection->fail_rate_when_good =
		clamp_probability(bisect->summary.fail_rate_when_good_estimate);
}

/* Up to k proposals, the batch with the most information. */
static int propose_informative(struct bisect *bisect, size_t k, size_t *out, size_t *count)
{
	struct selection selection;

	*count = 0;
	selection_prepare(bisect, &selection);
	if (selection.line_length == 0 || k == 0)
		return 0;
	if (k <= JOINT_SEARCH_MAX_BOARDS) {
		struct batch batch;
		choose_batch_by_information(&selection, (unsigned)k, &batch);
		trim_useless_runs(&selection, &batch);
		write_proposals(&selection, batch.rank, batch.repeats, batch.slot_count, out, count);
		return 0;
	}
	size_t *ranks = calloc(k, sizeof(size_t));
	unsigned *repeats = calloc(k, sizeof(unsigned));
	size_t distinct = 0;
	if (!ranks || !repeats) {
		free(ranks);
		free(repeats);
		return -ENOMEM;
	}
	choose_batch_by_quantiles(&selection, (unsigned)k, ranks, repeats, &distinct);
	write_proposals(&selection, ranks, repeats, distinct, out, count);
	free(ranks);
	free(repeats);
	return 0;
}

/*
 * Bad must show the symptom. While p is learned and the bad end has not
 * failed, nothing tells "the bad end is the first bad commit" from "every
 * commit is bad, with a low p": the first would leave p unconstrained, the
 * second lives on passes. Only runs at the bad end, bad under every
 * hypothesis, pin p down for all of them, and no single run elsewhere shows
 * that value, so the bad end is proposed first until it has failed once.
 */
static bool bad_end_must_fail_first(const struct bisect *bisect)
{
	bool in_doubt = !bisect->options.trust_ends ||
			noise_model_learns_fail_rate_when_bad(&bisect->noise);

	return in_doubt && !bisect->skipped[bisect->bad_position] &&
	       bisect->fails_at[bisect->bad_position] == 0;
}

/*
 * And it keeps a share of the runs while p is learned. The bad end is bad
 * under every hypothesis but "no regression", so its runs pin p for all of
 * them at once; a bisection whose estimate of p was pulled down early (one
 * PASS of the bad end at a 5 % miss rate) otherwise chases false failures
 * with a p that low for hundreds of runs before the information of one run
 * at the bad end wins (measured, N = 100, symmetric 5 % noise: the slowest
 * of 1,000 trials took 223 runs without the share, 118 with one run in 20;
 * p = 0.1: right 99.0 % without, 99.5 % with, for 2 % more runs on average).
 */
#define BAD_END_SHARE_OF_RUNS 20	/* at least one run in this many */

static bool bad_end_needs_runs(const struct bisect *bisect)
{
	size_t bad = bisect->bad_position;
	double at_bad_end = (double)bisect->fails_at[bad] + bisect->passes_at[bad];
	double at_candidates = (double)bisect->candidate_fails + bisect->candidate_passes;

	return noise_model_learns_fail_rate_when_bad(&bisect->noise) && !bisect->skipped[bad] &&
	       at_bad_end * BAD_END_SHARE_OF_RUNS < at_candidates;
}

/* Equal proposals next to each other, in the order each first appears. */
static void make_repeats_adjacent(size_t *proposals, size_t count)
{
	for (size_t i = 0; i + 1 < count; i++)
		for (size_t j = i + 1; j < count; j++) {
			if (proposals[j] != proposals[i] || j == i + 1)
				continue;
			size_t moved = proposals[j];
			memmove(proposals + i + 2, proposals + i + 1, (j - i - 1) * sizeof(size_t));
			proposals[++i] = moved;
		}
}

int bisect_next(struct bisect *bisect, size_t k, size_t *out, size_t *count)
{
	size_t bad_end = bisect ? bisect->graph.commit_at[bisect->bad_position] : 0;
	size_t written = 0, more = 0;
	int rc;

	if (!bisect || !count || (k > 0 && !out))
		return -EINVAL;
	*count = 0;
	if (bisect->summary.state != BISECT_RUNNING || k == 0)
		return 0;
	if (k > bisect->max_runs - bisect->runs)
		k = bisect->max_runs - bisect->runs;
	if (k > UINT_MAX)
		k = UINT_MAX;

	if (bisect->summary.confirming) {
		written = confirmation_runs(bisect, out, k);
		if (written > k)
			written = k;
	} else if (bad_end_must_fail_first(bisect) || bad_end_needs_runs(bisect)) {
		out[written++] = bad_end;
	}
	if (written < k) {
		rc = propose_informative(bisect, k - written, out + written, &more);
		if (rc != 0)
			return rc;
	}
	*count = written + more;
	make_repeats_adjacent(out, *count);
	return 0;
}

/* ---- reading the belief ---------------------------------------------------- */

int bisect_status(const struct bisect *bisect, struct bisect_status *status)
{
	if (!bisect || !status)
		return -EINVAL;
	const struct bisect_summary *summary = &bisect->summary;

	memset(status, 0, sizeof(*status));
	status->state = summary->state;
	status->best = bisect->graph.commit_at[summary->best_position];
	status->best_probability = summary->best_probability;
	status->no_regression_probability = bisect->no_regression.probability;
	status->good_end_bad_probability = bisect->good_end_bad.probability;
	status->confirming = summary->confirming;
	status->fail_rate_estimate = summary->fail_rate_estimate;
	status->fail_rate_when_good_estimate = summary->fail_rate_when_good_estimate;
	status->runs = bisect->runs;
	status->candidates_left = summary->candidates_left;
	status->skipped_count = bisect->skipped_count;
	status->undecided = summary->undecided_count > 0 ? summary->undecided : NULL;
	status->undecided_count = summary->undecided_count;
	return 0;
}

double bisect_probability(const struct bisect *bisect, size_t commit)
{
	if (!bisect || commit >= bisect->graph.count)
		return 0;
	return bisect->probability[bisect->graph.position_of[commit]];
}

const char *bisect_state_name(enum bisect_state state)
{
	switch (state) {
	case BISECT_RUNNING:
		return "running";
	case BISECT_FOUND:
		return "found";
	case BISECT_NO_REGRESSION:
		return "no regression";
	case BISECT_GOOD_END_BAD:
		return "good end is bad";
	case BISECT_ONLY_SKIPPED_LEFT:
		return "only skipped commits left";
	case BISECT_BUDGET_SPENT:
		return "run budget spent";
	}
	return "?";
}
