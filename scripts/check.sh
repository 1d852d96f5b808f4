#!/usr/bin/env bash
# Run the guest test suites on each kernel, on fresh identical images, and
# print the comparison.
#
#   check.sh [--run DIR]
#
# Environment (also make variables):
#   KERNELS  kernels to boot, in order (default: "stock patched")
#   FS       filesystem variants from fs-images/ (default: all)
#   TESTS    guest test programs run on every variant of the fs suite
#            (default: those listed in guest/TESTS)
#   SUITES   fs (guest/ tests on each variant), nfs (nfs-test/), and on
#            the debug kernel (KASAN, lockdep; about ten times slower):
#            fs-debug and nfs-debug (smaller fs and nfs suites) and stress
#            (stress/); fstests (fstests/, run by make fstests; its
#            smoke tests are part of make check); default: all six
#   NFS_FS   variants the nfs suite exports (default: ext4 ext2 tmpfs)
#   DEBUG_KERNELS  kernels of the debug suites (default: debug)
#   DEBUG_FS, DEBUG_TESTS  variants and tests of fs-debug (default: ext4
#            ext2 tmpfs ext4-casefold ext4-encrypt; the tests guest/TESTS
#            marks debug)
#   DEBUG_NFS_FS, DEBUG_NFS_VERSIONS  exports and NFS versions of
#            nfs-debug (default: ext4 tmpfs; 3 4.2)
#   STRESS_FS variants of the stress suite (default: ext4 ext2 tmpfs)
#   FSTESTS_TESTS  tests of the fstests suite: "smoke" (default: those
#            fstests/tests marks smoke), "all" (every test there, make
#            fstests), or a list
#   FSTESTS_CONFIGS  its configurations (fstests/configs); default: all
#            of them, but for the smoke tests those marked smoke there
#   FSTESTS_TIMEOUT  seconds one fstests boot may take (default 3600)
#   FSTESTS_TEST_TIMEOUT  seconds one fstests test may take before the
#            guest kills it as hung (default 600)
#   BOOT_OPTS extra scripts/boot.sh options for every boot, e.g.
#            "--mem 384 --timeout 14400" (make soak)
#   EXPECT   "series": hold every kernel to what the full series promises
#            (make prove-tests); default: see kernel_expect below
#
# Results: DIR (default results/BASE/<date>-<time>, linked as
# results/BASE/latest)
# holds KERNEL/SUITE/ folders, one per boot, with console.log, guest.log,
# the images and their fsck logs, and GROUP/TEST.tap.  Exits non-zero if
# any test failed, any image is not clean, or any guest crashed, hung or
# warned.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/tap.sh
. "$TOP/scripts/tap.sh"

KERNELS=${KERNELS:-stock patched}
FS=${FS:-$(cd "$TOP/fs-images" && for c in *.conf; do printf '%s ' "${c%.conf}"; done)}
TESTS=${TESTS:-$(awk '!/^#/ && NF { printf "%s ", $1 }' "$TOP/guest/TESTS")}
SUITES=${SUITES:-fs nfs fstests fs-debug nfs-debug stress}
NFS_FS=${NFS_FS:-ext4 ext2 tmpfs}
DEBUG_KERNELS=${DEBUG_KERNELS:-debug}
DEBUG_FS=${DEBUG_FS:-ext4 ext2 tmpfs ext4-casefold ext4-encrypt}
DEBUG_TESTS=${DEBUG_TESTS:-$(awk '!/^#/ && $2 == "debug" { printf "%s ", $1 }' "$TOP/guest/TESTS")}
DEBUG_NFS_FS=${DEBUG_NFS_FS:-ext4 tmpfs}
DEBUG_NFS_VERSIONS=${DEBUG_NFS_VERSIONS:-3 4.2}
STRESS_FS=${STRESS_FS:-ext4 ext2 tmpfs}
FSTESTS_TESTS=${FSTESTS_TESTS:-smoke}
if [ "$FSTESTS_TESTS" = smoke ]; then
	FSTESTS_CONFIGS=${FSTESTS_CONFIGS:-$(fstests_configs smoke)}
