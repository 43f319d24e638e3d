/* driver_changes.c - the ath9k power-save changes, as text edits. */
#include "driver_changes.h"

#include <stdlib.h>
#include <string.h>

#define ATH9K_MAIN "drivers/net/wireless/ath/ath9k/main.c"
#define ATH_MAIN "drivers/net/wireless/ath/main.c"

/* ath9k_ps_restore() of v3.3: full sleep only when idle with an ACK pending. */
#define PS_RESTORE_V3_3 \
	"\tif (sc->ps_idle && (sc->ps_flags & PS_WAIT_FOR_TX_ACK))\n" \
	"\t\tmode = ATH9K_PM_FULL_SLEEP;\n" \
	"\telse if (sc->ps_enabled &&\n" \
	"\t\t !(sc->ps_flags & (PS_WAIT_FOR_BEACON |\n" \
	"\t\t\t      PS_WAIT_FOR_CAB |\n" \
	"\t\t\t      PS_WAIT_FOR_PSPOLL_DATA |\n" \
	"\t\t\t      PS_WAIT_FOR_TX_ACK)))\n" \
	"\t\tmode = ATH9K_PM_NETWORK_SLEEP;\n"

/* The same function after c1afdaff (the seed patch, both hunks). */
#define PS_RESTORE_C1AFDAFF \
	"\tif (sc->ps_flags & PS_WAIT_FOR_TX_ACK)\n" \
	"\t\tgoto unlock;\n" \
	"\n" \
	"\tif (sc->ps_idle)\n" \
	"\t\tmode = ATH9K_PM_FULL_SLEEP;\n" \
	"\telse if (sc->ps_enabled &&\n" \
	"\t\t !(sc->ps_flags & (PS_WAIT_FOR_BEACON |\n" \
	"\t\t\t      PS_WAIT_FOR_CAB |\n" \
	"\t\t\t      PS_WAIT_FOR_PSPOLL_DATA)))\n" \
	"\t\tmode = ATH9K_PM_NETWORK_SLEEP;\n"

/* A backport that kept the second hunk only: TX_ACK no longer blocks sleep. */
#define PS_RESTORE_BAD_BACKPORT \
	"\tif (sc->ps_idle && (sc->ps_flags & PS_WAIT_FOR_TX_ACK))\n" \
	"\t\tmode = ATH9K_PM_FULL_SLEEP;\n" \
	"\telse if (sc->ps_enabled &&\n" \
	"\t\t !(sc->ps_flags & (PS_WAIT_FOR_BEACON |\n" \
	"\t\t\t      PS_WAIT_FOR_CAB |\n" \
	"\t\t\t      PS_WAIT_FOR_PSPOLL_DATA)))\n" \
	"\t\tmode = ATH9K_PM_NETWORK_SLEEP;\n"

/* 3.5: full sleep on idle, but only after RX is aborted and its DMA stopped. */
#define PS_RESTORE_V3_5 \
	"\tif (sc->ps_flags & PS_WAIT_FOR_TX_ACK)\n" \
	"\t\tgoto unlock;\n" \
	"\n" \
	"\tif (sc->ps_idle) {\n" \
	"\t\tath9k_hw_setrxabort(sc, 1);\n" \
	"\t\tath9k_hw_stopdmarecv(sc, &reset);\n" \
	"\t\tmode = ATH9K_PM_FULL_SLEEP;\n" \
	"\t} else if (sc->ps_enabled &&\n" \
	"\t\t !(sc->ps_flags & (PS_WAIT_FOR_BEACON |\n" \
	"\t\t\t      PS_WAIT_FOR_CAB |\n" \
	"\t\t\t      PS_WAIT_FOR_PSPOLL_DATA |\n" \
	"\t\t\t      PS_WAIT_FOR_TX_ACK))) {\n" \
	"\t\tmode = ATH9K_PM_NETWORK_SLEEP;\n" \
	"\t}\n"

#define PS_RESTORE_DECLS_V3_3 \
	"\tunsigned long flags = 0;\n" \
	"\tenum ath9k_power_mode mode;\n" \
	"\n" \
	"\tspin_lock_irqsave(&sc->sc_pm_lock, flags);\n" \
	"\tif (--sc->ps_usecount != 0)\n"

