/* The nightly file (what loads, mistakes at file:line:col) and the last good night. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nightly.h"

/* A directory holding one git repository ("linux") and the nightly file. */
struct scratch {
	char dir[64];
	char path[128];
	char error[1024];
	struct nightly_config *config;
};

static int setup(void **state)
{
	struct scratch *scratch = calloc(1, sizeof(*scratch));
	char command[256];

	strcpy(scratch->dir, "/tmp/rackbisect-test-nightly-XXXXXX");
	assert_non_null(mkdtemp(scratch->dir));
	snprintf(command, sizeof(command), "git init -q %s/linux", scratch->dir);
	assert_int_equal(system(command), 0);
	snprintf(scratch->path, sizeof(scratch->path), "%s/nightly.yaml", scratch->dir);
	*state = scratch;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *scratch = *state;
	char command[128];

	nightly_config_free(scratch->config);
	snprintf(command, sizeof(command), "rm -rf %s", scratch->dir);
	assert_int_equal(system(command), 0);
	free(scratch);
	return 0;
}

static int load(struct scratch *scratch, const char *text)
{
	FILE *file = fopen(scratch->path, "w");

	assert_non_null(file);
	fputs(text, file);
	fclose(file);
	nightly_config_free(scratch->config);
	scratch->config = NULL;
	return nightly_config_load(scratch->path, &scratch->config, scratch->error,
				   sizeof(scratch->error));
}

static void assert_fails_at(struct scratch *scratch, const char *text, int line, int column,
			    const char *words)
{
	char prefix[200];

	if (load(scratch, text) == 0)
		fail_msg("loaded, but should fail at %d:%d with '%s'", line, column, words);
	assert_null(scratch->config);
	snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", scratch->path, line, column);
	if (strncmp(scratch->error, prefix, strlen(prefix)) != 0)
		fail_msg("error '%s' does not start with '%s'", scratch->error, prefix);
	if (!strstr(scratch->error, words))
		fail_msg("error '%s' does not say '%s'", scratch->error, words);
}

static void test_loads_trees_and_branches(void **state)
{
	struct scratch *scratch = *state;
	char expected[200];

	assert_int_equal(load(scratch, "job: jobs/x.yaml\n"
					"confidence: 0.999\n"
					"trees:\n"
					"  - name: stable\n"
					"    path: linux\n"
					"    branches: [linux-3.3.y, linux-3.4.y]\n"
					"    mainline: master\n"
					"  - name: mainline\n"
					"    path: linux\n"
					"    branches: [master]\n"), 0);
	assert_int_equal(scratch->config->branch_count, 3);
	assert_string_equal(scratch->config->branches[0].night, "stable/linux-3.3.y");
	assert_string_equal(scratch->config->branches[1].night, "stable/linux-3.4.y");
	assert_string_equal(scratch->config->branches[1].mainline, "master");
	assert_string_equal(scratch->config->branches[2].night, "mainline/master");
	assert_null(scratch->config->branches[2].mainline);
	assert_string_equal(scratch->config->confidence, "0.999");
	/* relative paths start at the nightly file's directory */
	snprintf(expected, sizeof(expected), "%s/linux", scratch->dir);
	assert_string_equal(scratch->config->branches[0].path, expected);
	snprintf(expected, sizeof(expected), "%s/jobs/x.yaml", scratch->dir);
	assert_string_equal(scratch->config->job_path, expected);
}

