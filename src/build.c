/*
 * build.c - see build.h. One build is a chain of steps, each started by the
 * previous one's completion on the loop:
 *
 *   resolve commit -> resolve tree -> look up the cache (verify its
 *   checksums, if it has them) -+-> callback (cached)
 *                               |
 *                               +-> (corrupt: set it aside, then as a miss)
 *   check out (a slot's worktree, or a new one) -> build command -> copy
 *   image -> sum the artifacts -> rename staging into the cache ->
 *   (remove a new worktree) -> callback
 *
 * A kbuild build's "build command" is its steps (kbuild.h), one child
 * after the other: configure -> fragment merged -> olddefconfig ->
 * fragment checked -> make -> modules_install -> pack modules.
 *
 * Any step may end the chain early; the worktree and the staging directory
 * are cleaned up on every way out. One child runs at a time per build, and
 * the next step starts only once the child's handles are closed, so the
 * same handles serve every child and nothing is open when the callback runs.
 */
#include "build.h"
#include "git_ref.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "path.h"
#include "subprocess.h"
#include "transport/shell_quote.h"

/* Worktrees kept per repository for builds to reuse: a lab builds a few
 * commits at once; beyond this many, a build gets a worktree of its own. */
#define BUILD_SLOTS 8
/* how often a build waiting for another's build of its tree looks again (ms) */
#define ENTRY_LOCK_POLL_MS 100

/* Given to every child: git must fail, not wait for a password no one types. */
static char *const child_settings[] = { "GIT_TERMINAL_PROMPT=0", NULL };

/* Set inside git hooks (and by some shell setups): any of them would make
 * `git -C TREE` or the build's own git calls act on another repository. */
static const char *const repository_variables[] = {
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", NULL,
};

enum child_kind {
	CHILD_GIT,	/* output and errors captured: an object id, or why git failed */
	CHILD_BUILD,	/* output and errors to the log; a process group of its own */
};

struct build;
typedef void (*child_finished_fn)(struct build *build);

/*
 * Hashing an entry's artifacts, on the loop's thread pool: a kernel image
 * is megabytes and modules.tar.gz can be a hundred, too long to read on the
 * loop's thread. The worker touches nothing of the build but this.
 */
struct entry_check {
	uv_work_t work;			/* data: the build */
	char dir[PATH_MAX];		/* the staging directory summed, or the entry verified */
	int status;			/* 0; -EBADMSG: the entry is corrupt; or trouble */
	struct stat verified;		/* the entry directory the verdict is about */
	char text[256];			/* the checksums file made */
	char problem[PATH_MAX + 128];	/* why the entry is corrupt, or what failed */
};

struct child {
	uv_process_t process;
	uv_pipe_t output_pipe;
	uv_pipe_t errors_pipe;
	int handles_open;
	bool running;			/* started and not yet exited: cancel kills it */
	enum child_kind kind;
	int spawn_status;		/* uv_spawn's error; 0 when the child ran */
	int64_t exit_status;
	int term_signal;
	uv_timer_t deadline;		/* CHILD_BUILD under a timeout: kills its group */
	bool timed_out;			/* the deadline killed it */
	char output[128];		/* an object id and a newline */
	size_t output_length;
	char errors[1024];		/* the end of git's complaint */
	size_t errors_length;
	char read_buffer[4096];
	child_finished_fn on_finished;	/* once every handle above is closed */
};

struct build {
	uv_loop_t *loop;
	build_cb callback;
	void *data;
	char tree[PATH_MAX];
	char ref[PATH_MAX];
	char **build_argv;
	bool is_kbuild;
	struct kbuild_recipe kbuild;	/* its strings owned here */
	char recipe_id[17];
	enum kbuild_step step;		/* the one running */
	char **step_argv;
	char build_dir[PATH_MAX];	/* kbuild's O=: <worktree>.out; "" when none */
	char output_dir[PATH_MAX];	/* where artifact and release_file are */
	char artifact[PATH_MAX];
	char release_file[PATH_MAX];
	char cache_dir[PATH_MAX];	/* absolute: git takes paths relative to -C TREE */
	char entry[PATH_MAX];		/* <cache>/<tree id> */
	char worktree[PATH_MAX];	/* "" until made, and once removed */
	int slot_fd;			/* the slot's lock, held while building in it; -1: none */
	int entry_lock_fd;		/* <cache>/locks/<entry>.lock, held from the cache's
					 * miss to the entry's rename; -1: not held */
	uv_timer_t lock_wait;		/* looks again while another build holds it */
	bool lock_wait_open;		/* lock_wait initialized: closed before the free */
	bool slot_pruned;		/* the slot was emptied and git told to forget it */
	unsigned int worktree_attempts;	/* git worktree add, raced by another add */
	char staging[PATH_MAX];		/* "" until made, and once renamed or removed */
	bool keep_staging;		/* it holds the log of a build that died */
	int log_fd;
	bool cancelled;
	struct build_queue *queue;	/* NULL: none */
	bool background;		/* waits behind every build that is not */
	bool queued;			/* waiting in the queue for its turn */
	bool working;			/* holds one of the queue's places */
	struct build *queue_prev, *queue_next;
	bool cleaning_up;		/* the result is known; only tidying is left */
	uint64_t timeout_ms;		/* the build commands' time, all together; 0: none */
	uint64_t deadline_ms;		/* loop time they must end by; 0: not started */
	bool finished;			/* the callback is running or has run */
	struct child child;
	uv_fs_t copy_request;
	struct entry_check check;
	unsigned int lookups;		/* the entry changed while it was verified */
	struct build_result result;
	char error_text[PATH_MAX + 2048];
};

static void end_build(struct build *build);
static void on_commit_resolved(struct build *build);
static void on_tree_resolved(struct build *build);
static void on_worktree_added(struct build *build);
static void on_build_command_exited(struct build *build);
static void on_worktree_removed(struct build *build);
static void on_worktrees_pruned(struct build *build);
static void on_slot_checked_out(struct build *build);
static void on_slot_pruned(struct build *build);

int build_default_cache(char *path, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		return path_format(path, len, "%s/rackbisect/kernels", xdg);
	if (home && *home)
		return path_format(path, len, "%s/.cache/rackbisect/kernels", home);
	return -ENOENT;
}

/* ---- outcome ------------------------------------------------------------ */

static void set_outcome(struct build *build, int status, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static void set_outcome(struct build *build, int status, const char *format, ...)
{
	va_list args;

	build->result.status = status;
	va_start(args, format);
	vsnprintf(build->error_text, sizeof(build->error_text), format, args);
	va_end(args);
}

/* An errno from outside the commit, kept apart from the codes build.h gives
 * a meaning of their own (a missing file here is not a missing commit). */
static int trouble_status(int rc)
{
	if (rc == 0 || rc == -ENOENT || rc == -ENOEXEC || rc == -ECANCELED)
		return -EIO;
	return rc;
}

/* ---- children ----------------------------------------------------------- */

/* Appends, keeping the last size-1 bytes: git's last words say the most. */
static void keep_tail(char *buffer, size_t *length, size_t size, const char *data, size_t count)
{
	size_t room = size - 1;

	if (count >= room) {
		memcpy(buffer, data + count - room, room);
		*length = room;
	} else {
		if (*length + count > room) {
			size_t drop = *length + count - room;

			memmove(buffer, buffer + drop, *length - drop);
			*length -= drop;
		}
		memcpy(buffer + *length, data, count);
		*length += count;
	}
	buffer[*length] = '\0';
}

static void on_child_handle_closed(uv_handle_t *handle)
{
	struct build *build = handle->data;

	if (--build->child.handles_open == 0)
		build->child.on_finished(build);
}

static void close_child_handle(uv_handle_t *handle)
{
	if (!uv_is_closing(handle))
		uv_close(handle, on_child_handle_closed);
}

static void on_child_exit(uv_process_t *process, int64_t exit_status, int term_signal)
{
	struct build *build = process->data;

	build->child.running = false;
	build->child.exit_status = exit_status;
	build->child.term_signal = term_signal;
	close_child_handle((uv_handle_t *)process);
	if (build->child.deadline.data)
		close_child_handle((uv_handle_t *)&build->child.deadline);
}

/* The build ran past its time: everything it started goes, as on cancel. */
static void on_build_deadline(uv_timer_t *timer)
{
	struct build *build = timer->data;

	if (!build->child.running)
		return;
	build->child.timed_out = true;
	uv_kill(-build->child.process.pid, SIGKILL);
}

/* A build command's share of the build's time: what is left of it. */
static void start_deadline(struct build *build)
{
	struct child *child = &build->child;
	uint64_t now = uv_now(build->loop);

	if (!build->timeout_ms)
		return;
	if (!build->deadline_ms)
		build->deadline_ms = now + build->timeout_ms;
	uv_timer_init(build->loop, &child->deadline);
	child->deadline.data = build;
	child->handles_open++;
	uv_timer_start(&child->deadline, on_build_deadline,
		       build->deadline_ms > now ? build->deadline_ms - now : 1, 0);
}

static void on_child_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
	struct build *build = handle->data;

	(void)suggested;
	*buffer = uv_buf_init(build->child.read_buffer, sizeof(build->child.read_buffer));
}

