/*
 * kexec.c - boot a kernel by kexec: upload the kernel (and the build's
 * modules, unpacked into /lib/modules/<release>), kexec -l, kexec -e.
 */
#include "boot/kexec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/virtual.h"
#include "path.h"

#define DEFAULT_COMMAND_LINE "console=ttyS0,115200"
#define DEFAULT_MODULES_DIR "/lib/modules"

/*
 * Unpacks a modules tarball (its top directory the release) beside the
 * installed ones and swaps it in only once it is whole, so a failed upload
 * or unpack leaves the board's modules as they were. Fixed text: the
 * directory, release and tarball are its arguments, never part of it.
 */
static const char unpack_modules_script[] =
	"set -e; dir=$1; release=$2; tarball=$3; new=$dir/.rackbisect-new-$release; "
	"rm -rf \"$new\"; mkdir -p \"$new\"; tar -xzf \"$tarball\" -C \"$new\"; "
	"test -d \"$new/$release\" || { echo \"$tarball has no directory $release\" >&2; exit 1; }; "
	"rm -rf \"$dir/$release\"; mv \"$new/$release\" \"$dir/$release\"; rm -rf \"$new\" \"$tarball\"";

struct kexec_boot {
	struct boot base;
	const struct lab_board *board;
	const char *command_line;	/* the board's own words, before the job's */
	const char *initrd;		/* on the board; NULL: none */
	const char *modules_dir;	/* on the board: where modules tarballs are unpacked */
	struct boot_request request;
	char image_on_board[512];
	char modules_on_board[512];
	char append[2048];
	char initrd_option[600];
	boot_cb callback;
	void *data;
	bool busy;
};

static struct kexec_boot *kexec_boot_of(struct boot *boot)
{
	return (struct kexec_boot *)boot;
}

static void finish(struct kexec_boot *boot, int status, const char *error_text)
{
	boot->busy = false;
	boot->callback(&boot->base, status, error_text, boot->data);
}

static void fail(struct kexec_boot *boot, int status, const char *step, const char *detail)
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
	struct kexec_boot *boot = data;

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
	struct kexec_boot *boot = data;
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

static void load_kernel(struct kexec_boot *boot, struct transport *transport)
{
	const char *load[] = { "kexec", "-l", boot->image_on_board, boot->append,
			       boot->initrd ? boot->initrd_option : NULL, NULL };
	int rc = transport->ops->exec(transport, load, boot->request.step_timeout_ms, on_loaded, boot);

	if (rc)
		fail(boot, rc, "kexec -l", NULL);
}

static void on_modules_unpacked(struct transport *transport,
				const struct transport_exec_result *result, void *data)
{
	struct kexec_boot *boot = data;

	if (result->status != 0 || result->exit_status != 0) {
		fail(boot, result->status ? result->status : -EIO, "unpacking the modules",
		     result->status ? result->error_text : result->stderr_text);
		return;
	}
	load_kernel(boot, transport);
}

static void on_modules_uploaded(struct transport *transport, int status, const char *error_text,
				void *data)
{
	struct kexec_boot *boot = data;
	const char *unpack[] = { "sh", "-c", unpack_modules_script, "sh", boot->modules_dir,
				 boot->request.release, boot->modules_on_board, NULL };
	int rc;

	if (status) {
		fail(boot, status, "modules upload", error_text);
		return;
	}
	rc = transport->ops->exec(transport, unpack, boot->request.step_timeout_ms,
				  on_modules_unpacked, boot);
	if (rc)
		fail(boot, rc, "unpacking the modules", NULL);
}

static void on_uploaded(struct transport *transport, int status, const char *error_text, void *data)
{
	struct kexec_boot *boot = data;
	int rc;

	if (status) {
		fail(boot, status, "kernel upload", error_text);
		return;
	}
	if (!boot->request.modules_path)
		return load_kernel(boot, transport);
	rc = transport->ops->upload(transport, boot->request.modules_path, boot->modules_on_board,
				    boot->request.step_timeout_ms, on_modules_uploaded, boot);
	if (rc)
		fail(boot, rc, "modules upload", NULL);
}

