/* The KTAP parser: workload output, the spec's nesting, streaming in chunks, and hostile input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"

/* build/demo/w3-vb02.ktap: W3 on a virtual board booted into 3.3.1-rc1, printed by the demo. Verbatim. */
static const char real_w3_output[] =
	"KTAP version 1\n"
	"1..20\n"
	"# w3-idle-transitions.sh: 20 cycles of disconnect, idle 1-10 s, reconnect (mixed), seed 1\n"
	"# kernel 3.3.1-rc1, interface wlan0 (phy0), access point rackbisect-ap 00:0b:6b:de:ad:01 at 2437 MHz\n"
	"# setup: wlan0 already associated with rackbisect-ap (00:0b:6b:de:ad:01)\n"
	"# power_save: on\n"
	"# cycle 1: scan=no idle=6.5s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=1.530 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [   14.640337] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   14.740337] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 1 cycle 1 same-channel reconnect\n"
	"# cycle 2: scan=no idle=1.1s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=1.500 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [   17.269699] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   17.369699] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 2 cycle 2 same-channel reconnect\n"
	"# cycle 3: scan=yes idle=3.2s\n"
	"# metric reconnect_time=0.840 s\n"
	"ok 3 cycle 3 scan reconnect\n"
	"# cycle 4: scan=yes idle=2.2s\n"
	"# metric reconnect_time=0.840 s\n"
	"ok 4 cycle 4 scan reconnect\n"
	"# cycle 5: scan=yes idle=8.2s\n"
	"# connect attempt 1 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=2.420 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [   34.915409] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   35.015409] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 5 cycle 5 scan reconnect\n"
	"# cycle 6: scan=no idle=2.4s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=1.580 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [   38.870946] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   38.970946] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# dmesg: [   38.970946] ath: DMA failed to stop in 10 ms AR_CR=0x00000024 AR_DIAG_SW=0x40000020 DMADBG_7=0x00008040\n"
	"# dmesg: [   38.970946] ath: Could not stop RX, we could be confusing the DMA engine when we start RX up\n"
	"# failed: auth_timeout tx_dma_stop rx_dma_stop\n"
	"not ok 6 cycle 6 same-channel reconnect\n"
	"# cycle 7: scan=yes idle=4.6s\n"
	"# connect attempt 1 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# connect attempt 2 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=3.950 s\n"
	"# associated after 3 connect attempts\n"
	"# dmesg: [   45.891365] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   45.991365] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# dmesg: [   47.464526] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 7 cycle 7 scan reconnect\n"
	"# cycle 8: scan=yes idle=2.2s\n"
	"# connect attempt 1 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# connect attempt 2 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# connect attempt 3 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=5.460 s\n"
	"# associated after 4 connect attempts\n"
	"# dmesg: [   52.000412] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   52.100412] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# dmesg: [   53.576659] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   53.676659] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# dmesg: [   55.136791] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   55.236791] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 8 cycle 8 scan reconnect\n"
	"# cycle 9: scan=no idle=2s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=1.560 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [   58.660401] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   58.760401] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 9 cycle 9 same-channel reconnect\n"
	"# cycle 10: scan=yes idle=10s\n"
	"# connect attempt 1 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=2.350 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [   71.037537] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# failed: auth_timeout\n"
	"not ok 10 cycle 10 scan reconnect\n"
	"# cycle 11: scan=no idle=3s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# connect attempt 2 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# connect attempt 3 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# connect attempt 4 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=6.130 s\n"
	"# associated after 5 connect attempts\n"
	"# dmesg: [   75.567703] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   75.667703] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# dmesg: [   77.144641] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   77.244641] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# dmesg: [   78.641807] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   78.741807] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# dmesg: [   80.199604] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   80.299604] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 11 cycle 11 same-channel reconnect\n"
	"# cycle 12: scan=no idle=5.6s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=1.540 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [   87.301101] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   87.401101] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 12 cycle 12 same-channel reconnect\n"
	"# cycle 13: scan=no idle=8.6s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# connect attempt 2 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=3.090 s\n"
	"# associated after 3 connect attempts\n"
	"# dmesg: [   97.436720] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   97.536720] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# dmesg: [   98.993617] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [   99.093617] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 13 cycle 13 same-channel reconnect\n"
	"# cycle 14: scan=no idle=6.5s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=1.570 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [  107.026080] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [  107.126080] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 14 cycle 14 same-channel reconnect\n"
	"# cycle 15: scan=no idle=3.7s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=1.560 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [  112.301557] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [  112.401557] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 15 cycle 15 same-channel reconnect\n"
	"# cycle 16: scan=yes idle=6.7s\n"
	"# metric reconnect_time=0.880 s\n"
	"ok 16 cycle 16 scan reconnect\n"
	"# cycle 17: scan=yes idle=5.7s\n"
	"# connect attempt 1 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=2.430 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [  128.015632] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [  128.115632] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 17 cycle 17 scan reconnect\n"
	"# cycle 18: scan=yes idle=5.4s\n"
	"# connect attempt 1 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=2.350 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [  135.773118] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [  135.873118] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 18 cycle 18 scan reconnect\n"
	"# cycle 19: scan=no idle=9.8s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=1.580 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [  147.131741] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [  147.231741] ath: Failed to stop TX DMA, queues=0x001!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 19 cycle 19 same-channel reconnect\n"
	"# cycle 20: scan=yes idle=3.6s\n"
	"# metric reconnect_time=0.830 s\n"
	"ok 20 cycle 20 scan reconnect\n"
	"# metric reconnects_associated=20 count\n"
	"# metric reconnect_time_max=6.130 s\n"
	"# metric reconnect_time_mean=2.200 s\n"
	"# metric failed_not_associated=0 cycles\n"
	"# metric failed_auth_timeout=16 cycles\n"
	"# metric failed_connection_lost=0 cycles\n"
	"# metric failed_tx_dma_stop=15 cycles\n"
	"# metric failed_rx_dma_stop=1 cycles\n"
	"# metric failed_tx_failed=0 cycles\n"
	"# metric failed=16 cycles\n"
	"# metric tx_packets=42 count\n"
	"# metric tx_retries=2 count\n"
	"# metric tx_failed=0 count\n"
	"# metric tx_failed_ratio=0.00 %\n"
	"# metric duration=145.000 s\n"
	"# metric energy=45.653 J\n"
	"# metric power_avg=314.8 mW\n"
	"# metric reset_bb_hang=0 count\n"
	"# metric reset_bb_watchdog=0 count\n"
	"# metric reset_fatal_hw_error=0 count\n"
	"# metric reset_tx_hw_error=0 count\n"
	"# metric reset_tx_path_hang=0 count\n"
	"# metric reset_pll_rx_hang=0 count\n"
;

