/*
 * cli_run.c - `rackbisect run` and `rackbisect test`: build a commit, run the
 * job's matrix on the lab, print it, and exit with what it amounts to.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "lab_session.h"
#include "build.h"
#include "cli.h"
#include "cli_commands.h"
#include "git_ref.h"
#include "log.h"
#include "path.h"
#include "report_junit.h"
#include "run.h"
#include "scheduler.h"
#include "store.h"
#include "terminal_text.h"

enum run_mode { MODE_RUN, MODE_TEST };

struct run_command {
	enum run_mode mode;
	struct cli_globals globals;
	const char *job_path;
	const char *commit_option;
	const char *boards_option;
	const char *repeat_option;
	struct lab_session session;
	struct build_result build;
	int64_t build_id;
	char build_failure[PATH_MAX + 64];
	struct scheduler *scheduler;
	struct build *building;		/* while the build runs */
	uv_signal_t interrupt, terminate;
	bool signals_watched;
	int exit_code;
};

static const char run_usage[] =
	"usage: rackbisect run JOB --commit REF [--boards SELECTOR] [--repeat N] [--tree DIR]\n"
	"                      [--lab LAB] [--state DIR] [--junit FILE] [--json] [-v]\n"
	"\n"
	"Builds REF of the job's kernel tree (--tree overrides it), boots it on every\n"
	"board of the lab the job selects (SELECTOR narrows them: board names, tags or\n"
	"chips, comma-separated), runs each workload (each repeat N times more), and\n"
	"prints a board x workload matrix. Runs that fail for the lab's sake (INFRA)\n"
	"are retried on another board of the same chip.\n"
	"Exit: 0 all PASS, 1 a FAIL (or SKIP: it did not build or boot), 3 INFRA left\n"
	"after retries, 2 usage or configuration error.\n";

static const char test_usage[] =
	"usage: rackbisect test JOB [--commit REF] [--boards SELECTOR] [--repeat N] [--tree DIR]\n"
	"                       [--lab LAB] [--state DIR] [--junit FILE] [--json] [-v]\n"
	"\n"
	"For `git bisect run`: REF defaults to HEAD of the tree, and the tree to the\n"
	"current directory (git bisect run starts us there). The job runs as with\n"
	"`rackbisect run`; the exit status is git's: 0 good, 1 bad (a FAIL), 125 skip\n"
	"(the commit does not build, or does not boot per the job's policy), 128 abort\n"
	"(INFRA: lab trouble is not evidence, the bisection must stop, not guess).\n"
	"The first FAIL decides: runs not started by then are left out.\n";

/* ---- setup ------------------------------------------------------------------------ */

