/* history.c - the model kernel history generator; see history.h. */
#include "history.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commit_message.h"
#include "driver_changes.h"
#include "fast_import.h"
#include "filler.h"
#include "git_command.h"
#include "kernel_subsystems.h"
#include "model_tree.h"
#include "seeded_random.h"
#include "text_buffer.h"

#define COMMIT_ID_SIZE (GIT_COMMIT_ID_LENGTH + 1)
#define NULL_COMMIT_ID "0000000000000000000000000000000000000000"
#define MASTER "master"
#define STABLE_BRANCH "linux-3.3.y"
#define SIDE_REF_PREFIX "refs/rackbisect-side/"
#define MAX_SUBSYSTEMS 32
#define DAY (24L * 3600)

/* Dates of the real releases (UTC seconds); commits in between are spread
 * out by the seed. */
#define DATE_V3_3_RC7 1331420286L	/* 2012-03-10 */
#define DATE_C1AFDAFF 1331380800L	/* 2012-03-10, the seed patch's author date */
#define DATE_V3_3 1332112534L		/* 2012-03-18 */
#define DATE_V3_4_RC1 1333236249L	/* 2012-03-31 */
#define DATE_STABLE_QUEUE 1333238400L	/* 2012-04-01, after rc1's merge window */
#define DATE_V3_3_1_RC1 1333314000L	/* 2012-04-01 */
#define DATE_V3_3_1 1333387800L		/* 2012-04-02 */
#define DATE_V3_4_RC2 1333848641L	/* 2012-04-08 */
#define DATE_V3_3_2 1334336400L		/* 2012-04-13 */
#define DATE_V3_4_RC3 1334540157L	/* 2012-04-16 */
#define DATE_V3_4 1337552953L		/* 2012-05-20 */
#define DATE_V3_5 1342904309L		/* 2012-07-21 */

/* ---- records ----------------------------------------------------------- */

struct file_change {
	size_t file;
	const struct file_version *before;
	const struct file_version *after;
};

enum break_role { BREAK_ROLE_NONE = 0, BREAK_ROLE_BREAK, BREAK_ROLE_FIX };

struct commit_record {
	unsigned long mark;
	char *subject;
	char id[COMMIT_ID_SIZE];	/* "" until asked for */
	const struct kernel_person *author;
	long author_date;
	long commit_date;
	int is_merge;
	size_t subsystem;
	int stable_candidate;		/* carries Cc: stable; queued if it applies */
	char *message;			/* kept for stable candidates only */
	struct file_change *changes;	/* likewise */
	size_t change_count;
	int driver_change;		/* enum driver_change_id, or -1 */
	long build_break;		/* index into the break records, or -1 */
	enum break_role break_role;
};

struct build_break_record {
	const char *branch;
	size_t file;
	struct filler_build_break detail;
	int countdown;			/* ordinary commits until the fix */
	int for_stable;			/* break and fix are stable candidates */
	long fix_commit;		/* -1 while open */
	long *window;			/* the broken commits, break first */
	size_t window_count;
	size_t window_capacity;
};

struct line {
	char ref[96];
	const char *branch;		/* what the truth calls it */
	model_tree_state tree;
	model_tree_state fork_tree;	/* side lines: master's tree at the fork */
	unsigned long tip_mark;		/* parent of the next commit (0: root) */
	long tip_commit;		/* its record, -1 before the first commit */
	unsigned long ref_mark;		/* where fast-import's ref points now */
	size_t subsystem;
	int is_side;
	size_t commits_left;		/* side lines: ordinary commits still planned */
	long open_break;		/* index into the break records, or -1 */
	long *commits;			/* side lines: its commits, for the merge message */
	size_t commit_count;
	size_t commit_capacity;
};

struct tag_record {
	const char *name;
	long commit;
};

struct driver_record {
	enum driver_change_id change;
	const char *branch;
	long commit;
};

enum pick_form { PICK_COMMIT_UPSTREAM = 0, PICK_UPSTREAM_BRACKET, PICK_NO_UPSTREAM };

struct queue_record {
	long commit;
	long upstream;			/* -1: none */
	enum pick_form form;
};

struct release {
	const char *tag;
	int patchlevel;
	int sublevel;
	const char *extraversion;
	enum kernel_role by;
	long date;
};

struct driver_event {
	enum driver_change_id change;
	size_t position;		/* after this many commits of the segment */
	int via_wireless_merge;		/* else directly on master */
};

struct segment {
	size_t budget;			/* commits, merges included, release excluded */
	double merge_density;
	unsigned int side_min;
	unsigned int side_max;
	size_t build_breaks;
	double stable_probability;	/* share of commits marked Cc: stable */
	long end_date;
	struct driver_event events[3];
	size_t event_count;
	const struct release *release;	/* NULL: the segment ends untagged */
};

struct clock {
	long now;
	long step;
};

struct generator {
	const struct history_options *options;
	struct seeded_random random;
	struct fast_import *import;
	struct model_tree tree;
	model_tree_state base_tree;	/* v3.3 */
	size_t *subsystem_files[MAX_SUBSYSTEMS];
	size_t subsystem_file_count[MAX_SUBSYSTEMS];
	struct commit_record *commits;
	size_t commit_count;
	size_t commit_capacity;
	struct build_break_record *breaks;
	size_t break_count;
	size_t break_capacity;
	struct line master;
	struct line stable;
	struct line *sides[MAX_SUBSYSTEMS];
	unsigned long side_ref_marks[MAX_SUBSYSTEMS];
	size_t pending_breaks;
	int stable_break_placed;
	struct clock clock;
	struct tag_record tags[8];
	size_t tag_count;
	struct driver_record drivers[8];
	size_t driver_count;
	struct queue_record *queue;
	size_t queue_count;
	long stray_commit;
	size_t mainline_end;		/* records before it are mainline's */
	long stable_commits;
	char *error;
	size_t error_size;
};

static int fail(struct generator *gen, int rc, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct generator *gen, int rc, const char *format, ...)
{
	va_list args;

	if (gen->error && gen->error_size && gen->error[0] == '\0') {
		va_start(args, format);
		vsnprintf(gen->error, gen->error_size, format, args);
		va_end(args);
	}
	return rc;
}

static const char *const change_names[DRIVER_CHANGE_COUNT] = {
	[DRIVER_CHANGE_FULLSLEEP_ON_IDLE] = "fullsleep-on-idle",
	[DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE] = "revert-fullsleep-on-idle",
	[DRIVER_CHANGE_BAD_BACKPORT] = "bad-backport",
	[DRIVER_CHANGE_RESET_ON_IDLE_OFF] = "reset-on-idle-off",
	[DRIVER_CHANGE_FULLSLEEP_AFTER_RX_ABORT] = "fullsleep-after-rx-abort",
	[DRIVER_CHANGE_PHY_PREFIX] = "phy-prefix",
};

/* ---- commit records and ids ------------------------------------------- */

static long new_commit_record(struct generator *gen)
{
	struct commit_record *record;

	if (gen->commit_count == gen->commit_capacity) {
		size_t grown = gen->commit_capacity ? gen->commit_capacity * 2 : 1024;
		struct commit_record *commits = realloc(gen->commits, grown * sizeof(*commits));

		if (!commits)
			return -ENOMEM;
		gen->commits = commits;
		gen->commit_capacity = grown;
	}
	record = &gen->commits[gen->commit_count];
	memset(record, 0, sizeof(*record));
	record->driver_change = -1;
	record->build_break = -1;
	return (long)gen->commit_count++;
}

/* The 40-hex id of commit `index`, asked of fast-import once. */
static const char *commit_id(struct generator *gen, long index)
{
	struct commit_record *record = &gen->commits[index];

	if (record->id[0] == '\0' &&
	    fast_import_commit_id(gen->import, record->mark, record->id) != 0)
		return NULL;
	return record->id;
}

/* ---- clock ------------------------------------------------------------- */

/* Spreads about `expected` commits evenly until `end`. */
static void clock_plan(struct clock *clock, long end, size_t expected)
{
	long span = end - clock->now;

	clock->step = span > 0 ? span / (long)(expected + 1) : 1;
	if (clock->step < 2)
		clock->step = 2;
}

static long clock_next(struct generator *gen)
{
	/* strictly increasing along every branch: children are made later */
	gen->clock.now += 1 + (long)seeded_random_below(&gen->random,
							(uint64_t)(2 * gen->clock.step - 1));
	return gen->clock.now;
}

/* ---- writing commits --------------------------------------------------- */

struct commit_spec {
	const struct kernel_person *author;
	long author_date;
	const struct kernel_person *committer;
	long commit_date;
	const char *subject;
	const char *message;
	unsigned long merge_mark;	/* 0: not a merge */
	const struct file_change *changes;
	size_t change_count;
	int keep_for_stable;
	size_t subsystem;
};

static void write_blob(struct generator *gen, const struct file_version *version)
{
	struct file_version *writable = (struct file_version *)version;

	if (version->blob_mark)
		return;
	/* versions are shared but the mark is bookkeeping, set once */
	writable->blob_mark = fast_import_new_mark(gen->import);
	fast_import_printf(gen->import, "blob\nmark :%lu\n", version->blob_mark);
	fast_import_data(gen->import, version->text, version->size);
}

static void write_identity(struct generator *gen, const char *what,
			   const struct kernel_person *person, long date)
{
	fast_import_printf(gen->import, "%s %s <%s> %ld %s\n", what, person->name,
			   person->email, date, person->timezone);
}

static int keep_for_stable(struct commit_record *record, const struct commit_spec *spec)
{
	record->stable_candidate = 1;
	record->message = strdup(spec->message);
	record->changes = malloc((spec->change_count ? spec->change_count : 1) *
				 sizeof(*record->changes));
	if (!record->message || !record->changes)
		return -ENOMEM;
	memcpy(record->changes, spec->changes, spec->change_count * sizeof(*record->changes));
	record->change_count = spec->change_count;
	return 0;
}

