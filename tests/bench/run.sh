#!/bin/bash
# make bench: the virtual lab's speed and memory, measured side by side in one
# run (these machines are shared and noisy: read the ratios, not the seconds).
#  1. simulated time per real second for one board, per driver variant
#     (in-process), and end to end through the fast path (W1 over the tools);
#  2. time to bring up a lab of 8 and of 64 boards (sshd each), per board;
#  3. memory per board: PSS of the supervisor plus every board process;
#  4. fan-out: `uname -r` on 64 and 256 boards at once, by rackbisect's own
#     SSH transport (one uv loop), by parallel-ssh (an ssh process each) and
#     by ansible's ad-hoc command module (a fork and an ssh process each);
#  4b. scheduling at scale: one scheduler, 1,000 simulated boards (no SSH),
#     one run each through the coordinator's run machinery: runs per second,
#     its CPU per run and its memory per board;
#  5. bisection on simulated test results, on kernel-like histories and on
#     the real commit graphs of git and libuv (tests/data/real-dags): the
#     engine with its defaults, told the noise and --deterministic, vs `git
#     bisect run` (real git) vs git's bisection with a repeat wrapper, beside
#     the fewest runs possible: accuracy, runs, rounds, calibration, targets;
#  6. the demo's story: `rackbisect gate --bisect` of v3.3.1-rc1 against v3.3
#     on 8 boards, wall time against its goal (60 s on 2 cores); met only
#     when the gate said REGRESSION (exit 1) and named a culprit.
set -eu
build=${1:-build}
vlab=$build/rackbisect-vlab
work=$(mktemp -d /tmp/rackbisect-bench-XXXXXX)
state=$work/state
trap '"$vlab" down "$work/lab-8.yaml" --state "$state" >/dev/null 2>&1 || true;
      "$vlab" down "$work/lab-64.yaml" --state "$state" >/dev/null 2>&1 || true;
      "$vlab" down "$work/lab-fanout.yaml" --state "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

echo "== 1. simulated time vs real time, one board (goal >= 1000x)"
"$build/bench/bench_sim" "$work" 3600

# The same build through the fast path: a workload script whose every iw,
# ping, sleep and dmesg is a process talking to the simulator.
image=$work/v3.3/arch/x86/boot/bzImage
started=$(date +%s.%N)
"$vlab" sim --kernel "$image" --workload W1 --chip ar9285 --seed 1 -- --duration 600 >"$work/w1.ktap" 2>/dev/null
ended=$(date +%s.%N)
awk -v s="$started" -v e="$ended" 'BEGIN { printf "fast path W1 (600 s simulated, every tool a process): %.2f s real, %.0fx real time\n", e - s, 600 / (e - s) }'

make_lab() {	# make_lab N FILE: N boards on 127.77.(100+i/200).x
	local n=$1 i
	{
		echo "name: bench$n"
		echo "type: virtual"
		echo "boards:"
		for i in $(seq 1 "$n"); do
			echo "  - name: b$i"
			echo "    chip: ar9285"
			echo "    transport: {host: 127.77.$((100 + n / 64)).$i, port: 2222}"
			echo "    console: {driver: virtual, port: 7000}"
		done
	} >"$2"
}

pss_kib() {	# total PSS of the lab's processes: supervisor + everything in its cgroups
	local pid=$1 cgroup total=0 p kib
	for p in $pid $(cat $(find /sys/fs/cgroup -path "*rackbisect/lab-bench$2-*" -name cgroup.procs 2>/dev/null) 2>/dev/null); do
		kib=$(awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
		total=$((total + ${kib:-0}))
	done
	echo "$total"
}

echo
echo "== 2./3. lab bring-up and memory per board"
# uptime_of N FILE: time `up` takes (s)
timed_up() {
	local started ended
	started=$(date +%s.%N)
	"$vlab" up "$2" --state "$state" >"$work/up-$1.out"
	ended=$(date +%s.%N)
	awk -v s="$started" -v e="$ended" 'BEGIN { printf "%.3f", e - s }'
}

for n in 8 64; do
	make_lab "$n" "$work/lab-$n.yaml"
	# cold: host keys generated, fallback kernel built; warm: as after a `down`
	cold=$(timed_up "$n" "$work/lab-$n.yaml")
	"$vlab" down "$work/lab-$n.yaml" --state "$state" >/dev/null
	warm=$(timed_up "$n" "$work/lab-$n.yaml")
	pid=$(cat "$state/labs/bench$n/supervisor.pid")
	kib=$(pss_kib "$pid" "$n")
	awk -v n="$n" -v c="$cold" -v w="$warm" -v k="$kib" 'BEGIN {
		printf "%2d boards: up in %.2f s cold (keys, fallback kernel), %.2f s warm = %.1f ms per board; PSS %.1f MiB total, %.2f MiB per board\n",
			n, c, w, w * 1000 / n, k / 1024, k / 1024 / n }'
	"$vlab" down "$work/lab-$n.yaml" --state "$state" >/dev/null
