/*
 * store.h - the lab's state: builds, runs, their outcomes with symptoms and
 * metrics, the event log, board health, lab bisections (what was asked, the
 * runs made for it, the answer) and gates (a job's matrix on a baseline and a
 * candidate kernel, the runs made for it, the verdict), in one SQLite
 * database (WAL).
 *
 * Every write is committed (and synced to disk) before the function returns,
 * so a result the caller acts on survives a crash or a power cut; writing a
 * run's outcome with its symptoms and metrics is one transaction: after a
 * crash either all of it is there or none of it (the run is then unfinished
 * and store_runs_unfinished() finds it for resume).
 *
 *   struct store *store;
 *   int64_t run_id;
 *   if (store_open("/var/lib/rb/state.db", &store) < 0) ... store_error_message(store) ...
 *   store_run_queue(store, &(struct store_run_request){ ... }, &run_id);
 *   store_run_start(store, run_id, "r1");
 *   store_run_finish(store, run_id, &(struct store_result){ ... });
 *   store_close(store);
 *
 * Functions that can fail return 0 or a negative error code: a negative
 * errno, or one of the STORE_E* codes below; store_strerror() names any of
 * them and store_error_message() says what failed and where. The codes:
 *   -ENOSPC          the disk (or the file size limit) is full: nothing of
 *                    the failed write was stored;
 *   STORE_ECORRUPT   the file is damaged or is not a rackbisect database;
 *   STORE_ENEWER     the database was written by a newer rackbisect;
 *   -ENOENT          no such run, build, bisection or gate;
 *   -EALREADY        the run, bisection or gate is not in a state that
 *                    allows this (a finished run is never started or
 *                    finished again, a finished bisection or gate never
 *                    finished again);
 *   -EEXIST          the link (a run to a bisection or a gate) is there
 *                    already;
 *   -EINVAL          a missing argument, or a value the schema refuses
 *                    (empty names, a metric that is not a number);
 *   -EBUSY           another process held the database past the busy timeout;
 *   -ENOMEM, -EIO, -EACCES and other errno values as the system says.
 *
 * There is no global state: a store is a value the caller owns, used from
 * one thread at a time. Strings are NUL-terminated byte strings stored and
 * returned verbatim (UTF-8 or not). Times are milliseconds since the Unix
 * epoch (CLOCK_REALTIME), 0 meaning "not yet".
 */
#ifndef RB_STORE_H
#define RB_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Error codes of their own; far from errno values so they never collide. */
#define STORE_ECORRUPT (-30001)
#define STORE_ENEWER   (-30002)

/* The schema version store_open() creates or migrates to (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 4

struct store;

/* Opens (creating if needed) the database at path and brings its schema up to
 * date. On failure *store is still set when it could be allocated, so that
 * store_error_message() can say why; store_close() it either way. */
int store_open(const char *path, struct store **store);
/* Closes the database; NULL is allowed. */
void store_close(struct store *store);
/*
 * The lab whose boards this store's caller drives (its name; NULL: none,
 * the view of read commands and tests). Runs queued and started from then
 * on are that lab's; store_runs_unfinished() and board health are that
 * lab's alone: labs sharing one state directory may name boards alike.
 * 0 or -ENOMEM.
 */
int store_set_lab(struct store *store, const char *lab);
/* What the last failing call on this store did wrong, with the database path. */
const char *store_error_message(const struct store *store);
/* A constant text for any error code a store function returns. */
const char *store_strerror(int error);

int store_schema_version(struct store *store, int *version);
/* Runs PRAGMA integrity_check: 0 when clean, STORE_ECORRUPT with the first
 * problems in store_error_message() otherwise. */
int store_integrity_check(struct store *store);

/* ---- builds --------------------------------------------------------------- */

enum build_status { BUILD_BUILT, BUILD_FAILED };

struct store_build {
	int64_t id;
	const char *commit;	/* commit id */
	const char *tree;	/* tree id: two commits with one tree share a build */
	enum build_status status;
	const char *release;	/* what `uname -r` shows once booted; NULL if failed */
	const char *artifact_path;	/* NULL if failed */
	const char *log_path;
	int64_t created_at;
};

/* Records a build of build->commit (replacing an earlier record of that
 * commit); build->id and created_at are ignored; *build_id gets its id. */
