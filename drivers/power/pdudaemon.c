/* pdudaemon.c - a power switch behind pdudaemon's HTTP API (see pdudaemon.h). */
#include "power/pdudaemon.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "http.h"

#define DRIVER "pdudaemon"
#define ERROR_TEXT_SIZE 1024

struct pdudaemon_power {
	struct power base;
	struct http_client *http;
	char *board_name;
	char *url;		/* the daemon's, no trailing slash */
	char *query;		/* "hostname=pdu&port=3" or "alias=x", escaped */
	char *switch_name;	/* "PDU pdu port 3 at http://..." for messages */
	char *delay;		/* seconds, for a reboot; NULL: pdudaemon's default */
};

struct pdudaemon_request {
	struct pdudaemon_power *power;
	enum power_action action;
	power_cb callback;
	void *data;
};

static const char *command_of(enum power_action action)
{
	return action == POWER_CYCLE ? "reboot" : power_action_name(action);
}

static void on_answer(const struct http_answer *answer, void *data)
{
	struct pdudaemon_request *request = data;
	struct pdudaemon_power *power = request->power;
	char text[ERROR_TEXT_SIZE];
	int status = answer->status;

	if (status == 0 && answer->code != 200) {
		status = -EIO;
		snprintf(text, sizeof(text), "board %s: power switch '%s' (%s): %s answered HTTP %ld: %.200s",
			 power->board_name, DRIVER, power->switch_name, command_of(request->action),
			 answer->code, answer->body);
		text[strcspn(text, "\r\n")] = '\0';
	} else if (status) {
		snprintf(text, sizeof(text), "board %s: power switch '%s' (%s): %s: %s",
			 power->board_name, DRIVER, power->switch_name, command_of(request->action),
			 status == -ETIMEDOUT ? "no answer in time (pdudaemon queues a PDU's requests: "
			 "is it busy or hung?)" : answer->error_text);
	}
	request->callback(&power->base, status, status ? text : NULL, request->data);
	free(request);
}

static int pdudaemon_request(struct power *base, enum power_action action, uint64_t timeout_ms,
			     power_cb callback, void *data)
{
	struct pdudaemon_power *power = (struct pdudaemon_power *)base;
	struct pdudaemon_request *request = calloc(1, sizeof(*request));
	char *url = NULL;
	int rc;

	if (!request)
		return -ENOMEM;
	*request = (struct pdudaemon_request){ power, action, callback, data };
	if (asprintf(&url, "%s/power/control/%s?%s%s%s", power->url, command_of(action), power->query,
		     action == POWER_CYCLE && power->delay ? "&delay=" : "",
		     action == POWER_CYCLE && power->delay ? power->delay : "") < 0) {
		free(request);
		return -ENOMEM;
	}
	rc = http_get(power->http, url, timeout_ms, on_answer, request);
	free(url);
	if (rc)
		free(request);
	return rc;
}

static void free_power(struct pdudaemon_power *power)
{
	free(power->board_name);
	free(power->url);
	free(power->query);
	free(power->switch_name);
	free(power->delay);
	free(power);
}

/* Pending requests end -ECANCELED here (their callbacks run first). */
static void pdudaemon_close(struct power *base)
{
	struct pdudaemon_power *power = (struct pdudaemon_power *)base;

	http_client_close(power->http);
	free_power(power);
}

/* ---- options ------------------------------------------------------------------------------- */

#define option_error(board, where, error, error_len, ...) \
	power_option_error(board, DRIVER, where, error, error_len, __VA_ARGS__)

static const char *const known_options[] = { "url", "hostname", "port", "alias", "delay", NULL };

static bool is_digits(const char *text)
{
	return text[0] && strspn(text, "0123456789") == strlen(text) && strlen(text) < 7;
}

