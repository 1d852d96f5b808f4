#!/usr/bin/env bash
# Build fstests from the snapshot in ../shared/third_party (never from the
# network, never copied into this repository) into $BUILD_DIR/fstests/src.
#
#   build.sh            build once; later calls only check the stamp
#
# FSTESTS_TARBALL overrides the snapshot's path.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

tarball=$(third_party fstests-63a29724a85f.tar.xz FSTESTS_TARBALL)
for t in autoconf:autoconf libtoolize:libtool-bin make:make gcc:gcc xfs_io:xfsprogs \
	setfattr:attr setfacl:acl fio:fio quota:quota; do
	need "${t%%:*}" "${t#*:}"
done
for h in xfs/xfs.h:xfslibs-dev uuid/uuid.h:uuid-dev attr/xattr.h:libattr1-dev \
	acl/libacl.h:libacl1-dev libaio.h:libaio-dev gdbm.h:libgdbm-dev liburing.h:liburing-dev; do
	[ -f "/usr/include/${h%%:*}" ] ||
		die "/usr/include/${h%%:*} not found: install the Debian package '${h#*:}' (or run 'make deps')"
done

dir=$BUILD_DIR/fstests
stamp=$dir/src/.built-from
unpack_snapshot fstests "$tarball" "$dir" "$stamp" || exit 0
make -C "$dir/src" -j"$(nproc)" >"$dir/build.log" 2>&1 ||
	die "fstests build failed: $dir/build.log"
snapshot_built "$tarball" "$stamp"
