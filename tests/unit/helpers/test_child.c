/* test_child.c - a program a unit test starts and ends (see test_child.h). */
#include "test_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "loop_wait.h"

static void on_handle_closed(uv_handle_t *handle)
{
	((struct test_child *)handle->data)->open_handles--;
}

static void on_child_exit(uv_process_t *process, int64_t exit_status, int term_signal)
{
	struct test_child *child = process->data;

	(void)exit_status, (void)term_signal;
	child->exited = true;
	uv_close((uv_handle_t *)process, on_handle_closed);
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct test_child *child = handle->data;
	size_t room = sizeof(child->stderr_text) - 1 - child->stderr_length;

	(void)suggested;
	/* a full buffer keeps being read, into its last bytes, so the child never blocks on it */
	*buffer = uv_buf_init(child->stderr_text + (room ? child->stderr_length : child->stderr_length - 256),
			      room ? (unsigned int)room : 256);
}

static void on_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct test_child *child = stream->data;

	(void)buffer;
	if (count < 0) {
		uv_close((uv_handle_t *)stream, on_handle_closed);
		return;
	}
	if (child->stderr_length + (size_t)count < sizeof(child->stderr_text))
		child->stderr_length += (size_t)count;
	child->stderr_text[child->stderr_length] = '\0';
}

int test_child_start(uv_loop_t *loop, struct test_child *child, char *const argv[])
{
	uv_stdio_container_t stdio[3] = { { .flags = UV_IGNORE }, { .flags = UV_IGNORE },
					  { .flags = UV_INHERIT_FD } };
	uv_process_options_t options = { .file = argv[0], .args = (char **)argv, .stdio = stdio,
					 .stdio_count = 3, .exit_cb = on_child_exit };
	int fds[2], rc;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return uv_translate_sys_error(errno);
	uv_pipe_init(loop, &child->stderr_pipe, 0);
	child->stderr_pipe.data = child->process.data = child;
	child->open_handles = 1;
	rc = uv_pipe_open(&child->stderr_pipe, fds[0]);
	if (rc) {
		close(fds[0]);
	} else {
		stdio[2].data.fd = fds[1];
		rc = uv_spawn(loop, &child->process, &options);
		child->open_handles++;
		if (rc)		/* a process handle that failed to spawn is closed all the same */
			uv_close((uv_handle_t *)&child->process, on_handle_closed);
	}
	close(fds[1]);
	if (rc) {
		uv_close((uv_handle_t *)&child->stderr_pipe, on_handle_closed);
		run_until(loop, test_child_gone, child, 1000);
		return rc;
	}
	child->started = true;
	return uv_read_start((uv_stream_t *)&child->stderr_pipe, on_alloc, on_read);
}

bool test_child_gone(void *arg)
{
	return ((struct test_child *)arg)->open_handles == 0;
}

void test_child_stop(uv_loop_t *loop, struct test_child *child, int signal)
{
	if (!child->started)
		return;
	child->started = false;
	if (!child->exited)
		uv_process_kill(&child->process, signal);
	if (!run_until(loop, test_child_gone, child, 10000)) {
		uv_process_kill(&child->process, SIGKILL);
		run_until(loop, test_child_gone, child, 10000);
	}
}
