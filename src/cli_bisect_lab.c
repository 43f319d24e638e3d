/*
 * cli_bisect_lab.c - `rackbisect bisect JOB --good REF... --bad REF` on the
 * lab, and `bisect status|log|resume [ID]` on what the state database holds.
 * Parsing and printing only: src/lab_bisect.c drives the lab, src/bisect.c
 * decides.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_commands.h"
#include "commit_graph.h"
#include "lab_bisect.h"
#include "lab_session.h"
#include "path.h"
#include "subprocess.h"

#define MAX_GOODS 64

static const char lab_usage[] =
	"usage: rackbisect bisect JOB --good REF [--good REF...] --bad REF [--symptom NAME]\n"
	"                         [--workload NAME] [--boards SELECTOR] [--confidence C]\n"
	"                         [--max-runs N] [--detect-rate P] [--false-fail-rate E]\n"
	"                         [--deterministic] [--revert-check] [--tree DIR] [--lab LAB]\n"
	"                         [--state DIR] [--json] [-v]\n"
	"       rackbisect bisect status|log|resume [ID] [--lab LAB] [--state DIR]\n"
	"\n"
	"Finds the commit between the good ones and bad that brought a regression the\n"
	"job's workloads show on the lab, even one that shows in some runs only.\n"
	"First the bad end runs on every board: the symptom it shows most (or\n"
	"--symptom), in the workload that shows it most (or --workload), on the\n"
	"boards it showed on, is what is tracked; bad must show it and the good ends\n"
	"must not. Then each round tests one commit per such board (the next likely\n"
	"commits build meanwhile); a FAIL with another symptom is reported, not used.\n"
	"It stops when one commit is the culprit with probability --confidence\n"
	"(default 0.99), confirmed: the culprit failed, its parents passed as often as\n"
	"a bad commit would not at the learned rates, and it holds under each kind of\n"
	"test (deterministic, flaky, noisy) the runs leave plausible; with\n"
	"--revert-check, the culprit reverted on top of bad must pass too. The\n"
	"symptom's rates are learned from the runs: how often it shows on a bad kernel\n"
	"(--detect-rate P to state it) and how often on a good one (--false-fail-rate\n"
	"E); --deterministic states 1 and 0. A good end that fails now and then is\n"
	"evidence of false failures; one that fails as often as bad ends the\n"
	"bisection: the ends bracket nothing.\n"
	"Every run is stored as it starts: `bisect resume` continues after a crash\n"
	"without repeating a finished run; `bisect log` lists the evidence, `bisect\n"
	"status` says where it stands (ID: the latest bisection when left out).\n"
	"Exit: 1 culprit found, 0 no regression, 3 lab trouble or not sure enough\n"
	"within --max-runs, 2 usage.\n";

struct lab_bisect_command {
	struct cli_globals globals;
	const char *job_option;
	const char *goods[MAX_GOODS];
	size_t good_count;
	const char *bad;
	const char *symptom;
	const char *workload;
	const char *boards;
	const char *confidence;
	const char *max_runs;
	struct cli_stated_rates stated;
	bool revert_check;
	int64_t bisection_id;
	json_t *spec;
	struct lab_session session;
	bool session_open;
	struct commit_graph graph;
	struct lab_bisect *bisect;
	uv_signal_t interrupt;
};

/* ---- the question --------------------------------------------------------------------- */

static int parse(struct lab_bisect_command *command, int argc, char **argv)
{
	const struct cli_option options[] = {
		{ .name = "good", .list = command->goods, .list_count = &command->good_count,
		  .list_max = MAX_GOODS },
		{ .name = "bad", .value = &command->bad },
		{ .name = "symptom", .value = &command->symptom },
		{ .name = "workload", .value = &command->workload },
		{ .name = "boards", .value = &command->boards },
		{ .name = "confidence", .value = &command->confidence },
		{ .name = "max-runs", .value = &command->max_runs },
		{ .name = "revert-check", .flag = &command->revert_check },
		{ .name = "detect-rate", .value = &command->stated.detect_rate },
		{ .name = "false-fail-rate", .value = &command->stated.false_fail_rate },
		{ .name = "deterministic", .flag = &command->stated.deterministic },
		{ .name = NULL },
	};
	const char *positional[1];
	size_t count;
	int rc = cli_parse(argc, argv, options, &command->globals, positional, 1, &count, lab_usage);

	if (rc)
		return rc;
	if (count != 1 || !command->bad || !command->good_count) {
		fprintf(stderr, "rackbisect: bisect needs a JOB, --bad REF and --good REF\n%s",
			lab_usage);
		return CLI_EXIT_USAGE;
	}
	command->job_option = positional[0];
	return 0;
}

