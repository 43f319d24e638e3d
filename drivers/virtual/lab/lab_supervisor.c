/* lab_supervisor.c - a virtual lab's boards and control socket on one loop. */
#include "virtual/lab/lab_supervisor.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "virtual/board/board_host.h"
#include "virtual/board/cgroup.h"

#define CONTROL_LINE_MAX 1024

struct supervisor {
	uv_loop_t loop;
	const struct lab_supervisor_options *options;
	struct board_host **boards;
	size_t board_count;
	uv_pipe_t control;
	uv_signal_t sigterm, sigint;
	char cgroup_dir[1024];
	int stopping;
	int ready_told;		/* `up` heard how the start went */
};

struct control_client {
	uv_pipe_t pipe;
	struct supervisor *supervisor;
	char line[CONTROL_LINE_MAX];
	size_t len;
	char read_buffer[CONTROL_LINE_MAX];
	int answered;
	int silent;		/* power-timeout: never answered; closed when the client gives up */
};

struct control_write {
	uv_write_t request;
	char *text;
};

static void shutdown_lab(struct supervisor *supervisor);

static struct board_host *find_board(struct supervisor *supervisor, const char *name)
{
	size_t i;

	for (i = 0; i < supervisor->board_count; i++) {
		if (supervisor->boards[i] && strcmp(board_host_name(supervisor->boards[i]), name) == 0)
			return supervisor->boards[i];
	}
	return NULL;
}

/* {"struck": ["hang-deploy", ...], "events": {"deploy": 2, ...}} */
static json_t *faults_json(const struct fault_plan *plan)
{
	json_t *faults = json_object(), *struck = json_array(), *events = json_object();
	int i;

	for (i = 0; i < FAULT_KIND_COUNT; i++)
		if (plan->struck[i])
			json_array_append_new(struck, json_string(fault_kind_name((enum fault_kind)i)));
	for (i = 0; i < FAULT_EVENT_COUNT; i++)
		json_object_set_new(events, fault_event_name((enum fault_event)i),
				    json_integer(plan->seen[i]));
	json_object_set_new(faults, "struck", struck);
	json_object_set_new(faults, "events", events);
	return faults;
}

static char *status_json(struct supervisor *supervisor)
{
	const struct lab *lab = supervisor->options->lab;
	json_t *root = json_object(), *boards = json_array();
	char *text;
	size_t i;

	json_object_set_new(root, "lab", json_string(lab->name));
	json_object_set_new(root, "pid", json_integer(getpid()));
	for (i = 0; i < supervisor->board_count; i++) {
		const struct lab_board *config = &lab->boards[i];
		struct board_host *host = supervisor->boards[i];
		json_t *board = json_object();

		json_object_set_new(board, "name", json_string(config->name));
		json_object_set_new(board, "chip", json_string(config->chip));
		json_object_set_new(board, "host", json_string(config->host));
		json_object_set_new(board, "port", json_integer(config->port));
		json_object_set_new(board, "console_port", json_integer(config->console_port));
		json_object_set_new(board, "state",
				    json_string(board_host_state_name(board_host_state(host))));
		json_object_set_new(board, "release", json_string(board_host_release(host)));
		json_object_set_new(board, "boots", json_integer(board_host_boot_count(host)));
		json_object_set_new(board, "error", json_string(board_host_last_error(host)));
		json_object_set_new(board, "faults", faults_json(board_host_faults(host)));
		json_array_append_new(boards, board);
	}
	json_object_set_new(root, "boards", boards);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return text;
}

static void on_control_closed(uv_handle_t *handle)
{
	free(handle->data);
}

static void on_answer_written(uv_write_t *request, int status)
{
	struct control_write *write = (struct control_write *)request;
	struct control_client *client = request->data;

	(void)status;
	free(write->text);
	free(write);
	if (!uv_is_closing((uv_handle_t *)&client->pipe))
		uv_close((uv_handle_t *)&client->pipe, on_control_closed);
}

