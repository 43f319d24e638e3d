/*
 * report_fixture.h - a lab state for the report tests, made with the store.h
 * API as `rackbisect gate --bisect` leaves one: a small git tree (v3.3, three
 * queued commits, v3.3.1-rc1; the culprit's subject is hostile HTML), builds,
 * a REGRESSION gate whose runs are PASS, FAIL (with symptoms, kernel log
 * lines and power metrics), INFRA and SKIP, and the bisection it started
 * with its runs and a "found" answer in the JSON shapes gate.c and
 * lab_bisect.c store, and run log files under runs/<id>/.
 *
 * Before the gate (so it stays the latest gate, and its bisection the latest
 * bisection): four nights of `rackbisect nightly` as cli_gate.c --night
 * stores them, of two jobs: REPORT_FIXTURE_BRANCH's PASS (its first night),
 * REGRESSION that started a bisection (found: the culprit), the other
 * branch's INCOMPLETE night, then REPORT_FIXTURE_BRANCH's REGRESSION that
 * reused that bisection and also regressed with a hostile symptom. The
 * nights' head runs carry power metrics (but the INCOMPLETE one's).
 *
 * The unit tests make it in a temporary directory; tests/integration/
 * test_report.sh has test_report_data make it where it says (see there) and
 * runs `rackbisect report` on it.
 */
#ifndef RB_TEST_REPORT_FIXTURE_H
#define RB_TEST_REPORT_FIXTURE_H

#include <stdint.h>
#include <stdio.h>

#include "report_data.h"
#include "store.h"

#define REPORT_FIXTURE_HOSTILE_SUBJECT "ath9k: <script>alert('x')</script> & \"sleep\" fix"
#define REPORT_FIXTURE_SYMPTOM "txdma-stop-fail"
/* the lone run's INFRA cause: bytes that are not UTF-8 (a cut sequence, 0xff) */
#define REPORT_FIXTURE_NOT_UTF8_CAUSE "console said \xc3\x28 and \xff"
#define REPORT_FIXTURE_EVIDENCE "ath9k: Failed to stop TX DMA, queues=0x004 <b>&</b>"
#define REPORT_FIXTURE_BRANCH "stable/linux-3.3.y"
#define REPORT_FIXTURE_OTHER_BRANCH "mainline/master"
#define REPORT_FIXTURE_HOSTILE_SYMPTOM "<svg onload=alert(2)>&\"x\""

/* the nights in the order stored (gate ids grow in it) */
enum report_fixture_night { NIGHT_PASS, NIGHT_BISECTED, NIGHT_OTHER_BRANCH, NIGHT_REUSED, FIXTURE_NIGHT_COUNT };

enum report_fixture_commit { FIXTURE_GOOD, FIXTURE_HARMLESS, FIXTURE_CULPRIT, FIXTURE_AFTER,
			     FIXTURE_BAD, FIXTURE_COMMIT_COUNT };

struct report_fixture {
	char dir[256];			/* the state directory: state.db, runs/, tree/ */
	char tree[300];
	char commits[FIXTURE_COMMIT_COUNT][41];
	struct store *store;		/* open after make, for tests that read it */
	int64_t gate_id, bisection_id;
	/* the gate's runs by what they show */
	int64_t candidate_fail, candidate_pass, candidate_infra, candidate_skip;
	int64_t baseline_pass[2];
	int64_t bisection_runs[7];	/* in order; [6] is INFRA (no evidence) */
	int64_t lone_run;		/* INFRA, of neither, no build recorded */
	int64_t night_gates[FIXTURE_NIGHT_COUNT];
	int64_t night_bisection;	/* started by NIGHT_BISECTED, reused by NIGHT_REUSED */
	unsigned int gate_runs, bisection_run_count;
};

/* Makes it in `dir` (created; NULL: a new temporary directory). 0, or -1
 * after printing what failed. */
int report_fixture_make(const char *dir, struct report_fixture *fixture);
/* The report data of a subject (report_data_load on the fixture's state, lab
 * "virtual"); fails the test when it cannot be read. */
void report_fixture_load(const struct report_fixture *fixture, enum report_subject subject, int64_t id,
			 struct report_data *data);
/* What a writer wrote to a memory stream, NUL-terminated (malloc'd). */
char *report_fixture_capture(void (*write)(FILE *out, const struct report_data *data),
			     const struct report_data *data);
/* How often needle occurs in text. */
unsigned int report_fixture_count(const char *text, const char *needle);

/* cmocka group setup and teardown: *state is a fixture made in a new
 * temporary directory, freed and removed after the group. */
int report_fixture_setup(void **state);
int report_fixture_teardown(void **state);

/* Closes the store and, unless keep, removes the directory. */
void report_fixture_free(struct report_fixture *fixture, int keep);

#endif
