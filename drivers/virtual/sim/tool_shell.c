/*
 * tool_shell.c - the small tools: dmesg (util-linux), sleep and uname
 * (coreutils), with their options and error messages.
 */
#include "virtual/sim/tools.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "virtual/sim/board.h"

/* ---- dmesg --------------------------------------------------------------------- */

static int dmesg_option(struct tool_context *tool, const char *arg, int *clear_after,
			int *clear_only, int *no_time)
{
	if (strcmp(arg, "--read-clear") == 0)
		return *clear_after = 1, 0;
	if (strcmp(arg, "--clear") == 0)
		return *clear_only = 1, 0;
	if (strcmp(arg, "--notime") == 0)
		return *no_time = 1, 0;
	if (strcmp(arg, "--kernel") == 0)
		return 0;
	if (arg[0] == '-' && arg[1] == '-') {
		tool_printf(tool, 2, "dmesg: unrecognized option '%s'\n", arg);
		tool_print_try_help(tool);
		return 1;
	}
	for (arg++; *arg; arg++) {
		switch (*arg) {
		case 'c':
			*clear_after = 1;
			break;
		case 'C':
			*clear_only = 1;
			break;
		case 't':
			*no_time = 1;
			break;
		case 'k':
			break;
		default:
			tool_printf(tool, 2, "dmesg: invalid option -- '%c'\n", *arg);
			tool_print_try_help(tool);
			return 1;
		}
	}
	return 0;
}

int tool_dmesg(struct tool_context *tool, int argc, char **argv)
{
	struct kernel_log *log = &tool->board->log;
	int clear_after = 0, clear_only = 0, no_time = 0, i;
	uint64_t n;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-' || !argv[i][1]) {
			tool_printf(tool, 2, "dmesg: bad usage\n");
			tool_print_try_help(tool);
			return 1;
		}
		if (dmesg_option(tool, argv[i], &clear_after, &clear_only, &no_time))
			return 1;
	}
	if (!clear_only) {
		for (n = kernel_log_dmesg_first(log); n < log->next; n++) {
			const char *line = kernel_log_line(log, n);
			const char *text = no_time ? strchr(line, ']') + 2 : line;

			tool_printf(tool, 1, "%s\n", text);
		}
	}
	if (clear_after || clear_only)
		kernel_log_clear_dmesg(log);
	return 0;
}

/* ---- sleep ---------------------------------------------------------------------- */

/* coreutils: a number with an optional s/m/h/d suffix. */
static int parse_interval(const char *text, double *seconds)
{
	char *end;
	double value;

	errno = 0;
	value = strtod(text, &end);
	if (end == text || errno || value < 0 || !isfinite(value))
		return -EINVAL;
	switch (*end) {
	case '\0':
	case 's':
		break;
	case 'm':
		value *= 60;
		break;
	case 'h':
		value *= 3600;
		break;
	case 'd':
		value *= 86400;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1])
		return -EINVAL;
	*seconds = value;
	return 0;
}

int tool_sleep(struct tool_context *tool, int argc, char **argv)
{
	struct sim_board *board = tool->board;
	double total = 0, seconds;
	int i;

	if (argc < 2) {
		tool_printf(tool, 2, "sleep: missing operand\n");
		tool_print_try_help(tool);
		return 1;
	}
	for (i = 1; i < argc; i++) {
		if (parse_interval(argv[i], &seconds) < 0) {
			tool_printf(tool, 2, "sleep: invalid time interval '%s'\n", argv[i]);
			tool_print_try_help(tool);
			return 1;
		}
		total += seconds;
	}
	return tool_run(tool, board->now_us + (uint64_t)llround(total * 1e6), NULL, NULL) ==
	       SIM_TOOL_HUNG ? SIM_TOOL_HUNG : 0;
}

/* ---- uname ----------------------------------------------------------------------- */

enum uname_field {
	UNAME_SYSNAME = 1 << 0,
	UNAME_NODENAME = 1 << 1,
	UNAME_RELEASE = 1 << 2,
	UNAME_VERSION = 1 << 3,
	UNAME_MACHINE = 1 << 4,
	UNAME_OS = 1 << 5,
	UNAME_ALL = 0x3f,
};

static int uname_letter(char letter, unsigned int *fields)
{
	static const char letters[] = "snrvmo";
	const char *at = strchr(letters, letter);

	if (letter == 'a') {
		*fields |= UNAME_ALL;
		return 0;
	}
	if (!at || !letter)
		return -EINVAL;
	*fields |= 1u << (at - letters);
	return 0;
}

static const struct {
	const char *name;
	unsigned int fields;
} uname_long_options[] = {
	{ "--all", UNAME_ALL }, { "--kernel-name", UNAME_SYSNAME },
	{ "--nodename", UNAME_NODENAME }, { "--kernel-release", UNAME_RELEASE },
	{ "--kernel-version", UNAME_VERSION }, { "--machine", UNAME_MACHINE },
	{ "--operating-system", UNAME_OS },
};

static int uname_long_option(const char *arg, unsigned int *fields)
{
	size_t i;

	for (i = 0; i < sizeof(uname_long_options) / sizeof(uname_long_options[0]); i++) {
		if (strcmp(arg, uname_long_options[i].name) == 0) {
			*fields |= uname_long_options[i].fields;
			return 0;
		}
	}
	return -EINVAL;
}

/* linux_banner ends with the version: "... (gcc version X) #1 SMP". */
static const char *kernel_version(const struct sim_board *board)
{
	const char *hash = strrchr(board->kernel.banner, '#');

	return hash ? hash : "#1 SMP";
}

int tool_uname(struct tool_context *tool, int argc, char **argv)
{
	struct sim_board *board = tool->board;
	const char *values[6] = { "Linux", board->name, board->kernel.release,
				  kernel_version(board), "x86_64", "GNU/Linux" };
	unsigned int fields = 0;
	int i, printed = 0;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (arg[0] != '-' || !arg[1]) {
			tool_printf(tool, 2, "uname: extra operand '%s'\n", arg);
			tool_print_try_help(tool);
			return 1;
		}
		if (arg[1] == '-') {
			if (uname_long_option(arg, &fields) < 0) {
				tool_printf(tool, 2, "uname: unrecognized option '%s'\n", arg);
				tool_print_try_help(tool);
				return 1;
			}
			continue;
		}
		for (arg++; *arg; arg++) {
			if (uname_letter(*arg, &fields) < 0) {
				tool_printf(tool, 2, "uname: invalid option -- '%c'\n", *arg);
				tool_print_try_help(tool);
				return 1;
			}
		}
	}
	if (!fields)
		fields = UNAME_SYSNAME;
	for (i = 0; i < 6; i++) {
		if (!(fields & (1u << i)))
			continue;
		tool_printf(tool, 1, "%s%s", printed++ ? " " : "", values[i]);
	}
	tool_printf(tool, 1, "\n");
	return 0;
}
