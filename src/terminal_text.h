/*
 * terminal_text.h - text from outside (a kernel log line, a PDU's or LAVA's
 * answer, a ref someone typed) printed so that no byte of it acts on the
 * terminal: control characters other than newline and tab are shown as
 * \xNN, so none moves the cursor, changes colours or sets the window's
 * title. Bytes from 0x80 up pass: they are UTF-8.
 *
 *   terminal_printf(stdout, "  %s: %s\n", symptom, evidence);
 */
#ifndef RB_TERMINAL_TEXT_H
#define RB_TERMINAL_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Writes length bytes of text, escaped. */
void terminal_text_write(FILE *out, const char *text, size_t length);

/* printf, then the whole line escaped (the format's own newlines pass). */
void terminal_vprintf(FILE *out, const char *format, va_list args);
void terminal_printf(FILE *out, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif
