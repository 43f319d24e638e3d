#include "transport/shell_quote.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Single quotes make every character literal except the single quote
 * itself, which has to close the quoting, be escaped, and reopen it: '\''.
 */
static size_t quoted_word_length(const char *word)
{
	size_t length = 2;

	for (; *word; word++)
		length += *word == '\'' ? 4 : 1;
	return length;
}

static char *append_quoted_word(char *cursor, const char *word)
{
	*cursor++ = '\'';
	for (; *word; word++) {
		if (*word == '\'') {
			memcpy(cursor, "'\\''", 4);
			cursor += 4;
		} else {
			*cursor++ = *word;
		}
	}
	*cursor++ = '\'';
	return cursor;
}

int shell_quote_argv(const char *const *argv, char **command_out)
{
	size_t total = 1;
	size_t index;
	char *command, *cursor;

	if (argv == NULL || argv[0] == NULL)
		return -EINVAL;
	for (index = 0; argv[index]; index++)
		total += quoted_word_length(argv[index]) + 1;
	command = malloc(total);
	if (command == NULL)
		return -ENOMEM;
	cursor = command;
	for (index = 0; argv[index]; index++) {
		if (index > 0)
			*cursor++ = ' ';
		cursor = append_quoted_word(cursor, argv[index]);
	}
	*cursor = '\0';
	*command_out = command;
	return 0;
}
