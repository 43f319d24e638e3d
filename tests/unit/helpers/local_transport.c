/* local_transport.c - boards for unit tests whose "remote" commands run here. */
#include "local_transport.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#define REMOTE_TMP "/tmp/"

struct local_world local_world;

#define MAX_PENDING 16

struct local_request;

struct local_transport {
	struct transport base;
	bool closed;
	unsigned int requests;		/* in flight: the instance lives until they end */
	size_t output_limit;		/* as the SSH transport's: bytes kept per stream */
	/* not answered yet: closing answers them -ECANCELED at once, as the
	 * SSH transport does (their caller may be gone by the time they end) */
	struct local_request *pending[MAX_PENDING];
};

enum local_kind { LOCAL_CONNECT, LOCAL_EXEC, LOCAL_UPLOAD, LOCAL_DMESG };

struct local_request {
	struct local_transport *owner;
	enum local_kind kind;
	union {
		uv_timer_t timer;
		uv_process_t process;
	} handle;
	int status;
	int exit_status;
	int kill_status;		/* an exec past its timeout: transport.h's */
	uv_timer_t exec_timer;		/* LOCAL_EXEC with a timeout: kills it at the end */
	int open_handles;		/* freed when the last one closes */
	bool silent;			/* no answer: -ETIMEDOUT once the timeout passes */
	bool answered;
	char stdout_path[192];
	char stderr_path[192];
	transport_connect_cb connect_callback;
	transport_exec_cb exec_callback;
	transport_upload_cb upload_callback;
	void *data;
};


static void local_free_if_done(struct local_transport *transport)
{
	if (transport->closed && transport->requests == 0)
		free(transport);
}

static void on_request_handle_closed(uv_handle_t *handle)
{
	struct local_request *request = handle->data;
	struct local_transport *owner = request->owner;

	if (--request->open_handles)
		return;
	owner->requests--;
	free(request);
	local_free_if_done(owner);
}

/* The board's view of a path: /tmp/x is local_world.shared_tmp/x. */
static void map_path(const char *remote, char *out, size_t size)
{
	if (strncmp(remote, REMOTE_TMP, strlen(REMOTE_TMP)) == 0)
		snprintf(out, size, "%s/%s", local_world.shared_tmp, remote + strlen(REMOTE_TMP));
	else
		snprintf(out, size, "%s", remote);
}

char *local_read_all(const char *path, size_t *length)
{
	char *text = NULL;
	size_t used = 0, capacity = 0;
	FILE *file = fopen(path, "r");

	if (file) {
		for (;;) {
			if (used + 4096 + 1 > capacity) {
				capacity = capacity ? capacity * 2 : 8192;
				text = realloc(text, capacity);
				assert_non_null(text);
			}
			size_t n = fread(text + used, 1, capacity - used - 1, file);

			if (n == 0)
				break;
			used += n;
		}
		fclose(file);
	}
	if (!text)
		text = calloc(1, 1);
	text[used] = '\0';
	*length = used;
	return text;
}

static void forget_pending(struct local_request *request)
{
	unsigned int i;

	for (i = 0; i < MAX_PENDING; i++)
		if (request->owner->pending[i] == request)
			request->owner->pending[i] = NULL;
}

