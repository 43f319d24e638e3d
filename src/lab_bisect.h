/*
 * lab_bisect.h - a bisection on the lab: the engine's proposals (bisect.h)
 * become kernel builds and runs on free boards, the runs' verdicts become its
 * evidence, and every run is linked to the stored bisection before it starts,
 * so a coordinator killed mid-way resumes where it stopped (no finished run
 * is repeated: its result is replayed).
 *
 * The steps, each a round of runs on the loop (nothing blocks):
 *  1. the bad end on every board (each workload, unless one is given): which
 *     symptom shows, in which workload, on which boards. Bad must show it,
 *     else there is no regression to look for;
 *  2. the good ends on those boards: evidence like any other run (a FAIL
 *     there says the symptom also shows on good kernels now and then, or,
 *     often enough, that the good end is bad too: then it stops);
 *  3. rounds: up to one proposal per board that reproduced, built first (the
 *     likely next round's commits build while the boards run), one run each;
 *     a FAIL with the tracked symptom is evidence, a FAIL with another is
 *     reported, not used; SKIP (no build, no boot) moves no probability;
 *     INFRA is retried by the scheduler and is never evidence;
 *  4. once one commit reaches the confidence: the engine's confirmation
 *     runs (bisect.h: the culprit fails, each parent, or the good end for a
 *     root, passes as often as the rates the runs leave plausible ask);
 *     those runs are evidence too, and may send the bisection back to step 3;
 *  5. with revert_check, the culprit reverted on top of bad must pass as
 *     many runs as a commit failing at the learned rate would not.
 *
 * The question is a JSON object (the `spec`, stored with the bisection and
 * updated as steps 1-2 decide): job, lab, tree, bad, goods, symptom,
 * workload, boards, confidence, max_runs, revert_check, step; and the rates
 * a user states, if any: detect_rate, false_fail_rate, deterministic.
 */
#ifndef RB_LAB_BISECT_H
#define RB_LAB_BISECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "bisect.h"
#include "commit_graph.h"
#include "lab_session.h"
#include "store.h"

struct lab_bisect;

struct lab_bisect_options {
	struct lab_session *session;
	const char *tree;			/* the kernel tree; NULL: the session's */
	const struct commit_graph *graph;	/* of spec's bad and goods, in that tree */
	json_t *spec;				/* updated in place and stored */
	int64_t bisection_id;			/* store_bisection_create()d */
	bool resume;				/* replay the bisection's finished runs first */
	/* one line per step and round, for a person; may be NULL */
	void (*progress)(const char *line, void *data);
	void *progress_data;
};

/* How a finished run counts for the bisection. */
enum lab_bisect_evidence {
	LAB_BISECT_EVIDENCE_PASS,
	LAB_BISECT_EVIDENCE_FAIL,	/* with the tracked symptom */
	LAB_BISECT_EVIDENCE_SKIP,
	LAB_BISECT_EVIDENCE_IGNORED,	/* INFRA, another symptom, workload or board */
};

struct lab_bisect_answer {
	enum bisect_state state;	/* BISECT_RUNNING: aborted, see reason */
	size_t culprit;			/* graph index, FOUND / BUDGET_SPENT (best guess) */
	double probability;
	double fail_rate_estimate;
	unsigned int runs;		/* runs of the bisection, every outcome */
	unsigned int evidence_runs;	/* results the engine recorded */
	unsigned int rounds;
	unsigned int built_ahead;	/* commits built while boards ran */
	unsigned int built_ahead_used;	/* of them, later tested */
	unsigned int guesses_dropped;	/* builds ahead cancelled while they waited for
					 * their turn: the round they guessed went otherwise */
	/* commits that do not build: found building ahead (no board waited),
	 * or only in a round (its board idled); the second stays 0 unless
	 * little but such commits is left */
	unsigned int skips_found_ahead, skips_in_rounds;
	char symptom[128];
	char workload[64];
	char reason[512];		/* aborted, no regression: why; else "" */
	char confirmation[512];		/* what confirmed the culprit; "" if not FOUND */
	char revert[512];		/* the revert check's result; "" if not asked */
	bool revert_failed;
	size_t *undecided;		/* ONLY_SKIPPED_LEFT: graph indexes */
	size_t undecided_count;
};

typedef void (*lab_bisect_done_cb)(struct lab_bisect *bisect, void *data);

/* Starts (or resumes) it on the session's loop; done is called once, when the
 * answer is known or the bisection had to stop. 0, or a negative errno. */
int lab_bisect_start(const struct lab_bisect_options *options, lab_bisect_done_cb done, void *data,
		     struct lab_bisect **out);
const struct lab_bisect_answer *lab_bisect_answer(const struct lab_bisect *bisect);
/* The answer as JSON (new reference), as stored with the bisection. */
json_t *lab_bisect_answer_json(const struct lab_bisect *bisect);
void lab_bisect_free(struct lab_bisect *bisect);

/* How `run` counts for a bisection tracking `symptom` in `workload` on the
 * boards listed in spec (NULL or empty: any board); why says so in words. */
enum lab_bisect_evidence lab_bisect_evidence_of(const struct store_run *run, const json_t *spec,
						const char **why);
const char *lab_bisect_evidence_name(enum lab_bisect_evidence evidence);

/* The engine as the stored runs leave it, for `bisect status`: a new engine
 * over graph with every finished run of the bisection recorded. */
int lab_bisect_replay(struct store *store, int64_t bisection_id, const json_t *spec,
		      const struct commit_graph *graph, struct bisect **out);

/* The same over runs already read (oldest first), calling `each` (may be
 * NULL) after every run with the engine as that run left it: how the belief
 * narrowed, for reports. `counted_at` is the graph index the run counted at,
 * -1 for a good end, -2 when it was no evidence. */
typedef void (*lab_bisect_replay_cb)(const struct store_run *run, long counted_at,
				     const struct bisect *engine, void *data);
int lab_bisect_replay_runs(const struct store_run_list *runs, const json_t *spec,
			   const struct commit_graph *graph, lab_bisect_replay_cb each, void *data,
			   struct bisect **out);

#endif
