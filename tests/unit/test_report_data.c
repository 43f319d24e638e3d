/*
 * test_report_data.c - what a report shows, read from a store made with the
 * store.h API: a gate with its runs, matrix and bisection; the bisection's
 * path replayed from the tree; a lone run; clear errors for what is not
 * there or damaged.
 *
 * With RACKBISECT_REPORT_FIXTURE=DIR set, it only makes the fixture state in
 * DIR and prints its ids (tests/integration/test_report.sh uses that to run
 * `rackbisect report` on a real state).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "helpers/report_fixture.h"
#include "report_data.h"

static void load(struct report_fixture *fixture, enum report_subject subject, int64_t id,
		 struct report_data *data)
{
	char error[512];
	int rc = report_data_load(fixture->store, &(struct report_request){
		.subject = subject, .id = id, .state_dir = fixture->dir, .lab = "virtual" }, data, error,
		sizeof(error));

	if (rc)
		fail_msg("report_data_load: %d %s", rc, error);
}

static const struct report_run *run_entry(const struct report_data *data, int64_t id)
{
	size_t i;

	for (i = 0; i < data->run_count; i++) {
		if (data->runs[i].run->id == id)
			return &data->runs[i];
	}
	fail_msg("run %" PRId64 " is not in the report", id);
	return NULL;
}

static void test_gate_has_matrix_runs_builds_and_its_bisection(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_data data;
	const struct report_run *shared;

	load(fixture, REPORT_SUBJECT_GATE, fixture->gate_id, &data);
	assert_int_equal(data.subject, REPORT_SUBJECT_GATE);
	assert_string_equal(data.verdict, "REGRESSION");
	assert_non_null(strstr(data.title, "gate"));
	assert_non_null(strstr(data.title, "v3.3.1-rc1 against v3.3"));
	assert_non_null(strstr(data.summary, "W3 regressed"));
	assert_int_equal(data.gate->cell_count, 4);
	assert_int_equal(data.gate->cells[0].baseline[RUN_PASS], 2);
	assert_int_equal(data.gate->cells[0].candidate[RUN_FAIL], 1);
	assert_int_equal(data.gate->regression_count, 1);
	assert_int_equal(data.gate->regressions[0].example_run, fixture->candidate_fail);
	/* the bad end the gate and the bisection share is listed once, with both roles */
	assert_int_equal(data.run_count, fixture->gate_runs + fixture->bisection_run_count - 1);
	shared = run_entry(&data, fixture->candidate_fail);
	assert_string_equal(shared->role, "candidate");
	assert_string_equal(shared->bisection_role, "bad-end");
	assert_null(run_entry(&data, fixture->baseline_pass[0])->bisection_role);
	assert_null(run_entry(&data, fixture->bisection_runs[1])->role);
	assert_int_equal(data.commit_count, FIXTURE_COMMIT_COUNT);
	assert_string_equal(report_data_commit(&data, fixture->commits[FIXTURE_GOOD])->ref, "v3.3");
	assert_string_equal(report_data_commit(&data, fixture->commits[FIXTURE_BAD])->ref, "v3.3.1-rc1");
	assert_int_equal(data.build_count, FIXTURE_COMMIT_COUNT);
	assert_non_null(report_data_build(&data, shared->run->build_id));
	assert_true(shared->file_kept[4]);	/* dmesg.log of a FAIL */
	assert_false(run_entry(&data, fixture->candidate_pass)->file_kept[4]);
	assert_non_null(data.bisection);
	assert_int_equal(data.bisection->id, fixture->bisection_id);
	report_data_release(&data);
}

