/*
 * subprocess.h - run a program to completion, with argv and never a shell, so
 * no configured value is ever parsed as shell syntax. For short helper
 * programs (ssh-keygen, make, git); long-running children belong on the
 * libuv loop.
 */
#ifndef RB_SUBPROCESS_H
#define RB_SUBPROCESS_H

#include <stddef.h>

struct subprocess_options {
	const char *cwd;		/* NULL: inherit */
	const char *log_path;		/* stderr (and stdout unless captured) appended here;
					 * NULL: /dev/null */
	char *const *environment;	/* extra "NAME=value" entries, NULL-terminated; may be NULL */
};

/*
 * Runs argv[0] (looked up in PATH) and waits. With `output` non-NULL, its
 * standard output is returned there (malloc'd, NUL-terminated). Returns the
 * exit status (0..255), 128+N if killed by signal N, or a negative errno if
 * it could not be started.
 */
int subprocess_run(char *const argv[], const struct subprocess_options *options, char **output);

/*
 * The environment a child gets: environ without the variables named in
 * `removed` (NULL-terminated names; may be NULL), plus `extra` ("NAME=value",
 * which win). A new NULL-terminated array pointing into environ and extra:
 * free the array only, and use it before environ changes. NULL: no memory.
 */
char **subprocess_environment(char *const *extra, const char *const *removed);

/*
 * The environment of a program rackbisect did not write (a kernel tree's
 * build): only the variables a build uses (PATH, HOME, USER, LANG and LC_*,
 * TMPDIR, TZ, TERM, ARCH, CROSS_COMPILE, CC, HOSTCC, LD, LLVM, KBUILD_*,
 * CCACHE_*, ...), plus `extra`. Everything else stays out: the LAVA token's
 * and the PDU passwords' variables would reach the build's code and its
 * world-readable log. Same ownership as subprocess_environment.
 */
char **subprocess_build_environment(char *const *extra);

/*
 * Marks every descriptor from 3 up close-on-exec, so that a child about to
 * be started inherits only its standard streams: the state database, SSH
 * and HTTP sockets and lock files are not its business. Descriptors that
 * some library opened without O_CLOEXEC included. 0 or a negative errno.
 */
int subprocess_close_on_exec_from_3(void);

#endif
