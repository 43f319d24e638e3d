/*
 * vlab_paths.h - where rackbisect-vlab finds its companions: itself (to run
 * `board-exec` and `serve`), the board tool shim, and the workload scripts.
 * They sit beside the build: build/ for the normal binaries, build/asan/
 * for the sanitized ones the tests use.
 */
#ifndef RB_VLAB_PATHS_H
#define RB_VLAB_PATHS_H

#include <stddef.h>

/* The running rackbisect-vlab's own path. 0 or negative errno. */
int vlab_self_path(char *path, size_t len);
/* rackbisect-board-tool: $RACKBISECT_BOARD_TOOL, else beside this binary or
 * one directory up. 0 or -ENOENT. */
int vlab_find_tool_binary(char *path, size_t len);
/* drivers/workload of the checkout this binary was built in. 0 or -ENOENT. */
int vlab_find_workload_dir(char *path, size_t len);

#endif
