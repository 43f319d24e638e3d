/* lab_state.c - a virtual lab's state directory: keys, configs, kernels. */
#include "virtual/lab/lab_state.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "path.h"
#include "subprocess.h"
#include "virtual/board/board_host.h"
#include "virtual/modelkernel/variant.h"

/* The release a board shows after a power cycle, distinct from any build. */
#define FALLBACK_LOCALVERSION "LOCALVERSION=-lab-fallback"

static unsigned int fnv1a(const char *text)
{
	unsigned int hash = 2166136261u;

	while (*text)
		hash = (hash ^ (unsigned char)*text++) * 16777619u;
	return hash;
}

int lab_state_locate(const struct lab *lab, const char *option, struct lab_state *state)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char base[400];

	if (option && *option)
		snprintf(base, sizeof(base), "%s", option);
	else if (lab->state_dir)
		snprintf(base, sizeof(base), "%s", lab->state_dir);
	else if (xdg && *xdg)
		snprintf(base, sizeof(base), "%s/rackbisect", xdg);
	else if (home && *home)
		snprintf(base, sizeof(base), "%s/.local/state/rackbisect", home);
	else
		return -ENOENT;
	if (base[0] != '/') {
		/* sshd re-executes itself from / for each connection: a relative
		 * host key path would fail there, and every login be reset */
		char cwd[PATH_MAX], relative[sizeof(base)];

		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		snprintf(relative, sizeof(relative), "%s", base);
		if ((size_t)snprintf(base, sizeof(base), "%s/%s", cwd, relative) >= sizeof(base))
			return -ENAMETOOLONG;
	}
	memset(state, 0, sizeof(*state));
	snprintf(state->base, sizeof(state->base), "%s", base);
	snprintf(state->dir, sizeof(state->dir), "%s/labs/%s", base, lab->name);
	snprintf(state->pid_file, sizeof(state->pid_file), "%s/supervisor.pid", state->dir);
	snprintf(state->control_socket, sizeof(state->control_socket), "%s/control.sock", state->dir);
	snprintf(state->log, sizeof(state->log), "%s/supervisor.log", state->dir);
	snprintf(state->client_key, sizeof(state->client_key), "%s/id_ed25519", state->dir);
	snprintf(state->authorized_keys, sizeof(state->authorized_keys), "%s/authorized_keys",
		 state->dir);
	snprintf(state->known_hosts, sizeof(state->known_hosts), "%s/known_hosts", state->dir);
	snprintf(state->ssh_config, sizeof(state->ssh_config), "%s/ssh_config", state->dir);
	snprintf(state->fallback_dir, sizeof(state->fallback_dir), "%s/fallback-kernel", state->dir);
	snprintf(state->fallback_kernel, sizeof(state->fallback_kernel),
		 "%s/arch/x86/boot/bzImage", state->fallback_dir);
	/* One cgroup tree per lab state directory, so two labs never meet. */
	snprintf(state->cgroup_name, sizeof(state->cgroup_name), "lab-%s-%08x", lab->name,
		 fnv1a(state->dir));
	return 0;
}

void lab_state_board_dir(const struct lab_state *state, const char *board, char *out, size_t len)
{
	snprintf(out, len, "%s/boards/%s", state->dir, board);
}

