/* commit_message.c - see commit_message.h. */
#include "commit_message.h"

#include <string.h>

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))



/* Subject and body of one kind of patch; both name the same symbol. */
struct patch_words {
	const char *subject;
	const char *body;
};

static const struct patch_words fix_words[] = {
	{ "fix memory leak in %s()",
	  "%s() returns early when the hardware does not respond, but it does not\n"
	  "release what it allocated before. Free it on the error path as well.\n" },
	{ "fix NULL pointer dereference in %s()",
	  "%s() dereferences its argument before checking it for NULL, which\n"
	  "crashes when the optional resource is missing. Check first.\n" },
	{ "fix use after free in %s()",
	  "If %s() is called while the device is being removed, it can touch\n"
	  "memory that was already freed. Take the lock before looking at the\n"
	  "device state, and bail out if it is going away.\n" },
	{ "fix incorrect return value of %s()",
	  "The error code of %s() was overwritten by the cleanup path, so callers\n"
	  "saw success although the operation failed. Keep the first error.\n" },
	{ "fix deadlock in %s()",
	  "Lockdep reports a possible circular locking dependency between the\n"
	  "configuration lock and the work queue in %s(). Drop the lock before\n"
	  "cancelling the work.\n" },
	{ "fix off-by-one in %s()",
	  "The loop in %s() runs one element past the end of the table when it\n"
	  "is completely filled.\n" },
	{ "add missing unlock in %s()",
	  "The error path of %s() returns with the spinlock still held, and the\n"
	  "next caller spins forever. Unlock before returning.\n" },
	{ "check the return value of %s()",
	  "%s() can fail when the firmware is not loaded yet, but its callers\n"
	  "carry on as if it had succeeded. Propagate the error.\n" },
	{ "handle allocation failure in %s()",
	  "%s() uses the buffer it allocated without checking for NULL. Return\n"
	  "-ENOMEM instead of oopsing under memory pressure.\n" },
};

static const struct patch_words change_words[] = {
	{ "clean up %s()",
	  "%s() has grown a few special cases over time that are no longer\n"
	  "needed. Remove them; no functional change.\n" },
	{ "convert %s() to devm_* helpers",
	  "Use the managed resource helpers in %s(), so that the error paths and\n"
	  "the remove path no longer need to release everything by hand.\n" },
	{ "remove unused variable in %s()",
	  "The result of this computation in %s() is never used since the last\n"
	  "rework. Drop it.\n" },
	{ "move %s() into a helper",
	  "Prepare %s() for the upcoming changes by splitting the hardware\n"
	  "specific part out of it.\n" },
	{ "simplify %s()",
	  "Use the common helpers instead of open-coding the same sequence in\n"
	  "%s(). This makes the code shorter and easier to follow.\n" },
	{ "make %s() static",
	  "%s() is only used in this file. Make it static; sparse warned about it.\n" },
	{ "use dev_err instead of printk in %s()",
	  "Messages from %s() did not say which device they were about.\n" },
};









static const struct patch_words document_words[] = {
	{ "fix typos in %s", "Fix a few typos and a wrong default value in %s.\n" },
	{ "update %s",
	  "%s still describes the interface as it was before the last rework.\n"
	  "Bring it up to date.\n" },
	{ "remove stale references from %s",
	  "Nobody reads the references in %s any more: the code they point to\n"
	  "is long gone. Remove them.\n" },
};

static const struct patch_words kconfig_words[] = {
	{ "fix dependencies of %s",
	  "%s can be selected on configurations where its dependencies are\n"
	  "missing, which breaks randconfig builds. Add the missing dependency.\n" },
	{ "add help text for %s",
	  "Say what %s is for, so that people configuring a kernel do not have\n"
	  "to read the code to decide.\n" },
};

static const struct patch_words compiled_words[] = {
	{ "tune the default of %s",
	  "The %s default was picked years ago for much slower machines.\n"
	  "Measurements on current hardware show a better value.\n" },
	{ "add a %s tunable",
	  "Add a %s tunable so that the behaviour can be adjusted without a\n"
	  "rebuild.\n" },
};

static const char *const closing_lines[] = {
	"Found by code inspection.\n",
	"Found with smatch.\n",
	"Tested on x86_64 and ARM.\n",
	"This was reported on the mailing list some time ago.\n",
};

static const char *pick(const char *const *list, size_t count, struct seeded_random *random)
{
	return list[seeded_random_below(random, count)];
}

static void append_symbol(const struct filler_file *file, struct seeded_random *random,
			  struct text_buffer *out)
{
	text_buffer_printf(out, "%s_%s", file->symbol_prefix,
			   kernel_symbol_word(seeded_random_below(random, kernel_symbol_word_count())));
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void append_patch_symbol(const struct filler_file *file, struct seeded_random *random,
				struct text_buffer *out)
{
	switch (file->kind) {
	case FILLER_DOCUMENT:
		text_buffer_append_string(out, base_name(file->path));
		break;
	case FILLER_COMPILED:
		text_buffer_append_string(out, kernel_symbol_word(
			seeded_random_below(random, kernel_symbol_word_count())));
		break;
	default:
		append_symbol(file, random, out);
		break;
	}
}

static void append_with_symbol(const char *format, const char *symbol, struct text_buffer *out)
{
	const char *at = strstr(format, "%s");

	if (!at) {
		text_buffer_append_string(out, format);
		return;
	}
	text_buffer_append(out, format, (size_t)(at - format));
	text_buffer_append_string(out, symbol);
	text_buffer_append_string(out, at + 2);
}

static struct patch_words pick_words(const struct filler_file *file, int is_fix,
				     struct seeded_random *random)
{
	switch (file->kind) {
	case FILLER_DOCUMENT:
		return document_words[seeded_random_below(random, COUNT(document_words))];
	case FILLER_KCONFIG:
		return kconfig_words[seeded_random_below(random, COUNT(kconfig_words))];
	case FILLER_COMPILED:
		return compiled_words[seeded_random_below(random, COUNT(compiled_words))];
	default:
		if (is_fix)
			return fix_words[seeded_random_below(random, COUNT(fix_words))];
		return change_words[seeded_random_below(random, COUNT(change_words))];
	}
}

void commit_message_patch(const struct filler_file *file, int is_fix,
			  struct seeded_random *random, struct text_buffer *subject,
			  struct text_buffer *body)
{
	struct patch_words words = pick_words(file, is_fix, random);
	struct text_buffer symbol;

