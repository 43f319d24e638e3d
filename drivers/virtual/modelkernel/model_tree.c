/* model_tree.c - see model_tree.h. */
#include "model_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"
#include "text_buffer.h"

const struct file_version *model_tree_add_version(struct model_tree *tree, char *text,
						  long creator)
{
	struct file_version *version;

	if (!text)
		return NULL;
	if (tree->version_count == tree->version_capacity) {
		size_t grown = tree->version_capacity ? tree->version_capacity * 2 : 4096;
		struct file_version **versions = realloc(tree->versions, grown * sizeof(*versions));

		if (!versions) {
			free(text);
			return NULL;
		}
		tree->versions = versions;
		tree->version_capacity = grown;
	}
	version = calloc(1, sizeof(*version));
	if (!version) {
		free(text);
		return NULL;
	}
	version->text = text;
	version->size = strlen(text);
	version->creator = creator;
	tree->versions[tree->version_count++] = version;
	return version;
}

static int add_template_files(struct model_tree *tree, model_tree_state initial)
{
	unsigned long i;

	for (i = 0; i < template_file_count; i++) {
		const struct template_file *source = &template_files[i];
		struct model_file *file = &tree->files[tree->file_count];
		char *text = malloc(source->size + 1);

		if (!text)
			return -ENOMEM;
		/* the size, not strlen: the template is data, not a C string */
		memcpy(text, source->text, source->size);
		text[source->size] = '\0';
		file->path = source->path;
		file->mode = source->mode == 100755 ? 0100755 : 0100644;
		file->filler = NULL;
		initial[tree->file_count] = model_tree_add_version(tree, text, -1);
		if (!initial[tree->file_count])
			return -ENOMEM;
		tree->file_count++;
	}
	return 0;
}

static int is_template_path(const char *path)
{
	unsigned long i;

	for (i = 0; i < template_file_count; i++) {
		if (strcmp(template_files[i].path, path) == 0)
			return 1;
	}
	return 0;
}

static int add_filler_files(struct model_tree *tree, model_tree_state initial,
			    struct seeded_random *random)
{
	size_t i;

	for (i = 0; i < tree->layout.count; i++) {
		const struct filler_file *filler = &tree->layout.files[i];
		struct model_file *file = &tree->files[tree->file_count];

		if (is_template_path(filler->path))
			return -EEXIST;	/* filler_layout_create already refused duplicates */
		file->path = filler->path;
		file->mode = 0100644;
		file->filler = filler;
		initial[tree->file_count] =
			model_tree_add_version(tree, filler_initial_text(filler, random), -1);
		if (!initial[tree->file_count])
			return -ENOMEM;
		tree->file_count++;
	}
	return 0;
}

int model_tree_create(struct model_tree *tree, struct seeded_random *random,
		      model_tree_state *initial)
{
	size_t total;
	int rc;

	memset(tree, 0, sizeof(*tree));
	*initial = NULL;
	rc = filler_layout_create(&tree->layout);
	if (rc != 0)
		return rc;
	total = template_file_count + tree->layout.count;
	tree->files = calloc(total, sizeof(*tree->files));
	*initial = calloc(total, sizeof(**initial));
	if (!tree->files || !*initial)
		rc = -ENOMEM;
	if (rc == 0)
		rc = add_template_files(tree, *initial);
	if (rc == 0)
		rc = add_filler_files(tree, *initial, random);
	if (rc != 0) {
		free(*initial);
		*initial = NULL;
		model_tree_free(tree);
	}
	return rc;
}

void model_tree_free(struct model_tree *tree)
{
	size_t i;

	for (i = 0; i < tree->version_count; i++) {
		free(tree->versions[i]->text);
		free(tree->versions[i]);
	}
	free(tree->versions);
	free(tree->files);
	filler_layout_free(&tree->layout);
	memset(tree, 0, sizeof(*tree));
}

long model_tree_find(const struct model_tree *tree, const char *path)
{
	size_t i;

	for (i = 0; i < tree->file_count; i++) {
		if (strcmp(tree->files[i].path, path) == 0)
			return (long)i;
	}
	return -1;
}

model_tree_state model_tree_state_copy(const struct model_tree *tree, model_tree_state state)
{
	model_tree_state copy = malloc(tree->file_count * sizeof(*copy));

	if (copy)
		memcpy(copy, state, tree->file_count * sizeof(*copy));
	return copy;
}

/* Replaces the whole line starting with `key` ("SUBLEVEL =") by `key value`. */
static char *set_makefile_field(const char *makefile, const char *key, const char *value)
{
	struct text_buffer out;
	const char *line = makefile;
	size_t key_length = strlen(key);

	while (line && strncmp(line, key, key_length) != 0) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line)
		return NULL;
	text_buffer_init(&out);
	text_buffer_append(&out, makefile, (size_t)(line - makefile));
	text_buffer_append_string(&out, key);
	if (*value) {
		text_buffer_append(&out, " ", 1);
		text_buffer_append_string(&out, value);
	}
	text_buffer_append_string(&out, strchr(line, '\n') ? strchr(line, '\n') : "\n");
	return text_buffer_take(&out);
}

char *model_tree_makefile_with_version(const char *makefile, int patchlevel,
				       int sublevel, const char *extraversion)
{
	char number[16];
	char *step1, *step2, *result;

	snprintf(number, sizeof(number), "%d", patchlevel);
	step1 = set_makefile_field(makefile, "PATCHLEVEL =", number);
	if (!step1)
		return NULL;
	snprintf(number, sizeof(number), "%d", sublevel);
	step2 = set_makefile_field(step1, "SUBLEVEL =", number);
	free(step1);
	if (!step2)
		return NULL;
	result = set_makefile_field(step2, "EXTRAVERSION =", extraversion);
	free(step2);
	return result;
}
