/*
 * Copyright (c) 2008-2011 Atheros Communications Inc.
 *
 * Permission to use, copy, modify, and/or distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 */

#include "ath9k.h"

void ath9k_ps_wakeup(struct ath_softc *sc)
{
	unsigned long flags = 0;
	enum ath9k_power_mode power_mode;

	spin_lock_irqsave(&sc->sc_pm_lock, flags);
	if (++sc->ps_usecount != 1)
		goto unlock;

	power_mode = ath9k_hw_power_mode(sc);
	ath9k_hw_setpower(sc, ATH9K_PM_AWAKE);
	(void)power_mode;

 unlock:
	spin_unlock_irqrestore(&sc->sc_pm_lock, flags);
}

void ath9k_ps_restore(struct ath_softc *sc)
{
	unsigned long flags = 0;
	enum ath9k_power_mode mode;

	spin_lock_irqsave(&sc->sc_pm_lock, flags);
	if (--sc->ps_usecount != 0)
		goto unlock;

	if (sc->ps_idle && (sc->ps_flags & PS_WAIT_FOR_TX_ACK))
		mode = ATH9K_PM_FULL_SLEEP;
	else if (sc->ps_enabled &&
		 !(sc->ps_flags & (PS_WAIT_FOR_BEACON |
			      PS_WAIT_FOR_CAB |
			      PS_WAIT_FOR_PSPOLL_DATA |
			      PS_WAIT_FOR_TX_ACK)))
		mode = ATH9K_PM_NETWORK_SLEEP;
	else
		goto unlock;

	ath9k_hw_setpower(sc, mode);

 unlock:
	spin_unlock_irqrestore(&sc->sc_pm_lock, flags);
}

void ath_cancel_work(struct ath_softc *sc)
{
	sc->hw->cancel_work(sc->sc_ah, ATH_WORK_TX_COMPLETE_POLL);
	sc->hw->cancel_work(sc->sc_ah, ATH_WORK_HW_RESET);
}

void ath_restart_work(struct ath_softc *sc)
{
	sc->hw->queue_work(sc->sc_ah, ATH_WORK_TX_COMPLETE_POLL,
			   ATH_TX_COMPLETE_POLL_INT);
}

static int ath_prepare_reset(struct ath_softc *sc)
{
	int ret = 1;

	if (!ath_drain_all_txq(sc))
		ret = 0;

	if (!ath_stoprecv(sc))
		ret = 0;

	return ret;
}

static int ath_complete_reset(struct ath_softc *sc)
{
	if (ath_startrecv(sc) != 0) {
		ath_err(sc, "Unable to restart recv logic\n");
		return 0;
	}

	ath_restart_work(sc);
	return 1;
}

static int ath_reset_internal(struct ath_softc *sc, int freq)
{
	int r;

	ath_cancel_work(sc);
	ath_prepare_reset(sc);

	r = ath9k_hw_reset(sc, freq);
	if (r) {
		ath_err(sc, "Unable to reset channel, reset status %d\n", r);
		goto out;
	}
	sc->curfreq = freq;

	if (!ath_complete_reset(sc))
		r = -5;

 out:
	return r;
}

int ath_reset(struct ath_softc *sc, int freq)
{
	int r;

	ath9k_ps_wakeup(sc);
	r = ath_reset_internal(sc, freq);
	ath9k_ps_restore(sc);

	return r;
}

static int ath_set_channel(struct ath_softc *sc, int freq)
{
	if (sc->sc_flags & SC_OP_INVALID)
		return -5;

	return ath_reset_internal(sc, freq);
}

static void ath9k_enable_ps(struct ath_softc *sc)
{
	sc->ps_enabled = 1;
}

