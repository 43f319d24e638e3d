/*
 * tool_server.h - the board side of tool_protocol.h, on a libuv loop.
 *
 * One server per board socket. Each connection carries one tool run: the
 * server parses the request and calls the handler, which answers with
 * tool_session_write() and ends it with tool_session_finish(). A handler
 * may also do neither (the board's host hung): the session then stays open,
 * silent, until tool_server_end_sessions() (reboot, power off) or stop.
 */
#ifndef RB_TOOL_SERVER_H
#define RB_TOOL_SERVER_H

#include <stddef.h>
#include <uv.h>

struct tool_server;
struct tool_session;

struct tool_request {
	int argc;
	char **argv;		/* argv[0] is the tool's name */
	char *cwd;
};

typedef void (*tool_handler)(void *context, struct tool_session *session,
			     const struct tool_request *request);

/* Listens on a Unix socket at `path` (replacing a stale one). 0 or negative errno.
 * Ignores SIGPIPE from then on, in the whole process: a tool that hangs up
 * before its answer is written ends its own session, not the server. */
int tool_server_start(uv_loop_t *loop, const char *path, tool_handler handler, void *context,
		      struct tool_server **server);
/* Ends every open session at once, as a reboot ends SSH sessions. */
void tool_server_end_sessions(struct tool_server *server);
/* Closes the socket and every session; frees the server once libuv is done. */
void tool_server_stop(struct tool_server *server);

void tool_session_write(struct tool_session *session, int fd, const char *data, size_t len);
void tool_session_finish(struct tool_session *session, int status);

#endif
