/*
 * config.c - lab YAML -> struct lab, with file:line:col errors (libyaml), and
 * the YAML helpers of config_yaml.h that the job loader shares.
 */
#include "config.h"
#include "config_yaml.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>
#include <yaml.h>

#include "path.h"

void config_location_format(const struct config_location *where, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u:%u", where->file, where->line, where->column);
}

struct config_location config_node_location(const struct config_loader *loader,
					    const yaml_node_t *node)
{
	struct config_location where = { loader->file, (unsigned int)node->start_mark.line + 1,
					 (unsigned int)node->start_mark.column + 1 };
	return where;
}

static int fail_at_location(struct config_loader *loader, const struct config_location *at,
			    const char *fmt, va_list args)
{
	char where[512];
	size_t used;

	config_location_format(at, where, sizeof(where));
	used = (size_t)snprintf(loader->error, loader->error_len, "%s: ", where);
	if (used < loader->error_len)
		vsnprintf(loader->error + used, loader->error_len - used, fmt, args);
	return -EINVAL;
}

int config_fail_at(struct config_loader *loader, const yaml_node_t *node, const char *fmt, ...)
{
	struct config_location at = config_node_location(loader, node);
	va_list args;
	int rc;

	va_start(args, fmt);
	rc = fail_at_location(loader, &at, fmt, args);
	va_end(args);
	return rc;
}

int config_fail_at_location(struct config_loader *loader, const struct config_location *at,
			    const char *fmt, ...)
{
	va_list args;
	int rc;

	va_start(args, fmt);
	rc = fail_at_location(loader, at, fmt, args);
	va_end(args);
	return rc;
}

const char *config_scalar(const yaml_node_t *node)
{
	return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

int config_expect_string(struct config_loader *loader, yaml_node_t *node, const char *what,
			 char **out)
{
	const char *text = config_scalar(node);

	if (!text || !*text)
		return config_fail_at(loader, node, "%s must be a non-empty string", what);
	*out = strdup(text);
	return *out ? 0 : -ENOMEM;
}

/* At most `len` - 1 bytes of text, each byte that is not printable ASCII as
 * '?', and "..." where it was cut: a name quoted back in an error must not
 * carry a newline or a terminal escape into it. */
static const char *printable_excerpt(const char *text, char *buf, size_t len)
{
	size_t i, room = len - 4;

	for (i = 0; text[i] && i < room; i++)
		buf[i] = text[i] >= 0x20 && text[i] < 0x7f ? text[i] : '?';
	strcpy(buf + i, text[i] ? "..." : "");
	return buf;
}

int config_expect_name(struct config_loader *loader, yaml_node_t *node, const char *what,
		       char **out)
{
	const char *text = config_scalar(node);
	char excerpt[48];
	size_t i;
	int valid = text && isalnum((unsigned char)text[0]) && strlen(text) <= CONFIG_NAME_MAX;

	for (i = 0; valid && text[i]; i++)
		valid = isalnum((unsigned char)text[i]) || strchr("._-", text[i]) != NULL;
	if (!valid)
		return config_fail_at(loader, node, "%s '%s' cannot be used: a name has letters, "
				      "digits, '.', '_' and '-', starts with a letter or digit and "
				      "has at most %d of them (it names files, SSH hosts and log fields)",
				      what, printable_excerpt(text ? text : "", excerpt, sizeof(excerpt)),
				      CONFIG_NAME_MAX);
	*out = strdup(text);
	return *out ? 0 : -ENOMEM;
}

int config_expect_number(struct config_loader *loader, yaml_node_t *node, const char *what,
			 uint64_t max, uint64_t *out)
{
	const char *text = config_scalar(node);
	char *end;
	unsigned long long value;

	if (!text || !*text || *text == '-')
		return config_fail_at(loader, node, "%s must be a whole number", what);
	/* decimal digits only: no sign, space or 0x; and no leading zero,
	 * which YAML 1.1 (and strtoull's base 0) would read as octal */
	if (text[strspn(text, "0123456789")] != '\0')
		return config_fail_at(loader, node, "%s must be a whole number in decimal digits, "
				      "not '%s'", what, text);
	if (text[0] == '0' && text[1] != '\0')
		return config_fail_at(loader, node, "%s must be written without leading zeros, not "
				      "'%s' (YAML 1.1 reads it as octal)", what, text);
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno || *end)
		return config_fail_at(loader, node, "%s must be at most %" PRIu64 ", not %s", what,
				      max, text);
	if (value > max)
		return config_fail_at(loader, node, "%s must be at most %" PRIu64 ", not %s", what,
				      max, text);
	*out = value;
	return 0;
}