static void test_bisection_path_narrows_to_the_culprit(void **state)
{
	struct report_fixture *fixture = *state;
	const char *culprit = fixture->commits[FIXTURE_CULPRIT];
	const struct report_bisection *bisection;
	struct report_data data;
	size_t i;

	load(fixture, REPORT_SUBJECT_BISECTION, fixture->bisection_id, &data);
	bisection = data.bisection;
	assert_int_equal(data.subject, REPORT_SUBJECT_BISECTION);
	assert_null(data.gate);
	assert_string_equal(data.verdict, "found");
	assert_string_equal(bisection->culprit, culprit);
	assert_non_null(strstr(report_data_commit(&data, culprit)->description, REPORT_FIXTURE_HOSTILE_SUBJECT));
	assert_non_null(strstr(data.summary, REPORT_FIXTURE_HOSTILE_SUBJECT));
	assert_null(bisection->path_note);
	assert_int_equal(bisection->candidate_count, 4);	/* v3.3..v3.3.1-rc1 */
	assert_int_equal(bisection->step_count, fixture->bisection_run_count);
	assert_int_equal(data.run_count, fixture->bisection_run_count);
	for (i = 0; i < bisection->step_count; i++) {
		const struct report_step *step = &bisection->steps[i];
		double sum = 0;
		size_t t;

		assert_true(step->has_belief);
		assert_int_equal(data.runs[step->run].run->id, fixture->bisection_runs[i]);
		/* every candidate left is in the step's top list (4 < 8), most probable first */
		assert_int_equal(step->top_count, step->candidates_left);
		assert_string_equal(step->top[0].id, step->best);
		assert_true(step->top[0].probability == step->best_probability);
		for (t = 0; t < step->top_count; t++) {
			assert_true(t == 0 || step->top[t].probability <= step->top[t - 1].probability);
			sum += step->top[t].probability;
		}
		/* with "no regression" and "the good end is bad", the whole belief */
		assert_true(step->beyond_candidates >= 0 && step->beyond_candidates < 1);
		sum += step->beyond_candidates;
		assert_true(sum > 0.999 && sum < 1.001);
	}
	/* the INFRA run is no evidence and says why; the FAILs with the symptom are */
	assert_false(bisection->steps[6].counted);
	assert_string_equal(data.runs[bisection->steps[6].run].evidence, "ignored");
	assert_non_null(strstr(data.runs[bisection->steps[6].run].not_evidence_why, "INFRA"));
	assert_string_equal(data.runs[bisection->steps[2].run].evidence, "FAIL");
	assert_true(bisection->steps[2].counted);
	/* the belief narrowed: the culprit is best at the end, more probable than at the start */
	assert_string_equal(bisection->steps[6].best, culprit);
	assert_true(bisection->steps[6].best_probability > bisection->steps[0].best_probability);
	assert_true(bisection->steps[6].candidates_left <= bisection->steps[0].candidates_left);
	report_data_release(&data);
}

static void test_latest_is_the_gate_with_its_own_bisection(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_data data;

	load(fixture, REPORT_SUBJECT_LATEST, 0, &data);
	assert_int_equal(data.subject, REPORT_SUBJECT_GATE);
	assert_int_equal(data.gate->id, fixture->gate_id);
	assert_int_equal(data.bisection->id, fixture->bisection_id);
	report_data_release(&data);
	load(fixture, REPORT_SUBJECT_BISECTION, 0, &data);
	assert_int_equal(data.bisection->id, fixture->bisection_id);
	report_data_release(&data);
}

static void test_lone_run(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_data data;

	load(fixture, REPORT_SUBJECT_RUN, fixture->lone_run, &data);
	assert_int_equal(data.subject, REPORT_SUBJECT_RUN);
	assert_string_equal(data.verdict, "INFRA");
	assert_non_null(strstr(data.summary, "console said"));
	assert_int_equal(data.run_count, 1);
	assert_string_equal(data.runs[0].role, "run");
	assert_int_equal(data.build_count, 0);	/* it names no build */
	assert_null(data.gate);
	assert_null(data.bisection);
	report_data_release(&data);
}

static void expect_missing(struct report_fixture *fixture, enum report_subject subject, int64_t id,
			   const char *says, const char *advice)
{
	struct report_data data;
	char error[512];

	assert_int_equal(report_data_load(fixture->store, &(struct report_request){
		.subject = subject, .id = id, .state_dir = fixture->dir, .lab = "virtual" }, &data, error,
		sizeof(error)), -ENOENT);
	assert_non_null(strstr(error, says));
	assert_non_null(strstr(error, advice));
	assert_null(data.runs);
}

static void test_what_is_not_there_is_named_with_what_to_do(void **state)
{
	struct report_fixture *fixture = *state;

	expect_missing(fixture, REPORT_SUBJECT_RUN, 9999, "no run 9999", "rackbisect runs");
	expect_missing(fixture, REPORT_SUBJECT_GATE, 9999, "no gate 9999", "give the ID");
	expect_missing(fixture, REPORT_SUBJECT_BISECTION, 9999, "no bisection 9999", "bisect status");
}

