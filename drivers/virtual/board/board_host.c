/* board_host.c - a virtual board: simulator, sshd, console, power, boot. */
#include "virtual/board/board_host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "path.h"
#include "virtual/board/board_root.h"
#include "virtual/board/grub_firmware.h"
#include "virtual/board/cgroup.h"
#include "virtual/board/fault_plan.h"
#include "virtual/board/tool_server.h"
#include "virtual/sim/sim.h"

#define KILL_TIMEOUT_MS 5000
/* `reboot` answers first, then the machine goes down, as a real one does. */
#define REBOOT_DELAY_MS 50
/* sshd is probed until it accepts: every 10 ms, for at most 10 s. */
#define SSHD_PROBE_INTERVAL_MS 10
#define SSHD_PROBE_TRIES 1000
/* ssh-drop-upload: the sessions end this long after `uname` answered,
 * while the coordinator is sending the kernel. */
#define UPLOAD_DROP_DELAY_MS 5

struct console_client {
	uv_tcp_t tcp;
	char discard[256];	/* input to the console is read and dropped */
	struct board_host *host;
	struct console_client *next;
};

struct board_host {
	uv_loop_t *loop;
	const struct lab_board *board;
	char dir[512];
	char root[600];
	char cgroup[1024];
	char sshd_config[600];
	char sshd_log[600];
	char vlab_binary[1024];
	char fallback_kernel[1024];
	char next_kernel[4096];		/* one-shot, from kexec -l */
	char next_command_line[4096];	/* its --append or --command-line */
	char release[256];
	char last_error[1024];
	struct board_root_paths paths;
	struct sim_board *sim;
	struct tool_server *tools;
	uv_tcp_t console_listener;
	struct console_client *console_clients;
	uint64_t console_next_line;
	uv_process_t *sshd;		/* the running one; each spawn has its own handle */
	uv_timer_t reboot_timer;
	int reboot_pending;
	struct fault_plan faults;
	uv_timer_t drop_timer;		/* ssh-drop-upload, a moment after uname */
	uv_timer_t slow_boot_timer;	/* slow-boot: sshd starts when it fires */
	int running_fallback;		/* the installed kernel runs, not one under test */
	uv_timer_t probe_timer;
	uv_tcp_t probe;
	uv_connect_t probe_request;
	int probe_tries;
	int probe_in_flight;
	void (*on_state_change)(void *context, struct board_host *host);
	void *context;
	enum board_power_state state;
	unsigned int boots;
	int handles_open;
	int destroying;
};

static void set_state(struct board_host *host, enum board_power_state state)
{
	if (host->state == state)
		return;
	host->state = state;
	if (host->on_state_change)
		host->on_state_change(host->context, host);
}

/* ---- console ------------------------------------------------------------ */

struct console_write {
	uv_write_t request;
	char *bytes;
};

static void on_console_written(uv_write_t *request, int status)
{
	struct console_write *write = (struct console_write *)request;

	(void)status;
	free(write->bytes);
	free(write);
}

static void console_send(struct board_host *host, const char *text, size_t len)
{
	struct console_client *client;

	for (client = host->console_clients; client; client = client->next) {
		struct console_write *write = calloc(1, sizeof(*write));
		uv_buf_t buf;

		if (!write || !(write->bytes = malloc(len))) {
			free(write);
			return;
		}
		memcpy(write->bytes, text, len);
		buf = uv_buf_init(write->bytes, (unsigned int)len);
		if (uv_write(&write->request, (uv_stream_t *)&client->tcp, &buf, 1,
			     on_console_written) != 0) {
			free(write->bytes);
			free(write);
		}
	}
}

/* Sends the kernel log lines printed since the last flush, as a serial line
 * carries them ("\r\n" endings). A hung or powered-off board sends nothing. */
