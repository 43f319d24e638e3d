/*
 * files.h - whole-file reads and writes, done so that a reader never sees
 * half a file: writes go to "<path>.new" and are renamed over the target,
 * except where the target is a bind-mount point and must keep its inode.
 * All return 0 or a negative errno.
 */
#ifndef RB_FILES_H
#define RB_FILES_H

#include <stddef.h>
#include <sys/types.h>

/* The whole file, NUL-terminated (malloc'd), or NULL with errno set. */
char *files_read_text(const char *path);
/* The first line, without its newline. */
int files_read_line(const char *path, char *line, size_t len);
/* Replaces path atomically (temporary file + rename). */
int files_write_atomic(const char *path, const char *text);
/* Rewrites path in place (same inode): for bind-mount targets. */
int files_write_in_place(const char *path, const char *text);
/* Copies from to `to` atomically, with `mode`. */
int files_copy(const char *from, const char *to, mode_t mode);
/* rm -rf: removes path and all below it, never following symbolic links;
 * a path that does not exist is no error. */
int files_remove_tree(const char *path);

#endif
