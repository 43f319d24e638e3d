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

#include "boot/grub.h"
#include "boot/kexec.h"
#include "helpers/recording_board.h"
#include "files.h"
#include "path.h"
#include "subprocess.h"
#include "virtual/board/grub_firmware.h"

#define RELEASE "6.9.0-rc1-lab"
#define MAX_OPTIONS 6

struct fixture {
	uv_loop_t loop;
	char dir[64];
	char modules_dir[128];
	char tarball[128];
	char image[128];
	char boot_dir[128];
	struct recording_board board;
	struct lab_board lab_board;
	struct lab_driver_option options[MAX_OPTIONS];
	char *option_values[MAX_OPTIONS][2];
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
	snprintf(fixture->boot_dir, sizeof(fixture->boot_dir), "%s/boot", fixture->dir);
	snprintf(fixture->tarball, sizeof(fixture->tarball), "%s/modules.tar.gz", fixture->dir);
	if (path_make_dirs(fixture->modules_dir) || files_write_atomic(fixture->image, "kernel\n"))
		return -1;
	recording_board_init(&fixture->board, &fixture->loop, fixture->dir);
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
	recording_board_close(&fixture->board);
	uv_run(&fixture->loop, UV_RUN_DEFAULT);
	rc = uv_loop_close(&fixture->loop);
	files_remove_tree(fixture->dir);
	free(fixture);
	return rc;
}

/* The board's `ops` driver with the options `pairs` ("name", "value", ..., NULL). */
static void create_with(struct fixture *fixture, const struct boot_ops *ops,
			const char *const *pairs)
{
	struct driver_context context = { .loop = &fixture->loop, .board = &fixture->lab_board };
	char error[512];
	size_t count = 0;

	for (; pairs[0] && count < MAX_OPTIONS; pairs += 2, count++) {
		fixture->option_values[count][0] = (char *)pairs[1];
		fixture->options[count] = (struct lab_driver_option){
			.name = (char *)pairs[0], .values = fixture->option_values[count],
			.value_count = 1 };
	}
	fixture->lab_board.boot = (struct lab_driver){ .name = (char *)ops->name,
						       .options = fixture->options,
						       .option_count = count };
	if (ops->create(&context, &fixture->boot, error, sizeof(error)) != 0)
		fail_msg("%s", error);
}

/* The board's kexec driver with modules_dir (and initrd) set. */
static void create_driver(struct fixture *fixture, bool with_initrd)
{
	const char *pairs[] = { "modules_dir", fixture->modules_dir,
				with_initrd ? "initrd" : NULL, "/boot/initrd.img", NULL };

	create_with(fixture, &kexec_boot_ops, pairs);
}

static void on_booted(struct boot *boot, int status, const char *error_text, void *data)
{
	struct fixture *fixture = data;

	(void)boot;
	fixture->done = true;
	fixture->status = status;
	snprintf(fixture->error_text, sizeof(fixture->error_text), "%s", error_text ? error_text : "");
}

/* Boots RELEASE with the job's words (and modules) and waits for the callback. */
static void boot_with(struct fixture *fixture, const char *job_words, const char *modules)
{
	struct boot_request request = {
		.transport = &fixture->board.base, .image_path = fixture->image, .release = RELEASE,
		.command_line = job_words, .modules_path = modules, .step_timeout_ms = 1000,
	};

	assert_int_equal(fixture->boot->ops->start(fixture->boot, &request, on_booted, fixture), 0);
	while (!fixture->done)
		assert_true(uv_run(&fixture->loop, UV_RUN_ONCE) != 0 || fixture->done);
}

