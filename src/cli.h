/*
 * cli.h - what every command of build/rackbisect shares: the global options,
 * option parsing, finding the lab, the job and the state, and exit codes.
 * Commands live in cli_*.c, one file per family; each parses and prints and
 * leaves the work to the library (run.c, scheduler.c, store.c, ...).
 */
#ifndef RB_CLI_H
#define RB_CLI_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "config.h"
#include "job_config.h"
#include "virtual/lab/lab_state.h"

/* DESIGN.md "Output formats": exit codes. */
enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAIL = 1,	/* a regression / a FAIL */
	CLI_EXIT_USAGE = 2,	/* usage or configuration error */
	CLI_EXIT_INFRA = 3,	/* lab trouble */
};

struct cli_globals {
	const char *lab_option;		/* --lab as given; NULL: labs/virtual.yaml */
	const char *tree;		/* --tree */
	const char *state;		/* --state */
	const char *junit;		/* --junit FILE */
	bool verbose;			/* -v */
	bool json;			/* --json */
	char lab_path[PATH_MAX];	/* the lab file found */
};

/* An option of one command: --name VALUE (or --name=VALUE), a flag, or an
 * option that may be given several times (--good A --good B). */
struct cli_option {
	const char *name;		/* "commit" */
	const char **value;		/* NULL for a flag or a list */
	bool *flag;
	const char **list;		/* a repeatable option's values */
	size_t *list_count;
	size_t list_max;
};

/*
 * Parses argv[1..] (argv[0] is the command word): global options anywhere,
 * the command's own, the rest positional (into positional[], at most
 * max_positional). Of the global options, --json, --junit and --tree are
 * taken only when usage names them (a command that writes no JUnit must not
 * take --junit and ignore it); --lab, --state and -v everywhere. 0 on
 * success; CLI_EXIT_USAGE after printing what is wrong and the usage; -1
 * when --help printed the usage (exit 0).
 */
int cli_parse(int argc, char **argv, const struct cli_option *options, struct cli_globals *globals,
	      const char **positional, size_t max_positional, size_t *positional_count,
	      const char *usage);

/*
 * A path the user gave, or one of rackbisect's own files when it is not
 * there relative to the current directory (`git bisect run` starts us inside
 * the kernel tree): tries PATH, then <checkout>/PATH.
 */
int cli_find_file(const char *path, char *out, size_t len);

/* Loads the lab (--lab or labs/virtual.yaml); prints the error, returns NULL. */
struct lab *cli_load_lab(struct cli_globals *globals);
struct job *cli_load_job(const char *path);

/* The state directory (created 0700) and its database path. */
int cli_state(const struct lab *lab, const struct cli_globals *globals, struct lab_state *state,
	      char *database, size_t database_len);

struct store;
/* The state database of the lab --lab names (at --state, else its own),
 * opened for a command that reads what is stored: 0, or a CLI exit code
 * after saying why. database gets its path. */
int cli_open_state_store(struct cli_globals *globals, struct store **store, char *database,
			 size_t database_len);

/* drivers/workload of this checkout. */
int cli_workload_dir(char *out, size_t len);
/* rackbisect-vlab: $RACKBISECT_VLAB, else beside this program. */
int cli_vlab_program(char *out, size_t len);

/* Runs argv (no shell) with our standard input and output, and waits: its
 * exit status, 128+N for signal N, or a negative errno if it did not start. */
int cli_spawn_wait(char *const argv[]);

/* An option's number in low..high; NULL text leaves *out as it is. 0, or
 * CLI_EXIT_USAGE after saying which option and what it got. */
int cli_parse_number(const char *text, double low, double high, const char *what, double *out);

/* A test's error rates as a user states them: --detect-rate P (0, 1],
 * --false-fail-rate E [0, 1), or --deterministic (both, 1 and 0). *p and
 * *epsilon get the stated values; those not stated are left as they are.
 * 0, or CLI_EXIT_USAGE after saying what clashes (P not above E, or
 * --deterministic with either). */
struct cli_stated_rates {
	const char *detect_rate;
	const char *false_fail_rate;
	bool deterministic;
};
int cli_parse_stated_rates(const struct cli_stated_rates *stated, double *p, double *epsilon);

/* A ref's full commit id in tree (malloc'd); NULL after saying why. Refs
 * starting with '-' are refused: git would read them as options. */
char *cli_commit_id(const char *tree, const char *ref);
/* path made absolute (realpath) as a JSON string, for a stored question that
 * a later `resume` from any directory reads; JSON null when it cannot be. */
json_t *cli_absolute_path_json(const char *path);

void cli_error(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
