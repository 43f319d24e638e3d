/*
 * cli_gate_review.h - a gate as a stable maintainer reads it, on the loop:
 * the gate (gate.h) of a candidate against its baseline; with bisect, a
 * bisection in the queue of each regression, one after another (or the
 * stored bisection that already answers it: not bisected again); then the
 * stable-review reply (a culprit each),
 * printed and written beside the stored gate. `rackbisect gate` runs one;
 * `rackbisect nightly` one per branch, all at once on one lab session, whose
 * boards they share (one run per board at a time).
 *
 *   struct gate_review *review;
 *   rc = gate_review_start(&options, on_done, data, &review);  // CLI exit code
 *   uv_run(&session->loop, UV_RUN_DEFAULT);    // on_done: uv_stop when all are
 *   exit = gate_review_exit_code(review);
 *   gate_review_free(review);
 *
 * Command-layer code (it prints, as the commands do): every line it prints
 * starts with options.prefix, so several reviews at once can be told apart.
 */
#ifndef RB_CLI_GATE_REVIEW_H
#define RB_CLI_GATE_REVIEW_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "lab_session.h"

struct gate_review_options {
	struct lab_session *session;
	const char *tree;		/* the kernel tree, absolute */
	const char *baseline, *candidate;	/* refs as the user gave them */
	const char *mainline;		/* a branch of the tree for the stable rules; may be NULL */
	const char *confidence;		/* as given; NULL: 0.99 */
	const char *night;		/* "TREE/BRANCH" when it is a nightly's gate; may be NULL */
	const char *reply_path;		/* NULL: <state>/gates/ID/reply.txt */
	bool bisect, released;
	const char *prefix;		/* "" or "stable/linux-3.3.y: " */
	/* how to open this lab session again, kept in the gate's question for
	 * `gate resume`: {lab, state, job, board_selector}; NULL: not kept */
	const json_t *session_spec;
	/* `gate resume`: the stored gate to go on with (its question is the
	 * question; give the refs above as it has them); NULL: a new gate */
	const struct store_gate *resume;
};

struct gate_review;
typedef void (*gate_review_done_cb)(struct gate_review *review, void *data);

/*
 * Resolves the refs, stores the gate and starts it (or, with options.resume,
 * goes on with a stored one: cells of the matrix with a result are not run
 * again, and a bisection it started resumes from its stored runs). 0 (done is called once,
 * from the loop, after the reply), or a CLI exit code after printing what
 * is wrong (CLI_EXIT_USAGE: a ref or --confidence; CLI_EXIT_INFRA: the
 * state); *out is set either way, for gate_review_free.
 */
int gate_review_start(const struct gate_review_options *options, gate_review_done_cb done,
		      void *data, struct gate_review **out);
/* CLI_EXIT_OK (PASS), CLI_EXIT_FAIL (REGRESSION), CLI_EXIT_INFRA. */
int gate_review_exit_code(const struct gate_review *review);
/* The stored gate's id (0 before it is stored). */
int64_t gate_review_gate_id(const struct gate_review *review);
/* The gate's answer, its id, the last bisection's answer and every culprit,
 * for --json (new reference); NULL when the review ended before its reply (what went wrong
 * was printed instead). */
json_t *gate_review_json(const struct gate_review *review);
/* An interrupted coordinator: the stored gate and bisection are marked
 * aborted rather than left running; the finished runs stay linked. */
void gate_review_mark_aborted(struct gate_review *review);
void gate_review_free(struct gate_review *review);

#endif
