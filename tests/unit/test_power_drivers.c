/*
 * Power drivers on a real loop: the virtual switch against a control socket
 * served by this test (speaking the lab supervisor's one-line protocol), the
 * command switch running real programs, and the pdudaemon switch against a
 * real pdudaemon (Debian's) this test starts on 127.77.12.1, whose
 * localcmdline PDUs write what they were told into a file. Sockets and
 * files live under a mkdtemp directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

#include "helpers/loop_wait.h"
#include "helpers/test_child.h"
#include "config.h"
#include "path.h"
#include "power/command.h"
#include "power/pdudaemon.h"
#include "power/virtual.h"
#include "virtual/lab/lab_state.h"

#define MAX_OUTCOMES 8
#define MAX_CLIENTS 8

enum answer_mode { ANSWER_OK, ANSWER_ERROR, ANSWER_NEVER };

struct outcome {
	bool done;
	int calls;
	int status;
	bool had_error_text;
	char error_text[4096];
	uint64_t finished_at;
	int *finish_counter;		/* shared by requests whose order matters */
	int finish_order;
};

struct control_client {
	uv_pipe_t pipe;
	uv_timer_t delay;
	struct control_server *server;
	char line[256];
	size_t length;
	char answer[256];
	uv_write_t write;
	bool line_complete;
	bool closing;
	int open_handles;
};

/* The lab supervisor's side of the control socket, as far as power goes. */
struct control_server {
	uv_pipe_t listener;
	bool listening;
	enum answer_mode mode;
	uint64_t cycle_delay_ms;	/* a virtual power cycle takes a while */
	char received[MAX_CLIENTS][256];
	size_t received_count;
};

struct fixture {
	uv_loop_t loop;
	struct test_child pdudaemon;	/* its log is its stderr */
	char directory[64];
	char lab_path[128];
	char error[2048];
	struct lab *lab;
	struct control_server server;
	struct outcome outcomes[MAX_OUTCOMES];
};

/* ---- the loop ------------------------------------------------------------- */

static bool outcome_done(void *arg)
{
	return ((struct outcome *)arg)->done;
}

/* ---- fixture ---------------------------------------------------------------- */

static int setup(void **state)
{
	struct fixture *fixture = calloc(1, sizeof(*fixture));

	if (!fixture)
		return -1;
	*state = fixture;
	uv_loop_init(&fixture->loop);
	snprintf(fixture->directory, sizeof(fixture->directory), "/tmp/rackbisect-power-XXXXXX");
	if (!mkdtemp(fixture->directory))
		return -1;
	snprintf(fixture->lab_path, sizeof(fixture->lab_path), "%s/lab.yaml", fixture->directory);
	return 0;
}

static void stop_control_server(struct fixture *fixture);
static void stop_pdudaemon(struct fixture *fixture);

static int teardown(void **state)
{
	struct fixture *fixture = *state;
	char command[128];
	int rc = 0;

	stop_control_server(fixture);
	stop_pdudaemon(fixture);
	/* Every handle a driver opened must close once it is closed. */
	if (!run_until(&fixture->loop, loop_idle, &fixture->loop, 20000) ||
	    uv_loop_close(&fixture->loop) != 0) {
		fprintf(stderr, "handles still open on the loop after the test\n");
		rc = -1;
	}
	lab_free(fixture->lab);
	snprintf(command, sizeof(command), "rm -rf '%s'", fixture->directory);
	if (system(command) != 0)
		rc = -1;
	free(fixture);
	return rc;
}

static int load_lab(struct fixture *fixture, const char *text)
{
	FILE *file = fopen(fixture->lab_path, "w");

	assert_non_null(file);
	fputs(text, file);
	fclose(file);
	lab_free(fixture->lab);
	fixture->lab = NULL;
	return lab_load(fixture->lab_path, &fixture->lab, fixture->error, sizeof(fixture->error));
}

static struct driver_context context_for(struct fixture *fixture, const char *board)
{
	struct driver_context context = {
		.loop = &fixture->loop,
		.lab = fixture->lab,
		.board = lab_find_board(fixture->lab, board),
		.state_option = fixture->directory,
	};

	assert_non_null(context.board);
	return context;
}

static void on_power_done(struct power *power, int status, const char *error_text, void *data)
{
	struct outcome *outcome = data;

	outcome->calls++;
	if (outcome->finish_counter)
		outcome->finish_order = ++*outcome->finish_counter;
	outcome->done = true;
	outcome->status = status;
	outcome->had_error_text = error_text != NULL;
	snprintf(outcome->error_text, sizeof(outcome->error_text), "%s", error_text ? error_text : "");
	outcome->finished_at = now_ms(power->loop);
}

/* Issues one request and runs the loop until its callback; the callback
 * must not run inside the call. */
static struct outcome *request_and_wait(struct fixture *fixture, struct power *power,
					enum power_action action, uint64_t timeout_ms,
					uint64_t wait_ms)
{
	struct outcome *outcome = &fixture->outcomes[0];

	memset(outcome, 0, sizeof(*outcome));
	assert_int_equal(power->ops->request(power, action, timeout_ms, on_power_done, outcome), 0);
	assert_false(outcome->done);
	assert_true(run_until(&fixture->loop, outcome_done, outcome, wait_ms));
	return outcome;
}

/* ---- a control socket speaking the supervisor's protocol ---------------------- */

static void on_client_closed(uv_handle_t *handle)
{
	struct control_client *client = handle->data;

	if (--client->open_handles == 0)
		free(client);
}

static void close_client(struct control_client *client)
{
	if (client->closing)
		return;
	client->closing = true;
	uv_close((uv_handle_t *)&client->pipe, on_client_closed);
	uv_close((uv_handle_t *)&client->delay, on_client_closed);
}

static void on_answer_written(uv_write_t *write, int status)
{
	(void)status;
	close_client(write->data);
}

static void send_answer(struct control_client *client)
{
	uv_buf_t buffer = uv_buf_init(client->answer, (unsigned int)strlen(client->answer));

	client->write.data = client;
	if (uv_write(&client->write, (uv_stream_t *)&client->pipe, &buffer, 1, on_answer_written))
		close_client(client);
}

static void on_answer_delay(uv_timer_t *timer)
{
	send_answer(timer->data);
}

