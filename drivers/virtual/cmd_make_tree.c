/*
 * cmd_make_tree.c - `rackbisect-vlab make-tree`: writes a model kernel
 * history (modelkernel/history.h does the work) and its ground truth.
 * This file only parses, checks and reports.
 */
#include <errno.h>
#include <stddef.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <libgen.h>
#include <sys/stat.h>
#include <unistd.h>

#include "virtual/modelkernel/history.h"
#include "virtual/vlab_commands.h"

#define COMMAND "rackbisect-vlab make-tree"

struct make_tree_arguments {
	const char *scenario;
	const char *seed;
	const char *out;
	const char *truth;
	const char *mainline_revert;
	const char *commits;
	const char *merge_density;
	const char *build_break_rate;
	int help;
};

static void usage(FILE *to)
{
	fprintf(to,
		"usage: " COMMAND " --scenario NAME --seed N --out DIR --truth FILE\n"
		"         [--mainline-revert none|present] [--commits N]\n"
		"         [--merge-density X] [--build-break-rate X]\n"
		"\n"
		"Writes a git repository that looks like a stretch of Linux kernel history\n"
		"(2012, from v3.3) whose ath9k model driver changes behaviour only where the\n"
		"real commits did, and the ground truth about it as JSON in FILE.\n"
		"\n"
		"  --scenario NAME  what history to write:\n"
		"      stable-3.3.1    master v3.3 -> v3.4-rc2 (~350 commits, merges; the\n"
		"                      c1afdaff equivalent arrives via a wireless merge) and\n"
		"                      linux-3.3.y: ~100 queued stable picks ending in tag\n"
		"                      v3.3.1-rc1, one of them the culprit\n"
		"      mainline-3.4    ~10,000 commits v3.3 -> v3.4-rc3 with subsystem merges;\n"
		"                      culprit before v3.4-rc1, reset-on-idle-off after it,\n"
		"                      the revert before v3.4-rc3\n"
		"      txack-backport  as stable-3.3.1, but the queued ath9k patch is a bad\n"
		"                      backport (TX_ACK dropped from the NETWORK_SLEEP guard only)\n"
		"      releases        short linear history tagged v3.3, v3.3.1, v3.3.2, v3.4, v3.5\n"
		"      random          --commits commits v3.3 -> v3.4-rc1, culprit at a seeded place\n"
		"  --seed N         0..%lld; the same scenario, seed and options always give\n"
		"                   the same commit ids\n"
		"  --out DIR        the repository to create (must not exist, or be empty);\n"
		"                   branch master is checked out\n"
		"  --truth FILE     where the ground truth goes (JSON, format in\n"
		"                   drivers/virtual/modelkernel/history.h); must not be in DIR\n"
		"  --mainline-revert none|present\n"
		"                   stable-3.3.1, txack-backport: whether master also holds the\n"
		"                   revert of the culprit (default none)\n"
		"  --commits N      random: commits from v3.3 to the tip, %lu..%lu (default %lu)\n"
		"  --merge-density X\n"
		"                   random: share of commits that merge a short side branch,\n"
		"                   0..%g (default %g)\n"
		"  --build-break-rate X\n"
		"                   random: share of commits that break the build (fixed 1-3\n"
		"                   commits later), 0..%g (default %g)\n"
		"  --help           this text\n"
		"\n"
		"Exit status: 0 written, 2 bad arguments, 3 git or the file system failed.\n",
		(long long)HISTORY_MAX_SEED, HISTORY_MIN_COMMITS, HISTORY_MAX_COMMITS,
		HISTORY_DEFAULT_COMMITS, HISTORY_MAX_MERGE_DENSITY, HISTORY_DEFAULT_MERGE_DENSITY,
		HISTORY_MAX_BUILD_BREAK_RATE, HISTORY_DEFAULT_BUILD_BREAK_RATE);
}

