/*
 * The main of every fuzz harness. Under AFL++ (built with afl-cc, no
 * arguments) it runs in persistent mode, many inputs per process from
 * shared memory. Otherwise it replays the files it is given, one by one,
 * and prints one line per file: how make check turns every input AFL++
 * found interesting, and every crash it found, into a regression test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

/* Inputs are config files, job outputs and API answers: 1 MiB is past any
 * real one, and keeps a slow quadratic path from timing a fuzzer out. */
#define FUZZ_MAX_INPUT (1 << 20)

char *fuzz_text(const uint8_t *data, size_t size)
{
	size_t length = strnlen((const char *)data, size);
	char *text = malloc(length + 1);

	if (!text)
		return NULL;
	memcpy(text, data, length);
	text[length] = '\0';
	return text;
}

int fuzz_file(const uint8_t *data, size_t size, int *fd, char *path, size_t path_len)
{
	size_t written = 0;

	*fd = memfd_create("fuzz-input", 0);
	if (*fd < 0)
		return -errno;
	while (written < size) {
		ssize_t n = write(*fd, data + written, size - written);

		if (n < 0) {
			int rc = -errno;

			close(*fd);
			return rc;
		}
		written += (size_t)n;
	}
	snprintf(path, path_len, "/proc/self/fd/%d", *fd);
	return 0;
}

static int replay(const char *path, uint8_t *buffer)
{
	FILE *file = fopen(path, "rb");
	size_t size;

	if (!file) {
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return 1;
	}
	size = fread(buffer, 1, FUZZ_MAX_INPUT, file);
	fclose(file);
	fuzz_one(buffer, size);
	printf("replayed %s (%zu bytes)\n", path, size);
	return 0;
}

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();
#endif

int main(int argc, char **argv)
{
	uint8_t *buffer;
	int i, failed = 0;

#ifdef __AFL_FUZZ_TESTCASE_LEN
	if (argc < 2) {
		__AFL_INIT();
		buffer = __AFL_FUZZ_TESTCASE_BUF;
		while (__AFL_LOOP(10000)) {
			size_t size = __AFL_FUZZ_TESTCASE_LEN;

			fuzz_one(buffer, size > FUZZ_MAX_INPUT ? FUZZ_MAX_INPUT : size);
		}
		return 0;
	}
#endif
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...   (replays each file through the parser)\n", argv[0]);
		return 2;
	}
	buffer = malloc(FUZZ_MAX_INPUT);
	if (!buffer)
		return 1;
	for (i = 1; i < argc; i++)
		failed |= replay(argv[i], buffer);
	free(buffer);
	return failed;
}
