/* Option parsing shared by every command (src/cli.h): what a command's
 * usage offers is what it takes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage_with_outputs[] =
	"usage: rackbisect thing JOB [--commit REF] [--tree DIR] [--json] [--junit FILE]\n";
static const char usage_without[] = "usage: rackbisect other JOB [--commit REF] [--lab LAB] [--state DIR]\n";

static int parse(const char *usage, struct cli_globals *globals, const char **commit, int argc, char **argv)
{
	const struct cli_option options[] = { { .name = "commit", .value = commit }, { 0 } };
	const char *positional[2];
	size_t count;

	memset(globals, 0, sizeof(*globals));
	return cli_parse(argc, argv, options, globals, positional, 2, &count, usage);
}

static void test_outputs_the_usage_offers_are_taken(void **state)
{
	char *argv[] = { "thing", "job.yaml", "--json", "--junit", "out.xml", "--tree=/src", "--commit", "v3.3",
			 "--state", "/s", NULL };
	struct cli_globals globals;
	const char *commit = NULL;

	(void)state;
	assert_int_equal(parse(usage_with_outputs, &globals, &commit, 10, argv), 0);
	assert_true(globals.json);
	assert_string_equal(globals.junit, "out.xml");
	assert_string_equal(globals.tree, "/src");
	assert_string_equal(globals.state, "/s");
	assert_string_equal(commit, "v3.3");
}

static void test_outputs_the_usage_does_not_offer_are_usage_errors(void **state)
{
	char *json[] = { "other", "job.yaml", "--json", NULL };
	char *junit[] = { "other", "job.yaml", "--junit", "out.xml", NULL };
	char *tree[] = { "other", "job.yaml", "--tree=/src", NULL };
	struct cli_globals globals;
	const char *commit = NULL;

	(void)state;
	assert_int_equal(parse(usage_without, &globals, &commit, 3, json), CLI_EXIT_USAGE);
	assert_false(globals.json);
	assert_int_equal(parse(usage_without, &globals, &commit, 4, junit), CLI_EXIT_USAGE);
	assert_null(globals.junit);
	assert_int_equal(parse(usage_without, &globals, &commit, 3, tree), CLI_EXIT_USAGE);
	assert_null(globals.tree);
}

/* "--json" must be named as itself, not as the start of another option */
static void test_a_longer_option_is_no_offer(void **state)
{
	static const char usage[] = "usage: rackbisect x [--json-lines] [--treeish REF]\n";
	char *json[] = { "x", "--json", NULL };
	char *tree[] = { "x", "--tree", "t", NULL };
	struct cli_globals globals;
	const char *commit = NULL;

	(void)state;
	assert_int_equal(parse(usage, &globals, &commit, 2, json), CLI_EXIT_USAGE);
	assert_int_equal(parse(usage, &globals, &commit, 3, tree), CLI_EXIT_USAGE);
}

static void test_lab_state_and_verbose_are_taken_everywhere(void **state)
{
	char *argv[] = { "other", "--lab", "l.yaml", "--state", "/s", "-v", "--verbose", NULL };
	struct cli_globals globals;
	const char *commit = NULL;

	(void)state;
	assert_int_equal(parse("usage: rackbisect other\n", &globals, &commit, 7, argv), 0);
	assert_string_equal(globals.lab_option, "l.yaml");
	assert_true(globals.verbose);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outputs_the_usage_offers_are_taken),
		cmocka_unit_test(test_outputs_the_usage_does_not_offer_are_usage_errors),
		cmocka_unit_test(test_a_longer_option_is_no_offer),
		cmocka_unit_test(test_lab_state_and_verbose_are_taken_everywhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
