/*
 * tcp.c - following a console on a raw or telnet TCP stream (see tcp.h).
 *
 * One connection at a time. When it drops or cannot be made, the handle is
 * closed and, retry_ms later, a fresh one is tried: always after a pause,
 * because a console server that accepts and hangs up at once (ser2net with
 * its port taken says "Port already in use" and closes) must not make us
 * spin. An outage is reported once, however many attempts it lasts.
 */
#include "console/tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A console server that never answers a SYN would otherwise hold one
 * attempt for the kernel's two minutes. */
#define CONNECT_TIMEOUT_MS 10000
/* A console is quiet for hours; keepalives notice a vanished server. */
#define KEEPALIVE_DELAY_SECONDS 30
#define EVENT_TEXT_SIZE 768
#define ADDRESS_TEXT_SIZE (INET6_ADDRSTRLEN + 16)

enum connection_state {
	CONNECTION_NONE,		/* not started, or closed */
	CONNECTION_WAITING,		/* the timer will start the next attempt */
	CONNECTION_CONNECTING,		/* the timer is the connect timeout */
	CONNECTION_FOLLOWING,
	CONNECTION_DROPPING,		/* the handle is closing; then WAITING */
};

/* Telnet (RFC 854) as ser2net's telnet accepter speaks it: a command starts
 * with IAC; a data byte 0xff comes doubled. */
enum telnet_byte { TELNET_SE = 240, TELNET_SB = 250, TELNET_WILL = 251, TELNET_WONT = 252,
		   TELNET_DO = 253, TELNET_DONT = 254, TELNET_IAC = 255 };

enum telnet_state {
	TELNET_DATA,
	TELNET_COMMAND,		/* after IAC */
	TELNET_OPTION,		/* after IAC WILL/WONT/DO/DONT: the option byte */
	TELNET_SUBNEGOTIATION,	/* after IAC SB, until IAC SE */
	TELNET_SUBNEGOTIATION_IAC,
};

struct tcp_console {
	struct console base;
	bool telnet;			/* protocol: telnet */
	enum telnet_state telnet_state;	/* of the current connection */
	unsigned char telnet_verb;
	/* options refused on this connection, [0] offered (WILL), [1] asked
	 * for (DO), a bit each */
	unsigned char telnet_refused[2][32];
	char *board_name;
	struct sockaddr_storage address;
	char address_text[ADDRESS_TEXT_SIZE];	/* "192.0.2.10:3001", "[2001:db8::1]:3001" */
	uint64_t retry_ms;
	console_data_cb data_cb;
	console_event_cb event_cb;
	void *data;
	enum connection_state state;
	uv_tcp_t tcp;			/* initialised afresh for each attempt */
	bool tcp_open;
	uv_connect_t connect;
	uv_timer_t timer;
	int open_handles;		/* freed when the last one closes after close() */
	bool outage_reported;		/* LOST said for the current outage */
	bool closing;
	char read_buffer[65536];
};

static void on_attempt_timer(uv_timer_t *timer);

static struct tcp_console *tcp_console_of(struct console *console)
{
	return (struct tcp_console *)console;
}

static void free_tcp_console(struct tcp_console *console)
{
	free(console->board_name);
	free(console);
}

/* ---- events ---------------------------------------------------------------- */

