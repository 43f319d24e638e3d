/*
 * The SSH transport against a real OpenSSH sshd started by this test on
 * 127.77.5.1, with throwaway host and client keys under /tmp.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "transport/shell_quote.h"
#include "transport/ssh.h"

#define LISTEN_ADDRESS "127.77.5.1"
#define SSHD_PORT 2222
#define STOPPED_SSHD_PORT 2223	/* accepts TCP, never sends a banner */
#define CLOSED_PORT 2224	/* nothing listens: connection refused */

struct sshd_instance {
	uv_process_t process;
	uv_pipe_t stderr_pipe;
	char log[1 << 20];
	size_t log_length;
	bool listening;
	bool exited;
	bool running;
};

struct fixture {
	uv_loop_t loop;
	char directory[64];
	char path_host_key[128];
	char path_client_key[128];
	char path_other_key[128];
	char path_known_hosts[128];
	char path_known_hosts_empty[128];
	char path_known_hosts_changed[128];
	char host_fingerprint[128];
	char other_fingerprint[128];
	struct sshd_instance sshd;
	struct sshd_instance stopped_sshd;
};

/* ---- setup helpers (blocking is fine here: no loop is running yet) ------ */

static int run_program(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null_fd = open("/dev/null", O_WRONLY);

		dup2(null_fd, 1);
		dup2(null_fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int generate_key(const char *path)
{
	char *const argv[] = {"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "",
			      "-C", "rackbisect-test", "-f", (char *)path, NULL};
	return run_program(argv);
}

/* "256 SHA256:abc comment (ED25519)" -> "SHA256:abc" */
static int read_fingerprint(const char *public_key_path, char *out, size_t size)
{
	char command[300], line[512], *start, *end;
	FILE *pipe;

	snprintf(command, sizeof(command), "/usr/bin/ssh-keygen -l -E sha256 -f '%s'",
		 public_key_path);
	pipe = popen(command, "r");
	if (pipe == NULL)
		return -1;
	if (fgets(line, sizeof(line), pipe) == NULL) {
		pclose(pipe);
		return -1;
	}
	pclose(pipe);
	start = strchr(line, ' ');
	if (start == NULL)
		return -1;
	start++;
	end = strchr(start, ' ');
	if (end == NULL)
		return -1;
	snprintf(out, size, "%.*s", (int)(end - start), start);
	return 0;
}

static int read_whole_file(const char *path, char *out, size_t size)
{
	FILE *file = fopen(path, "r");
	size_t length;

	if (file == NULL)
		return -1;
	length = fread(out, 1, size - 1, file);
	out[length] = '\0';
	fclose(file);
	return 0;
}

static int write_known_hosts(const char *path, unsigned int port, const char *public_key_path)
{
	char key_line[1024];
	FILE *file;

	if (public_key_path != NULL && read_whole_file(public_key_path, key_line, sizeof(key_line)))
		return -1;
	file = fopen(path, "w");
	if (file == NULL)
		return -1;
	if (public_key_path != NULL)
		fprintf(file, "[%s]:%u %s", LISTEN_ADDRESS, port, key_line);
	fclose(file);
	return 0;
}

static int write_sshd_config(struct fixture *fixture, unsigned int port, char *path, size_t size)
{
	FILE *file;

	snprintf(path, size, "%s/sshd_config_%u", fixture->directory, port);
	file = fopen(path, "w");
	if (file == NULL)
		return -1;
	fprintf(file,
		"HostKey %s\n"
		"ListenAddress %s:%u\n"
		"AuthorizedKeysFile %s/authorized_keys\n"
		"PermitRootLogin prohibit-password\n"
		"PasswordAuthentication no\n"
		"KbdInteractiveAuthentication no\n"
		"UsePAM no\n"
		"StrictModes no\n"
		"PidFile none\n"
		"LogLevel %s\n",
		fixture->path_host_key, LISTEN_ADDRESS, port, fixture->directory,
		getenv("RACKBISECT_TEST_SSHD_LOG") ? "DEBUG" : "INFO");
	fclose(file);
	return 0;
}

/* ---- sshd on the loop: started by uv_spawn, ready when it says so ------- */

static void on_log_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct sshd_instance *sshd = handle->data;
	size_t room = sizeof(sshd->log) - 1 - sshd->log_length;

	(void)suggested;
	if (room == 0) {	/* keep draining so sshd never blocks on stderr */
		sshd->log_length = 0;
		room = sizeof(sshd->log) - 1;
	}
	buffer->base = sshd->log + sshd->log_length;
	buffer->len = room;
}

static void on_log_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct sshd_instance *sshd = stream->data;

	(void)buffer;
	if (count <= 0) {
		if (count != UV_ENOBUFS)
			uv_read_stop(stream);
		return;
	}
	sshd->log_length += (size_t)count;
	sshd->log[sshd->log_length] = '\0';
	if (strstr(sshd->log, "Server listening") != NULL)
		sshd->listening = true;
}

