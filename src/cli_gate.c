/* cli_gate.c - `rackbisect gate`: a stable release candidate against its baseline. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <uv.h>

#include "cli.h"
#include "cli_commands.h"
#include "cli_gate_review.h"
#include "lab_session.h"

static const char usage[] =
	"usage: rackbisect gate JOB --baseline REF --candidate REF [--mainline REF] [--bisect]\n"
	"                       [--released] [--boards SELECTOR] [--confidence C] [--reply FILE]\n"
	"                       [--night NAME] [--tree DIR] [--lab LAB] [--state DIR] [--json] [-v]\n"
	"       rackbisect gate resume [ID] [--lab LAB] [--state DIR] [--json]\n"
	"\n"
	"Gates a stable release candidate: the job's matrix (boards x workloads) runs on\n"
	"the candidate; where it fails, the baseline runs as often as it takes to tell\n"
	"the two apart at --confidence (default 0.99). A failure the baseline shows too\n"
	"is \"known failing\", not a regression. With --bisect, a regression is bisected\n"
	"in the queue (baseline..candidate) and the culprit mapped to its upstream commit;\n"
	"with --mainline (a branch of the tree), mainline is searched for the upstream\n"
	"commit, its revert (\"This reverts commit <id>\") and fixes (\"Fixes: <id>\"),\n"
	"and the advice follows the stable rules: before release, drop the patch from\n"
	"the queue; after it (--released), revert once mainline has. Every queued patch\n"
	"without an upstream commit, or one not in mainline, is listed.\n"
	"Prints the stable-review reply and writes it to --reply FILE (default: the\n"
	"lab's state directory, gates/ID/reply.txt). \"Tested-by:\" only on PASS.\n"
	"--night NAME records the gate as that branch's night (`rackbisect nightly` gives\n"
	"it): a PASS becomes the branch's last good night.\n"
	"Every run is stored as it starts: `gate resume` goes on after a crash or a\n"
	"stop (see `rackbisect gate resume --help`).\n"
	"Exit: 0 PASS, 1 REGRESSION, 3 lab trouble or undecided, 2 usage.\n";

static const char resume_usage[] =
	"usage: rackbisect gate resume [ID] [--lab LAB] [--state DIR] [--json]\n"
	"\n"
	"Goes on with a gate that stopped (the coordinator killed or stopped, the host\n"
	"rebooted) in the lab, state, tree and boards it was started with. Its stored\n"
	"runs count as they are: a cell of the matrix with a result is not run again;\n"
	"runs the stop cut off are INFRA and their boards are power cycled onto their\n"
	"fallback kernel and checked before they run again; a bisection it started\n"
	"goes on from its stored runs. Ends with the reply, as the gate does; on a\n"
	"gate that was done, only the reply again. ID is a gate number; left out, the\n"
	"latest. Exit: as the gate.\n";

struct gate_command {
	struct cli_globals globals;
	const char *job_option, *baseline, *candidate, *mainline, *boards, *confidence, *reply_path;
	const char *night;
	bool bisect, released;
	struct lab_session session;
	bool session_open;
	struct gate_review *review;
	uv_signal_t interrupt;
	json_t *session_spec;		/* kept with the gate for `gate resume` */
	struct store_gate stored;	/* resume: the gate gone on with */
};

static int parse(struct gate_command *command, int argc, char **argv)
{
	const struct cli_option options[] = {
		{ .name = "baseline", .value = &command->baseline },
		{ .name = "candidate", .value = &command->candidate },
		{ .name = "mainline", .value = &command->mainline },
		{ .name = "bisect", .flag = &command->bisect },
		{ .name = "released", .flag = &command->released },
		{ .name = "boards", .value = &command->boards },
		{ .name = "confidence", .value = &command->confidence },
		{ .name = "reply", .value = &command->reply_path },
		{ .name = "night", .value = &command->night },
		{ .name = NULL },
	};
	const char *positional[1];
	size_t count;
	int rc = cli_parse(argc, argv, options, &command->globals, positional, 1, &count, usage);

	if (rc)
		return rc;
	if (count != 1 || !command->baseline || !command->candidate) {
		fprintf(stderr, "rackbisect: gate needs a JOB, --baseline REF and --candidate REF\n%s", usage);
		return CLI_EXIT_USAGE;
	}
	command->job_option = positional[0];
	return 0;
}

static void on_review_done(struct gate_review *review, void *data)
{
	struct gate_command *command = data;

	(void)review;
	uv_stop(&command->session.loop);	/* consoles are followed: the loop never runs dry */
}

/* Ctrl-C: every finished run is stored and linked; the gate (and its
 * bisection, if one runs) is marked aborted rather than left "running". */
static void on_interrupt(uv_signal_t *signal, int number)
{
	struct gate_command *command = signal->data;

	gate_review_mark_aborted(command->review);
	printf("\nstopped; the runs so far are stored (`rackbisect runs`)\n");
	lab_session_exit(&command->session, 128 + number);
}

