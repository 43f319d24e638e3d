/* job.c - see job.h. */
#include "lava/job.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "boot/unpack_modules.h"
#include "transport/shell_quote.h"

#define LIBRARY_END "RACKBISECT_LIB_EOF"
#define SCRIPT_END "RACKBISECT_SCRIPT_EOF"
#define INSTALL_NAMESPACE "install"	/* the job's, when it carries a build */
#define BUILD_NAMESPACE "build"		/* the connection into the build */
#define REBOOT_RETRY_INTERVAL 1		/* s between LAVA's logins while the build boots */

/*
 * The KTAP lines as LAVA test cases, in the device's own sh (LAVA runs the
 * steps with `set -e`: nothing here may fail). Names keep the characters
 * LAVA allows in a test case name.
 */
static const char ktap_to_cases[] =
	"rb_case_name() { printf '%s' \"$1\" | tr -c 'A-Za-z0-9_.-' '_'; }\n"
	"rb_lava_cases() {\n"
	"\twhile IFS= read -r line; do\n"
	"\t\tcase $line in\n"
	"\t\t'ok '*|'not ok '*)\n"
	"\t\t\tresult=pass; rest=${line#ok }\n"
	"\t\t\tcase $line in 'not ok '*) result=fail; rest=${line#not ok } ;; esac\n"
	"\t\t\tnumber=${rest%% *}; name=${rest#\"$number\"}; name=${name# }; name=${name#- }\n"
	"\t\t\tcase $name in *'# SKIP'*|*'# skip'*) result=skip ;; esac\n"
	"\t\t\tname=${name%%#*}; name=${name% }\n"
	"\t\t\tlava-test-case \"$(rb_case_name \"$number-$name\")\" --result \"$result\" || true ;;\n"
	"\t\t'# metric '*)\n"
	"\t\t\trest=${line#'# metric '}; name=${rest%%=*}; value=${rest#*=}\n"
	"\t\t\tunit=${value#* }; value=${value%% *}\n"
	"\t\t\tlava-test-case \"metric-$(rb_case_name \"$name\")\" --result pass "
	"--measurement \"$value\" --units \"$unit\" || true ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"}\n";

/*
 * Putting the build on the device (test rackbisect-deploy), in its own sh.
 * Every failure prints why on the RACKBISECT-DEPLOY line and returns 1;
 * nothing else may fail (LAVA runs steps with `set -e`). The hand-over
 * waits for LAVA's test runner to end, so the device goes down between two
 * of LAVA's actions and the job's next boot logs in to the build.
 */
