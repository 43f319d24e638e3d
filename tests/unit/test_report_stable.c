/* test_report_stable.c - the stable-review reply, from a gate's answer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "report_stable.h"

static struct gate_cell cells[] = {
	{ .board = "vb01", .chip = "ar9285", .workload = "W3" },
	{ .board = "vb02", .chip = "ar5416", .workload = "W3" },
};

static char *write_reply(const struct report_stable *report)
{
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	assert_non_null(out);
	report_stable_write(out, report);
	fclose(out);
	return text;
}

static struct report_stable base_report(struct gate_answer *answer)
{
	memset(answer, 0, sizeof(*answer));
	answer->cells = cells;
	answer->cell_count = 2;
	return (struct report_stable){
		.lab = "virtual", .job = "stable-gate", .candidate_ref = "v3.3.1-rc1",
		.candidate_id = "c6b8c6ed0fc62373af697e8e7ae41bdd1148036b",
		.candidate_describe = "v3.3.1-rc1", .baseline_ref = "v3.3",
		.baseline_id = "cd7a412fa9902c44b0202d53c017464d7949a55b", .gate = answer,
		.tested_by = "Ann Tester <ann@example.org>" };
}

static void test_pass_carries_tested_by(void **state)
{
	struct gate_answer answer;
	struct report_stable report = base_report(&answer);
	char *text;

	(void)state;
	answer.verdict = GATE_PASS;
	answer.runs[1][RUN_PASS] = 2;
	text = write_reply(&report);
	assert_non_null(strstr(text, "v3.3.1-rc1: PASS\n"));
	assert_non_null(strstr(text, "candidate 2 (2 pass, 0 fail"));
	assert_non_null(strstr(text, "vb01 (ar9285) vb02 (ar5416)"));
	assert_non_null(strstr(text, "Chips: ar9285, ar5416\n"));
	assert_non_null(strstr(text, "\nTested-by: Ann Tester <ann@example.org>\n"));
	free(text);
}

static void test_regression_has_culprit_advice_and_no_tested_by(void **state)
{
	struct gate_answer answer;
	struct report_stable report = base_report(&answer);
	struct gate_regression regression = {
		.workload = "W3", .symptom = "auth-timeout", .symptoms = "auth-timeout,txdma-stop-fail",
		.boards = "vb01", .known_failing = "vb02", .candidate_fails = 1, .candidate_runs = 1,
		.baseline_passes = 3, .passes_needed = 3, .confirmed = true, .example_run = 7 };
	struct stable_patch patches[2] = {
		{ .commit = "beba434648ae232c4e7cb8fe3c43407c954348e0", .subject = "ath9k: fix going to full-sleep on PS idle",
		  .author = "Felix Fietkau <nbd@openwrt.org>", .upstream = "ca98654ba82dec0650be0bb0c1b332b98b42738c" },
		{ .commit = "7eecc37119880000000000000000000000000000", .subject = "kernel: stray" },
	};
	struct stable_queue queue = { .patches = patches, .count = 2 };
	struct mainline_status mainline = { .upstream_in_mainline = true };
	struct report_stable_culprit culprit = {
		.patch = &patches[0], .probability = 0.9993, .runs = 68, .mainline = &mainline,
		.advice = "drop it from the queue before release: beba434648ae" };
	const char *excerpts[] = { "[ 5.1] wlan0: authentication with 00:0b timed out\n" };
	size_t astray[] = { 1 };
	char *text;

	(void)state;
	answer.verdict = GATE_REGRESSION;
	answer.regressions = &regression;
	answer.regression_count = 1;
	report.excerpts = excerpts;
	report.culprits = &culprit;
	report.culprit_count = 1;
	report.queue = &queue;
	report.astray = astray;
	report.astray_count = 1;
	report.mainline_ref = "master";
	text = write_reply(&report);
	assert_non_null(strstr(text, "v3.3.1-rc1: REGRESSION\n"));
	assert_non_null(strstr(text, "  W3: auth-timeout (symptoms seen: auth-timeout,txdma-stop-fail)"));
	assert_non_null(strstr(text, "candidate failed 1 of 1 runs on vb01; the baseline passed 3 there"));
	assert_non_null(strstr(text, "kernel log (run 7):\n      [ 5.1] wlan0: authentication"));
	assert_non_null(strstr(text, "Known failing (the baseline fails them too, not regressions):\n  W3 on vb02"));
	assert_non_null(strstr(text, "  commit beba434648ae (\"ath9k: fix going to full-sleep on PS idle\")"));
	assert_non_null(strstr(text, "  upstream commit ca98654ba82d\n  in master: yes\n"));
	assert_non_null(strstr(text, "mainline has neither a revert nor a fix of it"));
	assert_non_null(strstr(text, "What the stable rules allow:\n  drop it from the queue before release"));
	assert_non_null(strstr(text, "Queue audit (2 patches): 1 astray"));
	assert_non_null(strstr(text, "  7eecc3711988 (\"kernel: stray\"): names no upstream commit"));
	assert_null(strstr(text, "Tested-by:"));
	free(text);
}

/* Two regressions with different symptoms, a culprit each: both named, each
 * with what it answers and its own advice; a third regression whose
 * bisection found nothing is said too. */
