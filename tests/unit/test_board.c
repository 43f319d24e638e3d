/* Boards: drivers are found by the lab's names, and a wrong one is named with
 * file:line:col; a console that prints without end is bounded on disk and in memory. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "log.h"

struct scratch {
	char dir[64];
	char path[128];
	char error[1024];
	struct lab *lab;
	uv_loop_t loop;
	struct log log;
	struct board_set set;
};

static int open_lab(struct scratch *scratch, const char *text)
{
	FILE *file;
	char load_error[512];

	strcpy(scratch->dir, "/tmp/rackbisect-test-board-XXXXXX");
	assert_non_null(mkdtemp(scratch->dir));
	snprintf(scratch->path, sizeof(scratch->path), "%s/lab.yaml", scratch->dir);
	file = fopen(scratch->path, "w");
	assert_non_null(file);
	fputs(text, file);
	fclose(file);
	if (lab_load(scratch->path, &scratch->lab, load_error, sizeof(load_error)) != 0)
		fail_msg("%s", load_error);
	uv_loop_init(&scratch->loop);
	log_init(&scratch->log, stderr, false, NULL);
	return board_set_open(&(struct board_set_options){ &scratch->loop, scratch->lab, scratch->dir,
							   &scratch->log, false },
			      &scratch->set, scratch->error, sizeof(scratch->error));
}

static void close_lab(struct scratch *scratch)
{
	char command[200];

	board_set_close(&scratch->set);
	uv_run(&scratch->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&scratch->loop), 0);
	lab_free(scratch->lab);
	snprintf(command, sizeof(command), "rm -rf '%s'", scratch->dir);
	assert_int_equal(system(command), 0);
}

static void assert_error(struct scratch *scratch, int line, int column, const char *words)
{
	char prefix[200];

	snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", scratch->path, line, column);
	if (strncmp(scratch->error, prefix, strlen(prefix)) != 0 || !strstr(scratch->error, words))
		fail_msg("error '%s' is not '%s...%s'", scratch->error, prefix, words);
}

static void test_virtual_lab_opens_every_driver(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(open_lab(&scratch, "name: v\nboards:\n  - name: a\n    chip: ar9285\n"
					    "    transport: {host: 127.77.9.1, port: 2222}\n"
					    "    console: {port: 7000}\n"), 0);
	assert_int_equal(scratch.set.count, 1);
	assert_string_equal(scratch.set.boards[0].power->ops->name, "virtual");
	assert_string_equal(scratch.set.boards[0].console->ops->name, "virtual");
	assert_string_equal(scratch.set.boards[0].boot->ops->name, "virtual");
	/* the lab's own key and known_hosts, under the state directory */
	assert_non_null(strstr(scratch.set.boards[0].known_hosts_file, "/labs/v/known_hosts"));
	assert_ptr_equal(board_set_find(&scratch.set, "a"), &scratch.set.boards[0]);
	assert_null(board_set_find(&scratch.set, "b"));
	close_lab(&scratch);
}

static void test_unknown_driver_is_named_where_it_is_written(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(open_lab(&scratch, "name: v\nboards:\n  - name: a\n    chip: ar9285\n"
					    "    transport: {host: 127.77.9.1}\n"
					    "    power: {driver: pdu9000}\n"), -EINVAL);
	assert_error(&scratch, 6, 12, "board 'a': unknown power driver 'pdu9000' (known: command, pdudaemon, qemu, virtual)");
	close_lab(&scratch);
	assert_int_equal(open_lab(&scratch, "name: v\nboards:\n  - name: a\n    chip: ar9285\n"
					    "    transport: {host: 127.77.9.1}\n"
					    "    boot: {driver: grubby}\n"), -EINVAL);
	assert_error(&scratch, 6, 11, "unknown boot driver 'grubby' (known: kexec, grub, virtual)");
	close_lab(&scratch);
}

static void test_ssh_lab_board_without_power_driver_is_refused(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(open_lab(&scratch, "name: r\ntype: ssh\nboards:\n  - name: a\n    chip: ar9285\n"
					    "    transport: {host: 127.77.9.1, identity: id}\n"), -EINVAL);
	assert_error(&scratch, 4, 5, "board 'a' has no power driver");
	close_lab(&scratch);
}