static int append_commit(long **list, size_t *count, size_t *capacity, long commit)
{
	if (*count == *capacity) {
		size_t grown = *capacity ? *capacity * 2 : 8;
		long *bigger = realloc(*list, grown * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		*list = bigger;
		*capacity = grown;
	}
	(*list)[(*count)++] = commit;
	return 0;
}

/* Writes one commit on `line`, moves the line's tree and tip. Returns the
 * commit's record index or -errno. */
static long write_commit(struct generator *gen, struct line *line,
			 const struct commit_spec *spec)
{
	long index = new_commit_record(gen);
	struct commit_record *record;
	size_t i;

	if (index < 0)
		return index;
	for (i = 0; i < spec->change_count; i++)
		write_blob(gen, spec->changes[i].after);
	record = &gen->commits[index];
	record->mark = fast_import_new_mark(gen->import);
	record->subject = strdup(spec->subject);
	record->author = spec->author;
	record->author_date = spec->author_date;
	record->commit_date = spec->commit_date;
	record->is_merge = spec->merge_mark != 0;
	record->subsystem = spec->subsystem;
	if (!record->subject)
		return -ENOMEM;
	if (spec->keep_for_stable && keep_for_stable(record, spec) != 0)
		return -ENOMEM;

	fast_import_printf(gen->import, "commit %s\nmark :%lu\n", line->ref, record->mark);
	write_identity(gen, "author", spec->author, spec->author_date);
	write_identity(gen, "committer", spec->committer, spec->commit_date);
	fast_import_data(gen->import, spec->message, strlen(spec->message));
	if (line->tip_mark && line->ref_mark != line->tip_mark)
		fast_import_printf(gen->import, "from :%lu\n", line->tip_mark);
	if (spec->merge_mark)
		fast_import_printf(gen->import, "merge :%lu\n", spec->merge_mark);
	for (i = 0; i < spec->change_count; i++) {
		const struct file_change *change = &spec->changes[i];

		fast_import_printf(gen->import, "M %o :%lu %s\n",
				   gen->tree.files[change->file].mode,
				   change->after->blob_mark, gen->tree.files[change->file].path);
		line->tree[change->file] = change->after;
	}
	fast_import_write(gen->import, "\n", 1);
	line->tip_mark = record->mark;
	line->tip_commit = index;
	line->ref_mark = record->mark;
	if (line->open_break >= 0 &&
	    append_commit(&gen->breaks[line->open_break].window,
			  &gen->breaks[line->open_break].window_count,
			  &gen->breaks[line->open_break].window_capacity, index) != 0)
		return -ENOMEM;	/* every commit made on a broken line is broken */
	if (line->is_side &&
	    append_commit(&line->commits, &line->commit_count, &line->commit_capacity, index) != 0)
		return -ENOMEM;
	return index;
}

/* A new version of `file` made by the commit about to be written. */
static int add_change(struct generator *gen, struct line *line, struct file_change *changes,
		      size_t *count, size_t file, char *text)
{
	const struct file_version *after =
		model_tree_add_version(&gen->tree, text, (long)gen->commit_count);

	if (!after)
		return -ENOMEM;
	changes[*count].file = file;
	changes[*count].before = line->tree[file];
	changes[*count].after = after;
	(*count)++;
	return 0;
}

/* ---- who and when ------------------------------------------------------ */

static const struct kernel_person *random_author(struct generator *gen)
{
	return kernel_author(seeded_random_below(&gen->random, kernel_author_count()));
}

/* Patches are written a while before a maintainer commits them. */
static long author_date_before(struct generator *gen, long commit_date)
{
	return commit_date - (long)seeded_random_below(&gen->random, 3 * DAY);
}

static int subsystem_has_tree(size_t subsystem)
{
	return kernel_subsystem(subsystem)->pull_url != NULL;
}

/* A subsystem for a patch applied directly on master: any whose files no
 * open side branch is changing (so merges never conflict). */
static size_t pick_direct_subsystem(struct generator *gen)
{
	unsigned int total = 0, draw;
	size_t i;

	for (i = 0; i < kernel_subsystem_count(); i++) {
		if (!gen->sides[i])
			total += kernel_subsystem(i)->weight;
	}
	draw = (unsigned int)seeded_random_below(&gen->random, total);
	for (i = 0; i < kernel_subsystem_count(); i++) {
		if (gen->sides[i])
			continue;
		if (draw < kernel_subsystem(i)->weight)
			return i;
		draw -= kernel_subsystem(i)->weight;
	}
	return kernel_subsystem_index("core");	/* mm and core never have a side line */
}

/* A subsystem with a tree and no open side line, or -1. */
static long pick_free_tree_subsystem(struct generator *gen)
{
	unsigned int total = 0, draw;
	size_t i;

	for (i = 0; i < kernel_subsystem_count(); i++) {
		if (subsystem_has_tree(i) && !gen->sides[i])
			total += kernel_subsystem(i)->weight;
	}
	if (total == 0)
		return -1;
	draw = (unsigned int)seeded_random_below(&gen->random, total);
	for (i = 0; i < kernel_subsystem_count(); i++) {
		if (!subsystem_has_tree(i) || gen->sides[i])
			continue;
		if (draw < kernel_subsystem(i)->weight)
			return (long)i;
		draw -= kernel_subsystem(i)->weight;
	}
	return -1;
}

static int index_subsystem_files(struct generator *gen)
{
	size_t i, s;

	for (i = 0; i < gen->tree.file_count; i++) {
		const struct filler_file *filler = gen->tree.files[i].filler;

		if (!filler)
			continue;
		s = filler->subsystem;
		if (s >= MAX_SUBSYSTEMS)
			return -EINVAL;
		if ((gen->subsystem_file_count[s] & (gen->subsystem_file_count[s] - 1)) == 0) {
			size_t grown = gen->subsystem_file_count[s] ? gen->subsystem_file_count[s] * 2 : 1;
			size_t *files = realloc(gen->subsystem_files[s], grown * sizeof(*files));

			if (!files)
				return -ENOMEM;
			gen->subsystem_files[s] = files;
		}
		gen->subsystem_files[s][gen->subsystem_file_count[s]++] = i;
	}
	return 0;
}

/* A file of `subsystem` an ordinary patch may change, or -1. Compiled files
 * are rare targets: most patches touch text nobody builds. */
static long pick_file(struct generator *gen, size_t subsystem, long not_this)
{
	size_t count = gen->subsystem_file_count[subsystem];
	int tries;

	for (tries = 0; tries < 32 && count > 0; tries++) {
		size_t file = gen->subsystem_files[subsystem][seeded_random_below(&gen->random, count)];
		const struct model_file *model = &gen->tree.files[file];

		if (model->locked || (long)file == not_this)
			continue;
		if (model->filler->kind == FILLER_COMPILED &&
		    !seeded_random_chance(&gen->random, 0.15))
			continue;
		return (long)file;
	}
	return -1;
}

/* ---- ordinary commits -------------------------------------------------- */

/* "Fixes: <12 hex> (\"subject\")" material: the commit that made the
 * version being fixed, when it was an ordinary patch. */
static long fixes_target(struct generator *gen, const struct file_version *version)
{
	if (version->creator < 0 || gen->commits[version->creator].is_merge ||
	    gen->commits[version->creator].driver_change >= 0)
		return -1;
	return version->creator;
}

struct ordinary_plan {
	int is_fix;
	int cc_stable;
	int keep_for_stable;
};

static int write_patch(struct generator *gen, struct line *line, size_t subsystem,
		       struct file_change *changes, size_t change_count,
		       const struct text_buffer *subject, const struct text_buffer *body,
		       const struct commit_trailers *trailers_in, int keep)
{
	struct commit_trailers trailers = *trailers_in;
	struct text_buffer message;
	struct commit_spec spec;
	long index;

	text_buffer_init(&message);
	text_buffer_printf(&message, "%s\n\n%s\n", subject->text, body->text);
	commit_message_trailers(&trailers, &gen->random, &message);
	if (message.error)
		return message.error;
	spec = (struct commit_spec){
		.author = trailers.author,
		.committer = trailers.via_akpm ? kernel_role_person(KERNEL_ROLE_LINUS)
					       : trailers.committer,
		.subject = subject->text,
		.message = message.text,
		.changes = changes,
		.change_count = change_count,
		.keep_for_stable = keep,
		.subsystem = subsystem,
	};
	spec.commit_date = clock_next(gen);
	spec.author_date = author_date_before(gen, spec.commit_date);
	index = write_commit(gen, line, &spec);
	text_buffer_free(&message);
	return index < 0 ? (int)index : 0;
}

static void patch_trailers(struct generator *gen, struct line *line, size_t subsystem,
			   struct commit_trailers *trailers)
{
	memset(trailers, 0, sizeof(*trailers));
	trailers->author = random_author(gen);
	trailers->review_tags = 1;
	if (line->is_side) {
		trailers->committer = kernel_subsystem(subsystem)->maintainer;
	} else {
		/* straight to master: the -mm route */
		trailers->via_akpm = 1;
		trailers->committer = kernel_role_person(KERNEL_ROLE_LINUS);
	}
}

static int regular_commit(struct generator *gen, struct line *line, size_t subsystem,
			  const struct segment *segment)
{
	struct file_change changes[3];
	struct text_buffer subject, body;
	struct commit_trailers trailers;
	char fixes_id[13];
	size_t change_count = 0, wanted;
	long primary, file, fixes;
	int keep, is_fix, rc = 0;

	primary = pick_file(gen, subsystem, -1);
	if (primary < 0)
		return fail(gen, -EINVAL, "no file to change in subsystem %s",
			    kernel_subsystem(subsystem)->name);
	keep = segment->stable_probability > 0 &&
	       seeded_random_chance(&gen->random, segment->stable_probability);
	is_fix = keep || seeded_random_chance(&gen->random, 0.45);
	wanted = seeded_random_chance(&gen->random, 0.6) ? 1 : (size_t)seeded_random_between(&gen->random, 2, 3);
	file = primary;
	while (rc == 0 && change_count < wanted && file >= 0) {
		rc = add_change(gen, line, changes, &change_count, (size_t)file,
				filler_edit(gen->tree.files[file].filler, line->tree[file]->text,
					    &gen->random));
		file = pick_file(gen, subsystem, primary);
		if (file >= 0 && change_count == 2 && (size_t)file == changes[1].file)
			file = -1;
	}
	if (rc != 0)
		return rc;
	text_buffer_init(&subject);
	text_buffer_init(&body);
	commit_message_patch(gen->tree.files[primary].filler, is_fix, &gen->random, &subject, &body);
	patch_trailers(gen, line, subsystem, &trailers);
	trailers.cc_stable = keep || (is_fix && seeded_random_chance(&gen->random, 0.06));
	fixes = is_fix && seeded_random_chance(&gen->random, 0.15)
		? fixes_target(gen, changes[0].before) : -1;
	if (fixes >= 0) {
		const char *id = commit_id(gen, fixes);

		if (!id)
			rc = -EIO;
		else {
			snprintf(fixes_id, sizeof(fixes_id), "%.12s", id);
			trailers.fixes_id = fixes_id;
			trailers.fixes_subject = gen->commits[fixes].subject;
		}
	}
	if (rc == 0 && (subject.error || body.error))
		rc = -ENOMEM;
	if (rc == 0)
		rc = write_patch(gen, line, subsystem, changes, change_count, &subject, &body,
				 &trailers, keep);
	text_buffer_free(&subject);
	text_buffer_free(&body);
	return rc;
}

/* ---- build breaks ------------------------------------------------------ */

static long new_break_record(struct generator *gen)
{
	if (gen->break_count == gen->break_capacity) {
		size_t grown = gen->break_capacity ? gen->break_capacity * 2 : 16;
		struct build_break_record *breaks = realloc(gen->breaks, grown * sizeof(*breaks));

		if (!breaks)
			return -ENOMEM;
		gen->breaks = breaks;
		gen->break_capacity = grown;
	}
	memset(&gen->breaks[gen->break_count], 0, sizeof(gen->breaks[0]));
	gen->breaks[gen->break_count].fix_commit = -1;
	return (long)gen->break_count++;
}

/* A compiled file `line` may break, or -1. On master only files of
 * subsystems without an open side line (the break must not be merged into). */
static long pick_breakable_file(struct generator *gen, struct line *line, int want_pristine)
{
	long candidates[16];
	size_t count = 0, i;

	for (i = 0; i < gen->tree.file_count && count < 16; i++) {
		const struct model_file *file = &gen->tree.files[i];

		if (!file->filler || file->filler->kind != FILLER_COMPILED || file->locked)
			continue;
		if (line->is_side ? file->filler->subsystem != line->subsystem
				  : gen->sides[file->filler->subsystem] != NULL)
			continue;
		/* a stable pick must apply to v3.3's text */
		if (want_pristine && line->tree[i] != gen->base_tree[i])
			continue;
		candidates[count++] = (long)i;
	}
	if (count == 0)
		return -1;
	return candidates[seeded_random_below(&gen->random, count)];
}

static int break_commit(struct generator *gen, struct line *line, size_t file,
			size_t commits_after, int for_stable)
{
	const struct filler_file *filler = gen->tree.files[file].filler;
	struct file_change change;
	struct text_buffer subject, body;
	struct commit_trailers trailers;
	struct build_break_record *record;
	size_t count = 0;
	long index = new_break_record(gen);
	int rc;

	if (index < 0)
		return (int)index;
	record = &gen->breaks[index];
	record->branch = line->branch;
	record->file = file;
	record->for_stable = for_stable;
	record->countdown = (int)seeded_random_between(&gen->random, 1,
						       commits_after < 3 ? (int64_t)commits_after : 3);
	rc = add_change(gen, line, &change, &count, file,
			filler_break_build(filler, line->tree[file]->text, &gen->random,
					   &record->detail));
	if (rc != 0)
		return rc;
	text_buffer_init(&subject);
	text_buffer_init(&body);
	commit_message_patch(filler, 0, &gen->random, &subject, &body);
	patch_trailers(gen, line, filler->subsystem, &trailers);
	trailers.cc_stable = for_stable;
	/* the broken commit is the first of the window write_commit records */
	line->open_break = index;
	gen->tree.files[file].locked = 1;
	rc = (subject.error || body.error) ? -ENOMEM
		: write_patch(gen, line, filler->subsystem, &change, 1, &subject, &body,
			      &trailers, for_stable);
	if (rc == 0) {
		gen->commits[gen->commit_count - 1].build_break = index;
		gen->commits[gen->commit_count - 1].break_role = BREAK_ROLE_BREAK;
	}
	text_buffer_free(&subject);
	text_buffer_free(&body);
	return rc;
}

static int fix_commit(struct generator *gen, struct line *line)
{
	long break_index = line->open_break;
	struct build_break_record *record = &gen->breaks[break_index];
	const struct filler_file *filler = gen->tree.files[record->file].filler;
	const struct commit_record *broken = &gen->commits[record->window[0]];
	struct file_change change;
	struct text_buffer subject, body;
	struct commit_trailers trailers;
	char broken_id[13];
	const char *id = commit_id(gen, record->window[0]);
	size_t count = 0;
	int rc;

	if (!id)
		return -EIO;
	snprintf(broken_id, sizeof(broken_id), "%.12s", id);
	rc = add_change(gen, line, &change, &count, record->file,
			filler_fix_build(line->tree[record->file]->text, &record->detail));
	if (rc != 0)
		return rc;
	text_buffer_init(&subject);
	text_buffer_init(&body);
	commit_message_build_fix(filler, record->detail.compiler_error, record->detail.summary,
				 broken_id, broken->subject, &subject, &body);
	patch_trailers(gen, line, filler->subsystem, &trailers);
	trailers.author = broken->author;	/* the culprit cleans up after himself */
	trailers.review_tags = 0;
	trailers.reported_by = kernel_role_person(KERNEL_ROLE_BUILD_REPORTER);
	trailers.fixes_id = broken_id;
	trailers.fixes_subject = broken->subject;
	trailers.cc_stable = record->for_stable;
	/* the fix is the first good commit again: close the window first */
	line->open_break = -1;
	gen->tree.files[record->file].locked = 0;
	rc = (subject.error || body.error) ? -ENOMEM
		: write_patch(gen, line, filler->subsystem, &change, 1, &subject, &body,
			      &trailers, record->for_stable);
	if (rc == 0) {
		record->fix_commit = (long)gen->commit_count - 1;
		gen->commits[record->fix_commit].build_break = break_index;
		gen->commits[record->fix_commit].break_role = BREAK_ROLE_FIX;
	}
	text_buffer_free(&subject);
	text_buffer_free(&body);
	return rc;
}

/*
 * One ordinary commit on `line`: the fix of an open build break when it is
 * due, a new build break when one is pending and `commits_after` leaves
 * room for its fix on this line, or a regular patch.
 */
static int ordinary_commit(struct generator *gen, struct line *line,
			   const struct segment *segment, size_t commits_after)
{
	size_t subsystem;

	if (line->open_break >= 0 && --gen->breaks[line->open_break].countdown <= 0)
		return fix_commit(gen, line);
	subsystem = line->is_side ? line->subsystem : pick_direct_subsystem(gen);
	if (gen->pending_breaks > 0 && line->open_break < 0 && commits_after >= 1) {
		int for_stable = segment->stable_probability > 0 && !gen->stable_break_placed;
		long file = pick_breakable_file(gen, line, for_stable);

		if (file < 0 && for_stable) {
			for_stable = 0;
			file = pick_breakable_file(gen, line, 0);
		}
		if (file >= 0) {
			gen->pending_breaks--;
			gen->stable_break_placed |= for_stable;
			return break_commit(gen, line, (size_t)file, commits_after, for_stable);
		}
	}
	return regular_commit(gen, line, subsystem, segment);
}

/* ---- side branches and merges ------------------------------------------ */

static void line_free(struct line *line)
{
	free(line->tree);
	free(line->fork_tree);
	free(line->commits);
	memset(line, 0, sizeof(*line));
}

/* A subsystem tree forked from master's tip, `commits` patches long. */
static struct line *open_side_line(struct generator *gen, size_t subsystem, size_t commits)
{
	struct line *line = calloc(1, sizeof(*line));

	if (!line)
		return NULL;
	snprintf(line->ref, sizeof(line->ref), SIDE_REF_PREFIX "%s",
		 kernel_subsystem(subsystem)->name);
	line->branch = MASTER;	/* its commits end up reachable from master */
	line->tree = model_tree_state_copy(&gen->tree, gen->master.tree);
	line->fork_tree = model_tree_state_copy(&gen->tree, gen->master.tree);
	line->tip_mark = gen->master.tip_mark;
	line->ref_mark = gen->side_ref_marks[subsystem];
	line->subsystem = subsystem;
	line->is_side = 1;
	line->commits_left = commits;
	line->open_break = -1;
	if (!line->tree || !line->fork_tree) {
		line_free(line);
		free(line);
		return NULL;
	}
	gen->sides[subsystem] = line;
	return line;
}

static int merge_side_line(struct generator *gen, struct line *line)
{
	const struct kernel_person *linus = kernel_role_person(KERNEL_ROLE_LINUS);
	struct file_change *changes = malloc(gen->tree.file_count * sizeof(*changes));
	char **subjects = malloc((line->commit_count + 1) * sizeof(*subjects));
	struct text_buffer message;
	struct commit_spec spec;
	size_t count = 0, i;
	long index = 0;

	if (!changes || !subjects) {
		free(changes);
		free(subjects);
		return -ENOMEM;
	}
	for (i = 0; i < gen->tree.file_count; i++) {
		if (line->tree[i] == line->fork_tree[i])
			continue;
		if (gen->master.tree[i] != line->fork_tree[i])
			index = fail(gen, -EPROTO, "internal error: %s changed on both sides of a merge",
				     gen->tree.files[i].path);
		changes[count++] = (struct file_change){ i, gen->master.tree[i], line->tree[i] };
	}
	for (i = 0; i < line->commit_count; i++)
		subjects[i] = gen->commits[line->commits[i]].subject;
	text_buffer_init(&message);
	commit_message_merge(kernel_subsystem(line->subsystem), subjects, line->commit_count,
			     &message);
	if (index == 0 && message.error)
		index = message.error;
	if (index == 0) {
		char *subject = strndup(message.text, strcspn(message.text, "\n"));

		spec = (struct commit_spec){
			.author = linus, .committer = linus,
			.subject = subject, .message = message.text,
			.merge_mark = line->tip_mark,
			.changes = changes, .change_count = count,
			.subsystem = line->subsystem,
		};
		spec.commit_date = clock_next(gen);
		spec.author_date = spec.commit_date;
		index = subject ? write_commit(gen, &gen->master, &spec) : -ENOMEM;
		free(subject);
	}
	text_buffer_free(&message);
	free(changes);
	free(subjects);
	if (index < 0)
		return (int)index;
	gen->side_ref_marks[line->subsystem] = line->tip_mark;
	gen->sides[line->subsystem] = NULL;
	line_free(line);
	free(line);
	return 0;
}

/* ---- driver changes ---------------------------------------------------- */

/* "Name <mail>" of driver_changes.c as a person (Felix has a role entry). */
static const struct kernel_person *driver_author(struct generator *gen,
						 const struct driver_change *change,
						 struct kernel_person *storage, char *text,
						 size_t text_size)
{
	const struct kernel_person *felix = kernel_role_person(KERNEL_ROLE_ATH9K);
	char *open_angle;

	(void)gen;
	if (strncmp(change->author, felix->name, strlen(felix->name)) == 0)
		return felix;
	snprintf(text, text_size, "%s", change->author);
	open_angle = strchr(text, '<');
	if (!open_angle || open_angle == text || !strchr(open_angle, '>'))
		return felix;
	open_angle[-1] = '\0';
	*strchr(open_angle, '>') = '\0';
	storage->name = text;
	storage->email = open_angle + 1;
	storage->timezone = "-0700";
	return storage;
}

/* The driver change's edits applied to `line`'s current texts. */
static int driver_change_edits(struct generator *gen, struct line *line,
			       const struct driver_change *change,
			       struct file_change *changes, size_t *count)
{
	size_t i, j;

	*count = 0;
	for (i = 0; i < change->edit_count; i++) {
		const char *path = change->edits[i].path;
		const char *error = NULL;
		long file = model_tree_find(&gen->tree, path);
		int seen = 0;
		char *text;

		for (j = 0; j < i; j++)
			seen |= strcmp(change->edits[j].path, path) == 0;
		if (seen)
			continue;	/* driver_change_apply did every edit of this file */
		if (file < 0)
			return fail(gen, -ENOENT, "driver change '%s' edits %s, which the tree lacks",
				    change->subject, path);
		text = driver_change_apply(change, path, line->tree[file]->text, &error);
		if (!text)
			return fail(gen, -EINVAL, "driver change '%s' does not apply to %s on %s: %s",
				    change->subject, path, line->branch, error);
		if (add_change(gen, line, changes, count, (size_t)file, text) != 0)
			return -ENOMEM;
	}
	return 0;
}

static int record_driver_change(struct generator *gen, enum driver_change_id id,
				const char *branch, long commit)
{
	if (gen->driver_count == sizeof(gen->drivers) / sizeof(gen->drivers[0]))
		return fail(gen, -E2BIG, "internal error: too many driver changes");
	gen->drivers[gen->driver_count++] = (struct driver_record){ id, branch, commit };
	gen->commits[commit].driver_change = (int)id;
	return 0;
}

/* The commit of the latest change `id` on `branch`, or -1. */
static long last_driver_change(const struct generator *gen, const char *branch,
			       enum driver_change_id id)
{
	size_t i;

	for (i = gen->driver_count; i > 0; i--) {
		if (gen->drivers[i - 1].change == id && strcmp(gen->drivers[i - 1].branch, branch) == 0)
			return gen->drivers[i - 1].commit;
	}
	return -1;
}

static int driver_commit(struct generator *gen, struct line *line, enum driver_change_id id)
{
	const struct driver_change *change = driver_change_get(id);
	const struct kernel_person *linville = kernel_role_person(KERNEL_ROLE_WIRELESS);
	struct file_change changes[4];
	struct kernel_person parsed;
	char author_text[160];
	struct text_buffer message;
	struct commit_spec spec;
	size_t count;
	long index;
	int rc;

	rc = driver_change_edits(gen, line, change, changes, &count);
	if (rc != 0)
		return rc;
	spec = (struct commit_spec){
		.author = driver_author(gen, change, &parsed, author_text, sizeof(author_text)),
		.committer = linville,
		.subject = change->subject,
		.changes = changes,
		.change_count = count,
		/* the upstream fix is what stable picks up for 3.3.1 */
		.keep_for_stable = id == DRIVER_CHANGE_FULLSLEEP_ON_IDLE,
		.subsystem = kernel_subsystem_index("wireless"),
	};
	text_buffer_init(&message);
	text_buffer_printf(&message, "%s\n\n", change->subject);
	if (id == DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE) {
		/* git revert's own first line, naming the reverted commit */
		long reverted = last_driver_change(gen, line->branch, DRIVER_CHANGE_FULLSLEEP_ON_IDLE);
		const char *reverted_id = reverted >= 0 ? commit_id(gen, reverted) : NULL;

		if (!reverted_id)
			return fail(gen, -EPROTO, "a revert with nothing to revert on %s",
				    line->branch);
		text_buffer_printf(&message, "This reverts commit %s.\n\n", reverted_id);
	}
	text_buffer_printf(&message, "%s\n\nSigned-off-by: %s <%s>\n", change->body,
			   spec.author->name, spec.author->email);
	if (id == DRIVER_CHANGE_FULLSLEEP_ON_IDLE)
		text_buffer_append_string(&message, "Cc: stable@vger.kernel.org\n");
	text_buffer_printf(&message, "Signed-off-by: %s <%s>\n", linville->name, linville->email);
	if (message.error)
		return message.error;
	spec.message = message.text;
	spec.commit_date = clock_next(gen);
	spec.author_date = id == DRIVER_CHANGE_FULLSLEEP_ON_IDLE && DATE_C1AFDAFF < spec.commit_date
		? DATE_C1AFDAFF : author_date_before(gen, spec.commit_date);
	index = write_commit(gen, line, &spec);
	text_buffer_free(&message);
	if (index < 0)
		return (int)index;
	return record_driver_change(gen, id, line->branch, index);
}

/* ---- releases ---------------------------------------------------------- */

static int release_commit(struct generator *gen, struct line *line,
			  const struct release *release)
{
	const struct kernel_person *by = kernel_role_person(release->by);
	long makefile = model_tree_find(&gen->tree, "Makefile");
	struct file_change change;
	struct commit_spec spec;
	char subject[64];
	char message[80];
	size_t count = 0;
	long index;
	int rc;

	if (makefile < 0)
		return fail(gen, -ENOENT, "the template tree has no top Makefile");
	if (gen->tag_count == sizeof(gen->tags) / sizeof(gen->tags[0]))
		return fail(gen, -E2BIG, "internal error: too many tags");
	rc = add_change(gen, line, &change, &count, (size_t)makefile,
			model_tree_makefile_with_version(line->tree[makefile]->text,
							 release->patchlevel, release->sublevel,
							 release->extraversion));
	if (rc != 0)
		return rc;
	/* "v3.3.1-rc1" names the release "Linux 3.3.1-rc1" */
	snprintf(subject, sizeof(subject), "Linux %s", release->tag + 1);
	snprintf(message, sizeof(message), "%s\n", subject);
	gen->clock.now = release->date > gen->clock.now ? release->date : gen->clock.now + 60;
	spec = (struct commit_spec){
		.author = by, .committer = by,
		.author_date = gen->clock.now, .commit_date = gen->clock.now,
		.subject = subject, .message = message,
		.changes = &change, .change_count = 1,
		.subsystem = kernel_subsystem_index("core"),
	};
	index = write_commit(gen, line, &spec);
	if (index < 0)
		return (int)index;
	fast_import_printf(gen->import, "tag %s\nfrom :%lu\n", release->tag,
			   gen->commits[index].mark);
	write_identity(gen, "tagger", by, gen->clock.now);
	fast_import_data(gen->import, message, strlen(message));
	gen->tags[gen->tag_count++] = (struct tag_record){ release->tag, index };
	return 0;
}

static long tag_commit(const struct generator *gen, const char *name)
{
	size_t i;

	for (i = 0; i < gen->tag_count; i++) {
		if (strcmp(gen->tags[i].name, name) == 0)
			return gen->tags[i].commit;
	}
	return -1;
}

/* ---- segments: the stretch between two releases ------------------------- */

struct segment_state {
	const struct segment *segment;
	size_t direct_left;		/* patches still to apply straight to master */
	size_t *side_lengths;		/* side branches not opened yet */
	size_t side_count;
	size_t side_next;
	size_t *break_positions;	/* sorted: when a build break becomes due */
	size_t break_next;
	size_t next_event;
	size_t generated;
};

static size_t open_tokens(const struct generator *gen)
{
	size_t total = 0, i;

	for (i = 0; i < kernel_subsystem_count(); i++) {
		if (gen->sides[i])
			total += gen->sides[i]->commits_left + 1;	/* + its merge */
	}
	return total;
}

static size_t unopened_tokens(const struct segment_state *state)
{
	size_t total = 0, i;

	for (i = state->side_next; i < state->side_count; i++)
		total += state->side_lengths[i] + 1;
	return total;
}

static int plan_segment(struct generator *gen, struct segment_state *state,
			const struct segment *segment)
{
	size_t lines = (size_t)llround(segment->merge_density * (double)segment->budget);
	size_t used = 0, i, j;

	memset(state, 0, sizeof(*state));
	state->segment = segment;
	state->side_lengths = calloc(lines + 1, sizeof(*state->side_lengths));
	state->break_positions = calloc(segment->build_breaks + 1, sizeof(*state->break_positions));
	if (!state->side_lengths || !state->break_positions)
		return -ENOMEM;
	for (i = 0; i < lines; i++) {
		size_t length = (size_t)seeded_random_between(&gen->random, segment->side_min,
							      segment->side_max);

		if (used + length + 1 > segment->budget)
			break;	/* more merges than the budget holds: fewer branches */
		state->side_lengths[state->side_count++] = length;
		used += length + 1;
	}
	state->direct_left = segment->budget - used;
	for (i = 0; i < segment->build_breaks; i++) {
		size_t position = 1 + (size_t)seeded_random_below(&gen->random, segment->budget);

		for (j = i; j > 0 && state->break_positions[j - 1] > position; j--)
			state->break_positions[j] = state->break_positions[j - 1];
		state->break_positions[j] = position;
	}
	clock_plan(&gen->clock, segment->end_date, segment->budget + segment->event_count + 1);
	return 0;
}

static void segment_state_free(struct segment_state *state)
{
	free(state->side_lengths);
	free(state->break_positions);
}

/* A driver event whose time has come, if nothing it must not sit in is open. */
static int fire_event(struct generator *gen, struct segment_state *state, int force)
{
	const struct segment *segment = state->segment;
	const struct driver_event *event;
	size_t wireless = kernel_subsystem_index("wireless");
	struct line *line;
	int rc;

	if (state->next_event >= segment->event_count)
		return 0;
	event = &segment->events[state->next_event];
	if (!force && event->position > state->generated)
		return 0;
	/* never inside a build break, never forked from a broken master */
	if (gen->master.open_break >= 0)
		return 0;
	if (event->via_wireless_merge) {
		line = gen->sides[wireless];
		if (line && line->open_break >= 0)
			return 0;
		if (!line) {
			line = open_side_line(gen, wireless,
					      (size_t)seeded_random_between(&gen->random, 1, 4));
			if (!line)
				return -ENOMEM;
		}
	} else {
		line = &gen->master;
	}
	rc = driver_commit(gen, line, event->change);
	state->next_event++;
	state->generated++;
	return rc;
}

static int advance_side_line(struct generator *gen, struct segment_state *state,
			     struct line *line)
{
	if (line->commits_left > 0) {
		line->commits_left--;
		state->generated++;
		return ordinary_commit(gen, line, state->segment, line->commits_left);
	}
	if (line->open_break >= 0)
		return fail(gen, -EPROTO, "internal error: merging a broken branch");
	state->generated++;
	return merge_side_line(gen, line);
}

static int direct_commit(struct generator *gen, struct segment_state *state)
{
	state->direct_left--;
	state->generated++;
	return ordinary_commit(gen, &gen->master, state->segment, state->direct_left);
}

static int open_next_side_line(struct generator *gen, struct segment_state *state)
{
	long subsystem = pick_free_tree_subsystem(gen);
	size_t length = state->side_lengths[state->side_next];
	struct line *line;

	if (subsystem < 0)
		return -EAGAIN;	/* every tree has a branch open: do something else */
	line = open_side_line(gen, (size_t)subsystem, length - 1);
	if (!line)
		return -ENOMEM;
	state->side_next++;
	state->generated++;
	return ordinary_commit(gen, line, state->segment, line->commits_left);
}

/* The side line holding the `draw`-th open token. */
static struct line *side_line_at(struct generator *gen, size_t draw)
{
	size_t i;

	for (i = 0; i < kernel_subsystem_count(); i++) {
		struct line *line = gen->sides[i];

		if (!line)
			continue;
		if (draw < line->commits_left + 1)
			return line;
		draw -= line->commits_left + 1;
	}
	return NULL;
}

/*
 * One step: a direct patch, a patch on or the merge of an open side
 * branch, or a new side branch, drawn in proportion to what is left of
 * each, so side branches spread over the whole segment.
 */
static int segment_step(struct generator *gen, struct segment_state *state,
			size_t open, size_t unopened)
{
	size_t total = state->direct_left + open + unopened;
	size_t draw = (size_t)seeded_random_below(&gen->random, total);
	int rc;

	if (draw < state->direct_left)
		return direct_commit(gen, state);
	draw -= state->direct_left;
	if (draw < open)
		return advance_side_line(gen, state, side_line_at(gen, draw));
	rc = open_next_side_line(gen, state);
	if (rc != -EAGAIN)
		return rc;
	if (open > 0)
		return advance_side_line(gen, state,
					 side_line_at(gen, (size_t)seeded_random_below(&gen->random, open)));
	return direct_commit(gen, state);
}

static int run_segment(struct generator *gen, const struct segment *segment)
{
	struct segment_state state;
	int rc = plan_segment(gen, &state, segment);

	while (rc == 0) {
		size_t open = open_tokens(gen), unopened = unopened_tokens(&state);
		int done = state.direct_left + open + unopened == 0;

		while (state.break_next < segment->build_breaks &&
		       state.break_positions[state.break_next] <= state.generated) {
			gen->pending_breaks++;
			state.break_next++;
		}
		if (done && state.next_event >= segment->event_count)
			break;
		rc = fire_event(gen, &state, done);
		if (rc != 0 || done)
			continue;
		if (gen->master.open_break >= 0) {
			/* master stays linear until it builds again */
			if (state.direct_left > 0) {
				rc = direct_commit(gen, &state);
			} else {
				gen->breaks[gen->master.open_break].countdown = 1;
				rc = ordinary_commit(gen, &gen->master, segment, 0);
			}
			continue;
		}
		rc = segment_step(gen, &state, open, unopened);
	}
	/* breaks that found no place in this segment do not carry over */
	gen->pending_breaks = 0;
	if (rc == 0 && segment->release)
		rc = release_commit(gen, &gen->master, segment->release);
	segment_state_free(&state);
	return rc;
}

/* ---- the start: v3.3-rc7 to v3.3 ---------------------------------------- */

static const struct release release_v3_3 = { "v3.3", 3, 0, "", KERNEL_ROLE_LINUS, DATE_V3_3 };

static int init_line(struct generator *gen, struct line *line, const char *ref,
		     const char *branch, model_tree_state tree)
{
	memset(line, 0, sizeof(*line));
	snprintf(line->ref, sizeof(line->ref), "%s", ref);
	line->branch = branch;
	line->tree = model_tree_state_copy(&gen->tree, tree);
	line->open_break = -1;
	return line->tree ? 0 : -ENOMEM;
}

/* The root commit holds the whole tree, as of "Linux 3.3-rc7". */
static int write_root(struct generator *gen, model_tree_state initial)
{
	const struct kernel_person *linus = kernel_role_person(KERNEL_ROLE_LINUS);
	long makefile = model_tree_find(&gen->tree, "Makefile");
	struct file_change *changes;
	struct commit_spec spec;
	size_t i;
	long index;

	if (makefile < 0)
		return fail(gen, -ENOENT, "the template tree has no top Makefile");
	initial[makefile] = model_tree_add_version(&gen->tree,
		model_tree_makefile_with_version(initial[makefile]->text, 3, 0, "-rc7"), -1);
	if (!initial[makefile] || init_line(gen, &gen->master, "refs/heads/master", MASTER,
					    initial) != 0)
		return -ENOMEM;
	changes = malloc(gen->tree.file_count * sizeof(*changes));
	if (!changes)
		return -ENOMEM;
	for (i = 0; i < gen->tree.file_count; i++)
		changes[i] = (struct file_change){ i, NULL, initial[i] };
	spec = (struct commit_spec){
		.author = linus, .committer = linus,
		.author_date = DATE_V3_3_RC7, .commit_date = DATE_V3_3_RC7,
		.subject = "Linux 3.3-rc7", .message = "Linux 3.3-rc7\n",
		.changes = changes, .change_count = gen->tree.file_count,
		.subsystem = kernel_subsystem_index("core"),
	};
	gen->clock.now = DATE_V3_3_RC7;
	index = write_commit(gen, &gen->master, &spec);
	free(changes);
	return index < 0 ? (int)index : 0;
}

static int write_prelude(struct generator *gen, model_tree_state initial)
{
	struct segment prelude = {
		.budget = 5, .end_date = DATE_V3_3, .release = &release_v3_3,
	};
	int rc = write_root(gen, initial);

	if (rc == 0)
		rc = run_segment(gen, &prelude);
	if (rc == 0) {
		gen->base_tree = model_tree_state_copy(&gen->tree, gen->master.tree);
		if (!gen->base_tree)
			rc = -ENOMEM;
	}
	return rc;
}

/* ---- the stable queue --------------------------------------------------- */

static int queue_add(struct generator *gen, long commit, long upstream, enum pick_form form)
{
	struct queue_record *queue = realloc(gen->queue, (gen->queue_count + 1) * sizeof(*queue));

	if (!queue)
		return -ENOMEM;
	gen->queue = queue;
	gen->queue[gen->queue_count++] = (struct queue_record){ commit, upstream, form };
	return 0;
}

/* A candidate applies when every file it changes is, on the stable branch,
 * exactly what it changed upstream. */
static int applies_to_stable(const struct generator *gen, const struct commit_record *candidate)
{
	size_t i;

	for (i = 0; i < candidate->change_count; i++) {
		if (gen->stable.tree[candidate->changes[i].file] != candidate->changes[i].before)
			return 0;
	}
	return 1;
}

/* Greg's form of an upstream message: subject, the upstream reference,
 * the original body and trailers, his sign-off. */
static int stable_message(struct generator *gen, const struct commit_record *upstream,
			  enum pick_form form, struct text_buffer *message)
{
	const struct kernel_person *greg = kernel_role_person(KERNEL_ROLE_STABLE);
	const char *rest = strstr(upstream->message, "\n\n");
	const char *id = commit_id(gen, (long)(upstream - gen->commits));

	if (!id)
		return -EIO;
	text_buffer_printf(message, "%s\n\n", upstream->subject);
	if (form == PICK_UPSTREAM_BRACKET)
		text_buffer_printf(message, "[ Upstream commit %s ]\n\n", id);
	else
		text_buffer_printf(message, "commit %s upstream.\n\n", id);
	text_buffer_append_string(message, rest ? rest + 2 : "");
	text_buffer_printf(message, "Signed-off-by: %s <%s>\n", greg->name, greg->email);
	return message->error;
}

static int pick_commit(struct generator *gen, long upstream_index, enum pick_form form,
		       int bad_backport)
{
	const struct commit_record *upstream = &gen->commits[upstream_index];
	struct file_change changes[4];
	struct text_buffer message;
	struct commit_spec spec;
	size_t count = upstream->change_count;
	long index;
	int rc;

	if (bad_backport) {
		/* a backport that lost the first hunk on the way */
		rc = driver_change_edits(gen, &gen->stable,
					 driver_change_get(DRIVER_CHANGE_BAD_BACKPORT), changes, &count);
		if (rc != 0)
			return rc;
	} else {
		memcpy(changes, upstream->changes, count * sizeof(changes[0]));
	}
	text_buffer_init(&message);
	rc = stable_message(gen, upstream, form, &message);
	if (rc != 0) {
		text_buffer_free(&message);
		return rc;
	}
	spec = (struct commit_spec){
		.author = upstream->author, .author_date = upstream->author_date,
		.committer = kernel_role_person(KERNEL_ROLE_STABLE),
		.subject = upstream->subject, .message = message.text,
		.changes = changes, .change_count = count,
		.subsystem = upstream->subsystem,
	};
	spec.commit_date = clock_next(gen);
	index = write_commit(gen, &gen->stable, &spec);
	text_buffer_free(&message);
	if (index < 0)
		return (int)index;
	gen->stable_commits++;
	if (upstream->driver_change >= 0) {
		rc = record_driver_change(gen, bad_backport ? DRIVER_CHANGE_BAD_BACKPORT
							    : (enum driver_change_id)upstream->driver_change,
					  STABLE_BRANCH, index);
		if (rc != 0)
			return rc;
	}
	return queue_add(gen, index, upstream_index, form);
}

/* A patch that reached the stable queue but never mainline: it changes a
 * file mainline never touched. */
static int stray_commit(struct generator *gen)
{
	size_t core = kernel_subsystem_index("core");
	struct file_change change;
	struct text_buffer subject, body, message;
	struct commit_trailers trailers = { 0 };
	struct commit_spec spec;
	size_t count = 0;
	long file = -1, index;
	int tries, rc;

	for (tries = 0; tries < 1000 && file < 0; tries++) {
		file = pick_file(gen, core, -1);
		if (file >= 0 && (gen->master.tree[file] != gen->base_tree[file] ||
				  gen->stable.tree[file] != gen->base_tree[file] ||
				  gen->tree.files[file].filler->kind == FILLER_COMPILED))
			file = -1;
	}
	if (file < 0)
		return fail(gen, -EINVAL, "internal error: no untouched file for the stray patch");
	rc = add_change(gen, &gen->stable, &change, &count, (size_t)file,
			filler_edit(gen->tree.files[file].filler, gen->stable.tree[file]->text,
				    &gen->random));
	if (rc != 0)
		return rc;
	text_buffer_init(&subject);
	text_buffer_init(&body);
	text_buffer_init(&message);
	commit_message_patch(gen->tree.files[file].filler, 1, &gen->random, &subject, &body);
	trailers.author = random_author(gen);
	trailers.committer = kernel_role_person(KERNEL_ROLE_STABLE);
	trailers.review_tags = 1;
	text_buffer_printf(&message, "%s\n\n%s\n", subject.text, body.text);
	commit_message_trailers(&trailers, &gen->random, &message);
	rc = subject.error ? subject.error : body.error ? body.error : message.error;
	if (rc == 0) {
		spec = (struct commit_spec){
			.author = trailers.author, .committer = trailers.committer,
			.subject = subject.text, .message = message.text,
			.changes = &change, .change_count = 1, .subsystem = core,
		};
		spec.commit_date = clock_next(gen);
		spec.author_date = author_date_before(gen, spec.commit_date);
		index = write_commit(gen, &gen->stable, &spec);
		rc = index < 0 ? (int)index : queue_add(gen, index, -1, PICK_NO_UPSTREAM);
		gen->stray_commit = index;
		gen->stable_commits++;
	}
	text_buffer_free(&subject);
	text_buffer_free(&body);
	text_buffer_free(&message);
	return rc;
}

/* Follows a mainline build break into the queue: the picks from the broken
 * one up to its fix (exclusive) are broken too. Called before each pick. */
static long stable_break_before_pick(struct generator *gen, const struct commit_record *upstream)
{
	long closing = gen->stable.open_break;

	if (upstream->break_role != BREAK_ROLE_FIX || closing < 0)
		return -1;
	gen->stable.open_break = -1;
	return closing;
}

/* ... and after it: `closing` (or -1) from stable_break_before_pick. */
static int stable_break_after_pick(struct generator *gen, const struct commit_record *upstream,
				   long closing)
{
	const struct build_break_record *mainline;
	struct build_break_record *record;
	long index, pick = (long)gen->commit_count - 1;

	if (closing >= 0)
		gen->breaks[closing].fix_commit = pick;
	if (upstream->break_role != BREAK_ROLE_BREAK)
		return 0;
	index = new_break_record(gen);
	if (index < 0)
		return (int)index;
	record = &gen->breaks[index];
	mainline = &gen->breaks[upstream->build_break];
	record->branch = STABLE_BRANCH;
	record->file = mainline->file;
	record->detail.kind = mainline->detail.kind;
	memcpy(record->detail.compiler_error, mainline->detail.compiler_error,
	       sizeof(record->detail.compiler_error));
	if (append_commit(&record->window, &record->window_count, &record->window_capacity,
			  pick) != 0)
		return -ENOMEM;
	gen->stable.open_break = index;
	return 0;
}

struct queue_plan {
	long *picks;		/* upstream commits in queue order */
	size_t count;
	size_t stray_position;	/* the stray patch goes before this pick */
	long bracket_pick;	/* the one pick in "[ Upstream commit ]" form */
};

/* Which candidates the queue takes: mainline order, each that applies. The
 * culprit is held back while a build break is open, so it builds. */
static int plan_queue(struct generator *gen, struct queue_plan *plan)
{
	model_tree_state saved = model_tree_state_copy(&gen->tree, gen->stable.tree);
	long held_culprit = -1, last_break = -1;
	size_t i, j, net = kernel_subsystem_index("net");

	plan->picks = malloc((gen->commit_count + 1) * sizeof(*plan->picks));
	plan->count = 0;
	if (!saved || !plan->picks) {
		free(saved);
		return -ENOMEM;
	}
	for (i = 0; i < gen->commit_count; i++) {
		const struct commit_record *record = &gen->commits[i];

		if (!record->stable_candidate || !applies_to_stable(gen, record))
			continue;
		if (record->driver_change >= 0 && last_break >= 0) {
			held_culprit = (long)i;
			continue;
		}
		for (j = 0; j < record->change_count; j++)
			gen->stable.tree[record->changes[j].file] = record->changes[j].after;
		plan->picks[plan->count++] = (long)i;
		if (record->break_role == BREAK_ROLE_BREAK)
			last_break = (long)i;
		if (record->break_role == BREAK_ROLE_FIX && held_culprit >= 0) {
			plan->picks[plan->count++] = held_culprit;
			held_culprit = -1;
		}
		if (record->break_role == BREAK_ROLE_FIX)
			last_break = -1;
	}
	if (held_culprit >= 0)
		plan->picks[plan->count++] = held_culprit;
	memcpy(gen->stable.tree, saved, gen->tree.file_count * sizeof(*saved));
	free(saved);
	plan->stray_position = 1 + (size_t)seeded_random_below(&gen->random, plan->count);
	plan->bracket_pick = -1;
	for (i = 0; i < plan->count && plan->bracket_pick < 0; i++) {
		const struct commit_record *record = &gen->commits[plan->picks[i]];

		if (record->subsystem == net && record->driver_change < 0 &&
		    record->break_role == BREAK_ROLE_NONE)
			plan->bracket_pick = plan->picks[i];
	}
	return 0;
}

static const struct release release_v3_3_1_rc1 = {
	"v3.3.1-rc1", 3, 1, "-rc1", KERNEL_ROLE_STABLE, DATE_V3_3_1_RC1,
};

static int write_stable_queue(struct generator *gen, int bad_backport)
{
	struct queue_plan plan;
	size_t i;
	long v3_3 = tag_commit(gen, "v3.3");
	int rc;

	rc = init_line(gen, &gen->stable, "refs/heads/" STABLE_BRANCH, STABLE_BRANCH,
		       gen->base_tree);
	if (rc != 0)
		return rc;
	gen->stable.tip_mark = gen->commits[v3_3].mark;
	rc = plan_queue(gen, &plan);
	if (rc != 0)
		return rc;
	gen->clock.now = DATE_STABLE_QUEUE;
	clock_plan(&gen->clock, DATE_V3_3_1_RC1, plan.count + 2);
	for (i = 0; i < plan.count && rc == 0; i++) {
		const struct commit_record *upstream = &gen->commits[plan.picks[i]];

		long closing;

		if (i == plan.stray_position)
			rc = stray_commit(gen);
		if (rc != 0)
			break;
		closing = stable_break_before_pick(gen, upstream);
		rc = pick_commit(gen, plan.picks[i],
				 plan.picks[i] == plan.bracket_pick ? PICK_UPSTREAM_BRACKET
								    : PICK_COMMIT_UPSTREAM,
				 bad_backport && upstream->driver_change >= 0);
		if (rc == 0)
			rc = stable_break_after_pick(gen, upstream, closing);
	}
	if (rc == 0 && plan.stray_position >= plan.count)
		rc = stray_commit(gen);
	if (rc == 0 && gen->stable.open_break >= 0)
		rc = fail(gen, -EPROTO, "internal error: the stable queue ends broken");
	if (rc == 0) {
		rc = release_commit(gen, &gen->stable, &release_v3_3_1_rc1);
		gen->stable_commits++;
	}
	free(plan.picks);
	return rc;
}

/* ---- scenarios ---------------------------------------------------------- */

static const struct release release_v3_4_rc1 = { "v3.4-rc1", 4, 0, "-rc1", KERNEL_ROLE_LINUS, DATE_V3_4_RC1 };
static const struct release release_v3_4_rc2 = { "v3.4-rc2", 4, 0, "-rc2", KERNEL_ROLE_LINUS, DATE_V3_4_RC2 };
static const struct release release_v3_4_rc3 = { "v3.4-rc3", 4, 0, "-rc3", KERNEL_ROLE_LINUS, DATE_V3_4_RC3 };
static const struct release release_v3_3_1 = { "v3.3.1", 3, 1, "", KERNEL_ROLE_STABLE, DATE_V3_3_1 };
static const struct release release_v3_3_2 = { "v3.3.2", 3, 2, "", KERNEL_ROLE_STABLE, DATE_V3_3_2 };
static const struct release release_v3_4 = { "v3.4", 4, 0, "", KERNEL_ROLE_LINUS, DATE_V3_4 };
static const struct release release_v3_5 = { "v3.5", 5, 0, "", KERNEL_ROLE_LINUS, DATE_V3_5 };

/* A seeded position between the given fractions of `budget`. */
static size_t position_between(struct generator *gen, size_t budget, double low, double high)
{
	return (size_t)seeded_random_between(&gen->random, (int64_t)((double)budget * low),
					     (int64_t)((double)budget * high));
}

static int run_segments(struct generator *gen, const struct segment *segments, size_t count)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < count && rc == 0; i++)
		rc = run_segment(gen, &segments[i]);
	gen->mainline_end = gen->commit_count;
	return rc;
}

