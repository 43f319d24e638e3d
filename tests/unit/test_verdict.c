/* Verdicts: each rule of DESIGN.md "Run outcomes", their precedence, and the evidence kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_config.h"
#include "ktap.h"
#include "verdict.h"

/* ---- fixtures ------------------------------------------------------------ */

static const char w3_failing[] =
	"KTAP version 1\n"
	"1..3\n"
	"# cycle 1: scan=yes idle=3.2s\n"
	"# metric reconnect_time=0.840 s\n"
	"ok 1 cycle 1 scan reconnect\n"
	"# cycle 2: scan=no idle=7.4s\n"
	"# metric reconnect_time=2.750 s\n"
	"# dmesg: [  105.650000] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 2 cycle 2 same-channel reconnect\n"
	"# cycle 3: scan=no idle=1.1s\n"
	"# failed: auth_timeout\n"
	"not ok 3 cycle 3 same-channel reconnect\n"
	"# metric failed_not_associated=0 cycles\n"
	"# metric failed=2 cycles\n";

static const char w3_passing[] =
	"KTAP version 1\n"
	"1..2\n"
	"ok 1 cycle 1 scan reconnect\n"
	"ok 2 cycle 2 same-channel reconnect\n"
	"# metric failed_not_associated=0 cycles\n"
	"# metric failed=0 cycles\n";

/* What a hung board leaves: two of twenty cycles, the third in progress. */
static const char w3_cut_off[] =
	"KTAP version 1\n"
	"1..20\n"
	"ok 1 cycle 1 scan reconnect\n"
	"ok 2 cycle 2 scan reconnect\n"
	"# cycle 3: scan=no idle=4.0s\n";

static const char auth_timeout_line[] =
	"[  105.650000] wlan0: authentication with 00:0b:6b:de:ad:01 timed out";
static const char txdma_line[] = "[  106.750000] ath: Failed to stop TX DMA, queues=0x004!";

static struct job *load_shipped_job(void)
{
	char error[1024];
	struct job *job = NULL;

	if (job_load("jobs/ath9k-ps.yaml", &job, error, sizeof(error)) != 0)
		fail_msg("%s", error);
	return job;
}

/* A job whose policy makes a boot failure evidence against the kernel. */
static struct job *load_job_failing_boots(void)
{
	static const char text[] =
		"name: boot-fail\n"
		"workloads:\n"
		"  - name: W1\n"
		"symptoms:\n"
		"  - name: txdma-stop-fail\n"
		"    log: 'Failed to stop TX DMA'\n"
		"policy:\n"
		"  boot_failure: fail\n";
	char path[] = "/tmp/rackbisect-test-verdict-XXXXXX";
	char error[1024];
	struct job *job = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	if (job_load(path, &job, error, sizeof(error)) != 0)
		fail_msg("%s", error);
	unlink(path);
	return job;
}

static struct ktap_report *parse(const char *text)
{
	struct ktap_report *report = NULL;

	assert_int_equal(ktap_parse(text, strlen(text), NULL, &report), 0);
	return report;
}

/* The pieces of one case: a job, a report, log lines, facts; freed together. */
struct run {
	struct job *job;
	struct ktap_report *report;
	struct verdict_input input;
	struct verdict *verdict;
};

static void run_init(struct run *run, const char *ktap)
{
	memset(run, 0, sizeof(*run));
	run->job = load_shipped_job();
	run->report = ktap ? parse(ktap) : NULL;
	run->input.job = run->job;
	run->input.workload = &run->job->workloads[2];
	run->input.report = run->report;
}

static void run_log(struct run *run, const char *const *lines, size_t count)
{
	run->input.log_lines = lines;
	run->input.log_line_count = count;
}

static struct verdict *run_judge(struct run *run)
{
	assert_int_equal(verdict_make(&run->input, &run->verdict), 0);
	assert_non_null(run->verdict);
	return run->verdict;
}

static void run_free(struct run *run)
{
	verdict_free(run->verdict);
	ktap_report_free(run->report);
	job_free(run->job);
}

