#!/bin/bash
# Runs in the guest (see scripts/check.sh, suite fstests): fstests on each
# configuration, one after the other.
#
#   guest.sh FSTESTS_DIR TESTS CONFIG...
#
# FSTESTS_DIR is the built fstests tree (fstests/build.sh; read-only in the
# guest, so it is copied to /tmp).  TESTS is a comma-separated list such as
# generic/001,generic/007.  The disks: vda the ext4 test filesystem, vdb the
# ext2 one (fs-images recipes), vdc a blank scratch disk that fstests
# formats itself; all three 2 GiB (check.sh).  CONFIG is one of those
# declared in fstests/configs: the default policies of ext4, ext2 and
# tmpfs, ext4 and tmpfs with other negdentry= policies (run only where the
# harness declares the series for the driver, a SKIP elsewhere), and the
# loopback NFS server (nfs-test/server.sh) exporting test and scratch
# folders of ext4 (vda) or of two tmpfs mounts, NFS 3 and 4.2.  An
# undeclared CONFIG fails.
# Results: $OUT/CONFIG/fstests.tap (one line per test: ok, not ok, or SKIP
# with fstests' own "not run" reason or fstests/exclude's), and fstests'
# own files in $OUT/CONFIG/results/ (check.log, result.xml, *.out.bad,
# *.full, *.dmesg).  $OUT/nfs-server/server.tap has the server's steps.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
src=$1
tests=$(tr , ' ' <<<"$2")
shift 2

# bash's <(...), used by fstests' check, needs /dev/fd, which devtmpfs
# does not create
for fd in fd:/proc/self/fd stdin:/proc/self/fd/0 stdout:/proc/self/fd/1 stderr:/proc/self/fd/2; do
	[ -e "/dev/${fd%%:*}" ] || ln -s "${fd#*:}" "/dev/${fd%%:*}"
done

work=/tmp/fstests
cp -a "$src" "$work" || { echo "cannot copy $src to $work"; exit 1; }

# fstests runs some steps as these users and groups (_require_user,
# _require_group).  The host's /etc/passwd is read-only and must not
# change: the guest gets copies with them added, bind-mounted over.
for f in passwd group; do
	cp "/etc/$f" "/tmp/$f"
done
for u in fsgqa:1500 fsgqa2:1501 123456-fsgqa:1502; do
	echo "${u%%:*}:x:${u#*:}:${u#*:}::/tmp:/bin/bash" >>/tmp/passwd
	echo "${u%%:*}:x:${u#*:}:" >>/tmp/group
done
if ! mount --bind /tmp/passwd /etc/passwd || ! mount --bind /tmp/group /etc/group; then
	echo "cannot bind-mount the guest's /etc/passwd and /etc/group"
	exit 1
fi

# shellcheck source=scripts/variant.sh
. "$top/scripts/variant.sh"
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

# exclusions of CONFIG, as fstests' -E file with the reason after '#'
excludes() { # CONFIG
	local c t why
	while read -r c t why; do
		case "$c" in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2254 # CONFIGS is a pattern
		case "$1" in $c) printf '%s # %s\n' "$t" "$why" ;; esac
	done <"$top/fstests/exclude"
}

# declared CONFIG: its line of fstests/configs, "NAME SMOKE NEEDS BASELINE
# SETTINGS", on stdout; fails for an undeclared one
declared() { # CONFIG
	awk -v c="$1" '!/^#/ && $1 == c { print; found = 1 } END { exit !found }' \
		"$top/fstests/configs"
}

# fstests' local.config for CONFIG, on stdout
config() { # CONFIG
	local line
	line=$(declared "$1") || return 1
	echo "export TEST_DIR=/mnt/test SCRATCH_MNT=/mnt/scratch"
	echo "export RESULT_BASE=$OUT/$1/results"
	# SETTINGS: the fifth field to the end of the line
	echo "export $(sed -E 's/^([^ ]+ +){4}//' <<<"$line")"
}

# watchdog FILE: one hung test must not cost the rest of the run (the
# boot's timeout would end it).  A test still running after test_timeout
# seconds is killed with its processes and noted in FILE ("TEST SECONDS");
# fstests then reports it as failed and goes on to the next test.
test_timeout=${FSTESTS_TEST_TIMEOUT:-600}	# check.sh passes it
watchdog() {
	local pid seen='' since=0 t
	while sleep 5; do
		pid=$(pgrep -of '^/bin/bash ([^ ]*/)?tests/[a-z0-9]+/[0-9]+$') || { seen=''; continue; }
		if [ "$pid" != "$seen" ]; then
			seen=$pid since=$SECONDS
		elif [ $((SECONDS - since)) -ge "$test_timeout" ]; then
			t=$(tr '\0' ' ' <"/proc/$pid/cmdline" | sed 's|.*/tests/||; s/ *$//')
			echo "$t $((SECONDS - since))" >>"$1"
			echo "watchdog: killing $t after $((SECONDS - since)) s" >/dev/kmsg
			killtree "$pid"
		fi
	done
}
killtree() { # PID
	local c
	kill -STOP "$1" 2>/dev/null
	for c in $(pgrep -P "$1"); do
		killtree "$c"
	done
	kill -KILL "$1" 2>/dev/null
}

