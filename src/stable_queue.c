/* stable_queue.c - a stable queue from `git log`, checked against mainline. */
#include "stable_queue.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "git_ref.h"
#include "subprocess.h"

/*
 * Our `git log --format` outputs separate records and fields with control
 * characters no commit message of a kernel tree holds; NUL is out, it would
 * end subprocess_run's text. The message body is always the last field, so
 * whatever it holds cannot shift the fields before it.
 */
#define RECORD '\x1e'
#define FIELD '\x1f'
#define ID_LENGTH 40
#define FIX_ID_MIN 12		/* "Fixes:" names at least 12 hex digits */

__attribute__((format(printf, 3, 4)))
static void set_error(char *error, size_t error_size, const char *format, ...)
{
	va_list args;

	if (!error || error_size == 0)
		return;
	va_start(args, format);
	vsnprintf(error, error_size, format, args);
	va_end(args);
}

/*
 * `git -C tree TAIL...` (tail NULL-terminated); its exit status, stdout in
 * *output when output is non-NULL. Signatures and quoted paths would change
 * what we parse, whatever the user's configuration says.
 */
static int git_run(const char *tree, char *const *tail, char **output)
{
	char *argv[32] = { "git", "-C", (char *)tree, "-c", "log.showSignature=false",
			   "-c", "core.quotePath=false" };
	size_t argc = 7, i;

	for (i = 0; tail[i] && argc < 31; i++)
		argv[argc++] = tail[i];
	argv[argc] = NULL;
	if (output)
		*output = NULL;
	return subprocess_run(argv, NULL, output);
}

static bool is_hex(const char *text, size_t length)
{
	size_t i;

	for (i = 0; i < length; i++) {
		if (!isxdigit((unsigned char)text[i]))
			return false;
	}
	return true;
}