static void on_child_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
	struct build *build = stream->data;
	struct child *child = &build->child;

	if (count > 0 && stream == (uv_stream_t *)&child->output_pipe)
		keep_tail(child->output, &child->output_length, sizeof(child->output),
			  buffer->base, (size_t)count);
	else if (count > 0)
		keep_tail(child->errors, &child->errors_length, sizeof(child->errors),
			  buffer->base, (size_t)count);
	else if (count < 0)	/* end of file or a read error: nothing more comes */
		close_child_handle((uv_handle_t *)stream);
}

static void capture_into(struct build *build, uv_pipe_t *pipe, uv_stdio_container_t *stdio)
{
	uv_pipe_init(build->loop, pipe, 0);
	pipe->data = build;
	build->child.handles_open++;
	stdio->flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	stdio->data.stream = (uv_stream_t *)pipe;
}

static void start_reading(uv_pipe_t *pipe)
{
	if (uv_read_start((uv_stream_t *)pipe, on_child_alloc, on_child_read) != 0)
		close_child_handle((uv_handle_t *)pipe);
}

/*
 * Starts argv (in cwd, NULL: ours). on_finished runs once the child has
 * exited and its output is read, or once uv_spawn failed (spawn_status):
 * always from the loop, never from here. A negative return: nothing started.
 */
static int child_start(struct build *build, enum child_kind kind, char *const argv[],
		       const char *cwd, child_finished_fn on_finished)
{
	struct child *child = &build->child;
	uv_process_options_t options = { 0 };
	uv_stdio_container_t stdio[3];
	char **environment;
	int rc;

	/* the build runs the tree's code and writes a log anyone may read: it
	 * gets the variables a build uses, no others (no token, no password),
	 * and no descriptor of ours */
	environment = kind == CHILD_BUILD ? subprocess_build_environment(child_settings)
					  : subprocess_environment(child_settings, repository_variables);
	if (!environment)
		return -ENOMEM;
	subprocess_close_on_exec_from_3();
	memset(child, 0, sizeof(*child));
	child->kind = kind;
	child->on_finished = on_finished;
	stdio[0].flags = UV_IGNORE;
	if (kind == CHILD_GIT) {
		capture_into(build, &child->output_pipe, &stdio[1]);
		capture_into(build, &child->errors_pipe, &stdio[2]);
	} else {
		stdio[1].flags = stdio[2].flags = UV_INHERIT_FD;
		stdio[1].data.fd = stdio[2].data.fd = build->log_fd;
		/* setsid: cancel kills the group, so nothing make started
		 * outlives the build or writes into a removed worktree */
		options.flags = UV_PROCESS_DETACHED;
	}
	options.file = argv[0];
	options.args = (char **)argv;
	options.env = environment;
	options.cwd = cwd;
	options.stdio = stdio;
	options.stdio_count = 3;
	options.exit_cb = on_child_exit;
	child->process.data = build;
	rc = uv_spawn(build->loop, &child->process, &options);
	free(environment);
	child->handles_open++;
	if (rc != 0) {
		child->spawn_status = rc;
		close_child_handle((uv_handle_t *)&child->process);
		if (kind == CHILD_GIT) {
			close_child_handle((uv_handle_t *)&child->output_pipe);
			close_child_handle((uv_handle_t *)&child->errors_pipe);
		}
		return 0;
	}
	child->running = true;
	if (kind == CHILD_GIT) {
		start_reading(&child->output_pipe);
		start_reading(&child->errors_pipe);
	} else {
		start_deadline(build);
	}
	return 0;
}

static bool child_succeeded(const struct child *child)
{
	return child->spawn_status == 0 && child->term_signal == 0 && child->exit_status == 0;
}

static const char *describe_exit(const struct child *child, char *text, size_t len)
{
	if (child->spawn_status)
		snprintf(text, len, "could not be started: %s", uv_strerror(child->spawn_status));
	else if (child->term_signal)
		snprintf(text, len, "was killed by signal %d", child->term_signal);
	else
		snprintf(text, len, "exited with status %d", (int)child->exit_status);
	return text;
}

/* git's stderr on one line, for an error text. */
static const char *git_complaint(struct child *child)
{
	char *c;

	while (child->errors_length && strchr(" \t\r\n", child->errors[child->errors_length - 1]))
		child->errors[--child->errors_length] = '\0';
	for (c = child->errors; *c; c++) {
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	}
	return child->errors_length ? child->errors : "(git said nothing)";
}

/* A SHA-1 object id alone on its line: what rev-parse --verify prints. */
static bool take_object_id(const char *output, char id[41])
{
	size_t hex = strspn(output, "0123456789abcdef");

	if (hex != 40 || (output[40] != '\n' && output[40] != '\0'))
		return false;
	memcpy(id, output, 40);
	id[40] = '\0';
	return true;
}

/* ---- resolve ------------------------------------------------------------ */

static int start_resolve_commit(struct build *build)
{
	char spec[PATH_MAX + 16];
	char *argv[] = { "git", "-C", build->tree, "rev-parse", "--verify", "--quiet", spec, NULL };

	if (path_format(spec, sizeof(spec), "%s^{commit}", build->ref))
		return -ENAMETOOLONG;
	return child_start(build, CHILD_GIT, argv, NULL, on_commit_resolved);
}

/* The hint is a command to paste into a shell: the tree and the ref in it
 * are quoted for one, whatever they hold. */
static void say_no_commit(struct build *build)
{
	const char *const words[] = { "git", "-C", build->tree, "log", "-1", build->ref, "--", NULL };
	char *hint = NULL;

	if (shell_quote_argv(words, &hint) != 0)
		hint = NULL;
	set_outcome(build, -ENOENT, "%s: '%s' names no commit; check it with: %s", build->tree,
		    build->ref, hint ? hint : "git log");
	free(hint);
}

static void on_commit_resolved(struct build *build)
{
	struct child *child = &build->child;
	char spec[64], how[128];
	char *argv[] = { "git", "-C", build->tree, "rev-parse", "--verify", "--quiet", spec, NULL };
	int rc;

	if (build->cancelled)
		return end_build(build);
	if (child_succeeded(child) && take_object_id(child->output, build->result.commit)) {
		snprintf(spec, sizeof(spec), "%s^{tree}", build->result.commit);
		rc = child_start(build, CHILD_GIT, argv, NULL, on_tree_resolved);
		if (rc) {
			set_outcome(build, trouble_status(rc), "commit %s of %s: cannot start git: %s",
				    build->result.commit, build->tree, strerror(-rc));
			end_build(build);
		}
		return;
	}
	/* --verify --quiet exits 1, silently, for a ref that names no commit;
	 * 128 means git could not look at all (no repository, no such dir) */
	if (child->spawn_status == 0 && child->term_signal == 0 && child->exit_status == 1)
		say_no_commit(build);
	else
		set_outcome(build, -EIO, "%s: resolving '%s': git rev-parse %s: %s%s", build->tree,
			    build->ref, describe_exit(child, how, sizeof(how)), git_complaint(child),
			    child_succeeded(child) ? " (not a SHA-1 commit id: SHA-256 repositories "
						      "are not supported)" : "");
	end_build(build);
}

/* ---- checksums ---------------------------------------------------------- */

/*
 * An entry's artifacts are summed when it is written and checked on every
 * hit, so that an image truncated or with bytes flipped on disk since is
 * built again, never booted (a kernel that does not boot would be blamed on
 * its commit). FNV-1a 64 finds such damage; it is no defence against
 * someone who means to change an image unseen, who could write a matching
 * checksums file as well.
 */
#define CHECKSUMS_FILE "checksums"
#define CHECKSUM_CHUNK (64 * 1024)
#define FNV_OFFSET_BASIS UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

