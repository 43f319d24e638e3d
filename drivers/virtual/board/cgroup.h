/*
 * cgroup.h - one cgroup v2 directory per board: its sshd and every session
 * live there, so a hang freezes them all at once (connect succeeds, no SSH
 * banner, open sessions print nothing more, like a frozen machine) and a
 * power-off ends them all at once, whatever they forked.
 */
#ifndef RB_CGROUP_H
#define RB_CGROUP_H

#include <stddef.h>

/* Finds where cgroup2 is mounted (/sys/fs/cgroup, or .../unified on a
 * hybrid host). 0 or -ENOENT. */
int cgroup_find_root(char *path, size_t len);

/* Creates (if needed) root/rackbisect/NAME... e.g. "lab-virtual/vb01". */
int cgroup_create(const char *relative, char *path, size_t len);
int cgroup_freeze(const char *path, int frozen);
/* Ends every process in the cgroup (cgroup.kill) and waits until it is
 * empty, up to timeout_ms. 0, or -ETIMEDOUT. */
int cgroup_kill_all(const char *path, int timeout_ms);
/* SIGKILLs every process in it but keep_pid (a board's sshd listener:
 * its connections drop, it goes on accepting). Does not wait. The number
 * signalled, or negative errno. */
int cgroup_kill_all_but(const char *path, int keep_pid);
/* Number of processes in it, or negative errno. */
int cgroup_process_count(const char *path);
/* Removes an empty cgroup directory. */
int cgroup_remove(const char *path);
/* Moves the calling process into the cgroup. */
int cgroup_enter(const char *path);

#endif
