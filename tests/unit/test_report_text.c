/* test_report_text.c - the plain-text report: verdict first, sections in order, ASCII only. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/report_fixture.h"
#include "report_text.h"

static char *text_of(struct report_fixture *fixture, enum report_subject subject, int64_t id)
{
	struct report_data data;
	char *text;

	report_fixture_load(fixture, subject, id, &data);
	text = report_fixture_capture(report_text_write, &data);
	report_data_release(&data);
	return text;
}

static void assert_printable_ascii(const char *text)
{
	for (; *text; text++)
		assert_true(*text == '\n' || (*text >= 0x20 && *text < 0x7f));
}

static void test_gate_verdict_first_then_regressions_matrix_bisection_runs(void **state)
{
	struct report_fixture *fixture = *state;
	char *text = text_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id), expected[512];
	const char *regressions = strstr(text, "\nRegressions\n"), *matrix = strstr(text, "\nMatrix");
	const char *bisection = strstr(text, "\nBisection "), *runs = strstr(text, "\nRuns (");

	assert_int_equal(strncmp(text, "REGRESSION  gate ", 17), 0);
	assert_true(strchr(text, '\n') > strstr(text, "v3.3.1-rc1 against v3.3"));
	assert_non_null(regressions);
	assert_true(regressions < matrix && matrix < bisection && bisection < runs);
	assert_non_null(strstr(text, "W3: txdma-stop-fail on vb01; candidate failed 1 of 1, baseline passed 2"));
	assert_non_null(strstr(text, "vb01     ar9285   W3       2/0/0/0      0/1/0/0"));
	snprintf(expected, sizeof(expected), "first bad commit: %.12s", fixture->commits[FIXTURE_CULPRIT]);
	assert_non_null(strstr(text, expected));
	assert_non_null(strstr(text, REPORT_FIXTURE_HOSTILE_SUBJECT));	/* text, not markup: verbatim */
	/* the path: a row per bisection run, the culprit best after the last */
	assert_int_equal(report_fixture_count(bisection, "\n    7   "), 1);
	snprintf(expected, sizeof(expected), "INFRA  no      %.12s", fixture->commits[FIXTURE_CULPRIT]);
	assert_non_null(strstr(bisection, expected));
	assert_non_null(strstr(runs, "kernel log: " REPORT_FIXTURE_EVIDENCE));
	snprintf(expected, sizeof(expected), "Run logs: %s/runs/<run>/", fixture->dir);
	assert_non_null(strstr(runs, expected));
	assert_printable_ascii(text);
	free(text);
}

static void test_lone_run_replaces_what_is_not_ascii(void **state)
{
	struct report_fixture *fixture = *state;
	char *text = text_of(fixture, REPORT_SUBJECT_RUN, fixture->lone_run), expected[64];

	snprintf(expected, sizeof(expected), "INFRA  run %" PRId64 ": W1 #1", fixture->lone_run);
	assert_int_equal(strncmp(text, expected, strlen(expected)), 0);
	assert_non_null(strstr(text, "console said ?( and ?"));
	assert_null(strstr(text, "\nMatrix"));
	assert_null(strstr(text, "\nBisection"));
	assert_printable_ascii(text);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_verdict_first_then_regressions_matrix_bisection_runs),
		cmocka_unit_test(test_lone_run_replaces_what_is_not_ascii),
	};

	return cmocka_run_group_tests(tests, report_fixture_setup, report_fixture_teardown);
}