/* What an entry may hold that is booted: the image first, always there. */
static const char *const artifact_names[] = { "image", "modules.tar.gz" };
#define ARTIFACT_COUNT (sizeof(artifact_names) / sizeof(artifact_names[0]))

static uint64_t fnv1a(uint64_t hash, const unsigned char *data, size_t count)
{
	while (count--)
		hash = (hash ^ *data++) * FNV_PRIME;
	return hash;
}

/* FNV-1a 64 of what is left to read of fd, and how many bytes that was,
 * a chunk at a time: never the whole file in memory. */
static int hash_fd(int fd, uint64_t *hash, uint64_t *size)
{
	unsigned char *chunk = malloc(CHECKSUM_CHUNK);
	ssize_t count;
	int rc = 0;

	if (!chunk)
		return -ENOMEM;
	*hash = FNV_OFFSET_BASIS;
	*size = 0;
	while ((count = read(fd, chunk, CHECKSUM_CHUNK)) != 0) {
		if (count < 0 && errno == EINTR)
			continue;
		if (count < 0) {
			rc = -errno;
			break;
		}
		*hash = fnv1a(*hash, chunk, (size_t)count);
		*size += (uint64_t)count;
	}
	free(chunk);
	return rc;
}

static int open_in(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (path_format(path, sizeof(path), "%s/%s", dir, name))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* One line of the checksums file for `name` in dir, appended to text; 0
 * without a line when an optional artifact (modules) is not there. */
static int sum_artifact(const char *dir, const char *name, bool optional, char *text, size_t len)
{
	uint64_t hash, size;
	size_t used = strlen(text);
	int fd = open_in(dir, name), rc;

	if (fd == -ENOENT && optional)
		return 0;
	if (fd < 0)
		return fd;
	rc = hash_fd(fd, &hash, &size);
	close(fd);
	if (!rc && (size_t)snprintf(text + used, len - used, "%016" PRIx64 " %" PRIu64 " %s\n",
				    hash, size, name) >= len - used)
		rc = -ENOBUFS;
	return rc;
}

/* Worker: the checksums file's text for the staging directory check->dir. */
static void make_checksums(uv_work_t *work)
{
	struct entry_check *check = &((struct build *)work->data)->check;
	size_t i;

	check->text[0] = '\0';
	check->status = 0;
	for (i = 0; i < ARTIFACT_COUNT && !check->status; i++) {
		check->status = sum_artifact(check->dir, artifact_names[i], i > 0, check->text,
					     sizeof(check->text));
		if (check->status)
			snprintf(check->problem, sizeof(check->problem), "summing %s: %s",
				 artifact_names[i], strerror(-check->status));
	}
}

/* "<16 hex digits> <size> <name>", name one of artifact_names: anything
 * else is a damaged checksums file (and no path out of the entry). */
static bool parse_checksum_line(char *line, uint64_t *hash, uint64_t *size, const char **name)
{
	char *end;
	size_t i;

	if (strspn(line, "0123456789abcdef") != 16 || line[16] != ' ' ||
	    !strchr("0123456789", line[17]))
		return false;
	*hash = strtoull(line, NULL, 16);
	errno = 0;
	*size = strtoull(line + 17, &end, 10);
	if (errno || *end != ' ')
		return false;
	*name = end + 1;
	for (i = 0; i < ARTIFACT_COUNT; i++) {
		if (strcmp(*name, artifact_names[i]) == 0)
			return true;
	}
	return false;
}

/* A listed file against its line, its size first (a truncated file is
 * told without reading it): 0, -EBADMSG when it is missing or differs, or
 * the errno that kept it from being read; problem says which. */
static int check_artifact(struct entry_check *check, const char *name, uint64_t hash, uint64_t size)
{
	uint64_t found_hash, found_size;
	struct stat status;
	int fd = open_in(check->dir, name), rc = 0;

	if (fd < 0) {
		snprintf(check->problem, sizeof(check->problem), "%s: %s", name, strerror(-fd));
		return fd == -ENOENT ? -EBADMSG : fd;
	}
	if (fstat(fd, &status) != 0) {
		rc = -errno;
	} else if ((uint64_t)status.st_size != size) {
		rc = -EBADMSG;
		snprintf(check->problem, sizeof(check->problem), "%s is %lld bytes, %" PRIu64
			 " when it was built", name, (long long)status.st_size, size);
	} else if ((rc = hash_fd(fd, &found_hash, &found_size)) == 0 &&
		   (found_hash != hash || found_size != size)) {
		rc = -EBADMSG;
		snprintf(check->problem, sizeof(check->problem), "%s has FNV-1a hash %016" PRIx64
			 ", %016" PRIx64 " when it was built", name, found_hash, hash);
	}
	if (rc && rc != -EBADMSG)
		snprintf(check->problem, sizeof(check->problem), "reading %s: %s", name,
			 strerror(-rc));
	close(fd);
	return rc;
}

/* Every line of the checksums text, which must list the image. */
static int check_listed(struct entry_check *check, char *text)
{
	char *line, *next;
	const char *name;
	uint64_t hash, size;
	bool image_listed = false;
	int rc;

	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!parse_checksum_line(line, &hash, &size, &name)) {
			snprintf(check->problem, sizeof(check->problem), "its %s file is damaged",
				 CHECKSUMS_FILE);
			return -EBADMSG;
		}
		rc = check_artifact(check, name, hash, size);
		if (rc)
			return rc;
		image_listed = image_listed || strcmp(name, artifact_names[0]) == 0;
	}
	if (image_listed)
		return 0;
	snprintf(check->problem, sizeof(check->problem), "its %s file lists no image",
		 CHECKSUMS_FILE);
	return -EBADMSG;
}

/* Worker: the entry check->dir against its checksums file. An entry gone
 * meanwhile counts as corrupt: setting it aside then finds it gone. */
static void verify_checksums(uv_work_t *work)
{
	struct entry_check *check = &((struct build *)work->data)->check;
	char path[PATH_MAX], *text = NULL;
	int rc = path_format(path, sizeof(path), "%s/%s", check->dir, CHECKSUMS_FILE);

	check->problem[0] = '\0';
	memset(&check->verified, 0, sizeof(check->verified));
	if (!rc && lstat(check->dir, &check->verified) != 0)
		rc = -errno;
	if (!rc && !(text = files_read_text(path)))
		rc = errno ? -errno : -EIO;
	if (rc) {
		snprintf(check->problem, sizeof(check->problem), "reading its %s file: %s",
			 CHECKSUMS_FILE, strerror(-rc));
		check->status = rc == -ENOENT ? -EBADMSG : rc;
		return;
	}
	check->status = check_listed(check, text);
	free(text);
}

/* ---- cache -------------------------------------------------------------- */

/* The first line of a release file, without trailing white space. */
static int read_release(const char *path, char *release, size_t len)
{
	size_t end;
	int rc = files_read_line(path, release, len);

	if (rc)
		return rc;
	end = strlen(release);
	while (end && strchr(" \t\r\n", release[end - 1]))
		release[--end] = '\0';
	return end ? 0 : -ENODATA;
}

/*
 * Fills the result from the finished entry at build->entry: 1 when there is
 * one, 0 when there is none, -EIO when the directory is not a finished entry
 * (entries only ever appear whole, by rename, so someone else made it).
 */
