/* Lab files: what loads, and that every mistake is named with file:line:col. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "virtual/lab/lab_state.h"

struct scratch {
	char path[64];
	char error[1024];
	struct lab *lab;
};

static int write_lab(struct scratch *scratch, const char *text)
{
	int fd;

	strcpy(scratch->path, "/tmp/rackbisect-test-lab-XXXXXX");
	fd = mkstemp(scratch->path);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int load(struct scratch *scratch, const char *text)
{
	int rc;

	assert_int_equal(write_lab(scratch, text), 0);
	rc = lab_load(scratch->path, &scratch->lab, scratch->error, sizeof(scratch->error));
	unlink(scratch->path);
	return rc;
}

/* The error must start with "<file>:<line>:<col>: " and mention `words`. */
static void assert_error_at(struct scratch *scratch, int line, int column, const char *words)
{
	char prefix[128];

	snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", scratch->path, line, column);
	if (strncmp(scratch->error, prefix, strlen(prefix)) != 0)
		fail_msg("error '%s' does not start with '%s'", scratch->error, prefix);
	if (!strstr(scratch->error, words))
		fail_msg("error '%s' does not say '%s'", scratch->error, words);
}

static const char good_lab[] =
	"name: t\n"
	"type: virtual\n"
	"boards:\n"
	"  - name: a\n"
	"    chip: {name: ar9285, pci: \"168c:002b\"}\n"
	"    tags: [x, y]\n"
	"    transport: {host: 127.77.9.1, port: 2222}\n"
	"    console: {driver: virtual, port: 7000}\n"
	"    knobs: {p_wake_dead: 0.5}\n"
	"    seed: 42\n"
	"    faults: {hang-boot: 2, slow-boot: 800}\n"
	"  - name: b\n"
	"    chip: ar5416\n"
	"    transport: {host: 127.77.9.2}\n";

static void test_good_lab_loads_every_field(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(load(&scratch, good_lab), 0);
	assert_string_equal(scratch.lab->name, "t");
	assert_int_equal(scratch.lab->board_count, 2);
	assert_string_equal(scratch.lab->boards[0].chip, "ar9285");
	assert_string_equal(scratch.lab->boards[0].pci_id, "168c:002b");
	assert_int_equal(scratch.lab->boards[0].tag_count, 2);
	assert_string_equal(scratch.lab->boards[0].tags[1], "y");
	assert_int_equal(scratch.lab->boards[0].port, 2222);
	assert_int_equal(scratch.lab->boards[0].console_port, 7000);
	assert_int_equal(scratch.lab->boards[0].seed, 42);
	assert_int_equal(scratch.lab->boards[0].knob_count, 1);
	assert_string_equal(scratch.lab->boards[0].knobs[0].name, "p_wake_dead");
	assert_int_equal(scratch.lab->boards[0].knobs[0].where.line, 9);
	assert_int_equal(scratch.lab->boards[0].fault_count, 2);
	assert_string_equal(scratch.lab->boards[0].faults[1].name, "slow-boot");
	assert_string_equal(scratch.lab->boards[0].faults[1].value, "800");
	assert_int_equal(scratch.lab->boards[0].faults[1].where.line, 11);
	assert_int_equal(scratch.lab->boards[1].fault_count, 0);
	/* defaults: port 22, user root, seed = position */
	assert_int_equal(scratch.lab->boards[1].port, 22);
	assert_string_equal(scratch.lab->boards[1].user, "root");
	assert_int_equal(scratch.lab->boards[1].seed, 2);
	assert_int_equal(scratch.lab->boards[1].chip_where.line, 13);
	assert_non_null(lab_find_board(scratch.lab, "b"));
	assert_null(lab_find_board(scratch.lab, "c"));
	lab_free(scratch.lab);
}

static void test_yaml_syntax_error_names_line_and_column(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_not_equal(load(&scratch, "name: t\nboards:\n  - name: [a\n    chip: x\n"), 0);
	assert_null(scratch.lab);
	assert_true(strstr(scratch.error, "YAML syntax error") != NULL);
	assert_true(strncmp(scratch.error, scratch.path, strlen(scratch.path)) == 0);
}