static void report(struct tcp_console *console, enum console_event event, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* "board vb01: console 127.77.0.1:7000: " + what happened. */
static void report(struct tcp_console *console, enum console_event event, const char *format, ...)
{
	char text[EVENT_TEXT_SIZE];
	va_list arguments;
	int prefix;

	if (console->closing)
		return;
	prefix = snprintf(text, sizeof(text), "board %s: console %s: ", console->board_name,
			  console->address_text);
	if (prefix > 0 && (size_t)prefix < sizeof(text)) {
		va_start(arguments, format);
		vsnprintf(text + prefix, sizeof(text) - (size_t)prefix, format, arguments);
		va_end(arguments);
	}
	console->event_cb(&console->base, event, text, console->data);
}

/* ---- the connection's life ------------------------------------------------- */

/* After close(), the console goes with its last handle. */
static void release_handle(struct tcp_console *console)
{
	console->open_handles--;
	if (console->closing && console->open_handles == 0)
		free_tcp_console(console);
}

static void on_timer_closed(uv_handle_t *handle)
{
	release_handle(handle->data);
}

static void on_tcp_closed(uv_handle_t *handle)
{
	struct tcp_console *console = handle->data;
	bool closing = console->closing;

	console->tcp_open = false;
	release_handle(console);
	if (closing)
		return;		/* possibly freed */
	console->state = CONNECTION_WAITING;
	uv_timer_start(&console->timer, on_attempt_timer, console->retry_ms, 0);
}

/* Closes the connection; the next attempt follows retry_ms after it has
 * closed. The event comes last: its callback may close the console. */
static void drop_connection(struct tcp_console *console, bool was_following, int status)
{
	bool first_of_outage = !console->outage_reported || was_following;

	console->state = CONNECTION_DROPPING;
	console->outage_reported = true;
	uv_timer_stop(&console->timer);
	uv_close((uv_handle_t *)&console->tcp, on_tcp_closed);
	if (!first_of_outage)
		return;
	if (was_following)
		report(console, CONSOLE_LOST, "connection lost (%s); reconnecting every %llu ms",
		       status == UV_EOF ? "the server closed it" : uv_strerror(status),
		       (unsigned long long)console->retry_ms);
	else
		report(console, CONSOLE_LOST, "cannot connect (%s); retrying every %llu ms",
		       uv_strerror(status), (unsigned long long)console->retry_ms);
}

static void on_console_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct tcp_console *console = handle->data;

	(void)suggested;
	buffer->base = console->read_buffer;
	buffer->len = sizeof(console->read_buffer);
}

static void on_reply_written(uv_write_t *write, int status)
{
	(void)status;	/* a lost reply: the connection's end says more */
	free(write);
}

/* We refuse every option the server offers or asks for (DONT to WILL, WONT
 * to DO): a console needs none, and the server then sends plain data.
 * Each option once per connection: a refusal does not change the option's
 * state, and RFC 1143 answers no request that leaves it unchanged. So a
 * peer that floods WILL/DO and never reads gets 512 replies at most (1.5
 * KiB), not one per request (2 GB in 9 s before). */
static void refuse_option(struct tcp_console *console, unsigned char verb, unsigned char option)
{
	struct reply {
		uv_write_t write;
		unsigned char bytes[3];
	} *reply;
	unsigned char *refused, bit = (unsigned char)(1u << (option % 8));
	uv_buf_t buffer;

	if (verb != TELNET_WILL && verb != TELNET_DO)
		return;	/* WONT and DONT need no answer */
	refused = &console->telnet_refused[verb == TELNET_DO][option / 8];
	if (*refused & bit)
		return;
	*refused |= bit;
	if (!(reply = malloc(sizeof(*reply))))
		return;
	reply->bytes[0] = TELNET_IAC;
	reply->bytes[1] = verb == TELNET_WILL ? TELNET_DONT : TELNET_WONT;
	reply->bytes[2] = option;
	buffer = uv_buf_init((char *)reply->bytes, sizeof(reply->bytes));
	if (uv_write(&reply->write, (uv_stream_t *)&console->tcp, &buffer, 1, on_reply_written))
		free(reply);
}

/* Strips the telnet commands from bytes, in place; returns the data left. */
static size_t telnet_data(struct tcp_console *console, unsigned char *bytes, size_t count)
{
	size_t in, out = 0;

	for (in = 0; in < count; in++) {
		unsigned char byte = bytes[in];

		switch (console->telnet_state) {
		case TELNET_DATA:
			if (byte == TELNET_IAC)
				console->telnet_state = TELNET_COMMAND;
			else
				bytes[out++] = byte;
			break;
		case TELNET_COMMAND:
			console->telnet_state = TELNET_DATA;
			if (byte == TELNET_IAC) {
				bytes[out++] = byte;	/* a doubled 0xff is one data byte */
			} else if (byte >= TELNET_WILL) {
				console->telnet_verb = byte;
				console->telnet_state = TELNET_OPTION;
			} else if (byte == TELNET_SB) {
				console->telnet_state = TELNET_SUBNEGOTIATION;
			}	/* NOP, GA, BRK...: nothing to keep */
			break;
		case TELNET_OPTION:
			refuse_option(console, console->telnet_verb, byte);
			console->telnet_state = TELNET_DATA;
			break;
		case TELNET_SUBNEGOTIATION:
			if (byte == TELNET_IAC)
				console->telnet_state = TELNET_SUBNEGOTIATION_IAC;
			break;
		case TELNET_SUBNEGOTIATION_IAC:
			console->telnet_state = byte == TELNET_SE ? TELNET_DATA : TELNET_SUBNEGOTIATION;
			break;
		}
	}
	return out;
}

