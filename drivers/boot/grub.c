/*
 * grub.c - boot a kernel through GRUB once: install the build, write its
 * menu entry, grub-reboot, reboot.
 */
#include "boot/grub.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/install.h"
#include "path.h"

#define ENTRY_ID "rackbisect"

/* Written whole (a new file renamed over the old): GRUB never reads half an entry. */
static const char write_entry_script[] =
	"set -e; mkdir -p \"$1\"; printf '%s\\n' \"$2\" >\"$1/rackbisect.cfg.new\"; "
	"mv \"$1/rackbisect.cfg.new\" \"$1/rackbisect.cfg\"";

struct grub_boot {
	struct boot_install install;	/* head */
	const char *grub_boot_path;	/* /boot as GRUB sees it */
	char grub_dir[PATH_MAX];
	char grubenv[PATH_MAX + 16];
	char boot_directory_option[PATH_MAX + 32];
	char entry[8192];
};

static struct grub_boot *grub_boot_of(struct boot *boot)
{
	return (struct grub_boot *)boot;
}

/* Appends text to the entry; false when it does not fit. */
static bool append(char *entry, size_t size, const char *text)
{
	size_t used = strlen(entry);

	if (used + strlen(text) >= size)
		return false;
	memcpy(entry + used, text, strlen(text) + 1);
	return true;
}

/* One word for GRUB's parser: single-quoted, a quote as '\'' (as in sh). */
static bool append_quoted(char *entry, size_t size, const char *word, size_t length)
{
	bool fits = append(entry, size, " '");

	for (size_t i = 0; fits && i < length; i++) {
		char one[2] = { word[i], '\0' };

		fits = append(entry, size, word[i] == '\'' ? "'\\''" : one);
	}
	return fits && append(entry, size, "'");
}

/* Each blank-separated word of `words`, quoted. */
static bool append_words(char *entry, size_t size, const char *words)
{
	bool fits = true;

	while (fits && *words) {
		size_t length = strcspn(words, " \t");

		if (length)
			fits = append_quoted(entry, size, words, length);
		words += length;
		words += strspn(words, " \t");
	}
	return fits;
}

/* A path on the board as GRUB names it: under boot_directory, relative to grub_boot_path. */
static bool append_grub_path(struct grub_boot *boot, const char *path)
{
	const char *boot_directory = boot->install.boot_directory;
	size_t prefix = strlen(boot_directory);
	char grub_path[PATH_MAX * 2];

	if (strncmp(path, boot_directory, prefix) == 0 && path[prefix] == '/')
		snprintf(grub_path, sizeof(grub_path), "%s%s",
			 strcmp(boot->grub_boot_path, "/") == 0 ? "" : boot->grub_boot_path,
			 path + prefix);
	else
		snprintf(grub_path, sizeof(grub_path), "%s", path);
	return append_quoted(boot->entry, sizeof(boot->entry), grub_path, strlen(grub_path));
}

static bool compose_entry(struct grub_boot *boot)
{
	struct boot_install *install = &boot->install;
	char *entry = boot->entry;
	size_t size = sizeof(boot->entry);

	char title[300];

	snprintf(title, sizeof(title), "rackbisect %s", install->request.release);
	entry[0] = '\0';
	return append(entry, size, "# rackbisect: one boot of a build (grub-reboot " ENTRY_ID
		      "); the next build's entry replaces it\nmenuentry") &&
	       append_quoted(entry, size, title, strlen(title)) &&
	       append(entry, size, " --id " ENTRY_ID " {\n\tlinux") &&
	       append_grub_path(boot, install->image_on_board) &&
	       append_words(entry, size, install->kernel_words) &&
	       (!install->initrd || (append(entry, size, "\n\tinitrd") &&
				     append_grub_path(boot, install->initrd))) &&
	       append(entry, size, "\n}");
}

static void restart(struct boot_install *install, struct transport *transport)
{
	static const char *const argv[] = { "reboot", NULL };

	boot_install_hand_over(install, transport, argv, "reboot");
}

