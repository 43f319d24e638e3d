/* report_kcidb.c - a report as KCIDB JSON (schema v5.3), built with jansson. */
#include "report_kcidb.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ORIGIN "rackbisect"
/* Every workload of drivers/workload is an ath9k power-save test: the test
 * tree's root, so KernelCI dashboards group them under one node. */
#define TEST_ROOT "ath9k"
/* The metrics that are power measurements: each becomes a DONE test with a number. */
static const char *const measured[] = { "power_avg", "energy" };
/* KCIDB's log_excerpt limit */
#define LOG_EXCERPT_MAX 16384

/* Stored text as a JSON string: bytes that are not UTF-8 become '?' (jansson
 * refuses invalid UTF-8, and a field must not vanish because of one byte). */
static json_t *text_json(const char *text)
{
	size_t length = strlen(text), i, sequence;
	char *clean = malloc(length + 1);
	json_t *value;

	if (!clean)
		return NULL;
	for (i = 0; i < length; i += sequence) {
		sequence = report_utf8_length(text + i);
		if (sequence == 0) {
			clean[i] = '?';
			sequence = 1;
		} else {
			memcpy(clean + i, text + i, sequence);
		}
	}
	clean[length] = '\0';
	value = json_string(clean);
	free(clean);
	return value;
}

static void set_text(json_t *object, const char *key, const char *text)
{
	if (text)
		json_object_set_new(object, key, text_json(text));
}

static void set_format(json_t *object, const char *key, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static void set_format(json_t *object, const char *key, const char *format, ...)
{
	char *text = NULL;
	va_list args;
	int length;

	va_start(args, format);
	length = vasprintf(&text, format, args);
	va_end(args);
	if (length >= 0)
		set_text(object, key, text);
	free(text);
}

/* RFC 3339 in UTC, as the schema's date-time wants. */
static void set_time(json_t *object, const char *key, int64_t ms)
{
	time_t seconds = (time_t)(ms / 1000);
	struct tm utc;
	char text[64];

	if (ms <= 0 || !gmtime_r(&seconds, &utc))
		return;
	strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
	set_format(object, key, "%s.%03dZ", text, (int)(ms % 1000));
}

/* file:// with the path percent-encoded: a URI whatever the path holds. */
static json_t *file_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t length = strlen(path), used = 0;
	char *uri = malloc(7 + 3 * length + 1);
	json_t *value;

	if (!uri)
		return NULL;
	used = (size_t)sprintf(uri, "file://");
	for (; *path; path++) {
		unsigned char c = (unsigned char)*path;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/-._~", c)) {
			uri[used++] = (char)c;
		} else {
			uri[used++] = '%';
			uri[used++] = hex[c >> 4];
			uri[used++] = hex[c & 15];
		}
	}
	uri[used] = '\0';
	value = json_string(uri);
	free(uri);
	return value;
}

/* A test path component: KCIDB allows [a-zA-Z0-9_-] only. */
static void path_component(const char *name, char *out, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)name[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			c == '-' ? (char)c : '_';
	}
	out[i] = '\0';
	if (!out[0])
		snprintf(out, len, "unnamed");
}

static bool is_commit_hash(const char *id)
{
	size_t i;

	for (i = 0; id[i]; i++) {
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	}
	return i == 40;
}

/* ---- ids --------------------------------------------------------------------------------------- */

static void set_id(json_t *object, const char *key, const struct report_data *data, const char *kind,
		   const char *what)
{
	set_format(object, key, ORIGIN ":%s/%s/%s", data->lab, kind, what);
}

static void set_number_id(json_t *object, const char *key, const struct report_data *data,
			  const char *kind, int64_t id)
{
	set_format(object, key, ORIGIN ":%s/%s/%" PRId64, data->lab, kind, id);
}

/* A run's build: the stored one, or the stand-in for "none recorded". */
static void set_build_id(json_t *object, const struct report_data *data, const struct store_run *run)
{
	if (report_data_build(data, run->build_id))
		set_number_id(object, "build_id", data, "build", run->build_id);
	else
		set_id(object, "build_id", data, "unrecorded-build", run->commit);
}

/* ---- checkouts and builds ------------------------------------------------------------------------ */

static const char *tree_of(const struct report_data *data)
{
	return data->gate ? data->gate->tree : data->bisection ? data->bisection->tree : NULL;
}

