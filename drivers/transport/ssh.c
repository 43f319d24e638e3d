/*
 * SSH transport: see ssh.h. libssh runs non-blocking; every libssh call
 * made here returns at once (SSH_AGAIN when it needs the network), and is
 * called again when uv_poll reports the socket ready. libssh polls its own
 * socket with a zero timeout inside each call, so "call again" is the whole
 * protocol between the two.
 */
#include "transport/ssh.h"
#include "transport/shell_quote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#define ERROR_TEXT_SIZE 768
#define UPLOAD_CHUNK_SIZE 32768

/*
 * Every remote command announces its PID on stderr first, then execs in
 * place: sshd puts it in its own session, so on a timeout the whole process
 * group can be killed from a second channel. (SSH "signal" requests are not
 * an option: OpenSSH refuses them for root logins, which boards use.)
 * The announcement is stripped from stderr before anyone sees it.
 */
#define PID_ANNOUNCEMENT "rackbisect-remote-pid "
#define ANNOUNCE_PID_THEN_EXEC "printf '" PID_ANNOUNCEMENT "%d\\n' $$ >&2; exec "
#define KILL_TIMEOUT_MS 10000

/*
 * Kills process group $1 and checks that none of it is left: a process of
 * the group (or $1 itself, should it not lead one) that is not a zombie is
 * killed again, up to 100 times (a fork between two kills), then it gives
 * up (exit 1) naming what survived: a process stuck in the kernel outlives
 * SIGKILL. Only shell builtins and /proc: `sleep` on a board may be the
 * workload's own (the virtual lab simulates it), and `ps` differs between
 * busybox and procps. The state is the field after the last ") " of
 * /proc/PID/stat (the command name may hold spaces and parentheses).
 */
#define KILL_AND_CONFIRM \
	"g=$1; kill -KILL -- -$g 2>/dev/null || kill -KILL $g 2>/dev/null; n=0; " \
	"while [ $n -lt 100 ]; do left=; " \
	"for f in /proc/[0-9]*/stat; do { read -r s <\"$f\"; } 2>/dev/null || continue; " \
	"p=${f#/proc/}; p=${p%/stat}; s=${s##*\") \"}; set -- $s; " \
	"if [ \"$1\" != Z ] && { [ \"$3\" = \"$g\" ] || [ \"$p\" = \"$g\" ]; }; then " \
	"left=\"$left $p\"; fi; done; [ -z \"$left\" ] && exit 0; " \
	"kill -KILL -- -$g 2>/dev/null; kill -KILL $left 2>/dev/null; n=$((n + 1)); done; " \
	"echo \"still running after SIGKILL:$left\" >&2; exit 1"

enum session_state {
	SESSION_IDLE,
	SESSION_CONNECTING,
	SESSION_AUTHENTICATING,
	SESSION_READY,
	SESSION_FAILED,
	SESSION_CLOSING,
};

enum request_kind { REQUEST_EXEC, REQUEST_UPLOAD };

enum request_stage { STAGE_OPENING, STAGE_STARTING, STAGE_RUNNING };

struct output_buffer {
	char *bytes;
	size_t length;
	size_t capacity;
	size_t limit;		/* bytes kept; the rest is only counted */
	size_t dropped;
};

struct ssh_transport;

struct ssh_request {
	struct ssh_request *next;
	struct ssh_transport *owner;
	enum request_kind kind;
	enum request_stage stage;
	ssh_channel channel;
	struct ssh_channel_callbacks_struct channel_callbacks;
	char *command;
	struct output_buffer stdout_buffer;
	struct output_buffer stderr_buffer;
	bool finished;			/* callback delivered; memory awaits its timer's close */
	long remote_pid;		/* 0 until the PID line arrives on stderr */
	bool exit_status_received;
	int exit_status;
	char *exit_signal;
	bool is_kill;			/* ends a timed-out request: never killed itself */
	int kill_status;		/* transport_exec_result's */
	char *timeout_text;		/* the timeout's error text, while its kill runs */
	uv_timer_t timeout_timer;
	uint64_t timeout_ms;
	/* upload only */
	int local_fd;
	bool local_file_done;
	bool eof_sent;
	size_t chunk_length;
	size_t chunk_offset;
	char *chunk;
	transport_exec_cb exec_callback;
	transport_upload_cb upload_callback;
	void *callback_data;
};

struct ssh_transport {
	struct transport base;
	char *board_name;
	char *host;
	unsigned int port;
	char *user;
	char *identity_file;
	char *known_hosts_file;
	uint64_t connect_timeout_ms;
	uint64_t keepalive_interval_ms;
	size_t output_limit;
	struct transport_connect_limit *connect_limit;
	struct transport_connect_wait {
		struct transport_connect_wait *next;
		struct ssh_transport *transport;
	} wait;				/* its place in connect_limit's line, when it waits */
	bool holds_slot;		/* counted in connect_limit->in_flight */

	ssh_session session;
	ssh_key identity;
	enum session_state state;
	uv_poll_t socket_poll;
	bool socket_poll_initialized;
	bool socket_poll_started;
	int polled_events;
	uv_timer_t connect_timer;
	uv_timer_t keepalive_timer;
	uv_timer_t kick_timer;		/* runs advance() on the next loop turn */
	int open_handles;		/* libuv handles not yet closed */
	struct ssh_request *requests;
	bool advancing;			/* re-entrancy guard: callbacks may call us */
	int identity_failure;		/* TRANSPORT_BAD_IDENTITY: connect ends with it */

