# Negative dentries after unlink: per-filesystem d_delete for ext2, ext4 and
# tmpfs on Debian's linux-source-6.1 and linux-source-6.12, and the machinery
# that proves it.
#
# Run 'make help' for the targets.  Every choice is a variable:
#   BASE     kernel the series is for: 6.1 or 6.12 (default: 6.1); picks
#            patches/BASE/, build/BASE/ and results/BASE/ for every target
#   KERNELS  kernels to build/boot            (default: stock patched)
#   FS       filesystem variants, fs-images/  (default: all)
#   TESTS    guest test programs per variant  (default: guest/TESTS)
#   SUITES   guest suites for check           (default: fs nfs stress)
#   KERNEL   kernel for 'make shell'          (default: patched)
#   BUILD_DIR, RESULTS_DIR                    (default: build/, results/)

BASE ?= 6.1
KERNELS ?= stock patched
KERNEL ?= patched
RESULTS = $(or $(RESULTS_DIR),results)/$(BASE)
export BASE KERNELS FS TESTS SUITES NFS_FS STRESS_FS DEBUG_KERNELS DEBUG_FS DEBUG_TESTS
export DEBUG_NFS_FS DEBUG_NFS_VERSIONS BUILD_DIR RESULTS_DIR
export STRESS_OPS STRESS_SEED STRESS_PHASES STRESS_EIO_FS
export FSTESTS_CONFIGS FSTESTS_TESTS FSTESTS_TIMEOUT FSTESTS_TEST_TIMEOUT

S := scripts

.PHONY: all compare deps kernels check lint patch-check patch-check-others prove-tests prove-sample soak fstests fstests-sample bench bench-sample bench-scale scale-sample policy-model ci-time shell clean help

## all: the main job: build stock and patched kernels, boot both, compare
all: compare

## compare: build both kernels, run negdent and adapt on every variant,
##   print the table
compare: kernels
	SUITES=fs TESTS="negdent adapt" SUMMARY_METRICS='^(default|adapt)_' bash $(S)/check.sh

## deps: install every Debian package the project uses (needs root)
deps:
	bash $(S)/deps.sh

## kernels: build the kernels named in KERNELS into build/BASE/kernels/
kernels:
	bash $(S)/kernel.sh build $(KERNELS)

## check: the tests of BASE: lint, patch checks, then every guest suite (fs,
##   nfs and the fstests smoke tests on stock and patched; smaller fs and nfs
##   suites and stress on the debug kernel); and the other bases' series
##   as text (patch-check-others)
check: lint patch-check patch-check-others
	bash $(S)/kernel.sh build stock patched debug
	bash $(S)/check.sh

## lint: shellcheck every script; check that the numbers sections of the
##   cover letters and of the "keep the negative dentries" patches are what
##   their committed samples give (bench/patch_numbers.py), and that every
##   generated block of the Markdown files is its source (scripts/blocks.py),
##   and that each base's prove-tests record is of its series and of
##   scripts/prove-rules (scripts/prove.py)
lint:
	shellcheck -x $(wildcard scripts/*.sh nfs-test/*.sh stress/*.sh bench/*.sh fstests/*.sh) .ci/run
	python3 bench/patch_numbers.py --check
	python3 scripts/blocks.py --check
	python3 scripts/prove.py --check

## patch-check: git am, touched paths, checkpatch, sparse, config matrix,
##   and every prefix of the series building and booting
patch-check:
	bash $(S)/patch-check.sh

## patch-check-others: for every base but BASE, the patch checks that build
##   nothing: git am, touched paths, checkpatch (a minute here; the rest of
##   another base's checks is 'make check BASE=...')
OTHER_BASES = $(filter-out $(BASE),$(patsubst patches/%/series,%,$(wildcard patches/*/series)))
patch-check-others:
	set -e; for b in $(OTHER_BASES); do BASE=$$b bash $(S)/patch-check.sh apply paths checkpatch; done

