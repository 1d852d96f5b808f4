#!/bin/sh
# Runs in the guest (see bench/run.sh and scripts/boot.sh): mounts the
# filesystems and runs one part of the benchmark, writing $OUT/raw.txt.
#
#   guest.sh PART BINDIR KEY=VALUE...
#
# PART is one of
#   mem     the 2002 reproducer on each filesystem of FSS, every policy in
#           POLICIES (keys: ROUNDS, N, POLICIES, FSS)
#   pc      page cache protection: a hot file on ext4 and the spool workload
#           on FS (keys: FS, HOT_MIB, SPOOL_OPS, CHUNK)
#   tput    the timed workloads on each filesystem of FSS under every
#           policy in POLICIES: the ndbench calls of the file RUNS, one
#           per line, "every WORKLOAD ARGS..." (every policy) or
#           "default WORKLOAD ARGS..." (default policy only), in order
#           (bench/run.sh writes it from bench/workloads.py), and
#           stress-ng on ext4 under the default policy (STRESS=1; keys
#           SNG_*); under the default policy also fs_mark, postmark and dbench on each
#           filesystem of FSS (TOOLS=1; keys FSMARK_*, PM_*, DBENCH_*),
#           and readdir + rmdir after lookup misses on tmpfs, if FSS has
#           it, under each policy of NEGDIR_POLICIES (keys NEGDIR_*)
#   smp     two threads stat()ing and open()ing SMP_FILES files (each
#           count in the list) on ext2, ext4 and tmpfs, default policy, in
#           a 2-vCPU guest (keys: SMP_FILES, SMP_OPS per thread)
#   filebench
#           filebench's personalities FB_WORKLOADS (webproxy fileserver
#           varmail) as shipped, on each filesystem of FSS under every
#           policy in POLICIES: only 'set $dir=' changed, the shipped 'run'
#           line dropped and 'run FB_RUN' appended; an entry NAME:N also
#           sets $nthreads to N, and its results are named NAME-tN (keys: FB_PREFIX, the
#           install folder of bench/build-filebench.sh, FB_WORKLOADS,
#           FB_WARM and FB_RUN: 'psrun -FB_WARM FB_WARM+FB_RUN' replaces
#           'run': filebench's statistics every FB_WARM s of guest time,
#           cleared after each; the first period is the warm-up, the
#           others, FB_RUN s (a multiple of FB_WARM), the measured window;
#           FB_WARM=0: 'run FB_RUN', no warm-up)
#   scale   big directories, busy spools and a million names, on each
#           filesystem of FSS under every policy
#           in POLICIES: first ndbench calib (CALIB rounds of a loop
#           without system calls: the idle check), then ndbench bigdir
#           in directories of BIGDIR_OTHERS
#           other entries (pre-made in the image by bench/run.sh:
#           bench/big-N/), busyspool with a lock cycle per BUSY_SPOOL
#           names (other and same directory), million (MILLION names;
#           0: none) and the object sizes of the inode and dentry caches
#           (keys: those)
#   mountmem
#           the kmalloc bytes of MOUNTMEM_N mounts of each filesystem of
#           FSS under every policy in POLICIES (exact in a boot whose
#           kmalloc caches keep no CPU slab: slub_debug=F,kmalloc-*)
# Every workload runs in /mnt/FS/bench/, a directory bench/run.sh makes in
# the images (mke2fs -d), so that ext2's Orlov allocator, which puts a new
# directory at the root into a random block group, places the workloads'
# directories alike on every boot.  With RAMDISKS=1 the images are copied
# from their virtio disks into RAM disks (brd) first, and mounted from
# there: no wait for the host's disk inside a timed window.
# Filesystems are mounted from their recipes (fs-images/, through
# scripts/variant.sh); DISKS (from bench/run.sh) says which disk holds
# which image, e.g. "ext2=vda ext4=vdb".  POLICIES (from bench/run.sh,
# which knows the kernel it boots) lists the policies to run: "default",
# or negdentry= values.  FSS (default "ext2 ext4 tmpfs") lists the
# filesystems the mem and tput parts run on, in that order (bench/run.sh
# gives "tmpfs" to the boot of tmpfs's opt-in negdentry=lookup: ext2's and
# ext4's default is lookup already).
#
# Lines of raw.txt:
#   result FS POLICY WORKLOAD OPS NS
#   mem FS POLICY ROUND NR_DENTRY NR_NEGATIVE SLAB_ACTIVE SLAB_TOTAL OBJSIZE
#   pc FS POLICY KEY VALUE
#   count FS POLICY WORKLOAD KEY VALUE
#   (filebench: result FS POLICY fb-NAME OPS NS, NS from filebench's own
#   ops and ops/s; count FS POLICY fb-NAME removals N, its deletefile ops)
set -u
part=$1 bin=$2
shift 2
# defaults, overridden by KEY=VALUE arguments
ROUNDS=10 N=10000 FS=ext4 HOT_MIB=192 SPOOL_OPS=80000 CHUNK=8000
RUNS='' STRESS=1 POLICIES='' DISKS='' FSS='ext2 ext4 tmpfs'
# The tput part's sizes have no default here: bench/run.sh gives them all
# (bench/workloads.py's SIZES).  The field's tools, default policy only:
# fs_mark creates FSMARK_N empty files in each of FSMARK_DIRS directories
# (one thread each), then every file is unlinked (timed); postmark:
# PM_NUMBER files of PM_SIZE bytes, PM_TRANS transactions; dbench:
# DBENCH_CLIENTS clients for DBENCH_T seconds (at least 2: with 1 dbench
# reports 0 MB/s); negdir (tmpfs, under each policy of NEGDIR_POLICIES
# that POLICIES has): NEGDIR_FILES files, NEGDIR_MISSES lookup misses,
# NEGDIR_PASSES readdirs, NEGDIR_RMDIRS rmdirs; stress-ng: SNG_STRESSOR
# ops of each
TOOLS=1 PM_SIZE='500 4096' NEGDIR_POLICIES=default
SMP_FILES='1 8' SMP_OPS=20000
FB_PREFIX='' FB_WORKLOADS='webproxy fileserver varmail' FB_WARM=10 FB_RUN=20
BIGDIR_OTHERS='10000 100000' BIGDIR_FILES=1000 BIGDIR_OPS=2000
BUSY_SPOOL='1000 10000 100000' BUSY_NAMES=200000 MILLION=1000000 CALIB=20000000
MOUNTMEM_N=9 RAMDISKS=0
for kv in "$@"; do
	case "$kv" in
	[A-Z_]*=*) eval "${kv%%=*}=\${kv#*=}" ;;
	*) echo "guest.sh: bad argument $kv" >&2; exit 2 ;;
	esac
