/*
 * tool_iw.c - `iw` (5.19) against a 3.3-era kernel: the commands a
 * workload uses on wlan0, in iw's own output formats and exit codes
 * ("command failed: <strerror> (<-errno>)" exits with the errno's low byte).
 */
#include "virtual/sim/tools.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtual/sim/board.h"

#define IW_VERSION "5.19"
#define SIGNAL_DBM -42
#define BITRATE "54.0 MBit/s"
#define SCAN_TIMEOUT_US 10000000
#define CONNECT_TIMEOUT_US 60000000
#define SETTLE_TIMEOUT_US 1000000

/* ---- usage and errors ------------------------------------------------------- */

struct iw_command {
	const char *words;	/* after "dev <devname>" */
	const char *args;
	const char *help;
};

static const struct iw_command dev_commands[] = {
	{ "connect", "[-w] <SSID> [<freq in MHz>] [<bssid>] [auth open|shared] "
		     "[key 0:abcde d:1:6162636465] [mfp:req/opt/no]",
	  "Join the network with the given SSID (and frequency, BSSID).\n"
	  "With -w, wait for the connect to finish or fail." },
	{ "disconnect", "", "Disconnect from the current network." },
	{ "get power_save", "", "Retrieve power save state." },
	{ "info", "", "Show information for this interface." },
	{ "link", "", "Print information about the current link, if any." },
	{ "scan", "[-u] [freq <freq>*] [duration <dur>] [ies <hex as 00:11:..>] [meshid <meshid>] "
		  "[lowpri,flush,ap-force,duration-mandatory] [randomise[=<addr>/<mask>]] "
		  "[ssid <ssid>*|passive]",
	  "Scan on the given frequencies and probe for the given SSIDs\n"
	  "(or wildcard if not given) unless passive scanning is requested.\n"
	  "If -u is specified print unknown data in the scan results.\n"
	  "Specified (vendor) IEs must be well-formed." },
	{ "scan dump", "[-u]", "Dump the current scan results." },
	{ "set power_save", "<on|off>", "Set power save state to on or off." },
	{ "station dump", "[-v]", "List all stations known, e.g. the AP on a managed interface" },
	{ "station get", "<MAC address>", "Get information for a specific station." },
};

#define DEV_COMMAND_COUNT (sizeof(dev_commands) / sizeof(dev_commands[0]))

static void print_help_lines(struct tool_context *tool, const char *help, const char *indent)
{
	while (*help) {
		size_t len = strcspn(help, "\n");

		tool_printf(tool, 1, "%s%.*s\n", indent, (int)len, help);
		help += len + (help[len] == '\n');
	}
}

static void usage(struct tool_context *tool)
{
	size_t i;

	tool_printf(tool, 1, "Usage:\tiw [options] command\n"
		    "Options:\n"
		    "\t--debug\t\tenable netlink debugging\n"
		    "\t--version\tshow version (" IW_VERSION ")\n"
		    "Commands:\n"
		    "\tdev\n"
		    "\t\tList all network interfaces for wireless hardware.\n\n");
	for (i = 0; i < DEV_COMMAND_COUNT; i++) {
		tool_printf(tool, 1, "\tdev <devname> %s %s\n", dev_commands[i].words,
			    dev_commands[i].args);
		print_help_lines(tool, dev_commands[i].help, "\t\t");
		tool_printf(tool, 1, "\n");
	}
	tool_printf(tool, 1, "\nYou can omit the 'phy' or 'dev' if the identification is unique,\n"
		    "e.g. \"iw wlan0 info\" or \"iw phy0 info\". (Don't when scripting.)\n\n"
		    "Do NOT screenscrape this tool, we don't consider its output stable.\n\n");
}

/* iw's usage_cmd(): "Usage:\tiw [options] dev <devname> CMD ARGS" + help. */
static int command_usage(struct tool_context *tool, const char *words)
{
	size_t i;

	for (i = 0; i < DEV_COMMAND_COUNT; i++) {
		if (strcmp(dev_commands[i].words, words) != 0)
			continue;
		tool_printf(tool, 1, "Usage:\tiw [options] dev <devname> %s %s\n\n", words,
			    dev_commands[i].args);
		print_help_lines(tool, dev_commands[i].help, "");
		return 1;
	}
	usage(tool);
	return 1;
}

static int command_failed(struct tool_context *tool, int error)
{
	tool_printf(tool, 2, "command failed: %s (%d)\n", strerror(-error), error);
	return error & 0xff;
}

/* ---- formatting helpers ------------------------------------------------------- */

static void format_mac(char out[18], const unsigned char mac[6])
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
		 mac[4], mac[5]);
}

