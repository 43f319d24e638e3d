/* qemu.c - a QEMU machine's power through QMP (see qemu.h). */
#include "power/qemu.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <jansson.h>

#define DRIVER "qemu"
#define LINE_MAX_BYTES 65536	/* QEMU's greeting and answers are a few hundred bytes */
#define BUSY_RETRY_MS 50	/* between connects while QEMU's backlog is full */

struct qmp_request;

struct qemu_power {
	struct power base;
	char board_name[256];
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	/* In the order they were made; only the first talks to QEMU, so an
	 * off then an on end with the machine on. */
	struct qmp_request *pending;
	bool closing;
};

enum qmp_stage { QMP_GREETING, QMP_CAPABILITIES, QMP_COMMANDS };

struct qmp_request {
	struct qemu_power *power;	/* NULL once finished */
	struct qmp_request *next;
	enum power_action action;
	power_cb callback;
	void *data;
	const char *const *commands;	/* NULL-terminated; commands[step] is in flight */
	size_t step;
	enum qmp_stage stage;
	uint64_t timeout_ms;		/* for the message */
	bool started;			/* its turn came: connecting or connected */
	bool found_busy;		/* a connect found QEMU's backlog full */
	bool pipe_open;			/* between uv_pipe_init and its close callback */
	uv_pipe_t pipe;
	uv_connect_t connect;
	uv_timer_t timer;		/* the request's timeout */
	uv_timer_t retry;		/* the next connect while QEMU is busy */
	int open_handles;
	char *line;			/* what arrived, up to its newline */
	size_t line_used;
};

static const char *const off_commands[] = { "stop", "system_reset", NULL };
static const char *const on_commands[] = { "cont", NULL };
static const char *const cycle_commands[] = { "stop", "system_reset", "cont", NULL };

static const char *const *commands_of(enum power_action action)
{
	return action == POWER_OFF ? off_commands : action == POWER_ON ? on_commands : cycle_commands;
}

static void connect_to_qemu(struct qmp_request *request);

/* ---- ending a request ------------------------------------------------------------------- */

static void on_retry(uv_timer_t *timer)
{
	struct qmp_request *request = timer->data;

	if (request->power)
		connect_to_qemu(request);
}

static void on_handle_closed(uv_handle_t *handle)
{
	struct qmp_request *request = handle->data;

	if (handle == (uv_handle_t *)&request->pipe) {
		request->pipe_open = false;
		/* closed by on_connected to try again, the request still waiting */
		if (request->power)
			uv_timer_start(&request->retry, on_retry, BUSY_RETRY_MS, 0);
	}
	if (--request->open_handles == 0) {
		free(request->line);
		free(request);
	}
}

/* The first waiting request's turn, unless close() is ending them all. */
static void start_first(struct qemu_power *power)
{
	if (!power->closing && power->pending && !power->pending->started) {
		power->pending->started = true;
		connect_to_qemu(power->pending);
	}
}

static void unlink_request(struct qmp_request *request)
{
	struct qmp_request **link;

	for (link = &request->power->pending; *link; link = &(*link)->next)
		if (*link == request) {
			*link = request->next;
			return;
		}
}

/*
 * The callback runs once; the next request starts before it (the callback
 * may close the instance) and this one's handles close after it.
 */
static void finish(struct qmp_request *request, int status, const char *detail)
{
	struct qemu_power *power = request->power;
	char text[1024];

	if (!power)
		return;
	unlink_request(request);
	request->power = NULL;
	start_first(power);
	if (status)
		snprintf(text, sizeof(text), "board %s: power switch '%s' (QMP socket %s): %s: %s",
			 power->board_name, DRIVER, power->socket_path,
			 power_action_name(request->action), detail ? detail : strerror(-status));
	request->callback(&power->base, status, status ? text : NULL, request->data);
	uv_close((uv_handle_t *)&request->timer, on_handle_closed);
	uv_close((uv_handle_t *)&request->retry, on_handle_closed);
	/* a pipe closing already is on its way to a retry, which now will not come */
	if (request->pipe_open && !uv_is_closing((uv_handle_t *)&request->pipe))
		uv_close((uv_handle_t *)&request->pipe, on_handle_closed);
}

