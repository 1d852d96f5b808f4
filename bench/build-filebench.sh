#!/usr/bin/env bash
# Build filebench from the snapshot in ../shared/third_party (never from the
# network, never copied into this repository) and install it into
# $BUILD_DIR/filebench/inst: bin/filebench, the personalities in
# share/filebench/workloads/ and the cvar plugins (libcvar-*.so) that
# varmail.f and fileserver.f load at run time from lib/filebench/.  The
# guests see $BUILD_DIR at the same path (scripts/boot.sh), so the install
# prefix is valid there too.
#
#   build-filebench.sh      build once; later calls only check the stamp
#
# FILEBENCH_TARBALL overrides the snapshot's path.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

tarball=$(third_party filebench-22620e602cbb.tar.xz FILEBENCH_TARBALL)
for t in autoconf:autoconf automake:automake libtoolize:libtool bison:bison \
	flex:flex make:make gcc:gcc; do
	need "${t%%:*}" "${t#*:}"
done

dir=$BUILD_DIR/filebench
stamp=$dir/inst/.built-from
unpack_snapshot filebench "$tarball" "$dir" "$stamp" || exit 0
(
	cd "$dir/src"
	libtoolize && aclocal && autoheader && automake --add-missing && autoconf &&
		./configure --prefix="$dir/inst" &&
		make -j"$(nproc)" && make install
) >"$dir/build.log" 2>&1 || die "filebench build failed: $dir/build.log"
for f in bin/filebench share/filebench/workloads/webproxy.f lib/filebench/libcvar-gamma.so; do
	[ -e "$dir/inst/$f" ] || die "filebench build installed no $f: see $dir/build.log"
done
snapshot_built "$tarball" "$stamp"
