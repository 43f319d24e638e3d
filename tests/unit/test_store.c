/* The state store: schema, a run's life, atomic results, resume after a crash,
 * hostile strings, full disks and damaged files. Every test that keeps the
 * fixture's database open leaves it passing PRAGMA integrity_check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

struct fixture {
	char dir[64];
	char path[128];
	struct store *store;
};

static int remove_entry(const char *path, const struct stat *status, int type, struct FTW *walk)
{
	(void)status;
	(void)type;
	(void)walk;
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *fixture = calloc(1, sizeof(*fixture));

	if (!fixture)
		return -1;
	strcpy(fixture->dir, "/tmp/rackbisect-test-store-XXXXXX");
	if (!mkdtemp(fixture->dir))
		return -1;
	snprintf(fixture->path, sizeof(fixture->path), "%s/state.db", fixture->dir);
	if (store_open(fixture->path, &fixture->store) != 0)
		return -1;
	*state = fixture;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fixture = *state;
	int clean = 0;

	if (fixture->store) {
		clean = store_integrity_check(fixture->store);
		if (clean)
			print_error("%s\n", store_error_message(fixture->store));
		store_close(fixture->store);
	}
	nftw(fixture->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(fixture);
	return clean;
}

static void reopen(struct fixture *fixture)
{
	store_close(fixture->store);
	fixture->store = NULL;
	assert_int_equal(store_open(fixture->path, &fixture->store), 0);
}

static int64_t queue_run(struct store *store, const char *job, const char *commit)
{
	struct store_run_request request = {
		.job = job, .commit = commit, .workload = "w3-idle-transitions",
	};
	int64_t run_id = 0;

	assert_int_equal(store_run_queue(store, &request, &run_id), 0);
	assert_true(run_id > 0);
	return run_id;
}

static void finish_run(struct store *store, int64_t run_id, enum run_outcome outcome)
{
	struct store_result result = { .outcome = outcome };

	assert_int_equal(store_run_finish(store, run_id, &result), 0);
}

static const struct store_symptom w3_symptoms[] = {
	{ "auth-timeout", "wlan0: authentication with 00:0b:6b:de:ad:01 timed out" },
	{ "txdma-stop-fail", "ath: Failed to stop TX DMA, queues=0x001!" },
};

static const struct store_metric w3_metrics[] = {
	{ "reconnect_time", 1.53, "s" },
	{ "reconnect_time", 0.84, "s" },
	{ "ping_loss", 12.5, "%" },
};

static void assert_symptoms_equal(const struct store_run *run, const struct store_symptom *expected,
				  size_t count)
{
	assert_int_equal(run->symptom_count, count);
	for (size_t i = 0; i < count; i++) {
		assert_string_equal(run->symptoms[i].name, expected[i].name);
		assert_string_equal(run->symptoms[i].evidence, expected[i].evidence);
	}
}

static void assert_metrics_equal(const struct store_run *run, const struct store_metric *expected,
				 size_t count)
{
	assert_int_equal(run->metric_count, count);
	for (size_t i = 0; i < count; i++) {
		assert_string_equal(run->metrics[i].name, expected[i].name);
		assert_true(run->metrics[i].value == expected[i].value);
		assert_string_equal(run->metrics[i].unit, expected[i].unit);
	}
}

/* The first column of the first row of a query, read beside the store. */
static int64_t count_rows(const char *path, const char *sql)
{
	sqlite3_stmt *stmt;
	sqlite3 *db;
	int64_t count;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	count = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	sqlite3_close(db);
	return count;
}

/* ---- schema ---------------------------------------------------------------- */

static void test_open_creates_the_schema_and_reopen_keeps_it(void **state)
{
	struct fixture *fixture = *state;
	struct store_run run;
	int version = -1;
	int64_t run_id;

	assert_int_equal(STORE_SCHEMA_VERSION, 4);
	assert_int_equal(store_schema_version(fixture->store, &version), 0);
	assert_int_equal(version, 4);
	assert_int_equal(count_rows(fixture->path, "PRAGMA user_version"), 4);
	assert_int_equal(count_rows(fixture->path,
				    "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
				    " AND name IN ('bisections', 'bisection_runs', 'gates', 'gate_runs')"),
			 4);
	run_id = queue_run(fixture->store, "ath9k-ps", "c1afdaff");
	reopen(fixture);
	assert_int_equal(store_schema_version(fixture->store, &version), 0);
	assert_int_equal(version, 4);
	assert_int_equal(store_run_get(fixture->store, run_id, &run), 0);
	assert_string_equal(run.commit, "c1afdaff");
	store_run_release(&run);
}

