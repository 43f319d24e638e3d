/* terminal_text.c - see terminal_text.h. */
#include "terminal_text.h"

#include <stdlib.h>

void terminal_text_write(FILE *out, const char *text, size_t length)
{
	for (size_t i = 0; i < length; i++) {
		unsigned char byte = (unsigned char)text[i];

		if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f)
			fprintf(out, "\\x%02x", byte);
		else
			fputc(byte, out);
	}
}

void terminal_vprintf(FILE *out, const char *format, va_list args)
{
	char *text = NULL;
	int length = vasprintf(&text, format, args);

	if (length < 0)
		return;
	terminal_text_write(out, text, (size_t)length);
	free(text);
}

void terminal_printf(FILE *out, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	terminal_vprintf(out, format, args);
	va_end(args);
}