static int usage_error(const char *format, const char *value)
{
	fprintf(stderr, COMMAND ": ");
	fprintf(stderr, format, value);
	fprintf(stderr, "\n(`" COMMAND " --help` lists every option)\n");
	return VLAB_EXIT_USAGE;
}

static const char **option_slot(struct make_tree_arguments *arguments, const char *name)
{
	static const struct {
		const char *name;
		size_t offset;
	} options[] = {
		{ "--scenario", offsetof(struct make_tree_arguments, scenario) },
		{ "--seed", offsetof(struct make_tree_arguments, seed) },
		{ "--out", offsetof(struct make_tree_arguments, out) },
		{ "--truth", offsetof(struct make_tree_arguments, truth) },
		{ "--mainline-revert", offsetof(struct make_tree_arguments, mainline_revert) },
		{ "--commits", offsetof(struct make_tree_arguments, commits) },
		{ "--merge-density", offsetof(struct make_tree_arguments, merge_density) },
		{ "--build-break-rate", offsetof(struct make_tree_arguments, build_break_rate) },
	};
	size_t i;

	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		if (strcmp(options[i].name, name) == 0)
			return (const char **)((char *)arguments + options[i].offset);
	}
	return NULL;
}

/* "--name value" and "--name=value"; returns 0 or an exit status. */
static int parse_arguments(int argc, char **argv, struct make_tree_arguments *arguments)
{
	int i;

	memset(arguments, 0, sizeof(*arguments));
	for (i = 1; i < argc; i++) {
		char name[64];
		const char *equals = strchr(argv[i], '=');
		const char *value;
		const char **slot;

		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			arguments->help = 1;
			return 0;
		}
		snprintf(name, sizeof(name), "%.*s",
			 equals ? (int)(equals - argv[i]) : (int)strlen(argv[i]), argv[i]);
		slot = option_slot(arguments, name);
		if (!slot)
			return usage_error("unknown argument '%s'", argv[i]);
		if (equals) {
			value = equals + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			return usage_error("%s needs a value", name);
		}
		if (*slot)
			return usage_error("%s is given twice", name);
		*slot = value;
	}
	return 0;
}

static int parse_seed(const char *text, uint64_t *seed)
{
	char *end;
	unsigned long long value;

	if (!text[0] || text[0] == '-' || text[0] == '+' || text[0] == ' ')
		return -EINVAL;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0' || value > (unsigned long long)HISTORY_MAX_SEED)
		return -EINVAL;
	*seed = value;
	return 0;
}

static int parse_fraction(const char *text, double *fraction)
{
	char *end;
	double value;

	errno = 0;
	value = strtod(text, &end);
	if (!text[0] || errno != 0 || *end != '\0' || !isfinite(value))
		return -EINVAL;
	*fraction = value;
	return 0;
}

/* Options a scenario does not use are refused rather than ignored. */
static int check_scenario_options(const struct make_tree_arguments *arguments,
				  enum history_scenario scenario)
{
	int stable = scenario == HISTORY_STABLE_3_3_1 || scenario == HISTORY_TXACK_BACKPORT;

	if (arguments->mainline_revert && !stable)
		return usage_error("--mainline-revert applies to stable-3.3.1 and txack-backport "
				   "only, not to '%s'", arguments->scenario);
	if ((arguments->commits || arguments->merge_density || arguments->build_break_rate) &&
	    scenario != HISTORY_RANDOM)
		return usage_error("--commits, --merge-density and --build-break-rate apply to "
				   "the random scenario only, not to '%s'", arguments->scenario);
	return 0;
}

static int random_options(const struct make_tree_arguments *arguments,
			  struct history_options *options)
{
	char *end;

