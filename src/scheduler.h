/*
 * scheduler.h - which run goes on which board, for one built kernel: every
 * selected board runs every workload of the job, each repeat, one run at a
 * time per board and all boards at once.
 *
 * INFRA is never evidence about a kernel, so a run that ends INFRA is run
 * again on another board of the same chip (the same board when it has no
 * twin), at most max_attempts times in all. A board with offline_after
 * INFRA in a row, or one that did not come back from a power cycle, goes
 * offline until a health check (run.h) passes; boards the store already
 * holds offline are checked before they are used.
 *
 * Schedulers may share boards (a nightly's gates and bisections run at once
 * on one lab): give them the same pool. A board is one run at a time
 * whoever asks; when a run ends, the other schedulers of the pool are
 * offered its board before the one that ran, so no gate waits for another
 * to finish.
 *
 *   struct scheduler_options options = { ... };
 *   struct scheduler *scheduler;
 *   scheduler_start(&options, on_done, data, &scheduler);
 *   uv_run(loop, UV_RUN_DEFAULT);   // on_done runs once every cell is decided
 *   ... scheduler_cells(scheduler, &count) ...
 *   scheduler_free(scheduler);
 */
#ifndef RB_SCHEDULER_H
#define RB_SCHEDULER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "run.h"

/* One run the user asked for: a workload repeat meant for a home board. */
struct scheduler_cell {
	struct board *home;
	const struct job_workload *workload;
	unsigned int repeat_index;
	/* filled in as it runs */
	struct board *target;		/* where it runs (next) */
	unsigned int attempts;
	bool running;
	bool done;
	enum verdict_outcome outcome;	/* of the last attempt */
	char summary[1024];
	int64_t run_id;			/* of the last attempt */
	char ran_on[64];		/* board of the last attempt */
};

/* Schedulers sharing boards; zero-initialised, outlives them all. */
struct scheduler_pool {
	struct scheduler *first;
	bool waking;
};

struct scheduler_options {
	const struct run_environment *environment;
	struct board **boards;		/* the job's boards */
	size_t board_count;
	struct run_spec spec;		/* commit, build; workload and repeat are the cells' */
	unsigned int repeat_factor;	/* --repeat: each job repeat that many times; 0 = 1 */
	/* NULL: every workload of the job. Else only this one, repeat_factor
	 * times per board (the job's repeats are ignored: a bisection decides
	 * its own repeats) */
	const struct job_workload *only_workload;
	unsigned int max_attempts;	/* 0: 3 */
	unsigned int offline_after;	/* 0: 3 */
	/* `git bisect run` needs one answer: once a run FAILs, the runs not
	 * started yet are not run (they end SKIP, "not run") */
	bool stop_at_first_fail;
	/* others that may use the same boards; NULL: the boards are its own */
	struct scheduler_pool *pool;
};

struct scheduler;
typedef void (*scheduler_done_cb)(struct scheduler *scheduler, void *data);

int scheduler_start(const struct scheduler_options *options, scheduler_done_cb callback,
		    void *data, struct scheduler **scheduler_out);
const struct scheduler_cell *scheduler_cells(const struct scheduler *scheduler, size_t *count);
void scheduler_free(struct scheduler *scheduler);

#endif
