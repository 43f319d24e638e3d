/* run_record.c - see run_record.h. */
#include "run_record.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "ktap.h"
#include "log.h"
#include "path.h"
#include "store.h"

int run_record_start(const struct run_environment *environment, const char *board_name,
		     const struct run_spec *spec, int64_t *run_id, char *dir, size_t dir_len)
{
	int rc;

	rc = store_run_queue(environment->store, &(struct store_run_request){
		.job = environment->job_name,
		.board = board_name,
		.commit = spec->commit,
		.build_id = spec->build_id,
		.workload = spec->workload->name,
		.repeat_index = spec->repeat_index }, run_id);
	if (!rc && environment->run_queued)
		environment->run_queued(*run_id, spec, environment->run_queued_data);
	if (!rc && board_name)
		rc = store_run_start(environment->store, *run_id, board_name);
	if (!rc)
		rc = run_directory(environment->runs_dir, *run_id, dir, dir_len);
	if (!rc)
		rc = path_make_dirs(dir);
	return rc;
}

void run_record_file(const struct run_environment *environment, const char *board_name,
		     int64_t run_id, const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];

	if (path_format(path, sizeof(path), "%s/%s", dir, name) == 0 &&
	    files_write_atomic(path, text) != 0)
		log_event(environment->log, LOG_NOTICE, board_name, run_id, "write-failed", "%s: %s",
			  path, strerror(errno));
}

static void write_verdict_file(const struct run_environment *environment, int64_t run_id,
			       const char *dir, const struct verdict *verdict,
			       const struct run_report *report)
{
	char text[8192];
	size_t used, i;

	used = (size_t)snprintf(text, sizeof(text), "%s\n", report->summary);
	for (i = 0; verdict && i < verdict->symptom_count && used < sizeof(text); i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "symptom %s: %s\n",
					 verdict->symptoms[i].name,
					 verdict->symptoms[i].evidence ? verdict->symptoms[i].evidence : "");
	run_record_file(environment, NULL, run_id, dir, "verdict.txt", text);
}

static enum run_outcome store_outcome(enum verdict_outcome outcome)
{
	static const enum run_outcome map[] = { RUN_PASS, RUN_FAIL, RUN_INFRA, RUN_SKIP };

	return map[outcome];
}

static int store_verdict(const struct run_environment *environment, int64_t run_id,
			 const struct verdict *verdict, const struct ktap_report *report)
{
	struct store_symptom *symptoms = calloc(verdict->symptom_count + 1, sizeof(*symptoms));
	size_t metric_count = report ? report->metric_count : 0;
	struct store_metric *metrics = calloc(metric_count + 1, sizeof(*metrics));
	size_t i;
	int rc = -ENOMEM;

	if (symptoms && metrics) {
		for (i = 0; i < verdict->symptom_count; i++)
			symptoms[i] = (struct store_symptom){ verdict->symptoms[i].name,
							      verdict->symptoms[i].evidence };
		for (i = 0; i < metric_count; i++)
			metrics[i] = (struct store_metric){ report->metrics[i].name,
							    report->metrics[i].value,
							    report->metrics[i].unit };
		rc = store_run_finish(environment->store, run_id, &(struct store_result){
			.outcome = store_outcome(verdict->outcome),
			.cause = verdict->cause,
			.symptoms = symptoms, .symptom_count = verdict->symptom_count,
			.metrics = metrics, .metric_count = metric_count });
	}
	free(symptoms);
	free(metrics);
	return rc;
}

void run_record_finish(const struct run_environment *environment, int64_t run_id,
		       const char *dir, const struct job_workload *workload,
		       const struct run_evidence *evidence, struct run_report *report)
{
	struct ktap_report *ktap = NULL;
	struct verdict *verdict = NULL;
	int rc;

	if (evidence->output)
		ktap_parse(evidence->output, evidence->output_length, NULL, &ktap);
	struct verdict_input input = {
		.job = environment->job,
		.workload = workload,
		.report = ktap,
		.log_lines = evidence->log_lines,
		.log_line_count = evidence->log_line_count,
		.facts = evidence->facts,
	};
	rc = verdict_make(&input, &verdict);
	if (rc == 0) {
		report->outcome = verdict->outcome;
		verdict_summary(verdict, report->summary, sizeof(report->summary));
		rc = store_verdict(environment, run_id, verdict, ktap);
		write_verdict_file(environment, run_id, dir, verdict, report);
	}
	if (rc) {
		/* Never claim a result the store does not hold. */
		report->outcome = VERDICT_INFRA;
		snprintf(report->summary, sizeof(report->summary),
			 "INFRA the result could not be stored: %s",
			 store_error_message(environment->store));
	}
	verdict_free(verdict);
	ktap_report_free(ktap);
}