static json_t *checkouts_json(const struct report_data *data)
{
	json_t *checkouts = json_array();
	size_t i;

	for (i = 0; i < data->commit_count; i++) {
		const struct report_commit *commit = &data->commits[i];
		json_t *checkout = json_object(), *misc = json_object();

		set_id(checkout, "id", data, "checkout", commit->id);
		set_text(checkout, "origin", ORIGIN);
		if (is_commit_hash(commit->id))
			set_text(checkout, "git_commit_hash", commit->id);
		set_text(checkout, "git_commit_name", commit->ref);
		set_text(misc, "description", commit->description);
		set_text(misc, "tree", tree_of(data));
		json_object_set_new(checkout, "misc", misc);
		json_array_append_new(checkouts, checkout);
	}
	return checkouts;
}

static json_t *stored_build_json(const struct report_data *data, const struct store_build *build)
{
	json_t *object = json_object(), *misc = json_object();

	set_number_id(object, "id", data, "build", build->id);
	set_text(object, "origin", ORIGIN);
	set_id(object, "checkout_id", data, "checkout", build->commit);
	set_text(object, "status", build->status == BUILD_BUILT ? "PASS" : "FAIL");
	if (build->log_path)
		json_object_set_new(object, "log_url", file_uri(build->log_path));
	if (build->artifact_path) {
		json_t *file = json_object();

		set_text(file, "name", "bzImage");
		json_object_set_new(file, "url", file_uri(build->artifact_path));
		json_object_set_new(object, "output_files", json_pack("[o]", file));
	}
	set_text(misc, "tree_id", build->tree);
	set_text(misc, "release", build->release);
	json_object_set_new(object, "misc", misc);
	return object;
}

static bool unrecorded_build_listed(const struct report_data *data, size_t before, const char *commit)
{
	size_t i;

	for (i = 0; i < before; i++) {
		if (!report_data_build(data, data->runs[i].run->build_id) &&
		    strcmp(data->runs[i].run->commit, commit) == 0)
			return true;
	}
	return false;
}

static json_t *builds_json(const struct report_data *data)
{
	json_t *builds = json_array();
	size_t i;

	for (i = 0; i < data->build_count; i++)
		json_array_append_new(builds, stored_build_json(data, &data->builds[i].build));
	for (i = 0; i < data->run_count; i++) {
		const struct store_run *run = data->runs[i].run;
		json_t *build;

		if (report_data_build(data, run->build_id) || unrecorded_build_listed(data, i, run->commit))
			continue;
		build = json_object();
		set_id(build, "id", data, "unrecorded-build", run->commit);
		set_text(build, "origin", ORIGIN);
		set_id(build, "checkout_id", data, "checkout", run->commit);
		json_object_set_new(build, "misc", json_pack("{s:s}", "note",
							      "the store holds no build for these runs"));
		json_array_append_new(builds, build);
	}
	return builds;
}

/* ---- tests ------------------------------------------------------------------------------------------ */

static const char *test_status(const struct store_run *run)
{
	static const char *const statuses[RUN_OUTCOME_COUNT] = {
		[RUN_PASS] = "PASS", [RUN_FAIL] = "FAIL", [RUN_INFRA] = "MISS", [RUN_SKIP] = "SKIP" };

	return run->state == RUN_DONE ? statuses[run->outcome] : NULL;
}

static const char *chip_of(const struct report_data *data, const char *board)
{
	size_t i;

	for (i = 0; board && data->gate && i < data->gate->cell_count; i++) {
		if (strcmp(data->gate->cells[i].board, board) == 0)
			return data->gate->cells[i].chip;
	}
	return NULL;
}

static json_t *run_misc(const struct report_run *entry)
{
	const struct store_run *run = entry->run;
	json_t *misc = json_object(), *symptoms = json_array(), *metrics = json_array();
	size_t i;

	json_object_set_new(misc, "run_id", json_integer(run->id));
	set_text(misc, "job", run->job);
	set_text(misc, "commit", run->commit);
	set_text(misc, "workload", run->workload);
	json_object_set_new(misc, "repeat", json_integer(run->repeat_index + 1));
	set_text(misc, "role", entry->role);
	set_text(misc, "bisection_role", entry->bisection_role);
	set_text(misc, "bisection_evidence", entry->evidence);
	set_text(misc, "cause", run->cause);
	for (i = 0; i < run->symptom_count; i++) {
		json_t *symptom = json_object();

		set_text(symptom, "name", run->symptoms[i].name);
		set_text(symptom, "evidence", run->symptoms[i].evidence);
		json_array_append_new(symptoms, symptom);
	}
	for (i = 0; i < run->metric_count; i++) {
		json_t *metric = json_object();

		set_text(metric, "name", run->metrics[i].name);
		json_object_set_new(metric, "value", json_real(run->metrics[i].value));
		set_text(metric, "unit", run->metrics[i].unit);
		json_array_append_new(metrics, metric);
	}
	json_object_set_new(misc, "symptoms", symptoms);
	json_object_set_new(misc, "metrics", metrics);
	return misc;
}