static void on_console_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct tcp_console *console = stream->data;
	size_t length = (size_t)count;

	if (console->closing || count == 0)
		return;
	if (count < 0) {
		drop_connection(console, true, (int)count);
		return;
	}
	if (console->telnet)
		length = telnet_data(console, (unsigned char *)buffer->base, length);
	if (length)
		console->data_cb(&console->base, buffer->base, length, console->data);
}

static void on_connected(uv_connect_t *connect, int status)
{
	struct tcp_console *console = connect->data;
	int rc;

	/* Cancelled by close() or by the connect timeout: already handled. */
	if (console->closing || console->state != CONNECTION_CONNECTING)
		return;
	if (status < 0) {
		drop_connection(console, false, status);
		return;
	}
	uv_timer_stop(&console->timer);
	uv_tcp_keepalive(&console->tcp, 1, KEEPALIVE_DELAY_SECONDS);
	rc = uv_read_start((uv_stream_t *)&console->tcp, on_console_alloc, on_console_read);
	if (rc) {
		drop_connection(console, false, rc);
		return;
	}
	console->state = CONNECTION_FOLLOWING;
	console->telnet_state = TELNET_DATA;
	memset(console->telnet_refused, 0, sizeof(console->telnet_refused));
	console->outage_reported = false;
	report(console, CONSOLE_CONNECTED, "connected");
}

static void on_connect_timeout(uv_timer_t *timer)
{
	drop_connection(timer->data, false, UV_ETIMEDOUT);
}

static void start_attempt(struct tcp_console *console)
{
	int rc;

	uv_tcp_init(console->base.loop, &console->tcp);
	console->tcp.data = console;
	console->tcp_open = true;
	console->open_handles++;
	console->state = CONNECTION_CONNECTING;
	uv_timer_start(&console->timer, on_connect_timeout, CONNECT_TIMEOUT_MS, 0);
	rc = uv_tcp_connect(&console->connect, &console->tcp,
			    (const struct sockaddr *)&console->address, on_connected);
	if (rc)
		drop_connection(console, false, rc);
}

/* uv_timer_cb takes the timer; start_attempt takes the console. */
static void on_attempt_timer(uv_timer_t *timer)
{
	start_attempt(timer->data);
}

/* ---- the ops ----------------------------------------------------------------- */

static int tcp_console_start(struct console *base, uint64_t retry_ms, console_data_cb data_cb,
			     console_event_cb event_cb, void *data)
{
	struct tcp_console *console = tcp_console_of(base);

	if (console->closing)
		return -ECANCELED;
	if (console->state != CONNECTION_NONE)
		return -EBUSY;
	console->retry_ms = retry_ms ? retry_ms : 1;
	console->data_cb = data_cb;
	console->event_cb = event_cb;
	console->data = data;
	/* The first attempt starts on the loop, so no callback runs in here. */
	console->state = CONNECTION_WAITING;
	uv_timer_start(&console->timer, on_attempt_timer, 0, 0);
	return 0;
}

static void tcp_console_close(struct console *base)
{
	struct tcp_console *console = tcp_console_of(base);

	if (console->closing)
		return;
	console->closing = true;
	console->state = CONNECTION_NONE;
	if (console->tcp_open && !uv_is_closing((uv_handle_t *)&console->tcp))
		uv_close((uv_handle_t *)&console->tcp, on_tcp_closed);
	uv_close((uv_handle_t *)&console->timer, on_timer_closed);
}

/* ---- options ----------------------------------------------------------------- */

/* "file:line:col: board 'x': console driver 'tcp': " + what is wrong. */
#define option_error(driver_name, board, ...) \
	driver_option_error(board, "console", driver_name, __VA_ARGS__)

