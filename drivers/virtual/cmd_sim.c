/*
 * rackbisect-vlab sim: the fast path. Builds a commit of a model kernel
 * tree, boots it on one simulated board in this process, and runs a workload
 * script against it, with no SSH: the script runs in the board's mount
 * namespace exactly as in an SSH session (its tools talk to this process),
 * and its KTAP goes to stdout.
 */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "kernel_build.h"
#include "path.h"
#include "subprocess.h"
#include "virtual/board/board_root.h"
#include "virtual/board/tool_server.h"
#include "virtual/sim/sim.h"
#include "virtual/vlab_commands.h"
#include "virtual/vlab_paths.h"

#define MAX_KNOBS 32
#define MAX_SCRIPT_ARGS 64

struct sim_arguments {
	const char *tree;
	const char *commit;
	const char *kernel;		/* a built image instead of tree+commit */
	const char *workload;
	const char *chip;
	const char *workload_dir;
	const char *cache_dir;
	uint64_t seed;
	const char *knobs[MAX_KNOBS];
	size_t knob_count;
	char **script_args;
	int script_arg_count;
};

struct fast_path {
	uv_loop_t loop;
	struct sim_board *board;
	struct tool_server *tools;
	struct board_root_paths paths;
	uv_process_t workload;
	int workload_status;
	int hung;
};

static const char usage_text[] =
	"usage: rackbisect-vlab sim (--tree DIR --commit REF | --kernel IMAGE) --workload W1..W4\n"
	"                           --chip CHIP [--seed N] [--knob NAME=VALUE]... [-- SCRIPT ARGS]\n"
	"\n"
	"Builds REF of the model kernel tree DIR (cached by commit id), boots it on one\n"
	"simulated board with CHIP (ar5416 ar9160 ar9280 ar9285 ar9287 ar9380 ar9462), runs\n"
	"the workload script of drivers/workload/ against it in simulated time, and prints\n"
	"its KTAP. --seed makes the run reproducible (the board's and the script's choices).\n"
	"Exit: the workload's status (0 it ran), 1 the board's host hung or REF does not\n"
	"build, 2 usage, 3 lab trouble.\n"
	"Options: --workload-dir DIR (default: drivers/workload beside the build),\n"
	"         --cache DIR (kernel builds; default $XDG_CACHE_HOME/rackbisect/kernels).\n";

static int parse_seed(const char *text, uint64_t *seed)
{
	char *end;

	errno = 0;
	*seed = strtoull(text, &end, 0);
	return errno || !*text || *end || *text == '-' ? -EINVAL : 0;
}

static int parse_arguments(int argc, char **argv, struct sim_arguments *args)
{
	int i;

	memset(args, 0, sizeof(*args));
	args->seed = 1;
	for (i = 1; i < argc; i++) {
		const char *option = argv[i];
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(option, "--") == 0) {
			args->script_args = argv + i + 1;
			args->script_arg_count = argc - i - 1;
			break;
		}
		if (strcmp(option, "--help") == 0 || strcmp(option, "-h") == 0) {
			fputs(usage_text, stdout);
			return 1;
		}
		if (!value || value[0] == '-') {
			fprintf(stderr, "rackbisect-vlab sim: %s needs a value\n%s", option, usage_text);
			return -EINVAL;
		}
		i++;
		if (strcmp(option, "--tree") == 0)
			args->tree = value;
		else if (strcmp(option, "--commit") == 0)
			args->commit = value;
		else if (strcmp(option, "--kernel") == 0)
			args->kernel = value;
		else if (strcmp(option, "--workload") == 0)
			args->workload = value;
		else if (strcmp(option, "--chip") == 0)
			args->chip = value;
		else if (strcmp(option, "--workload-dir") == 0)
			args->workload_dir = value;
		else if (strcmp(option, "--cache") == 0)
			args->cache_dir = value;
		else if (strcmp(option, "--seed") == 0) {
			if (parse_seed(value, &args->seed)) {
				fprintf(stderr, "rackbisect-vlab sim: --seed must be a whole number, not '%s'\n", value);
				return -EINVAL;
			}
		} else if (strcmp(option, "--knob") == 0 && args->knob_count < MAX_KNOBS)
			args->knobs[args->knob_count++] = value;
		else {
			fprintf(stderr, "rackbisect-vlab sim: unknown option '%s'\n%s", option, usage_text);
			return -EINVAL;
		}
	}
	if (!args->workload || !args->chip || !(args->kernel || (args->tree && args->commit))) {
		fprintf(stderr, "rackbisect-vlab sim: --workload, --chip and --tree with --commit (or --kernel) are required\n%s",
			usage_text);
		return -EINVAL;
	}
	return 0;
}

/* ---- finding things ----------------------------------------------------- */

static int find_workload_dir(const struct sim_arguments *args, char *out, size_t len)
{
	if (args->workload_dir)
		return path_format(out, len, "%s", args->workload_dir);
	return vlab_find_workload_dir(out, len);
}

