/*
 * lab_state.h - where a virtual lab keeps what it runs on: the state
 * directory (`--state DIR`, default $XDG_STATE_HOME/rackbisect) holds
 * labs/NAME/ with the supervisor's pid, control socket and log, the lab's SSH
 * client key, known_hosts and an ssh_config naming every board, the fallback
 * kernel, and per board its host key, sshd_config, private files and tmp/.
 */
#ifndef RB_LAB_STATE_H
#define RB_LAB_STATE_H

#include <stddef.h>

#include "config.h"

struct lab_state {
	char base[400];			/* the --state directory */
	char dir[512];
	char pid_file[600];
	char control_socket[600];
	char log[600];
	char client_key[600];		/* the key that logs in to every board */
	char authorized_keys[600];
	char known_hosts[600];		/* every board's host key, written by up */
	char ssh_config[600];		/* `ssh -F ssh_config vb01` */
	char fallback_dir[600];
	char fallback_kernel[700];	/* what a board boots after a power cycle */
	char cgroup_name[300];		/* under <cgroup2>/rackbisect/ */
};

/* Resolves the state directory: `option` if given, else $XDG_STATE_HOME
 * /rackbisect, else ~/.local/state/rackbisect; then labs/<lab name>. */
int lab_state_locate(const struct lab *lab, const char *option, struct lab_state *state);
void lab_state_board_dir(const struct lab_state *state, const char *board, char *out, size_t len);

/*
 * Creates everything `up` needs that is missing: directories, keys (via
 * ssh-keygen), sshd configs, known_hosts, ssh_config, the fallback kernel.
 * Existing keys are kept, so known_hosts stays valid across up/down.
 */
int lab_state_prepare(const struct lab *lab, const struct lab_state *state,
		      char *error, size_t error_len);

/* The supervisor's pid if one runs for this lab (checked by /proc), else 0. */
int lab_state_running_pid(const struct lab_state *state);

#endif
