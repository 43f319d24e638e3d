/* run.c - one workload run on one board, as a chain of callbacks on the loop. */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "ktap.h"
#include "lava/runner.h"
#include "log.h"
#include "path.h"
#include "run_record.h"
#include "store.h"

/*
 * One upload or short command: the board's hang limit, within these
 * bounds. A step that gets no answer that long means the board went silent.
 */
#define STEP_TIMEOUT_MIN_MS 10000
#define STEP_TIMEOUT_MAX_MS 60000
#define RECONNECT_INTERVAL_MS 1000
#define PROBE_CONNECT_TIMEOUT_MS 10000
#define MAX_LAB_ERRORS 4
/* Probes that were refused or reset (not met with silence) before the
 * watchdog calls the board hung all the same. */
#define MAX_PROBE_REFUSALS 3
/*
 * Each run uploads the workload into a directory of its own, made by mktemp:
 * several boards may share one /tmp, and a fixed directory let one run's
 * upload (`cat >` truncates) empty the script or lib.sh another board was
 * just starting. It is made in the board's $TMPDIR, else /tmp: a run cut
 * off leaves it there until the board's next boot empties it (a virtual
 * board's TMPDIR is its own; the host's /tmp kept them).
 */
#define REMOTE_WORKLOAD_NAME "rackbisect-workload."
#define REMOTE_WORKLOAD_TEMPLATE REMOTE_WORKLOAD_NAME "XXXXXXXX"
/*
 * Each SSH command costs the board a session: a process of sshd, a shell and
 * the command's own (a fifth of a short run's CPU on the virtual lab). So the
 * directory is made in the command that reads the kernel log's length before
 * the workload, and removed in the one that reads it after. Fixed text, run
 * as `sh -c TEXT sh ARG`: the directory is an argument, never text. Exit 1:
 * the first step failed; 2: the second did (the kernel log read, or the
 * directory made, before it).
 */
#define MAKE_DIR_THEN_READ_LOG "mktemp -d \"${TMPDIR:-/tmp}/$1\" || exit 1; dmesg || exit 2"
#define READ_LOG_THEN_REMOVE_DIR "dmesg || exit 1; rm -rf -- \"$1\" || exit 2"
#define SECOND_STEP_FAILED 2

enum run_phase {
	PHASE_CONNECT,
	PHASE_BOOT,
	PHASE_PREPARE,
	PHASE_WORKLOAD,
	PHASE_CAPTURE,
	PHASE_RECOVER,
	PHASE_FINISHED,
};

struct run;
typedef void (*exec_next)(struct run *run, const struct transport_exec_result *result);
typedef void (*status_next)(struct run *run, int status, const char *error_text);

struct run {
	struct run_environment environment;
	struct board *board;
	struct run_spec spec;
	run_done_cb callback;
	health_done_cb health_callback;	/* a health check, not a run */
	void *data;
	int64_t id;
	char dir[PATH_MAX];
	enum run_phase phase;

	struct transport *transport;	/* the session steps run on */
	/* the watchdog's second opinion; between probes of one workload it is
	 * the connection the first one opened (one that failed is dropped) */
	struct transport *probe;
	bool probe_reused;		/* the probe in flight runs on a kept connection */
	uv_timer_t retry_timer;
	uv_timer_t watchdog;
	unsigned int probe_refusals;	/* in a row, this workload */
	unsigned int open_handles;

	exec_next after_exec;
	status_next after_status;	/* connect, upload */
	status_next after_wait;		/* wait_for_board */
	status_next after_recovery;	/* recover_by_power_cycle */
	uint64_t wait_deadline;
	bool probing;
	char last_error[512];

	uint64_t boot_timeout_ms;
	uint64_t hang_timeout_ms;
	uint64_t step_timeout_ms;

	char *output;			/* the workload's stdout (KTAP) */
	size_t output_length;
	unsigned long dmesg_baseline;	/* lines in dmesg before the workload */
	unsigned int console_losses;	/* the board's count when the workload started */
	char **dmesg_lines;
	size_t dmesg_line_count;
	unsigned int upload_index;
	char remote_dir[PATH_MAX];	/* the run's own, on the board; "" until made */
	char remote_script[PATH_MAX];

	struct verdict_lab_error lab_errors[MAX_LAB_ERRORS];
	char lab_error_text[MAX_LAB_ERRORS][512];
	size_t lab_error_count;
	char boot_failure[512];
	/* the kernel parameter that tells this run's boot from any other kernel
	 * of the same release (the installed one, a build booted before) */
	char boot_marker[40];		/* "rackbisect.run=ID" */
	char boot_command_line[1200];	/* the job's words, then the marker */
	bool booted;			/* the build runs: `uname -r` and the marker checked */
	bool said_not_yet;		/* the log says once that another kernel answers */
	enum verdict_hang hang;
	unsigned int workload_timeout_seconds;	/* > 0: it ran past this, and was killed */
	bool board_in_trouble;
	struct run_report report;
};

static void finish(struct run *run);
static void start_workload(struct run *run);
static void recover_by_power_cycle(struct run *run, status_next then);

/* ---- small helpers ----------------------------------------------------------- */

int run_directory(const char *runs_dir, int64_t run_id, char *out, size_t len)
{
	return path_format(out, len, "%s/%" PRId64, runs_dir, run_id);
}

