/* lab_bisect.c - bisection rounds on the lab: builds, runs, evidence, confirmation. */
#include "lab_bisect.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "lab_round.h"
#include "log.h"
#include "scheduler.h"
#include "subprocess.h"

/* Guesses in flight: they wait in the session's build queue behind every
 * build a round needs, and those still waiting when the next guess comes
 * are cancelled, so this only bounds memory (two rounds' guesses). */
#define MAX_SPECULATIVE_BUILDS 32
/* the results a round of up to 3 commits can have (2^3); with more, 2 */
#define MAX_GUESS_CASES 8
/* the bad end is run this many times on every board before "it does not
 * show the symptom" is believed */
#define BAD_END_ROUNDS 2
/* rounds that teach nothing before the bisection stops instead of looping */
#define MAX_ROUNDS_WITHOUT_EVIDENCE 3

enum step { STEP_BAD_END, STEP_GOOD_ENDS, STEP_BISECT, STEP_REVERT, STEP_DONE };
static const char *const step_names[] = { "bad-end", "good-ends", "bisect", "revert", "done" };

struct speculative_build {
	struct lab_bisect *owner;
	struct build *build;		/* NULL once it ended */
	bool guess;			/* in the background: no round waits for it */
	char ref[64];
	/* a commit found not to build: its SKIP is stored at once */
	struct build_result result;
	int64_t build_id;
	char failure[PATH_MAX + 64];
};

struct result_record {
	long commit;			/* graph index; -1: a good end */
	enum bisect_result result;
};

struct lab_bisect {
	struct lab_bisect_options options;
	lab_bisect_done_cb done;
	void *data;
	struct bisect *engine;
	struct bisect_options engine_options;
	enum step step;
	bool confirming;
	unsigned int bad_end_rounds;
	unsigned int rounds_without_evidence;
	const struct job_workload *workload;	/* the tracked symptom's; NULL until step 1 decides */
	struct board **pool;		/* boards that reproduced at bad */
	size_t pool_count;
	unsigned int *passes, *fails;	/* evidence per graph index */
	unsigned int good_end_passes, good_end_fails;
	signed char *builds;		/* per graph index: 1 builds, -1 does not, 0 not known yet */
	bool prebuilding;		/* a round waits for its commits' builds */
	unsigned int prebuild_waits;	/* how often this round waited */
	struct result_record *records;	/* every result the engine got, in order */
	size_t record_count, record_capacity;
	struct lab_round round;
	struct speculative_build *speculative[MAX_SPECULATIVE_BUILDS];
	char (*built_ahead)[41];	/* commits built ahead, to count how many were used */
	size_t built_ahead_capacity;
	char revert_commit[41];
	unsigned int revert_passes, revert_fails, revert_needed;
	bool aborting;
	bool finished;
	struct lab_bisect_answer answer;
};

static void next_step(struct lab_bisect *lb);

/* ---- the spec ------------------------------------------------------------------------------ */

static const char *spec_string(const json_t *spec, const char *key)
{
	return json_string_value(json_object_get(spec, key));
}

static bool array_has(const json_t *list, const char *value)
{
	json_t *item;
	size_t i;

	json_array_foreach(list, i, item) {
		if (value && json_string_value(item) && strcmp(json_string_value(item), value) == 0)
			return true;
	}
	return false;
}

static bool spec_lists(const json_t *spec, const char *key, const char *value)
{
	return array_has(json_object_get(spec, key), value);
}

static void save_spec(struct lab_bisect *lb)
{
	char *text = json_dumps(lb->options.spec, JSON_COMPACT | JSON_SORT_KEYS);

	if (!text || store_bisection_set_spec(lb->options.session->store, lb->options.bisection_id,
					      text) != 0)
		log_event(&lb->options.session->log, LOG_NOTICE, NULL, 0, "store-error",
			  "cannot store the bisection's progress: %s",
			  store_error_message(lb->options.session->store));
	free(text);
}

static void set_step(struct lab_bisect *lb, enum step step)
{
	lb->step = step;
	json_object_set_new(lb->options.spec, "step", json_string(step_names[step]));
	save_spec(lb);
}

static enum step step_of(const json_t *spec)
{
	const char *name = spec_string(spec, "step");
	size_t i;

	for (i = 0; name && i < sizeof(step_names) / sizeof(step_names[0]); i++) {
		if (strcmp(name, step_names[i]) == 0)
			return (enum step)i;
	}
	return STEP_BAD_END;
}

static void progress(struct lab_bisect *lb, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(struct lab_bisect *lb, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	log_vstep(&lb->options.session->log, "bisect", lb->options.progress, lb->options.progress_data,
		  format, args);
	va_end(args);
}

/* ---- evidence -------------------------------------------------------------------------------- */

static bool has_symptom(const struct store_run *run, const char *symptom)
{
	size_t i;

	for (i = 0; symptom && i < run->symptom_count; i++) {
		if (strcmp(run->symptoms[i].name, symptom) == 0)
			return true;
	}
	return false;
}

enum lab_bisect_evidence lab_bisect_evidence_of(const struct store_run *run, const json_t *spec,
						const char **why)
{
	const char *workload = spec_string(spec, "workload");
	const json_t *boards = json_object_get(spec, "boards");
	const char *unused;

	if (!why)
		why = &unused;
	*why = "";
	if (run->state != RUN_DONE)
		return *why = "not finished", LAB_BISECT_EVIDENCE_IGNORED;
	if (!workload || strcmp(run->workload, workload) != 0)
		return *why = "another workload than the symptom's", LAB_BISECT_EVIDENCE_IGNORED;
	/* a run that never reached a board (its build failed) counts anywhere */
	if (run->board && json_array_size(boards) && !spec_lists(spec, "boards", run->board))
		return *why = "a board the bad end did not fail on", LAB_BISECT_EVIDENCE_IGNORED;
	switch (run->outcome) {
	case RUN_PASS:
		return LAB_BISECT_EVIDENCE_PASS;
	case RUN_SKIP:
		return *why = "did not build or boot", LAB_BISECT_EVIDENCE_SKIP;
	case RUN_FAIL:
		if (has_symptom(run, spec_string(spec, "symptom")))
			return LAB_BISECT_EVIDENCE_FAIL;
		return *why = "FAIL with another symptom: reported, not used", LAB_BISECT_EVIDENCE_IGNORED;
	default:
		return *why = "INFRA: lab trouble is no evidence", LAB_BISECT_EVIDENCE_IGNORED;
	}
}

const char *lab_bisect_evidence_name(enum lab_bisect_evidence evidence)
{
	static const char *const names[] = { "PASS", "FAIL", "SKIP", "ignored" };

	return names[evidence];
}

static long graph_index(const struct commit_graph *graph, const char *commit)
{
	size_t i;

	for (i = 0; commit && i < graph->count; i++) {
		if (strcmp(graph->ids[i], commit) == 0)
			return (long)i;
	}
	return -1;
}

/*
 * Gives the engine one stored run's evidence. *where is the graph index it
 * counted at, -1 for a good end, -2 when it was not evidence or not about a
 * candidate (the revert).
 */
static int record_run(struct bisect *engine, const struct commit_graph *graph, const json_t *spec,
		      const struct store_run *run, long *where, enum bisect_result *result)
{
	enum lab_bisect_evidence evidence = lab_bisect_evidence_of(run, spec, NULL);
	long index = graph_index(graph, run->commit);

	*where = -2;
	if (evidence == LAB_BISECT_EVIDENCE_IGNORED)
		return 0;
	*result = evidence == LAB_BISECT_EVIDENCE_PASS ? BISECT_PASS
		: evidence == LAB_BISECT_EVIDENCE_FAIL ? BISECT_FAIL : BISECT_SKIP;
	if (index >= 0) {
		*where = index;
		return bisect_record(engine, (size_t)index, *result);
	}
	if (spec_lists(spec, "goods", run->commit)) {
		*where = -1;
		return bisect_record_good_end(engine, *result);
	}
	return 0;
}

/* The question's noise: learned unless the spec states a rate ("detect_rate",
 * "false_fail_rate") or says "deterministic". */
static void engine_options_of(const json_t *spec, struct bisect_options *options)
{
	const json_t *detect_rate = json_object_get(spec, "detect_rate");
	const json_t *false_fail_rate = json_object_get(spec, "false_fail_rate");

	bisect_options_init(options);
	if (json_number_value(json_object_get(spec, "confidence")) > 0)
		options->confidence = json_number_value(json_object_get(spec, "confidence"));
	options->max_runs = (unsigned int)json_integer_value(json_object_get(spec, "max_runs"));
	if (json_is_number(detect_rate))
		options->fail_rate_when_bad = json_number_value(detect_rate);
	if (json_is_number(false_fail_rate))
		options->fail_rate_when_good = json_number_value(false_fail_rate);
	if (json_is_true(json_object_get(spec, "deterministic")))
		bisect_options_deterministic(options);
}

int lab_bisect_replay_runs(const struct store_run_list *runs, const json_t *spec,
			   const struct commit_graph *graph, lab_bisect_replay_cb each, void *data,
			   struct bisect **out)
{
	struct bisect_options options;
	size_t i;
	int rc;

	engine_options_of(spec, &options);
	if ((rc = bisect_new(graph->commits, graph->count, graph->bad_index, &options, out)))
		return rc;
	for (i = 0; i < runs->count && rc == 0; i++) {
		enum bisect_result result;
		long where;

		rc = record_run(*out, graph, spec, &runs->runs[i], &where, &result);
		if (rc == 0 && each)
			each(&runs->runs[i], where, *out, data);
	}
	return rc;
}

int lab_bisect_replay(struct store *store, int64_t bisection_id, const json_t *spec,
		      const struct commit_graph *graph, struct bisect **out)
{
	struct store_run_list list;
	char **roles = NULL;
	int rc;

	if ((rc = store_bisection_runs(store, bisection_id, &list, &roles)))
		return rc;
	rc = lab_bisect_replay_runs(&list, spec, graph, NULL, NULL, out);
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);
	return rc;
}

