/* gate.c - the candidate's matrix, then the baseline (or the candidate again) where it failed, until told apart. */
#include "gate.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_round.h"
#include "log.h"

/* rounds after the matrix before an undecided workload is called undecided */
#define MAX_DECIDING_ROUNDS 6
/* baseline runs per board in one round */
#define MAX_REPEAT 4
/* runs per board when the candidate is asked again (too few failures yet) */
#define CANDIDATE_REPEAT 2
/* the candidate's runs per failing board (the matrix's and the repeats)
 * past which it is not asked again: a regression failing half its runs
 * would otherwise be asked again and again, never by the baseline */
#define CANDIDATE_RUNS_PER_BOARD 3
/* baseline passes past which the test is not worth running: ask the candidate again */
#define PASSES_NEEDED_CAP 1000000u

/* Who a round runs: the tallies count the candidate's matrix and its repeats
 * as one side (CANDIDATE), but the store keeps them apart, so that "the
 * matrix has one result per cell" stays checkable. */
enum side { BASELINE = 0, CANDIDATE = 1, CANDIDATE_AGAIN = 2 };
static const char *const role_names[] = { "baseline", "candidate", "candidate-again" };

static bool is_candidate_role(const char *role)
{
	return strcmp(role, "baseline") != 0;
}

/* The position of a workload in the job's list (per-workload counters). */
static bool workload_position(const struct job *job, const char *name, size_t *position)
{
	const struct job_workload *workload = job_find_workload(job, name);

	if (workload)
		*position = (size_t)(workload - job->workloads);
	return workload != NULL;
}

/* The side a round's runs are tallied on: the candidate's repeats are its. */
static enum side tally_side(enum side side)
{
	return side == BASELINE ? BASELINE : CANDIDATE;
}

struct gate {
	struct gate_options options;
	gate_done_cb done;
	void *data;
	struct lab_round round;
	enum side running;		/* the side the current round runs */
	unsigned int deciding_rounds;	/* rounds after the matrix */
	/* per job workload, counted from the store: the candidate's runs when
	 * asked again (role candidate-again) and how many of them failed */
	unsigned int *again_runs, *again_fails;
	bool trouble, finished;
	/* per side (BASELINE, CANDIDATE) and cell: its matrix run was asked
	 * again on resume (once), or, for the baseline, asked at all */
	bool *catch_up_tried[2];
	bool baseline_matrix_started;	/* a new gate's baseline matrix round */
	struct gate_answer answer;
};

static const char *spec_string(const json_t *spec, const char *key)
{
	return json_string_value(json_object_get(spec, key));
}