static int make_key(const char *path, const char *comment, char *error, size_t error_len)
{
	char *argv[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", (char *)comment,
			 "-f", (char *)path, NULL };
	int rc;

	if (access(path, R_OK) == 0)
		return 0;
	rc = subprocess_run(argv, NULL, NULL);
	if (rc != 0) {
		snprintf(error, error_len, "ssh-keygen could not make %s (status %d): is openssh-client installed? (make deps)",
			 path, rc);
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}

static int write_sshd_config(const struct lab_state *state, const struct lab_board *board,
			     const char *board_dir)
{
	char text[4096], path[700];

	snprintf(text, sizeof(text),
		 "# Written by rackbisect-vlab up: the sshd of virtual board %s.\n"
		 "ListenAddress %s:%u\n"
		 "HostKey %s/ssh_host_ed25519_key\n"
		 "PidFile none\n"
		 "AuthorizedKeysFile %s\n"
		 "PermitRootLogin prohibit-password\n"
		 "PasswordAuthentication no\n"
		 "KbdInteractiveAuthentication no\n"
		 "UsePAM no\n"
		 "StrictModes no\n"
		 "PrintMotd no\n"
		 "PrintLastLog no\n"
		 "X11Forwarding no\n"
		 "MaxStartups 200:30:400\n"
		 "MaxSessions 64\n"
		 "Subsystem sftp internal-sftp\n"
		 "LogLevel INFO\n"
		 /* the board's own /tmp for its sessions' temporary files: the
		  * boards share the host's /tmp, which no reboot empties */
		 "SetEnv TMPDIR=%s/" BOARD_HOST_TMP_DIR "\n",
		 board->name, board->host, board->port, board_dir, state->authorized_keys, board_dir);
	if (path_format(path, sizeof(path), "%s/sshd_config", board_dir))
		return -ENAMETOOLONG;
	return files_write_atomic(path, text);
}

/* "[host]:port key" lines for every board, and an ssh_config naming them. */
static int write_client_files(const struct lab *lab, const struct lab_state *state)
{
	size_t known_len = 0, config_len = 0, i;
	char *known = NULL, *config = NULL;
	FILE *known_stream = open_memstream(&known, &known_len);
	FILE *config_stream = open_memstream(&config, &config_len);
	int rc = 0;

	for (i = 0; i < lab->board_count && known_stream && config_stream; i++) {
		const struct lab_board *board = &lab->boards[i];
		char dir[700], key_path[800];
		char *public_key;

		lab_state_board_dir(state, board->name, dir, sizeof(dir));
		snprintf(key_path, sizeof(key_path), "%s/ssh_host_ed25519_key.pub", dir);
		public_key = files_read_text(key_path);
		if (!public_key) {
			rc = -ENOENT;
			break;
		}
		if (board->port == 22)
			fprintf(known_stream, "%s %s", board->host, public_key);
		else
			fprintf(known_stream, "[%s]:%u %s", board->host, board->port, public_key);
		free(public_key);
		fprintf(config_stream,
			"Host %s\n  HostName %s\n  Port %u\n  User %s\n  IdentityFile %s\n"
			"  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n"
			"  BatchMode yes\n  ConnectTimeout 5\n  ServerAliveInterval 2\n"
			"  ServerAliveCountMax 3\n  LogLevel ERROR\n\n",
			board->name, board->host, board->port, board->user, state->client_key,
			state->known_hosts);
	}
	if (known_stream)
		fclose(known_stream);
	if (config_stream)
		fclose(config_stream);
	if (!known || !config)
		rc = -ENOMEM;
	if (!rc)
		rc = files_write_atomic(state->known_hosts, known);
	if (!rc)
		rc = files_write_atomic(state->ssh_config, config);
	free(known);
	free(config);
	return rc;
}

static int prepare_board(const struct lab_state *state, const struct lab_board *board,
			 char *error, size_t error_len)
{
	char dir[700], key[800];
	int rc;

	if (strcmp(board->user, "root") != 0) {
		snprintf(error, error_len, "board %s: a virtual board logs in as root, not '%s'",
			 board->name, board->user);
		return -EINVAL;
	}
	lab_state_board_dir(state, board->name, dir, sizeof(dir));
	if ((rc = path_make_dirs(dir)) != 0) {
		snprintf(error, error_len, "cannot create %s: %s", dir, strerror(-rc));
		return rc;
	}
	snprintf(key, sizeof(key), "%s/ssh_host_ed25519_key", dir);
	if ((rc = make_key(key, board->name, error, error_len)) != 0)
		return rc;
	if ((rc = write_sshd_config(state, board, dir)) != 0)
		snprintf(error, error_len, "cannot write %s/sshd_config: %s", dir, strerror(-rc));
	return rc;
}

/* The installed kernel of every board: v3.3's driver, with a release of its
 * own so a power-cycled board is told apart from one that booted v3.3. */
static int prepare_fallback_kernel(const struct lab_state *state, char *error, size_t error_len)
{
	char *relabel[] = { "make", "-s", "-C", (char *)state->fallback_dir, FALLBACK_LOCALVERSION, NULL };
	char built[1024];
	int rc;

	if (access(state->fallback_kernel, R_OK) == 0)
		return 0;
	rc = modelkernel_build_variant(DRIVER_VARIANT_V3_3, state->fallback_dir, built, sizeof(built));
	if (!rc && subprocess_run(relabel, NULL, NULL) != 0)
		rc = -EIO;
	if (rc)
		snprintf(error, error_len, "cannot build the fallback kernel in %s: %s",
			 state->fallback_dir, strerror(-rc));
	return rc;
}

int lab_state_prepare(const struct lab *lab, const struct lab_state *state,
		      char *error, size_t error_len)
{
	char *public_key;
	size_t i;
	int rc;

	if ((rc = path_make_dirs(state->dir)) != 0) {
		snprintf(error, error_len, "cannot create the lab's state directory %s: %s",
			 state->dir, strerror(-rc));
		return rc;
	}
	if ((rc = make_key(state->client_key, "rackbisect-lab", error, error_len)) != 0)
		return rc;
	{
		char public_path[700];

		snprintf(public_path, sizeof(public_path), "%s.pub", state->client_key);
		public_key = files_read_text(public_path);
	}
	if (!public_key || (rc = files_write_atomic(state->authorized_keys, public_key)) != 0) {
		free(public_key);
		snprintf(error, error_len, "cannot write %s", state->authorized_keys);
		return rc ? rc : -EIO;
	}
	free(public_key);
	for (i = 0; i < lab->board_count; i++) {
		if ((rc = prepare_board(state, &lab->boards[i], error, error_len)) != 0)
			return rc;
	}
	if ((rc = write_client_files(lab, state)) != 0) {
		snprintf(error, error_len, "cannot write %s and %s: %s", state->known_hosts,
			 state->ssh_config, strerror(-rc));
		return rc;
	}
	return prepare_fallback_kernel(state, error, error_len);
}

/* True when /proc/PID/cmdline is "...rackbisect-vlab serve ...". */
static int is_our_supervisor(int pid)
{
	char proc[64], cmdline[4096];
	FILE *file;
	size_t len;

	snprintf(proc, sizeof(proc), "/proc/%d/cmdline", pid);
	file = fopen(proc, "r");
	if (!file)
		return 0;
	len = fread(cmdline, 1, sizeof(cmdline) - 1, file);
	fclose(file);
	cmdline[len] = '\0';
	return strstr(cmdline, "rackbisect-vlab") && strlen(cmdline) + 1 < len &&
	       strcmp(cmdline + strlen(cmdline) + 1, "serve") == 0;
}

int lab_state_running_pid(const struct lab_state *state)
{
	char *text = files_read_text(state->pid_file);
	int pid;

	if (!text)
		return 0;
	pid = atoi(text);
	free(text);
	/* Only our own supervisor counts: a recycled pid is someone else's. */
	return pid > 0 && is_our_supervisor(pid) ? pid : 0;
}
