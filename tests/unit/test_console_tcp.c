/*
 * The TCP console driver against console servers run by this test on its
 * own loop, on 127.77.6.10-127.77.6.14 (other tests use other addresses).
 * A server sends bytes, hangs up, accepts the reconnection and sends more,
 * as ser2net does across a board's reboot.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "helpers/loop_wait.h"
#include "config.h"
#include "console/tcp.h"

#define MAX_EVENTS 16
#define MAX_PEERS 4

struct capture {
	struct console *console;
	char *bytes;
	size_t length;
	size_t capacity;
	enum console_event events[MAX_EVENTS];
	char texts[MAX_EVENTS][768];
	size_t event_count;
	size_t expected_length;		/* done when this much arrived ... */
	size_t expected_events;		/* ... and this many events */
	bool close_on_first_data;
	bool closed;
	int calls_after_close;
};

struct server_peer {
	uv_tcp_t tcp;
	uv_write_t write;
	struct console_server *server;
	bool hang_up_after_write;
	char discard[256];
};

/* A console server: the n-th connection it accepts is sent chunks[n]. */
struct console_server {
	uv_tcp_t listener;
	bool listening;
	const char *chunks[MAX_PEERS];
	size_t chunk_lengths[MAX_PEERS];
	bool hang_up_after[MAX_PEERS];
	int accepted;
	int peers_open;
	int hang_ups_seen;		/* the client closed its side */
	unsigned char received[256];	/* what clients sent, all peers together */
	size_t received_length;
	size_t received_total;		/* all of it, also past received[] */
};

struct fixture {
	uv_loop_t loop;
	char directory[64];
	char lab_path[128];
	char error[2048];
	struct lab *lab;
	struct console_server server;
	struct capture capture;
};

/* ---- the loop ------------------------------------------------------------- */

static bool capture_complete(void *arg)
{
	struct capture *capture = arg;

	return capture->length >= capture->expected_length &&
	       capture->event_count >= capture->expected_events;
}

/* ---- fixture ---------------------------------------------------------------- */

static int setup(void **state)
{
	struct fixture *fixture = calloc(1, sizeof(*fixture));

	if (!fixture)
		return -1;
	*state = fixture;
	uv_loop_init(&fixture->loop);
	snprintf(fixture->directory, sizeof(fixture->directory), "/tmp/rackbisect-console-XXXXXX");
	if (!mkdtemp(fixture->directory))
		return -1;
	snprintf(fixture->lab_path, sizeof(fixture->lab_path), "%s/lab.yaml", fixture->directory);
	return 0;
}

static void stop_server(struct fixture *fixture);

static int teardown(void **state)
{
	struct fixture *fixture = *state;
	char command[128];
	int rc = 0;

	stop_server(fixture);
	/* Every handle the driver opened must close once it is closed. */
	if (!run_until(&fixture->loop, loop_idle, &fixture->loop, 5000) ||
	    uv_loop_close(&fixture->loop) != 0) {
		fprintf(stderr, "handles still open on the loop after the test\n");
		rc = -1;
	}
	lab_free(fixture->lab);
	free(fixture->capture.bytes);
	snprintf(command, sizeof(command), "rm -rf '%s'", fixture->directory);
	if (system(command) != 0)
		rc = -1;
	free(fixture);
	return rc;
}

static int load_lab(struct fixture *fixture, const char *text)
{
	FILE *file = fopen(fixture->lab_path, "w");

	assert_non_null(file);
	fputs(text, file);
	fclose(file);
	lab_free(fixture->lab);
	fixture->lab = NULL;
	return lab_load(fixture->lab_path, &fixture->lab, fixture->error, sizeof(fixture->error));
}

/* A lab of one board r1 on 127.77.6.10 whose console block is `console`. */
static int load_board_lab(struct fixture *fixture, const char *type, const char *console)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "name: consoles\n"
		 "type: %s\n"
		 "boards:\n"
		 "  - name: r1\n"
		 "    chip: ar9285\n"
		 "    transport: {host: 127.77.6.10}\n"
		 "    console: %s\n",
		 type, console);
	return load_lab(fixture, text);
}

