/*
 * ktap.c - the KTAP parser of ktap.h.
 *
 * The parser keeps a stack of levels: levels[0] is the top-level test list,
 * each deeper one the subtests of a result line still to come one level up.
 * A level collects the diagnostics and metrics printed since its last result
 * line (its pending block); a result line takes them, and the subtests of the
 * level it closes. Everything the report will hold is allocated once, when it
 * is read, and moved (never copied) into place.
 */
#include "ktap.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_LINE_BYTES    65536
#define DEFAULT_TESTS         10000
#define DEFAULT_DIAGNOSTICS   1000
#define DEFAULT_METRICS       1000
#define DEFAULT_UNKNOWN_LINES 1000
#define DEFAULT_DEPTH         16
#define DEFAULT_MEMORY        (32u << 20)
/* Freeing a report recurses once per level: keep that shallow whatever the caller asks. */
#define MAX_DEPTH 256
/* What one kept item costs beyond its text: its array slot and malloc's bookkeeping, roughly. */
#define ITEM_OVERHEAD 64
/* Longer metric values are not numbers a workload prints. */
#define METRIC_VALUE_MAX 64

/* Diagnostics and metrics since a level's last result line. */
struct block {
	struct ktap_line *diagnostics;
	size_t diagnostic_count;
	struct ktap_metric *metrics;
	size_t metric_count;
};

struct level {
	size_t indent;
	bool has_plan;
	unsigned plan;
	unsigned results;
	struct ktap_test *tests;
	size_t test_count;
	struct block pending;
};

struct ktap_parser {
	struct ktap_limits limits;
	struct ktap_report *report; /* NULL once finish handed it over */
	int error;                  /* sticky: after -ENOMEM nothing is consistent enough to go on */
	bool finished;
	bool started;               /* a version, plan or result line began the top level */
	unsigned long line_count;
	char *line;                 /* the line being read, up to limits.line_bytes */
	size_t line_length;
	size_t line_capacity;
	bool line_overlong;
	struct level *levels;       /* levels[0..depth] are open */
	size_t depth;
	size_t tests_kept;
	size_t memory_used;
	locale_t c_locale;          /* metric values are C numbers whatever the process's locale */
};

/* A line being handled: the text with trailing white space removed. */
struct input_line {
	unsigned long number;
	char *text;
	char *content; /* after the indentation */
	size_t indent;
};

struct parsed_result {
	enum ktap_result result;
	unsigned number;
	char *name;
	enum ktap_directive directive;
	char *reason;
};

struct parsed_metric {
	const char *name;
	size_t name_length;
	double value;
	const char *unit;
	size_t unit_length;
};

/* ---- small helpers ------------------------------------------------------ */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *skip_blanks(char *text)
{
	while (is_blank(*text))
		text++;
	return text;
}

static void trim_end(char *text)
{
	size_t length = strlen(text);

	while (length > 0 && (is_blank(text[length - 1]) || text[length - 1] == '\r'))
		text[--length] = '\0';
}

static bool starts_with(const char *text, const char *prefix)
{
	return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* Digits to an unsigned, refusing none and overflow; advances *cursor. */
static bool parse_number(char **cursor, unsigned *value)
{
	unsigned long long number = 0;
	char *digit = *cursor;

	if (*digit < '0' || *digit > '9')
		return false;
	for (; *digit >= '0' && *digit <= '9'; digit++) {
		number = number * 10 + (unsigned)(*digit - '0');
		if (number > UINT_MAX)
			return false;
	}
	*value = (unsigned)number;
	*cursor = digit;
	return true;
}

/*
 * Arrays grow by doubling, their capacity following from their count (4, 8,
 * 16, ...), so no capacity field is needed. Returns the array with room for
 * one more item, or NULL when out of memory.
 */
static void *room_for_one(void *array, size_t count, size_t item_size)
{
	size_t capacity;
	void *bigger;

	if (count == 0)
		capacity = 4;
	else if (count >= 4 && (count & (count - 1)) == 0)
		capacity = count * 2;
	else
		return array;
	bigger = realloc(array, capacity * item_size);
	return bigger;
}

static char *copy_text(const char *text, size_t length)
{
	char *copy = malloc(length + 1);

	if (copy) {
		memcpy(copy, text, length);
		copy[length] = '\0';
	}
	return copy;
}

/* ---- freeing ------------------------------------------------------------ */

static void free_lines(struct ktap_line *lines, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(lines[i].text);
	free(lines);
}

static void free_metrics(struct ktap_metric *metrics, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(metrics[i].name);
		free(metrics[i].unit);
	}
	free(metrics);
}

static void free_tests(struct ktap_test *tests, size_t count);

static void free_test_contents(struct ktap_test *test)
{
	free(test->name);
	free(test->reason);
	free_lines(test->diagnostics, test->diagnostic_count);
	free_metrics(test->metrics, test->metric_count);
	free_tests(test->subtests, test->subtest_count);
}

static void free_tests(struct ktap_test *tests, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free_test_contents(&tests[i]);
	free(tests);
}

static void free_block(struct block *block)
{
	free_lines(block->diagnostics, block->diagnostic_count);
	free_metrics(block->metrics, block->metric_count);
	memset(block, 0, sizeof(*block));
}

