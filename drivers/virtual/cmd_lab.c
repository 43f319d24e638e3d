/*
 * rackbisect-vlab up|down|status|power|hang|serve: a virtual lab's life.
 *
 * `up` prepares the lab's state (keys, sshd configs, fallback kernel), starts
 * the supervisor (`serve`) in the background and returns once every board has
 * booted and its sshd listens. Every other command talks to the supervisor
 * over its control socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "config.h"
#include "path.h"
#include "virtual/board/fault_plan.h"
#include "virtual/board/cgroup.h"
#include "virtual/lab/lab_state.h"
#include "virtual/lab/lab_supervisor.h"
#include "virtual/sim/sim.h"
#include "virtual/vlab_commands.h"
#include "virtual/vlab_paths.h"

#define DEFAULT_LAB "labs/virtual.yaml"
#define UP_TIMEOUT_MS 60000
#define DOWN_TIMEOUT_MS 20000
#define CONTROL_TIMEOUT_S 30

struct lab_arguments {
	const char *lab_path;
	const char *state;
	const char *board;
	const char *action;
	int json;
	int ready_fd;
};

/* ---- arguments and the lab file ---------------------------------------- */

#define HELP_SHOWN (-2)

/* Parses options and up to three positional arguments (into board, action).
 * Returns the positional count, HELP_SHOWN, or -1 after printing the error. */
static int parse_arguments(int argc, char **argv, struct lab_arguments *args, const char *usage)
{
	const char *positional[3] = { 0 };
	int count = 0, i;

	memset(args, 0, sizeof(*args));
	args->ready_fd = -1;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: rackbisect-vlab %s %s\n", argv[0], usage);
			return HELP_SHOWN;
		} else if (strcmp(argv[i], "--state") == 0 && i + 1 < argc) {
			args->state = argv[++i];
		} else if (strcmp(argv[i], "--lab") == 0 && i + 1 < argc) {
			args->lab_path = argv[++i];
		} else if (strcmp(argv[i], "--json") == 0) {
			args->json = 1;
		} else if (strcmp(argv[i], "--ready-fd") == 0 && i + 1 < argc) {
			args->ready_fd = atoi(argv[++i]);
		} else if (argv[i][0] == '-' || count == 3) {
			fprintf(stderr, "rackbisect-vlab %s: unexpected argument '%s'\nusage: rackbisect-vlab %s %s\n",
				argv[0], argv[i], argv[0], usage);
			return -1;
		} else {
			positional[count++] = argv[i];
		}
	}
	args->board = positional[0];
	args->action = positional[1];
	return count;
}

static int check_virtual_lab(const struct lab *lab)
{
	char where[600];
	size_t i, j;

	if (strcmp(lab->type, "virtual") != 0) {
		fprintf(stderr, "rackbisect-vlab: %s: lab '%s' is of type %s; rackbisect-vlab runs only virtual labs\n",
			lab->path, lab->name, lab->type);
		return -EINVAL;
	}
	for (i = 0; i < lab->board_count; i++) {
		const struct lab_board *board = &lab->boards[i];
		enum sim_chip chip;
		struct sim_knobs knobs;
		struct fault_plan faults;
		char error[1024];

		if (sim_chip_from_name(board->chip, &chip) != 0) {
			config_location_format(&board->chip_where, where, sizeof(where));
			fprintf(stderr, "%s: board '%s': unknown chip '%s' (known: ar5416, ar9160, ar9280, ar9285, ar9287, ar9380, ar9462)\n",
				where, board->name, board->chip);
			return -EINVAL;
		}
		sim_knobs_default(&knobs);
		for (j = 0; j < board->knob_count; j++) {
			int rc = sim_knob_set(&knobs, board->knobs[j].name, board->knobs[j].value);

			if (rc) {
				config_location_format(&board->knobs[j].where, where, sizeof(where));
				fprintf(stderr, "%s: board '%s': %s %s=%s\n", where, board->name,
					rc == -ERANGE ? "out of range:" : "unknown knob or bad value:",
					board->knobs[j].name, board->knobs[j].value);
				return -EINVAL;
			}
		}
		if (fault_plan_load(&faults, board, error, sizeof(error)) != 0) {
			fprintf(stderr, "%s\n", error);
			return -EINVAL;
		}
	}
	return 0;
}

