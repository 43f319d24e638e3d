/*
 * report_kcidb.h - a report as KCIDB JSON, KernelCI's common schema (v5.3,
 * kcidb-io; tests/data/kcidb-io.schema.v5.3.json is that schema): every
 * commit involved is a checkout, every stored build a build (a run with no
 * stored build gets a build object standing for "not recorded"), every run a
 * test with path "ath9k.WORKLOAD" and status FAIL (the kernel), MISS (INFRA:
 * the lab), SKIP (no build or boot) or PASS, its symptoms, metrics, role and
 * board under misc and its kept log files as file:// resources; its power
 * measurements (power_avg, energy) are tests of their own with status DONE
 * and a number. A bisection's first bad commit is an issue (culprit: the
 * code) with an incident for every run that showed the tracked symptom.
 *
 * Ids are "rackbisect:LAB/checkout/COMMIT", "rackbisect:LAB/build/ID",
 * "rackbisect:LAB/run/ID", "rackbisect:LAB/bisection/ID": one lab's ids
 * never collide, and a report made again gives the same ids.
 */
#ifndef RB_REPORT_KCIDB_H
#define RB_REPORT_KCIDB_H

#include <jansson.h>

#include "report_data.h"

#define REPORT_KCIDB_MAJOR 5
#define REPORT_KCIDB_MINOR 3

/* The report as one KCIDB object (a new reference), or NULL out of memory. */
json_t *report_kcidb_json(const struct report_data *data);

#endif
