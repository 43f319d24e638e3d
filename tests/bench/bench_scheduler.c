/*
 * bench_scheduler: the coordinator's scheduling at lab scale without SSH: one
 * scheduler (src/scheduler.c) runs a workload once on each of N simulated
 * boards at once, every run through the real run machinery (run.c: its
 * steps, watchdog, KTAP verdict, the store's records and the event log), the
 * boards reached through the unit tests' local transport (commands run on
 * this machine: tests/unit/helpers/local_transport.h). The workload is a
 * script that sleeps S seconds and prints one KTAP test: what is left of a
 * run is what the coordinator itself costs per run.
 *
 * Prints one line for run.sh:
 *   boards=N runs=R passed=P seconds=S runs_per_second=X cpu_ms_per_run=C
 *   baseline_rss_kib=B peak_rss_kib=P per_board_kib=K
 * (cpu_ms_per_run: this process's user + system time per run: the
 * coordinator's own work, the store's writes included, not the boards')
 * Fails (exit 1) when a run does not pass or the scheduler does not finish
 * within its limit; never on speed.
 *
 * usage: bench_scheduler DIR BOARDS [SLEEP_SECONDS]   (DIR: an empty directory)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <uv.h>

#include "board.h"
#include "config.h"
#include "job_config.h"
#include "log.h"
#include "run.h"
#include "scheduler.h"
#include "store.h"
#include "../unit/helpers/local_transport.h"

/* 1,000 runs on 2 cores: the limit catches a scheduler that never ends */
#define LIMIT_MS (20 * 60 * 1000)

struct bench {
	uv_loop_t loop;
	uv_timer_t limit;
	bool done, timed_out;
	struct store *store;
	struct log log;
	FILE *events;
	struct job job;
	struct job_workload workload;
	char *no_args[1];
	struct power power;
	struct run_environment environment;
	struct lab_board *configs;
	struct board *boards;
	struct board **board_list;
	char (*names)[32];
	size_t count;
	char dir[PATH_MAX - 64], runs_dir[PATH_MAX], workload_dir[PATH_MAX], release[128];
};

static long rss_kib(const char *field)
{
	char line[256];
	long value = 0;
	FILE *status = fopen("/proc/self/status", "r");

	while (status && fgets(line, sizeof(line), status))
		if (strncmp(line, field, strlen(field)) == 0)
			value = strtol(line + strlen(field), NULL, 10);
	if (status)
		fclose(status);
	return value;
}

