/* report_nights.c - every stored night of `rackbisect nightly`, grouped by branch, for the reports. */
#include "report_nights.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_data.h"

const char *const report_night_metric_names[NIGHT_METRIC_COUNT] = { "power_avg", "energy" };

static void say(char *error, size_t error_len, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *error, size_t error_len, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(error, error_len, format, args);
	va_end(args);
}

bool report_night_fail_ratio(const struct report_night *night, double *ratio)
{
	unsigned int decisive = night->head_runs[RUN_PASS] + night->head_runs[RUN_FAIL];

	*ratio = decisive ? (double)night->head_runs[RUN_FAIL] / decisive : 0;
	return decisive > 0;
}

void report_night_date(int64_t ms, char *out, size_t len)
{
	time_t seconds = (time_t)(ms / 1000);
	struct tm utc;

	if (ms <= 0 || !gmtime_r(&seconds, &utc) || !strftime(out, len, "%Y-%m-%d %H:%M", &utc))
		snprintf(out, len, "?");
}

/* ---- one night ------------------------------------------------------------------------------ */

static void free_night(struct report_night *night)
{
	size_t i;

	for (i = 0; i < night->regression_count; i++)
		free(night->regressions[i].workload), free(night->regressions[i].symptom);
	for (i = 0; i < NIGHT_METRIC_COUNT; i++)
		free(night->metric_unit[i]);
	free(night->regressions), free(night->job), free(night->head), free(night->baseline);
	free(night->verdict), free(night->reason), free(night->bisection_outcome), free(night->culprit);
	if (night->gate_report) {
		report_data_release(night->gate_report);
		free(night->gate_report);
	}
}

static int parse_regressions(struct report_night *night, const json_t *regressions)
{
	size_t i;

	night->regressions = calloc(json_array_size(regressions) + 1, sizeof(*night->regressions));
	if (!night->regressions)
		return -ENOMEM;
	for (i = 0; i < json_array_size(regressions); i++) {
		const json_t *item = json_array_get(regressions, i);
		struct report_night_regression *regression = &night->regressions[night->regression_count++];

		regression->workload = report_json_text(item, "workload");
		regression->symptom = report_json_text(item, "symptom");
		if (!regression->workload)
			return -EINVAL;
	}
	return 0;
}

/* The culprit and state of the bisection the night started or reused. */
static int read_bisection(struct store *store, struct report_night *night)
{
	struct store_bisection stored = { 0 };
	json_t *answer;
	int rc;

	if (!night->bisection_id)
		return 0;
	rc = store_bisection_get(store, night->bisection_id, &stored);
	if (rc == -ENOENT)
		return 0;	/* the gate names a bisection the store forgot: the night still counts */
	if (rc)
		return rc;
	answer = stored.answer ? json_loads(stored.answer, 0, NULL) : NULL;
	night->culprit = report_json_text(answer, "culprit");
	night->bisection_outcome = answer ? report_json_text(answer, "state")
		: strdup(stored.state == STORE_BISECTION_RUNNING ? "running" : "stopped");
	json_decref(answer);
	store_bisection_release(&stored);
	return 0;
}

/* Means of the head's power measurements: the trend's second and third plots. */
static int read_head_metrics(struct store *store, struct report_night *night)
{
	struct store_run_list list = { 0 };
	char **roles = NULL;
	size_t i, m, k;
	int rc = store_gate_runs(store, night->gate_id, &list, &roles);

	for (i = 0; rc == 0 && i < list.count; i++) {
		const struct store_run *run = &list.runs[i];

		if (strcmp(roles[i], "candidate") != 0 || run->state != RUN_DONE)
			continue;
		for (k = 0; k < NIGHT_METRIC_COUNT; k++) {
			for (m = 0; m < run->metric_count; m++) {
				if (strcmp(run->metrics[m].name, report_night_metric_names[k]) != 0)
					continue;
				night->metric_mean[k] += (run->metrics[m].value - night->metric_mean[k]) /
					++night->metric_runs[k];
				if (!night->metric_unit[k] && run->metrics[m].unit)
					night->metric_unit[k] = strdup(run->metrics[m].unit);
				break;
			}
		}
	}
	store_gate_roles_free(roles, list.count);
	store_run_list_release(&list);
	return rc;
}

