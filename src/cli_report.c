/* cli_report.c - `rackbisect report`: a run, a gate or a bisection from the stored state, as one file. */
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
#include "report_text.h"
#include "store.h"

static const char report_usage[] =
	"usage: rackbisect report [RUN | gate [ID] | bisect [ID]] --format html|junit|kcidb|text\n"
	"                         --out PATH [--lab LAB] [--state DIR]\n"
	"\n"
	"Writes a report of a stored run (RUN, a run id), gate or bisection (ID, default\n"
	"the latest; nothing named: the newer of the latest gate and bisection) from the\n"
	"lab's state, read only:\n"
	"  text   the verdict first, then the matrix, the bisection's path, the runs\n"
	"  html   one self-contained page: verdict, matrix, bisection path and power\n"
	"         plots (inline SVG), runs with links to their logs\n"
	"  junit  JUnit XML, a testcase per run (FAIL failure, INFRA error, SKIP skipped)\n"
	"  kcidb  KernelCI's common schema (KCIDB v5.3 JSON)\n"
	"--out PATH is written atomically; `--out -` (the default for text) is stdout.\n"
	"Exit 0 written, 2 usage (unknown format, no such run, gate or bisection),\n"
	"3 the state cannot be read.\n";

enum report_format { FORMAT_TEXT, FORMAT_HTML, FORMAT_JUNIT, FORMAT_KCIDB };
static const char *const format_names[] = { "text", "html", "junit", "kcidb" };

struct report_command {
	struct cli_globals globals;
	enum report_format format;
	const char *out;
	struct report_request request;
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

/* RUN | gate [ID] | bisect [ID] | nothing */
static int parse_subject(struct report_command *command, const char **positional, size_t count)
{
	struct report_request *request = &command->request;

	request->subject = REPORT_SUBJECT_LATEST;
	if (count == 0)
		return 0;
	if (strcmp(positional[0], "gate") == 0 || strcmp(positional[0], "bisect") == 0 ||
	    strcmp(positional[0], "bisection") == 0) {
		bool gate = positional[0][0] == 'g';

		request->subject = gate ? REPORT_SUBJECT_GATE : REPORT_SUBJECT_BISECTION;
		return count == 2 ? parse_id(positional[1], gate ? "gate" : "bisection", &request->id) : 0;
	}
	if (count == 2) {
		fprintf(stderr, "rackbisect: report takes one RUN id, or gate|bisect and an ID\n%s",
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

/* The whole report in memory (malloc'd): written at once, or not at all. */
static char *render(const struct report_command *command, const struct report_data *data)
{
	char *text = NULL, directory[PATH_MAX];
	size_t length = 0;
	FILE *out;

	if (command->format == FORMAT_KCIDB) {
		json_t *root = report_kcidb_json(data);
		char *json = root ? json_dumps(root, JSON_INDENT(2)) : NULL;

		json_decref(root);
		if (json && asprintf(&text, "%s\n", json) < 0)
			text = NULL;
		free(json);
		return text;
	}
	if (!(out = open_memstream(&text, &length)))
		return NULL;
	if (command->format == FORMAT_TEXT)
		report_text_write(out, data);
	else if (command->format == FORMAT_JUNIT)
		report_junit_write_report(out, data);
	else {
		output_dir(command->out, directory, sizeof(directory));
		report_html_write(out, data, &(struct report_html_options){
			.output_dir = directory[0] ? directory : NULL });
	}
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int write_out(const struct report_command *command, const struct report_data *data,
		     const char *text)
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
		data->title, command->out);
	return 0;
}

int cli_report(int argc, char **argv)
{
	struct report_command command = { 0 };
	struct report_data data;
	char error[1024], *text;
	int rc = parse(&command, argc, argv);

	if (rc)
		return rc < 0 ? 0 : rc;
	if ((rc = open_state(&command)) == 0) {
		rc = report_data_load(command.store, &command.request, &data, error, sizeof(error));
		if (rc) {
			cli_error("%s", error);
			rc = rc == -ENOENT ? CLI_EXIT_USAGE : CLI_EXIT_INFRA;
		} else {
			text = render(&command, &data);
			if (!text) {
				cli_error("out of memory while writing the report");
				rc = CLI_EXIT_INFRA;
			} else {
				rc = write_out(&command, &data, text);
			}
			free(text);
			report_data_release(&data);
		}
	}
	store_close(command.store);
	lab_free(command.lab);
	return rc;
}
