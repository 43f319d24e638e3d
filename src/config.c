/* config.c - lab YAML -> struct lab, with file:line:col errors (libyaml). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct loader {
	const char *file;
	yaml_document_t document;
	char *error;
	size_t error_len;
};

void config_location_format(const struct config_location *where, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u:%u", where->file, where->line, where->column);
}

static struct config_location node_location(const struct loader *loader, const yaml_node_t *node)
{
	struct config_location where = { loader->file, (unsigned int)node->start_mark.line + 1,
					 (unsigned int)node->start_mark.column + 1 };
	return where;
}

__attribute__((format(printf, 3, 4)))
static int fail_at(struct loader *loader, const yaml_node_t *node, const char *fmt, ...)
{
	char where[512];
	struct config_location at = node_location(loader, node);
	size_t used;
	va_list args;

	config_location_format(&at, where, sizeof(where));
	used = (size_t)snprintf(loader->error, loader->error_len, "%s: ", where);
	if (used < loader->error_len) {
		va_start(args, fmt);
		vsnprintf(loader->error + used, loader->error_len - used, fmt, args);
		va_end(args);
	}
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *node)
{
	return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

static int expect_scalar(struct loader *loader, yaml_node_t *node, const char *what, char **out)
{
	const char *text = scalar(node);

	if (!text || !*text)
		return fail_at(loader, node, "%s must be a non-empty string", what);
	*out = strdup(text);
	return *out ? 0 : -ENOMEM;
}

static int expect_number(struct loader *loader, yaml_node_t *node, const char *what,
			 uint64_t max, uint64_t *out)
{
	const char *text = scalar(node);
	char *end;
	unsigned long long value;

	if (!text || !*text || *text == '-')
		return fail_at(loader, node, "%s must be a whole number", what);
	errno = 0;
	value = strtoull(text, &end, 0);
	if (errno || *end)
		return fail_at(loader, node, "%s must be a whole number, not '%s'", what, text);
	if (value > max)
		return fail_at(loader, node, "%s must be at most %" PRIu64 ", not %s", what, max, text);
	*out = value;
	return 0;
}

/* Calls visit(key, value) for each pair of a mapping node. */
typedef int (*pair_visitor)(struct loader *loader, const char *key, yaml_node_t *value, void *arg);

static int each_pair(struct loader *loader, yaml_node_t *map, const char *what,
		     pair_visitor visit, void *arg)
{
	yaml_node_pair_t *pair;

	if (!map || map->type != YAML_MAPPING_NODE)
		return fail_at(loader, map, "%s must be a mapping (key: value lines)", what);
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = yaml_document_get_node(&loader->document, pair->key);
		yaml_node_t *value = yaml_document_get_node(&loader->document, pair->value);
		const char *name = scalar(key);
		int rc;

		if (!name)
			return fail_at(loader, key, "keys of %s must be plain strings", what);
		rc = visit(loader, name, value, arg);
		if (rc)
			return rc;
	}
	return 0;
}

struct driver_setting {
	char **driver;
	const char *what;
	struct lab_board *board;	/* console: port lives here */
};

static int visit_driver(struct loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct driver_setting *setting = arg;
	uint64_t number;
	int rc;

	if (strcmp(key, "driver") == 0)
		return expect_scalar(loader, value, "driver", setting->driver);
	if (setting->board && strcmp(key, "port") == 0) {
		rc = expect_number(loader, value, "console port", 65535, &number);
		if (rc)
			return rc;
		setting->board->console_port = (unsigned int)number;
		return 0;
	}
	return fail_at(loader, value, "%s: unknown key '%s' (known: driver%s)", setting->what, key,
		       setting->board ? ", port" : "");
}

static int visit_transport(struct loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;
	uint64_t number;
	int rc;

	if (strcmp(key, "host") == 0)
		return expect_scalar(loader, value, "transport host", &board->host);
	if (strcmp(key, "user") == 0)
		return expect_scalar(loader, value, "transport user", &board->user);
	if (strcmp(key, "port") == 0) {
		rc = expect_number(loader, value, "transport port", 65535, &number);
		if (rc)
			return rc;
		if (number == 0)
			return fail_at(loader, value, "transport port must be 1..65535");
		board->port = (unsigned int)number;
		return 0;
	}
	return fail_at(loader, value, "transport: unknown key '%s' (known: host, port, user)", key);
}

