/*
 * card.c - the simulated AR9xxx chip behind struct ath_hw_ops.
 *
 * Hardware semantics (ath9k-model.md §4, made precise in the brief):
 *   - setpower(AWAKE) from FULL_SLEEP without a reset since: if that full
 *     sleep lost the MAC context (always on RTC-reset chips, p_ctx_loss on
 *     the others), the MAC stays dead with p_wake_dead until a full reset.
 *   - entering FULL_SLEEP freezes queued frames; with RX DMA still running
 *     (no setrxabort(1)+stopdmarecv since the last startrecv) the DMA wedges
 *     with p_rx_busy*p_wedge, and then the host bus hangs with p_bus_hang.
 *   - an attempt succeeds only with a live MAC and the chip AWAKE when its
 *     ACK is due (1-p_ack_loss); retry_limit failures complete it as failed.
 *     The MAC finishes a frame exchange it began awake before it dozes, so
 *     an attempt started AWAKE still hears its ACK if the driver lets the
 *     chip network-sleep meanwhile; one started asleep does not.
 *   - a reset drains (frames stuck while the MAC was dead make the abort fail
 *     with p_txdma_stop_fail), revives the MAC and retunes the channel.
 */
#include "virtual/sim/board.h"

#include <string.h>

#define TX_ATTEMPT_MIN_US 300	/* airtime + backoff + ACK timeout */
#define TX_ATTEMPT_MAX_US 1000
#define CAB_BURST_US 1000	/* multicast after a DTIM beacon */
/* A chip woken for a beacon is awake from its TIM timer until the beacon is
 * in: that window, in µs. Autosleep chips spend it without the driver. */
#define BEACON_WAKE_WINDOW_US (SIM_TIM_TIMER_LEAD_US + 400)

/* Calibrated (tests/unit/test_sim_fidelity.c checks it): with the ~3 % of
 * awake time that beacons, lost beacons, CAB and keepalives cost an
 * associated PS-on idle card, these give the measured 116 / 365 mW. */
#define NETWORK_SLEEP_ASPM_UW 81000
#define NETWORK_SLEEP_NO_ASPM_UW 338000

/* What stopdmarecv reports for a wedged RX DMA: AR_CR, AR_DIAG_SW, DMADBG_7. */
static const unsigned int wedged_rx_registers[3] = { 0x00000024, 0x40000020, 0x00008040 };

uint64_t card_network_sleep_uw(int aspm_l1)
{
	return aspm_l1 ? NETWORK_SLEEP_ASPM_UW : NETWORK_SLEEP_NO_ASPM_UW;
}

uint64_t card_power_uw(const struct ath_hw *card, int aspm_l1)
{
	uint64_t base;

	switch (card->power) {
	case ATH9K_PM_FULL_SLEEP:
		base = CARD_POWER_FULL_SLEEP_UW;
		break;
	case ATH9K_PM_NETWORK_SLEEP:
		base = card_network_sleep_uw(aspm_l1);
		break;
	default:
		base = CARD_POWER_AWAKE_UW;
		break;
	}
	return base + (card->transmitting ? CARD_POWER_TX_EXTRA_UW : 0);
}

void card_init(struct ath_hw *card, struct sim_board *board, const struct sim_chip_info *chip)
{
	memset(card, 0, sizeof(*card));
	card->board = board;
	card->chip = chip;
	/* out of PCI reset the chip is awake, untuned and not receiving */
	card->power = ATH9K_PM_AWAKE;
	card->mac_ok = 1;
}

/* ---- TX queues --------------------------------------------------------- */

static struct sim_frame *queue_frame(struct sim_board *board, const struct card_tx_queue *q,
				     unsigned int position)
{
	return frame_pool_frame(&board->frames, q->frames[(q->head + position) % CARD_QUEUE_DEPTH]);
}

static int queue_has_stuck_frames(struct sim_board *board, const struct card_tx_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->count; i++)
		if (queue_frame(board, q, i)->stuck)
			return 1;
	return 0;
}

static void mark_queued_frames_stuck(struct ath_hw *card)
{
	int qnum;
	unsigned int i;

	for (qnum = 0; qnum < ATH9K_NUM_TX_QUEUES; qnum++)
		for (i = 0; i < card->queues[qnum].count; i++)
			queue_frame(card->board, &card->queues[qnum], i)->stuck = 1;
}

static uint16_t dequeue(struct card_tx_queue *q)
{
	uint16_t index = q->frames[q->head];

	q->head = (q->head + 1) % CARD_QUEUE_DEPTH;
	q->count--;
	return index;
}