/* "W3" or "w3" -> DIR/w3-*.sh */
static int find_workload_script(const char *dir, const char *name, char *out, size_t len)
{
	char pattern[PATH_MAX];
	glob_t found;
	int rc;

	if ((name[0] != 'W' && name[0] != 'w') || name[1] < '1' || name[1] > '9' || name[2])
		return -EINVAL;
	if (path_format(pattern, sizeof(pattern), "%s/w%c-*.sh", dir, name[1]))
		return -ENAMETOOLONG;
	if (glob(pattern, 0, NULL, &found) != 0)
		return -ENOENT;
	rc = found.gl_pathc == 1 ? path_format(out, len, "%s", found.gl_pathv[0]) : -ENOENT;
	globfree(&found);
	return rc;
}

/* ---- the board ---------------------------------------------------------- */

static int make_board(const struct sim_arguments *args, const char *kernel, struct sim_board **board)
{
	struct sim_board_config config = { .name = "sim", .seed = args->seed };
	size_t i;
	int rc;

	if (sim_chip_from_name(args->chip, &config.chip) != 0) {
		fprintf(stderr, "rackbisect-vlab sim: unknown chip '%s' (known: ar5416, ar9160, ar9280, ar9285, ar9287, ar9380, ar9462)\n",
			args->chip);
		return VLAB_EXIT_USAGE;
	}
	sim_knobs_default(&config.knobs);
	for (i = 0; i < args->knob_count; i++) {
		char name[128];
		const char *equals = strchr(args->knobs[i], '=');

		if (!equals || (size_t)(equals - args->knobs[i]) >= sizeof(name) ||
		    (snprintf(name, sizeof(name), "%.*s", (int)(equals - args->knobs[i]), args->knobs[i]),
		     sim_knob_set(&config.knobs, name, equals + 1) != 0)) {
			fprintf(stderr, "rackbisect-vlab sim: bad --knob '%s' (NAME=VALUE; probabilities in [0,1])\n",
				args->knobs[i]);
			return VLAB_EXIT_USAGE;
		}
	}
	*board = sim_board_create(&config);
	if (!*board)
		return VLAB_EXIT_INFRA;
	rc = sim_board_boot(*board, kernel);
	if (rc) {
		fprintf(stderr, "rackbisect-vlab sim: cannot boot %s: %s\n", kernel, sim_board_error(*board));
		return rc == -ENOEXEC ? VLAB_EXIT_USAGE : VLAB_EXIT_INFRA;
	}
	return 0;
}

static void write_to_session(void *arg, int fd, const char *data, size_t len)
{
	tool_session_write(arg, fd, data, len);
}

static void stop_workload(struct fast_path *fast)
{
	/* The workload is a process group of its own (detached): end all of it. */
	if (fast->workload.pid > 0)
		kill(-fast->workload.pid, SIGKILL);
}

static void refresh_files(struct fast_path *fast)
{
	struct sim_board_files files = {
		.debugfs_dir = fast->paths.debugfs,
		.sysclass_dir = fast->paths.sysclass,
		.uptime_file = fast->paths.uptime,
	};

	sim_board_write_files(fast->board, &files);
}

static void run_tool(void *context, struct tool_session *session, const struct tool_request *request)
{
	struct fast_path *fast = context;
	int status;

	if (fast->hung)
		return;
	if (strcmp(request->argv[0], "kexec") == 0 || strcmp(request->argv[0], "reboot") == 0) {
		const char *message = "not available on the fast path (no boot loader); use a lab board\n";

		tool_session_write(session, 2, request->argv[0], strlen(request->argv[0]));
		tool_session_write(session, 2, ": ", 2);
		tool_session_write(session, 2, message, strlen(message));
		tool_session_finish(session, 1);
		return;
	}
	status = sim_board_run_tool(fast->board, request->argc, request->argv, write_to_session, session);
	if (status == SIM_TOOL_HUNG) {
		fast->hung = 1;
		stop_workload(fast);
		return;
	}
	refresh_files(fast);
	tool_session_finish(session, status);
}

static void on_workload_exit(uv_process_t *process, int64_t status, int signal)
{
	struct fast_path *fast = process->data;

	fast->workload_status = signal ? 128 + signal : (int)status;
	uv_close((uv_handle_t *)process, NULL);
	tool_server_stop(fast->tools);
}

static int start_workload(struct fast_path *fast, const char *vlab, const char *root,
			  const char *script, const struct sim_arguments *args)
{
	char seed_text[32];
	char *argv[MAX_SCRIPT_ARGS + 12];
	uv_process_options_t options = { 0 };
	uv_stdio_container_t stdio[3];
	int count = 0, i;

	snprintf(seed_text, sizeof(seed_text), "%" PRIu64, args->seed);
	argv[count++] = (char *)vlab;
	argv[count++] = "board-exec";
	argv[count++] = "--root";
	argv[count++] = (char *)root;
	argv[count++] = "--";
	argv[count++] = "sh";
	argv[count++] = (char *)script;
	argv[count++] = "--seed";
	argv[count++] = seed_text;
	for (i = 0; i < args->script_arg_count && i < MAX_SCRIPT_ARGS; i++)
		argv[count++] = args->script_args[i];
	argv[count] = NULL;
	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_INHERIT_FD;
	stdio[1].data.fd = 1;
	stdio[2].flags = UV_INHERIT_FD;
	stdio[2].data.fd = 2;
	options.file = vlab;
	options.args = argv;
	options.stdio = stdio;
	options.stdio_count = 3;
	options.exit_cb = on_workload_exit;
	options.flags = UV_PROCESS_DETACHED;
	fast->workload.data = fast;
	return uv_spawn(&fast->loop, &fast->workload, &options);
}

