/*
 * report_data.h - what a report shows, read once from the store: one run, a
 * gate (its verdict, its board x workload matrix, its runs, and the
 * bisection it started) or a bisection (its question, its runs in order, the
 * path its belief took, its answer). The writers (report_text.h,
 * report_junit.h, report_kcidb.h, report_html.h) only format this; none of
 * them touches the store or git.
 *
 *   struct report_data data;
 *   char error[512];
 *   if (report_data_load(store, &(struct report_request){ .subject = REPORT_SUBJECT_GATE,
 *                        .state_dir = "/var/lib/rb", .lab = "virtual" }, &data, error, sizeof(error)))
 *           ... error says what is missing and what to do ...
 *   report_text_write(stdout, &data);
 *   report_data_release(&data);
 *
 * Everything stored comes back verbatim (commit subjects and symptoms come
 * from outside: writers escape them). The commits' subjects are read from
 * the git tree the gate or bisection named when it is still there; without
 * it they are NULL and the bisection's belief path is left out (with a note
 * saying why).
 */
#ifndef RB_REPORT_DATA_H
#define RB_REPORT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "store.h"

struct report_nights;

enum report_subject { REPORT_SUBJECT_LATEST, REPORT_SUBJECT_RUN, REPORT_SUBJECT_GATE,
		      REPORT_SUBJECT_BISECTION };

struct report_request {
	enum report_subject subject;	/* LATEST: the newer of the latest gate and bisection */
	int64_t id;			/* the run, gate or bisection; 0: the latest */
	const char *state_dir;		/* where runs/<id>/ keep the run logs */
	const char *lab;		/* the lab's name, for titles and ids */
	/* for many gates at once (a KCIDB of every night): no commit subjects
	 * from git, no belief path replayed, no trend across nights */
	bool lean;
};

/* The files a run keeps in <state>/runs/<id>/ (as `rackbisect show` lists them). */
#define REPORT_RUN_FILE_COUNT 6
extern const char *const report_run_file_names[REPORT_RUN_FILE_COUNT];

/* "-", "PASS", "FAIL", "INFRA", "SKIP" by enum run_outcome. */
const char *report_outcome_name(enum run_outcome outcome);

struct report_run {
	const struct store_run *run;	/* into the data's lists */
	const char *role;		/* the gate's ("baseline", "candidate"), "run" for a lone run,
					 * NULL when it serves only the bisection */
	const char *bisection_role;	/* "bad-end", "candidate", ...; NULL: not the bisection's */
	/* how it counted for the bisection: "PASS", "FAIL", "SKIP", "ignored"; NULL: not a bisection's */
	const char *evidence;
	const char *not_evidence_why;	/* "" or why it was ignored */
	bool file_kept[REPORT_RUN_FILE_COUNT];	/* which of report_run_file_names exist */
};

struct report_commit {
	char *id;
	char *ref;			/* the name it was asked by ("v3.3"), or NULL */
	char *description;		/* "subject (author <email>)" from git, or NULL */
};

struct report_build {
	struct store_build build;	/* build.id > 0 */
};

struct report_cell {			/* a gate's board x workload */
	char *board, *chip, *workload;
	unsigned int baseline[RUN_OUTCOME_COUNT], candidate[RUN_OUTCOME_COUNT];
	char *baseline_symptoms, *candidate_symptoms;
};

struct report_regression {
	char *workload, *symptom, *boards, *known_failing;
	unsigned int candidate_fails, candidate_runs, baseline_passes, passes_needed;
	bool confirmed;
	int64_t example_run;
};

struct report_gate {
	int64_t id;
	char *job, *state, *verdict, *reason;	/* state: "done", "stopped", "running" */
	char *baseline, *candidate, *baseline_ref, *candidate_ref, *tree;
	char *night;			/* "TREE/BRANCH" when `rackbisect nightly` ran it; else NULL */
	unsigned int baseline_runs[RUN_OUTCOME_COUNT], candidate_runs[RUN_OUTCOME_COUNT];
	struct report_cell *cells;
	size_t cell_count;
	struct report_regression *regressions;
	size_t regression_count;
	int64_t created_ms, finished_ms;
};

/* the most probable candidates kept per step, for a plot of each one's
 * probability as the bisection narrowed */
#define REPORT_TOP_CANDIDATES 8

