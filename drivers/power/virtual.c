/*
 * virtual.c - the virtual lab's power switch, spoken to over the lab
 * supervisor's control socket. Each request has its own connection: the
 * supervisor answers one line per connection and then hangs up, and a power
 * cycle may take it a second or two, so requests for other boards must not
 * queue behind it.
 */
#include "power/virtual.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "virtual/lab/lab_state.h"

#define ANSWER_MAX 1024
#define ERROR_TEXT_SIZE 1536
#define UNIX_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

struct virtual_power;

struct power_request {
	struct power_request *next;
	struct virtual_power *owner;
	uint64_t timeout_ms;
	power_cb callback;
	void *data;
	uv_pipe_t pipe;
	uv_connect_t connect;
	uv_write_t write;
	uv_timer_t timer;
	int open_handles;		/* the request is freed when both have closed */
	bool finished;			/* its callback has run */
	char command[256];		/* "power vb01 cycle\n" */
	char answer[ANSWER_MAX];
	size_t answer_length;
};

struct virtual_power {
	struct power base;
	char *board_name;
	char *lab_up_command;		/* "rackbisect lab up LAB [--state DIR]" */
	char socket_path[UNIX_PATH_MAX];
	struct power_request *pending;
	size_t live_requests;		/* pending, or still closing their handles */
	bool closing;
};

static struct virtual_power *virtual_power_of(struct power *power)
{
	return (struct virtual_power *)power;
}

static void free_virtual_power(struct virtual_power *power)
{
	free(power->board_name);
	free(power->lab_up_command);
	free(power);
}

/* ---- the end of a request: one callback, then its memory once its handles close */

static void unlink_request(struct power_request *request)
{
	struct power_request **link = &request->owner->pending;

	while (*link && *link != request)
		link = &(*link)->next;
	if (*link)
		*link = request->next;
}

static void on_request_handle_closed(uv_handle_t *handle)
{
	struct power_request *request = handle->data;
	struct virtual_power *owner = request->owner;

	if (--request->open_handles > 0)
		return;
	free(request);
	owner->live_requests--;
	if (owner->closing && owner->live_requests == 0)
		free_virtual_power(owner);
}

static void finish_request(struct power_request *request, int status, const char *error_text)
{
	request->finished = true;
	unlink_request(request);
	uv_timer_stop(&request->timer);
	uv_close((uv_handle_t *)&request->pipe, on_request_handle_closed);
	uv_close((uv_handle_t *)&request->timer, on_request_handle_closed);
	request->callback(&request->owner->base, status, error_text, request->data);
}

static void fail_request(struct power_request *request, int status, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* Every error names the board and the switch, then says what went wrong. */
static void fail_request(struct power_request *request, int status, const char *format, ...)
{
	struct virtual_power *owner = request->owner;
	char text[ERROR_TEXT_SIZE];
	va_list arguments;
	int prefix;

	prefix = snprintf(text, sizeof(text), "board %s: power switch 'virtual' (control socket %s): ",
			  owner->board_name, owner->socket_path);
	if (prefix > 0 && (size_t)prefix < sizeof(text)) {
		va_start(arguments, format);
		vsnprintf(text + prefix, sizeof(text) - (size_t)prefix, format, arguments);
		va_end(arguments);
	}
	finish_request(request, status, text);
}

/* ---- the conversation: connect, one line out, one line back ---------------- */

static void handle_answer(struct power_request *request, char *line)
{
	size_t length = strlen(line);

	while (length && (line[length - 1] == '\r' || line[length - 1] == '\n'))
		line[--length] = '\0';
	if (strncmp(line, "ok", 2) == 0 && (line[2] == '\0' || line[2] == ' ')) {
		finish_request(request, 0, NULL);
		return;
	}
	if (strncmp(line, "error ", 6) == 0) {
		fail_request(request, -EIO, "the lab refused '%.*s': %s",
			     (int)strcspn(request->command, "\n"), request->command, line + 6);
		return;
	}
	fail_request(request, -EIO, "unexpected answer '%s' (expected 'ok STATE' or 'error TEXT')",
		     line);
}

static void on_answer_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct power_request *request = handle->data;

	(void)suggested;
	/* One byte is kept for the terminating NUL; a full buffer reads as ENOBUFS. */
	buffer->base = request->answer + request->answer_length;
	buffer->len = sizeof(request->answer) - 1 - request->answer_length;
}

