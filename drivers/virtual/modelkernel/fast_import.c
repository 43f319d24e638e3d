/* fast_import.c - see fast_import.h. */
#include "fast_import.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "git_command.h"
#include "text_buffer.h"

/* Sending in big pieces keeps the syscall count low for 10,000 commits. */
#define FLUSH_THRESHOLD (256 * 1024)

struct fast_import {
	pid_t pid;
	/* our end of fast-import's stdin: a socket, so that a dead fast-import
	 * gives EPIPE from send(MSG_NOSIGNAL) instead of killing us by SIGPIPE */
	int stream_fd;
	int response_fd;	/* read end of fast-import's --cat-blob-fd=3 */
	struct text_buffer pending;
	unsigned long last_mark;
	int error;
};

static int spawn_fast_import(struct fast_import *import, const char *repository)
{
	const char *argv[] = { "git", "-C", repository, "fast-import", "--quiet",
			       "--done", "--date-format=raw", "--cat-blob-fd=3",
			       "--active-branches=64", NULL };
	int stream[2], response[2];
	int rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, stream) != 0)
		return -errno;
	if (pipe2(response, O_CLOEXEC) != 0) {
		rc = -errno;
		close(stream[0]);
		close(stream[1]);
		return rc;
	}
	rc = git_command_spawn(argv, stream[1], -1, response[1], &import->pid);
	close(stream[1]);
	close(response[1]);
	if (rc != 0) {
		close(stream[0]);
		close(response[0]);
		return rc;
	}
	import->stream_fd = stream[0];
	import->response_fd = response[0];
	return 0;
}

int fast_import_start(const char *repository, struct fast_import **out)
{
	struct fast_import *import = calloc(1, sizeof(*import));
	int rc;

	if (!import)
		return -ENOMEM;
	text_buffer_init(&import->pending);
	rc = spawn_fast_import(import, repository);
	if (rc != 0) {
		free(import);
		return rc;
	}
	*out = import;
	return 0;
}

unsigned long fast_import_new_mark(struct fast_import *import)
{
	return ++import->last_mark;
}

static void send_all(struct fast_import *import, const char *bytes, size_t length)
{
	while (length > 0 && import->error == 0) {
		ssize_t sent = send(import->stream_fd, bytes, length, MSG_NOSIGNAL);

		if (sent < 0) {
			if (errno != EINTR)
				import->error = -errno;
			continue;
		}
		bytes += sent;
		length -= (size_t)sent;
	}
}

int fast_import_flush(struct fast_import *import)
{
	if (import->error == 0 && import->pending.error)
		import->error = import->pending.error;
	send_all(import, import->pending.text, import->pending.length);
	text_buffer_clear(&import->pending);
	return import->error;
}

static void flush_when_full(struct fast_import *import)
{
	if (import->pending.length >= FLUSH_THRESHOLD)
		fast_import_flush(import);
}

void fast_import_write(struct fast_import *import, const char *bytes, size_t length)
{
	text_buffer_append(&import->pending, bytes, length);
	flush_when_full(import);
}

void fast_import_printf(struct fast_import *import, const char *format, ...)
{
	char small[512];
	va_list args;
	int needed;

	va_start(args, format);
	needed = vsnprintf(small, sizeof(small), format, args);
	va_end(args);
	if (needed < 0) {
		import->error = import->error ? import->error : -EINVAL;
		return;
	}
	if ((size_t)needed < sizeof(small)) {
		fast_import_write(import, small, (size_t)needed);
		return;
	}
	{
		char *large = malloc((size_t)needed + 1);

		if (!large) {
			import->error = import->error ? import->error : -ENOMEM;
			return;
		}
		va_start(args, format);
		vsnprintf(large, (size_t)needed + 1, format, args);
		va_end(args);
		fast_import_write(import, large, (size_t)needed);
		free(large);
	}
}

void fast_import_data(struct fast_import *import, const char *bytes, size_t length)
{
	fast_import_printf(import, "data %zu\n", length);
	fast_import_write(import, bytes, length);
	fast_import_write(import, "\n", 1);
}

static int read_exactly(int fd, char *into, size_t length)
{
	while (length > 0) {
		ssize_t got = read(fd, into, length);

		if (got == 0)
			return -EIO;	/* fast-import died before answering */
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		into += got;
		length -= (size_t)got;
	}
	return 0;
}

int fast_import_commit_id(struct fast_import *import, unsigned long mark,
			  char id[GIT_COMMIT_ID_LENGTH + 1])
{
	char answer[GIT_COMMIT_ID_LENGTH + 1];
	int rc;

	fast_import_printf(import, "get-mark :%lu\n", mark);
	rc = fast_import_flush(import);
	if (rc != 0)
		return rc;
	rc = read_exactly(import->response_fd, answer, sizeof(answer));
	if (rc != 0 || answer[GIT_COMMIT_ID_LENGTH] != '\n') {
		import->error = rc ? rc : -EPROTO;
		return import->error;
	}
	memcpy(id, answer, GIT_COMMIT_ID_LENGTH);
	id[GIT_COMMIT_ID_LENGTH] = '\0';
	return 0;
}

static void release(struct fast_import *import)
{
	if (import->stream_fd >= 0)
		close(import->stream_fd);
	if (import->response_fd >= 0)
		close(import->response_fd);
	text_buffer_free(&import->pending);
	free(import);
}

int fast_import_finish(struct fast_import *import)
{
	int rc, wait_rc;

	fast_import_write(import, "done\n", 5);
	rc = fast_import_flush(import);
	close(import->stream_fd);
	import->stream_fd = -1;
	wait_rc = git_command_wait(import->pid);
	release(import);
	return rc ? rc : wait_rc;
}

void fast_import_abort(struct fast_import *import)
{
	/* without `done`, --done makes fast-import fail instead of importing */
	close(import->stream_fd);
	import->stream_fd = -1;
	kill(import->pid, SIGTERM);
	(void)git_command_wait(import->pid);
	release(import);
}
