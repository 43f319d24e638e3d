/*
 * install.h - what the kexec and grub boot drivers share: the board's
 * options for where things go, putting a build on the board, one command
 * at a time with its failure named, and handing the board over to the new
 * kernel. Internal to drivers/boot/.
 *
 * Installing a build: the kernel goes to <boot_directory>/vmlinuz-<release>;
 * a modules tarball (its top directory the release) goes to
 * <modules_dir>/.rackbisect-<release>.tar.gz and is unpacked by the
 * board's own sh and tar beside the installed modules, then swapped in for
 * <modules_dir>/<release>: a failed upload or unpack leaves the board's
 * modules as they were.
 *
 * Options every such driver takes (each a string; paths absolute, on the
 * board): command_line (default "console=ttyS0,115200"), initrd (none),
 * modules_dir (/lib/modules), boot_directory (/boot); a driver may add its
 * own (struct boot_install_option).
 */
#ifndef RB_BOOT_INSTALL_H
#define RB_BOOT_INSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include "boot/boot.h"

struct boot_install;

typedef void (*boot_install_step)(struct boot_install *install, struct transport *transport);

struct boot_install {
	struct boot base;		/* head: a driver's instance starts with this */
	const struct lab_board *board;
	const char *driver;		/* "kexec", "grub": in option errors */
	const char *command_line;	/* the board's own words, before the job's */
	const char *initrd;		/* on the board; NULL: none */
	const char *modules_dir;
	const char *boot_directory;
	struct boot_request request;
	char image_on_board[512];	/* <boot_directory>/vmlinuz-<release> */
	char modules_on_board[512];
	char kernel_words[2048];	/* command_line and the job's words */
	boot_cb callback;
	void *data;
	bool busy;
	const char *step;		/* the command running, for its error */
	boot_install_step next;		/* what follows it */
};

/* A driver's own option: its value (a string) goes to *slot. */
struct boot_install_option {
	const char *name;
	const char **slot;
	bool absolute;			/* a path on the board */
};

/*
 * Fills install (zeroed by the caller, at the head of the driver's
 * instance) from the board's boot options; `extra` ends with a NULL name
 * (NULL: none). 0, or -EINVAL with `error` at the option's file:line:col.
 */
int boot_install_init(struct boot_install *install, const struct boot_ops *ops,
		      const struct driver_context *context, const struct boot_install_option *extra,
		      char *error, size_t error_len);

/*
 * Starts putting request's build on the board; `installed` runs once it is
 * there. 0, or -EBUSY / -EINVAL (a release that cannot name a file) /
 * -ENAMETOOLONG / the transport's error: the callback is then never called.
 */
int boot_install_start(struct boot_install *install, const struct boot_request *request,
		       boot_cb callback, void *data, boot_install_step installed);

/* Runs argv; a transport error or an exit status other than 0 fails the
 * boot naming `step`, success runs next. */
void boot_install_exec(struct boot_install *install, struct transport *transport,
		       const char *const *argv, const char *step, boot_install_step next);

/*
 * Runs the command that replaces the running kernel (kexec -e, reboot):
 * the session dropping, or the command never answering, is what success
 * looks like; only a refusal (an exit status above 0) is a failure.
 */
void boot_install_hand_over(struct boot_install *install, struct transport *transport,
			    const char *const *argv, const char *step);

/* Ends the request: the driver's callback with "board B: STEP failed: ...". */
void boot_install_fail(struct boot_install *install, int status, const char *step,
		       const char *detail);

#endif
