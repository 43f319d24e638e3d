#!/bin/bash
# A rack machine made of QEMU and Debian's own kernel: the real-kernel board
# the kexec boot driver, the qemu power driver and the workload scripts are
# tested on (issue 7), and a way to try rackbisect on real kernels without a
# rack. Nothing here is simulated: the guest runs Debian's linux-image-amd64,
# a busybox userland, dropbear for SSH and kexec-tools.
#
#   board.sh image DIR PUBKEY     build DIR/initrd.img for DIR/vmlinuz (Debian's
#                                 newest installed kernel), logging in with
#                                 PUBKEY; DIR/release, DIR/host_key.pub
#   board.sh start DIR STATE ADDR SSH_PORT CONSOLE_PORT
#                                 boot it: SSH on ADDR:SSH_PORT, the serial
#                                 console on ADDR:CONSOLE_PORT (raw TCP, as
#                                 ser2net serves one), QMP on STATE/qmp.sock;
#                                 STATE/qemu.pid is the QEMU process
#   board.sh stop STATE           end that process (by its pid file)
#
# The guest's network is QEMU's user networking with restrict=on: the guest
# reaches nothing; the host reaches its SSH through the port forward only.
#   board.sh accel                the accelerator start would use: "kvm" or
#                                 "tcg" (see accelerator below)
#
# KVM is used where the CPU has hardware virtualisation and /dev/kvm is
# writable (about 6 s to a shell), TCG otherwise (10-40 s).
set -eu

die() { echo "board.sh: $*" >&2; exit 1; }

newest_kernel() {
	local release
	release=$(ls /lib/modules 2>/dev/null | sort -V | tail -n 1)
	[ -n "$release" ] && [ -f "/boot/vmlinuz-$release" ] ||
		die "no Debian kernel installed (/boot/vmlinuz-*, /lib/modules/*): run \`make deps\` (linux-image-amd64)"
	echo "$release"
}

