/* board.c - a lab board's drivers, shell access and console capture. */
#include "board.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lava/client.h"
#include "log.h"
#include "path.h"
#include "virtual/lab/lab_state.h"

#define CAPTURE_MAX_LINES 20000
#define CAPTURE_MAX_BYTES (8u << 20)
#define CONSOLE_RETRY_MS 1000
/* TCP, key exchange and authentication of one connection, from when its
 * handshake starts (BOARD_SET_HANDSHAKES_AT_ONCE): a board's sshd on a
 * loaded host took more than 10 s to authenticate. */
#define CONNECT_TIMEOUT_MS 30000

/* ---- console capture -------------------------------------------------------- */

static void capture_keep_line(struct console_capture *capture, const char *text, size_t length)
{
	char **grown;

	if (capture->line_count >= CAPTURE_MAX_LINES || capture->bytes + length > CAPTURE_MAX_BYTES) {
		capture->dropped_lines++;
		return;
	}
	/* doubled, not grown by one: 20,000 lines would copy the array 20,000 times */
	if (capture->line_count == capture->line_capacity) {
		size_t capacity = capture->line_capacity ? 2 * capture->line_capacity : 64;

		grown = realloc(capture->lines, capacity * sizeof(*grown));
		if (!grown) {
			capture->dropped_lines++;
			return;
		}
		capture->lines = grown;
		capture->line_capacity = capacity;
	}
	if (!(capture->lines[capture->line_count] = strndup(text, length))) {
		capture->dropped_lines++;
		return;
	}
	capture->line_count++;
	capture->bytes += length;
}

static void capture_end_line(struct console_capture *capture)
{
	size_t n = capture->partial_length;

	while (n && capture->partial[n - 1] == '\r')
		n--;
	capture_keep_line(capture, capture->partial, n);
	capture->partial_length = 0;
}

/* Serial consoles end lines with "\r\n"; an overlong line is cut, not lost.
 * A line at a time (memchr, memcpy), not a byte: a console printing without
 * end brings megabytes a second. */
static void capture_feed(struct console_capture *capture, const char *bytes, size_t length)
{
	const size_t full = sizeof(capture->partial) - 1;

	while (length) {
		size_t room = full - capture->partial_length;
		size_t span = length < room ? length : room;
		const char *newline = memchr(bytes, '\n', span);
		size_t taken = newline ? (size_t)(newline - bytes) : span;

		memcpy(capture->partial + capture->partial_length, bytes, taken);
		capture->partial_length += taken;
		bytes += taken;
		length -= taken;
		if (newline) {
			capture_end_line(capture);
			bytes++;
			length--;
		} else if (length) {
			/* the line is as long as it may be and goes on: cut it here */
			capture_end_line(capture);
			if (bytes[0] == '\n') {
				bytes++;
				length--;
			}
		}
	}
}

/* A line still waiting for its newline is kept as it is. */
static void capture_flush_partial(struct console_capture *capture)
{
	if (capture->partial_length) {
		capture_keep_line(capture, capture->partial, capture->partial_length);
		capture->partial_length = 0;
	}
}

int board_capture_start(struct board *board, const char *console_path)
{
	board_capture_reset(board);
	board->capture.file = fopen(console_path, "w");
	if (!board->capture.file)
		return -errno;
	if (!board->console_connected)
		board_capture_note(board, "console not connected at the start of the run");
	return 0;
}

void board_capture_note(struct board *board, const char *text)
{
	if (board->capture.file) {
		fprintf(board->capture.file, "\n[rackbisect: %s]\n", text);
		fflush(board->capture.file);
	}
}

void board_capture_hold_lines(struct board *board)
{
	capture_flush_partial(&board->capture);
	board->capture.lines_held = true;
}

void board_capture_stop(struct board *board)
{
	struct console_capture *capture = &board->capture;

	capture_flush_partial(capture);
	if (capture->file) {
		if (capture->dropped_lines)
			fprintf(capture->file, "\n[rackbisect: %zu console lines beyond the limit were "
				"written here but not matched]\n", capture->dropped_lines);
		if (capture->unwritten_bytes)
			fprintf(capture->file, "\n[rackbisect: the console printed %" PRIu64 " bytes more, "
				"not written: this file stops at %llu MiB]\n", capture->unwritten_bytes,
				BOARD_CAPTURE_MAX_FILE_BYTES >> 20);
		fclose(capture->file);
		capture->file = NULL;
	}
}

