/*
 * store.c - the lab's state in SQLite. See store.h for the contract.
 *
 * Every SQL text here is a constant: values only ever reach the database as
 * bound parameters of prepared statements, so a board name, a commit message
 * or a kernel log line cannot change what a statement does.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "store.h"

/* A second writer (a CLI reading state, a resumed coordinator) waits this long
 * for a lock before the call fails with -EBUSY: long enough to ride out a
 * commit's fsync on a slow disk, short enough not to stall the loop unseen. */
#define BUSY_TIMEOUT_MS 5000

struct store {
	sqlite3 *db;
	char *path;
	char *lab;		/* store_set_lab's; NULL: "" */
	char message[1024];
};

/* ---- schema ---------------------------------------------------------------- */

/*
 * migrations[i] takes a database from user_version i to i + 1. Append, never
 * edit: a database in the field was made by the ones before. Each sets
 * user_version itself, inside its transaction, so a crash mid-migration
 * leaves the old version and the old schema.
 */
static const char *const migrations[] = {
	/* 0 -> 1: the first schema. Text values for states and outcomes so the
	 * database reads plainly with the sqlite3 shell; CHECKs keep them valid. */
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
	/* an outcome exactly when done: a half-finished run cannot exist */
	"  CHECK ((state = 'done') = (outcome IS NOT NULL)),"
	"  CHECK (state <> 'running' OR board IS NOT NULL)"
	");"
	"CREATE INDEX runs_by_commit ON runs (commit_id, job);"
	"CREATE INDEX runs_unfinished ON runs (state) WHERE state <> 'done';"
	/* position keeps the order symptoms and metrics were seen in; a metric
	 * name repeats (one reconnect_time per cycle), so it is no key */
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
	/* SQLite stores a bound NaN as NULL: NOT NULL refuses it */
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
	"PRAGMA user_version = 1;",

	/* 1 -> 2: lab bisections, so that bisect log, status and resume work
	 * after the coordinator died. spec and answer are the caller's JSON,
	 * opaque here. state is enum store_bisection_state's number (0 running,
	 * 1 done, 2 aborted); finished exactly when not running, no answer while
	 * running. A run may serve more than one bisection (a role in each). */
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
	"PRAGMA user_version = 2;",

	/* 2 -> 3: gates (rackbisect gate JOB --baseline REF --candidate REF: a
	 * job's matrix on two kernels and a verdict), stored as bisections are:
	 * spec and answer the caller's JSON, state enum store_gate_state's number
	 * (the same as a bisection's), finished exactly when not running, no
	 * verdict or answer while running, a verdict once done. bisection_id is
	 * the bisection the gate started, if any. gates_by_job serves "the last
	 * done gates of a job", newest first. */
	"CREATE TABLE gates ("
	"  id INTEGER PRIMARY KEY,"
	"  job TEXT NOT NULL CHECK (length(job) > 0),"
	"  spec TEXT NOT NULL,"
	"  state INTEGER NOT NULL CHECK (state IN (0, 1, 2)),"
	"  verdict TEXT CHECK (length(verdict) > 0),"
	"  answer TEXT,"
	"  bisection_id INTEGER REFERENCES bisections (id),"
	"  created_ms INTEGER NOT NULL,"
	"  finished_ms INTEGER,"
	"  CHECK ((state = 0) = (finished_ms IS NULL)),"
	"  CHECK (state <> 0 OR (verdict IS NULL AND answer IS NULL)),"
	"  CHECK (state <> 1 OR verdict IS NOT NULL)"
	");"
	"CREATE INDEX gates_by_job ON gates (job, state);"
	"CREATE TABLE gate_runs ("
	"  gate_id INTEGER NOT NULL REFERENCES gates (id),"
	"  run_id INTEGER NOT NULL REFERENCES runs (id),"
	"  role TEXT NOT NULL CHECK (length(role) > 0),"
	"  PRIMARY KEY (gate_id, run_id)"
	");"
	"PRAGMA user_version = 3;",

	/* 3 -> 4: runs and board health belong to a lab. Two labs sharing one
	 * state directory, each with a board named vb01, closed each other's
	 * live runs and took each other's boards offline. Rows from before
	 * have lab '' (no lab known). */
	"ALTER TABLE runs ADD COLUMN lab TEXT NOT NULL DEFAULT '';"
	"CREATE TABLE lab_board_health ("
	"  lab TEXT NOT NULL,"
	"  board TEXT NOT NULL,"
	"  consecutive_infra INTEGER NOT NULL DEFAULT 0,"
	"  offline INTEGER NOT NULL DEFAULT 0 CHECK (offline IN (0, 1)),"
	"  last_health_check INTEGER,"
	"  PRIMARY KEY (lab, board)"
	");"
	"INSERT INTO lab_board_health (lab, board, consecutive_infra, offline, last_health_check)"
	"  SELECT '', board, consecutive_infra, offline, last_health_check FROM board_health;"
	"DROP TABLE board_health;"
	"ALTER TABLE lab_board_health RENAME TO board_health;"
	"PRAGMA user_version = 4;",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == STORE_SCHEMA_VERSION,
	       "one migration per schema version");

static const char *const state_names[] = {
	[RUN_QUEUED] = "queued", [RUN_RUNNING] = "running", [RUN_DONE] = "done",
};

static const char *const outcome_names[RUN_OUTCOME_COUNT] = {
	[RUN_OUTCOME_NONE] = NULL, [RUN_PASS] = "PASS", [RUN_FAIL] = "FAIL",
	[RUN_INFRA] = "INFRA", [RUN_SKIP] = "SKIP",
};

static const char *const build_status_names[] = {
	[BUILD_BUILT] = "built", [BUILD_FAILED] = "failed",
};

/* A bisection's and a gate's state are stored as the same numbers. */
_Static_assert(STORE_GATE_RUNNING == (int)STORE_BISECTION_RUNNING &&
		       STORE_GATE_DONE == (int)STORE_BISECTION_DONE &&
		       STORE_GATE_ABORTED == (int)STORE_BISECTION_ABORTED,
	       "gate and bisection states share their numbers");

/* For messages only: the database keeps the enums' numbers. */
static const char *const record_state_names[] = {
	[STORE_BISECTION_RUNNING] = "running", [STORE_BISECTION_DONE] = "done",
	[STORE_BISECTION_ABORTED] = "aborted",
};

/* ---- errors ---------------------------------------------------------------- */

const char *store_strerror(int error)
{
	switch (error) {
	case 0:
		return "success";
	case STORE_ECORRUPT:
		return "state database is damaged or not a rackbisect database";
	case STORE_ENEWER:
		return "state database was written by a newer rackbisect";
	default:
		return error < 0 ? strerror(-error) : "unknown error";
	}
}

const char *store_error_message(const struct store *store)
{
	return store ? store->message : "state database: not opened (no path given, or no memory)";
}

/* SQLite's result codes as the errno-style codes store.h promises. */
static int error_from_sqlite(sqlite3 *db, int code)
{
	int system_error = db ? sqlite3_system_errno(db) : 0;

	switch (code & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return STORE_ECORRUPT;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
		return -EINVAL;
	case SQLITE_TOOBIG:
		return -E2BIG;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CANTOPEN:
		return system_error ? -system_error : -EACCES;
	case SQLITE_IOERR:
		/* a quota or file size limit is a full disk too; best effort:
		 * SQLite keeps the errno only when nothing overwrote it since */
		if (system_error == ENOSPC || system_error == EFBIG || system_error == EDQUOT)
			return -ENOSPC;
		return system_error ? -system_error : -EIO;
	default:
		return -EIO;
	}
}