struct report_candidate {
	char id[41];
	double probability;
};

/* One run of a bisection, in order, and the belief after it. */
struct report_step {
	size_t run;			/* index into data->runs */
	bool counted;			/* the engine got it as evidence */
	bool has_belief;		/* the fields below are known (the tree was there) */
	char best[41];			/* the most probable first bad commit after it */
	double best_probability;
	size_t candidates_left;
	/* that no candidate is the first bad commit: "no regression", or "the
	 * good end is bad too" (0 when the bisection trusted its ends) */
	double beyond_candidates;
	/* the most probable first bad commits after it, most probable first */
	struct report_candidate top[REPORT_TOP_CANDIDATES];
	size_t top_count;
};

struct report_bisection {
	int64_t id;
	char *job, *state;		/* "done", "stopped", "running" */
	char *outcome;			/* the answer's state: "found", "no regression", ...; NULL */
	char *reason, *confirmation;
	char *bad, *bad_ref, *good, *good_ref, *symptom, *workload, *tree;
	char *culprit;			/* NULL: none */
	double probability, confidence, fail_rate;
	unsigned int runs, rounds;
	size_t candidate_count;		/* 0 when the tree could not be read */
	struct report_step *steps;
	size_t step_count;
	char *path_note;		/* why the belief path is missing, or NULL */
	int64_t created_ms, finished_ms;
};

struct report_data {
	enum report_subject subject;	/* RUN, GATE or BISECTION */
	char *lab, *state_dir;
	char *title;			/* "gate 3: v3.3.1-rc1 against v3.3 (job stable-gate, lab virtual)" */
	char *verdict;			/* "REGRESSION", "PASS", "FAIL", "found", ... */
	char *summary;			/* one line saying what the verdict rests on */
	struct report_gate *gate;	/* NULL unless a gate */
	struct report_bisection *bisection;	/* the bisection, or the gate's; NULL: none */
	/* a gate's other bisections (one per regression it bisected, before the
	 * one above): their question and answer only, no runs or path */
	struct report_bisection **also;
	size_t also_count;
	struct report_run *runs;	/* the gate's (or the lone run), then the bisection's */
	size_t run_count;
	struct report_commit *commits;	/* every commit involved, in the order first met */
	size_t commit_count;
	struct report_build *builds;	/* every stored build the runs used */
	size_t build_count;
	/* the trend: the nights of the branch the gate (or the bisection's
	 * night) was a night of (report_nights.h); NULL when it was none */
	struct report_nights *nights;
	/* owned storage the pointers above point into */
	struct store_run_list lists[2];
	char **roles[2];
};

/*
 * Reads what the request names. 0; -ENOENT when there is no such run, gate
 * or bisection (error says which and what to do); -EINVAL when its stored
 * JSON is damaged; another negative code (store.h) when the store failed.
 * On failure *data is released.
 */
int report_data_load(struct store *store, const struct report_request *request,
		     struct report_data *data, char *error, size_t error_len);
void report_data_release(struct report_data *data);

/* The length of the UTF-8 sequence text starts with (1..4), 0 when it is not
 * valid UTF-8 (overlong, a surrogate, cut short): writers of XML, JSON and
 * HTML replace such bytes, as stored text is kept verbatim. */
size_t report_utf8_length(const char *text);

/* The run's role, the gate's first: what a one-column listing shows. */
const char *report_run_role(const struct report_run *run);
/* The commit's entry, or NULL. */
const struct report_commit *report_data_commit(const struct report_data *data, const char *id);
/* The stored build with that id, or NULL. */
const struct store_build *report_data_build(const struct report_data *data, int64_t id);
/* <state>/runs/<id>/<name> (name NULL: the directory). 0 or -ENAMETOOLONG. */
int report_data_run_path(const struct report_data *data, int64_t run_id, const char *name,
			 char *out, size_t len);

/* Reading what the store keeps as JSON (the report modules share these):
 * a string member copied (NULL when absent or not a string), a count (0
 * when absent or not positive), and {pass, fail, skip, infra} as
 * gate_answer_json stores them, into by_outcome[RUN_PASS..RUN_INFRA]. */
char *report_json_text(const json_t *object, const char *key);
unsigned int report_json_count(const json_t *object, const char *key);
void report_json_counts(const json_t *counts, unsigned int *by_outcome);

#endif