static int parse_mac(const char *text, unsigned char mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (strlen(text) != 17 || sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2],
					 &b[3], &b[4], &b[5], &tail) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = (unsigned char)b[i];
	return 0;
}

static int channel_of(int freq)
{
	if (freq == 2484)
		return 14;
	if (freq >= 2412 && freq < 2484)
		return (freq - 2407) / 5;
	return (freq - 5000) / 5;
}

/* ---- iw dev, info, link ----------------------------------------------------------- */

static void print_interface(struct tool_context *tool, const char *indent, int with_wiphy)
{
	struct sim_board *board = tool->board;
	char mac[18];

	format_mac(mac, board->mac_address);
	tool_printf(tool, 1, "%sInterface wlan0\n%s\tifindex 3\n%s\twdev 0x1\n%s\taddr %s\n",
		    indent, indent, indent, indent, mac);
	if (station_is_associated(&board->station))
		tool_printf(tool, 1, "%s\tssid %s\n", indent, board->ap.ssid);
	tool_printf(tool, 1, "%s\ttype managed\n", indent);
	if (with_wiphy)
		tool_printf(tool, 1, "%s\twiphy 0\n", indent);
}

static int iw_list_devices(struct tool_context *tool)
{
	tool_printf(tool, 1, "phy#0\n");
	print_interface(tool, "\t", 0);
	return 0;
}

static int iw_link(struct tool_context *tool)
{
	struct sim_board *board = tool->board;
	const struct station_peer_stats *peer = &board->station.peer;

	if (!station_is_associated(&board->station)) {
		tool_printf(tool, 1, "Not connected.\n");
		return 0;
	}
	tool_printf(tool, 1,
		    "Connected to %s (on wlan0)\n"
		    "\tSSID: %s\n"
		    "\tfreq: %d\n"
		    "\tRX: %llu bytes (%llu packets)\n"
		    "\tTX: %llu bytes (%llu packets)\n"
		    "\tsignal: %d dBm\n"
		    "\trx bitrate: " BITRATE "\n"
		    "\ttx bitrate: " BITRATE "\n"
		    "\n"
		    "\tbss flags:\tshort-slot-time\n"
		    "\tdtim period:\t%d\n"
		    "\tbeacon int:\t100\n",
		    board->ap.bssid_text, board->ap.ssid, board->ap.freq,
		    (unsigned long long)peer->rx_bytes, (unsigned long long)peer->rx_packets,
		    (unsigned long long)peer->tx_bytes, (unsigned long long)peer->tx_packets,
		    SIGNAL_DBM, board->knobs.dtim_period);
	return 0;
}

/* ---- station dump --------------------------------------------------------------------- */

static void print_station(struct tool_context *tool)
{
	struct sim_board *board = tool->board;
	const struct station_peer_stats *peer = &board->station.peer;

	tool_printf(tool, 1,
		    "Station %s (on wlan0)\n"
		    "\tinactive time:\t%llu ms\n"
		    "\trx bytes:\t%llu\n"
		    "\trx packets:\t%llu\n"
		    "\ttx bytes:\t%llu\n"
		    "\ttx packets:\t%llu\n"
		    "\ttx retries:\t%llu\n"
		    "\ttx failed:\t%llu\n"
		    "\tsignal:  \t%d dBm\n"
		    "\tsignal avg:\t%d dBm\n"
		    "\ttx bitrate:\t" BITRATE "\n"
		    "\trx bitrate:\t" BITRATE "\n"
		    "\tauthorized:\tyes\n"
		    "\tauthenticated:\tyes\n"
		    "\tpreamble:\tshort\n"
		    "\tWMM/WME:\tyes\n"
		    "\tMFP:\t\tno\n"
		    "\tTDLS peer:\tno\n"
		    "\tDTIM period:\t%d\n"
		    "\tbeacon interval:100\n"
		    "\tshort slot time:yes\n"
		    "\tconnected time:\t%llu seconds\n",
		    board->ap.bssid_text,
		    (unsigned long long)((board->now_us - peer->last_unicast_rx_us) / 1000),
		    (unsigned long long)peer->rx_bytes, (unsigned long long)peer->rx_packets,
		    (unsigned long long)peer->tx_bytes, (unsigned long long)peer->tx_packets,
		    (unsigned long long)peer->tx_retries, (unsigned long long)peer->tx_failed,
		    SIGNAL_DBM, SIGNAL_DBM, board->knobs.dtim_period,
		    (unsigned long long)((board->now_us - peer->associated_at_us) / 1000000));
}