static void free_level(struct level *level)
{
	free_tests(level->tests, level->test_count);
	free_block(&level->pending);
	memset(level, 0, sizeof(*level));
}

void ktap_report_free(struct ktap_report *report)
{
	if (!report)
		return;
	free(report->bail_out_reason);
	free_tests(report->tests, report->test_count);
	free_lines(report->diagnostics, report->diagnostic_count);
	free_metrics(report->metrics, report->metric_count);
	free_lines(report->unknown_lines, report->unknown_line_count);
	free(report);
}

/* ---- the memory budget -------------------------------------------------- */

static size_t text_cost(const char *text)
{
	return strlen(text) + 1 + ITEM_OVERHEAD;
}

static size_t metric_cost(const struct ktap_metric *metric)
{
	return text_cost(metric->name) + text_cost(metric->unit);
}

static size_t test_cost(const struct ktap_test *test)
{
	return sizeof(*test) + text_cost(test->name) + text_cost(test->reason);
}

static bool charge_up_to(struct ktap_parser *parser, size_t bytes, size_t budget)
{
	if (parser->memory_used > budget || bytes > budget - parser->memory_used) {
		parser->report->dropped.memory_limit_hit = true;
		return false;
	}
	parser->memory_used += bytes;
	return true;
}

/* Tests may use the whole budget. */
static bool charge(struct ktap_parser *parser, size_t bytes)
{
	return charge_up_to(parser, bytes, parser->limits.memory);
}

/* Lines and metrics only three quarters of it: a flood of them cannot crowd out the results. */
static bool charge_line(struct ktap_parser *parser, size_t bytes)
{
	return charge_up_to(parser, bytes, parser->limits.memory - parser->limits.memory / 4);
}

static void refund(struct ktap_parser *parser, size_t bytes)
{
	parser->memory_used -= bytes < parser->memory_used ? bytes : parser->memory_used;
}

/* Gives back what a test about to be dropped held: memory and its place among the kept tests. */
static void refund_test_contents(struct ktap_parser *parser, const struct ktap_test *test)
{
	for (size_t i = 0; i < test->diagnostic_count; i++)
		refund(parser, text_cost(test->diagnostics[i].text));
	for (size_t i = 0; i < test->metric_count; i++)
		refund(parser, metric_cost(&test->metrics[i]));
	for (size_t i = 0; i < test->subtest_count; i++) {
		refund(parser, test_cost(&test->subtests[i]));
		refund_test_contents(parser, &test->subtests[i]);
		parser->tests_kept--;
		parser->report->dropped.tests++;
	}
}

/* ---- storing lines and metrics ----------------------------------------- */

/* Appends an already allocated and charged line; frees it when out of memory. */
static int append_line(struct ktap_line **lines, size_t *count, unsigned long number, char *text)
{
	struct ktap_line *room = room_for_one(*lines, *count, sizeof(**lines));

	if (!room) {
		free(text);
		return -ENOMEM;
	}
	*lines = room;
	room[*count].number = number;
	room[*count].text = text;
	(*count)++;
	return 0;
}

static int append_metric(struct ktap_metric **metrics, size_t *count, struct ktap_metric *metric)
{
	struct ktap_metric *room = room_for_one(*metrics, *count, sizeof(**metrics));

	if (!room) {
		free(metric->name);
		free(metric->unit);
		return -ENOMEM;
	}
	*metrics = room;
	room[(*count)++] = *metric;
	return 0;
}

/* Keeps a copy of text in lines unless a limit says no (then counts it in *dropped). */
static int keep_line(struct ktap_parser *parser, struct ktap_line **lines, size_t *count,
		     size_t cap, size_t *dropped, unsigned long number, const char *text)
{
	char *copy;

	if (*count >= cap || !charge_line(parser, text_cost(text))) {
		(*dropped)++;
		return 0;
	}
	copy = copy_text(text, strlen(text));
	if (!copy)
		return -ENOMEM;
	return append_line(lines, count, number, copy);
}

static int keep_diagnostic(struct ktap_parser *parser, struct ktap_line **lines, size_t *count,
			   unsigned long number, const char *text)
{
	return keep_line(parser, lines, count, parser->limits.diagnostics,
			 &parser->report->dropped.diagnostics, number, text);
}

static int keep_unknown(struct ktap_parser *parser, const struct input_line *line)
{
	struct ktap_report *report = parser->report;

	return keep_line(parser, &report->unknown_lines, &report->unknown_line_count,
			 parser->limits.unknown_lines, &report->dropped.unknown_lines,
			 line->number, line->text);
}

static int keep_metric(struct ktap_parser *parser, struct ktap_metric **metrics, size_t *count,
		       const struct parsed_metric *parsed, unsigned long number)
{
	struct ktap_metric metric = { .value = parsed->value, .line = number };

	if (*count >= parser->limits.metrics ||
	    !charge_line(parser, parsed->name_length + parsed->unit_length + 2 + 2 * ITEM_OVERHEAD)) {
		parser->report->dropped.metrics++;
		return 0;
	}
	metric.name = copy_text(parsed->name, parsed->name_length);
	metric.unit = copy_text(parsed->unit, parsed->unit_length);
	if (!metric.name || !metric.unit) {
		free(metric.name);
		free(metric.unit);
		return -ENOMEM;
	}
	return append_metric(metrics, count, &metric);
}

