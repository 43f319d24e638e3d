/* Kernel builds on the loop: results, the tree-id cache, remembered
 * failures, refused refs, cancel, concurrent builds, and that the tree's own
 * checkout is never touched. Each test makes its own git repository whose
 * Makefile stands in for a kernel's; a counter file outside the tree, which
 * every run of the Makefile appends to, proves when nothing was rebuilt. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <uv.h>

#include "build.h"
#include "files.h"
#include "kernel_build.h"
#include "path.h"
#include "subprocess.h"

#define TIMEOUT_MS 60000

struct fixture {
	char dir[64];
	char repo[128];
	char cache[128];
	char counter[128];
	pid_t lock_holder;		/* a child holding an entry lock; 0: none */
	char pidfile[128];
	char first_head[41];
	uv_loop_t loop;
};

struct outcome {
	int calls;
	uint64_t finished_ns;
	struct build_result result;
	char error_text[PATH_MAX + 2048];
};

/* ---- the test repository ------------------------------------------------ */

/* git with nobody's configuration: the same repository on every machine. */
static int run_git(struct fixture *fixture, char **output, const char *first, va_list more)
{
	static char *const environment[] = {
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.org",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.org", NULL,
	};
	struct subprocess_options options = { .environment = environment };
	char *argv[16] = { "git", "-C", fixture->repo };
	size_t count = 3;
	const char *word;

	for (word = first; word && count < 15; word = va_arg(more, const char *))
		argv[count++] = (char *)word;
	argv[count] = NULL;
	return subprocess_run(argv, &options, output);
}

static void git(struct fixture *fixture, const char *first, ...)
{
	va_list more;
	int rc;

	va_start(more, first);
	rc = run_git(fixture, NULL, first, more);
	va_end(more);
	assert_int_equal(rc, 0);
}

/* The first line git printed; the caller frees it. */
static char *git_line(struct fixture *fixture, const char *first, ...)
{
	char *output = NULL;
	va_list more;
	int rc;

	va_start(more, first);
	rc = run_git(fixture, &output, first, more);
	va_end(more);
	assert_int_equal(rc, 0);
	assert_non_null(output);
	output[strcspn(output, "\n")] = '\0';
	return output;
}

static void write_file(const char *path, const char *text)
{
	assert_int_equal(files_write_atomic(path, text), 0);
}

static void commit_makefile(struct fixture *fixture, const char *makefile, const char *message)
{
	char path[PATH_MAX];

	assert_int_equal(path_format(path, sizeof(path), "%s/Makefile", fixture->repo), 0);
	write_file(path, makefile);
	git(fixture, "add", "Makefile", NULL);
	git(fixture, "commit", "-q", "-m", message, NULL);
}

/* A kernel that builds: image-VERSION and release 9.9.VERSION-test. */
static void commit_good(struct fixture *fixture, int version)
{
	char makefile[4096], message[64];

	snprintf(makefile, sizeof(makefile),
		 "all:\n"
		 "\techo built >> %s\n"
		 "\tmkdir -p arch/x86/boot include/config\n"
		 "\techo image-%d > arch/x86/boot/bzImage\n"
		 "\techo 9.9.%d-test > include/config/kernel.release\n",
		 fixture->counter, version, version);
	snprintf(message, sizeof(message), "kernel %d", version);
	commit_makefile(fixture, makefile, message);
}

static void commit_broken(struct fixture *fixture)
{
	char makefile[4096];

	snprintf(makefile, sizeof(makefile),
		 "all:\n"
		 "\techo built >> %s\n"
		 "\techo this-commit-is-broken >&2; exit 3\n", fixture->counter);
	commit_makefile(fixture, makefile, "broken");
}

/* Writes its pid (the shell's, which becomes sleep's) where the test sees it. */
static void commit_slow(struct fixture *fixture)
{
	char makefile[4096];

	snprintf(makefile, sizeof(makefile),
		 "all:\n"
		 "\techo $$$$ > %s.new; mv %s.new %s; exec sleep 30\n",
		 fixture->pidfile, fixture->pidfile, fixture->pidfile);
	commit_makefile(fixture, makefile, "slow");
}

static int setup(void **state)
{
	struct fixture *fixture = calloc(1, sizeof(*fixture));
	char *init[] = { "git", "init", "-q", NULL, NULL };
	char *head;

	if (!fixture)
		return -1;
	strcpy(fixture->dir, "/tmp/rackbisect-test-build-XXXXXX");
	if (!mkdtemp(fixture->dir) || uv_loop_init(&fixture->loop) != 0)
		return -1;
	snprintf(fixture->repo, sizeof(fixture->repo), "%s/repo", fixture->dir);
	snprintf(fixture->cache, sizeof(fixture->cache), "%s/cache", fixture->dir);
	snprintf(fixture->counter, sizeof(fixture->counter), "%s/counter", fixture->dir);
	snprintf(fixture->pidfile, sizeof(fixture->pidfile), "%s/pid", fixture->dir);
	init[3] = fixture->repo;
	if (subprocess_run(init, NULL, NULL) != 0)
		return -1;
	commit_good(fixture, 1);
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	snprintf(fixture->first_head, sizeof(fixture->first_head), "%s", head);
	free(head);
	*state = fixture;
	return 0;
}

/* Ends the child holding an entry lock, if any: SIGKILL, as a crash
 * would, which lets go of its lock. Teardown calls it too, so a failed
 * test leaves no child behind. */
static void stop_lock_holder(struct fixture *fixture)
{
	int status;

	if (fixture->lock_holder <= 0)
		return;
	kill(fixture->lock_holder, SIGKILL);
	waitpid(fixture->lock_holder, &status, 0);
	fixture->lock_holder = 0;
}

static int teardown(void **state)
{
	struct fixture *fixture = *state;
	int open_handles;

	stop_lock_holder(fixture);
	uv_run(&fixture->loop, UV_RUN_DEFAULT);
	/* UV_EBUSY here: a build left a handle open after its callback */
	open_handles = uv_loop_close(&fixture->loop);
	files_remove_tree(fixture->dir);
	free(fixture);
	return open_handles;
}

/* ---- running builds ------------------------------------------------------ */

static void on_built(struct build *build, const struct build_result *result, void *data)
{
	struct outcome *outcome = data;

	(void)build;
	outcome->calls++;
	outcome->finished_ns = uv_hrtime();
	outcome->result = *result;
	snprintf(outcome->error_text, sizeof(outcome->error_text), "%s",
		 result->error_text ? result->error_text : "");
	outcome->result.error_text = result->error_text ? outcome->error_text : NULL;
}

static int start_with(struct fixture *fixture, const char *ref, char *const *argv,
		      const char *artifact, struct outcome *outcome, struct build **build)
{
	struct build_request request = {
		.tree = fixture->repo,
		.ref = ref,
		.build_argv = argv,
		.artifact = artifact,
		.release_file = "include/config/kernel.release",
		.cache_dir = fixture->cache,
	};

	return build_start(&fixture->loop, &request, on_built, outcome, build);
}

static struct build *start(struct fixture *fixture, const char *ref, struct outcome *outcome)
{
	struct build *build = NULL;

	assert_int_equal(start_with(fixture, ref, NULL, "arch/x86/boot/bzImage", outcome, &build), 0);
	assert_non_null(build);
	return build;
}

static void on_deadline(uv_timer_t *timer)
{
	*(bool *)timer->data = true;
}

/* Runs the loop until every outcome has its callback (never sleeping); a
 * build that never calls back fails the test after TIMEOUT_MS. */
static void run_until_done(struct fixture *fixture, struct outcome *outcomes, size_t count)
{
	uv_timer_t deadline;
	bool timed_out = false, done = false;
	size_t i;

	uv_timer_init(&fixture->loop, &deadline);
	deadline.data = &timed_out;
	uv_timer_start(&deadline, on_deadline, TIMEOUT_MS, 0);
	while (!done && !timed_out) {
		uv_run(&fixture->loop, UV_RUN_ONCE);
		for (done = true, i = 0; i < count; i++)
			done = done && outcomes[i].calls > 0;
	}
	uv_close((uv_handle_t *)&deadline, NULL);
	uv_run(&fixture->loop, UV_RUN_DEFAULT);
	assert_false(timed_out);
	for (i = 0; i < count; i++)
		assert_int_equal(outcomes[i].calls, 1);
}

static void build_and_wait(struct fixture *fixture, const char *ref, struct outcome *outcome)
{
	start(fixture, ref, outcome);
	run_until_done(fixture, outcome, 1);
}

/* ---- checks -------------------------------------------------------------- */

static int count_lines(const char *path)
{
	char *text = files_read_text(path);
	int lines = 0;
	char *c;

	for (c = text; c && *c; c++)
		lines += *c == '\n';
	free(text);
	return lines;
}

