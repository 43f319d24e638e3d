/*
 * config_yaml.h - the YAML reading that the lab loader (config.c), the job
 * loader (job_config.c) and the nightly file's (nightly.c) share, so all
 * report mistakes the same way: "file:line:col: what is wrong (what was
 * expected)". Internal to those files; everyone else uses config.h,
 * job_config.h and nightly.h.
 *
 * Every function returns 0 or a negative errno; -EINVAL means the file is
 * wrong and loader->error says where and why.
 */
#ifndef RB_CONFIG_YAML_H
#define RB_CONFIG_YAML_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "config.h"

struct config_loader {
	const char *file;
	yaml_document_t document;
	char *error;
	size_t error_len;
};

/*
 * Opens and parses loader->file into loader->document (then owned by the
 * caller: yaml_document_delete). `what` names the file in the open error
 * ("lab", "job"). An empty file is an error too, so the root node exists.
 */
int config_document_load(struct config_loader *loader, const char *what);

struct config_location config_node_location(const struct config_loader *loader,
					    const yaml_node_t *node);

/* Writes "file:line:col: " + the message into loader->error; returns -EINVAL. */
int config_fail_at(struct config_loader *loader, const yaml_node_t *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The node's text, or NULL if it is not a scalar. */
const char *config_scalar(const yaml_node_t *node);

/* config_fail_at for a place remembered from the file (a board's, a block's). */
int config_fail_at_location(struct config_loader *loader, const struct config_location *at,
			    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A non-empty scalar, copied. */
int config_expect_string(struct config_loader *loader, yaml_node_t *node, const char *what,
			 char **out);

/* A whole number 0..max (decimal, or 0x hex). */
/* A lab's or board's name: letters, digits, '.', '_', '-', starting with a
 * letter or digit, at most CONFIG_NAME_MAX bytes. Names become file names,
 * SSH Host lines and log fields; anything else is refused at its place. */
#define CONFIG_NAME_MAX 63
int config_expect_name(struct config_loader *loader, yaml_node_t *node, const char *what,
		       char **out);
int config_expect_number(struct config_loader *loader, yaml_node_t *node, const char *what,
			 uint64_t max, uint64_t *out);

/* A list of non-empty scalars, copied into a NULL-terminated array. */
int config_expect_string_list(struct config_loader *loader, yaml_node_t *node, const char *what,
			      const char *example, char ***items, size_t *count);

/*
 * Room for `needed` items of `size` bytes in *items, an array that holds
 * `count` (from NULL and 0). The capacity is implied, the power of two at
 * or above count, and doubles: a mapping of 50,000 keys grown one at a time
 * by realloc took minutes. 0 or -ENOMEM (*items unchanged).
 */
int config_grow(void **items, size_t count, size_t needed, size_t size);

/* The i-th item of a sequence node. */
yaml_node_t *config_sequence_item(struct config_loader *loader, yaml_node_t *sequence, size_t i);
size_t config_sequence_length(const yaml_node_t *sequence);

typedef int (*config_pair_visitor)(struct config_loader *loader, const char *key,
				   yaml_node_t *value, void *arg);

/*
 * Calls visit(key, value) for each pair of a mapping node, in file order.
 * A key given twice is an error: libyaml accepts it, and the second value
 * would silently win.
 */
int config_each_pair(struct config_loader *loader, yaml_node_t *map, const char *what,
		     config_pair_visitor visit, void *arg);

/* A whole number of seconds, 1..86400. */
int config_expect_seconds(struct config_loader *loader, yaml_node_t *value, const char *what,
			  unsigned int *out);

/* config_lava.c: the `lava:` blocks of a `type: lava` lab, and what such a
 * lab must (and must not) have, checked once the whole file is read. */
int config_load_lab_lava(struct config_loader *loader, yaml_node_t *value, struct lab *lab);
int config_load_board_lava(struct config_loader *loader, yaml_node_t *value,
			   struct lab_board *board);
int config_check_lava(struct config_loader *loader, yaml_node_t *root, struct lab *lab);
void config_free_lava(struct lab *lab);

/* Frees a NULL-terminated array of `count` strings. */
void config_free_strings(char **items, size_t count);

#endif
