/*
 * The board tool protocol end to end: the real rackbisect-board-tool binary
 * (as iw, ping, ... on a board) against tool_server on a libuv loop.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

#include "virtual/board/tool_server.h"

struct harness {
	uv_loop_t loop;
	struct tool_server *server;
	char socket_path[108];
	char directory[64];
	uv_process_t child;
	uv_pipe_t out, err;
	char stdout_text[4096], stderr_text[4096];
	size_t stdout_len, stderr_len;
	int exit_status;
	int exited;
	int pipes_open;
	int handler_calls;
	int hang;		/* the handler never answers */
	char last_cwd[256];
	uv_timer_t end_sessions_timer;
};

static void echo_handler(void *context, struct tool_session *session, const struct tool_request *request)
{
	struct harness *harness = context;
	char line[512];
	int i;

	harness->handler_calls++;
	snprintf(harness->last_cwd, sizeof(harness->last_cwd), "%s", request->cwd);
	if (harness->hang)
		return;
	for (i = 0; i < request->argc; i++) {
		int len = snprintf(line, sizeof(line), "arg%d=%s\n", i, request->argv[i]);
		tool_session_write(session, 1, line, (size_t)len);
	}
	tool_session_write(session, 2, "to stderr\n", 10);
	tool_session_finish(session, 40 + request->argc);
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
	(void)handle;
	buf->base = malloc(suggested);
	buf->len = suggested;
}

static void on_pipe_closed(uv_handle_t *handle)
{
	struct harness *harness = handle->data;

	if (--harness->pipes_open == 0 && harness->exited)
		tool_server_stop(harness->server);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct harness *harness = stream->data;
	int is_out = stream == (uv_stream_t *)&harness->out;
	char *text = is_out ? harness->stdout_text : harness->stderr_text;
	size_t *len = is_out ? &harness->stdout_len : &harness->stderr_len;

	if (nread > 0 && *len + (size_t)nread < sizeof(harness->stdout_text)) {
		memcpy(text + *len, buf->base, (size_t)nread);
		*len += (size_t)nread;
		text[*len] = '\0';
	}
	free(buf->base);
	if (nread < 0)
		uv_close((uv_handle_t *)stream, on_pipe_closed);
}

static void on_child_exit(uv_process_t *process, int64_t status, int signal)
{
	struct harness *harness = process->data;

	(void)signal;
	harness->exit_status = (int)status;
	harness->exited = 1;
	uv_close((uv_handle_t *)process, NULL);
	if (harness->pipes_open == 0)
		tool_server_stop(harness->server);
}

/* Absolute, since the test links to it from a temporary directory. */
static void tool_binary(char *path, size_t len)
{
	const char *build = getenv("RACKBISECT_BUILD");
	char relative[1024];

	snprintf(relative, sizeof(relative), "%s/rackbisect-board-tool", build ? build : "build");
	assert_non_null(realpath(relative, path));
	assert_true(strlen(path) < len);
}

/* Runs the tool binary as `name` with args; returns once it exited. */
static void run_tool(struct harness *harness, const char *name, char **args)
{
	char env_socket[200], link_path[128], binary[4096];
	char *argv[8];
	char *env[] = { env_socket, NULL };
	uv_stdio_container_t stdio[3];
	uv_process_options_t options = { 0 };
	int i, count = 0;

	snprintf(env_socket, sizeof(env_socket), "RACKBISECT_BOARD_SOCKET=%s", harness->socket_path);
	/* argv[0] picks the tool, through a link named like it, as on a board */
	snprintf(link_path, sizeof(link_path), "%s/%s", harness->directory, name);
	tool_binary(binary, sizeof(binary));
	assert_int_equal(symlink(binary, link_path), 0);
	argv[count++] = link_path;
	for (i = 0; args && args[i]; i++)
		argv[count++] = args[i];
	argv[count] = NULL;
	uv_pipe_init(&harness->loop, &harness->out, 0);
	uv_pipe_init(&harness->loop, &harness->err, 0);
	harness->out.data = harness->err.data = harness->child.data = harness;
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	stdio[1].data.stream = (uv_stream_t *)&harness->out;
	stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	stdio[2].data.stream = (uv_stream_t *)&harness->err;
	options.file = link_path;
	options.args = argv;
	options.env = env;
	options.cwd = harness->directory;
	options.stdio = stdio;
	options.stdio_count = 3;
	options.exit_cb = on_child_exit;
	assert_int_equal(uv_spawn(&harness->loop, &harness->child, &options), 0);
	harness->pipes_open = 2;
	uv_read_start((uv_stream_t *)&harness->out, on_alloc, on_read);
	uv_read_start((uv_stream_t *)&harness->err, on_alloc, on_read);
	uv_run(&harness->loop, UV_RUN_DEFAULT);
	unlink(link_path);
}