static int iw_station(struct tool_context *tool, int argc, char **argv)
{
	struct sim_board *board = tool->board;
	unsigned char mac[6];

	if (argc >= 1 && strcmp(argv[0], "dump") == 0) {
		if (argc > 2 || (argc == 2 && strcmp(argv[1], "-v") != 0))
			return command_usage(tool, "station dump");
		if (station_is_associated(&board->station))
			print_station(tool);
		return 0;
	}
	if (argc >= 1 && strcmp(argv[0], "get") == 0) {
		if (argc != 2 || parse_mac(argv[1], mac) < 0)
			return command_usage(tool, "station get");
		if (!station_is_associated(&board->station) || memcmp(mac, board->ap.bssid, 6) != 0)
			return command_failed(tool, -ENOENT);
		print_station(tool);
		return 0;
	}
	usage(tool);
	return 1;
}

/* ---- power save ------------------------------------------------------------------------- */

static int iw_set(struct tool_context *tool, int argc, char **argv)
{
	if (argc >= 1 && strcmp(argv[0], "power_save") == 0) {
		if (argc != 2 || (strcmp(argv[1], "on") != 0 && strcmp(argv[1], "off") != 0))
			return command_usage(tool, "set power_save");
		station_set_power_save(tool->board, strcmp(argv[1], "on") == 0);
		return 0;
	}
	usage(tool);
	return 1;
}

static int iw_get(struct tool_context *tool, int argc, char **argv)
{
	if (argc == 1 && strcmp(argv[0], "power_save") == 0) {
		tool_printf(tool, 1, "Power save: %s\n", tool->board->station.power_save ? "on" : "off");
		return 0;
	}
	if (argc >= 1 && strcmp(argv[0], "power_save") == 0)
		return command_usage(tool, "get power_save");
	usage(tool);
	return 1;
}

/* ---- scan ----------------------------------------------------------------------------------- */

static int scan_over(struct sim_board *board, void *arg)
{
	(void)arg;
	return !board->station.scanning;
}

static void print_scan_results(struct tool_context *tool)
{
	struct sim_board *board = tool->board;
	uint64_t tsf = board->now_us;
	unsigned long long secs = tsf / 1000000;

	if (!board->station.bss_found)
		return;
	tool_printf(tool, 1,
		    "BSS %s(on wlan0)%s\n"
		    "\tTSF: %llu usec (%llud, %.2llu:%.2llu:%.2llu)\n"
		    "\tfreq: %d\n"
		    "\tbeacon interval: 100 TUs\n"
		    "\tcapability: ESS ShortSlotTime (0x0401)\n"
		    "\tsignal: %d.00 dBm\n"
		    "\tlast seen: %llu ms ago\n"
		    "\tSSID: %s\n"
		    "\tSupported rates: 1.0* 2.0* 5.5* 11.0* 6.0 9.0 12.0 18.0 \n"
		    "\tDS Parameter set: channel %d\n"
		    "\tERP: <no flags>\n"
		    "\tExtended supported rates: 24.0 36.0 48.0 54.0 \n",
		    board->ap.bssid_text,
		    station_is_associated(&board->station) ? " -- associated" : "",
		    (unsigned long long)tsf, secs / 86400, (secs / 3600) % 24, (secs / 60) % 60,
		    secs % 60, board->ap.freq, SIGNAL_DBM,
		    (unsigned long long)((board->now_us - board->station.bss_seen_us) / 1000),
		    board->ap.ssid, channel_of(board->ap.freq));
}

static int iw_scan(struct tool_context *tool, int argc, char **argv)
{
	struct sim_board *board = tool->board;
	int r;

	if (argc >= 1 && strcmp(argv[0], "dump") == 0) {
		print_scan_results(tool);
		return 0;
	}
	r = station_scan(board);
	if (r < 0)
		return command_failed(tool, r);
	r = tool_run(tool, board->now_us + SCAN_TIMEOUT_US, scan_over, NULL);
	if (r == SIM_TOOL_HUNG)
		return r;
	print_scan_results(tool);
	return 0;
}

/* ---- connect / disconnect ----------------------------------------------------------------------- */

static int connect_settled(struct sim_board *board, void *arg)
{
	(void)arg;
	return board->station.outcome != STATION_CONNECT_PENDING;
}

/* iw's connect argument order: SSID, then a number is a frequency, then a
 * MAC address is the BSSID; auth/key arguments are accepted and ignored. */
static int parse_connect(int argc, char **argv, int *wait,
			 struct station_connect_request *request)
{
	char *end;
	unsigned long freq;