static int create_console(struct fixture *fixture, const struct console_ops *ops,
			  struct console **console)
{
	struct driver_context context = {
		.loop = &fixture->loop,
		.lab = fixture->lab,
		.board = lab_find_board(fixture->lab, "r1"),
		.state_option = fixture->directory,
	};

	*console = NULL;
	return ops->create(&context, console, fixture->error, sizeof(fixture->error));
}

static struct console *console_for(struct fixture *fixture, const struct console_ops *ops,
				   const char *type, const char *console_block)
{
	struct console *console;

	if (load_board_lab(fixture, type, console_block))
		fail_msg("lab did not load: %s", fixture->error);
	if (create_console(fixture, ops, &console))
		fail_msg("create failed: %s", fixture->error);
	assert_ptr_equal(console->ops, ops);
	return console;
}

/* ---- what the driver hands us -------------------------------------------------- */

static void on_data(struct console *console, const char *bytes, size_t length, void *data)
{
	struct capture *capture = data;

	assert_ptr_equal(console, capture->console);
	if (capture->closed) {
		capture->calls_after_close++;
		return;
	}
	if (capture->length + length > capture->capacity) {
		size_t capacity = capture->capacity ? capture->capacity : 4096;

		while (capacity < capture->length + length)
			capacity *= 2;
		capture->bytes = realloc(capture->bytes, capacity);
		assert_non_null(capture->bytes);
		capture->capacity = capacity;
	}
	memcpy(capture->bytes + capture->length, bytes, length);
	capture->length += length;
	if (capture->close_on_first_data) {
		console->ops->close(console);
		capture->closed = true;
	}
}

static void on_event(struct console *console, enum console_event event, const char *text,
		     void *data)
{
	struct capture *capture = data;

	assert_ptr_equal(console, capture->console);
	if (capture->closed) {
		capture->calls_after_close++;
		return;
	}
	assert_true(capture->event_count < MAX_EVENTS);
	capture->events[capture->event_count] = event;
	snprintf(capture->texts[capture->event_count], sizeof(capture->texts[0]), "%s", text);
	capture->event_count++;
}

static void start_console(struct fixture *fixture, struct console *console, uint64_t retry_ms)
{
	struct capture *capture = &fixture->capture;

	capture->console = console;
	assert_int_equal(console->ops->start(console, retry_ms, on_data, on_event, capture), 0);
	assert_int_equal(capture->event_count, 0);	/* nothing runs inside start */
}

static void close_console(struct capture *capture)
{
	if (capture->closed)
		return;
	capture->console->ops->close(capture->console);
	capture->closed = true;
}

/* ---- a console server ---------------------------------------------------------- */

static void on_peer_closed(uv_handle_t *handle)
{
	struct server_peer *peer = handle->data;

	peer->server->peers_open--;
	free(peer);
}

static void close_peer(struct server_peer *peer)
{
	if (!uv_is_closing((uv_handle_t *)&peer->tcp))
		uv_close((uv_handle_t *)&peer->tcp, on_peer_closed);
}

static void on_peer_written(uv_write_t *write, int status)
{
	struct server_peer *peer = write->data;

	(void)status;
	if (peer->hang_up_after_write)
		close_peer(peer);
}

static void on_peer_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct server_peer *peer = handle->data;

	(void)suggested;
	buffer->base = peer->discard;
	buffer->len = sizeof(peer->discard);
}

static void on_peer_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct server_peer *peer = stream->data;
	struct console_server *server = peer->server;

	if (count > 0)
		server->received_total += (size_t)count;
	if (count > 0 && server->received_length + (size_t)count <= sizeof(server->received)) {
		memcpy(server->received + server->received_length, buffer->base, (size_t)count);
		server->received_length += (size_t)count;
	}
	if (count >= 0)
		return;
	peer->server->hang_ups_seen++;
	close_peer(peer);
}