/* drivers/workload/README.md, "KTAP output": the excerpt as printed there, "..." lines and all. */
static const char readme_excerpt[] =
	"KTAP version 1\n"
	"1..20\n"
	"# w3-idle-transitions.sh: 20 cycles of disconnect, idle 1-10 s, reconnect (mixed), seed 42\n"
	"# kernel 3.3.1-rc1-00042-g1a2b3c4d, interface wlan0 (phy0), access point rackbisect-ap 00:0b:6b:de:ad:01 at 2437 MHz\n"
	"# setup: wlan0 already associated with rackbisect-ap (00:0b:6b:de:ad:01)\n"
	"# power_save: on\n"
	"# cycle 1: scan=yes idle=3.2s\n"
	"# metric reconnect_time=1.050 s\n"
	"ok 1 cycle 1 scan reconnect\n"
	"# cycle 2: scan=no idle=7.4s\n"
	"# connect attempt 1 (same-channel): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=2.750 s\n"
	"# associated after 2 connect attempts\n"
	"# dmesg: [  105.650000] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# dmesg: [  106.750000] ath: Failed to stop TX DMA, queues=0x004!\n"
	"# failed: auth_timeout tx_dma_stop\n"
	"not ok 2 cycle 2 same-channel reconnect\n"
	"...\n"
	"# metric reconnects_associated=20 count\n"
	"# metric reconnect_time_max=2.750 s\n"
	"# metric reconnect_time_mean=1.120 s\n"
	"# metric failed_not_associated=0 cycles\n"
	"# metric failed_auth_timeout=1 cycles\n"
	"...\n"
	"# metric failed=1 cycles\n"
	"# metric tx_packets=0 count\n"
	"...\n"
	"# metric duration=131.200 s\n"
	"# metric energy=12.345 J\n"
	"# metric power_avg=94.1 mW\n"
	"# metric reset_tx_path_hang=0 count\n";

/* A short W3 run in the workloads' format, for the tests that cut it up. */
static const char short_run[] =
	"KTAP version 1\n"
	"1..3\n"
	"# w3-idle-transitions.sh: 3 cycles of disconnect, idle 1-10 s, reconnect (mixed), seed 7\n"
	"# power_save: on\n"
	"# cycle 1: scan=yes idle=3.2s\n"
	"# metric reconnect_time=0.840 s\n"
	"ok 1 cycle 1 scan reconnect\n"
	"# cycle 2: scan=no idle=1.1s\n"
	"# connect attempt 1 (same-channel): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=1.500 s\n"
	"# dmesg: [   17.269699] wlan0: authentication with 00:0b:6b:de:ad:01 timed out\n"
	"# failed: auth_timeout\n"
	"not ok 2 cycle 2 same-channel reconnect\n"
	"# cycle 3: scan=yes idle=8.2s\n"
	"# connect attempt 1 (scan): wlan0 (phy #0): failed to connect to 00:0b:6b:de:ad:01, status: 1: Unspecified failure\n"
	"# metric reconnect_time=2.420 s\n"
	"ok 3 cycle 3 scan reconnect\n"
	"# metric reconnects_associated=3 count\n"
	"# metric failed=1 cycles\n"
	"# metric energy=6.960 J\n";

/* The spec's "Example KTAP output" (ktap.rst), two spaces per level. */
static const char spec_example[] =
	"KTAP version 1\n"
	"1..1\n"
	"  KTAP version 1\n"
	"  1..3\n"
	"    KTAP version 1\n"
	"    1..1\n"
	"    # test_1: initializing test_1\n"
	"    ok 1 test_1\n"
	"  ok 1 example_test_1\n"
	"    KTAP version 1\n"
	"    1..2\n"
	"    ok 1 test_1 # SKIP test_1 skipped\n"
	"    ok 2 test_2\n"
	"  ok 2 example_test_2\n"
	"    KTAP version 1\n"
	"    1..3\n"
	"    ok 1 test_1\n"
	"    # test_2: FAIL\n"
	"    not ok 2 test_2\n"
	"    ok 3 test_3 # SKIP test_3 skipped\n"
	"  not ok 3 example_test_3\n"
	"not ok 1 main_test\n";

/* ---- helpers ------------------------------------------------------------- */

static struct ktap_report *parse_with(const char *text, size_t len, const struct ktap_limits *limits)
{
	struct ktap_report *report = NULL;

	assert_int_equal(ktap_parse(text, len, limits, &report), 0);
	assert_non_null(report);
	return report;
}

static struct ktap_report *parse(const char *text)
{
	return parse_with(text, strlen(text), NULL);
}

/* Feeds text in pieces of the given sizes, cycling through them. */
static struct ktap_report *parse_in_chunks(const char *text, size_t len, const size_t *sizes, size_t size_count,
					   const struct ktap_limits *limits)
{
	struct ktap_parser *parser;
	struct ktap_report *report = NULL;
	size_t offset = 0;

	assert_int_equal(ktap_parser_new(&parser, limits), 0);
	for (size_t i = 0; offset < len; i++) {
		size_t piece = sizes[i % size_count];

		if (piece > len - offset)
			piece = len - offset;
		assert_int_equal(ktap_parser_feed(parser, text + offset, piece), 0);
		offset += piece;
	}
	assert_int_equal(ktap_parser_finish(parser, &report), 0);
	ktap_parser_free(parser);
	return report;
}

static const char *diagnostic(const struct ktap_test *test, size_t index)
{
	assert_true(index < test->diagnostic_count);
	return test->diagnostics[index].text;
}

static bool has_diagnostic(const struct ktap_line *lines, size_t count, const char *text)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(lines[i].text, text) == 0)
			return true;
	return false;
}

static void assert_metric(const struct ktap_metric *metric, double value, const char *unit)
{
	assert_non_null(metric);
	assert_true(metric->value == value);
	assert_string_equal(metric->unit, unit);
}

static void assert_lines_equal(const struct ktap_line *a, size_t a_count,
			       const struct ktap_line *b, size_t b_count)
{
	assert_int_equal(a_count, b_count);
	for (size_t i = 0; i < a_count; i++) {
		assert_int_equal(a[i].number, b[i].number);
		assert_string_equal(a[i].text, b[i].text);
	}
}

static void assert_metrics_equal(const struct ktap_metric *a, size_t a_count,
				 const struct ktap_metric *b, size_t b_count)
{
	assert_int_equal(a_count, b_count);
	for (size_t i = 0; i < a_count; i++) {
		assert_string_equal(a[i].name, b[i].name);
		assert_true(a[i].value == b[i].value);
		assert_string_equal(a[i].unit, b[i].unit);
		assert_int_equal(a[i].line, b[i].line);
	}
}

static void assert_tests_equal(const struct ktap_test *a, size_t a_count,
			       const struct ktap_test *b, size_t b_count)
{
	assert_int_equal(a_count, b_count);
	for (size_t i = 0; i < a_count; i++) {
		assert_int_equal(a[i].number, b[i].number);
		assert_string_equal(a[i].name, b[i].name);
		assert_int_equal(a[i].result, b[i].result);
		assert_int_equal(a[i].directive, b[i].directive);
		assert_string_equal(a[i].reason, b[i].reason);
		assert_int_equal(a[i].line, b[i].line);
		assert_int_equal(a[i].has_subtest_plan, b[i].has_subtest_plan);
		assert_int_equal(a[i].subtest_plan, b[i].subtest_plan);
		assert_int_equal(a[i].subtest_results, b[i].subtest_results);
		assert_int_equal(a[i].subtest_plan_matched, b[i].subtest_plan_matched);
		assert_lines_equal(a[i].diagnostics, a[i].diagnostic_count,
				   b[i].diagnostics, b[i].diagnostic_count);
		assert_metrics_equal(a[i].metrics, a[i].metric_count, b[i].metrics, b[i].metric_count);
		assert_tests_equal(a[i].subtests, a[i].subtest_count, b[i].subtests, b[i].subtest_count);
	}
}

