#!/usr/bin/env bash
# Benchmark the negative dentry series: stock and patched kernels in the same
# run, every measurement in bench/README.md, one report folder.
#
#   bench/run.sh [--mode icount|tcg] [--reps N] [--jobs N] [--quick] [--out DIR]
#
# Environment (same meaning as the options): BENCH_MODE, BENCH_REPS,
# BENCH_JOBS, BENCH_QUICK=1; BENCH_PARTS ("mem pc tput smp", and the
# parts not run by default: "filebench filebench-few scale mountmem") and BENCH_PC_FS (default
# "ext2 ext4") choose what runs.
#
#   mem    the 2002 reproducer, counts (plain TCG, one CPU: counts are exact)
#   pc     page cache protection in a 256 MiB guest, counts (plain TCG)
#   tput   timed workloads and stress-ng, REPS repetitions of the boots
#          stock, patched (default policy: lookup on ext2 and ext4, none
#          on tmpfs), patched-all, patched-none, patched-lookup (tmpfs
#          only: its opt-in), stock (again: the noise floor), in that
#          order; -icount shift=0 by default (guest time = instructions),
#          or plain TCG with --mode tcg; the stock and default-policy
#          boots also run fs_mark, postmark and dbench on ext2, ext4 and
#          tmpfs, and they and patched-lookup readdir + rmdir after
#          lookup misses on tmpfs
#   smp    two threads stat()ing and open()ing one file and 8 files, 2
#          vCPUs under plain TCG (icount has one), REPS x (stock, patched,
#          stock), one boot at a time once everything else is done: host
#          time, meaningful only on an otherwise idle host
#   filebench
#          filebench's webproxy.f, fileserver.f and varmail.f as shipped
#          (bench/build-filebench.sh builds it from ../shared/third_party)
#          on ext4 and ext2, FB_REPS x the FB_BOOTS below, -icount
#   filebench-few
#          the same with fewer threads: varmail.f with $nthreads=1 (16
#          shipped), whose stock/stock floor the shipped threads spread
#          over several % on one vCPU; boots of their own, so that it can
#          be added to a run that has the filebench part
#   scale  big directories, lock files beside busy spools, a million
#          always-new names, on ext2, ext4 and tmpfs, once per SCALE_BOOT
#          (counts are exact), -icount
#   mountmem
#          the kmalloc bytes of a mount, ext2, ext4 and tmpfs, once per
#          SCALE_BOOT, booted with slub_debug=F,kmalloc-* (no CPU slab:
#          /proc/slabinfo's active objects are then exact)
#
# SCALE_BOOTS, the boots of scale and mountmem: stock, patched (default
# policy), patched-all (negdentry=all: every negative dentry kept, the hook
# alone), prefix (the series without its per-name patches: the step-N
# kernel that frees every unlinked name, commit 681ce8623567's rule on
# ext2/ext4; N is derived from patches/BASE/series), patched-b (patched
# again: the patched/patched floor) and stock-b (the stock/stock floor).
# FB_BOOTS, filebench's, are the same without patched-b: its
# patched/patched floor is one repetition's patched boot against the
# next one's (a filebench boot takes the longest).
#
# Every -icount boot runs with sleep=off and its images in RAM disks
# (guest.sh RAMDISKS=1): no idle time and no wait for the host's disk
# advances the guest clock.  Every image starts with the folder bench/
# (mke2fs -d), where the workloads run: ext2 places it alike on every boot.
#
# Parts can also be added to an existing run: --out DIR with BENCH_PARTS
# naming the missing ones (same REPS): config.txt then gains their lines.#
# Boots run JOBS at a time (default 2 for icount and the count boots, whose
# numbers do not depend on host load; --mode tcg times boots one at a time).
# Report: results/BASE/bench-<date>-<time>/ (linked as
# results/BASE/bench-latest):
# summary.md, data.csv, mem.csv, pc.csv, *.png (bench/report.py), scale.md
# and its CSV files and plots for filebench and scale
# (bench/scale_report.py), and one folder per boot.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

