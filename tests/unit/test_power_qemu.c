/*
 * The qemu power switch against a real QEMU (Debian's qemu-system-x86_64,
 * `-machine none`: no guest, but the run states, reset and QMP of any
 * machine). The test starts QEMU itself (uv_spawn) with two QMP sockets: the
 * driver's, and the test's own, on which it watches QEMU's events (STOP,
 * RESET, RESUME) and asks query-status, so what the driver did is QEMU's
 * word, not the driver's. What QEMU will not do on request (hang, answer an
 * error) is played by a socket of the test's. Everything lives under a
 * mkdtemp directory; teardown kills and reaps the QEMU it started, by PID,
 * even after a failed assertion.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

#include <jansson.h>

#include "helpers/loop_wait.h"
#include "helpers/test_child.h"
#include "config.h"
#include "power/qemu.h"

#define MAX_OUTCOMES 4
#define MAX_EVENTS 32
#define MAX_CLIENTS 4
#define QEMU_START_MS 60000	/* QEMU's start on a busy machine */

struct outcome {
	bool done;
	int calls;
	int status;
	bool had_error_text;
	char error_text[2048];
	uint64_t finished_at;
};

/*
 * The test's own QMP connection (QEMU's second -qmp socket): connected by
 * retrying until QEMU listens, then it records every event and answers
 * query-status. QEMU sends events to every QMP connection, so this one sees
 * what the driver's commands did.
 */
struct qmp_observer {
	uv_loop_t *loop;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uv_pipe_t pipe;
	uv_connect_t connect;
	uv_timer_t retry;
	bool pipe_open, retry_open, reconnect_when_closed;
	bool greeted, ready;
	int failed;			/* a connect error other than "not there yet" */
	char buffer[65536];
	size_t used;
	char events[MAX_EVENTS][64];	/* "STOP", "RESET host-qmp-system-reset", "RESUME" */
	size_t event_count;
	bool status_known;
	char status[32];		/* query-status: "running", "paused", "prelaunch"... */
	bool running;
};

/* A unix socket the test serves in QEMU's stead. */
enum fake_mode {
	FAKE_SILENT,		/* accepts and says nothing: a hung QEMU */
	FAKE_ERROR,		/* greets, accepts qmp_capabilities, answers commands with an error */
};

struct fake_client {
	uv_pipe_t pipe;
	struct fake_server *server;
	char line[1024];
	size_t length;
};

struct fake_server {
	uv_pipe_t listener;
	bool listening;
	enum fake_mode mode;
	struct fake_client *clients[MAX_CLIENTS];
	size_t client_count;
	char received[8][128];		/* the commands it was sent, in order */
	size_t received_count;
};

/* A client of the test's own on the driver's QMP socket: someone else's. */
struct other_client {
	uv_pipe_t pipe;
	uv_connect_t connect;
	int connected;		/* 0 waiting, 1 connected, <0 the error */
	bool greeted;
	char buffer[1024];
};

struct fixture {
	uv_loop_t loop;
	char directory[64];
	char lab_path[128];
	char qmp_path[96];		/* the driver's socket */
	char error[2048];
	struct lab *lab;
	struct power *power;		/* closed by teardown when a test did not */
	struct test_child qemu;
	struct qmp_observer observer;
	struct fake_server fake;
	struct other_client others[3];
	bool others_open;
	struct outcome outcomes[MAX_OUTCOMES];
};

/* ---- QEMU, started and ended by the test ------------------------------------------------------ */

/* Ends the QEMU this test started (SIGKILL to its PID: it holds no state
 * worth a clean exit) and reaps it. */
static void stop_qemu(struct fixture *fixture)
{
	test_child_stop(&fixture->loop, &fixture->qemu, SIGKILL);
}

/* ---- the test's own QMP connection ------------------------------------------------------------- */

static void observer_connect(struct qmp_observer *observer);

static void on_observer_retry(uv_timer_t *timer)
{
	observer_connect(timer->data);
}

static void on_observer_pipe_closed(uv_handle_t *handle)
{
	struct qmp_observer *observer = handle->data;

	observer->pipe_open = false;
	if (observer->reconnect_when_closed && observer->retry_open) {
		observer->reconnect_when_closed = false;
		uv_timer_start(&observer->retry, on_observer_retry, 20, 0);
	}
}

static void on_observer_retry_closed(uv_handle_t *handle)
{
	((struct qmp_observer *)handle->data)->retry_open = false;
}

static void on_observer_written(uv_write_t *write, int status)
{
	(void)status;
	free(write);
}

/* Sends one of the test's constant QMP lines. */
static void observer_send(struct qmp_observer *observer, const char *line)
{
	uv_write_t *write = calloc(1, sizeof(*write));
	uv_buf_t buffer = uv_buf_init((char *)line, (unsigned int)strlen(line));

	assert_non_null(write);
	assert_int_equal(uv_write(write, (uv_stream_t *)&observer->pipe, &buffer, 1,
				  on_observer_written), 0);
}

