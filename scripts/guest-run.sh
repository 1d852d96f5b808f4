#!/bin/sh
# Runs in the guest (see boot.sh): mount each filesystem variant, run the
# guest tests on it, unmount.
#
#   guest-run.sh BINDIR TESTS VARIANT[=DEVICE]...
#
# TESTS is a comma-separated list of programs in BINDIR (build/guest).  Each test
# runs as "PROGRAM MOUNTPOINT", with the variant's NDT_MOUNT_OPTS and
# NDT_FEATURES (scripts/variant.sh) and the harness's NDT_EXPECT in its
# environment, and its TAP goes to $OUT/VARIANT/TEST.tap.  A variant that
# cannot be mounted gets a failing TAP file of its own.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$1
tests=$2
shift 2

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

# shellcheck source=scripts/variant.sh
. "$top/scripts/variant.sh"

rc=0
for spec in "$@"; do
	variant=${spec%%=*}
	dev=${spec#*=}
	mnt=/mnt/$variant
	res=$OUT/$variant
	mkdir -p "$res"
	if ! mount_variant "$variant" "/dev/$dev" "$mnt" >"$res/mount.log" 2>&1; then
		tap1 "$res/mount.tap" "not ok" "mount of $variant: $(tr '\n' ' ' <"$res/mount.log")"
		rc=1
		continue
	fi
	for t in $(echo "$tests" | tr , ' '); do
		echo "--- $variant: $t"
		"$bin/$t" "$mnt" >"$res/$t.tap" 2>"$res/$t.err" || rc=1
		tail -n 1 "$res/$t.tap"
	done
	if ! umount "$mnt" >"$res/umount.log" 2>&1; then
		tap1 "$res/umount.tap" "not ok" "umount $mnt: $(cat "$res/umount.log")"
		rc=1
	fi
done
exit $rc
