/*
 * stable_queue.h - a Linux stable release candidate's queue read from git:
 * the commits baseline..candidate (v3.3..v3.3.1-rc1), each a cherry-pick
 * that names the mainline commit it copies. Checked against the stable
 * rules ("mainline first"): every patch is in mainline before it is queued,
 * and a released bad patch is reverted only once mainline reverted or fixed
 * it (before release it is simply dropped from the queue).
 */
#ifndef RB_STABLE_QUEUE_H
#define RB_STABLE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

/* How the message names its upstream commit: "commit <id> upstream." or
 * "[ Upstream commit <id> ]" on a line of its own; <id> is 40 hex digits,
 * anything else names none. */
enum stable_upstream_form {
	STABLE_FORM_NONE,
	STABLE_FORM_COMMIT_UPSTREAM,
	STABLE_FORM_UPSTREAM_BRACKET
};

struct stable_patch {
	char commit[41];		/* the queued commit */
	char subject[256];
	char author[256];		/* "Name <email>" */
	char upstream[41];		/* lower-case; "" when the message names none */
	enum stable_upstream_form form;
	bool release_commit;		/* "Linux 3.3.1-rc1" style subject: not a patch, never audited */
	bool merge;			/* merges are not patches either */
	int upstream_in_mainline;	/* 1 yes, 0 no, -1 not checked (no mainline given, or no upstream) */
};

/* The upstream commit a queued patch's message names, in either form above
 * (the first line that names one); STABLE_FORM_NONE with upstream "" if none. */
enum stable_upstream_form stable_find_upstream(const char *message, char upstream[41]);
/* Whether the message has a line "Fixes: <id>" whose 12 or more hex digits
 * start `upstream` (any case). */
bool stable_names_as_fixed(const char *message, const char *upstream);

struct stable_queue {
	struct stable_patch *patches;	/* in queue order: oldest first */
	size_t count;
};

/*
 * The queue baseline..candidate of the repository `tree`; with `mainline`
 * (a ref, may be NULL) each upstream commit is looked up in it.
 * 0; -ENOENT when a ref names no commit (error says which); -EINVAL for a
 * ref starting with '-' (it would be a git option); other negative errno.
 */
int stable_queue_load(const char *tree, const char *baseline, const char *candidate,
		      const char *mainline, struct stable_queue *queue, char *error,
		      size_t error_size);
void stable_queue_free(struct stable_queue *queue);

/* The patch whose id is `commit` or starts with it (4+ hex digits); NULL when
 * none is, or the prefix is ambiguous. */
const struct stable_patch *stable_queue_find(const struct stable_queue *queue,
					     const char *commit);

/*
 * The patches (not release commits, not merges) that break mainline-first:
 * no upstream reference, or an upstream commit not in mainline (when
 * checked). Returns how many; their indexes into queue->patches, in queue
 * order, in *out (malloc'd; NULL when 0 or out of memory: then returns 0).
 */
size_t stable_queue_audit(const struct stable_queue *queue, size_t **out);

struct mainline_status {
	bool upstream_in_mainline;
	/* the oldest mainline commit saying "This reverts commit <upstream>" (full id); "" if none */
	char revert[41], revert_subject[256];
	/* the oldest mainline commit with a trailer "Fixes: <12+ hex of upstream>"; "" if none */
	char fix[41], fix_subject[256];
	/*
	 * Who to report to, "Name <email>" (a list: just the address), each
	 * address once: the upstream commit's author, its Signed-off-by,
	 * Acked-by, Reviewed-by and Cc trailers, then the M: and L: entries of
	 * the sections of mainline's MAINTAINERS (if it has one) whose F: names
	 * a file the upstream commit touches (a directory "dir/" by prefix, a
	 * file exactly, a pattern with * or ? as fnmatch does).
	 */
	char **people;
	size_t people_count;
};

/*
 * What mainline (a ref of `tree`) did with `upstream` (40 hex digits). An
 * upstream commit the tree lacks is simply not in mainline.
 * 0; -ENOENT when mainline names no commit; -EINVAL for a mainline starting
 * with '-' or an upstream that is not 40 hex digits; other negative errno.
 */
int stable_mainline_status(const char *tree, const char *mainline, const char *upstream,
			   struct mainline_status *status, char *error, size_t error_size);
void stable_mainline_status_free(struct mainline_status *status);

/*
 * What the stable rules allow for `patch` found to cause a regression: one
 * paragraph of plain text, unwrapped so each phrase stays on one line for
 * grep. Not released: "drop it from the queue before release: <id12>
 * (\"subject\")", then what mainline did. Released: revert once mainline's
 * revert is in it, else backport its fix, else report upstream first.
 * `status` NULL: mainline not checked (no --mainline); `mainline_name` is the
 * ref `status` was read from (NULL: "mainline").
 * 0; -ENOSPC when out was too small (out holds the truncated text); -EINVAL.
 */
int stable_advice(const struct stable_patch *patch, const struct mainline_status *status,
		  const char *mainline_name, bool released, char *out, size_t out_size);

#endif
