/*
 * The SSH transport driver: libssh in non-blocking mode, driven by a
 * uv_poll_t on the session's socket and uv_timer_t timeouts. Host keys are
 * checked strictly against the configured known_hosts file only; the only
 * credential offered is the configured identity file.
 *
 * exec runs argv through the remote login shell with every word quoted, so
 * a word reaches the program as one argument. upload streams the file into
 * `cat > PATH` on an exec channel (the remote needs only a POSIX shell and
 * cat, as on a busybox board).
 */
#ifndef RACKBISECT_TRANSPORT_SSH_H
#define RACKBISECT_TRANSPORT_SSH_H

#include "transport/transport.h"

extern const struct transport_ops ssh_transport_ops;

#endif
