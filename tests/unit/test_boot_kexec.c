/* The kexec boot driver's steps, seen from the board: what it uploads where,
 * the commands it runs and their words, and how each failure is reported.
 * The board is a transport that records; the modules' unpack command is run
 * for real (sh and tar on this machine) in a directory of the test's, the
 * board's modules_dir. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "boot/kexec.h"
#include "files.h"
#include "path.h"
#include "subprocess.h"

#define RELEASE "6.9.0-rc1-lab"
#define MAX_STEPS 8

/* A board that answers every request on the next loop turn. */
struct recording_board {
	struct transport base;
	uv_loop_t *loop;
	char root[128];			/* uploads under it are copied; others only recorded */
	char steps[MAX_STEPS][1024];	/* "upload LOCAL -> REMOTE", "exec w1|w2|..." */
	size_t step_count;
	int fail_step;			/* 1-based step to fail; 0: none */
	bool run_shell;			/* run `sh -c` commands here, for real */
	uv_timer_t answer;
	bool answer_is_exec;
	transport_exec_cb exec_callback;
	transport_upload_cb upload_callback;
	void *data;
	struct transport_exec_result result;
	char output[2048];
};

static void on_answer(uv_timer_t *timer)
{
	struct recording_board *board = timer->data;

	if (board->answer_is_exec)
		board->exec_callback(&board->base, &board->result, board->data);
	else
		board->upload_callback(&board->base, board->result.status, board->result.error_text,
				       board->data);
}

static bool failing_now(struct recording_board *board)
{
	return board->fail_step && (size_t)board->fail_step == board->step_count;
}

static int board_exec(struct transport *transport, const char *const *argv, uint64_t timeout_ms,
		      transport_exec_cb callback, void *data)
{
	struct recording_board *board = (struct recording_board *)transport;
	char *step = board->steps[board->step_count++];
	size_t used = (size_t)snprintf(step, sizeof(board->steps[0]), "exec");

	(void)timeout_ms;
	for (const char *const *word = argv; *word; word++)
		used += (size_t)snprintf(step + used, sizeof(board->steps[0]) - used, "%s%s",
					 word == argv ? " " : "|", *word);
	memset(&board->result, 0, sizeof(board->result));
	board->output[0] = '\0';
	board->result.stderr_text = board->output;
	if (failing_now(board)) {
		board->result.exit_status = 1;
		snprintf(board->output, sizeof(board->output), "%s: refused", argv[0]);
	} else if (board->run_shell && strcmp(argv[0], "sh") == 0) {
		char errors[256];
		struct subprocess_options options = { .log_path = errors };

		snprintf(errors, sizeof(errors), "%ssh.err", board->root);
		unlink(errors);
		board->result.exit_status = subprocess_run((char *const *)argv, &options, NULL);
		files_read_line(errors, board->output, sizeof(board->output));
	}
	board->result.stdout_text = "";
	board->result.stderr_length = strlen(board->output);
	board->answer_is_exec = true;
	board->exec_callback = callback;
	board->data = data;
	return uv_timer_start(&board->answer, on_answer, 0, 0);
}

static int board_upload(struct transport *transport, const char *local_path,
			const char *remote_path, uint64_t timeout_ms, transport_upload_cb callback,
			void *data)
{
	struct recording_board *board = (struct recording_board *)transport;

	(void)timeout_ms;
	snprintf(board->steps[board->step_count++], sizeof(board->steps[0]), "upload %s -> %s",
		 local_path, remote_path);
	memset(&board->result, 0, sizeof(board->result));
	if (failing_now(board)) {
		board->result.status = -EIO;
		board->result.error_text = "the link dropped";
	} else if (strncmp(remote_path, board->root, strlen(board->root)) == 0) {
		assert_int_equal(files_copy(local_path, remote_path, 0644), 0);
	}
	board->answer_is_exec = false;
	board->upload_callback = callback;
	board->data = data;
	return uv_timer_start(&board->answer, on_answer, 0, 0);
}

static const struct transport_ops recording_ops = {
	.name = "recording", .exec = board_exec, .upload = board_upload,
};

struct fixture {
	uv_loop_t loop;
	char dir[64];
	char modules_dir[128];
	char tarball[128];
	char image[128];
	struct recording_board board;
	struct lab_board lab_board;
	struct lab_driver_option options[2];
	char *option_values[2][2];
	struct boot *boot;
	bool done;
	int status;
	char error_text[1024];
};

