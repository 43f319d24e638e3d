/*
 * Boot by kexec, as a rack machine that keeps a working kernel installed
 * does: the image goes to /boot/vmlinuz-<release> over the board's
 * transport, `kexec -l` loads it with the command line, `kexec -e` starts
 * it. A power cycle brings back the installed kernel (the board's
 * `fallback`), so a build that does not boot costs one cycle, not a board.
 *
 *   boot: {driver: kexec, fallback: 6.1.0-13-amd64,
 *          initrd: /boot/initrd.img-generic,        # on the board; optional
 *          command_line: "console=ttyS0,115200 root=/dev/sda2",
 *          modules_dir: /lib/modules}                 # the default
 *
 * `command_line` is the kernel's whole command line before the job's own
 * `kernel: {command_line: ...}` words (default "console=ttyS0,115200");
 * `initrd`, a file already on the board, is given to `kexec -l --initrd`
 * (an initramfs that boots any kernel, e.g. dracut's --no-hostonly).
 *
 * A build with modules (a kbuild job's modules.tar.gz, its top directory
 * the release) is uploaded to <modules_dir>/.rackbisect-<release>.tar.gz and
 * unpacked by the board's own sh and tar (-z) beside the installed modules,
 * then swapped in for <modules_dir>/<release>, before `kexec -l`: a failed
 * unpack leaves the board's modules as they were and fails the boot (INFRA).
 *
 * The virtual lab's boards run a simulated kexec: `virtual_boot_ops` (boot/
 * virtual.h) is this driver under the name those labs use, without options.
 */
#ifndef RB_BOOT_KEXEC_H
#define RB_BOOT_KEXEC_H

#include "boot/boot.h"

extern const struct boot_ops kexec_boot_ops;

#endif
