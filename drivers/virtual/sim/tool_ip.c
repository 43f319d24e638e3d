/*
 * tool_ip.c - iproute2's `ip link` for the board's interfaces: show, and set
 * wlan0 up (driver start: a chip reset; it stays disconnected) or down
 * (disconnect, then driver stop: full sleep).
 */
#include "virtual/sim/tools.h"

#include <string.h>

#include "virtual/sim/board.h"

#define SETTLE_TIMEOUT_US 2000000

/* iproute2's matches(): a prefix of the keyword. */
static int matches(const char *word, const char *keyword)
{
	size_t len = strlen(word);

	return len > 0 && len <= strlen(keyword) && strncmp(word, keyword, len) == 0;
}

static void show_loopback(struct tool_context *tool)
{
	tool_printf(tool, 1, "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN "
		    "mode DEFAULT group default qlen 1000\n"
		    "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n");
}

static void show_ethernet(struct tool_context *tool)
{
	tool_printf(tool, 1, "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc pfifo_fast "
		    "state UP mode DEFAULT group default qlen 1000\n"
		    "    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff\n");
}

static void show_wlan(struct tool_context *tool)
{
	const struct sim_board *board = tool->board;
	const unsigned char *mac = board->mac_address;
	int up = board->station.state != STATION_DOWN;
	int carrier = station_is_associated(&board->station);
	const char *flags = !up ? "BROADCAST,MULTICAST" :
			    carrier ? "BROADCAST,MULTICAST,UP,LOWER_UP" :
			    "NO-CARRIER,BROADCAST,MULTICAST,UP";

	tool_printf(tool, 1, "3: wlan0: <%s> mtu 1500 qdisc mq state %s mode DORMANT group default "
		    "qlen 1000\n"
		    "    link/ether %02x:%02x:%02x:%02x:%02x:%02x brd ff:ff:ff:ff:ff:ff\n",
		    flags, carrier ? "UP" : "DOWN", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

static int link_show(struct tool_context *tool, int argc, char **argv)
{
	const char *device = NULL;

	if (argc > 0 && strcmp(argv[0], "dev") == 0)
		argc--, argv++;
	if (argc > 0)
		device = argv[0];
	if (!device) {
		show_loopback(tool);
		show_ethernet(tool);
		show_wlan(tool);
		return 0;
	}
	if (strcmp(device, "lo") == 0)
		show_loopback(tool);
	else if (strcmp(device, "eth0") == 0)
		show_ethernet(tool);
	else if (strcmp(device, "wlan0") == 0)
		show_wlan(tool);
	else {
		tool_printf(tool, 2, "Device \"%s\" does not exist.\n", device);
		return 1;
	}
	return 0;
}

static int interface_down(struct sim_board *board, void *arg)
{
	(void)arg;
	return board->station.state == STATION_DOWN;
}

static int link_set(struct tool_context *tool, int argc, char **argv)
{
	struct sim_board *board = tool->board;
	const char *device = NULL, *action = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "dev") == 0 && i + 1 < argc)
			device = argv[++i];
		else if (strcmp(argv[i], "up") == 0 || strcmp(argv[i], "down") == 0)
			action = argv[i];
		else if (!device)
			device = argv[i];
		else {
			tool_printf(tool, 2, "Error: either \"dev\" is duplicate, or \"%s\" is a garbage.\n",
				    argv[i]);
			return 255;
		}
	}
	if (!device) {
		tool_printf(tool, 2, "Not enough information: \"dev\" argument is required.\n");
		return 255;
	}
	if (strcmp(device, "wlan0") != 0) {
		tool_printf(tool, 2, "Cannot find device \"%s\"\n", device);
		return 1;
	}
	if (!action)
		return 0;
	if (strcmp(action, "up") == 0) {
		station_interface_up(board);
		return 0;
	}
	station_interface_down(board);
	return tool_run(tool, board->now_us + SETTLE_TIMEOUT_US, interface_down, NULL) ==
	       SIM_TOOL_HUNG ? SIM_TOOL_HUNG : 0;
}

static int ip_link(struct tool_context *tool, int argc, char **argv)
{
	if (argc == 0 || matches(argv[0], "show") || matches(argv[0], "list"))
		return link_show(tool, argc ? argc - 1 : 0, argv + (argc ? 1 : 0));
	if (matches(argv[0], "set"))
		return link_set(tool, argc - 1, argv + 1);
	tool_printf(tool, 2, "Command \"%s\" is unknown, try \"ip link help\".\n", argv[0]);
	return 255;
}

int tool_ip(struct tool_context *tool, int argc, char **argv)
{
	if (argc < 2) {
		tool_printf(tool, 2, "Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n"
			    "where  OBJECT := { link }\n");
		return 255;
	}
	if (matches(argv[1], "link"))
		return ip_link(tool, argc - 2, argv + 2);
	tool_printf(tool, 2, "Object \"%s\" is unknown, try \"ip help\".\n", argv[1]);
	return 1;
}