static void ath9k_disable_ps(struct ath_softc *sc)
{
	sc->ps_enabled = 0;
	ath9k_hw_setpower(sc, ATH9K_PM_AWAKE);
	if (!(sc->caps.hw_caps & ATH9K_HW_CAP_AUTOSLEEP)) {
		ath9k_hw_setrxabort(sc, 0);
		sc->ps_flags &= ~(PS_WAIT_FOR_BEACON |
				  PS_WAIT_FOR_CAB |
				  PS_WAIT_FOR_PSPOLL_DATA |
				  PS_WAIT_FOR_TX_ACK);
	}
}

static int ath9k_start(struct ath_softc *sc, int freq)
{
	int r;

	ath9k_ps_wakeup(sc);

	sc->sc_flags &= ~SC_OP_INVALID;
	r = ath_reset_internal(sc, freq);
	if (r)
		ath_err(sc, "Unable to reset hardware; reset status %d (freq %u MHz)\n",
			r, freq);

	ath9k_ps_restore(sc);
	return r;
}

static void ath9k_stop(struct ath_softc *sc)
{
	ath_cancel_work(sc);
	ath9k_ps_wakeup(sc);

	ath_drain_all_txq(sc);
	ath_stoprecv(sc);

	/* disable HAL and put h/w to sleep */
	ath9k_hw_setpower(sc, ATH9K_PM_FULL_SLEEP);
	ath9k_ps_restore(sc);

	sc->ps_idle = 1;
	sc->sc_flags |= SC_OP_INVALID;
}

static int ath9k_config(struct ath_softc *sc, unsigned int changed,
			const struct ieee80211_conf *conf)
{
	int ret = 0;

	ath9k_ps_wakeup(sc);

	/*
	 * Leave this as the first check because we need to turn on the
	 * radio if it was disabled before prior to processing the rest
	 * of the changes. Likewise we must only disable the radio towards
	 * the end.
	 */
	if (changed & IEEE80211_CONF_CHANGE_IDLE) {
		sc->ps_idle = !!(conf->flags & IEEE80211_CONF_IDLE);
		if (sc->ps_idle)
			ath_cancel_work(sc);
	}

	if (changed & IEEE80211_CONF_CHANGE_PS) {
		unsigned long flags = 0;
		spin_lock_irqsave(&sc->sc_pm_lock, flags);
		if (conf->flags & IEEE80211_CONF_PS)
			ath9k_enable_ps(sc);
		else
			ath9k_disable_ps(sc);
		spin_unlock_irqrestore(&sc->sc_pm_lock, flags);
	}

	if (changed & IEEE80211_CONF_CHANGE_CHANNEL) {
		if (ath_set_channel(sc, conf->freq) < 0) {
			ath_err(sc, "Unable to set channel\n");
			ret = -22;
		}
	}

	ath9k_ps_restore(sc);
	return ret;
}

static void ath9k_tx(struct ath_softc *sc, int qnum, unsigned long frame,
		     enum ath_frame_kind kind)
{
	if (unlikely(ath9k_hw_power_mode(sc) == ATH9K_PM_NETWORK_SLEEP)) {
		/*
		 * We are using PS-Poll and mac80211 can request TX while in
		 * power save mode. Need to wake up hardware for the TX to be
		 * completed and if needed, also for RX of buffered frames.
		 */
		ath9k_ps_wakeup(sc);
		if (!(sc->caps.hw_caps & ATH9K_HW_CAP_AUTOSLEEP))
			ath9k_hw_setrxabort(sc, 0);
		if (kind == ATH_FRAME_PSPOLL) {
			ath_dbg(sc, "Sending PS-Poll to pick a buffered frame\n");
			sc->ps_flags |= PS_WAIT_FOR_PSPOLL_DATA;
		} else {
			ath_dbg(sc, "Wake up to complete TX\n");
			sc->ps_flags |= PS_WAIT_FOR_TX_ACK;
		}
		/*
		 * The actual restore operation will happen only after
		 * the ps_flags bit is cleared. We are just dropping
		 * the ps_usecount here.
		 */
		ath9k_ps_restore(sc);
	}

	ath_tx_start(sc, qnum, frame);
}

