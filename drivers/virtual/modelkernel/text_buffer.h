/*
 * text_buffer.h - a growable string with a sticky allocation error.
 *
 * The history generator builds thousands of file texts and commit messages;
 * checking every append would drown the logic, so appends record a failure
 * and the owner checks it once (text_buffer_error) before using the text.
 */
#ifndef RB_TEXT_BUFFER_H
#define RB_TEXT_BUFFER_H

#include <stddef.h>

struct text_buffer {
	char *text;		/* always NUL-terminated once anything was appended */
	size_t length;
	size_t capacity;
	int error;		/* 0 or -ENOMEM from the first failed append */
};

void text_buffer_init(struct text_buffer *buffer);
void text_buffer_append(struct text_buffer *buffer, const char *bytes, size_t length);
void text_buffer_append_string(struct text_buffer *buffer, const char *string);
void text_buffer_printf(struct text_buffer *buffer, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* Empties the text but keeps the memory for reuse. */
void text_buffer_clear(struct text_buffer *buffer);
/* Hands the text to the caller (never NULL unless the buffer failed) and
 * leaves the buffer empty; after a failed append it frees the text. */
char *text_buffer_take(struct text_buffer *buffer);
void text_buffer_free(struct text_buffer *buffer);

#endif
