/* Job files: what loads, and that every mistake is named with file:line:col. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_config.h"

struct scratch {
	char path[64];
	char error[1024];
	struct job *job;
};

static int load(struct scratch *scratch, const char *text)
{
	int fd;
	int rc;

	strcpy(scratch->path, "/tmp/rackbisect-test-job-XXXXXX");
	fd = mkstemp(scratch->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = job_load(scratch->path, &scratch->job, scratch->error, sizeof(scratch->error));
	unlink(scratch->path);
	return rc;
}

/* The load must fail with an error starting "<file>:<line>:<col>: " and saying `words`. */
static void assert_load_fails_at(const char *text, int line, int column, const char *words)
{
	struct scratch scratch = { 0 };
	char prefix[128];

	if (load(&scratch, text) == 0)
		fail_msg("loaded, but should fail at %d:%d with '%s'", line, column, words);
	assert_null(scratch.job);
	snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", scratch.path, line, column);
	if (strncmp(scratch.error, prefix, strlen(prefix)) != 0)
		fail_msg("error '%s' does not start with '%s'", scratch.error, prefix);
	if (!strstr(scratch.error, words))
		fail_msg("error '%s' does not say '%s'", scratch.error, words);
}

static struct job *load_shipped_job(void)
{
	char error[1024];
	struct job *job = NULL;

	if (job_load("jobs/ath9k-ps.yaml", &job, error, sizeof(error)) != 0)
		fail_msg("%s", error);
	return job;
}

static const struct job_symptom *find_symptom(const struct job *job, const char *name)
{
	size_t i;

	for (i = 0; i < job->symptom_count; i++) {
		if (strcmp(job->symptoms[i].name, name) == 0)
			return &job->symptoms[i];
	}
	fail_msg("job has no symptom '%s'", name);
	return NULL;
}

static bool log_matches(const struct job *job, const char *symptom, const char *line)
{
	return regexec(&find_symptom(job, symptom)->regex, line, 0, NULL, 0) == 0;
}

/* ---- the shipped job ---------------------------------------------------- */

static void test_shipped_job_has_four_workloads(void **state)
{
	struct job *job = load_shipped_job();
	const struct job_workload *w3 = &job->workloads[2];

	(void)state;
	assert_string_equal(job->name, "ath9k-ps");
	assert_int_equal(job->workload_count, 4);
	assert_string_equal(job->workloads[0].name, "W1");
	assert_string_equal(job->workloads[3].script, "drivers/workload/w4-ifdown-up.sh");
	assert_string_equal(w3->name, "W3");
	assert_string_equal(w3->script, "drivers/workload/w3-idle-transitions.sh");
	assert_int_equal(w3->arg_count, 10);
	assert_string_equal(w3->args[0], "--cycles");
	assert_string_equal(w3->args[1], "20");
	assert_null(w3->args[10]);
	assert_int_equal(w3->repeats, 1);
	assert_int_equal(w3->timeout_seconds, 900);
	job_free(job);
}

static void test_shipped_job_log_patterns_match_real_kernel_lines(void **state)
{
	struct job *job = load_shipped_job();

	(void)state;
	assert_int_equal(job->symptom_count, 7);
	assert_int_equal(find_symptom(job, "auth-timeout")->kind, JOB_SYMPTOM_LOG);
	assert_true(log_matches(job, "auth-timeout",
				"wlan0: authentication with 00:0b:6b:de:ad:01 timed out"));
	assert_false(log_matches(job, "auth-timeout", "wlan0: authenticate with 00:0b:6b:de:ad:01 (try 1)"));
	assert_true(log_matches(job, "txdma-stop-fail", "ath: Failed to stop TX DMA, queues=0x004!"));
	assert_true(log_matches(job, "rxdma-stop-fail",
				"ath: phy0: DMA failed to stop in 10 ms AR_CR=0x00000024"));
	assert_true(log_matches(job, "rxdma-stop-fail",
				"ath: Could not stop RX, we could be confusing the DMA engine"));
	assert_true(log_matches(job, "connection-lost", "wlan0: Connection to AP 00:0b:6b:de:ad:01 lost."));
	job_free(job);
}