static void assert_reports_equal(const struct ktap_report *a, const struct ktap_report *b)
{
	assert_int_equal(a->version_kind, b->version_kind);
	assert_int_equal(a->version, b->version);
	assert_int_equal(a->has_plan, b->has_plan);
	assert_int_equal(a->plan, b->plan);
	assert_int_equal(a->results, b->results);
	assert_int_equal(a->plan_matched, b->plan_matched);
	assert_int_equal(a->bailed_out, b->bailed_out);
	assert_int_equal(a->ended_early, b->ended_early);
	assert_int_equal(a->last_line_unterminated, b->last_line_unterminated);
	assert_int_equal(a->line_count, b->line_count);
	assert_int_equal(a->misnumbered_results, b->misnumbered_results);
	assert_int_equal(a->subtest_plan_mismatches, b->subtest_plan_mismatches);
	assert_memory_equal(&a->dropped, &b->dropped, sizeof(a->dropped));
	assert_tests_equal(a->tests, a->test_count, b->tests, b->test_count);
	assert_lines_equal(a->diagnostics, a->diagnostic_count, b->diagnostics, b->diagnostic_count);
	assert_metrics_equal(a->metrics, a->metric_count, b->metrics, b->metric_count);
	assert_lines_equal(a->unknown_lines, a->unknown_line_count,
			   b->unknown_lines, b->unknown_line_count);
}

/* ---- workload output ----------------------------------------------------- */

static void test_real_w3_output_gives_every_result(void **state)
{
	struct ktap_report *report = parse(real_w3_output);
	struct ktap_counts counts;

	(void)state;
	assert_true(ktap_report_finished_cleanly(report));
	assert_int_equal(report->version_kind, KTAP_VERSION_KTAP);
	assert_int_equal(report->version, 1);
	assert_int_equal(report->plan, 20);
	assert_int_equal(report->results, 20);
	assert_int_equal(report->test_count, 20);
	assert_int_equal(report->misnumbered_results, 0);
	assert_int_equal(report->unknown_line_count, 0);
	ktap_report_count(report, &counts);
	assert_int_equal(counts.passed, 4);
	assert_int_equal(counts.failed, 16);
	assert_int_equal(counts.skipped + counts.incomplete + counts.expected_failures, 0);
	for (unsigned number = 1; number <= 20; number++)
		assert_int_equal(ktap_report_find_test(report, number)->number, number);
	assert_string_equal(report->tests[0].name, "cycle 1 same-channel reconnect");
	assert_int_equal(report->tests[0].result, KTAP_RESULT_NOT_OK);
	assert_string_equal(report->tests[2].name, "cycle 3 scan reconnect");
	assert_int_equal(ktap_test_outcome(&report->tests[2]), KTAP_OUTCOME_PASSED);
	ktap_report_free(report);
}

static void test_failure_keeps_its_kernel_log_quotes(void **state)
{
	struct ktap_report *report = parse(real_w3_output);
	const struct ktap_test *cycle6 = ktap_report_find_test(report, 6);

	(void)state;
	assert_int_equal(cycle6->result, KTAP_RESULT_NOT_OK);
	assert_int_equal(cycle6->diagnostic_count, 8);
	assert_string_equal(diagnostic(cycle6, 0), "cycle 6: scan=no idle=2.4s");
	assert_string_equal(diagnostic(cycle6, 2), "associated after 2 connect attempts");
	assert_string_equal(diagnostic(cycle6, 3),
			    "dmesg: [   38.870946] wlan0: authentication with 00:0b:6b:de:ad:01 timed out");
	assert_string_equal(diagnostic(cycle6, 6),
			    "dmesg: [   38.970946] ath: Could not stop RX, we could be confusing the DMA engine when we start RX up");
	assert_string_equal(diagnostic(cycle6, 7), "failed: auth_timeout tx_dma_stop rx_dma_stop");
	assert_int_equal(cycle6->diagnostics[7].number, 45);
	/* the header after the plan is test 1's by KTAP's rule: lines go with the next result */
	assert_string_equal(diagnostic(&report->tests[0], 0),
			    "w3-idle-transitions.sh: 20 cycles of disconnect, idle 1-10 s, reconnect (mixed), seed 1");
	assert_string_equal(diagnostic(&report->tests[0], 4), "cycle 1: scan=no idle=6.5s");
	ktap_report_free(report);
}

static void test_metrics_go_to_their_test_and_to_the_run(void **state)
{
	struct ktap_report *report = parse(real_w3_output);

	(void)state;
	for (size_t i = 0; i < report->test_count; i++) {
		assert_int_equal(report->tests[i].metric_count, 1);
		assert_string_equal(report->tests[i].metrics[0].name, "reconnect_time");
		assert_null(ktap_report_find_metric(report, "reconnect_time"));
	}
	assert_metric(ktap_test_find_metric(&report->tests[0], "reconnect_time"), 1.530, "s");
	assert_metric(ktap_test_find_metric(&report->tests[10], "reconnect_time"), 6.130, "s");
	assert_int_equal(report->metric_count, 23);
	assert_metric(ktap_report_find_metric(report, "failed"), 16, "cycles");
	assert_metric(ktap_report_find_metric(report, "energy"), 45.653, "J");
	assert_metric(ktap_report_find_metric(report, "tx_failed_ratio"), 0, "%");
	assert_metric(ktap_report_find_metric(report, "reset_pll_rx_hang"), 0, "count");
	assert_null(ktap_report_find_metric(report, "nonexistent"));
	assert_null(ktap_test_find_metric(&report->tests[0], "energy"));
	assert_int_equal(report->diagnostic_count, 0);
	ktap_report_free(report);
}

/* The README's excerpt has "..." for elided lines and stops at 2 of 20 results. */
static void test_readme_excerpt_is_an_output_that_ended_early(void **state)
{
	struct ktap_report *report = parse(readme_excerpt);
	const struct ktap_test *cycle2 = ktap_report_find_test(report, 2);

	(void)state;
	assert_int_equal(report->unknown_line_count, 3);
	assert_string_equal(report->unknown_lines[0].text, "...");
	assert_int_equal(report->unknown_lines[0].number, 18);
	assert_int_equal(report->results, 2);
	assert_false(report->plan_matched);
	assert_true(report->ended_early);
	assert_false(ktap_report_finished_cleanly(report));
	assert_int_equal(cycle2->result, KTAP_RESULT_NOT_OK);
	assert_true(has_diagnostic(cycle2->diagnostics, cycle2->diagnostic_count,
				   "dmesg: [  106.750000] ath: Failed to stop TX DMA, queues=0x004!"));
	assert_metric(ktap_test_find_metric(cycle2, "reconnect_time"), 2.750, "s");
	/* short of its plan, what followed the last result was the next test's */
	assert_int_equal(report->test_count, 3);
	assert_int_equal(report->tests[2].result, KTAP_RESULT_MISSING);
	assert_int_equal(report->tests[2].number, 3);
	assert_metric(ktap_test_find_metric(&report->tests[2], "energy"), 12.345, "J");
	assert_int_equal(report->metric_count, 0);
	ktap_report_free(report);
}

