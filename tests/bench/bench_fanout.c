/*
 * bench_fanout: one command on many boards at once through rackbisect's own
 * transport, the way the coordinator reaches a lab: one uv loop, one SSH
 * transport per board, `uname -r` sent as soon as that board's session is up.
 *
 * A round is create + connect + exec + close on every board; its wall time
 * ends when the last transport is freed, as a parallel-ssh run ends when its
 * last ssh exits. Prints the median of the rounds and the coordinator's
 * memory: peak RSS (VmHWM) and, per board, the growth over the RSS measured
 * before the first connect. Fails only on errors (a board that does not
 * answer, a non-zero exit, empty output), never on speed.
 *
 * usage: bench_fanout LAB.yaml STATE_DIR [BOARDS [ROUNDS]]
 *   BOARDS: the first BOARDS boards of the lab (default: all); ROUNDS: 3.
 * Prints one line for run.sh:
 *   boards=N rounds=R median_seconds=S seconds=S1,S2,.. baseline_rss_kib=B
 *   peak_rss_kib=P per_board_kib=K
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <uv.h>

#include "config.h"
#include "transport/ssh.h"
#include "virtual/lab/lab_state.h"

#define MAX_ROUNDS 15
/* 256 handshakes at once on a two-CPU machine queue behind each other's key
 * exchange; the limit only has to catch a board that never answers. */
#define CONNECT_TIMEOUT_MS 60000
#define EXEC_TIMEOUT_MS 60000

struct fanout_round;

struct fanout_board {
	struct fanout_round *round;
	const struct lab_board *config;
	struct transport *transport;
};

struct fanout_round {
	uv_loop_t loop;
	const struct lab_state *state;
	struct fanout_board *boards;
	size_t board_count;
	size_t open_transports;
	size_t failures;
};

/* ---- memory: /proc/self/status ------------------------------------------ */

/* `field` ("VmHWM:", "VmRSS:") of /proc/self/status in KiB, or -1. */
static long status_kib(const char *field)
{
	char line[256];
	long kib = -1;
	FILE *status = fopen("/proc/self/status", "r");

	if (!status)
		return -1;
	while (fgets(line, sizeof(line), status))
		if (strncmp(line, field, strlen(field)) == 0) {
			kib = strtol(line + strlen(field), NULL, 10);
			break;
		}
	fclose(status);
	return kib;
}

/*
 * Every session holds a socket, and libssh fails a connect outright when it
 * cannot get one; the default soft limit of 1024 is close enough to a large
 * lab's size (plus the loop's own descriptors) to matter.
 */
static int raise_file_limit(size_t board_count)
{
	struct rlimit limit;
	rlim_t wanted = (rlim_t)board_count * 4 + 64;

	if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
		return -errno;
	if (limit.rlim_cur >= wanted)
		return 0;
	if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < wanted)
		return -EMFILE;
	limit.rlim_cur = wanted;
	return setrlimit(RLIMIT_NOFILE, &limit) == 0 ? 0 : -errno;
}

/* ---- one board: connect, exec, check, close ----------------------------- */

/* The transport's error text names the board already; our own checks do not. */
static void transport_failed(struct fanout_board *board, const char *what, const char *error_text)
{
	fprintf(stderr, "bench_fanout: %s: %s\n", what, error_text ? error_text : "(no error text)");
	board->round->failures++;
}

static void board_failed(struct fanout_board *board, const char *what, const char *detail)
{
	fprintf(stderr, "bench_fanout: board %s (%s:%u): %s: %s\n", board->config->name,
		board->config->host, board->config->port, what, detail);
	board->round->failures++;
}

static void on_closed(struct transport *transport, void *data)
{
	struct fanout_board *board = data;

	(void)transport;
	board->transport = NULL;
	board->round->open_transports--;
}

static void close_board(struct fanout_board *board)
{
	board->transport->ops->close(board->transport, on_closed, board);
}

/* Output that is only whitespace is as bad as none: uname printed nothing. */
static bool has_text(const char *text, size_t length)
{
	size_t i;

	for (i = 0; i < length; i++)
		if (text[i] != ' ' && text[i] != '\n' && text[i] != '\t' && text[i] != '\r')
			return true;
	return false;
}

static void on_exec_done(struct transport *transport, const struct transport_exec_result *result,
			 void *data)
{
	struct fanout_board *board = data;
	char detail[128];

	(void)transport;
	if (result->status != 0) {
		transport_failed(board, "uname -r", result->error_text);
	} else if (result->exit_status != 0) {
		snprintf(detail, sizeof(detail), "exit status %d, stderr '%.60s'",
			 result->exit_status, result->stderr_text);
		board_failed(board, "uname -r", detail);
	} else if (!has_text(result->stdout_text, result->stdout_length)) {
		board_failed(board, "uname -r", "printed nothing");
	}
	close_board(board);
}

static void on_connected(struct transport *transport, int status, const char *error_text,
			 void *data)
{
	static const char *const argv[] = { "uname", "-r", NULL };
	struct fanout_board *board = data;
	int rc;

	if (status != 0) {
		transport_failed(board, "connect", error_text);
		close_board(board);
		return;
	}
	rc = transport->ops->exec(transport, argv, EXEC_TIMEOUT_MS, on_exec_done, board);
	if (rc != 0) {
		board_failed(board, "exec", strerror(-rc));
		close_board(board);
	}
}

