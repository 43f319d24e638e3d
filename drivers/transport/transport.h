/*
 * transport: how the coordinator reaches a board's shell. A driver is a const
 * ops table; each instance is a struct transport at the head of the driver's
 * private state. Everything runs on the caller's uv_loop_t: calls return at
 * once (0 or a negative errno) and completion arrives through a callback.
 *
 * Error codes a callback may report (negative errno):
 *   -ETIMEDOUT     connect or command timeout
 *   -ECONNREFUSED  nothing listens on host:port
 *   -ENOKEY        the board's host key is not in the lab's known_hosts
 *   -EKEYREJECTED  known_hosts holds a different key for this board
 *   -EACCES        the identity was refused
 *   TRANSPORT_BAD_IDENTITY  our own identity (the private key file) cannot be
 *                  used: missing, unreadable, encrypted or not a key. No board
 *                  is at fault, and no retry or power cycle can help; the
 *                  error text says which
 *   -EIO           any other SSH or network failure (see the error text)
 *   -ECANCELED     the transport was closed before the request finished
 */
#ifndef RACKBISECT_TRANSPORT_H
#define RACKBISECT_TRANSPORT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

struct transport;

/* The errno is only a code here (transport.h's list above). */
#define TRANSPORT_BAD_IDENTITY (-EKEYEXPIRED)

/* Output kept per stream of one exec unless the config says otherwise: a
 * workload's KTAP is kilobytes, and one that prints forever must cost no
 * memory. What comes past the limit is read and dropped, and counted. */
#define TRANSPORT_OUTPUT_LIMIT_DEFAULT ((size_t)16 << 20)

/*
 * SSH handshakes (TCP, key exchange, authentication) that may be under way
 * at once among the transports sharing it. A coordinator that reaches a
 * hundred boards at the same moment does every key exchange on its one
 * loop: all at once, none finishes within the connect timeout on a busy
 * machine. Past `max`, a connect waits its turn; its timeout starts when
 * its handshake does. Owned by whoever owns the loop (the board set).
 */
struct transport_connect_wait;
struct transport_connect_limit {
	unsigned int max;		/* 0: no limit */
	unsigned int in_flight;
	struct transport_connect_wait *first;	/* waiting, in order */
};

struct transport_config {
	const char *board_name;		/* names the board in error text */
	const char *host;		/* numeric address or resolvable name */
	unsigned int port;
	const char *user;
	const char *identity_file;	/* private key; the only credential tried */
	const char *known_hosts_file;	/* the only known_hosts consulted */
	uint64_t connect_timeout_ms;	/* TCP + banner + key exchange + auth */
	uint64_t keepalive_interval_ms;	/* 0: no keepalives */
	size_t output_limit;		/* bytes kept per stream of an exec; 0: the default */
	struct transport_connect_limit *connect_limit;	/* NULL: none; must outlive the transport */
};

struct transport_exec_result {
	int status;			/* 0, or negative errno: see above */
	int exit_status;		/* remote exit status; -1 if none was sent */
	const char *exit_signal;	/* "KILL", ... if killed by a signal, else NULL */
	const char *stdout_text;	/* NUL-terminated; valid during the callback */
	size_t stdout_length;
	const char *stderr_text;
	size_t stderr_length;
	size_t stdout_dropped;		/* bytes past the output limit, read and thrown away */
	size_t stderr_dropped;
	const char *error_text;		/* why status != 0, else NULL */
	/*
	 * A command that timed out (status -ETIMEDOUT) is killed on the board,
	 * its whole process group, before this callback runs. 0: nothing of it
	 * is left running (checked on the board), or it never started; else why
	 * that cannot be said: -EBUSY some of it outlived SIGKILL, -ESRCH its
	 * PID never reached us, or the kill's own failure (-ETIMEDOUT: the board
	 * did not answer it; -ECANCELED: the transport was closed first). A
	 * caller that cannot trust the board then must power-cycle it before it
	 * takes another run. 0 for any other status.
	 */
	int kill_status;
};

typedef void (*transport_connect_cb)(struct transport *transport, int status,
				     const char *error_text, void *data);
typedef void (*transport_exec_cb)(struct transport *transport,
				  const struct transport_exec_result *result, void *data);
typedef void (*transport_upload_cb)(struct transport *transport, int status,
				    const char *error_text, void *data);
/* transport is NULL: the instance has been freed when this runs. */
typedef void (*transport_close_cb)(struct transport *transport, void *data);

struct transport_ops {
	const char *name;
	/* Allocates an unconnected transport; the config strings are copied. */
	int (*create)(uv_loop_t *loop, const struct transport_config *config,
		      struct transport **transport_out);
	int (*connect)(struct transport *transport, transport_connect_cb callback, void *data);
	/*
	 * Runs argv on the board. Each word reaches the remote program as one
	 * argument, whatever it contains. timeout_ms 0 means none.
	 */
	int (*exec)(struct transport *transport, const char *const *argv, uint64_t timeout_ms,
		    transport_exec_cb callback, void *data);
	/* Copies a local file to remote_path (created or truncated). */
	int (*upload)(struct transport *transport, const char *local_path,
		      const char *remote_path, uint64_t timeout_ms,
		      transport_upload_cb callback, void *data);
	/*
	 * Fails pending requests with -ECANCELED, disconnects, and frees the
	 * transport once its libuv handles are closed; then calls callback.
	 */
	void (*close)(struct transport *transport, transport_close_cb callback, void *data);
};

struct transport {
	const struct transport_ops *ops;
	uv_loop_t *loop;
};

#endif
