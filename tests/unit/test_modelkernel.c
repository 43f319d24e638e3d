/*
 * test_modelkernel.c - the model kernel history generator (make-tree).
 *
 * Histories are generated into a temporary directory once per test binary
 * run (mainline-3.4 only when a test first needs it) and inspected with git
 * and make, the way the lab will use them.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <regex.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "virtual/modelkernel/driver_changes.h"
#include "virtual/modelkernel/filler.h"
#include "virtual/modelkernel/git_command.h"
#include "virtual/modelkernel/history.h"
#include "virtual/modelkernel/template.h"
#include "virtual/vlab_commands.h"

#define ATH9K_MAIN "drivers/net/wireless/ath/ath9k/main.c"

/* The -/+ lines of seeds/001-commit-c1afdaff9053-...patch, in order. */
static const char *const seed_patch_lines[] = {
	"-\tif (sc->ps_idle && (sc->ps_flags & PS_WAIT_FOR_TX_ACK))",
	"+\tif (sc->ps_flags & PS_WAIT_FOR_TX_ACK)",
	"+\t\tgoto unlock;",
	"+",
	"+\tif (sc->ps_idle)",
	"-\t\t\t      PS_WAIT_FOR_PSPOLL_DATA |",
	"-\t\t\t      PS_WAIT_FOR_TX_ACK)))",
	"+\t\t\t      PS_WAIT_FOR_PSPOLL_DATA)))",
};

/* The bad backport keeps only the second hunk: the NETWORK_SLEEP guard. */
static const char *const bad_backport_lines[] = {
	"-\t\t\t      PS_WAIT_FOR_PSPOLL_DATA |",
	"-\t\t\t      PS_WAIT_FOR_TX_ACK)))",
	"+\t\t\t      PS_WAIT_FOR_PSPOLL_DATA)))",
};

struct generated {
	char repository[256];
	char truth_path[256];
	json_t *truth;
};

struct fixture {
	char directory[64];
	struct generated stable;
	struct generated mainline;	/* generated on first use */
};

/* ---- helpers -------------------------------------------------------------- */

static int remove_entry(const char *path, const struct stat *info, int type, struct FTW *walk)
{
	(void)info;
	(void)type;
	(void)walk;
	return remove(path);
}

static void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs vlab make-tree in-process; its exit status. */
static int make_tree(const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	const char *argument;
	va_list args;

	argv[argc++] = "make-tree";
	va_start(args, first);
	for (argument = first; argument && argc < 31; argument = va_arg(args, const char *))
		argv[argc++] = (char *)argument;
	va_end(args);
	argv[argc] = NULL;
	return vlab_cmd_make_tree(argc, argv);
}

static void generate(struct fixture *fixture, struct generated *out, const char *name,
		     const char *scenario, const char *seed, const char *extra_option,
		     const char *extra_value)
{
	json_error_t error;

	snprintf(out->repository, sizeof(out->repository), "%s/%s", fixture->directory, name);
	snprintf(out->truth_path, sizeof(out->truth_path), "%s/%s.json", fixture->directory, name);
	assert_int_equal(make_tree("--scenario", scenario, "--seed", seed, "--out", out->repository,
				   "--truth", out->truth_path, extra_option, extra_value, NULL),
			 VLAB_EXIT_OK);
	out->truth = json_load_file(out->truth_path, 0, &error);
	assert_non_null(out->truth);
}

/* `git -C repository ARGS...` output (malloc'd), or NULL when git failed. */
static char *git_output(const char *repository, ...)
{
	const char *argv[32] = { "git", "-C", repository };
	int argc = 3;
	char *output = NULL;
	va_list args;

	va_start(args, repository);
	while (argc < 31 && (argv[argc] = va_arg(args, const char *)) != NULL)
		argc++;
	va_end(args);
	argv[argc] = NULL;
	if (git_command_run(argv, &output) != 0)
		return NULL;
	return output;
}

static int git_succeeds(const char *repository, ...)
{
	const char *argv[32] = { "git", "-C", repository };
	int argc = 3;
	char *output = NULL;
	va_list args;
	int rc;

	va_start(args, repository);
	while (argc < 31 && (argv[argc] = va_arg(args, const char *)) != NULL)
		argc++;
	va_end(args);
	argv[argc] = NULL;
	rc = git_command_run(argv, &output);
	free(output);
	return rc == 0;
}