/* mac80211 learns the status later, from an event: never inside a driver call. */
static void report_failed_later(struct sim_board *board, uint16_t index)
{
	frame_pool_frame(&board->frames, index)->acked = 0;
	board_schedule(board, 0, SIM_EVENT_TX_STATUS, 0, index);
}

static void drain_queue(struct ath_hw *card, struct card_tx_queue *q)
{
	while (q->count) {
		q->drained++;
		report_failed_later(card->board, dequeue(q));
	}
	q->stop_failed = 0;
}

/* ---- the transmitter --------------------------------------------------- */

static void stop_transmitter(struct ath_hw *card)
{
	/* the attempt on air is abandoned; its frame stays at the queue head */
	card->tx_generation++;
	if (card->transmitting) {
		card->transmitting = 0;
		board_update_power(card->board);
	}
}

static int transmitter_may_run(const struct ath_hw *card)
{
	return card->mac_ok && card->power != ATH9K_PM_FULL_SLEEP && !card->board->hung;
}

static void start_next_attempt(struct ath_hw *card)
{
	struct sim_board *board = card->board;
	int qnum;

	if (card->transmitting || !transmitter_may_run(card))
		return;
	/* the lowest queue number is the highest access category */
	for (qnum = 0; qnum < ATH9K_NUM_TX_QUEUES; qnum++)
		if (card->queues[qnum].count)
			break;
	if (qnum == ATH9K_NUM_TX_QUEUES)
		return;
	card->transmitting = 1;
	card->tx_queue = qnum;
	card->tx_started_awake = card->power == ATH9K_PM_AWAKE;
	card->queues[qnum].attempts++;
	board_update_power(board);
	board_schedule(board, sim_rng_between(&board->rng, TX_ATTEMPT_MIN_US, TX_ATTEMPT_MAX_US),
		       SIM_EVENT_TX_ATTEMPT_END, card->tx_generation, 0);
}

static void complete_head_frame(struct ath_hw *card, int qnum, int acked)
{
	struct sim_board *board = card->board;
	struct card_tx_queue *q = &card->queues[qnum];
	uint16_t index = dequeue(q);
	struct sim_frame *frame = frame_pool_frame(&board->frames, index);

	frame->acked = acked;
	if (acked)
		q->completed++;
	else
		q->xretries++;
	q->bytes += frame->bytes;
	card->counters.irq_tx++;
	card->counters.irq_total++;
	board_driver_tx_tasklet(board, qnum, (unsigned long)index + 1, acked);
	station_on_tx_status(board, index);
}

/* The frame went out: does the AP hear it, and do we hear its ACK? */
static int attempt_outcome(struct ath_hw *card, struct sim_frame *frame)
{
	struct sim_board *board = card->board;
	int awake = card->power == ATH9K_PM_AWAKE || card->tx_started_awake;
	int on_ap_channel = card->freq == board->ap.freq;
	int through;

	/* a chip that dozes when the ACK is due has its receiver (and, for
	 * the model, its transmission) off: the attempt is simply lost */
	if (!awake)
		return 0;
	through = !sim_rng_chance(&board->rng, board->knobs.p_ack_loss);
	if (through && on_ap_channel)
		ap_hear_frame(board, frame);
	if (frame->broadcast)
		return 1;
	return through && on_ap_channel;
}

void card_on_tx_attempt_end(struct sim_board *board, uint32_t generation)
{
	struct ath_hw *card = &board->card;
	int qnum = card->tx_queue;
	struct card_tx_queue *q = &card->queues[qnum];
	struct sim_frame *frame;
	int acked;

	if (generation != card->tx_generation || !card->transmitting)
		return;
	card->transmitting = 0;
	board_update_power(board);
	if (!transmitter_may_run(card) || !q->count)
		return;
	frame = queue_frame(board, q, 0);
	frame->attempts++;
	acked = attempt_outcome(card, frame);
	if (acked || frame->attempts >= board->knobs.retry_limit)
		complete_head_frame(card, qnum, acked);
	start_next_attempt(card);
}

/* ---- power ------------------------------------------------------------- */

static void maybe_wedge_rx(struct ath_hw *card)
{
	struct sim_board *board = card->board;

	if (!sim_rng_chance(&board->rng, board->knobs.p_rx_busy))
		return;
	if (!sim_rng_chance(&board->rng, board->knobs.p_wedge))
		return;
	card->rx_wedged = 1;
	if (sim_rng_chance(&board->rng, board->knobs.p_bus_hang))
		board_hang(board);
}

static void enter_full_sleep(struct ath_hw *card)
{
	struct sim_board *board = card->board;

	card->power = ATH9K_PM_FULL_SLEEP;
	card->chip_fullsleep = 1;
	board->stats.full_sleep_entries++;
	card->context_lost = card->chip->rtc_reset_in_full_sleep ||
			     sim_rng_chance(&board->rng, board->knobs.p_ctx_loss);
	stop_transmitter(card);
	if (card->rx_dma_active)
		maybe_wedge_rx(card);
}