done
raw=$OUT/raw.txt
: >"$raw"
uname -r >"$OUT/uname"

# the parts that run under several policies need them named
case "$part" in
mem | tput | filebench | scale | mountmem) [ -n "$POLICIES" ] || { echo "guest.sh: $part: no POLICIES given" >&2; exit 2; } ;;
esac
[ "$part" != tput ] || [ -f "$RUNS" ] ||
	{ echo "guest.sh: tput: no RUNS file '$RUNS' (bench/run.sh writes it from bench/workloads.py)" >&2; exit 2; }
policies() { echo "$POLICIES"; }

# copy_prog DIR PROG: PROG, its libraries and its loader (as DIR/ld.so)
# into DIR, to be run from there through that loader (--inhibit-cache:
# not even ld.so.cache is read), with no exec, open or page fault over 9p
copy_prog() {
	mkdir -p "$1"
	cp "$2" "$1/"
	ldd "$2" | sed -n 's/.* => \(\/[^ ]*\) .*/\1/p' | xargs -r cp -L -t "$1/"
	cp_loader=$(ldd "$2" | sed -n 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p')
	[ -n "$cp_loader" ] || { echo "guest.sh: no loader in 'ldd $2'" >&2; exit 1; }
	cp -L "$cp_loader" "$1/ld.so"
}

# from_ram DIR: the command prefix that runs a program copy_prog put in
# DIR through DIR's loader (used unquoted: the paths have no blanks)
from_ram() { echo "$1/ld.so --inhibit-cache --library-path $1"; }

# nd ARGS...: ndbench from the guest's RAM, its output held on tmpfs until
# it exits.  Run from the 9p root, its text pages (dropped from the page
# cache by quiesce's drop_caches) were read over 9p as they were first
# touched, and the reader of its pipe (tag's sed) woke at each result
# line, between windows or inside a -reclaim one, to do the same: 7 of
# 6.1's 1,305 windows had 1-22 virtio interrupts, each 1-8 % longer.
copy_prog /tmp/nd "$bin/ndbench"
nd() {
	# shellcheck disable=SC2046 # a command prefix
	$(from_ram /tmp/nd) /tmp/nd/ndbench "$@" >/tmp/nd.out
	nd_rc=$?
	cat /tmp/nd.out
	return "$nd_rc"
}

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/variant.sh
. "$top/scripts/variant.sh"

# RAMDISKS=1: copy each disk of DISKS into a RAM disk (/dev/ram0, ram1...,
# sized by bench/run.sh with brd.rd_size) and name the RAM disks in DISKS
# instead; conv=sparse leaves the image's holes unallocated.
if [ "$RAMDISKS" = 1 ]; then
	n=0 ram=''
	for d in $DISKS; do
		[ -b "/dev/ram$n" ] || { echo "guest.sh: no /dev/ram$n (brd)" >&2; exit 1; }
		dd if="/dev/${d#*=}" of="/dev/ram$n" bs=1M conv=sparse 2>/dev/null ||
			{ echo "guest.sh: copying /dev/${d#*=} into /dev/ram$n failed" >&2; exit 1; }
		ram="$ram ${d%%=*}=ram$n"
		n=$((n + 1))
	done
	DISKS=$ram
	echo "ramdisks:$DISKS" >>"$OUT/mounts.txt"
fi

# mount_fs FS POLICY: mount variant FS at /mnt/FS with negdentry=POLICY
# (nothing for "default"); the workloads' folder /mnt/FS/bench comes with
# the images (tmpfs: made here).
mount_fs() {
	opt='' dev=''
	[ "$2" = default ] || opt=negdentry=$2
	for d in $DISKS; do
		[ "${d%%=*}" != "$1" ] || dev=/dev/${d#*=}
	done
	mount_variant "$1" "${dev:-none}" "/mnt/$1" "$opt" >&2 ||
		{ echo "mount $1 ($2) failed" >&2; exit 1; }
	grep " /mnt/$1 " /proc/mounts >>"$OUT/mounts.txt"
	[ "$1" != tmpfs ] || mkdir -p /mnt/tmpfs/bench
	[ -d "/mnt/$1/bench" ] || { echo "guest.sh: /mnt/$1 has no bench folder (bench/run.sh makes it in the image)" >&2; exit 1; }
}

# quiesce: before a timed run, write back and drop what the previous step
# left in the caches, then idle a second (free under -icount sleep=off)
# so that RCU callbacks and kworkers it queued run before the clock starts
quiesce() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
}

# kmalloc_bytes: bytes in use in the kmalloc caches (active objects x
# size): where a mount's private structures and a policy's table live
kmalloc_bytes() {
	awk '$1 ~ /^kmalloc-[0-9]+k?$/ { s += $2 * $4 } END { printf "%d\n", s }' /proc/slabinfo
}

# tag FS POLICY: prefix ndbench's lines with the filesystem and policy.
# They go to raw.txt only once the writer has exited: $OUT is 9p, and a
# write to it while a loop is timed makes the guest wait for the host,
# which under -icount sleep=off moves the guest clock to its next timer
# (up to a tick) inside the window; /tmp is the guest's tmpfs.
tag() {
	sed "s/^\(result\|mem\|pc\|count\) /\1 $1 $2 /" >/tmp/tag.out
	cat /tmp/tag.out >>"$raw"
}

stressng() { # STRESSOR OPS
	dir=/mnt/ext4/bench/stress-$1
	mkdir -p "$dir"
	# its output on tmpfs while it runs (see tag), then to $OUT
	HOME=/tmp stress-ng --"$1" 1 --"$1"-ops "$2" --temp-path "$dir" \
		-t 600 --metrics-brief --yaml "/tmp/stress-$1.yaml" \
		>"/tmp/stress-$1.log" 2>&1 || echo "stress-ng --$1 failed" >&2
	cp "/tmp/stress-$1.yaml" "/tmp/stress-$1.log" "$OUT/"
	# bogo-ops over the stressor's own wall clock (guest time)
	awk -v s="$1" '$1 == "bogo-ops:" { ops = $2 }
		$1 == "wall-clock-time:" { ns = $2 * 1e9 }
		END { if (ops) printf "result ext4 default stress-%s %d %.0f\n", s, ops, ns }' \
		"$OUT/stress-$1.yaml" >>"$raw"
	rm -rf "$dir"
}

# tool COMMAND PACKAGE: fail, naming the Debian package, if COMMAND is
# missing (the guest runs the host's binaries, from the root over 9p)
tool() {
	command -v "$1" >/dev/null 2>&1 || {
		echo "guest.sh: '$1' not found: install the Debian package '$2' (or run 'make deps')" >&2
		exit 1
	}
}

dbench_load=''
if [ "$part" = tput ] && [ "$TOOLS" = 1 ]; then
	tool fs_mark fsmark
	tool postmark postmark
	tool dbench dbench
	tool unshare util-linux
	for f in /usr/share/dbench/client.txt /usr/share/dbench/client.txt.gz; do
		[ -f "$f" ] && { dbench_load=$f; break; }
	done
	case "$dbench_load" in
	'') echo "guest.sh: dbench's loadfile /usr/share/dbench/client.txt not found: install the Debian package 'dbench'" >&2
		exit 1 ;;
	*.gz) zcat "$dbench_load" >/tmp/dbench-client.txt && dbench_load=/tmp/dbench-client.txt ;;
	esac
	# The tools, their libraries, their loader and dbench's load file
	# copied into the guest's RAM (/tmp is tmpfs), and run from there
	# through that loader (--inhibit-cache: not even ld.so.cache is
	# read): no exec or open over 9p inside a timed run. Each 9p request
	# leaves the vCPU idle until the host answers, and under -icount
	# sleep=off an idle vCPU moves the guest clock to its next timer:
	# reading them once was not enough, since the drop_caches before each
	# timed run (ndbench's timed_start) evicts 9p's cached inodes, and
	# every open of a 9p file is a request anyway.
	for b in fs_mark postmark dbench; do
		copy_prog /tmp/tools "$(command -v "$b")"
	done
	cp "$dbench_load" /tmp/tools/client.txt
	dbench_load=/tmp/tools/client.txt
	# what the tools read under /etc, for run_tool's private /etc
	mkdir -p /tmp/tools/etc
	[ ! -e /etc/localtime ] || cp -L /etc/localtime /tmp/tools/etc/
