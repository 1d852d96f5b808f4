#!/usr/bin/env bash
# Show that the suites can fail: boot each prefix of the series (step-N,
# the first N patches) and run the fs and nfs suites on it, holding it to
# what the full series promises (EXPECT=series, see check.sh).  Every
# prefix lacks a behaviour of the series, so every prefix must fail; the
# report names the tests that caught it.
#
#   prove-tests.sh
#
# Environment: FS, NFS_FS, TESTS as for check.sh (default: all).
# Results: results/BASE/prove-tests-<date>-<time>/step-N/ (check.sh runs) and
# report.txt.  Exits non-zero if a prefix passed (its missing behaviour went
# unnoticed) or a run could not be judged.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

total=$(series_patches | wc -l)
[ "$total" -gt 1 ] || die "the series has $total patch: no prefix to prove against"
out=$RESULTS_DIR/prove-tests-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
status=0
for ((n = 0; n < total; n++)); do
	k=step-$n
	[ "$n" -gt 0 ] || k=stock
	bash "$TOP/scripts/kernel.sh" build "$k"
	log "$k held to the full series: suites fs and nfs"
	rc=0
	EXPECT=series KERNELS=$k SUITES="fs nfs" \
		bash "$TOP/scripts/check.sh" --run "$out/$k" >"$out/$k.log" 2>&1 || rc=$?
	# the failures check.sh's summary lists, one per line
	fails=$(sed -n '/^Failures:$/,/^$/{/^  /p}' "$out/$k.log")
	{
		echo "== $k ($(cat "$KERNELS_DIR/$k/release")):" \
			"$(grep -E '^[0-9]+ passed' "$out/$k.log" | tail -n 1)"
		if [ "$rc" = 0 ]; then
			echo "   PASSED: this prefix's missing behaviour went unnoticed"
		else
			printf '%s\n' "$fails" | sed -E 's|^  ([^/]+/[^:]+): .*|\1|' | sort | uniq -c |
				sed 's/^/   /'
		fi
	} | tee -a "$out/report.txt"
	[ "$rc" != 0 ] || status=1
	[ -n "$fails" ] || [ "$rc" = 0 ] || { log "$k failed without named failures: see $out/$k.log"; status=1; }
done
log "report: $out/report.txt"
exit "$status"
