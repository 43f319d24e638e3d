/* install.c - see install.h. */
#include "boot/install.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "boot/unpack_modules.h"
#include "path.h"

#define DEFAULT_COMMAND_LINE "console=ttyS0,115200"
#define DEFAULT_MODULES_DIR "/lib/modules"
#define DEFAULT_BOOT_DIRECTORY "/boot"

static void finish(struct boot_install *install, int status, const char *error_text)
{
	install->busy = false;
	install->callback(&install->base, status, error_text, install->data);
}

void boot_install_fail(struct boot_install *install, int status, const char *step,
		       const char *detail)
{
	char text[1024];

	snprintf(text, sizeof(text), "board %s: %s failed: %s", install->board->name, step,
		 detail && *detail ? detail : strerror(-status));
	finish(install, status < 0 ? status : -EIO, text);
}

/* ---- one command at a time ---------------------------------------------------------------- */

static void on_step_done(struct transport *transport, const struct transport_exec_result *result,
			 void *data)
{
	struct boot_install *install = data;

	if (result->status != 0 || result->exit_status != 0) {
		boot_install_fail(install, result->status ? result->status : -EIO, install->step,
				  result->status ? result->error_text : result->stderr_text);
		return;
	}
	install->next(install, transport);
}

void boot_install_exec(struct boot_install *install, struct transport *transport,
		       const char *const *argv, const char *step, boot_install_step next)
{
	int rc;

	install->step = step;
	install->next = next;
	rc = transport->ops->exec(transport, argv, install->request.step_timeout_ms, on_step_done,
				  install);
	if (rc)
		boot_install_fail(install, rc, step, NULL);
}

static void on_handed_over(struct transport *transport, const struct transport_exec_result *result,
			   void *data)
{
	struct boot_install *install = data;

	(void)transport;
	if (result->status == 0 && result->exit_status > 0) {
		boot_install_fail(install, -EIO, install->step, result->stderr_text);
		return;
	}
	finish(install, 0, NULL);
}

void boot_install_hand_over(struct boot_install *install, struct transport *transport,
			    const char *const *argv, const char *step)
{
	int rc;

	install->step = step;
	rc = transport->ops->exec(transport, argv, install->request.step_timeout_ms, on_handed_over,
				  install);
	if (rc)
		boot_install_fail(install, rc, step, NULL);
}

/* ---- the build onto the board ----------------------------------------------------------- */

static void on_modules_uploaded(struct transport *transport, int status, const char *error_text,
				void *data)
{
	struct boot_install *install = data;
	const char *unpack[] = { "sh", "-c", BOOT_UNPACK_MODULES_SCRIPT, "sh", install->modules_dir,
				 install->request.release, install->modules_on_board, NULL };

	if (status) {
		boot_install_fail(install, status, "modules upload", error_text);
		return;
	}
	/* installed stays the step after: next is what boot_install_start was given */
	boot_install_exec(install, transport, unpack, "unpacking the modules", install->next);
}

static void on_kernel_uploaded(struct transport *transport, int status, const char *error_text,
			       void *data)
{
	struct boot_install *install = data;
	int rc;

	if (status) {
		boot_install_fail(install, status, "kernel upload", error_text);
		return;
	}
	if (!install->request.modules_path)
		return install->next(install, transport);
	rc = transport->ops->upload(transport, install->request.modules_path,
				    install->modules_on_board, install->request.step_timeout_ms,
				    on_modules_uploaded, install);
	if (rc)
		boot_install_fail(install, rc, "modules upload", NULL);
}

