#!/usr/bin/env bash
# Run the guest test suites on each kernel, on fresh identical images, and
# print the comparison.
#
#   check.sh [--run DIR]
#
# Environment (also make variables):
#   KERNELS  kernels to boot, in order (default: "stock patched")
#   FS       filesystem variants from fs-images/ (default: all)
#   TESTS    guest test programs run on every variant (default: negdent)
#
# Results: DIR (default results/<date>-<time>, linked as results/latest)
# holds per kernel a folder with console.log, guest.log, the images' fsck
# logs and VARIANT/TEST.tap.  Exits non-zero if any test failed, any image
# is not clean, or any guest crashed, hung or warned.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KERNELS=${KERNELS:-stock patched}
FS=${FS:-$(cd "$TOP/fs-images" && ls -- *.conf | sed 's/\.conf$//' | tr '\n' ' ')}
TESTS=${TESTS:-negdent}
run=''
while [ $# -gt 0 ]; do
	case "$1" in
	--run) run=$2; shift 2 ;;
	*) die "usage: check.sh [--run DIR]" ;;
	esac
done
run=${run:-$RESULTS_DIR/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$run"
ln -sfn "$(basename "$run")" "$RESULTS_DIR/latest" 2>/dev/null || true
need e2fsck e2fsprogs
need python3 python3
make -s -C "$TOP/guest" OUT="$GUEST_BIN"

status=0
for k in $KERNELS; do
	kdir=$run/$k
	mkdir -p "$kdir"
	[ -f "$(kernel_image "$k")" ] || die "kernel $k not built: run 'make kernels'"
	cp "$KERNELS_DIR/$k/release" "$kdir/release"
	# shellcheck disable=SC2086 # FS is a list
	bash "$TOP/scripts/images.sh" "$kdir/images" $FS
	disks=() specs=() letter=({a..z}) n=0
	for v in $FS; do
		img=$kdir/images/$v.img
		if [ -f "$img" ]; then
			specs+=("$v=vd${letter[n++]}")
			disks+=(--disk "$img")
		else
			specs+=("$v")
		fi
	done
	log "$k ($(cat "$kdir/release")): $TESTS on $FS"
	rc=0
	bash "$TOP/scripts/boot.sh" --out "$kdir" "${disks[@]}" "$k" -- \
		"$TOP/scripts/guest-run.sh" "${TESTS// /,}" "${specs[@]}" || rc=$?
	echo "$rc" >"$kdir/guest-status"
	[ "$rc" = 0 ] || status=1
	for img in "$kdir"/images/*.img; do
		[ -f "$img" ] || continue
		v=$(basename "$img" .img)
		mkdir -p "$kdir/$v"
		if e2fsck -fn "$img" >"$kdir/images/$v.fsck.log" 2>&1; then
			printf 'TAP version 13\n1..1\nok 1 - e2fsck -fn %s.img: clean\n' "$v"
		else
			printf 'TAP version 13\n1..1\nnot ok 1 - e2fsck -fn %s.img: errors, see images/%s.fsck.log\n' "$v" "$v"
		fi >"$kdir/$v/fsck.tap"
	done
done
python3 "$TOP/scripts/summary.py" "$run" $KERNELS || status=1
echo "results: $run"
exit "$status"
