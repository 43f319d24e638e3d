/* variant.c - template tree + driver changes -> a built model kernel. */
#include "virtual/modelkernel/variant.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "virtual/modelkernel/template.h"

extern char **environ;

#define BZIMAGE "arch/x86/boot/bzImage"

static int make_parent_directories(const char *dir, const char *relative)
{
	char path[4096];
	char *p;
	size_t base;

	if (snprintf(path, sizeof(path), "%s/%s", dir, relative) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	base = strlen(dir) + 1;
	for (p = path + base; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static int write_file(const char *dir, const char *relative, const char *text, unsigned int mode)
{
	char path[4096];
	size_t len = strlen(text);
	int fd, r = 0;

	r = make_parent_directories(dir, relative);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s", dir, relative);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode == 100755 ? 0755 : 0644);
	if (fd < 0)
		return -errno;
	while (len && r == 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0)
			r = -errno;
		else {
			text += n;
			len -= (size_t)n;
		}
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* The template's text of one file after the variant's changes, malloc'd. */
static char *variant_text(enum driver_variant variant, const struct template_file *file)
{
	const enum driver_change_id *changes;
	size_t count = driver_variant_changes(variant, &changes), i;
	char *text = strdup(file->text);

	for (i = 0; i < count && text; i++) {
		const char *error = NULL;
		char *next = driver_change_apply(driver_change_get(changes[i]), file->path, text,
						 &error);

		free(text);
		text = next;
	}
	return text;
}

static int write_tree(enum driver_variant variant, const char *dir)
{
	unsigned long i;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	for (i = 0; i < template_file_count; i++) {
		const struct template_file *file = &template_files[i];
		char *text = variant_text(variant, file);
		int r;

		if (!text)
			return -ENOEXEC;
		r = write_file(dir, file->path, text, file->mode);
		free(text);
		if (r < 0)
			return r;
	}
	return 0;
}

static int overridden(const char *entry, char *const extra_env[])
{
	size_t name_len = strcspn(entry, "=");
	size_t i;

	for (i = 0; extra_env && extra_env[i]; i++)
		if (strncmp(extra_env[i], entry, name_len) == 0 && extra_env[i][name_len] == '=')
			return 1;
	return 0;
}

/* environ, minus what extra_env replaces, plus extra_env; malloc'd array. */
static char **make_environment(char *const extra_env[])
{
	size_t inherited = 0, extra = 0, n = 0, i;
	char **env;

	while (environ && environ[inherited])
		inherited++;
	while (extra_env && extra_env[extra])
		extra++;
	env = calloc(inherited + extra + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < inherited; i++)
		if (!overridden(environ[i], extra_env))
			env[n++] = environ[i];
	for (i = 0; i < extra; i++)
		env[n++] = extra_env[i];
	return env;
}

/* make -s -C dir, its chatter on stdout discarded, errors left on stderr. */
static int run_make(const char *dir, char *const extra_env[])
{
	char *argv[] = { "make", "-s", "-C", (char *)dir, NULL };
	posix_spawn_file_actions_t actions;
	char **env = make_environment(extra_env);
	pid_t pid;
	int status, r;

	if (!env)
		return -ENOMEM;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	r = posix_spawnp(&pid, "make", &actions, NULL, argv, env);
	posix_spawn_file_actions_destroy(&actions);
	free(env);
	if (r != 0)
		return -r;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

int modelkernel_build_variant(enum driver_variant variant, const char *dir,
			      char *so_path, size_t len)
{
	return modelkernel_build_variant_env(variant, dir, NULL, so_path, len);
}

int modelkernel_build_variant_env(enum driver_variant variant, const char *dir,
				  char *const extra_env[], char *so_path, size_t len)
{
	int r;

	if ((int)variant < 0 || variant >= DRIVER_VARIANT_COUNT || !dir || !so_path)
		return -EINVAL;
	if (snprintf(so_path, len, "%s/%s", dir, BZIMAGE) >= (int)len)
		return -ENAMETOOLONG;
	r = write_tree(variant, dir);
	if (r == 0)
		r = run_make(dir, extra_env);
	return r;
}
