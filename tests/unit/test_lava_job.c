/* A run as a LAVA job definition: the YAML read back with libyaml, and its
 * test step run for real in sh -e (as LAVA runs steps) with a recording
 * lava-test-case, so what the device would do is seen, not guessed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "files.h"
#include "lava/job.h"
#include "path.h"
#include "subprocess.h"

static char *const w3_args[] = { "--cycles", "3", "--note", "it's $(touch pwned); `x`", NULL };
static char *const tags[] = { "ar9285", "shelf1", NULL };

/* A workload that prints KTAP with a pass, a fail, a skip and metrics, and
 * its last argument as a diagnostic (to see it arrive whole). */
static const char fake_workload[] =
	"#!/bin/sh\n"
	". \"$(dirname \"$0\")/lib.sh\"\n"
	"echo 'KTAP version 1'\n"
	"echo '1..3'\n"
	"echo 'ok 1 - cycle 1'\n"
	"echo 'not ok 2 - cycle 2 reconnect'\n"
	"echo 'ok 3 - cycle 3 # SKIP no AP'\n"
	"echo '# metric ping_loss_total=0.00 %'\n"
	"echo '# metric power_avg=114.2 mW'\n"
	"for last; do :; done; echo \"# arg: $last\"\n"
	"echo \"# lib: $rb_lib_loaded\"\n"
	"echo 'a warning' >&2\n"
	"exit 1\n";

static const struct lava_job_spec base_spec = {
	.job_name = "rackbisect run 42: W3 #1 on bbb1, 3d4918ec",
	.device_type = "beaglebone-black", .tags = tags, .priority = "medium",
	.job_timeout_seconds = 1800, .test_timeout_seconds = 900,
	.workload_name = "W3", .script_name = "w3-idle-transitions.sh",
	.script_text = fake_workload, .library_text = "rb_lib_loaded=yes\n", .args = w3_args,
};

/* ---- reading the YAML back ---------------------------------------------------------------- */

static yaml_node_t *get(yaml_document_t *document, yaml_node_t *node, const char *key)
{
	if (!node || node->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(document, p->key);

		if (k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, key) == 0)
			return yaml_document_get_node(document, p->value);
	}
	return NULL;
}

static yaml_node_t *item(yaml_document_t *document, yaml_node_t *node, size_t index)
{
	if (!node || node->type != YAML_SEQUENCE_NODE ||
	    node->data.sequence.items.start + index >= node->data.sequence.items.top)
		return NULL;
	return yaml_document_get_node(document, node->data.sequence.items.start[index]);
}

static const char *text_of(yaml_node_t *node)
{
	assert_non_null(node);
	assert_int_equal(node->type, YAML_SCALAR_NODE);
	return (const char *)node->data.scalar.value;
}

static void load(const char *yaml, yaml_document_t *document)
{
	yaml_parser_t parser;

	assert_true(yaml_parser_initialize(&parser));
	yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, strlen(yaml));
	if (!yaml_parser_load(&parser, document))
		fail_msg("the definition is not YAML: %s", parser.problem);
	yaml_parser_delete(&parser);
}

static char *definition(const struct lava_job_spec *spec)
{
	char error[512], *yaml = NULL;

	if (lava_job_definition(spec, &yaml, error, sizeof(error)) != 0)
		fail_msg("%s", error);
	return yaml;
}

/* The step of the test that is action `index` (the caller frees it). */
static char *step_of(const char *yaml, size_t index)
{
	yaml_document_t document;
	yaml_node_t *root, *test, *definition_node, *steps;
	char *step;

	load(yaml, &document);
	root = yaml_document_get_root_node(&document);
	test = get(&document, item(&document, get(&document, root, "actions"), index), "test");
	definition_node = item(&document, get(&document, test, "definitions"), 0);
	steps = get(&document, get(&document, get(&document, definition_node, "repository"), "run"),
		    "steps");
	step = strdup(text_of(item(&document, steps, 0)));
	yaml_document_delete(&document);
	return step;
}

/* The test step of a job that carries no build (the caller frees it). */
static char *test_step(const char *yaml)
{
	return step_of(yaml, 2);
}

/* Tags that plain YAML would read as null, a bool or a number are quoted, so
 * LAVA gets the strings; a plain word stays plain (issue 31: "null" read
 * back as no tag). */
