/* cgroup.c - freezing and killing a board's processes through cgroup v2. */
#include "virtual/board/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cgroup_find_root(char *path, size_t len)
{
	FILE *mounts = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	int rc = -ENOENT;

	if (!mounts)
		return -errno;
	while (fgets(line, sizeof(line), mounts)) {
		char mount_point[2048], fs_type[64];
		const char *separator = strstr(line, " - ");

		if (!separator || sscanf(separator, " - %63s", fs_type) != 1 ||
		    strcmp(fs_type, "cgroup2") != 0)
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %2047s", mount_point) == 1) {
			snprintf(path, len, "%s", mount_point);
			rc = 0;
			break;
		}
	}
	fclose(mounts);
	return rc;
}

static int write_text(const char *directory, const char *file, const char *text)
{
	char path[1024];
	int fd, rc = 0;
	ssize_t len = (ssize_t)strlen(text);

	snprintf(path, sizeof(path), "%s/%s", directory, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, (size_t)len) != len)
		rc = -errno;
	close(fd);
	return rc;
}

int cgroup_create(const char *relative, char *path, size_t len)
{
	char root[1024], partial[2048];
	const char *at = relative;
	int rc = cgroup_find_root(root, sizeof(root));

	if (rc)
		return rc;
	snprintf(partial, sizeof(partial), "%s/rackbisect", root);
	if (mkdir(partial, 0755) != 0 && errno != EEXIST)
		return -errno;
	while (at && *at) {
		const char *slash = strchr(at, '/');
		size_t used = strlen(partial);
		size_t part = slash ? (size_t)(slash - at) : strlen(at);

		snprintf(partial + used, sizeof(partial) - used, "/%.*s", (int)part, at);
		if (mkdir(partial, 0755) != 0 && errno != EEXIST)
			return -errno;
		at = slash ? slash + 1 : NULL;
	}
	snprintf(path, len, "%s", partial);
	return 0;
}

int cgroup_freeze(const char *path, int frozen)
{
	return write_text(path, "cgroup.freeze", frozen ? "1" : "0");
}

int cgroup_process_count(const char *path)
{
	char file[1024], line[64];
	FILE *procs;
	int count = 0;

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	procs = fopen(file, "r");
	if (!procs)
		return -errno;
	while (fgets(line, sizeof(line), procs))
		count++;
	fclose(procs);
	return count;
}

/* Waits for cgroup.events to say "populated 0": poll() wakes on its changes. */
static int wait_until_empty(const char *path, int timeout_ms)
{
	char file[1024], text[256];
	int fd, waited = 0;

	snprintf(file, sizeof(file), "%s/cgroup.events", path);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
		struct pollfd watch = { .fd = fd, .events = POLLPRI };

		if (n < 0)
			break;
		text[n] = '\0';
		if (strstr(text, "populated 0")) {
			close(fd);
			return 0;
		}
		if (waited >= timeout_ms)
			break;
		poll(&watch, 1, 50);
		waited += 50;
	}
	close(fd);
	return -ETIMEDOUT;
}

int cgroup_kill_all(const char *path, int timeout_ms)
{
	int rc = write_text(path, "cgroup.kill", "1");

	if (rc && rc != -ENOENT)
		return rc;
	return wait_until_empty(path, timeout_ms);
}

int cgroup_kill_all_but(const char *path, int keep_pid)
{
	char file[1100];
	FILE *procs;
	int pid, count = 0;

	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	procs = fopen(file, "re");
	if (!procs)
		return -errno;
	while (fscanf(procs, "%d", &pid) == 1) {
		if (pid > 0 && pid != keep_pid && kill(pid, SIGKILL) == 0)
			count++;
	}
	fclose(procs);
	return count;
}

int cgroup_remove(const char *path)
{
	return rmdir(path) == 0 || errno == ENOENT ? 0 : -errno;
}

int cgroup_enter(const char *path)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return write_text(path, "cgroup.procs", pid);
}
