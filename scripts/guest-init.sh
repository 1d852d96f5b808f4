#!/bin/sh
# PID 1 of the test guest (see boot.sh): the host root is mounted read-only
# over 9p; give the guest writable scratch space, run the command that boot.sh
# left in the results folder, record its exit status, and reset.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts
for d in /tmp /run /var/tmp /var/lib/nfs /mnt /srv; do
	mount -t tmpfs -o mode=1777 tmpfs "$d"
done
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# The project and its build folder at their host paths (boot.sh shares
# them), even when they live under one of the tmpfs mounts above.
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case "$arg" in
	ndt.top=* | ndt.build=*)
		tag=${arg#ndt.}
		tag=${tag%%=*}
		dir=${arg#*=}
		mkdir -p "$dir"
		mount -t 9p -o trans=virtio,version=9p2000.L,ro "$tag" "$dir"
		;;
	esac
done
ip link set lo up
hostname ndt-guest
# Credit the kernel's random pool with a fixed seed (RNDADDENTROPY), so
# that its CRNG is ready from the start.  Without a hardware RNG (TCG's
# CPU model has no RDRAND, the guest no virtio-rng) it became ready only
# after 600-800 s of guest time, at a different point of each boot, and
# until then every get_random_u32() (ext4's and tmpfs's i_generation at
# each create, among others) took a slower path: a boot measured before
# that point ran ext4 and tmpfs creates up to 15 % slower than one after.
# The fixed seed also gives every boot the same random numbers.  Test
# guests only: nothing in them is secret.
python3 -c 'import fcntl, struct
with open("/dev/random", "wb") as f:
    fcntl.ioctl(f, 0x40085203, struct.pack("ii", 512, 64) + bytes(range(64)))' ||
	echo "guest-init: could not seed the random pool" >&2

OUT=/run/out
export OUT HOME=/root TERM="${TERM:-linux}"
mkdir -p "$OUT"
mount -t 9p -o trans=virtio,version=9p2000.L out "$OUT"

case " $(cat /proc/cmdline) " in
*" ndt.shell=1 "*)
	echo "ndt guest shell: $(uname -r); results folder at $OUT; exit to power off"
	setsid -c /bin/bash -l
	rc=$?
	;;
*)
	sh "$OUT/command.sh" >"$OUT/guest.log" 2>&1
	rc=$?
	;;
esac
echo "$rc" >"$OUT/status"
sync
umount "$OUT"
echo b >/proc/sysrq-trigger
