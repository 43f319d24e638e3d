/* results.c - see results.h. */
#include "lava/results.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lava/job.h"

/* ---- the job --------------------------------------------------------------------------------- */

static void copy_string(json_t *object, const char *key, char *out, size_t len)
{
	const char *value = json_string_value(json_object_get(object, key));

	snprintf(out, len, "%s", value ? value : "");
}

int lava_job_state_parse(const char *json, struct lava_job_state *state, char *error,
			 size_t error_len)
{
	json_t *job = json_loads(json, 0, NULL);

	memset(state, 0, sizeof(*state));
	if (!json_is_object(job) || !json_is_string(json_object_get(job, "state"))) {
		snprintf(error, error_len, "LAVA's answer is not a job (no \"state\"): %.200s", json);
		json_decref(job);
		return -EINVAL;
	}
	copy_string(job, "state", state->state, sizeof(state->state));
	copy_string(job, "health", state->health, sizeof(state->health));
	copy_string(job, "actual_device", state->device, sizeof(state->device));
	copy_string(job, "failure_comment", state->failure_comment, sizeof(state->failure_comment));
	json_decref(job);
	if (strcmp(state->state, "Finished") == 0)
		state->phase = LAVA_JOB_FINISHED;
	else if (strcmp(state->state, "Running") == 0 || strcmp(state->state, "Canceling") == 0)
		state->phase = LAVA_JOB_RUNNING;
	else
		state->phase = LAVA_JOB_QUEUED;
	return 0;
}

/* ---- why it failed ------------------------------------------------------------------------ */

/* A case's metadata is a YAML mapping in a string (LAVA stores it so), or an object. */
static void metadata_value(json_t *metadata, const char *key, char *out, size_t len)
{
	const char *text = json_string_value(metadata);
	yaml_parser_t parser;
	yaml_document_t document;
	yaml_node_t *root;

	out[0] = '\0';
	if (json_is_object(metadata)) {
		copy_string(metadata, key, out, len);
		return;
	}
	if (!text || !yaml_parser_initialize(&parser))
		return;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	if (yaml_parser_load(&parser, &document)) {
		root = yaml_document_get_root_node(&document);
		for (yaml_node_pair_t *pair = root && root->type == YAML_MAPPING_NODE
			     ? root->data.mapping.pairs.start : NULL;
		     pair && pair < root->data.mapping.pairs.top; pair++) {
			yaml_node_t *name = yaml_document_get_node(&document, pair->key);
			yaml_node_t *value = yaml_document_get_node(&document, pair->value);

			if (name->type == YAML_SCALAR_NODE && value->type == YAML_SCALAR_NODE &&
			    strcmp((char *)name->data.scalar.value, key) == 0)
				snprintf(out, len, "%s", (char *)value->data.scalar.value);
		}
		yaml_document_delete(&document);
	}
	yaml_parser_delete(&parser);
}

/* A case of LAVA's own suite: /tests/ gives the suite as a number, the
 * case's metadata says "definition: lava". */
static bool in_lava_suite(json_t *test)
{
	const char *suite = json_string_value(json_object_get(test, "suite"));
	char definition[64];

	if (suite && strcmp(suite, "lava") == 0)
		return true;
	metadata_value(json_object_get(test, "metadata"), "definition", definition,
		       sizeof(definition));
	return strcmp(definition, "lava") == 0;
}

int lava_job_error_parse(const char *json, struct lava_job_error *error_out)
{
	json_t *page = json_loads(json, 0, NULL), *results, *test;
	size_t index;
	int rc = -ENOENT;

	memset(error_out, 0, sizeof(*error_out));
	if (!page) {
		return -EINVAL;
	}
	results = json_is_array(page) ? page : json_object_get(page, "results");
	json_array_foreach(results, index, test) {
		json_t *metadata = json_object_get(test, "metadata");
		const char *name = json_string_value(json_object_get(test, "name"));

		if (!name || strcmp(name, "job") != 0 || !in_lava_suite(test))
			continue;
		metadata_value(metadata, "error_type", error_out->type, sizeof(error_out->type));
		metadata_value(metadata, "error_msg", error_out->message, sizeof(error_out->message));
		rc = 0;
	}
	/* the action that ended the job: the failing lava case just before */
	json_array_foreach(results, index, test) {
		const char *name = json_string_value(json_object_get(test, "name"));
		const char *result = json_string_value(json_object_get(test, "result"));

		if (rc == 0 && name && result && strcmp(name, "job") != 0 &&
		    strcmp(result, "fail") == 0 && in_lava_suite(test))
			snprintf(error_out->action, sizeof(error_out->action), "%s", name);
	}
	json_decref(page);
	return rc;
}