# run CONFIG: fstests' check on it, then its result.xml as TAP
run() { # CONFIG
	local c=$1 res=$OUT/$1 dog
	mkdir -p "$res/results" /mnt/test /mnt/scratch
	if ! config "$c" >"$work/local.config"; then
		tap1 "$res/fstests.tap" "not ok" "unknown fstests configuration $c"
		return 1
	fi
	excludes "$c" >"$res/exclude"
	echo "--- $c ($(cut -d' ' -f1 /proc/uptime) s)"
	watchdog "$res/results/timed-out" &
	dog=$!
	# fscrypt tests need a session keyring, which a login gets from
	# pam_keyinit and a guest whose PID 1 is a script lacks: without one,
	# keyctl padd fails with ENOKEY, and generic/397 failed (stdin
	# /dev/null) or hung (stdin the console).  No test reads stdin.
	# shellcheck disable=SC2086 # a list of tests
	(cd "$work" && keyctl session - ./check -R xunit-quiet -E "$res/exclude" $tests) \
		</dev/null >"$res/check.out" 2>&1
	echo "fstests check exit status $?" >>"$res/check.out"
	killtree "$dog"	# and its sleep, which would keep $OUT busy
	tail -n 4 "$res/check.out"
	# shellcheck disable=SC2086 # a list of tests
	python3 "$top/fstests/report.py" tap "$res/results" "$res/exclude" $tests \
		>"$res/fstests.tap"
	grep -q ' /mnt/test ' /proc/mounts && umount /mnt/test
	grep -q ' /mnt/scratch ' /proc/mounts && umount /mnt/scratch
	return 0
}

skip_config() { # CONFIG REASON
	mkdir -p "$OUT/$1"
	skip1 "$OUT/$1/fstests.tap" "fstests on $1" "$2"
}

nfs=''
for c in "$@"; do
	# an undeclared one: run reports it as a failure
	line=$(declared "$c") || { run "$c"; continue; }
	read -r _ _ needs _ settings <<<"$line"
	case "$needs $settings" in
	*FSTYP=nfs*) nfs="$nfs $c" ;;
	'- '*) run "$c" ;;
	*)
		# a negdentry= mount: only where the harness declares the series
		# for the driver (ext4 or tmpfs: scripts/variant.sh)
		load_variant "$needs" || NDT_EXPECT=''
		case "$NDT_EXPECT" in
		series) run "$c" ;;
		stock) skip_config "$c" "declared: no negdentry= option: the harness declares this kernel without the series ($needs=stock)" ;;
		*)
			mkdir -p "$OUT/$c"
			tap1 "$OUT/$c/fstests.tap" "not ok" "fstests on $c: the harness declares nothing for $needs on this kernel (NDT_EXPECT)" ;;
		esac ;;
	esac
done
[ -n "$nfs" ] || exit 0

# NFS: serve test and scratch folders of ext4 (vda) and of two tmpfs
res=$OUT/nfs-server tap=$OUT/nfs-server/server.tap n=0
mkdir -p "$res"
printf 'TAP version 13\n' >"$tap"
# shellcheck source=nfs-test/server.sh
. "$top/nfs-test/server.sh"
prepare() {
	mkdir -p /srv/ext4 /srv/tmpfs/test /srv/tmpfs/scratch &&
		mount -t ext4 /dev/vda /srv/ext4 && mkdir -p /srv/ext4/test /srv/ext4/scratch &&
		mount -t tmpfs -o size=1g tmpfs /srv/tmpfs/test &&
		mount -t tmpfs -o size=1g tmpfs /srv/tmpfs/scratch
}
if step "mount ext4 (vda) and two tmpfs under /srv" prepare &&
	server_up /srv/ext4/test /srv/ext4/scratch /srv/tmpfs/test /srv/tmpfs/scratch; then
	for c in $nfs; do
		run "$c"
	done
else
	for c in $nfs; do
		mkdir -p "$OUT/$c"
		tap1 "$OUT/$c/fstests.tap" "not ok" "fstests on $c: the NFS server did not start (nfs-server/server.tap)"
	done
fi
server_down
for m in /srv/tmpfs/scratch /srv/tmpfs/test /srv/ext4; do
	! grep -q " $m " /proc/mounts || step "unmount $m" umount "$m"
done
printf '1..%d\n' "$n" >>"$tap"
! grep -q '^not ok' "$tap"
