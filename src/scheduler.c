/* scheduler.c - runs on free boards, INFRA retried elsewhere, board health. */
#include "scheduler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store.h"

struct scheduler {
	struct scheduler_options options;
	struct scheduler_cell *cells;
	size_t cell_count;
	size_t done_count;
	scheduler_done_cb callback;
	void *data;
	uint64_t started_ms;
	unsigned int in_flight;		/* its runs and health checks on the loop */
	bool finished;
	/* in options.pool: the next scheduler, and whether a board it may
	 * want came free since it last looked */
	struct scheduler *next_in_pool;
	bool wake;
};

/* The context a finished run comes back with. */
struct pending_run {
	struct scheduler *scheduler;
	struct scheduler_cell *cell;
	struct board *board;
};

static void dispatch(struct scheduler *scheduler);
static void pool_leave(struct scheduler *scheduler);
static void board_freed(struct scheduler *scheduler);

static void show_progress(struct scheduler *scheduler)
{
	const struct scheduler_options *options = &scheduler->options;
	uint64_t elapsed = (uv_now(options->environment->loop) - scheduler->started_ms) / 1000;
	size_t busy = 0, offline = 0, i;

	for (i = 0; i < options->board_count; i++) {
		busy += options->boards[i]->busy;
		offline += options->boards[i]->offline;
	}
	log_progress(options->environment->log, "runs %zu/%zu done, boards busy %zu/%zu%s, %llu:%02llu",
		     scheduler->done_count, scheduler->cell_count, busy, options->board_count,
		     offline ? " (some offline)" : "", (unsigned long long)elapsed / 60,
		     (unsigned long long)elapsed % 60);
}

static void complete_cell(struct scheduler *scheduler, struct scheduler_cell *cell)
{
	cell->done = true;
	cell->running = false;
	scheduler->done_count++;
}

/* Another online board of the cell's chip it has not failed on, least loaded first. */
static struct board *find_twin(struct scheduler *scheduler, const struct scheduler_cell *cell,
			       const struct board *avoid)
{
	const struct scheduler_options *options = &scheduler->options;
	struct board *best = NULL;
	size_t best_load = (size_t)-1, i, c;

	for (i = 0; i < options->board_count; i++) {
		struct board *board = options->boards[i];
		size_t load = 0;

		if (board == avoid || board->offline ||
		    strcmp(board->config->chip, cell->home->config->chip) != 0)
			continue;
		for (c = 0; c < scheduler->cell_count; c++)
			load += !scheduler->cells[c].done && scheduler->cells[c].target == board;
		if (load < best_load) {
			best = board;
			best_load = load;
		}
	}
	return best;
}

static void retarget_or_give_up(struct scheduler *scheduler, struct scheduler_cell *cell,
				struct board *failed_on, const char *why)
{
	unsigned int max_attempts = scheduler->options.max_attempts;
	struct board *next;

	if (cell->attempts >= max_attempts) {
		complete_cell(scheduler, cell);
		return;
	}
	next = find_twin(scheduler, cell, failed_on);
	if (!next && !failed_on->offline)
		next = failed_on;
	if (!next) {
		cell->outcome = VERDICT_INFRA;
		snprintf(cell->summary, sizeof(cell->summary), "INFRA %s; no board of chip %s left",
			 why, cell->home->config->chip);
		complete_cell(scheduler, cell);
		return;
	}
	cell->target = next;
	cell->running = false;
	log_event(scheduler->options.environment->log, LOG_NOTICE, failed_on->name, cell->run_id,
		  "retry", "%s #%u again on %s (attempt %u of %u)", cell->workload->name,
		  cell->repeat_index + 1, next->name, cell->attempts + 1, max_attempts);
}

/* The cells waiting for a board that went offline move to its twins. */
static void move_cells_off(struct scheduler *scheduler, struct board *board)
{
	size_t i;

	for (i = 0; i < scheduler->cell_count; i++) {
		struct scheduler_cell *cell = &scheduler->cells[i];

		if (!cell->done && !cell->running && cell->target == board)
			retarget_or_give_up(scheduler, cell, board, "board offline");
	}
}

