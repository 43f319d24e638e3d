/* report_fixture.c - a gate with its bisection stored as rackbisect stores them, for the report tests. */
#include "report_fixture.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "path.h"

#define GIT "git -c user.name='Ann Author' -c user.email=ann@example.org -c init.defaultBranch=master"

static int fail(const char *what)
{
	fprintf(stderr, "report fixture: %s failed\n", what);
	return -1;
}

static int shell(const char *format, ...) __attribute__((format(printf, 1, 2)));

static int shell(const char *format, ...)
{
	char command[2048];
	va_list args;

	va_start(args, format);
	vsnprintf(command, sizeof(command), format, args);
	va_end(args);
	return system(command) == 0 ? 0 : fail(command);
}

static int head_commit(const char *tree, char *id)
{
	char command[512];
	FILE *pipe;
	int ok;

	snprintf(command, sizeof(command), "git -C '%s' rev-parse HEAD", tree);
	if (!(pipe = popen(command, "r")))
		return fail("git rev-parse");
	ok = fscanf(pipe, "%40s", id) == 1;
	return pclose(pipe) == 0 && ok ? 0 : fail("git rev-parse");
}

/* v3.3, a harmless commit, the culprit (hostile subject), one after it, v3.3.1-rc1. */
static int make_tree(struct report_fixture *fixture)
{
	static const char *const subjects[FIXTURE_COMMIT_COUNT] = {
		"Linux 3.3", "ath9k: tidy up comments", REPORT_FIXTURE_HOSTILE_SUBJECT,
		"mac80211: fix a typo", "Linux 3.3.1-rc1" };
	char message[256];
	int i;

	if (shell(GIT " init -q '%s'", fixture->tree))
		return -1;
	for (i = 0; i < FIXTURE_COMMIT_COUNT; i++) {
		if (path_format(message, sizeof(message), "%s/message", fixture->dir) ||
		    files_write_atomic(message, subjects[i]) != 0 ||
		    shell(GIT " -C '%s' commit -q --allow-empty -F '%s'", fixture->tree, message) ||
		    head_commit(fixture->tree, fixture->commits[i]))
			return -1;
		remove(message);
	}
	return shell(GIT " -C '%s' tag v3.3 %s && " GIT " -C '%s' tag v3.3.1-rc1 %s", fixture->tree,
		     fixture->commits[FIXTURE_GOOD], fixture->tree, fixture->commits[FIXTURE_BAD]);
}

static int record_builds(struct report_fixture *fixture, int64_t *build_ids)
{
	char artifact[128], log[128];
	int i;

	for (i = 0; i < FIXTURE_COMMIT_COUNT; i++) {
		snprintf(artifact, sizeof(artifact), "/cache/kernels/%.12s/bzImage", fixture->commits[i]);
		snprintf(log, sizeof(log), "/cache/kernels/%.12s/build log.txt", fixture->commits[i]);
		if (store_build_record(fixture->store, &(struct store_build){
			.commit = fixture->commits[i], .tree = fixture->commits[i], .status = BUILD_BUILT,
			.release = "3.3.0-model", .artifact_path = artifact, .log_path = log }, &build_ids[i]))
			return fail("store_build_record");
	}
	return 0;
}

/* The files a run keeps: every run its verdict and KTAP, a FAIL its dmesg and console too. */
static int keep_files(const struct report_fixture *fixture, int64_t run_id, enum run_outcome outcome)
{
	static const char *const names[] = { "verdict.txt", "output.ktap", "dmesg.log", "console.log" };
	char dir[512], path[600];
	size_t i, count = outcome == RUN_FAIL ? 4 : 2;

	if (path_format(dir, sizeof(dir), "%s/runs/%" PRId64, fixture->dir, run_id) || path_make_dirs(dir))
		return fail("run directory");
	for (i = 0; i < count; i++) {
		if (path_format(path, sizeof(path), "%s/%s", dir, names[i]) ||
		    files_write_atomic(path, outcome == RUN_FAIL ? REPORT_FIXTURE_EVIDENCE "\n" : "ok 1\n"))
			return fail("run file");
	}
	return 0;
}