/* Durability rests on the file's own settings: WAL is a property of the file. */
static void test_database_file_is_in_wal_mode(void **state)
{
	struct fixture *fixture = *state;
	sqlite3 *db;
	sqlite3_stmt *stmt;

	assert_int_equal(sqlite3_open_v2(fixture->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(stmt, 0), "wal");
	sqlite3_finalize(stmt);
	sqlite3_close(db);
}

static void test_newer_schema_is_refused(void **state)
{
	struct fixture *fixture = *state;
	struct store *store;
	sqlite3 *db;

	assert_int_equal(sqlite3_open(fixture->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(fixture->path, &store), STORE_ENEWER);
	assert_non_null(strstr(store_error_message(store), fixture->path));
	store_close(store);
	/* put it back so the fixture's integrity check reads a known schema */
	assert_int_equal(sqlite3_open(fixture->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = " STRINGIFY(STORE_SCHEMA_VERSION),
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
}

/* ---- a run's life ------------------------------------------------------------ */

static void test_run_goes_queued_running_done_with_symptoms_and_metrics(void **state)
{
	struct fixture *fixture = *state;
	struct store_result result = {
		.outcome = RUN_FAIL, .cause = "symptom",
		.symptoms = w3_symptoms, .symptom_count = 2,
		.metrics = w3_metrics, .metric_count = 3,
	};
	struct store_run run;
	int64_t run_id = queue_run(fixture->store, "ath9k-ps", "c1afdaff");

	assert_int_equal(store_run_get(fixture->store, run_id, &run), 0);
	assert_int_equal(run.state, RUN_QUEUED);
	assert_null(run.board);
	assert_int_equal(run.outcome, RUN_OUTCOME_NONE);
	assert_true(run.queued_at > 0 && run.started_at == 0);
	store_run_release(&run);

	assert_int_equal(store_run_start(fixture->store, run_id, "vb02"), 0);
	assert_int_equal(store_run_get(fixture->store, run_id, &run), 0);
	assert_int_equal(run.state, RUN_RUNNING);
	assert_string_equal(run.board, "vb02");
	assert_true(run.started_at >= run.queued_at);
	store_run_release(&run);

	assert_int_equal(store_run_finish(fixture->store, run_id, &result), 0);
	assert_int_equal(store_run_get(fixture->store, run_id, &run), 0);
	assert_int_equal(run.state, RUN_DONE);
	assert_int_equal(run.outcome, RUN_FAIL);
	assert_string_equal(run.cause, "symptom");
	assert_string_equal(run.job, "ath9k-ps");
	assert_string_equal(run.workload, "w3-idle-transitions");
	assert_true(run.finished_at >= run.started_at);
	assert_symptoms_equal(&run, w3_symptoms, 2);
	assert_metrics_equal(&run, w3_metrics, 3);
	store_run_release(&run);
}

static void test_finished_run_is_never_started_or_finished_again(void **state)
{
	struct fixture *fixture = *state;
	struct store_result pass = { .outcome = RUN_PASS };
	int64_t run_id = queue_run(fixture->store, "ath9k-ps", "v3.3");

	assert_int_equal(store_run_start(fixture->store, run_id, "vb01"), 0);
	assert_int_equal(store_run_start(fixture->store, run_id, "vb01"), -EALREADY);
	finish_run(fixture->store, run_id, RUN_PASS);
	assert_int_equal(store_run_finish(fixture->store, run_id, &pass), -EALREADY);
	assert_int_equal(store_run_start(fixture->store, run_id, "vb01"), -EALREADY);
	assert_int_equal(store_run_requeue(fixture->store, run_id), -EALREADY);
	assert_int_equal(store_run_start(fixture->store, run_id + 1000, "vb01"), -ENOENT);
	assert_int_equal(store_run_finish(fixture->store, run_id + 1000, &pass), -ENOENT);
}

/* A build failure is SKIP before any board is involved: queued -> done. */
static void test_queued_run_can_finish_as_skip(void **state)
{
	struct fixture *fixture = *state;
	struct store_run run;
	int64_t run_id = queue_run(fixture->store, "ath9k-ps", "broken");

	finish_run(fixture->store, run_id, RUN_SKIP);
	assert_int_equal(store_run_get(fixture->store, run_id, &run), 0);
	assert_int_equal(run.outcome, RUN_SKIP);
	assert_null(run.board);
	store_run_release(&run);
}

static void test_outcome_write_is_atomic(void **state)
{
	struct fixture *fixture = *state;
	struct store_metric metrics[] = { { "reconnect_time", 1.5, "s" }, { "ping_loss", NAN, "%" } };
	struct store_result result = {
		.outcome = RUN_INFRA, .cause = "console lost",
		.symptoms = w3_symptoms, .symptom_count = 2,
		.metrics = metrics, .metric_count = 2,
	};
	struct store_board_health health;
	struct store_run run;
	int64_t run_id = queue_run(fixture->store, "ath9k-ps", "c1afdaff");

	assert_int_equal(store_run_start(fixture->store, run_id, "vb03"), 0);
	/* the second metric breaks a constraint after the run, both symptoms and
	 * the first metric were written inside the transaction */
	assert_int_equal(store_run_finish(fixture->store, run_id, &result), -EINVAL);
	assert_non_null(strstr(store_error_message(fixture->store), "store metric"));
	assert_int_equal(store_run_get(fixture->store, run_id, &run), 0);
	assert_int_equal(run.state, RUN_RUNNING);
	assert_int_equal(run.outcome, RUN_OUTCOME_NONE);
	assert_null(run.cause);
	assert_int_equal(run.symptom_count, 0);
	assert_int_equal(run.metric_count, 0);
	store_run_release(&run);
	assert_int_equal(store_board_health_get(fixture->store, "vb03", &health), 0);
	assert_int_equal(health.consecutive_infra, 0);

	/* and the run can still be finished properly */
	metrics[1].value = 3.0;
	assert_int_equal(store_run_finish(fixture->store, run_id, &result), 0);
	assert_int_equal(store_run_get(fixture->store, run_id, &run), 0);
	assert_metrics_equal(&run, metrics, 2);
	store_run_release(&run);
}

/* ---- reads ------------------------------------------------------------------- */

static void test_runs_for_commit_are_counted_by_outcome(void **state)
{
	struct fixture *fixture = *state;
	static const enum run_outcome outcomes[] = { RUN_PASS, RUN_PASS, RUN_FAIL, RUN_INFRA, RUN_SKIP };
	struct store_run_list list;

	for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++)
		finish_run(fixture->store, queue_run(fixture->store, "ath9k-ps", "c1afdaff"), outcomes[i]);
	queue_run(fixture->store, "ath9k-ps", "c1afdaff");
	finish_run(fixture->store, queue_run(fixture->store, "ath9k-ps", "v3.3"), RUN_FAIL);
	finish_run(fixture->store, queue_run(fixture->store, "other-job", "c1afdaff"), RUN_FAIL);

	assert_int_equal(store_runs_for_commit(fixture->store, "ath9k-ps", "c1afdaff", &list), 0);
	assert_int_equal(list.count, 6);
	assert_int_equal(list.by_outcome[RUN_PASS], 2);
	assert_int_equal(list.by_outcome[RUN_FAIL], 1);
	assert_int_equal(list.by_outcome[RUN_INFRA], 1);
	assert_int_equal(list.by_outcome[RUN_SKIP], 1);
	assert_int_equal(list.by_outcome[RUN_OUTCOME_NONE], 1);
	assert_true(list.runs[0].id < list.runs[5].id);
	store_run_list_release(&list);

	assert_int_equal(store_runs_for_commit(fixture->store, NULL, "c1afdaff", &list), 0);
	assert_int_equal(list.count, 7);
	assert_int_equal(list.by_outcome[RUN_FAIL], 2);
	store_run_list_release(&list);

	assert_int_equal(store_runs_for_commit(fixture->store, NULL, "nonexistent", &list), 0);
	assert_int_equal(list.count, 0);
	store_run_list_release(&list);
}

static void test_last_runs_come_newest_first(void **state)
{
	struct fixture *fixture = *state;
	struct store_run_list list;
	int64_t ids[5];

	for (size_t i = 0; i < 5; i++)
		ids[i] = queue_run(fixture->store, "ath9k-ps", "c1afdaff");
	assert_int_equal(store_runs_last(fixture->store, 3, &list), 0);
	assert_int_equal(list.count, 3);
	assert_int_equal(list.runs[0].id, ids[4]);
	assert_int_equal(list.runs[2].id, ids[2]);
	store_run_list_release(&list);
}

static void test_unfinished_runs_are_found_after_a_crash(void **state)
{
	struct fixture *fixture = *state;
	struct store_run_list list;
	struct store_run run;
	int64_t done = queue_run(fixture->store, "ath9k-ps", "a");
	int64_t running = queue_run(fixture->store, "ath9k-ps", "b");
	int64_t queued = queue_run(fixture->store, "ath9k-ps", "c");

	assert_int_equal(store_run_start(fixture->store, done, "vb01"), 0);
	finish_run(fixture->store, done, RUN_PASS);
	assert_int_equal(store_run_start(fixture->store, running, "vb02"), 0);
	/* the coordinator dies here: nothing more is written */
	reopen(fixture);

	assert_int_equal(store_runs_unfinished(fixture->store, &list), 0);
	assert_int_equal(list.count, 2);
	assert_int_equal(list.runs[0].id, running);
	assert_int_equal(list.runs[0].state, RUN_RUNNING);
	assert_string_equal(list.runs[0].board, "vb02");
	assert_int_equal(list.runs[1].id, queued);
	store_run_list_release(&list);

	assert_int_equal(store_run_requeue(fixture->store, running), 0);
	assert_int_equal(store_run_get(fixture->store, running, &run), 0);
	assert_int_equal(run.state, RUN_QUEUED);
	assert_null(run.board);
	store_run_release(&run);
}

/* ---- builds and boards ------------------------------------------------------- */

static void test_builds_are_found_by_commit_by_tree_and_by_id(void **state)
{
	struct fixture *fixture = *state;
	struct store_build built = {
		.commit = "1111", .tree = "aaaa", .status = BUILD_BUILT, .release = "3.3.1-rc1",
		.artifact_path = "/cache/1111/bzImage", .log_path = "/cache/1111/build.log",
	};
	struct store_build failed = {
		.commit = "2222", .tree = "bbbb", .status = BUILD_FAILED, .log_path = "/cache/2222/build.log",
	};
	struct store_build found;
	int64_t built_id, failed_id, again_id;
	int64_t run_id;

	assert_int_equal(store_build_record(fixture->store, &built, &built_id), 0);
	assert_int_equal(store_build_record(fixture->store, &failed, &failed_id), 0);
	assert_int_equal(store_build_record(fixture->store, &built, &again_id), 0);
	assert_int_equal(again_id, built_id);

	assert_int_equal(store_build_find_by_tree(fixture->store, "aaaa", &found), 0);
	assert_int_equal(found.id, built_id);
	assert_string_equal(found.release, "3.3.1-rc1");
	assert_string_equal(found.artifact_path, "/cache/1111/bzImage");
	store_build_release(&found);
	assert_int_equal(store_build_find_by_commit(fixture->store, "2222", &found), 0);
	assert_int_equal(found.status, BUILD_FAILED);
	assert_null(found.artifact_path);
	store_build_release(&found);
	assert_int_equal(store_build_find_by_commit(fixture->store, "3333", &found), -ENOENT);
	assert_int_equal(store_build_get(fixture->store, failed_id, &found), 0);
	assert_string_equal(found.commit, "2222");
	assert_string_equal(found.log_path, "/cache/2222/build.log");
	store_build_release(&found);
	assert_int_equal(store_build_get(fixture->store, failed_id + built_id + 1000, &found), -ENOENT);
	assert_int_equal(store_build_get(fixture->store, 0, &found), -EINVAL);

	struct store_run_request request = {
		.job = "j", .commit = "1111", .build_id = built_id, .workload = "w1",
	};
	assert_int_equal(store_run_queue(fixture->store, &request, &run_id), 0);
	request.build_id = built_id + 1000;	/* no such build: refused */
	assert_int_equal(store_run_queue(fixture->store, &request, &run_id), -EINVAL);
}

static void finish_on_board(struct store *store, const char *board, enum run_outcome outcome)
{
	int64_t run_id = queue_run(store, "ath9k-ps", "c1afdaff");

	assert_int_equal(store_run_start(store, run_id, board), 0);
	finish_run(store, run_id, outcome);
}

/*
 * Two labs sharing one state directory, each with a board named vb01: each
 * sees its own unfinished runs and its own boards' health (issue 31: a lab
 * starting closed the other's live runs as interrupted and took its boards
 * offline).
 */
static void test_two_labs_in_one_state_keep_their_runs_and_boards_apart(void **state)
{
	struct fixture *fixture = *state;
	struct store *other = NULL;
	struct store_board_health health;
	struct store_run_list list;
	int64_t ours, theirs;

	assert_int_equal(store_open(fixture->path, &other), 0);
	assert_int_equal(store_set_lab(fixture->store, "rack-a"), 0);
	assert_int_equal(store_set_lab(other, "rack-b"), 0);
	ours = queue_run(fixture->store, "ath9k-ps", "1111");
	theirs = queue_run(other, "ath9k-ps", "1111");
	assert_int_equal(store_run_start(fixture->store, ours, "vb01"), 0);
	assert_int_equal(store_run_start(other, theirs, "vb01"), 0);

	assert_int_equal(store_runs_unfinished(other, &list), 0);
	assert_int_equal(list.count, 1);
	assert_int_equal(list.runs[0].id, theirs);
	store_run_list_release(&list);

	assert_int_equal(store_board_set_offline(other, "vb01", true), 0);
	finish_run(other, theirs, RUN_INFRA);
	assert_int_equal(store_board_health_get(fixture->store, "vb01", &health), 0);
	assert_false(health.offline);
	assert_int_equal(health.consecutive_infra, 0);
	assert_int_equal(store_board_health_get(other, "vb01", &health), 0);
	assert_true(health.offline);
	assert_int_equal(health.consecutive_infra, 1);

	/* a lab's own run is still its own to close */
	assert_int_equal(store_runs_unfinished(fixture->store, &list), 0);
	assert_int_equal(list.count, 1);
	assert_int_equal(list.runs[0].id, ours);
	store_run_list_release(&list);
	store_close(other);
}

static void test_board_health_counts_infra_in_a_row(void **state)
{
	struct fixture *fixture = *state;
	struct store_board_health health;

	assert_int_equal(store_board_health_get(fixture->store, "vb05", &health), 0);
	assert_int_equal(health.consecutive_infra, 0);
	assert_false(health.offline);
	finish_on_board(fixture->store, "vb05", RUN_INFRA);
	finish_on_board(fixture->store, "vb05", RUN_INFRA);
	finish_on_board(fixture->store, "vb05", RUN_SKIP);
	assert_int_equal(store_board_health_get(fixture->store, "vb05", &health), 0);
	assert_int_equal(health.consecutive_infra, 2);

	assert_int_equal(store_board_set_offline(fixture->store, "vb05", true), 0);
	assert_int_equal(store_board_health_checked(fixture->store, "vb05", false), 0);
	assert_int_equal(store_board_health_get(fixture->store, "vb05", &health), 0);
	assert_true(health.offline);
	assert_int_equal(health.consecutive_infra, 2);
	assert_true(health.last_health_check > 0);

	assert_int_equal(store_board_health_checked(fixture->store, "vb05", true), 0);
	assert_int_equal(store_board_health_get(fixture->store, "vb05", &health), 0);
	assert_false(health.offline);
	assert_int_equal(health.consecutive_infra, 0);

	finish_on_board(fixture->store, "vb05", RUN_INFRA);
	finish_on_board(fixture->store, "vb05", RUN_FAIL);
	assert_int_equal(store_board_health_get(fixture->store, "vb05", &health), 0);
	assert_int_equal(health.consecutive_infra, 0);
}

static void test_events_are_appended(void **state)
{
	struct fixture *fixture = *state;
	int64_t run_id = queue_run(fixture->store, "ath9k-ps", "c1afdaff");
	struct store_event hang = { .board = "vb02", .run_id = run_id, .kind = "hang",
				    .detail = "no output for 120 s" };
	struct store_event lab = { .kind = "lab-up" };

	assert_int_equal(store_event_append(fixture->store, &hang), 0);
	assert_int_equal(store_event_append(fixture->store, &lab), 0);
	hang.run_id = run_id + 1000;	/* an event about no run is refused */
	assert_int_equal(store_event_append(fixture->store, &hang), -EINVAL);
}

/* ---- hostile strings --------------------------------------------------------- */

static char *long_hostile_name(size_t length)
{
	static const char piece[] = "'; DROP TABLE runs; --\"\xff\xfe\xc3\x28\\%_";
	char *name = malloc(length + 1);

	assert_non_null(name);
	for (size_t i = 0; i < length; i++)
		name[i] = piece[i % (sizeof(piece) - 1)];
	name[length] = '\0';
	return name;
}

static void test_hostile_strings_come_back_verbatim(void **state)
{
	struct fixture *fixture = *state;
	char *huge = long_hostile_name(10 * 1024);
	const char *job = "job'); DELETE FROM runs; --";
	const char *board = "vb\"01\n;\t`reboot`";
	const char *commit = "--option-looking-ref";
	const char *workload = "\xc0\xaf\xed\xa0\x80 non-utf8 \x80\xff";
	struct store_symptom symptoms[] = { { huge, huge }, { "x'y", "a;b\"c" } };
	struct store_metric metrics[] = { { huge, -1e300, huge }, { "\xff", 0.0, NULL } };
	struct store_run_request request = {
		.job = job, .board = board, .commit = commit, .workload = workload,
	};
	struct store_result result = {
		.outcome = RUN_FAIL, .cause = huge,
		.symptoms = symptoms, .symptom_count = 2,
		.metrics = metrics, .metric_count = 2,
	};
	struct store_run_list list;
	struct store_run run;
	int64_t run_id;

	assert_int_equal(store_run_queue(fixture->store, &request, &run_id), 0);
	assert_int_equal(store_run_start(fixture->store, run_id, huge), 0);
	assert_int_equal(store_run_finish(fixture->store, run_id, &result), 0);
	assert_int_equal(store_run_get(fixture->store, run_id, &run), 0);
	assert_string_equal(run.job, job);
	assert_string_equal(run.board, huge);
	assert_string_equal(run.commit, commit);
	assert_string_equal(run.workload, workload);
	assert_string_equal(run.cause, huge);
	assert_symptoms_equal(&run, symptoms, 2);
	assert_int_equal(run.metric_count, 2);
	assert_string_equal(run.metrics[0].name, huge);
	assert_string_equal(run.metrics[0].unit, huge);
	assert_true(run.metrics[0].value == -1e300);
	assert_string_equal(run.metrics[1].name, "\xff");
	assert_null(run.metrics[1].unit);
	store_run_release(&run);

	/* a hostile job used as a filter matches itself and nothing else */
	assert_int_equal(store_runs_for_commit(fixture->store, job, commit, &list), 0);
	assert_int_equal(list.count, 1);
	store_run_list_release(&list);
	assert_int_equal(store_runs_for_commit(fixture->store, "job' OR '1'='1", commit, &list), 0);
	assert_int_equal(list.count, 0);
	store_run_list_release(&list);
	free(huge);
}

static void test_empty_names_are_refused(void **state)
{
	struct fixture *fixture = *state;
	struct store_symptom nameless[] = { { "", "evidence" } };
	struct store_result result = { .outcome = RUN_FAIL, .symptoms = nameless, .symptom_count = 1 };
	struct store_run_request request = { .job = "", .commit = "c", .workload = "w" };
	int64_t run_id;

	assert_int_equal(store_run_queue(fixture->store, &request, &run_id), -EINVAL);
	run_id = queue_run(fixture->store, "ath9k-ps", "c");
	assert_int_equal(store_run_finish(fixture->store, run_id, &result), -EINVAL);
	result.outcome = RUN_OUTCOME_NONE;
	assert_int_equal(store_run_finish(fixture->store, run_id, &result), -EINVAL);
}

/* ---- bisections -------------------------------------------------------------- */

static int64_t create_bisection(struct store *store, const char *job, const char *spec)
{
	int64_t id = 0;

	assert_int_equal(store_bisection_create(store, job, spec, &id), 0);
	assert_true(id > 0);
	return id;
}

static void finish_run_with_w3_result(struct store *store, int64_t run_id)
{
	struct store_result result = {
		.outcome = RUN_FAIL, .cause = "symptom",
		.symptoms = w3_symptoms, .symptom_count = 2,
		.metrics = w3_metrics, .metric_count = 3,
	};

	assert_int_equal(store_run_finish(store, run_id, &result), 0);
}

static void assert_bisection(struct store *store, int64_t id, enum store_bisection_state state,
			     const char *spec, const char *answer)
{
	struct store_bisection bisection;

	assert_int_equal(store_bisection_get(store, id, &bisection), 0);
	assert_int_equal(bisection.id, id);
	assert_int_equal(bisection.state, state);
	assert_string_equal(bisection.spec, spec);
	if (answer)
		assert_string_equal(bisection.answer, answer);
	else
		assert_null(bisection.answer);
	assert_true(bisection.created_at > 0);
	if (state == STORE_BISECTION_RUNNING)
		assert_int_equal(bisection.finished_at, 0);
	else
		assert_true(bisection.finished_at >= bisection.created_at);
	store_bisection_release(&bisection);
}

static void test_bisection_is_created_running_and_read_back(void **state)
{
	struct fixture *fixture = *state;
	/* JSON the store must not look into, with quotes and SQL in it */
	const char *spec = "{\"good\": \"v3.3\", \"bad\": \"c1afdaff\","
			   " \"note\": \"it's \\\"odd\\\"'); DROP TABLE bisections; --\"}";
	struct store_bisection bisection;
	int64_t id = create_bisection(fixture->store, "ath9k-ps", spec);
	int64_t other = create_bisection(fixture->store, "other-job", "{}");

	assert_true(other > id);
	assert_int_equal(store_bisection_get(fixture->store, id, &bisection), 0);
	assert_int_equal(bisection.id, id);
	assert_string_equal(bisection.job, "ath9k-ps");
	assert_string_equal(bisection.spec, spec);
	assert_int_equal(bisection.state, STORE_BISECTION_RUNNING);
	assert_null(bisection.answer);
	assert_true(bisection.created_at > 0);
	assert_int_equal(bisection.finished_at, 0);
	store_bisection_release(&bisection);
	assert_null(bisection.job);
	store_bisection_release(&bisection);	/* a released one: nothing to free */

	assert_int_equal(store_bisection_get(fixture->store, other, &bisection), 0);
	assert_string_equal(bisection.job, "other-job");
	assert_string_equal(bisection.spec, "{}");
	store_bisection_release(&bisection);

	assert_int_equal(store_bisection_get(fixture->store, other + 1000, &bisection), -ENOENT);
	assert_non_null(strstr(store_error_message(fixture->store), "bisection"));
	assert_null(bisection.job);

	assert_int_equal(store_bisection_create(fixture->store, NULL, "{}", &id), -EINVAL);
	assert_int_equal(store_bisection_create(fixture->store, "", "{}", &id), -EINVAL);
	assert_int_equal(store_bisection_create(fixture->store, "ath9k-ps", NULL, &id), -EINVAL);
	assert_int_equal(store_bisection_latest(fixture->store, &bisection), 0);
	assert_int_equal(bisection.id, other);	/* the refused ones left nothing */
	store_bisection_release(&bisection);
}

static void test_latest_bisection_is_the_newest_whatever_its_state(void **state)
{
	struct fixture *fixture = *state;
	struct store_bisection latest;
	int64_t first, second, third;

	assert_int_equal(store_bisection_latest(fixture->store, &latest), -ENOENT);
	assert_null(latest.job);
	first = create_bisection(fixture->store, "ath9k-ps", "{\"n\": 1}");
	second = create_bisection(fixture->store, "ath9k-ps", "{\"n\": 2}");
	assert_int_equal(store_bisection_finish(fixture->store, second, STORE_BISECTION_DONE,
						"{\"first_bad\": \"abcd\"}"),
			 0);
	assert_int_equal(store_bisection_latest(fixture->store, &latest), 0);
	assert_int_equal(latest.id, second);
	assert_int_equal(latest.state, STORE_BISECTION_DONE);
	assert_string_equal(latest.spec, "{\"n\": 2}");
	assert_string_equal(latest.answer, "{\"first_bad\": \"abcd\"}");
	store_bisection_release(&latest);

	third = create_bisection(fixture->store, "other-job", "{\"n\": 3}");
	assert_int_equal(store_bisection_finish(fixture->store, third, STORE_BISECTION_ABORTED, NULL), 0);
	/* changing an older one later does not make it the latest */
	assert_int_equal(store_bisection_finish(fixture->store, first, STORE_BISECTION_ABORTED, "{}"), 0);
	assert_int_equal(store_bisection_latest(fixture->store, &latest), 0);
	assert_int_equal(latest.id, third);
	assert_string_equal(latest.job, "other-job");
	assert_int_equal(latest.state, STORE_BISECTION_ABORTED);
	store_bisection_release(&latest);
}

static void test_bisection_spec_is_replaced(void **state)
{
	struct fixture *fixture = *state;
	struct store_bisection bisection;
	int64_t id = create_bisection(fixture->store, "ath9k-ps", "{\"symptom\": null}");
	int64_t other = create_bisection(fixture->store, "ath9k-ps", "{\"symptom\": \"hang\"}");

	assert_int_equal(store_bisection_set_spec(fixture->store, id,
						  "{\"symptom\": \"txdma-stop-fail\"}"),
			 0);
	assert_int_equal(store_bisection_get(fixture->store, id, &bisection), 0);
	assert_string_equal(bisection.spec, "{\"symptom\": \"txdma-stop-fail\"}");
	assert_string_equal(bisection.job, "ath9k-ps");
	assert_int_equal(bisection.state, STORE_BISECTION_RUNNING);
	store_bisection_release(&bisection);
	assert_bisection(fixture->store, other, STORE_BISECTION_RUNNING, "{\"symptom\": \"hang\"}", NULL);

	assert_int_equal(store_bisection_set_spec(fixture->store, other + 1000, "{}"), -ENOENT);
	assert_non_null(strstr(store_error_message(fixture->store), "no such bisection"));
	assert_int_equal(store_bisection_set_spec(fixture->store, id, NULL), -EINVAL);

	/* whatever the state: a finished bisection keeps its answer */
	assert_int_equal(store_bisection_finish(fixture->store, id, STORE_BISECTION_DONE, "{\"a\": 1}"), 0);
	assert_int_equal(store_bisection_set_spec(fixture->store, id, "{\"symptom\": \"x\"}"), 0);
	assert_bisection(fixture->store, id, STORE_BISECTION_DONE, "{\"symptom\": \"x\"}", "{\"a\": 1}");
}

static void test_bisection_finish_and_reopen_follow_the_state_rules(void **state)
{
	struct fixture *fixture = *state;
	struct store *store = fixture->store;
	const char *answer = "{\"first_bad\": \"abcd\", \"confidence\": 0.99}";
	int64_t done = create_bisection(store, "ath9k-ps", "{}");
	int64_t stopped = create_bisection(store, "ath9k-ps", "{}");

	/* refused arguments change nothing */
	assert_int_equal(store_bisection_finish(store, done, STORE_BISECTION_RUNNING, "{}"), -EINVAL);
	assert_int_equal(store_bisection_finish(store, done, (enum store_bisection_state)7, "{}"),
			 -EINVAL);
	assert_int_equal(store_bisection_finish(store, done, STORE_BISECTION_DONE, NULL), -EINVAL);
	assert_bisection(store, done, STORE_BISECTION_RUNNING, "{}", NULL);

	/* running -> done, then never finished or reopened again */
	assert_int_equal(store_bisection_finish(store, done, STORE_BISECTION_DONE, answer), 0);
	assert_bisection(store, done, STORE_BISECTION_DONE, "{}", answer);
	assert_int_equal(store_bisection_finish(store, done, STORE_BISECTION_DONE, "{\"x\": 2}"),
			 -EALREADY);
	assert_non_null(strstr(store_error_message(store), "done"));
	assert_int_equal(store_bisection_finish(store, done, STORE_BISECTION_ABORTED, NULL), -EALREADY);
	assert_int_equal(store_bisection_reopen(store, done), -EALREADY);
	assert_bisection(store, done, STORE_BISECTION_DONE, "{}", answer);

	/* running -> aborted: not finished again, but reopened */
	assert_int_equal(store_bisection_finish(store, stopped, STORE_BISECTION_ABORTED,
						"{\"reason\": \"INFRA on every board\"}"),
			 0);
	assert_bisection(store, stopped, STORE_BISECTION_ABORTED, "{}",
			 "{\"reason\": \"INFRA on every board\"}");
	assert_int_equal(store_bisection_finish(store, stopped, STORE_BISECTION_DONE, answer),
			 -EALREADY);
	assert_non_null(strstr(store_error_message(store), "aborted"));
	assert_int_equal(store_bisection_reopen(store, stopped), 0);
	assert_bisection(store, stopped, STORE_BISECTION_RUNNING, "{}", NULL);
	/* a running one stays running: resume after a crash may reopen blindly */
	assert_int_equal(store_bisection_reopen(store, stopped), 0);
	assert_bisection(store, stopped, STORE_BISECTION_RUNNING, "{}", NULL);
	/* aborted without an answer, reopened, then done for good */
	assert_int_equal(store_bisection_finish(store, stopped, STORE_BISECTION_ABORTED, NULL), 0);
	assert_bisection(store, stopped, STORE_BISECTION_ABORTED, "{}", NULL);
	assert_int_equal(store_bisection_reopen(store, stopped), 0);
	assert_int_equal(store_bisection_finish(store, stopped, STORE_BISECTION_DONE, answer), 0);
	assert_int_equal(store_bisection_reopen(store, stopped), -EALREADY);
	assert_bisection(store, stopped, STORE_BISECTION_DONE, "{}", answer);

	assert_int_equal(store_bisection_finish(store, stopped + 1000, STORE_BISECTION_DONE, answer),
			 -ENOENT);
	assert_int_equal(store_bisection_reopen(store, stopped + 1000), -ENOENT);
}

static void test_bisection_add_run_refuses_missing_and_duplicate_links(void **state)
{
	struct fixture *fixture = *state;
	struct store *store = fixture->store;
	struct store_run_list list;
	char **roles;
	int64_t bisection = create_bisection(store, "ath9k-ps", "{}");
	int64_t run = queue_run(store, "ath9k-ps", "c1afdaff");
	int64_t other_run = queue_run(store, "ath9k-ps", "v3.3");

	assert_int_equal(store_bisection_add_run(store, bisection, run, "bad-end"), 0);
	assert_int_equal(store_bisection_add_run(store, bisection, run, "bad-end"), -EEXIST);
	assert_non_null(strstr(store_error_message(store), "already linked"));
	assert_int_equal(store_bisection_add_run(store, bisection, run, "candidate"), -EEXIST);

	assert_int_equal(store_bisection_add_run(store, bisection + 1000, run, "candidate"), -ENOENT);
	assert_non_null(strstr(store_error_message(store), "no such bisection"));
	assert_int_equal(store_bisection_add_run(store, bisection, other_run + 1000, "candidate"),
			 -ENOENT);
	assert_non_null(strstr(store_error_message(store), "no such run"));
	assert_int_equal(store_bisection_add_run(store, bisection, other_run, ""), -EINVAL);
	assert_int_equal(store_bisection_add_run(store, bisection, other_run, NULL), -EINVAL);

	/* only the first link is there, with its first role */
	assert_int_equal(store_bisection_runs(store, bisection, &list, &roles), 0);
	assert_int_equal(list.count, 1);
	assert_int_equal(list.runs[0].id, run);
	assert_string_equal(roles[0], "bad-end");
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);

	/* the refused ones left other_run free to be linked */
	assert_int_equal(store_bisection_add_run(store, bisection, other_run, "good-end"), 0);
}

static void test_bisection_runs_come_oldest_first_with_roles_and_symptoms(void **state)
{
	struct fixture *fixture = *state;
	struct store *store = fixture->store;
	int64_t bisection = create_bisection(store, "ath9k-ps", "{}");
	int64_t other = create_bisection(store, "ath9k-ps", "{}");
	int64_t empty = create_bisection(store, "ath9k-ps", "{}");
	int64_t bad = queue_run(store, "ath9k-ps", "c1afdaff");
	int64_t good = queue_run(store, "ath9k-ps", "v3.3");
	int64_t unrelated = queue_run(store, "ath9k-ps", "ffff");
	int64_t candidate = queue_run(store, "ath9k-ps", "abcd");
	int64_t pending = queue_run(store, "ath9k-ps", "1234");
	struct store_run_list list;
	char **roles;

	finish_run_with_w3_result(store, bad);
	finish_run(store, good, RUN_PASS);
	finish_run(store, candidate, RUN_INFRA);
	finish_run(store, unrelated, RUN_PASS);
	/* linked out of order: the list still comes oldest run first */
	assert_int_equal(store_bisection_add_run(store, bisection, candidate, "candidate"), 0);
	assert_int_equal(store_bisection_add_run(store, bisection, pending, "confirm"), 0);
	assert_int_equal(store_bisection_add_run(store, bisection, good, "good-end"), 0);
	assert_int_equal(store_bisection_add_run(store, bisection, bad, "bad-end"), 0);
	/* a run may serve another bisection, in another role */
	assert_int_equal(store_bisection_add_run(store, other, unrelated, "good-end"), 0);
	assert_int_equal(store_bisection_add_run(store, other, bad, "confirm"), 0);

	assert_int_equal(store_bisection_runs(store, bisection, &list, &roles), 0);
	assert_int_equal(list.count, 4);
	assert_int_equal(list.runs[0].id, bad);
	assert_int_equal(list.runs[1].id, good);
	assert_int_equal(list.runs[2].id, candidate);
	assert_int_equal(list.runs[3].id, pending);
	assert_string_equal(roles[0], "bad-end");
	assert_string_equal(roles[1], "good-end");
	assert_string_equal(roles[2], "candidate");
	assert_string_equal(roles[3], "confirm");
	assert_string_equal(list.runs[0].commit, "c1afdaff");
	assert_string_equal(list.runs[0].cause, "symptom");
	assert_symptoms_equal(&list.runs[0], w3_symptoms, 2);
	assert_metrics_equal(&list.runs[0], w3_metrics, 3);
	assert_int_equal(list.runs[1].symptom_count + list.runs[1].metric_count, 0);
	assert_int_equal(list.runs[3].state, RUN_QUEUED);
	assert_int_equal(list.by_outcome[RUN_FAIL], 1);
	assert_int_equal(list.by_outcome[RUN_PASS], 1);
	assert_int_equal(list.by_outcome[RUN_INFRA], 1);
	assert_int_equal(list.by_outcome[RUN_OUTCOME_NONE], 1);
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);

	assert_int_equal(store_bisection_runs(store, other, &list, &roles), 0);
	assert_int_equal(list.count, 2);
	assert_int_equal(list.runs[0].id, bad);
	assert_int_equal(list.runs[1].id, unrelated);
	assert_string_equal(roles[0], "confirm");
	assert_string_equal(roles[1], "good-end");
	assert_symptoms_equal(&list.runs[0], w3_symptoms, 2);
	assert_int_equal(list.by_outcome[RUN_PASS], 1);
	assert_int_equal(list.by_outcome[RUN_FAIL], 1);
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);

	assert_int_equal(store_bisection_runs(store, empty, &list, &roles), 0);
	assert_int_equal(list.count, 0);
	assert_null(roles);
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);

	assert_int_equal(store_bisection_runs(store, empty + 1000, &list, &roles), -ENOENT);
	assert_int_equal(list.count, 0);
	assert_null(roles);
}

