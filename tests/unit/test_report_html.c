/*
 * test_report_html.c - the self-contained page: stored text escaped (a
 * <script> subject stays text), the SVG plots there, nothing loaded from
 * elsewhere, the verdict first, log links relative to the page.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/report_fixture.h"
#include "report_html.h"

static char *page_of(struct report_fixture *fixture, enum report_subject subject, int64_t id,
		     const char *output_dir)
{
	struct report_data data;
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	assert_non_null(out);
	report_fixture_load(fixture, subject, id, &data);
	report_html_write(out, &data, &(struct report_html_options){ .output_dir = output_dir });
	assert_int_equal(fclose(out), 0);
	report_data_release(&data);
	return text;
}

static char *lowercase(const char *text)
{
	char *copy = strdup(text), *c;

	assert_non_null(copy);
	for (c = copy; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return copy;
}

/* The text between <svg id="ID" and its </svg>. */
static char *svg_of(const char *page, const char *id)
{
	char start[64];
	const char *from, *to;

	snprintf(start, sizeof(start), "<svg id=\"%s\"", id);
	from = strstr(page, start);
	assert_non_null(from);
	to = strstr(from, "</svg>");
	assert_non_null(to);
	return strndup(from, (size_t)(to - from));
}

static void test_hostile_text_is_escaped(void **state)
{
	struct report_fixture *fixture = *state;
	char *page = page_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id, fixture->dir);
	char *lower = lowercase(page);

	assert_non_null(strstr(page, "ath9k: &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;sleep&quot; fix"));
	assert_non_null(strstr(page, "&lt;img src=x onerror=alert(1)&gt;"));
	assert_non_null(strstr(page, "queues=0x004 &lt;b&gt;&amp;&lt;/b&gt;"));
	assert_null(strstr(lower, "<script"));
	assert_null(strstr(lower, "<img"));
	assert_null(strstr(lower, "onerror=alert(1)>"));
	free(lower);
	free(page);
}

/* Whether any tag (the text between '<' and '>': escaped stored text has
 * neither) holds needle. */
static bool tag_holds(const char *page, const char *needle)
{
	const char *tag, *end;
	bool found = false;
	char *copy;

	for (tag = strchr(page, '<'); tag && !found; tag = strchr(end, '<')) {
		end = strchr(tag, '>');
		assert_non_null(end);
		copy = strndup(tag, (size_t)(end - tag));
		found = strstr(copy, needle) != NULL;
		free(copy);
	}
	return found;
}

static void test_nothing_is_loaded_from_elsewhere(void **state)
{
	struct report_fixture *fixture = *state;
	char *page = page_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id, fixture->dir);
	char *lower = lowercase(page);
	const char *href;

	assert_null(strstr(lower, "http://"));
	assert_null(strstr(lower, "https://"));
	assert_false(tag_holds(lower, "src="));
	assert_true(tag_holds(lower, "href="));	/* the check above sees attributes */
	assert_null(strstr(lower, "<link"));
	assert_null(strstr(lower, "@import"));
	assert_null(strstr(lower, "url("));
	/* every link is in the page or to a log relative to it */
	for (href = strstr(lower, "href=\""); href; href = strstr(href + 1, "href=\"")) {
		href += 6;
		assert_true(*href == '#' || strncmp(href, "runs/", 5) == 0);
	}
	free(lower);
	free(page);
}

static void test_verdict_first_then_matrix_bisection_power_runs_trend(void **state)
{
	struct report_fixture *fixture = *state;
	char *page = page_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id, fixture->dir);
	const char *verdict = strstr(page, "<h1 id=\"verdict\">REGRESSION</h1>");
	const char *matrix = strstr(page, "<section id=\"matrix\">"), *bisection = strstr(page, "<section id=\"bisection\">");
	const char *power = strstr(page, "<section id=\"power\">"), *runs = strstr(page, "<section id=\"runs\">");
	const char *trend = strstr(page, "<section id=\"trend\">");

	assert_non_null(verdict);
	assert_true(strstr(page, "<body>") < verdict);
	assert_true(verdict < matrix && matrix < bisection && bisection < power && power < runs && runs < trend);
	/* the fixture's gate was no night: the trend says so (test_report_nights.c has one that was) */
	assert_non_null(strstr(trend, "Not a night of"));
	assert_null(strstr(trend, "TODO"));
	/* the matrix: the regressed cell marked, counts of both kernels */
	assert_non_null(strstr(matrix, "<td class=\"regressed\">baseline: <span class=\"PASS\">2 PASS</span><br>"
				       "candidate: <span class=\"FAIL\">1 FAIL</span>"));
	assert_non_null(strstr(matrix, "<span class=\"INFRA\">1 INFRA</span>"));
	assert_non_null(strstr(matrix, "<span class=\"SKIP\">1 SKIP</span>"));
	free(page);
}

