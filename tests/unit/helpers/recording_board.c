/* recording_board.c - see recording_board.h. */
#include "recording_board.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "subprocess.h"

static void on_answer(uv_timer_t *timer)
{
	struct recording_board *board = timer->data;

	if (board->answer_is_exec)
		board->exec_callback(&board->base, &board->result, board->data);
	else
		board->upload_callback(&board->base, board->result.status, board->result.error_text,
				       board->data);
}

static bool runs_for_real(const struct recording_board *board, const char *program)
{
	for (size_t i = 0; i < 4 && board->run_for_real[i]; i++)
		if (strcmp(board->run_for_real[i], program) == 0)
			return true;
	return false;
}

static bool failing_now(struct recording_board *board)
{
	return board->fail_step && (size_t)board->fail_step == board->step_count;
}

static int board_exec(struct transport *transport, const char *const *argv, uint64_t timeout_ms,
		      transport_exec_cb callback, void *data)
{
	struct recording_board *board = (struct recording_board *)transport;
	char *step;

	assert_true(board->step_count < RECORDING_MAX_STEPS);
	step = board->steps[board->step_count++];
	size_t used = (size_t)snprintf(step, sizeof(board->steps[0]), "exec");

	(void)timeout_ms;
	for (const char *const *word = argv; *word; word++)
		used += (size_t)snprintf(step + used, sizeof(board->steps[0]) - used, "%s%s",
					 word == argv ? " " : "|", *word);
	memset(&board->result, 0, sizeof(board->result));
	board->output[0] = '\0';
	board->stdout_text[0] = '\0';
	board->result.stderr_text = board->output;
	if (failing_now(board)) {
		board->result.exit_status = 1;
		snprintf(board->output, sizeof(board->output), "%s: refused", argv[0]);
	} else if (runs_for_real(board, argv[0])) {
		char errors[256], *output = NULL;
		struct subprocess_options options = { .log_path = errors };

		snprintf(errors, sizeof(errors), "%scommand.err", board->root);
		unlink(errors);
		board->result.exit_status = subprocess_run((char *const *)argv, &options, &output);
		files_read_line(errors, board->output, sizeof(board->output));
		snprintf(board->stdout_text, sizeof(board->stdout_text), "%s", output ? output : "");
		free(output);
	}
	board->result.stdout_text = board->stdout_text;
	board->result.stdout_length = strlen(board->stdout_text);
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
	assert_true(board->step_count < RECORDING_MAX_STEPS);
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

void recording_board_init(struct recording_board *board, uv_loop_t *loop, const char *root)
{
	memset(board, 0, sizeof(*board));
	board->base.ops = &recording_ops;
	board->base.loop = loop;
	snprintf(board->root, sizeof(board->root), "%s/", root);
	uv_timer_init(loop, &board->answer);
	board->answer.data = board;
}

void recording_board_close(struct recording_board *board)
{
	uv_close((uv_handle_t *)&board->answer, NULL);
}
