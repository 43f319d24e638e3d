/*
 * test_stable_queue.c - a stable queue read from git and checked against
 * mainline.
 *
 * Two groups. The model group generates stable-3.3.1 (with and without the
 * mainline revert) and txack-backport once, and asserts against their truth
 * files, never against ids written here. The hand-made group builds a small
 * repository for what the model trees lack: a "Fixes:" trailer, a
 * MAINTAINERS file, malformed references, a merge in the queue.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "stable_queue.h"
#include "subprocess.h"
#include "files.h"
#include "virtual/modelkernel/history.h"

/* ---- helpers -------------------------------------------------------------- */

/* Commits come out the same on every machine: fixed names, dates, no config. */
static const char *author_name = "Test Author", *author_email = "test@example.org";

static int run_git(const char *repository, char *const *tail, char **output)
{
	char author[128], email[128];
	char *environment[] = {
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", author, email,
		"GIT_AUTHOR_DATE=@1700000000 +0000", "GIT_COMMITTER_DATE=@1700000000 +0000",
		"GIT_COMMITTER_NAME=Stable Committer", "GIT_COMMITTER_EMAIL=stable@example.org", NULL,
	};
	struct subprocess_options options = { .environment = environment };
	char *argv[32] = { "git", "-C", (char *)repository, "-c", "user.name=Stable Committer",
			   "-c", "user.email=stable@example.org" };
	size_t argc = 7, i;

	snprintf(author, sizeof(author), "GIT_AUTHOR_NAME=%s", author_name);
	snprintf(email, sizeof(email), "GIT_AUTHOR_EMAIL=%s", author_email);
	for (i = 0; tail[i] && argc < 31; i++)
		argv[argc++] = tail[i];
	argv[argc] = NULL;
	return subprocess_run(argv, &options, output);
}

/* `git -C repository ARGS...` must succeed; its output without the last
 * newline (malloc'd). */
static char *git(const char *repository, ...)
{
	char *tail[24], *output = NULL;
	size_t count = 0, length;
	va_list args;

	va_start(args, repository);
	while (count < 23 && (tail[count] = va_arg(args, char *)) != NULL)
		count++;
	va_end(args);
	tail[count] = NULL;
	assert_int_equal(run_git(repository, tail, &output), 0);
	assert_non_null(output);
	length = strlen(output);
	if (length > 0 && output[length - 1] == '\n')
		output[length - 1] = '\0';
	return output;
}

static void git_quietly(const char *repository, ...)
{
	char *tail[24];
	size_t count = 0;
	va_list args;

	va_start(args, repository);
	while (count < 23 && (tail[count] = va_arg(args, char *)) != NULL)
		count++;
	va_end(args);
	tail[count] = NULL;
	assert_int_equal(run_git(repository, tail, NULL), 0);
}

