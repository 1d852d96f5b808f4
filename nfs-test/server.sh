# shellcheck shell=sh
# shellcheck disable=SC2154 # res and tap are set by the caller
# The loopback NFS server of the guests: kernel nfsd, rpcbind, rpc.mountd
# and nfsdcld over 127.0.0.1, each start-up and shutdown step recorded in a
# TAP file.  Sourced by nfs-test/guest.sh and fstests/guest.sh, which set
#   res   folder for the daemons' logs and the steps' output
#   tap   the TAP file the steps go to (its plan is the caller's)
#   n     the number of steps so far (0)
#
#   server_up PATH...   export each PATH (already mounted, fsid 1, 2, ...)
#                       and /srv as the NFSv4 pseudo-root, start mountd,
#                       nfsdcld and nfsd, end the grace period; stops at
#                       the first failed step and returns non-zero
#   server_down         stop whatever server_up started, and unmount the
#                       nfsd filesystem
#   V4ROOT              /srv (a tmpfs of guest-init.sh): NFSv4 paths are
#                       relative to it
#
# Not "set -e": a failing step must be reported and the rest must still run.

V4ROOT=/srv
mountd_pid='' rpcbind_pid='' nfsdcld_pid=''

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

# nfsd's NFSv4 client tracking, as Debian runs it: nfsdcld, talking to
# nfsd through rpc_pipefs.  6.12 without CONFIG_NFSD_LEGACY_CLIENT_TRACKING
# (Debian 13's config, and the guests') has no other, and no grace period
# that can be ended early without it; 6.1 tries nfsdcld first too.
start_nfsdcld() {
	mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs &&
		mkdir -p /var/lib/nfs/nfsdcld || return 1
	nfsdcld -F -p /var/lib/nfs/rpc_pipefs -s /var/lib/nfs/nfsdcld \
		>"$res/nfsdcld.log" 2>&1 &
	nfsdcld_pid=$!
	sleep 0.5
	kill -0 "$nfsdcld_pid" || { cat "$res/nfsdcld.log"; return 1; }
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
# of making the first OPEN wait for it.  nfsd may have skipped it already
# (nfsdcld: no clients to reclaim), and then 6.12 refuses the write; 6.12
# also ends it asynchronously.  What counts is that it ends.
end_grace() {
	grep -qx Y /proc/fs/nfsd/v4_end_grace ||
		echo Y >/proc/fs/nfsd/v4_end_grace || return 1
	until_ok 5 grep -qx Y /proc/fs/nfsd/v4_end_grace
}

# To all of 127/8: nfs-client's second client comes through 127.0.0.2.
xport() { # PATH OPTIONS
	exportfs -o "rw,sync,no_root_squash,no_subtree_check,insecure,$2" \
		"127.0.0.0/8:$1" && exportfs -v | grep -qE "^$1([[:space:]]|$)"
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


server_up() { # PATH...
	step "mount the nfsd filesystem on /proc/fs/nfsd" \
		mount -t nfsd nfsd /proc/fs/nfsd || return 1
	step "fresh /var/lib/nfs on tmpfs (exports, rmtab, v4recovery)" state_dir ||
		return 1
	step "start rpcbind" start_rpcbind || return 1
	fsid=0
	for p in "$@"; do
		fsid=$((fsid + 1))
		step "export $p (fsid=$fsid)" xport "$p" "fsid=$fsid" || return 1
	done
	step "export $V4ROOT as the NFSv4 root (fsid=0,crossmnt)" \
		xport "$V4ROOT" fsid=0,crossmnt || return 1
	step "start rpc.mountd" start_mountd || return 1
	step "start nfsdcld (NFSv4 client tracking)" start_nfsdcld || return 1
	step "start nfsd (rpc.nfsd 4, lease and grace 10 s)" start_nfsd || return 1
	step "end the NFSv4 grace period of the fresh server" end_grace || return 1
	step "showmount -e 127.0.0.1 lists the exports" showmount -e 127.0.0.1
}

stop_nfsd() {
	rpc.nfsd 0 && [ "$(cat /proc/fs/nfsd/threads)" = 0 ]
}

server_down() {
	if grep -q ' /proc/fs/nfsd ' /proc/mounts; then
		step "exportfs -ua" exportfs -ua
		step "rpc.nfsd 0 (stop nfsd)" stop_nfsd
	fi
	[ -z "$mountd_pid" ] || step "stop rpc.mountd" stop_pid "$mountd_pid"
	[ -z "$nfsdcld_pid" ] || step "stop nfsdcld" stop_pid "$nfsdcld_pid"
	! grep -q ' /var/lib/nfs/rpc_pipefs ' /proc/mounts ||
		step "unmount rpc_pipefs" umount /var/lib/nfs/rpc_pipefs
	[ -z "$rpcbind_pid" ] || step "stop rpcbind" stop_pid "$rpcbind_pid"
	mountd_pid='' rpcbind_pid='' nfsdcld_pid=''
	! grep -q ' /proc/fs/nfsd ' /proc/mounts ||
		step "unmount /proc/fs/nfsd" umount /proc/fs/nfsd
}
