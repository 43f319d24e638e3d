/*
 * console.h - following a board's serial console. A driver is a const ops
 * table (drivers/console/NAME.c exports NAME_console_ops); an instance is a
 * struct console at the head of the driver's private state, on the loop.
 *
 * A console is followed for as long as the coordinator runs: the driver
 * connects, hands every byte to data_cb in order, and when the connection
 * drops (a board powering off, ser2net restarting) it says so through
 * event_cb and reconnects on its own, every retry_ms, until closed. Nothing
 * read is ever dropped; what was missed while disconnected cannot be known,
 * so the caller marks the gap in its capture from the events.
 */
#ifndef RB_CONSOLE_H
#define RB_CONSOLE_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "driver_context.h"

struct console;

enum console_event {
	CONSOLE_CONNECTED,	/* (again) following the console */
	CONSOLE_LOST,		/* the connection dropped or could not be made; retrying */
};

typedef void (*console_data_cb)(struct console *console, const char *bytes, size_t length,
				void *data);
/* text says what happened, naming the board and the address. */
typedef void (*console_event_cb)(struct console *console, enum console_event event,
				 const char *text, void *data);

struct console_ops {
	const char *name;
	/* Checks the board's console options (as power.h's create) and allocates. */
	int (*create)(const struct driver_context *context, struct console **console_out,
		      char *error, size_t error_len);
	/* Starts following; callbacks run on the loop until close. */
	int (*start)(struct console *console, uint64_t retry_ms, console_data_cb data_cb,
		     console_event_cb event_cb, void *data);
	/* Stops (no callback runs after this returns) and frees once handles are closed. */
	void (*close)(struct console *console);
};

struct console {
	const struct console_ops *ops;
	uv_loop_t *loop;
};

#endif
