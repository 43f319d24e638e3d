/*
 * log.h - what a coordinator tells people while it works: structured event
 * lines (`board=vb03 run=41 event=hang detail="..."`), also appended to the
 * store's event log, and on a terminal one progress line kept at the bottom.
 *
 * On a terminal only notable events are printed (hangs, INFRA, boards going
 * offline) unless verbose; elsewhere (CI logs, cron mail) every event is,
 * since nobody watches a progress line there.
 */
#ifndef RB_LOG_H
#define RB_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct store;

enum log_level { LOG_INFO, LOG_NOTICE };

struct log {
	FILE *stream;		/* stderr */
	bool terminal;		/* show a progress line */
	bool verbose;		/* print every event */
	struct store *store;	/* NULL: events are not stored */
	bool progress_shown;
};

void log_init(struct log *log, FILE *stream, bool verbose, struct store *store);

/* board may be NULL, run_id 0; detail is printf-style, may be NULL. */
void log_event(struct log *log, enum log_level level, const char *board, int64_t run_id,
	       const char *event, const char *detail_format, ...)
	__attribute__((format(printf, 6, 7)));

/* A step of a long command (a bisection round, a gate's round): one line
 * for the person (through `say`, may be NULL) that is also an event. */
typedef void (*log_say_cb)(const char *line, void *data);
void log_vstep(struct log *log, const char *event, log_say_cb say, void *say_data,
	       const char *format, va_list args) __attribute__((format(printf, 5, 0)));

/* Replaces the progress line (terminal only). */
void log_progress(struct log *log, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Removes it before normal output follows. */
void log_progress_clear(struct log *log);

#endif