MODE=${BENCH_MODE:-icount}
REPS=${BENCH_REPS:-}
JOBS=${BENCH_JOBS:-}
QUICK=${BENCH_QUICK:-0}
PARTS=${BENCH_PARTS:-mem pc tput smp}
run=''
while [ $# -gt 0 ]; do
	case "$1" in
	--mode) MODE=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--quick) QUICK=1; shift ;;
	--out) run=$2; shift 2 ;;
	*) die "usage: bench/run.sh [--mode icount|tcg] [--reps N] [--jobs N] [--quick] [--out DIR]" ;;
	esac
done
case "$MODE" in icount | tcg) ;; *) die "--mode: icount or tcg, not '$MODE'" ;; esac
JOBS=${JOBS:-2}
# Sizes (the tput part's: bench/workloads.py, with its workloads).  Full:
# about 20 minutes with 2 jobs on a 2-core machine (fs_mark,
# postmark, dbench and negdir add about 5 of them, mostly dbench: 2 guest s
# per filesystem).
if [ "$QUICK" = 1 ]; then
	REPS=${REPS:-2}
	MEM_ARGS=(ROUNDS=5 N=2000)
	PC_FS=${BENCH_PC_FS:-ext4}
	PC_ARGS=(HOT_MIB=192 SPOOL_OPS=80000 CHUNK=8000)
	SMP_ARGS=(SMP_OPS=20000)
	FB_ARGS=(FB_WARM=10 FB_RUN=10)
	FB_REPS=${BENCH_FB_REPS:-1}
	SCALE_ARGS=(BIGDIR_OTHERS='1000 10000' BIGDIR_OPS=500 BUSY_SPOOL='1000 10000'
		BUSY_NAMES=20000 MILLION=100000)
else
	REPS=${REPS:-5}
	MEM_ARGS=(ROUNDS=10 N=10000)
	PC_FS=${BENCH_PC_FS:-ext2 ext4}
	PC_ARGS=(HOT_MIB=192 SPOOL_OPS=80000 CHUNK=8000)
	SMP_ARGS=(SMP_OPS=100000)
	FB_ARGS=(FB_WARM=10 FB_RUN=20)
	FB_REPS=${BENCH_FB_REPS:-2}
	SCALE_ARGS=(BIGDIR_OTHERS='10000 100000' BIGDIR_OPS=2000
		BUSY_SPOOL='1000 10000 100000' BUSY_NAMES=200000 MILLION=1000000)
fi
# the filebench parts' personalities (bench/guest.sh: NAME or NAME:THREADS)
FB_SHIPPED='webproxy fileserver varmail'
FB_FEW='varmail:1'
# the big directories' other entries, pre-made in the images
bigdirs=$(printf '%s\n' "${SCALE_ARGS[@]}" | sed -n "s/^BIGDIR_OTHERS=//p")
[ "$REPS" -ge 1 ] || die "--reps must be at least 1"
# the boots of each tput repetition, in order (report.py reads the list
# from config.txt: a run without it, made before patched-lookup, has
# the others)
TPUT_BOOTS=(stock patched patched-all patched-none patched-lookup stock-b)
SCALE_BOOTS=(stock patched patched-all prefix patched-b stock-b)
FB_BOOTS=(stock patched patched-all prefix stock-b)
# prefix: the patches before the first per-name one ("keep the negative
# dentries of names that come back")
prefix_n=$(series_patches | grep -n -m 1 -- '-keep-the-negative-dentries-' | cut -d: -f1)
prefix_n=$((${prefix_n:-1} - 1))