static void deliver(struct local_request *request)
{
	struct transport *base = request->owner->closed ? NULL : &request->owner->base;
	int status = request->owner->closed ? -ECANCELED : request->status;
	char *out = NULL, *err = NULL;
	size_t out_length = 0, err_length = 0;
	char board_tmp[160];

	if (request->answered)
		return;
	request->answered = true;
	forget_pending(request);

	switch (request->kind) {
	case LOCAL_CONNECT:
		request->connect_callback(base, status, status ? strerror(-status) : NULL,
					  request->data);
		break;
	case LOCAL_UPLOAD:
		request->upload_callback(base, status, status ? strerror(-status) : NULL,
					 request->data);
		break;
	case LOCAL_EXEC:
	case LOCAL_DMESG:
		if (request->kind == LOCAL_EXEC) {
			out = local_read_all(request->stdout_path, &out_length);
			err = local_read_all(request->stderr_path, &err_length);
			/* names under the mapped /tmp, as the board would print them */
			snprintf(board_tmp, sizeof(board_tmp), "%s/", local_world.shared_tmp);
			if (strncmp(out, board_tmp, strlen(board_tmp)) == 0) {
				memmove(out + strlen(REMOTE_TMP), out + strlen(board_tmp),
					out_length - strlen(board_tmp) + 1);
				memcpy(out, REMOTE_TMP, strlen(REMOTE_TMP));
				out_length -= strlen(board_tmp) - strlen(REMOTE_TMP);
			}
		}
		size_t limit = request->owner->output_limit;
		struct transport_exec_result result = {
			.status = status,
			.exit_status = status ? -1 : request->exit_status,
			.stdout_text = out ? out : "",
			.stdout_length = out_length > limit ? limit : out_length,
			.stderr_text = err ? err : "",
			.stderr_length = err_length > limit ? limit : err_length,
			.stdout_dropped = out_length > limit ? out_length - limit : 0,
			.stderr_dropped = err_length > limit ? err_length - limit : 0,
			.error_text = status ? strerror(-status) : NULL,
			.kill_status = request->kill_status,
		};
		request->exec_callback(base, &result, request->data);
		free(out);
		free(err);
		break;
	}
}

static void on_request_timer(uv_timer_t *timer)
{
	struct local_request *request = timer->data;

	if (request->silent)
		request->status = -ETIMEDOUT;
	deliver(request);
	uv_close((uv_handle_t *)timer, on_request_handle_closed);
}

static void on_process_exit(uv_process_t *process, int64_t exit_status, int term_signal)
{
	struct local_request *request = process->data;

	request->exit_status = term_signal ? 128 + term_signal : (int)exit_status;
	deliver(request);
	uv_close((uv_handle_t *)process, on_request_handle_closed);
	if (request->exec_timer.data) {
		request->open_handles++;
		uv_close((uv_handle_t *)&request->exec_timer, on_request_handle_closed);
	}
}

/* As the SSH transport does: the command's process group is killed, and
 * the caller hears of the timeout once it is gone (or, with
 * local_world.kill_unconfirmed, as if some of it outlived the kill). */
static void on_exec_timeout(uv_timer_t *timer)
{
	struct local_request *request = timer->data;

	request->status = -ETIMEDOUT;
	request->kill_status = local_world.kill_unconfirmed ? -EBUSY : 0;
	uv_kill(-request->handle.process.pid, SIGKILL);
}

static struct local_request *new_local_request(struct transport *base, enum local_kind kind,
					       void *data)
{
	struct local_transport *transport = (struct local_transport *)base;
	struct local_request *request = calloc(1, sizeof(*request));

	assert_non_null(request);
	request->owner = transport;
	request->kind = kind;
	request->data = data;
	request->handle.timer.data = request;
	request->open_handles = 1;
	transport->requests++;
	for (unsigned int i = 0; i < MAX_PENDING; i++)
		if (!transport->pending[i]) {
			transport->pending[i] = request;
			return request;
		}
	fail_msg("more than %d requests in flight on one transport", MAX_PENDING);
	return request;
}

/* Completes on the next loop turn, as a real transport would. */
static int complete_soon(struct local_request *request)
{
	uv_timer_init(request->owner->base.loop, &request->handle.timer);
	request->handle.timer.data = request;
	uv_timer_start(&request->handle.timer, on_request_timer, 0, 0);
	return 0;
}

static int local_create(uv_loop_t *loop, const struct transport_config *config,
			struct transport **transport_out)
{
	struct local_transport *transport = calloc(1, sizeof(*transport));

	if (!transport)
		return -ENOMEM;
	transport->output_limit = config->output_limit ? config->output_limit
						       : TRANSPORT_OUTPUT_LIMIT_DEFAULT;
	transport->base.ops = &local_transport_ops;
	transport->base.loop = loop;
	*transport_out = &transport->base;
	return 0;
}

static int local_connect(struct transport *base, transport_connect_cb callback, void *data)
{
	struct local_request *request = new_local_request(base, LOCAL_CONNECT, data);

	local_world.connect_count++;
	request->connect_callback = callback;
	return complete_soon(request);
}