static int read_entry(struct build *build)
{
	struct build_result *result = &build->result;
	char image[PATH_MAX], release[PATH_MAX], failed[PATH_MAX], reason[512] = "";
	struct stat status;

	if (path_format(image, sizeof(image), "%s/image", build->entry) ||
	    path_format(release, sizeof(release), "%s/release", build->entry) ||
	    path_format(failed, sizeof(failed), "%s/failed", build->entry) ||
	    path_format(result->log, sizeof(result->log), "%s/build.log", build->entry))
		return -ENAMETOOLONG;
	if (lstat(build->entry, &status) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (access(failed, F_OK) == 0 && access(result->log, R_OK) == 0) {
		files_read_line(failed, reason, sizeof(reason));
		set_outcome(build, -ENOEXEC,
			    "commit %s does not build: %s (log: %s). This is remembered for its "
			    "tree %s: fix the build, or remove %s to try again",
			    result->commit, reason, result->log, result->tree_id, build->entry);
		return 1;
	}
	if (access(image, R_OK) == 0 &&
	    read_release(release, result->release, sizeof(result->release)) == 0) {
		result->status = 0;
		if (path_format(result->modules, sizeof(result->modules), "%s/modules.tar.gz",
				build->entry))
			return -ENAMETOOLONG;
		if (access(result->modules, R_OK) != 0)
			result->modules[0] = '\0';
		return path_format(result->image, sizeof(result->image), "%s", image) ? -ENAMETOOLONG : 1;
	}
	result->log[0] = '\0';
	return -EIO;
}

static void look_up_cache(struct build *build);

static void on_tree_resolved(struct build *build)
{
	struct child *child = &build->child;
	char how[128];

	if (build->cancelled)
		return end_build(build);
	if (!child_succeeded(child) || !take_object_id(child->output, build->result.tree_id)) {
		set_outcome(build, -EIO, "commit %s of %s: git rev-parse %s^{tree} %s: %s",
			    build->result.commit, build->tree, build->result.commit,
			    describe_exit(child, how, sizeof(how)), git_complaint(child));
		return end_build(build);
	}
	look_up_cache(build);
}

static int make_work_dirs(struct build *build);
static void start_check_out(struct build *build);

static void queue_add(struct build *build);

static void on_lock_wait(uv_timer_t *timer);

/* flock(LOCK_EX) on path, made if missing, without waiting: 1 taken (*fd
 * holds it until closed; other processes' and other open()s' locks
 * conflict with it, and a crash lets go of it), 0 held by someone else, or
 * -errno. */
static int try_lock_file(const char *path, int *fd)
{
	int rc, opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (opened < 0)
		return -errno;
	if (flock(opened, LOCK_EX | LOCK_NB) == 0) {
		*fd = opened;
		return 1;
	}
	rc = errno == EWOULDBLOCK ? 0 : -errno;
	close(opened);
	return rc;
}

/*
 * The entry's lock, which every build of the same tree takes before it
 * builds, in this process or another sharing the cache (flock: a crash lets
 * go of it): 1 taken, 0 held by another build, or -errno.
 */
static int take_entry_lock(struct build *build)
{
	char dir[PATH_MAX], lock[PATH_MAX];
	int rc;

	rc = path_format(dir, sizeof(dir), "%s/locks", build->cache_dir);
	if (!rc)
		rc = path_make_dirs(dir);
	if (!rc && path_format(lock, sizeof(lock), "%s/%s.lock", dir, strrchr(build->entry, '/') + 1))
		rc = -ENAMETOOLONG;
	return rc ? rc : try_lock_file(lock, &build->entry_lock_fd);
}

/* Looks again in a while: the build holding the lock is writing the entry. */
static int wait_for_entry_lock(struct build *build)
{
	int rc = 0;

	if (!build->lock_wait_open) {
		rc = uv_timer_init(build->loop, &build->lock_wait);
		build->lock_wait.data = build;
		build->lock_wait_open = rc == 0;
	}
	return rc ? rc : uv_timer_start(&build->lock_wait, on_lock_wait, ENTRY_LOCK_POLL_MS, 0);
}

/* Not in the cache (or no longer): built in a worktree, once the build's
 * queue (if any) gives it a place and no other build of the same tree is
 * under way. Two bisections of one history sharing a cache ask for the
 * same commits at about the same time: the second waits for the first's
 * entry instead of building it too. */
static void build_anew(struct build *build)
{
	int rc;

	if (build->queue && !build->working) {
		queue_add(build);
		return;
	}
	if (build->entry_lock_fd < 0) {
		rc = take_entry_lock(build);
		if (rc == 1)	/* the entry may have been written since it was looked up */
			return look_up_cache(build);
		if (rc == 0)
			rc = wait_for_entry_lock(build);
		if (rc) {
			set_outcome(build, trouble_status(rc), "commit %s: cannot lock its cache "
				    "entry under %s/locks: %s", build->result.commit, build->cache_dir,
				    strerror(-rc));
			end_build(build);
		}
		return;
	}
	rc = make_work_dirs(build);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: cannot prepare a build under %s: %s",
			    build->result.commit, build->cache_dir, strerror(-rc));
		return end_build(build);
	}
	start_check_out(build);
}

static void on_lock_wait(uv_timer_t *timer)
{
	struct build *build = timer->data;

	if (build->cancelled)
		return end_build(build);
	build_anew(build);
}

/* The entry at build->entry, verified if it could be: a hit, or a miss. */
static void use_entry(struct build *build)
{
	int rc = read_entry(build);

	if (rc == 1) {
		build->result.cached = true;
		return end_build(build);
	}
	if (rc < 0) {
		set_outcome(build, trouble_status(rc),
			    "commit %s: the cache entry %s for its tree is not a finished build "
			    "(%s): remove it and ask again", build->result.commit, build->entry,
			    strerror(-rc));
		return end_build(build);
	}
	build_anew(build);
}

/* An entry that has checksums (a failed build's has no artifact, and one
 * written before checksums were kept has none: trusted as it is). */
static bool entry_has_checksums(const struct build *build)
{
	char checksums[PATH_MAX], failed[PATH_MAX];

	if (path_format(checksums, sizeof(checksums), "%s/%s", build->entry, CHECKSUMS_FILE) ||
	    path_format(failed, sizeof(failed), "%s/failed", build->entry))
		return false;
	return access(checksums, F_OK) == 0 && access(failed, F_OK) != 0;
}

static void on_entry_verified(uv_work_t *work, int status);

static void start_verify(struct build *build)
{
	int rc;

	memcpy(build->check.dir, build->entry, sizeof(build->check.dir));
	build->check.work.data = build;
	rc = uv_queue_work(build->loop, &build->check.work, verify_checksums, on_entry_verified);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: cannot verify the cache entry %s: %s",
			    build->result.commit, build->entry, uv_strerror(rc));
		end_build(build);
	}
}

static void look_up_cache(struct build *build)
{
	if (path_format(build->entry, sizeof(build->entry), "%s/%s%s%s", build->cache_dir,
			build->result.tree_id, build->is_kbuild ? "-" : "", build->recipe_id)) {
		set_outcome(build, -ENAMETOOLONG, "the build cache path %s is too long", build->cache_dir);
		return end_build(build);
	}
	if (entry_has_checksums(build))
		return start_verify(build);
	use_entry(build);
}

/*
 * Renames the corrupt entry to <cache>/corrupt/<entry name>-<time>-<pid>
 * (kept for whoever wants to see what the disk did to it): at once, so no
 * other build takes it meanwhile. -ESTALE when the entry there is no longer
 * the one verified (another build set it aside, and maybe wrote it anew).
 */
static int set_entry_aside(struct build *build)
{
	char *aside = build->result.corrupt_entry, dir[PATH_MAX];
	struct stat now;
	int rc;

	if (lstat(build->entry, &now) != 0)
		return errno == ENOENT ? -ESTALE : -errno;
	if (now.st_dev != build->check.verified.st_dev || now.st_ino != build->check.verified.st_ino)
		return -ESTALE;
	rc = path_format(dir, sizeof(dir), "%s/corrupt", build->cache_dir);
	if (!rc)
		rc = path_make_dirs(dir);
	if (!rc && path_format(aside, PATH_MAX, "%s/%s-%lld-%ld", dir, strrchr(build->entry, '/') + 1,
			       (long long)time(NULL), (long)getpid()))
		rc = -ENAMETOOLONG;
	if (!rc && rename(build->entry, aside) != 0)
		rc = errno == ENOENT ? -ESTALE : -errno;
	if (rc)
		aside[0] = '\0';
	return rc;
}

static void on_entry_verified(uv_work_t *work, int status)
{
	struct build *build = work->data;
	int rc = status ? status : build->check.status;

	if (build->cancelled)
		return end_build(build);
	if (rc == 0)
		return use_entry(build);
	if (rc != -EBADMSG) {
		set_outcome(build, trouble_status(rc), "commit %s: cannot verify the cache entry %s "
			    "(%s): check the disk and ask again", build->result.commit, build->entry,
			    build->check.problem[0] ? build->check.problem : uv_strerror(rc));
		return end_build(build);
	}
	rc = set_entry_aside(build);
	/* not ours to move: look again, a few times (a file system whose
	 * inode numbers are not stable must not keep a build looking) */
	if (rc == -ESTALE && ++build->lookups < 4)
		return look_up_cache(build);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: the cache entry %s is corrupt (%s) "
			    "and cannot be moved to %s/corrupt: %s; remove it and ask again",
			    build->result.commit, build->entry, build->check.problem,
			    build->cache_dir, strerror(-rc));
		return end_build(build);
	}
	build_anew(build);
}

/* ---- check out and build ----------------------------------------------- */

