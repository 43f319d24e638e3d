/*
 * rackbisect-vlab board-exec --root DIR [--cgroup PATH] -- COMMAND [ARGS]
 *
 * Becomes a process of a virtual board: joins the board's cgroup (so a hang
 * freezes it and a power-off ends it), enters a private mount namespace with
 * the board's files over the real paths, and execs COMMAND (the board's sshd,
 * or a workload on the fast path). Internal: `up` and `sim` run it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "virtual/board/board_root.h"
#include "virtual/board/cgroup.h"
#include "virtual/vlab_commands.h"

static void usage(FILE *to)
{
	fprintf(to, "usage: rackbisect-vlab board-exec --root DIR [--cgroup PATH] -- COMMAND [ARGS]\n"
		    "Runs COMMAND as a process of the virtual board whose files are under DIR.\n");
}

int vlab_cmd_board_exec(int argc, char **argv)
{
	const char *root = NULL, *cgroup = NULL;
	char error[1024];
	int i, rc;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
			root = argv[++i];
		else if (strcmp(argv[i], "--cgroup") == 0 && i + 1 < argc)
			cgroup = argv[++i];
		else if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return VLAB_EXIT_OK;
		} else {
			fprintf(stderr, "rackbisect-vlab board-exec: unexpected argument '%s'\n", argv[i]);
			usage(stderr);
			return VLAB_EXIT_USAGE;
		}
	}
	if (!root || i + 1 >= argc) {
		usage(stderr);
		return VLAB_EXIT_USAGE;
	}
	if (cgroup && (rc = cgroup_enter(cgroup)) != 0) {
		fprintf(stderr, "rackbisect-vlab board-exec: cannot join cgroup %s: %s\n", cgroup,
			strerror(-rc));
		return VLAB_EXIT_INFRA;
	}
	if (board_root_enter(root, error, sizeof(error)) != 0) {
		fprintf(stderr, "rackbisect-vlab board-exec: %s\n", error);
		return VLAB_EXIT_INFRA;
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "rackbisect-vlab board-exec: cannot run %s: %s\n", argv[i + 1],
		strerror(errno));
	return VLAB_EXIT_INFRA;
}