static int parse_night(struct store *store, const struct store_gate *gate, const json_t *spec,
		       struct report_night *night, char *error, size_t error_len)
{
	json_t *answer = gate->answer ? json_loads(gate->answer, 0, NULL) : NULL;
	int rc = answer ? 0 : -EINVAL;

	night->gate_id = gate->id;
	night->job = strdup(gate->job);
	night->verdict = strdup(gate->verdict ? gate->verdict : "?");
	night->head = report_json_text(spec, "candidate");
	night->baseline = report_json_text(spec, "baseline");
	night->first_night = night->head && night->baseline && strcmp(night->head, night->baseline) == 0;
	night->bisection_id = gate->bisection_id;
	night->created_ms = gate->created_ms;
	night->finished_ms = gate->finished_ms;
	if (rc == 0 && (!night->head || !night->baseline))
		rc = -EINVAL;
	if (rc == 0) {
		night->reason = report_json_text(answer, "reason");
		report_json_counts(json_object_get(answer, "candidate"), night->head_runs);
		report_json_counts(json_object_get(answer, "baseline"), night->baseline_runs);
		rc = parse_regressions(night, json_object_get(answer, "regressions"));
	}
	json_decref(answer);
	if (rc == -EINVAL)
		say(error, error_len, "gate %" PRId64 " (night %s): its stored question or answer is damaged "
		    "(not the JSON `rackbisect gate` writes)", gate->id,
		    json_string_value(json_object_get(spec, "night")));
	if (rc == 0 && (!night->job || !night->verdict))
		rc = -ENOMEM;
	if (rc == 0)
		rc = read_bisection(store, night);
	if (rc == 0)
		rc = read_head_metrics(store, night);
	return rc;
}

/* ---- branches --------------------------------------------------------------------------------- */

static struct report_branch *branch_named(struct report_nights *nights, const char *name, bool add)
{
	struct report_branch *grown;
	size_t i;

	for (i = 0; i < nights->branch_count; i++) {
		if (strcmp(nights->branches[i].night, name) == 0)
			return &nights->branches[i];
	}
	if (!add || !(grown = realloc(nights->branches, (nights->branch_count + 1) * sizeof(*grown))))
		return NULL;
	nights->branches = grown;
	grown[nights->branch_count] = (struct report_branch){ .night = strdup(name) };
	if (!grown[nights->branch_count].night)
		return NULL;
	return &grown[nights->branch_count++];
}

static void free_branch(struct report_branch *branch)
{
	size_t i;

	for (i = 0; i < branch->count; i++)
		free_night(&branch->nights[i]);
	free(branch->nights), free(branch->night), free(branch->tree);
}

static struct report_night *add_night(struct report_nights *nights, const json_t *spec)
{
	struct report_branch *branch = branch_named(nights, json_string_value(json_object_get(spec, "night")),
						    true);
	struct report_night *grown;
	const char *tree = json_string_value(json_object_get(spec, "tree"));

	if (!branch || !(grown = realloc(branch->nights, (branch->count + 1) * sizeof(*grown))))
		return NULL;
	branch->nights = grown;
	grown[branch->count] = (struct report_night){ 0 };
	if (tree) {	/* the newest night's tree: where the branch is now */
		free(branch->tree);
		branch->tree = strdup(tree);
	}
	nights->night_count++;
	return &grown[branch->count++];
}

