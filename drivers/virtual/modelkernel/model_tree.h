/*
 * model_tree.h - the files of the model kernel and every version of them
 * the history generator makes.
 *
 * The file set is fixed: the embedded template tree (template_files: the
 * build and the ath9k model driver) plus the filler layout. A version is an
 * immutable text; a tree (one per branch being written) is an array with one
 * version pointer per file, so copying a branch's tree or merging two is
 * pointer work, and "did this branch change the file since the fork?" is a
 * pointer comparison. All versions live until model_tree_free.
 */
#ifndef RB_MODEL_TREE_H
#define RB_MODEL_TREE_H

#include <stddef.h>

#include "filler.h"
#include "seeded_random.h"

struct file_version {
	char *text;
	size_t size;
	unsigned long blob_mark;	/* fast-import mark once written, else 0 */
	long creator;			/* index of the commit that made it; -1 at import */
};

struct model_file {
	const char *path;
	unsigned int mode;		/* 0100644 or 0100755 */
	const struct filler_file *filler;	/* NULL: a template file */
	int locked;			/* a build break is open in it: hands off */
};

struct model_tree {
	size_t file_count;
	struct model_file *files;
	struct filler_layout layout;
	struct file_version **versions;
	size_t version_count;
	size_t version_capacity;
};

/* A tree: file_count version pointers (NULL never occurs: no deletions). */
typedef const struct file_version **model_tree_state;

/* Creates the file set and, in *initial, the tree as of the first commit
 * (template texts plus generated filler). -EEXIST if filler and template
 * paths collide. */
int model_tree_create(struct model_tree *tree, struct seeded_random *random,
		      model_tree_state *initial);
void model_tree_free(struct model_tree *tree);

/* Takes ownership of `text` (NULL: -ENOMEM is reported by returning NULL). */
const struct file_version *model_tree_add_version(struct model_tree *tree, char *text,
						  long creator);

/* Index of `path`, or -1. */
long model_tree_find(const struct model_tree *tree, const char *path);

model_tree_state model_tree_state_copy(const struct model_tree *tree, model_tree_state state);

/* The top Makefile's text with VERSION fields set as a release commit does. */
char *model_tree_makefile_with_version(const char *makefile, int patchlevel,
				       int sublevel, const char *extraversion);

#endif