static void write_file(const char *repository, const char *path, const char *text)
{
	char full[512], *slash;
	FILE *file;

	snprintf(full, sizeof(full), "%s/%s", repository, path);
	for (slash = strchr(full + strlen(repository) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(full, 0777);
		*slash = '/';
	}
	file = fopen(full, "w");
	assert_non_null(file);
	fputs(text, file);
	fclose(file);
}

/* A commit by `author` ("Name", "email") of whatever is in the index plus
 * `path` (NULL: none) holding `text`; its id (40 hex + NUL). */
static void commit(const char *repository, const char *name, const char *email, const char *path,
		   const char *text, const char *message, char id[41])
{
	char *head;

	author_name = name;
	author_email = email;
	if (path) {
		write_file(repository, path, text);
		git_quietly(repository, "add", path, NULL);
	}
	git_quietly(repository, "commit", "-q", "--allow-empty", "-m", message, NULL);
	head = git(repository, "rev-parse", "HEAD", NULL);
	snprintf(id, 41, "%s", head);
	free(head);
}

static bool has_text(const char *text, const char *part)
{
	if (!strstr(text, part))
		print_error("expected \"%s\" in:\n%s\n", part, text);
	return strstr(text, part) != NULL;
}

static bool has_person(const struct mainline_status *status, const char *person)
{
	size_t i;

	for (i = 0; i < status->people_count; i++) {
		if (strcmp(status->people[i], person) == 0)
			return true;
	}
	return false;
}

/* ---- the model trees ------------------------------------------------------ */

struct model {
	char repository[256];
	json_t *truth;
};

struct models {
	char directory[64];
	bool created;
	struct model plain;	/* stable-3.3.1, mainline never reverted the culprit */
	struct model reverted;	/* stable-3.3.1 with mainline_revert */
	struct model txack;	/* txack-backport: the queued culprit is a bad backport */
};

static int generate(struct models *models, struct model *model, const char *name,
		    enum history_scenario scenario, int mainline_revert)
{
	struct history_options options;
	char error[256];

	history_options_init(&options, scenario);
	options.seed = 7;
	options.mainline_revert = mainline_revert;
	snprintf(model->repository, sizeof(model->repository), "%s/%s", models->directory, name);
	if (history_generate(model->repository, &options, &model->truth, error, sizeof(error))) {
		fprintf(stderr, "generating %s: %s\n", name, error);
		return -1;
	}
	return 0;
}

static int models_setup(void **state)
{
	struct models *models = calloc(1, sizeof(*models));

	if (!models)
		return -1;
	*state = models;
	strcpy(models->directory, "/tmp/rb-stable-queue-XXXXXX");
	if (!mkdtemp(models->directory))
		return -1;
	models->created = true;
	if (generate(models, &models->plain, "plain", HISTORY_STABLE_3_3_1, 0) ||
	    generate(models, &models->reverted, "reverted", HISTORY_STABLE_3_3_1, 1) ||
	    generate(models, &models->txack, "txack", HISTORY_TXACK_BACKPORT, 0))
		return -1;
	return 0;
}

static int models_teardown(void **state)
{
	struct models *models = *state;

	if (!models)
		return 0;
	json_decref(models->plain.truth);
	json_decref(models->reverted.truth);
	json_decref(models->txack.truth);
	if (models->created)
		files_remove_tree(models->directory);
	free(models);
	return 0;
}

static const char *truth_string(json_t *truth, const char *object, const char *key)
{
	const char *value = json_string_value(json_object_get(json_object_get(truth, object), key));

	assert_non_null(value);
	return value;
}

static json_t *truth_patches(const struct model *model)
{
	json_t *patches = json_object_get(json_object_get(model->truth, "stable_queue"), "patches");

	assert_true(json_array_size(patches) > 0);
	return patches;
}

static enum stable_upstream_form truth_form(json_t *patch)
{
	const char *form = json_string_value(json_object_get(patch, "form"));

	assert_non_null(form);
	if (strcmp(form, "commit-upstream") == 0)
		return STABLE_FORM_COMMIT_UPSTREAM;
	if (strcmp(form, "upstream-commit-bracket") == 0)
		return STABLE_FORM_UPSTREAM_BRACKET;
	assert_string_equal(form, "none");
	return STABLE_FORM_NONE;
}

static void load(const struct model *model, const char *mainline, struct stable_queue *queue)
{
	char error[256] = "";

	if (stable_queue_load(model->repository, "v3.3", "v3.3.1-rc1", mainline, queue, error,
			      sizeof(error)) != 0)
		fail_msg("stable_queue_load: %s", error);
}

/* Every truth patch in queue order, then the "Linux 3.3.1-rc1" release commit. */
static void assert_queue_matches_truth(const struct model *model)
{
	json_t *patches = truth_patches(model), *entry;
	struct stable_queue queue;
	size_t i;

	load(model, "master", &queue);
	assert_int_equal(queue.count, json_array_size(patches) + 1);
	json_array_foreach(patches, i, entry) {
		const struct stable_patch *patch = &queue.patches[i];
		const char *upstream = json_string_value(json_object_get(entry, "upstream"));

		assert_string_equal(patch->commit, json_string_value(json_object_get(entry, "commit")));
		assert_string_equal(patch->upstream, upstream ? upstream : "");
		assert_int_equal(patch->form, truth_form(entry));
		assert_false(patch->release_commit);
		assert_false(patch->merge);
		assert_int_equal(patch->upstream_in_mainline, upstream ? 1 : -1);
		assert_non_null(strchr(patch->author, '<'));
	}
	assert_true(queue.patches[queue.count - 1].release_commit);
	assert_string_equal(queue.patches[queue.count - 1].subject, "Linux 3.3.1-rc1");
	assert_string_equal(queue.patches[queue.count - 1].commit,
			    truth_string(model->truth, "tags", "v3.3.1-rc1"));
	stable_queue_free(&queue);
}

static void test_queue_matches_truth(void **state)
{
	struct models *models = *state;

	assert_queue_matches_truth(&models->plain);
	assert_queue_matches_truth(&models->txack);
}

static void assert_audit_is_the_stray(const struct model *model, const char *mainline)
{
	const char *stray = truth_string(model->truth, "stable_queue", "stray");
	struct stable_queue queue;
	size_t *flagged = NULL, i;

	load(model, mainline, &queue);
	assert_int_equal(stable_queue_audit(&queue, &flagged), 1);
	assert_non_null(flagged);
	assert_string_equal(queue.patches[flagged[0]].commit, stray);
	assert_int_equal(queue.patches[flagged[0]].form, STABLE_FORM_NONE);
	for (i = 0; i < queue.count; i++) {
		if (i != flagged[0] && !queue.patches[i].release_commit)
			assert_true(queue.patches[i].upstream[0] != '\0');
		if (!mainline)
			assert_int_equal(queue.patches[i].upstream_in_mainline, -1);
	}
	free(flagged);
	stable_queue_free(&queue);
}

static void test_audit_lists_only_the_stray(void **state)
{
	struct models *models = *state;

	assert_audit_is_the_stray(&models->plain, "master");
	assert_audit_is_the_stray(&models->plain, NULL);
	assert_audit_is_the_stray(&models->reverted, "master");
}

static void test_find_by_id_or_prefix(void **state)
{
	struct models *models = *state;
	const char *culprit = truth_string(models->plain.truth, "culprits", "linux-3.3.y");
	const char *mainline_culprit = truth_string(models->plain.truth, "culprits", "master");
	const struct stable_patch *patch;
	struct stable_queue queue;
	char prefix[13];

	load(&models->plain, "master", &queue);
	patch = stable_queue_find(&queue, culprit);
	assert_non_null(patch);
	assert_string_equal(patch->commit, culprit);
	assert_string_equal(patch->upstream, mainline_culprit);
	snprintf(prefix, sizeof(prefix), "%.12s", culprit);
	assert_ptr_equal(stable_queue_find(&queue, prefix), patch);
	assert_null(stable_queue_find(&queue, mainline_culprit));	/* not queued */
	assert_null(stable_queue_find(&queue, "abc"));		/* too short to mean one */
	assert_null(stable_queue_find(&queue, NULL));
	stable_queue_free(&queue);
}

static void status_of(const struct model *model, const char *mainline, const char *upstream,
		      struct mainline_status *status)
{
	char error[256] = "";

	if (stable_mainline_status(model->repository, mainline, upstream, status, error,
				   sizeof(error)) != 0)
		fail_msg("stable_mainline_status: %s", error);
}

static char *author_of(const char *repository, const char *id)
{
	return git(repository, "log", "-1", "--format=%an <%ae>", id, "--", NULL);
}

static void test_culprit_status_names_mainline_revert(void **state)
{
	struct models *models = *state;
	const struct model *model = &models->reverted;
	const char *upstream = truth_string(model->truth, "culprits", "master");
	struct mainline_status status;
	char *author = author_of(model->repository, upstream);

	status_of(model, "master", upstream, &status);
	assert_true(status.upstream_in_mainline);
	assert_string_equal(status.revert, truth_string(model->truth, "revert", "master"));
	assert_int_equal(strncmp(status.revert_subject, "Revert \"", 8), 0);
	assert_string_equal(status.fix, "");
	assert_true(status.people_count > 0);
	assert_string_equal(status.people[0], author);
	stable_mainline_status_free(&status);
	free(author);
}

static void test_culprit_status_without_revert(void **state)
{
	struct models *models = *state;
	const struct model *model = &models->plain;
	const char *upstream = truth_string(model->truth, "culprits", "master");
	struct mainline_status status;
	char *author = author_of(model->repository, upstream);
	size_t i, j;

	assert_int_equal(json_object_size(json_object_get(model->truth, "revert")), 0);
	status_of(model, "master", upstream, &status);
	assert_true(status.upstream_in_mainline);
	assert_string_equal(status.revert, "");
	assert_string_equal(status.fix, "");
	assert_true(has_person(&status, author));
	for (i = 0; i < status.people_count; i++) {	/* each once */
		for (j = i + 1; j < status.people_count; j++)
			assert_string_not_equal(status.people[i], status.people[j]);
	}
	stable_mainline_status_free(&status);
	status_of(model, "v3.3", upstream, &status);	/* merged after v3.3 */
	assert_false(status.upstream_in_mainline);
	assert_string_equal(status.revert, "");
	stable_mainline_status_free(&status);
	free(author);
}

/* The queued culprit of `model`, its mainline status on `mainline` and advice. */
static void culprit_advice(const struct model *model, const char *mainline, bool released,
			   char *advice, size_t size, char id12[13], char revert12[13])
{
	const char *culprit = truth_string(model->truth, "culprits", "linux-3.3.y");
	const struct stable_patch *patch;
	struct mainline_status status;
	struct stable_queue queue;

	load(model, "master", &queue);
	patch = stable_queue_find(&queue, culprit);
	assert_non_null(patch);
	status_of(model, mainline, patch->upstream, &status);
	assert_int_equal(stable_advice(patch, &status, mainline, released, advice, size), 0);
	snprintf(id12, 13, "%.12s", patch->upstream);
	snprintf(revert12, 13, "%.12s", status.revert);
	stable_mainline_status_free(&status);
	stable_queue_free(&queue);
}

static void test_advice_for_the_culprit(void **state)
{
	struct models *models = *state;
	char advice[2048], expected[256], upstream12[13], revert12[13];
	char *author = author_of(models->plain.repository,
				 truth_string(models->plain.truth, "culprits", "master"));

	culprit_advice(&models->reverted, "master", false, advice, sizeof(advice), upstream12, revert12);
	assert_int_equal(strncmp(advice, "drop it from the queue before release", 37), 0);
	snprintf(expected, sizeof(expected), "mainline reverted it: %s (\"Revert ", revert12);
	assert_true(has_text(advice, expected));

	culprit_advice(&models->reverted, "master", true, advice, sizeof(advice), upstream12, revert12);
	assert_true(has_text(advice, "revert it in the next stable release"));
	snprintf(expected, sizeof(expected), "mainline's revert %s", revert12);
	assert_true(has_text(advice, expected));
	assert_true(has_text(advice, "is in master"));

	culprit_advice(&models->plain, "master", false, advice, sizeof(advice), upstream12, revert12);
	assert_int_equal(strncmp(advice, "drop it from the queue before release", 37), 0);
	snprintf(expected, sizeof(expected), "mainline has no fix yet: report to %s", author);
	assert_true(has_text(advice, expected));

	culprit_advice(&models->plain, "master", true, advice, sizeof(advice), upstream12, revert12);
	assert_true(has_text(advice, expected));

	culprit_advice(&models->plain, "v3.3", true, advice, sizeof(advice), upstream12, revert12);
	snprintf(expected, sizeof(expected), "upstream commit %s is not in v3.3: the patch broke the "
		 "mainline-first rule; revert it", upstream12);
	assert_true(has_text(advice, expected));
	free(author);
}

static void test_advice_without_mainline_and_for_the_stray(void **state)
{
	struct models *models = *state;
	const char *culprit = truth_string(models->plain.truth, "culprits", "linux-3.3.y");
	const char *stray = truth_string(models->plain.truth, "stable_queue", "stray");
	struct stable_queue queue;
	char advice[2048], id12[13];

	load(&models->plain, NULL, &queue);
	assert_int_equal(stable_advice(stable_queue_find(&queue, culprit), NULL, NULL, false, advice,
				       sizeof(advice)), 0);
	snprintf(id12, sizeof(id12), "%.12s", culprit);
	assert_int_equal(strncmp(advice, "drop it from the queue before release", 37), 0);
	assert_true(has_text(advice, id12));
	assert_true(has_text(advice, "mainline not checked (no --mainline)"));
	assert_int_equal(stable_advice(stable_queue_find(&queue, culprit), NULL, NULL, true, advice,
				       sizeof(advice)), 0);
	assert_true(has_text(advice, "revert it"));
	assert_true(has_text(advice, "mainline not checked (no --mainline)"));

	assert_int_equal(stable_advice(stable_queue_find(&queue, stray), NULL, NULL, false, advice,
				       sizeof(advice)), 0);
	assert_int_equal(strncmp(advice, "drop it from the queue before release", 37), 0);
	assert_true(has_text(advice, "the patch names no upstream commit: stable takes mainline "
				     "commits only"));
	assert_int_equal(stable_advice(stable_queue_find(&queue, stray), NULL, NULL, true, advice,
				       sizeof(advice)), 0);
	assert_true(has_text(advice, "revert it in the next stable release"));
	assert_true(has_text(advice, "the patch names no upstream commit"));

	assert_int_equal(stable_advice(&queue.patches[queue.count - 1], NULL, NULL, false, advice,
				       sizeof(advice)), 0);
	assert_true(has_text(advice, "is a release commit, not a patch"));
	assert_int_equal(stable_advice(stable_queue_find(&queue, culprit), NULL, NULL, false, advice,
				       16), -ENOSPC);
	assert_int_equal(strlen(advice), 15);
	assert_int_equal(stable_advice(NULL, NULL, NULL, false, advice, sizeof(advice)), -EINVAL);
	stable_queue_free(&queue);
}

static void assert_load_fails(const struct model *model, const char *baseline,
			      const char *candidate, const char *mainline, int expected,
			      const char *named)
{
	struct stable_queue queue;
	char error[256] = "";

	assert_int_equal(stable_queue_load(model->repository, baseline, candidate, mainline, &queue,
					   error, sizeof(error)), expected);
	assert_true(has_text(error, named));
	assert_int_equal(queue.count, 0);
	assert_null(queue.patches);
}

static void test_bad_refs_are_named(void **state)
{
	struct models *models = *state;
	const struct model *model = &models->plain;
	const char *upstream = truth_string(model->truth, "culprits", "master");
	struct mainline_status status;
	char error[256] = "", short_id[13];

	assert_load_fails(model, "v9.9", "v3.3.1-rc1", "master", -ENOENT, "v9.9");
	assert_load_fails(model, "v3.3", "no-such-tag", "master", -ENOENT, "no-such-tag");
	assert_load_fails(model, "v3.3", "v3.3.1-rc1", "no-such-branch", -ENOENT, "no-such-branch");
	assert_load_fails(model, "--all", "v3.3.1-rc1", NULL, -EINVAL, "--all");
	assert_load_fails(model, "v3.3", "-n1", NULL, -EINVAL, "-n1");
	assert_load_fails(model, "v3.3", "v3.3.1-rc1", "--output=x", -EINVAL, "--output=x");

	assert_int_equal(stable_mainline_status(model->repository, "no-such-branch", upstream,
						&status, error, sizeof(error)), -ENOENT);
	assert_true(has_text(error, "no-such-branch"));
	assert_int_equal(stable_mainline_status(model->repository, "--all", upstream, &status,
						error, sizeof(error)), -EINVAL);
	assert_true(has_text(error, "--all"));
	snprintf(short_id, sizeof(short_id), "%.12s", upstream);
	assert_int_equal(stable_mainline_status(model->repository, "master", short_id, &status,
						error, sizeof(error)), -EINVAL);
	assert_true(has_text(error, short_id));
	assert_int_equal(status.people_count, 0);
}

/* ---- the hand-made repository -------------------------------------------- */

/*
 * master (mainline): v1.0 - upstream - mention - fix - Linux 1.1-rc1
 *   upstream touches drivers/foo/a.c and include/foo/foo.h, with trailers;
 *   mention quotes upstream's id in its text and has a too-short "Fixes:";
 *   fix has "Fixes: <12 hex of upstream>".
 * linux-1.0.y (the queue, from v1.0): good (commit <upstream> upstream.),
 *   short-id, bad-hex, upper-case bracket of fix, a merge of side (whose
 *   patch names a commit the tree lacks), Linux 1.0.1-rc1.
 */
struct handmade {
	char directory[64];
	bool created;
	char repository[128];
	char upstream[41], mention[41], fix[41];
	char good[41], short_id[41], bad_hex[41], bracket[41], side[41], merge[41], release[41];
	char absent[41];	/* the upstream side names, in no branch of the tree */
};

static const char maintainers[] =
	"List of maintainers\n"
	"\n"
	"Descriptions of section entries:\n"
	"\tM: Mail patches to: FullName <address@domain>\n"
	"\tF: drivers/\n"
	"\n"
	"FOO DRIVER\n"
	"M:\tMae Foo <mae@example.org>\n"
	"M:\tRob Reviewer <rob@example.org>\n"
	"L:\tfoo-devel@example.org (moderated for non-subscribers)\n"
	"S:\tMaintained\n"
	"F:\tdrivers/foo/\n"
	"\n"
	"BAR DRIVER\n"
	"M:\tBart Bar <bart@example.org>\n"
	"L:\tbar@example.org\n"
	"F:\tdrivers/bar/\n"
	"F:\tdrivers/foobar.c\n"
	"\n"
	"FO, A PREFIX OF FOO BUT NO DIRECTORY OF IT\n"
	"M:\tFo Wrong <fo@example.org>\n"
	"F:\tdrivers/fo\n"
	"\n"
	"FOO A FILE\n"
	"M:\tAlf Exact <alf@example.org>\n"
	"F:\tdrivers/foo/a.c\n"
	"\n"
	"FOO HEADERS\n"
	"M:\tHedda Header <hedda@example.org>\n"
	"F:\tinclude/foo/*.h\n";

static void make_mainline(struct handmade *repo)
{
	char message[1024], id[41];

	git_quietly(repo->repository, "init", "-q", "-b", "master", NULL);
	write_file(repo->repository, "drivers/bar/b.c", "int b;\n");
	write_file(repo->repository, "drivers/foobar.c", "int foobar;\n");
	git_quietly(repo->repository, "add", "drivers", NULL);
	commit(repo->repository, "Linus", "linus@example.org", "MAINTAINERS", maintainers,
	       "Linux 1.0", id);
	git_quietly(repo->repository, "tag", "v1.0", NULL);
	write_file(repo->repository, "include/foo/foo.h", "int foo(void);\n");
	git_quietly(repo->repository, "add", "include", NULL);
	commit(repo->repository, "Ann Author", "ann@example.org", "drivers/foo/a.c", "int a;\n",
	       "foo: fix a leak\n\nFree it.\n\n"
	       "Signed-off-by: Ann Author <ann@example.org>\n"
	       "Reviewed-by: Rob Reviewer <rob@example.org>\n"
	       "Acked-by: Ada Acker <ada@example.org>\n"
	       "Tested-by: Tess Tester <tess@example.org>\n"
	       "Cc: <stable@vger.kernel.org> # 1.0+\n"
	       "Signed-off-by: Max Maintainer <max@example.org>\n", repo->upstream);
	snprintf(message, sizeof(message), "foo: mention\n\nThis follows %.12s up.\n\n"
		 "Fixes: %.8s\nSigned-off-by: Mo <mo@example.org>\n", repo->upstream, repo->upstream);
	commit(repo->repository, "Mo", "mo@example.org", "drivers/foo/a.c", "int a; /* 2 */\n",
	       message, repo->mention);
	snprintf(message, sizeof(message), "foo: fix the leak fix\n\nOops.\n\n"
		 "Fixes: %.12s (\"foo: fix a leak\")\nSigned-off-by: Fay <fay@example.org>\n",
		 repo->upstream);
	commit(repo->repository, "Fay", "fay@example.org", "drivers/foo/a.c", "int a; /* 3 */\n",
	       message, repo->fix);
	commit(repo->repository, "Linus", "linus@example.org", NULL, NULL, "Linux 1.1-rc1", id);
}

static void queue_patch(struct handmade *repo, const char *subject, const char *reference,
			char id[41])
{
	char message[512];

	snprintf(message, sizeof(message), "%s\n\n%s\n\nSigned-off-by: Greg <greg@example.org>\n",
		 subject, reference);
	commit(repo->repository, "Ann Author", "ann@example.org", NULL, NULL, message, id);
}

static void make_queue(struct handmade *repo)
{
	char reference[128], upper[41], unreferenced[41], *merge;
	size_t i;

	git_quietly(repo->repository, "checkout", "-q", "-b", "linux-1.0.y", "v1.0", NULL);
	snprintf(reference, sizeof(reference), "commit %s upstream.", repo->upstream);
	queue_patch(repo, "foo: fix a leak", reference, repo->good);
	queue_patch(repo, "foo: short id", "commit 1234abcd upstream.", repo->short_id);
	snprintf(reference, sizeof(reference), "[ Upstream commit %.39sg ]", repo->upstream);
	queue_patch(repo, "foo: not hex", reference, repo->bad_hex);
	for (i = 0; i < 41; i++)
		upper[i] = (char)(repo->fix[i] >= 'a' ? repo->fix[i] - 'a' + 'A' : repo->fix[i]);
	snprintf(reference, sizeof(reference), "  [Upstream commit %s]", upper);
	queue_patch(repo, "foo: fix the leak fix", reference, repo->bracket);
	git_quietly(repo->repository, "checkout", "-q", "-b", "side", NULL);
	/* sorts before every real upstream: a walk of mainline that wrongly
	 * marks its first candidate would mark this one */
	snprintf(repo->absent, sizeof(repo->absent), "%s", "000000000badc0de0badc0de0badc0de0badc0de");
	snprintf(reference, sizeof(reference), "commit %s upstream", repo->absent);
	queue_patch(repo, "side: not from mainline", reference, repo->side);
	git_quietly(repo->repository, "checkout", "-q", "linux-1.0.y", NULL);
	queue_patch(repo, "bar: something", "No reference here.", unreferenced);
	git_quietly(repo->repository, "merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side",
		    NULL);
	commit(repo->repository, "Greg", "greg@example.org", NULL, NULL, "Linux 1.0.1-rc1",
	       repo->release);
	merge = git(repo->repository, "rev-parse", "HEAD^", NULL);
	snprintf(repo->merge, sizeof(repo->merge), "%s", merge);
	free(merge);
	git_quietly(repo->repository, "tag", "v1.0.1-rc1", NULL);
}

static int handmade_setup(void **state)
{
	struct handmade *repo = calloc(1, sizeof(*repo));

	if (!repo)
		return -1;
	*state = repo;
	strcpy(repo->directory, "/tmp/rb-stable-handmade-XXXXXX");
	if (!mkdtemp(repo->directory))
		return -1;
	repo->created = true;
	snprintf(repo->repository, sizeof(repo->repository), "%s/linux", repo->directory);
	if (mkdir(repo->repository, 0777) != 0)
		return -1;
	make_mainline(repo);
	make_queue(repo);
	return 0;
}

static int handmade_teardown(void **state)
{
	struct handmade *repo = *state;

	if (!repo)
		return 0;
	if (repo->created)
		files_remove_tree(repo->directory);
	free(repo);
	return 0;
}

static void load_handmade(const struct handmade *repo, const char *mainline,
			  struct stable_queue *queue)
{
	char error[256] = "";

	if (stable_queue_load(repo->repository, "v1.0", "v1.0.1-rc1", mainline, queue, error,
			      sizeof(error)) != 0)
		fail_msg("stable_queue_load: %s", error);
}

static void test_handmade_references(void **state)
{
	struct handmade *repo = *state;
	const struct stable_patch *patch;
	struct stable_queue queue;

	load_handmade(repo, "master", &queue);
	assert_int_equal(queue.count, 8);
	patch = stable_queue_find(&queue, repo->good);
	assert_int_equal(patch->form, STABLE_FORM_COMMIT_UPSTREAM);
	assert_string_equal(patch->upstream, repo->upstream);
	assert_string_equal(patch->author, "Ann Author <ann@example.org>");
	assert_string_equal(patch->subject, "foo: fix a leak");
	assert_int_equal(patch->upstream_in_mainline, 1);
	patch = stable_queue_find(&queue, repo->short_id);	/* "commit 1234abcd upstream." */
	assert_int_equal(patch->form, STABLE_FORM_NONE);
	assert_string_equal(patch->upstream, "");
	assert_int_equal(patch->upstream_in_mainline, -1);
	patch = stable_queue_find(&queue, repo->bad_hex);	/* 39 hex digits and a 'g' */
	assert_int_equal(patch->form, STABLE_FORM_NONE);
	assert_string_equal(patch->upstream, "");
	patch = stable_queue_find(&queue, repo->bracket);	/* upper case, no spaces in [] */
	assert_int_equal(patch->form, STABLE_FORM_UPSTREAM_BRACKET);
	assert_string_equal(patch->upstream, repo->fix);
	assert_int_equal(patch->upstream_in_mainline, 1);
	patch = stable_queue_find(&queue, repo->side);
	assert_string_equal(patch->upstream, repo->absent);
	assert_int_equal(patch->upstream_in_mainline, 0);
	patch = stable_queue_find(&queue, repo->merge);
	assert_true(patch->merge);
	assert_false(patch->release_commit);
	patch = stable_queue_find(&queue, repo->release);
	assert_true(patch->release_commit);
	assert_ptr_equal(patch, &queue.patches[queue.count - 1]);
	stable_queue_free(&queue);
}

static void test_handmade_audit(void **state)
{
	struct handmade *repo = *state;
	const char *expected[] = { repo->short_id, repo->bad_hex, repo->side };
	struct stable_queue queue;
	size_t *flagged, count, i, found;

	load_handmade(repo, "master", &queue);
	count = stable_queue_audit(&queue, &flagged);
	assert_int_equal(count, 4);	/* the three and "bar: something" */
	for (i = 0, found = 0; i < count; i++) {
		const struct stable_patch *patch = &queue.patches[flagged[i]];

		assert_false(patch->merge || patch->release_commit);
		found += strcmp(patch->commit, expected[0]) == 0 ||
			 strcmp(patch->commit, expected[1]) == 0 ||
			 strcmp(patch->commit, expected[2]) == 0;
		assert_true(i == 0 || flagged[i] > flagged[i - 1]);
	}
	assert_int_equal(found, 3);
	free(flagged);
	stable_queue_free(&queue);
	load_handmade(repo, NULL, &queue);	/* unchecked: only the ones naming nothing */
	assert_int_equal(stable_queue_audit(&queue, &flagged), 3);
	free(flagged);
	stable_queue_free(&queue);
}

static void handmade_status(const struct handmade *repo, const char *upstream,
			    struct mainline_status *status)
{
	char error[256] = "";

	if (stable_mainline_status(repo->repository, "master", upstream, status, error,
				   sizeof(error)) != 0)
		fail_msg("stable_mainline_status: %s", error);
}

static void test_fixes_trailer_is_found(void **state)
{
	struct handmade *repo = *state;
	struct mainline_status status;

	handmade_status(repo, repo->upstream, &status);
	assert_true(status.upstream_in_mainline);
	assert_string_equal(status.fix, repo->fix);	/* not the mention before it */
	assert_string_equal(status.fix_subject, "foo: fix the leak fix");
	assert_string_equal(status.revert, "");
	stable_mainline_status_free(&status);
	handmade_status(repo, repo->fix, &status);
	assert_string_equal(status.fix, "");
	stable_mainline_status_free(&status);
}

static void test_people_from_trailers_and_maintainers(void **state)
{
	static const char *const expected[] = {
		"Ann Author <ann@example.org>", "Rob Reviewer <rob@example.org>",
		"Ada Acker <ada@example.org>", "<stable@vger.kernel.org>",
		"Max Maintainer <max@example.org>", "Mae Foo <mae@example.org>",
		"foo-devel@example.org", "Alf Exact <alf@example.org>",
		"Hedda Header <hedda@example.org>",
	};
	struct handmade *repo = *state;
	struct mainline_status status;
	size_t i;

	handmade_status(repo, repo->upstream, &status);
	for (i = 0; i < status.people_count && i < sizeof(expected) / sizeof(expected[0]); i++)
		assert_string_equal(status.people[i], expected[i]);
	assert_int_equal(status.people_count, sizeof(expected) / sizeof(expected[0]));
	stable_mainline_status_free(&status);
}

static void test_fix_advice(void **state)
{
	struct handmade *repo = *state;
	struct mainline_status status;
	struct stable_queue queue;
	const struct stable_patch *patch;
	char advice[2048], expected[128];

	load_handmade(repo, "master", &queue);
	patch = stable_queue_find(&queue, repo->good);
	handmade_status(repo, patch->upstream, &status);
	assert_int_equal(stable_advice(patch, &status, "master", false, advice, sizeof(advice)), 0);
	assert_int_equal(strncmp(advice, "drop it from the queue before release", 37), 0);
	snprintf(expected, sizeof(expected), "mainline's fix %.12s (\"foo: fix the leak fix\") can "
		 "be queued instead", repo->fix);
	assert_true(has_text(advice, expected));
	assert_int_equal(stable_advice(patch, &status, "master", true, advice, sizeof(advice)), 0);
	snprintf(expected, sizeof(expected), "backport mainline's fix %.12s", repo->fix);
	assert_true(has_text(advice, expected));
	stable_mainline_status_free(&status);
	stable_queue_free(&queue);
}

static void test_upstream_the_tree_lacks(void **state)
{
	struct handmade *repo = *state;
	struct mainline_status status;
	struct stable_queue queue;
	char advice[1024], expected[128];

	load_handmade(repo, "master", &queue);
	handmade_status(repo, repo->absent, &status);
	assert_false(status.upstream_in_mainline);
	assert_string_equal(status.revert, "");
	assert_string_equal(status.fix, "");
	assert_int_equal(status.people_count, 0);
	assert_int_equal(stable_advice(stable_queue_find(&queue, repo->side), &status, "master", true,
				       advice, sizeof(advice)), 0);
	snprintf(expected, sizeof(expected), "upstream commit %.12s is not in master: the patch "
		 "broke the mainline-first rule; revert it", repo->absent);
	assert_true(has_text(advice, expected));
	stable_mainline_status_free(&status);
	stable_queue_free(&queue);
}

int main(void)
{
	const struct CMUnitTest model_tests[] = {
		cmocka_unit_test(test_queue_matches_truth),
		cmocka_unit_test(test_audit_lists_only_the_stray),
		cmocka_unit_test(test_find_by_id_or_prefix),
		cmocka_unit_test(test_culprit_status_names_mainline_revert),
		cmocka_unit_test(test_culprit_status_without_revert),
		cmocka_unit_test(test_advice_for_the_culprit),
		cmocka_unit_test(test_advice_without_mainline_and_for_the_stray),
		cmocka_unit_test(test_bad_refs_are_named),
	};
	const struct CMUnitTest handmade_tests[] = {
		cmocka_unit_test(test_handmade_references),
		cmocka_unit_test(test_handmade_audit),
		cmocka_unit_test(test_fixes_trailer_is_found),
		cmocka_unit_test(test_people_from_trailers_and_maintainers),
		cmocka_unit_test(test_fix_advice),
		cmocka_unit_test(test_upstream_the_tree_lacks),
	};
	int failed = cmocka_run_group_tests_name("model trees", model_tests, models_setup,
						 models_teardown);

	return failed + cmocka_run_group_tests_name("hand-made repository", handmade_tests,
						    handmade_setup, handmade_teardown);
}