struct run_plan {
	enum report_fixture_commit commit;
	const char *board, *workload;
	enum run_outcome outcome;
	const char *cause;
	double power_mw;		/* 0: no power metrics */
};

static int store_run(struct report_fixture *fixture, const int64_t *build_ids, const struct run_plan *plan,
		     int64_t *run_id)
{
	const struct store_symptom symptoms[] = { { REPORT_FIXTURE_SYMPTOM, REPORT_FIXTURE_EVIDENCE },
						  { "<img src=x onerror=alert(1)>", NULL } };
	/* two tests of 300 s each, 10 mW under and over the run's mean */
	const struct store_metric metrics[] = { { "duration", 600, "s" }, { "power_avg", plan->power_mw, "mW" },
						{ "energy", plan->power_mw * 0.6, "J" },
						{ "phase_power_1", plan->power_mw - 10, "mW" },
						{ "phase_power_2", plan->power_mw + 10, "mW" } };
	int with_build = plan->board != NULL;

	if (store_run_queue(fixture->store, &(struct store_run_request){
		.job = "stable-gate", .commit = fixture->commits[plan->commit],
		.build_id = with_build ? build_ids[plan->commit] : 0, .workload = plan->workload }, run_id) ||
	    store_run_start(fixture->store, *run_id, plan->board ? plan->board : "vb02") ||
	    store_run_finish(fixture->store, *run_id, &(struct store_result){
		.outcome = plan->outcome, .cause = plan->cause,
		.symptoms = plan->outcome == RUN_FAIL ? symptoms : NULL,
		.symptom_count = plan->outcome == RUN_FAIL ? 2 : 0,
		.metrics = plan->power_mw > 0 ? metrics : NULL, .metric_count = plan->power_mw > 0 ? 5 : 0 }))
		return fail("storing a run");
	return keep_files(fixture, *run_id, plan->outcome);
}

static json_t *counts(unsigned int pass, unsigned int fail, unsigned int skip, unsigned int infra)
{
	return json_pack("{s:i,s:i,s:i,s:i}", "pass", pass, "fail", fail, "skip", skip, "infra", infra);
}

static json_t *cell(const char *board, const char *chip, const char *workload, json_t *baseline,
		    json_t *candidate, const char *candidate_symptoms)
{
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:s,s:s}", "board", board, "chip", chip, "workload", workload,
			 "baseline", baseline, "candidate", candidate, "baseline_symptoms", "",
			 "candidate_symptoms", candidate_symptoms);
}

