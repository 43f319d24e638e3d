/* The gate's decision: Fisher's exact test on the runs where the candidate
 * failed, the baseline passes it still needs, when the candidate must run
 * again first, and "known failing" (src/gate.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gate.h"

/* C(n, f) / C(n + m, f) the long way, with lgamma: an independent check of
 * the product gate.c computes. */
static double hypergeometric_all_on_candidate(unsigned int f, unsigned int n, unsigned int m)
{
	double log_choose_n = lgamma(n + 1.0) - lgamma(f + 1.0) - lgamma(n - f + 1.0);
	double log_choose_nm = lgamma(n + m + 1.0) - lgamma(f + 1.0) - lgamma(n + m - f + 1.0);

	return exp(log_choose_n - log_choose_nm);
}

static void test_split_chance_is_fishers_exact_test(void **state)
{
	unsigned int f, n, m;

	(void)state;
	assert_true(fabs(gate_split_chance(1, 1, 99) - 0.01) < 1e-12);
	assert_true(fabs(gate_split_chance(4, 4, 5) - 1.0 / 126) < 1e-12);
	assert_true(fabs(gate_split_chance(7, 7, 3) - 1.0 / 120) < 1e-12);
	assert_true(gate_split_chance(0, 5, 10) == 1);	/* no failure: nothing to tell apart */
	assert_true(gate_split_chance(3, 5, 0) == 1);	/* no baseline run: nothing either */
	for (n = 1; n <= 12; n++)
		for (f = 1; f <= n; f++)
			for (m = 0; m <= 40; m += 3)
				assert_true(fabs(gate_split_chance(f, n, m) -
						 hypergeometric_all_on_candidate(f, n, m)) < 1e-9);
}

static void test_passes_needed_is_the_fewest_that_tell_them_apart(void **state)
{
	unsigned int f, n;

	(void)state;
	/* a candidate failing every run: the more runs, the fewer passes */
	assert_int_equal(gate_passes_needed(1, 1, 0.99), 99);
	assert_int_equal(gate_passes_needed(2, 2, 0.99), 13);
	assert_int_equal(gate_passes_needed(3, 3, 0.99), 7);
	assert_int_equal(gate_passes_needed(4, 4, 0.99), 5);
	assert_int_equal(gate_passes_needed(5, 5, 0.99), 4);
	assert_int_equal(gate_passes_needed(7, 7, 0.99), 3);
	/* one in two: C(4,2) / C(4+m,2) <= 0.01 first at m = 32 */
	assert_int_equal(gate_passes_needed(2, 4, 0.99), 32);
	assert_int_equal(gate_passes_needed(4, 4, 0.9), 2);
	assert_int_equal(gate_passes_needed(0, 8, 0.99), UINT32_MAX);
	for (n = 1; n <= 16; n++) {
		for (f = 1; f <= n; f++) {
			unsigned int m = gate_passes_needed(f, n, 0.99);

			assert_true(gate_split_chance(f, n, m) <= 0.01);
			assert_true(m == 0 || gate_split_chance(f, n, m - 1) > 0.01);
		}
	}
}

/* cells of one workload: board, candidate fails/passes and symptoms,
 * baseline fails/passes and symptoms */
static void set_cell(struct gate_cell *cell, const char *board, unsigned int candidate_fails,
		     unsigned int candidate_passes, const char *candidate_symptoms, unsigned int baseline_fails,
		     unsigned int baseline_passes, const char *baseline_symptoms)
{
	memset(cell, 0, sizeof(*cell));
	cell->board = board;
	cell->chip = "ar9285";
	cell->workload = "W3";
	cell->runs[1][RUN_FAIL] = candidate_fails;
	cell->runs[1][RUN_PASS] = candidate_passes;
	cell->runs[0][RUN_FAIL] = baseline_fails;
	cell->runs[0][RUN_PASS] = baseline_passes;
	snprintf(cell->symptoms[1], sizeof(cell->symptoms[1]), "%s", candidate_symptoms);
	snprintf(cell->symptoms[0], sizeof(cell->symptoms[0]), "%s", baseline_symptoms);
}

