/* subprocess.c - posix_spawn a helper program and wait for it. */
#include "subprocess.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool named_in(const char *entry, size_t name_len, const char *const *names)
{
	size_t i;

	for (i = 0; names && names[i]; i++) {
		if (strncmp(entry, names[i], name_len) == 0 && names[i][name_len] == '\0')
			return true;
	}
	return false;
}

static bool overridden_by(const char *entry, size_t name_len, char *const *extra)
{
	size_t i;

	for (i = 0; extra && extra[i]; i++) {
		if (strncmp(entry, extra[i], name_len) == 0 && extra[i][name_len] == '=')
			return true;
	}
	return false;
}

/* environ's entries that `keep` keeps and `extra` does not override, then
 * extra's; removed and kept are the caller's (see subprocess.h). */
static char **merged_environment(char *const *extra, const char *const *removed,
				 bool (*keep)(const char *entry))
{
	size_t count = 0, extra_count = 0, i, out = 0;
	char **merged;

	while (environ[count])
		count++;
	while (extra && extra[extra_count])
		extra_count++;
	merged = calloc(count + extra_count + 1, sizeof(char *));
	if (!merged)
		return NULL;
	for (i = 0; i < count; i++) {
		size_t name_len = strcspn(environ[i], "=");

		if (!overridden_by(environ[i], name_len, extra) &&
		    !named_in(environ[i], name_len, removed) && (!keep || keep(environ[i])))
			merged[out++] = environ[i];
	}
	for (i = 0; i < extra_count; i++)
		merged[out++] = extra[i];
	return merged;
}

char **subprocess_environment(char *const *extra, const char *const *removed)
{
	return merged_environment(extra, removed, NULL);
}

/* The names a build may see, and the prefixes of families of them. */
static const char *const build_variables[] = {
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TZ", "LANG", "LANGUAGE",
	"ARCH", "SUBARCH", "CROSS_COMPILE", "CC", "HOSTCC", "CXX", "LD", "AR", "LLVM", "LLVM_IAS",
	"INSTALL_MOD_STRIP", "SOURCE_DATE_EPOCH", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR",
	"PYTHONDONTWRITEBYTECODE", NULL,
};
static const char *const build_prefixes[] = { "LC_", "KBUILD_", "CCACHE_", NULL };

static bool is_build_variable(const char *entry)
{
	size_t i;

	for (i = 0; build_prefixes[i]; i++)
		if (strncmp(entry, build_prefixes[i], strlen(build_prefixes[i])) == 0)
			return true;
	return named_in(entry, strcspn(entry, "="), build_variables);
}

char **subprocess_build_environment(char *const *extra)
{
	return merged_environment(extra, NULL, is_build_variable);
}

int subprocess_close_on_exec_from_3(void)
{
	DIR *descriptors;
	struct dirent *entry;

	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	/* before Linux 5.11: one at a time */
	descriptors = opendir("/proc/self/fd");
	if (!descriptors)
		return -errno;
	while ((entry = readdir(descriptors)) != NULL) {
		int fd = atoi(entry->d_name);

		if (fd >= 3 && fd != dirfd(descriptors))
			fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
	}
	closedir(descriptors);
	return 0;
}

static int read_all(int fd, char **output)
{
	size_t len = 0, capacity = 0;
	char *text = NULL;

	for (;;) {
		ssize_t n;

		if (len + 4097 > capacity) {
			char *grown = realloc(text, capacity = capacity * 2 + 8192);
			if (!grown) {
				free(text);
				return -ENOMEM;
			}
			text = grown;
		}
		n = read(fd, text + len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	text[len] = '\0';
	*output = text;
	return 0;
}

static int wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int subprocess_run(char *const argv[], const struct subprocess_options *options, char **output)
{
	static const struct subprocess_options defaults = { 0 };
	posix_spawn_file_actions_t actions;
	int pipe_fds[2] = { -1, -1 };
	const char *log;
	char **environment;
	pid_t pid;
	int rc, status;

	if (!options)
		options = &defaults;
	log = options->log_path ? options->log_path : "/dev/null";
	if (output && pipe2(pipe_fds, O_CLOEXEC) != 0)
		return -errno;
	environment = subprocess_environment(options->environment, NULL);
	subprocess_close_on_exec_from_3();
	if (!environment) {
		rc = -ENOMEM;
		goto out;
	}
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (output)
		posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
	else
		posix_spawn_file_actions_adddup2(&actions, 2, 1);
	if (options->cwd)
		posix_spawn_file_actions_addchdir_np(&actions, options->cwd);
	rc = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environment);
	posix_spawn_file_actions_destroy(&actions);
	free(environment);
	if (rc != 0) {
		rc = -rc;
		goto out;
	}
	if (output) {
		close(pipe_fds[1]);
		pipe_fds[1] = -1;
		rc = read_all(pipe_fds[0], output);
	}
	status = wait_for(pid);
	if (rc == 0)
		rc = status;
	else if (output)
		*output = NULL;
out:
	if (pipe_fds[0] >= 0)
		close(pipe_fds[0]);
	if (pipe_fds[1] >= 0)
		close(pipe_fds[1]);
	return rc;
}
