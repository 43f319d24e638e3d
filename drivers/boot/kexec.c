/*
 * kexec.c - boot a kernel by kexec: install the build (boot/install.h),
 * kexec -l with the command line, kexec -e.
 */
#include "boot/kexec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/install.h"
#include "boot/virtual.h"
#include "path.h"

struct kexec_boot {
	struct boot_install install;	/* head */
	char append[2048 + 16];
	char initrd_option[PATH_MAX + 16];
};

static struct kexec_boot *kexec_boot_of(struct boot *boot)
{
	return (struct kexec_boot *)boot;
}

static void execute(struct boot_install *install, struct transport *transport)
{
	static const char *const argv[] = { "kexec", "-e", NULL };

	boot_install_hand_over(install, transport, argv, "kexec -e");
}

static void load(struct boot_install *install, struct transport *transport)
{
	struct kexec_boot *boot = kexec_boot_of(&install->base);
	const char *argv[] = { "kexec", "-l", install->image_on_board, boot->append,
			       install->initrd ? boot->initrd_option : NULL, NULL };

	if (path_format(boot->append, sizeof(boot->append), "--append=%s", install->kernel_words) ||
	    (install->initrd && path_format(boot->initrd_option, sizeof(boot->initrd_option),
					    "--initrd=%s", install->initrd)))
		return boot_install_fail(install, -ENAMETOOLONG, "kexec -l", "its arguments are too long");
	boot_install_exec(install, transport, argv, "kexec -l", execute);
}

static int kexec_boot_start(struct boot *base, const struct boot_request *request,
			    boot_cb callback, void *data)
{
	return boot_install_start(&kexec_boot_of(base)->install, request, callback, data, load);
}

static int create_as(const struct boot_ops *ops, const struct driver_context *context,
		     struct boot **boot_out, char *error, size_t error_len)
{
	struct kexec_boot *boot = calloc(1, sizeof(*boot));
	int rc;

	if (!boot)
		return -ENOMEM;
	if (ops == &virtual_boot_ops && context->board->boot.option_count) {
		/* the virtual board's kexec is simulated: nothing to set */
		const struct lab_driver_option *option = &context->board->boot.options[0];

		rc = boot_option_error(context->board, ops->name, &option->where, error, error_len,
				       "unknown option '%s' (known: fallback)", option->name);
	} else {
		rc = boot_install_init(&boot->install, ops, context, NULL, error, error_len);
	}
	if (rc) {
		free(boot);
		return rc;
	}
	*boot_out = &boot->install.base;
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
