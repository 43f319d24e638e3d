/* driver_context.c - what every driver shares: the words of a refused option. */
#include "driver_context.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int driver_option_error(const struct lab_board *board, const char *kind, const char *driver,
			const struct config_location *where, char *error, size_t error_len,
			const char *format, ...)
{
	char location[512];
	va_list arguments;
	int prefix;

	config_location_format(where, location, sizeof(location));
	prefix = snprintf(error, error_len, "%s: board '%s': %s driver '%s': ", location,
			  board->name, kind, driver);
	if (prefix > 0 && (size_t)prefix < error_len) {
		va_start(arguments, format);
		vsnprintf(error + prefix, error_len - (size_t)prefix, format, arguments);
		va_end(arguments);
	}
	return -EINVAL;
}
