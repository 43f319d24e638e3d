/* registry.c - every driver, by the name the lab YAML gives it. */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "boot/grub.h"
#include "boot/kexec.h"
#include "boot/virtual.h"
#include "console/tcp.h"
#include "power/command.h"
#include "power/pdudaemon.h"
#include "power/qemu.h"
#include "power/virtual.h"
#include "transport/ssh.h"

static const struct power_ops *const power_drivers[] = { &command_power_ops, &pdudaemon_power_ops,
							   &qemu_power_ops, &virtual_power_ops };
static const struct console_ops *const console_drivers[] = { &tcp_console_ops, &virtual_console_ops };
static const struct boot_ops *const boot_drivers[] = { &kexec_boot_ops, &grub_boot_ops,
							&virtual_boot_ops };
static const struct transport_ops *const transport_drivers[] = { &ssh_transport_ops };

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* Each table is an array of pointers to ops structs whose first member is the name. */
#define FIND(table, name)                                                     \
	do {                                                                  \
		size_t i_;                                                    \
		for (i_ = 0; name && i_ < COUNT(table); i_++)                 \
			if (strcmp(table[i_]->name, name) == 0)               \
				return table[i_];                             \
		return NULL;                                                  \
	} while (0)

#define NAMES(table, buffer, len)                                             \
	do {                                                                  \
		size_t i_, used_ = 0;                                         \
		if (len)                                                      \
			buffer[0] = '\0';                                     \
		for (i_ = 0; i_ < COUNT(table) && used_ < len; i_++)          \
			used_ += (size_t)snprintf(buffer + used_, len - used_, \
						  "%s%s", i_ ? ", " : "",     \
						  table[i_]->name);           \
	} while (0)

const struct power_ops *registry_power(const char *name) { FIND(power_drivers, name); }
const struct console_ops *registry_console(const char *name) { FIND(console_drivers, name); }
const struct boot_ops *registry_boot(const char *name) { FIND(boot_drivers, name); }
const struct transport_ops *registry_transport(const char *name) { FIND(transport_drivers, name); }

void registry_power_names(char *buffer, size_t len) { NAMES(power_drivers, buffer, len); }
void registry_console_names(char *buffer, size_t len) { NAMES(console_drivers, buffer, len); }
void registry_boot_names(char *buffer, size_t len) { NAMES(boot_drivers, buffer, len); }
