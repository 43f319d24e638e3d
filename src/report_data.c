/* report_data.c - a run, a gate or a bisection read once from the store, for the report writers. */
#include "report_data.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commit_graph.h"
#include "lab_bisect.h"
#include "path.h"
#include "report_nights.h"
#include "run.h"

const char *const report_run_file_names[REPORT_RUN_FILE_COUNT] = {
	"verdict.txt", "output.ktap", "workload.stderr", "workload.exit", "dmesg.log", "console.log",
};

enum { GATE_LIST, BISECTION_LIST };	/* data->lists[] */

const char *report_outcome_name(enum run_outcome outcome)
{
	static const char *const names[RUN_OUTCOME_COUNT] = { "-", "PASS", "FAIL", "INFRA", "SKIP" };

	return (unsigned int)outcome < RUN_OUTCOME_COUNT ? names[outcome] : "?";
}

size_t report_utf8_length(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t length, i;
	uint32_t code;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		length = 2, code = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		length = 3, code = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		length = 4, code = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < length; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		code = code << 6 | (s[i] & 0x3f);
	}
	if ((length == 3 && code < 0x800) || (length == 4 && (code < 0x10000 || code > 0x10ffff)) ||
	    (code >= 0xd800 && code <= 0xdfff))
		return 0;
	return length;
}

const char *report_run_role(const struct report_run *run)
{
	return run->role ? run->role : run->bisection_role ? run->bisection_role : "run";
}

static void say(char *error, size_t error_len, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *error, size_t error_len, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(error, error_len, format, args);
	va_end(args);
}

static char *dup_or_null(const char *text)
{
	return text ? strdup(text) : NULL;
}

char *report_json_text(const json_t *object, const char *key)
{
	return dup_or_null(json_string_value(json_object_get(object, key)));
}

unsigned int report_json_count(const json_t *object, const char *key)
{
	json_int_t value = json_integer_value(json_object_get(object, key));

	return value > 0 ? (unsigned int)value : 0;
}

void report_json_counts(const json_t *counts, unsigned int *by_outcome)
{
	by_outcome[RUN_PASS] = report_json_count(counts, "pass");
	by_outcome[RUN_FAIL] = report_json_count(counts, "fail");
	by_outcome[RUN_SKIP] = report_json_count(counts, "skip");
	by_outcome[RUN_INFRA] = report_json_count(counts, "infra");
}

static const char *stored_state_word(int state)
{
	/* gates and bisections share these numbers (store.h) */
	return state == STORE_BISECTION_DONE ? "done" : state == STORE_BISECTION_ABORTED ? "stopped"
		: "running";
}

