# shellcheck shell=bash
# Common settings and helpers for the host-side scripts.  Sourced, not run.
#
# Every setting can be overridden from the environment (or as a make
# variable).  BASE is the kernel the series is for: 6.1 (default) or 6.12,
# Debian's linux-source-BASE with the series in patches/BASE/.  BUILD_DIR
# holds the guest programs and, in BUILD_DIR/BASE/, the kernel tree, objects
# and kernels; RESULTS_DIR/BASE/ holds one folder per run with TAP, console
# logs and reports.

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE=${BASE:-6.1}
PATCHES=$TOP/patches/$BASE
[ -f "$PATCHES/series" ] ||
	die "BASE=$BASE: no series for it (patches/$BASE/series); the bases are: $(cd "$TOP/patches" && printf '%s ' */series | sed 's|/series||g')"
# The patches of BASE's series in order, one per line: patches/BASE/series
# without its comments and blank lines.
series_patches() { grep -v -e '^#' -e '^$' "$PATCHES/series" || true; }
# fstests_configs smoke|all: the names of fstests/configs, or of its smoke
# ones, on one line
fstests_configs() {
	awk -v w="$1" '!/^#/ && NF && (w == "all" || $2 == "smoke") { printf "%s%s", s, $1; s = " " }' \
		"$TOP/fstests/configs"
}
BUILD_DIR=${BUILD_DIR:-$TOP/build}
# RESULTS_ROOT keeps the folder the user gave (or results/) for the
# scripts this one runs: they see RESULTS_DIR with the base already in it.
RESULTS_ROOT=${RESULTS_ROOT:-${RESULTS_DIR:-$TOP/results}}
RESULTS_DIR=$RESULTS_ROOT/$BASE
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-$BASE.tar.xz}
KBUILD_DIR=$BUILD_DIR/$BASE
KTREE=$KBUILD_DIR/linux
KERNELS_DIR=$KBUILD_DIR/kernels
export BASE RESULTS_ROOT
export CCACHE_DIR=${CCACHE_DIR:-$BUILD_DIR/ccache}

# need COMMAND PACKAGE: fail with the Debian package to install.
need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install the Debian package '$2' (or run 'make deps')"
}

# third_party FILE VAR: the path of a snapshot that Debian does not package,
# ../shared/third_party/FILE (beside the project folder; /work/shared for a
# clone elsewhere), or the environment variable VAR's value if set; fails
# naming both when neither is there.
third_party() {
	local p=${!2:-} d
	for d in "$TOP/../shared" /work/shared; do
		[ -n "$p" ] || [ ! -f "$d/third_party/$1" ] || p=$d/third_party/$1
	done
	[ -f "$p" ] || die "snapshot '${p:-../shared/third_party/$1}' not found: set $2 (see ../shared/third_party/README.md)"
	printf '%s\n' "$p"
}

# unpack_snapshot NAME TARBALL DIR STAMP: before a build of the snapshot
# TARBALL (from third_party): return 1 if STAMP names it already (an
# earlier build finished), else empty DIR and unpack TARBALL's one top
# folder into DIR/src.  The build writes the snapshot's name into STAMP
# (snapshot_built) when it has finished.
unpack_snapshot() {
	local name=$1 tarball=$2 dir=$3 stamp=$4
	[ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(basename "$tarball")" ] || return 1
	log "building $name from $(basename "$tarball") in $dir/src"
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir"
	mv "$dir"/"$name"-* "$dir/src"
}

# snapshot_built TARBALL STAMP: mark the build of TARBALL finished.
snapshot_built() { basename "$1" >"$2"; }

# Path of a built kernel flavour (stock, patched, debug).
kernel_image() { printf '%s/%s/bzImage\n' "$KERNELS_DIR" "$1"; }

# What a built kernel flavour was built from, stable across machines and
# re-extractions of the tree: the git tree of its source commit (from its
# stamp; the commits themselves carry the extraction's date) and the sha1
# of its config fragments, e.g. "tree 3f2a... config 98de...".  Reports
# that join several runs (fstests/report.py) refuse runs whose kernels
# differ in it.
kernel_source() {
	local commit frags tree
	read -r commit frags <"$KERNELS_DIR/$1/stamp" || die "kernel $1 has no stamp: run 'make kernels'"
	tree=$(git -C "$KTREE" rev-parse -q --verify "$commit^{tree}") ||
		die "kernel $1: its source commit $commit is not in $KTREE (rebuild it: make kernels)"
	printf 'tree %s config %s\n' "$tree" "$frags"
}

# The exact kernel version of the extracted tree, e.g. 6.1.192.
tree_version() {
	awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } END { print v "." p "." s }' \
		"$KTREE/Makefile"
}