static void test_setup_failure_skips_the_other_cycles(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..3\n"
		"# setup: wlan0 could not associate with rackbisect-ap\n"
		"# setup: a scan does not see rackbisect-ap (access point down or out of range?)\n"
		"# failed: not_associated\n"
		"not ok 1 cycle 1 scan reconnect\n"
		"ok 2 cycle 2 same-channel reconnect # SKIP not associated at start\n"
		"ok 3 cycle 3 scan reconnect # SKIP not associated at start\n"
		"# metric failed=1 cycles\n");
	struct ktap_counts counts;

	(void)state;
	assert_true(ktap_report_finished_cleanly(report));
	ktap_report_count(report, &counts);
	assert_int_equal(counts.failed, 1);
	assert_int_equal(counts.skipped, 2);
	assert_int_equal(counts.passed, 0);
	assert_string_equal(report->tests[1].name, "cycle 2 same-channel reconnect");
	assert_int_equal(report->tests[1].directive, KTAP_DIRECTIVE_SKIP);
	assert_string_equal(report->tests[1].reason, "not associated at start");
	assert_string_equal(diagnostic(&report->tests[0], 1),
			    "setup: a scan does not see rackbisect-ap (access point down or out of range?)");
	assert_metric(ktap_report_find_metric(report, "failed"), 1, "cycles");
	ktap_report_free(report);
}

/* A workload that cannot run says so before any KTAP: the run's diagnostic, no plan. */
static void test_lines_before_the_plan_belong_to_the_run(void **state)
{
	struct ktap_report *report = parse("# w3-idle-transitions.sh cannot run: iw\n");

	(void)state;
	assert_int_equal(report->version_kind, KTAP_VERSION_NONE);
	assert_false(report->has_plan);
	assert_false(report->ended_early);
	assert_false(ktap_report_finished_cleanly(report));
	assert_int_equal(report->diagnostic_count, 1);
	assert_string_equal(report->diagnostics[0].text, "w3-idle-transitions.sh cannot run: iw");
	ktap_report_free(report);

	report = parse("# before\nKTAP version 1\n# between\n# metric boot=1 s\n1..1\n# during\nok 1 a\n");
	assert_int_equal(report->diagnostic_count, 2);
	assert_string_equal(report->diagnostics[1].text, "between");
	assert_metric(ktap_report_find_metric(report, "boot"), 1, "s");
	assert_int_equal(report->tests[0].diagnostic_count, 1);
	assert_string_equal(diagnostic(&report->tests[0], 0), "during");
	ktap_report_free(report);
}

/* ---- streaming ------------------------------------------------------------- */

static void test_every_split_point_gives_the_same_report(void **state)
{
	static const char text[] =
		"noise before\r\n"
		"TAP version 14\r\n"
		"1..2\n"
		"# header\n"
		"  KTAP version 1\n"
		"  1..2\n"
		"  # metric sub_time=0.5 s\n"
		"  ok 1 - first # SKIP no card\n"
		"  not ok 2 second # TODO known\n"
		"# parent note\n"
		"ok 1 parent\n"
		"garbage \x01\xff\n"
		"# metric reconnect_time=1.050 s\n"
		"not ok 2 cycle 2 # TIMEOUT 30 seconds\n"
		"# metric energy=12.345 J\n"
		"# trailer";
	size_t len = sizeof(text) - 1;
	struct ktap_report *whole = parse_with(text, len, NULL);

	(void)state;
	assert_int_equal(whole->test_count, 2);
	assert_int_equal(whole->tests[0].subtest_count, 2);
	for (size_t split = 0; split <= len; split++) {
		size_t sizes[2] = { split, len - split };
		struct ktap_report *pieces;

		if (split == 0)
			continue;
		pieces = parse_in_chunks(text, len, sizes, 2, NULL);
		assert_reports_equal(whole, pieces);
		ktap_report_free(pieces);
	}
	ktap_report_free(whole);
}

static void test_real_output_byte_by_byte_and_in_odd_chunks(void **state)
{
	static const size_t one[] = { 1 };
	static const size_t odd[] = { 7, 1, 64, 3, 250, 13, 1, 1, 4096, 2 };
	size_t len = strlen(real_w3_output);
	struct ktap_report *whole = parse(real_w3_output);
	struct ktap_report *pieces;

	(void)state;
	pieces = parse_in_chunks(real_w3_output, len, one, 1, NULL);
	assert_reports_equal(whole, pieces);
	ktap_report_free(pieces);
	pieces = parse_in_chunks(real_w3_output, len, odd, sizeof(odd) / sizeof(odd[0]), NULL);
	assert_reports_equal(whole, pieces);
	ktap_report_free(pieces);
	ktap_report_free(whole);
}

static void test_progress_follows_the_stream(void **state)
{
	struct ktap_parser *parser;
	struct ktap_progress progress;
	struct ktap_report *report;
	const char *cut = strstr(short_run, "# cycle 3");

	(void)state;
	assert_int_equal(ktap_parser_new(&parser, NULL), 0);
	ktap_parser_progress(parser, &progress);
	assert_int_equal(progress.lines, 0);
	assert_false(progress.has_plan);
	assert_int_equal(ktap_parser_feed(parser, short_run, (size_t)(cut - short_run)), 0);
	ktap_parser_progress(parser, &progress);
	assert_true(progress.has_plan);
	assert_int_equal(progress.plan, 3);
	assert_int_equal(progress.results, 2);
	assert_int_equal(progress.lines, 13);
	assert_int_equal(ktap_parser_finish(parser, &report), 0);
	assert_true(report->ended_early);
	ktap_report_free(report);
	assert_int_equal(ktap_parser_feed(parser, "ok 3 late\n", 10), -EINVAL);
	assert_int_equal(ktap_parser_finish(parser, &report), -EINVAL);
	assert_null(report);
	ktap_parser_free(parser);
}

static void test_bad_arguments_are_refused(void **state)
{
	struct ktap_parser *parser;

	(void)state;
	assert_int_equal(ktap_parser_new(NULL, NULL), -EINVAL);
	assert_int_equal(ktap_parser_new(&parser, NULL), 0);
	assert_int_equal(ktap_parser_feed(parser, NULL, 3), -EINVAL);
	assert_int_equal(ktap_parser_feed(parser, NULL, 0), 0);
	assert_int_equal(ktap_parser_feed(NULL, "x", 1), -EINVAL);
	assert_int_equal(ktap_parser_finish(parser, NULL), -EINVAL);
	assert_int_equal(ktap_parse("x", 1, NULL, NULL), -EINVAL);
	ktap_parser_free(parser);
	ktap_parser_free(NULL);
	ktap_report_free(NULL);
}

/* ---- nesting ------------------------------------------------------------------ */

static void test_spec_example_nests_three_levels(void **state)
{
	struct ktap_report *report = parse(spec_example);
	const struct ktap_test *main_test, *example1, *example2, *example3;
	struct ktap_counts counts;

	(void)state;
	assert_true(ktap_report_finished_cleanly(report));
	assert_int_equal(report->test_count, 1);
	main_test = &report->tests[0];
	assert_string_equal(main_test->name, "main_test");
	assert_int_equal(main_test->result, KTAP_RESULT_NOT_OK);
	assert_int_equal(main_test->subtest_count, 3);
	assert_true(main_test->subtest_plan_matched);
	example1 = &main_test->subtests[0];
	example2 = &main_test->subtests[1];
	example3 = &main_test->subtests[2];
	assert_string_equal(example1->name, "example_test_1");
	assert_int_equal(example1->subtest_count, 1);
	assert_string_equal(diagnostic(&example1->subtests[0], 0), "test_1: initializing test_1");
	assert_int_equal(example2->subtests[0].directive, KTAP_DIRECTIVE_SKIP);
	assert_string_equal(example2->subtests[0].reason, "test_1 skipped");
	assert_string_equal(example3->name, "example_test_3");
	assert_int_equal(example3->result, KTAP_RESULT_NOT_OK);
	assert_int_equal(example3->subtest_count, 3);
	assert_string_equal(example3->subtests[1].name, "test_2");
	assert_string_equal(diagnostic(&example3->subtests[1], 0), "test_2: FAIL");
	assert_int_equal(report->subtest_plan_mismatches, 0);
	assert_int_equal(report->misnumbered_results, 0);
	ktap_report_count(report, &counts);
	assert_int_equal(counts.passed, 3);
	assert_int_equal(counts.failed, 1);
	assert_int_equal(counts.skipped, 2);
	ktap_report_free(report);
}

