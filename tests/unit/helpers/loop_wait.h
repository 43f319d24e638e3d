/*
 * loop_wait.h - waiting on a real libuv loop in unit tests: run it until
 * something happened, with a timeout, never a sleep.
 */
#ifndef RB_TEST_LOOP_WAIT_H
#define RB_TEST_LOOP_WAIT_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

/* Runs the loop until done(arg), timeout_ms pass, or nothing is left on it
 * that could make done() true; true if done. The timeout alone keeps
 * nothing alive: "the loop is idle" does not wait for it. */
bool run_until(uv_loop_t *loop, bool (*done)(void *), void *arg, uint64_t timeout_ms);

/* done() for run_until: never (runs the loop for the whole time). */
bool never(void *arg);
/* done() for run_until: arg, a uv_loop_t, has no active handles left. */
bool loop_idle(void *arg);
/* The loop's clock, brought up to date. */
uint64_t now_ms(uv_loop_t *loop);
/* Fails the test unless text holds words. */
void assert_contains(const char *text, const char *words);

#endif
