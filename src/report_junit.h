/*
 * report_junit.h - JUnit XML for CI systems (Jenkins, GitLab): one testsuite
 * per invocation, one testcase per run the user asked for (classname the
 * board, name "WORKLOAD #REPEAT"); FAIL is a <failure>, INFRA an <error>
 * (the lab, not the kernel), SKIP <skipped>.
 */
#ifndef RB_REPORT_JUNIT_H
#define RB_REPORT_JUNIT_H

#include <stddef.h>

#include "scheduler.h"

/* Writes the file atomically. 0, or -1 with errno set. */
int report_junit_write(const char *path, const char *suite_name,
		       const struct scheduler_cell *cells, size_t count);

#endif
