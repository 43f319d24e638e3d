/*
 * job_config.h - job definitions (the YAML files under jobs/) as typed structs: what to
 * build, on which boards, which workloads with which parameters, and the
 * rules that turn a run's output into symptoms.
 *
 * Loaded and checked once, up front: a bad regex or an unknown workload is a
 * configuration error at file:line:col (exit 2), never a surprise an hour
 * into a bisection. Nothing here is ever given to a shell: commands and
 * workload parameters are kept as argv words.
 */
#ifndef RB_JOB_CONFIG_H
#define RB_JOB_CONFIG_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "kbuild.h"

/* What a candidate that fails before the workload counts as. */
enum job_outcome_policy {
	JOB_POLICY_SKIP,	/* no evidence either way (git bisect's 125) */
	JOB_POLICY_FAIL,	/* the kernel under test is bad */
};

enum job_compare {
	JOB_COMPARE_GREATER,		/* ">" */
	JOB_COMPARE_GREATER_EQUAL,	/* ">=" */
	JOB_COMPARE_LESS,		/* "<" */
	JOB_COMPARE_LESS_EQUAL,		/* "<=" */
	JOB_COMPARE_EQUAL,		/* "==" */
	JOB_COMPARE_NOT_EQUAL,		/* "!=" */
};

/* kernel: kbuild: a real Linux tree (kbuild.h); the recipe points into the strings here. */
struct job_kbuild {
	bool enabled;
	char *config_target;	/* "x86_64_defconfig" */
	char *fragment;		/* absolute (given relative to the job file); NULL: none */
	char **targets;		/* NULL-terminated; NULL: bzImage and modules */
	size_t target_count;
	bool modules;		/* default true */
	struct kbuild_recipe recipe;
};

struct job_kernel {
	char *tree;		/* as written; NULL: --tree must give it */
	char **build_argv;	/* NULL-terminated; default {"make"} */
	size_t build_argc;
	char *artifact;		/* relative to the tree */
	char *release;		/* relative to the tree: holds the `uname -r` to expect */
	char *command_line;	/* kernel parameters after the board's own; NULL: none */
	unsigned int parallel_builds;	/* builds at once on the coordinator; 0: one per CPU */
	unsigned int build_timeout_seconds;	/* one commit's build; default 7200 */
	struct job_kbuild kbuild;
	struct config_location tree_where;
};

/* A board is selected when it has every tag and one of the chips; empty lists select all. */
struct job_board_filter {
	char **tags;
	size_t tag_count;
	char **chips;
	size_t chip_count;
};

struct job_workload {
	char *name;		/* "W3", or the label of a custom script */
	char *script;		/* "drivers/workload/w3-idle-transitions.sh" */
	char **args;		/* NULL-terminated argv words: "--cycles", "20", ... */
	size_t arg_count;
	unsigned int repeats;		/* default 1 */
	unsigned int timeout_seconds;	/* wall clock for one repeat; default 1800 */
	struct config_location where;
};

enum job_symptom_kind {
	JOB_SYMPTOM_LOG,	/* a kernel log line matches `pattern` */
	JOB_SYMPTOM_METRIC,	/* a `# metric` value compares true against `threshold` */
};

struct job_symptom {
	char *name;		/* "auth-timeout" */
	enum job_symptom_kind kind;
	char *pattern;		/* LOG: POSIX extended regex, as written */
	regex_t regex;		/* LOG: compiled with REG_EXTENDED | REG_NOSUB */
	char *metric;		/* METRIC: "ping_loss_total" */
	enum job_compare compare;
	double threshold;
	struct config_location where;
};

struct job {
	char *path;
	char *name;
	char *description;	/* NULL when not given */
	struct job_kernel kernel;
	struct job_board_filter boards;
	struct job_workload *workloads;
	size_t workload_count;
	struct job_symptom *symptoms;
	size_t symptom_count;
	/* A build failure is always SKIP: a commit that does not build says nothing about the driver. */
	enum job_outcome_policy boot_failure;	/* default SKIP */
	unsigned int boot_timeout_seconds;	/* default 300 */
	unsigned int hang_timeout_seconds;	/* default 120: no output and SSH dead that long */
};

/*
 * Loads a job file. 0, or a negative errno with `error` saying what and
 * where ("jobs/x.yaml:12:7: workload 'W9' is unknown (expected W1, W2, W3, W4
 * or a script: under drivers/workload/)").
 */
int job_load(const char *path, struct job **job, char *error, size_t error_len);
void job_free(struct job *job);
/* The job's workload called name; NULL when name is NULL or none is. */
const struct job_workload *job_find_workload(const struct job *job, const char *name);

bool job_selects_board(const struct job *job, const struct lab_board *board);

/* True when `value` <compare> `threshold`; only for JOB_SYMPTOM_METRIC. */
bool job_symptom_metric_holds(const struct job_symptom *symptom, double value);

/* ">", ">=", ... */
const char *job_compare_text(enum job_compare compare);

#endif