static void progress(struct gate *gate, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void progress(struct gate *gate, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	log_vstep(&gate->options.session->log, "gate", gate->options.progress, gate->options.progress_data,
		  format, args);
	va_end(args);
}

double gate_split_chance(unsigned int candidate_fails, unsigned int candidate_runs,
			 unsigned int baseline_passes)
{
	double chance = 1;
	unsigned int i;

	if (candidate_fails > candidate_runs)
		return 1;
	/* C(n, f) / C(n + m, f), as a product of f ratios: no factorial overflows */
	for (i = 0; i < candidate_fails; i++)
		chance *= (double)(candidate_runs - i) / (double)(candidate_runs + baseline_passes - i);
	return chance;
}

unsigned int gate_passes_needed(unsigned int candidate_fails, unsigned int candidate_runs, double confidence)
{
	double alpha = 1 - confidence;
	unsigned int low = 0, high = 1;

	if (candidate_fails == 0 || candidate_fails > candidate_runs)
		return UINT32_MAX;
	/* the chance falls as m grows: double, then halve the gap */
	while (gate_split_chance(candidate_fails, candidate_runs, high) > alpha) {
		if (high >= PASSES_NEEDED_CAP)
			return UINT32_MAX;
		low = high;
		high *= 2;
	}
	while (high - low > 1) {
		unsigned int middle = low + (high - low) / 2;

		if (gate_split_chance(candidate_fails, candidate_runs, middle) > alpha)
			low = middle;
		else
			high = middle;
	}
	return gate_split_chance(candidate_fails, candidate_runs, low) <= alpha ? low : high;
}

const char *gate_verdict_name(enum gate_verdict verdict)
{
	static const char *const names[] = { "PASS", "REGRESSION", "INCOMPLETE" };

	return names[verdict];
}

/* ---- what the stored runs say ------------------------------------------------------------ */

/* Appends word to a comma-separated list unless it is there. */
static void list_add(char *list, size_t size, const char *word)
{
	size_t length = strlen(word), used = strlen(list);
	const char *at;

	for (at = strstr(list, word); at; at = strstr(at + 1, word)) {
		if ((at == list || at[-1] == ',') && (at[length] == ',' || at[length] == '\0'))
			return;
	}
	if (used + length + 2 < size)
		snprintf(list + used, size - used, "%s%s", used ? "," : "", word);
}

static void list_merge(char *list, size_t size, const char *words)
{
	char copy[512], *word, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", words);
	for (word = strtok_r(copy, ",", &save); word; word = strtok_r(NULL, ",", &save))
		list_add(list, size, word);
}

static bool list_has(const char *list, const char *word)
{
	char copy[512];

	snprintf(copy, sizeof(copy), "%s", list);
	list_add(copy, sizeof(copy), word);
	return strlen(copy) == strlen(list);
}

static int make_cells(struct gate *gate)
{
	struct lab_session *session = gate->options.session;
	size_t b, w, n = 0;

	gate->answer.cells = calloc(session->selected_count * session->job->workload_count + 1,
				    sizeof(*gate->answer.cells));
	if (!gate->answer.cells)
		return -ENOMEM;
	for (b = 0; b < session->selected_count; b++) {
		for (w = 0; w < session->job->workload_count; w++) {
			struct gate_cell *cell = &gate->answer.cells[n++];

			cell->board = session->selected[b]->name;
			cell->chip = session->selected[b]->config->chip;
			cell->workload = session->job->workloads[w].name;
		}
	}
	gate->answer.cell_count = n;
	return 0;
}

static struct gate_cell *cell_of(struct gate *gate, const char *board, const char *workload)
{
	size_t i;

	for (i = 0; board && workload && i < gate->answer.cell_count; i++) {
		struct gate_cell *cell = &gate->answer.cells[i];

		if (strcmp(cell->board, board) == 0 && strcmp(cell->workload, workload) == 0)
			return cell;
	}
	return NULL;
}

static void tally_run(struct gate *gate, const struct store_run *run, enum side side)
{
	struct gate_cell *cell = cell_of(gate, run->board, run->workload);
	size_t i;

	gate->answer.runs[side][run->outcome]++;
	if (!cell)
		return;
	cell->runs[side][run->outcome]++;
	for (i = 0; run->outcome == RUN_FAIL && i < run->symptom_count; i++)
		list_add(cell->symptoms[side], sizeof(cell->symptoms[side]), run->symptoms[i].name);
}

/* The symptom most candidate FAILs of workload on the regression's boards showed. */
static void main_symptom(const struct store_run_list *list, char **roles, struct gate_regression *regression)
{
	unsigned int best = 0;
	size_t i, j, k;

	for (i = 0; i < list->count; i++) {
		const struct store_run *run = &list->runs[i];

		for (j = 0; run->outcome == RUN_FAIL && j < run->symptom_count; j++) {
			unsigned int count = 0;

			if (!is_candidate_role(roles[i]) || strcmp(run->workload, regression->workload))
				continue;
			for (k = 0; k < list->count; k++) {
				const struct store_run *other = &list->runs[k];
				size_t s;

				for (s = 0; other->outcome == RUN_FAIL && s < other->symptom_count; s++)
					count += is_candidate_role(roles[k]) &&
						 strcmp(other->workload, regression->workload) == 0 &&
						 strcmp(other->symptoms[s].name, run->symptoms[j].name) == 0;
			}
			if (count > best) {
				best = count;
				snprintf(regression->symptom, sizeof(regression->symptom), "%s",
					 run->symptoms[j].name);
				regression->example_run = regression->example_run ? regression->example_run
										   : run->id;
			}
		}
	}
}

/* Known failing: the baseline fails this cell with a symptom the candidate showed there. */
static bool known_failing(const struct gate_cell *cell)
{
	char copy[256], *word, *save = NULL;

	if (cell->runs[BASELINE][RUN_FAIL] == 0)
		return false;
	snprintf(copy, sizeof(copy), "%s", cell->symptoms[BASELINE]);
	for (word = strtok_r(copy, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
		if (list_has(cell->symptoms[CANDIDATE], word))
			return true;
	}
	return cell->symptoms[BASELINE][0] == '\0' && cell->symptoms[CANDIDATE][0] == '\0';
}

void gate_judge_workload(const struct gate_cell *cells, size_t cell_count, const char *workload,
			double confidence, struct gate_regression *regression)
{
	size_t i;

	memset(regression, 0, sizeof(*regression));
	snprintf(regression->workload, sizeof(regression->workload), "%s", workload);
	for (i = 0; i < cell_count; i++) {
		const struct gate_cell *cell = &cells[i];

		if (strcmp(cell->workload, workload) || cell->runs[CANDIDATE][RUN_FAIL] == 0)
			continue;
		if (known_failing(cell)) {
			list_add(regression->known_failing, sizeof(regression->known_failing), cell->board);
			continue;
		}
		list_add(regression->boards, sizeof(regression->boards), cell->board);
		regression->candidate_fails += cell->runs[CANDIDATE][RUN_FAIL];
		regression->candidate_runs += cell->runs[CANDIDATE][RUN_FAIL] + cell->runs[CANDIDATE][RUN_PASS];
		regression->baseline_passes += cell->runs[BASELINE][RUN_PASS];
		list_merge(regression->symptoms, sizeof(regression->symptoms), cell->symptoms[CANDIDATE]);
	}
	regression->fail_rate = (regression->candidate_fails + 1.0) / (regression->candidate_runs + 2.0);
	/* no failure left to tell apart (every one known failing): none needed */
	regression->passes_needed = regression->candidate_fails == 0 ? 0 :
		gate_passes_needed(regression->candidate_fails, regression->candidate_runs, confidence);
	regression->split_chance = gate_split_chance(regression->candidate_fails, regression->candidate_runs,
						     regression->baseline_passes);
	regression->confirmed = regression->boards[0] && regression->split_chance <= 1 - confidence;
}

/* Recounts everything from the runs linked to the gate: the store is the truth. */
static int judge(struct gate *gate)
{
	struct lab_session *session = gate->options.session;
	struct store_run_list list;
	char **roles = NULL;
	size_t i, w;

	if (store_gate_runs(session->store, gate->options.gate_id, &list, &roles) != 0)
		return -EIO;
	memset(gate->answer.runs, 0, sizeof(gate->answer.runs));
	for (i = 0; i < gate->answer.cell_count; i++) {
		memset(gate->answer.cells[i].runs, 0, sizeof(gate->answer.cells[i].runs));
		memset(gate->answer.cells[i].symptoms, 0, sizeof(gate->answer.cells[i].symptoms));
	}
	memset(gate->again_runs, 0, session->job->workload_count * sizeof(*gate->again_runs));
	memset(gate->again_fails, 0, session->job->workload_count * sizeof(*gate->again_fails));
	for (i = 0; i < list.count; i++) {
		tally_run(gate, &list.runs[i], is_candidate_role(roles[i]) ? CANDIDATE : BASELINE);
		if (workload_position(session->job, list.runs[i].workload, &w) &&
		    strcmp(roles[i], role_names[CANDIDATE_AGAIN]) == 0) {
			gate->again_runs[w] += list.runs[i].outcome == RUN_PASS || list.runs[i].outcome == RUN_FAIL;
			gate->again_fails[w] += list.runs[i].outcome == RUN_FAIL;
		}
	}
	free(gate->answer.regressions);
	gate->answer.regressions = calloc(session->job->workload_count + 1, sizeof(struct gate_regression));
	gate->answer.regression_count = 0;
	for (w = 0; gate->answer.regressions && w < session->job->workload_count; w++) {
		struct gate_regression *regression = &gate->answer.regressions[gate->answer.regression_count];

		gate_judge_workload(gate->answer.cells, gate->answer.cell_count, session->job->workloads[w].name,
				    json_number_value(json_object_get(gate->options.spec, "confidence")),
				    regression);
		if (!regression->boards[0] && !regression->known_failing[0])
			continue;
		main_symptom(&list, roles, regression);
		gate->answer.regression_count++;
	}
	store_gate_roles_free(roles, list.count);
	store_run_list_release(&list);
	return gate->answer.regressions ? 0 : -ENOMEM;
}

/* ---- rounds --------------------------------------------------------------------------------- */

static void finish(struct gate *gate);

/* Runs the round built for gate->running. */
static void launch(struct gate *gate)
{
	gate->answer.rounds++;
	if (lab_round_launch(&gate->round) != 0) {
		snprintf(gate->answer.reason, sizeof(gate->answer.reason), "no board to run on");
		gate->trouble = true;
		finish(gate);
	}
}

static const char *side_commit(const struct gate *gate, enum side side)
{
	return spec_string(gate->options.spec, side == BASELINE ? "baseline" : "candidate");
}

static const char *side_ref(const struct gate *gate, enum side side)
{
	return spec_string(gate->options.spec, side == BASELINE ? "baseline_ref" : "candidate_ref");
}

/* side's whole matrix, one run per cell: every board, every workload. */
static void start_matrix(struct gate *gate, enum side side)
{
	struct lab_session *session = gate->options.session;
	struct lab_round_group *group;
	size_t i;

	lab_round_clear(&gate->round);
	group = lab_round_add(&gate->round, side_commit(gate, side), NULL, 1);
	for (i = 0; group && i < session->selected_count; i++)
		group->boards[group->board_count++] = session->selected[i];
	progress(gate, "%s %s: the matrix, %zu boards x %zu workloads", role_names[side],
		 side_ref(gate, side), session->selected_count, session->job->workload_count);
	gate->running = side;
	launch(gate);
}

static bool has_result(const struct gate_cell *cell, enum side side)
{
	const unsigned int *runs = cell->runs[side];

	return runs[RUN_PASS] + runs[RUN_FAIL] + runs[RUN_SKIP] > 0;
}

/* The group of this round running workload (every group here runs side's kernel). */
static struct lab_round_group *group_for(struct gate *gate, enum side side, const char *workload)
{
	struct lab_session *session = gate->options.session;
	size_t g;

	for (g = 0; g < gate->round.group_count; g++) {
		if (strcmp(gate->round.groups[g].workload->name, workload) == 0)
			return &gate->round.groups[g];
	}
	return lab_round_add(&gate->round, side_commit(gate, side), job_find_workload(session->job, workload), 1);
}

/* A resumed gate runs side's matrix only where it has no result yet (a run
 * the stop cut off, lab trouble): a cell with one is never run again. One
 * workload per board per round, so groups never share a board; each cell is
 * asked once per resume. false: nothing is missing. */
static bool start_catch_up(struct gate *gate, enum side side)
{
	size_t i, asked = 0;
	const char *last_board = NULL;

	lab_round_clear(&gate->round);
	for (i = 0; i < gate->answer.cell_count; i++) {
		struct gate_cell *cell = &gate->answer.cells[i];
		struct lab_round_group *group;

		if (has_result(cell, side) || gate->catch_up_tried[side][i] ||
		    (last_board && strcmp(last_board, cell->board) == 0))
			continue;
		group = group_for(gate, side, cell->workload);
		if (!group)
			break;
		group->boards[group->board_count++] = board_set_find(&gate->options.session->boards,
								     cell->board);
		gate->catch_up_tried[side][i] = true;
		last_board = cell->board;	/* cells are board by board */
		asked++;
	}
	if (asked == 0)
		return false;
	progress(gate, "%s %s: %zu cell%s of the matrix without a result, run again",
		 role_names[side], side_ref(gate, side), asked, asked == 1 ? "" : "s");
	gate->running = side;
	launch(gate);
	return true;
}

/*
 * The baseline's matrix, one run per cell, after the candidate's: the
 * report compares the two kernels cell by cell (power and energy too), and
 * a cell the baseline fails is known failing whichever way the candidate
 * went. The rounds after it add baseline runs only where the candidate
 * failed and the test needs them. A new gate runs every cell at once; a
 * resumed one those without a result. Not when both are one commit (a
 * branch's first night, gated against itself). false: nothing to run.
 */
static void say_tally(struct gate *gate);

static bool start_baseline_matrix(struct gate *gate)
{
	if (strcmp(side_commit(gate, BASELINE), side_commit(gate, CANDIDATE)) == 0)
		return false;
	if (gate->options.resume)
		return start_catch_up(gate, BASELINE);
	if (gate->baseline_matrix_started)
		return false;
	gate->baseline_matrix_started = true;
	say_tally(gate);	/* the candidate's matrix */
	start_matrix(gate, BASELINE);
	return true;
}

static bool undecided(const struct gate_regression *regression)
{
	return regression->boards[0] && !regression->confirmed;
}

static bool board_taken(const struct lab_round *round, const struct board *board)
{
	size_t g, b;

	for (g = 0; g < round->group_count; g++) {
		for (b = 0; b < round->groups[g].board_count; b++) {
			if (round->groups[g].boards[b] == board)
				return true;
		}
	}
	return false;
}

static size_t list_count(const char *list)
{
	size_t count = list[0] != '\0';

	for (; *list; list++)
		count += *list == ',';
	return count;
}

bool gate_needs_candidate_again(const struct gate_regression *regression)
{
	size_t boards = list_count(regression->boards);
	unsigned int missing;

	/* asked enough: from here the baseline settles it, round after round */
	if (regression->candidate_runs >= CANDIDATE_RUNS_PER_BOARD * boards)
		return false;
	if (regression->passes_needed == UINT32_MAX)
		return true;
	missing = regression->passes_needed > regression->baseline_passes
			  ? regression->passes_needed - regression->baseline_passes : 0;
	return missing > MAX_REPEAT * boards;
}

/* One group: an undecided workload on its boards not taken by another group
 * this round; the baseline as many times as the decision still needs, or the
 * candidate CANDIDATE_REPEAT times. */
static void add_deciding_group(struct gate *gate, const struct gate_regression *regression)
{
	struct lab_round_group *group = NULL;
	char copy[512], *name, *save = NULL;
	unsigned int missing = regression->passes_needed - regression->baseline_passes;
	const char *side = gate->running == BASELINE ? "baseline" : "candidate";

	snprintf(copy, sizeof(copy), "%s", regression->boards);
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		struct board *board = board_set_find(&gate->options.session->boards, name);

		if (!board || board_taken(&gate->round, board))
			continue;
		if (!group)
			group = lab_round_add(&gate->round, spec_string(gate->options.spec, side),
					      job_find_workload(gate->options.session->job, regression->workload), 1);
		if (!group)
			return;
		group->boards[group->board_count++] = board;
	}
	if (!group)
		return;	/* its boards are busy with another workload: next round */
	if (gate->running == BASELINE) {
		group->repeat = (missing + group->board_count - 1) / group->board_count;
		group->repeat = group->repeat < 1 ? 1 : group->repeat > MAX_REPEAT ? MAX_REPEAT : group->repeat;
	} else {
		group->repeat = CANDIDATE_REPEAT;
	}
	progress(gate, "%s %s: %s on %zu boards, %u run%s each%s", side,
		 spec_string(gate->options.spec, gate->running == BASELINE ? "baseline_ref" : "candidate_ref"),
		 regression->workload, group->board_count, group->repeat, group->repeat == 1 ? "" : "s",
		 gate->running == BASELINE ? "" : " (too few failures yet to tell it from the baseline)");
}

/* A workload the candidate was asked again and failed in none of those runs
 * (counted from the store, so a resumed gate knows it too): its failure did
 * not come back, and more runs would only say so again. */
static bool not_reproduced(const struct gate *gate, const struct gate_regression *regression)
{
	size_t w;

	return workload_position(gate->options.session->job, regression->workload, &w) &&
	       gate->again_runs[w] > 0 && gate->again_fails[w] == 0;
}

static bool still_open(const struct gate *gate, const struct gate_regression *regression)
{
	return undecided(regression) && !not_reproduced(gate, regression);
}

/* The next round on the workloads still open: the baseline where one round
 * of it can settle the question, the candidate again where it failed too
 * seldom for that. A round runs one side (its runs are linked by role), so
 * when both are wanted they take turns: neither kind of workload waits out
 * the round limit behind the other. A board runs one workload per round, so
 * groups never share a board. */
static bool start_deciding_round(struct gate *gate)
{
	bool wants[2] = { false, false };	/* [0] the baseline, [1] the candidate again */
	size_t r;

	for (r = 0; r < gate->answer.regression_count; r++) {
		const struct gate_regression *regression = &gate->answer.regressions[r];

		if (still_open(gate, regression))
			wants[gate_needs_candidate_again(regression)] = true;
	}
	lab_round_clear(&gate->round);
	gate->running = wants[1] && (!wants[0] || gate->running != CANDIDATE_AGAIN) ? CANDIDATE_AGAIN : BASELINE;
	for (r = 0; r < gate->answer.regression_count; r++) {
		const struct gate_regression *regression = &gate->answer.regressions[r];

		if (still_open(gate, regression) &&
		    (gate->running == CANDIDATE_AGAIN) == gate_needs_candidate_again(regression))
			add_deciding_group(gate, regression);
	}
	if (gate->round.group_count == 0)
		return false;
	gate->deciding_rounds++;
	launch(gate);
	return true;
}

/* The runs so far of the side the round just done ran. */
static void say_tally(struct gate *gate)
{
	const unsigned int *runs = gate->answer.runs[tally_side(gate->running)];

	progress(gate, "%s so far: %u PASS, %u FAIL, %u SKIP, %u INFRA", role_names[gate->running],
		 runs[RUN_PASS], runs[RUN_FAIL], runs[RUN_SKIP], runs[RUN_INFRA]);
}

static void say_round(struct gate *gate)
{
	size_t r;

	say_tally(gate);
	for (r = 0; r < gate->answer.regression_count; r++) {
		const struct gate_regression *regression = &gate->answer.regressions[r];

		if (!regression->boards[0])
			progress(gate, "  %s: fails on the baseline too (%s): known failing",
				 regression->workload, regression->known_failing);
		else
			progress(gate, "  %s: %s; candidate failed %u of %u runs on %s, baseline passed %u "
				 "there (%u needed): %s", regression->workload, regression->symptom,
				 regression->candidate_fails, regression->candidate_runs, regression->boards,
				 regression->baseline_passes, regression->passes_needed,
				 regression->confirmed ? "regression" : "not told apart yet");
	}
}

static bool build_failed(struct gate *gate)
{
	return gate->round.group_count && gate->round.groups[0].result.status == -ENOEXEC;
}

static void on_round_done(void *data)
{
	struct gate *gate = data;
	size_t r;
	bool open = false;

	if (gate->trouble || judge(gate) != 0) {
		if (!gate->trouble)
			snprintf(gate->answer.reason, sizeof(gate->answer.reason),
				 "cannot read the gate's runs back: %s",
				 store_error_message(gate->options.session->store));
		gate->trouble = true;
		finish(gate);
		return;
	}
	if (build_failed(gate)) {
		/* a baseline that does not build is trouble where a failure of the
		 * candidate needs it; its matrix alone is only the report's */
		if (gate->running != BASELINE)
			gate->answer.candidate_build_failed = true;
		else if (gate->answer.regression_count)
			snprintf(gate->answer.reason, sizeof(gate->answer.reason),
				 "the baseline %.64s does not build (log: %.400s)",
				 spec_string(gate->options.spec, "baseline_ref"), gate->round.groups[0].result.log);
		gate->trouble = gate->running == BASELINE && gate->answer.regression_count;
		finish(gate);
		return;
	}
	if (gate->running == CANDIDATE && gate->options.resume && !gate->options.answer_stored &&
	    start_catch_up(gate, CANDIDATE))
		return;
	if (!gate->options.answer_stored && (gate->running == CANDIDATE || !gate->deciding_rounds) &&
	    start_baseline_matrix(gate))
		return;
	say_round(gate);
	for (r = 0; r < gate->answer.regression_count; r++)
		open |= still_open(gate, &gate->answer.regressions[r]);
	if (open && gate->deciding_rounds < MAX_DECIDING_ROUNDS && start_deciding_round(gate))
		return;
	finish(gate);
}

static void on_round_trouble(const char *reason, void *data)
{
	struct gate *gate = data;

	snprintf(gate->answer.reason, sizeof(gate->answer.reason), "%s", reason);
	gate->trouble = true;
}

/* ---- the verdict ------------------------------------------------------------------------------ */

double gate_expected_failures_per_round(const struct gate_regression *regression)
{
	return regression->candidate_runs
		       ? (double)list_count(regression->boards) * regression->candidate_fails /
				 regression->candidate_runs : 0;
}

const struct gate_regression *gate_regression_to_bisect(const struct gate_answer *answer, const bool *answered)
{
	const struct gate_regression *best = NULL;
	size_t i;

	for (i = 0; i < answer->regression_count; i++) {
		const struct gate_regression *regression = &answer->regressions[i];

		if (regression->confirmed && !(answered && answered[i]) &&
		    (!best || gate_expected_failures_per_round(regression) > gate_expected_failures_per_round(best)))
			best = regression;
	}
	return best;
}

/* Why the open workloads stay open, for the answer's reason. */
static void say_why_open(struct gate *gate)
{
	struct gate_answer *answer = &gate->answer;
	double confidence = json_number_value(json_object_get(gate->options.spec, "confidence"));
	size_t r;

	for (r = 0; r < answer->regression_count; r++) {
		const struct gate_regression *regression = &answer->regressions[r];

		if (!undecided(regression))
			continue;
		if (not_reproduced(gate, regression))
			snprintf(answer->reason, sizeof(answer->reason), "the candidate failed %s on %.200s, "
				 "then passed it every time it was asked again (%u fails in %u runs): too few "
				 "failures to tell it from the baseline at %.2f", regression->workload,
				 regression->boards, regression->candidate_fails, regression->candidate_runs,
				 confidence);
		else
			snprintf(answer->reason, sizeof(answer->reason), "the candidate failed %s where the "
				 "baseline passed (%u fails in %u runs; the baseline passed %u of %u needed), but "
				 "not often enough to tell them apart at %.2f within %u rounds",
				 regression->workload, regression->candidate_fails, regression->candidate_runs,
				 regression->baseline_passes, regression->passes_needed, confidence,
				 MAX_DECIDING_ROUNDS);
		return;
	}
}

static enum gate_verdict verdict_of(struct gate *gate)
{
	struct gate_answer *answer = &gate->answer;
	bool confirmed = false, open = false;
	size_t r, i;

	if (answer->candidate_build_failed) {
		snprintf(answer->reason, sizeof(answer->reason), "the candidate %s does not build",
			 spec_string(gate->options.spec, "candidate_ref"));
		return GATE_REGRESSION;
	}
	if (gate->trouble)
		return GATE_INCOMPLETE;
	for (r = 0; r < answer->regression_count; r++) {
		confirmed |= answer->regressions[r].confirmed;
		open |= undecided(&answer->regressions[r]);
	}
	if (confirmed)
		return GATE_REGRESSION;
	if (open) {
		say_why_open(gate);
		return GATE_INCOMPLETE;
	}
	for (i = 0; i < answer->cell_count; i++) {
		const unsigned int *runs = answer->cells[i].runs[CANDIDATE];

		if (runs[RUN_PASS] + runs[RUN_FAIL] == 0) {
			snprintf(answer->reason, sizeof(answer->reason), "%s on %s has no result (lab "
				 "trouble: see `rackbisect runs`)", answer->cells[i].workload,
				 answer->cells[i].board);
			return GATE_INCOMPLETE;
		}
	}
	return GATE_PASS;
}

static void finish(struct gate *gate)
{
	json_t *answer;
	char *text;

	if (gate->finished)
		return;
	gate->finished = true;
	gate->answer.verdict = verdict_of(gate);
	answer = gate_answer_json(gate);
	text = json_dumps(answer, JSON_COMPACT | JSON_SORT_KEYS);
	if (gate->options.answer_stored)
		;	/* recounted after a stop: the verdict stored then stands */
	else if (!text || store_gate_finish(gate->options.session->store, gate->options.gate_id,
				       gate->trouble ? STORE_GATE_ABORTED : STORE_GATE_DONE,
				       gate_verdict_name(gate->answer.verdict), text) != 0)
		log_event(&gate->options.session->log, LOG_NOTICE, NULL, 0, "store-error",
			  "cannot store the gate's answer: %s", store_error_message(gate->options.session->store));
	free(text);
	json_decref(answer);
	gate->done(gate, gate->data);
}

/* The stored runs are where a resumed gate starts: the candidate's missing
 * cells first, then the baseline as the runs so far ask (as after a round). */
static void resume(struct gate *gate)
{
	gate->running = CANDIDATE;
	progress(gate, "resumed from its stored runs");
	if (!gate->options.answer_stored) {
		on_round_done(gate);
		return;
	}
	if (judge(gate) != 0) {
		snprintf(gate->answer.reason, sizeof(gate->answer.reason),
			 "cannot read the gate's runs back: %s", store_error_message(gate->options.session->store));
		gate->trouble = true;
	}
	finish(gate);
}

/* ---- the interface -------------------------------------------------------------------------- */

static void on_run_queued(int64_t run_id, const struct run_spec *spec, void *data)
{
	struct gate *gate = data;

	(void)spec;
	if (store_gate_add_run(gate->options.session->store, gate->options.gate_id, run_id,
			       role_names[gate->running]) != 0)
		log_event(&gate->options.session->log, LOG_NOTICE, NULL, run_id, "store-error",
			  "cannot link the run to gate %" PRId64 ": %s", gate->options.gate_id,
			  store_error_message(gate->options.session->store));
}

int gate_start(const struct gate_options *options, gate_done_cb done, void *data, struct gate **out)
{
	struct gate *gate = calloc(1, sizeof(*gate));

	if (!gate)
		return -ENOMEM;
	gate->options = *options;
	gate->done = done;
	gate->data = data;
	if (make_cells(gate) != 0 ||
	    !(gate->catch_up_tried[BASELINE] = calloc(gate->answer.cell_count + 1, sizeof(bool))) ||
	    !(gate->catch_up_tried[CANDIDATE] = calloc(gate->answer.cell_count + 1, sizeof(bool))) ||
	    !(gate->again_fails = calloc(options->session->job->workload_count + 1, sizeof(unsigned int))) ||
	    !(gate->again_runs = calloc(options->session->job->workload_count + 1, sizeof(unsigned int)))) {
		gate_free(gate);
		return -ENOMEM;
	}
	lab_round_init(&gate->round, options->session, options->tree, &(struct lab_round_hooks){
		.trouble = on_round_trouble, .done = on_round_done, .run_queued = on_run_queued,
		.data = gate });
	*out = gate;
	if (options->resume)
		resume(gate);
	else
		start_matrix(gate, CANDIDATE);
	return 0;
}

const struct gate_answer *gate_answer(const struct gate *gate)
{
	return &gate->answer;
}

static json_t *counts_json(const unsigned int *runs)
{
	return json_pack("{s:i,s:i,s:i,s:i}", "pass", runs[RUN_PASS], "fail", runs[RUN_FAIL], "skip",
			 runs[RUN_SKIP], "infra", runs[RUN_INFRA]);
}

static json_t *regression_json(const struct gate_regression *regression)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:f,s:f,s:b,s:I}",
			 "workload", regression->workload, "symptom", regression->symptom,
			 "symptoms", regression->symptoms, "boards", regression->boards,
			 "known_failing", regression->known_failing,
			 "candidate_fails", regression->candidate_fails,
			 "candidate_runs", regression->candidate_runs,
			 "baseline_passes", regression->baseline_passes,
			 "passes_needed", regression->passes_needed, "fail_rate", regression->fail_rate,
			 "split_chance", regression->split_chance,
			 "confirmed", regression->confirmed, "example_run", (json_int_t)regression->example_run);
}