static void console_flush(struct board_host *host)
{
	uint64_t next;

	if (!host->sim || host->state == BOARD_OFF)
		return;
	next = sim_board_log_next(host->sim);
	if (host->console_next_line > next)
		host->console_next_line = 0;	/* a new boot restarted the log */
	for (; host->console_next_line < next; host->console_next_line++) {
		const char *line = sim_board_log_line(host->sim, host->console_next_line);
		char buffer[1200];
		int len;

		if (!line)
			continue;
		len = snprintf(buffer, sizeof(buffer), "%s\r\n", line);
		console_send(host, buffer, (size_t)len < sizeof(buffer) ? (size_t)len : sizeof(buffer) - 1);
	}
}

static void on_console_client_closed(uv_handle_t *handle)
{
	free(handle->data);
}

static void drop_console_client(struct console_client *client)
{
	struct console_client **link = &client->host->console_clients;

	while (*link && *link != client)
		link = &(*link)->next;
	if (*link)
		*link = client->next;
	if (!uv_is_closing((uv_handle_t *)&client->tcp))
		uv_close((uv_handle_t *)&client->tcp, on_console_client_closed);
}

static void on_console_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
	struct console_client *client = handle->data;

	(void)suggested;
	buf->base = client->discard;
	buf->len = sizeof(client->discard);
}

static void on_console_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	(void)buf;
	if (nread < 0)
		drop_console_client(stream->data);
}

static void on_console_connection(uv_stream_t *listener, int status)
{
	struct board_host *host = listener->data;
	struct console_client *client;

	if (status < 0 || !(client = calloc(1, sizeof(*client))))
		return;
	client->host = host;
	uv_tcp_init(host->loop, &client->tcp);
	client->tcp.data = client;
	if (uv_accept(listener, (uv_stream_t *)&client->tcp) != 0) {
		uv_close((uv_handle_t *)&client->tcp, on_console_client_closed);
		return;
	}
	client->next = host->console_clients;
	host->console_clients = client;
	uv_read_start((uv_stream_t *)&client->tcp, on_console_alloc, on_console_read);
}

static int console_listen(struct board_host *host)
{
	struct sockaddr_storage address;
	int rc;

	if (!host->board->console_port)
		return 0;
	rc = uv_ip4_addr(host->board->host, (int)host->board->console_port,
			 (struct sockaddr_in *)&address);
	if (rc)
		rc = uv_ip6_addr(host->board->host, (int)host->board->console_port,
				 (struct sockaddr_in6 *)&address);
	if (rc)
		return rc;
	uv_tcp_init(host->loop, &host->console_listener);
	host->console_listener.data = host;
	host->handles_open++;
	rc = uv_tcp_bind(&host->console_listener, (struct sockaddr *)&address, 0);
	if (!rc)
		rc = uv_listen((uv_stream_t *)&host->console_listener, 16, on_console_connection);
	return rc;
}

/* ---- sshd --------------------------------------------------------------- */

static void on_sshd_closed(uv_handle_t *handle)
{
	struct board_host *host = handle->data;

	free(handle);
	host->handles_open--;
	if (host->destroying && host->handles_open == 0)
		free(host);
}

static void on_sshd_exit(uv_process_t *process, int64_t status, int signal)
{
	struct board_host *host = process->data;

	(void)status;
	(void)signal;
	if (host->sshd == process)
		host->sshd = NULL;
	uv_close((uv_handle_t *)process, on_sshd_closed);
}

/* -r: no re-exec of sshd for each connection (OpenSSH 9.2, Debian 12). A run
 * opens about three connections, and loading sshd and its libraries again for
 * each was about a tenth of a run's CPU on this lab's 2-core machines; the
 * address-space randomisation per connection that re-exec buys matters for a
 * host on a network, not for a board on loopback. */
