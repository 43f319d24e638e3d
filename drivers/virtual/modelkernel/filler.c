/* filler.c - see filler.h. */
#include "filler.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_buffer.h"

/* Mirrors core-y in the model tree's Makefile. */
static const char *const compiled_patterns[] = {
	"kernel/*.c", "kernel/*/*.c", "mm/*.c", "fs/*/*.c", "net/*/*.c",
};

int filler_path_is_compiled(const char *path)
{
	size_t i;

	for (i = 0; i < sizeof(compiled_patterns) / sizeof(compiled_patterns[0]); i++) {
		if (fnmatch(compiled_patterns[i], path, FNM_PATHNAME) == 0)
			return 1;
	}
	return 0;
}

/* ---- layout ------------------------------------------------------------ */

static const char *kind_extension(enum filler_kind kind)
{
	switch (kind) {
	case FILLER_DOCUMENT:
		return ".txt";
	case FILLER_HEADER:
		return ".h";
	default:
		return ".c";
	}
}

/* The i-th file name of an area: distinct for every i (see the pairing). */
static void area_file_name(const struct kernel_area *area, unsigned int i,
			   struct text_buffer *name)
{
	size_t count = kernel_symbol_word_count();
	size_t round = i / count;

	text_buffer_printf(name, "%s/", area->directory);
	if (area->file_name) {
		text_buffer_append_string(name, area->file_name);
		return;
	}
	if (area->kind != FILLER_DOCUMENT)
		text_buffer_printf(name, "%s_", area->symbol_prefix);
	text_buffer_append_string(name, kernel_symbol_word(i % count));
	if (round > 0)
		text_buffer_printf(name, "_%s", kernel_symbol_word((round + i) % count));
	text_buffer_append_string(name, kind_extension(area->kind));
}

static int add_file(struct filler_layout *layout, size_t *capacity,
		    const struct filler_file *file)
{
	if (layout->count == *capacity) {
		size_t grown = *capacity ? *capacity * 2 : 1024;
		struct filler_file *files = realloc(layout->files, grown * sizeof(*files));

		if (!files)
			return -ENOMEM;
		layout->files = files;
		*capacity = grown;
	}
	layout->files[layout->count++] = *file;
	return 0;
}

static int add_area_files(struct filler_layout *layout, size_t *capacity,
			  const struct kernel_area *area)
{
	unsigned int i;
	int rc;

	for (i = 0; i < area->file_count; i++) {
		struct text_buffer name;
		struct filler_file file = {
			.kind = area->kind,
			.subsystem = area->subsystem,
			.subject_prefix = area->subject_prefix,
			.symbol_prefix = area->symbol_prefix,
		};

		text_buffer_init(&name);
		area_file_name(area, i, &name);
		file.path = text_buffer_take(&name);
		if (!file.path)
			return -ENOMEM;
		if (filler_path_is_compiled(file.path)) {
			free(file.path);
			return -EINVAL;	/* a table bug: it would slow every build */
		}
		rc = add_file(layout, capacity, &file);
		if (rc != 0) {
			free(file.path);
			return rc;
		}
	}
	return 0;
}

static int add_compiled_files(struct filler_layout *layout, size_t *capacity)
{
	size_t i;
	int rc;

	for (i = 0; i < kernel_compiled_file_count(); i++) {
		const struct kernel_compiled_file *compiled = kernel_compiled_file(i);
		struct filler_file file = {
			.path = strdup(compiled->path),
			.kind = FILLER_COMPILED,
			.subsystem = compiled->subsystem,
			.subject_prefix = compiled->subject_prefix,
			.symbol_prefix = compiled->symbol_prefix,
			.description = compiled->description,
		};

		if (!file.path)
			return -ENOMEM;
		if (!filler_path_is_compiled(file.path)) {
			free(file.path);
			return -EINVAL;
		}
		rc = add_file(layout, capacity, &file);
		if (rc != 0) {
			free(file.path);
			return rc;
		}
	}
	return 0;
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(((const struct filler_file *)a)->path,
		      ((const struct filler_file *)b)->path);
}

