/*
 * local_transport.h - boards for unit tests, reached through a transport
 * whose "remote" commands run on this machine, with the boards' /tmp mapped
 * into local_world.shared_tmp. Like the virtual lab's boards (and any boards
 * that share a filesystem), every board sees the same /tmp; no network is
 * used. `dmesg` answers empty (also inside a shell: a stub leads PATH); `true`
 * counts as the watchdog's probe.
 *
 *   snprintf(local_world.shared_tmp, ...); snprintf(local_world.output_dir, ...);
 *   board->transport_ops = &local_transport_ops;
 *   board->power = &(struct power){ .ops = &broken_power_ops, .loop = loop };
 */
#ifndef RB_TEST_LOCAL_TRANSPORT_H
#define RB_TEST_LOCAL_TRANSPORT_H

#include <stddef.h>

#include <stdio.h>
#include <uv.h>

#include "board.h"
#include "power/power.h"
#include "store.h"
#include "transport/transport.h"

/* What every local transport shares: set the directories before use. */
struct local_world {
	char shared_tmp[128];		/* what the boards see as /tmp */
	/* the boards' TMPDIR ("" or unset: shared_tmp, where run.c's mktemp
	 * then makes its directories) */
	char tmpdir[128];
	char output_dir[128];		/* where an exec's stdout and stderr go */
	unsigned int exec_count;
	unsigned int connect_count;	/* connections opened, the run's and the watchdog's */
	unsigned int probe_count;	/* `true`: the watchdog's probes */
	/* the boards go silent after this many probes (0: never): a probe gets
	 * no answer, as from a board whose kernel froze */
	unsigned int probes_before_silence;
	/* a command past its timeout is killed, but reported as if some of it
	 * outlived SIGKILL (kill_status -EBUSY) */
	bool kill_unconfirmed;
};

extern struct local_world local_world;
extern const struct transport_ops local_transport_ops;
/* A power switch that cannot switch: a run recovering from a hang ends there. */
extern const struct power_ops broken_power_ops;

/* A board on the local transport that already runs `image` cleanly (no boot
 * before a run whose spec names that image), its power switch `power`. */
void local_board_init(struct board *board, struct lab_board *config, uv_loop_t *loop,
		      struct log *log, struct power *power, const char *image);
/* The end of a test on local boards: runs the loop dry and closes it, drops
 * the boards' captures, closes the store and the log's file, removes dir. */
void local_boards_teardown(uv_loop_t *loop, struct board *boards, size_t count,
			   struct store *store, FILE *events, const char *dir);

/* A file's whole text, NUL-terminated (empty when it cannot be read); free() it. */
char *local_read_all(const char *path, size_t *length);

#endif
