/*
 * test_report_nights.c - `rackbisect report nightly` on the fixture's four
 * nights (report_fixture.h): what is loaded (branches, order, verdicts,
 * baselines, reused against started bisections, power means), the text
 * table, the HTML trend (a square per night, a point per night with a
 * decisive run, power plots only where measured), JUnit counts per branch,
 * the merged KCIDB, the trend in a night gate's own report, and hostile
 * stored text escaped everywhere.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "helpers/report_fixture.h"
#include "report_html.h"
#include "report_junit.h"
#include "report_kcidb.h"
#include "report_nights.h"
#include "report_text.h"

static int load_nights(const struct report_fixture *fixture, const char *night, bool gate_reports,
		       struct report_nights *nights, char *error, size_t error_len)
{
	return report_nights_load(fixture->store, &(struct report_nights_request){
		.night = night, .state_dir = fixture->dir, .lab = "virtual", .gate_reports = gate_reports },
		nights, error, error_len);
}

static void load_all(const struct report_fixture *fixture, struct report_nights *nights)
{
	char error[512];
	int rc = load_nights(fixture, NULL, false, nights, error, sizeof(error));

	if (rc)
		fail_msg("report_nights_load: %d %s", rc, error);
}

/* What a nights writer wrote (malloc'd). */
static char *capture(void (*write)(FILE *out, const struct report_nights *nights),
		     const struct report_nights *nights)
{
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	assert_non_null(out);
	write(out, nights);
	assert_int_equal(fclose(out), 0);
	return text;
}

static void write_html(FILE *out, const struct report_data *data)
{
	report_html_write(out, data, NULL);
}

/* The text from `start` up to `end` (or its end), as a new string. */
static char *between(const char *text, const char *start, const char *end)
{
	const char *from = strstr(text, start), *to;

	assert_non_null(from);
	to = end ? strstr(from + 1, end) : NULL;
	return strndup(from, to ? (size_t)(to - from) : strlen(from));
}

