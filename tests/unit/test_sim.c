/*
 * test_sim.c - the board simulator (drivers/virtual/sim): knobs, chips, its
 * building blocks, booting, every tool's output as a workload parses it,
 * pseudo files, determinism, several boards in one process and hangs, and
 * the interferer (p_interference): off by default, the rate its spells
 * begin at, and the ping-loss symptom it gives good kernels.
 * The statistics of ath9k-model.md §8 are in test_sim_fidelity.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/sim_test_helpers.h"
#include "virtual/modelkernel/variant.h"
#include "virtual/sim/board.h"
#include "virtual/sim/event_queue.h"
#include "virtual/sim/kernel_log.h"
#include "virtual/sim/power_meter.h"
#include "virtual/sim/rng.h"
#include "virtual/sim/sim.h"

#define AP_BSSID "00:0b:6b:de:ad:01"

/* ---- fixtures ------------------------------------------------------------------ */

static int build_kernels(void **state)
{
	struct sim_test_kernels *kernels = calloc(1, sizeof(*kernels));

	if (!kernels || sim_test_kernels_init(kernels) < 0)
		return -1;
	*state = kernels;
	return 0;
}

static int remove_kernels(void **state)
{
	sim_test_kernels_cleanup(*state);
	free(*state);
	return 0;
}

static const char *kernel(void **state, enum driver_variant variant)
{
	const char *path = sim_test_kernel(*state, variant);

	assert_non_null(path);
	return path;
}

/* A booted, associated board on v3.3 (or `variant`), seed 1. */
static struct sim_board *booted(void **state, enum driver_variant variant, uint64_t seed,
				const char *knobs)
{
	struct sim_board *board = sim_test_board(SIM_CHIP_AR9285, seed, knobs);

	assert_non_null(board);
	assert_int_equal(sim_board_boot(board, kernel(state, variant)), 0);
	return board;
}

static int matches(const char *text, const char *pattern)
{
	regex_t re;
	int r;

	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE | REG_NOSUB), 0);
	r = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	return r;
}

/* ---- knobs --------------------------------------------------------------------- */

static void test_knob_defaults(void **state)
{
	struct sim_knobs k;

	(void)state;
	sim_knobs_default(&k);
	assert_true(k.p_wake_dead == 0.9 && k.p_same_channel_scan == 0.5);
	assert_true(k.p_same_channel_reconnect == 1.0 && k.p_txdma_stop_fail == 0.8);
	assert_true(k.p_rx_busy == 0.05 && k.p_wedge == 0.3 && k.p_bus_hang == 0.05);
	assert_true(k.p_ctx_loss == 0.5 && k.p_ack_loss == 0.05 && k.p_beacon_loss == 0.01);
	assert_int_equal(k.retry_limit, 10);
	assert_true(k.idle_gap_min_ms == 5 && k.idle_gap_max_ms == 100);
	assert_int_equal(k.dtim_period, 1);
	assert_int_equal(k.aspm_l1, 1);
	assert_true(k.p_interference == 0 && k.interference_ms == 30000);
}

static void test_knob_set_by_name(void **state)
{
	struct sim_knobs k;

	(void)state;
	sim_knobs_default(&k);
	assert_int_equal(sim_knob_set(&k, "p_wake_dead", "0.25"), 0);
	assert_true(k.p_wake_dead == 0.25);
	assert_int_equal(sim_knob_set(&k, "retry_limit", "4"), 0);
	assert_int_equal(k.retry_limit, 4);
	assert_int_equal(sim_knob_set(&k, "idle_gap_max_ms", "250"), 0);
	assert_true(k.idle_gap_max_ms == 250);
	assert_int_equal(sim_knob_set(&k, "aspm_l1", "0"), 0);
	assert_int_equal(k.aspm_l1, 0);
	assert_int_equal(sim_knob_set(&k, "p_interference", "0.2"), 0);
	assert_true(k.p_interference == 0.2);
	assert_int_equal(sim_knob_set(&k, "interference_ms", "45000"), 0);
	assert_true(k.interference_ms == 45000);
}

static void test_knob_unknown_name(void **state)
{
	struct sim_knobs k;

	(void)state;
	sim_knobs_default(&k);
	assert_int_equal(sim_knob_set(&k, "p_nonsense", "0.1"), -EINVAL);
	assert_int_equal(sim_knob_set(&k, "", "0.1"), -EINVAL);
	assert_int_equal(sim_knob_set(&k, NULL, "0.1"), -EINVAL);
}

static void test_knob_unparsable_value(void **state)
{
	struct sim_knobs k;

	(void)state;
	sim_knobs_default(&k);
	assert_int_equal(sim_knob_set(&k, "p_ack_loss", "lots"), -EINVAL);
	assert_int_equal(sim_knob_set(&k, "p_ack_loss", "0.1x"), -EINVAL);
	assert_int_equal(sim_knob_set(&k, "p_ack_loss", ""), -EINVAL);
	assert_int_equal(sim_knob_set(&k, "p_ack_loss", "nan"), -EINVAL);
	assert_int_equal(sim_knob_set(&k, "retry_limit", "2.5"), -EINVAL);
	assert_true(k.p_ack_loss == 0.05);
}

static void test_knob_out_of_range(void **state)
{
	struct sim_knobs k;

	(void)state;
	sim_knobs_default(&k);
	assert_int_equal(sim_knob_set(&k, "p_wedge", "1.5"), -ERANGE);
	assert_int_equal(sim_knob_set(&k, "p_wedge", "-0.1"), -ERANGE);
	assert_int_equal(sim_knob_set(&k, "dtim_period", "4"), -ERANGE);
	assert_int_equal(sim_knob_set(&k, "retry_limit", "0"), -ERANGE);
	assert_int_equal(sim_knob_set(&k, "idle_gap_min_ms", "-1"), -ERANGE);
	assert_int_equal(sim_knob_set(&k, "p_interference", "1.01"), -ERANGE);
	assert_int_equal(sim_knob_set(&k, "interference_ms", "60001"), -ERANGE);
	assert_true(k.p_wedge == 0.3);
	assert_true(k.p_interference == 0 && k.interference_ms == 30000);
}

static void test_knob_names_all_settable(void **state)
{
	const char *const *names = sim_knob_names();
	struct sim_knobs k;
	int count = 0;

	(void)state;
	sim_knobs_default(&k);
	for (; *names; names++, count++)
		assert_int_equal(sim_knob_set(&k, *names, "1"), 0);
	assert_int_equal(count, 17);
}

/* ---- chips --------------------------------------------------------------------- */

static void test_chip_names_round_trip(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < SIM_CHIP_COUNT; i++) {
		const struct sim_chip_info *info = sim_chip_info((enum sim_chip)i);
		enum sim_chip chip;

		assert_non_null(info);
		assert_int_equal(sim_chip_from_name(info->name, &chip), 0);
		assert_int_equal(chip, i);
		assert_int_equal(sim_chip_from_name(info->marketing_name, &chip), 0);
		assert_int_equal(info->pci_vendor, 0x168c);
	}
}