static char *trimmed(char *text)
{
	size_t length = text ? strlen(text) : 0;

	while (length > 0 && (text[length - 1] == '\n' || text[length - 1] == ' '))
		text[--length] = '\0';
	return text;
}

/* Runs argv with its output thrown away; its exit status (-1: not run). */
static int run_quietly(char *const argv[])
{
	posix_spawn_file_actions_t actions;
	extern char **environ;
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&actions);
		return -1;
	}
	posix_spawn_file_actions_destroy(&actions);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The tree of `commit` in a fresh directory (git archive | tar). */
static void export_tree(const char *repository, const char *commit, const char *directory)
{
	char archive[300];
	char *git_argv[] = { "git", "-C", (char *)repository, "archive", "-o", archive,
			     (char *)commit, NULL };
	char *tar_argv[] = { "tar", "-xf", archive, "-C", (char *)directory, NULL };

	snprintf(archive, sizeof(archive), "%s.tar", directory);
	assert_int_equal(mkdir(directory, 0777), 0);
	assert_int_equal(run_quietly(git_argv), 0);
	assert_int_equal(run_quietly(tar_argv), 0);
	unlink(archive);
}

static int builds(const char *repository, const char *commit, const char *directory)
{
	char *make_argv[] = { "make", "-s", "-C", (char *)directory, NULL };
	int status;

	export_tree(repository, commit, directory);
	status = run_quietly(make_argv);
	remove_tree(directory);
	return status == 0;
}

/* The "-" and "+" lines of a unified diff, without the ---/+++ headers. */
static size_t changed_lines(char *diff, const char **lines, size_t capacity)
{
	size_t count = 0;
	char *line, *saveptr = NULL;

	for (line = strtok_r(diff, "\n", &saveptr); line; line = strtok_r(NULL, "\n", &saveptr)) {
		if (strncmp(line, "---", 3) == 0 || strncmp(line, "+++", 3) == 0)
			continue;
		if ((line[0] == '-' || line[0] == '+') && count < capacity)
			lines[count++] = line;
	}
	return count;
}

/* `git show` of `commit` limited to ath9k's main.c changes exactly `expected`. */
static void assert_diff_lines(const char *repository, const char *commit,
			      const char *const *expected, size_t expected_count)
{
	const char *lines[64];
	char *diff = git_output(repository, "show", "--format=", commit, "--", ATH9K_MAIN, NULL);
	size_t count, i;

	assert_non_null(diff);
	count = changed_lines(diff, lines, 64);
	assert_int_equal(count, expected_count);
	for (i = 0; i < count; i++)
		assert_string_equal(lines[i], expected[i]);
	free(diff);
}

static const char *truth_string(json_t *truth, const char *object, const char *key)
{
	const char *value = json_string_value(json_object_get(json_object_get(truth, object), key));

	assert_non_null(value);
	return value;
}

static struct generated *mainline(struct fixture *fixture)
{
	if (!fixture->mainline.truth)
		generate(fixture, &fixture->mainline, "mainline", "mainline-3.4", "11", NULL, NULL);
	return &fixture->mainline;
}

/* ---- setup ---------------------------------------------------------------- */

