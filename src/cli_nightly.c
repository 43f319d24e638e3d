/* cli_nightly.c - `rackbisect nightly`: each tracked branch's head against its last good night. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_commands.h"
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
	"failing and it becomes the first good night. Branches run one after the other;\n"
	"each night is stored as a gate (`rackbisect report gate ID`), with its reply in\n"
	"the state directory (gates/ID/reply.txt).\n"
	"Exit: 0 every branch PASS, 1 a REGRESSION, 3 lab trouble or undecided,\n"
	"2 usage (a bad nightly file: file:line:col).\n";

/* What one branch's night came to, for the summary. */
struct night {
	const struct nightly_branch *branch;
	char head[41], baseline[41];
	int exit_code;			/* the gate's */
	char verdict[32];
	char regressions[300];		/* "W2 (auth-timeout), W3 (auth-timeout)" */
	char culprit[41];
	int64_t gate_id, bisection_id;
	bool bisected_tonight, first_night;
	char trouble[300];		/* why it did not run */
};

struct nightly_command {
	struct cli_globals globals;
	const char *path;
	struct nightly_config *config;
	struct job *job;
	struct lab *lab;
	struct lab_state state;
	char database[PATH_MAX];
	struct night *nights;
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
	if (!(command->job = cli_load_job(command->config->job_path)) ||
	    !(command->lab = cli_load_lab(&command->globals)))
		return CLI_EXIT_USAGE;
	if (cli_state(command->lab, &command->globals, &command->state, command->database,
		      sizeof(command->database)))
		return CLI_EXIT_INFRA;
	command->nights = calloc(command->config->branch_count, sizeof(*command->nights));
	return command->nights ? 0 : CLI_EXIT_INFRA;
}

static struct store *open_store(const struct nightly_command *command, struct night *night)
{
	struct store *store = NULL;
	int rc = store_open(command->database, &store);

	if (rc) {
		snprintf(night->trouble, sizeof(night->trouble), "cannot open the state: %s",
			 store ? store_error_message(store) : strerror(-rc));
		store_close(store);
		return NULL;
	}
	return store;
}

/* The ids before tonight's gate: what is newer than them is tonight's. */
struct before {
	int64_t gate, bisection;
};

/* The head, the last good night and the newest gate and bisection before tonight. */
static int plan(const struct nightly_command *command, struct night *night, struct before *before)
{
	char ref[300], *head, *good = NULL;
	struct store_bisection latest = { 0 };
	struct store_gate latest_gate = { 0 };
	struct store *store;
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
	if (!(store = open_store(command, night)))
		return -EIO;
	rc = nightly_last_good(store, command->job->name, night->branch->night, &good, &good_gate);
	night->first_night = rc == -ENOENT;
	snprintf(night->baseline, sizeof(night->baseline), "%s", good ? good : night->head);
	free(good);
	before->bisection = store_bisection_latest(store, &latest) == 0 ? latest.id : 0;
	store_bisection_release(&latest);
	before->gate = store_gate_latest(store, &latest_gate) == 0 ? latest_gate.id : 0;
	store_gate_release(&latest_gate);
	store_close(store);
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

/* `rackbisect gate JOB --baseline GOOD --candidate HEAD --bisect --night NAME ...`, in process. */
static int gate(const struct nightly_command *command, const struct night *night)
{
	const struct nightly_config *config = command->config;
	const struct nightly_branch *branch = night->branch;
	char *argv[32] = { "gate", config->job_path, "--tree", branch->path, "--baseline",
			   (char *)night->baseline, "--candidate", (char *)night->head, "--bisect",
			   "--night", branch->night };
	int argc = 11;

#define ADD_OPTION(name, value) \
	do { if (value) { argv[argc++] = name; argv[argc++] = (char *)(value); } } while (0)
	ADD_OPTION("--mainline", branch->mainline);
	ADD_OPTION("--boards", config->boards);
	ADD_OPTION("--confidence", config->confidence);
	ADD_OPTION("--lab", command->globals.lab_option);
	ADD_OPTION("--state", command->globals.state);
#undef ADD_OPTION
	if (command->globals.verbose)
		argv[argc++] = "-v";
	return cli_gate(argc, argv);
}

/* What the stored gate and its bisection said. */
static void read_outcome(const struct nightly_command *command, struct night *night,
			 const struct before *before)
{
	struct store_gate stored = { 0 };
	struct store_bisection bisection = { 0 };
	struct store *store = open_store(command, night);
	json_t *answer, *regression;
	size_t index;

	if (!store || store_gate_latest(store, &stored) != 0 || stored.id <= before->gate) {
		snprintf(night->trouble, sizeof(night->trouble), "the gate stored nothing");
		store_gate_release(&stored);
		store_close(store);
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
	night->bisection_id = stored.bisection_id;
	night->bisected_tonight = stored.bisection_id > before->bisection;
	if (stored.bisection_id && store_bisection_get(store, stored.bisection_id, &bisection) == 0 &&
	    bisection.answer && (answer = json_loads(bisection.answer, 0, NULL))) {
		snprintf(night->culprit, sizeof(night->culprit), "%s",
			 json_string_value(json_object_get(answer, "culprit")) ?: "");
		json_decref(answer);
	}
	store_bisection_release(&bisection);
	store_gate_release(&stored);
	store_close(store);
}

static void run_night(const struct nightly_command *command, struct night *night)
{
	struct before before = { 0 };

	if (plan(command, night, &before) != 0) {
		night->exit_code = CLI_EXIT_INFRA;
		printf("\n== night of %s: not run: %s\n", night->branch->night, night->trouble);
		return;
	}
	night->exit_code = gate(command, night);
	read_outcome(command, night, &before);
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
	if (night->culprit[0])
		printf("  culprit %.12s, %s (bisection %" PRId64 ")", night->culprit,
		       night->bisected_tonight ? "bisected tonight" : "known: not bisected again",
		       night->bisection_id);
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
	for (i = 0; rc == 0 && i < command.config->branch_count; i++) {
		command.nights[i].branch = &command.config->branches[i];
		run_night(&command, &command.nights[i]);
	}
	if (rc == 0)
		rc = summary(&command);
	free(command.nights);
	lab_free(command.lab);
	job_free(command.job);
	nightly_config_free(command.config);
	return rc < 0 ? 0 : rc;
}