static void test_shipped_job_metric_thresholds(void **state)
{
	struct job *job = load_shipped_job();
	const struct job_symptom *ping = find_symptom(job, "ping-loss");
	const struct job_symptom *tx = find_symptom(job, "tx-failed");

	(void)state;
	assert_int_equal(ping->kind, JOB_SYMPTOM_METRIC);
	assert_string_equal(ping->metric, "ping_loss_total");
	assert_int_equal(ping->compare, JOB_COMPARE_GREATER);
	assert_true(ping->threshold == 5.0);
	assert_string_equal(tx->metric, "tx_failed_ratio");
	assert_true(tx->threshold == 2.0);
	assert_true(job_symptom_metric_holds(tx, 2.5));
	assert_false(job_symptom_metric_holds(tx, 2.0));
	assert_string_equal(find_symptom(job, "not-associated")->metric, "failed_not_associated");
	job_free(job);
}

static void test_shipped_job_kernel_boards_policy_timeouts(void **state)
{
	struct job *job = load_shipped_job();

	(void)state;
	assert_null(job->kernel.tree);
	assert_int_equal(job->kernel.build_argc, 1);
	assert_string_equal(job->kernel.build_argv[0], "make");
	assert_string_equal(job->kernel.artifact, "arch/x86/boot/bzImage");
	assert_string_equal(job->kernel.release, "include/config/kernel.release");
	assert_int_equal(job->boards.tag_count + job->boards.chip_count, 0);
	assert_int_equal(job->boot_failure, JOB_POLICY_SKIP);
	assert_int_equal(job->boot_timeout_seconds, 300);
	assert_int_equal(job->hang_timeout_seconds, 120);
	job_free(job);
}

/* ---- values and defaults ------------------------------------------------ */

static void test_minimal_job_gets_defaults(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(load(&scratch, "name: j\nworkloads:\n  - name: W1\n"), 0);
	assert_string_equal(scratch.job->kernel.build_argv[0], "make");
	assert_null(scratch.job->kernel.build_argv[1]);
	assert_string_equal(scratch.job->kernel.artifact, "arch/x86/boot/bzImage");
	assert_string_equal(scratch.job->kernel.release, "include/config/kernel.release");
	assert_int_equal(scratch.job->workloads[0].repeats, 1);
	assert_int_equal(scratch.job->workloads[0].timeout_seconds, 1800);
	assert_int_equal(scratch.job->workloads[0].arg_count, 0);
	assert_int_equal(scratch.job->symptom_count, 0);
	assert_int_equal(scratch.job->boot_timeout_seconds, 300);
	assert_int_equal(scratch.job->hang_timeout_seconds, 120);
	job_free(scratch.job);
}

static void test_kernel_build_argv_and_tree_are_kept(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(load(&scratch, "name: j\nkernel:\n  tree: /srv/linux\n"
				  "  build: [make, -j8, bzImage]\nworkloads:\n  - name: W1\n"), 0);
	assert_string_equal(scratch.job->kernel.tree, "/srv/linux");
	assert_int_equal(scratch.job->kernel.tree_where.line, 3);
	assert_int_equal(scratch.job->kernel.build_argc, 3);
	assert_string_equal(scratch.job->kernel.build_argv[1], "-j8");
	assert_null(scratch.job->kernel.build_argv[3]);
	job_free(scratch.job);
}

static void test_kernel_command_line_is_one_printable_line(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(load(&scratch, "name: j\nkernel: {command_line: \"ath9k.ps_enable=1 quiet\"}\n"
				  "workloads:\n  - name: W1\n"), 0);
	assert_string_equal(scratch.job->kernel.command_line, "ath9k.ps_enable=1 quiet");
	job_free(scratch.job);
	assert_int_equal(load(&scratch, "name: j\nworkloads:\n  - name: W1\n"), 0);
	assert_null(scratch.job->kernel.command_line);
	job_free(scratch.job);
	assert_load_fails_at("name: j\nkernel: {command_line: \"quiet\\ninit=/bin/sh\"}\nworkloads:\n  - name: W1\n",
			     2, 24, "kernel command_line must be one line of printable words");
	assert_load_fails_at("name: j\nkernel: {command_line: [quiet]}\nworkloads:\n  - name: W1\n",
			     2, 24, "kernel command_line");
}