/* Live: the engine, the tallies and the records replays start from. */
static void count_run(struct lab_bisect *lb, const struct store_run *run)
{
	enum bisect_result result;
	long where;

	if (record_run(lb->engine, lb->options.graph, lb->options.spec, run, &where, &result) != 0 ||
	    where == -2)
		return;
	lb->answer.evidence_runs++;
	if (where >= 0) {
		lb->passes[where] += result == BISECT_PASS;
		lb->fails[where] += result == BISECT_FAIL;
	} else {
		lb->good_end_passes += result == BISECT_PASS;
		lb->good_end_fails += result == BISECT_FAIL;
	}
	if (lb->record_count == lb->record_capacity) {
		size_t capacity = lb->record_capacity ? 2 * lb->record_capacity : 64;
		struct result_record *grown = realloc(lb->records, capacity * sizeof(*grown));

		if (!grown)
			return;
		lb->records = grown;
		lb->record_capacity = capacity;
	}
	lb->records[lb->record_count++] = (struct result_record){ where, result };
}

/* ---- rounds: groups of runs ---------------------------------------------------------------- */

static void stop_with(struct lab_bisect *lb, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void stop_with(struct lab_bisect *lb, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(lb->answer.reason, sizeof(lb->answer.reason), format, args);
	va_end(args);
	lb->aborting = true;
}

static void process_round(struct lab_bisect *lb);
static void count_built_ahead_use(struct lab_bisect *lb, const char *commit);

static void note_built(struct lab_bisect *lb, const struct build_result *result)
{
	long index = graph_index(lb->options.graph, result->commit);

	if (index >= 0 && (result->status == 0 || result->status == -ENOEXEC))
		lb->builds[index] = result->status == 0 ? 1 : -1;
}

static void on_round_built(const struct build_result *result, void *data)
{
	note_built(data, result);
	count_built_ahead_use(data, result->commit);
}

static void on_round_trouble(const char *reason, void *data)
{
	stop_with(data, "%s", reason);
}

static void on_round_done(void *data)
{
	process_round(data);
}

static void start_speculative_builds(struct lab_bisect *lb);

static void round_launch(struct lab_bisect *lb)
{
	if (lab_round_launch(&lb->round) != 0) {
		stop_with(lb, "nothing left to run");
		next_step(lb);
		return;
	}
	if (lb->step == STEP_BISECT && !lb->confirming)
		start_speculative_builds(lb);
}

/* ---- speculative builds: the likely next round, built while boards run ------------------- */

static void remember_built_ahead(struct lab_bisect *lb, const char *commit)
{
	if (lb->answer.built_ahead == lb->built_ahead_capacity) {
		size_t capacity = lb->built_ahead_capacity ? 2 * lb->built_ahead_capacity : 32;
		char (*grown)[41] = realloc(lb->built_ahead, capacity * sizeof(*grown));

		if (!grown)
			return;
		lb->built_ahead = grown;
		lb->built_ahead_capacity = capacity;
	}
	snprintf(lb->built_ahead[lb->answer.built_ahead++], 41, "%s", commit);
}

/* A group's commit that was built ahead: the speculation paid. */
static void count_built_ahead_use(struct lab_bisect *lb, const char *commit)
{
	size_t i;

	for (i = 0; i < lb->answer.built_ahead; i++) {
		if (strcmp(lb->built_ahead[i], commit) == 0) {
			lb->answer.built_ahead_used++;
			lb->built_ahead[i][0] = '\0';	/* counted once */
			return;
		}
	}
}

static void forget_speculative(struct lab_bisect *lb, struct speculative_build *speculative)
{
	size_t i;

	for (i = 0; i < MAX_SPECULATIVE_BUILDS; i++) {
		if (lb->speculative[i] == speculative)
			lb->speculative[i] = NULL;
	}
}

static void bisect_round(struct lab_bisect *lb);

/* A build the round waited for ended: the round is asked for again. */
static void prebuild_ended(struct lab_bisect *lb)
{
	if (lb->prebuilding && !lb->finished && !lb->aborting && !lab_round_running(&lb->round)) {
		lb->prebuilding = false;
		bisect_round(lb);
	}
}

static void on_speculative_skip_done(const struct run_report *report, void *data)
{
	struct speculative_build *speculative = data;
	struct lab_bisect *lb = speculative->owner;
	struct store_run run;

	if (lb) {
		forget_speculative(lb, speculative);
		if (!lb->finished && store_run_get(lb->options.session->store, report->run_id, &run) == 0) {
			count_run(lb, &run);
			lb->answer.skips_found_ahead += run.outcome == RUN_SKIP;
			store_run_release(&run);
		}
		prebuild_ended(lb);
	}
	free(speculative);
}

/*
 * A commit built ahead that does not build is a SKIP already known: stored
 * (and linked) as a run of its own at once, so the engine stops proposing it
 * before a round is spent finding out again. 0 when the run started.
 */
static int store_speculative_skip(struct lab_bisect *lb, struct speculative_build *speculative,
				  const struct build_result *result)
{
	struct lab_session *session = lb->options.session;
	struct run_spec spec;

	if (lb->step != STEP_BISECT || lb->confirming || lb->aborting || !lb->workload)
		return -EAGAIN;
	speculative->result = *result;
	speculative->result.error_text = NULL;
	lab_session_record_build(session, &speculative->result, &speculative->build_id);
	snprintf(speculative->failure, sizeof(speculative->failure), "build of %.12s failed (log: %s)",
		 result->commit, result->log);
	spec = (struct run_spec){ .workload = lb->workload, .commit = speculative->result.commit,
				  .build_id = speculative->build_id, .build_failure = speculative->failure };
	return run_start(&lb->round.environment, NULL, &spec, on_speculative_skip_done, speculative);
}

static void on_speculative_built(struct build *build, const struct build_result *result, void *data)
{
	struct speculative_build *speculative = data;
	struct lab_bisect *lb = speculative->owner;

	(void)build;
	speculative->build = NULL;
	if (!lb) {	/* the bisection ended and cancelled it */
		free(speculative);
		return;
	}
	/* -ECANCELED: a stale guess, dropped before it started */
	if (result->status != -ECANCELED) {
		log_event(&lb->options.session->log, LOG_INFO, NULL, 0, "built-ahead", "%s %s",
			  result->commit, result->status == 0 ? result->release : "did not build");
		if (result->commit[0])
			remember_built_ahead(lb, result->commit);
		note_built(lb, result);
		if (result->status == -ENOEXEC && result->commit[0] &&
		    store_speculative_skip(lb, speculative, result) == 0)
			return;	/* its slot is kept until the SKIP is stored */
	}
	forget_speculative(lb, speculative);
	free(speculative);
	prebuild_ended(lb);
}

/* The build ahead of ref still in flight (or its SKIP being stored); NULL if none. */
static struct speculative_build *find_ahead(const struct lab_bisect *lb, const char *ref)
{
	size_t i;

	for (i = 0; i < MAX_SPECULATIVE_BUILDS; i++) {
		if (lb->speculative[i] && strcmp(lb->speculative[i]->ref, ref) == 0)
			return lb->speculative[i];
	}
	return NULL;
}

/* A round now waits for it: no longer a guess. */
static void needed_now(struct speculative_build *speculative)
{
	if (speculative->guess && speculative->build)
		build_prioritize(speculative->build);
	speculative->guess = false;
}

/* Builds ref ahead of the round that will test it: in the background when
 * it is a guess at the next round, as any build when a round waits for it
 * (a guess the round turned out to need is moved ahead). */
static void build_ahead(struct lab_bisect *lb, const char *ref, bool guess)
{
	struct speculative_build *speculative;
	struct build_request request;
	size_t i, slot = MAX_SPECULATIVE_BUILDS;

	if (lab_round_find(&lb->round, ref))
		return;
	if ((speculative = find_ahead(lb, ref)) != NULL) {
		if (!guess)
			needed_now(speculative);
		return;
	}
	for (i = 0; i < MAX_SPECULATIVE_BUILDS && slot == MAX_SPECULATIVE_BUILDS; i++) {
		if (!lb->speculative[i])
			slot = i;
	}
	if (slot == MAX_SPECULATIVE_BUILDS || !(speculative = calloc(1, sizeof(*speculative))))
		return;
	speculative->owner = lb;
	speculative->guess = guess;
	snprintf(speculative->ref, sizeof(speculative->ref), "%s", ref);
	lab_session_build_request(lb->options.session, lb->round.tree, ref, &request);
	request.background = guess;
	if (build_start(&lb->options.session->loop, &request, on_speculative_built, speculative,
			&speculative->build) != 0) {
		free(speculative);
		return;
	}
	lb->speculative[slot] = speculative;
}

/* What the engine would propose after this round if its runs came back
 * `assumed`: the engine is rebuilt from the records (results only, no I/O). */
static void propose_after(struct lab_bisect *lb, const size_t *proposals, size_t count,
			  const enum bisect_result *assumed, size_t *next, size_t *next_count)
{
	const struct commit_graph *graph = lb->options.graph;
	struct bisect *what_if;
	size_t i;

	*next_count = 0;
	if (bisect_new(graph->commits, graph->count, graph->bad_index, &lb->engine_options,
		       &what_if) != 0)
		return;
	for (i = 0; i < lb->record_count; i++) {
		if (lb->records[i].commit >= 0)
			bisect_record(what_if, (size_t)lb->records[i].commit, lb->records[i].result);
		else
			bisect_record_good_end(what_if, lb->records[i].result);
	}
	for (i = 0; i < count; i++)
		bisect_record(what_if, proposals[i], assumed[i]);
	bisect_next(what_if, lb->pool_count, next, next_count);
	bisect_free(what_if);
}

/* The last round's guesses that are not this one's and still wait for
 * their turn: the round they were for has been decided otherwise, and they
 * would only take the CPU from builds that are needed. (One building
 * already is let finish: the cache keeps it, and a round may yet ask.) */
static void drop_stale_guesses(struct lab_bisect *lb, const size_t *guesses, size_t count)
{
	const struct commit_graph *graph = lb->options.graph;
	size_t i, g;

	for (i = 0; i < MAX_SPECULATIVE_BUILDS; i++) {
		struct speculative_build *speculative = lb->speculative[i];

		if (!speculative || !speculative->guess || !speculative->build ||
		    !build_is_queued(speculative->build))
			continue;
		for (g = 0; g < count && strcmp(graph->ids[guesses[g]], speculative->ref) != 0; g++)
			;
		if (g == count) {
			build_cancel(speculative->build);
			lb->answer.guesses_dropped++;
		}
	}
}

/* commit, once, while there is room */
static void add_guess(size_t *guesses, size_t *count, size_t commit)
{
	size_t i;

	for (i = 0; i < *count && guesses[i] != commit; i++)
		;
	if (i == *count && *count < MAX_SPECULATIVE_BUILDS)
		guesses[(*count)++] = commit;
}

/*
 * The next round depends on this one's results. With up to 3 commits in
 * the round every combination of results is built for (at most 8 cases, so
 * the next round always finds its kernels built: one board, two cases);
 * with more, only "all pass" and "all fail", which cover the two ends of
 * the range.
 */
static void start_speculative_builds(struct lab_bisect *lb)
{
	const struct commit_graph *graph = lb->options.graph;
	size_t stride = lb->pool_count + 1;
	size_t *proposals = calloc(lb->round.group_count + 1, sizeof(*proposals));
	size_t *next = calloc(MAX_GUESS_CASES * stride, sizeof(*next));
	size_t *guesses = calloc(MAX_SPECULATIVE_BUILDS, sizeof(*guesses));
	size_t next_count[MAX_GUESS_CASES] = { 0 };
	enum bisect_result assumed[64];
	size_t g, i, n, count = 0, cases, guess_count = 0;

	for (g = 0; proposals && g < lb->round.group_count && count < 64; g++) {
		long index = graph_index(graph, lb->round.groups[g].ref);

		if (index >= 0)
			proposals[count++] = (size_t)index;
	}
	cases = count <= 3 ? (size_t)1 << count : 2;
	for (i = 0; next && guesses && proposals && i < cases; i++) {
		for (n = 0; n < count; n++)	/* case i: bit n set = proposal n fails */
			assumed[n] = (count <= 3 ? (i >> n) & 1 : i) ? BISECT_FAIL : BISECT_PASS;
		propose_after(lb, proposals, count, assumed, next + i * stride, &next_count[i]);
	}
	/* each case's first proposal (the engine's most informative), then each
	 * one's second, ...: the queue builds guesses in this order, and a round
	 * seldom lasts long enough for all of them */
	for (n = 0; guesses && n < stride; n++) {
		for (i = 0; i < cases; i++) {
			if (n < next_count[i])
				add_guess(guesses, &guess_count, next[i * stride + n]);
		}
	}
	drop_stale_guesses(lb, guesses, guess_count);
	for (i = 0; i < guess_count; i++)
		build_ahead(lb, graph->ids[guesses[i]], true);
	free(guesses);
	free(proposals);
	free(next);
}

static void cancel_speculative_builds(struct lab_bisect *lb)
{
	size_t i;

	for (i = 0; i < MAX_SPECULATIVE_BUILDS; i++) {
		if (lb->speculative[i] && lb->speculative[i]->build)
			build_cancel(lb->speculative[i]->build);
	}
}

/* ---- step 1: the bad end ----------------------------------------------------------------- */

static void start_bad_end(struct lab_bisect *lb)
{
	struct lab_session *session = lb->options.session;
	struct lab_round_group *group;
	size_t i;

	lab_round_clear(&lb->round);
	lb->bad_end_rounds++;
	group = lab_round_add(&lb->round, lb->options.graph->ids[lb->options.graph->bad_index],
			  job_find_workload(session->job, spec_string(lb->options.spec, "workload")), 1);
	if (!group) {
		stop_with(lb, "out of memory");
		next_step(lb);
		return;
	}
	for (i = 0; i < session->selected_count; i++)
		group->boards[group->board_count++] = session->selected[i];
	progress(lb, "checking the bad end %.12s on %zu boards (%s): it must show the symptom",
		 group->ref, group->board_count, group->workload ? group->workload->name
		 : "every workload");
	round_launch(lb);
}

/* The symptoms the job can track, in job order, "hang" last. */
static size_t symptom_names(const struct job *job, const char **names, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < job->symptom_count && n + 1 < max; i++)
		names[n++] = job->symptoms[i].name;
	names[n++] = "hang";
	return n;
}

