#!/usr/bin/env bash
# Everything that touches the kernel tree: extract Debian's
# linux-source-BASE, apply the series, build kernels, build the touched files
# in other configs.  BASE (6.1 or 6.12, see lib.sh) picks the tarball, the
# series and the folder: build/BASE/ holds the tree, objects and kernels.
#
#   kernel.sh tree              extract the tree (once) as a git repo, tag "stock"
#   kernel.sh apply             branch "patched" = stock + patches/BASE/series (git am)
#   kernel.sh build FLAVOUR...  build kernels into build/BASE/kernels/FLAVOUR/:
#                               stock, patched, debug, or step-N (stock plus
#                               the first N patches, to check bisectability)
#   kernel.sh touched NAME REV  build only the files the series touches, at
#                               REV (stock or patched), in config NAME: guest
#                               or scripts/matrix/NAME.config on top of it;
#                               with SPARSE=1 run sparse (make C=2) on them
#
# stock, patched and step-N share one object directory: switching between
# them rebuilds only the files the series touches.  ccache keeps rebuilds
# cheap.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# One kernel job at a time: they share the tree's checkout.
mkdir -p "$KBUILD_DIR"
exec 9>"$KBUILD_DIR/kernel.lock"
flock 9

GIT=(git -C "$KTREE" -c user.name="ndentry harness" -c user.email=harness@localhost
	-c advice.detachedHead=false)

cmd_tree() {
	[ -d "$KTREE/.git" ] && return 0
	[ -r "$KERNEL_TARBALL" ] ||
		die "$KERNEL_TARBALL missing: install the Debian package 'linux-source-$BASE'"
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
	"${GIT[@]}" commit -q -m "Debian linux-source-$BASE $(tree_version)"
	"${GIT[@]}" tag -f stock >/dev/null
}

cmd_apply() {
	cmd_tree
	local p n=0
	"${GIT[@]}" checkout -q -f -B patched stock
	"${GIT[@]}" am --abort >/dev/null 2>&1 || true
	while read -r p; do
		[ -f "$PATCHES/$p" ] || die "patches/$BASE/series names $p, which does not exist"
		if ! "${GIT[@]}" am -q --keep-cr --committer-date-is-author-date "$PATCHES/$p" >"$KBUILD_DIR/apply.log" 2>&1; then
			"${GIT[@]}" am --abort >/dev/null 2>&1 || true
			cat "$KBUILD_DIR/apply.log" >&2
			die "patch does not apply: patches/$BASE/$p"
		fi
		n=$((n + 1))
	done < <(series_patches)
	log "patched = stock $(tree_version) + $n patches from patches/$BASE/series"
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
	local obj=$1 all sym val
	shift
	mkdir -p "$obj"
	all=$obj/fragments.config
	cat "$@" >"$all"
	kmake O="$obj" KCONFIG_ALLCONFIG="$all" allnoconfig >/dev/null
	# A later fragment overrides an earlier one: check the last value.
	declare -A want=()
	while IFS='=' read -r sym val; do
		case "$sym" in CONFIG_*) want[$sym]=$val ;; esac
	done <"$all"
	for sym in "${!want[@]}"; do
		val=${want[$sym]}
		if [ "$val" = n ]; then
			! grep -q "^$sym=" "$obj/.config" || die "$sym=n did not take (see $obj/.config)"
		else
			grep -qx "$sym=$val" "$obj/.config" || die "$sym=$val did not take (see $obj/.config)"
		fi
	done
}

# Fail on a log with compiler warnings or errors.
check_log() {
	local what=$1 logfile=$2
	if grep -E '(warning|error):' "$logfile" >&2; then
		die "$what has warnings: see $logfile"
	fi
}

