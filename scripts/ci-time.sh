#!/usr/bin/env bash
# make ci-time: what CI does, timed.  Clones the committed HEAD of this
# repository into a fresh directory (no build/, no results/: every kernel
# is built from scratch, as on the CI machine), runs .ci/run there without
# standard input, and adds a row to samples/ci/timing.md (commit, date,
# the summary's last line, the time), which README.md quotes
# (scripts/blocks.py).  The clone and its log stay in CI_TIME_DIR (default
# a new /tmp/ci-time.XXXXXX).  Meaningful on an otherwise idle machine.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

dir=${CI_TIME_DIR:-$(mktemp -d /tmp/ci-time.XXXXXX)}
[ ! -e "$dir/repo" ] || die "$dir/repo exists: give CI_TIME_DIR a new folder"
git clone -q "$TOP" "$dir/repo"
commit=$(git -C "$dir/repo" log -1 --format='%h')
log "ci-time: .ci/run in $dir/repo (commit $commit), log $dir/ci.log"
start=$(date +%s)
rc=0
# a clean environment, as CI's: lib.sh has set (and make exported)
# BUILD_DIR, RESULTS_ROOT and CCACHE_DIR for this tree, which would send
# the clone's builds and results here
(cd "$dir/repo" && env -i PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8 \
	bash .ci/run </dev/null) >"$dir/ci.log" 2>&1 || rc=$?
secs=$(($(date +%s) - start))
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dir/ci.log" | tail -n 1)
[ "$rc" = 0 ] || summary="FAILED (exit $rc) ${summary:-no summary}: see $dir/ci.log"

out=$TOP/samples/ci/timing.md
old=$( [ -f "$out" ] && sed -n '/^| [0-9a-f]\{7,\} /p' "$out" | head -n 4)
{
	echo "Runs of \`make ci-time\` (\`.ci/run\`, i.e. \`make deps check\`, from a fresh clone:" \
		"every kernel built from scratch), newest first, on a $(nproc)-core" \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) host without KVM." \
		"CI's limit is 90 minutes."
	echo
	echo "| commit | date | result | time |"
	echo "|---|---|---|---|"
	printf '| %s | %s | %s | %d s (%d.%d min) |\n' "$commit" "$(date -u +%Y-%m-%d)" \
		"$summary" "$secs" $((secs / 60)) $((secs % 60 * 10 / 60))
	[ -z "$old" ] || echo "$old"
} >"$out"
python3 "$TOP/scripts/blocks.py" --write
log "ci-time: $secs s, $summary; $out and README.md's block written"
exit "$rc"