void board_capture_reset(struct board *board)
{
	struct console_capture *capture = &board->capture;
	size_t i;

	board_capture_stop(board);
	for (i = 0; i < capture->line_count; i++)
		free(capture->lines[i]);
	free(capture->lines);
	memset(capture, 0, sizeof(*capture));
}

static void on_console_data(struct console *console, const char *bytes, size_t length, void *data)
{
	struct board *board = data;
	struct console_capture *capture = &board->capture;
	uint64_t room;
	size_t written;

	(void)console;
	if (!capture->file)
		return;
	room = BOARD_CAPTURE_MAX_FILE_BYTES - capture->file_bytes;	/* file_bytes never passes it */
	written = length < room ? length : (size_t)room;
	if (written) {
		fwrite(bytes, 1, written, capture->file);
		fflush(capture->file);
		capture->file_bytes += written;
	}
	capture->unwritten_bytes += length - written;
	if (!capture->lines_held)
		capture_feed(capture, bytes, length);
}

static void on_console_event(struct console *console, enum console_event event, const char *text,
			     void *data)
{
	struct board *board = data;

	(void)console;
	board->console_connected = event == CONSOLE_CONNECTED;
	if (event == CONSOLE_LOST) {
		board->console_losses++;
		board_capture_note(board, text);
	}
	log_event(board->log, LOG_INFO, board->name, 0,
		  event == CONSOLE_CONNECTED ? "console-connected" : "console-lost", "%s", text);
}

/* ---- drivers ---------------------------------------------------------------- */

static int unknown_driver(const struct lab_board *config, const struct lab_driver *driver,
			  const char *kind, const char *known, char *error, size_t error_len)
{
	char where[512];

	config_location_format(&driver->where, where, sizeof(where));
	if (!driver->name)
		snprintf(error, error_len, "%s: board '%s' has no %s driver (%s: {driver: NAME}, "
			 "NAME one of: %s)", where, config->name, kind, kind, known);
	else
		snprintf(error, error_len, "%s: board '%s': unknown %s driver '%s' (known: %s)",
			 where, config->name, kind, driver->name, known);
	return -EINVAL;
}

static int open_drivers(struct board *board, const struct driver_context *context, char *error,
			size_t error_len)
{
	const struct lab_board *config = board->config;
	const struct power_ops *power = registry_power(config->power.name);
	const struct console_ops *console = registry_console(config->console.name);
	const struct boot_ops *boot = registry_boot(config->boot.name);
	char known[256];
	int rc;

	if (!power) {
		registry_power_names(known, sizeof(known));
		return unknown_driver(config, &config->power, "power", known, error, error_len);
	}
	if (!console) {
		registry_console_names(known, sizeof(known));
		return unknown_driver(config, &config->console, "console", known, error, error_len);
	}
	if (!boot) {
		registry_boot_names(known, sizeof(known));
		return unknown_driver(config, &config->boot, "boot", known, error, error_len);
	}
	if ((rc = power->create(context, &board->power, error, error_len)) ||
	    (rc = console->create(context, &board->console, error, error_len)) ||
	    (rc = boot->create(context, &board->boot, error, error_len)))
		return rc;
	return 0;
}

static int set_transport(struct board *board, const struct lab *lab, const struct lab_state *state)
{
	const struct lab_board *config = board->config;
	int rc = 0;

	rc = config->identity_file
		? lab_path(lab, config->identity_file, board->identity_file,
				   sizeof(board->identity_file))
		: path_format(board->identity_file, sizeof(board->identity_file), "%s",
			      state->client_key);
	if (!rc)
		rc = config->known_hosts_file
			? lab_path(lab, config->known_hosts_file, board->known_hosts_file,
					   sizeof(board->known_hosts_file))
			: path_format(board->known_hosts_file, sizeof(board->known_hosts_file), "%s",
				      state->known_hosts);
	board->transport_ops = registry_transport("ssh");
	board->transport_config = (struct transport_config){
		.board_name = config->name,
		.host = config->host,
		.port = config->port,
		.user = config->user,
		.identity_file = board->identity_file,
		.known_hosts_file = board->known_hosts_file,
		.connect_timeout_ms = CONNECT_TIMEOUT_MS,
		.keepalive_interval_ms = 5000,
	};
	return rc;
}

