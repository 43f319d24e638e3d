/*
 * board_host.h - one virtual board as a machine on the network: a simulated
 * card and host (sim.h) behind a real OpenSSH sshd of its own, a serial
 * console on TCP, a power switch and a boot loader, all on the lab
 * supervisor's libuv loop.
 *
 * What a rack machine does, this does: power off ends SSH and the console;
 * power on boots the fallback (installed) kernel; `kexec -l FILE` then
 * `kexec -e` or `reboot` boots FILE once; a hung host freezes every process
 * of the board (new connections get no SSH banner) until power is cycled.
 */
#ifndef RB_BOARD_HOST_H
#define RB_BOARD_HOST_H

#include <stdint.h>
#include <uv.h>

#include "config.h"
#include "virtual/board/fault_plan.h"

enum board_power_state {
	BOARD_OFF = 0,
	BOARD_BOOTING,		/* kernel booted, sshd not yet accepting */
	BOARD_UP,		/* booted, sshd accepting */
	BOARD_HUNG,		/* host frozen (or failed to boot) until power cycle */
};

/* The board's own temporary directory, in its board directory: its
 * sessions' $TMPDIR (the sshd_config's SetEnv), emptied at each boot as a
 * tmpfs /tmp is. The boards share the host's /tmp, which no boot of theirs
 * empties: a run cut off there left its workload directory for good. */
#define BOARD_HOST_TMP_DIR "tmp"

struct board_host;

struct board_host_options {
	const struct lab_board *board;	/* the lab entry; must outlive the host */
	const char *board_dir;		/* state: keys, sshd_config, root/, tmp/ */
	const char *fallback_kernel;	/* what power-on boots */
	const char *vlab_binary;	/* for board-exec */
	const char *tool_binary;	/* rackbisect-board-tool, the boards' tools */
	const char *cgroup_path;	/* the board's cgroup v2 directory */
	/* Told whenever the board's state changes (e.g. it came up). */
	void (*on_state_change)(void *context, struct board_host *host);
	void *context;
};

int board_host_create(uv_loop_t *loop, const struct board_host_options *options,
		      struct board_host **host, char *error, size_t error_len);
/* Ends every process of the board and frees it once libuv closed its handles. */
void board_host_destroy(struct board_host *host);

int board_host_power_on(struct board_host *host);
void board_host_power_off(struct board_host *host);
int board_host_power_cycle(struct board_host *host);
/* Fault injection: the host hangs now. */
void board_host_hang(struct board_host *host);
/* A power switch command (on, off, cycle) is about to act on the board: the
 * fault the lab file planned for it now (FAULT_POWER_ERROR,
 * FAULT_POWER_TIMEOUT), else FAULT_KIND_COUNT. */
enum fault_kind board_host_power_fault(struct board_host *host);

/* The board's fault plan: what struck so far, how many events it saw. */
const struct fault_plan *board_host_faults(const struct board_host *host);
enum board_power_state board_host_state(const struct board_host *host);
const char *board_host_state_name(enum board_power_state state);
const char *board_host_release(const struct board_host *host);
const char *board_host_name(const struct board_host *host);
unsigned int board_host_boot_count(const struct board_host *host);
const char *board_host_last_error(const struct board_host *host);

#endif