# copy_binary STAGE PATH: PATH and the shared libraries it loads, at the same paths
copy_binary() {
	local stage=$1 file=$2 lib
	install -D -m 0755 "$file" "$stage$file"
	for lib in $(ldd "$file" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$stage$lib" ] || install -D -m 0755 "$lib" "$stage$lib"
	done
}

# copy_modules STAGE RELEASE NAME...: the modules and everything they depend on
copy_modules() {
	local stage=$1 release=$2 dep_file=/lib/modules/$2/modules.dep
	shift 2
	local want=" $* " queue=("$@") name path deps dep
	while [ ${#queue[@]} -gt 0 ]; do
		name=${queue[0]} queue=("${queue[@]:1}")
		path=$(grep -m1 -E "/${name}\.ko(\.[a-z]+)?:" "$dep_file" | cut -d: -f1) ||
			die "module $name not in $dep_file"
		deps=$(grep -m1 -E "^$path:" "$dep_file" | cut -d: -f2-)
		install -D -m 0644 "/lib/modules/$release/$path" "$stage/lib/modules/$release/$path"
		for dep in $deps; do
			dep=$(basename "$dep" | sed -E 's/\.ko(\.[a-z]+)?$//')
			case $want in *" $dep "*) ;; *) want="$want$dep " queue+=("$dep") ;; esac
		done
	done
	cp "/lib/modules/$release"/modules.{order,builtin,builtin.modinfo} \
		"$stage/lib/modules/$release/" 2>/dev/null || true
	depmod -b "$stage" "$release"
}

# The board has no disk: its root is an initramfs. What is installed into it
# after boot (a build's modules under /lib/modules, by the kexec boot driver)
# must reach the kexec'd kernel as a disk would keep it, so `kexec -l` first
# packs the root as the initrd the lab names (`initrd: /boot/initrd.img`).
# Uploaded kernels (/boot), /tmp and /run stay behind.
write_kexec() {
	mv "$1/usr/sbin/kexec" "$1/usr/sbin/kexec.real"
	cat >"$1/usr/sbin/kexec" <<'KEXEC'
#!/bin/sh
if [ "$1" = -l ]; then
	(cd / && find . -xdev ! -path './boot/*' ! -path './tmp/*' ! -path './run/*' \
		! -path './var/run/*' | cpio -o -H newc >/boot/initrd.img 2>/dev/null) ||
		{ echo "kexec: cannot pack the root into /boot/initrd.img" >&2; exit 1; }
fi
exec /usr/sbin/kexec.real "$@"
KEXEC
	chmod 0755 "$1/usr/sbin/kexec"
}

write_init() {
	cat >"$1/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

# Two mac80211_hwsim radios: the access point on the first, in a network
# namespace of its own (or the ping would never cross the radio), hostapd
# serving the open network the workloads expect (rackbisect-ap, channel 6,
# BSSID 00:0b:6b:de:ad:01, 10.80.0.1); the station on the second, wlan0 in
# the root namespace, where the workloads run. Its addresses exist only here.
wifi_up() {
	modprobe mac80211_hwsim radios=2 || return
	unshare -n sh -c 'while :; do sleep 3600; done' &
	ap_ns=$!
	iw phy phy0 set netns "$ap_ns"
	ip link set wlan1 name wlan0
	ip addr add 10.80.0.2/24 dev wlan0
	ip link set wlan0 up
	nsenter -t "$ap_ns" -n sh -c '
		ip link set lo up
		ip link set wlan0 name ap0
		ip link set ap0 address 00:0b:6b:de:ad:01
		ip addr add 10.80.0.1/24 dev ap0
		hostapd -B -P /run/hostapd.pid /etc/hostapd.conf >/dev/null'
	iw dev wlan0 connect -w rackbisect-ap 2437 00:0b:6b:de:ad:01 >/dev/null
}
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /tmp /run /var/run /boot
mount -t devpts devpts /dev/pts
mount -t debugfs debugfs /sys/kernel/debug
modprobe e1000
ip link set lo up
ip addr add 10.0.2.15/24 dev eth0
ip link set eth0 up
ip route add default via 10.0.2.2
wifi_up
dropbear -r /etc/dropbear/dropbear_ed25519_host_key -s -p 22
echo "rackbisect-qemu-board: ready, $(uname -r), $(cat /proc/cmdline)"
while :; do sleep 3600; done
INIT
	chmod 0755 "$1/init"
}

build_image() {
	local dir=$1 pubkey=$2 release
	[ -r "$pubkey" ] || die "image: public key '$pubkey' not readable"
	release=$(newest_kernel)
	mkdir -p "$dir"
	stage=$(mktemp -d "$dir/stage.XXXXXX")
	trap 'rm -rf "${stage:-}"' EXIT
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,etc/dropbear,root/.ssh,tmp,boot}
	install -m 0755 /bin/busybox "$stage/bin/busybox"
	copy_binary "$stage" /usr/sbin/dropbear
	copy_binary "$stage" /usr/sbin/kexec
	copy_binary "$stage" /usr/sbin/hostapd
	copy_binary "$stage" /usr/sbin/iw
	copy_modules "$stage" "$release" e1000 mac80211_hwsim
	printf '%s\n' interface=ap0 driver=nl80211 ssid=rackbisect-ap hw_mode=g channel=6 \
		ctrl_interface=/run/hostapd >"$stage/etc/hostapd.conf"
	dropbearkey -t ed25519 -f "$stage/etc/dropbear/dropbear_ed25519_host_key" >/dev/null 2>&1
	dropbearkey -y -f "$stage/etc/dropbear/dropbear_ed25519_host_key" | grep '^ssh-' |
		cut -d' ' -f1,2 >"$dir/host_key.pub"
	install -m 0600 "$pubkey" "$stage/root/.ssh/authorized_keys"
	chmod 0700 "$stage/root" "$stage/root/.ssh"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
	printf 'root:x:0:\n' >"$stage/etc/group"
	printf '/bin/sh\n' >"$stage/etc/shells"
	write_kexec "$stage"
	write_init "$stage"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$dir/initrd.img.tmp"
	mv "$dir/initrd.img.tmp" "$dir/initrd.img"
	cp "/boot/vmlinuz-$release" "$dir/vmlinuz"
	echo "$release" >"$dir/release"
}

