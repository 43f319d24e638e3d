/*
 * Copyright (c) 2008-2011 Atheros Communications Inc.
 *
 * Permission to use, copy, modify, and/or distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 */

#include "ath9k.h"

#define AH_RX_STOP_DMA_TIMEOUT 10000	/* usec */

int ath9k_hw_stopdmarecv(struct ath_softc *sc, int *reset)
{
	unsigned int regs[3];

	*reset = 0;
	if (sc->hw->stopdmarecv(sc->sc_ah, regs))
		return 1;

	ath_err(sc,
		"DMA failed to stop in %d ms AR_CR=0x%08x AR_DIAG_SW=0x%08x DMADBG_7=0x%08x\n",
		AH_RX_STOP_DMA_TIMEOUT / 1000, regs[0], regs[1], regs[2]);
	return 0;
}
