#!/bin/sh
# Runs in the guest (see scripts/check.sh, suite nfs): start the kernel NFS
# server over 127.0.0.1, export each filesystem variant, mount every export
# with each NFS version and lookupcache= value, run the client checks, count
# dentries, shut everything down.
#
#   guest.sh BINDIR VARIANT[=DEVICE]...
#
# BINDIR holds nfs-client and nfs-dentries (build/nfs-test).  Results, one
# folder per export, version and lookupcache value:
#   $OUT/nfs-server/server.tap          server start-up and shutdown steps
#   $OUT/VARIANT-vVERS-CACHE/client.tap nfs-client (lookup caching,
#                                       close-to-open, ESTALE, silly rename,
#                                       namespace operations)
#   $OUT/VARIANT-vVERS-all/dentries.tap nfs-dentries (client vs server
#                                       negative dentries, default mount)
# A step that fails is a "not ok" line naming the step, with its output.
#
# Not "set -e": a failing step must be reported and the rest must still run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$1
shift

# Each can be narrowed for a quick run: boot.sh ... -- env NFS_VERSIONS=3 ...
VERSIONS=${NFS_VERSIONS:-3 4.0 4.1 4.2}
CACHES=${NFS_CACHES:-all positive none}
ACTIMEO=${NFS_ACTIMEO:-1}	# acregmin/acregmax/acdirmin/acdirmax, seconds
N=${NFS_N:-1000}		# files created and unlinked by nfs-dentries
# nfs-dentries needs a quiet guest, so it runs alone, and under TCG every
# NFS operation costs ~3 ms: v3 and v4.2 only (nfsd's v4.0 and v4.1 create
# and remove through the same code as v4.2) to stay within the time budget.
ACCT_VERSIONS=${NFS_ACCT_VERSIONS:-3 4.2}
LIMIT=${NFS_LIMIT:-120}		# seconds any one test program may run
V4ROOT=/srv		# tmpfs (guest-init.sh): the NFSv4 pseudo-root

res=$OUT/nfs-server
tap=$res/server.tap
mkdir -p "$res"
printf 'TAP version 13\n' >"$tap"
n=0
mountd_pid='' rpcbind_pid=''

# One line of server.tap; a failure shows the step's output, one line.
result() { # STATUS NAME LOG
	n=$((n + 1))
	if [ "$1" = ok ]; then
		printf 'ok %d - %s\n' "$n" "$2" >>"$tap"
	else
		printf 'not ok %d - %s: %s\n' "$n" "$2" \
			"$(tr '\n#' '  ' <"$3" | cut -c1-400)" >>"$tap"
		sed 's/^/# /' "$3" >>"$tap"
	fi
}

# step NAME COMMAND...: run a server step, record it in server.tap.
step() {
	name=$1
	shift
	log=$res/step$((n + 1)).log
	if "$@" >"$log" 2>&1; then
		result ok "$name" "$log"
		return 0
	fi
	echo "exit status $?" >>"$log"
	result fail "$name" "$log"
	return 1
}

# until_ok SECONDS COMMAND...: retry COMMAND every 0.2 s, bounded.
until_ok() {
	t=$(($1 * 5))
	shift
	while ! "$@"; do
		t=$((t - 1))
		[ "$t" -gt 0 ] || return 1
		sleep 0.2
	done
}

# nfsd, mountd and exportfs keep their state in /var/lib/nfs.  A tmpfs of
# its own, with negdentry=none where the kernel has the option, so that the
# daemons' file churn leaves no negative dentries in the global count on
# either kernel (stock tmpfs keeps none anyway).
state_dir() {
	mount -t tmpfs -o mode=755,negdentry=none nfsstate /var/lib/nfs 2>/dev/null ||
		mount -t tmpfs -o mode=755 nfsstate /var/lib/nfs || return 1
	mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /run/rpcbind &&
		: >/var/lib/nfs/etab && : >/var/lib/nfs/rmtab &&
		grep ' /var/lib/nfs ' /proc/mounts
}

start_rpcbind() {
	rpcbind -f -w >"$res/rpcbind.log" 2>&1 &
	rpcbind_pid=$!
	until_ok 10 rpcinfo -p 127.0.0.1 >/dev/null 2>&1 || {
		cat "$res/rpcbind.log"
		return 1
	}
	rpcinfo -p 127.0.0.1
}

