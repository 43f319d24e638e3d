/*
 * path.h - building file paths without silent truncation: a path cut short
 * names another file, so every composed path is checked.
 */
#ifndef RB_PATH_H
#define RB_PATH_H

#include <stddef.h>

/* snprintf into out; 0, or -ENAMETOOLONG when it did not fit. */
int path_format(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* mkdir -p; 0 or negative errno. */
int path_make_dirs(const char *path);

#endif
