/*
 * tool_protocol.h - how a board tool (iw, ping, sleep, ... run inside a
 * board's SSH session) asks the board's simulator to run it.
 *
 * Every tool on a virtual board is a link to rackbisect-board-tool, which
 * connects to the board's Unix socket, sends its argv and working directory,
 * and copies the answer to its stdout/stderr, then exits with the status the
 * simulator gave. The simulator may never answer: the board's host hung, and
 * so does the tool, as on a frozen machine.
 *
 * Request:  "RBT1\n" ARGC "\n" { LEN "\n" BYTES } x ARGC, then LEN "\n" CWD
 * Answer:   frames of TYPE (1 byte) + LENGTH (4 bytes, big-endian) + PAYLOAD;
 *           TYPE 'o' stdout, 'e' stderr, 'x' exit (payload: 4-byte status).
 */
#ifndef RB_TOOL_PROTOCOL_H
#define RB_TOOL_PROTOCOL_H

#define TOOL_PROTOCOL_MAGIC "RBT1\n"
#define TOOL_SOCKET_ENV "RACKBISECT_BOARD_SOCKET"
/* Where the socket is inside a board's mount namespace. */
#define TOOL_SOCKET_DEFAULT "/run/rackbisect-board/tool.sock"
#define TOOL_MAX_ARGS 256
#define TOOL_MAX_ARG_LEN 65536

#define TOOL_FRAME_STDOUT 'o'
#define TOOL_FRAME_STDERR 'e'
#define TOOL_FRAME_EXIT 'x'

#endif