/* Entries of dir whose name does not start with prefix (NULL: every one). */
static int count_entries_but(const char *dir, const char *prefix)
{
	DIR *directory = opendir(dir);
	struct dirent *entry;
	int count = 0;

	if (!directory)
		return 0;
	while ((entry = readdir(directory)) != NULL)
		count += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0 &&
			 !(prefix && strncmp(entry->d_name, prefix, strlen(prefix)) == 0);
	closedir(directory);
	return count;
}

static int count_entries(const char *dir)
{
	return count_entries_but(dir, NULL);
}

static void assert_file_line(const char *path, const char *expected)
{
	char line[512];

	assert_int_equal(files_read_line(path, line, sizeof(line)), 0);
	assert_string_equal(line, expected);
}

static bool text_contains(const char *path, const char *needle)
{
	char *text = files_read_text(path);
	bool found = text && strstr(text, needle);

	free(text);
	return found;
}

/* The worktrees git lists for the repository, the tree's own included. */
static int count_worktrees(struct fixture *fixture)
{
	char *argv_list[] = { "git", "-C", fixture->repo, "worktree", "list", "--porcelain", NULL };
	struct subprocess_options quiet = { 0 };
	char *worktrees = NULL;
	const char *c;
	int listed = 0;

	assert_int_equal(subprocess_run(argv_list, &quiet, &worktrees), 0);
	for (c = worktrees; (c = strstr(c, "worktree ")) != NULL; c++)
		listed++;
	free(worktrees);
	return listed;
}

/* The worktree a build ran in, as its log's first line names it. */
static void worktree_of(const struct outcome *outcome, char *worktree, size_t len)
{
	char *log = files_read_text(outcome->result.log);
	const char *start, *end;

	assert_non_null(log);
	start = strstr(log, ") in ");
	assert_non_null(start);
	start += strlen(") in ");
	end = strchr(start, ':');
	assert_non_null(end);
	snprintf(worktree, len, "%.*s", (int)(end - start), start);
	free(log);
}

/* HEAD, the index and the work tree as the test left them; no worktree
 * but the tree's own and the slots builds reuse (one per build that ran
 * at once), none other left in the cache, nothing half-written. */
static void assert_tree_untouched(struct fixture *fixture, const char *head)
{
	char *now = git_line(fixture, "rev-parse", "HEAD", NULL);
	char *status = NULL, dir[PATH_MAX];
	struct subprocess_options quiet = { 0 };
	char *argv_status[] = { "git", "-C", fixture->repo, "status", "--porcelain", NULL };
	int slots;

	assert_string_equal(now, head);
	free(now);
	assert_int_equal(subprocess_run(argv_status, &quiet, &status), 0);
	assert_string_equal(status, "");
	free(status);
	snprintf(dir, sizeof(dir), "%s/arch", fixture->repo);
	assert_int_equal(access(dir, F_OK), -1);
	snprintf(dir, sizeof(dir), "%s/work", fixture->cache);
	assert_int_equal(count_entries_but(dir, "slot-"), 0);
	/* each slot is a directory and its lock */
	slots = (count_entries(dir) - count_entries_but(dir, "slot-")) / 2;
	assert_true(slots <= 2);
	assert_true(count_worktrees(fixture) <= 1 + slots);
	snprintf(dir, sizeof(dir), "%s/staging", fixture->cache);
	assert_int_equal(count_entries(dir), 0);
}

/* ---- tests --------------------------------------------------------------- */

static void test_build_fills_the_result(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };
	char *tree = git_line(fixture, "rev-parse", "HEAD^{tree}", NULL);
	char expected[PATH_MAX], *log;

	build_and_wait(fixture, "HEAD", &outcome);
	assert_int_equal(outcome.result.status, 0);
	assert_false(outcome.result.cached);
	assert_null(outcome.result.error_text);
	assert_string_equal(outcome.result.commit, fixture->first_head);
	assert_string_equal(outcome.result.tree_id, tree);
	snprintf(expected, sizeof(expected), "%s/%s/image", fixture->cache, tree);
	assert_string_equal(outcome.result.image, expected);
	assert_file_line(outcome.result.image, "image-1");
	assert_string_equal(outcome.result.release, "9.9.1-test");
	snprintf(expected, sizeof(expected), "%s/%s/build.log", fixture->cache, tree);
	assert_string_equal(outcome.result.log, expected);
	log = files_read_text(outcome.result.log);
	assert_non_null(log);
	assert_non_null(strstr(log, "echo built"));
	free(log);
	snprintf(expected, sizeof(expected), "%s/%s/commit", fixture->cache, tree);
	assert_file_line(expected, fixture->first_head);
	assert_int_equal(count_lines(fixture->counter), 1);
	assert_tree_untouched(fixture, fixture->first_head);
	free(tree);
}

static void test_second_request_is_cached(void **state)
{
	struct fixture *fixture = *state;
	struct outcome first = { 0 }, second = { 0 };

	build_and_wait(fixture, "HEAD", &first);
	build_and_wait(fixture, fixture->first_head, &second);
	assert_int_equal(second.result.status, 0);
	assert_true(second.result.cached);
	assert_null(second.result.error_text);
	assert_string_equal(second.result.image, first.result.image);
	assert_string_equal(second.result.release, "9.9.1-test");
	assert_string_equal(second.result.log, first.result.log);
	assert_int_equal(count_lines(fixture->counter), 1);
}

static void test_commits_with_the_same_tree_share_a_build(void **state)
{
	struct fixture *fixture = *state;
	struct outcome first = { 0 }, second = { 0 };
	char *head;

	git(fixture, "commit", "-q", "--allow-empty", "-m", "nothing changes", NULL);
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	build_and_wait(fixture, "HEAD", &first);
	build_and_wait(fixture, "HEAD~1", &second);
	assert_int_equal(first.result.status, 0);
	assert_false(first.result.cached);
	assert_int_equal(second.result.status, 0);
	assert_true(second.result.cached);
	assert_string_equal(first.result.commit, head);
	assert_string_equal(second.result.commit, fixture->first_head);
	assert_string_equal(second.result.tree_id, first.result.tree_id);
	assert_string_equal(second.result.image, first.result.image);
	assert_int_equal(count_lines(fixture->counter), 1);
	assert_tree_untouched(fixture, head);
	free(head);
}

static void test_failed_build_is_remembered_with_its_log(void **state)
{
	struct fixture *fixture = *state;
	struct outcome first = { 0 }, second = { 0 };
	char expected[PATH_MAX], *head, *log;

	commit_broken(fixture);
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	build_and_wait(fixture, "HEAD", &first);
	assert_int_equal(first.result.status, -ENOEXEC);
	assert_false(first.result.cached);
	assert_string_equal(first.result.commit, head);
	assert_string_equal(first.result.image, "");
	snprintf(expected, sizeof(expected), "%s/%s/build.log", fixture->cache, first.result.tree_id);
	assert_string_equal(first.result.log, expected);
	log = files_read_text(first.result.log);
	assert_non_null(log);
	assert_non_null(strstr(log, "this-commit-is-broken"));
	free(log);
	assert_non_null(first.result.error_text);
	assert_non_null(strstr(first.result.error_text, head));
	assert_non_null(strstr(first.result.error_text, "does not build"));
	assert_non_null(strstr(first.result.error_text, first.result.log));

	build_and_wait(fixture, "HEAD", &second);
	assert_int_equal(second.result.status, -ENOEXEC);
	assert_true(second.result.cached);
	assert_string_equal(second.result.log, first.result.log);
	assert_non_null(strstr(second.result.error_text, "exited with status 2"));
	assert_int_equal(count_lines(fixture->counter), 1);
	assert_tree_untouched(fixture, head);
	free(head);
}

/*
 * The build runs the tree's code and its log may be read by anyone: it gets
 * the variables a build uses and none of the coordinator's secrets (a LAVA
 * token, a PDU password: any variable not on the list), and no descriptor
 * of the coordinator's (issue 31: it inherited all of them).
 */
