/*
 * command.c - a power switch driven by local commands (see command.h).
 *
 * A request runs its commands one after the other (a default cycle is off,
 * then on), each started by uv_spawn with argv and never a shell, so nothing
 * in the lab file is ever parsed as shell syntax. Each command gets its own
 * session: on a timeout or a close, SIGKILL goes to its whole process group,
 * so a wrapper script's children die with it rather than keep poking the
 * PDU after we have given up.
 */
#include "power/command.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTPUT_TAIL_SIZE 2048
#define ERROR_TEXT_SIZE 4096
#define COMMAND_TEXT_SIZE 512
/* After a command exits, the rest of its output is already in the pipes; a
 * daemon it left behind may hold them open forever, so wait only briefly. */
#define EXIT_DRAIN_MS 200
/* A process stuck in the kernel ignores even SIGKILL for a while. */
#define KILL_GRACE_MS 2000

struct command_words {
	char **words;			/* NULL-terminated; NULL when not configured */
	char **shown;			/* for messages: "{env:NAME}" as written, not its value */
	size_t count;
};

/* A word "{env:NAME}": its value is run, never shown; any output of the
 * command that repeats it shows the word instead. */
struct secret {
	char *word;			/* "{env:NAME}" */
	char *value;
};

struct command_power {
	struct power base;
	char *board_name;
	char *working_directory;	/* the lab file's directory */
	struct command_words on;
	struct command_words off;
	struct command_words cycle;	/* words NULL: off, then on */
	struct secret *secrets;
	size_t secret_count;
	struct power_request *pending;
	size_t live_objects;		/* requests and commands not yet freed */
	bool closing;
};

struct command_step {
	const char *action_name;	/* "on", "off", "cycle" */
	const struct command_words *argv;
};

/* The last bytes a command wrote: what explains a failure is at the end. */
struct output_tail {
	char bytes[OUTPUT_TAIL_SIZE];
	size_t length;
	bool cut;			/* earlier bytes were dropped */
};

struct command_run;

struct power_request {
	struct power_request *next;
	struct command_power *owner;
	struct command_step steps[2];
	size_t step_count;
	size_t step_index;
	uint64_t timeout_ms;
	uv_timer_t deadline;
	struct command_run *run;	/* the command running now */
	bool timed_out;
	bool finished;
	power_cb callback;
	void *data;
};

/* One spawned command. It may outlive its request (cancelled, or a child
 * that ignores SIGKILL): it is freed once it has exited and its handles
 * have closed, never before, so libuv always reaps the child. */
struct command_run {
	struct command_power *owner;
	struct power_request *request;	/* NULL once the request stopped waiting */
	uv_process_t process;
	uv_pipe_t stdout_pipe;
	uv_pipe_t stderr_pipe;
	uv_timer_t drain_timer;
	int open_handles;
	int open_streams;		/* pipes not yet at end of file */
	int spawn_error;		/* uv_spawn's error: the program never ran */
	bool exited;
	bool drain_expired;
	bool reported;
	int64_t exit_status;
	int term_signal;
	struct output_tail stdout_tail;
	struct output_tail stderr_tail;
	char read_buffer[4096];
};

static void start_step(struct power_request *request);

static struct command_power *command_power_of(struct power *power)
{
	return (struct command_power *)power;
}

/* ---- instance memory ------------------------------------------------------- */

static void free_words(struct command_words *argv)
{
	size_t i;

	for (i = 0; i < argv->count; i++) {
		free(argv->words[i]);
		free(argv->shown[i]);
	}
	free(argv->words);
	free(argv->shown);
}

static void free_secrets(struct command_power *power)
{
	size_t i;

	for (i = 0; i < power->secret_count; i++) {
		free(power->secrets[i].word);
		free(power->secrets[i].value);
	}
	free(power->secrets);
}

static void free_command_power(struct command_power *power)
{
	free_words(&power->on);
	free_words(&power->off);
	free_words(&power->cycle);
	free_secrets(power);
	free(power->board_name);
	free(power->working_directory);
	free(power);
}

static void release_object(struct command_power *owner)
{
	owner->live_objects--;
	if (owner->closing && owner->live_objects == 0)
		free_command_power(owner);
}