int store_build_record(struct store *store, const struct store_build *build, int64_t *build_id);
/* The latest build of a commit, or of any commit with that tree id: -ENOENT if
 * none. Release the result with store_build_release(). */
int store_build_find_by_commit(struct store *store, const char *commit, struct store_build *build);
int store_build_find_by_tree(struct store *store, const char *tree, struct store_build *build);
/* The build with that id (a run's build_id): -ENOENT if none. */
int store_build_get(struct store *store, int64_t build_id, struct store_build *build);
void store_build_release(struct store_build *build);

/* ---- runs ----------------------------------------------------------------- */

enum run_state { RUN_QUEUED, RUN_RUNNING, RUN_DONE };
enum run_outcome { RUN_OUTCOME_NONE, RUN_PASS, RUN_FAIL, RUN_INFRA, RUN_SKIP };
#define RUN_OUTCOME_COUNT 5

struct store_symptom {
	const char *name;	/* e.g. "txdma-stop-fail" */
	const char *evidence;	/* the kernel log lines that showed it; may be NULL */
};

struct store_metric {
	const char *name;
	double value;		/* must be a number: NaN is refused */
	const char *unit;	/* may be NULL */
};

struct store_run_request {
	const char *job;
	const char *board;	/* NULL: chosen when the run starts */
	const char *commit;
	int64_t build_id;	/* 0: not built yet */
	const char *workload;
	unsigned int repeat_index;
};

struct store_result {
	enum run_outcome outcome;	/* PASS, FAIL, INFRA or SKIP */
	const char *cause;	/* why FAIL/INFRA/SKIP (e.g. "hang", "power switch timeout"); may be NULL */
	const struct store_symptom *symptoms;
	size_t symptom_count;
	const struct store_metric *metrics;	/* in the order they were measured; names may repeat */
	size_t metric_count;
};

/* A run as read back; release with store_run_release(). */
struct store_run {
	int64_t id;
	const char *job;
	const char *board;	/* NULL while queued without a board */
	const char *commit;
	int64_t build_id;	/* 0: none */
	const char *workload;
	unsigned int repeat_index;
	enum run_state state;
	enum run_outcome outcome;	/* RUN_OUTCOME_NONE until done */
	const char *cause;	/* NULL when none was given */
	int64_t queued_at, started_at, finished_at;
	struct store_symptom *symptoms;
	size_t symptom_count;
	struct store_metric *metrics;
	size_t metric_count;
};

struct store_run_list {
	struct store_run *runs;
	size_t count;
	/* by_outcome[RUN_OUTCOME_NONE] counts the runs not done yet */
	unsigned int by_outcome[RUN_OUTCOME_COUNT];
};

/* A new queued run; *run_id gets its id. */
int store_run_queue(struct store *store, const struct store_run_request *request, int64_t *run_id);
/* queued -> running on `board`: -EALREADY unless the run is queued. */
int store_run_start(struct store *store, int64_t run_id, const char *board);
/*
 * queued or running -> done with the result, its symptoms and metrics, in one
 * transaction: on any error nothing of it is stored and the run keeps its
 * state. -EALREADY if the run is done already. Also updates the board's
 * health in the same transaction: INFRA adds one to its consecutive INFRA
 * count, PASS and FAIL (the board worked) reset it, SKIP leaves it.
 */
int store_run_finish(struct store *store, int64_t run_id, const struct store_result *result);
/* running -> queued again, board forgotten: for resume, after the coordinator
 * died while the run was on a board (its result was never stored). */
int store_run_requeue(struct store *store, int64_t run_id);

/* One run with its symptoms and metrics: -ENOENT if there is none. */
int store_run_get(struct store *store, int64_t run_id, struct store_run *run);
/* The runs of a commit for a job (job NULL: any job), oldest first, with
 * their symptoms and metrics and the counts per outcome. */
int store_runs_for_commit(struct store *store, const char *job, const char *commit,
			  struct store_run_list *list);
/* The last `limit` runs queued, newest first. */
int store_runs_last(struct store *store, unsigned int limit, struct store_run_list *list);
/* Every run not done (queued or running), oldest first: what resume must do. */
int store_runs_unfinished(struct store *store, struct store_run_list *list);

