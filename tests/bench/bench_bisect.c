/*
 * bench_bisect: the bisection engine (src/bisect.h) against `git bisect run`,
 * plain and with a repeat wrapper, on simulated test results (no boards, no
 * SSH). Issue 5.
 *
 * A trial picks a first bad commit (the culprit) in a kernel-like history
 * with merges; a commit is bad iff the culprit is it or an ancestor of it; a
 * run at a bad commit FAILs with probability p, at a good one with epsilon;
 * 5 % of the commits (never the culprit, never the bad end) do not build and
 * SKIP. Each row bisects the same trials three ways:
 *   ours     the library, k boards per round: its defaults (p learned), or
 *            told p = 1 and epsilon = 0, or told the row's p and epsilon;
 *   wrapper  git's bisection (the library told p = 1, epsilon = 0, one
 *            commit per step), each step's test repeated up to R times and
 *            stopped at the first FAIL, R = ceil(log 0.01 / log(1 - p)) so
 *            that a bad commit is caught with 99 % per step;
 *   git      real `git bisect run` on a real repository, one run per step,
 *            k = 1 only (git has no parallelism), in some rows.
 * Rows run in parallel, one worker process per CPU; the table comes out the
 * same whatever the machine, every trial being seeded.
 *
 * usage: bench_bisect WORKDIR [SCALE]      SCALE in (0, 1] shrinks the trial
 *                                          counts (for a quick look)
 *        bench_bisect --test-run JOBDIR    the test `git bisect run` calls, at
 *                                          the top of the repository: exit 0
 *                                          (PASS), 1 (FAIL) or 125 (SKIP)
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bisect.h"

#define MAX_PARENTS 2
#define MAX_BOARDS 8
#define NO_COMMIT SIZE_MAX
#define UNBUILDABLE_SHARE 0.05
/* The wrapper's goal: a bad commit caught with this probability per step. */
#define WRAPPER_CATCH_PER_STEP 0.99
/* A trial still running after this many runs is given up and counted as
 * wrong: a user would have stopped long before. Right answers at p = 0.1
 * take a few hundred runs; see "given up" in the table's footer. */
#define RUN_LIMIT 20000
#define SHA_LENGTH 40
#define GIT_TEST_SKIP 125

/* ---- seeded randomness ------------------------------------------------------ */

/* splitmix64: every trial and every run draws from its own seeded stream, so
 * the figures are the same on every machine and in every job order. */