static int start_sshd(struct board_host *host)
{
	char *args[] = {
		host->vlab_binary, "board-exec", "--root", host->root, "--cgroup", host->cgroup,
		"--", "/usr/sbin/sshd", "-D", "-e", "-r", "-f", host->sshd_config, NULL,
	};
	uv_process_options_t options = { 0 };
	uv_stdio_container_t stdio[3];
	uv_process_t *process;
	int log_fd, rc;

	log_fd = open(host->sshd_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0)
		return -errno;
	process = calloc(1, sizeof(*process));
	if (!process) {
		close(log_fd);
		return -ENOMEM;
	}
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_INHERIT_FD;
	stdio[1].data.fd = log_fd;
	stdio[2].flags = UV_INHERIT_FD;
	stdio[2].data.fd = log_fd;
	options.file = host->vlab_binary;
	options.args = args;
	options.stdio = stdio;
	options.stdio_count = 3;
	options.exit_cb = on_sshd_exit;
	process->data = host;
	rc = uv_spawn(host->loop, process, &options);
	close(log_fd);
	host->handles_open++;
	if (rc) {
		uv_close((uv_handle_t *)process, on_sshd_closed);
		return rc;
	}
	host->sshd = process;
	return 0;
}

/* Ends every process of the board: sshd, sessions, whatever they started. */
static void end_board_processes(struct board_host *host)
{
	uv_timer_stop(&host->drop_timer);
	uv_timer_stop(&host->slow_boot_timer);
	cgroup_freeze(host->cgroup, 0);
	if (cgroup_kill_all(host->cgroup, KILL_TIMEOUT_MS) != 0)
		snprintf(host->last_error, sizeof(host->last_error),
			 "processes of board %s did not end within %d ms", host->board->name,
			 KILL_TIMEOUT_MS);
	if (host->tools)
		tool_server_end_sessions(host->tools);
}

/* ---- boot --------------------------------------------------------------- */

static void refresh_files(struct board_host *host)
{
	struct sim_board_files files = {
		.debugfs_dir = host->paths.debugfs,
		.sysclass_dir = host->paths.sysclass,
		.uptime_file = host->paths.uptime,
	};

	sim_board_write_files(host->sim, &files);
}

static void console_login_prompt(struct board_host *host)
{
	char text[300];
	int len = snprintf(text, sizeof(text), "\r\nDebian GNU/Linux 12 %s ttyS0\r\n\r\n%s login: ",
			   host->board->name, host->board->name);

	console_send(host, text, (size_t)len);
}

/* ---- sshd readiness: a board is up once its sshd accepts connections ---- */

static void probe_sshd(struct board_host *host);

static void on_probe_timer(uv_timer_t *timer)
{
	probe_sshd(timer->data);
}

static void on_probe_closed(uv_handle_t *handle)
{
	struct board_host *host = handle->data;

	host->probe_in_flight = 0;
	host->handles_open--;
	if (host->destroying && host->handles_open == 0) {
		free(host);
		return;
	}
	if (host->destroying || host->state != BOARD_BOOTING)
		return;
	if (host->probe_tries >= SSHD_PROBE_TRIES) {
		snprintf(host->last_error, sizeof(host->last_error),
			 "board %s: sshd did not accept connections within %d ms (see %s)",
			 host->board->name, SSHD_PROBE_TRIES * SSHD_PROBE_INTERVAL_MS, host->sshd_log);
		set_state(host, BOARD_HUNG);
		return;
	}
	uv_timer_start(&host->probe_timer, on_probe_timer, SSHD_PROBE_INTERVAL_MS, 0);
}

static void on_probe_connected(uv_connect_t *request, int status)
{
	struct board_host *host = request->data;

	if (status == 0 && host->state == BOARD_BOOTING && !host->destroying) {
		console_login_prompt(host);
		fprintf(stderr, "board=%s event=up release=%s boot=%u\n", host->board->name,
			host->release, host->boots);
		set_state(host, BOARD_UP);
	}
	uv_close((uv_handle_t *)&host->probe, on_probe_closed);
}