static int scenario_stable(struct generator *gen, int bad_backport)
{
	struct segment segments[] = {
		{ .budget = 280, .merge_density = 0.06, .side_min = 2, .side_max = 12,
		  .build_breaks = 2, .stable_probability = 0.47, .end_date = DATE_V3_4_RC1,
		  .release = &release_v3_4_rc1, .event_count = 1,
		  .events = { { DRIVER_CHANGE_FULLSLEEP_ON_IDLE, 0, 1 } } },
		{ .budget = 60, .merge_density = 0.08, .side_min = 1, .side_max = 5,
		  .end_date = DATE_V3_4_RC2, .release = &release_v3_4_rc2,
		  .event_count = gen->options->mainline_revert ? 1 : 0,
		  .events = { { DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE, 0, 1 } } },
		{ .budget = 12, .end_date = DATE_V3_4_RC2 + 2 * DAY },
	};
	int rc;

	segments[0].events[0].position = position_between(gen, 280, 0.2, 0.8);
	segments[1].events[0].position = position_between(gen, 60, 0.1, 0.7);
	rc = run_segments(gen, segments, 3);
	return rc ? rc : write_stable_queue(gen, bad_backport);
}

static int scenario_mainline(struct generator *gen)
{
	struct segment segments[] = {
		{ .budget = 9000, .merge_density = 0.045, .side_min = 5, .side_max = 35,
		  .build_breaks = 3, .end_date = DATE_V3_4_RC1, .release = &release_v3_4_rc1,
		  .event_count = 1, .events = { { DRIVER_CHANGE_FULLSLEEP_ON_IDLE, 0, 1 } } },
		{ .budget = 500, .merge_density = 0.1, .side_min = 2, .side_max = 10,
		  .build_breaks = 1, .end_date = DATE_V3_4_RC2, .release = &release_v3_4_rc2,
		  .event_count = 1, .events = { { DRIVER_CHANGE_RESET_ON_IDLE_OFF, 0, 1 } } },
		{ .budget = 480, .merge_density = 0.1, .side_min = 2, .side_max = 10,
		  .build_breaks = 1, .end_date = DATE_V3_4_RC3, .release = &release_v3_4_rc3,
		  .event_count = 1,
		  .events = { { DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE, 0, 1 } } },
	};

	segments[0].events[0].position = position_between(gen, 9000, 0.3, 0.8);
	segments[1].events[0].position = position_between(gen, 500, 0.2, 0.8);
	segments[2].events[0].position = position_between(gen, 480, 0.2, 0.8);
	return run_segments(gen, segments, 3);
}