/*
 * Moves lines to the end of another list, the destination allowing cap
 * items (the rest are dropped and refunded).
 */
static int move_lines(struct ktap_parser *parser, struct ktap_line **to, size_t *to_count,
		      struct ktap_line **from, size_t *from_count, size_t cap)
{
	int rc = 0;
	size_t i;

	if (*to_count == 0 && *from_count <= cap) {
		free(*to);
		*to = *from;
		*to_count = *from_count;
		*from = NULL;
		*from_count = 0;
		return 0;
	}
	for (i = 0; i < *from_count && rc == 0; i++) {
		struct ktap_line *line = &(*from)[i];

		if (*to_count >= cap) {
			refund(parser, text_cost(line->text));
			parser->report->dropped.diagnostics++;
			free(line->text);
		} else {
			rc = append_line(to, to_count, line->number, line->text);
		}
	}
	/* after a failure, what was not moved yet is still ours to free */
	for (; i < *from_count; i++)
		free((*from)[i].text);
	free(*from);
	*from = NULL;
	*from_count = 0;
	return rc;
}

static int move_metrics(struct ktap_parser *parser, struct ktap_metric **to, size_t *to_count,
			struct ktap_metric **from, size_t *from_count, size_t cap)
{
	int rc = 0;
	size_t i;

	if (*to_count == 0 && *from_count <= cap) {
		free(*to);
		*to = *from;
		*to_count = *from_count;
		*from = NULL;
		*from_count = 0;
		return 0;
	}
	for (i = 0; i < *from_count && rc == 0; i++) {
		struct ktap_metric *metric = &(*from)[i];

		if (*to_count >= cap) {
			refund(parser, metric_cost(metric));
			parser->report->dropped.metrics++;
			free(metric->name);
			free(metric->unit);
		} else {
			rc = append_metric(to, to_count, metric);
		}
	}
	for (; i < *from_count; i++) {
		free((*from)[i].name);
		free((*from)[i].unit);
	}
	free(*from);
	*from = NULL;
	*from_count = 0;
	return rc;
}

/* The top level's pending block belongs to the run: before its plan, or after its last result. */
static int pending_to_run(struct ktap_parser *parser)
{
	struct ktap_report *report = parser->report;
	struct block *pending = &parser->levels[0].pending;
	int rc;

	rc = move_lines(parser, &report->diagnostics, &report->diagnostic_count,
			&pending->diagnostics, &pending->diagnostic_count, parser->limits.diagnostics);
	if (rc == 0)
		rc = move_metrics(parser, &report->metrics, &report->metric_count,
				  &pending->metrics, &pending->metric_count, parser->limits.metrics);
	return rc;
}

/* Appends block `from` to block `to`, both kept whole: they belong to one test. */
static int merge_block(struct ktap_parser *parser, struct block *to, struct block *from)
{
	int rc;

	rc = move_lines(parser, &to->diagnostics, &to->diagnostic_count,
			&from->diagnostics, &from->diagnostic_count, SIZE_MAX);
	if (rc == 0)
		rc = move_metrics(parser, &to->metrics, &to->metric_count,
				  &from->metrics, &from->metric_count, SIZE_MAX);
	return rc;
}

/* ---- building tests ----------------------------------------------------- */

static struct level *top_level(struct ktap_parser *parser)
{
	return &parser->levels[parser->depth];
}

static void open_level(struct ktap_parser *parser, size_t indent)
{
	struct level *level = &parser->levels[++parser->depth];

	memset(level, 0, sizeof(*level));
	level->indent = indent;
}

/* Gives a test the subtests a closed level collected and the lines it had left. */
static int attach_subtests(struct ktap_parser *parser, struct ktap_test *test, struct block *block,
			   struct level *closed)
{
	test->subtests = closed->tests;
	test->subtest_count = closed->test_count;
	test->has_subtest_plan = closed->has_plan;
	test->subtest_plan = closed->plan;
	test->subtest_results = closed->results;
	test->subtest_plan_matched = closed->has_plan && closed->results == closed->plan;
	if (closed->has_plan && !test->subtest_plan_matched)
		parser->report->subtest_plan_mismatches++;
	closed->tests = NULL;
	closed->test_count = 0;
	return merge_block(parser, block, &closed->pending);
}

/* Keeps the test in the level's list, or drops it when a limit says so. */
static int store_test(struct ktap_parser *parser, struct level *level, struct ktap_test *test)
{
	struct ktap_test *room;

	if (parser->tests_kept >= parser->limits.tests || !charge(parser, test_cost(test))) {
		refund_test_contents(parser, test);
		free_test_contents(test);
		parser->report->dropped.tests++;
		return 0;
	}
	room = room_for_one(level->tests, level->test_count, sizeof(*room));
	if (!room) {
		free_test_contents(test);
		return -ENOMEM;
	}
	level->tests = room;
	room[level->test_count++] = *test;
	parser->tests_kept++;
	return 0;
}

/*
 * Makes the test a level's next result stands for: its block is the level's
 * pending lines, then what `closed` (its subtest level, if any) had left after
 * its last result. result is NULL for a test whose result line is missing.
 */
