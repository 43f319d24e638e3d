/* tools.c - sim_board_run_tool(): find the tool, give it a context. */
#include "virtual/sim/tools.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtual/sim/board.h"

struct tool_entry {
	const char *name;
	int (*run)(struct tool_context *tool, int argc, char **argv);
};

static const struct tool_entry tools[] = {
	{ "iw", tool_iw },
	{ "ping", tool_ping },
	{ "ip", tool_ip },
	{ "dmesg", tool_dmesg },
	{ "sleep", tool_sleep },
	{ "uname", tool_uname },
};

void tool_write(struct tool_context *tool, int fd, const char *data, size_t len)
{
	/* a frozen host prints nothing more */
	if (tool->board->hung || !tool->out || !len)
		return;
	tool->out(tool->arg, fd, data, len);
}

void tool_printf(struct tool_context *tool, int fd, const char *format, ...)
{
	char small[1024], *text = small;
	va_list args;
	int len;

	va_start(args, format);
	len = vsnprintf(small, sizeof(small), format, args);
	va_end(args);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(small)) {
		va_start(args, format);
		len = vasprintf(&text, format, args);
		va_end(args);
		if (len < 0)
			return;
	}
	tool_write(tool, fd, text, (size_t)len);
	if (text != small)
		free(text);
}

int tool_run(struct tool_context *tool, uint64_t until_us,
	     int (*done)(struct sim_board *board, void *arg), void *arg)
{
	int r = board_run(tool->board, until_us, done, arg);

	return r < 0 ? SIM_TOOL_HUNG : r;
}

void tool_print_try_help(struct tool_context *tool)
{
	tool_printf(tool, 2, "Try '%s --help' for more information.\n", tool->name);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int sim_board_run_tool(struct sim_board *board, int argc, char **argv,
		       sim_output_fn out, void *arg)
{
	struct tool_context tool = { .board = board, .out = out, .arg = arg };
	size_t i;
	int status;

	if (argc < 1 || !argv || !argv[0]) {
		snprintf(board->error, sizeof(board->error), "no tool to run");
		return -EINVAL;
	}
	if (!board->on) {
		snprintf(board->error, sizeof(board->error), "board %s is off", board->name);
		return -EHOSTDOWN;
	}
	if (board->hung)
		return SIM_TOOL_HUNG;
	tool.name = base_name(argv[0]);
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (strcmp(tools[i].name, tool.name) == 0) {
			status = tools[i].run(&tool, argc, argv);
			return board->hung ? SIM_TOOL_HUNG : status;
		}
	}
	tool_printf(&tool, 2, "%s: not found\n", argv[0]);
	return 127;
}
