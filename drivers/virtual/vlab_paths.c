/* vlab_paths.c - finding rackbisect-vlab's companions beside the build. */
#include "virtual/vlab_paths.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "path.h"

int vlab_self_path(char *path, size_t len)
{
	return path_self(path, len);
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
	return path_beside_self(relative, 2, X_OK, path, len);
}

int vlab_find_workload_dir(char *path, size_t len)
{
	static const char *const relative[] = { "/../drivers/workload", "/../../drivers/workload" };

	return path_beside_self(relative, 2, R_OK, path, len);
}