/* The kept files as resources, and the main log (the workload's KTAP). */
static void set_files(json_t *test, const struct report_data *data, const struct report_run *entry)
{
	json_t *files = json_array();
	char path[4096];
	size_t f;

	for (f = 0; f < REPORT_RUN_FILE_COUNT; f++) {
		if (!entry->file_kept[f] ||
		    report_data_run_path(data, entry->run->id, report_run_file_names[f], path, sizeof(path)))
			continue;
		json_array_append_new(files, json_pack("{s:s,s:o}", "name", report_run_file_names[f], "url",
						       file_uri(path)));
		if (strcmp(report_run_file_names[f], "output.ktap") == 0)
			json_object_set_new(test, "log_url", file_uri(path));
	}
	if (json_array_size(files))
		json_object_set_new(test, "output_files", files);
	else
		json_decref(files);
}

static void set_log_excerpt(json_t *test, const struct store_run *run)
{
	char excerpt[LOG_EXCERPT_MAX];
	size_t used = 0, i;

	excerpt[0] = '\0';
	for (i = 0; i < run->symptom_count && used + 1 < sizeof(excerpt); i++) {
		if (run->symptoms[i].evidence)
			used += (size_t)snprintf(excerpt + used, sizeof(excerpt) - used, "%s%s", used ? "\n" : "",
						 run->symptoms[i].evidence);
	}
	if (used >= sizeof(excerpt))
		used = sizeof(excerpt) - 1;
	/* never end inside a UTF-8 sequence cut by the limit */
	while (used && ((unsigned char)excerpt[used - 1] & 0xc0) == 0x80)
		used--;
	if (used && (unsigned char)excerpt[used - 1] >= 0xc0)
		used--;
	excerpt[used] = '\0';
	if (used)
		set_text(test, "log_excerpt", excerpt);
}

static json_t *run_test_json(const struct report_data *data, const struct report_run *entry)
{
	const struct store_run *run = entry->run;
	json_t *test = json_object(), *environment = json_object();
	char component[128];

	set_number_id(test, "id", data, "run", run->id);
	set_text(test, "origin", ORIGIN);
	set_build_id(test, data, run);
	path_component(run->workload, component, sizeof(component));
	set_format(test, "path", TEST_ROOT ".%s", component);
	set_text(test, "status", test_status(run));
	set_time(test, "start_time", run->started_at);
	if (run->started_at && run->finished_at >= run->started_at)
		json_object_set_new(test, "duration", json_real((double)(run->finished_at - run->started_at) / 1000));
	set_format(environment, "comment", "board %s", run->board ? run->board : "(none: not built)");
	json_object_set_new(environment, "misc", json_object());
	set_text(json_object_get(environment, "misc"), "board", run->board);
	set_text(json_object_get(environment, "misc"), "chip", chip_of(data, run->board));
	json_object_set_new(test, "environment", environment);
	set_files(test, data, entry);
	set_log_excerpt(test, run);
	json_object_set_new(test, "misc", run_misc(entry));
	return test;
}

/* A power measurement of a run as a test of its own: DONE, with its number. */
static json_t *measurement_test_json(const struct report_data *data, const struct store_run *run,
				     const struct store_metric *metric)
{
	json_t *test = json_object(), *number = json_object();
	char component[128];

	set_format(test, "id", ORIGIN ":%s/run/%" PRId64 "/%s", data->lab, run->id, metric->name);
	set_text(test, "origin", ORIGIN);
	set_build_id(test, data, run);
	path_component(run->workload, component, sizeof(component));
	set_format(test, "path", TEST_ROOT ".%s.%s", component, metric->name);
	set_text(test, "status", "DONE");
	set_time(test, "start_time", run->started_at);
	json_object_set_new(number, "value", json_real(metric->value));
	set_text(number, "unit", metric->unit);
	json_object_set_new(test, "number", number);
	json_object_set_new(test, "misc", json_pack("{s:I}", "run_id", (json_int_t)run->id));
	return test;
}