static int add_test(struct ktap_parser *parser, struct level *level, struct level *closed,
		    const struct parsed_result *result, unsigned long line_number)
{
	struct ktap_test test = { 0 };
	struct block block = level->pending;
	int rc = 0;

	memset(&level->pending, 0, sizeof(level->pending));
	if (result) {
		test.number = result->number;
		test.result = result->result;
		test.directive = result->directive;
		test.line = line_number;
		test.name = strdup(result->name);
		test.reason = strdup(result->reason);
		if (result->number != level->results + 1)
			parser->report->misnumbered_results++;
		if (level->results < UINT_MAX)
			level->results++;
	} else {
		test.number = level->results + 1;
		test.result = KTAP_RESULT_MISSING;
		test.name = strdup("");
		test.reason = strdup("");
	}
	if (closed)
		rc = attach_subtests(parser, &test, &block, closed);
	test.diagnostics = block.diagnostics;
	test.diagnostic_count = block.diagnostic_count;
	test.metrics = block.metrics;
	test.metric_count = block.metric_count;
	if (rc == 0 && (!test.name || !test.reason))
		rc = -ENOMEM;
	if (rc != 0) {
		free_test_contents(&test);
		return rc;
	}
	return store_test(parser, level, &test);
}

/* Closes the top level whose parent test never printed its result line. */
static int close_level_without_result(struct ktap_parser *parser)
{
	struct level *closed = top_level(parser);

	parser->depth--;
	return add_test(parser, top_level(parser), closed, NULL, 0);
}

/* ---- line kinds ---------------------------------------------------------- */

static bool parse_version(char *content, enum ktap_version_kind *kind, unsigned *version)
{
	char *cursor = content;

	if (starts_with(cursor, "KTAP version")) {
		*kind = KTAP_VERSION_KTAP;
		cursor += strlen("KTAP version");
	} else if (starts_with(cursor, "TAP version")) {
		*kind = KTAP_VERSION_TAP;
		cursor += strlen("TAP version");
	} else {
		return false;
	}
	if (!is_blank(*cursor))
		return false;
	cursor = skip_blanks(cursor);
	return parse_number(&cursor, version) && *cursor == '\0';
}

/* "1..N", maybe followed by a TAP comment ("1..0 # SKIP why"), which is ignored. */
static bool parse_plan(char *content, unsigned *plan)
{
	char *cursor = content;

	if (!starts_with(cursor, "1.."))
		return false;
	cursor += 3;
	return parse_number(&cursor, plan) && (*cursor == '\0' || is_blank(*cursor) || *cursor == '#');
}

/* The first '#' not written "\#". */
static char *find_directive_hash(char *text)
{
	for (char *c = text; *c; c++) {
		if (*c == '\\' && c[1] == '#')
			c++;
		else if (*c == '#')
			return c;
	}
	return NULL;
}

static void unescape_hashes(char *text)
{
	char *to = text;

	for (char *from = text; *from; from++) {
		if (from[0] == '\\' && from[1] == '#')
			from++;
		*to++ = *from;
	}
	*to = '\0';
}

static enum ktap_directive directive_of_word(const char *word, size_t length)
{
	/* TAP takes SKIP and TODO in any case, and "skipped" for SKIP */
	if (length >= 4 && strncasecmp(word, "skip", 4) == 0)
		return KTAP_DIRECTIVE_SKIP;
	if (length == 4 && strncasecmp(word, "todo", 4) == 0)
		return KTAP_DIRECTIVE_TODO;
	if (length == 5 && strncmp(word, "XFAIL", 5) == 0)
		return KTAP_DIRECTIVE_XFAIL;
	if (length == 7 && strncmp(word, "TIMEOUT", 7) == 0)
		return KTAP_DIRECTIVE_TIMEOUT;
	if (length == 5 && strncmp(word, "ERROR", 5) == 0)
		return KTAP_DIRECTIVE_ERROR;
	return KTAP_DIRECTIVE_NONE;
}

/* What follows the '#' of a result line: a directive keyword and its text, or just text. */
static void parse_directive(char *text, struct parsed_result *result)
{
	char *word = skip_blanks(text);
	size_t length = 0;

	while (word[length] && !is_blank(word[length]))
		length++;
	result->directive = directive_of_word(word, length);
	result->reason = result->directive == KTAP_DIRECTIVE_NONE ? word : skip_blanks(word + length);
	trim_end(result->reason);
}

/*
 * "ok|not ok NUMBER [- ][DESCRIPTION][ # [DIRECTIVE] [TEXT]]". Cuts the line
 * into its parts in place, once it is sure the line is a result line.
 */
static bool parse_result(char *content, struct parsed_result *result)
{
	char *cursor = content;
	char *hash;

	if (starts_with(cursor, "ok")) {
		result->result = KTAP_RESULT_OK;
		cursor += 2;
	} else if (starts_with(cursor, "not ok")) {
		result->result = KTAP_RESULT_NOT_OK;
		cursor += 6;
	} else {
		return false;
	}
	if (!is_blank(*cursor))
		return false;
	cursor = skip_blanks(cursor);
	if (!parse_number(&cursor, &result->number))
		return false;
	if (*cursor != '\0' && !is_blank(*cursor) && *cursor != '#')
		return false;
	cursor = skip_blanks(cursor);
	if (cursor[0] == '-' && (cursor[1] == '\0' || is_blank(cursor[1])))
		cursor = skip_blanks(cursor + 1); /* TAP's "ok 1 - name" */
	hash = find_directive_hash(cursor);
	if (hash) {
		*hash = '\0';
		parse_directive(hash + 1, result);
	} else {
		result->directive = KTAP_DIRECTIVE_NONE;
		result->reason = cursor + strlen(cursor);
	}
	result->name = cursor;
	trim_end(result->name);
	unescape_hashes(result->name);
	return true;
}