else
	FSTESTS_CONFIGS=${FSTESTS_CONFIGS:-$(fstests_configs all)}
fi
FSTESTS_TIMEOUT=${FSTESTS_TIMEOUT:-3600}
FSTESTS_TEST_TIMEOUT=${FSTESTS_TEST_TIMEOUT:-600}
BOOT_OPTS=${BOOT_OPTS:-}
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
for d in guest nfs-test stress; do
	[ ! -f "$TOP/$d/Makefile" ] || make -s -C "$TOP/$d" OUT="$BUILD_DIR/$d"
done
case " $SUITES " in *" fstests "*) bash "$TOP/fstests/build.sh" ;; esac

# fstests_list: the fstests of FSTESTS_TESTS, comma-separated
fstests_list() {
	case "$FSTESTS_TESTS" in
	smoke) awk '!/^#/ && $2 == "smoke" { print $1 }' "$TOP/fstests/tests" ;;
	all) awk '!/^#/ && NF { print $1 }' "$TOP/fstests/tests" ;;
	*) tr ' ' '\n' <<<"$FSTESTS_TESTS" ;;
	esac | paste -sd,
}

# What KERNEL must do, per filesystem driver, declared here and never read
# from the kernel: "ext2=E ext4=E tmpfs=E" with E stock or series.  The
# guest passes each variant's part to its tests as NDT_EXPECT
# (scripts/variant.sh, guest/ndt.h).  stock behaves as Debian's BASE kernel; patched
# and debug as the series promises; step-N as the first N patches do: a
# driver is "series" once a patch for it (its subject prefix in
# scripts/drivers) is applied.  EXPECT=series holds every kernel to the
# full series.  scripts/drivers' header shows the way to the verdict.
kernel_expect() {
	local k=$1 d n=0 p subj applied='' all
	all=$(awk '!/^#/ && NF { printf "%s ", $1 }' "$TOP/scripts/drivers")
	case "$k" in
	stock) applied='' ;;
	step-[0-9]*)
		while read -r p; do
			n=$((n + 1))
			[ "$n" -le "${k#step-}" ] || break
			subj=$(sed -n 's/^Subject: \[PATCH[^]]*\] *\([a-z0-9]*\):.*/\1/p' "$PATCHES/$p")
			d=$(awk -v s="$subj" '!/^#/ && $2 == s { print $1 }' "$TOP/scripts/drivers")
			[ -n "$d" ] || die "patches/$BASE/$p: subject prefix '$subj' is no PREFIX of scripts/drivers"
			applied+=" $d"
		done < <(series_patches) ;;
	*) applied=$all ;;
	esac
	[ "${EXPECT:-}" != series ] || applied=$all
	for d in $all; do
		case " $applied " in
		*" $d "*) printf '%s=series ' "$d" ;;
		*) printf '%s=stock ' "$d" ;;
		esac
	done
}

