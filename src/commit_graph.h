/*
 * commit_graph.h - the candidates of a bisection read from git: the commits
 * reachable from bad and from no good (`git rev-list --parents BAD ^GOOD...`),
 * as the DAG src/bisect.h works on (parents outside the set left out).
 */
#ifndef RB_COMMIT_GRAPH_H
#define RB_COMMIT_GRAPH_H

#include <stddef.h>

#include "bisect.h"

struct commit_graph {
	struct bisect_commit *commits;	/* newest first, as rev-list prints them */
	size_t count;
	size_t bad_index;
	char **ids;			/* owned: commits[i].id points here */
	size_t **parents;		/* owned: commits[i].parents points here */
	char good_id[64];		/* the first good end, resolved: where a run at
					 * "the good end" (BISECT_GOOD_END) goes */
};

/*
 * 0; -ENOENT when a ref names no commit (error says which); -EINVAL when
 * bad is an ancestor of a good (nothing to bisect); other negative errno.
 * Refs starting with '-' are refused (-EINVAL): they would be git options.
 */
int commit_graph_load(const char *tree, const char *bad, const char *const *goods,
		      size_t good_count, struct commit_graph *graph, char *error, size_t error_len);
void commit_graph_free(struct commit_graph *graph);

/* "subject (author)" of a commit, malloc'd, or NULL. */
char *commit_graph_describe(const char *tree, const char *id);

#endif