static void test_bisections_survive_close_and_reopen(void **state)
{
	struct fixture *fixture = *state;
	const char *spec = "{\"good\": \"v3.3\", \"bad\": \"c1afdaff\", \"symptom\": \"txdma-stop-fail\"}";
	struct store_bisection latest;
	struct store_run_list list;
	char **roles;
	int64_t done = create_bisection(fixture->store, "ath9k-ps", "{\"done\": true}");
	int64_t running = create_bisection(fixture->store, "ath9k-ps", "{\"symptom\": null}");
	int64_t bad = queue_run(fixture->store, "ath9k-ps", "c1afdaff");
	int64_t good = queue_run(fixture->store, "ath9k-ps", "v3.3");
	int64_t candidate = queue_run(fixture->store, "ath9k-ps", "abcd");

	assert_int_equal(store_bisection_add_run(fixture->store, done, good, "good-end"), 0);
	finish_run(fixture->store, good, RUN_PASS);
	assert_int_equal(store_bisection_finish(fixture->store, done, STORE_BISECTION_DONE,
						"{\"first_bad\": \"abcd\"}"),
			 0);
	assert_int_equal(store_bisection_add_run(fixture->store, running, bad, "bad-end"), 0);
	finish_run_with_w3_result(fixture->store, bad);
	assert_int_equal(store_bisection_set_spec(fixture->store, running, spec), 0);
	assert_int_equal(store_bisection_add_run(fixture->store, running, candidate, "candidate"), 0);
	assert_int_equal(store_run_start(fixture->store, candidate, "vb02"), 0);
	/* the coordinator dies here: nothing more is written */
	reopen(fixture);

	assert_bisection(fixture->store, done, STORE_BISECTION_DONE, "{\"done\": true}",
			 "{\"first_bad\": \"abcd\"}");
	assert_int_equal(store_bisection_latest(fixture->store, &latest), 0);
	assert_int_equal(latest.id, running);
	assert_int_equal(latest.state, STORE_BISECTION_RUNNING);
	assert_string_equal(latest.job, "ath9k-ps");
	assert_string_equal(latest.spec, spec);
	assert_null(latest.answer);
	store_bisection_release(&latest);

	assert_int_equal(store_bisection_runs(fixture->store, running, &list, &roles), 0);
	assert_int_equal(list.count, 2);
	assert_int_equal(list.runs[0].id, bad);
	assert_string_equal(roles[0], "bad-end");
	assert_symptoms_equal(&list.runs[0], w3_symptoms, 2);
	assert_metrics_equal(&list.runs[0], w3_metrics, 3);
	assert_int_equal(list.runs[1].id, candidate);
	assert_string_equal(roles[1], "candidate");
	assert_int_equal(list.runs[1].state, RUN_RUNNING);
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);
	assert_int_equal(store_bisection_runs(fixture->store, done, &list, &roles), 0);
	assert_int_equal(list.count, 1);
	assert_string_equal(roles[0], "good-end");
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);

	/* and resume carries on where it stopped */
	assert_int_equal(store_bisection_reopen(fixture->store, running), 0);
	assert_int_equal(store_bisection_add_run(fixture->store, running, candidate, "confirm"), -EEXIST);
	assert_int_equal(store_bisection_finish(fixture->store, running, STORE_BISECTION_DONE, "{}"), 0);
}

