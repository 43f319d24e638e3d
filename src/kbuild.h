/*
 * kbuild.h - how a real Linux tree is built: the make command lines of a
 * kbuild build and the config fragment it must honour. Pure functions: no
 * loop, no children; build.c runs what these describe.
 *
 * A kbuild build happens out of tree (O=DIR, one directory per worktree so
 * a tree's sources stay clean and each worktree rebuilds incrementally):
 *
 *   make O=DIR x86_64_defconfig                  the base configuration
 *   (the fragment is appended to DIR/.config)    later lines win in kconfig
 *   make O=DIR olddefconfig                      dependencies resolved
 *   (every fragment line must have survived)     else: it does not build
 *   make O=DIR -jN [CC=ccache gcc] bzImage modules
 *   make O=DIR INSTALL_MOD_PATH=ROOT INSTALL_MOD_STRIP=1 modules_install
 *   tar -C ROOT/lib/modules -czf TARBALL RELEASE  unpacked on the board into
 *                                                /lib/modules
 *
 * Every command starts with the job's build words ([make] unless the job
 * says otherwise, e.g. [make, LLVM=1]); -jN is added unless a word starts
 * with -j, and CC=ccache gcc when ccache is in PATH and no word sets CC or
 * LLVM.
 */
#ifndef RB_KBUILD_H
#define RB_KBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kbuild_recipe {
	const char *config_target;	/* make target for the base .config: "x86_64_defconfig" */
	const char *fragment;		/* absolute path of a config fragment; NULL: none */
	char *const *targets;		/* NULL-terminated; NULL: {"bzImage", "modules"} */
	bool modules;			/* install the modules and pack them as a tarball */
};

enum kbuild_step {
	KBUILD_CONFIGURE,		/* make O=DIR <config_target> */
	KBUILD_OLDDEFCONFIG,		/* make O=DIR olddefconfig */
	KBUILD_MAKE,			/* make O=DIR -jN <targets> */
	KBUILD_MODULES_INSTALL,		/* make O=DIR INSTALL_MOD_PATH=ROOT ... modules_install */
	KBUILD_PACK_MODULES,		/* tar -C ROOT/lib/modules -czf TARBALL RELEASE */
};

struct kbuild_paths {
	const char *build_dir;		/* O= */
	const char *install_root;	/* INSTALL_MOD_PATH */
	const char *tarball;		/* the modules tarball to write */
	const char *release;		/* what the build made; for KBUILD_PACK_MODULES */
	unsigned int jobs;		/* make -j; 0: 1 */
	bool ccache;			/* ccache is in PATH */
};

/* "configure", "olddefconfig", ... for progress and error texts. */
const char *kbuild_step_name(enum kbuild_step step);

/*
 * The NULL-terminated argv of one step (malloc'd, every word too: free with
 * kbuild_free_argv), or NULL when out of memory. make_words is the job's
 * build command ({"make"} when NULL).
 */
char **kbuild_argv(const struct kbuild_recipe *recipe, char *const *make_words,
		   enum kbuild_step step, const struct kbuild_paths *paths);
void kbuild_free_argv(char **argv);

/* Whether `program` is an executable file in one of PATH's directories. */
bool kbuild_program_in_path(const char *program);

/*
 * Reads the fragment and checks that every line is kconfig (CONFIG_X=value,
 * "# CONFIG_X is not set", a comment or blank). 0, -EINVAL with `why`
 * naming file:line, or another negative errno when it cannot be read.
 */
int kbuild_validate_fragment(const char *fragment_path, char *why, size_t why_len);

/*
 * Appends the fragment's lines to the .config at config_path, after a
 * comment naming it: kconfig takes the last value given for a symbol.
 * 0, or negative errno with `why` naming the file.
 */
int kbuild_merge_fragment(const char *config_path, const char *fragment_path, char *why,
			  size_t why_len);

/*
 * After olddefconfig: every CONFIG_X=v of the fragment must be in the
 * .config as written, and every "# CONFIG_X is not set" (or CONFIG_X=n)
 * must not be set. 0 when all survived; -ENOEXEC with `why` listing the
 * first that did not and what the .config holds instead (a dependency is
 * not met, or the symbol does not exist in this tree); other negative errno
 * when a file cannot be read.
 */
int kbuild_check_fragment(const char *config_path, const char *fragment_path, char *why,
			  size_t why_len);

/*
 * A stable 16-hex-digit name for the recipe, the build words, the output
 * paths and the fragment's content: builds of one tree with different
 * recipes are kept apart in the cache. 0, or negative errno when the
 * fragment cannot be read.
 */
int kbuild_recipe_id(const struct kbuild_recipe *recipe, char *const *make_words,
		     const char *artifact, const char *release_file, char id[17]);

#endif