static void assert_symptom(const struct verdict *verdict, size_t index, const char *name,
			   const char *evidence)
{
	if (index >= verdict->symptom_count)
		fail_msg("no symptom %zu (%zu symptoms)", index, verdict->symptom_count);
	assert_string_equal(verdict->symptoms[index].name, name);
	assert_string_equal(verdict->symptoms[index].evidence, evidence);
}

static void assert_summary(const struct verdict *verdict, const char *expected)
{
	char line[512];

	assert_int_equal(verdict_summary(verdict, line, sizeof(line)), 0);
	assert_string_equal(line, expected);
}

/* ---- PASS and FAIL from the workload's output ---------------------------- */

static void test_clean_run_passes(void **state)
{
	struct run run;
	static const char *const lines[] = { "wlan0: associated" };
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_passing);
	run_log(&run, lines, 1);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_PASS);
	assert_int_equal(verdict->symptom_count, 0);
	assert_int_equal(verdict->failing_test_count, 0);
	assert_null(verdict->cause);
	assert_summary(verdict, "PASS");
	run_free(&run);
}

static void test_log_symptoms_quote_the_line_in_job_order(void **state)
{
	struct run run;
	/* the TX DMA line comes first in the log; the job lists auth-timeout first */
	static const char *const lines[] = { txdma_line, auth_timeout_line };
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_failing);
	run_log(&run, lines, 2);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_int_equal(verdict->symptom_count, 2);
	assert_symptom(verdict, 0, "auth-timeout", auth_timeout_line);
	assert_symptom(verdict, 1, "txdma-stop-fail", txdma_line);
	run_free(&run);
}

static void test_symptoms_are_deduplicated_keeping_the_first_line(void **state)
{
	struct run run;
	static const char *const lines[] = {
		"[ 1.0] wlan0: authentication with 00:0b:6b:de:ad:01 timed out",
		"[ 2.0] wlan0: authentication with 00:0b:6b:de:ad:01 timed out",
		"[ 3.0] wlan0: authentication with 00:0b:6b:de:ad:01 timed out",
	};
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_failing);
	run_log(&run, lines, 3);
	verdict = run_judge(&run);
	assert_int_equal(verdict->symptom_count, 1);
	assert_symptom(verdict, 0, "auth-timeout", lines[0]);
	run_free(&run);
}

static void test_console_line_ends_are_not_evidence(void **state)
{
	struct run run;
	static const char *const lines[] = { "ath: Failed to stop TX DMA, queues=0x004!\r\n" };
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_passing);
	run_log(&run, lines, 1);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_symptom(verdict, 0, "txdma-stop-fail", "ath: Failed to stop TX DMA, queues=0x004!");
	run_free(&run);
}

static void test_failing_tests_are_named_and_summarised(void **state)
{
	struct run run;
	static const char *const lines[] = { auth_timeout_line, txdma_line };
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_failing);
	run_log(&run, lines, 2);
	verdict = run_judge(&run);
	assert_int_equal(verdict->failing_test_count, 2);
	assert_string_equal(verdict->failing_tests[0], "cycle 2 same-channel reconnect");
	assert_string_equal(verdict->failing_tests[1], "cycle 3 same-channel reconnect");
	assert_summary(verdict, "FAIL auth-timeout,txdma-stop-fail (cycle 2 same-channel reconnect ...)");
	run_free(&run);
}

static void test_symptom_alone_fails_a_run_whose_tests_passed(void **state)
{
	struct run run;
	static const char *const lines[] = { "wlan0: Connection to AP 00:0b:6b:de:ad:01 lost." };
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_passing);
	run_log(&run, lines, 1);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_symptom(verdict, 0, "connection-lost", lines[0]);
	assert_int_equal(verdict->failing_test_count, 0);
	assert_summary(verdict, "FAIL connection-lost");
	run_free(&run);
}

static void test_not_ok_without_symptom_is_an_unmatched_failure(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_failing);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_int_equal(verdict->symptom_count, 1);
	assert_symptom(verdict, 0, VERDICT_SYMPTOM_UNMATCHED_FAILURE,
		       "a test failed and no symptom rule matched");
	assert_int_equal(verdict->failing_test_count, 2);
	run_free(&run);
}