/* ---- gates ------------------------------------------------------------------- */

static int64_t create_gate(struct store *store, const char *job, const char *spec)
{
	int64_t id = 0;

	assert_int_equal(store_gate_create(store, job, spec, &id), 0);
	assert_true(id > 0);
	return id;
}

static void finish_gate(struct store *store, int64_t id, const char *verdict, const char *answer)
{
	assert_int_equal(store_gate_finish(store, id, STORE_GATE_DONE, verdict, answer), 0);
}

/* Reads gate id back and checks it (verdict, answer NULL: expected NULL). */
static void assert_gate(struct store *store, int64_t id, enum store_gate_state state,
			const char *spec, const char *verdict, const char *answer,
			int64_t bisection_id)
{
	struct store_gate gate;

	assert_int_equal(store_gate_get(store, id, &gate), 0);
	assert_int_equal(gate.id, id);
	assert_int_equal(gate.state, state);
	assert_string_equal(gate.spec, spec);
	if (verdict)
		assert_string_equal(gate.verdict, verdict);
	else
		assert_null(gate.verdict);
	if (answer)
		assert_string_equal(gate.answer, answer);
	else
		assert_null(gate.answer);
	assert_int_equal(gate.bisection_id, bisection_id);
	assert_true(gate.created_ms > 0);
	if (state == STORE_GATE_RUNNING)
		assert_int_equal(gate.finished_ms, 0);
	else
		assert_true(gate.finished_ms >= gate.created_ms);
	store_gate_release(&gate);
}

static void test_gate_is_created_running_and_read_back(void **state)
{
	struct fixture *fixture = *state;
	/* JSON the store must not look into, with quotes and SQL in it */
	const char *spec = "{\"baseline\": \"v6.8\", \"candidate\": \"nightly-0412\","
			   " \"note\": \"it's \\\"odd\\\"'); DROP TABLE gates; --\"}";
	struct store_gate gate;
	int64_t id = create_gate(fixture->store, "ath9k-ps", spec);
	int64_t other = create_gate(fixture->store, "other-job", "{}");

	assert_true(other > id);
	assert_int_equal(store_gate_get(fixture->store, id, &gate), 0);
	assert_int_equal(gate.id, id);
	assert_string_equal(gate.job, "ath9k-ps");
	assert_string_equal(gate.spec, spec);
	assert_int_equal(gate.state, STORE_GATE_RUNNING);
	assert_null(gate.verdict);
	assert_null(gate.answer);
	assert_int_equal(gate.bisection_id, 0);
	assert_true(gate.created_ms > 0);
	assert_int_equal(gate.finished_ms, 0);
	store_gate_release(&gate);
	assert_null(gate.job);
	store_gate_release(&gate);	/* a released one: nothing to free */

	assert_int_equal(store_gate_get(fixture->store, other, &gate), 0);
	assert_string_equal(gate.job, "other-job");
	assert_string_equal(gate.spec, "{}");
	store_gate_release(&gate);

	assert_int_equal(store_gate_get(fixture->store, other + 1000, &gate), -ENOENT);
	assert_non_null(strstr(store_error_message(fixture->store), "no such gate"));
	assert_null(gate.job);

	assert_int_equal(store_gate_create(fixture->store, NULL, "{}", &id), -EINVAL);
	assert_int_equal(store_gate_create(fixture->store, "", "{}", &id), -EINVAL);
	assert_int_equal(store_gate_create(fixture->store, "ath9k-ps", NULL, &id), -EINVAL);
	assert_int_equal(store_gate_latest(fixture->store, &gate), 0);
	assert_int_equal(gate.id, other);	/* the refused ones left nothing */
	store_gate_release(&gate);
	/* gates are not bisections: none of these is one */
	assert_int_equal(store_bisection_get(fixture->store, id, &(struct store_bisection){ 0 }),
			 -ENOENT);
	assert_int_equal(count_rows(fixture->path, "SELECT count(*) FROM gates"), 2);
}

static void test_latest_gate_is_the_newest_whatever_its_state(void **state)
{
	struct fixture *fixture = *state;
	struct store_gate latest;
	int64_t first, second, third;

	assert_int_equal(store_gate_latest(fixture->store, &latest), -ENOENT);
	assert_non_null(strstr(store_error_message(fixture->store), "no such gate"));
	assert_null(latest.job);
	/* a bisection is no gate */
	create_bisection(fixture->store, "ath9k-ps", "{}");
	assert_int_equal(store_gate_latest(fixture->store, &latest), -ENOENT);

	first = create_gate(fixture->store, "ath9k-ps", "{\"n\": 1}");
	second = create_gate(fixture->store, "ath9k-ps", "{\"n\": 2}");
	finish_gate(fixture->store, second, "PASS", "{\"regressions\": []}");
	assert_int_equal(store_gate_latest(fixture->store, &latest), 0);
	assert_int_equal(latest.id, second);
	assert_int_equal(latest.state, STORE_GATE_DONE);
	assert_string_equal(latest.spec, "{\"n\": 2}");
	assert_string_equal(latest.verdict, "PASS");
	assert_string_equal(latest.answer, "{\"regressions\": []}");
	store_gate_release(&latest);

	third = create_gate(fixture->store, "other-job", "{\"n\": 3}");
	assert_int_equal(store_gate_finish(fixture->store, third, STORE_GATE_ABORTED, NULL, NULL), 0);
	/* changing an older one later does not make it the latest */
	finish_gate(fixture->store, first, "REGRESSION", "{}");
	/* nor does a newer bisection */
	create_bisection(fixture->store, "ath9k-ps", "{}");
	assert_int_equal(store_gate_latest(fixture->store, &latest), 0);
	assert_int_equal(latest.id, third);
	assert_string_equal(latest.job, "other-job");
	assert_int_equal(latest.state, STORE_GATE_ABORTED);
	assert_null(latest.verdict);
	store_gate_release(&latest);
}