/* Older kunit: TAP version 14, four spaces, "# Subtest:" instead of a nested version line. */
static void test_kunit_tap14_subtests_without_version_lines(void **state)
{
	struct ktap_report *report = parse(
		"TAP version 14\n"
		"1..2\n"
		"    # Subtest: example\n"
		"    1..2\n"
		"    ok 1 - example_simple_test\n"
		"    ok 2 - example_skip_test # SKIP this test should be skipped\n"
		"ok 1 - example\n"
		"    # Subtest: other\n"
		"    1..1\n"
		"    not ok 1 - other_test\n"
		"not ok 2 - other\n");

	(void)state;
	assert_int_equal(report->version_kind, KTAP_VERSION_TAP);
	assert_int_equal(report->version, 14);
	assert_true(ktap_report_finished_cleanly(report));
	assert_int_equal(report->test_count, 2);
	assert_string_equal(report->tests[0].name, "example");
	assert_int_equal(report->tests[0].subtest_count, 2);
	assert_string_equal(report->tests[0].subtests[0].name, "example_simple_test");
	assert_int_equal(ktap_test_outcome(&report->tests[0].subtests[1]), KTAP_OUTCOME_SKIPPED);
	assert_string_equal(report->tests[1].name, "other");
	assert_int_equal(report->tests[1].subtest_count, 1);
	/* the second subtest list's header is its parent's diagnostic */
	assert_string_equal(diagnostic(&report->tests[1], 0), "Subtest: other");
	ktap_report_free(report);
}

/* Current kunit: a nested version line, then "# Subtest:", then the plan. */
static void test_lines_between_nested_version_and_plan_describe_the_parent(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..1\n"
		"    KTAP version 1\n"
		"    # Subtest: example\n"
		"    # module: example\n"
		"    1..1\n"
		"    ok 1 example_simple_test\n"
		"ok 1 example\n");

	(void)state;
	assert_int_equal(report->tests[0].diagnostic_count, 2);
	assert_string_equal(diagnostic(&report->tests[0], 0), "Subtest: example");
	assert_int_equal(report->tests[0].subtests[0].diagnostic_count, 0);
	ktap_report_free(report);
}

/* Nested output printed without indentation: the subtest plan says where it ends. */
static void test_unindented_nesting_ends_with_its_plan(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..2\n"
		"KTAP version 1\n"
		"1..2\n"
		"ok 1 a\n"
		"ok 2 b\n"
		"ok 1 parent\n"
		"ok 2 sibling\n");

	(void)state;
	assert_true(ktap_report_finished_cleanly(report));
	assert_int_equal(report->test_count, 2);
	assert_string_equal(report->tests[0].name, "parent");
	assert_int_equal(report->tests[0].subtest_count, 2);
	assert_int_equal(report->tests[1].subtest_count, 0);
	ktap_report_free(report);
}

/* Diagnostics around a subtest list, and metrics inside it, go where they were printed. */
static void test_nested_blocks_keep_their_lines(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..1\n"
		"# before the subtests\n"
		"  KTAP version 1\n"
		"  1..1\n"
		"  # metric inner=2 s\n"
		"  ok 1 inner\n"
		"  # metric outer=3 s\n"
		"# summary\n"
		"ok 1 outer\n"
		"# metric run=4 s\n");
	const struct ktap_test *outer = &report->tests[0];

	(void)state;
	assert_int_equal(outer->diagnostic_count, 2);
	assert_string_equal(diagnostic(outer, 0), "before the subtests");
	assert_string_equal(diagnostic(outer, 1), "summary");
	assert_metric(ktap_test_find_metric(outer, "outer"), 3, "s");
	assert_null(ktap_test_find_metric(outer, "inner"));
	assert_metric(ktap_test_find_metric(&outer->subtests[0], "inner"), 2, "s");
	assert_metric(ktap_report_find_metric(report, "run"), 4, "s");
	assert_int_equal(report->metric_count, 1);
	ktap_report_free(report);
}

/* Subtests with neither a version line nor a plan: their indentation alone nests them. */
static void test_indented_results_without_a_plan_are_subtests(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..1\n"
		"  ok 1 a\n"
		"  not ok 2 b\n"
		"not ok 1 parent\n");

	(void)state;
	assert_true(ktap_report_finished_cleanly(report));
	assert_int_equal(report->test_count, 1);
	assert_int_equal(report->tests[0].subtest_count, 2);
	assert_false(report->tests[0].has_subtest_plan);
	assert_string_equal(report->tests[0].subtests[1].name, "b");
	ktap_report_free(report);
}

/* Leaves are counted, kunit's way; a parent failing while its subtests pass is not lost. */
static void test_counts_never_hide_a_parent_failure(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..2\n"
		"  KTAP version 1\n"
		"  1..2\n"
		"  ok 1 a\n"
		"  ok 2 b\n"
		"not ok 1 parent failed on its own\n"
		"  KTAP version 1\n"
		"  1..1\n"
		"  not ok 1 c\n"
		"not ok 2 parent of a failure\n");
	struct ktap_counts counts;

	(void)state;
	ktap_report_count(report, &counts);
	assert_int_equal(counts.passed, 2);
	assert_int_equal(counts.failed, 2);
	memset(&counts, 0, sizeof(counts));
	ktap_test_count(&report->tests[1], &counts);
	assert_int_equal(counts.failed, 1);
	ktap_report_free(report);
}

static void test_missing_parent_result_is_reported(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..2\n"
		"  KTAP version 1\n"
		"  1..1\n"
		"    KTAP version 1\n"
		"    1..1\n"
		"    ok 1 deep\n"
		"ok 1 top\n"
		"ok 2 next\n");
	const struct ktap_test *top = &report->tests[0];
	struct ktap_counts counts;

	(void)state;
	/* "  ok 1 middle" never came: a missing test holds "deep" */
	assert_int_equal(top->subtest_count, 1);
	assert_int_equal(top->subtests[0].result, KTAP_RESULT_MISSING);
	assert_string_equal(top->subtests[0].subtests[0].name, "deep");
	assert_int_equal(report->subtest_plan_mismatches, 1);
	assert_true(report->plan_matched);
	assert_false(report->ended_early);
	ktap_report_count(report, &counts);
	assert_int_equal(counts.passed, 2);
	assert_int_equal(counts.incomplete, 1);
	ktap_report_free(report);
}

static void test_nesting_is_bounded(void **state)
{
	struct ktap_limits limits = { .depth = 4 };
	char text[64 * 1024];
	size_t len = 0;
	struct ktap_report *report;

	(void)state;
	len += (size_t)sprintf(text + len, "KTAP version 1\n1..1\n");
	for (int level = 1; level <= 500; level++)
		len += (size_t)sprintf(text + len, "%*sKTAP version 1\n%*s1..1\n",
				       level % 100, "", level % 100, "");
	report = parse_with(text, len, &limits);
	assert_true(report->dropped.nesting > 0);
	assert_true(report->ended_early);
	ktap_report_free(report);
	report = parse_with(text, len, NULL);
	assert_true(report->dropped.nesting > 0);
	ktap_report_free(report);
}

