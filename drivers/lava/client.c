/* client.c - see client.h. */
#include "lava/client.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "http.h"

#define REQUEST_TIMEOUT_MS 60000
#define LOG_LIMIT (64 * 1024 * 1024)	/* a job's log; longer is cut there */
#define MAX_PAGES 200

struct lava_client {
	struct http_client *http;
	char url[512];			/* without a trailing '/' */
	char authorization[600];	/* "Authorization: Token ..." */
	long *jobs;			/* in flight: submitted, not forgotten */
	size_t job_count, job_size;
	bool stopping;			/* cancel_all ran: no more submissions */
	size_t cancels_pending;
	void (*cancels_done)(void *data);
	void *cancels_data;
};

enum call_kind { CALL_SUBMIT, CALL_PLAIN, CALL_PAGES };

struct call {
	struct lava_client *client;
	enum call_kind kind;
	lava_answer_cb callback;
	void *data;
	json_t *pages;			/* CALL_PAGES: the results so far */
	unsigned int page_count;
	char what[96];			/* "job 42's tests": for error texts */
};

int lava_client_new(uv_loop_t *loop, const char *url, const char *token,
		    struct lava_client **out)
{
	struct lava_client *client;
	size_t length = url ? strlen(url) : 0;
	int rc;

	if (!url || !token || !*token || strchr(token, '\n') || strchr(token, '\r'))
		return -EINVAL;
	while (length && url[length - 1] == '/')
		length--;
	client = calloc(1, sizeof(*client));
	if (!client)
		return -ENOMEM;
	if (length >= sizeof(client->url) ||
	    (size_t)snprintf(client->authorization, sizeof(client->authorization),
			     "Authorization: Token %s", token) >= sizeof(client->authorization)) {
		free(client);
		return -ENAMETOOLONG;
	}
	memcpy(client->url, url, length);
	rc = http_client_new(loop, &client->http);
	if (rc) {
		free(client);
		return rc;
	}
	*out = client;
	return 0;
}

/* A token file: the owner's alone, one line. */
static int read_token_file(const struct lab *lab, char *token, size_t len, char *error,
			   size_t error_len)
{
	char path[PATH_MAX];
	struct stat status;
	int rc = lab_path(lab, lab->lava.token_file, path, sizeof(path));

	if (rc) {
		snprintf(error, error_len, "lab %s: lava token_file path too long", lab->name);
		return rc;
	}
	if (stat(path, &status) != 0) {
		rc = -errno;
		snprintf(error, error_len, "lab %s: lava token_file %s: %s (put the LAVA API token "
			 "there, readable by you only: chmod 600)", lab->name, path, strerror(errno));
		return rc;
	}
	if (status.st_mode & 077) {
		snprintf(error, error_len, "lab %s: lava token_file %s may be read by others (mode "
			 "%o): chmod 600 it", lab->name, path, (unsigned int)(status.st_mode & 0777));
		return -EPERM;
	}
	rc = files_read_line(path, token, len);
	if (rc)
		snprintf(error, error_len, "lab %s: lava token_file %s: %s", lab->name, path,
			 strerror(-rc));
	return rc;
}

static int read_token(const struct lab *lab, char *token, size_t len, char *error,
		      size_t error_len)
{
	const char *value;
	size_t end;
	int rc = 0;

	if (lab->lava.token_file) {
		rc = read_token_file(lab, token, len, error, error_len);
	} else {
		value = getenv(lab->lava.token_env);
		if (!value || !*value) {
			snprintf(error, error_len, "lab %s: the environment variable %s (lava "
				 "token_env) is not set: export it with the LAVA API token",
				 lab->name, lab->lava.token_env);
			return -ENOENT;
		}
		snprintf(token, len, "%s", value);
	}
	end = strlen(token);
	while (!rc && end && strchr(" \t\r\n", token[end - 1]))
		token[--end] = '\0';
	if (!rc && !end) {
		snprintf(error, error_len, "lab %s: the LAVA token is empty", lab->name);
		rc = -EINVAL;
	}
	return rc;
}

int lava_client_open(uv_loop_t *loop, const struct lab *lab, struct lava_client **out,
		     char *error, size_t error_len)
{
	char token[512];
	int rc = read_token(lab, token, sizeof(token), error, error_len);

	if (!rc) {
		rc = lava_client_new(loop, lab->lava.url, token, out);
		if (rc)
			snprintf(error, error_len, "lab %s: cannot make a LAVA client for %s: %s",
				 lab->name, lab->lava.url, strerror(-rc));
	}
	memset(token, 0, sizeof(token));
	return rc;
}

void lava_client_close(struct lava_client *client)
{
	if (!client)
		return;
	free(client->jobs);
	http_client_close(client->http);
	memset(client->authorization, 0, sizeof(client->authorization));
	free(client);
}

/* ---- the jobs in flight ------------------------------------------------------------------- */