static void test_unknown_board_key_is_pointed_at(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_not_equal(load(&scratch, "name: t\nboards:\n  - name: a\n    chip: ar9285\n"
				  "    transport: {host: h}\n    colour: red\n"), 0);
	assert_error_at(&scratch, 6, 13, "unknown board key 'colour'");
}

static void test_missing_chip_is_an_error(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_not_equal(load(&scratch, "name: t\nboards:\n  - name: a\n    transport: {host: h}\n"), 0);
	assert_error_at(&scratch, 3, 5, "has no chip");
}

static void test_bad_port_is_an_error(void **state)
{
	/* decimal only: base 0 read 022 as 18 and took 0x16 and " 22" (issue 31) */
	static const struct { const char *port, *words; } cases[] = {
		{ "70000", "at most 65535" },
		{ "twenty", "whole number" },
		{ "022", "without leading zeros, not '022'" },
		{ "0x16", "decimal digits, not '0x16'" },
		{ "\" 22\"", "decimal digits, not ' 22'" },
		{ "99999999999999999999999", "at most 65535" },
	};
	struct scratch scratch = { 0 };
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "name: t\nboards:\n  - name: a\n    chip: ar9285\n"
			 "    transport: {host: h, port: %s}\n", cases[i].port);
		assert_int_not_equal(load(&scratch, text), 0);
		assert_error_at(&scratch, 5, 32, cases[i].words);
	}
}

/* A text of `count` repeats of `piece` after `head` and before `tail`. */
static char *repeated(const char *head, const char *piece, size_t count, const char *tail)
{
	size_t length = strlen(head) + strlen(piece) * count + strlen(tail);
	char *text = malloc(length + 1), *at;

	assert_non_null(text);
	at = stpcpy(text, head);
	for (size_t i = 0; i < count; i++)
		at = stpcpy(at, piece);
	strcpy(at, tail);
	return text;
}

/*
 * What a file may ask of the loader is capped before libyaml builds it
 * (issue 31): aliases of aliases (a 1 MB file reached 423 MB), 200,000
 * levels of nesting (quadratic in libyaml: it never finished), a file over
 * 4 MiB. Each is an error at file:line:col.
 */
