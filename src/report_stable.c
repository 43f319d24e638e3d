/* report_stable.c - the stable-review reply, plain text. */
#include "report_stable.h"

#include <string.h>

static void write_header(FILE *out, const struct report_stable *report)
{
	const struct gate_answer *gate = report->gate;
	const unsigned int *c = gate->runs[1], *b = gate->runs[0];
	unsigned int candidate = c[RUN_PASS] + c[RUN_FAIL] + c[RUN_SKIP] + c[RUN_INFRA];
	unsigned int baseline = b[RUN_PASS] + b[RUN_FAIL] + b[RUN_SKIP] + b[RUN_INFRA];

	fprintf(out, "%s: %s\n\n", report->candidate_ref, gate_verdict_name(gate->verdict));
	if (gate->reason[0])
		fprintf(out, "%s\n\n", gate->reason);
	fprintf(out, "Candidate: %s (git describe: %s, %.12s)\n", report->candidate_ref,
		report->candidate_describe, report->candidate_id);
	fprintf(out, "Baseline:  %s (%.12s)\n", report->baseline_ref, report->baseline_id);
	fprintf(out, "Job %s on lab %s\n", report->job, report->lab);
	fprintf(out, "Runs: %u in all; candidate %u (%u pass, %u fail, %u skip, %u lab trouble), "
		"baseline %u (%u pass, %u fail, %u skip, %u lab trouble)\n", candidate + baseline,
		candidate, c[RUN_PASS], c[RUN_FAIL], c[RUN_SKIP], c[RUN_INFRA], baseline, b[RUN_PASS],
		b[RUN_FAIL], b[RUN_SKIP], b[RUN_INFRA]);
}

/* Boards with their chips, and the chips, as a maintainer asks "tested on what?". */
static void write_boards(FILE *out, const struct gate_answer *gate)
{
	char chips[512] = "";
	size_t i, j;

	fprintf(out, "Boards:");
	for (i = 0; i < gate->cell_count; i++) {
		const struct gate_cell *cell = &gate->cells[i];
		bool seen = false;

		for (j = 0; j < i; j++)
			seen |= strcmp(gate->cells[j].board, cell->board) == 0;
		if (seen)
			continue;
		fprintf(out, " %s (%s)", cell->board, cell->chip ? cell->chip : "?");
		if (cell->chip && !strstr(chips, cell->chip) && strlen(chips) + strlen(cell->chip) + 3 < sizeof(chips))
			snprintf(chips + strlen(chips), sizeof(chips) - strlen(chips), "%s%s",
				 chips[0] ? ", " : "", cell->chip);
	}
	fprintf(out, "\nChips: %s\n", chips);
}

static void write_excerpt(FILE *out, const char *excerpt)
{
	const char *line = excerpt, *end;
	int lines = 0;

	while (line && *line && lines < 8) {
		end = strchr(line, '\n');
		fprintf(out, "      %.*s\n", end ? (int)(end - line) : (int)strlen(line), line);
		line = end ? end + 1 : NULL;
		lines++;
	}
}

static void write_regressions(FILE *out, const struct report_stable *report)
{
	const struct gate_answer *gate = report->gate;
	size_t r;
	bool any = false, known = false;

	for (r = 0; r < gate->regression_count; r++) {
		const struct gate_regression *regression = &gate->regressions[r];

		if (!regression->boards[0])
			continue;
		if (!any)
			fprintf(out, "\nRegressions:\n");
		any = true;
		fprintf(out, "  %s: %s%s (symptoms seen: %s)\n", regression->workload, regression->symptom,
			regression->confirmed ? "" : " (not confirmed)", regression->symptoms);
		fprintf(out, "    candidate failed %u of %u runs on %s; the baseline passed %u there "
			"(%u needed to tell them apart)\n", regression->candidate_fails,
			regression->candidate_runs, regression->boards, regression->baseline_passes,
			regression->passes_needed);
		if (report->excerpts && report->excerpts[r]) {
			fprintf(out, "    kernel log (run %lld):\n", (long long)regression->example_run);
			write_excerpt(out, report->excerpts[r]);
		}
	}
	for (r = 0; r < gate->regression_count; r++) {
		const struct gate_regression *regression = &gate->regressions[r];

		if (!regression->known_failing[0])
			continue;
		if (!known)
			fprintf(out, "\nKnown failing (the baseline fails them too, not regressions):\n");
		known = true;
		fprintf(out, "  %s on %s\n", regression->workload, regression->known_failing);
	}
}

