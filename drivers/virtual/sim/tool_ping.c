/*
 * tool_ping.c - iputils ping (20221126): ICMP echo through the card to the
 * AP's address, with iputils' options, output, statistics and exit codes.
 * It needs -c or -w: a ping without an end would never return here.
 */
#include "virtual/sim/tools.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtual/sim/board.h"

#define DEFAULT_PAYLOAD 56
#define DEFAULT_LINGER_MS 10000		/* MAXWAIT */
#define FLOOD_INTERVAL_MS 10		/* MININTERVAL */
#define TIMEVAL_BYTES 16		/* payload needed for timing */

struct ping_options {
	long count;		/* 0: until the deadline */
	long interval_ms;
	long linger_ms;
	long deadline_s;	/* 0: none */
	long payload;
	int quiet;
	const char *target;
};

struct ping_session {
	struct tool_context *tool;
	const struct ping_options *options;
	uint64_t *sent_at_us;	/* by sequence number */
	unsigned char *answered;
	size_t capacity;
	long transmitted, received;
	long long rtt_sum, rtt_sum2;
	long rtt_min, rtt_max;
	long in_flight_max;
};

/* ---- option parsing (iputils' messages) -------------------------------------- */

static int invalid_long(struct tool_context *tool, const char *text, long min, long max,
			long *value)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (!*text || errno || *end) {
		tool_printf(tool, 2, "ping: invalid argument: '%s'%s%s\n", text,
			    errno ? ": " : "", errno ? strerror(errno) : "");
		return 1;
	}
	if (v < min || v > max) {
		tool_printf(tool, 2, "ping: invalid argument: '%s': out of range: %ld <= value <= %ld\n",
			    text, min, max);
		return 1;
	}
	*value = v;
	return 0;
}

/* ping_strtod(): garbage only warns; a non-finite value is an error. */
static int parse_seconds(struct tool_context *tool, const char *text, const char *what,
			 double *value)
{
	char *end;

	errno = 0;
	*value = strtod(text, &end);
	if (!*text || errno || *end) {
		tool_printf(tool, 2, "ping: option argument contains garbage: %s\n", end);
		tool_printf(tool, 2, "ping: this will become fatal error in the future\n");
	}
	if (!isfinite(*value)) {
		tool_printf(tool, 2, "ping: %s: %s: %s\n", what, text, strerror(ERANGE));
		return 2;
	}
	if (*value < 0 || *value > (double)INT_MAX / 1000) {
		tool_printf(tool, 2, "ping: %s: %s\n", what, text);
		return 2;
	}
	return 0;
}

static void print_usage(struct tool_context *tool)
{
	tool_printf(tool, 2,
		    "\nUsage\n"
		    "  ping [options] <destination>\n"
		    "\nOptions:\n"
		    "  <destination>      dns name or ip address\n"
		    "  -c <count>         stop after <count> replies\n"
		    "  -i <interval>      seconds between sending each packet\n"
		    "  -n                 no dns name resolution\n"
		    "  -q                 quiet output\n"
		    "  -s <size>          use <size> as number of data bytes to be sent\n"
		    "  -w <deadline>      reply wait <deadline> in seconds\n"
		    "  -W <timeout>       time to wait for response\n"
		    "\nFor more details see ping(8).\n");
}

static int option_value(struct tool_context *tool, struct ping_options *options, char option,
			const char *value)
{
	double seconds;
	int r;

	switch (option) {
	case 'c':
		return invalid_long(tool, value, 1, LONG_MAX, &options->count);
	case 's':
		return invalid_long(tool, value, 0, INT_MAX, &options->payload);
	case 'w':
		return invalid_long(tool, value, 0, INT_MAX, &options->deadline_s);
	case 'i':
		r = parse_seconds(tool, value, "bad timing interval", &seconds);
		options->interval_ms = (long)(seconds * 1000);
		return r;
	case 'W':
		r = parse_seconds(tool, value, "bad linger time", &seconds);
		options->linger_ms = (long)(seconds * 1000);
		return r;
	default:
		return 2;
	}
}

/* getopt("c:i:s:w:W:qn4v")-like, with clustered flags and attached values. */
static int parse_options(struct tool_context *tool, int argc, char **argv,
			 struct ping_options *options)
{
	int i;

