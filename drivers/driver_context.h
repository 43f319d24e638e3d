/*
 * driver_context.h - what every power, console and boot driver is given when
 * it is created for one board: the loop it runs on, the board's lab entry
 * (its options, with their file:line:col) and where the lab keeps its state.
 */
#ifndef RB_DRIVER_CONTEXT_H
#define RB_DRIVER_CONTEXT_H

#include <stddef.h>
#include <uv.h>

#include "config.h"

struct driver_context {
	uv_loop_t *loop;
	const struct lab *lab;
	const struct lab_board *board;
	/* The --state directory as given (NULL: the default); the virtual
	 * drivers find the lab's control socket under it. */
	const char *state_option;
};

/*
 * A refused driver option: writes "file:line:col: board 'x': KIND driver
 * 'NAME': " and the rest into error, and returns -EINVAL for create() to
 * return. kind is "power", "console" or "boot".
 */
int driver_option_error(const struct lab_board *board, const char *kind, const char *driver,
			const struct config_location *where, char *error, size_t error_len,
			const char *format, ...) __attribute__((format(printf, 7, 8)));

#endif
