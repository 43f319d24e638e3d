/*
 * tools.h - the userspace tools a board runs (sim_board_run_tool): iw, ping,
 * ip (tool_iw.c, tool_ping.c, tool_ip.c) and dmesg, sleep, uname
 * (tool_shell.c), printing what the real tools print on Debian 12
 * (iw 5.19, iputils 20221126, iproute2 6.1, util-linux, coreutils).
 *
 * A tool writes through its context (nothing once the host hung) and moves
 * simulated time with tool_run(). It returns its exit status, or
 * SIM_TOOL_HUNG when the host froze under it.
 */
#ifndef RB_SIM_TOOLS_H
#define RB_SIM_TOOLS_H

#include <stddef.h>
#include <stdint.h>

#include "virtual/sim/sim.h"

struct sim_board;

struct tool_context {
	struct sim_board *board;
	const char *name;	/* argv[0] without its directory */
	sim_output_fn out;
	void *arg;
};

void tool_write(struct tool_context *tool, int fd, const char *data, size_t len);
void tool_printf(struct tool_context *tool, int fd, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
/* Runs the board until `until_us` or done(); 0 or 1 as board_run(), or
 * SIM_TOOL_HUNG. */
int tool_run(struct tool_context *tool, uint64_t until_us,
	     int (*done)(struct sim_board *board, void *arg), void *arg);
/* "Try 'NAME --help' for more information." (coreutils/util-linux style) */
void tool_print_try_help(struct tool_context *tool);

int tool_iw(struct tool_context *tool, int argc, char **argv);
int tool_ping(struct tool_context *tool, int argc, char **argv);
int tool_ip(struct tool_context *tool, int argc, char **argv);
int tool_dmesg(struct tool_context *tool, int argc, char **argv);
int tool_sleep(struct tool_context *tool, int argc, char **argv);
int tool_uname(struct tool_context *tool, int argc, char **argv);

#endif