static void answer(struct control_client *client, char *text)
{
	struct control_write *write = calloc(1, sizeof(*write));
	uv_buf_t buf;

	client->answered = 1;
	if (!write || !text) {
		free(write);
		free(text);
		uv_close((uv_handle_t *)&client->pipe, on_control_closed);
		return;
	}
	write->text = text;
	write->request.data = client;
	buf = uv_buf_init(text, (unsigned int)strlen(text));
	if (uv_write(&write->request, (uv_stream_t *)&client->pipe, &buf, 1, on_answer_written)) {
		free(text);
		free(write);
		uv_close((uv_handle_t *)&client->pipe, on_control_closed);
	}
}

__attribute__((format(printf, 1, 2)))
static char *formatted(const char *fmt, ...)
{
	char *text = NULL;
	va_list args;
	int rc;

	va_start(args, fmt);
	rc = vasprintf(&text, fmt, args);
	va_end(args);
	return rc < 0 ? NULL : text;
}

static bool switches_power(const char *action)
{
	return strcmp(action, "on") == 0 || strcmp(action, "off") == 0 || strcmp(action, "cycle") == 0;
}

/* NULL: the power switch says nothing (power-timeout). */
static char *power_command(struct supervisor *supervisor, const char *board_name,
			   const char *action)
{
	struct board_host *host = find_board(supervisor, board_name);
	enum fault_kind fault;
	int rc = 0;

	if (!host)
		return formatted("error no board '%s' in lab %s\n", board_name,
				 supervisor->options->lab->name);
	fault = switches_power(action) ? board_host_power_fault(host) : FAULT_KIND_COUNT;
	if (fault == FAULT_POWER_TIMEOUT)
		return NULL;
	if (fault == FAULT_POWER_ERROR)
		return formatted("error outlet of board %s did not switch %s (relay stuck)\n",
				 board_name, action);
	if (strcmp(action, "on") == 0)
		rc = board_host_power_on(host);
	else if (strcmp(action, "off") == 0)
		board_host_power_off(host);
	else if (strcmp(action, "cycle") == 0)
		rc = board_host_power_cycle(host);
	else if (strcmp(action, "hang") == 0)
		board_host_hang(host);
	else if (strcmp(action, "status") != 0)
		return formatted("error unknown power action '%s' (on, off, cycle, status)\n", action);
	if (rc)
		return formatted("error %s\n", board_host_last_error(host));
	return formatted("ok %s\n", board_host_state_name(board_host_state(host)));
}

static void on_control_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf);
static void on_control_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);

/* Reads on only to notice the client hang up. */
static void stay_silent(struct control_client *client)
{
	client->answered = 1;
	client->silent = 1;
	uv_read_start((uv_stream_t *)&client->pipe, on_control_alloc, on_control_read);
}

static void run_control_line(struct control_client *client)
{
	struct supervisor *supervisor = client->supervisor;
	char *words[4] = { 0 };
	char *save = NULL, *word;
	int count = 0;

	for (word = strtok_r(client->line, " \t\r\n", &save); word && count < 4;
	     word = strtok_r(NULL, " \t\r\n", &save))
		words[count++] = word;
	if (count == 1 && strcmp(words[0], "status") == 0) {
		char *json = status_json(supervisor);
		char *text = formatted("%s\n", json ? json : "{}");
		free(json);
		answer(client, text);
	} else if (count == 3 && strcmp(words[0], "power") == 0) {
		char *text = power_command(supervisor, words[1], words[2]);

		if (text)
			answer(client, text);
		else
			stay_silent(client);
	} else if (count == 2 && strcmp(words[0], "hang") == 0) {
		answer(client, power_command(supervisor, words[1], "hang"));
	} else if (count == 1 && strcmp(words[0], "shutdown") == 0) {
		answer(client, formatted("ok\n"));
		shutdown_lab(supervisor);
	} else {
		answer(client, formatted("error unknown command '%s' (status, power, hang, shutdown)\n",
					 count ? words[0] : ""));
	}
}

static void on_control_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
	struct control_client *client = handle->data;

	(void)suggested;
	buf->base = client->read_buffer;
	buf->len = sizeof(client->read_buffer);
}

