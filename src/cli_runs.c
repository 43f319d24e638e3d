/* cli_runs.c - `rackbisect runs` and `rackbisect show RUN`: what the store holds. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_commands.h"
#include "path.h"
#include "run.h"
#include "store.h"
#include "terminal_text.h"

static const char *const outcome_names[] = { "-", "PASS", "FAIL", "INFRA", "SKIP" };
static const char *const state_names[] = { "queued", "running", "done" };

struct store_command {
	struct cli_globals globals;
	struct lab *lab;
	struct lab_state state;
	char database[PATH_MAX];
	struct store *store;
};

static int open_store(struct store_command *command)
{
	int rc;

	if (!(command->lab = cli_load_lab(&command->globals)))
		return CLI_EXIT_USAGE;
	if (cli_state(command->lab, &command->globals, &command->state, command->database,
		      sizeof(command->database)))
		return CLI_EXIT_INFRA;
	rc = store_open(command->database, &command->store);
	if (rc) {
		cli_error("%s", command->store ? store_error_message(command->store) : strerror(-rc));
		return CLI_EXIT_INFRA;
	}
	return 0;
}

static void close_store(struct store_command *command)
{
	store_close(command->store);
	lab_free(command->lab);
}

static json_t *run_json(const struct store_run *run)
{
	json_t *item = json_object(), *symptoms = json_array(), *metrics = json_array();
	size_t i;

	json_object_set_new(item, "id", json_integer(run->id));
	json_object_set_new(item, "job", json_string(run->job));
	json_object_set_new(item, "board", run->board ? json_string(run->board) : json_null());
	json_object_set_new(item, "commit", json_string(run->commit));
	json_object_set_new(item, "workload", json_string(run->workload));
	json_object_set_new(item, "repeat", json_integer(run->repeat_index + 1));
	json_object_set_new(item, "state", json_string(state_names[run->state]));
	json_object_set_new(item, "outcome", json_string(outcome_names[run->outcome]));
	json_object_set_new(item, "cause", run->cause ? json_string(run->cause) : json_null());
	for (i = 0; i < run->symptom_count; i++) {
		json_t *symptom = json_object();

		json_object_set_new(symptom, "name", json_string(run->symptoms[i].name));
		json_object_set_new(symptom, "evidence", run->symptoms[i].evidence
				    ? json_string(run->symptoms[i].evidence) : json_null());
		json_array_append_new(symptoms, symptom);
	}
	for (i = 0; i < run->metric_count; i++) {
		json_t *metric = json_object();

		json_object_set_new(metric, "name", json_string(run->metrics[i].name));
		json_object_set_new(metric, "value", json_real(run->metrics[i].value));
		json_object_set_new(metric, "unit", json_string(run->metrics[i].unit ? run->metrics[i].unit : ""));
		json_array_append_new(metrics, metric);
	}
	json_object_set_new(item, "symptoms", symptoms);
	json_object_set_new(item, "metrics", metrics);
	return item;
}

static void print_json(json_t *value)
{
	json_dumpf(value, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(value);
}

/* ---- runs --------------------------------------------------------------------------- */

static const char runs_usage[] =
	"usage: rackbisect runs [--last N] [--json] [--state DIR]\n"
	"\n"
	"The latest N runs (default 20), newest first: id, state, outcome, board,\n"
	"workload and repeat, commit, and why (symptoms or cause).\n";

static void print_run_line(const struct store_run *run)
{
	char why[512] = "";
	size_t i, used = 0;

	for (i = 0; i < run->symptom_count && used < sizeof(why); i++)
		used += (size_t)snprintf(why + used, sizeof(why) - used, "%s%s", i ? "," : "",
					 run->symptoms[i].name);
	if (!run->symptom_count && run->cause)
		snprintf(why, sizeof(why), "%s", run->cause);
	terminal_printf(stdout, "%6" PRId64 "  %-7s  %-7s  %-8s  %-4s #%-3u  %-12.12s  %s\n", run->id,
	       state_names[run->state], outcome_names[run->outcome], run->board ? run->board : "-",
	       run->workload, run->repeat_index + 1, run->commit, why);
}

