/* TEMPORARY placeholder: replaced by the real command before anything lands. */
#include <stdio.h>
#include "virtual/vlab_commands.h"

int vlab_cmd_sim(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "rackbisect-vlab %s: not built yet\n", argv[0]);
	return VLAB_EXIT_USAGE;
}
