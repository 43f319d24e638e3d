/*
 * Copyright (c) 2008-2011 Atheros Communications Inc.
 *
 * Permission to use, copy, modify, and/or distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 */

#include "ath9k.h"

static void ath_draintxq(struct ath_softc *sc, struct ath_txq *txq)
{
	unsigned long flags = 0;

	sc->hw->draintxq(sc->sc_ah, txq->axq_qnum);
	txq->axq_depth = 0;
	txq->axq_tx_inprogress = 0;

	spin_lock_irqsave(&sc->sc_pm_lock, flags);
	if (sc->ps_flags & PS_WAIT_FOR_TX_ACK)
		sc->ps_flags &= ~PS_WAIT_FOR_TX_ACK;
	spin_unlock_irqrestore(&sc->sc_pm_lock, flags);
}

int ath_drain_all_txq(struct ath_softc *sc)
{
	unsigned int npend = 0;
	int i;

	if (sc->sc_flags & SC_OP_INVALID)
		return 1;

	sc->hw->abort_tx_dma(sc->sc_ah);

	/* Check if any queue remains active */
	for (i = 0; i < ATH9K_NUM_TX_QUEUES; i++) {
		if (sc->hw->numtxpending(sc->sc_ah, sc->tx.txq[i].axq_qnum))
			npend |= BIT(i);
	}

	if (npend)
		ath_err(sc, "Failed to stop TX DMA, queues=0x%03x!\n", npend);

	for (i = 0; i < ATH9K_NUM_TX_QUEUES; i++)
		ath_draintxq(sc, &sc->tx.txq[i]);

	return !npend;
}

void ath_tx_start(struct ath_softc *sc, int qnum, unsigned long frame)
{
	struct ath_txq *txq = &sc->tx.txq[qnum];

	txq->axq_depth++;
	sc->hw->txstart(sc->sc_ah, qnum, frame);
}

void ath_tx_complete(struct ath_softc *sc, int qnum, int acked)
{
	struct ath_txq *txq = &sc->tx.txq[qnum];
	unsigned long flags = 0;

	(void)acked;
	if (txq->axq_depth)
		txq->axq_depth--;
	txq->axq_tx_inprogress = 0;

	spin_lock_irqsave(&sc->sc_pm_lock, flags);
	if ((sc->ps_flags & PS_WAIT_FOR_TX_ACK) && !txq->axq_depth) {
		sc->ps_flags &= ~PS_WAIT_FOR_TX_ACK;
		ath_dbg(sc, "Going back to sleep after having received TX status (0x%lx)\n",
			sc->ps_flags);
	}
	spin_unlock_irqrestore(&sc->sc_pm_lock, flags);
}

void ath_tx_complete_poll_work(struct ath_softc *sc)
{
	struct ath_txq *txq;
	int i;
	int needreset = 0;

	for (i = 0; i < ATH9K_NUM_TX_QUEUES; i++) {
		txq = &sc->tx.txq[i];
		spin_lock_bh(&txq->axq_lock);
		if (txq->axq_depth) {
			if (txq->axq_tx_inprogress) {
				needreset = 1;
				spin_unlock_bh(&txq->axq_lock);
				break;
			} else {
				txq->axq_tx_inprogress = 1;
			}
		}
		spin_unlock_bh(&txq->axq_lock);
	}

	if (needreset) {
		ath_dbg(sc, "tx hung, resetting the chip\n");
		sc->hw->reset_stat_inc(sc->sc_ah, RESET_TYPE_TX_HANG);
		sc->hw->queue_work(sc->sc_ah, ATH_WORK_HW_RESET, 0);
	}

	sc->hw->queue_work(sc->sc_ah, ATH_WORK_TX_COMPLETE_POLL,
			   ATH_TX_COMPLETE_POLL_INT);
}
