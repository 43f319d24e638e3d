/*
 * board_root.h - the files a virtual board's sessions see instead of the
 * host's: its tools, /boot, /lib/modules, debugfs, /sys/class, /proc/uptime, /proc/version,
 * /proc/cmdline, the boot_id and the tool socket, all in one directory that board-exec bind-mounts over
 * the real paths inside a private mount namespace.
 */
#ifndef RB_BOARD_ROOT_H
#define RB_BOARD_ROOT_H

#include <stddef.h>

/* The tools a board offers; each is a link to rackbisect-board-tool. */
extern const char *const board_root_tools[];

struct board_root_paths {
	char sbin[512];		/* -> /usr/local/sbin */
	char boot[512];		/* -> /boot */
	char debugfs[512];	/* -> /sys/kernel/debug */
	char sysclass[512];	/* -> /sys/class */
	char run[512];		/* -> /run/rackbisect-board */
	char socket[512];	/* run/tool.sock */
	char uptime[512];	/* -> /proc/uptime */
	char version[512];	/* -> /proc/version */
	char cmdline[512];	/* -> /proc/cmdline */
	char boot_id[512];	/* -> /proc/sys/kernel/random/boot_id: new at each boot */
	char home[512];		/* -> root's home directory */
	char modules[512];	/* -> /lib/modules: a build's modules land here, not in the host's */
};

void board_root_paths(const char *root, struct board_root_paths *paths);

/*
 * Creates the layout under `root` (which may exist) and installs the tool
 * shim `tool_binary` there. 0 or negative errno; `error` says which path.
 */
int board_root_prepare(const char *root, const char *tool_binary, char *error, size_t error_len);

/* Writes /proc/version's and /proc/cmdline's texts for a booted kernel, and
 * a new boot_id, as a machine's kernel draws one at each boot (in place:
 * they are bind targets). */
int board_root_write_boot(const char *root, const char *banner, const char *command_line);

/* Enters a new mount namespace and mounts the board's files over the real
 * paths. Only for the process that is about to exec the board's sshd or a
 * workload. 0 or negative errno; `error` says which mount failed. */
int board_root_enter(const char *root, char *error, size_t error_len);

#endif
