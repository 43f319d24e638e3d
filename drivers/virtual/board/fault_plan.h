/*
 * fault_plan.h - what goes wrong with a virtual board, and when: the lab's
 * seeded fault injection (issue 9). A board's `faults:` in the lab file
 * names each fault and the event it strikes at, so a run is reproducible:
 *
 *   faults: {hang-workload: 3, power-error: 1}
 *
 * strikes at the board's 3rd workload tool call (its host freezes) and
 * fails its 1st power switch command. Counts run over the lab's life
 * (`lab up` to `lab down`), not per run, so a plan can strike the 2nd
 * deploy of a bisection. Each fault strikes once.
 *
 * A pure library: the board host (board_host.c) and the lab supervisor
 * tell it events and act on what it answers.
 */
#ifndef RB_FAULT_PLAN_H
#define RB_FAULT_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

enum fault_kind {
	FAULT_HANG_DEPLOY,	/* the host freezes at `kexec -l` (the fallback kernel runs) */
	FAULT_HANG_BOOT,	/* a kernel under test never comes up: no SSH, no console */
	FAULT_HANG_WORKLOAD,	/* the host freezes at a workload's tool call */
	FAULT_SSH_DROP_UPLOAD,	/* every SSH session ends as the kernel upload starts */
	FAULT_SSH_DROP_WORKLOAD,	/* every SSH session ends at a workload's tool call */
	FAULT_REBOOT_WORKLOAD,	/* the host resets at a workload's tool call (fallback boots) */
	FAULT_CONSOLE_DROP,	/* the console server drops its clients at a workload's tool call */
	FAULT_STALL_WORKLOAD,	/* a workload's tool call never returns; the host answers on */
	FAULT_SLOW_BOOT,	/* each boot of a kernel under test takes N ms longer */
	FAULT_POWER_ERROR,	/* the power switch answers an error to its Nth command */
	FAULT_POWER_TIMEOUT,	/* the power switch never answers its Nth command */
	FAULT_KIND_COUNT,
};

/* The events a board tells the plan about. */
enum fault_event {
	FAULT_EVENT_DEPLOY,		/* `kexec -l` */
	FAULT_EVENT_BOOT,		/* a boot of a kernel that is not the fallback */
	FAULT_EVENT_WORKLOAD_TOOL,	/* iw, ping, ip, sleep under a kernel under test */
	FAULT_EVENT_FALLBACK_UNAME,	/* `uname` answered by the fallback kernel:
					 * the coordinator uploads next */
	FAULT_EVENT_POWER,		/* a power switch command (on, off, cycle) */
	FAULT_EVENT_COUNT,
};

struct fault_plan {
	unsigned int at[FAULT_KIND_COUNT];	/* 0: not planned; else the event number
						 * (FAULT_SLOW_BOOT: the delay in ms) */
	unsigned int seen[FAULT_EVENT_COUNT];
	bool struck[FAULT_KIND_COUNT];
};

/* "hang-workload", ... */
const char *fault_kind_name(enum fault_kind kind);
/* "deploy", "boot", "workload-tool", "fallback-uname", "power". */
const char *fault_event_name(enum fault_event event);
/* Every fault name, ", "-separated, for error messages. */
const char *fault_kind_names(void);

/*
 * Fills the plan from a board's `faults:`. 0, or -EINVAL with `error`
 * saying file:line:col, the board, and what is allowed.
 */
int fault_plan_load(struct fault_plan *plan, const struct lab_board *board, char *error,
		    size_t error_len);

/*
 * Tells the plan an event happened. Returns the fault that strikes now, or
 * FAULT_KIND_COUNT when none does. At most one strikes per event; a
 * FAULT_SLOW_BOOT is never returned (ask fault_plan_boot_delay_ms).
 */
enum fault_kind fault_plan_event(struct fault_plan *plan, enum fault_event event);

/* Extra ms a boot of a kernel under test takes; 0 without slow-boot. */
unsigned int fault_plan_boot_delay_ms(const struct fault_plan *plan);

#endif
