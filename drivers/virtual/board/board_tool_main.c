/*
 * rackbisect-board-tool: what iw, ping, sleep, dmesg, uname, ip, kexec and
 * reboot are on a virtual board. See tool_protocol.h. Small and without
 * sanitizers on purpose: a workload starts it thousands of times.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "virtual/board/tool_protocol.h"

static int write_all(int fd, const void *data, size_t len)
{
	const char *at = data;

	while (len) {
		ssize_t n = write(fd, at, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		at += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *data, size_t len)
{
	char *at = data;

	while (len) {
		ssize_t n = read(fd, at, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		at += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_string(int fd, const char *text)
{
	char header[32];
	int len = snprintf(header, sizeof(header), "%zu\n", strlen(text));

	if (write_all(fd, header, (size_t)len))
		return -1;
	return write_all(fd, text, strlen(text));
}

static int send_request(int fd, int argc, char **argv)
{
	char header[32];
	char cwd[4096];
	int i, len;

	if (!getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, "/");
	len = snprintf(header, sizeof(header), "%s%d\n", TOOL_PROTOCOL_MAGIC, argc);
	if (write_all(fd, header, (size_t)len))
		return -1;
	for (i = 0; i < argc; i++) {
		if (send_string(fd, argv[i]))
			return -1;
	}
	return send_string(fd, cwd);
}

static uint32_t big_endian(const unsigned char bytes[4])
{
	return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

/* Copies frames to stdout/stderr until the exit frame; returns the status. */
static int relay_answer(int fd, const char *tool)
{
	unsigned char header[5];
	char buffer[65536];

	for (;;) {
		uint32_t len;

		if (read_all(fd, header, sizeof(header))) {
			fprintf(stderr, "%s: the virtual board closed the connection\n", tool);
			return 255;
		}
		len = big_endian(header + 1);
		if (header[0] == TOOL_FRAME_EXIT) {
			unsigned char status[4];
			if (len != 4 || read_all(fd, status, 4))
				return 255;
			return (int)big_endian(status);
		}
		while (len) {
			size_t chunk = len < sizeof(buffer) ? len : sizeof(buffer);
			if (read_all(fd, buffer, chunk))
				return 255;
			write_all(header[0] == TOOL_FRAME_STDERR ? 2 : 1, buffer, chunk);
			len -= (uint32_t)chunk;
		}
	}
}

int main(int argc, char **argv)
{
	const char *path = getenv(TOOL_SOCKET_ENV);
	const char *tool = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	int fd;

	if (strcmp(tool, "rackbisect-board-tool") == 0) {
		if (argc < 2) {
			fprintf(stderr, "usage: rackbisect-board-tool TOOL [ARGS]\n");
			return 2;
		}
		argv++;
		argc--;
		tool = argv[0];
	}
	argv[0] = (char *)tool;
	if (!path || !*path)
		path = TOOL_SOCKET_DEFAULT;
	if (strlen(path) >= sizeof(address.sun_path)) {
		fprintf(stderr, "%s: socket path too long: %s\n", tool, path);
		return 126;
	}
	strcpy(address.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof(address))) {
		fprintf(stderr, "%s: cannot reach the virtual board at %s: %s\n", tool, path,
			strerror(errno));
		return 126;
	}
	if (send_request(fd, argc, argv)) {
		fprintf(stderr, "%s: the virtual board did not take the request\n", tool);
		return 126;
	}
	return relay_answer(fd, tool);
}