static void on_connection(uv_stream_t *listener, int status)
{
	struct console_server *server = listener->data;
	struct server_peer *peer;
	int index = server->accepted;

	assert_int_equal(status, 0);
	peer = calloc(1, sizeof(*peer));
	assert_non_null(peer);
	peer->server = server;
	uv_tcp_init(listener->loop, &peer->tcp);
	peer->tcp.data = peer;
	server->peers_open++;
	assert_int_equal(uv_accept(listener, (uv_stream_t *)&peer->tcp), 0);
	server->accepted++;
	uv_read_start((uv_stream_t *)&peer->tcp, on_peer_alloc, on_peer_read);
	if (index >= MAX_PEERS || !server->chunks[index])
		return;
	uv_buf_t chunk = uv_buf_init((char *)server->chunks[index],
				     (unsigned int)server->chunk_lengths[index]);
	peer->hang_up_after_write = server->hang_up_after[index];
	peer->write.data = peer;
	assert_int_equal(uv_write(&peer->write, (uv_stream_t *)&peer->tcp, &chunk, 1,
				  on_peer_written), 0);
}

static void start_server(struct fixture *fixture, const char *address, int port)
{
	struct console_server *server = &fixture->server;
	struct sockaddr_in bind_address;

	assert_int_equal(uv_ip4_addr(address, port, &bind_address), 0);
	uv_tcp_init(&fixture->loop, &server->listener);
	server->listener.data = server;
	assert_int_equal(uv_tcp_bind(&server->listener, (const struct sockaddr *)&bind_address, 0), 0);
	assert_int_equal(uv_listen((uv_stream_t *)&server->listener, 8, on_connection), 0);
	server->listening = true;
}

/* Closes the listener; peers close when the driver hangs up. */
static void stop_server(struct fixture *fixture)
{
	struct console_server *server = &fixture->server;

	if (server->listening)
		uv_close((uv_handle_t *)&server->listener, NULL);
	server->listening = false;
}

/* "line 0\r\nline 1\r\n..." from `first`, `count` lines: ordered, easy to diff. */
static char *console_lines(int first, int count, size_t *length)
{
	size_t capacity = (size_t)count * 80 + 1, used = 0;
	char *text = malloc(capacity);
	int i;

	assert_non_null(text);
	for (i = first; i < first + count; i++)
		used += (size_t)snprintf(text + used, capacity - used,
					 "[%8d.000000] ath9k: line %d of the console\r\n", i, i);
	*length = used;
	return text;
}

/* ---- tests ------------------------------------------------------------------- */

static void test_console_follows_across_a_dropped_connection(void **state)
{
	struct fixture *fixture = *state;
	struct console_server *server = &fixture->server;
	struct capture *capture = &fixture->capture;
	size_t first_length, second_length;
	char *first = console_lines(0, 4000, &first_length);	/* ~190 kB: many reads */
	char *second = console_lines(4000, 50, &second_length);
	struct console *console;

	console = console_for(fixture, &tcp_console_ops, "ssh", "{driver: tcp, port: 7000}");
	server->chunks[0] = first;
	server->chunk_lengths[0] = first_length;
	server->hang_up_after[0] = true;	/* ser2net restarting, a board rebooting */
	server->chunks[1] = second;
	server->chunk_lengths[1] = second_length;
	start_server(fixture, "127.77.6.10", 7000);
	start_console(fixture, console, 50);

	capture->expected_length = first_length + second_length;
	capture->expected_events = 3;
	assert_true(run_until(&fixture->loop, capture_complete, capture, 10000));
	/* every byte sent, in order, nothing twice */
	assert_int_equal(capture->length, first_length + second_length);
	assert_memory_equal(capture->bytes, first, first_length);
	assert_memory_equal(capture->bytes + first_length, second, second_length);
	assert_int_equal(capture->event_count, 3);
	assert_int_equal(capture->events[0], CONSOLE_CONNECTED);
	assert_int_equal(capture->events[1], CONSOLE_LOST);
	assert_int_equal(capture->events[2], CONSOLE_CONNECTED);
	assert_string_equal(capture->texts[0], "board r1: console 127.77.6.10:7000: connected");
	assert_contains(capture->texts[1], "board r1: console 127.77.6.10:7000: connection lost");
	assert_contains(capture->texts[1], "reconnecting every 50 ms");
	assert_int_equal(server->accepted, 2);

	/* quiet but connected: no more events */
	run_until(&fixture->loop, never, NULL, 200);
	assert_int_equal(capture->event_count, 3);
	close_console(capture);
	free(first);
	free(second);
}

