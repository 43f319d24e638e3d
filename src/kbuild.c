/* kbuild.c - see kbuild.h. */
#include "kbuild.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "path.h"

const char *kbuild_step_name(enum kbuild_step step)
{
	switch (step) {
	case KBUILD_CONFIGURE:		return "configure";
	case KBUILD_OLDDEFCONFIG:	return "olddefconfig";
	case KBUILD_MAKE:		return "make";
	case KBUILD_MODULES_INSTALL:	return "modules_install";
	case KBUILD_PACK_MODULES:	return "pack modules";
	}
	return "?";
}

/* ---- argv ------------------------------------------------------------------ */

struct words {
	char **argv;
	size_t count, size;
	bool failed;
};

static void add_word(struct words *words, const char *word)
{
	char *copy;

	if (words->failed)
		return;
	if (words->count + 2 > words->size) {
		size_t size = words->size ? words->size * 2 : 16;
		char **grown = realloc(words->argv, size * sizeof(*grown));

		if (!grown) {
			words->failed = true;
			return;
		}
		words->argv = grown;
		words->size = size;
	}
	copy = strdup(word);
	if (!copy) {
		words->failed = true;
		return;
	}
	words->argv[words->count++] = copy;
	words->argv[words->count] = NULL;
}

static void add_format(struct words *words, const char *format, const char *value)
{
	char word[PATH_MAX + 64];

	if (path_format(word, sizeof(word), format, value))
		words->failed = true;
	else
		add_word(words, word);
}