static void test_mistakes_are_named_where(void **state)
{
	struct scratch *scratch = *state;

	assert_fails_at(scratch, "job: x.yaml\ntrees:\n  - name: a\n    path: nowhere\n"
				 "    branches: [master]\n", 4, 11, "is not a git repository");
	assert_fails_at(scratch, "job: x.yaml\ntrees:\n  - name: a\n    path: linux\n"
				 "    branches: [-x]\n", 5, 15, "'-x' is not a branch name");
	assert_fails_at(scratch, "job: x.yaml\ntrees:\n  - name: a b\n    path: linux\n"
				 "    branches: [master]\n", 3, 11, "plain name");
	assert_fails_at(scratch, "job: x.yaml\ntrees:\n  - path: linux\n    branches: [master]\n",
			3, 5, "a tree has no name");
	assert_fails_at(scratch, "job: x.yaml\ntrees:\n  - name: a\n    path: linux\n", 3, 5,
			"tree 'a' has no branches");
	assert_fails_at(scratch, "job: x.yaml\ntrees:\n  - name: a\n    path: linux\n"
				 "    branches: [master]\n    brances: [x]\n", 6, 14, "unknown key 'brances'");
	assert_fails_at(scratch, "job: x.yaml\ntrees:\n  - name: a\n    path: linux\n"
				 "    branches: [master, master]\n", 3, 5, "a/master is tracked twice");
	assert_fails_at(scratch, "trees:\n  - name: a\n    path: linux\n    branches: [master]\n",
			1, 1, "names no job");
	assert_fails_at(scratch, "job: x.yaml\n", 1, 1, "tracks no tree");
	assert_fails_at(scratch, "job: x.yaml\ntrees: []\n", 2, 8, "trees must be a list");
	assert_fails_at(scratch, "job: x.yaml\ntrees: [\n", 3, 1, "YAML syntax error");
}

/* A gate of `job` recorded as `night`, finished with `verdict`. */
static void store_night(struct store *store, const char *job, const char *night,
			const char *candidate, const char *verdict)
{
	char spec[300];
	int64_t id;

	snprintf(spec, sizeof(spec), "{\"night\":\"%s\",\"candidate\":\"%s\"}", night, candidate);
	assert_int_equal(store_gate_create(store, job, spec, &id), 0);
	assert_int_equal(store_gate_finish(store, id, STORE_GATE_DONE, verdict, "{}"), 0);
}

static void test_last_good_night(void **state)
{
	struct scratch *scratch = *state;
	char database[128], *commit = (char *)"unset";
	struct store *store;
	int64_t gate_id, aborted;

	snprintf(database, sizeof(database), "%s/state.db", scratch->dir);
	assert_int_equal(store_open(database, &store), 0);
	assert_int_equal(nightly_last_good(store, "ath9k", "stable/linux-3.3.y", &commit, &gate_id),
			 -ENOENT);
	assert_null(commit);
	store_night(store, "ath9k", "stable/linux-3.3.y", "aaaa", "PASS");		/* gate 1 */
	store_night(store, "ath9k", "stable/linux-3.3.y", "bbbb", "PASS");		/* gate 2 */
	store_night(store, "ath9k", "stable/linux-3.3.y", "cccc", "REGRESSION");	/* gate 3 */
	store_night(store, "ath9k", "mainline/master", "dddd", "PASS");		/* another branch */
	store_night(store, "other-job", "stable/linux-3.3.y", "eeee", "PASS");	/* another job */
	store_night(store, "ath9k", "stable/linux-3.3.y", "ffff", "INCOMPLETE");	/* lab trouble */
	assert_int_equal(store_gate_create(store, "ath9k", "{\"night\":\"stable/linux-3.3.y\","
					   "\"candidate\":\"9999\"}", &aborted), 0);	/* running */
	/* a regression or lab trouble is not good; the newest PASS of that branch and job is */
	assert_int_equal(nightly_last_good(store, "ath9k", "stable/linux-3.3.y", &commit, &gate_id), 0);
	assert_string_equal(commit, "bbbb");
	assert_int_equal(gate_id, 2);
	free(commit);
	assert_int_equal(nightly_last_good(store, "ath9k", "mainline/master", &commit, &gate_id), 0);
	assert_string_equal(commit, "dddd");
	free(commit);
	/* a gate that is no night (a stable gate by hand) never counts */
	assert_int_equal(nightly_last_good(store, "ath9k", "stable/linux-3.4.y", &commit, &gate_id),
			 -ENOENT);
	store_close(store);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_loads_trees_and_branches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mistakes_are_named_where, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_good_night, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