static int fail(struct store *store, int error, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* Records "state database PATH: WHAT: WHY" and returns error. */
static int fail(struct store *store, int error, const char *format, ...)
{
	char what[512];
	va_list args;

	va_start(args, format);
	vsnprintf(what, sizeof(what), format, args);
	va_end(args);
	snprintf(store->message, sizeof(store->message), "state database %s: %s: %s",
		 store->path, what, store_strerror(error));
	return error;
}

/* Like fail() for an SQLite result code, with SQLite's own words appended. */
static int fail_sqlite(struct store *store, int code, const char *what)
{
	int error = error_from_sqlite(store->db, code);
	size_t used;

	fail(store, error, "%s", what);
	used = strlen(store->message);
	snprintf(store->message + used, sizeof(store->message) - used, " (sqlite: %s)",
		 store->db ? sqlite3_errmsg(store->db) : sqlite3_errstr(code));
	return error;
}

/* ---- statements ------------------------------------------------------------ */

static int64_t now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Binders keep the first failure in *rc so a statement is bound in a row of
 * calls and checked once: an unchecked failed bind would run as NULL. */
static void bind_text(sqlite3_stmt *stmt, int index, const char *text, int *rc)
{
	if (*rc != SQLITE_OK)
		return;
	if (!text)
		*rc = sqlite3_bind_null(stmt, index);
	else
		*rc = sqlite3_bind_text64(stmt, index, text, strlen(text), SQLITE_TRANSIENT,
					  SQLITE_UTF8);
}

static void bind_int(sqlite3_stmt *stmt, int index, int64_t value, int *rc)
{
	if (*rc == SQLITE_OK)
		*rc = sqlite3_bind_int64(stmt, index, value);
}

/* 0 means "none" for ids and times: stored as NULL. */
static void bind_optional_int(sqlite3_stmt *stmt, int index, int64_t value, int *rc)
{
	if (*rc != SQLITE_OK)
		return;
	*rc = value ? sqlite3_bind_int64(stmt, index, value) : sqlite3_bind_null(stmt, index);
}

static void bind_double(sqlite3_stmt *stmt, int index, double value, int *rc)
{
	if (*rc == SQLITE_OK)
		*rc = sqlite3_bind_double(stmt, index, value);
}

static int prepare(struct store *store, const char *sql, sqlite3_stmt **stmt, const char *what)
{
	int rc = sqlite3_prepare_v2(store->db, sql, -1, stmt, NULL);

	if (rc != SQLITE_OK) {
		*stmt = NULL;
		return fail_sqlite(store, rc, what);
	}
	return 0;
}

/* Runs a bound write statement to its end and finalizes it. In autocommit
 * mode the end of the statement is its commit, so success means synced. */
static int execute(struct store *store, sqlite3_stmt *stmt, int bind_rc, const char *what)
{
	int rc = bind_rc;

	if (rc == SQLITE_OK) {
		do
			rc = sqlite3_step(stmt);
		while (rc == SQLITE_ROW);
	}
	if (rc != SQLITE_DONE) {
		int error = fail_sqlite(store, rc, what);

		sqlite3_finalize(stmt);
		return error;
	}
	sqlite3_finalize(stmt);
	return 0;
}

static int execute_script(struct store *store, const char *sql, const char *what)
{
	int rc = sqlite3_exec(store->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail_sqlite(store, rc, what);
}

/* IMMEDIATE takes the write lock now, so a busy database fails here, before
 * any of the transaction's work, rather than at commit. */
static int transaction_begin(struct store *store, const char *what)
{
	return execute_script(store, "BEGIN IMMEDIATE", what);
}

static int transaction_commit(struct store *store, const char *what)
{
	int error = execute_script(store, "COMMIT", what);

	/* a failed COMMIT (disk full, busy) can leave the transaction open */
	if (error && !sqlite3_get_autocommit(store->db))
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	return error;
}

/* Undoes the open transaction and returns error: the error already described
 * stays in store->message. */
static int transaction_abandon(struct store *store, int error)
{
	if (!sqlite3_get_autocommit(store->db))
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	return error;
}

/* A copy of a text column, NULL for SQL NULL. */
static int column_copy(sqlite3_stmt *stmt, int column, char **string)
{
	const unsigned char *text;
	size_t length;
	char *copy;

	*string = NULL;
	if (sqlite3_column_type(stmt, column) == SQLITE_NULL)
		return 0;
	text = sqlite3_column_text(stmt, column);
	if (!text)
		return -ENOMEM;
	length = (size_t)sqlite3_column_bytes(stmt, column);
	copy = malloc(length + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, length);
	copy[length] = '\0';
	*string = copy;
	return 0;
}

/* column_copy() for the structs that hand out const strings. */
static int column_string(sqlite3_stmt *stmt, int column, const char **string)
{
	char *copy;
	int error = column_copy(stmt, column, &copy);

	*string = copy;
	return error;
}

static void free_string(const char *string)
{
	free((char *)string);
}

static int name_index(const char *const *names, size_t count, const char *name)
{
	for (size_t i = 0; name && i < count; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

#define NAME_INDEX(names, name) name_index(names, sizeof(names) / sizeof(names[0]), name)

/* ---- open, close, schema --------------------------------------------------- */

static int read_user_version(struct store *store, int *version)
{
	sqlite3_stmt *stmt;
	int rc, error;

	error = prepare(store, "PRAGMA user_version", &stmt, "read schema version");
	if (error)
		return error;
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		error = fail_sqlite(store, rc, "read schema version");
		sqlite3_finalize(stmt);
		return error;
	}
	*version = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return 0;
}

static int enable_write_ahead_log(struct store *store)
{
	sqlite3_stmt *stmt;
	const unsigned char *mode;
	int rc, error;

	error = prepare(store, "PRAGMA journal_mode = WAL", &stmt, "switch to WAL");
	if (error)
		return error;
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		error = fail_sqlite(store, rc, "switch to WAL");
		sqlite3_finalize(stmt);
		return error;
	}
	mode = sqlite3_column_text(stmt, 0);
	/* WAL needs shared memory; a filesystem without it (some network
	 * mounts) leaves another mode, and readers would block the coordinator */
	error = mode && strcmp((const char *)mode, "wal") == 0
			? 0
			: fail(store, -EIO, "switch to WAL: the filesystem keeps journal mode '%s'; "
					    "put the state directory on a local disk",
			       mode ? (const char *)mode : "?");
	sqlite3_finalize(stmt);
	return error;
}

static int configure_connection(struct store *store)
{
	int error;

	sqlite3_extended_result_codes(store->db, 1);
	sqlite3_busy_timeout(store->db, BUSY_TIMEOUT_MS);
	/* refuse SQL that could corrupt the file on purpose (writable_schema) */
	sqlite3_db_config(store->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	error = enable_write_ahead_log(store);
	if (error)
		return error;
	/*
	 * FULL, not WAL's usual NORMAL: NORMAL syncs the log only at
	 * checkpoints, so a power cut can take back transactions that had
	 * already returned as committed. Here a committed result is acted on at
	 * once (a board power-cycled, a bisection step taken, a report sent);
	 * losing it afterwards would repeat a finished run or contradict what
	 * was already done. FULL syncs the log on every commit: one fsync per
	 * result, cheap next to a kernel boot.
	 */
	error = execute_script(store, "PRAGMA synchronous = FULL", "set synchronous = FULL");
	if (error)
		return error;
	/* a symptom of a run that does not exist is a bug to refuse, not store */
	return execute_script(store, "PRAGMA foreign_keys = ON", "enable foreign keys");
}

static int apply_migration(struct store *store, int from_version)
{
	char what[64];
	int version, error;

	snprintf(what, sizeof(what), "migrate schema from version %d", from_version);
	error = transaction_begin(store, what);
	if (error)
		return error;
	/* another process may have migrated while this one waited for the lock */
	error = read_user_version(store, &version);
	if (error)
		return transaction_abandon(store, error);
	if (version != from_version)
		return transaction_abandon(store, 0);
	error = execute_script(store, migrations[from_version], what);
	if (error)
		return transaction_abandon(store, error);
	return transaction_commit(store, what);
}

static int migrate(struct store *store)
{
	int version, error;

	for (;;) {
		error = read_user_version(store, &version);
		if (error)
			return error;
		if (version == STORE_SCHEMA_VERSION)
			return 0;
		if (version < 0 || version > STORE_SCHEMA_VERSION)
			return fail(store, STORE_ENEWER, "schema version %d, this program knows up to %d",
				    version, STORE_SCHEMA_VERSION);
		error = apply_migration(store, version);
		if (error)
			return error;
	}
}

int store_open(const char *path, struct store **result)
{
	struct store *store;
	int rc, error;

	*result = NULL;
	if (!path)
		return -EINVAL;
	store = calloc(1, sizeof(*store));
	if (!store)
		return -ENOMEM;
	store->path = strdup(path);
	if (!store->path) {
		free(store);
		return -ENOMEM;
	}
	*result = store;
	rc = sqlite3_open_v2(path, &store->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK)
		return fail_sqlite(store, rc, "open");
	error = configure_connection(store);
	if (error)
		return error;
	return migrate(store);
}

void store_close(struct store *store)
{
	if (!store)
		return;
	/* sqlite3_close_v2 cannot fail for want of finalized statements: every
	 * function here finalizes its own before returning */
	sqlite3_close_v2(store->db);
	free(store->path);
	free(store->lab);
	free(store);
}

int store_set_lab(struct store *store, const char *lab)
{
	char *copy = lab ? strdup(lab) : NULL;

	if (lab && !copy)
		return -ENOMEM;
	free(store->lab);
	store->lab = copy;
	return 0;
}

static const char *lab_of(const struct store *store)
{
	return store->lab ? store->lab : "";
}

int store_schema_version(struct store *store, int *version)
{
	return read_user_version(store, version);
}

/* Appends each row of a check pragma to the message; counts the rows that
 * are not the pragma's "ok". */
static int collect_problems(struct store *store, const char *sql, size_t *problems)
{
	sqlite3_stmt *stmt;
	int rc, error;

	error = prepare(store, sql, &stmt, sql);
	if (error)
		return error;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *row = (const char *)sqlite3_column_text(stmt, 0);
		size_t used = strlen(store->message);

		if (row && strcmp(row, "ok") == 0)
			continue;
		(*problems)++;
		snprintf(store->message + used, sizeof(store->message) - used, "%s%s",
			 *problems > 1 ? "; " : ": ", row ? row : "a foreign key points nowhere");
	}
	error = rc == SQLITE_DONE ? 0 : fail_sqlite(store, rc, sql);
	sqlite3_finalize(stmt);
	return error;
}

int store_integrity_check(struct store *store)
{
	size_t problems = 0;
	int error;

	snprintf(store->message, sizeof(store->message),
		 "state database %s: integrity check found problems", store->path);
	error = collect_problems(store, "PRAGMA integrity_check", &problems);
	if (!error)
		error = collect_problems(store, "PRAGMA foreign_key_check", &problems);
	if (error)
		return error;
	if (problems)
		return STORE_ECORRUPT;
	store->message[0] = '\0';
	return 0;
}

/* ---- builds ---------------------------------------------------------------- */

int store_build_record(struct store *store, const struct store_build *build, int64_t *build_id)
{
	static const char sql[] =
		"INSERT INTO builds (commit_id, tree_id, status, release, artifact_path, log_path,"
		"                    created_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
		" ON CONFLICT (commit_id) DO UPDATE SET tree_id = excluded.tree_id,"
		"   status = excluded.status, release = excluded.release,"
		"   artifact_path = excluded.artifact_path, log_path = excluded.log_path,"
		"   created_at = excluded.created_at"
		" RETURNING id";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	if (!build->commit || !build->tree || (unsigned int)build->status > BUILD_FAILED)
		return fail(store, -EINVAL, "record build: commit, tree and status are required");
	error = prepare(store, sql, &stmt, "record build");
	if (error)
		return error;
	bind_text(stmt, 1, build->commit, &rc);
	bind_text(stmt, 2, build->tree, &rc);
	bind_text(stmt, 3, build_status_names[build->status], &rc);
	bind_text(stmt, 4, build->release, &rc);
	bind_text(stmt, 5, build->artifact_path, &rc);
	bind_text(stmt, 6, build->log_path, &rc);
	bind_int(stmt, 7, now_ms(), &rc);
	if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		*build_id = sqlite3_column_int64(stmt, 0);
		/* the insert commits when the statement ends, not at its row */
		rc = sqlite3_step(stmt);
	}
	if (rc != SQLITE_DONE) {
		error = fail_sqlite(store, rc, "record build");
		sqlite3_finalize(stmt);
		return error;
	}
	sqlite3_finalize(stmt);
	return 0;
}

#define BUILD_COLUMNS "id, commit_id, tree_id, status, release, artifact_path, log_path, created_at"

static int read_build_row(sqlite3_stmt *stmt, struct store_build *build)
{
	const char *status;
	int error;

	memset(build, 0, sizeof(*build));
	build->id = sqlite3_column_int64(stmt, 0);
	build->created_at = sqlite3_column_int64(stmt, 7);
	status = (const char *)sqlite3_column_text(stmt, 3);
	build->status = NAME_INDEX(build_status_names, status) == BUILD_FAILED ? BUILD_FAILED
									      : BUILD_BUILT;
	if ((error = column_string(stmt, 1, &build->commit)) ||
	    (error = column_string(stmt, 2, &build->tree)) ||
	    (error = column_string(stmt, 4, &build->release)) ||
	    (error = column_string(stmt, 5, &build->artifact_path)) ||
	    (error = column_string(stmt, 6, &build->log_path)))
		store_build_release(build);
	return error;
}

/* The build the statement's ?1 selects: `key` bound as text, or when it is
 * NULL, `id` as a number. */
static int find_build(struct store *store, const char *sql, const char *key, int64_t id,
		      struct store_build *build, const char *what)
{
	char id_text[32];
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	memset(build, 0, sizeof(*build));
	if (!key && id <= 0)
		return fail(store, -EINVAL, "%s: no id given", what);
	error = prepare(store, sql, &stmt, what);
	if (error)
		return error;
	if (key) {
		bind_text(stmt, 1, key, &rc);
	} else {
		bind_int(stmt, 1, id, &rc);
		snprintf(id_text, sizeof(id_text), "%" PRId64, id);
		key = id_text;
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		error = read_build_row(stmt, build);
	else if (rc == SQLITE_DONE)
		error = -ENOENT;
	else
		error = fail_sqlite(store, rc, what);
	sqlite3_finalize(stmt);
	if (error == -ENOENT)
		return fail(store, error, "%s %s", what, key);
	return error;
}

int store_build_find_by_commit(struct store *store, const char *commit, struct store_build *build)
{
	return find_build(store, "SELECT " BUILD_COLUMNS " FROM builds WHERE commit_id = ?1",
			  commit, 0, build, "find build of commit");
}

int store_build_find_by_tree(struct store *store, const char *tree, struct store_build *build)
{
	return find_build(store,
			  "SELECT " BUILD_COLUMNS " FROM builds WHERE tree_id = ?1"
			  " ORDER BY created_at DESC, id DESC LIMIT 1",
			  tree, 0, build, "find build of tree");
}

int store_build_get(struct store *store, int64_t build_id, struct store_build *build)
{
	return find_build(store, "SELECT " BUILD_COLUMNS " FROM builds WHERE id = ?1", NULL, build_id,
			  build, "find build");
}

void store_build_release(struct store_build *build)
{
	free_string(build->commit);
	free_string(build->tree);
	free_string(build->release);
	free_string(build->artifact_path);
	free_string(build->log_path);
	memset(build, 0, sizeof(*build));
}

/* ---- run writes ------------------------------------------------------------ */

int store_run_queue(struct store *store, const struct store_run_request *request, int64_t *run_id)
{
	static const char sql[] =
		"INSERT INTO runs (job, board, commit_id, build_id, workload, repeat_index, state,"
		"                  queued_at, lab)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', ?7, ?8)";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	if (!request->job || !request->commit || !request->workload)
		return fail(store, -EINVAL, "queue run: job, commit and workload are required");
	error = prepare(store, sql, &stmt, "queue run");
	if (error)
		return error;
	bind_text(stmt, 1, request->job, &rc);
	bind_text(stmt, 2, request->board, &rc);
	bind_text(stmt, 3, request->commit, &rc);
	bind_optional_int(stmt, 4, request->build_id, &rc);
	bind_text(stmt, 5, request->workload, &rc);
	bind_int(stmt, 6, request->repeat_index, &rc);
	bind_int(stmt, 7, now_ms(), &rc);
	bind_text(stmt, 8, lab_of(store), &rc);
	error = execute(store, stmt, rc, "queue run");
	if (error)
		return error;
	*run_id = sqlite3_last_insert_rowid(store->db);
	return 0;
}

/* The state of a run, or -ENOENT. */
static int read_run_state(struct store *store, int64_t run_id, enum run_state *state,
			  const char *what)
{
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error, index;

	error = prepare(store, "SELECT state FROM runs WHERE id = ?1", &stmt, what);
	if (error)
		return error;
	bind_int(stmt, 1, run_id, &rc);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		index = NAME_INDEX(state_names, (const char *)sqlite3_column_text(stmt, 0));
		*state = index < 0 ? RUN_DONE : (enum run_state)index;
		error = 0;
	} else if (rc == SQLITE_DONE) {
		error = fail(store, -ENOENT, "%s %" PRId64, what, run_id);
	} else {
		error = fail_sqlite(store, rc, what);
	}
	sqlite3_finalize(stmt);
	return error;
}

/* After an update guarded by the run's state changed nothing: why not. */
static int explain_unchanged_run(struct store *store, int64_t run_id, const char *what)
{
	enum run_state state = RUN_DONE;
	int error = read_run_state(store, run_id, &state, what);

	if (error)
		return error;
	return fail(store, -EALREADY, "%s %" PRId64 ": the run is %s", what, run_id,
		    state_names[state]);
}

/* Runs a statement that changes one run if its state allows. */
static int update_run(struct store *store, sqlite3_stmt *stmt, int bind_rc, int64_t run_id,
		      const char *what)
{
	int error = execute(store, stmt, bind_rc, what);

	if (error)
		return error;
	if (sqlite3_changes(store->db) == 0)
		return explain_unchanged_run(store, run_id, what);
	return 0;
}

int store_run_start(struct store *store, int64_t run_id, const char *board)
{
	static const char sql[] =
		"UPDATE runs SET state = 'running', board = ?2, started_at = ?3, lab = ?4"
		" WHERE id = ?1 AND state = 'queued'";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	if (!board || !*board)
		return fail(store, -EINVAL, "start run %" PRId64 ": no board", run_id);
	error = prepare(store, sql, &stmt, "start run");
	if (error)
		return error;
	bind_int(stmt, 1, run_id, &rc);
	bind_text(stmt, 2, board, &rc);
	bind_int(stmt, 3, now_ms(), &rc);
	bind_text(stmt, 4, lab_of(store), &rc);
	return update_run(store, stmt, rc, run_id, "start run");
}

int store_run_requeue(struct store *store, int64_t run_id)
{
	static const char sql[] =
		"UPDATE runs SET state = 'queued', board = NULL, started_at = NULL"
		" WHERE id = ?1 AND state = 'running'";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	error = prepare(store, sql, &stmt, "requeue run");
	if (error)
		return error;
	bind_int(stmt, 1, run_id, &rc);
	return update_run(store, stmt, rc, run_id, "requeue run");
}

static int insert_symptom(struct store *store, int64_t run_id, size_t position,
			  const struct store_symptom *symptom)
{
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	error = prepare(store,
			"INSERT INTO symptoms (run_id, position, name, evidence)"
			" VALUES (?1, ?2, ?3, ?4)",
			&stmt, "store symptom");
	if (error)
		return error;
	bind_int(stmt, 1, run_id, &rc);
	bind_int(stmt, 2, (int64_t)position, &rc);
	bind_text(stmt, 3, symptom->name, &rc);
	bind_text(stmt, 4, symptom->evidence, &rc);
	return execute(store, stmt, rc, "store symptom");
}

static int insert_metric(struct store *store, int64_t run_id, size_t position,
			 const struct store_metric *metric)
{
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	error = prepare(store,
			"INSERT INTO metrics (run_id, position, name, value, unit)"
			" VALUES (?1, ?2, ?3, ?4, ?5)",
			&stmt, "store metric");
	if (error)
		return error;
	bind_int(stmt, 1, run_id, &rc);
	bind_int(stmt, 2, (int64_t)position, &rc);
	bind_text(stmt, 3, metric->name, &rc);
	bind_double(stmt, 4, metric->value, &rc);
	bind_text(stmt, 5, metric->unit, &rc);
	return execute(store, stmt, rc, "store metric");
}

/* The board's INFRA streak, as store.h says store_run_finish() keeps it. */
static int count_board_outcome(struct store *store, int64_t run_id, enum run_outcome outcome)
{
	static const char infra_sql[] =
		"INSERT INTO board_health (lab, board, consecutive_infra)"
		" SELECT lab, board, 1 FROM runs WHERE id = ?1 AND board IS NOT NULL"
		" ON CONFLICT (lab, board) DO UPDATE SET consecutive_infra = consecutive_infra + 1";
	static const char worked_sql[] =
		"INSERT INTO board_health (lab, board)"
		" SELECT lab, board FROM runs WHERE id = ?1 AND board IS NOT NULL"
		" ON CONFLICT (lab, board) DO UPDATE SET consecutive_infra = 0";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	if (outcome == RUN_SKIP)
		return 0;
	error = prepare(store, outcome == RUN_INFRA ? infra_sql : worked_sql, &stmt,
			"update board health");
	if (error)
		return error;
	bind_int(stmt, 1, run_id, &rc);
	return execute(store, stmt, rc, "update board health");
}

static int mark_run_done(struct store *store, int64_t run_id, const struct store_result *result)
{
	static const char sql[] =
		"UPDATE runs SET state = 'done', outcome = ?2, cause = ?3, finished_at = ?4"
		" WHERE id = ?1 AND state <> 'done'";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	error = prepare(store, sql, &stmt, "finish run");
	if (error)
		return error;
	bind_int(stmt, 1, run_id, &rc);
	bind_text(stmt, 2, outcome_names[result->outcome], &rc);
	bind_text(stmt, 3, result->cause, &rc);
	bind_int(stmt, 4, now_ms(), &rc);
	return update_run(store, stmt, rc, run_id, "finish run");
}

static int write_result(struct store *store, int64_t run_id, const struct store_result *result)
{
	int error = mark_run_done(store, run_id, result);

	for (size_t i = 0; !error && i < result->symptom_count; i++)
		error = insert_symptom(store, run_id, i, &result->symptoms[i]);
	for (size_t i = 0; !error && i < result->metric_count; i++)
		error = insert_metric(store, run_id, i, &result->metrics[i]);
	if (!error)
		error = count_board_outcome(store, run_id, result->outcome);
	return error;
}

int store_run_finish(struct store *store, int64_t run_id, const struct store_result *result)
{
	char what[64];
	int error;

	if (result->outcome <= RUN_OUTCOME_NONE || result->outcome >= RUN_OUTCOME_COUNT ||
	    (result->symptom_count && !result->symptoms) ||
	    (result->metric_count && !result->metrics))
		return fail(store, -EINVAL, "finish run %" PRId64 ": no valid outcome", run_id);
	snprintf(what, sizeof(what), "finish run %" PRId64, run_id);
	error = transaction_begin(store, what);
	if (error)
		return error;
	error = write_result(store, run_id, result);
	if (error)
		return transaction_abandon(store, error);
	return transaction_commit(store, what);
}

/* ---- run reads ------------------------------------------------------------- */

#define RUN_COLUMNS                                                                   \
	"id, job, board, commit_id, build_id, workload, repeat_index, state, outcome, " \
	"cause, queued_at, started_at, finished_at"
/* A query may select more after RUN_COLUMNS: its first such column. */
#define RUN_COLUMN_COUNT 13

static int read_run_row(sqlite3_stmt *stmt, struct store_run *run)
{
	int state, outcome, error;

	memset(run, 0, sizeof(*run));
	run->id = sqlite3_column_int64(stmt, 0);
	run->build_id = sqlite3_column_int64(stmt, 4);
	run->repeat_index = (unsigned int)sqlite3_column_int64(stmt, 6);
	state = NAME_INDEX(state_names, (const char *)sqlite3_column_text(stmt, 7));
	outcome = NAME_INDEX(outcome_names, (const char *)sqlite3_column_text(stmt, 8));
	run->state = state < 0 ? RUN_QUEUED : (enum run_state)state;
	run->outcome = outcome < 0 ? RUN_OUTCOME_NONE : (enum run_outcome)outcome;
	run->queued_at = sqlite3_column_int64(stmt, 10);
	run->started_at = sqlite3_column_int64(stmt, 11);
	run->finished_at = sqlite3_column_int64(stmt, 12);
	if ((error = column_string(stmt, 1, &run->job)) ||
	    (error = column_string(stmt, 2, &run->board)) ||
	    (error = column_string(stmt, 3, &run->commit)) ||
	    (error = column_string(stmt, 5, &run->workload)) ||
	    (error = column_string(stmt, 9, &run->cause)))
		store_run_release(run);
	return error;
}

/* Grows *items (of item_size bytes) to hold one more; 0 or -ENOMEM. */
static int grow(void **items, size_t count, size_t *capacity, size_t item_size)
{
	size_t wanted;
	void *bigger;

	if (count < *capacity)
		return 0;
	wanted = *capacity ? *capacity * 2 : 8;
	bigger = realloc(*items, wanted * item_size);
	if (!bigger)
		return -ENOMEM;
	*items = bigger;
	*capacity = wanted;
	return 0;
}

static int load_symptoms(struct store *store, struct store_run *run)
{
	sqlite3_stmt *stmt;
	size_t capacity = 0;
	int rc = SQLITE_OK, error;

	error = prepare(store,
			"SELECT name, evidence FROM symptoms WHERE run_id = ?1 ORDER BY position",
			&stmt, "read symptoms");
	if (error)
		return error;
	bind_int(stmt, 1, run->id, &rc);
	while (!error && rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_symptom *symptom;

		rc = SQLITE_OK;
		error = grow((void **)&run->symptoms, run->symptom_count, &capacity,
			     sizeof(*run->symptoms));
		if (error)
			break;
		symptom = &run->symptoms[run->symptom_count++];
		memset(symptom, 0, sizeof(*symptom));
		error = column_string(stmt, 0, &symptom->name);
		if (!error)
			error = column_string(stmt, 1, &symptom->evidence);
	}
	if (!error && rc != SQLITE_DONE)
		error = fail_sqlite(store, rc, "read symptoms");
	sqlite3_finalize(stmt);
	return error;
}

static int load_metrics(struct store *store, struct store_run *run)
{
	sqlite3_stmt *stmt;
	size_t capacity = 0;
	int rc = SQLITE_OK, error;

	error = prepare(store,
			"SELECT name, value, unit FROM metrics WHERE run_id = ?1 ORDER BY position",
			&stmt, "read metrics");
	if (error)
		return error;
	bind_int(stmt, 1, run->id, &rc);
	while (!error && rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_metric *metric;

		rc = SQLITE_OK;
		error = grow((void **)&run->metrics, run->metric_count, &capacity,
			     sizeof(*run->metrics));
		if (error)
			break;
		metric = &run->metrics[run->metric_count++];
		memset(metric, 0, sizeof(*metric));
		metric->value = sqlite3_column_double(stmt, 1);
		error = column_string(stmt, 0, &metric->name);
		if (!error)
			error = column_string(stmt, 2, &metric->unit);
	}
	if (!error && rc != SQLITE_DONE)
		error = fail_sqlite(store, rc, "read metrics");
	sqlite3_finalize(stmt);
	return error;
}

static int load_run_details(struct store *store, struct store_run *run)
{
	int error = load_symptoms(store, run);

	return error ? error : load_metrics(store, run);
}

int store_run_get(struct store *store, int64_t run_id, struct store_run *run)
{
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	memset(run, 0, sizeof(*run));
	error = prepare(store, "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?1", &stmt, "read run");
	if (error)
		return error;
	bind_int(stmt, 1, run_id, &rc);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		error = read_run_row(stmt, run);
	else if (rc == SQLITE_DONE)
		error = fail(store, -ENOENT, "read run %" PRId64, run_id);
	else
		error = fail_sqlite(store, rc, "read run");
	sqlite3_finalize(stmt);
	if (!error)
		error = load_run_details(store, run);
	if (error)
		store_run_release(run);
	return error;
}

/* Reads a query's columns past RUN_COLUMNS for the run just added to a list. */
typedef int read_row_extra_fn(sqlite3_stmt *stmt, void *context);

/* Reads every row of a bound run query into list, then each run's details
 * (after the query ends, so no statement is left open between calls); with
 * read_extra, also what the query selects after RUN_COLUMNS, row by row. */
static int read_run_list_extra(struct store *store, sqlite3_stmt *stmt, int bind_rc,
			       struct store_run_list *list, read_row_extra_fn *read_extra,
			       void *context, const char *what)
{
	size_t capacity = 0;
	int rc = bind_rc, error = 0;

	while (!error && rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		error = grow((void **)&list->runs, list->count, &capacity, sizeof(*list->runs));
		if (!error)
			error = read_run_row(stmt, &list->runs[list->count]);
		if (!error)
			list->by_outcome[list->runs[list->count++].outcome]++;
		if (!error && read_extra)
			error = read_extra(stmt, context);
	}
	if (!error && rc != SQLITE_DONE)
		error = fail_sqlite(store, rc, what);
	sqlite3_finalize(stmt);
	for (size_t i = 0; !error && i < list->count; i++)
		error = load_run_details(store, &list->runs[i]);
	if (error)
		store_run_list_release(list);
	return error;
}

static int read_run_list(struct store *store, sqlite3_stmt *stmt, int bind_rc,
			 struct store_run_list *list, const char *what)
{
	return read_run_list_extra(store, stmt, bind_rc, list, NULL, NULL, what);
}

int store_runs_for_commit(struct store *store, const char *job, const char *commit,
			  struct store_run_list *list)
{
	static const char sql[] =
		"SELECT " RUN_COLUMNS " FROM runs"
		" WHERE commit_id = ?1 AND (?2 IS NULL OR job = ?2) ORDER BY id";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	memset(list, 0, sizeof(*list));
	if (!commit)
		return fail(store, -EINVAL, "read runs of a commit: no commit given");
	error = prepare(store, sql, &stmt, "read runs of a commit");
	if (error)
		return error;
	bind_text(stmt, 1, commit, &rc);
	bind_text(stmt, 2, job, &rc);
	return read_run_list(store, stmt, rc, list, "read runs of a commit");
}

int store_runs_last(struct store *store, unsigned int limit, struct store_run_list *list)
{
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	memset(list, 0, sizeof(*list));
	error = prepare(store, "SELECT " RUN_COLUMNS " FROM runs ORDER BY id DESC LIMIT ?1", &stmt,
			"read the last runs");
	if (error)
		return error;
	bind_int(stmt, 1, limit, &rc);
	return read_run_list(store, stmt, rc, list, "read the last runs");
}

int store_runs_unfinished(struct store *store, struct store_run_list *list)
{
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	memset(list, 0, sizeof(*list));
	/* a run of no known lab (stored before runs had one) is anyone's */
	error = prepare(store, "SELECT " RUN_COLUMNS " FROM runs WHERE state <> 'done'"
			" AND lab IN (?1, '') ORDER BY id", &stmt, "read unfinished runs");
	if (error)
		return error;
	bind_text(stmt, 1, lab_of(store), &rc);
	return read_run_list(store, stmt, rc, list, "read unfinished runs");
}

void store_run_release(struct store_run *run)
{
	free_string(run->job);
	free_string(run->board);
	free_string(run->commit);
	free_string(run->workload);
	free_string(run->cause);
	for (size_t i = 0; i < run->symptom_count; i++) {
		free_string(run->symptoms[i].name);
		free_string(run->symptoms[i].evidence);
	}
	for (size_t i = 0; i < run->metric_count; i++) {
		free_string(run->metrics[i].name);
		free_string(run->metrics[i].unit);
	}
	free(run->symptoms);
	free(run->metrics);
	memset(run, 0, sizeof(*run));
}

void store_run_list_release(struct store_run_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		store_run_release(&list->runs[i]);
	free(list->runs);
	memset(list, 0, sizeof(*list));
}

/* ---- events ---------------------------------------------------------------- */

int store_event_append(struct store *store, const struct store_event *event)
{
	static const char sql[] =
		"INSERT INTO events (time, board, run_id, kind, detail) VALUES (?1, ?2, ?3, ?4, ?5)";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	if (!event->kind)
		return fail(store, -EINVAL, "append event: no kind");
	error = prepare(store, sql, &stmt, "append event");
	if (error)
		return error;
	bind_int(stmt, 1, now_ms(), &rc);
	bind_text(stmt, 2, event->board, &rc);
	bind_optional_int(stmt, 3, event->run_id, &rc);
	bind_text(stmt, 4, event->kind, &rc);
	bind_text(stmt, 5, event->detail, &rc);
	return execute(store, stmt, rc, "append event");
}

/* ---- board health ---------------------------------------------------------- */

int store_board_health_get(struct store *store, const char *board, struct store_board_health *health)
{
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	memset(health, 0, sizeof(*health));
	if (!board)
		return fail(store, -EINVAL, "read board health: no board");
	error = prepare(store,
			"SELECT consecutive_infra, offline, last_health_check FROM board_health"
			" WHERE board = ?1 AND lab = ?2",
			&stmt, "read board health");
	if (error)
		return error;
	bind_text(stmt, 1, board, &rc);
	bind_text(stmt, 2, lab_of(store), &rc);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		health->consecutive_infra = (unsigned int)sqlite3_column_int64(stmt, 0);
		health->offline = sqlite3_column_int(stmt, 1) != 0;
		health->last_health_check = sqlite3_column_int64(stmt, 2);
		rc = SQLITE_DONE;
	}
	error = rc == SQLITE_DONE ? 0 : fail_sqlite(store, rc, "read board health");
	sqlite3_finalize(stmt);
	return error;
}

