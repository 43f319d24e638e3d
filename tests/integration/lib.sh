# Shared by the integration tests (sourced, not run): TAP-like assertions.
# Each check prints "ok N - description" or "not ok N - description";
# tests/run-all.sh counts those lines.

assertions=0
failures=0

# check DESCRIPTION COMMAND...: runs COMMAND; its status is the verdict.
check() {
	local description=$1
	shift
	assertions=$((assertions + 1))
	if "$@"; then
		echo "ok $assertions - $description"
	else
		failures=$((failures + 1))
		echo "not ok $assertions - $description"
	fi
}

# contains FILE PATTERN / lacks FILE PATTERN
contains() { grep -q -e "$2" "$1"; }
lacks() { ! grep -q -e "$2" "$1"; }

# The vlab binary under test: the sanitized one when it was built.
vlab_under_test() {
	local build=${RACKBISECT_BUILD:-$1/build}
	if [ -x "$build/asan/rackbisect-vlab" ]; then
		echo "$build/asan/rackbisect-vlab"
	else
		echo "$build/rackbisect-vlab"
	fi
}

# The coordinator under test: the sanitized one when it was built.
rackbisect_under_test() {
	local build=${RACKBISECT_BUILD:-$1/build}
	if [ -x "$build/asan/rackbisect" ]; then
		echo "$build/asan/rackbisect"
	else
		echo "$build/rackbisect"
	fi
}
