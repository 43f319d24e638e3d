/* fault_plan.c - which fault strikes a virtual board at which event. */
#include "virtual/board/fault_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fault_kind_info {
	const char *name;
	enum fault_event event;
	unsigned int max;	/* the largest number the lab file may give */
};

static const struct fault_kind_info fault_kinds[FAULT_KIND_COUNT] = {
	[FAULT_HANG_DEPLOY] = { "hang-deploy", FAULT_EVENT_DEPLOY, 1000000 },
	[FAULT_HANG_BOOT] = { "hang-boot", FAULT_EVENT_BOOT, 1000000 },
	[FAULT_HANG_WORKLOAD] = { "hang-workload", FAULT_EVENT_WORKLOAD_TOOL, 1000000 },
	[FAULT_SSH_DROP_UPLOAD] = { "ssh-drop-upload", FAULT_EVENT_FALLBACK_UNAME, 1000000 },
	[FAULT_SSH_DROP_WORKLOAD] = { "ssh-drop-workload", FAULT_EVENT_WORKLOAD_TOOL, 1000000 },
	[FAULT_REBOOT_WORKLOAD] = { "reboot-workload", FAULT_EVENT_WORKLOAD_TOOL, 1000000 },
	[FAULT_CONSOLE_DROP] = { "console-drop", FAULT_EVENT_WORKLOAD_TOOL, 1000000 },
	[FAULT_STALL_WORKLOAD] = { "stall-workload", FAULT_EVENT_WORKLOAD_TOOL, 1000000 },
	/* a boot limit is minutes; more than one would only test patience */
	[FAULT_SLOW_BOOT] = { "slow-boot", FAULT_EVENT_COUNT, 60000 },
	[FAULT_POWER_ERROR] = { "power-error", FAULT_EVENT_POWER, 1000000 },
	[FAULT_POWER_TIMEOUT] = { "power-timeout", FAULT_EVENT_POWER, 1000000 },
};

const char *fault_kind_name(enum fault_kind kind)
{
	return kind < FAULT_KIND_COUNT ? fault_kinds[kind].name : "none";
}

const char *fault_event_name(enum fault_event event)
{
	static const char *const names[FAULT_EVENT_COUNT] = {
		[FAULT_EVENT_DEPLOY] = "deploy",
		[FAULT_EVENT_BOOT] = "boot",
		[FAULT_EVENT_WORKLOAD_TOOL] = "workload-tool",
		[FAULT_EVENT_FALLBACK_UNAME] = "fallback-uname",
		[FAULT_EVENT_POWER] = "power",
	};

	return event < FAULT_EVENT_COUNT ? names[event] : "none";
}

const char *fault_kind_names(void)
{
	return "hang-deploy, hang-boot, hang-workload, ssh-drop-upload, ssh-drop-workload, "
	       "reboot-workload, console-drop, stall-workload, slow-boot, power-error, power-timeout";
}

static int find_kind(const char *name, enum fault_kind *kind)
{
	int i;

	for (i = 0; i < FAULT_KIND_COUNT; i++) {
		if (strcmp(fault_kinds[i].name, name) == 0) {
			*kind = (enum fault_kind)i;
			return 0;
		}
	}
	return -ENOENT;
}

static int parse_count(const char *text, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long value;

	if (text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	value = strtoul(text, &end, 10);
	if (errno || *end || value == 0 || value > max)
		return -EINVAL;
	*out = (unsigned int)value;
	return 0;
}

int fault_plan_load(struct fault_plan *plan, const struct lab_board *board, char *error,
		    size_t error_len)
{
	char where[512];
	size_t i;

	memset(plan, 0, sizeof(*plan));
	for (i = 0; i < board->fault_count; i++) {
		const struct config_setting *setting = &board->faults[i];
		enum fault_kind kind;

		config_location_format(&setting->where, where, sizeof(where));
		if (find_kind(setting->name, &kind) != 0) {
			snprintf(error, error_len, "%s: board '%s': unknown fault '%s' (known: %s)",
				 where, board->name, setting->name, fault_kind_names());
			return -EINVAL;
		}
		if (parse_count(setting->value, fault_kinds[kind].max, &plan->at[kind]) != 0) {
			snprintf(error, error_len,
				 "%s: board '%s': fault %s needs a whole number from 1 to %u (%s), not '%s'",
				 where, board->name, setting->name, fault_kinds[kind].max,
				 kind == FAULT_SLOW_BOOT ? "extra ms per boot"
							 : "the event it strikes at, counted from 1",
				 setting->value);
			return -EINVAL;
		}
	}
	return 0;
}

enum fault_kind fault_plan_event(struct fault_plan *plan, enum fault_event event)
{
	unsigned int count;
	int i;

	if (event >= FAULT_EVENT_COUNT)
		return FAULT_KIND_COUNT;
	count = ++plan->seen[event];
	for (i = 0; i < FAULT_KIND_COUNT; i++) {
		if (fault_kinds[i].event == event && plan->at[i] == count && !plan->struck[i]) {
			plan->struck[i] = true;
			return (enum fault_kind)i;
		}
	}
	return FAULT_KIND_COUNT;
}

unsigned int fault_plan_boot_delay_ms(const struct fault_plan *plan)
{
	return plan->at[FAULT_SLOW_BOOT];
}
