/* job.c - see job.h. */
#include "lava/job.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "transport/shell_quote.h"

#define LIBRARY_END "RACKBISECT_LIB_EOF"
#define SCRIPT_END "RACKBISECT_SCRIPT_EOF"

/*
 * The KTAP lines as LAVA test cases, in the device's own sh (LAVA runs the
 * steps with `set -e`: nothing here may fail). Names keep the characters
 * LAVA allows in a test case name.
 */
static const char ktap_to_cases[] =
	"rb_case_name() { printf '%s' \"$1\" | tr -c 'A-Za-z0-9_.-' '_'; }\n"
	"rb_lava_cases() {\n"
	"\twhile IFS= read -r line; do\n"
	"\t\tcase $line in\n"
	"\t\t'ok '*|'not ok '*)\n"
	"\t\t\tresult=pass; rest=${line#ok }\n"
	"\t\t\tcase $line in 'not ok '*) result=fail; rest=${line#not ok } ;; esac\n"
	"\t\t\tnumber=${rest%% *}; name=${rest#\"$number\"}; name=${name# }; name=${name#- }\n"
	"\t\t\tcase $name in *'# SKIP'*|*'# skip'*) result=skip ;; esac\n"
	"\t\t\tname=${name%%#*}; name=${name% }\n"
	"\t\t\tlava-test-case \"$(rb_case_name \"$number-$name\")\" --result \"$result\" || true ;;\n"
	"\t\t'# metric '*)\n"
	"\t\t\trest=${line#'# metric '}; name=${rest%%=*}; value=${rest#*=}\n"
	"\t\t\tunit=${value#* }; value=${value%% *}\n"
	"\t\t\tlava-test-case \"metric-$(rb_case_name \"$name\")\" --result pass "
	"--measurement \"$value\" --units \"$unit\" || true ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"}\n";

/* ---- a growing text ------------------------------------------------------------------------- */

struct text {
	char *data;
	size_t length, size;
	bool failed;
};

static void append(struct text *text, const char *data, size_t length)
{
	if (text->failed)
		return;
	if (text->length + length + 1 > text->size) {
		size_t size = text->size ? text->size : 4096;
		char *grown;

		while (size < text->length + length + 1)
			size *= 2;
		grown = realloc(text->data, size);
		if (!grown) {
			text->failed = true;
			return;
		}
		text->data = grown;
		text->size = size;
	}
	memcpy(text->data + text->length, data, length);
	text->length += length;
	text->data[text->length] = '\0';
}

static void append_string(struct text *text, const char *string)
{
	append(text, string, strlen(string));
}

/* A here-document's body ends with a newline before its end line. */
static void append_heredoc(struct text *text, const char *file, const char *body, const char *end)
{
	append_string(text, "cat >");
	append_string(text, file);
	append_string(text, " <<'");
	append_string(text, end);
	append_string(text, "'\n");
	append_string(text, body);
	if (!*body || body[strlen(body) - 1] != '\n')
		append_string(text, "\n");
	append_string(text, end);
	append_string(text, "\n");
}

/* ---- checks ------------------------------------------------------------------------------ */

static bool has_line(const char *text, const char *line)
{
	size_t length = strlen(line);
	const char *at;

	for (at = strstr(text, line); at; at = strstr(at + 1, line))
		if ((at == text || at[-1] == '\n') && (at[length] == '\n' || at[length] == '\0'))
			return true;
	return false;
}

/* A script's file name on the device: plain, so it needs no quoting. */
static bool is_plain_name(const char *name)
{
	return name && *name && name[0] != '-' && name[0] != '.' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
		       strlen(name);
}

static int check_spec(const struct lava_job_spec *spec, char *error, size_t error_len)
{
	if (!spec->job_name || !spec->device_type || !*spec->device_type || !spec->priority ||
	    !spec->script_text || !spec->library_text || !spec->job_timeout_seconds ||
	    !spec->test_timeout_seconds) {
		snprintf(error, error_len, "a LAVA job needs a name, device type, priority, "
			 "timeouts, the script and lib.sh");
		return -EINVAL;
	}
	if (!is_plain_name(spec->script_name) || !is_plain_name(spec->workload_name)) {
		snprintf(error, error_len, "workload '%s' (%s): LAVA test definitions need plain "
			 "names (letters, digits, . _ -)", spec->workload_name ? spec->workload_name
			 : "?", spec->script_name ? spec->script_name : "?");
		return -EINVAL;
	}
	if (has_line(spec->script_text, SCRIPT_END) || has_line(spec->library_text, LIBRARY_END)) {
		snprintf(error, error_len, "workload %s: its text holds the line %s or %s that "
			 "ends its here-document", spec->workload_name, SCRIPT_END, LIBRARY_END);
		return -EINVAL;
	}
	return 0;
}