static int scenario_releases(struct generator *gen)
{
	const struct segment segments[] = {
		{ .budget = 6, .end_date = DATE_V3_3_1, .release = &release_v3_3_1, .event_count = 1,
		  .events = { { DRIVER_CHANGE_FULLSLEEP_ON_IDLE, 3, 0 } } },
		{ .budget = 6, .end_date = DATE_V3_3_2, .release = &release_v3_3_2, .event_count = 1,
		  .events = { { DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE, 3, 0 } } },
		{ .budget = 8, .build_breaks = 1, .end_date = DATE_V3_4, .release = &release_v3_4,
		  .event_count = 1, .events = { { DRIVER_CHANGE_RESET_ON_IDLE_OFF, 4, 0 } } },
		{ .budget = 8, .end_date = DATE_V3_5, .release = &release_v3_5, .event_count = 2,
		  .events = { { DRIVER_CHANGE_FULLSLEEP_AFTER_RX_ABORT, 3, 0 },
			      { DRIVER_CHANGE_PHY_PREFIX, 5, 0 } } },
	};

	return run_segments(gen, segments, 4);
}

static int scenario_random(struct generator *gen)
{
	/* the culprit and the closing release are commits of their own */
	size_t budget = gen->options->commits - 2;
	struct segment segment = {
		.budget = budget, .merge_density = gen->options->merge_density,
		.side_min = 1, .side_max = 4,
		.build_breaks = (size_t)llround(gen->options->build_break_rate *
						(double)gen->options->commits),
		.end_date = DATE_V3_4_RC1, .release = &release_v3_4_rc1, .event_count = 1,
		.events = { { DRIVER_CHANGE_FULLSLEEP_ON_IDLE, 0, 0 } },
	};

	segment.events[0].position = 1 + (size_t)seeded_random_below(&gen->random, budget - 1);
	return run_segments(gen, &segment, 1);
}

