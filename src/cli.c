/* cli.c - global options, option parsing and the files every command finds. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uv.h>

#include "git_ref.h"
#include "path.h"
#include "store.h"
#include "subprocess.h"
#include "terminal_text.h"

void cli_error(const char *format, ...)
{
	va_list args;

	/* errors quote refs, paths and answers from boards and servers */
	fputs("rackbisect: ", stderr);
	va_start(args, format);
	terminal_vprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
}

int cli_parse_number(const char *text, double low, double high, const char *what, double *out)
{
	char *end;
	double value;

	if (!text)
		return 0;
	value = strtod(text, &end);
	if (*end || !(value >= low && value <= high)) {
		cli_error("%s must be a number in %g..%g, not '%s'", what, low, high, text);
		return CLI_EXIT_USAGE;
	}
	*out = value;
	return 0;
}

int cli_parse_stated_rates(const struct cli_stated_rates *stated, double *p, double *epsilon)
{
	int rc;

	if (stated->deterministic && (stated->detect_rate || stated->false_fail_rate)) {
		cli_error("--deterministic states both rates (1 and 0): drop --detect-rate and "
			  "--false-fail-rate, or --deterministic");
		return CLI_EXIT_USAGE;
	}
	if (stated->deterministic) {
		*p = 1;
		*epsilon = 0;
		return 0;
	}
	if ((rc = cli_parse_number(stated->detect_rate, 1e-6, 1, "--detect-rate", p)) ||
	    (rc = cli_parse_number(stated->false_fail_rate, 0, 0.999999, "--false-fail-rate",
				   epsilon)))
		return rc;
	if (stated->detect_rate && stated->false_fail_rate && *p <= *epsilon) {
		cli_error("--detect-rate %s must be above --false-fail-rate %s: a bad commit fails "
			  "more often than a good one", stated->detect_rate, stated->false_fail_rate);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static const struct cli_option *find_option(const struct cli_option *options, const char *name,
					    size_t length)
{
	for (; options && options->name; options++) {
		if (strlen(options->name) == length && strncmp(options->name, name, length) == 0)
			return options;
	}
	return NULL;
}

/* Whether usage names --name (followed by a space, ']', '=' or the line's end). */
static bool usage_offers(const char *usage, const char *name, size_t length)
{
	const char *at;

	for (at = strstr(usage, "--"); at; at = strstr(at + 2, "--")) {
		char after = at[2 + length];

		if (strncmp(at + 2, name, length) == 0 &&
		    (after == ' ' || after == ']' || after == '=' || after == '\n' || after == '\0'))
			return true;
	}
	return false;
}

/* The outputs --json, --junit and --tree are taken only by the commands
 * whose usage offers them, so none is accepted and then ignored. */
static int global_option(struct cli_globals *globals, const char *usage, const char *name, size_t length,
			 const char ***value, bool **flag)
{
	const struct { const char *name; const char **value; bool *flag; bool offered_only; } table[] = {
		{ "lab", &globals->lab_option, NULL, false },
		{ "tree", &globals->tree, NULL, true },
		{ "state", &globals->state, NULL, false },
		{ "junit", &globals->junit, NULL, true },
		{ "json", NULL, &globals->json, true },
		{ "verbose", NULL, &globals->verbose, false },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strlen(table[i].name) == length && strncmp(table[i].name, name, length) == 0) {
			if (table[i].offered_only && !usage_offers(usage, name, length))
				return -ENOENT;
			*value = table[i].value;
			*flag = table[i].flag;
			return 0;
		}
	}
	return -ENOENT;
}

static int usage_error(const char *usage, const char *format, const char *what)
{
	fputs("rackbisect: ", stderr);
	fprintf(stderr, format, what);
	fprintf(stderr, "\n%s", usage);
	return CLI_EXIT_USAGE;
}

int cli_parse(int argc, char **argv, const struct cli_option *options, struct cli_globals *globals,
	      const char **positional, size_t max_positional, size_t *positional_count,
	      const char *usage)
{
	bool options_ended = false;
	int i;

	*positional_count = 0;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *name, *equals;
		const char **value = NULL;
		bool *flag = NULL;
		size_t length;

		if (options_ended || arg[0] != '-' || arg[1] == '\0') {
			if (*positional_count == max_positional)
				return usage_error(usage, "unexpected argument '%s'", arg);
			positional[(*positional_count)++] = arg;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			options_ended = true;
			continue;
		}
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			fputs(usage, stdout);
			return -1;
		}
		if (strcmp(arg, "-v") == 0) {
			globals->verbose = true;
			continue;
		}
		if (arg[1] != '-')
			return usage_error(usage, "unknown option '%s'", arg);
		name = arg + 2;
		equals = strchr(name, '=');
		length = equals ? (size_t)(equals - name) : strlen(name);
		const struct cli_option *own = find_option(options, name, length);
		const char *list_value = NULL;
		if (own && own->list) {
			value = &list_value;
		} else if (own) {
			value = own->value;
			flag = own->flag;
		} else if (global_option(globals, usage, name, length, &value, &flag) != 0) {
			return usage_error(usage, "unknown option '%s'", arg);
		}
		if (flag) {
			if (equals)
				return usage_error(usage, "option '%s' takes no value", arg);
			*flag = true;
		} else if (equals) {
			*value = equals + 1;
		} else if (i + 1 < argc) {
			*value = argv[++i];
		} else {
			return usage_error(usage, "option '%s' needs a value", arg);
		}
		if (own && own->list) {
			if (*own->list_count == own->list_max)
				return usage_error(usage, "option '%s' is given too often", arg);
			own->list[(*own->list_count)++] = list_value;
		}
	}
	return 0;
}

