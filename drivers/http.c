/*
 * http.c - HTTP on the libuv loop through libcurl's multi-socket interface
 * (see http.h): libcurl says which sockets to watch and when to time out,
 * uv_poll and one uv_timer tell it when they are ready. The shape is
 * libcurl's own docs/examples/multi-uv.c.
 */
#include "http.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

struct http_request;

struct http_client {
	uv_loop_t *loop;
	CURLM *multi;
	uv_timer_t timer;
	struct http_request *requests;	/* in flight */
	struct http_socket *sockets;	/* watched */
	size_t open_handles;		/* the timer and the polls: freed at 0 */
	bool closing;
};

struct http_request {
	struct http_client *client;
	struct http_request *next;
	CURL *easy;
	http_answer_cb callback;
	void *data;
	char *body;
	size_t body_length;
	size_t body_limit;
	struct curl_slist *headers;
	char error[CURL_ERROR_SIZE];
};

/* One socket libcurl asked us to watch. */
struct http_socket {
	uv_poll_t poll;
	struct http_client *client;
	struct http_socket *next;
	curl_socket_t fd;
};

/* ---- handles ------------------------------------------------------------------------------- */

static void free_client_if_done(struct http_client *client)
{
	if (client->closing && client->open_handles == 0) {
		curl_global_cleanup();
		free(client);
	}
}

static void on_poll_closed(uv_handle_t *handle);

static void on_timer_closed(uv_handle_t *handle)
{
	struct http_client *client = handle->data;

	client->open_handles--;
	free_client_if_done(client);
}

static void stop_watching(struct http_socket *socket)
{
	struct http_socket **link;

	for (link = &socket->client->sockets; *link; link = &(*link)->next) {
		if (*link == socket) {
			*link = socket->next;
			break;
		}
	}
	uv_poll_stop(&socket->poll);
	uv_close((uv_handle_t *)&socket->poll, on_poll_closed);
}

static void on_poll_closed(uv_handle_t *handle)
{
	struct http_socket *socket = handle->data;
	struct http_client *client = socket->client;

	free(socket);
	client->open_handles--;
	free_client_if_done(client);
}

/* ---- answers ------------------------------------------------------------------------------- */

static int status_of(CURLcode code)
{
	switch (code) {
	case CURLE_OK:
		return 0;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
		return -ECONNREFUSED;
	default:
		return -EIO;
	}
}

static void unlink_request(struct http_request *request)
{
	struct http_request **link;

	for (link = &request->client->requests; *link; link = &(*link)->next) {
		if (*link == request) {
			*link = request->next;
			return;
		}
	}
}

/* Calls back once and frees the request; status overrides libcurl's code. */
static void finish(struct http_request *request, CURLcode code, int status)
{
	struct http_answer answer = { .status = status ? status : status_of(code) };

	unlink_request(request);
	curl_multi_remove_handle(request->client->multi, request->easy);
	if (answer.status == 0)
		curl_easy_getinfo(request->easy, CURLINFO_RESPONSE_CODE, &answer.code);
	answer.body = request->body ? request->body : "";
	answer.body_length = request->body_length;
	if (answer.status)
		answer.error_text = status == -ECANCELED ? "cancelled"
				    : request->error[0] ? request->error : curl_easy_strerror(code);
	request->callback(&answer, request->data);
	curl_easy_cleanup(request->easy);
	curl_slist_free_all(request->headers);
	free(request->body);
	free(request);
}

static void read_finished(struct http_client *client)
{
	CURLMsg *message;
	int left;

	while ((message = curl_multi_info_read(client->multi, &left))) {
		struct http_request *request = NULL;

		if (message->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&request);
		finish(request, message->data.result, 0);
	}
}

/* ---- libcurl's callbacks -------------------------------------------------------------------- */

static void on_poll(uv_poll_t *poll, int status, int events)
{
	struct http_socket *socket = poll->data;
	struct http_client *client = socket->client;
	int flags = 0, running;

	if (status < 0)
		flags = CURL_CSELECT_ERR;
	if (events & UV_READABLE)
		flags |= CURL_CSELECT_IN;
	if (events & UV_WRITABLE)
		flags |= CURL_CSELECT_OUT;
	curl_multi_socket_action(client->multi, socket->fd, flags, &running);
	read_finished(client);
}

static void on_timeout(uv_timer_t *timer)
{
	struct http_client *client = timer->data;
	int running;

	curl_multi_socket_action(client->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	read_finished(client);
}

static int on_curl_timer(CURLM *multi, long timeout_ms, void *data)
{
	struct http_client *client = data;

	(void)multi;
	if (timeout_ms < 0)
		uv_timer_stop(&client->timer);
	else	/* 0 too: libcurl may not be called back from inside this */
		uv_timer_start(&client->timer, on_timeout, (uint64_t)timeout_ms, 0);
	return 0;
}

static int on_curl_socket(CURL *easy, curl_socket_t fd, int what, void *data, void *socket_data)
{
	struct http_client *client = data;
	struct http_socket *socket = socket_data;
	int events = 0;

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		if (socket) {
			stop_watching(socket);
			curl_multi_assign(client->multi, fd, NULL);
		}
		return 0;
	}
	if (!socket) {
		if (!(socket = calloc(1, sizeof(*socket))) ||
		    uv_poll_init_socket(client->loop, &socket->poll, fd) != 0) {
			free(socket);
			return -1;
		}
		socket->client = client;
		socket->fd = fd;
		socket->poll.data = socket;
		socket->next = client->sockets;
		client->sockets = socket;
		client->open_handles++;
		curl_multi_assign(client->multi, fd, socket);
	}
	if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
		events |= UV_READABLE;
	if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
		events |= UV_WRITABLE;
	uv_poll_start(&socket->poll, events, on_poll);
	return 0;
}