static void test_a_build_gets_no_secret_and_no_descriptor(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };
	char *argv[] = { "sh", "-c", "env; for f in /proc/$$/fd/*; do echo \"open fd ${f##*/}\"; "
			 "done; exit 1", NULL };
	char leaked[32], *log;
	int fd = open("/dev/null", O_RDONLY);	/* no O_CLOEXEC, as some libraries open */

	assert_true(fd >= 3);
	setenv("RACKBISECT_TEST_LAVA_TOKEN", "hunter2-token", 1);
	setenv("KBUILD_BUILD_USER", "lab", 1);
	assert_int_equal(start_with(fixture, "HEAD", argv, "arch/x86/boot/bzImage", &outcome, NULL),
			 0);
	run_until_done(fixture, &outcome, 1);
	unsetenv("RACKBISECT_TEST_LAVA_TOKEN");
	unsetenv("KBUILD_BUILD_USER");
	assert_int_equal(outcome.result.status, -ENOEXEC);
	log = files_read_text(outcome.result.log);
	assert_non_null(log);
	assert_non_null(strstr(log, "\nPATH="));
	assert_non_null(strstr(log, "\nKBUILD_BUILD_USER=lab"));
	assert_null(strstr(log, "hunter2-token"));
	snprintf(leaked, sizeof(leaked), "open fd %d\n", fd);
	if (strstr(log, leaked))
		fail_msg("the build inherited descriptor %d:\n%s", fd, log);
	free(log);
	close(fd);
}

static void test_build_without_image_does_not_build(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };
	struct build *build;

	assert_int_equal(start_with(fixture, "HEAD", NULL, "arch/x86/boot/vmlinuz", &outcome, &build), 0);
	run_until_done(fixture, &outcome, 1);
	assert_int_equal(outcome.result.status, -ENOEXEC);
	assert_non_null(strstr(outcome.result.error_text, "arch/x86/boot/vmlinuz"));
	assert_tree_untouched(fixture, fixture->first_head);
}

static void test_unknown_ref_is_enoent(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };

	build_and_wait(fixture, "no-such-branch", &outcome);
	assert_int_equal(outcome.result.status, -ENOENT);
	assert_string_equal(outcome.result.commit, "");
	assert_string_equal(outcome.result.log, "");
	assert_non_null(strstr(outcome.result.error_text, "no-such-branch"));
	assert_int_equal(count_lines(fixture->counter), 0);
	assert_tree_untouched(fixture, fixture->first_head);

	/* the hint is a command to paste: what it quotes is quoted for a
	 * shell (issue 31: "$(reboot)" went into it bare) */
	memset(&outcome, 0, sizeof(outcome));
	build_and_wait(fixture, "x$(reboot)", &outcome);
	assert_int_equal(outcome.result.status, -ENOENT);
	if (!strstr(outcome.result.error_text, "check it with: 'git' '-C' '") ||
	    !strstr(outcome.result.error_text, "' 'log' '-1' 'x$(reboot)' '--'"))
		fail_msg("error: %s", outcome.result.error_text);
}

static void test_refused_requests_are_einval(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };
	char *empty_argv[] = { NULL };
	struct build *build = NULL;

	assert_int_equal(start_with(fixture, "--foo", NULL, "arch/x86/boot/bzImage", &outcome, &build),
			 -EINVAL);
	assert_int_equal(start_with(fixture, "-", NULL, "arch/x86/boot/bzImage", &outcome, &build),
			 -EINVAL);
	assert_int_equal(start_with(fixture, "HEAD", NULL, "/boot/vmlinuz", &outcome, &build), -EINVAL);
	assert_int_equal(start_with(fixture, "HEAD", NULL, "arch/../../x", &outcome, &build), -EINVAL);
	assert_int_equal(start_with(fixture, "HEAD", empty_argv, "bzImage", &outcome, &build), -EINVAL);
	assert_null(build);
	uv_run(&fixture->loop, UV_RUN_DEFAULT);
	assert_int_equal(outcome.calls, 0);
}

static void test_older_commit_leaves_the_checkout_alone(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };
	char *head;

	commit_good(fixture, 2);
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	build_and_wait(fixture, "HEAD~1", &outcome);
	assert_int_equal(outcome.result.status, 0);
	assert_string_equal(outcome.result.commit, fixture->first_head);
	assert_file_line(outcome.result.image, "image-1");
	assert_tree_untouched(fixture, head);
	free(head);
}

static void test_two_commits_build_at_once(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcomes[2] = { { 0 } };
	char slots[2][PATH_MAX], *head;

	commit_good(fixture, 2);
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	start(fixture, "HEAD~1", &outcomes[0]);
	start(fixture, "HEAD", &outcomes[1]);
	run_until_done(fixture, outcomes, 2);
	assert_int_equal(outcomes[0].result.status, 0);
	assert_int_equal(outcomes[1].result.status, 0);
	assert_string_not_equal(outcomes[0].result.tree_id, outcomes[1].result.tree_id);
	assert_file_line(outcomes[0].result.image, "image-1");
	assert_file_line(outcomes[1].result.image, "image-2");
	assert_string_equal(outcomes[1].result.release, "9.9.2-test");
	assert_int_equal(count_lines(fixture->counter), 2);
	worktree_of(&outcomes[0], slots[0], sizeof(slots[0]));
	worktree_of(&outcomes[1], slots[1], sizeof(slots[1]));
	assert_non_null(strstr(slots[0], "/work/slot-"));
	assert_non_null(strstr(slots[1], "/work/slot-"));
	assert_tree_untouched(fixture, head);
	free(head);
}

struct slot_watch {
	uv_timer_t timer;
	struct fixture *fixture;
	struct build *slow;
	struct outcome *second;
	bool started;
};

/* Once the slow build runs in its slot (its pid file is there), the
 * second build starts; once that is done, the slow one is cancelled. */
static void on_slot_watch(uv_timer_t *timer)
{
	struct slot_watch *watch = timer->data;

	if (!watch->started && access(watch->fixture->pidfile, R_OK) == 0) {
		start(watch->fixture, "HEAD~1", watch->second);
		watch->started = true;
	} else if (watch->started && watch->second->calls) {
		build_cancel(watch->slow);
		uv_close((uv_handle_t *)timer, NULL);
	}
}

/* A build never takes a slot another build is working in: the second
 * build, started while the first holds slot 0, builds in slot 1. */
static void test_a_busy_slot_is_passed_by(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcomes[2] = { { 0 } };
	struct slot_watch watch = { .fixture = fixture, .second = &outcomes[1] };
	char slot[PATH_MAX], *head;

	commit_slow(fixture);
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	watch.slow = start(fixture, "HEAD", &outcomes[0]);
	uv_timer_init(&fixture->loop, &watch.timer);
	watch.timer.data = &watch;
	uv_timer_start(&watch.timer, on_slot_watch, 5, 5);
	run_until_done(fixture, outcomes, 2);
	assert_int_equal(outcomes[0].result.status, -ECANCELED);
	assert_true(outcomes[0].finished_ns > outcomes[1].finished_ns);
	assert_int_equal(outcomes[1].result.status, 0);
	assert_file_line(outcomes[1].result.image, "image-1");
	worktree_of(&outcomes[1], slot, sizeof(slot));
	assert_non_null(strstr(slot, "/work/slot-"));
	assert_string_equal(slot + strlen(slot) - 2, "-1");
	assert_tree_untouched(fixture, head);
	free(head);
}

/* One build after another: the second checks its commit out in the slot
 * the first left (no new worktree), and builds that commit, not the
 * first's: its image and release are its own. */
static void test_builds_one_after_another_reuse_a_slot(void **state)
{
	struct fixture *fixture = *state;
	struct outcome first = { 0 }, second = { 0 };
	char slots[2][PATH_MAX], *head;

	commit_good(fixture, 2);
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	build_and_wait(fixture, "HEAD~1", &first);
	build_and_wait(fixture, "HEAD", &second);
	assert_int_equal(first.result.status, 0);
	assert_int_equal(second.result.status, 0);
	worktree_of(&first, slots[0], sizeof(slots[0]));
	worktree_of(&second, slots[1], sizeof(slots[1]));
	assert_non_null(strstr(slots[0], "/work/slot-"));
	assert_string_equal(slots[0], slots[1]);
	assert_file_line(first.result.image, "image-1");
	assert_file_line(second.result.image, "image-2");
	assert_string_equal(second.result.release, "9.9.2-test");
	assert_int_equal(count_worktrees(fixture), 2);
	assert_tree_untouched(fixture, head);
	free(head);
}

/* A commit whose build succeeds and makes nothing, built in a slot an
 * earlier build left its image and release in: it does not build (the
 * earlier image is never taken for its). */
static void test_a_slot_never_lends_an_earlier_image(void **state)
{
	struct fixture *fixture = *state;
	struct outcome first = { 0 }, second = { 0 };
	char makefile[4096], *head;

	build_and_wait(fixture, "HEAD", &first);
	assert_int_equal(first.result.status, 0);
	snprintf(makefile, sizeof(makefile), "all:\n\techo built >> %s\n", fixture->counter);
	commit_makefile(fixture, makefile, "builds nothing");
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	build_and_wait(fixture, "HEAD", &second);
	assert_int_equal(count_lines(fixture->counter), 2);
	assert_int_equal(second.result.status, -ENOEXEC);
	assert_string_equal(second.result.image, "");
	assert_non_null(strstr(second.result.error_text, "no release string"));
	assert_tree_untouched(fixture, head);
	free(head);
}

