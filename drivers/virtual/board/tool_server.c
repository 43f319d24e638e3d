/* tool_server.c - serves board tool requests (tool_protocol.h) on libuv. */
#include "virtual/board/tool_server.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "virtual/board/tool_protocol.h"

struct tool_session {
	uv_pipe_t pipe;
	struct tool_server *server;
	struct tool_session *next;
	char *input;
	size_t input_len;
	int answered;		/* the handler was called */
	int finished;		/* the exit frame was queued */
	struct tool_request request;
};

struct tool_server {
	uv_pipe_t listener;
	tool_handler handler;
	void *context;
	struct tool_session *sessions;
	int stopping;
};

struct frame_write {
	uv_write_t request;
	char *bytes;
};

static void free_request(struct tool_request *request)
{
	int i;

	for (i = 0; i < request->argc; i++)
		free(request->argv[i]);
	free(request->argv);
	free(request->cwd);
	memset(request, 0, sizeof(*request));
}

static void unlink_session(struct tool_session *session)
{
	struct tool_session **link = &session->server->sessions;

	while (*link && *link != session)
		link = &(*link)->next;
	if (*link)
		*link = session->next;
}

static void on_session_closed(uv_handle_t *handle)
{
	struct tool_session *session = handle->data;

	free_request(&session->request);
	free(session->input);
	free(session);
}

static void close_session(struct tool_session *session)
{
	if (uv_is_closing((uv_handle_t *)&session->pipe))
		return;
	unlink_session(session);
	uv_close((uv_handle_t *)&session->pipe, on_session_closed);
}

static void on_frame_written(uv_write_t *request, int status)
{
	struct frame_write *write = (struct frame_write *)request;

	(void)status;
	free(write->bytes);
	free(write);
}

static void on_exit_frame_written(uv_write_t *request, int status)
{
	struct tool_session *session = request->data;

	on_frame_written(request, status);
	close_session(session);
}

static void put_big_endian(unsigned char *at, uint32_t value)
{
	at[0] = (unsigned char)(value >> 24);
	at[1] = (unsigned char)(value >> 16);
	at[2] = (unsigned char)(value >> 8);
	at[3] = (unsigned char)value;
}

static void send_frame(struct tool_session *session, char type, const void *payload, size_t len,
		       uv_write_cb done)
{
	struct frame_write *write;
	uv_buf_t buf;

	if (uv_is_closing((uv_handle_t *)&session->pipe))
		return;
	write = calloc(1, sizeof(*write));
	if (!write || !(write->bytes = malloc(len + 5))) {
		free(write);
		close_session(session);
		return;
	}
	write->bytes[0] = type;
	put_big_endian((unsigned char *)write->bytes + 1, (uint32_t)len);
	memcpy(write->bytes + 5, payload, len);
	write->request.data = session;
	buf = uv_buf_init(write->bytes, (unsigned int)(len + 5));
	if (uv_write(&write->request, (uv_stream_t *)&session->pipe, &buf, 1, done) != 0) {
		free(write->bytes);
		free(write);
		close_session(session);
	}
}

void tool_session_write(struct tool_session *session, int fd, const char *data, size_t len)
{
	if (session->finished || len == 0)
		return;
	send_frame(session, fd == 2 ? TOOL_FRAME_STDERR : TOOL_FRAME_STDOUT, data, len,
		   on_frame_written);
}

void tool_session_finish(struct tool_session *session, int status)
{
	unsigned char payload[4];

	if (session->finished)
		return;
	session->finished = 1;
	put_big_endian(payload, (uint32_t)status);
	send_frame(session, TOOL_FRAME_EXIT, payload, sizeof(payload), on_exit_frame_written);
}

/* Reads "LEN\n" then LEN bytes at *offset. 1 parsed, 0 need more, <0 bad. */
static int parse_string(const char *input, size_t len, size_t *offset, char **out)
{
	const char *newline = memchr(input + *offset, '\n', len - *offset);
	char *end;
	unsigned long size;

	if (!newline)
		return len - *offset > 12 ? -EPROTO : 0;
	size = strtoul(input + *offset, &end, 10);
	if (end != newline || size > TOOL_MAX_ARG_LEN)
		return -EPROTO;
	if ((size_t)(newline + 1 - input) + size > len)
		return 0;
	*out = strndup(newline + 1, size);
	if (!*out)
		return -ENOMEM;
	*offset = (size_t)(newline + 1 - input) + size;
	return 1;
}