## prove-tests: show that the suites fail where they should: the fs and
##   nfs suites on stock and each prefix of the series, held to the full
##   series, must fail exactly the tests scripts/prove-rules declares
##   (about 25 min per base here; report in results/BASE/prove-tests-*/report.md)
prove-tests:
	bash $(S)/prove-tests.sh

## prove-sample: make the last prove-tests run BASE's committed record
##   (samples/BASE/prove-tests/README.md, which make lint checks against
##   patches/BASE/ and scripts/prove-rules; RUN=DIR for another run)
prove-sample:
	python3 $(S)/prove.py publish $(or $(RUN),$(lastword $(sort $(wildcard $(RESULTS)/prove-tests-*))))

## soak: the long stress run on the debug kernel (25 min of guest time here;
##   knobs in stress/README.md)
soak:
	bash $(S)/kernel.sh build debug
	STRESS_SOAK=1 SUITES=stress BOOT_OPTS="$(or $(BOOT_OPTS),--mem 384 --timeout 14400)" \
		bash $(S)/check.sh

## fstests: every test of fstests/tests on every configuration (ext4 with
##   each policy, ext2, tmpfs, NFS 3 and 4.2 over ext4 and tmpfs), stock and
##   patched, their boots side by side; the report in
##   results/BASE/fstests-latest/fstests.md (fstests/README.md)
fstests: kernels
	bash fstests/run.sh

## fstests-sample: make the last make fstests report BASE's committed sample
##   (samples/BASE/fstests/, its excerpt, and samples/README.md's block of it);
##   RUN="DIR..." joins runs of the same kernels that ran different
##   configurations (e.g. samples/BASE/fstests/runs/NAME and a new run);
##   PARTIAL=1 publishes runs that lack configurations, saying which
fstests-sample:
	python3 fstests/report.py publish $(if $(PARTIAL),--partial) $(or $(RUN),$(RESULTS)/fstests-latest)

## bench: benchmarks, stock vs patched side by side, report in results/BASE/
bench: kernels
	bash bench/run.sh

## bench-scale: filebench's webproxy.f, fileserver.f and varmail.f as
##   shipped, big directories, lock files beside busy spools, a million
##   always-new names and the memory a mount spends, on stock, patched
##   (default and negdentry=all) and the series without its per-name
##   patches (bench/run.sh's parts filebench and scale; report in
##   results/BASE/bench-latest/scale.md)
bench-scale: kernels
	BENCH_PARTS="$(or $(BENCH_PARTS),scale mountmem filebench filebench-few)" bash bench/run.sh

## scale-sample: make the last bench-scale report BASE's committed sample
##   (samples/BASE/scale/, its block in samples/README.md and the numbers of
##   patches/BASE/'s cover letter and commit messages; RUN=DIR for another)
scale-sample:
	python3 bench/scale_report.py --publish $(or $(RUN),$(RESULTS)/bench-latest)
	python3 bench/patch_numbers.py --write $(BASE)

## bench-sample: make the last bench report BASE's committed sample
##   (samples/BASE/bench/)
bench-sample:
	python3 bench/report.py --publish $(or $(RUN),$(RESULTS)/bench-latest)
	python3 bench/patch_numbers.py --write $(BASE)

## policy-model: replay busy spools and filebench's fileset on a model of
##   negdentry=lookup's table and its alternatives (no kernel; about 2 min):
##   samples/model/policy-model.md (bench/policy_model.py)
policy-model:
	mkdir -p samples/model
	python3 bench/policy_model.py >samples/model/policy-model.md.tmp
	mv samples/model/policy-model.md.tmp samples/model/policy-model.md

## ci-time: .ci/run from a fresh clone of HEAD, timed; the row goes into
##   samples/ci/timing.md and README.md's block (scripts/ci-time.sh)
ci-time:
	bash $(S)/ci-time.sh
## shell: boot KERNEL with a shell on the console (exit to power off)
shell:
	bash $(S)/boot.sh --shell $(KERNEL)

## clean: remove results of every base (build/ keeps the kernel trees;
##   rm -rf build for all)
clean:
	rm -rf results

## help: this list
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)
