/*
 * board.c - a board's life (create, boot, power off), its event loop in
 * simulated time, and the calls into the booted driver.
 */
#include "virtual/sim/board.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SSID "rackbisect-ap"
#define DEFAULT_BSSID "00:0b:6b:de:ad:01"
#define DEFAULT_FREQ 2437
#define DEFAULT_AP_IP "127.80.2.1"

/* Boot timeline: PCI probe of the card, then the network comes up and a
 * network manager connects, retrying a failed connect a few times. */
#define PROBE_AT_US 1500000
#define INTERFACE_UP_AT_US 4000000
#define BOOT_CONNECT_ATTEMPTS 3
#define BOOT_CONNECT_TIMEOUT_US 30000000
#define BOOT_RETRY_PAUSE_US 1000000

/* ---- services the modules share ------------------------------------------- */

void board_schedule(struct sim_board *board, uint64_t delay_us, enum sim_event_kind kind,
		    uint32_t generation, uint64_t arg)
{
	if (board->hung)
		return;
	if (event_queue_push(&board->events, board->now_us + delay_us, kind, generation, arg) < 0)
		snprintf(board->error, sizeof(board->error), "out of memory for events");
}

void board_timer_arm(struct sim_board *board, struct sim_timer *timer, uint64_t delay_us,
		     enum sim_event_kind kind, uint64_t arg)
{
	timer->generation++;
	timer->pending = 1;
	timer->due_us = board->now_us + delay_us;
	board_schedule(board, delay_us, kind, timer->generation, arg);
}

int board_timer_fired(struct sim_timer *timer, uint32_t generation)
{
	if (!timer->pending || timer->generation != generation)
		return 0;
	timer->pending = 0;
	return 1;
}

void board_log(struct sim_board *board, const char *format, ...)
{
	char text[512];
	va_list args;

	if (board->hung)
		return;
	va_start(args, format);
	vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	kernel_log_append(&board->log, board->now_us, text);
}

void board_hang(struct sim_board *board)
{
	board->hung = 1;
}

void board_update_power(struct sim_board *board)
{
	power_meter_set_power(&board->meter, board->now_us,
			      card_power_uw(&board->card, board->knobs.aspm_l1));
}

/* ---- calls into the driver -------------------------------------------------- */

static int driver_reachable(const struct sim_board *board)
{
	return board->on && !board->hung && board->kernel.softc;
}

int board_driver_start(struct sim_board *board, int freq)
{
	if (!driver_reachable(board))
		return -ENODEV;
	return board->kernel.driver->start(board->kernel.softc, freq);
}

void board_driver_stop(struct sim_board *board)
{
	if (driver_reachable(board))
		board->kernel.driver->stop(board->kernel.softc);
}

int board_driver_config(struct sim_board *board, unsigned int changed,
			const struct ieee80211_conf *conf)
{
	if (!driver_reachable(board))
		return -ENODEV;
	return board->kernel.driver->config(board->kernel.softc, changed, conf);
}

void board_driver_tx(struct sim_board *board, int qnum, unsigned long frame,
		     enum ath_frame_kind kind)
{
	if (driver_reachable(board))
		board->kernel.driver->tx(board->kernel.softc, qnum, frame, kind);
}

void board_driver_tx_tasklet(struct sim_board *board, int qnum, unsigned long frame, int acked)
{
	if (driver_reachable(board))
		board->kernel.driver->tx_tasklet(board->kernel.softc, qnum, frame, acked);
}

void board_driver_tim_timer(struct sim_board *board)
{
	if (driver_reachable(board))
		board->kernel.driver->tim_timer(board->kernel.softc);
}

void board_driver_rx_beacon(struct sim_board *board, int cab_pending)
{
	if (driver_reachable(board))
		board->kernel.driver->rx_beacon(board->kernel.softc, cab_pending);
}

void board_driver_rx_cab_done(struct sim_board *board)
{
	if (driver_reachable(board))
		board->kernel.driver->rx_cab_done(board->kernel.softc);
}

void board_driver_run_work(struct sim_board *board, enum ath_work work)
{
	if (driver_reachable(board))
		board->kernel.driver->run_work(board->kernel.softc, work);
}

/* ---- the event loop ----------------------------------------------------------- */