start_mountd() {
	rpc.mountd -F >"$res/mountd.log" 2>&1 &
	mountd_pid=$!
	until_ok 10 sh -c 'rpcinfo -p 127.0.0.1 | grep -q mountd' || {
		cat "$res/mountd.log"
		return 1
	}
}

start_nfsd() {
	# fresh server: short lease so v4 state never lingers long
	echo 10 >/proc/fs/nfsd/nfsv4leasetime &&
		echo 10 >/proc/fs/nfsd/nfsv4gracetime &&
		rpc.nfsd 4 &&
		grep -q . /proc/fs/nfsd/portlist &&
		[ "$(cat /proc/fs/nfsd/threads)" -gt 0 ] &&
		cat /proc/fs/nfsd/versions /proc/fs/nfsd/portlist
}

# Nothing to reclaim on a new server: end the v4 grace period now instead
# of making the first OPEN wait for it.
end_grace() {
	echo Y >/proc/fs/nfsd/v4_end_grace
}

# shellcheck source=scripts/variant.sh
. "$top/scripts/variant.sh"

serve_variant() { # VARIANT DEVICE
	mount_variant "$1" "/dev/$2" "/srv/$1" && grep " /srv/$1 " /proc/mounts
}

# To all of 127/8: nfs-client's second client comes through 127.0.0.2.
xport() { # PATH OPTIONS
	exportfs -o "rw,sync,no_root_squash,no_subtree_check,insecure,$2" \
		"127.0.0.0/8:$1" && exportfs -v | grep -q "^$1[[:space:]]"
}

# Whether nfsd and the client offer version $1; prints the reason if not.
unsupported() {
	case "$1" in
	3) want=+3 ;;
	4.0) want=+4 ;;
	*) want=+$1 ;;
	esac
	if ! tr ' ' '\n' </proc/fs/nfsd/versions | grep -qx -- "$want"; then
		echo "nfsd does not offer NFS $1 ($(cat /proc/fs/nfsd/versions))"
	elif [ "$1" != 3 ] && ! grep -qw nfs4 /proc/filesystems; then
		echo "the kernel has no NFSv4 client"
	else
		return 1
	fi
}

skip_tap() { # FILE REASON NAME
	printf 'TAP version 13\n1..1\nok 1 - %s # SKIP %s\n' "$3" "$2" >"$1"
}

# source and extra mount options of export $1 with NFS version $2
client_src() {
	if [ "$2" = 3 ]; then
		src=127.0.0.1:/srv/$1 extra=,nolock
	else
		src=127.0.0.1:/$1 extra=,clientaddr=127.0.0.1
	fi
}

# The client checks of one export: every version and lookupcache value,
# one after the other (the exports run side by side).
client_runs() { # VARIANT
	v=$1
	a=/mnt/nfs-$v-a b=/mnt/nfs-$v-b
	mkdir -p "$a" "$b"
	for vers in $VERSIONS; do
		client_src "$v" "$vers"
		why=$(unsupported "$vers") || why=''
		for cache in $CACHES; do
			out=$OUT/$v-v$vers-$cache
			mkdir -p "$out"
			if [ -n "$why" ]; then
				skip_tap "$out/client.tap" "$why" "NFS $vers client checks"
				continue
			fi
			timeout -k 5 "$LIMIT" "$bin/nfs-client" "$src" "$extra" "$a" "$b" \
				"/srv/$v" "$vers" "$cache" "$ACTIMEO" \
				>"$out/client.tap" 2>"$out/client.err" ||
				echo "# nfs-client exit status $?" >>"$out/client.tap"
			echo "--- $v-v$vers-$cache ($(uptime_s)):" \
				"$(grep -cE '^ok' "$out/client.tap") ok," \
				"$(grep -cE '^(not ok|Bail out)' "$out/client.tap") failed"
			# after a crash or a timeout, do not leave the mounts behind
			for m in "$a" "$b"; do
				! grep -q " $m " /proc/mounts || umount -l "$m"
			done
		done
	done
}