	text_buffer_init(&symbol);
	text_buffer_append(&symbol, "", 0);
	append_patch_symbol(file, random, &symbol);
	/* "[SCSI] fix ..." has no colon: the bracket already sets it apart */
	text_buffer_printf(subject, file->subject_prefix[0] == '[' ? "%s " : "%s: ",
			   file->subject_prefix);
	append_with_symbol(words.subject, symbol.text ? symbol.text : "", subject);
	append_with_symbol(words.body, symbol.text ? symbol.text : "", body);
	if (is_fix && seeded_random_chance(random, 0.35)) {
		text_buffer_append(body, "\n", 1);
		text_buffer_append_string(body, pick(closing_lines, COUNT(closing_lines), random));
	}
	if (symbol.error)
		subject->error = symbol.error;
	text_buffer_free(&symbol);
}

static void append_person_line(struct text_buffer *out, const char *tag,
			       const struct kernel_person *person)
{
	text_buffer_printf(out, "%s: %s <%s>\n", tag, person->name, person->email);
}

static const struct kernel_person *random_author(struct seeded_random *random)
{
	return kernel_author(seeded_random_below(random, kernel_author_count()));
}

static void append_review_tags(struct seeded_random *random, struct text_buffer *out)
{
	if (seeded_random_chance(random, 0.12))
		append_person_line(out, "Tested-by", random_author(random));
	if (seeded_random_chance(random, 0.2))
		append_person_line(out, "Acked-by", random_author(random));
	if (seeded_random_chance(random, 0.15))
		append_person_line(out, "Reviewed-by", random_author(random));
	if (seeded_random_chance(random, 0.2))
		append_person_line(out, "Cc", random_author(random));
}

void commit_message_trailers(const struct commit_trailers *trailers,
			     struct seeded_random *random, struct text_buffer *out)
{
	const struct kernel_person *akpm = kernel_role_person(KERNEL_ROLE_AKPM);
	const struct kernel_person *linus = kernel_role_person(KERNEL_ROLE_LINUS);

	if (trailers->fixes_id)
		text_buffer_printf(out, "Fixes: %s (\"%s\")\n", trailers->fixes_id,
				   trailers->fixes_subject);
	if (trailers->reported_by)
		append_person_line(out, "Reported-by", trailers->reported_by);
	append_person_line(out, "Signed-off-by", trailers->author);
	if (trailers->review_tags)
		append_review_tags(random, out);
	if (trailers->cc_stable)
		text_buffer_append_string(out, "Cc: stable@vger.kernel.org\n");
	if (trailers->via_akpm) {
		if (trailers->author != akpm)
			append_person_line(out, "Signed-off-by", akpm);
		append_person_line(out, "Signed-off-by", linus);
	} else if (trailers->committer && trailers->committer != trailers->author) {
		append_person_line(out, "Signed-off-by", trailers->committer);
	}
}

/* git fmt-merge-msg lists at most this many commits, newest first. */
#define SHORTLOG_LIMIT 20

void commit_message_merge(const struct kernel_subsystem *subsystem,
			  char *const *subjects, size_t subject_count,
			  struct text_buffer *out)
{
	const char *branch = subsystem->pull_branch;
	size_t shown = 0, i;

	if (branch) {
		text_buffer_printf(out, "Merge branch '%s' of %s\n\n", branch, subsystem->pull_url);
	} else {
		text_buffer_printf(out, "Merge %s\n\n", subsystem->pull_url);
	}
	text_buffer_printf(out, "Pull %s from %s.\n\n", subsystem->pull_summary,
			   subsystem->maintainer->name);
	/* like git fmt-merge-msg: the count only when the list is cut short */
	if (branch)
		text_buffer_printf(out, "* '%s' of %s:", branch, subsystem->pull_url);
	else
		text_buffer_printf(out, "* %s:", subsystem->pull_url);
	if (subject_count > SHORTLOG_LIMIT)
		text_buffer_printf(out, " (%zu commits)", subject_count);
	text_buffer_append(out, "\n", 1);
	for (i = subject_count; i > 0 && shown < SHORTLOG_LIMIT; i--, shown++)
		text_buffer_printf(out, "  %s\n", subjects[i - 1]);
	if (shown < subject_count)
		text_buffer_append_string(out, "  ...\n");
}

void commit_message_build_fix(const struct filler_file *file, const char *compiler_error,
			      const char *summary, const char *broken_id,
			      const char *broken_subject, struct text_buffer *subject,
			      struct text_buffer *body)
{
	text_buffer_printf(subject, "%s: fix build failure in %s", file->subject_prefix,
			   base_name(file->path));
	text_buffer_printf(body,
		"Commit %s (\"%s\") introduced %s, and now the build fails with:\n"
		"\n"
		"  %s\n"
		"\n"
		"Restore the intended code.\n",
		broken_id, broken_subject, summary, compiler_error);
}