static void dispatch(struct sim_board *board, const struct sim_event *event)
{
	switch ((enum sim_event_kind)event->kind) {
	case SIM_EVENT_BEACON:
		ap_on_beacon(board);
		break;
	case SIM_EVENT_TIM_TIMER:
		card_on_tim_timer(board);
		break;
	case SIM_EVENT_CAB_DONE:
		card_on_cab_done(board);
		break;
	case SIM_EVENT_TX_ATTEMPT_END:
		card_on_tx_attempt_end(board, event->generation);
		break;
	case SIM_EVENT_TX_STATUS:
		station_on_tx_status(board, (uint32_t)event->arg);
		break;
	case SIM_EVENT_DRIVER_WORK:
		card_on_work_due(board, (enum ath_work)event->arg, event->generation);
		break;
	case SIM_EVENT_AP_DELIVERY:
		ap_on_delivery(board, (uint32_t)event->arg, event->generation);
		break;
	case SIM_EVENT_STATION_SME:
		station_on_sme_timer(board, event->generation);
		break;
	case SIM_EVENT_STATION_DYNAMIC_PS:
		station_on_dynamic_ps_timer(board, event->generation);
		break;
	case SIM_EVENT_STATION_KEEPALIVE:
		station_on_keepalive_timer(board, event->generation);
		break;
	case SIM_EVENT_INTERFERENCE:
		interference_on_spell(board);
		break;
	}
}

int board_run(struct sim_board *board, uint64_t until_us,
	      int (*done)(struct sim_board *board, void *arg), void *arg)
{
	struct sim_event event;

	for (;;) {
		if (board->hung)
			return -EDEADLK;
		if (done && done(board, arg))
			return 1;
		if (event_queue_next_due(&board->events) > until_us) {
			if (until_us > board->now_us)
				board->now_us = until_us;
			return 0;
		}
		event_queue_pop(&board->events, &event);
		if (event.due_us > board->now_us)
			board->now_us = event.due_us;
		board->stats.events++;
		dispatch(board, &event);
	}
}

/* ---- life cycle --------------------------------------------------------------- */

