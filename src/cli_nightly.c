/* cli_nightly.c - `rackbisect nightly`: each tracked branch's head against its last good night. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <unistd.h>

#include <jansson.h>
#include <uv.h>

#include "cli.h"
#include "cli_commands.h"
#include "cli_gate_review.h"
#include "lab_session.h"
#include "nightly.h"
#include "store.h"

static const char usage[] =
	"usage: rackbisect nightly NIGHTLY.yaml [--lab LAB] [--state DIR] [-v]\n"
	"\n"
	"One night of the lab: for each tree and branch the nightly file tracks (local git\n"
	"repositories: fetching them is your cron's business), the branch's head is gated\n"
	"against its last good night (`rackbisect gate --bisect`): the job's matrix runs on\n"
	"the head and, where it fails, on the last good head, until the two are told\n"
	"apart. A new regression is bisected between the two heads; one bisected before\n"
	"(the same symptom, its culprit still in the branch) is named, not bisected again.\n"
	"A branch's first night gates its head against itself, so its failures are known\n"
	"failing and it becomes the first good night. Every branch runs at once on the\n"
	"lab's boards (one run per board at a time; a board that comes free goes to the\n"
	"branch that waited for it), so one branch's bisection does not hold the others\n"
	"back; progress lines start with the branch's name. Each night is stored as a gate\n"
	"(`rackbisect report gate ID`), with its reply in the state directory\n"
	"(gates/ID/reply.txt).\n"
	"Exit: 0 every branch PASS, 1 a REGRESSION, 3 lab trouble or undecided,\n"
	"2 usage (a bad nightly file: file:line:col).\n";

struct nightly_command;

/* What one branch's night came to, for the summary. */
struct night {
	struct nightly_command *command;
	const struct nightly_branch *branch;
	struct gate_review *review;
	char prefix[128];		/* "stable/linux-3.3.y: " */
	int64_t bisection_before;	/* the newest bisection before tonight */
	char head[41], baseline[41];
	int exit_code;			/* the gate's */
	char verdict[32];
	char regressions[300];		/* "W2 (auth-timeout), W3 (auth-timeout)" */
	/* "culprit ID, bisected tonight (bisection N)" for each, "; " between */
	char culprits[600];
	int64_t gate_id;
	bool first_night;
	char trouble[300];		/* why it did not run */
};

struct nightly_command {
	struct cli_globals globals;
	const char *path;
	struct nightly_config *config;
	struct job *job;
	struct lab_session session;	/* one for the whole night: its boards are shared */
	bool session_open;
	struct night *nights;
	size_t nights_running;
	uv_signal_t interrupt;
};

static int parse(struct nightly_command *command, int argc, char **argv)
{
	const struct cli_option options[] = { { .name = NULL } };
	const char *positional[1];
	size_t count;
	int rc = cli_parse(argc, argv, options, &command->globals, positional, 1, &count, usage);

	if (rc)
		return rc;
	if (count != 1) {
		fprintf(stderr, "rackbisect: nightly needs the nightly file (e.g. jobs/nightly.yaml)\n%s",
			usage);
		return CLI_EXIT_USAGE;
	}
	command->path = positional[0];
	return 0;
}

static int load(struct nightly_command *command)
{
	char path[PATH_MAX], error[1024];

	if (cli_find_file(command->path, path, sizeof(path)) != 0) {
		cli_error("no nightly file %s", command->path);
		return CLI_EXIT_USAGE;
	}
	if (nightly_config_load(path, &command->config, error, sizeof(error)) != 0) {
		cli_error("%s", error);
		return CLI_EXIT_USAGE;
	}
	if (!(command->job = cli_load_job(command->config->job_path)))
		return CLI_EXIT_USAGE;
	command->nights = calloc(command->config->branch_count, sizeof(*command->nights));
	return command->nights ? 0 : CLI_EXIT_INFRA;
}

/* The lab, locked, with the job's boards; each branch's gate says its own tree. */
static int open_session(struct nightly_command *command)
{
	int rc;

	if (!command->globals.tree)
		command->globals.tree = command->config->branches[0].path;
	rc = lab_session_open(&command->session, &(struct lab_session_options){
		.globals = &command->globals, .job_path = command->config->job_path,
		.board_selector = command->config->boards });
	command->session_open = true;
	return rc;
}