	*options = (struct ping_options){
		.interval_ms = 1000, .linger_ms = DEFAULT_LINGER_MS, .payload = DEFAULT_PAYLOAD,
	};
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (arg[0] != '-' || !arg[1]) {
			if (options->target) {
				print_usage(tool);
				return 2;
			}
			options->target = arg;
			continue;
		}
		for (arg++; *arg; arg++) {
			const char *value;
			int r;

			if (strchr("qn4vA", *arg)) {
				options->quiet |= *arg == 'q';
				continue;
			}
			if (!strchr("cisWw", *arg)) {
				tool_printf(tool, 2, "ping: invalid option -- '%c'\n", *arg);
				print_usage(tool);
				return 2;
			}
			value = arg[1] ? arg + 1 : (i + 1 < argc ? argv[++i] : NULL);
			if (!value) {
				tool_printf(tool, 2, "ping: option requires an argument -- '%c'\n", *arg);
				print_usage(tool);
				return 2;
			}
			r = option_value(tool, options, *arg, value);
			if (r)
				return r;
			break;
		}
	}
	return 0;
}

static int numeric_ipv4(const char *text)
{
	unsigned int a, b, c, d;
	char tail;

	return sscanf(text, "%3u.%3u.%3u.%3u%c", &a, &b, &c, &d, &tail) == 4 &&
	       a < 256 && b < 256 && c < 256 && d < 256;
}

/* ---- the session ------------------------------------------------------------- */

static void print_time(struct tool_context *tool, long us)
{
	/* iputils' precision steps */
	if (us >= 100000 - 50)
		tool_printf(tool, 1, " time=%ld ms", (us + 500) / 1000);
	else if (us >= 10000 - 5)
		tool_printf(tool, 1, " time=%ld.%01ld ms", (us + 50) / 1000, ((us + 50) % 1000) / 100);
	else if (us >= 1000)
		tool_printf(tool, 1, " time=%ld.%02ld ms", (us + 5) / 1000, ((us + 5) % 1000) / 10);
	else
		tool_printf(tool, 1, " time=%ld.%03ld ms", us / 1000, us % 1000);
}

static void on_echo_reply(void *arg, unsigned int sequence)
{
	struct ping_session *session = arg;
	struct tool_context *tool = session->tool;
	const struct ping_options *options = session->options;
	long rtt, in_flight;

	if (sequence == 0 || sequence > (unsigned long)session->transmitted ||
	    session->answered[sequence])
		return;
	session->answered[sequence] = 1;
	session->received++;
	rtt = (long)(tool->board->now_us - session->sent_at_us[sequence]);
	session->rtt_sum += rtt;
	session->rtt_sum2 += (long long)rtt * rtt;
	if (session->received == 1 || rtt < session->rtt_min)
		session->rtt_min = rtt;
	if (rtt > session->rtt_max)
		session->rtt_max = rtt;
	in_flight = session->transmitted - (long)sequence + 1;
	if (in_flight > session->in_flight_max)
		session->in_flight_max = in_flight;
	if (options->quiet)
		return;
	tool_printf(tool, 1, "%ld bytes from %s: icmp_seq=%u ttl=64", options->payload + 8,
		    options->target, sequence);
	if (options->payload >= TIMEVAL_BYTES)
		print_time(tool, rtt);
	tool_printf(tool, 1, "\n");
}

static int grow_session(struct ping_session *session, size_t need)
{
	size_t capacity = session->capacity ? session->capacity : 64;
	uint64_t *sent;
	unsigned char *answered;

	if (need < session->capacity)
		return 0;
	while (capacity <= need)
		capacity *= 2;
	sent = realloc(session->sent_at_us, capacity * sizeof(*sent));
	if (!sent)
		return -ENOMEM;
	session->sent_at_us = sent;
	answered = realloc(session->answered, capacity);
	if (!answered)
		return -ENOMEM;
	memset(answered + session->capacity, 0, capacity - session->capacity);
	session->answered = answered;
	session->capacity = capacity;
	return 0;
}

static int send_request(struct ping_session *session)
{
	struct sim_board *board = session->tool->board;
	long sequence = session->transmitted + 1;

	if (grow_session(session, (size_t)sequence) < 0)
		return -ENOMEM;
	session->sent_at_us[sequence] = board->now_us;
	session->transmitted = sequence;
	station_send_echo_request(board, (unsigned int)sequence, (unsigned int)session->options->payload,
				  ap_is_own_address(&board->ap, session->options->target));
	return 0;
}

static int all_replies_in(struct sim_board *board, void *arg)
{
	struct ping_session *session = arg;

	(void)board;
	return session->options->count && session->received >= session->options->count;
}

/* __schedule_exit(): after the last request, wait twice the worst RTT (at
 * least one interval), or the linger time if nothing came back yet. */
static uint64_t exit_wait_us(const struct ping_session *session)
{
	const struct ping_options *options = session->options;
	uint64_t wait;

	if (!session->received)
		return (uint64_t)options->linger_ms * 1000;
	wait = 2 * (uint64_t)session->rtt_max;
	if (wait < (uint64_t)options->interval_ms * 1000)
		wait = (uint64_t)options->interval_ms * 1000;
	return wait;
}