static bool parse_bail_out(char *content, char **reason)
{
	if (!starts_with(content, "Bail out!"))
		return false;
	*reason = skip_blanks(content + strlen("Bail out!"));
	return true;
}

/* [+-]digits[.digits][e[+-]digits] (or .digits): no "nan", "inf", hex or locale commas. */
static bool is_decimal(const char *text)
{
	const char *c = text;
	size_t digits = 0;

	if (*c == '+' || *c == '-')
		c++;
	for (; *c >= '0' && *c <= '9'; c++)
		digits++;
	if (*c == '.')
		for (c++; *c >= '0' && *c <= '9'; c++)
			digits++;
	if (digits == 0)
		return false;
	if (*c == 'e' || *c == 'E') {
		c++;
		if (*c == '+' || *c == '-')
			c++;
		if (*c < '0' || *c > '9')
			return false;
		while (*c >= '0' && *c <= '9')
			c++;
	}
	return *c == '\0';
}

/* "NAME=VALUE[ UNIT]" after "metric ": a finite decimal value, a name without blanks. */
static bool parse_metric(const char *text, locale_t c_locale, struct parsed_metric *metric)
{
	char value[METRIC_VALUE_MAX];
	const char *equals;
	const char *value_end;
	size_t value_length;

	while (is_blank(*text))
		text++;
	metric->name = text;
	equals = text + strcspn(text, "= \t");
	if (*equals != '=' || equals == text)
		return false;
	metric->name_length = (size_t)(equals - text);
	value_end = equals + 1 + strcspn(equals + 1, " \t");
	value_length = (size_t)(value_end - (equals + 1));
	if (value_length == 0 || value_length >= sizeof(value))
		return false;
	memcpy(value, equals + 1, value_length);
	value[value_length] = '\0';
	if (!is_decimal(value))
		return false;
	metric->value = strtod_l(value, NULL, c_locale);
	if (!isfinite(metric->value))
		return false;
	while (is_blank(*value_end))
		value_end++;
	metric->unit = value_end;
	metric->unit_length = strlen(value_end); /* the line's trailing blanks are gone */
	return true;
}

/* ---- what each kind of line does ----------------------------------------- */

/* A diagnostic or metric goes to the block collecting for the next result at the current level. */
static int on_diagnostic(struct ktap_parser *parser, const struct input_line *line,
			 struct ktap_line **lines, size_t *line_count,
			 struct ktap_metric **metrics, size_t *metric_count)
{
	const char *text = line->content + 1;
	struct parsed_metric metric;

	if (*text == ' ')
		text++;
	if (starts_with(text, "metric ") &&
	    parse_metric(text + strlen("metric "), parser->c_locale, &metric))
		return keep_metric(parser, metrics, metric_count, &metric, line->number);
	return keep_diagnostic(parser, lines, line_count, line->number, text);
}

static int on_pending_diagnostic(struct ktap_parser *parser, const struct input_line *line)
{
	struct block *pending = &top_level(parser)->pending;

	return on_diagnostic(parser, line, &pending->diagnostics, &pending->diagnostic_count,
			     &pending->metrics, &pending->metric_count);
}

static void start_top_level(struct ktap_parser *parser, size_t indent)
{
	if (!parser->started) {
		parser->started = true;
		parser->levels[0].indent = indent;
	}
}

static bool level_complete(const struct level *level)
{
	return level->has_plan && level->results >= level->plan;
}

static bool level_established(const struct level *level)
{
	return level->has_plan || level->results > 0;
}

static int on_version(struct ktap_parser *parser, const struct input_line *line,
		      enum ktap_version_kind kind, unsigned version)
{
	struct level *top;
	int rc;

	if (!parser->started) {
		start_top_level(parser, line->indent);
		parser->report->version_kind = kind;
		parser->report->version = version;
		return pending_to_run(parser); /* whatever came before the output began */
	}
	top = top_level(parser);
	/* a second output after a finished one is not its subtest */
	if (parser->depth == 0 && line->indent <= top->indent && level_complete(top))
		return keep_unknown(parser, line);
	/* a version line less indented than the open subtests: their parent's result never came */
	while (parser->depth > 0 && line->indent < top_level(parser)->indent) {
		rc = close_level_without_result(parser);
		if (rc)
			return rc;
	}
	if (parser->depth >= parser->limits.depth) {
		parser->report->dropped.nesting++;
		return keep_unknown(parser, line);
	}
	open_level(parser, line->indent);
	return 0;
}

/* The lines between a version line and its plan describe the parent test (or the run). */
static int pending_to_parent(struct ktap_parser *parser)
{
	if (parser->depth == 0)
		return pending_to_run(parser);
	return merge_block(parser, &parser->levels[parser->depth - 1].pending, &top_level(parser)->pending);
}