static void observer_message(struct qmp_observer *observer, const char *text)
{
	json_t *message = json_loads(text, 0, NULL);
	json_t *event = json_object_get(message, "event");
	json_t *answer = json_object_get(message, "return");
	json_t *status = json_object_get(answer, "status");

	if (!json_is_object(message)) {
		fprintf(stderr, "observer: not QMP: %s\n", text);
	} else if (!observer->greeted && json_object_get(message, "QMP")) {
		observer->greeted = true;
		observer_send(observer, "{\"execute\": \"qmp_capabilities\"}\n");
	} else if (json_is_string(event) && observer->event_count < MAX_EVENTS) {
		const char *reason = json_string_value(json_object_get(json_object_get(message, "data"),
								       "reason"));

		snprintf(observer->events[observer->event_count++], sizeof(observer->events[0]),
			 "%s%s%s", json_string_value(event), reason ? " " : "", reason ? reason : "");
	} else if (json_is_string(status)) {
		snprintf(observer->status, sizeof(observer->status), "%s", json_string_value(status));
		observer->running = json_is_true(json_object_get(answer, "running"));
		observer->status_known = true;
	} else if (answer) {
		observer->ready = true;		/* qmp_capabilities */
	} else {
		fprintf(stderr, "observer: unexpected %s\n", text);
	}
	json_decref(message);
}

static void on_observer_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct qmp_observer *observer = handle->data;

	(void)suggested;
	*buffer = uv_buf_init(observer->buffer + observer->used,
			      (unsigned int)(sizeof(observer->buffer) - 1 - observer->used));
}

static void on_observer_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct qmp_observer *observer = stream->data;
	char *newline;

	(void)buffer;
	if (count < 0) {
		uv_close((uv_handle_t *)stream, on_observer_pipe_closed);
		return;
	}
	observer->used += (size_t)count;
	observer->buffer[observer->used] = '\0';
	while ((newline = strchr(observer->buffer, '\n'))) {
		*newline = '\0';
		observer_message(observer, observer->buffer);
		observer->used -= (size_t)(newline + 1 - observer->buffer);
		memmove(observer->buffer, newline + 1, observer->used + 1);
	}
}

static void on_observer_connected(uv_connect_t *connect, int status)
{
	struct qmp_observer *observer = connect->data;

	if (status == UV_ENOENT || status == UV_ECONNREFUSED) {
		/* QEMU is not listening yet: a new socket, in a moment */
		observer->reconnect_when_closed = true;
		uv_close((uv_handle_t *)&observer->pipe, on_observer_pipe_closed);
	} else if (status == UV_ECANCELED) {
		/* observer_stop() closed the pipe while it connected */
	} else if (status) {
		observer->failed = status;
		uv_close((uv_handle_t *)&observer->pipe, on_observer_pipe_closed);
	} else {
		uv_read_start((uv_stream_t *)&observer->pipe, on_observer_alloc, on_observer_read);
	}
}

static void observer_connect(struct qmp_observer *observer)
{
	uv_pipe_init(observer->loop, &observer->pipe, 0);
	observer->pipe.data = observer->connect.data = observer;
	observer->pipe_open = true;
	uv_pipe_connect(&observer->connect, &observer->pipe, observer->path, on_observer_connected);
}

static void observer_start(struct qmp_observer *observer, uv_loop_t *loop, const char *path)
{
	observer->loop = loop;
	snprintf(observer->path, sizeof(observer->path), "%s", path);
	uv_timer_init(loop, &observer->retry);
	observer->retry.data = observer;
	observer->retry_open = true;
	observer_connect(observer);
}

static void observer_stop(struct qmp_observer *observer)
{
	observer->reconnect_when_closed = false;
	if (observer->retry_open && !uv_is_closing((uv_handle_t *)&observer->retry))
		uv_close((uv_handle_t *)&observer->retry, on_observer_retry_closed);
	if (observer->pipe_open && !uv_is_closing((uv_handle_t *)&observer->pipe))
		uv_close((uv_handle_t *)&observer->pipe, on_observer_pipe_closed);
}

static bool status_known(void *arg)
{
	return ((struct qmp_observer *)arg)->status_known;
}

/* QEMU's own word on the machine: query-status on the test's connection.
 * Its answer also comes after every event QEMU sent before it. */
static const char *machine_status(struct fixture *fixture)
{
	struct qmp_observer *observer = &fixture->observer;

	observer->status_known = false;
	observer_send(observer, "{\"execute\": \"query-status\"}\n");
	if (!run_until(&fixture->loop, status_known, observer, 10000))
		fail_msg("QEMU did not answer query-status within 10 s");
	return observer->status;
}