/* The gate as cli_gate.c asks it and gate.c answers it (gate_answer_json's keys). */
static int store_gate(struct report_fixture *fixture, const int64_t *build_ids)
{
	const struct run_plan plans[] = {
		{ FIXTURE_GOOD, "vb01", "W3", RUN_PASS, NULL, 400 },
		{ FIXTURE_GOOD, "vb01", "W3", RUN_PASS, NULL, 410 },
		{ FIXTURE_BAD, "vb01", "W3", RUN_FAIL, "hang", 850 },
		{ FIXTURE_BAD, "vb02", "W3", RUN_PASS, NULL, 420 },
		{ FIXTURE_BAD, "vb01", "W2", RUN_INFRA, "power switch timeout", 0 },
		{ FIXTURE_BAD, "vb02", "W2", RUN_SKIP, "did not boot to a shell", 0 },
	};
	int64_t *ids[] = { &fixture->baseline_pass[0], &fixture->baseline_pass[1], &fixture->candidate_fail,
			   &fixture->candidate_pass, &fixture->candidate_infra, &fixture->candidate_skip };
	json_t *spec = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:b,s:f}", "job", "jobs/stable-gate.yaml",
				 "tree", fixture->tree, "baseline", fixture->commits[FIXTURE_GOOD],
				 "candidate", fixture->commits[FIXTURE_BAD], "baseline_ref", "v3.3",
				 "candidate_ref", "v3.3.1-rc1", "bisect", 1, "released", 0, "confidence", 0.99);
	json_t *answer = json_pack("{s:s,s:s,s:i,s:o,s:o,s:b,s:[{s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:f,s:b,s:I}],"
				   "s:[oooo]}",
		"verdict", "REGRESSION", "reason", "", "rounds", 2, "baseline", counts(2, 0, 0, 0),
		"candidate", counts(1, 1, 1, 1), "candidate_build_failed", 0,
		"regressions", "workload", "W3", "symptom", REPORT_FIXTURE_SYMPTOM, "symptoms",
		REPORT_FIXTURE_SYMPTOM ",<img src=x onerror=alert(1)>", "boards", "vb01", "known_failing", "",
		"candidate_fails", 1, "candidate_runs", 1, "baseline_passes", 2, "passes_needed", 2,
		"fail_rate", 0.67, "confirmed", 1, "example_run", (json_int_t)0,
		"cells", cell("vb01", "ar9285", "W3", counts(2, 0, 0, 0), counts(0, 1, 0, 0), REPORT_FIXTURE_SYMPTOM),
		cell("vb02", "ar5416", "W3", counts(0, 0, 0, 0), counts(1, 0, 0, 0), ""),
		cell("vb01", "ar9285", "W2", counts(0, 0, 0, 0), counts(0, 0, 0, 1), ""),
		cell("vb02", "ar5416", "W2", counts(0, 0, 0, 0), counts(0, 0, 1, 0), ""));
	char *spec_text = spec ? json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS) : NULL, *answer_text;
	size_t i;
	int rc = spec_text ? store_gate_create(fixture->store, "stable-gate", spec_text, &fixture->gate_id) : -1;

	for (i = 0; rc == 0 && i < sizeof(plans) / sizeof(plans[0]); i++) {
		rc = store_run(fixture, build_ids, &plans[i], ids[i]);
		if (rc == 0)
			rc = store_gate_add_run(fixture->store, fixture->gate_id, *ids[i],
						plans[i].commit == FIXTURE_GOOD ? "baseline" : "candidate");
	}
	fixture->gate_runs = (unsigned int)i;
	json_object_set_new(json_array_get(json_object_get(answer, "regressions"), 0), "example_run",
			    json_integer(fixture->candidate_fail));
	answer_text = answer ? json_dumps(answer, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (rc == 0 && (!answer_text || store_gate_finish(fixture->store, fixture->gate_id, STORE_GATE_DONE,
							  "REGRESSION", answer_text)))
		rc = -1;
	free(spec_text), free(answer_text);
	json_decref(spec), json_decref(answer);
	return rc ? fail("storing the gate") : 0;
}