/* How many builds at once: 0 (not given) means one per CPU; 0 written is an error. */
static void test_kernel_parallel_builds(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(load(&scratch, "name: j\nkernel: {parallel_builds: 3}\nworkloads:\n  - name: W1\n"),
			 0);
	assert_int_equal(scratch.job->kernel.parallel_builds, 3);
	job_free(scratch.job);
	assert_int_equal(load(&scratch, "name: j\nworkloads:\n  - name: W1\n"), 0);
	assert_int_equal(scratch.job->kernel.parallel_builds, 0);
	job_free(scratch.job);
	assert_load_fails_at("name: j\nkernel: {parallel_builds: 0}\nworkloads:\n  - name: W1\n",
			     2, 27, "parallel_builds must be 1..256");
	assert_load_fails_at("name: j\nkernel: {parallel_builds: many}\nworkloads:\n  - name: W1\n",
			     2, 27, "parallel_builds");
}

/* A build that hangs must not stall everything: two hours by default. */
static void test_kernel_build_timeout(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(load(&scratch, "name: j\nworkloads:\n  - name: W1\n"), 0);
	assert_int_equal(scratch.job->kernel.build_timeout_seconds, 7200);
	job_free(scratch.job);
	assert_int_equal(load(&scratch, "name: j\nkernel: {build_timeout: 900}\nworkloads:\n"
				   "  - name: W1\n"), 0);
	assert_int_equal(scratch.job->kernel.build_timeout_seconds, 900);
	job_free(scratch.job);
	assert_load_fails_at("name: j\nkernel: {build_timeout: 0}\nworkloads:\n  - name: W1\n",
			     2, 25, "kernel build_timeout must be 1..604800 (seconds)");
}

static void test_shell_metacharacters_stay_one_argv_word(void **state)
{
	struct scratch scratch = { 0 };
	const char *nasty = "x; rm -rf / $(reboot) `id` | cat > y && 'q' \"d\"";

	(void)state;
	assert_int_equal(load(&scratch, "name: j\nworkloads:\n  - name: W2\n    parameters:\n"
				  "      target: 'x; rm -rf / $(reboot) `id` | cat > y && ''q'' \"d\"'\n"), 0);
	assert_int_equal(scratch.job->workloads[0].arg_count, 2);
	assert_string_equal(scratch.job->workloads[0].args[0], "--target");
	assert_string_equal(scratch.job->workloads[0].args[1], nasty);
	assert_null(scratch.job->workloads[0].args[2]);
	job_free(scratch.job);
}

static void test_custom_script_and_repeats(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(load(&scratch, "name: j\nworkloads:\n  - name: w3-scan\n"
				  "    script: drivers/workload/w3-idle-transitions.sh\n"
				  "    repeats: 5\n    parameters: {reconnect: scan}\n"), 0);
	assert_string_equal(scratch.job->workloads[0].name, "w3-scan");
	assert_string_equal(scratch.job->workloads[0].script, "drivers/workload/w3-idle-transitions.sh");
	assert_int_equal(scratch.job->workloads[0].repeats, 5);
	assert_string_equal(scratch.job->workloads[0].args[0], "--reconnect");
	job_free(scratch.job);
}

static void test_board_selection_needs_every_tag_and_one_chip(void **state)
{
	struct scratch scratch = { 0 };
	char *tags[] = { "ar9285", "rtc-reset", "pcie", NULL };
	struct lab_board board = { .name = "b", .chip = "ar9285", .tags = tags, .tag_count = 3 };

	(void)state;
	assert_int_equal(load(&scratch, "name: j\nboards: {tags: [rtc-reset, pcie], chips: [ar9280, ar9285]}\n"
				  "workloads:\n  - name: W1\n"), 0);
	assert_true(job_selects_board(scratch.job, &board));
	board.tag_count = 2;	/* drops "pcie" */
	assert_false(job_selects_board(scratch.job, &board));
	board.tag_count = 3;
	board.chip = "ar5416";
	assert_false(job_selects_board(scratch.job, &board));
	job_free(scratch.job);
}

static void test_boot_failure_policy_fail(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(load(&scratch, "name: j\nworkloads:\n  - name: W1\n"
				  "policy: {build_failure: skip, boot_failure: fail}\n"), 0);
	assert_int_equal(scratch.job->boot_failure, JOB_POLICY_FAIL);
	job_free(scratch.job);
}