	transport_connect_cb connect_callback;
	void *connect_data;
	transport_close_cb close_callback;
	void *close_data;
	char error_text[ERROR_TEXT_SIZE];
};

static void advance(struct ssh_transport *transport);

static struct ssh_transport *ssh_transport_of(struct transport *transport)
{
	return (struct ssh_transport *)transport;
}

static void set_error(struct ssh_transport *transport, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void set_error(struct ssh_transport *transport, const char *format, ...)
{
	va_list arguments;
	int prefix;

	prefix = snprintf(transport->error_text, sizeof(transport->error_text),
			  "board %s (%s:%u): ", transport->board_name, transport->host,
			  transport->port);
	if (prefix < 0 || (size_t)prefix >= sizeof(transport->error_text))
		return;
	va_start(arguments, format);
	vsnprintf(transport->error_text + prefix, sizeof(transport->error_text) - (size_t)prefix,
		  format, arguments);
	va_end(arguments);
}

/* ---- handle bookkeeping: the transport is freed when its last handle closes */

static void free_transport(struct ssh_transport *transport)
{
	transport_close_cb callback = transport->close_callback;
	void *data = transport->close_data;

	if (transport->session != NULL) {
		ssh_disconnect(transport->session);
		ssh_free(transport->session);
	}
	ssh_key_free(transport->identity);
	free(transport->board_name);
	free(transport->host);
	free(transport->user);
	free(transport->identity_file);
	free(transport->known_hosts_file);
	free(transport);
	if (callback != NULL)
		callback(NULL, data);
}

static void release_handle(struct ssh_transport *transport)
{
	transport->open_handles--;
	if (transport->open_handles == 0 && transport->state == SESSION_CLOSING)
		free_transport(transport);
}

static void on_transport_handle_closed(uv_handle_t *handle)
{
	release_handle(handle->data);
}

static void close_transport_handle(uv_handle_t *handle)
{
	if (!uv_is_closing(handle))
		uv_close(handle, on_transport_handle_closed);
}

/* ---- output buffers ------------------------------------------------------ */

static int output_append(struct output_buffer *buffer, const char *bytes, size_t length)
{
	size_t room = buffer->limit > buffer->length ? buffer->limit - buffer->length : 0;

	if (length > room) {
		buffer->dropped += length - room;
		length = room;
	}
	if (length == 0)
		return 0;
	if (buffer->length + length + 1 > buffer->capacity) {
		size_t capacity = buffer->capacity ? buffer->capacity : 1024;
		char *grown;

		while (capacity < buffer->length + length + 1)
			capacity *= 2;
		grown = realloc(buffer->bytes, capacity);
		if (grown == NULL)
			return -ENOMEM;
		buffer->bytes = grown;
		buffer->capacity = capacity;
	}
	memcpy(buffer->bytes + buffer->length, bytes, length);
	buffer->length += length;
	buffer->bytes[buffer->length] = '\0';
	return 0;
}

static const char *output_text(const struct output_buffer *buffer)
{
	return buffer->bytes ? buffer->bytes : "";
}

/* ---- requests: exec and upload share one channel life cycle -------------- */

static void unlink_request(struct ssh_transport *transport, struct ssh_request *request)
{
	struct ssh_request **link = &transport->requests;

	while (*link != NULL && *link != request)
		link = &(*link)->next;
	if (*link == request)
		*link = request->next;
}

static void free_request(struct ssh_request *request)
{
	free(request->command);
	free(request->stdout_buffer.bytes);
	free(request->stderr_buffer.bytes);
	free(request->exit_signal);
	free(request->timeout_text);
	free(request->chunk);
	if (request->local_fd >= 0)
		close(request->local_fd);
	free(request);
}

static void on_request_timer_closed(uv_handle_t *handle)
{
	struct ssh_request *request = handle->data;
	struct ssh_transport *transport = request->owner;

	free_request(request);
	release_handle(transport);
}

static void release_channel(struct ssh_request *request)
{
	if (request->channel == NULL)
		return;
	/* libssh keeps a locally freed channel until the peer closes it; the
	 * callbacks must not outlive the request they point into. */
	ssh_remove_channel_callbacks(request->channel, &request->channel_callbacks);
	if (ssh_channel_is_open(request->channel))
		ssh_channel_close(request->channel);
	ssh_channel_free(request->channel);
	request->channel = NULL;
}

static void deliver_result(struct ssh_request *request, int status, const char *error_text)
{
	struct transport *base = &request->owner->base;

	if (request->kind == REQUEST_UPLOAD) {
		request->upload_callback(base, status, error_text, request->callback_data);
		return;
	}
	struct transport_exec_result result = {
		.status = status,
		.exit_status = request->exit_status_received ? request->exit_status : -1,
		.exit_signal = request->exit_signal,
		.stdout_text = output_text(&request->stdout_buffer),
		.stdout_length = request->stdout_buffer.length,
		.stderr_text = output_text(&request->stderr_buffer),
		.stderr_length = request->stderr_buffer.length,
		.stdout_dropped = request->stdout_buffer.dropped,
		.stderr_dropped = request->stderr_buffer.dropped,
		.error_text = error_text,
		.kill_status = request->kill_status,
	};
	request->exec_callback(base, &result, request->callback_data);
}

/* Ends a request exactly once: its callback runs, then its memory goes. */
static void finish_request(struct ssh_request *request, int status, const char *error_text)
{
	struct ssh_transport *transport = request->owner;

	request->finished = true;
	unlink_request(transport, request);
	release_channel(request);
	uv_timer_stop(&request->timeout_timer);
	deliver_result(request, status, error_text);
	uv_close((uv_handle_t *)&request->timeout_timer, on_request_timer_closed);
}

static void fail_all_requests(struct ssh_transport *transport, int status, const char *error_text)
{
	while (transport->requests != NULL)
		finish_request(transport->requests, status, error_text);
}

static void on_channel_exit_status(ssh_session session, ssh_channel channel, int exit_status,
				   void *userdata)
{
	struct ssh_request *request = userdata;

	(void)session;
	(void)channel;
	request->exit_status = exit_status;
	request->exit_status_received = true;
}

static void on_channel_exit_signal(ssh_session session, ssh_channel channel, const char *signal,
				   int core, const char *error_message, const char *language,
				   void *userdata)
{
	struct ssh_request *request = userdata;

	(void)session;
	(void)channel;
	(void)core;
	(void)error_message;
	(void)language;
	free(request->exit_signal);
	request->exit_signal = strdup(signal ? signal : "?");
}

/* The kill of a timed-out request ended: the request ends now, saying
 * whether its processes are gone. */
static void on_kill_done(struct transport *base, const struct transport_exec_result *result,
			 void *data)
{
	struct ssh_request *timed_out = data;
	const char *why = result->error_text;
	char text[ERROR_TEXT_SIZE];

	(void)base;
	if (result->status) {
		timed_out->kill_status = result->status;
	} else if (result->exit_status != 0) {
		timed_out->kill_status = -EBUSY;
		why = result->stderr_text;
	}
	if (timed_out->kill_status == 0)
		snprintf(text, sizeof(text), "%s; its processes were killed", timed_out->timeout_text);
	else
		snprintf(text, sizeof(text), "%s; killing its processes failed: %.*s",
			 timed_out->timeout_text, why ? (int)strcspn(why, "\n") : 0, why ? why : "");
	finish_request(timed_out, -ETIMEDOUT, text);
}

static int start_exec(struct ssh_transport *transport, const char *const *argv,
		      uint64_t timeout_ms, transport_exec_cb callback, void *data,
		      struct ssh_request **started);

/* Starts the kill of a timed-out request's process group; the request
 * leaves the session (no more reading) and ends when the kill does. */
static int kill_remote_process_group(struct ssh_transport *transport, struct ssh_request *request)
{
	char group[32];
	const char *const argv[] = {"sh", "-c", KILL_AND_CONFIRM, "sh", group, NULL};
	struct ssh_request *killer;
	int rc;

	snprintf(group, sizeof(group), "%ld", request->remote_pid);
	rc = start_exec(transport, argv, KILL_TIMEOUT_MS, on_kill_done, request, &killer);
	if (rc)
		return rc;
	killer->is_kill = true;
	unlink_request(transport, request);
	release_channel(request);
	return 0;
}

/* Without a kill the remote command would outlive us on the board: the
 * caller hears of the timeout once it is known whether it did. */
static void on_request_timeout(uv_timer_t *timer)
{
	struct ssh_request *request = timer->data;
	struct ssh_transport *transport = request->owner;
	char text[ERROR_TEXT_SIZE];

	set_error(transport, "%s timed out after %llu ms",
		  request->kind == REQUEST_EXEC ? "command" : "upload",
		  (unsigned long long)request->timeout_ms);
	snprintf(text, sizeof(text), "%s", transport->error_text);
	/* a command whose exec was not sent yet never started */
	if (request->stage != STAGE_OPENING && !request->is_kill) {
		request->kill_status = -ESRCH;
		if (request->remote_pid > 0 && (request->timeout_text = strdup(text)) != NULL &&
		    (request->kill_status = kill_remote_process_group(transport, request)) == 0)
			return;
	}
	finish_request(request, -ETIMEDOUT, text);
	advance(transport);
}

/* Takes the PID announcement off the front of stderr once it is complete. */
static void take_pid_announcement(struct ssh_request *request)
{
	struct output_buffer *output = &request->stderr_buffer;
	size_t prefix_length = strlen(PID_ANNOUNCEMENT);
	char *newline;

	if (request->remote_pid != 0 || output->length == 0)
		return;
	if (strncmp(output->bytes, PID_ANNOUNCEMENT,
		    output->length < prefix_length ? output->length : prefix_length) != 0) {
		request->remote_pid = -1;	/* not ours: leave stderr alone */
		return;
	}
	newline = memchr(output->bytes, '\n', output->length);
	if (newline == NULL)
		return;
	request->remote_pid = strtol(output->bytes + prefix_length, NULL, 10);
	if (request->remote_pid <= 0)
		request->remote_pid = -1;
	output->length -= (size_t)(newline + 1 - output->bytes);
	memmove(output->bytes, newline + 1, output->length + 1);
}

/* Returns true if it made progress, false if it must wait for the socket. */
static bool read_channel_output(struct ssh_request *request, int *error)
{
	char buffer[16384];
	bool progress = false;
	int is_stderr;

	for (is_stderr = 0; is_stderr <= 1; is_stderr++) {
		struct output_buffer *output =
			is_stderr ? &request->stderr_buffer : &request->stdout_buffer;
		int count;

		while ((count = ssh_channel_read_nonblocking(request->channel, buffer,
							     sizeof(buffer), is_stderr)) > 0) {
			if (output_append(output, buffer, (size_t)count) < 0) {
				*error = -ENOMEM;
				return true;
			}
			progress = true;
		}
		if (is_stderr)
			take_pid_announcement(request);
		if (count == SSH_ERROR) {
			*error = -EIO;
			return true;
		}
	}
	return progress;
}

static int refill_upload_chunk(struct ssh_request *request)
{
	ssize_t count = read(request->local_fd, request->chunk, UPLOAD_CHUNK_SIZE);

	if (count < 0)
		return -errno;
	if (count == 0)
		request->local_file_done = true;
	request->chunk_length = (size_t)count;
	request->chunk_offset = 0;
	return 0;
}

/* Writes as much of the file as the channel window allows. */
static bool write_upload_data(struct ssh_request *request, int *error)
{
	ssh_session session = request->owner->session;
	bool progress = false;

	while (!request->eof_sent) {
		uint32_t window, wanted;
		int written;

		if (request->chunk_offset == request->chunk_length) {
			if (request->local_file_done) {
				if (ssh_channel_send_eof(request->channel) != SSH_OK) {
					*error = -EIO;
					return true;
				}
				request->eof_sent = true;
				return true;
			}
			*error = refill_upload_chunk(request);
			if (*error < 0)
				return true;
			continue;
		}
		window = ssh_channel_window_size(request->channel);
		if (window == 0)
			break;
		wanted = (uint32_t)(request->chunk_length - request->chunk_offset);
		if (wanted > window)
			wanted = window;
		written = ssh_channel_write(request->channel, request->chunk + request->chunk_offset,
					    wanted);
		if (written == SSH_ERROR) {
			*error = -EIO;
			return true;
		}
		if (written == 0)
			break;
		request->chunk_offset += (size_t)written;
		progress = true;
		/* Let the socket drain before libssh buffers a whole window. */
		if (ssh_get_poll_flags(session) & SSH_WRITE_PENDING)
			break;
	}
	return progress;
}

static bool channel_finished(struct ssh_request *request)
{
	if (!ssh_channel_is_eof(request->channel) && !ssh_channel_is_closed(request->channel))
		return false;
	if (request->exit_status_received || request->exit_signal != NULL)
		return true;
	if (ssh_channel_is_closed(request->channel))
		return true;
	/* After EOF reads no longer pump packets; in non-blocking mode this
	 * call processes what has arrived and returns at once. The value comes
	 * through the exit status callback. */
	ssh_channel_get_exit_status(request->channel);
	return request->exit_status_received || request->exit_signal != NULL ||
	       ssh_channel_is_closed(request->channel);
}

static void complete_running_request(struct ssh_request *request)
{
	struct ssh_transport *transport = request->owner;
	char text[ERROR_TEXT_SIZE];

	if (request->kind == REQUEST_UPLOAD &&
	    (!request->exit_status_received || request->exit_status != 0)) {
		set_error(transport, "upload failed: remote `%s` exited %d: %s", request->command,
			  request->exit_status_received ? request->exit_status : -1,
			  output_text(&request->stderr_buffer));
		snprintf(text, sizeof(text), "%s", transport->error_text);
		finish_request(request, -EIO, text);
		return;
	}
	finish_request(request, 0, NULL);
}

static void fail_request_with_session_error(struct ssh_request *request, int status,
					    const char *what)
{
	struct ssh_transport *transport = request->owner;
	char text[ERROR_TEXT_SIZE];

	set_error(transport, "%s: %s", what, ssh_get_error(transport->session));
	snprintf(text, sizeof(text), "%s", transport->error_text);
	finish_request(request, status, text);
}

/* Moves one request as far as it can go without waiting; true on progress. */
static bool advance_request(struct ssh_request *request)
{
	int rc, error = 0;
	bool progress;

	switch (request->stage) {
	case STAGE_OPENING:
		rc = ssh_channel_open_session(request->channel);
		if (rc == SSH_AGAIN)
			return false;
		if (rc != SSH_OK) {
			fail_request_with_session_error(request, -EIO, "cannot open a channel");
			return true;
		}
		request->stage = STAGE_STARTING;
		return true;
	case STAGE_STARTING:
		rc = ssh_channel_request_exec(request->channel, request->command);
		if (rc == SSH_AGAIN)
			return false;
		if (rc != SSH_OK) {
			fail_request_with_session_error(request, -EIO, "cannot start the command");
			return true;
		}
		request->stage = STAGE_RUNNING;
		return true;
	case STAGE_RUNNING:
		progress = false;
		if (request->kind == REQUEST_UPLOAD)
			progress = write_upload_data(request, &error);
		if (error == 0)
			progress |= read_channel_output(request, &error);
		if (error < 0) {
			fail_request_with_session_error(request, error, "channel failed");
			return true;
		}
		if (channel_finished(request)) {
			/* Polling stderr (or for the exit status) reads packets
			 * for the whole channel: the end of stdout may have come
			 * in with the EOF after stdout was read. After EOF these
			 * reads only take what libssh holds. */
			read_channel_output(request, &error);
			if (error < 0) {
				fail_request_with_session_error(request, error, "channel failed");
				return true;
			}
			complete_running_request(request);
			return true;
		}
		return progress;
	}
	return false;
}

/* ---- the session: connect, verify the host key, authenticate ------------ */

static char *key_fingerprint(ssh_key key)
{
	unsigned char *hash = NULL;
	size_t hash_length = 0;
	char *fingerprint;

	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hash_length) < 0)
		return strdup("(unknown fingerprint)");
	fingerprint = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hash_length);
	ssh_clean_pubkey_hash(&hash);
	return fingerprint ? fingerprint : strdup("(unknown fingerprint)");
}

