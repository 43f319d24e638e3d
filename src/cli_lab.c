/*
 * cli_lab.c - `rackbisect lab up|down|status|trust LAB`. A virtual lab is
 * started and stopped by the virtual lab program (rackbisect-vlab); trust
 * records each board's current host key, which nothing else ever does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_commands.h"
#include "files.h"
#include "path.h"
#include "subprocess.h"

static const char lab_usage[] =
	"usage: rackbisect lab up|down|status|trust [LAB] [--state DIR] [--yes]\n"
	"\n"
	"  up      start a virtual lab's boards (sshd hosts, consoles, power) and\n"
	"          record the host keys it generated in the lab's known_hosts\n"
	"  down    stop them; no process of the lab is left\n"
	"  status  each board's state\n"
	"  trust   show each board's current host key fingerprints, ask, then record\n"
	"          them in the board's known_hosts (its transport's known_hosts:, else\n"
	"          the lab's): after a board was reinstalled, a changed key is refused\n"
	"          until then. Compare them with the board's own first (on its console:\n"
	"          ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub). --yes records\n"
	"          without asking; without a terminal to ask on, --yes is needed\n"
	"LAB is a lab file (default labs/virtual.yaml, or --lab).\n";

static int delegate_to_vlab(const char *action, const struct cli_globals *globals)
{
	char vlab[PATH_MAX];
	char *argv[6] = { vlab, (char *)action, (char *)globals->lab_path, NULL, NULL, NULL };

	if (cli_vlab_program(vlab, sizeof(vlab))) {
		cli_error("cannot find rackbisect-vlab beside this program (run make)");
		return CLI_EXIT_USAGE;
	}
	if (globals->state) {
		argv[3] = "--state";
		argv[4] = (char *)globals->state;
	}
	return cli_spawn_wait(argv);
}

/* ---- trust ------------------------------------------------------------------------- */

static int fingerprints(const char *keys_file, char **text)
{
	char *argv[] = { "ssh-keygen", "-l", "-f", (char *)keys_file, NULL };

	return subprocess_run(argv, NULL, text);
}

static int forget_old_keys(const char *known_hosts, const char *name)
{
	char *argv[] = { "ssh-keygen", "-R", (char *)name, "-f", (char *)known_hosts, NULL };
	char old[PATH_MAX];
	int rc;

	if (access(known_hosts, F_OK) != 0)
		return 0;
	rc = subprocess_run(argv, NULL, NULL);
	if (path_format(old, sizeof(old), "%s.old", known_hosts) == 0)
		unlink(old);
	return rc;
}

static int append_keys(const char *known_hosts, const char *keys)
{
	FILE *file = fopen(known_hosts, "a");

	if (!file)
		return -errno;
	fputs(keys, file);
	return fclose(file) == 0 ? 0 : -errno;
}

/*
 * The board's host keys, one key type at a time: ssh-keyscan asks for every
 * type at once, over as many connections, and a small SSH server (dropbear
 * allows 5 unauthenticated connections per address; behind a NAT or a port
 * forward every scan comes from one) may drop them all. NULL: no key.
 */
static char *scan_host_keys(const struct lab_board *board)
{
	static const char *const types[] = { "ed25519", "ecdsa", "rsa" };
	char port[16], type[16];
	char *scan_argv[] = { "ssh-keyscan", "-T", "10", "-t", type, "-p", port, board->host, NULL };
	char *keys = NULL, *more = NULL, *joined;
	size_t i;

	snprintf(port, sizeof(port), "%u", board->port);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(type, sizeof(type), "%s", types[i]);
		if (subprocess_run(scan_argv, NULL, &more) != 0 || !more || !*more) {
			free(more);
			more = NULL;
			continue;
		}
		if (asprintf(&joined, "%s%s", keys ? keys : "", more) < 0)
			joined = NULL;
		free(keys);
		free(more);
		more = NULL;
		keys = joined;
	}
	return keys;
}

/* What a scan found for one board: its keys, and where they are to go. */
struct scanned_board {
	char name[300];			/* as known_hosts names it: host or [host]:port */
	char known_hosts[PATH_MAX];
	char *keys;			/* NULL: none found */
};