static const char deploy_functions[] =
	"rb_fetch() {\n"
	"\tif command -v curl >/dev/null 2>&1; then curl -fsS -o \"$2\" \"$1\"\n"
	"\telif command -v wget >/dev/null 2>&1; then wget -q -O \"$2\" \"$1\"\n"
	"\telse echo 'neither curl nor wget on the device'; return 1; fi\n"
	"}\n"
	"rb_runner_pid() {\n"
	"\tpid=$$\n"
	"\twhile [ -n \"$pid\" ] && [ \"$pid\" -gt 1 ]; do\n"
	"\t\tcase $(tr '\\000' ' ' <\"/proc/$pid/cmdline\" 2>/dev/null || true) in\n"
	"\t\t*lava-test-runner*) echo \"$pid\"; return 0 ;;\n"
	"\t\tesac\n"
	"\t\tpid=$(sed -n 's/^PPid:[[:space:]]*//p' \"/proc/$pid/status\" 2>/dev/null || true)\n"
	"\tdone\n"
	"\techo 0\n"
	"}\n"
	"rb_hand_over='if [ \"$1\" -gt 1 ]; then n=0; "
	"while kill -0 \"$1\" 2>/dev/null && [ $n -lt 6000 ]; do sleep 0.05; n=$((n + 1)); done; "
	"sleep 0.2; else sleep 3; fi; exec kexec -e'\n"
	"rb_deploy() {\n"
	"\tdir=$1; image_url=$2; modules_url=$3; release=$4; modules_dir=$5; words=$6; base=$7\n"
	"\trm -rf \"$dir\" && mkdir -p \"$dir\" || { echo \"" LAVA_DEPLOY " failed: cannot make $dir\"; return 1; }\n"
	"\twhy=$(rb_fetch \"$image_url\" \"$dir/vmlinuz\" 2>&1) || "
	"{ echo \"" LAVA_DEPLOY " failed: fetching $image_url: $why\"; return 1; }\n"
	"\tif [ -n \"$modules_url\" ]; then\n"
	"\t\ttarball=$modules_dir/.rackbisect-$release.tar.gz\n"
	"\t\twhy=$(rb_fetch \"$modules_url\" \"$tarball\" 2>&1) || "
	"{ echo \"" LAVA_DEPLOY " failed: fetching $modules_url: $why\"; return 1; }\n"
	"\t\twhy=$(sh -c \"$rb_unpack\" sh \"$modules_dir\" \"$release\" \"$tarball\" 2>&1) || "
	"{ echo \"" LAVA_DEPLOY " failed: unpacking the modules into $modules_dir: $why\"; return 1; }\n"
	"\tfi\n"
	"\tif [ -z \"$base\" ]; then\n"
	"\t\tset -f\n"
	"\t\tfor word in $(cat /proc/cmdline); do\n"
	"\t\t\tcase $word in rackbisect.run=*) ;; *) base=\"$base${base:+ }$word\" ;; esac\n"
	"\t\tdone\n"
	"\t\tset +f\n"
	"\tfi\n"
	"\tcat /proc/sys/kernel/random/boot_id >\"$dir/boot_id\" 2>/dev/null || : >\"$dir/boot_id\"\n"
	"\twhy=$(kexec -l \"$dir/vmlinuz\" --append=\"$base${base:+ }$words\" 2>&1) || "
	"{ echo \"" LAVA_DEPLOY " failed: kexec -l: $why\"; return 1; }\n"
	"\tsetsid sh -c \"$rb_hand_over\" sh \"$(rb_runner_pid)\" </dev/null >/dev/null 2>&1 &\n"
	"\techo \"" LAVA_DEPLOY " ok: $release loaded, kexec -e once LAVA's test runner has ended\"\n"
	"}\n";

/*
 * Before the workload: is the build what runs? The same boot_id as at the
 * deploy means LAVA logged in before the hand-over: this job will be cut
 * (the lab's race, said as `waiting`); another release, or the release
 * without this run's marker, means the build did not come up as itself.
 */
static const char booted_function[] =
	"rb_booted() {\n"
	"\tdir=$1; release=$2; marker=$3; seconds=$4\n"
	"\told=$(cat \"$dir/boot_id\" 2>/dev/null || true)\n"
	"\tnow=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || true)\n"
	"\tif [ -n \"$old\" ] && [ \"$old\" = \"$now\" ]; then\n"
	"\t\techo \"" LAVA_BOOTED " waiting: LAVA logged in before the kernel that took the build went down\"\n"
	"\t\tsleep \"$seconds\"\n"
	"\t\techo \"" LAVA_BOOTED " failed: kexec -e did not replace the running kernel within $seconds s\"\n"
	"\t\treturn 1\n"
	"\tfi\n"
	"\trunning=$(uname -r)\n"
	"\tif [ \"$running\" != \"$release\" ]; then\n"
	"\t\techo \"" LAVA_BOOTED " failed: uname -r is '$running' after booting, expected '$release'\"\n"
	"\t\treturn 1\n"
	"\tfi\n"
	"\tcase \" $(cat /proc/cmdline) \" in\n"
	"\t*\" $marker \"*) ;;\n"
	"\t*) echo \"" LAVA_BOOTED " failed: another kernel of release $release answered (its "
	"command line lacks $marker)\"; return 1 ;;\n"
	"\tesac\n"
	"\trm -rf \"$dir\"\n"
	"\techo \"" LAVA_BOOTED " ok: $release with $marker\"\n"
	"}\n";