static void test_gate_finish_follows_the_state_rules(void **state)
{
	struct fixture *fixture = *state;
	struct store *store = fixture->store;
	const char *answer = "{\"regressions\": [{\"workload\": \"w3\", \"symptom\": \"hang\"}]}";
	int64_t done = create_gate(store, "ath9k-ps", "{}");
	int64_t stopped = create_gate(store, "ath9k-ps", "{}");
	int64_t quiet = create_gate(store, "ath9k-ps", "{}");

	/* refused arguments change nothing */
	assert_int_equal(store_gate_finish(store, done, STORE_GATE_RUNNING, "PASS", "{}"), -EINVAL);
	assert_int_equal(store_gate_finish(store, done, (enum store_gate_state)7, "PASS", "{}"),
			 -EINVAL);
	assert_int_equal(store_gate_finish(store, done, STORE_GATE_DONE, NULL, "{}"), -EINVAL);
	assert_non_null(strstr(store_error_message(store), "verdict"));
	assert_int_equal(store_gate_finish(store, done, STORE_GATE_DONE, "", "{}"), -EINVAL);
	assert_int_equal(store_gate_finish(store, done, STORE_GATE_DONE, "PASS", NULL), -EINVAL);
	assert_non_null(strstr(store_error_message(store), "answer"));
	assert_gate(store, done, STORE_GATE_RUNNING, "{}", NULL, NULL, 0);

	/* running -> done, then never finished again */
	finish_gate(store, done, "REGRESSION", answer);
	assert_gate(store, done, STORE_GATE_DONE, "{}", "REGRESSION", answer, 0);
	assert_int_equal(store_gate_finish(store, done, STORE_GATE_DONE, "PASS", "{}"), -EALREADY);
	assert_non_null(strstr(store_error_message(store), "the gate is done"));
	assert_int_equal(store_gate_finish(store, done, STORE_GATE_ABORTED, NULL, NULL), -EALREADY);
	assert_gate(store, done, STORE_GATE_DONE, "{}", "REGRESSION", answer, 0);

	/* running -> aborted, with or without a word, then never finished again */
	assert_int_equal(store_gate_finish(store, stopped, STORE_GATE_ABORTED, "INFRA",
					   "{\"reason\": \"INFRA on every board\"}"),
			 0);
	assert_gate(store, stopped, STORE_GATE_ABORTED, "{}", "INFRA",
		    "{\"reason\": \"INFRA on every board\"}", 0);
	assert_int_equal(store_gate_finish(store, stopped, STORE_GATE_DONE, "PASS", "{}"), -EALREADY);
	assert_non_null(strstr(store_error_message(store), "the gate is aborted"));
	assert_int_equal(store_gate_finish(store, quiet, STORE_GATE_ABORTED, NULL, NULL), 0);
	assert_gate(store, quiet, STORE_GATE_ABORTED, "{}", NULL, NULL, 0);
	assert_int_equal(store_gate_finish(store, quiet, STORE_GATE_ABORTED, NULL, NULL), -EALREADY);

	assert_int_equal(store_gate_finish(store, quiet + 1000, STORE_GATE_DONE, "PASS", "{}"),
			 -ENOENT);
	assert_non_null(strstr(store_error_message(store), "no such gate"));
}

/* `gate resume`: an aborted gate runs again, its verdict and answer cleared;
 * a running one (its coordinator died) stays running; a done one is final. */
static void test_gate_reopen_follows_the_state_rules(void **state)
{
	struct fixture *fixture = *state;
	struct store *store = fixture->store;
	int64_t done = create_gate(store, "ath9k-ps", "{}");
	int64_t stopped = create_gate(store, "ath9k-ps", "{}");

	finish_gate(store, done, "PASS", "{}");
	assert_int_equal(store_gate_reopen(store, done), -EALREADY);
	assert_non_null(strstr(store_error_message(store), "the gate is done"));
	assert_gate(store, done, STORE_GATE_DONE, "{}", "PASS", "{}", 0);

	assert_int_equal(store_gate_reopen(store, stopped), 0);	/* running: left so */
	assert_gate(store, stopped, STORE_GATE_RUNNING, "{}", NULL, NULL, 0);
	assert_int_equal(store_gate_finish(store, stopped, STORE_GATE_ABORTED, "INFRA",
					   "{\"reason\": \"interrupted\"}"), 0);
	assert_int_equal(store_gate_reopen(store, stopped), 0);
	assert_gate(store, stopped, STORE_GATE_RUNNING, "{}", NULL, NULL, 0);
	finish_gate(store, stopped, "REGRESSION", "{}");
	assert_gate(store, stopped, STORE_GATE_DONE, "{}", "REGRESSION", "{}", 0);

	assert_int_equal(store_gate_reopen(store, stopped + 1000), -ENOENT);
}

static void test_gate_spec_is_replaced(void **state)
{
	struct fixture *fixture = *state;
	int64_t id = create_gate(fixture->store, "ath9k-ps", "{\"candidate\": null}");
	int64_t other = create_gate(fixture->store, "ath9k-ps", "{\"candidate\": \"v6.9\"}");

	assert_int_equal(store_gate_set_spec(fixture->store, id, "{\"candidate\": \"abcd\"}"), 0);
	assert_gate(fixture->store, id, STORE_GATE_RUNNING, "{\"candidate\": \"abcd\"}", NULL, NULL, 0);
	assert_gate(fixture->store, other, STORE_GATE_RUNNING, "{\"candidate\": \"v6.9\"}", NULL, NULL,
		    0);

	assert_int_equal(store_gate_set_spec(fixture->store, other + 1000, "{}"), -ENOENT);
	assert_non_null(strstr(store_error_message(fixture->store), "no such gate"));
	assert_int_equal(store_gate_set_spec(fixture->store, id, NULL), -EINVAL);

	/* whatever the state: a finished gate keeps its verdict and answer */
	finish_gate(fixture->store, id, "PASS", "{\"a\": 1}");
	assert_int_equal(store_gate_set_spec(fixture->store, id, "{\"x\": 2}"), 0);
	assert_gate(fixture->store, id, STORE_GATE_DONE, "{\"x\": 2}", "PASS", "{\"a\": 1}", 0);
}

static void test_gate_set_bisection_records_the_bisection_it_started(void **state)
{
	struct fixture *fixture = *state;
	struct store *store = fixture->store;
	int64_t gate = create_gate(store, "ath9k-ps", "{}");
	int64_t other = create_gate(store, "ath9k-ps", "{}");
	int64_t bisection = create_bisection(store, "ath9k-ps", "{\"from_gate\": 1}");
	int64_t second = create_bisection(store, "ath9k-ps", "{}");

	assert_int_equal(store_gate_set_bisection(store, gate, bisection), 0);
	assert_gate(store, gate, STORE_GATE_RUNNING, "{}", NULL, NULL, bisection);
	assert_gate(store, other, STORE_GATE_RUNNING, "{}", NULL, NULL, 0);
	assert_bisection(store, bisection, STORE_BISECTION_RUNNING, "{\"from_gate\": 1}", NULL);

	/* no such bisection, no such gate: refused, nothing changed */
	assert_int_equal(store_gate_set_bisection(store, gate, second + 1000), -ENOENT);
	assert_non_null(strstr(store_error_message(store), "no such bisection"));
	assert_gate(store, gate, STORE_GATE_RUNNING, "{}", NULL, NULL, bisection);
	assert_int_equal(store_gate_set_bisection(store, other + 1000, bisection), -ENOENT);
	assert_non_null(strstr(store_error_message(store), "no such gate"));

	/* whatever the state: a gate finds the regression, then starts the bisection */
	finish_gate(store, gate, "REGRESSION", "{}");
	assert_int_equal(store_gate_set_bisection(store, gate, second), 0);
	assert_gate(store, gate, STORE_GATE_DONE, "{}", "REGRESSION", "{}", second);
	reopen(fixture);
	assert_gate(fixture->store, gate, STORE_GATE_DONE, "{}", "REGRESSION", "{}", second);
	/* and 0 forgets it */
	assert_int_equal(store_gate_set_bisection(fixture->store, gate, 0), 0);
	assert_gate(fixture->store, gate, STORE_GATE_DONE, "{}", "REGRESSION", "{}", 0);
}

static void test_gate_add_run_refuses_missing_and_duplicate_links(void **state)
{
	struct fixture *fixture = *state;
	struct store *store = fixture->store;
	struct store_run_list list;
	char **roles;
	int64_t gate = create_gate(store, "ath9k-ps", "{}");
	int64_t bisection = create_bisection(store, "ath9k-ps", "{}");
	int64_t run = queue_run(store, "ath9k-ps", "v6.8");
	int64_t other_run = queue_run(store, "ath9k-ps", "nightly");

	assert_int_equal(gate, bisection);	/* ids are per table: the same number */
	assert_int_equal(store_gate_add_run(store, gate, run, "baseline"), 0);
	assert_int_equal(store_gate_add_run(store, gate, run, "baseline"), -EEXIST);
	assert_non_null(strstr(store_error_message(store), "already linked"));
	assert_int_equal(store_gate_add_run(store, gate, run, "candidate"), -EEXIST);

	assert_int_equal(store_gate_add_run(store, gate + 1000, run, "candidate"), -ENOENT);
	assert_non_null(strstr(store_error_message(store), "no such gate"));
	assert_int_equal(store_gate_add_run(store, gate, other_run + 1000, "candidate"), -ENOENT);
	assert_non_null(strstr(store_error_message(store), "no such run"));
	assert_int_equal(store_gate_add_run(store, gate, other_run, ""), -EINVAL);
	assert_int_equal(store_gate_add_run(store, gate, other_run, NULL), -EINVAL);

	/* only the first link is there, with its first role */
	assert_int_equal(store_gate_runs(store, gate, &list, &roles), 0);
	assert_int_equal(list.count, 1);
	assert_int_equal(list.runs[0].id, run);
	assert_string_equal(roles[0], "baseline");
	store_gate_roles_free(roles, list.count);
	store_run_list_release(&list);

	/* a gate's links are not its namesake bisection's, nor the other way round */
	assert_int_equal(store_bisection_runs(store, bisection, &list, &roles), 0);
	assert_int_equal(list.count, 0);
	store_run_list_release(&list);
	assert_int_equal(store_bisection_add_run(store, bisection, run, "bad-end"), 0);
	assert_int_equal(store_bisection_add_run(store, bisection, other_run, "good-end"), 0);
	/* the refused ones left other_run free to be linked */
	assert_int_equal(store_gate_add_run(store, gate, other_run, "candidate"), 0);
	assert_int_equal(count_rows(fixture->path, "SELECT count(*) FROM gate_runs"), 2);
	assert_int_equal(count_rows(fixture->path, "SELECT count(*) FROM bisection_runs"), 2);
}

static void test_gate_runs_come_oldest_first_with_roles_and_symptoms(void **state)
{
	struct fixture *fixture = *state;
	struct store *store = fixture->store;
	int64_t gate = create_gate(store, "ath9k-ps", "{}");
	int64_t other = create_gate(store, "ath9k-ps", "{}");
	int64_t empty = create_gate(store, "ath9k-ps", "{}");
	int64_t baseline = queue_run(store, "ath9k-ps", "v6.8");
	int64_t candidate = queue_run(store, "ath9k-ps", "nightly");
	int64_t unrelated = queue_run(store, "ath9k-ps", "ffff");
	int64_t flaky = queue_run(store, "ath9k-ps", "nightly");
	int64_t pending = queue_run(store, "ath9k-ps", "v6.8");
	struct store_run_list list;
	char **roles;

	finish_run(store, baseline, RUN_PASS);
	finish_run_with_w3_result(store, candidate);
	finish_run(store, flaky, RUN_INFRA);
	finish_run(store, unrelated, RUN_PASS);
	/* linked out of order: the list still comes oldest run first */
	assert_int_equal(store_gate_add_run(store, gate, pending, "baseline"), 0);
	assert_int_equal(store_gate_add_run(store, gate, flaky, "candidate"), 0);
	assert_int_equal(store_gate_add_run(store, gate, candidate, "candidate"), 0);
	assert_int_equal(store_gate_add_run(store, gate, baseline, "baseline"), 0);
	/* a run may serve another gate, in another role */
	assert_int_equal(store_gate_add_run(store, other, unrelated, "baseline"), 0);
	assert_int_equal(store_gate_add_run(store, other, candidate, "baseline"), 0);
	/* the coordinator dies here: the links are on disk */
	reopen(fixture);
	store = fixture->store;

	assert_int_equal(store_gate_runs(store, gate, &list, &roles), 0);
	assert_int_equal(list.count, 4);
	assert_int_equal(list.runs[0].id, baseline);
	assert_int_equal(list.runs[1].id, candidate);
	assert_int_equal(list.runs[2].id, flaky);
	assert_int_equal(list.runs[3].id, pending);
	assert_string_equal(roles[0], "baseline");
	assert_string_equal(roles[1], "candidate");
	assert_string_equal(roles[2], "candidate");
	assert_string_equal(roles[3], "baseline");
	assert_string_equal(list.runs[1].commit, "nightly");
	assert_string_equal(list.runs[1].cause, "symptom");
	assert_symptoms_equal(&list.runs[1], w3_symptoms, 2);
	assert_metrics_equal(&list.runs[1], w3_metrics, 3);
	assert_int_equal(list.runs[0].symptom_count + list.runs[0].metric_count, 0);
	assert_int_equal(list.runs[3].state, RUN_QUEUED);
	assert_int_equal(list.by_outcome[RUN_PASS], 1);
	assert_int_equal(list.by_outcome[RUN_FAIL], 1);
	assert_int_equal(list.by_outcome[RUN_INFRA], 1);
	assert_int_equal(list.by_outcome[RUN_OUTCOME_NONE], 1);
	store_gate_roles_free(roles, list.count);
	store_run_list_release(&list);

	assert_int_equal(store_gate_runs(store, other, &list, &roles), 0);
	assert_int_equal(list.count, 2);
	assert_int_equal(list.runs[0].id, candidate);
	assert_int_equal(list.runs[1].id, unrelated);
	assert_string_equal(roles[0], "baseline");
	assert_string_equal(roles[1], "baseline");
	assert_symptoms_equal(&list.runs[0], w3_symptoms, 2);
	store_gate_roles_free(roles, list.count);
	store_run_list_release(&list);

	assert_int_equal(store_gate_runs(store, empty, &list, &roles), 0);
	assert_int_equal(list.count, 0);
	assert_null(roles);
	store_gate_roles_free(roles, list.count);
	store_run_list_release(&list);

	assert_int_equal(store_gate_runs(store, empty + 1000, &list, &roles), -ENOENT);
	assert_non_null(strstr(store_error_message(store), "no such gate"));
	assert_int_equal(list.count, 0);
	assert_null(roles);
}

