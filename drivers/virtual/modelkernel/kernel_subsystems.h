/*
 * kernel_subsystems.h - who works where in the model kernel history.
 *
 * The subsystems of 2012 with their maintainers and the trees Linus pulled
 * from, the directories of filler files each one owns, the few filler files
 * the model tree really compiles, and a pool of (invented, real-looking)
 * patch authors. Pure data: the history generator decides what to do with it.
 */
#ifndef RB_KERNEL_SUBSYSTEMS_H
#define RB_KERNEL_SUBSYSTEMS_H

#include <stddef.h>

struct kernel_person {
	const char *name;
	const char *email;
	const char *timezone;	/* "+0200": git's raw date zone */
};

/* People with a fixed role in the story. */
enum kernel_role {
	KERNEL_ROLE_LINUS = 0,		/* merges, tags, mainline releases */
	KERNEL_ROLE_STABLE,		/* Greg: stable queues and -rc tags */
	KERNEL_ROLE_AKPM,		/* takes the patches of subsystems without a tree */
	KERNEL_ROLE_BUILD_REPORTER,	/* linux-next: reports build failures */
	KERNEL_ROLE_ATH9K,		/* Felix Fietkau, author of the driver changes */
	KERNEL_ROLE_WIRELESS,		/* John W. Linville, who applied them */
	KERNEL_ROLE_COUNT
};

const struct kernel_person *kernel_role_person(enum kernel_role role);

enum filler_kind {
	FILLER_DOCUMENT = 0,	/* Documentation text */
	FILLER_SOURCE,		/* a .c file the model tree does not compile */
	FILLER_HEADER,		/* a header nothing includes */
	FILLER_KCONFIG,
	FILLER_COMPILED,	/* a small .c file the model tree compiles */
};

struct kernel_subsystem {
	const char *name;		/* short, for truth files and logs */
	const struct kernel_person *maintainer;
	const char *pull_url;		/* NULL: no tree, patches go via akpm */
	const char *pull_branch;	/* "for-linus", ...; NULL: the tree's default */
	const char *pull_summary;	/* "networking updates" */
	unsigned int weight;		/* relative share of the patches */
};

/* A directory of filler files, all of one kind and one subsystem. */
struct kernel_area {
	const char *directory;
	const char *subject_prefix;	/* "drm/i915" in "drm/i915: fix ..." */
	const char *symbol_prefix;	/* "i915" in "i915_gem_init()" */
	enum filler_kind kind;
	unsigned int file_count;
	const char *file_name;		/* one file of this name, else generated names */
	size_t subsystem;
};

/* A filler file the model tree's Makefile compiles (see its core-y). */
struct kernel_compiled_file {
	const char *path;
	const char *subject_prefix;
	const char *symbol_prefix;	/* unique: every compiled file shares one link */
	const char *description;
	size_t subsystem;
};

size_t kernel_subsystem_count(void);
const struct kernel_subsystem *kernel_subsystem(size_t index);
/* Index of the subsystem called `name`; the name must exist. */
size_t kernel_subsystem_index(const char *name);

size_t kernel_area_count(void);
const struct kernel_area *kernel_area(size_t index);

size_t kernel_compiled_file_count(void);
const struct kernel_compiled_file *kernel_compiled_file(size_t index);

size_t kernel_author_count(void);
const struct kernel_person *kernel_author(size_t index);

/* Words to build file names, symbols and prose from. */
size_t kernel_word_count(void);
const char *kernel_word(size_t index);
size_t kernel_symbol_word_count(void);
const char *kernel_symbol_word(size_t index);

#endif
