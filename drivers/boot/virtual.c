/* virtual.c - boot a kernel on a virtual board: upload, kexec -l, kexec -e. */
#include "boot/virtual.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

struct virtual_boot {
	struct boot base;
	const struct lab_board *board;
	struct boot_request request;
	char image_on_board[512];
	char append[1024];
	boot_cb callback;
	void *data;
	bool busy;
};

static struct virtual_boot *virtual_boot_of(struct boot *boot)
{
	return (struct virtual_boot *)boot;
}

static void finish(struct virtual_boot *boot, int status, const char *error_text)
{
	boot->busy = false;
	boot->callback(&boot->base, status, error_text, boot->data);
}

static void fail(struct virtual_boot *boot, int status, const char *step, const char *detail)
{
	char text[1024];

	snprintf(text, sizeof(text), "board %s: %s failed: %s", boot->board->name, step,
		 detail && *detail ? detail : strerror(-status));
	finish(boot, status < 0 ? status : -EIO, text);
}

/* kexec -e replaces the running kernel: the session dropping, or the command
 * never answering, is what success looks like; only a refusal is a failure. */
static void on_executed(struct transport *transport, const struct transport_exec_result *result,
			void *data)
{
	struct virtual_boot *boot = data;

	(void)transport;
	if (result->status == 0 && result->exit_status > 0) {
		fail(boot, -EIO, "kexec -e", result->stderr_text);
		return;
	}
	finish(boot, 0, NULL);
}

static void on_loaded(struct transport *transport, const struct transport_exec_result *result,
		      void *data)
{
	struct virtual_boot *boot = data;
	static const char *const execute[] = { "kexec", "-e", NULL };
	int rc;

	if (result->status != 0 || result->exit_status != 0) {
		fail(boot, result->status ? result->status : -EIO, "kexec -l",
		     result->status ? result->error_text : result->stderr_text);
		return;
	}
	rc = transport->ops->exec(transport, execute, boot->request.step_timeout_ms, on_executed, boot);
	if (rc)
		fail(boot, rc, "kexec -e", NULL);
}

static void on_uploaded(struct transport *transport, int status, const char *error_text, void *data)
{
	struct virtual_boot *boot = data;
	const char *load[] = { "kexec", "-l", boot->image_on_board, boot->append, NULL };
	int rc;

	if (status) {
		fail(boot, status, "kernel upload", error_text);
		return;
	}
	rc = transport->ops->exec(transport, load, boot->request.step_timeout_ms, on_loaded, boot);
	if (rc)
		fail(boot, rc, "kexec -l", NULL);
}

/* The release names a file on the board: keep it to what kernel releases use. */
static bool release_is_plain(const char *release)
{
	if (!*release || release[0] == '.' || release[0] == '-')
		return false;
	return strspn(release, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_") ==
	       strlen(release);
}

static int virtual_boot_start(struct boot *base, const struct boot_request *request,
			      boot_cb callback, void *data)
{
	struct virtual_boot *boot = virtual_boot_of(base);
	struct transport *transport = request->transport;
	int rc;

	if (boot->busy)
		return -EBUSY;
	if (!release_is_plain(request->release))
		return -EINVAL;
	boot->request = *request;
	boot->callback = callback;
	boot->data = data;
	if (path_format(boot->image_on_board, sizeof(boot->image_on_board), "/boot/vmlinuz-%s",
			request->release) ||
	    path_format(boot->append, sizeof(boot->append), "--append=console=ttyS0,115200%s%s",
			request->command_line ? " " : "",
			request->command_line ? request->command_line : ""))
		return -ENAMETOOLONG;
	rc = transport->ops->upload(transport, request->image_path, boot->image_on_board,
				    request->step_timeout_ms, on_uploaded, boot);
	if (!rc)
		boot->busy = true;
	return rc;
}

static int virtual_boot_create(const struct driver_context *context, struct boot **boot_out,
			       char *error, size_t error_len)
{
	const struct lab_board *board = context->board;
	struct virtual_boot *boot;

	if (board->boot.option_count) {
		const struct lab_driver_option *option = &board->boot.options[0];
		char where[512];

		config_location_format(&option->where, where, sizeof(where));
		snprintf(error, error_len,
			 "%s: board '%s': boot driver 'virtual': unknown option '%s' (known: fallback)",
			 where, board->name, option->name);
		return -EINVAL;
	}
	boot = calloc(1, sizeof(*boot));
	if (!boot)
		return -ENOMEM;
	boot->base.ops = &virtual_boot_ops;
	boot->base.loop = context->loop;
	boot->board = board;
	*boot_out = &boot->base;
	return 0;
}

/* Nothing of its own on the loop: pending steps belong to the transport,
 * which the caller closes (failing them with -ECANCELED) before this. */
static void virtual_boot_close(struct boot *base)
{
	free(virtual_boot_of(base));
}

const struct boot_ops virtual_boot_ops = {
	.name = "virtual",
	.create = virtual_boot_create,
	.start = virtual_boot_start,
	.close = virtual_boot_close,
};
