#!/usr/bin/env bash
# What a maintainer checks before reading a series.
#
#   patch-check.sh [STEP...]
#
# Steps (default: all, in this order):
#   apply       patches/BASE/series applies to the pristine tree with git am
#   paths       only fs/ext2, fs/ext4, mm/shmem.c, include/linux/shmem_fs.h
#               and Documentation are touched
#   checkpatch  scripts/checkpatch.pl --strict: no ERROR in any patch
#   sparse      make C=2 on the touched files: nothing new against stock
#   matrix      the touched files build without warnings in each
#               scripts/matrix/*.config (modules, no unicode, ...)
#   bisect      every prefix of the series builds without warnings and
#               boots through negdent on ext2, ext4 and tmpfs
# Logs go to results/BASE/patch-check/ (PATCH_CHECK_OUT); the first failing step
# stops the run with a message naming what broke.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

OUTDIR=${PATCH_CHECK_OUT:-$RESULTS_DIR/patch-check}
mkdir -p "$OUTDIR"
K=(bash "$TOP/scripts/kernel.sh")
ALLOWED='^(fs/ext2/|fs/ext4/|mm/shmem\.c$|include/linux/shmem_fs\.h$|Documentation/)'

step_apply() {
	"${K[@]}" apply
}

step_paths() {
	local bad
	bad=$(git -C "$KTREE" diff --name-only stock patched | grep -Ev "$ALLOWED" || true)
	[ -z "$bad" ] || die "the series touches files it must leave alone: $bad"
	log "paths: $(git -C "$KTREE" diff --name-only stock patched | tr '\n' ' ')"
}

step_checkpatch() {
	local p out errors=0
	for p in $(series_patches); do
		out=$OUTDIR/checkpatch-${p%.patch}.log
		(cd "$KTREE" && perl scripts/checkpatch.pl --strict --color=never \
			"$PATCHES/$p") >"$out" 2>&1 || true
		log "checkpatch $p: $(grep -E '^total:' "$out" || echo 'no total line')"
		grep -q '^total: 0 errors' "$out" || { errors=1; grep -A3 '^ERROR' "$out" >&2 || true; }
	done
	[ "$errors" = 0 ] || die "checkpatch --strict reports errors: see $OUTDIR/checkpatch-*.log"
}

# sparse warnings of a log without line numbers, for comparing two trees.
sparse_warnings() {
	{ grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$1" || true; } |
		sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u
}

step_sparse() {
	need sparse sparse
	local before after new
	before=$(SPARSE=1 "${K[@]}" touched guest stock | tail -n 1)
	after=$(SPARSE=1 "${K[@]}" touched guest patched | tail -n 1)
	new=$(comm -13 <(sparse_warnings "$before") <(sparse_warnings "$after"))
	sparse_warnings "$after" >"$OUTDIR/sparse-patched.txt"
	if [ -n "$new" ]; then
		printf '%s\n' "$new" >&2
		die "sparse reports new warnings in the touched files"
	fi
	log "sparse: nothing new ($(wc -l <"$OUTDIR/sparse-patched.txt") warnings on stock and patched alike)"
}

step_matrix() {
	local c name logf
	for c in "$TOP"/scripts/matrix/*.config; do
		name=$(basename "$c" .config)
		logf=$("${K[@]}" touched "$name" patched | tail -n 1)
		if grep -E '(warning|error):' "$logf" >&2; then
			die "config $name: the touched files build with warnings: see $logf"
		fi
		log "matrix $name: clean"
	done
}

step_bisect() {
	local n total kernels=()
	total=$(series_patches | wc -l)
	for ((n = 1; n < total; n++)); do
		"${K[@]}" build "step-$n"
		kernels+=("step-$n")
	done
	[ "${#kernels[@]}" -gt 0 ] || { log "bisect: a single patch, built as 'patched'"; return 0; }
	KERNELS="${kernels[*]}" SUITES=fs TESTS=negdent FS="ext2 ext4 tmpfs" \
		bash "$TOP/scripts/check.sh" --run "$OUTDIR/bisect"
}

steps=("$@")
[ "${#steps[@]}" -gt 0 ] || steps=(apply paths checkpatch sparse matrix bisect)
for s in "${steps[@]}"; do
	case "$s" in
	apply | paths | checkpatch | sparse | matrix | bisect) ;;
	*) die "unknown step '$s'" ;;
	esac
	log "patch-check: $s"
	"step_$s"
done
log "patch-check: all steps passed (${steps[*]})"