static int setup(void **state)
{
	struct harness *harness = calloc(1, sizeof(*harness));

	strcpy(harness->directory, "/tmp/rackbisect-tool-test-XXXXXX");
	if (!mkdtemp(harness->directory))
		return -1;
	snprintf(harness->socket_path, sizeof(harness->socket_path), "%s/tool.sock", harness->directory);
	uv_loop_init(&harness->loop);
	if (tool_server_start(&harness->loop, harness->socket_path, echo_handler, harness,
			      &harness->server) != 0)
		return -1;
	*state = harness;
	return 0;
}

static void close_handle(uv_handle_t *handle, void *arg)
{
	(void)arg;
	if (!uv_is_closing(handle))
		uv_close(handle, NULL);
}

static int teardown(void **state)
{
	struct harness *harness = *state;

	/* A failed assertion may leave handles open: close them all. */
	uv_walk(&harness->loop, close_handle, NULL);
	uv_run(&harness->loop, UV_RUN_DEFAULT);
	uv_loop_close(&harness->loop);
	unlink(harness->socket_path);
	rmdir(harness->directory);
	free(harness);
	return 0;
}

static void test_tool_gets_argv_cwd_and_status(void **state)
{
	struct harness *harness = *state;
	char *args[] = { "dev", "wlan0", "station dump; rm -rf /", NULL };

	run_tool(harness, "iw", args);
	assert_int_equal(harness->handler_calls, 1);
	assert_int_equal(harness->exit_status, 44);
	/* every argument arrives whole and unparsed: nothing reaches a shell */
	assert_string_equal(harness->stdout_text,
			    "arg0=iw\narg1=dev\narg2=wlan0\narg3=station dump; rm -rf /\n");
	assert_string_equal(harness->stderr_text, "to stderr\n");
	assert_string_equal(harness->last_cwd, harness->directory);
}

static void on_end_sessions(uv_timer_t *timer)
{
	struct harness *harness = timer->data;

	if (harness->handler_calls == 0) {
		uv_timer_again(timer);
		return;
	}
	tool_server_end_sessions(harness->server);
	uv_close((uv_handle_t *)timer, NULL);
}

static void test_unanswered_tool_blocks_until_sessions_end(void **state)
{
	struct harness *harness = *state;

	harness->hang = 1;
	/* Like a reboot of a hung board: the session ends, the tool says so. */
	uv_timer_init(&harness->loop, &harness->end_sessions_timer);
	harness->end_sessions_timer.data = harness;
	uv_timer_start(&harness->end_sessions_timer, on_end_sessions, 20, 20);
	run_tool(harness, "sleep", (char *[]){ "600", NULL });
	assert_int_equal(harness->handler_calls, 1);
	assert_int_equal(harness->exit_status, 255);
	assert_string_equal(harness->stdout_text, "");
	assert_non_null(strstr(harness->stderr_text, "closed the connection"));
}

static void test_unreachable_board_exits_126(void **state)
{
	struct harness *harness = *state;

	snprintf(harness->socket_path, sizeof(harness->socket_path), "%s/nothing.sock",
		 harness->directory);
	run_tool(harness, "ping", (char *[]){ "-c", "1", "127.80.2.1", NULL });
	assert_int_equal(harness->handler_calls, 0);
	assert_int_equal(harness->exit_status, 126);
	assert_non_null(strstr(harness->stderr_text, "ping: cannot reach the virtual board"));
	snprintf(harness->socket_path, sizeof(harness->socket_path), "%s/tool.sock", harness->directory);
}

static void on_give_up(uv_timer_t *timer)
{
	int *timed_out = timer->data;

	*timed_out = 1;
}

/* Sends a whole request for `iw dev` and hangs up before any answer, as a
 * tool does whose reader exited (`iw dev | awk '... exit'`). */
static void send_request_and_hang_up(const char *socket_path)
{
	static const char request[] = "RBT1\n2\n2\niw3\ndev1\n/";
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	snprintf(address.sun_path, sizeof(address.sun_path), "%s", socket_path);
	assert_int_equal(connect(fd, (struct sockaddr *)&address, sizeof(address)), 0);
	assert_int_equal(write(fd, request, sizeof(request) - 1), (ssize_t)(sizeof(request) - 1));
	close(fd);
}

static void test_tool_that_hangs_up_early_ends_only_its_session(void **state)
{
	struct harness *harness = *state;
	uv_timer_t give_up;
	int timed_out = 0;

	send_request_and_hang_up(harness->socket_path);
	uv_timer_init(&harness->loop, &give_up);
	give_up.data = &timed_out;
	uv_timer_start(&give_up, on_give_up, 10000, 0);
	/* the answer goes to a closed socket: EPIPE, which must not kill us */
	while (harness->handler_calls == 0 && !timed_out)
		uv_run(&harness->loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&give_up, NULL);
	assert_int_equal(harness->handler_calls, 1);
	/* and the board still answers the next tool */
	run_tool(harness, "iw", (char *[]){ "dev", NULL });
	assert_int_equal(harness->handler_calls, 2);
	assert_int_equal(harness->exit_status, 42);
	assert_string_equal(harness->stdout_text, "arg0=iw\narg1=dev\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tool_gets_argv_cwd_and_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unanswered_tool_blocks_until_sessions_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreachable_board_exits_126, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tool_that_hangs_up_early_ends_only_its_session, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