static void test_driver_refuses_its_bad_option_with_its_location(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(open_lab(&scratch, "name: r\ntype: ssh\nboards:\n  - name: a\n    chip: ar9285\n"
					    "    transport: {host: 127.77.9.1, identity: keys/id}\n"
					    "    power: {driver: command, on: pdu-on, off: [pdu, off]}\n"
					    "    console: {driver: tcp, port: 7001}\n"
					    "    boot: {driver: virtual}\n"), -EINVAL);
	assert_error(&scratch, 7, 34, "on must be a list");
	close_lab(&scratch);
	/* a relative identity is the lab file's neighbour, not the current directory's */
	assert_int_equal(open_lab(&scratch, "name: r\ntype: ssh\nboards:\n  - name: a\n    chip: ar9285\n"
					    "    transport: {host: 127.77.9.1, identity: keys/id}\n"
					    "    power: {driver: command, on: [pdu, on], off: [pdu, off]}\n"
					    "    console: {driver: tcp, port: 7001}\n"
					    "    boot: {driver: virtual}\n"), 0);
	assert_non_null(strstr(scratch.set.boards[0].identity_file, scratch.dir));
	assert_non_null(strstr(scratch.set.boards[0].identity_file, "/keys/id"));
	close_lab(&scratch);
}

static int open_kexec_board(struct scratch *scratch, const char *boot)
{
	char text[600];

	snprintf(text, sizeof(text),
		 "name: r\ntype: ssh\nboards:\n  - name: a\n    chip: ar9285\n"
		 "    transport: {host: 127.77.9.1, identity: id}\n"
		 "    power: {driver: command, on: [pdu, on], off: [pdu, off]}\n"
		 "    console: {driver: tcp, port: 7001}\n"
		 "    boot: %s\n", boot);
	return open_lab(scratch, text);
}

static void test_kexec_boot_takes_initrd_and_command_line(void **state)
{
	struct scratch scratch = { 0 };

	(void)state;
	assert_int_equal(open_kexec_board(&scratch, "{driver: kexec, fallback: 6.1.0, initrd: /boot/initrd.img, "
						    "command_line: \"console=ttyS0 root=/dev/sda2\"}"), 0);
	assert_string_equal(scratch.set.boards[0].boot->ops->name, "kexec");
	close_lab(&scratch);
	assert_int_equal(open_kexec_board(&scratch, "{driver: kexec, initrd: boot/initrd.img}"), -EINVAL);
	assert_error(&scratch, 9, 35, "boot driver 'kexec': initrd must be an absolute path on the board");
	close_lab(&scratch);
	assert_int_equal(open_kexec_board(&scratch, "{driver: kexec, command_line: [quiet]}"), -EINVAL);
	assert_error(&scratch, 9, 41, "command_line must be a non-empty string");
	close_lab(&scratch);
	assert_int_equal(open_kexec_board(&scratch, "{driver: kexec, initramfs: /x}"), -EINVAL);
	assert_error(&scratch, 9, 38, "unknown option 'initramfs' (known: fallback, command_line, initrd, modules_dir, boot_directory)");
	close_lab(&scratch);
	/* the virtual board's kexec is simulated: nothing to set */
	assert_int_equal(open_kexec_board(&scratch, "{driver: virtual, initrd: /boot/initrd.img}"), -EINVAL);
	assert_error(&scratch, 9, 37, "boot driver 'virtual': unknown option 'initrd' (known: fallback)");
	close_lab(&scratch);
}

/* The documented rack opens: every driver takes its options as written. */
static void test_example_rack_lab_opens(void **state)
{
	struct scratch scratch = { 0 };
	char load_error[512];
	size_t i;

	(void)state;
	strcpy(scratch.dir, "/tmp/rackbisect-test-board-XXXXXX");
	assert_non_null(mkdtemp(scratch.dir));
	if (lab_load("labs/ath9k-rack.example.yaml", &scratch.lab, load_error, sizeof(load_error)))
		fail_msg("%s", load_error);
	uv_loop_init(&scratch.loop);
	log_init(&scratch.log, stderr, false, NULL);
	if (board_set_open(&(struct board_set_options){ &scratch.loop, scratch.lab, scratch.dir,
							&scratch.log, false },
			   &scratch.set, scratch.error, sizeof(scratch.error)))
		fail_msg("%s", scratch.error);
	assert_int_equal(scratch.set.count, 4);
	for (i = 0; i < scratch.set.count; i++) {
		assert_string_equal(scratch.set.boards[i].power->ops->name, "pdudaemon");
		assert_string_equal(scratch.set.boards[i].console->ops->name, "tcp");
		assert_string_equal(scratch.set.boards[i].boot->ops->name,
				    i == 3 ? "grub" : "kexec");	/* s2-ar9462 boots through GRUB */
	}
	close_lab(&scratch);
}

/* ---- a console that prints without end ----------------------------------------- */

/* A console driver whose bytes the test hands over itself. */
struct fed_console {
	struct console base;
	console_data_cb data_cb;
	void *data;
};

static int fed_start(struct console *console, uint64_t retry_ms, console_data_cb data_cb,
		     console_event_cb event_cb, void *data)
{
	struct fed_console *fed = (struct fed_console *)console;

	(void)retry_ms;
	(void)event_cb;
	fed->data_cb = data_cb;
	fed->data = data;
	return 0;
}