/* Runs at bad that show `symptom` in `workload` (NULL: any workload). */
static unsigned int count_showing(const struct store_run_list *list, const char *symptom,
				  const char *workload)
{
	unsigned int count = 0;
	size_t i;

	for (i = 0; i < list->count; i++) {
		const struct store_run *run = &list->runs[i];

		count += run->outcome == RUN_FAIL && has_symptom(run, symptom) &&
			(!workload || strcmp(run->workload, workload) == 0);
	}
	return count;
}

/* Which symptom, in which workload, on which boards: the one the bad end
 * shows most (or the one asked for), in the workload that shows it most. */
static bool choose_symptom(struct lab_bisect *lb, const struct store_run_list *bad_runs)
{
	const struct job *job = lb->options.session->job;
	const char *wanted = spec_string(lb->options.spec, "symptom");
	const char *names[64], *symptom = NULL;
	const struct job_workload *workload = NULL;
	unsigned int best = 0, count;
	size_t n = symptom_names(job, names, 64), i;
	json_t *boards;

	for (i = 0; i < n; i++) {
		count = count_showing(bad_runs, names[i], NULL);
		if ((!wanted || strcmp(wanted, names[i]) == 0) && count > best) {
			best = count;
			symptom = names[i];
		}
	}
	if (!symptom)
		return false;
	best = 0;
	for (i = 0; i < job->workload_count; i++) {
		count = count_showing(bad_runs, symptom, job->workloads[i].name);
		if (count > best) {
			best = count;
			workload = &job->workloads[i];
		}
	}
	boards = json_array();
	for (i = 0; i < bad_runs->count; i++) {
		const struct store_run *run = &bad_runs->runs[i];

		if (run->outcome == RUN_FAIL && has_symptom(run, symptom) &&
		    strcmp(run->workload, workload->name) == 0 &&
		    !array_has(boards, run->board))
			json_array_append_new(boards, json_string(run->board));
	}
	json_object_set_new(lb->options.spec, "symptom", json_string(symptom));
	json_object_set_new(lb->options.spec, "workload", json_string(workload->name));
	json_object_set_new(lb->options.spec, "boards", boards);
	return true;
}