/* The head, the last good night and the newest bisection before tonight. */
static int plan(struct nightly_command *command, struct night *night)
{
	struct store *store = command->session.store;
	char ref[300], *head, *good = NULL;
	struct store_bisection latest = { 0 };
	int64_t good_gate;
	int rc;

	snprintf(ref, sizeof(ref), "refs/heads/%s", night->branch->branch);
	if (!(head = cli_commit_id(night->branch->path, ref))) {
		snprintf(night->trouble, sizeof(night->trouble), "no branch %s in %s",
			 night->branch->branch, night->branch->path);
		return -ENOENT;
	}
	snprintf(night->head, sizeof(night->head), "%s", head);
	free(head);
	rc = nightly_last_good(store, command->job->name, night->branch->night, &good, &good_gate);
	night->first_night = rc == -ENOENT;
	snprintf(night->baseline, sizeof(night->baseline), "%s", good ? good : night->head);
	free(good);
	night->bisection_before = store_bisection_latest(store, &latest) == 0 ? latest.id : 0;
	store_bisection_release(&latest);
	if (rc && rc != -ENOENT) {
		snprintf(night->trouble, sizeof(night->trouble), "cannot read the last good night: %s",
			 store_strerror(rc));
		return rc;
	}
	printf("\n== night of %s: head %.12s, %s%.12s\n", night->branch->night, night->head,
	       night->first_night ? "first night (gated against itself)" : "last good night ",
	       night->first_night ? "" : night->baseline);
	fflush(stdout);
	return 0;
}

/* Adds a culprit to the night's line: bisected tonight, or known before. */
static void add_culprit(struct night *night, const char *commit, int64_t bisection_id)
{
	size_t used = strlen(night->culprits);

	if (!commit || !commit[0])
		return;
	snprintf(night->culprits + used, sizeof(night->culprits) - used,
		 "%sculprit %.12s, %s (bisection %" PRId64 ")", used ? "; " : "", commit,
		 bisection_id > night->bisection_before ? "bisected tonight" : "known: not bisected again",
		 bisection_id);
}

/* What the stored gate and its bisections said. */
static void read_outcome(struct nightly_command *command, struct night *night)
{
	struct store *store = command->session.store;
	struct store_gate stored = { 0 };
	struct store_bisection bisection = { 0 };
	int64_t gate_id = gate_review_gate_id(night->review);
	json_t *answer, *regression, *culprit;
	size_t index;

	if (!gate_id || store_gate_get(store, gate_id, &stored) != 0) {
		snprintf(night->trouble, sizeof(night->trouble), "the gate stored nothing");
		store_gate_release(&stored);
		return;
	}
	night->gate_id = stored.id;
	snprintf(night->verdict, sizeof(night->verdict), "%s", stored.verdict ? stored.verdict : "stopped");
	answer = stored.answer ? json_loads(stored.answer, 0, NULL) : NULL;
	json_array_foreach(json_object_get(answer, "regressions"), index, regression) {
		size_t used = strlen(night->regressions);

		snprintf(night->regressions + used, sizeof(night->regressions) - used, "%s%s (%s)",
			 used ? ", " : "", json_string_value(json_object_get(regression, "workload")) ?: "?",
			 json_string_value(json_object_get(regression, "symptom")) ?: "?");
	}
	json_decref(answer);
	/* each culprit the gate's reply named; a gate that stopped before it:
	 * the bisection it stored */
	answer = gate_review_json(night->review);
	json_array_foreach(json_object_get(answer, "culprits"), index, culprit)
		add_culprit(night, json_string_value(json_object_get(culprit, "commit")),
			    json_integer_value(json_object_get(culprit, "bisection")));
	json_decref(answer);
	if (!night->culprits[0] && stored.bisection_id &&
	    store_bisection_get(store, stored.bisection_id, &bisection) == 0 &&
	    bisection.answer && (answer = json_loads(bisection.answer, 0, NULL))) {
		add_culprit(night, json_string_value(json_object_get(answer, "culprit")), stored.bisection_id);
		json_decref(answer);
	}
	store_bisection_release(&bisection);
	store_gate_release(&stored);
}

static void on_night_done(struct gate_review *review, void *data)
{
	struct night *night = data;
	struct nightly_command *command = night->command;

	night->exit_code = gate_review_exit_code(review);
	read_outcome(command, night);
	printf("%sdone: %s\n", night->prefix, night->verdict[0] ? night->verdict : "not run");
	fflush(stdout);
	if (--command->nights_running == 0)
		uv_stop(&command->session.loop);	/* consoles are followed: the loop never runs dry */
}