	memset(request, 0, sizeof(*request));
	*wait = argc > 0 && strcmp(argv[0], "-w") == 0;
	argc -= *wait;
	argv += *wait;
	if (argc < 1 || strlen(argv[0]) > 32)
		return -EINVAL;
	snprintf(request->ssid, sizeof(request->ssid), "%s", argv[0]);
	argc--, argv++;
	if (argc > 0 && (freq = strtoul(argv[0], &end, 10), *end == '\0' && end != argv[0])) {
		request->freq = (int)freq;
		argc--, argv++;
	}
	if (argc > 0 && parse_mac(argv[0], request->bssid) == 0) {
		request->have_bssid = 1;
		argc--, argv++;
	}
	if (argc > 0 && strcmp(argv[0], "auth") != 0 && strcmp(argv[0], "key") != 0 &&
	    strcmp(argv[0], "keys") != 0 && strncmp(argv[0], "mfp:", 4) != 0)
		return -EINVAL;
	return 0;
}

static void print_connect_result(struct tool_context *tool)
{
	const struct sim_station *sta = &tool->board->station;

	if (sta->outcome == STATION_CONNECT_SUCCEEDED) {
		tool_printf(tool, 1, "wlan0 (phy #0): connected to %s\n", sta->target_bssid_text);
		return;
	}
	tool_printf(tool, 1, "wlan0 (phy #0): failed to connect%s%s, status: %d: "
		    "Unspecified failure\n", sta->outcome_has_bssid ? " to " : "",
		    sta->outcome_has_bssid ? sta->target_bssid_text : "", sta->outcome_status);
}

static int iw_connect(struct tool_context *tool, int argc, char **argv)
{
	struct sim_board *board = tool->board;
	struct station_connect_request request;
	int wait, r;

	if (parse_connect(argc, argv, &wait, &request) < 0)
		return command_usage(tool, "connect");
	r = station_connect(board, &request);
	if (r < 0)
		return command_failed(tool, r);
	if (!wait)
		return 0;
	r = tool_run(tool, board->now_us + CONNECT_TIMEOUT_US, connect_settled, NULL);
	if (r == SIM_TOOL_HUNG)
		return r;
	print_connect_result(tool);
	return 0;
}

static int disconnect_settled(struct sim_board *board, void *arg)
{
	(void)arg;
	return board->station.state != STATION_DISCONNECTING;
}

static int iw_disconnect(struct tool_context *tool, int argc)
{
	struct sim_board *board = tool->board;
	int r;

	if (argc != 0)
		return command_usage(tool, "disconnect");
	r = station_disconnect(board);
	if (r < 0)
		return command_failed(tool, r);
	/* the deauth leaves and mac80211 goes idle before the command returns */
	r = tool_run(tool, board->now_us + SETTLE_TIMEOUT_US, disconnect_settled, NULL);
	return r == SIM_TOOL_HUNG ? r : 0;
}

/* ---- dispatch ------------------------------------------------------------------------------------ */

static int iw_dev_command(struct tool_context *tool, int argc, char **argv)
{
	const char *command = argv[0];

	argc--, argv++;
	if (strcmp(command, "link") == 0)
		return argc ? command_usage(tool, "link") : iw_link(tool);
	if (strcmp(command, "info") == 0) {
		if (argc)
			return command_usage(tool, "info");
		print_interface(tool, "", 1);
		return 0;
	}
	if (strcmp(command, "station") == 0)
		return iw_station(tool, argc, argv);
	if (strcmp(command, "set") == 0)
		return iw_set(tool, argc, argv);
	if (strcmp(command, "get") == 0)
		return iw_get(tool, argc, argv);
	if (strcmp(command, "scan") == 0)
		return iw_scan(tool, argc, argv);
	if (strcmp(command, "connect") == 0)
		return iw_connect(tool, argc, argv);
	if (strcmp(command, "disconnect") == 0)
		return iw_disconnect(tool, argc);
	usage(tool);
	return 1;
}

int tool_iw(struct tool_context *tool, int argc, char **argv)
{
	argc--, argv++;
	while (argc > 0 && strcmp(argv[0], "--debug") == 0)
		argc--, argv++;
	if (argc == 0 || strcmp(argv[0], "help") == 0) {
		usage(tool);
		return 0;
	}
	if (strcmp(argv[0], "--version") == 0) {
		tool_printf(tool, 1, "iw version " IW_VERSION "\n");
		return 0;
	}
	if (strcmp(argv[0], "dev") != 0) {
		usage(tool);
		return 1;
	}
	if (argc == 1)
		return iw_list_devices(tool);
	if (strcmp(argv[1], "wlan0") != 0)
		return command_failed(tool, -ENODEV);
	if (argc == 2) {
		usage(tool);
		return 1;
	}
	return iw_dev_command(tool, argc - 2, argv + 2);
}