static void on_health_checked(struct board *board, bool passed, const char *detail, void *data)
{
	struct scheduler *scheduler = data;

	(void)detail;
	scheduler->in_flight--;
	board->busy = false;
	board->offline = !passed;
	if (passed)
		board->consecutive_infra = 0;
	(void)store_board_health_checked(scheduler->options.environment->store, board->name, passed);
	if (!passed)
		move_cells_off(scheduler, board);
	board_freed(scheduler);
}

/* The board is busy while its health check runs; 0, or the check did not start. */
static int start_health_check(struct scheduler *scheduler, struct board *board)
{
	int rc;

	board->busy = true;
	scheduler->in_flight++;
	rc = run_health_check(scheduler->options.environment, board, on_health_checked, scheduler);
	if (rc) {
		board->busy = false;
		scheduler->in_flight--;
	}
	return rc;
}

static void take_offline(struct scheduler *scheduler, struct board *board, const char *why)
{
	board->offline = true;
	(void)store_board_set_offline(scheduler->options.environment->store, board->name, true);
	log_event(scheduler->options.environment->log, LOG_NOTICE, board->name, 0, "offline", "%s",
		  why);
	if (start_health_check(scheduler, board) != 0)
		move_cells_off(scheduler, board);
}

/*
 * The run goes again on the board that just failed it (no twin is free):
 * retrying as it is would only fail again (a board left hung by a killed
 * coordinator stays hung), so it is health-checked first, which power-cycles
 * it onto its fallback kernel. Its cells wait; if the check fails it goes
 * offline and they move on.
 */
static void check_before_retry(struct scheduler *scheduler, struct board *board)
{
	log_event(scheduler->options.environment->log, LOG_NOTICE, board->name, 0, "health-check",
		  "INFRA and no other board of chip %s: checking it before the retry",
		  board->config->chip);
	start_health_check(scheduler, board);
}

/* No health check: a power cycle does not change a host key; a person must
 * check the board and run `rackbisect lab trust`. */
static void refuse_board(struct scheduler *scheduler, struct board *board)
{
	board->offline = true;
	(void)store_board_set_offline(scheduler->options.environment->store, board->name, true);
	log_event(scheduler->options.environment->log, LOG_NOTICE, board->name, 0, "offline",
		  "its host key does not match the lab's known_hosts; check the board, then run "
		  "`rackbisect lab trust`");
	move_cells_off(scheduler, board);
}

/* The answer is known: what has not started yet is left out. */
static void skip_pending_cells(struct scheduler *scheduler)
{
	size_t i;

	for (i = 0; i < scheduler->cell_count; i++) {
		struct scheduler_cell *cell = &scheduler->cells[i];

		if (cell->done || cell->running)
			continue;
		cell->outcome = VERDICT_SKIP;
		snprintf(cell->summary, sizeof(cell->summary), "SKIP not run: a run already failed");
		complete_cell(scheduler, cell);
	}
}

static void on_run_done(const struct run_report *report, void *data)
{
	struct pending_run *pending = data;
	struct scheduler *scheduler = pending->scheduler;
	struct scheduler_cell *cell = pending->cell;
	struct board *board = pending->board;
	bool retry_here = false;
	char why[128];

	free(pending);
	scheduler->in_flight--;
	cell->outcome = report->outcome;
	cell->run_id = report->run_id;
	snprintf(cell->summary, sizeof(cell->summary), "%s", report->summary);
	if (board) {
		board->busy = false;
		snprintf(cell->ran_on, sizeof(cell->ran_on), "%s", board->name);
	}
	if (board && report->host_key_refused) {
		refuse_board(scheduler, board);
		retarget_or_give_up(scheduler, cell, board, "host key refused");
	} else if (report->outcome != VERDICT_INFRA || !board || report->retry_cannot_help) {
		if (board && report->outcome != VERDICT_SKIP)
			board->consecutive_infra = 0;	/* a refused job is not the board's fault */
		complete_cell(scheduler, cell);
	} else {
		board->consecutive_infra++;
		retarget_or_give_up(scheduler, cell, board, "lab trouble");
		retry_here = !cell->done && cell->target == board;
	}
	if (board && !report->host_key_refused && (report->board_in_trouble ||
		      board->consecutive_infra >= scheduler->options.offline_after)) {
		snprintf(why, sizeof(why), report->board_in_trouble
			 ? "did not come back from a power cycle" : "%u INFRA runs in a row",
			 board->consecutive_infra);
		take_offline(scheduler, board, why);
	} else if (retry_here) {
		check_before_retry(scheduler, board);
	}
	if (report->outcome == VERDICT_FAIL && scheduler->options.stop_at_first_fail)
		skip_pending_cells(scheduler);
	show_progress(scheduler);
	board_freed(scheduler);
}

