/*
 * One run, end to end, on boards reached through a local transport: commands
 * run on this machine, with the boards' /tmp mapped into the fixture's own
 * directory. Like the virtual lab's boards (and any boards that share a
 * filesystem), every board sees the same /tmp; no network is used.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <uv.h>

#include "board.h"
#include "config.h"
#include "job_config.h"
#include "log.h"
#include "run.h"
#include "store.h"
#include "power/power.h"
#include "transport/transport.h"

#define REMOTE_TMP "/tmp/"

/* ---- a local transport: "remote" commands run here ---------------------- */

static char shared_tmp[128];	/* what the boards see as /tmp */
static char output_dir[128];	/* where an exec's stdout and stderr go */
static unsigned int exec_count;
static unsigned int connect_count;	/* connections opened, the run's and the watchdog's */
static unsigned int probe_count;	/* `true`: the watchdog's probes */
/* the board goes silent after this many probes (0: never): a probe gets no
 * answer, as from a board whose kernel froze */
static unsigned int probes_before_silence;

#define MAX_PENDING 16

struct local_request;

struct local_transport {
	struct transport base;
	bool closed;
	unsigned int requests;		/* in flight: the instance lives until they end */
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
	bool silent;			/* no answer: -ETIMEDOUT once the timeout passes */
	bool answered;
	char stdout_path[192];
	char stderr_path[192];
	transport_connect_cb connect_callback;
	transport_exec_cb exec_callback;
	transport_upload_cb upload_callback;
	void *data;
};

static const struct transport_ops local_transport_ops;

static void local_free_if_done(struct local_transport *transport)
{
	if (transport->closed && transport->requests == 0)
		free(transport);
}

static void on_request_handle_closed(uv_handle_t *handle)
{
	struct local_request *request = handle->data;
	struct local_transport *owner = request->owner;

	owner->requests--;
	free(request);
	local_free_if_done(owner);
}

/* The board's view of a path: /tmp/x is shared_tmp/x. */
static void map_path(const char *remote, char *out, size_t size)
{
	if (strncmp(remote, REMOTE_TMP, strlen(REMOTE_TMP)) == 0)
		snprintf(out, size, "%s/%s", shared_tmp, remote + strlen(REMOTE_TMP));
	else
		snprintf(out, size, "%s", remote);
}

static char *read_all(const char *path, size_t *length)
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
			out = read_all(request->stdout_path, &out_length);
			err = read_all(request->stderr_path, &err_length);
			/* names under the mapped /tmp, as the board would print them */
			snprintf(board_tmp, sizeof(board_tmp), "%s/", shared_tmp);
			if (strncmp(out, board_tmp, strlen(board_tmp)) == 0) {
				memmove(out + strlen(REMOTE_TMP), out + strlen(board_tmp),
					out_length - strlen(board_tmp) + 1);
				memcpy(out, REMOTE_TMP, strlen(REMOTE_TMP));
				out_length -= strlen(board_tmp) - strlen(REMOTE_TMP);
			}
		}
		struct transport_exec_result result = {
			.status = status,
			.exit_status = status ? -1 : request->exit_status,
			.stdout_text = out ? out : "",
			.stdout_length = out_length,
			.stderr_text = err ? err : "",
			.stderr_length = err_length,
			.error_text = status ? strerror(-status) : NULL,
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

	(void)config;
	if (!transport)
		return -ENOMEM;
	transport->base.ops = &local_transport_ops;
	transport->base.loop = loop;
	*transport_out = &transport->base;
	return 0;
}

static int local_connect(struct transport *base, transport_connect_cb callback, void *data)
{
	struct local_request *request = new_local_request(base, LOCAL_CONNECT, data);

	connect_count++;
	request->connect_callback = callback;
	return complete_soon(request);
}

