#!/usr/bin/env python3
"""Turn a bench/run.sh folder into a report: summary.md, CSV files, PNGs.

    report.py RUN_DIR
    report.py --publish RUN_DIR    also copy the report to BASE's sample
                                   (samples/BASE/bench/; BASE from the
                                   environment) and its headline table into
                                   samples/README.md; refused (exit 1) if a boot
                                   failed or the kernels are not BASE's

Reads RUN_DIR/{mem,pc,tput}/*/{raw.txt,boot-rc} (written by bench/guest.sh
in the guests and by bench/run.sh) and RUN_DIR/config.txt; a folder
without boot folders (a published report, samples/BASE/bench/) is read from its
data.csv, mem.csv and pc.csv instead.  Failed boots (boot-rc not 0, or
results that other repetitions have and one lacks) are named at the top of
summary.md and headline.md.  Ratios are medians of the per-repetition
ratios (patched of repetition i / stock of repetition i).  Writes into
RUN_DIR:
    summary.md    one table per measurement and the goals
    data.csv      every timed result of every boot
    ratios.csv    medians, spreads and ratios per workload
    mem.csv       the reproducer's counters after every round
    counts.csv    the negative dentries the mix workloads' spools, the
                  tools (fs_mark, postmark, dbench) and the tmpfs
                  readdir/rmdir test left (written when a boot gave any)
    pc.csv        the page cache counters
    mem.png       negative dentries and dentry slab over rounds
    ratios.png    patched/stock throughput ratios with spread, noise floor
    policies.png  the same for patched under negdentry=all, none and (tmpfs)
                  lookup
    headline.md   the headline table (ext2, ext4, tmpfs side by side, default
                  policy) and tmpfs's opt-in negdentry=lookup
"""
import glob
import os
import shutil
import sys

# the generated blocks of the Markdown files (scripts/blocks.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "scripts"))
import blocks  # noqa: E402

# the report's parts, by job: workloads.py (what is measured, the goals),
# benchdata.py (a run read, its CSV files, ratios and floors), goals.py
# (goals judged), render.py (headline, summary, plots); the names that
# bench/scale_report.py and bench/patch_numbers.py import come through here
from render import *  # noqa: F401,F403,E402


def sample_place(base, kind="bench"):
    """BASE's sample folder of KIND, relative to the top: samples/BASE/bench."""
    return f"samples/{base}/{kind}"


def publish_sample(tool, run, base, kind, files):
    """Copy FILES (glob patterns) of RUN into samples/BASE/KIND and refresh
    the Markdown blocks generated from it (scripts/blocks.py); refuse a run
    in which a boot failed, or whose kernels are not BASE's.  TOOL names
    the report in the messages."""
    if run.failed:
        print(f"{tool}: refusing to publish {run.d}: {len(run.failed)} failed boot(s):",
              file=sys.stderr)
        for b, why in sorted(run.failed.items()):
            print(f"  {b}: {why}", file=sys.stderr)
        return 1
    wrong = [f"{k} is {r}" for k, r in sorted(run.release.items())
             if not r.startswith(base + ".")]
    if wrong:
        print(f"{tool}: refusing to publish {run.d} as BASE={base}'s sample: "
              f"{', '.join(wrong)}", file=sys.stderr)
        return 1
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sample = os.path.join(top, sample_place(base, kind))
    if os.path.isdir(sample) and os.path.samefile(run.d, sample):
        # regenerated in place: a sample keeps no gnuplot inputs
        shutil.rmtree(os.path.join(sample, "plotdata"), ignore_errors=True)
    else:
        shutil.rmtree(sample, ignore_errors=True)
        os.makedirs(sample)
        for pat in files:
            for p in sorted(glob.glob(os.path.join(run.d, pat))):
                shutil.copy(p, sample)
    blocks.write()
    print(f"published: {sample} (and the blocks generated from it)")
    return 0


def publish(run, base):
    """The bench report as BASE's sample (sample_place)."""
    return publish_sample("report.py", run, base, "bench",
                          ("summary.md", "headline.md", "*.csv", "*.png", "config.txt",
                           "tput-runs.txt", "release-*", "host-seconds"))


def main():
    args = sys.argv[1:]
    do_publish = args[:1] == ["--publish"]
    if do_publish:
        args = args[1:]
    if len(args) != 1:
        print("usage: report.py [--publish] RUN_DIR   (BASE from the environment, "
              "default 6.1)", file=sys.stderr)
        return 2
    run = Run(args[0])
    os.makedirs(os.path.join(run.d, "plotdata"), exist_ok=True)
    write_csvs(run)
    comps = all_comparisons(run)
    pngs = set()
    for p in (plot_mem(run),
              plot_ratios(run, comps, ["default"], "ratios.png",
                          f"patched (default policy) / stock throughput, {run.mode} mode "
                          "(emulated time)"),
              plot_ratios(run, comps, ["all", "none", "lookup"], "policies.png",
                          "patched negdentry=all, none and (tmpfs) lookup / stock, "
                          f"{run.mode} mode (emulated time)"),
              plot_ratios(run, comps, ["default"], "smp.png",
                          "two threads on 2 vCPUs, patched (default policy) / stock, "
                          "plain TCG (host time)", smp=True)):
        if p:
            pngs.add(p)
    write_summary(run, comps, pngs)
    write_headline(run, comps)
    print(f"report: {os.path.join(run.d, 'summary.md')}")
    if run.failed and not do_publish:
        print(f"report.py: WARNING: {len(run.failed)} failed boot(s), named at the top of "
              "summary.md and headline.md:", file=sys.stderr)
        for b, why in sorted(run.failed.items()):
            print(f"  {b}: {why}", file=sys.stderr)
    return publish(run, os.environ.get("BASE") or "6.1") if do_publish else 0


if __name__ == "__main__":
    sys.exit(main())
