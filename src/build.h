/*
 * build.h - kernel builds on the caller's libuv loop, each done once.
 *
 * A build resolves a ref of a git tree to a commit and that commit to its
 * git tree id, and keeps what it made under <cache>/<tree id>/, so every
 * commit with the same content (a revert of a revert, an empty commit, the
 * same patch on another branch) shares one build:
 *
 *   <cache>/<tree id>/image       the kernel image (the artifact, copied)
 *   <cache>/<tree id>/release     its `uname -r` string, one line
 *   <cache>/<tree id>/commit      the commit that was built
 *   <cache>/<tree id>/build.log   the build's standard output and error
 *   <cache>/<tree id>/checksums   "<FNV-1a 64, 16 hex digits> <size> <name>"
 *                                 a line for image (and modules.tar.gz)
 *   <cache>/<tree id>/failed      present when it did not build: why (and
 *                                 then no image, and no checksums)
 *
 * A commit that does not build is remembered too: asking again reports the
 * failure with its log and builds nothing. Remove <cache>/<tree id> to retry.
 *
 * Every cache hit checks the files its checksums file lists (size, then
 * hash), so that an artifact truncated or changed on disk since it was
 * built is never booted, and its commit never blamed for it: an entry that
 * fails (a listed file missing or different, the checksums file damaged)
 * is renamed to <cache>/corrupt/<entry name>-<unix time>-<pid>, kept there
 * to look at (nothing removes it), and the commit is built again as if it
 * had no entry (result->corrupt_entry says where it went). FNV-1a finds
 * damage, not tampering. An entry without a checksums file (written before
 * they were kept) is trusted as it is.
 *
 * The commit is checked out in a worktree of the tree's own (the tree's own
 * checkout and index are never touched) and built there with build_argv; the
 * entry is written into <cache>/staging/ and renamed into place, so a crash
 * never leaves half an entry. Worktrees are kept for the next builds, up to
 * 8 per repository: <cache>/work/slot-<hash of the tree's path>-<n>, each
 * taken by one build at a time (flock on slot-...-<n>.lock, which a crash
 * lets go of). The next build there checks its commit out with
 * `git checkout --force`, which writes only the files that differ (a
 * kernel's 70,000 are not written again, and its build rebuilds only what
 * changed), and deletes the artifact and release file first so that a build
 * that makes none is never credited with an earlier one's. A slot git
 * cannot check out in is made anew. When every slot is busy, a build gets a
 * worktree of its own, <cache>/work/<commit>-XXXXXX, removed however the
 * build ends, before the callback runs.
 *
 * Every child (git, the build command) is started with uv_spawn and an argv,
 * never through a shell, and is waited for on the loop: nothing blocks on a
 * child. Children inherit the caller's environment, except that git never
 * prompts (GIT_TERMINAL_PROMPT=0) and variables that would point git at
 * another repository (GIT_DIR, GIT_WORK_TREE, ...) are dropped. The build
 * command runs in a process group of its own so that cancelling it ends
 * everything it started.
 *
 *   struct build_request request = {
 *       .tree = "/src/linux", .ref = "v6.9-rc1",
 *       .artifact = "arch/x86/boot/bzImage",
 *       .release_file = "include/config/kernel.release",
 *       .cache_dir = "/var/cache/rackbisect/kernels",
 *   };
 *   rc = build_start(loop, &request, on_built, context, &build);
 *   ...
 *   static void on_built(struct build *build, const struct build_result *result, void *data)
 *   { if (result->status == 0) boot(result->image, result->release); ... }
 *
 * A kernel tree built the kbuild way (request->kbuild, see kbuild.h) is
 * configured and built out of tree, in <worktree>.out beside its worktree
 * (kept with a slot, removed with a worktree of its own); artifact and
 * release_file are then relative to that directory, and its entry is
 * <cache>/<tree id>-<recipe id> (kbuild_recipe_id: the fragment's content
 * and the make words are in it), holding also
 *
 *   <cache>/<tree id>-<recipe id>/modules.tar.gz   lib/modules/<release>, when
 *                                                   the recipe installs modules
 *                                                   (in checksums too)
 *
 * A fragment line that olddefconfig dropped makes the commit one that does
 * not build, said so in its log and error text.
 *
 * Several builds may run at once on one loop, of the same commit or not,
 * and several processes may share one cache: a build that misses takes the
 * entry's lock (flock on <cache>/locks/<entry name>.lock, let go of when
 * the entry is written or the build ends, or by a crash) and looks again; a
 * build of the same tree already under way, here or in another process,
 * makes it wait (looking every 100 ms) and then find that build's entry, so
 * two bisections of one history build the commits they both ask for once.
 * The lock files are empty and stay (one per entry).
 * There is no global state; a build is used from its loop's thread only
 * (artifacts are hashed on the loop's thread pool, as the image is copied).
 *
 * A build queue bounds how many of the builds given it work at once (check
 * out, build, store: what takes the CPU); the others wait their turn, and
 * look the cache up again when it comes, since a build of the same tree may
 * have stored it meanwhile. Builds marked background (a bisection's guesses
 * at its next round) wait behind every other, so a build something waits
 * for is never held up by guesses; a background build still queued when the
 * guess turned out wrong is cancelled before it cost anything:
 *
 *   build_queue_init(loop, &queue, 0);          // 0: one per CPU
 *   request.queue = &queue; request.background = true;
 *   build_start(loop, &request, on_built, context, &build);
 *   ...
 *   if (build_is_queued(build)) build_cancel(build);   // or build_prioritize(build)
 *   ...
 *   build_queue_close(&queue);                  // once every build has called back
 */
#ifndef RB_BUILD_H
#define RB_BUILD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "kbuild.h"

