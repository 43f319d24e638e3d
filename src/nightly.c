/* nightly.c - the nightly file and each branch's last good night. */
#include "nightly.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config_yaml.h"
#include "subprocess.h"

/* ---- the file ------------------------------------------------------------------------------ */

struct tree_draft {
	char *name, *path, *mainline;
	char **branches;
	size_t branch_count;
	yaml_node_t *node, *path_node, *branches_node;
	const char *directory;	/* the nightly file's */
};

struct config_draft {
	struct nightly_config *config;
	char directory[PATH_MAX];	/* the nightly file's: relative paths start there */
	yaml_node_t *trees_node;
};

static bool is_plain_name(const char *text)
{
	return *text && *text != '-' &&
	       strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
		       strlen(text);
}

/* A path as written, made absolute against the nightly file's directory. */
static int expect_path(struct config_loader *loader, yaml_node_t *node, const char *what,
		       const char *directory, char **out)
{
	const char *text = config_scalar(node);

	if (!text || !*text)
		return config_fail_at(loader, node, "%s must be a path", what);
	if (text[0] == '/')
		*out = strdup(text);
	else if (asprintf(out, "%s/%s", directory, text) < 0)
		*out = NULL;
	return *out ? 0 : -ENOMEM;
}

static int visit_tree(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct tree_draft *tree = arg;

	if (strcmp(key, "name") == 0) {
		const char *text = config_scalar(value);

		if (!text || !is_plain_name(text))
			return config_fail_at(loader, value, "a tree's name must be a plain name "
					      "(letters, digits, '-', '_', '.')");
		return config_expect_string(loader, value, "tree name", &tree->name);
	}
	if (strcmp(key, "path") == 0) {
		tree->path_node = value;
		return expect_path(loader, value, "a tree's path", tree->directory, &tree->path);
	}
	if (strcmp(key, "branches") == 0) {
		tree->branches_node = value;
		return config_expect_string_list(loader, value, "branches", "[master]", &tree->branches,
						 &tree->branch_count);
	}
	if (strcmp(key, "mainline") == 0)
		return config_expect_string(loader, value, "mainline branch", &tree->mainline);
	return config_fail_at(loader, value, "a tree: unknown key '%s' (known: name, path, branches, "
			      "mainline)", key);
}

static bool is_git_repository(const char *path)
{
	char *argv[] = { "git", "-C", (char *)path, "rev-parse", "--git-dir", NULL };
	char *output = NULL;
	int rc = subprocess_run(argv, NULL, &output);

	free(output);
	return rc == 0;
}

/* A branch name git would take, and nothing an option parser could read as an option. */
static bool is_branch_name(const char *name)
{
	char *argv[] = { "git", "check-ref-format", "--branch", (char *)name, NULL };
	char *output = NULL;
	int rc = name[0] == '-' ? 1 : subprocess_run(argv, NULL, &output);

	free(output);
	return rc == 0;
}

static int check_tree(struct config_loader *loader, struct tree_draft *tree)
{
	size_t i;

	if (!tree->name)
		return config_fail_at(loader, tree->node, "a tree has no name (name: ...)");
	if (!tree->path)
		return config_fail_at(loader, tree->node, "tree '%s' has no path (path: a local git "
				      "repository)", tree->name);
	if (!tree->branch_count)
		return config_fail_at(loader, tree->node, "tree '%s' has no branches (branches: [...])",
				      tree->name);
	if (!is_git_repository(tree->path))
		return config_fail_at(loader, tree->path_node, "tree '%s': %s is not a git repository "
				      "(give a local clone; fetching it is your cron's business)",
				      tree->name, tree->path);
	for (i = 0; i < tree->branch_count; i++) {
		if (!is_branch_name(tree->branches[i]))
			return config_fail_at(loader, tree->branches_node, "tree '%s': '%s' is not a "
					      "branch name", tree->name, tree->branches[i]);
	}
	return 0;
}

/* The tree's branches become the config's, each named TREE/BRANCH. */
static int add_branches(struct config_loader *loader, struct nightly_config *config,
			struct tree_draft *tree)
{
	struct nightly_branch *grown = realloc(config->branches, (config->branch_count + tree->branch_count) *
								 sizeof(*grown));
	size_t i, j;

	if (!grown)
		return -ENOMEM;
	config->branches = grown;
	for (i = 0; i < tree->branch_count; i++) {
		struct nightly_branch *branch = &config->branches[config->branch_count];

		*branch = (struct nightly_branch){ .where = config_node_location(loader, tree->node) };
		for (j = 0; j < config->branch_count; j++) {
			if (strcmp(config->branches[j].tree_name, tree->name) == 0 &&
			    strcmp(config->branches[j].branch, tree->branches[i]) == 0)
				return config_fail_at(loader, tree->node, "%s/%s is tracked twice",
						      tree->name, tree->branches[i]);
		}
		branch->tree_name = strdup(tree->name);
		branch->path = strdup(tree->path);
		branch->branch = strdup(tree->branches[i]);
		branch->mainline = tree->mainline ? strdup(tree->mainline) : NULL;
		if (asprintf(&branch->night, "%s/%s", tree->name, tree->branches[i]) < 0)
			branch->night = NULL;
		config->branch_count++;
		if (!branch->tree_name || !branch->path || !branch->branch || !branch->night ||
		    (tree->mainline && !branch->mainline))
			return -ENOMEM;
	}
	return 0;
}