static int run_scenario(struct generator *gen)
{
	switch (gen->options->scenario) {
	case HISTORY_STABLE_3_3_1:
		return scenario_stable(gen, 0);
	case HISTORY_TXACK_BACKPORT:
		return scenario_stable(gen, 1);
	case HISTORY_MAINLINE_3_4:
		return scenario_mainline(gen);
	case HISTORY_RELEASES:
		return scenario_releases(gen);
	case HISTORY_RANDOM:
		return scenario_random(gen);
	default:
		return fail(gen, -EINVAL, "unknown scenario %d", (int)gen->options->scenario);
	}
}

/* ---- the ground truth --------------------------------------------------- */

/* A JSON string of the commit's id; NULL when fast-import cannot say. */
static json_t *id_json(struct generator *gen, long commit)
{
	const char *id = commit >= 0 ? commit_id(gen, commit) : NULL;

	if (commit < 0)
		return json_null();
	return id ? json_string(id) : NULL;
}

/* Sets key to the id; 0 or -EIO. */
static int set_id(struct generator *gen, json_t *object, const char *key, long commit)
{
	json_t *value = id_json(gen, commit);

	if (!value || json_object_set_new(object, key, value) != 0)
		return fail(gen, -EIO, "cannot learn the id of commit %ld from git fast-import", commit);
	return 0;
}

