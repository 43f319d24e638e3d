/*
 * commit_message.h - the words of the model kernel history: subjects,
 * bodies and trailers of ordinary patches, merge messages, and the messages
 * of build fixes, in the conventions of 2012 kernel development
 * ("subsystem: do thing", Signed-off-by chains, "Merge branch 'for-linus'
 * of git://...").
 */
#ifndef RB_COMMIT_MESSAGE_H
#define RB_COMMIT_MESSAGE_H

#include <stddef.h>

#include "filler.h"
#include "kernel_subsystems.h"
#include "seeded_random.h"
#include "text_buffer.h"

/* Subject ("prefix: ...") and body (ending in a newline) of an ordinary
 * patch whose main file is `file`, both about the same function, document
 * or tunable. */
void commit_message_patch(const struct filler_file *file, int is_fix,
			  struct seeded_random *random, struct text_buffer *subject,
			  struct text_buffer *body);

struct commit_trailers {
	const struct kernel_person *author;
	const struct kernel_person *committer;	/* applied the patch; may be the author */
	int via_akpm;			/* no subsystem tree: akpm, then Linus sign */
	const char *fixes_id;		/* 12 hex digits, or NULL */
	const char *fixes_subject;
	const struct kernel_person *reported_by;	/* or NULL */
	int cc_stable;			/* "Cc: stable@vger.kernel.org" */
	int review_tags;		/* may add Acked-by/Reviewed-by/Tested-by/Cc */
};

/* The trailer block (Fixes:, Signed-off-by: ..., ending in a newline). */
void commit_message_trailers(const struct commit_trailers *trailers,
			     struct seeded_random *random, struct text_buffer *out);

/* "Merge branch 'for-linus' of git://..." with git's shortlog of `subjects`
 * (oldest first, as the branch's commits were made). */
void commit_message_merge(const struct kernel_subsystem *subsystem,
			  char *const *subjects, size_t subject_count,
			  struct text_buffer *out);

/* Subject and body of the commit fixing a build break. */
void commit_message_build_fix(const struct filler_file *file, const char *compiler_error,
			      const char *summary, const char *broken_id,
			      const char *broken_subject, struct text_buffer *subject,
			      struct text_buffer *body);

#endif
