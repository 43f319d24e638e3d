/*
 * results.h - what LAVA's REST API (v0.2) says of a job, read into what a
 * rackbisect run needs. Pure functions over the answers' text: the client
 * (drivers/lava/client.h) fetches, these read.
 *
 *   GET /api/v0.2/jobs/ID/         state and health     lava_job_state_parse
 *   GET /api/v0.2/jobs/ID/tests/   the "lava" suite's   lava_job_error_parse
 *                                  "job" case: why an Incomplete job ended
 *   GET /api/v0.2/jobs/ID/logs/    the device's output  lava_output_parse
 *                                  (lvl: target lines), cut at job.h's markers
 *
 * How a finished job counts (lava_classify):
 *   Complete                      the workload ran: its KTAP and kernel log are
 *                                 judged as an SSH run's are (PASS or FAIL)
 *   Incomplete, Infrastructure,   INFRA: the lab's trouble, retried as for any lab
 *     Bug, or no error recorded
 *   Incomplete, the test shell    FAIL(hang): the workload did not end within its
 *     timed out (Test or          time, as a hang on an SSH board
 *     LAVATimeout error in a
 *     lava-test-* action)
 *   Incomplete, Job,              REFUSED: LAVA could not run what we sent (the
 *     Configuration, or another   job, the lab's LAVA set-up): an error for a
 *     Test error                  person
 *   Canceled                      INFRA
 */
#ifndef RB_LAVA_RESULTS_H
#define RB_LAVA_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

enum lava_job_phase {
	LAVA_JOB_QUEUED,	/* Submitted, Scheduling, Scheduled */
	LAVA_JOB_RUNNING,	/* Running, Canceling */
	LAVA_JOB_FINISHED,
};

struct lava_job_state {
	enum lava_job_phase phase;
	char state[32];			/* LAVA's words: "Running", "Finished" */
	char health[32];		/* "Unknown", "Complete", "Incomplete", "Canceled" */
	char device[128];		/* actual_device; "" until scheduled */
	char failure_comment[1024];
};

/* 0, or -EINVAL with `error` saying what the answer lacked. */
int lava_job_state_parse(const char *json, struct lava_job_state *state, char *error,
			 size_t error_len);

struct lava_job_error {
	char type[32];			/* "Infrastructure", "Job", "LAVATimeout", ... */
	char message[1024];
	char action[64];		/* the action that failed, when said: "lava-test-shell" */
};

/* From a page of /tests/: 0 when the "lava" suite's "job" case says why the
 * job failed, -ENOENT when the page has none, -EINVAL when it is not JSON. */
int lava_job_error_parse(const char *json, struct lava_job_error *error_out);

enum lava_verdict {
	LAVA_RAN,		/* judge its output */
	LAVA_INFRA,
	LAVA_HANG,
	LAVA_REFUSED,
};

enum lava_verdict lava_classify(const struct lava_job_state *state,
				const struct lava_job_error *error);

/* What the job's own steps said of the build (job.h: RACKBISECT-DEPLOY and
 * RACKBISECT-BOOTED lines; the last of each counts). */
enum lava_step {
	LAVA_STEP_UNSAID,	/* no such line: the step never ran (or the job carried no build) */
	LAVA_STEP_OK,
	LAVA_STEP_WAITING,	/* RACKBISECT-BOOTED waiting: the old kernel still answered */
	LAVA_STEP_FAILED,
};

struct lava_step_said {
	enum lava_step step;
	char detail[512];	/* after "ok: ", "waiting: ", "failed: " */
};

struct lava_output {
	struct lava_step_said deploy, booted;
	char *ktap;			/* between the KTAP markers; NULL: never began */
	int status;			/* the script's exit status; -1 when the end never came */
	char *dmesg;			/* between the dmesg markers; NULL: none */
	char *console;			/* every target line, in order */
	size_t lines;
};

/* 0, -EINVAL (with `error`) for a log that is not LAVA's YAML, -ENOMEM. */
int lava_output_parse(const char *log_yaml, struct lava_output *output, char *error,
		      size_t error_len);
void lava_output_free(struct lava_output *output);

#endif
