/* report_html.c - a report as one self-contained HTML page with inline SVG plots. */
#include "report_html.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

/* The page's only style: inline, so the file works anywhere, mailed or archived. */
static const char style[] =
	"body{font:14px/1.4 sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em;color:#222}"
	"h1{margin:0;font-size:1.8em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}"
	".verdict{padding:.8em 1em;border-radius:6px;border:2px solid #888;background:#f4f4f4}"
	".verdict.good{border-color:#2a7d2a;background:#eaf6ea}.verdict.bad{border-color:#b22;background:#fbeaea}"
	".verdict.unsure{border-color:#b80;background:#fdf5e0}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;"
	"text-align:left;vertical-align:top}th{background:#f0f0f0}"
	".PASS{color:#1d6b1d}.FAIL{color:#b22;font-weight:bold}.INFRA{color:#a60}.SKIP{color:#666}"
	"td.regressed{background:#fbeaea}td.known{background:#fdf5e0}"
	"code,.mono{font-family:monospace}pre{white-space:pre-wrap;margin:.2em 0;font-size:12px}"
	"svg{background:#fff;border:1px solid #ddd;margin:.5em 0;max-width:100%;height:auto}"
	"svg text{font:11px sans-serif;fill:#333}.todo{border-left:4px solid #b80;padding-left:.8em}"
	"nav a{margin-right:1em}"
	/* the trend's verdict squares and points, and the night a gate's report is about */
	"rect.mark{stroke:#555}.mark.good,circle.good{fill:#2a7d2a}.mark.bad,circle.bad{fill:#b22}"
	".mark.unsure,circle.unsure{fill:#e0a000}tr.current td{background:#fff8d0}"
	"td.verdict-cell.good{color:#1d6b1d}td.verdict-cell.bad{color:#b22;font-weight:bold}"
	"td.verdict-cell.unsure{color:#a60}";

/* Chart colours: one per series, enough for the workloads W1-W4 and more. */
static const char *const series_colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
					     "#ff7f0e", "#8c564b", "#e377c2", "#17becf" };
#define SERIES_COLOR_COUNT (sizeof(series_colors) / sizeof(series_colors[0]))

/* The power measurements the workloads print (drivers/workload/lib.sh rb_power_report). */
static const struct { const char *metric, *title; } power_metrics[] = {
	{ "power_avg", "Average power" },
	{ "energy", "Energy" },
};

/* ---- escaping ------------------------------------------------------------------------------------ */

/* Stored text as HTML text or attribute value: markup characters escaped, bytes
 * that are not UTF-8 shown as U+FFFD, control bytes dropped. */
static void put_html(FILE *out, const char *text)
{
	for (; text && *text; text++) {
		unsigned char c = (unsigned char)*text;
		size_t sequence = report_utf8_length(text);

		if (sequence > 1) {
			fwrite(text, 1, sequence, out);
			text += sequence - 1;
		} else if (sequence == 0) {
			fputs("\xef\xbf\xbd", out);
		} else if (c == '&') {
			fputs("&amp;", out);
		} else if (c == '<') {
			fputs("&lt;", out);
		} else if (c == '>') {
			fputs("&gt;", out);
		} else if (c == '"') {
			fputs("&quot;", out);
		} else if (c == '\'') {
			fputs("&#39;", out);
		} else if (c >= 0x20 || c == '\n' || c == '\t') {
			fputc(c, out);
		}
	}
}

/* A path as an href: percent-encoded (so no character can end the attribute). */
static void put_href(FILE *out, const char *path)
{
	for (; *path; path++) {
		unsigned char c = (unsigned char)*path;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/-._~", c))
			fputc(c, out);
		else
			fprintf(out, "%%%02X", c);
	}
}

static const char *outcome_class(const struct store_run *run)
{
	return run->state == RUN_DONE ? report_outcome_name(run->outcome) : "";
}

/* good (green), bad (red) or unsure (amber): from the verdict word, never put in the page raw */
static const char *verdict_class(const char *verdict)
{
	static const char *const good[] = { "PASS", "no regression" };
	static const char *const bad[] = { "REGRESSION", "FAIL", "found" };
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (strcmp(verdict, good[i]) == 0)
			return "good";
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (strcmp(verdict, bad[i]) == 0)
			return "bad";
	}
	return "unsure";
}

/* ---- paths ------------------------------------------------------------------------------------------ */

int report_html_relative_path(const char *from, const char *target, char *out, size_t len)
{
	size_t common = 0, target_common, i, used = 0;
	int rc = 0;

	/* the longest common prefix that ends at a component boundary */
	for (i = 0; from[i] && from[i] == target[i]; i++) {
		if (from[i] == '/')
			common = i + 1;
	}
	if (!from[i] && (target[i] == '/' || !target[i]))
		common = i + (target[i] == '/');
	else if (!from[i] && i > 0 && from[i - 1] == '/')
		common = i;
	target_common = common;
	out[0] = '\0';
	if (common > strlen(from))
		common = strlen(from);	/* `from` is the common part itself */
	/* one ".." per component of `from` below the common part */
	for (i = common; from[i] && rc == 0; i++) {
		if (from[i] != '/' && (i == common || from[i - 1] == '/')) {
			rc = path_format(out + used, len - used, "../");
			used += 3;
		}
	}
	if (rc == 0)
		rc = path_format(out + used, len - used, "%s", target + target_common);
	return rc;
}

static void put_log_link(FILE *out, const struct report_data *data,
			 const struct report_html_options *options, int64_t run_id, const char *name)
{
	char path[4096], relative[4096];
	const char *href = path;

	if (report_data_run_path(data, run_id, name, path, sizeof(path)))
		return;
	if (options->output_dir && path[0] == '/' &&
	    report_html_relative_path(options->output_dir, path, relative, sizeof(relative)) == 0)
		href = relative;
	fputs("<a href=\"", out);
	put_href(out, href);
	fputs("\">", out);
	put_html(out, name);
	fputs("</a>", out);
}

/* ---- SVG line charts ---------------------------------------------------------------------------------- */

struct chart_series {
	const char *name;
	const double *values;		/* one per x position */
	const bool *present;		/* which values exist */
	const char *const *point_class;	/* per point, a class for its marker; may be NULL */
	const char *const *point_title;	/* per point, a tooltip; may be NULL */
};

struct chart {
	const char *id, *title, *unit;
	const char *const *x_labels;
	size_t x_count;
	const struct chart_series *series;
	size_t series_count;
	double y_min, y_max;		/* y_max <= y_min: from the data */
	double threshold;		/* a dashed line (e.g. the confidence); NAN: none */
	const char *threshold_label;
	/* per x, a class for a square under the axis (a night's verdict: every
	 * night has one, whether or not a series has a point there); may be NULL */
	const char *const *x_marks;
	const char *const *x_mark_titles;	/* their tooltips */
	const char *x_marks_legend;
};