static void test_metric_comparisons(void **state)
{
	struct job_symptom symptom = { .kind = JOB_SYMPTOM_METRIC, .threshold = 3 };

	(void)state;
	symptom.compare = JOB_COMPARE_GREATER_EQUAL;
	assert_true(job_symptom_metric_holds(&symptom, 3));
	symptom.compare = JOB_COMPARE_LESS;
	assert_true(job_symptom_metric_holds(&symptom, 2));
	assert_false(job_symptom_metric_holds(&symptom, 3));
	symptom.compare = JOB_COMPARE_NOT_EQUAL;
	assert_false(job_symptom_metric_holds(&symptom, 3));
	assert_string_equal(job_compare_text(JOB_COMPARE_LESS_EQUAL), "<=");
}

/* ---- every error class, with its place ----------------------------------- */

static void test_unknown_keys_are_pointed_at(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\ncolour: red\nworkloads:\n  - name: W1\n", 2, 9,
			     "unknown job key 'colour'");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\n    cycles: 20\n", 4, 13,
			     "workload: unknown key 'cycles'");
	assert_load_fails_at("name: j\nkernel: {path: /x}\nworkloads:\n  - name: W1\n", 2, 16,
			     "kernel: unknown key 'path'");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n  - name: s\n    regex: x\n",
			     6, 12, "symptom: unknown key 'regex'");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\ntimeouts: {watchdog: 5}\n", 4, 22,
			     "timeouts: unknown key 'watchdog'");
}

static void test_wrong_types_are_pointed_at(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\nkernel:\n  build: make -j8\nworkloads:\n  - name: W1\n", 3, 10,
			     "list of argv words");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\n    repeats: many\n", 4, 14,
			     "whole number");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\n    parameters: [cycles, 20]\n", 4, 17,
			     "must be a mapping");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\n    parameters: {cycles: [1, 2]}\n", 4,
			     26, "single value");
	assert_load_fails_at("name: j\nworkloads: W1\n", 2, 12, "non-empty list");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\n    timeout: 0\n", 4, 14, "1..86400");
}

static void test_missing_required_fields_are_pointed_at(void **state)
{
	(void)state;
	assert_load_fails_at("workloads:\n  - name: W1\n", 1, 1, "has no name");
	assert_load_fails_at("name: j\n", 1, 1, "no workloads");
	assert_load_fails_at("name: j\nworkloads:\n  - repeats: 2\n", 3, 5, "workload has no name");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n  - log: x\n", 5, 5,
			     "symptom has no name");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n  - name: s\n", 5, 5,
			     "has no rule");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n"
			     "  - {name: s, metric: ping_loss_total, threshold: 5}\n", 5, 5,
			     "needs all of metric:, compare: and threshold:");
}

static void test_unknown_workload_name_is_pointed_at(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\n  - name: W9\n", 4, 5,
			     "unknown workload 'W9' (expected W1, W2, W3, W4");
}

static void test_bad_script_paths_are_refused(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\nworkloads:\n  - name: x\n    script: /bin/sh\n", 4, 13,
			     "relative path under drivers/workload/");
	assert_load_fails_at("name: j\nworkloads:\n  - name: x\n    script: drivers/workload/../../evil.sh\n",
			     4, 13, "'..'");
	assert_load_fails_at("name: j\nworkloads:\n  - name: x\n    script: tools/w.sh\n", 4, 13,
			     "must be under drivers/workload/");
}

static void test_bad_regex_is_pointed_at(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n  - name: s\n"
			     "    log: 'Failed to stop (TX'\n", 6, 10, "not a valid regex");
}

static void test_bad_comparison_operator_is_pointed_at(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n  - name: s\n"
			     "    metric: ping_loss_total\n    compare: \"=>\"\n    threshold: 5\n",
			     7, 14, "compare must be one of");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n  - name: s\n"
			     "    metric: ping_loss_total\n    compare: \">\"\n    threshold: five\n",
			     8, 16, "threshold must be a number");
}

static void test_contradictory_or_reserved_symptoms(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n"
			     "  - {name: s, log: x, metric: m, compare: \">\", threshold: 1}\n", 5, 5,
			     "both log and metric");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n  - {name: hang, log: x}\n",
			     5, 5, "reserved");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\nsymptoms:\n  - {name: s, log: x}\n"
			     "  - {name: s, log: y}\n", 6, 5, "used twice");
}

static void test_policy_values_are_checked(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\npolicy: {boot_failure: retry}\n", 4, 24,
			     "skip or fail");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\npolicy: {build_failure: fail}\n", 4, 25,
			     "can only be skip");
}

