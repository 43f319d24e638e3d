#!/bin/bash
# usage: tests/run-limited.sh LIMIT GRACE COMMAND...
# Runs COMMAND (a test) for at most LIMIT seconds. Past it, TERM goes to the
# command and to every process below it, then the command has GRACE seconds
# to clean up before KILL ends whatever of that tree is left. Exits with the
# command's status, or 124 when it ran past LIMIT.
#
# Why not timeout(1): it signals the command and its own process group, and
# a bash test is almost always waiting on a child in a group of its own (a
# `timeout 60 grep` of its own, a daemon): bash runs its TERM trap only once
# that child ends, so the trap, and the cleanup that stops the test's boards,
# QEMU or LAVA, never ran before the KILL ten seconds later.
set -u
limit=$1
grace=$2
shift 2

# descendants PID: every process below PID, by parent links in /proc
descendants() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
		{ parent[$1] = $2 }
		END {
			found[root] = 1
			do {
				grew = 0
				for (p in parent)
					if (!(p in found) && (parent[p] in found)) { found[p] = 1; grew = 1 }
			} while (grew)
			for (p in found) if (p != root) print p
		}'
}

"$@" &
command_pid=$!
# waits for the command to end, up to the limit (tail --pid looks every 0.1 s)
if timeout "$limit" tail -s 0.1 --pid="$command_pid" -f /dev/null; then
	wait "$command_pid"
	exit $?
fi
echo "# run-limited: $* ran past ${limit} s: TERM to it and all below it, ${grace} s to clean up" >&2
# shellcheck disable=SC2046 # a list of pids
kill -TERM "$command_pid" $(descendants "$command_pid") 2>/dev/null
if ! timeout "$grace" tail -s 0.1 --pid="$command_pid" -f /dev/null; then
	echo "# run-limited: still running ${grace} s later: KILL" >&2
	# shellcheck disable=SC2046
	kill -KILL $(descendants "$command_pid") "$command_pid" 2>/dev/null
fi
wait "$command_pid" 2>/dev/null
exit 124