static int local_exec(struct transport *base, const char *const *argv, uint64_t timeout_ms,
		      transport_exec_cb callback, void *data)
{
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
	probe_count += strcmp(argv[0], "true") == 0;
	if (strcmp(argv[0], "true") == 0 && probes_before_silence &&
	    probe_count > probes_before_silence) {
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
	snprintf(request->stdout_path, sizeof(request->stdout_path), "%s/%u.out", output_dir,
		 exec_count);
	snprintf(request->stderr_path, sizeof(request->stderr_path), "%s/%u.err", output_dir,
		 exec_count++);
	out_fd = open(request->stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err_fd = open(request->stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(out_fd >= 0 && err_fd >= 0);
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_INHERIT_FD;
	stdio[1].data.fd = out_fd;
	stdio[2].flags = UV_INHERIT_FD;
	stdio[2].data.fd = err_fd;
	options.file = args[0];
	options.args = args;
	options.stdio = stdio;
	options.stdio_count = 3;
	options.exit_cb = on_process_exit;
	request->handle.process.data = request;
	rc = uv_spawn(base->loop, &request->handle.process, &options);
	close(out_fd);
	close(err_fd);
	if (rc < 0)
		fail_msg("cannot run %s: %s", args[0], uv_strerror(rc));
	return 0;
}

static int local_upload(struct transport *base, const char *local_path, const char *remote_path,
			uint64_t timeout_ms, transport_upload_cb callback, void *data)
{
	struct local_request *request = new_local_request(base, LOCAL_UPLOAD, data);
	char target[256];
	size_t length;
	char *text = read_all(local_path, &length);
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

static const struct transport_ops local_transport_ops = {
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

static const struct power_ops broken_power_ops = {
	.name = "broken",
	.request = broken_power_request,
};

/* ---- fixture --------------------------------------------------------------- */

#define BOARDS 2

struct fixture {
	char dir[64];
	char runs_dir[128];
	char workload_dir[BOARDS][128];
	char release[128];
	uv_loop_t loop;
	struct store *store;
	struct log log;
	struct job job;
	struct job_workload workload;
	char *no_args[1];
	struct lab_board lab_board[BOARDS];
	struct board board[BOARDS];
	struct run_report report[BOARDS];
	unsigned int done;
	struct power power;
	FILE *events;			/* the log's lines */
};

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *file;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	file = fopen(path, "w");
	assert_non_null(file);
	fputs(text, file);
	fclose(file);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[192];
	struct utsname host;
	int i;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/rackbisect-test-run-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(shared_tmp, sizeof(shared_tmp), "%s/board-tmp", f->dir);
	snprintf(output_dir, sizeof(output_dir), "%s/exec", f->dir);
	snprintf(f->runs_dir, sizeof(f->runs_dir), "%s/runs", f->dir);
	assert_int_equal(mkdir(shared_tmp, 0700), 0);
	assert_int_equal(mkdir(output_dir, 0700), 0);
	assert_int_equal(mkdir(f->runs_dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/state.db", f->dir);
	assert_int_equal(store_open(path, &f->store), 0);
	assert_int_equal(uv_loop_init(&f->loop), 0);
	f->events = tmpfile();
	assert_non_null(f->events);
	log_init(&f->log, f->events, false, f->store);
	f->power = (struct power){ .ops = &broken_power_ops, .loop = &f->loop };
	connect_count = probe_count = probes_before_silence = 0;
	/* the boards already run the kernel under test, cleanly: no boot */
	assert_int_equal(uname(&host), 0);
	snprintf(f->release, sizeof(f->release), "%s", host.release);

	f->workload = (struct job_workload){ .name = "WT", .script = "wt.sh", .args = f->no_args,
					     .timeout_seconds = 60 };
	f->job = (struct job){ .name = "test-run", .workloads = &f->workload,
			       .workload_count = 1, .boot_failure = JOB_POLICY_SKIP,
			       .boot_timeout_seconds = 60, .hang_timeout_seconds = 60 };
	for (i = 0; i < BOARDS; i++) {
		snprintf(f->workload_dir[i], sizeof(f->workload_dir[i]), "%s/workload-%d", f->dir, i);
		assert_int_equal(mkdir(f->workload_dir[i], 0700), 0);
		f->lab_board[i].name = i ? "lb02" : "lb01";
		f->board[i] = (struct board){
			.config = &f->lab_board[i],
			.name = f->lab_board[i].name,
			.loop = &f->loop,
			.log = &f->log,
			.transport_config = { .board_name = f->lab_board[i].name, .host = "local",
					      .user = "root", .identity_file = "none",
					      .known_hosts_file = "none",
					      .connect_timeout_ms = 5000 },
			.transport_ops = &local_transport_ops,
			.power = &f->power,
		};
		snprintf(f->board[i].clean_release, sizeof(f->board[i].clean_release), "%s",
			 f->release);
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char command[128];
	int i;

	uv_run(&f->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&f->loop), 0);
	for (i = 0; i < BOARDS; i++)
		board_capture_reset(&f->board[i]);
	store_close(f->store);
	fclose(f->events);
	snprintf(command, sizeof(command), "rm -rf '%s'", f->dir);
	assert_int_equal(system(command), 0);
	free(f);
	return 0;
}

static void on_run_done(const struct run_report *report, void *data)
{
	struct run_report *out = data;

	*out = *report;
}

static void count_done(struct fixture *f)
{
	int i;

	f->done = 0;
	for (i = 0; i < BOARDS; i++)
		f->done += f->report[i].run_id != 0;
}

/* Starts one run per board, board i with workload_dir[i]; waits for all. */
static void run_on_every_board(struct fixture *f, unsigned int boards)
{
	struct run_environment environment[BOARDS];
	unsigned int i;

	for (i = 0; i < boards; i++) {
		struct run_spec spec = { .workload = &f->workload, .commit = "c0ffee",
					 .image = "unused", .release = f->release };

		environment[i] = (struct run_environment){
			.loop = &f->loop, .store = f->store, .log = &f->log, .job = &f->job,
			.job_name = f->job.name, .runs_dir = f->runs_dir,
			.workload_dir = f->workload_dir[i] };
		memset(&f->report[i], 0, sizeof(f->report[i]));
		assert_int_equal(run_start(&environment[i], &f->board[i], &spec, on_run_done,
					   &f->report[i]), 0);
	}
	do {
		uv_run(&f->loop, UV_RUN_ONCE);
		count_done(f);
	} while (f->done < boards);
}

static char *run_file(struct fixture *f, int64_t run_id, const char *name)
{
	char path[256];
	size_t length;

	snprintf(path, sizeof(path), "%s/%lld/%s", f->runs_dir, (long long)run_id, name);
	return read_all(path, &length);
}

static unsigned int workload_dirs_left(void)
{
	DIR *dir = opendir(shared_tmp);
	struct dirent *entry;
	unsigned int count = 0;

	assert_non_null(dir);
	while ((entry = readdir(dir)) != NULL)
		count += strncmp(entry->d_name, "rackbisect-workload", 19) == 0;
	closedir(dir);
	return count;
}

/* ---- tests ------------------------------------------------------------------ */

/*
 * Two boards share /tmp (the virtual lab's boards do) and run at once, each
 * with its own copy of the workload. Each must run the copy it uploaded:
 * with one shared remote directory, the upload of one run replaced (and,
 * truncating, briefly emptied) the files the other was running.
 */
static void test_runs_on_boards_sharing_tmp_run_their_own_upload(void **state)
{
	struct fixture *f = *state;
	static const char script[] =
		"sleep 1\n"
		". \"$(dirname \"$0\")/lib.sh\"\n"
		"printf 'KTAP version 1\\n1..1\\nok 1 ran the workload of %s\\n' \"$who\"\n";
	char *ktap;
	int i;

	write_text(f->workload_dir[0], "lib.sh", "who=lb01\n");
	write_text(f->workload_dir[1], "lib.sh", "who=lb02\n");
	for (i = 0; i < BOARDS; i++)
		write_text(f->workload_dir[i], "wt.sh", script);
	run_on_every_board(f, BOARDS);
	for (i = 0; i < BOARDS; i++) {
		char expected[64];

		ktap = run_file(f, f->report[i].run_id, "output.ktap");
		snprintf(expected, sizeof(expected), "ok 1 ran the workload of %s\n",
			 f->lab_board[i].name);
		if (!strstr(ktap, expected)) {
			char printed[512];

			snprintf(printed, sizeof(printed), "%s", ktap);
			free(ktap);
			fail_msg("run on %s printed:\n%s\nexpected '%s' (%s)", f->lab_board[i].name,
				 printed, expected, f->report[i].summary);
		}
		free(ktap);
		assert_int_equal(f->report[i].outcome, VERDICT_PASS);
	}
	/* each run removes its directory from the board's /tmp */
	assert_int_equal(workload_dirs_left(), 0);
}

/* A workload that prints no KTAP leaves its stderr and exit status in the
 * run's directory: they are all there is to say why. */
static void test_workload_stderr_and_exit_status_are_kept(void **state)
{
	struct fixture *f = *state;
	char *text;

	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "echo 'wt.sh: no such interface: wlan0' >&2\n"
			 "exit 3\n");
	run_on_every_board(f, 1);
	assert_int_equal(f->report[0].outcome, VERDICT_INFRA);
	text = run_file(f, f->report[0].run_id, "workload.stderr");
	assert_string_equal(text, "wt.sh: no such interface: wlan0\n");
	free(text);
	text = run_file(f, f->report[0].run_id, "workload.exit");
	assert_string_equal(text, "exit status 3\n");
	free(text);
	assert_int_equal(workload_dirs_left(), 0);
}

/* The log's lines so far (the caller frees them). */
static char *events_text(struct fixture *f)
{
	long length;
	char *text;

	fflush(f->events);
	length = ftell(f->events);
	assert_true(length >= 0);
	text = calloc(1, (size_t)length + 1);
	assert_non_null(text);
	rewind(f->events);
	assert_int_equal(fread(text, 1, (size_t)length, f->events), (size_t)length);
	return text;
}

/*
 * A workload silent for longer than the hang limit is probed once per limit.
 * Every probe after the first runs on the connection the first one opened:
 * a new connection per probe started an sshd per probe, and most of a lab's
 * SSH connections were the watchdog's.
 */
static void test_watchdog_probes_reuse_one_connection(void **state)
{
	struct fixture *f = *state;

	f->lab_board[0].hang_timeout_seconds = 1;
	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "sleep 3.5\nprintf 'KTAP version 1\\n1..1\\nok 1 long\\n'\n");
	run_on_every_board(f, 1);
	assert_int_equal(f->report[0].outcome, VERDICT_PASS);
	if (probe_count < 2)
		fail_msg("%u probes in a 3.5 s workload with a 1 s hang limit", probe_count);
	/* the run's connection and the watchdog's one */
	assert_int_equal(connect_count, 2);
}

/* A board that stops answering on the watchdog's kept connection is hung, as
 * one that refuses a new connection is, and as soon. */
static void test_a_board_silent_on_the_kept_probe_connection_is_hung(void **state)
{
	struct fixture *f = *state;
	char *events;

	f->lab_board[0].hang_timeout_seconds = 1;
	probes_before_silence = 1;
	write_text(f->workload_dir[0], "lib.sh", "");
	write_text(f->workload_dir[0], "wt.sh", "sleep 5\nprintf 'KTAP version 1\\n1..1\\nok 1 long\\n'\n");
	run_on_every_board(f, 1);
	assert_int_equal(f->report[0].outcome, VERDICT_FAIL);
	events = events_text(f);
	if (!strstr(f->report[0].summary, "hang") ||
	    !strstr(events, "the watchdog's SSH session cannot run a command")) {
		char printed[2048];

		snprintf(printed, sizeof(printed), "%s", events);
		free(events);
		fail_msg("summary '%s', events:\n%s", f->report[0].summary, printed);
	}
	free(events);
	assert_int_equal(connect_count, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_runs_on_boards_sharing_tmp_run_their_own_upload,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_workload_stderr_and_exit_status_are_kept,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog_probes_reuse_one_connection,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_board_silent_on_the_kept_probe_connection_is_hung,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