size_t config_sequence_length(const yaml_node_t *sequence)
{
	return (size_t)(sequence->data.sequence.items.top - sequence->data.sequence.items.start);
}

yaml_node_t *config_sequence_item(struct config_loader *loader, yaml_node_t *sequence, size_t i)
{
	return yaml_document_get_node(&loader->document, sequence->data.sequence.items.start[i]);
}

int config_expect_string_list(struct config_loader *loader, yaml_node_t *node, const char *what,
			      const char *example, char ***items, size_t *count)
{
	size_t i, length;

	if (node->type != YAML_SEQUENCE_NODE)
		return config_fail_at(loader, node, "%s must be a list, e.g. %s", what, example);
	length = config_sequence_length(node);
	*items = calloc(length + 1, sizeof(**items));
	if (!*items)
		return -ENOMEM;
	for (i = 0; i < length; i++) {
		int rc;

		/* counted before it is filled, so on an error the caller frees what was copied */
		*count = i + 1;
		rc = config_expect_string(loader, config_sequence_item(loader, node, i), what,
					  &(*items)[i]);
		if (rc)
			return rc;
	}
	*count = length;
	return 0;
}

void config_free_strings(char **items, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(items[i]);
	free(items);
}

struct key_at {
	const char *name;	/* NULL: not a plain string (the visit says so) */
	size_t index;		/* in file order */
};

static int compare_keys(const void *a, const void *b)
{
	const struct key_at *x = a, *y = b;
	int by_name = strcmp(x->name ? x->name : "", y->name ? y->name : "");

	return by_name ? by_name : (x->index > y->index) - (x->index < y->index);
}

/* The first pair, in file order, whose key an earlier pair already has
 * (the mapping's length when none): sorted, not pair against pair, since a
 * mapping of many keys (knobs:, faults:) made that quadratic. */
static size_t first_repeated_key(struct config_loader *loader, const yaml_node_t *map, int *rc)
{
	size_t count = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	size_t first = count, i;
	struct key_at *keys = calloc(count ? count : 1, sizeof(*keys));

	*rc = keys ? 0 : -ENOMEM;
	if (!keys)
		return count;
	for (i = 0; i < count; i++)
		keys[i] = (struct key_at){ config_scalar(yaml_document_get_node(
			&loader->document, map->data.mapping.pairs.start[i].key)), i };
	qsort(keys, count, sizeof(*keys), compare_keys);
	for (i = 1; i < count; i++)
		if (keys[i].name && keys[i - 1].name && strcmp(keys[i].name, keys[i - 1].name) == 0 &&
		    keys[i].index < first)
			first = keys[i].index;
	free(keys);
	return first;
}

int config_each_pair(struct config_loader *loader, yaml_node_t *map, const char *what,
		     config_pair_visitor visit, void *arg)
{
	yaml_node_pair_t *pair;
	size_t repeated;
	int rc;

	if (!map || map->type != YAML_MAPPING_NODE)
		return config_fail_at(loader, map, "%s must be a mapping (key: value lines)", what);
	repeated = first_repeated_key(loader, map, &rc);
	if (rc)
		return rc;
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *key = yaml_document_get_node(&loader->document, pair->key);
		yaml_node_t *value = yaml_document_get_node(&loader->document, pair->value);
		const char *name = config_scalar(key);

		if (!name)
			return config_fail_at(loader, key, "keys of %s must be plain strings", what);
		if ((size_t)(pair - map->data.mapping.pairs.start) == repeated)
			return config_fail_at(loader, key, "key '%s' is given twice (each key once)",
					      name);
		rc = visit(loader, name, value, arg);
		if (rc)
			return rc;
	}
	return 0;
}

struct driver_setting {
	struct lab_driver *driver;
	const char *what;		/* "power", "console", "boot" */
	struct lab_board *board;
};

static size_t power_of_two_at_least(size_t n)
{
	size_t power = 1;

	while (power < n)
		power *= 2;
	return power;
}

int config_grow(void **items, size_t count, size_t needed, size_t size)
{
	size_t have = count ? power_of_two_at_least(count) : 0;
	void *grown;

	if (*items && needed <= have)
		return 0;
	grown = realloc(*items, power_of_two_at_least(needed) * size);
	if (!grown)
		return -ENOMEM;
	*items = grown;
	return 0;
}