static json_t *tests_json(const struct report_data *data)
{
	json_t *tests = json_array();
	size_t i, m, k;

	for (i = 0; i < data->run_count; i++) {
		const struct store_run *run = data->runs[i].run;

		json_array_append_new(tests, run_test_json(data, &data->runs[i]));
		for (k = 0; k < sizeof(measured) / sizeof(measured[0]); k++) {
			/* the first measurement of each name: names may repeat in a run */
			for (m = 0; m < run->metric_count; m++) {
				if (strcmp(run->metrics[m].name, measured[k]) == 0) {
					json_array_append_new(tests, measurement_test_json(data, run, &run->metrics[m]));
					break;
				}
			}
		}
	}
	return tests;
}

/* ---- the bisected culprit: an issue and its incidents ------------------------------------------------ */

static bool shows_tracked_symptom(const struct report_bisection *bisection, const struct store_run *run)
{
	size_t i;

	if (run->state != RUN_DONE || run->outcome != RUN_FAIL || !bisection->symptom ||
	    !bisection->workload || strcmp(run->workload, bisection->workload) != 0)
		return false;
	for (i = 0; i < run->symptom_count; i++) {
		if (strcmp(run->symptoms[i].name, bisection->symptom) == 0)
			return true;
	}
	return false;
}

static json_t *issue_json(const struct report_data *data, const struct report_bisection *bisection)
{
	const struct report_commit *culprit = report_data_commit(data, bisection->culprit);
	json_t *issue = json_object(), *misc = json_object();

	set_number_id(issue, "id", data, "bisection", bisection->id);
	json_object_set_new(issue, "version", json_integer(1));
	set_text(issue, "origin", ORIGIN);
	json_object_set_new(issue, "culprit", json_pack("{s:b,s:b,s:b}", "code", 1, "tool", 0, "harness", 0));
	set_format(issue, "report_subject", "%s in %s: first bad commit %.12s %s",
		   bisection->symptom ? bisection->symptom : "?", bisection->workload ? bisection->workload : "?",
		   bisection->culprit, culprit && culprit->description ? culprit->description : "");
	set_format(issue, "comment", "bisection %" PRId64 " (%s): probability %.4f after %u runs%s%s",
		   bisection->id, bisection->outcome ? bisection->outcome : bisection->state,
		   bisection->probability, bisection->runs,
		   bisection->confirmation && *bisection->confirmation ? "; " : "",
		   bisection->confirmation ? bisection->confirmation : "");
	set_text(misc, "culprit_commit", bisection->culprit);
	set_id(misc, "culprit_checkout_id", data, "checkout", bisection->culprit);
	json_object_set_new(misc, "probability", json_real(bisection->probability));
	set_text(misc, "symptom", bisection->symptom);
	set_text(misc, "workload", bisection->workload);
	json_object_set_new(issue, "misc", misc);
	return issue;
}

/* An issue for a bisection's culprit, and an incident for each run that
 * showed the symptom it tracked. */
static void add_culprit(json_t *issues, json_t *incidents, const struct report_data *data,
			const struct report_bisection *bisection)
{
	char run_id[32];
	size_t i;

	if (!bisection || !bisection->culprit)
		return;
	json_array_append_new(issues, issue_json(data, bisection));
	for (i = 0; i < data->run_count; i++) {
		const struct store_run *run = data->runs[i].run;
		json_t *incident;

		if (!shows_tracked_symptom(bisection, run))
			continue;
		incident = json_object();
		snprintf(run_id, sizeof(run_id), "%" PRId64, run->id);
		set_format(incident, "id", ORIGIN ":%s/bisection/%" PRId64 "/run/%s", data->lab,
			   bisection->id, run_id);
		set_text(incident, "origin", ORIGIN);
		set_number_id(incident, "issue_id", data, "bisection", bisection->id);
		json_object_set_new(incident, "issue_version", json_integer(1));
		set_number_id(incident, "test_id", data, "run", run->id);
		json_object_set_new(incident, "present", json_true());
		json_array_append_new(incidents, incident);
	}
}

/* Every culprit the subject bisected: a gate's, one per regression. */
static void add_culprits(json_t *root, const struct report_data *data)
{
	json_t *issues = json_array(), *incidents = json_array();
	size_t i;

	add_culprit(issues, incidents, data, data->bisection);
	for (i = 0; i < data->also_count; i++)
		add_culprit(issues, incidents, data, data->also[i]);
	if (json_array_size(issues)) {
		json_object_set_new(root, "issues", issues);
		json_object_set_new(root, "incidents", incidents);
	} else {
		json_decref(issues);
		json_decref(incidents);
	}
}