# build FLAVOUR: check out its source, build into its object dir,
# copy bzImage, .config and version into build/BASE/kernels/FLAVOUR/.
build_one() {
	local flavour=$1 rev obj frags=("$TOP/scripts/guest.config") out stamp
	case "$flavour" in
	stock) rev=stock obj=$KBUILD_DIR/obj ;;
	patched) rev=patched obj=$KBUILD_DIR/obj ;;
	debug) rev=patched obj=$KBUILD_DIR/obj-debug frags+=("$TOP/scripts/debug.config") ;;
	step-[0-9]*)
		local n=${flavour#step-} total
		total=$(series_patches | wc -l)
		[ "$n" -le "$total" ] || die "$flavour: the series has only $total patches"
		rev=patched~$((total - n)) obj=$KBUILD_DIR/obj ;;
	*) die "unknown kernel flavour '$flavour' (stock, patched, debug, step-N)" ;;
	esac
	out=$KERNELS_DIR/$flavour
	# Up to date: same source commit, same config fragments.
	stamp="$("${GIT[@]}" rev-parse "$rev") $(cat "${frags[@]}" | sha1sum | cut -c1-40)"
	if [ -f "$out/bzImage" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
		log "$flavour kernel $(cat "$out/release") is up to date"
		return 0
	fi
	"${GIT[@]}" checkout -q -f "$rev"
	configure "$obj" "${frags[@]}"
	log "building $flavour kernel ($(tree_version)) in $obj"
	local start=$SECONDS
	if ! kmake O="$obj" LOCALVERSION="-$flavour" bzImage >"$obj/build.log" 2>&1; then
		tail -n 30 "$obj/build.log" >&2
		die "$flavour kernel build failed: see $obj/build.log"
	fi
	check_log "$flavour kernel build" "$obj/build.log"
	mkdir -p "$out"
	cp "$obj/arch/x86/boot/bzImage" "$obj/.config" "$out/"
	cat "$obj/include/config/kernel.release" >"$out/release"
	echo "$stamp" >"$out/stamp"
	log "$flavour kernel $(cat "$out/release") built in $((SECONDS - start)) s"
}

# The files the series touches, as make targets: directories and objects.
touched_targets() {
	"${GIT[@]}" diff --name-only stock patched -- '*.c' '*.h' |
		sed -n -e 's|^\(fs/[^/]*\)/.*|\1/|p' -e 's|^\(mm/.*\)\.c$|\1.o|p' |
		sort -u
}

cmd_touched() {
	local name=$1 rev=$2 obj frags=("$TOP/scripts/guest.config") targets logf
	[ "$name" = guest ] || frags+=("$TOP/scripts/matrix/$name.config")
	[ -f "${frags[-1]}" ] || die "no build configuration '$name' (${frags[-1]})"
	cmd_apply
	mapfile -t targets < <(touched_targets)
	[ "${#targets[@]}" -gt 0 ] || die "the series touches no C files"
	# The matrix configs take turns in one object directory: what a new
	# config does not change (scripts, most headers) is not rebuilt.
	obj=$KBUILD_DIR/obj-matrix
	[ "$name" != guest ] || obj=$KBUILD_DIR/obj
	"${GIT[@]}" checkout -q -f "$rev"
	configure "$obj" "${frags[@]}"
	logf=$obj/touched-$name-$rev${SPARSE:+-sparse}.log
	log "building ${targets[*]} at $rev, config $name${SPARSE:+, with sparse}"
	kmake O="$obj" prepare >"$logf" 2>&1 || { tail -n 20 "$logf" >&2; die "make prepare failed: see $logf"; }
	if ! kmake O="$obj" ${SPARSE:+C=2} "${targets[@]}" >>"$logf" 2>&1; then
		tail -n 30 "$logf" >&2
		die "build of ${targets[*]} failed at $rev in config $name: see $logf"
	fi
	echo "$logf"
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
		case "$f" in stock) ;; *) cmd_apply ;; esac
		build_one "$f"
	done
}

case "${1:-}" in
tree) cmd_tree ;;
apply) cmd_apply ;;
build) shift; cmd_build "$@" ;;
touched) [ $# = 3 ] || die "usage: $0 touched NAME REV"; cmd_touched "$2" "$3" ;;
*) die "usage: $0 tree | apply | build FLAVOUR... | touched NAME REV" ;;
esac