static int setup(void **state)
{
	struct fixture *fixture = calloc(1, sizeof(*fixture));

	if (!fixture)
		return -1;
	strcpy(fixture->directory, "/tmp/rb-modelkernel-XXXXXX");
	if (!mkdtemp(fixture->directory)) {
		free(fixture);
		return -1;
	}
	*state = fixture;
	generate(fixture, &fixture->stable, "stable", "stable-3.3.1", "7", NULL, NULL);
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fixture = *state;

	json_decref(fixture->stable.truth);
	json_decref(fixture->mainline.truth);
	remove_tree(fixture->directory);
	free(fixture);
	return 0;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_same_seed_gives_same_commit_ids(void **state)
{
	struct fixture *fixture = *state;
	struct generated first, second;
	char *refs_first, *refs_second;

	generate(fixture, &first, "same-1", "random", "5", "--commits", "300");
	generate(fixture, &second, "same-2", "random", "5", "--commits", "300");
	refs_first = git_output(first.repository, "for-each-ref", NULL);
	refs_second = git_output(second.repository, "for-each-ref", NULL);
	assert_non_null(refs_first);
	assert_non_null(strstr(refs_first, "refs/heads/master"));
	assert_string_equal(refs_first, refs_second);
	assert_true(json_equal(first.truth, second.truth));
	free(refs_first);
	free(refs_second);
	json_decref(first.truth);
	json_decref(second.truth);
}

static void test_different_seed_gives_different_ids(void **state)
{
	struct fixture *fixture = *state;
	struct generated other;

	generate(fixture, &other, "other-seed", "stable-3.3.1", "8", NULL, NULL);
	assert_string_not_equal(truth_string(other.truth, "branches", "master"),
				truth_string(fixture->stable.truth, "branches", "master"));
	assert_string_not_equal(truth_string(other.truth, "culprits", "master"),
				truth_string(fixture->stable.truth, "culprits", "master"));
	json_decref(other.truth);
}

static void test_stable_tags_are_annotated_and_match_truth(void **state)
{
	struct fixture *fixture = *state;
	static const char *const tags[] = { "v3.3", "v3.4-rc1", "v3.4-rc2", "v3.3.1-rc1" };
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		char peeled[64];
		char *type = trimmed(git_output(fixture->stable.repository, "cat-file", "-t", tags[i], NULL));
		char *id;

		snprintf(peeled, sizeof(peeled), "%s^{commit}", tags[i]);
		id = trimmed(git_output(fixture->stable.repository, "rev-parse", peeled, NULL));
		assert_non_null(type);
		assert_string_equal(type, "tag");
		assert_non_null(id);
		assert_string_equal(id, truth_string(fixture->stable.truth, "tags", tags[i]));
		free(type);
		free(id);
	}
}

static void test_build_breaks_fail_and_their_fixes_build(void **state)
{
	struct fixture *fixture = *state;
	json_t *breaks = json_object_get(fixture->stable.truth, "build_breaks");
	char directory[128];
	size_t i;
	json_t *entry;

	assert_true(json_array_size(breaks) >= 2);
	json_array_foreach(breaks, i, entry) {
		const char *repository = fixture->stable.repository;

		snprintf(directory, sizeof(directory), "%s/build-%zu", fixture->directory, i);
		assert_false(builds(repository, json_string_value(json_object_get(entry, "broken")),
				    directory));
		assert_true(builds(repository, json_string_value(json_object_get(entry, "fixed_by")),
				   directory));
	}
}

static void test_culprit_diff_is_the_seed_patch(void **state)
{
	struct fixture *fixture = *state;

	assert_diff_lines(fixture->stable.repository,
			  truth_string(fixture->stable.truth, "culprits", "master"),
			  seed_patch_lines, sizeof(seed_patch_lines) / sizeof(seed_patch_lines[0]));
	assert_diff_lines(fixture->stable.repository,
			  truth_string(fixture->stable.truth, "culprits", "linux-3.3.y"),
			  seed_patch_lines, sizeof(seed_patch_lines) / sizeof(seed_patch_lines[0]));
}

/* One queued patch: its message names an upstream commit on master that
 * made exactly the same change. */
static void assert_queued_patch(const char *repository, json_t *patch)
{
	const char *commit = json_string_value(json_object_get(patch, "commit"));
	const char *upstream = json_string_value(json_object_get(patch, "upstream"));
	const char *form = json_string_value(json_object_get(patch, "form"));
	char reference[128];
	char *message = git_output(repository, "log", "-1", "--format=%B", commit, NULL);
	char *queued_diff, *upstream_diff;

	assert_non_null(message);
	if (strcmp(form, "upstream-commit-bracket") == 0)
		snprintf(reference, sizeof(reference), "\n\n[ Upstream commit %s ]\n\n", upstream);
	else
		snprintf(reference, sizeof(reference), "\n\ncommit %s upstream.\n\n", upstream);
	assert_non_null(strstr(message, reference));
	assert_true(git_succeeds(repository, "merge-base", "--is-ancestor", upstream, "master", NULL));
	queued_diff = git_output(repository, "diff-tree", "-p", "--no-commit-id", commit, NULL);
	upstream_diff = git_output(repository, "diff-tree", "-p", "--no-commit-id", upstream, NULL);
	assert_non_null(queued_diff);
	assert_string_equal(queued_diff, upstream_diff);
	free(message);
	free(queued_diff);
	free(upstream_diff);
}

