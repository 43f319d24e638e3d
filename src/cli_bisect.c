/*
 * cli_bisect.c - `rackbisect bisect --repo DIR --good REF... --bad REF --run CMD`:
 * the bisection engine (src/bisect.c) on any test command, with `git bisect
 * run`'s exit codes, k commands at once in worktrees of their own. A drop-in
 * for `git bisect run` when the test is flaky: it says how sure it is.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "bisect.h"
#include "cli.h"
#include "cli_commands.h"
#include "commit_graph.h"
#include "files.h"
#include "path.h"
#include "subprocess.h"

#define MAX_GOODS 64
#define MAX_JOBS 64

static const char bisect_usage[] =
	"usage: rackbisect bisect --repo DIR --good REF [--good REF...] --bad REF --run 'CMD'\n"
	"                         [--jobs K] [--no-checkout] [--confidence C] [--max-runs N]\n"
	"                         [--detect-rate P] [--false-fail-rate E] [--deterministic]\n"
	"                         [--no-confirm]\n"
	"\n"
	"Finds the first bad commit between the good ones and bad by running CMD\n"
	"(through sh -c) at chosen commits, like `git bisect run`, but for a flaky\n"
	"test: a failure is evidence, not proof, and the answer comes with the\n"
	"probability that it is right (stop at --confidence, default 0.99).\n"
	"CMD's exit status: 0 good, 125 skip (cannot be tested), 1-127 bad, 128 or more\n"
	"abort. K commands run at once (--jobs, default 1), each in a worktree of its\n"
	"own checked out at the commit; with --no-checkout they run in DIR untouched,\n"
	"the commit in $RACKBISECT_COMMIT (also $BISECT_HEAD).\n"
	"The test's two error rates are learned from its results: how often it catches\n"
	"a bad commit (--detect-rate P, in (0, 1], to state it) and how often it fails\n"
	"on a good one (--false-fail-rate E, in [0, 1), to state it). --deterministic\n"
	"says it never errs either way (git bisect's assumption: P = 1, E = 0, the ends\n"
	"as given, no confirmation): fewest runs, no repeats.\n"
	"Before naming a commit it confirms it: the commit fails, and its parents (the\n"
	"first good end, for the oldest) pass as often as a bad commit would not at the\n"
	"learned rates, and it holds under each kind of test (deterministic, flaky,\n"
	"noisy) the runs leave plausible; those runs count. --no-confirm skips that\n"
	"(the probability alone decides). The bad end runs first, until it fails; one\n"
	"that never fails ends in \"no regression\".\n"
	"--max-runs defaults to what a test catching one bad run in ten needs here\n"
	"(printed at the start).\n"
	"Exit: 1 a first bad commit found, 0 no regression seen, 3 aborted, the good end\n"
	"fails too, or not sure enough within --max-runs, 2 usage.\n";

struct bisect_job {
	struct bisect_command *command;
	uv_process_t process;
	size_t commit;
	char worktree[PATH_MAX];
	bool running;
};

struct bisect_command {
	struct cli_globals globals;
	const char *repo;
	const char *goods[MAX_GOODS];
	size_t good_count;
	const char *bad;
	const char *run;
	const char *jobs_option;
	const char *confidence_option;
	const char *max_runs_option;
	struct cli_stated_rates stated;
	bool no_checkout;
	bool no_confirm;
	size_t jobs;
	unsigned int max_runs;		/* the budget in force */
	char repo_path[PATH_MAX];
	char work_dir[PATH_MAX];
	struct commit_graph graph;
	struct bisect *bisect;
	uv_loop_t loop;
	struct bisect_job slots[MAX_JOBS];
	size_t running;
	unsigned int round;
	bool aborted;
	char abort_reason[256];
	unsigned int *fails, *passes;	/* by candidate, then the good end */
};

/* ---- options ------------------------------------------------------------------------- */

