/* grub_firmware.c - see grub_firmware.h. */
#include "virtual/board/grub_firmware.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"

/* GRUB's environment block: a header, name=value lines, '#' up to its size. */
#define ENV_HEADER "# GRUB Environment Block\n"
#define ENV_MAX 4096

/* Reads the block; its size is kept (GRUB rewrites it in place). */
static int read_env(const char *path, char *block, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -errno;
	got = read(fd, block, ENV_MAX - 1);
	close(fd);
	if (got < 0)
		return -errno;
	block[got] = '\0';
	*size = (size_t)got;
	return strncmp(block, ENV_HEADER, strlen(ENV_HEADER)) == 0 ? 0 : -EINVAL;
}

/* The value of name= in the block ("" when absent). */
static void env_value(const char *block, const char *name, char *value, size_t len)
{
	const char *line;

	value[0] = '\0';
	for (line = block; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, name, strlen(name)) == 0 && line[strlen(name)] == '=') {
			const char *start = line + strlen(name) + 1;

			snprintf(value, len, "%.*s", (int)strcspn(start, "\n"), start);
			return;
		}
	}
}

/* `set next_entry=; save_env next_entry`: the line kept, its value emptied,
 * the block padded with '#' to its size again (the padding has no newline). */
static int clear_next_entry(const char *path, const char *block, size_t size)
{
	char rewritten[ENV_MAX + 1];
	size_t used = 0;
	const char *line, *end;

	for (line = block; (end = strchr(line, '\n')) != NULL; line = end + 1) {
		size_t length = (size_t)(end - line);

		if (strncmp(line, "next_entry=", 11) == 0)
			length = 11;
		if (used + length + 1 > size)
			return -ENOSPC;
		memcpy(rewritten + used, line, length);
		used += length;
		rewritten[used++] = '\n';
	}
	memset(rewritten + used, '#', size - used);
	rewritten[size] = '\0';
	return files_write_in_place(path, rewritten);
}

/* Next word of a GRUB line, unquoted ('...', "...", backslash); NULL at its end. */
static const char *next_word(const char *c, char *word, size_t len)
{
	size_t used = 0;
	char quote = 0;

	c += strspn(c, " \t");
	if (!*c || *c == '\n')
		return NULL;
	for (; *c && *c != '\n' && (quote || (*c != ' ' && *c != '\t')); c++) {
		if (!quote && (*c == '\'' || *c == '"')) {
			quote = *c;
		} else if (quote && *c == quote) {
			quote = 0;
		} else {
			if (*c == '\\' && quote != '\'' && c[1] && c[1] != '\n')
				c++;
			if (used + 1 < len)
				word[used++] = *c;
		}
	}
	word[used] = '\0';
	return c;
}

/* Whether a menuentry line has --id ID. */
static bool entry_has_id(const char *line, const char *id)
{
	char word[512];
	bool id_next = false;

	while ((line = next_word(line, word, sizeof(word)))) {
		if (id_next)
			return strcmp(word, id) == 0;
		id_next = strcmp(word, "--id") == 0;
	}
	return false;
}

/* The `linux` line of entry `id`: image and the words after it. */
static int find_entry(const char *config, const char *id, char *image, size_t image_len,
		      char *command_line, size_t command_line_len)
{
	const char *line;
	bool inside = false;

	for (line = config; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *c = line + strspn(line, " \t");
		char word[1024];
		size_t used;

		if (strncmp(c, "menuentry", 9) == 0)
			inside = entry_has_id(c + 9, id);
		else if (*c == '}')
			inside = false;
		if (!inside || strncmp(c, "linux", 5) != 0 || (c[5] != ' ' && c[5] != '\t'))
			continue;
		c = next_word(c + 5, image, image_len);
		if (!c)
			return -ENOENT;
		used = (size_t)snprintf(command_line, command_line_len, "BOOT_IMAGE=%s", image);
		while (used < command_line_len && (c = next_word(c, word, sizeof(word))))
			used += (size_t)snprintf(command_line + used, command_line_len - used, " %s",
						 word);
		return 0;
	}
	return -ENOENT;
}

int grub_firmware_choose(const char *boot_dir, char *image, size_t image_len,
			 char *command_line, size_t command_line_len, char *error,
			 size_t error_len)
{
	char env_path[PATH_MAX], config_path[PATH_MAX], block[ENV_MAX], choice[256], *config;
	size_t size = 0;
	int rc;

	error[0] = '\0';
	snprintf(env_path, sizeof(env_path), "%s/grub/grubenv", boot_dir);
	snprintf(config_path, sizeof(config_path), "%s/grub/rackbisect.cfg", boot_dir);
	rc = read_env(env_path, block, &size);
	if (rc == -ENOENT)
		return 0;		/* no environment: GRUB's default */
	if (rc) {
		snprintf(error, error_len, "GRUB cannot load its environment %s: %s", env_path,
			 strerror(-rc));
		return rc;
	}
	env_value(block, "next_entry", choice, sizeof(choice));
	if (!choice[0])
		return 0;
	rc = clear_next_entry(env_path, block, size);
	if (rc) {
		snprintf(error, error_len, "GRUB cannot save its environment %s: %s", env_path,
			 strerror(-rc));
		return rc;
	}
	config = files_read_text(config_path);
	rc = config ? find_entry(config, choice, image, image_len, command_line, command_line_len)
		    : -ENOENT;
	free(config);
	if (rc) {
		snprintf(error, error_len, "GRUB: next_entry '%s' names no entry with a linux line "
			 "in %s: booting the default", choice, config_path);
		return 0;
	}
	return 1;
}
