/*
 * report_stable.h - the reply a stable maintainer receives for a release
 * candidate under review, in plain text (the shape of the replies on the
 * stable list): the verdict, what was tested where, the counts, each
 * regression with its symptom, boards and kernel log lines, each culprit in
 * the queue and what the stable rules allow, the queue audit, and
 * "Tested-by:" only when there is no regression.
 */
#ifndef RB_REPORT_STABLE_H
#define RB_REPORT_STABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gate.h"
#include "stable_queue.h"

struct report_stable_culprit {
	const struct stable_patch *patch;	/* the queued commit */
	double probability;
	unsigned int runs;			/* of the bisection */
	int64_t bisection;			/* its id */
	bool reused;				/* bisected before, not again */
	const struct mainline_status *mainline;	/* NULL: not checked */
	const char *advice;
	const char *regressions;		/* what it answers, "W3 (auth-timeout)"; may be NULL */
};

struct report_stable {
	const char *lab, *job;
	const char *candidate_ref, *candidate_id, *candidate_describe;
	const char *baseline_ref, *baseline_id;
	const char *mainline_ref;		/* NULL: not checked */
	const struct gate_answer *gate;
	/* the kernel log lines that showed each regression's symptom, by
	 * regression index; entries may be NULL */
	const char *const *excerpts;
	/* one per culprit: two regressions with different symptoms can have
	 * a culprit each; none: not bisected */
	const struct report_stable_culprit *culprits;
	size_t culprit_count;
	const char *bisect_note;		/* why a regression has no culprit, or NULL */
	const struct stable_queue *queue;	/* NULL: not read */
	const size_t *astray;			/* the audit: indexes into queue->patches */
	size_t astray_count;
	const char *tested_by;			/* "Name <email>" */
};

void report_stable_write(FILE *out, const struct report_stable *report);

#endif
