/*
 * fuzz.h - what each harness under tests/fuzz/ gives fuzz_main.c.
 *
 * A harness is one parser of input rackbisect does not control (lab and job
 * YAML, KTAP from a board, LAVA's answers, commit messages). fuzz_main.c runs
 * it under AFL++ (`make fuzz`) or replays saved inputs through it under
 * ASan and UBSan (`make check`: tests/integration/test_fuzz_corpora.sh).
 */
#ifndef RB_FUZZ_H
#define RB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Feeds one input to the parser. Must not keep state between calls: AFL++
 * runs thousands of inputs in one process. */
void fuzz_one(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (bytes after a NUL are kept out);
 * free() it. NULL only when out of memory. */
char *fuzz_text(const uint8_t *data, size_t size);

/* The input as a file the loaders can open by path (an in-memory file,
 * /proc/self/fd/N); close(*fd) after. 0 or -errno. */
int fuzz_file(const uint8_t *data, size_t size, int *fd, char *path, size_t path_len);

#endif
