/*
 * client.h - LAVA's REST API (v0.2) on the caller's libuv loop, through
 * drivers/http.h: submit a job, follow it, read its results and log,
 * cancel it. Nothing blocks; any number of requests are in flight.
 *
 *   lava_client_new(loop, "http://lava.lab", token, &client);
 *   lava_submit(client, definition, on_submitted, data);
 *   static void on_submitted(const struct lava_answer *answer, void *data)
 *   { if (answer->status == 0) follow(answer->job_id); else say(answer->error_text); }
 *
 * The token goes in the Authorization header only: it is in no error text,
 * no log line and no URL. Pages of /tests/ are followed only while their
 * "next" link stays on the same server.
 */
#ifndef RB_LAVA_CLIENT_H
#define RB_LAVA_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "config.h"

struct lava_client;

struct lava_answer {
	/* 0, or a negative errno:
	 *   -EACCES      the token was refused (401/403)
	 *   -EINVAL      LAVA refused the request (400): text says why
	 *   -ENOENT      no such job (404)
	 *   -ETIMEDOUT, -ECONNREFUSED, -EIO   the server was not reached or failed */
	int status;
	long job_id;			/* lava_submit */
	const char *text;		/* the answer's body (every page of /tests/ as one JSON
					 * array); valid during the callback */
	const char *error_text;		/* what went wrong, naming the server; NULL when 0 */
};

typedef void (*lava_answer_cb)(const struct lava_answer *answer, void *data);

/* url: the server ("http://lava.lab:8017"); the token is copied. */
int lava_client_new(uv_loop_t *loop, const char *url, const char *token,
		    struct lava_client **out);

/*
 * The client of a `type: lava` lab: its lava url and its token, read from
 * token_file (relative to the lab file; refused when others may read it)
 * or the environment variable token_env. 0, or a negative errno with
 * `error` saying which file or variable and what to do (never the token).
 */
int lava_client_open(uv_loop_t *loop, const struct lab *lab, struct lava_client **out,
		     char *error, size_t error_len);

int lava_submit(struct lava_client *client, const char *definition, lava_answer_cb callback,
		void *data);
/* POST /jobs/validate/: text is LAVA's verdict on the definition (JSON). */
int lava_validate(struct lava_client *client, const char *definition, lava_answer_cb callback,
		  void *data);
int lava_job(struct lava_client *client, long job_id, lava_answer_cb callback, void *data);
int lava_job_tests(struct lava_client *client, long job_id, lava_answer_cb callback, void *data);
int lava_job_logs(struct lava_client *client, long job_id, lava_answer_cb callback, void *data);
int lava_job_cancel(struct lava_client *client, long job_id, lava_answer_cb callback, void *data);

/*
 * The jobs this client has in LAVA: each job lava_submit got an id for,
 * until its run lets it go (lava_client_forget_job, once it has read the
 * job's end). When rackbisect stops, lava_client_cancel_all asks LAVA to
 * cancel every one of them, and refuses further submissions (-ECANCELED):
 * a stopped coordinator must not leave devices busy with jobs nobody reads.
 * It returns how many cancels it sent; `done` runs once all are answered
 * (never, when it returned 0).
 */
void lava_client_forget_job(struct lava_client *client, long job_id);
size_t lava_client_jobs_in_flight(const struct lava_client *client);
size_t lava_client_cancel_all(struct lava_client *client, void (*done)(void *data), void *data);

/* Pending requests end with -ECANCELED; freed once its handles close. */
void lava_client_close(struct lava_client *client);

#endif