static int scan_board(const struct lab *lab, const struct lab_board *board,
		      const struct lab_state *state, struct scanned_board *scanned)
{
	char keys_file[PATH_MAX];
	char *prints = NULL;

	snprintf(scanned->name, sizeof(scanned->name), board->port == 22 ? "%s" : "[%s]:%u",
		 board->host, board->port);
	/* the file the board's own SSH sessions consult, so that what is
	 * recorded is what is checked */
	if (board->known_hosts_file
	    ? lab_path(lab, board->known_hosts_file, scanned->known_hosts,
		       sizeof(scanned->known_hosts))
	    : path_format(scanned->known_hosts, sizeof(scanned->known_hosts), "%s",
			  state->known_hosts))
		return -ENAMETOOLONG;
	scanned->keys = scan_host_keys(board);
	if (!scanned->keys) {
		printf("%s: %s: no host key (is the board up?)\n", board->name, scanned->name);
		return -EHOSTUNREACH;
	}
	if (path_format(keys_file, sizeof(keys_file), "%s/trust-%s.keys", state->dir, board->name) ||
	    files_write_atomic(keys_file, scanned->keys) || fingerprints(keys_file, &prints) != 0) {
		unlink(keys_file);
		return -EIO;
	}
	unlink(keys_file);
	printf("%s: %s, for %s\n%s", board->name, scanned->name, scanned->known_hosts, prints);
	free(prints);
	return 0;
}

static int record_board(const struct scanned_board *scanned)
{
	int rc = forget_old_keys(scanned->known_hosts, scanned->name);

	return rc ? rc : append_keys(scanned->known_hosts, scanned->keys);
}

/* Asks on the terminal; true for yes. Without a terminal, says how to go on. */
static bool confirmed(void)
{
	char answer[16];

	fflush(stdout);	/* the fingerprints first, then why nothing happened */
	if (!isatty(STDIN_FILENO)) {
		cli_error("nothing recorded: compare the fingerprints above with each board's "
			  "own (on its console: ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub), "
			  "then run again with --yes");
		return false;
	}
	printf("Are these the boards' own keys? Record them [y/N]? ");
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
		printf("nothing recorded\n");
		return false;
	}
	return true;
}

static int trust_lab(const struct lab *lab, const struct cli_globals *globals, bool yes)
{
	struct lab_state state;
	struct scanned_board *scanned;
	char database[PATH_MAX];
	size_t i, failed = 0, recorded = 0;
	int rc = 0;

	if (cli_state(lab, globals, &state, database, sizeof(database)) || path_make_dirs(state.dir))
		return CLI_EXIT_INFRA;
	if (!(scanned = calloc(lab->board_count ? lab->board_count : 1, sizeof(*scanned))))
		return CLI_EXIT_INFRA;
	for (i = 0; i < lab->board_count; i++)
		failed += scan_board(lab, &lab->boards[i], &state, &scanned[i]) != 0;
	if (failed < lab->board_count && !yes && !confirmed())
		rc = CLI_EXIT_USAGE;
	for (i = 0; i < lab->board_count; i++) {
		if (!rc && scanned[i].keys) {
			if (record_board(&scanned[i]) == 0)
				recorded++;
			else
				failed++;
		}
		free(scanned[i].keys);
	}
	free(scanned);
	if (rc)
		return rc;
	printf("recorded the keys of %zu board%s%s\n", recorded, recorded == 1 ? "" : "s",
	       failed ? " (some boards had no key)" : "");
	return failed ? CLI_EXIT_INFRA : 0;
}

int cli_lab(int argc, char **argv)
{
	struct cli_globals globals = { 0 };
	const char *positional[2];
	bool yes = false;
	const struct cli_option options[] = {
		{ .name = "yes", .flag = &yes },
		{ .name = NULL },
	};
	struct lab *lab;
	size_t count;
	int rc = cli_parse(argc, argv, options, &globals, positional, 2, &count, lab_usage);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (count < 1) {
		fprintf(stderr, "rackbisect: lab needs up, down, status or trust\n%s", lab_usage);
		return CLI_EXIT_USAGE;
	}
	if (count == 2)
		globals.lab_option = positional[1];
	if (!(lab = cli_load_lab(&globals)))
		return CLI_EXIT_USAGE;
	if (strcmp(positional[0], "trust") == 0 && strcmp(lab->type, "lava") == 0) {
		cli_error("lab %s is a LAVA lab: LAVA reaches its devices, and its device "
			  "dictionaries hold their host keys; nothing to trust here", lab->name);
		rc = CLI_EXIT_USAGE;
	} else if (strcmp(positional[0], "trust") == 0) {
		rc = trust_lab(lab, &globals, yes);
	} else if (strcmp(positional[0], "up") && strcmp(positional[0], "down") &&
		   strcmp(positional[0], "status")) {
		fprintf(stderr, "rackbisect: unknown lab action '%s'\n%s", positional[0], lab_usage);
		rc = CLI_EXIT_USAGE;
	} else if (strcmp(lab->type, "virtual") != 0) {
		cli_error("lab %s is of type %s: its boards are real machines, started and stopped "
			  "by their owners; `rackbisect lab up` starts virtual labs only", lab->name,
			  lab->type);
		rc = CLI_EXIT_USAGE;
	} else {
		rc = delegate_to_vlab(positional[0], &globals);
	}
	lab_free(lab);
	return rc;
}