/* mkdtemp under <cache>/<parent>: unique across builds and processes. */
static int make_unique_dir(struct build *build, const char *parent, const char *name, char *out)
{
	char dir[PATH_MAX];
	int rc;

	if (path_format(dir, sizeof(dir), "%s/%s", build->cache_dir, parent) ||
	    path_format(out, PATH_MAX, "%s/%s-XXXXXX", dir, name))
		return -ENAMETOOLONG;
	rc = path_make_dirs(dir);
	if (rc)
		return rc;
	if (!mkdtemp(out)) {
		rc = -errno;
		out[0] = '\0';
	}
	return rc;
}

/* FNV-1a: a short, stable name for a repository's slots. */
static uint64_t name_hash(const char *text)
{
	return fnv1a(FNV_OFFSET_BASIS, (const unsigned char *)text, strlen(text));
}

/*
 * Takes the first free slot of the tree's under <cache>/work: its lock held
 * (flock, so other builds and other processes pass it by, and a crash lets
 * go of it), build->worktree set to its directory, which may or may not
 * hold a worktree yet. 0 when every slot is busy: build in a new worktree.
 */
static int take_slot(struct build *build)
{
	char tree[PATH_MAX], lock[PATH_MAX];
	unsigned int slot;
	int rc;

	if (!realpath(build->tree, tree) && path_format(tree, sizeof(tree), "%s", build->tree))
		return -ENAMETOOLONG;
	for (slot = 0; slot < BUILD_SLOTS; slot++) {
		/* kbuild's slots are apart: an in-tree build's output would make
		 * kbuild refuse O= ("source tree is not clean") */
		if (path_format(build->worktree, sizeof(build->worktree), "%s/work/slot-%016llx-%s%u",
				build->cache_dir, (unsigned long long)name_hash(tree),
				build->is_kbuild ? "k" : "", slot) ||
		    path_format(lock, sizeof(lock), "%s.lock", build->worktree))
			return -ENAMETOOLONG;
		rc = try_lock_file(lock, &build->slot_fd);
		if (rc)
			return rc;
	}
	build->worktree[0] = '\0';
	return 0;
}

/* Where the build writes: the worktree, or kbuild's <worktree>.out beside it. */
static int set_output_dir(struct build *build)
{
	if (build->is_kbuild &&
	    path_format(build->build_dir, sizeof(build->build_dir), "%s.out", build->worktree))
		return -ENAMETOOLONG;
	return path_format(build->output_dir, sizeof(build->output_dir), "%s",
			   build->is_kbuild ? build->build_dir : build->worktree);
}

static int make_work_dirs(struct build *build)
{
	char log[PATH_MAX], dir[PATH_MAX];
	int rc;

	rc = path_format(dir, sizeof(dir), "%s/work", build->cache_dir);
	if (!rc)
		rc = path_make_dirs(dir);
	if (!rc)
		rc = take_slot(build);
	if (rc == 0)
		rc = make_unique_dir(build, "work", build->result.commit, build->worktree);
	else if (rc == 1)
		rc = 0;
	if (!rc)
		rc = make_unique_dir(build, "staging", build->result.tree_id, build->staging);
	if (!rc && path_format(log, sizeof(log), "%s/build.log", build->staging))
		rc = -ENAMETOOLONG;
	if (!rc)
		rc = set_output_dir(build);
	if (rc)
		return rc;
	build->log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	return build->log_fd < 0 ? -errno : 0;
}

/* A slot's directory holds a worktree when its .git is the file a worktree
 * has (never a directory git would walk up from into another repository). */
static bool slot_has_worktree(const struct build *build)
{
	char marker[PATH_MAX];
	struct stat status;

	if (path_format(marker, sizeof(marker), "%s/.git", build->worktree))
		return false;
	return lstat(marker, &status) == 0 && S_ISREG(status.st_mode);
}

/* Checks the commit out: in the slot's worktree when it has one, else
 * (after emptying the slot) in a worktree git adds. */
static void start_check_out(struct build *build)
{
	char *argv[] = { "git", "-C", build->tree, "worktree", "add", "--detach",
			 build->worktree, build->result.commit, NULL };
	char *checkout[] = { "git", "-C", build->worktree, "checkout", "--detach", "--force",
			     "--quiet", build->result.commit, NULL };
	char *prune[] = { "git", "-C", build->tree, "worktree", "prune", NULL };
	int rc;

	if (build->slot_fd >= 0 && !build->slot_pruned && slot_has_worktree(build)) {
		rc = child_start(build, CHILD_GIT, checkout, NULL, on_slot_checked_out);
	} else if (build->slot_fd >= 0 && !build->slot_pruned) {
		/* first use, or no worktree git can use: empty the slot and
		 * let git forget whatever it had registered there */
		files_remove_tree(build->worktree);
		build->slot_pruned = true;
		rc = child_start(build, CHILD_GIT, prune, NULL, on_slot_pruned);
	} else {
		rc = child_start(build, CHILD_GIT, argv, NULL, on_worktree_added);
	}
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: cannot start git to check it out: %s",
			    build->result.commit, strerror(-rc));
		end_build(build);
	}
}

static void write_log_header(struct build *build)
{
	char *const *word;

	dprintf(build->log_fd, "# rackbisect: commit %s (tree %s) in %s:", build->result.commit,
		build->result.tree_id, build->worktree);
	for (word = build->build_argv; *word; word++)
		dprintf(build->log_fd, " %s", *word);
	dprintf(build->log_fd, "\n");
	/* the log says why a commit in the cache was built again */
	if (build->result.corrupt_entry[0])
		dprintf(build->log_fd, "# rackbisect: the cache entry was corrupt (%s), moved to %s\n",
			build->check.problem, build->result.corrupt_entry);
}

/*
 * Two `git worktree add` at once in one repository can trip over each
 * other: one reads the other's half-made .git/worktrees/<name> ("failed to
 * read .../commondir"). Builds run concurrently, so that is tried again a
 * few times (the directory made again if git removed it) instead of
 * failing the build as lab trouble.
 */
static bool raced_by_another_worktree(struct build *build)
{
	const char *errors = build->child.errors;

	if (build->worktree_attempts >= 5 || !strstr(errors, ".git/worktrees/"))
		return false;
	build->worktree_attempts++;
	if (mkdir(build->worktree, 0700) != 0 && errno != EEXIST)
		return false;
	return true;
}

static void start_build_command(struct build *build);

static void on_worktree_added(struct build *build)
{
	struct child *child = &build->child;
	char how[128];

	if (build->cancelled)
		return end_build(build);
	if (!child_succeeded(child) && raced_by_another_worktree(build)) {
		start_check_out(build);
		return;
	}
	if (!child_succeeded(child)) {
		set_outcome(build, -EIO, "commit %s: checking it out with git worktree add %s %s: %s",
			    build->result.commit, build->worktree, describe_exit(child, how, sizeof(how)),
			    git_complaint(child));
		return end_build(build);
	}
	start_build_command(build);
}

/*
 * The slot's worktree now holds the commit, with the untracked output of
 * earlier builds beside it (a kernel tree rebuilds only what changed); the
 * artifact and release file go first, so that a build that makes none is
 * never credited with an earlier one's. A slot git cannot check out in (a
 * checkout killed half-way, its repository gone) is made anew.
 */
static void on_slot_checked_out(struct build *build)
{
	char path[PATH_MAX];
	const char *outputs[] = { build->artifact, build->release_file };
	size_t i;

	if (build->cancelled)
		return end_build(build);
	if (!child_succeeded(&build->child)) {
		files_remove_tree(build->worktree);
		return start_check_out(build);
	}
	for (i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		if (!path_format(path, sizeof(path), "%s/%s", build->output_dir, outputs[i]))
			unlink(path);
	}
	start_build_command(build);
}

static void on_slot_pruned(struct build *build)
{
	if (build->cancelled)
		return end_build(build);
	start_check_out(build);
}

static void start_kbuild_step(struct build *build, enum kbuild_step step);

static void start_command(struct build *build, char *const *argv, child_finished_fn next)
{
	int rc = child_start(build, CHILD_BUILD, argv, build->worktree, next);

	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: cannot start %s: %s",
			    build->result.commit, argv[0], strerror(-rc));
		end_build(build);
	}
}

static void start_build_command(struct build *build)
{
	int rc;

	write_log_header(build);
	if (!build->is_kbuild)
		return start_command(build, build->build_argv, on_build_command_exited);
	rc = path_make_dirs(build->build_dir);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: cannot make the build directory "
			    "%s: %s", build->result.commit, build->build_dir, strerror(-rc));
		return end_build(build);
	}
	start_kbuild_step(build, KBUILD_CONFIGURE);
}

