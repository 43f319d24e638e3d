/* runner.c - see runner.h. */
#include "lava/runner.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "lava/job.h"
#include "lava/results.h"
#include "log.h"
#include "path.h"
#include "run_record.h"

#define DEFAULT_POLL_MS 2000
#define POLL_FAILURES_ALLOWED 5		/* LAVA's web server restarting is not the kernel's fault */
#define BOOT_ALLOWANCE_SECONDS 600	/* deploy and boot, on top of the workload's limit */

struct lava_run {
	struct lava_run_options options;
	struct run_spec spec;
	run_done_cb callback;
	void *data;
	int64_t id;
	char dir[PATH_MAX];
	long job_id;
	uv_timer_t timer;
	uint64_t submitted_ms;
	enum lava_job_phase phase;
	bool phase_known;
	unsigned int poll_failures;
	unsigned int pending;		/* client calls not yet answered */
	bool finished;			/* the callback has run */
	bool timer_closed;
	struct lava_job_state state;
	struct lava_job_error why;
	struct lava_output output;
	struct verdict_lab_error lab_error;
	char lab_error_text[1200];
	bool has_lab_error;
	enum verdict_hang hang;
	char boot_failure[700];		/* the build did not come up as itself; "" */
	/* the build, put where LAVA's devices fetch it: <artifacts dir>/run-ID-XXXXXX */
	char artifacts[PATH_MAX];
	char image_url[PATH_MAX];	/* what the job fetches; "" before compose */
	char modules_url[PATH_MAX];	/* "" when the build has no modules */
	char device_dir[160];		/* the deploy's own directory on the device */
	char marker[40];		/* "rackbisect.run=ID" on the build's command line */
	struct run_report report;
};

static const char *board_name(const struct lava_run *run)
{
	return run->options.board->name;
}

static void note(struct lava_run *run, const char *event, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct lava_run *run, const char *event, const char *format, ...)
{
	char text[1200];
	va_list args;

	va_start(args, format);
	vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	log_event(run->options.environment->log, LOG_INFO, board_name(run), run->id, event, "%s",
		  text);
}

/* ---- the end ----------------------------------------------------------------------------- */

static void free_if_done(struct lava_run *run)
{
	if (run->finished && run->timer_closed && run->pending == 0) {
		lava_output_free(&run->output);
		free(run);
	}
}

static void on_timer_closed(uv_handle_t *handle)
{
	struct lava_run *run = handle->data;

	run->timer_closed = true;
	free_if_done(run);
}

/* Lines of text, pointing into it (which it cuts at each '\n'). */
static size_t split(char *text, const char **lines, size_t max)
{
	size_t count = 0;

	while (text && *text && count < max) {
		char *end = strchr(text, '\n');

		lines[count++] = text;
		if (!end)
			break;
		*end = '\0';
		text = end + 1;
	}
	return count;
}

/* The output's texts are cut into lines in place: their files are written
 * (write_outputs) and nothing reads them whole after this. */
static void judge(struct lava_run *run)
{
	size_t dmesg_lines = 0, console_lines = 0, max = run->output.lines + 2;
	const char **lines = calloc(max * 2, sizeof(*lines));
	struct run_evidence evidence = {
		.output = run->output.ktap,
		.output_length = run->output.ktap ? strlen(run->output.ktap) : 0,
		.facts = {
			.build_failure = run->spec.build_failure,
			.boot_failure = run->boot_failure[0] ? run->boot_failure : NULL,
			.hang = run->hang,
			.lab_errors = run->has_lab_error ? &run->lab_error : NULL,
			.lab_error_count = run->has_lab_error,
		},
	};

	if (lines) {
		dmesg_lines = split(run->output.dmesg, lines, max);
		console_lines = split(run->output.console, lines + dmesg_lines, max);
		evidence.log_lines = lines;
		evidence.log_line_count = dmesg_lines + console_lines;
	}
	run_record_finish(run->options.environment, run->id, run->dir, run->spec.workload,
			  &evidence, &run->report);
	free(lines);
}

/* How long the build may take to answer LAVA's login after kexec -e. */
static unsigned int run_boot_seconds(const struct lava_run *run)
{
	unsigned int board = run->options.board->boot_timeout_seconds;

	return board ? board : run->options.environment->job->boot_timeout_seconds;
}

/* The build's copy is LAVA's to fetch while the job runs, no longer (the
 * build cache keeps the build). */
static void remove_artifacts(struct lava_run *run)
{
	if (run->artifacts[0] && files_remove_tree(run->artifacts) != 0)
		note(run, "lava-artifacts", "cannot remove %s: %s", run->artifacts, strerror(errno));
	run->artifacts[0] = '\0';
}

