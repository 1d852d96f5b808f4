#!/usr/bin/env bash
# Install, through apt-get, everything the project uses (Debian 12).
# Services that packages would start (nfs-kernel-server, rpcbind) stay
# stopped: NFS runs only inside the test guests, never on this machine.
set -euo pipefail

PACKAGES=(
	# kernel source and build
	linux-source-6.1 linux-source-6.12 xz-utils git make gcc bc bison flex libelf-dev
	libssl-dev cpio kmod dwarves ccache
	# patch checks: checkpatch.pl needs perl, sparse for make C=1
	perl sparse
	# guests and their images
	qemu-system-x86 e2fsprogs util-linux iproute2 procps
	# NFS server and client binaries, run inside the guests
	nfs-kernel-server nfs-common rpcbind
	# reports and benchmarks
	python3 gnuplot-nox stress-ng fsmark postmark dbench
	# fstests, built from ../shared/third_party at test time (fstests/),
	# and what its tests run inside the guests
	autoconf automake libtool-bin uuid-dev xfslibs-dev libattr1-dev
	libacl1-dev libaio-dev libgdbm-dev liburing-dev xfsprogs attr acl
	psmisc quota fio dmsetup keyutils
	# filebench, built from ../shared/third_party at bench time
	# (bench/build-filebench.sh)
	libtool
	# script lint
	shellcheck
)

if [ "$(id -u)" != 0 ]; then
	exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod +x "$policy"
	made_policy=1
fi
trap '[ "$made_policy" = 0 ] || rm -f "$policy"' EXIT
apt-get update -q
apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
