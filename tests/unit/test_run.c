/*
 * One run, end to end, on boards reached through a local transport
 * (helpers/local_transport.h): commands run on this machine, with the
 * boards' /tmp mapped into the fixture's own directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <uv.h>

#include "board.h"
#include "config.h"
#include "job_config.h"
#include "log.h"
#include "run.h"
#include "verdict.h"
#include "store.h"
#include "power/power.h"
#include "transport/transport.h"
#include "helpers/local_transport.h"

/* ---- fixture --------------------------------------------------------------- */

#define BOARDS 2

struct fixture {
	char dir[64];
	char runs_dir[128];
	char workload_dir[BOARDS][128];
	char release[128];
	uv_loop_t loop;
	struct store *store;
	struct log log;
	struct job job;
	struct job_workload workload;
	char *no_args[1];
	struct lab_board lab_board[BOARDS];
	struct board board[BOARDS];
	struct run_report report[BOARDS];
	unsigned int done;
	struct power power;
	FILE *events;			/* the log's lines */
};

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *file;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	file = fopen(path, "w");
	assert_non_null(file);
	fputs(text, file);
	fclose(file);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[192];
	struct utsname host;
	int i;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/rackbisect-test-run-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(local_world.shared_tmp, sizeof(local_world.shared_tmp), "%s/board-tmp", f->dir);
	snprintf(local_world.output_dir, sizeof(local_world.output_dir), "%s/exec", f->dir);
	snprintf(f->runs_dir, sizeof(f->runs_dir), "%s/runs", f->dir);
	assert_int_equal(mkdir(local_world.shared_tmp, 0700), 0);
	assert_int_equal(mkdir(local_world.output_dir, 0700), 0);
	assert_int_equal(mkdir(f->runs_dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/state.db", f->dir);
	assert_int_equal(store_open(path, &f->store), 0);
	assert_int_equal(uv_loop_init(&f->loop), 0);
	f->events = tmpfile();
	assert_non_null(f->events);
	log_init(&f->log, f->events, false, f->store);
	f->power = (struct power){ .ops = &broken_power_ops, .loop = &f->loop };
	local_world.connect_count = local_world.probe_count = local_world.probes_before_silence = 0;
	local_world.kill_unconfirmed = false;
	/* the boards already run the kernel under test, cleanly: no boot */
	assert_int_equal(uname(&host), 0);
	snprintf(f->release, sizeof(f->release), "%s", host.release);

	f->workload = (struct job_workload){ .name = "WT", .script = "wt.sh", .args = f->no_args,
					     .timeout_seconds = 60 };
	f->job = (struct job){ .name = "test-run", .workloads = &f->workload,
			       .workload_count = 1, .boot_failure = JOB_POLICY_SKIP,
			       .boot_timeout_seconds = 60, .hang_timeout_seconds = 60 };
	for (i = 0; i < BOARDS; i++) {
		snprintf(f->workload_dir[i], sizeof(f->workload_dir[i]), "%s/workload-%d", f->dir, i);
		assert_int_equal(mkdir(f->workload_dir[i], 0700), 0);
		f->lab_board[i].name = i ? "lb02" : "lb01";
		local_board_init(&f->board[i], &f->lab_board[i], &f->loop, &f->log, &f->power, "unused");
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

static void on_run_done(const struct run_report *report, void *data)
{
	struct run_report *out = data;

	*out = *report;
}

static void count_done(struct fixture *f)
{
	int i;

	f->done = 0;
	for (i = 0; i < BOARDS; i++)
		f->done += f->report[i].run_id != 0;
}

/* Starts one run per board, board i with workload_dir[i]; waits for all. */
static void run_on_every_board(struct fixture *f, unsigned int boards)
{
	struct run_environment environment[BOARDS];
	unsigned int i;

	for (i = 0; i < boards; i++) {
		struct run_spec spec = { .workload = &f->workload, .commit = "c0ffee",
					 .image = "unused", .release = f->release };

		environment[i] = (struct run_environment){
			.loop = &f->loop, .store = f->store, .log = &f->log, .job = &f->job,
			.job_name = f->job.name, .runs_dir = f->runs_dir,
			.workload_dir = f->workload_dir[i] };
		memset(&f->report[i], 0, sizeof(f->report[i]));
		assert_int_equal(run_start(&environment[i], &f->board[i], &spec, on_run_done,
					   &f->report[i]), 0);
	}
	do {
		uv_run(&f->loop, UV_RUN_ONCE);
		count_done(f);
	} while (f->done < boards);
}

static char *run_file(struct fixture *f, int64_t run_id, const char *name)
{
	char path[256];
	size_t length;

	snprintf(path, sizeof(path), "%s/%lld/%s", f->runs_dir, (long long)run_id, name);
	return local_read_all(path, &length);
}

static unsigned int workload_dirs_left(void)
{
	DIR *dir = opendir(local_world.shared_tmp);
	struct dirent *entry;
	unsigned int count = 0;

	assert_non_null(dir);
	while ((entry = readdir(dir)) != NULL)
		count += strncmp(entry->d_name, "rackbisect-workload", 19) == 0;
	closedir(dir);
	return count;
}

/* ---- tests ------------------------------------------------------------------ */

/*
 * Two boards share /tmp (the virtual lab's boards do) and run at once, each
 * with its own copy of the workload. Each must run the copy it uploaded:
 * with one shared remote directory, the upload of one run replaced (and,
 * truncating, briefly emptied) the files the other was running.
 */
static void test_runs_on_boards_sharing_tmp_run_their_own_upload(void **state)
{
	struct fixture *f = *state;
	static const char script[] =
		"sleep 1\n"
		". \"$(dirname \"$0\")/lib.sh\"\n"
		"printf 'KTAP version 1\\n1..1\\nok 1 ran the workload of %s\\n' \"$who\"\n";
	char *ktap;
	int i;

	write_text(f->workload_dir[0], "lib.sh", "who=lb01\n");
	write_text(f->workload_dir[1], "lib.sh", "who=lb02\n");
	for (i = 0; i < BOARDS; i++)
		write_text(f->workload_dir[i], "wt.sh", script);
	run_on_every_board(f, BOARDS);
	for (i = 0; i < BOARDS; i++) {
		char expected[64];

		ktap = run_file(f, f->report[i].run_id, "output.ktap");
		snprintf(expected, sizeof(expected), "ok 1 ran the workload of %s\n",
			 f->lab_board[i].name);
		if (!strstr(ktap, expected)) {
			char printed[512];

			snprintf(printed, sizeof(printed), "%s", ktap);
			free(ktap);
			fail_msg("run on %s printed:\n%s\nexpected '%s' (%s)", f->lab_board[i].name,
				 printed, expected, f->report[i].summary);
		}
		free(ktap);
		assert_int_equal(f->report[i].outcome, VERDICT_PASS);
	}
	/* each run removes its directory from the board's /tmp */
	assert_int_equal(workload_dirs_left(), 0);
}

/* A workload that prints no KTAP leaves its stderr and exit status in the
 * run's directory: they are all there is to say why. */
static void test_workload_stderr_and_exit_status_are_kept(void **state)
{
	struct fixture *f = *state;
	char *text;

	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "echo 'wt.sh: no such interface: wlan0' >&2\n"
			 "exit 3\n");
	run_on_every_board(f, 1);
	assert_int_equal(f->report[0].outcome, VERDICT_INFRA);
	text = run_file(f, f->report[0].run_id, "workload.stderr");
	assert_string_equal(text, "wt.sh: no such interface: wlan0\n");
	free(text);
	text = run_file(f, f->report[0].run_id, "workload.exit");
	assert_string_equal(text, "exit status 3\n");
	free(text);
	assert_int_equal(workload_dirs_left(), 0);
}

/* The log's lines so far (the caller frees them). */
static char *events_text(struct fixture *f)
{
	long length;
	char *text;

	fflush(f->events);
	length = ftell(f->events);
	assert_true(length >= 0);
	text = calloc(1, (size_t)length + 1);
	assert_non_null(text);
	rewind(f->events);
	assert_int_equal(fread(text, 1, (size_t)length, f->events), (size_t)length);
	return text;
}

/*
 * The workload's directory is made in the board's TMPDIR, which the board
 * sets: one whose name is more than plain characters (here a space) is not
 * taken for the run's directory, so no rm -rf ever gets it. The run is the
 * lab's fault (INFRA), saying what mktemp printed, and the workload never runs.
 */
static void test_a_tmpdir_of_other_characters_is_refused(void **state)
{
	struct fixture *f = *state;
	char *ktap, *events;

	snprintf(local_world.tmpdir, sizeof(local_world.tmpdir), "%s/board tmp", f->dir);
	assert_int_equal(mkdir(local_world.tmpdir, 0700), 0);
	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "printf 'KTAP version 1\\n1..1\\nok 1 ran\\n'\n");
	run_on_every_board(f, 1);
	local_world.tmpdir[0] = '\0';
	assert_int_equal(f->report[0].outcome, VERDICT_INFRA);
	events = events_text(f);
	if (!strstr(events, "board tmp/rackbisect-workload.") || !strstr(events, "not a directory name"))
		fail_msg("the events do not say what mktemp printed:\n%s", events);
	free(events);
	ktap = run_file(f, f->report[0].run_id, "output.ktap");
	assert_null(strstr(ktap, "ok 1 ran"));
	free(ktap);
}

/* A workload that prints far more than the transport keeps (one that never
 * stops talking until the job's timeout): the run keeps the first part, its
 * output says where the rest was dropped, and the events say it too. */
static void test_endless_output_is_kept_to_the_limit_with_a_note(void **state)
{
	struct fixture *f = *state;
	char *ktap, *events, note[128];

	f->board[0].transport_config.output_limit = 64 * 1024;
	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "printf 'KTAP version 1\\n1..1\\nok 1 chatty\\n'\n"
			 "yes '# still talking' | head -c 3000000\n");
	run_on_every_board(f, 1);
	assert_int_equal(f->report[0].outcome, VERDICT_PASS);
	ktap = run_file(f, f->report[0].run_id, "output.ktap");
	assert_true(strlen(ktap) < 64 * 1024 + 200);
	assert_non_null(strstr(ktap, "ok 1 chatty\n"));
	/* 32 bytes of KTAP and 3,000,000 of talk, of which 65,536 are kept */
	snprintf(note, sizeof(note), "\n# rackbisect: output truncated: %d more bytes were dropped "
		 "after the first 65536\n", 32 + 3000000 - 65536);
	assert_non_null(strstr(ktap, note));
	free(ktap);
	events = events_text(f);
	assert_non_null(strstr(events, "event=output-truncated"));
	free(events);
}