static void test_nights_grouped_by_branch_oldest_first_with_reuse(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_nights nights;
	const struct report_branch *stable, *mainline;
	const struct report_night *n;

	load_all(fixture, &nights);
	assert_int_equal(nights.branch_count, 2);
	assert_int_equal(nights.night_count, 4);
	assert_string_equal(nights.verdict, "REGRESSION");	/* the worst newest night */
	assert_non_null(strstr(nights.title, "4 nights of 2 branches"));
	stable = &nights.branches[0];
	mainline = &nights.branches[1];
	assert_string_equal(stable->night, REPORT_FIXTURE_BRANCH);
	assert_string_equal(stable->tree, fixture->tree);
	assert_int_equal(stable->count, 3);
	/* oldest first, the other branch's night (stored between them) not among them */
	n = stable->nights;
	assert_int_equal(n[0].gate_id, fixture->night_gates[NIGHT_PASS]);
	assert_int_equal(n[1].gate_id, fixture->night_gates[NIGHT_BISECTED]);
	assert_int_equal(n[2].gate_id, fixture->night_gates[NIGHT_REUSED]);
	assert_string_equal(n[0].verdict, "PASS");
	assert_string_equal(n[1].verdict, "REGRESSION");
	assert_string_equal(n[2].verdict, "REGRESSION");
	assert_string_equal(n[0].job, "stable-nightly");
	/* the first night is gated against itself; later ones against it, the last good night */
	assert_true(n[0].first_night);
	assert_int_equal(n[0].baseline_gate, 0);
	assert_false(n[1].first_night);
	assert_string_equal(n[1].head, fixture->commits[FIXTURE_AFTER]);
	assert_string_equal(n[1].baseline, fixture->commits[FIXTURE_HARMLESS]);
	assert_int_equal(n[1].baseline_gate, fixture->night_gates[NIGHT_PASS]);
	assert_int_equal(n[2].baseline_gate, fixture->night_gates[NIGHT_PASS]);
	/* the bisection: started by the first regression, named again by the second */
	assert_int_equal(n[0].bisection_id, 0);
	assert_null(n[0].culprit);
	assert_int_equal(n[1].bisection_id, fixture->night_bisection);
	assert_false(n[1].bisection_reused);
	assert_int_equal(n[2].bisection_id, fixture->night_bisection);
	assert_true(n[2].bisection_reused);
	assert_string_equal(n[1].culprit, fixture->commits[FIXTURE_CULPRIT]);
	assert_string_equal(n[2].culprit, fixture->commits[FIXTURE_CULPRIT]);
	assert_string_equal(n[1].bisection_outcome, "found");
	/* regressions, the head's runs, power means */
	assert_int_equal(n[0].regression_count, 0);
	assert_int_equal(n[2].regression_count, 2);
	assert_string_equal(n[2].regressions[0].workload, "W3");
	assert_string_equal(n[2].regressions[0].symptom, REPORT_FIXTURE_SYMPTOM);
	assert_string_equal(n[2].regressions[1].symptom, REPORT_FIXTURE_HOSTILE_SYMPTOM);
	assert_int_equal(n[1].head_runs[RUN_PASS], 1);
	assert_int_equal(n[1].head_runs[RUN_FAIL], 1);
	assert_int_equal(n[0].metric_runs[NIGHT_POWER_AVG], 2);
	assert_true(n[0].metric_mean[NIGHT_POWER_AVG] > 409.99 && n[0].metric_mean[NIGHT_POWER_AVG] < 410.01);
	assert_true(n[1].metric_mean[NIGHT_POWER_AVG] > 599.99 && n[1].metric_mean[NIGHT_POWER_AVG] < 600.01);
	assert_string_equal(n[0].metric_unit[NIGHT_POWER_AVG], "mW");
	assert_int_equal(n[0].metric_runs[NIGHT_ENERGY], 2);
	/* the other branch: one INCOMPLETE night of another job, nothing measured */
	assert_string_equal(mainline->night, REPORT_FIXTURE_OTHER_BRANCH);
	assert_int_equal(mainline->count, 1);
	assert_int_equal(mainline->nights[0].gate_id, fixture->night_gates[NIGHT_OTHER_BRANCH]);
	assert_string_equal(mainline->nights[0].verdict, "INCOMPLETE");
	assert_string_equal(mainline->nights[0].job, "mainline-nightly");
	assert_int_equal(mainline->nights[0].head_runs[RUN_INFRA], 1);
	assert_int_equal(mainline->nights[0].metric_runs[NIGHT_POWER_AVG], 0);
	report_nights_release(&nights);
}

static void test_one_branch_none_and_nothing_stored(void **state)
{
	struct report_fixture *fixture = *state;
	char dir[] = "/tmp/rackbisect-nights-empty-XXXXXX", database[128], error[512];
	struct report_nights nights;
	struct store *store = NULL;

	assert_int_equal(load_nights(fixture, REPORT_FIXTURE_OTHER_BRANCH, false, &nights, error, sizeof(error)), 0);
	assert_int_equal(nights.branch_count, 1);
	assert_int_equal(nights.night_count, 1);
	assert_string_equal(nights.verdict, "INCOMPLETE");
	assert_non_null(strstr(nights.title, "nightly of " REPORT_FIXTURE_OTHER_BRANCH ": 1 night"));
	report_nights_release(&nights);
	/* a reused bisection is told from the whole history, even when one branch is asked */
	assert_int_equal(load_nights(fixture, REPORT_FIXTURE_BRANCH, false, &nights, error, sizeof(error)), 0);
	assert_true(nights.branches[0].nights[2].bisection_reused);
	report_nights_release(&nights);

	assert_int_equal(load_nights(fixture, "stable/no-such", false, &nights, error, sizeof(error)), -ENOENT);
	assert_non_null(strstr(error, "no night of stable/no-such"));
	assert_non_null(strstr(error, "TREE/BRANCH"));
	assert_int_equal(nights.branch_count, 0);

	/* a state with no night: says what to run */
	assert_non_null(mkdtemp(dir));
	snprintf(database, sizeof(database), "%s/state.db", dir);
	assert_int_equal(store_open(database, &store), 0);
	assert_int_equal(report_nights_load(store, &(struct report_nights_request){ .state_dir = dir }, &nights,
					    error, sizeof(error)), -ENOENT);
	assert_non_null(strstr(error, "no nights stored"));
	assert_non_null(strstr(error, "rackbisect nightly NIGHTLY.yaml"));
	store_close(store);
	files_remove_tree(dir);
}

