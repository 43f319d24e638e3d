/*
 * Copyright (c) 2008-2011 Atheros Communications Inc.
 *
 * Permission to use, copy, modify, and/or distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 */

#ifndef ATH9K_H
#define ATH9K_H

#include "hw-model.h"

/* The model kernel runs single-threaded inside the board simulator. */
#define spin_lock_irqsave(lock, flags)		((void)(lock), (void)(flags))
#define spin_unlock_irqrestore(lock, flags)	((void)(lock), (void)(flags))
#define spin_lock_bh(lock)			((void)(lock))
#define spin_unlock_bh(lock)			((void)(lock))
#define unlikely(x)				(x)
#define BIT(n)					(1UL << (n))

typedef int spinlock_t;

#define PS_WAIT_FOR_BEACON		BIT(0)
#define PS_WAIT_FOR_CAB			BIT(1)
#define PS_WAIT_FOR_PSPOLL_DATA		BIT(2)
#define PS_WAIT_FOR_TX_ACK		BIT(3)
#define PS_BEACON_SYNC			BIT(4)

#define SC_OP_INVALID			BIT(0)

#define ATH_TX_COMPLETE_POLL_INT	1000	/* ms */

struct ath_txq {
	spinlock_t axq_lock;
	unsigned int axq_qnum;
	unsigned int axq_depth;
	int axq_tx_inprogress;
};

struct ath_hw_caps {
	unsigned int hw_caps;
};

struct ath_softc {
	struct ath_hw *sc_ah;
	const struct ath_hw_ops *hw;
	struct ath_hw_caps caps;
	spinlock_t sc_pm_lock;
	unsigned long sc_flags;
	unsigned long ps_flags;
	unsigned long ps_usecount;
	int ps_enabled;
	int ps_idle;
	int curfreq;
	struct {
		struct ath_txq txq[ATH9K_NUM_TX_QUEUES];
	} tx;
};

/* ath/main.c */
void ath_printk(const char *level, struct ath_softc *sc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define ath_err(sc, fmt, ...)	ath_printk("<3>", sc, fmt, ##__VA_ARGS__)
#define ath_info(sc, fmt, ...)	ath_printk("<6>", sc, fmt, ##__VA_ARGS__)
#define ath_dbg(sc, fmt, ...)	do { } while (0)

/* hw.c / mac.c: the thin layer over the chip */
void ath9k_hw_setpower(struct ath_softc *sc, enum ath9k_power_mode mode);
void ath9k_hw_setrxabort(struct ath_softc *sc, int set);
int ath9k_hw_stopdmarecv(struct ath_softc *sc, int *reset);
int ath9k_hw_reset(struct ath_softc *sc, int freq);
#define ath9k_hw_power_mode(sc)	((sc)->hw->power_mode((sc)->sc_ah))

/* main.c */
void ath9k_ps_wakeup(struct ath_softc *sc);
void ath9k_ps_restore(struct ath_softc *sc);
int ath_reset(struct ath_softc *sc, int freq);
void ath_cancel_work(struct ath_softc *sc);
void ath_restart_work(struct ath_softc *sc);

/* xmit.c */
int ath_drain_all_txq(struct ath_softc *sc);
void ath_tx_start(struct ath_softc *sc, int qnum, unsigned long frame);
void ath_tx_complete(struct ath_softc *sc, int qnum, int acked);
void ath_tx_complete_poll_work(struct ath_softc *sc);

/* recv.c */
int ath_stoprecv(struct ath_softc *sc);
int ath_startrecv(struct ath_softc *sc);
void ath_rx_ps_beacon(struct ath_softc *sc, int cab_pending);
void ath_rx_ps(struct ath_softc *sc, unsigned long done_flag);

#endif /* ATH9K_H */
