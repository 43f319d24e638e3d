/*
 * template.h - the model kernel tree as of v3.3, embedded at build time from
 * drivers/virtual/modelkernel/tree/ (see embed-tree.sh).
 */
#ifndef RB_MODELKERNEL_TEMPLATE_H
#define RB_MODELKERNEL_TEMPLATE_H

struct template_file {
	const char *path;	/* relative to the tree's root */
	const char *text;
	unsigned long size;
	unsigned int mode;	/* 100644 or 100755, as git writes it */
};

extern const struct template_file template_files[];
extern const unsigned long template_file_count;

#endif
