/*
 * lab_supervisor.h - the one process that runs a virtual lab: every board
 * (board_host.h) on one libuv loop, and a control socket that answers
 * one-line commands:
 *   status                         -> JSON: every board's state
 *   power BOARD on|off|cycle|status -> "ok STATE" | "error MESSAGE"
 *   hang BOARD                     -> "ok hung"   (fault injection)
 *   shutdown                       -> "ok", then every board process ends
 * SIGTERM and SIGINT shut down the same way.
 */
#ifndef RB_LAB_SUPERVISOR_H
#define RB_LAB_SUPERVISOR_H

#include "config.h"
#include "virtual/lab/lab_state.h"

struct lab_supervisor_options {
	const struct lab *lab;
	const struct lab_state *state;
	const char *vlab_binary;
	const char *tool_binary;
	int ready_fd;		/* gets "ready\n" or "error: ...\n" once boards are up; -1: none */
};

/* Runs until shutdown. Returns the process exit status (0, or 3 when the lab
 * could not start). */
int lab_supervisor_run(const struct lab_supervisor_options *options);

#endif
