#!/usr/bin/env bash
# Boot a kernel in QEMU with the host root shared read-only over 9p and run
# one command in the guest.
#
#   boot.sh [options] KERNEL [-- COMMAND...]
#
# KERNEL is a flavour (stock, patched, debug) or a path to a bzImage.
# Options:
#   --out DIR       results folder: console.log, status and whatever the
#                   guest writes to $OUT (default: results/BASE/boot-<kernel>)
#   --disk FILE     attach a raw image as the next virtio disk (vda, vdb, ...)
#   --mem MIB       guest memory (default 1024)
#   --smp N         guest CPUs (default 2)
#   --icount        deterministic guest clock: -icount shift=0,sleep=off
#                   (guest time = instructions executed, 1 ns each; an
#                   idle guest jumps to its next timer instead of waiting
#                   at host speed), one CPU
#   --timeout SEC   kill the guest after SEC seconds (default 900)
#   --shell         interactive shell on the console instead of COMMAND
#   --append ARGS   extra kernel command line
#
# Exit status: the command's own status; 124 if the guest hung (timeout);
# 125 if the kernel panicked, oopsed, WARNed, reported a filesystem or I/O
# error (scripts/console-errors) or died before the command finished.
# Every run leaves console.log in the results folder.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

out='' mem=1024 smp=2 icount=0 timeout=900 shell=0 append='' disks=()
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--disk) disks+=("$2"); shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--icount) icount=1; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--shell) shell=1; shift ;;
	--append) append=$2; shift 2 ;;
	--) shift; break ;;
	-*) die "boot.sh: unknown option $1" ;;
	*) [ -z "${kernel:-}" ] || die "boot.sh: two kernels given"; kernel=$1; shift ;;
	esac
done
[ -n "${kernel:-}" ] || die "usage: boot.sh [options] KERNEL [-- COMMAND...]"
[ $# -gt 0 ] || [ "$shell" = 1 ] || die "boot.sh: no guest command (or --shell) given"
need qemu-system-x86_64 qemu-system-x86

image=$kernel
[ -f "$image" ] || image=$(kernel_image "$kernel")
[ -f "$image" ] || die "no kernel '$kernel': build it with 'make kernels' ($image missing)"
out=${out:-$RESULTS_DIR/boot-$(basename "$kernel")}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/status" "$out/console.log"

# The guest runs COMMAND from this file, with $OUT pointing at the
# results folder (shared read-write over 9p).
{
	echo 'set -u'
	printf 'exec'
	printf ' %q' "$@"
	echo
} >"$out/command.sh"

accel=(-accel tcg)
if [ "$icount" = 1 ]; then
	# shellcheck disable=SC2054 # the commas are QEMU's
	accel=(-accel tcg -icount shift=0,sleep=off)
	smp=1
elif [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
	accel=(-accel kvm -cpu host)
fi

# shellcheck disable=SC2054 # the commas are QEMU's, inside one argument
args=(
	-machine pc "${accel[@]}" -m "$mem" -smp "$smp"
	-nographic -no-reboot -nodefaults
	-kernel "$image"
	-fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap"
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
	-fsdev "local,id=out,path=$out,security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=out,mount_tag=out
	# The project and its build folder, mounted again at their own paths
	# once the guest has put tmpfs on /tmp and the like: a clone under
	# /tmp must stay visible.
	-fsdev "local,id=top,path=$TOP,security_model=none,readonly=on,multidevs=remap"
	-device virtio-9p-pci,fsdev=top,mount_tag=top
	-fsdev "local,id=build,path=$BUILD_DIR,security_model=none,readonly=on,multidevs=remap"
	-device virtio-9p-pci,fsdev=build,mount_tag=build
)
for d in "${disks[@]}"; do
	args+=(-drive "file=$d,format=raw,if=virtio,cache=unsafe")
done
# no_timer_check: under TCG on a loaded host, the boot-time check of the
# timer interrupt can time out and panic ("IO-APIC + timer doesn't work").
cmdline="console=ttyS0 panic=-1 oops=panic no_timer_check root=/dev/root rootfstype=9p"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,cache=loose ro"
cmdline+=" init=$TOP/scripts/guest-init.sh ndt.shell=$shell"
cmdline+=" ndt.top=$TOP ndt.build=$BUILD_DIR $append"

if [ "$shell" = 1 ]; then
	exec qemu-system-x86_64 "${args[@]}" -serial mon:stdio -append "$cmdline"
fi

# The console patterns, one file per section of scripts/console-errors,
# without its comment and blank lines (a blank pattern matches any line).
pats=$(mktemp -d)
trap 'rm -rf "$pats"' EXIT
awk -v dir="$pats" '
	/^#@/ { sec = substr($0, 3); sub(/[[:space:]]+$/, "", sec)
		if (sec != "always" && sec != "excusable") {
			print "unknown section #@" sec > "/dev/stderr"; exit 1 }
		next }
	/^[[:space:]]*(#|$)/ { next }
	{ print > (dir "/" (sec == "" ? "always" : sec)) }' "$TOP/scripts/console-errors" ||
	die "bad $TOP/scripts/console-errors"
touch "$pats/excusable"
[ -s "$pats/always" ] || die "no #@always patterns in $TOP/scripts/console-errors"

# console_errors LOG: the lines of LOG that fail the run, numbered: every
# match of an #@always pattern, and the matches of #@excusable ones (fs
# errors, I/O errors) outside the spans the guest marked on /dev/kmsg with
# "ndt: expected errors begin: REASON" ... "ndt: expected errors end".
console_errors() {
	{
		grep -anE -f "$pats/always" "$1" || true
		{
			grep -anE 'ndt: expected errors (begin|end)' "$1" || true
			grep -anE -f "$pats/excusable" "$1" || true
		} | sort -t: -k1,1n -s | awk -F: '
			$1 == mark { next }
			/ndt: expected errors begin/ { span = 1; mark = $1; next }
			/ndt: expected errors end/ { span = 0; mark = $1; next }
			!span'
	} | sort -t: -k1,1n -u
}

rc=0
timeout --foreground -k 10 "$timeout" qemu-system-x86_64 "${args[@]}" \
	-serial "file:$out/console.log" -append "$cmdline" </dev/null || rc=$?
log="$out/console.log"
# A kernel that complains fails the run even if the command passed.
bad=$(console_errors "$log")
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "guest HUNG: killed after ${timeout}s; console log: $log" >&2
	exit 124
elif [ -n "$bad" ]; then
	head -n 5 <<<"$bad" >&2
	echo "guest kernel CRASHED or warned; console log: $log" >&2
	exit 125
elif [ ! -f "$out/status" ]; then
	tail -n 5 "$log" >&2
	echo "guest died before the command finished (qemu exit $rc); console log: $log" >&2
	exit 125
fi
exit "$(cat "$out/status")"