static int setup(void **state)
{
	struct fixture *fixture = calloc(1, sizeof(*fixture));

	if (!fixture || uv_loop_init(&fixture->loop) != 0)
		return -1;
	strcpy(fixture->dir, "/tmp/rackbisect-test-kexec-XXXXXX");
	if (!mkdtemp(fixture->dir))
		return -1;
	snprintf(fixture->modules_dir, sizeof(fixture->modules_dir), "%s/lib/modules", fixture->dir);
	snprintf(fixture->image, sizeof(fixture->image), "%s/bzImage", fixture->dir);
	snprintf(fixture->tarball, sizeof(fixture->tarball), "%s/modules.tar.gz", fixture->dir);
	if (path_make_dirs(fixture->modules_dir) || files_write_atomic(fixture->image, "kernel\n"))
		return -1;
	fixture->board.base.ops = &recording_ops;
	fixture->board.loop = &fixture->loop;
	snprintf(fixture->board.root, sizeof(fixture->board.root), "%s/", fixture->dir);
	uv_timer_init(&fixture->loop, &fixture->board.answer);
	fixture->board.answer.data = &fixture->board;
	fixture->lab_board.name = "q1";
	*state = fixture;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fixture = *state;
	int rc;

	if (fixture->boot)
		fixture->boot->ops->close(fixture->boot);
	uv_close((uv_handle_t *)&fixture->board.answer, NULL);
	uv_run(&fixture->loop, UV_RUN_DEFAULT);
	rc = uv_loop_close(&fixture->loop);
	files_remove_tree(fixture->dir);
	free(fixture);
	return rc;
}

/* The board's kexec driver with modules_dir (and initrd) set. */
static void create_driver(struct fixture *fixture, bool with_initrd)
{
	struct driver_context context = { .loop = &fixture->loop, .board = &fixture->lab_board };
	char error[512];
	size_t count = 0;

	fixture->option_values[0][0] = fixture->modules_dir;
	fixture->options[count++] = (struct lab_driver_option){
		.name = "modules_dir", .values = fixture->option_values[0], .value_count = 1 };
	if (with_initrd) {
		fixture->option_values[1][0] = "/boot/initrd.img";
		fixture->options[count++] = (struct lab_driver_option){
			.name = "initrd", .values = fixture->option_values[1], .value_count = 1 };
	}
	fixture->lab_board.boot = (struct lab_driver){ .name = "kexec", .options = fixture->options,
						       .option_count = count };
	if (kexec_boot_ops.create(&context, &fixture->boot, error, sizeof(error)) != 0)
		fail_msg("%s", error);
}

static void on_booted(struct boot *boot, int status, const char *error_text, void *data)
{
	struct fixture *fixture = data;

	(void)boot;
	fixture->done = true;
	fixture->status = status;
	snprintf(fixture->error_text, sizeof(fixture->error_text), "%s", error_text ? error_text : "");
}

static void boot_and_wait(struct fixture *fixture, const char *modules)
{
	struct boot_request request = {
		.transport = &fixture->board.base, .image_path = fixture->image, .release = RELEASE,
		.command_line = "rackbisect.run=7", .modules_path = modules, .step_timeout_ms = 1000,
	};

	assert_int_equal(fixture->boot->ops->start(fixture->boot, &request, on_booted, fixture), 0);
	while (!fixture->done)
		assert_true(uv_run(&fixture->loop, UV_RUN_ONCE) != 0 || fixture->done);
}

/* A modules tarball as a kbuild build packs it: RELEASE/kernel/... */
static void make_tarball(struct fixture *fixture, const char *top)
{
	char source[256], ko[PATH_MAX];
	char *pack[] = { "tar", "-C", source, "-czf", fixture->tarball, (char *)top, NULL };

	snprintf(source, sizeof(source), "%s/src", fixture->dir);
	snprintf(ko, sizeof(ko), "%s/%s/kernel/drivers/net/wireless/ath/ath9k", source, top);
	assert_int_equal(path_make_dirs(ko), 0);
	strcat(ko, "/ath9k.ko");
	assert_int_equal(files_write_atomic(ko, "new module\n"), 0);
	assert_int_equal(subprocess_run(pack, NULL, NULL), 0);
}

/* The board's installed modules of RELEASE, before the build's arrive. */
static void install_old_modules(struct fixture *fixture)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" RELEASE "/kernel", fixture->modules_dir);
	assert_int_equal(path_make_dirs(path), 0);
	strcat(path, "/stale.ko");
	assert_int_equal(files_write_atomic(path, "old\n"), 0);
}

static bool old_modules_stand(struct fixture *fixture)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" RELEASE "/kernel/stale.ko", fixture->modules_dir);
	return access(path, F_OK) == 0;
}

static void assert_step(struct fixture *fixture, size_t index, const char *prefix)
{
	if (index >= fixture->board.step_count)
		fail_msg("no step %zu (only %zu)", index + 1, fixture->board.step_count);
	if (strncmp(fixture->board.steps[index], prefix, strlen(prefix)) != 0)
		fail_msg("step %zu is '%s', expected it to start with '%s'", index + 1,
			 fixture->board.steps[index], prefix);
}

/* Without modules: upload, kexec -l with the board's words then the job's, kexec -e. */
static void test_kernel_alone_is_uploaded_loaded_and_executed(void **state)
{
	struct fixture *fixture = *state;
	char expected[512];

	create_driver(fixture, true);
	boot_and_wait(fixture, NULL);
	assert_int_equal(fixture->status, 0);
	assert_int_equal(fixture->board.step_count, 3);
	snprintf(expected, sizeof(expected), "upload %s -> /boot/vmlinuz-" RELEASE, fixture->image);
	assert_string_equal(fixture->board.steps[0], expected);
	assert_string_equal(fixture->board.steps[1],
			    "exec kexec|-l|/boot/vmlinuz-" RELEASE "|--append=console=ttyS0,115200 "
			    "rackbisect.run=7|--initrd=/boot/initrd.img");
	assert_string_equal(fixture->board.steps[2], "exec kexec|-e");
}

