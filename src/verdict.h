/*
 * verdict.h - what one run of one workload on one board amounts to:
 * PASS, FAIL (with the symptoms that prove it), INFRA (the lab misbehaved,
 * no evidence about the kernel) or SKIP (the candidate never got to run).
 * DESIGN.md "Run outcomes" is the contract; bisection, gating and the
 * `test` command's exit codes are built on it, so the rules live in this one
 * place.
 *
 * A pure library: no I/O, no global state. The engine gathers what the run
 * produced (the KTAP report, the kernel log of the run window, facts such as
 * "the build failed" or "the board hung") and asks for a verdict:
 *
 *   struct verdict_input input = {
 *       .job = job, .workload = &job->workloads[2], .report = report,
 *       .log_lines = lines, .log_line_count = n,
 *       .facts = { .hang = VERDICT_HANG_KERNEL_UNDER_TEST },
 *   };
 *   struct verdict *verdict;
 *   verdict_make(&input, &verdict);
 *   ... verdict->outcome, verdict->symptoms, verdict_summary(...) ...
 *   verdict_free(verdict);
 *
 * The rules, first match wins:
 *  1. a lab error before the kernel under test ran, or a hang of another
 *     kernel (the fallback) -> INFRA, whatever else is known;
 *  2. the build failed -> SKIP (the job format fixes this policy);
 *  3. the boot failed -> SKIP, or FAIL with symptom "boot", per the job;
 *  4. symptoms are matched: each job symptom at most once, in job order,
 *     with its first evidence; log symptoms against the kernel log lines,
 *     metric symptoms against the report's run-level metric of that name
 *     or, when the run printed none (output that stopped early leaves them
 *     in the test in progress), against each test's own, depth first;
 *  5. the kernel under test hung -> FAIL, symptoms + "hang"; the workload
 *     ran past its timeout while the board still answered (its processes
 *     were killed) -> FAIL, symptoms + "workload-timeout";
 *  6. output missing, ended early, bailed out or without any result ->
 *     FAIL when a symptom matched, else INFRA (nothing trustworthy either way);
 *  7. a test failed (not ok, no TODO/XFAIL) or a symptom matched -> FAIL;
 *     a failed test with no symptom gives symptom "unmatched-failure", which
 *     bisection (it tracks one named symptom) can ignore;
 *  8. a lab error after the kernel under test started and nothing above ->
 *     INFRA: observation was cut short, so a PASS cannot be claimed;
 *  9. otherwise PASS.
 */
#ifndef RB_VERDICT_H
#define RB_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "job_config.h"
#include "ktap.h"

enum verdict_outcome {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_INFRA,
	VERDICT_SKIP,
};

/* Symptom names the verdict adds beside the job's own. */
#define VERDICT_SYMPTOM_HANG "hang"
#define VERDICT_SYMPTOM_WORKLOAD_TIMEOUT "workload-timeout"
#define VERDICT_SYMPTOM_BOOT "boot"
#define VERDICT_SYMPTOM_UNMATCHED_FAILURE "unmatched-failure"

enum verdict_hang {
	VERDICT_HANG_NONE,
	VERDICT_HANG_KERNEL_UNDER_TEST, /* the watchdog fired while it ran */
	VERDICT_HANG_OTHER_KERNEL,      /* e.g. the fallback kernel, before the boot */
};

enum verdict_lab_error_kind {
	VERDICT_LAB_UNREACHABLE,  /* board unreachable */
	VERDICT_LAB_POWER,        /* power switch error */
	VERDICT_LAB_UPLOAD,       /* kernel or workload upload failed */
	VERDICT_LAB_CONSOLE_LOST, /* console capture lost */
	VERDICT_LAB_SCHEDULER,    /* the lab's scheduler (LAVA) ended the job: canceled,
				   * its infrastructure failed, or it refused the job */
	VERDICT_LAB_SETUP,        /* the coordinator's own set-up: e.g. an SSH identity
				   * that cannot be read; no board is at fault */
};

struct verdict_lab_error {
	enum verdict_lab_error_kind kind;
	const char *cause;  /* "board r3: connect to 127.0.0.5:2203: refused"; NULL or "" allowed */
	/* it happened once the kernel under test was running (booted, right
	 * `uname -r`); before that, the run is INFRA whatever else happened */
	bool kernel_under_test_running;
};

/* What the engine knows about the run besides its output. */
struct verdict_facts {
	const char *build_failure; /* NULL: it built; else what failed ("" is fine) */
	const char *boot_failure;  /* NULL: it booted; "uname -r is 3.3, expected 3.3.1-rc1" */
	enum verdict_hang hang;
	/* > 0: the workload ran past this timeout (s) while the board answered */
	unsigned int workload_timeout_seconds;
	const struct verdict_lab_error *lab_errors; /* in the order they happened */
	size_t lab_error_count;
};

struct verdict_input {
	const struct job *job;
	const struct job_workload *workload; /* names it in causes; may be NULL */
	const struct ktap_report *report;    /* NULL: the workload printed nothing */
	const char *const *log_lines;        /* dmesg and console of the run window */
	size_t log_line_count;
	struct verdict_facts facts;
};

struct verdict_symptom {
	char *name;     /* the job's symptom name, or one of VERDICT_SYMPTOM_* */
	/* the kernel log line that matched (trailing CR/LF dropped), or
	 * "metric NAME=VALUE UNIT > THRESHOLD", or what the engine said */
	char *evidence;
};

struct verdict {
	enum verdict_outcome outcome;
	struct verdict_symptom *symptoms; /* FAIL only; job order, then hang/timeout/boot/unmatched */
	size_t symptom_count;
	char *cause;                      /* INFRA and SKIP: why; NULL otherwise */
	/* FAIL: the tests that failed or were cut off, depth first, subtests
	 * named "parent: child"; "test N" when a test has no description */
	char **failing_tests;
	size_t failing_test_count;
};

/* 0, -EINVAL (no input, job or verdict pointer), -ENOMEM. */
int verdict_make(const struct verdict_input *input, struct verdict **verdict);
void verdict_free(struct verdict *verdict); /* NULL is fine */

const char *verdict_outcome_name(enum verdict_outcome outcome); /* "PASS", ... */
const char *verdict_lab_error_kind_name(enum verdict_lab_error_kind kind);

/*
 * One line: "PASS", "FAIL auth-timeout,txdma-stop-fail (cycle 1 same-channel
 * reconnect ...)" (the first failing test, "..." when there are more),
 * "INFRA power switch error: ...", "SKIP build failed: ...". Always
 * NUL-terminated when len > 0; -ENOSPC when it had to be cut, -EINVAL for
 * NULL arguments or len 0.
 */
int verdict_summary(const struct verdict *verdict, char *buffer, size_t len);

#endif