/*
 * The environment of a command run for real: PATH starts with a directory
 * whose `dmesg` prints nothing, so that the run's own shell steps that read
 * the kernel log (`sh -c '... dmesg ...'`) see the same empty log as a bare
 * `dmesg`, wherever the test runs; TMPDIR is the boards' /tmp. Sets env (its
 * PATH entry in path, its TMPDIR entry in tmpdir).
 */
#define TMPDIR_ENTRY_SIZE (sizeof("TMPDIR=") + sizeof(local_world.tmpdir))
static void stub_environment(char **env, size_t most, char *path, size_t path_size,
			     char tmpdir[TMPDIR_ENTRY_SIZE])
{
	extern char **environ;
	char stub_dir[200], stub[220];
	const char *old_path = getenv("PATH");
	size_t n = 0;
	FILE *file;

	snprintf(stub_dir, sizeof(stub_dir), "%s/stub-bin", local_world.output_dir);
	snprintf(stub, sizeof(stub), "%s/dmesg", stub_dir);
	if (access(stub, X_OK) != 0) {
		assert_true(mkdir(stub_dir, 0700) == 0 || errno == EEXIST);
		assert_non_null(file = fopen(stub, "w"));
		fputs("#!/bin/sh\n# the test board's kernel log: empty\nexit 0\n", file);
		assert_int_equal(fclose(file), 0);
		assert_int_equal(chmod(stub, 0700), 0);
	}
	snprintf(path, path_size, "PATH=%s:%s", stub_dir, old_path ? old_path : "/usr/bin:/bin");
	env[n++] = path;
	snprintf(tmpdir, TMPDIR_ENTRY_SIZE, "TMPDIR=%s",
		 local_world.tmpdir[0] ? local_world.tmpdir : local_world.shared_tmp);
	env[n++] = tmpdir;
	for (char **e = environ; *e && n + 1 < most; e++)
		if (strncmp(*e, "PATH=", 5) != 0 && strncmp(*e, "TMPDIR=", 7) != 0)
			env[n++] = *e;
	env[n] = NULL;
}