static bool connected(void *arg)
{
	struct capture *capture = arg;

	return capture->event_count > 0 &&
	       capture->events[capture->event_count - 1] == CONSOLE_CONNECTED;
}

static void test_console_reports_an_outage_once_and_retries_until_a_server_appears(void **state)
{
	struct fixture *fixture = *state;
	struct console_server *server = &fixture->server;
	struct capture *capture = &fixture->capture;
	static const char banner[] = "U-Boot 2012.04 (board r1)\r\n";
	struct console *console;

	console = console_for(fixture, &tcp_console_ops, "ssh",
			      "{driver: tcp, port: 7001, host: 127.77.6.11}");
	start_console(fixture, console, 20);
	/* ~25 refused attempts */
	run_until(&fixture->loop, never, NULL, 500);
	assert_int_equal(capture->event_count, 1);
	assert_int_equal(capture->events[0], CONSOLE_LOST);
	assert_contains(capture->texts[0], "board r1: console 127.77.6.11:7001: cannot connect");
	assert_contains(capture->texts[0], "retrying every 20 ms");

	server->chunks[0] = banner;
	server->chunk_lengths[0] = strlen(banner);
	start_server(fixture, "127.77.6.11", 7001);
	assert_true(run_until(&fixture->loop, connected, capture, 5000));
	capture->expected_length = strlen(banner);
	assert_true(run_until(&fixture->loop, capture_complete, capture, 5000));
	assert_int_equal(capture->event_count, 2);
	assert_int_equal(capture->events[1], CONSOLE_CONNECTED);
	assert_int_equal(capture->length, strlen(banner));
	assert_memory_equal(capture->bytes, banner, strlen(banner));
	close_console(capture);
}

static bool telnet_answered(void *arg)
{
	struct fixture *fixture = arg;

	return capture_complete(&fixture->capture) && fixture->server.received_length >= 6;
}

/* ser2net's telnet accepter: option offers first, 0xff doubled in data, a
 * subnegotiation; the capture holds the data alone and every offer and
 * request is refused (DONT ECHO, WONT SGA). */
static void test_telnet_console_keeps_the_data_and_refuses_every_option(void **state)
{
	struct fixture *fixture = *state;
	static const char sent[] = "\xff\xfb\x01\xff\xfd\x03" "boot: \xff\xff ok\r\n"
				   "\xff\xfa\x18\x01\xff\xf0" "\xff\xf1" "login: \r\n";
	static const char data[] = "boot: \xff ok\r\nlogin: \r\n";
	static const unsigned char refusals[] = { 0xff, 0xfe, 0x01, 0xff, 0xfc, 0x03 };
	struct capture *capture = &fixture->capture;
	struct console *console;

	console = console_for(fixture, &tcp_console_ops, "ssh",
			      "{driver: tcp, port: 7002, protocol: telnet}");
	fixture->server.chunks[0] = sent;
	fixture->server.chunk_lengths[0] = sizeof(sent) - 1;
	start_server(fixture, "127.77.6.10", 7002);
	start_console(fixture, console, 50);
	capture->expected_length = sizeof(data) - 1;
	capture->expected_events = 1;
	assert_true(run_until(&fixture->loop, telnet_answered, fixture, 10000));
	assert_int_equal(capture->length, sizeof(data) - 1);
	assert_memory_equal(capture->bytes, data, sizeof(data) - 1);
	assert_int_equal(fixture->server.received_length, sizeof(refusals));
	assert_memory_equal(fixture->server.received, refusals, sizeof(refusals));
	close_console(capture);
}

