/*
 * fast_import.h - writes a `git fast-import` stream into a running
 * fast-import process.
 *
 * The stream goes to fast-import's standard input through a buffer; commit
 * ids are asked back with `get-mark` (answered on fast-import's descriptor
 * 3), which is how the generator learns a mainline commit's id in time to
 * quote it in a later message ("commit <id> upstream.", "Fixes: <id>").
 *
 * Errors are sticky: writers record the first failure and fast_import_flush,
 * fast_import_commit_id and fast_import_finish report it, so stream-building
 * code need not check every line.
 */
#ifndef RB_FAST_IMPORT_H
#define RB_FAST_IMPORT_H

#include <stddef.h>

#define GIT_COMMIT_ID_LENGTH 40

struct fast_import;

/* Starts `git -C repository fast-import` on an existing repository. */
int fast_import_start(const char *repository, struct fast_import **out);

/* A fresh mark number (1, 2, ...) for a blob or commit of this stream. */
unsigned long fast_import_new_mark(struct fast_import *import);

void fast_import_write(struct fast_import *import, const char *bytes, size_t length);
void fast_import_printf(struct fast_import *import, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* A `data` command holding `bytes` exactly. */
void fast_import_data(struct fast_import *import, const char *bytes, size_t length);

/* Sends what is buffered. 0 or the first error of the stream. */
int fast_import_flush(struct fast_import *import);

/* The 40-hex id of the object `mark` names (written before this call). */
int fast_import_commit_id(struct fast_import *import, unsigned long mark,
			  char id[GIT_COMMIT_ID_LENGTH + 1]);

/* Ends the stream, waits for fast-import and frees `import`: 0 when every
 * command was accepted, else the first error (-EIO: fast-import failed, its
 * message went to standard error). */
int fast_import_finish(struct fast_import *import);

/* Stops fast-import without completing the import and frees `import`. */
void fast_import_abort(struct fast_import *import);

#endif