static void test_stable_queue_names_equivalent_upstream_commits(void **state)
{
	struct fixture *fixture = *state;
	json_t *queue = json_object_get(fixture->stable.truth, "stable_queue");
	json_t *patches = json_object_get(queue, "patches"), *patch;
	size_t i, strays = 0, brackets = 0;

	assert_true(json_array_size(patches) >= 70 && json_array_size(patches) <= 130);
	json_array_foreach(patches, i, patch) {
		const char *form = json_string_value(json_object_get(patch, "form"));

		if (strcmp(form, "none") == 0) {
			strays++;
			assert_string_equal(json_string_value(json_object_get(patch, "commit")),
					    json_string_value(json_object_get(queue, "stray")));
			continue;
		}
		brackets += strcmp(form, "upstream-commit-bracket") == 0;
		assert_queued_patch(fixture->stable.repository, patch);
	}
	assert_int_equal(strays, 1);
	assert_int_equal(brackets, 1);
}

static void assert_kernelrelease(const char *repository, const char *commit,
				 const char *directory, const char *pattern)
{
	char *worktree_add[] = { "git", "-C", (char *)repository, "worktree", "add", "-q",
				 "--detach", (char *)directory, (char *)commit, NULL };
	char *worktree_remove[] = { "git", "-C", (char *)repository, "worktree", "remove",
				    "--force", (char *)directory, NULL };
	const char *argv[] = { "make", "-s", "-C", directory, "kernelrelease", NULL };
	char *release = NULL;
	regex_t expression;

	assert_int_equal(run_quietly(worktree_add), 0);
	/* git_command_run starts any program; make needs no git environment */
	assert_int_equal(git_command_run(argv, &release), 0);
	assert_int_equal(regcomp(&expression, pattern, REG_EXTENDED | REG_NOSUB), 0);
	assert_int_equal(regexec(&expression, trimmed(release), 0, NULL, 0), 0);
	regfree(&expression);
	free(release);
	assert_int_equal(run_quietly(worktree_remove), 0);
}

static void test_kernelrelease_at_tags_and_past_them(void **state)
{
	struct fixture *fixture = *state;
	char directory[128];

	snprintf(directory, sizeof(directory), "%s/worktree", fixture->directory);
	assert_kernelrelease(fixture->stable.repository, "v3.3.1-rc1", directory, "^3\\.3\\.1-rc1$");
	assert_kernelrelease(fixture->stable.repository, "linux-3.3.y~2", directory,
			     "^3\\.3\\.0-[0-9]{5}-g[0-9a-f]{8}$");
	assert_kernelrelease(fixture->stable.repository, "v3.4-rc1", directory, "^3\\.4\\.0-rc1$");
}

static void test_mainline_has_ten_thousand_commits(void **state)
{
	struct generated *generated = mainline(*state);
	char *count = git_output(generated->repository, "rev-list", "--count", "v3.3..master", NULL);
	char *merges = git_output(generated->repository, "rev-list", "--count", "--merges",
				  "v3.3..v3.4-rc3", NULL);

	assert_non_null(count);
	assert_in_range(strtol(count, NULL, 10), 9000, 11000);
	assert_in_range(strtol(merges, NULL, 10), 100, 2000);
	free(count);
	free(merges);
}

static void test_mainline_culprit_is_between_v3_3_and_v3_4_rc1(void **state)
{
	struct generated *generated = mainline(*state);
	const char *culprit = truth_string(generated->truth, "culprits", "master");
	const char *reset = truth_string(generated->truth, "reset_on_idle_off", "master");
	const char *revert = truth_string(generated->truth, "revert", "master");

	assert_true(git_succeeds(generated->repository, "merge-base", "--is-ancestor", culprit,
				 "v3.4-rc1", NULL));
	assert_false(git_succeeds(generated->repository, "merge-base", "--is-ancestor", culprit,
				  "v3.3", NULL));
	assert_false(git_succeeds(generated->repository, "merge-base", "--is-ancestor", reset,
				  "v3.4-rc1", NULL));
	assert_true(git_succeeds(generated->repository, "merge-base", "--is-ancestor", revert,
				 "v3.4-rc3", NULL));
	assert_false(git_succeeds(generated->repository, "merge-base", "--is-ancestor", revert,
				  "v3.4-rc2", NULL));
}