static void test_gate_list_gives_a_jobs_done_gates_newest_first(void **state)
{
	struct fixture *fixture = *state;
	struct store *store = fixture->store;
	const char *hostile = "ath9k' OR '1'='1";
	struct store_gate *gates;
	size_t count;
	int64_t night1 = create_gate(store, "ath9k-ps", "{\"night\": 1}");
	int64_t running = create_gate(store, "ath9k-ps", "{\"night\": 2}");
	int64_t aborted = create_gate(store, "ath9k-ps", "{\"night\": 3}");
	int64_t other_job = create_gate(store, "other-job", "{\"night\": 4}");
	int64_t night5 = create_gate(store, "ath9k-ps", "{\"night\": 5}");
	int64_t night6 = create_gate(store, "ath9k-ps", "{\"night\": 6}");

	/* finished out of order: the list goes by id, newest first */
	finish_gate(store, night6, "PASS", "{\"n\": 6}");
	finish_gate(store, night1, "PASS", "{\"n\": 1}");
	finish_gate(store, night5, "REGRESSION", "{\"n\": 5}");
	finish_gate(store, other_job, "PASS", "{\"n\": 4}");
	assert_int_equal(store_gate_finish(store, aborted, STORE_GATE_ABORTED, "PASS", "{}"), 0);

	assert_int_equal(store_gate_list(store, "ath9k-ps", 10, &gates, &count), 0);
	assert_int_equal(count, 3);
	assert_int_equal(gates[0].id, night6);
	assert_int_equal(gates[1].id, night5);
	assert_int_equal(gates[2].id, night1);
	for (size_t i = 0; i < count; i++) {
		assert_string_equal(gates[i].job, "ath9k-ps");
		assert_int_equal(gates[i].state, STORE_GATE_DONE);
		assert_true(gates[i].finished_ms >= gates[i].created_ms);
	}
	assert_string_equal(gates[0].verdict, "PASS");
	assert_string_equal(gates[0].answer, "{\"n\": 6}");
	assert_string_equal(gates[0].spec, "{\"night\": 6}");
	assert_string_equal(gates[1].verdict, "REGRESSION");
	assert_string_equal(gates[2].answer, "{\"n\": 1}");
	store_gate_list_free(gates, count);

	/* at most `limit` */
	assert_int_equal(store_gate_list(store, "ath9k-ps", 2, &gates, &count), 0);
	assert_int_equal(count, 2);
	assert_int_equal(gates[0].id, night6);
	assert_int_equal(gates[1].id, night5);
	store_gate_list_free(gates, count);
	assert_int_equal(store_gate_list(store, "ath9k-ps", 1, &gates, &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(gates[0].id, night6);
	store_gate_list_free(gates, count);
	assert_int_equal(store_gate_list(store, "ath9k-ps", 0, &gates, &count), 0);
	assert_int_equal(count, 0);
	assert_null(gates);
	store_gate_list_free(gates, count);
	assert_int_equal(store_gate_list(store, "ath9k-ps", SIZE_MAX, &gates, &count), 0);
	assert_int_equal(count, 3);
	store_gate_list_free(gates, count);

	/* by job, exactly */
	assert_int_equal(store_gate_list(store, "other-job", 10, &gates, &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(gates[0].id, other_job);
	store_gate_list_free(gates, count);
	assert_int_equal(store_gate_list(store, hostile, 10, &gates, &count), 0);
	assert_int_equal(count, 0);
	assert_null(gates);
	assert_int_equal(store_gate_list(store, NULL, 10, &gates, &count), -EINVAL);
	assert_int_equal(count, 0);
	assert_null(gates);

	/* the running one joins once it is done */
	finish_gate(store, running, "PASS", "{\"n\": 2}");
	assert_int_equal(store_gate_list(store, "ath9k-ps", 10, &gates, &count), 0);
	assert_int_equal(count, 4);
	assert_int_equal(gates[2].id, running);
	assert_int_equal(gates[3].id, night1);
	store_gate_list_free(gates, count);
}

/* ---- schema migration -------------------------------------------------------- */

/* The version-1 schema as rackbisect shipped it (migrations[0] in store.c), kept
 * here frozen: databases in the field were made by this text, whatever store.c
 * says later. */
static const char schema_version_1[] =
	"CREATE TABLE builds ("
	"  id INTEGER PRIMARY KEY,"
	"  commit_id TEXT NOT NULL UNIQUE,"
	"  tree_id TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('built', 'failed')),"
	"  release TEXT,"
	"  artifact_path TEXT,"
	"  log_path TEXT,"
	"  created_at INTEGER NOT NULL"
	");"
	"CREATE INDEX builds_by_tree ON builds (tree_id);"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  job TEXT NOT NULL CHECK (length(job) > 0),"
	"  board TEXT,"
	"  commit_id TEXT NOT NULL CHECK (length(commit_id) > 0),"
	"  build_id INTEGER REFERENCES builds (id),"
	"  workload TEXT NOT NULL CHECK (length(workload) > 0),"
	"  repeat_index INTEGER NOT NULL CHECK (repeat_index >= 0),"
	"  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done')),"
	"  outcome TEXT CHECK (outcome IN ('PASS', 'FAIL', 'INFRA', 'SKIP')),"
	"  cause TEXT,"
	"  queued_at INTEGER NOT NULL,"
	"  started_at INTEGER,"
	"  finished_at INTEGER,"
	"  CHECK ((state = 'done') = (outcome IS NOT NULL)),"
	"  CHECK (state <> 'running' OR board IS NOT NULL)"
	");"
	"CREATE INDEX runs_by_commit ON runs (commit_id, job);"
	"CREATE INDEX runs_unfinished ON runs (state) WHERE state <> 'done';"
	"CREATE TABLE symptoms ("
	"  run_id INTEGER NOT NULL REFERENCES runs (id),"
	"  position INTEGER NOT NULL,"
	"  name TEXT NOT NULL CHECK (length(name) > 0),"
	"  evidence TEXT,"
	"  PRIMARY KEY (run_id, position)"
	");"
	"CREATE TABLE metrics ("
	"  run_id INTEGER NOT NULL REFERENCES runs (id),"
	"  position INTEGER NOT NULL,"
	"  name TEXT NOT NULL CHECK (length(name) > 0),"
	"  value REAL NOT NULL,"
	"  unit TEXT,"
	"  PRIMARY KEY (run_id, position)"
	");"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  time INTEGER NOT NULL,"
	"  board TEXT,"
	"  run_id INTEGER REFERENCES runs (id),"
	"  kind TEXT NOT NULL CHECK (length(kind) > 0),"
	"  detail TEXT"
	");"
	"CREATE INDEX events_by_run ON events (run_id);"
	"CREATE TABLE board_health ("
	"  board TEXT PRIMARY KEY,"
	"  consecutive_infra INTEGER NOT NULL DEFAULT 0,"
	"  offline INTEGER NOT NULL DEFAULT 0 CHECK (offline IN (0, 1)),"
	"  last_health_check INTEGER"
	");"
	"PRAGMA user_version = 1;";

/* What a version-1 rackbisect had written: a build, a failed run with the
 * w3 symptoms and metrics, a run still queued, an event, a board's health. */
static const char version_1_data[] =
	"INSERT INTO builds VALUES (1, '1111', 'aaaa', 'built', '3.3.1-rc1',"
	"  '/cache/1111/bzImage', '/cache/1111/build.log', 1000);"
	"INSERT INTO runs VALUES (1, 'ath9k-ps', 'vb02', '1111', 1, 'w3-idle-transitions', 0,"
	"  'done', 'FAIL', 'symptom', 2000, 2100, 2900);"
	"INSERT INTO runs VALUES (2, 'ath9k-ps', NULL, '2222', NULL, 'w3-idle-transitions', 1,"
	"  'queued', NULL, NULL, 3000, NULL, NULL);"
	"INSERT INTO symptoms VALUES (1, 0, 'auth-timeout',"
	"  'wlan0: authentication with 00:0b:6b:de:ad:01 timed out');"
	"INSERT INTO symptoms VALUES (1, 1, 'txdma-stop-fail', 'ath: Failed to stop TX DMA, queues=0x001!');"
	"INSERT INTO metrics VALUES (1, 0, 'reconnect_time', 1.53, 's');"
	"INSERT INTO metrics VALUES (1, 1, 'reconnect_time', 0.84, 's');"
	"INSERT INTO metrics VALUES (1, 2, 'ping_loss', 12.5, '%');"
	"INSERT INTO events VALUES (1, 2500, 'vb02', 1, 'hang', 'no output for 120 s');"
	"INSERT INTO board_health VALUES ('vb02', 2, 1, 2600);";

/* The tables version 2 added (migrations[1] in store.c), frozen like
 * schema_version_1: run after it, they make a version-2 database. */
static const char schema_version_2[] =
	"CREATE TABLE bisections ("
	"  id INTEGER PRIMARY KEY,"
	"  job TEXT NOT NULL CHECK (length(job) > 0),"
	"  spec TEXT NOT NULL,"
	"  state INTEGER NOT NULL CHECK (state IN (0, 1, 2)),"
	"  answer TEXT,"
	"  created_at INTEGER NOT NULL,"
	"  finished_at INTEGER,"
	"  CHECK ((state = 0) = (finished_at IS NULL)),"
	"  CHECK (state <> 0 OR answer IS NULL)"
	");"
	"CREATE TABLE bisection_runs ("
	"  bisection_id INTEGER NOT NULL REFERENCES bisections (id),"
	"  run_id INTEGER NOT NULL REFERENCES runs (id),"
	"  role TEXT NOT NULL CHECK (length(role) > 0),"
	"  PRIMARY KEY (bisection_id, run_id)"
	");"
	"PRAGMA user_version = 2;";

/* What a version-2 rackbisect had written besides version_1_data: a finished
 * bisection and a running one, with runs 1 and 2 in roles. */
static const char version_2_data[] =
	"INSERT INTO bisections VALUES (1, 'ath9k-ps', '{\"good\": \"v3.3\", \"bad\": \"1111\"}', 1,"
	"  '{\"first_bad\": \"1111\"}', 4000, 4900);"
	"INSERT INTO bisections VALUES (2, 'ath9k-ps', '{\"symptom\": null}', 0, NULL, 5000, NULL);"
	"INSERT INTO bisection_runs VALUES (1, 1, 'bad-end');"
	"INSERT INTO bisection_runs VALUES (2, 2, 'candidate');"
	"INSERT INTO bisection_runs VALUES (2, 1, 'confirm');";

/* Replaces the fixture's database with `name`, made the way an older
 * rackbisect did: schema (NULL-terminated texts) in one transaction, then the
 * data. The fixture takes it over (reopen() and the teardown's integrity
 * check); it is left closed, at the version the schema set. */
static void make_old_database(struct fixture *fixture, const char *name,
			      const char *const *schema, const char *const *data, int version)
{
	sqlite3 *db;

	store_close(fixture->store);
	fixture->store = NULL;
	snprintf(fixture->path, sizeof(fixture->path), "%s/%s", fixture->dir, name);
	assert_int_equal(sqlite3_open(fixture->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = WAL; BEGIN IMMEDIATE", NULL, NULL, NULL),
			 SQLITE_OK);
	for (; *schema; schema++)
		assert_int_equal(sqlite3_exec(db, *schema, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	for (; *data; data++)
		assert_int_equal(sqlite3_exec(db, *data, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	assert_int_equal(count_rows(fixture->path, "PRAGMA user_version"), version);
}

/* Nothing of version_1_data was lost. */
static void assert_version_1_data_intact(struct fixture *fixture)
{
	struct store_board_health health;
	struct store_run_list list;
	struct store_build build;
	struct store_run run;

	assert_int_equal(store_run_get(fixture->store, 1, &run), 0);
	assert_string_equal(run.job, "ath9k-ps");
	assert_string_equal(run.board, "vb02");
	assert_string_equal(run.commit, "1111");
	assert_int_equal(run.build_id, 1);
	assert_int_equal(run.state, RUN_DONE);
	assert_int_equal(run.outcome, RUN_FAIL);
	assert_string_equal(run.cause, "symptom");
	assert_int_equal(run.finished_at, 2900);
	assert_symptoms_equal(&run, w3_symptoms, 2);
	assert_metrics_equal(&run, w3_metrics, 3);
	store_run_release(&run);
	assert_int_equal(store_runs_unfinished(fixture->store, &list), 0);
	assert_int_equal(list.count, 1);
	assert_int_equal(list.runs[0].id, 2);
	assert_int_equal(list.runs[0].repeat_index, 1);
	store_run_list_release(&list);
	assert_int_equal(store_build_find_by_commit(fixture->store, "1111", &build), 0);
	assert_string_equal(build.release, "3.3.1-rc1");
	store_build_release(&build);
	assert_int_equal(store_board_health_get(fixture->store, "vb02", &health), 0);
	assert_int_equal(health.consecutive_infra, 2);
	assert_true(health.offline);
	assert_int_equal(count_rows(fixture->path, "SELECT count(*) FROM events WHERE kind = 'hang'"), 1);
}

static void test_version_1_database_migrates_keeping_its_data(void **state)
{
	struct fixture *fixture = *state;
	static const char *const schema[] = { schema_version_1, NULL };
	static const char *const data[] = { version_1_data, NULL };
	struct store_run_list list;
	char **roles;
	int64_t bisection, gate, run_id;
	int version = -1;

	assert_int_equal(STORE_SCHEMA_VERSION, 4);
	/* a version-1 database, made and filled the way version 1 did */
	make_old_database(fixture, "version-1.db", schema, data, 1);

	/* one open takes it through versions 2 and 3 to 4 */
	assert_int_equal(store_open(fixture->path, &fixture->store), 0);
	assert_int_equal(store_schema_version(fixture->store, &version), 0);
	assert_int_equal(version, 4);
	assert_version_1_data_intact(fixture);

	/* the new tables work, with the old runs and new ones */
	bisection = create_bisection(fixture->store, "ath9k-ps", "{\"bad\": \"1111\"}");
	assert_int_equal(store_bisection_add_run(fixture->store, bisection, 1, "bad-end"), 0);
	assert_int_equal(store_bisection_add_run(fixture->store, bisection, 1, "bad-end"), -EEXIST);
	assert_int_equal(store_bisection_add_run(fixture->store, bisection, 99, "good-end"), -ENOENT);
	run_id = queue_run(fixture->store, "ath9k-ps", "3333");
	assert_int_equal(run_id, 3);
	assert_int_equal(store_bisection_add_run(fixture->store, bisection, run_id, "good-end"), 0);
	assert_int_equal(store_bisection_runs(fixture->store, bisection, &list, &roles), 0);
	assert_int_equal(list.count, 2);
	assert_int_equal(list.runs[0].id, 1);
	assert_string_equal(roles[0], "bad-end");
	assert_symptoms_equal(&list.runs[0], w3_symptoms, 2);
	assert_int_equal(list.runs[1].id, run_id);
	assert_string_equal(roles[1], "good-end");
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);
	assert_int_equal(store_bisection_finish(fixture->store, bisection, STORE_BISECTION_DONE,
						"{\"first_bad\": \"1111\"}"),
			 0);
	gate = create_gate(fixture->store, "ath9k-ps", "{}");
	assert_int_equal(store_gate_add_run(fixture->store, gate, 1, "baseline"), 0);
	assert_int_equal(store_gate_set_bisection(fixture->store, gate, bisection), 0);

	/* and a second open finds version 4 with nothing to do */
	reopen(fixture);
	assert_int_equal(store_schema_version(fixture->store, &version), 0);
	assert_int_equal(version, 4);
	assert_bisection(fixture->store, bisection, STORE_BISECTION_DONE, "{\"bad\": \"1111\"}",
			 "{\"first_bad\": \"1111\"}");
	assert_gate(fixture->store, gate, STORE_GATE_RUNNING, "{}", NULL, NULL, bisection);
}

static void test_version_2_database_migrates_keeping_its_bisections_and_runs(void **state)
{
	struct fixture *fixture = *state;
	static const char *const schema[] = { schema_version_1, schema_version_2, NULL };
	static const char *const data[] = { version_1_data, version_2_data, NULL };
	struct store_bisection bisection;
	struct store_gate *gates;
	struct store_run_list list;
	size_t count;
	char **roles;
	int64_t gate, run_id;
	int version = -1;

	assert_int_equal(STORE_SCHEMA_VERSION, 4);
	make_old_database(fixture, "version-2.db", schema, data, 2);
	assert_int_equal(count_rows(fixture->path, "SELECT count(*) FROM sqlite_master"
						   " WHERE name IN ('gates', 'gate_runs')"),
			 0);

	assert_int_equal(store_open(fixture->path, &fixture->store), 0);
	assert_int_equal(store_schema_version(fixture->store, &version), 0);
	assert_int_equal(version, 4);
	assert_int_equal(count_rows(fixture->path, "PRAGMA user_version"), 4);

	/* nothing of version 2 was lost: runs, builds, health, events ... */
	assert_version_1_data_intact(fixture);
	/* ... and the bisections, as they were, with their runs in their roles */
	assert_int_equal(store_bisection_get(fixture->store, 1, &bisection), 0);
	assert_string_equal(bisection.job, "ath9k-ps");
	assert_string_equal(bisection.spec, "{\"good\": \"v3.3\", \"bad\": \"1111\"}");
	assert_int_equal(bisection.state, STORE_BISECTION_DONE);
	assert_string_equal(bisection.answer, "{\"first_bad\": \"1111\"}");
	assert_int_equal(bisection.created_at, 4000);
	assert_int_equal(bisection.finished_at, 4900);
	store_bisection_release(&bisection);
	assert_int_equal(store_bisection_latest(fixture->store, &bisection), 0);
	assert_int_equal(bisection.id, 2);
	assert_int_equal(bisection.state, STORE_BISECTION_RUNNING);
	assert_string_equal(bisection.spec, "{\"symptom\": null}");
	assert_null(bisection.answer);
	assert_int_equal(bisection.created_at, 5000);
	assert_int_equal(bisection.finished_at, 0);
	store_bisection_release(&bisection);
	assert_int_equal(store_bisection_runs(fixture->store, 1, &list, &roles), 0);
	assert_int_equal(list.count, 1);
	assert_int_equal(list.runs[0].id, 1);
	assert_string_equal(roles[0], "bad-end");
	assert_symptoms_equal(&list.runs[0], w3_symptoms, 2);
	assert_metrics_equal(&list.runs[0], w3_metrics, 3);
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);
	assert_int_equal(store_bisection_runs(fixture->store, 2, &list, &roles), 0);
	assert_int_equal(list.count, 2);
	assert_int_equal(list.runs[0].id, 1);
	assert_string_equal(roles[0], "confirm");
	assert_int_equal(list.runs[1].id, 2);
	assert_string_equal(roles[1], "candidate");
	assert_int_equal(list.runs[1].state, RUN_QUEUED);
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);
	/* the running bisection carries on */
	assert_int_equal(store_bisection_add_run(fixture->store, 2, 2, "confirm"), -EEXIST);
	assert_int_equal(store_bisection_finish(fixture->store, 2, STORE_BISECTION_DONE,
						"{\"first_bad\": \"2222\"}"),
			 0);
	assert_int_equal(store_bisection_finish(fixture->store, 1, STORE_BISECTION_DONE, "{}"),
			 -EALREADY);

	/* gates work beside them: old runs and new, linked to an old bisection */
	assert_int_equal(store_gate_latest(fixture->store, &(struct store_gate){ 0 }), -ENOENT);
	gate = create_gate(fixture->store, "ath9k-ps", "{\"baseline\": \"1111\"}");
	assert_int_equal(gate, 1);
	run_id = queue_run(fixture->store, "ath9k-ps", "3333");
	assert_int_equal(run_id, 3);
	assert_int_equal(store_gate_add_run(fixture->store, gate, run_id, "candidate"), 0);
	assert_int_equal(store_gate_add_run(fixture->store, gate, 1, "baseline"), 0);
	assert_int_equal(store_gate_add_run(fixture->store, gate, 1, "baseline"), -EEXIST);
	assert_int_equal(store_gate_set_bisection(fixture->store, gate, 1), 0);
	assert_int_equal(store_gate_set_bisection(fixture->store, gate, 3), -ENOENT);
	finish_gate(fixture->store, gate, "REGRESSION", "{\"workloads\": [\"w3\"]}");
	assert_int_equal(create_bisection(fixture->store, "ath9k-ps", "{}"), 3);

	/* and a second open finds version 4 with nothing to do */
	reopen(fixture);
	assert_int_equal(store_schema_version(fixture->store, &version), 0);
	assert_int_equal(version, 4);
	assert_gate(fixture->store, gate, STORE_GATE_DONE, "{\"baseline\": \"1111\"}", "REGRESSION",
		    "{\"workloads\": [\"w3\"]}", 1);
	assert_int_equal(store_gate_runs(fixture->store, gate, &list, &roles), 0);
	assert_int_equal(list.count, 2);
	assert_int_equal(list.runs[0].id, 1);
	assert_string_equal(roles[0], "baseline");
	assert_int_equal(list.runs[1].id, run_id);
	assert_string_equal(roles[1], "candidate");
	store_gate_roles_free(roles, list.count);
	store_run_list_release(&list);
	assert_int_equal(store_gate_list(fixture->store, "ath9k-ps", 5, &gates, &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(gates[0].id, gate);
	store_gate_list_free(gates, count);
	assert_bisection(fixture->store, 2, STORE_BISECTION_DONE, "{\"symptom\": null}",
			 "{\"first_bad\": \"2222\"}");
}

/* ---- damaged files, full disks, killed writers -------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *file = fopen(path, "w");

	assert_non_null(file);
	assert_int_equal(fputs(text, file) >= 0, 1);
	assert_int_equal(fclose(file), 0);
}

static void test_a_file_that_is_not_a_database_is_reported_corrupt(void **state)
{
	struct fixture *fixture = *state;
	char path[192];
	struct store *store;

	snprintf(path, sizeof(path), "%s/garbage.db", fixture->dir);
	write_file(path, "this is not an SQLite database, it is a kernel config\n"
			 "CONFIG_ATH9K=m\nCONFIG_ATH9K_DEBUGFS=y\nCONFIG_MAC80211=m\n"
			 "padding padding padding padding padding padding padding padding\n");
	assert_int_equal(store_open(path, &store), STORE_ECORRUPT);
	assert_non_null(strstr(store_error_message(store), path));
	store_close(store);
}

/* Overwrites the middle of the closed fixture database with garbage. */
static void damage_pages(const char *path)
{
	char garbage[4096];
	int fd = open(path, O_WRONLY);
	off_t size;

	assert_true(fd >= 0);
	size = lseek(fd, 0, SEEK_END);
	assert_true(size > 3 * 4096);
	memset(garbage, 0xa5, sizeof(garbage));
	assert_int_equal(pwrite(fd, garbage, sizeof(garbage), size - 2 * 4096), (ssize_t)sizeof(garbage));
	close(fd);
}

static void test_a_damaged_database_fails_cleanly(void **state)
{
	struct fixture *fixture = *state;
	struct store_run_list list;
	int error;

	for (int i = 0; i < 200; i++)
		finish_run(fixture->store, queue_run(fixture->store, "ath9k-ps", "c1afdaff"), RUN_PASS);
	store_close(fixture->store);	/* checkpoints the log into the file */
	fixture->store = NULL;
	damage_pages(fixture->path);

	error = store_open(fixture->path, &fixture->store);
	if (error == 0) {
		error = store_integrity_check(fixture->store);
		assert_int_equal(error, STORE_ECORRUPT);
		error = store_runs_for_commit(fixture->store, NULL, "c1afdaff", &list);
		assert_true(error == 0 || error == STORE_ECORRUPT);
		store_run_list_release(&list);
	} else {
		assert_int_equal(error, STORE_ECORRUPT);
	}
	/* the damage is the point of this test: no integrity check in teardown */
	store_close(fixture->store);
	fixture->store = NULL;
}

/* Writes results in a loop, reporting each committed run id on `report`;
 * exits with 0 when a write fails with -ENOSPC, 1 on any other failure. */
static void __attribute__((noreturn)) write_results_until_failure(const char *path, int report)
{
	struct store_metric metrics[] = { { "reconnect_time", 1.5, "s" }, { "ping_loss", 2.0, "%" } };
	struct store_symptom symptoms[] = { { "txdma-stop-fail", NULL } };
	struct store_result result = {
		.outcome = RUN_FAIL, .symptoms = symptoms, .symptom_count = 1,
		.metrics = metrics, .metric_count = 2,
	};
	struct store_run_request request = { .job = "j", .commit = "c", .workload = "w" };
	char *evidence = long_hostile_name(2000);
	struct store *store;
	int64_t run_id;
	int error;

	symptoms[0].evidence = evidence;
	error = store_open(path, &store);
	for (int i = 0; !error && i < 100000; i++) {
		error = store_run_queue(store, &request, &run_id);
		if (!error)
			error = store_run_start(store, run_id, "vb01");
		if (!error)
			error = store_run_finish(store, run_id, &result);
		if (!error && write(report, &run_id, sizeof(run_id)) != sizeof(run_id))
			error = -EPIPE;
	}
	_exit(error == -ENOSPC ? 0 : 1);
}

/* Every run the writer said was committed is done, with all of its result;
 * no run is half-finished. */
static void assert_reported_runs_complete(struct store *store, int report, size_t minimum)
{
	struct store_run_list list;
	struct store_run run;
	int64_t run_id;
	size_t reported = 0;

	while (read(report, &run_id, sizeof(run_id)) == sizeof(run_id)) {
		assert_int_equal(store_run_get(store, run_id, &run), 0);
		assert_int_equal(run.outcome, RUN_FAIL);
		assert_int_equal(run.symptom_count, 1);
		assert_int_equal(run.metric_count, 2);
		store_run_release(&run);
		reported++;
	}
	assert_true(reported >= minimum);
	assert_int_equal(store_runs_unfinished(store, &list), 0);
	assert_true(list.count <= 1);
	for (size_t i = 0; i < list.count; i++)
		assert_int_equal(list.runs[i].symptom_count + list.runs[i].metric_count, 0);
	store_run_list_release(&list);
}

/*
 * A full disk, as SQLite's unix VFS reports one (SQLITE_FULL after write()
 * fails with ENOSPC), without filling a real disk: a VFS over the default one
 * whose writes fail once a byte budget is spent. A file size limit
 * (RLIMIT_FSIZE) would not do: its EFBIG reaches callers as a plain I/O error.
 * Used only in a forked child, so its static state is that child's.
 */
struct full_disk_file {
	sqlite3_file base;
	sqlite3_file *real;	/* the default VFS's file, allocated right after */
};

static sqlite3_vfs *default_vfs;
static sqlite3_vfs full_disk_vfs;
static sqlite3_int64 write_budget;

#define REAL(file) (((struct full_disk_file *)(file))->real)

static int full_disk_close(sqlite3_file *f)
{
	return REAL(f)->pMethods->xClose(REAL(f));
}

static int full_disk_read(sqlite3_file *f, void *data, int amount, sqlite3_int64 offset)
{
	return REAL(f)->pMethods->xRead(REAL(f), data, amount, offset);
}

static int full_disk_write(sqlite3_file *f, const void *data, int amount, sqlite3_int64 offset)
{
	if (amount > write_budget)
		return SQLITE_FULL;
	write_budget -= amount;
	return REAL(f)->pMethods->xWrite(REAL(f), data, amount, offset);
}

static int full_disk_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int full_disk_sync(sqlite3_file *f, int flags)
{
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int full_disk_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int full_disk_lock(sqlite3_file *f, int lock)
{
	return REAL(f)->pMethods->xLock(REAL(f), lock);
}

static int full_disk_unlock(sqlite3_file *f, int lock)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), lock);
}

static int full_disk_check_lock(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int full_disk_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int full_disk_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int full_disk_device(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int full_disk_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, out);
}

static int full_disk_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void full_disk_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int full_disk_shm_unmap(sqlite3_file *f, int delete_flag)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag);
}

static int full_disk_fetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out)
{
	return REAL(f)->pMethods->xFetch(REAL(f), offset, amount, out);
}

static int full_disk_unfetch(sqlite3_file *f, sqlite3_int64 offset, void *page)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), offset, page);
}

