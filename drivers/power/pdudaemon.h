/*
 * A power switch behind pdudaemon (https://github.com/pdudaemon/pdudaemon),
 * the daemon LAVA labs put in front of their PDUs, through its HTTP API:
 *
 *   power: {driver: pdudaemon, url: "http://127.0.0.1:16421", hostname: pdu-rack1, port: 3}
 *   power: {driver: pdudaemon, url: "http://127.0.0.1:16421", alias: vb03-power}
 *
 * on, off and cycle are GET /power/control/{on,off,reboot}?hostname=&port=
 * (or ?alias=); `delay` (seconds, optional) is passed with a reboot, which
 * pdudaemon otherwise holds off for its own default (5 s). pdudaemon queues
 * the requests of one PDU and answers once the command ran, so the timeout
 * covers that queue. A 200 answer is success; any other answer, a timeout
 * or no daemon fails the request naming the PDU and its port (an INFRA for
 * the run). pdudaemon answers 200 even when its command failed: whether the
 * board really went down or came up is for the caller to see (SSH, console).
 */
#ifndef RB_POWER_PDUDAEMON_H
#define RB_POWER_PDUDAEMON_H

#include "power/power.h"

extern const struct power_ops pdudaemon_power_ops;

#endif