/* A peer that floods option requests (and never reads what we send): each
 * option is refused once per connection, so what we queue stays bounded.
 * Before, every IAC WILL/DO queued a reply: 2 GB in 9 s. */
static void test_telnet_option_flood_is_answered_once_per_option(void **state)
{
	struct fixture *fixture = *state;
	static const char tail[] = "login: \r\n";
	static const unsigned char refusals[] = { 0xff, 0xfe, 0x01, 0xff, 0xfc, 0x03 };
	struct capture *capture = &fixture->capture;
	struct console *console;
	size_t repeats = 50000, i, length = repeats * 6 + sizeof(tail) - 1;
	char *flood = malloc(length);

	assert_non_null(flood);
	for (i = 0; i < repeats; i++)
		memcpy(flood + i * 6, "\xff\xfb\x01\xff\xfd\x03", 6);
	memcpy(flood + repeats * 6, tail, sizeof(tail) - 1);
	console = console_for(fixture, &tcp_console_ops, "ssh",
			      "{driver: tcp, port: 7002, protocol: telnet}");
	fixture->server.chunks[0] = flood;
	fixture->server.chunk_lengths[0] = length;
	start_server(fixture, "127.77.6.10", 7002);
	start_console(fixture, console, 50);
	capture->expected_length = sizeof(tail) - 1;
	capture->expected_events = 1;
	assert_true(run_until(&fixture->loop, telnet_answered, fixture, 10000));
	/* what else might still arrive has had its chance */
	run_until(&fixture->loop, never, NULL, 200);
	assert_memory_equal(capture->bytes, tail, sizeof(tail) - 1);
	assert_int_equal(fixture->server.received_total, sizeof(refusals));
	assert_memory_equal(fixture->server.received, refusals, sizeof(refusals));
	close_console(capture);
	free(flood);
}

static void test_virtual_console_is_the_same_stream(void **state)
{
	struct fixture *fixture = *state;
	struct console_server *server = &fixture->server;
	struct capture *capture = &fixture->capture;
	static const char line[] = "[    0.000000] Linux version 3.3.1-rc1\r\n";
	struct console *console;

	/* a virtual lab's board: console driver defaults to virtual, host to the transport's */
	console = console_for(fixture, &virtual_console_ops, "virtual", "{port: 7002}");
	assert_string_equal(fixture->lab->boards[0].console.name, "virtual");
	assert_string_equal(console->ops->name, "virtual");
	server->chunks[0] = line;
	server->chunk_lengths[0] = strlen(line);
	start_server(fixture, "127.77.6.10", 7002);
	start_console(fixture, console, 50);
	capture->expected_length = strlen(line);
	capture->expected_events = 1;
	assert_true(run_until(&fixture->loop, capture_complete, capture, 5000));
	assert_memory_equal(capture->bytes, line, strlen(line));
	assert_int_equal(capture->events[0], CONSOLE_CONNECTED);
	close_console(capture);
}

static bool server_saw_hang_up(void *arg)
{
	return ((struct console_server *)arg)->hang_ups_seen > 0;
}

static void test_console_close_stops_callbacks_at_once(void **state)
{
	struct fixture *fixture = *state;
	struct console_server *server = &fixture->server;
	struct capture *capture = &fixture->capture;
	size_t length;
	char *flood = console_lines(0, 20000, &length);	/* ~1 MB: many reads pending */
	struct console *console;

	/* closed from inside its own data callback */
	console = console_for(fixture, &tcp_console_ops, "ssh",
			      "{driver: tcp, port: 7003, host: 127.77.6.12}");
	server->chunks[0] = flood;
	server->chunk_lengths[0] = length;
	start_server(fixture, "127.77.6.12", 7003);
	capture->close_on_first_data = true;
	start_console(fixture, console, 50);
	assert_true(run_until(&fixture->loop, server_saw_hang_up, server, 5000));
	run_until(&fixture->loop, never, NULL, 100);
	assert_true(capture->closed);
	assert_true(capture->length > 0 && capture->length < length);
	assert_int_equal(capture->calls_after_close, 0);
	free(flood);
}