static void finish(struct lava_run *run)
{
	if (run->finished)
		return;
	run->finished = true;
	if (run->job_id > 0)
		lava_client_forget_job(run->options.client, run->job_id);	/* its end is read */
	remove_artifacts(run);
	judge(run);
	run->report.run_id = run->id;
	note(run, "done", "%s %s", run->spec.workload->name, run->report.summary);
	run->callback(&run->report, run->data);
	uv_timer_stop(&run->timer);
	if (!uv_is_closing((uv_handle_t *)&run->timer))
		uv_close((uv_handle_t *)&run->timer, on_timer_closed);
}

/* The lab's trouble, never the kernel's: INFRA, with LAVA's own words. */
static void lab_trouble(struct lava_run *run, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void lab_trouble(struct lava_run *run, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(run->lab_error_text, sizeof(run->lab_error_text), format, args);
	va_end(args);
	run->lab_error = (struct verdict_lab_error){ VERDICT_LAB_SCHEDULER, run->lab_error_text,
						     false };
	run->has_lab_error = true;
	finish(run);
}

/* The client was closed under the run (rackbisect is stopping): it is not
 * asked again, and the run ends. */
static bool client_gone(struct lava_run *run, const struct lava_answer *answer)
{
	if (answer->status != -ECANCELED)
		return false;
	if (!run->finished)
		lab_trouble(run, "rackbisect stopped following LAVA job %ld", run->job_id);
	return true;
}

/* ---- the job's end, read ------------------------------------------------------------------ */

static void write_outputs(struct lava_run *run)
{
	const struct run_environment *environment = run->options.environment;

	run_record_file(environment, board_name(run), run->id, run->dir, "console.log",
			run->output.console ? run->output.console : "");
	run_record_file(environment, board_name(run), run->id, run->dir, "output.ktap",
			run->output.ktap ? run->output.ktap : "");
	run_record_file(environment, board_name(run), run->id, run->dir, "dmesg.log",
			run->output.dmesg ? run->output.dmesg : "");
}

/*
 * What the job's own steps said of the build settles what LAVA's ending
 * alone cannot: whose fault a cut job is. true when that settled the run.
 */
static bool conclude_build(struct lava_run *run)
{
	const struct lava_output *output = &run->output;
	const char *device = run->state.device[0] ? run->state.device : "the device";

	if (output->deploy.step == LAVA_STEP_FAILED) {
		lab_trouble(run, "LAVA job %ld: putting the build on %s failed: %s", run->job_id,
			    device, output->deploy.detail);
		return true;
	}
	if (output->deploy.step != LAVA_STEP_OK)
		return false;			/* ended before the build was put there */
	if (output->booted.step == LAVA_STEP_WAITING) {
		lab_trouble(run, "LAVA job %ld: LAVA logged in to %s again before the kernel that "
			    "took the build went down, so the hand-over cut the job", run->job_id,
			    device);
		return true;
	}
	if (output->booted.step == LAVA_STEP_FAILED) {
		snprintf(run->boot_failure, sizeof(run->boot_failure), "%s (LAVA job %ld on %s)",
			 output->booted.detail, run->job_id, device);
		finish(run);
		return true;
	}
	if (output->booted.step == LAVA_STEP_UNSAID && strcmp(run->state.health, "Incomplete") == 0) {
		snprintf(run->boot_failure, sizeof(run->boot_failure), "no login within %u s of "
			 "kexec -e into %.100s (LAVA job %ld on %.100s: %.300s)",
			 run_boot_seconds(run), run->spec.release, run->job_id, device,
			 run->why.message[0] ? run->why.message : run->state.failure_comment);
		finish(run);
		return true;
	}
	return false;
}

static void conclude(struct lava_run *run)
{
	const char *why = run->why.message[0] ? run->why.message : run->state.failure_comment;
	enum lava_verdict verdict = lava_classify(&run->state, &run->why);

	if (conclude_build(run))
		return;
	/* the deploy's own step timing out is the lab's, not the build's */
	if (verdict == LAVA_HANG && run->output.deploy.step != LAVA_STEP_OK)
		verdict = LAVA_INFRA;
	switch (verdict) {
	case LAVA_RAN:
		return finish(run);
	case LAVA_HANG:
		run->hang = VERDICT_HANG_KERNEL_UNDER_TEST;
		return finish(run);
	case LAVA_REFUSED:
		run->report.retry_cannot_help = true;
		return lab_trouble(run, "LAVA job %ld was refused (%s error: %s): fix the job or "
				   "the lab's LAVA set-up; see %s/job.yaml", run->job_id,
				   run->why.type, why, run->dir);
	case LAVA_INFRA:
		return lab_trouble(run, "LAVA job %ld on %s ended %s%s%s%s%s%s", run->job_id,
				   run->state.device[0] ? run->state.device : "no device",
				   run->state.health, run->why.type[0] ? " (" : "", run->why.type,
				   run->why.type[0] ? " error)" : "", *why ? ": " : "", why);
	}
}

static void on_logs(const struct lava_answer *answer, void *data)
{
	struct lava_run *run = data;
	char error[512];

	run->pending--;
	if (run->finished || client_gone(run, answer))
		return free_if_done(run);
	if (answer->status == 0 &&
	    lava_output_parse(answer->text, &run->output, error, sizeof(error)) != 0)
		note(run, "lava-log", "job %ld: %s", run->job_id, error);
	else if (answer->status)
		note(run, "lava-log", "%s", answer->error_text);
	write_outputs(run);
	conclude(run);
}

static void read_logs(struct lava_run *run)
{
	if (lava_job_logs(run->options.client, run->job_id, on_logs, run) == 0)
		run->pending++;
	else
		lab_trouble(run, "LAVA job %ld: cannot ask for its log", run->job_id);
}

static void on_tests(const struct lava_answer *answer, void *data)
{
	struct lava_run *run = data;

	run->pending--;
	if (run->finished || client_gone(run, answer))
		return free_if_done(run);
	if (answer->status == 0) {
		run_record_file(run->options.environment, board_name(run), run->id, run->dir,
				"lava-tests.json", answer->text);
		lava_job_error_parse(answer->text, &run->why);
	}
	read_logs(run);
}

/* ---- following the job -------------------------------------------------------------------- */

static void on_poll_timer(uv_timer_t *timer);

static void poll_later(struct lava_run *run)
{
	unsigned int interval = run->options.poll_interval_ms ? run->options.poll_interval_ms
							       : DEFAULT_POLL_MS;

	uv_timer_start(&run->timer, on_poll_timer, interval, 0);
}

static void tell_phase(struct lava_run *run)
{
	if (run->phase_known && run->phase == run->state.phase)
		return;
	run->phase = run->state.phase;
	run->phase_known = true;
	if (run->phase == LAVA_JOB_QUEUED)
		note(run, "lava-queued", "job %ld waits in LAVA's queue (%s)", run->job_id,
		     run->state.state);
	else if (run->phase == LAVA_JOB_RUNNING)
		note(run, "lava-running", "job %ld runs on %s", run->job_id, run->state.device);
}

static void on_cancel_answer(const struct lava_answer *answer, void *data)
{
	struct lava_run *run = data;

	(void)answer;
	run->pending--;
	free_if_done(run);
}

static void cancel_job(struct lava_run *run)
{
	if (run->job_id > 0 &&
	    lava_job_cancel(run->options.client, run->job_id, on_cancel_answer, run) == 0)
		run->pending++;
}

static void on_job(const struct lava_answer *answer, void *data)
{
	struct lava_run *run = data;
	const struct lab_lava *lava = &run->options.lab->lava;
	char error[512];

	run->pending--;
	if (run->finished || client_gone(run, answer))
		return free_if_done(run);
	if (answer->status || lava_job_state_parse(answer->text, &run->state, error,
						   sizeof(error)) != 0) {
		if (++run->poll_failures > POLL_FAILURES_ALLOWED)
			return lab_trouble(run, "lost LAVA job %ld: %s", run->job_id,
					   answer->status ? answer->error_text : error);
		return poll_later(run);
	}
	run->poll_failures = 0;
	tell_phase(run);
	if (run->state.phase == LAVA_JOB_FINISHED) {
		if (lava_job_tests(run->options.client, run->job_id, on_tests, run) == 0)
			run->pending++;
		else
			read_logs(run);
		return;
	}
	if (run->state.phase == LAVA_JOB_QUEUED &&
	    uv_now(run->options.environment->loop) - run->submitted_ms >
		    (uint64_t)lava->queue_timeout_seconds * 1000) {
		cancel_job(run);
		return lab_trouble(run, "LAVA job %ld waited %u s in LAVA's queue for a %s device: "
				   "canceled", run->job_id, lava->queue_timeout_seconds,
				   run->options.board->lava.device_type);
	}
	poll_later(run);
}

static void on_poll_timer(uv_timer_t *timer)
{
	struct lava_run *run = timer->data;

	if (run->finished)
		return;
	if (lava_job(run->options.client, run->job_id, on_job, run) == 0)
		run->pending++;
	else
		lab_trouble(run, "LAVA job %ld: cannot ask for its state", run->job_id);
}

static void on_submitted(const struct lava_answer *answer, void *data)
{
	struct lava_run *run = data;
	char text[700];

	run->pending--;
	if (run->finished || client_gone(run, answer))
		return free_if_done(run);
	if (answer->status) {
		/* refused (400: the job, its device type; 403: the token): sending it
		 * again, here or on another board, gets the same answer */
		run->report.retry_cannot_help = answer->status == -EINVAL ||
						answer->status == -EACCES;
		return lab_trouble(run, "%s (the job: %s/job.yaml)", answer->error_text, run->dir);
	}
	run->job_id = answer->job_id;
	run->submitted_ms = uv_now(run->options.environment->loop);
	snprintf(text, sizeof(text), "job %ld\n%s/scheduler/job/%ld\n", run->job_id,
		 run->options.lab->lava.url, run->job_id);
	run_record_file(run->options.environment, board_name(run), run->id, run->dir, "lava.txt",
			text);
	note(run, "lava-submitted", "%s #%u of %s as LAVA job %ld", run->spec.workload->name,
	     run->spec.repeat_index + 1, run->spec.commit, run->job_id);
	poll_later(run);
}

/* ---- the job ---------------------------------------------------------------------------- */

static char *read_workload_file(const struct lava_run *run, const char *name)
{
	char path[PATH_MAX];

	if (path_format(path, sizeof(path), "%s/%s", run->options.environment->workload_dir, name))
		return NULL;
	return files_read_text(path);
}

/* A file of the build into the artifacts directory, readable by the web
 * server that shows it: a hard link when it can be, else a copy. */
static int put_artifact(struct lava_run *run, const char *from, const char *name, char *error,
			size_t error_len)
{
	char to[PATH_MAX];
	int rc = path_format(to, sizeof(to), "%s/%s", run->artifacts, name);

	if (!rc && link(from, to) == 0 && chmod(to, 0644) == 0)
		return 0;
	if (!rc)
		rc = files_copy(from, to, 0644);
	if (rc)
		snprintf(error, error_len, "cannot put %.200s in %.200s: %s", from, run->artifacts,
			 strerror(-rc));
	return rc;
}

/* The build where LAVA's devices fetch it: <dir>/run-ID-XXXXXX/{vmlinuz,modules.tar.gz}. */
static int put_build(struct lava_run *run, struct lava_job_deploy *deploy, char *error,
		     size_t error_len)
{
	const struct lab *lab = run->options.lab;
	char dir[PATH_MAX], *name;
	int rc;

	if (lab_path(lab, lab->lava.artifacts_dir, dir, sizeof(dir)) != 0 ||
	    path_format(run->artifacts, sizeof(run->artifacts), "%s/run-%" PRId64 "-XXXXXX", dir,
			run->id) != 0) {
		snprintf(error, error_len, "lava artifacts dir: path too long");
		return -ENAMETOOLONG;
	}
	if ((rc = path_make_dirs(dir)) != 0 || !mkdtemp(run->artifacts) ||
	    chmod(run->artifacts, 0755) != 0) {
		rc = rc ? rc : -errno;
		snprintf(error, error_len, "lava artifacts dir %.300s: %s (rackbisect puts each build "
			 "there for LAVA's devices to fetch)", dir, strerror(-rc));
		run->artifacts[0] = '\0';
		return rc;
	}
	name = strrchr(run->artifacts, '/') + 1;
	snprintf(run->device_dir, sizeof(run->device_dir), "/var/tmp/rackbisect-%s", name);
	snprintf(run->marker, sizeof(run->marker), "rackbisect.run=%" PRId64, run->id);
	if ((rc = put_artifact(run, run->spec.image, "vmlinuz", error, error_len)) != 0 ||
	    (run->spec.modules &&
	     (rc = put_artifact(run, run->spec.modules, "modules.tar.gz", error, error_len)) != 0))
		return rc;
	if (path_format(run->image_url, sizeof(run->image_url), "%s/%s/vmlinuz",
			lab->lava.artifacts_url, name) != 0 ||
	    (run->spec.modules &&
	     path_format(run->modules_url, sizeof(run->modules_url), "%s/%s/modules.tar.gz",
			 lab->lava.artifacts_url, name) != 0)) {
		snprintf(error, error_len, "lava artifacts url: too long");
		return -ENAMETOOLONG;
	}
	*deploy = (struct lava_job_deploy){
		.image_url = run->image_url,
		.modules_url = run->modules_url[0] ? run->modules_url : NULL,
		.release = run->spec.release,
		.marker = run->marker,
		.command_line = run->options.environment->job->kernel.command_line,
		.base_command_line = run->options.board->lava.command_line,
		.modules_dir = run->options.board->lava.modules_dir
			       ? run->options.board->lava.modules_dir : "/lib/modules",
		.work_dir = run->device_dir,
		.boot_seconds = run_boot_seconds(run),
	};
	return 0;
}

static int compose(struct lava_run *run, char **definition, char *error, size_t error_len)
{
	const struct job_workload *workload = run->spec.workload;
	const struct lab_lava *lava = &run->options.lab->lava;
	char script_path[PATH_MAX], name[256], commit[13];
	char *library = read_workload_file(run, "lib.sh"), *script, *script_name;
	unsigned int job_timeout = workload->timeout_seconds + BOOT_ALLOWANCE_SECONDS;
	struct lava_job_deploy deploy;
	int rc;

	snprintf(script_path, sizeof(script_path), "%s", workload->script);
	script_name = basename(script_path);
	script = read_workload_file(run, script_name);
	snprintf(commit, sizeof(commit), "%.12s", run->spec.commit ? run->spec.commit : "");
	snprintf(name, sizeof(name), "rackbisect run %" PRId64 ": %s #%u on %s, %s", run->id,
		 workload->name, run->spec.repeat_index + 1, board_name(run), commit);
	if (!library || !script) {
		snprintf(error, error_len, "cannot read the workload %s or lib.sh in %s", script_name,
			 run->options.environment->workload_dir);
		rc = -ENOENT;
	} else if ((rc = put_build(run, &deploy, error, error_len)) == 0) {
		struct lava_job_spec spec = {
			.job_name = name, .device_type = run->options.board->lava.device_type,
			.tags = run->options.board->lava.tags, .priority = lava->priority,
			.job_timeout_seconds = job_timeout + deploy.boot_seconds >
						       lava->job_timeout_seconds
					       ? job_timeout + deploy.boot_seconds
					       : lava->job_timeout_seconds,
			.test_timeout_seconds = workload->timeout_seconds,
			.workload_name = workload->name, .script_name = script_name,
			.script_text = script, .library_text = library, .args = workload->args,
			.deploy = &deploy,
		};

		rc = lava_job_definition(&spec, definition, error, error_len);
	}
	free(library);
	free(script);
	return rc;
}

static void submit(uv_timer_t *timer)
{
	struct lava_run *run = timer->data;
	char error[600], *definition = NULL;
	int rc;

	if (run->spec.build_failure)
		return finish(run);		/* SKIP: nothing to send */
	uv_timer_stop(&run->timer);
	if (compose(run, &definition, error, sizeof(error)) != 0)
		return lab_trouble(run, "no LAVA job for %s: %s", run->spec.workload->name, error);
	run_record_file(run->options.environment, board_name(run), run->id, run->dir, "job.yaml",
			definition);
	rc = lava_submit(run->options.client, definition, on_submitted, run);
	if (rc == 0) {
		run->pending++;
	} else if (rc == -ECANCELED) {
		run->report.retry_cannot_help = true;	/* nor elsewhere: we are stopping */
		lab_trouble(run, "rackbisect is stopping: nothing more goes to LAVA");
	} else {
		lab_trouble(run, "cannot submit to LAVA at %s", run->options.lab->lava.url);
	}
	free(definition);
}

int lava_run_start(const struct lava_run_options *options, const struct run_spec *spec,
		   run_done_cb callback, void *data, struct lava_run **out)
{
	struct lava_run *run = calloc(1, sizeof(*run));
	int rc;

	if (!run)
		return -ENOMEM;
	run->options = *options;
	run->spec = *spec;
	run->callback = callback;
	run->data = data;
	run->output.status = -1;
	rc = run_record_start(options->environment, options->board->name, spec, &run->id, run->dir,
			      sizeof(run->dir));
	if (rc) {
		free(run);
		return rc;
	}
	uv_timer_init(options->environment->loop, &run->timer);
	run->timer.data = run;
	/* on the next loop turn: the caller is never called back from here */
	uv_timer_start(&run->timer, submit, 0, 0);
	if (out)
		*out = run;
	return 0;
}

void lava_run_cancel(struct lava_run *run)
{
	if (run->finished)
		return;
	cancel_job(run);
	lab_trouble(run, "rackbisect stopped: LAVA job %ld canceled", run->job_id);
}
