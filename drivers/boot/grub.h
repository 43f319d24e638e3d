/*
 * Boot by GRUB, for a board whose kernel kexec cannot replace (firmware
 * that must reset the card, a board without kexec): the build is installed
 * (boot/install.h), a menu entry for it written as the one entry of
 * <boot_directory>/grub/rackbisect.cfg, `grub-reboot rackbisect` makes it
 * the next boot only (read back with `grub-editenv ... list`: grub-reboot
 * exits 0 even when it could not write), and `reboot` starts it. GRUB clears the one-shot
 * choice as it boots it, so whatever happens next (a panic, a hang, the
 * coordinator's power cycle) the board comes back on GRUB's default entry:
 * the board's `fallback`.
 *
 *   boot: {driver: grub, fallback: 6.1.0-13-amd64,
 *          command_line: "root=/dev/sda2 ro console=ttyS0,115200",
 *          initrd: /boot/initrd.img-generic,       # on the board; optional
 *          grub_boot_path: /boot}                  # the default
 *
 * `command_line` is the whole `linux` line after the image (root= belongs
 * there); the job's words follow. `grub_boot_path` is how GRUB names the
 * board's /boot: "/boot" when /boot is on the root file system, "/" when it
 * is a partition of its own. Each word is single-quoted for GRUB's parser.
 *
 * Once per board, GRUB must read rackbisect.cfg: add /etc/grub.d/42_rackbisect
 *
 *   #!/bin/sh
 *   cat <<'CFG'
 *   if [ -f ${config_directory}/rackbisect.cfg ]; then
 *     source ${config_directory}/rackbisect.cfg
 *   fi
 *   CFG
 *
 * (chmod +x, then update-grub). Debian's grub.cfg honours grub-reboot's
 * next_entry with its default settings. grub-reboot is grub2-common's.
 */
#ifndef RB_BOOT_GRUB_H
#define RB_BOOT_GRUB_H

#include "boot/boot.h"

extern const struct boot_ops grub_boot_ops;

#endif