static void probe_sshd(struct board_host *host)
{
	struct sockaddr_in address;

	if (host->probe_in_flight || host->state != BOARD_BOOTING || host->destroying)
		return;
	if (uv_ip4_addr(host->board->host, (int)host->board->port, &address) != 0) {
		snprintf(host->last_error, sizeof(host->last_error), "board %s: bad address %s",
			 host->board->name, host->board->host);
		set_state(host, BOARD_HUNG);
		return;
	}
	host->probe_tries++;
	host->probe_in_flight = 1;
	host->handles_open++;
	uv_tcp_init(host->loop, &host->probe);
	host->probe.data = host;
	host->probe_request.data = host;
	if (uv_tcp_connect(&host->probe_request, &host->probe, (struct sockaddr *)&address,
			   on_probe_connected) != 0)
		uv_close((uv_handle_t *)&host->probe, on_probe_closed);
}

static void boot_failed(struct board_host *host, const char *kernel, const char *why)
{
	snprintf(host->last_error, sizeof(host->last_error), "board %s did not boot %s: %s",
		 host->board->name, kernel, why);
	fprintf(stderr, "board=%s event=boot-failed kernel=%s cause=\"%s\"\n", host->board->name,
		kernel, why);
	/* Like a kernel that panics early: no SSH, no console, until power cycled. */
	host->release[0] = '\0';
	set_state(host, BOARD_HUNG);
}

/* What an installed kernel's boot loader passes, as on a rack machine. */
#define FALLBACK_COMMAND_LINE "BOOT_IMAGE=/boot/vmlinuz root=/dev/sda1 ro console=ttyS0,115200"

/* The booted kernel's userspace: sshd, then the probe that says "up". */
static int start_services(struct board_host *host, const char *kernel)
{
	int rc = start_sshd(host);

	if (rc) {
		boot_failed(host, kernel, "sshd did not start");
		return rc;
	}
	fprintf(stderr, "board=%s event=booted release=%s boot=%u\n", host->board->name,
		host->release, host->boots);
	host->probe_tries = 0;
	probe_sshd(host);
	return 0;
}

static void on_slow_boot_timer(uv_timer_t *timer)
{
	struct board_host *host = timer->data;

	if (host->state == BOARD_BOOTING && !host->destroying)
		start_services(host, host->release);
}

/* A boot starts with an empty /tmp (BOARD_HOST_TMP_DIR), as a tmpfs one does. */
static void empty_tmp(struct board_host *host)
{
	char tmp[700];
	int rc;

	snprintf(tmp, sizeof(tmp), "%s/" BOARD_HOST_TMP_DIR, host->dir);
	if ((rc = files_remove_tree(tmp)) != 0)
		fprintf(stderr, "board=%s event=warning detail=\"cannot empty %s: %s\"\n",
			host->board->name, tmp, strerror(-rc));
	if ((rc = path_make_dirs(tmp)) != 0)
		fprintf(stderr, "board=%s event=warning detail=\"cannot create %s: %s\"\n",
			host->board->name, tmp, strerror(-rc));
}

static int boot(struct board_host *host, const char *kernel, const char *command_line)
{
	int rc;

	end_board_processes(host);
	set_state(host, BOARD_OFF);
	empty_tmp(host);
	host->boots++;
	/* The simulator boots a private copy: a later upload over the same
	 * /boot file does not change what the running board executes. */
	rc = sim_board_boot(host->sim, kernel);
	if (rc) {
		boot_failed(host, kernel, sim_board_error(host->sim));
		return rc;
	}
	snprintf(host->release, sizeof(host->release), "%s", sim_board_release(host->sim));
	{
		char version[600];

		snprintf(version, sizeof(version), "%.500s\n", sim_board_banner(host->sim));
		board_root_write_boot(host->root, version, command_line);
	}
	host->console_next_line = 0;
	host->running_fallback = strcmp(kernel, host->fallback_kernel) == 0;
	set_state(host, BOARD_BOOTING);
	refresh_files(host);
	console_flush(host);
	if (!host->running_fallback &&
	    fault_plan_event(&host->faults, FAULT_EVENT_BOOT) == FAULT_HANG_BOOT) {
		fprintf(stderr, "board=%s event=fault fault=hang-boot\n", host->board->name);
		board_host_hang(host);
		return 0;	/* the boot started; it is the machine that stopped */
	}
	if (!host->running_fallback && fault_plan_boot_delay_ms(&host->faults)) {
		host->faults.struck[FAULT_SLOW_BOOT] = true;
		fprintf(stderr, "board=%s event=fault fault=slow-boot delay_ms=%u\n",
			host->board->name, fault_plan_boot_delay_ms(&host->faults));
		uv_timer_start(&host->slow_boot_timer, on_slow_boot_timer,
			       fault_plan_boot_delay_ms(&host->faults), 0);
		return 0;
	}
	return start_services(host, kernel);
}

