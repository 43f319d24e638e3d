/*
 * Copyright (c) 2008-2011 Atheros Communications Inc.
 *
 * Permission to use, copy, modify, and/or distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 */

#include "ath9k.h"

int ath_startrecv(struct ath_softc *sc)
{
	sc->hw->startrecv(sc->sc_ah);
	return 0;
}

int ath_stoprecv(struct ath_softc *sc)
{
	int stopped, reset = 0;

	ath9k_hw_setrxabort(sc, 1);
	stopped = ath9k_hw_stopdmarecv(sc, &reset);

	if (unlikely(!stopped)) {
		ath_err(sc,
			"Could not stop RX, we could be confusing the DMA engine when we start RX up\n");
	}
	return stopped && !reset;
}

void ath_rx_ps_beacon(struct ath_softc *sc, int cab_pending)
{
	sc->ps_flags &= ~PS_WAIT_FOR_BEACON;

	if (sc->ps_flags & PS_BEACON_SYNC)
		sc->ps_flags &= ~PS_BEACON_SYNC;

	if (cab_pending) {
		ath_dbg(sc, "Received DTIM beacon indicating buffered broadcast/multicast frame(s)\n");
		sc->ps_flags |= PS_WAIT_FOR_CAB | PS_WAIT_FOR_BEACON;
		return;
	}

	if (sc->ps_flags & PS_WAIT_FOR_CAB) {
		/*
		 * This can happen if a broadcast frame is dropped or the AP
		 * fails to send a frame indicating that all CAB frames have
		 * been delivered.
		 */
		sc->ps_flags &= ~PS_WAIT_FOR_CAB;
		ath_dbg(sc, "PS wait for CAB frames timed out\n");
	}
}

void ath_rx_ps(struct ath_softc *sc, unsigned long done_flag)
{
	if (done_flag == PS_WAIT_FOR_CAB && (sc->ps_flags & PS_WAIT_FOR_CAB)) {
		/*
		 * No more broadcast/multicast frames to be received at this
		 * point.
		 */
		sc->ps_flags &= ~(PS_WAIT_FOR_CAB | PS_WAIT_FOR_BEACON);
	} else if (done_flag == PS_WAIT_FOR_PSPOLL_DATA &&
		   (sc->ps_flags & PS_WAIT_FOR_PSPOLL_DATA)) {
		sc->ps_flags &= ~(PS_WAIT_FOR_PSPOLL_DATA | PS_WAIT_FOR_BEACON);
	}
}