/* Out of memory, a job goes untracked: only a stop would miss canceling it. */
static void remember_job(struct lava_client *client, long job_id)
{
	if (client->job_count == client->job_size) {
		size_t size = client->job_size ? client->job_size * 2 : 16;
		long *grown = realloc(client->jobs, size * sizeof(*grown));

		if (!grown)
			return;
		client->jobs = grown;
		client->job_size = size;
	}
	client->jobs[client->job_count++] = job_id;
}

void lava_client_forget_job(struct lava_client *client, long job_id)
{
	size_t i;

	for (i = 0; i < client->job_count; i++)
		if (client->jobs[i] == job_id) {
			client->jobs[i] = client->jobs[--client->job_count];
			return;
		}
}

size_t lava_client_jobs_in_flight(const struct lava_client *client)
{
	return client->job_count;
}

static void on_canceled(const struct lava_answer *answer, void *data)
{
	struct lava_client *client = data;

	(void)answer;		/* best effort: a job that already ended cannot be canceled */
	if (--client->cancels_pending == 0 && client->cancels_done)
		client->cancels_done(client->cancels_data);
}

size_t lava_client_cancel_all(struct lava_client *client, void (*done)(void *data), void *data)
{
	size_t i;

	client->stopping = true;
	client->cancels_done = NULL;	/* not before every cancel is sent */
	for (i = 0; i < client->job_count; i++)
		if (lava_job_cancel(client, client->jobs[i], on_canceled, client) == 0)
			client->cancels_pending++;
	client->job_count = 0;
	client->cancels_done = done;
	client->cancels_data = data;
	return client->cancels_pending;
}

/* ---- answers ------------------------------------------------------------------------------- */

/* LAVA's own words: {"message": ...} or {"detail": ...}, else the start of the body. */
static void lava_message(const char *body, char *out, size_t len)
{
	json_t *answer = json_loads(body, 0, NULL);
	const char *message = json_string_value(json_object_get(answer, "message"));

	if (!message)
		message = json_string_value(json_object_get(answer, "detail"));
	if (message)
		snprintf(out, len, "%s", message);
	else
		snprintf(out, len, "%.300s", body);
	json_decref(answer);
}

static int status_of_code(long code)
{
	if (code >= 200 && code < 300)
		return 0;
	if (code == 401 || code == 403)
		return -EACCES;
	if (code == 400)
		return -EINVAL;
	if (code == 404)
		return -ENOENT;
	return -EIO;
}

static void finish(struct call *call, int status, long job_id, const char *text,
		   const char *error_text)
{
	struct lava_answer answer = { status, job_id, text ? text : "", status ? error_text : NULL };

	call->callback(&answer, call->data);
	json_decref(call->pages);
	free(call);
}

static void fail(struct call *call, const struct http_answer *http)
{
	char error[2048], message[600];
	int status = http->status ? http->status : status_of_code(http->code);

	if (http->status)
		snprintf(error, sizeof(error), "LAVA at %s: %s: %s", call->client->url, call->what,
			 http->error_text ? http->error_text : strerror(-http->status));
	else {
		lava_message(http->body, message, sizeof(message));
		snprintf(error, sizeof(error), "LAVA at %s: %s: HTTP %ld%s: %s", call->client->url,
			 call->what, http->code,
			 status == -EACCES ? " (the lab's token was refused: check token_file or "
					     "token_env)" : "", message);
	}
	finish(call, status, 0, http->body, error);
}

static void on_submitted(struct call *call, const struct http_answer *http)
{
	json_t *answer = json_loads(http->body, 0, NULL);
	json_t *ids = json_object_get(answer, "job_ids");
	long job_id = (long)json_integer_value(json_array_get(ids, 0));
	char error[2048];

	json_decref(answer);
	if (job_id <= 0) {
		snprintf(error, sizeof(error), "LAVA at %s: %s: no job id in the answer: %.300s",
			 call->client->url, call->what, http->body);
		return finish(call, -EIO, 0, http->body, error);
	}
	remember_job(call->client, job_id);
	finish(call, 0, job_id, http->body, NULL);
}

static int next_page(struct call *call, const char *url);

/* Pages of results, gathered into one array; "next" only on our own server. */
static void on_page(struct call *call, const struct http_answer *http)
{
	json_t *page = json_loads(http->body, 0, NULL);
	const char *next = json_string_value(json_object_get(page, "next"));
	char error[2048], *text;
	int rc = 0;

	if (!json_is_array(json_object_get(page, "results"))) {
		json_decref(page);
		snprintf(error, sizeof(error), "LAVA at %s: %s: not a page of results: %.200s",
			 call->client->url, call->what, http->body);
		return finish(call, -EIO, 0, http->body, error);
	}
	json_array_extend(call->pages, json_object_get(page, "results"));
	if (next && ++call->page_count < MAX_PAGES) {
		if (http_same_server(call->client->url, next))
			rc = next_page(call, next);
		else
			rc = -EPERM;
		json_decref(page);
		if (!rc)
			return;
		snprintf(error, sizeof(error), "LAVA at %s: %s: the next page %s", call->client->url,
			 call->what, rc == -EPERM ? "is on another server: not followed"
						  : "could not be asked for");
		return finish(call, rc, 0, NULL, error);
	}
	json_decref(page);
	text = json_dumps(call->pages, JSON_COMPACT);
	finish(call, text ? 0 : -ENOMEM, 0, text, "no memory for the results");
	free(text);
}