/*
 * A workload silent for longer than the hang limit is probed once per limit.
 * Every probe after the first runs on the connection the first one opened:
 * a new connection per probe started an sshd per probe, and most of a lab's
 * SSH connections were the watchdog's.
 */
static void test_watchdog_probes_reuse_one_connection(void **state)
{
	struct fixture *f = *state;

	f->lab_board[0].hang_timeout_seconds = 1;
	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "sleep 3.5\nprintf 'KTAP version 1\\n1..1\\nok 1 long\\n'\n");
	run_on_every_board(f, 1);
	assert_int_equal(f->report[0].outcome, VERDICT_PASS);
	if (local_world.probe_count < 2)
		fail_msg("%u probes in a 3.5 s workload with a 1 s hang limit", local_world.probe_count);
	/* the run's connection and the watchdog's one */
	assert_int_equal(local_world.connect_count, 2);
}

/* A board that stops answering on the watchdog's kept connection is hung, as
 * one that refuses a new connection is, and as soon. */
static void test_a_board_silent_on_the_kept_probe_connection_is_hung(void **state)
{
	struct fixture *f = *state;
	char *events;

	f->lab_board[0].hang_timeout_seconds = 1;
	local_world.probes_before_silence = 1;
	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "sleep 5\nprintf 'KTAP version 1\\n1..1\\nok 1 long\\n'\n");
	run_on_every_board(f, 1);
	assert_int_equal(f->report[0].outcome, VERDICT_FAIL);
	events = events_text(f);
	if (!strstr(f->report[0].summary, "hang") ||
	    !strstr(events, "the watchdog's SSH session cannot run a command")) {
		char printed[2048];

		snprintf(printed, sizeof(printed), "%s", events);
		free(events);
		fail_msg("summary '%s', events:\n%s", f->report[0].summary, printed);
	}
	free(events);
	assert_int_equal(local_world.connect_count, 2);
}

