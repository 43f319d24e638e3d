/* TEMPORARY placeholder: replaced by the real commands before anything lands. */
#include <stdio.h>
#include "virtual/vlab_commands.h"

#define PLACEHOLDER(fn) int fn(int argc, char **argv) { (void)argc; fprintf(stderr, "rackbisect-vlab %s: not built yet\n", argv[0]); return VLAB_EXIT_USAGE; }
PLACEHOLDER(vlab_cmd_up)
PLACEHOLDER(vlab_cmd_down)
PLACEHOLDER(vlab_cmd_status)
PLACEHOLDER(vlab_cmd_power)
PLACEHOLDER(vlab_cmd_hang)
PLACEHOLDER(vlab_cmd_serve)