# run_suite KERNEL SUITE: one boot of KERNEL with fresh images of the
# suite's variants; results in RUN/KERNEL/SUITE/.
run_suite() {
	local k=$1 suite=$2 variants entry out rc=0 v img n=0 expect
	local disks=() specs=() letter=({a..z}) opts=() size=''
	case "$suite" in
	fs) variants=$FS
		entry=("$TOP/scripts/guest-run.sh" "$BUILD_DIR/guest" "${TESTS// /,}") ;;
	nfs) variants=$NFS_FS entry=("$TOP/nfs-test/guest.sh" "$BUILD_DIR/nfs-test") ;;
	fs-debug) variants=$DEBUG_FS
		entry=("$TOP/scripts/guest-run.sh" "$BUILD_DIR/guest" "${DEBUG_TESTS// /,}") ;;
	nfs-debug) variants=$DEBUG_NFS_FS
		entry=(env "NFS_VERSIONS=$DEBUG_NFS_VERSIONS" "$TOP/nfs-test/guest.sh"
			"$BUILD_DIR/nfs-test") ;;
	stress) variants=$STRESS_FS entry=("$TOP/stress/guest.sh" "$BUILD_DIR/stress") ;;
	fstests) variants="ext4 ext2"	# vda, vdb; vdc is the scratch disk
		# shellcheck disable=SC2206 # a list
		entry=(env "FSTESTS_TEST_TIMEOUT=$FSTESTS_TEST_TIMEOUT"
			"$TOP/fstests/guest.sh" "$BUILD_DIR/fstests/src" "$(fstests_list)"
			$FSTESTS_CONFIGS)
		# fstests fills its test and scratch filesystems (generic/013's
		# fsstress ran out of space in the recipes' 256 MiB)
		size=2G opts=(--timeout "$FSTESTS_TIMEOUT" --mem 2048) ;;
	*) die "unknown suite '$suite' (fs, nfs, fstests, fs-debug, nfs-debug, stress)" ;;
	esac
	out=$run/$k/$suite
	mkdir -p "$out"
	# shellcheck disable=SC2086 # a list
	IMAGE_SIZE=$size bash "$TOP/scripts/images.sh" "$out/images" $variants
	for v in $variants; do
		img=$out/images/$v.img
		if [ -f "$img" ]; then
			specs+=("$v=vd${letter[n++]}")
			disks+=(--disk "$img")
		else
			specs+=("$v")
		fi
	done
	if [ "$suite" = fstests ]; then
		specs=()	# the configurations name their disks
		truncate -s "$size" "$out/images/scratch.raw"
		disks+=(--disk "$out/images/scratch.raw")
	fi
	expect=$(kernel_expect "$k")
	log "$k ($(cat "$run/$k/release")): suite $suite on $variants; expected: $expect"
	echo "$expect" >"$out/expect"
	# shellcheck disable=SC2086 # BOOT_OPTS is a list of options
	bash "$TOP/scripts/boot.sh" --out "$out" "${opts[@]}" $BOOT_OPTS "${disks[@]}" "$k" -- \
		env NDT_KERNEL_EXPECT="$expect" "${entry[@]}" "${specs[@]}" || rc=$?
	echo "$rc" >"$out/guest-status"
	for img in "$out"/images/*.img; do
		[ -f "$img" ] || continue
		v=$(basename "$img" .img)
		mkdir -p "$out/$v"
		if e2fsck -fn "$img" >"$out/images/$v.fsck.log" 2>&1; then
			tap1 "$out/$v/fsck.tap" ok "e2fsck -fn $v.img: clean"
		else
			tap1 "$out/$v/fsck.tap" "not ok" "e2fsck -fn $v.img: errors, see images/$v.fsck.log"
		fi
	done
	return "$rc"
}

# The kernels a suite runs on: the last three are for the debug kernel.
suite_kernels() {
	case "$1" in
	fs-debug | nfs-debug | stress) echo "$DEBUG_KERNELS" ;;
	*) echo "$KERNELS" ;;
	esac
}

status=0 booted=''
for suite in $SUITES; do
	for k in $(suite_kernels "$suite"); do
		[ -f "$(kernel_image "$k")" ] || die "kernel $k not built: run 'make kernels'"
		mkdir -p "$run/$k"
		cp "$KERNELS_DIR/$k/release" "$run/$k/release"
		kernel_source "$k" >"$run/$k/source"
		case " $booted " in *" $k "*) ;; *) booted+=" $k" ;; esac
		run_suite "$k" "$suite" || status=1
	done
done
# shellcheck disable=SC2086 # a list
python3 "$TOP/scripts/summary.py" "$run" $booted || status=1
echo "results: $run"
exit "$status"