	if (arguments->commits) {
		errno = 0;
		options->commits = strtoul(arguments->commits, &end, 10);
		if (!arguments->commits[0] || arguments->commits[0] == '-' || *end || errno)
			return usage_error("--commits '%s' is not a whole number of commits",
					   arguments->commits);
	}
	if (arguments->merge_density &&
	    parse_fraction(arguments->merge_density, &options->merge_density) != 0)
		return usage_error("--merge-density '%s' is not a number like 0.05",
				   arguments->merge_density);
	if (arguments->build_break_rate &&
	    parse_fraction(arguments->build_break_rate, &options->build_break_rate) != 0)
		return usage_error("--build-break-rate '%s' is not a number like 0.02",
				   arguments->build_break_rate);
	return 0;
}

static int build_options(const struct make_tree_arguments *arguments,
			 struct history_options *options)
{
	enum history_scenario scenario;
	char error[256];
	int rc;

	if (history_scenario_from_name(arguments->scenario, &scenario) != 0)
		return usage_error("unknown scenario '%s'; choose stable-3.3.1, mainline-3.4, "
				   "txack-backport, releases or random", arguments->scenario);
	rc = check_scenario_options(arguments, scenario);
	if (rc != 0)
		return rc;
	history_options_init(options, scenario);
	if (parse_seed(arguments->seed, &options->seed) != 0) {
		fprintf(stderr, COMMAND ": --seed '%s' is not a whole number in 0..%lld\n",
			arguments->seed, (long long)HISTORY_MAX_SEED);
		return VLAB_EXIT_USAGE;
	}
	if (arguments->mainline_revert) {
		if (strcmp(arguments->mainline_revert, "present") == 0)
			options->mainline_revert = 1;
		else if (strcmp(arguments->mainline_revert, "none") != 0)
			return usage_error("--mainline-revert '%s': say none or present",
					   arguments->mainline_revert);
	}
	rc = random_options(arguments, options);
	if (rc != 0)
		return rc;
	if (history_options_check(options, error, sizeof(error)) != 0)
		return usage_error("%s", error);
	return 0;
}

/* ---- paths --------------------------------------------------------------- */

/* 1 when `path` is a directory with nothing in it. */
static int directory_is_empty(const char *path)
{
	DIR *directory = opendir(path);
	struct dirent *entry;
	int empty = 1;

	if (!directory)
		return 0;
	while (empty && (entry = readdir(directory)) != NULL) {
		if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
			empty = 0;
	}
	closedir(directory);
	return empty;
}