static char *trim(char *text)
{
	char *end;

	while (isspace((unsigned char)*text))
		text++;
	end = text + strlen(text);
	while (end > text && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return text;
}

static bool is_commit_id(const char *text)
{
	return strlen(text) == ID_LENGTH && is_hex(text, ID_LENGTH);
}

/* Git writes ids in lower case; messages quoting them are searched as such. */
static void copy_id(char id[ID_LENGTH + 1], const char *text)
{
	size_t i;

	for (i = 0; i < ID_LENGTH; i++)
		id[i] = (char)tolower((unsigned char)text[i]);
	id[ID_LENGTH] = '\0';
}

static int resolve(const char *tree, const char *ref, char id[ID_LENGTH + 1], char *error,
		   size_t error_size)
{
	char spec[GIT_REF_MAX + 16];
	char *tail[] = { "rev-parse", "--verify", "--quiet", spec, NULL };
	char *output = NULL;
	int rc;

	if (git_ref_check(ref, error, error_size))
		return -EINVAL;
	snprintf(spec, sizeof(spec), "%s^{commit}", ref);
	rc = git_run(tree, tail, &output);
	if (rc == 0 && output && strlen(output) >= ID_LENGTH && is_hex(output, ID_LENGTH)) {
		copy_id(id, output);
		free(output);
		return 0;
	}
	free(output);
	if (rc < 0) {
		set_error(error, error_size, "cannot run git in %s: %s", tree, strerror(-rc));
		return rc;
	}
	set_error(error, error_size, "no commit '%s' in %s", ref, tree);
	return -ENOENT;
}

/* 1 when `id` is `mainline_id` or its ancestor; 0 when not, or the tree lacks it. */
static int in_mainline(const char *tree, const char *id, const char *mainline_id)
{
	char *tail[] = { "merge-base", "--is-ancestor", (char *)id, (char *)mainline_id, NULL };
	int rc = git_run(tree, tail, NULL);

	return rc < 0 ? rc : rc == 0;
}

/* ---- records of `git log --format=%x1e...` ------------------------------- */

static char *first_record(char *output)
{
	char *start = output ? strchr(output, RECORD) : NULL;

	return start ? start + 1 : NULL;
}

/* The record at *cursor, cut out in place; NULL after the last. */
static char *next_record(char **cursor)
{
	char *record = *cursor, *end;

	if (!record)
		return NULL;
	end = strchr(record, RECORD);
	if (end)
		*end = '\0';
	*cursor = end ? end + 1 : NULL;
	return record;
}

/* Cuts `record` into `count` fields in place; the last takes the rest. */
static int split_fields(char *record, char **fields, size_t count)
{
	size_t i;

	fields[0] = record;
	for (i = 1; i < count; i++) {
		char *end = strchr(fields[i - 1], FIELD);

		if (!end)
			return -EIO;
		*end = '\0';
		fields[i] = end + 1;
	}
	return 0;
}

/* ---- the queue ------------------------------------------------------------- */

static size_t split_words(char *line, char **words, size_t capacity)
{
	char *save = NULL, *word;
	size_t count = 0;

	for (word = strtok_r(line, " \t\r", &save); word; word = strtok_r(NULL, " \t\r", &save)) {
		if (count == capacity)
			return capacity + 1;
		words[count++] = word;
	}
	return count;
}

/* "commit <id> upstream." or "[ Upstream commit <id> ]", alone on its line. */
static enum stable_upstream_form reference_in_line(const char *line, size_t length,
						   char upstream[ID_LENGTH + 1])
{
	char copy[128], *words[3], *start;
	size_t end;
	bool bracket;

	if (length >= sizeof(copy))
		return STABLE_FORM_NONE;
	memcpy(copy, line, length);
	copy[length] = '\0';
	start = trim(copy);
	end = strlen(start);
	bracket = end > 1 && start[0] == '[' && start[end - 1] == ']';
	if (bracket)
		start[0] = start[end - 1] = ' ';
	if (split_words(start, words, 3) != 3)
		return STABLE_FORM_NONE;
	if (bracket && strcasecmp(words[0], "upstream") == 0 && strcmp(words[1], "commit") == 0 &&
	    is_commit_id(words[2])) {
		copy_id(upstream, words[2]);
		return STABLE_FORM_UPSTREAM_BRACKET;
	}
	if (!bracket && strcmp(words[0], "commit") == 0 && is_commit_id(words[1]) &&
	    (strcmp(words[2], "upstream.") == 0 || strcmp(words[2], "upstream") == 0)) {
		copy_id(upstream, words[1]);
		return STABLE_FORM_COMMIT_UPSTREAM;
	}
	return STABLE_FORM_NONE;
}

/* A line naming a short or misspelt id names nothing: the next may still. */
enum stable_upstream_form stable_find_upstream(const char *message, char upstream[ID_LENGTH + 1])
{
	const char *line = message;

	while (*line) {
		size_t length = strcspn(line, "\n");
		enum stable_upstream_form form = reference_in_line(line, length, upstream);

		if (form != STABLE_FORM_NONE)
			return form;
		line += length + (line[length] == '\n');
	}
	upstream[0] = '\0';
	return STABLE_FORM_NONE;
}

static const char *skip_digits(const char *text)
{
	const char *start = text;

	while (isdigit((unsigned char)*text))
		text++;
	return text > start ? text : NULL;
}

/* "Linux 3.3", "Linux 3.3.1", "Linux 3.4-rc2": Linus' and Greg's release commits. */
static bool is_release_subject(const char *subject)
{
	const char *s;

	if (strncmp(subject, "Linux ", 6) != 0)
		return false;
	if (!(s = skip_digits(subject + 6)) || *s++ != '.' || !(s = skip_digits(s)))
		return false;
	if (*s == '.' && !(s = skip_digits(s + 1)))
		return false;
	if (strncmp(s, "-rc", 3) == 0 && !(s = skip_digits(s + 3)))
		return false;
	return *s == '\0';
}

/* id FIELD parents FIELD author FIELD subject FIELD message */
static int parse_patch(char *record, struct stable_patch *patch)
{
	char *fields[5];

	if (split_fields(record, fields, 5) != 0 || !is_commit_id(fields[0]))
		return -EIO;
	memset(patch, 0, sizeof(*patch));
	copy_id(patch->commit, fields[0]);
	patch->merge = strchr(fields[1], ' ') != NULL;
	snprintf(patch->author, sizeof(patch->author), "%s", fields[2]);
	snprintf(patch->subject, sizeof(patch->subject), "%s", fields[3]);
	patch->release_commit = is_release_subject(patch->subject);
	patch->form = stable_find_upstream(fields[4], patch->upstream);
	patch->upstream_in_mainline = -1;
	return 0;
}

static size_t count_char(const char *text, char c)
{
	size_t count = 0;

	for (; *text; text++)
		count += *text == c;
	return count;
}

static int read_queue(const char *tree, const char *base_id, const char *candidate_id,
		      struct stable_queue *queue, char *error, size_t error_size)
{
	char range[2 * ID_LENGTH + 3];
	char *tail[] = { "log", "--topo-order", "--reverse",
			 "--format=%x1e%H%x1f%P%x1f%an <%ae>%x1f%s%x1f%B", range, "--", NULL };
	char *output = NULL, *cursor, *record;
	int rc;

	snprintf(range, sizeof(range), "%s..%s", base_id, candidate_id);
	rc = git_run(tree, tail, &output);
	if (rc != 0 || !output) {
		set_error(error, error_size, "git log %s failed in %s", range, tree);
		free(output);
		return rc < 0 ? rc : -EIO;
	}
	queue->patches = calloc(count_char(output, RECORD) + 1, sizeof(*queue->patches));
	if (!queue->patches)
		rc = -ENOMEM;
	cursor = first_record(output);
	while (!rc && (record = next_record(&cursor)) != NULL) {
		rc = parse_patch(record, &queue->patches[queue->count]);
		queue->count += rc == 0;
	}
	if (rc == -EIO)
		set_error(error, error_size, "unexpected output of git log %s in %s", range, tree);
	free(output);
	return rc;
}

static int compare_upstreams(const void *a, const void *b)
{
	const struct stable_patch *const *x = a, *const *y = b;

	return strcmp((*x)->upstream, (*y)->upstream);
}

static int compare_id_to_upstream(const void *id, const void *element)
{
	const struct stable_patch *const *patch = element;

	return strncmp(id, (*patch)->upstream, ID_LENGTH);
}

/* `id` (a rev-list line) is in mainline: so is every patch citing it. */
static void mark_in_mainline(struct stable_patch **pending, size_t count, const char *id)
{
	struct stable_patch **hit = bsearch(id, pending, count, sizeof(*pending),
					    compare_id_to_upstream);

	if (!hit)
		return;
	while (hit > pending && strncmp(hit[-1]->upstream, id, ID_LENGTH) == 0)
		hit--;
	for (; hit < pending + count && strncmp((*hit)->upstream, id, ID_LENGTH) == 0; hit++)
		(*hit)->upstream_in_mainline = 1;
}

/* Upstream commits are mostly merged after the baseline: one walk of
 * baseline..mainline answers for them, where a git per patch took seconds. */
static int walk_mainline(const char *tree, const char *base_id, const char *mainline_id,
			 struct stable_patch **pending, size_t count)
{
	char range[2 * ID_LENGTH + 3];
	char *tail[] = { "rev-list", range, NULL };
	char *output = NULL, *line;
	int rc;

	snprintf(range, sizeof(range), "%s..%s", base_id, mainline_id);
	qsort(pending, count, sizeof(*pending), compare_upstreams);
	rc = git_run(tree, tail, &output);
	for (line = rc == 0 ? output : NULL; line && strlen(line) >= ID_LENGTH;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		mark_in_mainline(pending, count, line);
	free(output);
	return rc < 0 ? rc : 0;
}

/* What the walk did not find (not in mainline, or older than the baseline)
 * git answers one by one. */
static int check_upstreams(const char *tree, const char *base_id, const char *mainline_id,
			   struct stable_queue *queue)
{
	struct stable_patch **pending = calloc(queue->count + 1, sizeof(*pending));
	size_t count = 0, i;
	int rc;

	if (!pending)
		return -ENOMEM;
	for (i = 0; i < queue->count; i++) {
		struct stable_patch *patch = &queue->patches[i];

		if (patch->upstream[0] && !patch->merge && !patch->release_commit)
			pending[count++] = patch;
	}
	rc = walk_mainline(tree, base_id, mainline_id, pending, count);
	for (i = 0; i < count && rc >= 0; i++) {
		if (pending[i]->upstream_in_mainline == 1)
			continue;
		rc = in_mainline(tree, pending[i]->upstream, mainline_id);
		pending[i]->upstream_in_mainline = rc < 0 ? -1 : rc;
	}
	free(pending);
	return rc < 0 ? rc : 0;
}

int stable_queue_load(const char *tree, const char *baseline, const char *candidate,
		      const char *mainline, struct stable_queue *queue, char *error,
		      size_t error_size)
{
	char base_id[ID_LENGTH + 1], candidate_id[ID_LENGTH + 1], mainline_id[ID_LENGTH + 1];
	int rc;

	if (!queue)
		return -EINVAL;
	memset(queue, 0, sizeof(*queue));
	if (!tree || !baseline || !candidate)
		return -EINVAL;
	if ((rc = resolve(tree, baseline, base_id, error, error_size)) ||
	    (rc = resolve(tree, candidate, candidate_id, error, error_size)) ||
	    (mainline && (rc = resolve(tree, mainline, mainline_id, error, error_size))))
		return rc;
	rc = read_queue(tree, base_id, candidate_id, queue, error, error_size);
	if (!rc && mainline && (rc = check_upstreams(tree, base_id, mainline_id, queue)))
		set_error(error, error_size, "cannot run git in %s: %s", tree, strerror(-rc));
	if (rc)
		stable_queue_free(queue);
	return rc;
}

void stable_queue_free(struct stable_queue *queue)
{
	if (!queue)
		return;
	free(queue->patches);
	memset(queue, 0, sizeof(*queue));
}

const struct stable_patch *stable_queue_find(const struct stable_queue *queue,
					     const char *commit)
{
	const struct stable_patch *found = NULL;
	size_t length = commit ? strlen(commit) : 0, i;

	if (!queue || length < 4 || length > ID_LENGTH)
		return NULL;
	for (i = 0; i < queue->count; i++) {
		if (strncasecmp(queue->patches[i].commit, commit, length) != 0)
			continue;
		if (found)
			return NULL;
		found = &queue->patches[i];
	}
	return found;
}

static bool breaks_mainline_first(const struct stable_patch *patch)
{
	if (patch->release_commit || patch->merge)
		return false;
	return patch->upstream[0] == '\0' || patch->upstream_in_mainline == 0;
}

size_t stable_queue_audit(const struct stable_queue *queue, size_t **out)
{
	size_t count = 0, i;

	*out = NULL;
	for (i = 0; queue && i < queue->count; i++)
		count += breaks_mainline_first(&queue->patches[i]);
	if (count == 0 || !(*out = calloc(count, sizeof(**out))))
		return 0;
	for (i = 0, count = 0; i < queue->count; i++) {
		if (breaks_mainline_first(&queue->patches[i]))
			(*out)[count++] = i;
	}
	return count;
}

/* ---- mainline: revert, fix, people ---------------------------------------- */

/* Two entries are the same person when their addresses are. */
static void address_of(const char *entry, const char **start, size_t *length)
{
	const char *open = strchr(entry, '<'), *close = open ? strchr(open, '>') : NULL;

	*start = close ? open + 1 : entry;
	*length = close ? (size_t)(close - open - 1) : strlen(entry);
}

static bool known_person(const struct mainline_status *status, const char *entry)
{
	const char *address, *other;
	size_t length, other_length, i;

	address_of(entry, &address, &length);
	for (i = 0; i < status->people_count; i++) {
		address_of(status->people[i], &other, &other_length);
		if (length == other_length && strncasecmp(address, other, length) == 0)
			return true;
	}
	return false;
}

/* Drops a trailer's comment ("Cc: <stable@vger.kernel.org> # 3.3+"). */
static int add_person(struct mainline_status *status, const char *text)
{
	char entry[512], *comment, *person, **grown;

	snprintf(entry, sizeof(entry), "%s", text);
	if ((comment = strstr(entry, " #")) || (comment = strstr(entry, "\t#")))
		*comment = '\0';
	person = trim(entry);
	if (!*person || known_person(status, person))
		return 0;
	grown = realloc(status->people, (status->people_count + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	status->people = grown;
	if (!(grown[status->people_count] = strdup(person)))
		return -ENOMEM;
	status->people_count++;
	return 0;
}

/* The mainline commits (oldest first) whose messages contain `text`, as
 * records id FIELD subject FIELD message; after upstream when the tree has it
 * (a revert or fix descends from what it reverts or fixes). */
static int search_mainline(const char *tree, const char *mainline_id, const char *upstream,
			   bool upstream_exists, const char *text, char **output)
{
	char grep[128], exclude[ID_LENGTH + 2];
	char *tail[] = { "log", "--reverse", "--fixed-strings", grep,
			 "--format=%x1e%H%x1f%s%x1f%B", (char *)mainline_id, exclude, "--", NULL };
	int rc;

	snprintf(grep, sizeof(grep), "--grep=%s", text);
	snprintf(exclude, sizeof(exclude), "^%s", upstream);
	if (!upstream_exists) {
		tail[6] = "--";
		tail[7] = NULL;
	}
	rc = git_run(tree, tail, output);
	return rc < 0 ? rc : rc ? -EIO : 0;
}

static int find_revert(const char *tree, const char *mainline_id, const char *upstream,
		       bool upstream_exists, struct mainline_status *status)
{
	char text[64], *output = NULL, *cursor, *record, *fields[3];
	int rc;

	snprintf(text, sizeof(text), "This reverts commit %s", upstream);
	rc = search_mainline(tree, mainline_id, upstream, upstream_exists, text, &output);
	cursor = first_record(output);
	record = rc ? NULL : next_record(&cursor);
	if (record && split_fields(record, fields, 3) == 0 && is_commit_id(fields[0])) {
		copy_id(status->revert, fields[0]);
		snprintf(status->revert_subject, sizeof(status->revert_subject), "%s", fields[1]);
	}
	free(output);
	return rc;
}

/* A line "Fixes: <hex>" whose 12+ hex digits start `upstream`. */
bool stable_names_as_fixed(const char *message, const char *upstream)
{
	const char *line, *next;

	for (line = message; *line; line = next) {
		const char *id = line + 6;
		size_t length = 0;

		next = line + strcspn(line, "\n");
		next += *next == '\n';
		if (strncasecmp(line, "Fixes:", 6) != 0)
			continue;
		while (*id == ' ' || *id == '\t')
			id++;
		while (length < ID_LENGTH && isxdigit((unsigned char)id[length]))
			length++;
		if (length >= FIX_ID_MIN && !isxdigit((unsigned char)id[length]) &&
		    strncasecmp(id, upstream, length) == 0)
			return true;
	}
	return false;
}

static int find_fix(const char *tree, const char *mainline_id, const char *upstream,
		    bool upstream_exists, struct mainline_status *status)
{
	char text[FIX_ID_MIN + 1], *output = NULL, *cursor, *record, *fields[3];
	int rc;

	snprintf(text, sizeof(text), "%.*s", FIX_ID_MIN, upstream);
	rc = search_mainline(tree, mainline_id, upstream, upstream_exists, text, &output);
	cursor = first_record(output);
	while (!rc && (record = next_record(&cursor)) != NULL) {
		if (split_fields(record, fields, 3) != 0 || !is_commit_id(fields[0]) ||
		    !stable_names_as_fixed(fields[2], upstream))
			continue;
		copy_id(status->fix, fields[0]);
		snprintf(status->fix_subject, sizeof(status->fix_subject), "%s", fields[1]);
		break;
	}
	free(output);
	return rc;
}

static const char *trailer_value(const char *line)
{
	static const char *const keys[] = { "Signed-off-by", "Acked-by", "Reviewed-by", "Cc" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t length = strlen(keys[i]);

		if (strncasecmp(line, keys[i], length) == 0 && line[length] == ':')
			return line + length + 1;
	}
	return NULL;
}

/* The author, then the trailers as git reads them (last paragraph, unfolded). */
static int add_commit_people(const char *tree, const char *upstream,
			     struct mainline_status *status)
{
	char *tail[] = { "log", "-1", "--format=%an <%ae>%n%(trailers:only,unfold)",
			 (char *)upstream, "--", NULL };
	char *output = NULL, *save = NULL, *line;
	int rc = git_run(tree, tail, &output);

	if (rc != 0 || !output) {
		free(output);
		return rc < 0 ? rc : -EIO;
	}
	line = strtok_r(output, "\n", &save);
	if (line)
		rc = add_person(status, line);
	while (!rc && (line = strtok_r(NULL, "\n", &save)) != NULL) {
		const char *value = trailer_value(line);

		if (value)
			rc = add_person(status, value);
	}
	free(output);
	return rc;
}

/* Lines of `text`, cut in place; the array is malloc'd (NULL-terminated). */
static char **split_lines(char *text, size_t *count)
{
	char **lines = calloc(count_char(text, '\n') + 2, sizeof(char *));
	char *line = text;

	*count = 0;
	if (!lines)
		return NULL;
	while (*line) {
		char *end = line + strcspn(line, "\n");

		lines[(*count)++] = line;
		if (!*end)
			break;
		*end = '\0';
		line = end + 1;
	}
	return lines;
}

/* A MAINTAINERS F: pattern: "dir/" by prefix, a wildcard as fnmatch, else the file or
 * directory itself. */
static bool pattern_matches(const char *pattern, const char *file)
{
	size_t length = strlen(pattern);

	if (length == 0)
		return false;
	if (strpbrk(pattern, "*?["))
		return fnmatch(pattern, file, FNM_PATHNAME) == 0;
	if (pattern[length - 1] == '/')
		return strncmp(file, pattern, length) == 0;
	return strncmp(file, pattern, length) == 0 && (file[length] == '\0' || file[length] == '/');
}

/* Entries are "X:<tab>value" at the start of a line: the file's preamble
 * describes them indented, and is no section. */
static const char *entry_value(const char *line, char letter)
{
	return line[0] == letter && line[1] == ':' ? line + 2 : NULL;
}

static bool section_matches(char **lines, size_t count, char **files, size_t file_count)
{
	size_t i, f;

	for (i = 0; i < count; i++) {
		const char *value = entry_value(lines[i], 'F');
		char pattern[512];

		if (!value)
			continue;
		snprintf(pattern, sizeof(pattern), "%s", value);
		for (f = 0; f < file_count; f++) {
			if (pattern_matches(trim(pattern), files[f]))
				return true;
		}
	}
	return false;
}

/* M: as written; L: only its address ("(moderated for non-subscribers)" is no one). */
static int add_section_people(char **lines, size_t count, struct mainline_status *status)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < count && !rc; i++) {
		const char *value = entry_value(lines[i], 'M');
		char list[256];

		if (value) {
			rc = add_person(status, value);
		} else if ((value = entry_value(lines[i], 'L')) != NULL) {
			char *address;

			snprintf(list, sizeof(list), "%s", value);
			address = trim(list);
			address[strcspn(address, " \t")] = '\0';
			rc = add_person(status, address);
		}
	}
	return rc;
}

/* Sections are runs of non-blank lines. */
static int add_matching_sections(char **lines, size_t count, char **files, size_t file_count,
				 struct mainline_status *status)
{
	size_t start = 0, end;
	int rc = 0;

	while (start < count && !rc) {
		for (end = start; end < count && *trim(lines[end]) != '\0'; end++)
			;
		if (end > start && section_matches(lines + start, end - start, files, file_count))
			rc = add_section_people(lines + start, end - start, status);
		start = end + 1;
	}
	return rc;
}

static int add_maintainers(const char *tree, const char *mainline_id, const char *upstream,
			   struct mainline_status *status)
{
	char spec[ID_LENGTH + 16];
	char *show[] = { "cat-file", "blob", spec, NULL };
	char *touched[] = { "diff-tree", "--no-commit-id", "--name-only", "-r", "--root",
			    (char *)upstream, NULL };
	char *text = NULL, *names = NULL, **lines = NULL, **files = NULL;
	size_t line_count, file_count;
	int rc;

	snprintf(spec, sizeof(spec), "%s:MAINTAINERS", mainline_id);
	rc = git_run(tree, show, &text);
	if (rc == 0)
		rc = git_run(tree, touched, &names);
	if (rc == 0 && text && names) {
		lines = split_lines(text, &line_count);
		files = split_lines(names, &file_count);
		rc = lines && files ? add_matching_sections(lines, line_count, files, file_count, status)
				    : -ENOMEM;
	}
	free(lines);
	free(files);
	free(text);
	free(names);
	/* no MAINTAINERS in mainline: nobody more to add */
	return rc < 0 ? rc : 0;
}

static bool commit_exists(const char *tree, const char *id)
{
	char spec[ID_LENGTH + 16];
	char *tail[] = { "cat-file", "-e", spec, NULL };

	snprintf(spec, sizeof(spec), "%s^{commit}", id);
	return git_run(tree, tail, NULL) == 0;
}

static int read_mainline_status(const char *tree, const char *mainline_id, const char *upstream,
				struct mainline_status *status)
{
	bool exists = commit_exists(tree, upstream);
	int rc = in_mainline(tree, upstream, mainline_id);

	if (rc < 0)
		return rc;
	status->upstream_in_mainline = rc == 1;
	if ((rc = find_revert(tree, mainline_id, upstream, exists, status)) ||
	    (rc = find_fix(tree, mainline_id, upstream, exists, status)))
		return rc;
	if (!exists)
		return 0;
	if ((rc = add_commit_people(tree, upstream, status)))
		return rc;
	return add_maintainers(tree, mainline_id, upstream, status);
}

int stable_mainline_status(const char *tree, const char *mainline, const char *upstream,
			   struct mainline_status *status, char *error, size_t error_size)
{
	char mainline_id[ID_LENGTH + 1], upstream_id[ID_LENGTH + 1];
	int rc;

	if (!status)
		return -EINVAL;
	memset(status, 0, sizeof(*status));
	if (!tree || !mainline || !upstream)
		return -EINVAL;
	if (!is_commit_id(upstream)) {
		set_error(error, error_size, "'%s' is not a commit id (40 hex digits)", upstream);
		return -EINVAL;
	}
	if ((rc = resolve(tree, mainline, mainline_id, error, error_size)))
		return rc;
	copy_id(upstream_id, upstream);
	rc = read_mainline_status(tree, mainline_id, upstream_id, status);
	if (rc) {
		set_error(error, error_size, "reading %.12s in %s of %s failed: %s", upstream_id,
			  mainline, tree, strerror(-rc));
		stable_mainline_status_free(status);
	}
	return rc;
}

void stable_mainline_status_free(struct mainline_status *status)
{
	size_t i;

	if (!status)
		return;
	for (i = 0; i < status->people_count; i++)
		free(status->people[i]);
	free(status->people);
	status->people = NULL;
	status->people_count = 0;
}

/* ---- advice ------------------------------------------------------------------ */

struct text {
	char *out;
	size_t size, length;
	bool truncated;
};

__attribute__((format(printf, 2, 3)))
static void append(struct text *text, const char *format, ...)
{
	size_t room = text->size - text->length;
	va_list args;
	int n;

	va_start(args, format);
	n = vsnprintf(text->out + text->length, room, format, args);
	va_end(args);
	if (n < 0 || (size_t)n >= room) {
		text->truncated = true;
		text->length = text->size - 1;
		return;
	}
	text->length += (size_t)n;
}

static void append_report(struct text *text, const struct mainline_status *status)
{
	size_t i;

	append(text, "mainline has no fix yet: report to ");
	if (status->people_count == 0)
		append(text, "the upstream commit's author and maintainers (none found in the tree)");
	for (i = 0; i < status->people_count; i++)
		append(text, "%s%s", i ? ", " : "", status->people[i]);
}

static void advise_queued(struct text *text, const struct stable_patch *patch,
			  const struct mainline_status *status, const char *mainline)
{
	append(text, "drop it from the queue before release: %.12s (\"%s\"); ", patch->commit,
	       patch->subject);
	if (!patch->upstream[0])
		append(text, "the patch names no upstream commit: stable takes mainline commits only");
	else if (!status)
		append(text, "mainline not checked (no --mainline)");
	else if (!status->upstream_in_mainline)
		append(text, "upstream commit %.12s is not in %s: the patch broke the mainline-first rule",
		       patch->upstream, mainline);
	else if (status->revert[0])
		append(text, "mainline reverted it: %.12s (\"%s\")", status->revert,
		       status->revert_subject);
	else if (status->fix[0])
		append(text, "mainline's fix %.12s (\"%s\") can be queued instead", status->fix,
		       status->fix_subject);
	else
		append_report(text, status);
	append(text, ".");
}

/* Released: stable may only follow what mainline did. */
static void advise_released(struct text *text, const struct stable_patch *patch,
			    const struct mainline_status *status, const char *mainline)
{
	const char *id = patch->commit, *subject = patch->subject;

	if (!patch->upstream[0]) {
		append(text, "revert it in the next stable release: %.12s (\"%s\"); the patch names no "
		       "upstream commit: stable takes mainline commits only", id, subject);
	} else if (!status) {
		append(text, "revert it in the next stable release once mainline has reverted or fixed "
		       "it: %.12s (\"%s\"); mainline not checked (no --mainline)", id, subject);
	} else if (!status->upstream_in_mainline) {
		append(text, "upstream commit %.12s is not in %s: the patch broke the mainline-first "
		       "rule; revert it in the next stable release: %.12s (\"%s\")", patch->upstream,
		       mainline, id, subject);
	} else if (status->revert[0]) {
		append(text, "revert it in the next stable release: %.12s (\"%s\"); mainline's revert "
		       "%.12s (\"%s\") is in %s", id, subject, status->revert, status->revert_subject,
		       mainline);
	} else if (status->fix[0]) {
		append(text, "backport mainline's fix %.12s (\"%s\") to the next stable release: it "
		       "fixes %.12s (\"%s\")", status->fix, status->fix_subject, id, subject);
	} else {
		append(text, "%.12s (\"%s\") is released and ", id, subject);
		append_report(text, status);
		append(text, "; revert it in stable once mainline reverts or fixes it");
	}
	append(text, ".");
}

int stable_advice(const struct stable_patch *patch, const struct mainline_status *status,
		  const char *mainline_name, bool released, char *out, size_t out_size)
{
	struct text text = { out, out_size, 0, false };

	if (!patch || !out || out_size == 0)
		return -EINVAL;
	out[0] = '\0';
	if (!mainline_name)
		mainline_name = "mainline";
	if (patch->release_commit || patch->merge)
		append(&text, "%.12s (\"%s\") is a %s, not a patch: nothing to drop or revert.",
		       patch->commit, patch->subject, patch->merge ? "merge" : "release commit");
	else if (released)
		advise_released(&text, patch, status, mainline_name);
	else
		advise_queued(&text, patch, status, mainline_name);
	return text.truncated ? -ENOSPC : 0;
}