static void commit_entry(struct build *build);

/* The commit does not build: remembered with `reason` in the entry. */
static void record_failure(struct build *build, const char *reason)
{
	char marker[PATH_MAX], text[600];
	int rc;

	snprintf(text, sizeof(text), "%s\n", reason);
	rc = path_format(marker, sizeof(marker), "%s/failed", build->staging);
	if (!rc)
		rc = files_write_atomic(marker, text);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s does not build (%s), and recording "
			    "that in %s failed: %s", build->result.commit, reason, build->staging,
			    strerror(-rc));
		return end_build(build);
	}
	commit_entry(build);
}

static void on_image_copied(uv_fs_t *request);

static void collect_outputs(struct build *build)
{
	char release[PATH_MAX], image[PATH_MAX], copy[PATH_MAX], reason[PATH_MAX + 64];
	int rc;

	if (path_format(release, sizeof(release), "%s/%s", build->output_dir, build->release_file) ||
	    path_format(image, sizeof(image), "%s/%s", build->output_dir, build->artifact) ||
	    path_format(copy, sizeof(copy), "%s/image", build->staging)) {
		set_outcome(build, -ENAMETOOLONG, "commit %s: a path in %s is too long",
			    build->result.commit, build->worktree);
		return end_build(build);
	}
	rc = read_release(release, build->result.release, sizeof(build->result.release));
	if (rc) {
		snprintf(reason, sizeof(reason), "the build left no release string in %s (%s)",
			 build->release_file, strerror(-rc));
		return record_failure(build, reason);
	}
	/* an image is megabytes: copied on the loop's thread pool, not here */
	build->copy_request.data = build;
	rc = uv_fs_copyfile(build->loop, &build->copy_request, image, copy,
			    UV_FS_COPYFILE_FICLONE, on_image_copied);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: cannot copy %s: %s",
			    build->result.commit, image, uv_strerror(rc));
		end_build(build);
	}
}

/*
 * How the command `what` ("'make'") ended. false when the build ended there:
 * a commit whose command failed is remembered as not building, unless
 * `remembered` is false (a step whose failure is the machine's, not the
 * commit's); a command that could not start or was killed is never.
 */
static bool command_succeeded(struct build *build, const char *what, bool remembered)
{
	struct child *child = &build->child;
	char how[128], reason[512];

	if (build->cancelled) {
		end_build(build);
		return false;
	}
	if (child->timed_out) {
		/* the machine may have been slow, or the build hung: the commit
		 * does not build in the time given, and is not remembered */
		build->keep_staging = true;
		build->result.timed_out = true;
		path_format(build->result.log, sizeof(build->result.log), "%s/build.log", build->staging);
		set_outcome(build, -ENOEXEC, "commit %s: the build ran past its timeout of %llu %s "
			    "and was killed; nothing is remembered, ask again to retry (log: "
			    "%s/build.log)", build->result.commit, (unsigned long long)
			    (build->timeout_ms % 1000 ? build->timeout_ms : build->timeout_ms / 1000),
			    build->timeout_ms % 1000 ? "ms" : "s", build->staging);
		end_build(build);
		return false;
	}
	if (child->spawn_status) {
		set_outcome(build, trouble_status(child->spawn_status),
			    "commit %s: cannot start %s: %s; is it installed and in PATH?",
			    build->result.commit, what, uv_strerror(child->spawn_status));
		end_build(build);
		return false;
	}
	if (child->term_signal) {
		/* not ours (that is cancel): the OOM killer, an operator; a commit
		 * is not remembered as broken for it */
		build->keep_staging = true;
		path_format(build->result.log, sizeof(build->result.log), "%s/build.log", build->staging);
		set_outcome(build, -EINTR, "commit %s: %s was killed by signal %d; nothing is "
			    "remembered, ask again to retry (log: %s/build.log)", build->result.commit,
			    what, child->term_signal, build->staging);
		end_build(build);
		return false;
	}
	if (child->exit_status == 0)
		return true;
	snprintf(reason, sizeof(reason), "%s %s", what, describe_exit(child, how, sizeof(how)));
	if (remembered) {
		record_failure(build, reason);
	} else {
		set_outcome(build, -EIO, "commit %s: %s; nothing is remembered, ask again to retry "
			    "(log: %s/build.log)", build->result.commit, reason, build->staging);
		build->keep_staging = true;
		path_format(build->result.log, sizeof(build->result.log), "%s/build.log", build->staging);
		end_build(build);
	}
	return false;
}

static void on_build_command_exited(struct build *build)
{
	char what[PATH_MAX + 8];

	snprintf(what, sizeof(what), "'%s'", build->build_argv[0]);
	if (command_succeeded(build, what, true))
		collect_outputs(build);
}

/* ---- kbuild's steps ------------------------------------------------------ */

static void on_kbuild_step_exited(struct build *build);

static void start_kbuild_step(struct build *build, enum kbuild_step step)
{
	char install_root[PATH_MAX], tarball[PATH_MAX];
	struct kbuild_paths paths = {
		.build_dir = build->build_dir, .install_root = install_root, .tarball = tarball,
		.release = build->result.release, .jobs = uv_available_parallelism(),
		.ccache = kbuild_program_in_path("ccache"),
	};
	char **word;

	kbuild_free_argv(build->step_argv);
	build->step = step;
	build->step_argv = NULL;
	if (path_format(install_root, sizeof(install_root), "%s/modules-root", build->staging) ||
	    path_format(tarball, sizeof(tarball), "%s/modules.tar.gz", build->staging) ||
	    !(build->step_argv = kbuild_argv(&build->kbuild, build->build_argv, step, &paths))) {
		set_outcome(build, -ENOMEM, "commit %s: no memory for the %s step",
			    build->result.commit, kbuild_step_name(step));
		return end_build(build);
	}
	dprintf(build->log_fd, "# rackbisect: %s:", kbuild_step_name(step));
	for (word = build->step_argv; *word; word++)
		dprintf(build->log_fd, " %s", *word);
	dprintf(build->log_fd, "\n");
	start_command(build, build->step_argv, on_kbuild_step_exited);
}

/* A file of the build directory (kbuild's O=). */
static int build_dir_path(struct build *build, const char *name, char *out)
{
	return path_format(out, PATH_MAX, "%s/%s", build->build_dir, name);
}

/* The fragment's lines go after the base configuration's. */
static void merge_fragment(struct build *build)
{
	char config[PATH_MAX], why[PATH_MAX + 256];
	int rc = build_dir_path(build, ".config", config);

	if (!rc && build->kbuild.fragment)
		rc = kbuild_merge_fragment(config, build->kbuild.fragment, why, sizeof(why));
	else if (rc)
		snprintf(why, sizeof(why), "the path %s/.config is too long", build->build_dir);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: %s", build->result.commit, why);
		return end_build(build);
	}
	if (build->kbuild.fragment)
		dprintf(build->log_fd, "# rackbisect: fragment: %s appended to %s\n",
			build->kbuild.fragment, config);
	start_kbuild_step(build, KBUILD_OLDDEFCONFIG);
}

/* Every fragment line must have survived olddefconfig: a kernel without the
 * options the job is about tests nothing. */
static void check_fragment(struct build *build)
{
	char config[PATH_MAX], why[PATH_MAX + 512];
	int rc = build_dir_path(build, ".config", config);

	if (!rc && build->kbuild.fragment)
		rc = kbuild_check_fragment(config, build->kbuild.fragment, why, sizeof(why));
	else if (rc)
		snprintf(why, sizeof(why), "the path %s/.config is too long", build->build_dir);
	if (rc == -ENOEXEC) {
		dprintf(build->log_fd, "# rackbisect: %s\n", why);
		return record_failure(build, why);
	}
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: %s", build->result.commit, why);
		return end_build(build);
	}
	start_kbuild_step(build, KBUILD_MAKE);
}

/* The release names the modules' directory: it must be one plain name. */
static void install_modules(struct build *build)
{
	char release[PATH_MAX], reason[PATH_MAX + 64];
	int rc;

	if (!build->kbuild.modules)
		return collect_outputs(build);
	rc = build_dir_path(build, build->release_file, release);
	if (!rc)
		rc = read_release(release, build->result.release, sizeof(build->result.release));
	if (rc) {
		snprintf(reason, sizeof(reason), "the build left no release string in %s (%s)",
			 build->release_file, strerror(-rc));
		return record_failure(build, reason);
	}
	if (build->result.release[0] == '-' || build->result.release[0] == '.' ||
	    strchr(build->result.release, '/')) {
		snprintf(reason, sizeof(reason), "its release string '%s' cannot name a directory "
			 "of /lib/modules", build->result.release);
		return record_failure(build, reason);
	}
	start_kbuild_step(build, KBUILD_MODULES_INSTALL);
}