need qemu-system-x86_64 qemu-system-x86
need python3 python3
need gnuplot gnuplot-nox
# the tput part's sizes (config.txt's tput_args; guest.sh reads those of
# stress-ng and the tools) and its ndbench calls, from the workloads'
# declarations
kind=full
[ "$QUICK" = 0 ] || kind=quick
sizes=$(python3 "$TOP/bench/workloads.py" sizes "$kind") || die "bench/workloads.py sizes failed"
mapfile -t TPUT_ARGS <<<"$sizes"
# the guest runs the host's binaries (its root is the host's, over 9p)
case " $PARTS " in *" tput "*)
	need fs_mark fsmark
	need postmark postmark
	need dbench dbench ;;
esac
for k in stock patched; do
	[ -f "$(kernel_image "$k")" ] || die "kernel $k not built: run 'make kernels'"
done
case " $PARTS " in *" filebench"* | *" scale "* | *" mountmem "*)
	[ "$prefix_n" -ge 1 ] || die "patches/$BASE/series: no per-name patch after a prefix (the prefix boot needs one)"
	bash "$TOP/scripts/kernel.sh" build "step-$prefix_n" ;;
esac
case " $PARTS " in *" filebench"*) bash "$TOP/bench/build-filebench.sh" ;; esac
make -s -C "$TOP/bench" OUT="$BUILD_DIR/bench"

run=${run:-$RESULTS_DIR/bench-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$run"
run=$(cd "$run" && pwd)
# bench-latest names runs in RESULTS_DIR only (not an --out elsewhere)
if [ "$(dirname "$run")" = "$(cd "$RESULTS_DIR" 2>/dev/null && pwd)" ]; then
	ln -sfn "$(basename "$run")" "$RESULTS_DIR/bench-latest"
fi
start=$SECONDS
for k in stock patched; do
	cp "$KERNELS_DIR/$k/release" "$run/release-$k"
done
# a run gaining parts (--out) keeps its settings; report.py reads the
# last value of each key, and the parts of every invocation
[ ! -f "$run/config.txt" ] || parts_before=$(sed -n 's/^parts=//p' "$run/config.txt" | tail -n 1)
{
	echo "mode=$MODE"
	echo "reps=$REPS"
	echo "jobs=$JOBS"
	echo "quick=$QUICK"
	echo "parts=${parts_before:+$parts_before }$PARTS"
	echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
	echo "host_cpus=$(nproc)"
	echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	# the sizes of the parts this invocation runs (a run gaining parts
	# keeps the sizes its earlier parts ran with)
	case " $PARTS " in *" mem "*) echo "mem_args=${MEM_ARGS[*]}" ;; esac
	case " $PARTS " in *" pc "*) echo "pc_args=${PC_ARGS[*]} fs=$PC_FS" ;; esac
	case " $PARTS " in *" tput "*) echo "tput_args=${TPUT_ARGS[*]}" ;; esac
	case " $PARTS " in *" smp "*) echo "smp_args=${SMP_ARGS[*]}" ;; esac
	case " $PARTS " in *" filebench "*)
		echo "filebench_args=${FB_ARGS[*]} reps=$FB_REPS workloads=$FB_SHIPPED" ;;
	esac
	case " $PARTS " in *" filebench-few "*)
		echo "filebench_few_args=${FB_ARGS[*]} reps=$FB_REPS workloads=$FB_FEW" ;;
	esac
	case " $PARTS " in *" scale "*) echo "scale_args=${SCALE_ARGS[*]}" ;; esac
	case " $PARTS " in *" tput "*) echo "tput_boots=${TPUT_BOOTS[*]}" ;; esac
	case " $PARTS " in *" filebench"* | *" scale "* | *" mountmem "*)
		echo "scale_boots=${SCALE_BOOTS[*]}"
		echo "filebench_boots=${FB_BOOTS[*]}"
		echo "prefix=step-$prefix_n $(cat "$KERNELS_DIR/step-$prefix_n/release")" ;;
	esac
	echo "date=$(date -Iseconds)"
} >>"$run/config.txt"
case " $PARTS " in *" tput "*)
	python3 "$TOP/bench/workloads.py" runs "$kind" >"$run/tput-runs.txt" ||
		die "bench/workloads.py runs failed" ;;
