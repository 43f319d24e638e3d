#!/bin/bash
# 52 hostile strings (shell syntax, newlines, option-looking words, very long
# words, non-UTF-8, YAML syntax, terminal escapes) used as a ref (to bisect
# and to run), a repository
# path and a board name (tests/unit/test_hostile_words.c sends them as
# workload parameters). Each must get a clear error
# or be handled as the plain text it is: no command of a string ever runs
# (each would create a canary file), nothing crashes, no sanitizer report.
# Also: a new state directory is the operator's alone (0700).
# Prints "ok N - ..." / "not ok N - ...".
set -u
# bytes are bytes: in a UTF-8 locale bash's read swallows the NUL after an
# incomplete sequence ("caf\xc3")
export LC_ALL=C

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
rb=$(rackbisect_under_test "$root")
work=$(mktemp -d /tmp/rackbisect-hostile-XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP
canary=$work/pwned

# tests/data/hostile-strings: 52 NUL-terminated strings, @CANARY@ standing
# for a file each would create if it ever ran as a command.
hostile=()
while IFS= read -r -d '' s; do
	hostile+=("${s//@CANARY@/$canary}")
done <"$root/tests/data/hostile-strings"
check "52 hostile strings" test "${#hostile[@]}" -eq 52

"$root/build/rackbisect-vlab" make-tree --scenario releases --seed 1 --out "$work/tree" \
	--truth "$work/truth.json" >/dev/null 2>&1
check "a model tree to bisect in" test -d "$work/tree/.git"

# yaml_quote TEXT: a double-quoted YAML scalar of TEXT (YAML escapes what
# could end it); bytes that are not UTF-8 stay as they are.
yaml_quote() {
	local text=${1//\\/\\\\}
	text=${text//\"/\\\"}
	text=${text//$'\n'/\\n}
	text=${text//$'\r'/\\r}
	text=${text//$'\t'/\\t}
	text=${text//$'\e'/\\e}
	printf '"%s"' "$text"
}

refs_ok=0 runs_ok=0 trees_ok=0 boards_ok=0 params_ok=0 i=0
for s in "${hostile[@]}"; do
	i=$((i + 1))
	out=$work/out-$i
	# ---- as a ref: a usage error naming it, never a git option or a command
	"$rb" bisect --repo "$work/tree" --good "$s" --bad v3.3.1 --run true >"$out.ref" 2>&1
	status=$?
	if [ "$status" -eq 2 ] && grep -qi "ref\|commit\|revision" "$out.ref"; then
		refs_ok=$((refs_ok + 1))
	else
		echo "# ref #$i: exit $status: $(head -c 300 "$out.ref" | tr '\n' ' ')"
	fi
	# ---- as `run --commit`: a usage error before any lab or build is
	# touched (a 5,000-byte ref was lab trouble, exit 3: "File name too long")
	"$rb" run "$root/jobs/ath9k-ps.yaml" --commit "$s" --tree "$work/tree" --state "$work/state" \
		>"$out.run" 2>&1
	status=$?
	if [ "$status" -eq 2 ] && grep -qi "ref\|commit\|revision" "$out.run"; then
		runs_ok=$((runs_ok + 1))
	else
		echo "# run #$i: exit $status: $(head -c 300 "$out.run" | tr '\n' ' ')"
	fi
	# ---- as the repository path: not a git repository, said so
	"$rb" bisect --repo "$s" --good v3.3 --bad v3.3.1 --run true >"$out.tree" 2>&1
	status=$?
	if [ "$status" -eq 2 ]; then
		trees_ok=$((trees_ok + 1))
	else
		echo "# tree #$i: exit $status: $(head -c 300 "$out.tree" | tr '\n' ' ')"
	fi
	# ---- as a board name: refused at file:line:col, or shown as written
	{
		echo "name: hostile"
		echo "type: virtual"
		echo "boards:"
		echo "  - name: $(yaml_quote "$s")"
		echo "    chip: ar9285"
		echo "    transport: {host: 127.77.18.1, port: 2222}"
	} >"$work/lab-$i.yaml"
	"$rb" lab status "$work/lab-$i.yaml" --state "$work/state" >"$out.board" 2>&1
	status=$?
	if { [ "$status" -eq 2 ] && grep -q "lab-$i.yaml:[0-9]*:[0-9]*: " "$out.board"; } ||
	   { [ "$status" -eq 0 ] && grep -qF -- "$s" "$out.board"; }; then
		boards_ok=$((boards_ok + 1))
	else
		echo "# board #$i: exit $status: $(head -c 300 "$out.board" | tr '\n' ' ')"
	fi
done
check "as a ref: each of the 52 refused with exit 2, saying it names no commit" test "$refs_ok" -eq 52
check "as run --commit: each refused with exit 2, saying it names no commit" test "$runs_ok" -eq 52
check "as the repository path: each refused with exit 2" test "$trees_ok" -eq 52
check "as a board name: each refused at file:line:col, or shown as written" test "$boards_ok" -eq 52

# ---- the state directory: the lab's keys, logs and results are the operator's alone
(umask 022 && "$rb" runs --last 1 --state "$work/fresh/state" --lab "$root/labs/virtual.yaml" \
	>"$work/out-state" 2>&1)
check "a new state directory is made 0700 whatever the umask" \
	test "$(stat -c %a "$work/fresh/state" 2>/dev/null)" = 700

# every error above quotes the string it refuses: quoted, no byte of it may
# act on a terminal (colours, a window title, a carriage return over the
# line); newline and tab are all the control characters rackbisect prints
check "no control character of a string reached the output raw" \
	bash -c "! grep -l \$'[\x01-\x08\x0b-\x1f\x7f]' '$work'/out-*.ref '$work'/out-*.run"
check "no string ran as a command (no canary file)" bash -c "! ls '$canary'* >/dev/null 2>&1"
check "no sanitizer report, no crash" \
	bash -c "! grep -l 'Sanitizer\|runtime error\|Segmentation' '$work'/out-* 2>/dev/null"

[ "$failures" -eq 0 ]