static void test_files_that_would_exhaust_the_loader_are_refused(void **state)
{
	struct scratch scratch = { 0 };
	char text[4096], *big, *closers;
	size_t i;

	(void)state;
	/* ten aliases a level, eight levels: 10^8 values once expanded */
	snprintf(text, sizeof(text), "name: t\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (i = 1; i <= 8; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "l%zu: &l%zu [*l%zu, *l%zu, *l%zu, *l%zu, *l%zu, *l%zu, *l%zu, *l%zu, *l%zu, "
			 "*l%zu]\n", i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
			 i - 1);
	assert_int_equal(load(&scratch, text), -EINVAL);
	assert_non_null(strstr(scratch.error, "more than 1,000,000 values once its aliases are expanded"));
	assert_non_null(strstr(scratch.error, ":7:"));	/* l5: 10^6 values and its lists */

	big = repeated("name: t\nboards: ", "[", 200000, "");
	closers = repeated(big, "]", 200000, "\n");
	free(big);
	big = closers;
	assert_int_equal(load(&scratch, big), -EINVAL);
	assert_error_at(&scratch, 2, 72, "nested deeper than 64 levels");	/* the 65th [ */
	free(big);

	/* libyaml looks each alias up among all anchors before it */
	big = repeated("name: t\nl: [", "&a x, ", 1001, "]\n");
	assert_int_equal(load(&scratch, big), -EINVAL);
	assert_non_null(strstr(scratch.error, "the file is more than 1,000 anchors (&name)"));
	free(big);

	big = repeated("name: t\n", "# a comment line of some length, over and over\n", 100000, "");
	assert_int_equal(load(&scratch, big), -EINVAL);
	assert_non_null(strstr(scratch.error, "bytes: a configuration file is at most 4 MiB"));
	free(big);
}

/* A key given twice among many is found in one sort, at the second place
 * it is given (pair against pair was quadratic). */
static void test_a_repeated_key_among_many_is_found(void **state)
{
	struct scratch scratch = { 0 };
	size_t count = 50000, i, length = 0;
	char *text = malloc(count * 24 + 256);

	(void)state;
	assert_non_null(text);
	length += (size_t)sprintf(text, "name: t\nboards:\n  - name: a\n    chip: ar9285\n"
				  "    transport: {host: 127.77.9.1}\n    knobs:\n");
	for (i = 0; i < count; i++)
		length += (size_t)sprintf(text + length, "      k%zu: 1\n", i);
	sprintf(text + length, "      k17: 2\n");
	assert_int_equal(load(&scratch, text), -EINVAL);
	assert_error_at(&scratch, 7 + (int)count, 7, "key 'k17' is given twice");
	free(text);
}

static void test_duplicate_board_name_is_an_error(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_not_equal(load(&scratch, "name: t\nboards:\n  - name: a\n    chip: ar9285\n"
				  "    transport: {host: h}\n  - name: a\n    chip: ar9285\n"
				  "    transport: {host: i}\n"), 0);
	assert_error_at(&scratch, 6, 5, "used twice");
}

/* Names become file names, ssh_config Host lines and log fields: a newline
 * would add an ssh_config line (ProxyCommand runs a command), "../" leaves
 * the state directory. Such names are refused where they are written, and
 * quoted back without their control bytes. */
static void test_names_that_are_not_names_are_refused(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_not_equal(load(&scratch, "name: t\nboards:\n"
				  "  - name: \"a\\nProxyCommand touch /tmp/x\"\n"
				  "    chip: ar9285\n    transport: {host: h}\n"), 0);
	assert_error_at(&scratch, 3, 11, "board name 'a?ProxyCommand touch /tmp/x' cannot be used");
	assert_null(strchr(scratch.error, '\n'));
	assert_int_not_equal(load(&scratch, "name: ../../etc\nboards:\n  - name: a\n"
				  "    chip: ar9285\n    transport: {host: h}\n"), 0);
	assert_error_at(&scratch, 1, 7, "lab name '../../etc' cannot be used");
	assert_int_not_equal(load(&scratch, "name: t\nboards:\n  - name: -oProxyCommand=x\n"
				  "    chip: ar9285\n    transport: {host: h}\n"), 0);
	assert_error_at(&scratch, 3, 11, "starts with a letter or digit");
	assert_int_equal(load(&scratch, "name: rack-2.lab_a\nboards:\n  - name: cb-01.a_b\n"
			      "    chip: ar9285\n    transport: {host: h}\n"), 0);
	assert_string_equal(scratch.lab->boards[0].name, "cb-01.a_b");
	lab_free(scratch.lab);
}

static void test_key_given_twice_is_an_error(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_not_equal(load(&scratch, "name: t\nboards:\n  - name: a\n    chip: ar9285\n"
				  "    transport: {host: h}\n    chip: ar5416\n"), 0);
	assert_error_at(&scratch, 6, 5, "key 'chip' is given twice");
}

static void test_bad_lab_type_and_empty_file(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_not_equal(load(&scratch, "name: t\ntype: cloud\nboards: []\n"), 0);
	assert_error_at(&scratch, 2, 7, "virtual, ssh or lava");
	assert_int_not_equal(load(&scratch, ""), 0);
	assert_true(strstr(scratch.error, "empty") != NULL);
	assert_int_not_equal(load(&scratch, "name: t\nboards: []\n"), 0);
	assert_true(strstr(scratch.error, "no boards") != NULL);
}

static void test_missing_file_says_so(void **state)
{
	char error[512];
	struct lab *lab = NULL;

	(void)state;
	assert_int_not_equal(lab_load("/nonexistent/lab.yaml", &lab, error, sizeof(error)), 0);
	assert_true(strstr(error, "/nonexistent/lab.yaml: cannot open lab file") != NULL);
}

static void test_shipped_virtual_lab_loads(void **state)
{
	char error[512];
	struct lab *lab = NULL;

	(void)state;
	if (lab_load("labs/virtual.yaml", &lab, error, sizeof(error)) != 0)
		fail_msg("%s", error);
	assert_int_equal(lab->board_count, 8);
	assert_string_equal(lab->type, "virtual");
	lab_free(lab);
}

static const char rack_lab[] =
	"name: rack\n"
	"type: ssh\n"
	"boards:\n"
	"  - name: r1\n"
	"    chip: ar9285\n"
	"    transport: {host: 127.77.9.3, identity: keys/id, known_hosts: keys/known}\n"
	"    power: {driver: command, on: [pdu, '3', 'on'], off: [pdu, '3', 'off']}\n"
	"    console: {driver: tcp, port: 7001, host: 127.77.9.4}\n"
	"    boot: {driver: virtual, fallback: 6.1.0-13-amd64}\n"
	"    limits: {boot: 200, hang: 30, power: 9}\n";

static void test_rack_lab_loads_drivers_options_and_limits(void **state)
{
	struct scratch scratch = { 0 };
	const struct lab_board *board;
	const struct lab_driver_option *on;

	(void)state;
	assert_int_equal(load(&scratch, rack_lab), 0);
	board = &scratch.lab->boards[0];
	assert_string_equal(board->identity_file, "keys/id");
	assert_string_equal(board->known_hosts_file, "keys/known");
	assert_string_equal(board->power.name, "command");
	on = lab_driver_option(&board->power, "on");
	assert_non_null(on);
	assert_true(on->is_list);
	assert_int_equal(on->value_count, 3);
	assert_string_equal(on->values[2], "on");
	assert_null(on->values[3]);
	assert_int_equal(on->where.line, 7);
	assert_null(lab_driver_option(&board->power, "cycle"));
	assert_string_equal(board->console.name, "tcp");
	assert_int_equal(board->console_port, 7001);
	assert_string_equal(lab_driver_option(&board->console, "host")->values[0], "127.77.9.4");
	assert_false(lab_driver_option(&board->console, "host")->is_list);
	assert_string_equal(board->fallback_release, "6.1.0-13-amd64");
	assert_int_equal(board->boot.option_count, 0);
	assert_int_equal(board->boot_timeout_seconds, 200);
	assert_int_equal(board->hang_timeout_seconds, 30);
	assert_int_equal(board->power_timeout_seconds, 9);
	lab_free(scratch.lab);
}

static void test_virtual_lab_defaults_every_driver(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(load(&scratch, good_lab), 0);
	assert_string_equal(scratch.lab->boards[1].power.name, "virtual");
	assert_string_equal(scratch.lab->boards[1].console.name, "virtual");
	assert_string_equal(scratch.lab->boards[1].boot.name, "virtual");
	/* the location a driver error points at: the board, as it has no block */
	assert_int_equal(scratch.lab->boards[1].power.where.line, 12);
	assert_null(scratch.lab->boards[1].fallback_release);
	assert_int_equal(scratch.lab->boards[1].hang_timeout_seconds, 0);
	lab_free(scratch.lab);
	/* an ssh lab gets no default: the board must say how its power is switched */
	assert_int_equal(load(&scratch, "name: r\ntype: ssh\nboards:\n  - name: a\n    chip: ar9285\n"
				   "    transport: {host: 127.77.9.1}\n"), 0);
	assert_null(scratch.lab->boards[0].power.name);
	lab_free(scratch.lab);
}

static void test_bad_limits_and_options_are_pointed_at(void **state)
{
	struct scratch scratch = { 0 };
	static const struct { const char *line; int column; const char *words; } cases[] = {
		{ "    limits: {boot: 0}\n", 20, "limits boot must be at least 1 second" },
		{ "    limits: {hang: soon}\n", 20, "limits hang must be a whole number" },
		{ "    limits: {nap: 3}\n", 19, "limits: unknown key 'nap' (known: boot, hang, power)" },
		{ "    limits: {power: 0}\n", 21, "limits power must be at least 1 second" },
		{ "    power: {driver: command, on: {a: b}}\n", 34, "on must be a non-empty string" },
		{ "    power: {driver: command, on: [pdu, '']}\n", 40, "on must be a non-empty string" },
		{ "    transport: {host: x, key: y}\n", 31, "unknown key 'key' (known: host, port, user, identity, known_hosts)" },
		/* it reaches ssh-keyscan and ssh as an argument (issue 31) */
		{ "    transport: {host: -oProxyCommand=x}\n", 23, "transport host must be a host name or address" },
		{ "    transport: {host: root@127.77.9.1}\n", 23, "no user@: that is transport user), not 'root@127.77.9.1'" },
		{ "    transport: {host: \"a b\"}\n", 23, "transport host must be a host name or address" },
	};
	char text[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "name: t\nboards:\n  - name: a\n    chip: ar9285\n%s%s",
			 strstr(cases[i].line, "transport") ? "" : "    transport: {host: 127.77.9.1}\n",
			 cases[i].line);
		assert_int_equal(load(&scratch, text), -EINVAL);
		assert_error_at(&scratch, strstr(cases[i].line, "transport") ? 5 : 6, cases[i].column,
				cases[i].words);
	}
}