static void test_text_table_per_branch_newest_last(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_nights nights;
	char *text, *stable, *mainline, expected[128];
	const char *pass, *bisected, *reused, *c;

	load_all(fixture, &nights);
	text = capture(report_text_write_nights, &nights);
	assert_int_equal(strncmp(text, "REGRESSION  nightly: 4 nights of 2 branches (lab virtual)\n", 58), 0);
	stable = between(text, "\nBranch " REPORT_FIXTURE_BRANCH " (3 nights", "\nBranch ");
	mainline = between(text, "\nBranch " REPORT_FIXTURE_OTHER_BRANCH " (1 night", NULL);
	/* a row per night, oldest first: found by their heads */
	snprintf(expected, sizeof(expected), "%.12s first night", fixture->commits[FIXTURE_HARMLESS]);
	pass = strstr(stable, expected);
	snprintf(expected, sizeof(expected), "%.12s %.12s gate %" PRId64, fixture->commits[FIXTURE_AFTER],
		 fixture->commits[FIXTURE_HARMLESS], fixture->night_gates[NIGHT_PASS]);
	bisected = strstr(stable, expected);
	snprintf(expected, sizeof(expected), "%.12s %.12s gate", fixture->commits[FIXTURE_BAD],
		 fixture->commits[FIXTURE_HARMLESS]);
	reused = strstr(stable, expected);
	assert_non_null(pass), assert_non_null(bisected), assert_non_null(reused);
	assert_true(pass < bisected && bisected < reused);
	assert_int_equal(report_fixture_count(stable, "\n  2"), 3);	/* three rows, dated */
	snprintf(expected, sizeof(expected), "%.12s (new, bisection %" PRId64 ")",
		 fixture->commits[FIXTURE_CULPRIT], fixture->night_bisection);
	assert_true(strstr(stable, expected) > bisected && strstr(stable, expected) < reused);
	snprintf(expected, sizeof(expected), "%.12s (known, bisection %" PRId64 ")",
		 fixture->commits[FIXTURE_CULPRIT], fixture->night_bisection);
	assert_true(strstr(stable, expected) > reused);
	assert_non_null(strstr(reused, "W3 (" REPORT_FIXTURE_SYMPTOM "), W2 ("));
	assert_non_null(strstr(bisected, "REGRESSION 1/1/0/0"));
	assert_non_null(strstr(mainline, "INCOMPLETE 0/0/1/0"));
	assert_non_null(strstr(mainline, "every board was unreachable"));
	assert_null(strstr(mainline, "bisection"));
	for (c = text; *c; c++)
		assert_true(*c == '\n' || (*c >= 0x20 && *c < 0x7f));
	free(stable), free(mainline), free(text);
	report_nights_release(&nights);
}