int store_board_set_offline(struct store *store, const char *board, bool offline)
{
	static const char sql[] =
		"INSERT INTO board_health (board, offline, lab) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (lab, board) DO UPDATE SET offline = excluded.offline";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	if (!board)
		return fail(store, -EINVAL, "set board offline: no board");
	error = prepare(store, sql, &stmt, "set board offline");
	if (error)
		return error;
	bind_text(stmt, 1, board, &rc);
	bind_int(stmt, 2, offline, &rc);
	bind_text(stmt, 3, lab_of(store), &rc);
	return execute(store, stmt, rc, "set board offline");
}

int store_board_health_checked(struct store *store, const char *board, bool passed)
{
	static const char sql[] =
		"INSERT INTO board_health (board, offline, last_health_check, lab)"
		" VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT (lab, board) DO UPDATE SET offline = excluded.offline,"
		"   last_health_check = excluded.last_health_check,"
		"   consecutive_infra = CASE WHEN excluded.offline THEN consecutive_infra ELSE 0 END";
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	if (!board)
		return fail(store, -EINVAL, "record health check: no board");
	error = prepare(store, sql, &stmt, "record health check");
	if (error)
		return error;
	bind_text(stmt, 1, board, &rc);
	bind_int(stmt, 2, !passed, &rc);
	bind_int(stmt, 3, now_ms(), &rc);
	bind_text(stmt, 4, lab_of(store), &rc);
	return execute(store, stmt, rc, "record health check");
}