/* Loads and checks the lab and finds its state. Exit status on failure, else 0. */
static int open_lab(const char *path, const char *state_option, struct lab **lab,
		    struct lab_state *state)
{
	char error[1200];

	if (lab_load(path, lab, error, sizeof(error)) != 0) {
		fprintf(stderr, "rackbisect-vlab: %s\n", error);
		return VLAB_EXIT_USAGE;
	}
	if (check_virtual_lab(*lab) != 0) {
		lab_free(*lab);
		*lab = NULL;
		return VLAB_EXIT_USAGE;
	}
	if (lab_state_locate(*lab, state_option, state) != 0) {
		fprintf(stderr, "rackbisect-vlab: no state directory: give --state DIR or set XDG_STATE_HOME or HOME\n");
		lab_free(*lab);
		*lab = NULL;
		return VLAB_EXIT_USAGE;
	}
	return 0;
}

/* ---- the control socket ------------------------------------------------- */

/* Sends one command; returns the answer (malloc'd) or NULL with errno set. */
static char *control_request(const struct lab_state *state, const char *command)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	struct timeval timeout = { .tv_sec = CONTROL_TIMEOUT_S };
	char *answer = NULL;
	size_t len = 0, capacity = 0;
	int fd;

	if (strlen(state->control_socket) >= sizeof(address.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(address.sun_path, state->control_socket, strlen(state->control_socket) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	if (connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0 ||
	    write(fd, command, strlen(command)) != (ssize_t)strlen(command)) {
		close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > capacity) {
			char *grown = realloc(answer, capacity = len + 8192);
			if (!grown)
				break;
			answer = grown;
		}
		n = read(fd, answer + len, 4096);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (answer)
		answer[len] = '\0';
	return answer;
}

static int print_status(const struct lab *lab, const struct lab_state *state, int as_json)
{
	char *answer = control_request(state, "status\n");
	json_t *root, *boards, *board;
	size_t i;

	if (!answer || !*answer) {
		free(answer);
		fprintf(stderr, "rackbisect-vlab: lab '%s' is down (no supervisor answers at %s); start it with: rackbisect-vlab up %s\n",
			lab->name, state->control_socket, lab->path);
		return VLAB_EXIT_INFRA;
	}
	if (as_json) {
		fputs(answer, stdout);
		free(answer);
		return VLAB_EXIT_OK;
	}
	root = json_loads(answer, 0, NULL);
	free(answer);
	boards = json_object_get(root, "boards");
	printf("lab %s: supervisor pid %lld, state %s\n", lab->name,
	       (long long)json_integer_value(json_object_get(root, "pid")), state->dir);
	printf("%-8s %-7s %-5s %-24s %-22s %s\n", "BOARD", "CHIP", "STATE", "KERNEL", "SSH", "CONSOLE");
	json_array_foreach(boards, i, board) {
		char ssh[64];

		snprintf(ssh, sizeof(ssh), "%s:%lld", json_string_value(json_object_get(board, "host")),
			 (long long)json_integer_value(json_object_get(board, "port")));
		printf("%-8s %-7s %-5s %-24s %-22s %lld\n",
		       json_string_value(json_object_get(board, "name")),
		       json_string_value(json_object_get(board, "chip")),
		       json_string_value(json_object_get(board, "state")),
		       json_string_value(json_object_get(board, "release")), ssh,
		       (long long)json_integer_value(json_object_get(board, "console_port")));
	}
	printf("ssh: ssh -F %s BOARD\n", state->ssh_config);
	json_decref(root);
	return VLAB_EXIT_OK;
}

/* ---- up ----------------------------------------------------------------- */

static int start_supervisor(const struct lab *lab, const struct lab_state *state, int *ready_fd)
{
	char vlab[PATH_MAX], fd_text[16];
	int ready[2], log_fd;
	pid_t pid;

	if (vlab_self_path(vlab, sizeof(vlab)) != 0 || pipe(ready) != 0)
		return -errno;
	log_fd = open(state->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char *args[] = { vlab, "serve", lab->path, "--state", (char *)state->base,
				 "--ready-fd", fd_text, NULL };
		int null_fd = open("/dev/null", O_RDONLY);

		/* Detached: the supervisor outlives `up` and the terminal. */
		setsid();
		dup2(null_fd, 0);
		dup2(log_fd, 1);
		dup2(log_fd, 2);
		close(ready[0]);
		snprintf(fd_text, sizeof(fd_text), "%d", ready[1]);
		execv(vlab, args);
		_exit(127);
	}
	close(log_fd);
	close(ready[1]);
	*ready_fd = ready[0];
	return 0;
}

/* Reads the supervisor's "ready" / "error: ..." line, up to the timeout. */
static int wait_until_ready(int fd, char *message, size_t len)
{
	struct pollfd watch = { .fd = fd, .events = POLLIN };
	size_t used = 0;

	message[0] = '\0';
	while (used + 1 < len) {
		ssize_t n;
		int ready = poll(&watch, 1, UP_TIMEOUT_MS);

		if (ready <= 0) {
			snprintf(message, len, "timed out after %d s", UP_TIMEOUT_MS / 1000);
			return -ETIMEDOUT;
		}
		n = read(fd, message + used, len - 1 - used);
		if (n <= 0)
			break;
		used += (size_t)n;
		message[used] = '\0';
		if (strchr(message, '\n'))
			break;
	}
	message[strcspn(message, "\n")] = '\0';
	if (strcmp(message, "ready") == 0)
		return 0;
	if (!message[0])
		snprintf(message, len, "the supervisor exited before it was ready");
	return -EIO;
}

#define UP_USAGE "LAB.yaml [--state DIR]\n" \
	"Starts the lab's boards: one sshd per board on its own address, a console\n" \
	"on TCP, virtual power; returns once every board booted its fallback kernel."

/* The exit status for a command whose positional arguments were not right. */
static int command_usage_status(int parsed, const char *command, const char *usage)
{
	if (parsed == HELP_SHOWN)
		return VLAB_EXIT_OK;
	if (parsed >= 0)
		fprintf(stderr, "usage: rackbisect-vlab %s %s\n", command, usage);
	return VLAB_EXIT_USAGE;
}

/* The start every LAB.yaml command shares: options, then the lab and its
 * state. Returns -1 to go on, else the exit status to return. */
static int open_lab_command(int argc, char **argv, const char *usage, struct lab_arguments *args,
			    struct lab **lab, struct lab_state *state)
{
	int rc = parse_arguments(argc, argv, args, usage);

	if (rc != 1)
		return command_usage_status(rc, argv[0], usage);
	rc = open_lab(args->board, args->state, lab, state);
	return rc ? rc : -1;
}

int vlab_cmd_up(int argc, char **argv)
{
	struct lab_arguments args;
	struct lab_state state;
	struct lab *lab = NULL;
	char error[1200];
	int rc, ready_fd = -1;

	if ((rc = open_lab_command(argc, argv, UP_USAGE, &args, &lab, &state)) >= 0)
		return rc;
	if (lab_state_running_pid(&state)) {
		printf("lab %s is already up\n", lab->name);
		rc = print_status(lab, &state, 0);
		lab_free(lab);
		return rc;
	}
	printf("preparing lab %s in %s ...\n", lab->name, state.dir);
	fflush(stdout);
	if (lab_state_prepare(lab, &state, error, sizeof(error)) != 0) {
		fprintf(stderr, "rackbisect-vlab up: %s\n", error);
		lab_free(lab);
		return VLAB_EXIT_INFRA;
	}
	if ((rc = start_supervisor(lab, &state, &ready_fd)) != 0) {
		fprintf(stderr, "rackbisect-vlab up: cannot start the supervisor: %s\n", strerror(-rc));
		lab_free(lab);
		return VLAB_EXIT_INFRA;
	}
	rc = wait_until_ready(ready_fd, error, sizeof(error));
	close(ready_fd);
	if (rc) {
		fprintf(stderr, "rackbisect-vlab up: lab %s did not start: %s (log: %s)\n", lab->name,
			error, state.log);
		lab_free(lab);
		return VLAB_EXIT_INFRA;
	}
	rc = print_status(lab, &state, 0);
	lab_free(lab);
	return rc;
}

/* ---- down --------------------------------------------------------------- */

/* Waits for `pid` to exit, by a pidfd (poll wakes when it exits). */
static int wait_for_exit(int pid, int timeout_ms)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd watch;
	int ready;

	if (fd < 0)
		return errno == ESRCH ? 0 : -errno;
	watch.fd = fd;
	watch.events = POLLIN;
	ready = poll(&watch, 1, timeout_ms);
	close(fd);
	return ready > 0 ? 0 : -ETIMEDOUT;
}

/* Ends what a supervisor that died (SIGKILL, crash) left behind: every
 * process in the lab's board cgroups, which only this lab's boards use. */
static int end_orphaned_boards(const struct lab *lab, const struct lab_state *state)
{
	char root[512], board_cgroup[2048], lab_cgroup[1024];
	int ended = 0;
	size_t i;

	if (cgroup_find_root(root, sizeof(root)) != 0 ||
	    path_format(lab_cgroup, sizeof(lab_cgroup), "%s/rackbisect/%s", root, state->cgroup_name))
		return 0;
	for (i = 0; i < lab->board_count; i++) {
		if (path_format(board_cgroup, sizeof(board_cgroup), "%s/%s", lab_cgroup,
				lab->boards[i].name) || access(board_cgroup, F_OK) != 0)
			continue;
		if (cgroup_process_count(board_cgroup) > 0)
			ended++;
		cgroup_freeze(board_cgroup, 0);
		cgroup_kill_all(board_cgroup, DOWN_TIMEOUT_MS);
		cgroup_remove(board_cgroup);
	}
	cgroup_remove(lab_cgroup);
	return ended;
}

#define DOWN_USAGE "LAB.yaml [--state DIR]\n" \
	"Stops every process `up` started for the lab (supervisor, sshds, sessions)."

int vlab_cmd_down(int argc, char **argv)
{
	struct lab_arguments args;
	struct lab_state state;
	struct lab *lab = NULL;
	char *answer;
	int rc, pid;

	if ((rc = open_lab_command(argc, argv, DOWN_USAGE, &args, &lab, &state)) >= 0)
		return rc;
	pid = lab_state_running_pid(&state);
	if (!pid) {
		int orphans = end_orphaned_boards(lab, &state);

		if (orphans)
			printf("lab %s had no supervisor; ended the processes of %d boards it left\n",
			       lab->name, orphans);
		else
			printf("lab %s is not up\n", lab->name);
		lab_free(lab);
		return VLAB_EXIT_OK;
	}
	answer = control_request(&state, "shutdown\n");
	free(answer);
	if (wait_for_exit(pid, DOWN_TIMEOUT_MS) != 0) {
		/* It is our supervisor (checked by its command line): ask harder. */
		fprintf(stderr, "rackbisect-vlab down: supervisor %d did not stop; sending SIGTERM\n", pid);
		kill(pid, SIGTERM);
		if (wait_for_exit(pid, DOWN_TIMEOUT_MS) != 0) {
			fprintf(stderr, "rackbisect-vlab down: supervisor %d still runs; see %s\n", pid,
				state.log);
			lab_free(lab);
			return VLAB_EXIT_INFRA;
		}
	}
	end_orphaned_boards(lab, &state);
	printf("lab %s is down\n", lab->name);
	lab_free(lab);
	return VLAB_EXIT_OK;
}

/* ---- status, power, hang ------------------------------------------------ */

#define STATUS_USAGE "LAB.yaml [--state DIR] [--json]\n" \
	"Shows every board: chip, power state, booted kernel, SSH address, console port."

int vlab_cmd_status(int argc, char **argv)
{
	struct lab_arguments args;
	struct lab_state state;
	struct lab *lab = NULL;
	int rc;

	if ((rc = open_lab_command(argc, argv, STATUS_USAGE, &args, &lab, &state)) >= 0)
		return rc;
	rc = print_status(lab, &state, args.json);
	lab_free(lab);
	return rc;
}

/* Sends "VERB BOARD [ACTION]" and prints the answer. */
static int board_command(const struct lab_arguments *args, const char *verb)
{
	struct lab_state state;
	struct lab *lab = NULL;
	char command[512], *answer;
	int rc;

	if ((rc = open_lab(args->lab_path ? args->lab_path : DEFAULT_LAB, args->state, &lab, &state)))
		return rc;
	if (!lab_find_board(lab, args->board)) {
		fprintf(stderr, "rackbisect-vlab %s: no board '%s' in %s\n", verb, args->board, lab->path);
		lab_free(lab);
		return VLAB_EXIT_USAGE;
	}
	snprintf(command, sizeof(command), "%s %s%s%s\n", verb, args->board,
		 args->action ? " " : "", args->action ? args->action : "");
	answer = control_request(&state, command);
	if (!answer || !*answer) {
		fprintf(stderr, "rackbisect-vlab %s: lab %s is down; start it with: rackbisect-vlab up %s\n",
			verb, lab->name, lab->path);
		rc = VLAB_EXIT_INFRA;
	} else if (strncmp(answer, "ok", 2) == 0) {
		printf("%s: %s", args->board, answer + (answer[2] == ' ' ? 3 : 2));
		rc = VLAB_EXIT_OK;
	} else {
		fprintf(stderr, "rackbisect-vlab %s: %s", verb, answer + (strncmp(answer, "error ", 6) ? 0 : 6));
		rc = VLAB_EXIT_INFRA;
	}
	free(answer);
	lab_free(lab);
	return rc;
}

#define POWER_USAGE "[--lab LAB.yaml] [--state DIR] BOARD on|off|cycle|status\n" \
	"Switches a board's virtual power. Off: no SSH, no console. On: it boots its\n" \
	"fallback kernel. The lab defaults to " DEFAULT_LAB "."

int vlab_cmd_power(int argc, char **argv)
{
	struct lab_arguments args;
	int rc = parse_arguments(argc, argv, &args, POWER_USAGE);

	if (rc != 2)
		return command_usage_status(rc, argv[0], POWER_USAGE);
	if (strcmp(args.action, "on") && strcmp(args.action, "off") && strcmp(args.action, "cycle") &&
	    strcmp(args.action, "status")) {
		fprintf(stderr, "rackbisect-vlab power: unknown action '%s' (on, off, cycle, status)\n",
			args.action);
		return VLAB_EXIT_USAGE;
	}
	return board_command(&args, "power");
}

#define HANG_USAGE "[--lab LAB.yaml] [--state DIR] BOARD\n" \
	"Fault injection: the board's host hangs now (SSH and console freeze) until\n" \
	"its power is cycled."

int vlab_cmd_hang(int argc, char **argv)
{
	struct lab_arguments args;
	int rc = parse_arguments(argc, argv, &args, HANG_USAGE);

	if (rc != 1)
		return command_usage_status(rc, argv[0], HANG_USAGE);
	return board_command(&args, "hang");
}

/* ---- serve -------------------------------------------------------------- */

#define SERVE_USAGE "LAB.yaml [--state DIR] [--ready-fd N]\n" \
	"Runs the lab's supervisor in the foreground (`up` starts it in the background)."

int vlab_cmd_serve(int argc, char **argv)
{
	struct lab_supervisor_options options = { 0 };
	char vlab[PATH_MAX], tool[PATH_MAX];
	struct lab_arguments args;
	struct lab_state state;
	struct lab *lab = NULL;
	int rc;

	if ((rc = open_lab_command(argc, argv, SERVE_USAGE, &args, &lab, &state)) >= 0)
		return rc;
	if (vlab_self_path(vlab, sizeof(vlab)) != 0 || vlab_find_tool_binary(tool, sizeof(tool)) != 0) {
		fprintf(stderr, "rackbisect-vlab serve: cannot find rackbisect-board-tool beside %s (run make)\n",
			vlab);
		lab_free(lab);
		return VLAB_EXIT_INFRA;
	}
	options.lab = lab;
	options.state = &state;
	options.vlab_binary = vlab;
	options.tool_binary = tool;
	options.ready_fd = args.ready_fd;
	rc = lab_supervisor_run(&options);
	lab_free(lab);
	return rc;
}