static void test_failures_on_several_boards_are_pooled(void **state)
{
	struct gate_cell cells[3];
	struct gate_regression regression;

	(void)state;
	set_cell(&cells[0], "b1", 2, 0, "auth-timeout", 0, 3, "");
	set_cell(&cells[1], "b2", 2, 0, "auth-timeout,txdma-stop-fail", 0, 1, "");
	set_cell(&cells[2], "b3", 0, 1, "", 0, 0, "");	/* passed: not part of it */
	gate_judge_workload(cells, 3, "W3", 0.99, &regression);
	assert_string_equal(regression.boards, "b1,b2");
	assert_int_equal(regression.candidate_fails, 4);
	assert_int_equal(regression.candidate_runs, 4);
	assert_int_equal(regression.baseline_passes, 4);
	assert_int_equal(regression.passes_needed, 5);
	assert_false(regression.confirmed);	/* 1/70 > 0.01 */
	assert_false(gate_needs_candidate_again(&regression));
	cells[1].runs[0][RUN_PASS] = 2;
	gate_judge_workload(cells, 3, "W3", 0.99, &regression);
	assert_true(regression.confirmed);	/* 1/126 */
	assert_string_equal(regression.symptoms, "auth-timeout,txdma-stop-fail");
}

/* The rule before this test: a failure rate estimated as (f+1)/(n+2) = 0.67
 * from one failure, and 5 baseline passes "enough". A workload flaky at 30 %
 * on both kernels is called a regression that way about 17 % of the time
 * (0.7^5); the exact test wants the candidate to fail again first. */
static void test_one_failure_is_not_a_regression_after_a_few_passes(void **state)
{
	struct gate_cell cell;
	struct gate_regression regression;

	(void)state;
	set_cell(&cell, "b1", 1, 0, "auth-timeout", 0, 5, "");
	gate_judge_workload(&cell, 1, "W3", 0.99, &regression);
	assert_false(regression.confirmed);
	assert_int_equal(regression.passes_needed, 99);
	assert_true(gate_needs_candidate_again(&regression));
	/* failing again once of one: 13 passes would do, more than one round on one board */
	set_cell(&cell, "b1", 2, 0, "auth-timeout", 0, 0, "");
	gate_judge_workload(&cell, 1, "W3", 0.99, &regression);
	assert_int_equal(regression.passes_needed, 13);
	assert_true(gate_needs_candidate_again(&regression));
	/* asked 3 times on its board, it is asked no more: the baseline settles
	 * it (7 passes for 3 of 3, over two rounds; 22 for 2 of 3) */
	set_cell(&cell, "b1", 3, 0, "auth-timeout", 0, 0, "");
	gate_judge_workload(&cell, 1, "W3", 0.99, &regression);
	assert_int_equal(regression.passes_needed, 7);
	assert_false(gate_needs_candidate_again(&regression));
	set_cell(&cell, "b1", 2, 1, "auth-timeout", 0, 0, "");
	gate_judge_workload(&cell, 1, "W3", 0.99, &regression);
	assert_int_equal(regression.passes_needed, 22);
	assert_false(gate_needs_candidate_again(&regression));
	/* ... and on two boards failing 3 of 3 between them, one round of the baseline can settle it */
	{
		struct gate_cell two[2];

		set_cell(&two[0], "b1", 2, 0, "auth-timeout", 0, 0, "");
		set_cell(&two[1], "b2", 1, 0, "auth-timeout", 0, 0, "");
		gate_judge_workload(two, 2, "W3", 0.99, &regression);
		assert_string_equal(regression.boards, "b1,b2");
		assert_int_equal(regression.passes_needed, 7);
		assert_false(gate_needs_candidate_again(&regression));
	}
}

