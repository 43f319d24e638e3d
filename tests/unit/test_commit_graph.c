/* Bisection candidates from git: merges, several good ends, refused refs. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commit_graph.h"

static char repo[64];

static void git(const char *args)
{
	char command[512];

	snprintf(command, sizeof(command),
		 "cd '%s' && GIT_AUTHOR_DATE=@1700000000 GIT_COMMITTER_DATE=@1700000000 git -c user.name=t "
		 "-c user.email=t@example.com %s >/dev/null 2>&1", repo, args);
	assert_int_equal(system(command), 0);
}

/* c0 - c1 - c2 ----- m (merge, tag bad)
 *        \          /
 *         s1 ------'            */
static int make_repo(void **state)
{
	(void)state;
	strcpy(repo, "/tmp/rackbisect-test-graph-XXXXXX");
	assert_non_null(mkdtemp(repo));
	git("init -q -b main");
	git("commit -q --allow-empty -m c0 && git tag c0");
	git("commit -q --allow-empty -m c1 && git tag c1");
	git("checkout -q -b side && git commit -q --allow-empty -m s1 && git tag s1");
	git("checkout -q main && git commit -q --allow-empty -m c2 && git tag c2");
	git("merge -q --no-ff -m m side && git tag m");
	return 0;
}

static int remove_repo(void **state)
{
	char command[128];

	(void)state;
	snprintf(command, sizeof(command), "rm -rf '%s'", repo);
	return system(command);
}

static long index_of(const struct commit_graph *graph, const char *tag)
{
	char command[256], id[64] = "";
	FILE *pipe;
	size_t i;

	snprintf(command, sizeof(command), "git -C '%s' rev-parse %s", repo, tag);
	pipe = popen(command, "r");
	assert_non_null(pipe);
	assert_non_null(fgets(id, sizeof(id), pipe));
	pclose(pipe);
	for (i = 0; i < graph->count; i++)
		if (strncmp(graph->commits[i].id, id, 40) == 0)
			return (long)i;
	return -1;
}

static void test_merge_keeps_both_parents(void **state)
{
	const char *goods[] = { "c0" };
	struct commit_graph graph;
	char error[256];
	long m, c2, s1;

	(void)state;
	assert_int_equal(commit_graph_load(repo, "m", goods, 1, &graph, error, sizeof(error)), 0);
	assert_int_equal(graph.count, 4);	/* m, c2, s1, c1 */
	m = index_of(&graph, "m");
	c2 = index_of(&graph, "c2");
	s1 = index_of(&graph, "s1");
	assert_true(m >= 0 && c2 >= 0 && s1 >= 0);
	assert_int_equal(graph.bad_index, (size_t)m);
	assert_int_equal(graph.commits[m].parent_count, 2);
	assert_true((graph.commits[m].parents[0] == (size_t)c2 && graph.commits[m].parents[1] == (size_t)s1) ||
		    (graph.commits[m].parents[0] == (size_t)s1 && graph.commits[m].parents[1] == (size_t)c2));
	/* c1's parent c0 is good: not a candidate, so left out */
	assert_int_equal(graph.commits[index_of(&graph, "c1")].parent_count, 0);
	commit_graph_free(&graph);
}

static void test_several_good_ends(void **state)
{
	const char *goods[] = { "c2", "c0" };
	struct commit_graph graph;
	char error[256];

	(void)state;
	assert_int_equal(commit_graph_load(repo, "m", goods, 2, &graph, error, sizeof(error)), 0);
	assert_int_equal(graph.count, 2);	/* m and s1: c1 is behind the good c2 */
	assert_true(index_of(&graph, "s1") >= 0);
	assert_int_equal(index_of(&graph, "c1"), -1);
	commit_graph_free(&graph);
}

static void test_refused_refs(void **state)
{
	const char *goods[] = { "c0" }, *bad_goods[] = { "m" }, *option_goods[] = { "--all" };
	struct commit_graph graph;
	char error[256];

	(void)state;
	assert_int_equal(commit_graph_load(repo, "nope", goods, 1, &graph, error, sizeof(error)), -ENOENT);
	assert_non_null(strstr(error, "no commit 'nope'"));
	assert_int_equal(commit_graph_load(repo, "c1", bad_goods, 1, &graph, error, sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "nothing to bisect"));
	assert_int_equal(commit_graph_load(repo, "m", option_goods, 1, &graph, error, sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "looks like an option"));
	assert_null(graph.commits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_keeps_both_parents),
		cmocka_unit_test(test_several_good_ends),
		cmocka_unit_test(test_refused_refs),
	};

	return cmocka_run_group_tests(tests, make_repo, remove_repo);
}