static void test_chip_unknown_name(void **state)
{
	enum sim_chip chip;

	(void)state;
	assert_int_equal(sim_chip_from_name("ar9999", &chip), -EINVAL);
	assert_int_equal(sim_chip_from_name("", &chip), -EINVAL);
	assert_null(sim_chip_info(SIM_CHIP_COUNT));
}

static void test_chip_capabilities(void **state)
{
	(void)state;
	assert_false(sim_chip_info(SIM_CHIP_AR9285)->autosleep);
	assert_true(sim_chip_info(SIM_CHIP_AR9285)->rtc_reset_in_full_sleep);
	assert_int_equal(sim_chip_info(SIM_CHIP_AR9285)->pci_device, 0x002b);
	assert_false(sim_chip_info(SIM_CHIP_AR5416)->rtc_reset_in_full_sleep);
	assert_true(sim_chip_info(SIM_CHIP_AR9380)->autosleep);
	assert_true(sim_chip_info(SIM_CHIP_AR9462)->autosleep);
	assert_false(sim_chip_info(SIM_CHIP_AR9462)->rtc_reset_in_full_sleep);
}

/* ---- building blocks ------------------------------------------------------------ */

static void test_rng_same_seed_same_sequence(void **state)
{
	struct sim_rng a, b, c;
	int i, differ = 0;

	(void)state;
	sim_rng_seed(&a, 7);
	sim_rng_seed(&b, 7);
	sim_rng_seed(&c, 8);
	for (i = 0; i < 1000; i++) {
		uint64_t x = sim_rng_next(&a);

		assert_true(x == sim_rng_next(&b));
		differ += x != sim_rng_next(&c);
	}
	assert_true(differ > 990);
}

static void test_rng_ranges(void **state)
{
	struct sim_rng rng;
	int i, hits = 0;

	(void)state;
	sim_rng_seed(&rng, 1);
	for (i = 0; i < 10000; i++) {
		uint64_t x = sim_rng_between(&rng, 300, 1000);
		double u = sim_rng_uniform(&rng);

		assert_true(x >= 300 && x <= 1000);
		assert_true(u >= 0.0 && u < 1.0);
		hits += sim_rng_chance(&rng, 0.25);
	}
	assert_in_range(hits, 2300, 2700);
	assert_false(sim_rng_chance(&rng, 0.0));
	assert_true(sim_rng_chance(&rng, 1.0));
}

static void test_event_queue_ties_keep_push_order(void **state)
{
	struct event_queue queue;
	struct sim_event event;
	int i;

	(void)state;
	event_queue_init(&queue);
	assert_int_equal(event_queue_push(&queue, 50, 0, 0, 99), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(event_queue_push(&queue, 10, 0, 0, (uint64_t)i), 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(event_queue_pop(&queue, &event), 0);
		assert_int_equal(event.due_us, 10);
		assert_int_equal(event.arg, i);
	}
	assert_int_equal(event_queue_pop(&queue, &event), 0);
	assert_int_equal(event.arg, 99);
	assert_int_equal(event_queue_pop(&queue, &event), -ENOENT);
	assert_true(event_queue_next_due(&queue) == UINT64_MAX);
	event_queue_free(&queue);
}

static void test_event_queue_pops_in_time_order(void **state)
{
	struct event_queue queue;
	struct sim_event event;
	struct sim_rng rng;
	uint64_t last = 0;
	int i;

	(void)state;
	event_queue_init(&queue);
	sim_rng_seed(&rng, 3);
	for (i = 0; i < 5000; i++)
		event_queue_push(&queue, sim_rng_between(&rng, 0, 100000), 1, 0, 0);
	for (i = 0; i < 5000; i++) {
		assert_int_equal(event_queue_pop(&queue, &event), 0);
		assert_true(event.due_us >= last);
		last = event.due_us;
	}
	event_queue_free(&queue);
}

static void test_kernel_log_format_and_numbering(void **state)
{
	struct kernel_log *log = calloc(1, sizeof(*log));

	(void)state;
	kernel_log_init(log);
	kernel_log_append(log, 5123456, "wlan0: associated\n");
	kernel_log_append(log, 123000000, "two\nlines");
	assert_int_equal(log->next, 3);
	assert_string_equal(kernel_log_line(log, 0), "[    5.123456] wlan0: associated");
	assert_string_equal(kernel_log_line(log, 1), "[  123.000000] two");
	assert_string_equal(kernel_log_line(log, 2), "[  123.000000] lines");
	assert_null(kernel_log_line(log, 3));
	kernel_log_reset(log);
	free(log);
}

static void test_kernel_log_keeps_the_last_lines(void **state)
{
	struct kernel_log *log = calloc(1, sizeof(*log));
	char text[32];
	int i;

	(void)state;
	kernel_log_init(log);
	for (i = 0; i < 20000; i++) {
		snprintf(text, sizeof(text), "line %d", i);
		kernel_log_append(log, (uint64_t)i, text);
	}
	assert_null(kernel_log_line(log, 0));
	assert_true(kernel_log_first_held(log) <= 20000 - 10000);
	assert_non_null(strstr(kernel_log_line(log, 19999), "line 19999"));
	assert_non_null(strstr(kernel_log_line(log, 10000), "line 10000"));
	kernel_log_reset(log);
	free(log);
}

static void test_power_meter_integrates_exactly(void **state)
{
	struct power_meter *meter = calloc(1, sizeof(*meter));

	(void)state;
	power_meter_reset(meter, 0, 1000000);			/* 1 W */
	power_meter_set_power(meter, 2000000, 20000);		/* 2 s, then 20 mW */
	assert_true(power_meter_energy_pj(meter, 2000000) == 2000000ULL * 1000000);
	power_meter_add_energy(meter, 3000000, 5000000);	/* + 5 µJ at 3 s */
	assert_true(power_meter_energy_pj(meter, 4000000) ==
		    2000000ULL * 1000000 + 2000000ULL * 20000 + 5000000);
	free(meter);
}

static void test_power_meter_window_average(void **state)
{
	struct power_meter *meter = calloc(1, sizeof(*meter));

	(void)state;
	power_meter_reset(meter, 0, 1090000);
	power_meter_set_power(meter, 10000000, 20000);
	/* the last second straddles nothing: pure full sleep */
	assert_int_equal(power_meter_average_uw(meter, 12000000, 1000000), 20000);
	/* half awake, half asleep */
	assert_int_equal(power_meter_average_uw(meter, 10500000, 1000000), (1090000 + 20000) / 2);
	free(meter);
}

/* ---- model kernels and booting ---------------------------------------------------- */

static void test_variant_build_gives_a_kernel(void **state)
{
	char path[256], dir[128];

	snprintf(dir, sizeof(dir), "%s/direct-build", ((struct sim_test_kernels *)*state)->dir);
	assert_int_equal(modelkernel_build_variant(DRIVER_VARIANT_BAD_BACKPORT, dir, path,
						   sizeof(path)), 0);
	assert_non_null(strstr(path, "/arch/x86/boot/bzImage"));
	assert_int_equal(access(path, R_OK), 0);
	assert_int_equal(modelkernel_build_variant(DRIVER_VARIANT_COUNT, dir, path, sizeof(path)),
			 -EINVAL);
	assert_int_equal(modelkernel_build_variant(DRIVER_VARIANT_V3_3, dir, path, 8),
			 -ENAMETOOLONG);
}

static void test_variant_build_passes_extra_environment(void **state)
{
	char *const broken_path[] = { "PATH=/nonexistent", NULL };
	char *const localversion[] = { "LOCALVERSION=-test", NULL };
	char path[256], dir[128];

	snprintf(dir, sizeof(dir), "%s/env-build", ((struct sim_test_kernels *)*state)->dir);
	/* make runs with the given PATH, so it finds no compiler */
	assert_int_equal(modelkernel_build_variant_env(DRIVER_VARIANT_V3_3, dir, broken_path, path,
						       sizeof(path)), -EIO);
	assert_int_equal(modelkernel_build_variant_env(DRIVER_VARIANT_V3_3, dir, localversion, path,
						       sizeof(path)), 0);
	assert_int_equal(access(path, R_OK), 0);
}

static void test_boot_rejects_what_is_not_a_kernel(void **state)
{
	struct sim_board *board = sim_test_board(SIM_CHIP_AR9285, 1, NULL);
	char text_file[] = "/tmp/rackbisect-simtest-notakernel-XXXXXX";
	int fd = mkstemp(text_file);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello\n", 6), 6);
	close(fd);
	assert_int_equal(sim_board_boot(board, text_file), -ENOEXEC);
	assert_true(strlen(sim_board_error(board)) > 0);
	assert_int_equal(sim_board_boot(board, "/proc/self/exe"), -ENOEXEC);
	assert_int_equal(sim_board_boot(board, "/nonexistent/bzImage"), -ENOENT);
	assert_false(sim_board_is_on(board));
	unlink(text_file);
	sim_board_destroy(board);
}

static void test_boot_banner_first_then_associated(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);

	assert_true(sim_board_is_on(board));
	assert_string_equal(sim_board_release(board), "3.3.0");
	assert_true(matches(sim_board_log_line(board, 0),
			    "^\\[    0\\.000000\\] Linux version 3\\.3\\.0 \\(builder@"));
	assert_int_equal(sim_test_log_count(board, "wlan0: associated"), 1);
	assert_int_equal(sim_test_log_count(board, "Atheros AR9285"), 1);
	assert_true(sim_board_uptime_us(board) > 4000000);
	sim_board_destroy(board);
}

