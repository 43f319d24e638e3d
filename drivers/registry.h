/*
 * registry.h - drivers by the names the lab YAML uses (`power: {driver:
 * command}`). The core looks a driver up here and calls through its ops
 * table; it never compares a driver's name itself.
 */
#ifndef RB_REGISTRY_H
#define RB_REGISTRY_H

#include <stddef.h>

#include "boot/boot.h"
#include "console/console.h"
#include "power/power.h"
#include "transport/transport.h"

const struct power_ops *registry_power(const char *name);		/* NULL: unknown */
const struct console_ops *registry_console(const char *name);
const struct boot_ops *registry_boot(const char *name);
const struct transport_ops *registry_transport(const char *name);

/* "command, virtual": the known names of a kind, for error messages. */
void registry_power_names(char *buffer, size_t len);
void registry_console_names(char *buffer, size_t len);
void registry_boot_names(char *buffer, size_t len);

#endif