# hardware_kvm: /dev/kvm is writable and the CPU offers hardware
# virtualisation (vmx, svm). A /dev/kvm without either is a software
# hypervisor such as PVM (module kvm_pvm, seen on this project's machines),
# which boots only kernels built as its guests: Debian's kernel spun there at
# 100 % CPU for the whole boot limit and never printed a console line.
hardware_kvm() {
	[ -w /dev/kvm ] && grep -q -w -E 'vmx|svm' /proc/cpuinfo
}

# accelerator: QEMU's -accel words. KVM where hardware_kvm (TCG if KVM still
# fails to start); TCG, slower but the same machine, otherwise.
# RACKBISECT_QEMU_ACCEL=kvm|tcg chooses instead of the probe.
accelerator() {
	case ${RACKBISECT_QEMU_ACCEL:-auto} in
	kvm) echo "-accel kvm" ;;
	tcg) echo "-accel tcg" ;;
	auto) if hardware_kvm; then echo "-accel kvm -accel tcg"; else echo "-accel tcg"; fi ;;
	*) die "RACKBISECT_QEMU_ACCEL=${RACKBISECT_QEMU_ACCEL}: say kvm, tcg or auto" ;;
	esac
}

start_board() {
	local dir=$1 state=$2 addr=$3 ssh_port=$4 console_port=$5 accel
	accel=$(accelerator)
	[ -f "$dir/initrd.img" ] || die "start: no $dir/initrd.img: run \`board.sh image $dir KEY\` first"
	mkdir -p "$state"
	rm -f "$state/qmp.sock"
	# shellcheck disable=SC2086 # $accel is several words on purpose
	qemu-system-x86_64 $accel -machine pc -m 512 -smp 1 -nodefaults \
		-display none -monitor none \
		-serial "tcp:$addr:$console_port,server=on,wait=off" \
		-qmp "unix:$state/qmp.sock,server=on,wait=off" \
		-kernel "$dir/vmlinuz" -initrd "$dir/initrd.img" \
		-append "console=ttyS0,115200 panic=-1 rackbisect.installed" \
		-nic "user,model=e1000,restrict=on,hostfwd=tcp:$addr:$ssh_port-:22" \
		-daemonize -pidfile "$state/qemu.pid" 2>>"$state/qemu.err" ||
		die "start: qemu failed: $(tail -n 3 "$state/qemu.err")"
}

stop_board() {
	local state=$1 pid
	[ -f "$state/qemu.pid" ] || return 0
	pid=$(cat "$state/qemu.pid")
	if [ -n "$pid" ] && grep -q qemu "/proc/$pid/comm" 2>/dev/null; then
		kill "$pid"
		timeout 10 tail --pid="$pid" -f /dev/null || kill -9 "$pid" 2>/dev/null || true
	fi
	rm -f "$state/qemu.pid"
}

case ${1:-} in
image) [ $# -eq 3 ] || die "usage: board.sh image DIR PUBKEY"; build_image "$2" "$3" ;;
start) [ $# -eq 6 ] || die "usage: board.sh start DIR STATE ADDR SSH_PORT CONSOLE_PORT"
	start_board "$2" "$3" "$4" "$5" "$6" ;;
stop) [ $# -eq 2 ] || die "usage: board.sh stop STATE"; stop_board "$2" ;;
accel) [ $# -eq 1 ] || die "usage: board.sh accel"
	accel=$(accelerator)
	case $accel in "-accel kvm"*) echo kvm ;; *) echo tcg ;; esac ;;
*) die "usage: board.sh image|start|stop|accel ... (see the comment at its top)" ;;
esac