/* A workload that runs past its timeout on a board that still answers,
 * with a child of its own: the kernel under test failed it (FAIL
 * workload-timeout, not INFRA "unreachable"), every process of it is gone
 * when the run ends, and the run's directory is removed as usual. Before,
 * the kill was queued on the session the run closed at once: the workload
 * went on running on the board. */
static void test_a_workload_past_its_timeout_fails_the_kernel_and_is_killed(void **state)
{
	struct fixture *f = *state;
	char *text, *events;

	f->workload.timeout_seconds = 1;
	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "printf 'KTAP version 1\\n1..1\\n'\n"
			 "sleep 29.75 & sleep 29.75\nwait\n");
	run_on_every_board(f, 1);
	assert_int_equal(f->report[0].outcome, VERDICT_FAIL);
	if (!strstr(f->report[0].summary, VERDICT_SYMPTOM_WORKLOAD_TIMEOUT))
		fail_msg("summary: %s", f->report[0].summary);
	assert_int_not_equal(system("pgrep -f -x 'sleep 29.75' >/dev/null"), 0);
	text = run_file(f, f->report[0].run_id, "workload.exit");
	assert_string_equal(text, "no exit: it ran past its timeout of 1 s\n");
	free(text);
	events = events_text(f);
	assert_non_null(strstr(events, "workload-timeout"));
	assert_null(strstr(events, "power-cycle"));
	assert_null(strstr(events, "unreachable"));
	free(events);
	assert_false(f->report[0].board_in_trouble);
	assert_int_equal(workload_dirs_left(), 0);
}