static uint64_t random_next(uint64_t *state)
{
	uint64_t value = (*state += UINT64_C(0x9e3779b97f4a7c15));
	value = (value ^ (value >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	value = (value ^ (value >> 27)) * UINT64_C(0x94d049bb133111eb);
	return value ^ (value >> 31);
}

static double random_unit(uint64_t *state)
{
	return (double)(random_next(state) >> 11) * 0x1.0p-53;
}

static size_t random_below(uint64_t *state, size_t bound)
{
	return (size_t)(random_next(state) % bound);
}

/* A seed for stream `which` of `seed`: streams of one seed never overlap in
 * practice, so ours, the wrapper and git draw independently. */
static uint64_t seed_of(uint64_t seed, uint64_t which)
{
	uint64_t state = seed ^ (which * UINT64_C(0xd1b54a32d192ed03));
	return random_next(&state);
}

static double seconds_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* ---- a kernel-like history ------------------------------------------------ */

/*
 * Commits are added parents first, so index order is topological and the
 * last commit is the bad end. As in tests/unit/test_bisect.c: a main line
 * into which, about one commit in `merge_every`, a side branch of 1..20
 * commits forked up to 40 commits back is merged.
 */
struct history {
	size_t count;
	size_t (*parents)[MAX_PARENTS];
	size_t *parent_count;
	char (*ids)[24];
	struct bisect_commit *commits;
};

static int history_init(struct history *history, size_t capacity)
{
	history->count = 0;
	history->parents = calloc(capacity, sizeof(*history->parents));
	history->parent_count = calloc(capacity, sizeof(size_t));
	history->ids = calloc(capacity, sizeof(*history->ids));
	history->commits = calloc(capacity, sizeof(struct bisect_commit));
	if (!history->parents || !history->parent_count || !history->ids || !history->commits)
		return -ENOMEM;
	return 0;
}

static void history_release(struct history *history)
{
	free(history->parents);
	free(history->parent_count);
	free(history->ids);
	free(history->commits);
}

static size_t history_add(struct history *history, size_t first_parent, size_t second_parent)
{
	size_t commit = history->count++;
	size_t parents = 0;

	if (first_parent != NO_COMMIT)
		history->parents[commit][parents++] = first_parent;
	if (second_parent != NO_COMMIT)
		history->parents[commit][parents++] = second_parent;
	history->parent_count[commit] = parents;
	snprintf(history->ids[commit], sizeof(history->ids[commit]), "c%zu", commit);
	history->commits[commit] = (struct bisect_commit){
		.id = history->ids[commit],
		.parents = history->parents[commit],
		.parent_count = parents,
	};
	return commit;
}

static int history_kernel_like(struct history *history, size_t count, size_t merge_every,
			       uint64_t seed)
{
	uint64_t rng = seed;
	size_t tip;

	if (history_init(history, count) != 0)
		return -ENOMEM;
	tip = history_add(history, NO_COMMIT, NO_COMMIT);
	while (history->count < count) {
		size_t room = count - history->count;
		if (room >= 3 && random_below(&rng, merge_every) == 0) {
			size_t length = 1 + random_below(&rng, 20);
			if (length > room - 1)
				length = room - 1;
			size_t back = random_below(&rng, 40);
			size_t side = tip > back ? tip - back : 0;
			for (size_t i = 0; i < length; i++)
				side = history_add(history, side, NO_COMMIT);
			tip = history_add(history, tip, side);
		} else {
			tip = history_add(history, tip, NO_COMMIT);
		}
	}
	return 0;
}

static size_t bad_end_of(const struct history *history)
{
	return history->count - 1;
}

/* ---- one trial's truth ---------------------------------------------------- */

struct world {
	size_t culprit;
	bool *bad;
	bool *unbuildable;
};

/*
 * The truth of trial `trial` of a history: the same for every row and every
 * method, so that they are compared on the same culprits and the same
 * broken builds. The culprit builds (else nobody could name it) and so does
 * the bad end (the user saw it fail).
 */
static int world_for_trial(const struct history *history, unsigned trial, struct world *world)
{
	uint64_t rng = seed_of(history->count, trial);

	world->bad = calloc(history->count, sizeof(bool));
	world->unbuildable = calloc(history->count, sizeof(bool));
	if (!world->bad || !world->unbuildable)
		return -ENOMEM;
	world->culprit = random_below(&rng, history->count);
	for (size_t commit = 0; commit < history->count; commit++) {
		world->bad[commit] = commit == world->culprit;
		for (size_t i = 0; i < history->parent_count[commit]; i++)
			world->bad[commit] |= world->bad[history->parents[commit][i]];
		world->unbuildable[commit] = random_unit(&rng) < UNBUILDABLE_SHARE &&
					     commit != world->culprit &&
					     commit != bad_end_of(history);
	}
	return 0;
}

static void world_release(struct world *world)
{
	free(world->bad);
	free(world->unbuildable);
}

struct noise {
	double fail_rate_when_bad;    /* p */
	double fail_rate_when_good;   /* epsilon */
};

/* A wrong answer either way equally often: p = 1 - epsilon. */
/* --confidence for the symmetric-noise rows, whose target is 99.5 % right */
#define SYMMETRIC_CONFIDENCE 0.995

/* A wrong answer either way with the same probability; no noise (p = 1,
 * epsilon = 0) is not "symmetric noise". */
static bool is_symmetric(const struct noise *noise)
{
	return noise->fail_rate_when_good > 0 &&
	       noise->fail_rate_when_bad + noise->fail_rate_when_good == 1;
}

static enum bisect_result simulated_run(const struct world *world, const struct noise *noise,
					size_t commit, uint64_t *rng)
{
	if (world->unbuildable[commit])
		return BISECT_SKIP;
	double rate = world->bad[commit] ? noise->fail_rate_when_bad : noise->fail_rate_when_good;
	return random_unit(rng) < rate ? BISECT_FAIL : BISECT_PASS;
}

/* ---- what a trial ended with ---------------------------------------------- */

struct outcome {
	bool right;
	/* Ended naming a set ("could be any of"): the culprit's parent never
	 * built, so nobody can tell them apart; right if the set holds it. */
	bool only_skipped_left;
	bool given_up;          /* still running at RUN_LIMIT */
	unsigned runs;
	unsigned rounds;
};

static bool contains(const size_t *commits, size_t count, size_t commit)
{
	for (size_t i = 0; i < count; i++)
		if (commits[i] == commit)
			return true;
	return false;
}

static void judge_status(const struct bisect_status *status, size_t culprit,
			 struct outcome *outcome)
{
	outcome->right = status->state == BISECT_FOUND && status->best == culprit;
	if (status->state == BISECT_ONLY_SKIPPED_LEFT) {
		outcome->only_skipped_left = true;
		outcome->right = contains(status->undecided, status->undecided_count, culprit);
	}
}

/* ---- ours ----------------------------------------------------------------- */

static int bisect_ours(const struct history *history, const struct world *world,
		       const struct noise *noise, const struct bisect_options *options,
		       size_t boards, uint64_t rng, struct outcome *outcome)
{
	struct bisect *bisect = NULL;
	struct bisect_status status;
	size_t proposals[MAX_BOARDS], count;
	int rc;

	if (boards > MAX_BOARDS)
		return -EINVAL;
	rc = bisect_new(history->commits, history->count, bad_end_of(history), options, &bisect);
	if (rc != 0)
		return rc;
	for (;;) {
		bisect_status(bisect, &status);
		if (status.state != BISECT_RUNNING)
			break;
		if (status.runs >= RUN_LIMIT) {
			outcome->given_up = true;
			break;
		}
		/* No proposal while running would be the library's fault: the
		 * trial then ends unanswered, wrong. */
		rc = bisect_next(bisect, boards, proposals, &count);
		if (rc != 0 || count == 0)
			break;
		outcome->rounds++;
		for (size_t i = 0; rc == 0 && i < count; i++)
			rc = proposals[i] == BISECT_GOOD_END
				     ? bisect_record_good_end(bisect, random_unit(&rng) < noise->fail_rate_when_good
									    ? BISECT_FAIL : BISECT_PASS)
				     : bisect_record(bisect, proposals[i],
						     simulated_run(world, noise, proposals[i], &rng));
		if (rc != 0)
			break;
	}
	judge_status(&status, world->culprit, outcome);
	outcome->runs = status.runs;
	bisect_free(bisect);
	return rc;
}

/* ---- the repeat wrapper --------------------------------------------------- */

static unsigned wrapper_repeats(double fail_rate_when_bad)
{
	if (fail_rate_when_bad >= 1)
		return 1;
	return (unsigned)ceil(log(1 - WRAPPER_CATCH_PER_STEP) / log(1 - fail_rate_when_bad));
}

/*
 * One step's test as a wrapper script around `git bisect run` would do it:
 * FAIL at the first FAIL, PASS after `repeats` passes, SKIP when it does not
 * build. With k boards the repeats run k at a time (a round of ceil(R/k)
 * at most): every run started in a round counts, also those beside the
 * FAIL that ended it.
 */
static enum bisect_result repeated_test(const struct world *world, const struct noise *noise,
					size_t commit, unsigned repeats, size_t boards,
					uint64_t *rng, struct outcome *outcome)
{
	unsigned done = 0;

	if (world->unbuildable[commit]) {
		outcome->runs++;
		outcome->rounds++;
		return BISECT_SKIP;
	}
	while (done < repeats) {
		unsigned batch = repeats - done < boards ? repeats - done : (unsigned)boards;
		bool failed = false;
		for (unsigned i = 0; i < batch; i++)
			failed |= simulated_run(world, noise, commit, rng) == BISECT_FAIL;
		done += batch;
		outcome->runs += batch;
		outcome->rounds++;
		if (failed)
			return BISECT_FAIL;
	}
	return BISECT_PASS;
}

/* git's bisection: midpoints by ancestor count, every answer taken as true,
 * which is the library told that runs never lie. */
static int bisect_with_repeats(const struct history *history, const struct world *world,
			       const struct noise *noise, size_t boards, uint64_t rng,
			       struct outcome *outcome)
{
	struct bisect_options options;
	struct bisect *bisect = NULL;
	struct bisect_status status;
	unsigned repeats = wrapper_repeats(noise->fail_rate_when_bad);
	size_t commit, count;
	int rc;

	bisect_options_init(&options);
	bisect_options_deterministic(&options);
	options.max_runs = BISECT_NO_RUN_LIMIT;
	rc = bisect_new(history->commits, history->count, bad_end_of(history), &options, &bisect);
	if (rc != 0)
		return rc;
	for (;;) {
		bisect_status(bisect, &status);
		if (status.state != BISECT_RUNNING)
			break;
		if (outcome->runs >= RUN_LIMIT) {
			outcome->given_up = true;
			break;
		}
		rc = bisect_next(bisect, 1, &commit, &count);
		if (rc != 0 || count == 0)
			break;
		rc = bisect_record(bisect, commit, repeated_test(world, noise, commit, repeats,
								 boards, &rng, outcome));
		if (rc != 0)
			break;
	}
	judge_status(&status, world->culprit, outcome);
	bisect_free(bisect);
	return rc;
}

/* ---- real git --------------------------------------------------------------- */

/*
 * `git bisect run` calls us back as its test (--test-run JOBDIR) at the top
 * of the repository. Bisecting with --no-checkout (a checkout per step
 * would only add time), the commit under test is BISECT_HEAD; the job
 * directory maps it to an index (fast-import's marks) and holds the truth
 * ("world": p, epsilon, a seed, then a letter per commit: B bad, G good,
 * S does not build) and a counter, so that every run of a trial draws a
 * fresh number from the trial's seed.
 */
struct git_repository {
	char directory[PATH_MAX];
	char (*shas)[SHA_LENGTH + 1];   /* per commit; good_sha is the good end */
	char good_sha[SHA_LENGTH + 1];
	size_t count;
};

/* Runs a shell command built like printf: its exit code, or -1 when it
 * could not run or was killed. */
static int __attribute__((format(printf, 1, 2))) run_shell(const char *format, ...)
{
	va_list arguments;
	char *command = NULL;
	int status, length;

	va_start(arguments, format);
	length = vasprintf(&command, format, arguments);
	va_end(arguments);
	if (length < 0)
		return -1;
	status = system(command);
	free(command);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* A path built like printf; a path too long for the buffer is an error,
 * never a shorter path. */
static int __attribute__((format(printf, 3, 4))) format_path(char *path, size_t size,
							       const char *format, ...)
{
	va_list arguments;
	int length;

	va_start(arguments, format);
	length = vsnprintf(path, size, format, arguments);
	va_end(arguments);
	return length >= 0 && (size_t)length < size ? 0 : -ENAMETOOLONG;
}

/* git fast-import: the whole history in one process (a file "commit" with
 * the index in each tree, for a human looking). Mark 1 is the good end,
 * commit i is mark i + 2. */
static int write_fast_import_stream(const struct history *history, FILE *stream)
{
	fprintf(stream, "commit refs/heads/master\nmark :1\n"
			"committer bench <bench@example.org> 1000000000 +0000\n"
			"data 5\ngood\nM 644 inline commit\ndata 5\ngood\n\n");
	for (size_t commit = 0; commit < history->count; commit++) {
		char number[32];
		int length = snprintf(number, sizeof(number), "%zu\n", commit);
		fprintf(stream, "commit refs/heads/master\nmark :%zu\n"
				"committer bench <bench@example.org> %zu +0000\n"
				"data %d\n%s",
			commit + 2, (size_t)1000000001 + commit, length, number);
		if (history->parent_count[commit] == 0)
			fprintf(stream, "from :1\n");
		for (size_t i = 0; i < history->parent_count[commit]; i++)
			fprintf(stream, "%s :%zu\n", i == 0 ? "from" : "merge",
				history->parents[commit][i] + 2);
		fprintf(stream, "M 644 inline commit\ndata %d\n%s\n", length, number);
	}
	return ferror(stream) ? -EIO : 0;
}

static int read_marks(struct git_repository *repository, const char *marks_path)
{
	FILE *marks = fopen(marks_path, "r");
	size_t mark, read = 0;
	char sha[SHA_LENGTH + 1];

	if (!marks)
		return -errno;
	while (fscanf(marks, ":%zu %40s\n", &mark, sha) == 2) {
		if (mark == 1)
			snprintf(repository->good_sha, sizeof(repository->good_sha), "%s", sha);
		else if (mark - 2 < repository->count)
			snprintf(repository->shas[mark - 2], SHA_LENGTH + 1, "%s", sha);
		read++;
	}
	fclose(marks);
	return read == repository->count + 1 ? 0 : -EINVAL;
}

/* A repository of the history in job_directory/repository, its marks in
 * job_directory/marks. */
static int git_repository_create(const struct history *history, const char *job_directory,
				 struct git_repository *repository)
{
	char marks_path[PATH_MAX], *command = NULL;
	FILE *stream;
	int rc;

	repository->count = history->count;
	repository->shas = calloc(history->count, sizeof(*repository->shas));
	if (!repository->shas)
		return -ENOMEM;
	if (format_path(repository->directory, sizeof(repository->directory), "%s/repository",
			job_directory) != 0 ||
	    format_path(marks_path, sizeof(marks_path), "%s/marks", job_directory) != 0)
		return -ENAMETOOLONG;
	if (run_shell("git init -q -b master '%s'", repository->directory) != 0)
		return -EIO;
	if (asprintf(&command, "git -C '%s' fast-import --quiet --export-marks='%s'",
		     repository->directory, marks_path) < 0)
		return -ENOMEM;
	stream = popen(command, "w");
	free(command);
	if (!stream)
		return -errno;
	rc = write_fast_import_stream(history, stream);
	if (pclose(stream) != 0 || rc != 0)
		return -EIO;
	return read_marks(repository, marks_path);
}

/* Removes the repository: a 10,000-commit one per git job adds up. */
static void git_repository_release(struct git_repository *repository)
{
	if (repository->directory[0])
		run_shell("rm -rf '%s'", repository->directory);
	free(repository->shas);
}

static int write_trial_files(const char *trial_directory, const struct world *world,
			     const struct noise *noise, size_t count, uint64_t seed)
{
	char path[PATH_MAX];
	FILE *file;

	if (format_path(path, sizeof(path), "%s/world", trial_directory) != 0)
		return -ENAMETOOLONG;
	file = fopen(path, "w");
	if (!file)
		return -errno;
	fprintf(file, "%.17g %.17g %llu\n", noise->fail_rate_when_bad, noise->fail_rate_when_good,
		(unsigned long long)seed);
	for (size_t commit = 0; commit < count; commit++)
		fputc(world->unbuildable[commit] ? 'S' : world->bad[commit] ? 'B' : 'G', file);
	fputc('\n', file);
	if (fclose(file) != 0)
		return -EIO;
	if (format_path(path, sizeof(path), "%s/counter", trial_directory) != 0)
		return -ENAMETOOLONG;
	file = fopen(path, "w");
	if (!file)
		return -errno;
	fprintf(file, "0\n");
	return fclose(file) == 0 ? 0 : -EIO;
}

static size_t commit_of_sha(const struct git_repository *repository, const char *sha)
{
	for (size_t commit = 0; commit < repository->count; commit++)
		if (strncmp(repository->shas[commit], sha, SHA_LENGTH) == 0)
			return commit;
	return NO_COMMIT;
}

static bool is_sha_line(const char *line)
{
	return strspn(line, "0123456789abcdef") == SHA_LENGTH;
}

/*
 * bisect run's output: "running <command>" before every test run (the
 * count of runs, SKIPs included), then "<sha> is the first bad commit", or
 * "could be any of:" and a sha a line.
 */
static int judge_git_output(const struct git_repository *repository, const char *path,
			    size_t culprit, struct outcome *outcome)
{
	FILE *output = fopen(path, "r");
	char line[512];
	bool in_skipped_list = false, answered = false;

	if (!output)
		return -errno;
	while (fgets(line, sizeof(line), output)) {
		if (strncmp(line, "running ", 8) == 0) {
			outcome->runs++;
			outcome->rounds++;
			continue;
		}
		if (is_sha_line(line) && strstr(line, " is the first bad commit")) {
			outcome->right = commit_of_sha(repository, line) == culprit;
			answered = true;
			break;
		}
		if (strstr(line, "could be any of:")) {
			in_skipped_list = outcome->only_skipped_left = answered = true;
			continue;
		}
		if (in_skipped_list && is_sha_line(line))
			outcome->right |= commit_of_sha(repository, line) == culprit;
		else
			in_skipped_list = false;
	}
	fclose(output);
	if (!answered)
		fprintf(stderr, "bench_bisect: git bisect run ended without an answer: see %s\n",
			path);
	return answered ? 0 : -EPROTO;
}


static int bisect_with_git(const struct git_repository *repository, const struct world *world,
			   const struct noise *noise, const char *trial_directory,
			   const char *self, uint64_t seed, struct outcome *outcome)
{
	char output_path[PATH_MAX];
	int rc;

	if (format_path(output_path, sizeof(output_path), "%s/output", trial_directory) != 0)
		return -ENAMETOOLONG;
	rc = write_trial_files(trial_directory, world, noise, repository->count, seed);
	if (rc != 0)
		return rc;
	/* bisect run's exit code says little (non-zero when only skipped
	 * commits are left): its output says what it found. No `git bisect
	 * reset` between trials: start clears the last one, and every git
	 * process is a noticeable share of a trial's time. */
	if (run_shell("cd '%s' && git bisect start --no-checkout %s %s >/dev/null 2>&1 && "
		      "git bisect run '%s' --test-run '%s' >'%s' 2>&1",
		      repository->directory, repository->shas[repository->count - 1],
		      repository->good_sha, self, trial_directory, output_path) < 0)
		return -EIO;
	return judge_git_output(repository, output_path, world->culprit, outcome);
}

/* The index of the commit under test, BISECT_HEAD, from the job's marks. */
static int commit_under_test(const char *trial_directory, size_t *commit)
{
	char path[PATH_MAX], sha[SHA_LENGTH + 1], line[128];
	FILE *file = fopen(".git/BISECT_HEAD", "r");
	size_t mark;
	int rc = -ENOENT;

	if (!file || fscanf(file, "%40s", sha) != 1) {
		if (file)
			fclose(file);
		return -EIO;
	}
	fclose(file);
	if (format_path(path, sizeof(path), "%s/marks", trial_directory) != 0)
		return -ENAMETOOLONG;
	file = fopen(path, "r");
	if (!file)
		return -errno;
	while (rc != 0 && fgets(line, sizeof(line), file))
		if (sscanf(line, ":%zu", &mark) == 1 && mark >= 2 && strstr(line, sha)) {
			*commit = mark - 2;
			rc = 0;
		}
	fclose(file);
	return rc;
}

/* The test git bisect run calls: reads the truth, draws the next result. */
static int git_test_run(const char *trial_directory)
{
	char path[PATH_MAX];
	double fail_rate_when_bad, fail_rate_when_good;
	unsigned long long seed, counter = 0;
	size_t commit = 0;
	FILE *file;
	int letter = 'G';

	if (format_path(path, sizeof(path), "%s/counter", trial_directory) != 0)
		return 128;
	file = fopen(path, "r+");
	if (!file || fscanf(file, "%llu", &counter) != 1)
		return 128;  /* above 127: git bisect run stops on it */
	rewind(file);
	fprintf(file, "%llu\n", counter + 1);
	fclose(file);
	if (commit_under_test(trial_directory, &commit) != 0)
		return 128;
	if (format_path(path, sizeof(path), "%s/world", trial_directory) != 0)
		return 128;
	file = fopen(path, "r");
	if (!file || fscanf(file, "%lf %lf %llu\n", &fail_rate_when_bad, &fail_rate_when_good,
			    &seed) != 3 ||
	    fseek(file, (long)commit, SEEK_CUR) != 0 || (letter = fgetc(file)) == EOF)
		return 128;
	fclose(file);
	if (letter == 'S')
		return GIT_TEST_SKIP;
	uint64_t rng = seed_of(seed, counter);
	double rate = letter == 'B' ? fail_rate_when_bad : fail_rate_when_good;
	return random_unit(&rng) < rate ? 1 : 0;
}

/* ---- rows, jobs, tallies ------------------------------------------------------ */

enum ours_mode {
	OURS_P_LEARNED,       /* the defaults; epsilon stated when known */
	OURS_DETERMINISTIC,   /* p = 1, epsilon = 0: rackbisect bisect --deterministic */
	OURS_NOISE_STATED,    /* p and epsilon both given */
};

struct row {
	size_t commits;
	struct noise noise;
	size_t boards;
	enum ours_mode mode;
	unsigned trials;        /* ours and the wrapper */
	unsigned git_trials;    /* 0: git not measured in this row */
};

enum method { METHOD_OURS, METHOD_WRAPPER, METHOD_GIT, METHOD_COUNT };

struct tally {
	unsigned trials;
	unsigned right;
	unsigned only_skipped_left;
	unsigned given_up;
	unsigned max_rounds;
	double runs;
	double rounds;
	double seconds;
	int error;
};

struct job {
	size_t row;
	enum method method;
};

/* What the worker processes share: the next job to take and the results. */
struct shared {
	size_t next_job;
	struct tally tallies[];
};

static struct bisect_options ours_options(const struct row *row, unsigned trial)
{
	struct bisect_options options;

	bisect_options_init(&options);
	options.seed = trial;
	switch (row->mode) {
	case OURS_P_LEARNED:
		break;
	case OURS_DETERMINISTIC:
		bisect_options_deterministic(&options);
		break;
	case OURS_NOISE_STATED:
		options.fail_rate_when_bad = row->noise.fail_rate_when_bad;
		options.fail_rate_when_good = row->noise.fail_rate_when_good;
		break;
	}
	/* The 99.5 % target is met by asking for it: the engine stops at the
	 * confidence it is given, and 0.99 is right 99 % of the time. */
	if (is_symmetric(&row->noise) && getenv("BENCH_SYMMETRIC_0995"))
		options.confidence = SYMMETRIC_CONFIDENCE;
	return options;
}

static void tally_add(struct tally *tally, const struct outcome *outcome)
{
	tally->trials++;
	tally->right += outcome->right;
	tally->only_skipped_left += outcome->only_skipped_left;
	tally->given_up += outcome->given_up;
	tally->runs += outcome->runs;
	tally->rounds += outcome->rounds;
	if (outcome->rounds > tally->max_rounds)
		tally->max_rounds = outcome->rounds;
}

static int history_for(size_t commits, struct history *history)
{
	/* The unit tests' kernel-like shapes: a merge every 8 commits at 100,
	 * every 10 at 10,000. */
	return history_kernel_like(history, commits, commits <= 1000 ? 8 : 10,
				   commits <= 1000 ? 7 : 4);
}

struct job_context {
	const char *workdir;
	const char *self;
	size_t job_index;
};

static int run_trial(const struct row *row, enum method method, const struct history *history,
		     const struct git_repository *repository, const char *trial_directory,
		     const char *self, unsigned trial, struct outcome *outcome)
{
	struct world world;
	uint64_t seed = seed_of(seed_of(history->count, trial),
				(uint64_t)(row->noise.fail_rate_when_bad * 1e6) * 1000003 +
					(uint64_t)(row->noise.fail_rate_when_good * 1e6) * 101 +
					row->boards * 8 + (uint64_t)method);
	int rc = world_for_trial(history, trial, &world);

	if (rc == 0) {
		if (method == METHOD_OURS) {
			struct bisect_options options = ours_options(row, trial);
			rc = bisect_ours(history, &world, &row->noise, &options, row->boards, seed,
					 outcome);
		} else if (method == METHOD_WRAPPER) {
			rc = bisect_with_repeats(history, &world, &row->noise, row->boards, seed,
						 outcome);
		} else {
			rc = bisect_with_git(repository, &world, &row->noise, trial_directory, self,
					     seed, outcome);
		}
	}
	world_release(&world);
	return rc;
}

static int run_job(const struct row *row, enum method method, const struct job_context *context,
		   struct tally *tally)
{
	struct history history;
	struct git_repository repository = { 0 };
	char job_directory[PATH_MAX] = "";
	unsigned trials = method == METHOD_GIT ? row->git_trials : row->trials;
	double started = seconds_now();
	int rc = history_for(row->commits, &history);

	if (rc == 0 && method == METHOD_GIT) {
		rc = format_path(job_directory, sizeof(job_directory), "%s/job-%zu",
				 context->workdir, context->job_index);
		if (rc == 0 && mkdir(job_directory, 0700) != 0)
			rc = -errno;
		if (rc == 0)
			rc = git_repository_create(&history, job_directory, &repository);
	}
	for (unsigned trial = 0; rc == 0 && trial < trials; trial++) {
		struct outcome outcome = { 0 };
		rc = run_trial(row, method, &history, &repository, job_directory, context->self,
			       trial, &outcome);
		tally_add(tally, &outcome);
	}
	if (method == METHOD_GIT)
		git_repository_release(&repository);
	history_release(&history);
	tally->seconds = seconds_now() - started;
	tally->error = rc;
	return rc;
}

/* Workers take jobs in order until none is left; the table is the same
 * whatever the order, every trial being seeded. */
static void work(const struct row *rows, const struct job *jobs, size_t job_count,
		 struct shared *shared, const char *workdir, const char *self)
{
	for (;;) {
		size_t index = __atomic_fetch_add(&shared->next_job, 1, __ATOMIC_SEQ_CST);
		if (index >= job_count)
			return;
		struct job_context context = { .workdir = workdir, .self = self, .job_index = index };
		if (run_job(&rows[jobs[index].row], jobs[index].method, &context,
			    &shared->tallies[index]) != 0)
			fprintf(stderr, "bench_bisect: job %zu (row %zu, method %d) failed: %s\n",
				index, jobs[index].row, (int)jobs[index].method,
				strerror(-shared->tallies[index].error));
	}
}

static int run_jobs_in_parallel(const struct row *rows, const struct job *jobs, size_t job_count,
				struct shared *shared, const char *workdir, const char *self)
{
	long processors = sysconf(_SC_NPROCESSORS_ONLN);
	size_t workers = processors > 1 ? (size_t)processors : 1, started = 0;
	int failed = 0;

	fflush(NULL);
	for (; started < workers; started++) {
		pid_t pid = fork();
		if (pid < 0)
			break;  /* the workers started take every job, slower */
		if (pid == 0) {
			work(rows, jobs, job_count, shared, workdir, self);
			fflush(NULL);
			_exit(0);
		}
	}
	if (started == 0)
		return -errno;
	for (size_t i = 0; i < started; i++) {
		int status;
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = 1;
	}
	for (size_t i = 0; i < job_count; i++)
		failed |= shared->tallies[i].error != 0;
	return failed ? -EIO : 0;
}

/* ---- the rows ---------------------------------------------------------------- */

#define SMALL_HISTORY 100
#define LARGE_HISTORY 10000
/*
 * Trials per row, sized for a few minutes on a 2-core machine (some 450 s
 * of CPU in all). At N = 100 a trial of ours takes 0.1 to 20 ms (k = 8
 * weighs 2^8 result patterns each round): 1000 trials, some 170 s. At
 * N = 10,000 a round takes 1 to 20 ms and p = 0.1 needs some 500 runs, up
 * to 2 s a trial: fewer trials, most where the targets are (p = 0.3).
 * A real git trial starts some 40 processes (bisect's shell script twice,
 * then the test and git's own at every step), 0.25 to 0.5 s: git runs on
 * the rows that say something new (exact, flaky, symmetric noise; N =
 * 10,000 exact), where the wrapper with R = 1 is plain git's bisection.
 */
#define TRIALS_SMALL 1000
#define GIT_TRIALS 100

static unsigned large_history_trials(double fail_rate_when_bad)
{
	if (fail_rate_when_bad >= 1)
		return 50;
	if (fail_rate_when_bad >= 0.5)
		return 30;
	return fail_rate_when_bad >= 0.3 ? 50 : 10;
}

static unsigned scaled(unsigned trials, double scale)
{
	unsigned value = (unsigned)ceil(trials * scale);

	return trials == 0 ? 0 : value < 10 ? 10 : value;
}

static unsigned trials_for(size_t commits, double fail_rate_when_bad, double scale)
{
	return scaled(commits == SMALL_HISTORY ? TRIALS_SMALL
					       : large_history_trials(fail_rate_when_bad),
		      scale);
}

/* Git has no parallelism (k = 1 only): p = 1 (N = 100 and 10,000), p = 0.3
 * and symmetric noise (N = 100), all with eps = 0 or symmetric. */
static bool git_measures(size_t commits, const struct noise *noise, size_t boards)
{
	bool exact = noise->fail_rate_when_bad == 1 && noise->fail_rate_when_good == 0;
	bool flaky = noise->fail_rate_when_bad == 0.3 && noise->fail_rate_when_good == 0;
	if (boards != 1)
		return false;
	return exact || (commits == SMALL_HISTORY && (flaky || is_symmetric(noise)));
}

static struct row make_row(size_t commits, double fail_rate_when_bad, double fail_rate_when_good,
			   size_t boards, enum ours_mode mode, double scale)
{
	struct row row = {
		.commits = commits,
		.noise = { fail_rate_when_bad, fail_rate_when_good },
		.boards = boards,
		.mode = mode,
		.trials = trials_for(commits, fail_rate_when_bad, scale),
	};
	if (mode != OURS_DETERMINISTIC && git_measures(commits, &row.noise, boards))
		row.git_trials = scaled(GIT_TRIALS, scale);
	return row;
}

/* Exploration filter (temporary): BENCH_N, BENCH_K, BENCH_P, BENCH_EPS, BENCH_MODE. */
static bool env_mismatch(const char *name, double value)
{
	const char *text = getenv(name);
	return text && *text && strtod(text, NULL) != value;
}

static bool row_selected(const struct row *row)
{
	const char *mode = getenv("BENCH_MODE");
	if (env_mismatch("BENCH_N", (double)row->commits) || env_mismatch("BENCH_K", (double)row->boards) ||
	    env_mismatch("BENCH_P", row->noise.fail_rate_when_bad) ||
	    env_mismatch("BENCH_EPS", row->noise.fail_rate_when_good))
		return false;
	return !mode || !*mode || strcmp(mode, row->mode == OURS_P_LEARNED ? "learn" : row->mode == OURS_DETERMINISTIC ? "determ" : "stated") == 0;
}

static size_t filter_rows(struct row *rows, size_t count)
{
	size_t kept = 0;
	for (size_t i = 0; i < count; i++) {
		if (!row_selected(&rows[i]))
			continue;
		if (getenv("BENCH_TRIALS"))
			rows[i].trials = (unsigned)atoi(getenv("BENCH_TRIALS"));
		if (getenv("BENCH_NO_GIT"))
			rows[i].git_trials = 0;
		rows[kept++] = rows[i];
	}
	return kept;
}

static size_t build_rows(struct row *rows, size_t capacity, double scale)
{
	const size_t histories[] = { SMALL_HISTORY, LARGE_HISTORY };
	const double fail_rates_when_bad[] = { 1, 0.5, 0.3, 0.1 };
	const double fail_rates_when_good[] = { 0, 0.01, 0.05 };
	const size_t boards[] = { 1, 4, 8 };
	size_t count = 0;

	for (size_t h = 0; h < 2; h++) {
		for (size_t p = 0; p < 4; p++)
			for (size_t e = 0; e < 3; e++)
				for (size_t k = 0; k < 3 && count < capacity; k++)
					rows[count++] = make_row(histories[h], fail_rates_when_bad[p],
								 fail_rates_when_good[e], boards[k],
								 OURS_P_LEARNED, scale);
		/* What learning p costs: told that the test never misses. */
		for (size_t k = 0; k < 3 && count < capacity; k++)
			rows[count++] = make_row(histories[h], 1, 0, boards[k], OURS_DETERMINISTIC,
						 scale);
	}
	for (size_t k = 0; k < 3 && count < capacity; k++)
		rows[count++] = make_row(SMALL_HISTORY, 0.95, 0.05, boards[k], OURS_P_LEARNED, scale);
	/* ... and at p = 0.3, told p (git as in the row learning it). */
	if (count < capacity) {
		rows[count] = make_row(SMALL_HISTORY, 0.3, 0, 1, OURS_NOISE_STATED, scale);
		rows[count++].git_trials = 0;
	}
	/* Symmetric noise of 5 %, the setting published for noisy-bisection
	 * tools; their users state the noise level, so ours is told it. */
	for (size_t k = 0; k < 3 && count < capacity; k++)
		rows[count++] = make_row(SMALL_HISTORY, 0.95, 0.05, boards[k], OURS_NOISE_STATED,
					 scale);
	return count;
}

/* The slow jobs first (git, then N = 10,000 by flakiness), so that the
 * workers end together. */
static double job_cost_rank(const struct row *row, enum method method)
{
	double rank = row->commits == LARGE_HISTORY ? 2 : 0;

	if (method == METHOD_GIT)
		rank += 2;
	else if (method == METHOD_OURS)
		rank += 1 - row->noise.fail_rate_when_bad;
	return rank;
}

/*
 * The first row with the same history, noise, boards and trials: the
 * wrapper and git do not depend on ours' mode, and their trials are seeded
 * alike, so such rows share one job.
 */
static size_t twin_row(const struct row *rows, size_t row)
{
	for (size_t earlier = 0; earlier < row; earlier++)
		if (rows[earlier].commits == rows[row].commits &&
		    rows[earlier].noise.fail_rate_when_bad == rows[row].noise.fail_rate_when_bad &&
		    rows[earlier].noise.fail_rate_when_good == rows[row].noise.fail_rate_when_good &&
		    rows[earlier].boards == rows[row].boards && rows[earlier].trials == rows[row].trials)
			return earlier;
	return row;
}

static bool job_needed(const struct row *rows, size_t row, enum method method)
{
	if (method == METHOD_OURS)
		return true;
	if (method == METHOD_GIT && rows[row].git_trials == 0)
		return false;
	return twin_row(rows, row) == row;
}

static size_t build_jobs(const struct row *rows, size_t row_count, struct job *jobs)
{
	size_t count = 0;

	for (size_t row = 0; row < row_count; row++)
		for (enum method method = 0; method < METHOD_COUNT; method++)
			if (job_needed(rows, row, method))
				jobs[count++] = (struct job){ .row = row, .method = method };
	/* Insertion sort, stable: a few hundred jobs. */
	for (size_t i = 1; i < count; i++) {
		struct job job = jobs[i];
		double rank = job_cost_rank(&rows[job.row], job.method);
		size_t j = i;
		while (j > 0 && job_cost_rank(&rows[jobs[j - 1].row], jobs[j - 1].method) < rank) {
			jobs[j] = jobs[j - 1];
			j--;
		}
		jobs[j] = job;
	}
	return count;
}

/* ---- the table ---------------------------------------------------------------- */

struct results {
	const struct row *rows;
	size_t row_count;
	const struct job *jobs;
	size_t job_count;
	const struct shared *shared;
	double scale;
};

static const struct tally *job_tally(const struct results *results, size_t row,
				     enum method method)
{
	for (size_t i = 0; i < results->job_count; i++)
		if (results->jobs[i].row == row && results->jobs[i].method == method)
			return &results->shared->tallies[i];
	return NULL;
}

static const struct tally *ours_of(const struct results *results, size_t row)
{
	return job_tally(results, row, METHOD_OURS);
}

static const struct tally *wrapper_of(const struct results *results, size_t row)
{
	return job_tally(results, twin_row(results->rows, row), METHOD_WRAPPER);
}

/* NULL where git was not measured. */
static const struct tally *git_of(const struct results *results, size_t row)
{
	if (results->rows[row].git_trials == 0)
		return NULL;
	return job_tally(results, twin_row(results->rows, row), METHOD_GIT);
}

static double percent_right(const struct tally *tally)
{
	return 100.0 * tally->right / tally->trials;
}

static double mean_runs(const struct tally *tally)
{
	return tally->runs / tally->trials;
}

static double mean_rounds(const struct tally *tally)
{
	return tally->rounds / tally->trials;
}

static const char *mode_name(enum ours_mode mode)
{
	switch (mode) {
	case OURS_P_LEARNED:
		return "learn";
	case OURS_DETERMINISTIC:
		return "determ";
	case OURS_NOISE_STATED:
		return "stated";
	}
	return "?";
}

static void print_header(double scale)
{
	printf("Simulated results on kernel-like histories with merges, 5 %% of the commits not\n"
	       "building (never the culprit); the same seeded trials for every method.\n"
	       "Trials per row (the trials columns): %u at N = 100; at N = 10000, where a round\n"
	       "of ours costs 1-20 ms: %u at p = 1, %u at p = 0.5, %u at p = 0.3, %u at p = 0.1.\n"
	       "Real git: %u, k = 1, at p = 1 (N = 100 and 10000), p = 0.3 and symmetric noise.\n",
	       trials_for(SMALL_HISTORY, 1, scale), trials_for(LARGE_HISTORY, 1, scale),
	       trials_for(LARGE_HISTORY, 0.5, scale), trials_for(LARGE_HISTORY, 0.3, scale),
	       trials_for(LARGE_HISTORY, 0.1, scale), scaled(GIT_TRIALS, scale));
	printf("ours, mode: learn = the library's defaults, p learned from a Beta(1,2) prior,\n"
	       "      epsilon stated when known (0.01), else the default 0.001;\n"
	       "      determ = told p = 1, epsilon = 0 (rackbisect bisect --deterministic);\n"
	       "      stated = told the row's p and epsilon; symmetric-noise rows ask for confidence 0.995.\n"
	       "wrapper: git's bisection, each step's test run up to R = ceil(log 0.01 / log(1-p))\n"
	       "      times, stopped at the first FAIL; the R repeats are spread over the k boards\n"
	       "      (at most ceil(R/k) rounds a step; every run of a round counts).\n"
	       "git: git bisect start --no-checkout BAD GOOD; git bisect run TEST, one run a step.\n"
	       "right = named the culprit (or, when only skipped commits are left, a set holding\n"
	       "it, as git's \"could be any of\"); runs count SKIPs; rounds = bisect_next calls.\n\n");
	printf("%-26s | %-27s | %-24s | %-20s |\n", "", "ours", "wrapper", "git");
	printf("%6s %4s %4s %2s %6s | %-6s %6s %6s %6s | %3s %6s %6s %6s | %6s %6s %6s | %s\n",
	       "N", "p", "eps", "k", "trials", "mode", "right%", "runs", "rounds", "R", "right%",
	       "runs", "rounds", "trials", "right%", "runs", "runs ours/wrapper");
}

static void print_row(const struct row *row, const struct tally *ours, const struct tally *wrapper,
		      const struct tally *git)
{
	char git_columns[32] = "     -      -      -";

	if (git)
		snprintf(git_columns, sizeof(git_columns), "%6u %6.1f %6.1f", git->trials,
			 percent_right(git), mean_runs(git));
	printf("%6zu %4.2g %4.2g %2zu %6u | %-6s %6.1f %6.1f %6.1f | %3u %6.1f %6.1f %6.1f | "
	       "%s | %.2f\n",
	       row->commits, row->noise.fail_rate_when_bad, row->noise.fail_rate_when_good,
	       row->boards, ours->trials, mode_name(row->mode), percent_right(ours), mean_runs(ours),
	       mean_rounds(ours), wrapper_repeats(row->noise.fail_rate_when_bad),
	       percent_right(wrapper), mean_runs(wrapper), mean_rounds(wrapper), git_columns,
	       mean_runs(ours) / mean_runs(wrapper));
}

static void print_table(const struct results *results)
{
	print_header(results->scale);
	for (size_t i = 0; i < results->row_count; i++) {
		if (i > 0 && (results->rows[i].commits != results->rows[i - 1].commits ||
			      results->rows[i].mode != results->rows[i - 1].mode))
			printf("\n");
		print_row(&results->rows[i], ours_of(results, i), wrapper_of(results, i),
			  git_of(results, i));
	}
}

/* ---- the targets ---------------------------------------------------------------- */

static const char *verdict(bool met)
{
	return met ? "PASS" : "MISS";
}

static unsigned ceil_log(size_t base, size_t value)
{
	unsigned exponent = 0;

	for (size_t power = 1; power < value; power *= base)
		exponent++;
	return exponent;
}

static double binary_entropy(double probability)
{
	if (probability <= 0 || probability >= 1)
		return 0;
	return -probability * log2(probability) - (1 - probability) * log2(1 - probability);
}

/* The most one run can tell about the culprit, in bits: a run at a commit
 * that is bad with probability q FAILs with probability eps + (p - eps) q;
 * what the result says is that entropy less the noise's, at the best q. */
static double bits_per_run(double p, double eps)
{
	double best = 0;

	for (int step = 1; step < 10000; step++) {
		double q = step / 10000.0;
		double bits = binary_entropy(eps + (p - eps) * q) - q * binary_entropy(p) -
			      (1 - q) * binary_entropy(eps);

		if (bits > best)
			best = bits;
	}
	return best;
}

/*
 * The fewest runs any method needs on average to be right with probability
 * `right` among n equally likely culprits (Fano's inequality: it must learn
 * log2 n - h(1 - right) - (1 - right) log2(n - 1) bits, and no run tells
 * more than bits_per_run, however the runs are chosen or stopped). SKIPs
 * are left out: they cost runs and tell next to nothing.
 */
static double fewest_runs_possible(size_t n, double p, double eps, double right)
{
	double wrong = 1 - right;
	double bits = log2((double)n) - binary_entropy(wrong) - wrong * log2((double)n - 1);

	return bits / bits_per_run(p, eps);
}

/* p = 0.3: >= 99 % right in at most 0.6x the wrapper's runs. The target is
 * for the defaults; ours told p is shown for reference, not counted. The
 * floor is what no method can beat at 99 % (see fewest_runs_possible). */
static bool check_flaky_target(const struct row *row, const struct tally *ours,
			       const struct tally *wrapper)
{
	double ratio = mean_runs(ours) / mean_runs(wrapper);
	double floor = fewest_runs_possible(row->commits, row->noise.fail_rate_when_bad,
					    row->noise.fail_rate_when_good, 0.99);
	bool met = percent_right(ours) >= 99 && ratio <= 0.6;

	printf("  %s p = 0.3, N = %zu, eps = %g, k = %zu, %s: right %.1f %% (>= 99), runs %.1f vs "
	       "wrapper %.1f = %.2fx (<= 0.6); floor %.1f runs = %.2fx%s\n",
	       row->mode == OURS_P_LEARNED ? verdict(met) : "(ref)", row->commits,
	       row->noise.fail_rate_when_good, row->boards, mode_name(row->mode),
	       percent_right(ours), mean_runs(ours), mean_runs(wrapper), ratio, floor,
	       floor / mean_runs(wrapper), floor / mean_runs(wrapper) > 0.6 ? " (out of reach)" : "");
	return met;
}

static bool check_exact_target(const struct row *row, const struct tally *ours)
{
	unsigned bound = ceil_log(row->boards + 1, row->commits) + 1;
	bool met = mean_rounds(ours) <= bound;

	printf("  %s p = 1, N = %zu, k = %zu, %s: mean rounds %.1f (max %u) vs "
	       "ceil(log_%zu N) + 1 = %u\n",
	       verdict(met), row->commits, row->boards, mode_name(row->mode), mean_rounds(ours),
	       ours->max_rounds, row->boards + 1, bound);
	return met;
}

static bool check_symmetric_target(const struct row *row, const struct tally *ours)
{
	bool met = percent_right(ours) >= 99.5;

	printf("  %s symmetric 5 %% noise, N = %zu, k = %zu, %s, confidence %.3f: right %.1f %% "
	       "(>= 99.5)\n", verdict(met), row->commits, row->boards, mode_name(row->mode),
	       SYMMETRIC_CONFIDENCE, percent_right(ours));
	return met;
}

static void print_targets(const struct results *results)
{
	unsigned checked = 0, met = 0;

	printf("\ntargets (the p = 1 bound is on mean rounds, SKIPs included):\n");
	for (size_t i = 0; i < results->row_count; i++) {
		const struct row *row = &results->rows[i];
		const struct tally *ours = ours_of(results, i);
		bool result;
		if (row->noise.fail_rate_when_bad == 0.3) {
			result = check_flaky_target(row, ours, wrapper_of(results, i));
			if (row->mode != OURS_P_LEARNED)
				continue;
		} else if (row->noise.fail_rate_when_bad == 1 && row->noise.fail_rate_when_good == 0) {
			result = check_exact_target(row, ours);
		} else if (is_symmetric(&row->noise)) {
			result = check_symmetric_target(row, ours);
		} else {
			continue;
		}
		checked++;
		met += result;
	}
	printf("targets met: %u of %u\n", met, checked);
	printf("floor: the fewest runs any method needs on average to be right 99 %% of the time\n"
	       "(Fano's inequality over N equally likely culprits, at most %.3f bits per run at\n"
	       "p = 0.3, eps = 0; %.3f at eps = 0.01); where it is above 0.6x the wrapper's runs,\n"
	       "that target is out of reach of every method.\n", bits_per_run(0.3, 0), bits_per_run(0.3, 0.01));
}

/* ---- the footer ----------------------------------------------------------------- */

static void print_given_up(const struct results *results)
{
	for (size_t i = 0; i < results->row_count; i++) {
		const struct row *row = &results->rows[i];
		const struct tally *ours = ours_of(results, i);
		if (ours->given_up > 0)
			printf("  ours gave up in %u of %u trials at N = %zu, p = %g, eps = %g, "
			       "k = %zu, %s\n",
			       ours->given_up, ours->trials, row->commits,
			       row->noise.fail_rate_when_bad, row->noise.fail_rate_when_good,
			       row->boards, mode_name(row->mode));
	}
}

static double children_cpu_seconds(void)
{
	struct rusage usage;

	if (getrusage(RUSAGE_CHILDREN, &usage) != 0)
		return 0;
	return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
	       (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

static void print_totals(const struct results *results, double wall_seconds)
{
	double seconds[METHOD_COUNT] = { 0 };
	unsigned skipped_sets[METHOD_COUNT] = { 0 }, trials[METHOD_COUNT] = { 0 };
	unsigned given_up[METHOD_COUNT] = { 0 };

	for (size_t i = 0; i < results->job_count; i++) {
		const struct tally *tally = &results->shared->tallies[i];
		enum method method = results->jobs[i].method;
		seconds[method] += tally->seconds;
		skipped_sets[method] += tally->only_skipped_left;
		given_up[method] += tally->given_up;
		trials[method] += tally->trials;
	}
	printf("\nended with only skipped commits left (the culprit's parent never builds): ours %u "
	       "of %u trials, wrapper %u of %u, git %u of %u\n",
	       skipped_sets[METHOD_OURS], trials[METHOD_OURS], skipped_sets[METHOD_WRAPPER],
	       trials[METHOD_WRAPPER], skipped_sets[METHOD_GIT], trials[METHOD_GIT]);
	printf("given up at %d runs (counted wrong, with %d runs): ours %u, wrapper %u\n", RUN_LIMIT,
	       RUN_LIMIT, given_up[METHOD_OURS], given_up[METHOD_WRAPPER]);
	print_given_up(results);
	/* Workers and what they started (git) have all been waited for. */
	printf("time: %.0f s wall, %.0f s CPU; of the workers' time, ours %.0f s, wrapper %.0f s, "
	       "git %.0f s\n",
	       wall_seconds, children_cpu_seconds(), seconds[METHOD_OURS], seconds[METHOD_WRAPPER],
	       seconds[METHOD_GIT]);
}

/* ---- main ----------------------------------------------------------------------- */

/* ---- the engine's own speed ----------------------------------------------- */

#define SPEED_ROUNDS 12
#define SPEED_GIT_STEPS 5

/* Seconds one `git rev-list --bisect` takes on the repository: git's own
 * choice of the next commit, the step our bisect_next replaces. */
static double git_step_seconds(const struct git_repository *repository)
{
	double started = seconds_now();

	for (int i = 0; i < SPEED_GIT_STEPS; i++)
		if (run_shell("git -C '%s' rev-list --bisect %s ^%s >/dev/null",
			      repository->directory, repository->shas[repository->count - 1],
			      repository->good_sha) != 0)
			return -1;
	return (seconds_now() - started) / SPEED_GIT_STEPS;
}

/* The engine at N = 10,000 with merges (p = 0.5, k = 1, 4, 8, 16 in turn):
 * what one call costs, beside git's step on the same history. A bisection
 * round waits minutes for boards; this says the engine never matters. */
static void print_engine_speed(const char *workdir)
{
	struct history history;
	struct world world;
	struct bisect *bisect;
	struct bisect_options options;
	struct git_repository repository = { 0 };
	char directory[PATH_MAX];
	size_t proposals[16], count;
	double started, created, slowest = 0, recording = 0, git_step;
	unsigned records = 0;
	uint64_t rng = 8;

	if (history_kernel_like(&history, LARGE_HISTORY, 10, 4) != 0 ||
	    world_for_trial(&history, 0, &world) != 0)
		return;
	bisect_options_init(&options);
	started = seconds_now();
	if (bisect_new(history.commits, history.count, bad_end_of(&history), &options, &bisect) != 0)
		return;
	created = seconds_now() - started;
	for (int round = 0; round < SPEED_ROUNDS; round++) {
		const size_t boards[] = { 1, 4, 8, 16 };
		started = seconds_now();
		if (bisect_next(bisect, boards[round % 4], proposals, &count) != 0 || count == 0)
			break;
		if (seconds_now() - started > slowest)
			slowest = seconds_now() - started;
		for (size_t i = 0; i < count; i++) {
			bool fail = random_unit(&rng) < (world.bad[proposals[i]] ? 0.5 : 0.0);
			started = seconds_now();
			bisect_record(bisect, proposals[i], fail ? BISECT_FAIL : BISECT_PASS);
			recording += seconds_now() - started;
			records++;
		}
	}
	bisect_free(bisect);
	git_step = -1;
	if (format_path(directory, sizeof(directory), "%s/engine-speed", workdir) == 0 &&
	    run_shell("mkdir -p '%s'", directory) == 0 &&
	    git_repository_create(&history, directory, &repository) == 0)
		git_step = git_step_seconds(&repository);
	git_repository_release(&repository);
	printf("\nengine speed at N = %d with merges: bisect_new %.1f ms, slowest bisect_next "
	       "%.1f ms (k up to 16), bisect_record %.2f ms",
	       LARGE_HISTORY, created * 1e3, slowest * 1e3, recording * 1e3 / (records ? records : 1));
	if (git_step > 0)
		printf("; git rev-list --bisect %.1f ms (next/git %.2fx)", git_step * 1e3,
		       slowest / git_step);
	printf("\n");
	world_release(&world);
	history_release(&history);
}

#define MAX_ROWS 128

static int parse_arguments(int argc, char **argv, double *scale)
{
	if (argc < 2 || argc > 3)
		return -EINVAL;
	if (argc == 3) {
		char *end;
		*scale = strtod(argv[2], &end);
		if (*end != '\0' || !(*scale > 0 && *scale <= 1))
			return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct row rows[MAX_ROWS];
	struct job jobs[MAX_ROWS * METHOD_COUNT];
	char self[PATH_MAX];
	double scale = 1, started = seconds_now();
	ssize_t length;

	if (argc == 3 && strcmp(argv[1], "--test-run") == 0)
		return git_test_run(argv[2]);
	if (parse_arguments(argc, argv, &scale) != 0) {
		fprintf(stderr, "usage: bench_bisect WORKDIR [SCALE in (0, 1]]\n"
				"       bench_bisect --test-run JOBDIR   (git bisect run's test)\n");
		return 2;
	}
	length = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (length < 0) {
		perror("bench_bisect: /proc/self/exe");
		return 1;
	}
	self[length] = '\0';
	/* Every brk() costs some 0.1 ms on small VMs, and glibc's malloc gives
	 * memory back after each free: git fast-import then spends 20 s in the
	 * kernel for 10,000 commits instead of 0.4 s. Git and the test inherit
	 * this. */
	setenv("MALLOC_TOP_PAD_", "67108864", 0);

	size_t row_count = filter_rows(rows, build_rows(rows, MAX_ROWS, scale));
	size_t job_count = build_jobs(rows, row_count, jobs);
	size_t shared_size = sizeof(struct shared) + job_count * sizeof(struct tally);
	struct shared *shared = mmap(NULL, shared_size, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("bench_bisect: mmap");
		return 1;
	}
	memset(shared, 0, shared_size);
	if (run_jobs_in_parallel(rows, jobs, job_count, shared, argv[1], self) != 0) {
		fprintf(stderr, "bench_bisect: some jobs failed (see above)\n");
		return 1;
	}
	struct results results = { .rows = rows, .row_count = row_count, .jobs = jobs,
				   .job_count = job_count, .shared = shared, .scale = scale };
	print_table(&results);
	print_targets(&results);
	print_totals(&results, seconds_now() - started);
	print_engine_speed(argv[1]);
	munmap(shared, shared_size);
	return 0;
}
