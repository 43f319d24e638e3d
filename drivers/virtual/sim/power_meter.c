/* power_meter.c - exact energy integration over simulated time. */
#include "virtual/sim/power_meter.h"

#include <string.h>

static const struct power_meter_point *latest(const struct power_meter *meter)
{
	return &meter->history[(meter->points - 1) % POWER_METER_HISTORY];
}

static uint64_t oldest_index(const struct power_meter *meter)
{
	return meter->points > POWER_METER_HISTORY ? meter->points - POWER_METER_HISTORY : 0;
}

static const struct power_meter_point *point_at(const struct power_meter *meter, uint64_t index)
{
	return &meter->history[index % POWER_METER_HISTORY];
}

static uint64_t energy_at(const struct power_meter_point *point, uint64_t time_us)
{
	return point->energy_pj + (time_us - point->time_us) * point->power_uw;
}

static void record(struct power_meter *meter, uint64_t time_us, uint64_t energy_pj,
		   uint64_t power_uw)
{
	struct power_meter_point *last = meter->points ?
		&meter->history[(meter->points - 1) % POWER_METER_HISTORY] : NULL;

	/* several changes in one microsecond collapse into one point */
	if (last && last->time_us == time_us) {
		last->energy_pj = energy_pj;
		last->power_uw = power_uw;
		return;
	}
	meter->history[meter->points % POWER_METER_HISTORY] = (struct power_meter_point){
		.time_us = time_us, .energy_pj = energy_pj, .power_uw = power_uw,
	};
	meter->points++;
}

void power_meter_reset(struct power_meter *meter, uint64_t now_us, uint64_t power_uw)
{
	meter->start_us = now_us;
	meter->points = 0;
	record(meter, now_us, 0, power_uw);
}

void power_meter_set_power(struct power_meter *meter, uint64_t now_us, uint64_t power_uw)
{
	const struct power_meter_point *last = latest(meter);

	if (last->power_uw == power_uw)
		return;
	record(meter, now_us, energy_at(last, now_us), power_uw);
}

void power_meter_add_energy(struct power_meter *meter, uint64_t now_us, uint64_t energy_pj)
{
	const struct power_meter_point *last = latest(meter);

	record(meter, now_us, energy_at(last, now_us) + energy_pj, last->power_uw);
}

uint64_t power_meter_energy_pj(const struct power_meter *meter, uint64_t now_us)
{
	return energy_at(latest(meter), now_us);
}

uint64_t power_meter_power_uw(const struct power_meter *meter)
{
	return latest(meter)->power_uw;
}

/* Energy at a past time: from the last change point at or before it. */
static uint64_t energy_at_past(const struct power_meter *meter, uint64_t time_us)
{
	uint64_t low = oldest_index(meter), high = meter->points - 1;

	if (time_us <= point_at(meter, low)->time_us)
		return point_at(meter, low)->energy_pj;
	while (low < high) {
		uint64_t mid = low + (high - low + 1) / 2;

		if (point_at(meter, mid)->time_us <= time_us)
			low = mid;
		else
			high = mid - 1;
	}
	return energy_at(point_at(meter, low), time_us);
}

uint64_t power_meter_average_uw(const struct power_meter *meter, uint64_t now_us,
				uint64_t window_us)
{
	uint64_t from = now_us > meter->start_us + window_us ? now_us - window_us : meter->start_us;
	uint64_t span = now_us - from;

	if (!span)
		return latest(meter)->power_uw;
	return (power_meter_energy_pj(meter, now_us) - energy_at_past(meter, from)) / span;
}
