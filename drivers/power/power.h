/*
 * power.h - switching a board's power: on, off, cycle. A driver is a const
 * ops table (drivers/power/NAME.c exports NAME_power_ops); each instance is a
 * struct power at the head of the driver's private state. Calls return at
 * once (0 or a negative errno); the result arrives through the callback, on
 * the loop.
 *
 * Errors a callback may report (negative errno), always with a text naming
 * the board and the switch ("board vb03: power switch 'virtual' (control
 * socket /x/control.sock): connection refused"):
 *   -ETIMEDOUT     the switch did not answer within timeout_ms
 *   -EIO           the switch answered with an error, or a command failed
 *   -ECONNREFUSED  the switch (socket, daemon) is not there
 *   -ECANCELED     the instance was closed first
 * Any error is a lab problem (INFRA), never evidence about a kernel.
 */
#ifndef RB_POWER_H
#define RB_POWER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "driver_context.h"

enum power_action { POWER_ON, POWER_OFF, POWER_CYCLE };

struct power;

typedef void (*power_cb)(struct power *power, int status, const char *error_text, void *data);

struct power_ops {
	const char *name;
	/*
	 * Checks the board's power options and allocates an instance. A bad
	 * option is -EINVAL with `error` saying "file:line:col: board 'x':
	 * power driver 'command': what is wrong (what was expected)".
	 */
	int (*create)(const struct driver_context *context, struct power **power_out,
		      char *error, size_t error_len);
	/* Several requests may be pending; each gets its callback once. */
	int (*request)(struct power *power, enum power_action action, uint64_t timeout_ms,
		       power_cb callback, void *data);
	/* Fails pending requests with -ECANCELED (their callbacks run), and
	 * frees the instance once its handles are closed. */
	void (*close)(struct power *power);
};

struct power {
	const struct power_ops *ops;
	uv_loop_t *loop;
};

const char *power_action_name(enum power_action action);	/* "on", "off", "cycle" */

/* A refused option of power driver `driver` (see driver_context.h). */
#define power_option_error(board, driver, ...) driver_option_error(board, "power", driver, __VA_ARGS__)

#endif