static void test_a_failure_the_baseline_shares_is_known_failing(void **state)
{
	struct gate_cell cells[3];
	struct gate_regression regression;

	(void)state;
	set_cell(&cells[0], "b1", 1, 0, "auth-timeout", 1, 2, "auth-timeout");	/* shared */
	set_cell(&cells[1], "b2", 1, 0, "ping-loss", 1, 2, "auth-timeout");	/* another symptom */
	set_cell(&cells[2], "b3", 1, 0, "", 1, 0, "");	/* FAIL with no symptom on both */
	gate_judge_workload(cells, 3, "W3", 0.99, &regression);
	assert_string_equal(regression.known_failing, "b1,b3");
	assert_string_equal(regression.boards, "b2");
	assert_int_equal(regression.candidate_fails, 1);
	assert_false(regression.confirmed);
	/* every failing board known failing: nothing left to confirm */
	set_cell(&cells[1], "b2", 1, 0, "auth-timeout", 1, 0, "auth-timeout");
	gate_judge_workload(cells, 3, "W3", 0.99, &regression);
	assert_string_equal(regression.boards, "");
	assert_false(regression.confirmed);
}

static void test_other_workloads_are_left_out(void **state)
{
	struct gate_cell cells[2];
	struct gate_regression regression;

	(void)state;
	set_cell(&cells[0], "b1", 4, 0, "auth-timeout", 0, 9, "");
	set_cell(&cells[1], "b1", 1, 0, "ping-loss", 0, 0, "");
	cells[1].workload = "W2";
	gate_judge_workload(cells, 2, "W2", 0.99, &regression);
	assert_string_equal(regression.workload, "W2");
	assert_int_equal(regression.candidate_fails, 1);
	assert_int_equal(regression.baseline_passes, 0);
	assert_string_equal(regression.symptoms, "ping-loss");
}

static void set_regression(struct gate_regression *regression, const char *workload, const char *boards,
			   unsigned int fails, unsigned int runs, bool confirmed)
{
	memset(regression, 0, sizeof(*regression));
	snprintf(regression->workload, sizeof(regression->workload), "%s", workload);
	snprintf(regression->boards, sizeof(regression->boards), "%s", boards);
	regression->candidate_fails = fails;
	regression->candidate_runs = runs;
	regression->confirmed = confirmed;
}

/* The crash test's gate once bisected W2 (6 failures in 9 runs on 2 boards)
 * rather than W3 (4 in 4 on 4) for having more failures, and took 19 rounds
 * of 2 runs; and a regression beside a known one must be bisected itself. */
static void test_the_regression_bisected_is_the_fastest_new_one(void **state)
{
	struct gate_regression regressions[3];
	struct gate_answer answer = { .regressions = regressions, .regression_count = 3 };
	bool answered[3] = { false, false, false };

	(void)state;
	set_regression(&regressions[0], "W2", "b2,b4", 6, 9, true);
	set_regression(&regressions[1], "W3", "b1,b2,b3,b4", 4, 4, true);
	set_regression(&regressions[2], "W4", "b1,b2,b3,b4,b5,b6", 6, 6, false);	/* not confirmed */
	assert_true(fabs(gate_expected_failures_per_round(&regressions[0]) - 2 * 6.0 / 9) < 1e-12);
	assert_true(gate_expected_failures_per_round(&regressions[1]) == 4);
	assert_ptr_equal(gate_regression_to_bisect(&answer, NULL), &regressions[1]);
	assert_ptr_equal(gate_regression_to_bisect(&answer, answered), &regressions[1]);
	answered[1] = true;	/* W3 bisected before: W2 is new, and bisected */
	assert_ptr_equal(gate_regression_to_bisect(&answer, answered), &regressions[0]);
	answered[0] = true;
	assert_null(gate_regression_to_bisect(&answer, answered));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_chance_is_fishers_exact_test),
		cmocka_unit_test(test_passes_needed_is_the_fewest_that_tell_them_apart),
		cmocka_unit_test(test_failures_on_several_boards_are_pooled),
		cmocka_unit_test(test_one_failure_is_not_a_regression_after_a_few_passes),
		cmocka_unit_test(test_a_failure_the_baseline_shares_is_known_failing),
		cmocka_unit_test(test_other_workloads_are_left_out),
		cmocka_unit_test(test_the_regression_bisected_is_the_fastest_new_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
