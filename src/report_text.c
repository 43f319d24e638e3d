/* report_text.c - a report as plain ASCII for terminals and mail. */
#include "report_text.h"

#include <inttypes.h>
#include <string.h>

/* Stored text on one line: what is not printable ASCII becomes '?', so
 * a hostile or binary string cannot move the cursor or break a mail. */
static void put_line_text(FILE *out, const char *text)
{
	for (; text && *text; text++) {
		unsigned char c = (unsigned char)*text;

		fputc(c >= 0x20 && c < 0x7f ? c : c == '\n' || c == '\t' ? ' ' : '?', out);
	}
}

/* A padded column of stored text (cut at width). */
static void put_column(FILE *out, const char *text, int width)
{
	int used = 0;

	for (; text && *text && used < width; text++, used++) {
		unsigned char c = (unsigned char)*text;

		fputc(c >= 0x20 && c < 0x7f ? c : '?', out);
	}
	for (; used < width; used++)
		fputc(' ', out);
	fputc(' ', out);
}

static void put_counts(FILE *out, const unsigned int *by_outcome)
{
	char text[64];

	snprintf(text, sizeof(text), "%u/%u/%u/%u", by_outcome[RUN_PASS], by_outcome[RUN_FAIL],
		 by_outcome[RUN_INFRA], by_outcome[RUN_SKIP]);
	put_column(out, text, 12);
}

static void write_matrix(FILE *out, const struct report_gate *gate)
{
	size_t i;

	if (!gate->cell_count)
		return;
	fprintf(out, "\nMatrix (runs pass/fail/infra/skip)\n  ");
	put_column(out, "board", 8), put_column(out, "chip", 8), put_column(out, "workload", 8);
	put_column(out, "baseline", 12), put_column(out, "candidate", 12);
	fprintf(out, "symptoms (baseline | candidate)\n");
	for (i = 0; i < gate->cell_count; i++) {
		const struct report_cell *cell = &gate->cells[i];

		fputs("  ", out);
		put_column(out, cell->board, 8), put_column(out, cell->chip, 8);
		put_column(out, cell->workload, 8);
		put_counts(out, cell->baseline), put_counts(out, cell->candidate);
		put_line_text(out, cell->baseline_symptoms && *cell->baseline_symptoms ? cell->baseline_symptoms : "-");
		fputs(" | ", out);
		put_line_text(out, cell->candidate_symptoms && *cell->candidate_symptoms ? cell->candidate_symptoms : "-");
		fputc('\n', out);
	}
}

static void write_regressions(FILE *out, const struct report_gate *gate)
{
	size_t i;

	if (!gate->regression_count)
		return;
	fprintf(out, "\nRegressions\n");
	for (i = 0; i < gate->regression_count; i++) {
		const struct report_regression *r = &gate->regressions[i];

		fputs("  ", out), put_line_text(out, r->workload), fputs(": ", out);
		put_line_text(out, r->symptom), fputs(" on ", out), put_line_text(out, r->boards);
		fprintf(out, "; candidate failed %u of %u, baseline passed %u (%u needed): %s",
			r->candidate_fails, r->candidate_runs, r->baseline_passes, r->passes_needed,
			r->confirmed ? "confirmed" : "not told apart yet");
		if (r->known_failing && *r->known_failing)
			fputs("; known failing on ", out), put_line_text(out, r->known_failing);
		if (r->example_run)
			fprintf(out, "; example run %" PRId64, r->example_run);
		fputc('\n', out);
	}
}

static void write_commit(FILE *out, const struct report_data *data, const char *label, const char *id)
{
	const struct report_commit *commit = report_data_commit(data, id);

	if (!id)
		return;
	fprintf(out, "  %s %.12s", label, id);
	if (commit && commit->ref)
		fputs(" (", out), put_line_text(out, commit->ref), fputc(')', out);
	if (commit && commit->description)
		fputc(' ', out), put_line_text(out, commit->description);
	fputc('\n', out);
}

