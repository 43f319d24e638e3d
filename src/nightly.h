/*
 * nightly.h - what `rackbisect nightly` tracks and what it remembers: the
 * nightly file (jobs/nightly.yaml: the job, and the local git trees and
 * branches to test each night) and, from the store, each branch's last good
 * night.
 *
 * A night of one branch is a gate (gate.h) of the branch's head against its
 * last good night's head, recorded with the spec key "night" = "TREE/BRANCH";
 * a night whose gate says PASS is a good night. The first night of a branch
 * has no good night before it: its head is gated against itself, which runs
 * the matrix and calls any failure "known failing".
 *
 *   struct nightly_config *config;
 *   if (nightly_config_load("jobs/nightly.yaml", &config, error, sizeof(error)) < 0) ... error ...
 *   for (i = 0; i < config->branch_count; i++) ... config->branches[i].night ...
 *   nightly_config_free(config);
 *
 * Functions return 0 or a negative errno; -EINVAL from the loader means the
 * file is wrong and `error` says "file:line:col: what is wrong".
 */
#ifndef RB_NIGHTLY_H
#define RB_NIGHTLY_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "store.h"

/* One tracked branch of one tree. */
struct nightly_branch {
	char *tree_name;	/* "stable" */
	char *path;		/* the local git repository, absolute */
	char *branch;		/* "linux-3.3.y" */
	char *mainline;		/* the tree's mainline branch for stable advice; may be NULL */
	char *night;		/* "stable/linux-3.3.y": how its nights are stored */
	struct config_location where;	/* the branch's entry, for messages */
};

struct nightly_config {
	char *path;		/* the nightly file */
	char *job_path;		/* the job every branch runs, absolute (relative in the file) */
	char *boards;		/* --boards selector for every night; may be NULL */
	char *confidence;	/* as written, handed to gate; may be NULL */
	struct nightly_branch *branches;
	size_t branch_count;
};

/* Loads and checks the file: every tree is a git repository, names are plain. */
int nightly_config_load(const char *path, struct nightly_config **out, char *error, size_t error_len);
void nightly_config_free(struct nightly_config *config);

/*
 * The last good night of `night` for `job` (the job's name): the candidate
 * commit (malloc'd) and the id of the newest finished gate recorded as that
 * night with verdict PASS. -ENOENT when the branch has had no good night.
 */
int nightly_last_good(struct store *store, const char *job, const char *night, char **commit,
		      int64_t *gate_id);

#endif
