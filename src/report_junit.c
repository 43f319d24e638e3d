/* report_junit.c - runs as JUnit XML: the scheduler's cells, or a report's stored runs. */
#include "report_junit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"

/* One testcase, whatever it was made from. */
struct junit_case {
	const char *classname;
	const char *name;		/* escaped when written */
	const char *element;		/* "failure", "error", "skipped"; NULL: passed */
	const char *message;
	const char *body;		/* the element's text */
	double seconds;			/* < 0: unknown */
};

/* Text and attribute values escaped; control bytes XML 1.0 forbids, and bytes
 * that are not UTF-8 (stored text comes verbatim from kernels and git), become '?'. */
static void put_escaped(FILE *out, const char *text)
{
	for (; text && *text; text++) {
		unsigned char c = (unsigned char)*text;
		size_t sequence = c >= 0x80 ? report_utf8_length(text) : 1;

		if (sequence > 1) {
			fwrite(text, 1, sequence, out);
			text += sequence - 1;
		} else if (sequence == 0)
			fputc('?', out);
		else if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c < 0x20 && c != '\n' && c != '\t')
			fputc('?', out);
		else
			fputc(c, out);
	}
}

static void put_case(FILE *out, const struct junit_case *test)
{
	fputs("    <testcase classname=\"", out);
	put_escaped(out, test->classname);
	fputs("\" name=\"", out);
	put_escaped(out, test->name);
	if (test->seconds >= 0)
		fprintf(out, "\" time=\"%.3f", test->seconds);
	fputs("\">\n", out);
	if (test->element) {
		fprintf(out, "      <%s message=\"", test->element);
		put_escaped(out, test->message);
		fputs("\">", out);
		put_escaped(out, test->body);
		fprintf(out, "</%s>\n", test->element);
	}
	fputs("    </testcase>\n", out);
}

static void put_suite_start(FILE *out, const char *name, size_t tests, unsigned int failures,
			    unsigned int errors, unsigned int skipped)
{
	fputs("  <testsuite name=\"", out);
	put_escaped(out, name);
	fprintf(out, "\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n", tests, failures,
		errors, skipped);
}

/* ---- run --junit: the scheduler's cells ------------------------------------------------------- */

