/*
 * git_command.h - runs git for the model kernel generator and its tests.
 *
 * git is started with posix_spawnp and an argv, never through a shell, and
 * with a fixed environment: PATH from the caller plus settings that keep the
 * user's and the system's git configuration (and any GIT_DIR/GIT_* of the
 * caller) out, so a generated history does not depend on who ran it.
 */
#ifndef RB_GIT_COMMAND_H
#define RB_GIT_COMMAND_H

#include <sys/types.h>

/*
 * Starts `argv` (argv[0] is "git"; NULL-terminated). stdin_fd, stdout_fd:
 * the child's standard input and output (-1: /dev/null for input, the
 * caller's for output). fd3: becomes the child's descriptor 3 (-1: none).
 * Descriptors the caller made without O_CLOEXEC leak into the child: make
 * every descriptor with O_CLOEXEC. Returns 0 with *pid set, or -errno.
 */
int git_command_spawn(const char *const argv[], int stdin_fd, int stdout_fd,
		      int fd3, pid_t *pid);

/* Waits for `pid`: 0 when it exited with status 0, -EIO otherwise. */
int git_command_wait(pid_t pid);

/*
 * Runs `argv` to completion. With `output` non-NULL, its standard output
 * is returned there (malloc'd, NUL-terminated; free it); otherwise it goes
 * to the caller's standard output. Returns 0, -EIO when git failed (its
 * own message went to standard error) or -errno.
 */
int git_command_run(const char *const argv[], char **output);

#endif