static void test_html_trend_has_a_square_per_night_and_escapes(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_nights nights;
	char *page, *stable, *mainline, *ratio;

	load_all(fixture, &nights);
	page = capture(report_html_write_nights, &nights);
	assert_non_null(strstr(page, "<h1 id=\"verdict\">REGRESSION</h1>"));
	assert_non_null(strstr(page, "<header class=\"verdict bad\">"));
	stable = between(page, "<section id=\"branch-0\"", "</section>");
	mainline = between(page, "<section id=\"branch-1\"", "</section>");
	/* the fail ratio: a point per night with decisive runs, a verdict square per night */
	ratio = between(stable, "<svg id=\"trend-0\"", "</svg>");
	assert_int_equal(report_fixture_count(ratio, "<circle "), 3);
	assert_int_equal(report_fixture_count(ratio, "<rect class=\"mark "), 3);
	assert_int_equal(report_fixture_count(ratio, "<rect class=\"mark good\""), 1);
	assert_int_equal(report_fixture_count(ratio, "<rect class=\"mark bad\""), 2);
	/* the PASS night at 0, the bisected one at 1/2, the reused at 1: the y order says it */
	assert_non_null(strstr(ratio, "class=\"good\"><title>night "));
	free(ratio);
	/* power and energy per night where the head's runs measured them */
	ratio = between(stable, "<svg id=\"trend-power_avg-0\"", "</svg>");
	assert_int_equal(report_fixture_count(ratio, "<circle "), 3);
	free(ratio);
	assert_non_null(strstr(stable, "<svg id=\"trend-energy-0\""));
	assert_int_equal(report_fixture_count(stable, "<tr><td>"), 3);
	assert_non_null(strstr(stable, "bisected that night"));
	assert_non_null(strstr(stable, "known: not bisected again"));
	/* the other branch: its square, no point (no decisive run), no power plot */
	ratio = between(mainline, "<svg id=\"trend-1\"", "</svg>");
	assert_int_equal(report_fixture_count(ratio, "<rect class=\"mark unsure\""), 1);
	assert_int_equal(report_fixture_count(ratio, "<circle "), 0);
	free(ratio);
	assert_null(strstr(mainline, "trend-power_avg"));
	/* hostile stored text is text */
	assert_null(strstr(page, "<svg onload"));
	assert_non_null(strstr(page, "&lt;svg onload=alert(2)&gt;&amp;&quot;x&quot;"));
	assert_null(strstr(page, "<script"));
	free(stable), free(mainline), free(page);
	report_nights_release(&nights);
}

static void test_junit_a_suite_per_branch_a_case_per_night(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_nights nights;
	char *xml, *stable, expected[128];

	load_all(fixture, &nights);
	xml = capture(report_junit_write_nights, &nights);
	assert_int_equal(report_fixture_count(xml, "<testsuite "), 2);
	assert_non_null(strstr(xml, "<testsuite name=\"" REPORT_FIXTURE_BRANCH "\" tests=\"3\" failures=\"2\" "
				    "errors=\"0\" skipped=\"0\">"));
	assert_non_null(strstr(xml, "<testsuite name=\"" REPORT_FIXTURE_OTHER_BRANCH "\" tests=\"1\" failures=\"0\" "
				    "errors=\"1\" skipped=\"0\">"));
	assert_int_equal(report_fixture_count(xml, "<testcase "), 4);
	assert_int_equal(report_fixture_count(xml, "<failure "), 2);
	assert_int_equal(report_fixture_count(xml, "<error message=\"INCOMPLETE: every board was unreachable\""), 1);
	stable = between(xml, "<testsuite name=\"" REPORT_FIXTURE_BRANCH, "</testsuite>");
	snprintf(expected, sizeof(expected), "gate %" PRId64 " head %.12s", fixture->night_gates[NIGHT_REUSED],
		 fixture->commits[FIXTURE_BAD]);
	assert_non_null(strstr(stable, expected));
	assert_non_null(strstr(stable, "known: named by an earlier night"));
	assert_non_null(strstr(stable, "started by this night"));
	assert_non_null(strstr(xml, "W2 (&lt;svg onload=alert(2)&gt;&amp;&quot;x&quot;)"));
	assert_null(strstr(xml, "<svg"));
	free(stable), free(xml);
	report_nights_release(&nights);
}