static int append_id(struct generator *gen, json_t *array, long commit)
{
	json_t *value = id_json(gen, commit);

	if (!value || json_array_append_new(array, value) != 0)
		return fail(gen, -EIO, "cannot learn the id of commit %ld from git fast-import", commit);
	return 0;
}

static json_t *options_json(const struct history_options *options)
{
	switch (options->scenario) {
	case HISTORY_STABLE_3_3_1:
	case HISTORY_TXACK_BACKPORT:
		return json_pack("{s:s}", "mainline_revert",
				 options->mainline_revert ? "present" : "none");
	case HISTORY_RANDOM:
		return json_pack("{s:I, s:f, s:f}", "commits", (json_int_t)options->commits,
				 "merge_density", options->merge_density,
				 "build_break_rate", options->build_break_rate);
	default:
		return json_object();
	}
}

static int driver_truth(struct generator *gen, json_t *truth)
{
	json_t *culprits = json_object(), *reverts = json_object(), *resets = json_object();
	json_t *changes = json_array();
	size_t i;
	int rc = 0;

	json_object_set_new(truth, "culprits", culprits);
	json_object_set_new(truth, "revert", reverts);
	json_object_set_new(truth, "reset_on_idle_off", resets);
	json_object_set_new(truth, "driver_changes", changes);
	for (i = 0; i < gen->driver_count && rc == 0; i++) {
		const struct driver_record *driver = &gen->drivers[i];
		json_t *entry = json_pack("{s:s, s:s, s:s}", "change", change_names[driver->change],
					  "branch", driver->branch, "subject",
					  gen->commits[driver->commit].subject);

		if (!entry || json_array_append_new(changes, entry) != 0)
			return -ENOMEM;
		rc = set_id(gen, entry, "commit", driver->commit);
		if (rc == 0 && (driver->change == DRIVER_CHANGE_FULLSLEEP_ON_IDLE ||
				driver->change == DRIVER_CHANGE_BAD_BACKPORT) &&
		    !json_object_get(culprits, driver->branch))
			rc = set_id(gen, culprits, driver->branch, driver->commit);
		if (rc == 0 && driver->change == DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE)
			rc = set_id(gen, reverts, driver->branch, driver->commit);
		if (rc == 0 && driver->change == DRIVER_CHANGE_RESET_ON_IDLE_OFF)
			rc = set_id(gen, resets, driver->branch, driver->commit);
	}
	return rc;
}