static void test_txack_backport_changes_only_the_network_sleep_guard(void **state)
{
	struct fixture *fixture = *state;
	struct generated txack;

	generate(fixture, &txack, "txack", "txack-backport", "3", NULL, NULL);
	assert_diff_lines(txack.repository, truth_string(txack.truth, "culprits", "linux-3.3.y"),
			  bad_backport_lines, sizeof(bad_backport_lines) / sizeof(bad_backport_lines[0]));
	assert_diff_lines(txack.repository, truth_string(txack.truth, "culprits", "master"),
			  seed_patch_lines, sizeof(seed_patch_lines) / sizeof(seed_patch_lines[0]));
	json_decref(txack.truth);
}

static void test_mainline_revert_names_the_culprit(void **state)
{
	struct fixture *fixture = *state;
	struct generated reverted;
	char expected[128];
	char *message;

	generate(fixture, &reverted, "reverted", "stable-3.3.1", "7", "--mainline-revert", "present");
	message = git_output(reverted.repository, "log", "-1", "--format=%B",
			     truth_string(reverted.truth, "revert", "master"), NULL);
	snprintf(expected, sizeof(expected), "This reverts commit %s.",
		 truth_string(reverted.truth, "culprits", "master"));
	assert_non_null(message);
	assert_non_null(strstr(message, expected));
	assert_int_equal(strncmp(message, "Revert \"ath9k: fix going to full-sleep on PS idle\"", 50), 0);
	assert_int_equal(json_object_size(json_object_get(fixture->stable.truth, "revert")), 0);
	free(message);
	json_decref(reverted.truth);
}

/* The v3.3 text of `path` with `variant`'s changes applied. */
static char *variant_text(enum driver_variant variant, const char *path)
{
	const enum driver_change_id *changes;
	size_t count = driver_variant_changes(variant, &changes), i;
	char *text = NULL;
	const char *error;

	for (i = 0; i < template_file_count; i++) {
		if (strcmp(template_files[i].path, path) == 0)
			text = strndup(template_files[i].text, template_files[i].size);
	}
	for (i = 0; i < count && text; i++) {
		char *next = driver_change_apply(driver_change_get(changes[i]), path, text, &error);

		free(text);
		text = next;
	}
	return text;
}

static void test_releases_hold_each_named_driver(void **state)
{
	struct fixture *fixture = *state;
	static const struct {
		const char *tag;
		enum driver_variant variant;
	} releases[] = {
		{ "v3.3", DRIVER_VARIANT_V3_3 }, { "v3.3.1", DRIVER_VARIANT_V3_3_1 },
		{ "v3.3.2", DRIVER_VARIANT_V3_3 }, { "v3.4", DRIVER_VARIANT_V3_4 },
		{ "v3.5", DRIVER_VARIANT_V3_5 },
	};
	static const char *const paths[] = { ATH9K_MAIN, "drivers/net/wireless/ath/main.c" };
	struct generated generated;
	char directory[128];
	size_t i, p;

	generate(fixture, &generated, "releases", "releases", "2", NULL, NULL);
	for (i = 0; i < sizeof(releases) / sizeof(releases[0]); i++) {
		for (p = 0; p < 2; p++) {
			char object[128];
			char *expected = variant_text(releases[i].variant, paths[p]);
			char *actual;

			snprintf(object, sizeof(object), "%s:%s", releases[i].tag, paths[p]);
			actual = git_output(generated.repository, "show", object, NULL);
			assert_non_null(expected);
			assert_non_null(actual);
			assert_string_equal(actual, expected);
			free(expected);
			free(actual);
		}
	}
	snprintf(directory, sizeof(directory), "%s/build-v3.5", fixture->directory);
	assert_true(builds(generated.repository, "v3.5", directory));
	json_decref(generated.truth);
}