static void test_board_off_runs_no_tool(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	sim_board_power_off(board);
	assert_false(sim_board_is_on(board));
	assert_string_equal(sim_board_release(board), "");
	assert_true(sim_test_run(board, &out, "uname -r") < 0);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_reboot_restarts_uptime_and_log(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };
	uint64_t lines;

	sim_test_run(board, &out, "sleep 100");
	lines = sim_board_log_next(board);
	assert_int_equal(sim_board_boot(board, kernel(state, DRIVER_VARIANT_V3_3)), 0);
	assert_true(sim_board_uptime_us(board) < 100000000);
	assert_true(sim_board_log_next(board) <= lines);
	assert_non_null(strstr(sim_board_log_line(board, 0), "Linux version"));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* ---- tools: iw ------------------------------------------------------------------------ */

static void test_unknown_tool_exits_127(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "kexec -e"), 127);
	assert_string_equal(out.err, "kexec: not found\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_dev_lists_wlan0(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "iw dev"), 0);
	assert_true(matches(out.out, "^phy#0\n\tInterface wlan0\n\t\tifindex 3\n"));
	assert_true(matches(out.out, "^\t\ttype managed$"));
	assert_true(matches(out.out, "^\t\taddr 00:03:7f(:[0-9a-f]{2}){3}$"));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_link_connected(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 link"), 0);
	assert_true(matches(out.out, "^Connected to " AP_BSSID " \\(on wlan0\\)\n\tSSID: rackbisect-ap\n"
				     "\tfreq: 2437\n"));
	assert_true(matches(out.out, "^\tsignal: -42 dBm$"));
	assert_true(matches(out.out, "^\ttx bitrate: 54\\.0 MBit/s$"));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_link_not_connected(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 disconnect"), 0);
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 link"), 0);
	assert_string_equal(out.out, "Not connected.\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_station_dump_fields(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	sim_test_run(board, &out, "ping -q -c 5 -i 0.2 127.80.2.1");
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 station dump"), 0);
	assert_true(matches(out.out, "^Station " AP_BSSID " \\(on wlan0\\)\n\tinactive time:\t[0-9]+ ms\n"));
	assert_true(sim_test_field(out.out, "rx bytes") > 0);
	assert_true(sim_test_field(out.out, "rx packets") > 0);
	assert_true(sim_test_field(out.out, "tx bytes") > 0);
	assert_true(sim_test_field(out.out, "tx packets") >= 5);
	assert_true(sim_test_field(out.out, "tx retries") >= 0);
	assert_int_equal(sim_test_field(out.out, "tx failed"), 0);
	assert_true(matches(out.out, "^\tsignal:  \t-42 dBm$"));
	assert_true(matches(out.out, "^\tsignal avg:\t-42 dBm$"));
	assert_true(matches(out.out, "^\ttx bitrate:\t54\\.0 MBit/s$"));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_station_dump_empty_when_disconnected(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 station dump"), 0);
	assert_string_equal(out.out, "");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_power_save_get_set(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 get power_save"), 0);
	assert_string_equal(out.out, "Power save: on\n");
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 set power_save off"), 0);
	assert_string_equal(out.out, "");
	sim_test_run(board, &out, "iw dev wlan0 get power_save");
	assert_string_equal(out.out, "Power save: off\n");
	/* with PS off the chip stays awake: associated idle draws awake power */
	sim_test_run(board, &out, "sleep 1");
	assert_int_equal(board->card.power, ATH9K_PM_AWAKE);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_bad_arguments_print_usage(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 set power_save maybe"), 1);
	assert_true(matches(out.out, "^Usage:\tiw \\[options\\] dev <devname> set power_save <on\\|off>$"));
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 frobnicate"), 1);
	assert_true(matches(out.out, "^Usage:\tiw \\[options\\] command$"));
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 connect"), 1);
	assert_true(matches(out.out, "connect \\[-w\\] <SSID>"));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_unknown_device(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "iw dev wlan1 link"), 237);
	assert_string_equal(out.err, "command failed: No such device (-19)\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_disconnect_when_idle_fails(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 disconnect"), 0);
	assert_int_equal(sim_test_log_count(board, "deauthenticating from " AP_BSSID
					    " by local choice (reason=3)"), 1);
	/* 3.x cfg80211: the SME is idle */
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 disconnect"), 234);
	assert_string_equal(out.err, "command failed: Invalid argument (-22)\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_connect_wait_reports_connected(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 connect -w rackbisect-ap"), 0);
	assert_string_equal(out.out, "wlan0 (phy #0): connected to " AP_BSSID "\n");
	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	assert_int_equal(sim_test_run(board, &out,
				      "iw dev wlan0 connect -w rackbisect-ap 2437 " AP_BSSID), 0);
	assert_string_equal(out.out, "wlan0 (phy #0): connected to " AP_BSSID "\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_connect_without_wait_returns_at_once(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };
	uint64_t before;

	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	before = sim_board_uptime_us(board);
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 connect rackbisect-ap"), 0);
	assert_string_equal(out.out, "");
	assert_true(sim_board_uptime_us(board) == before);
	sim_test_run(board, &out, "sleep 3");
	sim_test_run(board, &out, "iw dev wlan0 link");
	assert_true(matches(out.out, "^Connected to " AP_BSSID));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_connect_to_wrong_bssid_times_out(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	assert_int_equal(sim_test_run(board, &out,
				      "iw dev wlan0 connect -w rackbisect-ap 2437 00:11:22:33:44:55"), 0);
	assert_string_equal(out.out, "wlan0 (phy #0): failed to connect to 00:11:22:33:44:55, "
				     "status: 1: Unspecified failure\n");
	assert_int_equal(sim_test_log_count(board, "authenticate with 00:11:22:33:44:55 (try 3)"), 1);
	assert_int_equal(sim_test_log_count(board, "authentication with 00:11:22:33:44:55 timed out"), 1);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_connect_unknown_ssid(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 connect -w some-other-net"), 0);
	assert_string_equal(out.out, "wlan0 (phy #0): failed to connect, status: 1: "
				     "Unspecified failure\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_connect_when_connected(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 connect -w rackbisect-ap"), 142);
	assert_string_equal(out.err, "command failed: Operation already in progress (-114)\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_scan_lists_the_ap(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };
	struct sim_board_stats before, after;

	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	sim_board_stats(board, &before);
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 scan"), 0);
	sim_board_stats(board, &after);
	assert_true(matches(out.out, "^BSS " AP_BSSID "\\(on wlan0\\)\n"));
	assert_true(matches(out.out, "^\tfreq: 2437$"));
	assert_true(matches(out.out, "^\tSSID: rackbisect-ap$"));
	/* every channel of the band is a channel change, i.e. a chip reset */
	assert_true(after.resets - before.resets >= 13);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_iw_scan_on_a_down_interface(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "ip link set wlan0 down"), 0);
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 scan"), 156);
	assert_string_equal(out.err, "command failed: Network is down (-100)\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* ---- tools: ip ------------------------------------------------------------------------- */

static void test_ip_link_down_and_up(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "ip link show wlan0"), 0);
	assert_true(matches(out.out, "^3: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 .*state UP "));
	assert_true(matches(out.out, "^    link/ether 00:03:7f(:[0-9a-f]{2}){3} brd ff:ff:ff:ff:ff:ff$"));
	assert_int_equal(sim_test_run(board, &out, "ip link set wlan0 down"), 0);
	/* driver stop puts the chip in full sleep */
	assert_int_equal(board->card.power, ATH9K_PM_FULL_SLEEP);
	sim_test_run(board, &out, "ip link show wlan0");
	assert_true(matches(out.out, "^3: wlan0: <BROADCAST,MULTICAST> mtu 1500 .*state DOWN "));
	assert_int_equal(sim_test_run(board, &out, "ip link set wlan0 up"), 0);
	sim_test_run(board, &out, "ip link show wlan0");
	assert_true(matches(out.out, "^3: wlan0: <NO-CARRIER,BROADCAST,MULTICAST,UP> "));
	sim_test_run(board, &out, "iw dev wlan0 link");
	assert_string_equal(out.out, "Not connected.\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_ip_errors(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "ip link set wlan1 up"), 1);
	assert_string_equal(out.err, "Cannot find device \"wlan1\"\n");
	assert_int_equal(sim_test_run(board, &out, "ip link show wlan1"), 1);
	assert_string_equal(out.err, "Device \"wlan1\" does not exist.\n");
	assert_int_equal(sim_test_run(board, &out, "ip frob"), 1);
	assert_string_equal(out.err, "Object \"frob\" is unknown, try \"ip help\".\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* ---- tools: ping ------------------------------------------------------------------------ */

static void test_ping_output_parses(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };
	long transmitted, received, time_ms;
	double loss, min, avg, max, mdev;
	const char *stats;

	assert_int_equal(sim_test_run(board, &out, "ping -c 10 -i 0.2 127.80.2.1"), 0);
	assert_true(matches(out.out, "^PING 127\\.80\\.2\\.1 \\(127\\.80\\.2\\.1\\) 56\\(84\\) bytes of data\\.$"));
	assert_true(matches(out.out, "^64 bytes from 127\\.80\\.2\\.1: icmp_seq=1 ttl=64 "
				     "time=[0-9]+(\\.[0-9]+)? ms$"));
	assert_true(matches(out.out, "^64 bytes from 127\\.80\\.2\\.1: icmp_seq=10 ttl=64 time="));
	stats = strstr(out.out, "\n--- 127.80.2.1 ping statistics ---\n");
	assert_non_null(stats);
	assert_int_equal(sscanf(strchr(stats + 2, '\n') + 1,
				"%ld packets transmitted, %ld received, %lf%% packet loss, time %ldms",
				&transmitted, &received, &loss, &time_ms), 4);
	assert_int_equal(transmitted, 10);
	assert_int_equal(received, 10);
	assert_true(loss == 0.0);
	assert_in_range(time_ms, 1800, 1810);
	assert_int_equal(sscanf(strstr(stats, "rtt "), "rtt min/avg/max/mdev = %lf/%lf/%lf/%lf ms",
				&min, &avg, &max, &mdev), 4);
	assert_true(min <= avg && avg <= max);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_ping_quiet_prints_only_summary(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "ping -q -c 3 127.80.2.1"), 0);
	assert_null(strstr(out.out, "bytes from"));
	assert_non_null(strstr(out.out, "3 packets transmitted, 3 received, 0% packet loss"));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_ping_unanswered_host(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "ping -c 2 -W 1 10.0.0.1"), 1);
	assert_non_null(strstr(out.out, "2 packets transmitted, 0 received, 100% packet loss"));
	assert_null(strstr(out.out, "rtt "));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_ping_argument_errors(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "ping -c abc 127.80.2.1"), 1);
	assert_string_equal(out.err, "ping: invalid argument: 'abc'\n");
	assert_int_equal(sim_test_run(board, &out, "ping -c 0 127.80.2.1"), 1);
	assert_string_equal(out.err, "ping: invalid argument: '0': out of range: "
				     "1 <= value <= 9223372036854775807\n");
	assert_int_equal(sim_test_run(board, &out, "ping"), 1);
	assert_string_equal(out.err, "ping: usage error: Destination address required\n");
	assert_int_equal(sim_test_run(board, &out, "ping -c 1 nosuchhost"), 2);
	assert_string_equal(out.err, "ping: nosuchhost: Name or service not known\n");
	assert_int_equal(sim_test_run(board, &out, "ping -z 127.80.2.1"), 2);
	assert_true(matches(out.err, "^ping: invalid option -- 'z'$"));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_ping_unreachable_when_disconnected(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	assert_int_equal(sim_test_run(board, &out, "ping -c 1 127.80.2.1"), 2);
	assert_string_equal(out.err, "ping: connect: Network is unreachable\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* ---- tools: dmesg, sleep, uname -------------------------------------------------------- */

static void test_dmesg_lines_are_stamped(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };
	char *line, *save = NULL;
	int count = 0;

	assert_int_equal(sim_test_run(board, &out, "dmesg"), 0);
	for (line = strtok_r(out.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(matches(line, "^\\[ *[0-9]+\\.[0-9]{6}\\] "));
		count++;
	}
	assert_int_equal((uint64_t)count, sim_board_log_next(board));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_dmesg_read_clear(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	assert_int_equal(sim_test_run(board, &out, "dmesg -c"), 0);
	assert_true(out.out_len > 0);
	sim_test_run(board, &out, "dmesg");
	assert_string_equal(out.out, "");
	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	sim_test_run(board, &out, "dmesg -t");
	assert_string_equal(out.out, "wlan0: deauthenticating from " AP_BSSID
				     " by local choice (reason=3)\n");
	/* the console still has every line */
	assert_non_null(strstr(sim_board_log_line(board, 0), "Linux version"));
	assert_int_equal(sim_test_run(board, &out, "dmesg -q"), 1);
	assert_string_equal(out.err, "dmesg: invalid option -- 'q'\n"
				     "Try 'dmesg --help' for more information.\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_sleep_advances_simulated_time(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };
	uint64_t before = sim_board_uptime_us(board);

	assert_int_equal(sim_test_run(board, &out, "sleep 1.5"), 0);
	assert_true(sim_board_uptime_us(board) == before + 1500000);
	assert_int_equal(sim_test_run(board, &out, "sleep 1m 2"), 0);
	assert_true(sim_board_uptime_us(board) == before + 63500000);
	assert_int_equal(sim_test_run(board, &out, "sleep"), 1);
	assert_string_equal(out.err, "sleep: missing operand\nTry 'sleep --help' for more information.\n");
	assert_int_equal(sim_test_run(board, &out, "sleep soon"), 1);
	assert_string_equal(out.err, "sleep: invalid time interval 'soon'\n"
				     "Try 'sleep --help' for more information.\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_uname_variants(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	sim_test_run(board, &out, "uname");
	assert_string_equal(out.out, "Linux\n");
	sim_test_run(board, &out, "uname -r");
	assert_string_equal(out.out, "3.3.0\n");
	sim_test_run(board, &out, "uname -n");
	assert_string_equal(out.out, "testboard\n");
	sim_test_run(board, &out, "uname -sr");
	assert_string_equal(out.out, "Linux 3.3.0\n");
	sim_test_run(board, &out, "uname -a");
	assert_string_equal(out.out, "Linux testboard 3.3.0 #1 SMP x86_64 GNU/Linux\n");
	assert_int_equal(sim_test_run(board, &out, "uname -x"), 1);
	assert_string_equal(out.err, "uname: invalid option -- 'x'\n"
				     "Try 'uname --help' for more information.\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* ---- pseudo files ------------------------------------------------------------------------ */

static char *slurp(const char *dir, const char *name)
{
	char path[512], *text = calloc(1, 65536);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		free(text);
		return NULL;
	}
	if (fread(text, 1, 65535, f) == 0)
		text[0] = '\0';
	fclose(f);
	return text;
}

static void test_write_files(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };
	char root[128], debugfs[160], sysclass[160], uptime[160], *text;
	struct sim_board_files files = { debugfs, sysclass, uptime };
	struct sim_board_stats stats;
	double up, idle;

	snprintf(root, sizeof(root), "%s/files", ((struct sim_test_kernels *)*state)->dir);
	snprintf(debugfs, sizeof(debugfs), "%s/debug", root);
	snprintf(sysclass, sizeof(sysclass), "%s/class", root);
	snprintf(uptime, sizeof(uptime), "%s/uptime", root);
	assert_int_equal(mkdir(root, 0755), 0);
	sim_test_run(board, &out, "sleep 60");
	assert_int_equal(sim_board_write_files(board, &files), 0);

	text = slurp(debugfs, "ieee80211/phy0/ath9k/wiphy");
	assert_non_null(text);
	assert_true(matches(text, "^TX Path Hang: +0$"));
	assert_true(matches(text, "^BB HANG: +0$"));
	free(text);
	text = slurp(debugfs, "ieee80211/phy0/ath9k/xmit");
	assert_true(matches(text, "^MPDUs Completed: +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$"));
	free(text);
	assert_non_null(text = slurp(debugfs, "ieee80211/phy0/ath9k/recv"));
	free(text);
	assert_non_null(text = slurp(debugfs, "ieee80211/phy0/ath9k/interrupt"));
	free(text);

	text = slurp(sysclass, "hwmon/hwmon0/name");
	assert_string_equal(text, "ath9k_power\n");
	free(text);
	text = slurp(sysclass, "hwmon/hwmon0/energy1_input");
	sim_board_stats(board, &stats);
	assert_true(strtoull(text, NULL, 10) == stats.energy_uj);
	free(text);
	text = slurp(sysclass, "hwmon/hwmon0/power1_input");
	/* associated PS idle: around 116 mW over the last second */
	assert_in_range(strtoull(text, NULL, 10), 50000, 400000);
	free(text);
	text = slurp(sysclass, "net/wlan0/operstate");
	assert_string_equal(text, "up\n");
	free(text);
	text = slurp(root, "uptime");
	assert_int_equal(sscanf(text, "%lf %lf", &up, &idle), 2);
	assert_true(up >= 60.0 && idle < up);
	assert_true(matches(text, "^[0-9]+\\.[0-9]{2} [0-9]+\\.[0-9]{2}$"));
	free(text);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static ino_t inode_of(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* A tool call rewrites the files: only those whose text changed are
 * replaced (a rename each), and one removed meanwhile comes back. */
static void test_write_files_leaves_unchanged_files_alone(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };
	char root[128], debugfs[160], sysclass[160], uptime[160], path[512], *text;
	struct sim_board_files files = { debugfs, sysclass, uptime };
	ino_t name, energy, address;

	snprintf(root, sizeof(root), "%s/files-again", ((struct sim_test_kernels *)*state)->dir);
	snprintf(debugfs, sizeof(debugfs), "%s/debug", root);
	snprintf(sysclass, sizeof(sysclass), "%s/class", root);
	snprintf(uptime, sizeof(uptime), "%s/uptime", root);
	assert_int_equal(mkdir(root, 0755), 0);
	sim_test_run(board, &out, "sleep 5");
	assert_int_equal(sim_board_write_files(board, &files), 0);
	name = inode_of(sysclass, "hwmon/hwmon0/name");
	energy = inode_of(sysclass, "hwmon/hwmon0/energy1_input");
	address = inode_of(sysclass, "net/wlan0/address");
	assert_true(name && energy && address);

	sim_test_run(board, &out, "sleep 5");
	assert_int_equal(sim_board_write_files(board, &files), 0);
	assert_true(inode_of(sysclass, "hwmon/hwmon0/name") == name);
	assert_true(inode_of(sysclass, "net/wlan0/address") == address);
	/* five more seconds of idle: more energy, so a new file */
	assert_true(inode_of(sysclass, "hwmon/hwmon0/energy1_input") != energy);

	snprintf(path, sizeof(path), "%s/net/wlan0/address", sysclass);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(sim_board_write_files(board, &files), 0);
	text = slurp(sysclass, "net/wlan0/address");
	assert_non_null(text);
	assert_true(matches(text, "^([0-9a-f]{2}:){5}[0-9a-f]{2}$"));
	free(text);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* ---- determinism, several boards, hangs ------------------------------------------------- */

static char *run_script_with(void **state, enum driver_variant variant, uint64_t seed,
			     const char *knobs)
{
	static const char *const script[] = {
		"sleep 5", "ping -c 20 -i 0.2 127.80.2.1", "iw dev wlan0 disconnect", "sleep 3",
		"iw dev wlan0 connect -w rackbisect-ap 2437 " AP_BSSID, "iw dev wlan0 disconnect",
		"sleep 2", "iw dev wlan0 connect -w rackbisect-ap", "sleep 40",
		"iw dev wlan0 station dump", "dmesg",
	};
	struct sim_board *board = booted(state, variant, seed, knobs);
	struct sim_test_output out = { 0 };
	char *transcript = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&transcript, &len);

	for (i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
		int status = sim_test_run(board, &out, script[i]);

		fprintf(f, "$ %s -> %d\n%s%s", script[i], status, out.out, out.err);
	}
	fclose(f);
	sim_test_output_free(&out);
	sim_board_destroy(board);
	return transcript;
}

static char *run_script(void **state, enum driver_variant variant, uint64_t seed)
{
	return run_script_with(state, variant, seed, NULL);
}

static void test_same_seed_same_run(void **state)
{
	char *a = run_script(state, DRIVER_VARIANT_V3_3, 77);
	char *b = run_script(state, DRIVER_VARIANT_V3_3, 77);

	assert_string_equal(a, b);
	assert_non_null(strstr(a, "Station " AP_BSSID));
	assert_non_null(strstr(a, "icmp_seq=20"));
	free(a);
	free(b);
}

static void test_same_seed_same_failures(void **state)
{
	char *a = run_script(state, DRIVER_VARIANT_V3_3_1, 78);
	char *b = run_script(state, DRIVER_VARIANT_V3_3_1, 78);

	assert_string_equal(a, b);
	assert_non_null(strstr(a, "timed out"));
	free(a);
	free(b);
}

static void test_different_seeds_differ(void **state)
{
	char *a = run_script(state, DRIVER_VARIANT_V3_3, 77);
	char *b = run_script(state, DRIVER_VARIANT_V3_3, 78);

	assert_string_not_equal(a, b);
	free(a);
	free(b);
}

static void test_two_boards_do_not_share_driver_state(void **state)
{
	struct sim_board *idle = booted(state, DRIVER_VARIANT_V3_3_1, 5, NULL);
	struct sim_board *busy = booted(state, DRIVER_VARIANT_V3_3_1, 6, NULL);
	struct sim_test_output out = { 0 };

	/* one copy of the driver each: two softc */
	assert_ptr_not_equal(idle->kernel.softc, busy->kernel.softc);
	assert_ptr_not_equal(idle->kernel.driver, busy->kernel.driver);
	/* idling one (3.3.1: full sleep) does not touch the other's chip */
	sim_test_run(idle, &out, "iw dev wlan0 disconnect");
	assert_int_equal(idle->card.power, ATH9K_PM_FULL_SLEEP);
	assert_int_equal(sim_test_run(busy, &out, "ping -q -c 20 -i 0.2 127.80.2.1"), 0);
	assert_non_null(strstr(out.out, "20 received"));
	assert_true(busy->card.power != ATH9K_PM_FULL_SLEEP);
	sim_test_run(busy, &out, "iw dev wlan0 link");
	assert_true(matches(out.out, "^Connected to "));
	sim_test_run(idle, &out, "iw dev wlan0 link");
	assert_string_equal(out.out, "Not connected.\n");
	sim_test_output_free(&out);
	sim_board_destroy(idle);
	sim_board_destroy(busy);
}

static void test_connection_lost_when_beacons_stop(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	board->knobs.p_beacon_loss = 1.0;
	sim_test_run(board, &out, "sleep 2");
	assert_int_equal(sim_test_log_count(board, "wlan0: Connection to AP " AP_BSSID " lost."), 1);
	sim_test_run(board, &out, "iw dev wlan0 link");
	assert_string_equal(out.out, "Not connected.\n");
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_forced_bus_hang_freezes_the_board(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3_1, 1,
					 "p_rx_busy=1,p_wedge=1,p_bus_hang=1");
	struct sim_test_output out = { 0 };
	uint64_t lines = sim_board_log_next(board);

	/* 3.3.1 full-sleeps with RX running as soon as wlan0 is up and idle */
	assert_true(sim_board_is_hung(board));
	assert_int_equal(sim_test_run(board, &out, "uname -r"), SIM_TOOL_HUNG);
	assert_int_equal(sim_test_run(board, &out, "sleep 10"), SIM_TOOL_HUNG);
	assert_string_equal(out.out, "");
	assert_int_equal(sim_board_log_next(board), lines);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_injected_hang_until_reboot(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_test_output out = { 0 };

	sim_board_inject_hang(board);
	assert_true(sim_board_is_hung(board));
	assert_int_equal(sim_test_run(board, &out, "dmesg"), SIM_TOOL_HUNG);
	assert_int_equal(sim_board_boot(board, kernel(state, DRIVER_VARIANT_V3_3)), 0);
	assert_false(sim_board_is_hung(board));
	assert_int_equal(sim_test_run(board, &out, "uname -r"), 0);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

static void test_wedged_rx_prints_the_dma_messages(void **state)
{
	/* wedge on every unaborted full sleep, but never hang the host */
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3_1, 1,
					 "p_rx_busy=1,p_wedge=1,p_bus_hang=0");
	struct sim_test_output out = { 0 };
	struct sim_board_stats stats;

	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	sim_test_run(board, &out, "iw dev wlan0 scan");
	assert_true(sim_test_log_count(board, "ath: DMA failed to stop in 10 ms AR_CR=0x00000024 "
					      "AR_DIAG_SW=0x40000020 DMADBG_7=0x00008040") >= 1);
	assert_true(sim_test_log_count(board, "ath: Could not stop RX, we could be confusing the "
					      "DMA engine when we start RX up") >= 1);
	sim_board_stats(board, &stats);
	assert_true(stats.rxdma_stop_failures >= 1);
	assert_false(sim_board_is_hung(board));
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* A MAC that dies under traffic: no beacons, so mac80211 declares the
 * connection lost; the next connect's scan resets the chip, and the reset
 * finds the stuck frames (deauth on VO, pings on BE). */
static void test_dead_mac_loses_the_connection(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_5, 1, "p_txdma_stop_fail=1");
	struct sim_test_output out = { 0 };

	sim_test_run(board, &out, "iw dev wlan0 set power_save off");
	board->card.mac_ok = 0;
	sim_test_run(board, &out, "ping -c 3 -i 0.2 -W 1 127.80.2.1");
	assert_non_null(strstr(out.out, "3 packets transmitted, 0 received"));
	assert_int_equal(sim_test_log_count(board, "wlan0: Connection to AP " AP_BSSID " lost."), 1);
	assert_int_equal(sim_test_run(board, &out, "iw dev wlan0 connect -w rackbisect-ap"), 0);
	assert_string_equal(out.out, "wlan0 (phy #0): connected to " AP_BSSID "\n");
	/* 3.5 names the phy in its messages */
	assert_int_equal(sim_test_log_count(board, "ath: phy0: Failed to stop TX DMA, queues=0x005!"), 1);
	assert_true(board->card.mac_ok);
	assert_int_equal(sim_test_run(board, &out, "ping -q -c 3 -i 0.2 127.80.2.1"), 0);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* The driver's delayed work runs in simulated time; queueing pending work
 * changes nothing (queue_delayed_work), cancelling drops it. */
static void test_driver_work_runs_after_its_delay(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 1, NULL);
	struct sim_timer *poll = &board->card.work[ATH_WORK_TX_COMPLETE_POLL];
	struct sim_test_output out = { 0 };
	uint64_t due;

	card_hw_ops.cancel_work(&board->card, ATH_WORK_TX_COMPLETE_POLL);
	assert_false(poll->pending);
	card_hw_ops.queue_work(&board->card, ATH_WORK_TX_COMPLETE_POLL, 250);
	due = poll->due_us;
	assert_true(due == sim_board_uptime_us(board) + 250000);
	card_hw_ops.queue_work(&board->card, ATH_WORK_TX_COMPLETE_POLL, 5000);
	assert_true(poll->due_us == due);
	sim_test_run(board, &out, "sleep 0.3");
	/* it ran: the poll work queues itself again a second later */
	assert_true(poll->pending && poll->due_us == due + 1000000);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* ---- the interferer (p_interference, interference_ms) ------------------------------------ */

#define AP_ADDRESS "127.80.2.1"
/* One W2 phase of the quick job (tests/integration/lib.sh): 30 s of pings. */
#define W2_PHASE_PINGS 150
#define W2_PHASE_PING "ping -q -i 0.2 -c 150 -W 1 " AP_ADDRESS

/* Replies one ping line did not get (transmitted - received); *sent: transmitted. */
static long ping_lost(struct sim_board *board, struct sim_test_output *out, const char *line,
		      long *sent)
{
	const char *stats;
	long received;

	sim_test_run(board, out, line);
	stats = strstr(out->out, " ping statistics ---\n");
	assert_non_null(stats);
	assert_int_equal(sscanf(strchr(stats, '\n') + 1, "%ld packets transmitted, %ld received",
				sent, &received), 2);
	return *sent - received;
}

/* W2's rule (drivers/workload/w2-associated-traffic.sh): loss over 5 %. */
static int shows_ping_loss(long lost, long sent)
{
	return lost * 100 > sent * 5;
}

static uint64_t spells_begun(const struct sim_board *board)
{
	struct sim_board_stats stats;

	sim_board_stats(board, &stats);
	return stats.interference_spells;
}

/* At 0, the default, there is no interferer: no spell, no lost ping, and
 * not one draw more, so every existing lab and seed runs as it did; the
 * spell length alone changes nothing either. */
static void test_interference_off_by_default(void **state)
{
	char *plain = run_script(state, DRIVER_VARIANT_V3_3, 77);
	char *zero = run_script_with(state, DRIVER_VARIANT_V3_3, 77,
				     "p_interference=0,interference_ms=60000");
	struct sim_test_output out = { 0 };
	uint64_t seed;
	int phase;

	assert_string_equal(plain, zero);
	for (seed = 1; seed <= 10; seed++) {
		struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, seed, NULL);

		sim_test_run(board, &out, "iw dev wlan0 set power_save on");
		for (phase = 0; phase < 4; phase++) {
			long sent, lost = ping_lost(board, &out, W2_PHASE_PING, &sent);

			assert_int_equal(sent, W2_PHASE_PINGS);
			assert_int_equal(lost, 0);
		}
		assert_int_equal(spells_begun(board), 0);
		sim_board_destroy(board);
	}
	sim_test_output_free(&out);
	free(plain);
	free(zero);
}

/* At 1 the air is never clear: every echo reply is lost on the air, and
 * only they. The card's own frames are ACKed (no `tx failed`, so no
 * tx-failed symptom beside ping-loss), beacons keep the link, and a
 * reconnect (management frames) associates: the knob fakes nothing in the
 * kernel, it only takes the pings a real interferer would. */
static void test_interference_always_on_loses_only_replies(void **state)
{
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 3, "p_interference=1");
	struct sim_test_output out = { 0 };
	long sent;

	sim_test_run(board, &out, "iw dev wlan0 set power_save on");
	assert_int_equal(ping_lost(board, &out, "ping -q -i 0.2 -c 50 -W 1 " AP_ADDRESS, &sent), 50);
	assert_int_equal(sent, 50);
	sim_test_run(board, &out, "iw dev wlan0 station dump");
	assert_true(sim_test_field(out.out, "tx packets") >= 50);
	assert_int_equal(sim_test_field(out.out, "tx failed"), 0);
	sim_test_run(board, &out, "iw dev wlan0 link");
	assert_true(matches(out.out, "^Connected to "));
	assert_int_equal(sim_test_log_count(board, "Connection to AP"), 0);
	sim_test_run(board, &out, "iw dev wlan0 disconnect");
	sim_test_run(board, &out, "iw dev wlan0 connect -w rackbisect-ap 2437 " AP_BSSID);
	assert_non_null(strstr(out.out, "connected to " AP_BSSID));
	assert_int_equal(sim_test_log_count(board, "timed out"), 0);
	assert_int_equal(spells_begun(board), 1);
	sim_test_output_free(&out);
	sim_board_destroy(board);
}

/* The same seed replays the same spells: a noisy lab is reproducible too. */
static void test_interference_same_seed_same_spells(void **state)
{
	const char *knobs = "p_interference=0.9,interference_ms=60000";
	char *a = run_script_with(state, DRIVER_VARIANT_V3_3, 79, knobs);
	char *b = run_script_with(state, DRIVER_VARIANT_V3_3, 79, knobs);
	struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 79, knobs);
	struct sim_test_output out = { 0 };

	assert_string_equal(a, b);
	sim_test_run(board, &out, "sleep 600");
	assert_true(spells_begun(board) > 0);
	sim_test_output_free(&out);
	sim_board_destroy(board);
	free(a);
	free(b);
}

/*
 * Spells begin as a Poisson process: at p_interference = 0.3 one begins in
 * 0.3 of the minutes. 1000 minutes on 20 boards: sd 0.0145, so +-0.06 is
 * 4 sd. A knob that did nothing would give 0.
 */
#define RATE_BOARDS 20
#define RATE_MINUTES 50

static void test_interference_spells_begin_at_the_knobs_rate(void **state)
{
	struct sim_test_output out = { 0 };
	unsigned int with_a_spell = 0, b, m;
	double rate;

	for (b = 0; b < RATE_BOARDS; b++) {
		struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 100 + b,
						 "p_interference=0.3");

		for (m = 0; m < RATE_MINUTES; m++) {
			uint64_t before = spells_begun(board);

			sim_test_run(board, &out, "sleep 60");
			with_a_spell += spells_begun(board) > before;
		}
		sim_board_destroy(board);
	}
	rate = (double)with_a_spell / (RATE_BOARDS * RATE_MINUTES);
	print_message("minutes with a spell beginning: %.3f (p_interference 0.3)\n", rate);
	assert_true(rate > 0.24 && rate < 0.36);
	sim_test_output_free(&out);
}

/*
 * What a bisection sees: a good kernel (v3.3) shows W2's ping-loss symptom
 * (over 5 % lost in a 30 s phase of pings every 0.2 s, as the quick job's
 * W2, power save on) when a 30 s spell overlaps the phase by more than
 * 1.5 s (8 pings): when a spell begins in a window of 56.8 s, so in
 * 1 - (1 - p)^(56.8 / 60) = 0.286 of the phases at p = 0.3. 400 phases,
 * each after 30 s of quiet, so their windows do not overlap and the
 * phases are independent: sd 0.023, +-0.09 is 4 sd.
 */
#define PHASE_BOARDS 8
#define PHASES_PER_BOARD 50

static void test_interference_gives_good_kernels_ping_loss(void **state)
{
	double expected = 1.0 - pow(1.0 - 0.3, 56.8 / 60.0), rate;
	struct sim_test_output out = { 0 };
	unsigned int symptoms = 0, touched = 0, b, i;

	for (b = 0; b < PHASE_BOARDS; b++) {
		struct sim_board *board = booted(state, DRIVER_VARIANT_V3_3, 200 + b,
						 "p_interference=0.3,interference_ms=30000");

		sim_test_run(board, &out, "iw dev wlan0 set power_save on");
		for (i = 0; i < PHASES_PER_BOARD; i++) {
			long sent, lost;

			sim_test_run(board, &out, "sleep 30");
			lost = ping_lost(board, &out, W2_PHASE_PING, &sent);
			assert_int_equal(sent, W2_PHASE_PINGS);
			symptoms += shows_ping_loss(lost, sent);
			touched += lost > 0;
		}
		sim_board_destroy(board);
	}
	rate = (double)symptoms / (PHASE_BOARDS * PHASES_PER_BOARD);
	print_message("phases with ping loss over 5 %%: %.3f (expected %.3f); with any loss: %.3f\n",
		      rate, expected, (double)touched / (PHASE_BOARDS * PHASES_PER_BOARD));
	assert_true(fabs(rate - expected) < 0.09);
	sim_test_output_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_knob_defaults),
		cmocka_unit_test(test_knob_set_by_name),
		cmocka_unit_test(test_knob_unknown_name),
		cmocka_unit_test(test_knob_unparsable_value),
		cmocka_unit_test(test_knob_out_of_range),
		cmocka_unit_test(test_knob_names_all_settable),
		cmocka_unit_test(test_chip_names_round_trip),
		cmocka_unit_test(test_chip_unknown_name),
		cmocka_unit_test(test_chip_capabilities),
		cmocka_unit_test(test_rng_same_seed_same_sequence),
		cmocka_unit_test(test_rng_ranges),
		cmocka_unit_test(test_event_queue_ties_keep_push_order),
		cmocka_unit_test(test_event_queue_pops_in_time_order),
		cmocka_unit_test(test_kernel_log_format_and_numbering),
		cmocka_unit_test(test_kernel_log_keeps_the_last_lines),
		cmocka_unit_test(test_power_meter_integrates_exactly),
		cmocka_unit_test(test_power_meter_window_average),
		cmocka_unit_test(test_variant_build_gives_a_kernel),
		cmocka_unit_test(test_variant_build_passes_extra_environment),
		cmocka_unit_test(test_boot_rejects_what_is_not_a_kernel),
		cmocka_unit_test(test_boot_banner_first_then_associated),
		cmocka_unit_test(test_board_off_runs_no_tool),
		cmocka_unit_test(test_reboot_restarts_uptime_and_log),
		cmocka_unit_test(test_unknown_tool_exits_127),
		cmocka_unit_test(test_iw_dev_lists_wlan0),
		cmocka_unit_test(test_iw_link_connected),
		cmocka_unit_test(test_iw_link_not_connected),
		cmocka_unit_test(test_iw_station_dump_fields),
		cmocka_unit_test(test_iw_station_dump_empty_when_disconnected),
		cmocka_unit_test(test_iw_power_save_get_set),
		cmocka_unit_test(test_iw_bad_arguments_print_usage),
		cmocka_unit_test(test_iw_unknown_device),
		cmocka_unit_test(test_iw_disconnect_when_idle_fails),
		cmocka_unit_test(test_iw_connect_wait_reports_connected),
		cmocka_unit_test(test_iw_connect_without_wait_returns_at_once),
		cmocka_unit_test(test_iw_connect_to_wrong_bssid_times_out),
		cmocka_unit_test(test_iw_connect_unknown_ssid),
		cmocka_unit_test(test_iw_connect_when_connected),
		cmocka_unit_test(test_iw_scan_lists_the_ap),
		cmocka_unit_test(test_iw_scan_on_a_down_interface),
		cmocka_unit_test(test_ip_link_down_and_up),
		cmocka_unit_test(test_ip_errors),
		cmocka_unit_test(test_ping_output_parses),
		cmocka_unit_test(test_ping_quiet_prints_only_summary),
		cmocka_unit_test(test_ping_unanswered_host),
		cmocka_unit_test(test_ping_argument_errors),
		cmocka_unit_test(test_ping_unreachable_when_disconnected),
		cmocka_unit_test(test_dmesg_lines_are_stamped),
		cmocka_unit_test(test_dmesg_read_clear),
		cmocka_unit_test(test_sleep_advances_simulated_time),
		cmocka_unit_test(test_uname_variants),
		cmocka_unit_test(test_write_files),
		cmocka_unit_test(test_write_files_leaves_unchanged_files_alone),
		cmocka_unit_test(test_same_seed_same_run),
		cmocka_unit_test(test_same_seed_same_failures),
		cmocka_unit_test(test_different_seeds_differ),
		cmocka_unit_test(test_two_boards_do_not_share_driver_state),
		cmocka_unit_test(test_connection_lost_when_beacons_stop),
		cmocka_unit_test(test_forced_bus_hang_freezes_the_board),
		cmocka_unit_test(test_injected_hang_until_reboot),
		cmocka_unit_test(test_wedged_rx_prints_the_dma_messages),
		cmocka_unit_test(test_dead_mac_loses_the_connection),
		cmocka_unit_test(test_driver_work_runs_after_its_delay),
		cmocka_unit_test(test_interference_off_by_default),
		cmocka_unit_test(test_interference_always_on_loses_only_replies),
		cmocka_unit_test(test_interference_same_seed_same_spells),
		cmocka_unit_test(test_interference_spells_begin_at_the_knobs_rate),
		cmocka_unit_test(test_interference_gives_good_kernels_ping_loss),
	};

	return cmocka_run_group_tests(tests, build_kernels, remove_kernels);
}
