/* log.c - structured event lines and a progress line. */
#include "log.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "store.h"

void log_init(struct log *log, FILE *stream, bool verbose, struct store *store)
{
	memset(log, 0, sizeof(*log));
	log->stream = stream;
	log->terminal = isatty(fileno(stream));
	log->verbose = verbose;
	log->store = store;
}

void log_progress_clear(struct log *log)
{
	if (log->progress_shown) {
		fputs("\r\033[K", log->stream);
		log->progress_shown = false;
	}
}

/* A detail goes in double quotes with quotes and line ends escaped, so each
 * event stays one line that `key=value` tools can split. */
static void print_quoted(FILE *stream, const char *text)
{
	const char *c;

	fputc('"', stream);
	for (c = text; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(stream, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", stream);
		else if ((unsigned char)*c < 0x20 || *c == 0x7f)
			fputc(' ', stream);	/* no byte of a board's text acts on a terminal */
		else
			fputc(*c, stream);
	}
	fputc('"', stream);
}

void log_event(struct log *log, enum log_level level, const char *board, int64_t run_id,
	       const char *event, const char *detail_format, ...)
{
	char detail[2048] = "";
	va_list args;

	if (detail_format) {
		va_start(args, detail_format);
		vsnprintf(detail, sizeof(detail), detail_format, args);
		va_end(args);
	}
	if (log->store) {
		/* The event log is a record, not a control path: a failing append
		 * (full disk) must not stop the run; the result writes report it. */
		(void)store_event_append(log->store, &(struct store_event){
			.board = board, .run_id = run_id, .kind = event,
			.detail = detail_format ? detail : NULL });
	}
	if (log->terminal && !log->verbose && level == LOG_INFO)
		return;
	log_progress_clear(log);
	if (board)
		fprintf(log->stream, "board=%s ", board);
	if (run_id)
		fprintf(log->stream, "run=%lld ", (long long)run_id);
	fprintf(log->stream, "event=%s", event);
	if (detail_format) {
		fputs(" detail=", log->stream);
		print_quoted(log->stream, detail);
	}
	fputc('\n', log->stream);
	fflush(log->stream);
}

void log_progress(struct log *log, const char *format, ...)
{
	va_list args;

	if (!log->terminal)
		return;
	fputs("\r\033[K", log->stream);
	va_start(args, format);
	vfprintf(log->stream, format, args);
	va_end(args);
	fflush(log->stream);
	log->progress_shown = true;
}

void log_vstep(struct log *log, const char *event, log_say_cb say, void *say_data,
	       const char *format, va_list args)
{
	char line[1024];

	vsnprintf(line, sizeof(line), format, args);
	log_event(log, LOG_INFO, NULL, 0, event, "%s", line);
	if (say)
		say(line, say_data);
}