/* ---- the test step --------------------------------------------------------------------------- */

static int compose_step(const struct lava_job_spec *spec, char **step_out)
{
	struct text text = { 0 };
	const char **words;
	char *command = NULL;
	size_t count = 0, i;
	int rc;

	for (i = 0; spec->args && spec->args[i]; i++)
		count++;
	words = calloc(count + 3, sizeof(*words));
	if (!words)
		return -ENOMEM;
	words[0] = "sh";
	words[1] = spec->script_name;
	for (i = 0; i < count; i++)
		words[i + 2] = spec->args[i];
	rc = shell_quote_argv(words, &command);
	free(words);
	if (rc)
		return rc;
	append_string(&text, "set +x\n"
			     "rb_dir=$(mktemp -d \"${TMPDIR:-/tmp}/rackbisect.XXXXXX\") && cd \"$rb_dir\"\n");
	append_heredoc(&text, "lib.sh", spec->library_text, LIBRARY_END);
	append_heredoc(&text, spec->script_name, spec->script_text, SCRIPT_END);
	append_string(&text, ktap_to_cases);
	append_string(&text, "echo " LAVA_KTAP_BEGIN "\nrb_status=0\n");
	append_string(&text, command);
	append_string(&text, " >ktap.out 2>ktap.err || rb_status=$?\n"
			     "cat ktap.out\n"
			     "echo \"" LAVA_KTAP_END " status=$rb_status\"\n"
			     "sed 's/^/# stderr: /' ktap.err\n"
			     "rb_lava_cases <ktap.out\n"
			     "echo " LAVA_DMESG_BEGIN "\n"
			     "dmesg 2>&1 || true\n"
			     "echo " LAVA_DMESG_END "\n");
	free(command);
	if (text.failed) {
		free(text.data);
		return -ENOMEM;
	}
	*step_out = text.data;
	return 0;
}

/* ---- YAML --------------------------------------------------------------------------------- */

struct emitter {
	yaml_emitter_t emitter;
	struct text output;
	bool failed;
};

static int write_output(void *data, unsigned char *buffer, size_t size)
{
	struct emitter *e = data;

	append(&e->output, (const char *)buffer, size);
	return !e->output.failed;
}

static void emit(struct emitter *e, yaml_event_t *event, int made)
{
	if (e->failed)
		return;
	if (!made || !yaml_emitter_emit(&e->emitter, event))
		e->failed = true;
}

static void scalar_styled(struct emitter *e, const char *value, yaml_scalar_style_t style)
{
	yaml_event_t event;

	emit(e, &event, yaml_scalar_event_initialize(&event, NULL, NULL, (yaml_char_t *)value,
						     (int)strlen(value), 1, 1, style));
}

static void scalar(struct emitter *e, const char *value)
{
	scalar_styled(e, value, YAML_ANY_SCALAR_STYLE);
}

static void begin_map(struct emitter *e)
{
	yaml_event_t event;

	emit(e, &event, yaml_mapping_start_event_initialize(&event, NULL, NULL, 1,
							    YAML_BLOCK_MAPPING_STYLE));
}

static void end_map(struct emitter *e)
{
	yaml_event_t event;

	emit(e, &event, yaml_mapping_end_event_initialize(&event));
}

static void begin_list(struct emitter *e)
{
	yaml_event_t event;

	emit(e, &event, yaml_sequence_start_event_initialize(&event, NULL, NULL, 1,
							     YAML_BLOCK_SEQUENCE_STYLE));
}

static void end_list(struct emitter *e)
{
	yaml_event_t event;

	emit(e, &event, yaml_sequence_end_event_initialize(&event));
}

static void pair(struct emitter *e, const char *key, const char *value)
{
	scalar(e, key);
	scalar(e, value);
}

/* key: {seconds: N} (LAVA's timeout form). */
static void timeout(struct emitter *e, const char *key, unsigned int seconds)
{
	char number[16];

	snprintf(number, sizeof(number), "%u", seconds);
	scalar(e, key);
	begin_map(e);
	pair(e, "seconds", number);
	end_map(e);
}

