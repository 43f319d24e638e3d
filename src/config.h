/*
 * config.h - lab inventories (YAML) as typed structs.
 *
 * Every value remembers where it came from (file:line:col), so whoever
 * checks it later (the virtual lab checks chip names and model knobs) can
 * point at the exact spot. Errors say what, where and what to do.
 */
#ifndef RB_CONFIG_H
#define RB_CONFIG_H

#include <stddef.h>
#include <stdint.h>

struct config_location {
	const char *file;
	unsigned int line;	/* 1-based */
	unsigned int column;	/* 1-based */
};

/* "file:line:col" for messages. */
void config_location_format(const struct config_location *where, char *buf, size_t len);

struct config_setting {
	char *name;
	char *value;
	struct config_location where;
};

struct lab_board {
	char *name;
	char *chip;			/* "ar9285" */
	char *pci_id;			/* "168c:002b", or NULL when not given */
	char **tags;
	size_t tag_count;
	char *host;			/* transport */
	unsigned int port;
	char *user;
	unsigned int console_port;	/* TCP, on host */
	char *power_driver;		/* "virtual" */
	char *console_driver;
	char *boot_driver;
	uint64_t seed;
	struct config_setting *knobs;	/* model knob overrides (virtual lab) */
	size_t knob_count;
	struct config_location where;
	struct config_location chip_where;
};

struct lab {
	char *path;
	char *name;
	char *type;			/* virtual | ssh | lava */
	char *state_dir;		/* NULL: the default under --state */
	struct lab_board *boards;
	size_t board_count;
};

/*
 * Loads a lab file. 0, or a negative errno with `error` saying what and
 * where ("labs/x.yaml:12:7: board 'vb3': port must be 1..65535").
 */
int lab_load(const char *path, struct lab **lab, char *error, size_t error_len);
void lab_free(struct lab *lab);
const struct lab_board *lab_find_board(const struct lab *lab, const char *name);

#endif
