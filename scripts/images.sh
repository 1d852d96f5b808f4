#!/usr/bin/env bash
# Make the disk images of filesystem variants (fs-images/NAME.conf).
#
#   images.sh DIR VARIANT...
#
# Writes DIR/VARIANT.img for each variant that has an image (tmpfs has
# none).  Images are reproducible: the same recipe gives the same bytes, so
# every kernel starts from the same filesystem.
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
		MKFS='' SIZE=''
		# shellcheck source=/dev/null
		. "$conf"
		[ -n "$MKFS" ] || exit 0
		img=$dir/$v.img
		rm -f "$img"
		truncate -s "$SIZE" "$img"
		# shellcheck disable=SC2086 # MKFS is a list of options
		E2FSPROGS_FAKE_TIME=1700000000 mke2fs -q -F $MKFS \
			-U 6e647400-0000-4000-8000-000000000001 \
			-E hash_seed=6e647400-0000-4000-8000-000000000002 \
			"$img" >"$dir/$v.mkfs.log" 2>&1 ||
			{ cat "$dir/$v.mkfs.log" >&2; die "mke2fs failed for variant $v"; }
	)
done
