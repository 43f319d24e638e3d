/*
 * job.h - one rackbisect run as a LAVA job definition (YAML, LAVA v2).
 *
 * The job asks for a device of the board's type (and tags), boots it the
 * device type's way and, when it carries a build (struct lava_job_deploy),
 * puts the build on the device and boots it:
 *
 *   deploy, boot (ssh)   the device as it runs
 *   test rackbisect-deploy
 *                        fetches the kernel (and its modules tarball, unpacked
 *                        beside the installed modules and swapped in whole) by
 *                        URL from the coordinator's artifact directory, notes
 *                        the running kernel's boot_id, `kexec -l`s the build
 *                        with the run's marker on its command line, and hands
 *                        the device over (`kexec -e`) just after LAVA's test
 *                        runner has ended: the device goes down between two
 *                        of LAVA's actions, never under one
 *   boot (ssh)           LAVA logs in again, retrying while the device is down
 *   test rackbisect-W3   checks first that the build is what runs (a new
 *                        boot_id, the release, the marker in /proc/cmdline),
 *                        then the workload
 *
 * The deploy prints RACKBISECT-DEPLOY ok | failed: WHY; the check prints
 * RACKBISECT-BOOTED ok | waiting: ... (LAVA logged in before the old kernel
 * went down: the hand-over will cut this job, the lab's trouble, not the
 * build's) | failed: WHY (the build did not come up as itself).
 *
 * The workload script runs, unchanged, from an inline test definition: the script and drivers/workload/lib.sh are
 * written on the device from here-documents, the script runs with the
 * job's parameters (each one quoted: nothing from a job file reaches the
 * device's shell as syntax), and its KTAP output is
 *
 *   - printed between RACKBISECT-KTAP-BEGIN and RACKBISECT-KTAP-END
 *     (the end line carries the script's exit status), so the
 *     coordinator reads it back from the job's log and judges it exactly
 *     as an SSH run's;
 *   - reported to LAVA as test cases: `ok`/`not ok` lines as pass/fail
 *     (a `# SKIP` directive as skip), every `# metric NAME=VALUE UNIT` as a
 *     passing case metric-NAME with its measurement and units;
 *
 * then the kernel log is printed between RACKBISECT-DMESG-BEGIN and
 * RACKBISECT-DMESG-END. Emitted with libyaml, so every string is quoted
 * as YAML needs.
 */
#ifndef RB_LAVA_JOB_H
#define RB_LAVA_JOB_H

#include <stddef.h>

/* A build for the device to fetch and boot (the job carries none: NULL). */
struct lava_job_deploy {
	const char *image_url;		/* http(s):// or file:// */
	const char *modules_url;	/* NULL: none */
	const char *release;		/* what `uname -r` must say */
	const char *marker;		/* "rackbisect.run=42", on the command line */
	const char *command_line;	/* the job's words; may be NULL */
	const char *base_command_line;	/* the board's words; NULL: the running kernel's */
	const char *modules_dir;	/* on the device: "/lib/modules" */
	const char *work_dir;		/* on the device: "/var/tmp/rackbisect-run-42" */
	unsigned int boot_seconds;	/* the build's time to answer SSH after kexec -e */
};

struct lava_job_spec {
	const char *job_name;		/* "rackbisect run 42: W3 #1 on bbb1, 3d4918ec" */
	const char *device_type;
	char *const *tags;		/* NULL-terminated; NULL: none */
	const char *priority;		/* "medium", "40" */
	unsigned int job_timeout_seconds;
	unsigned int test_timeout_seconds;	/* the workload's own limit */
	const char *workload_name;	/* "W3": names the test definition */
	const char *script_name;	/* "w3-idle-transitions.sh" */
	const char *script_text;	/* the script */
	const char *library_text;	/* drivers/workload/lib.sh */
	char *const *args;		/* the script's words, NULL-terminated; may be NULL */
	const struct lava_job_deploy *deploy;	/* NULL: the device's own kernel */
};

/* Markers in the job's log; the coordinator cuts the output there. */
#define LAVA_KTAP_BEGIN "RACKBISECT-KTAP-BEGIN"
#define LAVA_KTAP_END "RACKBISECT-KTAP-END"
#define LAVA_DMESG_BEGIN "RACKBISECT-DMESG-BEGIN"
#define LAVA_DMESG_END "RACKBISECT-DMESG-END"
#define LAVA_DEPLOY "RACKBISECT-DEPLOY"
#define LAVA_BOOTED "RACKBISECT-BOOTED"

/*
 * The definition, malloc'd in *yaml_out. 0; -EINVAL with `error` saying why
 * (a field missing, a name LAVA would refuse, a text holding a marker line
 * of the here-documents); -ENOMEM.
 */
int lava_job_definition(const struct lava_job_spec *spec, char **yaml_out, char *error,
			size_t error_len);

#endif