enum { CHART_WIDTH = 760, CHART_HEIGHT = 280, CHART_LEFT = 64, CHART_RIGHT = 150, CHART_TOP = 28,
       CHART_BOTTOM = 56 };

static void chart_range(const struct chart *chart, double *low, double *high)
{
	size_t s, i;

	*low = chart->y_min;
	*high = chart->y_max;
	if (*high > *low)
		return;
	*low = 0;
	*high = 0;
	for (s = 0; s < chart->series_count; s++) {
		for (i = 0; i < chart->x_count; i++) {
			if (chart->series[s].present[i] && chart->series[s].values[i] > *high)
				*high = chart->series[s].values[i];
		}
	}
	*high = *high > 0 ? *high * 1.15 : 1;
}

static double chart_x(const struct chart *chart, size_t i)
{
	double width = CHART_WIDTH - CHART_LEFT - CHART_RIGHT;

	return chart->x_count < 2 ? CHART_LEFT + width / 2
		: CHART_LEFT + width * (double)i / (double)(chart->x_count - 1);
}

static double chart_y(double value, double low, double high)
{
	double height = CHART_HEIGHT - CHART_TOP - CHART_BOTTOM;

	return CHART_TOP + height * (1 - (value - low) / (high - low));
}

static void put_chart_axes(FILE *out, const struct chart *chart, double low, double high)
{
	size_t i, step = chart->x_count > 24 ? (chart->x_count + 23) / 24 : 1;
	int tick;

	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", CHART_LEFT,
		CHART_HEIGHT - CHART_BOTTOM, CHART_WIDTH - CHART_RIGHT, CHART_HEIGHT - CHART_BOTTOM);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", CHART_LEFT,
		CHART_TOP, CHART_LEFT, CHART_HEIGHT - CHART_BOTTOM);
	for (tick = 0; tick <= 4; tick++) {
		double value = low + (high - low) * tick / 4;
		double y = chart_y(value, low, high);

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n", CHART_LEFT, y,
			CHART_WIDTH - CHART_RIGHT, y, CHART_LEFT - 6, y + 4, value);
	}
	for (i = 0; i < chart->x_count; i += step) {
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", chart_x(chart, i),
			CHART_HEIGHT - CHART_BOTTOM + 16);
		put_html(out, chart->x_labels[i]);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">",
		(CHART_HEIGHT - CHART_BOTTOM + CHART_TOP) / 2, (CHART_HEIGHT - CHART_BOTTOM + CHART_TOP) / 2);
	put_html(out, chart->unit);
	fputs("</text>\n", out);
}

static void put_chart_series(FILE *out, const struct chart *chart, size_t s, double low, double high)
{
	const struct chart_series *series = &chart->series[s];
	const char *color = series_colors[s % SERIES_COLOR_COUNT];
	bool drawing = false;
	size_t i;

	fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
	for (i = 0; i < chart->x_count; i++) {
		if (series->present[i])
			fprintf(out, "%s%.1f,%.1f", drawing ? " " : "", chart_x(chart, i),
				chart_y(series->values[i], low, high));
		drawing |= series->present[i];
	}
	fputs("\"/>\n", out);
	for (i = 0; i < chart->x_count; i++) {
		if (!series->present[i])
			continue;
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" class=\"%s\">",
			chart_x(chart, i), chart_y(series->values[i], low, high), color,
			series->point_class ? series->point_class[i] : "point");
		fputs("<title>", out);
		if (series->point_title)
			put_html(out, series->point_title[i]);
		else
			put_html(out, series->name), fputs(" at ", out), put_html(out, chart->x_labels[i]),
				fprintf(out, ": %g", series->values[i]);
		fputs("</title></circle>\n", out);
	}
	fprintf(out, "<rect x=\"%d\" y=\"%zu\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		"<text x=\"%d\" y=\"%zu\">", CHART_WIDTH - CHART_RIGHT + 12, CHART_TOP + 18 * s, color,
		CHART_WIDTH - CHART_RIGHT + 30, CHART_TOP + 18 * s + 10);
	put_html(out, series->name);
	fputs("</text>\n", out);
}

static void put_chart_marks(FILE *out, const struct chart *chart)
{
	size_t i;

	for (i = 0; chart->x_marks && i < chart->x_count; i++) {
		fprintf(out, "<rect class=\"mark %s\" x=\"%.1f\" y=\"%d\" width=\"10\" height=\"10\"><title>",
			chart->x_marks[i], chart_x(chart, i) - 5, CHART_HEIGHT - CHART_BOTTOM + 24);
		put_html(out, chart->x_mark_titles ? chart->x_mark_titles[i] : chart->x_labels[i]);
		fputs("</title></rect>\n", out);
	}
	if (chart->x_marks && chart->x_marks_legend) {
		fprintf(out, "<text x=\"%d\" y=\"%d\">", CHART_LEFT, CHART_HEIGHT - 6);
		put_html(out, chart->x_marks_legend);
		fputs("</text>\n", out);
	}
}

static void put_chart(FILE *out, const struct chart *chart)
{
	double low, high;
	size_t s;

	chart_range(chart, &low, &high);
	fprintf(out, "<svg id=\"%s\" role=\"img\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<title>", chart->id, CHART_WIDTH, CHART_HEIGHT, CHART_WIDTH, CHART_HEIGHT);
	put_html(out, chart->title);
	fprintf(out, "</title>\n<text x=\"%d\" y=\"16\" font-weight=\"bold\">", CHART_LEFT);
	put_html(out, chart->title);
	fputs("</text>\n", out);
	put_chart_axes(out, chart, low, high);
	if (!isnan(chart->threshold) && chart->threshold >= low && chart->threshold <= high) {
		double y = chart_y(chart->threshold, low, high);

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#b22\" "
			"stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%.1f\">", CHART_LEFT, y,
			CHART_WIDTH - CHART_RIGHT, y, CHART_LEFT + 6, y - 4);
		put_html(out, chart->threshold_label);
		fputs("</text>\n", out);
	}
	for (s = 0; s < chart->series_count; s++)
		put_chart_series(out, chart, s, low, high);
	put_chart_marks(out, chart);
	fputs("</svg>\n", out);
}

/* ---- the verdict ------------------------------------------------------------------------------------------ */

static void put_commit(FILE *out, const struct report_data *data, const char *id)
{
	const struct report_commit *commit = report_data_commit(data, id);

	if (!id) {
		fputs("-", out);
		return;
	}
	fputs("<code>", out);
	fprintf(out, "%.12s", id);
	fputs("</code>", out);
	if (commit && commit->ref)
		fputs(" (", out), put_html(out, commit->ref), fputs(")", out);
	if (commit && commit->description)
		fputs(" ", out), put_html(out, commit->description);
}