static int open_board(const struct board_set_options *options, const struct lab_state *state,
		      struct board *board, char *error, size_t error_len)
{
	struct driver_context context = { options->loop, options->lab, board->config,
					  options->state_option };
	int rc;

	board->name = board->config->name;
	board->loop = options->loop;
	board->log = options->log;
	if ((rc = set_transport(board, options->lab, state))) {
		snprintf(error, error_len, "board %s: identity or known_hosts path too long",
			 board->name);
		return rc;
	}
	if ((rc = open_drivers(board, &context, error, error_len)))
		return rc;
	return options->follow_consoles ? board_follow_console(board) : 0;
}

int board_follow_console(struct board *board)
{
	if (!board->console)
		return 0;	/* a LAVA lab's board: its console is each job's log */
	return board->console->ops->start(board->console, CONSOLE_RETRY_MS, on_console_data,
					  on_console_event, board);
}

/* LAVA owns these boards: each is a place in its queue, reached through one client. */
static int open_lava_boards(const struct board_set_options *options, struct board_set *set,
			    char *error, size_t error_len)
{
	size_t i;
	int rc;

	rc = lava_client_open(options->loop, options->lab, &set->lava_client, error, error_len);
	if (rc)
		return rc;
	set->boards = calloc(options->lab->board_count, sizeof(*set->boards));
	if (!set->boards) {
		lava_client_close(set->lava_client);
		set->lava_client = NULL;
		return -ENOMEM;
	}
	set->count = options->lab->board_count;
	for (i = 0; i < set->count; i++) {
		struct board *board = &set->boards[i];

		board->config = &options->lab->boards[i];
		board->name = board->config->name;
		board->loop = options->loop;
		board->log = options->log;
		board->lava = set->lava_client;
		board->lab = options->lab;
	}
	return 0;
}

int board_set_open(const struct board_set_options *options, struct board_set *set,
		   char *error, size_t error_len)
{
	struct lab_state state;
	size_t i;
	int rc;

	memset(set, 0, sizeof(*set));
	if (strcmp(options->lab->type, "lava") == 0)
		return open_lava_boards(options, set, error, error_len);
	rc = lab_state_locate(options->lab, options->state_option, &state);
	if (rc) {
		snprintf(error, error_len, "lab %s: cannot locate its state directory: %s",
			 options->lab->name, strerror(-rc));
		return rc;
	}
	set->boards = calloc(options->lab->board_count, sizeof(*set->boards));
	set->connect_limit = calloc(1, sizeof(*set->connect_limit));
	if (!set->boards || !set->connect_limit) {
		board_set_close(set);
		return -ENOMEM;
	}
	set->connect_limit->max = BOARD_SET_HANDSHAKES_AT_ONCE;
	set->count = options->lab->board_count;
	for (i = 0; i < set->count; i++) {
		set->boards[i].config = &options->lab->boards[i];
		rc = open_board(options, &state, &set->boards[i], error, error_len);
		if (rc) {
			board_set_close(set);
			return rc;
		}
		set->boards[i].transport_config.connect_limit = set->connect_limit;
	}
	return 0;
}

void board_set_close(struct board_set *set)
{
	size_t i;

	for (i = 0; i < set->count; i++) {
		struct board *board = &set->boards[i];

		board_capture_reset(board);
		if (board->console)
			board->console->ops->close(board->console);
		if (board->power)
			board->power->ops->close(board->power);
		if (board->boot)
			board->boot->ops->close(board->boot);
	}
	lava_client_close(set->lava_client);
	free(set->boards);
	free(set->connect_limit);
	memset(set, 0, sizeof(*set));
}

struct board *board_set_find(struct board_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->count; i++) {
		if (strcmp(set->boards[i].name, name) == 0)
			return &set->boards[i];
	}
	return NULL;
}

uint64_t board_power_timeout_ms(const struct board *board)
{
	unsigned int seconds = board->config->power_timeout_seconds;

	return (uint64_t)(seconds ? seconds : BOARD_POWER_TIMEOUT_SECONDS) * 1000;
}