static void note_lab_error(struct run *run, enum verdict_lab_error_kind kind, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static void note_lab_error(struct run *run, enum verdict_lab_error_kind kind, const char *format, ...)
{
	size_t i = run->lab_error_count;
	va_list args;

	if (i == MAX_LAB_ERRORS)
		return;
	va_start(args, format);
	vsnprintf(run->lab_error_text[i], sizeof(run->lab_error_text[i]), format, args);
	va_end(args);
	run->lab_errors[i] = (struct verdict_lab_error){ kind, run->lab_error_text[i], run->booted };
	run->lab_error_count++;
	log_event(run->environment.log, LOG_NOTICE, run->board->name, run->id, "lab-error", "%s",
		  run->lab_error_text[i]);
}

static void on_transport_closed(struct transport *transport, void *data)
{
	(void)transport;
	(void)data;
}

static void drop_transport(struct transport **transport)
{
	struct transport *closing = *transport;

	/* forgotten first: closing fails pending requests, whose callbacks may
	 * come back here */
	*transport = NULL;
	if (closing)
		closing->ops->close(closing, on_transport_closed, NULL);
}

static void write_file(struct run *run, const char *name, const char *text)
{
	run_record_file(&run->environment, run->board ? run->board->name : NULL, run->id, run->dir,
			name, text);
}

/* ---- exec, upload and connect with a continuation -------------------------------- */

static void on_exec_done(struct transport *transport, const struct transport_exec_result *result,
			 void *data)
{
	struct run *run = data;
	exec_next next = run->after_exec;

	(void)transport;
	run->after_exec = NULL;
	if (next)
		next(run, result);
}

static void run_exec(struct run *run, const char *const *argv, uint64_t timeout_ms, exec_next next)
{
	struct transport_exec_result failed = { .exit_status = -1, .stdout_text = "",
						.stderr_text = "" };
	int rc;

	run->after_exec = next;
	rc = run->transport->ops->exec(run->transport, argv, timeout_ms, on_exec_done, run);
	if (rc) {
		run->after_exec = NULL;
		failed.status = rc;
		failed.error_text = strerror(-rc);
		next(run, &failed);
	}
}

static void on_status_done(struct transport *transport, int status, const char *error_text,
			   void *data)
{
	struct run *run = data;
	status_next next = run->after_status;

	(void)transport;
	run->after_status = NULL;
	if (next)
		next(run, status, error_text);
}

static void run_upload(struct run *run, const char *local, const char *remote, status_next next)
{
	int rc;

	run->after_status = next;
	rc = run->transport->ops->upload(run->transport, local, remote, run->step_timeout_ms,
					 on_status_done, run);
	if (rc) {
		run->after_status = NULL;
		next(run, rc, strerror(-rc));
	}
}

static int new_session(struct run *run, struct transport **transport, uint64_t timeout_ms)
{
	struct transport_config config = run->board->transport_config;

	drop_transport(transport);
	if (timeout_ms < config.connect_timeout_ms)
		config.connect_timeout_ms = timeout_ms;
	return run->board->transport_ops->create(run->environment.loop, &config, transport);
}

static void connect_board(struct run *run, uint64_t timeout_ms, status_next next)
{
	int rc = new_session(run, &run->transport, timeout_ms);

	run->after_status = next;
	if (!rc)
		rc = run->transport->ops->connect(run->transport, on_status_done, run);
	if (rc) {
		run->after_status = NULL;
		next(run, rc, strerror(-rc));
	}
}

static bool is_key_error(int status)
{
	return status == -EKEYREJECTED || status == -ENOKEY;
}

/* Waiting or a power cycle cannot mend these: a host key that does not
 * match, or our own identity that cannot be used. */
static bool cannot_mend_by_waiting(int status)
{
	return is_key_error(status) || status == TRANSPORT_BAD_IDENTITY;
}

/* The run cannot start because of our own SSH identity: the lab's set-up,
 * not the board (no power cycle, no INFRA count against it, no retry). */
static void identity_unusable(struct run *run, const char *error_text)
{
	note_lab_error(run, VERDICT_LAB_SETUP, "%s", error_text ? error_text : "");
	run->report.retry_cannot_help = true;
	finish(run);
}

/* ---- waiting for a board to come back ------------------------------------------- */

static void try_connect(struct run *run);

static void on_retry_timer(uv_timer_t *timer)
{
	try_connect(timer->data);
}

static void end_wait(struct run *run, int status, const char *error_text)
{
	status_next then = run->after_wait;

	run->after_wait = NULL;
	then(run, status, error_text);
}

static void on_wait_connect(struct run *run, int status, const char *error_text)
{
	if (status == 0) {
		end_wait(run, 0, NULL);
		return;
	}
	snprintf(run->last_error, sizeof(run->last_error), "%s", error_text ? error_text : "");
	drop_transport(&run->transport);
	/* a host key that does not match will not start matching by waiting */
	if (cannot_mend_by_waiting(status)) {
		end_wait(run, status, run->last_error);
		return;
	}
	if (uv_now(run->environment.loop) + RECONNECT_INTERVAL_MS >= run->wait_deadline) {
		end_wait(run, -ETIMEDOUT, run->last_error);
		return;
	}
	uv_timer_start(&run->retry_timer, on_retry_timer, RECONNECT_INTERVAL_MS, 0);
}

static void try_connect(struct run *run)
{
	uint64_t now = uv_now(run->environment.loop);

	connect_board(run, run->wait_deadline > now ? run->wait_deadline - now : 1, on_wait_connect);
}

/* Connects again and again until the board answers or timeout_ms passed. */
static void wait_for_board(struct run *run, uint64_t timeout_ms, status_next then)
{
	drop_transport(&run->transport);
	run->after_wait = then;
	run->wait_deadline = uv_now(run->environment.loop) + timeout_ms;
	/* give the old kernel a moment to go away before knocking */
	uv_timer_start(&run->retry_timer, on_retry_timer, RECONNECT_INTERVAL_MS / 2, 0);
}

static void trim_newline(char *text)
{
	size_t n = strlen(text);

	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
		text[--n] = '\0';
}

/* A command's one-line answer (`uname -r`, /proc/cmdline), trimmed; "" when it failed. */
static void copy_answer(const struct transport_exec_result *result, char *out, size_t len)
{
	snprintf(out, len, "%s", result->status == 0 && result->stdout_text ? result->stdout_text : "");
	trim_newline(out);
}

/* ---- power cycle onto the fallback kernel --------------------------------------- */

static void end_recovery(struct run *run)
{
	status_next then = run->after_recovery;

	run->after_recovery = NULL;
	then(run, 0, NULL);
}

static void on_fallback_release(struct run *run, const struct transport_exec_result *result)
{
	const char *fallback = run->board->config->fallback_release;
	char release[256];

	copy_answer(result, release, sizeof(release));
	log_event(run->environment.log, LOG_INFO, run->board->name, run->id, "recovered",
		  "running %s", release);
	if (fallback && strcmp(release, fallback) != 0) {
		log_event(run->environment.log, LOG_NOTICE, run->board->name, run->id,
			  "not-on-fallback", "uname -r is '%s' after a power cycle, expected '%s'",
			  release, fallback);
		run->board_in_trouble = true;
	}
	end_recovery(run);
}

static void on_fallback_back(struct run *run, int status, const char *error_text)
{
	static const char *const uname[] = { "uname", "-r", NULL };

	if (status) {
		log_event(run->environment.log, LOG_NOTICE, run->board->name, run->id, "not-back",
			  "no SSH within %" PRIu64 " s after a power cycle: %s",
			  run->boot_timeout_ms / 1000, error_text ? error_text : "");
		run->board_in_trouble = true;
		end_recovery(run);
		return;
	}
	run_exec(run, uname, run->step_timeout_ms, on_fallback_release);
}

static void on_power_cycled(struct power *power, int status, const char *error_text, void *data)
{
	struct run *run = data;

	(void)power;
	if (status) {
		run->board_in_trouble = true;
		note_lab_error(run, VERDICT_LAB_POWER, "%s", error_text ? error_text : "power cycle failed");
		end_recovery(run);
		return;
	}
	wait_for_board(run, run->boot_timeout_ms, on_fallback_back);
}

static void recover_by_power_cycle(struct run *run, status_next then)
{
	struct power *power = run->board->power;
	int rc;

	run->phase = PHASE_RECOVER;
	run->board->clean_image[0] = '\0';
	run->after_recovery = then;
	drop_transport(&run->transport);
	log_event(run->environment.log, LOG_NOTICE, run->board->name, run->id, "power-cycle",
		  "onto the fallback kernel");
	rc = power->ops->request(power, POWER_CYCLE, board_power_timeout_ms(run->board),
				 on_power_cycled, run);
	if (rc)
		on_power_cycled(power, rc, strerror(-rc), run);
}

static void finish_after(struct run *run, int status, const char *error_text)
{
	(void)status;
	(void)error_text;
	finish(run);
}

/* ---- booting the build ----------------------------------------------------------- */

static void declare_hang(struct run *run, const char *why);

static void on_build_came_back(struct run *run, int status, const char *error_text);

/* What answered is not the build yet: the old kernel may still be going
 * down (kexec -e under load, a slow reboot), or a board with the same
 * release still be coming up. Knock again while the boot limit allows;
 * false when it is spent. */
static bool wait_again_for_build(struct run *run, const char *what_answered)
{
	if (uv_now(run->environment.loop) + RECONNECT_INTERVAL_MS >= run->wait_deadline)
		return false;
	if (!run->said_not_yet)
		log_event(run->environment.log, LOG_INFO, run->board->name, run->id, "not-yet",
			  "%s: waiting for the build (up to %" PRIu64 " s)", what_answered,
			  run->boot_timeout_ms / 1000);
	run->said_not_yet = true;
	drop_transport(&run->transport);
	run->after_wait = on_build_came_back;
	uv_timer_start(&run->retry_timer, on_retry_timer, RECONNECT_INTERVAL_MS, 0);
	return true;
}

/* Only silence (a step that timed out) says a kernel hung its board. A
 * connection refused, reset or closed is a board, or its sshd, going down or
 * coming back: a reboot, kexec taking the old kernel away. */
static bool is_silence(int status)
{
	return status == -ETIMEDOUT;
}

/* The build answered, then went silent: the kernel under test hung it.
 * A connection that broke instead (reset, closed) is no silence: the old
 * kernel's sshd may have taken it just before kexec took the machine down,
 * so the board is asked again while the boot limit allows. */
static void hung_after_boot(struct run *run, const char *what, const struct transport_exec_result *result)
{
	char why[700];

	if (!is_silence(result->status) &&
	    wait_again_for_build(run, "the connection broke before the build answered"))
		return;

	run->booted = true;
	snprintf(why, sizeof(why), "SSH answered after booting %s, then %s got no answer: %s",
		 run->spec.release, what, result->error_text ? result->error_text : "");
	declare_hang(run, why);
}

static void on_booted_command_line(struct run *run, const struct transport_exec_result *result)
{
	char command_line[1024];
	const char *found;
	size_t length = strlen(run->boot_marker);

	if (result->status != 0) {
		hung_after_boot(run, "`cat /proc/cmdline`", result);
		return;
	}
	copy_answer(result, command_line, sizeof(command_line));
	/* a whole word: rackbisect.run=1 is not rackbisect.run=12 */
	for (found = strstr(command_line, run->boot_marker); found; found = strstr(found + 1, run->boot_marker))
		if ((found == command_line || found[-1] == ' ') &&
		    (found[length] == '\0' || found[length] == ' '))
			break;
	if (!found) {
		if (wait_again_for_build(run, "the kernel that answers lacks the run's marker"))
			return;
		snprintf(run->boot_failure, sizeof(run->boot_failure),
			 "only another kernel of release %s answered within %" PRIu64 " s: its "
			 "/proc/cmdline lacks %s (the build did not boot, or the board rebooted "
			 "into its installed kernel)", run->spec.release,
			 run->boot_timeout_ms / 1000, run->boot_marker);
		finish(run);
		return;
	}
	run->booted = true;
	log_event(run->environment.log, LOG_INFO, run->board->name, run->id, "booted", "%s",
		  run->spec.release);
	start_workload(run);
}

static void on_booted_release(struct run *run, const struct transport_exec_result *result)
{
	static const char *const cat_command_line[] = { "cat", "/proc/cmdline", NULL };
	char release[256];

	if (result->status != 0) {
		/* SSH came back after the kexec, so the build is what runs: a
		 * board that stops answering now was hung by the kernel under test */
		hung_after_boot(run, "`uname -r`", result);
		return;
	}
	copy_answer(result, release, sizeof(release));
	if (strcmp(release, run->spec.release) != 0) {
		if (wait_again_for_build(run, "the kernel that answers is another release"))
			return;
		snprintf(run->boot_failure, sizeof(run->boot_failure),
			 "uname -r is '%s' after booting, expected '%s'", release, run->spec.release);
		finish(run);
		return;
	}
	run_exec(run, cat_command_line, run->hang_timeout_ms, on_booted_command_line);
}

/* A step before the kernel under test ran failed. A board that stopped
 * answering is hung (by its own kernel, or the lab): it is power cycled
 * back to its fallback now, not handed to the next run as it is. */
static void silent_before_boot(struct run *run, int status, const char *error_text)
{
	char why[700];

	if (!is_silence(status)) {
		finish(run);
		return;
	}
	snprintf(why, sizeof(why), "no answer within %" PRIu64 " s before %s booted: %s",
		 run->step_timeout_ms / 1000, run->spec.release, error_text ? error_text : "");
	declare_hang(run, why);
}

static void on_build_came_back(struct run *run, int status, const char *error_text)
{
	static const char *const uname[] = { "uname", "-r", NULL };

	if (status == TRANSPORT_BAD_IDENTITY) {
		identity_unusable(run, error_text);
		return;
	}
	if (status) {
		snprintf(run->boot_failure, sizeof(run->boot_failure),
			 "no SSH within %" PRIu64 " s of booting %s: %s", run->boot_timeout_ms / 1000,
			 run->spec.release, error_text ? error_text : "");
		if (is_key_error(status)) {
			note_lab_error(run, VERDICT_LAB_UNREACHABLE, "%s", error_text);
			run->report.host_key_refused = true;
			finish(run);
			return;
		}
		recover_by_power_cycle(run, finish_after);
		return;
	}
	run_exec(run, uname, run->hang_timeout_ms, on_booted_release);
}

static void on_boot_started(struct boot *boot, int status, const char *error_text, void *data)
{
	struct run *run = data;

	(void)boot;
	if (status) {
		note_lab_error(run, VERDICT_LAB_UPLOAD, "%s", error_text ? error_text : strerror(-status));
		silent_before_boot(run, status, error_text);
		return;
	}
	wait_for_board(run, run->boot_timeout_ms, on_build_came_back);
}

static void boot_build(struct run *run)
{
	struct boot *boot = run->board->boot;
	struct boot_request request = {
		.transport = run->transport,
		.image_path = run->spec.image,
		.modules_path = run->spec.modules,
		.release = run->spec.release,
		.command_line = run->boot_command_line,
		.step_timeout_ms = run->step_timeout_ms,
	};
	const char *job_words = run->environment.job->kernel.command_line;
	int rc;

	snprintf(run->boot_marker, sizeof(run->boot_marker), "rackbisect.run=%" PRId64, run->id);
	snprintf(run->boot_command_line, sizeof(run->boot_command_line), "%s%s%s",
		 job_words ? job_words : "", job_words ? " " : "", run->boot_marker);

	run->phase = PHASE_BOOT;
	run->board->clean_image[0] = '\0';
	log_event(run->environment.log, LOG_INFO, run->board->name, run->id, "boot", "%s",
		  run->spec.release);
	rc = boot->ops->start(boot, &request, on_boot_started, run);
	if (rc)
		on_boot_started(boot, rc, strerror(-rc), run);
}

static void on_release_checked(struct run *run, const struct transport_exec_result *result)
{
	char release[256];

	if (result->status) {
		note_lab_error(run, VERDICT_LAB_UNREACHABLE, "board %s: `uname -r` failed: %s",
			       run->board->name, result->error_text ? result->error_text : "");
		silent_before_boot(run, result->status, result->error_text);
		return;
	}
	copy_answer(result, release, sizeof(release));
	/* Reuse the boot only when nothing but passing runs happened since:
	 * a wedged card must not leak into the next workload's result. */
	if (strcmp(release, run->spec.release) == 0 &&
	    strcmp(run->board->clean_image, run->spec.image) == 0) {
		run->booted = true;
		start_workload(run);
		return;
	}
	boot_build(run);
}

static void on_first_connect(struct run *run, int status, const char *error_text)
{
	static const char *const uname[] = { "uname", "-r", NULL };

	if (status == TRANSPORT_BAD_IDENTITY) {
		identity_unusable(run, error_text);
		return;
	}
	if (status) {
		note_lab_error(run, VERDICT_LAB_UNREACHABLE, "board %s unreachable: %s",
			       run->board->name, error_text ? error_text : strerror(-status));
		run->report.host_key_refused = is_key_error(status);
		finish(run);
		return;
	}
	run_exec(run, uname, run->step_timeout_ms, on_release_checked);
}

/* ---- the workload and its watchdog ------------------------------------------------- */

/* The watchdog stands down; a probe in flight is closed, and its
 * -ECANCELED must not read as a dead board. */
static void stop_probe(struct run *run)
{
	uv_timer_stop(&run->watchdog);
	run->probing = false;
	drop_transport(&run->probe);
}

static uint64_t probe_timeout_ms(const struct run *run)
{
	return run->hang_timeout_ms < PROBE_CONNECT_TIMEOUT_MS
		? run->hang_timeout_ms : PROBE_CONNECT_TIMEOUT_MS;
}

static void start_fresh_probe(struct run *run);

static const char *const probe_argv[] = { "true", NULL };

static void on_hang_recovered(struct run *run, int status, const char *error_text)
{
	finish_after(run, status, error_text);
}

static void declare_hang(struct run *run, const char *why)
{
	run->hang = run->booted ? VERDICT_HANG_KERNEL_UNDER_TEST : VERDICT_HANG_OTHER_KERNEL;
	stop_probe(run);
	log_event(run->environment.log, LOG_NOTICE, run->board->name, run->id, "hang", "%s", why);
	board_capture_hold_lines(run->board);
	board_capture_note(run->board, "rackbisect declared a hang here; power cycling");
	recover_by_power_cycle(run, on_hang_recovered);
}

/* A probe refused or reset is no silence: the board is rebooting or its
 * sshd restarting, and the workload's own session says what became of it.
 * The next tick asks again; true when it will. */
static bool probe_met_no_silence(struct run *run, int status, const char *error_text)
{
	if (is_silence(status) || ++run->probe_refusals >= MAX_PROBE_REFUSALS)
		return false;
	log_event(run->environment.log, LOG_INFO, run->board->name, run->id, "probe-refused",
		  "%s; asking again in %" PRIu64 " s", error_text ? error_text : "",
		  run->hang_timeout_ms / 1000);
	run->probing = false;
	drop_transport(&run->probe);
	return true;
}

static void on_probe_exec(struct transport *transport, const struct transport_exec_result *result,
			  void *data)
{
	struct run *run = data;
	char why[700];

	(void)transport;
	if (!run->probing)
		return;
	run->probing = false;
	if (result->status == 0) {
		run->probe_refusals = 0;
		return;	/* alive: the workload is just long; the connection serves the next probe */
	}
	if (!is_silence(result->status) && run->probe_reused) {
		/* the kept connection broke without the board going silent (sshd
		 * restarted, a reset): only a fresh one can say */
		drop_transport(&run->probe);
		start_fresh_probe(run);
		return;
	}
	if (!run->probe_reused && probe_met_no_silence(run, result->status, result->error_text))
		return;
	snprintf(why, sizeof(why), "no result for %" PRIu64 " s and %s SSH session cannot run a "
		 "command: %s", run->hang_timeout_ms / 1000, run->probe_reused ? "the watchdog's" : "a fresh",
		 result->error_text ? result->error_text : "");
	declare_hang(run, why);
}

static void on_probe_connected(struct transport *transport, int status, const char *error_text,
			       void *data)
{
	struct run *run = data;
	char why[700];
	int rc;

	if (!run->probing)
		return;
	if (status && probe_met_no_silence(run, status, error_text))
		return;
	if (status) {
		snprintf(why, sizeof(why), "no result for %" PRIu64 " s and SSH does not answer: %s",
			 run->hang_timeout_ms / 1000, error_text ? error_text : "");
		declare_hang(run, why);
		return;
	}
	rc = transport->ops->exec(transport, probe_argv, PROBE_CONNECT_TIMEOUT_MS, on_probe_exec, run);
	if (rc) {
		run->probing = false;
		drop_transport(&run->probe);
	}
}

/* A new SSH connection, then `true` on it. */
static void start_fresh_probe(struct run *run)
{
	int rc = new_session(run, &run->probe, probe_timeout_ms(run));

	run->probe_reused = false;
	if (!rc)
		rc = run->probe->ops->connect(run->probe, on_probe_connected, run);
	if (rc) {
		drop_transport(&run->probe);
		return;
	}
	run->probing = true;
}

/* `true` on the connection an earlier probe of this workload opened: a
 * board that answers it is alive, and no sshd starts for it. One that does
 * not answer in time is as silent as one that refuses a new connection. */
static void probe_again(struct run *run)
{
	run->probe_reused = true;
	if (run->probe->ops->exec(run->probe, probe_argv, probe_timeout_ms(run), on_probe_exec, run)) {
		drop_transport(&run->probe);
		start_fresh_probe(run);
		return;
	}
	run->probing = true;
}

static void on_watchdog(uv_timer_t *timer)
{
	struct run *run = timer->data;

	if (run->phase != PHASE_WORKLOAD || run->probing)
		return;
	if (run->probe)
		probe_again(run);
	else
		start_fresh_probe(run);
}

/* The lines are counted first: a kernel log of thousands of lines grown a
 * line at a time is copied thousands of times. */
static char **split_lines(const char *text, size_t *count)
{
	const char *start, *end;
	char **lines;
	size_t n = 0, most = 0;

	*count = 0;
	for (start = text; start && *start; start = end ? end + 1 : "") {
		end = strchr(start, '\n');
		most++;
	}
	if (!most || !(lines = calloc(most, sizeof(*lines))))
		return NULL;
	for (start = text; n < most; start = end + 1) {
		end = strchr(start, '\n');
		if (!(lines[n] = strndup(start, end ? (size_t)(end - start) : strlen(start))))
			break;
		n++;
		if (!end)
			break;
	}
	*count = n;
	return lines;
}

/* A merged command (MAKE_DIR_THEN_READ_LOG, READ_LOG_THEN_REMOVE_DIR) whose
 * first step failed, or that did not run at all: its second step's failure
 * alone leaves the first step's output good. */
static bool first_step_failed(const struct transport_exec_result *result)
{
	return result->status || (result->exit_status != 0 && result->exit_status != SECOND_STEP_FAILED);
}

/* The run ends as lab trouble: the board did not give its kernel log. */
static void kernel_log_unreadable(struct run *run, const struct transport_exec_result *result)
{
	note_lab_error(run, VERDICT_LAB_UNREACHABLE, "board %s: reading the kernel log failed: %s",
		       run->board->name, result->error_text ? result->error_text : "dmesg failed");
	finish(run);
}

static void on_dmesg_after(struct run *run, const struct transport_exec_result *result)
{
	size_t count = 0, i;
	char **lines;

	if (first_step_failed(result)) {
		kernel_log_unreadable(run, result);
		return;
	}
	write_file(run, "dmesg.log", result->stdout_text);
	lines = split_lines(result->stdout_text, &count);
	/* dmesg lines before the workload are another run's; a log that shrank
	 * (cleared, or the ring wrapped) is kept whole rather than guessed at */
	i = count >= run->dmesg_baseline ? run->dmesg_baseline : 0;
	run->dmesg_line_count = count - i;
	run->dmesg_lines = calloc(run->dmesg_line_count + 1, sizeof(char *));
	if (!run->dmesg_lines)
		run->dmesg_line_count = 0;
	else if (run->dmesg_line_count)	/* an empty log gives lines == NULL */
		memcpy(run->dmesg_lines, lines + i, run->dmesg_line_count * sizeof(char *));
	while (i--)
		free(lines[i]);
	if (!run->dmesg_lines)
		for (i = 0; i < count; i++)
			free(lines[i]);
	free(lines);
	/* the observation is complete: a leftover in the board's /tmp is no
	 * reason to doubt it */
	if (result->exit_status == SECOND_STEP_FAILED)
		log_event(run->environment.log, LOG_NOTICE, run->board->name, run->id,
			  "cleanup-failed", "rm -rf %s: %s", run->remote_dir, result->stderr_text);
	finish(run);
}

/* What the workload said besides its KTAP, and how it ended: a run with no
 * output is only explained by these. */
static void write_workload_exit(struct run *run, const struct transport_exec_result *result)
{
	char ending[128];

	write_file(run, "workload.stderr", result->stderr_text ? result->stderr_text : "");
	if (result->status == -ETIMEDOUT)
		snprintf(ending, sizeof(ending), "no exit: it ran past its timeout of %u s\n",
			 run->spec.workload->timeout_seconds);
	else if (result->status)
		snprintf(ending, sizeof(ending), "no exit: the session failed (%s)\n",
			 strerror(-result->status));
	else if (result->exit_signal)
		snprintf(ending, sizeof(ending), "killed by signal %s\n", result->exit_signal);
	else if (result->exit_status >= 0)
		snprintf(ending, sizeof(ending), "exit status %d\n", result->exit_status);
	else
		snprintf(ending, sizeof(ending), "no exit status\n");
	write_file(run, "workload.exit", ending);
	if (!result->status && (result->exit_signal || result->exit_status != 0))
		log_event(run->environment.log, LOG_NOTICE, run->board->name, run->id,
			  "workload-exit", "%s: %.*s", run->spec.workload->name,
			  (int)strcspn(ending, "\n"), ending);
}

/* The workload's stdout as kept. Past the transport's limit it was dropped
 * (a workload printing forever): a KTAP diagnostic line says so where the
 * kept text ends, and so do the run's events. */
static char *kept_output(struct run *run, const struct transport_exec_result *result)
{
	const char *text = result->stdout_text ? result->stdout_text : "";
	char *kept = NULL;

	if (!result->stdout_dropped)
		return strndup(text, result->stdout_length);
	log_event(run->environment.log, LOG_NOTICE, run->board->name, run->id, "output-truncated",
		  "%s printed %zu bytes; kept the first %zu", run->spec.workload->name,
		  result->stdout_length + result->stdout_dropped, result->stdout_length);
	if (asprintf(&kept, "%.*s\n# rackbisect: output truncated: %zu more bytes were dropped "
		     "after the first %zu\n", (int)result->stdout_length, text, result->stdout_dropped,
		     result->stdout_length) < 0)
		return NULL;
	return kept;
}

/* The workload ended (or was ended): the kernel log of its window next. */
static void capture_kernel_log(struct run *run)
{
	const char *const capture[] = { "sh", "-c", READ_LOG_THEN_REMOVE_DIR, "sh", run->remote_dir,
					NULL };

	/* a console that dropped while the kernel under test ran leaves a gap
	 * where its last words may be: the observation is incomplete */
	if (run->board->console_losses != run->console_losses)
		note_lab_error(run, VERDICT_LAB_CONSOLE_LOST, "board %s: console lost during %s",
			       run->board->name, run->spec.workload->name);
	run->phase = PHASE_CAPTURE;
	run_exec(run, capture, run->step_timeout_ms, on_dmesg_after);
}

/*
 * The workload ran past its timeout, and the transport tried to kill it on
 * the board before saying so (transport.h, kill_status). A board that
 * confirmed nothing of it is left still answers: the kernel under test
 * failed the workload, and its log is read as usual. One that did not
 * answer the kill went silent: a hang. One where it could not be ended (a
 * process stuck in the kernel, the session lost) is power-cycled before it
 * takes another run: the next run must not meet this one's processes.
 */
static void workload_timed_out(struct run *run, const struct transport_exec_result *result)
{
	const char *why = result->error_text ? result->error_text : "";
	char text[900];

	if (result->kill_status == -ETIMEDOUT) {
		snprintf(text, sizeof(text), "%s ran past its %u s timeout, then the board did not "
			 "answer the kill: %s", run->spec.workload->name,
			 run->spec.workload->timeout_seconds, why);
		declare_hang(run, text);
		return;
	}
	run->workload_timeout_seconds = run->spec.workload->timeout_seconds;
	log_event(run->environment.log, LOG_NOTICE, run->board->name, run->id, "workload-timeout",
		  "%s: %s", run->spec.workload->name, why);
	if (result->kill_status) {
		board_capture_note(run->board, "rackbisect could not end a timed-out workload; "
				   "power cycling");
		recover_by_power_cycle(run, finish_after);
		return;
	}
	capture_kernel_log(run);
}

static void on_workload_done(struct run *run, const struct transport_exec_result *result)
{
	if (run->phase != PHASE_WORKLOAD)
		return;	/* the watchdog took over */
	stop_probe(run);
	free(run->output);
	run->output = kept_output(run, result);
	run->output_length = run->output ? strlen(run->output) : 0;
	write_file(run, "output.ktap", run->output ? run->output : "");
	write_workload_exit(run, result);
	if (result->status == -ETIMEDOUT) {
		workload_timed_out(run, result);
		return;
	}
	if (result->status) {
		note_lab_error(run, VERDICT_LAB_UNREACHABLE, "board %s: the workload's session failed: %s",
			       run->board->name, result->error_text ? result->error_text : "");
		finish(run);
		return;
	}
	capture_kernel_log(run);
}

static void run_workload(struct run *run)
{
	const struct job_workload *workload = run->spec.workload;
	const char **argv = calloc(workload->arg_count + 3, sizeof(char *));
	size_t i;

	if (!argv) {
		note_lab_error(run, VERDICT_LAB_UNREACHABLE, "out of memory");
		finish(run);
		return;
	}
	argv[0] = "sh";
	argv[1] = run->remote_script;
	for (i = 0; i < workload->arg_count; i++)
		argv[i + 2] = workload->args[i];
	run->phase = PHASE_WORKLOAD;
	run->console_losses = run->board->console_losses;
	log_event(run->environment.log, LOG_INFO, run->board->name, run->id, "workload", "%s",
		  workload->name);
	uv_timer_start(&run->watchdog, on_watchdog, run->hang_timeout_ms, run->hang_timeout_ms);
	run_exec(run, argv, (uint64_t)workload->timeout_seconds * 1000, on_workload_done);
	free(argv);
}

static const char *const workload_files[] = { "lib.sh", NULL /* the script */ };

static void upload_next(struct run *run, int status, const char *error_text)
{
	const char *script = strrchr(run->spec.workload->script, '/');
	const char *name;
	char local[PATH_MAX], remote[PATH_MAX];

	if (status) {
		note_lab_error(run, VERDICT_LAB_UPLOAD, "board %s: workload upload failed: %s",
			       run->board->name, error_text ? error_text : strerror(-status));
		finish(run);
		return;
	}
	script = script ? script + 1 : run->spec.workload->script;
	name = run->upload_index == 0 ? workload_files[0] : run->upload_index == 1 ? script : NULL;
	if (!name) {
		run_workload(run);
		return;
	}
	run->upload_index++;
	if (path_format(local, sizeof(local), "%s/%s", run->environment.workload_dir, name) ||
	    path_format(remote, sizeof(remote), "%s/%s", run->remote_dir, name)) {
		upload_next(run, -ENAMETOOLONG, "workload path too long");
		return;
	}
	run_upload(run, local, remote, upload_next);
}

/* mktemp printed the directory's name: ours only if it is an absolute path
 * of plain characters with no ".." whose last part has the template's shape
 * (it is removed with rm -rf afterwards, and the board's TMPDIR is the
 * board's to set). */
#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
static int take_remote_dir(struct run *run, const char *text, size_t length)
{
	size_t name_length = strlen(REMOTE_WORKLOAD_NAME), suffix;
	const char *script = strrchr(run->spec.workload->script, '/'), *name;

	while (length && (text[length - 1] == '\n' || text[length - 1] == '\r'))
		length--;
	if (length < 2 || length >= sizeof(run->remote_dir) || text[0] != '/' ||
	    strspn(text, ALNUM "/._-+") != length || memmem(text, length, "/../", 4))
		return -EPROTO;
	name = (const char *)memrchr(text, '/', length) + 1;	/* text[0] is one */
	suffix = (size_t)(text + length - name);
	if (suffix < name_length + 6 || strncmp(name, REMOTE_WORKLOAD_NAME, name_length) != 0 ||
	    strspn(name + name_length, ALNUM) != suffix - name_length)
		return -EPROTO;
	memcpy(run->remote_dir, text, length);
	run->remote_dir[length] = '\0';
	return path_format(run->remote_script, sizeof(run->remote_script), "%s/%s",
			   run->remote_dir, script ? script + 1 : run->spec.workload->script);
}

/* The kernel log's length before the workload: its lines after mktemp's. */
static void count_log_before(struct run *run, const char *log)
{
	run->dmesg_baseline = 0;
	for (; log && *log; log++)
		run->dmesg_baseline += *log == '\n';
}

static void on_workload_dir(struct run *run, const struct transport_exec_result *result)
{
	const char *text = result->stdout_text ? result->stdout_text : "";
	size_t first_line = strcspn(text, "\n");
	char why[700];

	if (first_step_failed(result)) {
		upload_next(run, result->status ? result->status : -EIO,
			    result->status ? result->error_text : result->stderr_text);
		return;
	}
	if (take_remote_dir(run, text, first_line)) {
		snprintf(why, sizeof(why), "mktemp -d \"${TMPDIR:-/tmp}/%s\" printed '%.*s', not a "
			 "directory name", REMOTE_WORKLOAD_TEMPLATE, (int)first_line, text);
		upload_next(run, -EPROTO, why);
		return;
	}
	if (result->exit_status == SECOND_STEP_FAILED) {
		kernel_log_unreadable(run, result);
		return;
	}
	count_log_before(run, text[first_line] ? text + first_line + 1 : "");
	upload_next(run, 0, NULL);
}

static void start_workload(struct run *run)
{
	static const char *const make_dir[] = { "sh", "-c", MAKE_DIR_THEN_READ_LOG, "sh",
						REMOTE_WORKLOAD_TEMPLATE, NULL };

	run->phase = PHASE_PREPARE;
	run->upload_index = 0;
	run->remote_dir[0] = run->remote_script[0] = '\0';
	run_exec(run, make_dir, run->step_timeout_ms, on_workload_dir);
}

/* ---- the verdict, stored ---------------------------------------------------------- */

static const char **collect_log_lines(struct run *run, size_t *count)
{
	const struct console_capture *capture = run->board ? &run->board->capture : NULL;
	size_t console_count = capture ? capture->line_count : 0;
	const char **lines = calloc(run->dmesg_line_count + console_count + 1, sizeof(char *));
	size_t i, n = 0;

	if (!lines) {
		*count = 0;
		return NULL;
	}
	for (i = 0; i < run->dmesg_line_count; i++)
		lines[n++] = run->dmesg_lines[i];
	for (i = 0; i < console_count; i++)
		lines[n++] = capture->lines[i];
	*count = n;
	return lines;
}

static void decide(struct run *run)
{
	size_t line_count = 0;
	const char **lines = collect_log_lines(run, &line_count);
	const struct run_evidence evidence = {
		.output = run->output,
		.output_length = run->output_length,
		.log_lines = lines,
		.log_line_count = line_count,
		.facts = {
			.build_failure = run->spec.build_failure,
			.boot_failure = run->boot_failure[0] ? run->boot_failure : NULL,
			.hang = run->hang,
			.workload_timeout_seconds = run->workload_timeout_seconds,
			.lab_errors = run->lab_errors,
			.lab_error_count = run->lab_error_count,
		},
	};

	run_record_finish(&run->environment, run->id, run->dir, run->spec.workload, &evidence,
			  &run->report);
	free(lines);
}

static void on_handle_closed(uv_handle_t *handle)
{
	struct run *run = handle->data;
	size_t i;

	if (--run->open_handles)
		return;
	for (i = 0; i < run->dmesg_line_count; i++)
		free(run->dmesg_lines[i]);
	free(run->dmesg_lines);
	free(run->output);
	free(run);
}

static void finish(struct run *run)
{
	const char *board = run->board ? run->board->name : NULL;

	run->phase = PHASE_FINISHED;
	stop_probe(run);
	uv_timer_stop(&run->retry_timer);
	drop_transport(&run->transport);
	if (run->board)
		board_capture_stop(run->board);
	decide(run);
	if (run->board)
		snprintf(run->board->clean_image, sizeof(run->board->clean_image), "%s",
			 run->report.outcome == VERDICT_PASS && run->booted ? run->spec.image : "");
	run->report.run_id = run->id;
	run->report.board_in_trouble = run->board_in_trouble;
	log_event(run->environment.log, LOG_INFO, board, run->id, "done", "%s %s",
		  run->spec.workload->name, run->report.summary);
	run->callback(&run->report, run->data);
	uv_close((uv_handle_t *)&run->watchdog, on_handle_closed);
	uv_close((uv_handle_t *)&run->retry_timer, on_handle_closed);
}

/* ---- start -------------------------------------------------------------------------- */

static void on_nothing_to_run(uv_timer_t *timer)
{
	finish(timer->data);
}

static uint64_t seconds_ms(unsigned int board_limit, unsigned int job_limit)
{
	return (uint64_t)(board_limit ? board_limit : job_limit) * 1000;
}

/* The board's limits, else the job's; a step waits as long as silence may last. */
static void set_timeouts(struct run *run)
{
	const struct lab_board *config = run->board->config;
	const struct job *job = run->environment.job;

	run->boot_timeout_ms = seconds_ms(config->boot_timeout_seconds, job->boot_timeout_seconds);
	run->hang_timeout_ms = seconds_ms(config->hang_timeout_seconds, job->hang_timeout_seconds);
	run->step_timeout_ms = run->hang_timeout_ms;
	if (run->step_timeout_ms < STEP_TIMEOUT_MIN_MS)
		run->step_timeout_ms = STEP_TIMEOUT_MIN_MS;
	if (run->step_timeout_ms > STEP_TIMEOUT_MAX_MS)
		run->step_timeout_ms = STEP_TIMEOUT_MAX_MS;
}

static int record_run(struct run *run)
{
	return run_record_start(&run->environment, run->board ? run->board->name : NULL,
				&run->spec, &run->id, run->dir, sizeof(run->dir));
}

/* A LAVA lab's board: the run is a LAVA job (drivers/lava/runner.h). */
static int start_lava_run(const struct run_environment *environment, struct board *board,
			  const struct run_spec *spec, run_done_cb callback, void *data)
{
	const struct lava_run_options options = {
		.environment = environment, .lab = board->lab, .board = board->config,
		.client = board->lava,
	};

	return lava_run_start(&options, spec, callback, data, NULL);
}

int run_start(const struct run_environment *environment, struct board *board,
	      const struct run_spec *spec, run_done_cb callback, void *data)
{
	struct run *run;
	char console[PATH_MAX];
	int rc;

	if (board && board->lava)
		return start_lava_run(environment, board, spec, callback, data);
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	run->environment = *environment;
	run->board = board;
	run->spec = *spec;
	run->callback = callback;
	run->data = data;
	if ((rc = record_run(run))) {
		free(run);
		return rc;
	}
	uv_timer_init(environment->loop, &run->retry_timer);
	uv_timer_init(environment->loop, &run->watchdog);
	run->retry_timer.data = run->watchdog.data = run;
	run->open_handles = 2;
	if (!board || spec->build_failure) {
		/* nothing to run: decided on the next loop turn, so the caller is
		 * never called back before run_start has returned */
		uv_timer_start(&run->retry_timer, on_nothing_to_run, 0, 0);
		return 0;
	}
	set_timeouts(run);
	if (path_format(console, sizeof(console), "%s/console.log", run->dir) == 0)
		board_capture_start(board, console);
	log_event(environment->log, LOG_INFO, board->name, run->id, "start", "%s #%u on %s",
		  spec->workload->name, spec->repeat_index + 1, spec->commit);
	run->phase = PHASE_CONNECT;
	connect_board(run, board->transport_config.connect_timeout_ms, on_first_connect);
	return 0;
}

/* ---- health check ---------------------------------------------------------------------- */

static void end_health_check(struct run *run, bool passed, const char *detail)
{
	run->phase = PHASE_FINISHED;
	uv_timer_stop(&run->watchdog);
	uv_timer_stop(&run->retry_timer);
	drop_transport(&run->transport);
	log_event(run->environment.log, LOG_NOTICE, run->board->name, 0, "health-check", "%s: %s",
		  passed ? "passed" : "failed", detail);
	run->health_callback(run->board, passed, detail, run->data);
	uv_close((uv_handle_t *)&run->watchdog, on_handle_closed);
	uv_close((uv_handle_t *)&run->retry_timer, on_handle_closed);
}

static void on_smoke_done(struct run *run, const struct transport_exec_result *result)
{
	char detail[700];

	if (result->status == 0 && result->exit_status == 0) {
		end_health_check(run, true, "fallback kernel up, iw dev works");
		return;
	}
	snprintf(detail, sizeof(detail), "iw dev failed: %s",
		 result->status ? result->error_text : result->stderr_text);
	end_health_check(run, false, detail);
}

static void on_health_recovered(struct run *run, int status, const char *error_text)
{
	static const char *const smoke[] = { "iw", "dev", NULL };

	(void)status;
	(void)error_text;
	if (run->board_in_trouble || !run->transport) {
		end_health_check(run, false, run->lab_error_count ? run->lab_error_text[0]
				 : "the board did not come back on its fallback kernel");
		return;
	}
	run_exec(run, smoke, run->step_timeout_ms, on_smoke_done);
}

static void on_lava_board_healthy(uv_timer_t *timer)
{
	end_health_check(timer->data, true, "LAVA keeps its devices' health");
}

int run_health_check(const struct run_environment *environment, struct board *board,
		     health_done_cb callback, void *data)
{
	struct run *run = calloc(1, sizeof(*run));

	if (!run)
		return -ENOMEM;
	run->environment = *environment;
	run->board = board;
	run->health_callback = callback;
	run->data = data;
	set_timeouts(run);
	uv_timer_init(environment->loop, &run->retry_timer);
	uv_timer_init(environment->loop, &run->watchdog);
	run->retry_timer.data = run->watchdog.data = run;
	run->open_handles = 2;
	if (board->lava) {
		/* LAVA runs its devices' health checks itself */
		uv_timer_start(&run->retry_timer, on_lava_board_healthy, 0, 0);
		return 0;
	}
	recover_by_power_cycle(run, on_health_recovered);
	return 0;
}
