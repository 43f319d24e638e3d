#!/bin/bash
# Every input under tests/fuzz/ replayed through its harness built with ASan
# and UBSan: the seed corpora (real lab files, board KTAP, LAVA answers,
# stable commit messages) and every crash or hang `make fuzz` ever saved.
# A parser that crashes, leaks or misbehaves on one of them fails here.
# Prints "ok N - ..." / "not ok N - ...".
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
build=${RACKBISECT_BUILD:-$root/build}
work=$(mktemp -d /tmp/rackbisect-fuzz-replay-XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

# leaks count: a parser run once per lab file must not leak either
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

harnesses=0
for source in "$root"/tests/fuzz/fuzz_*.c; do
	harness=$(basename "$source" .c)
	[ "$harness" = fuzz_main ] && continue
	harnesses=$((harnesses + 1))
	binary=$build/asan/fuzz/$harness
	check "$harness is built with the sanitizers" test -x "$binary"
	for set in corpus crashes; do
		files=()
		for f in "$root/tests/fuzz/$set/$harness"/*; do
			[ -f "$f" ] && [ "$(basename "$f")" != README.md ] && files+=("$f")
		done
		if [ "$set" = corpus ]; then
			check "$harness has a seed corpus" test "${#files[@]}" -gt 0
		fi
		[ "${#files[@]}" -gt 0 ] || continue
		"$binary" "${files[@]}" >"$work/$harness-$set.out" 2>"$work/$harness-$set.err"
		status=$?
		check "$harness replays its ${#files[@]} $set inputs: exit 0, no sanitizer report" \
			bash -c "[ $status -eq 0 ] && [ \$(grep -c '^replayed ' '$work/$harness-$set.out') -eq ${#files[@]} ] &&
				 ! grep -q 'Sanitizer\|runtime error' '$work/$harness-$set.err'"
		[ "$status" -eq 0 ] || tail -n 30 "$work/$harness-$set.err" | sed 's/^/# /'
	done
done
check "four harnesses: lab/job YAML, KTAP, LAVA answers, commit messages" test "$harnesses" -eq 4

[ "$failures" -eq 0 ]