/*
 * libssh does not hand back the entry that mismatched, so the lab's file is
 * read again to name the fingerprints it does hold for this host.
 */
static void known_fingerprints(struct ssh_transport *transport, char *out, size_t size)
{
	char lookup_name[300];
	char *line = NULL;
	size_t line_capacity = 0;
	size_t used = 0;
	FILE *file;

	out[0] = '\0';
	if (transport->port == 22)
		snprintf(lookup_name, sizeof(lookup_name), "%s", transport->host);
	else
		snprintf(lookup_name, sizeof(lookup_name), "[%s]:%u", transport->host,
			 transport->port);
	file = fopen(transport->known_hosts_file, "r");
	if (file == NULL)
		return;
	while (getline(&line, &line_capacity, file) > 0) {
		struct ssh_knownhosts_entry *entry = NULL;
		char *fingerprint;
		int written;

		line[strcspn(line, "\n")] = '\0';
		if (ssh_known_hosts_parse_line(lookup_name, line, &entry) != SSH_OK)
			continue;
		fingerprint = key_fingerprint(entry->publickey);
		written = snprintf(out + used, size - used, "%s%s (%s)", used ? ", " : "",
				   fingerprint, ssh_key_type_to_char(ssh_key_type(entry->publickey)));
		if (written > 0 && (size_t)written < size - used)
			used += (size_t)written;
		ssh_string_free_char(fingerprint);
		ssh_knownhosts_entry_free(entry);
	}
	free(line);
	fclose(file);
}