static void tree_draft_free(struct tree_draft *tree)
{
	free(tree->name);
	free(tree->path);
	free(tree->mainline);
	config_free_strings(tree->branches, tree->branch_count);
}

static int load_trees(struct config_loader *loader, yaml_node_t *value, struct config_draft *draft)
{
	size_t i, count;
	int rc = 0;

	if (value->type != YAML_SEQUENCE_NODE || !(count = config_sequence_length(value)))
		return config_fail_at(loader, value, "trees must be a list of {name, path, branches}");
	for (i = 0; i < count && !rc; i++) {
		struct tree_draft tree = { .node = config_sequence_item(loader, value, i),
					   .directory = draft->directory };

		rc = config_each_pair(loader, tree.node, "a tree", visit_tree, &tree);
		if (!rc)
			rc = check_tree(loader, &tree);
		if (!rc)
			rc = add_branches(loader, draft->config, &tree);
		tree_draft_free(&tree);
	}
	return rc;
}

static int visit_nightly(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct config_draft *draft = arg;
	struct nightly_config *config = draft->config;

	if (strcmp(key, "job") == 0)
		return expect_path(loader, value, "job", draft->directory, &config->job_path);
	if (strcmp(key, "boards") == 0)
		return config_expect_string(loader, value, "boards", &config->boards);
	if (strcmp(key, "confidence") == 0)
		return config_expect_string(loader, value, "confidence", &config->confidence);
	if (strcmp(key, "trees") == 0) {
		draft->trees_node = value;
		return load_trees(loader, value, draft);
	}
	return config_fail_at(loader, value, "unknown key '%s' (known: job, boards, confidence, trees)",
			      key);
}

int nightly_config_load(const char *path, struct nightly_config **out, char *error, size_t error_len)
{
	struct config_loader loader = { .file = path, .error = error, .error_len = error_len };
	struct config_draft draft = { 0 };
	char copy[PATH_MAX];
	yaml_node_t *root;
	int rc;

	*out = NULL;
	if ((rc = config_document_load(&loader, "nightly")))
		return rc;
	snprintf(copy, sizeof(copy), "%s", path);
	if (!realpath(dirname(copy), draft.directory))
		snprintf(draft.directory, sizeof(draft.directory), ".");
	draft.config = calloc(1, sizeof(*draft.config));
	rc = draft.config && (draft.config->path = strdup(path)) ? 0 : -ENOMEM;
	root = yaml_document_get_root_node(&loader.document);
	if (!rc)
		rc = config_each_pair(&loader, root, "the nightly file", visit_nightly, &draft);
	if (!rc && !draft.config->job_path)
		rc = config_fail_at(&loader, root, "the nightly file names no job (job: a job file)");
	if (!rc && !draft.trees_node)
		rc = config_fail_at(&loader, root, "the nightly file tracks no tree (trees: [...])");
	yaml_document_delete(&loader.document);
	if (rc) {
		nightly_config_free(draft.config);
		return rc;
	}
	*out = draft.config;
	return 0;
}

void nightly_config_free(struct nightly_config *config)
{
	size_t i;

	if (!config)
		return;
	for (i = 0; i < config->branch_count; i++) {
		free(config->branches[i].tree_name);
		free(config->branches[i].path);
		free(config->branches[i].branch);
		free(config->branches[i].mainline);
		free(config->branches[i].night);
	}
	free(config->branches);
	free(config->path);
	free(config->job_path);
	free(config->boards);
	free(config->confidence);
	free(config);
}

/* ---- the store ----------------------------------------------------------------------------- */

static bool is_good_night(const struct store_gate *gate, const char *night, const char **commit,
			  json_t **spec_out)
{
	json_t *spec = json_loads(gate->spec, 0, NULL);
	const char *recorded = json_string_value(json_object_get(spec, "night"));

	*commit = json_string_value(json_object_get(spec, "candidate"));
	if (spec && recorded && strcmp(recorded, night) == 0 && *commit && gate->verdict &&
	    strcmp(gate->verdict, "PASS") == 0) {
		*spec_out = spec;
		return true;
	}
	json_decref(spec);
	return false;
}

int nightly_last_good(struct store *store, const char *job, const char *night, char **commit,
		      int64_t *gate_id)
{
	struct store_gate *gates;
	size_t count, i;
	int rc = store_gate_list(store, job, SIZE_MAX, &gates, &count);

	*commit = NULL;
	*gate_id = 0;
	if (rc)
		return rc;
	rc = -ENOENT;
	for (i = 0; i < count && rc == -ENOENT; i++) {
		const char *candidate;
		json_t *spec;

		if (!is_good_night(&gates[i], night, &candidate, &spec))
			continue;
		*commit = strdup(candidate);
		*gate_id = gates[i].id;
		rc = *commit ? 0 : -ENOMEM;
		json_decref(spec);
	}
	store_gate_list_free(gates, count);
	return rc;
}