/* One whose processes cannot all be ended (one stuck in the kernel): the
 * board is power-cycled before it takes another run (here its switch is
 * broken, so the board is in trouble), and the verdict is still the
 * kernel's FAIL. */
static void test_a_timed_out_workload_that_cannot_be_ended_power_cycles_its_board(void **state)
{
	struct fixture *f = *state;
	char *events;

	f->workload.timeout_seconds = 1;
	local_world.kill_unconfirmed = true;
	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "sleep 29.5\n");
	run_on_every_board(f, 1);
	assert_int_equal(f->report[0].outcome, VERDICT_FAIL);
	if (!strstr(f->report[0].summary, VERDICT_SYMPTOM_WORKLOAD_TIMEOUT))
		fail_msg("summary: %s", f->report[0].summary);
	events = events_text(f);
	assert_non_null(strstr(events, "power-cycle"));
	free(events);
	assert_true(f->report[0].board_in_trouble);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_runs_on_boards_sharing_tmp_run_their_own_upload,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_tmpdir_of_other_characters_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_workload_stderr_and_exit_status_are_kept,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_endless_output_is_kept_to_the_limit_with_a_note,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog_probes_reuse_one_connection,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_board_silent_on_the_kept_probe_connection_is_hung,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_workload_past_its_timeout_fails_the_kernel_and_is_killed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_timed_out_workload_that_cannot_be_ended_power_cycles_its_board,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