static void test_two_culprits_are_each_named_with_their_advice(void **state)
{
	struct gate_answer answer;
	struct report_stable report = base_report(&answer);
	struct gate_regression regressions[2] = {
		{ .workload = "W3", .symptom = "auth-timeout", .symptoms = "auth-timeout", .boards = "vb01",
		  .candidate_fails = 2, .candidate_runs = 2, .baseline_passes = 3, .passes_needed = 3,
		  .confirmed = true },
		{ .workload = "W2", .symptom = "ping-loss", .symptoms = "ping-loss,tx-failed", .boards = "vb01",
		  .candidate_fails = 2, .candidate_runs = 2, .baseline_passes = 3, .passes_needed = 3,
		  .confirmed = true },
	};
	struct stable_patch patches[2] = {
		{ .commit = "beba434648ae232c4e7cb8fe3c43407c954348e0", .subject = "ath9k: fix going to full-sleep on PS idle",
		  .author = "Felix Fietkau <nbd@openwrt.org>", .upstream = "ca98654ba82dec0650be0bb0c1b332b98b42738c" },
		{ .commit = "5ee0c0ffee000000000000000000000000000000", .subject = "ath9k: do not wake for data TX in PS",
		  .author = "A Tester <t@example.org>" },
	};
	struct stable_queue queue = { .patches = patches, .count = 2 };
	struct report_stable_culprit culprits[2] = {
		{ .patch = &patches[0], .probability = 0.9991, .runs = 40, .bisection = 1,
		  .advice = "drop it from the queue before release: beba434648ae", .regressions = "W3 (auth-timeout)" },
		{ .patch = &patches[1], .probability = 0.9995, .runs = 22, .bisection = 2,
		  .advice = "drop it from the queue before release: 5ee0c0ffee00", .regressions = "W2 (ping-loss)" },
	};
	char *text;

	(void)state;
	answer.verdict = GATE_REGRESSION;
	answer.regressions = regressions;
	answer.regression_count = 2;
	report.culprits = culprits;
	report.culprit_count = 2;
	report.queue = &queue;
	report.bisect_note = "W4 (not-associated): the bisection ended no-regression without a culprit";
	text = write_reply(&report);
	assert_non_null(strstr(text, "\nCulprit 1 of 2 in the queue, behind W3 (auth-timeout) (bisection 1, "
				     "probability 0.9991, 40 runs):\n  commit beba434648ae"));
	assert_non_null(strstr(text, "\nCulprit 2 of 2 in the queue, behind W2 (ping-loss) (bisection 2, "
				     "probability 0.9995, 22 runs):\n  commit 5ee0c0ffee00"));
	assert_non_null(strstr(text, "What the stable rules allow:\n  drop it from the queue before release: beba434648ae"));
	assert_non_null(strstr(text, "What the stable rules allow:\n  drop it from the queue before release: 5ee0c0ffee00"));
	assert_non_null(strstr(text, "\nLeft without a culprit in the queue: W4 (not-associated): the bisection"));
	assert_null(strstr(text, "Culprit in the queue ("));
	assert_null(strstr(text, "Tested-by:"));
	free(text);
}

static void test_incomplete_says_why(void **state)
{
	struct gate_answer answer;
	struct report_stable report = base_report(&answer);
	char *text;

	(void)state;
	answer.verdict = GATE_INCOMPLETE;
	snprintf(answer.reason, sizeof(answer.reason), "W3 on vb02 has no result (lab trouble)");
	report.bisect_note = "not bisected (give --bisect)";
	text = write_reply(&report);
	assert_non_null(strstr(text, "v3.3.1-rc1: INCOMPLETE\n\nW3 on vb02 has no result (lab trouble)\n"));
	assert_null(strstr(text, "Tested-by:"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass_carries_tested_by),
		cmocka_unit_test(test_regression_has_culprit_advice_and_no_tested_by),
		cmocka_unit_test(test_two_culprits_are_each_named_with_their_advice),
		cmocka_unit_test(test_incomplete_says_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