/* ---- bisections and gates -------------------------------------------------- */

/*
 * A bisection and a gate are stored alike: a row with a job, a spec and a
 * state, finished once with an answer (a gate also with a verdict), and a link
 * table giving runs their roles. One set of functions serves both; a
 * record_kind names what differs. RECORD_SQL spells each kind's statements out
 * at compile time: table names are constants in the code, never values.
 */

/* Reads a row of the kind's get and latest queries into a struct. */
typedef int read_record_row_fn(sqlite3_stmt *stmt, void *record);

struct record_kind {
	const char *noun;		/* "bisection", "gate": in messages */
	bool has_verdict;		/* finishing binds ?5, the verdict */
	read_record_row_fn *read_row;
	const char *create_sql;		/* ?1 job, ?2 spec, ?3 now */
	const char *state_sql;		/* ?1 id */
	const char *set_spec_sql;	/* ?1 id, ?2 spec */
	const char *finish_sql;		/* ?1 id, ?2 state, ?3 answer, ?4 now (, ?5 verdict) */
	const char *reopen_sql;		/* ?1 id: aborted -> running, the answer cleared */
	const char *get_sql;		/* ?1 id */
	const char *latest_sql;
	const char *link_sql;		/* ?1 id, ?2 run id, ?3 role */
	const char *runs_sql;		/* ?1 id: RUN_COLUMNS, then the role */
};

