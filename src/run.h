/*
 * run.h - one run: one workload, once, on one board, with one built kernel.
 *
 *   connect -> (boot the build unless the board already runs it, cleanly)
 *   -> upload the workload scripts -> run it (watchdog) -> capture dmesg and
 *   console -> verdict -> stored (committed before anyone is told).
 *
 * What can go wrong, and what it counts as (DESIGN.md "Run outcomes"):
 *  - board unreachable, power switch error, upload failed before the kernel
 *    under test ran: INFRA, never evidence about the kernel;
 *  - build failed: SKIP without touching a board;
 *  - the board does not come back with the build's `uname -r` within the
 *    boot timeout: it is power-cycled onto its fallback kernel, and the run
 *    is SKIP or FAIL(boot) per the job's policy;
 *  - no result and SSH dead past the hang timeout (a watchdog probes with a
 *    fresh connection): hang. The console is kept, the board power-cycled,
 *    FAIL(hang) when the kernel under test ran;
 *  - otherwise the workload's KTAP, kernel log and metrics decide (verdict.c).
 *
 * Every step is a callback on the loop; nothing blocks. The run frees itself
 * after its callback.
 */
#ifndef RB_RUN_H
#define RB_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "board.h"
#include "job_config.h"
#include "verdict.h"

struct store;
struct log;

struct run_spec;

/* What every run of one invocation shares. */
struct run_environment {
	uv_loop_t *loop;
	struct store *store;
	struct log *log;
	const struct job *job;
	const char *job_name;		/* as stored */
	const char *runs_dir;		/* <state>/runs: each run writes <id>/ there */
	const char *workload_dir;	/* local drivers/workload */
	/* Called once each run is queued in the store, before it starts: a
	 * bisection links the run to itself there, so that after a crash no
	 * finished run goes unaccounted. NULL: nobody asks. */
	void (*run_queued)(int64_t run_id, const struct run_spec *spec, void *data);
	void *run_queued_data;
};

struct run_spec {
	const struct job_workload *workload;
	unsigned int repeat_index;
	const char *commit;
	int64_t build_id;
	const char *image;		/* local kernel image; NULL when the build failed */
	const char *release;		/* its `uname -r` */
	const char *modules;		/* local tarball of lib/modules/<release>; NULL: none */
	const char *build_failure;	/* NULL: it built; else why not */
};

struct run_report {
	int64_t run_id;
	enum verdict_outcome outcome;
	char summary[1024];		/* verdict_summary() */
	/* the board did not come back after a power cycle, or its power
	 * switch failed: the scheduler should check its health */
	bool board_in_trouble;
	/* the board's host key is not the one known_hosts holds: retrying or
	 * power cycling cannot help, a person must check it (lab trust) */
	bool host_key_refused;
	/* INFRA that no retry can mend, on this board or another: the lab
	 * refused the run itself (LAVA would not take or run the job it was
	 * sent); a person must look at the job or the lab's set-up */
	bool retry_cannot_help;
};

struct run;
typedef void (*run_done_cb)(const struct run_report *report, void *data);

/*
 * Starts a run (queued and started in the store at once). board may be NULL
 * only when the build failed. 0, or a negative errno when it could not even
 * be recorded (then the callback never runs).
 */
int run_start(const struct run_environment *environment, struct board *board,
	      const struct run_spec *spec, run_done_cb callback, void *data);

/*
 * A board's health check: power-cycled onto its fallback kernel, SSH back
 * within its boot timeout, and a smoke command (`iw dev`, the Wi-Fi stack is
 * there) exits 0. Nothing is stored here; the caller records the outcome.
 */
typedef void (*health_done_cb)(struct board *board, bool passed, const char *detail, void *data);
int run_health_check(const struct run_environment *environment, struct board *board,
		     health_done_cb callback, void *data);

/* The run's directory: <runs_dir>/<id>. */
int run_directory(const char *runs_dir, int64_t run_id, char *out, size_t len);

#endif
