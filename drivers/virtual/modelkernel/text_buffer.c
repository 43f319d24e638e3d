/* text_buffer.c - see text_buffer.h. */
#include "text_buffer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void text_buffer_init(struct text_buffer *buffer)
{
	buffer->text = NULL;
	buffer->length = 0;
	buffer->capacity = 0;
	buffer->error = 0;
}

static int text_buffer_reserve(struct text_buffer *buffer, size_t extra)
{
	size_t wanted = buffer->length + extra + 1;
	size_t capacity = buffer->capacity ? buffer->capacity : 256;
	char *grown;

	if (buffer->error)
		return buffer->error;
	if (wanted <= buffer->capacity)
		return 0;
	while (capacity < wanted)
		capacity *= 2;
	grown = realloc(buffer->text, capacity);
	if (!grown) {
		buffer->error = -ENOMEM;
		return buffer->error;
	}
	buffer->text = grown;
	buffer->capacity = capacity;
	return 0;
}

void text_buffer_append(struct text_buffer *buffer, const char *bytes, size_t length)
{
	if (text_buffer_reserve(buffer, length) != 0)
		return;
	memcpy(buffer->text + buffer->length, bytes, length);
	buffer->length += length;
	buffer->text[buffer->length] = '\0';
}

void text_buffer_append_string(struct text_buffer *buffer, const char *string)
{
	text_buffer_append(buffer, string, strlen(string));
}

void text_buffer_printf(struct text_buffer *buffer, const char *format, ...)
{
	va_list args;
	int needed;

	va_start(args, format);
	needed = vsnprintf(NULL, 0, format, args);
	va_end(args);
	if (needed < 0) {
		buffer->error = buffer->error ? buffer->error : -EINVAL;
		return;
	}
	if (text_buffer_reserve(buffer, (size_t)needed) != 0)
		return;
	va_start(args, format);
	vsnprintf(buffer->text + buffer->length, (size_t)needed + 1, format, args);
	va_end(args);
	buffer->length += (size_t)needed;
}

void text_buffer_clear(struct text_buffer *buffer)
{
	buffer->length = 0;
	if (buffer->text)
		buffer->text[0] = '\0';
}

char *text_buffer_take(struct text_buffer *buffer)
{
	char *text;

	if (text_buffer_reserve(buffer, 0) != 0) {
		text_buffer_free(buffer);
		return NULL;
	}
	text = buffer->text;
	text_buffer_init(buffer);
	return text;
}

void text_buffer_free(struct text_buffer *buffer)
{
	free(buffer->text);
	text_buffer_init(buffer);
}
