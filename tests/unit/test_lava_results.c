/* What LAVA's answers say of a job, read: state and health, why an
 * Incomplete job ended, the device's output cut at the job's markers, and
 * how each kind of ending counts. Inputs in LAVA 2023.01's own formats
 * (its log is a YAML list of {dt, lvl, msg}; a test case's metadata is a
 * YAML mapping in a string); tests/data/lava/ holds answers recorded from
 * a real server, read here too when present. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "lava/job.h"
#include "lava/results.h"

static const char running_job[] =
	"{\"id\": 7, \"state\": \"Running\", \"health\": \"Unknown\", \"actual_device\": \"ssh01\","
	" \"failure_comment\": null, \"definition\": \"job_name: x\"}";
static const char complete_job[] =
	"{\"id\": 7, \"state\": \"Finished\", \"health\": \"Complete\", \"actual_device\": \"ssh01\","
	" \"failure_comment\": null}";
static const char incomplete_job[] =
	"{\"id\": 8, \"state\": \"Finished\", \"health\": \"Incomplete\", \"actual_device\": \"ssh01\","
	" \"failure_comment\": \"Connection closed\"}";

static const char log_yaml[] =
	"- {\"dt\": \"2026-12-05T10:00:00.000000\", \"lvl\": \"info\", \"msg\": \"start: 1 deploy\"}\n"
	"- {\"dt\": \"2026-12-05T10:00:01.000000\", \"lvl\": \"target\", \"msg\": \"root@ssh01:~# \"}\n"
	"- {\"dt\": \"2026-12-05T10:00:02.000000\", \"lvl\": \"target\", \"msg\": \"" LAVA_KTAP_BEGIN "\"}\n"
	"- {\"dt\": \"2026-12-05T10:00:02.100000\", \"lvl\": \"target\", \"msg\": \"KTAP version 1\"}\n"
	"- {\"dt\": \"2026-12-05T10:00:02.200000\", \"lvl\": \"target\", \"msg\": \"ok 1 - cycle 1\"}\n"
	"- {\"dt\": \"2026-12-05T10:00:02.250000\", \"lvl\": \"results\", \"msg\": {\"case\": \"1-cycle_1\", \"result\": \"pass\"}}\n"
	"- {\"dt\": \"2026-12-05T10:00:02.300000\", \"lvl\": \"target\", \"msg\": \"# metric ping_loss_total=0.00 %\"}\n"
	"- {\"dt\": \"2026-12-05T10:00:02.400000\", \"lvl\": \"target\", \"msg\": \"" LAVA_KTAP_END " status=0\"}\n"
	"- {\"dt\": \"2026-12-05T10:00:02.500000\", \"lvl\": \"target\", \"msg\": \"" LAVA_DMESG_BEGIN "\"}\n"
	"- {\"dt\": \"2026-12-05T10:00:02.600000\", \"lvl\": \"target\", \"msg\": \"[    1.0] wlan0: associated\"}\n"
	"- {\"dt\": \"2026-12-05T10:00:02.700000\", \"lvl\": \"target\", \"msg\": \"" LAVA_DMESG_END "\"}\n"
	"- {\"dt\": \"2026-12-05T10:00:03.000000\", \"lvl\": \"debug\", \"msg\": \"" LAVA_KTAP_BEGIN "\"}\n";

static const char infrastructure_tests[] =
	"{\"count\": 3, \"next\": null, \"previous\": null, \"results\": ["
	"{\"id\": 1, \"name\": \"validate\", \"suite\": 1, \"result\": \"pass\","
	" \"metadata\": \"case: validate\\ndefinition: lava\\nresult: pass\\n\"},"
	"{\"id\": 2, \"name\": \"login-ssh\", \"suite\": 1, \"result\": \"fail\","
	" \"metadata\": \"case: login-ssh\\ndefinition: lava\\nresult: fail\\n\"},"
	"{\"id\": 3, \"name\": \"job\", \"suite\": 1, \"result\": \"fail\","
	" \"metadata\": \"case: job\\ndefinition: lava\\nerror_msg: 'Connection closed'\\n"
	"error_type: Infrastructure\\nresult: fail\\n\"}]}";

static void test_job_state_is_read(void **state)
{
	struct lava_job_state job;
	char error[256];

	(void)state;
	assert_int_equal(lava_job_state_parse(running_job, &job, error, sizeof(error)), 0);
	assert_int_equal(job.phase, LAVA_JOB_RUNNING);
	assert_string_equal(job.device, "ssh01");
	assert_string_equal(job.failure_comment, "");
	assert_int_equal(lava_job_state_parse(complete_job, &job, error, sizeof(error)), 0);
	assert_int_equal(job.phase, LAVA_JOB_FINISHED);
	assert_int_equal(lava_classify(&job, NULL), LAVA_RAN);
	assert_int_equal(lava_job_state_parse(incomplete_job, &job, error, sizeof(error)), 0);
	assert_int_equal(job.phase, LAVA_JOB_FINISHED);
	assert_string_equal(job.health, "Incomplete");
	assert_string_equal(job.failure_comment, "Connection closed");
	assert_int_equal(lava_job_state_parse("{\"state\": \"Submitted\"}", &job, error,
					      sizeof(error)), 0);
	assert_int_equal(job.phase, LAVA_JOB_QUEUED);
	assert_int_equal(lava_job_state_parse("<html>502</html>", &job, error, sizeof(error)),
			 -EINVAL);
	assert_non_null(strstr(error, "not a job"));
}

static void test_why_a_job_ended_is_read(void **state)
{
	struct lava_job_error why;

	(void)state;
	assert_int_equal(lava_job_error_parse(infrastructure_tests, &why), 0);
	assert_string_equal(why.type, "Infrastructure");
	assert_string_equal(why.message, "Connection closed");
	assert_string_equal(why.action, "login-ssh");
	assert_int_equal(lava_job_error_parse("{\"results\": []}", &why), -ENOENT);
	assert_int_equal(lava_job_error_parse("not json", &why), -EINVAL);
}

/* The mapping the issue asks for, each case. */
static void test_endings_are_classified(void **state)
{
	static const struct {
		const char *health, *type, *action;
		enum lava_verdict verdict;
	} cases[] = {
		{ "Complete", "", "", LAVA_RAN },
		{ "Incomplete", "Infrastructure", "login-ssh", LAVA_INFRA },
		{ "Incomplete", "Bug", "", LAVA_INFRA },
		{ "Incomplete", "", "", LAVA_INFRA },
		{ "Canceled", "Canceled", "", LAVA_INFRA },
		{ "Incomplete", "Job", "", LAVA_REFUSED },
		{ "Incomplete", "Configuration", "", LAVA_REFUSED },
		{ "Incomplete", "LAVATimeout", "lava-test-shell", LAVA_HANG },
		{ "Incomplete", "Test", "lava-test-retry", LAVA_HANG },
		{ "Incomplete", "Test", "", LAVA_REFUSED },
		{ "Incomplete", "LAVATimeout", "auto-login-action", LAVA_INFRA },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lava_job_state job = { .phase = LAVA_JOB_FINISHED };
		struct lava_job_error why = { 0 };

		snprintf(job.health, sizeof(job.health), "%s", cases[i].health);
		snprintf(why.type, sizeof(why.type), "%s", cases[i].type);
		snprintf(why.action, sizeof(why.action), "%s", cases[i].action);
		if (lava_classify(&job, &why) != cases[i].verdict)
			fail_msg("case %zu (%s, %s, %s)", i + 1, cases[i].health, cases[i].type,
				 cases[i].action);
	}
}

static void test_output_is_cut_at_the_markers(void **state)
{
	struct lava_output output;
	char error[256];

	(void)state;
	assert_int_equal(lava_output_parse(log_yaml, &output, error, sizeof(error)), 0);
	assert_string_equal(output.ktap, "KTAP version 1\nok 1 - cycle 1\n"
					 "# metric ping_loss_total=0.00 %\n");
	assert_int_equal(output.status, 0);
	assert_string_equal(output.dmesg, "[    1.0] wlan0: associated\n");
	assert_int_equal(output.lines, 9);		/* target lines only */
	assert_non_null(strstr(output.console, "root@ssh01:~# \n"));
	lava_output_free(&output);
}

/* A job that ended mid-workload: KTAP so far, no status, no kernel log. */
static void test_output_of_a_cut_job(void **state)
{
	const char cut[] =
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"" LAVA_KTAP_BEGIN "\"}\n"
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"ok 1 - cycle 1\"}\n"
		"- {\"dt\": \"x\", \"lvl\": \"error\", \"msg\": \"lava-test-shell timed out\"}\n";
	struct lava_output output;
	char error[256];

	(void)state;
	assert_int_equal(lava_output_parse(cut, &output, error, sizeof(error)), 0);
	assert_string_equal(output.ktap, "ok 1 - cycle 1\n");
	assert_int_equal(output.status, -1);
	assert_null(output.dmesg);
	lava_output_free(&output);
	assert_int_equal(lava_output_parse("- [unclosed\n", &output, error, sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "not YAML"));
	assert_int_equal(lava_output_parse("", &output, error, sizeof(error)), 0);
	assert_null(output.ktap);
	assert_int_equal(output.status, -1);
	lava_output_free(&output);
}

/* What the job's own steps said of the build: the last line of each counts,
 * and a build that did not come up as itself still leaves its kernel log. */