static void make_pool(struct lab_bisect *lb)
{
	struct lab_session *session = lb->options.session;
	size_t i;

	free(lb->pool);
	lb->pool = calloc(session->selected_count + 1, sizeof(*lb->pool));
	lb->pool_count = 0;
	for (i = 0; lb->pool && i < session->selected_count; i++) {
		if (spec_lists(lb->options.spec, "boards", session->selected[i]->name))
			lb->pool[lb->pool_count++] = session->selected[i];
	}
	lb->workload = job_find_workload(session->job, spec_string(lb->options.spec, "workload"));
	snprintf(lb->answer.symptom, sizeof(lb->answer.symptom), "%s",
		 spec_string(lb->options.spec, "symptom"));
	snprintf(lb->answer.workload, sizeof(lb->answer.workload), "%s",
		 lb->workload ? lb->workload->name : "");
}

static void count_stored_runs(struct lab_bisect *lb, const char *role)
{
	struct store_run_list list;
	char **roles = NULL;
	size_t i;

	if (store_bisection_runs(lb->options.session->store, lb->options.bisection_id, &list,
				 &roles) != 0)
		return;
	for (i = 0; i < list.count; i++) {
		if (!role || strcmp(roles[i], role) == 0)
			count_run(lb, &list.runs[i]);
	}
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);
}

static void pool_names(const struct lab_bisect *lb, char *out, size_t len)
{
	size_t i, used = 0;

	out[0] = '\0';
	for (i = 0; i < lb->pool_count && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? "," : "", lb->pool[i]->name);
}

/* Only the bad end's runs decide (on resume, some are from before the stop). */
static void keep_bad_end_runs(struct store_run_list *list, char **roles)
{
	size_t i, kept = 0;

	for (i = 0; i < list->count; i++) {
		if (strcmp(roles[i], "bad-end") != 0)
			store_run_release(&list->runs[i]);
		else
			list->runs[kept++] = list->runs[i];
	}
	list->count = kept;
}

