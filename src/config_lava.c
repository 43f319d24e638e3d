/*
 * config_lava.c - the `lava:` blocks of a lab file (see config.h, struct
 * lab_lava and struct lab_board_lava), and the rules that set a LAVA lab
 * apart: LAVA owns its boards' power, consoles and boot, so a board there
 * names a device type, never a transport or a driver; every other lab's
 * board needs a transport host and no `lava:`.
 */
#include "config_yaml.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_JOB_TIMEOUT 3600
#define DEFAULT_QUEUE_TIMEOUT 86400

/* Does text start with one of the schemes, and hold something after it? */
static bool has_scheme(const char *text, const char *const *schemes, size_t count)
{
	size_t i;

	for (i = 0; text && i < count; i++)
		if (strncmp(text, schemes[i], strlen(schemes[i])) == 0 && text[strlen(schemes[i])])
			return true;
	return false;
}

/* http or https, and something after it: the rest is LAVA's to answer. */
static int expect_url(struct config_loader *loader, yaml_node_t *node, char **out)
{
	static const char *const schemes[] = { "http://", "https://" };

	if (!has_scheme(config_scalar(node), schemes, 2))
		return config_fail_at(loader, node, "lava url must be http://HOST[:PORT] or "
				      "https://..., e.g. http://lava.lab:80");
	return config_expect_string(loader, node, "lava url", out);
}

/* Where a device fetches builds from: what a web server (or the shared file
 * system) shows; a trailing '/' is dropped. */
static int expect_artifacts_url(struct config_loader *loader, yaml_node_t *node, char **out)
{
	static const char *const schemes[] = { "http://", "https://", "file:///" };
	const char *text = config_scalar(node);
	int rc;

	if (!has_scheme(text, schemes, 3) || strpbrk(text, " \t\n'\"\\"))
		return config_fail_at(loader, node, "lava artifacts url must be http://HOST/PATH, "
				      "https://... or file:///PATH (what the devices fetch the "
				      "artifacts directory at), without spaces or quotes");
	rc = config_expect_string(loader, node, "lava artifacts url", out);
	if (!rc && strlen(*out) > 8 && (*out)[strlen(*out) - 1] == '/')
		(*out)[strlen(*out) - 1] = '\0';
	return rc;
}

static int visit_artifacts(struct config_loader *loader, const char *key, yaml_node_t *value,
			   void *arg)
{
	struct lab_lava *lava = arg;

	if (strcmp(key, "dir") == 0)
		return config_expect_string(loader, value, "lava artifacts dir", &lava->artifacts_dir);
	if (strcmp(key, "url") == 0)
		return expect_artifacts_url(loader, value, &lava->artifacts_url);
	return config_fail_at(loader, value, "lava artifacts: unknown key '%s' (known: dir, url)",
			      key);
}

static int expect_priority(struct config_loader *loader, yaml_node_t *node, char **out)
{
	const char *text = config_scalar(node);
	char *end = NULL;
	long number = text ? strtol(text, &end, 10) : -1;

	if (!text || !(strcmp(text, "high") == 0 || strcmp(text, "medium") == 0 ||
		       strcmp(text, "low") == 0 || (*text && !*end && number >= 0 && number <= 100)))
		return config_fail_at(loader, node, "lava priority must be high, medium, low or "
				      "0..100 (LAVA's own scale)");
	return config_expect_string(loader, node, "lava priority", out);
}

static int visit_timeouts(struct config_loader *loader, const char *key, yaml_node_t *value,
			  void *arg)
{
	struct lab_lava *lava = arg;

	if (strcmp(key, "job") == 0)
		return config_expect_seconds(loader, value, "lava timeouts job",
					     &lava->job_timeout_seconds);
	if (strcmp(key, "queue") == 0)
		return config_expect_seconds(loader, value, "lava timeouts queue",
					     &lava->queue_timeout_seconds);
	return config_fail_at(loader, value, "lava timeouts: unknown key '%s' (known: job, queue)",
			      key);
}

static int visit_lab_lava(struct config_loader *loader, const char *key, yaml_node_t *value,
			  void *arg)
{
	struct lab_lava *lava = arg;

	if (strcmp(key, "url") == 0)
		return expect_url(loader, value, &lava->url);
	if (strcmp(key, "token_file") == 0)
		return config_expect_string(loader, value, "lava token_file", &lava->token_file);
	if (strcmp(key, "token_env") == 0)
		return config_expect_string(loader, value, "lava token_env", &lava->token_env);
	if (strcmp(key, "token") == 0)
		return config_fail_at(loader, value, "lava: the token is never written in the lab "
				      "file: put it in a file only you can read (token_file: "
				      "keys/lava-token) or an environment variable (token_env: "
				      "LAVA_TOKEN)");
	if (strcmp(key, "priority") == 0)
		return expect_priority(loader, value, &lava->priority);
	if (strcmp(key, "timeouts") == 0)
		return config_each_pair(loader, value, "lava timeouts", visit_timeouts, lava);
	if (strcmp(key, "artifacts") == 0)
		return config_each_pair(loader, value, "lava artifacts", visit_artifacts, lava);
	return config_fail_at(loader, value, "lava: unknown key '%s' (known: url, token_file, "
			      "token_env, priority, timeouts, artifacts)", key);
}