static int visit_knob(struct loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;
	struct config_setting *grown;
	struct config_setting *knob;

	if (!scalar(value))
		return fail_at(loader, value, "knob %s must be a number", key);
	grown = realloc(board->knobs, (board->knob_count + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	board->knobs = grown;
	knob = &board->knobs[board->knob_count++];
	knob->name = strdup(key);
	knob->value = strdup(scalar(value));
	knob->where = node_location(loader, value);
	return knob->name && knob->value ? 0 : -ENOMEM;
}

static int load_tags(struct loader *loader, yaml_node_t *value, struct lab_board *board)
{
	yaml_node_item_t *item;

	if (value->type != YAML_SEQUENCE_NODE)
		return fail_at(loader, value, "tags must be a list, e.g. [ar9285, pcie]");
	board->tag_count = (size_t)(value->data.sequence.items.top - value->data.sequence.items.start);
	board->tags = calloc(board->tag_count + 1, sizeof(*board->tags));
	if (!board->tags)
		return -ENOMEM;
	for (item = value->data.sequence.items.start; item < value->data.sequence.items.top; item++) {
		yaml_node_t *tag = yaml_document_get_node(&loader->document, *item);
		int rc = expect_scalar(loader, tag, "a tag",
				       &board->tags[item - value->data.sequence.items.start]);
		if (rc)
			return rc;
	}
	return 0;
}

static int visit_chip(struct loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;

	if (strcmp(key, "name") == 0) {
		board->chip_where = node_location(loader, value);
		return expect_scalar(loader, value, "chip name", &board->chip);
	}
	if (strcmp(key, "pci") == 0)
		return expect_scalar(loader, value, "chip pci id", &board->pci_id);
	return fail_at(loader, value, "chip: unknown key '%s' (known: name, pci)", key);
}

static int visit_board(struct loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;
	struct driver_setting setting = { NULL, key, NULL };
	uint64_t seed;
	int rc;

	if (strcmp(key, "name") == 0)
		return expect_scalar(loader, value, "board name", &board->name);
	if (strcmp(key, "chip") == 0) {
		if (value->type == YAML_MAPPING_NODE)
			return each_pair(loader, value, "chip", visit_chip, board);
		board->chip_where = node_location(loader, value);
		return expect_scalar(loader, value, "chip", &board->chip);
	}
	if (strcmp(key, "tags") == 0)
		return load_tags(loader, value, board);
	if (strcmp(key, "transport") == 0)
		return each_pair(loader, value, "transport", visit_transport, board);
	if (strcmp(key, "knobs") == 0)
		return each_pair(loader, value, "knobs", visit_knob, board);
	if (strcmp(key, "seed") == 0) {
		rc = expect_number(loader, value, "seed", UINT64_MAX, &seed);
		board->seed = seed;
		return rc;
	}
	if (strcmp(key, "power") == 0)
		setting.driver = &board->power_driver;
	else if (strcmp(key, "console") == 0) {
		setting.driver = &board->console_driver;
		setting.board = board;
	} else if (strcmp(key, "boot") == 0)
		setting.driver = &board->boot_driver;
	else
		return fail_at(loader, value,
			       "unknown board key '%s' (known: name, chip, tags, transport, power, console, boot, knobs, seed)",
			       key);
	return each_pair(loader, value, key, visit_driver, &setting);
}

static int check_board(struct loader *loader, yaml_node_t *node, struct lab *lab, size_t index)
{
	struct lab_board *board = &lab->boards[index];
	size_t i;

	if (!board->name)
		return fail_at(loader, node, "board #%zu has no name", index + 1);
	if (!board->chip)
		return fail_at(loader, node, "board '%s' has no chip (e.g. chip: ar9285)", board->name);
	if (!board->host)
		return fail_at(loader, node, "board '%s' has no transport host", board->name);
	for (i = 0; i < index; i++) {
		if (strcmp(lab->boards[i].name, board->name) == 0)
			return fail_at(loader, node, "board name '%s' is used twice", board->name);
	}
	if (!board->user && !(board->user = strdup("root")))
		return -ENOMEM;
	if (!board->port)
		board->port = 22;
	return 0;
}

static int load_boards(struct loader *loader, yaml_node_t *value, struct lab *lab)
{
	yaml_node_item_t *item;
	size_t count;

	if (value->type != YAML_SEQUENCE_NODE)
		return fail_at(loader, value, "boards must be a list of '- name: ...' entries");
	count = (size_t)(value->data.sequence.items.top - value->data.sequence.items.start);
	lab->boards = calloc(count ? count : 1, sizeof(*lab->boards));
	if (!lab->boards)
		return -ENOMEM;
	for (item = value->data.sequence.items.start; item < value->data.sequence.items.top; item++) {
		yaml_node_t *node = yaml_document_get_node(&loader->document, *item);
		size_t index = (size_t)(item - value->data.sequence.items.start);
		int rc;

		lab->board_count = index + 1;
		lab->boards[index].where = node_location(loader, node);
		lab->boards[index].seed = index + 1;
		rc = each_pair(loader, node, "a board", visit_board, &lab->boards[index]);
		if (!rc)
			rc = check_board(loader, node, lab, index);
		if (rc)
			return rc;
	}
	return 0;
}

static int visit_lab(struct loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab *lab = arg;

	if (strcmp(key, "name") == 0)
		return expect_scalar(loader, value, "lab name", &lab->name);
	if (strcmp(key, "type") == 0) {
		const char *type = scalar(value);
		if (!type || (strcmp(type, "virtual") && strcmp(type, "ssh") && strcmp(type, "lava")))
			return fail_at(loader, value, "lab type must be virtual, ssh or lava");
		return expect_scalar(loader, value, "lab type", &lab->type);
	}
	if (strcmp(key, "state_dir") == 0)
		return expect_scalar(loader, value, "state_dir", &lab->state_dir);
	if (strcmp(key, "boards") == 0)
		return load_boards(loader, value, lab);
	return fail_at(loader, value, "unknown lab key '%s' (known: name, type, state_dir, boards)", key);
}

static int parse_file(struct loader *loader, FILE *file)
{
	yaml_parser_t parser;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_file(&parser, file);
	if (!yaml_parser_load(&parser, &loader->document)) {
		snprintf(loader->error, loader->error_len, "%s:%zu:%zu: YAML syntax error: %s%s%s",
			 loader->file, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			 parser.problem ? parser.problem : "unreadable",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		rc = -EINVAL;
	}
	yaml_parser_delete(&parser);
	return rc;
}

int lab_load(const char *path, struct lab **out, char *error, size_t error_len)
{
	struct loader loader = { .file = path, .error = error, .error_len = error_len };
	struct lab *lab;
	yaml_node_t *root;
	FILE *file;
	int rc;

	*out = NULL;
	file = fopen(path, "r");
	if (!file) {
		rc = -errno;
		snprintf(error, error_len, "%s: cannot open lab file: %s", path, strerror(-rc));
		return rc;
	}
	rc = parse_file(&loader, file);
	fclose(file);
	if (rc)
		return rc;
	lab = calloc(1, sizeof(*lab));
	if (!lab) {
		yaml_document_delete(&loader.document);
		return -ENOMEM;
	}
	lab->path = strdup(path);
	root = yaml_document_get_root_node(&loader.document);
	if (!root) {
		snprintf(error, error_len, "%s:1:1: the lab file is empty", path);
		rc = -EINVAL;
	} else {
		rc = each_pair(&loader, root, "the lab file", visit_lab, lab);
	}
	if (!rc && !lab->name)
		rc = fail_at(&loader, root, "the lab has no name (name: ...)");
	if (!rc && !lab->type && !(lab->type = strdup("virtual")))
		rc = -ENOMEM;
	if (!rc && lab->board_count == 0)
		rc = fail_at(&loader, root, "the lab has no boards (boards: [...])");
	yaml_document_delete(&loader.document);
	if (rc) {
		lab_free(lab);
		return rc;
	}
	*out = lab;
	return 0;
}

static void board_free(struct lab_board *board)
{
	size_t i;

	for (i = 0; i < board->tag_count; i++)
		free(board->tags[i]);
	for (i = 0; i < board->knob_count; i++) {
		free(board->knobs[i].name);
		free(board->knobs[i].value);
	}
	free(board->tags);
	free(board->knobs);
	free(board->name);
	free(board->chip);
	free(board->pci_id);
	free(board->host);
	free(board->user);
	free(board->power_driver);
	free(board->console_driver);
	free(board->boot_driver);
}

void lab_free(struct lab *lab)
{
	size_t i;

	if (!lab)
		return;
	for (i = 0; i < lab->board_count; i++)
		board_free(&lab->boards[i]);
	free(lab->boards);
	free(lab->path);
	free(lab->name);
	free(lab->type);
	free(lab->state_dir);
	free(lab);
}

const struct lab_board *lab_find_board(const struct lab *lab, const char *name)
{
	size_t i;

	for (i = 0; i < lab->board_count; i++) {
		if (strcmp(lab->boards[i].name, name) == 0)
			return &lab->boards[i];
	}
	return NULL;
}
