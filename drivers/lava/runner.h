/*
 * runner.h - one rackbisect run as one LAVA job: the counterpart of src/run.c
 * for a board of a `type: lava` lab, which LAVA owns.
 *
 *   queued in the store -> the job definition (job.h), written to the run's
 *   job.yaml -> submitted -> followed (LAVA's queue, then its run; a job
 *   left in the queue past the lab's queue timeout is canceled) -> its tests
 *   and log read (results.h) -> console.log, output.ktap, dmesg.log in the
 *   run's directory -> judged and stored as any run (run_record.h).
 *
 * A Complete job is judged on its KTAP and kernel log like an SSH run; the
 * other endings are INFRA (the scheduler retries it elsewhere), FAIL(hang)
 * for a test shell that stopped answering, or INFRA saying LAVA refused the
 * job or the token (INFRA that is not retried: report.retry_cannot_help;
 * a person must look). A build that failed never reaches LAVA: SKIP.
 */
#ifndef RB_LAVA_RUNNER_H
#define RB_LAVA_RUNNER_H

#include "config.h"
#include "lava/client.h"
#include "run.h"

struct lava_run;

struct lava_run_options {
	const struct run_environment *environment;
	const struct lab *lab;			/* its lava: block */
	const struct lab_board *board;		/* device type and tags */
	struct lava_client *client;
	unsigned int poll_interval_ms;		/* 0: 2000 */
};

/* 0 and the callback runs once, later; or a negative errno and it never does. */
int lava_run_start(const struct lava_run_options *options, const struct run_spec *spec,
		   run_done_cb callback, void *data, struct lava_run **out);

/* The job is canceled in LAVA (best effort) and the run ends INFRA. */
void lava_run_cancel(struct lava_run *run);

#endif