fi

# run_tool DIR LABEL OPS LOG CLEAN TOOL ARGS...: ndbench tool (see
# ndbench.c) running /tmp/tools/TOOL through the copied loader, in a mount
# namespace of its own whose /etc is a tmpfs holding the copies made
# above. The root is the host's over 9p, and 9p caches no negative
# dentries: the loader's look for /etc/ld.so.preload at each exec and
# fs_mark's ctime() (/etc/localtime) were 9p requests inside the window
# (19 virtio interrupts in one fs_mark run on tmpfs, and 0-90 ms of idle
# guest time on top of its 121 ms; with this /etc, none and 0.2 %).
run_tool() {
	rt_dir=$1 rt_label=$2 rt_ops=$3 rt_log=$4 rt_clean=$5 rt_bin=/tmp/tools/$6
	shift 6
	# shellcheck disable=SC2046 # command prefixes
	unshare -m sh -c 'mount -t tmpfs tmpfs /etc && cp -a /tmp/tools/etc/. /etc/ && exec "$@"' \
		sh $(from_ram /tmp/nd) /tmp/nd/ndbench tool "$rt_dir" "$rt_label" "$rt_ops" \
		"$rt_log" "$rt_clean" $(from_ram /tmp/tools) "$rt_bin" "$@"
}

