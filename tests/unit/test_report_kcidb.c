/* test_report_kcidb.c - a report as KCIDB v5.3: statuses, ids that reference each other, the culprit's issue. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/report_fixture.h"
#include "report_kcidb.h"
#include "report_text.h"

static json_t *kcidb_of(struct report_fixture *fixture, enum report_subject subject, int64_t id)
{
	struct report_data data;
	json_t *root;

	report_fixture_load(fixture, subject, id, &data);
	root = report_kcidb_json(&data);
	report_data_release(&data);
	assert_non_null(root);
	return root;
}

static json_t *with_id(json_t *root, const char *list, const char *id)
{
	json_t *item;
	size_t i;

	json_array_foreach(json_object_get(root, list), i, item) {
		if (strcmp(json_string_value(json_object_get(item, "id")), id) == 0)
			return item;
	}
	return NULL;
}

static const char *field(const json_t *object, const char *key)
{
	const char *value = json_string_value(json_object_get(object, key));

	assert_non_null(value);
	return value;
}

static json_t *test_of_run(json_t *root, int64_t run_id)
{
	char id[64];
	json_t *test;

	snprintf(id, sizeof(id), "rackbisect:virtual/run/%" PRId64, run_id);
	test = with_id(root, "tests", id);
	assert_non_null(test);
	return test;
}

static void test_statuses_fail_miss_skip_pass_and_paths(void **state)
{
	struct report_fixture *fixture = *state;
	json_t *root = kcidb_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id);
	json_t *fail = test_of_run(root, fixture->candidate_fail);

	assert_int_equal(json_integer_value(json_object_get(json_object_get(root, "version"), "major")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(root, "version"), "minor")), 3);
	assert_string_equal(field(fail, "status"), "FAIL");
	assert_string_equal(field(fail, "path"), "ath9k.W3");
	assert_string_equal(field(fail, "origin"), "rackbisect");
	assert_string_equal(field(test_of_run(root, fixture->candidate_infra), "status"), "MISS");
	assert_string_equal(field(test_of_run(root, fixture->candidate_infra), "path"), "ath9k.W2");
	assert_string_equal(field(test_of_run(root, fixture->candidate_skip), "status"), "SKIP");
	assert_string_equal(field(test_of_run(root, fixture->candidate_pass), "status"), "PASS");
	/* symptoms and metrics under misc, the kernel log lines as the excerpt, logs as file:// */
	assert_string_equal(field(json_array_get(json_object_get(json_object_get(fail, "misc"), "symptoms"), 0),
				  "name"), REPORT_FIXTURE_SYMPTOM);
	assert_int_equal(json_array_size(json_object_get(json_object_get(fail, "misc"), "metrics")), 5);	/* the two phase_power ones too */
	assert_non_null(strstr(field(fail, "log_excerpt"), REPORT_FIXTURE_EVIDENCE));
	assert_int_equal(json_array_size(json_object_get(fail, "output_files")), 4);
	assert_int_equal(strncmp(field(fail, "log_url"), "file:///", 8), 0);
	assert_non_null(strstr(field(fail, "log_url"), "/runs/"));
	assert_string_equal(field(json_object_get(json_object_get(fail, "environment"), "misc"), "chip"), "ar9285");
	json_decref(root);
}

static void test_power_measurements_are_done_tests_with_numbers(void **state)
{
	struct report_fixture *fixture = *state;
	json_t *root = kcidb_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id), *test, *number;
	char id[96];

	snprintf(id, sizeof(id), "rackbisect:virtual/run/%" PRId64 "/power_avg", fixture->candidate_fail);
	test = with_id(root, "tests", id);
	assert_non_null(test);
	assert_string_equal(field(test, "status"), "DONE");
	assert_string_equal(field(test, "path"), "ath9k.W3.power_avg");
	number = json_object_get(test, "number");
	assert_true(json_real_value(json_object_get(number, "value")) == 850.0);
	assert_string_equal(field(number, "unit"), "mW");
	snprintf(id, sizeof(id), "rackbisect:virtual/run/%" PRId64 "/energy", fixture->candidate_infra);
	assert_null(with_id(root, "tests", id));	/* an INFRA run measured nothing */
	json_decref(root);
}

static void test_ids_reference_each_other(void **state)
{
	struct report_fixture *fixture = *state;
	json_t *root = kcidb_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id), *item;
	char id[96];
	size_t i;

	assert_int_equal(json_array_size(json_object_get(root, "checkouts")), FIXTURE_COMMIT_COUNT);
	snprintf(id, sizeof(id), "rackbisect:virtual/checkout/%s", fixture->commits[FIXTURE_BAD]);
	item = with_id(root, "checkouts", id);
	assert_non_null(item);
	assert_string_equal(field(item, "git_commit_hash"), fixture->commits[FIXTURE_BAD]);
	assert_string_equal(field(item, "git_commit_name"), "v3.3.1-rc1");
	json_array_foreach(json_object_get(root, "builds"), i, item)
		assert_non_null(with_id(root, "checkouts", field(item, "checkout_id")));
	json_array_foreach(json_object_get(root, "tests"), i, item)
		assert_non_null(with_id(root, "builds", field(item, "build_id")));
	/* 12 runs (the gate and the bisection share one), 2 measurements each for the 9 that measured */
	assert_int_equal(json_array_size(json_object_get(root, "tests")), 12 + 2 * 9);
	json_decref(root);
}