/* Numeric IPv4 or IPv6 into `address`, and its "host:port" text. */
static int parse_address(const char *host, unsigned int port, struct sockaddr_storage *address,
			 char *text, size_t text_len)
{
	struct sockaddr_in *ipv4 = (struct sockaddr_in *)address;
	struct sockaddr_in6 *ipv6 = (struct sockaddr_in6 *)address;

	memset(address, 0, sizeof(*address));
	if (uv_ip4_addr(host, (int)port, ipv4) == 0) {
		snprintf(text, text_len, "%s:%u", host, port);
		return 0;
	}
	if (uv_ip6_addr(host, (int)port, ipv6) == 0) {
		snprintf(text, text_len, "[%s]:%u", host, port);
		return 0;
	}
	return -EINVAL;
}

/* The console's host: its own option, else the board's transport host. */
/* The host (default: the transport's) and whether the stream is telnet. */
static int read_options(const char *driver_name, const struct lab_board *board, const char **host,
			const struct config_location **where, bool *telnet, char *error,
			size_t error_len)
{
	const struct lab_driver *driver = &board->console;
	size_t i;

	*host = board->host;
	*where = &driver->where;
	*telnet = false;
	for (i = 0; i < driver->option_count; i++) {
		const struct lab_driver_option *option = &driver->options[i];
		bool is_protocol = strcmp(option->name, "protocol") == 0;

		if (strcmp(option->name, "host") != 0 && !is_protocol)
			return option_error(driver_name, board, &option->where, error, error_len,
					    "unknown option '%s' (known: driver, port, host, protocol)",
					    option->name);
		if (is_protocol) {
			if (option->is_list || option->value_count != 1 ||
			    (strcmp(option->values[0], "raw") && strcmp(option->values[0], "telnet")))
				return option_error(driver_name, board, &option->where, error, error_len,
						    "protocol is raw (the default) or telnet, as "
						    "ser2net's accepter says");
			*telnet = strcmp(option->values[0], "telnet") == 0;
			continue;
		}
		if (option->is_list || option->value_count != 1)
			return option_error(driver_name, board, &option->where, error, error_len,
					    "host must be one numeric address, e.g. host: 192.0.2.10");
		*host = option->values[0];
		*where = &option->where;
	}
	return 0;
}

static int create_console(const struct console_ops *ops, const struct driver_context *context,
			  struct console **console_out, char *error, size_t error_len)
{
	const struct lab_board *board = context->board;
	const struct config_location *host_where;
	struct tcp_console *console;
	const char *host;
	bool telnet;
	int rc;

	rc = read_options(ops->name, board, &host, &host_where, &telnet, error, error_len);
	if (rc)
		return rc;
	if (board->console_port == 0)
		return option_error(ops->name, board, &board->console.where, error, error_len,
				    "needs a port (console: {driver: %s, port: N})", ops->name);
	console = calloc(1, sizeof(*console));
	if (!console)
		return -ENOMEM;
	if (!host || parse_address(host, board->console_port, &console->address,
				   console->address_text, sizeof(console->address_text))) {
		free(console);
		return option_error(ops->name, board, host_where, error, error_len,
				    "host '%s' must be a numeric IPv4 or IPv6 address "
				    "(console: {host: 192.0.2.10})", host ? host : "");
	}
	if (!(console->board_name = strdup(board->name))) {
		free(console);
		return -ENOMEM;
	}
	console->base.ops = ops;
	console->base.loop = context->loop;
	console->telnet = telnet;
	uv_timer_init(context->loop, &console->timer);
	console->timer.data = console;
	console->connect.data = console;
	console->open_handles = 1;
	*console_out = &console->base;
	return 0;
}

static int tcp_console_create(const struct driver_context *context, struct console **console_out,
			      char *error, size_t error_len)
{
	return create_console(&tcp_console_ops, context, console_out, error, error_len);
}

static int virtual_console_create(const struct driver_context *context,
				  struct console **console_out, char *error, size_t error_len)
{
	return create_console(&virtual_console_ops, context, console_out, error, error_len);
}

const struct console_ops tcp_console_ops = {
	.name = "tcp",
	.create = tcp_console_create,
	.start = tcp_console_start,
	.close = tcp_console_close,
};

const struct console_ops virtual_console_ops = {
	.name = "virtual",
	.create = virtual_console_create,
	.start = tcp_console_start,
	.close = tcp_console_close,
};
