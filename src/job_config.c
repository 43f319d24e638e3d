/* job_config.c - job YAML -> struct job, with file:line:col errors (libyaml). */
#include "job_config.h"
#include "config_yaml.h"
#include "path.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_WORKLOAD_TIMEOUT 1800
#define DEFAULT_BOOT_TIMEOUT 300
#define DEFAULT_HANG_TIMEOUT 120
#define MAX_TIMEOUT 86400	/* a day: anything longer is a typo, not a workload */
#define MAX_REPEATS 1000
#define MAX_PARALLEL_BUILDS 256
/* a full kernel on 2 cores is ~10 minutes; a hung build must not stall a
 * bisection for longer than a working one could take */
#define DEFAULT_BUILD_TIMEOUT_SECONDS 7200
#define MAX_BUILD_TIMEOUT_SECONDS (7 * 86400)

static const struct {
	const char *name;
	const char *script;
} standard_workloads[] = {
	{ "W1", "drivers/workload/w1-associated-idle.sh" },
	{ "W2", "drivers/workload/w2-associated-traffic.sh" },
	{ "W3", "drivers/workload/w3-idle-transitions.sh" },
	{ "W4", "drivers/workload/w4-ifdown-up.sh" },
};

static const struct {
	const char *text;
	enum job_compare compare;
} comparisons[] = {
	{ ">", JOB_COMPARE_GREATER },	{ ">=", JOB_COMPARE_GREATER_EQUAL },
	{ "<", JOB_COMPARE_LESS },	{ "<=", JOB_COMPARE_LESS_EQUAL },
	{ "==", JOB_COMPARE_EQUAL },	{ "!=", JOB_COMPARE_NOT_EQUAL },
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* Names that end up in reports, KCIDB ids and file names: keep them plain. */
static bool is_plain_name(const char *text)
{
	return *text && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789_-.") == strlen(text);
}

static int expect_plain_name(struct config_loader *loader, yaml_node_t *node, const char *what,
			     char **out)
{
	const char *text = config_scalar(node);

	if (!text || !is_plain_name(text) || *text == '-')
		return config_fail_at(loader, node,
				      "%s must be a plain name (letters, digits, '-', '_', '.')", what);
	return config_expect_string(loader, node, what, out);
}

/* A whole number 1..max; `after` ends the error's "must be 1..max". */
static int expect_positive(struct config_loader *loader, yaml_node_t *node, const char *what,
			   unsigned int max, const char *after, unsigned int *out)
{
	uint64_t number;
	int rc = config_expect_number(loader, node, what, max, &number);

	if (rc)
		return rc;
	if (number == 0)
		return config_fail_at(loader, node, "%s must be 1..%u%s", what, max, after);
	*out = (unsigned int)number;
	return 0;
}

static int expect_seconds(struct config_loader *loader, yaml_node_t *node, const char *what,
			  unsigned int *out)
{
	return expect_positive(loader, node, what, MAX_TIMEOUT, " seconds", out);
}

/* Paths inside the kernel tree or the project: a '..' would let a job reach out of them. */
static int expect_inner_path(struct config_loader *loader, yaml_node_t *node, const char *what,
			     const char *under, char **out)
{
	const char *text = config_scalar(node);
	const char *part;

	if (!text || !*text || *text == '/')
		return config_fail_at(loader, node, "%s must be a relative path%s%s", what,
				      under ? " under " : "", under ? under : "");
	if (under && (strncmp(text, under, strlen(under)) != 0 || !text[strlen(under)]))
		return config_fail_at(loader, node, "%s must be under %s, not '%s'", what, under,
				      text);
	for (part = text; part; part = strchr(part, '/'), part = part ? part + 1 : NULL) {
		if (strncmp(part, "..", 2) == 0 && (part[2] == '/' || part[2] == '\0'))
			return config_fail_at(loader, node, "%s must not contain '..' (got '%s')",
					      what, text);
	}
	return config_expect_string(loader, node, what, out);
}

/* ---- kernel ------------------------------------------------------------- */

/* Kernel parameters are one line of printable words: a newline or a control
 * character would end up in the board's boot loader as something else. */
static int expect_command_line(struct config_loader *loader, yaml_node_t *node, char **out)
{
	const unsigned char *c;
	int rc = config_expect_string(loader, node, "kernel command_line", out);

	if (rc)
		return rc;
	for (c = (const unsigned char *)*out; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return config_fail_at(loader, node,
					      "kernel command_line must be one line of printable words, e.g. \"quiet ath9k.debug=0x400\"");
	return 0;
}

/* A make target: one word make will not take for an option or a path. */
static int expect_make_target(struct config_loader *loader, yaml_node_t *node, const char *what,
			      char **out)
{
	const char *text = config_scalar(node);

	if (text && (text[0] == '-' || strchr(text, '/') || strchr(text, '=') ||
		     strcspn(text, " \t\n") != strlen(text)))
		return config_fail_at(loader, node, "%s must be one make target such as "
				      "x86_64_defconfig, not '%s'", what, text);
	return config_expect_string(loader, node, what, out);
}

/* The fragment, relative to the job file, must be there and be kconfig. */
static int expect_fragment(struct config_loader *loader, yaml_node_t *node, char **out)
{
	char joined[PATH_MAX], job_dir[PATH_MAX], resolved[PATH_MAX], why[PATH_MAX + 256];
	const char *text = config_scalar(node);
	int rc;

	if (!text || !*text)
		return config_fail_at(loader, node, "kbuild fragment must be a file name, relative "
				      "to the job file, e.g. ath9k-ps.config");
	if (path_format(job_dir, sizeof(job_dir), "%s", loader->file) ||
	    path_format(joined, sizeof(joined), "%s/%s", dirname(job_dir), text))
		return config_fail_at(loader, node, "kbuild fragment: the path is too long");
	if (!realpath(text[0] == '/' ? text : joined, resolved))
		return config_fail_at(loader, node, "kbuild fragment %s: %s (it is read relative to "
				      "the job file)", text[0] == '/' ? text : joined, strerror(errno));
	rc = kbuild_validate_fragment(resolved, why, sizeof(why));
	if (rc)
		return config_fail_at(loader, node, "kbuild fragment: %s", why);
	*out = strdup(resolved);
	return *out ? 0 : -ENOMEM;
}

static int expect_boolean(struct config_loader *loader, yaml_node_t *node, const char *what,
			  bool *out)
{
	const char *text = config_scalar(node);

	if (text && (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)) {
		*out = strcmp(text, "true") == 0;
		return 0;
	}
	return config_fail_at(loader, node, "%s must be true or false", what);
}

static int visit_kbuild(struct config_loader *loader, const char *key, yaml_node_t *value,
			void *arg)
{
	struct job_kbuild *kbuild = arg;
	size_t i;
	int rc;

	if (strcmp(key, "config") == 0)
		return expect_make_target(loader, value, "kbuild config", &kbuild->config_target);
	if (strcmp(key, "fragment") == 0)
		return expect_fragment(loader, value, &kbuild->fragment);
	if (strcmp(key, "modules") == 0)
		return expect_boolean(loader, value, "kbuild modules", &kbuild->modules);
	if (strcmp(key, "targets") != 0)
		return config_fail_at(loader, value, "kbuild: unknown key '%s' (known: config, "
				      "fragment, targets, modules)", key);
	if (value->type != YAML_SEQUENCE_NODE || config_sequence_length(value) == 0)
		return config_fail_at(loader, value, "kbuild targets must be a non-empty list of "
				      "make targets, e.g. [bzImage, modules]");
	for (i = 0; i < config_sequence_length(value); i++) {
		char *target = NULL;

		rc = expect_make_target(loader, config_sequence_item(loader, value, i),
					"a kbuild target", &target);
		free(target);
		if (rc)
			return rc;
	}
	return config_expect_string_list(loader, value, "a kbuild target", "[bzImage, modules]",
					 &kbuild->targets, &kbuild->target_count);
}

static int load_kbuild(struct config_loader *loader, yaml_node_t *value, struct job_kbuild *kbuild)
{
	int rc;

	kbuild->enabled = true;
	kbuild->modules = true;
	rc = config_each_pair(loader, value, "kbuild", visit_kbuild, kbuild);
	if (rc)
		return rc;
	if (!kbuild->config_target)
		return config_fail_at(loader, value, "kbuild needs config: the make target of the "
				      "base configuration, e.g. x86_64_defconfig");
	kbuild->recipe = (struct kbuild_recipe){
		.config_target = kbuild->config_target, .fragment = kbuild->fragment,
		.targets = kbuild->targets, .modules = kbuild->modules,
	};
	return 0;
}

static int visit_kernel(struct config_loader *loader, const char *key, yaml_node_t *value,
			void *arg)
{
	struct job_kernel *kernel = arg;

	if (strcmp(key, "tree") == 0) {
		kernel->tree_where = config_node_location(loader, value);
		return config_expect_string(loader, value, "kernel tree", &kernel->tree);
	}
	if (strcmp(key, "build") == 0) {
		if (value->type != YAML_SEQUENCE_NODE || config_sequence_length(value) == 0)
			return config_fail_at(loader, value,
					      "kernel build must be a non-empty list of argv words, e.g. [make, -j8] (it is never given to a shell)");
		return config_expect_string_list(loader, value, "a build argv word", "[make, -j8]",
						 &kernel->build_argv, &kernel->build_argc);
	}
	if (strcmp(key, "artifact") == 0)
		return expect_inner_path(loader, value, "kernel artifact", NULL, &kernel->artifact);
	if (strcmp(key, "release") == 0)
		return expect_inner_path(loader, value, "kernel release file", NULL,
					 &kernel->release);
	if (strcmp(key, "command_line") == 0)
		return expect_command_line(loader, value, &kernel->command_line);
	if (strcmp(key, "kbuild") == 0)
		return load_kbuild(loader, value, &kernel->kbuild);
	if (strcmp(key, "parallel_builds") == 0)
		return expect_positive(loader, value, "parallel_builds", MAX_PARALLEL_BUILDS,
				       " (leave it out for one per CPU)", &kernel->parallel_builds);
	if (strcmp(key, "build_timeout") == 0)
		return expect_positive(loader, value, "kernel build_timeout", MAX_BUILD_TIMEOUT_SECONDS,
				       " (seconds)", &kernel->build_timeout_seconds);
	return config_fail_at(loader, value,
			      "kernel: unknown key '%s' (known: tree, build, kbuild, artifact, release, "
			      "command_line, parallel_builds, build_timeout)", key);
}

static int kernel_defaults(struct job_kernel *kernel)
{
	if (!kernel->build_timeout_seconds)
		kernel->build_timeout_seconds = DEFAULT_BUILD_TIMEOUT_SECONDS;
	if (!kernel->build_argv) {
		kernel->build_argv = calloc(2, sizeof(*kernel->build_argv));
		if (!kernel->build_argv || !(kernel->build_argv[0] = strdup("make")))
			return -ENOMEM;
		kernel->build_argc = 1;
	}
	if (!kernel->artifact && !(kernel->artifact = strdup("arch/x86/boot/bzImage")))
		return -ENOMEM;
	if (!kernel->release && !(kernel->release = strdup("include/config/kernel.release")))
		return -ENOMEM;
	return 0;
}

/* ---- boards ------------------------------------------------------------- */

static int visit_boards(struct config_loader *loader, const char *key, yaml_node_t *value,
			void *arg)
{
	struct job_board_filter *filter = arg;

	if (strcmp(key, "tags") == 0)
		return config_expect_string_list(loader, value, "boards tags", "[rtc-reset, pcie]",
						 &filter->tags, &filter->tag_count);
	if (strcmp(key, "chips") == 0)
		return config_expect_string_list(loader, value, "boards chips", "[ar9285, ar9280]",
						 &filter->chips, &filter->chip_count);
	return config_fail_at(loader, value, "boards: unknown key '%s' (known: tags, chips)", key);
}

static int load_boards(struct config_loader *loader, yaml_node_t *value, struct job *job)
{
	const char *text = config_scalar(value);

	if (text && strcmp(text, "all") == 0)
		return 0;
	if (value->type != YAML_MAPPING_NODE)
		return config_fail_at(loader, value,
				      "boards must be 'all' or a mapping {tags: [...], chips: [...]}");
	return config_each_pair(loader, value, "boards", visit_boards, &job->boards);
}

/* ---- workloads ---------------------------------------------------------- */

/* Each parameter becomes two argv words, "--name" "value", passed as they are. */
static int visit_parameter(struct config_loader *loader, const char *key, yaml_node_t *value,
			   void *arg)
{
	struct job_workload *workload = arg;
	const char *text = config_scalar(value);
	char **grown;

	if (!is_plain_name(key) || *key == '-')
		return config_fail_at(loader, value,
				      "parameter name '%s' must be a plain option name, e.g. cycles (it becomes --cycles)",
				      key);
	if (!text)
		return config_fail_at(loader, value,
				      "parameter '%s' must be a single value (a string or number), not a list or mapping",
				      key);
	if (config_grow((void **)&workload->args, workload->arg_count, workload->arg_count + 3,
			sizeof(*grown)))
		return -ENOMEM;
	grown = workload->args;
	grown[workload->arg_count] = NULL;
	grown[workload->arg_count + 1] = NULL;
	grown[workload->arg_count + 2] = NULL;
	if (asprintf(&grown[workload->arg_count], "--%s", key) < 0) {
		grown[workload->arg_count] = NULL;
		return -ENOMEM;
	}
	workload->arg_count++;
	grown[workload->arg_count] = strdup(text);
	if (!grown[workload->arg_count])
		return -ENOMEM;
	workload->arg_count++;
	return 0;
}

static int visit_workload(struct config_loader *loader, const char *key, yaml_node_t *value,
			  void *arg)
{
	struct job_workload *workload = arg;

	if (strcmp(key, "name") == 0)
		return expect_plain_name(loader, value, "workload name", &workload->name);
	if (strcmp(key, "script") == 0)
		return expect_inner_path(loader, value, "workload script", "drivers/workload/",
					 &workload->script);
	if (strcmp(key, "parameters") == 0)
		return config_each_pair(loader, value, "workload parameters", visit_parameter,
					workload);
	if (strcmp(key, "timeout") == 0)
		return expect_seconds(loader, value, "workload timeout", &workload->timeout_seconds);
	if (strcmp(key, "repeats") == 0)
		return expect_positive(loader, value, "repeats", MAX_REPEATS, "", &workload->repeats);
	return config_fail_at(loader, value,
			      "workload: unknown key '%s' (known: name, script, parameters, repeats, timeout)",
			      key);
}

/* A standard name brings its script; a custom script needs a name of its own. */
static int resolve_workload(struct config_loader *loader, yaml_node_t *node,
			    struct job_workload *workload)
{
	size_t i;

	if (!workload->name)
		return config_fail_at(loader, node,
				      "workload has no name (name: W1..W4, or a label with script: drivers/workload/...)");
	if (workload->script)
		return 0;
	for (i = 0; i < COUNT(standard_workloads); i++) {
		if (strcmp(workload->name, standard_workloads[i].name) == 0) {
			workload->script = strdup(standard_workloads[i].script);
			return workload->script ? 0 : -ENOMEM;
		}
	}
	return config_fail_at(loader, node,
			      "unknown workload '%s' (expected W1, W2, W3, W4, or a script: under drivers/workload/)",
			      workload->name);
}

static int load_workloads(struct config_loader *loader, yaml_node_t *value, struct job *job)
{
	size_t i, j, count;

	if (value->type != YAML_SEQUENCE_NODE || config_sequence_length(value) == 0)
		return config_fail_at(loader, value,
				      "workloads must be a non-empty list of '- name: W1' entries");
	count = config_sequence_length(value);
	job->workloads = calloc(count, sizeof(*job->workloads));
	if (!job->workloads)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		yaml_node_t *node = config_sequence_item(loader, value, i);
		struct job_workload *workload = &job->workloads[i];
		int rc;

		job->workload_count = i + 1;
		workload->where = config_node_location(loader, node);
		workload->repeats = 1;
		workload->timeout_seconds = DEFAULT_WORKLOAD_TIMEOUT;
		rc = config_each_pair(loader, node, "a workload", visit_workload, workload);
		if (!rc)
			rc = resolve_workload(loader, node, workload);
		for (j = 0; !rc && j < i; j++) {
			if (strcmp(job->workloads[j].name, workload->name) == 0)
				rc = config_fail_at(loader, node,
						    "workload name '%s' is used twice (give each entry its own name)",
						    workload->name);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- symptoms ----------------------------------------------------------- */

/* Compiled here so a bad pattern is a config error, not a crash in the verdict. */
static int load_pattern(struct config_loader *loader, yaml_node_t *value,
			struct job_symptom *symptom)
{
	const char *text = config_scalar(value);
	char why[256];
	int rc;

	if (!text || !*text)
		return config_fail_at(loader, value,
				      "log must be a non-empty POSIX extended regex, e.g. 'Failed to stop TX DMA'");
	rc = regcomp(&symptom->regex, text, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &symptom->regex, why, sizeof(why));
		return config_fail_at(loader, value, "log pattern '%s' is not a valid regex: %s (a POSIX extended regex)",
				      text, why);
	}
	symptom->pattern = strdup(text);
	if (!symptom->pattern) {
		regfree(&symptom->regex);
		return -ENOMEM;
	}
	return 0;
}

static int load_compare(struct config_loader *loader, yaml_node_t *value,
			struct job_symptom *symptom, bool *seen)
{
	const char *text = config_scalar(value);
	size_t i;

	for (i = 0; text && i < COUNT(comparisons); i++) {
		if (strcmp(text, comparisons[i].text) == 0) {
			symptom->compare = comparisons[i].compare;
			*seen = true;
			return 0;
		}
	}
	return config_fail_at(loader, value,
			      "compare must be one of \">\", \">=\", \"<\", \"<=\", \"==\", \"!=\" (quoted), not '%s'",
			      text ? text : "a list or mapping");
}

static int load_threshold(struct config_loader *loader, yaml_node_t *value,
			  struct job_symptom *symptom, bool *seen)
{
	const char *text = config_scalar(value);
	char *end;

	if (text && *text) {
		errno = 0;
		symptom->threshold = strtod(text, &end);
		if (!errno && !*end && isfinite(symptom->threshold)) {
			*seen = true;
			return 0;
		}
	}
	return config_fail_at(loader, value, "threshold must be a number, e.g. 5 or 2.5, not '%s'",
			      text ? text : "a list or mapping");
}

struct symptom_draft {
	struct job_symptom *symptom;
	bool has_compare;
	bool has_threshold;
};

static int visit_symptom(struct config_loader *loader, const char *key, yaml_node_t *value,
			 void *arg)
{
	struct symptom_draft *draft = arg;
	struct job_symptom *symptom = draft->symptom;

	if (strcmp(key, "name") == 0)
		return expect_plain_name(loader, value, "symptom name", &symptom->name);
	if (strcmp(key, "log") == 0)
		return load_pattern(loader, value, symptom);
	if (strcmp(key, "metric") == 0)
		return expect_plain_name(loader, value, "metric", &symptom->metric);
	if (strcmp(key, "compare") == 0)
		return load_compare(loader, value, symptom, &draft->has_compare);
	if (strcmp(key, "threshold") == 0)
		return load_threshold(loader, value, symptom, &draft->has_threshold);
	return config_fail_at(loader, value,
			      "symptom: unknown key '%s' (known: name, log, or metric, compare, threshold)",
			      key);
}

/* Exactly one way of matching, complete. */
static int check_symptom(struct config_loader *loader, yaml_node_t *node,
			 struct symptom_draft *draft)
{
	struct job_symptom *symptom = draft->symptom;
	bool numeric = symptom->metric || draft->has_compare || draft->has_threshold;

	if (!symptom->name)
		return config_fail_at(loader, node, "symptom has no name (name: auth-timeout)");
	if (strcmp(symptom->name, "hang") == 0 || strcmp(symptom->name, "boot") == 0)
		return config_fail_at(loader, node,
				      "symptom name '%s' is reserved: the coordinator reports it itself (see timeouts: and policy:)",
				      symptom->name);
	if (symptom->pattern && numeric)
		return config_fail_at(loader, node,
				      "symptom '%s' has both log and metric rules (expected one of them)",
				      symptom->name);
	if (!symptom->pattern && !numeric)
		return config_fail_at(loader, node,
				      "symptom '%s' has no rule (expected log: REGEX, or metric:, compare:, threshold:)",
				      symptom->name);
	if (numeric && (!symptom->metric || !draft->has_compare || !draft->has_threshold))
		return config_fail_at(loader, node,
				      "symptom '%s' needs all of metric:, compare: and threshold:",
				      symptom->name);
	symptom->kind = symptom->pattern ? JOB_SYMPTOM_LOG : JOB_SYMPTOM_METRIC;
	return 0;
}

static int load_symptoms(struct config_loader *loader, yaml_node_t *value, struct job *job)
{
	size_t i, j, count;

	if (value->type != YAML_SEQUENCE_NODE)
		return config_fail_at(loader, value,
				      "symptoms must be a list of '- name: ...' entries");
	count = config_sequence_length(value);
	job->symptoms = calloc(count ? count : 1, sizeof(*job->symptoms));
	if (!job->symptoms)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		yaml_node_t *node = config_sequence_item(loader, value, i);
		struct symptom_draft draft = { &job->symptoms[i], false, false };
		int rc;

		job->symptom_count = i + 1;
		draft.symptom->where = config_node_location(loader, node);
		rc = config_each_pair(loader, node, "a symptom", visit_symptom, &draft);
		if (!rc)
			rc = check_symptom(loader, node, &draft);
		for (j = 0; !rc && j < i; j++) {
			if (strcmp(job->symptoms[j].name, draft.symptom->name) == 0)
				rc = config_fail_at(loader, node, "symptom name '%s' is used twice",
						    draft.symptom->name);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- policy, timeouts, the job ------------------------------------------ */

static int visit_policy(struct config_loader *loader, const char *key, yaml_node_t *value,
			void *arg)
{
	struct job *job = arg;
	const char *text = config_scalar(value);

	if (strcmp(key, "build_failure") == 0) {
		if (!text || strcmp(text, "skip") != 0)
			return config_fail_at(loader, value,
					      "build_failure can only be skip (a commit that does not build says nothing about the driver)");
		return 0;
	}
	if (strcmp(key, "boot_failure") == 0) {
		if (text && strcmp(text, "skip") == 0)
			job->boot_failure = JOB_POLICY_SKIP;
		else if (text && strcmp(text, "fail") == 0)
			job->boot_failure = JOB_POLICY_FAIL;
		else
			return config_fail_at(loader, value, "boot_failure must be skip or fail");
		return 0;
	}
	return config_fail_at(loader, value,
			      "policy: unknown key '%s' (known: build_failure, boot_failure)", key);
}

static int visit_timeouts(struct config_loader *loader, const char *key, yaml_node_t *value,
			  void *arg)
{
	struct job *job = arg;

	if (strcmp(key, "boot") == 0)
		return expect_seconds(loader, value, "boot timeout", &job->boot_timeout_seconds);
	if (strcmp(key, "hang") == 0)
		return expect_seconds(loader, value, "hang timeout", &job->hang_timeout_seconds);
	return config_fail_at(loader, value, "timeouts: unknown key '%s' (known: boot, hang)", key);
}

static int visit_job(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct job *job = arg;

	if (strcmp(key, "name") == 0)
		return expect_plain_name(loader, value, "job name", &job->name);
	if (strcmp(key, "description") == 0)
		return config_expect_string(loader, value, "description", &job->description);
	if (strcmp(key, "kernel") == 0)
		return config_each_pair(loader, value, "kernel", visit_kernel, &job->kernel);
	if (strcmp(key, "boards") == 0)
		return load_boards(loader, value, job);
	if (strcmp(key, "workloads") == 0)
		return load_workloads(loader, value, job);
	if (strcmp(key, "symptoms") == 0)
		return load_symptoms(loader, value, job);
	if (strcmp(key, "policy") == 0)
		return config_each_pair(loader, value, "policy", visit_policy, job);
	if (strcmp(key, "timeouts") == 0)
		return config_each_pair(loader, value, "timeouts", visit_timeouts, job);
	return config_fail_at(loader, value,
			      "unknown job key '%s' (known: name, description, kernel, boards, workloads, symptoms, policy, timeouts)",
			      key);
}

static int check_job(struct config_loader *loader, yaml_node_t *root, struct job *job)
{
	if (!job->name)
		return config_fail_at(loader, root, "the job has no name (name: ...)");
	if (job->workload_count == 0)
		return config_fail_at(loader, root, "the job has no workloads (workloads: [...])");
	return kernel_defaults(&job->kernel);
}

int job_load(const char *path, struct job **out, char *error, size_t error_len)
{
	struct config_loader loader = { .file = path, .error = error, .error_len = error_len };
	struct job *job;
	yaml_node_t *root;
	int rc;

	*out = NULL;
	rc = config_document_load(&loader, "job");
	if (rc)
		return rc;
	job = calloc(1, sizeof(*job));
	if (!job || !(job->path = strdup(path))) {
		free(job);
		yaml_document_delete(&loader.document);
		return -ENOMEM;
	}
	job->boot_failure = JOB_POLICY_SKIP;
	job->boot_timeout_seconds = DEFAULT_BOOT_TIMEOUT;
	job->hang_timeout_seconds = DEFAULT_HANG_TIMEOUT;
	root = yaml_document_get_root_node(&loader.document);
	rc = config_each_pair(&loader, root, "the job file", visit_job, job);
	if (!rc)
		rc = check_job(&loader, root, job);
	yaml_document_delete(&loader.document);
	if (rc) {
		job_free(job);
		return rc;
	}
	*out = job;
	return 0;
}

static void symptom_free(struct job_symptom *symptom)
{
	/* pattern is set only once regcomp succeeded, so it says whether regex is live */
	if (symptom->pattern)
		regfree(&symptom->regex);
	free(symptom->pattern);
	free(symptom->name);
	free(symptom->metric);
}

void job_free(struct job *job)
{
	size_t i;

	if (!job)
		return;
	for (i = 0; i < job->workload_count; i++) {
		free(job->workloads[i].name);
		free(job->workloads[i].script);
		config_free_strings(job->workloads[i].args, job->workloads[i].arg_count);
	}
	for (i = 0; i < job->symptom_count; i++)
		symptom_free(&job->symptoms[i]);
	free(job->workloads);
	free(job->symptoms);
	free(job->kernel.tree);
	config_free_strings(job->kernel.build_argv, job->kernel.build_argc);
	free(job->kernel.artifact);
	free(job->kernel.release);
	free(job->kernel.command_line);
	free(job->kernel.kbuild.config_target);
	free(job->kernel.kbuild.fragment);
	config_free_strings(job->kernel.kbuild.targets, job->kernel.kbuild.target_count);
	config_free_strings(job->boards.tags, job->boards.tag_count);
	config_free_strings(job->boards.chips, job->boards.chip_count);
	free(job->path);
	free(job->name);
	free(job->description);
	free(job);
}

static bool board_has_tag(const struct lab_board *board, const char *tag)
{
	size_t i;

	for (i = 0; i < board->tag_count; i++) {
		if (strcmp(board->tags[i], tag) == 0)
			return true;
	}
	return false;
}

bool job_selects_board(const struct job *job, const struct lab_board *board)
{
	bool chip_ok = job->boards.chip_count == 0;
	size_t i;

	for (i = 0; i < job->boards.tag_count; i++) {
		if (!board_has_tag(board, job->boards.tags[i]))
			return false;
	}
	for (i = 0; i < job->boards.chip_count; i++)
		chip_ok = chip_ok || strcmp(board->chip, job->boards.chips[i]) == 0;
	return chip_ok;
}

bool job_symptom_metric_holds(const struct job_symptom *symptom, double value)
{
	switch (symptom->compare) {
	case JOB_COMPARE_GREATER: return value > symptom->threshold;
	case JOB_COMPARE_GREATER_EQUAL: return value >= symptom->threshold;
	case JOB_COMPARE_LESS: return value < symptom->threshold;
	case JOB_COMPARE_LESS_EQUAL: return value <= symptom->threshold;
	case JOB_COMPARE_EQUAL: return value == symptom->threshold;
	case JOB_COMPARE_NOT_EQUAL: return value != symptom->threshold;
	}
	return false;
}

const char *job_compare_text(enum job_compare compare)
{
	size_t i;

	for (i = 0; i < COUNT(comparisons); i++) {
		if (comparisons[i].compare == compare)
			return comparisons[i].text;
	}
	return "?";
}

const struct job_workload *job_find_workload(const struct job *job, const char *name)
{
	size_t i;

	for (i = 0; name && i < job->workload_count; i++) {
		if (strcmp(job->workloads[i].name, name) == 0)
			return &job->workloads[i];
	}
	return NULL;
}
