/*
 * Schedulers sharing boards (scheduler.h's pool): two at once on the same two
 * boards, as a nightly's gates are, with runs on a local transport
 * (helpers/local_transport.h). The pool hands a freed board to the scheduler
 * that waited for it, never runs two runs on one board at once, and tells
 * each scheduler it is done as soon as its own runs are, not the other's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <uv.h>

#include "board.h"
#include "config.h"
#include "job_config.h"
#include "log.h"
#include "run.h"
#include "scheduler.h"
#include "store.h"
#include "helpers/local_transport.h"

#define BOARDS 2
/* a hang here is the bug under test: give up long before CI would */
#define TIMEOUT_MS 60000

struct fixture {
	char dir[64];
	char runs_dir[128];
	char workload_dir[128];
	char release[128];
	uv_loop_t loop;
	uv_timer_t timeout;
	bool timed_out;
	struct store *store;
	struct log log;
	FILE *events;
	struct job job;
	struct job_workload workload;
	char *no_args[1];
	struct lab_board lab_board[BOARDS];
	struct board board[BOARDS];
	struct board *boards[BOARDS];
	struct power power;
	struct run_environment environment;
	struct scheduler_pool pool;
	unsigned int finished;		/* schedulers done so far */
	unsigned int finish_order[2];	/* [i]: when scheduler i was done, 1 or 2 */
	bool boards_busy_at_finish[2];	/* [i]: another's run was on a board then */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[192];
	struct utsname host;
	FILE *script;
	int i;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/rackbisect-test-scheduler-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(local_world.shared_tmp, sizeof(local_world.shared_tmp), "%s/board-tmp", f->dir);
	snprintf(local_world.output_dir, sizeof(local_world.output_dir), "%s/exec", f->dir);
	snprintf(f->runs_dir, sizeof(f->runs_dir), "%s/runs", f->dir);
	snprintf(f->workload_dir, sizeof(f->workload_dir), "%s/workload", f->dir);
	assert_int_equal(mkdir(local_world.shared_tmp, 0700), 0);
	assert_int_equal(mkdir(local_world.output_dir, 0700), 0);
	assert_int_equal(mkdir(f->runs_dir, 0700), 0);
	assert_int_equal(mkdir(f->workload_dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/wt.sh", f->workload_dir);
	assert_non_null(script = fopen(path, "w"));
	fputs("sleep 0.2\nprintf 'KTAP version 1\\n1..1\\nok 1 ran\\n'\n", script);
	fclose(script);
	snprintf(path, sizeof(path), "%s/state.db", f->dir);
	assert_int_equal(store_open(path, &f->store), 0);
	assert_int_equal(uv_loop_init(&f->loop), 0);
	assert_non_null(f->events = tmpfile());
	log_init(&f->log, f->events, false, f->store);
	f->power = (struct power){ .ops = &broken_power_ops, .loop = &f->loop };
	/* the boards already run the kernel under test, cleanly: no boot */
	assert_int_equal(uname(&host), 0);
	snprintf(f->release, sizeof(f->release), "%s", host.release);
	f->workload = (struct job_workload){ .name = "WT", .script = "wt.sh", .args = f->no_args,
					     .timeout_seconds = 60, .repeats = 1 };
	f->job = (struct job){ .name = "test-scheduler", .workloads = &f->workload,
			       .workload_count = 1, .boot_failure = JOB_POLICY_SKIP,
			       .boot_timeout_seconds = 60, .hang_timeout_seconds = 60 };
	f->environment = (struct run_environment){
		.loop = &f->loop, .store = f->store, .log = &f->log, .job = &f->job,
		.job_name = f->job.name, .runs_dir = f->runs_dir, .workload_dir = f->workload_dir };
	for (i = 0; i < BOARDS; i++) {
		f->lab_board[i] = (struct lab_board){ .name = i ? "sb02" : "sb01", .chip = "ar9285" };
		local_board_init(&f->board[i], &f->lab_board[i], &f->loop, &f->log, &f->power, "unused");
		f->boards[i] = &f->board[i];
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	local_boards_teardown(&f->loop, f->board, BOARDS, f->store, f->events, f->dir);
	free(f);
	return 0;
}

struct finish_note {
	struct fixture *fixture;
	unsigned int index;
};

static void on_scheduler_done(struct scheduler *scheduler, void *data)
{
	struct finish_note *note = data;

	(void)scheduler;
	note->fixture->finish_order[note->index] = ++note->fixture->finished;
	note->fixture->boards_busy_at_finish[note->index] =
		note->fixture->board[0].busy || note->fixture->board[1].busy;
}

static void on_timeout(uv_timer_t *timer)
{
	struct fixture *f = timer->data;

	f->timed_out = true;
}

static struct scheduler *start(struct fixture *f, unsigned int repeats, struct finish_note *note)
{
	struct scheduler *scheduler = NULL;
	struct scheduler_options options = {
		.environment = &f->environment,
		.boards = f->boards,
		.board_count = BOARDS,
		.spec = { .commit = "c0ffee", .image = "unused", .release = f->release },
		.repeat_factor = repeats,
		.pool = &f->pool,
	};

	assert_int_equal(scheduler_start(&options, on_scheduler_done, note, &scheduler), 0);
	return scheduler;
}

/* Waits for both schedulers, or the timeout (a scheduler never woken). */
static void wait_for_both(struct fixture *f)
{
	uv_timer_init(&f->loop, &f->timeout);
	f->timeout.data = f;
	uv_timer_start(&f->timeout, on_timeout, TIMEOUT_MS, 0);
	while (f->finished < 2 && !f->timed_out)
		uv_run(&f->loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&f->timeout, NULL);
	if (f->timed_out)
		fail_msg("only %u of 2 schedulers finished in %d s: a freed board was not offered "
			 "to the one waiting for it", f->finished, TIMEOUT_MS / 1000);
}

static void assert_all_passed(struct scheduler *scheduler)
{
	size_t count, i;
	const struct scheduler_cell *cells = scheduler_cells(scheduler, &count);

	for (i = 0; i < count; i++)
		if (cells[i].outcome != VERDICT_PASS)
			fail_msg("cell %zu: %s", i, cells[i].summary);
}

/* No two runs on one board overlap in time, from the store's own times. */
static void assert_one_run_per_board_at_a_time(struct fixture *f, size_t expected_runs)
{
	int64_t started[64], finished[64];
	char boards[64][16];
	size_t count = 0, i, j;

	for (int64_t id = 1; count < 64; id++) {
		struct store_run run;

		if (store_run_get(f->store, id, &run) != 0)
			break;
		snprintf(boards[count], sizeof(boards[count]), "%s", run.board ? run.board : "");
		started[count] = run.started_at;
		finished[count++] = run.finished_at;
		store_run_release(&run);
	}
	assert_int_equal(count, expected_runs);
	for (i = 0; i < count; i++)
		for (j = i + 1; j < count; j++)
			if (strcmp(boards[i], boards[j]) == 0 && started[i] < finished[j] &&
			    started[j] < finished[i])
				fail_msg("runs %zu and %zu overlap on %s", i + 1, j + 1, boards[i]);
}

/*
 * A takes both boards for 3 runs each; B, started just after, waits. Each
 * time one of A's runs ends, B is offered the board first, so B's 2 runs go
 * between A's and B is done while A still runs: without the pool B would
 * wait for ever (nobody wakes it), and counting any busy board as its own
 * it would be done only after A.
 */
static void test_a_waiting_scheduler_gets_the_next_free_board(void **state)
{
	struct fixture *f = *state;
	struct finish_note notes[2] = { { f, 0 }, { f, 1 } };
	struct scheduler *a = start(f, 3, &notes[0]);
	struct scheduler *b = start(f, 1, &notes[1]);

	wait_for_both(f);
	assert_all_passed(a);
	assert_all_passed(b);
	assert_int_equal(f->finish_order[1], 1);	/* B first */
	assert_int_equal(f->finish_order[0], 2);
	assert_true(f->boards_busy_at_finish[1]);	/* while A still ran */
	assert_false(f->boards_busy_at_finish[0]);
	assert_one_run_per_board_at_a_time(f, 3 * BOARDS + BOARDS);
	assert_null(f->pool.first);	/* both left the pool when done */
	scheduler_free(a);
	scheduler_free(b);
}

/* A scheduler freed before it is done leaves the pool: the other still
 * finishes, and nobody touches the freed one. */
static void test_a_scheduler_freed_early_leaves_the_pool(void **state)
{
	struct fixture *f = *state;
	struct finish_note notes[2] = { { f, 0 }, { f, 1 } };
	struct scheduler *a = start(f, 1, &notes[0]);
	struct scheduler *b = start(f, 1, &notes[1]);

	scheduler_free(b);	/* it has not started a run: every board is A's */
	assert_ptr_equal(f->pool.first, a);
	f->finished = 1;	/* only A's finish is waited for */
	wait_for_both(f);
	assert_all_passed(a);
	assert_null(f->pool.first);
	scheduler_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_waiting_scheduler_gets_the_next_free_board,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_scheduler_freed_early_leaves_the_pool,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