/* The events QEMU sent since the last call, as "STOP, RESET host-qmp-system-reset". */
static const char *take_events(struct fixture *fixture, char *out, size_t len)
{
	struct qmp_observer *observer = &fixture->observer;
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < observer->event_count && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "",
					 observer->events[i]);
	observer->event_count = 0;
	return out;
}

static bool resumed(void *arg)
{
	struct qmp_observer *observer = arg;

	for (size_t i = 0; i < observer->event_count; i++)
		if (strcmp(observer->events[i], "RESUME") == 0)
			return true;
	return false;
}

/*
 * QEMU was started stopped (-S): the test runs it and waits for its RESUME,
 * so no startup event is left to arrive after a test began. Started running,
 * QEMU's own RESUME could reach the test's connection late on a loaded
 * machine and be taken for the driver's.
 */
static void start_machine(struct fixture *fixture)
{
	char events[512];

	observer_send(&fixture->observer, "{\"execute\": \"cont\"}\n");
	if (!run_until(&fixture->loop, resumed, &fixture->observer, 10000))
		fail_msg("QEMU did not say RESUME within 10 s of cont");
	take_events(fixture, events, sizeof(events));
}

struct qemu_start {
	struct test_child *qemu;
	struct qmp_observer *observer;
};

static bool qemu_ready_or_gone(void *arg)
{
	struct qemu_start *start = arg;

	return start->observer->ready || start->observer->failed || start->qemu->exited;
}

/*
 * Starts QEMU with a machine that has nothing in it, the driver's QMP socket
 * (fixture->qmp_path) and the test's; waits until the test's connection has
 * done qmp_capabilities: QEMU's main loop runs, and the driver's socket,
 * created first, listens.
 */
static void start_qemu(struct fixture *fixture)
{
	struct test_child *qemu = &fixture->qemu;
	char driver_qmp[200], observer_qmp[200], observer_path[96];
	char *argv[] = { "qemu-system-x86_64", "-S", "-machine", "none", "-nodefaults", "-display",
			 "none", "-monitor", "none", "-serial", "none", "-qmp", driver_qmp, "-qmp",
			 observer_qmp, NULL };
	struct qemu_start start = { qemu, &fixture->observer };
	int rc;

	snprintf(observer_path, sizeof(observer_path), "%s/observer.sock", fixture->directory);
	snprintf(driver_qmp, sizeof(driver_qmp), "unix:%s,server=on,wait=off", fixture->qmp_path);
	snprintf(observer_qmp, sizeof(observer_qmp), "unix:%s,server=on,wait=off", observer_path);
	rc = test_child_start(&fixture->loop, qemu, argv);
	if (rc)
		fail_msg("cannot start qemu-system-x86_64 (make deps installs it): %s", uv_strerror(rc));
	observer_start(&fixture->observer, &fixture->loop, observer_path);
	if (!run_until(&fixture->loop, qemu_ready_or_gone, &start, QEMU_START_MS) ||
	    !fixture->observer.ready)
		fail_msg("QEMU's QMP socket did not answer within %d s (%s; QEMU said: %s)",
			 QEMU_START_MS / 1000,
			 qemu->exited ? "QEMU ended"
			 : fixture->observer.failed ? uv_strerror(fixture->observer.failed) : "still waiting",
			 qemu->stderr_text);
	start_machine(fixture);
}

/* ---- a socket in QEMU's stead ---------------------------------------------------------------- */

static void on_fake_client_closed(uv_handle_t *handle)
{
	free(handle->data);
}

static void on_fake_written(uv_write_t *write, int status)
{
	(void)status;
	free(write);
}

static void fake_send(struct fake_client *client, const char *line)
{
	uv_write_t *write = calloc(1, sizeof(*write));
	uv_buf_t buffer = uv_buf_init((char *)line, (unsigned int)strlen(line));

	assert_non_null(write);
	if (uv_write(write, (uv_stream_t *)&client->pipe, &buffer, 1, on_fake_written))
		free(write);
}

/* As QEMU says it, with "\r\n"; an event before the answer, as QEMU may. */
static void fake_answer(struct fake_client *client, const char *line)
{
	struct fake_server *server = client->server;
	json_t *message = json_loads(line, 0, NULL);
	const char *command = json_string_value(json_object_get(message, "execute"));

	if (command && server->received_count < 8)
		snprintf(server->received[server->received_count++], sizeof(server->received[0]), "%s",
			 command);
	if (command && strcmp(command, "qmp_capabilities") == 0) {
		fake_send(client, "{\"return\": {}}\r\n");
	} else {
		fake_send(client, "{\"timestamp\": {\"seconds\": 1, \"microseconds\": 2}, "
				  "\"event\": \"STOP\"}\r\n");
		fake_send(client, "{\"error\": {\"class\": \"GenericError\", \"desc\": "
				  "\"Resetting the Virtual Machine is required\"}}\r\n");
	}
	json_decref(message);
}