static void on_timeout(uv_timer_t *timer)
{
	struct qmp_request *request = timer->data;
	unsigned long long timeout_ms = request->timeout_ms;
	char detail[256];

	if (!request->started)
		snprintf(detail, sizeof(detail), "still waiting after %llu ms for the requests made "
			 "before it to this QEMU", timeout_ms);
	else if (request->found_busy && request->stage == QMP_GREETING)
		snprintf(detail, sizeof(detail), "the QMP socket was busy for %llu ms: another client "
			 "is connected to it (QEMU serves one at a time)", timeout_ms);
	else if (request->stage == QMP_GREETING)
		/* QEMU serves one QMP connection at a time: another client
		 * holding it looks exactly like a hung QEMU. */
		snprintf(detail, sizeof(detail), "QEMU did not answer in time: no greeting within %llu ms "
			 "(is the board's QEMU hung, or another client holding its QMP socket?)", timeout_ms);
	else
		snprintf(detail, sizeof(detail), "QEMU did not answer %s within %llu ms (is the board's QEMU hung?)",
			 request->stage == QMP_CAPABILITIES ? "qmp_capabilities"
							    : request->commands[request->step], timeout_ms);
	finish(request, -ETIMEDOUT, detail);
}

/* ---- the conversation --------------------------------------------------------------------- */

/* One command on its way: libuv holds the buffer until the write completes,
 * and may not have run the previous write's callback yet when QEMU's answer
 * to it leads to the next, so each write has its own. */
struct qmp_write {
	uv_write_t write;
	struct qmp_request *request;
	char line[64];
};

static void on_written(uv_write_t *write, int status)
{
	struct qmp_write *sent = write->data;

	/* ECANCELED: the request finished and closed its pipe first */
	if (status && status != UV_ECANCELED)
		finish(sent->request, -EIO, uv_strerror(status));
	free(sent);
}

/* Sends {"execute": NAME}; NAME is one of ours, never a lab file's word. */
static void send_command(struct qmp_request *request, const char *name)
{
	struct qmp_write *sent = calloc(1, sizeof(*sent));
	uv_buf_t buffer;
	int rc;

	if (!sent) {
		finish(request, -ENOMEM, NULL);
		return;
	}
	sent->request = request;
	sent->write.data = sent;
	snprintf(sent->line, sizeof(sent->line), "{\"execute\": \"%s\"}\n", name);
	buffer = uv_buf_init(sent->line, (unsigned int)strlen(sent->line));
	rc = uv_write(&sent->write, (uv_stream_t *)&request->pipe, &buffer, 1, on_written);
	if (rc) {
		free(sent);
		finish(request, -EIO, uv_strerror(rc));
	}
}

/* One JSON line from QEMU: the greeting, an answer, or an event to skip. */
static void handle_message(struct qmp_request *request, const char *text)
{
	json_t *message = json_loads(text, 0, NULL);
	json_t *error = message ? json_object_get(message, "error") : NULL;
	char detail[512];

	if (!json_is_object(message)) {
		snprintf(detail, sizeof(detail), "not QMP: %.200s", text);
		finish(request, -EIO, detail);
	} else if (json_object_get(message, "event")) {
		/* STOP, RESET, RESUME...: what our own commands cause */
	} else if (request->stage == QMP_GREETING && json_object_get(message, "QMP")) {
		request->stage = QMP_CAPABILITIES;
		send_command(request, "qmp_capabilities");
	} else if (error) {
		snprintf(detail, sizeof(detail), "QMP %s failed: %s",
			 request->stage == QMP_COMMANDS ? request->commands[request->step]
							: "qmp_capabilities",
			 json_string_value(json_object_get(error, "desc")) ?: "(no description)");
		finish(request, -EIO, detail);
	} else if (json_object_get(message, "return")) {
		if (request->stage == QMP_COMMANDS)
			request->step++;
		request->stage = QMP_COMMANDS;
		if (request->commands[request->step])
			send_command(request, request->commands[request->step]);
		else
			finish(request, 0, NULL);
	}
	json_decref(message);
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct qmp_request *request = handle->data;

	(void)suggested;
	buffer->base = request->line + request->line_used;
	buffer->len = LINE_MAX_BYTES - 1 - request->line_used;
}

static void on_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct qmp_request *request = stream->data;
	char *newline;

	(void)buffer;
	if (count < 0) {
		finish(request, -EIO, count == UV_EOF ? "QEMU closed the connection"
						      : uv_strerror((int)count));
		return;
	}
	request->line_used += (size_t)count;
	request->line[request->line_used] = '\0';
	while (request->power && (newline = strchr(request->line, '\n'))) {
		*newline = '\0';
		handle_message(request, request->line);
		request->line_used -= (size_t)(newline + 1 - request->line);
		memmove(request->line, newline + 1, request->line_used + 1);
	}
	if (request->power && request->line_used >= LINE_MAX_BYTES - 1)
		finish(request, -EIO, "a QMP message longer than 64 KiB");
}

