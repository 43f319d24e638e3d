/*
 * test_fault_plan.c - the virtual lab's fault plan (drivers/virtual/board/
 * fault_plan.h): which fault strikes at which event, once; what a lab file
 * may say and the errors for what it may not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "virtual/board/fault_plan.h"

/* A board with the given `faults:` pairs, as the lab loader leaves them. */
struct board_fixture {
	struct lab_board board;
	struct config_setting settings[4];
};

static void board_with(struct board_fixture *fixture, const char *const *pairs, size_t count)
{
	memset(fixture, 0, sizeof(*fixture));
	fixture->board.name = "fb01";
	for (size_t i = 0; i < count; i++) {
		fixture->settings[i].name = (char *)pairs[2 * i];
		fixture->settings[i].value = (char *)pairs[2 * i + 1];
		fixture->settings[i].where = (struct config_location){ "lab.yaml", 7 + (unsigned)i, 14 };
	}
	fixture->board.faults = fixture->settings;
	fixture->board.fault_count = count;
}

/* The plan of a board with these pairs; they must load. */
static void load_plan(const char *const *pairs, size_t count, struct fault_plan *plan)
{
	struct board_fixture fixture;
	char error[256];

	board_with(&fixture, pairs, count);
	assert_int_equal(fault_plan_load(plan, &fixture.board, error, sizeof(error)), 0);
}

static void test_a_fault_strikes_at_its_event_once(void **state)
{
	static const char *const pairs[] = { "hang-workload", "3", "ssh-drop-upload", "2" };
	struct fault_plan plan;

	(void)state;
	load_plan(pairs, 2, &plan);
	assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_WORKLOAD_TOOL), FAULT_KIND_COUNT);
	assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_WORKLOAD_TOOL), FAULT_KIND_COUNT);
	/* other events do not count towards it */
	assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_DEPLOY), FAULT_KIND_COUNT);
	assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_WORKLOAD_TOOL), FAULT_HANG_WORKLOAD);
	assert_true(plan.struck[FAULT_HANG_WORKLOAD]);
	for (int i = 0; i < 20; i++)
		assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_WORKLOAD_TOOL), FAULT_KIND_COUNT);
	assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_FALLBACK_UNAME), FAULT_KIND_COUNT);
	assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_FALLBACK_UNAME), FAULT_SSH_DROP_UPLOAD);
	assert_int_equal(plan.seen[FAULT_EVENT_WORKLOAD_TOOL], 23);
	assert_false(plan.struck[FAULT_POWER_ERROR]);
}

static void test_power_faults_count_power_commands(void **state)
{
	static const char *const pairs[] = { "power-error", "1", "power-timeout", "2" };
	struct fault_plan plan;

	(void)state;
	load_plan(pairs, 2, &plan);
	assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_POWER), FAULT_POWER_ERROR);
	assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_POWER), FAULT_POWER_TIMEOUT);
	assert_int_equal(fault_plan_event(&plan, FAULT_EVENT_POWER), FAULT_KIND_COUNT);
}

static void test_slow_boot_is_a_delay_not_an_event(void **state)
{
	static const char *const pairs[] = { "slow-boot", "1500" };
	struct fault_plan plan;

	(void)state;
	load_plan(pairs, 1, &plan);
	assert_int_equal(fault_plan_boot_delay_ms(&plan), 1500);
	for (int event = 0; event < FAULT_EVENT_COUNT; event++)
		assert_int_equal(fault_plan_event(&plan, (enum fault_event)event), FAULT_KIND_COUNT);
	load_plan(pairs, 0, &plan);
	assert_int_equal(fault_plan_boot_delay_ms(&plan), 0);
}

static void test_bad_faults_are_refused_at_their_place(void **state)
{
	static const char *const unknown[] = { "hang-later", "1" };
	static const char *const zero[] = { "hang-boot", "0" };
	static const char *const words[] = { "hang-boot", "soon" };
	static const char *const negative[] = { "console-drop", "-2" };
	static const char *const too_slow[] = { "slow-boot", "600000" };
	struct board_fixture fixture;
	struct fault_plan plan;
	char error[512];

	(void)state;
	board_with(&fixture, unknown, 1);
	assert_int_equal(fault_plan_load(&plan, &fixture.board, error, sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "lab.yaml:7:14: board 'fb01': unknown fault 'hang-later' (known: "));
	assert_non_null(strstr(error, "power-timeout"));
	board_with(&fixture, zero, 1);
	assert_int_equal(fault_plan_load(&plan, &fixture.board, error, sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "lab.yaml:7:14: board 'fb01': fault hang-boot needs a whole "
				      "number from 1 to 1000000 (the event it strikes at, counted from 1), "
				      "not '0'"));
	board_with(&fixture, words, 1);
	assert_int_equal(fault_plan_load(&plan, &fixture.board, error, sizeof(error)), -EINVAL);
	board_with(&fixture, negative, 1);
	assert_int_equal(fault_plan_load(&plan, &fixture.board, error, sizeof(error)), -EINVAL);
	board_with(&fixture, too_slow, 1);
	assert_int_equal(fault_plan_load(&plan, &fixture.board, error, sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "extra ms per boot"));
}

static void test_names(void **state)
{
	(void)state;
	for (int kind = 0; kind < FAULT_KIND_COUNT; kind++)
		assert_non_null(strstr(fault_kind_names(), fault_kind_name((enum fault_kind)kind)));
	assert_string_equal(fault_kind_name(FAULT_KIND_COUNT), "none");
	assert_string_equal(fault_event_name(FAULT_EVENT_DEPLOY), "deploy");
	assert_string_equal(fault_event_name(FAULT_EVENT_COUNT), "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_fault_strikes_at_its_event_once),
		cmocka_unit_test(test_power_faults_count_power_commands),
		cmocka_unit_test(test_slow_boot_is_a_delay_not_an_event),
		cmocka_unit_test(test_bad_faults_are_refused_at_their_place),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
