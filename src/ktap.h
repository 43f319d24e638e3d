/*
 * ktap.h - a parser for KTAP, the kernel's test output format
 * (Documentation/dev-tools/ktap.rst), as the lab's workloads print it, plus
 * the lab's `# metric NAME=VALUE UNIT` lines.
 *
 * The parser does no I/O: the caller feeds it text as it arrives (from an SSH
 * channel, a console, a file), in chunks that may split lines anywhere, and
 * takes a report when the output has ended. It never fails on what it reads:
 * any byte sequence gives a report, lines it does not understand are kept,
 * and memory stays bounded (struct ktap_limits) whatever the input; what the
 * limits kept out is counted in the report. Functions that can fail return 0
 * or a negative errno. There is no global state: parsers are independent.
 *
 *   struct ktap_parser *parser;
 *   struct ktap_report *report;
 *   ktap_parser_new(&parser, NULL);
 *   ... ktap_parser_feed(parser, chunk, chunk_len) as output streams in ...
 *   ktap_parser_finish(parser, &report);
 *   ktap_parser_free(parser);
 *   ... report->tests, ktap_report_count(report, &counts) ...
 *   ktap_report_free(report);
 *
 * What it accepts:
 * - version lines "KTAP version N" and "TAP version N" (KTAP 1, TAP 13 and 14
 *   are what the kernel prints; other numbers are recorded, not refused);
 * - a plan "1..N", normally after the version line, also at the end (TAP);
 * - result lines "ok|not ok NUMBER [- ][DESCRIPTION][ # [DIRECTIVE] [TEXT]]",
 *   directives SKIP and TODO (any case, as TAP says), XFAIL, TIMEOUT, ERROR;
 *   "\#" in a description is a '#' that does not start the directive;
 * - diagnostic lines "# TEXT": they belong to the next result line at their
 *   level (KTAP's convention), so a failed test's `# dmesg:` quotes are in
 *   its diagnostics; lines before the plan, and after the last result of an
 *   output that ended cleanly, belong to the run;
 * - "# metric NAME=VALUE UNIT": a metric of the test whose block it is in,
 *   or of the run after the last result line (the workloads' convention);
 * - nested tests: a version line opens the subtests of the next result line
 *   one level up; indentation (two spaces per level in the spec, four in
 *   older kunit) decides where a subtest list ends, and a subtest list whose
 *   plan is complete ends at the next result line at its own indentation
 *   (nesting printed without indentation). A plan or result line indented
 *   deeper than the current level opens a subtest list too (kunit's TAP 14
 *   "# Subtest:" style, which has no nested version line);
 * - "Bail out!" [REASON]: the output stopped on purpose; later lines are
 *   kept (diagnostics and metrics for the run, the rest as unknown lines);
 * - blank lines are ignored; any other line is an unknown line: kept with
 *   its line number, never fatal.
 * Line ends are "\n"; trailing white space, and so the "\r" of "\r\n"
 * (serial consoles), is dropped; a NUL byte is stored as '?'; other bytes,
 * UTF-8 or not, are kept as they are (escape them where they are shown).
 */
#ifndef RB_KTAP_H
#define RB_KTAP_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Bounds on what one report may hold. A zero field takes the default in
 * brackets. Past a bound the parser keeps reading (plans, numbering and
 * counts stay right) but stores no more of that kind, and counts what it left
 * out in report->dropped.
 */
struct ktap_limits {
	size_t line_bytes;      /* bytes kept of one line [65536]; the rest are dropped */
	size_t tests;           /* tests kept, all levels together [10000] */
	size_t diagnostics;     /* diagnostic lines kept per test, and for the run [1000] */
	size_t metrics;         /* metrics kept per test, and for the run [1000] */
	size_t unknown_lines;   /* unknown lines kept [1000] */
	size_t depth;           /* levels of nested subtests [16, at most 256] */
	/* bytes the report may hold, roughly [32 MiB]; lines and metrics get
	 * three quarters of it, so that a flood of them leaves room for results */
	size_t memory;
};

enum ktap_version_kind {
	KTAP_VERSION_NONE, /* no version line was seen */
	KTAP_VERSION_KTAP, /* "KTAP version N" */
	KTAP_VERSION_TAP,  /* "TAP version N" */
};

enum ktap_result {
	KTAP_RESULT_OK,
	KTAP_RESULT_NOT_OK,
	/*
	 * No result line: the test was in progress when the output stopped (a
	 * hung board), or its subtests were printed and its own line never was.
	 */
	KTAP_RESULT_MISSING,
};

enum ktap_directive {
	KTAP_DIRECTIVE_NONE,
	KTAP_DIRECTIVE_SKIP,
	KTAP_DIRECTIVE_TODO,
	KTAP_DIRECTIVE_XFAIL,
	KTAP_DIRECTIVE_TIMEOUT,
	KTAP_DIRECTIVE_ERROR,
};

/* What a test's result and directive amount to; see ktap_test_outcome(). */
enum ktap_outcome {
	KTAP_OUTCOME_PASSED,
	KTAP_OUTCOME_FAILED,
	KTAP_OUTCOME_SKIPPED,
	KTAP_OUTCOME_EXPECTED_FAILURE, /* not ok with TODO or XFAIL */
	KTAP_OUTCOME_INCOMPLETE,       /* KTAP_RESULT_MISSING */
};

/* One line of the output; number counts from 1, over the whole output. */
struct ktap_line {
	unsigned long number;
	char *text; /* diagnostics: without the leading "#" and one space */
};

struct ktap_metric {
	char *name;
	double value;
	char *unit; /* "" when the line had none */
	unsigned long line;
};

