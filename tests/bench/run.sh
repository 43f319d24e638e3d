#!/bin/bash
# make bench: the virtual lab's speed and memory, measured side by side in one
# run (these machines are shared and noisy: read the ratios, not the seconds).
#  1. simulated time per real second for one board, per driver variant
#     (in-process), and end to end through the fast path (W1 over the tools);
#  2. time to bring up a lab of 8 and of 64 boards (sshd each), per board;
#  3. memory per board: PSS of the supervisor plus every board process.
set -eu
build=${1:-build}
vlab=$build/rackbisect-vlab
work=$(mktemp -d /tmp/rackbisect-bench-XXXXXX)
state=$work/state
trap '"$vlab" down "$work/lab-8.yaml" --state "$state" >/dev/null 2>&1 || true;
      "$vlab" down "$work/lab-64.yaml" --state "$state" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

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