static void test_culprit_is_an_issue_with_an_incident_per_run_that_showed_it(void **state)
{
	struct report_fixture *fixture = *state;
	json_t *root = kcidb_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id), *issue, *incident;
	char id[96];
	size_t i;

	assert_int_equal(json_array_size(json_object_get(root, "issues")), 1);
	issue = json_array_get(json_object_get(root, "issues"), 0);
	snprintf(id, sizeof(id), "rackbisect:virtual/bisection/%" PRId64, fixture->bisection_id);
	assert_string_equal(field(issue, "id"), id);
	assert_true(json_is_true(json_object_get(json_object_get(issue, "culprit"), "code")));
	assert_string_equal(field(json_object_get(issue, "misc"), "culprit_commit"), fixture->commits[FIXTURE_CULPRIT]);
	assert_non_null(strstr(field(issue, "report_subject"), REPORT_FIXTURE_HOSTILE_SUBJECT));
	/* the bad end and the culprit's two FAILs; not the INFRA or the PASSes */
	assert_int_equal(json_array_size(json_object_get(root, "incidents")), 3);
	json_array_foreach(json_object_get(root, "incidents"), i, incident) {
		assert_string_equal(field(incident, "issue_id"), id);
		assert_int_equal(json_integer_value(json_object_get(incident, "issue_version")),
				 json_integer_value(json_object_get(issue, "version")));
		assert_string_equal(field(with_id(root, "tests", field(incident, "test_id")), "status"), "FAIL");
	}
	json_decref(root);
}

static void test_lone_run_without_build_and_with_bytes_not_utf8(void **state)
{
	struct report_fixture *fixture = *state;
	json_t *root = kcidb_of(fixture, REPORT_SUBJECT_RUN, fixture->lone_run);
	json_t *test = test_of_run(root, fixture->lone_run);
	char id[128];

	assert_string_equal(field(test, "status"), "MISS");
	snprintf(id, sizeof(id), "rackbisect:virtual/unrecorded-build/%s", fixture->commits[FIXTURE_GOOD]);
	assert_string_equal(field(test, "build_id"), id);
	assert_non_null(with_id(root, "builds", id));
	assert_string_equal(field(json_object_get(test, "misc"), "cause"), "console said ?( and ?");
	assert_null(json_object_get(root, "issues"));
	json_decref(root);
}

/*
 * A gate that bisected two regressions (its second bisection's spec names
 * the gate): an issue per culprit, each under its own bisection's id, and
 * the text report lists the other bisection. Runs last: it adds to the store.
 */
static void test_a_gate_with_two_bisections_has_an_issue_per_culprit(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_data data;
	char *spec = NULL, *answer = NULL, *text, id[96];
	int64_t second;
	json_t *root, *issue;

	assert_true(asprintf(&spec, "{\"gate\":%" PRId64 ",\"goods\":[\"%s\"],\"bad\":\"%s\","
			     "\"symptom\":\"ping-loss\",\"workload\":\"W2\",\"tree\":\"%s\"}",
			     fixture->gate_id, fixture->commits[FIXTURE_GOOD], fixture->commits[FIXTURE_BAD],
			     fixture->tree) > 0);
	assert_true(asprintf(&answer, "{\"state\":\"found\",\"culprit\":\"%s\",\"probability\":0.995,"
			     "\"runs\":9}", fixture->commits[FIXTURE_HARMLESS]) > 0);
	assert_int_equal(store_bisection_create(fixture->store, "stable-gate", spec, &second), 0);
	assert_int_equal(store_bisection_finish(fixture->store, second, STORE_BISECTION_DONE, answer), 0);
	free(spec), free(answer);

	root = kcidb_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id);
	assert_int_equal(json_array_size(json_object_get(root, "issues")), 2);
	snprintf(id, sizeof(id), "rackbisect:virtual/bisection/%" PRId64, second);
	issue = with_id(root, "issues", id);
	assert_non_null(issue);
	assert_string_equal(field(json_object_get(issue, "misc"), "culprit_commit"), fixture->commits[FIXTURE_HARMLESS]);
	assert_string_equal(field(json_object_get(issue, "misc"), "symptom"), "ping-loss");
	snprintf(id, sizeof(id), "rackbisect:virtual/bisection/%" PRId64, fixture->bisection_id);
	assert_non_null(with_id(root, "issues", id));
	json_decref(root);

	report_fixture_load(fixture, REPORT_SUBJECT_GATE, fixture->gate_id, &data);
	text = report_fixture_capture(report_text_write, &data);
	report_data_release(&data);
	snprintf(id, sizeof(id), "Bisection %" PRId64 " of this gate too: found (tracking ping-loss in W2)", second);
	assert_non_null(strstr(text, id));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statuses_fail_miss_skip_pass_and_paths),
		cmocka_unit_test(test_power_measurements_are_done_tests_with_numbers),
		cmocka_unit_test(test_ids_reference_each_other),
		cmocka_unit_test(test_culprit_is_an_issue_with_an_incident_per_run_that_showed_it),
		cmocka_unit_test(test_lone_run_without_build_and_with_bytes_not_utf8),
		cmocka_unit_test(test_a_gate_with_two_bisections_has_an_issue_per_culprit),
	};

	return cmocka_run_group_tests(tests, report_fixture_setup, report_fixture_teardown);
}
