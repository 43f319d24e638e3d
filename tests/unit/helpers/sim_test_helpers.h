/*
 * sim_test_helpers.h - what the simulator's tests share: model kernel
 * variants built once per test binary, boards with a given chip/seed/knobs,
 * and running a tool line on a board with its output captured.
 */
#ifndef RB_TEST_SIM_TEST_HELPERS_H
#define RB_TEST_SIM_TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "virtual/modelkernel/driver_changes.h"
#include "virtual/sim/sim.h"

struct sim_test_kernels {
	char dir[64];
	char path[DRIVER_VARIANT_COUNT][256];
	int built[DRIVER_VARIANT_COUNT];
};

/* A private temporary directory under /tmp; 0 or a negative errno. */
int sim_test_kernels_init(struct sim_test_kernels *kernels);
/* The built bzImage of a variant, building it on first use; NULL on failure. */
const char *sim_test_kernel(struct sim_test_kernels *kernels, enum driver_variant variant);
/* Removes the directory and everything built in it. */
void sim_test_kernels_cleanup(struct sim_test_kernels *kernels);

struct sim_test_output {
	char *out, *err;
	size_t out_len, err_len;
};

void sim_test_output_clear(struct sim_test_output *output);
void sim_test_output_free(struct sim_test_output *output);
/* A sim_output_fn collecting into a struct sim_test_output. */
void sim_test_collect(void *arg, int fd, const char *data, size_t len);

/* Runs a space-separated command line (no quoting) after clearing output. */
int sim_test_run(struct sim_board *board, struct sim_test_output *output, const char *line);

/* A board on `chip` with the default knobs changed by `knobs` ("name=value"
 * pairs separated by commas, or NULL). NULL on failure. */
struct sim_board *sim_test_board(enum sim_chip chip, uint64_t seed, const char *knobs);

/* The value after "key:" on a tab-indented line of `text` (iw formats), or -1. */
long long sim_test_field(const char *text, const char *key);
/* How many kernel log lines since boot contain `needle`. */
unsigned int sim_test_log_count(const struct sim_board *board, const char *needle);

#endif