/* ---- output ---------------------------------------------------------------- */

static void tail_append(struct output_tail *tail, const char *bytes, size_t length)
{
	if (length >= sizeof(tail->bytes)) {
		memcpy(tail->bytes, bytes + length - sizeof(tail->bytes), sizeof(tail->bytes));
		tail->length = sizeof(tail->bytes);
		tail->cut = true;
		return;
	}
	if (tail->length + length > sizeof(tail->bytes)) {
		size_t drop = tail->length + length - sizeof(tail->bytes);

		memmove(tail->bytes, tail->bytes + drop, tail->length - drop);
		tail->length -= drop;
		tail->cut = true;
	}
	memcpy(tail->bytes + tail->length, bytes, length);
	tail->length += length;
}

/* Each secret's value in `text` becomes its word, in place: a command that
 * echoes its password (a verbose SNMP tool) must not carry it into the log,
 * the run's files or the database. */
static void hide_secrets(const struct command_power *power, char *text, size_t text_size)
{
	size_t i;

	for (i = 0; i < power->secret_count; i++) {
		const struct secret *secret = &power->secrets[i];
		size_t value_length = strlen(secret->value), word_length = strlen(secret->word);
		char *at = text;

		while ((at = strstr(at, secret->value))) {
			size_t offset = (size_t)(at - text), tail;

			if (offset + word_length >= text_size) {
				*at = '\0';	/* no room for the word: the text ends before the value */
				break;
			}
			tail = strlen(at + value_length) + 1;
			if (offset + word_length + tail > text_size)
				tail = text_size - offset - word_length;
			memmove(at + word_length, at + value_length, tail);
			text[text_size - 1] = '\0';
			memcpy(at, secret->word, word_length);
			at += word_length;
		}
	}
}

/* A tail cut at its front may begin with the end of a secret's value: those
 * bytes go too (the text already says "..." there). */
static size_t secret_end_at_start(const struct command_power *power, const char *text,
				  size_t length)
{
	size_t i, k, skip = 0;

	for (i = 0; i < power->secret_count; i++) {
		const char *value = power->secrets[i].value;
		size_t value_length = strlen(value);

		for (k = value_length - 1; k > skip; k--)
			if (k <= length && memcmp(text, value + value_length - k, k) == 0) {
				skip = k;
				break;
			}
	}
	return skip;
}

/* The tail as text for an error message, without its trailing newlines. */
static void tail_text(const struct command_power *power, const struct output_tail *tail,
		      char *out, size_t out_len)
{
	size_t length = tail->length, skip = 0;

	while (length && strchr("\r\n\t ", tail->bytes[length - 1]))
		length--;
	if (tail->cut)
		skip = secret_end_at_start(power, tail->bytes, length);
	snprintf(out, out_len, "%s%.*s", tail->cut && length ? "..." : "", (int)(length - skip),
		 tail->bytes + skip);
}

/* "pdu-switch 3 off" for messages, cut to fit; a secret word as written. */
static void command_text(const struct command_words *argv, char *out, size_t out_len)
{
	size_t used = 0, i;

	out[0] = '\0';
	for (i = 0; i < argv->count && used < out_len; i++) {
		int written = snprintf(out + used, out_len - used, "%s%s", i ? " " : "",
				       argv->shown[i]);

		if (written < 0)
			break;
		used += (size_t)written;
	}
}

/* ---- the end of a request ---------------------------------------------------- */

static void unlink_request(struct power_request *request)
{
	struct power_request **link = &request->owner->pending;

	while (*link && *link != request)
		link = &(*link)->next;
	if (*link)
		*link = request->next;
}

static void on_deadline_closed(uv_handle_t *handle)
{
	struct power_request *request = handle->data;
	struct command_power *owner = request->owner;

	free(request);
	release_object(owner);
}

static void finish_request(struct power_request *request, int status, const char *error_text)
{
	request->finished = true;
	unlink_request(request);
	if (request->run) {
		request->run->request = NULL;
		request->run = NULL;
	}
	uv_timer_stop(&request->deadline);
	uv_close((uv_handle_t *)&request->deadline, on_deadline_closed);
	request->callback(&request->owner->base, status, error_text, request->data);
}

