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
#include "commit_graph.h"
#include "files.h"
#include "gate.h"
#include "lab_bisect.h"
#include "lab_session.h"
#include "report_stable.h"
#include "stable_queue.h"
#include "subprocess.h"

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
	char *baseline_id, *candidate_id;
	json_t *spec;
	int64_t gate_id;
	struct lab_session session;
	bool session_open;
	struct gate *gate;
	/* the bisection of a regression */
	struct commit_graph graph;
	json_t *bisect_spec;
	int64_t bisection_id;
	struct lab_bisect *lab_bisect;
	/* what the bisection (live or stored) said */
	char culprit[41];
	double culprit_probability;
	unsigned int culprit_runs;
	char bisect_note[600];
	bool reused;
	/* what the reply says of the queue */
	struct stable_queue queue;
	struct mainline_status mainline_status;
	bool have_mainline_status;
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

static int make_spec(struct gate_command *command)
{
	const char *tree = command->session.tree;
	double confidence = 0.99;
	int rc;

	command->baseline_id = cli_commit_id(tree, command->baseline);
	command->candidate_id = command->baseline_id ? cli_commit_id(tree, command->candidate) : NULL;
	if (!command->candidate_id)
		return CLI_EXIT_USAGE;
	if (command->mainline) {
		char *mainline_id = cli_commit_id(tree, command->mainline);

		if (!mainline_id)
			return CLI_EXIT_USAGE;
		free(mainline_id);
	}
	if ((rc = cli_parse_number(command->confidence, 0.5, 0.999999, "--confidence", &confidence)))
		return rc;
	command->spec = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s?,s:b,s:b,s:f,s:s?}",
				  "job", command->session.job->path, "tree", tree,
				  "baseline", command->baseline_id, "candidate", command->candidate_id,
				  "baseline_ref", command->baseline, "candidate_ref", command->candidate,
				  "mainline_ref", command->mainline, "bisect", command->bisect,
				  "released", command->released, "confidence", confidence,
				  "night", command->night);
	return command->spec ? 0 : CLI_EXIT_INFRA;
}

/* ---- running it on the loop ------------------------------------------------------------------ */

static void on_progress(const char *line, void *data)
{
	printf("%s%s\n", (const char *)data, line);
	fflush(stdout);
}

static void on_gate_done(struct gate *gate, void *data)
{
	struct gate_command *command = data;

	(void)gate;
	uv_stop(&command->session.loop);	/* consoles are followed: the loop never runs dry */
}

/* Ctrl-C: every finished run is stored and linked; the gate (and its
 * bisection, if one runs) is marked aborted rather than left "running". */
static void on_interrupt(uv_signal_t *signal, int number)
{
	struct gate_command *command = signal->data;
	const char *answer = "{\"reason\":\"interrupted\"}";

	store_gate_finish(command->session.store, command->gate_id, STORE_GATE_ABORTED, NULL, answer);
	if (command->bisection_id)
		store_bisection_finish(command->session.store, command->bisection_id,
				       STORE_BISECTION_ABORTED, answer);
	printf("\nstopped; the runs so far are stored (`rackbisect runs`)\n");
	fflush(NULL);
	_exit(128 + number);
}

static int run_gate(struct gate_command *command)
{
	char *text = json_dumps(command->spec, JSON_COMPACT | JSON_SORT_KEYS);
	int rc;

	if (!text || store_gate_create(command->session.store, command->session.job->name, text,
				       &command->gate_id) != 0) {
		free(text);
		cli_error("cannot store the gate: %s", store_error_message(command->session.store));
		return CLI_EXIT_INFRA;
	}
	free(text);
	uv_signal_init(&command->session.loop, &command->interrupt);
	command->interrupt.data = command;
	uv_signal_start(&command->interrupt, on_interrupt, SIGINT);
	uv_unref((uv_handle_t *)&command->interrupt);
	printf("gate %" PRId64 ": %s against %s, job %s, %zu boards\n", command->gate_id,
	       command->candidate, command->baseline, command->session.job->name,
	       command->session.selected_count);
	rc = gate_start(&(struct gate_options){
		.session = &command->session, .spec = command->spec, .gate_id = command->gate_id,
		.progress = on_progress, .progress_data = "" }, on_gate_done, command, &command->gate);
	if (rc) {
		cli_error("cannot start the gate: %s", strerror(-rc));
		return CLI_EXIT_INFRA;
	}
	uv_run(&command->session.loop, UV_RUN_DEFAULT);
	return 0;
}

