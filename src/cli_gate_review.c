/* cli_gate_review.c - a gate, the bisections of its regressions and the stable-review reply. */
#include "cli_gate_review.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commit_graph.h"
#include "files.h"
#include "gate.h"
#include "lab_bisect.h"
#include "path.h"
#include "report_stable.h"
#include "stable_queue.h"
#include "subprocess.h"

/* bisect_regressions: nothing runs, the answer is known */
#define NOTHING_TO_BISECT (-1)

/* A culprit and the confirmed regressions it answers. */
struct review_culprit {
	char commit[41];
	double probability;
	unsigned int runs;
	int64_t bisection_id;
	bool reused;			/* bisected before this gate */
	char regressions[256];		/* "W3 (auth-timeout), W2 (auth-timeout)" */
};

struct gate_review {
	struct lab_session *session;
	gate_review_done_cb done;
	void *data;
	int exit_code;
	bool replied;			/* it got as far as the reply */
	/* the options, copied */
	char *tree, *baseline, *candidate, *mainline, *confidence, *night, *reply_path, *prefix;
	char *bisect_prefix;		/* prefix + "bisect: " */
	bool bisect, released;
	/* the gate */
	char *baseline_id, *candidate_id;
	json_t *spec;
	int64_t gate_id;
	struct gate *gate;
	/* the bisection of a regression running now (one at a time: they
	 * share the boards), and those this gate ran before it */
	struct commit_graph graph;
	json_t *bisect_spec;
	int64_t bisection_id;
	struct lab_bisect *lab_bisect;
	struct lab_bisect **finished;
	size_t finished_count;
	bool bisect_running;
	/* what the bisections (this gate's, or stored ones that answer its
	 * regressions) said: one entry per culprit */
	struct review_culprit *culprits;
	size_t culprit_count;
	char bisect_note[600];
	/* per regression of the gate's answer: the bisection of it this process
	 * started, 0: none (one at most: one that stopped without an answer is
	 * not started again, nor in a loop) */
	int64_t *attempted;
	unsigned int passes;		/* of bisect_regressions: what was known is said once */
	/* `gate resume`: the stored gate went on with */
	bool resumed, answer_stored;	/* answer_stored: its verdict was stored before the stop */
	int64_t stored_bisection_id;	/* the bisection it had started; 0: none */
	/* what the reply says of the queue */
	struct stable_queue queue;
};

static void on_progress(const char *line, void *data)
{
	printf("%s%s\n", (const char *)data, line);
	fflush(stdout);
}

static void on_bisect_done(struct lab_bisect *bisect, void *data);

static int make_spec(struct gate_review *review, const json_t *session_spec)
{
	const char *tree = review->tree;
	double confidence = 0.99;
	int rc;

	review->baseline_id = cli_commit_id(tree, review->baseline);
	review->candidate_id = review->baseline_id ? cli_commit_id(tree, review->candidate) : NULL;
	if (!review->candidate_id)
		return CLI_EXIT_USAGE;
	if (review->mainline) {
		char *mainline_id = cli_commit_id(tree, review->mainline);

		if (!mainline_id)
			return CLI_EXIT_USAGE;
		free(mainline_id);
	}
	if ((rc = cli_parse_number(review->confidence, 0.5, 0.999999, "--confidence", &confidence)))
		return rc;
	review->spec = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s?,s:b,s:b,s:f,s:s?,s:O?}",
				  "job", review->session->job->path, "tree", tree,
				  "baseline", review->baseline_id, "candidate", review->candidate_id,
				  "baseline_ref", review->baseline, "candidate_ref", review->candidate,
				  "mainline_ref", review->mainline, "bisect", review->bisect,
				  "released", review->released, "confidence", confidence,
				  "night", review->night, "session", session_spec);
	if (review->spec && review->reply_path) {
		/* absolute: `gate resume` may run from another directory */
		char here[PATH_MAX - 256], absolute[PATH_MAX];
		bool relative = review->reply_path[0] != '/' && getcwd(here, sizeof(here)) &&
				path_format(absolute, sizeof(absolute), "%s/%s", here,
					    review->reply_path) == 0;

		json_object_set_new(review->spec, "reply",
				    json_string(relative ? absolute : review->reply_path));
	}
	return review->spec ? 0 : CLI_EXIT_INFRA;
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
static int link_gate_runs(struct gate_review *review, const struct gate_regression *regression)
{
	struct store *store = review->session->store;
	struct store_run_list list;
	char **roles = NULL;
	size_t i;
	int rc;

	if ((rc = store_gate_runs(store, review->gate_id, &list, &roles)) != 0)
		return rc;
	for (i = 0; i < list.count && rc == 0; i++) {
		const struct store_run *run = &list.runs[i];

		if (!run->board || strcmp(run->workload, regression->workload) ||
		    !listed(regression->boards, run->board))
			continue;
		rc = store_bisection_add_run(store, review->bisection_id, run->id,
					     strcmp(roles[i], "baseline") == 0 ? "good-end" : "bad-end");
		if (rc == -EEXIST)
			rc = 0;	/* linked before a stop: resumed */
	}
	store_gate_roles_free(roles, list.count);
	store_run_list_release(&list);
	return rc;
}