static void test_duplicate_key_and_duplicate_workload(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\nname: k\nworkloads:\n  - name: W1\n", 2, 1, "given twice");
	assert_load_fails_at("name: j\nworkloads:\n  - name: W1\n  - name: W1\n", 4, 5, "used twice");
}

static void test_missing_and_empty_files(void **state)
{
	struct scratch scratch = { 0 };
	char error[512];
	struct job *job = NULL;

	(void)state;
	assert_int_not_equal(job_load("/nonexistent/job.yaml", &job, error, sizeof(error)), 0);
	assert_non_null(strstr(error, "/nonexistent/job.yaml: cannot open job file"));
	assert_int_not_equal(load(&scratch, ""), 0);
	assert_non_null(strstr(scratch.error, ":1:1: the job file is empty"));
}


/* ---- kbuild: the real-tree job ------------------------------------------- */

static void assert_same_words(char **a, size_t a_count, char **b, size_t b_count)
{
	assert_int_equal(a_count, b_count);
	for (size_t i = 0; i < a_count; i++)
		assert_string_equal(a[i], b[i]);
}

/* jobs/ath9k-ps.real.yaml is jobs/ath9k-ps.yaml with a kbuild kernel: the
 * same workloads, rules and policy, so a real rack judges as the virtual
 * lab does. */
static void test_real_job_is_the_shipped_job_built_by_kbuild(void **state)
{
	struct job *plain = load_shipped_job(), *real = NULL;
	char error[1024], fragment[PATH_MAX];
	size_t i;

	(void)state;
	if (job_load("jobs/ath9k-ps.real.yaml", &real, error, sizeof(error)) != 0)
		fail_msg("%s", error);
	assert_true(real->kernel.kbuild.enabled);
	assert_string_equal(real->kernel.kbuild.recipe.config_target, "x86_64_defconfig");
	assert_non_null(realpath("jobs/ath9k-ps.config", fragment));
	assert_string_equal(real->kernel.kbuild.recipe.fragment, fragment);
	assert_true(real->kernel.kbuild.recipe.modules);
	assert_string_equal(real->kernel.kbuild.recipe.targets[0], "bzImage");
	assert_string_equal(real->kernel.kbuild.recipe.targets[1], "modules");
	assert_null(real->kernel.kbuild.recipe.targets[2]);
	assert_false(plain->kernel.kbuild.enabled);
	assert_int_equal(real->workload_count, plain->workload_count);
	for (i = 0; i < plain->workload_count; i++) {
		assert_string_equal(real->workloads[i].script, plain->workloads[i].script);
		assert_same_words(real->workloads[i].args, real->workloads[i].arg_count,
				  plain->workloads[i].args, plain->workloads[i].arg_count);
		assert_int_equal(real->workloads[i].timeout_seconds,
				 plain->workloads[i].timeout_seconds);
	}
	assert_int_equal(real->symptom_count, plain->symptom_count);
	for (i = 0; i < plain->symptom_count; i++) {
		assert_string_equal(real->symptoms[i].name, plain->symptoms[i].name);
		assert_int_equal(real->symptoms[i].kind, plain->symptoms[i].kind);
		if (plain->symptoms[i].pattern)
			assert_string_equal(real->symptoms[i].pattern, plain->symptoms[i].pattern);
		else
			assert_true(real->symptoms[i].threshold == plain->symptoms[i].threshold);
	}
	assert_int_equal(real->boot_failure, plain->boot_failure);
	assert_int_equal(real->boot_timeout_seconds, plain->boot_timeout_seconds);
	assert_int_equal(real->hang_timeout_seconds, plain->hang_timeout_seconds);
	job_free(real);
	job_free(plain);
}

/* The fragment asks for what issue 7 names: the stack and ath9k with debugfs. */
static void test_real_job_fragment_has_the_ath9k_options(void **state)
{
	static const char *const wanted[] = {
		"\nCONFIG_CFG80211=m\n", "\nCONFIG_MAC80211=m\n", "\nCONFIG_MAC80211_DEBUGFS=y\n",
		"\nCONFIG_ATH9K=m\n", "\nCONFIG_ATH9K_DEBUGFS=y\n", "\nCONFIG_ATH9K_PCI=y\n",
	};
	FILE *file = fopen("jobs/ath9k-ps.config", "r");
	char text[4096] = "\n";
	size_t length;

	(void)state;
	assert_non_null(file);
	length = fread(text + 1, 1, sizeof(text) - 2, file);
	fclose(file);
	text[length + 1] = '\0';
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (!strstr(text, wanted[i]))
			fail_msg("jobs/ath9k-ps.config lacks %s", wanted[i] + 1);
}