static void test_unmatched_failure_is_not_added_beside_a_symptom(void **state)
{
	struct run run;
	static const char *const lines[] = { auth_timeout_line };
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_failing);
	run_log(&run, lines, 1);
	verdict = run_judge(&run);
	assert_int_equal(verdict->symptom_count, 1);
	assert_string_equal(verdict->symptoms[0].name, "auth-timeout");
	run_free(&run);
}

static void test_expected_failures_and_skips_pass(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, "KTAP version 1\n1..2\nnot ok 1 flaky # TODO known\n"
		       "ok 2 cycle 2 # SKIP not associated at start\n");
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_PASS);
	run_free(&run);
}

static void test_nested_failures_are_named_by_their_path(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, "KTAP version 1\n1..1\n"
		       "  KTAP version 1\n  1..2\n  ok 1 a\n  not ok 2\n"
		       "not ok 1 phase 1\n");
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_int_equal(verdict->failing_test_count, 1);
	assert_string_equal(verdict->failing_tests[0], "phase 1: test 2");
	run_free(&run);
}

/* ---- metric symptoms ----------------------------------------------------- */

static void judge_ping_loss(const char *value, enum verdict_outcome expected, const char *evidence)
{
	char text[256];
	struct run run;
	struct verdict *verdict;

	snprintf(text, sizeof(text), "KTAP version 1\n1..1\nok 1 phase 1\n"
		 "# metric ping_loss_total=%s %%\n", value);
	run_init(&run, text);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, expected);
	if (evidence)
		assert_symptom(verdict, 0, "ping-loss", evidence);
	else
		assert_int_equal(verdict->symptom_count, 0);
	run_free(&run);
}

static void test_metric_at_the_threshold_passes(void **state)
{
	(void)state;
	judge_ping_loss("5", VERDICT_PASS, NULL);
	judge_ping_loss("5.00", VERDICT_PASS, NULL);
}

static void test_metric_just_over_the_threshold_fails(void **state)
{
	(void)state;
	judge_ping_loss("5.01", VERDICT_FAIL, "metric ping_loss_total=5.01 % > 5");
}

static void test_metric_without_unit_has_no_stray_space(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, "KTAP version 1\n1..1\nok 1 x\n# metric tx_failed_ratio=2.5\n");
	verdict = run_judge(&run);
	assert_symptom(verdict, 0, "tx-failed", "metric tx_failed_ratio=2.5 > 2");
	run_free(&run);
}

static void test_run_level_metric_overrides_per_test_values(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	/* one bad phase, but the run as a whole is under the limit */
	run_init(&run, "KTAP version 1\n1..2\n# metric ping_loss_total=9 %\nok 1 phase 1\n"
		       "ok 2 phase 2\n# metric ping_loss_total=4.5 %\n");
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_PASS);
	run_free(&run);
}

static void test_per_test_metric_counts_when_the_run_has_none(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, "KTAP version 1\n1..2\n# metric failed_not_associated=0 cycles\nok 1 a\n"
		       "# metric failed_not_associated=1 cycles\nnot ok 2 b\n");
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_symptom(verdict, 0, "not-associated", "metric failed_not_associated=1 cycles > 0");
	run_free(&run);
}

/* ---- hangs --------------------------------------------------------------- */

static void test_hang_of_kernel_under_test_fails_with_console_evidence(void **state)
{
	struct run run;
	static const char *const console[] = {
		"[  210.1] wlan0: authenticate with 00:0b:6b:de:ad:01 (try 1)",
		"[  210.2] ath: Failed to stop TX DMA, queues=0x004!",
		"",
	};
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_cut_off);
	run_log(&run, console, 3);
	run.input.facts.hang = VERDICT_HANG_KERNEL_UNDER_TEST;
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_int_equal(verdict->symptom_count, 2);
	assert_symptom(verdict, 0, "txdma-stop-fail", console[1]);
	assert_symptom(verdict, 1, VERDICT_SYMPTOM_HANG, console[1]);
	assert_int_equal(verdict->failing_test_count, 1);
	assert_string_equal(verdict->failing_tests[0], "test 3");
	assert_summary(verdict, "FAIL txdma-stop-fail,hang (test 3)");
	run_free(&run);
}