/* 1 when a whole request was parsed into session->request, 0 need more, <0 bad. */
static int parse_request(struct tool_session *session)
{
	const char *input = session->input;
	size_t len = session->input_len, offset = strlen(TOOL_PROTOCOL_MAGIC);
	struct tool_request request = { 0 };
	char *count_text = NULL;
	int rc, i;

	if (len < offset)
		return 0;
	if (memcmp(input, TOOL_PROTOCOL_MAGIC, offset) != 0)
		return -EPROTO;
	const char *newline = memchr(input + offset, '\n', len - offset);
	if (!newline)
		return 0;
	count_text = strndup(input + offset, (size_t)(newline - input) - offset);
	request.argc = count_text ? atoi(count_text) : -1;
	free(count_text);
	if (request.argc < 1 || request.argc > TOOL_MAX_ARGS)
		return -EPROTO;
	offset = (size_t)(newline + 1 - input);
	request.argv = calloc((size_t)request.argc + 1, sizeof(char *));
	if (!request.argv)
		return -ENOMEM;
	for (i = 0, rc = 1; i < request.argc && rc == 1; i++)
		rc = parse_string(input, len, &offset, &request.argv[i]);
	if (rc == 1)
		rc = parse_string(input, len, &offset, &request.cwd);
	if (rc == 1) {
		request.argc = i;
		session->request = request;
		return 1;
	}
	request.argc = i;
	free_request(&request);
	return rc;
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
	(void)handle;
	buf->base = malloc(suggested);
	buf->len = buf->base ? suggested : 0;
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct tool_session *session = stream->data;
	char *grown;
	int rc;

	if (nread < 0) {
		free(buf->base);
		if (!session->answered || session->finished)
			close_session(session);
		/* A session still running (or hung) keeps going: the peer merely
		 * stopped writing. */
		return;
	}
	if (session->answered) {
		free(buf->base);
		return;
	}
	grown = realloc(session->input, session->input_len + (size_t)nread);
	if (!grown) {
		free(buf->base);
		close_session(session);
		return;
	}
	memcpy(grown + session->input_len, buf->base, (size_t)nread);
	free(buf->base);
	session->input = grown;
	session->input_len += (size_t)nread;
	rc = parse_request(session);
	if (rc < 0) {
		close_session(session);
		return;
	}
	if (rc == 1) {
		session->answered = 1;
		session->server->handler(session->server->context, session, &session->request);
	}
}

static void on_connection(uv_stream_t *listener, int status)
{
	struct tool_server *server = listener->data;
	struct tool_session *session;

	if (status < 0)
		return;
	session = calloc(1, sizeof(*session));
	if (!session)
		return;
	session->server = server;
	uv_pipe_init(listener->loop, &session->pipe, 0);
	session->pipe.data = session;
	if (uv_accept(listener, (uv_stream_t *)&session->pipe) != 0) {
		uv_close((uv_handle_t *)&session->pipe, on_session_closed);
		return;
	}
	session->next = server->sessions;
	server->sessions = session;
	uv_read_start((uv_stream_t *)&session->pipe, on_alloc, on_read);
}

int tool_server_start(uv_loop_t *loop, const char *path, tool_handler handler, void *context,
		      struct tool_server **out)
{
	struct tool_server *server = calloc(1, sizeof(*server));
	int rc;

	if (!server)
		return -ENOMEM;
	/* A tool whose reader went away (`iw dev | awk '... exit'`) dies before
	 * its answer is all written: that is an EPIPE for its session, never a
	 * SIGPIPE that ends the whole board and every tool after it. */
	signal(SIGPIPE, SIG_IGN);
	server->handler = handler;
	server->context = context;
	uv_pipe_init(loop, &server->listener, 0);
	server->listener.data = server;
	unlink(path);
	rc = uv_pipe_bind(&server->listener, path);
	if (rc == 0)
		rc = uv_listen((uv_stream_t *)&server->listener, 128, on_connection);
	if (rc != 0) {
		uv_close((uv_handle_t *)&server->listener, (uv_close_cb)free);
		return rc;
	}
	*out = server;
	return 0;
}

void tool_server_end_sessions(struct tool_server *server)
{
	while (server->sessions)
		close_session(server->sessions);
}

static void on_listener_closed(uv_handle_t *handle)
{
	free(handle->data);
}

void tool_server_stop(struct tool_server *server)
{
	if (!server || server->stopping)
		return;
	server->stopping = 1;
	tool_server_end_sessions(server);
	uv_close((uv_handle_t *)&server->listener, on_listener_closed);
}