/* The release names files on the board: keep it to what kernel releases use. */
static bool release_is_plain(const char *release)
{
	if (!*release || release[0] == '.' || release[0] == '-')
		return false;
	return strspn(release, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_") ==
	       strlen(release);
}

int boot_install_start(struct boot_install *install, const struct boot_request *request,
		       boot_cb callback, void *data, boot_install_step installed)
{
	struct transport *transport = request->transport;
	int rc;

	if (install->busy)
		return -EBUSY;
	if (!release_is_plain(request->release))
		return -EINVAL;
	install->request = *request;
	install->callback = callback;
	install->data = data;
	install->next = installed;
	if (path_format(install->image_on_board, sizeof(install->image_on_board), "%s/vmlinuz-%s",
			install->boot_directory, request->release) ||
	    path_format(install->modules_on_board, sizeof(install->modules_on_board),
			"%s/.rackbisect-%s.tar.gz", install->modules_dir, request->release) ||
	    path_format(install->kernel_words, sizeof(install->kernel_words), "%s%s%s",
			install->command_line, request->command_line ? " " : "",
			request->command_line ? request->command_line : ""))
		return -ENAMETOOLONG;
	rc = transport->ops->upload(transport, request->image_path, install->image_on_board,
				    request->step_timeout_ms, on_kernel_uploaded, install);
	if (!rc)
		install->busy = true;
	return rc;
}

/* ---- options ---------------------------------------------------------------------------- */

static int take_option(struct boot_install *install, const struct lab_driver_option *option,
		       bool absolute, const char **out, char *error, size_t error_len)
{
	if (option->is_list || !option->values[0][0])
		return boot_option_error(install->board, install->driver, &option->where, error,
					 error_len, "%s must be a non-empty string", option->name);
	if (absolute && option->values[0][0] != '/')
		return boot_option_error(install->board, install->driver, &option->where, error,
					 error_len, "%s must be an absolute path on the board, not '%s'",
					 option->name, option->values[0]);
	/* as the job's kernel command_line: a newline or a control character
	 * would reach the boot loader's config (grub.cfg) as something else */
	for (const unsigned char *c = (const unsigned char *)option->values[0]; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return boot_option_error(install->board, install->driver, &option->where,
						 error, error_len, "%s must be one line of printable "
						 "characters (byte 0x%02x is not)", option->name, *c);
	*out = option->values[0];
	return 0;
}

int boot_install_init(struct boot_install *install, const struct boot_ops *ops,
		      const struct driver_context *context, const struct boot_install_option *extra,
		      char *error, size_t error_len)
{
	const struct boot_install_option common[] = {
		{ "command_line", &install->command_line, false },
		{ "initrd", &install->initrd, true },
		{ "modules_dir", &install->modules_dir, true },
		{ "boot_directory", &install->boot_directory, true },
		{ NULL, NULL, false },
	};
	const struct lab_board *board = context->board;
	char known[256] = "fallback";
	size_t i;

	install->base.ops = ops;
	install->base.loop = context->loop;
	install->board = board;
	install->driver = ops->name;
	install->command_line = DEFAULT_COMMAND_LINE;
	install->modules_dir = DEFAULT_MODULES_DIR;
	install->boot_directory = DEFAULT_BOOT_DIRECTORY;
	for (const struct boot_install_option *o = common; o->name; o++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), ", %s", o->name);
	for (const struct boot_install_option *o = extra; o && o->name; o++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), ", %s", o->name);
	for (i = 0; i < board->boot.option_count; i++) {
		const struct lab_driver_option *option = &board->boot.options[i];
		const struct boot_install_option *match = NULL;
		int rc;

		for (const struct boot_install_option *o = common; o->name && !match; o++)
			if (strcmp(o->name, option->name) == 0)
				match = o;
		for (const struct boot_install_option *o = extra; o && o->name && !match; o++)
			if (strcmp(o->name, option->name) == 0)
				match = o;
		if (!match)
			return boot_option_error(board, install->driver, &option->where, error,
						 error_len, "unknown option '%s' (known: %s)",
						 option->name, known);
		rc = take_option(install, option, match->absolute, match->slot, error, error_len);
		if (rc)
			return rc;
	}
	return 0;
}