static int run_review(struct gate_command *command)
{
	int rc = gate_review_start(&(struct gate_review_options){
		.session = &command->session, .tree = command->session.tree,
		.baseline = command->baseline, .candidate = command->candidate,
		.mainline = command->mainline, .confidence = command->confidence,
		.night = command->night, .reply_path = command->reply_path,
		.bisect = command->bisect, .released = command->released, .prefix = "",
		.session_spec = command->session_spec,
		.resume = command->stored.id ? &command->stored : NULL },
		on_review_done, command, &command->review);
	json_t *json;

	if (rc)
		return rc;
	uv_signal_init(&command->session.loop, &command->interrupt);
	command->interrupt.data = command;
	uv_signal_start(&command->interrupt, on_interrupt, SIGINT);
	uv_unref((uv_handle_t *)&command->interrupt);
	uv_run(&command->session.loop, UV_RUN_DEFAULT);
	json = command->globals.json ? gate_review_json(command->review) : NULL;
	if (json) {
		json_dumpf(json, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(json);
	}
	return gate_review_exit_code(command->review);
}

/* What `gate resume` needs to open the same session again: the files the
 * session found (a job named beside the checkout, too), made absolute. */
static json_t *session_spec(struct gate_command *command)
{
	return json_pack("{s:o,s:o,s:o,s:s?}", "lab", cli_absolute_path_json(command->globals.lab_path),
			 "state", cli_absolute_path_json(command->session.state.base),
			 "job", cli_absolute_path_json(command->session.job->path),
			 "board_selector", command->boards);
}

static const char *spec_string(const json_t *object, const char *key)
{
	return json_string_value(json_object_get(object, key));
}

/* The stored gate asked for, read from the state the lab (--lab) uses. */
static int load_stored_gate(struct gate_command *command, int argc, char **argv)
{
	const char *positional[1];
	size_t count;
	int rc = cli_parse(argc, argv, NULL, &command->globals, positional, 1, &count, resume_usage);
	char database[PATH_MAX];
	struct store *store;

	if (rc || (rc = cli_open_state_store(&command->globals, &store, database, sizeof(database))))
		return rc;
	rc = count ? store_gate_get(store, strtoll(positional[0], NULL, 10), &command->stored)
		   : store_gate_latest(store, &command->stored);
	store_close(store);
	if (rc) {
		cli_error("no gate %s in %s", count ? positional[0] : "at all", database);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* The gate's own lab, state, tree, job, boards and options, whatever this
 * shell's options say: resumed as it was asked. */
static int take_question(struct gate_command *command, json_t *spec)
{
	const json_t *session = json_object_get(spec, "session");

	if (!json_is_object(session)) {
		cli_error("gate %" PRId64 " was not started by `rackbisect gate` (a nightly's, or "
			  "from before resume): start it again", command->stored.id);
		return CLI_EXIT_USAGE;
	}
	command->globals.lab_option = spec_string(session, "lab");
	command->globals.state = spec_string(session, "state");
	command->globals.tree = spec_string(spec, "tree");
	command->job_option = spec_string(session, "job");
	command->boards = spec_string(session, "board_selector");
	command->baseline = spec_string(spec, "baseline_ref");
	command->candidate = spec_string(spec, "candidate_ref");
	command->mainline = spec_string(spec, "mainline_ref");
	command->reply_path = spec_string(spec, "reply");
	command->bisect = json_is_true(json_object_get(spec, "bisect"));
	command->released = json_is_true(json_object_get(spec, "released"));
	if (!command->job_option || !command->baseline || !command->candidate) {
		cli_error("gate %" PRId64 ": its stored question is damaged (no job or refs)",
			  command->stored.id);
		return CLI_EXIT_INFRA;
	}
	printf("resuming gate %" PRId64 " (%s)\n", command->stored.id,
	       command->stored.state == STORE_GATE_DONE ? "done: its reply again"
	       : command->stored.state == STORE_GATE_ABORTED ? "stopped" : "its coordinator died");
	return 0;
}

static int open_session(struct gate_command *command)
{
	int rc = lab_session_open(&command->session, &(struct lab_session_options){
		.globals = &command->globals, .job_path = command->job_option,
		.board_selector = command->boards });

	command->session_open = true;
	if (rc == 0 && !command->stored.id && !(command->session_spec = session_spec(command)))
		rc = CLI_EXIT_INFRA;
	return rc;
}

int cli_gate(int argc, char **argv)
{
	struct gate_command *command = calloc(1, sizeof(*command));
	json_t *stored_spec = NULL;
	int rc;

	if (!command)
		return CLI_EXIT_INFRA;
	if (argc > 1 && strcmp(argv[1], "resume") == 0) {
		rc = load_stored_gate(command, argc - 1, argv + 1);
		if (rc == 0 && !(stored_spec = json_loads(command->stored.spec, 0, NULL))) {
			cli_error("gate %" PRId64 ": its stored question is not JSON", command->stored.id);
			rc = CLI_EXIT_INFRA;
		}
		if (rc == 0)
			rc = take_question(command, stored_spec);
	} else {
		rc = parse(command, argc, argv);
	}
	if (rc == 0)
		rc = open_session(command);
	if (rc == 0)
		rc = run_review(command);
	if (command->session_open && uv_is_active((uv_handle_t *)&command->interrupt))
		uv_close((uv_handle_t *)&command->interrupt, NULL);
	if (command->session_open)
		lab_session_close(&command->session);
	gate_review_free(command->review);
	json_decref(command->session_spec);
	json_decref(stored_spec);
	store_gate_release(&command->stored);
	free(command);
	return rc < 0 ? 0 : rc;
}
