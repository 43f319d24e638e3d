/* board_root.c - a board's private view of the host's files. */
#include "virtual/board/board_root.h"

#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <pwd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const board_root_tools[] = {
	"iw", "ping", "dmesg", "sleep", "uname", "ip", "kexec", "reboot", NULL,
};

/* Host binaries the shim also covers, so a script calling them by absolute
 * path reaches the board too (bound only where they exist on the host). */
static const char *const covered_binaries[] = {
	"/usr/bin/uname", "/usr/bin/sleep", "/usr/bin/dmesg", "/usr/bin/ping",
	"/usr/bin/iw", "/usr/sbin/iw", "/usr/sbin/ip", "/usr/bin/ip",
	"/usr/sbin/kexec", "/usr/sbin/reboot", NULL,
};

#define SHIM_NAME "rackbisect-board-tool"

void board_root_paths(const char *root, struct board_root_paths *paths)
{
	snprintf(paths->sbin, sizeof(paths->sbin), "%s/sbin", root);
	snprintf(paths->boot, sizeof(paths->boot), "%s/boot", root);
	snprintf(paths->debugfs, sizeof(paths->debugfs), "%s/debug", root);
	snprintf(paths->sysclass, sizeof(paths->sysclass), "%s/class", root);
	snprintf(paths->run, sizeof(paths->run), "%s/run", root);
	snprintf(paths->socket, sizeof(paths->socket), "%s/run/tool.sock", root);
	snprintf(paths->uptime, sizeof(paths->uptime), "%s/uptime", root);
	snprintf(paths->version, sizeof(paths->version), "%s/version", root);
	snprintf(paths->cmdline, sizeof(paths->cmdline), "%s/cmdline", root);
	snprintf(paths->boot_id, sizeof(paths->boot_id), "%s/boot_id", root);
	snprintf(paths->home, sizeof(paths->home), "%s/home", root);
	snprintf(paths->modules, sizeof(paths->modules), "%s/modules", root);
}

static int make_dir(const char *path, char *error, size_t error_len)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	snprintf(error, error_len, "cannot create %s: %s", path, strerror(errno));
	return -errno;
}