static void bad_end_done(struct lab_bisect *lb)
{
	struct store_run_list list;
	char **roles = NULL;
	char names[512];
	size_t role_count;
	bool chosen;

	if (store_bisection_runs(lb->options.session->store, lb->options.bisection_id, &list,
				 &roles) != 0) {
		stop_with(lb, "cannot read the bisection's runs: %s",
			  store_error_message(lb->options.session->store));
		return;
	}
	role_count = list.count;
	keep_bad_end_runs(&list, roles);
	store_bisection_roles_free(roles, role_count);
	chosen = choose_symptom(lb, &list);
	if (!chosen && lb->bad_end_rounds >= BAD_END_ROUNDS) {
		lb->answer.state = BISECT_NO_REGRESSION;
		snprintf(lb->answer.reason, sizeof(lb->answer.reason),
			 "the bad end %.12s showed %s in none of %zu runs: no regression to bisect",
			 lb->options.graph->ids[lb->options.graph->bad_index],
			 spec_string(lb->options.spec, "symptom") ? spec_string(lb->options.spec, "symptom")
			 : "any symptom", list.count);
		set_step(lb, STEP_DONE);
	}
	store_run_list_release(&list);
	if (!chosen)
		return;	/* the bad end again, or done */
	make_pool(lb);
	count_stored_runs(lb, "bad-end");
	pool_names(lb, names, sizeof(names));
	progress(lb, "bad end shows %s in %s on %zu boards (%s)", lb->answer.symptom,
		 lb->answer.workload, lb->pool_count, names);
	set_step(lb, STEP_GOOD_ENDS);
}

/* ---- step 2: the good ends ------------------------------------------------------------------ */

static void start_good_ends(struct lab_bisect *lb)
{
	json_t *goods = json_object_get(lb->options.spec, "goods");
	size_t good_count = json_array_size(goods), i;

	lab_round_clear(&lb->round);
	for (i = 0; i < good_count; i++)
		lab_round_add(&lb->round, json_string_value(json_array_get(goods, i)), lb->workload, 1);
	/* every board runs a good end; with several goods, round-robin */
	for (i = 0; i < lb->pool_count && lb->round.group_count; i++) {
		struct lab_round_group *group = &lb->round.groups[i % lb->round.group_count];

		group->boards[group->board_count++] = lb->pool[i];
	}
	for (i = 0; i < lb->round.group_count; i++) {
		if (lb->round.groups[i].board_count == 0)	/* more goods than boards */
			lb->round.groups[i].boards[lb->round.groups[i].board_count++] = lb->pool[i % lb->pool_count];
	}
	progress(lb, "checking %zu good end%s on %zu boards: %s must not show", good_count,
		 good_count == 1 ? "" : "s", lb->pool_count, lb->answer.symptom);
	round_launch(lb);
}

static void good_ends_done(struct lab_bisect *lb, const struct store_run_list *list)
{
	size_t i, evidence = 0;

	for (i = 0; i < list->count; i++) {
		const struct store_run *run = &list->runs[i];
		enum lab_bisect_evidence kind = lab_bisect_evidence_of(run, lb->options.spec, NULL);

		/* a FAIL here is evidence like any other: a test that fails now and
		 * then on good kernels does that at the good end too, and the engine
		 * weighs "false failure" against "the good end is bad" */
		if (kind == LAB_BISECT_EVIDENCE_SKIP) {
			stop_with(lb, "the good end %.12s did not build or boot (run %" PRId64 "): a good "
				  "end must run", run->commit, run->id);
			return;
		}
		evidence += kind == LAB_BISECT_EVIDENCE_PASS || kind == LAB_BISECT_EVIDENCE_FAIL;
		count_run(lb, run);
	}
	if (!evidence) {
		stop_with(lb, "no run of the good ends finished (lab trouble): see `rackbisect runs`");
		return;
	}
	set_step(lb, STEP_BISECT);
}

/* ---- step 3-4: rounds and confirmation -------------------------------------------------------- */

static struct board **online_pool(struct lab_bisect *lb, size_t *count)
{
	struct board **online = calloc(lb->pool_count + 1, sizeof(*online));
	size_t i;

	*count = 0;
	for (i = 0; online && i < lb->pool_count; i++) {
		if (!lb->pool[i]->offline)
			online[(*count)++] = lb->pool[i];
	}
	return online;
}

/* The commit a proposal names: a candidate, or BISECT_GOOD_END, the first
 * good end (the one the engine's "good end" runs go to). */
static const char *proposal_ref(const struct lab_bisect *lb, size_t proposal)
{
	if (proposal == BISECT_GOOD_END)
		return json_string_value(json_array_get(json_object_get(lb->options.spec, "goods"), 0));
	return lb->options.graph->ids[proposal];
}

/* Proposals (graph indexes, repeats adjacent) onto the online boards, one each. */
static void launch_proposals(struct lab_bisect *lb, const size_t *proposals, size_t count,
			     struct board **boards)
{
	size_t i;

	/* stored, so that a resumed bisection goes on counting */
	json_object_set_new(lb->options.spec, "rounds", json_integer(lb->answer.rounds));
	save_spec(lb);
	lab_round_clear(&lb->round);
	for (i = 0; i < count; i++) {
		const char *ref = proposal_ref(lb, proposals[i]);
		struct lab_round_group *group = lab_round_find(&lb->round, ref);

		if (!group)
			group = lab_round_add(&lb->round, ref, lb->workload, 1);
		if (group)
			group->boards[group->board_count++] = boards[i];
	}
	round_launch(lb);
}

/* Passes the revert needs: a commit failing at the learned rate p would
 * fail at least once in n runs with the confidence (p taken as at least
 * 0.05, so that a revert check stays a check, not a bisection). */
static unsigned int revert_passes_needed(double fail_rate, double confidence)
{
	double p = fail_rate < 0.05 ? 0.05 : fail_rate > 0.999 ? 0.999 : fail_rate;
	double n = ceil(log(1 - confidence) / log(1 - p));

	return n < 1 ? 1 : (unsigned int)n;
}

static void describe_confirmation(struct lab_bisect *lb, const struct bisect_status *status)
{
	const struct commit_graph *graph = lb->options.graph;
	const struct bisect_commit *culprit = &graph->commits[status->best];
	size_t used, i;

	used = (size_t)snprintf(lb->answer.confirmation, sizeof(lb->answer.confirmation),
				"%.12s failed with %s in %u run%s", graph->ids[status->best],
				lb->answer.symptom, lb->fails[status->best],
				lb->fails[status->best] == 1 ? "" : "s");
	for (i = 0; i < culprit->parent_count && used < sizeof(lb->answer.confirmation); i++) {
		size_t parent = culprit->parents[i];

		used += (size_t)snprintf(lb->answer.confirmation + used,
					 sizeof(lb->answer.confirmation) - used,
					 "; parent %.12s passed %u of %u", graph->ids[parent],
					 lb->passes[parent], lb->passes[parent] + lb->fails[parent]);
	}
	if (culprit->parent_count == 0 && used < sizeof(lb->answer.confirmation))
		snprintf(lb->answer.confirmation + used, sizeof(lb->answer.confirmation) - used,
			 "; its parent is the good end %.12s, which passed %u of %u",
			 proposal_ref(lb, BISECT_GOOD_END), lb->good_end_passes,
			 lb->good_end_passes + lb->good_end_fails);
}

/*
 * Boards go only to commits known to build: a proposal never built is built
 * first (as a build ahead), and one that does not build becomes its SKIP at
 * once, so the engine proposes another before any board is given out. A
 * stable queue can hold long stretches of commits that do not build; without
 * this a round would spend its boards on SKIPs and most of them would idle.
 * True when the round waits (prebuild_ended() asks for it again). A build
 * that cannot start (no free slot) is not waited for: its commit takes its
 * round as before.
 */
