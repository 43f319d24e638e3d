/*
 * driver_changes.h - the ath9k power-save changes the model history is made of.
 *
 * Each change is a list of text edits (old -> new) on files of the model
 * kernel tree, written as the real commits changed the real driver. A model
 * kernel's behaviour differs only by which of these were applied, so the
 * history generator commits them and the simulator's tests can build any
 * variant without a git tree.
 */
#ifndef RB_DRIVER_CHANGES_H
#define RB_DRIVER_CHANGES_H

#include <stddef.h>

struct driver_edit {
	const char *path;	/* in the model kernel tree */
	const char *old_text;	/* must occur exactly once */
	const char *new_text;
};

enum driver_change_id {
	/* c1afdaff "ath9k: fix going to full-sleep on PS idle" (3.4-rc1, 3.3.1) */
	DRIVER_CHANGE_FULLSLEEP_ON_IDLE = 0,
	/* its revert (3.4-rc, 3.3.2) */
	DRIVER_CHANGE_REVERT_FULLSLEEP_ON_IDLE,
	/* a bad backport of c1afdaff: the second hunk without the first */
	DRIVER_CHANGE_BAD_BACKPORT,
	/* "wake up the hardware from full sleep when idle is turned off" (3.4) */
	DRIVER_CHANGE_RESET_ON_IDLE_OFF,
	/* full sleep on idle again, with RX aborted and RX DMA stopped (3.5) */
	DRIVER_CHANGE_FULLSLEEP_AFTER_RX_ABORT,
	/* "ath: phyN: " prefix on driver messages (3.5) */
	DRIVER_CHANGE_PHY_PREFIX,
	DRIVER_CHANGE_COUNT
};

struct driver_change {
	enum driver_change_id id;
	const char *subject;		/* commit subject */
	const char *body;		/* commit message body, without trailers */
	const char *author;		/* "Name <mail>" */
	size_t edit_count;
	const struct driver_edit *edits;
};

const struct driver_change *driver_change_get(enum driver_change_id id);

/*
 * Applies every edit of `change` that touches `path` to `text` (NUL-terminated).
 * Returns a newly allocated string, or NULL with *error set to a static
 * message when an old text is missing (the change does not apply).
 */
char *driver_change_apply(const struct driver_change *change, const char *path,
			  const char *text, const char **error);

/* Named driver variants as the lab knows them (ath9k-model.md §3). */
enum driver_variant {
	DRIVER_VARIANT_V3_3 = 0,	/* v3.3, also 3.3.2+ after the revert */
	DRIVER_VARIANT_V3_3_1,		/* c1afdaff applied */
	DRIVER_VARIANT_BAD_BACKPORT,
	DRIVER_VARIANT_V3_4,		/* reverted, reset on idle-off */
	DRIVER_VARIANT_V3_5,		/* full sleep after RX abort, reset on idle-off */
	DRIVER_VARIANT_COUNT
};

/* The changes, in order, that turn the v3.3 driver into `variant`. */
size_t driver_variant_changes(enum driver_variant variant,
			      const enum driver_change_id **changes);
const char *driver_variant_name(enum driver_variant variant);
int driver_variant_from_name(const char *name, enum driver_variant *variant);

#endif