static void board_path(const struct board_host *host, const char *cwd, const char *path,
		       char *out, size_t len);

/* A start without a kexec'd kernel: the firmware, then GRUB (grub_firmware.h)
 * boots the one-shot entry grub-reboot chose, or the installed kernel. */
static int boot_through_grub(struct board_host *host)
{
	char image[1024], kernel[sizeof(host->next_kernel)];
	char command_line[sizeof(host->next_command_line)], error[1200];
	int rc = grub_firmware_choose(host->paths.boot, image, sizeof(image), command_line,
				      sizeof(command_line), error, sizeof(error));

	if (error[0])
		fprintf(stderr, "board=%s event=grub detail=\"%s\"\n", host->board->name, error);
	if (rc != 1)
		return boot(host, host->fallback_kernel, FALLBACK_COMMAND_LINE);
	board_path(host, "/", image, kernel, sizeof(kernel));
	fprintf(stderr, "board=%s event=grub-once image=%s\n", host->board->name, image);
	return boot(host, kernel, command_line);
}

static void on_reboot_timer(uv_timer_t *timer)
{
	struct board_host *host = timer->data;
	char kernel[sizeof(host->next_kernel)], command_line[sizeof(host->next_command_line)];

	host->reboot_pending = 0;
	if (!host->next_kernel[0]) {
		boot_through_grub(host);
		return;
	}
	snprintf(kernel, sizeof(kernel), "%s", host->next_kernel);
	snprintf(command_line, sizeof(command_line), "%s", host->next_command_line);
	host->next_kernel[0] = '\0';	/* a kexec load serves one boot */
	boot(host, kernel, command_line);
}

static void schedule_reboot(struct board_host *host)
{
	if (host->reboot_pending)
		return;
	host->reboot_pending = 1;
	uv_timer_start(&host->reboot_timer, on_reboot_timer, REBOOT_DELAY_MS, 0);
}

/* ---- tools -------------------------------------------------------------- */

static void write_to_session(void *arg, int fd, const char *data, size_t len)
{
	tool_session_write(arg, fd, data, len);
}

/* /boot inside the board is the board's own boot directory. */
static void board_path(const struct board_host *host, const char *cwd, const char *path,
		       char *out, size_t len)
{
	char absolute[2048];

	if (path[0] == '/')
		snprintf(absolute, sizeof(absolute), "%s", path);
	else
		snprintf(absolute, sizeof(absolute), "%s/%s", cwd ? cwd : "/", path);
	if (strncmp(absolute, "/boot/", 6) == 0)
		snprintf(out, len, "%s/%s", host->paths.boot, absolute + 6);
	else
		snprintf(out, len, "%s", absolute);
}