static int verify_host_key(struct ssh_transport *transport)
{
	enum ssh_known_hosts_e known;
	ssh_key server_key = NULL;
	char *offered;
	char recorded[400];
	int status = 0;

	if (ssh_get_server_publickey(transport->session, &server_key) != SSH_OK) {
		set_error(transport, "no host key from the server: %s",
			  ssh_get_error(transport->session));
		return -EIO;
	}
	offered = key_fingerprint(server_key);
	known = ssh_session_is_known_server(transport->session);
	switch (known) {
	case SSH_KNOWN_HOSTS_OK:
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		known_fingerprints(transport, recorded, sizeof(recorded));
		set_error(transport,
			  "host key changed: the server offers %s (%s) but %s records %s; refusing "
			  "to connect (if the board was reinstalled, check the key and run "
			  "`rackbisect lab trust`)",
			  offered, ssh_key_type_to_char(ssh_key_type(server_key)),
			  transport->known_hosts_file, recorded[0] ? recorded : "another key");
		status = -EKEYREJECTED;
		break;
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		set_error(transport,
			  "unknown host key %s (%s): not in %s; refusing to connect (check the key "
			  "and run `rackbisect lab trust`)",
			  offered, ssh_key_type_to_char(ssh_key_type(server_key)),
			  transport->known_hosts_file);
		status = -ENOKEY;
		break;
	case SSH_KNOWN_HOSTS_ERROR:
	default:
		set_error(transport, "cannot check the host key against %s: %s",
			  transport->known_hosts_file, ssh_get_error(transport->session));
		status = -EIO;
		break;
	}
	ssh_string_free_char(offered);
	ssh_key_free(server_key);
	return status;
}