/* `rackbisect gate JOB --baseline GOOD --candidate HEAD --bisect --night NAME`, on the shared loop. */
static void start_night(struct nightly_command *command, struct night *night)
{
	const struct nightly_branch *branch = night->branch;
	int rc;

	night->command = command;
	snprintf(night->prefix, sizeof(night->prefix), "%s: ", branch->night);
	if (plan(command, night) != 0) {
		night->exit_code = CLI_EXIT_INFRA;
		printf("\n== night of %s: not run: %s\n", branch->night, night->trouble);
		return;
	}
	/* counted first: a gate that cannot start its builds ends inside the call */
	command->nights_running++;
	rc = gate_review_start(&(struct gate_review_options){
		.session = &command->session, .tree = branch->path, .baseline = night->baseline,
		.candidate = night->head, .mainline = branch->mainline,
		.confidence = command->config->confidence, .night = branch->night, .bisect = true,
		.prefix = night->prefix }, on_night_done, night, &night->review);
	if (rc) {
		command->nights_running--;
		night->exit_code = rc;
		snprintf(night->trouble, sizeof(night->trouble), "the gate did not start (exit %d)", rc);
	}
}

/* Ctrl-C: every finished run is stored; tonight's gates are marked aborted. */
static void on_interrupt(uv_signal_t *signal, int number)
{
	struct nightly_command *command = signal->data;
	size_t i;

	for (i = 0; i < command->config->branch_count; i++)
		gate_review_mark_aborted(command->nights[i].review);
	printf("\nstopped; the runs so far are stored (`rackbisect runs`)\n");
	lab_session_exit(&command->session, 128 + number);
}

static void run_nights(struct nightly_command *command)
{
	size_t i;

	for (i = 0; i < command->config->branch_count; i++) {
		command->nights[i].branch = &command->config->branches[i];
		start_night(command, &command->nights[i]);
	}
	if (!command->nights_running)
		return;
	uv_signal_init(&command->session.loop, &command->interrupt);
	command->interrupt.data = command;
	uv_signal_start(&command->interrupt, on_interrupt, SIGINT);
	uv_unref((uv_handle_t *)&command->interrupt);
	uv_run(&command->session.loop, UV_RUN_DEFAULT);
}

static void print_night(const struct night *night)
{
	printf("  %-28s ", night->branch->night);
	if (night->trouble[0] && !night->gate_id) {
		printf("not run: %s\n", night->trouble);
		return;
	}
	printf("%.12s  %-10s", night->head, night->verdict);
	if (night->first_night)
		printf("  first night");
	if (night->regressions[0])
		printf("  %s", night->regressions);
	if (night->culprits[0])
		printf("  %s", night->culprits);
	printf("  (gate %" PRId64 ")\n", night->gate_id);
}

/* 1 if a branch regressed, else 3 if one had trouble, else 0. */
static int summary(const struct nightly_command *command)
{
	bool regression = false, trouble = false;
	size_t i;

	printf("\nnightly: %zu branches, job %s\n", command->config->branch_count, command->job->name);
	for (i = 0; i < command->config->branch_count; i++) {
		print_night(&command->nights[i]);
		regression |= command->nights[i].exit_code == CLI_EXIT_FAIL;
		trouble |= command->nights[i].exit_code != CLI_EXIT_OK &&
			   command->nights[i].exit_code != CLI_EXIT_FAIL;
	}
	return regression ? CLI_EXIT_FAIL : trouble ? CLI_EXIT_INFRA : CLI_EXIT_OK;
}

int cli_nightly(int argc, char **argv)
{
	struct nightly_command command = { 0 };
	size_t i;
	int rc = parse(&command, argc, argv);

	if (rc == 0)
		rc = load(&command);
	if (rc == 0)
		rc = open_session(&command);
	if (rc == 0) {
		run_nights(&command);
		rc = summary(&command);
	}
	if (command.session_open && uv_is_active((uv_handle_t *)&command.interrupt))
		uv_close((uv_handle_t *)&command.interrupt, NULL);
	if (command.session_open)
		lab_session_close(&command.session);
	for (i = 0; command.nights && i < command.config->branch_count; i++)
		gate_review_free(command.nights[i].review);
	free(command.nights);
	job_free(command.job);
	nightly_config_free(command.config);
	return rc < 0 ? 0 : rc;
}
