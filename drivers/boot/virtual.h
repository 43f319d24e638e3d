/*
 * The virtual lab's boot driver: the kernel image goes to
 * /boot/vmlinuz-<release> over the board's transport, then `kexec -l` and
 * `kexec -e` start it, as on a rack machine that boots kernels by kexec.
 */
#ifndef RB_BOOT_VIRTUAL_H
#define RB_BOOT_VIRTUAL_H

#include "boot/boot.h"

extern const struct boot_ops virtual_boot_ops;

#endif