static void stop_connect_timer(struct ssh_transport *transport)
{
	uv_timer_stop(&transport->connect_timer);
}

static void start_handshake(struct ssh_transport *transport);

/* Takes this transport off the line of connects waiting for a slot, if it is on it. */
static void leave_queue(struct ssh_transport *transport)
{
	struct transport_connect_wait **at = &transport->connect_limit->first;

	while (*at && *at != &transport->wait)
		at = &(*at)->next;
	if (*at)
		*at = transport->wait.next;
}

/* Last in line (a line is as long as the boards that connect at once). */
static void join_queue(struct ssh_transport *transport)
{
	struct transport_connect_wait **at = &transport->connect_limit->first;

	while (*at)
		at = &(*at)->next;
	transport->wait.next = NULL;
	*at = &transport->wait;
}

/* This handshake is over (or never began): its slot goes to the next in line. */
static void release_connect_slot(struct ssh_transport *transport)
{
	struct transport_connect_limit *limit = transport->connect_limit;
	struct transport_connect_wait *next;

	if (!limit)
		return;
	leave_queue(transport);
	if (!transport->holds_slot)
		return;
	transport->holds_slot = false;
	limit->in_flight--;
	if ((next = limit->first) != NULL) {
		limit->first = next->next;
		start_handshake(next->transport);
	}
}

static void finish_connect(struct ssh_transport *transport, int status)
{
	transport_connect_cb callback = transport->connect_callback;

	release_connect_slot(transport);
	stop_connect_timer(transport);
	transport->connect_callback = NULL;
	transport->state = status == 0 ? SESSION_READY : SESSION_FAILED;
	if (status < 0 && transport->socket_poll_started) {
		uv_poll_stop(&transport->socket_poll);
		transport->socket_poll_started = false;
	}
	if (callback != NULL)
		callback(&transport->base, status, status == 0 ? NULL : transport->error_text,
			 transport->connect_data);
}

static int classify_connect_error(const char *message)
{
	if (strstr(message, "refused") != NULL)
		return -ECONNREFUSED;
	return -EIO;
}

static void advance_connect(struct ssh_transport *transport)
{
	int rc = ssh_connect(transport->session);

	if (rc == SSH_AGAIN)
		return;
	if (rc != SSH_OK) {
		const char *message = ssh_get_error(transport->session);

		set_error(transport, "cannot connect: %s", message);
		finish_connect(transport, classify_connect_error(message));
		return;
	}
	rc = verify_host_key(transport);
	if (rc < 0) {
		finish_connect(transport, rc);
		return;
	}
	transport->state = SESSION_AUTHENTICATING;
}