/* ---- directives ------------------------------------------------------------- */

static void test_directives_and_their_text(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..9\n"
		"ok 1 test # SKIP necessary dependency unavailable\n"
		"not ok 2 flaky # TODO not fixed yet\n"
		"not ok 3 known # XFAIL\n"
		"not ok 4 slow # TIMEOUT 30 seconds\n"
		"not ok 5 broke # ERROR could not open /dev/x\n"
		"ok 6 check return code # rcode=0\n"
		"ok 7 - issue \\#42 fixed # skipped: no hardware\n"
		"ok 8\n"
		"not ok 9 unexpectedly fine # XFAIL\n");
	const struct ktap_test *t = report->tests;
	struct ktap_counts counts;

	(void)state;
	assert_int_equal(t[0].directive, KTAP_DIRECTIVE_SKIP);
	assert_string_equal(t[0].name, "test");
	assert_string_equal(t[0].reason, "necessary dependency unavailable");
	assert_int_equal(ktap_test_outcome(&t[0]), KTAP_OUTCOME_SKIPPED);
	assert_int_equal(t[1].directive, KTAP_DIRECTIVE_TODO);
	assert_string_equal(t[1].reason, "not fixed yet");
	assert_int_equal(ktap_test_outcome(&t[1]), KTAP_OUTCOME_EXPECTED_FAILURE);
	assert_int_equal(t[2].directive, KTAP_DIRECTIVE_XFAIL);
	assert_string_equal(t[2].reason, "");
	assert_int_equal(t[3].directive, KTAP_DIRECTIVE_TIMEOUT);
	assert_string_equal(t[3].reason, "30 seconds");
	assert_int_equal(ktap_test_outcome(&t[3]), KTAP_OUTCOME_FAILED);
	assert_int_equal(t[4].directive, KTAP_DIRECTIVE_ERROR);
	assert_int_equal(t[5].directive, KTAP_DIRECTIVE_NONE);
	assert_string_equal(t[5].name, "check return code");
	assert_string_equal(t[5].reason, "rcode=0");
	assert_int_equal(ktap_test_outcome(&t[5]), KTAP_OUTCOME_PASSED);
	assert_string_equal(t[6].name, "issue #42 fixed");
	assert_int_equal(t[6].directive, KTAP_DIRECTIVE_SKIP);
	assert_string_equal(t[6].reason, "no hardware");
	assert_string_equal(t[7].name, "");
	ktap_report_count(report, &counts);
	assert_int_equal(counts.passed, 2);
	assert_int_equal(counts.failed, 2);
	assert_int_equal(counts.skipped, 2);
	assert_int_equal(counts.expected_failures, 3);
	assert_string_equal(ktap_directive_name(t[3].directive), "TIMEOUT");
	assert_string_equal(ktap_outcome_name(ktap_test_outcome(&t[1])), "expected failure");
	ktap_report_free(report);
}

/* ---- how an output ends ------------------------------------------------------ */

static void test_bail_out_stops_the_structure(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..3\n"
		"ok 1 first\n"
		"# no card found\n"
		"Bail out! wlan0 missing\n"
		"ok 2 after the bail out\n"
		"# metric duration=1.5 s\n");

	(void)state;
	assert_true(report->bailed_out);
	assert_string_equal(report->bail_out_reason, "wlan0 missing");
	assert_false(report->ended_early);
	assert_false(report->plan_matched);
	assert_false(ktap_report_finished_cleanly(report));
	assert_int_equal(report->test_count, 1);
	assert_int_equal(report->results, 1);
	assert_string_equal(report->diagnostics[0].text, "no card found");
	assert_int_equal(report->unknown_line_count, 1);
	assert_string_equal(report->unknown_lines[0].text, "ok 2 after the bail out");
	assert_metric(ktap_report_find_metric(report, "duration"), 1.5, "s");
	ktap_report_free(report);
}

static void test_bail_out_inside_subtests_closes_them(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..1\n"
		"  KTAP version 1\n"
		"  1..2\n"
		"  ok 1 a\n"
		"  Bail out!\n");

	(void)state;
	assert_true(report->bailed_out);
	assert_string_equal(report->bail_out_reason, "");
	assert_int_equal(report->test_count, 1);
	assert_int_equal(report->tests[0].result, KTAP_RESULT_MISSING);
	assert_int_equal(report->tests[0].subtest_count, 1);
	assert_false(report->ended_early);
	ktap_report_free(report);
}

/* A hung board: output stops in cycle 3. The coordinator must not take it for a clean run. */
static void test_hung_board_output_ended_early(void **state)
{
	const char *cut = strstr(short_run, "ok 3 cycle 3");
	struct ktap_report *report = parse_with(short_run, (size_t)(cut - short_run), NULL);
	const struct ktap_test *cycle3;
	struct ktap_counts counts;

	(void)state;
	assert_true(report->ended_early);
	assert_false(report->plan_matched);
	assert_false(report->last_line_unterminated);
	assert_false(ktap_report_finished_cleanly(report));
	assert_int_equal(report->results, 2);
	assert_int_equal(report->test_count, 3);
	cycle3 = &report->tests[2];
	assert_int_equal(cycle3->result, KTAP_RESULT_MISSING);
	assert_int_equal(cycle3->number, 3);
	assert_int_equal(cycle3->line, 0);
	assert_string_equal(diagnostic(cycle3, 0), "cycle 3: scan=yes idle=8.2s");
	assert_metric(ktap_test_find_metric(cycle3, "reconnect_time"), 2.420, "s");
	ktap_report_count(report, &counts);
	assert_int_equal(counts.incomplete, 1);
	assert_int_equal(counts.passed, 1);
	assert_int_equal(counts.failed, 1);
	ktap_report_free(report);

	/* the whole output is a clean run with the same first tests */
	report = parse(short_run);
	assert_true(ktap_report_finished_cleanly(report));
	assert_false(report->ended_early);
	assert_int_equal(report->test_count, 3);
	assert_int_equal(report->tests[2].result, KTAP_RESULT_OK);
	assert_metric(ktap_report_find_metric(report, "energy"), 6.960, "J");
	ktap_report_free(report);
}

static void test_output_cut_mid_line(void **state)
{
	const char *cut = strstr(short_run, "ok 3 cycle 3") + 4;
	struct ktap_report *report = parse_with(short_run, (size_t)(cut - short_run), NULL);

	(void)state;
	assert_true(report->last_line_unterminated);
	assert_false(ktap_report_finished_cleanly(report));
	/* "ok 3" was cut before its name; still a result, so the plan is met */
	assert_int_equal(report->results, 3);
	ktap_report_free(report);

	report = parse_with(short_run, strlen(short_run) - 1, NULL);
	assert_true(report->last_line_unterminated);
	assert_true(report->plan_matched);
	assert_false(ktap_report_finished_cleanly(report));
	ktap_report_free(report);
}

