#!/usr/bin/env bash
# make fstests: every test of fstests/tests on every configuration, one boot
# per kernel, the kernels' boots side by side (each guest runs one test at a
# time, so two boots keep a 2-core machine busy), then the report.
#
#   fstests/run.sh
#
# Environment: KERNELS (default "stock patched"), FSTESTS_TESTS (default
# all), FSTESTS_CONFIGS, FSTESTS_TIMEOUT (default 14400), FSTESTS_TEST_TIMEOUT (see
# scripts/check.sh), RESULTS_DIR.  Results: RESULTS_DIR/fstests-DATE-TIME/
# (linked as RESULTS_DIR/fstests-latest): KERNEL/fstests/CONFIG/ per kernel,
# KERNEL.log (that kernel's check.sh), configs (the configurations asked
# for: the report names any without results), host-seconds, fstests.md
# (report.py summary).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

KERNELS=${KERNELS:-stock patched}
export FSTESTS_TESTS=${FSTESTS_TESTS:-all}
# one boot runs every configuration: hours of plain TCG (fstests/README.md)
export FSTESTS_TIMEOUT=${FSTESTS_TIMEOUT:-14400}
run=$RESULTS_DIR/fstests-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
ln -sfn "$(basename "$run")" "$RESULTS_DIR/fstests-latest"
# built once here, not by the parallel check.sh runs at the same time
bash "$TOP/fstests/build.sh"
for d in guest nfs-test stress; do
	[ ! -f "$TOP/$d/Makefile" ] || make -s -C "$TOP/$d" OUT="$BUILD_DIR/$d"
done

# check.sh's default when FSTESTS_CONFIGS is empty
echo "${FSTESTS_CONFIGS:-$(fstests_configs all)}" >"$run/configs"
start=$SECONDS
pids=()
for k in $KERNELS; do
	log "fstests on $k: $run/$k.log"
	SUITES=fstests KERNELS=$k bash "$TOP/scripts/check.sh" --run "$run" >"$run/$k.log" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
echo "$((SECONDS - start))" >"$run/host-seconds"
python3 "$TOP/fstests/report.py" summary "$run" --out "$run/fstests.md" || rc=1
echo "report: $run/fstests.md"
exit "$rc"