/* The named variant whose driver texts equal those after `ids`, or -1. */
static int variant_after(struct generator *gen, const enum driver_change_id *ids, size_t count)
{
	static const char *const paths[] = {
		"drivers/net/wireless/ath/ath9k/main.c", "drivers/net/wireless/ath/main.c",
	};
	char *texts[2][DRIVER_VARIANT_COUNT + 1] = { { NULL } };
	int variant, match = -1;
	size_t p, i;

	for (p = 0; p < 2; p++) {
		long file = model_tree_find(&gen->tree, paths[p]);
		const enum driver_change_id *list;
		size_t length;

		for (variant = 0; variant <= DRIVER_VARIANT_COUNT; variant++) {
			const char *error;
			char *text = file >= 0 ? strdup(gen->base_tree[file]->text) : NULL;

			if (variant < DRIVER_VARIANT_COUNT) {
				length = driver_variant_changes((enum driver_variant)variant, &list);
			} else {
				list = ids;
				length = count;
			}
			for (i = 0; i < length && text; i++) {
				char *next = driver_change_apply(driver_change_get(list[i]), paths[p],
								 text, &error);

				free(text);
				text = next;
			}
			texts[p][variant] = text;
		}
	}
	for (variant = 0; variant < DRIVER_VARIANT_COUNT && match < 0; variant++) {
		if (texts[0][variant] && texts[1][variant] && texts[0][DRIVER_VARIANT_COUNT] &&
		    texts[1][DRIVER_VARIANT_COUNT] &&
		    strcmp(texts[0][variant], texts[0][DRIVER_VARIANT_COUNT]) == 0 &&
		    strcmp(texts[1][variant], texts[1][DRIVER_VARIANT_COUNT]) == 0)
			match = variant;
	}
	for (p = 0; p < 2; p++) {
		for (variant = 0; variant <= DRIVER_VARIANT_COUNT; variant++)
			free(texts[p][variant]);
	}
	return match;
}

/* One "variants" entry: the state after the first `applied` changes of
 * `chain` (one branch's driver commits, each a descendant of the one
 * before). */
static int variant_entry(struct generator *gen, json_t *variants,
			 const struct driver_record *const *chain, size_t chain_length,
			 size_t applied, const long *lacks, size_t lack_count)
{
	enum driver_change_id ids[8];
	json_t *entry = json_object(), *names = json_array(), *has = json_array();
	json_t *lack = json_array();
	size_t i;
	int variant, rc = 0;

	if (!entry || !names || !has || !lack || json_array_append_new(variants, entry) != 0) {
		json_decref(entry);
		json_decref(names);
		json_decref(has);
		json_decref(lack);
		return -ENOMEM;
	}
	json_object_set_new(entry, "changes", names);
	json_object_set_new(entry, "has", has);
	json_object_set_new(entry, "lacks", lack);
	for (i = 0; i < applied && rc == 0; i++) {
		ids[i] = chain[i]->change;
		json_array_append_new(names, json_string(change_names[chain[i]->change]));
		rc = append_id(gen, has, chain[i]->commit);
	}
	for (i = 0; i < lack_count && rc == 0; i++)
		rc = append_id(gen, lack, lacks[i]);
	if (rc == 0 && applied < chain_length)
		rc = append_id(gen, lack, chain[applied]->commit);
	variant = variant_after(gen, ids, applied);
	json_object_set_new(entry, "variant", variant < 0 ? json_null()
		: json_string(driver_variant_name((enum driver_variant)variant)));
	return rc;
}

static int variants_truth(struct generator *gen, json_t *truth)
{
	static const char *const branches[] = { MASTER, STABLE_BRANCH };
	const struct driver_record *chains[2][8];
	size_t lengths[2] = { 0, 0 }, b, i, k;
	long firsts[2];
	size_t first_count = 0;
	json_t *variants = json_array();
	int rc = 0;

	if (!variants || json_object_set_new(truth, "variants", variants) != 0)
		return -ENOMEM;
	for (b = 0; b < 2; b++) {
		for (i = 0; i < gen->driver_count; i++) {
			if (strcmp(gen->drivers[i].branch, branches[b]) == 0)
				chains[b][lengths[b]++] = &gen->drivers[i];
		}
		if (lengths[b] > 0)
			firsts[first_count++] = chains[b][0]->commit;
	}
	/* v3.3's driver: before the first change of every branch */
	rc = variant_entry(gen, variants, NULL, 0, 0, firsts, first_count);
	for (b = 0; b < 2 && rc == 0; b++) {
		for (k = 1; k <= lengths[b] && rc == 0; k++)
			rc = variant_entry(gen, variants, chains[b], lengths[b], k, NULL, 0);
	}
	json_object_set_new(truth, "bad_variants", json_pack("[s, s]",
		driver_variant_name(DRIVER_VARIANT_V3_3_1),
		driver_variant_name(DRIVER_VARIANT_BAD_BACKPORT)));
	return rc;
}

static int breaks_truth(struct generator *gen, json_t *truth)
{
	json_t *breaks = json_array();
	size_t i, j;
	int rc = 0;

	if (!breaks || json_object_set_new(truth, "build_breaks", breaks) != 0)
		return -ENOMEM;
	for (i = 0; i < gen->break_count && rc == 0; i++) {
		const struct build_break_record *record = &gen->breaks[i];
		json_t *entry, *window;

		if (record->fix_commit < 0 || record->window_count == 0)
			return fail(gen, -EPROTO, "internal error: build break %zu never fixed", i);
		entry = json_pack("{s:s, s:s, s:s}", "branch", record->branch,
				  "file", gen->tree.files[record->file].path,
				  "error", record->detail.compiler_error);
		window = json_array();
		if (!entry || !window || json_array_append_new(breaks, entry) != 0) {
			json_decref(window);
			return -ENOMEM;
		}
		rc = set_id(gen, entry, "broken", record->window[0]);
		if (rc == 0)
			rc = set_id(gen, entry, "fixed_by", record->fix_commit);
		json_object_set_new(entry, "broken_commits", window);
		for (j = 0; j < record->window_count && rc == 0; j++)
			rc = append_id(gen, window, record->window[j]);
	}
	return rc;
}