int cli_find_file(const char *path, char *out, size_t len)
{
	const char *relative[1];
	char inside[PATH_MAX];

	if (access(path, R_OK) == 0 || path[0] == '/')
		return path_format(out, len, "%s", path);
	/* build/rackbisect and build/asan/rackbisect: the checkout is one or two up */
	if (path_format(inside, sizeof(inside), "/../%s", path))
		return -ENAMETOOLONG;
	relative[0] = inside;
	if (path_beside_self(relative, 1, R_OK, out, len) == 0)
		return 0;
	if (path_format(inside, sizeof(inside), "/../../%s", path))
		return -ENAMETOOLONG;
	if (path_beside_self(relative, 1, R_OK, out, len) == 0)
		return 0;
	return path_format(out, len, "%s", path);
}

struct lab *cli_load_lab(struct cli_globals *globals)
{
	char error[1024];
	struct lab *lab;

	cli_find_file(globals->lab_option ? globals->lab_option : "labs/virtual.yaml",
		      globals->lab_path, sizeof(globals->lab_path));
	if (lab_load(globals->lab_path, &lab, error, sizeof(error)) != 0) {
		fprintf(stderr, "rackbisect: %s\n", error);
		return NULL;
	}
	return lab;
}

struct job *cli_load_job(const char *path)
{
	char found[PATH_MAX], error[1024];
	struct job *job;

	cli_find_file(path, found, sizeof(found));
	if (job_load(found, &job, error, sizeof(error)) != 0) {
		fprintf(stderr, "rackbisect: %s\n", error);
		return NULL;
	}
	return job;
}

int cli_state(const struct lab *lab, const struct cli_globals *globals, struct lab_state *state,
	      char *database, size_t database_len)
{
	int rc = lab_state_locate(lab, globals->state, state);

	if (rc) {
		cli_error("no state directory: give --state DIR or set HOME");
		return rc;
	}
	if ((rc = path_make_dirs(state->base)) || chmod(state->base, 0700) != 0) {
		rc = rc ? rc : -errno;
		cli_error("cannot create the state directory %s: %s", state->base, strerror(-rc));
		return rc;
	}
	return path_format(database, database_len, "%s/state.db", state->base);
}

int cli_open_state_store(struct cli_globals *globals, struct store **store, char *database,
			 size_t database_len)
{
	struct lab *lab = cli_load_lab(globals);
	struct lab_state state;
	int rc;

	*store = NULL;
	if (!lab)
		return CLI_EXIT_USAGE;
	rc = cli_state(lab, globals, &state, database, database_len);
	lab_free(lab);
	if (rc)
		return CLI_EXIT_INFRA;
	if ((rc = store_open(database, store)) != 0) {
		cli_error("%s", *store ? store_error_message(*store) : strerror(-rc));
		store_close(*store);
		*store = NULL;
		return CLI_EXIT_INFRA;
	}
	return 0;
}

int cli_workload_dir(char *out, size_t len)
{
	static const char *const relative[] = { "/../drivers/workload", "/../../drivers/workload" };

	return path_beside_self(relative, 2, R_OK, out, len);
}

int cli_vlab_program(char *out, size_t len)
{
	static const char *const relative[] = { "/rackbisect-vlab", "/../rackbisect-vlab" };
	const char *chosen = getenv("RACKBISECT_VLAB");

	/* tests drive a sanitized coordinator against unsanitized boards */
	if (chosen && *chosen)
		return path_format(out, len, "%s", chosen);

	return path_beside_self(relative, 2, X_OK, out, len);
}

static void on_child_exit(uv_process_t *process, int64_t exit_status, int term_signal)
{
	int *status = process->data;

	*status = term_signal ? 128 + term_signal : (int)exit_status;
	uv_close((uv_handle_t *)process, NULL);
}

int cli_spawn_wait(char *const argv[])
{
	uv_stdio_container_t stdio[3] = {
		{ .flags = UV_INHERIT_FD, .data.fd = 0 },
		{ .flags = UV_INHERIT_FD, .data.fd = 1 },
		{ .flags = UV_INHERIT_FD, .data.fd = 2 },
	};
	uv_process_options_t options = { .file = argv[0], .args = (char **)argv,
					  .stdio = stdio, .stdio_count = 3, .exit_cb = on_child_exit };
	uv_process_t process;
	uv_loop_t loop;
	int status = -1, rc;

	fflush(NULL);
	uv_loop_init(&loop);
	process.data = &status;
	rc = uv_spawn(&loop, &process, &options);
	if (rc)
		uv_close((uv_handle_t *)&process, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	return rc ? rc : status;
}

char *cli_commit_id(const char *tree, const char *ref)
{
	char spec[GIT_REF_MAX + 16], *output = NULL;
	char *argv[] = { "git", "-C", (char *)tree, "rev-parse", "--verify", "--quiet", spec, NULL };

	if (git_ref_check(ref, spec, sizeof(spec))) {
		cli_error("%s", spec);
		return NULL;
	}
	snprintf(spec, sizeof(spec), "%s^{commit}", ref);
	if (subprocess_run(argv, NULL, &output) != 0 || !output) {
		free(output);
		cli_error("%s names no commit in %s", ref, tree);
		return NULL;
	}
	output[strcspn(output, "\n")] = '\0';
	return output;
}

json_t *cli_absolute_path_json(const char *path)
{
	char resolved[PATH_MAX];

	return path && realpath(path, resolved) ? json_string(resolved) : json_null();
}