/* The regression to bisect: a confirmed one, on the most boards. */
static const struct gate_regression *regression_to_bisect(const struct gate_answer *answer)
{
	const struct gate_regression *best = NULL;
	size_t i;

	for (i = 0; i < answer->regression_count; i++) {
		const struct gate_regression *regression = &answer->regressions[i];

		if (regression->confirmed && (!best || regression->candidate_fails > best->candidate_fails))
			best = regression;
	}
	return best;
}

static json_t *board_array(const char *boards)
{
	json_t *array = json_array();
	char copy[512], *name, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", boards);
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save))
		json_array_append_new(array, json_string(name));
	return array;
}

/* name is one of the comma-separated names in list */
static bool listed(const char *list, const char *name)
{
	char padded[520], needle[80];

	snprintf(padded, sizeof(padded), ",%s,", list);
	snprintf(needle, sizeof(needle), ",%s,", name);
	return strstr(padded, needle) != NULL;
}

/* The gate's runs of the regression become the bisection's ends: the
 * bisection starts at its rounds, its ends already checked. */
static int link_gate_runs(struct gate_command *command, const struct gate_regression *regression)
{
	struct store *store = command->session.store;
	struct store_run_list list;
	char **roles = NULL;
	size_t i;
	int rc;

	if ((rc = store_gate_runs(store, command->gate_id, &list, &roles)) != 0)
		return rc;
	for (i = 0; i < list.count && rc == 0; i++) {
		const struct store_run *run = &list.runs[i];

		if (!run->board || strcmp(run->workload, regression->workload) ||
		    !listed(regression->boards, run->board))
			continue;
		rc = store_bisection_add_run(store, command->bisection_id, run->id,
					     strcmp(roles[i], "baseline") == 0 ? "good-end" : "bad-end");
	}
	store_gate_roles_free(roles, list.count);
	store_run_list_release(&list);
	return rc;
}

static void on_bisect_done(struct lab_bisect *bisect, void *data)
{
	struct gate_command *command = data;

	(void)bisect;
	uv_stop(&command->session.loop);
}

static bool same_text(const json_t *object, const char *key, const char *text)
{
	const char *value = json_string_value(json_object_get(object, key));

	return value && text && strcmp(value, text) == 0;
}

/* Takes a bisection's answer (JSON, as lab_bisect_answer_json gives it). */
static void take_answer(struct gate_command *command, const json_t *answer)
{
	const char *culprit = json_string_value(json_object_get(answer, "culprit"));

	if (same_text(answer, "state", bisect_state_name(BISECT_FOUND)) && culprit) {
		snprintf(command->culprit, sizeof(command->culprit), "%s", culprit);
		command->culprit_probability = json_number_value(json_object_get(answer, "probability"));
		command->culprit_runs = (unsigned int)json_integer_value(json_object_get(answer, "runs"));
	} else {
		const char *reason = json_string_value(json_object_get(answer, "reason"));

		snprintf(command->bisect_note, sizeof(command->bisect_note), "the bisection ended %s "
			 "without a culprit%s%s (see `rackbisect bisect log`)",
			 json_string_value(json_object_get(answer, "state")) ?: "?",
			 reason && reason[0] ? ": " : "", reason ? reason : "");
	}
}

/* `git merge-base --is-ancestor`: ancestor is descendant or one of its ancestors. */
static bool is_ancestor(const char *tree, const char *ancestor, const char *descendant)
{
	char *argv[] = { "git", "-C", (char *)tree, "merge-base", "--is-ancestor", (char *)ancestor,
			 (char *)descendant, NULL };

	return subprocess_run(argv, NULL, NULL) == 0;
}

static bool only_good_is(const json_t *spec, const char *id)
{
	const json_t *goods = json_object_get(spec, "goods");
	const char *good = json_string_value(json_array_get(goods, 0));

	return json_array_size(goods) == 1 && good && strcmp(good, id) == 0;
}

/*
 * A stored bisection answers this regression when it found a culprit for the
 * same workload from the same good end, tracking a symptom this regression
 * shows (its most frequent one can differ from night to night when two
 * symptoms come together, as auth-timeout and txdma-stop-fail do), and its
 * bad end is this candidate or its culprit is in this candidate too (a later
 * night of the same branch, an -rc2 of the same queue): the same regression.
 */