static void wake_from_full_sleep(struct ath_hw *card)
{
	struct sim_board *board = card->board;

	/* "registers are accessible, but rx/tx typically fails" */
	if (card->context_lost && card->mac_ok &&
	    sim_rng_chance(&board->rng, board->knobs.p_wake_dead)) {
		card->mac_ok = 0;
		board->stats.wake_dead++;
		mark_queued_frames_stuck(card);
	}
	card->context_lost = 0;
}

static void hw_setpower(struct ath_hw *card, enum ath9k_power_mode mode)
{
	enum ath9k_power_mode from = card->power;

	if (card->board->hung || mode == from || mode == ATH9K_PM_UNDEFINED)
		return;
	if (mode == ATH9K_PM_FULL_SLEEP) {
		enter_full_sleep(card);
	} else {
		card->power = mode;
		if (from == ATH9K_PM_FULL_SLEEP)
			wake_from_full_sleep(card);
	}
	board_update_power(card->board);
	start_next_attempt(card);
}

/* ---- the ops table ------------------------------------------------------ */

static unsigned int hw_caps(struct ath_hw *card)
{
	return card->chip->autosleep ? ATH9K_HW_CAP_AUTOSLEEP : 0;
}

static enum ath9k_power_mode hw_power_mode(struct ath_hw *card)
{
	return card->power;
}

static int hw_chip_fullsleep(struct ath_hw *card)
{
	return card->chip_fullsleep;
}

static void hw_setrxabort(struct ath_hw *card, int set)
{
	card->rx_abort = !!set;
}

static int hw_stopdmarecv(struct ath_hw *card, unsigned int regs[3])
{
	if (card->rx_wedged) {
		memcpy(regs, wedged_rx_registers, sizeof(wedged_rx_registers));
		card->board->stats.rxdma_stop_failures++;
		return 0;
	}
	card->rx_dma_active = 0;
	return 1;
}

static void hw_startrecv(struct ath_hw *card)
{
	card->rx_dma_active = 1;
	card->rx_abort = 0;
}

static void hw_abort_tx_dma(struct ath_hw *card)
{
	struct sim_board *board = card->board;
	int qnum, any_failed = 0;

	stop_transmitter(card);
	for (qnum = 0; qnum < ATH9K_NUM_TX_QUEUES; qnum++) {
		struct card_tx_queue *q = &card->queues[qnum];

		q->stop_failed = q->count && queue_has_stuck_frames(board, q) &&
				 sim_rng_chance(&board->rng, board->knobs.p_txdma_stop_fail);
		any_failed |= q->stop_failed;
	}
	if (any_failed)
		board->stats.txdma_stop_failures++;
}

static unsigned int hw_numtxpending(struct ath_hw *card, int qnum)
{
	if (qnum < 0 || qnum >= ATH9K_NUM_TX_QUEUES)
		return 0;
	return card->queues[qnum].stop_failed ? card->queues[qnum].count : 0;
}

static void hw_draintxq(struct ath_hw *card, int qnum)
{
	if (qnum >= 0 && qnum < ATH9K_NUM_TX_QUEUES)
		drain_queue(card, &card->queues[qnum]);
}

static int hw_reset(struct ath_hw *card, int freq)
{
	struct sim_board *board = card->board;
	int qnum;

	board->stats.resets++;
	stop_transmitter(card);
	/* whatever the driver did not drain is lost with the reset */
	for (qnum = 0; qnum < ATH9K_NUM_TX_QUEUES; qnum++)
		drain_queue(card, &card->queues[qnum]);
	card->rx_wedged = 0;
	card->rx_dma_active = 0;
	card->mac_ok = 1;
	card->chip_fullsleep = 0;
	card->context_lost = 0;
	card->freq = freq;
	card->power = ATH9K_PM_AWAKE;
	board_update_power(board);
	return 0;
}

static void hw_txstart(struct ath_hw *card, int qnum, unsigned long frame_id)
{
	struct sim_board *board = card->board;
	struct card_tx_queue *q;
	struct sim_frame *frame;
	uint16_t index;

	if (qnum < 0 || qnum >= ATH9K_NUM_TX_QUEUES || frame_id == 0 ||
	    frame_id > FRAME_POOL_SIZE)
		return;
	index = (uint16_t)(frame_id - 1);
	frame = frame_pool_frame(&board->frames, index);
	if (!frame->in_use)
		return;
	q = &card->queues[qnum];
	if (q->count == CARD_QUEUE_DEPTH) {
		report_failed_later(board, index);
		return;
	}
	frame->queue = qnum;
	frame->stuck = !card->mac_ok;
	q->frames[(q->head + q->count++) % CARD_QUEUE_DEPTH] = index;
	q->queued++;
	start_next_attempt(card);
}