static int has_duplicate_paths(const struct filler_layout *layout)
{
	size_t i;

	for (i = 1; i < layout->count; i++) {
		if (strcmp(layout->files[i - 1].path, layout->files[i].path) == 0)
			return 1;
	}
	return 0;
}

int filler_layout_create(struct filler_layout *layout)
{
	size_t capacity = 0, i;
	int rc = 0;

	layout->count = 0;
	layout->files = NULL;
	for (i = 0; i < kernel_area_count() && rc == 0; i++)
		rc = add_area_files(layout, &capacity, kernel_area(i));
	if (rc == 0)
		rc = add_compiled_files(layout, &capacity);
	if (rc == 0) {
		/* sorted: the same order however the tables are arranged */
		qsort(layout->files, layout->count, sizeof(layout->files[0]), compare_paths);
		if (has_duplicate_paths(layout))
			rc = -EINVAL;
	}
	if (rc != 0)
		filler_layout_free(layout);
	return rc;
}

void filler_layout_free(struct filler_layout *layout)
{
	size_t i;

	for (i = 0; i < layout->count; i++)
		free(layout->files[i].path);
	free(layout->files);
	layout->files = NULL;
	layout->count = 0;
}

/* ---- generated lines --------------------------------------------------- */

static const char *random_word(struct seeded_random *random)
{
	return kernel_word(seeded_random_below(random, kernel_word_count()));
}

static const char *random_symbol_word(struct seeded_random *random)
{
	return kernel_symbol_word(seeded_random_below(random, kernel_symbol_word_count()));
}

static void append_upper(struct text_buffer *out, const char *text)
{
	for (; *text; text++) {
		char c = (char)toupper((unsigned char)*text);

		text_buffer_append(out, &c, 1);
	}
}

static void append_sentence(struct text_buffer *out, struct seeded_random *random,
			    size_t target_length)
{
	size_t start = out->length;
	int first = 1;

	while (out->length - start < target_length) {
		const char *word = random_word(random);

		if (!first)
			text_buffer_append(out, " ", 1);
		if (first) {
			char c = (char)toupper((unsigned char)word[0]);

			text_buffer_append(out, &c, 1);
			text_buffer_append_string(out, word + 1);
		} else {
			text_buffer_append_string(out, word);
		}
		first = 0;
	}
}

static void document_line(const struct filler_file *file, struct seeded_random *random,
			  struct text_buffer *out)
{
	(void)file;
	if (seeded_random_chance(random, 0.15))
		return;		/* a paragraph break */
	append_sentence(out, random, (size_t)seeded_random_between(random, 40, 70));
	if (seeded_random_chance(random, 0.3))
		text_buffer_append(out, ".", 1);
}

static const char *const error_codes[] = {
	"EINVAL", "ENOMEM", "EIO", "EBUSY", "ENODEV", "ETIMEDOUT", "EAGAIN", "EOPNOTSUPP",
};

static void source_line(const struct filler_file *file, struct seeded_random *random,
			struct text_buffer *out)
{
	const char *prefix = file->symbol_prefix;

	switch (seeded_random_below(random, 8)) {
	case 0:
	case 1:
		text_buffer_printf(out, "\t%s_%s(priv, %d);", prefix,
				   random_symbol_word(random), (int)seeded_random_below(random, 64));
		break;
	case 2:
		text_buffer_printf(out, "\tif (priv->%s_%s)", random_symbol_word(random),
				   random_symbol_word(random));
		break;
	case 3:
		text_buffer_printf(out, "\t\treturn -%s;",
				   error_codes[seeded_random_below(random, 8)]);
		break;
	case 4:
		text_buffer_printf(out, "\tpriv->%s = %d;", random_symbol_word(random),
				   (int)seeded_random_below(random, 4096));
		break;
	case 5:
		text_buffer_append_string(out, "#define ");
		append_upper(out, prefix);
		text_buffer_append(out, "_", 1);
		append_upper(out, random_symbol_word(random));
		text_buffer_printf(out, "\t\t0x%04x", (unsigned)seeded_random_below(random, 65536));
		break;
	case 6:
		text_buffer_printf(out, "static int %s_%s(struct %s_priv *priv);", prefix,
				   random_symbol_word(random), prefix);
		break;
	default:
		break;	/* blank line */
	}
}

