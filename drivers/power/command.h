/*
 * A power switch driven by local commands, e.g. a PDU's own CLI:
 *
 *   power: {driver: command, on: [pdu-switch, '3', 'on'], off: [pdu-switch, '3', 'off']}
 *
 * `on` and `off` are required, `cycle` is optional (default: off, then on).
 * Each is a list of argv words run without a shell; a word that is exactly
 * "{board}" or "{host}" becomes the board's name or transport host, and one
 * that is exactly "{env:NAME}" the value of environment variable NAME (a PDU
 * password: never in the lab file, and never in a message, which shows the
 * word, also where the command's own output repeats the value). Exit
 * status 0 is success; anything else fails the request with the command's
 * last stderr words. A relative program or path is taken from the lab
 * file's directory, as the lab's other paths are.
 */
#ifndef RB_POWER_COMMAND_H
#define RB_POWER_COMMAND_H

#include "power/power.h"

extern const struct power_ops command_power_ops;

#endif
