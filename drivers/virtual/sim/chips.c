/*
 * chips.c - the AR9xxx chips a board may carry (sim.h: enum sim_chip).
 * Autosleep: AR938x and later wake themselves for beacons in network sleep.
 * RTC reset in full sleep: all but AR5416 (and AR9271, AR9462 1.0) lose the
 * MAC state whenever they full-sleep (ath9k-model.md §1, §4).
 */
#include "virtual/sim/sim.h"

#include <errno.h>
#include <string.h>

static const struct sim_chip_info chips[SIM_CHIP_COUNT] = {
	[SIM_CHIP_AR5416] = { "ar5416", "AR5416", 0x168c, 0x0023, 0, 0 },
	[SIM_CHIP_AR9160] = { "ar9160", "AR9160", 0x168c, 0x0027, 0, 1 },
	[SIM_CHIP_AR9280] = { "ar9280", "AR9280", 0x168c, 0x002a, 0, 1 },
	[SIM_CHIP_AR9285] = { "ar9285", "AR9285", 0x168c, 0x002b, 0, 1 },
	[SIM_CHIP_AR9287] = { "ar9287", "AR9287", 0x168c, 0x002e, 0, 1 },
	[SIM_CHIP_AR9380] = { "ar9380", "AR9380", 0x168c, 0x0030, 1, 1 },
	[SIM_CHIP_AR9462] = { "ar9462", "AR9462", 0x168c, 0x0034, 1, 0 },
};

int sim_chip_from_name(const char *name, enum sim_chip *chip)
{
	int i;

	for (i = 0; name && i < SIM_CHIP_COUNT; i++) {
		if (strcasecmp(chips[i].name, name) == 0) {
			*chip = (enum sim_chip)i;
			return 0;
		}
	}
	return -EINVAL;
}

const struct sim_chip_info *sim_chip_info(enum sim_chip chip)
{
	if ((int)chip < 0 || chip >= SIM_CHIP_COUNT)
		return NULL;
	return &chips[chip];
}
