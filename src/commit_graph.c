/* commit_graph.c - bisection candidates from `git rev-list --parents`. */
#include "commit_graph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git_ref.h"
#include "subprocess.h"

static int git_output(const char *tree, char *const *argv_tail, size_t tail_count, char **output)
{
	char **argv = calloc(tail_count + 4, sizeof(char *));
	size_t i;
	int rc;

	if (!argv)
		return -ENOMEM;
	argv[0] = "git";
	argv[1] = "-C";
	argv[2] = (char *)tree;
	for (i = 0; i < tail_count; i++)
		argv[3 + i] = argv_tail[i];
	rc = subprocess_run(argv, NULL, output);
	free(argv);
	return rc;
}

static int resolve(const char *tree, const char *ref, char *id, size_t id_len, char *error,
		   size_t error_len)
{
	char spec[GIT_REF_MAX + 16];
	char *tail[] = { "rev-parse", "--verify", "--quiet", spec };
	char *output = NULL;
	int rc;

	if (git_ref_check(ref, error, error_len))
		return -EINVAL;
	snprintf(spec, sizeof(spec), "%s^{commit}", ref);
	rc = git_output(tree, tail, 4, &output);
	if (rc != 0 || !output || strlen(output) < 40) {
		snprintf(error, error_len, "no commit '%s' in %s", ref, tree);
		free(output);
		return rc < 0 ? rc : -ENOENT;
	}
	snprintf(id, id_len, "%.40s", output);
	free(output);
	return 0;
}

static long find_id(const struct commit_graph *graph, const char *id)
{
	size_t i;

	for (i = 0; i < graph->count; i++) {
		if (strncmp(graph->ids[i], id, 40) == 0)
			return (long)i;
	}
	return -1;
}

static int add_line(struct commit_graph *graph, char *line)
{
	size_t index = graph->count++, words = 1;
	char *save = NULL, *word, *c;

	for (c = line; *c; c++)
		words += *c == ' ';
	word = strtok_r(line, " ", &save);
	graph->ids[index] = strdup(word);
	/* an octopus merge has many parents: as many slots as words */
	graph->parents[index] = calloc(words, sizeof(size_t));
	return graph->ids[index] && graph->parents[index] ? 0 : -ENOMEM;
}

/* Second pass: parents are known only once every candidate has an index. */
static void link_parents(struct commit_graph *graph, char **lines)
{
	size_t i;

	for (i = 0; i < graph->count; i++) {
		char *save = NULL, *word = strtok_r(lines[i], " ", &save);
		size_t n = 0;

		for (word = strtok_r(NULL, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
			long parent = find_id(graph, word);

			if (parent >= 0)
				graph->parents[i][n++] = (size_t)parent;
		}
		graph->commits[i] = (struct bisect_commit){ graph->ids[i], graph->parents[i], n };
	}
}

static int parse_rev_list(struct commit_graph *graph, char *output)
{
	size_t lines = 0, i;
	char *c, **copies;
	int rc = 0;

	for (c = output; *c; c++)
		lines += *c == '\n';
	graph->commits = calloc(lines + 1, sizeof(*graph->commits));
	graph->ids = calloc(lines + 1, sizeof(char *));
	graph->parents = calloc(lines + 1, sizeof(size_t *));
	copies = calloc(lines + 1, sizeof(char *));
	if (!graph->commits || !graph->ids || !graph->parents || !copies) {
		free(copies);
		return -ENOMEM;
	}
	for (i = 0, c = strtok(output, "\n"); c && !rc; c = strtok(NULL, "\n"), i++) {
		copies[i] = strdup(c);
		rc = copies[i] ? add_line(graph, c) : -ENOMEM;
	}
	if (!rc)
		link_parents(graph, copies);
	for (i = 0; i < lines; i++)
		free(copies[i]);
	free(copies);
	return rc;
}

int commit_graph_load(const char *tree, const char *bad, const char *const *goods,
		      size_t good_count, struct commit_graph *graph, char *error, size_t error_len)
{
	char bad_id[64], (*good_ids)[64] = calloc(good_count + 1, 64);
	char **tail = calloc(good_count + 3, sizeof(char *));
	char *output = NULL;
	long bad_index;
	size_t i;
	int rc;

	memset(graph, 0, sizeof(*graph));
	if (!good_ids || !tail) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = resolve(tree, bad, bad_id, sizeof(bad_id), error, error_len)))
		goto out;
	tail[0] = "rev-list";
	tail[1] = "--parents";
	tail[2] = bad_id;
	for (i = 0; i < good_count; i++) {
		if ((rc = resolve(tree, goods[i], good_ids[i] + 1, 63, error, error_len)))
			goto out;
		good_ids[i][0] = '^';
		tail[3 + i] = good_ids[i];
	}
	rc = git_output(tree, tail, good_count + 3, &output);
	if (rc != 0 || !output) {
		snprintf(error, error_len, "git rev-list failed in %s", tree);
		rc = rc < 0 ? rc : -EIO;
		goto out;
	}
	if ((rc = parse_rev_list(graph, output)))
		goto out;
	bad_index = find_id(graph, bad_id);
	if (bad_index < 0) {
		snprintf(error, error_len, "%s is an ancestor of a good commit: nothing to bisect", bad);
		rc = -EINVAL;
		goto out;
	}
	graph->bad_index = (size_t)bad_index;
	snprintf(graph->good_id, sizeof(graph->good_id), "%s", good_ids[0] + 1);
out:
	free(output);
	free(good_ids);
	free(tail);
	if (rc)
		commit_graph_free(graph);
	return rc;
}

void commit_graph_free(struct commit_graph *graph)
{
	size_t i;

	for (i = 0; i < graph->count; i++) {
		free(graph->ids[i]);
		free(graph->parents[i]);
	}
	free(graph->ids);
	free(graph->parents);
	free(graph->commits);
	memset(graph, 0, sizeof(*graph));
}

char *commit_graph_describe(const char *tree, const char *id)
{
	char *tail[] = { "log", "-1", "--format=%s (%an <%ae>)", (char *)id, "--" };
	char *output = NULL;

	if (git_output(tree, tail, 5, &output) != 0) {
		free(output);
		return NULL;
	}
	if (output)
		output[strcspn(output, "\n")] = '\0';
	return output;
}
