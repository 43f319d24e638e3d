/*
 * kernel_build.h - build one commit of a kernel tree, once, and wait for it.
 *
 * The synchronous face of build.h for command-line tools: the commit is
 * built with `make` in a temporary git worktree (the tree's own checkout is
 * never touched), and its image and release string are kept in a cache
 * directory keyed by the commit's git tree id, so asking again, or asking
 * for another commit with the same content, costs nothing. A commit that
 * does not build is remembered as such, with its build log.
 */
#ifndef RB_KERNEL_BUILD_H
#define RB_KERNEL_BUILD_H

#include <limits.h>
#include <stddef.h>

struct kernel_build {
	char commit[41];
	char image[PATH_MAX];	/* <cache>/<tree id>/image */
	char release[256];	/* what `uname -r` shows once booted */
	char log[PATH_MAX];	/* the build's output */
};

/*
 * Builds `ref` of the git tree at `tree` into `cache_dir`, the image being
 * arch/x86/boot/bzImage and the release include/config/kernel.release.
 * Returns 0 when built (or cached), -ENOEXEC when the commit does not build
 * (build->log says why), -ENOENT when ref names no commit, -EINVAL for a ref
 * starting with '-', -ECANCELED when SIGINT, SIGTERM or SIGHUP arrived (the
 * build is stopped and its worktree removed), other negative errno for
 * trouble outside the tree. `error` says what happened.
 */
int kernel_build_commit(const char *tree, const char *ref, const char *cache_dir,
			struct kernel_build *build, char *error, size_t error_len);

/* $XDG_CACHE_HOME/rackbisect/kernels, else ~/.cache/rackbisect/kernels:
 * build_default_cache(), under the name the tools know. */
int kernel_build_default_cache(char *path, size_t len);

#endif
