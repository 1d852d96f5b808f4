#!/usr/bin/env bash
# Benchmark the negative dentry series: stock and patched kernels in the same
# run, every measurement in bench/README.md, one report folder.
#
#   bench/run.sh [--mode icount|tcg] [--reps N] [--jobs N] [--quick] [--out DIR]
#
# Environment (same meaning as the options): BENCH_MODE, BENCH_REPS,
# BENCH_JOBS, BENCH_QUICK=1; BENCH_PARTS ("mem pc tput smp") and BENCH_PC_FS
# (default "ext2 ext4") choose what runs.
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
#
# Parts can also be added to an existing run: --out DIR with BENCH_PARTS
# naming the missing ones (same REPS): config.txt then gains their lines.#
# Boots run JOBS at a time (default 2 for icount and the count boots, whose
# numbers do not depend on host load; --mode tcg times boots one at a time).
# Report: results/BASE/bench-<date>-<time>/ (linked as
# results/BASE/bench-latest):
# summary.md, data.csv, mem.csv, pc.csv, *.png, and one folder per boot.
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
# Sizes.  Full: about 20 minutes with 2 jobs on a 2-core machine (fs_mark,
# postmark, dbench and negdir add about 5 of them, mostly dbench: 2 guest s
# per filesystem).
if [ "$QUICK" = 1 ]; then
	REPS=${REPS:-2}
	MEM_ARGS=(ROUNDS=5 N=2000)
	PC_FS=${BENCH_PC_FS:-ext4}
	PC_ARGS=(HOT_MIB=192 SPOOL_OPS=80000 CHUNK=8000)
	TPUT_ARGS=(MISS=10000 RELOCK=500 FILESET=500 WEBPROXY=150 NEWNAMES=500
		STAT=8000 OPENCLOSE=5000 NFILES=500 MIXLOCK=250 HELDLOCK=250
		SHORTFILESET=1000 SHORT_NFILES=100 SNG_DENTRY=300 SNG_TOUCH=300
		SNG_FILENAME=50 SNG_LINK=1 SNG_RENAME=300 SNG_DIR=150
		FSMARK_DIRS=4 FSMARK_N=250 PM_NUMBER=200 PM_TRANS=800 DBENCH_T=2
		DBENCH_CLIENTS=1 NEGDIR_MISSES=20000 NEGDIR_FILES=10 NEGDIR_PASSES=100)
	SMP_ARGS=(SMP_OPS=20000)
else
	REPS=${REPS:-5}
	MEM_ARGS=(ROUNDS=10 N=10000)
	PC_FS=${BENCH_PC_FS:-ext2 ext4}
	PC_ARGS=(HOT_MIB=192 SPOOL_OPS=80000 CHUNK=8000)
	TPUT_ARGS=(MISS=30000 RELOCK=1500 FILESET=1500 WEBPROXY=400 NEWNAMES=1500
		STAT=30000 OPENCLOSE=15000 NFILES=1000 MIXLOCK=750 HELDLOCK=750
		SHORTFILESET=3000 SHORT_NFILES=100 SNG_DENTRY=500 SNG_TOUCH=500
		SNG_FILENAME=100 SNG_LINK=1 SNG_RENAME=500 SNG_DIR=300
		FSMARK_DIRS=4 FSMARK_N=1000 PM_NUMBER=500 PM_TRANS=2000 DBENCH_T=2
		DBENCH_CLIENTS=1 NEGDIR_MISSES=100000 NEGDIR_FILES=10 NEGDIR_PASSES=100)
	SMP_ARGS=(SMP_OPS=100000)
fi
[ "$REPS" -ge 1 ] || die "--reps must be at least 1"
# the boots of each tput repetition, in order (report.py reads the list
# from config.txt: a run without it, made before patched-lookup, has
# the others)
TPUT_BOOTS=(stock patched patched-all patched-none patched-lookup stock-b)

need qemu-system-x86_64 qemu-system-x86
need python3 python3
need gnuplot gnuplot-nox
# the guest runs the host's binaries (its root is the host's, over 9p)
case " $PARTS " in *" tput "*)
	need fs_mark fsmark
	need postmark postmark
	need dbench dbench ;;
esac
for k in stock patched; do
	[ -f "$(kernel_image "$k")" ] || die "kernel $k not built: run 'make kernels'"
done
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
	echo "mem_args=${MEM_ARGS[*]}"
	echo "pc_args=${PC_ARGS[*]} fs=$PC_FS"
	echo "tput_args=${TPUT_ARGS[*]}"
	echo "smp_args=${SMP_ARGS[*]}"
	case " $PARTS " in *" tput "*) echo "tput_boots=${TPUT_BOOTS[*]}" ;; esac
	echo "date=$(date -Iseconds)"
} >>"$run/config.txt"

# boot_job OUT KERNEL TIMING MEM PART ARGS...: one guest boot of KERNEL
# (stock, patched) with fresh ext2 and ext4 images; TIMING is icount, tcg
# (one vCPU) or tcg2 (two); bench/guest.sh PART runs inside and writes
# OUT/raw.txt.
# shellcheck disable=SC2317 # reached through spawn
boot_job() {
	local out=$1 k=$2 timing=$3 mem=$4 part=$5 rc=0 t0=$SECONDS
	shift 5
	local flags=(--out "$out" --mem "$mem" --timeout 2400
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
	case "$timing" in
	icount) flags+=(--icount --append tsc=nowatchdog) ;;
	tcg2) flags+=(--smp 2 --append "tsc=nowatchdog tsc_early_khz=$host_tsc_khz") ;;
	*) flags+=(--smp 1 --append "tsc=nowatchdog tsc_early_khz=$host_tsc_khz") ;;
	esac
	mkdir -p "$out"
	bash "$TOP/scripts/images.sh" "$out/images" ext2 ext4
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
				"$MODE" 1024 tput "${opts[@]}" "${TPUT_ARGS[@]}"
		done
	done ;;
esac
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
python3 "$TOP/bench/report.py" "$run" || status=1
echo "report: $run/summary.md"
fails=$(grep -lvx 0 "$run"/*/*/boot-rc 2>/dev/null || true)
if [ -n "$fails" ]; then
	echo "failed boots:" "$fails" >&2
	status=1
fi
exit "$status"
