/*
 * power_meter.h - the virtual power meter on the card's supply.
 *
 * Power is piecewise constant in simulated time; energy is its exact
 * integral (µW × µs = pJ, kept as an integer so nothing drifts). The meter
 * also answers "average power over the last simulated second", which is what
 * hwmon's power1_input shows, by remembering recent change points.
 */
#ifndef RB_SIM_POWER_METER_H
#define RB_SIM_POWER_METER_H

#include <stdint.h>

#define POWER_METER_HISTORY 8192

struct power_meter_point {
	uint64_t time_us;
	uint64_t energy_pj;	/* energy since the meter started, at time_us */
	uint64_t power_uw;	/* power from time_us on */
};

struct power_meter {
	uint64_t start_us;
	struct power_meter_point history[POWER_METER_HISTORY];
	uint64_t points;	/* change points recorded so far */
};

/* Restarts the meter at now with zero energy and the given power. */
void power_meter_reset(struct power_meter *meter, uint64_t now_us, uint64_t power_uw);
/* The power changes at now_us (now_us never goes back). */
void power_meter_set_power(struct power_meter *meter, uint64_t now_us, uint64_t power_uw);
/* A short burst whose energy is charged at once (e.g. an autosleep wake). */
void power_meter_add_energy(struct power_meter *meter, uint64_t now_us, uint64_t energy_pj);
/* Energy since the start at now_us, which is not before the last change. */
uint64_t power_meter_energy_pj(const struct power_meter *meter, uint64_t now_us);
uint64_t power_meter_power_uw(const struct power_meter *meter);
/* Average over the last window_us (or since the start, if shorter), µW. */
uint64_t power_meter_average_uw(const struct power_meter *meter, uint64_t now_us,
				uint64_t window_us);

#endif