enum lava_verdict lava_classify(const struct lava_job_state *state,
				const struct lava_job_error *error)
{
	const char *type = error ? error->type : "";

	if (strcmp(state->health, "Complete") == 0)
		return LAVA_RAN;
	if (strcmp(state->health, "Canceled") == 0)
		return LAVA_INFRA;
	/* the test shell ran out of time (LAVA 2023.01 says Test, with "lava-test-shell
	 * timed out after N seconds"; older ones LAVATimeout): the workload stopped */
	if ((strcmp(type, "Test") == 0 || strcmp(type, "LAVATimeout") == 0) && error &&
	    (strstr(error->message, "lava-test-shell timed out") ||
	     strstr(error->action, "lava-test-")))
		return LAVA_HANG;
	if (strcmp(type, "Job") == 0 || strcmp(type, "Configuration") == 0 ||
	    strcmp(type, "Test") == 0)
		return LAVA_REFUSED;
	return LAVA_INFRA;
}

/* ---- the device's output ---------------------------------------------------------------- */

struct growing {
	char *data;
	size_t length, size;
};

static int add_line(struct growing *text, const char *line)
{
	size_t length = strlen(line);

	if (text->length + length + 2 > text->size) {
		size_t size = text->size ? text->size * 2 : 4096;
		char *grown;

		while (size < text->length + length + 2)
			size *= 2;
		grown = realloc(text->data, size);
		if (!grown)
			return -ENOMEM;
		text->data = grown;
		text->size = size;
	}
	memcpy(text->data + text->length, line, length);
	text->length += length;
	text->data[text->length++] = '\n';
	text->data[text->length] = '\0';
	return 0;
}

enum section { BEFORE, IN_KTAP, AFTER_KTAP, IN_DMESG, DONE };

struct cutter {
	struct lava_step_said deploy, booted;
	struct growing console, ktap, dmesg;
	enum section section;
	bool ktap_seen, dmesg_seen;
	int status;
	size_t lines;
};

/* "MARKER ok: detail" and its kin into said; false when line is not one. */
static bool take_step_line(const char *line, const char *marker, struct lava_step_said *said)
{
	static const struct {
		const char *word;
		enum lava_step step;
	} words[] = {
		{ "ok", LAVA_STEP_OK }, { "waiting", LAVA_STEP_WAITING }, { "failed", LAVA_STEP_FAILED },
	};
	size_t length = strlen(marker), i;

	if (strncmp(line, marker, length) != 0 || line[length] != ' ')
		return false;
	line += length + 1;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t word = strlen(words[i].word);

		if (strncmp(line, words[i].word, word) == 0 && (line[word] == ':' || !line[word])) {
			said->step = words[i].step;
			line += word;
			line += strspn(line, ": ");
			snprintf(said->detail, sizeof(said->detail), "%s", line);
			return true;
		}
	}
	return false;
}

