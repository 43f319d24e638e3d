/* verdict.c - a run's outputs and facts -> PASS/FAIL/INFRA/SKIP; see verdict.h. */
#include "verdict.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static const char *const outcome_names[] = {
	[VERDICT_PASS] = "PASS",
	[VERDICT_FAIL] = "FAIL",
	[VERDICT_INFRA] = "INFRA",
	[VERDICT_SKIP] = "SKIP",
};

static const char *const lab_error_kind_names[] = {
	[VERDICT_LAB_UNREACHABLE] = "board unreachable",
	[VERDICT_LAB_POWER] = "power switch error",
	[VERDICT_LAB_UPLOAD] = "upload failed",
	[VERDICT_LAB_CONSOLE_LOST] = "console lost",
	[VERDICT_LAB_SETUP] = "lab set-up error",
};

const char *verdict_outcome_name(enum verdict_outcome outcome)
{
	if ((size_t)outcome >= COUNT(outcome_names))
		return "?";
	return outcome_names[outcome];
}

const char *verdict_lab_error_kind_name(enum verdict_lab_error_kind kind)
{
	if ((size_t)kind >= COUNT(lab_error_kind_names))
		return "lab error";
	return lab_error_kind_names[kind];
}

/* ---- small string helpers ------------------------------------------------ */

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *format(const char *fmt, ...)
{
	va_list args;
	char *text;
	int rc;

	va_start(args, fmt);
	rc = vasprintf(&text, fmt, args);
	va_end(args);
	return rc < 0 ? NULL : text;
}

/* "what: detail", or "what" alone when the engine gave no detail. */
static char *what_and_detail(const char *what, const char *detail)
{
	if (!detail || !*detail)
		return strdup(what);
	return format("%s: %s", what, detail);
}

/* Appends "; part" (or part, when *text is NULL); frees part either way. */
static int join_owned(char **text, char *part)
{
	char *joined;

	if (!part)
		return -ENOMEM;
	if (!*text) {
		*text = part;
		return 0;
	}
	joined = format("%s; %s", *text, part);
	free(part);
	if (!joined)
		return -ENOMEM;
	free(*text);
	*text = joined;
	return 0;
}

/*
 * A console line usually ends in "\r" (and a caller may leave the "\n"):
 * evidence is shown and stored as a line, so neither belongs in it.
 */
static char *line_without_line_end(const char *line)
{
	size_t len = strlen(line);

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	return strndup(line, len);
}

/* ---- building the verdict ------------------------------------------------ */

static bool has_symptom(const struct verdict *verdict, const char *name)
{
	for (size_t i = 0; i < verdict->symptom_count; i++) {
		if (strcmp(verdict->symptoms[i].name, name) == 0)
			return true;
	}
	return false;
}

/*
 * Takes ownership of evidence. One entry per name: bisection and reports
 * count symptoms, not lines, and the first evidence is the one that matters.
 */
static int add_symptom(struct verdict *verdict, const char *name, char *evidence)
{
	struct verdict_symptom *grown;
	char *name_copy;

	if (!evidence)
		return -ENOMEM;
	if (has_symptom(verdict, name)) {
		free(evidence);
		return 0;
	}
	grown = realloc(verdict->symptoms, (verdict->symptom_count + 1) * sizeof(*grown));
	name_copy = strdup(name);
	if (!grown || !name_copy) {
		if (grown)
			verdict->symptoms = grown;
		free(name_copy);
		free(evidence);
		return -ENOMEM;
	}
	verdict->symptoms = grown;
	grown[verdict->symptom_count].name = name_copy;
	grown[verdict->symptom_count].evidence = evidence;
	verdict->symptom_count++;
	return 0;
}

/* Takes ownership of name. */
static int add_failing_test(struct verdict *verdict, char *name)
{
	char **grown;

	if (!name)
		return -ENOMEM;
	grown = realloc(verdict->failing_tests, (verdict->failing_test_count + 1) * sizeof(*grown));
	if (!grown) {
		free(name);
		return -ENOMEM;
	}
	verdict->failing_tests = grown;
	grown[verdict->failing_test_count++] = name;
	return 0;
}

/* Takes ownership of cause; NULL cause means the allocation failed. */
static int settle_with_cause(struct verdict *verdict, enum verdict_outcome outcome, char *cause)
{
	if (!cause)
		return -ENOMEM;
	verdict->outcome = outcome;
	free(verdict->cause);
	verdict->cause = cause;
	return 0;
}

/* ---- lab errors ---------------------------------------------------------- */