static void header_line(const struct filler_file *file, struct seeded_random *random,
			struct text_buffer *out)
{
	const char *prefix = file->symbol_prefix;

	switch (seeded_random_below(random, 5)) {
	case 0:
	case 1:
		text_buffer_append_string(out, "#define ");
		append_upper(out, prefix);
		text_buffer_append(out, "_", 1);
		append_upper(out, random_symbol_word(random));
		text_buffer_printf(out, "\t%u", (unsigned)seeded_random_below(random, 100000));
		break;
	case 2:
		text_buffer_printf(out, "extern int %s_%s(struct %s_device *dev);", prefix,
				   random_symbol_word(random), prefix);
		break;
	case 3:
		text_buffer_printf(out, "struct %s_%s;", prefix, random_symbol_word(random));
		break;
	default:
		break;
	}
}

static void kconfig_line(const struct filler_file *file, struct seeded_random *random,
			 struct text_buffer *out)
{
	switch (seeded_random_below(random, 6)) {
	case 0:
		text_buffer_append_string(out, "config ");
		append_upper(out, file->symbol_prefix);
		text_buffer_append(out, "_", 1);
		append_upper(out, random_symbol_word(random));
		break;
	case 1:
		text_buffer_append_string(out, "\ttristate \"");
		append_sentence(out, random, 20);
		text_buffer_append(out, "\"", 1);
		break;
	case 2:
		text_buffer_append_string(out, "\tdepends on ");
		append_upper(out, file->symbol_prefix);
		break;
	case 3:
		text_buffer_append_string(out, seeded_random_chance(random, 0.5) ?
					  "\tdefault n" : "\tdefault y");
		break;
	case 4:
		text_buffer_append_string(out, "\t  ");
		append_sentence(out, random, 50);
		break;
	default:
		break;
	}
}

static void compiled_line(const struct filler_file *file, struct seeded_random *random,
			  struct text_buffer *out)
{
	(void)file;
	text_buffer_printf(out, "\t{ \"%s_%s\", %ld },", random_symbol_word(random),
			   random_symbol_word(random),
			   (long)seeded_random_between(random, 1, 10000000));
}

/* One body line of `file`'s kind, without its newline. */
static void body_line(const struct filler_file *file, struct seeded_random *random,
		      struct text_buffer *out)
{
	switch (file->kind) {
	case FILLER_DOCUMENT:
		document_line(file, random, out);
		break;
	case FILLER_SOURCE:
		source_line(file, random, out);
		break;
	case FILLER_HEADER:
		header_line(file, random, out);
		break;
	case FILLER_KCONFIG:
		kconfig_line(file, random, out);
		break;
	case FILLER_COMPILED:
		compiled_line(file, random, out);
		break;
	}
}

/* ---- whole files ------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void append_guard(struct text_buffer *out, const char *path)
{
	const char *c;

	text_buffer_append(out, "_", 1);
	for (c = path; *c; c++) {
		char upper = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';

		text_buffer_append(out, &upper, 1);
	}
}

/* Lines before the body: body_bounds() counts them. */
static void write_header(const struct filler_file *file,
				 struct seeded_random *random, struct text_buffer *out)
{
	const struct kernel_person *author =
		kernel_author(seeded_random_below(random, kernel_author_count()));

