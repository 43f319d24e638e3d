/* cli_report.c - `rackbisect report`: a run, a gate, a bisection or the nights from the stored state, as one file. */
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_commands.h"
#include "files.h"
#include "path.h"
#include "report_data.h"
#include "report_html.h"
#include "report_junit.h"
#include "report_kcidb.h"
#include "report_nights.h"
#include "report_text.h"
#include "store.h"

static const char report_usage[] =
	"usage: rackbisect report [RUN | gate [ID] | bisect [ID] | nightly [TREE/BRANCH]]\n"
	"                         --format html|junit|kcidb|text --out PATH [--lab LAB] [--state DIR]\n"
	"\n"
	"Writes a report of a stored run (RUN, a run id), gate or bisection (ID, default\n"
	"the latest; nothing named: the newer of the latest gate and bisection) from the\n"
	"lab's state, read only:\n"
	"  text   the verdict first, then the matrix, the bisection's path, the runs\n"
	"  html   one self-contained page: verdict, matrix, bisection path and power\n"
	"         plots (inline SVG), runs with links to their logs, and the trend\n"
	"         across nights when the gate was a night of `rackbisect nightly`\n"
	"  junit  JUnit XML, a testcase per run (FAIL failure, INFRA error, SKIP skipped)\n"
	"  kcidb  KernelCI's common schema (KCIDB v5.3 JSON)\n"
	"`nightly` reports every stored night of `rackbisect nightly` (TREE/BRANCH: one\n"
	"branch's), oldest first per branch: date, head, baseline (the last good night),\n"
	"verdict, regressions, the head's runs, the culprit and whether that night\n"
	"bisected it or named a known one. text: a table per branch; html: the tables\n"
	"and a trend plot per branch (fail ratio, verdicts, power and energy per night);\n"
	"junit: a testsuite per branch, a testcase per night (REGRESSION failure,\n"
	"INCOMPLETE error); kcidb: every night's gate, the heads' checkouts named by branch.\n"
	"--out PATH is written atomically; `--out -` (the default for text) is stdout.\n"
	"Exit 0 written, 2 usage (unknown format, no such run, gate or bisection, no\n"
	"nights stored), 3 the state cannot be read.\n";

enum report_format { FORMAT_TEXT, FORMAT_HTML, FORMAT_JUNIT, FORMAT_KCIDB };
static const char *const format_names[] = { "text", "html", "junit", "kcidb" };

struct report_command {
	struct cli_globals globals;
	enum report_format format;
	const char *out;
	struct report_request request;
	bool nightly;			/* `report nightly`: the request's subject is unused */
	const char *night;		/* its TREE/BRANCH, or NULL */
	struct lab *lab;
	struct lab_state state;
	char state_dir[PATH_MAX];
	struct store *store;
};

static int parse_id(const char *text, const char *what, int64_t *id)
{
	char *end;
	long long value = strtoll(text, &end, 10);

	if (*end || end == text || value < 1) {
		cli_error("'%s' is not a %s id (a whole number from 1)", text, what);
		return CLI_EXIT_USAGE;
	}
	*id = value;
	return 0;
}

/* nightly [TREE/BRANCH]: a branch as the nightly file names it */
static int parse_nightly(struct report_command *command, const char **positional, size_t count)
{
	command->nightly = true;
	if (count < 2)
		return 0;
	if (!strchr(positional[1], '/') || positional[1][0] == '/') {
		cli_error("'%s' is not TREE/BRANCH: give a branch as the nightly file names it (e.g. "
			  "stable/linux-3.3.y), or leave it out for every branch", positional[1]);
		return CLI_EXIT_USAGE;
	}
	command->night = positional[1];
	return 0;
}