/* A slot git can no longer check out in (its .git names a worktree git
 * does not know; its .git gone, as after a crash half-way through making
 * it) is made anew, and the repository around the cache is never taken
 * for the slot's. */
static void test_a_broken_slot_is_made_anew(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcomes[3] = { { 0 } };
	char slot[PATH_MAX], marker[PATH_MAX + 8], *head;

	commit_good(fixture, 2);
	commit_good(fixture, 3);
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	build_and_wait(fixture, "HEAD~2", &outcomes[0]);
	worktree_of(&outcomes[0], slot, sizeof(slot));
	snprintf(marker, sizeof(marker), "%s/.git", slot);
	write_file(marker, "gitdir: /nonexistent/rackbisect-test\n");
	build_and_wait(fixture, "HEAD~1", &outcomes[1]);
	assert_int_equal(outcomes[1].result.status, 0);
	assert_file_line(outcomes[1].result.image, "image-2");
	assert_int_equal(unlink(marker), 0);
	build_and_wait(fixture, "HEAD", &outcomes[2]);
	assert_int_equal(outcomes[2].result.status, 0);
	assert_file_line(outcomes[2].result.image, "image-3");
	worktree_of(&outcomes[2], marker, sizeof(marker));
	assert_string_equal(marker, slot);
	assert_int_equal(count_worktrees(fixture), 2);
	assert_tree_untouched(fixture, head);
	free(head);
}

/* Two builds of one tree at once: the second to miss waits for the first's
 * entry lock and finds its entry, so the tree is built once. Which one
 * waits depends on which git answered first: the test asks for one of each. */
static void test_same_tree_twice_at_once_builds_once(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcomes[2] = { { 0 } };

	start(fixture, "HEAD", &outcomes[0]);
	start(fixture, "HEAD", &outcomes[1]);
	run_until_done(fixture, outcomes, 2);
	assert_int_equal(outcomes[0].result.status, 0);
	assert_int_equal(outcomes[1].result.status, 0);
	assert_true(outcomes[0].result.cached != outcomes[1].result.cached);
	assert_string_equal(outcomes[0].result.image, outcomes[1].result.image);
	assert_file_line(outcomes[1].result.image, "image-1");
	assert_int_equal(count_lines(fixture->counter), 1);
	/* the tree entry plus work/, staging/ and locks/ */
	assert_int_equal(count_entries(fixture->cache), 4);
	assert_tree_untouched(fixture, fixture->first_head);
}

/* Holds the entry lock of the tree of HEAD in a child process
 * (fixture->lock_holder), as another coordinator sharing the cache does
 * while it builds; returns once the lock is held. */
static void hold_entry_lock_elsewhere(struct fixture *fixture)
{
	char *tree = git_line(fixture, "rev-parse", "HEAD^{tree}", NULL);
	char dir[PATH_MAX], lock[PATH_MAX + 64];
	int ready[2], fd;
	pid_t pid;
	char byte;

	snprintf(dir, sizeof(dir), "%s/locks", fixture->cache);
	snprintf(lock, sizeof(lock), "%s/%s.lock", dir, tree);
	free(tree);
	assert_int_equal(path_make_dirs(dir), 0);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid > 0)
		fixture->lock_holder = pid;
	if (pid == 0) {
		fd = open(lock, O_RDWR | O_CREAT, 0600);
		if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();	/* until the test kills it: a crash lets go of the lock */
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &byte, 1), 1);
	close(ready[0]);
}

static void on_window_closed(uv_handle_t *handle)
{
	*(bool *)handle->data = true;
}

/* Runs the loop for window_ms (several looks at the lock, one per 100 ms):
 * the build must not have called back. */
static void assert_still_waiting(struct fixture *fixture, struct outcome *outcome, uint64_t window_ms)
{
	bool window_over = false;
	uv_timer_t window;

	uv_timer_init(&fixture->loop, &window);
	window.data = &window_over;
	uv_timer_start(&window, on_deadline, window_ms, 0);
	while (!window_over && outcome->calls == 0)
		uv_run(&fixture->loop, UV_RUN_ONCE);
	/* the timer is on this stack: closed before the function returns */
	window_over = false;
	uv_close((uv_handle_t *)&window, on_window_closed);
	while (!window_over)
		uv_run(&fixture->loop, UV_RUN_NOWAIT);
	assert_int_equal(outcome->calls, 0);
}

/* A build whose tree another process is building waits (it looks again
 * every 100 ms) instead of building it too; once that process is gone, its
 * lock with it, the build goes on. */
static void test_a_tree_another_process_builds_is_waited_for(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };

	hold_entry_lock_elsewhere(fixture);
	start(fixture, "HEAD", &outcome);
	assert_still_waiting(fixture, &outcome, 500);
	assert_int_equal(count_lines(fixture->counter), 0);
	stop_lock_holder(fixture);
	run_until_done(fixture, &outcome, 1);
	assert_int_equal(outcome.result.status, 0);
	assert_false(outcome.result.cached);
	assert_int_equal(count_lines(fixture->counter), 1);
}

/* A build cancelled while it waits for another's lock ends at its next look. */
static void test_a_build_waiting_for_the_lock_can_be_cancelled(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };
	struct build *build;

	hold_entry_lock_elsewhere(fixture);
	build = start(fixture, "HEAD", &outcome);
	assert_still_waiting(fixture, &outcome, 300);
	build_cancel(build);
	run_until_done(fixture, &outcome, 1);
	assert_int_equal(outcome.result.status, -ECANCELED);
	assert_int_equal(count_lines(fixture->counter), 0);
}

/* ---- a corrupted cache entry ---------------------------------------------- */

/* The entry's directory and a file in it, from a result's image path. */
static void entry_file(const struct outcome *outcome, const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s", outcome->result.image);
	assert_non_null(strrchr(path, '/'));
	snprintf(strrchr(path, '/') + 1, len - (size_t)(strrchr(path, '/') + 1 - path), "%s", name);
}

/* Damage on disk: one bit of one byte flipped, in place. */
static void flip_byte(const char *path, off_t offset)
{
	unsigned char byte;
	int fd = open(path, O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &byte, 1, offset), 1);
	byte ^= 0x01;
	assert_int_equal(pwrite(fd, &byte, 1, offset), 1);
	close(fd);
}

/* FNV-1a 64, written apart from build.c's, for what its checksums say. */
static uint64_t test_fnv1a(const char *text)
{
	uint64_t hash = UINT64_C(0xcbf29ce484222325);

	for (; *text; text++)
		hash = (hash ^ (unsigned char)*text) * UINT64_C(0x100000001b3);
	return hash;
}

/* The request after the damage built the commit again: the entry was
 * moved under <cache>/corrupt/ (still there), the new image is the fresh
 * build's, and asking once more is a plain cache hit. */
static void assert_built_again(struct fixture *fixture, const struct outcome *first,
			       const struct outcome *again, const char *fresh_image)
{
	struct outcome third = { 0 };
	char prefix[PATH_MAX], moved_image[PATH_MAX + 8], *image;
	struct stat status;

	assert_int_equal(again->result.status, 0);
	assert_false(again->result.cached);
	snprintf(prefix, sizeof(prefix), "%s/corrupt/%s-", fixture->cache, first->result.tree_id);
	assert_memory_equal(again->result.corrupt_entry, prefix, strlen(prefix));
	assert_int_equal(stat(again->result.corrupt_entry, &status), 0);
	assert_true(S_ISDIR(status.st_mode));
	snprintf(moved_image, sizeof(moved_image), "%s/image", again->result.corrupt_entry);
	assert_int_equal(access(moved_image, F_OK), 0);
	assert_string_equal(again->result.image, first->result.image);
	image = files_read_text(again->result.image);
	assert_non_null(image);
	assert_string_equal(image, fresh_image);
	free(image);
	assert_true(text_contains(again->result.log, "the cache entry was corrupt"));
	assert_int_equal(count_lines(fixture->counter), 2);
	build_and_wait(fixture, "HEAD", &third);
	assert_true(third.result.cached);
	assert_string_equal(third.result.corrupt_entry, "");
	assert_int_equal(count_lines(fixture->counter), 2);
	assert_tree_untouched(fixture, fixture->first_head);
}

/* Builds, damages the cached image with `damage`, asks again: built anew. */
static void damaged_image_builds_again(struct fixture *fixture, void (*damage)(const char *image))
{
	struct outcome first = { 0 }, again = { 0 };
	char *fresh;

	build_and_wait(fixture, "HEAD", &first);
	assert_int_equal(first.result.status, 0);
	fresh = files_read_text(first.result.image);
	assert_non_null(fresh);
	damage(first.result.image);
	build_and_wait(fixture, "HEAD", &again);
	assert_built_again(fixture, &first, &again, fresh);
	free(fresh);
}

