# shellcheck shell=bash
# Common settings and helpers for the host-side scripts.  Sourced, not run.
#
# Every location can be overridden from the environment (or as a make
# variable): BUILD_DIR holds the kernel tree, objects and kernels;
# RESULTS_DIR holds one folder per run with TAP, console logs and reports.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TOP/build}
RESULTS_DIR=${RESULTS_DIR:-$TOP/results}
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
KTREE=$BUILD_DIR/linux
KERNELS_DIR=$BUILD_DIR/kernels
export CCACHE_DIR=${CCACHE_DIR:-$BUILD_DIR/ccache}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# need COMMAND PACKAGE: fail with the Debian package to install.
need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install the Debian package '$2' (or run 'make deps')"
}

# Path of a built kernel flavour (stock, patched, debug).
kernel_image() { printf '%s/%s/bzImage\n' "$KERNELS_DIR" "$1"; }

# The exact kernel version of the extracted tree, e.g. 6.1.192.
tree_version() {
	awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } END { print v "." p "." s }' \
		"$KTREE/Makefile"
}
