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
#include "report_nights.h"

#define REPORT_KCIDB_MAJOR 5
#define REPORT_KCIDB_MINOR 3

/* The report as one KCIDB object (a new reference), or NULL out of memory. */
json_t *report_kcidb_json(const struct report_data *data);

/*
 * `report nightly`: every night's gate as report_kcidb_json() gives it
 * (the nights loaded with gate_reports), merged: what two nights share (a
 * baseline that was an earlier head, a build, a reused bisection's issue)
 * appears once. A night's head checkout also says its tree_name and
 * git_repository_branch ("TREE/BRANCH" split at the first '/'), its
 * start_time (the night's), and misc.nights: the nights it was the head of
 * with their gate and verdict. NULL out of memory.
 */
json_t *report_kcidb_nights_json(const struct report_nights *nights);

#endif