static void test_hang_without_any_output(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, NULL);
	run.input.facts.hang = VERDICT_HANG_KERNEL_UNDER_TEST;
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_symptom(verdict, 0, VERDICT_SYMPTOM_HANG,
		       "no output and no SSH for 120 s, no kernel log captured");
	assert_int_equal(verdict->failing_test_count, 0);
	run_free(&run);
}

/* Output cut off because the workload ran past its timeout (and was killed)
 * while the board still answered: the kernel's FAIL, not the lab's INFRA
 * that output cut short by a lost session gives. */
static void test_workload_past_its_timeout_is_a_fail(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_cut_off);
	run.input.facts.workload_timeout_seconds = 900;
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_int_equal(verdict->symptom_count, 1);
	assert_symptom(verdict, 0, VERDICT_SYMPTOM_WORKLOAD_TIMEOUT,
		       "workload timed out: W3 ran past its 900 s timeout while the board answered; "
		       "its processes were killed");
	assert_int_equal(verdict->failing_test_count, 1);
	run_free(&run);
}

static void test_hang_of_another_kernel_is_infra(void **state)
{
	struct run run;
	static const char *const lines[] = { txdma_line };
	struct verdict *verdict;

	(void)state;
	run_init(&run, NULL);
	run_log(&run, lines, 1);
	run.input.facts.hang = VERDICT_HANG_OTHER_KERNEL;
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_INFRA);
	assert_int_equal(verdict->symptom_count, 0);
	assert_string_equal(verdict->cause, "board hung while not running the kernel under test");
	run_free(&run);
}

/* ---- output that cannot be trusted --------------------------------------- */

static void test_output_ended_early_without_hang_is_infra(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_cut_off);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_INFRA);
	assert_string_equal(verdict->cause, "workload W3 output ended early (2 of 20 results)");
	assert_int_equal(verdict->symptom_count, 0);
	assert_summary(verdict, "INFRA workload W3 output ended early (2 of 20 results)");
	run_free(&run);
}

static void test_output_ended_early_with_symptom_fails(void **state)
{
	struct run run;
	static const char *const lines[] = { auth_timeout_line };
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_cut_off);
	run_log(&run, lines, 1);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_symptom(verdict, 0, "auth-timeout", auth_timeout_line);
	assert_null(verdict->cause);
	run_free(&run);
}

static void test_null_report_is_infra(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, NULL);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_INFRA);
	assert_string_equal(verdict->cause, "workload W3 produced no output");
	run_free(&run);
}

static void test_null_report_with_log_symptom_fails(void **state)
{
	struct run run;
	static const char *const lines[] = { txdma_line };
	struct verdict *verdict;

	(void)state;
	run_init(&run, NULL);
	run_log(&run, lines, 1);
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_symptom(verdict, 0, "txdma-stop-fail", txdma_line);
	assert_int_equal(verdict->failing_test_count, 0);
	run_free(&run);
}

static void test_bail_out_is_infra_with_its_reason(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, "KTAP version 1\n1..4\nBail out! wlan0 missing\n");
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_INFRA);
	assert_string_equal(verdict->cause, "workload W3 bailed out: wlan0 missing");
	run_free(&run);
}

/* ---- lab errors, build and boot failures, and their precedence ----------- */

static void test_lab_error_before_boot_beats_everything(void **state)
{
	struct run run;
	static const char *const lines[] = { txdma_line };
	static const struct verdict_lab_error errors[] = {
		{ VERDICT_LAB_UNREACHABLE, "board r3: connect to 127.0.0.5:2203: refused", false },
		{ VERDICT_LAB_POWER, "", false },
	};
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_failing);
	run_log(&run, lines, 1);
	run.input.facts.lab_errors = errors;
	run.input.facts.lab_error_count = 2;
	run.input.facts.build_failure = "make exited 2";
	run.input.facts.boot_failure = "board did not come back within 300 s";
	run.input.facts.hang = VERDICT_HANG_KERNEL_UNDER_TEST;
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_INFRA);
	assert_int_equal(verdict->symptom_count, 0);
	assert_int_equal(verdict->failing_test_count, 0);
	assert_string_equal(verdict->cause,
			    "board unreachable: board r3: connect to 127.0.0.5:2203: refused; "
			    "power switch error");
	run_free(&run);
}