static void answer_line(struct control_client *client)
{
	struct control_server *server = client->server;
	char board[64] = "", action[16] = "";

	if (server->received_count < MAX_CLIENTS)
		snprintf(server->received[server->received_count++], sizeof(server->received[0]),
			 "%s", client->line);
	if (server->mode == ANSWER_NEVER)
		return;
	sscanf(client->line, "power %63s %15s", board, action);
	if (server->mode == ANSWER_ERROR)
		snprintf(client->answer, sizeof(client->answer), "error no board '%s' in lab t\n",
			 board);
	else
		snprintf(client->answer, sizeof(client->answer), "ok %s\n",
			 strcmp(action, "off") == 0 ? "off" : "running");
	if (strcmp(action, "cycle") == 0 && server->cycle_delay_ms)
		uv_timer_start(&client->delay, on_answer_delay, server->cycle_delay_ms, 0);
	else
		send_answer(client);
}

static void on_client_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct control_client *client = handle->data;

	(void)suggested;
	buffer->base = client->line + client->length;
	buffer->len = sizeof(client->line) - 1 - client->length;
}

static void on_client_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct control_client *client = stream->data;
	char *newline;

	(void)buffer;
	/* Reading goes on after the line: the driver hanging up (timeout,
	 * close) is what closes a client that never answers. */
	if (count < 0) {
		close_client(client);
		return;
	}
	if (client->line_complete)
		return;
	client->length += (size_t)count;
	client->line[client->length] = '\0';
	newline = strchr(client->line, '\n');
	if (!newline)
		return;
	*newline = '\0';
	client->line_complete = true;
	answer_line(client);
}

static void on_control_connection(uv_stream_t *listener, int status)
{
	struct control_server *server = listener->data;
	struct control_client *client;

	assert_int_equal(status, 0);
	client = calloc(1, sizeof(*client));
	assert_non_null(client);
	client->server = server;
	uv_pipe_init(listener->loop, &client->pipe, 0);
	uv_timer_init(listener->loop, &client->delay);
	client->pipe.data = client;
	client->delay.data = client;
	client->open_handles = 2;
	assert_int_equal(uv_accept(listener, (uv_stream_t *)&client->pipe), 0);
	uv_read_start((uv_stream_t *)&client->pipe, on_client_alloc, on_client_read);
}

/* Where the driver must look: <state>/labs/<lab name>/control.sock. */
static void control_socket_path(struct fixture *fixture, char *path, size_t len)
{
	struct lab_state state;

	assert_int_equal(lab_state_locate(fixture->lab, fixture->directory, &state), 0);
	assert_int_equal(path_make_dirs(state.dir), 0);
	snprintf(path, len, "%s", state.control_socket);
}

static void start_control_server(struct fixture *fixture, enum answer_mode mode)
{
	struct control_server *server = &fixture->server;
	char path[600];

	control_socket_path(fixture, path, sizeof(path));
	server->mode = mode;
	uv_pipe_init(&fixture->loop, &server->listener, 0);
	server->listener.data = server;
	assert_int_equal(uv_pipe_bind(&server->listener, path), 0);
	assert_int_equal(uv_listen((uv_stream_t *)&server->listener, 16, on_control_connection), 0);
	server->listening = true;
}

static void stop_control_server(struct fixture *fixture)
{
	struct control_server *server = &fixture->server;

	/* Its clients close themselves once the driver hangs up. */
	if (server->listening)
		uv_close((uv_handle_t *)&server->listener, NULL);
	server->listening = false;
}

/* ---- the virtual power switch ---------------------------------------------------- */

static const char virtual_lab[] =
	"name: t\n"
	"type: virtual\n"
	"boards:\n"
	"  - name: vb01\n"
	"    chip: ar9285\n"
	"    transport: {host: 127.77.6.1, port: 2222}\n"
	"  - name: vb02\n"
	"    chip: ar9280\n"
	"    transport: {host: 127.77.6.2, port: 2222}\n";

static struct power *create_power(struct fixture *fixture, const struct power_ops *ops,
				  const char *board)
{
	struct driver_context context = context_for(fixture, board);
	struct power *power = NULL;
	int rc = ops->create(&context, &power, fixture->error, sizeof(fixture->error));

	if (rc)
		fail_msg("create failed (%d): %s", rc, fixture->error);
	assert_ptr_equal(power->ops, ops);
	return power;
}

static void test_power_action_names(void **state)
{
	(void)state;
	assert_string_equal(power_action_name(POWER_ON), "on");
	assert_string_equal(power_action_name(POWER_OFF), "off");
	assert_string_equal(power_action_name(POWER_CYCLE), "cycle");
}

static void test_virtual_power_on_is_answered_ok(void **state)
{
	struct fixture *fixture = *state;
	struct power *power;
	struct outcome *outcome;

	assert_int_equal(load_lab(fixture, virtual_lab), 0);
	assert_string_equal(fixture->lab->boards[0].power.name, "virtual");
	start_control_server(fixture, ANSWER_OK);
	power = create_power(fixture, &virtual_power_ops, "vb01");
	outcome = request_and_wait(fixture, power, POWER_ON, 15000, 20000);
	assert_int_equal(outcome->status, 0);
	assert_false(outcome->had_error_text);
	assert_int_equal(outcome->calls, 1);
	assert_int_equal(fixture->server.received_count, 1);
	assert_string_equal(fixture->server.received[0], "power vb01 on");
	power->ops->close(power);
}

static bool both_done(void *arg)
{
	struct outcome *outcomes = arg;

	return outcomes[0].done && outcomes[1].done;
}

