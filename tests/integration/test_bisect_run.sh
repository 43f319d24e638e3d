#!/bin/bash
# rackbisect bisect --repo --run: the bisection engine on any test command
# (git bisect run's exit codes), here a test that catches the bug only half
# the time. Checks the culprit and its stated probability, K jobs at once in
# worktrees, --no-checkout, skips next to the culprit, abort, and that no
# worktree is left behind; the ends that cannot be right (a bad end that
# never fails, a good end that fails too), the confirmation it prints, and
# stated rates. Also shows what plain `git bisect run` says.
#
# Prints "ok N - ..." / "not ok N - ...".
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/integration/lib.sh"
rb=$(rackbisect_under_test "$root")
work=$(mktemp -d /tmp/rackbisect-bisect-run-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP

# make_repo DIR CULPRIT BROKEN...: 256 commits c1..c256 after c0; from CULPRIT
# on the file `bug` exists; commits named in BROKEN carry `broken` (skip).
make_repo() {
	local dir=$1 culprit=$2 i message was_broken=no
	shift 2
	git init -q "$dir"
	{
		for i in $(seq 0 256); do
			message="c$i: change $i"
			printf 'commit refs/heads/master\nmark :%d\n' $((i + 1))
			printf 'committer tester <t@example.com> %d +0000\n' $((1700000000 + i))
			printf 'data %d\n%s\n' ${#message} "$message"
			[ "$i" -gt 0 ] && printf 'from :%d\n' "$i"
			[ "$i" -eq "$culprit" ] && printf 'M 100644 inline bug\ndata 4\nbug\n'
			case " $* " in
			*" $i "*) printf 'M 100644 inline broken\ndata 2\nx\n'; was_broken=yes ;;
			*) [ $was_broken = yes ] && printf 'D broken\n'; was_broken=no ;;
			esac
			printf 'reset refs/tags/c%d\nfrom :%d\n' "$i" $((i + 1))
		done
	} | git -C "$dir" fast-import --quiet
	git -C "$dir" checkout -q master
}

# The test: 125 when the commit is broken; when it has the bug, fails only on
# half of its runs (pseudo-random, but the same for the same commit and attempt).
cat >"$work/flaky-test" <<'SH'
#!/bin/sh
commit=${RACKBISECT_COMMIT:-$(git rev-parse HEAD)}
git cat-file -e "$commit:broken" 2>/dev/null && exit 125
git cat-file -e "$commit:bug" 2>/dev/null || exit 0
counts=$FLAKY_COUNTS
mkdir -p "$counts"
n=$(($(cat "$counts/$commit" 2>/dev/null || echo 0) + 1))
echo "$n" >"$counts/$commit"
h=$(printf '%s-%s' "$commit" "$n" | cksum | cut -d' ' -f1)
[ $((h % 2)) -eq 0 ] && exit 1
exit 0
SH
chmod +x "$work/flaky-test"
export FLAKY_COUNTS=$work/counts

make_repo "$work/repo" 137 60 61 62
culprit=$(git -C "$work/repo" rev-parse c137)

"$rb" bisect --repo "$work/repo" --good c0 --bad c256 --run "$work/flaky-test" --jobs 4 \
	>"$work/jobs4.out" 2>"$work/jobs4.err"
check "flaky test, 4 jobs: exit 1 (a first bad commit)" test $? -eq 1
check "flaky test, 4 jobs: it is the culprit" contains "$work/jobs4.out" "^first bad commit: $culprit c137"
check "flaky test, 4 jobs: with probability at least 0.99" \
	bash -c "sed -n 's/.*(probability \\([0-9.]*\\)).*/\\1/p' '$work/jobs4.out' | awk '{ exit !(\$1 >= 0.99) }'"
check "flaky test, 4 jobs: several commits per round" bash -c "[ \$(grep -c '^  [0-9a-f]*: ' '$work/jobs4.out') -gt \$(grep -c '^round ' '$work/jobs4.out') ]"
check "no worktree left behind" bash -c "[ \$(git -C '$work/repo' worktree list | wc -l) -eq 1 ]"
check "the repository's checkout is untouched" bash -c "[ \"\$(git -C '$work/repo' rev-parse HEAD)\" = \"\$(git -C '$work/repo' rev-parse c256)\" ] && [ -z \"\$(git -C '$work/repo' status --porcelain)\" ]"
sed -n '/^found\|^FOUND\|runs in/p' "$work/jobs4.out" | sed 's/^/# /'

rm -rf "$work/counts"
"$rb" bisect --repo "$work/repo" --good c0 --bad c256 --run "$work/flaky-test" --no-checkout \
	>"$work/nocheckout.out" 2>&1
check "--no-checkout, 1 job: the culprit" contains "$work/nocheckout.out" "^first bad commit: $culprit"

# a test that never misses, told so: git bisect's number of runs
cat >"$work/exact-test" <<'SH'
#!/bin/sh
git cat-file -e "${RACKBISECT_COMMIT}:broken" 2>/dev/null && exit 125
git cat-file -e "${RACKBISECT_COMMIT}:bug" 2>/dev/null && exit 1
exit 0
SH
chmod +x "$work/exact-test"
"$rb" bisect --repo "$work/repo" --good c0 --bad c256 --run "$work/exact-test" --deterministic \
	>"$work/exact.out" 2>&1
