/* cli_board.c - `rackbisect power BOARD on|off|cycle` and `rackbisect console BOARD`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "cli_commands.h"
#include "log.h"


struct board_command {
	struct cli_globals globals;
	struct lab *lab;
	uv_loop_t loop;
	struct log log;
	struct board_set boards;
	struct board *board;
	uv_signal_t interrupt, terminate;
	int exit_code;
};

static int open_board(struct board_command *command, const char *name, bool follow_console)
{
	char error[1024];
	int rc;

	if (!(command->lab = cli_load_lab(&command->globals)))
		return CLI_EXIT_USAGE;
	uv_loop_init(&command->loop);
	log_init(&command->log, stderr, command->globals.verbose, NULL);
	rc = board_set_open(&(struct board_set_options){ &command->loop, command->lab,
							 command->globals.state, &command->log,
							 follow_console },
			    &command->boards, error, sizeof(error));
	if (rc) {
		fprintf(stderr, "rackbisect: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	command->board = board_set_find(&command->boards, name);
	if (!command->board) {
		cli_error("lab %s (%s) has no board '%s'", command->lab->name, command->lab->path, name);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static void close_board(struct board_command *command)
{
	if (command->boards.boards)
		board_set_close(&command->boards);
	if (command->lab) {
		uv_run(&command->loop, UV_RUN_DEFAULT);
		uv_loop_close(&command->loop);
	}
	lab_free(command->lab);
}

/* ---- power ------------------------------------------------------------------------- */

static const char power_usage[] =
	"usage: rackbisect power BOARD on|off|cycle [--lab LAB] [--state DIR]\n"
	"\n"
	"Switches BOARD's power through its lab's power driver. Exit 0 done, 3 the\n"
	"switch failed, 2 usage.\n";

static void on_switched(struct power *power, int status, const char *error_text, void *data)
{
	struct board_command *command = data;

	(void)power;
	if (status) {
		cli_error("%s", error_text ? error_text : strerror(-status));
		command->exit_code = CLI_EXIT_INFRA;
	}
	board_set_close(&command->boards);
}

static int parse_action(const char *word, enum power_action *action)
{
	static const enum power_action actions[] = { POWER_ON, POWER_OFF, POWER_CYCLE };
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
		if (strcmp(word, power_action_name(actions[i])) == 0) {
			*action = actions[i];
			return 0;
		}
	}
	return -EINVAL;
}

int cli_power(int argc, char **argv)
{
	struct board_command command = { 0 };
	const char *positional[2];
	enum power_action action;
	size_t count;
	struct power *power;
	int rc = cli_parse(argc, argv, NULL, &command.globals, positional, 2, &count, power_usage);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (count != 2 || parse_action(positional[1], &action) != 0) {
		fprintf(stderr, "rackbisect: power needs BOARD and on, off or cycle\n%s", power_usage);
		return CLI_EXIT_USAGE;
	}
	rc = open_board(&command, positional[0], false);
	if (rc == 0 && command.board->lava) {
		cli_error("board %s is LAVA's: switch its device through LAVA (lava-server manage "
			  "devices, or its web UI)", positional[0]);
		rc = CLI_EXIT_USAGE;
	} else if (rc == 0) {
		power = command.board->power;
		rc = power->ops->request(power, action, board_power_timeout_ms(command.board), on_switched, &command);
		if (rc) {
			cli_error("board %s: power %s: %s", positional[0], positional[1], strerror(-rc));
			rc = CLI_EXIT_INFRA;
		} else {
			uv_run(&command.loop, UV_RUN_DEFAULT);
			rc = command.exit_code;
			if (!rc)
				printf("%s: power %s done\n", positional[0], positional[1]);
		}
	}
	close_board(&command);
	return rc;
}

/* ---- console ------------------------------------------------------------------------ */

static const char console_usage[] =
	"usage: rackbisect console BOARD [--lab LAB] [--state DIR]\n"
	"\n"
	"Follows BOARD's serial console live on standard output, reconnecting when\n"
	"it drops, until interrupted (Ctrl-C).\n";

static void on_console_bytes(struct console *console, const char *bytes, size_t length, void *data)
{
	(void)console;
	(void)data;
	fwrite(bytes, 1, length, stdout);
	fflush(stdout);
}

static void on_console_event(struct console *console, enum console_event event, const char *text,
			     void *data)
{
	(void)console;
	(void)data;
	fprintf(stderr, "rackbisect: console %s: %s\n",
		event == CONSOLE_CONNECTED ? "connected" : "lost", text);
}

static void on_interrupt(uv_signal_t *signal, int number)
{
	struct board_command *command = signal->data;

	(void)number;
	uv_close((uv_handle_t *)&command->interrupt, NULL);
	uv_close((uv_handle_t *)&command->terminate, NULL);
	board_set_close(&command->boards);
}

int cli_console(int argc, char **argv)
{
	struct board_command command = { 0 };
	const char *positional[1];
	size_t count;
	int rc = cli_parse(argc, argv, NULL, &command.globals, positional, 1, &count, console_usage);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (count != 1) {
		fprintf(stderr, "rackbisect: console needs BOARD\n%s", console_usage);
		return CLI_EXIT_USAGE;
	}
	rc = open_board(&command, positional[0], false);
	if (rc == 0 && command.board->lava) {
		cli_error("board %s is LAVA's: follow its jobs' logs in LAVA", positional[0]);
		rc = CLI_EXIT_USAGE;
	} else if (rc == 0) {
		struct console *console = command.board->console;

		rc = console->ops->start(console, 1000, on_console_bytes, on_console_event, &command);
		if (rc) {
			cli_error("board %s: console: %s", positional[0], strerror(-rc));
			rc = CLI_EXIT_INFRA;
		} else {
			uv_signal_init(&command.loop, &command.interrupt);
			uv_signal_init(&command.loop, &command.terminate);
			command.interrupt.data = command.terminate.data = &command;
			uv_signal_start(&command.interrupt, on_interrupt, SIGINT);
			uv_signal_start(&command.terminate, on_interrupt, SIGTERM);
			uv_run(&command.loop, UV_RUN_DEFAULT);
		}
	}
	close_board(&command);
	return rc;
}