esac

# images KIND SIZE: the folder of the ext2 and ext4 images (SIZE, or the
# recipes' for "recipe") that boots of KIND copy.  They start with the
# folder bench/ (mke2fs -d), and for KIND scale with the big directories'
# other entries bench/big-N/o0000000... (made on the host: created in the
# guest, each of ext2's creates would scan the growing directory; linking
# them costs mke2fs minutes too).  Images are reproducible, so they are
# kept in build/bench-images/ (for every base) under a name that hashes what they are
# made from, and made again only when that changes.  Called before the
# boots start, one kind at a time.
images() {
	local kind=$1 size=$2 sum imgs r n i
	sum=$( { echo "$kind $size $bigdirs"; cat "$TOP/fs-images/ext2.conf" \
		"$TOP/fs-images/ext4.conf" "$TOP/scripts/images.sh"; } | sha1sum | cut -c1-12)
	imgs=$BUILD_DIR/bench-images/$kind-$sum
	if [ ! -f "$imgs/done" ]; then
		r=$imgs-root
		rm -rf "$r" "$imgs"
		mkdir -p "$r/bench"
		if [ "$kind" = scale ]; then
			for n in $bigdirs; do
				mkdir "$r/bench/big-$n"
				(cd "$r/bench/big-$n" && for ((i = 0; i < n; i++)); do
					printf 'o%07d\n' "$i"; done | xargs touch)
			done
		fi
		log "images for the $kind boots ($size)"
		[ "$size" != recipe ] || size=''
		IMAGE_ROOT=$r IMAGE_SIZE=$size bash "$TOP/scripts/images.sh" "$imgs" ext2 ext4
		rm -rf "$r"
		touch "$imgs/done"
	fi
	echo "$imgs"
}