static int queue_truth(struct generator *gen, json_t *truth)
{
	static const char *const forms[] = {
		[PICK_COMMIT_UPSTREAM] = "commit-upstream",
		[PICK_UPSTREAM_BRACKET] = "upstream-commit-bracket",
		[PICK_NO_UPSTREAM] = "none",
	};
	json_t *queue, *patches;
	size_t i;
	int rc;

	if (gen->queue_count == 0)
		return json_object_set_new(truth, "stable_queue", json_null()) ? -ENOMEM : 0;
	queue = json_pack("{s:s, s:s, s:s, s:[]}", "branch", STABLE_BRANCH, "base", "v3.3",
			  "tag", release_v3_3_1_rc1.tag, "patches");
	if (!queue || json_object_set_new(truth, "stable_queue", queue) != 0)
		return -ENOMEM;
	rc = set_id(gen, queue, "stray", gen->stray_commit);
	patches = json_object_get(queue, "patches");
	for (i = 0; i < gen->queue_count && rc == 0; i++) {
		const struct queue_record *record = &gen->queue[i];
		json_t *entry = json_pack("{s:s, s:s}", "form", forms[record->form], "subject",
					  gen->commits[record->commit].subject);

		if (!entry || json_array_append_new(patches, entry) != 0)
			return -ENOMEM;
		rc = set_id(gen, entry, "commit", record->commit);
		if (rc == 0)
			rc = set_id(gen, entry, "upstream", record->upstream);
	}
	return rc;
}

static int tips_truth(struct generator *gen, json_t *truth)
{
	long v3_3 = tag_commit(gen, "v3.3");
	json_t *branches = json_object(), *counts = json_object(), *tags = json_object();
	size_t i;
	int rc;

	json_object_set_new(truth, "branches", branches);
	json_object_set_new(truth, "commit_counts", counts);
	json_object_set_new(truth, "tags", tags);
	if (!branches || !counts || !tags)
		return -ENOMEM;
	rc = set_id(gen, branches, MASTER, gen->master.tip_commit);
	json_object_set_new(counts, MASTER, json_integer((json_int_t)gen->mainline_end - v3_3 - 1));
	if (rc == 0 && gen->stable.tree) {
		rc = set_id(gen, branches, STABLE_BRANCH, gen->stable.tip_commit);
		json_object_set_new(counts, STABLE_BRANCH, json_integer(gen->stable_commits));
	}
	for (i = 0; i < gen->tag_count && rc == 0; i++)
		rc = set_id(gen, tags, gen->tags[i].name, gen->tags[i].commit);
	return rc;
}

static int build_truth(struct generator *gen, json_t **out)
{
	json_t *truth = json_pack("{s:s, s:s, s:I}", "format", "rackbisect-model-kernel-truth/1",
				  "scenario", history_scenario_name(gen->options->scenario),
				  "seed", (json_int_t)gen->options->seed);
	int rc;

	if (!truth || json_object_set_new(truth, "options", options_json(gen->options)) != 0) {
		json_decref(truth);
		return -ENOMEM;
	}
	rc = tips_truth(gen, truth);
	if (rc == 0)
		rc = driver_truth(gen, truth);
	if (rc == 0)
		rc = variants_truth(gen, truth);
	if (rc == 0)
		rc = breaks_truth(gen, truth);
	if (rc == 0)
		rc = queue_truth(gen, truth);
	if (rc != 0) {
		json_decref(truth);
		return rc;
	}
	*out = truth;
	return 0;
}

/* ---- options ------------------------------------------------------------ */

static const char *const scenario_names[HISTORY_SCENARIO_COUNT] = {
	[HISTORY_STABLE_3_3_1] = "stable-3.3.1",
	[HISTORY_MAINLINE_3_4] = "mainline-3.4",
	[HISTORY_TXACK_BACKPORT] = "txack-backport",
	[HISTORY_RELEASES] = "releases",
	[HISTORY_RANDOM] = "random",
};

const char *history_scenario_name(enum history_scenario scenario)
{
	if ((int)scenario < 0 || scenario >= HISTORY_SCENARIO_COUNT)
		return "unknown";
	return scenario_names[scenario];
}

int history_scenario_from_name(const char *name, enum history_scenario *scenario)
{
	int i;

	for (i = 0; i < HISTORY_SCENARIO_COUNT; i++) {
		if (strcmp(scenario_names[i], name) == 0) {
			*scenario = (enum history_scenario)i;
			return 0;
		}
	}
	return -EINVAL;
}

void history_options_init(struct history_options *options, enum history_scenario scenario)
{
	memset(options, 0, sizeof(*options));
	options->scenario = scenario;
	options->commits = HISTORY_DEFAULT_COMMITS;
	options->merge_density = HISTORY_DEFAULT_MERGE_DENSITY;
	options->build_break_rate = HISTORY_DEFAULT_BUILD_BREAK_RATE;
}

int history_options_check(const struct history_options *options, char *error,
			  size_t error_size)
{
	if ((int)options->scenario < 0 || options->scenario >= HISTORY_SCENARIO_COUNT) {
		snprintf(error, error_size, "unknown scenario %d", (int)options->scenario);
		return -EINVAL;
	}
	if (options->seed > (uint64_t)HISTORY_MAX_SEED) {
		snprintf(error, error_size, "seed %llu is too large: use 0..%lld",
			 (unsigned long long)options->seed, (long long)HISTORY_MAX_SEED);
		return -EINVAL;
	}
	if (options->commits < HISTORY_MIN_COMMITS || options->commits > HISTORY_MAX_COMMITS) {
		snprintf(error, error_size, "commits %lu is out of range: use %lu..%lu",
			 options->commits, HISTORY_MIN_COMMITS, HISTORY_MAX_COMMITS);
		return -EINVAL;
	}
	if (!(options->merge_density >= 0 && options->merge_density <= HISTORY_MAX_MERGE_DENSITY)) {
		snprintf(error, error_size, "merge density %g is out of range: use 0..%g",
			 options->merge_density, HISTORY_MAX_MERGE_DENSITY);
		return -EINVAL;
	}
	if (!(options->build_break_rate >= 0 &&
	      options->build_break_rate <= HISTORY_MAX_BUILD_BREAK_RATE)) {
		snprintf(error, error_size, "build break rate %g is out of range: use 0..%g",
			 options->build_break_rate, HISTORY_MAX_BUILD_BREAK_RATE);
		return -EINVAL;
	}
	return 0;
}

/* ---- the whole run ------------------------------------------------------ */

static int prepare_directory(struct generator *gen, const char *repository)
{
	const char *init[] = { "git", "init", "-q", "-b", "master", repository, NULL };
	int rc;

	if (mkdir(repository, 0777) != 0 && errno != EEXIST)
		return fail(gen, -errno, "cannot create %s: %s", repository, strerror(errno));
	rc = git_command_run(init, NULL);
	if (rc != 0)
		return fail(gen, rc, "`git init %s` failed%s", repository,
			    rc == -ENOENT ? ": git is not installed (apt-get install git)" : "");
	return 0;
}

/* Side branches were only a way to write merges: drop their refs. */
static void delete_side_refs(struct generator *gen)
{
	size_t i;

	for (i = 0; i < kernel_subsystem_count(); i++) {
		if (gen->side_ref_marks[i])
			fast_import_printf(gen->import, "reset " SIDE_REF_PREFIX "%s\nfrom "
					   NULL_COMMIT_ID "\n\n", kernel_subsystem(i)->name);
	}
}

static int check_out_master(struct generator *gen, const char *repository)
{
	const char *reset[] = { "git", "-C", repository, "reset", "-q", "--hard", NULL };
	int rc = git_command_run(reset, NULL);

	return rc ? fail(gen, rc, "`git reset --hard` in %s failed", repository) : 0;
}

static void generator_free(struct generator *gen)
{
	size_t i;

	for (i = 0; i < gen->commit_count; i++) {
		free(gen->commits[i].subject);
		free(gen->commits[i].message);
		free(gen->commits[i].changes);
	}
	free(gen->commits);
	for (i = 0; i < gen->break_count; i++) {
		filler_build_break_free(&gen->breaks[i].detail);
		free(gen->breaks[i].window);
	}
	free(gen->breaks);
	for (i = 0; i < MAX_SUBSYSTEMS; i++) {
		free(gen->subsystem_files[i]);
		if (gen->sides[i]) {
			line_free(gen->sides[i]);
			free(gen->sides[i]);
		}
	}
	line_free(&gen->master);
	line_free(&gen->stable);
	free(gen->base_tree);
	free(gen->queue);
	model_tree_free(&gen->tree);
}

static int generate(struct generator *gen, const char *repository, json_t **truth)
{
	model_tree_state initial = NULL;
	int rc;

	rc = prepare_directory(gen, repository);
	if (rc != 0)
		return rc;
	rc = fast_import_start(repository, &gen->import);
	if (rc != 0)
		return fail(gen, rc, "cannot start git fast-import: %s", strerror(-rc));
	rc = model_tree_create(&gen->tree, &gen->random, &initial);
	if (rc == 0)
		rc = index_subsystem_files(gen);
	if (rc == 0)
		rc = write_prelude(gen, initial);
	free(initial);
	if (rc == 0)
		rc = run_scenario(gen);
	if (rc == 0) {
		delete_side_refs(gen);
		rc = build_truth(gen, truth);
	}
	if (rc != 0) {
		fast_import_abort(gen->import);
		gen->import = NULL;
		return fail(gen, rc, "generating the history failed: %s", strerror(-rc));
	}
	rc = fast_import_finish(gen->import);
	gen->import = NULL;
	if (rc != 0) {
		json_decref(*truth);
		*truth = NULL;
		return fail(gen, rc, "git fast-import failed (%s); its message is above",
			    strerror(-rc));
	}
	rc = check_out_master(gen, repository);
	if (rc != 0) {
		json_decref(*truth);
		*truth = NULL;
	}
	return rc;
}

int history_generate(const char *repository, const struct history_options *options,
		     json_t **truth, char *error, size_t error_size)
{
	struct generator gen;
	int rc;

	memset(&gen, 0, sizeof(gen));
	gen.options = options;
	gen.error = error;
	gen.error_size = error_size;
	gen.stray_commit = -1;
	gen.master.open_break = -1;
	gen.stable.open_break = -1;
	if (error_size)
		error[0] = '\0';
	*truth = NULL;
	rc = history_options_check(options, error, error_size);
	if (rc != 0)
		return rc;
	seeded_random_init(&gen.random, options->seed, history_scenario_name(options->scenario));
	rc = generate(&gen, repository, truth);
	generator_free(&gen);
	return rc;
}