static void write_path(FILE *out, const struct report_data *data, const struct report_bisection *b)
{
	size_t i;

	fprintf(out, "  Path (runs in order; the most probable first bad commit after each):\n    ");
	put_column(out, "#", 3), put_column(out, "run", 6), put_column(out, "role", 9);
	put_column(out, "commit", 12), put_column(out, "board", 8), put_column(out, "result", 6);
	put_column(out, "counted", 7), put_column(out, "best", 12);
	fprintf(out, "p       left\n");
	for (i = 0; i < b->step_count; i++) {
		const struct report_step *step = &b->steps[i];
		const struct report_run *entry = &data->runs[step->run];
		const struct store_run *run = entry->run;
		char number[32];

		fputs("    ", out);
		snprintf(number, sizeof(number), "%zu", i + 1), put_column(out, number, 3);
		snprintf(number, sizeof(number), "%" PRId64, run->id), put_column(out, number, 6);
		put_column(out, entry->bisection_role, 9), put_column(out, run->commit, 12);
		put_column(out, run->board ? run->board : "-", 8);
		put_column(out, report_outcome_name(run->outcome), 6);
		put_column(out, step->counted ? entry->evidence : "no", 7);
		if (step->has_belief)
			fprintf(out, "%-12.12s %.4f  %zu", step->best, step->best_probability, step->candidates_left);
		else
			fputs("-", out);
		fputc('\n', out);
	}
	if (b->path_note)
		fputs("  (", out), put_line_text(out, b->path_note), fputs(")\n", out);
}

static void write_bisection(FILE *out, const struct report_data *data)
{
	const struct report_bisection *b = data->bisection;

	fprintf(out, "\nBisection %" PRId64 ": ", b->id);
	put_line_text(out, b->outcome ? b->outcome : b->state);
	fputs(" (tracking ", out), put_line_text(out, b->symptom ? b->symptom : "?");
	fputs(" in ", out), put_line_text(out, b->workload ? b->workload : "?");
	if (b->candidate_count)
		fprintf(out, ", %zu candidates", b->candidate_count);
	fputs(")\n", out);
	write_commit(out, data, "good", b->good);
	write_commit(out, data, "bad ", b->bad);
	if (b->culprit) {
		write_commit(out, data, "first bad commit:", b->culprit);
		fprintf(out, "  probability %.4f (confidence %.4g), %u runs, %u rounds, failure rate "
			"estimate %.2f\n", b->probability, b->confidence, b->runs, b->rounds, b->fail_rate);
	}
	if (b->confirmation && *b->confirmation)
		fputs("  confirmed: ", out), put_line_text(out, b->confirmation), fputc('\n', out);
	if (b->reason && *b->reason)
		fputs("  ", out), put_line_text(out, b->reason), fputc('\n', out);
	write_path(out, data, b);
}

/* A gate's other bisections, one per regression: what each tracked and found. */
static void write_other_bisections(FILE *out, const struct report_data *data)
{
	size_t i;

	for (i = 0; i < data->also_count; i++) {
		const struct report_bisection *b = data->also[i];

		fprintf(out, "\nBisection %" PRId64 " of this gate too: ", b->id);
		put_line_text(out, b->outcome ? b->outcome : b->state);
		fputs(" (tracking ", out), put_line_text(out, b->symptom ? b->symptom : "?");
		fputs(" in ", out), put_line_text(out, b->workload ? b->workload : "?");
		fputs(")\n", out);
		if (b->culprit) {
			write_commit(out, data, "first bad commit:", b->culprit);
			fprintf(out, "  probability %.4f, %u runs\n", b->probability, b->runs);
		}
	}
}

/* The symptom's first kernel log line, or the cause: why a run failed, briefly. */
static void write_run_why(FILE *out, const struct store_run *run)
{
	size_t i;

	for (i = 0; i < run->symptom_count; i++)
		fputs(i ? "," : "", out), put_line_text(out, run->symptoms[i].name);
	if (!run->symptom_count && run->cause)
		put_line_text(out, run->cause);
	fputc('\n', out);
	for (i = 0; i < run->symptom_count; i++) {
		const char *evidence = run->symptoms[i].evidence;
		size_t length = evidence ? strcspn(evidence, "\n") : 0;
		char line[160];

		if (!length)
			continue;
		snprintf(line, sizeof(line), "%.*s", (int)(length < sizeof(line) - 1 ? length : sizeof(line) - 1),
			 evidence);
		fputs("          kernel log: ", out), put_line_text(out, line), fputc('\n', out);
	}
}

