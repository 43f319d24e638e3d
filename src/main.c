/* main.c - rackbisect: argv -> a command function; nothing else. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli_commands.h"

static const char usage[] =
	"usage: rackbisect [--lab LAB] [--state DIR] [--tree DIR] [-v] [--json] COMMAND ...\n"
	"\n"
	"  lab up|down|status|trust         start, stop, show a lab; record its host keys\n"
	"  run JOB --commit REF [--boards SELECTOR] [--repeat N] [--junit FILE]\n"
	"                                   build REF, boot it on the job's boards, run the\n"
	"                                   workloads: exit 0 all PASS, 1 a FAIL or SKIP,\n"
	"                                   3 INFRA left after retries, 2 usage\n"
	"  test JOB [--commit REF]          for `git bisect run`: exit 0 good, 1 bad,\n"
	"                                   125 skip (build/boot failure), 128 lab trouble\n"
	"  power BOARD on|off|cycle         switch a board's power\n"
	"  console BOARD                    follow a board's console (Ctrl-C ends)\n"
	"  bisect JOB --good REF --bad REF [--symptom S] [--confidence C] [--revert-check]\n"
	"                                   find the commit that brought a (flaky) regression\n"
	"                                   on the lab's boards, with its probability: exit 1\n"
	"                                   culprit, 0 no regression, 3 lab trouble, 2 usage\n"
	"  bisect status|log|resume [ID]    where a bisection stands, its evidence; continue\n"
	"                                   one stopped by a crash without repeating a run\n"
	"  bisect --repo DIR --good REF --bad REF --run CMD [--jobs K]\n"
	"                                   flaky-test bisection with any command, git bisect\n"
	"                                   run's exit codes, K at once; says how sure it is\n"
	"  gate JOB --baseline REF --candidate REF [--mainline REF] [--bisect] [--released]\n"
	"                                   gate a stable release candidate: REGRESSION or\n"
	"                                   PASS at 99 %, the culprit in the queue, what the\n"
	"                                   stable rules allow, a reply to send: exit 0 PASS,\n"
	"                                   1 REGRESSION, 3 lab trouble, 2 usage\n"
	"  gate resume [ID]                 go on with a gate stopped by a crash, repeating\n"
	"                                   no finished run\n"
	"  nightly NIGHTLY.yaml             each tracked branch's head against its last good\n"
	"                                   night; new regressions bisected, known ones named\n"
	"  runs [--last N]                  the latest runs\n"
	"  show RUN                         one run: verdict, symptoms, metrics, files\n"
	"  report [RUN|gate [ID]|bisect [ID]|nightly [TREE/BRANCH]]\n"
	"         --format html|junit|kcidb|text --out PATH\n"
	"                                   a stored run, gate, bisection or the nights'\n"
	"                                   trend as one file: a page with plots, JUnit\n"
	"                                   XML, KCIDB JSON, or text\n"
	"\n"
	"LAB defaults to labs/virtual.yaml; the state (database, run logs, console\n"
	"captures) lives in --state DIR, default $XDG_STATE_HOME/rackbisect; kernel\n"
	"builds in its kernels/, or in $RACKBISECT_KERNEL_CACHE (one cache for several\n"
	"state directories). `rackbisect COMMAND --help` says more.\n";

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "lab", cli_lab }, { "run", cli_run }, { "test", cli_test }, { "power", cli_power },
	{ "console", cli_console }, { "runs", cli_runs }, { "show", cli_show },
	{ "bisect", cli_bisect }, { "gate", cli_gate }, { "nightly", cli_nightly },
	{ "report", cli_report },
};

/* The command word: the first argument that is neither an option nor the
 * value of a global option (`rackbisect --lab L run ...`). */
static int command_index(int argc, char **argv)
{
	static const char *const with_value[] = { "--lab", "--tree", "--state", "--junit" };
	int i;
	size_t v;

	for (i = 1; i < argc; i++) {
		bool takes_value = false;

		if (argv[i][0] != '-')
			return i;
		for (v = 0; v < sizeof(with_value) / sizeof(with_value[0]); v++)
			takes_value |= strcmp(argv[i], with_value[v]) == 0;
		i += takes_value;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int index = command_index(argc, argv);
	size_t c;

	/* a board, console or switch hanging up mid-write is an error code, not our death */
	signal(SIGPIPE, SIG_IGN);

	if (!index) {
		bool help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));

		fputs(usage, help ? stdout : stderr);
		return help ? 0 : 2;
	}
	for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		if (strcmp(argv[index], commands[c].name) == 0) {
			/* the command sees its word as argv[0] and every option, globals included */
			char *word = argv[index];

			memmove(&argv[index], &argv[index + 1], (size_t)(argc - index - 1) * sizeof(char *));
			argv[0] = word;
			return commands[c].run(argc - 1, argv);
		}
	}
	fprintf(stderr, "rackbisect: unknown command '%s'\n%s", argv[index], usage);
	return 2;
}