static int add_driver_option(struct config_loader *loader, struct lab_driver *driver,
			     const char *key, yaml_node_t *value)
{
	struct lab_driver_option *option;
	int rc;

	if (config_grow((void **)&driver->options, driver->option_count, driver->option_count + 1,
			sizeof(*option)))
		return -ENOMEM;
	option = &driver->options[driver->option_count++];
	memset(option, 0, sizeof(*option));
	option->where = config_node_location(loader, value);
	if (!(option->name = strdup(key)))
		return -ENOMEM;
	if (value->type == YAML_SEQUENCE_NODE) {
		option->is_list = true;
		return config_expect_string_list(loader, value, key, "[word, word]", &option->values,
						 &option->value_count);
	}
	if (!(option->values = calloc(2, sizeof(char *))))
		return -ENOMEM;
	option->value_count = 1;
	rc = config_expect_string(loader, value, key, &option->values[0]);
	if (rc)
		option->value_count = 0;
	return rc;
}

int config_expect_seconds(struct config_loader *loader, yaml_node_t *value, const char *what,
			  unsigned int *out)
{
	uint64_t number;
	int rc = config_expect_number(loader, value, what, 86400, &number);

	if (!rc && number == 0)
		return config_fail_at(loader, value, "%s must be at least 1 second", what);
	*out = (unsigned int)number;
	return rc;
}

/* Keys every driver block shares; anything else is the driver's own option. */
static int visit_driver(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct driver_setting *setting = arg;
	struct lab_board *board = setting->board;
	uint64_t number;
	int rc;

	if (strcmp(key, "driver") == 0)
		return config_expect_string(loader, value, "driver", &setting->driver->name);
	if (setting->driver == &board->console && strcmp(key, "port") == 0) {
		rc = config_expect_number(loader, value, "console port", 65535, &number);
		if (rc)
			return rc;
		board->console_port = (unsigned int)number;
		return 0;
	}
	if (setting->driver == &board->boot && strcmp(key, "fallback") == 0)
		return config_expect_string(loader, value, "boot fallback", &board->fallback_release);
	return add_driver_option(loader, setting->driver, key, value);
}

static int visit_limits(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;

	if (strcmp(key, "boot") == 0)
		return config_expect_seconds(loader, value, "limits boot", &board->boot_timeout_seconds);
	if (strcmp(key, "hang") == 0)
		return config_expect_seconds(loader, value, "limits hang", &board->hang_timeout_seconds);
	if (strcmp(key, "power") == 0)
		return config_expect_seconds(loader, value, "limits power", &board->power_timeout_seconds);
	return config_fail_at(loader, value, "limits: unknown key '%s' (known: boot, hang, power)", key);
}

/* A host name or address, one word: it reaches ssh-keyscan and ssh as an
 * argument, where "-oProxyCommand=..." would be an option and "root@h" a
 * user (the user has its own key). */
static int expect_host(struct config_loader *loader, yaml_node_t *value, char **out)
{
	const char *text = config_scalar(value);
	bool one_word = text && text[0] != '-' && !strchr(text, '@');

	for (const unsigned char *c = (const unsigned char *)text; one_word && *c; c++)
		one_word = *c > ' ' && *c != 0x7f;
	if (text && !one_word)
		return config_fail_at(loader, value, "transport host must be a host name or address "
				      "(one word, not starting with '-', no user@: that is "
				      "transport user), not '%s'", text);
	return config_expect_string(loader, value, "transport host", out);
}

static int visit_transport(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;
	uint64_t number;
	int rc;

	if (strcmp(key, "host") == 0)
		return expect_host(loader, value, &board->host);
	if (strcmp(key, "user") == 0)
		return config_expect_string(loader, value, "transport user", &board->user);
	if (strcmp(key, "identity") == 0)
		return config_expect_string(loader, value, "transport identity", &board->identity_file);
	if (strcmp(key, "known_hosts") == 0)
		return config_expect_string(loader, value, "transport known_hosts",
					    &board->known_hosts_file);
	if (strcmp(key, "port") == 0) {
		rc = config_expect_number(loader, value, "transport port", 65535, &number);
		if (rc)
			return rc;
		if (number == 0)
			return config_fail_at(loader, value, "transport port must be 1..65535");
		board->port = (unsigned int)number;
		return 0;
	}
	return config_fail_at(loader, value, "transport: unknown key '%s' (known: host, port, user, identity, known_hosts)", key);
}