int cli_runs(int argc, char **argv)
{
	struct store_command command = { 0 };
	const char *last = NULL;
	const struct cli_option options[] = { { .name = "last", .value = &last }, { .name = NULL } };
	struct store_run_list list;
	size_t count, i;
	long limit = 20;
	char *end;
	int rc = cli_parse(argc, argv, options, &command.globals, NULL, 0, &count, runs_usage);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (last) {
		limit = strtol(last, &end, 10);
		if (*end || limit < 1 || limit > 1000000) {
			cli_error("--last must be a whole number 1..1000000, not '%s'", last);
			return CLI_EXIT_USAGE;
		}
	}
	if ((rc = open_store(&command)) == 0) {
		if (store_runs_last(command.store, (unsigned int)limit, &list) != 0) {
			cli_error("%s", store_error_message(command.store));
			rc = CLI_EXIT_INFRA;
		} else {
			json_t *array = command.globals.json ? json_array() : NULL;

			if (!array)
				printf("%6s  %-7s  %-7s  %-8s  %-10s  %-12s  %s\n", "run", "state", "outcome",
				       "board", "workload", "commit", "why");
			for (i = 0; i < list.count; i++) {
				if (array)
					json_array_append_new(array, run_json(&list.runs[i]));
				else
					print_run_line(&list.runs[i]);
			}
			if (array)
				print_json(array);
			store_run_list_release(&list);
		}
	}
	close_store(&command);
	return rc;
}

/* ---- show ------------------------------------------------------------------------------ */

static const char show_usage[] =
	"usage: rackbisect show RUN [--json] [--state DIR]\n"
	"\n"
	"One run: its verdict, symptoms with the kernel log lines behind them,\n"
	"metrics, and the files kept (workload output, its stderr and exit status,\n"
	"dmesg, console capture).\n";

static void print_run(const struct store_command *command, const struct store_run *run)
{
	static const char *const files[] = { "verdict.txt", "output.ktap", "workload.stderr",
					     "workload.exit", "dmesg.log", "console.log" };
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat info;
	size_t i;

	printf("run %" PRId64 ": %s on %s, %s #%u, commit %s\n", run->id, run->job,
	       run->board ? run->board : "(no board)", run->workload, run->repeat_index + 1,
	       run->commit);
	terminal_printf(stdout, "state %s, outcome %s%s%s\n", state_names[run->state],
			outcome_names[run->outcome],
	       run->cause ? ": " : "", run->cause ? run->cause : "");
	for (i = 0; i < run->symptom_count; i++)
		terminal_printf(stdout, "symptom %s: %s\n", run->symptoms[i].name,
		       run->symptoms[i].evidence ? run->symptoms[i].evidence : "");
	for (i = 0; i < run->metric_count; i++)
		printf("metric %s=%g %s\n", run->metrics[i].name, run->metrics[i].value,
		       run->metrics[i].unit ? run->metrics[i].unit : "");
	if (path_format(dir, sizeof(dir), "%s/runs", command->state.base) ||
	    run_directory(dir, run->id, path, sizeof(path)))
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (path_format(path, sizeof(path), "%s/%s", dir, files[i]) == 0 && stat(path, &info) == 0)
			printf("file %s (%lld bytes)\n", path, (long long)info.st_size);
	}
}

int cli_show(int argc, char **argv)
{
	struct store_command command = { 0 };
	const char *positional[1];
	struct store_run run;
	size_t count;
	long long id;
	char *end;
	int rc = cli_parse(argc, argv, NULL, &command.globals, positional, 1, &count, show_usage);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (count != 1) {
		fprintf(stderr, "rackbisect: show needs a RUN id\n%s", show_usage);
		return CLI_EXIT_USAGE;
	}
	id = strtoll(positional[0], &end, 10);
	if (*end || id < 1) {
		cli_error("'%s' is not a run id (see rackbisect runs)", positional[0]);
		return CLI_EXIT_USAGE;
	}
	if ((rc = open_store(&command)) == 0) {
		rc = store_run_get(command.store, id, &run);
		if (rc == -ENOENT) {
			cli_error("no run %lld in %s (see rackbisect runs)", id, command.database);
			rc = CLI_EXIT_USAGE;
		} else if (rc) {
			cli_error("%s", store_error_message(command.store));
			rc = CLI_EXIT_INFRA;
		} else {
			if (command.globals.json)
				print_json(run_json(&run));
			else
				print_run(&command, &run);
			store_run_release(&run);
		}
	}
	close_store(&command);
	return rc;
}
