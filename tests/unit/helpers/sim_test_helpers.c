/* sim_test_helpers.c - shared helpers of the simulator's tests. */
#include "sim_test_helpers.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "virtual/modelkernel/variant.h"

int sim_test_kernels_init(struct sim_test_kernels *kernels)
{
	memset(kernels, 0, sizeof(*kernels));
	snprintf(kernels->dir, sizeof(kernels->dir), "/tmp/rackbisect-simtest-XXXXXX");
	return mkdtemp(kernels->dir) ? 0 : -errno;
}

const char *sim_test_kernel(struct sim_test_kernels *kernels, enum driver_variant variant)
{
	char dir[128];

	if (kernels->built[variant])
		return kernels->path[variant];
	snprintf(dir, sizeof(dir), "%s/%s", kernels->dir, driver_variant_name(variant));
	if (modelkernel_build_variant(variant, dir, kernels->path[variant],
				      sizeof(kernels->path[variant])) < 0)
		return NULL;
	kernels->built[variant] = 1;
	return kernels->path[variant];
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

void sim_test_kernels_cleanup(struct sim_test_kernels *kernels)
{
	if (kernels->dir[0] && strncmp(kernels->dir, "/tmp/rackbisect-simtest-", 24) == 0)
		nftw(kernels->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	kernels->dir[0] = '\0';
}

static void append(char **buffer, size_t *len, const char *data, size_t n)
{
	char *grown = realloc(*buffer, *len + n + 1);

	if (!grown)
		abort();
	memcpy(grown + *len, data, n);
	*len += n;
	grown[*len] = '\0';
	*buffer = grown;
}

void sim_test_collect(void *arg, int fd, const char *data, size_t len)
{
	struct sim_test_output *output = arg;

	if (fd == 2)
		append(&output->err, &output->err_len, data, len);
	else
		append(&output->out, &output->out_len, data, len);
}

void sim_test_output_clear(struct sim_test_output *output)
{
	if (output->out)
		output->out[0] = '\0';
	if (output->err)
		output->err[0] = '\0';
	output->out_len = output->err_len = 0;
	if (!output->out)
		append(&output->out, &output->out_len, "", 0);
	if (!output->err)
		append(&output->err, &output->err_len, "", 0);
}

void sim_test_output_free(struct sim_test_output *output)
{
	free(output->out);
	free(output->err);
	memset(output, 0, sizeof(*output));
}

int sim_test_run(struct sim_board *board, struct sim_test_output *output, const char *line)
{
	char copy[512], *argv[32], *save = NULL, *word;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (word = strtok_r(copy, " ", &save); word && argc < 31; word = strtok_r(NULL, " ", &save))
		argv[argc++] = word;
	argv[argc] = NULL;
	sim_test_output_clear(output);
	return sim_board_run_tool(board, argc, argv, sim_test_collect, output);
}

struct sim_board *sim_test_board(enum sim_chip chip, uint64_t seed, const char *knobs)
{
	struct sim_board_config config = { .name = "testboard", .chip = chip, .seed = seed };
	char copy[512], *save = NULL, *pair;

	sim_knobs_default(&config.knobs);
	snprintf(copy, sizeof(copy), "%s", knobs ? knobs : "");
	for (pair = strtok_r(copy, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(pair, '=');

		if (!eq)
			return NULL;
		*eq = '\0';
		if (sim_knob_set(&config.knobs, pair, eq + 1) < 0)
			return NULL;
	}
	return sim_board_create(&config);
}

long long sim_test_field(const char *text, const char *key)
{
	char pattern[128];
	const char *at;

	snprintf(pattern, sizeof(pattern), "\t%s:", key);
	at = strstr(text, pattern);
	if (!at)
		return -1;
	return strtoll(at + strlen(pattern), NULL, 10);
}

unsigned int sim_test_log_count(const struct sim_board *board, const char *needle)
{
	uint64_t n, next = sim_board_log_next(board);
	unsigned int count = 0;

	for (n = 0; n < next; n++) {
		const char *line = sim_board_log_line(board, n);

		if (line && strstr(line, needle))
			count++;
	}
	return count;
}
