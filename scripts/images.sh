#!/usr/bin/env bash
# Make the disk images of filesystem variants (fs-images/NAME.conf).
#
#   images.sh DIR VARIANT...
#
# Writes DIR/VARIANT.img for each variant that has an image (tmpfs has
# none).  IMAGE_SIZE overrides the recipes' SIZE (fstests wants room).
# Images are reproducible: the same recipe gives the same bytes, so every
# kernel starts from the same filesystem.  IMAGE_ROOT names a folder whose
# contents each image starts with (mke2fs -d: bench/run.sh puts the
# benchmarks' folders there, so that they are placed alike on every boot).
# Fails if an image lacks a feature its recipe declares in FEATURES=
# (fs-images/README.md).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: images.sh DIR VARIANT..."
dir=$1
shift
need mke2fs e2fsprogs
mkdir -p "$dir"
for v in "$@"; do
	conf=$TOP/fs-images/$v.conf
	[ -f "$conf" ] || die "no filesystem variant '$v' (no $conf)"
	(
		MKFS='' SIZE='' FEATURES=''
		# shellcheck source=/dev/null
		. "$conf"
		for f in $FEATURES; do
			case "$f" in
			casefold | encrypt | usrquota) ;;
			*) die "variant $v: unknown FEATURES= word '$f' (casefold, encrypt, usrquota)" ;;
			esac
		done
		[ -n "$MKFS" ] || exit 0
		SIZE=${IMAGE_SIZE:-$SIZE}
		img=$dir/$v.img
		rm -f "$img"
		truncate -s "$SIZE" "$img"
		# shellcheck disable=SC2086 # MKFS is a list of options
		E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F $MKFS \
			-U 6e647400-0000-4000-8000-000000000001 \
			-E hash_seed=6e647400-0000-4000-8000-000000000002 \
			${IMAGE_ROOT:+-d "$IMAGE_ROOT"} "$img" >"$dir/$v.mkfs.log" 2>&1 ||
			{ cat "$dir/$v.mkfs.log" >&2; die "mke2fs failed for variant $v"; }
		# mke2fs -d links a folder's entries without an index: let
		# e2fsck -D index them (ext4's htree, as the kernel grows a
		# directory; ext2 has none: its directories are only packed)
		if [ -n "${IMAGE_ROOT:-}" ]; then
			rc=0
			e2fsck -fyD "$img" >>"$dir/$v.mkfs.log" 2>&1 || rc=$?
			[ "$rc" -le 1 ] || { cat "$dir/$v.mkfs.log" >&2; die "e2fsck -D failed (exit $rc) for variant $v"; }
		fi
		features=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Filesystem features://p')
		for f in $FEATURES; do
			# usrquota needs the quota feature (hidden quota inodes)
			[ "$f" = usrquota ] && f=quota
			case " $features " in
			*" $f "*) ;;
			*) die "variant $v declares FEATURES=$FEATURES, but its image has no '$f' feature (MKFS=$MKFS)" ;;
			esac
		done
	)
done