static void test_without_the_tree_the_path_says_why(void **state)
{
	struct report_fixture *fixture = *state;
	char moved[400];
	struct report_data data;

	snprintf(moved, sizeof(moved), "%s.moved", fixture->tree);
	assert_int_equal(rename(fixture->tree, moved), 0);
	load(fixture, REPORT_SUBJECT_BISECTION, fixture->bisection_id, &data);
	assert_int_equal(rename(moved, fixture->tree), 0);
	assert_non_null(data.bisection->path_note);
	assert_non_null(strstr(data.bisection->path_note, fixture->tree));
	assert_false(data.bisection->steps[0].has_belief);
	assert_null(report_data_commit(&data, fixture->commits[FIXTURE_CULPRIT])->description);
	/* the runs and the answer are still there */
	assert_int_equal(data.run_count, fixture->bisection_run_count);
	assert_string_equal(data.bisection->culprit, fixture->commits[FIXTURE_CULPRIT]);
	report_data_release(&data);
}

static void test_empty_and_damaged_states_are_errors_not_crashes(void **state)
{
	char dir[] = "/tmp/rackbisect-report-empty-XXXXXX", database[128], error[512];
	struct report_data data;
	struct store *store = NULL;
	int64_t gate_id;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(database, sizeof(database), "%s/state.db", dir);
	assert_int_equal(store_open(database, &store), 0);
	assert_int_equal(report_data_load(store, &(struct report_request){ .state_dir = dir }, &data, error,
					  sizeof(error)), -ENOENT);
	assert_non_null(strstr(error, "no gate or bisection"));
	assert_int_equal(store_gate_create(store, "job", "{not json", &gate_id), 0);
	assert_int_equal(report_data_load(store, &(struct report_request){
		.subject = REPORT_SUBJECT_GATE, .state_dir = dir }, &data, error, sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "damaged"));
	store_close(store);
	files_remove_tree(dir);
}

static void test_utf8_lengths(void **state)
{
	(void)state;
	assert_int_equal(report_utf8_length("a"), 1);
	assert_int_equal(report_utf8_length("\xc3\xa9"), 2);
	assert_int_equal(report_utf8_length("\xe2\x82\xac"), 3);
	assert_int_equal(report_utf8_length("\xf0\x9f\x98\x80"), 4);
	assert_int_equal(report_utf8_length("\xc3\x28"), 0);		/* cut short */
	assert_int_equal(report_utf8_length("\xc0\xaf"), 0);		/* overlong */
	assert_int_equal(report_utf8_length("\xed\xa0\x80"), 0);	/* a surrogate */
	assert_int_equal(report_utf8_length("\xff"), 0);
}

/* The integration test's fixture: made where it says, ids on stdout. */
static int make_fixture_only(const char *dir)
{
	struct report_fixture fixture;
	int rc = report_fixture_make(dir, &fixture);

	if (rc == 0)
		printf("gate=%" PRId64 " bisection=%" PRId64 " lone=%" PRId64 " fail=%" PRId64 " infra=%" PRId64
		       " skip=%" PRId64 " pass=%" PRId64 " culprit=%s tree=%s night_bisected=%" PRId64
		       " night_bisection=%" PRId64 "\n", fixture.gate_id,
		       fixture.bisection_id, fixture.lone_run, fixture.candidate_fail, fixture.candidate_infra,
		       fixture.candidate_skip, fixture.candidate_pass, fixture.commits[FIXTURE_CULPRIT],
		       fixture.tree, fixture.night_gates[NIGHT_BISECTED], fixture.night_bisection);
	report_fixture_free(&fixture, 1);
	return rc ? 1 : 0;
}

int main(void)
{
	const char *fixture_dir = getenv("RACKBISECT_REPORT_FIXTURE");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_has_matrix_runs_builds_and_its_bisection),
		cmocka_unit_test(test_bisection_path_narrows_to_the_culprit),
		cmocka_unit_test(test_latest_is_the_gate_with_its_own_bisection),
		cmocka_unit_test(test_lone_run),
		cmocka_unit_test(test_what_is_not_there_is_named_with_what_to_do),
		cmocka_unit_test(test_without_the_tree_the_path_says_why),
		cmocka_unit_test(test_empty_and_damaged_states_are_errors_not_crashes),
		cmocka_unit_test(test_utf8_lengths),
	};

	if (fixture_dir && *fixture_dir)
		return make_fixture_only(fixture_dir);
	return cmocka_run_group_tests(tests, report_fixture_setup, report_fixture_teardown);
}
