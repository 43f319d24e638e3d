/*
 * unpack_modules.h - the board-side sh text that puts a build's modules in
 * place, shared by every way a build reaches a board (drivers/boot/install.c
 * over SSH, drivers/lava/job.c inside a LAVA job).
 *
 * Unpacks a modules tarball (its top directory the release) beside the
 * installed modules and swaps it in only once it is whole: a failed unpack
 * leaves the board's modules as they were. Fixed text: the directory,
 * release and tarball are its arguments ($1 $2 $3), never part of it.
 */
#ifndef RB_BOOT_UNPACK_MODULES_H
#define RB_BOOT_UNPACK_MODULES_H

#define BOOT_UNPACK_MODULES_SCRIPT \
	"set -e; dir=$1; release=$2; tarball=$3; new=$dir/.rackbisect-new-$release; " \
	"rm -rf \"$new\"; mkdir -p \"$new\"; tar -xzf \"$tarball\" -C \"$new\"; " \
	"test -d \"$new/$release\" || { echo \"$tarball has no directory $release\" >&2; exit 1; }; " \
	"rm -rf \"$dir/$release\"; mv \"$new/$release\" \"$dir/$release\"; rm -rf \"$new\" \"$tarball\""

#endif