static void write_culprit(FILE *out, const struct report_stable *report,
			  const struct report_stable_culprit *culprit, size_t index)
{
	const struct stable_patch *patch = culprit->patch;

	if (report->culprit_count == 1)
		fprintf(out, "\nCulprit in the queue (bisection %lld%s, probability %.4f, %u runs):\n",
			(long long)culprit->bisection, culprit->reused ? ", bisected before" : "",
			culprit->probability, culprit->runs);
	else
		fprintf(out, "\nCulprit %zu of %zu in the queue, behind %s (bisection %lld%s, probability "
			"%.4f, %u runs):\n", index + 1, report->culprit_count,
			culprit->regressions ? culprit->regressions : "?", (long long)culprit->bisection,
			culprit->reused ? ", bisected before" : "", culprit->probability, culprit->runs);
	fprintf(out, "  commit %.12s (\"%s\")\n  Author: %s\n", patch->commit, patch->subject, patch->author);
	if (patch->upstream[0])
		fprintf(out, "  upstream commit %.12s\n", patch->upstream);
	else
		fprintf(out, "  names no upstream commit\n");
	if (culprit->mainline) {
		const struct mainline_status *mainline = culprit->mainline;

		fprintf(out, "  in %s: %s\n", report->mainline_ref,
			mainline->upstream_in_mainline ? "yes" : "no");
		if (mainline->revert[0])
			fprintf(out, "  mainline revert: %.12s (\"%s\")\n", mainline->revert,
				mainline->revert_subject);
		if (mainline->fix[0])
			fprintf(out, "  mainline fix: %.12s (\"%s\")\n", mainline->fix, mainline->fix_subject);
		if (!mainline->revert[0] && !mainline->fix[0])
			fprintf(out, "  mainline has neither a revert nor a fix of it\n");
	}
	fprintf(out, "\nWhat the stable rules allow:\n  %s\n", culprit->advice);
}

/* Each culprit, then what was left without one; or why nothing was bisected. */
static void write_culprits(FILE *out, const struct report_stable *report)
{
	size_t i;

	for (i = 0; i < report->culprit_count; i++)
		write_culprit(out, report, &report->culprits[i], i);
	if (report->bisect_note && report->culprit_count)
		fprintf(out, "\nLeft without a culprit in the queue: %s\n", report->bisect_note);
	else if (report->bisect_note)
		fprintf(out, "\nCulprit: %s\n", report->bisect_note);
}

static void write_audit(FILE *out, const struct report_stable *report)
{
	size_t i, patches;

	if (!report->queue)
		return;
	for (i = 0, patches = 0; i < report->queue->count; i++)
		patches += !report->queue->patches[i].release_commit && !report->queue->patches[i].merge;
	fprintf(out, "\nQueue audit (%zu patches): ", patches);
	if (!report->astray_count) {
		fprintf(out, "every patch names its upstream commit%s\n",
			report->mainline_ref ? ", and each is in mainline" : "");
		return;
	}
	fprintf(out, "%zu astray (mainline first: no upstream commit, or one not in %s)\n",
		report->astray_count, report->mainline_ref ? report->mainline_ref : "mainline");
	for (i = 0; i < report->astray_count; i++) {
		const struct stable_patch *patch = &report->queue->patches[report->astray[i]];

		fprintf(out, "  %.12s (\"%s\"): %s\n", patch->commit, patch->subject,
			patch->upstream[0] ? "upstream commit not in mainline" : "names no upstream commit");
	}
}

void report_stable_write(FILE *out, const struct report_stable *report)
{
	write_header(out, report);
	write_boards(out, report->gate);
	write_regressions(out, report);
	write_culprits(out, report);
	write_audit(out, report);
	if (report->gate->verdict == GATE_PASS)
		fprintf(out, "\nNo regressions found on these boards.\n\nTested-by: %s\n", report->tested_by);
}