static void start_cell(struct scheduler *scheduler, struct scheduler_cell *cell, struct board *board)
{
	struct run_spec spec = scheduler->options.spec;
	struct pending_run *pending = calloc(1, sizeof(*pending));
	int rc = -ENOMEM;

	spec.workload = cell->workload;
	spec.repeat_index = cell->repeat_index;
	cell->attempts++;
	cell->running = true;
	if (board)
		board->busy = true;
	scheduler->in_flight++;
	if (pending) {
		*pending = (struct pending_run){ scheduler, cell, board };
		rc = run_start(scheduler->options.environment, board, &spec, on_run_done, pending);
	}
	if (rc) {
		free(pending);
		scheduler->in_flight--;
		if (board)
			board->busy = false;
		cell->outcome = VERDICT_INFRA;
		snprintf(cell->summary, sizeof(cell->summary), "INFRA the run could not be recorded: %s",
			 store_error_message(scheduler->options.environment->store));
		complete_cell(scheduler, cell);
	}
}

static void dispatch(struct scheduler *scheduler)
{
	size_t i;

	for (i = 0; i < scheduler->cell_count; i++) {
		struct scheduler_cell *cell = &scheduler->cells[i];

		if (cell->done || cell->running)
			continue;
		/* a build that failed needs no board: every cell is SKIP at once */
		if (scheduler->options.spec.build_failure) {
			start_cell(scheduler, cell, NULL);
			continue;
		}
		if (cell->target->busy)
			continue;
		if (!cell->target->offline)
			start_cell(scheduler, cell, cell->target);
		else {	/* another scheduler of the pool found it offline */
			retarget_or_give_up(scheduler, cell, cell->target, "board offline");
			if (!cell->done)
				i--;	/* look again: its twin may be free now (i wraps to 0) */
		}
	}
	/* done means nothing of ours is still on the loop: health checks included */
	if (scheduler->done_count == scheduler->cell_count && !scheduler->in_flight &&
	    !scheduler->finished) {
		scheduler->finished = true;
		pool_leave(scheduler);
		log_progress_clear(scheduler->options.environment->log);
		scheduler->callback(scheduler, scheduler->data);
	}
}

/* ---- boards shared by a pool of schedulers ---------------------------------------------------- */

static void pool_join(struct scheduler *scheduler)
{
	struct scheduler_pool *pool = scheduler->options.pool;

	if (!pool)
		return;
	scheduler->next_in_pool = pool->first;
	pool->first = scheduler;
}

static void pool_leave(struct scheduler *scheduler)
{
	struct scheduler_pool *pool = scheduler->options.pool;
	struct scheduler **link;

	for (link = pool ? &pool->first : NULL; link && *link; link = &(*link)->next_in_pool) {
		if (*link == scheduler) {
			*link = scheduler->next_in_pool;
			break;
		}
	}
}

/*
 * A board of scheduler's came free: the other schedulers of its pool look
 * first (one that waited for it gets it), then scheduler itself. A done
 * callback may free schedulers and start new ones, so each pass starts again
 * from the pool's head and takes the next one still to wake.
 */