static void test_plots_are_inline_svg_with_a_point_per_value(void **state)
{
	struct report_fixture *fixture = *state;
	char *page = page_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id, fixture->dir);
	char *path = svg_of(page, "bisection-plot"), *power = svg_of(page, "power_avg"), *energy = svg_of(page, "energy");
	struct report_data data;
	char best[96], culprit_legend[32], phase_id[32], *phases;
	int lines;

	/* the last point's tooltip: the culprit best, at the probability the replay ended with */
	report_fixture_load(fixture, REPORT_SUBJECT_BISECTION, fixture->bisection_id, &data);
	snprintf(best, sizeof(best), "%.12s at %.4f (best %.12s at %.4f", fixture->commits[FIXTURE_CULPRIT],
		 data.bisection->steps[data.bisection->step_count - 1].best_probability,
		 fixture->commits[FIXTURE_CULPRIT],
		 data.bisection->steps[data.bisection->step_count - 1].best_probability);
	report_data_release(&data);

	/* a line per candidate that led at some point, the culprit's among them;
	 * on each, a point per bisection run coloured by its result; the
	 * confidence line */
	lines = report_fixture_count(path, "<polyline ");
	assert_true(lines >= 2);
	snprintf(culprit_legend, sizeof(culprit_legend), ">%.12s</text>", fixture->commits[FIXTURE_CULPRIT]);
	assert_non_null(strstr(path, culprit_legend));
	assert_int_equal(report_fixture_count(path, "<circle "), lines * fixture->bisection_run_count);
	assert_int_equal(report_fixture_count(path, "class=\"FAIL\""), 3 * lines);
	assert_int_equal(report_fixture_count(path, "class=\"INFRA\""), lines);
	assert_int_equal(report_fixture_count(path, "stroke-dasharray"), 1);
	assert_non_null(strstr(path, best));
	/* power: W3 measured at 4 commits (the one after the culprit only had INFRA) */
	assert_int_equal(report_fixture_count(power, "<circle "), 4);
	assert_non_null(strstr(power, ">mW</text>"));
	assert_non_null(strstr(power, ">v3.3</text>"));
	assert_null(strstr(power, ">W2</text>"));	/* W2 measured nothing: no legend entry */
	assert_int_equal(report_fixture_count(energy, "<circle "), 4);
	/* the values behind the plot, in a table: v3.3.1-rc1's W3 mean of 850 and 420 mW */
	assert_non_null(strstr(page, "<td>635 mW</td><td>420</td><td>850</td><td>2</td>"));
	/* power per phase: W3's two tests, a line per commit measured; W2 measured nothing */
	assert_int_equal(report_fixture_count(page, "<svg id=\"phase_power-"), 1);
	assert_int_equal(sscanf(strstr(page, "<svg id=\"phase_power-"), "<svg id=\"%31[^\"]\"", phase_id), 1);
	phases = svg_of(page, phase_id);
	assert_non_null(strstr(phases, "W3: average power per test"));
	assert_int_equal(report_fixture_count(phases, "<circle "), 2 * 4);
	assert_non_null(strstr(phases, ">v3.3.1-rc1</text>"));
	/* its phase 1: the mean of 840 and 410 mW; phase 2 of 860 and 430 */
	assert_non_null(strstr(phases, "v3.3.1-rc1 at 1: 625<"));
	assert_non_null(strstr(phases, "v3.3.1-rc1 at 2: 645<"));
	free(path), free(power), free(energy), free(phases);
	free(page);
}

static void test_log_links_are_relative_to_the_page(void **state)
{
	struct report_fixture *fixture = *state;
	char deeper[400], expected[128];
	char *beside = page_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id, fixture->dir), *below;

	snprintf(deeper, sizeof(deeper), "%s/reports/nightly", fixture->dir);
	below = page_of(fixture, REPORT_SUBJECT_GATE, fixture->gate_id, deeper);
	snprintf(expected, sizeof(expected), "<a href=\"runs/%" PRId64 "/dmesg.log\">dmesg.log</a>",
		 fixture->candidate_fail);
	assert_non_null(strstr(beside, expected));
	snprintf(expected, sizeof(expected), "<a href=\"../../runs/%" PRId64 "/console.log\">", fixture->candidate_fail);
	assert_non_null(strstr(below, expected));
	/* a PASS kept no dmesg: no link to one */
	snprintf(expected, sizeof(expected), "runs/%" PRId64 "/dmesg.log", fixture->candidate_pass);
	assert_null(strstr(beside, expected));
	free(beside), free(below);
}

static void test_a_run_without_measurements_says_so(void **state)
{
	struct report_fixture *fixture = *state;
	char *page = page_of(fixture, REPORT_SUBJECT_RUN, fixture->lone_run, NULL);

	assert_non_null(strstr(page, "<h1 id=\"verdict\">INFRA</h1>"));
	assert_non_null(strstr(page, "No run stored a power measurement"));
	assert_null(strstr(page, "<svg"));
	assert_null(strstr(page, "<section id=\"matrix\">"));
	assert_non_null(strstr(page, "console said \xef\xbf\xbd( and \xef\xbf\xbd"));	/* U+FFFD */
	free(page);
}

static void test_relative_paths(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(report_html_relative_path("/a/b", "/a/c/d", out, sizeof(out)), 0);
	assert_string_equal(out, "../c/d");
	assert_int_equal(report_html_relative_path("/a", "/a/b", out, sizeof(out)), 0);
	assert_string_equal(out, "b");
	assert_int_equal(report_html_relative_path("/", "/x/y", out, sizeof(out)), 0);
	assert_string_equal(out, "x/y");
	assert_int_equal(report_html_relative_path("/a/bc", "/a/b/d", out, sizeof(out)), 0);
	assert_string_equal(out, "../b/d");
	assert_int_equal(report_html_relative_path("/s/r/x/y", "/s/runs/1/f", out, sizeof(out)), 0);
	assert_string_equal(out, "../../../runs/1/f");
	assert_int_equal(report_html_relative_path("/a/b", "/a/c/d", out, 4), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_text_is_escaped),
		cmocka_unit_test(test_nothing_is_loaded_from_elsewhere),
		cmocka_unit_test(test_verdict_first_then_matrix_bisection_power_runs_trend),
		cmocka_unit_test(test_plots_are_inline_svg_with_a_point_per_value),
		cmocka_unit_test(test_log_links_are_relative_to_the_page),
		cmocka_unit_test(test_a_run_without_measurements_says_so),
		cmocka_unit_test(test_relative_paths),
	};

	return cmocka_run_group_tests(tests, report_fixture_setup, report_fixture_teardown);
}