int report_junit_write(const char *path, const char *suite_name,
		       const struct scheduler_cell *cells, size_t count)
{
	static const char *const element[] = { [VERDICT_FAIL] = "failure", [VERDICT_INFRA] = "error",
						[VERDICT_SKIP] = "skipped" };
	unsigned int by_outcome[4] = { 0 };
	char *text = NULL, name[256], body[128];
	size_t length = 0, i;
	FILE *out = open_memstream(&text, &length);
	int rc;

	if (!out)
		return -1;
	for (i = 0; i < count; i++)
		by_outcome[cells[i].outcome]++;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", out);
	put_suite_start(out, suite_name, count, by_outcome[VERDICT_FAIL], by_outcome[VERDICT_INFRA],
			by_outcome[VERDICT_SKIP]);
	for (i = 0; i < count; i++) {
		const struct scheduler_cell *cell = &cells[i];

		snprintf(name, sizeof(name), "%s #%u", cell->workload->name, cell->repeat_index + 1);
		snprintf(body, sizeof(body), "run %" PRId64 " on %s", cell->run_id, cell->ran_on);
		put_case(out, &(struct junit_case){
			.classname = cell->home->name, .name = name, .element = element[cell->outcome],
			.message = cell->summary, .body = body, .seconds = -1 });
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
	if (fclose(out) != 0) {
		free(text);
		return -1;
	}
	rc = files_write_atomic(path, text);
	free(text);
	if (rc) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/* ---- report --format junit: stored runs --------------------------------------------------------- */

static const char *run_element(const struct store_run *run)
{
	if (run->state != RUN_DONE)
		return "skipped";	/* not finished: nothing to say about the kernel yet */
	return run->outcome == RUN_FAIL ? "failure" : run->outcome == RUN_INFRA ? "error"
		: run->outcome == RUN_SKIP ? "skipped" : NULL;
}

/* "txdma-stop-fail, hang" or the cause: the one-line message. */
static char *run_message(const struct store_run *run)
{
	char *text = NULL;
	size_t length = 0, i;
	FILE *out = open_memstream(&text, &length);

	if (!out)
		return NULL;
	fputs(report_outcome_name(run->outcome), out);
	for (i = 0; i < run->symptom_count; i++)
		fprintf(out, "%s%s", i ? ", " : ": ", run->symptoms[i].name);
	if (run->cause && run->symptom_count)
		fprintf(out, " (%s)", run->cause);
	else if (run->cause)
		fprintf(out, ": %s", run->cause);
	if (run->state != RUN_DONE)
		fputs(" (not finished)", out);
	fclose(out);
	return text;
}

/* Each symptom with its kernel log lines, the metrics, and where the logs are. */
static char *run_body(const struct report_data *data, const struct report_run *entry)
{
	const struct store_run *run = entry->run;
	char *text = NULL, dir[4096];
	size_t length = 0, i;
	FILE *out = open_memstream(&text, &length);

	if (!out)
		return NULL;
	fprintf(out, "run %" PRId64 " on %s, commit %s\n", run->id, run->board ? run->board : "(no board)",
		run->commit);
	for (i = 0; i < run->symptom_count; i++)
		fprintf(out, "symptom %s:\n%s\n", run->symptoms[i].name,
			run->symptoms[i].evidence ? run->symptoms[i].evidence : "");
	for (i = 0; i < run->metric_count; i++)
		fprintf(out, "metric %s=%g %s\n", run->metrics[i].name, run->metrics[i].value,
			run->metrics[i].unit ? run->metrics[i].unit : "");
	if (report_data_run_path(data, run->id, NULL, dir, sizeof(dir)) == 0)
		fprintf(out, "logs: %s/\n", dir);
	fclose(out);
	return text;
}

static void put_run_case(FILE *out, const struct report_data *data, const struct report_run *entry,
			 const char *role)
{
	const struct store_run *run = entry->run;
	const char *element = run_element(run);
	char *message = element ? run_message(run) : NULL, *body = element ? run_body(data, entry) : NULL;
	char name[512];

	snprintf(name, sizeof(name), "%s #%u run %" PRId64 " (%s %.12s)", run->workload,
		 run->repeat_index + 1, run->id, role, run->commit);
	put_case(out, &(struct junit_case){
		.classname = run->board ? run->board : "(no board)", .name = name, .element = element,
		.message = message, .body = body,
		.seconds = run->started_at && run->finished_at >= run->started_at
			? (double)(run->finished_at - run->started_at) / 1000.0 : -1 });
	free(message);
	free(body);
}

/* One suite: the runs whose role for this part is set (the gate's or the bisection's). */
static void put_report_suite(FILE *out, const struct report_data *data, const char *name, bool bisection)
{
	unsigned int failures = 0, errors = 0, skipped = 0;
	size_t i, tests = 0;

	for (i = 0; i < data->run_count; i++) {
		const struct report_run *entry = &data->runs[i];
		const char *element = run_element(entry->run);

		if (!(bisection ? entry->bisection_role : entry->role))
			continue;
		tests++;
		failures += element && strcmp(element, "failure") == 0;
		errors += element && strcmp(element, "error") == 0;
		skipped += element && strcmp(element, "skipped") == 0;
	}
	put_suite_start(out, name, tests, failures, errors, skipped);
	for (i = 0; i < data->run_count; i++) {
		const char *role = bisection ? data->runs[i].bisection_role : data->runs[i].role;

		if (role)
			put_run_case(out, data, &data->runs[i], role);
	}
	fputs("  </testsuite>\n", out);
}

void report_junit_write_report(FILE *out, const struct report_data *data)
{
	char name[128];

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", out);
	put_escaped(out, data->title);
	fputs("\">\n", out);
	if (data->subject != REPORT_SUBJECT_BISECTION)
		put_report_suite(out, data, data->title, false);
	if (data->bisection) {
		snprintf(name, sizeof(name), "bisection %" PRId64, data->bisection->id);
		put_report_suite(out, data, data->subject == REPORT_SUBJECT_BISECTION ? data->title : name,
				 true);
	}
	fputs("</testsuites>\n", out);
}

/* ---- report nightly --format junit: stored nights ------------------------------------------------- */

static const char *night_element(const struct report_night *night)
{
	return strcmp(night->verdict, "PASS") == 0 ? NULL : strcmp(night->verdict, "REGRESSION") == 0
		? "failure" : "error";
}

/* "REGRESSION: W3 (txdma-stop-fail), W2 (hang)" or the verdict and its reason */
static char *night_message(const struct report_night *night)
{
	char *text = NULL;
	size_t length = 0, i;
	FILE *out = open_memstream(&text, &length);

	if (!out)
		return NULL;
	fputs(night->verdict, out);
	for (i = 0; i < night->regression_count; i++)
		fprintf(out, "%s%s (%s)", i ? ", " : ": ", night->regressions[i].workload,
			night->regressions[i].symptom ? night->regressions[i].symptom : "?");
	if (!night->regression_count && night->reason && *night->reason)
		fprintf(out, ": %s", night->reason);
	fclose(out);
	return text;
}

/* What the night rests on: heads, the head's runs, the culprit and where it came from. */
static char *night_body(const struct report_night *night)
{
	const unsigned int *c = night->head_runs;
	char *text = NULL;
	size_t length = 0;
	FILE *out = open_memstream(&text, &length);

	if (!out)
		return NULL;
	fprintf(out, "gate %" PRId64 " (job %s): head %s against %s%s\n", night->gate_id, night->job,
		night->head, night->baseline, night->first_night ? " (first night: itself)" : "");
	fprintf(out, "head runs: %u pass, %u fail, %u infra, %u skip\n", c[RUN_PASS], c[RUN_FAIL],
		c[RUN_INFRA], c[RUN_SKIP]);
	if (night->bisection_id)
		fprintf(out, "bisection %" PRId64 " (%s): %s%s\n", night->bisection_id,
			night->bisection_reused ? "known: named by an earlier night, not bisected again"
			: "started by this night", night->culprit ? "first bad commit " : "",
			night->culprit ? night->culprit : night->bisection_outcome ? night->bisection_outcome : "?");
	fprintf(out, "details: rackbisect report gate %" PRId64 "\n", night->gate_id);
	fclose(out);
	return text;
}

static void put_night_case(FILE *out, const char *branch, const struct report_night *night)
{
	const char *element = night_element(night);
	char *message = element ? night_message(night) : NULL, *body = element ? night_body(night) : NULL;
	char name[128], date[32];

	report_night_date(night->created_ms, date, sizeof(date));
	snprintf(name, sizeof(name), "night %s gate %" PRId64 " head %.12s", date, night->gate_id, night->head);
	put_case(out, &(struct junit_case){
		.classname = branch, .name = name, .element = element, .message = message, .body = body,
		.seconds = night->finished_ms >= night->created_ms && night->created_ms > 0
			? (double)(night->finished_ms - night->created_ms) / 1000.0 : -1 });
	free(message);
	free(body);
}

void report_junit_write_nights(FILE *out, const struct report_nights *nights)
{
	size_t b, i;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", out);
	put_escaped(out, nights->title);
	fputs("\">\n", out);
	for (b = 0; b < nights->branch_count; b++) {
		const struct report_branch *branch = &nights->branches[b];
		unsigned int failures = 0, errors = 0;

		for (i = 0; i < branch->count; i++) {
			const char *element = night_element(&branch->nights[i]);

			failures += element && strcmp(element, "failure") == 0;
			errors += element && strcmp(element, "error") == 0;
		}
		put_suite_start(out, branch->night, branch->count, failures, errors, 0);
		for (i = 0; i < branch->count; i++)
			put_night_case(out, branch->night, &branch->nights[i]);
		fputs("  </testsuite>\n", out);
	}
	fputs("</testsuites>\n", out);
}