static void emit_actions(struct emitter *e, const struct lava_job_spec *spec, const char *step)
{
	char name[128], path[160];

	snprintf(name, sizeof(name), "rackbisect-%s", spec->workload_name);
	snprintf(path, sizeof(path), "inline/%s.yaml", name);
	scalar(e, "actions");
	begin_list(e);
	/* the device type's own way onto the device and into its shell */
	begin_map(e);
	scalar(e, "deploy");
	begin_map(e);
	pair(e, "to", "ssh");
	pair(e, "os", "debian");
	timeout(e, "timeout", 300);
	end_map(e);
	end_map(e);
	begin_map(e);
	scalar(e, "boot");
	begin_map(e);
	pair(e, "method", "ssh");
	pair(e, "connection", "ssh");
	scalar(e, "prompts");
	begin_list(e);
	scalar(e, "root@");
	scalar(e, "# ");
	end_list(e);
	timeout(e, "timeout", 300);
	end_map(e);
	end_map(e);
	/* the workload */
	begin_map(e);
	scalar(e, "test");
	begin_map(e);
	timeout(e, "timeout", spec->test_timeout_seconds);
	scalar(e, "definitions");
	begin_list(e);
	begin_map(e);
	pair(e, "from", "inline");
	pair(e, "name", name);
	pair(e, "path", path);
	scalar(e, "repository");
	begin_map(e);
	scalar(e, "metadata");
	begin_map(e);
	pair(e, "format", "Lava-Test Test Definition 1.0");
	pair(e, "name", name);
	pair(e, "description", "rackbisect workload, KTAP read back by the coordinator");
	end_map(e);
	scalar(e, "run");
	begin_map(e);
	scalar(e, "steps");
	begin_list(e);
	scalar_styled(e, step, YAML_LITERAL_SCALAR_STYLE);
	end_list(e);
	end_map(e);
	end_map(e);
	end_map(e);
	end_list(e);
	end_map(e);
	end_map(e);
	end_list(e);
}

static void emit_job(struct emitter *e, const struct lava_job_spec *spec, const char *step)
{
	yaml_event_t event;
	size_t i;

	emit(e, &event, yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING));
	emit(e, &event, yaml_document_start_event_initialize(&event, NULL, NULL, NULL, 1));
	begin_map(e);
	pair(e, "job_name", spec->job_name);
	pair(e, "device_type", spec->device_type);
	if (spec->tags && spec->tags[0]) {
		scalar(e, "tags");
		begin_list(e);
		for (i = 0; spec->tags[i]; i++)
			scalar(e, spec->tags[i]);
		end_list(e);
	}
	pair(e, "priority", spec->priority);
	pair(e, "visibility", "public");
	scalar(e, "timeouts");
	begin_map(e);
	timeout(e, "job", spec->job_timeout_seconds);
	timeout(e, "action", spec->job_timeout_seconds);
	timeout(e, "connection", 120);
	end_map(e);
	emit_actions(e, spec, step);
	end_map(e);
	emit(e, &event, yaml_document_end_event_initialize(&event, 1));
	emit(e, &event, yaml_stream_end_event_initialize(&event));
}

int lava_job_definition(const struct lava_job_spec *spec, char **yaml_out, char *error,
			size_t error_len)
{
	struct emitter e = { 0 };
	char *step = NULL;
	int rc = check_spec(spec, error, error_len);

	if (rc)
		return rc;
	rc = compose_step(spec, &step);
	if (rc) {
		snprintf(error, error_len, "no memory for the job of %s", spec->workload_name);
		return rc;
	}
	if (!yaml_emitter_initialize(&e.emitter)) {
		free(step);
		return -ENOMEM;
	}
	yaml_emitter_set_output(&e.emitter, write_output, &e);
	yaml_emitter_set_unicode(&e.emitter, 1);
	yaml_emitter_set_width(&e.emitter, -1);
	emit_job(&e, spec, step);
	yaml_emitter_delete(&e.emitter);
	free(step);
	if (e.failed || e.output.failed) {
		free(e.output.data);
		snprintf(error, error_len, "the job of %s could not be written as YAML (text that "
			 "is not UTF-8?)", spec->workload_name);
		return -EINVAL;
	}
	*yaml_out = e.output.data;
	return 0;
}