static void on_fake_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct fake_client *client = handle->data;

	(void)suggested;
	*buffer = uv_buf_init(client->line + client->length,
			      (unsigned int)(sizeof(client->line) - 1 - client->length));
}

static void on_fake_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct fake_client *client = stream->data;
	char *newline;

	(void)buffer;
	if (count <= 0)
		return;		/* the peer's hang-up: the server closes its clients at the end */
	client->length += (size_t)count;
	client->line[client->length] = '\0';
	while ((newline = strchr(client->line, '\n'))) {
		*newline = '\0';
		if (client->server->mode == FAKE_ERROR)
			fake_answer(client, client->line);
		client->length -= (size_t)(newline + 1 - client->line);
		memmove(client->line, newline + 1, client->length + 1);
	}
}

static void on_fake_connection(uv_stream_t *listener, int status)
{
	struct fake_server *server = listener->data;
	struct fake_client *client;

	assert_int_equal(status, 0);
	assert_true(server->client_count < MAX_CLIENTS);
	client = calloc(1, sizeof(*client));
	assert_non_null(client);
	client->server = server;
	uv_pipe_init(listener->loop, &client->pipe, 0);
	client->pipe.data = client;
	assert_int_equal(uv_accept(listener, (uv_stream_t *)&client->pipe), 0);
	server->clients[server->client_count++] = client;
	uv_read_start((uv_stream_t *)&client->pipe, on_fake_alloc, on_fake_read);
	if (server->mode == FAKE_ERROR)
		fake_send(client, "{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 0, \"minor\": 2, "
				  "\"major\": 7}, \"package\": \"\"}, \"capabilities\": [\"oob\"]}}\r\n");
}

static void start_fake_qemu(struct fixture *fixture, enum fake_mode mode)
{
	struct fake_server *server = &fixture->fake;

	server->mode = mode;
	uv_pipe_init(&fixture->loop, &server->listener, 0);
	server->listener.data = server;
	assert_int_equal(uv_pipe_bind(&server->listener, fixture->qmp_path), 0);
	assert_int_equal(uv_listen((uv_stream_t *)&server->listener, 8, on_fake_connection), 0);
	server->listening = true;
}

static void stop_fake_qemu(struct fixture *fixture)
{
	struct fake_server *server = &fixture->fake;

	if (!server->listening)
		return;
	server->listening = false;
	uv_close((uv_handle_t *)&server->listener, NULL);
	for (size_t i = 0; i < server->client_count; i++)
		uv_close((uv_handle_t *)&server->clients[i]->pipe, on_fake_client_closed);
	server->client_count = 0;
}

/* ---- fixture ---------------------------------------------------------------------------------- */

static void close_others(struct fixture *fixture);

