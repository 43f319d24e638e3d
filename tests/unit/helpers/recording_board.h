/*
 * recording_board.h - a board for boot driver tests: a transport that
 * records every upload and command as one line ("upload LOCAL -> REMOTE",
 * "exec w1|w2|..."), answers on the next loop turn, fails the step the test
 * names, and runs the commands the test names for real on this machine
 * (sh scripts, grub-reboot), with their paths in the test's own directory.
 * Uploads to paths under `root` are copied there; others are only recorded.
 */
#ifndef RB_TEST_RECORDING_BOARD_H
#define RB_TEST_RECORDING_BOARD_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "transport/transport.h"

#define RECORDING_MAX_STEPS 8

struct recording_board {
	struct transport base;
	char root[128];			/* ends with '/' */
	char steps[RECORDING_MAX_STEPS][1024];
	size_t step_count;
	int fail_step;			/* 1-based step to fail; 0: none */
	const char *run_for_real[4];	/* argv[0]s run here; NULL-terminated */
	/* private */
	uv_timer_t answer;
	bool answer_is_exec;
	transport_exec_cb exec_callback;
	transport_upload_cb upload_callback;
	void *data;
	struct transport_exec_result result;
	char output[2048];		/* stderr: the first line */
	char stdout_text[4096];
};

/* root: the test's directory (a '/' is added). */
void recording_board_init(struct recording_board *board, uv_loop_t *loop, const char *root);
/* Closes its timer; run the loop after. */
void recording_board_close(struct recording_board *board);

#endif