static void flip_third_byte(const char *image)
{
	flip_byte(image, 2);
}

static void cut_after_three_bytes(const char *image)
{
	assert_int_equal(truncate(image, 3), 0);
}

static void test_a_flipped_byte_in_a_cached_image_builds_again(void **state)
{
	damaged_image_builds_again(*state, flip_third_byte);
}

static void test_a_truncated_cached_image_builds_again(void **state)
{
	damaged_image_builds_again(*state, cut_after_three_bytes);
}

/* An entry written before checksums were kept is trusted as it is. */
static void test_an_entry_without_checksums_is_still_a_hit(void **state)
{
	struct fixture *fixture = *state;
	struct outcome first = { 0 }, again = { 0 };
	char checksums[PATH_MAX];

	build_and_wait(fixture, "HEAD", &first);
	assert_int_equal(first.result.status, 0);
	entry_file(&first, "checksums", checksums, sizeof(checksums));
	assert_int_equal(unlink(checksums), 0);
	build_and_wait(fixture, "HEAD", &again);
	assert_int_equal(again.result.status, 0);
	assert_true(again.result.cached);
	assert_string_equal(again.result.corrupt_entry, "");
	assert_file_line(again.result.image, "image-1");
	assert_int_equal(count_lines(fixture->counter), 1);
}

/* The checksums file says the image's hash and size; an entry as it was
 * written passes, and nothing is set aside. */
static void test_an_unchanged_entry_is_a_hit(void **state)
{
	struct fixture *fixture = *state;
	struct outcome first = { 0 }, again = { 0 };
	char checksums[PATH_MAX], expected[128], corrupt[PATH_MAX], *text;

	build_and_wait(fixture, "HEAD", &first);
	assert_int_equal(first.result.status, 0);
	entry_file(&first, "checksums", checksums, sizeof(checksums));
	text = files_read_text(checksums);
	assert_non_null(text);
	snprintf(expected, sizeof(expected), "%016" PRIx64 " 8 image\n", test_fnv1a("image-1\n"));
	assert_string_equal(text, expected);
	free(text);
	build_and_wait(fixture, "HEAD", &again);
	assert_int_equal(again.result.status, 0);
	assert_true(again.result.cached);
	assert_string_equal(again.result.corrupt_entry, "");
	assert_string_equal(again.result.image, first.result.image);
	assert_int_equal(count_lines(fixture->counter), 1);
	snprintf(corrupt, sizeof(corrupt), "%s/corrupt", fixture->cache);
	assert_int_equal(access(corrupt, F_OK), -1);
}

static void test_missing_build_command_is_not_remembered(void **state)
{
	struct fixture *fixture = *state;
	struct outcome first = { 0 }, second = { 0 };
	char *argv[] = { "rackbisect-test-no-such-command", NULL };
	struct build *build;

	assert_int_equal(start_with(fixture, "HEAD", argv, "arch/x86/boot/bzImage", &first, &build), 0);
	run_until_done(fixture, &first, 1);
	assert_int_not_equal(first.result.status, 0);
	assert_int_not_equal(first.result.status, -ENOEXEC);
	assert_int_not_equal(first.result.status, -ENOENT);
	assert_non_null(strstr(first.result.error_text, "rackbisect-test-no-such-command"));
	assert_non_null(strstr(first.result.error_text, fixture->first_head));
	assert_int_equal(start_with(fixture, "HEAD", argv, "arch/x86/boot/bzImage", &second, &build), 0);
	run_until_done(fixture, &second, 1);
	assert_false(second.result.cached);
	assert_int_equal(second.result.status, first.result.status);
	assert_tree_untouched(fixture, fixture->first_head);
}

static void test_build_killed_by_a_signal_is_not_remembered(void **state)
{
	struct fixture *fixture = *state;
	struct outcome first = { 0 }, second = { 0 };
	char *argv[] = { "sh", "-c", "echo dying; kill -9 $$", NULL };
	struct build *build;
	char *log;

	assert_int_equal(start_with(fixture, "HEAD", argv, "arch/x86/boot/bzImage", &first, &build), 0);
	run_until_done(fixture, &first, 1);
	assert_int_equal(first.result.status, -EINTR);
	assert_non_null(strstr(first.result.error_text, "signal 9"));
	/* the log of a build that died is kept, outside the cache's entries */
	log = files_read_text(first.result.log);
	assert_non_null(log);
	assert_non_null(strstr(log, "dying"));
	free(log);
	assert_int_equal(start_with(fixture, "HEAD", NULL, "arch/x86/boot/bzImage", &second, &build), 0);
	run_until_done(fixture, &second, 1);
	assert_int_equal(second.result.status, 0);
	assert_false(second.result.cached);
}

/* True once pid has ended (dead, or a zombie waiting for init: either way
 * it runs no more) within timeout_ms. A process sent SIGKILL ends when the
 * kernel next schedules it, later on a busy machine: this waits for the
 * exit itself (a pidfd turns readable), not for a guessed delay. */
static bool process_ends_within(pid_t pid, int timeout_ms)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd ready;
	int rc;

	if (pidfd < 0)
		return errno == ESRCH;
	ready = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	do
		rc = poll(&ready, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	close(pidfd);
	return rc == 1;
}

struct cancel_watch {
	uv_timer_t timer;
	struct build *build;
	const char *pidfile;
	uint64_t cancelled_ns;
};

/* Cancels once the slow build's sleep is running: its pid file is there. */
static void on_watch(uv_timer_t *timer)
{
	struct cancel_watch *watch = timer->data;

	if (access(watch->pidfile, R_OK) != 0)
		return;
	watch->cancelled_ns = uv_hrtime();
	build_cancel(watch->build);
	uv_close((uv_handle_t *)timer, NULL);
}

static void test_cancel_during_slow_build(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };
	struct cancel_watch watch = { .pidfile = fixture->pidfile };
	char pid_text[32], entry[PATH_MAX], *head;

	commit_slow(fixture);
	head = git_line(fixture, "rev-parse", "HEAD", NULL);
	watch.build = start(fixture, "HEAD", &outcome);
	uv_timer_init(&fixture->loop, &watch.timer);
	watch.timer.data = &watch;
	uv_timer_start(&watch.timer, on_watch, 5, 5);
	run_until_done(fixture, &outcome, 1);
	assert_int_not_equal(watch.cancelled_ns, 0);
	assert_int_equal(outcome.result.status, -ECANCELED);
	assert_non_null(strstr(outcome.result.error_text, "cancelled"));
	/* sleep 30 was killed, not waited for */
	assert_true(outcome.finished_ns - watch.cancelled_ns < 25 * 1000000000ull);
	assert_int_equal(files_read_line(fixture->pidfile, pid_text, sizeof(pid_text)), 0);
	assert_true(process_ends_within((pid_t)atoi(pid_text), 20000));
	snprintf(entry, sizeof(entry), "%s/%s", fixture->cache, outcome.result.tree_id);
	assert_int_equal(access(entry, F_OK), -1);
	assert_tree_untouched(fixture, head);
	free(head);
}

/*
 * A build that hangs (make waiting forever) is killed at the request's
 * timeout, everything it started with it: the commit does not build in the
 * time given (-ENOEXEC, timed_out, the reason said), and that is not
 * remembered (issue 31: a hanging build stalled run, bisect, gate and
 * nightly forever).
 */
static void test_a_build_past_its_timeout_is_killed_and_not_remembered(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 }, again = { 0 };
	struct build_request request = {
		.tree = fixture->repo, .ref = "HEAD", .artifact = "arch/x86/boot/bzImage",
		.release_file = "include/config/kernel.release", .cache_dir = fixture->cache,
		.timeout_ms = 2500,	/* ample for make to start its sleep */
	};
	char pid_text[32], failed[PATH_MAX];

	commit_slow(fixture);
	assert_int_equal(build_start(&fixture->loop, &request, on_built, &outcome, NULL), 0);
	run_until_done(fixture, &outcome, 1);
	assert_int_equal(outcome.result.status, -ENOEXEC);
	assert_true(outcome.result.timed_out);
	if (!strstr(outcome.result.error_text, "ran past its timeout of 2500 ms and was killed"))
		fail_msg("error: %s", outcome.result.error_text);
	/* make's sleep went with it */
	assert_int_equal(files_read_line(fixture->pidfile, pid_text, sizeof(pid_text)), 0);
	assert_true(process_ends_within((pid_t)atoi(pid_text), 20000));
	snprintf(failed, sizeof(failed), "%s/%s/failed", fixture->cache, outcome.result.tree_id);
	assert_int_equal(access(failed, F_OK), -1);
	/* asked again, it is built again (and killed again), not looked up */
	assert_int_equal(build_start(&fixture->loop, &request, on_built, &again, NULL), 0);
	run_until_done(fixture, &again, 1);
	assert_true(again.result.timed_out);
	assert_false(again.result.cached);
}

