/* path.c - checked path composition and mkdir -p. */
#include "path.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

int path_format(char *out, size_t len, const char *fmt, ...)
{
	va_list args;
	int written;

	va_start(args, fmt);
	written = vsnprintf(out, len, fmt, args);
	va_end(args);
	if (written < 0 || (size_t)written >= len) {
		if (len)
			out[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

int path_make_dirs(const char *path)
{
	char partial[4096];
	size_t i;

	if (path_format(partial, sizeof(partial), "%s", path))
		return -ENAMETOOLONG;
	for (i = 1; partial[i]; i++) {
		if (partial[i] != '/')
			continue;
		partial[i] = '\0';
		if (mkdir(partial, 0755) != 0 && errno != EEXIST)
			return -errno;
		partial[i] = '/';
	}
	return mkdir(partial, 0755) == 0 || errno == EEXIST ? 0 : -errno;
}

int path_self(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);

	if (n <= 0)
		return -errno;
	path[n] = '\0';
	return 0;
}

int path_beside_self(const char *const *relative, size_t count, int mode, char *out, size_t len)
{
	char dir[PATH_MAX];
	char *slash;
	size_t i;

	if (path_self(dir, sizeof(dir)) != 0)
		return -ENOENT;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; i < count; i++) {
		if (path_format(out, len, "%s%s", dir, relative[i]) == 0 && access(out, mode) == 0)
			return 0;
	}
	return -ENOENT;
}