static void put_verdict(FILE *out, const struct report_data *data)
{
	fprintf(out, "<header class=\"verdict %s\"><h1 id=\"verdict\">", verdict_class(data->verdict));
	put_html(out, data->verdict);
	fputs("</h1>\n<p><strong>", out);
	put_html(out, data->title);
	fputs("</strong></p>\n<p>", out);
	put_html(out, data->summary);
	fputs("</p>\n", out);
	if (data->gate) {
		fputs("<p>candidate ", out), put_commit(out, data, data->gate->candidate);
		fputs("<br>baseline ", out), put_commit(out, data, data->gate->baseline);
		fputs("</p>\n", out);
	}
	fputs("</header>\n<nav>", out);
	if (data->gate)
		fputs("<a href=\"#matrix\">Matrix</a>", out);
	if (data->bisection)
		fputs("<a href=\"#bisection\">Bisection</a>", out);
	fputs("<a href=\"#power\">Power and energy</a><a href=\"#runs\">Runs and logs</a>"
	      "<a href=\"#trend\">Trend</a></nav>\n", out);
}

/* ---- the gate's matrix ---------------------------------------------------------------------------------- */

static void put_counts(FILE *out, const char *label, const unsigned int *by_outcome)
{
	static const enum run_outcome order[] = { RUN_PASS, RUN_FAIL, RUN_INFRA, RUN_SKIP };
	bool any = false;
	size_t i;

	fprintf(out, "%s:", label);
	for (i = 0; i < 4; i++) {
		if (!by_outcome[order[i]])
			continue;
		fprintf(out, " <span class=\"%s\">%u %s</span>", report_outcome_name(order[i]),
			by_outcome[order[i]], report_outcome_name(order[i]));
		any = true;
	}
	if (!any)
		fputs(" not run", out);
}

static bool listed(const char *list, const char *name)
{
	size_t length = strlen(name);
	const char *at;

	for (at = list ? strstr(list, name) : NULL; at; at = strstr(at + 1, name)) {
		if ((at == list || at[-1] == ',' || at[-1] == ' ') && (!at[length] || at[length] == ',' ||
								       at[length] == ' '))
			return true;
	}
	return false;
}

/* Regressed: the candidate failed here where a regression names this board; known: the baseline fails too. */
static const char *cell_class(const struct report_gate *gate, const struct report_cell *cell)
{
	size_t i;

	for (i = 0; i < gate->regression_count; i++) {
		const struct report_regression *r = &gate->regressions[i];

		if (strcmp(r->workload, cell->workload) != 0)
			continue;
		if (listed(r->boards, cell->board))
			return "regressed";
		if (listed(r->known_failing, cell->board))
			return "known";
	}
	return "";
}

static void put_matrix_cell(FILE *out, const struct report_gate *gate, const struct report_cell *cell)
{
	fprintf(out, "<td class=\"%s\">", cell_class(gate, cell));
	put_counts(out, "baseline", cell->baseline);
	fputs("<br>", out);
	put_counts(out, "candidate", cell->candidate);
	if (cell->candidate_symptoms && *cell->candidate_symptoms)
		fputs("<br><small>", out), put_html(out, cell->candidate_symptoms), fputs("</small>", out);
	fputs("</td>", out);
}

static bool seen_before(const struct report_gate *gate, size_t index, bool board)
{
	size_t i;

	for (i = 0; i < index; i++) {
		if (strcmp(board ? gate->cells[i].board : gate->cells[i].workload,
			   board ? gate->cells[index].board : gate->cells[index].workload) == 0)
			return true;
	}
	return false;
}

