/*
 * cli_commands.h - the commands main.c dispatches to. Each takes argv with
 * its own word as argv[0] and returns the process's exit status.
 */
#ifndef RB_CLI_COMMANDS_H
#define RB_CLI_COMMANDS_H

int cli_lab(int argc, char **argv);	/* cli_lab.c */
int cli_run(int argc, char **argv);	/* cli_run.c */
int cli_test(int argc, char **argv);	/* cli_run.c */
int cli_power(int argc, char **argv);	/* cli_board.c */
int cli_console(int argc, char **argv);	/* cli_board.c */
int cli_runs(int argc, char **argv);	/* cli_runs.c */
int cli_show(int argc, char **argv);	/* cli_runs.c */
int cli_bisect(int argc, char **argv);	/* cli_bisect.c: --repo/--run, else the two below */
int cli_bisect_lab(int argc, char **argv);	/* cli_bisect_lab.c: bisect JOB ... */
int cli_bisect_stored(int argc, char **argv);	/* cli_bisect_lab.c: status|log|resume */
int cli_gate(int argc, char **argv);	/* cli_gate.c */
int cli_nightly(int argc, char **argv);	/* cli_nightly.c */
int cli_report(int argc, char **argv);	/* cli_report.c */

#endif