/* knobs: and faults: are NAME: NUMBER pairs only the virtual lab can check. */
static int add_setting(struct config_loader *loader, const char *what, const char *key,
		       yaml_node_t *value, struct config_setting **list, size_t *count)
{
	struct config_setting *setting;

	if (!config_scalar(value))
		return config_fail_at(loader, value, "%s %s must be a number", what, key);
	if (config_grow((void **)list, *count, *count + 1, sizeof(*setting)))
		return -ENOMEM;
	setting = &(*list)[(*count)++];
	setting->name = strdup(key);
	setting->value = strdup(config_scalar(value));
	setting->where = config_node_location(loader, value);
	return setting->name && setting->value ? 0 : -ENOMEM;
}

static int visit_knob(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;

	return add_setting(loader, "knob", key, value, &board->knobs, &board->knob_count);
}

static int visit_fault(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;

	return add_setting(loader, "fault", key, value, &board->faults, &board->fault_count);
}

static int load_tags(struct config_loader *loader, yaml_node_t *value, struct lab_board *board)
{
	return config_expect_string_list(loader, value, "tags", "[ar9285, pcie]", &board->tags,
					 &board->tag_count);
}

static int visit_chip(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;

	if (strcmp(key, "name") == 0) {
		board->chip_where = config_node_location(loader, value);
		return config_expect_string(loader, value, "chip name", &board->chip);
	}
	if (strcmp(key, "pci") == 0)
		return config_expect_string(loader, value, "chip pci id", &board->pci_id);
	return config_fail_at(loader, value, "chip: unknown key '%s' (known: name, pci)", key);
}

static int visit_board(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab_board *board = arg;
	struct driver_setting setting = { NULL, key, board };
	uint64_t seed;
	int rc;

	if (strcmp(key, "name") == 0)
		return config_expect_name(loader, value, "board name", &board->name);
	if (strcmp(key, "chip") == 0) {
		if (value->type == YAML_MAPPING_NODE)
			return config_each_pair(loader, value, "chip", visit_chip, board);
		board->chip_where = config_node_location(loader, value);
		return config_expect_string(loader, value, "chip", &board->chip);
	}
	if (strcmp(key, "tags") == 0)
		return load_tags(loader, value, board);
	if (strcmp(key, "transport") == 0)
		return config_each_pair(loader, value, "transport", visit_transport, board);
	if (strcmp(key, "knobs") == 0)
		return config_each_pair(loader, value, "knobs", visit_knob, board);
	if (strcmp(key, "faults") == 0)
		return config_each_pair(loader, value, "faults", visit_fault, board);
	if (strcmp(key, "seed") == 0) {
		rc = config_expect_number(loader, value, "seed", UINT64_MAX, &seed);
		board->seed = seed;
		return rc;
	}
	if (strcmp(key, "limits") == 0)
		return config_each_pair(loader, value, "limits", visit_limits, board);
	if (strcmp(key, "lava") == 0)
		return config_load_board_lava(loader, value, board);
	if (strcmp(key, "power") == 0)
		setting.driver = &board->power;
	else if (strcmp(key, "console") == 0)
		setting.driver = &board->console;
	else if (strcmp(key, "boot") == 0)
		setting.driver = &board->boot;
	else
		return config_fail_at(loader, value,
			       "unknown board key '%s' (known: name, chip, tags, transport, power, console, boot, limits, knobs, faults, seed, lava)",
			       key);
	setting.driver->where = config_node_location(loader, value);
	return config_each_pair(loader, value, key, visit_driver, &setting);
}

static int check_board(struct config_loader *loader, yaml_node_t *node, struct lab *lab, size_t index)
{
	struct lab_board *board = &lab->boards[index];
	size_t i;

	if (!board->name)
		return config_fail_at(loader, node, "board #%zu has no name", index + 1);
	if (!board->chip)
		return config_fail_at(loader, node, "board '%s' has no chip (e.g. chip: ar9285)", board->name);
	for (i = 0; i < index; i++) {
		if (strcmp(lab->boards[i].name, board->name) == 0)
			return config_fail_at(loader, node, "board name '%s' is used twice", board->name);
	}
	if (!board->user && !(board->user = strdup("root")))
		return -ENOMEM;
	/* a driver without a block of its own is the board's to explain */
	if (!board->power.where.file)
		board->power.where = board->where;
	if (!board->console.where.file)
		board->console.where = board->where;
	if (!board->boot.where.file)
		board->boot.where = board->where;
	if (!board->port)
		board->port = 22;
	return 0;
}