static void test_deploy_and_boot_lines_are_read(void **state)
{
	const char log[] =
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"" LAVA_DEPLOY " ok: 3.3.1 loaded\"}\n"
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"" LAVA_BOOTED " waiting: old "
		"kernel\"}\n"
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"" LAVA_BOOTED " failed: uname -r "
		"is '3.3.0-lab-fallback' after booting, expected '3.3.1'\"}\n"
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"" LAVA_BOOTED "X ok: not ours\"}\n"
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"" LAVA_DMESG_BEGIN "\"}\n"
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"[ 0.0] Linux version 3.3.0\"}\n"
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"" LAVA_DMESG_END "\"}\n";
	struct lava_output output;
	char error[256];

	(void)state;
	assert_int_equal(lava_output_parse(log, &output, error, sizeof(error)), 0);
	assert_int_equal(output.deploy.step, LAVA_STEP_OK);
	assert_string_equal(output.deploy.detail, "3.3.1 loaded");
	assert_int_equal(output.booted.step, LAVA_STEP_FAILED);
	assert_string_equal(output.booted.detail,
			    "uname -r is '3.3.0-lab-fallback' after booting, expected '3.3.1'");
	assert_null(output.ktap);		/* no workload ran */
	assert_int_equal(output.status, -1);
	assert_string_equal(output.dmesg, "[ 0.0] Linux version 3.3.0\n");
	lava_output_free(&output);
	/* a job that carried no build says nothing of one */
	assert_int_equal(lava_output_parse(log_yaml, &output, error, sizeof(error)), 0);
	assert_int_equal(output.deploy.step, LAVA_STEP_UNSAID);
	assert_int_equal(output.booted.step, LAVA_STEP_UNSAID);
	lava_output_free(&output);
}

/* ---- answers recorded from a real LAVA 2023.01 (tests/data/lava/README.md) ---------------- */

static char *recorded(const char *name)
{
	char path[256];
	char *text;

	snprintf(path, sizeof(path), "tests/data/lava/%s", name);
	text = files_read_text(path);
	if (!text)
		fail_msg("%s is missing", path);
	return text;
}

static void test_recorded_complete_job(void **state)
{
	char *job = recorded("job-complete.json"), *tests = recorded("tests-complete.json");
	char *log = recorded("logs-complete.yaml");
	struct lava_job_state status;
	struct lava_job_error why;
	struct lava_output output;
	char error[256];

	(void)state;
	assert_int_equal(lava_job_state_parse(job, &status, error, sizeof(error)), 0);
	assert_int_equal(status.phase, LAVA_JOB_FINISHED);
	assert_string_equal(status.health, "Complete");
	assert_true(status.device[0] != '\0');
	/* LAVA's own "job" case passed: found, and no error type */
	assert_int_equal(lava_job_error_parse(tests, &why), 0);
	assert_string_equal(why.type, "");
	assert_int_equal(lava_classify(&status, &why), LAVA_RAN);
	assert_int_equal(lava_output_parse(log, &output, error, sizeof(error)), 0);
	assert_true(output.lines > 0);
	assert_non_null(strstr(output.console, "KTAP version 1\n"));
	assert_null(output.ktap);		/* the probe job has no rackbisect markers */
	lava_output_free(&output);
	free(job);
	free(tests);
	free(log);
}


/* Incomplete for the lab (the device's sshd gone), the test shell out of
 * time, and canceled, as LAVA really said them. */
static void test_recorded_endings(void **state)
{
	static const struct {
		const char *job, *tests, *type;
		enum lava_verdict verdict;
	} cases[] = {
		{ "job-incomplete.json", "tests-incomplete.json", "Infrastructure", LAVA_INFRA },
		{ "job-timeout.json", "tests-timeout.json", "Test", LAVA_HANG },
	};
	struct lava_job_state status;
	struct lava_job_error why;
	char error[256], *job;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *tests = recorded(cases[i].tests);

		job = recorded(cases[i].job);
		assert_int_equal(lava_job_state_parse(job, &status, error, sizeof(error)), 0);
		assert_string_equal(status.health, "Incomplete");
		assert_int_equal(lava_job_error_parse(tests, &why), 0);
		assert_string_equal(why.type, cases[i].type);
		assert_true(why.message[0] != '\0');
		if (lava_classify(&status, &why) != cases[i].verdict)
			fail_msg("%s: %s / %s / %s", cases[i].job, why.type, why.action, why.message);
		free(job);
		free(tests);
	}
	job = recorded("job-canceled.json");
	assert_int_equal(lava_job_state_parse(job, &status, error, sizeof(error)), 0);
	assert_int_equal(lava_classify(&status, NULL), LAVA_INFRA);
	free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_state_is_read),
		cmocka_unit_test(test_why_a_job_ended_is_read),
		cmocka_unit_test(test_endings_are_classified),
		cmocka_unit_test(test_output_is_cut_at_the_markers),
		cmocka_unit_test(test_output_of_a_cut_job),
		cmocka_unit_test(test_deploy_and_boot_lines_are_read),
		cmocka_unit_test(test_recorded_complete_job),
		cmocka_unit_test(test_recorded_endings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