static bool answers_regression(struct gate_command *command, const struct store_bisection *stored,
			       const json_t *spec, const json_t *answer,
			       const struct gate_regression *regression)
{
	const char *culprit = json_string_value(json_object_get(answer, "culprit"));
	const char *symptom = json_string_value(json_object_get(spec, "symptom"));

	if (stored->state != STORE_BISECTION_DONE || !spec || !answer || !culprit || !symptom ||
	    !same_text(answer, "state", bisect_state_name(BISECT_FOUND)) ||
	    !only_good_is(spec, command->baseline_id) ||
	    !(strcmp(symptom, regression->symptom) == 0 || listed(regression->symptoms, symptom)) ||
	    !same_text(spec, "workload", regression->workload))
		return false;
	return same_text(spec, "bad", command->candidate_id) ||
	       is_ancestor(command->session.tree, culprit, command->candidate_id);
}

/* A regression bisected before is not bisected again: its stored answer is the answer. */
static bool reuse_bisection(struct gate_command *command, const struct gate_regression *regression)
{
	struct store_bisection stored = { 0 };
	int64_t id;
	bool found = false;

	if (store_bisection_latest(command->session.store, &stored) != 0)
		return false;
	for (id = stored.id; id > 0 && !found; id--) {
		json_t *spec, *answer;

		store_bisection_release(&stored);
		if (store_bisection_get(command->session.store, id, &stored) != 0)
			continue;
		spec = json_loads(stored.spec, 0, NULL);
		answer = stored.answer ? json_loads(stored.answer, 0, NULL) : NULL;
		found = answers_regression(command, &stored, spec, answer, regression);
		if (found) {
			take_answer(command, answer);
			command->bisection_id = id;
			command->reused = true;
			printf("%s (%s) was bisected before: bisection %" PRId64 " named %.12s, which "
			       "this candidate holds; not bisected again\n", regression->workload,
			       json_string_value(json_object_get(spec, "symptom")), id, command->culprit);
		}
		json_decref(spec);
		json_decref(answer);
	}
	store_bisection_release(&stored);
	return found;
}