static int parse(struct bisect_command *command, int argc, char **argv)
{
	const struct cli_option options[] = {
		{ .name = "repo", .value = &command->repo },
		{ .name = "good", .list = command->goods, .list_count = &command->good_count,
		  .list_max = MAX_GOODS },
		{ .name = "bad", .value = &command->bad },
		{ .name = "run", .value = &command->run },
		{ .name = "jobs", .value = &command->jobs_option },
		{ .name = "no-checkout", .flag = &command->no_checkout },
		{ .name = "deterministic", .flag = &command->stated.deterministic },
		{ .name = "confidence", .value = &command->confidence_option },
		{ .name = "max-runs", .value = &command->max_runs_option },
		{ .name = "detect-rate", .value = &command->stated.detect_rate },
		{ .name = "false-fail-rate", .value = &command->stated.false_fail_rate },
		{ .name = "no-confirm", .flag = &command->no_confirm },
		{ .name = NULL },
	};
	size_t count;
	double jobs = 1;
	int rc = cli_parse(argc, argv, options, &command->globals, NULL, 0, &count, bisect_usage);

	if (rc)
		return rc;
	if (!command->repo || !command->bad || !command->good_count || !command->run) {
		fprintf(stderr, "rackbisect: bisect needs --repo, --bad, --good and --run "
			"(or a JOB to bisect on the lab: rackbisect bisect JOB --help)\n%s", bisect_usage);
		return CLI_EXIT_USAGE;
	}
	if ((rc = cli_parse_number(command->jobs_option, 1, MAX_JOBS, "--jobs", &jobs)))
		return rc;
	command->jobs = (size_t)jobs;
	if (!realpath(command->repo, command->repo_path)) {
		cli_error("--repo %s: %s", command->repo, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static int make_bisect(struct bisect_command *command)
{
	struct bisect_options options;
	double max_runs = 0;
	int rc;

	bisect_options_init(&options);
	if ((rc = cli_parse_number(command->confidence_option, 0.5, 0.999999, "--confidence",
			       &options.confidence)) ||
	    (rc = cli_parse_number(command->max_runs_option, 1, 1e6, "--max-runs", &max_runs)) ||
	    (rc = cli_parse_stated_rates(&command->stated, &options.fail_rate_when_bad,
					 &options.fail_rate_when_good)))
		return rc;
	options.max_runs = (unsigned int)max_runs;
	if (command->stated.deterministic)
		bisect_options_deterministic(&options);
	if (command->no_confirm)
		options.confirm = false;
	rc = bisect_new(command->graph.commits, command->graph.count, command->graph.bad_index,
			&options, &command->bisect);
	if (rc) {
		cli_error("cannot start the bisection: %s", strerror(-rc));
		return CLI_EXIT_INFRA;
	}
	command->max_runs = options.max_runs ? options.max_runs
					     : bisect_default_max_runs(command->graph.count,
								       options.confidence);
	return 0;
}

/* ---- worktrees ---------------------------------------------------------------------- */

static int git_in(const char *dir, char *const *tail, size_t tail_count)
{
	char *argv[12] = { "git", "-C", (char *)dir };
	size_t i;

	for (i = 0; i < tail_count && i < 8; i++)
		argv[3 + i] = tail[i];
	return subprocess_run(argv, NULL, NULL);
}

static int prepare_worktrees(struct bisect_command *command)
{
	char template[PATH_MAX];
	size_t i;

	if (command->no_checkout)
		return 0;
	if (path_format(template, sizeof(template), "%s/.rackbisect-bisect-XXXXXX", "/tmp") ||
	    !mkdtemp(template))
		return -errno;
	snprintf(command->work_dir, sizeof(command->work_dir), "%s", template);
	for (i = 0; i < command->jobs; i++) {
		struct bisect_job *slot = &command->slots[i];
		char *tail[] = { "worktree", "add", "--detach", "--quiet", slot->worktree,
				 command->graph.ids[command->graph.bad_index] };

		if (path_format(slot->worktree, sizeof(slot->worktree), "%s/slot-%zu",
				command->work_dir, i) ||
		    git_in(command->repo_path, tail, 6) != 0) {
			cli_error("cannot add a worktree of %s at %s", command->repo_path, slot->worktree);
			return -EIO;
		}
	}
	return 0;
}

static void remove_worktrees(struct bisect_command *command)
{
	size_t i;

	if (!command->work_dir[0])
		return;
	for (i = 0; i < command->jobs; i++) {
		char *tail[] = { "worktree", "remove", "--force", command->slots[i].worktree };

		if (command->slots[i].worktree[0])
			git_in(command->repo_path, tail, 4);
	}
	files_remove_tree(command->work_dir);
	{
		char *prune[] = { "worktree", "prune" };

		git_in(command->repo_path, prune, 2);
	}
}

/* ---- running the test ------------------------------------------------------------------ */

static void start_round(struct bisect_command *command);

static enum bisect_result result_of(int64_t status, int signal_number, bool *abort)
{
	*abort = signal_number != 0 || status >= 128;
	if (status == 0)
		return BISECT_PASS;
	return status == 125 ? BISECT_SKIP : BISECT_FAIL;
}

static void on_job_closed(uv_handle_t *handle)
{
	struct bisect_job *slot = handle->data;
	struct bisect_command *command = slot->command;

	slot->running = false;
	if (--command->running == 0)
		start_round(command);
}

/* The commit a proposal names: a candidate, or the first good end. */
static const char *id_of(const struct bisect_command *command, size_t commit)
{
	return commit == BISECT_GOOD_END ? command->graph.good_id : command->graph.ids[commit];
}

/* Results by commit (the good end last), for the confirmation's summary. */
static void tally(struct bisect_command *command, size_t commit, enum bisect_result result)
{
	size_t at = commit == BISECT_GOOD_END ? command->graph.count : commit;

	command->fails[at] += result == BISECT_FAIL;
	command->passes[at] += result == BISECT_PASS;
}

static void on_job_exit(uv_process_t *process, int64_t status, int signal_number)
{
	struct bisect_job *slot = process->data;
	struct bisect_command *command = slot->command;
	const char *id = id_of(command, slot->commit);
	bool abort = false;
	enum bisect_result result = result_of(status, signal_number, &abort);
	static const char *const names[] = { "good", "bad", "skip" };

	if (abort) {
		command->aborted = true;
		snprintf(command->abort_reason, sizeof(command->abort_reason),
			 "the test at %.12s %s %d: that means abort", id,
			 signal_number ? "was killed by signal" : "exited with", signal_number ? signal_number
			 : (int)status);
	} else {
		if (slot->commit == BISECT_GOOD_END)
			bisect_record_good_end(command->bisect, result);
		else
			bisect_record(command->bisect, slot->commit, result);
		tally(command, slot->commit, result);
		printf("  %.12s: %s (exit %d)%s\n", id, names[result], (int)status,
		       slot->commit == BISECT_GOOD_END ? " (the good end)" : "");
	}
	uv_close((uv_handle_t *)process, on_job_closed);
}

static int checkout(struct bisect_command *command, struct bisect_job *slot)
{
	char *tail[] = { "checkout", "--quiet", "--detach", (char *)id_of(command, slot->commit) };

	return command->no_checkout ? 0 : git_in(slot->worktree, tail, 4);
}

static int start_job(struct bisect_command *command, struct bisect_job *slot, size_t commit)
{
	char commit_env[128], head_env[128];
	char *env_extra[] = { commit_env, head_env, NULL };
	char **environment;
	char *argv[] = { "sh", "-c", (char *)command->run, NULL };
	uv_process_options_t options = { 0 };
	uv_stdio_container_t stdio[3] = {
		{ .flags = UV_IGNORE },
		{ .flags = UV_INHERIT_FD, .data.fd = 2 },	/* the test's chatter is not our output */
		{ .flags = UV_INHERIT_FD, .data.fd = 2 },
	};
	int rc;

	slot->command = command;
	slot->commit = commit;
	if (checkout(command, slot) != 0) {
		cli_error("cannot check out %s in %s", id_of(command, commit), slot->worktree);
		return -EIO;
	}
	snprintf(commit_env, sizeof(commit_env), "RACKBISECT_COMMIT=%s", id_of(command, commit));
	snprintf(head_env, sizeof(head_env), "BISECT_HEAD=%s", id_of(command, commit));
	environment = subprocess_environment(env_extra, NULL);
	options.file = "sh";
	options.args = argv;
	options.env = environment;
	options.cwd = command->no_checkout ? command->repo_path : slot->worktree;
	options.stdio = stdio;
	options.stdio_count = 3;
	options.exit_cb = on_job_exit;
	slot->process.data = slot;
	rc = uv_spawn(&command->loop, &slot->process, &options);
	free(environment);
	if (rc) {
		uv_close((uv_handle_t *)&slot->process, NULL);
		return rc;
	}
	slot->running = true;
	command->running++;
	return 0;
}

static void print_progress(struct bisect_command *command)
{
	struct bisect_status status;

	bisect_status(command->bisect, &status);
	printf("round %u: %zu candidates left, best %.12s at %.4f%s, p estimate %.2f, "
	       "eps estimate %.3f, %u runs\n",
	       command->round, status.candidates_left, command->graph.ids[status.best],
	       status.best_probability, status.confirming ? " (confirming it)" : "",
	       status.fail_rate_estimate, status.fail_rate_when_good_estimate, status.runs);
	fflush(stdout);
}

static void start_round(struct bisect_command *command)
{
	size_t proposals[MAX_JOBS], count = 0, i;
	struct bisect_status status;

	if (command->aborted)
		return;
	bisect_status(command->bisect, &status);
	if (status.state != BISECT_RUNNING)
		return;
	if (bisect_next(command->bisect, command->jobs, proposals, &count) != 0 || count == 0)
		return;
	command->round++;
	print_progress(command);
	for (i = 0; i < count; i++) {
		if (start_job(command, &command->slots[i], proposals[i]) != 0) {
			command->aborted = true;
			snprintf(command->abort_reason, sizeof(command->abort_reason),
				 "cannot start the test command");
			return;
		}
	}
}

/* ---- the answer ---------------------------------------------------------------------- */

static void print_commit(const struct bisect_command *command, size_t index, const char *prefix)
{
	char *description = commit_graph_describe(command->repo_path, command->graph.ids[index]);

	printf("%s%s %s (probability %.4f)\n", prefix, command->graph.ids[index],
	       description ? description : "", bisect_probability(command->bisect, index));
	free(description);
}

/* What confirmed the answer: its own runs and its parents'. */
static void print_confirmation(const struct bisect_command *command, size_t culprit)
{
	const struct bisect_commit *commit = &command->graph.commits[culprit];
	size_t good_end = command->graph.count, i;

	printf("confirmed: it failed %u of %u runs", command->fails[culprit],
	       command->fails[culprit] + command->passes[culprit]);
	for (i = 0; i < commit->parent_count; i++) {
		size_t parent = commit->parents[i];

		printf("; parent %.12s passed %u of %u", command->graph.ids[parent],
		       command->passes[parent], command->passes[parent] + command->fails[parent]);
	}
	if (commit->parent_count == 0)
		printf("; the good end %.12s passed %u of %u", command->graph.good_id,
		       command->passes[good_end], command->passes[good_end] + command->fails[good_end]);
	printf("\n");
}

static int report(struct bisect_command *command)
{
	size_t bad = command->graph.bad_index, good_end = command->graph.count, i;
	struct bisect_status status;

	if (command->aborted) {
		printf("bisection aborted: %s\n", command->abort_reason);
		return CLI_EXIT_INFRA;
	}
	bisect_status(command->bisect, &status);
	printf("%s after %u runs in %u rounds (p estimate %.2f, eps estimate %.3f)\n",
	       bisect_state_name(status.state), status.runs, command->round,
	       status.fail_rate_estimate, status.fail_rate_when_good_estimate);
	switch (status.state) {
	case BISECT_FOUND:
		print_commit(command, status.best, "first bad commit: ");
		print_confirmation(command, status.best);
		return CLI_EXIT_FAIL;
	case BISECT_NO_REGRESSION:
		printf("no regression seen between the good commits and %s at probability %.4f: "
		       "the bad end passed %u of %u runs\n", command->bad,
		       status.no_regression_probability, command->passes[bad],
		       command->passes[bad] + command->fails[bad]);
		return CLI_EXIT_OK;
	case BISECT_GOOD_END_BAD:
		printf("the good end %.12s is bad too (probability %.4f): it failed %u of %u runs; "
		       "the regression is older than the range: bisect from an older good commit\n",
		       command->graph.good_id, status.good_end_bad_probability,
		       command->fails[good_end], command->fails[good_end] + command->passes[good_end]);
		return CLI_EXIT_INFRA;
	case BISECT_ONLY_SKIPPED_LEFT:
		printf("only skipped commits left to test; the first bad commit could be any of:\n");
		for (i = 0; i < status.undecided_count; i++)
			print_commit(command, status.undecided[i], "  ");
		return CLI_EXIT_FAIL;
	default:
		printf("not sure enough within %u runs (--max-runs)\n", command->max_runs);
		print_commit(command, status.best, "best guess: ");
		return CLI_EXIT_INFRA;
	}
}

/* `bisect --repo ... --run CMD` is this file's; a JOB is the lab's. */
static bool runs_a_command(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--repo") == 0 || strncmp(argv[i], "--repo=", 7) == 0 ||
		    strcmp(argv[i], "--run") == 0 || strncmp(argv[i], "--run=", 6) == 0)
			return true;
	}
	return false;
}

int cli_bisect(int argc, char **argv)
{
	struct bisect_command *command;
	char error[1024];
	int rc;

	if (argc > 1 && (strcmp(argv[1], "status") == 0 || strcmp(argv[1], "log") == 0 ||
			 strcmp(argv[1], "resume") == 0))
		return cli_bisect_stored(argc - 1, argv + 1);
	if (!runs_a_command(argc, argv))
		return cli_bisect_lab(argc, argv);
	command = calloc(1, sizeof(*command));
	if (!command)
		return CLI_EXIT_INFRA;
	rc = parse(command, argc, argv);
	if (rc == 0) {
		rc = commit_graph_load(command->repo_path, command->bad, command->goods,
				       command->good_count, &command->graph, error, sizeof(error));
		if (rc) {
			cli_error("%s", error);
			rc = CLI_EXIT_USAGE;
		}
	}
	if (rc == 0) {
		command->fails = calloc(command->graph.count + 1, sizeof(unsigned int));
		command->passes = calloc(command->graph.count + 1, sizeof(unsigned int));
		if (!command->fails || !command->passes)
			rc = CLI_EXIT_INFRA;
	}
	if (rc == 0 && (rc = make_bisect(command)) == 0) {
		printf("bisecting %zu candidates in %s, %zu at a time, at most %u runs\n",
		       command->graph.count, command->repo_path, command->jobs, command->max_runs);
		uv_loop_init(&command->loop);
		if (prepare_worktrees(command) == 0) {
			start_round(command);
			uv_run(&command->loop, UV_RUN_DEFAULT);
			rc = report(command);
		} else {
			rc = CLI_EXIT_INFRA;
		}
		uv_loop_close(&command->loop);
		remove_worktrees(command);
	}
	bisect_free(command->bisect);
	commit_graph_free(&command->graph);
	free(command->fails);
	free(command->passes);
	free(command);
	return rc < 0 ? 0 : rc;
}