/* With modules: uploaded beside the installed ones, unpacked by the board's
 * sh and tar into modules_dir/RELEASE (replacing what was there), the
 * tarball removed; then kexec -l. */
static void test_modules_are_unpacked_before_kexec(void **state)
{
	struct fixture *fixture = *state;
	char expected[512], path[PATH_MAX], line[64];

	create_driver(fixture, false);
	make_tarball(fixture, RELEASE);
	install_old_modules(fixture);
	fixture->board.run_shell = true;
	boot_and_wait(fixture, fixture->tarball);
	if (fixture->status)
		fail_msg("%s", fixture->error_text);
	assert_int_equal(fixture->board.step_count, 5);
	snprintf(expected, sizeof(expected), "upload %s -> %s/.rackbisect-" RELEASE ".tar.gz",
		 fixture->tarball, fixture->modules_dir);
	assert_string_equal(fixture->board.steps[1], expected);
	snprintf(expected, sizeof(expected), "|sh|%s|" RELEASE "|%s/.rackbisect-" RELEASE ".tar.gz",
		 fixture->modules_dir, fixture->modules_dir);
	assert_step(fixture, 2, "exec sh|-c|");
	assert_non_null(strstr(fixture->board.steps[2], expected));
	assert_step(fixture, 3, "exec kexec|-l|");
	assert_string_equal(fixture->board.steps[4], "exec kexec|-e");
	/* what the board has now */
	snprintf(path, sizeof(path), "%s/" RELEASE "/kernel/drivers/net/wireless/ath/ath9k/ath9k.ko",
		 fixture->modules_dir);
	assert_int_equal(files_read_line(path, line, sizeof(line)), 0);
	assert_string_equal(line, "new module");
	assert_false(old_modules_stand(fixture));
	snprintf(path, sizeof(path), "%s/.rackbisect-" RELEASE ".tar.gz", fixture->modules_dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/.rackbisect-new-" RELEASE, fixture->modules_dir);
	assert_int_equal(access(path, F_OK), -1);
}

/* A tarball of another release: nothing swapped in, the boot fails (the
 * lab's trouble: INFRA) saying why, the installed modules stand. */
static void test_a_tarball_without_the_release_changes_nothing(void **state)
{
	struct fixture *fixture = *state;

	create_driver(fixture, false);
	install_old_modules(fixture);
	make_tarball(fixture, "6.9.0-other");
	fixture->board.run_shell = true;
	boot_and_wait(fixture, fixture->tarball);
	assert_int_equal(fixture->status, -EIO);
	assert_non_null(strstr(fixture->error_text, "board q1: unpacking the modules failed"));
	assert_non_null(strstr(fixture->error_text, "has no directory " RELEASE));
	assert_int_equal(fixture->board.step_count, 3);		/* never kexec -l */
	assert_true(old_modules_stand(fixture));
}

/* Each step's failure names the board and the step, and stops there. */
static void test_each_failing_step_is_named(void **state)
{
	static const struct {
		int step;
		const char *says;
		size_t steps;
	} cases[] = {
		{ 1, "board q1: kernel upload failed: the link dropped", 1 },
		{ 2, "board q1: modules upload failed: the link dropped", 2 },
		{ 3, "board q1: unpacking the modules failed: sh: refused", 3 },
		{ 4, "board q1: kexec -l failed: kexec: refused", 4 },
		{ 5, "board q1: kexec -e failed: kexec: refused", 5 },
	};
	struct fixture *fixture = *state;

	create_driver(fixture, false);
	make_tarball(fixture, RELEASE);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fixture->board.step_count = 0;
		fixture->board.fail_step = cases[i].step;
		fixture->done = false;
		boot_and_wait(fixture, fixture->tarball);
		assert_int_equal(fixture->status, -EIO);
		assert_string_equal(fixture->error_text, cases[i].says);
		assert_int_equal(fixture->board.step_count, cases[i].steps);
	}
}

static void test_modules_dir_must_be_absolute(void **state)
{
	struct fixture *fixture = *state;
	struct driver_context context = { .loop = &fixture->loop, .board = &fixture->lab_board };
	char *values[] = { "lib/modules", NULL };
	struct lab_driver_option option = { .name = "modules_dir", .values = values,
					    .value_count = 1 };
	char error[512];

	fixture->lab_board.boot = (struct lab_driver){ .name = "kexec", .options = &option,
						       .option_count = 1 };
	assert_int_equal(kexec_boot_ops.create(&context, &fixture->boot, error, sizeof(error)),
			 -EINVAL);
	assert_non_null(strstr(error, "modules_dir must be an absolute path on the board"));
	fixture->boot = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_alone_is_uploaded_loaded_and_executed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_are_unpacked_before_kexec, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_tarball_without_the_release_changes_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_failing_step_is_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_dir_must_be_absolute, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