json_t *report_kcidb_json(const struct report_data *data)
{
	json_t *root = json_object();

	if (!root)
		return NULL;
	json_object_set_new(root, "version", json_pack("{s:i,s:i}", "major", REPORT_KCIDB_MAJOR, "minor",
						       REPORT_KCIDB_MINOR));
	json_object_set_new(root, "checkouts", checkouts_json(data));
	json_object_set_new(root, "builds", builds_json(data));
	json_object_set_new(root, "tests", tests_json(data));
	add_culprits(root, data);
	return root;
}

/* ---- report nightly: every night's gate, merged ---------------------------------------------------- */

static json_t *find_by_id(const json_t *array, const char *id)
{
	size_t i;
	json_t *item;

	json_array_foreach(array, i, item) {
		const char *other = json_string_value(json_object_get(item, "id"));

		if (other && strcmp(other, id) == 0)
			return item;
	}
	return NULL;
}

/* Appends what `from` has under key that `into` lacks (by id). */
static int merge_objects(json_t *into, const json_t *from, const char *key)
{
	json_t *target = json_object_get(into, key), *item;
	size_t i;

	if (!json_array_size(json_object_get(from, key)))
		return 0;
	if (!target && json_object_set_new(into, key, target = json_array()) != 0)
		return -1;
	json_array_foreach(json_object_get(from, key), i, item) {
		const char *id = json_string_value(json_object_get(item, "id"));

		if (id && !find_by_id(target, id) && json_array_append(target, item) != 0)
			return -1;
	}
	return 0;
}

/* The head's checkout says which branch's night it was, and when. */
static void mark_head(json_t *root, const struct report_nights *nights, const char *branch,
		      const struct report_night *night)
{
	const char *slash = strchr(branch, '/');
	json_t *checkout, *misc, *list;
	char *id = NULL;

	if (asprintf(&id, ORIGIN ":%s/checkout/%s", nights->lab, night->head) < 0)
		return;
	checkout = find_by_id(json_object_get(root, "checkouts"), id);
	free(id);
	if (!checkout)
		return;
	if (slash) {
		char *tree = strndup(branch, (size_t)(slash - branch));

		set_text(checkout, "tree_name", tree);
		set_text(checkout, "git_repository_branch", slash + 1);
		free(tree);
	}
	if (!json_object_get(checkout, "start_time"))
		set_time(checkout, "start_time", night->created_ms);
	if (!(misc = json_object_get(checkout, "misc")))
		json_object_set_new(checkout, "misc", misc = json_object());
	if (!(list = json_object_get(misc, "nights")))
		json_object_set_new(misc, "nights", list = json_array());
	json_array_append_new(list, json_pack("{s:o,s:I,s:o}", "night", text_json(branch), "gate_id",
					      (json_int_t)night->gate_id, "verdict", text_json(night->verdict)));
}

json_t *report_kcidb_nights_json(const struct report_nights *nights)
{
	static const char *const keys[] = { "checkouts", "builds", "tests", "issues", "incidents" };
	json_t *root = json_object();
	size_t b, i, k;
	int rc = root ? 0 : -1;

	if (rc == 0)
		rc = json_object_set_new(root, "version", json_pack("{s:i,s:i}", "major", REPORT_KCIDB_MAJOR,
								   "minor", REPORT_KCIDB_MINOR));
	for (k = 0; rc == 0 && k < 3; k++)	/* the three arrays there always are, as for one gate */
		rc = json_object_set_new(root, keys[k], json_array());
	for (b = 0; rc == 0 && b < nights->branch_count; b++) {
		for (i = 0; rc == 0 && i < nights->branches[b].count; i++) {
			const struct report_night *night = &nights->branches[b].nights[i];
			json_t *one = night->gate_report ? report_kcidb_json(night->gate_report) : NULL;

			for (k = 0; one && rc == 0 && k < sizeof(keys) / sizeof(keys[0]); k++)
				rc = merge_objects(root, one, keys[k]);
			json_decref(one);
			if (rc == 0)
				mark_head(root, nights, nights->branches[b].night, night);
		}
	}
	if (rc) {
		json_decref(root);
		return NULL;
	}
	return root;
}