static bool lab_error_in_phase(const struct verdict_facts *facts, bool kernel_under_test_running)
{
	for (size_t i = 0; i < facts->lab_error_count; i++) {
		if (facts->lab_errors[i].kernel_under_test_running == kernel_under_test_running)
			return true;
	}
	return false;
}

/* Every lab error of the phase, in order: the scheduler and the admin want them all. */
static int lab_errors_cause(const struct verdict_facts *facts, bool kernel_under_test_running,
			    char **cause)
{
	int rc;

	for (size_t i = 0; i < facts->lab_error_count; i++) {
		const struct verdict_lab_error *error = &facts->lab_errors[i];

		if (error->kernel_under_test_running != kernel_under_test_running)
			continue;
		rc = join_owned(cause, what_and_detail(verdict_lab_error_kind_name(error->kind),
						       error->cause));
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Rule 1. Trouble before the kernel under test ran says nothing about it,
 * and neither does a hang of whatever else the board was running.
 */
static int judge_lab_before_kernel(const struct verdict_facts *facts, struct verdict *verdict)
{
	char *cause = NULL;
	int rc = lab_errors_cause(facts, false, &cause);

	if (rc == 0 && facts->hang == VERDICT_HANG_OTHER_KERNEL)
		rc = join_owned(&cause, strdup("board hung while not running the kernel under test"));
	if (rc) {
		free(cause);
		return rc;
	}
	return settle_with_cause(verdict, VERDICT_INFRA, cause);
}

/* ---- symptoms ------------------------------------------------------------ */

static const char *first_matching_line(const struct job_symptom *symptom,
				       const struct verdict_input *input)
{
	for (size_t i = 0; i < input->log_line_count; i++) {
		const char *line = input->log_lines[i];

		if (line && regexec(&symptom->regex, line, 0, NULL, 0) == 0)
			return line;
	}
	return NULL;
}

/* Depth first, so the evidence is the earliest test that shows the symptom. */
static const struct ktap_metric *metric_in_tests(const struct job_symptom *symptom,
						 const struct ktap_test *tests, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const struct ktap_metric *metric = ktap_test_find_metric(&tests[i], symptom->metric);

		if (metric && job_symptom_metric_holds(symptom, metric->value))
			return metric;
		metric = metric_in_tests(symptom, tests[i].subtests, tests[i].subtest_count);
		if (metric)
			return metric;
	}
	return NULL;
}

/*
 * The run-level metric is the workload's verdict on the whole run, so when
 * it is there, it alone counts (a per-phase value over the threshold is not
 * a run over it). Only when the run printed none, as when the output stopped
 * early and the summary went to the test in progress, do the tests' count.
 */
static const struct ktap_metric *matching_metric(const struct job_symptom *symptom,
						 const struct ktap_report *report)
{
	const struct ktap_metric *metric;

	if (!report)
		return NULL;
	metric = ktap_report_find_metric(report, symptom->metric);
	if (metric)
		return job_symptom_metric_holds(symptom, metric->value) ? metric : NULL;
	return metric_in_tests(symptom, report->tests, report->test_count);
}

/* "metric ping_loss_total=5.01 % > 5" */
static char *metric_evidence(const struct job_symptom *symptom, const struct ktap_metric *metric)
{
	return format("metric %s=%.15g%s%s %s %.15g", metric->name, metric->value,
		      metric->unit[0] ? " " : "", metric->unit,
		      job_compare_text(symptom->compare), symptom->threshold);
}

static int match_symptom(const struct job_symptom *symptom, const struct verdict_input *input,
			 struct verdict *verdict)
{
	const struct ktap_metric *metric;
	const char *line;

	if (symptom->kind == JOB_SYMPTOM_LOG) {
		line = first_matching_line(symptom, input);
		return line ? add_symptom(verdict, symptom->name, line_without_line_end(line)) : 0;
	}
	metric = matching_metric(symptom, input->report);
	return metric ? add_symptom(verdict, symptom->name, metric_evidence(symptom, metric)) : 0;
}

static int match_symptoms(const struct verdict_input *input, struct verdict *verdict)
{
	int rc;

	for (size_t i = 0; i < input->job->symptom_count; i++) {
		rc = match_symptom(&input->job->symptoms[i], input, verdict);
		if (rc)
			return rc;
	}
	return 0;
}

/* What the kernel said last before it froze is the best quote a hang has. */
static char *hang_evidence(const struct verdict_input *input)
{
	for (size_t i = input->log_line_count; i > 0; i--) {
		const char *line = input->log_lines[i - 1];

		if (line && line[strspn(line, " \t\r\n")])
			return line_without_line_end(line);
	}
	return format("no output and no SSH for %u s, no kernel log captured",
		      input->job->hang_timeout_seconds);
}

/* ---- failing tests ------------------------------------------------------- */

static bool counts_as_failing(const struct ktap_test *test)
{
	enum ktap_outcome outcome = ktap_test_outcome(test);

	/* an incomplete test is the one a hang or a cut-off interrupted */
	return outcome == KTAP_OUTCOME_FAILED || outcome == KTAP_OUTCOME_INCOMPLETE;
}

static char *test_label(const struct ktap_test *test, const char *parent)
{
	char number[32];
	const char *name = test->name;

	if (!name[0]) {
		snprintf(number, sizeof(number), "test %u", test->number);
		name = number;
	}
	return parent ? format("%s: %s", parent, name) : strdup(name);
}

/*
 * Leaves that failed; a parent only when none of its subtests did, as
 * ktap_report_count() counts, so that no failure is lost and none is named twice.
 */
static int collect_failing_tests(struct verdict *verdict, const struct ktap_test *tests,
				 size_t count, const char *parent)
{
	int rc = 0;

	for (size_t i = 0; i < count && rc == 0; i++) {
		const struct ktap_test *test = &tests[i];
		size_t before = verdict->failing_test_count;
		char *label = test_label(test, parent);

		if (!label)
			return -ENOMEM;
		rc = collect_failing_tests(verdict, test->subtests, test->subtest_count, label);
		if (rc == 0 && verdict->failing_test_count == before && counts_as_failing(test)) {
			rc = add_failing_test(verdict, label);
			label = NULL;
		}
		free(label);
	}
	return rc;
}

static int settle_fail(const struct verdict_input *input, struct verdict *verdict)
{
	verdict->outcome = VERDICT_FAIL;
	if (!input->report)
		return 0;
	return collect_failing_tests(verdict, input->report->tests, input->report->test_count, NULL);
}

/* ---- the workload's output ----------------------------------------------- */

static const char *workload_label(const struct verdict_input *input)
{
	return input->workload && input->workload->name ? input->workload->name : "";
}

/*
 * Why the output cannot be trusted to show the whole run, or NULL (and
 * *cause NULL) when it can. A run that did not finish may have stopped just
 * before the failure, so its passes prove nothing.
 */
static int incomplete_output_cause(const struct verdict_input *input, char **cause)
{
	const struct ktap_report *report = input->report;
	const char *name = workload_label(input);
	const char *space = name[0] ? " " : "";

	*cause = NULL;
	if (!report)
		*cause = format("workload%s%s produced no output", space, name);
	else if (report->bailed_out)
		*cause = format("workload%s%s bailed out%s%s", space, name,
				report->bail_out_reason[0] ? ": " : "", report->bail_out_reason);
	else if (report->ended_early)
		*cause = format("workload%s%s output ended early (%u of %u results)", space, name,
				report->results, report->plan);
	else if (!report->has_plan && report->results == 0)
		*cause = format("workload%s%s printed no KTAP", space, name);
	else
		return 0;
	return *cause ? 0 : -ENOMEM;
}

static bool any_test_failed(const struct ktap_report *report)
{
	struct ktap_counts counts;

	if (!report)
		return false;
	ktap_report_count(report, &counts);
	return counts.failed > 0;
}

/* ---- the rules ----------------------------------------------------------- */

/* Rule 3: the boot policy decides whether a kernel that never came up is evidence. */
static int judge_boot_failure(const struct verdict_input *input, struct verdict *verdict)
{
	const char *detail = input->facts.boot_failure;

	if (input->job->boot_failure == JOB_POLICY_SKIP)
		return settle_with_cause(verdict, VERDICT_SKIP, what_and_detail("boot failed", detail));
	verdict->outcome = VERDICT_FAIL;
	return add_symptom(verdict, VERDICT_SYMPTOM_BOOT, strdup(detail[0] ? detail : "boot failed"));
}

/* Rules 6-9, once the kernel under test ran and did not hang. */
static int judge_output(const struct verdict_input *input, struct verdict *verdict)
{
	char *cause;
	int rc = incomplete_output_cause(input, &cause);

	if (rc)
		return rc;
	if (cause) {
		char *lab_cause = NULL;

		if (verdict->symptom_count > 0) {
			free(cause);
			return settle_fail(input, verdict);
		}
		/* the lab's trouble (a dropped session, a reset) first: it is
		 * why the output is missing, and it names the board */
		rc = lab_errors_cause(&input->facts, true, &lab_cause);
		if (rc == 0 && lab_cause) {
			rc = join_owned(&lab_cause, cause);
			cause = lab_cause;
		} else if (rc) {
			free(lab_cause);
		}
		if (rc) {
			free(cause);
			return rc;
		}
		return settle_with_cause(verdict, VERDICT_INFRA, cause);
	}
	if (any_test_failed(input->report) && verdict->symptom_count == 0) {
		rc = add_symptom(verdict, VERDICT_SYMPTOM_UNMATCHED_FAILURE,
				 strdup("a test failed and no symptom rule matched"));
		if (rc)
			return rc;
	}
	if (verdict->symptom_count > 0)
		return settle_fail(input, verdict);
	if (lab_error_in_phase(&input->facts, true)) {
		rc = lab_errors_cause(&input->facts, true, &cause);
		return rc ? rc : settle_with_cause(verdict, VERDICT_INFRA, cause);
	}
	verdict->outcome = VERDICT_PASS;
	return 0;
}

static int judge(const struct verdict_input *input, struct verdict *verdict)
{
	const struct verdict_facts *facts = &input->facts;
	int rc;

	if (lab_error_in_phase(facts, false) || facts->hang == VERDICT_HANG_OTHER_KERNEL)
		return judge_lab_before_kernel(facts, verdict);
	if (facts->build_failure)
		return settle_with_cause(verdict, VERDICT_SKIP,
					 what_and_detail("build failed", facts->build_failure));
	if (facts->boot_failure)
		return judge_boot_failure(input, verdict);
	rc = match_symptoms(input, verdict);
	if (rc)
		return rc;
	if (facts->hang == VERDICT_HANG_KERNEL_UNDER_TEST) {
		rc = add_symptom(verdict, VERDICT_SYMPTOM_HANG, hang_evidence(input));
		return rc ? rc : settle_fail(input, verdict);
	}
	if (facts->workload_timeout_seconds) {
		rc = add_symptom(verdict, VERDICT_SYMPTOM_WORKLOAD_TIMEOUT,
				 format("workload timed out: %s ran past its %u s timeout while the "
					"board answered; its processes were killed",
					input->workload ? input->workload->name : "the workload",
					facts->workload_timeout_seconds));
		return rc ? rc : settle_fail(input, verdict);
	}
	return judge_output(input, verdict);
}

int verdict_make(const struct verdict_input *input, struct verdict **verdict)
{
	struct verdict *made;
	int rc;

	if (!verdict)
		return -EINVAL;
	*verdict = NULL;
	if (!input || !input->job || (input->log_line_count > 0 && !input->log_lines))
		return -EINVAL;
	made = calloc(1, sizeof(*made));
	if (!made)
		return -ENOMEM;
	rc = judge(input, made);
	if (rc) {
		verdict_free(made);
		return rc;
	}
	*verdict = made;
	return 0;
}

void verdict_free(struct verdict *verdict)
{
	if (!verdict)
		return;
	for (size_t i = 0; i < verdict->symptom_count; i++) {
		free(verdict->symptoms[i].name);
		free(verdict->symptoms[i].evidence);
	}
	free(verdict->symptoms);
	for (size_t i = 0; i < verdict->failing_test_count; i++)
		free(verdict->failing_tests[i]);
	free(verdict->failing_tests);
	free(verdict->cause);
	free(verdict);
}

/* ---- the one-line summary ------------------------------------------------ */

struct line_writer {
	char *buffer;
	size_t len;
	size_t used;
	bool cut;
};

static void write_text(struct line_writer *writer, const char *text)
{
	size_t room = writer->len - writer->used - 1;
	size_t n = strlen(text);

	if (n > room) {
		n = room;
		writer->cut = true;
	}
	memcpy(writer->buffer + writer->used, text, n);
	writer->used += n;
	writer->buffer[writer->used] = '\0';
}

int verdict_summary(const struct verdict *verdict, char *buffer, size_t len)
{
	struct line_writer writer = { .buffer = buffer, .len = len };

	if (!verdict || !buffer || len == 0)
		return -EINVAL;
	buffer[0] = '\0';
	write_text(&writer, verdict_outcome_name(verdict->outcome));
	for (size_t i = 0; i < verdict->symptom_count; i++) {
		write_text(&writer, i == 0 ? " " : ",");
		write_text(&writer, verdict->symptoms[i].name);
	}
	if (verdict->failing_test_count > 0) {
		write_text(&writer, " (");
		write_text(&writer, verdict->failing_tests[0]);
		write_text(&writer, verdict->failing_test_count > 1 ? " ...)" : ")");
	}
	if (verdict->cause) {
		write_text(&writer, " ");
		write_text(&writer, verdict->cause);
	}
	return writer.cut ? -ENOSPC : 0;
}
