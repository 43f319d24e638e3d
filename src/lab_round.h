/*
 * lab_round.h - a round of runs on the lab: groups, each one ref built and
 * then run by a scheduler of its own on its share of the boards (every
 * workload, or one, `repeat` runs per board), all groups at once on the
 * loop. A bisection round tests several commits this way, a gate its
 * baseline and candidate.
 *
 *   lab_round_init(&round, session, tree, &hooks);   // tree NULL: the session's
 *   group = lab_round_add(&round, "v3.3", NULL, 1);
 *   group->boards[group->board_count++] = board;
 *   lab_round_launch(&round);          // hooks.done once every group ended
 *   ... lab_round_runs(&round, &list) ... lab_round_clear(&round) ...
 */
#ifndef RB_LAB_ROUND_H
#define RB_LAB_ROUND_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "build.h"
#include "lab_session.h"
#include "scheduler.h"
#include "store.h"

struct lab_round;

struct lab_round_group {
	struct lab_round *owner;
	char ref[64];			/* what is built */
	struct board **boards;		/* room for every selected board; fill board_count */
	size_t board_count;
	unsigned int repeat;		/* runs per board */
	const struct job_workload *workload;	/* NULL: every workload of the job */
	/* filled as it goes */
	struct build_result result;
	int64_t build_id;
	char build_failure[PATH_MAX + 64];
	struct scheduler *scheduler;
	bool finished;
};

struct lab_round_hooks {
	/* a group's ref built (or failed to build: result->status -ENOEXEC,
	 * its runs then end SKIP); may be NULL */
	void (*built)(const struct build_result *result, void *data);
	/* the round cannot go on as asked (a ref that cannot be built at all,
	 * runs that cannot be scheduled): reason for a person */
	void (*trouble)(const char *reason, void *data);
	/* every group ended */
	void (*done)(void *data);
	/* each run, once queued in the store, before it starts (a gate or a
	 * bisection links it to itself there); may be NULL */
	void (*run_queued)(int64_t run_id, const struct run_spec *spec, void *data);
	void *data;
};

struct lab_round {
	struct lab_session *session;
	/* what the runs share: the session's, with the hooks' run_queued */
	struct run_environment environment;
	const char *tree;		/* the refs' */
	struct lab_round_hooks hooks;
	struct lab_round_group *groups;
	size_t group_count, groups_left;
};

void lab_round_init(struct lab_round *round, struct lab_session *session, const char *tree,
		    const struct lab_round_hooks *hooks);
/* Forgets the groups of the last round (their schedulers freed). */
void lab_round_clear(struct lab_round *round);
/* A new group, boards empty; NULL when out of memory. */
struct lab_round_group *lab_round_add(struct lab_round *round, const char *ref,
				      const struct job_workload *workload, unsigned int repeat);
struct lab_round_group *lab_round_find(struct lab_round *round, const char *ref);
/* Builds every group's ref and runs it; hooks.done when all have ended.
 * 0, or -EINVAL for a round with no group (no hook is called then). */
int lab_round_launch(struct lab_round *round);
bool lab_round_running(const struct lab_round *round);
/* The round's finished runs, read back from the store with their symptoms. */
int lab_round_runs(const struct lab_round *round, struct store_run_list *list);

#endif