static double cpu_seconds(void)
{
	struct rusage usage;

	getrusage(RUSAGE_SELF, &usage);
	return (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
	       (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static int write_workload(struct bench *bench, double seconds)
{
	char path[PATH_MAX + 16];
	FILE *script;

	if (snprintf(path, sizeof(path), "%s/wt.sh", bench->workload_dir) >= (int)sizeof(path) ||
	    !(script = fopen(path, "w")))
		return -1;
	fprintf(script, "sleep %.3f\nprintf 'KTAP version 1\\n1..1\\nok 1 ran\\n'\n", seconds);
	return fclose(script);
}

static int set_up(struct bench *bench, const char *dir, size_t count, double seconds)
{
	char path[PATH_MAX + 16];
	struct utsname host;
	size_t i;

	snprintf(bench->dir, sizeof(bench->dir), "%s", dir);
	snprintf(local_world.shared_tmp, sizeof(local_world.shared_tmp), "%.100s/board-tmp", dir);
	snprintf(local_world.output_dir, sizeof(local_world.output_dir), "%.100s/exec", dir);
	snprintf(bench->runs_dir, sizeof(bench->runs_dir), "%s/runs", dir);
	snprintf(bench->workload_dir, sizeof(bench->workload_dir), "%s/workload", dir);
	if (mkdir(local_world.shared_tmp, 0700) || mkdir(local_world.output_dir, 0700) ||
	    mkdir(bench->runs_dir, 0700) || mkdir(bench->workload_dir, 0700) ||
	    write_workload(bench, seconds) || uname(&host)) {
		perror("bench_scheduler: setting up DIR");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/state.db", dir);
	if (store_open(path, &bench->store) != 0 || uv_loop_init(&bench->loop) != 0 ||
	    !(bench->events = fopen("/dev/null", "w")))
		return -1;
	log_init(&bench->log, bench->events, false, bench->store);
	bench->power = (struct power){ .ops = &broken_power_ops, .loop = &bench->loop };
	/* the boards already run the kernel under test, cleanly: no boot */
	snprintf(bench->release, sizeof(bench->release), "%s", host.release);
	bench->workload = (struct job_workload){ .name = "WT", .script = "wt.sh", .args = bench->no_args,
						 .timeout_seconds = 600, .repeats = 1 };
	bench->job = (struct job){ .name = "bench-scheduler", .workloads = &bench->workload,
				   .workload_count = 1, .boot_failure = JOB_POLICY_SKIP,
				   .boot_timeout_seconds = 600, .hang_timeout_seconds = 600 };
	bench->environment = (struct run_environment){
		.loop = &bench->loop, .store = bench->store, .log = &bench->log, .job = &bench->job,
		.job_name = bench->job.name, .runs_dir = bench->runs_dir,
		.workload_dir = bench->workload_dir };
	bench->count = count;
	bench->configs = calloc(count, sizeof(*bench->configs));
	bench->boards = calloc(count, sizeof(*bench->boards));
	bench->board_list = calloc(count, sizeof(*bench->board_list));
	bench->names = calloc(count, sizeof(*bench->names));
	if (!bench->configs || !bench->boards || !bench->board_list || !bench->names)
		return -1;
	for (i = 0; i < count; i++) {
		snprintf(bench->names[i], sizeof(bench->names[i]), "s%04zu", i + 1);
		bench->configs[i] = (struct lab_board){ .name = bench->names[i], .chip = "ar9285" };
		local_board_init(&bench->boards[i], &bench->configs[i], &bench->loop, &bench->log,
				 &bench->power, "unused");
		bench->board_list[i] = &bench->boards[i];
	}
	return 0;
}

static void on_done(struct scheduler *scheduler, void *data)
{
	(void)scheduler;
	((struct bench *)data)->done = true;
}

static void on_limit(uv_timer_t *timer)
{
	((struct bench *)timer->data)->timed_out = true;
}

static size_t count_passed(const struct scheduler *scheduler)
{
	size_t count, i, passed = 0;
	const struct scheduler_cell *cells = scheduler_cells(scheduler, &count);

	for (i = 0; i < count; i++)
		passed += cells[i].outcome == VERDICT_PASS;
	if (passed < count)
		for (i = 0; i < count; i++)
			if (cells[i].outcome != VERDICT_PASS) {
				fprintf(stderr, "bench_scheduler: %s: %s\n", cells[i].ran_on, cells[i].summary);
				break;
			}
	return passed;
}

int main(int argc, char **argv)
{
	struct bench bench = { 0 };
	struct scheduler *scheduler = NULL;
	struct rlimit files;
	long baseline, peak;
	size_t count = argc > 2 ? strtoul(argv[2], NULL, 10) : 0, passed;
	double seconds = argc > 3 ? strtod(argv[3], NULL) : 1.0, wall, cpu;
	uint64_t started;

	if (argc < 3 || count == 0) {
		fprintf(stderr, "usage: bench_scheduler DIR BOARDS [SLEEP_SECONDS]\n");
		return 2;
	}
	/* a run holds a few descriptors (pipes of its commands, its files): a
	 * thousand at once need more than a default soft limit of 1024 */
	if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
		files.rlim_cur = files.rlim_max;
		setrlimit(RLIMIT_NOFILE, &files);
	}
	if (set_up(&bench, argv[1], count, seconds) != 0)
		return 1;
	baseline = rss_kib("VmRSS:");
	cpu = cpu_seconds();
	uv_timer_init(&bench.loop, &bench.limit);
	bench.limit.data = &bench;
	uv_timer_start(&bench.limit, on_limit, LIMIT_MS, 0);
	uv_update_time(&bench.loop);
	started = uv_hrtime();
	if (scheduler_start(&(struct scheduler_options){
		    .environment = &bench.environment, .boards = bench.board_list, .board_count = count,
		    .spec = { .commit = "c0ffee", .image = "unused", .release = bench.release } },
		    on_done, &bench, &scheduler) != 0) {
		fprintf(stderr, "bench_scheduler: the scheduler did not start\n");
		return 1;
	}
	while (!bench.done && !bench.timed_out)
		uv_run(&bench.loop, UV_RUN_ONCE);
	wall = (double)(uv_hrtime() - started) / 1e9;
	cpu = cpu_seconds() - cpu;
	peak = rss_kib("VmHWM:");
	uv_close((uv_handle_t *)&bench.limit, NULL);
	if (bench.timed_out) {
		fprintf(stderr, "bench_scheduler: not done within %d s\n", LIMIT_MS / 1000);
		return 1;
	}
	passed = count_passed(scheduler);
	printf("boards=%zu runs=%zu passed=%zu seconds=%.3f runs_per_second=%.1f "
	       "cpu_ms_per_run=%.2f baseline_rss_kib=%ld peak_rss_kib=%ld per_board_kib=%.0f\n",
	       count, count, passed, wall, count / wall, cpu * 1000.0 / count,
	       baseline, peak, (double)(peak - baseline) / count);
	scheduler_free(scheduler);
	local_boards_teardown(&bench.loop, bench.boards, count, bench.store, bench.events, bench.dir);
	return passed == count ? 0 : 1;
}