check "--deterministic: the culprit" contains "$work/exact.out" "^first bad commit: $culprit"
check "--deterministic: in at most 10 runs (git bisect: ceil(log2 256) = 8, plus skips)" \
	bash -c "[ \$(grep -c '^  [0-9a-f]*: ' '$work/exact.out') -le 10 ]"

# what plain git bisect run makes of the same flaky test (shown, not judged)
rm -rf "$work/counts"
(cd "$work/repo" && git bisect start c256 c0 >/dev/null && git bisect run "$work/flaky-test" >"$work/git.out" 2>&1; git bisect reset >/dev/null 2>&1)
said=$(sed -n 's/^\([0-9a-f]*\) is the first bad commit$/\1/p' "$work/git.out")
echo "# git bisect run on the same flaky test named $(git -C "$work/repo" describe --tags "$said" 2>/dev/null || echo nothing) (the culprit is c137)"

# a broken commit right before the culprit: only skipped commits left
make_repo "$work/skips" 137 136
rm -rf "$work/counts"
"$rb" bisect --repo "$work/skips" --good c0 --bad c256 --run "$work/flaky-test" --jobs 2 \
	>"$work/skips.out" 2>&1
check "skip next to the culprit: the answer is the set of both" \
	bash -c "grep -q 'could be any of' '$work/skips.out' && grep -q 'c136' '$work/skips.out' && grep -q 'c137' '$work/skips.out'"

# the test says abort
cat >"$work/abort-test" <<'SH'
#!/bin/sh
exit 200
SH
chmod +x "$work/abort-test"
"$rb" bisect --repo "$work/repo" --good c0 --bad c256 --run "$work/abort-test" >"$work/abort.out" 2>&1
check "exit 128 or more from the test: abort, exit 3" \
	bash -c "[ $? -eq 3 ] && grep -q 'aborted' '$work/abort.out'"
check "no worktree left behind after an abort" bash -c "[ \$(git -C '$work/repo' worktree list | wc -l) -eq 1 ]"

# the answer says what confirmed it
check "flaky test: the answer says what confirmed it (its FAILs, its parent's passes)" \
	grep -q '^confirmed: it failed [1-9][0-9]* of [0-9]* runs; parent [0-9a-f]* passed [1-9][0-9]* of' "$work/jobs4.out"

# a bad end that never fails: after the runs that would have shown a
# regression (88 under the default prior, at 0.99), no regression, exit 0
"$rb" bisect --repo "$work/repo" --good c0 --bad c256 --run true --no-checkout >"$work/never.out" 2>&1
check "a bad end that never fails: exit 0" test $? -eq 0
check "... 'no regression seen' with its probability" \
	grep -q '^no regression seen between the good commits and c256 at probability 0\.[0-9]*: the bad end passed 88 of 88 runs' "$work/never.out"

# a test that fails everywhere, the good end too: the ends bracket nothing
"$rb" bisect --repo "$work/repo" --good c0 --bad c256 --run false --no-checkout >"$work/always.out" 2>&1
check "a good end that fails too: exit 3" test $? -eq 3
check "... 'the good end is bad too', after running it" \
	bash -c "grep -q '^the good end [0-9a-f]* is bad too (probability 0\.99' '$work/always.out' && grep -q ': bad (exit 1) (the good end)' '$work/always.out'"

# stated rates: what contradicts itself is a usage error
"$rb" bisect --repo "$work/repo" --good c0 --bad c256 --run true --detect-rate 0.3 --false-fail-rate 0.5 >"$work/rates.out" 2>&1
check "--detect-rate not above --false-fail-rate: exit 2 saying so" \
	bash -c "[ $? -eq 2 ] && grep -q 'must be above --false-fail-rate' '$work/rates.out'"
"$rb" bisect --repo "$work/repo" --good c0 --bad c256 --run true --deterministic --detect-rate 1 >"$work/rates2.out" 2>&1
check "--deterministic with --detect-rate: exit 2 saying so" \
	bash -c "[ $? -eq 2 ] && grep -q 'deterministic states both rates' '$work/rates2.out'"
rm -rf "$work/counts"
"$rb" bisect --repo "$work/repo" --good c0 --bad c256 --run "$work/flaky-test" --no-checkout \
	--detect-rate 0.5 --false-fail-rate 0 >"$work/stated.out" 2>&1
check "rates stated (0.5, 0): the culprit" contains "$work/stated.out" "^first bad commit: $culprit"
sed -n '/ after [0-9]* runs in /p' "$work/stated.out" | sed 's/^/# stated: /'

"$rb" bisect --repo "$work/repo" --good c0 --bad c256 >"$work/usage.out" 2>&1
check "no --run: exit 2 with the usage" bash -c "[ $? -eq 2 ] && grep -q 'usage: rackbisect bisect' '$work/usage.out'"
"$rb" bisect --repo "$work/repo" --good nope --bad c256 --run true >"$work/ref.out" 2>&1
check "unknown good ref: exit 2 naming it" bash -c "[ $? -eq 2 ] && grep -q \"no commit 'nope'\" '$work/ref.out'"

[ "$failures" -eq 0 ]