void store_run_release(struct store_run *run);
void store_run_list_release(struct store_run_list *list);

/* ---- events: the structured log ------------------------------------------- */

struct store_event {
	int64_t time;		/* set by the store when appending */
	const char *board;	/* may be NULL */
	int64_t run_id;		/* 0: not about a run */
	const char *kind;	/* e.g. "hang", "power-cycle" */
	const char *detail;	/* may be NULL */
};

int store_event_append(struct store *store, const struct store_event *event);

/* ---- board health --------------------------------------------------------- */

struct store_board_health {
	unsigned int consecutive_infra;
	bool offline;
	int64_t last_health_check;	/* 0: never */
};

/* A board the store has never heard of is healthy: all fields zero. */
int store_board_health_get(struct store *store, const char *board, struct store_board_health *health);
/* Takes a board offline (the scheduler decides when) or puts it back. */
int store_board_set_offline(struct store *store, const char *board, bool offline);
/* Records a health check now: passed puts the board online with its INFRA
 * count reset; failed keeps (or takes) it offline. */
int store_board_health_checked(struct store *store, const char *board, bool passed);

/* ---- bisections: a lab bisection's question, the runs it made, its answer -- */

/* Stored as these numbers: append new states, never renumber. */
enum store_bisection_state { STORE_BISECTION_RUNNING, STORE_BISECTION_DONE, STORE_BISECTION_ABORTED };

/* A bisection as read back; release with store_bisection_release(). */
struct store_bisection {
	int64_t id;
	const char *job;	/* the job's name */
	const char *spec;	/* what was asked: JSON text in the caller's format */
	enum store_bisection_state state;
	const char *answer;	/* JSON text; NULL until finished */
	int64_t created_at, finished_at;	/* ms since the epoch; finished_at 0 while running */
};

/* A new running bisection of `job` (not empty) asking `spec` (JSON text, not
 * NULL, stored verbatim); *id gets its id. */
int store_bisection_create(struct store *store, const char *job, const char *spec, int64_t *id);
/* Replaces the spec (e.g. once the symptom is chosen), whatever the state:
 * -ENOENT if no such bisection. */
int store_bisection_set_spec(struct store *store, int64_t id, const char *spec);
/* running -> done or aborted with the answer: -EALREADY when it is not
 * running, -EINVAL for another state or for DONE without an answer (ABORTED
 * may give NULL: stopped with nothing to say). */
int store_bisection_finish(struct store *store, int64_t id, enum store_bisection_state state,
			   const char *answer);
/* aborted -> running again (resume after a stop), answer and finished_at
 * cleared: -EALREADY when done. A running bisection (its coordinator died
 * before finishing it) is left running and 0 returned, so resume may call this
 * whatever it finds. */
int store_bisection_reopen(struct store *store, int64_t id);
/* One bisection: -ENOENT if there is none. */
int store_bisection_get(struct store *store, int64_t id, struct store_bisection *out);
/* The newest bisection (highest id), whatever its state: -ENOENT when none. */
int store_bisection_latest(struct store *store, struct store_bisection *out);
/* Frees what a get or latest gave; on a zeroed or released one it does nothing. */
void store_bisection_release(struct store_bisection *bisection);
/* Links a run to a bisection with its role ("bad-end", "good-end", "candidate",
 * "confirm", ...; not empty): -ENOENT when either does not exist, -EEXIST
 * when already linked (whatever the role). A run may serve several bisections. */
int store_bisection_add_run(struct store *store, int64_t bisection_id, int64_t run_id,
			    const char *role);
/* The runs of a bisection, oldest first (by run id, not by when they were
 * linked), with symptoms, metrics and counts per outcome as
 * store_runs_for_commit() gives them; roles[i] (malloc'd array of malloc'd
 * strings, freed with store_bisection_roles_free(), NULL when there are no
 * runs) is run i's role. -ENOENT if no such bisection. On failure the list is
 * empty and *roles NULL. */
int store_bisection_runs(struct store *store, int64_t bisection_id, struct store_run_list *list,
			 char ***roles);
/* Frees roles[0 .. count) and the array; NULL is allowed. */
void store_bisection_roles_free(char **roles, size_t count);

/* ---- gates: a job's matrix on a baseline and a candidate, and the verdict --- */