/* RUN | gate [ID] | bisect [ID] | nightly [TREE/BRANCH] | nothing */
static int parse_subject(struct report_command *command, const char **positional, size_t count)
{
	struct report_request *request = &command->request;

	request->subject = REPORT_SUBJECT_LATEST;
	if (count == 0)
		return 0;
	if (strcmp(positional[0], "nightly") == 0)
		return parse_nightly(command, positional, count);
	if (strcmp(positional[0], "gate") == 0 || strcmp(positional[0], "bisect") == 0 ||
	    strcmp(positional[0], "bisection") == 0) {
		bool gate = positional[0][0] == 'g';

		request->subject = gate ? REPORT_SUBJECT_GATE : REPORT_SUBJECT_BISECTION;
		return count == 2 ? parse_id(positional[1], gate ? "gate" : "bisection", &request->id) : 0;
	}
	if (count == 2) {
		fprintf(stderr, "rackbisect: report takes one RUN id, gate|bisect and an ID, or nightly "
			"and a TREE/BRANCH\n%s",
			report_usage);
		return CLI_EXIT_USAGE;
	}
	request->subject = REPORT_SUBJECT_RUN;
	return parse_id(positional[0], "run", &request->id);
}

static int parse(struct report_command *command, int argc, char **argv)
{
	const char *format = NULL, *positional[2];
	const struct cli_option options[] = { { .name = "format", .value = &format },
					      { .name = "out", .value = &command->out },
					      { .name = NULL } };
	size_t count, i;
	int rc = cli_parse(argc, argv, options, &command->globals, positional, 2, &count, report_usage);

	if (rc)
		return rc;
	for (i = 0; format && i < sizeof(format_names) / sizeof(format_names[0]); i++) {
		if (strcmp(format, format_names[i]) == 0)
			break;
	}
	if (format && i == sizeof(format_names) / sizeof(format_names[0])) {
		cli_error("unknown report format '%s': give --format html, junit, kcidb or text", format);
		return CLI_EXIT_USAGE;
	}
	command->format = format ? (enum report_format)i : FORMAT_TEXT;
	if (!command->out && command->format != FORMAT_TEXT) {
		cli_error("--format %s needs --out PATH (or --out - for stdout)", format_names[command->format]);
		return CLI_EXIT_USAGE;
	}
	if (!command->out)
		command->out = "-";
	return parse_subject(command, positional, count);
}

/* The lab's state, as `runs` and `show` find it; nothing is created. */
static int open_state(struct report_command *command)
{
	char database[PATH_MAX];
	int rc;

	if (!(command->lab = cli_load_lab(&command->globals)))
		return CLI_EXIT_USAGE;
	if (lab_state_locate(command->lab, command->globals.state, &command->state) != 0) {
		cli_error("no state directory: give --state DIR or set HOME");
		return CLI_EXIT_INFRA;
	}
	if (!realpath(command->state.base, command->state_dir) ||
	    path_format(database, sizeof(database), "%s/state.db", command->state_dir) ||
	    access(database, R_OK) != 0) {
		cli_error("cannot read the state database %s/state.db: %s (give --state DIR of the lab "
			  "that ran it)", command->state.base, strerror(errno));
		return CLI_EXIT_INFRA;
	}
	rc = store_open(database, &command->store);
	if (rc) {
		cli_error("%s", command->store ? store_error_message(command->store) : strerror(-rc));
		return CLI_EXIT_INFRA;
	}
	command->request.state_dir = command->state_dir;
	command->request.lab = command->lab->name;
	return 0;
}

/* The directory the page goes to, so its log links are relative to it. */
static void output_dir(const char *out, char *dir, size_t len)
{
	char copy[PATH_MAX], *parent;

	dir[0] = '\0';
	if (strcmp(out, "-") == 0 || path_format(copy, sizeof(copy), "%s", out))
		return;
	parent = dirname(copy);
	if (len < PATH_MAX || !realpath(parent, dir))
		dir[0] = '\0';
}

/* What is reported: one of the two is set. */
struct report_subject_data {
	const struct report_data *data;
	const struct report_nights *nights;
};