static void fail_request(struct power_request *request, int status, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* "board r1: power off command 'pdu-switch 3 off' " + what happened. */
static void fail_request(struct power_request *request, int status, const char *format, ...)
{
	const struct command_step *step = &request->steps[request->step_index];
	char text[ERROR_TEXT_SIZE], command[COMMAND_TEXT_SIZE];
	va_list arguments;
	int prefix;

	command_text(step->argv, command, sizeof(command));
	prefix = snprintf(text, sizeof(text), "board %s: power %s command '%s' ",
			  request->owner->board_name, step->action_name, command);
	if (prefix > 0 && (size_t)prefix < sizeof(text)) {
		va_start(arguments, format);
		vsnprintf(text + prefix, sizeof(text) - (size_t)prefix, format, arguments);
		va_end(arguments);
	}
	hide_secrets(request->owner, text, sizeof(text));
	finish_request(request, status, text);
}

/* ---- one command's life: spawn, output, exit, then its handles close ----------- */

static void kill_run(struct command_run *run)
{
	if (run->spawn_error || run->exited)
		return;
	/* The child leads its own session (UV_PROCESS_DETACHED), so -pid is
	 * its process group: the command and whatever it started. Its pid
	 * cannot be reused before libuv reaps it, which sets `exited`. */
	kill(-run->process.pid, SIGKILL);
	kill(run->process.pid, SIGKILL);
}

static void on_run_handle_closed(uv_handle_t *handle)
{
	struct command_run *run = handle->data;
	struct command_power *owner = run->owner;

	if (--run->open_handles > 0)
		return;
	free(run);
	release_object(owner);
}

static void close_run(struct command_run *run)
{
	uv_close((uv_handle_t *)&run->process, on_run_handle_closed);
	uv_close((uv_handle_t *)&run->stdout_pipe, on_run_handle_closed);
	uv_close((uv_handle_t *)&run->stderr_pipe, on_run_handle_closed);
	uv_close((uv_handle_t *)&run->drain_timer, on_run_handle_closed);
}

static void step_done(struct power_request *request, struct command_run *run)
{
	char output[OUTPUT_TAIL_SIZE + 8];

	request->run = NULL;
	if (request->timed_out) {
		fail_request(request, -ETIMEDOUT, "did not finish within %llu ms; killed it",
			     (unsigned long long)request->timeout_ms);
		return;
	}
	if (run->spawn_error) {
		fail_request(request, -EIO, "could not be started: %s: %s",
			     request->steps[request->step_index].argv->shown[0],
			     uv_strerror(run->spawn_error));
		return;
	}
	tail_text(request->owner, run->stderr_tail.length ? &run->stderr_tail : &run->stdout_tail,
		  output, sizeof(output));
	if (run->term_signal) {
		fail_request(request, -EIO, "was killed by signal %d%s%s", run->term_signal,
			     *output ? ": " : "", output);
		return;
	}
	if (run->exit_status != 0) {
		fail_request(request, -EIO, "exited with status %lld: %s", (long long)run->exit_status,
			     *output ? output : "(no output)");
		return;
	}
	if (++request->step_index < request->step_count) {
		start_step(request);
		return;
	}
	finish_request(request, 0, NULL);
}

/* A command is done once it has exited and its output is read (or the
 * drain wait is over); only then does its request hear of it. */
static void complete_run_if_done(struct command_run *run)
{
	struct power_request *request = run->request;

	if (run->reported || !run->exited || (run->open_streams > 0 && !run->drain_expired))
		return;
	run->reported = true;
	close_run(run);
	if (request)
		step_done(request, run);
}

static void on_drain_timer(uv_timer_t *timer)
{
	struct command_run *run = timer->data;

	run->drain_expired = true;
	complete_run_if_done(run);
}

static void on_command_exit(uv_process_t *process, int64_t exit_status, int term_signal)
{
	struct command_run *run = process->data;

	run->exited = true;
	run->exit_status = exit_status;
	run->term_signal = term_signal;
	if (run->open_streams > 0)
		uv_timer_start(&run->drain_timer, on_drain_timer, EXIT_DRAIN_MS, 0);
	complete_run_if_done(run);
}

static void on_output_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct command_run *run = handle->data;

	(void)suggested;
	buffer->base = run->read_buffer;
	buffer->len = sizeof(run->read_buffer);
}