static void on_connected(uv_connect_t *connect, int status)
{
	struct qmp_request *request = connect->data;
	int rc;

	if (!request->power)
		return;		/* finished while connecting (the pipe closed: UV_ECANCELED) */
	if (status == UV_EAGAIN) {
		/* QEMU serves one client and the kernel keeps two more waiting
		 * (QEMU listens with a backlog of 1); ours take turns, so
		 * others are there. Again, until the timeout. */
		request->found_busy = true;
		uv_close((uv_handle_t *)&request->pipe, on_handle_closed);
		return;
	}
	if (status) {
		/* No socket file, or a stale one QEMU left when it ended: the
		 * board's QEMU is not running, as a PDU that is not there. */
		if (status == UV_ENOENT || status == UV_ECONNREFUSED)
			finish(request, -ECONNREFUSED,
			       status == UV_ENOENT ? "no such socket: connection refused "
			       "(is the board's QEMU running, started with -qmp unix:PATH,server=on,wait=off?)"
			       : "connection refused: nothing listens on it (is the board's QEMU running?)");
		else
			finish(request, -EIO, uv_strerror(status));
		return;
	}
	rc = uv_read_start((uv_stream_t *)&request->pipe, on_alloc, on_read);
	if (rc)
		finish(request, -EIO, uv_strerror(rc));
}

static void connect_to_qemu(struct qmp_request *request)
{
	uv_pipe_init(request->power->base.loop, &request->pipe, 0);
	request->pipe.data = request;
	request->pipe_open = true;
	request->open_handles++;
	request->line_used = 0;
	request->line[0] = '\0';
	uv_pipe_connect(&request->connect, &request->pipe, request->power->socket_path, on_connected);
}

static int qemu_request(struct power *base, enum power_action action, uint64_t timeout_ms,
			power_cb callback, void *data)
{
	struct qemu_power *power = (struct qemu_power *)base;
	struct qmp_request *request = calloc(1, sizeof(*request)), **last;

	if (!request || !(request->line = malloc(LINE_MAX_BYTES))) {
		free(request);
		return -ENOMEM;
	}
	request->power = power;
	request->action = action;
	request->callback = callback;
	request->data = data;
	request->commands = commands_of(action);
	request->timeout_ms = timeout_ms;
	uv_timer_init(base->loop, &request->timer);
	uv_timer_init(base->loop, &request->retry);
	request->timer.data = request->retry.data = request->connect.data = request;
	request->open_handles = 2;
	for (last = &power->pending; *last; last = &(*last)->next)
		;
	*last = request;
	/* the timeout counts from now: waiting for its turn is part of it */
	uv_timer_start(&request->timer, on_timeout, timeout_ms, 0);
	start_first(power);
	return 0;
}

/* Pending requests end -ECANCELED (their callbacks run), then the instance
 * goes; each request's handles close, and it is freed, after. */
static void qemu_close(struct power *base)
{
	struct qemu_power *power = (struct qemu_power *)base;

	power->closing = true;
	while (power->pending)
		finish(power->pending, -ECANCELED, "closed before QEMU answered");
	free(power);
}

/* ---- options --------------------------------------------------------------------------------- */

static int qemu_create(const struct driver_context *context, struct power **power_out,
		       char *error, size_t error_len)
{
	const struct lab_board *board = context->board;
	const struct lab_driver *driver = &board->power;
	const struct lab_driver_option *qmp = lab_driver_option(driver, "qmp");
	struct qemu_power *power;
	size_t i;

	for (i = 0; i < driver->option_count; i++) {
		const struct lab_driver_option *option = &driver->options[i];

		if (strcmp(option->name, "qmp") != 0)
			return power_option_error(board, DRIVER, &option->where, error, error_len,
						  "unknown option '%s' (known: qmp)", option->name);
		if (option->is_list || !option->values[0][0])
			return power_option_error(board, DRIVER, &option->where, error, error_len,
						  "qmp must be the path of QEMU's QMP socket");
	}
	if (!qmp)
		return power_option_error(board, DRIVER, &driver->where, error, error_len,
					  "needs qmp, the machine's QMP socket (QEMU's -qmp unix:PATH,server=on,wait=off)");
	if (!(power = calloc(1, sizeof(*power))))
		return -ENOMEM;
	if (lab_path(context->lab, qmp->values[0], power->socket_path, sizeof(power->socket_path))) {
		free(power);
		return power_option_error(board, DRIVER, &qmp->where, error, error_len,
					  "qmp: a unix socket path must be under %zu bytes",
					  sizeof(power->socket_path));
	}
	snprintf(power->board_name, sizeof(power->board_name), "%s", board->name);
	power->base.ops = &qemu_power_ops;
	power->base.loop = context->loop;
	*power_out = &power->base;
	return 0;
}

const struct power_ops qemu_power_ops = {
	.name = DRIVER,
	.create = qemu_create,
	.request = qemu_request,
	.close = qemu_close,
};
