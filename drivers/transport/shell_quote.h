/*
 * Turning argv into one command string for a remote POSIX shell: SSH exec
 * carries a single string, which the remote login shell splits again.
 */
#ifndef RACKBISECT_SHELL_QUOTE_H
#define RACKBISECT_SHELL_QUOTE_H

/*
 * Quotes every word of the NULL-terminated argv so that the remote shell
 * sees exactly those words, and joins them with spaces. *command_out is
 * malloc'd. Returns 0, -EINVAL for an empty argv, or -ENOMEM.
 */
int shell_quote_argv(const char *const *argv, char **command_out);

#endif