/* sshd re-executes itself from / for each login: its key paths must not be relative */
static void test_relative_state_directory_is_made_absolute(void **state)
{
	struct lab lab = { .name = "virtual" };
	struct lab_state located;
	char cwd[1024], expected[1200];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(lab_state_locate(&lab, "build/demo/state", &located), 0);
	snprintf(expected, sizeof(expected), "%s/build/demo/state", cwd);
	assert_string_equal(located.base, expected);
	snprintf(expected, sizeof(expected), "%s/build/demo/state/labs/virtual", cwd);
	assert_string_equal(located.dir, expected);
	assert_int_equal(lab_state_locate(&lab, "/srv/rb", &located), 0);
	assert_string_equal(located.base, "/srv/rb");
}


/* ---- type: lava ---------------------------------------------------------------------------- */

static const char lava_lab[] =
	"name: l\n"
	"type: lava\n"
	"lava:\n"
	"  url: http://127.77.17.1:8017\n"
	"  token_file: keys/lava-token\n"
	"  priority: 40\n"
	"  timeouts: {job: 1200}\n"
	"  artifacts: {dir: artifacts, url: \"http://127.77.17.1:8019/rb/\"}\n"
	"boards:\n"
	"  - name: bbb1\n"
	"    chip: ar9285\n"
	"    lava: {device_type: beaglebone-black, tags: [ar9285, shelf1],\n"
	"           command_line: \"console=ttyO0,115200 root=/dev/mmcblk0p2\",\n"
	"           modules_dir: /usr/lib/modules}\n"
	"  - name: ssh1\n"
	"    chip: ar9380\n"
	"    lava: {device_type: ssh}\n";