/* ---- a growing text ------------------------------------------------------------------------- */

struct text {
	char *data;
	size_t length, size;
	bool failed;
};

static void append(struct text *text, const char *data, size_t length)
{
	if (text->failed)
		return;
	if (text->length + length + 1 > text->size) {
		size_t size = text->size ? text->size : 4096;
		char *grown;

		while (size < text->length + length + 1)
			size *= 2;
		grown = realloc(text->data, size);
		if (!grown) {
			text->failed = true;
			return;
		}
		text->data = grown;
		text->size = size;
	}
	memcpy(text->data + text->length, data, length);
	text->length += length;
	text->data[text->length] = '\0';
}

static void append_string(struct text *text, const char *string)
{
	append(text, string, strlen(string));
}

/* A here-document's body ends with a newline before its end line. */
static void append_heredoc(struct text *text, const char *file, const char *body, const char *end)
{
	append_string(text, "cat >");
	append_string(text, file);
	append_string(text, " <<'");
	append_string(text, end);
	append_string(text, "'\n");
	append_string(text, body);
	if (!*body || body[strlen(body) - 1] != '\n')
		append_string(text, "\n");
	append_string(text, end);
	append_string(text, "\n");
}

/* ---- checks ------------------------------------------------------------------------------ */

static bool has_line(const char *text, const char *line)
{
	size_t length = strlen(line);
	const char *at;

	for (at = strstr(text, line); at; at = strstr(at + 1, line))
		if ((at == text || at[-1] == '\n') && (at[length] == '\n' || at[length] == '\0'))
			return true;
	return false;
}

/* A script's file name on the device: plain, so it needs no quoting. */
static bool is_plain_name(const char *name)
{
	return name && *name && name[0] != '-' && name[0] != '.' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
		       strlen(name);
}

static int check_deploy(const struct lava_job_deploy *deploy, char *error, size_t error_len)
{
	if (!deploy->image_url || !deploy->release || !*deploy->release || !deploy->marker ||
	    !deploy->modules_dir || !deploy->work_dir || !deploy->boot_seconds) {
		snprintf(error, error_len, "a LAVA job carrying a build needs its image URL, "
			 "release, marker, modules and work directories and a boot time");
		return -EINVAL;
	}
	/* the check looks for the marker as one word of /proc/cmdline */
	if (!*deploy->marker || strpbrk(deploy->marker, " \t\n")) {
		snprintf(error, error_len, "the run's marker '%s' must be one word", deploy->marker);
		return -EINVAL;
	}
	return 0;
}

static int check_spec(const struct lava_job_spec *spec, char *error, size_t error_len)
{
	if (!spec->job_name || !spec->device_type || !*spec->device_type || !spec->priority ||
	    !spec->script_text || !spec->library_text || !spec->job_timeout_seconds ||
	    !spec->test_timeout_seconds) {
		snprintf(error, error_len, "a LAVA job needs a name, device type, priority, "
			 "timeouts, the script and lib.sh");
		return -EINVAL;
	}
	if (!is_plain_name(spec->script_name) || !is_plain_name(spec->workload_name)) {
		snprintf(error, error_len, "workload '%s' (%s): LAVA test definitions need plain "
			 "names (letters, digits, . _ -)", spec->workload_name ? spec->workload_name
			 : "?", spec->script_name ? spec->script_name : "?");
		return -EINVAL;
	}
	if (has_line(spec->script_text, SCRIPT_END) || has_line(spec->library_text, LIBRARY_END)) {
		snprintf(error, error_len, "workload %s: its text holds the line %s or %s that "
			 "ends its here-document", spec->workload_name, SCRIPT_END, LIBRARY_END);
		return -EINVAL;
	}
	return spec->deploy ? check_deploy(spec->deploy, error, error_len) : 0;
}

/* ---- the test step --------------------------------------------------------------------------- */