# Dentry counts of one export and version, on a quiet guest.
dentry_counts() { # VARIANT VERS
	out=$OUT/$1-v$2-all
	mkdir -p "$out" /mnt/nfs-acct
	why=$(unsupported "$2") && {
		skip_tap "$out/dentries.tap" "$why" "NFS $2 dentry counts"
		return
	}
	client_src "$1" "$2"
	load_variant "$1"	# NDT_MOUNT_OPTS and NDT_FEATURES of this export
	timeout -k 5 "$LIMIT" "$bin/nfs-dentries" "$src" \
		"vers=$2,addr=127.0.0.1$extra" /mnt/nfs-acct "/srv/$1" "$N" \
		>"$out/dentries.tap" 2>"$out/dentries.err" ||
		echo "# nfs-dentries exit status $?" >>"$out/dentries.tap"
	echo "--- $1-v$2 dentries ($(uptime_s)): $(sed -n 's/^# metric //p' "$out/dentries.tap" |
		tr '\n' ' ')"
	! grep -q " /mnt/nfs-acct " /proc/mounts || umount -l /mnt/nfs-acct
}

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

stop_pid() { # PID
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null
	t=50
	while kill -0 "$1" 2>/dev/null; do
		t=$((t - 1))
		[ "$t" -gt 0 ] || { echo "pid $1 did not exit"; return 1; }
		sleep 0.1
	done
}

# The patterns of scripts/console-errors (all sections: this suite provokes
# no errors), without its comments and blank lines: a blank pattern would
# match every line.
kernel_log_clean() {
	dmesg >"$res/dmesg.log"
	sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$top/scripts/console-errors" \
		>/tmp/console-errors || return 1
	[ -s /tmp/console-errors ] || { echo "no patterns in $top/scripts/console-errors"; return 1; }
	! grep -aE -f /tmp/console-errors "$res/dmesg.log"
}

# --- server start-up: stop at the first step that fails
start_server() {
	step "mount the nfsd filesystem on /proc/fs/nfsd" \
		mount -t nfsd nfsd /proc/fs/nfsd || return 1
	step "fresh /var/lib/nfs on tmpfs (exports, rmtab, v4recovery)" state_dir ||
		return 1
	step "start rpcbind" start_rpcbind || return 1
	fsid=0
	for spec in "$@"; do
		v=${spec%%=*}
		dev=${spec#*=}
		fsid=$((fsid + 1))
		# a variant that cannot be served is reported and left out
		step "mount $v on /srv/$v" serve_variant "$v" "$dev" || continue
		variants="$variants $v"
		step "export /srv/$v (fsid=$fsid)" xport "/srv/$v" "fsid=$fsid" ||
			return 1
	done
	step "export $V4ROOT as the NFSv4 root (fsid=0,crossmnt)" \
		xport "$V4ROOT" fsid=0,crossmnt || return 1
	step "start rpc.mountd" start_mountd || return 1
	step "start nfsd (rpc.nfsd 4, lease and grace 10 s)" start_nfsd || return 1
	step "end the NFSv4 grace period of the fresh server" end_grace || return 1
	step "showmount -e 127.0.0.1 lists the exports" showmount -e 127.0.0.1
}

variants=''
# --- clients
if start_server "$@"; then
	pids=''
	for v in $variants; do
		client_runs "$v" &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p"
	done
	# the counters are global: one export and version at a time, alone
	for v in $variants; do
		for vers in $ACCT_VERSIONS; do
			dentry_counts "$v" "$vers"
		done
	done
else
	echo "server start-up failed; no client checks run"
fi

# --- shutdown, of whatever was started
stop_nfsd() {
	rpc.nfsd 0 && [ "$(cat /proc/fs/nfsd/threads)" = 0 ]
}

if grep -q ' /proc/fs/nfsd ' /proc/mounts; then
	step "exportfs -ua" exportfs -ua
	step "rpc.nfsd 0 (stop nfsd)" stop_nfsd
fi
[ -z "$mountd_pid" ] || step "stop rpc.mountd" stop_pid "$mountd_pid"
[ -z "$rpcbind_pid" ] || step "stop rpcbind" stop_pid "$rpcbind_pid"
for v in $variants; do
	step "unmount /srv/$v" umount "/srv/$v"
done
! grep -q ' /proc/fs/nfsd ' /proc/mounts ||
	step "unmount /proc/fs/nfsd" umount /proc/fs/nfsd
step "kernel log has no warnings (dmesg)" kernel_log_clean
printf '1..%d\n' "$n" >>"$tap"
cat "$tap"
! grep -rqsE '^(not ok|Bail out!)' "$OUT"/*/*.tap