static bool prebuild(struct lab_bisect *lb, const size_t *proposals, size_t count)
{
	const struct commit_graph *graph = lb->options.graph;
	struct speculative_build *ahead;
	bool waiting = false;
	size_t i;

	/* each wait ends with a build ended (built, or its SKIP stored), so the
	 * waits are bounded by the commits; this bound only guards against a bug */
	if (lb->prebuild_waits >= 4 * graph->count + 16)
		return false;
	for (i = 0; i < count; i++) {
		size_t p = proposals[i];

		if (p == BISECT_GOOD_END)	/* built and run in step 2 */
			continue;
		/* still building, or found not to build with its SKIP not stored yet */
		if ((ahead = find_ahead(lb, graph->ids[p])) != NULL) {
			needed_now(ahead);
			waiting = true;
			continue;
		}
		/* known either way: a commit that does not build is proposed
		 * again only when little else is left, and then takes its round */
		if (lb->builds[p] != 0 || lb->passes[p] + lb->fails[p] > 0)
			continue;
		build_ahead(lb, graph->ids[p], false);
		waiting |= find_ahead(lb, graph->ids[p]) != NULL;
	}
	lb->prebuilding = waiting;
	lb->prebuild_waits += waiting;
	return waiting;
}

/* A commit is taken not to boot once it failed to on this many boards
 * (and never built at all: a build failure is the commit's own). */
#define BOOT_FAILURE_BOARDS 3

/* The boards a commit failed to boot on, up to BOOT_FAILURE_BOARDS; -1 when
 * it failed to build (a SKIP that never reached a board). */
static int boot_failure_boards(const struct store_run_list *list, const char *commit,
			       const char *boards[BOOT_FAILURE_BOARDS])
{
	int count = 0, known;
	size_t i;

	for (i = 0; i < list->count; i++) {
		const struct store_run *run = &list->runs[i];

		if (run->outcome != RUN_SKIP || strcmp(run->commit, commit) != 0)
			continue;
		if (!run->board)
			return -1;
		for (known = 0; known < count && strcmp(boards[known], run->board) != 0; known++)
			;
		if (known == count && count < BOOT_FAILURE_BOARDS)
			boards[count++] = run->board;
	}
	return count;
}

static bool among(const char *const *names, int count, const char *name)
{
	while (count-- > 0)
		if (strcmp(names[count], name) == 0)
			return true;
	return false;
}

/*
 * Only skipped commits are left. Those that failed to boot on fewer than
 * BOOT_FAILURE_BOARDS boards are tried again, each on a board it has not
 * failed on, before the bisection gives up on them: git's skip is for
 * commits that never build; a lab's boot failure may be the board's (a
 * hang during boot). Fills proposals and puts the boards for them first in
 * `online`; returns how many.
 */
static size_t boot_skips_to_retry(struct lab_bisect *lb, const struct bisect_status *status,
				  size_t *proposals, struct board **online, size_t online_count)
{
	const struct commit_graph *graph = lb->options.graph;
	struct store_run_list list;
	char **roles = NULL;
	size_t i, b, count = 0;

	if (store_bisection_runs(lb->options.session->store, lb->options.bisection_id, &list,
				 &roles) != 0)
		return 0;
	for (i = 0; i < status->undecided_count && count < online_count; i++) {
		size_t commit = status->undecided[i];
		const char *failed_on[BOOT_FAILURE_BOARDS];
		int failures = boot_failure_boards(&list, graph->ids[commit], failed_on);

		if (failures <= 0 || failures >= BOOT_FAILURE_BOARDS)
			continue;
		for (b = count; b < online_count && among(failed_on, failures, online[b]->name); b++)
			;
		if (b == online_count)
			continue;
		struct board *chosen = online[b];

		online[b] = online[count];
		online[count] = chosen;
		proposals[count++] = commit;
	}
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);
	return count;
}

/* The engine decided the ends do not bracket a regression: said, and stopped. */
static void stop_on_ends(struct lab_bisect *lb, const struct bisect_status *status)
{
	if (status->state == BISECT_GOOD_END_BAD)
		stop_with(lb, "the good end %.12s shows %s too (%u of %u runs failed; probability "
			  "%.4f that it is bad): these ends do not bracket a regression of it; give "
			  "an older --good or another --symptom", proposal_ref(lb, BISECT_GOOD_END),
			  lb->answer.symptom, lb->good_end_fails, lb->good_end_passes + lb->good_end_fails,
			  status->good_end_bad_probability);
	else
		snprintf(lb->answer.reason, sizeof(lb->answer.reason),
			 "the failures of %s were false ones (probability %.4f): no regression",
			 lb->answer.symptom, status->no_regression_probability);
}

/*
 * One round: the engine's proposals (confirmation runs first, while it
 * confirms its answer) on the online boards; or the answer.
 */
static void bisect_round(struct lab_bisect *lb)
{
	const struct commit_graph *graph = lb->options.graph;
	struct bisect_status status;
	size_t online_count, count = 0;
	struct board **online = online_pool(lb, &online_count);
	size_t *proposals = calloc(lb->pool_count + 1, sizeof(*proposals));

	bisect_status(lb->engine, &status);
	lb->confirming = status.confirming;
	if (!online || !proposals) {
		stop_with(lb, "out of memory");
	} else if (online_count == 0) {
		stop_with(lb, "no board that reproduces %s is online: see `rackbisect runs` and the "
			  "boards' health checks", lb->answer.symptom);
	} else if (status.state == BISECT_FOUND) {
		describe_confirmation(lb, &status);
		set_step(lb, json_is_true(json_object_get(lb->options.spec, "revert_check"))
			 ? STEP_REVERT : STEP_DONE);
	} else if (status.state == BISECT_GOOD_END_BAD || status.state == BISECT_NO_REGRESSION) {
		stop_on_ends(lb, &status);
		set_step(lb, STEP_DONE);
	} else if (status.state == BISECT_RUNNING &&
		   bisect_next(lb->engine, online_count, proposals, &count) == 0 && count &&
		   prebuild(lb, proposals, count)) {
		/* prebuild_ended() comes back here */
	} else if (status.state == BISECT_RUNNING && count) {
		lb->prebuild_waits = 0;
		lb->answer.rounds++;
		if (status.confirming)
			progress(lb, "round %u: confirming %.12s (probability %.4f): %zu run%s",
				 lb->answer.rounds, graph->ids[status.best], status.best_probability,
				 count, count == 1 ? "" : "s");
		else
			progress(lb, "round %u: %zu candidates left, best %.12s at %.4f, %u runs so far "
				 "(p estimate %.2f, eps estimate %.3f); testing %zu", lb->answer.rounds,
				 status.candidates_left, graph->ids[status.best], status.best_probability,
				 lb->answer.runs, status.fail_rate_estimate,
				 status.fail_rate_when_good_estimate, count);
		launch_proposals(lb, proposals, count, online);
	} else if (status.state == BISECT_ONLY_SKIPPED_LEFT &&
		   (count = boot_skips_to_retry(lb, &status, proposals, online, online_count)) > 0) {
		lb->confirming = false;
		lb->answer.rounds++;
		progress(lb, "round %u: only skipped commits left; %zu failed to boot on fewer than "
			 "%d boards: trying again on another", lb->answer.rounds, count,
			 BOOT_FAILURE_BOARDS);
		launch_proposals(lb, proposals, count, online);
	} else {
		set_step(lb, STEP_DONE);
	}
	free(online);
	free(proposals);
	if (!lab_round_running(&lb->round) && !lb->finished && (lb->aborting || lb->step != STEP_BISECT))
		next_step(lb);
}