/* The bisection the gate started (cli_gate.c's spec, lab_bisect.c's answer). */
static int store_bisection(struct report_fixture *fixture, const int64_t *build_ids)
{
	static const char *const roles[] = { "good-end", "candidate", "candidate", "confirm", "confirm", "candidate" };
	const struct run_plan plans[] = {
		{ FIXTURE_GOOD, "vb01", "W3", RUN_PASS, NULL, 405 },
		{ FIXTURE_CULPRIT, "vb01", "W3", RUN_FAIL, "hang", 830 },
		{ FIXTURE_HARMLESS, "vb01", "W3", RUN_PASS, NULL, 402 },
		{ FIXTURE_CULPRIT, "vb01", "W3", RUN_FAIL, NULL, 845 },
		{ FIXTURE_HARMLESS, "vb01", "W3", RUN_PASS, NULL, 398 },
		{ FIXTURE_AFTER, "vb01", "W3", RUN_INFRA, "board unreachable before boot", 0 },
	};
	json_t *spec = json_pack("{s:s,s:s,s:s,s:s,s:[s],s:[s],s:s,s:s,s:[s],s:b,s:s,s:f,s:i}",
		"job", "jobs/stable-gate.yaml", "tree", fixture->tree, "bad", fixture->commits[FIXTURE_BAD],
		"bad_ref", "v3.3.1-rc1", "goods", fixture->commits[FIXTURE_GOOD], "good_refs", "v3.3",
		"symptom", REPORT_FIXTURE_SYMPTOM, "workload", "W3", "boards", "vb01", "revert_check", 0,
		"step", "done", "confidence", 0.99, "max_runs", 0);
	json_t *answer = json_pack("{s:s,s:s,s:f,s:f,s:i,s:i,s:i,s:i,s:i,s:s,s:s,s:s,s:s,s:s,s:[]}",
		"state", "found", "culprit", fixture->commits[FIXTURE_CULPRIT], "probability", 0.9931,
		"fail_rate_estimate", 0.9, "runs", 7, "evidence_runs", 6, "rounds", 3, "built_ahead", 2,
		"built_ahead_used", 1, "symptom", REPORT_FIXTURE_SYMPTOM, "workload", "W3", "reason", "",
		"confirmation", "fails with the symptom; its parent passed 2 runs", "revert", "", "undecided");
	char *spec_text = spec ? json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	char *answer_text = answer ? json_dumps(answer, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	size_t i;
	int rc = spec_text && answer_text ? store_bisection_create(fixture->store, "stable-gate", spec_text,
								   &fixture->bisection_id) : -1;

	/* the gate's failing candidate run is the bad end: shared, as gate --bisect starts from it */
	fixture->bisection_runs[0] = fixture->candidate_fail;
	if (rc == 0)
		rc = store_bisection_add_run(fixture->store, fixture->bisection_id, fixture->candidate_fail, "bad-end");
	for (i = 0; rc == 0 && i < sizeof(plans) / sizeof(plans[0]); i++) {
		rc = store_run(fixture, build_ids, &plans[i], &fixture->bisection_runs[i + 1]);
		if (rc == 0)
			rc = store_bisection_add_run(fixture->store, fixture->bisection_id,
						     fixture->bisection_runs[i + 1], roles[i]);
	}
	fixture->bisection_run_count = (unsigned int)i + 1;
	if (rc == 0)
		rc = store_bisection_finish(fixture->store, fixture->bisection_id, STORE_BISECTION_DONE, answer_text);
	if (rc == 0)
		rc = store_gate_set_bisection(fixture->store, fixture->gate_id, fixture->bisection_id);
	free(spec_text), free(answer_text);
	json_decref(spec), json_decref(answer);
	return rc ? fail("storing the bisection") : 0;
}

/* ---- the nights ------------------------------------------------------------------------------ */

struct night_plan {
	const char *job, *night;
	enum report_fixture_commit head, baseline;
	const char *verdict, *reason;
	struct run_plan runs[2];	/* the head's; board NULL ends them */
	const char *symptoms[2];	/* W3's and W2's regression, NULL: none */
};

static json_t *night_regressions(const struct night_plan *plan)
{
	static const char *const workloads[] = { "W3", "W2" };
	json_t *regressions = json_array();
	size_t i;

	for (i = 0; i < 2; i++) {
		if (plan->symptoms[i])
			json_array_append_new(regressions, json_pack(
				"{s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:f,s:b,s:i}", "workload", workloads[i],
				"symptom", plan->symptoms[i], "symptoms", plan->symptoms[i], "boards", "vb01",
				"known_failing", "", "candidate_fails", 1, "candidate_runs", 1, "baseline_passes", 2,
				"passes_needed", 2, "fail_rate", 0.5, "confirmed", 1, "example_run", 0));
	}
	return regressions;
}

/* A night as cli_gate.c --night asks it and gate.c answers it: its spec, the head's runs, the verdict. */
static int store_night(struct report_fixture *fixture, const int64_t *build_ids, const struct night_plan *plan,
		       int64_t *gate_id)
{
	unsigned int by_outcome[RUN_OUTCOME_COUNT] = { 0 };
	json_t *spec = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:b,s:f,s:s}", "job", plan->job, "tree",
				 fixture->tree, "baseline", fixture->commits[plan->baseline], "candidate",
				 fixture->commits[plan->head], "baseline_ref", fixture->commits[plan->baseline],
				 "candidate_ref", fixture->commits[plan->head], "bisect", 1, "released", 0,
				 "confidence", 0.99, "night", plan->night);
	char *text = spec ? json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	int64_t run_id;
	json_t *answer;
	size_t i;
	int rc = text ? store_gate_create(fixture->store, plan->job, text, gate_id) : -1;

	for (i = 0; rc == 0 && i < 2 && plan->runs[i].board; i++) {
		rc = store_run(fixture, build_ids, &plan->runs[i], &run_id);
		if (rc == 0)
			rc = store_gate_add_run(fixture->store, *gate_id, run_id, "candidate");
		by_outcome[plan->runs[i].outcome]++;
	}
	free(text);
	answer = json_pack("{s:s,s:s,s:i,s:o,s:o,s:b,s:o,s:[]}", "verdict", plan->verdict, "reason", plan->reason,
			   "rounds", 1, "baseline", counts(2, 0, 0, 0), "candidate",
			   counts(by_outcome[RUN_PASS], by_outcome[RUN_FAIL], by_outcome[RUN_SKIP],
				  by_outcome[RUN_INFRA]), "candidate_build_failed", 0,
			   "regressions", night_regressions(plan), "cells");
	text = answer ? json_dumps(answer, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (rc == 0 && (!text || store_gate_finish(fixture->store, *gate_id, STORE_GATE_DONE, plan->verdict, text)))
		rc = -1;
	free(text);
	json_decref(spec), json_decref(answer);
	return rc ? fail("storing a night") : 0;
}

