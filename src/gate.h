/*
 * gate.h - gating a release candidate on the lab: the job's matrix (boards x
 * workloads) on the candidate, and the baseline only where the candidate
 * failed, with as many baseline runs as it takes to tell the two apart at
 * the confidence (a sequential test: no run more than the answer needs).
 *
 * A workload is a regression when the candidate fails it on some boards
 * (its failure rate there estimated as p = (fails + 1) / (runs + 2)) and the
 * baseline passes it there so often that a kernel failing at rate p would
 * have failed with the confidence: (1 - p)^passes <= 1 - confidence. A board
 * where the baseline fails the workload with the same symptom is "known
 * failing": not a regression. Every run is linked to the stored gate before
 * it starts (roles "candidate" and "baseline").
 *
 * The spec (a JSON object stored with the gate): job, tree, baseline,
 * candidate (commit ids), baseline_ref, candidate_ref, confidence.
 */
#ifndef RB_GATE_H
#define RB_GATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "lab_session.h"
#include "store.h"

enum gate_verdict { GATE_PASS, GATE_REGRESSION, GATE_INCOMPLETE };

/* One board x workload of the matrix, both kernels. */
struct gate_cell {
	const char *board;		/* the session's */
	const char *chip;
	const char *workload;
	unsigned int runs[2][RUN_OUTCOME_COUNT];	/* [0] baseline, [1] candidate, by outcome */
	char symptoms[2][256];		/* comma-separated, as first seen */
};

/* A workload the candidate fails. */
struct gate_regression {
	char workload[64];
	char symptom[128];		/* the one seen most (what a bisection tracks) */
	char symptoms[256];		/* every one seen, comma-separated */
	char boards[512];		/* where the candidate failed and the baseline did not */
	char known_failing[512];	/* where the baseline fails it too */
	unsigned int candidate_fails, candidate_runs;	/* on those boards */
	unsigned int baseline_passes, passes_needed;
	double fail_rate;		/* p above */
	bool confirmed;			/* told apart at the confidence */
	int64_t example_run;		/* a candidate run that failed, for its log */
};

struct gate_answer {
	enum gate_verdict verdict;
	char reason[512];		/* INCOMPLETE: why; else "" */
	unsigned int runs[2][RUN_OUTCOME_COUNT];	/* totals, [0] baseline, [1] candidate */
	unsigned int rounds;
	struct gate_cell *cells;
	size_t cell_count;
	struct gate_regression *regressions;
	size_t regression_count;
	bool candidate_build_failed;
};

struct gate_options {
	struct lab_session *session;
	const char *tree;		/* the kernel tree; NULL: the session's */
	const json_t *spec;
	int64_t gate_id;		/* store_gate_create()d */
	/* the gate's stored runs (a gate stopped before its verdict) are its
	 * start: cells with a candidate result are not run again */
	bool resume;
	/* resumed after its verdict was stored (the stop came during the
	 * bisection): it is recounted, not stored again */
	bool answer_stored;
	void (*progress)(const char *line, void *data);	/* may be NULL */
	void *progress_data;
};

struct gate;
typedef void (*gate_done_cb)(struct gate *gate, void *data);

/* Starts it on the session's loop; done is called once, with the answer. */
int gate_start(const struct gate_options *options, gate_done_cb done, void *data, struct gate **out);
const struct gate_answer *gate_answer(const struct gate *gate);
/* The answer as JSON (new reference), as stored with the gate. */
json_t *gate_answer_json(const struct gate *gate);
const char *gate_verdict_name(enum gate_verdict verdict);
void gate_free(struct gate *gate);

/* Passes a baseline needs before a failure rate p is told apart at confidence. */
unsigned int gate_passes_needed(double fail_rate, double confidence);

#endif
