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
	"                       [--tree DIR] [--lab LAB] [--json]\n"
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
	"Exit: 0 PASS, 1 REGRESSION, 3 lab trouble or undecided, 2 usage.\n";

struct gate_command {
	struct cli_globals globals;
	const char *job_option, *baseline, *candidate, *mainline, *boards, *confidence, *reply_path;
	const char *night;
	bool bisect, released;
	struct lab_session session;
	bool session_open;
	struct gate_review *review;
	uv_signal_t interrupt;
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
		.bisect = command->bisect, .released = command->released, .prefix = "" },
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

int cli_gate(int argc, char **argv)
{
	struct gate_command *command = calloc(1, sizeof(*command));
	int rc;

	if (!command)
		return CLI_EXIT_INFRA;
	rc = parse(command, argc, argv);
	if (rc == 0) {
		rc = lab_session_open(&command->session, &(struct lab_session_options){
			.globals = &command->globals, .job_path = command->job_option,
			.board_selector = command->boards });
		command->session_open = true;
	}
	if (rc == 0)
		rc = run_review(command);
	if (command->session_open && uv_is_active((uv_handle_t *)&command->interrupt))
		uv_close((uv_handle_t *)&command->interrupt, NULL);
	if (command->session_open)
		lab_session_close(&command->session);
	gate_review_free(command->review);
	free(command);
	return rc < 0 ? 0 : rc;
}