/* The words, each quoted for the device's sh, joined; NULL when out of memory. */
static char *quoted(const char *const *words)
{
	char *command = NULL;

	return shell_quote_argv(words, &command) == 0 ? command : NULL;
}

static void append_quoted(struct text *text, const char *const *words)
{
	char *command = quoted(words);

	if (!command) {
		text->failed = true;
		return;
	}
	append_string(text, command);
	free(command);
}

static int take_text(struct text *text, char **out)
{
	if (text->failed) {
		free(text->data);
		return -ENOMEM;
	}
	*out = text->data;
	return 0;
}

/* The build's command line: the job's words, then the run's marker. */
static int kernel_words(const struct lava_job_deploy *deploy, char **out)
{
	const char *words = deploy->command_line ? deploy->command_line : "";
	size_t length = strlen(words) + strlen(deploy->marker) + 2;

	*out = malloc(length);
	if (!*out)
		return -ENOMEM;
	snprintf(*out, length, "%s%s%s", words, *words ? " " : "", deploy->marker);
	return 0;
}

static int compose_deploy_step(const struct lava_job_deploy *deploy, char **step_out)
{
	struct text text = { 0 };
	char *words = NULL;
	const char *unpack[] = { BOOT_UNPACK_MODULES_SCRIPT, NULL };
	int rc = kernel_words(deploy, &words);

	if (rc)
		return rc;
	{
		const char *call[] = { "rb_deploy", deploy->work_dir, deploy->image_url,
				       deploy->modules_url ? deploy->modules_url : "",
				       deploy->release, deploy->modules_dir, words,
				       deploy->base_command_line ? deploy->base_command_line : "",
				       NULL };

		append_string(&text, "set +x\nrb_unpack=");
		append_quoted(&text, unpack);
		append_string(&text, "\n");
		append_string(&text, deploy_functions);
		append_string(&text, "if ");
		append_quoted(&text, call);
		append_string(&text, "; then lava-test-case rackbisect-deploy --result pass || true\n"
				     "else lava-test-case rackbisect-deploy --result fail || true; fi\n");
	}
	free(words);
	return take_text(&text, step_out);
}

/* Before the workload, when the job carries a build: `if rb_booted ...; then`. */
static void append_boot_check(struct text *text, const struct lava_job_deploy *deploy)
{
	char seconds[16];
	const char *call[] = { "rb_booted", deploy->work_dir, deploy->release, deploy->marker,
			       seconds, NULL };

	snprintf(seconds, sizeof(seconds), "%u", deploy->boot_seconds);
	append_string(text, booted_function);
	append_string(text, "if ");
	append_quoted(text, call);
	append_string(text, "; then\n");
}

static int compose_step(const struct lava_job_spec *spec, char **step_out)
{
	struct text text = { 0 };
	const char **words;
	char *command;
	size_t count = 0, i;

	for (i = 0; spec->args && spec->args[i]; i++)
		count++;
	words = calloc(count + 3, sizeof(*words));
	if (!words)
		return -ENOMEM;
	words[0] = "sh";
	words[1] = spec->script_name;
	for (i = 0; i < count; i++)
		words[i + 2] = spec->args[i];
	command = quoted(words);
	free(words);
	if (!command)
		return -ENOMEM;
	append_string(&text, "set +x\n"
			     "rb_dir=$(mktemp -d \"${TMPDIR:-/tmp}/rackbisect.XXXXXX\") && cd \"$rb_dir\"\n");
	append_heredoc(&text, "lib.sh", spec->library_text, LIBRARY_END);
	append_heredoc(&text, spec->script_name, spec->script_text, SCRIPT_END);
	append_string(&text, ktap_to_cases);
	if (spec->deploy)
		append_boot_check(&text, spec->deploy);
	append_string(&text, "echo " LAVA_KTAP_BEGIN "\nrb_status=0\n");
	append_string(&text, command);
	append_string(&text, " >ktap.out 2>ktap.err || rb_status=$?\n"
			     "cat ktap.out\n"
			     "echo \"" LAVA_KTAP_END " status=$rb_status\"\n"
			     "sed 's/^/# stderr: /' ktap.err\n"
			     "rb_lava_cases <ktap.out\n");
	if (spec->deploy)
		append_string(&text, "fi\n");
	append_string(&text, "echo " LAVA_DMESG_BEGIN "\n"
			     "dmesg 2>&1 || true\n"
			     "echo " LAVA_DMESG_END "\n");
	free(command);
	return take_text(&text, step_out);
}