static void on_answer_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct power_request *request = stream->data;
	char *newline;

	(void)buffer;
	if (request->finished || count == 0)
		return;
	if (count == UV_ENOBUFS) {
		fail_request(request, -EIO, "answer longer than %d bytes without a newline",
			     ANSWER_MAX - 1);
		return;
	}
	if (count < 0) {
		fail_request(request, -EIO, "the lab hung up without answering%s%.*s%s: %s",
			     request->answer_length ? " (partial answer '" : "",
			     (int)request->answer_length, request->answer,
			     request->answer_length ? "')" : "", uv_strerror((int)count));
		return;
	}
	request->answer_length += (size_t)count;
	request->answer[request->answer_length] = '\0';
	newline = memchr(request->answer, '\n', request->answer_length);
	if (newline) {
		*newline = '\0';
		handle_answer(request, request->answer);
	}
}

static void on_command_written(uv_write_t *write, int status)
{
	struct power_request *request = write->data;

	if (request->finished || status == 0)
		return;
	fail_request(request, -EIO, "cannot send '%.*s': %s",
		     (int)strcspn(request->command, "\n"), request->command, uv_strerror(status));
}

static void on_connected(uv_connect_t *connect, int status)
{
	struct power_request *request = connect->data;
	uv_buf_t buffer = uv_buf_init(request->command, (unsigned int)strlen(request->command));
	int rc;

	if (request->finished)
		return;		/* closed or timed out while connecting */
	/* No socket file, or a stale one nobody listens on: the lab is down. */
	if (status == UV_ENOENT || status == UV_ECONNREFUSED) {
		fail_request(request, -ECONNREFUSED,
			     "the virtual lab is not up (run: %s)", request->owner->lab_up_command);
		return;
	}
	if (status < 0) {
		fail_request(request, -EIO, "cannot connect: %s", uv_strerror(status));
		return;
	}
	rc = uv_read_start((uv_stream_t *)&request->pipe, on_answer_alloc, on_answer_read);
	if (!rc)
		rc = uv_write(&request->write, (uv_stream_t *)&request->pipe, &buffer, 1,
			      on_command_written);
	if (rc)
		fail_request(request, -EIO, "cannot send '%.*s': %s",
			     (int)strcspn(request->command, "\n"), request->command, uv_strerror(rc));
}

static void on_request_timeout(uv_timer_t *timer)
{
	struct power_request *request = timer->data;

	fail_request(request, -ETIMEDOUT, "no answer to '%.*s' within %llu ms",
		     (int)strcspn(request->command, "\n"), request->command,
		     (unsigned long long)request->timeout_ms);
}

/* ---- the ops ---------------------------------------------------------------- */

static int virtual_power_request(struct power *base, enum power_action action, uint64_t timeout_ms,
				 power_cb callback, void *data)
{
	struct virtual_power *power = virtual_power_of(base);
	struct power_request *request;
	int length;

	if (power->closing)
		return -ECANCELED;
	if (action != POWER_ON && action != POWER_OFF && action != POWER_CYCLE)
		return -EINVAL;
	request = calloc(1, sizeof(*request));
	if (!request)
		return -ENOMEM;
	length = snprintf(request->command, sizeof(request->command), "power %s %s\n",
			  power->board_name, power_action_name(action));
	if (length < 0 || (size_t)length >= sizeof(request->command)) {
		free(request);
		return -ENAMETOOLONG;
	}
	request->owner = power;
	request->timeout_ms = timeout_ms;
	request->callback = callback;
	request->data = data;
	uv_pipe_init(base->loop, &request->pipe, 0);
	uv_timer_init(base->loop, &request->timer);
	request->pipe.data = request;
	request->timer.data = request;
	request->connect.data = request;
	request->write.data = request;
	request->open_handles = 2;
	request->next = power->pending;
	power->pending = request;
	power->live_requests++;
	/* A failed connect is reported through on_connected on a later loop
	 * turn, so the callback never runs inside this call. */
	uv_pipe_connect(&request->connect, &request->pipe, power->socket_path, on_connected);
	if (timeout_ms)
		uv_timer_start(&request->timer, on_request_timeout, timeout_ms, 0);
	return 0;
}

