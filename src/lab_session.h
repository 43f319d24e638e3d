/*
 * lab_session.h - what a command that drives the lab opens first: the lab
 * and job files, the state directory and its database, the event loop, the
 * log, the job's boards (consoles followed), the lab's coordinator lock and
 * the run environment every run shares. `run`, `test` and `bisect` open one
 * the same way, so a lab is always locked and cleaned up the same way.
 *
 *   struct lab_session session;
 *   rc = lab_session_open(&session, &options);   // prints what is wrong
 *   ... build_start(&session.loop, ...), scheduler_start(...) ...
 *   uv_run(&session.loop, UV_RUN_DEFAULT);
 *   lab_session_close(&session);                 // also after a failed open
 */
#ifndef RB_LAB_SESSION_H
#define RB_LAB_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <uv.h>

#include "board.h"
#include "build.h"
#include "cli.h"
#include "log.h"
#include "run.h"
#include "scheduler.h"
#include "store.h"

struct lab_session_options {
	struct cli_globals *globals;
	const char *job_path;
	/* --boards: names, chips or tags, comma-separated; NULL: all the job selects */
	const char *board_selector;
	/* `test` runs inside the tree git bisect checked out */
	bool tree_defaults_to_current_directory;
};

struct lab_session {
	struct lab *lab;
	struct job *job;
	struct lab_state state;
	struct store *store;
	uv_loop_t loop;
	struct log log;
	struct board_set boards;
	struct board **selected;	/* the job's boards, after --boards */
	size_t selected_count;
	struct run_environment environment;
	/* every scheduler on the session's boards: several gates may run at
	 * once (nightly), one run per board at a time */
	struct scheduler_pool schedulers;
	char tree[PATH_MAX];		/* the kernel tree, absolute */
	char database[PATH_MAX];
	char runs_dir[PATH_MAX];
	char workload_dir[PATH_MAX];
	char cache_dir[PATH_MAX];	/* built kernels */
	/* every build of the session waits here for a place: kernel builds
	 * take the coordinator's CPU, and more at once than it has only slows
	 * each (kernel: parallel_builds, default one per CPU) */
	struct build_queue builds;
	int lock_fd;
	bool loop_ready;
	/* lab_session_exit: the code to end with, once LAVA has answered */
	int exit_code;
	bool exiting;
	uv_timer_t exit_timer;
};

/* 0, or a CLI exit code after printing what is wrong (CLI_EXIT_USAGE for a
 * bad file, tree or selector; CLI_EXIT_INFRA when the state or the lock
 * cannot be had). Runs a killed coordinator left unfinished are closed as
 * INFRA once the lock is held. */
int lab_session_open(struct lab_session *session, const struct lab_session_options *options);
/* Closes the boards, runs the loop until every handle is closed, frees all. */
void lab_session_close(struct lab_session *session);

/*
 * Ends the process now (a stop signal: every result so far is stored, and
 * the next command closes what was in flight, as after a crash), except for
 * what only this process can end: a LAVA lab's jobs in flight are canceled
 * first, waiting at most a few seconds for LAVA's answers on the loop (call
 * from a loop callback). A second call ends at once. Never returns when
 * there is nothing to wait for.
 */
void lab_session_exit(struct lab_session *session, int code);

/* The kernel build request for `ref` of `tree` (NULL: the session's tree), per its job,
 * in the session's build queue (not in the background). */
void lab_session_build_request(struct lab_session *session, const char *tree,
			       const char *ref, struct build_request *request);

/* Stores a finished build (built or failed) and sets *build_id; a store
 * error is logged, not fatal: the runs still run, with build id 0. A
 * cache entry found corrupt on the way (build_result.corrupt_entry) is
 * logged as event cache-corrupt. */
void lab_session_record_build(struct lab_session *session, const struct build_result *build,
			      int64_t *build_id);

#endif