static void test_tags_read_back_as_the_strings_given(void **state)
{
	static char *const odd_tags[] = { "null", "yes", "1.5", "2026-12-08", "~", "shelf1", NULL };
	struct lava_job_spec spec = base_spec;
	yaml_document_t document;
	yaml_node_t *list;
	char *yaml;
	size_t i;

	(void)state;
	spec.tags = odd_tags;
	yaml = definition(&spec);
	load(yaml, &document);
	list = get(&document, yaml_document_get_root_node(&document), "tags");
	for (i = 0; odd_tags[i]; i++) {
		yaml_node_t *tag = item(&document, list, i);

		assert_string_equal(text_of(tag), odd_tags[i]);
		if (odd_tags[i + 1])
			assert_int_not_equal(tag->data.scalar.style, YAML_PLAIN_SCALAR_STYLE);
		else
			assert_int_equal(tag->data.scalar.style, YAML_PLAIN_SCALAR_STYLE);
	}
	yaml_document_delete(&document);
	free(yaml);
}

static void test_definition_asks_for_the_device_and_runs_the_workload(void **state)
{
	char *yaml = definition(&base_spec);
	yaml_document_t document;
	yaml_node_t *root, *actions, *test, *definition_node, *metadata;

	(void)state;
	load(yaml, &document);
	root = yaml_document_get_root_node(&document);
	assert_string_equal(text_of(get(&document, root, "job_name")), base_spec.job_name);
	assert_string_equal(text_of(get(&document, root, "device_type")), "beaglebone-black");
	assert_string_equal(text_of(item(&document, get(&document, root, "tags"), 1)), "shelf1");
	assert_string_equal(text_of(get(&document, root, "priority")), "medium");
	assert_string_equal(text_of(get(&document, get(&document, get(&document, root, "timeouts"),
							"job"), "seconds")), "1800");
	actions = get(&document, root, "actions");
	assert_string_equal(text_of(get(&document, get(&document, item(&document, actions, 0),
							"deploy"), "to")), "ssh");
	assert_string_equal(text_of(get(&document, get(&document, item(&document, actions, 1),
							"boot"), "method")), "ssh");
	test = get(&document, item(&document, actions, 2), "test");
	assert_string_equal(text_of(get(&document, get(&document, test, "timeout"), "seconds")),
			    "900");
	definition_node = item(&document, get(&document, test, "definitions"), 0);
	assert_string_equal(text_of(get(&document, definition_node, "from")), "inline");
	assert_string_equal(text_of(get(&document, definition_node, "name")), "rackbisect-W3");
	metadata = get(&document, get(&document, definition_node, "repository"), "metadata");
	assert_string_equal(text_of(get(&document, metadata, "format")),
			    "Lava-Test Test Definition 1.0");
	yaml_document_delete(&document);
	free(yaml);
}

/* ---- the step, run ------------------------------------------------------------------------ */

struct device {
	char dir[64];
	char bin[128];
	char cases[128];
	char output[PATH_MAX];
};