static const struct console_ops fed_console_ops = { .name = "fed", .start = fed_start };

/* 100 MB of console in one run: console.log stops at its limit and says how
 * much it left out; the lines kept for the verdict stay within theirs. */
static void test_endless_console_is_bounded_on_disk_and_in_memory(void **state)
{
	struct fed_console console = { .base = { .ops = &fed_console_ops } };
	struct board board = { .name = "eb01", .console = &console.base };
	char dir[] = "/tmp/rackbisect-test-board-XXXXXX", path[64], tail[512];
	static char chunk[656 * 101];	/* 656 lines of 100 characters, as a console read brings them */
	const uint64_t total = 100ull * 1000 * 1000;
	uint64_t fed;
	size_t i;
	FILE *file;
	long size;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/console.log", dir);
	memset(chunk, 'x', sizeof(chunk));
	for (i = 100; i < sizeof(chunk); i += 101)
		chunk[i] = '\n';
	assert_int_equal(board_follow_console(&board), 0);
	assert_int_equal(board_capture_start(&board, path), 0);
	for (fed = 0; fed < total; fed += sizeof(chunk))
		console.data_cb(&console.base, chunk, sizeof(chunk), console.data);
	assert_true(board.capture.bytes <= 8u << 20);
	assert_true(board.capture.dropped_lines > 0);
	assert_int_equal(board.capture.unwritten_bytes, fed - BOARD_CAPTURE_MAX_FILE_BYTES);
	board_capture_stop(&board);

	assert_non_null(file = fopen(path, "r"));
	assert_int_equal(fseek(file, 0, SEEK_END), 0);
	size = ftell(file);
	assert_true((uint64_t)size > BOARD_CAPTURE_MAX_FILE_BYTES);
	assert_true((uint64_t)size < BOARD_CAPTURE_MAX_FILE_BYTES + sizeof(tail));
	assert_int_equal(fseek(file, -(long)(sizeof(tail) - 1), SEEK_END), 0);
	tail[fread(tail, 1, sizeof(tail) - 1, file)] = '\0';
	fclose(file);
	assert_non_null(strstr(tail, "bytes more, not written: this file stops at 64 MiB"));
	assert_non_null(strstr(tail, "console lines beyond the limit"));
	board_capture_reset(&board);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Lines end at "\n" with any "\r" before it dropped, wherever the reads cut
 * them; a line longer than a console line may be is cut, never lost. */
static void test_console_lines_are_split_and_overlong_ones_cut(void **state)
{
	struct fed_console console = { .base = { .ops = &fed_console_ops } };
	struct board board = { .name = "eb02", .console = &console.base };
	char dir[] = "/tmp/rackbisect-test-board-XXXXXX", path[64];
	static char text[6000 + 4095 + 64];
	const size_t cut = sizeof(board.capture.partial) - 1;
	size_t length = 0, at, step;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/console.log", dir);
	length += (size_t)sprintf(text, "first\r\nsecond\n\r\n");
	memset(text + length, 'a', 6000);	/* cut after 4095, the rest is a line */
	length += 6000;
	text[length++] = '\n';
	memset(text + length, 'b', cut);	/* exactly as long as a line may be */
	length += cut;
	length += (size_t)sprintf(text + length, "\nlast without newline");
	assert_int_equal(board_follow_console(&board), 0);
	assert_int_equal(board_capture_start(&board, path), 0);
	for (at = 0, step = 1; at < length; at += step, step = step * 3 % 1000 + 1)
		console.data_cb(&console.base, text + at, at + step > length ? length - at : step,
				console.data);
	board_capture_hold_lines(&board);

	assert_int_equal(board.capture.line_count, 7);
	assert_string_equal(board.capture.lines[0], "first");
	assert_string_equal(board.capture.lines[1], "second");
	assert_string_equal(board.capture.lines[2], "");
	assert_int_equal(strlen(board.capture.lines[3]), cut);
	assert_int_equal(strlen(board.capture.lines[4]), 6000 - cut);
	assert_int_equal(strspn(board.capture.lines[5], "b"), cut);
	assert_int_equal(strlen(board.capture.lines[5]), cut);
	assert_string_equal(board.capture.lines[6], "last without newline");
	board_capture_reset(&board);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_virtual_lab_opens_every_driver),
		cmocka_unit_test(test_endless_console_is_bounded_on_disk_and_in_memory),
		cmocka_unit_test(test_console_lines_are_split_and_overlong_ones_cut),
		cmocka_unit_test(test_kexec_boot_takes_initrd_and_command_line),
		cmocka_unit_test(test_example_rack_lab_opens),
		cmocka_unit_test(test_unknown_driver_is_named_where_it_is_written),
		cmocka_unit_test(test_ssh_lab_board_without_power_driver_is_refused),
		cmocka_unit_test(test_driver_refuses_its_bad_option_with_its_location),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