static void test_cancel_right_after_start(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcome = { 0 };

	build_cancel(start(fixture, "HEAD", &outcome));
	run_until_done(fixture, &outcome, 1);
	assert_int_equal(outcome.result.status, -ECANCELED);
	assert_int_equal(count_lines(fixture->counter), 0);
	assert_tree_untouched(fixture, fixture->first_head);
}

/* ---- the build queue ----------------------------------------------------- */

static struct build *start_in(struct fixture *fixture, struct build_queue *queue, const char *ref,
			      bool background, struct outcome *outcome)
{
	struct build_request request = {
		.tree = fixture->repo, .ref = ref, .artifact = "arch/x86/boot/bzImage",
		.release_file = "include/config/kernel.release", .cache_dir = fixture->cache,
		.queue = queue, .background = background,
	};
	struct build *build = NULL;

	assert_int_equal(build_start(&fixture->loop, &request, on_built, outcome, &build), 0);
	return build;
}

/*
 * A queue of one, held by the slow build: once it works (its pid file is
 * there), `start_others` starts builds under test, and again, once each
 * started waits (or ended), while it returns true: builds join the queue in
 * the order of its calls, not of their commits' resolving. Then what they
 * look like is kept, `then` runs, and the slow build is cancelled, which
 * lets the others have their turn.
 */
struct queue_watch {
	uv_timer_t timer;
	struct fixture *fixture;
	struct build_queue queue;
	struct build *slow;
	bool (*start_others)(struct queue_watch *watch);
	void (*then)(struct queue_watch *watch);
	struct build *others[3];
	struct outcome outcomes[4];	/* [0]: the slow build's */
	size_t count;			/* builds under test in all */
	size_t started_count;		/* started so far */
	bool started, more, all_queued;
	int lines_then;
	int calls_after_cancel;
};

static void on_queue_watch(uv_timer_t *timer)
{
	struct queue_watch *watch = timer->data;
	size_t i;

	if (!watch->started) {
		if (access(watch->fixture->pidfile, R_OK) != 0)
			return;
		watch->started = true;
		watch->more = watch->start_others(watch);
		return;
	}
	for (i = 0; i < watch->started_count; i++) {
		if (watch->outcomes[i + 1].calls == 0 && !build_is_queued(watch->others[i]))
			return;	/* still resolving its commit */
	}
	if (watch->more) {
		watch->more = watch->start_others(watch);
		return;
	}
	watch->all_queued = true;
	for (i = 0; i < watch->count; i++)
		watch->all_queued = watch->all_queued && watch->outcomes[i + 1].calls == 0;
	watch->lines_then = count_lines(watch->fixture->counter);
	if (watch->then)
		watch->then(watch);
	build_cancel(watch->slow);
	uv_close((uv_handle_t *)timer, NULL);
}

static void run_queue_watch(struct fixture *fixture, struct queue_watch *watch)
{
	commit_slow(fixture);
	watch->fixture = fixture;
	assert_int_equal(build_queue_init(&fixture->loop, &watch->queue, 1), 0);
	watch->slow = start_in(fixture, &watch->queue, "HEAD", false, &watch->outcomes[0]);
	uv_timer_init(&fixture->loop, &watch->timer);
	watch->timer.data = watch;
	uv_timer_start(&watch->timer, on_queue_watch, 5, 5);
	run_until_done(fixture, watch->outcomes, watch->count + 1);
	build_queue_close(&watch->queue);
	assert_true(watch->started);
	assert_int_equal(watch->outcomes[0].result.status, -ECANCELED);
}

static bool start_kernel_1(struct queue_watch *watch)
{
	watch->others[0] = start_in(watch->fixture, &watch->queue, "HEAD~1", false,
				    &watch->outcomes[1]);
	watch->started_count = 1;
	return false;
}

/* A second build waits, having built nothing, while the first works; it
 * builds once the first is done (cancelled here). */
static void test_a_queue_holds_builds_beyond_its_limit(void **state)
{
	struct fixture *fixture = *state;
	struct queue_watch watch = { .start_others = start_kernel_1, .count = 1 };

	run_queue_watch(fixture, &watch);
	assert_true(watch.all_queued);
	assert_int_equal(watch.lines_then, 0);
	assert_int_equal(watch.outcomes[1].result.status, 0);
	assert_file_line(watch.outcomes[1].result.image, "image-1");
	assert_int_equal(count_lines(fixture->counter), 1);
}

/* Queued one after the other: kernel 1 in the background, kernel 2 not,
 * kernel 3 in the background and then prioritized (HEAD is the slow one). */
static bool start_mixed(struct queue_watch *watch)
{
	static const char *const refs[] = { "HEAD~3", "HEAD~2", "HEAD~1" };
	size_t n = watch->started_count;

	watch->others[n] = start_in(watch->fixture, &watch->queue, refs[n], n != 1,
				    &watch->outcomes[n + 1]);
	if (n == 2)
		build_prioritize(watch->others[n]);
	watch->started_count = n + 1;
	return watch->started_count < 3;
}

/* Background builds wait behind every other, in the order they came; one
 * prioritized is an ordinary build from then on: 2, then 3, then 1. */
static void test_a_queue_serves_background_builds_last(void **state)
{
	struct fixture *fixture = *state;
	struct queue_watch watch = { .start_others = start_mixed, .count = 3 };
	size_t i;

	commit_good(fixture, 2);
	commit_good(fixture, 3);
	run_queue_watch(fixture, &watch);
	assert_true(watch.all_queued);
	for (i = 1; i <= 3; i++)
		assert_int_equal(watch.outcomes[i].result.status, 0);
	assert_file_line(watch.outcomes[2].result.image, "image-2");
	assert_true(watch.outcomes[2].finished_ns < watch.outcomes[3].finished_ns);
	assert_true(watch.outcomes[3].finished_ns < watch.outcomes[1].finished_ns);
}

static void cancel_the_waiting_one(struct queue_watch *watch)
{
	build_cancel(watch->others[0]);
	watch->calls_after_cancel = watch->outcomes[1].calls;
}

/* A build cancelled while it waits calls back from the loop, not from
 * build_cancel, and never builds. */
static void test_a_queued_build_cancelled_never_builds(void **state)
{
	struct fixture *fixture = *state;
	struct queue_watch watch = { .start_others = start_kernel_1, .then = cancel_the_waiting_one,
				     .count = 1 };

	run_queue_watch(fixture, &watch);
	assert_true(watch.all_queued);
	assert_int_equal(watch.calls_after_cancel, 0);
	assert_int_equal(watch.outcomes[1].result.status, -ECANCELED);
	assert_true(watch.outcomes[1].finished_ns < watch.outcomes[0].finished_ns);
	assert_int_equal(count_lines(fixture->counter), 0);
}

/* Two builds of one commit in a queue of one: the one waiting while the
 * other built it finds it in the cache when its turn comes. Which one waits
 * is the one whose commit resolved second (two git processes racing), so
 * the test asks for one of each, not for an order. */
static void test_a_queued_build_finds_what_another_stored(void **state)
{
	struct fixture *fixture = *state;
	struct outcome outcomes[2] = { { 0 } };
	struct build_queue queue;

	assert_int_equal(build_queue_init(&fixture->loop, &queue, 1), 0);
	start_in(fixture, &queue, "HEAD", false, &outcomes[0]);
	start_in(fixture, &queue, "HEAD", false, &outcomes[1]);
	run_until_done(fixture, outcomes, 2);
	build_queue_close(&queue);
	assert_int_equal(outcomes[0].result.status, 0);
	assert_int_equal(outcomes[1].result.status, 0);
	assert_true(outcomes[0].result.cached != outcomes[1].result.cached);
	assert_string_equal(outcomes[1].result.image, outcomes[0].result.image);
	assert_int_equal(count_lines(fixture->counter), 1);
}

static void test_kernel_build_commit_waits_for_build(void **state)
{
	struct fixture *fixture = *state;
	struct kernel_build built, cached;
	char error[2048], expected[PATH_MAX], *tree;

	tree = git_line(fixture, "rev-parse", "HEAD^{tree}", NULL);
	assert_int_equal(kernel_build_commit(fixture->repo, "HEAD", fixture->cache, &built, error,
					     sizeof(error)), 0);
	assert_string_equal(built.commit, fixture->first_head);
	snprintf(expected, sizeof(expected), "%s/%s/image", fixture->cache, tree);
	assert_string_equal(built.image, expected);
	assert_string_equal(built.release, "9.9.1-test");
	assert_int_equal(kernel_build_commit(fixture->repo, "HEAD", fixture->cache, &cached, error,
					     sizeof(error)), 0);
	assert_string_equal(cached.image, built.image);
	assert_int_equal(count_lines(fixture->counter), 1);
	assert_int_equal(kernel_build_commit(fixture->repo, "nope", fixture->cache, &built, error,
					     sizeof(error)), -ENOENT);
	assert_non_null(strstr(error, "nope"));
	assert_int_equal(kernel_build_commit(fixture->repo, "--all", fixture->cache, &built, error,
					     sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "may not start with '-'"));
	assert_tree_untouched(fixture, fixture->first_head);
	free(tree);
}