static void test_kbuild_mistakes_are_named(void **state)
{
	(void)state;
	assert_load_fails_at("name: j\nkernel:\n  kbuild:\n    fragment: x.config\n", 4, 15,
			     "kbuild fragment /tmp/x.config: No such file");
	assert_load_fails_at("name: j\nkernel:\n  kbuild: {targets: [bzImage]}\n", 3, 11,
			     "kbuild needs config");
	assert_load_fails_at("name: j\nkernel:\n  kbuild: {config: ../x}\n", 3, 20,
			     "one make target");
	assert_load_fails_at("name: j\nkernel:\n  kbuild: {config: -s}\n", 3, 20,
			     "one make target");
	assert_load_fails_at("name: j\nkernel:\n  kbuild: {config: defconfig, targets: []}\n", 3,
			     40, "non-empty list");
	assert_load_fails_at("name: j\nkernel:\n  kbuild: {config: defconfig, targets: [a b]}\n",
			     3, 41, "one make target");
	assert_load_fails_at("name: j\nkernel:\n  kbuild: {config: defconfig, modules: yes}\n", 3,
			     40, "true or false");
	assert_load_fails_at("name: j\nkernel:\n  kbuild: {config: defconfig, tar: 1}\n", 3, 36,
			     "known: config, fragment, targets, modules");
}

/* A fragment with a line that is not kconfig is named at its own line. */
static void test_kbuild_fragment_lines_are_checked_at_load(void **state)
{
	char fragment[64] = "/tmp/rackbisect-test-fragment-XXXXXX", text[256];
	int fd = mkstemp(fragment);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "CONFIG_ATH9K=m\nATH9K_PCI=y\n", 27), 27);
	close(fd);
	snprintf(text, sizeof(text), "name: j\nkernel:\n  kbuild:\n    config: defconfig\n"
		 "    fragment: %s\n", fragment);
	assert_load_fails_at(text, 5, 15, ":2: not a kconfig line");
	unlink(fragment);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_job_has_four_workloads),
		cmocka_unit_test(test_real_job_is_the_shipped_job_built_by_kbuild),
		cmocka_unit_test(test_real_job_fragment_has_the_ath9k_options),
		cmocka_unit_test(test_kbuild_mistakes_are_named),
		cmocka_unit_test(test_kbuild_fragment_lines_are_checked_at_load),
		cmocka_unit_test(test_shipped_job_log_patterns_match_real_kernel_lines),
		cmocka_unit_test(test_shipped_job_metric_thresholds),
		cmocka_unit_test(test_shipped_job_kernel_boards_policy_timeouts),
		cmocka_unit_test(test_minimal_job_gets_defaults),
		cmocka_unit_test(test_kernel_build_argv_and_tree_are_kept),
		cmocka_unit_test(test_kernel_command_line_is_one_printable_line),
		cmocka_unit_test(test_kernel_parallel_builds),
		cmocka_unit_test(test_kernel_build_timeout),
		cmocka_unit_test(test_shell_metacharacters_stay_one_argv_word),
		cmocka_unit_test(test_custom_script_and_repeats),
		cmocka_unit_test(test_board_selection_needs_every_tag_and_one_chip),
		cmocka_unit_test(test_boot_failure_policy_fail),
		cmocka_unit_test(test_metric_comparisons),
		cmocka_unit_test(test_unknown_keys_are_pointed_at),
		cmocka_unit_test(test_wrong_types_are_pointed_at),
		cmocka_unit_test(test_missing_required_fields_are_pointed_at),
		cmocka_unit_test(test_unknown_workload_name_is_pointed_at),
		cmocka_unit_test(test_bad_script_paths_are_refused),
		cmocka_unit_test(test_bad_regex_is_pointed_at),
		cmocka_unit_test(test_bad_comparison_operator_is_pointed_at),
		cmocka_unit_test(test_contradictory_or_reserved_symptoms),
		cmocka_unit_test(test_policy_values_are_checked),
		cmocka_unit_test(test_duplicate_key_and_duplicate_workload),
		cmocka_unit_test(test_missing_and_empty_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
