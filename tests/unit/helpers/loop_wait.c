/* loop_wait.c - waiting on a real loop in unit tests (see loop_wait.h). */
#include "loop_wait.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

static void on_guard_timer(uv_timer_t *timer)
{
	*(bool *)timer->data = true;
}

bool run_until(uv_loop_t *loop, bool (*done)(void *), void *arg, uint64_t timeout_ms)
{
	uv_timer_t guard;
	bool expired = false;

	uv_timer_init(loop, &guard);
	guard.data = &expired;
	uv_timer_start(&guard, on_guard_timer, timeout_ms, 0);
	/* The guard alone keeps nothing alive: "the loop is idle" must not wait
	 * for it (every teardown did, the whole timeout), and a loop with
	 * nothing else left can no longer make done() true. */
	uv_unref((uv_handle_t *)&guard);
	while (!done(arg) && !expired && uv_loop_alive(loop))
		uv_run(loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&guard, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
	return done(arg);
}

bool never(void *arg)
{
	(void)arg;
	return false;
}

bool loop_idle(void *arg)
{
	return !uv_loop_alive(arg);
}

uint64_t now_ms(uv_loop_t *loop)
{
	uv_update_time(loop);
	return uv_now(loop);
}

void assert_contains(const char *text, const char *words)
{
	if (!strstr(text, words))
		fail_msg("'%s' does not say '%s'", text, words);
}
