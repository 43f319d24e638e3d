/*
 * test_child.h - a real program a unit test starts (pdudaemon, QEMU), its
 * standard error read into a buffer on the loop, ended by its PID and
 * reaped before the test's loop closes.
 */
#ifndef RB_TEST_CHILD_H
#define RB_TEST_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

struct test_child {
	uv_process_t process;
	uv_pipe_t stderr_pipe;
	char stderr_text[65536];	/* NUL-terminated; its last bytes are rewritten once full */
	size_t stderr_length;
	bool started, exited;
	int open_handles;
};

/*
 * Starts argv[0] (looked up in PATH) with its standard error read into
 * child->stderr_text. A real pipe, not libuv's socketpair: pdudaemon opens
 * /dev/stderr by name, which a socket refuses (ENXIO). 0, or a libuv error
 * with nothing left open.
 */
int test_child_start(uv_loop_t *loop, struct test_child *child, char *const argv[]);

/* For run_until(): the child ended and its handles closed. */
bool test_child_gone(void *arg);

/* Sends `signal` to the child (when it still runs) and waits up to 10 s for
 * it to be reaped; then SIGKILL and another 10 s. Nothing when not started. */
void test_child_stop(uv_loop_t *loop, struct test_child *child, int signal);

#endif