/* The bisection NIGHT_BISECTED started: found the culprit between its heads. */
static int store_night_bisection(struct report_fixture *fixture)
{
	json_t *spec = json_pack("{s:s,s:s,s:s,s:s,s:[s],s:[s],s:s,s:s,s:[s],s:b,s:s,s:f,s:i}",
		"job", "jobs/stable-nightly.yaml", "tree", fixture->tree, "bad", fixture->commits[FIXTURE_AFTER],
		"bad_ref", fixture->commits[FIXTURE_AFTER], "goods", fixture->commits[FIXTURE_HARMLESS], "good_refs",
		fixture->commits[FIXTURE_HARMLESS], "symptom", REPORT_FIXTURE_SYMPTOM, "workload", "W3", "boards",
		"vb01", "revert_check", 0, "step", "done", "confidence", 0.99, "max_runs", 0);
	json_t *answer = json_pack("{s:s,s:s,s:f,s:i,s:s,s:s,s:s}", "state", "found", "culprit",
				   fixture->commits[FIXTURE_CULPRIT], "probability", 0.995, "runs", 6, "symptom",
				   REPORT_FIXTURE_SYMPTOM, "workload", "W3", "reason", "");
	char *spec_text = spec ? json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	char *answer_text = answer ? json_dumps(answer, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	int rc = spec_text && answer_text ? store_bisection_create(fixture->store, "stable-nightly", spec_text,
								   &fixture->night_bisection) : -1;

	if (rc == 0)
		rc = store_bisection_finish(fixture->store, fixture->night_bisection, STORE_BISECTION_DONE, answer_text);
	free(spec_text), free(answer_text);
	json_decref(spec), json_decref(answer);
	return rc ? fail("storing the nights' bisection") : 0;
}

static int store_nights(struct report_fixture *fixture, const int64_t *build_ids)
{
	const struct night_plan plans[FIXTURE_NIGHT_COUNT] = {
		[NIGHT_PASS] = { "stable-nightly", REPORT_FIXTURE_BRANCH, FIXTURE_HARMLESS, FIXTURE_HARMLESS, "PASS", "",
			{ { FIXTURE_HARMLESS, "vb01", "W3", RUN_PASS, NULL, 400 },
			  { FIXTURE_HARMLESS, "vb02", "W3", RUN_PASS, NULL, 420 } }, { NULL, NULL } },
		[NIGHT_BISECTED] = { "stable-nightly", REPORT_FIXTURE_BRANCH, FIXTURE_AFTER, FIXTURE_HARMLESS,
			"REGRESSION", "", { { FIXTURE_AFTER, "vb01", "W3", RUN_FAIL, "hang", 800 },
					    { FIXTURE_AFTER, "vb02", "W3", RUN_PASS, NULL, 400 } },
			{ REPORT_FIXTURE_SYMPTOM, NULL } },
		[NIGHT_OTHER_BRANCH] = { "mainline-nightly", REPORT_FIXTURE_OTHER_BRANCH, FIXTURE_GOOD, FIXTURE_GOOD,
			"INCOMPLETE", "every board was unreachable",
			{ { FIXTURE_GOOD, "vb01", "W3", RUN_INFRA, "board unreachable before boot", 0 } }, { NULL, NULL } },
		[NIGHT_REUSED] = { "stable-nightly", REPORT_FIXTURE_BRANCH, FIXTURE_BAD, FIXTURE_HARMLESS, "REGRESSION",
			"", { { FIXTURE_BAD, "vb01", "W3", RUN_FAIL, "hang", 900 } },
			{ REPORT_FIXTURE_SYMPTOM, REPORT_FIXTURE_HOSTILE_SYMPTOM } },
	};
	size_t i;

	for (i = 0; i < FIXTURE_NIGHT_COUNT; i++) {
		if (store_night(fixture, build_ids, &plans[i], &fixture->night_gates[i]))
			return -1;
		if (i == NIGHT_BISECTED && (store_night_bisection(fixture) ||
					    store_gate_set_bisection(fixture->store, fixture->night_gates[i],
								     fixture->night_bisection)))
			return fail("the night's bisection");
	}
	/* the later night named the stored answer instead of bisecting again (gate.c reuse_bisection) */
	return store_gate_set_bisection(fixture->store, fixture->night_gates[NIGHT_REUSED], fixture->night_bisection)
		? fail("reusing the night's bisection") : 0;
}

int report_fixture_make(const char *dir, struct report_fixture *fixture)
{
	int64_t build_ids[FIXTURE_COMMIT_COUNT];
	char database[300];

	memset(fixture, 0, sizeof(*fixture));
	if (dir) {
		snprintf(fixture->dir, sizeof(fixture->dir), "%s", dir);
		if (path_make_dirs(dir))
			return fail("making the state directory");
	} else {
		snprintf(fixture->dir, sizeof(fixture->dir), "/tmp/rackbisect-report-test-XXXXXX");
		if (!mkdtemp(fixture->dir))
			return fail("mkdtemp");
	}
	snprintf(fixture->tree, sizeof(fixture->tree), "%s/tree", fixture->dir);
	snprintf(database, sizeof(database), "%s/state.db", fixture->dir);
	if (make_tree(fixture) || store_open(database, &fixture->store) || record_builds(fixture, build_ids) ||
	    store_nights(fixture, build_ids) || store_gate(fixture, build_ids) || store_bisection(fixture, build_ids))
		return -1;
	/* a run of no gate or bisection, with no build recorded, lab trouble in bytes that are not UTF-8 */
	return store_run(fixture, build_ids, &(struct run_plan){ FIXTURE_GOOD, NULL, "W1", RUN_INFRA,
							    REPORT_FIXTURE_NOT_UTF8_CAUSE, 0 },
			 &fixture->lone_run);
}

void report_fixture_free(struct report_fixture *fixture, int keep)
{
	store_close(fixture->store);
	fixture->store = NULL;
	if (!keep && fixture->dir[0])
		files_remove_tree(fixture->dir);
}

/* cmocka's fail_msg needs its headers; the helper stays free of them and aborts instead. */
void report_fixture_load(const struct report_fixture *fixture, enum report_subject subject, int64_t id,
			 struct report_data *data)
{
	char error[512];
	int rc = report_data_load(fixture->store, &(struct report_request){
		.subject = subject, .id = id, .state_dir = fixture->dir, .lab = "virtual" }, data, error,
		sizeof(error));

	if (rc) {
		fprintf(stderr, "report fixture: report_data_load: %d %s\n", rc, error);
		abort();
	}
}

char *report_fixture_capture(void (*write)(FILE *out, const struct report_data *data),
			     const struct report_data *data)
{
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	if (!out)
		abort();
	write(out, data);
	if (fclose(out) != 0)
		abort();
	return text;
}

unsigned int report_fixture_count(const char *text, const char *needle)
{
	unsigned int count = 0;

	for (text = strstr(text, needle); text; text = strstr(text + 1, needle))
		count++;
	return count;
}

int report_fixture_setup(void **state)
{
	struct report_fixture *fixture = calloc(1, sizeof(*fixture));

	if (!fixture || report_fixture_make(NULL, fixture) != 0) {
		free(fixture);
		return -1;
	}
	*state = fixture;
	return 0;
}

int report_fixture_teardown(void **state)
{
	report_fixture_free(*state, 0);
	free(*state);
	return 0;
}