static int run_kexec(struct board_host *host, struct tool_session *session,
		     const struct tool_request *request)
{
	char message[2200];
	const char *command_line = "";	/* what -l loads with, in any order */
	int i;

	for (i = 1; i < request->argc; i++) {
		const char *arg = request->argv[i];

		if (strncmp(arg, "--append=", 9) == 0 || strncmp(arg, "--command-line=", 15) == 0)
			command_line = strchr(arg, '=') + 1;
	}
	for (i = 1; i < request->argc; i++) {
		const char *arg = request->argv[i];

		if (strcmp(arg, "-e") == 0 || strcmp(arg, "--exec") == 0) {
			if (!host->next_kernel[0]) {
				tool_session_write(session, 2, "kexec: Nothing has been loaded!\n", 32);
				return 255;
			}
			schedule_reboot(host);
			return -1;	/* the machine goes down; kexec -e never returns */
		}
		if (strcmp(arg, "-u") == 0 || strcmp(arg, "--unload") == 0) {
			host->next_kernel[0] = '\0';
			return 0;
		}
		if ((strcmp(arg, "-l") == 0 || strcmp(arg, "--load") == 0) && i + 1 < request->argc) {
			board_path(host, request->cwd, request->argv[++i], host->next_kernel,
				   sizeof(host->next_kernel));
			snprintf(host->next_command_line, sizeof(host->next_command_line), "%s",
				 command_line);
			if (access(host->next_kernel, R_OK) != 0) {
				int len = snprintf(message, sizeof(message),
						   "kexec: cannot open %s: %s\n",
						   request->argv[i], strerror(errno));
				host->next_kernel[0] = '\0';
				tool_session_write(session, 2, message, (size_t)len);
				return 255;
			}
			continue;
		}
		/* --append, --command-line (above), --initrd, --reuse-cmdline: accepted */
	}
	return 0;
}

/* ---- fault injection (fault_plan.h) --------------------------------------- */

/* Every SSH session ends as in a network drop: each connection's sshd
 * and what it ran die; the listener goes on accepting new ones. */
static void drop_ssh_sessions(struct board_host *host)
{
	fprintf(stderr, "board=%s event=fault fault=ssh-drop\n", host->board->name);
	if (host->sshd)
		cgroup_kill_all_but(host->cgroup, host->sshd->pid);
	if (host->tools)
		tool_server_end_sessions(host->tools);
}

static void on_drop_timer(uv_timer_t *timer)
{
	struct board_host *host = timer->data;

	if (host->state == BOARD_UP && !host->destroying)
		drop_ssh_sessions(host);
}

static enum fault_event tool_event(const struct board_host *host, const struct tool_request *request)
{
	static const char *const workload_tools[] = { "iw", "ping", "ip", "sleep", NULL };
	int i;

	if (strcmp(request->argv[0], "kexec") == 0 && request->argc > 1 &&
	    (strcmp(request->argv[1], "-l") == 0 || strcmp(request->argv[1], "--load") == 0))
		return FAULT_EVENT_DEPLOY;
	if (host->running_fallback)
		return strcmp(request->argv[0], "uname") == 0 ? FAULT_EVENT_FALLBACK_UNAME
							      : FAULT_EVENT_COUNT;
	for (i = 0; workload_tools[i]; i++)
		if (strcmp(request->argv[0], workload_tools[i]) == 0)
			return FAULT_EVENT_WORKLOAD_TOOL;
	return FAULT_EVENT_COUNT;
}

/* Acts on the fault that strikes at this tool call. True when the call
 * must not be answered (the machine froze, reset or lost the session). */
static bool strike(struct board_host *host, enum fault_kind fault)
{
	if (fault == FAULT_KIND_COUNT)
		return false;
	fprintf(stderr, "board=%s event=fault fault=%s\n", host->board->name, fault_kind_name(fault));
	switch (fault) {
	case FAULT_HANG_DEPLOY:
	case FAULT_HANG_WORKLOAD:
		console_flush(host);
		board_host_hang(host);
		return true;
	case FAULT_SSH_DROP_WORKLOAD:
		drop_ssh_sessions(host);
		return true;
	case FAULT_STALL_WORKLOAD:
		return true;	/* as a tool stuck on a wedged driver: only a kill ends it */
	case FAULT_REBOOT_WORKLOAD:
		host->next_kernel[0] = '\0';	/* a reset boots what power-on boots */
		schedule_reboot(host);
		return true;
	case FAULT_SSH_DROP_UPLOAD:
		uv_timer_start(&host->drop_timer, on_drop_timer, UPLOAD_DROP_DELAY_MS, 0);
		return false;
	case FAULT_CONSOLE_DROP:
		while (host->console_clients)
			drop_console_client(host->console_clients);
		return false;
	default:
		return false;
	}
}

