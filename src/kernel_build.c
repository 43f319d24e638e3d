/* kernel_build.c - build.c on a private loop, for callers that wait. */
#include "kernel_build.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "build.h"
#include "path.h"

/* The build's children run in a process group of their own, out of reach of
 * the terminal's Ctrl-C: these signals cancel the build instead, so that
 * nothing keeps building, and no worktree is left, after the tool is told
 * to stop. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define STOP_SIGNAL_COUNT (sizeof(stop_signals) / sizeof(stop_signals[0]))

struct waiting_build {
	struct build *build;
	struct kernel_build *out;
	char *error;
	size_t error_len;
	int status;
	uv_signal_t signals[STOP_SIGNAL_COUNT];
};

static void on_stop_signal(uv_signal_t *signal, int signal_number)
{
	struct waiting_build *waiting = signal->data;

	(void)signal_number;
	if (waiting->build)
		build_cancel(waiting->build);
}

static void on_built(struct build *build, const struct build_result *result, void *data)
{
	struct waiting_build *waiting = data;
	size_t i;

	(void)build;
	waiting->build = NULL;
	waiting->status = result->status;
	memcpy(waiting->out->commit, result->commit, sizeof(waiting->out->commit));
	snprintf(waiting->out->image, sizeof(waiting->out->image), "%s", result->image);
	snprintf(waiting->out->release, sizeof(waiting->out->release), "%s", result->release);
	snprintf(waiting->out->log, sizeof(waiting->out->log), "%s", result->log);
	snprintf(waiting->error, waiting->error_len, "%s", result->error_text ? result->error_text : "");
	for (i = 0; i < STOP_SIGNAL_COUNT; i++)
		uv_close((uv_handle_t *)&waiting->signals[i], NULL);
}

static void watch_stop_signals(uv_loop_t *loop, struct waiting_build *waiting)
{
	size_t i;

	for (i = 0; i < STOP_SIGNAL_COUNT; i++) {
		uv_signal_init(loop, &waiting->signals[i]);
		waiting->signals[i].data = waiting;
		uv_signal_start(&waiting->signals[i], on_stop_signal, stop_signals[i]);
	}
}

static void describe_refusal(int rc, const char *tree, const char *ref, const char *cache_dir,
			     char *error, size_t error_len)
{
	if (rc == -EINVAL)
		snprintf(error, error_len, "%s: '%s' names no commit (a ref may not start with '-')",
			 tree, ref);
	else
		snprintf(error, error_len, "cannot build '%s' of %s in the cache %s: %s", ref, tree,
			 cache_dir, strerror(-rc));
}

int kernel_build_commit(const char *tree, const char *ref, const char *cache_dir,
			struct kernel_build *build, char *error, size_t error_len)
{
	struct build_request request = {
		.tree = tree,
		.ref = ref,
		.artifact = "arch/x86/boot/bzImage",
		.release_file = "include/config/kernel.release",
		.cache_dir = cache_dir,
	};
	struct waiting_build waiting = { .out = build, .error = error, .error_len = error_len };
	uv_loop_t loop;
	int rc;

	memset(build, 0, sizeof(*build));
	rc = uv_loop_init(&loop);
	if (rc) {
		snprintf(error, error_len, "cannot make an event loop: %s", uv_strerror(rc));
		return rc;
	}
	rc = build_start(&loop, &request, on_built, &waiting, &waiting.build);
	if (rc) {
		describe_refusal(rc, tree, ref, cache_dir, error, error_len);
	} else {
		watch_stop_signals(&loop, &waiting);
		uv_run(&loop, UV_RUN_DEFAULT);
		rc = waiting.status;
	}
	uv_loop_close(&loop);
	return rc;
}

int kernel_build_default_cache(char *path, size_t len)
{
	return build_default_cache(path, len);
}