static void on_output_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct command_run *run = stream->data;

	if (count > 0) {
		tail_append(stream == (uv_stream_t *)&run->stdout_pipe ? &run->stdout_tail
								       : &run->stderr_tail,
			    buffer->base, (size_t)count);
		return;
	}
	if (count == 0)
		return;
	uv_read_stop(stream);
	run->open_streams--;
	complete_run_if_done(run);
}

static int spawn_run(struct command_run *run, const struct command_words *argv,
		     const char *working_directory)
{
	uv_loop_t *loop = run->owner->base.loop;
	uv_stdio_container_t stdio[3] = {
		{ .flags = UV_IGNORE },
		{ .flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE,
		  .data.stream = (uv_stream_t *)&run->stdout_pipe },
		{ .flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE,
		  .data.stream = (uv_stream_t *)&run->stderr_pipe },
	};
	uv_process_options_t options = {
		.exit_cb = on_command_exit,
		.file = argv->words[0],
		.args = argv->words,
		.cwd = working_directory,
		.flags = UV_PROCESS_DETACHED,
		.stdio_count = 3,
		.stdio = stdio,
	};
	int rc;

	rc = uv_spawn(loop, &run->process, &options);
	if (rc)
		return rc;
	run->open_streams = 2;
	uv_read_start((uv_stream_t *)&run->stdout_pipe, on_output_alloc, on_output_read);
	uv_read_start((uv_stream_t *)&run->stderr_pipe, on_output_alloc, on_output_read);
	return 0;
}

/* Starts the request's current step. A command that cannot be started is
 * reported on the next loop turn, so no callback runs inside request(). */
static void start_step(struct power_request *request)
{
	struct command_power *owner = request->owner;
	struct command_run *run = calloc(1, sizeof(*run));

	if (!run) {
		fail_request(request, -ENOMEM, "could not be started: out of memory");
		return;
	}
	run->owner = owner;
	run->request = request;
	uv_pipe_init(owner->base.loop, &run->stdout_pipe, 0);
	uv_pipe_init(owner->base.loop, &run->stderr_pipe, 0);
	uv_timer_init(owner->base.loop, &run->drain_timer);
	run->process.data = run;
	run->stdout_pipe.data = run;
	run->stderr_pipe.data = run;
	run->drain_timer.data = run;
	run->open_handles = 4;
	owner->live_objects++;
	request->run = run;
	run->spawn_error = spawn_run(run, request->steps[request->step_index].argv,
				     owner->working_directory);
	if (run->spawn_error) {
		run->exited = true;
		uv_timer_start(&run->drain_timer, on_drain_timer, 0, 0);
	}
}

static void on_deadline(uv_timer_t *timer)
{
	struct power_request *request = timer->data;

	if (!request->run) {
		fail_request(request, -ETIMEDOUT, "did not finish within %llu ms",
			     (unsigned long long)request->timeout_ms);
		return;
	}
	if (request->timed_out) {
		fail_request(request, -ETIMEDOUT, "did not finish within %llu ms, and did not "
			     "die within %d ms of SIGKILL", (unsigned long long)request->timeout_ms,
			     KILL_GRACE_MS);
		return;
	}
	/* Answer once the command is gone, so that no caller ever has two
	 * commands of one switch racing each other. */
	request->timed_out = true;
	kill_run(request->run);
	uv_timer_start(&request->deadline, on_deadline, KILL_GRACE_MS, 0);
}

/* ---- the ops ----------------------------------------------------------------- */

static void plan_steps(const struct command_power *power, enum power_action action,
		       struct power_request *request)
{
	if (action == POWER_ON) {
		request->steps[0] = (struct command_step){ "on", &power->on };
		request->step_count = 1;
	} else if (action == POWER_OFF) {
		request->steps[0] = (struct command_step){ "off", &power->off };
		request->step_count = 1;
	} else if (power->cycle.words) {
		request->steps[0] = (struct command_step){ "cycle", &power->cycle };
		request->step_count = 1;
	} else {
		request->steps[0] = (struct command_step){ "off", &power->off };
		request->steps[1] = (struct command_step){ "on", &power->on };
		request->step_count = 2;
	}
}