# tools FS: fs_mark, postmark and dbench in /mnt/FS/bench, the image's
# directory, where the workloads run (on ext2 a directory made at the root
# lands in a random block group; fs_mark's ext2 spread is not from that:
# see its floor_why in workloads.py), timed from outside by ndbench tool,
# which also counts the negative dentries each left
tools() {
	t=$1 d=/mnt/$1/bench
	set --
	i=1
	while [ "$i" -le "$FSMARK_DIRS" ]; do
		mkdir -p "$d/fsmark/d$i"
		set -- "$@" -d "$d/fsmark/d$i"
		i=$((i + 1))
	done
	run_tool "$d/fsmark" fsmark $((FSMARK_DIRS * FSMARK_N)) "$d/fsmark.out" 1 \
		fs_mark -S0 -k -s 0 -n "$FSMARK_N" -L 1 \
		-l "$d/fsmark.fslog" "$@" | tag "$t" default
	cp "$d/fsmark.out" "$OUT/fsmark-$t.log"
	rm -rf "$d/fsmark" "$d"/fsmark.*
	mkdir -p "$d/postmark"
	printf 'set location %s\nset number %s\nset transactions %s\nset size %s\nset seed 42\nrun\nquit\n' \
		"$d/postmark" "$PM_NUMBER" "$PM_TRANS" "$PM_SIZE" >"$d/postmark.cfg"
	run_tool "$d/postmark" postmark "$PM_TRANS" "$d/postmark.out" 0 \
		postmark "$d/postmark.cfg" | tag "$t" default
	cp "$d/postmark.out" "$OUT/postmark-$t.log"
	rm -rf "$d/postmark" "$d"/postmark.*
	# dbench times itself (-t guest seconds): its MB/s as kB/s
	run_tool "$d/dbench" dbench 0 "$d/dbench.out" 0 \
		dbench -c "$dbench_load" -D "$d/dbench" -t "$DBENCH_T" "$DBENCH_CLIENTS" |
		tag "$t" default
	cp "$d/dbench.out" "$OUT/dbench-$t.log"
	awk '$1 == "Throughput" && $3 == "MB/sec" && $2 > 0 {
		printf "result dbench %.0f 1000000000\n", $2 * 1000 }' "$d/dbench.out" |
		tag "$t" default
	rm -rf "$d/dbench" "$d"/dbench.*
}

