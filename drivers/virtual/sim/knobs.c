/*
 * knobs.c - the model knobs of ath9k-model.md §5 (sim.h: struct sim_knobs):
 * defaults, and setting one by name from a lab file or the command line.
 */
#include "virtual/sim/sim.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum knob_type { KNOB_PROBABILITY, KNOB_MILLISECONDS, KNOB_INTEGER };

struct knob {
	const char *name;
	enum knob_type type;
	size_t offset;
	long min, max;		/* integers only */
};

#define PROBABILITY(field) { #field, KNOB_PROBABILITY, offsetof(struct sim_knobs, field), 0, 0 }
#define MILLISECONDS(field) { #field, KNOB_MILLISECONDS, offsetof(struct sim_knobs, field), 0, 0 }
#define INTEGER(field, lo, hi) { #field, KNOB_INTEGER, offsetof(struct sim_knobs, field), lo, hi }

static const struct knob knobs[] = {
	PROBABILITY(p_wake_dead),
	PROBABILITY(p_same_channel_scan),
	PROBABILITY(p_same_channel_reconnect),
	PROBABILITY(p_txdma_stop_fail),
	PROBABILITY(p_rx_busy),
	PROBABILITY(p_wedge),
	PROBABILITY(p_bus_hang),
	PROBABILITY(p_ctx_loss),
	PROBABILITY(p_ack_loss),
	INTEGER(retry_limit, 1, 30),
	PROBABILITY(p_beacon_loss),
	MILLISECONDS(idle_gap_min_ms),
	MILLISECONDS(idle_gap_max_ms),
	INTEGER(dtim_period, 1, 3),
	INTEGER(aspm_l1, 0, 1),
	PROBABILITY(p_interference),
	MILLISECONDS(interference_ms),
};

#define KNOB_COUNT (sizeof(knobs) / sizeof(knobs[0]))

static const char *const knob_names[KNOB_COUNT + 1] = {
	"p_wake_dead", "p_same_channel_scan", "p_same_channel_reconnect",
	"p_txdma_stop_fail", "p_rx_busy", "p_wedge", "p_bus_hang", "p_ctx_loss",
	"p_ack_loss", "retry_limit", "p_beacon_loss", "idle_gap_min_ms",
	"idle_gap_max_ms", "dtim_period", "aspm_l1", "p_interference",
	"interference_ms", NULL,
};

_Static_assert(sizeof(knob_names) / sizeof(knob_names[0]) == KNOB_COUNT + 1,
	       "every knob has its name in knob_names");

void sim_knobs_default(struct sim_knobs *k)
{
	*k = (struct sim_knobs){
		.p_wake_dead = 0.9,
		.p_same_channel_scan = 0.5,
		.p_same_channel_reconnect = 1.0,
		.p_txdma_stop_fail = 0.8,
		.p_rx_busy = 0.05,
		.p_wedge = 0.3,
		.p_bus_hang = 0.05,
		.p_ctx_loss = 0.5,
		.p_ack_loss = 0.05,
		.retry_limit = 10,
		.p_beacon_loss = 0.01,
		.idle_gap_min_ms = 5,
		.idle_gap_max_ms = 100,
		.dtim_period = 1,
		.aspm_l1 = 1,
		/* none by default: every existing lab and seed runs as before */
		.p_interference = 0,
		.interference_ms = 30000,
	};
}

const char *const *sim_knob_names(void)
{
	return knob_names;
}

static const struct knob *find_knob(const char *name)
{
	size_t i;

	for (i = 0; i < KNOB_COUNT; i++)
		if (strcmp(knobs[i].name, name) == 0)
			return &knobs[i];
	return NULL;
}

static int parse_double(const char *text, double *value)
{
	char *end;

	if (!*text)
		return -EINVAL;
	errno = 0;
	*value = strtod(text, &end);
	if (errno || *end || !isfinite(*value))
		return -EINVAL;
	return 0;
}

static int parse_long(const char *text, long *value)
{
	char *end;

	if (!*text)
		return -EINVAL;
	errno = 0;
	*value = strtol(text, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int set_real(const struct knob *knob, struct sim_knobs *k, const char *text)
{
	double value;
	int r = parse_double(text, &value);

	if (r < 0)
		return r;
	if (knob->type == KNOB_PROBABILITY && (value < 0.0 || value > 1.0))
		return -ERANGE;
	if (knob->type == KNOB_MILLISECONDS && (value < 0.0 || value > 60000.0))
		return -ERANGE;
	*(double *)((char *)k + knob->offset) = value;
	return 0;
}

static int set_integer(const struct knob *knob, struct sim_knobs *k, const char *text)
{
	long value;
	int r = parse_long(text, &value);

	if (r < 0)
		return r;
	if (value < knob->min || value > knob->max)
		return -ERANGE;
	*(int *)((char *)k + knob->offset) = (int)value;
	return 0;
}

int sim_knob_set(struct sim_knobs *k, const char *name, const char *value)
{
	const struct knob *knob = name && value ? find_knob(name) : NULL;

	if (!knob)
		return -EINVAL;
	if (knob->type == KNOB_INTEGER)
		return set_integer(knob, k, value);
	return set_real(knob, k, value);
}
