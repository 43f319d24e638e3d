/* kernel_log.c - printk ring of formatted lines. */
#include "virtual/sim/kernel_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kernel_log_init(struct kernel_log *log)
{
	memset(log, 0, sizeof(*log));
}

void kernel_log_reset(struct kernel_log *log)
{
	size_t i;

	for (i = 0; i < KERNEL_LOG_CAPACITY; i++)
		free(log->lines[i]);
	kernel_log_init(log);
}

static int append_one_line(struct kernel_log *log, uint64_t time_us,
			   const char *text, size_t len)
{
	size_t slot = log->next % KERNEL_LOG_CAPACITY;
	char *line;

	if (asprintf(&line, "[%5lu.%06lu] %.*s", (unsigned long)(time_us / 1000000),
		     (unsigned long)(time_us % 1000000), (int)len, text) < 0)
		return -ENOMEM;
	free(log->lines[slot]);
	log->lines[slot] = line;
	log->next++;
	return 0;
}

int kernel_log_append(struct kernel_log *log, uint64_t time_us, const char *text)
{
	while (*text) {
		const char *end = strchr(text, '\n');
		size_t len = end ? (size_t)(end - text) : strlen(text);
		int r = append_one_line(log, time_us, text, len);

		if (r < 0)
			return r;
		if (!end)
			break;
		text = end + 1;
	}
	return 0;
}

uint64_t kernel_log_first_held(const struct kernel_log *log)
{
	return log->next > KERNEL_LOG_CAPACITY ? log->next - KERNEL_LOG_CAPACITY : 0;
}

const char *kernel_log_line(const struct kernel_log *log, uint64_t number)
{
	if (number >= log->next || number < kernel_log_first_held(log))
		return NULL;
	return log->lines[number % KERNEL_LOG_CAPACITY];
}

uint64_t kernel_log_dmesg_first(const struct kernel_log *log)
{
	uint64_t first = kernel_log_first_held(log);

	return log->dmesg_first > first ? log->dmesg_first : first;
}

void kernel_log_clear_dmesg(struct kernel_log *log)
{
	log->dmesg_first = log->next;
}