static int run_session(struct ping_session *session, uint64_t *last_send_us)
{
	struct tool_context *tool = session->tool;
	struct sim_board *board = tool->board;
	const struct ping_options *options = session->options;
	uint64_t start = board->now_us, next_send = start, exit_at = UINT64_MAX;
	uint64_t deadline = options->deadline_s ? start + (uint64_t)options->deadline_s * 1000000 :
				UINT64_MAX;
	uint64_t interval = (uint64_t)(options->interval_ms ? options->interval_ms :
				       FLOOD_INTERVAL_MS) * 1000;

	*last_send_us = start;
	for (;;) {
		int sending = !options->count || session->transmitted < options->count;
		uint64_t until;
		int r;

		if (all_replies_in(board, session) || board->now_us >= deadline)
			return 0;
		if (sending && board->now_us >= next_send) {
			if (send_request(session) < 0)
				return -ENOMEM;
			*last_send_us = board->now_us;
			next_send += interval;
			if (options->count && session->transmitted == options->count)
				exit_at = board->now_us + exit_wait_us(session);
			continue;
		}
		if (!sending && board->now_us >= exit_at)
			return 0;
		until = sending ? next_send : exit_at;
		if (until > deadline)
			until = deadline;
		r = tool_run(tool, until, all_replies_in, session);
		if (r == SIM_TOOL_HUNG)
			return r;
	}
}

static long square_root(long long a)
{
	long long previous = LLONG_MAX, x = a;

	if (x > 0) {
		while (x < previous) {
			previous = x;
			x = (x + (a / x)) / 2;
		}
	}
	return (long)x;
}

static void print_statistics(struct ping_session *session, uint64_t elapsed_us)
{
	struct tool_context *tool = session->tool;
	long total = session->received;

	tool_printf(tool, 1, "\n--- %s ping statistics ---\n", session->options->target);
	tool_printf(tool, 1, "%ld packets transmitted, %ld received", session->transmitted,
		    session->received);
	if (session->transmitted)
		tool_printf(tool, 1, ", %g%% packet loss, time %ldms",
			    (double)(float)((session->transmitted - session->received) * 100.0 /
					    session->transmitted),
			    (long)((elapsed_us + 500) / 1000));
	tool_printf(tool, 1, "\n");
	if (total && session->options->payload >= TIMEVAL_BYTES) {
		long long avg = session->rtt_sum / total;
		long long variance = (session->rtt_sum2 - (session->rtt_sum * session->rtt_sum) / total) /
				     total;
		long mdev = square_root(variance);

		tool_printf(tool, 1, "rtt min/avg/max/mdev = %ld.%03ld/%lld.%03lld/%ld.%03ld/%ld.%03ld ms",
			    session->rtt_min / 1000, session->rtt_min % 1000, avg / 1000, avg % 1000,
			    session->rtt_max / 1000, session->rtt_max % 1000, mdev / 1000, mdev % 1000);
		if (session->in_flight_max > 1)
			tool_printf(tool, 1, ", pipe %ld", session->in_flight_max);
	} else if (session->in_flight_max > 1) {
		tool_printf(tool, 1, "pipe %ld", session->in_flight_max);
	}
	tool_printf(tool, 1, "\n");
}

int tool_ping(struct tool_context *tool, int argc, char **argv)
{
	struct sim_board *board = tool->board;
	struct ping_options options;
	struct ping_session session = { .tool = tool, .options = &options };
	uint64_t start, last_send;
	int r;

	r = parse_options(tool, argc, argv, &options);
	if (r)
		return r;
	if (!options.target) {
		tool_printf(tool, 2, "ping: usage error: Destination address required\n");
		return 1;
	}
	if (!numeric_ipv4(options.target)) {
		tool_printf(tool, 2, "ping: %s: Name or service not known\n", options.target);
		return 2;
	}
	if (!options.count && !options.deadline_s) {
		tool_printf(tool, 2, "ping: the board simulator needs -c COUNT or -w DEADLINE\n");
		return 2;
	}
	if (!station_is_associated(&board->station)) {
		tool_printf(tool, 2, "ping: connect: Network is unreachable\n");
		return 2;
	}
	tool_printf(tool, 1, "PING %s (%s) %ld(%ld) bytes of data.\n", options.target,
		    options.target, options.payload, options.payload + 28);
	start = board->now_us;
	station_set_echo_listener(board, on_echo_reply, &session);
	r = run_session(&session, &last_send);
	station_set_echo_listener(board, NULL, NULL);
	if (r == 0)
		print_statistics(&session, last_send - start);
	free(session.sent_at_us);
	free(session.answered);
	if (r == SIM_TOOL_HUNG)
		return r;
	if (r < 0)
		return 2;
	return !session.received || (options.deadline_s && session.received < options.count);
}