static int setup(void **state)
{
	struct fixture *fixture = calloc(1, sizeof(*fixture));

	if (!fixture)
		return -1;
	*state = fixture;
	uv_loop_init(&fixture->loop);
	snprintf(fixture->directory, sizeof(fixture->directory), "/tmp/rackbisect-qemu-XXXXXX");
	if (!mkdtemp(fixture->directory))
		return -1;
	snprintf(fixture->lab_path, sizeof(fixture->lab_path), "%s/lab.yaml", fixture->directory);
	snprintf(fixture->qmp_path, sizeof(fixture->qmp_path), "%s/qmp.sock", fixture->directory);
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fixture = *state;
	char command[128];
	int rc = 0;

	if (fixture->power)
		fixture->power->ops->close(fixture->power);
	stop_qemu(fixture);
	stop_fake_qemu(fixture);
	observer_stop(&fixture->observer);
	close_others(fixture);
	/* Every handle the driver opened must close once it is closed. */
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

/* A lab of one board r1 whose power block lines are `power_lines`
 * (starting at line 8, each indented six spaces). */
static int load_lab(struct fixture *fixture, const char *power_lines)
{
	FILE *file = fopen(fixture->lab_path, "w");

	assert_non_null(file);
	fprintf(file,
		"name: rack\n"
		"type: ssh\n"
		"boards:\n"
		"  - name: r1\n"
		"    chip: ar9285\n"
		"    transport: {host: 127.77.6.3}\n"
		"    power:\n"
		"%s",
		power_lines);
	fclose(file);
	lab_free(fixture->lab);
	fixture->lab = NULL;
	return lab_load(fixture->lab_path, &fixture->lab, fixture->error, sizeof(fixture->error));
}

static struct driver_context context_for(struct fixture *fixture)
{
	struct driver_context context = {
		.loop = &fixture->loop,
		.lab = fixture->lab,
		.board = lab_find_board(fixture->lab, "r1"),
	};

	assert_non_null(context.board);
	return context;
}

/* The driver for `qmp: PATH` (as the lab file says it), kept in the fixture. */
static struct power *qemu_power(struct fixture *fixture, const char *qmp)
{
	struct driver_context context;
	char lines[400];
	int rc;

	snprintf(lines, sizeof(lines), "      driver: qemu\n      qmp: %s\n", qmp);
	if (load_lab(fixture, lines))
		fail_msg("lab did not load: %s", fixture->error);
	context = context_for(fixture);
	rc = qemu_power_ops.create(&context, &fixture->power, fixture->error, sizeof(fixture->error));
	if (rc)
		fail_msg("create failed (%d): %s", rc, fixture->error);
	assert_ptr_equal(fixture->power->ops, &qemu_power_ops);
	return fixture->power;
}

static void close_power(struct fixture *fixture)
{
	struct power *power = fixture->power;

	fixture->power = NULL;
	power->ops->close(power);
}

static void on_power_done(struct power *power, int status, const char *error_text, void *data)
{
	struct outcome *outcome = data;

	outcome->calls++;
	outcome->done = true;
	outcome->status = status;
	outcome->had_error_text = error_text != NULL;
	snprintf(outcome->error_text, sizeof(outcome->error_text), "%s", error_text ? error_text : "");
	outcome->finished_at = now_ms(power->loop);
}

static bool outcome_done(void *arg)
{
	return ((struct outcome *)arg)->done;
}

static bool all_done(void *arg)
{
	struct fixture *fixture = arg;

	for (int i = 0; i < MAX_OUTCOMES; i++)
		if (!fixture->outcomes[i].done)
			return false;
	return true;
}

/* One request, the loop run until its callback (which must not run inside the call). */
static struct outcome *request_and_wait(struct fixture *fixture, enum power_action action,
					uint64_t timeout_ms)
{
	struct outcome *outcome = &fixture->outcomes[0];

	memset(outcome, 0, sizeof(*outcome));
	assert_int_equal(fixture->power->ops->request(fixture->power, action, timeout_ms,
						      on_power_done, outcome), 0);
	assert_false(outcome->done);
	if (!run_until(&fixture->loop, outcome_done, outcome, timeout_ms + 10000))
		fail_msg("no callback within %llu ms", (unsigned long long)timeout_ms + 10000);
	return outcome;
}

static void assert_succeeds(struct fixture *fixture, enum power_action action)
{
	struct outcome *outcome = request_and_wait(fixture, action, 10000);

	if (outcome->status)
		fail_msg("%s: %d: %s", power_action_name(action), outcome->status, outcome->error_text);
	assert_false(outcome->had_error_text);
	assert_int_equal(outcome->calls, 1);
}

/* ---- against a real QEMU ------------------------------------------------------------------------ */

/* off leaves the machine stopped and reset: QEMU says "prelaunch" (stopped
 * after a reset) where a `stop` alone says "paused". */
static void test_qemu_power_off_stops_and_resets_the_machine(void **state)
{
	struct fixture *fixture = *state;
	char events[512];

	start_qemu(fixture);
	qemu_power(fixture, fixture->qmp_path);
	assert_string_equal(machine_status(fixture), "running");
	assert_succeeds(fixture, POWER_OFF);
	assert_string_equal(machine_status(fixture), "prelaunch");
	assert_false(fixture->observer.running);
	assert_string_equal(take_events(fixture, events, sizeof(events)),
			    "STOP, RESET host-qmp-system-reset");
	/* off again: still off, and reset again */
	assert_succeeds(fixture, POWER_OFF);
	assert_string_equal(machine_status(fixture), "prelaunch");
	assert_string_equal(take_events(fixture, events, sizeof(events)),
			    "RESET host-qmp-system-reset");
	close_power(fixture);
}

/* on after an off runs the machine from its reset; on a running machine it
 * changes nothing. */
static void test_qemu_power_on_resumes_the_machine(void **state)
{
	struct fixture *fixture = *state;
	char events[512];

	start_qemu(fixture);
	qemu_power(fixture, fixture->qmp_path);
	assert_succeeds(fixture, POWER_OFF);
	assert_string_equal(machine_status(fixture), "prelaunch");
	take_events(fixture, events, sizeof(events));
	assert_succeeds(fixture, POWER_ON);
	assert_string_equal(machine_status(fixture), "running");
	assert_true(fixture->observer.running);
	assert_string_equal(take_events(fixture, events, sizeof(events)), "RESUME");
	assert_succeeds(fixture, POWER_ON);
	assert_string_equal(machine_status(fixture), "running");
	assert_string_equal(take_events(fixture, events, sizeof(events)), "");
	close_power(fixture);
}

/* cycle is stop, reset, resume: the machine runs again, from its start. */
static void test_qemu_power_cycle_stops_resets_and_resumes(void **state)
{
	struct fixture *fixture = *state;
	char events[512];

	start_qemu(fixture);
	qemu_power(fixture, fixture->qmp_path);
	assert_succeeds(fixture, POWER_CYCLE);
	assert_string_equal(machine_status(fixture), "running");
	assert_true(fixture->observer.running);
	assert_string_equal(take_events(fixture, events, sizeof(events)),
			    "STOP, RESET host-qmp-system-reset, RESUME");
	/* from off too (stopping a stopped machine is no event) */
	assert_succeeds(fixture, POWER_OFF);
	take_events(fixture, events, sizeof(events));
	assert_succeeds(fixture, POWER_CYCLE);
	assert_string_equal(machine_status(fixture), "running");
	assert_string_equal(take_events(fixture, events, sizeof(events)),
			    "RESET host-qmp-system-reset, RESUME");
	close_power(fixture);
}

/* QEMU serves one QMP connection at a time: requests pending together take
 * turns, in the order they were made, each answered once. */
static void test_qemu_power_requests_pending_together_take_turns(void **state)
{
	struct fixture *fixture = *state;
	enum power_action actions[MAX_OUTCOMES] = { POWER_OFF, POWER_ON, POWER_CYCLE, POWER_OFF };
	char events[512];
	int i;

	start_qemu(fixture);
	qemu_power(fixture, fixture->qmp_path);
	memset(fixture->outcomes, 0, sizeof(fixture->outcomes));
	for (i = 0; i < MAX_OUTCOMES; i++)
		assert_int_equal(fixture->power->ops->request(fixture->power, actions[i], 20000,
							      on_power_done, &fixture->outcomes[i]), 0);
	assert_true(run_until(&fixture->loop, all_done, fixture, 30000));
	for (i = 0; i < MAX_OUTCOMES; i++) {
		if (fixture->outcomes[i].status)
			fail_msg("request %d: %s", i, fixture->outcomes[i].error_text);
		assert_int_equal(fixture->outcomes[i].calls, 1);
	}
	assert_string_equal(machine_status(fixture), "prelaunch");
	assert_string_equal(take_events(fixture, events, sizeof(events)),
			    "STOP, RESET host-qmp-system-reset, RESUME, "
			    "STOP, RESET host-qmp-system-reset, RESUME, "
			    "STOP, RESET host-qmp-system-reset");
	run_until(&fixture->loop, never, NULL, 50);
	for (i = 0; i < MAX_OUTCOMES; i++)
		assert_int_equal(fixture->outcomes[i].calls, 1);
	close_power(fixture);
}

static void on_other_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct other_client *client = handle->data;

	(void)suggested;
	*buffer = uv_buf_init(client->buffer, sizeof(client->buffer));
}