/* The job must know the symptom and the workload asked for. */
static int check_names(struct lab_bisect_command *command)
{
	const struct job *job = command->session.job;
	bool symptom_known = !command->symptom || strcmp(command->symptom, "hang") == 0;
	bool workload_known = !command->workload;
	size_t i;

	for (i = 0; i < job->symptom_count; i++)
		symptom_known |= command->symptom && strcmp(job->symptoms[i].name, command->symptom) == 0;
	for (i = 0; i < job->workload_count; i++)
		workload_known |= command->workload &&
			strcmp(job->workloads[i].name, command->workload) == 0;
	if (!symptom_known) {
		cli_error("--symptom %s: job %s has no such symptom (see its symptoms: list, or 'hang')",
			  command->symptom, job->path);
		return CLI_EXIT_USAGE;
	}
	if (!workload_known) {
		cli_error("--workload %s: job %s has no such workload", command->workload, job->path);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static int make_spec(struct lab_bisect_command *command)
{
	json_t *spec = json_object(), *goods = json_array(), *refs = json_array();
	char job_path[PATH_MAX];
	size_t i;

	command->spec = spec;
	for (i = 0; i < command->good_count; i++) {
		char *id = cli_commit_id(command->session.tree, command->goods[i]);

		if (!id)
			return CLI_EXIT_USAGE;
		json_array_append_new(goods, json_string(id));
		json_array_append_new(refs, json_string(command->goods[i]));
		free(id);
	}
	if (cli_find_file(command->job_option, job_path, sizeof(job_path)) != 0)
		snprintf(job_path, sizeof(job_path), "%s", command->job_option);
	json_object_set_new(spec, "job", cli_absolute_path_json(job_path));
	json_object_set_new(spec, "lab", cli_absolute_path_json(command->globals.lab_path));
	json_object_set_new(spec, "state", cli_absolute_path_json(command->globals.state));
	json_object_set_new(spec, "tree", json_string(command->session.tree));
	json_object_set_new(spec, "bad", json_string(command->graph.ids[command->graph.bad_index]));
	json_object_set_new(spec, "bad_ref", json_string(command->bad));
	json_object_set_new(spec, "goods", goods);
	json_object_set_new(spec, "good_refs", refs);
	json_object_set_new(spec, "symptom", command->symptom ? json_string(command->symptom) : json_null());
	json_object_set_new(spec, "workload", command->workload ? json_string(command->workload)
			    : json_null());
	json_object_set_new(spec, "board_selector", command->boards ? json_string(command->boards)
			    : json_null());
	json_object_set_new(spec, "boards", json_null());
	json_object_set_new(spec, "revert_check", json_boolean(command->revert_check));
	json_object_set_new(spec, "step", json_string("bad-end"));
	{
		double confidence = 0.99, max_runs = 0, p = -1, epsilon = -1;
		int rc;

		if ((rc = cli_parse_number(command->confidence, 0.5, 0.999999, "--confidence", &confidence)) ||
		    (rc = cli_parse_number(command->max_runs, 1, 1e6, "--max-runs", &max_runs)) ||
		    (rc = cli_parse_stated_rates(&command->stated, &p, &epsilon)))
			return rc;
		json_object_set_new(spec, "confidence", json_real(confidence));
		json_object_set_new(spec, "max_runs", json_integer((json_int_t)max_runs));
		/* the rates the user states; the engine learns the others */
		if (p >= 0)
			json_object_set_new(spec, "detect_rate", json_real(p));
		if (epsilon >= 0)
			json_object_set_new(spec, "false_fail_rate", json_real(epsilon));
		if (command->stated.deterministic)
			json_object_set_new(spec, "deterministic", json_true());
	}
	return 0;
}

static int load_graph(struct lab_bisect_command *command, const char *tree, const char *bad,
		      const char *const *goods, size_t good_count)
{
	char error[1024];

	if (commit_graph_load(tree, bad, goods, good_count, &command->graph, error, sizeof(error))) {
		cli_error("%s", error);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* ---- the answer ------------------------------------------------------------------------ */

static void print_commit(const char *tree, const char *id, const char *prefix)
{
	char *description = commit_graph_describe(tree, id);

	printf("%s%s %s\n", prefix, id, description ? description : "");
	free(description);
}

/* The runs at the culprit and its parents: what a reader checks first. */
static void print_runs_behind(struct lab_bisect_command *command, size_t culprit)
{
	const struct bisect_commit *commit = &command->graph.commits[culprit];
	struct store_run_list list;
	char **roles = NULL;
	size_t i, p;

	if (store_bisection_runs(command->session.store, command->bisection_id, &list, &roles) != 0)
		return;
	printf("  runs behind it:\n");
	for (i = 0; i < list.count; i++) {
		const struct store_run *run = &list.runs[i];
		bool related = strcmp(run->commit, command->graph.ids[culprit]) == 0;
		const char *why;
		enum lab_bisect_evidence evidence = lab_bisect_evidence_of(run, command->spec, &why);

		for (p = 0; p < commit->parent_count; p++)
			related |= strcmp(run->commit, command->graph.ids[commit->parents[p]]) == 0;
		if (!related || evidence == LAB_BISECT_EVIDENCE_IGNORED)
			continue;
		printf("    run %-5" PRId64 " %.12s %-8s %s %s%s%s\n", run->id, run->commit,
		       run->board ? run->board : "-", run->workload, lab_bisect_evidence_name(evidence),
		       strcmp(run->commit, command->graph.ids[culprit]) ? " (parent)" : " (culprit)",
		       roles[i] && strcmp(roles[i], "confirm") == 0 ? ", confirmation" : "");
	}
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);
}

static int report(struct lab_bisect_command *command, const struct lab_bisect_answer *answer,
		  bool aborted)
{
	const char *tree = command->session.tree;
	size_t i;

	if (command->globals.json) {
		json_t *json = lab_bisect_answer_json(command->bisect);

		json_object_set_new(json, "bisection", json_integer(command->bisection_id));
		json_dumpf(json, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(json);
	}
	if (aborted) {
		printf("bisection %" PRId64 " stopped: %s\n(`rackbisect bisect resume %" PRId64
		       "` continues once that is mended)\n", command->bisection_id, answer->reason,
		       command->bisection_id);
		return CLI_EXIT_INFRA;
	}
	printf("%s after %u runs (%u of them evidence) in %u rounds; symptom %s in %s, p estimate %.2f\n",
	       bisect_state_name(answer->state), answer->runs, answer->evidence_runs, answer->rounds,
	       answer->symptom[0] ? answer->symptom : "-", answer->workload[0] ? answer->workload : "-",
	       answer->fail_rate_estimate);
	printf("commits built ahead while boards ran: %u, %u of them tested later; "
	       "%u guesses dropped before they were built\n",
	       answer->built_ahead, answer->built_ahead_used, answer->guesses_dropped);
	switch (answer->state) {
	case BISECT_FOUND:
		print_commit(tree, command->graph.ids[answer->culprit], "first bad commit: ");
		printf("  probability %.4f\n  confirmed: %s\n", answer->probability, answer->confirmation);
		if (answer->revert[0])
			printf("  revert check: %s\n", answer->revert);
		print_runs_behind(command, answer->culprit);
		return CLI_EXIT_FAIL;
	case BISECT_NO_REGRESSION:
		printf("no regression: %s\n", answer->reason);
		return CLI_EXIT_OK;
	case BISECT_ONLY_SKIPPED_LEFT:
		printf("only skipped commits left to test; the first bad commit could be any of:\n");
		for (i = 0; i < answer->undecided_count; i++)
			print_commit(tree, command->graph.ids[answer->undecided[i]], "  ");
		return CLI_EXIT_FAIL;
	default:
		print_commit(tree, command->graph.ids[answer->culprit], "not sure enough; best guess: ");
		printf("  probability %.4f (wanted %.4f): give more --max-runs and resume\n",
		       answer->probability, json_number_value(json_object_get(command->spec, "confidence")));
		return CLI_EXIT_INFRA;
	}
}

/* ---- running it ------------------------------------------------------------------------- */

static void on_progress(const char *line, void *data)
{
	(void)data;
	printf("%s\n", line);
	fflush(stdout);
}

static void on_done(struct lab_bisect *bisect, void *data)
{
	struct lab_bisect_command *command = data;

	(void)bisect;
	/* consoles are still followed: the loop would never run dry */
	uv_stop(&command->session.loop);
}

/* Ctrl-C: every result so far is stored, and each run was linked as it
 * started; stopping is what a crash does, and resume is made for that. */
static void on_interrupt(uv_signal_t *signal, int number)
{
	struct lab_bisect_command *command = signal->data;

	store_bisection_finish(command->session.store, command->bisection_id, STORE_BISECTION_ABORTED,
			       "{\"state\":\"ABORTED\",\"reason\":\"interrupted\"}");
	printf("\nstopped; `rackbisect bisect resume %" PRId64 "` continues\n", command->bisection_id);
	lab_session_exit(&command->session, 128 + number);
}

static int drive(struct lab_bisect_command *command, bool resume)
{
	int rc;

	uv_signal_init(&command->session.loop, &command->interrupt);
	command->interrupt.data = command;
	uv_signal_start(&command->interrupt, on_interrupt, SIGINT);
	uv_unref((uv_handle_t *)&command->interrupt);
	rc = lab_bisect_start(&(struct lab_bisect_options){
		.session = &command->session, .graph = &command->graph, .spec = command->spec,
		.bisection_id = command->bisection_id, .resume = resume,
		.progress = on_progress }, on_done, command, &command->bisect);
	if (rc) {
		cli_error("cannot start the bisection: %s", strerror(-rc));
		return CLI_EXIT_INFRA;
	}
	uv_run(&command->session.loop, UV_RUN_DEFAULT);
	{
		struct store_bisection stored = { 0 };
		bool aborted = store_bisection_get(command->session.store, command->bisection_id,
						   &stored) == 0 && stored.state == STORE_BISECTION_ABORTED;

		if (stored.id)
			store_bisection_release(&stored);
		return report(command, lab_bisect_answer(command->bisect), aborted);
	}
}

static void cleanup(struct lab_bisect_command *command)
{
	if (command->session_open && uv_is_active((uv_handle_t *)&command->interrupt))
		uv_close((uv_handle_t *)&command->interrupt, NULL);
	if (command->session_open || command->session.lab)
		lab_session_close(&command->session);
	lab_bisect_free(command->bisect);
	commit_graph_free(&command->graph);
	json_decref(command->spec);
}

static int open_session(struct lab_bisect_command *command, const char *job_path,
			const char *board_selector)
{
	int rc = lab_session_open(&command->session, &(struct lab_session_options){
		.globals = &command->globals, .job_path = job_path, .board_selector = board_selector });

	command->session_open = true;
	return rc;
}

int cli_bisect_lab(int argc, char **argv)
{
	struct lab_bisect_command *command = calloc(1, sizeof(*command));
	char *text = NULL;
	int rc;

	if (!command)
		return CLI_EXIT_INFRA;
	rc = parse(command, argc, argv);
	if (rc == 0)
		rc = open_session(command, command->job_option, command->boards);
	if (rc == 0)
		rc = check_names(command);
	if (rc == 0)
		rc = load_graph(command, command->session.tree, command->bad, command->goods,
				command->good_count);
	if (rc == 0)
		rc = make_spec(command);
	if (rc == 0 && (!(text = json_dumps(command->spec, JSON_COMPACT | JSON_SORT_KEYS)) ||
			store_bisection_create(command->session.store, command->session.job->name, text,
					       &command->bisection_id) != 0)) {
		cli_error("cannot store the bisection: %s", store_error_message(command->session.store));
		rc = CLI_EXIT_INFRA;
	}
	free(text);
	if (rc == 0) {
		printf("bisection %" PRId64 ": %zu candidates between %s and %s in %s\n",
		       command->bisection_id, command->graph.count, command->goods[0], command->bad,
		       command->session.tree);
		rc = drive(command, false);
	}
	cleanup(command);
	free(command);
	return rc < 0 ? 0 : rc;
}

/* ---- status, log, resume -------------------------------------------------------------------- */

static const char stored_usage[] =
	"usage: rackbisect bisect status|log|resume [ID] [--lab LAB] [--state DIR] [--json]\n"
	"\n"
	"status: where a bisection stands (candidates left, best commit, runs);\n"
	"log:    every run it made, and how each counted as evidence;\n"
	"resume: continue one that stopped (crash, Ctrl-C, lab trouble), replaying\n"
	"        its finished runs; none is repeated; --json prints its answer as JSON.\n"
	"ID is a bisection number; left out, the latest.\n";

/* The bisection asked for, read from the state the lab (--lab) uses. */
static int load_stored(struct lab_bisect_command *command, int argc, char **argv,
		       struct store_bisection *stored)
{
	const char *positional[1];
	size_t count;
	int rc = cli_parse(argc, argv, NULL, &command->globals, positional, 1, &count, stored_usage);
	char database[PATH_MAX];
	json_error_t error;

	if (rc || (rc = cli_open_state_store(&command->globals, &command->session.store, database,
					     sizeof(database))))
		return rc;
	rc = count ? store_bisection_get(command->session.store, strtoll(positional[0], NULL, 10), stored)
		: store_bisection_latest(command->session.store, stored);
	if (rc) {
		cli_error("no bisection %s in %s", count ? positional[0] : "at all", database);
		return CLI_EXIT_USAGE;
	}
	command->bisection_id = stored->id;
	command->spec = json_loads(stored->spec, 0, &error);
	if (!command->spec) {
		cli_error("bisection %" PRId64 ": its stored question is damaged (%s)", stored->id,
			  error.text);
		return CLI_EXIT_INFRA;
	}
	return 0;
}

static int stored_graph(struct lab_bisect_command *command)
{
	json_t *goods = json_object_get(command->spec, "goods");
	const char *ids[MAX_GOODS];
	size_t i, count = json_array_size(goods) < MAX_GOODS ? json_array_size(goods) : MAX_GOODS;

	for (i = 0; i < count; i++)
		ids[i] = json_string_value(json_array_get(goods, i));
	return load_graph(command, json_string_value(json_object_get(command->spec, "tree")),
			  json_string_value(json_object_get(command->spec, "bad")), ids, count);
}

static const char *spec_text(const json_t *spec, const char *key)
{
	const char *text = json_string_value(json_object_get(spec, key));

	return text ? text : "-";
}

static const char *state_word(enum store_bisection_state state)
{
	return state == STORE_BISECTION_DONE ? "done" : state == STORE_BISECTION_ABORTED ? "stopped"
		: "running (or its coordinator died)";
}

static int show_status(struct lab_bisect_command *command, const struct store_bisection *stored)
{
	struct bisect *engine = NULL;
	struct bisect_status status;
	const char *tree = spec_text(command->spec, "tree");

	printf("bisection %" PRId64 " (job %s): %s\n  bad %s, good %s, symptom %s in %s, step %s\n",
	       stored->id, stored->job, state_word(stored->state), spec_text(command->spec, "bad_ref"),
	       json_string_value(json_array_get(json_object_get(command->spec, "good_refs"), 0)),
	       spec_text(command->spec, "symptom"), spec_text(command->spec, "workload"),
	       spec_text(command->spec, "step"));
	if (lab_bisect_replay(command->session.store, stored->id, command->spec, &command->graph,
			      &engine) != 0) {
		cli_error("cannot replay the bisection's runs");
		bisect_free(engine);
		return CLI_EXIT_INFRA;
	}
	bisect_status(engine, &status);
	printf("  %zu of %zu candidates left, best %.12s at %.4f, %u results recorded, p estimate %.2f\n",
	       status.candidates_left, command->graph.count, command->graph.ids[status.best],
	       status.best_probability, status.runs, status.fail_rate_estimate);
	print_commit(tree, command->graph.ids[status.best], "  best: ");
	if (stored->answer)
		printf("  answer: %s\n", stored->answer);
	bisect_free(engine);
	return CLI_EXIT_OK;
}

static int show_log(struct lab_bisect_command *command, const struct store_bisection *stored)
{
	struct store_run_list list;
	char **roles = NULL;
	size_t i, s;

	if (store_bisection_runs(command->session.store, stored->id, &list, &roles) != 0) {
		cli_error("%s", store_error_message(command->session.store));
		return CLI_EXIT_INFRA;
	}
	printf("bisection %" PRId64 ": %zu runs, tracking %s in %s\n", stored->id, list.count,
	       spec_text(command->spec, "symptom"), spec_text(command->spec, "workload"));
	printf("%6s  %-9s %-12s %-8s %-4s %-6s %-8s %s\n", "run", "role", "commit", "board", "wl",
	       "result", "evidence", "symptoms / why not evidence");
	for (i = 0; i < list.count; i++) {
		const struct store_run *run = &list.runs[i];
		static const char *const outcomes[] = { "-", "PASS", "FAIL", "INFRA", "SKIP" };
		const char *why;
		enum lab_bisect_evidence evidence = lab_bisect_evidence_of(run, command->spec, &why);

		printf("%6" PRId64 "  %-9s %.12s %-8s %-4s %-6s %-8s ", run->id, roles[i], run->commit,
		       run->board ? run->board : "-", run->workload, outcomes[run->outcome],
		       lab_bisect_evidence_name(evidence));
		for (s = 0; s < run->symptom_count; s++)
			printf("%s%s", s ? "," : "", run->symptoms[s].name);
		printf("%s%s\n", run->symptom_count && why[0] ? "; " : "", why);
	}
	store_bisection_roles_free(roles, list.count);
	store_run_list_release(&list);
	return CLI_EXIT_OK;
}

static int resume(struct lab_bisect_command *command, struct store_bisection *stored)
{
	json_t *spec = command->spec;
	int rc;

	if (stored->state == STORE_BISECTION_DONE) {
		json_t *answer = json_loads(stored->answer ? stored->answer : "{}", 0, NULL);
		const char *state = json_string_value(json_object_get(answer, "state"));

		printf("bisection %" PRId64 " is done: %s\n", stored->id, stored->answer);
		rc = !state ? CLI_EXIT_INFRA : strcmp(state, "no regression") == 0 ? CLI_EXIT_OK
			: strcmp(state, "found") == 0 || strcmp(state, "only skipped commits left") == 0
			? CLI_EXIT_FAIL : CLI_EXIT_INFRA;
		json_decref(answer);
		return rc;
	}
	/* the question's own lab, state and tree, whatever this shell's options say */
	command->globals.lab_option = json_string_value(json_object_get(spec, "lab"));
	command->globals.state = json_string_value(json_object_get(spec, "state"));
	command->globals.tree = json_string_value(json_object_get(spec, "tree"));
	store_close(command->session.store);
	command->session.store = NULL;
	if ((rc = open_session(command, json_string_value(json_object_get(spec, "job")),
			       json_string_value(json_object_get(spec, "board_selector")))))
		return rc;
	if (stored->state == STORE_BISECTION_ABORTED &&
	    store_bisection_reopen(command->session.store, stored->id) != 0) {
		cli_error("%s", store_error_message(command->session.store));
		return CLI_EXIT_INFRA;
	}
	printf("resuming bisection %" PRId64 ": %zu candidates, step %s\n", stored->id,
	       command->graph.count, spec_text(spec, "step"));
	return drive(command, true);
}

int cli_bisect_stored(int argc, char **argv)
{
	struct lab_bisect_command *command = calloc(1, sizeof(*command));
	struct store_bisection stored = { 0 };
	int rc;

	if (!command)
		return CLI_EXIT_INFRA;
	rc = load_stored(command, argc, argv, &stored);
	if (rc == 0)
		rc = stored_graph(command);
	if (rc == 0 && strcmp(argv[0], "status") == 0)
		rc = show_status(command, &stored);
	else if (rc == 0 && strcmp(argv[0], "log") == 0)
		rc = show_log(command, &stored);
	else if (rc == 0)
		rc = resume(command, &stored);
	if (stored.id)
		store_bisection_release(&stored);
	if (!command->session_open)
		store_close(command->session.store);
	command->session.store = command->session_open ? command->session.store : NULL;
	cleanup(command);
	free(command);
	return rc < 0 ? 0 : rc;
}