/* ---- step 5: the revert -------------------------------------------------------------------- */

/* The culprit reverted on top of bad, as a commit of the tree (made in a
 * worktree of our own, so the user's checkout is untouched). */
static int make_revert(struct lab_bisect *lb, const char *culprit, char *error, size_t len)
{
	const char *tree = lb->round.tree;
	const char *bad = lb->options.graph->ids[lb->options.graph->bad_index];
	char work[PATH_MAX], *output = NULL;
	int rc;

	/* per bisection: a nightly runs several in one process */
	snprintf(work, sizeof(work), "/tmp/.rackbisect-revert-%d-%" PRId64, (int)getpid(),
		 lb->options.bisection_id);
	{
		char *add[] = { "git", "-C", (char *)tree, "worktree", "add", "--detach", "--quiet",
				work, (char *)bad, NULL };
		char *revert[] = { "git", "-C", work, "-c", "user.name=rackbisect",
				   "-c", "user.email=rackbisect@localhost", "revert", "--no-edit",
				   (char *)culprit, NULL };
		char *head[] = { "git", "-C", work, "rev-parse", "HEAD", NULL };
		char *remove[] = { "git", "-C", (char *)tree, "worktree", "remove", "--force", work,
				   NULL };

		rc = subprocess_run(add, NULL, NULL);
		if (rc == 0 && (rc = subprocess_run(revert, NULL, &output)) != 0)
			snprintf(error, len, "%.12s does not revert cleanly on top of %.12s: %s", culprit,
				 bad, output ? output : "");
		free(output);
		output = NULL;
		if (rc == 0 && subprocess_run(head, NULL, &output) == 0 && output) {
			snprintf(lb->revert_commit, sizeof(lb->revert_commit), "%.40s", output);
		} else if (rc == 0) {
			snprintf(error, len, "cannot read the revert commit");
			rc = -EIO;
		}
		free(output);
		subprocess_run(remove, NULL, NULL);
	}
	return rc;
}

static void start_revert(struct lab_bisect *lb)
{
	struct bisect_status status;
	struct lab_round_group *group;
	char error[512] = "";
	size_t online_count, i;
	struct board **online = online_pool(lb, &online_count);

	bisect_status(lb->engine, &status);
	lb->revert_needed = revert_passes_needed(status.fail_rate_estimate,
						 lb->engine_options.confidence);
	if (make_revert(lb, lb->options.graph->ids[status.best], error, sizeof(error)) != 0 ||
	    !online || online_count == 0) {
		snprintf(lb->answer.revert, sizeof(lb->answer.revert), "not checked: %s",
			 error[0] ? error : "no board online");
		free(online);
		set_step(lb, STEP_DONE);
		next_step(lb);
		return;
	}
	lab_round_clear(&lb->round);
	group = lab_round_add(&lb->round, lb->revert_commit, lb->workload,
			  (unsigned int)((lb->revert_needed + online_count - 1) / online_count));
	for (i = 0; group && i < online_count; i++)
		group->boards[group->board_count++] = online[i];
	free(online);
	progress(lb, "revert check: %.12s reverted on top of bad (%.12s), %zu runs",
		 lb->options.graph->ids[status.best], lb->revert_commit,
		 group ? group->repeat * group->board_count : 0);
	round_launch(lb);
}

static void revert_done(struct lab_bisect *lb, const struct store_run_list *list)
{
	size_t i;
	int64_t failed_run = 0;

	for (i = 0; i < list->count; i++) {
		enum lab_bisect_evidence kind = lab_bisect_evidence_of(&list->runs[i], lb->options.spec,
								       NULL);

		lb->revert_passes += kind == LAB_BISECT_EVIDENCE_PASS;
		if (kind == LAB_BISECT_EVIDENCE_FAIL) {
			lb->revert_fails++;
			failed_run = list->runs[i].id;
		}
	}
	lb->answer.revert_failed = lb->revert_fails > 0;
	if (lb->revert_fails)
		snprintf(lb->answer.revert, sizeof(lb->answer.revert),
			 "the revert (%.12s) still fails with %s (run %" PRId64 "): the culprit is not "
			 "the whole story", lb->revert_commit, lb->answer.symptom, failed_run);
	else
		snprintf(lb->answer.revert, sizeof(lb->answer.revert),
			 "the revert (%.12s) passes %u of %u runs", lb->revert_commit, lb->revert_passes,
			 lb->revert_passes);
	set_step(lb, STEP_DONE);
}

/* ---- the steps ---------------------------------------------------------------------------- */

static void process_round(struct lab_bisect *lb)
{
	struct store_run_list list;
	size_t i;

	if (lb->aborting || lb->step == STEP_BAD_END) {
		if (!lb->aborting)
			bad_end_done(lb);
		next_step(lb);
		return;
	}
	if (lab_round_runs(&lb->round, &list) != 0) {
		stop_with(lb, "out of memory");
		next_step(lb);
		return;
	}
	if (lb->step == STEP_GOOD_ENDS) {
		good_ends_done(lb, &list);
	} else if (lb->step == STEP_REVERT) {
		revert_done(lb, &list);
	} else {
		unsigned int before = lb->answer.evidence_runs;

		for (i = 0; i < list.count; i++) {
			count_run(lb, &list.runs[i]);
			lb->answer.skips_in_rounds += list.runs[i].outcome == RUN_SKIP;
		}
		/* INFRA or other symptoms only: the same proposals would come back */
		lb->rounds_without_evidence = lb->answer.evidence_runs == before
			? lb->rounds_without_evidence + 1 : 0;
		if (lb->rounds_without_evidence >= MAX_ROUNDS_WITHOUT_EVIDENCE)
			stop_with(lb, "%u rounds in a row gave no evidence (lab trouble, or failures "
				  "with another symptom than %s): see `rackbisect bisect log`",
				  lb->rounds_without_evidence, lb->answer.symptom);
	}
	store_run_list_release(&list);
	next_step(lb);
}

static void fill_answer(struct lab_bisect *lb)
{
	struct bisect_status status;

	bisect_status(lb->engine, &status);
	if (lb->aborting) {
		lb->answer.state = BISECT_RUNNING;
		return;
	}
	if (lb->answer.state == BISECT_NO_REGRESSION)
		return;
	lb->answer.state = status.state;
	lb->answer.culprit = status.best;
	lb->answer.probability = status.best_probability;
	lb->answer.fail_rate_estimate = status.fail_rate_estimate;
	if (status.state == BISECT_ONLY_SKIPPED_LEFT && status.undecided_count) {
		lb->answer.undecided = calloc(status.undecided_count, sizeof(size_t));
		if (lb->answer.undecided) {
			memcpy(lb->answer.undecided, status.undecided,
			       status.undecided_count * sizeof(size_t));
			lb->answer.undecided_count = status.undecided_count;
		}
	}
}