static int on_plan(struct ktap_parser *parser, const struct input_line *line, unsigned plan)
{
	struct level *top;

	start_top_level(parser, line->indent);
	top = top_level(parser);
	if (!top->has_plan && (top->results == 0 || line->indent <= top->indent)) {
		top->has_plan = true;
		top->plan = plan;
		return top->results == 0 ? pending_to_parent(parser) : 0;
	}
	if (line->indent > top->indent && level_established(top)) {
		/* kunit's TAP 14 subtests: an indented plan without a version line */
		if (parser->depth >= parser->limits.depth) {
			parser->report->dropped.nesting++;
			return keep_unknown(parser, line);
		}
		open_level(parser, line->indent);
		top_level(parser)->has_plan = true;
		top_level(parser)->plan = plan;
		return 0;
	}
	return keep_unknown(parser, line); /* a second plan */
}

/* A result line less indented than a level, or at its indentation once its plan is done, is not its. */
static bool level_ends_before(const struct level *level, size_t indent)
{
	return indent < level->indent || (indent == level->indent && level_complete(level));
}

static int on_result(struct ktap_parser *parser, const struct input_line *line,
		     const struct parsed_result *result)
{
	struct level *closed = NULL;
	struct level *level;
	int rc;

	start_top_level(parser, line->indent);
	while (parser->depth > 0 && level_ends_before(top_level(parser), line->indent)) {
		struct level *ending = top_level(parser);

		parser->depth--;
		/* a level closing above one already closed: its own result never came */
		if (closed) {
			rc = add_test(parser, ending, closed, NULL, 0);
			if (rc)
				return rc;
		}
		closed = ending;
	}
	level = top_level(parser);
	if (!closed && line->indent > level->indent && level_established(level)) {
		if (parser->depth < parser->limits.depth) {
			open_level(parser, line->indent);
			level = top_level(parser);
		} else {
			parser->report->dropped.nesting++;
		}
	}
	return add_test(parser, level, closed, result, line->number);
}

static int on_bail_out(struct ktap_parser *parser, const char *reason)
{
	struct ktap_report *report = parser->report;
	int rc;

	report->bailed_out = true;
	report->bail_out_reason = strdup(charge_line(parser, text_cost(reason)) ? reason : "");
	if (!report->bail_out_reason)
		return -ENOMEM;
	while (parser->depth > 0) {
		rc = close_level_without_result(parser);
		if (rc)
			return rc;
	}
	return pending_to_run(parser);
}

/* After a Bail out! the structure is over: diagnostics and metrics are the run's. */
static int on_line_after_bail_out(struct ktap_parser *parser, const struct input_line *line)
{
	struct ktap_report *report = parser->report;

	if (line->content[0] == '#')
		return on_diagnostic(parser, line, &report->diagnostics, &report->diagnostic_count,
				     &report->metrics, &report->metric_count);
	return keep_unknown(parser, line);
}

static int handle_line(struct ktap_parser *parser, struct input_line *line)
{
	enum ktap_version_kind kind;
	struct parsed_result result;
	unsigned number;
	char *reason;

	line->content = skip_blanks(line->text);
	line->indent = (size_t)(line->content - line->text);
	if (line->content[0] == '\0')
		return 0;
	if (parser->report->bailed_out)
		return on_line_after_bail_out(parser, line);
	if (parse_version(line->content, &kind, &number))
		return on_version(parser, line, kind, number);
	if (parse_plan(line->content, &number))
		return on_plan(parser, line, number);
	if (parse_bail_out(line->content, &reason))
		return on_bail_out(parser, reason);
	if (line->content[0] == '#')
		return on_pending_diagnostic(parser, line);
	/* last: it cuts the line up */
	if (parse_result(line->content, &result))
		return on_result(parser, line, &result);
	return keep_unknown(parser, line);
}

/* ---- reading bytes into lines ------------------------------------------- */

static int line_append(struct ktap_parser *parser, const char *bytes, size_t length)
{
	size_t room = parser->limits.line_bytes - parser->line_length;
	size_t kept = length < room ? length : room;

	if (kept < length) {
		parser->line_overlong = true;
		parser->report->dropped.line_bytes += length - kept;
	}
	if (kept == 0)
		return 0;
	if (parser->line_length + kept + 1 > parser->line_capacity) {
		size_t capacity = parser->line_capacity ? parser->line_capacity : 256;
		char *bigger;

		while (capacity < parser->line_length + kept + 1)
			capacity *= 2;
		if (capacity > parser->limits.line_bytes + 1)
			capacity = parser->limits.line_bytes + 1;
		bigger = realloc(parser->line, capacity);
		if (!bigger)
			return -ENOMEM;
		parser->line = bigger;
		parser->line_capacity = capacity;
	}
	memcpy(parser->line + parser->line_length, bytes, kept);
	parser->line_length += kept;
	return 0;
}

static int line_end(struct ktap_parser *parser)
{
	struct input_line line = { .number = ++parser->line_count };
	char empty[1] = "";

	if (parser->line_overlong)
		parser->report->dropped.overlong_lines++;
	if (parser->line) {
		/* lines are C strings from here on */
		for (size_t i = 0; i < parser->line_length; i++)
			if (parser->line[i] == '\0')
				parser->line[i] = '?';
		parser->line[parser->line_length] = '\0';
		line.text = parser->line;
	} else {
		line.text = empty;
	}
	trim_end(line.text);
	parser->line_length = 0;
	parser->line_overlong = false;
	return handle_line(parser, &line);
}

