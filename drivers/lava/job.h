/*
 * job.h - one rackbisect run as a LAVA job definition (YAML, LAVA v2).
 *
 * The job asks for a device of the board's type (and tags), boots it the
 * device type's way, and runs the workload script, unchanged, from an
 * inline test definition: the script and drivers/workload/lib.sh are
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
};

/* Markers in the job's log; the coordinator cuts the output there. */
#define LAVA_KTAP_BEGIN "RACKBISECT-KTAP-BEGIN"
#define LAVA_KTAP_END "RACKBISECT-KTAP-END"
#define LAVA_DMESG_BEGIN "RACKBISECT-DMESG-BEGIN"
#define LAVA_DMESG_END "RACKBISECT-DMESG-END"

/*
 * The definition, malloc'd in *yaml_out. 0; -EINVAL with `error` saying why
 * (a field missing, a name LAVA would refuse, a text holding a marker line
 * of the here-documents); -ENOMEM.
 */
int lava_job_definition(const struct lava_job_spec *spec, char **yaml_out, char *error,
			size_t error_len);

#endif