static void test_random_has_exactly_the_commits_asked_for(void **state)
{
	struct fixture *fixture = *state;
	struct generated generated;
	char *count;

	generate(fixture, &generated, "random-count", "random", "9", "--commits", "500");
	count = git_output(generated.repository, "rev-list", "--count", "v3.3..v3.4-rc1", NULL);
	assert_non_null(count);
	assert_int_equal(strtol(count, NULL, 10), 500);
	assert_int_equal(json_integer_value(json_object_get(
		json_object_get(generated.truth, "commit_counts"), "master")), 500);
	free(count);
	json_decref(generated.truth);
}

static void test_filler_never_adds_compiled_files_by_accident(void **state)
{
	struct filler_layout layout;
	size_t i, compiled = 0;

	(void)state;
	assert_int_equal(filler_layout_create(&layout), 0);
	assert_true(layout.count > 1000);
	for (i = 0; i < layout.count; i++) {
		if (filler_path_is_compiled(layout.files[i].path)) {
			assert_int_equal(layout.files[i].kind, FILLER_COMPILED);
			compiled++;
		}
	}
	assert_in_range(compiled, 1, 8);
	filler_layout_free(&layout);
}

static void test_bad_input_exits_2(void **state)
{
	struct fixture *fixture = *state;
	char out[128], truth[128], inside[160];

	snprintf(out, sizeof(out), "%s/bad-out", fixture->directory);
	snprintf(truth, sizeof(truth), "%s/bad.json", fixture->directory);
	snprintf(inside, sizeof(inside), "%s/truth.json", out);
	assert_int_equal(make_tree("--scenario", "nope", "--seed", "1", "--out", out, "--truth",
				   truth, NULL), VLAB_EXIT_USAGE);
	assert_int_equal(make_tree("--scenario", "random", "--seed", "x1", "--out", out, "--truth",
				   truth, NULL), VLAB_EXIT_USAGE);
	assert_int_equal(make_tree("--scenario", "random", "--seed", "-1", "--out", out, "--truth",
				   truth, NULL), VLAB_EXIT_USAGE);
	assert_int_equal(make_tree("--scenario", "random", "--seed", "1", "--truth", truth, NULL),
			 VLAB_EXIT_USAGE);
	assert_int_equal(make_tree("--scenario", "random", "--seed", "1", "--out",
				   fixture->stable.repository, "--truth", truth, NULL),
			 VLAB_EXIT_USAGE);
	assert_int_equal(make_tree("--scenario", "random", "--seed", "1", "--out", out, "--truth",
				   inside, NULL), VLAB_EXIT_USAGE);
	assert_int_equal(make_tree("--scenario", "stable-3.3.1", "--seed", "1", "--out", out,
				   "--truth", truth, "--commits", "100", NULL), VLAB_EXIT_USAGE);
	assert_int_equal(make_tree("--scenario", "random", "--seed", "1", "--out", out, "--truth",
				   truth, "--merge-density", "2", NULL), VLAB_EXIT_USAGE);
	assert_int_equal(make_tree("--bogus", NULL), VLAB_EXIT_USAGE);
	assert_int_equal(make_tree("--help", NULL), VLAB_EXIT_OK);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(access(truth, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_seed_gives_same_commit_ids),
		cmocka_unit_test(test_different_seed_gives_different_ids),
		cmocka_unit_test(test_stable_tags_are_annotated_and_match_truth),
		cmocka_unit_test(test_build_breaks_fail_and_their_fixes_build),
		cmocka_unit_test(test_culprit_diff_is_the_seed_patch),
		cmocka_unit_test(test_stable_queue_names_equivalent_upstream_commits),
		cmocka_unit_test(test_kernelrelease_at_tags_and_past_them),
		cmocka_unit_test(test_mainline_has_ten_thousand_commits),
		cmocka_unit_test(test_mainline_culprit_is_between_v3_3_and_v3_4_rc1),
		cmocka_unit_test(test_txack_backport_changes_only_the_network_sleep_guard),
		cmocka_unit_test(test_mainline_revert_names_the_culprit),
		cmocka_unit_test(test_releases_hold_each_named_driver),
		cmocka_unit_test(test_random_has_exactly_the_commits_asked_for),
		cmocka_unit_test(test_filler_never_adds_compiled_files_by_accident),
		cmocka_unit_test(test_bad_input_exits_2),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