static void test_console_close_while_connecting_or_before_start(void **state)
{
	struct fixture *fixture = *state;
	struct capture *capture = &fixture->capture;
	struct console *console;

	/* never started */
	console = console_for(fixture, &tcp_console_ops, "ssh",
			      "{driver: tcp, port: 7004, host: 127.77.6.13}");
	console->ops->close(console);
	assert_true(run_until(&fixture->loop, loop_idle, &fixture->loop, 2000));

	/* closed during its first attempt, with nothing listening */
	console = console_for(fixture, &tcp_console_ops, "ssh",
			      "{driver: tcp, port: 7004, host: 127.77.6.13}");
	start_console(fixture, console, 20);
	uv_run(&fixture->loop, UV_RUN_NOWAIT);
	close_console(capture);
	run_until(&fixture->loop, never, NULL, 200);
	assert_int_equal(capture->calls_after_close, 0);
}

/* The error is exactly "<lab file>:line:col: board 'r1': console driver 'NAME': words". */
static void assert_console_refused(struct fixture *fixture, const char *console_block, int column,
				   const char *words)
{
	struct console *console;
	char expected[1024];

	if (load_board_lab(fixture, "ssh", console_block))
		fail_msg("lab did not load: %s", fixture->error);
	assert_int_equal(create_console(fixture, &tcp_console_ops, &console), -EINVAL);
	assert_null(console);
	snprintf(expected, sizeof(expected), "%s:7:%d: board 'r1': console driver 'tcp': %s",
		 fixture->lab_path, column, words);
	assert_string_equal(fixture->error, expected);
}

static void test_console_refuses_bad_options(void **state)
{
	struct fixture *fixture = *state;
	struct console *console;

	/* "    console: " is 13 columns: the block starts at 14 */
	assert_console_refused(fixture, "{driver: tcp}", 14,
			       "needs a port (console: {driver: tcp, port: N})");
	assert_console_refused(fixture, "{driver: tcp, port: 7000, baud: 115200}", 46,
			       "unknown option 'baud' (known: driver, port, host, protocol)");
	assert_console_refused(fixture, "{driver: tcp, port: 7000, protocol: rfc2217}", 50,
			       "protocol is raw (the default) or telnet, as ser2net's accepter says");
	assert_console_refused(fixture, "{driver: tcp, port: 7000, host: [a, b]}", 46,
			       "host must be one numeric address, e.g. host: 192.0.2.10");
	assert_console_refused(fixture, "{driver: tcp, port: 7000, host: ser2net.lab}", 46,
			       "host 'ser2net.lab' must be a numeric IPv4 or IPv6 address "
			       "(console: {host: 192.0.2.10})");

	/* the transport's host is the default, and is named where it is used */
	assert_int_equal(load_lab(fixture, "name: consoles\n"
					   "type: ssh\n"
					   "boards:\n"
					   "  - name: r1\n"
					   "    chip: ar9285\n"
					   "    transport: {host: rack1.example}\n"
					   "    console: {driver: tcp, port: 7000}\n"), 0);
	assert_int_equal(create_console(fixture, &tcp_console_ops, &console), -EINVAL);
	assert_contains(fixture->error, ":7:14: board 'r1': console driver 'tcp': host "
					"'rack1.example' must be a numeric");

	/* IPv6 is fine */
	assert_int_equal(load_board_lab(fixture, "ssh", "{driver: tcp, port: 7000, host: '::1'}"),
			 0);
	assert_int_equal(create_console(fixture, &tcp_console_ops, &console), 0);
	console->ops->close(console);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_telnet_console_keeps_the_data_and_refuses_every_option, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_telnet_option_flood_is_answered_once_per_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_console_follows_across_a_dropped_connection,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_console_reports_an_outage_once_and_retries_until_a_server_appears,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_virtual_console_is_the_same_stream, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_console_close_stops_callbacks_at_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_console_close_while_connecting_or_before_start,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_console_refuses_bad_options, setup, teardown),
	};

	/* A peer hanging up mid-write must be an error code, not the end of us. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