case "$part" in
mem)
	for p in $(policies); do
		for fs in $FSS; do
			mount_fs "$fs" "$p"
			nd mem "/mnt/$fs/bench/mem" "$ROUNDS" "$N" | tag "$fs" "$p"
			umount "/mnt/$fs"
		done
	done
	;;
pc)
	mount_fs ext4 default
	[ "$FS" = ext4 ] || mount_fs "$FS" default
	dd if=/dev/zero of=/mnt/ext4/bench/hot bs=1M count="$HOT_MIB" conv=fsync 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
	nd spool "/mnt/$FS/bench/spool" "$SPOOL_OPS" /mnt/ext4/bench/hot "$CHUNK" |
		tag "$FS" default
	cat /proc/meminfo >"$OUT/meminfo.txt"
	grep -E '^(dentry|kmalloc-(256|512)) ' /proc/slabinfo >"$OUT/slab.txt"
	;;
tput)
	for p in $(policies); do
		for fs in $FSS; do
			mount_fs "$fs" "$p"
			d=/mnt/$fs/bench
			while read -r when w args; do
				[ "$when" = every ] || [ "$p" = default ] || continue
				# shellcheck disable=SC2086 # a list
				nd "$w" "$d/$w" $args </dev/null | tag "$fs" "$p"
				rm -rf "${d:?}/$w"
			done <"$RUNS"
			umount "/mnt/$fs"
		done
		# the field's tools (default policy only) and negdir (tmpfs,
		# the policies of NEGDIR_POLICIES), after the workloads of all
		# the filesystems: a boot of another policy runs those
		# workloads without them, and must reach each with the same
		# history (run before ext4's, ext2's tools made ext4's and
		# tmpfs's creates of those boots 8,500 instructions cheaper)
		tools_on=0 negdir_on=0
		[ "$p" != default ] || [ "$TOOLS" != 1 ] || tools_on=1
		case " $NEGDIR_POLICIES " in *" $p "*) negdir_on=1 ;; esac
		for fs in $FSS; do
			[ "$tools_on" = 1 ] || { [ "$negdir_on" = 1 ] && [ "$fs" = tmpfs ]; } ||
				continue
			mount_fs "$fs" "$p"
			d=/mnt/$fs/bench
			[ "$tools_on" = 0 ] || tools "$fs"
			# lookup misses cached in a small directory: what they
			# cost readdir and rmdir (tmpfs: stock keeps none; patched
			# keeps them under negdentry=lookup, its opt-in there)
			if [ "$negdir_on" = 1 ] && [ "$fs" = tmpfs ]; then
				# shellcheck disable=SC2153 # sizes from bench/run.sh
				nd negdir "$d/negdir" "$NEGDIR_MISSES" "$NEGDIR_FILES" \
					"$NEGDIR_PASSES" "$NEGDIR_RMDIRS" | tag "$fs" "$p"
				rm -rf "${d:?}/negdir"
			fi
			umount "/mnt/$fs"
		done
		# stress-ng: ext4, default policy, right after the same sequence
		# of work on both kernels
		if [ "$p" = default ] && [ "$STRESS" = 1 ]; then
			mount_fs ext4 default
			stressng dentry "$SNG_DENTRY"
			stressng touch "$SNG_TOUCH"
			stressng filename "$SNG_FILENAME"
			stressng link "$SNG_LINK"
			stressng rename "$SNG_RENAME"
			stressng dir "$SNG_DIR"
			umount /mnt/ext4
		fi
	done
	;;