/* ---- the interface ------------------------------------------------------- */

static size_t or_default(size_t value, size_t fallback)
{
	return value ? value : fallback;
}

static void set_limits(struct ktap_limits *limits, const struct ktap_limits *asked)
{
	struct ktap_limits none = { 0 };

	if (!asked)
		asked = &none;
	limits->line_bytes = or_default(asked->line_bytes, DEFAULT_LINE_BYTES);
	limits->tests = or_default(asked->tests, DEFAULT_TESTS);
	limits->diagnostics = or_default(asked->diagnostics, DEFAULT_DIAGNOSTICS);
	limits->metrics = or_default(asked->metrics, DEFAULT_METRICS);
	limits->unknown_lines = or_default(asked->unknown_lines, DEFAULT_UNKNOWN_LINES);
	limits->depth = or_default(asked->depth, DEFAULT_DEPTH);
	if (limits->depth > MAX_DEPTH)
		limits->depth = MAX_DEPTH;
	limits->memory = or_default(asked->memory, DEFAULT_MEMORY);
	/* the line buffer needs its terminator */
	if (limits->line_bytes > SIZE_MAX / 2)
		limits->line_bytes = SIZE_MAX / 2;
}

int ktap_parser_new(struct ktap_parser **parser_out, const struct ktap_limits *limits)
{
	struct ktap_parser *parser;

	if (!parser_out)
		return -EINVAL;
	*parser_out = NULL;
	parser = calloc(1, sizeof(*parser));
	if (!parser)
		return -ENOMEM;
	set_limits(&parser->limits, limits);
	parser->report = calloc(1, sizeof(*parser->report));
	parser->levels = calloc(parser->limits.depth + 1, sizeof(*parser->levels));
	parser->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!parser->report || !parser->levels || !parser->c_locale) {
		ktap_parser_free(parser);
		return -ENOMEM;
	}
	*parser_out = parser;
	return 0;
}

static int fail(struct ktap_parser *parser, int rc)
{
	parser->error = rc;
	return rc;
}

int ktap_parser_feed(struct ktap_parser *parser, const void *data, size_t len)
{
	const char *bytes = data;
	int rc;

	if (!parser || (!data && len > 0))
		return -EINVAL;
	if (parser->error)
		return parser->error;
	if (parser->finished)
		return -EINVAL;
	while (len > 0) {
		const char *newline = memchr(bytes, '\n', len);
		size_t length = newline ? (size_t)(newline - bytes) : len;

		rc = line_append(parser, bytes, length);
		if (rc == 0 && newline)
			rc = line_end(parser);
		if (rc)
			return fail(parser, rc);
		if (!newline)
			break;
		bytes += length + 1;
		len -= length + 1;
	}
	return 0;
}

/*
 * Closes what the output left open. Without a Bail out!, a level short of its
 * plan was inside its next test: that test is missing, with the lines it
 * printed; a level left open is the subtest list of a missing result.
 */
static int close_everything(struct ktap_parser *parser)
{
	struct ktap_report *report = parser->report;
	struct level *root = &parser->levels[0];
	bool child_closed = false;
	int rc;

	if (report->bailed_out)
		return 0;
	report->ended_early = parser->depth > 0 || (root->has_plan && root->results < root->plan);
	for (;;) {
		struct level *top = top_level(parser);

		if (!child_closed && top->has_plan && top->results < top->plan) {
			rc = add_test(parser, top, NULL, NULL, 0);
			if (rc)
				return rc;
		}
		if (parser->depth == 0)
			return 0;
		rc = close_level_without_result(parser);
		if (rc)
			return rc;
		child_closed = true;
	}
}

int ktap_parser_finish(struct ktap_parser *parser, struct ktap_report **report_out)
{
	struct ktap_report *report;
	struct level *root;
	int rc = 0;

	if (!parser || !report_out)
		return -EINVAL;
	*report_out = NULL;
	if (parser->error)
		return parser->error;
	if (parser->finished)
		return -EINVAL;
	parser->finished = true;
	report = parser->report;
	root = &parser->levels[0];
	if (parser->line_length > 0 || parser->line_overlong) {
		report->last_line_unterminated = true;
		rc = line_end(parser);
	}
	if (rc == 0)
		rc = close_everything(parser);
	if (rc == 0)
		rc = pending_to_run(parser);
	if (rc)
		return fail(parser, rc);
	report->line_count = parser->line_count;
	report->has_plan = root->has_plan;
	report->plan = root->plan;
	report->results = root->results;
	report->plan_matched = root->has_plan && root->results == root->plan;
	report->tests = root->tests;
	report->test_count = root->test_count;
	root->tests = NULL;
	root->test_count = 0;
	parser->report = NULL;
	*report_out = report;
	return 0;
}

void ktap_parser_progress(const struct ktap_parser *parser, struct ktap_progress *progress)
{
	memset(progress, 0, sizeof(*progress));
	if (!parser)
		return;
	progress->lines = parser->line_count;
	progress->has_plan = parser->levels[0].has_plan;
	progress->plan = parser->levels[0].plan;
	progress->results = parser->levels[0].results;
}