done

echo
echo "== 4. fan-out: uname -r on N boards at once (rackbisect's transport vs parallel-ssh vs ansible)"
rounds=3

make_fanout_lab() {	# make_fanout_lab N FILE: boards f001.. on 127.77.102.1-255, then 127.77.103.x
	local n=$1 i
	{
		echo "name: fanout"
		echo "type: virtual"
		echo "boards:"
		for i in $(seq 1 "$n"); do
			printf '  - name: f%03d\n' "$i"
			echo "    chip: ar9285"
			if [ "$i" -le 255 ]; then
				echo "    transport: {host: 127.77.102.$i, port: 2222}"
			else
				echo "    transport: {host: 127.77.103.$((i - 255)), port: 2222}"
			fi
			echo "    console: {driver: virtual, port: 7000}"
		done
	} >"$2"
}

# pssh_seconds N: one parallel-ssh run on the first N boards, through the
# lab's ssh_config (its Host entries are the board names); fails unless every
# board exited 0 and printed something. Its ConnectTimeout (5 s) is raised to
# bench_fanout's 60 s: 256 handshakes queue on a small machine, and a slow
# handshake is no error. The ssh client negotiates the lab's default key
# exchange (sntrup761x25519, costlier than libssh 0.10's curve25519): that is
# part of what a user of parallel-ssh pays, so it stays in the figure.
pssh_seconds() {
	local n=$1 out=$work/pssh-out started ended printed
	rm -rf "$out" "$out.err"
	started=$(date +%s.%N)
	if ! parallel-ssh -p "$n" -t 600 -O ConnectTimeout=60 -h "$work/hosts-$n" \
		-X -F -X "$state/labs/fanout/ssh_config" -o "$out" -e "$out.err" uname -r \
		>"$work/pssh-$n.log" 2>&1; then
		echo "parallel-ssh on $n boards failed:" >&2
		grep FAILURE "$work/pssh-$n.log" | head -5 >&2
		cat "$out.err"/* 2>/dev/null | head -5 >&2
		return 1
	fi
	ended=$(date +%s.%N)
	printed=$(find "$out" -type f -size +0 | wc -l)
	if [ "$printed" -ne "$n" ]; then
		echo "parallel-ssh on $n boards: only $printed printed anything" >&2
		return 1
	fi
	awk -v s="$started" -v e="$ended" 'BEGIN { printf "%.3f\n", e - s }'
}

# ansible_seconds N: ansible's ad-hoc `command` module (`uname -r`) on the first
# N boards with N forks, one round (the others: the median of $rounds), through the same ssh_config (ANSIBLE_SSH_ARGS replaces
# ansible's ControlPersist defaults: one connection per board, as the others
# make); fails unless every board answered. Python on the boards is this
# machine's (a virtual board's files are the host's).
ansible_seconds() {
	local n=$1 started ended answered
	started=$(date +%s.%N)
	if ! ANSIBLE_SSH_ARGS="-F $state/labs/fanout/ssh_config -o ConnectTimeout=60" \
		ANSIBLE_HOME="$work/ansible-home" ANSIBLE_LOCAL_TEMP="$work/ansible-tmp" \
		ANSIBLE_REMOTE_TMP=/tmp/.rackbisect-bench-ansible ANSIBLE_HOST_KEY_CHECKING=False \
		ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_TIMEOUT=60 ANSIBLE_FORKS="$n" \
		ANSIBLE_NOCOLOR=1 ANSIBLE_STDOUT_CALLBACK=oneline ANSIBLE_LOAD_CALLBACK_PLUGINS=1 \
		ansible all -i "$work/hosts-$n.ini" -m command -a 'uname -r' >"$work/ansible-$n.log" 2>&1; then
		echo "ansible on $n boards failed:" >&2
		grep -v '| CHANGED |' "$work/ansible-$n.log" | head -5 >&2
		return 1
	fi
	ended=$(date +%s.%N)
	answered=$(grep -c '| CHANGED |' "$work/ansible-$n.log")
	if [ "$answered" -ne "$n" ]; then
		echo "ansible on $n boards: only $answered answered" >&2
		return 1
	fi
	awk -v s="$started" -v e="$ended" 'BEGIN { printf "%.3f\n", e - s }'
}

field() {	# field NAME LINE: the value of NAME=... in bench_fanout's line
	tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

make_fanout_lab 256 "$work/lab-fanout.yaml"
"$vlab" up "$work/lab-fanout.yaml" --state "$state" >"$work/up-fanout.out"
# fanout_row N: both tools on the first N boards; fails when either does
median() { sort -n "$1" | sed -n "$((($(wc -l <"$1") + 1) / 2))p"; }
fanout_row() {
	local n=$1 ours pssh ansible round
	sed -n 's/^  - name: //p' "$work/lab-fanout.yaml" | head -n "$n" >"$work/hosts-$n"
	cp "$work/hosts-$n" "$work/hosts-$n.ini"
	ours=$("$build/bench/bench_fanout" "$work/lab-fanout.yaml" "$state" "$n" "$rounds") || return 1
	: >"$work/pssh-seconds-$n"
	: >"$work/ansible-seconds-$n"
	for round in $(seq "$rounds"); do
		pssh_seconds "$n" >>"$work/pssh-seconds-$n" || return 1
	done
	# one round: ansible takes about a second per board on 2 cores
	ansible_seconds "$n" >>"$work/ansible-seconds-$n" || return 1
	pssh=$(median "$work/pssh-seconds-$n")
	ansible=$(median "$work/ansible-seconds-$n")
	awk -v n="$n" -v x="$(field median_seconds "$ours")" -v y="$pssh" -v z="$ansible" \
	    -v peak="$(field peak_rss_kib "$ours")" -v per="$(field per_board_kib "$ours")" 'BEGIN {
		printf "fan-out %d boards: rackbisect %.2f s, parallel-ssh %.2f s (%.1fx), ansible -m command %.2f s (%.1fx); coordinator RSS %.1f MiB (%.0f KiB per board)\n",
			n, x, y, y / x, z, z / x, peak / 1024, per }'
}

# A board that misses the 60 s timeout on a busy host spoils that row, not the
# sections after it.
for n in 64 256; do
	fanout_row "$n" || echo "fan-out $n boards: not measured: a run above failed (on a busy host a board can miss the 60 s timeout)"
done
"$vlab" down "$work/lab-fanout.yaml" --state "$state" >/dev/null

echo
echo "== 4b. scheduling: one scheduler, N simulated boards (no SSH), one 1 s run each"
# The runs all sleep 1 s at once: what the wall time adds to that second, and
# the coordinator's CPU per run, is its own cost (runs, store, event log).
for n in 100 1000; do
	mkdir -p "$work/scheduler-$n"
	line=$("$build/bench/bench_scheduler" "$work/scheduler-$n" "$n" 1) || {
		echo "scheduler $n boards: not measured (a run failed: see above)"; continue; }
	awk -v n="$n" -v s="$(field seconds "$line")" -v r="$(field runs_per_second "$line")" \
	    -v c="$(field cpu_ms_per_run "$line")" -v k="$(field per_board_kib "$line")" \
	    -v p="$(field peak_rss_kib "$line")" 'BEGIN {
		printf "scheduler %d boards: %d runs in %.2f s (%.0f runs/s; 1 s of each is its workload), coordinator CPU %.1f ms per run, RSS %.1f MiB (%.0f KiB per board)\n",
			n, n, s, r, c, p / 1024, k }'
	rm -rf "$work/scheduler-$n"
done

echo
echo "== 5. bisection: ours vs git bisect run vs a repeat wrapper, kernel-like and real graphs (seeded, no boards)"
# Its own trial counts and git repositories; some 20 minutes on two cores, see
# its "time:" line (bench_bisect --help: --scale 0.1 gives a quick look with a
# tenth of the trials, --graphs, --p, --eps, --k and --modes pick rows).
mkdir "$work/bisect"
"$build/bench/bench_bisect" --dags "$(dirname "$0")/../data/real-dags" "$work/bisect"

echo
echo "== 6. the demo's gate + bisection, 8 boards (goal < 60 s on 2 cores)"
# make demo itself, timed: the gate's and the bisection's rounds from its
# progress lines (the demo prints both; the event log has the times).
demo_out=$work/demo.out
started=$(date +%s.%N)
bash "$(dirname "$0")/../../drivers/virtual/demo.sh" "$build" >"$demo_out" 2>&1 || true
ended=$(date +%s.%N)
gate_line=$(grep -m1 '^  exit .* after ' "$demo_out" || true)
culprit=$(grep -m1 '^  commit ' "$build/demo/reply.txt" 2>/dev/null || echo "  (no culprit: see $demo_out)")
gate_seconds=$(echo "$gate_line" | sed -n 's/.* after \([0-9]*\) s;.*/\1/p')
gate_exit=$(echo "$gate_line" | sed -n 's/^  exit \([0-9]*\) .*/\1/p')
# a gate that stopped early (lab trouble, exit 3) is fast and proves nothing
grep -q '^  commit ' "$build/demo/reply.txt" 2>/dev/null && named=yes || named=no
awk -v a="$started" -v b="$ended" -v g="${gate_seconds:-0}" -v e="${gate_exit:-none}" -v n="$named" 'BEGIN {
	ok = (e == "1" && n == "yes")
	printf "make demo: %.0f s in all (lab up, history, gate, lab down); gate + bisection %d s, exit %s: goal < 60 s %s\n",
		b - a, g, e, !ok ? "not measured (the gate did not end on REGRESSION with a culprit)" :
		(g > 0 && g < 60) ? "met" : "missed" }'
echo "culprit named:$culprit"
grep -E '^(bisect: )?round [0-9]+:|^candidate so far|^baseline so far' "$demo_out" | tail -n 3 || true