static void put_matrix(FILE *out, const struct report_gate *gate)
{
	size_t b, w, c;

	fputs("<section id=\"matrix\"><h2>Board &times; workload matrix</h2>\n<table>\n<tr><th>board (chip)</th>", out);
	for (w = 0; w < gate->cell_count; w++) {
		if (!seen_before(gate, w, false))
			fputs("<th>", out), put_html(out, gate->cells[w].workload), fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (b = 0; b < gate->cell_count; b++) {
		if (seen_before(gate, b, true))
			continue;
		fputs("<tr><th>", out), put_html(out, gate->cells[b].board), fputs(" (", out);
		put_html(out, gate->cells[b].chip), fputs(")</th>", out);
		for (w = 0; w < gate->cell_count; w++) {
			const struct report_cell *found = NULL;

			if (seen_before(gate, w, false))
				continue;
			for (c = 0; c < gate->cell_count && !found; c++) {
				if (strcmp(gate->cells[c].board, gate->cells[b].board) == 0 &&
				    strcmp(gate->cells[c].workload, gate->cells[w].workload) == 0)
					found = &gate->cells[c];
			}
			if (found)
				put_matrix_cell(out, gate, found);
			else
				fputs("<td>-</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	for (c = 0; c < gate->regression_count; c++) {
		const struct report_regression *r = &gate->regressions[c];

		if (c == 0)
			fputs("<h3>Regressions</h3>\n<ul>\n", out);
		fputs("<li><strong>", out), put_html(out, r->workload), fputs("</strong>: ", out);
		put_html(out, r->symptom), fputs(" on ", out), put_html(out, r->boards);
		fprintf(out, "; the candidate failed %u of %u runs, the baseline passed %u (%u needed): %s",
			r->candidate_fails, r->candidate_runs, r->baseline_passes, r->passes_needed,
			r->confirmed ? "confirmed" : "not told apart yet");
		if (r->known_failing && *r->known_failing)
			fputs("; known failing on ", out), put_html(out, r->known_failing);
		if (r->example_run)
			fprintf(out, "; example: <a href=\"#run-%" PRId64 "\">run %" PRId64 "</a>",
				r->example_run, r->example_run);
		fputs("</li>\n", out);
	}
	if (gate->regression_count)
		fputs("</ul>\n", out);
	fputs("</section>\n", out);
}

/* ---- the bisection's path ----------------------------------------------------------------------------------- */

/* lines in the bisection's plot: the candidates that led at some point */
#define PLOTTED_CANDIDATES 6

struct plotted_candidate {
	const char *id;			/* a step's, 40 hex */
	double peak;			/* its highest probability on the path */
};

static int by_peak(const void *a, const void *b)
{
	const struct plotted_candidate *x = a, *y = b;

	return x->peak > y->peak ? -1 : x->peak < y->peak;
}

/* The candidates worth a line: every one among some step's most probable,
 * the highest peaks first, at most max of them. */
static size_t pick_plotted(const struct report_bisection *b, struct plotted_candidate *picked, size_t max)
{
	struct plotted_candidate *found = calloc(b->step_count * REPORT_TOP_CANDIDATES + 1, sizeof(*found));
	size_t count = 0, i, t, k;

	if (!found)
		return 0;
	for (i = 0; i < b->step_count; i++) {
		for (t = 0; t < b->steps[i].top_count; t++) {
			const struct report_candidate *candidate = &b->steps[i].top[t];

			for (k = 0; k < count && strcmp(found[k].id, candidate->id) != 0; k++)
				;
			if (k == count)
				found[count++] = (struct plotted_candidate){ candidate->id, 0 };
			if (candidate->probability > found[k].peak)
				found[k].peak = candidate->probability;
		}
	}
	qsort(found, count, sizeof(*found), by_peak);
	count = count < max ? count : max;
	memcpy(picked, found, count * sizeof(*found));
	free(found);
	return count;
}

/* A candidate's probability after a step: known when it is among the step's
 * most probable, 0 when the step lists every candidate left and not it. */
static bool probability_at(const struct report_step *step, const char *id, double *probability)
{
	size_t t;

	for (t = 0; t < step->top_count; t++) {
		if (strcmp(step->top[t].id, id) == 0) {
			*probability = step->top[t].probability;
			return true;
		}
	}
	*probability = 0;
	return step->has_belief && step->top_count < REPORT_TOP_CANDIDATES;
}

static void put_bisection_plot(FILE *out, const struct report_data *data)
{
	const struct report_bisection *b = data->bisection;
	struct plotted_candidate picked[PLOTTED_CANDIDATES];
	struct chart_series series[PLOTTED_CANDIDATES];
	size_t n = b->step_count, count = pick_plotted(b, picked, PLOTTED_CANDIDATES), i, s;
	double *values = calloc(count * n + 1, sizeof(*values));
	bool *present = calloc(count * n + 1, sizeof(*present));
	const char **labels = calloc(n + 1, sizeof(*labels)), **classes = calloc(n + 1, sizeof(*classes));
	char **titles = calloc(count * n + 1, sizeof(*titles)), (*numbers)[24] = calloc(n + 1, sizeof(*numbers));
	char (*names)[16] = calloc(count + 1, sizeof(*names));

	if (count && values && present && labels && classes && titles && numbers && names) {
		for (i = 0; i < n; i++) {
			snprintf(numbers[i], sizeof(numbers[i]), "%zu", i + 1);
			labels[i] = numbers[i];
			classes[i] = outcome_class(data->runs[b->steps[i].run].run);
		}
		for (s = 0; s < count; s++) {
			snprintf(names[s], sizeof(names[s]), "%.12s", picked[s].id);
			for (i = 0; i < n; i++) {
				const struct report_step *step = &b->steps[i];
				const struct store_run *run = data->runs[step->run].run;
				size_t at = s * n + i;

				present[at] = probability_at(step, picked[s].id, &values[at]);
				if (asprintf(&titles[at], "run %" PRId64 " at %.12s: %s; %.12s at %.4f (best %.12s at "
					     "%.4f, %zu left)", run->id, run->commit, report_outcome_name(run->outcome),
					     picked[s].id, values[at], step->best, step->best_probability,
					     step->candidates_left) < 0)
					titles[at] = NULL;
			}
			series[s] = (struct chart_series){ .name = names[s], .values = values + s * n,
				.present = present + s * n, .point_class = classes,
				.point_title = (const char *const *)titles + s * n };
		}
		put_chart(out, &(struct chart){
			.id = "bisection-plot", .title = "Each leading candidate's probability after each run",
			.unit = "probability", .x_labels = labels, .x_count = n, .series = series,
			.series_count = count, .y_min = 0, .y_max = 1, .threshold = b->confidence,
			.threshold_label = "confidence" });
	}
	for (i = 0; titles && i < count * n; i++)
		free(titles[i]);
	free(values), free(present), free(labels), free(classes), free(titles), free(numbers), free(names);
}

static void put_path_table(FILE *out, const struct report_data *data)
{
	const struct report_bisection *b = data->bisection;
	size_t i;

	fputs("<table>\n<tr><th>#</th><th>run</th><th>role</th><th>commit</th><th>board</th>"
	      "<th>result</th><th>counted as</th><th>best candidate after it</th><th>p</th>"
	      "<th>left</th></tr>\n", out);
	for (i = 0; i < b->step_count; i++) {
		const struct report_step *step = &b->steps[i];
		const struct report_run *entry = &data->runs[step->run];
		const struct store_run *run = entry->run;

		fprintf(out, "<tr><td>%zu</td><td><a href=\"#run-%" PRId64 "\">%" PRId64 "</a></td><td>", i + 1,
			run->id, run->id);
		put_html(out, entry->bisection_role), fputs("</td><td>", out);
		put_commit(out, data, run->commit), fputs("</td><td>", out);
		put_html(out, run->board ? run->board : "-");
		fprintf(out, "</td><td class=\"%s\">%s</td><td>", outcome_class(run),
			run->state == RUN_DONE ? report_outcome_name(run->outcome) : "-");
		put_html(out, entry->evidence);
		if (entry->not_evidence_why && *entry->not_evidence_why)
			fputs(" <small>(", out), put_html(out, entry->not_evidence_why), fputs(")</small>", out);
		fputs("</td>", out);
		if (step->has_belief)
			fprintf(out, "<td><code>%.12s</code></td><td>%.4f</td><td>%zu</td></tr>\n", step->best,
				step->best_probability, step->candidates_left);
		else
			fputs("<td>-</td><td>-</td><td>-</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void put_bisection(FILE *out, const struct report_data *data)
{
	const struct report_bisection *b = data->bisection;

	fprintf(out, "<section id=\"bisection\"><h2>Bisection %" PRId64 ": ", b->id);
	put_html(out, b->outcome ? b->outcome : b->state);
	fputs("</h2>\n<p>Tracking ", out), put_html(out, b->symptom ? b->symptom : "?");
	fputs(" in ", out), put_html(out, b->workload ? b->workload : "?");
	if (b->candidate_count)
		fprintf(out, " over %zu candidate commits", b->candidate_count);
	fputs(".<br>good ", out), put_commit(out, data, b->good);
	fputs("<br>bad ", out), put_commit(out, data, b->bad), fputs("</p>\n", out);
	if (b->culprit) {
		fputs("<p class=\"culprit\"><strong>First bad commit:</strong> ", out);
		put_commit(out, data, b->culprit);
		fprintf(out, "<br>probability %.4f (confidence %.4g) after %u runs in %u rounds; failure rate "
			"estimate %.2f</p>\n", b->probability, b->confidence, b->runs, b->rounds, b->fail_rate);
	}
	if (b->confirmation && *b->confirmation)
		fputs("<p>Confirmed: ", out), put_html(out, b->confirmation), fputs("</p>\n", out);
	if (b->reason && *b->reason)
		fputs("<p>", out), put_html(out, b->reason), fputs("</p>\n", out);
	if (b->path_note)
		fputs("<p class=\"todo\">", out), put_html(out, b->path_note), fputs("</p>\n", out);
	else
		put_bisection_plot(out, data);
	put_path_table(out, data);
	fputs("</section>\n", out);
}

/* A gate's other bisections, one per regression: what each tracked and found. */
static void put_other_bisections(FILE *out, const struct report_data *data)
{
	size_t i;

	if (!data->also_count)
		return;
	fputs("<section id=\"other-bisections\"><h2>The gate's other bisections</h2>\n<ul>\n", out);
	for (i = 0; i < data->also_count; i++) {
		const struct report_bisection *b = data->also[i];

		fprintf(out, "<li>Bisection %" PRId64 " (", b->id);
		put_html(out, b->outcome ? b->outcome : b->state);
		fputs("), tracking ", out), put_html(out, b->symptom ? b->symptom : "?");
		fputs(" in ", out), put_html(out, b->workload ? b->workload : "?");
		if (b->culprit) {
			fputs(": <strong>first bad commit</strong> ", out), put_commit(out, data, b->culprit);
			fprintf(out, ", probability %.4f after %u runs", b->probability, b->runs);
		}
		fputs("</li>\n", out);
	}
	fputs("</ul></section>\n", out);
}

/* ---- power and energy ------------------------------------------------------------------------------------------ */

/* A commit's position in data->commits; commit_count when it is not there. */
static size_t commit_position(const struct report_data *data, const char *id)
{
	const struct report_commit *commit = report_data_commit(data, id);

	return commit ? (size_t)(commit - data->commits) : data->commit_count;
}

struct metric_cell { double sum, low, high; unsigned int count; };

/* The distinct workloads of the runs, in order met. */
static size_t workloads_of(const struct report_data *data, const char **names, size_t max)
{
	size_t count = 0, i, j;

	for (i = 0; i < data->run_count; i++) {
		for (j = 0; j < count && strcmp(names[j], data->runs[i].run->workload) != 0; j++)
			;
		if (j == count && count < max)
			names[count++] = data->runs[i].run->workload;
	}
	return count;
}

static void collect_metric(const struct report_data *data, const char *metric, const char **workloads,
			   size_t workload_count, struct metric_cell *cells, const char **unit)
{
	size_t i, m, w, c;

	for (i = 0; i < data->run_count; i++) {
		const struct store_run *run = data->runs[i].run;

		for (w = 0; w < workload_count && strcmp(workloads[w], run->workload) != 0; w++)
			;
		c = commit_position(data, run->commit);
		if (w == workload_count || c == data->commit_count)
			continue;
		for (m = 0; m < run->metric_count; m++) {
			struct metric_cell *cell = &cells[w * data->commit_count + c];
			double value = run->metrics[m].value;

			if (strcmp(run->metrics[m].name, metric) != 0)
				continue;
			if (!*unit && run->metrics[m].unit)
				*unit = run->metrics[m].unit;
			cell->low = cell->count ? fmin(cell->low, value) : value;
			cell->high = cell->count ? fmax(cell->high, value) : value;
			cell->sum += value;
			cell->count++;
			break;	/* a run's first measurement of it */
		}
	}
}

static void put_metric_table(FILE *out, const struct report_data *data, const char **workloads,
			     size_t workload_count, const struct metric_cell *cells, const char *unit)
{
	size_t w, c;

	fputs("<table>\n<tr><th>workload</th><th>commit</th><th>mean</th><th>min</th><th>max</th>"
	      "<th>runs</th></tr>\n", out);
	for (w = 0; w < workload_count; w++) {
		for (c = 0; c < data->commit_count; c++) {
			const struct metric_cell *cell = &cells[w * data->commit_count + c];

			if (!cell->count)
				continue;
			fputs("<tr><td>", out), put_html(out, workloads[w]), fputs("</td><td>", out);
			put_commit(out, data, data->commits[c].id);
			fprintf(out, "</td><td>%.4g ", cell->sum / cell->count), put_html(out, unit);
			fprintf(out, "</td><td>%.4g</td><td>%.4g</td><td>%u</td></tr>\n", cell->low, cell->high,
				cell->count);
		}
	}
	fputs("</table>\n", out);
}

/* One chart of a metric: x the commits that have it, one line per workload (its mean there). */
static bool put_metric_chart(FILE *out, const struct report_data *data, const char *metric,
			     const char *title)
{
	const char *workloads[SERIES_COLOR_COUNT], *unit = NULL;
	size_t workload_count = workloads_of(data, workloads, SERIES_COLOR_COUNT), w, c, x = 0;
	size_t series_count = 0;
	size_t commits = data->commit_count;
	struct metric_cell *cells = calloc(workload_count * commits + 1, sizeof(*cells));
	double *values = calloc(workload_count * commits + 1, sizeof(*values));
	bool *present = calloc(workload_count * commits + 1, sizeof(*present)), shown = false;
	const char **labels = calloc(commits + 1, sizeof(*labels));
	char (*label_text)[64] = calloc(commits + 1, sizeof(*label_text)), chart_title[160];
	struct chart_series series[SERIES_COLOR_COUNT];

	if (cells && values && present && labels && label_text) {
		collect_metric(data, metric, workloads, workload_count, cells, &unit);
		/* x positions: the commits measured at all, in the order first met */
		for (c = 0; c < commits; c++) {
			bool measured = false;

			for (w = 0; w < workload_count; w++)
				measured |= cells[w * commits + c].count > 0;
			if (!measured)
				continue;
			snprintf(label_text[x], sizeof(label_text[x]), "%.12s", data->commits[c].ref
				 ? data->commits[c].ref : data->commits[c].id);
			labels[x] = label_text[x];
			for (w = 0; w < workload_count; w++) {
				const struct metric_cell *cell = &cells[w * commits + c];

				present[w * commits + x] = cell->count > 0;
				values[w * commits + x] = cell->count ? cell->sum / cell->count : 0;
			}
			x++;
		}
		for (w = 0; w < workload_count; w++) {
			bool measured = false;

			for (c = 0; c < x; c++)
				measured |= present[w * commits + c];
			if (measured)	/* a workload with no such measurement gets no legend entry */
				series[series_count++] = (struct chart_series){ .name = workloads[w],
					.values = &values[w * commits], .present = &present[w * commits] };
		}
		if (x) {
			snprintf(chart_title, sizeof(chart_title), "%s per commit and workload (mean of runs)", title);
			fprintf(out, "<h3>%s</h3>\n", title);
			put_chart(out, &(struct chart){ .id = metric, .title = chart_title, .unit = unit ? unit : "",
				.x_labels = labels, .x_count = x, .series = series, .series_count = series_count,
				.threshold = NAN });
			put_metric_table(out, data, workloads, workload_count, cells, unit ? unit : "");
			shown = true;
		}
	}
	free(cells), free(values), free(present), free(labels), free(label_text);
	return shown;
}

/* tests (phases, cycles) a workload's phase chart shows at most */
#define MAX_PHASES 64

/* Sums of each commit's phase_power_N per test N, over its runs of workload;
 * the number of tests. */
static size_t collect_phases(const struct report_data *data, const char *workload, double *sums,
			     unsigned int *counts, const char **unit)
{
	size_t phases = 0, i, m, c, k;

	for (i = 0; i < data->run_count; i++) {
		const struct store_run *run = data->runs[i].run;

		if (strcmp(run->workload, workload) != 0)
			continue;
		c = commit_position(data, run->commit);
		for (m = 0; c < data->commit_count && m < run->metric_count; m++) {
			unsigned int test;
			int end = 0;

			/* phase_power_N: test N's (a test without a reading has none) */
			if (sscanf(run->metrics[m].name, "phase_power_%u%n", &test, &end) != 1 ||
			    run->metrics[m].name[end] != '\0' || test < 1 || test > MAX_PHASES)
				continue;
			k = test - 1;
			*unit = *unit ? *unit : run->metrics[m].unit;
			sums[c * MAX_PHASES + k] += run->metrics[m].value;
			counts[c * MAX_PHASES + k]++;
			phases = k + 1 > phases ? k + 1 : phases;
		}
	}
	return phases;
}

/* One workload's power per test (its phases or cycles, in order): a line
 * per commit measured (the mean of its runs), so a phase where one kernel
 * sleeps less than the other stands out. */
static bool put_phase_chart(FILE *out, const struct report_data *data, const char *workload, size_t index)
{
	size_t commits = data->commit_count, phases, c, k, series_count = 0;
	double *sums = calloc(commits * MAX_PHASES + 1, sizeof(*sums));
	unsigned int *counts = calloc(commits * MAX_PHASES + 1, sizeof(*counts));
	const char *labels[MAX_PHASES], *unit = NULL;
	char label_text[MAX_PHASES][24], names[SERIES_COLOR_COUNT][16], id[32], title[160];
	bool present[SERIES_COLOR_COUNT][MAX_PHASES];
	double values[SERIES_COLOR_COUNT][MAX_PHASES];
	struct chart_series series[SERIES_COLOR_COUNT];

	if (!sums || !counts || !(phases = collect_phases(data, workload, sums, counts, &unit))) {
		free(sums), free(counts);
		return false;
	}
	for (k = 0; k < phases; k++) {
		snprintf(label_text[k], sizeof(label_text[k]), "%zu", k + 1);
		labels[k] = label_text[k];
	}
	for (c = 0; c < commits && series_count < SERIES_COLOR_COUNT; c++) {
		bool measured = false;

		for (k = 0; k < phases; k++) {
			present[series_count][k] = counts[c * MAX_PHASES + k] > 0;
			values[series_count][k] = present[series_count][k]
				? sums[c * MAX_PHASES + k] / counts[c * MAX_PHASES + k] : 0;
			measured |= present[series_count][k];
		}
		if (!measured)
			continue;
		snprintf(names[series_count], sizeof(names[series_count]), "%.12s",
			 data->commits[c].ref ? data->commits[c].ref : data->commits[c].id);
		series[series_count] = (struct chart_series){ .name = names[series_count],
			.values = values[series_count], .present = present[series_count] };
		series_count++;
	}
	snprintf(id, sizeof(id), "phase_power-%zu", index);
	snprintf(title, sizeof(title), "%.40s: average power per test (phase or cycle), mean of runs", workload);
	fputs("<h3>", out), put_html(out, workload), fputs(": power per phase</h3>\n", out);
	put_chart(out, &(struct chart){ .id = id, .title = title, .unit = unit ? unit : "",
		.x_labels = labels, .x_count = phases, .series = series, .series_count = series_count,
		.threshold = NAN });
	free(sums), free(counts);
	return true;
}

static void put_power(FILE *out, const struct report_data *data)
{
	const char *workloads[SERIES_COLOR_COUNT];
	size_t workload_count = workloads_of(data, workloads, SERIES_COLOR_COUNT), i;
	bool any = false;

	fputs("<section id=\"power\"><h2>Power and energy</h2>\n", out);
	for (i = 0; i < sizeof(power_metrics) / sizeof(power_metrics[0]); i++)
		any |= put_metric_chart(out, data, power_metrics[i].metric, power_metrics[i].title);
	for (i = 0; i < workload_count; i++)
		any |= put_phase_chart(out, data, workloads[i], i);
	if (!any)
		fputs("<p>No run stored a power measurement (power_avg, energy): the boards have no "
		      "power meter (hwmon ath9k_power).</p>\n", out);
	fputs("</section>\n", out);
}

/* ---- runs and their logs ------------------------------------------------------------------------------------ */

static void put_run_row(FILE *out, const struct report_data *data, const struct report_run *entry,
			const struct report_html_options *options)
{
	const struct store_run *run = entry->run;
	size_t i, f;

	fprintf(out, "<tr id=\"run-%" PRId64 "\"><td>%" PRId64 "</td><td>", run->id, run->id);
	put_html(out, report_run_role(entry)), fputs("</td><td>", out);
	put_html(out, run->board ? run->board : "-"), fputs("</td><td>", out);
	put_html(out, run->workload), fprintf(out, " #%u</td><td>", run->repeat_index + 1);
	put_commit(out, data, run->commit);
	fprintf(out, "</td><td class=\"%s\">%s</td><td>", outcome_class(run),
		run->state == RUN_DONE ? report_outcome_name(run->outcome) : "-");
	for (i = 0; i < run->symptom_count; i++) {
		fputs("<strong>", out), put_html(out, run->symptoms[i].name), fputs("</strong>", out);
		if (run->symptoms[i].evidence)
			fputs("<pre>", out), put_html(out, run->symptoms[i].evidence), fputs("</pre>", out);
	}
	if (run->cause)
		put_html(out, run->cause);
	fputs("</td><td>", out);
	for (i = 0; i < run->metric_count; i++) {
		fprintf(out, "%s", i ? "<br>" : ""), put_html(out, run->metrics[i].name);
		fprintf(out, "=%g ", run->metrics[i].value);
		put_html(out, run->metrics[i].unit);
	}
	fputs("</td><td>", out);
	for (f = 0; f < REPORT_RUN_FILE_COUNT; f++) {
		if (entry->file_kept[f])
			put_log_link(out, data, options, run->id, report_run_file_names[f]), fputs(" ", out);
	}
	fputs("</td></tr>\n", out);
}

static void put_runs(FILE *out, const struct report_data *data, const struct report_html_options *options)
{
	char dir[4096];
	size_t i;

	fprintf(out, "<section id=\"runs\"><h2>Runs and logs (%zu)</h2>\n", data->run_count);
	if (report_data_run_path(data, 0, NULL, dir, sizeof(dir)) == 0) {
		dir[strlen(dir) - 1] = '\0';	/* <state>/runs/0 -> <state>/runs/ */
		fputs("<p>Logs are in <code>", out), put_html(out, dir);
		fputs("&lt;run&gt;/</code>; the links are relative to this page.</p>\n", out);
	}
	fputs("<table>\n<tr><th>run</th><th>role</th><th>board</th><th>workload</th><th>commit</th>"
	      "<th>result</th><th>symptoms and kernel log</th><th>metrics</th><th>logs</th></tr>\n", out);
	for (i = 0; i < data->run_count; i++)
		put_run_row(out, data, &data->runs[i], options);
	fputs("</table>\n</section>\n", out);
}


/* ---- the trend across nights ---------------------------------------------------------------------------------- */

/* The tooltip of a night's square and point: all it came to, on one line. */
static char *night_summary(const struct report_night *night)
{
	char *text = NULL, date[32], ratio_text[32] = "no decisive run";
	size_t length = 0, i;
	double ratio;
	FILE *out = open_memstream(&text, &length);

	if (!out)
		return NULL;
	report_night_date(night->created_ms, date, sizeof(date));
	if (report_night_fail_ratio(night, &ratio))
		snprintf(ratio_text, sizeof(ratio_text), "%u of %u runs failed", night->head_runs[RUN_FAIL],
			 night->head_runs[RUN_FAIL] + night->head_runs[RUN_PASS]);
	fprintf(out, "night %s, gate %" PRId64 ", head %.12s: %s; %s", date, night->gate_id, night->head,
		night->verdict, ratio_text);
	for (i = 0; i < night->regression_count; i++)
		fprintf(out, "%s%s (%s)", i ? ", " : "; regressed: ", night->regressions[i].workload,
			night->regressions[i].symptom ? night->regressions[i].symptom : "?");
	if (night->culprit)
		fprintf(out, "; culprit %.12s (%s)", night->culprit, night->bisection_reused ? "known" : "new");
	fclose(out);
	return text;
}

/* What the trend's charts share: per night a label, a verdict class and a tooltip. */
struct trend_axis {
	size_t count;
	const char **labels, **marks;
	char (*label_text)[8];
	char **titles;
	double *values;
	bool *present;
};

static void free_trend_axis(struct trend_axis *axis)
{
	size_t i;

	for (i = 0; axis->titles && i < axis->count; i++)
		free(axis->titles[i]);
	free(axis->labels), free(axis->marks), free(axis->label_text), free(axis->titles);
	free(axis->values), free(axis->present);
}

static bool make_trend_axis(const struct report_branch *branch, struct trend_axis *axis)
{
	size_t n = branch->count, i;
	char date[32];

	*axis = (struct trend_axis){ .count = n, .labels = calloc(n + 1, sizeof(*axis->labels)),
		.marks = calloc(n + 1, sizeof(*axis->marks)), .label_text = calloc(n + 1, sizeof(*axis->label_text)),
		.titles = calloc(n + 1, sizeof(*axis->titles)), .values = calloc(n + 1, sizeof(*axis->values)),
		.present = calloc(n + 1, sizeof(*axis->present)) };
	if (!axis->labels || !axis->marks || !axis->label_text || !axis->titles || !axis->values ||
	    !axis->present)
		return false;
	for (i = 0; i < n; i++) {
		report_night_date(branch->nights[i].created_ms, date, sizeof(date));
		/* "05-01": the month and day of "2024-05-01 02:00", short enough for many nights */
		snprintf(axis->label_text[i], sizeof(axis->label_text[i]), "%.5s", strlen(date) > 10 ? date + 5 : date);
		axis->labels[i] = axis->label_text[i];
		axis->marks[i] = verdict_class(branch->nights[i].verdict);
		axis->titles[i] = night_summary(&branch->nights[i]);
		if (!axis->titles[i] && !(axis->titles[i] = strdup("")))
			return false;
	}
	return true;
}

static const char verdict_legend[] = "squares: each night's verdict (green PASS, red REGRESSION, amber other)";

/* A power measurement's mean per night, when any night has one. */
static void put_trend_metric(FILE *out, const struct report_branch *branch, size_t index, struct trend_axis *axis,
			     enum report_night_metric metric, const char *title)
{
	const char *unit = NULL;
	char id[64], chart_title[160];
	bool any = false;
	size_t i;

	for (i = 0; i < branch->count; i++) {
		const struct report_night *night = &branch->nights[i];

		axis->present[i] = night->metric_runs[metric] > 0;
		axis->values[i] = night->metric_mean[metric];
		any |= axis->present[i];
		if (!unit)
			unit = night->metric_unit[metric];
	}
	if (!any)
		return;
	snprintf(id, sizeof(id), "trend-%s-%zu", report_night_metric_names[metric], index);
	snprintf(chart_title, sizeof(chart_title), "%s per night (mean of the head's runs)", title);
	put_chart(out, &(struct chart){ .id = id, .title = chart_title, .unit = unit ? unit : "",
		.x_labels = axis->labels, .x_count = axis->count,
		.series = &(struct chart_series){ .name = report_night_metric_names[metric], .values = axis->values,
			.present = axis->present, .point_title = (const char *const *)axis->titles },
		.series_count = 1, .threshold = NAN, .x_marks = axis->marks,
		.x_mark_titles = (const char *const *)axis->titles, .x_marks_legend = verdict_legend });
}

/* The head's fail ratio per night with a square per verdict; then power and energy. */
static void put_trend_charts(FILE *out, const struct report_branch *branch, size_t index)
{
	struct trend_axis axis;
	char id[32];
	size_t i;

	if (make_trend_axis(branch, &axis)) {
		for (i = 0; i < branch->count; i++)
			axis.present[i] = report_night_fail_ratio(&branch->nights[i], &axis.values[i]);
		snprintf(id, sizeof(id), "trend-%zu", index);
		put_chart(out, &(struct chart){ .id = id,
			.title = "Failed share of the head's runs per night (FAIL of PASS and FAIL)",
			.unit = "fail ratio", .x_labels = axis.labels, .x_count = axis.count,
			.series = &(struct chart_series){ .name = "fail ratio", .values = axis.values,
				.present = axis.present, .point_class = axis.marks,
				.point_title = (const char *const *)axis.titles },
			.series_count = 1, .y_min = 0, .y_max = 1, .threshold = NAN, .x_marks = axis.marks,
			.x_mark_titles = (const char *const *)axis.titles, .x_marks_legend = verdict_legend });
		put_trend_metric(out, branch, index, &axis, NIGHT_POWER_AVG, "Average power");
		put_trend_metric(out, branch, index, &axis, NIGHT_ENERGY, "Energy");
	}
	free_trend_axis(&axis);
}

static void put_night_row(FILE *out, const struct report_night *night, int64_t current_gate)
{
	char date[32];
	size_t i;

	report_night_date(night->created_ms, date, sizeof(date));
	fprintf(out, "<tr%s><td>%s</td><td>%" PRId64 "</td><td><code>%.12s</code></td><td>",
		night->gate_id == current_gate ? " class=\"current\"" : "", date, night->gate_id, night->head);
	if (night->first_night)
		fputs("first night (itself)", out);
	else
		fprintf(out, "<code>%.12s</code>", night->baseline);
	if (night->baseline_gate)
		fprintf(out, " (gate %" PRId64 ")", night->baseline_gate);
	fprintf(out, "</td><td class=\"verdict-cell %s\">", verdict_class(night->verdict));
	put_html(out, night->verdict), fputs("</td><td>", out);
	for (i = 0; i < night->regression_count; i++) {
		fputs(i ? "<br>" : "", out), put_html(out, night->regressions[i].workload), fputs(" (", out);
		put_html(out, night->regressions[i].symptom ? night->regressions[i].symptom : "?"), fputs(")", out);
	}
	if (!night->regression_count)
		put_html(out, night->reason && *night->reason ? night->reason : "-");
	fputs("</td><td>", out);
	put_counts(out, "head", night->head_runs);
	fputs("</td><td>", out);
	if (night->bisection_id) {
		if (night->culprit)
			fprintf(out, "<code>%.12s</code> ", night->culprit);
		else
			put_html(out, night->bisection_outcome ? night->bisection_outcome : "?"), fputs(" ", out);
		fprintf(out, "<span class=\"bisection %s\">(%s, bisection %" PRId64 ")</span>",
			night->bisection_reused ? "known" : "new",
			night->bisection_reused ? "known: not bisected again" : "bisected that night",
			night->bisection_id);
	} else {
		fputs("-", out);
	}
	fputs("</td></tr>\n", out);
}

static void put_nights_table(FILE *out, const struct report_branch *branch, int64_t current_gate)
{
	size_t i;

	fputs("<table class=\"nights\">\n<tr><th>date (UTC)</th><th>gate</th><th>head</th><th>baseline "
	      "(last good night)</th><th>verdict</th><th>regressions</th><th>runs</th><th>culprit</th></tr>\n", out);
	for (i = 0; i < branch->count; i++)
		put_night_row(out, &branch->nights[i], current_gate);
	fputs("</table>\n", out);
}

/* The trend section of a gate's or bisection's report: its branch's nights, its own marked. */
static void put_trend(FILE *out, const struct report_data *data)
{
	const struct report_branch *branch;
	int64_t current = data->gate ? data->gate->id : 0;
	size_t i;

	fputs("<section id=\"trend\"><h2>Trend across nights</h2>\n", out);
	if (!data->nights || !data->nights->branch_count) {
		fputs("<p>Not a night of <code>rackbisect nightly</code>: this report shows one gate, bisection "
		      "or run. <code>rackbisect report nightly</code> shows every branch's nights.</p>\n</section>\n",
		      out);
		return;
	}
	branch = &data->nights->branches[0];
	for (i = 0; !current && data->bisection && i < branch->count; i++) {
		if (branch->nights[i].bisection_id == data->bisection->id)
			current = branch->nights[i].gate_id;	/* the night that started or named it */
	}
	fputs("<p>The nights of ", out), put_html(out, branch->night);
	fprintf(out, " (%zu), oldest first; this report's night is highlighted.</p>\n", branch->count);
	put_trend_charts(out, branch, 0);
	put_nights_table(out, branch, current);
	fputs("</section>\n", out);
}

void report_html_write_nights(FILE *out, const struct report_nights *nights)
{
	size_t b;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", out);
	put_html(out, nights->verdict), fputs(": ", out), put_html(out, nights->title);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	fprintf(out, "<header class=\"verdict %s\"><h1 id=\"verdict\">", verdict_class(nights->verdict));
	put_html(out, nights->verdict);
	fputs("</h1>\n<p><strong>", out), put_html(out, nights->title);
	fputs("</strong></p>\n<p>", out), put_html(out, nights->summary);
	fputs("</p>\n</header>\n<nav>", out);
	for (b = 0; b < nights->branch_count; b++)
		fprintf(out, "<a href=\"#branch-%zu\">", b), put_html(out, nights->branches[b].night), fputs("</a>", out);
	fputs("</nav>\n", out);
	for (b = 0; b < nights->branch_count; b++) {
		const struct report_branch *branch = &nights->branches[b];

		fprintf(out, "<section id=\"branch-%zu\" class=\"branch\"><h2>", b);
		put_html(out, branch->night);
		fprintf(out, ": %zu night%s</h2>\n", branch->count, branch->count == 1 ? "" : "s");
		put_trend_charts(out, branch, b);
		put_nights_table(out, branch, 0);
		fputs("</section>\n", out);
	}
	fputs("<footer><p><small>rackbisect report nightly; each night is a gate (<code>rackbisect report gate "
	      "ID</code>); state ", out), put_html(out, nights->state_dir);
	fputs("</small></p></footer>\n</body>\n</html>\n", out);
}

void report_html_write(FILE *out, const struct report_data *data,
		       const struct report_html_options *options)
{
	const struct report_html_options none = { 0 };

	if (!options)
		options = &none;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", out);
	put_html(out, data->verdict), fputs(": ", out), put_html(out, data->title);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	put_verdict(out, data);
	if (data->gate)
		put_matrix(out, data->gate);
	if (data->bisection)
		put_bisection(out, data);
	put_other_bisections(out, data);
	put_power(out, data);
	put_runs(out, data, options);
	put_trend(out, data);
	fputs("<footer><p><small>rackbisect report; state ", out), put_html(out, data->state_dir);
	fputs("</small></p></footer>\n</body>\n</html>\n", out);
}