static void restore(const char *name, const char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
}

static void test_default_cache_follows_xdg(void **state)
{
	char *xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char path[PATH_MAX];

	(void)state;
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/home/someone", 1);
	assert_int_equal(build_default_cache(path, sizeof(path)), 0);
	assert_string_equal(path, "/x/cache/rackbisect/kernels");
	unsetenv("XDG_CACHE_HOME");
	assert_int_equal(build_default_cache(path, sizeof(path)), 0);
	assert_string_equal(path, "/home/someone/.cache/rackbisect/kernels");
	assert_int_equal(kernel_build_default_cache(path, sizeof(path)), 0);
	assert_string_equal(path, "/home/someone/.cache/rackbisect/kernels");
	assert_int_equal(build_default_cache(path, 8), -ENAMETOOLONG);
	unsetenv("HOME");
	assert_int_equal(build_default_cache(path, sizeof(path)), -ENOENT);
	restore("XDG_CACHE_HOME", xdg);
	restore("HOME", home);
	free(xdg);
	free(home);
}


/* ---- kbuild: a real tree's make interface -------------------------------- */

#define KBUILD_RELEASE "6.1.0-kbuild-test"

/* The test tree of tests/data/kbuild-tree as the repository's next commit. */
static void commit_kbuild_tree(struct fixture *fixture)
{
	char *copy[] = { "cp", "-R", "tests/data/kbuild-tree/.", fixture->repo, NULL };
	char makefile[PATH_MAX];

	snprintf(makefile, sizeof(makefile), "%s/Makefile", fixture->repo);
	unlink(makefile);
	assert_int_equal(subprocess_run(copy, NULL, NULL), 0);
	git(fixture, "add", "-A", NULL);
	git(fixture, "commit", "-q", "-m", "kbuild tree", NULL);
}

/* A fragment file of the fixture's, outside the tree. */
static void write_fragment(struct fixture *fixture, char *path, const char *text)
{
	snprintf(path, PATH_MAX, "%s/fragment.config", fixture->dir);
	write_file(path, text);
}

static int start_kbuild(struct fixture *fixture, const char *ref, char *const *make_words,
			const struct kbuild_recipe *recipe, struct outcome *outcome)
{
	struct build_request request = {
		.tree = fixture->repo, .ref = ref, .build_argv = make_words,
		.artifact = "arch/x86/boot/bzImage",
		.release_file = "include/config/kernel.release",
		.cache_dir = fixture->cache, .kbuild = recipe,
	};

	return build_start(&fixture->loop, &request, on_built, outcome, NULL);
}

static void kbuild_and_wait(struct fixture *fixture, const char *ref, char *const *make_words,
			    const struct kbuild_recipe *recipe, struct outcome *outcome)
{
	memset(outcome, 0, sizeof(*outcome));
	assert_int_equal(start_kbuild(fixture, ref, make_words, recipe, outcome), 0);
	run_until_done(fixture, outcome, 1);
}

static const char ath9k_fragment[] =
	"# what the job needs\n"
	"CONFIG_DEBUG_FS=y\nCONFIG_WLAN=y\nCONFIG_WLAN_VENDOR_ATH=y\nCONFIG_CFG80211=m\n"
	"CONFIG_MAC80211=m\nCONFIG_MAC80211_DEBUGFS=y\nCONFIG_ATH9K=m\nCONFIG_ATH9K_PCI=y\n"
	"CONFIG_ATH9K_DEBUGFS=y\n\n# CONFIG_MAC80211_HWSIM is not set\n";

/* The whole recipe: configured with the fragment, built out of tree (the
 * worktree stays as git checked it out), the modules packed by release. */
static void test_kbuild_builds_out_of_tree_with_its_modules(void **state)
{
	struct fixture *fixture = *state;
	struct kbuild_recipe recipe = { .config_target = "x86_64_defconfig", .modules = true };
	struct outcome outcome;
	char fragment[PATH_MAX], worktree[PATH_MAX], path[PATH_MAX + 64], *listing = NULL;
	char *status = NULL, *tree;
	char *list[] = { "tar", "-tzf", outcome.result.modules, NULL };
	char *git_status[] = { "git", "-C", worktree, "status", "--porcelain", NULL };

	commit_kbuild_tree(fixture);
	write_fragment(fixture, fragment, ath9k_fragment);
	recipe.fragment = fragment;
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &outcome);
	if (outcome.result.status)
		fail_msg("%s", outcome.error_text);
	assert_string_equal(outcome.result.release, KBUILD_RELEASE);
	assert_file_line(outcome.result.image, "Linux " KBUILD_RELEASE);
	assert_true(text_contains(outcome.result.image, "CONFIG_ATH9K_PCI=y"));
	/* the entry is the tree's, told apart by the recipe */
	tree = git_line(fixture, "rev-parse", "HEAD^{tree}", NULL);
	snprintf(path, sizeof(path), "%s/%s-", fixture->cache, tree);
	assert_memory_equal(outcome.result.image, path, strlen(path));
	assert_int_equal(strlen(outcome.result.image), strlen(path) + 16 + strlen("/image"));
	free(tree);
	/* modules: the release's directory, packed without the install root */
	assert_int_equal(subprocess_run(list, NULL, &listing), 0);
	assert_non_null(strstr(listing, KBUILD_RELEASE "/kernel/drivers/net/wireless/ath/ath9k/ath9k.ko"));
	assert_non_null(strstr(listing, KBUILD_RELEASE "/kernel/net/mac80211/mac80211.ko"));
	assert_null(strstr(listing, "mac80211_hwsim"));		/* the fragment said not set */
	assert_null(strstr(listing, "modules-root"));
	free(listing);
	snprintf(path, sizeof(path), "%s", outcome.result.image);
	strcpy(strrchr(path, '/'), "/modules-root");
	assert_int_equal(access(path, F_OK), -1);
	/* every step is in the log, and the sources stayed clean */
	assert_true(text_contains(outcome.result.log, "# rackbisect: configure: make O="));
	assert_true(text_contains(outcome.result.log, "# rackbisect: olddefconfig: make O="));
	assert_true(text_contains(outcome.result.log, "# rackbisect: modules_install: make O="));
	assert_true(text_contains(outcome.result.log, "INSTALL_MOD_STRIP=1 modules_install"));
	worktree_of(&outcome, worktree, sizeof(worktree));
	assert_int_equal(subprocess_run(git_status, NULL, &status), 0);
	assert_string_equal(status, "");
	free(status);
	snprintf(path, sizeof(path), "# rackbisect: fragment: %s appended to ", fragment);
	assert_true(text_contains(outcome.result.log, path));
	snprintf(path, sizeof(path), "%s.out/.config", worktree);
	assert_true(text_contains(path, "\nCONFIG_ATH9K=m\n"));
}

/* A fragment line olddefconfig drops: the kernel would not have what the
 * job tests, so the commit does not build; remembered like any failure. */
static void test_kbuild_fragment_line_dropped_does_not_build(void **state)
{
	struct fixture *fixture = *state;
	struct kbuild_recipe recipe = { .config_target = "x86_64_defconfig" };
	struct outcome first, second;
	char fragment[PATH_MAX];

	commit_kbuild_tree(fixture);
	write_fragment(fixture, fragment, "# CONFIG_PCI is not set\nCONFIG_WLAN=y\n"
			"CONFIG_WLAN_VENDOR_ATH=y\nCONFIG_MAC80211=m\nCONFIG_ATH9K=m\n"
			"CONFIG_ATH9K_PCI=y\n");
	recipe.fragment = fragment;
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &first);
	assert_int_equal(first.result.status, -ENOEXEC);
	assert_non_null(strstr(first.error_text, "'CONFIG_ATH9K_PCI=y'"));
	assert_non_null(strstr(first.error_text, "left CONFIG_ATH9K_PCI not set"));
	assert_true(text_contains(first.result.log, "CONFIG_ATH9K_PCI=y"));
	assert_false(text_contains(first.result.log, "# rackbisect: make: "));	/* never built */
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &second);
	assert_int_equal(second.result.status, -ENOEXEC);
	assert_true(second.result.cached);
}