static void board_freed(struct scheduler *scheduler)
{
	struct scheduler_pool *pool = scheduler->options.pool;
	struct scheduler *other;

	if (!pool) {
		dispatch(scheduler);
		return;
	}
	for (other = pool->first; other; other = other->next_in_pool)
		other->wake = true;
	if (pool->waking)
		return;	/* inside a wake below: that loop sees the flags */
	pool->waking = true;
	scheduler->wake = false;	/* it looks last */
	for (;;) {
		for (other = pool->first; other && !other->wake; other = other->next_in_pool)
			;
		if (!other)
			break;
		other->wake = false;
		dispatch(other);
	}
	pool->waking = false;
	dispatch(scheduler);
}

/* How many runs of a workload each board makes. */
static unsigned int repeats_of(const struct scheduler_options *options,
			       const struct job_workload *workload)
{
	if (options->only_workload)
		return options->only_workload == workload ? options->repeat_factor : 0;
	return workload->repeats * options->repeat_factor;
}

static int make_cells(struct scheduler *scheduler)
{
	const struct scheduler_options *options = &scheduler->options;
	const struct job *job = options->environment->job;
	size_t b, w, total = 0;
	unsigned int r;

	for (w = 0; w < job->workload_count; w++)
		total += repeats_of(options, &job->workloads[w]);
	total *= options->board_count;
	scheduler->cells = calloc(total ? total : 1, sizeof(*scheduler->cells));
	if (!scheduler->cells)
		return -ENOMEM;
	/* workload-major, so every board starts on the first workload together */
	for (w = 0; w < job->workload_count; w++) {
		unsigned int repeats = repeats_of(options, &job->workloads[w]);

		for (r = 0; r < repeats; r++) {
			for (b = 0; b < options->board_count; b++) {
				struct scheduler_cell *cell = &scheduler->cells[scheduler->cell_count++];

				cell->home = cell->target = options->boards[b];
				cell->workload = &job->workloads[w];
				cell->repeat_index = r;
			}
		}
	}
	return 0;
}

/* Boards the store holds offline are checked before they get work. */
static void check_stored_health(struct scheduler *scheduler)
{
	const struct scheduler_options *options = &scheduler->options;
	size_t i;

	for (i = 0; i < options->board_count; i++) {
		struct store_board_health health;
		struct board *board = options->boards[i];

		/* a busy board is another scheduler's of the pool, which checks it */
		if (!board->busy &&
		    store_board_health_get(options->environment->store, board->name, &health) == 0 &&
		    health.offline && !options->spec.build_failure) {
			board->offline = true;
			start_health_check(scheduler, board);
		}
	}
}

int scheduler_start(const struct scheduler_options *options, scheduler_done_cb callback,
		    void *data, struct scheduler **scheduler_out)
{
	struct scheduler *scheduler = calloc(1, sizeof(*scheduler));
	int rc;

	if (!scheduler)
		return -ENOMEM;
	scheduler->options = *options;
	if (!scheduler->options.repeat_factor)
		scheduler->options.repeat_factor = 1;
	if (!scheduler->options.max_attempts)
		scheduler->options.max_attempts = 3;
	if (!scheduler->options.offline_after)
		scheduler->options.offline_after = 3;
	scheduler->callback = callback;
	scheduler->data = data;
	scheduler->started_ms = uv_now(options->environment->loop);
	if ((rc = make_cells(scheduler))) {
		free(scheduler);
		return rc;
	}
	*scheduler_out = scheduler;
	pool_join(scheduler);
	check_stored_health(scheduler);
	dispatch(scheduler);
	return 0;
}

const struct scheduler_cell *scheduler_cells(const struct scheduler *scheduler, size_t *count)
{
	*count = scheduler->cell_count;
	return scheduler->cells;
}

void scheduler_free(struct scheduler *scheduler)
{
	if (!scheduler)
		return;
	pool_leave(scheduler);
	free(scheduler->cells);
	free(scheduler);
}
