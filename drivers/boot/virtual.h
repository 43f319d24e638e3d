/*
 * The virtual lab's boot driver: the kexec driver (boot/kexec.h, which
 * defines it) under the name virtual labs use, taking no options; a virtual
 * board's kexec is part of its simulation (drivers/virtual/board/).
 */
#ifndef RB_BOOT_VIRTUAL_H
#define RB_BOOT_VIRTUAL_H

#include "boot/boot.h"

extern const struct boot_ops virtual_boot_ops;

#endif