static void test_lab_error_after_boot_does_not_hide_a_hang(void **state)
{
	struct run run;
	static const struct verdict_lab_error errors[] = {
		{ VERDICT_LAB_CONSOLE_LOST, "ser2net 127.0.0.1:7003 closed", true },
	};
	static const char *const console[] = { "[ 99.0] ath: last words" };
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_cut_off);
	run_log(&run, console, 1);
	run.input.facts.lab_errors = errors;
	run.input.facts.lab_error_count = 1;
	run.input.facts.hang = VERDICT_HANG_KERNEL_UNDER_TEST;
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_symptom(verdict, 0, VERDICT_SYMPTOM_HANG, console[0]);
	run_free(&run);
}

static void test_lab_error_after_boot_turns_a_pass_into_infra(void **state)
{
	struct run run;
	static const struct verdict_lab_error errors[] = {
		{ VERDICT_LAB_CONSOLE_LOST, "ser2net 127.0.0.1:7003 closed", true },
	};
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_passing);
	run.input.facts.lab_errors = errors;
	run.input.facts.lab_error_count = 1;
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_INFRA);
	assert_string_equal(verdict->cause, "console lost: ser2net 127.0.0.1:7003 closed");
	run_free(&run);
}

/* A session dropped mid-workload: the output is missing because of the
 * lab, and the cause says so first, naming the board. */
static void test_missing_output_names_the_lab_error_first(void **state)
{
	struct run run;
	static const struct verdict_lab_error errors[] = {
		{ VERDICT_LAB_UNREACHABLE, "board r3: the workload's session failed: disconnected", true },
	};
	struct verdict *verdict;

	(void)state;
	run_init(&run, NULL);
	run.input.facts.lab_errors = errors;
	run.input.facts.lab_error_count = 1;
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_INFRA);
	assert_string_equal(verdict->cause, "board unreachable: board r3: the workload's session "
			    "failed: disconnected; workload W3 produced no output");
	run_free(&run);
}

static void test_build_failure_skips_even_with_log_lines(void **state)
{
	struct run run;
	static const char *const lines[] = { auth_timeout_line, txdma_line };
	struct verdict *verdict;

	(void)state;
	run_init(&run, w3_failing);
	run_log(&run, lines, 2);
	run.input.facts.build_failure = "make exited 2 (log: builds/1a2b/build.log)";
	run.input.facts.hang = VERDICT_HANG_KERNEL_UNDER_TEST;
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_SKIP);
	assert_int_equal(verdict->symptom_count, 0);
	assert_int_equal(verdict->failing_test_count, 0);
	assert_string_equal(verdict->cause, "build failed: make exited 2 (log: builds/1a2b/build.log)");
	assert_summary(verdict, "SKIP build failed: make exited 2 (log: builds/1a2b/build.log)");
	run_free(&run);
}

static void test_boot_failure_skips_by_default(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, NULL);
	run.input.facts.boot_failure = "uname -r is 3.3.0, expected 3.3.1-rc1";
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_SKIP);
	assert_string_equal(verdict->cause, "boot failed: uname -r is 3.3.0, expected 3.3.1-rc1");
	run_free(&run);
}

static void test_boot_failure_fails_when_the_policy_says_so(void **state)
{
	struct run run;
	struct verdict *verdict;

	(void)state;
	run_init(&run, NULL);
	job_free(run.job);
	run.job = load_job_failing_boots();
	run.input.job = run.job;
	run.input.workload = &run.job->workloads[0];
	run.input.facts.boot_failure = "board did not come back within 300 s";
	verdict = run_judge(&run);
	assert_int_equal(verdict->outcome, VERDICT_FAIL);
	assert_int_equal(verdict->symptom_count, 1);
	assert_symptom(verdict, 0, VERDICT_SYMPTOM_BOOT, "board did not come back within 300 s");
	assert_null(verdict->cause);
	assert_summary(verdict, "FAIL boot");
	run_free(&run);
}