smp)
	for fs in ext2 ext4 tmpfs; do
		mount_fs "$fs" default
		for n in $SMP_FILES; do
			nd smp "/mnt/$fs/bench/smp$n" "$n" "$SMP_OPS" | tag "$fs" default
		done
		umount "/mnt/$fs"
	done
	;;
filebench)
	fb=$FB_PREFIX/bin/filebench
	[ -x "$fb" ] || { echo "guest.sh: no filebench at '$fb' (bench/build-filebench.sh builds it)" >&2; exit 1; }
	# filebench's worker processes map its shared memory at the address
	# the parent had: without this they die and the parent spins
	echo 0 >/proc/sys/kernel/randomize_va_space
	cat "$fb" >/dev/null
	for p in $(policies); do
		for fs in $FSS; do
			for spec in $FB_WORKLOADS; do
				# NAME, or NAME:THREADS (its $nthreads set to
				# THREADS; its results named NAME-tTHREADS)
				name=${spec%%:*} threads=${spec#"$name"} threads=${threads#:}
				w=$name${threads:+-t$threads}
				f=$FB_PREFIX/share/filebench/workloads/$name.f
				[ -f "$f" ] || { echo "guest.sh: no personality $f" >&2; exit 1; }
				if [ -n "$threads" ] && ! grep -q "^set \$nthreads=" "$f"; then
					echo "guest.sh: $f sets no \$nthreads for $spec" >&2
					exit 1
				fi
				mount_fs "$fs" "$p"
				d=/mnt/$fs/bench/fb-$w
				mkdir -p "$d"
				# (without THREADS the last expression changes nothing)
				sed -e "s|^set \$dir=.*|set \$dir=$d|" -e '/^run\b/d' \
					-e "/^set \$nthreads=/s/=\(.*\)/=${threads:-\\1}/" "$f" >/tmp/fb.f
				if [ "$FB_WARM" -gt 0 ]; then
					echo "psrun -$FB_WARM $((FB_WARM + FB_RUN))" >>/tmp/fb.f
				else
					echo "run $FB_RUN" >>/tmp/fb.f
				fi
				cp /tmp/fb.f "$OUT/fb-$w.f"
				quiesce
				# its log on tmpfs while it runs (see tag), then to $OUT
				log=$OUT/fb-$fs-$p-$w.log
				"$fb" -f /tmp/fb.f >/tmp/fb.log 2>&1
				rc=$?
				cp /tmp/fb.log "$log"
				[ "$rc" = 0 ] ||
					{ echo "filebench $w on $fs ($p) failed: see $log" >&2; exit 1; }
				# one "N: IO Summary: OPS ops RATE ops/s ..." per period
				# of filebench's own clock (guest time), after its
				# per-flowop lines ("deletefileN OPSops ..."): with
				# FB_WARM, the first period is the warm-up (its
				# removals counted apart), the others the window
				awk -v w="fb-$w" -v warm="$FB_WARM" '
					$1 ~ /^deletefile/ && $2 ~ /ops$/ { sub(/ops$/, "", $2); del += $2 }
					$2 == "IO" && $3 == "Summary:" {
						if (warm > 0 && !period++) { wdel = del }
						else { ops += $4; if ($6 > 0) ns += $4 / $6 * 1e9; rdel += del }
						del = 0 }
					END {
						if (ns > 0) printf "result %s %d %.0f\n", w, ops, ns
						printf "count %s removals %d\n", w, rdel
						if (warm > 0) printf "count %s removals_warmup %d\n", w, wdel }' "$log" |
					tag "$fs" "$p"
				grep -q "^result $fs $p fb-$w " "$raw" ||
					{ echo "filebench $w on $fs ($p): no IO Summary in $log" >&2; exit 1; }
				rm -rf "$d"
				umount "/mnt/$fs"
			done
		done
	done
	;;
mountmem)
	# the kmalloc bytes of a mount (the policy's table, the superblock's
	# private structure): exact only when SLUB keeps no CPU slab for the
	# kmalloc caches (bench/run.sh boots with slub_debug=F,kmalloc-*)
	for p in $(policies); do
		for fs in $FSS; do
			i=1
			while [ "$i" -le "$MOUNTMEM_N" ]; do
				quiesce
				b0=$(kmalloc_bytes)
				mount_fs "$fs" "$p"
				b1=$(kmalloc_bytes)
				echo "count mount kmalloc_bytes $((b1 - b0))" | tag "$fs" "$p"
				umount "/mnt/$fs"
				i=$((i + 1))
			done
		done
	done
	;;