	switch (file->kind) {
	case FILLER_DOCUMENT:
		text_buffer_printf(out, "%s\n", base_name(file->path));
		text_buffer_printf(out, "%.*s\n\n", (int)strlen(base_name(file->path)),
				   "================================================================");
		break;
	case FILLER_SOURCE:
		text_buffer_printf(out, "/*\n * %s - %s %s support\n *\n", base_name(file->path),
				   file->symbol_prefix, random_symbol_word(random));
		text_buffer_printf(out, " * Copyright (C) %d %s <%s>\n",
				   (int)seeded_random_between(random, 2006, 2011),
				   author->name, author->email);
		text_buffer_append_string(out,
			" *\n"
			" * This program is free software; you can redistribute it and/or modify\n"
			" * it under the terms of the GNU General Public License version 2 as\n"
			" * published by the Free Software Foundation.\n"
			" */\n\n#include <linux/module.h>\n#include <linux/kernel.h>\n\n");
		break;
	case FILLER_HEADER:
		text_buffer_append_string(out, "#ifndef ");
		append_guard(out, file->path);
		text_buffer_append_string(out, "\n#define ");
		append_guard(out, file->path);
		text_buffer_append_string(out, "\n\n");
		break;
	case FILLER_KCONFIG:
		text_buffer_printf(out, "#\n# %s configuration\n#\n\n", file->symbol_prefix);
		break;
	case FILLER_COMPILED:
		text_buffer_printf(out, "/*\n *  %s\n *\n *  %s\n */\n\n", file->path,
				   file->description);
		text_buffer_printf(out, "struct %s_tunable {\n\tconst char *name;\n\tlong value;\n};\n\n",
				   file->symbol_prefix);
		text_buffer_printf(out, "static const struct %s_tunable %s_tunables[] = {\n",
				   file->symbol_prefix, file->symbol_prefix);
		break;
	}
}

/* Lines after the body: body_bounds() counts them. */
static void write_footer(const struct filler_file *file, struct text_buffer *out)
{
	const char *p = file->symbol_prefix;

	switch (file->kind) {
	case FILLER_SOURCE:
		text_buffer_append_string(out, "\nMODULE_LICENSE(\"GPL\");\n");
		break;
	case FILLER_HEADER:
		text_buffer_append_string(out, "\n#endif /* ");
		append_guard(out, file->path);
		text_buffer_append_string(out, " */\n");
		break;
	case FILLER_COMPILED:
		text_buffer_printf(out,
			"};\n\n"
			"static long %s_tunables_sum(void)\n"
			"{\n"
			"\tlong sum = 0;\n"
			"\tunsigned long i;\n"
			"\n"
			"\tfor (i = 0; i < sizeof(%s_tunables) / sizeof(%s_tunables[0]); i++)\n"
			"\t\tsum += %s_tunables[i].value;\n"
			"\treturn sum;\n"
			"}\n", p, p, p, p);
		break;
	default:
		break;
	}
}

static void body_bounds(const struct filler_file *file, unsigned int *header,
			unsigned int *footer)
{
	static const unsigned int header_lines[] = {
		[FILLER_DOCUMENT] = 3, [FILLER_SOURCE] = 13, [FILLER_HEADER] = 3,
		[FILLER_KCONFIG] = 4, [FILLER_COMPILED] = 12,
	};
	static const unsigned int footer_lines[] = {
		[FILLER_DOCUMENT] = 0, [FILLER_SOURCE] = 2, [FILLER_HEADER] = 2,
		[FILLER_KCONFIG] = 0, [FILLER_COMPILED] = 11,
	};

	*header = header_lines[file->kind];
	*footer = footer_lines[file->kind];
}

char *filler_initial_text(const struct filler_file *file, struct seeded_random *random)
{
	struct text_buffer out;
	int lines, i;

	text_buffer_init(&out);
	write_header(file, random, &out);
	lines = file->kind == FILLER_COMPILED ? (int)seeded_random_between(random, 8, 14)
					      : (int)seeded_random_between(random, 18, 40);
	for (i = 0; i < lines; i++) {
		body_line(file, random, &out);
		text_buffer_append(&out, "\n", 1);
	}
	write_footer(file, &out);
	return text_buffer_take(&out);
}

/* ---- edits ------------------------------------------------------------- */

/* Where each line of `text` starts; lines[count] is the end of the text. */
struct line_index {
	size_t count;
	const char **starts;
};

static int line_index_build(const char *text, struct line_index *index)
{
	size_t capacity = 64;
	const char *c;

	index->count = 0;
	index->starts = malloc(capacity * sizeof(*index->starts));
	if (!index->starts)
		return -ENOMEM;
	for (c = text; *c; ) {
		const char *newline = strchr(c, '\n');

		if (index->count + 2 > capacity) {
			const char **grown;

			capacity *= 2;
			grown = realloc(index->starts, capacity * sizeof(*grown));
			if (!grown) {
				free(index->starts);
				return -ENOMEM;
			}
			index->starts = grown;
		}
		index->starts[index->count++] = c;
		c = newline ? newline + 1 : c + strlen(c);
	}
	index->starts[index->count] = c;
	return 0;
}

