/*
 * history.h - generates a model kernel history: a git repository that looks
 * like a stretch of Linux kernel history (2012, v3.3 onwards) and whose
 * ath9k model driver changes behaviour only where the real commits did
 * (driver_changes.h). The ground truth (where the culprit is, which commits
 * do not build, ...) is returned separately; it never goes into the
 * repository.
 *
 * The same options (scenario, seed, ...) give byte-identical commits: every
 * date comes from the seed and the scenario, and git runs with a fixed
 * environment. The history is written by one `git fast-import`.
 *
 * Scenarios
 *   stable-3.3.1    master: v3.3 -> v3.4-rc1 -> v3.4-rc2 and a few commits on
 *                   (~350 commits, subsystem merges; c1afdaff's equivalent comes
 *                   in through a wireless merge before v3.4-rc1; with
 *                   mainline_revert its revert follows through a later
 *                   wireless merge). linux-3.3.y: from v3.3, ~100 queued
 *                   cherry-picks of mainline commits, one of them the culprit,
 *                   one "[ Upstream commit <id> ]" form, one stray patch with no
 *                   upstream commit, ending in "Linux 3.3.1-rc1" (v3.3.1-rc1).
 *   mainline-3.4    master: ~10,000 commits v3.3 -> v3.4-rc3 with subsystem
 *                   merges; the culprit merged before v3.4-rc1, the
 *                   reset-on-idle-off change between rc1 and rc2, the revert
 *                   between rc2 and rc3.
 *   txack-backport  as stable-3.3.1, but the queued ath9k patch is the bad
 *                   backport (second hunk only, DRIVER_CHANGE_BAD_BACKPORT).
 *   releases        linear: v3.3, v3.3.1 (culprit), v3.3.2 (revert), v3.4
 *                   (reset on idle-off: DRIVER_VARIANT_V3_4), v3.5
 *                   (DRIVER_VARIANT_V3_5), a few filler commits between.
 *   random          `commits` commits from v3.3 (tag) to v3.4-rc1 (tag, the
 *                   tip), the culprit directly on master at a seeded position,
 *                   merge_density of them merges of short side branches,
 *                   build_break_rate of them breaking the build.
 * Every history starts with a root commit "Linux 3.3-rc7" and a few commits
 * before "Linux 3.3" (tag v3.3). Tags are annotated; release commits change
 * the top Makefile's PATCHLEVEL/SUBLEVEL/EXTRAVERSION. Build breaks are
 * compile errors in one of the few compiled filler files, fixed 1-3 commits
 * later on the same branch, never at a tag, a merge or a driver commit.
 * Stable picks start with the subject, a blank line, "commit <40-hex>
 * upstream." and a blank line, then the original message, then
 * "Signed-off-by: Greg Kroah-Hartman <gregkh@linuxfoundation.org>".
 *
 * Truth (a JSON object; ids are 40-hex commit ids)
 *   "format": "rackbisect-model-kernel-truth/1"
 *   "scenario", "seed" (integer), "options": {"mainline_revert": "none"|
 *       "present"} or {"commits", "merge_density", "build_break_rate"} or {}
 *   "branches": {"master": id, "linux-3.3.y": id}   branch tips
 *   "commit_counts": {branch: n}   commits in v3.3..branch
 *   "tags": {"v3.3": id, ...}      the commit each annotated tag points to
 *   "culprits": {branch: id}       the commit that makes the branch bad:
 *       master: the c1afdaff equivalent; linux-3.3.y: its queued pick (the bad
 *       backport in txack-backport)
 *   "revert": {branch: id}, "reset_on_idle_off": {branch: id}   ({} if none)
 *   "driver_changes": [{"change": name, "branch", "commit", "subject"}]
 *       every commit that changes the ath9k model, in branch order; names:
 *       fullsleep-on-idle, revert-fullsleep-on-idle, bad-backport,
 *       reset-on-idle-off, fullsleep-after-rx-abort, phy-prefix
 *   "variants": [{"variant": "v3.3"|"v3.3.1"|"bad-backport"|"v3.4"|"v3.5"|null,
 *       "changes": [names applied, in order], "has": [ids], "lacks": [ids]}]
 *       a commit X runs this driver iff every id in "has" is X or an ancestor
 *       of X and no id in "lacks" is (git merge-base --is-ancestor); null:
 *       a combination with no name in ath9k-model.md §3
 *   "bad_variants": ["v3.3.1", "bad-backport"]   what the lab must flag
 *   "build_breaks": [{"branch", "file", "error", "broken": first broken id,
 *       "fixed_by": id, "broken_commits": [ids from broken up to fixed_by,
 *       exclusive]}]
 *   "stable_queue": null, or {"branch": "linux-3.3.y", "base": "v3.3",
 *       "tag": "v3.3.1-rc1", "stray": id, "patches": [{"commit", "upstream":
 *       id|null, "form": "commit-upstream"|"upstream-commit-bracket"|"none",
 *       "subject"}]}  in queue order
 */
#ifndef RB_HISTORY_H
#define RB_HISTORY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

enum history_scenario {
	HISTORY_STABLE_3_3_1 = 0,
	HISTORY_MAINLINE_3_4,
	HISTORY_TXACK_BACKPORT,
	HISTORY_RELEASES,
	HISTORY_RANDOM,
	HISTORY_SCENARIO_COUNT
};

#define HISTORY_DEFAULT_COMMITS 1000UL
#define HISTORY_MIN_COMMITS 20UL
#define HISTORY_MAX_COMMITS 200000UL
#define HISTORY_DEFAULT_MERGE_DENSITY 0.05
#define HISTORY_MAX_MERGE_DENSITY 0.25
#define HISTORY_DEFAULT_BUILD_BREAK_RATE 0.02
#define HISTORY_MAX_BUILD_BREAK_RATE 0.2
/* Seeds are JSON integers in the truth file. */
#define HISTORY_MAX_SEED INT64_MAX

struct history_options {
	enum history_scenario scenario;
	uint64_t seed;
	int mainline_revert;		/* stable-3.3.1, txack-backport */
	unsigned long commits;		/* random */
	double merge_density;		/* random */
	double build_break_rate;	/* random */
};

const char *history_scenario_name(enum history_scenario scenario);
/* 0, or -EINVAL when `name` is no scenario. */
int history_scenario_from_name(const char *name, enum history_scenario *scenario);

/* The defaults for `scenario`, seed 0. */
void history_options_init(struct history_options *options, enum history_scenario scenario);

/* 0, or -EINVAL with the reason (naming the bad value) in `error`. */
int history_options_check(const struct history_options *options, char *error,
			  size_t error_size);

/*
 * Writes the history into `repository`, which must not exist or be an empty
 * directory; the branch master is checked out. On success *truth holds the
 * ground truth (json_decref it). On failure returns -errno with the reason in
 * `error`; the repository is then incomplete and the caller removes it.
 */
int history_generate(const char *repository, const struct history_options *options,
		     json_t **truth, char *error, size_t error_size);

#endif