/* The absolute form of `path`, which need not exist; its parent must. */
static int absolute_path(const char *path, char resolved[PATH_MAX])
{
	char copy_for_dir[PATH_MAX], copy_for_base[PATH_MAX], parent[PATH_MAX];
	const char *base;

	if (realpath(path, resolved))
		return 0;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(copy_for_dir, path);
	strcpy(copy_for_base, path);
	if (!realpath(dirname(copy_for_dir), parent))
		return -errno;
	base = basename(copy_for_base);
	if (snprintf(resolved, PATH_MAX, "%s/%s", strcmp(parent, "/") ? parent : "", base) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

static int check_paths(const struct make_tree_arguments *arguments)
{
	char out[PATH_MAX], truth[PATH_MAX];
	struct stat info;
	size_t out_length;

	if (stat(arguments->out, &info) == 0 &&
	    (!S_ISDIR(info.st_mode) || !directory_is_empty(arguments->out)))
		return usage_error("--out '%s' already exists and is not an empty directory; "
				   "give a new directory (it is created)", arguments->out);
	if (absolute_path(arguments->out, out) != 0)
		return usage_error("--out '%s': its parent directory does not exist",
				   arguments->out);
	if (absolute_path(arguments->truth, truth) != 0)
		return usage_error("--truth '%s': its directory does not exist", arguments->truth);
	if (stat(arguments->truth, &info) == 0 && S_ISDIR(info.st_mode))
		return usage_error("--truth '%s' is a directory; name a file", arguments->truth);
	out_length = strlen(out);
	if (strncmp(truth, out, out_length) == 0 &&
	    (truth[out_length] == '/' || truth[out_length] == '\0'))
		return usage_error("--truth '%s' is inside --out: the ground truth must stay "
				   "outside the repository; put it elsewhere", arguments->truth);
	return 0;
}

static int remove_entry(const char *path, const struct stat *info, int type, struct FTW *walk)
{
	(void)info;
	(void)type;
	(void)walk;
	return remove(path) == 0 ? 0 : -1;
}

/* Removes what a failed run left in `out` (which was new or empty). */
static void remove_output(const char *out, int existed)
{
	char path[PATH_MAX];
	DIR *directory;
	struct dirent *entry;

	if (!existed) {
		nftw(out, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		return;
	}
	directory = opendir(out);
	if (!directory)
		return;
	while ((entry = readdir(directory)) != NULL) {
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", out, entry->d_name) < (int)sizeof(path))
			nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	}
	closedir(directory);
}

/* Written next to FILE, then renamed: a reader never sees half a truth. */
static int write_truth(json_t *truth, const char *path)
{
	char temporary[PATH_MAX];

	if (snprintf(temporary, sizeof(temporary), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(temporary))
		return -ENAMETOOLONG;
	if (json_dump_file(truth, temporary, JSON_INDENT(2)) != 0) {
		unlink(temporary);
		return -EIO;
	}
	if (rename(temporary, path) != 0) {
		int rc = -errno;

		unlink(temporary);
		return rc;
	}
	return 0;
}

static void print_summary(const struct make_tree_arguments *arguments, json_t *truth)
{
	json_t *counts = json_object_get(truth, "commit_counts");
	const char *branch;
	json_t *count;

	printf("wrote %s (scenario %s, seed %s):", arguments->out, arguments->scenario,
	       arguments->seed);
	json_object_foreach(counts, branch, count)
		printf(" %s %lld commits since v3.3;", branch, (long long)json_integer_value(count));
	printf(" truth in %s\n", arguments->truth);
}

static int check_required(const struct make_tree_arguments *arguments)
{
	if (!arguments->scenario)
		return usage_error("%s is missing: name a scenario (stable-3.3.1, mainline-3.4, "
				   "txack-backport, releases, random)", "--scenario");
	if (!arguments->seed)
		return usage_error("%s is missing: give a number, e.g. --seed 1", "--seed");
	if (!arguments->out)
		return usage_error("%s is missing: name the repository directory to create",
				   "--out");
	if (!arguments->truth)
		return usage_error("%s is missing: name the JSON file for the ground truth",
				   "--truth");
	return 0;
}

int vlab_cmd_make_tree(int argc, char **argv)
{
	struct make_tree_arguments arguments;
	struct history_options options;
	char error[512];
	json_t *truth = NULL;
	int existed, rc;

	rc = parse_arguments(argc, argv, &arguments);
	if (rc != 0)
		return rc;
	if (arguments.help) {
		usage(stdout);
		return VLAB_EXIT_OK;
	}
	rc = check_required(&arguments);
	if (rc == 0)
		rc = build_options(&arguments, &options);
	if (rc == 0)
		rc = check_paths(&arguments);
	if (rc != 0)
		return rc;
	existed = access(arguments.out, F_OK) == 0;
	rc = history_generate(arguments.out, &options, &truth, error, sizeof(error));
	if (rc == 0) {
		rc = write_truth(truth, arguments.truth);
		if (rc != 0)
			snprintf(error, sizeof(error), "cannot write %s: %s", arguments.truth,
				 strerror(-rc));
	}
	if (rc != 0) {
		fprintf(stderr, COMMAND ": %s\n", error);
		json_decref(truth);
		remove_output(arguments.out, existed);
		return rc == -EINVAL ? VLAB_EXIT_USAGE : VLAB_EXIT_INFRA;
	}
	print_summary(&arguments, truth);
	json_decref(truth);
	return VLAB_EXIT_OK;
}