static void test_kcidb_merges_every_night(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_nights nights;
	char error[512], id[256];
	json_t *root, *checkout, *item, *tests;
	size_t i, j, runs = 0;

	assert_int_equal(load_nights(fixture, NULL, true, &nights, error, sizeof(error)), 0);
	assert_non_null(nights.branches[0].nights[0].gate_report);
	root = report_kcidb_nights_json(&nights);
	assert_non_null(root);
	/* every head's checkout once, named by its branch */
	snprintf(id, sizeof(id), "rackbisect:virtual/checkout/%s", fixture->commits[FIXTURE_BAD]);
	checkout = NULL;
	json_array_foreach(json_object_get(root, "checkouts"), i, item) {
		if (strcmp(json_string_value(json_object_get(item, "id")), id) == 0)
			checkout = item;
	}
	assert_non_null(checkout);
	assert_string_equal(json_string_value(json_object_get(checkout, "tree_name")), "stable");
	assert_string_equal(json_string_value(json_object_get(checkout, "git_repository_branch")), "linux-3.3.y");
	assert_int_equal(json_array_size(json_object_get(json_object_get(checkout, "misc"), "nights")), 1);
	/* the heads (GOOD, HARMLESS, AFTER, BAD; baselines are earlier heads) and the culprit, once each */
	assert_int_equal(json_array_size(json_object_get(root, "checkouts")), 5);
	/* a test per night run (6), no id twice; the reused bisection's issue once */
	tests = json_object_get(root, "tests");
	json_array_foreach(tests, i, item) {
		runs += json_object_get(item, "number") == NULL;
		for (j = 0; j < i; j++)
			assert_string_not_equal(json_string_value(json_object_get(item, "id")),
						json_string_value(json_object_get(json_array_get(tests, j), "id")));
	}
	assert_int_equal(runs, 6);
	assert_int_equal(json_array_size(json_object_get(root, "issues")), 1);
	json_decref(root);
	report_nights_release(&nights);
}

static void test_a_night_gate_report_shows_its_branch_trend(void **state)
{
	struct report_fixture *fixture = *state;
	struct report_data data;
	char *page, *trend, expected[64];

	report_fixture_load(fixture, REPORT_SUBJECT_GATE, fixture->night_gates[NIGHT_BISECTED], &data);
	assert_non_null(data.nights);
	assert_int_equal(data.nights->branch_count, 1);
	assert_string_equal(data.nights->branches[0].night, REPORT_FIXTURE_BRANCH);
	page = report_fixture_capture(write_html, &data);
	trend = between(page, "<section id=\"trend\">", "</section>");
	/* three plots (fail ratio, power, energy), a verdict square per night in each */
	assert_int_equal(report_fixture_count(trend, "<svg id=\"trend-"), 3);
	assert_int_equal(report_fixture_count(trend, "<rect class=\"mark "), 9);
	assert_int_equal(report_fixture_count(trend, "<tr class=\"current\">"), 1);
	snprintf(expected, sizeof(expected), "<tr class=\"current\"><td>");
	assert_non_null(strstr(trend, expected));
	assert_null(strstr(trend, "TODO"));
	free(trend), free(page);
	report_data_release(&data);
	/* the bisection a night started: the same branch's trend, that night highlighted */
	report_fixture_load(fixture, REPORT_SUBJECT_BISECTION, fixture->night_bisection, &data);
	assert_non_null(data.nights);
	assert_string_equal(data.nights->branches[0].night, REPORT_FIXTURE_BRANCH);
	page = report_fixture_capture(write_html, &data);
	snprintf(expected, sizeof(expected), "<tr class=\"current\"><td>");
	assert_int_equal(report_fixture_count(page, expected), 1);
	free(page);
	report_data_release(&data);
	/* a gate that was no night: no trend, said so */
	report_fixture_load(fixture, REPORT_SUBJECT_GATE, fixture->gate_id, &data);
	assert_null(data.nights);
	page = report_fixture_capture(write_html, &data);
	assert_non_null(strstr(page, "Not a night of <code>rackbisect nightly</code>"));
	free(page);
	report_data_release(&data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nights_grouped_by_branch_oldest_first_with_reuse),
		cmocka_unit_test(test_one_branch_none_and_nothing_stored),
		cmocka_unit_test(test_text_table_per_branch_newest_last),
		cmocka_unit_test(test_html_trend_has_a_square_per_night_and_escapes),
		cmocka_unit_test(test_junit_a_suite_per_branch_a_case_per_night),
		cmocka_unit_test(test_kcidb_merges_every_night),
		cmocka_unit_test(test_a_night_gate_report_shows_its_branch_trend),
	};

	return cmocka_run_group_tests(tests, report_fixture_setup, report_fixture_teardown);
}
