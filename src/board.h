/*
 * board.h - a lab board as the engine drives it: its power, console and boot
 * drivers (found by name in the registry), how to reach its shell, where its
 * console goes, and whether the scheduler may use it.
 *
 * The console is followed from the moment the board is opened: every byte
 * goes to the capture of the run on the board at that time (its file, and
 * its lines for the verdict), so a hang's last words are kept.
 */
#ifndef RB_BOARD_H
#define RB_BOARD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <uv.h>

#include "config.h"
#include "registry.h"

struct log;
struct lava_client;

/* Lines of one run's console window, bounded: a console printing forever
 * must not take the coordinator's memory. */
struct console_capture {
	FILE *file;		/* the run's console.log; NULL: not capturing */
	char **lines;
	size_t line_count;
	size_t line_capacity;	/* lines has room for this many */
	size_t bytes;
	char partial[4096];	/* the line being received */
	size_t partial_length;
	size_t dropped_lines;
	bool lines_held;	/* the file goes on, the lines for the verdict stop */
	uint64_t file_bytes;	/* written to the file so far */
	uint64_t unwritten_bytes;	/* beyond BOARD_CAPTURE_MAX_FILE_BYTES: counted, not written */
};

/* A run's console.log holds at most this much: a board printing without end
 * must not fill the state directory. What comes after is counted, and the
 * file's last line says how much was left out. */
#define BOARD_CAPTURE_MAX_FILE_BYTES (64ull << 20)

struct board {
	const struct lab_board *config;
	const char *name;
	uv_loop_t *loop;
	struct log *log;
	char identity_file[PATH_MAX];
	char known_hosts_file[PATH_MAX];
	struct transport_config transport_config;
	const struct transport_ops *transport_ops;
	struct power *power;
	struct console *console;
	struct boot *boot;
	/* a board of a `type: lava` lab: no drivers, its runs are LAVA jobs
	 * through the set's client (drivers/lava/runner.h); NULL otherwise */
	struct lava_client *lava;
	const struct lab *lab;
	struct console_capture capture;
	bool console_connected;
	unsigned int console_losses;	/* a run compares it before and after */
	/* scheduling */
	bool busy;
	bool offline;
	unsigned int consecutive_infra;
	/* the image of the kernel the board runs, known good to run a
	 * workload on: booted by us and no run on it since ended other than
	 * PASS; "" when none is. The image (a build cache entry) and not the
	 * release: a tree without CONFIG_LOCALVERSION_AUTO names every
	 * commit alike. */
	char clean_image[PATH_MAX];
};

/* SSH handshakes a board set makes at once (transport_connect_limit): a
 * key exchange costs the loop milliseconds, and 104 boards reached at the
 * same moment on a busy machine timed out all together. */
#define BOARD_SET_HANDSHAKES_AT_ONCE 16

struct board_set {
	struct board *boards;
	size_t count;
	struct transport_connect_limit *connect_limit;	/* shared by the boards' transports */
	struct lava_client *lava_client;	/* a LAVA lab's; NULL otherwise */
};

struct board_set_options {
	uv_loop_t *loop;
	const struct lab *lab;
	const char *state_option;	/* --state as given, NULL: default */
	struct log *log;
	bool follow_consoles;		/* false: commands that never capture (power) */
};

/*
 * Creates every board's drivers. A driver name the registry does not know,
 * or an option its driver refuses, is -EINVAL with `error` at the lab file's
 * line and column. Consoles start being followed.
 */
int board_set_open(const struct board_set_options *options, struct board_set *set,
		   char *error, size_t error_len);
/* Closes drivers (pending requests fail with -ECANCELED); run the loop after
 * to let their handles close. */
void board_set_close(struct board_set *set);
struct board *board_set_find(struct board_set *set, const char *name);

/* How long a power switch command may take: the lab's limits: {power: S},
 * else 120 s (pdudaemon may queue requests). */
#define BOARD_POWER_TIMEOUT_SECONDS 120
uint64_t board_power_timeout_ms(const struct board *board);

/* Starts following the board's console (board_set_open with follow_consoles
 * false leaves that to the caller, for the boards it will use). */
int board_follow_console(struct board *board);

/* The run on this board begins capturing into console_path (its own file). */
int board_capture_start(struct board *board, const char *console_path);
/* Marks a gap, e.g. "[rackbisect: console lost: ...]", in the capture. */
void board_capture_note(struct board *board, const char *text);
/* From now on console bytes go to the file only: after a hang, the lines the
 * verdict quotes must end where the kernel under test stopped, not with the
 * fallback kernel's boot that follows the power cycle. */
void board_capture_hold_lines(struct board *board);
/* Stops capturing; the lines stay in board->capture until board_capture_reset. */
void board_capture_stop(struct board *board);
void board_capture_reset(struct board *board);

#endif