static void on_other_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct other_client *client = stream->data;

	(void)buffer;
	if (count > 0)
		client->greeted = true;
}

static void on_other_connected(uv_connect_t *connect, int status)
{
	struct other_client *client = connect->data;

	client->connected = status ? status : 1;
	if (!status)
		uv_read_start((uv_stream_t *)&client->pipe, on_other_alloc, on_other_read);
}

static bool other_connected(void *arg)
{
	return ((struct other_client *)arg)->connected != 0;
}

static bool other_greeted(void *arg)
{
	return ((struct other_client *)arg)->greeted;
}

static void close_others(struct fixture *fixture)
{
	if (!fixture->others_open)
		return;
	fixture->others_open = false;
	for (int i = 0; i < 3; i++)
		if (fixture->others[i].pipe.loop)	/* connect_other() got to it */
			uv_close((uv_handle_t *)&fixture->others[i].pipe, NULL);
}

static void connect_other(struct fixture *fixture, struct other_client *client)
{
	uv_pipe_init(&fixture->loop, &client->pipe, 0);
	client->pipe.data = client->connect.data = client;
	uv_pipe_connect(&client->connect, &client->pipe, fixture->qmp_path, on_other_connected);
	assert_true(run_until(&fixture->loop, other_connected, client, 10000));
}

/*
 * Other clients on the machine's QMP socket (a person's socat): QEMU serves
 * one, the kernel keeps two more waiting and refuses a fourth (EAGAIN) until
 * there is room. A request waits, trying again: past its timeout it says the
 * socket was busy; within it, it goes through once the others leave.
 */