static int command_power_request(struct power *base, enum power_action action,
				 uint64_t timeout_ms, power_cb callback, void *data)
{
	struct command_power *power = command_power_of(base);
	struct power_request *request;

	if (power->closing)
		return -ECANCELED;
	if (action != POWER_ON && action != POWER_OFF && action != POWER_CYCLE)
		return -EINVAL;
	request = calloc(1, sizeof(*request));
	if (!request)
		return -ENOMEM;
	request->owner = power;
	request->timeout_ms = timeout_ms;
	request->callback = callback;
	request->data = data;
	plan_steps(power, action, request);
	uv_timer_init(base->loop, &request->deadline);
	request->deadline.data = request;
	request->next = power->pending;
	power->pending = request;
	power->live_objects++;
	if (timeout_ms)
		uv_timer_start(&request->deadline, on_deadline, timeout_ms, 0);
	start_step(request);
	return 0;
}

static void command_power_close(struct power *base)
{
	struct command_power *power = command_power_of(base);

	power->closing = true;
	while (power->pending) {
		struct power_request *request = power->pending;

		if (request->run)
			kill_run(request->run);
		fail_request(request, -ECANCELED, "was cancelled: the switch was closed");
	}
	if (power->live_objects == 0)
		free_command_power(power);
}

/* ---- options ----------------------------------------------------------------- */

/* "file:line:col: board 'x': power driver 'command': " + what is wrong. */
#define option_error(board, where, error, error_len, ...) \
	power_option_error(board, "command", where, error, error_len, __VA_ARGS__)

static bool is_known_option(const char *name)
{
	return strcmp(name, "on") == 0 || strcmp(name, "off") == 0 || strcmp(name, "cycle") == 0;
}

/* A word that is exactly "{env:NAME}": true, with where NAME starts and its length. */
static bool env_word(const char *word, const char **name, int *name_length)
{
	size_t length = strlen(word);

	if (strncmp(word, "{env:", 5) != 0 || length < 7 || word[length - 1] != '}')
		return false;
	*name = word + 5;
	*name_length = (int)(length - 6);
	return true;
}

static bool is_variable_name(const char *name, size_t length)
{
	size_t i;

	for (i = 0; i < length; i++)
		if (!(name[i] == '_' || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= 'a' && name[i] <= 'z') || (i && name[i] >= '0' && name[i] <= '9')))
			return false;
	return true;
}

/* The value of a "{env:NAME}" word's variable, or NULL when it is not set. */
static const char *env_word_value(const char *word)
{
	const char *name;
	char variable[256];
	int length;

	if (!env_word(word, &name, &length) || (size_t)length >= sizeof(variable))
		return NULL;
	snprintf(variable, sizeof(variable), "%.*s", length, name);
	return getenv(variable);
}

static int check_options(const struct lab_board *board, char *error, size_t error_len)
{
	const struct lab_driver *driver = &board->power;
	size_t i, j;

	for (i = 0; i < driver->option_count; i++) {
		const struct lab_driver_option *option = &driver->options[i];

		if (!is_known_option(option->name))
			return option_error(board, &option->where, error, error_len,
					    "unknown option '%s' (known: on, off, cycle)",
					    option->name);
		if (!option->is_list)
			return option_error(board, &option->where, error, error_len,
					    "%s must be a list of argv words, e.g. [pdu-switch, '3', '%s']",
					    option->name, option->name);
		if (option->value_count == 0)
			return option_error(board, &option->where, error, error_len,
					    "%s must not be empty: its first word is the program, "
					    "e.g. [pdu-switch, '3', '%s']", option->name, option->name);
		for (j = 0; j < option->value_count; j++) {
			const char *name;
			int length;

			if (!env_word(option->values[j], &name, &length))
				continue;
			if (!is_variable_name(name, (size_t)length))
				return option_error(board, &option->where, error, error_len,
						    "%s: '%s' does not name an environment variable "
						    "(letters, digits and _)", option->name,
						    option->values[j]);
			if (!env_word_value(option->values[j]))
				return option_error(board, &option->where, error, error_len,
						    "%s: '%s': the environment variable %.*s is not set "
						    "(set it where rackbisect runs: a secret such as a PDU "
						    "password stays out of the lab file)", option->name,
						    option->values[j], length, name);
		}
	}
	if (!lab_driver_option(driver, "on"))
		return option_error(board, &driver->where, error, error_len,
				    "needs an 'on' command, e.g. on: [pdu-switch, '3', 'on']");
	if (!lab_driver_option(driver, "off"))
		return option_error(board, &driver->where, error, error_len,
				    "needs an 'off' command, e.g. off: [pdu-switch, '3', 'off']");
	return 0;
}

