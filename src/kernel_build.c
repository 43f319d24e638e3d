/* kernel_build.c - one commit, one worktree, one make, cached by commit id. */
#include "kernel_build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "path.h"
#include "subprocess.h"

int kernel_build_default_cache(char *path, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		return path_format(path, len, "%s/rackbisect/kernels", xdg);
	if (home && *home)
		return path_format(path, len, "%s/.cache/rackbisect/kernels", home);
	return -ENOENT;
}

static int resolve_commit(const char *tree, const char *ref, char commit[41])
{
	char spec[600];
	char *argv[] = { "git", "-C", (char *)tree, "rev-parse", "--verify", "--quiet", spec, NULL };
	char *output = NULL;
	int rc;

	/* "--end-of-options" is not in every git; a ref starting with '-' is
	 * refused here instead, so it can never be taken for an option. */
	if (ref[0] == '-' || strlen(ref) > 500)
		return -EINVAL;
	snprintf(spec, sizeof(spec), "%s^{commit}", ref);
	rc = subprocess_run(argv, NULL, &output);
	if (rc == 0 && output && strlen(output) >= 40) {
		memcpy(commit, output, 40);
		commit[40] = '\0';
	} else if (rc >= 0) {
		rc = -ENOENT;
	}
	free(output);
	return rc;
}

/* Checks out, builds, and keeps the image and release. */
static int build_in_worktree(const char *tree, struct kernel_build *build, const char *entry,
			     const char *worktree)
{
	char release_path[1200], image_path[1200], release_file[1100], failed_marker[1100];
	char *add[] = { "git", "-C", (char *)tree, "worktree", "add", "--detach", "--force",
			(char *)worktree, build->commit, NULL };
	char *make[] = { "make", "-C", (char *)worktree, NULL };
	char *remove[] = { "git", "-C", (char *)tree, "worktree", "remove", "--force",
			   (char *)worktree, NULL };
	struct subprocess_options logged = { .log_path = build->log };
	int rc;

	rc = subprocess_run(add, &logged, NULL);
	if (rc != 0)
		return rc < 0 ? rc : -EIO;
	rc = subprocess_run(make, &logged, NULL);
	path_format(release_path, sizeof(release_path), "%s/include/config/kernel.release", worktree);
	path_format(image_path, sizeof(image_path), "%s/arch/x86/boot/bzImage", worktree);
	path_format(release_file, sizeof(release_file), "%s/release", entry);
	path_format(failed_marker, sizeof(failed_marker), "%s/build-failed", entry);
	if (rc == 0 && (rc = files_read_line(release_path, build->release, sizeof(build->release))) == 0 &&
	    (rc = files_copy(image_path, build->image, 0644)) == 0)
		rc = files_copy(release_path, release_file, 0644);
	else if (rc > 0) {
		FILE *marker = fopen(failed_marker, "w");
		if (marker)
			fclose(marker);
		rc = -ENOEXEC;
	}
	subprocess_run(remove, &logged, NULL);
	return rc;
}

int kernel_build_commit(const char *tree, const char *ref, const char *cache_dir,
			struct kernel_build *build, char *error, size_t error_len)
{
	char entry[1100], failed_marker[1200], release_file[1200], worktree[] = "/tmp/rackbisect-build-XXXXXX";
	int rc;

	memset(build, 0, sizeof(*build));
	rc = resolve_commit(tree, ref, build->commit);
	if (rc) {
		snprintf(error, error_len, "%s: '%s' names no commit%s", tree, ref,
			 rc == -EINVAL ? " (a ref may not start with '-')" : "");
		return rc == -EINVAL ? rc : -ENOENT;
	}
	if (path_format(entry, sizeof(entry), "%s/%s", cache_dir, build->commit) ||
	    path_format(build->image, sizeof(build->image), "%s/bzImage", entry) ||
	    path_format(build->log, sizeof(build->log), "%s/build.log", entry) ||
	    path_format(failed_marker, sizeof(failed_marker), "%s/build-failed", entry) ||
	    path_format(release_file, sizeof(release_file), "%s/release", entry)) {
		snprintf(error, error_len, "the build cache path %s is too long", cache_dir);
		return -ENAMETOOLONG;
	}
	if (access(failed_marker, F_OK) == 0) {
		snprintf(error, error_len, "commit %.12s does not build (log: %s)", build->commit, build->log);
		return -ENOEXEC;
	}
	if (access(build->image, R_OK) == 0 &&
	    files_read_line(release_file, build->release, sizeof(build->release)) == 0)
		return 0;
	if ((rc = path_make_dirs(entry)) != 0) {
		snprintf(error, error_len, "cannot create the build cache %s: %s", entry, strerror(-rc));
		return rc;
	}
	unlink(build->log);
	if (!mkdtemp(worktree)) {
		snprintf(error, error_len, "cannot make a temporary worktree: %s", strerror(errno));
		return -errno;
	}
	rc = build_in_worktree(tree, build, entry, worktree);
	rmdir(worktree);
	if (rc == -ENOEXEC)
		snprintf(error, error_len, "commit %.12s does not build (log: %s)", build->commit, build->log);
	else if (rc)
		snprintf(error, error_len, "could not build commit %.12s: %s (log: %s)", build->commit,
			 strerror(rc < 0 ? -rc : EIO), build->log);
	return rc;
}
