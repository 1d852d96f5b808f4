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

res=$OUT/nfs-server
tap=$res/server.tap
mkdir -p "$res"
printf 'TAP version 13\n' >"$tap"
n=0
# shellcheck source=nfs-test/server.sh
. "$top/nfs-test/server.sh"

# shellcheck source=scripts/variant.sh
. "$top/scripts/variant.sh"

serve_variant() { # VARIANT DEVICE
	mount_variant "$1" "/dev/$2" "/srv/$1" && grep " /srv/$1 " /proc/mounts
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

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

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
				skip1 "$out/client.tap" "NFS $vers client checks" "$why"
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
		skip1 "$out/dentries.tap" "NFS $2 dentry counts" "$why"
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

# --- server start-up: mount the variants (one that cannot be served is
# reported and left out), then export them
start_server() {
	paths=''
	for spec in "$@"; do
		v=${spec%%=*}
		step "mount $v on /srv/$v" serve_variant "$v" "${spec#*=}" || continue
		variants="$variants $v" paths="$paths /srv/$v"
	done
	# shellcheck disable=SC2086 # a list of paths without blanks
	server_up $paths
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
server_down
for v in $variants; do
	step "unmount /srv/$v" umount "/srv/$v"
done
step "kernel log has no warnings (dmesg)" kernel_log_clean
printf '1..%d\n' "$n" >>"$tap"
cat "$tap"
! grep -rqsE '^(not ok|Bail out!)' "$OUT"/*/*.tap