/* RUN_COLUMNS name only runs' columns: a link table has none of theirs. */
/* finish_more: what finishing sets besides (?5); reopen_more: what reopening clears of it. */
#define RECORD_SQL(table, columns, created, finished, finish_more, reopen_more, link, key)      \
	.create_sql = "INSERT INTO " table " (job, spec, state, " created ")"                  \
		      " VALUES (?1, ?2, 0, ?3)",                                                 \
	.state_sql = "SELECT state FROM " table " WHERE id = ?1",                                \
	.set_spec_sql = "UPDATE " table " SET spec = ?2 WHERE id = ?1",                          \
	.finish_sql = "UPDATE " table " SET state = ?2, answer = ?3, " finished " = ?4"        \
		      finish_more " WHERE id = ?1 AND state = 0",                                \
	.reopen_sql = "UPDATE " table " SET state = 0, answer = NULL, " finished " = NULL"     \
		      reopen_more " WHERE id = ?1 AND state = 2",                                \
	.get_sql = "SELECT " columns " FROM " table " WHERE id = ?1",                            \
	.latest_sql = "SELECT " columns " FROM " table " ORDER BY id DESC LIMIT 1",              \
	.link_sql = "INSERT INTO " link " (" key ", run_id, role) VALUES (?1, ?2, ?3)",          \
	.runs_sql = "SELECT " RUN_COLUMNS ", " link ".role FROM runs JOIN " link                 \
		    " ON " link ".run_id = runs.id WHERE " link "." key " = ?1 ORDER BY runs.id"

