/*
 * grub_firmware.h - what GRUB does when a virtual board starts (a reboot
 * or a power-on without a kexec'd kernel), so the grub boot driver runs
 * against a board that behaves like Debian's grub.cfg: a one-shot choice
 * made by the real grub-reboot (next_entry in <boot>/grub/grubenv) is
 * booted once and cleared, as GRUB's `save_env next_entry` clears it; the
 * entry is looked up by --id in <boot>/grub/rackbisect.cfg, which the
 * board's grub.cfg sources; without a choice (or with one naming no entry)
 * GRUB boots its default: the board's installed kernel.
 */
#ifndef RB_GRUB_FIRMWARE_H
#define RB_GRUB_FIRMWARE_H

#include <stddef.h>

/*
 * boot_dir is the board's /boot. Returns 1 and fills image (the `linux`
 * line's path, as GRUB names it: "/boot/vmlinuz-X") and command_line
 * ("BOOT_IMAGE=/boot/vmlinuz-X" and the line's words, unquoted) when a
 * one-shot entry is booted, having cleared the choice in grubenv; 0 when
 * GRUB boots its default (error says why when a choice was there but
 * named no entry, else ""); a negative errno when grubenv could not be
 * read or rewritten (error says which).
 */
int grub_firmware_choose(const char *boot_dir, char *image, size_t image_len,
			 char *command_line, size_t command_line_len, char *error,
			 size_t error_len);

#endif
