/* files.c - whole-file reads and writes that never expose half a file; rm -rf. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"

char *files_read_text(const char *path)
{
	FILE *file = fopen(path, "r");
	char *text = NULL;
	size_t size = 0;
	ssize_t len;

	if (!file)
		return NULL;
	len = getdelim(&text, &size, '\0', file);
	fclose(file);
	if (len < 0) {
		free(text);
		text = strdup("");	/* an empty file */
	}
	return text;
}

int files_read_line(const char *path, char *line, size_t len)
{
	FILE *file = fopen(path, "r");

	if (!file)
		return -errno;
	if (!fgets(line, (int)len, file)) {
		fclose(file);
		return -EIO;
	}
	fclose(file);
	line[strcspn(line, "\n")] = '\0';
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes `len` bytes from `data` (or copies fd `source`) to a temporary file
 * beside `path` and renames it over `path`. */
static int replace_file(const char *path, const char *data, size_t len, int source, mode_t mode)
{
	char temporary[4096];
	char buffer[65536];
	int fd, rc = 0;
	ssize_t n;

	if (path_format(temporary, sizeof(temporary), "%s.new", path))
		return -ENAMETOOLONG;
	fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (source < 0) {
		rc = write_all(fd, data, len);
	} else {
		while (!rc && (n = read(source, buffer, sizeof(buffer))) > 0)
			rc = write_all(fd, buffer, (size_t)n);
		if (!rc && n < 0)
			rc = -errno;
	}
	if (close(fd) != 0 && !rc)
		rc = -errno;
	if (!rc && rename(temporary, path) != 0)
		rc = -errno;
	if (rc)
		unlink(temporary);
	return rc;
}

int files_write_atomic(const char *path, const char *text)
{
	return replace_file(path, text, strlen(text), -1, 0644);
}

int files_write_in_place(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ssize_t len = (ssize_t)strlen(text);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (pwrite(fd, text, (size_t)len, 0) != len || ftruncate(fd, len) != 0)
		rc = -errno;
	close(fd);
	return rc;
}

int files_copy(const char *from, const char *to, mode_t mode)
{
	int source = open(from, O_RDONLY | O_CLOEXEC);
	int rc;

	if (source < 0)
		return -errno;
	rc = replace_file(to, NULL, 0, source, mode);
	close(source);
	return rc;
}

static int remove_entry(const char *path, const struct stat *status, int type, struct FTW *walk)
{
	(void)status;
	(void)type;
	(void)walk;
	return remove(path) == 0 ? 0 : errno;	/* positive: nftw's own failure is -1 */
}

int files_remove_tree(const char *path)
{
	struct stat status;
	int rc;

	if (lstat(path, &status) != 0)
		return errno == ENOENT ? 0 : -errno;
	/* FTW_DEPTH: a directory after its contents; FTW_PHYS: a link is removed,
	 * never followed out of the tree */
	rc = nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return rc < 0 ? -errno : -rc;
}