static uint64_t fnv1a(const char *text, uint64_t hash)
{
	while (*text) {
		hash ^= (unsigned char)*text++;
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

/* An Atheros OUI and bytes derived from the board's name (or seed). */
static void choose_mac_address(struct sim_board *board)
{
	uint64_t hash = fnv1a(board->name, 0xcbf29ce484222325ULL ^ board->seed);

	board->mac_address[0] = 0x00;
	board->mac_address[1] = 0x03;
	board->mac_address[2] = 0x7f;
	board->mac_address[3] = (unsigned char)(hash >> 16);
	board->mac_address[4] = (unsigned char)(hash >> 8);
	board->mac_address[5] = (unsigned char)hash;
}

static int copy_config(struct sim_board *board, const struct sim_board_config *config)
{
	struct sim_access_point probe_ap;

	board->chip = sim_chip_info(config->chip);
	if (!board->chip)
		return -EINVAL;
	board->chip_id = config->chip;
	board->knobs = config->knobs;
	board->seed = config->seed;
	snprintf(board->name, sizeof(board->name), "%s",
		 config->name && *config->name ? config->name : "rackbisect-board");
	snprintf(board->ap_ssid, sizeof(board->ap_ssid), "%s",
		 config->ap_ssid ? config->ap_ssid : DEFAULT_SSID);
	snprintf(board->ap_bssid, sizeof(board->ap_bssid), "%s",
		 config->ap_bssid ? config->ap_bssid : DEFAULT_BSSID);
	board->ap_freq = config->ap_freq ? config->ap_freq : DEFAULT_FREQ;
	snprintf(board->ap_ip, sizeof(board->ap_ip), "%s",
		 config->ap_ip ? config->ap_ip : DEFAULT_AP_IP);
	if (config->ap_ssid && strlen(config->ap_ssid) > 32)
		return -EINVAL;
	if (board->knobs.idle_gap_min_ms > board->knobs.idle_gap_max_ms)
		return -EINVAL;
	return ap_init(&probe_ap, board->ap_ssid, board->ap_bssid, board->ap_freq, board->ap_ip);
}

struct sim_board *sim_board_create(const struct sim_board_config *config)
{
	struct sim_board *board;

	if (!config) {
		errno = EINVAL;
		return NULL;
	}
	board = calloc(1, sizeof(*board));
	if (!board)
		return NULL;
	if (copy_config(board, config) < 0) {
		free(board);
		errno = EINVAL;
		return NULL;
	}
	sim_rng_seed(&board->rng, board->seed);
	interference_init(&board->interference, board->seed);
	event_queue_init(&board->events);
	kernel_log_init(&board->log);
	model_kernel_init(&board->kernel);
	choose_mac_address(board);
	station_init(&board->station);
	ap_init(&board->ap, board->ap_ssid, board->ap_bssid, board->ap_freq, board->ap_ip);
	card_init(&board->card, board, board->chip);
	return board;
}

void sim_board_destroy(struct sim_board *board)
{
	if (!board)
		return;
	sim_board_power_off(board);
	event_queue_free(&board->events);
	kernel_log_reset(&board->log);
	free(board);
}

const char *sim_board_error(const struct sim_board *board)
{
	return board->error;
}

void sim_board_power_off(struct sim_board *board)
{
	if (board->kernel.softc && !board->hung)
		board->kernel.driver->remove(board->kernel.softc);
	model_kernel_unload(&board->kernel);
	event_queue_clear(&board->events);
	board->on = 0;
}

int sim_board_is_on(const struct sim_board *board)
{
	return board->on;
}

int sim_board_is_hung(const struct sim_board *board)
{
	return board->on && board->hung;
}

void sim_board_inject_hang(struct sim_board *board)
{
	if (board->on)
		board_hang(board);
}

const char *sim_board_release(const struct sim_board *board)
{
	return board->on ? board->kernel.release : "";
}

const char *sim_board_banner(const struct sim_board *board)
{
	return board->on ? board->kernel.banner : "";
}

uint64_t sim_board_uptime_us(const struct sim_board *board)
{
	return board->now_us;
}

uint64_t sim_board_log_next(const struct sim_board *board)
{
	return board->log.next;
}

const char *sim_board_log_line(const struct sim_board *board, uint64_t number)
{
	return kernel_log_line(&board->log, number);
}

void sim_board_stats(const struct sim_board *board, struct sim_board_stats *stats)
{
	*stats = board->stats;
	stats->energy_uj = power_meter_energy_pj(&board->meter, board->now_us) / 1000000;
}

/* ---- boot --------------------------------------------------------------------- */

static void reset_machine(struct sim_board *board)
{
	board->now_us = 0;
	board->hung = 0;
	board->stats = (struct sim_board_stats){ 0 };
	event_queue_clear(&board->events);
	kernel_log_reset(&board->log);
	frame_pool_init(&board->frames);
	card_init(&board->card, board, board->chip);
	ap_init(&board->ap, board->ap_ssid, board->ap_bssid, board->ap_freq, board->ap_ip);
	station_init(&board->station);
	power_meter_reset(&board->meter, 0, card_power_uw(&board->card, board->knobs.aspm_l1));
}

static void log_boot_banner(struct sim_board *board)
{
	board_log(board, "%s", board->kernel.banner);
	board_log(board, "Command line: BOOT_IMAGE=/boot/vmlinuz-%s root=/dev/sda1 ro "
		  "console=ttyS0,115200", board->kernel.release);
}

static void probe_card(struct sim_board *board)
{
	board_log(board, "ath9k 0000:02:00.0: PCI INT A -> GSI 17 (level, low) -> IRQ 17");
	board_log(board, "ieee80211 phy0: Selected rate control algorithm 'ath9k_rate_control'");
	board->kernel.softc = board->kernel.driver->probe(&board->card, &card_hw_ops);
	board_log(board, "Registered led device: ath9k-phy0");
	board_log(board, "ieee80211 phy0: Atheros %s Rev:2 mem=0xffffc90000340000, irq=17",
		  board->chip->marketing_name);
}

static int connect_settled(struct sim_board *board, void *arg)
{
	(void)arg;
	return board->station.outcome != STATION_CONNECT_PENDING;
}

/* What a network manager does at boot: connect with a scan, retry a bit. */
static void bring_network_up(struct sim_board *board)
{
	struct station_connect_request request = { .freq = 0 };
	int attempt;

	snprintf(request.ssid, sizeof(request.ssid), "%s", board->ap.ssid);
	station_interface_up(board);
	for (attempt = 0; attempt < BOOT_CONNECT_ATTEMPTS && !board->hung; attempt++) {
		if (station_connect(board, &request) < 0)
			return;
		if (board_run(board, board->now_us + BOOT_CONNECT_TIMEOUT_US, connect_settled,
			      NULL) < 0)
			return;
		if (board->station.outcome == STATION_CONNECT_SUCCEEDED)
			return;
		board_run(board, board->now_us + BOOT_RETRY_PAUSE_US, NULL, NULL);
	}
}

int sim_board_boot(struct sim_board *board, const char *kernel_path)
{
	int r;

	sim_board_power_off(board);
	board->error[0] = '\0';
	r = model_kernel_load(&board->kernel, kernel_path, board->error, sizeof(board->error));
	if (r < 0)
		return r;
	reset_machine(board);
	board->on = 1;
	log_boot_banner(board);
	ap_start(board);
	interference_start(board);
	board_run(board, PROBE_AT_US + sim_rng_between(&board->rng, 0, 300000), NULL, NULL);
	probe_card(board);
	board_run(board, INTERFACE_UP_AT_US + sim_rng_between(&board->rng, 0, 500000), NULL, NULL);
	bring_network_up(board);
	return 0;
}