/* ---- interface ----------------------------------------------------------- */

static void test_bad_arguments_are_refused(void **state)
{
	struct verdict_input input = { 0 };
	struct verdict *verdict = (struct verdict *)&input;
	char line[8];

	(void)state;
	assert_int_equal(verdict_make(NULL, &verdict), -EINVAL);
	assert_null(verdict);
	assert_int_equal(verdict_make(&input, NULL), -EINVAL);
	assert_int_equal(verdict_make(&input, &verdict), -EINVAL);
	assert_int_equal(verdict_summary(NULL, line, sizeof(line)), -EINVAL);
	verdict_free(NULL);
}

static void test_summary_is_cut_to_the_buffer(void **state)
{
	struct run run;
	static const char *const lines[] = { auth_timeout_line };
	struct verdict *verdict;
	char line[9];

	(void)state;
	run_init(&run, w3_failing);
	run_log(&run, lines, 1);
	verdict = run_judge(&run);
	assert_int_equal(verdict_summary(verdict, line, sizeof(line)), -ENOSPC);
	assert_string_equal(line, "FAIL aut");
	run_free(&run);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(verdict_outcome_name(VERDICT_PASS), "PASS");
	assert_string_equal(verdict_outcome_name(VERDICT_FAIL), "FAIL");
	assert_string_equal(verdict_outcome_name(VERDICT_INFRA), "INFRA");
	assert_string_equal(verdict_outcome_name(VERDICT_SKIP), "SKIP");
	assert_string_equal(verdict_lab_error_kind_name(VERDICT_LAB_UPLOAD), "upload failed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_run_passes),
		cmocka_unit_test(test_log_symptoms_quote_the_line_in_job_order),
		cmocka_unit_test(test_symptoms_are_deduplicated_keeping_the_first_line),
		cmocka_unit_test(test_console_line_ends_are_not_evidence),
		cmocka_unit_test(test_failing_tests_are_named_and_summarised),
		cmocka_unit_test(test_symptom_alone_fails_a_run_whose_tests_passed),
		cmocka_unit_test(test_not_ok_without_symptom_is_an_unmatched_failure),
		cmocka_unit_test(test_unmatched_failure_is_not_added_beside_a_symptom),
		cmocka_unit_test(test_expected_failures_and_skips_pass),
		cmocka_unit_test(test_nested_failures_are_named_by_their_path),
		cmocka_unit_test(test_metric_at_the_threshold_passes),
		cmocka_unit_test(test_metric_just_over_the_threshold_fails),
		cmocka_unit_test(test_metric_without_unit_has_no_stray_space),
		cmocka_unit_test(test_run_level_metric_overrides_per_test_values),
		cmocka_unit_test(test_per_test_metric_counts_when_the_run_has_none),
		cmocka_unit_test(test_hang_of_kernel_under_test_fails_with_console_evidence),
		cmocka_unit_test(test_hang_without_any_output),
		cmocka_unit_test(test_workload_past_its_timeout_is_a_fail),
		cmocka_unit_test(test_hang_of_another_kernel_is_infra),
		cmocka_unit_test(test_output_ended_early_without_hang_is_infra),
		cmocka_unit_test(test_output_ended_early_with_symptom_fails),
		cmocka_unit_test(test_null_report_is_infra),
		cmocka_unit_test(test_null_report_with_log_symptom_fails),
		cmocka_unit_test(test_bail_out_is_infra_with_its_reason),
		cmocka_unit_test(test_lab_error_before_boot_beats_everything),
		cmocka_unit_test(test_lab_error_after_boot_does_not_hide_a_hang),
		cmocka_unit_test(test_lab_error_after_boot_turns_a_pass_into_infra),
		cmocka_unit_test(test_missing_output_names_the_lab_error_first),
		cmocka_unit_test(test_build_failure_skips_even_with_log_lines),
		cmocka_unit_test(test_boot_failure_skips_by_default),
		cmocka_unit_test(test_boot_failure_fails_when_the_policy_says_so),
		cmocka_unit_test(test_bad_arguments_are_refused),
		cmocka_unit_test(test_summary_is_cut_to_the_buffer),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