static void boot_and_wait(struct fixture *fixture, const char *modules)
{
	boot_with(fixture, "rackbisect.run=7", modules);
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
	fixture->board.run_for_real[0] = "sh";
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
	fixture->board.run_for_real[0] = "sh";
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

/* The kexec driver refuses its one option name=value; the error must say `says`. */
static void assert_option_refused(struct fixture *fixture, const char *name, const char *value,
				  const char *says)
{
	struct driver_context context = { .loop = &fixture->loop, .board = &fixture->lab_board };
	char *values[] = { (char *)value, NULL };
	struct lab_driver_option option = { .name = (char *)name, .values = values,
					    .value_count = 1 };
	char error[512];

	fixture->lab_board.boot = (struct lab_driver){ .name = "kexec", .options = &option,
						       .option_count = 1 };
	assert_int_equal(kexec_boot_ops.create(&context, &fixture->boot, error, sizeof(error)),
			 -EINVAL);
	if (!strstr(error, says))
		fail_msg("error: %s", error);
	fixture->boot = NULL;
}

static void test_modules_dir_must_be_absolute(void **state)
{
	assert_option_refused(*state, "modules_dir", "lib/modules",
			      "modules_dir must be an absolute path on the board");
}

/* The lab's command_line is checked as the job's is: a newline would end
 * grub.cfg's linux line and start a command of its own (issue 31). */
static void test_command_line_must_be_one_printable_line(void **state)
{
	assert_option_refused(*state, "command_line", "quiet\ninsmod evil",
			      "command_line must be one line of printable characters (byte 0x0a");
}


/* ---- grub ----------------------------------------------------------------------------------- */

/* The grub driver on a board whose /boot is <dir>/boot, with initrd and
 * grub_boot_path when not NULL; grub-reboot and sh run for real there. */
static void create_grub(struct fixture *fixture, const char *command_line, const char *initrd,
			const char *grub_boot_path)
{
	const char *pairs[12] = { "boot_directory", fixture->boot_dir, "modules_dir",
				  fixture->modules_dir, "command_line", command_line };
	size_t count = 6;

	if (initrd) {
		pairs[count++] = "initrd";
		pairs[count++] = initrd;
	}
	if (grub_boot_path) {
		pairs[count++] = "grub_boot_path";
		pairs[count++] = grub_boot_path;
	}
	assert_int_equal(path_make_dirs(fixture->boot_dir), 0);
	create_with(fixture, &grub_boot_ops, pairs);
	fixture->board.run_for_real[0] = "sh";
	fixture->board.run_for_real[1] = "grub-reboot";
	fixture->board.run_for_real[2] = "grub-editenv";
}

/* The board's rackbisect.cfg, as the driver wrote it (the caller frees it). */
static char *grub_entry(struct fixture *fixture)
{
	char path[PATH_MAX];
	char *text;

	snprintf(path, sizeof(path), "%s/grub/rackbisect.cfg", fixture->boot_dir);
	text = files_read_text(path);
	assert_non_null(text);
	return text;
}

/* What GRUB boots next, as the virtual board's firmware reads it. */
static int grub_next(struct fixture *fixture, char *image, char *command_line, char *error)
{
	return grub_firmware_choose(fixture->boot_dir, image, 256, command_line, 1024, error, 1024);
}

/* The build's entry, chosen once with the real grub-reboot, then reboot. */
static void test_grub_writes_the_entry_chooses_it_once_and_reboots(void **state)
{
	struct fixture *fixture = *state;
	char path[PATH_MAX], image[256], command_line[1024], error[1024], *text, *listing = NULL;
	char *list[] = { "grub-editenv", path, "list", NULL };

	create_grub(fixture, "root=/dev/sda2 ro console=ttyS0,115200", NULL, NULL);
	boot_and_wait(fixture, NULL);
	if (fixture->status)
		fail_msg("%s", fixture->error_text);
	assert_int_equal(fixture->board.step_count, 5);
	assert_step(fixture, 1, "exec sh|-c|");
	snprintf(path, sizeof(path), "exec grub-reboot|--boot-directory=%s|rackbisect",
		 fixture->boot_dir);
	assert_string_equal(fixture->board.steps[2], path);
	snprintf(path, sizeof(path), "exec grub-editenv|%s/grub/grubenv|list", fixture->boot_dir);
	assert_string_equal(fixture->board.steps[3], path);
	assert_string_equal(fixture->board.steps[4], "exec reboot");
	text = grub_entry(fixture);
	assert_non_null(strstr(text, "\nmenuentry 'rackbisect " RELEASE "' --id rackbisect {\n"));
	assert_non_null(strstr(text, "\tlinux '/boot/vmlinuz-" RELEASE "' 'root=/dev/sda2' 'ro' "
				     "'console=ttyS0,115200' 'rackbisect.run=7'\n}"));
	assert_null(strstr(text, "initrd"));
	free(text);
	/* the board starts: GRUB boots the entry once, as Debian's grub.cfg does */
	assert_int_equal(grub_next(fixture, image, command_line, error), 1);
	assert_string_equal(image, "/boot/vmlinuz-" RELEASE);
	assert_string_equal(command_line, "BOOT_IMAGE=/boot/vmlinuz-" RELEASE " root=/dev/sda2 ro "
					  "console=ttyS0,115200 rackbisect.run=7");
	assert_string_equal(error, "");
	snprintf(path, sizeof(path), "%s/grub/grubenv", fixture->boot_dir);
	assert_int_equal(subprocess_run(list, NULL, &listing), 0);	/* the real tool reads it */
	assert_string_equal(listing, "next_entry=\n");
	free(listing);
	assert_int_equal(grub_next(fixture, image, command_line, error), 0);	/* then the default */
}

/* Words reach the kernel as written, whatever GRUB's parser makes of quotes
 * and '$'; a /boot partition of its own names files from its root. */
static void test_grub_entry_quotes_words_and_maps_paths(void **state)
{
	struct fixture *fixture = *state;
	char initrd[PATH_MAX], image[256], command_line[1024], error[1024], *text;

	snprintf(initrd, sizeof(initrd), "%s/initrd.img", fixture->boot_dir);
	create_grub(fixture, "root=LABEL=rack quiet", initrd, "/");
	boot_with(fixture, "it's $HOME x\\y", NULL);
	if (fixture->status)
		fail_msg("%s", fixture->error_text);
	text = grub_entry(fixture);
	assert_non_null(strstr(text, "\tlinux '/vmlinuz-" RELEASE "' 'root=LABEL=rack' 'quiet' "
				     "'it'\\''s' '$HOME' 'x\\y'"));
	assert_non_null(strstr(text, "\n\tinitrd '/initrd.img'\n}"));
	free(text);
	assert_int_equal(grub_next(fixture, image, command_line, error), 1);
	assert_string_equal(image, "/vmlinuz-" RELEASE);
	assert_string_equal(command_line, "BOOT_IMAGE=/vmlinuz-" RELEASE " root=LABEL=rack quiet "
					  "it's $HOME x\\y");
}

static void test_grub_failing_steps_are_named(void **state)
{
	struct fixture *fixture = *state;

	create_grub(fixture, "root=/dev/sda2", NULL, NULL);
	fixture->board.fail_step = 3;
	boot_and_wait(fixture, NULL);
	assert_int_equal(fixture->status, -EIO);
	assert_string_equal(fixture->error_text, "board q1: grub-reboot failed: grub-reboot: refused");
	assert_int_equal(fixture->board.step_count, 3);		/* never rebooted */
	fixture->board.step_count = 0;
	fixture->board.fail_step = 5;
	fixture->done = false;
	boot_and_wait(fixture, NULL);
	assert_string_equal(fixture->error_text, "board q1: reboot failed: reboot: refused");
}

/* grub-reboot says 0 even when it wrote nothing: the driver reads it back
 * before it reboots into what would be GRUB's default. */
static void test_grub_reboot_that_wrote_nothing_is_caught(void **state)
{
	struct fixture *fixture = *state;
	char grub_dir[PATH_MAX];

	create_grub(fixture, "root=/dev/sda2", NULL, NULL);
	fixture->board.run_for_real[0] = "grub-reboot";	/* the entry is not written: */
	fixture->board.run_for_real[1] = "grub-editenv";	/* no grub directory */
	fixture->board.run_for_real[2] = NULL;
	snprintf(grub_dir, sizeof(grub_dir), "%s/grub", fixture->boot_dir);
	boot_and_wait(fixture, NULL);
	assert_int_equal(fixture->status, -EIO);
	/* grub-editenv cannot even read the file back here: that is the error */
	if (!strstr(fixture->error_text, "board q1: reading back grub-reboot's choice failed: "))
		fail_msg("%s", fixture->error_text);
	assert_non_null(strstr(fixture->error_text, grub_dir));
	assert_int_equal(fixture->board.step_count, 4);		/* never rebooted */
	/* an environment that grub-reboot (here: not run) left without the choice */
	{
		char grubenv[PATH_MAX + 16];
		char *create[] = { "grub-editenv", grubenv, "create", NULL };

		assert_int_equal(path_make_dirs(grub_dir), 0);
		snprintf(grubenv, sizeof(grubenv), "%s/grubenv", grub_dir);
		assert_int_equal(subprocess_run(create, NULL, NULL), 0);
	}
	fixture->board.run_for_real[0] = "grub-editenv";
	fixture->board.run_for_real[1] = NULL;
	fixture->board.step_count = 0;
	fixture->done = false;
	boot_and_wait(fixture, NULL);
	assert_int_equal(fixture->status, -EIO);
	if (!strstr(fixture->error_text, "board q1: grub-reboot failed: grub-editenv list shows no "
		    "next_entry=rackbisect"))
		fail_msg("%s", fixture->error_text);
	assert_int_equal(fixture->board.step_count, 4);
}

/* Without a choice, or with one naming no entry, GRUB boots its default. */
static void test_grub_firmware_without_a_choice_boots_the_default(void **state)
{
	struct fixture *fixture = *state;
	char image[256], command_line[1024], error[1024], path[PATH_MAX];
	char *choose[] = { "grub-reboot", path, "no-such-entry", NULL };

	assert_int_equal(path_make_dirs(fixture->boot_dir), 0);
	assert_int_equal(grub_next(fixture, image, command_line, error), 0);	/* no grubenv */
	assert_string_equal(error, "");
	snprintf(path, sizeof(path), "%s/grub", fixture->boot_dir);
	assert_int_equal(path_make_dirs(path), 0);
	snprintf(path, sizeof(path), "--boot-directory=%s", fixture->boot_dir);
	assert_int_equal(subprocess_run(choose, NULL, NULL), 0);
	assert_int_equal(grub_next(fixture, image, command_line, error), 0);
	assert_non_null(strstr(error, "next_entry 'no-such-entry' names no entry"));
	assert_int_equal(grub_next(fixture, image, command_line, error), 0);	/* cleared too */
	assert_string_equal(error, "");
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
		cmocka_unit_test_setup_teardown(test_command_line_must_be_one_printable_line,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_dir_must_be_absolute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grub_writes_the_entry_chooses_it_once_and_reboots,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_grub_entry_quotes_words_and_maps_paths, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_grub_failing_steps_are_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grub_reboot_that_wrote_nothing_is_caught, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_grub_firmware_without_a_choice_boots_the_default,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
