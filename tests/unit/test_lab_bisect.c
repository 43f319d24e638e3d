/* How stored runs count as a lab bisection's evidence, and the replay that
 * `bisect status` and `bisect resume` start from. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_bisect.h"

static json_t *spec_for(const char *symptom, const char *workload, const char *boards_json)
{
	json_error_t error;
	char text[512];
	json_t *spec;

	snprintf(text, sizeof(text),
		 "{\"symptom\": \"%s\", \"workload\": \"%s\", \"boards\": %s, \"goods\": [\"g0\"],"
		 " \"confidence\": 0.99}", symptom, workload, boards_json);
	spec = json_loads(text, 0, &error);
	assert_non_null(spec);
	return spec;
}

static struct store_run run_of(enum run_outcome outcome, const char *board, const char *workload,
			       struct store_symptom *symptoms, size_t symptom_count)
{
	return (struct store_run){
		.id = 1, .job = "ath9k-ps", .board = board, .commit = "c1", .workload = workload,
		.state = RUN_DONE, .outcome = outcome, .symptoms = symptoms,
		.symptom_count = symptom_count,
	};
}

static void test_only_the_tracked_symptom_is_a_fail(void **state)
{
	struct store_symptom tracked[] = { { "txdma-stop-fail", NULL }, { "auth-timeout", "line" } };
	struct store_symptom other[] = { { "ping-loss", NULL } };
	json_t *spec = spec_for("auth-timeout", "W3", "[\"vb01\"]");
	struct store_run with = run_of(RUN_FAIL, "vb01", "W3", tracked, 2);
	struct store_run without = run_of(RUN_FAIL, "vb01", "W3", other, 1);
	const char *why;

	(void)state;
	assert_int_equal(lab_bisect_evidence_of(&with, spec, &why), LAB_BISECT_EVIDENCE_FAIL);
	assert_int_equal(lab_bisect_evidence_of(&without, spec, &why), LAB_BISECT_EVIDENCE_IGNORED);
	assert_non_null(strstr(why, "another symptom"));
	json_decref(spec);
}

static void test_pass_skip_and_infra(void **state)
{
	json_t *spec = spec_for("auth-timeout", "W3", "[\"vb01\"]");
	struct store_run pass = run_of(RUN_PASS, "vb01", "W3", NULL, 0);
	struct store_run skip = run_of(RUN_SKIP, NULL, "W3", NULL, 0);	/* build failed: no board */
	struct store_run infra = run_of(RUN_INFRA, "vb01", "W3", NULL, 0);
	struct store_run unfinished = run_of(RUN_OUTCOME_NONE, "vb01", "W3", NULL, 0);
	const char *why;

	(void)state;
	unfinished.state = RUN_RUNNING;
	assert_int_equal(lab_bisect_evidence_of(&pass, spec, NULL), LAB_BISECT_EVIDENCE_PASS);
	assert_int_equal(lab_bisect_evidence_of(&skip, spec, NULL), LAB_BISECT_EVIDENCE_SKIP);
	assert_int_equal(lab_bisect_evidence_of(&infra, spec, &why), LAB_BISECT_EVIDENCE_IGNORED);
	assert_non_null(strstr(why, "INFRA"));
	assert_int_equal(lab_bisect_evidence_of(&unfinished, spec, NULL), LAB_BISECT_EVIDENCE_IGNORED);
	json_decref(spec);
}

static void test_other_workloads_and_boards_are_not_evidence(void **state)
{
	struct store_symptom tracked[] = { { "auth-timeout", NULL } };
	json_t *spec = spec_for("auth-timeout", "W3", "[\"vb01\", \"vb02\"]");
	json_t *any_board = spec_for("auth-timeout", "W3", "[]");
	struct store_run other_workload = run_of(RUN_FAIL, "vb01", "W2", tracked, 1);
	struct store_run other_board = run_of(RUN_PASS, "vb05", "W3", NULL, 0);
	struct store_run listed_board = run_of(RUN_PASS, "vb02", "W3", NULL, 0);

	(void)state;
	assert_int_equal(lab_bisect_evidence_of(&other_workload, spec, NULL),
			 LAB_BISECT_EVIDENCE_IGNORED);
	assert_int_equal(lab_bisect_evidence_of(&other_board, spec, NULL), LAB_BISECT_EVIDENCE_IGNORED);
	assert_int_equal(lab_bisect_evidence_of(&listed_board, spec, NULL), LAB_BISECT_EVIDENCE_PASS);
	assert_int_equal(lab_bisect_evidence_of(&other_board, any_board, NULL),
			 LAB_BISECT_EVIDENCE_PASS);
	json_decref(spec);
	json_decref(any_board);
}

