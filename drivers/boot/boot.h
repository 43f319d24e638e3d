/*
 * boot.h - putting a built kernel on a board and starting it. A driver is a
 * const ops table (drivers/boot/NAME.c exports NAME_boot_ops); an instance is
 * a struct boot at the head of its private state, on the loop.
 *
 * A boot driver installs the kernel over the board's transport and makes the
 * board boot it; it reports once the board has been told to boot. Waiting for
 * the board to come back, checking `uname -r` and falling back by power cycle
 * are the engine's (src/run.c): they are the same for every driver.
 *
 * Errors (negative errno, with a text naming the board and the step):
 *   -EIO        upload or a boot command failed (a lab problem: INFRA)
 *   -ETIMEDOUT  a step did not finish within the request's timeout
 *   -ECANCELED  closed first
 */
#ifndef RB_BOOT_H
#define RB_BOOT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "driver_context.h"
#include "transport/transport.h"

struct boot;

struct boot_request {
	struct transport *transport;	/* connected to the board */
	const char *image_path;		/* local kernel image */
	const char *release;		/* its `uname -r` */
	const char *modules_path;	/* local tarball whose top directory is the release,
					 * unpacked into /lib/modules; NULL: none */
	const char *command_line;	/* appended to the kernel's command line; may be NULL */
	uint64_t step_timeout_ms;	/* per upload or command */
};

typedef void (*boot_cb)(struct boot *boot, int status, const char *error_text, void *data);

struct boot_ops {
	const char *name;
	int (*create)(const struct driver_context *context, struct boot **boot_out,
		      char *error, size_t error_len);
	/* One request at a time per instance. */
	int (*start)(struct boot *boot, const struct boot_request *request, boot_cb callback,
		     void *data);
	void (*close)(struct boot *boot);
};

struct boot {
	const struct boot_ops *ops;
	uv_loop_t *loop;
};

/* A refused option of boot driver `driver` (see driver_context.h). */
#define boot_option_error(board, driver, ...) driver_option_error(board, "boot", driver, __VA_ARGS__)

#endif