static const sqlite3_io_methods full_disk_methods = {
	3, full_disk_close, full_disk_read, full_disk_write, full_disk_truncate, full_disk_sync,
	full_disk_size, full_disk_lock, full_disk_unlock, full_disk_check_lock, full_disk_control,
	full_disk_sector, full_disk_device, full_disk_shm_map, full_disk_shm_lock,
	full_disk_shm_barrier, full_disk_shm_unmap, full_disk_fetch, full_disk_unfetch,
};

static int full_disk_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
	struct full_disk_file *file = (struct full_disk_file *)f;
	int rc;

	(void)vfs;
	file->real = (sqlite3_file *)(file + 1);
	rc = default_vfs->xOpen(default_vfs, name, file->real, flags, out_flags);
	file->base.pMethods = rc == SQLITE_OK ? &full_disk_methods : NULL;
	return rc;
}

/* Makes every later sqlite3_open() in this process write through the budget. */
static void install_full_disk_vfs(sqlite3_int64 budget)
{
	default_vfs = sqlite3_vfs_find(NULL);
	full_disk_vfs = *default_vfs;
	full_disk_vfs.zName = "rackbisect-full-disk";
	full_disk_vfs.szOsFile = (int)sizeof(struct full_disk_file) + default_vfs->szOsFile;
	full_disk_vfs.xOpen = full_disk_open;
	write_budget = budget;
	sqlite3_vfs_register(&full_disk_vfs, 1);
}