/* The interrupt tasklet: every bottom half runs with the chip held awake. */
static void ath9k_tx_tasklet(struct ath_softc *sc, int qnum,
			     unsigned long frame, int acked)
{
	(void)frame;
	ath9k_ps_wakeup(sc);
	ath_tx_complete(sc, qnum, acked);
	ath9k_ps_restore(sc);
}

static void ath9k_tim_timer(struct ath_softc *sc)
{
	/* Clear RxAbort bit so that we can receive frames */
	ath9k_hw_setpower(sc, ATH9K_PM_AWAKE);
	ath9k_hw_setrxabort(sc, 0);
	sc->ps_flags |= PS_WAIT_FOR_BEACON;

	ath9k_ps_wakeup(sc);
	ath9k_ps_restore(sc);
}

static void ath9k_rx_beacon(struct ath_softc *sc, int cab_pending)
{
	ath9k_ps_wakeup(sc);
	if (sc->ps_flags & PS_WAIT_FOR_BEACON ||
	    (sc->caps.hw_caps & ATH9K_HW_CAP_AUTOSLEEP))
		ath_rx_ps_beacon(sc, cab_pending);
	ath9k_ps_restore(sc);
}

static void ath9k_rx_cab_done(struct ath_softc *sc)
{
	ath9k_ps_wakeup(sc);
	ath_rx_ps(sc, PS_WAIT_FOR_CAB);
	ath9k_ps_restore(sc);
}

static void ath9k_rx_pspoll_data(struct ath_softc *sc)
{
	ath9k_ps_wakeup(sc);
	ath_rx_ps(sc, PS_WAIT_FOR_PSPOLL_DATA);
	ath9k_ps_restore(sc);
}

static void ath_reset_work(struct ath_softc *sc)
{
	ath_reset(sc, sc->curfreq);
}

static void ath9k_run_work(struct ath_softc *sc, enum ath_work work)
{
	switch (work) {
	case ATH_WORK_TX_COMPLETE_POLL:
		ath_tx_complete_poll_work(sc);
		break;
	case ATH_WORK_HW_RESET:
		ath_reset_work(sc);
		break;
	default:
		break;
	}
}

static struct ath_softc the_softc;

static struct ath_softc *ath9k_probe(struct ath_hw *ah, const struct ath_hw_ops *ops)
{
	struct ath_softc *sc = &the_softc;
	int i;

	*sc = (struct ath_softc){ 0 };
	sc->sc_ah = ah;
	sc->hw = ops;
	sc->caps.hw_caps = ops->hw_caps(ah);
	sc->ps_idle = 1;
	sc->sc_flags = SC_OP_INVALID;
	for (i = 0; i < ATH9K_NUM_TX_QUEUES; i++)
		sc->tx.txq[i].axq_qnum = i;

	ath9k_hw_setpower(sc, ATH9K_PM_AWAKE);
	ath9k_hw_setpower(sc, ATH9K_PM_FULL_SLEEP);
	return sc;
}

static void ath9k_remove(struct ath_softc *sc)
{
	*sc = (struct ath_softc){ 0 };
}

extern const char uts_release[];
extern const char linux_banner[];

__attribute__((visibility("default")))
const struct ath9k_model_driver ath9k_model_driver = {
	.abi_version	= ATH9K_MODEL_ABI_VERSION,
	.release	= uts_release,
	.banner		= linux_banner,
	.probe		= ath9k_probe,
	.remove		= ath9k_remove,
	.start		= ath9k_start,
	.stop		= ath9k_stop,
	.config		= ath9k_config,
	.tx		= ath9k_tx,
	.tx_tasklet	= ath9k_tx_tasklet,
	.tim_timer	= ath9k_tim_timer,
	.rx_beacon	= ath9k_rx_beacon,
	.rx_cab_done	= ath9k_rx_cab_done,
	.rx_pspoll_data	= ath9k_rx_pspoll_data,
	.run_work	= ath9k_run_work,
};
