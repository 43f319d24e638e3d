/* lab_session.c - open the lab, job, state, boards and lock a command drives. */
#include "lab_session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "lava/client.h"
#include "path.h"

#define CANCEL_WAIT_MS 10000	/* LAVA's answers to a stop's cancels */

static int choose_tree(struct lab_session *session, const struct lab_session_options *options)
{
	const char *tree = options->globals->tree ? options->globals->tree : session->job->kernel.tree;

	if (!tree && options->tree_defaults_to_current_directory)
		tree = ".";
	if (!tree) {
		cli_error("job %s names no kernel tree: give --tree DIR", session->job->path);
		return CLI_EXIT_USAGE;
	}
	if (!realpath(tree, session->tree)) {
		cli_error("kernel tree %s: %s (give --tree DIR, a git checkout)", tree, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* A board matches the selector when one of its items is the board's name, chip or a tag. */
static bool board_matches(const struct lab_board *board, const char *selector)
{
	char *copy = strdup(selector), *save = NULL, *item;
	bool match = false;
	size_t t;

	for (item = copy ? strtok_r(copy, ",", &save) : NULL; item && !match;
	     item = strtok_r(NULL, ",", &save)) {
		match = strcmp(item, board->name) == 0 || strcmp(item, board->chip) == 0;
		for (t = 0; t < board->tag_count && !match; t++)
			match = strcmp(item, board->tags[t]) == 0;
	}
	free(copy);
	return match;
}

static int select_boards(struct lab_session *session, const char *selector)
{
	size_t i;

	session->selected = calloc(session->boards.count + 1, sizeof(*session->selected));
	if (!session->selected)
		return -ENOMEM;
	for (i = 0; i < session->boards.count; i++) {
		struct board *board = &session->boards.boards[i];

		if (!job_selects_board(session->job, board->config))
			continue;
		if (selector && !board_matches(board->config, selector))
			continue;
		session->selected[session->selected_count++] = board;
		if (board_follow_console(board) != 0)
			log_event(&session->log, LOG_NOTICE, board->name, 0, "console-lost",
				  "cannot start following the console");
	}
	if (session->selected_count == 0) {
		cli_error("no board of lab %s (%s) is selected by job %s%s%s", session->lab->name,
			  session->lab->path, session->job->path, selector ? " and --boards " : "",
			  selector ? selector : "");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* One coordinator per lab at a time: two would power-cycle each other's boards. */
static int lock_lab(struct lab_session *session)
{
	char path[PATH_MAX];

	if (path_make_dirs(session->state.dir) ||
	    path_format(path, sizeof(path), "%s/coordinator.lock", session->state.dir))
		return CLI_EXIT_INFRA;
	session->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (session->lock_fd < 0 || flock(session->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		cli_error("another rackbisect is using lab %s (lock %s held); wait for it to finish",
			  session->lab->name, path);
		return CLI_EXIT_INFRA;
	}
	return 0;
}

/* Runs a killed coordinator left behind on this lab's boards never got a
 * result: they are closed as INFRA (never as evidence), nothing is lost.
 * Their boards may still run the kernel under test, or be hung by it: they
 * are held offline in the store, so a scheduler health-checks each (a power
 * cycle onto its fallback kernel) before giving it work. */
static void close_interrupted_runs(struct lab_session *session)
{
	struct store_run_list list;
	size_t i;

	if (store_runs_unfinished(session->store, &list) != 0)
		return;
	for (i = 0; i < list.count; i++) {
		const struct store_run *run = &list.runs[i];

		if (run->board && !lab_find_board(session->lab, run->board))
			continue;
		if (store_run_finish(session->store, run->id, &(struct store_result){
			    .outcome = RUN_INFRA,
			    .cause = "interrupted: the coordinator stopped before the run finished" }) == 0)
			log_event(&session->log, LOG_NOTICE, run->board, run->id, "interrupted",
				  "closed as INFRA: its coordinator stopped mid-run");
		if (run->board && store_board_set_offline(session->store, run->board, true) == 0)
			log_event(&session->log, LOG_NOTICE, run->board, 0, "offline",
				  "left mid-run by a stopped coordinator: power cycled onto its "
				  "fallback kernel and checked before its next run");
	}
	store_run_list_release(&list);
}

/* $RACKBISECT_KERNEL_CACHE, else <state>/kernels. One cache may serve
 * several state directories (a nightly's lab and a gate's, or the tests of
 * one `make check`): entries are keyed by content and appear whole, by
 * rename, so coordinators building the same commit at once are safe. */
static int kernel_cache_dir(const char *state_dir, char *out, size_t len)
{
	const char *chosen = getenv("RACKBISECT_KERNEL_CACHE");
	char cwd[PATH_MAX];

	if (!chosen || !*chosen)
		return path_format(out, len, "%s/kernels", state_dir);
	if (chosen[0] == '/')
		return path_format(out, len, "%s", chosen);
	/* builds hand it to git in their worktrees: it must not depend on a cwd */
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return path_format(out, len, "%s/%s", cwd, chosen);
}

static int find_paths(struct lab_session *session, const struct lab_session_options *options)
{
	if (cli_state(session->lab, options->globals, &session->state, session->database,
		      sizeof(session->database)))
		return CLI_EXIT_INFRA;
	if (cli_workload_dir(session->workload_dir, sizeof(session->workload_dir))) {
		cli_error("cannot find drivers/workload beside this program");
		return CLI_EXIT_USAGE;
	}
	if (path_format(session->runs_dir, sizeof(session->runs_dir), "%s/runs", session->state.base) ||
	    kernel_cache_dir(session->state.base, session->cache_dir, sizeof(session->cache_dir)))
		return CLI_EXIT_USAGE;
	return 0;
}

static int open_store(struct lab_session *session)
{
	int rc = store_open(session->database, &session->store);

	if (!rc)	/* another lab may share the state: its runs and boards are its own */
		rc = store_set_lab(session->store, session->lab->name);
	if (rc) {
		cli_error("%s", session->store ? store_error_message(session->store) : strerror(-rc));
		return CLI_EXIT_INFRA;
	}
	return 0;
}

int lab_session_open(struct lab_session *session, const struct lab_session_options *options)
{
	char error[1024];
	int rc;

	memset(session, 0, sizeof(*session));
	session->lock_fd = -1;
	if (!(session->lab = cli_load_lab(options->globals)) ||
	    !(session->job = cli_load_job(options->job_path)))
		return CLI_EXIT_USAGE;
	if ((rc = choose_tree(session, options)) || (rc = find_paths(session, options)) ||
	    (rc = open_store(session)))
		return rc;
	uv_loop_init(&session->loop);
	build_queue_init(&session->loop, &session->builds, session->job->kernel.parallel_builds);
	session->loop_ready = true;
	log_init(&session->log, stderr, options->globals->verbose, session->store);
	rc = board_set_open(&(struct board_set_options){ &session->loop, session->lab,
							 options->globals->state, &session->log, false },
			    &session->boards, error, sizeof(error));
	if (rc) {
		fprintf(stderr, "rackbisect: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	if ((rc = select_boards(session, options->board_selector)))
		return rc;
	/* only under the lock: another live coordinator's runs are not leftovers */
	if ((rc = lock_lab(session)))
		return rc;
	close_interrupted_runs(session);
	session->environment = (struct run_environment){
		.loop = &session->loop, .store = session->store, .log = &session->log,
		.job = session->job, .job_name = session->job->name,
		.runs_dir = session->runs_dir, .workload_dir = session->workload_dir,
	};
	return 0;
}

void lab_session_close(struct lab_session *session)
{
	if (session->boards.boards)
		board_set_close(&session->boards);
	if (session->loop_ready) {
		/* builds still waiting (a bisection's builds ahead, when it
		 * stopped) end on the queue's timer: before it closes */
		while (build_queue_cancel_waiting(&session->builds) && uv_run(&session->loop, UV_RUN_ONCE))
			;
		build_queue_close(&session->builds);
		uv_run(&session->loop, UV_RUN_DEFAULT);
		uv_loop_close(&session->loop);
	}
	free(session->selected);
	store_close(session->store);
	job_free(session->job);
	lab_free(session->lab);
	if (session->lock_fd >= 0)
		close(session->lock_fd);
	memset(session, 0, sizeof(*session));
	session->lock_fd = -1;
}

static void exit_now(int code)
{
	fflush(NULL);
	_exit(code);
}

static void on_cancels_answered(void *data)
{
	struct lab_session *session = data;

	log_event(&session->log, LOG_NOTICE, NULL, 0, "lava-canceled", "LAVA took the cancels");
	exit_now(session->exit_code);
}

static void on_exit_timer(uv_timer_t *timer)
{
	struct lab_session *session = timer->data;

	log_event(&session->log, LOG_NOTICE, NULL, 0, "lava-canceled", "LAVA did not answer every "
		  "cancel within %d s: see its queue for this coordinator's jobs",
		  CANCEL_WAIT_MS / 1000);
	exit_now(session->exit_code);
}

void lab_session_exit(struct lab_session *session, int code)
{
	struct lava_client *lava = session->boards.lava_client;
	size_t jobs = lava ? lava_client_jobs_in_flight(lava) : 0;

	if (session->exiting || !jobs || !session->loop_ready)
		exit_now(session->exiting ? session->exit_code : code);
	session->exiting = true;
	session->exit_code = code;
	log_event(&session->log, LOG_NOTICE, NULL, 0, "lava-cancel", "canceling %zu LAVA job%s "
		  "before stopping", jobs, jobs == 1 ? "" : "s");
	if (lava_client_cancel_all(lava, on_cancels_answered, session) == 0)
		exit_now(code);
	uv_timer_init(&session->loop, &session->exit_timer);
	session->exit_timer.data = session;
	uv_timer_start(&session->exit_timer, on_exit_timer, CANCEL_WAIT_MS, 0);
}

void lab_session_build_request(struct lab_session *session, const char *tree,
			       const char *ref, struct build_request *request)
{
	*request = (struct build_request){
		.tree = tree ? tree : session->tree,
		.ref = ref,
		.build_argv = session->job->kernel.build_argv,
		.artifact = session->job->kernel.artifact,
		.release_file = session->job->kernel.release,
		.cache_dir = session->cache_dir,
		.kbuild = session->job->kernel.kbuild.enabled ? &session->job->kernel.kbuild.recipe
							      : NULL,
		.queue = &session->builds,
		.timeout_ms = (uint64_t)session->job->kernel.build_timeout_seconds * 1000,
	};
}

void lab_session_record_build(struct lab_session *session, const struct build_result *build,
			      int64_t *build_id)
{
	/* the cache's copy was damaged on disk: built again rather than
	 * booted, and said, since the disk under the cache may be failing */
	if (build->corrupt_entry[0])
		log_event(&session->log, LOG_NOTICE, NULL, 0, "cache-corrupt",
			  "%s: its cached build did not match its checksums; moved to %s and built "
			  "again", build->commit, build->corrupt_entry);
	if (store_build_record(session->store, &(struct store_build){
		    .commit = build->commit, .tree = build->tree_id,
		    .status = build->status == 0 ? BUILD_BUILT : BUILD_FAILED,
		    .release = build->status == 0 ? build->release : NULL,
		    .artifact_path = build->status == 0 ? build->image : NULL,
		    .log_path = build->log }, build_id) != 0)
		log_event(&session->log, LOG_NOTICE, NULL, 0, "store-error", "%s",
			  store_error_message(session->store));
}
