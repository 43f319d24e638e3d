/*
 * vlab_commands.h - the subcommands of rackbisect-vlab, one file each
 * (cmd_NAME.c). Each takes the arguments after its name (argv[0] is the
 * subcommand) and returns the process exit status:
 * 0 done, 1 the thing checked failed, 2 usage or configuration error,
 * 3 lab or infrastructure error.
 */
#ifndef RB_VLAB_COMMANDS_H
#define RB_VLAB_COMMANDS_H

#define VLAB_EXIT_OK 0
#define VLAB_EXIT_FAIL 1
#define VLAB_EXIT_USAGE 2
#define VLAB_EXIT_INFRA 3

int vlab_cmd_make_tree(int argc, char **argv);	/* cmd_make_tree.c */
int vlab_cmd_sim(int argc, char **argv);	/* cmd_sim.c */
int vlab_cmd_build(int argc, char **argv);	/* cmd_build.c */
int vlab_cmd_up(int argc, char **argv);		/* cmd_lab.c */
int vlab_cmd_down(int argc, char **argv);	/* cmd_lab.c */
int vlab_cmd_status(int argc, char **argv);	/* cmd_lab.c */
int vlab_cmd_power(int argc, char **argv);	/* cmd_lab.c */
int vlab_cmd_hang(int argc, char **argv);	/* cmd_lab.c */
int vlab_cmd_serve(int argc, char **argv);	/* cmd_lab.c: the lab's supervisor */
int vlab_cmd_board_exec(int argc, char **argv);	/* cmd_board_exec.c */

#endif