static void on_sshd_exit(uv_process_t *process, int64_t exit_status, int term_signal)
{
	struct sshd_instance *sshd = process->data;

	(void)exit_status;
	(void)term_signal;
	sshd->exited = true;
}

static void on_guard_timer(uv_timer_t *timer)
{
	*(bool *)timer->data = true;
}

/* Before the loop would block: a callback that ran from a timer in this
 * turn (a connect that fails without the network) already said done, and
 * UV_RUN_ONCE would otherwise wait on until the guard. */
static void on_before_poll(uv_prepare_t *prepare)
{
	if (*(const bool *)prepare->data)
		uv_stop(prepare->loop);
}

/* Runs the loop until *done or timeout_ms pass; true if done. */
static bool run_until(uv_loop_t *loop, const bool *done, uint64_t timeout_ms)
{
	uv_timer_t guard;
	uv_prepare_t before_poll;
	bool expired = false;

	uv_timer_init(loop, &guard);
	guard.data = &expired;
	uv_timer_start(&guard, on_guard_timer, timeout_ms, 0);
	uv_prepare_init(loop, &before_poll);
	before_poll.data = (void *)done;
	uv_prepare_start(&before_poll, on_before_poll);
	while (!*done && !expired)
		uv_run(loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&guard, NULL);
	uv_close((uv_handle_t *)&before_poll, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
	return *done;
}

static int start_sshd(struct fixture *fixture, struct sshd_instance *sshd, unsigned int port)
{
	char config[160];
	/* setpriv: sshd dies with this process even if a crash skips teardown
	 * (KILL: one of them is kept stopped, and a stopped sshd would sit on
	 * a pending TERM) */
	char *args[] = {"/usr/bin/setpriv", "--pdeathsig", "KILL", "/usr/sbin/sshd",
			"-D", "-e", "-f", config, NULL};
	uv_stdio_container_t stdio[3];
	uv_process_options_t options = {0};

	if (write_sshd_config(fixture, port, config, sizeof(config)) < 0)
		return -1;
	uv_pipe_init(&fixture->loop, &sshd->stderr_pipe, 0);
	sshd->stderr_pipe.data = sshd;
	sshd->process.data = sshd;
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_IGNORE;
	stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	stdio[2].data.stream = (uv_stream_t *)&sshd->stderr_pipe;
	options.file = args[0];
	options.args = args;
	options.stdio = stdio;
	options.stdio_count = 3;
	options.exit_cb = on_sshd_exit;
	if (uv_spawn(&fixture->loop, &sshd->process, &options) < 0) {
		uv_close((uv_handle_t *)&sshd->stderr_pipe, NULL);
		return -1;
	}
	sshd->running = true;
	uv_read_start((uv_stream_t *)&sshd->stderr_pipe, on_log_alloc, on_log_read);
	if (!run_until(&fixture->loop, &sshd->listening, 30000)) {
		fprintf(stderr, "sshd on port %u did not start:\n%s\n", port, sshd->log);
		return -1;
	}
	return 0;
}

static void stop_sshd(struct fixture *fixture, struct sshd_instance *sshd)
{
	if (!sshd->running)
		return;
	kill(sshd->process.pid, SIGCONT);
	kill(sshd->process.pid, SIGTERM);
	if (!run_until(&fixture->loop, &sshd->exited, 10000)) {
		kill(sshd->process.pid, SIGKILL);
		run_until(&fixture->loop, &sshd->exited, 3000);
	}
	/* the tail of sshd's log, for debugging a failure by hand */
	if (getenv("RACKBISECT_TEST_SSHD_LOG") != NULL)
		fprintf(stderr, "sshd log tail:\n%s\n", sshd->log);
	uv_close((uv_handle_t *)&sshd->process, NULL);
	uv_close((uv_handle_t *)&sshd->stderr_pipe, NULL);
	uv_run(&fixture->loop, UV_RUN_NOWAIT);
	sshd->running = false;
}

static void remove_directory(const char *directory)
{
	char command[128];

	snprintf(command, sizeof(command), "rm -rf '%s'", directory);
	if (system(command) != 0)
		fprintf(stderr, "could not remove %s\n", directory);
}

static int prepare_keys(struct fixture *fixture)
{
	char path[192], authorized[160];
	const char *dir = fixture->directory;

	snprintf(fixture->path_host_key, sizeof(fixture->path_host_key), "%s/host_key", dir);
	snprintf(fixture->path_client_key, sizeof(fixture->path_client_key), "%s/client_key", dir);
	snprintf(fixture->path_other_key, sizeof(fixture->path_other_key), "%s/other_key", dir);
	snprintf(fixture->path_known_hosts, sizeof(fixture->path_known_hosts), "%s/known_hosts",
		 dir);
	snprintf(fixture->path_known_hosts_empty, sizeof(fixture->path_known_hosts_empty),
		 "%s/known_hosts_empty", dir);
	snprintf(fixture->path_known_hosts_changed, sizeof(fixture->path_known_hosts_changed),
		 "%s/known_hosts_changed", dir);
	if (generate_key(fixture->path_host_key) || generate_key(fixture->path_client_key) ||
	    generate_key(fixture->path_other_key))
		return -1;
	snprintf(path, sizeof(path), "%s.pub", fixture->path_host_key);
	if (read_fingerprint(path, fixture->host_fingerprint, sizeof(fixture->host_fingerprint)) ||
	    write_known_hosts(fixture->path_known_hosts, SSHD_PORT, path) ||
	    write_known_hosts(fixture->path_known_hosts_empty, SSHD_PORT, NULL))
		return -1;
	snprintf(path, sizeof(path), "%s.pub", fixture->path_other_key);
	if (read_fingerprint(path, fixture->other_fingerprint, sizeof(fixture->other_fingerprint)) ||
	    write_known_hosts(fixture->path_known_hosts_changed, SSHD_PORT, path))
		return -1;
	snprintf(path, sizeof(path), "%s.pub", fixture->path_client_key);
	snprintf(authorized, sizeof(authorized), "%s/authorized_keys", dir);
	{
		char key_line[1024];
		FILE *file;

		if (read_whole_file(path, key_line, sizeof(key_line)))
			return -1;
		file = fopen(authorized, "w");
		if (file == NULL)
			return -1;
		fputs(key_line, file);
		fclose(file);
	}
	return 0;
}

static int group_teardown(void **state);

static int group_setup(void **state)
{
	struct fixture *fixture = calloc(1, sizeof(*fixture));

	if (fixture == NULL)
		return -1;
	*state = fixture;
	uv_loop_init(&fixture->loop);
	snprintf(fixture->directory, sizeof(fixture->directory), "/tmp/rackbisect-ssh-XXXXXX");
	if (mkdtemp(fixture->directory) == NULL)
		return -1;
	mkdir("/run/sshd", 0755);	/* sshd's privilege separation directory */
	if (prepare_keys(fixture) < 0 || start_sshd(fixture, &fixture->sshd, SSHD_PORT) < 0 ||
	    start_sshd(fixture, &fixture->stopped_sshd, STOPPED_SSHD_PORT) < 0) {
		group_teardown(state);
		return -1;
	}
	kill(fixture->stopped_sshd.process.pid, SIGSTOP);
	return 0;
}

static int group_teardown(void **state)
{
	struct fixture *fixture = *state;

	if (fixture == NULL)
		return 0;
	stop_sshd(fixture, &fixture->sshd);
	stop_sshd(fixture, &fixture->stopped_sshd);
	uv_run(&fixture->loop, UV_RUN_NOWAIT);
	uv_loop_close(&fixture->loop);
	if (fixture->directory[0] != '\0' && strstr(fixture->directory, "XXXXXX") == NULL)
		remove_directory(fixture->directory);
	free(fixture);
	*state = NULL;
	return 0;
}

/* ---- driving the transport ----------------------------------------------- */

struct outcome {
	bool done;
	int status;
	char error_text[1024];
	int exit_status;
	char *stdout_text;
	size_t stdout_length;
	size_t stderr_length;
	size_t stdout_dropped;
	size_t stderr_dropped;
	int kill_status;
};

static void on_connected(struct transport *transport, int status, const char *error_text,
			 void *data)
{
	struct outcome *outcome = data;

	(void)transport;
	outcome->status = status;
	snprintf(outcome->error_text, sizeof(outcome->error_text), "%s",
		 error_text ? error_text : "");
	outcome->done = true;
}

static void on_exec_done(struct transport *transport, const struct transport_exec_result *result,
			 void *data)
{
	struct outcome *outcome = data;

	(void)transport;
	outcome->status = result->status;
	outcome->exit_status = result->exit_status;
	outcome->stdout_text = malloc(result->stdout_length + 1);
	memcpy(outcome->stdout_text, result->stdout_text, result->stdout_length + 1);
	outcome->stdout_length = result->stdout_length;
	outcome->stderr_length = result->stderr_length;
	outcome->stdout_dropped = result->stdout_dropped;
	outcome->stderr_dropped = result->stderr_dropped;
	outcome->kill_status = result->kill_status;
	snprintf(outcome->error_text, sizeof(outcome->error_text), "%s",
		 result->error_text ? result->error_text : "");
	outcome->done = true;
}

static void on_uploaded(struct transport *transport, int status, const char *error_text,
			void *data)
{
	on_connected(transport, status, error_text, data);
}

static void on_closed(struct transport *transport, void *data)
{
	(void)transport;
	*(bool *)data = true;
}

struct connect_options {
	unsigned int port;
	const char *known_hosts;
	const char *identity;
	uint64_t connect_timeout_ms;
	size_t output_limit;
};

static struct transport *connect_board(struct fixture *fixture,
				       const struct connect_options *options,
				       struct outcome *outcome)
{
	struct transport_config config = {
		.board_name = "r1",
		.host = LISTEN_ADDRESS,
		.port = options->port ? options->port : SSHD_PORT,
		.user = "root",
		.identity_file = options->identity ? options->identity : fixture->path_client_key,
		.known_hosts_file = options->known_hosts ? options->known_hosts
							 : fixture->path_known_hosts,
		.connect_timeout_ms = options->connect_timeout_ms ? options->connect_timeout_ms
								  : 30000,
		.keepalive_interval_ms = 1000,
		.output_limit = options->output_limit,
	};
	struct transport *transport = NULL;

	memset(outcome, 0, sizeof(*outcome));
	assert_int_equal(ssh_transport_ops.create(&fixture->loop, &config, &transport), 0);
	assert_int_equal(transport->ops->connect(transport, on_connected, outcome), 0);
	assert_false(outcome->done);	/* callbacks never run inside the call */
	assert_true(run_until(&fixture->loop, &outcome->done, 90000));
	return transport;
}

static void close_board(struct fixture *fixture, struct transport *transport)
{
	bool closed = false;

	transport->ops->close(transport, on_closed, &closed);
	assert_true(run_until(&fixture->loop, &closed, 30000));
}

static struct transport *connect_ready_board(struct fixture *fixture)
{
	struct connect_options options = {0};
	struct outcome outcome;
	struct transport *transport = connect_board(fixture, &options, &outcome);

	if (outcome.status != 0)
		fail_msg("connect failed: %s", outcome.error_text);
	return transport;
}

static void exec_and_wait(struct fixture *fixture, struct transport *transport,
			  const char *const *argv, uint64_t timeout_ms, struct outcome *outcome)
{
	memset(outcome, 0, sizeof(*outcome));
	assert_int_equal(transport->ops->exec(transport, argv, timeout_ms, on_exec_done, outcome), 0);
	assert_false(outcome->done);
	assert_true(run_until(&fixture->loop, &outcome->done, 60000));
}

/* ---- tests ----------------------------------------------------------------- */

static void test_shell_quote_words(void **state)
{
	const char *const argv[] = {"printf", "%s\n", "it's", "", "a b", "$(x);`y`", NULL};
	const char *const empty[] = {NULL};
	char *command = NULL;

	(void)state;
	assert_int_equal(shell_quote_argv(argv, &command), 0);
	assert_string_equal(command, "'printf' '%s\n' 'it'\\''s' '' 'a b' '$(x);`y`'");
	free(command);
	assert_int_equal(shell_quote_argv(empty, &command), -EINVAL);
}

static void test_exec_returns_stdout_and_exit_status(void **state)
{
	struct fixture *fixture = *state;
	struct transport *transport = connect_ready_board(fixture);
	const char *const argv[] = {"sh", "-c", "echo hi; exit 3", NULL};
	struct outcome outcome;

	exec_and_wait(fixture, transport, argv, 30000, &outcome);
	assert_int_equal(outcome.status, 0);
	assert_string_equal(outcome.stdout_text, "hi\n");
	assert_int_equal(outcome.exit_status, 3);
	assert_int_equal(outcome.stderr_length, 0);	/* the PID announcement is not shown */
	free(outcome.stdout_text);
	close_board(fixture, transport);
}

static void test_word_with_shell_syntax_arrives_as_one_argument(void **state)
{
	struct fixture *fixture = *state;
	struct transport *transport = connect_ready_board(fixture);
	const char *word = "two words 'single' \"double\" $(echo injected) `echo back` ; "
			   "exit 9 && | > /tmp/x\nsecond line \\ * $HOME";
	const char *const argv[] = {"printf", "%s|\n", word, "", NULL};
	char expected[512];
	struct outcome outcome;

	exec_and_wait(fixture, transport, argv, 30000, &outcome);
	snprintf(expected, sizeof(expected), "%s|\n|\n", word);
	assert_int_equal(outcome.status, 0);
	assert_int_equal(outcome.exit_status, 0);
	assert_string_equal(outcome.stdout_text, expected);
	free(outcome.stdout_text);
	close_board(fixture, transport);
}

/* A command printing far more than the limit (a workload that never stops
 * talking): the first bytes are kept, the rest is read, counted and dropped,
 * and the command still ends normally. */
static void test_output_past_the_limit_is_counted_not_kept(void **state)
{
	struct fixture *fixture = *state;
	struct connect_options options = { .output_limit = 1 << 20 };
	struct outcome outcome;
	struct transport *transport = connect_board(fixture, &options, &outcome);
	const char *const argv[] = {"sh", "-c",
				    "head -c 50000000 /dev/zero | tr '\\0' o; "
				    "head -c 3000000 /dev/zero | tr '\\0' e >&2; exit 4", NULL};

	assert_int_equal(outcome.status, 0);
	exec_and_wait(fixture, transport, argv, 60000, &outcome);
	assert_int_equal(outcome.status, 0);
	assert_int_equal(outcome.exit_status, 4);
	assert_int_equal(outcome.stdout_length, 1 << 20);
	assert_int_equal(outcome.stdout_dropped, 50000000 - (1 << 20));
	assert_int_equal(outcome.stdout_text[0], 'o');
	assert_int_equal(outcome.stdout_text[(1 << 20) - 1], 'o');
	assert_int_equal(outcome.stderr_length, 1 << 20);
	assert_int_equal(outcome.stderr_dropped, 3000000 - (1 << 20));
	free(outcome.stdout_text);
	close_board(fixture, transport);
}

static void test_upload_then_read_back(void **state)
{
	struct fixture *fixture = *state;
	struct transport *transport = connect_ready_board(fixture);
	char local_path[160], remote_path[160];
	const size_t size = 300000;	/* larger than one channel window */
	char *content = malloc(size);
	struct outcome outcome;
	FILE *file;
	size_t index;

	for (index = 0; index < size; index++)
		content[index] = (char)((index * 7 + index / 251) & 0xff);
	snprintf(local_path, sizeof(local_path), "%s/local payload", fixture->directory);
	snprintf(remote_path, sizeof(remote_path), "%s/remote 'payload' $(x)", fixture->directory);
	file = fopen(local_path, "w");
	assert_non_null(file);
	assert_int_equal(fwrite(content, 1, size, file), size);
	fclose(file);

	memset(&outcome, 0, sizeof(outcome));
	assert_int_equal(transport->ops->upload(transport, local_path, remote_path, 10000,
						on_uploaded, &outcome), 0);
	assert_true(run_until(&fixture->loop, &outcome.done, 60000));
	if (outcome.status != 0)
		fail_msg("upload failed: %s", outcome.error_text);

	const char *const argv[] = {"cat", remote_path, NULL};
	exec_and_wait(fixture, transport, argv, 30000, &outcome);
	assert_int_equal(outcome.status, 0);
	assert_int_equal(outcome.exit_status, 0);
	assert_int_equal(outcome.stdout_length, size);
	assert_memory_equal(outcome.stdout_text, content, size);
	free(outcome.stdout_text);
	free(content);
	close_board(fixture, transport);
}

static void test_unknown_host_key_is_refused(void **state)
{
	struct fixture *fixture = *state;
	struct connect_options options = {.known_hosts = fixture->path_known_hosts_empty};
	struct outcome outcome;
	struct transport *transport = connect_board(fixture, &options, &outcome);

	assert_int_equal(outcome.status, -ENOKEY);
	assert_non_null(strstr(outcome.error_text, "board r1"));
	assert_non_null(strstr(outcome.error_text, LISTEN_ADDRESS ":2222"));
	assert_non_null(strstr(outcome.error_text, fixture->host_fingerprint));
	assert_int_equal(transport->ops->exec(transport, (const char *const[]){"true", NULL}, 0,
					      on_exec_done, &outcome), -ENOTCONN);
	close_board(fixture, transport);
}

static void test_changed_host_key_is_refused(void **state)
{
	struct fixture *fixture = *state;
	struct connect_options options = {.known_hosts = fixture->path_known_hosts_changed};
	struct outcome outcome;
	struct transport *transport = connect_board(fixture, &options, &outcome);

	assert_int_equal(outcome.status, -EKEYREJECTED);
	assert_non_null(strstr(outcome.error_text, "board r1"));
	assert_non_null(strstr(outcome.error_text, fixture->host_fingerprint));
	assert_non_null(strstr(outcome.error_text, fixture->other_fingerprint));
	close_board(fixture, transport);
}

static void test_wrong_identity_is_refused(void **state)
{
	struct fixture *fixture = *state;
	struct connect_options options = {.identity = fixture->path_other_key};
	struct outcome outcome;
	struct transport *transport = connect_board(fixture, &options, &outcome);

	assert_int_equal(outcome.status, -EACCES);
	close_board(fixture, transport);
}

/* Our own key that cannot be used is said as such, through the callback,
 * with a status that blames no board (issue 31: it was "No such file or
 * directory", and the board was power-cycled and taken offline). */
static void test_an_unusable_identity_is_ours_not_the_boards(void **state)
{
	struct fixture *fixture = *state;
	char missing[160], encrypted[160];
	char *const make_encrypted[] = {"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N",
					"a passphrase", "-f", encrypted, NULL};
	struct connect_options options = {.identity = missing};
	struct outcome outcome;
	struct transport *transport;

	snprintf(missing, sizeof(missing), "%s/no-such-key", fixture->directory);
	snprintf(encrypted, sizeof(encrypted), "%s/encrypted-key", fixture->directory);
	assert_int_equal(run_program(make_encrypted), 0);

	transport = connect_board(fixture, &options, &outcome);
	assert_int_equal(outcome.status, TRANSPORT_BAD_IDENTITY);
	if (!strstr(outcome.error_text, "the SSH identity") ||
	    !strstr(outcome.error_text, "No such file or directory (check the lab's transport"))
		fail_msg("error: %s", outcome.error_text);
	close_board(fixture, transport);

	options.identity = encrypted;
	transport = connect_board(fixture, &options, &outcome);
	assert_int_equal(outcome.status, TRANSPORT_BAD_IDENTITY);
	if (!strstr(outcome.error_text, "is not an unencrypted private key"))
		fail_msg("error: %s", outcome.error_text);
	close_board(fixture, transport);
}

static void on_tick(uv_timer_t *timer)
{
	(*(int *)timer->data)++;
}

static void test_command_timeout_leaves_the_loop_running(void **state)
{
	struct fixture *fixture = *state;
	struct transport *transport = connect_ready_board(fixture);
	/* a command and a child of its own: the whole process group must go */
	const char *const argv[] = {"sh", "-c", "sleep 30.25 & sleep 30.25; wait", NULL};
	struct outcome outcome;
	uv_timer_t ticker;
	int ticks = 0;
	uint64_t started;

	uv_update_time(&fixture->loop);
	started = uv_now(&fixture->loop);

	uv_timer_init(&fixture->loop, &ticker);
	ticker.data = &ticks;
	uv_timer_start(&ticker, on_tick, 50, 50);
	/* long enough for the remote shell to announce its PID on a busy
	 * machine: a command that times out before that cannot be killed */
	exec_and_wait(fixture, transport, argv, 8000, &outcome);
	uv_close((uv_handle_t *)&ticker, NULL);
	assert_int_equal(outcome.status, -ETIMEDOUT);
	assert_non_null(strstr(outcome.error_text, "timed out"));
	/* the timed-out command was killed on the board, and that was checked,
	 * before its caller heard of the timeout: nothing of it is left now
	 * (the board's sshd runs on this machine) */
	assert_int_equal(outcome.kill_status, 0);
	assert_non_null(strstr(outcome.error_text, "its processes were killed"));
	assert_int_not_equal(system("pgrep -f -x 'sleep 30.25' >/dev/null"), 0);
	/* killed at its timeout, not waited for (30 s); generous bounds, since a
	 * busy machine delays timers */
	assert_true(uv_now(&fixture->loop) - started < 25000);
	assert_true(ticks >= 2);	/* the loop kept turning (~60 expected) */
	free(outcome.stdout_text);

	/* the session survives a timed-out command */
	const char *const echo[] = {"echo", "still here", NULL};
	exec_and_wait(fixture, transport, echo, 30000, &outcome);
	assert_int_equal(outcome.status, 0);
	assert_string_equal(outcome.stdout_text, "still here\n");
	assert_int_equal(outcome.kill_status, 0);
	free(outcome.stdout_text);
	close_board(fixture, transport);
}

/* Three connects sharing a limit of one handshake at once: each waits its
 * turn, all three get through, and the limit is left empty. */
struct limited_connect {
	struct outcome outcome;
	struct transport_connect_limit *limit;
	unsigned int most_in_flight;
};

static void on_limited_connect(struct transport *transport, int status, const char *error_text,
			       void *data)
{
	struct limited_connect *connect = data;

	if (connect->limit->in_flight > connect->most_in_flight)
		connect->most_in_flight = connect->limit->in_flight;
	on_connected(transport, status, error_text, &connect->outcome);
}

static void test_handshakes_past_the_limit_wait_their_turn(void **state)
{
	struct fixture *fixture = *state;
	struct transport_connect_limit limit = {.max = 1};
	struct transport_config config = {
		.board_name = "r1", .host = LISTEN_ADDRESS, .port = SSHD_PORT, .user = "root",
		.identity_file = fixture->path_client_key, .known_hosts_file = fixture->path_known_hosts,
		.connect_timeout_ms = 30000, .connect_limit = &limit,
	};
	struct limited_connect connects[3];
	struct transport *transports[3];
	int i;

	memset(connects, 0, sizeof(connects));
	for (i = 0; i < 3; i++) {
		connects[i].limit = &limit;
		assert_int_equal(ssh_transport_ops.create(&fixture->loop, &config, &transports[i]), 0);
		assert_int_equal(transports[i]->ops->connect(transports[i], on_limited_connect,
							       &connects[i]), 0);
	}
	assert_int_equal(limit.in_flight, 1);
	assert_non_null(limit.first);	/* two wait */
	for (i = 0; i < 3; i++) {
		assert_true(run_until(&fixture->loop, &connects[i].outcome.done, 90000));
		assert_int_equal(connects[i].outcome.status, 0);
		assert_true(connects[i].most_in_flight <= 1);
	}
	assert_int_equal(limit.in_flight, 0);
	assert_null(limit.first);
	for (i = 0; i < 3; i++)
		close_board(fixture, transports[i]);
}

static void test_connection_refused_fails_fast(void **state)
{
	struct fixture *fixture = *state;
	struct connect_options options = {.port = CLOSED_PORT, .connect_timeout_ms = 60000};
	struct outcome outcome;
	struct transport *transport;
	uint64_t started;

	uv_update_time(&fixture->loop);	/* uv_now is cached per loop turn */
	started = uv_now(&fixture->loop);
	transport = connect_board(fixture, &options, &outcome);

	assert_int_equal(outcome.status, -ECONNREFUSED);
	assert_non_null(strstr(outcome.error_text, "board r1"));
	/* Refused is told apart from a timeout, well before the connect timeout.
	 * (It is noticed about 1 s late, at the next keepalive turn, not at
	 * once: a known gap, see the issue note.) */
	if (uv_now(&fixture->loop) - started >= 30000)
		fail_msg("refused after %llu ms: %s", (unsigned long long)(uv_now(&fixture->loop) - started), outcome.error_text);
	close_board(fixture, transport);
}

static void test_connect_times_out_without_banner(void **state)
{
	struct fixture *fixture = *state;
	struct connect_options options = {.port = STOPPED_SSHD_PORT, .connect_timeout_ms = 600};
	struct outcome outcome;
	uint64_t started;
	struct transport *transport;

	uv_update_time(&fixture->loop);
	started = uv_now(&fixture->loop);
	transport = connect_board(fixture, &options, &outcome);
	assert_int_equal(outcome.status, -ETIMEDOUT);
	assert_non_null(strstr(outcome.error_text, "timed out"));
	assert_true(uv_now(&fixture->loop) - started >= 550);
	assert_true(uv_now(&fixture->loop) - started < 20000);	/* not hung */
	close_board(fixture, transport);
}

int main(void)
{
	/* a closed stdout (| head) must not kill us before teardown */
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shell_quote_words),
		cmocka_unit_test(test_exec_returns_stdout_and_exit_status),
		cmocka_unit_test(test_word_with_shell_syntax_arrives_as_one_argument),
		cmocka_unit_test(test_output_past_the_limit_is_counted_not_kept),
		cmocka_unit_test(test_upload_then_read_back),
		cmocka_unit_test(test_unknown_host_key_is_refused),
		cmocka_unit_test(test_changed_host_key_is_refused),
		cmocka_unit_test(test_wrong_identity_is_refused),
		cmocka_unit_test(test_an_unusable_identity_is_ours_not_the_boards),
		cmocka_unit_test(test_command_timeout_leaves_the_loop_running),
		cmocka_unit_test(test_handshakes_past_the_limit_wait_their_turn),
		cmocka_unit_test(test_connection_refused_fails_fast),
		cmocka_unit_test(test_connect_times_out_without_banner),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
