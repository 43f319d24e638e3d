/*
 * Text from boards and servers printed for a person: no byte of it may act
 * on the terminal (issue 31: kernel log lines and pdudaemon's error bodies
 * reached it raw).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terminal_text.h"

static char *printed(const char *format, const char *argument)
{
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	assert_non_null(out);
	terminal_printf(out, format, argument);
	fclose(out);
	return text;
}

static void test_control_characters_are_shown_not_obeyed(void **state)
{
	char *text;

	(void)state;
	/* a colour change, a window title, a carriage return over the line,
	 * a bell, DEL; then newline, tab and UTF-8, which pass */
	text = printed("evidence: %s\n",
		       "\x1b[31mred\x1b]0;title\a\rover\x7f\tx\xc3\xa9");
	assert_string_equal(text, "evidence: \\x1b[31mred\\x1b]0;title\\x07\\x0dover\\x7f\tx\xc3\xa9\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_characters_are_shown_not_obeyed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
