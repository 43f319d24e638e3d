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

/* The running program's own path (/proc/self/exe). 0 or negative errno. */
int path_self(char *path, size_t len);

/* The first of DIR + relative[i] that access(mode) allows, DIR being the
 * running program's directory: how programs find their companions beside
 * the build (build/ and build/asan/). 0 or -ENOENT. */
int path_beside_self(const char *const *relative, size_t count, int mode, char *out, size_t len);

#endif