static void test_qemu_power_waits_while_another_client_holds_the_socket(void **state)
{
	struct fixture *fixture = *state;
	struct other_client *others = fixture->others;
	struct outcome *outcome = &fixture->outcomes[0];
	char events[512];
	int i;

	start_qemu(fixture);
	qemu_power(fixture, fixture->qmp_path);
	fixture->others_open = true;
	connect_other(fixture, &others[0]);
	assert_true(run_until(&fixture->loop, other_greeted, &others[0], 10000));	/* QEMU's client */
	for (i = 1; i < 3; i++) {
		connect_other(fixture, &others[i]);		/* waiting in QEMU's backlog */
		assert_int_equal(others[i].connected, 1);
	}
	/* busy for longer than the timeout */
	outcome = request_and_wait(fixture, POWER_OFF, 300);
	assert_int_equal(outcome->status, -ETIMEDOUT);
	assert_contains(outcome->error_text, "off: the QMP socket was busy for 300 ms: another client "
			"is connected to it (QEMU serves one at a time)");
	/* busy for a while, then free */
	memset(outcome, 0, sizeof(*outcome));
	assert_int_equal(fixture->power->ops->request(fixture->power, POWER_OFF, 20000, on_power_done,
						      outcome), 0);
	run_until(&fixture->loop, never, NULL, 300);
	assert_false(outcome->done);
	assert_string_equal(machine_status(fixture), "running");
	close_others(fixture);
	assert_true(run_until(&fixture->loop, outcome_done, outcome, 20000));
	if (outcome->status)
		fail_msg("off: %s", outcome->error_text);
	assert_string_equal(machine_status(fixture), "prelaunch");
	assert_string_equal(take_events(fixture, events, sizeof(events)),
			    "STOP, RESET host-qmp-system-reset");
	close_power(fixture);
}

/* ---- when QEMU is not there, hangs, or refuses -------------------------------------------------- */

/* No socket, or a stale one (QEMU ended): refused, naming the board and the
 * socket, a relative qmp resolved beside the lab file. */
static void test_qemu_power_without_qemu_is_connection_refused(void **state)
{
	struct fixture *fixture = *state;
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	struct outcome *outcome;
	char expected[512];
	int fd;

	qemu_power(fixture, "qmp.sock");
	outcome = request_and_wait(fixture, POWER_CYCLE, 10000);
	assert_int_equal(outcome->status, -ECONNREFUSED);
	assert_int_equal(outcome->calls, 1);
	snprintf(expected, sizeof(expected),
		 "board r1: power switch 'qemu' (QMP socket %s): cycle: no such socket: connection refused",
		 fixture->qmp_path);
	assert_contains(outcome->error_text, expected);

	/* a socket file nobody listens on */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	snprintf(address.sun_path, sizeof(address.sun_path), "%s", fixture->qmp_path);
	assert_int_equal(bind(fd, (struct sockaddr *)&address, sizeof(address)), 0);
	close(fd);
	outcome = request_and_wait(fixture, POWER_ON, 10000);
	assert_int_equal(outcome->status, -ECONNREFUSED);
	snprintf(expected, sizeof(expected),
		 "board r1: power switch 'qemu' (QMP socket %s): on: connection refused",
		 fixture->qmp_path);
	assert_contains(outcome->error_text, expected);
	close_power(fixture);
}

/* A socket that accepts and never says a word: a hung QEMU. A request
 * behind the hung one times out waiting for its turn. */
static void test_qemu_power_silence_times_out(void **state)
{
	struct fixture *fixture = *state;
	struct outcome *first = &fixture->outcomes[0], *second = &fixture->outcomes[1];
	uint64_t started;
	char expected[512];

	start_fake_qemu(fixture, FAKE_SILENT);
	qemu_power(fixture, fixture->qmp_path);
	memset(fixture->outcomes, 0, sizeof(fixture->outcomes));
	started = now_ms(&fixture->loop);
	assert_int_equal(fixture->power->ops->request(fixture->power, POWER_OFF, 600, on_power_done,
						      first), 0);
	assert_int_equal(fixture->power->ops->request(fixture->power, POWER_ON, 300, on_power_done,
						      second), 0);
	assert_true(run_until(&fixture->loop, outcome_done, second, 10000));
	assert_false(first->done);
	assert_int_equal(second->status, -ETIMEDOUT);
	assert_true(second->finished_at - started >= 300);
	snprintf(expected, sizeof(expected),
		 "board r1: power switch 'qemu' (QMP socket %s): on: still waiting after 300 ms for "
		 "the requests made before it to this QEMU", fixture->qmp_path);
	assert_string_equal(second->error_text, expected);

	assert_true(run_until(&fixture->loop, outcome_done, first, 10000));
	assert_int_equal(first->status, -ETIMEDOUT);
	assert_true(first->finished_at - started >= 600);
	assert_true(first->finished_at - started < 5000);
	assert_int_equal(fixture->fake.client_count, 1);
	snprintf(expected, sizeof(expected),
		 "board r1: power switch 'qemu' (QMP socket %s): off: QEMU did not answer in time: "
		 "no greeting within 600 ms",
		 fixture->qmp_path);
	assert_contains(first->error_text, expected);
	run_until(&fixture->loop, never, NULL, 100);
	assert_int_equal(first->calls, 1);
	assert_int_equal(second->calls, 1);
	close_power(fixture);
}

/* An error answer is -EIO with QEMU's description, after the event before it
 * was skipped; the commands after the refused one are not sent. */