static void test_lava_lab_loads_its_server_and_device_types(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	if (load(&scratch, lava_lab) != 0)
		fail_msg("%s", scratch.error);
	assert_string_equal(scratch.lab->type, "lava");
	assert_string_equal(scratch.lab->lava.url, "http://127.77.17.1:8017");
	assert_string_equal(scratch.lab->lava.token_file, "keys/lava-token");
	assert_null(scratch.lab->lava.token_env);
	assert_string_equal(scratch.lab->lava.priority, "40");
	assert_int_equal(scratch.lab->lava.job_timeout_seconds, 1200);
	assert_int_equal(scratch.lab->lava.queue_timeout_seconds, 86400);	/* the default */
	assert_int_equal(scratch.lab->board_count, 2);
	assert_string_equal(scratch.lab->boards[0].lava.device_type, "beaglebone-black");
	assert_int_equal(scratch.lab->boards[0].lava.tag_count, 2);
	assert_string_equal(scratch.lab->boards[0].lava.tags[1], "shelf1");
	assert_string_equal(scratch.lab->lava.artifacts_dir, "artifacts");
	assert_string_equal(scratch.lab->lava.artifacts_url, "http://127.77.17.1:8019/rb");
	assert_string_equal(scratch.lab->boards[0].lava.command_line,
			    "console=ttyO0,115200 root=/dev/mmcblk0p2");
	assert_string_equal(scratch.lab->boards[0].lava.modules_dir, "/usr/lib/modules");
	assert_null(scratch.lab->boards[1].lava.command_line);	/* the running kernel's */
	assert_null(scratch.lab->boards[1].lava.modules_dir);	/* /lib/modules */
	assert_null(scratch.lab->boards[0].host);
	assert_null(scratch.lab->boards[0].power.name);
	assert_string_equal(scratch.lab->boards[1].lava.device_type, "ssh");
	lab_free(scratch.lab);
	/* the default priority */
	{
		char text[sizeof(lava_lab)];
		char *priority;

		strcpy(text, lava_lab);
		priority = strstr(text, "  priority: 40\n");
		memmove(priority, priority + strlen("  priority: 40\n"),
			strlen(priority + strlen("  priority: 40\n")) + 1);
		if (load(&scratch, text) != 0)
			fail_msg("%s", scratch.error);
		assert_string_equal(scratch.lab->lava.priority, "medium");
		lab_free(scratch.lab);
	}
}