static void test_virtual_power_requests_do_not_queue_behind_a_slow_cycle(void **state)
{
	struct fixture *fixture = *state;
	struct outcome *cycle = &fixture->outcomes[0], *off = &fixture->outcomes[1];
	struct power *first, *second;
	uint64_t started;
	int finished = 0;

	assert_int_equal(load_lab(fixture, virtual_lab), 0);
	start_control_server(fixture, ANSWER_OK);
	fixture->server.cycle_delay_ms = 600;
	first = create_power(fixture, &virtual_power_ops, "vb01");
	second = create_power(fixture, &virtual_power_ops, "vb02");
	memset(fixture->outcomes, 0, sizeof(fixture->outcomes));
	cycle->finish_counter = &finished;
	off->finish_counter = &finished;
	started = now_ms(&fixture->loop);
	assert_int_equal(first->ops->request(first, POWER_CYCLE, 5000, on_power_done, cycle),
			 0);
	assert_int_equal(second->ops->request(second, POWER_OFF, 5000, on_power_done, off),
			 0);
	assert_true(run_until(&fixture->loop, both_done, fixture->outcomes, 20000));
	assert_int_equal(cycle->status, 0);
	assert_int_equal(off->status, 0);
	assert_int_equal(cycle->calls, 1);
	assert_int_equal(off->calls, 1);
	/* the off was not held up by the cycle answered 600 ms later */
	assert_int_equal(off->finish_order, 1);
	assert_int_equal(cycle->finish_order, 2);
	assert_true(cycle->finished_at - started >= 590);
	assert_int_equal(fixture->server.received_count, 2);
	first->ops->close(first);
	second->ops->close(second);
}

static void test_virtual_power_error_answer_is_eio(void **state)
{
	struct fixture *fixture = *state;
	struct power *power;
	struct outcome *outcome;
	char path[600];

	assert_int_equal(load_lab(fixture, virtual_lab), 0);
	start_control_server(fixture, ANSWER_ERROR);
	control_socket_path(fixture, path, sizeof(path));
	power = create_power(fixture, &virtual_power_ops, "vb02");
	outcome = request_and_wait(fixture, power, POWER_CYCLE, 15000, 20000);
	assert_int_equal(outcome->status, -EIO);
	assert_contains(outcome->error_text, "board vb02: power switch 'virtual' (control socket ");
	assert_contains(outcome->error_text, path);
	assert_contains(outcome->error_text, "no board 'vb02' in lab t");
	assert_string_equal(fixture->server.received[0], "power vb02 cycle");
	power->ops->close(power);
}

static void test_virtual_power_silence_times_out(void **state)
{
	struct fixture *fixture = *state;
	struct power *power;
	struct outcome *outcome;
	uint64_t started;

	assert_int_equal(load_lab(fixture, virtual_lab), 0);
	start_control_server(fixture, ANSWER_NEVER);
	power = create_power(fixture, &virtual_power_ops, "vb01");
	started = now_ms(&fixture->loop);
	outcome = request_and_wait(fixture, power, POWER_OFF, 300, 3000);
	assert_int_equal(outcome->status, -ETIMEDOUT);
	assert_contains(outcome->error_text, "board vb01");
	assert_contains(outcome->error_text, "no answer to 'power vb01 off' within 300 ms");
	assert_true(outcome->finished_at - started >= 290);
	assert_true(outcome->finished_at - started < 3000);
	assert_int_equal(outcome->calls, 1);
	/* the late hang-up does not call back a second time */
	run_until(&fixture->loop, never, NULL, 100);
	assert_int_equal(outcome->calls, 1);
	power->ops->close(power);
}

/* A socket file left by a lab that died: connecting to it is refused. */
static void make_stale_socket(const char *path)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof(address.sun_path));
	memcpy(address.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&address, sizeof(address)), 0);
	close(fd);
}

static void test_virtual_power_without_a_running_lab_is_refused(void **state)
{
	struct fixture *fixture = *state;
	struct power *power;
	struct outcome *outcome;
	char path[600], hint[256];

	assert_int_equal(load_lab(fixture, virtual_lab), 0);
	snprintf(hint, sizeof(hint),
		 "the virtual lab is not up (run: rackbisect lab up %s --state %s)",
		 fixture->lab_path, fixture->directory);
	power = create_power(fixture, &virtual_power_ops, "vb01");

	/* no socket at all */
	outcome = request_and_wait(fixture, power, POWER_ON, 15000, 20000);
	assert_int_equal(outcome->status, -ECONNREFUSED);
	assert_contains(outcome->error_text, "board vb01: power switch 'virtual'");
	assert_contains(outcome->error_text, hint);

	/* a stale socket nobody listens on */
	control_socket_path(fixture, path, sizeof(path));
	make_stale_socket(path);
	outcome = request_and_wait(fixture, power, POWER_ON, 15000, 20000);
	assert_int_equal(outcome->status, -ECONNREFUSED);
	assert_contains(outcome->error_text, hint);
	power->ops->close(power);
}

static void test_virtual_power_close_cancels_pending_requests(void **state)
{
	struct fixture *fixture = *state;
	struct outcome *first = &fixture->outcomes[0], *second = &fixture->outcomes[1];
	struct power *power;

	assert_int_equal(load_lab(fixture, virtual_lab), 0);
	start_control_server(fixture, ANSWER_NEVER);
	power = create_power(fixture, &virtual_power_ops, "vb01");
	memset(fixture->outcomes, 0, sizeof(fixture->outcomes));
	assert_int_equal(power->ops->request(power, POWER_ON, 0, on_power_done, first), 0);
	assert_int_equal(power->ops->request(power, POWER_OFF, 0, on_power_done, second), 0);
	/* let both connect and send their lines */
	run_until(&fixture->loop, never, NULL, 100);
	assert_int_equal(fixture->server.received_count, 2);
	assert_false(first->done);
	power->ops->close(power);
	assert_int_equal(first->calls, 1);
	assert_int_equal(second->calls, 1);
	assert_int_equal(first->status, -ECANCELED);
	assert_int_equal(second->status, -ECANCELED);
	assert_contains(first->error_text, "closed before the lab answered");
	/* teardown checks the instance's handles all close */
}

static void test_virtual_power_refuses_options(void **state)
{
	struct fixture *fixture = *state;
	struct driver_context context;
	struct power *power = NULL;
	char expected[512];

	assert_int_equal(load_lab(fixture, "name: t\n"
					   "type: virtual\n"
					   "boards:\n"
					   "  - name: vb01\n"
					   "    chip: ar9285\n"
					   "    transport: {host: 127.77.6.1}\n"
					   "    power: {driver: virtual, outlet: 3}\n"), 0);
	context = context_for(fixture, "vb01");
	assert_int_equal(virtual_power_ops.create(&context, &power, fixture->error,
						  sizeof(fixture->error)), -EINVAL);
	assert_null(power);
	snprintf(expected, sizeof(expected), "%s:7:38: board 'vb01': power driver 'virtual': "
		 "unknown option 'outlet' (it takes none)", fixture->lab_path);
	assert_string_equal(fixture->error, expected);
}

