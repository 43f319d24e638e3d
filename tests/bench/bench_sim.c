/*
 * bench_sim: how much faster than real time one simulated board runs.
 *
 * Boots each driver variant on a board and lets `sleep` advance simulated
 * time (beacons, power-save transitions, keepalives), measuring the wall
 * clock around it. Prints, per variant, simulated seconds per real second
 * and events per second. The goal (issue: virtual lab) is >= 1000x.
 * usage: bench_sim WORKDIR [SIMULATED_SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "virtual/modelkernel/variant.h"
#include "virtual/sim/sim.h"

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void discard(void *arg, int fd, const char *data, size_t len)
{
	(void)arg;
	(void)fd;
	(void)data;
	(void)len;
}

static int run_tool(struct sim_board *board, const char *line)
{
	char copy[256], *argv[16], *save = NULL, *word;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (word = strtok_r(copy, " ", &save); word && argc < 15; word = strtok_r(NULL, " ", &save))
		argv[argc++] = word;
	argv[argc] = NULL;
	return sim_board_run_tool(board, argc, argv, discard, NULL);
}

static int bench_variant(enum driver_variant variant, const char *workdir, double seconds)
{
	struct sim_board_config config = { .name = "bench", .seed = 1 };
	struct sim_board_stats stats;
	struct sim_board *board;
	char dir[1024], image[1200], sleep_line[64];
	double started, elapsed;
	int rc;

	snprintf(dir, sizeof(dir), "%s/%s", workdir, driver_variant_name(variant));
	rc = modelkernel_build_variant(variant, dir, image, sizeof(image));
	if (rc) {
		fprintf(stderr, "bench_sim: cannot build %s\n", driver_variant_name(variant));
		return 1;
	}
	sim_chip_from_name("ar9285", &config.chip);
	sim_knobs_default(&config.knobs);
	board = sim_board_create(&config);
	if (!board || sim_board_boot(board, image) != 0) {
		fprintf(stderr, "bench_sim: cannot boot %s\n", image);
		return 1;
	}
	run_tool(board, "iw dev wlan0 set power_save on");
	snprintf(sleep_line, sizeof(sleep_line), "sleep %.0f", seconds);
	started = now_seconds();
	rc = run_tool(board, sleep_line);
	elapsed = now_seconds() - started;
	sim_board_stats(board, &stats);
	printf("sim %-13s associated idle, %6.0f s simulated in %.4f s real: %9.0fx real time, %.2f M events/s\n",
	       driver_variant_name(variant), seconds, elapsed, seconds / elapsed,
	       (double)stats.events / elapsed / 1e6);
	sim_board_destroy(board);
	return rc != 0;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 3600;
	int failures = 0, variant;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_sim WORKDIR [SIMULATED_SECONDS]\n");
		return 2;
	}
	for (variant = 0; variant < DRIVER_VARIANT_COUNT; variant++)
		failures += bench_variant((enum driver_variant)variant, argv[1], seconds);
	return failures ? 1 : 0;
}