static int start_bisection(struct gate_command *command, const struct gate_regression *regression)
{
	const char *goods[] = { command->baseline_id };
	char error[1024], *text;
	int rc;

	if (commit_graph_load(command->session.tree, command->candidate_id, goods, 1, &command->graph,
			      error, sizeof(error)) != 0) {
		cli_error("%s", error);
		return CLI_EXIT_INFRA;
	}
	command->bisect_spec = json_pack("{s:s,s:s,s:s,s:s,s:[s],s:[s],s:s,s:s,s:o,s:b,s:s,s:O,s:i}",
		"job", command->session.job->path, "tree", command->session.tree,
		"bad", command->candidate_id, "bad_ref", command->candidate,
		"goods", command->baseline_id, "good_refs", command->baseline,
		"symptom", regression->symptom, "workload", regression->workload,
		"boards", board_array(regression->boards), "revert_check", false, "step", "bisect",
		"confidence", json_object_get(command->spec, "confidence"), "max_runs", 0);
	text = command->bisect_spec ? json_dumps(command->bisect_spec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	rc = text ? store_bisection_create(command->session.store, command->session.job->name, text,
					   &command->bisection_id) : -ENOMEM;
	free(text);
	if (rc == 0)
		rc = store_gate_set_bisection(command->session.store, command->gate_id, command->bisection_id);
	if (rc == 0)
		rc = link_gate_runs(command, regression);
	if (rc) {
		cli_error("cannot store the bisection: %s", store_error_message(command->session.store));
		return CLI_EXIT_INFRA;
	}
	printf("bisection %" PRId64 ": %s (%s) in the queue, %zu commits, the gate's runs as its ends\n",
	       command->bisection_id, regression->workload, regression->symptom, command->graph.count);
	rc = lab_bisect_start(&(struct lab_bisect_options){
		.session = &command->session, .graph = &command->graph, .spec = command->bisect_spec,
		.bisection_id = command->bisection_id, .resume = true,
		.progress = on_progress, .progress_data = "bisect: " }, on_bisect_done, command,
		&command->lab_bisect);
	if (rc) {
		cli_error("cannot start the bisection: %s", strerror(-rc));
		return CLI_EXIT_INFRA;
	}
	uv_run(&command->session.loop, UV_RUN_DEFAULT);
	{
		json_t *answer = lab_bisect_answer_json(command->lab_bisect);

		take_answer(command, answer);
		json_decref(answer);
	}
	return 0;
}

/* A regression bisected before, any of the confirmed ones, is answered by
 * that bisection (which regression has the most failures can change from
 * one gate to the next); otherwise the one with the most is bisected. */
static int bisect_regressions(struct gate_command *command)
{
	const struct gate_answer *answer = gate_answer(command->gate);
	const struct gate_regression *regression;
	size_t i;

	for (i = 0; i < answer->regression_count; i++) {
		regression = &answer->regressions[i];
		if (regression->confirmed && reuse_bisection(command, regression)) {
			store_gate_set_bisection(command->session.store, command->gate_id,
						 command->bisection_id);
			return 0;
		}
	}
	regression = regression_to_bisect(answer);
	return regression ? start_bisection(command, regression) : 0;
}

/* ---- the reply ---------------------------------------------------------------------------------- */

static char *git_output(const char *tree, const char *const *words)
{
	char *argv[16] = { "git", "-C", (char *)tree };
	char *output = NULL;
	size_t i;

	for (i = 0; words[i] && i < 12; i++)
		argv[3 + i] = (char *)words[i];
	if (subprocess_run(argv, NULL, &output) != 0) {
		free(output);
		return NULL;
	}
	output[strcspn(output, "\n")] = '\0';
	return output;
}

static char *tested_by(const struct gate_command *command)
{
	char *name = git_output(command->session.tree, (const char *[]){ "config", "user.name", NULL });
	char *email = git_output(command->session.tree, (const char *[]){ "config", "user.email", NULL });
	char *line = NULL;

	if (name && email && name[0] && email[0]) {
		if (asprintf(&line, "%s <%s>", name, email) < 0)
			line = NULL;
	} else if (asprintf(&line, "rackbisect (lab %s) <rackbisect@localhost>", command->session.lab->name) < 0) {
		line = NULL;
	}
	free(name);
	free(email);
	return line;
}

/* The kernel log lines behind each regression's symptom, from its example run. */
static char **excerpts_of(struct gate_command *command, const struct gate_answer *answer)
{
	char **excerpts = calloc(answer->regression_count + 1, sizeof(*excerpts));
	size_t r, s;

	for (r = 0; excerpts && r < answer->regression_count; r++) {
		struct store_run run;

		if (!answer->regressions[r].example_run ||
		    store_run_get(command->session.store, answer->regressions[r].example_run, &run) != 0)
			continue;
		for (s = 0; s < run.symptom_count && !excerpts[r]; s++) {
			if (run.symptoms[s].evidence && run.symptoms[s].evidence[0])
				excerpts[r] = strdup(run.symptoms[s].evidence);
		}
		store_run_release(&run);
	}
	return excerpts;
}

static void culprit_of(struct gate_command *command, struct report_stable_culprit *culprit,
		       char *advice, size_t advice_size, const char **note)
{
	const struct stable_patch *patch;
	char error[512];

	*note = command->bisect ? "not bisected (no confirmed regression)" : "not bisected (give --bisect)";
	if (command->bisect_note[0])
		*note = command->bisect_note;
	if (!command->culprit[0])
		return;
	patch = stable_queue_find(&command->queue, command->culprit);
	if (!patch) {
		snprintf(command->bisect_note, sizeof(command->bisect_note), "%.12s, which is not a "
			 "queued patch (a merge?)", command->culprit);
		*note = command->bisect_note;
		return;
	}
	if (command->mainline && patch->upstream[0] &&
	    stable_mainline_status(command->session.tree, command->mainline, patch->upstream,
				   &command->mainline_status, error, sizeof(error)) == 0)
		command->have_mainline_status = true;
	stable_advice(patch, command->have_mainline_status ? &command->mainline_status : NULL,
		      command->mainline, command->released, advice, advice_size);
	*culprit = (struct report_stable_culprit){
		.patch = patch, .probability = command->culprit_probability, .runs = command->culprit_runs,
		.mainline = command->have_mainline_status ? &command->mainline_status : NULL,
		.advice = advice, .bisection = command->bisection_id, .reused = command->reused };
}

static int write_reply_file(struct gate_command *command, const char *text, char *path, size_t size)
{
	char directory[PATH_MAX - 16];

	if (command->reply_path) {
		snprintf(path, size, "%s", command->reply_path);
	} else {
		snprintf(directory, sizeof(directory), "%s/gates", command->session.state.dir);
		mkdir(directory, 0700);
		snprintf(directory, sizeof(directory), "%s/gates/%" PRId64, command->session.state.dir,
			 command->gate_id);
		mkdir(directory, 0700);
		if ((size_t)snprintf(path, size, "%s/reply.txt", directory) >= size)
			return -ENAMETOOLONG;
	}
	return files_write_atomic(path, text);
}

static int reply(struct gate_command *command)
{
	const struct gate_answer *answer = gate_answer(command->gate);
	struct report_stable_culprit culprit;
	struct report_stable report;
	char advice[2048], error[512], path[PATH_MAX], **excerpts = excerpts_of(command, answer);
	char *describe = git_output(command->session.tree, (const char *[]){
		"describe", "--tags", "--always", command->candidate_id, NULL });
	char *tester = tested_by(command), *text = NULL;
	size_t *astray = NULL, astray_count = 0, length = 0, i;
	bool have_queue = stable_queue_load(command->session.tree, command->baseline_id, command->candidate_id,
					    command->mainline, &command->queue, error, sizeof(error)) == 0;
	FILE *out;

	if (have_queue)
		astray_count = stable_queue_audit(&command->queue, &astray);
	report = (struct report_stable){
		.lab = command->session.lab->name, .job = command->session.job->name,
		.candidate_ref = command->candidate, .candidate_id = command->candidate_id,
		.candidate_describe = describe ? describe : command->candidate,
		.baseline_ref = command->baseline, .baseline_id = command->baseline_id,
		.mainline_ref = command->mainline, .gate = answer,
		.excerpts = (const char *const *)excerpts, .queue = have_queue ? &command->queue : NULL,
		.astray = astray, .astray_count = astray_count,
		.tested_by = tester ? tester : "rackbisect" };
	memset(&culprit, 0, sizeof(culprit));
	if (answer->verdict == GATE_REGRESSION && have_queue) {
		culprit_of(command, &culprit, advice, sizeof(advice), &report.bisect_note);
		report.culprit = culprit.patch ? &culprit : NULL;
	}
	out = open_memstream(&text, &length);
	if (out) {
		report_stable_write(out, &report);
		fclose(out);
	}
	printf("\n%s", text ? text : "");
	if (text && write_reply_file(command, text, path, sizeof(path)) == 0)
		printf("\nreply written to %s\n", path);
	else
		cli_error("cannot write the reply: %s", strerror(errno));
	for (i = 0; excerpts && i < answer->regression_count; i++)
		free(excerpts[i]);
	free(excerpts);
	free(astray);
	free(describe);
	free(tester);
	free(text);
	return 0;
}

/* ---- the command ------------------------------------------------------------------------------ */

static void print_json(struct gate_command *command)
{
	json_t *json = gate_answer_json(command->gate);

	json_object_set_new(json, "gate", json_integer(command->gate_id));
	if (command->lab_bisect) {
		json_object_set_new(json, "bisection", json_integer(command->bisection_id));
		json_object_set_new(json, "bisect", lab_bisect_answer_json(command->lab_bisect));
	}
	json_dumpf(json, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(json);
}

static int exit_code(const struct gate_answer *answer)
{
	switch (answer->verdict) {
	case GATE_PASS:
		return CLI_EXIT_OK;
	case GATE_REGRESSION:
		return CLI_EXIT_FAIL;
	default:
		return CLI_EXIT_INFRA;
	}
}

static void cleanup(struct gate_command *command)
{
	if (command->session_open && uv_is_active((uv_handle_t *)&command->interrupt))
		uv_close((uv_handle_t *)&command->interrupt, NULL);
	if (command->session_open)
		lab_session_close(&command->session);
	gate_free(command->gate);
	lab_bisect_free(command->lab_bisect);
	commit_graph_free(&command->graph);
	stable_queue_free(&command->queue);
	if (command->have_mainline_status)
		stable_mainline_status_free(&command->mainline_status);
	json_decref(command->spec);
	json_decref(command->bisect_spec);
	free(command->baseline_id);
	free(command->candidate_id);
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
		rc = make_spec(command);
	if (rc == 0)
		rc = run_gate(command);
	if (rc == 0 && command->bisect)
		rc = bisect_regressions(command);
	if (rc == 0) {
		reply(command);
		if (command->globals.json)
			print_json(command);
		rc = exit_code(gate_answer(command->gate));
	}
	cleanup(command);
	free(command);
	return rc < 0 ? 0 : rc;
}
