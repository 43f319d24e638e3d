/* git_command.c - see git_command.h. */
#include "git_command.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "text_buffer.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* The environment every git child gets; PATH is the only thing inherited. */
struct git_environment {
	char path[4096];
	char *entries[10];
};

static void git_environment_init(struct git_environment *environment)
{
	const char *path = getenv("PATH");
	size_t count = 0;

	if (!path || strlen(path) + sizeof("PATH=") > sizeof(environment->path))
		path = DEFAULT_PATH;
	strcpy(environment->path, "PATH=");
	strcat(environment->path, path);
	environment->entries[count++] = environment->path;
	environment->entries[count++] = "GIT_CONFIG_NOSYSTEM=1";
	environment->entries[count++] = "GIT_CONFIG_GLOBAL=/dev/null";
	environment->entries[count++] = "GIT_TERMINAL_PROMPT=0";
	environment->entries[count++] = "LC_ALL=C";
	environment->entries[count++] = "TZ=UTC";
	/* fast-import allocates and frees a large zlib buffer per object; with
	 * glibc's default 128 KiB top pad the heap is grown and trimmed each
	 * time, which made 10,000 commits take 15 s of page faults, not 2 s */
	environment->entries[count++] = "GLIBC_TUNABLES=glibc.malloc.top_pad=67108864";
	environment->entries[count] = NULL;
}

static int add_redirections(posix_spawn_file_actions_t *actions, int stdin_fd,
			    int stdout_fd, int fd3)
{
	int rc;

	if (stdin_fd >= 0)
		rc = posix_spawn_file_actions_adddup2(actions, stdin_fd, 0);
	else
		rc = posix_spawn_file_actions_addopen(actions, 0, "/dev/null",
						      O_RDONLY, 0);
	if (rc == 0 && stdout_fd >= 0)
		rc = posix_spawn_file_actions_adddup2(actions, stdout_fd, 1);
	if (rc == 0 && fd3 >= 0)
		rc = posix_spawn_file_actions_adddup2(actions, fd3, 3);
	return -rc;
}

int git_command_spawn(const char *const argv[], int stdin_fd, int stdout_fd,
		      int fd3, pid_t *pid)
{
	struct git_environment environment;
	posix_spawn_file_actions_t actions;
	int rc;

	git_environment_init(&environment);
	rc = posix_spawn_file_actions_init(&actions);
	if (rc != 0)
		return -rc;
	rc = add_redirections(&actions, stdin_fd, stdout_fd, fd3);
	if (rc == 0)
		/* posix_spawn's argv type predates const; nothing writes to it */
		rc = -posix_spawnp(pid, argv[0], &actions, NULL,
				   (char *const *)argv, environment.entries);
	posix_spawn_file_actions_destroy(&actions);
	return rc;
}

int git_command_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return -EIO;
}

static int read_all(int fd, char **output)
{
	struct text_buffer text;
	char chunk[65536];
	ssize_t got;

	text_buffer_init(&text);
	text_buffer_append(&text, "", 0);
	for (;;) {
		got = read(fd, chunk, sizeof(chunk));
		if (got == 0)
			break;
		if (got < 0) {
			if (errno == EINTR)
				continue;
			text_buffer_free(&text);
			return -errno;
		}
		text_buffer_append(&text, chunk, (size_t)got);
	}
	*output = text_buffer_take(&text);
	return *output ? 0 : -ENOMEM;
}

int git_command_run(const char *const argv[], char **output)
{
	int pipe_fds[2] = { -1, -1 };
	pid_t pid;
	int rc, read_rc = 0;

	if (output) {
		*output = NULL;
		if (pipe2(pipe_fds, O_CLOEXEC) != 0)
			return -errno;
	}
	rc = git_command_spawn(argv, -1, pipe_fds[1], -1, &pid);
	if (pipe_fds[1] >= 0)
		close(pipe_fds[1]);
	if (rc != 0) {
		if (pipe_fds[0] >= 0)
			close(pipe_fds[0]);
		return rc;
	}
	if (output) {
		read_rc = read_all(pipe_fds[0], output);
		close(pipe_fds[0]);
	}
	rc = git_command_wait(pid);
	if (rc == 0)
		rc = read_rc;
	if (rc != 0 && output) {
		free(*output);
		*output = NULL;
	}
	return rc;
}