#define BISECTION_COLUMNS "id, job, spec, state, answer, created_at, finished_at"
#define GATE_COLUMNS \
	"id, job, spec, state, verdict, answer, bisection_id, created_ms, finished_ms"

/* A stored state as the enums' number; the schema's CHECK keeps it one of the three. */
static int record_state(int64_t value)
{
	return value == STORE_BISECTION_DONE || value == STORE_BISECTION_ABORTED
		       ? (int)value
		       : STORE_BISECTION_RUNNING;
}

static int read_bisection_row(sqlite3_stmt *stmt, void *record)
{
	struct store_bisection *bisection = record;
	int error;

	memset(bisection, 0, sizeof(*bisection));
	bisection->id = sqlite3_column_int64(stmt, 0);
	bisection->state = (enum store_bisection_state)record_state(sqlite3_column_int64(stmt, 3));
	bisection->created_at = sqlite3_column_int64(stmt, 5);
	bisection->finished_at = sqlite3_column_int64(stmt, 6);
	if ((error = column_string(stmt, 1, &bisection->job)) ||
	    (error = column_string(stmt, 2, &bisection->spec)) ||
	    (error = column_string(stmt, 4, &bisection->answer)))
		store_bisection_release(bisection);
	return error;
}

static int read_gate_row(sqlite3_stmt *stmt, void *record)
{
	struct store_gate *gate = record;
	int error;

	memset(gate, 0, sizeof(*gate));
	gate->id = sqlite3_column_int64(stmt, 0);
	gate->state = (enum store_gate_state)record_state(sqlite3_column_int64(stmt, 3));
	gate->bisection_id = sqlite3_column_int64(stmt, 6);
	gate->created_ms = sqlite3_column_int64(stmt, 7);
	gate->finished_ms = sqlite3_column_int64(stmt, 8);
	if ((error = column_copy(stmt, 1, &gate->job)) ||
	    (error = column_copy(stmt, 2, &gate->spec)) ||
	    (error = column_copy(stmt, 4, &gate->verdict)) ||
	    (error = column_copy(stmt, 5, &gate->answer)))
		store_gate_release(gate);
	return error;
}

static const struct record_kind bisection_kind = {
	.noun = "bisection",
	.read_row = read_bisection_row,
	RECORD_SQL("bisections", BISECTION_COLUMNS, "created_at", "finished_at", "", "",
		   "bisection_runs", "bisection_id"),
};

static const struct record_kind gate_kind = {
	.noun = "gate",
	.has_verdict = true,
	.read_row = read_gate_row,
	RECORD_SQL("gates", GATE_COLUMNS, "created_ms", "finished_ms", ", verdict = ?5",
		   ", verdict = NULL",
		   "gate_runs", "gate_id"),
};