/* A device: a lava-test-case that records its words, a dmesg that says one line. */
static void make_device(struct device *device)
{
	char path[PATH_MAX];

	strcpy(device->dir, "/tmp/rackbisect-test-lava-job-XXXXXX");
	assert_non_null(mkdtemp(device->dir));
	snprintf(device->bin, sizeof(device->bin), "%s/bin", device->dir);
	snprintf(device->cases, sizeof(device->cases), "%s/cases", device->dir);
	assert_int_equal(path_make_dirs(device->bin), 0);
	snprintf(path, sizeof(path), "%s/lava-test-case", device->bin);
	assert_int_equal(files_write_atomic(path, "#!/bin/sh\nprintf '%s|' \"$@\" >>\"$CASES\"\n"
					    "echo >>\"$CASES\"\n"), 0);
	assert_int_equal(chmod(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dmesg", device->bin);
	assert_int_equal(files_write_atomic(path, "#!/bin/sh\necho '[ 1.0] wlan0: associated'\n"), 0);
	assert_int_equal(chmod(path, 0755), 0);
}

/* Runs the step as LAVA would (sh -e), in the device's directory. */
static int run_step(struct device *device, const char *step, char **output)
{
	char path_variable[PATH_MAX + 16], tmpdir[128], cases[160];
	char *const environment[] = { path_variable, tmpdir, cases, NULL };
	char *argv[] = { "sh", "-e", "-c", (char *)step, NULL };
	struct subprocess_options options = { .cwd = device->dir, .environment = environment };

	snprintf(path_variable, sizeof(path_variable), "PATH=%s:%s", device->bin, getenv("PATH"));
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", device->dir);
	snprintf(cases, sizeof(cases), "CASES=%s", device->cases);
	return subprocess_run(argv, &options, output);
}

static void test_step_prints_ktap_and_reports_cases(void **state)
{
	struct device device;
	char *yaml = definition(&base_spec), *step = test_step(yaml), *output = NULL, *cases;
	char pwned[PATH_MAX];

	(void)state;
	make_device(&device);
	assert_int_equal(run_step(&device, step, &output), 0);	/* set -e: nothing failed */
	assert_non_null(strstr(output, LAVA_KTAP_BEGIN "\nKTAP version 1\n1..3\nok 1 - cycle 1\n"));
	assert_non_null(strstr(output, "# metric power_avg=114.2 mW\n"));
	/* the word arrived whole, and nothing in it ran */
	assert_non_null(strstr(output, "# arg: it's $(touch pwned); `x`\n"));
	snprintf(pwned, sizeof(pwned), "%s/pwned", device.dir);
	assert_int_equal(access(pwned, F_OK), -1);
	assert_non_null(strstr(output, "# lib: yes\n"));	/* lib.sh beside the script */
	assert_non_null(strstr(output, LAVA_KTAP_END " status=1\n# stderr: a warning\n"));
	assert_non_null(strstr(output, LAVA_DMESG_BEGIN "\n[ 1.0] wlan0: associated\n"
				       LAVA_DMESG_END "\n"));
	cases = files_read_text(device.cases);
	assert_non_null(cases);
	assert_string_equal(cases, "1-cycle_1|--result|pass|\n"
				   "2-cycle_2_reconnect|--result|fail|\n"
				   "3-cycle_3|--result|skip|\n"
				   "metric-ping_loss_total|--result|pass|--measurement|0.00|--units|%|\n"
				   "metric-power_avg|--result|pass|--measurement|114.2|--units|mW|\n");
	free(cases);
	free(output);
	free(step);
	free(yaml);
	files_remove_tree(device.dir);
}

/* The real workload scripts fit: W1-W4 and lib.sh from drivers/workload. */
static void test_real_workloads_make_definitions(void **state)
{
	static const char *const scripts[] = { "w1-associated-idle.sh", "w2-associated-traffic.sh",
					       "w3-idle-transitions.sh", "w4-ifdown-up.sh" };
	char *library = files_read_text("drivers/workload/lib.sh");

	(void)state;
	assert_non_null(library);
	for (size_t i = 0; i < 4; i++) {
		struct lava_job_spec spec = base_spec;
		char path[128], *script, *yaml, *step;

		snprintf(path, sizeof(path), "drivers/workload/%s", scripts[i]);
		script = files_read_text(path);
		assert_non_null(script);
		spec.script_name = scripts[i];
		spec.script_text = script;
		spec.library_text = library;
		yaml = definition(&spec);
		step = test_step(yaml);
		assert_non_null(strstr(step, script));		/* verbatim, through YAML */
		assert_non_null(strstr(step, library));
		free(step);
		free(yaml);
		free(script);
	}
	free(library);
}

static void test_refused_specs_say_why(void **state)
{
	struct lava_job_spec spec = base_spec;
	char error[512], *yaml = NULL;

	(void)state;
	spec.script_text = "echo x\nRACKBISECT_SCRIPT_EOF\necho y\n";
	assert_int_equal(lava_job_definition(&spec, &yaml, error, sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "ends its here-document"));
	spec = base_spec;
	spec.script_name = "../w3.sh";
	assert_int_equal(lava_job_definition(&spec, &yaml, error, sizeof(error)), -EINVAL);
	assert_non_null(strstr(error, "plain names"));
	spec = base_spec;
	spec.device_type = NULL;
	assert_int_equal(lava_job_definition(&spec, &yaml, error, sizeof(error)), -EINVAL);
	assert_null(yaml);
	{
		struct lava_job_deploy deploy = { .image_url = "http://h/vmlinuz", .release = "3.3",
						  .marker = "rackbisect.run=1 x",
						  .modules_dir = "/lib/modules", .work_dir = "/var/tmp/r",
						  .boot_seconds = 60 };

		spec = base_spec;
		spec.deploy = &deploy;
		assert_int_equal(lava_job_definition(&spec, &yaml, error, sizeof(error)), -EINVAL);
		assert_non_null(strstr(error, "must be one word"));
		deploy.marker = "rackbisect.run=1";
		deploy.image_url = NULL;
		assert_int_equal(lava_job_definition(&spec, &yaml, error, sizeof(error)), -EINVAL);
		assert_non_null(strstr(error, "needs its image URL"));
		assert_null(yaml);
	}
}

/* ---- a job that carries a build --------------------------------------------------------- */

/* A device's tools for the deploy and the check: kexec and setsid record
 * their words (nothing is handed over, nothing backgrounded), uname says
 * $FAKE_RELEASE, sleep returns at once. */
static void add_deploy_tools(struct device *device)
{
	static const struct {
		const char *name, *text;
	} tools[] = {
		{ "kexec", "#!/bin/sh\nprintf '%s|' \"$@\" >>\"$CASES.kexec\"\n" },
		{ "setsid", "#!/bin/sh\nprintf '%s|' \"$@\" >>\"$CASES.setsid\"\n" },
		{ "uname", "#!/bin/sh\necho \"$FAKE_RELEASE\"\n" },
		{ "sleep", "#!/bin/sh\necho \"slept $1\" >>\"$CASES.sleep\"\n" },
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", device->bin, tools[i].name);
		assert_int_equal(files_write_atomic(path, tools[i].text), 0);
		assert_int_equal(chmod(path, 0755), 0);
	}
}

struct build_served {
	char image_url[256], modules_url[256];
	char modules_dir[256], work_dir[256];
	struct lava_job_deploy deploy;
};

/* The build served by file:// URLs (curl fetches them as it would http://),
 * its modules a real tarball whose top directory is the release. */
static void serve_build(struct device *device, struct build_served *served)
{
	char dir[128], command[1024];

	snprintf(dir, sizeof(dir), "%s/served", device->dir);
	assert_int_equal(path_make_dirs(dir), 0);
	snprintf(command, sizeof(command), "%s/vmlinuz", dir);
	assert_int_equal(files_write_atomic(command, "a kernel image\n"), 0);
	snprintf(command, sizeof(command), "mkdir -p '%s/tree/3.3.1-rc1/kernel' && "
		 "echo ath9k >'%s/tree/3.3.1-rc1/kernel/ath9k.ko' && "
		 "tar -C '%s/tree' -czf '%s/modules.tar.gz' 3.3.1-rc1", dir, dir, dir, dir);
	assert_int_equal(system(command), 0);
	snprintf(served->image_url, sizeof(served->image_url), "file://%s/vmlinuz", dir);
	snprintf(served->modules_url, sizeof(served->modules_url), "file://%s/modules.tar.gz", dir);
	snprintf(served->modules_dir, sizeof(served->modules_dir), "%s/lib-modules", device->dir);
	snprintf(served->work_dir, sizeof(served->work_dir), "%s/rackbisect-run-42", device->dir);
	assert_int_equal(path_make_dirs(served->modules_dir), 0);
	served->deploy = (struct lava_job_deploy){
		.image_url = served->image_url, .modules_url = served->modules_url,
		.release = "3.3.1-rc1", .marker = "rackbisect.run=42",
		.command_line = "quiet ath9k.debug=0x400",
		.modules_dir = served->modules_dir, .work_dir = served->work_dir,
		.boot_seconds = 30,
	};
}

static void assert_action(yaml_document_t *document, yaml_node_t *actions, size_t index,
			  const char *kind, const char *key, const char *value)
{
	yaml_node_t *action = get(document, item(document, actions, index), kind);

	if (!action)
		fail_msg("action %zu is not %s", index, kind);
	assert_string_equal(text_of(get(document, action, key)), value);
}

/* deploy, boot, test rackbisect-deploy, boot into the build (a namespace of
 * its own: a new connection), then the workload over that connection. */
static void test_a_build_is_deployed_then_booted(void **state)
{
	struct device device;
	struct build_served served;
	struct lava_job_spec spec = base_spec;
	yaml_document_t document;
	yaml_node_t *root, *actions, *boot;
	char *yaml;

	(void)state;
	make_device(&device);
	serve_build(&device, &served);
	spec.deploy = &served.deploy;
	yaml = definition(&spec);
	load(yaml, &document);
	root = yaml_document_get_root_node(&document);
	actions = get(&document, root, "actions");
	assert_int_equal(actions->data.sequence.items.top - actions->data.sequence.items.start, 5);
	assert_action(&document, actions, 0, "deploy", "namespace", "install");
	assert_action(&document, actions, 1, "boot", "method", "ssh");
	assert_action(&document, actions, 2, "test", "namespace", "install");
	assert_action(&document, actions, 3, "boot", "namespace", "build");
	assert_action(&document, actions, 3, "boot", "method", "minimal");
	assert_action(&document, actions, 3, "boot", "reset", "false");
	/* 6 * 6 >= 30 s of boot time, and one more */
	assert_action(&document, actions, 3, "boot", "failure_retry", "7");
	boot = get(&document, item(&document, actions, 3), "boot");
	assert_string_equal(text_of(get(&document, get(&document, boot, "parameters"),
					"kernel-start-message")), "");
	assert_action(&document, actions, 4, "test", "namespace", "install");
	assert_action(&document, actions, 4, "test", "connection-namespace", "build");
	yaml_document_delete(&document);
	free(yaml);
	files_remove_tree(device.dir);
}

static char *read_recorded(const struct device *device, const char *suffix)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", device->cases, suffix);
	return files_read_text(path);
}

/* The deploy step, run: fetched, modules swapped in, boot_id noted, kexec
 * -l with the job's words and the marker, the hand-over started. */
static void test_deploy_step_puts_the_build_on_the_device(void **state)
{
	struct device device;
	struct build_served served;
	struct lava_job_spec spec = base_spec;
	char *yaml, *step, *output = NULL, *recorded, path[PATH_MAX], expected[PATH_MAX * 2];

	(void)state;
	make_device(&device);
	add_deploy_tools(&device);
	serve_build(&device, &served);
	spec.deploy = &served.deploy;
	yaml = definition(&spec);
	step = step_of(yaml, 2);
	/* the hand-over goes to the background: the shell waits for it here */
	step = realloc(step, strlen(step) + sizeof("\nwait\n"));
	assert_non_null(step);
	strcat(step, "\nwait\n");
	assert_int_equal(run_step(&device, step, &output), 0);
	assert_non_null(strstr(output, LAVA_DEPLOY " ok: 3.3.1-rc1 loaded"));
	snprintf(path, sizeof(path), "%s/3.3.1-rc1/kernel/ath9k.ko", served.modules_dir);
	assert_int_equal(access(path, R_OK), 0);
	snprintf(path, sizeof(path), "%s/vmlinuz", served.work_dir);
	assert_int_equal(access(path, R_OK), 0);
	snprintf(path, sizeof(path), "%s/boot_id", served.work_dir);
	assert_int_equal(access(path, R_OK), 0);
	recorded = read_recorded(&device, ".kexec");
	assert_non_null(recorded);
	snprintf(expected, sizeof(expected), "-l|%s/vmlinuz|", served.work_dir);
	assert_non_null(strstr(recorded, expected));
	/* the running kernel's words, then the job's, then the marker */
	assert_non_null(strstr(recorded, " quiet ath9k.debug=0x400 rackbisect.run=42|"));
	free(recorded);
	recorded = read_recorded(&device, ".setsid");
	assert_non_null(recorded);
	assert_non_null(strstr(recorded, "exec kexec -e|sh|"));
	free(recorded);
	recorded = files_read_text(device.cases);
	assert_string_equal(recorded, "rackbisect-deploy|--result|pass|\n");
	free(recorded);
	free(output);
	free(step);
	free(yaml);
	files_remove_tree(device.dir);
}

/* A build that cannot be fetched: said, and reported as a failed case;
 * the step itself never fails (LAVA runs it under set -e). */
static void test_deploy_step_says_what_failed(void **state)
{
	struct device device;
	struct build_served served;
	struct lava_job_spec spec = base_spec;
	char *yaml, *step, *output = NULL, *recorded;

	(void)state;
	make_device(&device);
	add_deploy_tools(&device);
	serve_build(&device, &served);
	strcat(served.image_url, ".missing");
	spec.deploy = &served.deploy;
	yaml = definition(&spec);
	step = step_of(yaml, 2);
	assert_int_equal(run_step(&device, step, &output), 0);
	assert_non_null(strstr(output, LAVA_DEPLOY " failed: fetching file://"));
	assert_null(read_recorded(&device, ".kexec"));		/* nothing loaded */
	recorded = files_read_text(device.cases);
	assert_string_equal(recorded, "rackbisect-deploy|--result|fail|\n");
	free(recorded);
	free(output);
	free(step);
	free(yaml);
	files_remove_tree(device.dir);
}

/* Runs the workload's step with uname saying `release` and work/boot_id
 * holding `boot_id` ("" : the running kernel's). */
static char *run_checked_step(struct device *device, struct build_served *served,
			      const char *release, const char *boot_id)
{
	struct lava_job_spec spec = base_spec;
	char *yaml, *step, *output = NULL, path[PATH_MAX];
	char fake_release[64];

	snprintf(fake_release, sizeof(fake_release), "FAKE_RELEASE=%s", release);
	putenv(fake_release);
	assert_int_equal(path_make_dirs(served->work_dir), 0);
	snprintf(path, sizeof(path), "%s/boot_id", served->work_dir);
	if (*boot_id)
		assert_int_equal(files_write_atomic(path, boot_id), 0);
	else
		assert_int_equal(files_copy("/proc/sys/kernel/random/boot_id", path, 0644), 0);
	spec.deploy = &served->deploy;
	yaml = definition(&spec);
	step = step_of(yaml, 4);
	assert_int_equal(run_step(device, step, &output), 0);
	unsetenv("FAKE_RELEASE");
	free(step);
	free(yaml);
	return output;
}

/* Before the workload: the old kernel still there (LAVA was early), another
 * release, the release without this run's marker: each said, and no
 * workload runs on the wrong kernel. */
static void test_the_workload_runs_only_on_the_build(void **state)
{
	struct device device;
	struct build_served served;
	char *output, *slept;

	(void)state;
	make_device(&device);
	add_deploy_tools(&device);
	serve_build(&device, &served);
	output = run_checked_step(&device, &served, "3.3.1-rc1", "");
	assert_non_null(strstr(output, LAVA_BOOTED " waiting: "));
	assert_non_null(strstr(output, LAVA_BOOTED " failed: kexec -e did not replace the "
				       "running kernel within 30 s"));
	assert_null(strstr(output, LAVA_KTAP_BEGIN));
	assert_non_null(strstr(output, LAVA_DMESG_BEGIN));	/* the kernel log, still */
	slept = read_recorded(&device, ".sleep");
	assert_non_null(slept);
	assert_string_equal(slept, "slept 30\n");		/* the whole boot time */
	free(slept);
	free(output);
	output = run_checked_step(&device, &served, "3.3.0-lab-fallback", "another boot\n");
	assert_non_null(strstr(output, LAVA_BOOTED " failed: uname -r is '3.3.0-lab-fallback' "
				       "after booting, expected '3.3.1-rc1'"));
	assert_null(strstr(output, LAVA_KTAP_BEGIN));
	free(output);
	/* this machine's /proc/cmdline has no rackbisect.run=42 */
	output = run_checked_step(&device, &served, "3.3.1-rc1", "another boot\n");
	assert_non_null(strstr(output, LAVA_BOOTED " failed: another kernel of release 3.3.1-rc1 "
				       "answered (its command line lacks rackbisect.run=42)"));
	assert_null(strstr(output, LAVA_KTAP_BEGIN));
	free(output);
	files_remove_tree(device.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_definition_asks_for_the_device_and_runs_the_workload),
		cmocka_unit_test(test_tags_read_back_as_the_strings_given),
		cmocka_unit_test(test_step_prints_ktap_and_reports_cases),
		cmocka_unit_test(test_real_workloads_make_definitions),
		cmocka_unit_test(test_refused_specs_say_why),
		cmocka_unit_test(test_a_build_is_deployed_then_booted),
		cmocka_unit_test(test_deploy_step_puts_the_build_on_the_device),
		cmocka_unit_test(test_deploy_step_says_what_failed),
		cmocka_unit_test(test_the_workload_runs_only_on_the_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