static void advance_authentication(struct ssh_transport *transport)
{
	int rc = ssh_userauth_publickey(transport->session, NULL, transport->identity);

	switch (rc) {
	case SSH_AUTH_AGAIN:
		return;
	case SSH_AUTH_SUCCESS:
		finish_connect(transport, 0);
		return;
	case SSH_AUTH_DENIED:
	case SSH_AUTH_PARTIAL:
		set_error(transport, "user %s: the key in %s was refused", transport->user,
			  transport->identity_file);
		finish_connect(transport, -EACCES);
		return;
	default:
		set_error(transport, "authentication failed: %s",
			  ssh_get_error(transport->session));
		finish_connect(transport, -EIO);
		return;
	}
}

static void advance_requests(struct ssh_transport *transport)
{
	bool progress = true;

	/* A call on one channel may read packets for another, so keep going
	 * until a whole pass changes nothing. */
	while (progress && transport->state == SESSION_READY) {
		struct ssh_request *request = transport->requests;

		progress = false;
		while (request != NULL && transport->state == SESSION_READY) {
			struct ssh_request *next = request->next;

			if (!request->finished)
				progress |= advance_request(request);
			request = next;
		}
	}
	if (transport->state == SESSION_READY && !ssh_is_connected(transport->session)) {
		char text[ERROR_TEXT_SIZE];

		set_error(transport, "connection lost: %s", ssh_get_error(transport->session));
		snprintf(text, sizeof(text), "%s", transport->error_text);
		transport->state = SESSION_FAILED;
		fail_all_requests(transport, -EIO, text);
	}
}

static void on_socket_ready(uv_poll_t *poll, int status, int events);

/* libssh knows whether it has bytes queued for the socket; poll for
 * writability only then, or an idle socket would wake the loop forever. */
static void update_socket_poll(struct ssh_transport *transport)
{
	int wanted = UV_READABLE;
	int fd;

	if (transport->state == SESSION_FAILED || transport->state == SESSION_CLOSING ||
	    transport->state == SESSION_IDLE) {
		if (transport->socket_poll_started)
			uv_poll_stop(&transport->socket_poll);
		transport->socket_poll_started = false;
		return;
	}
	if (ssh_get_poll_flags(transport->session) & SSH_WRITE_PENDING)
		wanted |= UV_WRITABLE;
	fd = ssh_get_fd(transport->session);
	if (fd < 0)
		return;
	if (!transport->socket_poll_initialized) {
		if (uv_poll_init(transport->base.loop, &transport->socket_poll, fd) < 0)
			return;
		transport->socket_poll.data = transport;
		transport->socket_poll_initialized = true;
		transport->open_handles++;
	}
	if (!transport->socket_poll_started || wanted != transport->polled_events) {
		uv_poll_start(&transport->socket_poll, wanted, on_socket_ready);
		transport->socket_poll_started = true;
		transport->polled_events = wanted;
	}
}

static void advance(struct ssh_transport *transport)
{
	if (transport->advancing)
		return;
	transport->advancing = true;
	if (transport->state == SESSION_CONNECTING && transport->identity_failure)
		finish_connect(transport, transport->identity_failure);
	if (transport->state == SESSION_CONNECTING)
		advance_connect(transport);
	if (transport->state == SESSION_AUTHENTICATING)
		advance_authentication(transport);
	if (transport->state == SESSION_READY)
		advance_requests(transport);
	transport->advancing = false;
	update_socket_poll(transport);
}

static void on_socket_ready(uv_poll_t *poll, int status, int events)
{
	struct ssh_transport *transport = poll->data;

	(void)events;
	/* A poll error (e.g. the socket died) is left for libssh to report:
	 * the next call on the session sees the broken socket. */
	(void)status;
	advance(transport);
}

static void on_connect_timeout(uv_timer_t *timer)
{
	struct ssh_transport *transport = timer->data;

	if (transport->state != SESSION_CONNECTING && transport->state != SESSION_AUTHENTICATING)
		return;
	set_error(transport, "connect timed out after %llu ms (%s)",
		  (unsigned long long)transport->connect_timeout_ms,
		  transport->state == SESSION_CONNECTING ? "no SSH handshake"
							 : "authentication pending");
	finish_connect(transport, -ETIMEDOUT);
	update_socket_poll(transport);
}

/* Keepalives detect a dead peer while a command is silent: a failed send
 * surfaces as a lost connection on the next advance. */
static void on_keepalive(uv_timer_t *timer)
{
	struct ssh_transport *transport = timer->data;

	if (transport->state != SESSION_READY)
		return;
	if (ssh_send_ignore(transport->session, "keepalive") != SSH_OK)
		ssh_silent_disconnect(transport->session);
	advance(transport);
}

static void on_kick(uv_timer_t *timer)
{
	advance(timer->data);
}

/* New work starts on the next loop turn, so no callback ever runs inside
 * the call that asked for it (libuv's rule, and what callers expect). */
static void kick(struct ssh_transport *transport)
{
	uv_timer_start(&transport->kick_timer, on_kick, 0, 0);
}

