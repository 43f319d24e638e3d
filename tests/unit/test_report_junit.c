/* test_report_junit.c - a report's runs as JUnit XML: counts, elements per outcome, escaping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/report_fixture.h"
#include "report_junit.h"

static char *junit_of(struct report_fixture *fixture, enum report_subject subject, int64_t id)
{
	struct report_data data;
	char *text;

	report_fixture_load(fixture, subject, id, &data);
	text = report_fixture_capture(report_junit_write_report, &data);
	report_data_release(&data);
	return text;
}

static void test_gate_and_bisection_suites_count_right(void **state)
{
	struct report_fixture *fixture = *state;
	char *xml = junit_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id), expected[512];
	const char *second = strstr(xml, "<testsuite name=\"bisection");

	assert_int_equal(strncmp(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 50), 0);
	assert_int_equal(report_fixture_count(xml, "<testsuite "), 2);
	/* the gate: 2 baseline PASS, candidate FAIL, PASS, INFRA, SKIP */
	assert_non_null(strstr(xml, "tests=\"6\" failures=\"1\" errors=\"1\" skipped=\"1\">"));
	/* the bisection: the shared bad end FAIL, 3 PASS, 2 FAIL, 1 INFRA */
	assert_non_null(second);
	assert_non_null(strstr(second, "tests=\"7\" failures=\"3\" errors=\"1\" skipped=\"0\">"));
	assert_int_equal(report_fixture_count(xml, "<testcase "), 13);
	assert_int_equal(report_fixture_count(xml, "</testcase>"), 13);
	assert_int_equal(report_fixture_count(xml, "<failure "), 4);
	assert_int_equal(report_fixture_count(xml, "<error "), 2);
	assert_int_equal(report_fixture_count(xml, "<skipped "), 1);
	/* the shared run is a testcase in both suites, with its role in each */
	snprintf(expected, sizeof(expected), "W3 #1 run %" PRId64 " (candidate ", fixture->candidate_fail);
	assert_non_null(strstr(xml, expected));
	snprintf(expected, sizeof(expected), "W3 #1 run %" PRId64 " (bad-end ", fixture->candidate_fail);
	assert_non_null(strstr(second, expected));
	/* FAIL's text: symptoms with their kernel log lines, and where the logs are */
	assert_non_null(strstr(xml, "message=\"FAIL: txdma-stop-fail, &lt;img src=x onerror=alert(1)&gt; (hang)\""));
	assert_non_null(strstr(xml, "symptom txdma-stop-fail:\nath9k: Failed to stop TX DMA, queues=0x004 &lt;b&gt;&amp;&lt;/b&gt;"));
	snprintf(expected, sizeof(expected), "logs: %s/runs/%" PRId64 "/", fixture->dir, fixture->candidate_fail);
	assert_non_null(strstr(xml, expected));
	assert_non_null(strstr(xml, "message=\"INFRA: power switch timeout\""));
	/* nothing stored reaches the XML unescaped */
	assert_null(strstr(xml, "<img"));
	assert_null(strstr(xml, "<b>"));
	free(xml);
}

static void test_lone_run_is_one_suite_and_bytes_that_are_not_utf8_are_replaced(void **state)
{
	struct report_fixture *fixture = *state;
	char *xml = junit_of(fixture, REPORT_SUBJECT_RUN, fixture->lone_run);
	const unsigned char *byte;

	assert_int_equal(report_fixture_count(xml, "<testsuite "), 1);
	assert_non_null(strstr(xml, "tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">"));
	assert_int_equal(report_fixture_count(xml, "<testcase "), 1);
	assert_non_null(strstr(xml, "<error message=\"INFRA: console said ?( and ?\">"));
	for (byte = (const unsigned char *)xml; *byte; byte++)
		assert_true(*byte < 0x80);	/* the fixture's other stored text is ASCII */
	free(xml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_and_bisection_suites_count_right),
		cmocka_unit_test(test_lone_run_is_one_suite_and_bytes_that_are_not_utf8_are_replaced),
	};

	return cmocka_run_group_tests(tests, report_fixture_setup, report_fixture_teardown);
}