struct build;

struct build_queue {
	uv_timer_t kick;		/* on the loop: starts the builds whose turn came,
					 * ends the ones cancelled while waiting */
	unsigned int limit;		/* builds working at once */
	unsigned int working;
	struct build *first, *last;	/* waiting, in the order they came */
};

struct build_request {
	const char *tree;		/* git work tree (or repository) path */
	const char *ref;		/* anything `git rev-parse` takes; not starting with '-' */
	char *const *build_argv;	/* NULL-terminated, run in the worktree; NULL: {"make"} */
	const char *artifact;		/* the image, relative to the tree: "arch/x86/boot/bzImage" */
	const char *release_file;	/* relative: "include/config/kernel.release" */
	const char *cache_dir;		/* created if missing */
	const struct kbuild_recipe *kbuild; /* NULL: build_argv in the worktree; else build_argv
					     * are the make words, and the fragment, if any, an
					     * absolute path */
	struct build_queue *queue;	/* NULL: works at once, bounded by nothing */
	bool background;		/* in a queue: waits behind every build that is not */
	/* the build commands' time, all together (a build that hangs stalls
	 * run, bisect, gate and nightly); past it, everything they started is
	 * killed and the result is -ENOEXEC with timed_out. 0: none */
	uint64_t timeout_ms;
};

/*
 * status:
 *   0            built now, or found in the cache (cached says which)
 *   -ENOEXEC     the commit does not build: the build command failed, or left
 *                no artifact or release string; log says why. Remembered,
 *                except when it ran past the request's timeout (timed_out):
 *                asking again builds again.
 *   -ENOENT      ref names no commit in tree
 *   -ECANCELED   build_cancel() was called
 *   other -errno trouble outside the commit (git failed, the cache's disk is
 *                full, the build was killed by a signal not ours, ...):
 *                nothing is remembered, asking again retries. Never one of
 *                the codes above.
 */
struct build_result {
	int status;
	bool cached;			/* nothing was built for this request */
	bool timed_out;			/* -ENOEXEC: it ran past request->timeout_ms */
	char commit[41];		/* full commit id ("" when ref named none) */
	char tree_id[41];		/* its git tree id, the cache key */
	char image[PATH_MAX];		/* <cache>/<tree id>/image; "" unless status is 0 */
	char release[256];		/* `uname -r` once booted; "" unless status is 0 */
	char modules[PATH_MAX];		/* <entry>/modules.tar.gz, its top directory the release;
					 * "" when the build installs no modules */
	char log[PATH_MAX];		/* the build's log, kept for failures too; "" if none ran */
	char corrupt_entry[PATH_MAX];	/* where the commit's entry was moved, found corrupt
					 * (<cache>/corrupt/...) and so built again, whatever
					 * status that build ended with; "" normally. Set by
					 * the one build that moved it, when several met it */
	const char *error_text;		/* what went wrong, naming the commit and the step,
					 * and what to do; NULL when status is 0 */
};

/*
 * Called exactly once per started build, never from within build_start().
 * result and the build are valid during the call only: the build is freed
 * when the callback returns.
 */
typedef void (*build_cb)(struct build *build, const struct build_result *result, void *data);

/*
 * Starts building request->ref. The request's strings are copied. Returns 0
 * and sets *build_out (may be NULL) when the callback will be called;
 * otherwise a negative errno and the callback is never called:
 *   -EINVAL  a field is missing, ref starts with '-', artifact or
 *            release_file is absolute or contains a ".." component, or a
 *            kbuild recipe has no config target or a relative fragment
 *   -ENOENT (or another errno) the kbuild fragment cannot be read
 *   -ENAMETOOLONG, -ENOMEM, or why cache_dir could not be created.
 */
int build_start(uv_loop_t *loop, const struct build_request *request, build_cb callback,
		void *data, struct build **build_out);

/*
 * Ends the build: the running child (and, for the build command, its whole
 * process group) is killed with SIGKILL, the worktree and the unfinished
 * entry are removed, and the callback reports -ECANCELED (an entry already
 * in the cache stays there). The build is freed once
 * its handles are closed, after the callback. Only before the callback has
 * been called; calling it from the callback itself does nothing. As always,
 * the callback comes from the loop, never from within build_cancel() (a
 * build waiting in its queue is ended by the queue's timer).
 */
void build_cancel(struct build *build);

/* True while the build waits in its queue: nothing of it has started (a
 * cache hit never waits). Only before the callback has been called. */
bool build_is_queued(const struct build *build);

/* A background build becomes an ordinary one: something now waits for it.
 * Only before the callback has been called. */
void build_prioritize(struct build *build);

/* limit 0: uv_available_parallelism(), the CPUs this process may use.
 * 0, or libuv's error initialising the timer. */
int build_queue_init(uv_loop_t *loop, struct build_queue *queue, unsigned int limit);

/* Closes its timer. Only once every build given the queue has called back:
 * a build still waiting would never be started. */
void build_queue_close(struct build_queue *queue);
/* Before closing, when builds may still wait (a bisection that stopped with
 * builds ahead of it queued): cancels each, and says whether any still
 * waits. Run the loop until it says none: each ends on the queue's timer,
 * calling back with -ECANCELED.
 *   while (build_queue_cancel_waiting(&queue) && uv_run(loop, UV_RUN_ONCE)) ;
 */
bool build_queue_cancel_waiting(struct build_queue *queue);

/* $XDG_CACHE_HOME/rackbisect/kernels, else ~/.cache/rackbisect/kernels;
 * 0, -ENOENT when neither variable is set, or -ENAMETOOLONG. */
int build_default_cache(char *path, size_t len);

#endif
