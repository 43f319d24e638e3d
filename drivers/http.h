/*
 * http.h - HTTP requests on the caller's libuv loop, through libcurl's
 * multi-socket interface: nothing blocks, any number of requests are in
 * flight at once, and each answer arrives through its callback. The drivers
 * that speak HTTP (pdudaemon's power API; LAVA's REST API) share it.
 *
 *   struct http_client *client;
 *   http_client_new(loop, &client);
 *   http_get(client, "http://127.0.0.1:16421/power/control/on?hostname=pdu&port=3",
 *            10000, on_answer, data);
 *   ...
 *   static void on_answer(const struct http_answer *answer, void *data)
 *   { if (answer->status == 0 && answer->code == 200) ... }
 *   http_client_close(client);    // pending requests end -ECANCELED
 *
 * Only http and https are spoken, and never through a proxy the environment
 * names: a lab's PDU daemon or LAVA server is reached at the address its
 * configuration gives, and nowhere else. No global state but libcurl's own
 * (curl_global_init, reference-counted by libcurl).
 */
#ifndef RB_HTTP_H
#define RB_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

struct http_client;

struct http_answer {
	/* 0: an answer came (whatever its code); else a negative errno:
	 *   -ETIMEDOUT      no answer within the timeout
	 *   -ECONNREFUSED   nothing listens there (or the address cannot be reached)
	 *   -ECANCELED      the client was closed first
	 *   -EIO            anything else (error_text says what) */
	int status;
	long code;			/* the HTTP status code; 0 without an answer */
	const char *body;		/* NUL-terminated, at most HTTP_BODY_LIMIT bytes */
	size_t body_length;
	const char *error_text;		/* libcurl's words when status != 0, else NULL */
};

/* A longer body is cut there (the answers we read are short). */
#define HTTP_BODY_LIMIT (1024 * 1024)

typedef void (*http_answer_cb)(const struct http_answer *answer, void *data);

int http_client_new(uv_loop_t *loop, struct http_client **out);
/* Starts a GET; 0 (the callback runs once, from the loop) or a negative errno
 * (-EINVAL: a URL that is not http or https; -ENOMEM). */
int http_get(struct http_client *client, const char *url, uint64_t timeout_ms,
	     http_answer_cb callback, void *data);
/*
 * Any request: a GET, or a POST when body is given. Header lines are sent
 * as given ("Authorization: Token ...": the caller keeps secrets out of its
 * own logs; nothing here logs). body_limit 0: HTTP_BODY_LIMIT.
 */
struct http_options {
	const char *url;
	const char *const *headers;	/* "Name: value", NULL-terminated; may be NULL */
	const char *body;		/* POST this (copied); NULL: GET */
	uint64_t timeout_ms;
	size_t body_limit;		/* keep at most this much of the answer */
};

int http_request(struct http_client *client, const struct http_options *options,
		 http_answer_cb callback, void *data);

/* Pending requests get -ECANCELED now; the client is freed once its handles
 * are closed (run the loop). */
void http_client_close(struct http_client *client);

/*
 * True when `url` is on the server `base` names: the same scheme, host and
 * port (a port left out is the scheme's own), as libcurl parses them. A
 * prefix is not enough: "http://lava.lab" is a prefix of
 * "http://lava.lab.evil.net/", and a server's "next page" link must not
 * carry its token anywhere else. False for anything libcurl cannot parse.
 */
bool http_same_server(const char *base, const char *url);

#endif