static void pack_modules(struct build *build)
{
	char installed[PATH_MAX], reason[PATH_MAX + 64];
	struct stat status;

	if (path_format(installed, sizeof(installed), "%s/modules-root/lib/modules/%s",
			build->staging, build->result.release) ||
	    stat(installed, &status) != 0 || !S_ISDIR(status.st_mode)) {
		snprintf(reason, sizeof(reason), "modules_install made no lib/modules/%s",
			 build->result.release);
		return record_failure(build, reason);
	}
	start_kbuild_step(build, KBUILD_PACK_MODULES);
}

static void on_kbuild_step_exited(struct build *build)
{
	char what[PATH_MAX + 64], root[PATH_MAX];

	snprintf(what, sizeof(what), "the %s step ('%s')", kbuild_step_name(build->step),
		 build->step_argv[0]);
	/* packing is tar on our own disk: its failure is the machine's */
	if (!command_succeeded(build, what, build->step != KBUILD_PACK_MODULES))
		return;
	switch (build->step) {
	case KBUILD_CONFIGURE:
		return merge_fragment(build);
	case KBUILD_OLDDEFCONFIG:
		return check_fragment(build);
	case KBUILD_MAKE:
		return install_modules(build);
	case KBUILD_MODULES_INSTALL:
		return pack_modules(build);
	case KBUILD_PACK_MODULES:
		if (!path_format(root, sizeof(root), "%s/modules-root", build->staging))
			files_remove_tree(root);
		return collect_outputs(build);
	}
}

static void write_entry_files(struct build *build);
static void start_summing(struct build *build);
static void on_checksums_made(uv_work_t *work, int status);

static void on_image_copied(uv_fs_t *request)
{
	struct build *build = request->data;
	int rc = (int)request->result;
	char reason[PATH_MAX + 64];

	uv_fs_req_cleanup(request);
	if (build->cancelled)
		return end_build(build);
	if (rc == UV_ENOENT || rc == UV_EISDIR || rc == UV_ENOTDIR) {
		snprintf(reason, sizeof(reason), "the build left no image %s (%s)", build->artifact,
			 uv_strerror(rc));
		return record_failure(build, reason);
	}
	if (rc < 0) {
		set_outcome(build, trouble_status(rc), "commit %s: copying %s into the cache at %s: %s",
			    build->result.commit, build->artifact, build->staging, strerror(-rc));
		return end_build(build);
	}
	write_entry_files(build);
}

static void write_entry_files(struct build *build)
{
	char path[PATH_MAX], text[sizeof(build->result.release) + 1];
	int rc;

	snprintf(text, sizeof(text), "%s\n", build->result.release);
	rc = path_format(path, sizeof(path), "%s/release", build->staging);
	if (!rc)
		rc = files_write_atomic(path, text);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: writing %s: %s",
			    build->result.commit, path, strerror(-rc));
		return end_build(build);
	}
	start_summing(build);
}

/* The artifacts' checksums go into the entry before it is renamed into
 * place: an entry never appears without them. */
static void start_summing(struct build *build)
{
	int rc;

	memcpy(build->check.dir, build->staging, sizeof(build->check.dir));
	build->check.work.data = build;
	rc = uv_queue_work(build->loop, &build->check.work, make_checksums, on_checksums_made);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: cannot sum its image: %s",
			    build->result.commit, uv_strerror(rc));
		end_build(build);
	}
}

static void on_checksums_made(uv_work_t *work, int status)
{
	struct build *build = work->data;
	char path[PATH_MAX];
	int rc = status ? status : build->check.status;

	if (build->cancelled)
		return end_build(build);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: %s in %s", build->result.commit,
			    status ? uv_strerror(status) : build->check.problem, build->staging);
		return end_build(build);
	}
	rc = path_format(path, sizeof(path), "%s/%s", build->staging, CHECKSUMS_FILE);
	if (!rc)
		rc = files_write_atomic(path, build->check.text);
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: writing %s/%s: %s",
			    build->result.commit, build->staging, CHECKSUMS_FILE, strerror(-rc));
		return end_build(build);
	}
	commit_entry(build);
}

/* ---- into the cache ---------------------------------------------------- */

/*
 * Renames the staging directory to <cache>/<tree id>: the entry appears
 * whole or not at all. When another build of the same tree got there first,
 * its entry stands and ours goes.
 */
static void commit_entry(struct build *build)
{
	char path[PATH_MAX], text[64];
	int rc;

	snprintf(text, sizeof(text), "%s\n", build->result.commit);
	rc = path_format(path, sizeof(path), "%s/commit", build->staging);
	if (!rc)
		rc = files_write_atomic(path, text);
	close(build->log_fd);
	build->log_fd = -1;
	if (!rc && rename(build->staging, build->entry) != 0 && errno != EEXIST && errno != ENOTEMPTY)
		rc = -errno;
	if (rc) {
		set_outcome(build, trouble_status(rc), "commit %s: moving its build into the cache "
			    "at %s: %s", build->result.commit, build->entry, strerror(-rc));
		return end_build(build);
	}
	/* renamed, or someone else's entry is there: either way ours is done */
	files_remove_tree(build->staging);
	build->staging[0] = '\0';
	rc = read_entry(build);
	if (rc != 1)
		set_outcome(build, -EIO, "commit %s: the cache entry %s vanished or is damaged "
			    "right after it was written: check the disk and ask again",
			    build->result.commit, build->entry);
	end_build(build);
}

/* ---- the end ------------------------------------------------------------- */

static void start_prune(struct build *build)
{
	char *argv[] = { "git", "-C", build->tree, "worktree", "prune", NULL };

	if (child_start(build, CHILD_GIT, argv, NULL, on_worktrees_pruned) != 0)
		on_worktrees_pruned(build);
}

static void start_remove_worktree(struct build *build)
{
	char *argv[] = { "git", "-C", build->tree, "worktree", "remove", "--force",
			 build->worktree, NULL };

	if (child_start(build, CHILD_GIT, argv, NULL, on_worktree_removed) != 0)
		on_worktree_removed(build);
}

static void free_build(struct build *build)
{
	char **word;

	if (build->log_fd >= 0)
		close(build->log_fd);
	if (build->slot_fd >= 0)
		close(build->slot_fd);
	if (build->entry_lock_fd >= 0)
		close(build->entry_lock_fd);
	for (word = build->build_argv; word && *word; word++)
		free(*word);
	free(build->build_argv);
	kbuild_free_argv(build->step_argv);
	free((char *)build->kbuild.config_target);
	free((char *)build->kbuild.fragment);
	kbuild_free_argv((char **)build->kbuild.targets);
	free(build);
}

static void leave_queue(struct build *build);

static void on_lock_wait_closed(uv_handle_t *handle)
{
	free_build(handle->data);
}

static void deliver(struct build *build)
{
	struct build_result *result = &build->result;

	leave_queue(build);
	if (build->cancelled)
		set_outcome(build, -ECANCELED, "commit %s: the build was cancelled",
			    result->commit[0] ? result->commit : build->ref);
	if (result->status != 0) {
		result->image[0] = '\0';
		result->release[0] = '\0';
	}
	result->error_text = result->status ? build->error_text : NULL;
	build->finished = true;
	build->callback(build, result, build->data);
	if (build->lock_wait_open)
		uv_close((uv_handle_t *)&build->lock_wait, on_lock_wait_closed);
	else
		free_build(build);
}

static void on_worktrees_pruned(struct build *build)
{
	build->worktree[0] = '\0';
	deliver(build);
}

static void on_worktree_removed(struct build *build)
{
	if (child_succeeded(&build->child)) {
		build->worktree[0] = '\0';
		return deliver(build);
	}
	/* a checkout cut short (cancelled mid-way) is no worktree git knows
	 * how to remove: delete the directory, then let git forget it */
	files_remove_tree(build->worktree);
	start_prune(build);
}

