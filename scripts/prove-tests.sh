#!/usr/bin/env bash
# Show that the suites can fail, and fail where they should: boot each
# prefix of the series (step-N, the first N patches) and stock, run the fs
# and nfs suites on it holding it to what the full series promises
# (EXPECT=series, see check.sh), and check with scripts/prove.py that each
# failed exactly the tests scripts/prove-rules declares for it: not a
# crash, not a hang, not any failure.
#
#   prove-tests.sh
#
# Environment: FS, NFS_FS, TESTS as for check.sh (default: all).
# Results: results/BASE/prove-tests-<date>-<time>/KERNEL/ (check.sh runs),
# KERNEL.log (their output) and report.md (the verdict; make prove-sample
# makes it samples/BASE/prove-tests/README.md).  Exits non-zero unless
# every prefix failed exactly its declared tests.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

total=$(series_patches | wc -l)
[ "$total" -gt 1 ] || die "the series has $total patch: no prefix to prove against"
out=$RESULTS_DIR/prove-tests-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
for ((n = 0; n < total; n++)); do
	k=step-$n
	[ "$n" -gt 0 ] || k=stock
	bash "$TOP/scripts/kernel.sh" build "$k"
	log "$k held to the full series: suites fs and nfs"
	EXPECT=series KERNELS=$k SUITES="fs nfs" \
		bash "$TOP/scripts/check.sh" --run "$out/$k" >"$out/$k.log" 2>&1 || true
	log "$k: $(grep -E '^[0-9]+ passed' "$out/$k.log" | tail -n 1)"
done
rc=0
python3 "$TOP/scripts/prove.py" judge "$out" >"$out/report.md" || rc=$?
cat "$out/report.md"
log "report: $out/report.md"
exit "$rc"