/* Reused: a bisection an earlier night (of any branch) named already. */
static int mark_reused(struct report_night *night, int64_t **seen, size_t *seen_count)
{
	int64_t *grown;
	size_t i;

	if (!night->bisection_id)
		return 0;
	for (i = 0; i < *seen_count; i++) {
		if ((*seen)[i] == night->bisection_id) {
			night->bisection_reused = true;
			return 0;
		}
	}
	if (!(grown = realloc(*seen, (*seen_count + 1) * sizeof(*grown))))
		return -ENOMEM;
	*seen = grown;
	grown[(*seen_count)++] = night->bisection_id;
	return 0;
}

/* The baseline's night: the newest earlier PASS night of the branch whose head it is. */
static void link_baselines(struct report_branch *branch)
{
	size_t i, j;

	for (i = 0; i < branch->count; i++) {
		struct report_night *night = &branch->nights[i];

		for (j = i; !night->first_night && j-- > 0;) {
			const struct report_night *earlier = &branch->nights[j];

			if (strcmp(earlier->verdict, "PASS") == 0 && strcmp(earlier->head, night->baseline) == 0) {
				night->baseline_gate = earlier->gate_id;
				break;
			}
		}
	}
}

/* Every DONE gate, oldest first; the nights among them. Gates are read one
 * by one by id: store_gate_list() lists one job's, and nights may be of any. */
static int read_all(struct store *store, struct report_nights *nights, char *error, size_t error_len)
{
	struct store_gate gate = { 0 };
	int64_t latest, id, *seen = NULL;
	size_t seen_count = 0;
	int rc = store_gate_latest(store, &gate);

	latest = rc == 0 ? gate.id : 0;
	store_gate_release(&gate);
	if (rc && rc != -ENOENT)
		return rc;
	for (rc = 0, id = 1; rc == 0 && id <= latest; id++) {
		json_t *spec;
		struct report_night *night;

		if ((rc = store_gate_get(store, id, &gate)) != 0) {
			rc = rc == -ENOENT ? 0 : rc;	/* ids have gaps where a create failed */
			continue;
		}
		spec = gate.state == STORE_GATE_DONE ? json_loads(gate.spec, 0, NULL) : NULL;
		if (json_is_string(json_object_get(spec, "night"))) {
			night = add_night(nights, spec);
			rc = night ? parse_night(store, &gate, spec, night, error, error_len) : -ENOMEM;
			if (rc == 0)
				rc = mark_reused(night, &seen, &seen_count);
		}
		json_decref(spec);
		store_gate_release(&gate);
	}
	free(seen);
	return rc;
}

static bool has_bisection(const struct report_branch *branch, int64_t bisection_id)
{
	size_t i;

	for (i = 0; i < branch->count; i++) {
		if (branch->nights[i].bisection_id == bisection_id)
			return true;
	}
	return false;
}

/* Only the branch the request names (after reading all: reuse is seen across branches). */
static void keep_requested(struct report_nights *nights, const struct report_nights_request *request)
{
	size_t i, kept = 0;

	for (i = 0; i < nights->branch_count; i++) {
		struct report_branch *branch = &nights->branches[i];
		bool keep = (!request->night || strcmp(branch->night, request->night) == 0) &&
			    (request->bisection_id <= 0 || has_bisection(branch, request->bisection_id));

		if (keep) {
			nights->branches[kept++] = *branch;
			continue;
		}
		nights->night_count -= branch->count;
		free_branch(branch);
	}
	nights->branch_count = kept;
}

static int load_gate_reports(struct store *store, struct report_nights *nights,
			     const struct report_nights_request *request, char *error, size_t error_len)
{
	size_t b, i;
	int rc = 0;

	for (b = 0; rc == 0 && b < nights->branch_count; b++) {
		for (i = 0; rc == 0 && i < nights->branches[b].count; i++) {
			struct report_night *night = &nights->branches[b].nights[i];

			if (!(night->gate_report = calloc(1, sizeof(*night->gate_report))))
				return -ENOMEM;
			rc = report_data_load(store, &(struct report_request){
				.subject = REPORT_SUBJECT_GATE, .id = night->gate_id, .state_dir = request->state_dir,
				.lab = request->lab, .lean = true }, night->gate_report, error, error_len);
			if (rc) {
				free(night->gate_report);
				night->gate_report = NULL;
			}
		}
	}
	return rc;
}