static void hw_queue_work(struct ath_hw *card, enum ath_work work, unsigned int delay_ms)
{
	/* like queue_delayed_work(): a pending work item stays as it is */
	if ((int)work < 0 || work >= __ATH_WORK_MAX || card->work[work].pending)
		return;
	board_timer_arm(card->board, &card->work[work], (uint64_t)delay_ms * 1000,
			SIM_EVENT_DRIVER_WORK, work);
}

static void hw_cancel_work(struct ath_hw *card, enum ath_work work)
{
	if ((int)work >= 0 && work < __ATH_WORK_MAX)
		sim_timer_cancel(&card->work[work]);
}

static void hw_reset_stat_inc(struct ath_hw *card, enum ath_reset_type type)
{
	if ((int)type >= 0 && type < __RESET_TYPE_MAX)
		card->reset_stats[type]++;
}

static void hw_printk(struct ath_hw *card, const char *line)
{
	board_log(card->board, "%s", line);
}

const struct ath_hw_ops card_hw_ops = {
	.hw_caps = hw_caps,
	.power_mode = hw_power_mode,
	.chip_fullsleep = hw_chip_fullsleep,
	.setpower = hw_setpower,
	.setrxabort = hw_setrxabort,
	.stopdmarecv = hw_stopdmarecv,
	.startrecv = hw_startrecv,
	.abort_tx_dma = hw_abort_tx_dma,
	.numtxpending = hw_numtxpending,
	.draintxq = hw_draintxq,
	.reset = hw_reset,
	.txstart = hw_txstart,
	.queue_work = hw_queue_work,
	.cancel_work = hw_cancel_work,
	.reset_stat_inc = hw_reset_stat_inc,
	.printk = hw_printk,
};

/* ---- receive side, timers, interrupts ------------------------------------ */

int card_can_receive(const struct ath_hw *card, int freq, int is_beacon)
{
	if (!card->mac_ok || !card->rx_dma_active || card->rx_abort || card->rx_wedged)
		return 0;
	if (card->freq != freq)
		return 0;
	if (card->power == ATH9K_PM_AWAKE)
		return 1;
	return is_beacon && card->power == ATH9K_PM_NETWORK_SLEEP && card->chip->autosleep;
}

void card_count_rx(struct ath_hw *card, unsigned int bytes, int is_beacon)
{
	card->counters.rx_packets++;
	card->counters.rx_bytes += bytes;
	card->counters.irq_rx++;
	card->counters.irq_total++;
	if (is_beacon)
		card->counters.rx_beacons++;
}

void card_charge_autosleep_wake(struct sim_board *board)
{
	struct ath_hw *card = &board->card;
	uint64_t extra_uw = CARD_POWER_AWAKE_UW - card_network_sleep_uw(board->knobs.aspm_l1);

	if (card->chip->autosleep && card->power == ATH9K_PM_NETWORK_SLEEP && card->mac_ok)
		power_meter_add_energy(&board->meter, board->now_us,
				       extra_uw * BEACON_WAKE_WINDOW_US);
}

void card_on_work_due(struct sim_board *board, enum ath_work work, uint32_t generation)
{
	if ((int)work < 0 || work >= __ATH_WORK_MAX)
		return;
	if (board_timer_fired(&board->card.work[work], generation))
		board_driver_run_work(board, work);
}

void card_on_tim_timer(struct sim_board *board)
{
	struct ath_hw *card = &board->card;

	/* only the beacon timers of a dozing, associated, non-autosleep chip */
	if (card->chip->autosleep || card->power != ATH9K_PM_NETWORK_SLEEP || !card->mac_ok ||
	    board->station.state != STATION_ASSOCIATED)
		return;
	card->counters.irq_tim++;
	card->counters.irq_total++;
	board_driver_tim_timer(board);
}

void card_on_beacon(struct sim_board *board, int cab_pending)
{
	board_driver_rx_beacon(board, cab_pending);
	if (cab_pending)
		board_schedule(board, CAB_BURST_US, SIM_EVENT_CAB_DONE, 0, 0);
}

void card_on_cab_done(struct sim_board *board)
{
	struct ath_hw *card = &board->card;

	/* the multicast burst is heard only by a chip that stayed awake for it */
	if (!card_can_receive(card, board->ap.freq, 0))
		return;
	card->counters.irq_cabend++;
	card->counters.irq_total++;
	board_driver_rx_cab_done(board);
}
