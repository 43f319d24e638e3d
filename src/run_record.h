/*
 * run_record.h - the part of a run that does not depend on how it ran: it
 * is queued in the store and given its directory before it starts, and
 * what it found (the workload's KTAP, the kernel log and console of its
 * window, the facts its runner learned) is judged by verdict.c, stored,
 * and written to <dir>/verdict.txt. An SSH run (run.c) and a LAVA job
 * (drivers/lava/run.c) end the same way, so a verdict never depends on
 * which lab a board is in.
 */
#ifndef RB_RUN_RECORD_H
#define RB_RUN_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"
#include "verdict.h"

/*
 * Queues the run (and starts it on board_name, when not NULL), tells
 * environment->run_queued, and makes <runs_dir>/<id>/. 0, or negative errno.
 */
int run_record_start(const struct run_environment *environment, const char *board_name,
		     const struct run_spec *spec, int64_t *run_id, char *dir, size_t dir_len);

struct run_evidence {
	const char *output;		/* the workload's stdout (KTAP); NULL: none */
	size_t output_length;
	const char *const *log_lines;	/* the kernel log, then the console, of the run */
	size_t log_line_count;
	struct verdict_facts facts;
};

/*
 * Judges, stores (a result the store does not hold is never claimed: then
 * INFRA), writes verdict.txt; fills report's outcome and summary.
 */
void run_record_finish(const struct run_environment *environment, int64_t run_id,
		       const char *dir, const struct job_workload *workload,
		       const struct run_evidence *evidence, struct run_report *report);

/* Writes <dir>/<name>; a failure is logged, not fatal. */
void run_record_file(const struct run_environment *environment, const char *board_name,
		     int64_t run_id, const char *dir, const char *name, const char *text);

#endif