/* ---- replay ----------------------------------------------------------------------------- */

/* Linear c0 (oldest) .. c7 (bad); the array newest first, as rev-list gives it. */
#define COMMITS 8
static char ids[COMMITS][8];
static char *id_pointers[COMMITS];
static size_t parent_index[COMMITS];
static struct bisect_commit commits[COMMITS];
static struct commit_graph linear_graph(void)
{
	size_t i;

	for (i = 0; i < COMMITS; i++) {
		snprintf(ids[i], sizeof(ids[i]), "c%zu", COMMITS - 1 - i);
		id_pointers[i] = ids[i];
		parent_index[i] = i + 1;
		commits[i] = (struct bisect_commit){ ids[i], &parent_index[i], i + 1 < COMMITS };
	}
	return (struct commit_graph){ .commits = commits, .count = COMMITS, .bad_index = 0,
				      .ids = id_pointers };
}

static void store_result(struct store *store, int64_t bisection, const char *commit,
			 const char *board, enum run_outcome outcome, const char *symptom)
{
	struct store_symptom symptoms[] = { { symptom, NULL } };
	int64_t run;

	assert_int_equal(store_run_queue(store, &(struct store_run_request){
		.job = "ath9k-ps", .board = board, .commit = commit, .workload = "W3" }, &run), 0);
	assert_int_equal(store_bisection_add_run(store, bisection, run, "candidate"), 0);
	assert_int_equal(store_run_start(store, run, board), 0);
	assert_int_equal(store_run_finish(store, run, &(struct store_result){
		.outcome = outcome, .symptoms = symptoms, .symptom_count = symptom ? 1 : 0 }), 0);
}

static void test_replay_gives_the_engine_every_finished_run(void **state)
{
	char dir[] = "/tmp/rackbisect-test-lab-bisect-XXXXXX", path[128], command[160];
	struct commit_graph graph = linear_graph();
	json_t *spec = spec_for("auth-timeout", "W3", "[\"vb01\"]");
	struct bisect_status status;
	struct bisect *engine;
	struct store *store;
	int64_t bisection;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.db", dir);
	assert_int_equal(store_open(path, &store), 0);
	assert_int_equal(store_bisection_create(store, "ath9k-ps", "{}", &bisection), 0);
	/* c3 fails with the symptom, c2 passes (twice), c4 fails with another
	 * symptom (not evidence), an INFRA at c1, a run on a board that does
	 * not reproduce: c3 is the culprit once p is taken as 1 */
	store_result(store, bisection, "c3", "vb01", RUN_FAIL, "auth-timeout");
	store_result(store, bisection, "c2", "vb01", RUN_PASS, NULL);
	store_result(store, bisection, "c2", "vb01", RUN_PASS, NULL);
	store_result(store, bisection, "c4", "vb01", RUN_FAIL, "ping-loss");
	store_result(store, bisection, "c1", "vb01", RUN_INFRA, NULL);
	store_result(store, bisection, "c2", "vb09", RUN_FAIL, "auth-timeout");
	json_object_set_new(spec, "max_runs", json_integer(0));
	assert_int_equal(lab_bisect_replay(store, bisection, spec, &graph, &engine), 0);
	bisect_status(engine, &status);
	assert_int_equal(status.runs, 3);	/* the three runs that are evidence */
	assert_string_equal(graph.ids[status.best], "c3");
	assert_true(bisect_probability(engine, 4) > bisect_probability(engine, 0));
	bisect_free(engine);
	store_close(store);
	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	assert_int_equal(system(command), 0);
	json_decref(spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_the_tracked_symptom_is_a_fail),
		cmocka_unit_test(test_pass_skip_and_infra),
		cmocka_unit_test(test_other_workloads_and_boards_are_not_evidence),
		cmocka_unit_test(test_replay_gives_the_engine_every_finished_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