static void run_tool(void *context, struct tool_session *session, const struct tool_request *request)
{
	struct board_host *host = context;
	int status;

	if (host->state != BOARD_UP && host->state != BOARD_BOOTING)
		return;		/* a hung board answers nothing, ever */
	if (strike(host, fault_plan_event(&host->faults, tool_event(host, request))))
		return;
	if (strcmp(request->argv[0], "kexec") == 0) {
		status = run_kexec(host, session, request);
		if (status >= 0)
			tool_session_finish(session, status);
		return;
	}
	if (strcmp(request->argv[0], "reboot") == 0) {
		tool_session_finish(session, 0);
		schedule_reboot(host);
		return;
	}
	status = sim_board_run_tool(host->sim, request->argc, request->argv, write_to_session, session);
	if (status == SIM_TOOL_HUNG) {
		console_flush(host);
		board_host_hang(host);
		return;
	}
	refresh_files(host);
	console_flush(host);
	tool_session_finish(session, status);
}

/* ---- lifecycle ---------------------------------------------------------- */

static int make_sim(struct board_host *host, char *error, size_t error_len)
{
	const struct lab_board *board = host->board;
	struct sim_board_config config = { .name = board->name, .seed = board->seed };
	size_t i;

	if (sim_chip_from_name(board->chip, &config.chip) != 0) {
		snprintf(error, error_len, "board %s: unknown chip '%s'", board->name, board->chip);
		return -EINVAL;
	}
	sim_knobs_default(&config.knobs);
	for (i = 0; i < board->knob_count; i++) {
		if (sim_knob_set(&config.knobs, board->knobs[i].name, board->knobs[i].value) != 0) {
			snprintf(error, error_len, "board %s: bad knob %s=%s", board->name,
				 board->knobs[i].name, board->knobs[i].value);
			return -EINVAL;
		}
	}
	host->sim = sim_board_create(&config);
	if (!host->sim) {
		snprintf(error, error_len, "board %s: cannot create its simulator", board->name);
		return -ENOMEM;
	}
	return 0;
}

int board_host_create(uv_loop_t *loop, const struct board_host_options *options,
		      struct board_host **out, char *error, size_t error_len)
{
	struct board_host *host = calloc(1, sizeof(*host));
	int rc;

	if (!host)
		return -ENOMEM;
	host->loop = loop;
	host->board = options->board;
	snprintf(host->dir, sizeof(host->dir), "%s", options->board_dir);
	snprintf(host->root, sizeof(host->root), "%s/root", host->dir);
	snprintf(host->cgroup, sizeof(host->cgroup), "%s", options->cgroup_path);
	snprintf(host->sshd_config, sizeof(host->sshd_config), "%s/sshd_config", host->dir);
	snprintf(host->sshd_log, sizeof(host->sshd_log), "%s/sshd.log", host->dir);
	snprintf(host->vlab_binary, sizeof(host->vlab_binary), "%s", options->vlab_binary);
	snprintf(host->fallback_kernel, sizeof(host->fallback_kernel), "%s", options->fallback_kernel);
	board_root_paths(host->root, &host->paths);
	host->on_state_change = options->on_state_change;
	host->context = options->context;
	uv_timer_init(loop, &host->reboot_timer);
	host->reboot_timer.data = host;
	uv_timer_init(loop, &host->probe_timer);
	host->probe_timer.data = host;
	uv_timer_init(loop, &host->drop_timer);
	host->drop_timer.data = host;
	uv_timer_init(loop, &host->slow_boot_timer);
	host->slow_boot_timer.data = host;
	host->handles_open += 4;
	rc = fault_plan_load(&host->faults, host->board, error, error_len);
	if (!rc)
		rc = board_root_prepare(host->root, options->tool_binary, error, error_len);
	if (!rc)
		rc = make_sim(host, error, error_len);
	if (!rc && (rc = tool_server_start(loop, host->paths.socket, run_tool, host, &host->tools)))
		snprintf(error, error_len, "board %s: cannot listen on %s: %s", host->board->name,
			 host->paths.socket, uv_strerror(rc));
	if (!rc && (rc = console_listen(host)))
		snprintf(error, error_len, "board %s: cannot serve its console on %s:%u: %s",
			 host->board->name, host->board->host, host->board->console_port,
			 uv_strerror(rc));
	*out = host;	/* the caller destroys it, also on failure */
	return rc;
}