# boot_job OUT KERNEL TIMING MEM PART ARGS...: one guest boot of KERNEL
# (stock, patched, step-N) with fresh copies of the ext2 and ext4 images
# in IMAGES (from the environment; default: the recipes' plain ones);
# TIMING is icount (one vCPU, the images in RAM disks; BOOT_APPEND from
# the environment is added to its kernel command line), tcg (one vCPU) or
# tcg2 (two); bench/guest.sh PART runs inside and writes OUT/raw.txt.
# shellcheck disable=SC2317 # reached through spawn
boot_job() {
	local out=$1 k=$2 timing=$3 mem=$4 part=$5 rc=0 t0=$SECONDS kib
	shift 5
	local flags=(--out "$out" --mem "$mem" --timeout "${BOOT_TIMEOUT:-2400}"
		--disk "$out/images/ext2.img" --disk "$out/images/ext4.img")
	# The kernel's clocksource watchdog checks the TSC against jiffies;
	# under plain TCG the TSC drifts against the other clocks, and under
	# -icount ticks that land late while the guest waits for I/O (dbench,
	# fs_mark on ext2/ext4) make the same skew: the watchdog then marks
	# the TSC unstable and timekeeping falls back to jiffies (4 ms steps
	# for the rest of the boot); keep the TSC (ns resolution)
	# Under plain TCG the guest's TSC is the host's, and calibrating it
	# against the PIT fails when the host is busy (the guest kernel has
	# no HPET or ACPI PM timer to fall back on): it then times with
	# jiffies.  Give it the host's TSC rate (any error scales stock and
	# patched alike).
	mkdir -p "$out/images"
	cp --sparse=always "${IMAGES:-$plain_images}"/ext[24].img "$out/images/"
	case "$timing" in
	icount)
		# RAM disks as large as the larger image (brd.rd_size: KiB)
		kib=$(stat -c %s "$out"/images/*.img | sort -n | tail -n 1)
		kib=$((kib / 1024))
		flags+=(--icount --append "tsc=nowatchdog brd.rd_nr=2 brd.rd_size=$kib ${BOOT_APPEND:-}")
		set -- RAMDISKS=1 "$@" ;;
	tcg2) flags+=(--smp 2 --append "tsc=nowatchdog tsc_early_khz=$host_tsc_khz") ;;
	*) flags+=(--smp 1 --append "tsc=nowatchdog tsc_early_khz=$host_tsc_khz") ;;
	esac
	bash "$TOP/scripts/boot.sh" "${flags[@]}" "$k" -- \
		sh "$TOP/bench/guest.sh" "$part" "$BUILD_DIR/bench" DISKS="ext2=vda ext4=vdb" "$@" \
		>"$out/boot.log" 2>&1 || rc=$?
	rm -f "$out"/images/*.img
	echo "$rc" >"$out/boot-rc"
	echo "$((SECONDS - t0))" >"$out/host-seconds"
	if [ "$rc" = 0 ]; then
		log "done: ${out#"$run"/} ($k, $timing) in $((SECONDS - t0)) s"
	else
		log "FAILED: ${out#"$run"/} ($k, $timing): exit $rc, see $out/console.log"
	fi
}

# the host's TSC rate in kHz (its "cpu MHz"; the guest reads the host's TSC)
host_tsc_khz=$(awk -F: '/^cpu MHz/ { printf "%d\n", $2 * 1000; exit }' /proc/cpuinfo)
[ -n "$host_tsc_khz" ] || die "no 'cpu MHz' in /proc/cpuinfo: cannot give plain-TCG guests the TSC rate"

# spawn JOBS-LIMIT COMMAND...: run in the background, at most LIMIT at once.
spawn() {
	local limit=$1
	shift
	while [ "$(jobs -rp | wc -l)" -ge "$limit" ]; do
		wait -n || true
	done
	"$@" &
}

# the images the boots copy, made before the boots start
plain_images=$(images plain recipe)
case " $PARTS " in *" filebench"*) fb_images=$(images filebench 3G) ;; esac
case " $PARTS " in *" scale "*) scale_images=$(images scale 2G) ;; esac
case " $PARTS " in *" mem "*)
	log "mem: the 2002 reproducer (${MEM_ARGS[*]}), plain TCG"
	# one boot per kernel and policy, so that they can run in parallel
	for b in stock:default patched:default patched:all patched:none; do
		k=${b%:*} p=${b#*:}
		spawn "$JOBS" boot_job "$run/mem/$k-$p" "$k" tcg 1024 mem \
			POLICIES="$p" "${MEM_ARGS[@]}"
	done ;;
esac
case " $PARTS " in *" pc "*)
	log "pc: page cache protection on $PC_FS (${PC_ARGS[*]}), 256 MiB guest, plain TCG"
	for fs in $PC_FS; do
		for k in stock patched; do
			spawn "$JOBS" boot_job "$run/pc/$k-$fs" "$k" tcg 256 pc \
				FS="$fs" "${PC_ARGS[@]}"
		done
	done ;;
esac
case " $PARTS " in *" tput "*)
	# timed boots under plain TCG share the host: one at a time
	tjobs=$JOBS
	[ "$MODE" = icount ] || { wait; tjobs=1; }
	log "tput: $REPS x (${TPUT_BOOTS[*]}) in $MODE mode, $tjobs at a time"
	for r in $(seq 1 "$REPS"); do
		# every boot starts with its own policy's pass, at the same
		# point of the boot as stock's; stress-ng under the default only.
		# patched-lookup: tmpfs's opt-in (ext2's and ext4's default is
		# lookup, measured by patched), tmpfs only, with readdir + rmdir
		# after lookup misses (negdir), which the default boots run too
		for label in "${TPUT_BOOTS[@]}"; do
			case $label in
			patched-lookup) k=patched opts=(POLICIES=lookup STRESS=0 FSS=tmpfs
				NEGDIR_POLICIES=lookup) ;;
			patched-*) k=patched opts=(POLICIES="${label#patched-}" STRESS=0) ;;
			*) k=${label%-b} opts=(POLICIES=default) ;;
			esac
			spawn "$tjobs" boot_job "$run/tput/r$r-$label" "$k" \
				"$MODE" 1024 tput "${opts[@]}" RUNS="$run/tput-runs.txt" \
				"${TPUT_ARGS[@]}"
		done
	done ;;
esac
# scale_boot LABEL: KERNEL and POLICIES of a SCALE_BOOTS label
scale_boot() {
	case $1 in
	patched-b) echo "patched default" ;;
	patched-*) echo "patched ${1#patched-}" ;;
	prefix) echo "step-$prefix_n default" ;;
	*) echo "${1%-b} default" ;;
	esac
}
case " $PARTS " in *" scale "*)
	log "scale: ${SCALE_BOOTS[*]}, ${SCALE_ARGS[*]}, -icount"
	for label in "${SCALE_BOOTS[@]}"; do
		read -r k p < <(scale_boot "$label")
		IMAGES=$scale_images BOOT_TIMEOUT=7200 spawn "$JOBS" boot_job \
			"$run/scale/$label" "$k" icount 2048 scale POLICIES="$p" \
			"${SCALE_ARGS[@]}"
	done ;;
esac
case " $PARTS " in *" mountmem "*)
	log "mountmem: ${SCALE_BOOTS[*]}, slub_debug=F,kmalloc-*"
	for label in "${SCALE_BOOTS[@]}"; do
		read -r k p < <(scale_boot "$label")
		BOOT_APPEND='slub_debug=F,kmalloc-*' spawn "$JOBS" boot_job \
			"$run/mountmem/$label" "$k" icount 1024 mountmem POLICIES="$p"
	done ;;
esac
# filebench_part PART WORKLOADS: FB_REPS x FB_BOOTS boots into $run/PART/
filebench_part() {
	local part=$1 workloads=$2 r label k p
	log "$part: $FB_REPS x (${FB_BOOTS[*]}), $workloads, ${FB_ARGS[*]}, -icount"
	for r in $(seq 1 "$FB_REPS"); do
		for label in "${FB_BOOTS[@]}"; do
			read -r k p < <(scale_boot "$label")
			IMAGES=$fb_images BOOT_TIMEOUT=7200 spawn "$JOBS" boot_job \
				"$run/$part/r$r-$label" "$k" icount 5120 filebench \
				POLICIES="$p" FSS="ext4 ext2" FB_PREFIX="$BUILD_DIR/filebench/inst" \
				FB_WORKLOADS="$workloads" "${FB_ARGS[@]}"
		done
	done
}
case " $PARTS " in *" filebench "*) filebench_part filebench "$FB_SHIPPED" ;; esac
case " $PARTS " in *" filebench-few "*) filebench_part filebench-few "$FB_FEW" ;; esac
case " $PARTS " in *" smp "*)
	wait	# host time: nothing else may run beside these boots
	log "smp: $REPS x (stock, patched, stock), 2 vCPUs, plain TCG, one at a time"
	for r in $(seq 1 "$REPS"); do
		for label in stock patched stock-b; do
			boot_job "$run/smp/r$r-$label" "${label%-b}" tcg2 1024 smp "${SMP_ARGS[@]}"
		done
	done ;;
esac
wait
echo "$((SECONDS - start))" >"$run/host-seconds"
log "all boots done in $((SECONDS - start)) s; writing the report"
status=0
case " $PARTS " in *" mem "* | *" pc "* | *" tput "* | *" smp "*)
	python3 "$TOP/bench/report.py" "$run" || status=1
	echo "report: $run/summary.md" ;;
esac
case " $PARTS " in *" filebench"* | *" scale "* | *" mountmem "*)
	python3 "$TOP/bench/scale_report.py" "$run" || status=1 ;;
esac
fails=$(grep -lvx 0 "$run"/*/*/boot-rc 2>/dev/null || true)
if [ -n "$fails" ]; then
	echo "failed boots:" "$fails" >&2
	status=1
fi
exit "$status"