static int load_boards(struct config_loader *loader, yaml_node_t *value, struct lab *lab)
{
	yaml_node_item_t *item;
	size_t count;

	if (value->type != YAML_SEQUENCE_NODE)
		return config_fail_at(loader, value, "boards must be a list of '- name: ...' entries");
	count = (size_t)(value->data.sequence.items.top - value->data.sequence.items.start);
	lab->boards = calloc(count ? count : 1, sizeof(*lab->boards));
	if (!lab->boards)
		return -ENOMEM;
	for (item = value->data.sequence.items.start; item < value->data.sequence.items.top; item++) {
		yaml_node_t *node = yaml_document_get_node(&loader->document, *item);
		size_t index = (size_t)(item - value->data.sequence.items.start);
		int rc;

		lab->board_count = index + 1;
		lab->boards[index].where = config_node_location(loader, node);
		lab->boards[index].seed = index + 1;
		rc = config_each_pair(loader, node, "a board", visit_board, &lab->boards[index]);
		if (!rc)
			rc = check_board(loader, node, lab, index);
		if (rc)
			return rc;
	}
	return 0;
}

static int visit_lab(struct config_loader *loader, const char *key, yaml_node_t *value, void *arg)
{
	struct lab *lab = arg;

	if (strcmp(key, "name") == 0)
		return config_expect_name(loader, value, "lab name", &lab->name);
	if (strcmp(key, "type") == 0) {
		const char *type = config_scalar(value);
		if (!type || (strcmp(type, "virtual") && strcmp(type, "ssh") && strcmp(type, "lava")))
			return config_fail_at(loader, value, "lab type must be virtual, ssh or lava");
		return config_expect_string(loader, value, "lab type", &lab->type);
	}
	if (strcmp(key, "state_dir") == 0)
		return config_expect_string(loader, value, "state_dir", &lab->state_dir);
	if (strcmp(key, "boards") == 0)
		return load_boards(loader, value, lab);
	if (strcmp(key, "lava") == 0)
		return config_load_lab_lava(loader, value, lab);
	return config_fail_at(loader, value, "unknown lab key '%s' (known: name, type, state_dir, boards, lava)", key);
}

/*
 * Limits on what a configuration file may ask of the loader, checked by a
 * first pass over its events before libyaml builds the document: libyaml
 * takes time quadratic in the nesting (200,000 levels never finished), and
 * every use of an alias is another copy of its anchor's nodes for whoever
 * walks the document (a 1 MB file of aliases of aliases reached 423 MB).
 * A lab of a thousand boards is 200 KB, some 30,000 nodes, 4 levels deep.
 */
#define CONFIG_FILE_MAX ((long)4 << 20)
#define CONFIG_DEPTH_MAX 64
#define CONFIG_NODES_MAX 1000000	/* after aliases are expanded */
/* libyaml's load looks each alias up among every anchor before it, one by
 * one: 60,000 anchors and 200,000 aliases took 18 s. Aliases count toward
 * the values, so this bounds that search at 10^9 short compares. */
#define CONFIG_ANCHORS_MAX 1000

struct shape {
	size_t open[CONFIG_DEPTH_MAX + 1];	/* nodes so far of each open collection */
	char *open_anchor[CONFIG_DEPTH_MAX + 1];
	size_t depth;
	size_t total;
	/* anchor name -> its subtree's nodes, aliases in it expanded; jansson's
	 * object is the hash table at hand: each alias is looked up in O(1),
	 * and a name anchored again holds its latest value, as YAML says */
	json_t *anchors;
	size_t anchors_defined;			/* every definition: libyaml keeps each */
};

static size_t capped_sum(size_t a, size_t b)
{
	return a + b > CONFIG_NODES_MAX ? CONFIG_NODES_MAX + 1 : a + b;
}

/* A node of `nodes` (expanded) ends: its anchor remembers the size, and its
 * parent (or the document) grows by it. */
