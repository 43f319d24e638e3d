/*
 * rackbisect-vlab build --tree DIR --commit REF [--cache DIR]
 *
 * Builds one commit of a model kernel tree (once: cached by git tree id) and
 * prints "<image path> <release>". Until the coordinator exists, this is how
 * the demo and the tests get bootable kernels.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kernel_build.h"
#include "virtual/vlab_commands.h"

static const char usage_text[] =
	"usage: rackbisect-vlab build --tree DIR --commit REF [--cache DIR]\n"
	"Builds REF of the kernel tree DIR in a temporary worktree (cached by git tree id,\n"
	"default $XDG_CACHE_HOME/rackbisect/kernels) and prints: IMAGE RELEASE\n"
	"Exit: 0 built, 1 the commit does not build, 2 usage or no such commit.\n";

int vlab_cmd_build(int argc, char **argv)
{
	const char *tree = NULL, *commit = NULL, *cache_option = NULL;
	struct kernel_build build;
	char cache[PATH_MAX], error[1200];
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage_text, stdout);
			return VLAB_EXIT_OK;
		} else if (strcmp(argv[i], "--tree") == 0 && i + 1 < argc) {
			tree = argv[++i];
		} else if (strcmp(argv[i], "--commit") == 0 && i + 1 < argc) {
			commit = argv[++i];
		} else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc) {
			cache_option = argv[++i];
		} else {
			fprintf(stderr, "rackbisect-vlab build: unexpected argument '%s'\n%s", argv[i], usage_text);
			return VLAB_EXIT_USAGE;
		}
	}
	if (!tree || !commit) {
		fputs(usage_text, stderr);
		return VLAB_EXIT_USAGE;
	}
	if (cache_option)
		snprintf(cache, sizeof(cache), "%s", cache_option);
	else if (kernel_build_default_cache(cache, sizeof(cache)) != 0) {
		fprintf(stderr, "rackbisect-vlab build: no cache directory: give --cache DIR\n");
		return VLAB_EXIT_USAGE;
	}
	rc = kernel_build_commit(tree, commit, cache, &build, error, sizeof(error));
	if (rc) {
		fprintf(stderr, "rackbisect-vlab build: %s\n", error);
		return rc == -ENOEXEC ? VLAB_EXIT_FAIL
		       : rc == -ENOENT || rc == -EINVAL ? VLAB_EXIT_USAGE : VLAB_EXIT_INFRA;
	}
	printf("%s %s\n", build.image, build.release);
	return VLAB_EXIT_OK;
}
