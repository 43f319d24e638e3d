/* vlab_paths.c - finding rackbisect-vlab's companions beside the build. */
#include "virtual/vlab_paths.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"

int vlab_self_path(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);

	if (n <= 0)
		return -errno;
	path[n] = '\0';
	return 0;
}

/* The first of DIR/relative[i] that `access(mode)` allows, DIR being this
 * binary's directory. */
static int find_beside_self(const char *const *relative, size_t count, int mode, char *out,
			    size_t len)
{
	char dir[PATH_MAX];
	char *slash;
	size_t i;

	if (vlab_self_path(dir, sizeof(dir)) != 0)
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

int vlab_find_tool_binary(char *path, size_t len)
{
	static const char *const relative[] = { "/rackbisect-board-tool", "/../rackbisect-board-tool" };
	const char *env = getenv("RACKBISECT_BOARD_TOOL");

	if (env && *env) {
		if (path_format(path, len, "%s", env))
			return -ENAMETOOLONG;
		return access(path, X_OK) == 0 ? 0 : -ENOENT;
	}
	return find_beside_self(relative, 2, X_OK, path, len);
}

int vlab_find_workload_dir(char *path, size_t len)
{
	static const char *const relative[] = { "/../drivers/workload", "/../../drivers/workload" };

	return find_beside_self(relative, 2, R_OK, path, len);
}