/* One line the device printed. */
static int take_line(struct cutter *cut, const char *line)
{
	int rc = add_line(&cut->console, line);

	cut->lines++;
	if (rc)
		return rc;
	if (cut->section == BEFORE && (take_step_line(line, LAVA_DEPLOY, &cut->deploy) ||
				       take_step_line(line, LAVA_BOOTED, &cut->booted)))
		return 0;
	if (strcmp(line, LAVA_KTAP_BEGIN) == 0 && cut->section == BEFORE) {
		cut->section = IN_KTAP;
		cut->ktap_seen = true;
	} else if (strncmp(line, LAVA_KTAP_END " status=", strlen(LAVA_KTAP_END " status=")) == 0 &&
		   cut->section == IN_KTAP) {
		cut->status = atoi(line + strlen(LAVA_KTAP_END " status="));
		cut->section = AFTER_KTAP;
	} else if (strcmp(line, LAVA_DMESG_BEGIN) == 0 &&
		   (cut->section == AFTER_KTAP || cut->section == BEFORE)) {
		/* BEFORE: the build did not come up as itself, so no workload ran */
		cut->section = IN_DMESG;
		cut->dmesg_seen = true;
	} else if (strcmp(line, LAVA_DMESG_END) == 0 && cut->section == IN_DMESG) {
		cut->section = DONE;
	} else if (cut->section == IN_KTAP) {
		return add_line(&cut->ktap, line);
	} else if (cut->section == IN_DMESG) {
		return add_line(&cut->dmesg, line);
	}
	return 0;
}

/*
 * The log is a YAML list of {dt, lvl, msg}; only lvl "target" lines are
 * the device's. Read as a stream of events: a log is megabytes.
 */
static int read_log(yaml_parser_t *parser, struct cutter *cut, char *error, size_t error_len)
{
	char key[16] = "", level[32] = "", *message = NULL;
	int depth = 0, rc = 0;
	bool done = false, expect_value = false;

	while (!done && !rc) {
		yaml_event_t event;

		if (!yaml_parser_parse(parser, &event)) {
			snprintf(error, error_len, "the LAVA log is not YAML at line %zu: %s",
				 parser->problem_mark.line + 1,
				 parser->problem ? parser->problem : "?");
			rc = -EINVAL;
			break;
		}
		switch (event.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			depth++;
			if (depth == 2 && event.type == YAML_MAPPING_START_EVENT) {
				level[0] = '\0';
				free(message);
				message = NULL;
			}
			expect_value = false;	/* a nested msg is not a line */
			break;
		case YAML_MAPPING_END_EVENT:
			if (depth == 2 && strcmp(level, "target") == 0 && message)
				rc = take_line(cut, message);
			/* fall through */
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			break;
		case YAML_SCALAR_EVENT:
			if (depth == 2 && !expect_value) {
				snprintf(key, sizeof(key), "%s", (char *)event.data.scalar.value);
				expect_value = true;
			} else if (depth == 2) {
				if (strcmp(key, "lvl") == 0)
					snprintf(level, sizeof(level), "%s",
						 (char *)event.data.scalar.value);
				else if (strcmp(key, "msg") == 0 &&
					 !(message = strdup((char *)event.data.scalar.value)))
					rc = -ENOMEM;
				expect_value = false;
			}
			break;
		default:
			break;
		}
		yaml_event_delete(&event);
	}
	free(message);
	return rc;
}

int lava_output_parse(const char *log_yaml, struct lava_output *output, char *error,
		      size_t error_len)
{
	struct cutter cut = { .status = -1 };
	yaml_parser_t parser;
	int rc;

	memset(output, 0, sizeof(*output));
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)log_yaml, strlen(log_yaml));
	rc = read_log(&parser, &cut, error, error_len);
	yaml_parser_delete(&parser);
	if (rc) {
		free(cut.console.data);
		free(cut.ktap.data);
		free(cut.dmesg.data);
		return rc;
	}
	output->console = cut.console.data ? cut.console.data : strdup("");
	output->ktap = cut.ktap_seen ? (cut.ktap.data ? cut.ktap.data : strdup("")) : NULL;
	output->dmesg = cut.dmesg_seen ? (cut.dmesg.data ? cut.dmesg.data : strdup("")) : NULL;
	if (!cut.ktap_seen)
		free(cut.ktap.data);
	if (!cut.dmesg_seen)
		free(cut.dmesg.data);
	output->status = cut.ktap_seen && cut.section >= AFTER_KTAP ? cut.status : -1;
	output->deploy = cut.deploy;
	output->booted = cut.booted;
	output->lines = cut.lines;
	return output->console ? 0 : -ENOMEM;
}

void lava_output_free(struct lava_output *output)
{
	free(output->ktap);
	free(output->dmesg);
	free(output->console);
	memset(output, 0, sizeof(*output));
}