static void test_hang_inside_subtests(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..2\n"
		"  KTAP version 1\n"
		"  1..3\n"
		"  ok 1 a\n"
		"  # b: starting\n");
	const struct ktap_test *parent = &report->tests[0];
	struct ktap_counts counts;

	(void)state;
	assert_true(report->ended_early);
	assert_int_equal(report->test_count, 1);
	assert_int_equal(parent->result, KTAP_RESULT_MISSING);
	assert_int_equal(parent->subtest_count, 2);
	assert_int_equal(parent->subtests[1].result, KTAP_RESULT_MISSING);
	assert_int_equal(parent->subtests[1].number, 2);
	assert_string_equal(diagnostic(&parent->subtests[1], 0), "b: starting");
	ktap_report_count(report, &counts);
	assert_int_equal(counts.passed, 1);
	assert_int_equal(counts.incomplete, 1);
	ktap_report_free(report);
}

static void test_missing_plan(void **state)
{
	struct ktap_report *report = parse("KTAP version 1\nok 1 a\nnot ok 2 b\n# after\n");

	(void)state;
	assert_false(report->has_plan);
	assert_false(report->plan_matched);
	assert_false(report->ended_early);
	assert_false(ktap_report_finished_cleanly(report));
	assert_int_equal(report->results, 2);
	assert_int_equal(report->test_count, 2);
	assert_string_equal(report->diagnostics[0].text, "after");
	ktap_report_free(report);
}

static void test_plan_at_the_end_is_accepted(void **state)
{
	struct ktap_report *report = parse("TAP version 13\nok 1 a\nok 2 b\n1..2\n");

	(void)state;
	assert_true(report->has_plan);
	assert_true(ktap_report_finished_cleanly(report));
	ktap_report_free(report);
}

static void test_plan_mismatch(void **state)
{
	struct ktap_report *report = parse("KTAP version 1\n1..2\nok 1 a\nok 2 b\nok 3 c\n");

	(void)state;
	assert_false(report->plan_matched);
	assert_false(report->ended_early);
	assert_int_equal(report->results, 3);
	assert_false(ktap_report_finished_cleanly(report));
	ktap_report_free(report);

	report = parse("KTAP version 1\n1..3\nok 1 a\nok 3 c\nok 2 b\n1..3\n");
	assert_true(report->plan_matched);
	assert_int_equal(report->misnumbered_results, 2);
	assert_int_equal(report->unknown_line_count, 1); /* the second plan */
	ktap_report_free(report);
}

/* Two outputs in one stream: the second is not a subtest list of a missing result. */
static void test_second_output_is_not_nested_in_the_first(void **state)
{
	struct ktap_report *report = parse("KTAP version 1\n1..1\nok 1 a\nKTAP version 1\n1..1\nok 1 b\n");

	(void)state;
	assert_false(report->ended_early);
	assert_false(report->plan_matched);
	assert_int_equal(report->test_count, 2);
	assert_int_equal(report->unknown_line_count, 2);
	ktap_report_free(report);
}

/* ---- what a line may hold ---------------------------------------------------- */

static void test_metric_lines(void **state)
{
	struct ktap_report *report = parse(
		"KTAP version 1\n"
		"1..1\n"
		"# metric plain=42 count\n"
		"#metric tight=-0.5 s\n"
		"# metric exponent=1.5e3 us\n"
		"# metric no_unit=7\n"
		"# metric spaced=1 s  \n"
		"# metric bad\n"
		"# metric text=abc s\n"
		"# metric nan=nan s\n"
		"# metric comma=1,5 s\n"
		"# metric huge=1e999 s\n"
		"# metric =1 s\n"
		"# metric x = 1 s\n"
		"ok 1 t\n");
	const struct ktap_test *t = &report->tests[0];

	(void)state;
	assert_int_equal(t->metric_count, 5);
	assert_metric(ktap_test_find_metric(t, "plain"), 42, "count");
	assert_metric(ktap_test_find_metric(t, "tight"), -0.5, "s");
	assert_metric(ktap_test_find_metric(t, "exponent"), 1500, "us");
	assert_metric(ktap_test_find_metric(t, "no_unit"), 7, "");
	assert_metric(ktap_test_find_metric(t, "spaced"), 1, "s");
	assert_int_equal(t->metrics[0].line, 3);
	/* lines that only look like metrics stay diagnostics */
	assert_int_equal(t->diagnostic_count, 7);
	assert_string_equal(diagnostic(t, 0), "metric bad");
	assert_string_equal(diagnostic(t, 3), "metric comma=1,5 s");
	ktap_report_free(report);
}

static void test_unknown_lines_are_kept(void **state)
{
	static const char text[] =
		"[   12.345678] wlan0: associated\n"
		"KTAP version 1\n"
		"1..1\n"
		"okay 1 not a result\n"
		"ok one\n"
		"not ok\n"
		"KTAP version x\n"
		"\n"
		"   \t  \n"
		"bytes \xc3\x28 \xff\xfe and a NUL \0 here\n"
		"ok 1 t\n";
	struct ktap_report *report = parse_with(text, sizeof(text) - 1, NULL);

	(void)state;
	assert_true(ktap_report_finished_cleanly(report));
	assert_int_equal(report->unknown_line_count, 6);
	assert_string_equal(report->unknown_lines[0].text, "[   12.345678] wlan0: associated");
	assert_int_equal(report->unknown_lines[0].number, 1);
	assert_string_equal(report->unknown_lines[1].text, "okay 1 not a result");
	assert_string_equal(report->unknown_lines[5].text, "bytes \xc3\x28 \xff\xfe and a NUL ? here");
	assert_int_equal(report->unknown_lines[5].number, 10);
	assert_int_equal(report->line_count, 11);
	ktap_report_free(report);
}

static char *crlf_copy(const char *text)
{
	char *copy = malloc(strlen(text) * 2 + 1);
	char *to = copy;

	assert_non_null(copy);
	for (const char *from = text; *from; from++) {
		if (*from == '\n')
			*to++ = '\r';
		*to++ = *from;
	}
	*to = '\0';
	return copy;
}

static void test_crlf_line_ends_parse_like_lf(void **state)
{
	char *crlf = crlf_copy(real_w3_output);
	struct ktap_report *lf_report = parse(real_w3_output);
	struct ktap_report *crlf_report = parse(crlf);

	(void)state;
	assert_reports_equal(lf_report, crlf_report);
	assert_true(ktap_report_finished_cleanly(crlf_report));
	ktap_report_free(lf_report);
	ktap_report_free(crlf_report);
	free(crlf);
}

static void test_overlong_lines_are_cut(void **state)
{
	size_t long_length = 200 * 1024;
	size_t len = 0;
	char *text = malloc(long_length + 256);
	struct ktap_report *report;

	(void)state;
	assert_non_null(text);
	len += (size_t)sprintf(text, "KTAP version 1\n1..1\n# dmesg: ");
	memset(text + len, 'A', long_length);
	len += long_length;
	len += (size_t)sprintf(text + len, "\nok 1 after the long line\n");
	report = parse_with(text, len, NULL);
	assert_true(ktap_report_finished_cleanly(report));
	assert_int_equal(report->dropped.overlong_lines, 1);
	assert_int_equal(report->dropped.line_bytes, strlen("# dmesg: ") + long_length - 65536);
	assert_int_equal(strlen(diagnostic(&report->tests[0], 0)), 65536 - 2);
	assert_string_equal(report->tests[0].name, "after the long line");
	ktap_report_free(report);
	free(text);
}