/* ---- the headline ----------------------------------------------------------------------------- */

/* REGRESSION over INCOMPLETE (or anything else) over PASS. */
static int verdict_rank(const char *verdict)
{
	return strcmp(verdict, "REGRESSION") == 0 ? 2 : strcmp(verdict, "PASS") == 0 ? 0 : 1;
}

static int headline(struct report_nights *nights, const struct report_nights_request *request)
{
	const char *worst = "PASS";
	char *summary = NULL;
	size_t length = 0, b;
	FILE *out = open_memstream(&summary, &length);

	if (!out)
		return -ENOMEM;
	for (b = 0; b < nights->branch_count; b++) {
		const struct report_branch *branch = &nights->branches[b];
		const struct report_night *newest = &branch->nights[branch->count - 1];

		if (verdict_rank(newest->verdict) > verdict_rank(worst))
			worst = newest->verdict;
		fprintf(out, "%s%s: %s on its newest night (gate %" PRId64 ", head %.12s)", b ? "; " : "",
			branch->night, newest->verdict, newest->gate_id, newest->head);
	}
	if (fclose(out) != 0)
		return -ENOMEM;
	nights->summary = summary;
	nights->verdict = strdup(worst);
	if (request->night || nights->branch_count == 1) {
		if (asprintf(&nights->title, "nightly of %s: %zu night%s (lab %s)", nights->branches[0].night,
			     nights->night_count, nights->night_count == 1 ? "" : "s", nights->lab) < 0)
			nights->title = NULL;
	} else if (asprintf(&nights->title, "nightly: %zu nights of %zu branches (lab %s)", nights->night_count,
			    nights->branch_count, nights->lab) < 0) {
		nights->title = NULL;
	}
	return nights->summary && nights->verdict && nights->title ? 0 : -ENOMEM;
}

int report_nights_load(struct store *store, const struct report_nights_request *request,
		       struct report_nights *nights, char *error, size_t error_len)
{
	size_t b;
	int rc;

	memset(nights, 0, sizeof(*nights));
	say(error, error_len, "%s", "");
	nights->lab = strdup(request->lab ? request->lab : "lab");
	nights->state_dir = strdup(request->state_dir ? request->state_dir : ".");
	rc = nights->lab && nights->state_dir ? read_all(store, nights, error, error_len) : -ENOMEM;
	if (rc == 0)
		keep_requested(nights, request);
	if (rc == 0 && nights->branch_count == 0) {
		if (request->night)
			say(error, error_len, "no night of %s in %s/state.db: give TREE/BRANCH as the nightly "
			    "file names it (e.g. stable/linux-3.3.y), or leave it out for every branch",
			    request->night, nights->state_dir);
		else
			say(error, error_len, "no nights stored in %s/state.db: run `rackbisect nightly "
			    "NIGHTLY.yaml` first, or give --state DIR of the lab that ran it", nights->state_dir);
		rc = -ENOENT;
	}
	for (b = 0; rc == 0 && b < nights->branch_count; b++)
		link_baselines(&nights->branches[b]);
	if (rc == 0 && request->gate_reports)
		rc = load_gate_reports(store, nights, request, error, error_len);
	if (rc == 0)
		rc = headline(nights, request);
	if (rc && !error[0])
		say(error, error_len, "cannot read the nights from %s/state.db: %s", nights->state_dir,
		    store_strerror(rc));
	if (rc)
		report_nights_release(nights);
	return rc;
}

void report_nights_release(struct report_nights *nights)
{
	size_t b;

	for (b = 0; b < nights->branch_count; b++)
		free_branch(&nights->branches[b]);
	free(nights->branches), free(nights->lab), free(nights->state_dir);
	free(nights->title), free(nights->verdict), free(nights->summary);
	memset(nights, 0, sizeof(*nights));
}