static void on_host_handle_closed(uv_handle_t *handle)
{
	struct board_host *host = handle->data;

	host->handles_open--;
	if (host->destroying && host->handles_open == 0)
		free(host);
}

void board_host_destroy(struct board_host *host)
{
	if (!host)
		return;
	end_board_processes(host);
	cgroup_remove(host->cgroup);
	while (host->console_clients)
		drop_console_client(host->console_clients);
	if (host->tools)
		tool_server_stop(host->tools);
	sim_board_destroy(host->sim);
	host->sim = NULL;
	host->destroying = 1;
	uv_close((uv_handle_t *)&host->reboot_timer, on_host_handle_closed);
	uv_close((uv_handle_t *)&host->probe_timer, on_host_handle_closed);
	uv_close((uv_handle_t *)&host->drop_timer, on_host_handle_closed);
	uv_close((uv_handle_t *)&host->slow_boot_timer, on_host_handle_closed);
	if (uv_is_active((uv_handle_t *)&host->console_listener) ||
	    host->console_listener.type == UV_TCP)
		uv_close((uv_handle_t *)&host->console_listener, on_host_handle_closed);
	/* sshd's handle closes from its exit callback, after the kill above. */
}

int board_host_power_on(struct board_host *host)
{
	if (host->state != BOARD_OFF)
		return 0;
	host->next_kernel[0] = '\0';
	return boot_through_grub(host);
}

void board_host_power_off(struct board_host *host)
{
	end_board_processes(host);
	if (host->reboot_pending) {
		uv_timer_stop(&host->reboot_timer);
		host->reboot_pending = 0;
	}
	sim_board_power_off(host->sim);
	host->release[0] = '\0';
	set_state(host, BOARD_OFF);
	fprintf(stderr, "board=%s event=power-off\n", host->board->name);
}

int board_host_power_cycle(struct board_host *host)
{
	board_host_power_off(host);
	return board_host_power_on(host);
}

void board_host_hang(struct board_host *host)
{
	if (host->state != BOARD_UP && host->state != BOARD_BOOTING)
		return;
	if (!sim_board_is_hung(host->sim))
		sim_board_inject_hang(host->sim);
	cgroup_freeze(host->cgroup, 1);
	set_state(host, BOARD_HUNG);
	fprintf(stderr, "board=%s event=hang\n", host->board->name);
}

enum fault_kind board_host_power_fault(struct board_host *host)
{
	enum fault_kind fault = fault_plan_event(&host->faults, FAULT_EVENT_POWER);

	if (fault != FAULT_KIND_COUNT)
		fprintf(stderr, "board=%s event=fault fault=%s\n", host->board->name,
			fault_kind_name(fault));
	return fault;
}

const struct fault_plan *board_host_faults(const struct board_host *host)
{
	return &host->faults;
}

enum board_power_state board_host_state(const struct board_host *host)
{
	return host->state;
}

const char *board_host_state_name(enum board_power_state state)
{
	switch (state) {
	case BOARD_OFF:
		return "off";
	case BOARD_BOOTING:
		return "booting";
	case BOARD_UP:
		return "up";
	case BOARD_HUNG:
		return "hung";
	}
	return "unknown";
}

const char *board_host_release(const struct board_host *host)
{
	return host->release;
}

const char *board_host_name(const struct board_host *host)
{
	return host->board->name;
}

unsigned int board_host_boot_count(const struct board_host *host)
{
	return host->boots;
}

const char *board_host_last_error(const struct board_host *host)
{
	return host->last_error;
}
