/* power.c - what every power driver shares. */
#include "power/power.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

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

int power_option_error(const struct lab_board *board, const char *driver,
		       const struct config_location *where, char *error, size_t error_len,
		       const char *format, ...)
{
	char location[512];
	va_list arguments;
	int prefix;

	config_location_format(where, location, sizeof(location));
	prefix = snprintf(error, error_len, "%s: board '%s': power driver '%s': ", location,
			  board->name, driver);
	if (prefix > 0 && (size_t)prefix < error_len) {
		va_start(arguments, format);
		vsnprintf(error + prefix, error_len - (size_t)prefix, format, arguments);
		va_end(arguments);
	}
	return -EINVAL;
}
