#!/bin/bash
# make fuzz: runs AFL++ on each harness for SECONDS, one after the other,
# from tests/fuzz/corpus/HARNESS/, and copies every crash or hang it finds
# into tests/fuzz/crashes/HARNESS/ (make check replays that directory: a
# crash found once stays a regression test). Exit 1 when anything was found.
# usage: tests/fuzz/run.sh BUILD_DIR SECONDS HARNESS...
set -u
build=$1
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/fuzz-out
found=0

# No core_pattern or CPU governor is ours to change on a shared machine;
# AFL++ only warns about them. No UI: the output may be a log.
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
export AFL_QUIET=1 AFL_SKIP_CRASHES=1
# ASan's own checks are how a memory error becomes a crash AFL++ sees.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:symbolize=0:allocator_may_return_null=1

stat_of() { sed -n "s/^$2 *: //p" "$1/default/fuzzer_stats" 2>/dev/null; }

echo "make fuzz: ${seconds} s per harness: $*"
for harness in "$@"; do
	corpus=$root/tests/fuzz/corpus/$harness
	if [ ! -d "$corpus" ]; then
		echo "make fuzz: no seed corpus $corpus for $harness" >&2
		exit 2
	fi
	rm -rf "${out:?}/$harness"
	mkdir -p "$out/$harness"
	afl-fuzz -V "$seconds" -m none -t 2000 -i "$corpus" -o "$out/$harness" \
		-- "$build/afl/fuzz/$harness" >"$out/$harness.log" 2>&1
	status=$?
	if [ ! -f "$out/$harness/default/fuzzer_stats" ]; then
		echo "make fuzz: afl-fuzz did not start on $harness (exit $status); its log:" >&2
		tail -n 20 "$out/$harness.log" >&2
		exit 2
	fi
	crashes=0
	mkdir -p "$root/tests/fuzz/crashes/$harness"
	for f in "$out/$harness/default/crashes"/id:* "$out/$harness/default/hangs"/id:*; do
		[ -f "$f" ] || continue
		kind=crash
		case $f in */hangs/*) kind=hang ;; esac
		name=$kind-$(sha1sum "$f" | cut -c1-16)
		cp "$f" "$root/tests/fuzz/crashes/$harness/$name"
		echo "make fuzz: $harness: $kind saved as tests/fuzz/crashes/$harness/$name"
		crashes=$((crashes + 1))
	done
	echo "make fuzz: $harness: $(stat_of "$out/$harness" execs_done) inputs" \
		"($(stat_of "$out/$harness" execs_per_sec)/s), $(stat_of "$out/$harness" corpus_count) in the corpus," \
		"$(stat_of "$out/$harness" bitmap_cvg) of the map covered, $crashes crashes or hangs"
	[ "$crashes" -eq 0 ] || found=1
done
if [ "$found" -ne 0 ]; then
	echo "make fuzz: found crashes or hangs; replay one: $build/asan/fuzz/HARNESS FILE"
	exit 1
fi
echo "make fuzz: nothing found"
