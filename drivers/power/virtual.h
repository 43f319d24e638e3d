/*
 * The virtual lab's power switch: each request is one line on the lab
 * supervisor's control socket ("power BOARD on|off|cycle"), answered by one
 * line ("ok STATE" or "error TEXT"). The socket is found under the lab's
 * state directory (virtual/lab/lab_state.h); the driver takes no options.
 */
#ifndef RB_POWER_VIRTUAL_H
#define RB_POWER_VIRTUAL_H

#include "power/power.h"

extern const struct power_ops virtual_power_ops;

#endif