enum line_operation { LINE_REPLACE, LINE_INSERT, LINE_DELETE };

/* `text` with line `at` (0-based) replaced by / preceded by `line`, or removed. */
static char *edit_line(const char *text, const struct line_index *index, size_t at,
		       enum line_operation operation, const char *line)
{
	struct text_buffer out;
	const char *at_start = index->starts[at];
	const char *after = operation == LINE_INSERT ? at_start : index->starts[at + 1];

	text_buffer_init(&out);
	text_buffer_append(&out, text, (size_t)(at_start - text));
	if (operation != LINE_DELETE) {
		text_buffer_append_string(&out, line);
		text_buffer_append(&out, "\n", 1);
	}
	text_buffer_append_string(&out, after);
	return text_buffer_take(&out);
}

static char *one_edit(const struct filler_file *file, const char *text,
		      struct seeded_random *random)
{
	unsigned int header, footer;
	struct line_index index;
	struct text_buffer line;
	size_t body, at;
	enum line_operation operation;
	char *result;

	if (line_index_build(text, &index) != 0)
		return NULL;
	body_bounds(file, &header, &footer);
	body = index.count > header + footer ? index.count - header - footer : 0;
	switch (seeded_random_below(random, 4)) {
	case 0:
		operation = LINE_INSERT;
		break;
	case 1:
		operation = body > 6 ? LINE_DELETE : LINE_INSERT;
		break;
	default:
		operation = body > 0 ? LINE_REPLACE : LINE_INSERT;
		break;
	}
	at = header + (size_t)seeded_random_below(random, operation == LINE_INSERT ? body + 1 : body);
	text_buffer_init(&line);
	text_buffer_append(&line, "", 0);
	if (operation != LINE_DELETE)
		body_line(file, random, &line);
	result = line.error ? NULL : edit_line(text, &index, at, operation, line.text);
	text_buffer_free(&line);
	free(index.starts);
	return result;
}

char *filler_edit(const struct filler_file *file, const char *text,
		  struct seeded_random *random)
{
	int edits = (int)seeded_random_between(random, 1, 3);
	char *current = strdup(text);

	while (current && edits-- > 0) {
		char *next = one_edit(file, current, random);

		if (next && strcmp(next, current) == 0) {
			edits++;	/* a no-op (a blank replaced by a blank): try again */
		}
		free(current);
		current = next;
	}
	return current;
}

/* ---- build breaks ------------------------------------------------------ */

static void set_fixed_line(struct filler_build_break *build_break, const struct line_index *index,
			   size_t at)
{
	size_t length = (size_t)(index->starts[at + 1] - index->starts[at]);

	build_break->fixed_line = strndup(index->starts[at], length ? length - 1 : 0);
}

static char *break_missing_semicolon(const struct filler_file *file, const char *text,
				     const struct line_index *index, size_t closing,
				     struct filler_build_break *build_break)
{
	build_break->kind = FILLER_BREAK_MISSING_SEMICOLON;
	build_break->line = (unsigned int)closing + 1;
	snprintf(build_break->summary, sizeof(build_break->summary),
		 "a missing semicolon after %s_tunables[]", file->symbol_prefix);
	snprintf(build_break->compiler_error, sizeof(build_break->compiler_error),
		 "%s:%u:1: error: expected ',' or ';' before 'static'", file->path,
		 build_break->line + 2);
	set_fixed_line(build_break, index, closing);
	return edit_line(text, index, closing, LINE_REPLACE, "}");
}

static char *break_undeclared(const struct filler_file *file, const char *text,
			      const struct line_index *index, size_t at,
			      struct seeded_random *random, struct filler_build_break *build_break)
{
	struct text_buffer line, constant;
	const char *name_start = strchr(index->starts[at], '"');
	const char *name_end = name_start ? strchr(name_start + 1, '"') : NULL;
	char *result = NULL;