/* The fragment's content, the make words and the targets name the entry:
 * change one and the tree builds again; the same again is cached. */
static void test_kbuild_recipe_names_its_cache_entry(void **state)
{
	struct fixture *fixture = *state;
	char *const modules_only[] = { "modules", NULL };
	char *const llvm[] = { "make", "LLVM=1", NULL };
	struct kbuild_recipe recipe = { .config_target = "x86_64_defconfig" };
	struct outcome first, again, changed, words, targets;
	char fragment[PATH_MAX];

	commit_kbuild_tree(fixture);
	write_fragment(fixture, fragment, "CONFIG_MAC80211=m\n");
	recipe.fragment = fragment;
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &first);
	assert_int_equal(first.result.status, 0);
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &again);
	assert_true(again.result.cached);
	assert_string_equal(again.result.image, first.result.image);
	assert_string_equal(again.result.modules, "");		/* no modules asked for */
	write_fragment(fixture, fragment, "CONFIG_MAC80211=y\n");
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &changed);
	assert_int_equal(changed.result.status, 0);
	assert_false(changed.result.cached);
	assert_string_not_equal(changed.result.image, first.result.image);
	assert_true(text_contains(changed.result.image, "CONFIG_MAC80211=y"));
	kbuild_and_wait(fixture, "HEAD", llvm, &recipe, &words);
	assert_false(words.result.cached);
	assert_true(text_contains(words.result.log, "make LLVM=1 O="));
	recipe.targets = modules_only;	/* no image: the commit does not build */
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &targets);
	assert_int_equal(targets.result.status, -ENOEXEC);
	assert_non_null(strstr(targets.error_text, "no image"));
}

/* ccache in PATH: the compiler is "ccache gcc", unless the words choose one. */
static void test_kbuild_uses_ccache_when_in_path(void **state)
{
	struct fixture *fixture = *state;
	char *const clang[] = { "make", "CC=clang", NULL };
	struct kbuild_recipe recipe = { .config_target = "x86_64_defconfig" };
	struct outcome with, chosen;
	char bin[PATH_MAX], ccache[PATH_MAX + 8], path[8192], *saved = getenv("PATH");

	commit_kbuild_tree(fixture);
	snprintf(bin, sizeof(bin), "%s/bin", fixture->dir);
	assert_int_equal(path_make_dirs(bin), 0);
	snprintf(ccache, sizeof(ccache), "%s/ccache", bin);
	write_file(ccache, "#!/bin/sh\nexec \"$@\"\n");
	assert_int_equal(chmod(ccache, 0755), 0);
	snprintf(path, sizeof(path), "%s:%s", bin, saved);
	saved = strdup(saved);
	setenv("PATH", path, 1);
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &with);
	kbuild_and_wait(fixture, "HEAD", clang, &recipe, &chosen);
	setenv("PATH", saved, 1);
	free(saved);
	assert_int_equal(with.result.status, 0);
	assert_true(text_contains(with.result.log, "-j"));
	assert_true(text_contains(with.result.log, " CC=ccache gcc bzImage modules\n"));
	assert_true(text_contains(with.result.log, "[ccache gcc]"));	/* make saw it as one word */
	assert_int_equal(chosen.result.status, 0);
	assert_false(text_contains(chosen.result.log, "ccache"));
	assert_true(text_contains(chosen.result.log, "[clang]"));
}

/* One commit after another in the slot: the same build directory, kept. */
static void test_kbuild_slot_keeps_its_build_directory(void **state)
{
	struct fixture *fixture = *state;
	struct kbuild_recipe recipe = { .config_target = "x86_64_defconfig", .modules = true };
	struct outcome first, second;
	char worktree_first[PATH_MAX], worktree_second[PATH_MAX], marker[PATH_MAX + 32];
	char version[PATH_MAX];

	commit_kbuild_tree(fixture);
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &first);
	assert_int_equal(first.result.status, 0);
	worktree_of(&first, worktree_first, sizeof(worktree_first));
	snprintf(marker, sizeof(marker), "%s.out/left-by-the-first-build", worktree_first);
	write_file(marker, "x\n");
	snprintf(version, sizeof(version), "%s/localversion", fixture->repo);
	write_file(version, "second\n");
	git(fixture, "add", "-A", NULL);
	git(fixture, "commit", "-q", "-m", "another tree", NULL);
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &second);
	assert_int_equal(second.result.status, 0);
	assert_false(second.result.cached);
	worktree_of(&second, worktree_second, sizeof(worktree_second));
	assert_string_equal(worktree_second, worktree_first);
	assert_int_equal(access(marker, F_OK), 0);
	assert_string_equal(second.result.release, KBUILD_RELEASE);
	assert_non_null(strstr(worktree_first, "/work/slot-"));
}

/* modules.tar.gz is summed beside the image: damaged, the entry is built
 * again, and its modules are whole once more. */
static void test_kbuild_corrupt_modules_build_again(void **state)
{
	struct fixture *fixture = *state;
	struct kbuild_recipe recipe = { .config_target = "x86_64_defconfig", .modules = true };
	struct outcome first, again;
	char checksums[PATH_MAX], *list[] = { "tar", "-tzf", again.result.modules, NULL };

	commit_kbuild_tree(fixture);
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &first);
	assert_int_equal(first.result.status, 0);
	entry_file(&first, "checksums", checksums, sizeof(checksums));
	assert_true(text_contains(checksums, " modules.tar.gz\n"));
	flip_byte(first.result.modules, 100);
	kbuild_and_wait(fixture, "HEAD", NULL, &recipe, &again);
	assert_int_equal(again.result.status, 0);
	assert_false(again.result.cached);
	assert_non_null(strstr(again.result.corrupt_entry, "/corrupt/"));
	assert_string_equal(again.result.modules, first.result.modules);
	assert_int_equal(subprocess_run(list, NULL, NULL), 0);
}

static void test_kbuild_refuses_bad_recipes(void **state)
{
	struct fixture *fixture = *state;
	struct kbuild_recipe recipe = { .config_target = "x86_64_defconfig",
					.fragment = "relative.config" };
	char *const none[] = { NULL };
	struct outcome outcome = { 0 };
	char missing[PATH_MAX];

	assert_int_equal(start_kbuild(fixture, "HEAD", NULL, &recipe, &outcome), -EINVAL);
	recipe.fragment = NULL;
	recipe.config_target = "-defconfig";
	assert_int_equal(start_kbuild(fixture, "HEAD", NULL, &recipe, &outcome), -EINVAL);
	recipe.config_target = "x86_64_defconfig";
	recipe.targets = none;
	assert_int_equal(start_kbuild(fixture, "HEAD", NULL, &recipe, &outcome), -EINVAL);
	recipe.targets = NULL;
	snprintf(missing, sizeof(missing), "%s/no-such.config", fixture->dir);
	recipe.fragment = missing;
	assert_int_equal(start_kbuild(fixture, "HEAD", NULL, &recipe, &outcome), -ENOENT);
	assert_int_equal(outcome.calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_fills_the_result, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_request_is_cached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commits_with_the_same_tree_share_a_build, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_build_is_remembered_with_its_log, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_build_without_image_does_not_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_ref_is_enoent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_requests_are_einval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_older_commit_leaves_the_checkout_alone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_commits_build_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_busy_slot_is_passed_by, setup, teardown),
		cmocka_unit_test_setup_teardown(test_builds_one_after_another_reuse_a_slot, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_slot_never_lends_an_earlier_image, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_broken_slot_is_made_anew, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_tree_twice_at_once_builds_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_tree_another_process_builds_is_waited_for, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_build_waiting_for_the_lock_can_be_cancelled, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_flipped_byte_in_a_cached_image_builds_again,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_truncated_cached_image_builds_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_an_entry_without_checksums_is_still_a_hit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_an_unchanged_entry_is_a_hit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_build_command_is_not_remembered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_build_killed_by_a_signal_is_not_remembered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_build_gets_no_secret_and_no_descriptor,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_build_past_its_timeout_is_killed_and_not_remembered,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_during_slow_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_right_after_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_queue_holds_builds_beyond_its_limit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_queue_serves_background_builds_last, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_queued_build_cancelled_never_builds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_queued_build_finds_what_another_stored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kernel_build_commit_waits_for_build, setup, teardown),
		cmocka_unit_test(test_default_cache_follows_xdg),
		cmocka_unit_test_setup_teardown(test_kbuild_builds_out_of_tree_with_its_modules, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kbuild_fragment_line_dropped_does_not_build, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kbuild_recipe_names_its_cache_entry, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kbuild_uses_ccache_when_in_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kbuild_slot_keeps_its_build_directory, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kbuild_corrupt_modules_build_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kbuild_refuses_bad_recipes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