static int create_record(struct store *store, const struct record_kind *kind, const char *job,
			 const char *spec, int64_t *id)
{
	sqlite3_stmt *stmt;
	char what[32];
	int rc = SQLITE_OK, error;

	snprintf(what, sizeof(what), "create %s", kind->noun);
	if (!job || !spec)
		return fail(store, -EINVAL, "%s: job and spec are required", what);
	error = prepare(store, kind->create_sql, &stmt, what);
	if (error)
		return error;
	bind_text(stmt, 1, job, &rc);
	bind_text(stmt, 2, spec, &rc);
	bind_int(stmt, 3, now_ms(), &rc);
	error = execute(store, stmt, rc, what);
	if (error)
		return error;
	*id = sqlite3_last_insert_rowid(store->db);
	return 0;
}

/* The state of a bisection or gate, or -ENOENT. */
static int read_record_state(struct store *store, const struct record_kind *kind, int64_t id,
			     int *state, const char *what)
{
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	error = prepare(store, kind->state_sql, &stmt, what);
	if (error)
		return error;
	bind_int(stmt, 1, id, &rc);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*state = record_state(sqlite3_column_int64(stmt, 0));
		error = 0;
	} else if (rc == SQLITE_DONE) {
		error = fail(store, -ENOENT, "%s: no such %s", what, kind->noun);
	} else {
		error = fail_sqlite(store, rc, what);
	}
	sqlite3_finalize(stmt);
	return error;
}

/* After an update guarded by the state changed nothing: -ENOENT when there is
 * no such record, 0 when it is in state `unchanged_is_fine`, else -EALREADY. */
static int explain_unchanged_record(struct store *store, const struct record_kind *kind,
				    int64_t id, int unchanged_is_fine, const char *what)
{
	int current = STORE_BISECTION_RUNNING;
	int error = read_record_state(store, kind, id, &current, what);

	if (error)
		return error;
	if (current == unchanged_is_fine)
		return 0;
	return fail(store, -EALREADY, "%s: the %s is %s", what, kind->noun,
		    record_state_names[current]);
}

static int set_record_spec(struct store *store, const struct record_kind *kind, int64_t id,
			   const char *spec)
{
	sqlite3_stmt *stmt;
	char what[64];
	int rc = SQLITE_OK, error;

	snprintf(what, sizeof(what), "set the spec of %s %" PRId64, kind->noun, id);
	if (!spec)
		return fail(store, -EINVAL, "%s: no spec", what);
	error = prepare(store, kind->set_spec_sql, &stmt, what);
	if (error)
		return error;
	bind_int(stmt, 1, id, &rc);
	bind_text(stmt, 2, spec, &rc);
	error = execute(store, stmt, rc, what);
	if (error)
		return error;
	if (sqlite3_changes(store->db) == 0)
		return fail(store, -ENOENT, "%s: no such %s", what, kind->noun);
	return 0;
}

/* running -> done or aborted; verdict only for a kind that has one. */
static int finish_record(struct store *store, const struct record_kind *kind, int64_t id,
			 int state, const char *verdict, const char *answer)
{
	sqlite3_stmt *stmt;
	char what[64];
	int rc = SQLITE_OK, error;

	snprintf(what, sizeof(what), "finish %s %" PRId64, kind->noun, id);
	if (state != STORE_BISECTION_DONE && state != STORE_BISECTION_ABORTED)
		return fail(store, -EINVAL, "%s: the new state is neither done nor aborted", what);
	if (state == STORE_BISECTION_DONE && !answer)
		return fail(store, -EINVAL, "%s: done without an answer", what);
	if (kind->has_verdict && state == STORE_BISECTION_DONE && (!verdict || !*verdict))
		return fail(store, -EINVAL, "%s: done without a verdict", what);
	error = prepare(store, kind->finish_sql, &stmt, what);
	if (error)
		return error;
	bind_int(stmt, 1, id, &rc);
	bind_int(stmt, 2, state, &rc);
	bind_text(stmt, 3, answer, &rc);
	bind_int(stmt, 4, now_ms(), &rc);
	if (kind->has_verdict)
		bind_text(stmt, 5, verdict, &rc);
	error = execute(store, stmt, rc, what);
	if (error || sqlite3_changes(store->db) > 0)
		return error;
	return explain_unchanged_record(store, kind, id, -1, what);
}

/* aborted -> running again; a running one (its coordinator died) is fine as it is. */
static int reopen_record(struct store *store, const struct record_kind *kind, int64_t id)
{
	sqlite3_stmt *stmt;
	char what[64];
	int rc = SQLITE_OK, error;

	snprintf(what, sizeof(what), "reopen %s %" PRId64, kind->noun, id);
	error = prepare(store, kind->reopen_sql, &stmt, what);
	if (error)
		return error;
	bind_int(stmt, 1, id, &rc);
	error = execute(store, stmt, rc, what);
	if (error || sqlite3_changes(store->db) > 0)
		return error;
	return explain_unchanged_record(store, kind, id, STORE_BISECTION_RUNNING, what);
}

/* Reads the one row of a bound get or latest query: -ENOENT when there is none. */
static int read_one_record(struct store *store, const struct record_kind *kind,
			   sqlite3_stmt *stmt, int bind_rc, void *record, const char *what)
{
	int rc = bind_rc, error;

	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		error = kind->read_row(stmt, record);
	else if (rc == SQLITE_DONE)
		error = fail(store, -ENOENT, "%s: no such %s", what, kind->noun);
	else
		error = fail_sqlite(store, rc, what);
	sqlite3_finalize(stmt);
	return error;
}

/* The caller zeroes *record first, so that it is empty on any failure. */
static int get_record(struct store *store, const struct record_kind *kind, int64_t id,
		      void *record)
{
	sqlite3_stmt *stmt;
	char what[64];
	int rc = SQLITE_OK, error;

	snprintf(what, sizeof(what), "read %s %" PRId64, kind->noun, id);
	error = prepare(store, kind->get_sql, &stmt, what);
	if (error)
		return error;
	bind_int(stmt, 1, id, &rc);
	return read_one_record(store, kind, stmt, rc, record, what);
}

static int latest_record(struct store *store, const struct record_kind *kind, void *record)
{
	sqlite3_stmt *stmt;
	char what[64];
	int error;

	snprintf(what, sizeof(what), "read the latest %s", kind->noun);
	error = prepare(store, kind->latest_sql, &stmt, what);
	if (error)
		return error;
	return read_one_record(store, kind, stmt, SQLITE_OK, record, what);
}

/*
 * Runs a bound statement that links rows (a run to a bisection or a gate, a
 * gate to a bisection) and finalizes it: -EEXIST when the link is there
 * already; -ENOENT, with nothing in the message, when a foreign key points
 * nowhere (the caller says which, once the statement is gone).
 */
static int execute_link(struct store *store, sqlite3_stmt *stmt, int bind_rc, const char *what)
{
	int rc = bind_rc, error = 0;

	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	/* the connection reports extended codes: which constraint said no */
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		error = fail(store, -EEXIST, "%s: already linked", what);
	else if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		error = -ENOENT;
	else if (rc != SQLITE_DONE)
		error = fail_sqlite(store, rc, what);
	sqlite3_finalize(stmt);
	return error;
}

/* After a link was refused by a foreign key: which end is missing. */
static int explain_missing_link(struct store *store, const struct record_kind *kind, int64_t id,
				int64_t run_id, const char *what)
{
	enum run_state run_state;
	int state;
	int error = read_record_state(store, kind, id, &state, what);

	if (error)
		return error;
	error = read_run_state(store, run_id, &run_state, what);
	if (error == -ENOENT)
		return fail(store, -ENOENT, "%s: no such run", what);
	if (error)
		return error;
	/* both there now: whatever was missing is not any more */
	return fail(store, -ENOENT, "%s: the %s or the run was missing", what, kind->noun);
}

