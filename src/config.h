/*
 * config.h - lab inventories (YAML) as typed structs.
 *
 * Every value remembers where it came from (file:line:col), so whoever
 * checks it later (the virtual lab checks chip names and model knobs) can
 * point at the exact spot. Errors say what, where and what to do.
 */
#ifndef RB_CONFIG_H
#define RB_CONFIG_H

#include <stdbool.h>
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

/* One option of a driver block, e.g. `on: [pdu-switch, "3", on]`: a string or a list of strings. */
struct lab_driver_option {
	char *name;
	char **values;			/* NULL-terminated; one entry for a plain string */
	size_t value_count;
	bool is_list;
	struct config_location where;
};

/* `power: {driver: command, on: [...], off: [...]}`: the driver's name and its own options,
 * which only the driver knows how to check (it names their file:line:col when it refuses). */
struct lab_driver {
	char *name;			/* NULL when the block or its driver key is missing */
	struct lab_driver_option *options;
	size_t option_count;
	struct config_location where;	/* the block, or the board when there is none */
};

/* A board of a `type: lava` lab is a place in LAVA's queue: a job for a
 * device of this type (and these tags) at a time. LAVA owns the device. */
struct lab_board_lava {
	char *device_type;		/* "beaglebone-black", "ssh" */
	char **tags;			/* LAVA device tags the job asks for */
	size_t tag_count;
	char *command_line;		/* the build's kernel command line before the job's
					 * words; NULL: the running kernel's */
	char *modules_dir;		/* on the device; default /lib/modules */
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
	char *identity_file;		/* NULL: the lab's own (virtual labs) */
	char *known_hosts_file;		/* NULL: the lab's own */
	unsigned int console_port;	/* TCP, on host */
	struct lab_driver power;	/* a virtual lab defaults every driver to "virtual" */
	struct lab_driver console;
	struct lab_driver boot;
	char *fallback_release;		/* boot: {fallback: ...}: `uname -r` after a power cycle;
					 * NULL: anything but the kernel under test */
	unsigned int boot_timeout_seconds;	/* limits: {boot: S}; 0: the job's */
	unsigned int hang_timeout_seconds;	/* limits: {hang: S}; 0: the job's */
	/* limits: {power: S}: the power switch's answer; 0: BOARD_POWER_TIMEOUT_SECONDS */
	unsigned int power_timeout_seconds;
	uint64_t seed;
	struct lab_board_lava lava;	/* type: lava; device_type NULL otherwise */
	struct config_setting *knobs;	/* model knob overrides (virtual lab) */
	size_t knob_count;
	/* faults: {hang-workload: 3, ...}: the virtual lab's fault injection
	 * (drivers/virtual/board/fault_plan.h), checked there */
	struct config_setting *faults;
	size_t fault_count;
	struct config_location where;
	struct config_location chip_where;
};

/*
 * `lava:` of a `type: lava` lab: the server that schedules its boards. The
 * token is never in the lab file: it is read from token_file (relative to
 * the lab file, readable by its owner only) or the environment variable
 * token_env when the lab is opened (drivers/lava/).
 */
struct lab_lava {
	char *url;			/* "http://lava.example"; the REST API is under /api/v0.2/ */
	char *token_file;
	char *token_env;
	char *priority;			/* "high", "medium", "low" or "0".."100"; default medium */
	unsigned int job_timeout_seconds;	/* a job's own limit; default 3600 */
	unsigned int queue_timeout_seconds;	/* waiting in LAVA's queue; default 86400 */
	/* Where builds go for LAVA's devices to fetch: a directory on this
	 * machine (relative to the lab file) that a web server shows at url
	 * (http://, https://, or file:// when the devices see this machine's
	 * files). Each run's build is put there and removed when it ends. */
	char *artifacts_dir;
	char *artifacts_url;
	struct config_location where;
};

struct lab {
	char *path;
	char *name;
	char *type;			/* virtual | ssh | lava */
	char *state_dir;		/* NULL: the default under --state */
	struct lab_lava lava;		/* type: lava; url NULL otherwise */
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
/* A path written in the lab file: relative ones are the lab file's neighbours.
 * 0, or -ENAMETOOLONG when it does not fit in out. */
int lab_path(const struct lab *lab, const char *path, char *out, size_t len);
/* The option `name` of a driver block, or NULL. */
const struct lab_driver_option *lab_driver_option(const struct lab_driver *driver, const char *name);

#endif