static int local_exec(struct transport *base, const char *const *argv, uint64_t timeout_ms,
		      transport_exec_cb callback, void *data)
{
	char *env[256], path[4096], tmpdir[TMPDIR_ENTRY_SIZE];
	struct local_request *request;
	char mapped[32][256];
	char *args[33];
	uv_process_options_t options = { 0 };
	uv_stdio_container_t stdio[3];
	int i, out_fd, err_fd, rc;

	/* the board's kernel log: empty, and readable wherever the test runs */
	if (strcmp(argv[0], "dmesg") == 0) {
		request = new_local_request(base, LOCAL_DMESG, data);
		request->exec_callback = callback;
		return complete_soon(request);
	}
	local_world.probe_count += strcmp(argv[0], "true") == 0;
	if (strcmp(argv[0], "true") == 0 && local_world.probes_before_silence &&
	    local_world.probe_count > local_world.probes_before_silence) {
		/* answered like the kernel log (no output, no process), but only
		 * once the timeout has passed, with -ETIMEDOUT */
		request = new_local_request(base, LOCAL_DMESG, data);
		request->exec_callback = callback;
		request->silent = true;
		uv_timer_init(base->loop, &request->handle.timer);
		request->handle.timer.data = request;
		uv_timer_start(&request->handle.timer, on_request_timer, timeout_ms, 0);
		return 0;
	}
	request = new_local_request(base, LOCAL_EXEC, data);
	request->exec_callback = callback;
	for (i = 0; argv[i] && i < 32; i++) {
		map_path(argv[i], mapped[i], sizeof(mapped[i]));
		args[i] = mapped[i];
	}
	args[i] = NULL;
	snprintf(request->stdout_path, sizeof(request->stdout_path), "%s/%u.out", local_world.output_dir,
		 local_world.exec_count);
	snprintf(request->stderr_path, sizeof(request->stderr_path), "%s/%u.err", local_world.output_dir,
		 local_world.exec_count++);
	out_fd = open(request->stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err_fd = open(request->stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(out_fd >= 0 && err_fd >= 0);
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_INHERIT_FD;
	stdio[1].data.fd = out_fd;
	stdio[2].flags = UV_INHERIT_FD;
	stdio[2].data.fd = err_fd;
	stub_environment(env, sizeof(env) / sizeof(env[0]), path, sizeof(path), tmpdir);
	options.file = args[0];
	options.args = args;
	options.env = env;
	options.stdio = stdio;
	options.stdio_count = 3;
	options.exit_cb = on_process_exit;
	options.flags = UV_PROCESS_DETACHED;	/* its own process group, as sshd's */
	request->handle.process.data = request;
	rc = uv_spawn(base->loop, &request->handle.process, &options);
	close(out_fd);
	close(err_fd);
	if (rc < 0)
		fail_msg("cannot run %s: %s", args[0], uv_strerror(rc));
	if (timeout_ms > 0) {
		uv_timer_init(base->loop, &request->exec_timer);
		request->exec_timer.data = request;
		uv_timer_start(&request->exec_timer, on_exec_timeout, timeout_ms, 0);
	}
	return 0;
}

static int local_upload(struct transport *base, const char *local_path, const char *remote_path,
			uint64_t timeout_ms, transport_upload_cb callback, void *data)
{
	struct local_request *request = new_local_request(base, LOCAL_UPLOAD, data);
	char target[256];
	size_t length;
	char *text = local_read_all(local_path, &length);
	FILE *file;

	(void)timeout_ms;
	request->upload_callback = callback;
	map_path(remote_path, target, sizeof(target));
	/* what `cat > FILE` does: truncate, then write */
	file = fopen(target, "w");
	if (!file || fwrite(text, 1, length, file) != length)
		request->status = -EIO;
	if (file)
		fclose(file);
	free(text);
	return complete_soon(request);
}

static void local_close(struct transport *base, transport_close_cb callback, void *data)
{
	struct local_transport *transport = (struct local_transport *)base;

	transport->closed = true;
	for (unsigned int i = 0; i < MAX_PENDING; i++) {
		struct local_request *request = transport->pending[i];

		if (!request)
			continue;
		/* the remote command dies with its channel */
		if (request->kind == LOCAL_EXEC)
			uv_process_kill(&request->handle.process, SIGKILL);
		deliver(request);
	}
	local_free_if_done(transport);
	if (callback)
		callback(NULL, data);
}

const struct transport_ops local_transport_ops = {
	.name = "local",
	.create = local_create,
	.connect = local_connect,
	.exec = local_exec,
	.upload = local_upload,
	.close = local_close,
};

/* A power switch that cannot switch: a run recovering from a hang ends there. */
static int broken_power_request(struct power *power, enum power_action action,
				uint64_t timeout_ms, power_cb callback, void *data)
{
	(void)power, (void)action, (void)timeout_ms, (void)callback, (void)data;
	return -EIO;
}

const struct power_ops broken_power_ops = {
	.name = "broken",
	.request = broken_power_request,
};

void local_board_init(struct board *board, struct lab_board *config, uv_loop_t *loop,
		      struct log *log, struct power *power, const char *image)
{
	*board = (struct board){
		.config = config, .name = config->name, .loop = loop, .log = log,
		.transport_config = { .board_name = config->name, .host = "local", .user = "root",
				      .identity_file = "none", .known_hosts_file = "none",
				      .connect_timeout_ms = 5000 },
		.transport_ops = &local_transport_ops,
		.power = power,
	};
	snprintf(board->clean_image, sizeof(board->clean_image), "%s", image);
}

void local_boards_teardown(uv_loop_t *loop, struct board *boards, size_t count,
			   struct store *store, FILE *events, const char *dir)
{
	char command[PATH_MAX + 16];

	uv_run(loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(loop), 0);
	for (size_t i = 0; i < count; i++)
		board_capture_reset(&boards[i]);
	store_close(store);
	fclose(events);
	snprintf(command, sizeof(command), "rm -rf '%s'", dir);
	assert_int_equal(system(command), 0);
}