static size_t on_body(char *bytes, size_t size, size_t count, void *data)
{
	struct http_request *request = data;
	size_t length = size * count, room = request->body_limit - request->body_length;
	size_t kept = length < room ? length : room;
	char *grown = realloc(request->body, request->body_length + kept + 1);

	if (!grown)
		return 0;	/* libcurl ends the transfer with a write error */
	request->body = grown;
	memcpy(request->body + request->body_length, bytes, kept);
	request->body_length += kept;
	request->body[request->body_length] = '\0';
	return length;
}

/* ---- the interface -------------------------------------------------------------------------- */

int http_client_new(uv_loop_t *loop, struct http_client **out)
{
	struct http_client *client = calloc(1, sizeof(*client));

	if (!client)
		return -ENOMEM;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(client);
		return -ENOMEM;
	}
	client->loop = loop;
	if (!(client->multi = curl_multi_init())) {
		curl_global_cleanup();
		free(client);
		return -ENOMEM;
	}
	uv_timer_init(loop, &client->timer);
	client->timer.data = client;
	client->open_handles = 1;
	curl_multi_setopt(client->multi, CURLMOPT_SOCKETFUNCTION, on_curl_socket);
	curl_multi_setopt(client->multi, CURLMOPT_SOCKETDATA, client);
	curl_multi_setopt(client->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
	curl_multi_setopt(client->multi, CURLMOPT_TIMERDATA, client);
	*out = client;
	return 0;
}

static bool is_http_url(const char *url)
{
	return strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0;
}

static void free_request(struct http_request *request)
{
	if (request->easy)
		curl_easy_cleanup(request->easy);
	curl_slist_free_all(request->headers);
	free(request);
}

/* The request's header lines; a body (copied by libcurl) makes it a POST. */
static int set_method(struct http_request *request, const struct http_options *options)
{
	for (const char *const *header = options->headers; header && *header; header++) {
		struct curl_slist *grown = curl_slist_append(request->headers, *header);

		if (!grown)
			return -ENOMEM;
		request->headers = grown;
	}
	if (request->headers)
		curl_easy_setopt(request->easy, CURLOPT_HTTPHEADER, request->headers);
	if (options->body) {
		curl_easy_setopt(request->easy, CURLOPT_POSTFIELDSIZE, (long)strlen(options->body));
		curl_easy_setopt(request->easy, CURLOPT_COPYPOSTFIELDS, options->body);
	}
	return 0;
}

int http_request(struct http_client *client, const struct http_options *options,
		 http_answer_cb callback, void *data)
{
	struct http_request *request;
	int rc;

	if (!options->url || !is_http_url(options->url) || client->closing)
		return -EINVAL;
	if (!(request = calloc(1, sizeof(*request))) || !(request->easy = curl_easy_init())) {
		free(request);
		return -ENOMEM;
	}
	request->client = client;
	request->callback = callback;
	request->data = data;
	request->body_limit = options->body_limit ? options->body_limit : HTTP_BODY_LIMIT;
	curl_easy_setopt(request->easy, CURLOPT_URL, options->url);
	curl_easy_setopt(request->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(request->easy, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(request->easy, CURLOPT_TIMEOUT_MS, (long)options->timeout_ms);
	curl_easy_setopt(request->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(request->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(request->easy, CURLOPT_WRITEDATA, request);
	curl_easy_setopt(request->easy, CURLOPT_ERRORBUFFER, request->error);
	curl_easy_setopt(request->easy, CURLOPT_PRIVATE, request);
	rc = set_method(request, options);
	if (!rc && curl_multi_add_handle(client->multi, request->easy) != CURLM_OK)
		rc = -ENOMEM;
	if (rc) {
		free_request(request);
		return rc;
	}
	request->next = client->requests;
	client->requests = request;
	return 0;
}

int http_get(struct http_client *client, const char *url, uint64_t timeout_ms,
	     http_answer_cb callback, void *data)
{
	const struct http_options options = { .url = url, .timeout_ms = timeout_ms };

	return http_request(client, &options, callback, data);
}

void http_client_close(struct http_client *client)
{
	if (!client || client->closing)
		return;
	client->closing = true;
	while (client->requests)
		finish(client->requests, CURLE_OK, -ECANCELED);
	/* libcurl closes its cached connections here, telling on_curl_socket */
	curl_multi_cleanup(client->multi);
	client->multi = NULL;
	while (client->sockets)
		stop_watching(client->sockets);
	uv_timer_stop(&client->timer);
	uv_close((uv_handle_t *)&client->timer, on_timer_closed);
}

/* One part of a parsed URL, the scheme's own port for a port left out. */
static char *url_part(CURLU *handle, CURLUPart part)
{
	char *value = NULL;

	if (curl_url_get(handle, part, &value, part == CURLUPART_PORT ? CURLU_DEFAULT_PORT : 0))
		return NULL;
	return value;
}

bool http_same_server(const char *base, const char *url)
{
	static const CURLUPart parts[] = { CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT };
	CURLU *handles[2] = { curl_url(), curl_url() };
	bool same = handles[0] && handles[1] &&
		    !curl_url_set(handles[0], CURLUPART_URL, base, 0) &&
		    !curl_url_set(handles[1], CURLUPART_URL, url, 0);

	for (size_t i = 0; same && i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *ours = url_part(handles[0], parts[i]), *theirs = url_part(handles[1], parts[i]);

		same = ours && theirs && strcasecmp(ours, theirs) == 0;
		curl_free(ours);
		curl_free(theirs);
	}
	curl_url_cleanup(handles[0]);
	curl_url_cleanup(handles[1]);
	return same;
}