static void on_answer(const struct http_answer *http, void *data)
{
	struct call *call = data;

	if (http->status || http->code < 200 || http->code >= 300)
		return fail(call, http);
	switch (call->kind) {
	case CALL_SUBMIT:
		return on_submitted(call, http);
	case CALL_PAGES:
		return on_page(call, http);
	case CALL_PLAIN:
		return finish(call, 0, 0, http->body, NULL);
	}
}

/* ---- requests ------------------------------------------------------------------------------ */

static int send_request(struct call *call, const char *url, const char *body, size_t limit)
{
	const char *headers[] = { call->client->authorization, "Accept: application/json",
				  body ? "Content-Type: application/json" : NULL, NULL };
	const struct http_options options = { .url = url, .headers = headers, .body = body,
					      .timeout_ms = REQUEST_TIMEOUT_MS,
					      .body_limit = limit };

	return http_request(call->client->http, &options, on_answer, call);
}

static int next_page(struct call *call, const char *url)
{
	return send_request(call, url, NULL, 0);
}

static struct call *new_call(struct lava_client *client, enum call_kind kind,
			     lava_answer_cb callback, void *data, const char *what)
{
	struct call *call = calloc(1, sizeof(*call));

	if (!call)
		return NULL;
	call->client = client;
	call->kind = kind;
	call->callback = callback;
	call->data = data;
	snprintf(call->what, sizeof(call->what), "%s", what);
	if (kind == CALL_PAGES && !(call->pages = json_array())) {
		free(call);
		return NULL;
	}
	return call;
}

/* One call to <url>/api/v0.2/<path>. */
static int start(struct lava_client *client, enum call_kind kind, const char *path,
		 const char *body, size_t limit, const char *what, lava_answer_cb callback,
		 void *data)
{
	struct call *call = new_call(client, kind, callback, data, what);
	char url[1024];
	int rc;

	if (!call)
		return -ENOMEM;
	if ((size_t)snprintf(url, sizeof(url), "%s/api/v0.2/%s", client->url, path) >= sizeof(url))
		rc = -ENAMETOOLONG;
	else
		rc = send_request(call, url, body, limit);
	if (rc) {
		json_decref(call->pages);
		free(call);
	}
	return rc;
}

/* {"definition": "..."}: the YAML as one JSON string. */
static char *definition_body(const char *definition)
{
	json_t *body = json_pack("{s:s}", "definition", definition);
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;

	json_decref(body);
	return text;
}

static int post_definition(struct lava_client *client, const char *path, enum call_kind kind,
			   const char *definition, const char *what, lava_answer_cb callback,
			   void *data)
{
	char *body = definition_body(definition);
	int rc;

	if (!body)
		return -EINVAL;		/* not UTF-8, or no memory */
	rc = start(client, kind, path, body, 0, what, callback, data);
	free(body);
	return rc;
}

int lava_submit(struct lava_client *client, const char *definition, lava_answer_cb callback,
		void *data)
{
	if (client->stopping)
		return -ECANCELED;
	return post_definition(client, "jobs/", CALL_SUBMIT, definition, "submitting a job",
			       callback, data);
}

int lava_validate(struct lava_client *client, const char *definition, lava_answer_cb callback,
		  void *data)
{
	return post_definition(client, "jobs/validate/", CALL_PLAIN, definition,
			       "validating a job", callback, data);
}

static int job_call(struct lava_client *client, long job_id, const char *suffix,
		    enum call_kind kind, size_t limit, const char *what, lava_answer_cb callback,
		    void *data)
{
	char path[64], description[96];

	snprintf(path, sizeof(path), "jobs/%ld/%s", job_id, suffix);
	snprintf(description, sizeof(description), "job %ld%s%s", job_id, *what ? "'s " : "", what);
	return start(client, kind, path, NULL, limit, description, callback, data);
}

int lava_job(struct lava_client *client, long job_id, lava_answer_cb callback, void *data)
{
	return job_call(client, job_id, "", CALL_PLAIN, 0, "", callback, data);
}

int lava_job_tests(struct lava_client *client, long job_id, lava_answer_cb callback, void *data)
{
	return job_call(client, job_id, "tests/", CALL_PAGES, 0, "tests", callback, data);
}

int lava_job_logs(struct lava_client *client, long job_id, lava_answer_cb callback, void *data)
{
	return job_call(client, job_id, "logs/", CALL_PLAIN, LOG_LIMIT, "log", callback, data);
}

int lava_job_cancel(struct lava_client *client, long job_id, lava_answer_cb callback, void *data)
{
	return job_call(client, job_id, "cancel/", CALL_PLAIN, 0, "cancel", callback, data);
}