/* Board root in a temporary directory, tool server, workload; runs the loop. */
static int run_fast_path(struct fast_path *fast, const struct sim_arguments *args, const char *script)
{
	char root[] = "/tmp/rackbisect-sim-XXXXXX", vlab[PATH_MAX], tool[PATH_MAX], error[1024];
	char *remove[] = { "rm", "-rf", root, NULL };
	int rc;

	if (!mkdtemp(root) || vlab_self_path(vlab, sizeof(vlab)) ||
	    vlab_find_tool_binary(tool, sizeof(tool))) {
		fprintf(stderr, "rackbisect-vlab sim: cannot set up the board (is rackbisect-board-tool built? run make)\n");
		return VLAB_EXIT_INFRA;
	}
	uv_loop_init(&fast->loop);
	board_root_paths(root, &fast->paths);
	rc = board_root_prepare(root, tool, error, sizeof(error));
	if (!rc)
		rc = board_root_write_boot(root, "Linux version (fast path)\n", "console=ttyS0,115200");
	if (!rc)
		refresh_files(fast);
	if (!rc && (rc = tool_server_start(&fast->loop, fast->paths.socket, run_tool, fast, &fast->tools)))
		snprintf(error, sizeof(error), "cannot listen on %s: %s", fast->paths.socket, uv_strerror(rc));
	if (!rc && (rc = start_workload(fast, vlab, root, script, args))) {
		snprintf(error, sizeof(error), "cannot start the workload: %s", uv_strerror(rc));
		tool_server_stop(fast->tools);
	}
	if (rc)
		fprintf(stderr, "rackbisect-vlab sim: %s\n", error);
	uv_run(&fast->loop, UV_RUN_DEFAULT);
	uv_loop_close(&fast->loop);
	subprocess_run(remove, NULL, NULL);
	return rc ? VLAB_EXIT_INFRA : 0;
}

int vlab_cmd_sim(int argc, char **argv)
{
	struct fast_path fast = { 0 };
	struct sim_arguments args;
	struct kernel_build build;
	char workload_dir[PATH_MAX], script[PATH_MAX], cache[PATH_MAX], error[1200];
	const char *kernel;
	int rc;

	rc = parse_arguments(argc, argv, &args);
	if (rc)
		return rc > 0 ? VLAB_EXIT_OK : VLAB_EXIT_USAGE;
	if (find_workload_dir(&args, workload_dir, sizeof(workload_dir)) != 0 ||
	    find_workload_script(workload_dir, args.workload, script, sizeof(script)) != 0) {
		fprintf(stderr, "rackbisect-vlab sim: no workload '%s' (W1..W4) in %s\n", args.workload,
			args.workload_dir ? args.workload_dir : "drivers/workload");
		return VLAB_EXIT_USAGE;
	}
	kernel = args.kernel;
	if (!kernel) {
		if (args.cache_dir)
			path_format(cache, sizeof(cache), "%s", args.cache_dir);
		else if (kernel_build_default_cache(cache, sizeof(cache)) != 0) {
			fprintf(stderr, "rackbisect-vlab sim: no cache directory: give --cache DIR\n");
			return VLAB_EXIT_USAGE;
		}
		rc = kernel_build_commit(args.tree, args.commit, cache, &build, error, sizeof(error));
		if (rc) {
			fprintf(stderr, "rackbisect-vlab sim: %s\n", error);
			return rc == -ENOEXEC ? VLAB_EXIT_FAIL : rc == -ENOENT || rc == -EINVAL ? VLAB_EXIT_USAGE
										    : VLAB_EXIT_INFRA;
		}
		kernel = build.image;
	}
	rc = make_board(&args, kernel, &fast.board);
	if (rc) {
		sim_board_destroy(fast.board);
		return rc;
	}
	fprintf(stderr, "# rackbisect-vlab sim: %s on %s (%s), seed %" PRIu64 "\n",
		sim_board_release(fast.board), args.chip, args.workload, args.seed);
	rc = run_fast_path(&fast, &args, script);
	if (!rc && fast.hung) {
		printf("# the board's host hung at %.6f s (simulated); the workload was stopped\n",
		       (double)sim_board_uptime_us(fast.board) / 1e6);
		rc = VLAB_EXIT_FAIL;
	} else if (!rc) {
		rc = fast.workload_status;
	}
	sim_board_destroy(fast.board);
	return rc;
}