/* The example a LAVA lab starts from loads as it says. */
static void test_lava_example_loads(void **state)
{
	struct lab *lab = NULL;
	char error[1024];

	(void)state;
	if (lab_load("labs/lava.example.yaml", &lab, error, sizeof(error)) != 0)
		fail_msg("%s", error);
	assert_string_equal(lab->type, "lava");
	assert_string_equal(lab->lava.artifacts_url, "http://coordinator.lab/artifacts");
	assert_int_equal(lab->board_count, 2);
	assert_string_equal(lab->boards[0].lava.command_line,
			    "console=ttyO0,115200n8 root=/dev/mmcblk0p2 rootwait");
	assert_int_equal(lab->boards[1].boot_timeout_seconds, 180);
	lab_free(lab);
}

/* A lab file shows what is wrong, where: the token never in it, what LAVA
 * owns never in it, and nothing of LAVA's in another kind of lab. */
static void test_lava_mistakes_are_pointed_at(void **state)
{
	static const struct {
		const char *text;
		int line, column;
		const char *words;
	} cases[] = {
		{ "name: l\ntype: lava\nlava: {url: http://x, token: s3cret}\nboards:\n"
		  "  - {name: a, chip: ar9285, lava: {device_type: ssh}}\n", 3, 30,
		  "the token is never written in the lab file" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_file: t, token_env: T}\nboards:\n"
		  "  - {name: a, chip: ar9285, lava: {device_type: ssh}}\n", 3, 7,
		  "exactly one of token_file" },
		{ "name: l\ntype: lava\nlava: {url: http://x}\nboards:\n"
		  "  - {name: a, chip: ar9285, lava: {device_type: ssh}}\n", 3, 7,
		  "exactly one of token_file" },
		{ "name: l\ntype: lava\nboards:\n"
		  "  - {name: a, chip: ar9285, lava: {device_type: ssh}}\n", 1, 1,
		  "needs lava: {url: http://..." },
		{ "name: l\ntype: lava\nlava: {url: ftp://x, token_env: T}\nboards:\n"
		  "  - {name: a, chip: ar9285, lava: {device_type: ssh}}\n", 3, 13,
		  "lava url must be http://" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_env: T, priority: urgent}\n"
		  "boards:\n  - {name: a, chip: ar9285, lava: {device_type: ssh}}\n", 3, 47,
		  "high, medium, low or 0..100" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_env: T}\nboards:\n"
		  "  - {name: a, chip: ar9285}\n", 5, 5, "board 'a' has no lava device_type" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_env: T}\nboards:\n"
		  "  - {name: a, chip: ar9285, transport: {host: 127.77.9.1},"
		  " lava: {device_type: ssh}}\n", 5, 5, "LAVA's device dictionary" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_env: T}\nboards:\n"
		  "  - {name: a, chip: ar9285, power: {driver: virtual},"
		  " lava: {device_type: ssh}}\n", 5, 5, "no power, console or boot driver" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_env: T}\nboards:\n"
		  "  - {name: a, chip: ar9285, lava: {device_type: ssh, pool: 3}}\n", 5, 60,
		  "known: device_type, tags" },
		{ "name: v\ntype: virtual\nlava: {url: http://x, token_env: T}\nboards:\n"
		  "  - {name: a, chip: ar9285, transport: {host: 127.77.9.1}}\n", 3, 7,
		  "only a lab of type lava has a LAVA server" },
		{ "name: s\ntype: ssh\nboards:\n  - {name: a, chip: ar9285, transport: "
		  "{host: 127.77.9.1}, lava: {device_type: ssh}}\n", 4, 66, "lava: only in a lab" },
		{ "name: s\ntype: ssh\nboards:\n  - {name: a, chip: ar9285}\n", 4, 5,
		  "board 'a' has no transport host" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_env: T}\nboards:\n"
		  "  - {name: a, chip: ar9285, lava: {device_type: ssh}}\n", 3, 7,
		  "needs artifacts: {dir: DIR, url: URL}" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_env: T, artifacts: {dir: a, "
		  "url: ftp://h/a}}\nboards:\n  - {name: a, chip: ar9285, lava: {device_type: ssh}}\n",
		  3, 62, "artifacts url must be http://HOST/PATH" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_env: T, artifacts: {dir: a, "
		  "url: http://h/a, path: b}}\nboards:\n"
		  "  - {name: a, chip: ar9285, lava: {device_type: ssh}}\n", 3, 80,
		  "lava artifacts: unknown key 'path'" },
		{ "name: l\ntype: lava\nlava: {url: http://x, token_env: T, artifacts: {dir: a, "
		  "url: http://h/a}}\nboards:\n"
		  "  - {name: a, chip: ar9285, lava: {device_type: ssh, modules_dir: lib/modules}}\n",
		  5, 67, "modules_dir must be an absolute path" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scratch scratch = { 0 };

		if (load(&scratch, cases[i].text) == 0)
			fail_msg("case %zu loaded", i + 1);
		assert_error_at(&scratch, cases[i].line, cases[i].column, cases[i].words);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relative_state_directory_is_made_absolute),
		cmocka_unit_test(test_good_lab_loads_every_field),
		cmocka_unit_test(test_yaml_syntax_error_names_line_and_column),
		cmocka_unit_test(test_unknown_board_key_is_pointed_at),
		cmocka_unit_test(test_missing_chip_is_an_error),
		cmocka_unit_test(test_bad_port_is_an_error),
		cmocka_unit_test(test_files_that_would_exhaust_the_loader_are_refused),
		cmocka_unit_test(test_a_repeated_key_among_many_is_found),
		cmocka_unit_test(test_duplicate_board_name_is_an_error),
		cmocka_unit_test(test_names_that_are_not_names_are_refused),
		cmocka_unit_test(test_key_given_twice_is_an_error),
		cmocka_unit_test(test_bad_lab_type_and_empty_file),
		cmocka_unit_test(test_missing_file_says_so),
		cmocka_unit_test(test_shipped_virtual_lab_loads),
		cmocka_unit_test(test_rack_lab_loads_drivers_options_and_limits),
		cmocka_unit_test(test_virtual_lab_defaults_every_driver),
		cmocka_unit_test(test_bad_limits_and_options_are_pointed_at),
		cmocka_unit_test(test_lava_lab_loads_its_server_and_device_types),
		cmocka_unit_test(test_lava_mistakes_are_pointed_at),
		cmocka_unit_test(test_lava_example_loads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