struct ktap_test {
	unsigned number;         /* as printed; for a missing result, the one expected */
	char *name;              /* the description; "" when none */
	enum ktap_result result;
	enum ktap_directive directive;
	/* after the directive keyword (SKIP's reason), or everything after '#'
	 * when it named no directive; "" when none */
	char *reason;
	unsigned long line;      /* of the result line; 0 when missing */
	struct ktap_line *diagnostics;
	size_t diagnostic_count;
	struct ktap_metric *metrics;
	size_t metric_count;
	struct ktap_test *subtests;
	size_t subtest_count;
	bool has_subtest_plan;
	unsigned subtest_plan;
	unsigned subtest_results;    /* subtest result lines seen, kept or not */
	bool subtest_plan_matched;   /* has_subtest_plan and as many results */
};

/* What the limits kept out of a report. */
struct ktap_dropped {
	size_t overlong_lines;   /* lines cut to limits.line_bytes */
	size_t line_bytes;       /* bytes cut from them */
	size_t tests;
	size_t diagnostics;
	size_t metrics;
	size_t unknown_lines;
	size_t nesting;          /* version or plan lines deeper than limits.depth */
	bool memory_limit_hit;   /* some of the above were dropped for limits.memory */
};

struct ktap_report {
	enum ktap_version_kind version_kind;
	unsigned version;
	bool has_plan;
	unsigned plan;
	unsigned results;        /* top-level result lines seen, kept or not */
	bool plan_matched;       /* has_plan and results == plan */
	bool bailed_out;
	char *bail_out_reason;   /* NULL unless bailed_out; "" when none was given */
	/*
	 * The output stopped before its plan was done (or inside subtests)
	 * without a Bail out!: what a hung board or a lost connection leaves.
	 * The test in progress is then the last of tests[], KTAP_RESULT_MISSING,
	 * with the diagnostics and metrics it printed before the output stopped.
	 */
	bool ended_early;
	bool last_line_unterminated; /* the output did not end with a newline */
	unsigned long line_count;
	size_t misnumbered_results;  /* result lines not numbered one after the previous */
	size_t subtest_plan_mismatches;
	struct ktap_test *tests;
	size_t test_count;
	struct ktap_line *diagnostics; /* the run's: before the plan, after the last result */
	size_t diagnostic_count;
	struct ktap_metric *metrics;   /* the run's */
	size_t metric_count;
	struct ktap_line *unknown_lines;
	size_t unknown_line_count;
	struct ktap_dropped dropped;
};

/* Leaf tests by outcome; see ktap_report_count(). */
struct ktap_counts {
	size_t passed;
	size_t failed;
	size_t skipped;
	size_t expected_failures;
	size_t incomplete;
};

/* How far a parser has got, for a caller showing progress while streaming. */
struct ktap_progress {
	unsigned long lines;
	bool has_plan;
	unsigned plan;
	unsigned results; /* top-level result lines so far */
};

struct ktap_parser;

/* limits may be NULL (all defaults). -ENOMEM. */
int ktap_parser_new(struct ktap_parser **parser, const struct ktap_limits *limits);
/*
 * Parses what data adds to the output. Lines are handled as soon as their
 * newline arrives. -EINVAL after ktap_parser_finish() or for NULL data with a
 * length; -ENOMEM, after which the parser only returns -ENOMEM.
 */
int ktap_parser_feed(struct ktap_parser *parser, const void *data, size_t len);
/*
 * The output has ended: parses an unterminated last line, closes what is
 * open, and hands over the report (the caller frees it with
 * ktap_report_free()). Once only: -EINVAL after that; -ENOMEM.
 */
int ktap_parser_finish(struct ktap_parser *parser, struct ktap_report **report);
void ktap_parser_progress(const struct ktap_parser *parser, struct ktap_progress *progress);
/* Frees the parser and, unless finish handed it over, its report. NULL is fine. */
void ktap_parser_free(struct ktap_parser *parser);

/* One call for output already complete in memory. */
int ktap_parse(const void *data, size_t len, const struct ktap_limits *limits,
	       struct ktap_report **report);

void ktap_report_free(struct ktap_report *report);

/*
 * A version line and a plan, as many results as planned, no Bail out!,
 * nothing open, a newline at the end: the output of a run that finished.
 * Says nothing about whether its tests passed.
 */
bool ktap_report_finished_cleanly(const struct ktap_report *report);

/*
 * Adds up the outcomes of the leaf tests (those without subtests), kunit's
 * way. A parent whose own outcome is failed or incomplete while none of its
 * subtests is counts once as such, so no failure is lost.
 */
void ktap_report_count(const struct ktap_report *report, struct ktap_counts *counts);
/* The same for one test and its subtests; adds to counts. */
void ktap_test_count(const struct ktap_test *test, struct ktap_counts *counts);

/*
 * SKIP: skipped. TODO or XFAIL with not ok: an expected failure; with ok:
 * passed. Otherwise ok/not ok (TIMEOUT and ERROR come with not ok). A
 * missing result line: incomplete.
 */
enum ktap_outcome ktap_test_outcome(const struct ktap_test *test);
const char *ktap_outcome_name(enum ktap_outcome outcome);     /* "passed", ... */
const char *ktap_directive_name(enum ktap_directive directive); /* "SKIP", ...; "" for none */

/* The run-level metric called name (the first one), or NULL. */
const struct ktap_metric *ktap_report_find_metric(const struct ktap_report *report, const char *name);
/* The test's own metric called name (the first one), or NULL. */
const struct ktap_metric *ktap_test_find_metric(const struct ktap_test *test, const char *name);
/* The top-level test numbered number (the first one), or NULL. */
const struct ktap_test *ktap_report_find_test(const struct ktap_report *report, unsigned number);

#endif