static int add_record_run(struct store *store, const struct record_kind *kind, int64_t id,
			  int64_t run_id, const char *role)
{
	sqlite3_stmt *stmt;
	char what[96];
	int rc = SQLITE_OK, error;

	snprintf(what, sizeof(what), "link run %" PRId64 " to %s %" PRId64, run_id, kind->noun, id);
	if (!role || !*role)
		return fail(store, -EINVAL, "%s: no role", what);
	error = prepare(store, kind->link_sql, &stmt, what);
	if (error)
		return error;
	bind_int(stmt, 1, id, &rc);
	bind_int(stmt, 2, run_id, &rc);
	bind_text(stmt, 3, role, &rc);
	error = execute_link(store, stmt, rc, what);
	if (error == -ENOENT)
		return explain_missing_link(store, kind, id, run_id, what);
	return error;
}

struct role_reader {
	char **roles;
	size_t count, capacity;
};

/* A record's run query selects the run's role right after RUN_COLUMNS. */
static int read_role(sqlite3_stmt *stmt, void *context)
{
	struct role_reader *reader = context;
	char *role;
	int error;

	error = grow((void **)&reader->roles, reader->count, &reader->capacity,
		     sizeof(*reader->roles));
	if (!error)
		error = column_copy(stmt, RUN_COLUMN_COUNT, &role);
	if (!error)
		reader->roles[reader->count++] = role;
	return error;
}

static void free_roles(char **roles, size_t count)
{
	if (!roles)
		return;
	for (size_t i = 0; i < count; i++)
		free(roles[i]);
	free(roles);
}

static int record_runs(struct store *store, const struct record_kind *kind, int64_t id,
		       struct store_run_list *list, char ***roles)
{
	struct role_reader reader = { .roles = NULL };
	sqlite3_stmt *stmt;
	char what[64];
	int rc = SQLITE_OK, state, error;

	memset(list, 0, sizeof(*list));
	*roles = NULL;
	snprintf(what, sizeof(what), "read the runs of %s %" PRId64, kind->noun, id);
	error = read_record_state(store, kind, id, &state, what);
	if (error)
		return error;
	error = prepare(store, kind->runs_sql, &stmt, what);
	if (error)
		return error;
	bind_int(stmt, 1, id, &rc);
	error = read_run_list_extra(store, stmt, rc, list, read_role, &reader, what);
	if (error) {
		free_roles(reader.roles, reader.count);
		return error;
	}
	*roles = reader.roles;
	return 0;
}

/* ---- bisections ------------------------------------------------------------ */

int store_bisection_create(struct store *store, const char *job, const char *spec, int64_t *id)
{
	return create_record(store, &bisection_kind, job, spec, id);
}

int store_bisection_set_spec(struct store *store, int64_t id, const char *spec)
{
	return set_record_spec(store, &bisection_kind, id, spec);
}

int store_bisection_finish(struct store *store, int64_t id, enum store_bisection_state state,
			   const char *answer)
{
	return finish_record(store, &bisection_kind, id, (int)state, NULL, answer);
}

int store_bisection_reopen(struct store *store, int64_t id)
{
	return reopen_record(store, &bisection_kind, id);
}

int store_bisection_get(struct store *store, int64_t id, struct store_bisection *out)
{
	memset(out, 0, sizeof(*out));
	return get_record(store, &bisection_kind, id, out);
}

int store_bisection_latest(struct store *store, struct store_bisection *out)
{
	memset(out, 0, sizeof(*out));
	return latest_record(store, &bisection_kind, out);
}

void store_bisection_release(struct store_bisection *bisection)
{
	free_string(bisection->job);
	free_string(bisection->spec);
	free_string(bisection->answer);
	memset(bisection, 0, sizeof(*bisection));
}

int store_bisection_add_run(struct store *store, int64_t bisection_id, int64_t run_id,
			    const char *role)
{
	return add_record_run(store, &bisection_kind, bisection_id, run_id, role);
}

int store_bisection_runs(struct store *store, int64_t bisection_id, struct store_run_list *list,
			 char ***roles)
{
	return record_runs(store, &bisection_kind, bisection_id, list, roles);
}

void store_bisection_roles_free(char **roles, size_t count)
{
	free_roles(roles, count);
}

/* ---- gates ----------------------------------------------------------------- */

int store_gate_create(struct store *store, const char *job, const char *spec, int64_t *id)
{
	return create_record(store, &gate_kind, job, spec, id);
}

int store_gate_set_spec(struct store *store, int64_t id, const char *spec)
{
	return set_record_spec(store, &gate_kind, id, spec);
}

int store_gate_set_bisection(struct store *store, int64_t id, int64_t bisection_id)
{
	static const char sql[] = "UPDATE gates SET bisection_id = ?2 WHERE id = ?1";
	sqlite3_stmt *stmt;
	char what[96];
	int rc = SQLITE_OK, error;

	snprintf(what, sizeof(what), "link gate %" PRId64 " to bisection %" PRId64, id,
		 bisection_id);
	error = prepare(store, sql, &stmt, what);
	if (error)
		return error;
	bind_int(stmt, 1, id, &rc);
	bind_optional_int(stmt, 2, bisection_id, &rc);
	error = execute_link(store, stmt, rc, what);
	/* a foreign key is checked only on a row that changed: the gate is there */
	if (error == -ENOENT)
		return fail(store, -ENOENT, "%s: no such bisection", what);
	if (error)
		return error;
	if (sqlite3_changes(store->db) == 0)
		return fail(store, -ENOENT, "%s: no such gate", what);
	return 0;
}

int store_gate_finish(struct store *store, int64_t id, enum store_gate_state state,
		      const char *verdict, const char *answer)
{
	return finish_record(store, &gate_kind, id, (int)state, verdict, answer);
}

int store_gate_reopen(struct store *store, int64_t id)
{
	return reopen_record(store, &gate_kind, id);
}

int store_gate_get(struct store *store, int64_t id, struct store_gate *out)
{
	memset(out, 0, sizeof(*out));
	return get_record(store, &gate_kind, id, out);
}

int store_gate_latest(struct store *store, struct store_gate *out)
{
	memset(out, 0, sizeof(*out));
	return latest_record(store, &gate_kind, out);
}

int store_gate_list(struct store *store, const char *job, size_t limit, struct store_gate **out,
		    size_t *count)
{
	static const char sql[] =
		"SELECT " GATE_COLUMNS " FROM gates WHERE job = ?1 AND state = ?2"
		" ORDER BY id DESC LIMIT ?3";
	struct store_gate *gates = NULL;
	size_t capacity = 0, found = 0;
	sqlite3_stmt *stmt;
	int rc = SQLITE_OK, error;

	*out = NULL;
	*count = 0;
	if (!job)
		return fail(store, -EINVAL, "list the gates of a job: no job given");
	error = prepare(store, sql, &stmt, "list the gates of a job");
	if (error)
		return error;
	bind_text(stmt, 1, job, &rc);
	bind_int(stmt, 2, STORE_GATE_DONE, &rc);
	/* SQLite reads a negative LIMIT as none */
	bind_int(stmt, 3, (uint64_t)limit > (uint64_t)INT64_MAX ? -1 : (int64_t)limit, &rc);
	while (!error && rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		error = grow((void **)&gates, found, &capacity, sizeof(*gates));
		if (!error)
			error = read_gate_row(stmt, &gates[found]);
		if (!error)
			found++;
	}
	if (!error && rc != SQLITE_DONE)
		error = fail_sqlite(store, rc, "list the gates of a job");
	sqlite3_finalize(stmt);
	if (error) {
		store_gate_list_free(gates, found);
		return error;
	}
	*out = gates;
	*count = found;
	return 0;
}

void store_gate_release(struct store_gate *gate)
{
	free(gate->job);
	free(gate->spec);
	free(gate->verdict);
	free(gate->answer);
	memset(gate, 0, sizeof(*gate));
}

void store_gate_list_free(struct store_gate *gates, size_t count)
{
	if (!gates)
		return;
	for (size_t i = 0; i < count; i++)
		store_gate_release(&gates[i]);
	free(gates);
}

int store_gate_add_run(struct store *store, int64_t gate_id, int64_t run_id, const char *role)
{
	return add_record_run(store, &gate_kind, gate_id, run_id, role);
}

int store_gate_runs(struct store *store, int64_t gate_id, struct store_run_list *list,
		    char ***roles)
{
	return record_runs(store, &gate_kind, gate_id, list, roles);
}

void store_gate_roles_free(char **roles, size_t count)
{
	free_roles(roles, count);
}