static int install_tools(const struct board_root_paths *paths, const char *tool_binary,
			 char *error, size_t error_len)
{
	char shim[600], link_path[600];
	int i, rc;

	snprintf(shim, sizeof(shim), "%s/%s", paths->sbin, SHIM_NAME);
	rc = files_copy(tool_binary, shim, 0755);
	if (rc) {
		snprintf(error, error_len, "cannot install %s as %s: %s", tool_binary, shim,
			 strerror(-rc));
		return rc;
	}
	for (i = 0; board_root_tools[i]; i++) {
		snprintf(link_path, sizeof(link_path), "%s/%s", paths->sbin, board_root_tools[i]);
		unlink(link_path);
		if (symlink(SHIM_NAME, link_path) != 0) {
			snprintf(error, error_len, "cannot link %s: %s", link_path, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

int board_root_prepare(const char *root, const char *tool_binary, char *error, size_t error_len)
{
	struct board_root_paths paths;
	const char *dirs[8];
	int i, rc;

	board_root_paths(root, &paths);
	dirs[0] = root;
	dirs[1] = paths.sbin;
	dirs[2] = paths.boot;
	dirs[3] = paths.debugfs;
	dirs[4] = paths.sysclass;
	dirs[5] = paths.run;
	dirs[6] = paths.home;
	dirs[7] = paths.modules;
	for (i = 0; i < 8; i++) {
		rc = make_dir(dirs[i], error, error_len);
		if (rc)
			return rc;
	}
	if ((rc = files_write_in_place(paths.uptime, "0.00 0.00\n")) ||
	    (rc = files_write_in_place(paths.version, "Linux version (not booted)\n")) ||
	    (rc = files_write_in_place(paths.cmdline, "\n")) ||
	    (rc = files_write_in_place(paths.boot_id, "\n"))) {
		snprintf(error, error_len, "cannot write the board's files under %s: %s", root,
			 strerror(-rc));
		return rc;
	}
	return install_tools(&paths, tool_binary, error, error_len);
}

int board_root_write_boot(const char *root, const char *banner, const char *command_line)
{
	struct board_root_paths paths;
	char line[4200], boot_id[64];
	int rc;

	board_root_paths(root, &paths);
	snprintf(line, sizeof(line), "%s\n", command_line);
	/* the host's kernel makes a fresh random UUID at each read */
	if (files_read_line("/proc/sys/kernel/random/uuid", boot_id, sizeof(boot_id) - 1) != 0) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		snprintf(boot_id, sizeof(boot_id), "%08lx-%04lx-4000-8000-000000000000",
			 (unsigned long)now.tv_sec, (unsigned long)(now.tv_nsec & 0xffff));
	}
	strcat(boot_id, "\n");
	if ((rc = files_write_in_place(paths.version, banner)) ||
	    (rc = files_write_in_place(paths.boot_id, boot_id)))
		return rc;
	return files_write_in_place(paths.cmdline, line);
}

static int bind(const char *from, const char *onto, char *error, size_t error_len)
{
	if (mount(from, onto, NULL, MS_BIND, NULL) == 0)
		return 0;
	snprintf(error, error_len, "cannot bind %s over %s: %s", from, onto, strerror(errno));
	return -errno;
}

static int ensure_host_dir(const char *path, char *error, size_t error_len)
{
	/* Mount points and sshd's privilege separation directory; harmless to
	 * create on the host, and nothing else is ever written there. */
	return make_dir(path, error, error_len);
}

/* A board is a machine of its own: root's home is its own, empty one, so the
 * host's dotfiles (a .bashrc starting pyenv costs 0.4 s per SSH command)
 * never run on it. */
static int bind_home(const char *home, char *error, size_t error_len)
{
	struct passwd *root_user = getpwuid(0);
	const char *host_home = root_user && root_user->pw_dir ? root_user->pw_dir : "/root";
	struct stat st;

	if (stat(host_home, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	return bind(home, host_home, error, error_len);
}

int board_root_enter(const char *root, char *error, size_t error_len)
{
	struct board_root_paths paths;
	char shim[600];
	struct stat st;
	int i, rc;

	board_root_paths(root, &paths);
	snprintf(shim, sizeof(shim), "%s/%s", paths.sbin, SHIM_NAME);
	if ((rc = ensure_host_dir("/run/sshd", error, error_len)) ||
	    (rc = ensure_host_dir("/run/rackbisect-board", error, error_len)) ||
	    (rc = ensure_host_dir("/boot", error, error_len)) ||
	    (rc = ensure_host_dir("/lib/modules", error, error_len)))
		return rc;
	if (unshare(CLONE_NEWNS) != 0) {
		snprintf(error, error_len, "cannot make a mount namespace (unshare): %s",
			 strerror(errno));
		return -errno;
	}
	/* Nothing mounted here may leak back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		snprintf(error, error_len, "cannot make / private: %s", strerror(errno));
		return -errno;
	}
	if ((rc = bind(paths.sbin, "/usr/local/sbin", error, error_len)) ||
	    (rc = bind(paths.boot, "/boot", error, error_len)) ||
	    (rc = bind(paths.debugfs, "/sys/kernel/debug", error, error_len)) ||
	    (rc = bind(paths.sysclass, "/sys/class", error, error_len)) ||
	    (rc = bind(paths.run, "/run/rackbisect-board", error, error_len)) ||
	    (rc = bind(paths.uptime, "/proc/uptime", error, error_len)) ||
	    (rc = bind(paths.version, "/proc/version", error, error_len)) ||
	    (rc = bind(paths.cmdline, "/proc/cmdline", error, error_len)) ||
	    (rc = bind(paths.boot_id, "/proc/sys/kernel/random/boot_id", error, error_len)) ||
	    (rc = bind(paths.modules, "/lib/modules", error, error_len)) ||
	    (rc = bind_home(paths.home, error, error_len)))
		return rc;
	for (i = 0; covered_binaries[i]; i++) {
		if (lstat(covered_binaries[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    (rc = bind(shim, covered_binaries[i], error, error_len)))
			return rc;
	}
	return 0;
}