#define PS_RESTORE_DECLS_V3_5 \
	"\tunsigned long flags = 0;\n" \
	"\tenum ath9k_power_mode mode;\n" \
	"\tint reset;\n" \
	"\n" \
	"\tspin_lock_irqsave(&sc->sc_pm_lock, flags);\n" \
	"\tif (--sc->ps_usecount != 0)\n"

static const struct driver_edit fullsleep_on_idle_edits[] = {
	{ ATH9K_MAIN, PS_RESTORE_V3_3, PS_RESTORE_C1AFDAFF },
};

static const struct driver_edit revert_fullsleep_on_idle_edits[] = {
	{ ATH9K_MAIN, PS_RESTORE_C1AFDAFF, PS_RESTORE_V3_3 },
};

static const struct driver_edit bad_backport_edits[] = {
	{ ATH9K_MAIN, PS_RESTORE_V3_3, PS_RESTORE_BAD_BACKPORT },
};

static const struct driver_edit reset_on_idle_off_edits[] = {
	{ ATH9K_MAIN,
	  "\tint ret = 0;\n"
	  "\n"
	  "\tath9k_ps_wakeup(sc);\n",
	  "\tint ret = 0;\n"
	  "\tint reset_channel = 0;\n"
	  "\n"
	  "\tath9k_ps_wakeup(sc);\n" },
	{ ATH9K_MAIN,
	  "\t\tif (sc->ps_idle)\n"
	  "\t\t\tath_cancel_work(sc);\n"
	  "\t}\n",
	  "\t\tif (sc->ps_idle)\n"
	  "\t\t\tath_cancel_work(sc);\n"
	  "\t\telse\n"
	  "\t\t\t/*\n"
	  "\t\t\t * The chip needs a reset to properly wake up from\n"
	  "\t\t\t * full sleep\n"
	  "\t\t\t */\n"
	  "\t\t\treset_channel = sc->hw->chip_fullsleep(sc->sc_ah);\n"
	  "\t}\n" },
	{ ATH9K_MAIN,
	  "\tif (changed & IEEE80211_CONF_CHANGE_CHANNEL) {\n",
	  "\tif ((changed & IEEE80211_CONF_CHANGE_CHANNEL) || reset_channel) {\n" },
};

static const struct driver_edit fullsleep_after_rx_abort_edits[] = {
	{ ATH9K_MAIN, PS_RESTORE_DECLS_V3_3, PS_RESTORE_DECLS_V3_5 },
	{ ATH9K_MAIN, PS_RESTORE_V3_3, PS_RESTORE_V3_5 },
};

static const struct driver_edit phy_prefix_edits[] = {
	{ ATH_MAIN,
	  "\tlen = snprintf(line, sizeof(line), \"ath: \");\n",
	  "\tlen = snprintf(line, sizeof(line), \"ath: %s: \", \"phy0\");\n" },
};

#define EDITS(array) (sizeof(array) / sizeof((array)[0])), (array)

static const struct driver_change changes[DRIVER_CHANGE_COUNT] = {
	{ DRIVER_CHANGE_FULLSLEEP_ON_IDLE,
	  "ath9k: fix going to full-sleep on PS idle",
	  "The check for PS_WAIT_FOR_TX_ACK was inverted, the hardware should only go\n"
	  "to full sleep if no tx is pending.",
	  "Felix Fietkau <nbd@openwrt.org>",
	  EDITS(fullsleep_on_idle_edits) },
	{ DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE,
	  "Revert \"ath9k: fix going to full-sleep on PS idle\"",
	  "It causes connection failures when the chip wakes up from full sleep\n"
	  "without a reset, and suspend/resume failures on some chips.",
	  "Felix Fietkau <nbd@openwrt.org>",
	  EDITS(revert_fullsleep_on_idle_edits) },
	{ DRIVER_CHANGE_BAD_BACKPORT,
	  "ath9k: fix going to full-sleep on PS idle",
	  "The check for PS_WAIT_FOR_TX_ACK was inverted, the hardware should only go\n"
	  "to full sleep if no tx is pending.",
	  "Felix Fietkau <nbd@openwrt.org>",
	  EDITS(bad_backport_edits) },
	{ DRIVER_CHANGE_RESET_ON_IDLE_OFF,
	  "ath9k: wake up the hardware from full sleep when idle is turned off",
	  "Fixes a regression where tx remains dead until the first channel change\n"
	  "after the idle state change.",
	  "Felix Fietkau <nbd@openwrt.org>",
	  EDITS(reset_on_idle_off_edits) },
	{ DRIVER_CHANGE_FULLSLEEP_AFTER_RX_ABORT,
	  "ath9k: go to full sleep on PS idle after stopping RX",
	  "Entering full sleep while RX DMA is active can wedge the DMA engine.\n"
	  "Abort RX and stop RX DMA first, then the chip may sleep whenever idle.",
	  "Felix Fietkau <nbd@openwrt.org>",
	  EDITS(fullsleep_after_rx_abort_edits) },
	{ DRIVER_CHANGE_PHY_PREFIX,
	  "ath: add the wiphy name to driver messages",
	  "With more than one card in a machine the messages cannot be told apart.",
	  "Joe Perches <joe@perches.com>",
	  EDITS(phy_prefix_edits) },
};