static int apply_session_options(struct ssh_transport *transport)
{
	ssh_session session = transport->session;
	const bool no = false;
	const int port = (int)transport->port;

	if (ssh_options_set(session, SSH_OPTIONS_HOST, transport->host) < 0 ||
	    ssh_options_set(session, SSH_OPTIONS_PORT, &port) < 0 ||
	    ssh_options_set(session, SSH_OPTIONS_USER, transport->user) < 0 ||
	    ssh_options_set(session, SSH_OPTIONS_KNOWNHOSTS, transport->known_hosts_file) < 0 ||
	    /* only the lab's known_hosts may vouch for a board */
	    ssh_options_set(session, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null") < 0 ||
	    /* ~/.ssh/config must not change which host, key or port is used */
	    ssh_options_set(session, SSH_OPTIONS_PROCESS_CONFIG, &no) < 0)
		return -EINVAL;
	ssh_set_blocking(session, 0);
	return 0;
}

/* Says what is wrong with our key, not with the board (which was blamed:
 * "No such file or directory", power-cycled and taken offline). */
static int load_identity(struct ssh_transport *transport)
{
	const char *file = transport->identity_file;

	if (transport->identity != NULL)
		return 0;
	if (ssh_pki_import_privkey_file(file, NULL, NULL, NULL, &transport->identity) == SSH_OK)
		return 0;
	if (access(file, F_OK) != 0)
		set_error(transport, "the SSH identity %s cannot be used: %s (check the lab's "
			  "transport identity:, or run lab up for a virtual lab)", file,
			  strerror(errno));
	else if (access(file, R_OK) != 0)
		set_error(transport, "the SSH identity %s cannot be used: %s (it must be readable "
			  "by the user running rackbisect)", file, strerror(errno));
	else
		set_error(transport, "the SSH identity %s cannot be used: it is not an unencrypted "
			  "private key (one with a passphrase cannot be used unattended: make one "
			  "without, ssh-keygen -N '')", file);
	return TRANSPORT_BAD_IDENTITY;
}

/* ---- the ops ------------------------------------------------------------- */

static char *copy_string(const char *text, bool *failed)
{
	char *copy = strdup(text ? text : "");

	if (copy == NULL)
		*failed = true;
	return copy;
}

static int ssh_transport_create(uv_loop_t *loop, const struct transport_config *config,
				struct transport **transport_out)
{
	struct ssh_transport *transport;
	bool failed = false;

	if (config->host == NULL || config->user == NULL || config->identity_file == NULL ||
	    config->known_hosts_file == NULL)
		return -EINVAL;
	transport = calloc(1, sizeof(*transport));
	if (transport == NULL)
		return -ENOMEM;
	transport->base.ops = &ssh_transport_ops;
	transport->base.loop = loop;
	transport->board_name = copy_string(config->board_name ? config->board_name : config->host,
					    &failed);
	transport->host = copy_string(config->host, &failed);
	transport->user = copy_string(config->user, &failed);
	transport->identity_file = copy_string(config->identity_file, &failed);
	transport->known_hosts_file = copy_string(config->known_hosts_file, &failed);
	transport->port = config->port ? config->port : 22;
	transport->connect_timeout_ms = config->connect_timeout_ms;
	transport->connect_limit = config->connect_limit;
	transport->wait.transport = transport;
	transport->keepalive_interval_ms = config->keepalive_interval_ms;
	transport->output_limit = config->output_limit ? config->output_limit
						       : TRANSPORT_OUTPUT_LIMIT_DEFAULT;
	transport->state = SESSION_IDLE;
	transport->session = failed ? NULL : ssh_new();
	if (transport->session == NULL || apply_session_options(transport) < 0) {
		transport->state = SESSION_CLOSING;
		free_transport(transport);
		return failed ? -ENOMEM : -EINVAL;
	}
	uv_timer_init(loop, &transport->connect_timer);
	uv_timer_init(loop, &transport->keepalive_timer);
	uv_timer_init(loop, &transport->kick_timer);
	transport->connect_timer.data = transport;
	transport->keepalive_timer.data = transport;
	transport->kick_timer.data = transport;
	transport->open_handles = 3;
	*transport_out = &transport->base;
	return 0;
}

static int ssh_transport_connect(struct transport *base, transport_connect_cb callback, void *data)
{
	struct ssh_transport *transport = ssh_transport_of(base);
	struct transport_connect_limit *limit = transport->connect_limit;
	int rc;

	if (transport->state != SESSION_IDLE)
		return -EALREADY;
	transport->connect_callback = callback;
	transport->connect_data = data;
	transport->state = SESSION_CONNECTING;
	/* said through the callback, with the text saying what is wrong */
	rc = load_identity(transport);
	if (rc < 0) {
		transport->identity_failure = rc;
		kick(transport);
		return 0;
	}
	if (limit && limit->max && limit->in_flight >= limit->max) {
		join_queue(transport);
		return 0;
	}
	start_handshake(transport);
	return 0;
}

static void start_handshake(struct ssh_transport *transport)
{
	if (transport->connect_limit) {
		transport->connect_limit->in_flight++;
		transport->holds_slot = true;
	}
	if (transport->connect_timeout_ms > 0)
		uv_timer_start(&transport->connect_timer, on_connect_timeout,
			       transport->connect_timeout_ms, 0);
	if (transport->keepalive_interval_ms > 0)
		uv_timer_start(&transport->keepalive_timer, on_keepalive,
			       transport->keepalive_interval_ms, transport->keepalive_interval_ms);
	kick(transport);
}

static struct ssh_request *new_request(struct ssh_transport *transport, enum request_kind kind,
				       uint64_t timeout_ms)
{
	struct ssh_request *request = calloc(1, sizeof(*request));

	if (request == NULL)
		return NULL;
	request->owner = transport;
	request->kind = kind;
	request->local_fd = -1;
	request->exit_status = -1;
	request->timeout_ms = timeout_ms;
	request->stdout_buffer.limit = transport->output_limit;
	request->stderr_buffer.limit = transport->output_limit;
	request->channel = ssh_channel_new(transport->session);
	if (request->channel == NULL) {
		free(request);
		return NULL;
	}
	request->channel_callbacks.userdata = request;
	request->channel_callbacks.channel_exit_status_function = on_channel_exit_status;
	request->channel_callbacks.channel_exit_signal_function = on_channel_exit_signal;
	ssh_callbacks_init(&request->channel_callbacks);
	ssh_add_channel_callbacks(request->channel, &request->channel_callbacks);
	return request;
}

/* The request joins the session: its timer starts and the loop drives it. */
static void start_request(struct ssh_transport *transport, struct ssh_request *request)
{
	uv_timer_init(transport->base.loop, &request->timeout_timer);
	request->timeout_timer.data = request;
	transport->open_handles++;
	if (request->timeout_ms > 0)
		uv_timer_start(&request->timeout_timer, on_request_timeout, request->timeout_ms, 0);
	request->next = transport->requests;
	transport->requests = request;
	kick(transport);
}

static void discard_request(struct ssh_request *request)
{
	release_channel(request);
	free_request(request);
}

static int start_exec(struct ssh_transport *transport, const char *const *argv,
		      uint64_t timeout_ms, transport_exec_cb callback, void *data,
		      struct ssh_request **started)
{
	struct ssh_request *request;
	char *quoted_argv = NULL;
	int rc;

	if (transport->state != SESSION_READY)
		return -ENOTCONN;
	request = new_request(transport, REQUEST_EXEC, timeout_ms);
	if (request == NULL)
		return -ENOMEM;
	rc = shell_quote_argv(argv, &quoted_argv);
	if (rc == 0 && asprintf(&request->command, "%s%s", ANNOUNCE_PID_THEN_EXEC, quoted_argv) < 0)
		rc = -ENOMEM;
	free(quoted_argv);
	if (rc < 0) {
		discard_request(request);
		return rc;
	}
	request->exec_callback = callback;
	request->callback_data = data;
	start_request(transport, request);
	*started = request;
	return 0;
}

static int ssh_transport_exec(struct transport *base, const char *const *argv, uint64_t timeout_ms,
			      transport_exec_cb callback, void *data)
{
	struct ssh_request *request;

	return start_exec(ssh_transport_of(base), argv, timeout_ms, callback, data, &request);
}

static int ssh_transport_upload(struct transport *base, const char *local_path,
				const char *remote_path, uint64_t timeout_ms,
				transport_upload_cb callback, void *data)
{
	struct ssh_transport *transport = ssh_transport_of(base);
	const char *const argv[] = {remote_path, NULL};
	struct ssh_request *request;
	char *quoted_path;
	int rc;

	if (transport->state != SESSION_READY)
		return -ENOTCONN;
	request = new_request(transport, REQUEST_UPLOAD, timeout_ms);
	if (request == NULL)
		return -ENOMEM;
	request->local_fd = open(local_path, O_RDONLY | O_CLOEXEC);
	request->chunk = malloc(UPLOAD_CHUNK_SIZE);
	if (request->local_fd < 0 || request->chunk == NULL) {
		rc = request->local_fd < 0 ? -errno : -ENOMEM;
		discard_request(request);
		return rc;
	}
	rc = shell_quote_argv(argv, &quoted_path);
	if (rc == 0 && asprintf(&request->command, "%scat > %s", ANNOUNCE_PID_THEN_EXEC,
					quoted_path) < 0)
		rc = -ENOMEM;
	free(quoted_path);
	if (rc < 0) {
		discard_request(request);
		return rc;
	}
	request->upload_callback = callback;
	request->callback_data = data;
	start_request(transport, request);
	return 0;
}

static void ssh_transport_close(struct transport *base, transport_close_cb callback, void *data)
{
	struct ssh_transport *transport = ssh_transport_of(base);
	char text[ERROR_TEXT_SIZE];

	if (transport->state == SESSION_CLOSING)
		return;	/* closed already: a callback of the first close came back here */
	if (transport->state == SESSION_CONNECTING || transport->state == SESSION_AUTHENTICATING) {
		set_error(transport, "closed while connecting");
		finish_connect(transport, -ECANCELED);
	}
	set_error(transport, "transport closed before the request finished");
	snprintf(text, sizeof(text), "%s", transport->error_text);
	fail_all_requests(transport, -ECANCELED, text);
	transport->state = SESSION_CLOSING;
	transport->close_callback = callback;
	transport->close_data = data;
	/* uv_poll must let go of the socket before ssh_disconnect closes it. */
	if (transport->socket_poll_initialized) {
		uv_poll_stop(&transport->socket_poll);
		transport->socket_poll_started = false;
		close_transport_handle((uv_handle_t *)&transport->socket_poll);
	}
	close_transport_handle((uv_handle_t *)&transport->connect_timer);
	close_transport_handle((uv_handle_t *)&transport->keepalive_timer);
	close_transport_handle((uv_handle_t *)&transport->kick_timer);
}

const struct transport_ops ssh_transport_ops = {
	.name = "ssh",
	.create = ssh_transport_create,
	.connect = ssh_transport_connect,
	.exec = ssh_transport_exec,
	.upload = ssh_transport_upload,
	.close = ssh_transport_close,
};