static int shape_add(struct shape *shape, const char *anchor, size_t nodes, const char **limit)
{
	if (anchor && json_object_set_new(shape->anchors, anchor, json_integer((json_int_t)nodes)))
		return -ENOMEM;
	if (anchor && ++shape->anchors_defined > CONFIG_ANCHORS_MAX)
		return *limit = "more than 1,000 anchors (&name)", -E2BIG;
	if (shape->depth)
		shape->open[shape->depth - 1] = capped_sum(shape->open[shape->depth - 1], nodes);
	else
		shape->total = capped_sum(shape->total, nodes);
	return 0;
}

/* The anchor an alias names. */
static size_t shape_alias_nodes(const struct shape *shape, const char *name)
{
	json_t *nodes = json_object_get(shape->anchors, name);

	/* undefined: libyaml's own load says so, at its place */
	return nodes ? (size_t)json_integer_value(nodes) : 1;
}

static int shape_event(struct shape *shape, const yaml_event_t *event, const char **limit)
{
	const char *anchor;

	switch (event->type) {
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (shape->depth == CONFIG_DEPTH_MAX)
			return *limit = "nested deeper than 64 levels", -E2BIG;
		anchor = (const char *)(event->type == YAML_SEQUENCE_START_EVENT
					? event->data.sequence_start.anchor
					: event->data.mapping_start.anchor);
		shape->open[shape->depth] = 1;
		shape->open_anchor[shape->depth] = anchor ? strdup(anchor) : NULL;
		if (anchor && !shape->open_anchor[shape->depth])
			return -ENOMEM;
		shape->depth++;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT: {
		size_t nodes = shape->open[--shape->depth];
		char *name = shape->open_anchor[shape->depth];
		int rc = shape_add(shape, name, nodes, limit);

		free(name);
		shape->open_anchor[shape->depth] = NULL;
		return rc;
	}
	case YAML_SCALAR_EVENT:
		return shape_add(shape, (const char *)event->data.scalar.anchor, 1, limit);
	case YAML_ALIAS_EVENT:
		return shape_add(shape, NULL,
				 shape_alias_nodes(shape, (const char *)event->data.alias.anchor), limit);
	default:
		return 0;
	}
}

static void shape_free(struct shape *shape)
{
	json_decref(shape->anchors);
	for (size_t i = 0; i < shape->depth; i++)
		free(shape->open_anchor[i]);
}

/* 0, -EINVAL with the error said at the place a limit was passed, or 0 on
 * a syntax error too: the real load says that one. */
static int check_shape(struct config_loader *loader, FILE *file)
{
	struct shape shape = { .anchors = json_object() };
	yaml_parser_t parser;
	yaml_event_t event;
	const char *limit = NULL;
	int rc = 0;

	if (!shape.anchors || !yaml_parser_initialize(&parser)) {
		json_decref(shape.anchors);
		return -ENOMEM;
	}
	yaml_parser_set_input_file(&parser, file);
	while (!rc && yaml_parser_parse(&parser, &event)) {
		bool end = event.type == YAML_STREAM_END_EVENT;

		rc = shape_event(&shape, &event, &limit);
		/* the open collection's count, or the document's once none is
		 * open (the sums saturate past the cap, so one look suffices) */
		if (!rc && (shape.depth ? shape.open[shape.depth - 1] : shape.total) >
			   CONFIG_NODES_MAX) {
			limit = "more than 1,000,000 values once its aliases are expanded";
			rc = -E2BIG;
		}
		if (rc == -E2BIG)
			rc = snprintf(loader->error, loader->error_len, "%s:%zu:%zu: the file is %s",
				      loader->file, event.start_mark.line + 1,
				      event.start_mark.column + 1, limit) < 0 ? -EIO : -EINVAL;
		yaml_event_delete(&event);
		if (end)
			break;
	}
	yaml_parser_delete(&parser);
	shape_free(&shape);
	return rc;
}