/* Every way out: the result is set; tidy up, then call back. */
static void end_build(struct build *build)
{
	build->cleaning_up = true;
	if (build->log_fd >= 0) {
		close(build->log_fd);
		build->log_fd = -1;
	}
	if (build->staging[0] && !build->keep_staging)
		files_remove_tree(build->staging);
	if (build->slot_fd >= 0) {
		/* the slot stays for the next build; a checkout cut short is
		 * mended (or made anew) by the next build that takes it */
		close(build->slot_fd);
		build->slot_fd = -1;
		build->worktree[0] = '\0';
	}
	if (build->entry_lock_fd >= 0) {	/* the entry is written, or will not be */
		close(build->entry_lock_fd);
		build->entry_lock_fd = -1;
	}
	if (build->worktree[0] && build->build_dir[0])
		files_remove_tree(build->build_dir);	/* a worktree of its own: both go */
	if (build->worktree[0])
		start_remove_worktree(build);
	else
		deliver(build);
}

/* ---- the queue ----------------------------------------------------------- */

static void on_queue_kick(uv_timer_t *timer);

/* The queue looks at its builds on the loop's next turn, never inside the
 * caller's: a callback from there could find its caller half-way. */
static void kick(struct build_queue *queue)
{
	uv_timer_start(&queue->kick, on_queue_kick, 0, 0);
}

static void queue_add(struct build *build)
{
	struct build_queue *queue = build->queue;

	build->queued = true;
	build->queue_prev = queue->last;
	build->queue_next = NULL;
	if (queue->last)
		queue->last->queue_next = build;
	else
		queue->first = build;
	queue->last = build;
	kick(queue);
}

static void queue_remove(struct build *build)
{
	struct build_queue *queue = build->queue;

	if (build->queue_prev)
		build->queue_prev->queue_next = build->queue_next;
	else
		queue->first = build->queue_next;
	if (build->queue_next)
		build->queue_next->queue_prev = build->queue_prev;
	else
		queue->last = build->queue_prev;
	build->queue_prev = build->queue_next = NULL;
	build->queued = false;
}

/* The first to come that is not background, else the first to come. */
static struct build *queue_pick(const struct build_queue *queue)
{
	struct build *build;

	for (build = queue->first; build; build = build->queue_next) {
		if (!build->background)
			return build;
	}
	return queue->first;
}

/* Its place, if it held one, goes to the next build waiting. */
static void leave_queue(struct build *build)
{
	if (!build->working)
		return;
	build->working = false;
	build->queue->working--;
	if (build->queue->first)
		kick(build->queue);
}

static void on_queue_kick(uv_timer_t *timer)
{
	struct build_queue *queue = timer->data;
	struct build *build, *next;

	for (build = queue->first; build; build = next) {
		next = build->queue_next;
		if (build->cancelled) {
			queue_remove(build);
			end_build(build);
		}
	}
	while (queue->working < queue->limit && (build = queue_pick(queue)) != NULL) {
		queue_remove(build);
		if (build->cancelled) {	/* by a callback this loop ran */
			end_build(build);
			continue;
		}
		build->working = true;
		queue->working++;
		/* a build of the same tree may have stored it while this one waited */
		look_up_cache(build);
	}
}

int build_queue_init(uv_loop_t *loop, struct build_queue *queue, unsigned int limit)
{
	memset(queue, 0, sizeof(*queue));
	queue->limit = limit ? limit : uv_available_parallelism();
	queue->kick.data = queue;
	return uv_timer_init(loop, &queue->kick);
}

void build_queue_close(struct build_queue *queue)
{
	uv_close((uv_handle_t *)&queue->kick, NULL);
}

bool build_queue_cancel_waiting(struct build_queue *queue)
{
	struct build *build;

	for (build = queue->first; build; build = build->queue_next)
		build_cancel(build);
	return queue->first != NULL;
}

bool build_is_queued(const struct build *build)
{
	return build->queued;
}

void build_prioritize(struct build *build)
{
	build->background = false;
}

/* ---- start and cancel ---------------------------------------------------- */

/* Inside the worktree: relative and without "..", so what goes into the
 * cache is the build's own output. */
static bool is_path_inside(const char *path)
{
	const char *part = path;

	if (!path || !*path || path[0] == '/')
		return false;
	for (; part; part = strchr(part, '/') ? strchr(part, '/') + 1 : NULL) {
		if (strncmp(part, "..", 2) == 0 && (part[2] == '/' || part[2] == '\0'))
			return false;
	}
	return true;
}

static char **copy_argv(char *const *argv)
{
	size_t count = 0, i;
	char **copy;

	while (argv[count])
		count++;
	copy = calloc(count + 1, sizeof(char *));
	for (i = 0; copy && i < count; i++) {
		copy[i] = strdup(argv[i]);
		if (!copy[i]) {
			while (i--)
				free(copy[i]);
			free(copy);
			return NULL;
		}
	}
	return copy;
}

static int check_request(const struct build_request *request)
{
	char error[160];

	if (!request->tree || !*request->tree || !request->ref || !*request->ref ||
	    !request->cache_dir || !*request->cache_dir)
		return -EINVAL;
	/* "--end-of-options" is not in every git: a ref starting with '-' is
	 * refused, so that it can never be taken for an option */
	if (git_ref_check(request->ref, error, sizeof(error)))
		return -EINVAL;
	if (!is_path_inside(request->artifact) || !is_path_inside(request->release_file))
		return -EINVAL;
	if (request->build_argv && !request->build_argv[0])
		return -EINVAL;
	if (request->kbuild && (!request->kbuild->config_target || !*request->kbuild->config_target ||
				request->kbuild->config_target[0] == '-' ||
				(request->kbuild->fragment && request->kbuild->fragment[0] != '/') ||
				(request->kbuild->targets && !request->kbuild->targets[0])))
		return -EINVAL;
	return 0;
}

/* The recipe's strings, owned by the build; its id names the cache entry. */
static int copy_kbuild(struct build *build, const struct kbuild_recipe *recipe)
{
	build->is_kbuild = true;
	build->kbuild.modules = recipe->modules;
	if (!(build->kbuild.config_target = strdup(recipe->config_target)) ||
	    (recipe->fragment && !(build->kbuild.fragment = strdup(recipe->fragment))) ||
	    (recipe->targets && !(build->kbuild.targets = copy_argv(recipe->targets))))
		return -ENOMEM;
	return kbuild_recipe_id(&build->kbuild, build->build_argv, build->artifact,
				build->release_file, build->recipe_id);
}

static int copy_request(struct build *build, const struct build_request *request)
{
	static char *const default_argv[] = { "make", NULL };
	char absolute[PATH_MAX];
	int rc;

	if (path_format(build->tree, sizeof(build->tree), "%s", request->tree) ||
	    path_format(build->ref, sizeof(build->ref), "%s", request->ref) ||
	    path_format(build->artifact, sizeof(build->artifact), "%s", request->artifact) ||
	    path_format(build->release_file, sizeof(build->release_file), "%s", request->release_file))
		return -ENAMETOOLONG;
	build->build_argv = copy_argv(request->build_argv ? request->build_argv : default_argv);
	if (!build->build_argv)
		return -ENOMEM;
	if (request->kbuild && (rc = copy_kbuild(build, request->kbuild)) != 0)
		return rc;
	rc = path_make_dirs(request->cache_dir);
	if (rc)
		return rc;
	if (!realpath(request->cache_dir, absolute))
		return -errno;
	return path_format(build->cache_dir, sizeof(build->cache_dir), "%s", absolute);
}

int build_start(uv_loop_t *loop, const struct build_request *request, build_cb callback,
		void *data, struct build **build_out)
{
	struct build *build;
	int rc;

	if (!loop || !request || !callback)
		return -EINVAL;
	rc = check_request(request);
	if (rc)
		return rc;
	build = calloc(1, sizeof(*build));
	if (!build)
		return -ENOMEM;
	build->loop = loop;
	build->callback = callback;
	build->data = data;
	build->log_fd = -1;
	build->slot_fd = -1;
	build->entry_lock_fd = -1;
	build->queue = request->queue;
	build->background = request->background;
	build->timeout_ms = request->timeout_ms;
	rc = copy_request(build, request);
	if (!rc)
		rc = start_resolve_commit(build);
	if (rc) {
		free_build(build);
		return rc;
	}
	if (build_out)
		*build_out = build;
	return 0;
}

void build_cancel(struct build *build)
{
	struct child *child = &build->child;

	if (build->finished || build->cancelled)
		return;
	build->cancelled = true;
	if (build->queued) {	/* ended by the queue's timer, never from here */
		kick(build->queue);
		return;
	}
	/* once the result is known, the running child is tidying up: let it */
	if (build->cleaning_up || !child->running)
		return;
	if (child->kind == CHILD_BUILD)
		uv_kill(-child->process.pid, SIGKILL);
	else
		uv_process_kill(&child->process, SIGKILL);
}