int config_load_lab_lava(struct config_loader *loader, yaml_node_t *value, struct lab *lab)
{
	lab->lava.where = config_node_location(loader, value);
	return config_each_pair(loader, value, "lava", visit_lab_lava, &lab->lava);
}

static int visit_board_lava(struct config_loader *loader, const char *key, yaml_node_t *value,
			    void *arg)
{
	struct lab_board *board = arg;

	if (strcmp(key, "device_type") == 0)
		return config_expect_string(loader, value, "lava device_type",
					    &board->lava.device_type);
	if (strcmp(key, "tags") == 0)
		return config_expect_string_list(loader, value, "lava tags", "[ar9285, shelf1]",
						 &board->lava.tags, &board->lava.tag_count);
	if (strcmp(key, "command_line") == 0)
		return config_expect_string(loader, value, "lava command_line",
					    &board->lava.command_line);
	if (strcmp(key, "modules_dir") == 0) {
		const char *text = config_scalar(value);

		if (!text || text[0] != '/')
			return config_fail_at(loader, value, "lava modules_dir must be an absolute "
					      "path on the device, e.g. /lib/modules");
		return config_expect_string(loader, value, "lava modules_dir",
					    &board->lava.modules_dir);
	}
	return config_fail_at(loader, value, "lava: unknown key '%s' (known: device_type, tags, "
			      "command_line, modules_dir)", key);
}

int config_load_board_lava(struct config_loader *loader, yaml_node_t *value,
			   struct lab_board *board)
{
	board->lava.where = config_node_location(loader, value);
	return config_each_pair(loader, value, "lava", visit_board_lava, board);
}

/* What LAVA owns is not the lab file's to say. */
static int check_lava_board(struct config_loader *loader, const struct lab_board *board)
{
	static const char hint[] = "in a LAVA lab, LAVA's device dictionary says how to reach, "
				   "power and boot a device";

	if (!board->lava.device_type)
		return config_fail_at_location(loader, &board->where, "board '%s' has no lava "
					       "device_type (e.g. lava: {device_type: "
					       "beaglebone-black, tags: [ar9285]})", board->name);
	if (board->host)
		return config_fail_at_location(loader, &board->where, "board '%s': no transport: %s",
					       board->name, hint);
	if (board->power.name || board->console.name || board->boot.name)
		return config_fail_at_location(loader, &board->where, "board '%s': no power, console "
					       "or boot driver: %s", board->name, hint);
	return 0;
}

static int check_lava_lab(struct config_loader *loader, yaml_node_t *root, struct lab *lab)
{
	struct lab_lava *lava = &lab->lava;
	size_t i;
	int rc;

	if (!lava->url)
		return config_fail_at(loader, root, "a lab of type lava needs lava: {url: "
				      "http://..., token_file: ...}");
	if (!lava->token_file == !lava->token_env)
		return config_fail_at_location(loader, &lava->where, "lava: give the token as "
					       "exactly one of token_file (a file only you can "
					       "read) or token_env (an environment variable)");
	if (!lava->priority && !(lava->priority = strdup("medium")))
		return -ENOMEM;
	if (!lava->job_timeout_seconds)
		lava->job_timeout_seconds = DEFAULT_JOB_TIMEOUT;
	if (!lava->queue_timeout_seconds)
		lava->queue_timeout_seconds = DEFAULT_QUEUE_TIMEOUT;
	for (i = 0; i < lab->board_count; i++)
		if ((rc = check_lava_board(loader, &lab->boards[i])) != 0)
			return rc;
	if (!lava->artifacts_dir || !lava->artifacts_url)
		return config_fail_at_location(loader, &lava->where, "lava: needs artifacts: {dir: "
					       "DIR, url: URL}: where rackbisect puts each build and "
					       "the URL LAVA's devices fetch that directory at (e.g. "
					       "dir: /srv/rackbisect, url: http://coordinator/rackbisect)");
	return 0;
}

int config_check_lava(struct config_loader *loader, yaml_node_t *root, struct lab *lab)
{
	size_t i;

	if (strcmp(lab->type, "lava") == 0)
		return check_lava_lab(loader, root, lab);
	if (lab->lava.where.file)
		return config_fail_at_location(loader, &lab->lava.where, "lava: only a lab of type "
					       "lava has a LAVA server (this one is %s)", lab->type);
	for (i = 0; i < lab->board_count; i++) {
		const struct lab_board *board = &lab->boards[i];

		if (board->lava.where.file)
			return config_fail_at_location(loader, &board->lava.where, "board '%s': lava: "
						       "only in a lab of type lava", board->name);
		if (!board->host)
			return config_fail_at_location(loader, &board->where, "board '%s' has no "
						       "transport host", board->name);
	}
	return 0;
}

void config_free_lava(struct lab *lab)
{
	size_t i;

	for (i = 0; i < lab->board_count; i++) {
		free(lab->boards[i].lava.device_type);
		free(lab->boards[i].lava.command_line);
		free(lab->boards[i].lava.modules_dir);
		config_free_strings(lab->boards[i].lava.tags, lab->boards[i].lava.tag_count);
	}
	free(lab->lava.url);
	free(lab->lava.token_file);
	free(lab->lava.token_env);
	free(lab->lava.priority);
	free(lab->lava.artifacts_dir);
	free(lab->lava.artifacts_url);
}
