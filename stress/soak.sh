#!/usr/bin/env bash
# The long version of the stress suite: one boot of the debug kernel with
# STRESS_SOAK=1 (ten times the operations, six workers, inode exhaustion
# on the images themselves), a small guest and a long timeout, laid out
# like a check.sh run so that scripts/summary.py reads it.
#
#   bash stress/soak.sh [--mem MIB] [--timeout SEC] [--kernel FLAVOUR]
#                       [--run DIR] [VARIANT...]
#
# Defaults: --mem 384, --timeout 14400, --kernel debug, variants ext4 ext2
# tmpfs.  STRESS_OPS, STRESS_SEED and STRESS_PHASES are honoured as in
# check.sh (see stress/README.md).  Exit status as check.sh's.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

mem=384 timeout=14400 kernel=debug run=''
while [ $# -gt 0 ]; do
	case "$1" in
	--mem) mem=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--run) run=$2; shift 2 ;;
	-*) die "usage: soak.sh [--mem MIB] [--timeout SEC] [--kernel FLAVOUR] [--run DIR] [VARIANT...]" ;;
	*) break ;;
	esac
done
variants=${*:-ext4 ext2 tmpfs}
[ -f "$(kernel_image "$kernel")" ] || die "kernel $kernel not built: bash scripts/kernel.sh build $kernel"
run=${run:-$RESULTS_DIR/soak-$(date +%Y%m%d-%H%M%S)}
out=$run/$kernel/stress
mkdir -p "$out"
cp "$KERNELS_DIR/$kernel/release" "$run/$kernel/release"
STRESS_SOAK=${STRESS_SOAK:-1} make -s -C "$top/stress" OUT="$BUILD_DIR/stress"
# shellcheck disable=SC2086 # a list
bash "$top/scripts/images.sh" "$out/images" $variants
specs=() disks=() n=0 letter=({a..z})
for v in $variants; do
	if [ -f "$out/images/$v.img" ]; then
		specs+=("$v=vd${letter[n++]}")
		disks+=(--disk "$out/images/$v.img")
	else
		specs+=("$v")
	fi
done
log "soak: $kernel ($(cat "$run/$kernel/release")), $mem MiB, timeout $timeout s, on $variants"
rc=0
bash "$top/scripts/boot.sh" --out "$out" --mem "$mem" --timeout "$timeout" "${disks[@]}" \
	"$kernel" -- "$top/stress/guest.sh" "$BUILD_DIR/stress" "${specs[@]}" || rc=$?
echo "$rc" >"$out/guest-status"
for img in "$out"/images/*.img; do
	[ -f "$img" ] || continue
	v=$(basename "$img" .img)
	mkdir -p "$out/$v"
	if e2fsck -fn "$img" >"$out/images/$v.fsck.log" 2>&1; then
		printf 'TAP version 13\n1..1\nok 1 - e2fsck -fn %s.img: clean\n' "$v"
	else
		printf 'TAP version 13\n1..1\nnot ok 1 - e2fsck -fn %s.img: errors, see images/%s.fsck.log\n' "$v" "$v"
	fi >"$out/$v/fsck.tap"
done
# the next check.sh run must not inherit the soak's knobs
make -s -C "$top/stress" OUT="$BUILD_DIR/stress" STRESS_SOAK= STRESS_OPS= STRESS_SEED= STRESS_PHASES= STRESS_EIO_FS=
status=0
python3 "$top/scripts/summary.py" "$run" "$kernel" || status=1
[ "$rc" = 0 ] || status=1
echo "results: $run"
exit "$status"