/* Every option known, a plain value, the right ones together. */
static int check_options(const struct lab_board *board, char *error, size_t error_len)
{
	const struct lab_driver *driver = &board->power;
	const struct lab_driver_option *url = lab_driver_option(driver, "url");
	const struct lab_driver_option *port = lab_driver_option(driver, "port");
	const struct lab_driver_option *delay = lab_driver_option(driver, "delay");
	bool hostname = lab_driver_option(driver, "hostname"), alias = lab_driver_option(driver, "alias");
	size_t i, k;

	for (i = 0; i < driver->option_count; i++) {
		const struct lab_driver_option *option = &driver->options[i];

		for (k = 0; known_options[k] && strcmp(known_options[k], option->name); k++)
			;
		if (!known_options[k])
			return option_error(board, &option->where, error, error_len,
					    "unknown option '%s' (known: url, hostname, port, alias, delay)",
					    option->name);
		if (option->is_list || option->value_count != 1 || !option->values[0][0])
			return option_error(board, &option->where, error, error_len,
					    "%s must be one plain value", option->name);
	}
	if (!url || (strncmp(url->values[0], "http://", 7) && strncmp(url->values[0], "https://", 8)))
		return option_error(board, url ? &url->where : &driver->where, error, error_len,
				    "needs the daemon's url, e.g. url: \"http://127.0.0.1:16421\"");
	if (hostname == alias)
		return option_error(board, &driver->where, error, error_len,
				    "needs either hostname and port (the PDU in pdudaemon's "
				    "configuration and its outlet) or alias, not %s",
				    hostname ? "both" : "neither");
	if (hostname && (!port || !is_digits(port->values[0])))
		return option_error(board, port ? &port->where : &driver->where, error, error_len,
				    "needs the PDU's port, a number, e.g. port: 3");
	if (alias && port)
		return option_error(board, &port->where, error, error_len,
				    "port goes with hostname; an alias names the port itself");
	if (delay && !is_digits(delay->values[0]))
		return option_error(board, &delay->where, error, error_len,
				    "delay is a number of seconds, e.g. delay: 2");
	return 0;
}

/* "key=value" with value escaped for a URL (a lab file's words never
 * change the request's shape). */
static char *query_pair(const char *key, const char *value)
{
	char *escaped = curl_easy_escape(NULL, value, 0), *pair = NULL;

	if (escaped && asprintf(&pair, "%s=%s", key, escaped) < 0)
		pair = NULL;
	curl_free(escaped);
	return pair;
}

/* The url for messages: a password in it ("http://user:PASSWORD@host", for
 * a daemon behind an authenticating proxy) shown as ***, since messages go
 * to the log, the run's files and the database. */
static char *url_for_messages(const char *url)
{
	const char *authority = strstr(url, "://"), *end, *at, *colon;
	char *shown;

	if (!authority)
		return strdup(url);
	authority += 3;
	end = authority + strcspn(authority, "/?#");
	at = memrchr(authority, '@', (size_t)(end - authority));
	colon = at ? memchr(authority, ':', (size_t)(at - authority)) : NULL;
	if (!colon)
		return strdup(url);
	if (asprintf(&shown, "%.*s:***%s", (int)(colon - url), url, at) < 0)
		return NULL;
	return shown;
}

static int copy_options(struct pdudaemon_power *power, const struct lab_board *board)
{
	const struct lab_driver *driver = &board->power;
	const struct lab_driver_option *alias = lab_driver_option(driver, "alias");
	const struct lab_driver_option *delay = lab_driver_option(driver, "delay");
	const char *url = lab_driver_option(driver, "url")->values[0];
	char *first = NULL, *second = NULL, *shown = url_for_messages(url);
	int rc = 0;

	if (!shown)
		return -ENOMEM;
	power->url = strndup(url, strlen(url) - (url[strlen(url) - 1] == '/'));
	if (alias) {
		power->query = query_pair("alias", alias->values[0]);
		if (asprintf(&power->switch_name, "alias %s at %s", alias->values[0], shown) < 0)
			power->switch_name = NULL;
	} else {
		const char *hostname = lab_driver_option(driver, "hostname")->values[0];
		const char *port = lab_driver_option(driver, "port")->values[0];

		first = query_pair("hostname", hostname);
		second = query_pair("port", port);
		if (first && second && asprintf(&power->query, "%s&%s", first, second) < 0)
			power->query = NULL;
		if (asprintf(&power->switch_name, "PDU %s port %s at %s", hostname, port, shown) < 0)
			power->switch_name = NULL;
	}
	if (delay)
		power->delay = strdup(delay->values[0]);
	power->board_name = strdup(board->name);
	if (!power->url || !power->query || !power->switch_name || !power->board_name ||
	    (delay && !power->delay))
		rc = -ENOMEM;
	free(first);
	free(second);
	free(shown);
	return rc;
}

static int pdudaemon_create(const struct driver_context *context, struct power **power_out,
			    char *error, size_t error_len)
{
	struct pdudaemon_power *power;
	int rc = check_options(context->board, error, error_len);

	if (rc)
		return rc;
	if (!(power = calloc(1, sizeof(*power))))
		return -ENOMEM;
	power->base.ops = &pdudaemon_power_ops;
	power->base.loop = context->loop;
	rc = copy_options(power, context->board);
	if (!rc)
		rc = http_client_new(context->loop, &power->http);
	if (rc) {
		free_power(power);
		return rc;
	}
	*power_out = &power->base;
	return 0;
}

const struct power_ops pdudaemon_power_ops = {
	.name = DRIVER,
	.create = pdudaemon_create,
	.request = pdudaemon_request,
	.close = pdudaemon_close,
};