static bool is_directory(const char *path)
{
	struct stat info;

	return path && stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

/* ---- commits and builds ------------------------------------------------------------------ */

static int add_commit(struct report_data *data, const char *id, const char *ref)
{
	struct report_commit *grown;
	size_t i;

	if (!id || !*id)
		return 0;
	for (i = 0; i < data->commit_count; i++) {
		if (strcmp(data->commits[i].id, id) == 0) {
			if (!data->commits[i].ref && ref)
				data->commits[i].ref = strdup(ref);
			return 0;
		}
	}
	grown = realloc(data->commits, (data->commit_count + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	data->commits = grown;
	grown[data->commit_count] = (struct report_commit){ .id = strdup(id), .ref = dup_or_null(ref) };
	if (!grown[data->commit_count].id)
		return -ENOMEM;
	data->commit_count++;
	return 0;
}

const struct report_commit *report_data_commit(const struct report_data *data, const char *id)
{
	size_t i;

	for (i = 0; id && i < data->commit_count; i++) {
		if (strcmp(data->commits[i].id, id) == 0)
			return &data->commits[i];
	}
	return NULL;
}

const struct store_build *report_data_build(const struct report_data *data, int64_t id)
{
	size_t i;

	for (i = 0; i < data->build_count; i++) {
		if (data->builds[i].build.id == id)
			return &data->builds[i].build;
	}
	return NULL;
}

/* Every build a run used, and its commit (a build is shared by commits with one tree). */
static int load_builds(struct store *store, struct report_data *data)
{
	size_t i;
	int rc;

	for (i = 0; i < data->run_count; i++) {
		int64_t id = data->runs[i].run->build_id;
		struct report_build *grown;
		struct store_build build;

		if (id <= 0 || report_data_build(data, id))
			continue;
		rc = store_build_get(store, id, &build);
		if (rc == -ENOENT)
			continue;	/* the run names a build the store forgot: the run still counts */
		if (rc)
			return rc;
		grown = realloc(data->builds, (data->build_count + 1) * sizeof(*grown));
		if (!grown) {
			store_build_release(&build);
			return -ENOMEM;
		}
		data->builds = grown;
		grown[data->build_count++].build = build;
		if ((rc = add_commit(data, build.commit, NULL)))
			return rc;
	}
	return 0;
}

/* Subjects from the tree the gate or bisection ran on, when it is still there. */
static void describe_commits(struct report_data *data, const char *tree)
{
	size_t i;

	if (!is_directory(tree))
		return;
	for (i = 0; i < data->commit_count; i++) {
		if (!data->commits[i].description)
			data->commits[i].description = commit_graph_describe(tree, data->commits[i].id);
	}
}

/* ---- runs -------------------------------------------------------------------------------- */

int report_data_run_path(const struct report_data *data, int64_t run_id, const char *name,
			 char *out, size_t len)
{
	char runs[PATH_MAX], dir[PATH_MAX];
	int rc = path_format(runs, sizeof(runs), "%s/runs", data->state_dir);

	if (rc || (rc = run_directory(runs, run_id, dir, sizeof(dir))))
		return rc;
	return name ? path_format(out, len, "%s/%s", dir, name) : path_format(out, len, "%s", dir);
}

static struct report_run *find_run(struct report_data *data, int64_t id)
{
	size_t i;

	for (i = 0; i < data->run_count; i++) {
		if (data->runs[i].run->id == id)
			return &data->runs[i];
	}
	return NULL;
}

/* Adds list `which` to data->runs; a run the gate and its bisection share appears once. */
static int add_runs(struct report_data *data, int which, const char *lone_role)
{
	const struct store_run_list *list = &data->lists[which];
	struct report_run *grown;
	size_t i, f;

	grown = realloc(data->runs, (data->run_count + list->count + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	data->runs = grown;
	for (i = 0; i < list->count; i++) {
		const char *role = lone_role ? lone_role : data->roles[which][i];
		struct report_run *entry = find_run(data, list->runs[i].id);
		char path[PATH_MAX];
		struct stat info;

		if (!entry) {
			entry = &data->runs[data->run_count++];
			*entry = (struct report_run){ .run = &list->runs[i] };
			for (f = 0; f < REPORT_RUN_FILE_COUNT; f++)
				entry->file_kept[f] = report_data_run_path(data, list->runs[i].id,
									   report_run_file_names[f], path,
									   sizeof(path)) == 0 &&
					stat(path, &info) == 0;
		}
		if (which == BISECTION_LIST)
			entry->bisection_role = role;
		else
			entry->role = role;
		if (add_commit(data, list->runs[i].commit, NULL))
			return -ENOMEM;
	}
	return 0;
}

/* ---- gates --------------------------------------------------------------------------------- */

static int parse_cells(struct report_gate *gate, const json_t *cells)
{
	size_t i;

	gate->cells = calloc(json_array_size(cells) + 1, sizeof(*gate->cells));
	if (!gate->cells)
		return -ENOMEM;
	for (i = 0; i < json_array_size(cells); i++) {
		const json_t *item = json_array_get(cells, i);
		struct report_cell *cell = &gate->cells[gate->cell_count++];

		cell->board = report_json_text(item, "board");
		cell->chip = report_json_text(item, "chip");
		cell->workload = report_json_text(item, "workload");
		cell->baseline_symptoms = report_json_text(item, "baseline_symptoms");
		cell->candidate_symptoms = report_json_text(item, "candidate_symptoms");
		report_json_counts(json_object_get(item, "baseline"), cell->baseline);
		report_json_counts(json_object_get(item, "candidate"), cell->candidate);
		if (!cell->board || !cell->workload)
			return -EINVAL;
	}
	return 0;
}

static int parse_regressions(struct report_gate *gate, const json_t *regressions)
{
	size_t i;

	gate->regressions = calloc(json_array_size(regressions) + 1, sizeof(*gate->regressions));
	if (!gate->regressions)
		return -ENOMEM;
	for (i = 0; i < json_array_size(regressions); i++) {
		const json_t *item = json_array_get(regressions, i);
		struct report_regression *regression = &gate->regressions[gate->regression_count++];

		regression->workload = report_json_text(item, "workload");
		regression->symptom = report_json_text(item, "symptom");
		regression->boards = report_json_text(item, "boards");
		regression->known_failing = report_json_text(item, "known_failing");
		regression->candidate_fails = report_json_count(item, "candidate_fails");
		regression->candidate_runs = report_json_count(item, "candidate_runs");
		regression->baseline_passes = report_json_count(item, "baseline_passes");
		regression->passes_needed = report_json_count(item, "passes_needed");
		regression->confirmed = json_is_true(json_object_get(item, "confirmed"));
		regression->example_run = json_integer_value(json_object_get(item, "example_run"));
		if (!regression->workload)
			return -EINVAL;
	}
	return 0;
}

static int parse_gate(struct report_gate *gate, const struct store_gate *stored)
{
	json_t *spec = json_loads(stored->spec, 0, NULL);
	json_t *answer = stored->answer ? json_loads(stored->answer, 0, NULL) : json_object();
	int rc = spec && answer ? 0 : -EINVAL;

	gate->id = stored->id;
	gate->job = strdup(stored->job);
	gate->state = strdup(stored_state_word(stored->state));
	gate->verdict = dup_or_null(stored->verdict);
	gate->created_ms = stored->created_ms;
	gate->finished_ms = stored->finished_ms;
	if (rc == 0) {
		gate->reason = report_json_text(answer, "reason");
		gate->baseline = report_json_text(spec, "baseline");
		gate->candidate = report_json_text(spec, "candidate");
		gate->baseline_ref = report_json_text(spec, "baseline_ref");
		gate->candidate_ref = report_json_text(spec, "candidate_ref");
		gate->tree = report_json_text(spec, "tree");
		gate->night = report_json_text(spec, "night");
		report_json_counts(json_object_get(answer, "baseline"), gate->baseline_runs);
		report_json_counts(json_object_get(answer, "candidate"), gate->candidate_runs);
		rc = parse_cells(gate, json_object_get(answer, "cells"));
	}
	if (rc == 0)
		rc = parse_regressions(gate, json_object_get(answer, "regressions"));
	json_decref(spec);
	json_decref(answer);
	return rc;
}

static void free_gate(struct report_gate *gate)
{
	size_t i;

	if (!gate)
		return;
	for (i = 0; i < gate->cell_count; i++) {
		struct report_cell *cell = &gate->cells[i];

		free(cell->board), free(cell->chip), free(cell->workload);
		free(cell->baseline_symptoms), free(cell->candidate_symptoms);
	}
	for (i = 0; i < gate->regression_count; i++) {
		struct report_regression *regression = &gate->regressions[i];

		free(regression->workload), free(regression->symptom);
		free(regression->boards), free(regression->known_failing);
	}
	free(gate->cells), free(gate->regressions);
	free(gate->job), free(gate->state), free(gate->verdict), free(gate->reason);
	free(gate->baseline), free(gate->candidate), free(gate->baseline_ref), free(gate->candidate_ref);
	free(gate->tree), free(gate->night);
	free(gate);
}

static int load_gate(struct store *store, struct report_data *data, const struct store_gate *stored,
		     char *error, size_t error_len)
{
	int rc;

	if (!(data->gate = calloc(1, sizeof(*data->gate))))
		return -ENOMEM;
	if ((rc = parse_gate(data->gate, stored)) != 0) {
		if (rc == -EINVAL)
			say(error, error_len, "gate %" PRId64 ": its stored question or answer is damaged "
			    "(not the JSON `rackbisect gate` writes)", stored->id);
		return rc;
	}
	if ((rc = store_gate_runs(store, stored->id, &data->lists[GATE_LIST], &data->roles[GATE_LIST])))
		return rc;
	if ((rc = add_commit(data, data->gate->baseline, data->gate->baseline_ref)) ||
	    (rc = add_commit(data, data->gate->candidate, data->gate->candidate_ref)))
		return rc;
	return add_runs(data, GATE_LIST, NULL);
}

/* ---- bisections ------------------------------------------------------------------------------ */

struct replay_context {
	struct report_data *data;
	const struct commit_graph *graph;
	size_t next;
};

/* The step's most probable candidates, by insertion into a short sorted list. */
static void keep_top_candidates(struct report_step *step, const struct bisect *engine,
				const struct commit_graph *graph)
{
	size_t commit, at;

	step->top_count = 0;
	for (commit = 0; commit < graph->count; commit++) {
		double probability = bisect_probability(engine, commit);

		if (probability <= 0 || (step->top_count == REPORT_TOP_CANDIDATES &&
					 probability <= step->top[REPORT_TOP_CANDIDATES - 1].probability))
			continue;
		at = step->top_count < REPORT_TOP_CANDIDATES ? step->top_count++ : REPORT_TOP_CANDIDATES - 1;
		for (; at > 0 && step->top[at - 1].probability < probability; at--)
			step->top[at] = step->top[at - 1];
		snprintf(step->top[at].id, sizeof(step->top[at].id), "%s", graph->ids[commit]);
		step->top[at].probability = probability;
	}
}

static void on_replayed(const struct store_run *run, long counted_at, const struct bisect *engine,
			void *context_pointer)
{
	struct replay_context *context = context_pointer;
	struct report_step *step = &context->data->bisection->steps[context->next++];
	struct bisect_status status;

	(void)run;
	step->counted = counted_at != -2;
	if (bisect_status(engine, &status) != 0)
		return;
	step->has_belief = true;
	snprintf(step->best, sizeof(step->best), "%s", context->graph->ids[status.best]);
	step->best_probability = status.best_probability;
	step->candidates_left = status.candidates_left;
	step->beyond_candidates = status.no_regression_probability + status.good_end_bad_probability;
	keep_top_candidates(step, engine, context->graph);
}

struct ranked_commit {
	struct report_commit commit;
	size_t rank, original;
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked_commit *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->original < y->original ? -1 : x->original > y->original;
}

/* Oldest first as the history has them (the good ends, then the candidates
 * from the oldest), the commits outside it (a revert) last: plots per commit
 * then read left to right as the history goes. */
static void order_commits_by_history(struct report_data *data, const struct commit_graph *graph,
				     const char *const *goods, size_t good_count)
{
	struct ranked_commit *ranked = calloc(data->commit_count + 1, sizeof(*ranked));
	size_t i, j;

	if (!ranked)
		return;	/* the order first met is still right, just less readable */
	for (i = 0; i < data->commit_count; i++) {
		ranked[i] = (struct ranked_commit){ data->commits[i], graph->count + 2, i };
		for (j = 0; j < good_count; j++) {
			if (goods[j] && strcmp(goods[j], data->commits[i].id) == 0)
				ranked[i].rank = 0;
		}
		for (j = 0; j < graph->count; j++) {
			if (strcmp(graph->ids[j], data->commits[i].id) == 0)
				ranked[i].rank = graph->count - j;	/* ids are newest first */
		}
	}
	qsort(ranked, data->commit_count, sizeof(*ranked), by_rank);
	for (i = 0; i < data->commit_count; i++)
		data->commits[i] = ranked[i].commit;
	free(ranked);
}

/* The belief after each run, replayed as `bisect status` does: needs the tree's history. */
static void replay_path(struct report_data *data, const json_t *spec)
{
	struct report_bisection *bisection = data->bisection;
	const json_t *goods = json_object_get(spec, "goods");
	const char *good_ids[16];
	size_t i, good_count = json_array_size(goods) < 16 ? json_array_size(goods) : 16;
	struct replay_context context = { .data = data };
	struct commit_graph graph = { 0 };
	struct bisect *engine = NULL;
	char error[512];

	for (i = 0; i < good_count; i++)
		good_ids[i] = json_string_value(json_array_get(goods, i));
	if (!is_directory(bisection->tree) || !bisection->bad || !good_count) {
		if (asprintf(&bisection->path_note, "the belief path needs the kernel tree %s, which is "
			     "not there any more", bisection->tree ? bisection->tree : "(none stored)") < 0)
			bisection->path_note = NULL;
		return;
	}
	if (commit_graph_load(bisection->tree, bisection->bad, good_ids, good_count, &graph, error,
			      sizeof(error)) != 0) {
		if (asprintf(&bisection->path_note, "the belief path could not be replayed: %s", error) < 0)
			bisection->path_note = NULL;
		return;
	}
	bisection->candidate_count = graph.count;
	order_commits_by_history(data, &graph, good_ids, good_count);
	context.graph = &graph;
	if (lab_bisect_replay_runs(&data->lists[BISECTION_LIST], spec, &graph, on_replayed, &context,
				   &engine) != 0 &&
	    asprintf(&bisection->path_note, "the belief path stops at run %zu: the engine refused it",
		     context.next + 1) < 0)
		bisection->path_note = NULL;
	bisect_free(engine);
	commit_graph_free(&graph);
}

static int parse_bisection(struct report_bisection *bisection, const struct store_bisection *stored,
			   const json_t *spec, const json_t *answer)
{
	bisection->id = stored->id;
	bisection->job = strdup(stored->job);
	bisection->state = strdup(stored_state_word(stored->state));
	bisection->created_ms = stored->created_at;
	bisection->finished_ms = stored->finished_at;
	bisection->bad = report_json_text(spec, "bad");
	bisection->bad_ref = report_json_text(spec, "bad_ref");
	bisection->good = dup_or_null(json_string_value(json_array_get(json_object_get(spec, "goods"), 0)));
	bisection->good_ref = dup_or_null(json_string_value(json_array_get(json_object_get(spec, "good_refs"), 0)));
	bisection->symptom = report_json_text(spec, "symptom");
	bisection->workload = report_json_text(spec, "workload");
	bisection->tree = report_json_text(spec, "tree");
	bisection->confidence = json_number_value(json_object_get(spec, "confidence"));
	if (bisection->confidence <= 0)
		bisection->confidence = 0.99;	/* the engine's default (bisect_options_init) */
	bisection->outcome = report_json_text(answer, "state");
	bisection->reason = report_json_text(answer, "reason");
	bisection->confirmation = report_json_text(answer, "confirmation");
	bisection->culprit = report_json_text(answer, "culprit");
	bisection->probability = json_number_value(json_object_get(answer, "probability"));
	bisection->fail_rate = json_number_value(json_object_get(answer, "fail_rate_estimate"));
	bisection->runs = report_json_count(answer, "runs");
	bisection->rounds = report_json_count(answer, "rounds");
	return bisection->job && bisection->state ? 0 : -ENOMEM;
}

static void free_bisection(struct report_bisection *bisection)
{
	if (!bisection)
		return;
	free(bisection->job), free(bisection->state), free(bisection->outcome);
	free(bisection->reason), free(bisection->confirmation);
	free(bisection->bad), free(bisection->bad_ref), free(bisection->good), free(bisection->good_ref);
	free(bisection->symptom), free(bisection->workload), free(bisection->tree);
	free(bisection->culprit), free(bisection->steps), free(bisection->path_note);
	free(bisection);
}

/* How each run counted, and the steps in run order. */
static int link_steps(struct report_data *data, const json_t *spec)
{
	const struct store_run_list *list = &data->lists[BISECTION_LIST];
	struct report_bisection *bisection = data->bisection;
	size_t i;

	bisection->steps = calloc(list->count + 1, sizeof(*bisection->steps));
	if (!bisection->steps)
		return -ENOMEM;
	bisection->step_count = list->count;
	for (i = 0; i < list->count; i++) {
		struct report_run *entry = find_run(data, list->runs[i].id);

		entry->evidence = lab_bisect_evidence_name(
			lab_bisect_evidence_of(&list->runs[i], spec, &entry->not_evidence_why));
		bisection->steps[i].run = (size_t)(entry - data->runs);
	}
	return 0;
}

static int load_bisection(struct store *store, struct report_data *data, int64_t id, bool lean,
			  char *error, size_t error_len)
{
	struct store_bisection stored = { 0 };
	json_t *spec = NULL, *answer = NULL;
	int rc = store_bisection_get(store, id, &stored);

	if (rc == -ENOENT)
		say(error, error_len, "no bisection %" PRId64 " in %s/state.db (see `rackbisect bisect "
		    "status`; give the ID of a stored one)", id, data->state_dir);
	if (rc)
		return rc;
	spec = json_loads(stored.spec, 0, NULL);
	answer = stored.answer ? json_loads(stored.answer, 0, NULL) : json_object();
	if (!spec || !answer) {
		say(error, error_len, "bisection %" PRId64 ": its stored question or answer is damaged "
		    "(not the JSON `rackbisect bisect` writes)", id);
		rc = -EINVAL;
	}
	if (rc == 0 && !(data->bisection = calloc(1, sizeof(*data->bisection))))
		rc = -ENOMEM;
	if (rc == 0)
		rc = parse_bisection(data->bisection, &stored, spec, answer);
	if (rc == 0)
		rc = store_bisection_runs(store, id, &data->lists[BISECTION_LIST],
					  &data->roles[BISECTION_LIST]);
	if (rc == 0 && !(rc = add_commit(data, data->bisection->good, data->bisection->good_ref)) &&
	    !(rc = add_commit(data, data->bisection->bad, data->bisection->bad_ref)) &&
	    !(rc = add_commit(data, data->bisection->culprit, NULL)) &&
	    !(rc = add_runs(data, BISECTION_LIST, NULL)) && !(rc = link_steps(data, spec)) && !lean)
		replay_path(data, spec);
	json_decref(spec);
	json_decref(answer);
	store_bisection_release(&stored);
	return rc;
}

/* A gate's other bisections: those whose question names the gate ("gate"
 * in its spec), but the one loaded in full; lean, newest first. */
static int load_other_bisections(struct store *store, struct report_data *data, int64_t gate_id)
{
	struct store_bisection stored = { 0 };
	int64_t id;
	int rc = store_bisection_latest(store, &stored);

	if (rc == -ENOENT)
		return 0;
	for (id = stored.id; rc == 0 && id > 0; id--) {
		struct report_bisection *bisection, **grown;
		json_t *spec, *answer;

		store_bisection_release(&stored);
		if (id == data->bisection->id || store_bisection_get(store, id, &stored) != 0)
			continue;
		spec = json_loads(stored.spec, 0, NULL);
		answer = stored.answer ? json_loads(stored.answer, 0, NULL) : json_object();
		if (spec && answer && json_integer_value(json_object_get(spec, "gate")) == gate_id) {
			bisection = calloc(1, sizeof(*bisection));
			grown = realloc(data->also, (data->also_count + 1) * sizeof(*grown));
			if (grown)
				data->also = grown;
			if (!bisection || !grown)
				rc = -ENOMEM;
			else
				data->also[data->also_count++] = bisection;
			if (rc == 0)
				rc = parse_bisection(bisection, &stored, spec, answer);
			if (rc == 0)
				rc = add_commit(data, bisection->culprit, NULL);
			if (!grown)
				free_bisection(bisection);
		}
		json_decref(spec);
		json_decref(answer);
	}
	store_bisection_release(&stored);
	return rc;
}

/* ---- a lone run ------------------------------------------------------------------------------ */

static int load_run(struct store *store, struct report_data *data, int64_t id, char *error,
		    size_t error_len)
{
	struct store_run_list *list = &data->lists[GATE_LIST];
	int rc;

	if (!(list->runs = calloc(1, sizeof(*list->runs))))
		return -ENOMEM;
	rc = store_run_get(store, id, &list->runs[0]);
	if (rc == -ENOENT)
		say(error, error_len, "no run %" PRId64 " in %s/state.db (see `rackbisect runs` for "
		    "the stored ones)", id, data->state_dir);
	if (rc)
		return rc;
	list->count = 1;
	list->by_outcome[list->runs[0].outcome]++;
	return add_runs(data, GATE_LIST, "run");
}

/* ---- verdict and title ----------------------------------------------------------------------- */

static const char *short_ref(const char *ref, const char *id, char *buffer, size_t len)
{
	if (ref)
		return ref;
	snprintf(buffer, len, "%.12s", id ? id : "?");
	return buffer;
}

static int run_headline(struct report_data *data)
{
	const struct store_run *run = data->runs[0].run;
	char why[512] = "";
	size_t i, used = 0;

	for (i = 0; i < run->symptom_count && used < sizeof(why); i++)
		used += (size_t)snprintf(why + used, sizeof(why) - used, "%s%s", i ? ", " : "",
					 run->symptoms[i].name);
	if (!run->symptom_count && run->cause)
		snprintf(why, sizeof(why), "%s", run->cause);
	data->verdict = strdup(run->state == RUN_DONE ? report_outcome_name(run->outcome)
			       : run->state == RUN_RUNNING ? "RUNNING" : "QUEUED");
	if (asprintf(&data->title, "run %" PRId64 ": %s #%u on %s, commit %.12s (job %s, lab %s)",
		     run->id, run->workload, run->repeat_index + 1, run->board ? run->board : "(no board)",
		     run->commit, run->job, data->lab) < 0)
		data->title = NULL;
	if (asprintf(&data->summary, "%s%s", why[0] ? why : run->outcome == RUN_PASS ? "no symptom seen"
		     : "no symptom or cause stored", "") < 0)
		data->summary = NULL;
	return 0;
}

static void culprit_words(const struct report_data *data, char *out, size_t len)
{
	const struct report_bisection *bisection = data->bisection;
	const struct report_commit *commit = bisection ? report_data_commit(data, bisection->culprit) : NULL;

	*out = '\0';
	if (!bisection)
		return;
	if (bisection->culprit)
		snprintf(out, len, "first bad commit %.12s%s%s (probability %.4f after %u runs)",
			 bisection->culprit, commit && commit->description ? " " : "",
			 commit && commit->description ? commit->description : "", bisection->probability,
			 bisection->runs);
	else
		snprintf(out, len, "bisection %" PRId64 " %s%s%s", bisection->id,
			 bisection->outcome ? bisection->outcome : bisection->state,
			 bisection->reason && *bisection->reason ? ": " : "",
			 bisection->reason ? bisection->reason : "");
}

static int gate_headline(struct report_data *data)
{
	const struct report_gate *gate = data->gate;
	char baseline[16], candidate[16], culprit[1024], regressions[1024] = "";
	size_t i, used = 0;
	const unsigned int *c = gate->candidate_runs, *b = gate->baseline_runs;

	data->verdict = strdup(gate->verdict ? gate->verdict
			       : strcmp(gate->state, "running") == 0 ? "RUNNING" : "STOPPED");
	if (asprintf(&data->title, "gate %" PRId64 ": %s against %s (job %s, lab %s)", gate->id,
		     short_ref(gate->candidate_ref, gate->candidate, candidate, sizeof(candidate)),
		     short_ref(gate->baseline_ref, gate->baseline, baseline, sizeof(baseline)), gate->job,
		     data->lab) < 0)
		data->title = NULL;
	for (i = 0; i < gate->regression_count && used < sizeof(regressions); i++) {
		const struct report_regression *r = &gate->regressions[i];

		used += (size_t)snprintf(regressions + used, sizeof(regressions) - used,
					 "%s%s regressed (%s on %s)", i ? "; " : "", r->workload,
					 r->symptom ? r->symptom : "?", r->boards ? r->boards : "?");
	}
	culprit_words(data, culprit, sizeof(culprit));
	if (asprintf(&data->summary, "%s%s%s%scandidate %u pass, %u fail, %u infra, %u skip; "
		     "baseline %u pass, %u fail, %u infra, %u skip%s%s",
		     regressions, regressions[0] ? "; " : "",
		     gate->reason && *gate->reason ? gate->reason : "",
		     gate->reason && *gate->reason ? "; " : "",
		     c[RUN_PASS], c[RUN_FAIL], c[RUN_INFRA], c[RUN_SKIP],
		     b[RUN_PASS], b[RUN_FAIL], b[RUN_INFRA], b[RUN_SKIP],
		     culprit[0] ? "; " : "", culprit) < 0)
		data->summary = NULL;
	return 0;
}

static int bisection_headline(struct report_data *data)
{
	const struct report_bisection *bisection = data->bisection;
	char bad[16], good[16], culprit[1024];

	data->verdict = strdup(bisection->outcome ? bisection->outcome : bisection->state);
	if (asprintf(&data->title, "bisection %" PRId64 ": %s in %s between %s and %s (job %s, lab %s)",
		     bisection->id, bisection->symptom ? bisection->symptom : "(symptom not chosen yet)",
		     bisection->workload ? bisection->workload : "?",
		     short_ref(bisection->good_ref, bisection->good, good, sizeof(good)),
		     short_ref(bisection->bad_ref, bisection->bad, bad, sizeof(bad)), bisection->job,
		     data->lab) < 0)
		data->title = NULL;
	culprit_words(data, culprit, sizeof(culprit));
	data->summary = strdup(culprit);
	return 0;
}

/* ---- choosing and loading ---------------------------------------------------------------------- */

/* With no subject named: the newer of the latest gate and the latest bisection
 * (a gate's own bisection is newer than it, and is shown with it). */
static int choose_latest(struct store *store, struct report_data *data, char *error, size_t error_len,
			 struct store_gate *gate, int64_t *bisection_id)
{
	struct store_bisection bisection = { 0 };
	int gate_rc = store_gate_latest(store, gate);
	int bisection_rc = store_bisection_latest(store, &bisection);

	*bisection_id = 0;
	if ((gate_rc && gate_rc != -ENOENT) || (bisection_rc && bisection_rc != -ENOENT)) {
		store_bisection_release(&bisection);
		return gate_rc && gate_rc != -ENOENT ? gate_rc : bisection_rc;
	}
	if (gate_rc == -ENOENT && bisection_rc == -ENOENT) {
		say(error, error_len, "no gate or bisection in %s/state.db yet: run `rackbisect gate` or "
		    "`rackbisect bisect` first, or give --state DIR of the lab that ran them",
		    data->state_dir);
		return -ENOENT;
	}
	if (bisection_rc == 0 && (gate_rc == -ENOENT || (bisection.id != gate->bisection_id &&
							 bisection.created_at > gate->created_ms))) {
		*bisection_id = bisection.id;
		store_gate_release(gate);
	}
	store_bisection_release(&bisection);
	return 0;
}

static int load_subject(struct store *store, const struct report_request *request,
			struct report_data *data, char *error, size_t error_len)
{
	struct store_gate gate = { 0 };
	int64_t bisection_id = request->id;
	int rc = 0;

	switch (request->subject) {
	case REPORT_SUBJECT_RUN:
		data->subject = REPORT_SUBJECT_RUN;
		return load_run(store, data, request->id, error, error_len);
	case REPORT_SUBJECT_LATEST:
		rc = choose_latest(store, data, error, error_len, &gate, &bisection_id);
		break;
	case REPORT_SUBJECT_GATE:
		rc = request->id ? store_gate_get(store, request->id, &gate) : store_gate_latest(store, &gate);
		if (rc == -ENOENT && request->id)
			say(error, error_len, "no gate %" PRId64 " in %s/state.db: give the ID of a stored "
			    "gate (its reply names it), or leave it out for the latest", request->id,
			    data->state_dir);
		else if (rc == -ENOENT)
			say(error, error_len, "no gate in %s/state.db yet: run `rackbisect gate JOB "
			    "--baseline REF --candidate REF` first, or give --state DIR of the lab that ran it",
			    data->state_dir);
		break;
	case REPORT_SUBJECT_BISECTION:
		break;
	}
	if (rc)
		return rc;
	if (gate.id) {
		data->subject = REPORT_SUBJECT_GATE;
		rc = load_gate(store, data, &gate, error, error_len);
		bisection_id = gate.bisection_id;
		store_gate_release(&gate);
		if (rc || !bisection_id)
			return rc;
	} else {
		data->subject = REPORT_SUBJECT_BISECTION;
		if (!bisection_id) {
			struct store_bisection latest = { 0 };

			rc = store_bisection_latest(store, &latest);
			if (rc == -ENOENT)
				say(error, error_len, "no bisection in %s/state.db yet: run `rackbisect bisect "
				    "JOB --good REF --bad REF` first, or give --state DIR of the lab that ran it",
				    data->state_dir);
			if (rc)
				return rc;
			bisection_id = latest.id;
			store_bisection_release(&latest);
		}
	}
	rc = load_bisection(store, data, bisection_id, request->lean, error, error_len);
	if (rc == 0 && data->subject == REPORT_SUBJECT_GATE)
		rc = load_other_bisections(store, data, data->gate->id);
	return rc;
}

/* The trend: the nights of the gate's branch, or of the branch a night of
 * which started or reused the bisection. A damaged night costs the trend,
 * not the report. */
static int load_trend(struct store *store, const struct report_request *request,
		      struct report_data *data)
{
	struct report_nights_request wanted = { .state_dir = request->state_dir, .lab = request->lab };
	char error[512];
	int rc;

	if (data->gate && data->gate->night)
		wanted.night = data->gate->night;
	else if (data->subject == REPORT_SUBJECT_BISECTION && data->bisection)
		wanted.bisection_id = data->bisection->id;
	else
		return 0;
	if (!(data->nights = calloc(1, sizeof(*data->nights))))
		return -ENOMEM;
	rc = report_nights_load(store, &wanted, data->nights, error, sizeof(error));
	if (rc) {
		free(data->nights);
		data->nights = NULL;
	}
	return rc == -ENOENT || rc == -EINVAL ? 0 : rc;
}

int report_data_load(struct store *store, const struct report_request *request,
		     struct report_data *data, char *error, size_t error_len)
{
	int rc;

	memset(data, 0, sizeof(*data));
	say(error, error_len, "%s", "");
	data->lab = strdup(request->lab ? request->lab : "lab");
	data->state_dir = strdup(request->state_dir ? request->state_dir : ".");
	rc = data->lab && data->state_dir ? load_subject(store, request, data, error, error_len) : -ENOMEM;
	if (rc == 0)
		rc = load_builds(store, data);
	if (rc == 0 && !request->lean)
		rc = load_trend(store, request, data);
	if (rc == 0) {
		if (!request->lean) {
			describe_commits(data, data->gate ? data->gate->tree : NULL);
			describe_commits(data, data->bisection ? data->bisection->tree : NULL);
		}
		rc = data->subject == REPORT_SUBJECT_RUN ? run_headline(data)
			: data->subject == REPORT_SUBJECT_GATE ? gate_headline(data) : bisection_headline(data);
		if (rc == 0 && (!data->title || !data->verdict || !data->summary))
			rc = -ENOMEM;
	}
	if (rc && !error[0])
		say(error, error_len, "cannot read the report's data from %s/state.db: %s",
		    data->state_dir, store_strerror(rc));
	if (rc)
		report_data_release(data);
	return rc;
}

void report_data_release(struct report_data *data)
{
	size_t i;

	for (i = 0; i < data->commit_count; i++) {
		free(data->commits[i].id), free(data->commits[i].ref);
		free(data->commits[i].description);
	}
	for (i = 0; i < data->build_count; i++)
		store_build_release(&data->builds[i].build);
	for (i = 0; i < 2; i++) {
		store_gate_roles_free(data->roles[i], data->lists[i].count);
		store_run_list_release(&data->lists[i]);
	}
	free_gate(data->gate);
	free_bisection(data->bisection);
	for (i = 0; i < data->also_count; i++)
		free_bisection(data->also[i]);
	free(data->also);
	if (data->nights) {
		report_nights_release(data->nights);
		free(data->nights);
	}
	free(data->commits), free(data->builds), free(data->runs);
	free(data->lab), free(data->state_dir), free(data->title), free(data->verdict);
	free(data->summary);
	memset(data, 0, sizeof(*data));
}
