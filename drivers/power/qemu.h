/*
 * The power switch of a QEMU virtual machine, through QMP (the QEMU Machine
 * Protocol: JSON lines on a unix socket, QEMU started with
 * `-qmp unix:PATH,server=on,wait=off`):
 *
 *   power: {driver: qemu, qmp: board/qmp.sock}     # relative: beside the lab file
 *
 * off is QMP `stop` then `system_reset` (the machine is halted, and boots
 * from the start when switched on), on is `cont`, cycle is all three. The
 * QEMU process belongs to whoever started the board (drivers/qemu/board.sh),
 * as an outlet belongs to its PDU: the driver never starts or ends it.
 *
 * Each request is one connection: QEMU's greeting, `qmp_capabilities`, then
 * the commands one by one, each waiting for its `return`; QEMU's
 * asynchronous events in between are skipped. QEMU serves one QMP connection
 * at a time and keeps only two more waiting, so an instance's requests take
 * turns, in the order they were made (off then on ends on), and a connect
 * that finds the socket full (another client there) is tried again; the
 * timeout covers the wait. No socket (-ECONNREFUSED), an `error` answer
 * (-EIO, with QEMU's description) or no answer in time (-ETIMEDOUT) fail
 * the request naming the board and the socket.
 */
#ifndef RB_POWER_QEMU_H
#define RB_POWER_QEMU_H

#include "power/power.h"

extern const struct power_ops qemu_power_ops;

#endif
