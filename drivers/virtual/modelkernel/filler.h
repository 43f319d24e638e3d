/*
 * filler.h - the filler files of the model kernel and how ordinary commits
 * change them.
 *
 * Besides the template tree (the ath9k model driver and the build), the
 * model kernel holds a couple of thousand files so that `git log --stat`
 * looks like kernel history: documentation, headers nothing includes,
 * Kconfig files, .c files the model Makefile does not compile, and a few
 * small .c files it does compile (see kernel_compiled_file), which is where
 * build breaks go. Every text is made of a fixed header, a body of
 * generated lines that commits replace, insert and delete, and a fixed
 * footer, so any edit leaves a compiled file compiling unless it is a
 * deliberate break (filler_break_build).
 */
#ifndef RB_FILLER_H
#define RB_FILLER_H

#include <stddef.h>

#include "kernel_subsystems.h"
#include "seeded_random.h"

struct filler_file {
	char *path;
	enum filler_kind kind;
	size_t subsystem;		/* kernel_subsystem() index */
	const char *subject_prefix;
	const char *symbol_prefix;
	const char *description;	/* compiled files only */
};

struct filler_layout {
	size_t count;
	struct filler_file *files;
};

/* Every filler file: the same list for every seed. -EINVAL if the tables
 * would make a file the model Makefile compiles by accident. */
int filler_layout_create(struct filler_layout *layout);
void filler_layout_free(struct filler_layout *layout);

/* 1 when the model tree's Makefile compiles `path` (its core-y wildcards). */
int filler_path_is_compiled(const char *path);

/* The file as of v3.3 (malloc'd; NULL when out of memory). */
char *filler_initial_text(const struct filler_file *file, struct seeded_random *random);

/* An ordinary change: one to three body lines replaced, added or removed.
 * Compiled files still compile afterwards. */
char *filler_edit(const struct filler_file *file, const char *text,
		  struct seeded_random *random);

enum filler_break_kind {
	FILLER_BREAK_MISSING_SEMICOLON = 0,
	FILLER_BREAK_UNDECLARED_IDENTIFIER,
	FILLER_BREAK_MISSING_COMMA,
};

/* A compile error put into a compiled file, and how its fix undoes it. */
struct filler_build_break {
	enum filler_break_kind kind;
	unsigned int line;		/* 1-based line that is now wrong */
	char *fixed_line;		/* what the fix writes on that line */
	char compiler_error[256];	/* gcc's complaint, for the fix's message */
	char summary[96];		/* "missing semicolon", for the message */
};

/* A change to compiled file `file` that no longer compiles. */
char *filler_break_build(const struct filler_file *file, const char *text,
			 struct seeded_random *random, struct filler_build_break *build_break);
/* The broken text with the break repaired. */
char *filler_fix_build(const char *broken_text, const struct filler_build_break *build_break);
void filler_build_break_free(struct filler_build_break *build_break);

#endif