static void on_control_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct control_client *client = stream->data;
	const char *newline;

	if (client->silent) {
		if (nread < 0)
			uv_close((uv_handle_t *)stream, on_control_closed);
		return;
	}
	if (client->answered)
		return;
	if (nread < 0) {
		uv_close((uv_handle_t *)stream, on_control_closed);
		return;
	}
	if (client->len + (size_t)nread >= sizeof(client->line)) {
		answer(client, formatted("error command too long\n"));
		return;
	}
	memcpy(client->line + client->len, buf->base, (size_t)nread);
	client->len += (size_t)nread;
	client->line[client->len] = '\0';
	newline = strchr(client->line, '\n');
	if (newline) {
		uv_read_stop(stream);
		run_control_line(client);
	}
}

static void on_control_connection(uv_stream_t *listener, int status)
{
	struct supervisor *supervisor = listener->data;
	struct control_client *client;

	if (status < 0 || !(client = calloc(1, sizeof(*client))))
		return;
	client->supervisor = supervisor;
	uv_pipe_init(&supervisor->loop, &client->pipe, 0);
	client->pipe.data = client;
	if (uv_accept(listener, (uv_stream_t *)&client->pipe) != 0) {
		uv_close((uv_handle_t *)&client->pipe, on_control_closed);
		return;
	}
	uv_read_start((uv_stream_t *)&client->pipe, on_control_alloc, on_control_read);
}

static void shutdown_lab(struct supervisor *supervisor)
{
	size_t i;

	if (supervisor->stopping)
		return;
	supervisor->stopping = 1;
	fprintf(stderr, "lab=%s event=shutdown\n", supervisor->options->lab->name);
	for (i = 0; i < supervisor->board_count; i++) {
		board_host_destroy(supervisor->boards[i]);
		supervisor->boards[i] = NULL;
	}
	cgroup_remove(supervisor->cgroup_dir);
	uv_close((uv_handle_t *)&supervisor->control, NULL);
	uv_close((uv_handle_t *)&supervisor->sigterm, NULL);
	uv_close((uv_handle_t *)&supervisor->sigint, NULL);
	unlink(supervisor->options->state->control_socket);
	unlink(supervisor->options->state->pid_file);
}

static void on_signal(uv_signal_t *handle, int signal_number)
{
	(void)signal_number;
	shutdown_lab(handle->data);
}

static void tell_ready(int fd, const char *error);

/* `up` waits until every board is up (or one failed to come up). */
static void on_board_state_change(void *context, struct board_host *changed)
{
	struct supervisor *supervisor = context;
	size_t i, up = 0;

	if (supervisor->ready_told || supervisor->stopping)
		return;
	if (board_host_state(changed) == BOARD_HUNG) {
		/* A lab that cannot start stops again: `up` leaves nothing running. */
		supervisor->ready_told = 1;
		tell_ready(supervisor->options->ready_fd, board_host_last_error(changed));
		shutdown_lab(supervisor);
		return;
	}
	for (i = 0; i < supervisor->board_count; i++) {
		if (supervisor->boards[i] && board_host_state(supervisor->boards[i]) == BOARD_UP)
			up++;
	}
	if (up == supervisor->board_count) {
		supervisor->ready_told = 1;
		fprintf(stderr, "lab=%s event=ready boards=%zu\n", supervisor->options->lab->name, up);
		tell_ready(supervisor->options->ready_fd, NULL);
	}
}

static int start_board(struct supervisor *supervisor, size_t index, char *error, size_t error_len)
{
	const struct lab_supervisor_options *options = supervisor->options;
	const struct lab_board *board = &options->lab->boards[index];
	char board_dir[700], cgroup_relative[600], cgroup_path[1024];
	struct board_host_options host_options = {
		.board = board,
		.board_dir = board_dir,
		.fallback_kernel = options->state->fallback_kernel,
		.vlab_binary = options->vlab_binary,
		.tool_binary = options->tool_binary,
		.cgroup_path = cgroup_path,
		.on_state_change = on_board_state_change,
		.context = supervisor,
	};
	int rc;

	lab_state_board_dir(options->state, board->name, board_dir, sizeof(board_dir));
	snprintf(cgroup_relative, sizeof(cgroup_relative), "%s/%s", options->state->cgroup_name,
		 board->name);
	rc = cgroup_create(cgroup_relative, cgroup_path, sizeof(cgroup_path));
	if (rc) {
		snprintf(error, error_len, "board %s: cannot create its cgroup %s: %s (is cgroup v2 mounted?)",
			 board->name, cgroup_relative, strerror(-rc));
		return rc;
	}
	rc = board_host_create(&supervisor->loop, &host_options, &supervisor->boards[index], error,
			       error_len);
	if (!rc && (rc = board_host_power_on(supervisor->boards[index])) != 0)
		snprintf(error, error_len, "%s", board_host_last_error(supervisor->boards[index]));
	return rc;
}

