/* power.c - what every power driver shares. */
#include "power/power.h"

const char *power_action_name(enum power_action action)
{
	switch (action) {
	case POWER_ON:
		return "on";
	case POWER_OFF:
		return "off";
	case POWER_CYCLE:
		return "cycle";
	}
	/* Only a corrupted value gets here; say so rather than crash in a log line. */
	return "unknown";
}
