/*
 * A serial console as ser2net serves it: a raw TCP stream, bytes in order,
 * or telnet (ser2net's `telnet,tcp,...` accepter).
 *
 *   console: {driver: tcp, port: 3001, host: 192.0.2.10}
 *   console: {driver: tcp, port: 3002, host: 192.0.2.10, protocol: telnet}
 *
 * In telnet, the server's option negotiation is answered by refusing every
 * option (a console needs none), subnegotiations are dropped and a doubled
 * 0xff is one data byte: the capture holds what the board wrote.
 * `port` is required; `host` defaults to the board's transport host. Both
 * must be numeric (IPv4 or IPv6): a name would need resolving on every
 * reconnect, and a console server is configured by address anyway.
 *
 * The virtual lab's boards serve their console the same way, so
 * virtual_console_ops is the same driver under the name the virtual lab
 * uses (`console: {driver: virtual, port: 7000}`).
 */
#ifndef RB_CONSOLE_TCP_H
#define RB_CONSOLE_TCP_H

#include "console/console.h"

extern const struct console_ops tcp_console_ops;
extern const struct console_ops virtual_console_ops;

#endif