static void test_many_tests_stay_bounded(void **state)
{
	struct ktap_limits limits = { .tests = 100, .diagnostics = 5, .metrics = 3 };
	size_t count = 20000;
	char *text = malloc(count * 64);
	size_t len = 0;
	struct ktap_report *report;

	(void)state;
	assert_non_null(text);
	len += (size_t)sprintf(text, "KTAP version 1\n1..%zu\n", count);
	for (size_t i = 1; i <= count; i++)
		len += (size_t)sprintf(text + len, "# d\n# metric m=%zu s\nok %zu t\n", i, i);
	for (int i = 0; i < 10; i++)
		len += (size_t)sprintf(text + len, "# tail %d\n# metric r%d=1 s\n", i, i);
	report = parse_with(text, len, &limits);
	assert_int_equal(report->test_count, 100);
	assert_int_equal(report->dropped.tests, count - 100);
	assert_int_equal(report->results, count);
	assert_true(report->plan_matched);
	assert_int_equal(report->diagnostic_count, 5);
	assert_int_equal(report->metric_count, 3);
	assert_int_equal(report->dropped.diagnostics, 5);
	assert_int_equal(report->dropped.metrics, 7);
	assert_int_equal(report->tests[99].number, 100);
	ktap_report_free(report);
	free(text);
}

static void test_diagnostic_floods_and_memory_stay_bounded(void **state)
{
	struct ktap_limits limits = { .diagnostics = 50, .unknown_lines = 10, .memory = 64 * 1024 };
	size_t len = 0;
	char *text = malloc(1 << 20);
	struct ktap_report *report;

	(void)state;
	assert_non_null(text);
	len += (size_t)sprintf(text, "KTAP version 1\n1..2\n");
	for (int i = 0; i < 5000; i++)
		len += (size_t)sprintf(text + len, "# dmesg: flood %d\nnoise %d\n", i, i);
	len += (size_t)sprintf(text + len, "not ok 1 flooded\n");
	for (int i = 0; i < 2000; i++)
		len += (size_t)sprintf(text + len, "# %0100d\n", i);
	len += (size_t)sprintf(text + len, "ok 2 second\n");
	report = parse_with(text, len, &limits);
	assert_int_equal(report->tests[0].diagnostic_count, 50);
	assert_int_equal(report->tests[1].diagnostic_count, 50);
	assert_int_equal(report->dropped.diagnostics, 4950 + 1950);
	assert_int_equal(report->unknown_line_count, 10);
	assert_int_equal(report->dropped.unknown_lines, 4990);
	assert_false(report->dropped.memory_limit_hit);
	assert_true(report->plan_matched);
	ktap_report_free(report);

	/* a budget too small for the second test's lines still keeps the test */
	limits.memory = 8 * 1024;
	report = parse_with(text, len, &limits);
	assert_true(report->dropped.memory_limit_hit);
	assert_int_equal(report->test_count, 2);
	assert_true(report->tests[1].diagnostic_count < 50);
	assert_string_equal(report->tests[1].name, "second");
	assert_true(report->plan_matched);
	ktap_report_free(report);
	free(text);
}

/* Deterministic noise: every byte value, and KTAP's own words in bad orders. */
static uint32_t next_random(uint32_t *seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return *seed >> 8;
}

static void test_random_input_never_breaks_the_parser(void **state)
{
	static const char *const words[] = {
		"KTAP version 1\n", "TAP version 13\n", "1..3\n", "1..0\n", "ok 1 a\n", "not ok 2 b # SKIP\n",
		"ok 3 # TODO\n", "# metric m=1 s\n", "# d\n", "Bail out!\n", "  ", "    ", "\t", "\r\n", "\n",
		"#", "ok ", "99999999999 ", "\\#", "\0", "1..", "metric ", "=", "\xff",
	};
	struct ktap_limits limits = { .line_bytes = 40, .tests = 50, .diagnostics = 8, .depth = 5 };
	uint32_t seed = 12345;
	char text[2048];

	(void)state;
	for (int round = 0; round < 3000; round++) {
		size_t len = 0;
		struct ktap_counts counts;
		struct ktap_report *report;
		bool words_only = round % 2 == 0;

		while (len < sizeof(text) - 32 && next_random(&seed) % 200 != 0) {
			if (words_only) {
				const char *word = words[next_random(&seed) % (sizeof(words) / sizeof(words[0]))];
				size_t word_length = word[0] ? strlen(word) : 1;

				memcpy(text + len, word, word_length);
				len += word_length;
			} else {
				text[len++] = (char)(next_random(&seed) & 0xff);
			}
		}
		report = parse_with(text, len, round % 3 ? &limits : NULL);
		ktap_report_count(report, &counts);
		if (round % 3)
			assert_true(report->test_count <= limits.tests);
		if (round % 10 == 0) {
			size_t sizes[] = { 1 + next_random(&seed) % 40, 1 + next_random(&seed) % 40 };
			struct ktap_report *pieces = parse_in_chunks(text, len, sizes, 2,
									    round % 3 ? &limits : NULL);

			assert_reports_equal(report, pieces);
			ktap_report_free(pieces);
		}
		ktap_report_free(report);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_w3_output_gives_every_result),
		cmocka_unit_test(test_failure_keeps_its_kernel_log_quotes),
		cmocka_unit_test(test_metrics_go_to_their_test_and_to_the_run),
		cmocka_unit_test(test_readme_excerpt_is_an_output_that_ended_early),
		cmocka_unit_test(test_setup_failure_skips_the_other_cycles),
		cmocka_unit_test(test_lines_before_the_plan_belong_to_the_run),
		cmocka_unit_test(test_every_split_point_gives_the_same_report),
		cmocka_unit_test(test_real_output_byte_by_byte_and_in_odd_chunks),
		cmocka_unit_test(test_progress_follows_the_stream),
		cmocka_unit_test(test_bad_arguments_are_refused),
		cmocka_unit_test(test_spec_example_nests_three_levels),
		cmocka_unit_test(test_kunit_tap14_subtests_without_version_lines),
		cmocka_unit_test(test_lines_between_nested_version_and_plan_describe_the_parent),
		cmocka_unit_test(test_unindented_nesting_ends_with_its_plan),
		cmocka_unit_test(test_nested_blocks_keep_their_lines),
		cmocka_unit_test(test_indented_results_without_a_plan_are_subtests),
		cmocka_unit_test(test_counts_never_hide_a_parent_failure),
		cmocka_unit_test(test_missing_parent_result_is_reported),
		cmocka_unit_test(test_nesting_is_bounded),
		cmocka_unit_test(test_directives_and_their_text),
		cmocka_unit_test(test_bail_out_stops_the_structure),
		cmocka_unit_test(test_bail_out_inside_subtests_closes_them),
		cmocka_unit_test(test_hung_board_output_ended_early),
		cmocka_unit_test(test_output_cut_mid_line),
		cmocka_unit_test(test_hang_inside_subtests),
		cmocka_unit_test(test_missing_plan),
		cmocka_unit_test(test_plan_at_the_end_is_accepted),
		cmocka_unit_test(test_plan_mismatch),
		cmocka_unit_test(test_second_output_is_not_nested_in_the_first),
		cmocka_unit_test(test_metric_lines),
		cmocka_unit_test(test_unknown_lines_are_kept),
		cmocka_unit_test(test_crlf_line_ends_parse_like_lf),
		cmocka_unit_test(test_overlong_lines_are_cut),
		cmocka_unit_test(test_many_tests_stay_bounded),
		cmocka_unit_test(test_diagnostic_floods_and_memory_stay_bounded),
		cmocka_unit_test(test_random_input_never_breaks_the_parser),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