static void test_qemu_power_error_answer_is_eio(void **state)
{
	struct fixture *fixture = *state;
	struct outcome *outcome;

	start_fake_qemu(fixture, FAKE_ERROR);
	qemu_power(fixture, fixture->qmp_path);
	outcome = request_and_wait(fixture, POWER_CYCLE, 10000);
	assert_int_equal(outcome->status, -EIO);
	assert_int_equal(outcome->calls, 1);
	assert_contains(outcome->error_text, "board r1: power switch 'qemu' (QMP socket ");
	assert_contains(outcome->error_text,
			"): cycle: QMP stop failed: Resetting the Virtual Machine is required");
	run_until(&fixture->loop, never, NULL, 100);
	assert_int_equal(fixture->fake.received_count, 2);
	assert_string_equal(fixture->fake.received[0], "qmp_capabilities");
	assert_string_equal(fixture->fake.received[1], "stop");
	close_power(fixture);
}

/* close() with requests waiting: each callback once, -ECANCELED, inside
 * close(); its handles close after (teardown checks the loop goes idle). */
static void test_qemu_power_close_cancels_pending_requests(void **state)
{
	struct fixture *fixture = *state;
	struct outcome *first = &fixture->outcomes[0], *second = &fixture->outcomes[1];

	start_fake_qemu(fixture, FAKE_SILENT);
	qemu_power(fixture, fixture->qmp_path);
	memset(fixture->outcomes, 0, sizeof(fixture->outcomes));
	assert_int_equal(fixture->power->ops->request(fixture->power, POWER_ON, 20000, on_power_done,
						      first), 0);
	assert_int_equal(fixture->power->ops->request(fixture->power, POWER_CYCLE, 20000,
						      on_power_done, second), 0);
	/* the first connected, waiting for a greeting; the second for its turn */
	run_until(&fixture->loop, never, NULL, 100);
	assert_int_equal(fixture->fake.client_count, 1);
	assert_false(first->done);
	close_power(fixture);
	assert_int_equal(first->calls, 1);
	assert_int_equal(second->calls, 1);
	assert_int_equal(first->status, -ECANCELED);
	assert_int_equal(second->status, -ECANCELED);
	assert_contains(first->error_text, "on: closed before QEMU answered");
	assert_contains(second->error_text, "cycle: closed before QEMU answered");
	run_until(&fixture->loop, never, NULL, 100);
	assert_int_equal(first->calls, 1);
	assert_int_equal(second->calls, 1);
}

/* ---- options ------------------------------------------------------------------------------------ */

/* The error is exactly "<lab file>:line:col: board 'r1': power driver 'qemu': words". */
static void assert_refused(struct fixture *fixture, const char *power_lines, int line, int column,
			   const char *words)
{
	struct driver_context context;
	struct power *power = NULL;
	char expected[1024];

	if (load_lab(fixture, power_lines))
		fail_msg("lab did not load: %s", fixture->error);
	context = context_for(fixture);
	assert_int_equal(qemu_power_ops.create(&context, &power, fixture->error, sizeof(fixture->error)),
			 -EINVAL);
	assert_null(power);
	snprintf(expected, sizeof(expected), "%s:%d:%d: board 'r1': power driver 'qemu': %s",
		 fixture->lab_path, line, column, words);
	assert_string_equal(fixture->error, expected);
}

static void test_qemu_power_refuses_bad_options(void **state)
{
	struct fixture *fixture = *state;
	char long_path[300], lines[400];

	assert_refused(fixture, "      driver: qemu\n      qmp: q.sock\n      monitor: m.sock\n", 10, 16,
		       "unknown option 'monitor' (known: qmp)");
	assert_refused(fixture, "      driver: qemu\n", 8, 7,
		       "needs qmp, the machine's QMP socket (QEMU's -qmp unix:PATH,server=on,wait=off)");
	assert_refused(fixture, "      driver: qemu\n      qmp: [a.sock, b.sock]\n", 9, 12,
		       "qmp must be the path of QEMU's QMP socket");
	memset(long_path, 'x', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	snprintf(lines, sizeof(lines), "      driver: qemu\n      qmp: %s\n", long_path);
	assert_refused(fixture, lines, 9, 12, "qmp: a unix socket path must be under 108 bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_qemu_power_off_stops_and_resets_the_machine, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qemu_power_on_resumes_the_machine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qemu_power_cycle_stops_resets_and_resumes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qemu_power_requests_pending_together_take_turns,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_qemu_power_waits_while_another_client_holds_the_socket, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qemu_power_without_qemu_is_connection_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_qemu_power_silence_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qemu_power_error_answer_is_eio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qemu_power_close_cancels_pending_requests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qemu_power_refuses_bad_options, setup, teardown),
	};

	/* A peer hanging up mid-write must be an error code, not the end of us. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
