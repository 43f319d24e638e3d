/*
 * report_nights.h - every stored night of `rackbisect nightly`, read once
 * from the store for `rackbisect report nightly` and for the trend section
 * of a gate's or bisection's report.
 *
 * A night is a gate finished DONE whose spec has the key "night"
 * ("TREE/BRANCH", nightly.h), of any job. Nights are grouped by branch (the
 * branches in the order their first night was stored), each branch's nights
 * oldest first (by gate id: ids grow as gates are created, where two times
 * may be equal to the millisecond). A night's bisection is "reused" when an
 * earlier night, of any branch, named the same bisection (gate.c reuses a
 * stored answer instead of bisecting again); otherwise that night started it.
 *
 *   struct report_nights nights;
 *   if (report_nights_load(store, &(struct report_nights_request){ .night = "stable/linux-3.3.y",
 *                          .state_dir = dir, .lab = "virtual" }, &nights, error, sizeof(error)))
 *           ... error says what is missing and what to do ...
 *   report_text_write_nights(stdout, &nights);
 *   report_nights_release(&nights);
 *
 * Stored text comes back verbatim: the writers escape it.
 */
#ifndef RB_REPORT_NIGHTS_H
#define RB_REPORT_NIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct report_data;

struct report_nights_request {
	const char *night;		/* "TREE/BRANCH": only that branch; NULL: every branch */
	int64_t bisection_id;		/* > 0: only the branch a night of which has it */
	const char *state_dir, *lab;	/* as report_request's */
	/* also each night's gate as a report_data (report_data.h, lean: no git):
	 * what KCIDB needs to list the nights' runs as tests */
	bool gate_reports;
};

struct report_night_regression {
	char *workload, *symptom;
};

/* What the metric means of a night's head runs hold; the first of each name in a run counts. */
enum report_night_metric { NIGHT_POWER_AVG, NIGHT_ENERGY, NIGHT_METRIC_COUNT };
extern const char *const report_night_metric_names[NIGHT_METRIC_COUNT];	/* "power_avg", "energy" */

struct report_night {
	int64_t gate_id;
	char *job;
	char *head, *baseline;		/* the gate's candidate and baseline commits */
	bool first_night;		/* gated against itself: no good night before it */
	int64_t baseline_gate;		/* the earlier PASS night whose head the baseline is; 0: none */
	char *verdict;			/* "PASS", "REGRESSION", "INCOMPLETE" (gate.c) */
	char *reason;			/* the gate's, or NULL */
	struct report_night_regression *regressions;
	size_t regression_count;
	unsigned int head_runs[RUN_OUTCOME_COUNT], baseline_runs[RUN_OUTCOME_COUNT];
	int64_t bisection_id;		/* 0: none */
	bool bisection_reused;		/* an earlier night named it: known, not bisected again */
	char *bisection_outcome;	/* its answer's state ("found", ...), "running", or NULL */
	char *culprit;			/* its answer's culprit, or NULL */
	double metric_mean[NIGHT_METRIC_COUNT];	/* over the head's runs that measured it */
	unsigned int metric_runs[NIGHT_METRIC_COUNT];	/* 0: none measured it */
	char *metric_unit[NIGHT_METRIC_COUNT];	/* NULL when none said */
	int64_t created_ms, finished_ms;
	struct report_data *gate_report;	/* with gate_reports; else NULL */
};

struct report_branch {
	char *night;			/* "TREE/BRANCH" */
	char *tree;			/* the git tree its last night ran on (spec "tree"), or NULL */
	struct report_night *nights;	/* oldest first */
	size_t count;
};

struct report_nights {
	char *lab, *state_dir;
	char *title;			/* "nightly: 4 nights of 2 branches (lab virtual)" */
	char *verdict;			/* the worst newest night: REGRESSION, INCOMPLETE or PASS */
	char *summary;			/* each branch's newest night, in one line */
	struct report_branch *branches;
	size_t branch_count, night_count;
};

/*
 * Reads the nights the request names. 0; -ENOENT when there is none (error
 * says what to run); -EINVAL when a night's stored answer is damaged;
 * another negative code (store.h) when the store failed. On failure
 * *nights is released.
 */
int report_nights_load(struct store *store, const struct report_nights_request *request,
		       struct report_nights *nights, char *error, size_t error_len);
void report_nights_release(struct report_nights *nights);

/* The failed share of the head's runs that passed or failed (INFRA and SKIP
 * say nothing about the kernel); false when none did. */
bool report_night_fail_ratio(const struct report_night *night, double *ratio);
/* "2024-05-01 02:00" (UTC; "?" for 0): when the night's gate was stored. */
void report_night_date(int64_t ms, char *out, size_t len);

#endif