static void finish(struct lab_bisect *lb)
{
	json_t *answer;
	char *text;

	if (lb->finished)
		return;
	lb->finished = true;
	cancel_speculative_builds(lb);
	fill_answer(lb);
	answer = lab_bisect_answer_json(lb);
	text = json_dumps(answer, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text || store_bisection_finish(lb->options.session->store, lb->options.bisection_id,
					    lb->aborting ? STORE_BISECTION_ABORTED
					    : STORE_BISECTION_DONE, text) != 0)
		log_event(&lb->options.session->log, LOG_NOTICE, NULL, 0, "store-error",
			  "cannot store the bisection's answer: %s",
			  store_error_message(lb->options.session->store));
	free(text);
	json_decref(answer);
	lb->done(lb, lb->data);
}

static void next_step(struct lab_bisect *lb)
{
	if (lb->finished)
		return;
	if (lb->aborting) {
		finish(lb);
		return;
	}
	switch (lb->step) {
	case STEP_BAD_END:
		start_bad_end(lb);
		break;
	case STEP_GOOD_ENDS:
		start_good_ends(lb);
		break;
	case STEP_BISECT:
		bisect_round(lb);
		break;
	case STEP_REVERT:
		start_revert(lb);
		break;
	case STEP_DONE:
		finish(lb);
		break;
	}
}

/* ---- the interface -------------------------------------------------------------------------- */

static const char *role_of(const struct lab_bisect *lb)
{
	switch (lb->step) {
	case STEP_BAD_END:
		return "bad-end";
	case STEP_GOOD_ENDS:
		return "good-end";
	case STEP_REVERT:
		return "revert";
	default:
		return lb->confirming ? "confirm" : "candidate";
	}
}

/* Linked before the run starts: after a crash, every finished run of the
 * bisection is found and replayed, none repeated. */
static void on_run_queued(int64_t run_id, const struct run_spec *spec, void *data)
{
	struct lab_bisect *lb = data;

	(void)spec;
	lb->answer.runs++;
	if (store_bisection_add_run(lb->options.session->store, lb->options.bisection_id, run_id,
				    role_of(lb)) != 0)
		log_event(&lb->options.session->log, LOG_NOTICE, NULL, run_id, "store-error",
			  "cannot link the run to bisection %" PRId64 ": %s", lb->options.bisection_id,
			  store_error_message(lb->options.session->store));
}

/* Resume: every finished run counted again, in order, as it was live. */
static void resume(struct lab_bisect *lb)
{
	struct store_run_list list;
	char **roles = NULL;

	if (store_bisection_runs(lb->options.session->store, lb->options.bisection_id, &list,
				 &roles) == 0) {
		lb->answer.runs = (unsigned int)list.count;
		store_bisection_roles_free(roles, list.count);
		store_run_list_release(&list);
	}
	lb->answer.rounds = (unsigned int)json_integer_value(json_object_get(lb->options.spec, "rounds"));
	if (lb->step == STEP_BAD_END)
		return;	/* step 1 is decided from the stored runs when it ends */
	make_pool(lb);
	count_stored_runs(lb, NULL);
	progress(lb, "resumed: %u runs stored, %u of them evidence; step %s", lb->answer.runs,
		 lb->answer.evidence_runs, step_names[lb->step]);
}

int lab_bisect_start(const struct lab_bisect_options *options, lab_bisect_done_cb done, void *data,
		     struct lab_bisect **out)
{
	const struct commit_graph *graph = options->graph;
	struct lab_bisect *lb = calloc(1, sizeof(*lb));
	int rc;

	if (!lb)
		return -ENOMEM;
	lb->options = *options;
	lb->done = done;
	lb->data = data;
	engine_options_of(options->spec, &lb->engine_options);
	lb->passes = calloc(graph->count, sizeof(*lb->passes));
	lb->fails = calloc(graph->count, sizeof(*lb->fails));
	lb->builds = calloc(graph->count, sizeof(*lb->builds));
	rc = lb->passes && lb->fails && lb->builds ? bisect_new(graph->commits, graph->count, graph->bad_index,
						  &lb->engine_options, &lb->engine) : -ENOMEM;
	if (rc) {
		lab_bisect_free(lb);
		return rc;
	}
	lab_round_init(&lb->round, options->session, options->tree, &(struct lab_round_hooks){
		.built = on_round_built, .trouble = on_round_trouble, .done = on_round_done,
		.run_queued = on_run_queued, .data = lb });
	lb->step = options->resume ? step_of(options->spec) : STEP_BAD_END;
	if (options->resume)
		resume(lb);
	*out = lb;
	next_step(lb);
	return 0;
}

const struct lab_bisect_answer *lab_bisect_answer(const struct lab_bisect *lb)
{
	return &lb->answer;
}

json_t *lab_bisect_answer_json(const struct lab_bisect *lb)
{
	const struct lab_bisect_answer *answer = &lb->answer;
	const struct commit_graph *graph = lb->options.graph;
	json_t *root = json_object(), *undecided = json_array();
	bool has_culprit = answer->state == BISECT_FOUND || answer->state == BISECT_BUDGET_SPENT;
	size_t i;

	json_object_set_new(root, "state", json_string(lb->aborting ? "ABORTED"
						       : bisect_state_name(answer->state)));
	json_object_set_new(root, "culprit", has_culprit ? json_string(graph->ids[answer->culprit])
			    : json_null());
	json_object_set_new(root, "probability", json_real(has_culprit ? answer->probability : 0));
	json_object_set_new(root, "fail_rate_estimate", json_real(answer->fail_rate_estimate));
	json_object_set_new(root, "runs", json_integer(answer->runs));
	json_object_set_new(root, "evidence_runs", json_integer(answer->evidence_runs));
	json_object_set_new(root, "rounds", json_integer(answer->rounds));
	json_object_set_new(root, "built_ahead", json_integer(answer->built_ahead));
	json_object_set_new(root, "built_ahead_used", json_integer(answer->built_ahead_used));
	json_object_set_new(root, "skips_found_ahead", json_integer(answer->skips_found_ahead));
	json_object_set_new(root, "skips_in_rounds", json_integer(answer->skips_in_rounds));
	json_object_set_new(root, "symptom", json_string(answer->symptom));
	json_object_set_new(root, "workload", json_string(answer->workload));
	json_object_set_new(root, "reason", json_string(answer->reason));
	json_object_set_new(root, "confirmation", json_string(answer->confirmation));
	json_object_set_new(root, "revert", json_string(answer->revert));
	for (i = 0; i < answer->undecided_count; i++)
		json_array_append_new(undecided, json_string(graph->ids[answer->undecided[i]]));
	json_object_set_new(root, "undecided", undecided);
	return root;
}

void lab_bisect_free(struct lab_bisect *lb)
{
	size_t i;

	if (!lb)
		return;
	for (i = 0; i < MAX_SPECULATIVE_BUILDS; i++) {
		if (lb->speculative[i])	/* cancelled by finish(); its callback comes later */
			lb->speculative[i]->owner = NULL;
	}
	lab_round_clear(&lb->round);
	bisect_free(lb->engine);
	free(lb->pool);
	free(lb->passes);
	free(lb->fails);
	free(lb->builds);
	free(lb->records);
	free(lb->built_ahead);
	free(lb->answer.undecided);
	free(lb);
}