const struct driver_change *driver_change_get(enum driver_change_id id)
{
	if ((int)id < 0 || id >= DRIVER_CHANGE_COUNT)
		return NULL;
	return &changes[id];
}

static char *replace_once(const char *text, const char *old_text,
			  const char *new_text, const char **error)
{
	const char *at = strstr(text, old_text);
	size_t head, old_len = strlen(old_text), new_len = strlen(new_text);
	char *result;

	if (!at) {
		*error = "the text this change edits is not in the file";
		return NULL;
	}
	if (strstr(at + 1, old_text)) {
		*error = "the text this change edits occurs more than once";
		return NULL;
	}
	head = (size_t)(at - text);
	result = malloc(strlen(text) - old_len + new_len + 1);
	if (!result) {
		*error = "out of memory";
		return NULL;
	}
	memcpy(result, text, head);
	memcpy(result + head, new_text, new_len);
	strcpy(result + head + new_len, at + old_len);
	return result;
}

char *driver_change_apply(const struct driver_change *change, const char *path,
			  const char *text, const char **error)
{
	char *current = strdup(text);
	size_t i;

	if (!current) {
		*error = "out of memory";
		return NULL;
	}
	for (i = 0; i < change->edit_count; i++) {
		const struct driver_edit *edit = &change->edits[i];
		char *next;

		if (strcmp(edit->path, path) != 0)
			continue;
		next = replace_once(current, edit->old_text, edit->new_text, error);
		free(current);
		if (!next)
			return NULL;
		current = next;
	}
	return current;
}

static const enum driver_change_id v3_3_1_changes[] = {
	DRIVER_CHANGE_FULLSLEEP_ON_IDLE,
};
static const enum driver_change_id bad_backport_changes[] = {
	DRIVER_CHANGE_BAD_BACKPORT,
};
static const enum driver_change_id v3_4_changes[] = {
	DRIVER_CHANGE_FULLSLEEP_ON_IDLE,
	DRIVER_CHANGE_RESET_ON_IDLE_OFF,
	DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE,
};
static const enum driver_change_id v3_5_changes[] = {
	DRIVER_CHANGE_FULLSLEEP_ON_IDLE,
	DRIVER_CHANGE_RESET_ON_IDLE_OFF,
	DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE,
	DRIVER_CHANGE_FULLSLEEP_AFTER_RX_ABORT,
	DRIVER_CHANGE_PHY_PREFIX,
};

static const struct {
	const char *name;
	size_t count;
	const enum driver_change_id *changes;
} variants[DRIVER_VARIANT_COUNT] = {
	[DRIVER_VARIANT_V3_3] = { "v3.3", 0, NULL },
	[DRIVER_VARIANT_V3_3_1] = { "v3.3.1", 1, v3_3_1_changes },
	[DRIVER_VARIANT_BAD_BACKPORT] = { "bad-backport", 1, bad_backport_changes },
	[DRIVER_VARIANT_V3_4] = { "v3.4", 3, v3_4_changes },
	[DRIVER_VARIANT_V3_5] = { "v3.5", 5, v3_5_changes },
};

size_t driver_variant_changes(enum driver_variant variant,
			      const enum driver_change_id **list)
{
	*list = variants[variant].changes;
	return variants[variant].count;
}

const char *driver_variant_name(enum driver_variant variant)
{
	return variants[variant].name;
}

int driver_variant_from_name(const char *name, enum driver_variant *variant)
{
	int i;

	for (i = 0; i < DRIVER_VARIANT_COUNT; i++) {
		if (strcmp(variants[i].name, name) == 0) {
			*variant = (enum driver_variant)i;
			return 0;
		}
	}
	return -1;
}