/* ---- the command power switch ------------------------------------------------------ */

/* A lab of one board r1 whose power block lines are `power_lines`
 * (starting at line 8, each indented six spaces). */
static int load_command_lab(struct fixture *fixture, const char *power_lines)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 "name: rack\n"
		 "type: ssh\n"
		 "boards:\n"
		 "  - name: r1\n"
		 "    chip: ar9285\n"
		 "    transport: {host: 127.77.6.3}\n"
		 "    power:\n"
		 "%s",
		 power_lines);
	return load_lab(fixture, text);
}

static struct power *command_power(struct fixture *fixture, const char *power_lines)
{
	int rc = load_command_lab(fixture, power_lines);

	if (rc)
		fail_msg("lab did not load: %s", fixture->error);
	return create_power(fixture, &command_power_ops, "r1");
}

static void scratch_path(struct fixture *fixture, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", fixture->directory, name);
}

static char *read_file(const char *path)
{
	static const size_t limit = 8192;
	char *text = calloc(1, limit);
	FILE *file = fopen(path, "r");

	assert_non_null(text);
	if (file) {
		size_t length = fread(text, 1, limit - 1, file);

		text[length] = '\0';
		fclose(file);
	}
	return text;
}

static bool file_has_text(void *arg)
{
	char *text = read_file(arg);
	bool has = strchr(text, '\n') != NULL;

	free(text);
	return has;
}

