/*
 * kernel_log.h - the simulated kernel's printk ring, as the console and
 * dmesg show it: "[%5lu.%06lu] text", one line per entry.
 *
 * Lines are numbered from 0 since boot; the ring keeps the last
 * KERNEL_LOG_CAPACITY of them (the contract promises at least 10000).
 * `dmesg -c` only moves where dmesg starts reading; the console still sees
 * every line held.
 */
#ifndef RB_SIM_KERNEL_LOG_H
#define RB_SIM_KERNEL_LOG_H

#include <stdint.h>

#define KERNEL_LOG_CAPACITY 16384

struct kernel_log {
	char *lines[KERNEL_LOG_CAPACITY];
	uint64_t next;		/* number the next line gets */
	uint64_t dmesg_first;	/* first line dmesg prints (after dmesg -c) */
};

void kernel_log_init(struct kernel_log *log);
/* Frees every line and restarts numbering at 0 (a boot). */
void kernel_log_reset(struct kernel_log *log);
/* Appends text stamped with time_us; text may hold several lines and may end
 * with a newline. 0, or -ENOMEM. */
int kernel_log_append(struct kernel_log *log, uint64_t time_us, const char *text);
/* The line numbered `number`, or NULL when not (or no longer) held. */
const char *kernel_log_line(const struct kernel_log *log, uint64_t number);
/* The oldest line number still held. */
uint64_t kernel_log_first_held(const struct kernel_log *log);
/* Where dmesg starts: the later of the oldest held line and dmesg -c's mark. */
uint64_t kernel_log_dmesg_first(const struct kernel_log *log);
void kernel_log_clear_dmesg(struct kernel_log *log);

#endif