static void write_runs(FILE *out, const struct report_data *data)
{
	size_t i;

	fprintf(out, "\nRuns (%zu)\n  ", data->run_count);
	put_column(out, "run", 6), put_column(out, "role", 15), put_column(out, "board", 8);
	put_column(out, "workload", 8), put_column(out, "commit", 12), put_column(out, "outcome", 7);
	fputs("why\n", out);
	for (i = 0; i < data->run_count; i++) {
		const struct store_run *run = data->runs[i].run;
		char text[64];

		fputs("  ", out);
		snprintf(text, sizeof(text), "%" PRId64, run->id), put_column(out, text, 6);
		put_column(out, report_run_role(&data->runs[i]), 15);
		put_column(out, run->board ? run->board : "-", 8);
		snprintf(text, sizeof(text), "%.32s #%u", run->workload, run->repeat_index + 1);
		put_column(out, text, 8), put_column(out, run->commit, 12);
		put_column(out, run->state == RUN_DONE ? report_outcome_name(run->outcome) : "-", 7);
		write_run_why(out, run);
	}
	fputs("\nRun logs: ", out), put_line_text(out, data->state_dir);
	fputs("/runs/<run>/ (verdict.txt, output.ktap, dmesg.log, console.log; `rackbisect show RUN`)\n", out);
}

void report_text_write(FILE *out, const struct report_data *data)
{
	put_line_text(out, data->verdict), fputs("  ", out), put_line_text(out, data->title);
	fputc('\n', out);
	put_line_text(out, data->summary), fputc('\n', out);
	if (data->gate) {
		write_commit(out, data, "baseline ", data->gate->baseline);
		write_commit(out, data, "candidate", data->gate->candidate);
		write_regressions(out, data->gate);
		write_matrix(out, data->gate);
	}
	if (data->bisection)
		write_bisection(out, data);
	write_other_bisections(out, data);
	write_runs(out, data);
}

/* ---- report nightly ------------------------------------------------------------------------------ */

/* "abcdef123456 (new, bisection 2)", "... (known, bisection 2)" or "-" */
static void put_culprit(FILE *out, const struct report_night *night)
{
	char text[96];

	if (!night->bisection_id) {
		put_column(out, "-", 40);
		return;
	}
	snprintf(text, sizeof(text), "%.12s (%s, bisection %" PRId64 ")",
		 night->culprit ? night->culprit : night->bisection_outcome ? night->bisection_outcome : "?",
		 night->bisection_reused ? "known" : "new", night->bisection_id);
	put_column(out, text, 40);
}

static void write_night(FILE *out, const struct report_night *night)
{
	char text[64];
	size_t i;

	fputs("  ", out);
	report_night_date(night->created_ms, text, sizeof(text)), put_column(out, text, 16);
	snprintf(text, sizeof(text), "%" PRId64, night->gate_id), put_column(out, text, 5);
	put_column(out, night->head, 12);
	if (night->first_night)
		snprintf(text, sizeof(text), "first night");
	else if (night->baseline_gate)
		snprintf(text, sizeof(text), "%.12s gate %" PRId64, night->baseline, night->baseline_gate);
	else
		snprintf(text, sizeof(text), "%.12s", night->baseline);
	put_column(out, text, 25);
	put_column(out, night->verdict, 10);
	put_counts(out, night->head_runs);
	put_culprit(out, night);
	for (i = 0; i < night->regression_count; i++) {
		fputs(i ? ", " : "", out), put_line_text(out, night->regressions[i].workload);
		fputs(" (", out), put_line_text(out, night->regressions[i].symptom ? night->regressions[i].symptom
						   : "?");
		fputc(')', out);
	}
	if (!night->regression_count)
		put_line_text(out, night->reason && *night->reason ? night->reason : "-");
	fputc('\n', out);
}

void report_text_write_nights(FILE *out, const struct report_nights *nights)
{
	size_t b, i;

	put_line_text(out, nights->verdict), fputs("  ", out), put_line_text(out, nights->title);
	fputc('\n', out);
	put_line_text(out, nights->summary), fputc('\n', out);
	for (b = 0; b < nights->branch_count; b++) {
		const struct report_branch *branch = &nights->branches[b];

		fputs("\nBranch ", out), put_line_text(out, branch->night);
		fprintf(out, " (%zu night%s, oldest first; runs of the head pass/fail/infra/skip)\n  ", branch->count,
			branch->count == 1 ? "" : "s");
		put_column(out, "date (UTC)", 16), put_column(out, "gate", 5), put_column(out, "head", 12);
		put_column(out, "baseline (its night)", 25), put_column(out, "verdict", 10);
		put_column(out, "head runs", 12), put_column(out, "culprit (new: bisected that night)", 40);
		fputs("regressions\n", out);
		for (i = 0; i < branch->count; i++)
			write_night(out, &branch->nights[i]);
	}
	fputs("\nEach night is a gate: `rackbisect report gate ID` shows its matrix, runs and logs.\n", out);
}
