# shellcheck shell=sh
# The one way guest scripts load and mount a filesystem variant
# (fs-images/NAME.conf).  Sourced by guest-run.sh, nfs-test/guest.sh and
# stress/guest.sh, with $top set to the project folder.
#
#   load_variant NAME           set FSTYPE MKFS SIZE MOUNT_OPTS SETUP FEATURES
#                               from the recipe and export what the guest
#                               tests read (guest/ndt.h): NDT_MOUNT_OPTS,
#                               NDT_FEATURES, and NDT_EXPECT, this driver's
#                               part of NDT_KERNEL_EXPECT (what the harness
#                               declares the kernel must do, per driver:
#                               "ext2=stock ext4=series tmpfs=series")
#   mount_variant NAME SRC MNT [OPTS]
#                               load_variant, mount SRC (a device; ignored
#                               for tmpfs) on MNT with the recipe's options
#                               and OPTS after them, run its SETUP in MNT;
#                               on failure, print what failed and return
#                               non-zero

load_variant() { # NAME
	: "${top:?scripts/variant.sh needs top, the project folder}"
	# shellcheck disable=SC2034 # set for the callers
	FSTYPE='' MKFS='' SIZE='' MOUNT_OPTS='' SETUP='' FEATURES=''
	if [ ! -f "$top/fs-images/$1.conf" ]; then
		echo "no filesystem variant '$1' ($top/fs-images/$1.conf)"
		return 1
	fi
	# shellcheck source=/dev/null
	. "$top/fs-images/$1.conf"
	NDT_MOUNT_OPTS=$MOUNT_OPTS NDT_FEATURES=$FEATURES NDT_EXPECT=''
	# the driver that serves FSTYPE (scripts/drivers)
	driver=$(awk -v t="$FSTYPE" '!/^#/ { for (i = 3; i <= NF; i++) if ($i == t) print $1 }' \
		"$top/scripts/drivers")
	for e in ${NDT_KERNEL_EXPECT:-}; do
		[ "${e%%=*}" != "$driver" ] || NDT_EXPECT=${e#*=}
	done
	export NDT_MOUNT_OPTS NDT_FEATURES NDT_EXPECT
}

mount_variant() { # NAME SRC MNT [OPTS]
	load_variant "$1" || return 1
	[ "$FSTYPE" != tmpfs ] || set -- "$1" tmpfs "$3" "${4:-}"
	opts=$MOUNT_OPTS
	[ -z "${4:-}" ] || opts=${opts:+$opts,}$4
	mkdir -p "$3" || return 1
	if ! mount -t "$FSTYPE" ${opts:+-o "$opts"} "$2" "$3"; then
		echo "mount -t $FSTYPE${opts:+ -o $opts} $2 $3 failed"
		return 1
	fi
	if [ -n "$SETUP" ] && ! (cd "$3" && eval "$SETUP"); then
		echo "setup of variant $1 failed: $SETUP"
		return 1
	fi
}