static int start_control(struct supervisor *supervisor, char *error, size_t error_len)
{
	const char *path = supervisor->options->state->control_socket;
	int rc;

	uv_pipe_init(&supervisor->loop, &supervisor->control, 0);
	supervisor->control.data = supervisor;
	unlink(path);
	rc = uv_pipe_bind(&supervisor->control, path);
	if (!rc)
		rc = uv_listen((uv_stream_t *)&supervisor->control, 64, on_control_connection);
	if (rc)
		snprintf(error, error_len, "cannot listen on %s: %s", path, uv_strerror(rc));
	return rc;
}

static void tell_ready(int fd, const char *error)
{
	char text[1200];
	int len;

	if (fd < 0)
		return;
	len = error ? snprintf(text, sizeof(text), "error: %s\n", error)
		    : snprintf(text, sizeof(text), "ready\n");
	if (write(fd, text, (size_t)len) < 0)
		perror("rackbisect-vlab serve: cannot tell `up` how the start went");
	close(fd);
}

static int write_pid_file(const char *path)
{
	FILE *file = fopen(path, "w");

	if (!file)
		return -errno;
	fprintf(file, "%d\n", (int)getpid());
	return fclose(file) == 0 ? 0 : -EIO;
}

static int start_lab(struct supervisor *supervisor, char *error, size_t error_len)
{
	const struct lab_supervisor_options *options = supervisor->options;
	char root[512];
	size_t i;
	int rc;

	if ((rc = cgroup_find_root(root, sizeof(root))) != 0) {
		snprintf(error, error_len, "no cgroup v2 hierarchy is mounted; the virtual lab needs one");
		return rc;
	}
	snprintf(supervisor->cgroup_dir, sizeof(supervisor->cgroup_dir), "%s/rackbisect/%s", root,
		 options->state->cgroup_name);
	if ((rc = write_pid_file(options->state->pid_file)) != 0) {
		snprintf(error, error_len, "cannot write %s: %s", options->state->pid_file, strerror(-rc));
		return rc;
	}
	if ((rc = start_control(supervisor, error, error_len)) != 0)
		return rc;
	for (i = 0; i < supervisor->board_count; i++) {
		if ((rc = start_board(supervisor, i, error, error_len)) != 0)
			return rc;
	}
	return 0;
}

int lab_supervisor_run(const struct lab_supervisor_options *options)
{
	struct supervisor supervisor = { .options = options };
	char error[1200] = "";
	int rc;

	signal(SIGPIPE, SIG_IGN);
	uv_loop_init(&supervisor.loop);
	supervisor.board_count = options->lab->board_count;
	supervisor.boards = calloc(supervisor.board_count, sizeof(*supervisor.boards));
	uv_signal_init(&supervisor.loop, &supervisor.sigterm);
	uv_signal_init(&supervisor.loop, &supervisor.sigint);
	supervisor.sigterm.data = supervisor.sigint.data = &supervisor;
	uv_signal_start(&supervisor.sigterm, on_signal, SIGTERM);
	uv_signal_start(&supervisor.sigint, on_signal, SIGINT);
	rc = supervisor.boards ? start_lab(&supervisor, error, sizeof(error)) : -ENOMEM;
	if (rc) {
		fprintf(stderr, "rackbisect-vlab serve: %s\n", error);
		if (!supervisor.ready_told)
			tell_ready(options->ready_fd, error);
		supervisor.ready_told = 1;
		shutdown_lab(&supervisor);
	}
	uv_run(&supervisor.loop, UV_RUN_DEFAULT);
	uv_loop_close(&supervisor.loop);
	free(supervisor.boards);
	return rc ? 3 : 0;
}