void ktap_parser_free(struct ktap_parser *parser)
{
	if (!parser)
		return;
	if (parser->levels)
		for (size_t i = 0; i <= parser->limits.depth; i++)
			free_level(&parser->levels[i]);
	free(parser->levels);
	ktap_report_free(parser->report);
	free(parser->line);
	if (parser->c_locale)
		freelocale(parser->c_locale);
	free(parser);
}

int ktap_parse(const void *data, size_t len, const struct ktap_limits *limits,
	       struct ktap_report **report)
{
	struct ktap_parser *parser;
	int rc;

	if (!report)
		return -EINVAL;
	*report = NULL;
	rc = ktap_parser_new(&parser, limits);
	if (rc)
		return rc;
	rc = ktap_parser_feed(parser, data, len);
	if (rc == 0)
		rc = ktap_parser_finish(parser, report);
	ktap_parser_free(parser);
	return rc;
}

/* ---- reading a report ----------------------------------------------------- */

bool ktap_report_finished_cleanly(const struct ktap_report *report)
{
	return report->version_kind != KTAP_VERSION_NONE && report->plan_matched &&
	       !report->bailed_out && !report->ended_early && !report->last_line_unterminated;
}

enum ktap_outcome ktap_test_outcome(const struct ktap_test *test)
{
	if (test->result == KTAP_RESULT_MISSING)
		return KTAP_OUTCOME_INCOMPLETE;
	if (test->directive == KTAP_DIRECTIVE_SKIP)
		return KTAP_OUTCOME_SKIPPED;
	if (test->result == KTAP_RESULT_OK)
		return KTAP_OUTCOME_PASSED;
	if (test->directive == KTAP_DIRECTIVE_TODO || test->directive == KTAP_DIRECTIVE_XFAIL)
		return KTAP_OUTCOME_EXPECTED_FAILURE;
	return KTAP_OUTCOME_FAILED;
}

const char *ktap_outcome_name(enum ktap_outcome outcome)
{
	switch (outcome) {
	case KTAP_OUTCOME_PASSED: return "passed";
	case KTAP_OUTCOME_FAILED: return "failed";
	case KTAP_OUTCOME_SKIPPED: return "skipped";
	case KTAP_OUTCOME_EXPECTED_FAILURE: return "expected failure";
	case KTAP_OUTCOME_INCOMPLETE: return "incomplete";
	}
	return "?";
}

const char *ktap_directive_name(enum ktap_directive directive)
{
	switch (directive) {
	case KTAP_DIRECTIVE_NONE: return "";
	case KTAP_DIRECTIVE_SKIP: return "SKIP";
	case KTAP_DIRECTIVE_TODO: return "TODO";
	case KTAP_DIRECTIVE_XFAIL: return "XFAIL";
	case KTAP_DIRECTIVE_TIMEOUT: return "TIMEOUT";
	case KTAP_DIRECTIVE_ERROR: return "ERROR";
	}
	return "?";
}

static void count_outcome(struct ktap_counts *counts, enum ktap_outcome outcome)
{
	switch (outcome) {
	case KTAP_OUTCOME_PASSED: counts->passed++; break;
	case KTAP_OUTCOME_FAILED: counts->failed++; break;
	case KTAP_OUTCOME_SKIPPED: counts->skipped++; break;
	case KTAP_OUTCOME_EXPECTED_FAILURE: counts->expected_failures++; break;
	case KTAP_OUTCOME_INCOMPLETE: counts->incomplete++; break;
	}
}

void ktap_test_count(const struct ktap_test *test, struct ktap_counts *counts)
{
	struct ktap_counts below = { 0 };
	enum ktap_outcome outcome = ktap_test_outcome(test);

	if (test->subtest_count == 0) {
		count_outcome(counts, outcome);
		return;
	}
	for (size_t i = 0; i < test->subtest_count; i++)
		ktap_test_count(&test->subtests[i], &below);
	if (outcome == KTAP_OUTCOME_FAILED && below.failed == 0)
		below.failed++;
	if (outcome == KTAP_OUTCOME_INCOMPLETE && below.incomplete == 0)
		below.incomplete++;
	counts->passed += below.passed;
	counts->failed += below.failed;
	counts->skipped += below.skipped;
	counts->expected_failures += below.expected_failures;
	counts->incomplete += below.incomplete;
}

void ktap_report_count(const struct ktap_report *report, struct ktap_counts *counts)
{
	memset(counts, 0, sizeof(*counts));
	for (size_t i = 0; i < report->test_count; i++)
		ktap_test_count(&report->tests[i], counts);
}

static const struct ktap_metric *find_metric(const struct ktap_metric *metrics, size_t count,
					     const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(metrics[i].name, name) == 0)
			return &metrics[i];
	return NULL;
}

const struct ktap_metric *ktap_report_find_metric(const struct ktap_report *report, const char *name)
{
	return find_metric(report->metrics, report->metric_count, name);
}

const struct ktap_metric *ktap_test_find_metric(const struct ktap_test *test, const char *name)
{
	return find_metric(test->metrics, test->metric_count, name);
}

const struct ktap_test *ktap_report_find_test(const struct ktap_report *report, unsigned number)
{
	for (size_t i = 0; i < report->test_count; i++)
		if (report->tests[i].number == number)
			return &report->tests[i];
	return NULL;
}