/*
 * `rackbisect gate JOB --baseline REF --candidate REF` runs the job's test
 * matrix on two kernels and stores a verdict. A gate is stored the way a
 * bisection is, with the same rules and error codes: what was asked (spec),
 * the runs made for it with their roles, and once finished a verdict and an
 * answer; and the bisection it started, if any.
 */

/* Stored as these numbers (a bisection's numbers): append, never renumber. */
enum store_gate_state { STORE_GATE_RUNNING, STORE_GATE_DONE, STORE_GATE_ABORTED };

/* A gate as read back; release with store_gate_release() (or, from
 * store_gate_list(), store_gate_list_free()). */
struct store_gate {
	int64_t id;
	char *job;		/* the job's name */
	char *spec;		/* what was asked: JSON text in the caller's format */
	enum store_gate_state state;
	char *verdict;		/* e.g. "PASS", "REGRESSION"; NULL until finished (and
				 * when aborted without one) */
	char *answer;		/* JSON text; NULL until finished (and when aborted
				 * without one) */
	int64_t bisection_id;	/* the bisection this gate started; 0: none */
	int64_t created_ms, finished_ms;	/* ms since the epoch; finished_ms 0 while running */
};

/* A new running gate of `job` (not empty) asking `spec` (JSON text, not NULL,
 * stored verbatim); *id gets its id. */
int store_gate_create(struct store *store, const char *job, const char *spec, int64_t *id);
/* Replaces the spec, whatever the state: -ENOENT if no such gate. */
int store_gate_set_spec(struct store *store, int64_t id, const char *spec);
/* Records the bisection the gate started (0: none, clearing it), whatever the
 * gate's state: -ENOENT if there is no such gate or no such bisection. */
int store_gate_set_bisection(struct store *store, int64_t id, int64_t bisection_id);
/* running -> done or aborted with the verdict and the answer: -EALREADY when
 * it is not running, -EINVAL for another state or for DONE without a verdict
 * (not empty) and an answer (ABORTED may give NULL for either). */
int store_gate_finish(struct store *store, int64_t id, enum store_gate_state state,
		      const char *verdict, const char *answer);
/* aborted -> running again (`gate resume`), verdict, answer and finished_ms
 * cleared: -EALREADY when done; a running gate (its coordinator died) is left
 * running and 0 returned, as store_bisection_reopen() does. */
int store_gate_reopen(struct store *store, int64_t id);
/* One gate: -ENOENT if there is none. */
int store_gate_get(struct store *store, int64_t id, struct store_gate *out);
/* The newest gate (highest id), whatever its state: -ENOENT when none. */
int store_gate_latest(struct store *store, struct store_gate *out);
/* The gates of `job` (not NULL) finished DONE, newest (highest id) first, at
 * most `limit` of them: for "the last good night" comparisons. *out is a
 * malloc'd array of *count gates (NULL when none), freed with
 * store_gate_list_free(); on failure NULL and 0. */
int store_gate_list(struct store *store, const char *job, size_t limit, struct store_gate **out,
		    size_t *count);
/* Frees what a get or latest gave; on a zeroed or released one it does nothing. */
void store_gate_release(struct store_gate *gate);
/* Frees gates[0 .. count) and the array; NULL is allowed. */
void store_gate_list_free(struct store_gate *gates, size_t count);
/* Links a run to a gate with its role ("baseline", "candidate", ...; not
 * empty): -ENOENT when either does not exist, -EEXIST when already linked
 * (whatever the role). A run may serve several gates (and bisections). */
int store_gate_add_run(struct store *store, int64_t gate_id, int64_t run_id, const char *role);
/* The runs of a gate, oldest first (by run id, not by when they were linked),
 * with symptoms, metrics and counts per outcome as store_runs_for_commit()
 * gives them; roles[i] (malloc'd array of malloc'd strings, freed with
 * store_gate_roles_free(), NULL when there are no runs) is run i's role.
 * -ENOENT if no such gate. On failure the list is empty and *roles NULL. */
int store_gate_runs(struct store *store, int64_t gate_id, struct store_run_list *list,
		    char ***roles);
/* Frees roles[0 .. count) and the array; NULL is allowed. */
void store_gate_roles_free(char **roles, size_t count);

#endif