/* grub-reboot exits 0 even when grub-editenv could not write (a read-only
 * /boot, a missing grub directory): what it wrote is read back. */
static void on_choice_read(struct transport *transport, const struct transport_exec_result *result,
			   void *data)
{
	struct boot_install *install = data;
	char detail[PATH_MAX + 600];

	if (result->status != 0 || result->exit_status != 0) {
		boot_install_fail(install, result->status ? result->status : -EIO,
				  "reading back grub-reboot's choice",
				  result->status ? result->error_text : result->stderr_text);
		return;
	}
	if (!strstr(result->stdout_text, "next_entry=" ENTRY_ID "\n")) {
		snprintf(detail, sizeof(detail), "grub-editenv list shows no next_entry=" ENTRY_ID
			 " (%.400s): is %s writable?", result->stderr_text,
			 grub_boot_of(&install->base)->grub_dir);
		boot_install_fail(install, -EIO, "grub-reboot", detail);
		return;
	}
	restart(install, transport);
}

static void read_choice(struct boot_install *install, struct transport *transport)
{
	struct grub_boot *boot = grub_boot_of(&install->base);
	const char *argv[] = { "grub-editenv", boot->grubenv, "list", NULL };
	int rc;

	install->step = "reading back grub-reboot's choice";
	rc = transport->ops->exec(transport, argv, install->request.step_timeout_ms, on_choice_read,
				  install);
	if (rc)
		boot_install_fail(install, rc, install->step, NULL);
}

static void choose_once(struct boot_install *install, struct transport *transport)
{
	struct grub_boot *boot = grub_boot_of(&install->base);
	const char *argv[] = { "grub-reboot", boot->boot_directory_option, ENTRY_ID, NULL };

	boot_install_exec(install, transport, argv, "grub-reboot", read_choice);
}

static void write_entry(struct boot_install *install, struct transport *transport)
{
	struct grub_boot *boot = grub_boot_of(&install->base);
	const char *argv[] = { "sh", "-c", write_entry_script, "sh", boot->grub_dir, boot->entry,
			       NULL };

	if (!compose_entry(boot))
		return boot_install_fail(install, -ENAMETOOLONG, "writing the GRUB entry",
					 "the command line is too long for it");
	boot_install_exec(install, transport, argv, "writing the GRUB entry", choose_once);
}

static int grub_boot_start(struct boot *base, const struct boot_request *request,
			   boot_cb callback, void *data)
{
	return boot_install_start(&grub_boot_of(base)->install, request, callback, data,
				  write_entry);
}

static int grub_boot_create(const struct driver_context *context, struct boot **boot_out,
			    char *error, size_t error_len)
{
	struct grub_boot *boot = calloc(1, sizeof(*boot));
	const struct boot_install_option own[] = {
		{ "grub_boot_path", boot ? &boot->grub_boot_path : NULL, true },
		{ NULL, NULL, false },
	};
	int rc;

	if (!boot)
		return -ENOMEM;
	boot->grub_boot_path = "/boot";
	rc = boot_install_init(&boot->install, &grub_boot_ops, context, own, error, error_len);
	if (!rc && (path_format(boot->grub_dir, sizeof(boot->grub_dir), "%s/grub",
				boot->install.boot_directory) ||
		    path_format(boot->grubenv, sizeof(boot->grubenv), "%s/grubenv", boot->grub_dir) ||
		    path_format(boot->boot_directory_option, sizeof(boot->boot_directory_option),
				"--boot-directory=%s", boot->install.boot_directory)))
		rc = boot_option_error(context->board, "grub", &context->board->boot.where, error,
				       error_len, "boot_directory is too long");
	if (rc) {
		free(boot);
		return rc;
	}
	*boot_out = &boot->install.base;
	return 0;
}

static void grub_boot_close(struct boot *base)
{
	free(grub_boot_of(base));
}

const struct boot_ops grub_boot_ops = {
	.name = "grub",
	.create = grub_boot_create,
	.start = grub_boot_start,
	.close = grub_boot_close,
};