/* ---- YAML --------------------------------------------------------------------------------- */

struct emitter {
	yaml_emitter_t emitter;
	struct text output;
	bool failed;
};

static int write_output(void *data, unsigned char *buffer, size_t size)
{
	struct emitter *e = data;

	append(&e->output, (const char *)buffer, size);
	return !e->output.failed;
}

static void emit(struct emitter *e, yaml_event_t *event, int made)
{
	if (e->failed)
		return;
	if (!made || !yaml_emitter_emit(&e->emitter, event))
		e->failed = true;
}

static void scalar_styled(struct emitter *e, const char *value, yaml_scalar_style_t style)
{
	yaml_event_t event;

	emit(e, &event, yaml_scalar_event_initialize(&event, NULL, NULL, (yaml_char_t *)value,
						     (int)strlen(value), 1, 1, style));
}

static void scalar(struct emitter *e, const char *value)
{
	scalar_styled(e, value, YAML_ANY_SCALAR_STYLE);
}

/* Plain, would `value` read back as this string under YAML 1.1 (LAVA's
 * PyYAML)? Only a word of a letter and then letters, digits and _.-/ that
 * is no null or bool word is sure to: "null", "yes", "off", "1.5" and
 * "2026-12-08" are not strings there. */
static bool reads_back_as_text(const char *value)
{
	static const char *const words[] = { "null", "true", "false", "yes", "no", "on", "off",
					     "y", "n", NULL };

	if (!isalpha((unsigned char)value[0]) ||
	    value[strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.-/")] != '\0')
		return false;
	for (size_t i = 0; words[i]; i++)
		if (strcasecmp(value, words[i]) == 0)
			return false;
	return true;
}

/* A string from the lab or the job: quoted whenever plain would not read
 * back as the same string (a tag "null" was read as no tag). */
static void text_scalar(struct emitter *e, const char *value)
{
	scalar_styled(e, value, reads_back_as_text(value) ? YAML_ANY_SCALAR_STYLE
							  : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static void begin_map(struct emitter *e)
{
	yaml_event_t event;

	emit(e, &event, yaml_mapping_start_event_initialize(&event, NULL, NULL, 1,
							    YAML_BLOCK_MAPPING_STYLE));
}

static void end_map(struct emitter *e)
{
	yaml_event_t event;

	emit(e, &event, yaml_mapping_end_event_initialize(&event));
}

static void begin_list(struct emitter *e)
{
	yaml_event_t event;

	emit(e, &event, yaml_sequence_start_event_initialize(&event, NULL, NULL, 1,
							     YAML_BLOCK_SEQUENCE_STYLE));
}

static void end_list(struct emitter *e)
{
	yaml_event_t event;

	emit(e, &event, yaml_sequence_end_event_initialize(&event));
}

static void pair(struct emitter *e, const char *key, const char *value)
{
	scalar(e, key);
	scalar(e, value);
}

static void text_pair(struct emitter *e, const char *key, const char *value)
{
	scalar(e, key);
	text_scalar(e, value);
}

/* key: {seconds: N} (LAVA's timeout form). */
static void timeout(struct emitter *e, const char *key, unsigned int seconds)
{
	char number[16];

	snprintf(number, sizeof(number), "%u", seconds);
	scalar(e, key);
	begin_map(e);
	pair(e, "seconds", number);
	end_map(e);
}

/* - KIND: {namespace: NS, ...}: an action; NULL namespace: none named. */
static void begin_action(struct emitter *e, const char *kind, const char *namespace)
{
	begin_map(e);
	scalar(e, kind);
	begin_map(e);
	if (namespace)
		pair(e, "namespace", namespace);
}

static void end_action(struct emitter *e)
{
	end_map(e);
	end_map(e);
}

/* What a root shell's prompt holds, on any device. */
static void emit_prompts(struct emitter *e)
{
	scalar(e, "prompts");
	begin_list(e);
	scalar(e, "root@");
	scalar(e, "# ");
	end_list(e);
}

/* Into the device's shell the device type's way (ssh: copies the test
 * overlay and logs in). */
static void emit_boot_ssh(struct emitter *e, const char *namespace)
{
	begin_action(e, "boot", namespace);
	pair(e, "method", "ssh");
	pair(e, "connection", "ssh");
	emit_prompts(e);
	timeout(e, "timeout", 300);
	end_action(e);
}

/*
 * Into the build, once the old kernel has handed over: a new connection (the
 * device dictionary's connection_command) in a namespace of its own, as
 * LAVA keeps one connection per namespace and would go on talking into the
 * one the old kernel took down with it. No reset: the device is booting
 * the build already.
 *
 * LAVA gives failure_retry to every retrying action inside the boot too, so
 * a login that reached the old kernel just before it went down is retried
 * on its dead connection `retries` times (1 s apart) before the boot
 * connects again: `retries` about the square root of the boot time keeps
 * that waste to seconds while the attempts still span the whole boot time.
 */
static void emit_boot_into_build(struct emitter *e, unsigned int retries, unsigned int interval,
				 unsigned int seconds)
{
	char number[16];

	begin_action(e, "boot", BUILD_NAMESPACE);
	pair(e, "method", "minimal");
	pair(e, "reset", "false");
	/* over SSH no kernel messages come: the login is the sign */
	scalar(e, "parameters");
	begin_map(e);
	scalar(e, "kernel-start-message");
	scalar_styled(e, "", YAML_SINGLE_QUOTED_SCALAR_STYLE);	/* a string, never null */
	end_map(e);
	emit_prompts(e);
	snprintf(number, sizeof(number), "%u", retries);
	pair(e, "failure_retry", number);
	snprintf(number, sizeof(number), "%u", interval);
	pair(e, "failure_retry_interval", number);
	timeout(e, "timeout", seconds);
	end_action(e);
}

/* A test action of one inline definition whose single step is `step`. */
static void emit_test(struct emitter *e, const char *namespace, const char *connection_namespace,
		      const char *name, const char *description, const char *step,
		      unsigned int seconds)
{
	char path[160];

	snprintf(path, sizeof(path), "inline/%s.yaml", name);
	begin_action(e, "test", namespace);
	if (connection_namespace)
		pair(e, "connection-namespace", connection_namespace);
	timeout(e, "timeout", seconds);
	scalar(e, "definitions");
	begin_list(e);
	begin_map(e);
	pair(e, "from", "inline");
	pair(e, "name", name);
	pair(e, "path", path);
	scalar(e, "repository");
	begin_map(e);
	scalar(e, "metadata");
	begin_map(e);
	pair(e, "format", "Lava-Test Test Definition 1.0");
	pair(e, "name", name);
	pair(e, "description", description);
	end_map(e);
	scalar(e, "run");
	begin_map(e);
	scalar(e, "steps");
	begin_list(e);
	scalar_styled(e, step, YAML_LITERAL_SCALAR_STYLE);
	end_list(e);
	end_map(e);
	end_map(e);
	end_map(e);
	end_list(e);
	end_action(e);
}

/* n with n * n >= the boot time, and one more (see emit_boot_into_build). */
static unsigned int login_attempts(unsigned int boot_seconds)
{
	unsigned int n = 1;

	while (n * n < boot_seconds)
		n++;
	return n + 1;
}

/*
 * With a build: the first test puts it on the device and hands over to it;
 * the workload's test (in the overlay the first boot unpacked: LAVA's test
 * runner for both is on the device from then on) runs over the connection
 * made into the build.
 */
static void emit_actions(struct emitter *e, const struct lava_job_spec *spec, const char *step,
			 const char *deploy_step)
{
	/* LAVA: with namespaces, every action names its own */
	const char *namespace = deploy_step ? INSTALL_NAMESPACE : NULL;
	char name[128];

	snprintf(name, sizeof(name), "rackbisect-%s", spec->workload_name);
	scalar(e, "actions");
	begin_list(e);
	/* the device type's own way onto the device and into its shell */
	begin_action(e, "deploy", namespace);
	pair(e, "to", "ssh");
	pair(e, "os", "debian");
	timeout(e, "timeout", 300);
	end_action(e);
	emit_boot_ssh(e, namespace);
	if (deploy_step) {
		unsigned int boot = spec->deploy->boot_seconds;

		emit_test(e, namespace, NULL, "rackbisect-deploy", "rackbisect: fetch the build, kexec -l "
			  "it, hand the device over to it", deploy_step, 300);
		emit_boot_into_build(e, login_attempts(boot), REBOOT_RETRY_INTERVAL, boot + 60);
	}
	emit_test(e, namespace, deploy_step ? BUILD_NAMESPACE : NULL, name, "rackbisect workload, KTAP "
		  "read back by the coordinator", step, spec->test_timeout_seconds);
	end_list(e);
}

static void emit_job(struct emitter *e, const struct lava_job_spec *spec, const char *step,
		     const char *deploy_step)
{
	yaml_event_t event;
	size_t i;

	emit(e, &event, yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING));
	emit(e, &event, yaml_document_start_event_initialize(&event, NULL, NULL, NULL, 1));
	begin_map(e);
	text_pair(e, "job_name", spec->job_name);
	text_pair(e, "device_type", spec->device_type);
	if (spec->tags && spec->tags[0]) {
		scalar(e, "tags");
		begin_list(e);
		for (i = 0; spec->tags[i]; i++)
			text_scalar(e, spec->tags[i]);
		end_list(e);
	}
	pair(e, "priority", spec->priority);
	pair(e, "visibility", "public");
	scalar(e, "timeouts");
	begin_map(e);
	timeout(e, "job", spec->job_timeout_seconds);
	timeout(e, "action", spec->job_timeout_seconds);
	timeout(e, "connection", 120);
	end_map(e);
	emit_actions(e, spec, step, deploy_step);
	end_map(e);
	emit(e, &event, yaml_document_end_event_initialize(&event, 1));
	emit(e, &event, yaml_stream_end_event_initialize(&event));
}

int lava_job_definition(const struct lava_job_spec *spec, char **yaml_out, char *error,
			size_t error_len)
{
	struct emitter e = { 0 };
	char *step = NULL, *deploy_step = NULL;
	int rc = check_spec(spec, error, error_len);

	if (rc)
		return rc;
	rc = compose_step(spec, &step);
	if (!rc && spec->deploy)
		rc = compose_deploy_step(spec->deploy, &deploy_step);
	if (rc) {
		free(step);
		snprintf(error, error_len, "no memory for the job of %s", spec->workload_name);
		return rc;
	}
	if (!yaml_emitter_initialize(&e.emitter)) {
		free(step);
		free(deploy_step);
		return -ENOMEM;
	}
	yaml_emitter_set_output(&e.emitter, write_output, &e);
	yaml_emitter_set_unicode(&e.emitter, 1);
	yaml_emitter_set_width(&e.emitter, -1);
	emit_job(&e, spec, step, deploy_step);
	yaml_emitter_delete(&e.emitter);
	free(step);
	free(deploy_step);
	if (e.failed || e.output.failed) {
		free(e.output.data);
		snprintf(error, error_len, "the job of %s could not be written as YAML (text that "
			 "is not UTF-8?)", spec->workload_name);
		return -EINVAL;
	}
	*yaml_out = e.output.data;
	return 0;
}