json_t *gate_answer_json(const struct gate *gate)
{
	const struct gate_answer *answer = &gate->answer;
	json_t *root, *regressions = json_array(), *cells = json_array();
	size_t i;

	for (i = 0; i < answer->regression_count; i++)
		json_array_append_new(regressions, regression_json(&answer->regressions[i]));
	for (i = 0; i < answer->cell_count; i++) {
		const struct gate_cell *cell = &answer->cells[i];

		json_array_append_new(cells, json_pack("{s:s,s:s,s:s,s:o,s:o,s:s,s:s}", "board", cell->board,
						       "chip", cell->chip ? cell->chip : "", "workload",
						       cell->workload, "baseline", counts_json(cell->runs[BASELINE]),
						       "candidate", counts_json(cell->runs[CANDIDATE]),
						       "baseline_symptoms", cell->symptoms[BASELINE],
						       "candidate_symptoms", cell->symptoms[CANDIDATE]));
	}
	root = json_pack("{s:s,s:s,s:i,s:o,s:o,s:b}", "verdict", gate_verdict_name(answer->verdict),
			 "reason", answer->reason, "rounds", answer->rounds,
			 "baseline", counts_json(answer->runs[BASELINE]),
			 "candidate", counts_json(answer->runs[CANDIDATE]),
			 "candidate_build_failed", answer->candidate_build_failed);
	json_object_set_new(root, "regressions", regressions);
	json_object_set_new(root, "cells", cells);
	return root;
}

void gate_free(struct gate *gate)
{
	if (!gate)
		return;
	lab_round_clear(&gate->round);
	free(gate->answer.cells);
	free(gate->answer.regressions);
	free(gate->catch_up_tried[BASELINE]);
	free(gate->catch_up_tried[CANDIDATE]);
	free(gate->again_fails);
	free(gate->again_runs);
	free(gate);
}