	if (!name_end)
		return NULL;
	text_buffer_init(&constant);
	append_upper(&constant, file->symbol_prefix);
	text_buffer_append(&constant, "_", 1);
	append_upper(&constant, random_symbol_word(random));
	text_buffer_append_string(&constant, "_DEFAULT");
	text_buffer_init(&line);
	text_buffer_printf(&line, "\t{ %.*s, %s },", (int)(name_end - name_start + 1), name_start,
			   constant.text ? constant.text : "");
	build_break->kind = FILLER_BREAK_UNDECLARED_IDENTIFIER;
	build_break->line = (unsigned int)at + 1;
	snprintf(build_break->summary, sizeof(build_break->summary),
		 "an undeclared identifier %s", constant.text ? constant.text : "");
	snprintf(build_break->compiler_error, sizeof(build_break->compiler_error),
		 "%s:%u:%d: error: '%s' undeclared here (not in a function)", file->path,
		 build_break->line, (int)(name_end - name_start) + 7,
		 constant.text ? constant.text : "");
	set_fixed_line(build_break, index, at);
	if (!line.error && !constant.error)
		result = edit_line(text, index, at, LINE_REPLACE, line.text);
	text_buffer_free(&line);
	text_buffer_free(&constant);
	return result;
}

static char *break_missing_comma(const struct filler_file *file, const char *text,
				 const struct line_index *index, size_t at,
				 struct filler_build_break *build_break)
{
	size_t length = (size_t)(index->starts[at + 1] - index->starts[at]);
	char *line = strndup(index->starts[at], length ? length - 2 : 0);	/* drop ",\n" */
	char *result;

	if (!line)
		return NULL;
	build_break->kind = FILLER_BREAK_MISSING_COMMA;
	build_break->line = (unsigned int)at + 1;
	snprintf(build_break->summary, sizeof(build_break->summary),
		 "a missing comma in %s_tunables[]", file->symbol_prefix);
	snprintf(build_break->compiler_error, sizeof(build_break->compiler_error),
		 "%s:%u:2: error: expected '}' before '{' token", file->path,
		 build_break->line + 1);
	set_fixed_line(build_break, index, at);
	result = edit_line(text, index, at, LINE_REPLACE, line);
	free(line);
	return result;
}

char *filler_break_build(const struct filler_file *file, const char *text,
			 struct seeded_random *random, struct filler_build_break *build_break)
{
	unsigned int header, footer;
	struct line_index index;
	size_t body, at;
	char *result = NULL;

	memset(build_break, 0, sizeof(*build_break));
	if (file->kind != FILLER_COMPILED || line_index_build(text, &index) != 0)
		return NULL;
	body_bounds(file, &header, &footer);
	body = index.count - header - footer;
	at = header + (size_t)seeded_random_below(random, body - 1);	/* not the last */
	switch (seeded_random_below(random, 3)) {
	case FILLER_BREAK_MISSING_SEMICOLON:
		result = break_missing_semicolon(file, text, &index, header + body, build_break);
		break;
	case FILLER_BREAK_UNDECLARED_IDENTIFIER:
		result = break_undeclared(file, text, &index, at, random, build_break);
		break;
	default:
		result = break_missing_comma(file, text, &index, at, build_break);
		break;
	}
	free(index.starts);
	if (!result || !build_break->fixed_line) {
		free(result);
		filler_build_break_free(build_break);
		return NULL;
	}
	return result;
}

char *filler_fix_build(const char *broken_text, const struct filler_build_break *build_break)
{
	struct line_index index;
	char *result;

	if (line_index_build(broken_text, &index) != 0)
		return NULL;
	if (build_break->line == 0 || build_break->line > index.count) {
		free(index.starts);
		return NULL;
	}
	result = edit_line(broken_text, &index, build_break->line - 1, LINE_REPLACE,
			   build_break->fixed_line);
	free(index.starts);
	return result;
}

void filler_build_break_free(struct filler_build_break *build_break)
{
	free(build_break->fixed_line);
	build_break->fixed_line = NULL;
}
