#!/usr/bin/env bash
# Extract Debian's linux-source-6.1, apply the series, build kernels.
#
#   kernel.sh tree              extract the tree (once) as a git repo, tag "stock"
#   kernel.sh apply             branch "patched" = stock + patches/series (git am)
#   kernel.sh build FLAVOUR...  build stock, patched or debug into build/kernels/
#
# stock and patched share one object directory: switching between them
# rebuilds only the files the series touches.  ccache keeps rebuilds cheap.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# One kernel job at a time: they share the tree's checkout.
mkdir -p "$BUILD_DIR"
exec 9>"$BUILD_DIR/kernel.lock"
flock 9

GIT=(git -C "$KTREE" -c user.name="ndentry harness" -c user.email=harness@localhost
	-c advice.detachedHead=false)

cmd_tree() {
	[ -d "$KTREE/.git" ] && return 0
	[ -r "$KERNEL_TARBALL" ] ||
		die "$KERNEL_TARBALL missing: install the Debian package 'linux-source-6.1'"
	need git git
	log "extracting $KERNEL_TARBALL into $KTREE"
	rm -rf "$KTREE" "$KTREE.tmp"
	mkdir -p "$KTREE.tmp"
	tar -xf "$KERNEL_TARBALL" -C "$KTREE.tmp" --strip-components=1
	mv "$KTREE.tmp" "$KTREE"
	# Debian's tarball ships a .gitignore that ignores the whole top
	# level: add with -f, or git am would have no base commit.
	"${GIT[@]}" init -q
	"${GIT[@]}" add -A -f .
	"${GIT[@]}" commit -q -m "Debian linux-source-6.1 $(tree_version)"
	"${GIT[@]}" tag -f stock >/dev/null
}

cmd_apply() {
	cmd_tree
	local p n=0
	"${GIT[@]}" checkout -q -f -B patched stock
	"${GIT[@]}" am --abort >/dev/null 2>&1 || true
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		[ -f "$TOP/patches/$p" ] || die "patches/series names $p, which does not exist"
		if ! "${GIT[@]}" am -q --keep-cr "$TOP/patches/$p" >"$BUILD_DIR/apply.log" 2>&1; then
			"${GIT[@]}" am --abort >/dev/null 2>&1 || true
			cat "$BUILD_DIR/apply.log" >&2
			die "patch does not apply: patches/$p"
		fi
		n=$((n + 1))
	done <"$TOP/patches/series"
	log "patched = stock + $n patches from patches/series"
}

# make in the tree with the harness's toolchain settings.
kmake() {
	local cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	make -C "$KTREE" -s -j"$(nproc)" CC="$cc" "$@"
}

# configure OBJ [FRAGMENT...]: allnoconfig + fragments; check that every
# requested option took.
configure() {
	local obj=$1 all
	shift
	mkdir -p "$obj"
	all=$obj/fragments.config
	cat "$@" >"$all"
	kmake O="$obj" KCONFIG_ALLCONFIG="$all" allnoconfig >/dev/null
	while IFS='=' read -r sym val; do
		case "$sym" in CONFIG_*) ;; *) continue ;; esac
		if [ "$val" = n ]; then
			! grep -q "^$sym=" "$obj/.config" || die "$sym=n did not take (see $obj/.config)"
		else
			grep -qx "$sym=$val" "$obj/.config" || die "$sym=$val did not take (see $obj/.config)"
		fi
	done <"$all"
}

# build FLAVOUR: check out its source, build into its object dir,
# copy bzImage, .config and version into build/kernels/FLAVOUR/.
build_one() {
	local flavour=$1 rev obj frags=("$TOP/scripts/guest.config") out
	case "$flavour" in
	stock) rev=stock obj=$BUILD_DIR/obj ;;
	patched) rev=patched obj=$BUILD_DIR/obj ;;
	debug) rev=patched obj=$BUILD_DIR/obj-debug frags+=("$TOP/scripts/debug.config") ;;
	*) die "unknown kernel flavour '$flavour' (stock, patched, debug)" ;;
	esac
	"${GIT[@]}" checkout -q -f "$rev"
	configure "$obj" "${frags[@]}"
	log "building $flavour kernel ($(tree_version)) in $obj"
	local start=$SECONDS
	if ! kmake O="$obj" LOCALVERSION="-$flavour" bzImage >"$obj/build.log" 2>&1; then
		tail -n 30 "$obj/build.log" >&2
		die "$flavour kernel build failed: see $obj/build.log"
	fi
	if grep -E 'warning:' "$obj/build.log" >&2; then
		die "$flavour kernel build has warnings: see $obj/build.log"
	fi
	out=$KERNELS_DIR/$flavour
	mkdir -p "$out"
	cp "$obj/arch/x86/boot/bzImage" "$obj/.config" "$out/"
	cat "$obj/include/config/kernel.release" >"$out/release"
	"${GIT[@]}" rev-parse HEAD >"$out/commit"
	log "$flavour kernel $(cat "$out/release") built in $((SECONDS - start)) s"
}

cmd_build() {
	need gcc gcc
	need make make
	need flex flex
	need bison bison
	need bc bc
	[ -e /usr/include/libelf.h ] || die "libelf.h missing: install the Debian package 'libelf-dev'"
	cmd_tree
	local f
	for f in "$@"; do
		case "$f" in patched | debug) cmd_apply ;; esac
		build_one "$f"
	done
}

case "${1:-}" in
tree) cmd_tree ;;
apply) cmd_apply ;;
build) shift; cmd_build "$@" ;;
*) die "usage: $0 tree | apply | build FLAVOUR..." ;;
esac