/* Keeps a secret's value to hide it in messages (once per word). */
static int remember_secret(struct command_power *power, const char *word, const char *value)
{
	struct secret *grown;
	size_t i;

	if (!*value)
		return 0;	/* nothing to hide */
	for (i = 0; i < power->secret_count; i++)
		if (strcmp(power->secrets[i].word, word) == 0)
			return 0;
	grown = realloc(power->secrets, (power->secret_count + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	power->secrets = grown;
	grown[power->secret_count].word = strdup(word);
	grown[power->secret_count].value = strdup(value);
	power->secret_count++;
	if (!grown[power->secret_count - 1].word || !grown[power->secret_count - 1].value)
		return -ENOMEM;
	return 0;
}

/* Copies the words; one that is exactly "{board}" or "{host}" becomes the
 * board's name or host, one that is exactly "{env:NAME}" the variable's
 * value (shown as written). Only whole words: anything else stays as written. */
static int copy_words(struct command_power *power, const struct lab_board *board,
		      const struct lab_driver_option *option, struct command_words *argv)
{
	size_t i;
	int rc;

	argv->words = calloc(option->value_count + 1, sizeof(char *));
	argv->shown = calloc(option->value_count + 1, sizeof(char *));
	if (!argv->words || !argv->shown)
		return -ENOMEM;
	for (i = 0; i < option->value_count; i++) {
		const char *written = option->values[i], *word = written;
		const char *secret = env_word_value(written);

		if (strcmp(word, "{board}") == 0)
			word = board->name;
		else if (strcmp(word, "{host}") == 0)
			word = board->host;
		else if (secret && (rc = remember_secret(power, written, secret)))
			return rc;
		argv->count = i + 1;	/* counted first, so free_words frees a partial copy */
		if (!(argv->words[i] = strdup(secret ? secret : word)) ||
		    !(argv->shown[i] = strdup(secret ? written : word)))
			return -ENOMEM;
	}
	return 0;
}

/* The lab file's directory, against which relative programs and paths in
 * the commands are taken, as the lab's other paths are. */
static char *lab_directory(const struct lab *lab)
{
	char *copy, *directory;

	if (!lab->path || !(copy = strdup(lab->path)))
		return NULL;
	directory = strdup(dirname(copy));
	free(copy);
	return directory;
}

static int copy_commands(struct command_power *power, const struct lab_board *board)
{
	const struct lab_driver_option *cycle = lab_driver_option(&board->power, "cycle");
	int rc;

	rc = copy_words(power, board, lab_driver_option(&board->power, "on"), &power->on);
	if (!rc)
		rc = copy_words(power, board, lab_driver_option(&board->power, "off"), &power->off);
	if (!rc && cycle)
		rc = copy_words(power, board, cycle, &power->cycle);
	return rc;
}

static int command_power_create(const struct driver_context *context, struct power **power_out,
				char *error, size_t error_len)
{
	const struct lab_board *board = context->board;
	struct command_power *power;
	int rc;

	rc = check_options(board, error, error_len);
	if (rc)
		return rc;
	power = calloc(1, sizeof(*power));
	if (!power)
		return -ENOMEM;
	power->base.ops = &command_power_ops;
	power->base.loop = context->loop;
	rc = copy_commands(power, board);
	if (!rc && !(power->board_name = strdup(board->name)))
		rc = -ENOMEM;
	if (!rc && context->lab->path && !(power->working_directory = lab_directory(context->lab)))
		rc = -ENOMEM;
	if (rc) {
		free_command_power(power);
		return rc;
	}
	*power_out = &power->base;
	return 0;
}

const struct power_ops command_power_ops = {
	.name = "command",
	.create = command_power_create,
	.request = command_power_request,
	.close = command_power_close,
};
