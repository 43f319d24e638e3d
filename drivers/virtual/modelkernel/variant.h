/*
 * variant.h - build a named model kernel variant without a git history.
 *
 * Writes the embedded v3.3 tree (template.h) into a directory with the
 * variant's driver changes applied in order (driver_changes.h), runs
 * `make -s -C DIR` and hands back the built bzImage: the shared object a
 * board boots. Tests and benchmarks use it to get v3.3, v3.3.1 (c1afdaff),
 * the bad backport, v3.4 and v3.5 in a second.
 */
#ifndef RB_MODELKERNEL_VARIANT_H
#define RB_MODELKERNEL_VARIANT_H

#include <stddef.h>

#include "virtual/modelkernel/driver_changes.h"

/*
 * dir is created if missing (its parent must exist). On success so_path
 * holds DIR/arch/x86/boot/bzImage and 0 is returned; otherwise a negative
 * errno: -EINVAL unknown variant, -ENAMETOOLONG so_path too short, -ENOEXEC
 * a change does not apply to the template, -EIO make failed (its messages
 * went to stderr), or the errno of a file operation.
 */
int modelkernel_build_variant(enum driver_variant variant, const char *dir,
			      char *so_path, size_t len);

/* The same, with make run in the process environment plus extra_env
 * ("NAME=value" strings, NULL-terminated; a NAME given here replaces the
 * inherited one), e.g. { "LOCALVERSION=-lab-fallback", NULL }. */
int modelkernel_build_variant_env(enum driver_variant variant, const char *dir,
				  char *const extra_env[], char *so_path, size_t len);

#endif
