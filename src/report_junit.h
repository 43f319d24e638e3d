/*
 * report_junit.h - JUnit XML for CI systems (Jenkins, GitLab): FAIL is a
 * <failure>, INFRA an <error> (the lab, not the kernel), SKIP <skipped>.
 *
 * `run --junit FILE`: one testsuite, one testcase per run the user asked for
 * (classname the board, name "WORKLOAD #REPEAT").
 * `report --format junit`: one testsuite for the gate (or the lone run) and
 * one for the bisection, one testcase per stored run (classname the board,
 * name "WORKLOAD #REPEAT run ID (ROLE COMMIT)", time from its start to its
 * end), the failure's text its symptoms with their kernel log lines and
 * where its logs are.
 * `report nightly --format junit`: a night is a testcase (see below).
 */
#ifndef RB_REPORT_JUNIT_H
#define RB_REPORT_JUNIT_H

#include <stddef.h>
#include <stdio.h>

#include "report_data.h"
#include "report_nights.h"
#include "scheduler.h"

/* Writes the file atomically. 0, or -1 with errno set. */
int report_junit_write(const char *path, const char *suite_name,
		       const struct scheduler_cell *cells, size_t count);

/* The report's runs as JUnit XML. */
void report_junit_write_report(FILE *out, const struct report_data *data);

/* `report nightly`: one testsuite per branch, one testcase per night (oldest
 * first; classname the branch, name "night DATE gate ID head COMMIT", time
 * the gate's), REGRESSION a <failure> (the regressions and the culprit),
 * INCOMPLETE or any other verdict but PASS an <error> (the lab could not
 * tell). */
void report_junit_write_nights(FILE *out, const struct report_nights *nights);

#endif