static void start_board(struct fanout_round *round, struct fanout_board *board)
{
	const struct lab_board *config = board->config;
	struct transport_config transport_config = {
		.board_name = config->name,
		.host = config->host,
		.port = config->port,
		.user = config->user,
		/* the virtual lab's own key and host keys, as `up` wrote them */
		.identity_file = round->state->client_key,
		.known_hosts_file = round->state->known_hosts,
		.connect_timeout_ms = CONNECT_TIMEOUT_MS,
	};
	int rc;

	board->round = round;
	rc = ssh_transport_ops.create(&round->loop, &transport_config, &board->transport);
	if (rc != 0) {
		board->transport = NULL;
		board_failed(board, "create", strerror(-rc));
		return;
	}
	round->open_transports++;
	rc = board->transport->ops->connect(board->transport, on_connected, board);
	if (rc != 0) {
		board_failed(board, "connect", strerror(-rc));
		close_board(board);
	}
}

/* ---- rounds --------------------------------------------------------------- */

/* One round on the first board_count boards; its wall time in *seconds. */
static int run_round(const struct lab *lab, const struct lab_state *state, size_t board_count,
		     double *seconds)
{
	struct fanout_round round = { .state = state, .board_count = board_count };
	uint64_t started;
	size_t i;
	int rc;

	round.boards = calloc(board_count, sizeof(*round.boards));
	if (!round.boards)
		return -ENOMEM;
	rc = uv_loop_init(&round.loop);
	if (rc != 0) {
		free(round.boards);
		return rc;
	}
	started = uv_hrtime();
	for (i = 0; i < board_count; i++) {
		round.boards[i].config = &lab->boards[i];
		start_board(&round, &round.boards[i]);
	}
	uv_run(&round.loop, UV_RUN_DEFAULT);
	*seconds = (double)(uv_hrtime() - started) / 1e9;
	rc = uv_loop_close(&round.loop);
	if (rc == 0 && round.open_transports != 0)
		rc = -EBUSY;
	free(round.boards);
	if (rc != 0)
		fprintf(stderr, "bench_fanout: the loop ended with work left: %s\n", uv_strerror(rc));
	return round.failures ? -EIO : rc;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void print_results(size_t board_count, const double *seconds, int rounds,
			  long baseline_kib)
{
	double sorted[MAX_ROUNDS];
	long peak_kib = status_kib("VmHWM:");
	int i;

	memcpy(sorted, seconds, sizeof(*seconds) * (size_t)rounds);
	qsort(sorted, (size_t)rounds, sizeof(*sorted), compare_doubles);
	printf("boards=%zu rounds=%d median_seconds=%.3f seconds=", board_count, rounds,
	       sorted[rounds / 2]);
	for (i = 0; i < rounds; i++)
		printf("%s%.3f", i ? "," : "", seconds[i]);
	printf(" baseline_rss_kib=%ld peak_rss_kib=%ld per_board_kib=%.1f\n", baseline_kib,
	       peak_kib, (double)(peak_kib - baseline_kib) / (double)board_count);
}

static int parse_arguments(int argc, char **argv, const struct lab *lab, size_t *board_count,
			   int *rounds)
{
	*board_count = argc > 3 ? strtoul(argv[3], NULL, 10) : lab->board_count;
	*rounds = argc > 4 ? atoi(argv[4]) : 3;
	if (*board_count == 0 || *board_count > lab->board_count) {
		fprintf(stderr, "bench_fanout: BOARDS must be 1..%zu (the lab's boards)\n",
			lab->board_count);
		return -EINVAL;
	}
	if (*rounds < 1 || *rounds > MAX_ROUNDS) {
		fprintf(stderr, "bench_fanout: ROUNDS must be 1..%d\n", MAX_ROUNDS);
		return -EINVAL;
	}
	return 0;
}

static int bench_lab(const struct lab *lab, const char *state_dir, size_t board_count, int rounds)
{
	double seconds[MAX_ROUNDS];
	struct lab_state state;
	long baseline_kib;
	int round, rc;

	rc = lab_state_locate(lab, state_dir, &state);
	if (rc != 0) {
		fprintf(stderr, "bench_fanout: lab %s: no state directory: %s\n", lab->name,
			strerror(-rc));
		return rc;
	}
	rc = raise_file_limit(board_count);
	if (rc != 0) {
		fprintf(stderr, "bench_fanout: cannot allow %zu open sockets: %s\n", board_count,
			strerror(-rc));
		return rc;
	}
	baseline_kib = status_kib("VmRSS:");
	for (round = 0; round < rounds; round++) {
		rc = run_round(lab, &state, board_count, &seconds[round]);
		if (rc != 0) {
			fprintf(stderr, "bench_fanout: round %d of %d on %zu boards failed\n",
				round + 1, rounds, board_count);
			return rc;
		}
	}
	print_results(board_count, seconds, rounds, baseline_kib);
	return 0;
}

int main(int argc, char **argv)
{
	char error[512];
	struct lab *lab = NULL;
	size_t board_count;
	int rounds, rc;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_fanout LAB.yaml STATE_DIR [BOARDS [ROUNDS]]\n");
		return 2;
	}
	rc = lab_load(argv[1], &lab, error, sizeof(error));
	if (rc != 0) {
		fprintf(stderr, "bench_fanout: %s\n", error);
		return 2;
	}
	rc = parse_arguments(argc, argv, lab, &board_count, &rounds);
	if (rc == 0)
		rc = bench_lab(lab, argv[2], board_count, rounds) ? 1 : 0;
	else
		rc = 2;
	lab_free(lab);
	return rc;
}