scale)
	for p in $(policies); do
		for fs in $FSS; do
			# the object sizes of the inode and dentry caches
			mount_fs "$fs" "$p"
			awk -v fs="$fs" '$1 == fs "_inode_cache" || ($1 == "shmem_inode_cache" && fs == "tmpfs") ||
				$1 == "dentry" { print "count objsize " $1 " " $4 }' /proc/slabinfo | tag "$fs" "$p"
			d=/mnt/$fs/bench
			# the idle check, before this filesystem's timed rows
			nd calib "$d/calib" "$CALIB" | tag "$fs" "$p"
			rmdir "$d/calib"
			for n in $BIGDIR_OTHERS; do
				# ext2/ext4: the N others come with the image
				nd bigdir "$d/big-$n" "$n" "$BIGDIR_FILES" \
					"$BIGDIR_OPS" | tag "$fs" "$p"
				rm -f "$d/big-$n"/[fn]*
			done
			for n in $BUSY_SPOOL; do
				for same in 0 1; do
					nd busyspool "$d/busy" "$n" \
						$((BUSY_NAMES / n > 1 ? BUSY_NAMES / n : 2)) "$same" |
						tag "$fs" "$p"
					rm -rf "$d/busy"
				done
			done
			if [ "$MILLION" -gt 0 ]; then
				nd million "$d/million" "$MILLION" | tag "$fs" "$p"
				rm -rf "$d/million"
			fi
			umount "/mnt/$fs"
		done
	done
	;;
*)
	echo "guest.sh: unknown part $part" >&2
	exit 2
	;;
esac
cat /proc/sys/fs/dentry-state >"$OUT/dentry-state"
# the clock the timings came from (tsc; jiffies would mean 4 ms steps)
cat /sys/devices/system/clocksource/clocksource0/current_clocksource \
	>"$OUT/clocksource" 2>/dev/null || true
