#!/bin/bash
# make demo: the virtual AR9xxx lab at work, before the coordinator exists.
# Brings up labs/virtual.yaml, generates the stable-3.3.1 model history,
# builds v3.3 and v3.3.1-rc1, boots one on vb01 and the other on vb02 over
# SSH (scp + kexec), runs W3 (idle-transition cycling) on both over SSH, and
# prints what each kernel did. The lab is brought down at the end unless
# KEEP_LAB=1.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
vlab=$build/rackbisect-vlab
lab=$root/labs/virtual.yaml
demo=$build/demo
cycles=${CYCLES:-20}

say() { printf '\n== %s\n' "$*"; }

cleanup() {
	if [ "${KEEP_LAB:-0}" != 1 ]; then
		say "lab down"
		"$vlab" down "$lab"
	fi
}

say "lab up: 8 boards, each an OpenSSH sshd on its own 127.77.0.x address"
"$vlab" up "$lab"
trap cleanup EXIT
ssh_config=$("$vlab" status "$lab" | sed -n 's/^ssh: ssh -F \([^ ]*\) BOARD$/\1/p')

say "model kernel history: scenario stable-3.3.1, seed 1"
rm -rf "$demo"
mkdir -p "$demo"
"$vlab" make-tree --scenario stable-3.3.1 --seed 1 --out "$demo/tree" --truth "$demo/truth.json"
git -C "$demo/tree" log --oneline -3 v3.3.1-rc1 | sed 's/^/  /'

boot() {	# boot BOARD REF
	local board=$1 ref=$2 image release host
	read -r image release < <("$vlab" build --tree "$demo/tree" --commit "$ref" --cache "$demo/cache")
	host=$(awk -v b="$board" '$1 == "Host" { h = ($2 == b) } h && $1 == "HostName" { print $2 }' "$ssh_config")
	echo "  $ref -> $release: upload to $board:/boot, kexec"
	scp -F "$ssh_config" -q "$image" "$board:/boot/vmlinuz-$release"
	exec 5<>"/dev/tcp/$host/7000"
	ssh -F "$ssh_config" "$board" "kexec -l /boot/vmlinuz-$release && kexec -e" >/dev/null 2>&1 || true
	timeout 30 sed -u -n '/^Debian GNU\/Linux .* ttyS0/q' <&5	# the login prompt: booted
	exec 5>&-
	echo "  $board: uname -r = $(ssh -F "$ssh_config" "$board" uname -r)"
}

say "boot v3.3 on vb01 (ar9285) and v3.3.1-rc1 on vb02 (ar9280)"
boot vb01 v3.3
boot vb02 v3.3.1-rc1

w3() {	# w3 BOARD
	scp -F "$ssh_config" -q -r "$root/drivers/workload" "$1:$demo/workload-$1"
	ssh -F "$ssh_config" "$1" "sh $demo/workload-$1/w3-idle-transitions.sh --cycles $cycles --seed 1" \
		>"$demo/w3-$1.ktap"
	printf '  %s (%s): %s of %s cycles ok\n' "$1" "$(ssh -F "$ssh_config" "$1" uname -r)" \
		"$(grep -c '^ok ' "$demo/w3-$1.ktap")" "$cycles"
	grep -m1 -B6 '^not ok' "$demo/w3-$1.ktap" | sed 's/^/    /' || true
}

say "W3, $cycles idle-transition cycles over SSH on each"
w3 vb01
w3 vb02
say "KTAP in $demo/w3-vb01.ktap and $demo/w3-vb02.ktap; ssh -F $ssh_config vb01 logs in"
