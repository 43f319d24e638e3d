/*
 * hw-model.h - the AR9xxx hardware as the rackbisect virtual lab provides it.
 *
 * A real ath9k talks to registers; this model driver talks to the board
 * simulator through the small table below. The simulator owns the chip, the
 * air and the access point; the driver owns every power-save decision. The
 * simulator loads a built kernel (arch/x86/boot/bzImage, a shared object)
 * with dlopen() and looks up the symbol `ath9k_model_driver`.
 *
 * This header is the ABI between a model kernel build and the simulator:
 * change it only together with ATH9K_MODEL_ABI_VERSION.
 */
#ifndef ATH9K_HW_MODEL_H
#define ATH9K_HW_MODEL_H

#define ATH9K_MODEL_ABI_VERSION 1

enum ath9k_power_mode {
	ATH9K_PM_AWAKE = 0,
	ATH9K_PM_FULL_SLEEP,
	ATH9K_PM_NETWORK_SLEEP,
	ATH9K_PM_UNDEFINED
};

/* Hardware capability bits (ah->caps.hw_caps in the real driver). */
#define ATH9K_HW_CAP_AUTOSLEEP	0x00000001

/* Why the chip was reset, as the debugfs reset statistics count it. */
enum ath_reset_type {
	RESET_TYPE_BB_HANG = 0,
	RESET_TYPE_BB_WATCHDOG,
	RESET_TYPE_FATAL_INT,
	RESET_TYPE_TX_ERROR,
	RESET_TYPE_TX_HANG,
	RESET_TYPE_PLL_HANG,
	__RESET_TYPE_MAX
};

/* Deferred work the driver asks the simulated kernel to run later. */
enum ath_work {
	ATH_WORK_TX_COMPLETE_POLL = 0,	/* ath_tx_complete_poll_work */
	ATH_WORK_HW_RESET,		/* ath_reset_work */
	__ATH_WORK_MAX
};

#define ATH9K_NUM_TX_QUEUES	10

struct ath_hw;		/* the simulated chip, opaque to the driver */
struct ath_softc;	/* the driver's state, opaque to the simulator */

/* What the (simulated) hardware and kernel offer the driver. */
struct ath_hw_ops {
	unsigned int (*hw_caps)(struct ath_hw *ah);
	enum ath9k_power_mode (*power_mode)(struct ath_hw *ah);
	/* Nonzero once the chip entered FULL_SLEEP; only a full reset clears it. */
	int (*chip_fullsleep)(struct ath_hw *ah);
	void (*setpower)(struct ath_hw *ah, enum ath9k_power_mode mode);
	void (*setrxabort)(struct ath_hw *ah, int set);
	/* Stops RX DMA. Returns 1 when stopped; 0 when it did not stop within
	 * 10 ms, and then regs holds AR_CR, AR_DIAG_SW and AR_DMADBG_7. */
	int (*stopdmarecv)(struct ath_hw *ah, unsigned int regs[3]);
	void (*startrecv)(struct ath_hw *ah);
	void (*abort_tx_dma)(struct ath_hw *ah);
	/* Frames the hardware still holds on queue qnum after an abort. */
	unsigned int (*numtxpending)(struct ath_hw *ah, int qnum);
	/* Completes every frame left on qnum as failed (ath_draintxq). */
	void (*draintxq)(struct ath_hw *ah, int qnum);
	/* Full chip reset onto a channel (MHz). 0, or a negative errno. */
	int (*reset)(struct ath_hw *ah, int freq);
	/* Hands frame `frame` (an id the stack chose) to TX queue qnum. */
	void (*txstart)(struct ath_hw *ah, int qnum, unsigned long frame);
	void (*queue_work)(struct ath_hw *ah, enum ath_work work, unsigned int delay_ms);
	void (*cancel_work)(struct ath_hw *ah, enum ath_work work);
	void (*reset_stat_inc)(struct ath_hw *ah, enum ath_reset_type type);
	/* printk: the simulator stamps the line with simulated time. */
	void (*printk)(struct ath_hw *ah, const char *line);
};

/* IEEE80211_CONF_CHANGE_* bits passed to config. */
#define IEEE80211_CONF_CHANGE_PS	(1 << 2)
#define IEEE80211_CONF_CHANGE_IDLE	(1 << 8)
#define IEEE80211_CONF_CHANGE_CHANNEL	(1 << 6)

/* IEEE80211_CONF_* flags of the configuration. */
#define IEEE80211_CONF_PS		(1 << 1)
#define IEEE80211_CONF_IDLE		(1 << 2)

struct ieee80211_conf {
	unsigned int flags;
	int freq;		/* MHz */
};

/* Frame kinds the stack hands to tx. */
enum ath_frame_kind {
	ATH_FRAME_MGMT = 0,
	ATH_FRAME_DATA,
	ATH_FRAME_NULLFUNC,
	ATH_FRAME_PSPOLL
};

/* What a build exports: the mac80211 ops plus the interrupt/tasklet entries. */
struct ath9k_model_driver {
	int abi_version;
	const char *release;		/* UTS_RELEASE of this build */
	const char *banner;		/* linux_banner of this build */
	struct ath_softc *(*probe)(struct ath_hw *ah, const struct ath_hw_ops *ops);
	void (*remove)(struct ath_softc *sc);
	/* mac80211 -> driver */
	int (*start)(struct ath_softc *sc, int freq);
	void (*stop)(struct ath_softc *sc);
	int (*config)(struct ath_softc *sc, unsigned int changed,
		      const struct ieee80211_conf *conf);
	void (*tx)(struct ath_softc *sc, int qnum, unsigned long frame,
		   enum ath_frame_kind kind);
	/* hardware -> driver (interrupts, tasklets, work) */
	void (*tx_tasklet)(struct ath_softc *sc, int qnum, unsigned long frame,
			   int acked);
	void (*tim_timer)(struct ath_softc *sc);
	void (*rx_beacon)(struct ath_softc *sc, int cab_pending);
	void (*rx_cab_done)(struct ath_softc *sc);
	void (*rx_pspoll_data)(struct ath_softc *sc);
	void (*run_work)(struct ath_softc *sc, enum ath_work work);
};

extern const struct ath9k_model_driver ath9k_model_driver;

#endif /* ATH9K_HW_MODEL_H */
