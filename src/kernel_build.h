/*
 * kernel_build.h - build one commit of a kernel tree, once.
 *
 * The commit is checked out in a temporary git worktree (the tree's own
 * checkout is never touched), built with `make`, and its image and release
 * string are kept in a cache directory keyed by commit id, so asking again
 * costs nothing. A commit that does not build is remembered as such, with
 * its build log.
 */
#ifndef RB_KERNEL_BUILD_H
#define RB_KERNEL_BUILD_H

#include <stddef.h>

struct kernel_build {
	char commit[41];
	char image[1024];	/* <cache>/<commit>/bzImage */
	char release[256];	/* what `uname -r` shows once booted */
	char log[1024];		/* the build's output */
};

/*
 * Builds `ref` of the git tree at `tree` into `cache_dir`. Returns 0 when
 * built (or cached), -ENOEXEC when the commit does not build (build->log
 * says why), -ENOENT when ref names no commit, other negative errno for
 * trouble outside the tree. `error` says what happened.
 */
int kernel_build_commit(const char *tree, const char *ref, const char *cache_dir,
			struct kernel_build *build, char *error, size_t error_len);

/* $XDG_CACHE_HOME/rackbisect/kernels, else ~/.cache/rackbisect/kernels. */
int kernel_build_default_cache(char *path, size_t len);

#endif