/* Gone: no such process, or a zombie its new parent has not reaped yet. */
static bool process_is_gone(pid_t pid)
{
	char path[64], *stat;
	bool zombie;

	if (kill(pid, 0) != 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	stat = read_file(path);
	zombie = strstr(stat, ") Z ") != NULL;
	free(stat);
	return zombie;
}

static bool pid_is_gone(void *arg)
{
	return process_is_gone(*(pid_t *)arg);
}

static pid_t read_pid(const char *path)
{
	char *text = read_file(path);
	pid_t pid = (pid_t)atoi(text);

	free(text);
	assert_true(pid > 1);
	return pid;
}

static void test_command_power_exit_status_decides(void **state)
{
	struct fixture *fixture = *state;
	struct power *power = command_power(fixture, "      driver: command\n"
						     "      on: [/bin/true]\n"
						     "      off: [/bin/false]\n");
	struct outcome *outcome;

	outcome = request_and_wait(fixture, power, POWER_ON, 15000, 20000);
	assert_int_equal(outcome->status, 0);
	assert_false(outcome->had_error_text);
	outcome = request_and_wait(fixture, power, POWER_OFF, 15000, 20000);
	assert_int_equal(outcome->status, -EIO);
	assert_string_equal(outcome->error_text,
			    "board r1: power off command '/bin/false' exited with status 1: (no output)");
	power->ops->close(power);
}

static void test_command_power_substitutes_whole_words_without_a_shell(void **state)
{
	struct fixture *fixture = *state;
	char output[128], injected[128], lines[1024], expected[512];
	struct power *power;
	struct outcome *outcome;
	char *written;

	scratch_path(fixture, "words", output, sizeof(output));
	scratch_path(fixture, "injected", injected, sizeof(injected));
	/* sh -c SCRIPT $0 $1 ...: the script prints each argument it got */
	snprintf(lines, sizeof(lines),
		 "      driver: command\n"
		 "      on: [/bin/sh, -c, 'printf \"%%s|\" \"$@\" > \"$0\"', '%s', '{board}', '{host}',"
		 " 'a b; touch %s', 'x{board}', '{board} ']\n"
		 "      off: [/bin/false]\n",
		 output, injected);
	power = command_power(fixture, lines);
	outcome = request_and_wait(fixture, power, POWER_ON, 15000, 20000);
	if (outcome->status)
		fail_msg("%s", outcome->error_text);
	written = read_file(output);
	snprintf(expected, sizeof(expected), "r1|127.77.6.3|a b; touch %s|x{board}|{board} |",
		 injected);
	assert_string_equal(written, expected);
	free(written);
	assert_int_not_equal(access(injected, F_OK), 0);	/* ';' was no shell syntax */
	power->ops->close(power);
}

static void test_command_power_failure_names_the_command_and_its_stderr(void **state)
{
	struct fixture *fixture = *state;
	struct power *power = command_power(
		fixture,
		"      driver: command\n"
		"      on: [/bin/sh, -c, 'head -c 100000 /dev/zero | tr \"\\0\" x >&2; echo \" last words\" >&2; exit 2']\n"
		"      off: [/bin/sh, -c, 'echo starting; echo \"outlet 3: relay stuck\" >&2; exit 4']\n");
	struct outcome *outcome;
	size_t length;

	outcome = request_and_wait(fixture, power, POWER_OFF, 15000, 20000);
	assert_int_equal(outcome->status, -EIO);
	assert_string_equal(outcome->error_text,
			    "board r1: power off command '/bin/sh -c echo starting; echo \"outlet 3: "
			    "relay stuck\" >&2; exit 4' exited with status 4: outlet 3: relay stuck");

	/* 100 kB of stderr: only its tail is kept, and the last words are in it */
	outcome = request_and_wait(fixture, power, POWER_ON, 15000, 20000);
	assert_int_equal(outcome->status, -EIO);
	length = strlen(outcome->error_text);
	assert_contains(outcome->error_text, "exited with status 2: ...xxx");
	assert_string_equal(outcome->error_text + length - strlen("x last words"), "x last words");
	assert_true(length < 2048 + 256);
	power->ops->close(power);
}

/* A PDU password given as {env:NAME}: the command gets the value; every text
 * the driver gives back (and so the log, the run's files, the database)
 * shows the word, even when the command prints the password itself, and
 * even when its output was cut in the middle of one. */
static void test_command_power_secret_from_the_environment_is_never_shown(void **state)
{
	static const char secret[] = "hunter2-s3cret";
	struct fixture *fixture = *state;
	char output[128], lines[1024];
	struct power *power;
	struct outcome *outcome;
	char *written;
	int pad;

	assert_int_equal(setenv("RB_TEST_PDU_PASSWORD", secret, 1), 0);
	scratch_path(fixture, "password", output, sizeof(output));
	snprintf(lines, sizeof(lines),
		 "      driver: command\n"
		 "      on: [/bin/sh, -c, 'printf %%s \"$1\" > \"$0\"; echo \"login as admin/$1 refused\" >&2; exit 3',"
		 " '%s', '{env:RB_TEST_PDU_PASSWORD}']\n"
		 "      off: [/bin/sh, -c, 'i=0; while [ $i -lt 400 ]; do printf \"%%s\\n\" \"$0\" >&2;"
		 " i=$((i + 1)); done; pad=; while [ ${#pad} -lt $RB_TEST_PAD ]; do pad=z$pad; done;"
		 " echo $pad >&2; exit 1', '{env:RB_TEST_PDU_PASSWORD}']\n",
		 output);
	power = command_power(fixture, lines);
	outcome = request_and_wait(fixture, power, POWER_ON, 15000, 20000);
	assert_int_equal(outcome->status, -EIO);
	written = read_file(output);
	assert_string_equal(written, secret);	/* the command got the value */
	free(written);
	assert_contains(outcome->error_text, "password {env:RB_TEST_PDU_PASSWORD}' exited with status 3: "
					     "login as admin/{env:RB_TEST_PDU_PASSWORD} refused");
	assert_null(strstr(outcome->error_text, secret));

	/* 400 lines of the password, then a line of RB_TEST_PAD z's: the kept
	 * tail (its last 2 KiB) starts inside a password, at every place in turn */
	for (pad = 1; pad <= (int)sizeof(secret); pad++) {
		const char *after;
		char text[16];

		snprintf(text, sizeof(text), "%d", pad);
		assert_int_equal(setenv("RB_TEST_PAD", text, 1), 0);
		outcome = request_and_wait(fixture, power, POWER_OFF, 15000, 20000);
		assert_int_equal(outcome->status, -EIO);
		assert_non_null(after = strstr(outcome->error_text, "exited with status 1: ..."));
		after += strlen("exited with status 1: ...");
		if (*after != '\n' && *after != '{')
			fail_msg("the tail starts with part of the password: %.20s", after);
		assert_null(strstr(outcome->error_text, secret));
		assert_contains(outcome->error_text, "\n{env:RB_TEST_PDU_PASSWORD}\nz");
	}
	unsetenv("RB_TEST_PAD");
	power->ops->close(power);
	unsetenv("RB_TEST_PDU_PASSWORD");
}

static void test_command_power_missing_program_is_eio(void **state)
{
	struct fixture *fixture = *state;
	struct power *power = command_power(fixture, "      driver: command\n"
						     "      on: [/nonexistent/pdu-switch, '3', 'on']\n"
						     "      off: [/bin/true]\n");
	struct outcome *outcome;

	outcome = request_and_wait(fixture, power, POWER_ON, 15000, 20000);
	assert_int_equal(outcome->status, -EIO);
	assert_string_equal(outcome->error_text,
			    "board r1: power on command '/nonexistent/pdu-switch 3 on' could not be "
			    "started: /nonexistent/pdu-switch: no such file or directory");
	power->ops->close(power);
}

static void test_command_power_timeout_kills_the_command(void **state)
{
	struct fixture *fixture = *state;
	char pid_file[128], child_pid_file[128], lines[1024];
	struct power *power;
	struct outcome *outcome;
	uint64_t started;
	pid_t pid;

	scratch_path(fixture, "pid", pid_file, sizeof(pid_file));
	scratch_path(fixture, "child-pid", child_pid_file, sizeof(child_pid_file));
	snprintf(lines, sizeof(lines),
		 "      driver: command\n"
		 "      on: [/bin/sh, -c, 'echo $$ > \"$0\"; exec sleep 30', '%s']\n"
		 "      off: [/bin/sh, -c, 'sleep 30 & echo $! > \"$0\"; wait', '%s']\n",
		 pid_file, child_pid_file);
	power = command_power(fixture, lines);

	/* the command itself */
	started = now_ms(&fixture->loop);
	/* 1.5 s: time for sh to write its pid even on a busy machine */
	outcome = request_and_wait(fixture, power, POWER_ON, 1500, 8000);
	assert_int_equal(outcome->status, -ETIMEDOUT);
	assert_contains(outcome->error_text, "board r1: power on command '/bin/sh -c echo $$");
	assert_contains(outcome->error_text, "did not finish within 1500 ms; killed it");
	assert_true(outcome->finished_at - started >= 1490);
	assert_true(outcome->finished_at - started < 6000);
	pid = read_pid(pid_file);
	assert_true(process_is_gone(pid));	/* reaped before the callback */

	/* and what it started: the whole process group is killed; an orphan
	 * dies on the kernel's time, not ours, so it gets a moment */
	outcome = request_and_wait(fixture, power, POWER_OFF, 1500, 8000);
	assert_int_equal(outcome->status, -ETIMEDOUT);
	pid = read_pid(child_pid_file);
	assert_true(run_until(&fixture->loop, pid_is_gone, &pid, 15000));
	power->ops->close(power);
}

static void test_command_power_cycle_defaults_to_off_then_on(void **state)
{
	struct fixture *fixture = *state;
	char log[128], lines[1024];
	struct power *power;
	struct outcome *outcome;
	char *written;

	scratch_path(fixture, "log", log, sizeof(log));
	snprintf(lines, sizeof(lines),
		 "      driver: command\n"
		 "      on: [/bin/sh, -c, 'echo on >> \"$0\"', '%s']\n"
		 "      off: [/bin/sh, -c, 'echo off >> \"$0\"', '%s']\n",
		 log, log);
	power = command_power(fixture, lines);
	outcome = request_and_wait(fixture, power, POWER_CYCLE, 15000, 20000);
	assert_int_equal(outcome->status, 0);
	assert_int_equal(outcome->calls, 1);
	written = read_file(log);
	assert_string_equal(written, "off\non\n");
	free(written);
	power->ops->close(power);
	run_until(&fixture->loop, loop_idle, &fixture->loop, 2000);

	/* an explicit cycle command replaces both */
	unlink(log);
	snprintf(lines, sizeof(lines),
		 "      driver: command\n"
		 "      on: [/bin/sh, -c, 'echo on >> \"$0\"', '%s']\n"
		 "      off: [/bin/sh, -c, 'echo off >> \"$0\"', '%s']\n"
		 "      cycle: [/bin/sh, -c, 'echo cycle >> \"$0\"', '%s']\n",
		 log, log, log);
	power = command_power(fixture, lines);
	outcome = request_and_wait(fixture, power, POWER_CYCLE, 15000, 20000);
	assert_int_equal(outcome->status, 0);
	written = read_file(log);
	assert_string_equal(written, "cycle\n");
	free(written);
	power->ops->close(power);
	run_until(&fixture->loop, loop_idle, &fixture->loop, 2000);

	/* off failing stops the cycle: on is not run */
	unlink(log);
	snprintf(lines, sizeof(lines),
		 "      driver: command\n"
		 "      on: [/bin/sh, -c, 'echo on >> \"$0\"', '%s']\n"
		 "      off: [/bin/sh, -c, 'echo outlet busy >&2; exit 3']\n",
		 log);
	power = command_power(fixture, lines);
	outcome = request_and_wait(fixture, power, POWER_CYCLE, 15000, 20000);
	assert_int_equal(outcome->status, -EIO);
	assert_contains(outcome->error_text, "board r1: power off command");
	assert_contains(outcome->error_text, "exited with status 3: outlet busy");
	assert_int_not_equal(access(log, F_OK), 0);
	power->ops->close(power);
}

static void test_command_power_requests_run_side_by_side(void **state)
{
	struct fixture *fixture = *state;
	struct power *power = command_power(fixture, "      driver: command\n"
						     "      on: [sleep, '1']\n"
						     "      off: [sleep, '1']\n");
	uint64_t started = now_ms(&fixture->loop);

	memset(fixture->outcomes, 0, sizeof(fixture->outcomes));
	assert_int_equal(power->ops->request(power, POWER_ON, 5000, on_power_done,
					     &fixture->outcomes[0]), 0);
	assert_int_equal(power->ops->request(power, POWER_OFF, 5000, on_power_done,
					     &fixture->outcomes[1]), 0);
	assert_true(run_until(&fixture->loop, both_done, fixture->outcomes, 30000));
	assert_int_equal(fixture->outcomes[0].status, 0);
	assert_int_equal(fixture->outcomes[1].status, 0);
	/* one after the other would take at least 2 s */
	assert_true(fixture->outcomes[0].finished_at - started < 1900);
	assert_true(fixture->outcomes[1].finished_at - started < 1900);
	power->ops->close(power);
}

static void test_command_power_close_cancels_and_kills(void **state)
{
	struct fixture *fixture = *state;
	char pid_file[128], lines[1024];
	struct outcome *outcome = &fixture->outcomes[0];
	struct power *power;
	pid_t pid;

	scratch_path(fixture, "pid", pid_file, sizeof(pid_file));
	snprintf(lines, sizeof(lines),
		 "      driver: command\n"
		 "      on: [/bin/sh, -c, 'echo $$ > \"$0\"; exec sleep 30', '%s']\n"
		 "      off: [/bin/true]\n",
		 pid_file);
	power = command_power(fixture, lines);
	memset(outcome, 0, sizeof(*outcome));
	assert_int_equal(power->ops->request(power, POWER_ON, 0, on_power_done, outcome), 0);
	assert_true(run_until(&fixture->loop, file_has_text, pid_file, 20000));
	pid = read_pid(pid_file);
	power->ops->close(power);
	assert_int_equal(outcome->calls, 1);
	assert_int_equal(outcome->status, -ECANCELED);
	assert_contains(outcome->error_text, "board r1: power on command");
	/* the instance goes once the child has been reaped */
	assert_true(run_until(&fixture->loop, loop_idle, &fixture->loop, 3000));
	assert_true(process_is_gone(pid));
	assert_int_equal(outcome->calls, 1);
}

/* The error is exactly "<lab file>:line:col: board 'r1': power driver 'command': words". */
static void assert_refused(struct fixture *fixture, const struct power_ops *ops,
			   const char *power_lines, int line, int column, const char *words)
{
	struct driver_context context;
	struct power *power = NULL;
	char expected[1024];

	if (load_command_lab(fixture, power_lines))
		fail_msg("lab did not load: %s", fixture->error);
	context = context_for(fixture, "r1");
	assert_int_equal(ops->create(&context, &power, fixture->error, sizeof(fixture->error)),
			 -EINVAL);
	assert_null(power);
	snprintf(expected, sizeof(expected), "%s:%d:%d: board 'r1': power driver '%s': %s",
		 fixture->lab_path, line, column, ops->name, words);
	assert_string_equal(fixture->error, expected);
}

static void assert_command_refused(struct fixture *fixture, const char *power_lines, int line,
				   int column, const char *words)
{
	assert_refused(fixture, &command_power_ops, power_lines, line, column, words);
}

static void test_command_power_refuses_bad_options(void **state)
{
	struct fixture *fixture = *state;

	assert_command_refused(fixture,
			       "      driver: command\n"
			       "      on: pdu-switch 3 on\n"
			       "      off: [pdu-switch, '3', 'off']\n",
			       9, 11,
			       "on must be a list of argv words, e.g. [pdu-switch, '3', 'on']");
	assert_command_refused(fixture,
			       "      driver: command\n"
			       "      on: [pdu-switch, '3', 'on']\n"
			       "      off: 'pdu-switch 3 off'\n",
			       10, 12,
			       "off must be a list of argv words, e.g. [pdu-switch, '3', 'off']");
	assert_command_refused(fixture,
			       "      driver: command\n"
			       "      on: [pdu-switch, '3', 'on']\n"
			       "      off: [pdu-switch, '3', 'off']\n"
			       "      reboot: [pdu-switch, '3', 'reboot']\n",
			       11, 15, "unknown option 'reboot' (known: on, off, cycle)");
	assert_command_refused(fixture,
			       "      driver: command\n"
			       "      off: [pdu-switch, '3', 'off']\n",
			       8, 7, "needs an 'on' command, e.g. on: [pdu-switch, '3', 'on']");
	assert_command_refused(fixture,
			       "      driver: command\n"
			       "      on: [pdu-switch, '3', 'on']\n",
			       8, 7, "needs an 'off' command, e.g. off: [pdu-switch, '3', 'off']");
	assert_command_refused(fixture,
			       "      driver: command\n"
			       "      on: []\n"
			       "      off: [pdu-switch, '3', 'off']\n",
			       9, 11,
			       "on must not be empty: its first word is the program, "
			       "e.g. [pdu-switch, '3', 'on']");
	unsetenv("RB_NO_SUCH_PDU_PASSWORD");
	assert_command_refused(fixture,
			       "      driver: command\n"
			       "      on: [pdu-switch, '3', 'on', '{env:RB_NO_SUCH_PDU_PASSWORD}']\n"
			       "      off: [pdu-switch, '3', 'off']\n",
			       9, 11,
			       "on: '{env:RB_NO_SUCH_PDU_PASSWORD}': the environment variable "
			       "RB_NO_SUCH_PDU_PASSWORD is not set (set it where rackbisect runs: a "
			       "secret such as a PDU password stays out of the lab file)");
	assert_command_refused(fixture,
			       "      driver: command\n"
			       "      on: [pdu-switch, '3', 'on']\n"
			       "      off: [pdu-switch, '{env:3 off}']\n",
			       10, 12,
			       "off: '{env:3 off}' does not name an environment variable "
			       "(letters, digits and _)");
}

/* ---- the pdudaemon power switch ------------------------------------------------------ */

#define PDUDAEMON_URL "http://127.77.12.1:16421"

static bool pdudaemon_listening(void *arg)
{
	struct test_child *daemon = arg;

	return daemon->exited || strstr(daemon->stderr_text, "Listening on 127.77.12.1:16421");
}

/*
 * Starts Debian's pdudaemon with three localcmdline PDUs: "rack" appends
 * "PORT on|off" to pdu.log, "slow" sleeps 5 s first, "broken" fails. Waits
 * for its "Listening on" log line.
 */
static void start_pdudaemon(struct fixture *fixture)
{
	struct test_child *daemon = &fixture->pdudaemon;
	char conf[160], log[160], text[2048];
	char *argv[] = { "pdudaemon", "--conf", conf, "--logfile", "/dev/stderr", "--loglevel", "DEBUG",
			 NULL };
	FILE *file;
	int rc;

	scratch_path(fixture, "pdudaemon.json", conf, sizeof(conf));
	scratch_path(fixture, "pdu.log", log, sizeof(log));
	snprintf(text, sizeof(text),
		 "{\"daemon\": {\"hostname\": \"127.77.12.1\", \"port\": 16421, \"listener\": \"http\"},\n"
		 " \"pdus\": {\n"
		 "  \"rack\": {\"driver\": \"localcmdline\", \"cmd_on\": \"echo '%%s on' >> %s\",\n"
		 "            \"cmd_off\": \"echo '%%s off' >> %s\"},\n"
		 "  \"slow\": {\"driver\": \"localcmdline\", \"cmd_on\": \"sleep 5\", \"cmd_off\": \"sleep 5\"}\n"
		 " }}\n", log, log);
	assert_non_null(file = fopen(conf, "w"));
	fputs(text, file);
	fclose(file);
	rc = test_child_start(&fixture->loop, daemon, argv);
	if (rc)
		fail_msg("cannot start pdudaemon (make deps installs it): %s", uv_strerror(rc));
	/* a Python program's imports: over 30 s once, early in make check, while
	 * every lane was starting its boards */
	if (!run_until(&fixture->loop, pdudaemon_listening, daemon, 120000) || daemon->exited) {
		fprintf(stderr, "pdudaemon said:\n%s\n", daemon->stderr_text);
		fail_msg("pdudaemon did not listen within 120 s (its words above)");
	}
}

/* Ends the daemon this test started, by its PID, and waits for it. */
static void stop_pdudaemon(struct fixture *fixture)
{
	test_child_stop(&fixture->loop, &fixture->pdudaemon, SIGTERM);
}

static struct power *pdudaemon_power(struct fixture *fixture, const char *pdu, const char *port)
{
	char lines[512];

	snprintf(lines, sizeof(lines), "      driver: pdudaemon\n      url: \"%s\"\n"
		 "      hostname: %s\n      port: %s\n      delay: 0\n", PDUDAEMON_URL, pdu, port);
	if (load_command_lab(fixture, lines))
		fail_msg("lab did not load: %s", fixture->error);
	return create_power(fixture, &pdudaemon_power_ops, "r1");
}

static char *pdu_log(struct fixture *fixture)
{
	char path[160];

	scratch_path(fixture, "pdu.log", path, sizeof(path));
	return read_file(path);
}

static void test_pdudaemon_power_switches_the_pdu_port(void **state)
{
	struct fixture *fixture = *state;
	struct power *power;
	char *log;

	start_pdudaemon(fixture);
	power = pdudaemon_power(fixture, "rack", "3");
	assert_int_equal(request_and_wait(fixture, power, POWER_OFF, 10000, 15000)->status, 0);
	assert_int_equal(request_and_wait(fixture, power, POWER_ON, 10000, 15000)->status, 0);
	/* a cycle is pdudaemon's reboot: off, then on (delay 0) */
	assert_int_equal(request_and_wait(fixture, power, POWER_CYCLE, 10000, 15000)->status, 0);
	log = pdu_log(fixture);
	assert_string_equal(log, "3 off\n3 on\n3 off\n3 on\n");
	free(log);
	power->ops->close(power);
}

static bool all_done(void *arg)
{
	struct fixture *fixture = arg;

	for (int i = 0; i < MAX_OUTCOMES; i++)
		if (!fixture->outcomes[i].done)
			return false;
	return true;
}

/* pdudaemon queues one PDU's requests; every one of a burst is answered. */
static void test_pdudaemon_power_burst_on_one_pdu_is_all_answered(void **state)
{
	struct fixture *fixture = *state;
	struct power *power;
	char *log, *line;
	int i, on = 0, off = 0;

	start_pdudaemon(fixture);
	power = pdudaemon_power(fixture, "rack", "5");
	memset(fixture->outcomes, 0, sizeof(fixture->outcomes));
	for (i = 0; i < MAX_OUTCOMES; i++)
		assert_int_equal(power->ops->request(power, i % 2 ? POWER_ON : POWER_OFF, 20000,
						     on_power_done, &fixture->outcomes[i]), 0);
	assert_true(run_until(&fixture->loop, all_done, fixture, 30000));
	for (i = 0; i < MAX_OUTCOMES; i++)
		if (fixture->outcomes[i].status)
			fail_msg("request %d: %s", i, fixture->outcomes[i].error_text);
	log = pdu_log(fixture);
	for (line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
		on += strcmp(line, "5 on") == 0;
		off += strcmp(line, "5 off") == 0;
	}
	free(log);
	assert_int_equal(on, MAX_OUTCOMES / 2);
	assert_int_equal(off, MAX_OUTCOMES / 2);
	power->ops->close(power);
}

/* What goes wrong names the PDU and its port: an unknown PDU (pdudaemon's
 * 500), a PDU busier than the timeout, no daemon at all. */
static void test_pdudaemon_power_failures_name_the_pdu(void **state)
{
	struct fixture *fixture = *state;
	struct power *power;
	struct outcome *outcome;

	power = pdudaemon_power(fixture, "rack", "3");
	outcome = request_and_wait(fixture, power, POWER_ON, 5000, 10000);
	assert_int_equal(outcome->status, -ECONNREFUSED);
	assert_contains(outcome->error_text, "board r1: power switch 'pdudaemon' (PDU rack port 3 at "
			PDUDAEMON_URL "): on: ");
	power->ops->close(power);

	/* a password in the url (a daemon behind an authenticating proxy) is
	 * never in a message: they go to the log, run files and database */
	if (load_command_lab(fixture, "      driver: pdudaemon\n"
				      "      url: \"http://admin:pdu-s3cret@127.77.12.1:16421/\"\n"
				      "      hostname: rack\n      port: 3\n"))
		fail_msg("lab did not load: %s", fixture->error);
	power = create_power(fixture, &pdudaemon_power_ops, "r1");
	outcome = request_and_wait(fixture, power, POWER_ON, 5000, 10000);
	assert_int_equal(outcome->status, -ECONNREFUSED);
	assert_contains(outcome->error_text, "(PDU rack port 3 at http://admin:***@127.77.12.1:16421/): on: ");
	assert_null(strstr(outcome->error_text, "s3cret"));
	power->ops->close(power);

	start_pdudaemon(fixture);
	power = pdudaemon_power(fixture, "nowhere", "3");
	outcome = request_and_wait(fixture, power, POWER_OFF, 10000, 15000);
	assert_int_equal(outcome->status, -EIO);
	assert_contains(outcome->error_text, "(PDU nowhere port 3 at " PDUDAEMON_URL "): off answered HTTP 500");
	power->ops->close(power);

	power = pdudaemon_power(fixture, "slow", "1");
	outcome = request_and_wait(fixture, power, POWER_ON, 500, 10000);
	assert_int_equal(outcome->status, -ETIMEDOUT);
	assert_contains(outcome->error_text, "(PDU slow port 1 at " PDUDAEMON_URL "): on: no answer in time");
	power->ops->close(power);
}

static void test_pdudaemon_power_close_cancels_pending_requests(void **state)
{
	struct fixture *fixture = *state;
	struct outcome *outcome = &fixture->outcomes[0];
	struct power *power;

	start_pdudaemon(fixture);
	power = pdudaemon_power(fixture, "slow", "2");
	memset(outcome, 0, sizeof(*outcome));
	assert_int_equal(power->ops->request(power, POWER_OFF, 20000, on_power_done, outcome), 0);
	power->ops->close(power);
	assert_true(outcome->done);
	assert_int_equal(outcome->calls, 1);
	assert_int_equal(outcome->status, -ECANCELED);
}

static void test_pdudaemon_power_refuses_bad_options(void **state)
{
	struct fixture *fixture = *state;

	assert_refused(fixture, &pdudaemon_power_ops,
		       "      driver: pdudaemon\n      hostname: rack\n      port: 3\n", 8, 7,
		       "needs the daemon's url, e.g. url: \"http://127.0.0.1:16421\"");
	assert_refused(fixture, &pdudaemon_power_ops,
		       "      driver: pdudaemon\n      url: \"ftp://127.0.0.1\"\n      alias: a\n", 9, 12,
		       "needs the daemon's url, e.g. url: \"http://127.0.0.1:16421\"");
	assert_refused(fixture, &pdudaemon_power_ops,
		       "      driver: pdudaemon\n      url: \"" PDUDAEMON_URL "\"\n", 8, 7,
		       "needs either hostname and port (the PDU in pdudaemon's configuration and "
		       "its outlet) or alias, not neither");
	assert_refused(fixture, &pdudaemon_power_ops,
		       "      driver: pdudaemon\n      url: \"" PDUDAEMON_URL "\"\n"
		       "      hostname: rack\n      port: three\n", 11, 13,
		       "needs the PDU's port, a number, e.g. port: 3");
	assert_refused(fixture, &pdudaemon_power_ops,
		       "      driver: pdudaemon\n      url: \"" PDUDAEMON_URL "\"\n"
		       "      alias: a\n      outlet: 3\n", 11, 15,
		       "unknown option 'outlet' (known: url, hostname, port, alias, delay)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_action_names),
		cmocka_unit_test_setup_teardown(test_virtual_power_on_is_answered_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_virtual_power_requests_do_not_queue_behind_a_slow_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_virtual_power_error_answer_is_eio, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_virtual_power_silence_times_out, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_virtual_power_without_a_running_lab_is_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_virtual_power_close_cancels_pending_requests,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_virtual_power_refuses_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_power_exit_status_decides, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_command_power_substitutes_whole_words_without_a_shell, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_command_power_failure_names_the_command_and_its_stderr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_power_secret_from_the_environment_is_never_shown,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_power_missing_program_is_eio, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_command_power_timeout_kills_the_command, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_command_power_cycle_defaults_to_off_then_on,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_power_requests_run_side_by_side, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_command_power_close_cancels_and_kills, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_command_power_refuses_bad_options, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pdudaemon_power_switches_the_pdu_port, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pdudaemon_power_burst_on_one_pdu_is_all_answered,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pdudaemon_power_failures_name_the_pdu, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pdudaemon_power_close_cancels_pending_requests,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pdudaemon_power_refuses_bad_options, setup,
						teardown),
	};

	/* A peer hanging up mid-write must be an error code, not the end of us. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