static bool some_word_starts(char *const *words, const char *prefix)
{
	for (; words && *words; words++)
		if (strncmp(*words, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

static void add_make(struct words *words, char *const *make_words, const struct kbuild_paths *paths)
{
	static char *const make[] = { "make", NULL };
	char *const *word;

	for (word = make_words ? make_words : make; *word; word++)
		add_word(words, *word);
	add_format(words, "O=%s", paths->build_dir);
}

static void add_parallel_make(struct words *words, char *const *make_words,
			      const struct kbuild_paths *paths)
{
	char jobs[32];

	add_make(words, make_words, paths);
	if (!some_word_starts(make_words, "-j")) {
		snprintf(jobs, sizeof(jobs), "-j%u", paths->jobs ? paths->jobs : 1);
		add_word(words, jobs);
	}
	/* a compiler cache saves most of a bisection's rebuilds; the job's own
	 * choice of compiler wins */
	if (paths->ccache && !some_word_starts(make_words, "CC=") &&
	    !some_word_starts(make_words, "LLVM="))
		add_word(words, "CC=ccache gcc");
}

char **kbuild_argv(const struct kbuild_recipe *recipe, char *const *make_words,
		   enum kbuild_step step, const struct kbuild_paths *paths)
{
	static char *const default_targets[] = { "bzImage", "modules", NULL };
	struct words words = { 0 };
	char *const *target;

	switch (step) {
	case KBUILD_CONFIGURE:
		add_make(&words, make_words, paths);
		add_word(&words, recipe->config_target);
		break;
	case KBUILD_OLDDEFCONFIG:
		add_make(&words, make_words, paths);
		add_word(&words, "olddefconfig");
		break;
	case KBUILD_MAKE:
		add_parallel_make(&words, make_words, paths);
		for (target = recipe->targets ? recipe->targets : default_targets; *target; target++)
			add_word(&words, *target);
		break;
	case KBUILD_MODULES_INSTALL:
		add_make(&words, make_words, paths);
		add_format(&words, "INSTALL_MOD_PATH=%s", paths->install_root);
		add_word(&words, "INSTALL_MOD_STRIP=1");
		add_word(&words, "modules_install");
		break;
	case KBUILD_PACK_MODULES:
		add_word(&words, "tar");
		add_word(&words, "-C");
		add_format(&words, "%s/lib/modules", paths->install_root);
		add_word(&words, "-czf");
		add_word(&words, paths->tarball);
		/* a release is never an option: build.c refuses one starting with '-' */
		add_word(&words, "--");
		add_word(&words, paths->release);
		break;
	}
	if (words.failed || !words.argv) {
		kbuild_free_argv(words.argv);
		return NULL;
	}
	return words.argv;
}

void kbuild_free_argv(char **argv)
{
	char **word;

	for (word = argv; word && *word; word++)
		free(*word);
	free(argv);
}

bool kbuild_program_in_path(const char *program)
{
	const char *path = getenv("PATH");
	char candidate[PATH_MAX];

	while (path && *path) {
		size_t length = strcspn(path, ":");

		if (length && snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)length, path,
				       program) < (int)sizeof(candidate) &&
		    access(candidate, X_OK) == 0)
			return true;
		path += length + (path[length] == ':');
	}
	return false;
}

/* ---- the fragment ------------------------------------------------------------ */

enum fragment_line {
	FRAGMENT_NOTHING,	/* blank or a comment */
	FRAGMENT_SET,		/* CONFIG_X=value */
	FRAGMENT_UNSET,		/* # CONFIG_X is not set, or CONFIG_X=n */
	FRAGMENT_BAD,
};

static bool is_symbol_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* symbol gets "CONFIG_X", value what follows '=' (both within line). */
static enum fragment_line parse_line(const char *line, size_t length, const char **symbol,
				     size_t *symbol_length, const char **value, size_t *value_length)
{
	static const char not_set[] = " is not set";
	const char *c = line;
	size_t name;

	while (length && strchr(" \t\r", line[length - 1]))
		length--;
	if (length == 0)
		return FRAGMENT_NOTHING;
	if (strncmp(line, "# CONFIG_", 9) == 0)
		c = line + 2;
	else if (line[0] == '#')
		return FRAGMENT_NOTHING;
	if (strncmp(c, "CONFIG_", 7) != 0)
		return FRAGMENT_BAD;
	for (name = 7; c + name < line + length && is_symbol_char(c[name]); name++)
		;
	*symbol = c;
	*symbol_length = name;
	if (c != line)
		return (size_t)(line + length - (c + name)) == strlen(not_set) &&
		       strncmp(c + name, not_set, strlen(not_set)) == 0 ? FRAGMENT_UNSET : FRAGMENT_BAD;
	if (name == 7 || c + name >= line + length || c[name] != '=')
		return FRAGMENT_BAD;
	*value = c + name + 1;
	*value_length = (size_t)(line + length - *value);
	if (*value_length == 0)
		return FRAGMENT_BAD;
	return *value_length == 1 && **value == 'n' ? FRAGMENT_UNSET : FRAGMENT_SET;
}

/*
 * What the .config says of a symbol: its value's start (length in
 * *value_length) when set, NULL when not set or absent.
 */
static const char *config_value(const char *config, const char *symbol, size_t symbol_length,
				size_t *value_length)
{
	const char *line;

	for (line = config; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t length = strcspn(line, "\n");

		if (length > symbol_length && strncmp(line, symbol, symbol_length) == 0 &&
		    line[symbol_length] == '=') {
			*value_length = length - symbol_length - 1;
			return line + symbol_length + 1;
		}
	}
	return NULL;
}

typedef int (*fragment_visit)(const char *line, size_t length, enum fragment_line kind,
			      const char *symbol, size_t symbol_length, const char *value,
			      size_t value_length, void *arg);

/* Every line of the fragment, numbered; a line that is not kconfig is EINVAL. */
static int visit_fragment(const char *fragment_path, const char *fragment, fragment_visit visit,
			  void *arg, char *why, size_t why_len)
{
	const char *line = fragment;
	unsigned int number = 1;
	bool is_fragment = false;	/* a kconfig setting came before */
	int rc;

	for (; *line; number++) {
		size_t length = strcspn(line, "\n");
		const char *symbol = NULL, *value = NULL;
		size_t symbol_length = 0, value_length = 0;
		enum fragment_line kind = parse_line(line, length, &symbol, &symbol_length, &value,
						     &value_length);

		/* the bad line is quoted only from a file that is a fragment:
		 * `fragment: /etc/shadow` must not print the file's first line */
		if (kind == FRAGMENT_BAD) {
			snprintf(why, why_len, "%s:%u: not a kconfig line (CONFIG_X=y, CONFIG_X=m, "
				 "CONFIG_X=\"text\" or # CONFIG_X is not set)%s%.*s", fragment_path,
				 number, is_fragment ? ": " : ", and no kconfig setting before it: is "
				 "it a config fragment?", is_fragment ? (int)(length > 80 ? 80 : length)
				 : 0, line);
			return -EINVAL;
		}
		is_fragment |= kind != FRAGMENT_NOTHING;
		rc = kind == FRAGMENT_NOTHING ? 0 : visit(line, length, kind, symbol, symbol_length,
							    value, value_length, arg);
		if (rc)
			return rc;
		line += length + (line[length] == '\n');
	}
	return 0;
}

static int count_setting(const char *line, size_t length, enum fragment_line kind,
			 const char *symbol, size_t symbol_length, const char *value,
			 size_t value_length, void *arg)
{
	(void)line, (void)length, (void)kind, (void)symbol, (void)symbol_length, (void)value;
	(void)value_length;
	++*(unsigned int *)arg;
	return 0;
}

static char *read_fragment(const char *path, char *why, size_t why_len)
{
	char *text = files_read_text(path);

	if (!text)
		snprintf(why, why_len, "cannot read the config fragment %s: %s", path, strerror(errno));
	return text;
}

int kbuild_validate_fragment(const char *fragment_path, char *why, size_t why_len)
{
	char *fragment = read_fragment(fragment_path, why, why_len);
	unsigned int settings = 0;
	int rc;

	if (!fragment)
		return -errno;
	rc = visit_fragment(fragment_path, fragment, count_setting, &settings, why, why_len);
	free(fragment);
	return rc;
}

int kbuild_merge_fragment(const char *config_path, const char *fragment_path, char *why,
			  size_t why_len)
{
	char *fragment = read_fragment(fragment_path, why, why_len);
	unsigned int settings = 0;
	FILE *config;
	int rc;

	if (!fragment)
		return -errno;
	rc = visit_fragment(fragment_path, fragment, count_setting, &settings, why, why_len);
	config = rc ? NULL : fopen(config_path, "a");
	if (!rc && !config) {
		rc = -errno;
		snprintf(why, why_len, "cannot open %s to add the fragment: %s", config_path,
			 strerror(errno));
	}
	if (config) {
		fprintf(config, "\n# rackbisect: %u settings from %s\n%s%s", settings, fragment_path,
			fragment, fragment[0] && fragment[strlen(fragment) - 1] != '\n' ? "\n" : "");
		if (fclose(config) != 0) {
			rc = -errno;
			snprintf(why, why_len, "writing %s: %s", config_path, strerror(errno));
		}
	}
	free(fragment);
	return rc;
}

struct check {
	const char *config;
	char *why;
	size_t why_len;
};

static int check_setting(const char *line, size_t length, enum fragment_line kind,
			 const char *symbol, size_t symbol_length, const char *value,
			 size_t value_length, void *arg)
{
	struct check *check = arg;
	size_t found_length = 0;
	const char *found = config_value(check->config, symbol, symbol_length, &found_length);

	if (kind == FRAGMENT_SET && found && found_length == value_length &&
	    strncmp(found, value, value_length) == 0)
		return 0;
	if (kind == FRAGMENT_UNSET && (!found || (found_length == 1 && *found == 'n')))
		return 0;
	if (found)	/* the whole "CONFIG_X=value" line of the .config */
		snprintf(check->why, check->why_len, "the config fragment asks for '%.*s' but "
			 "olddefconfig made it '%.*s': a dependency is not met", (int)length, line,
			 (int)(symbol_length + 1 + found_length), found - symbol_length - 1);
	else
		snprintf(check->why, check->why_len, "the config fragment asks for '%.*s' but "
			 "olddefconfig left %.*s not set: a dependency is not met, or this tree "
			 "has no such symbol", (int)length, line, (int)symbol_length, symbol);
	return -ENOEXEC;
}

int kbuild_check_fragment(const char *config_path, const char *fragment_path, char *why,
			  size_t why_len)
{
	char *fragment = read_fragment(fragment_path, why, why_len);
	struct check check = { NULL, why, why_len };
	int rc;

	if (!fragment)
		return -errno;
	check.config = files_read_text(config_path);
	if (!check.config) {
		rc = -errno;
		snprintf(why, why_len, "cannot read %s after olddefconfig: %s", config_path,
			 strerror(errno));
	} else {
		unsigned int settings = 0;

		/* every line read before any is judged: a typo is named as such */
		rc = visit_fragment(fragment_path, fragment, count_setting, &settings, why, why_len);
		if (!rc)
			rc = visit_fragment(fragment_path, fragment, check_setting, &check, why,
					    why_len);
	}
	free((char *)check.config);
	free(fragment);
	return rc;
}

/* ---- the recipe's name ----------------------------------------------------- */

/* FNV-1a, 64 bits: stable across machines, enough to tell recipes apart. */
static uint64_t hash_bytes(uint64_t hash, const void *data, size_t length)
{
	const unsigned char *byte = data;

	while (length--)
		hash = (hash ^ *byte++) * UINT64_C(0x100000001b3);
	return hash;
}

/* Each string with its terminating NUL, so that ("ab","c") and ("a","bc") differ. */
static uint64_t hash_string(uint64_t hash, const char *text)
{
	return text ? hash_bytes(hash, text, strlen(text) + 1) : hash_bytes(hash, "", 1);
}

static uint64_t hash_words(uint64_t hash, char *const *words)
{
	for (; words && *words; words++)
		hash = hash_string(hash, *words);
	return hash_bytes(hash, "\n", 1);
}

int kbuild_recipe_id(const struct kbuild_recipe *recipe, char *const *make_words,
		     const char *artifact, const char *release_file, char id[17])
{
	uint64_t hash = UINT64_C(0xcbf29ce484222325);
	char *fragment = NULL;

	if (recipe->fragment && !(fragment = files_read_text(recipe->fragment)))
		return -errno;
	hash = hash_string(hash, "kbuild 1");
	hash = hash_words(hash, make_words);
	hash = hash_string(hash, recipe->config_target);
	hash = hash_string(hash, fragment);
	hash = hash_words(hash, recipe->targets);
	hash = hash_string(hash, recipe->modules ? "modules" : "no modules");
	hash = hash_string(hash, artifact);
	hash = hash_string(hash, release_file);
	free(fragment);
	snprintf(id, 17, "%016llx", (unsigned long long)hash);
	return 0;
}