/* The release names a file on the board: keep it to what kernel releases use. */
static bool release_is_plain(const char *release)
{
	if (!*release || release[0] == '.' || release[0] == '-')
		return false;
	return strspn(release, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_") ==
	       strlen(release);
}

static int kexec_boot_start(struct boot *base, const struct boot_request *request,
			      boot_cb callback, void *data)
{
	struct kexec_boot *boot = kexec_boot_of(base);
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
	    path_format(boot->append, sizeof(boot->append), "--append=%s%s%s", boot->command_line,
			request->command_line ? " " : "",
			request->command_line ? request->command_line : "") ||
	    (boot->initrd && path_format(boot->initrd_option, sizeof(boot->initrd_option),
					 "--initrd=%s", boot->initrd)) ||
	    path_format(boot->modules_on_board, sizeof(boot->modules_on_board),
			"%s/.rackbisect-%s.tar.gz", boot->modules_dir, request->release))
		return -ENAMETOOLONG;
	rc = transport->ops->upload(transport, request->image_path, boot->image_on_board,
				    request->step_timeout_ms, on_uploaded, boot);
	if (!rc)
		boot->busy = true;
	return rc;
}

/* One string option: `initrd` a file and `modules_dir` a directory on the
 * board, `command_line` words. */
static int take_option(const struct lab_board *board, const struct lab_driver_option *option,
		       const char **out, char *error, size_t error_len)
{
	if (option->is_list || !option->values[0][0])
		return boot_option_error(board, "kexec", &option->where, error, error_len,
					 "%s must be a non-empty string", option->name);
	if ((strcmp(option->name, "initrd") == 0 || strcmp(option->name, "modules_dir") == 0) &&
	    option->values[0][0] != '/')
		return boot_option_error(board, "kexec", &option->where, error, error_len,
					 "%s must be an absolute path on the board, not '%s'",
					 option->name, option->values[0]);
	*out = option->values[0];
	return 0;
}

/* The virtual driver takes no options: its board's kexec is simulated. */
static int parse_options(struct kexec_boot *boot, const char *driver, char *error, size_t error_len)
{
	const struct lab_board *board = boot->board;
	bool is_kexec = strcmp(driver, "kexec") == 0;
	size_t i;
	int rc;

	for (i = 0; i < board->boot.option_count; i++) {
		const struct lab_driver_option *option = &board->boot.options[i];
		const char **slot = NULL;

		if (is_kexec && strcmp(option->name, "initrd") == 0)
			slot = &boot->initrd;
		else if (is_kexec && strcmp(option->name, "command_line") == 0)
			slot = &boot->command_line;
		else if (is_kexec && strcmp(option->name, "modules_dir") == 0)
			slot = &boot->modules_dir;
		if (!slot)
			return boot_option_error(board, driver, &option->where, error, error_len,
						 "unknown option '%s' (known: %s)", option->name,
						 is_kexec ? "fallback, initrd, command_line, modules_dir"
						 : "fallback");
		rc = take_option(board, option, slot, error, error_len);
		if (rc)
			return rc;
	}
	return 0;
}

static int create_as(const struct boot_ops *ops, const struct driver_context *context,
		     struct boot **boot_out, char *error, size_t error_len)
{
	struct kexec_boot *boot = calloc(1, sizeof(*boot));
	int rc;

	if (!boot)
		return -ENOMEM;
	boot->base.ops = ops;
	boot->base.loop = context->loop;
	boot->board = context->board;
	boot->command_line = DEFAULT_COMMAND_LINE;
	boot->modules_dir = DEFAULT_MODULES_DIR;
	rc = parse_options(boot, ops->name, error, error_len);
	if (rc) {
		free(boot);
		return rc;
	}
	*boot_out = &boot->base;
	return 0;
}

static int kexec_boot_create(const struct driver_context *context, struct boot **boot_out,
			     char *error, size_t error_len)
{
	return create_as(&kexec_boot_ops, context, boot_out, error, error_len);
}

static int virtual_boot_create(const struct driver_context *context, struct boot **boot_out,
			       char *error, size_t error_len)
{
	return create_as(&virtual_boot_ops, context, boot_out, error, error_len);
}

/* Nothing of its own on the loop: pending steps belong to the transport,
 * which the caller closes (failing them with -ECANCELED) before this. */
static void kexec_boot_close(struct boot *base)
{
	free(kexec_boot_of(base));
}

const struct boot_ops kexec_boot_ops = {
	.name = "kexec",
	.create = kexec_boot_create,
	.start = kexec_boot_start,
	.close = kexec_boot_close,
};

const struct boot_ops virtual_boot_ops = {
	.name = "virtual",
	.create = virtual_boot_create,
	.start = kexec_boot_start,
	.close = kexec_boot_close,
};