/* A child process running write_results_until_failure() on `path`, on a disk
 * that fills after `disk_bytes` (0: a real one); *report is read for the
 * ids it committed. */
static pid_t start_writer(const char *path, size_t disk_bytes, int *report)
{
	int pipe_ends[2];
	pid_t child;

	assert_int_equal(pipe(pipe_ends), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(pipe_ends[0]);
		if (disk_bytes)
			install_full_disk_vfs(disk_bytes);
		write_results_until_failure(path, pipe_ends[1]);
	}
	close(pipe_ends[1]);
	*report = pipe_ends[0];
	return child;
}

static void test_a_full_disk_is_reported_as_enospc(void **state)
{
	struct fixture *fixture = *state;
	int report, status;
	pid_t child;

	store_close(fixture->store);
	fixture->store = NULL;
	child = start_writer(fixture->path, 256 * 1024, &report);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(store_open(fixture->path, &fixture->store), 0);
	assert_reported_runs_complete(fixture->store, report, 1);
	close(report);
}

static void test_a_writer_killed_mid_write_loses_nothing_committed(void **state)
{
	struct fixture *fixture = *state;
	int report, status;
	int64_t run_id;
	pid_t child;

	store_close(fixture->store);
	fixture->store = NULL;
	child = start_writer(fixture->path, 0, &report);
	/* let it commit a few results, then kill it wherever it is: likely
	 * inside its next transaction */
	for (int i = 0; i < 20; i++)
		assert_int_equal(read(report, &run_id, sizeof(run_id)), sizeof(run_id));
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(store_open(fixture->path, &fixture->store), 0);
	assert_reported_runs_complete(fixture->store, report, 0);
	close(report);
	assert_int_equal(store_integrity_check(fixture->store), 0);
}

static void assert_run_complete(struct store *store, int64_t run_id)
{
	struct store_run run;

	assert_int_equal(store_run_get(store, run_id, &run), 0);
	assert_int_equal(run.state, RUN_DONE);
	assert_int_equal(run.outcome, RUN_FAIL);
	assert_int_equal(run.symptom_count, 1);
	assert_int_equal(run.metric_count, 2);
	store_run_release(&run);
}

/*
 * The same writer, SIGKILLed at 100 points chosen by a seed: after a few
 * committed results (1 to 8) and a spin of 0 to 4000 yields, so the kill
 * lands anywhere in a queue, start or finish transaction. After every kill
 * the database opens, passes integrity_check, holds every result the writer
 * reported with all of its symptoms and metrics, and no run is half done.
 */
static void test_a_writer_killed_at_100_points_loses_nothing_committed(void **state)
{
	struct fixture *fixture = *state;
	uint64_t seed = 0x3d1f2c0ffee;
	size_t committed = 0;

	store_close(fixture->store);
	fixture->store = NULL;
	for (int kill_point = 0; kill_point < 100; kill_point++) {
		int report, status, wanted, spins;
		int64_t run_ids[8], run_id;
		struct store_run_list list;
		pid_t child;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		wanted = 1 + (int)((seed >> 33) % 8);
		spins = (int)((seed >> 13) % 4001);
		child = start_writer(fixture->path, 0, &report);
		for (int i = 0; i < wanted; i++)
			assert_int_equal(read(report, &run_ids[i], sizeof(run_id)), sizeof(run_id));
		for (int i = 0; i < spins; i++)
			sched_yield();
		kill(child, SIGKILL);
		assert_int_equal(waitpid(child, &status, 0), child);
		assert_true(WIFSIGNALED(status));

		assert_int_equal(store_open(fixture->path, &fixture->store), 0);
		assert_int_equal(store_integrity_check(fixture->store), 0);
		for (int i = 0; i < wanted; i++)
			assert_run_complete(fixture->store, run_ids[i]);
		committed += (size_t)wanted;
		/* what it reported between the last read and the kill, too */
		while (read(report, &run_id, sizeof(run_id)) == sizeof(run_id)) {
			assert_run_complete(fixture->store, run_id);
			committed++;
		}
		close(report);
		/* each kill leaves at most the one run it was writing, and without any
		 * of its result */
		assert_int_equal(store_runs_unfinished(fixture->store, &list), 0);
		assert_true(list.count <= (size_t)kill_point + 1);
		for (size_t i = 0; i < list.count; i++)
			assert_int_equal(list.runs[i].symptom_count + list.runs[i].metric_count, 0);
		store_run_list_release(&list);
		store_close(fixture->store);
		fixture->store = NULL;
	}
	print_message("100 kills: %zu committed results, all found whole\n", committed);
	assert_int_equal(store_open(fixture->path, &fixture->store), 0);
}

static void test_error_codes_have_names(void **state)
{
	(void)state;
	assert_non_null(strstr(store_strerror(STORE_ECORRUPT), "damaged"));
	assert_non_null(strstr(store_strerror(STORE_ENEWER), "newer"));
	assert_string_equal(store_strerror(-ENOSPC), strerror(ENOSPC));
}

#define STORE_TEST(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		STORE_TEST(test_open_creates_the_schema_and_reopen_keeps_it),
		STORE_TEST(test_database_file_is_in_wal_mode),
		STORE_TEST(test_newer_schema_is_refused),
		STORE_TEST(test_run_goes_queued_running_done_with_symptoms_and_metrics),
		STORE_TEST(test_finished_run_is_never_started_or_finished_again),
		STORE_TEST(test_queued_run_can_finish_as_skip),
		STORE_TEST(test_outcome_write_is_atomic),
		STORE_TEST(test_runs_for_commit_are_counted_by_outcome),
		STORE_TEST(test_last_runs_come_newest_first),
		STORE_TEST(test_unfinished_runs_are_found_after_a_crash),
		STORE_TEST(test_builds_are_found_by_commit_by_tree_and_by_id),
		STORE_TEST(test_board_health_counts_infra_in_a_row),
		STORE_TEST(test_two_labs_in_one_state_keep_their_runs_and_boards_apart),
		STORE_TEST(test_events_are_appended),
		STORE_TEST(test_hostile_strings_come_back_verbatim),
		STORE_TEST(test_empty_names_are_refused),
		STORE_TEST(test_bisection_is_created_running_and_read_back),
		STORE_TEST(test_latest_bisection_is_the_newest_whatever_its_state),
		STORE_TEST(test_bisection_spec_is_replaced),
		STORE_TEST(test_bisection_finish_and_reopen_follow_the_state_rules),
		STORE_TEST(test_bisection_add_run_refuses_missing_and_duplicate_links),
		STORE_TEST(test_bisection_runs_come_oldest_first_with_roles_and_symptoms),
		STORE_TEST(test_bisections_survive_close_and_reopen),
		STORE_TEST(test_gate_is_created_running_and_read_back),
		STORE_TEST(test_latest_gate_is_the_newest_whatever_its_state),
		STORE_TEST(test_gate_finish_follows_the_state_rules),
		STORE_TEST(test_gate_reopen_follows_the_state_rules),
		STORE_TEST(test_gate_spec_is_replaced),
		STORE_TEST(test_gate_set_bisection_records_the_bisection_it_started),
		STORE_TEST(test_gate_add_run_refuses_missing_and_duplicate_links),
		STORE_TEST(test_gate_runs_come_oldest_first_with_roles_and_symptoms),
		STORE_TEST(test_gate_list_gives_a_jobs_done_gates_newest_first),
		STORE_TEST(test_version_1_database_migrates_keeping_its_data),
		STORE_TEST(test_version_2_database_migrates_keeping_its_bisections_and_runs),
		STORE_TEST(test_a_file_that_is_not_a_database_is_reported_corrupt),
		STORE_TEST(test_a_damaged_database_fails_cleanly),
		STORE_TEST(test_a_full_disk_is_reported_as_enospc),
		STORE_TEST(test_a_writer_killed_mid_write_loses_nothing_committed),
		STORE_TEST(test_a_writer_killed_at_100_points_loses_nothing_committed),
		cmocka_unit_test(test_error_codes_have_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