static int parse_file(struct config_loader *loader, FILE *file)
{
	yaml_parser_t parser;
	struct stat status;
	int rc = 0;

	if (fstat(fileno(file), &status) == 0 && status.st_size > CONFIG_FILE_MAX) {
		snprintf(loader->error, loader->error_len, "%s: %lld bytes: a configuration file "
			 "is at most 4 MiB", loader->file, (long long)status.st_size);
		return -EINVAL;
	}
	rc = check_shape(loader, file);
	if (rc)
		return rc;
	rewind(file);
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

int config_document_load(struct config_loader *loader, const char *what)
{
	FILE *file = fopen(loader->file, "r");
	int rc;

	if (!file) {
		rc = -errno;
		snprintf(loader->error, loader->error_len, "%s: cannot open %s file: %s",
			 loader->file, what, strerror(-rc));
		return rc;
	}
	rc = parse_file(loader, file);
	fclose(file);
	if (rc)
		return rc;
	if (!yaml_document_get_root_node(&loader->document)) {
		snprintf(loader->error, loader->error_len, "%s:1:1: the %s file is empty",
			 loader->file, what);
		yaml_document_delete(&loader->document);
		return -EINVAL;
	}
	return 0;
}

/* A virtual lab's boards need no driver lines: everything about them is virtual. */
static int default_virtual_drivers(struct lab *lab)
{
	size_t i;

	for (i = 0; i < lab->board_count; i++) {
		struct lab_board *board = &lab->boards[i];
		struct lab_driver *drivers[] = { &board->power, &board->console, &board->boot };
		size_t d;

		for (d = 0; d < sizeof(drivers) / sizeof(drivers[0]); d++) {
			if (!drivers[d]->name && !(drivers[d]->name = strdup("virtual")))
				return -ENOMEM;
		}
	}
	return 0;
}

int lab_load(const char *path, struct lab **out, char *error, size_t error_len)
{
	struct config_loader loader = { .error = error, .error_len = error_len };
	struct lab *lab;
	yaml_node_t *root;
	int rc;

	*out = NULL;
	lab = calloc(1, sizeof(*lab));
	if (!lab || !(lab->path = strdup(path))) {
		free(lab);
		return -ENOMEM;
	}
	/* Locations point into lab->path, so they stay valid as long as the lab. */
	loader.file = lab->path;
	rc = config_document_load(&loader, "lab");
	if (rc) {
		lab_free(lab);
		return rc;
	}
	root = yaml_document_get_root_node(&loader.document);
	rc = config_each_pair(&loader, root, "the lab file", visit_lab, lab);
	if (!rc && !lab->name)
		rc = config_fail_at(&loader, root, "the lab has no name (name: ...)");
	if (!rc && !lab->type && !(lab->type = strdup("virtual")))
		rc = -ENOMEM;
	if (!rc && lab->board_count == 0)
		rc = config_fail_at(&loader, root, "the lab has no boards (boards: [...])");
	if (!rc)
		rc = config_check_lava(&loader, root, lab);
	if (!rc && strcmp(lab->type, "virtual") == 0)
		rc = default_virtual_drivers(lab);
	yaml_document_delete(&loader.document);
	if (rc) {
		lab_free(lab);
		return rc;
	}
	*out = lab;
	return 0;
}

static void driver_free(struct lab_driver *driver)
{
	size_t i;

	for (i = 0; i < driver->option_count; i++) {
		free(driver->options[i].name);
		config_free_strings(driver->options[i].values, driver->options[i].value_count);
	}
	free(driver->options);
	free(driver->name);
}

static void board_free(struct lab_board *board)
{
	size_t i;

	config_free_strings(board->tags, board->tag_count);
	for (i = 0; i < board->knob_count; i++) {
		free(board->knobs[i].name);
		free(board->knobs[i].value);
	}
	free(board->knobs);
	for (i = 0; i < board->fault_count; i++) {
		free(board->faults[i].name);
		free(board->faults[i].value);
	}
	free(board->faults);
	free(board->name);
	free(board->chip);
	free(board->pci_id);
	free(board->host);
	free(board->user);
	free(board->identity_file);
	free(board->known_hosts_file);
	free(board->fallback_release);
	driver_free(&board->power);
	driver_free(&board->console);
	driver_free(&board->boot);
}

void lab_free(struct lab *lab)
{
	size_t i;

	if (!lab)
		return;
	for (i = 0; i < lab->board_count; i++)
		board_free(&lab->boards[i]);
	config_free_lava(lab);
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

int lab_path(const struct lab *lab, const char *path, char *out, size_t len)
{
	char lab_dir[PATH_MAX];

	if (path[0] == '/')
		return path_format(out, len, "%s", path);
	if (path_format(lab_dir, sizeof(lab_dir), "%s", lab->path))
		return -ENAMETOOLONG;
	return path_format(out, len, "%s/%s", dirname(lab_dir), path);
}

const struct lab_driver_option *lab_driver_option(const struct lab_driver *driver, const char *name)
{
	size_t i;

	for (i = 0; i < driver->option_count; i++) {
		if (strcmp(driver->options[i].name, name) == 0)
			return &driver->options[i];
	}
	return NULL;
}