static void virtual_power_close(struct power *base)
{
	struct virtual_power *power = virtual_power_of(base);

	power->closing = true;
	while (power->pending)
		fail_request(power->pending, -ECANCELED, "closed before the lab answered");
	if (power->live_requests == 0)
		free_virtual_power(power);
}

static int refuse_options(const struct lab_board *board, char *error, size_t error_len)
{
	const struct lab_driver_option *option = &board->power.options[0];
	char where[512];

	config_location_format(&option->where, where, sizeof(where));
	snprintf(error, error_len,
		 "%s: board '%s': power driver 'virtual': unknown option '%s' (it takes none)",
		 where, board->name, option->name);
	return -EINVAL;
}

/* The supervisor splits its line on white space: a name with any would
 * switch another board, or none. */
static bool board_name_fits_one_word(const char *name)
{
	return *name && strcspn(name, " \t\r\n") == strlen(name);
}

/* What starts this lab, with the same --state, so the hint finds this socket. */
static char *lab_up_command(const struct driver_context *context)
{
	const char *state = context->state_option;
	char *command = NULL;

	if (asprintf(&command, "rackbisect lab up %s%s%s", context->lab->path,
		     state && *state ? " --state " : "", state && *state ? state : "") < 0)
		return NULL;
	return command;
}

static int virtual_power_create(const struct driver_context *context, struct power **power_out,
				char *error, size_t error_len)
{
	const struct lab_board *board = context->board;
	struct virtual_power *power;
	struct lab_state state;
	int rc;

	if (board->power.option_count)
		return refuse_options(board, error, error_len);
	if (!board_name_fits_one_word(board->name)) {
		snprintf(error, error_len, "board '%s': power driver 'virtual': a board name "
			 "must be one word for the lab's control socket", board->name);
		return -EINVAL;
	}
	rc = lab_state_locate(context->lab, context->state_option, &state);
	if (rc) {
		snprintf(error, error_len, "board %s: power driver 'virtual': cannot locate lab %s's "
			 "state directory (give --state DIR, or set HOME): %s", board->name,
			 context->lab->name, strerror(-rc));
		return rc;
	}
	/* A longer path would be cut short by the socket address and name
	 * another file; the lab cannot have bound it either. */
	if (strlen(state.control_socket) >= UNIX_PATH_MAX) {
		snprintf(error, error_len, "board %s: power driver 'virtual': the control socket "
			 "path %s is longer than a unix socket allows (%zu bytes): use a shorter "
			 "--state directory", board->name, state.control_socket, UNIX_PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	power = calloc(1, sizeof(*power));
	if (!power || !(power->board_name = strdup(board->name)) ||
	    !(power->lab_up_command = lab_up_command(context))) {
		if (power)
			free_virtual_power(power);
		return -ENOMEM;
	}
	memcpy(power->socket_path, state.control_socket, strlen(state.control_socket) + 1);
	power->base.ops = &virtual_power_ops;
	power->base.loop = context->loop;
	*power_out = &power->base;
	return 0;
}

const struct power_ops virtual_power_ops = {
	.name = "virtual",
	.create = virtual_power_create,
	.request = virtual_power_request,
	.close = virtual_power_close,
};