static int parse(struct run_command *command, int argc, char **argv)
{
	const struct cli_option options[] = {
		{ .name = "commit", .value = &command->commit_option },
		{ .name = "boards", .value = &command->boards_option },
		{ .name = "repeat", .value = &command->repeat_option },
		{ .name = NULL },
	};
	const char *usage = command->mode == MODE_RUN ? run_usage : test_usage;
	char error[256];
	const char *positional[1];
	size_t count;
	int rc = cli_parse(argc, argv, options, &command->globals, positional, 1, &count, usage);

	if (rc)
		return rc;
	if (count != 1) {
		fprintf(stderr, "rackbisect: %s needs a JOB file\n%s", argv[0], usage);
		return CLI_EXIT_USAGE;
	}
	command->job_path = positional[0];
	if (command->mode == MODE_RUN && !command->commit_option) {
		fprintf(stderr, "rackbisect: run needs --commit REF\n%s", usage);
		return CLI_EXIT_USAGE;
	}
	if (command->commit_option &&
	    git_ref_check(command->commit_option, error, sizeof(error))) {
		cli_error("--commit %s", error);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static unsigned int repeat_factor(const char *text, int *rc)
{
	char *end;
	unsigned long value;

	*rc = 0;
	if (!text)
		return 1;
	value = strtoul(text, &end, 10);
	if (*end || value == 0 || value > 1000 || text[0] == '-') {
		cli_error("--repeat must be a whole number 1..1000, not '%s'", text);
		*rc = CLI_EXIT_USAGE;
	}
	return (unsigned int)value;
}

/* ---- build, then the matrix ------------------------------------------------------ */

static void on_scheduler_done(struct scheduler *scheduler, void *data)
{
	struct run_command *command = data;

	(void)scheduler;
	/* the boards stay open for the report; cleanup() closes them */
	uv_stop(&command->session.loop);
}

static void start_matrix(struct run_command *command)
{
	struct scheduler_options options = {
		.environment = &command->session.environment,
		.boards = command->session.selected,
		.board_count = command->session.selected_count,
		.spec = {
			.commit = command->build.commit,
			.build_id = command->build_id,
			.image = command->build.status == 0 ? command->build.image : NULL,
			.modules = command->build.modules[0] ? command->build.modules : NULL,
			.release = command->build.release,
			.build_failure = command->build.status == 0 ? NULL : command->build_failure,
		},
	};
	int rc;

	options.repeat_factor = repeat_factor(command->repeat_option, &rc);
	options.stop_at_first_fail = command->mode == MODE_TEST;
	rc = scheduler_start(&options, on_scheduler_done, command, &command->scheduler);
	if (rc) {
		cli_error("cannot schedule the runs: %s", strerror(-rc));
		command->exit_code = CLI_EXIT_INFRA;
		board_set_close(&command->session.boards);
	}
}

static void on_built(struct build *build, const struct build_result *result, void *data)
{
	struct run_command *command = data;

	(void)build;
	command->building = NULL;
	command->build = *result;
	command->build.error_text = NULL;
	if (result->status == -ECANCELED) {
		command->exit_code = 130;
		return;
	}
	if (result->status == -ENOENT || result->status == -EINVAL) {
		cli_error("%s", result->error_text ? result->error_text : "no such commit");
		command->exit_code = CLI_EXIT_USAGE;
		board_set_close(&command->session.boards);
		return;
	}
	if (result->status && result->status != -ENOEXEC) {
		cli_error("building %s: %s", command->commit_option ? command->commit_option : "HEAD",
			  result->error_text ? result->error_text : strerror(-result->status));
		command->exit_code = CLI_EXIT_INFRA;
		board_set_close(&command->session.boards);
		return;
	}
	if (result->status == -ENOEXEC)
		snprintf(command->build_failure, sizeof(command->build_failure),
			 "build of %.12s failed (log: %s)", result->commit, result->log);
	log_event(&command->session.log, LOG_INFO, NULL, 0, result->status ? "build-failed" : "built",
		  "%s %s%s", result->commit, result->status ? result->log : result->release,
		  result->cached ? " (cached)" : "");
	lab_session_record_build(&command->session, &command->build, &command->build_id);
	start_matrix(command);
}

static int start_build(struct run_command *command)
{
	struct build_request request;
	int rc;

	lab_session_build_request(&command->session, NULL, command->commit_option ? command->commit_option
				  : "HEAD", &request);

	log_progress(&command->session.log, "building %s in %s", request.ref, command->session.tree);
	rc = build_start(&command->session.loop, &request, on_built, command, &command->building);
	if (rc) {
		cli_error("cannot build %s: %s", request.ref, strerror(-rc));
		return rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_INFRA;
	}
	return 0;
}

/*
 * Ctrl-C or a TERM: the build (its own process group, so the terminal's
 * signal does not reach make) is cancelled and its worktree removed; once
 * runs are on boards we stop at once, leaving them as they are: the next run
 * closes them as interrupted, exactly as after a crash.
 */
static void on_stop_signal(uv_signal_t *signal, int number)
{
	struct run_command *command = signal->data;

	log_event(&command->session.log, LOG_NOTICE, NULL, 0, "stopped", "signal %d", number);
	command->exit_code = 128 + number;
	if (command->building) {
		build_cancel(command->building);
		return;	/* on_built sees -ECANCELED */
	}
	/* Every result so far is committed; stopping now is what a crash does,
	 * and that is safe by design (the next run closes what was in flight);
	 * a LAVA lab's jobs are canceled first. */
	lab_session_exit(&command->session, command->exit_code);
}

static void watch_stop_signals(struct run_command *command)
{
	uv_signal_init(&command->session.loop, &command->interrupt);
	uv_signal_init(&command->session.loop, &command->terminate);
	command->interrupt.data = command->terminate.data = command;
	uv_signal_start(&command->interrupt, on_stop_signal, SIGINT);
	uv_signal_start(&command->terminate, on_stop_signal, SIGTERM);
	/* they must not keep the loop alive once the work is done */
	uv_unref((uv_handle_t *)&command->interrupt);
	uv_unref((uv_handle_t *)&command->terminate);
	command->signals_watched = true;
}

/* ---- output --------------------------------------------------------------------------- */

/* The worst outcome over a board's repeats of one workload, and how many. */
struct matrix_entry {
	enum verdict_outcome outcome;
	unsigned int worst_count;
	unsigned int total;
	const struct scheduler_cell *example;	/* of the worst outcome */
};

static int outcome_rank(enum verdict_outcome outcome)
{
	static const int rank[] = { [VERDICT_PASS] = 0, [VERDICT_SKIP] = 1, [VERDICT_INFRA] = 2,
				    [VERDICT_FAIL] = 3 };
	return rank[outcome];
}

static struct matrix_entry matrix_entry(const struct scheduler_cell *cells, size_t count,
					const struct board *board, const struct job_workload *workload)
{
	struct matrix_entry entry = { VERDICT_PASS, 0, 0, NULL };
	size_t i;

	for (i = 0; i < count; i++) {
		const struct scheduler_cell *cell = &cells[i];

		if (cell->home != board || cell->workload != workload)
			continue;
		entry.total++;
		if (!entry.example || outcome_rank(cell->outcome) > outcome_rank(entry.outcome)) {
			entry.outcome = cell->outcome;
			entry.worst_count = 0;
			entry.example = cell;
		}
		entry.worst_count += cell->outcome == entry.outcome;
	}
	return entry;
}

static void print_symptom_evidence(struct run_command *command, int64_t run_id)
{
	struct store_run run;
	size_t i;

	if (store_run_get(command->session.store, run_id, &run) != 0)
		return;
	for (i = 0; i < run.symptom_count; i++)
		terminal_printf(stdout, "      %s: %s\n", run.symptoms[i].name,
		       run.symptoms[i].evidence ? run.symptoms[i].evidence : "");
	store_run_release(&run);
}

static void print_matrix(struct run_command *command, const struct scheduler_cell *cells,
			 size_t count)
{
	const struct job *job = command->session.job;
	size_t b, w, i;

	printf("job %s, commit %.12s (%s), release %s, lab %s\n\n", job->name, command->build.commit,
	       command->commit_option ? command->commit_option : "HEAD",
	       command->build.status == 0 ? command->build.release : "(did not build)",
	       command->session.lab->name);
	printf("%-8s %-8s", "board", "chip");
	for (w = 0; w < job->workload_count; w++)
		printf(" %-10s", job->workloads[w].name);
	printf("\n");
	for (b = 0; b < command->session.selected_count; b++) {
		const struct board *board = command->session.selected[b];

		printf("%-8s %-8s", board->name, board->config->chip);
		for (w = 0; w < job->workload_count; w++) {
			struct matrix_entry entry = matrix_entry(cells, count, board, &job->workloads[w]);
			char text[32];

			if (entry.total > 1 && entry.outcome != VERDICT_PASS)
				snprintf(text, sizeof(text), "%s %u/%u", verdict_outcome_name(entry.outcome),
					 entry.worst_count, entry.total);
			else
				snprintf(text, sizeof(text), "%s", verdict_outcome_name(entry.outcome));
			printf(" %-10s", text);
		}
		printf("\n");
	}
	for (i = 0; i < count; i++) {
		const struct scheduler_cell *cell = &cells[i];

		if (cell->outcome == VERDICT_PASS)
			continue;
		terminal_printf(stdout, "\n  %s %s #%u: run %" PRId64 "%s%s: %s\n", cell->home->name,
				cell->workload->name,
		       cell->repeat_index + 1, cell->run_id,
		       strcmp(cell->ran_on, cell->home->name) && cell->ran_on[0] ? " on " : "",
		       strcmp(cell->ran_on, cell->home->name) && cell->ran_on[0] ? cell->ran_on : "",
		       cell->summary);
		if (cell->outcome == VERDICT_FAIL)
			print_symptom_evidence(command, cell->run_id);
	}
	printf("\nrun logs: %s/<run>/\n", command->session.runs_dir);
}

static void print_json(struct run_command *command, const struct scheduler_cell *cells, size_t count,
		       int exit_code)
{
	json_t *root = json_object(), *list = json_array();
	size_t i;

	json_object_set_new(root, "job", json_string(command->session.job->name));
	json_object_set_new(root, "lab", json_string(command->session.lab->name));
	json_object_set_new(root, "commit", json_string(command->build.commit));
	json_object_set_new(root, "release", command->build.status == 0
			    ? json_string(command->build.release) : json_null());
	json_object_set_new(root, "exit_code", json_integer(exit_code));
	for (i = 0; i < count; i++) {
		const struct scheduler_cell *cell = &cells[i];
		json_t *item = json_object();

		json_object_set_new(item, "board", json_string(cell->home->name));
		json_object_set_new(item, "chip", json_string(cell->home->config->chip));
		json_object_set_new(item, "workload", json_string(cell->workload->name));
		json_object_set_new(item, "repeat", json_integer(cell->repeat_index + 1));
		json_object_set_new(item, "outcome", json_string(verdict_outcome_name(cell->outcome)));
		json_object_set_new(item, "summary", json_string(cell->summary));
		json_object_set_new(item, "run", json_integer(cell->run_id));
		json_object_set_new(item, "ran_on", json_string(cell->ran_on));
		json_object_set_new(item, "attempts", json_integer(cell->attempts));
		json_array_append_new(list, item);
	}
	json_object_set_new(root, "runs", list);
	json_dumpf(root, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(root);
}

static int exit_code_for(const struct run_command *command, const struct scheduler_cell *cells,
			 size_t count)
{
	unsigned int seen[4] = { 0 };
	size_t i;

	for (i = 0; i < count; i++)
		seen[cells[i].outcome]++;
	if (command->mode == MODE_TEST) {
		/* a FAIL is evidence even if some other run hit lab trouble */
		if (seen[VERDICT_FAIL])
			return 1;
		if (seen[VERDICT_INFRA])
			return 128;
		return seen[VERDICT_SKIP] ? 125 : 0;
	}
	if (seen[VERDICT_FAIL])
		return CLI_EXIT_FAIL;
	if (seen[VERDICT_INFRA])
		return CLI_EXIT_INFRA;
	return seen[VERDICT_SKIP] ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

static int report(struct run_command *command)
{
	const struct scheduler_cell *cells;
	size_t count;
	int code;

	cells = scheduler_cells(command->scheduler, &count);
	code = exit_code_for(command, cells, count);
	if (command->globals.json)
		print_json(command, cells, count, code);
	else
		print_matrix(command, cells, count);
	if (command->globals.junit &&
	    report_junit_write(command->globals.junit, command->session.job->name, cells, count) != 0)
		cli_error("cannot write JUnit XML to %s: %s", command->globals.junit, strerror(errno));
	return code;
}

/* ---- the commands ------------------------------------------------------------------ */

static void cleanup(struct run_command *command)
{
	if (command->signals_watched) {
		uv_close((uv_handle_t *)&command->interrupt, NULL);
		uv_close((uv_handle_t *)&command->terminate, NULL);
	}
	lab_session_close(&command->session);
	scheduler_free(command->scheduler);
}

static int run_or_test(enum run_mode mode, int argc, char **argv)
{
	struct run_command *command = calloc(1, sizeof(*command));
	int rc;

	if (!command)
		return CLI_EXIT_INFRA;
	command->mode = mode;
	rc = parse(command, argc, argv);
	if (rc == 0)
		repeat_factor(command->repeat_option, &rc);
	if (rc == 0)
		rc = lab_session_open(&command->session, &(struct lab_session_options){
			.globals = &command->globals, .job_path = command->job_path,
			.board_selector = command->boards_option,
			.tree_defaults_to_current_directory = mode == MODE_TEST });
	if (rc == 0 && (rc = start_build(command)) == 0) {
		watch_stop_signals(command);
		uv_run(&command->session.loop, UV_RUN_DEFAULT);
		rc = command->exit_code ? command->exit_code
			: command->scheduler ? report(command) : CLI_EXIT_INFRA;
		if (mode == MODE_TEST && rc > 128)
			rc = 128;	/* git bisect run: stop, this is no verdict */
	}
	if (rc < 0)
		rc = rc == -1 ? 0 : CLI_EXIT_INFRA;
	if (mode == MODE_TEST && rc == CLI_EXIT_USAGE)
		rc = 128;	/* git bisect run: anything above 127 aborts */
	if (mode == MODE_TEST && rc == CLI_EXIT_INFRA)
		rc = 128;
	cleanup(command);
	free(command);
	return rc;
}

int cli_run(int argc, char **argv)
{
	return run_or_test(MODE_RUN, argc, argv);
}

int cli_test(int argc, char **argv)
{
	return run_or_test(MODE_TEST, argc, argv);
}
