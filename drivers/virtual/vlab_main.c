/* rackbisect-vlab: the virtual AR9xxx lab. argv -> a command; nothing else. */
#include <stdio.h>
#include <string.h>

#include "virtual/vlab_commands.h"

struct vlab_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct vlab_command commands[] = {
	{ "make-tree", vlab_cmd_make_tree,
	  "--scenario NAME --seed N --out DIR --truth FILE   write a model kernel history" },
	{ "sim", vlab_cmd_sim,
	  "--tree DIR --commit REF --workload W3 --chip CHIP --seed N   run a workload in-process" },
	{ "build", vlab_cmd_build,
	  "--tree DIR --commit REF   build one commit (cached); prints IMAGE RELEASE" },
	{ "up", vlab_cmd_up, "LAB.yaml   start the lab's boards (sshd, console, power)" },
	{ "down", vlab_cmd_down, "LAB.yaml   stop every process `up` started" },
	{ "status", vlab_cmd_status, "LAB.yaml   boards, power, booted kernel, addresses" },
	{ "power", vlab_cmd_power, "[--lab LAB.yaml] BOARD on|off|cycle|status" },
	{ "hang", vlab_cmd_hang, "[--lab LAB.yaml] BOARD   fault injection: freeze the board's host" },
	{ "serve", vlab_cmd_serve, "LAB.yaml   (internal) the lab supervisor `up` starts" },
	{ "board-exec", vlab_cmd_board_exec, "(internal) enter a board's namespace and exec" },
};

static void usage(FILE *to)
{
	size_t i;

	fprintf(to, "usage: rackbisect-vlab COMMAND [ARGS]\n\n"
		    "The virtual AR9xxx lab: model kernel histories, simulated boards that are\n"
		    "real SSH hosts on loopback. Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(to, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(to, "\n`rackbisect-vlab COMMAND --help` says more.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "rackbisect-vlab: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
