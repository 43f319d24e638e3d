/*
 * Copyright (c) 2008-2011 Atheros Communications Inc.
 *
 * Permission to use, copy, modify, and/or distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 */

#include "ath9k.h"

void ath9k_hw_setpower(struct ath_softc *sc, enum ath9k_power_mode mode)
{
	if (sc->hw->power_mode(sc->sc_ah) == mode)
		return;
	sc->hw->setpower(sc->sc_ah, mode);
}

void ath9k_hw_setrxabort(struct ath_softc *sc, int set)
{
	sc->hw->setrxabort(sc->sc_ah, set);
}

int ath9k_hw_reset(struct ath_softc *sc, int freq)
{
	return sc->hw->reset(sc->sc_ah, freq);
}
