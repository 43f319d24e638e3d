/*
 * The 52 strings of tests/data/hostile-strings as words of a command to a
 * board (a workload's parameters are such words): shell_quote_argv() makes
 * the one command line SSH carries, a real sh runs it, and each word must
 * arrive whole, byte for byte, with nothing in it run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/shell_quote.h"

#define HOSTILE_STRINGS "tests/data/hostile-strings"

/* The file's strings with @CANARY@ made `canary`; returns how many. */
static size_t load_words(const char *canary, char **words, size_t max)
{
	FILE *file = fopen(HOSTILE_STRINGS, "rb");
	char *line = NULL;
	size_t capacity = 0, count = 0;
	ssize_t length;

	assert_non_null(file);
	while (count < max && (length = getdelim(&line, &capacity, '\0', file)) > 0) {
		char *at = strstr(line, "@CANARY@");
		size_t size = (size_t)length + strlen(canary) + 1;

		words[count] = malloc(size);
		assert_non_null(words[count]);
		if (at)
			snprintf(words[count], size, "%.*s%s%s", (int)(at - line), line, canary,
				 at + strlen("@CANARY@"));
		else
			snprintf(words[count], size, "%s", line);
		count++;
	}
	free(line);
	fclose(file);
	return count;
}

static void test_each_hostile_word_reaches_sh_whole(void **state)
{
	char directory[] = "/tmp/rackbisect-hostile-words-XXXXXX", canary[64], *words[64];
	size_t count, i;

	(void)state;
	assert_non_null(mkdtemp(directory));
	snprintf(canary, sizeof(canary), "%s/pwned", directory);
	count = load_words(canary, words, 64);
	assert_int_equal(count, 52);
	for (i = 0; i < count; i++) {
		const char *argv[] = { "printf", "%s|", words[i], words[i], NULL };
		char *command = NULL, *expected = NULL, output[16384];
		size_t got;
		FILE *sh;

		assert_int_equal(shell_quote_argv(argv, &command), 0);
		sh = popen(command, "r");
		assert_non_null(sh);
		got = fread(output, 1, sizeof(output), sh);
		assert_int_equal(pclose(sh), 0);
		assert_true(asprintf(&expected, "%s|%s|", words[i], words[i]) > 0);
		if (got != strlen(expected) || memcmp(output, expected, got) != 0)
			fail_msg("word %zu came back as %zu bytes, not %zu", i + 1, got, strlen(expected));
		free(expected);
		free(command);
		free(words[i]);
	}
	/* nothing of any word ran as a command */
	assert_int_equal(access(canary, F_OK), -1);
	for (i = 1; i <= 14; i++) {
		char path[96];

		snprintf(path, sizeof(path), "%s-%zu", canary, i);
		assert_int_equal(access(path, F_OK), -1);
	}
	assert_int_equal(rmdir(directory), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_hostile_word_reaches_sh_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