static char *kcidb_text(const struct report_subject_data *subject)
{
	json_t *root = subject->data ? report_kcidb_json(subject->data) : report_kcidb_nights_json(subject->nights);
	char *json = root ? json_dumps(root, JSON_INDENT(2)) : NULL, *text = NULL;

	json_decref(root);
	if (json && asprintf(&text, "%s\n", json) < 0)
		text = NULL;
	free(json);
	return text;
}

static void write_format(const struct report_command *command, const struct report_subject_data *subject,
			 FILE *out)
{
	char directory[PATH_MAX];

	if (command->format == FORMAT_TEXT && subject->data)
		report_text_write(out, subject->data);
	else if (command->format == FORMAT_TEXT)
		report_text_write_nights(out, subject->nights);
	else if (command->format == FORMAT_JUNIT && subject->data)
		report_junit_write_report(out, subject->data);
	else if (command->format == FORMAT_JUNIT)
		report_junit_write_nights(out, subject->nights);
	else if (subject->data) {
		output_dir(command->out, directory, sizeof(directory));
		report_html_write(out, subject->data, &(struct report_html_options){
			.output_dir = directory[0] ? directory : NULL });
	} else {
		report_html_write_nights(out, subject->nights);
	}
}

/* The whole report in memory (malloc'd): written at once, or not at all. */
static char *render(const struct report_command *command, const struct report_subject_data *subject)
{
	char *text = NULL;
	size_t length = 0;
	FILE *out;

	if (command->format == FORMAT_KCIDB)
		return kcidb_text(subject);
	if (!(out = open_memstream(&text, &length)))
		return NULL;
	write_format(command, subject, out);
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int write_out(const struct report_command *command, const char *title, const char *text)
{
	int rc;

	if (strcmp(command->out, "-") == 0) {
		if (fputs(text, stdout) < 0 || fflush(stdout) != 0) {
			cli_error("cannot write the report to stdout: %s", strerror(errno));
			return CLI_EXIT_INFRA;
		}
		return 0;
	}
	rc = files_write_atomic(command->out, text);
	if (rc) {
		cli_error("cannot write %s: %s", command->out, strerror(-rc));
		return rc == -ENOSPC || rc == -EIO ? CLI_EXIT_INFRA : CLI_EXIT_USAGE;
	}
	fprintf(stderr, "rackbisect: %s report of %s written to %s\n", format_names[command->format],
		title, command->out);
	return 0;
}

static int render_and_write(const struct report_command *command, const struct report_subject_data *subject,
			    const char *title)
{
	char *text = render(command, subject);
	int rc;

	if (!text) {
		cli_error("out of memory while writing the report");
		return CLI_EXIT_INFRA;
	}
	rc = write_out(command, title, text);
	free(text);
	return rc;
}

/* Loads what the command names, then writes it: an exit code. */
static int report(struct report_command *command)
{
	struct report_data data;
	struct report_nights nights;
	char error[1024];
	int rc;

	if (command->nightly) {
		rc = report_nights_load(command->store, &(struct report_nights_request){
			.night = command->night, .state_dir = command->request.state_dir, .lab = command->request.lab,
			.gate_reports = command->format == FORMAT_KCIDB }, &nights, error, sizeof(error));
		if (rc == 0) {
			rc = render_and_write(command, &(struct report_subject_data){ .nights = &nights }, nights.title);
			report_nights_release(&nights);
			return rc;
		}
	} else {
		rc = report_data_load(command->store, &command->request, &data, error, sizeof(error));
		if (rc == 0) {
			rc = render_and_write(command, &(struct report_subject_data){ .data = &data }, data.title);
			report_data_release(&data);
			return rc;
		}
	}
	cli_error("%s", error);
	return rc == -ENOENT ? CLI_EXIT_USAGE : CLI_EXIT_INFRA;
}

int cli_report(int argc, char **argv)
{
	struct report_command command = { 0 };
	int rc = parse(&command, argc, argv);

	if (rc)
		return rc < 0 ? 0 : rc;
	if ((rc = open_state(&command)) == 0)
		rc = report(&command);
	store_close(command.store);
	lab_free(command.lab);
	return rc;
}
