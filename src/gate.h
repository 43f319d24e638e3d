/*
 * gate.h - gating a release candidate on the lab: the job's matrix (boards x
 * workloads) on the candidate, then on the baseline (one run per cell each),
 * then more baseline runs only where the candidate failed, as many as it
 * takes to tell the two apart at the confidence (a sequential test: no run
 * more than the answer needs).
 *
 * A workload is a regression when, on the boards where the candidate failed
 * it, its runs there split so unevenly between the kernels that two kernels
 * failing alike would split so rarely: the candidate failed f of its n runs,
 * the baseline passed all its m, and Fisher's exact test (one-sided) gives
 * C(n, f) / C(n + m, f) <= 1 - confidence, the chance that f failures among
 * n + m runs of one kernel all fall on the n. The rounds after the matrix
 * decide it sequentially, stopping as soon as it is clear: the baseline,
 * with as many runs as that test still needs if they all pass; or, where the
 * candidate failed too seldom for one round of the baseline to be enough
 * (one failure in one run needs 99 passes at 0.99), the candidate again on
 * those boards, up to 3 runs per board. A failure that does not come back
 * when asked again leaves the workload undecided (INCOMPLETE, saying so):
 * the gate does not call a one-off a regression, nor pass it silently. A board where the baseline
 * fails the workload with a symptom the candidate showed is "known
 * failing": not a regression. A PASS means the matrix showed no failure the
 * baseline does not share; a regression that fails seldom enough to pass
 * one run per cell can pass it (the nightly's trend and the bisection's
 * runs are for those). Every run is linked to the stored gate before it
 * starts (roles "candidate" for the candidate's matrix, "candidate-again"
 * and "baseline" for the baseline's matrix and rounds).
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
	unsigned int baseline_passes, passes_needed;	/* needed: if the baseline passes all */
	double fail_rate;		/* (fails + 1) / (runs + 2): the rate shown */
	double split_chance;		/* the test's chance above */
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

/* The chance that candidate_fails failures among the candidate's runs and
 * the baseline's passes, all runs of kernels that fail alike, all fall on
 * the candidate: C(n, f) / C(n + m, f). */
double gate_split_chance(unsigned int candidate_fails, unsigned int candidate_runs,
			 unsigned int baseline_passes);
/* The fewest baseline passes that bring that chance to 1 - confidence or
 * below; UINT32_MAX when no failure was seen (or past a million passes). */
unsigned int gate_passes_needed(unsigned int candidate_fails, unsigned int candidate_runs, double confidence);
/* One workload judged from the cells (both kernels' runs): out's boards are
 * where the candidate failed it and the baseline did not fail with its
 * symptom, known_failing where it did; confirmed when the test says so. */
void gate_judge_workload(const struct gate_cell *cells, size_t cell_count, const char *workload,
			 double confidence, struct gate_regression *out);
/* Failing runs a bisection round can expect from a regression: its boards
 * times its failure rate there. The more, the faster a bisection tracking it
 * narrows (one failing half its runs on two boards gives rounds of two runs
 * and weak evidence; one failing every run on four boards, rounds of four). */
double gate_expected_failures_per_round(const struct gate_regression *regression);
/* The confirmed regression to bisect: of those not answered already
 * (answered[i] for regressions[i]; NULL: none is), the one with the most
 * expected failures per round; NULL when none is left. */
const struct gate_regression *gate_regression_to_bisect(const struct gate_answer *answer, const bool *answered);
/* Whether the candidate must run the workload again before the baseline can
 * settle it: more baseline passes missing than one round gives its boards,
 * and the candidate has run it fewer than 3 times per board (past that, the
 * baseline settles it over its rounds, whatever it takes). */
bool gate_needs_candidate_again(const struct gate_regression *regression);

#endif