static bool same_text(const json_t *object, const char *key, const char *text)
{
	const char *value = json_string_value(json_object_get(object, key));

	return value && text && strcmp(value, text) == 0;
}

/* A bisection's answer (JSON, as lab_bisect_answer_json gives it) that
 * names no culprit says why in the reply, for the regression it tracked. */
static void note_no_culprit(struct gate_review *review, const json_t *answer,
			    const struct gate_regression *regression)
{
	const char *reason = json_string_value(json_object_get(answer, "reason"));
	size_t used = strlen(review->bisect_note);

	snprintf(review->bisect_note + used, sizeof(review->bisect_note) - used,
		 "%s%s (%s): the bisection ended %s without a culprit%s%s (see `rackbisect bisect log`)",
		 used ? "; " : "", regression->workload, regression->symptom,
		 json_string_value(json_object_get(answer, "state")) ?: "?",
		 reason && reason[0] ? ": " : "", reason ? reason : "");
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
 * A stored bisection answers this regression when it found a culprit from
 * the same good end, and its bad end is this candidate or its culprit is in
 * this candidate too (a later night of the same branch, an -rc2 of the same
 * queue), tracking this regression's symptom in whichever workload shows it
 * (W2 and W3 both show 3.3.1's auth timeouts), or, in the same workload,
 * another symptom it shows (the most frequent can differ from night to night
 * when two come together, as auth-timeout and txdma-stop-fail do); a hang
 * only in the same workload.
 */
enum answer_kind { NOT_AN_ANSWER, BY_ANOTHER_SYMPTOM, BY_ITS_SYMPTOM };

static enum answer_kind answers_regression(struct gate_review *review, const struct store_bisection *stored,
					   const json_t *spec, const json_t *answer,
					   const struct gate_regression *regression)
{
	const char *culprit = json_string_value(json_object_get(answer, "culprit"));
	const char *symptom = json_string_value(json_object_get(spec, "symptom"));
	bool its_symptom;

	if (stored->state != STORE_BISECTION_DONE || !spec || !answer || !culprit || !symptom ||
	    !same_text(answer, "state", bisect_state_name(BISECT_FOUND)) ||
	    !only_good_is(spec, review->baseline_id))
		return NOT_AN_ANSWER;
	/* Another symptom this regression shows counts in its own workload
	 * only: a W2 that loses pings to one patch and now and then times out
	 * a reconnect to another is not answered by W3's auth-timeout culprit. */
	its_symptom = strcmp(symptom, regression->symptom) == 0;
	if (!its_symptom && (!listed(regression->symptoms, symptom) ||
			     !same_text(spec, "workload", regression->workload)))
		return NOT_AN_ANSWER;
	/* a hang says nothing of its cause: only the same workload's is the same */
	if (strcmp(symptom, "hang") == 0 && !same_text(spec, "workload", regression->workload))
		return NOT_AN_ANSWER;
	if (!same_text(spec, "bad", review->candidate_id) &&
	    !is_ancestor(review->tree, culprit, review->candidate_id))
		return NOT_AN_ANSWER;
	return its_symptom ? BY_ITS_SYMPTOM : BY_ANOTHER_SYMPTOM;
}

/* Of this gate's own bisections (its spec's "gate"), or stored ones before it. */
static bool of_this_gate(const struct gate_review *review, const json_t *spec)
{
	return json_integer_value(json_object_get(spec, "gate")) == review->gate_id;
}

/* What the stored bisections say of a regression: the one that answers it
 * (the newest tracking its symptom, else the newest tracking another it
 * shows), and whether this gate ran it; else this gate's own finished
 * bisection of it, whatever it found. Answers are new references. */
struct stored_answers {
	int64_t id;			/* the answering bisection; 0: none */
	json_t *answer;
	bool this_gate;
	json_t *tried;			/* this gate's, no answer: what it said; NULL: none */
};

static void take_answer(struct stored_answers *out, int64_t id, json_t *answer, bool this_gate)
{
	json_decref(out->answer);
	*out = (struct stored_answers){ .id = id, .answer = json_incref(answer), .this_gate = this_gate,
					.tried = out->tried };
}

/* One pass over the store, newest first, until an answer by its symptom. */
static void find_stored_answers(struct gate_review *review, const struct gate_regression *regression,
				struct stored_answers *out)
{
	struct store_bisection stored = { 0 };
	bool by_its_symptom = false;
	int64_t id;

	*out = (struct stored_answers){ 0 };
	if (store_bisection_latest(review->session->store, &stored) != 0)
		return;
	for (id = stored.id; id > 0 && !by_its_symptom; id--) {
		json_t *spec, *answer;
		enum answer_kind kind;

		store_bisection_release(&stored);
		if (store_bisection_get(review->session->store, id, &stored) != 0)
			continue;
		spec = json_loads(stored.spec, 0, NULL);
		answer = json_loads(stored.answer ? stored.answer : "{}", 0, NULL);
		kind = answers_regression(review, &stored, spec, answer, regression);
		by_its_symptom = kind == BY_ITS_SYMPTOM;
		if (by_its_symptom || (kind == BY_ANOTHER_SYMPTOM && !out->id))
			take_answer(out, id, answer, of_this_gate(review, spec));
		else if (!out->tried && stored.state == STORE_BISECTION_DONE && of_this_gate(review, spec) &&
			 same_text(spec, "workload", regression->workload) &&
			 same_text(spec, "symptom", regression->symptom))
			out->tried = json_incref(answer);
		json_decref(spec);
		json_decref(answer);
	}
	store_bisection_release(&stored);
}

static int load_queue_graph(struct gate_review *review)
{
	const char *goods[] = { review->baseline_id };
	char error[1024];

	if (review->graph.count)
		return 0;	/* loaded for an earlier bisection of this gate */
	if (commit_graph_load(review->tree, review->candidate_id, goods, 1, &review->graph,
			      error, sizeof(error)) != 0) {
		cli_error("%s", error);
		return CLI_EXIT_INFRA;
	}
	return 0;
}

/* Runs the stored bisection review->bisection_id (its spec review->bisect_spec)
 * from its stored runs: the gate's runs linked as its ends, and on resume
 * whatever it ran before the stop. */
static int run_bisection(struct gate_review *review)
{
	int rc;

	if (review->lab_bisect) {	/* an earlier one's, ended: kept to the end */
		struct lab_bisect **grown = realloc(review->finished,
						    (review->finished_count + 1) * sizeof(*grown));

		if (!grown) {
			cli_error("out of memory");
			return CLI_EXIT_INFRA;
		}
		review->finished = grown;
		review->finished[review->finished_count++] = review->lab_bisect;
		review->lab_bisect = NULL;
	}
	rc = lab_bisect_start(&(struct lab_bisect_options){
		.session = review->session, .tree = review->tree, .graph = &review->graph,
		.spec = review->bisect_spec, .bisection_id = review->bisection_id, .resume = true,
		.progress = on_progress, .progress_data = review->bisect_prefix }, on_bisect_done, review,
		&review->lab_bisect);

	if (rc) {
		cli_error("cannot start the bisection: %s", strerror(-rc));
		return CLI_EXIT_INFRA;
	}
	review->bisect_running = true;
	return 0;
}

static int start_bisection(struct gate_review *review, const struct gate_regression *regression)
{
	char *text;
	int rc;

	if ((rc = load_queue_graph(review)))
		return rc;
	json_decref(review->bisect_spec);
	review->bisect_spec = json_pack("{s:s,s:s,s:s,s:s,s:[s],s:[s],s:s,s:s,s:o,s:b,s:s,s:O,s:i,s:I}",
		"job", review->session->job->path, "tree", review->tree,
		"bad", review->candidate_id, "bad_ref", review->candidate,
		"goods", review->baseline_id, "good_refs", review->baseline,
		"symptom", regression->symptom, "workload", regression->workload,
		"boards", board_array(regression->boards), "revert_check", false, "step", "bisect",
		"confidence", json_object_get(review->spec, "confidence"), "max_runs", 0,
		"gate", (json_int_t)review->gate_id);
	text = review->bisect_spec ? json_dumps(review->bisect_spec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	rc = text ? store_bisection_create(review->session->store, review->session->job->name, text,
					   &review->bisection_id) : -ENOMEM;
	free(text);
	if (rc == 0)
		rc = store_gate_set_bisection(review->session->store, review->gate_id, review->bisection_id);
	if (rc == 0)
		rc = link_gate_runs(review, regression);
	if (rc) {
		cli_error("cannot store the bisection: %s", store_error_message(review->session->store));
		return CLI_EXIT_INFRA;
	}
	printf("%sbisection %" PRId64 ": %s (%s) in the queue, %zu commits, the gate's runs as its ends\n",
	       review->prefix, review->bisection_id, regression->workload, regression->symptom, review->graph.count);
	return run_bisection(review);
}

static const struct gate_regression *regression_of_workload(const struct gate_answer *answer,
							    const char *workload)
{
	size_t i;

	for (i = 0; workload && i < answer->regression_count; i++) {
		if (strcmp(answer->regressions[i].workload, workload) == 0)
			return &answer->regressions[i];
	}
	return NULL;
}

/* `gate resume`: the bisection the gate had started goes on from its stored
 * runs. 0: it runs; NOTHING_TO_BISECT: it had ended before the stop (the
 * regressions left are then looked at again); else a CLI exit code. */
static int resume_bisection(struct gate_review *review)
{
	struct store *store = review->session->store;
	struct store_bisection stored = { 0 };
	const struct gate_regression *regression;
	int rc;

	review->stored_bisection_id = 0;	/* once: later bisections start afresh */
	if (store_bisection_get(store, review->bisection_id, &stored) != 0 ||
	    !(review->bisect_spec = json_loads(stored.spec, 0, NULL))) {
		cli_error("gate %" PRId64 ": cannot read back its bisection %" PRId64 ": %s",
			  review->gate_id, review->bisection_id, store_error_message(store));
		store_bisection_release(&stored);
		return CLI_EXIT_INFRA;
	}
	if (stored.state == STORE_BISECTION_DONE) {
		store_bisection_release(&stored);
		return NOTHING_TO_BISECT;
	}
	store_bisection_release(&stored);
	regression = regression_of_workload(gate_answer(review->gate),
					    json_string_value(json_object_get(review->bisect_spec, "workload")));
	if ((rc = store_bisection_reopen(store, review->bisection_id)) != 0 ||
	    (regression && (rc = link_gate_runs(review, regression)) != 0)) {
		cli_error("cannot resume bisection %" PRId64 ": %s", review->bisection_id,
			  store_error_message(store));
		return CLI_EXIT_INFRA;
	}
	if ((rc = load_queue_graph(review)))
		return rc;
	printf("%sbisection %" PRId64 " resumed: %zu commits in the queue\n", review->prefix,
	       review->bisection_id, review->graph.count);
	return run_bisection(review);
}

/* The stored answer of a bisection that stopped without one of its own
 * (lab trouble, a stop): its state and reason, as a new reference. */
static json_t *stopped_answer(struct gate_review *review, int64_t id)
{
	struct store_bisection stored = { 0 };
	json_t *answer = NULL;

	if (store_bisection_get(review->session->store, id, &stored) == 0 && stored.answer)
		answer = json_loads(stored.answer, 0, NULL);
	store_bisection_release(&stored);
	if (!json_is_object(answer)) {
		json_decref(answer);
		answer = json_object();
	}
	if (!json_object_get(answer, "state"))
		json_object_set_new(answer, "state", json_string("stopped"));
	return answer;
}

/* Adds answer's culprit, for regression, to the reply's list (one entry per
 * culprit, naming every regression it answers). */
static void add_culprit(struct gate_review *review, const struct gate_regression *regression,
			int64_t bisection_id, const json_t *answer, bool reused)
{
	const char *commit = json_string_value(json_object_get(answer, "culprit"));
	struct review_culprit *culprit = NULL, *grown;
	size_t i, used;

	for (i = 0; commit && i < review->culprit_count && !culprit; i++)
		if (strcmp(review->culprits[i].commit, commit) == 0)
			culprit = &review->culprits[i];
	if (!commit)
		return;
	if (!culprit) {
		grown = realloc(review->culprits, (review->culprit_count + 1) * sizeof(*grown));
		if (!grown)
			return;
		review->culprits = grown;
		culprit = &review->culprits[review->culprit_count++];
		*culprit = (struct review_culprit){
			.probability = json_number_value(json_object_get(answer, "probability")),
			.runs = (unsigned int)json_integer_value(json_object_get(answer, "runs")),
			.bisection_id = bisection_id, .reused = reused };
		snprintf(culprit->commit, sizeof(culprit->commit), "%s", commit);
	}
	used = strlen(culprit->regressions);
	snprintf(culprit->regressions + used, sizeof(culprit->regressions) - used, "%s%s (%s)",
		 used ? ", " : "", regression->workload, regression->symptom);
}

/*
 * Each confirmed regression is answered by a stored bisection (the same
 * symptom, its culprit in this candidate: bisected before, or by this gate
 * a moment ago), or by this gate's own bisection of it that found nothing,
 * or it is bisected now: of those left, the one a bisection tracks fastest.
 * When that bisection ends, this runs again, until none is left: two
 * regressions with different symptoms get a bisection each. On the way out
 * the reply's culprits are collected. 0: a bisection runs;
 * NOTHING_TO_BISECT: every answer is known; else a CLI exit code.
 */
static int bisect_regressions(struct gate_review *review)
{
	const struct gate_answer *answer = gate_answer(review->gate);
	size_t count = answer->regression_count, i;
	bool *settled = calloc(count + 1, sizeof(*settled));
	const struct gate_regression *regression;
	int rc = NOTHING_TO_BISECT;

	if (review->stored_bisection_id) {
		review->bisection_id = review->stored_bisection_id;
		if ((rc = resume_bisection(review)) != NOTHING_TO_BISECT) {
			free(settled);
			return rc;
		}
	}
	if (!settled) {
		cli_error("out of memory");
		return CLI_EXIT_INFRA;
	}
	free(review->culprits);
	review->culprits = NULL;
	review->culprit_count = 0;
	review->bisect_note[0] = '\0';
	for (i = 0; i < count; i++) {
		struct stored_answers stored;
		json_t *stopped;

		regression = &answer->regressions[i];
		if (!regression->confirmed)
			continue;
		find_stored_answers(review, regression, &stored);
		if (stored.id) {
			settled[i] = true;
			if (!stored.this_gate && !review->passes)
				printf("%s%s (%s) was bisected before: bisection %" PRId64 " named %.12s, which this "
				       "candidate holds; not bisected again\n", review->prefix, regression->workload,
				       regression->symptom, stored.id,
				       json_string_value(json_object_get(stored.answer, "culprit")) ?: "?");
			add_culprit(review, regression, stored.id, stored.answer, !stored.this_gate);
		} else if (stored.tried) {
			settled[i] = true;
			note_no_culprit(review, stored.tried, regression);
		} else if (review->attempted && review->attempted[i]) {
			settled[i] = true;
			stopped = stopped_answer(review, review->attempted[i]);
			note_no_culprit(review, stopped, regression);
			json_decref(stopped);
		}
		json_decref(stored.answer);
		json_decref(stored.tried);
	}
	review->passes++;
	if ((regression = gate_regression_to_bisect(answer, settled))) {
		if (!review->attempted)
			review->attempted = calloc(count + 1, sizeof(*review->attempted));
		rc = start_bisection(review, regression);
		if (review->attempted)
			review->attempted[regression - answer->regressions] = review->bisection_id;
	}
	else if (review->culprit_count && !review->bisection_id)
		store_gate_set_bisection(review->session->store, review->gate_id,
					 review->culprits[0].bisection_id);
	free(settled);
	return rc;
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

static char *tested_by(const struct gate_review *review)
{
	char *name = git_output(review->tree, (const char *[]){ "config", "user.name", NULL });
	char *email = git_output(review->tree, (const char *[]){ "config", "user.email", NULL });
	char *line = NULL;

	if (name && email && name[0] && email[0]) {
		if (asprintf(&line, "%s <%s>", name, email) < 0)
			line = NULL;
	} else if (asprintf(&line, "rackbisect (lab %s) <rackbisect@localhost>", review->session->lab->name) < 0) {
		line = NULL;
	}
	free(name);
	free(email);
	return line;
}

/* The kernel log lines behind each regression's symptom, from its example run. */
static char **excerpts_of(struct gate_review *review, const struct gate_answer *answer)
{
	char **excerpts = calloc(answer->regression_count + 1, sizeof(*excerpts));
	size_t r, s;

	for (r = 0; excerpts && r < answer->regression_count; r++) {
		struct store_run run;

		if (!answer->regressions[r].example_run ||
		    store_run_get(review->session->store, answer->regressions[r].example_run, &run) != 0)
			continue;
		for (s = 0; s < run.symptom_count && !excerpts[r]; s++) {
			if (run.symptoms[s].evidence && run.symptoms[s].evidence[0])
				excerpts[r] = strdup(run.symptoms[s].evidence);
		}
		store_run_release(&run);
	}
	return excerpts;
}

/* What the reply says of one culprit: the queued patch, mainline's state of
 * its upstream commit and what the stable rules allow. */
struct culprit_reply {
	struct report_stable_culprit culprit;
	struct mainline_status mainline;
	bool have_mainline;
	char advice[2048];
};

/* Fills replies[] for review->culprits (those that are queued patches; one
 * that is not is said in the note); returns how many. */
static size_t culprits_of(struct gate_review *review, struct culprit_reply *replies)
{
	size_t i, count = 0, used;
	char error[512];

	for (i = 0; i < review->culprit_count; i++) {
		const struct review_culprit *found = &review->culprits[i];
		const struct stable_patch *patch = stable_queue_find(&review->queue, found->commit);
		struct culprit_reply *reply = &replies[count];

		if (!patch) {
			used = strlen(review->bisect_note);
			snprintf(review->bisect_note + used, sizeof(review->bisect_note) - used,
				 "%s%s: %.12s, which is not a queued patch (a merge?)", used ? "; " : "",
				 found->regressions, found->commit);
			continue;
		}
		reply->have_mainline = review->mainline && patch->upstream[0] &&
			stable_mainline_status(review->tree, review->mainline, patch->upstream,
					       &reply->mainline, error, sizeof(error)) == 0;
		stable_advice(patch, reply->have_mainline ? &reply->mainline : NULL, review->mainline,
			      review->released, reply->advice, sizeof(reply->advice));
		reply->culprit = (struct report_stable_culprit){
			.patch = patch, .probability = found->probability, .runs = found->runs,
			.mainline = reply->have_mainline ? &reply->mainline : NULL,
			.advice = reply->advice, .bisection = found->bisection_id, .reused = found->reused,
			.regressions = found->regressions };
		count++;
	}
	return count;
}

static int write_reply_file(struct gate_review *review, const char *text, char *path, size_t size)
{
	char directory[PATH_MAX - 16];

	if (review->reply_path) {
		snprintf(path, size, "%s", review->reply_path);
	} else {
		snprintf(directory, sizeof(directory), "%s/gates", review->session->state.dir);
		mkdir(directory, 0700);
		snprintf(directory, sizeof(directory), "%s/gates/%" PRId64, review->session->state.dir,
			 review->gate_id);
		mkdir(directory, 0700);
		if ((size_t)snprintf(path, size, "%s/reply.txt", directory) >= size)
			return -ENAMETOOLONG;
	}
	return files_write_atomic(path, text);
}

static int reply(struct gate_review *review)
{
	const struct gate_answer *answer = gate_answer(review->gate);
	struct culprit_reply *replies = calloc(review->culprit_count + 1, sizeof(*replies));
	struct report_stable_culprit *culprits = calloc(review->culprit_count + 1, sizeof(*culprits));
	struct report_stable report;
	char error[512], path[PATH_MAX], **excerpts = excerpts_of(review, answer);
	char *describe = git_output(review->tree, (const char *[]){
		"describe", "--tags", "--always", review->candidate_id, NULL });
	char *tester = tested_by(review), *text = NULL;
	size_t *astray = NULL, astray_count = 0, length = 0, i;
	bool have_queue = stable_queue_load(review->tree, review->baseline_id, review->candidate_id,
					    review->mainline, &review->queue, error, sizeof(error)) == 0;
	FILE *out;

	if (have_queue)
		astray_count = stable_queue_audit(&review->queue, &astray);
	report = (struct report_stable){
		.lab = review->session->lab->name, .job = review->session->job->name,
		.candidate_ref = review->candidate, .candidate_id = review->candidate_id,
		.candidate_describe = describe ? describe : review->candidate,
		.baseline_ref = review->baseline, .baseline_id = review->baseline_id,
		.mainline_ref = review->mainline, .gate = answer,
		.excerpts = (const char *const *)excerpts, .queue = have_queue ? &review->queue : NULL,
		.astray = astray, .astray_count = astray_count,
		.tested_by = tester ? tester : "rackbisect" };
	if (answer->verdict == GATE_REGRESSION && have_queue && replies && culprits) {
		report.culprit_count = culprits_of(review, replies);
		for (i = 0; i < report.culprit_count; i++)
			culprits[i] = replies[i].culprit;
		report.culprits = culprits;
		if (review->bisect_note[0])
			report.bisect_note = review->bisect_note;
		else if (!report.culprit_count)
			report.bisect_note = review->bisect ? "not bisected (no confirmed regression)"
							    : "not bisected (give --bisect)";
	}
	out = open_memstream(&text, &length);
	if (out) {
		report_stable_write(out, &report);
		fclose(out);
	}
	printf("\n%s", text ? text : "");	/* whole, unprefixed: it is mailed as it is */
	if (text && write_reply_file(review, text, path, sizeof(path)) == 0)
		printf("\n%sreply written to %s\n", review->prefix, path);
	else
		cli_error("cannot write the reply: %s", strerror(errno));
	for (i = 0; excerpts && i < answer->regression_count; i++)
		free(excerpts[i]);
	for (i = 0; replies && i < review->culprit_count; i++)
		if (replies[i].have_mainline)
			stable_mainline_status_free(&replies[i].mainline);
	free(replies);
	free(culprits);
	free(excerpts);
	free(astray);
	free(describe);
	free(tester);
	free(text);
	return 0;
}

/* ---- the flow on the loop: gate -> bisection -> reply ------------------------------------------ */

static int exit_code_of(const struct gate_answer *answer)
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

static void finish(struct gate_review *review, int exit_code)
{
	review->exit_code = exit_code;
	reply(review);
	review->replied = true;
	fflush(stdout);
	review->done(review, review->data);
}

/* A bisection ended (its answer is stored): the next regression left, or the reply. */
static void on_bisect_done(struct lab_bisect *bisect, void *data)
{
	struct gate_review *review = data;
	int rc;

	(void)bisect;
	review->bisect_running = false;
	rc = bisect_regressions(review);
	if (rc == NOTHING_TO_BISECT)
		finish(review, exit_code_of(gate_answer(review->gate)));
	else if (rc != 0) {
		review->exit_code = rc;
		review->done(review, review->data);
	}
}

static void on_gate_done(struct gate *gate, void *data)
{
	struct gate_review *review = data;
	int rc = NOTHING_TO_BISECT;

	if (review->bisect)
		rc = bisect_regressions(review);
	if (rc == NOTHING_TO_BISECT)
		finish(review, exit_code_of(gate_answer(gate)));
	else if (rc != 0) {	/* what went wrong is printed; no reply without the bisection asked for */
		review->exit_code = rc;
		review->done(review, review->data);
	}
}

static int store_gate(struct gate_review *review)
{
	char *text = json_dumps(review->spec, JSON_COMPACT | JSON_SORT_KEYS);

	if (!text || store_gate_create(review->session->store, review->session->job->name, text,
				       &review->gate_id) != 0) {
		free(text);
		cli_error("cannot store the gate: %s", store_error_message(review->session->store));
		return CLI_EXIT_INFRA;
	}
	free(text);
	return 0;
}

/* `gate resume`: the stored gate's question is the question; its runs, and
 * the bisection it started, are where it goes on from. */
static int take_stored_gate(struct gate_review *review, const struct store_gate *stored)
{
	json_error_t error;
	const char *baseline, *candidate;

	review->spec = json_loads(stored->spec, 0, &error);
	baseline = json_string_value(json_object_get(review->spec, "baseline"));
	candidate = json_string_value(json_object_get(review->spec, "candidate"));
	if (!baseline || !candidate) {
		cli_error("gate %" PRId64 ": its stored question is damaged (%s)", stored->id,
			  review->spec ? "no baseline or candidate" : error.text);
		return CLI_EXIT_INFRA;
	}
	review->baseline_id = strdup(baseline);
	review->candidate_id = strdup(candidate);
	review->gate_id = stored->id;
	review->stored_bisection_id = stored->bisection_id;
	review->resumed = true;
	review->answer_stored = stored->state == STORE_GATE_DONE;
	if (stored->state == STORE_GATE_ABORTED && store_gate_reopen(review->session->store, stored->id)) {
		cli_error("%s", store_error_message(review->session->store));
		return CLI_EXIT_INFRA;
	}
	return review->baseline_id && review->candidate_id ? 0 : CLI_EXIT_INFRA;
}

static int copy_options(struct gate_review *review, const struct gate_review_options *options)
{
	const char *prefix = options->prefix ? options->prefix : "";
	bool ok = true;

#define COPY(field) \
	do { if (options->field && !(review->field = strdup(options->field))) ok = false; } while (0)
	COPY(tree);
	COPY(baseline);
	COPY(candidate);
	COPY(mainline);
	COPY(confidence);
	COPY(night);
	COPY(reply_path);
#undef COPY
	review->prefix = strdup(prefix);
	if (asprintf(&review->bisect_prefix, "%sbisect: ", prefix) < 0)
		review->bisect_prefix = NULL;
	review->session = options->session;
	review->bisect = options->bisect;
	review->released = options->released;
	return ok && review->prefix && review->bisect_prefix ? 0 : CLI_EXIT_INFRA;
}

int gate_review_start(const struct gate_review_options *options, gate_review_done_cb done,
		      void *data, struct gate_review **out)
{
	struct gate_review *review = calloc(1, sizeof(*review));
	int rc;

	*out = review;
	if (!review)
		return CLI_EXIT_INFRA;
	review->done = done;
	review->data = data;
	review->exit_code = CLI_EXIT_INFRA;
	if ((rc = copy_options(review, options)))
		return rc;
	if (options->resume)
		rc = take_stored_gate(review, options->resume);
	else if ((rc = make_spec(review, options->session_spec)) == 0)
		rc = store_gate(review);
	if (rc)
		return rc;
	printf("%sgate %" PRId64 "%s: %s against %s, job %s, %zu boards\n", review->prefix, review->gate_id,
	       review->resumed ? " resumed" : "", review->candidate, review->baseline,
	       review->session->job->name, review->session->selected_count);
	rc = gate_start(&(struct gate_options){
		.session = review->session, .tree = review->tree, .spec = review->spec,
		.gate_id = review->gate_id, .resume = review->resumed,
		.answer_stored = review->answer_stored,
		.progress = on_progress, .progress_data = review->prefix },
		on_gate_done, review, &review->gate);
	if (rc) {
		cli_error("cannot start the gate: %s", strerror(-rc));
		return CLI_EXIT_INFRA;
	}
	return 0;
}

int gate_review_exit_code(const struct gate_review *review)
{
	return review ? review->exit_code : CLI_EXIT_INFRA;
}

int64_t gate_review_gate_id(const struct gate_review *review)
{
	return review ? review->gate_id : 0;
}

json_t *gate_review_json(const struct gate_review *review)
{
	json_t *json;

	if (!review->replied)
		return NULL;
	json = gate_answer_json(review->gate);

	json_object_set_new(json, "gate", json_integer(review->gate_id));
	if (review->lab_bisect) {	/* the last bisection this gate ran */
		json_object_set_new(json, "bisection", json_integer(review->bisection_id));
		json_object_set_new(json, "bisect", lab_bisect_answer_json(review->lab_bisect));
	}
	if (review->culprit_count) {
		json_t *culprits = json_array();
		size_t i;

		for (i = 0; i < review->culprit_count; i++) {
			const struct review_culprit *culprit = &review->culprits[i];

			json_array_append_new(culprits, json_pack("{s:s,s:f,s:i,s:I,s:b,s:s}",
				"commit", culprit->commit, "probability", culprit->probability,
				"runs", (int)culprit->runs, "bisection", (json_int_t)culprit->bisection_id,
				"bisected_before", culprit->reused, "regressions", culprit->regressions));
		}
		json_object_set_new(json, "culprits", culprits);
	}
	return json;
}

void gate_review_mark_aborted(struct gate_review *review)
{
	const char *answer = "{\"reason\":\"interrupted\"}";

	if (!review || !review->gate_id)
		return;
	store_gate_finish(review->session->store, review->gate_id, STORE_GATE_ABORTED, NULL, answer);
	if (review->bisect_running && review->bisection_id)
		store_bisection_finish(review->session->store, review->bisection_id,
				       STORE_BISECTION_ABORTED, answer);
}

void gate_review_free(struct gate_review *review)
{
	if (!review)
		return;
	gate_free(review->gate);
	lab_bisect_free(review->lab_bisect);
	while (review->finished_count)
		lab_bisect_free(review->finished[--review->finished_count]);
	free(review->finished);
	free(review->culprits);
	free(review->attempted);
	commit_graph_free(&review->graph);
	stable_queue_free(&review->queue);
	json_decref(review->spec);
	json_decref(review->bisect_spec);
	free(review->baseline_id);
	free(review->candidate_id);
	free(review->tree);
	free(review->baseline);
	free(review->candidate);
	free(review->mainline);
	free(review->confidence);
	free(review->night);
	free(review->reply_path);
	free(review->prefix);
	free(review->bisect_prefix);
	free(review);
}
