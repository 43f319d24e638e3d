/*
 * Copyright (c) 2009 Atheros Communications Inc.
 *
 * Permission to use, copy, modify, and/or distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 */

#include <stdarg.h>
#include <stdio.h>
#include "ath9k/ath9k.h"

void ath_printk(const char *level, struct ath_softc *sc, const char *fmt, ...)
{
	char line[512];
	int len;
	va_list args;

	(void)level;
	len = snprintf(line, sizeof(line), "ath: ");
	va_start(args, fmt);
	vsnprintf(line + len, sizeof(line) - len, fmt, args);
	va_end(args);

	sc->hw->printk(sc->sc_ah, line);
}
