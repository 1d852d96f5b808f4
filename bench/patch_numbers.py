#!/usr/bin/env python3
"""The numbers in the series' cover letter and commit messages, generated
from the committed samples: no number in a patch is typed by hand.

    patch_numbers.py --write [BASE...]   rewrite each numbers section
    patch_numbers.py --check [BASE...]   exit 1, naming the file, when a
                                         section differs from its sample
                                         (make lint runs this)

BASE defaults to every patches/BASE/ that has a sample in
samples/BASE/scale/.  A numbers section starts at a line beginning with
"Measured in" and ends with the line FOOTER names (both included); the
text around it is prose, which states behaviour and design.  Which file
gets which section:

    0000-cover-letter.patch   the ext4 and the ext2 tables
    the patch whose subject starts "ext2: keep the negative dentries"
                              the ext2 table (and likewise for ext4)

and, from BASE's tput sample (samples/BASE/bench/; make bench), a section from a line beginning "Timed in" to
TPUT_FOOTER's line, in the patches that add each filesystem's policy
("ext2: free negative dentries", "ext4: ...", "shmem: add negdentry="):
its microbenchmarks under each policy, the floor, the instructions the
default adds, and the negative dentries the reproducer's rounds leave.

Each table: for filebench's personalities as shipped and the scale rows
(bench/run.sh's parts filebench, scale and mountmem), patched/stock under
the default policy (median [min-max] over the repetitions), under
negdentry=all, for the series without its per-name patches, and stock
against stock (the floor), then the counts (exact).
"""
import glob
import os
import re
import sys
import textwrap

from goals import FLOOR_GOAL
from report import sample_place
from scale_report import Run, fmt_spread, kept_share, med, personalities, personality_label

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOOTER = "Generated from samples/{base}/scale/ by bench/patch_numbers.py."
COLUMNS = [("patched", "default"), ("patched-all", "all"), ("prefix", "4-5 out"),
           ("stock-b", "floor")]
# the cover letter's last column: the previous version's default policy,
# from its own run (samples/BASE/scale-PREV_NAME/)
PREV_NAME = "v3"


def label(wl):
    """A scale or filebench workload name as a short row label."""
    if wl.startswith("fb-"):
        return personality_label(wl[3:])
    parts = wl.split("-")
    if parts[0] == "bigdir":
        return f"fileset, {int(parts[1]):,} others"
    if parts[0] == "busyspool":
        return f"lock, {int(parts[1]):,}, {parts[2]}"
    return wl


def table(run, fs, prev=None):
    """The rows of one filesystem: timed rows, then counts; with PREV (the
    previous version's sample), its default policy's median too."""
    rows = [("filebench", f"fb-{w}") for w in personalities(run)]
    rows += [("scale", wl) for wl in run.workloads("scale", fs, "bigdir-")
             if wl.endswith("-toggle")]
    rows += [("scale", wl) for wl in run.workloads("scale", fs, "busyspool-")]
    L = [f"  {fs:<23}" + "".join(f"{name:>20}" if i == 0 else f"{name:>8}"
                                 for i, (_, name) in enumerate(COLUMNS))
         + (f"{PREV_NAME:>7}" if prev else "")]
    for part, wl in rows:
        cells = [run.ratios(part, boot, fs, wl) for boot, _ in COLUMNS]
        if not cells[0]:
            continue
        line = f"  {label(wl):<23}{fmt_spread(cells[0]):>20}"
        line += "".join(f"{med(c):>8.3f}" if c else f"{'n/a':>8}" for c in cells[1:])
        if prev:
            was = prev.ratios(part, "patched", fs, wl)
            line += f"{med(was):>7.3f}" if was else f"{'n/a':>7}"
        L.append(line)
    kept_rows = [("spool names kept", "busyspool-", "spool_names"),
                 ("always-new names kept", "million", "names")]
    for text, prefix, key in kept_rows:
        worst = kept_share(run, fs, prefix, key)
        if worst:
            L.append(f"  {text:<23}{worst[1]:>20,} of {worst[2]:,} (stock: all)")
    mem = {b: run.count("mountmem", 1, b, fs, "mount", "kmalloc_bytes")
           for b in ("stock", "patched", "patched-all")}
    if all(mem.values()):
        L.append(f"  {'kmalloc bytes per mount':<23}"
                 f"{med(mem['patched']) - med(mem['stock']):>+20,.0f}"
                 f" ({med(mem['patched-all']) - med(mem['stock']):+,.0f} under all)")
    size = {b: sorted({c[7] for c in run.counts if c[2] == b and c[3] == fs
                       and c[5] == "objsize" and c[6] == f"{fs}_inode_cache"})
            for b in ("stock", "patched")}
    if size["stock"] and size["patched"]:
        L.append(f"  {'inode object bytes':<23}{size['patched'][0]:>20}"
                 f" (stock: {size['stock'][0]})")
    return L


def busy_cycles(run):
    """The timed lock cycles of the busyspool rows, from the run's sizes."""
    args = dict(re.findall(r"(\w+)=((?:\d+ ?)+)", run.cfg.get("scale_args", "")))
    try:
        names = int(args["BUSY_NAMES"])
        counts = [f"{names // int(n):,}" for n in args["BUSY_SPOOL"].split()]
    except (KeyError, ValueError, ZeroDivisionError):
        return "a few"
    return ", ".join(counts[:-1]) + " or " + counts[-1] if len(counts) > 1 else counts[0]


def few_text(run):
    """The clause on the rows that name their threads, if the run has any."""
    few = [personality_label(w) for w in personalities(run) if "-t" in w]
    if not few:
        return ""
    return (" (\"" + "\", \"".join(few) + "\": $nthreads changed too, in boots of "
            "their own; on one vCPU the shipped threads make stock against stock "
            "stray, see the floor column)")


def section(run, base, fss, prev=None):
    reps = len(run.reps("filebench"))
    fb = dict(kv.split("=", 1) for kv in run.cfg.get("filebench_args", "").split() if "=" in kv)
    fb_window = (f"over {fb.get('FB_RUN', '?')} s after a warm-up of {fb['FB_WARM']} s"
                 if int(fb.get("FB_WARM", 0) or 0) > 0 else f"over {fb.get('FB_RUN', '?')} s")
    text = (f"Measured in {run.release.get('stock', '?').replace('-stock', '')} QEMU guests "
            "(TCG, -icount shift=0,sleep=off, one vCPU: guest time is instructions "
            "executed, so every timing is emulated), stock and patched in the same run "
            "on the same images.  Throughput patched/stock: default policy as median "
            f"[min-max] of {reps} filebench repetition{'s' if reps != 1 else ''} "
            "(scale rows: one), then medians of the same kernel under negdentry=all "
            "(the hook alone), of the series without patches 4-5 (every unlinked name "
            "freed, the rule of commit 681ce8623567), and of stock against stock (the "
            "floor); counts are exact.  Filebench personalities as shipped, each timed "
            f"{fb_window}{few_text(run)}; \"fileset, N others\" toggles 1,000 names in rotation in "
            "a directory of N others; \"lock, S, other|same\" times a lock file's "
            "create+unlink after every S always-new spool names, in another directory "
            f"or the spool's.  Those rows time {busy_cycles(run)} cycles: deferred work left "
            "by the spool (RCU callbacks of the dentries freed, writeback, reclaim of "
            "the dentries kept) that lands in a few of them moves a row far either "
            "way, stock against stock included (the floor column).")
    if prev:
        text += (f"  The last column is {PREV_NAME}'s default policy, from its own run "
                 f"(samples/{base}/scale-{PREV_NAME}/).")
    L = textwrap.wrap(text, 72, break_on_hyphens=False, break_long_words=False)
    L.append("")
    for fs in fss:
        L += table(run, fs, prev) + [""]
    L.append(FOOTER.format(base=base))
    return L


def targets(base):
    """(file, filesystems, with the previous version's column) whose
    numbers section comes from BASE's sample."""
    pdir = os.path.join(TOP, "patches", base)
    out = [(os.path.join(pdir, "0000-cover-letter.patch"), ["ext4", "ext2"], True)]
    for p in sorted(glob.glob(os.path.join(pdir, "0*.patch"))):
        with open(p) as f:
            head = f.read(2000)
        for fs in ("ext2", "ext4"):
            if f"] {fs}: keep the negative dentries" in head:
                out.append((p, [fs], False))
    return out


def find(lines, start, foot):
    """(start, end) of the one section in LINES that begins with a line
    starting START and ends with the line FOOT, end exclusive; or None."""
    starts = [i for i, l in enumerate(lines) if l.startswith(start)]
    ends = [i for i, l in enumerate(lines) if l == foot]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        return None
    return starts[0], ends[0] + 1


def refresh(path, start, foot, new, write, what, source, base):
    """Compare (WRITE: replace) the section START...FOOT of PATH with the
    lines NEW; returns 1 if it is missing or (checking) differs."""
    rel = os.path.relpath(path, TOP)
    with open(path) as f:
        lines = f.read().split("\n")
    span = find(lines, start, foot)
    if span is None:
        print(f"patch_numbers.py: {rel}: no single {what} section (a line "
              f"\"{start} ...\" through \"{foot}\")", file=sys.stderr)
        return 1
    if lines[span[0]:span[1]] == new:
        return 0
    if write:
        lines[span[0]:span[1]] = new
        with open(path, "w") as f:
            f.write("\n".join(lines))
        print(f"rewrote the {what} of {rel}")
        return 0
    print(f"patch_numbers.py: {rel}: its {what} differ from {source} (run "
          f"'python3 bench/patch_numbers.py --write {base}')", file=sys.stderr)
    return 1


def bases(args):
    if args:
        return args
    return sorted(os.path.basename(os.path.dirname(d)) for d in
                  glob.glob(os.path.join(TOP, "samples", "*", "scale"))
                  if os.path.isdir(os.path.join(TOP, "patches",
                                                os.path.basename(os.path.dirname(d)))))


# ---- the tput numbers of the per-filesystem patches (samples/BASE/bench/) ----
TPUT_FOOTER = "Generated from {sample}/ by bench/patch_numbers.py."
TPUT_START = "Timed in"
TPUT_ROWS = {
    "ext": [("miss", "lookup misses"), ("stat", "stat(), existing"),
            ("openclose", "open+close, existing"), ("newnames", "always-new names"),
            ("newnames-reclaim", "  and their reclaim"), ("mixlock-1:1", "spool + lock, 1:1"),
            ("mixlock-1:1-reclaim", "  and their reclaim"), ("relock", "lock file cycled"),
            ("fileset", "fileset, 1,000 names"), ("fsmark", "fs_mark"),
            ("postmark", "postmark"), ("dbench", "dbench")],
    "tmpfs": [("miss", "lookup misses"), ("newnames", "always-new names"),
              ("negdir-readdir", "readdir after misses"), ("negdir-rmdir", "rmdir after misses")],
}


def read_csv(path):
    import csv
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def tput_section(base, fs):
    """The "Timed in" section of FS's patch from BASE's bench sample."""
    sample = sample_place(base)
    d = os.path.join(TOP, sample)
    ratios = {(r["workload"], r["fs"], r["policy"]): r
              for r in read_csv(os.path.join(d, "ratios.csv"))}
    with open(os.path.join(d, "release-stock")) as f:
        release = f.read().strip().replace("-stock", "")
    cfg = {}
    with open(os.path.join(d, "config.txt")) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                cfg[k] = v
    reps = cfg.get("reps", "?")
    tmpfs = fs == "tmpfs"
    # a sample made before tmpfs's default became none has no
    # patched-lookup boot: its tmpfs "default" ran lookup
    tmpfs_then = "none" if "patched-lookup" in cfg.get("tput_boots", "") else "lookup"
    others = ([] if tmpfs_then == "lookup" else ["lookup"]) if tmpfs else ["all", "none"]
    text = (f"Timed in {release} QEMU guests (TCG, -icount shift=0, one vCPU: guest "
            "time is instructions executed, so every timing is emulated) with the "
            "whole series applied, stock and patched booted in turn on the same "
            f"images, {reps} repetitions: throughput patched/stock under the default "
            + (f"policy ({'none' if tmpfs else 'lookup'})" if not tmpfs or tmpfs_then == "none"
               else "policy of the series when the sample was made (lookup; none since)")
            + ", median [min-max], then "
            + (f"the medians under negdentry={' and '.join(others)}, of "
               if others else "the median of ")
            + "stock against stock (the floor), and the instructions the default adds "
            "per operation" + (" (and lookup, in the last column)." if others == ["lookup"]
                               else "."))
    L = textwrap.wrap(text, 72, break_on_hyphens=False, break_long_words=False) + [""]
    def r3(x):
        x = float(x)
        return f"{x:.3f}" if x >= 0.1 else f"{x:.4f}"

    def instr(r):
        return f"{float(r['patched_ns_per_op']) - float(r['stock_ns_per_op']):+,.0f}"

    rows = [(name, ratios.get((wl, fs, "default")), wl)
            for wl, name in TPUT_ROWS["tmpfs" if tmpfs else "ext"]]
    rows = [(name, r, wl) for name, r, wl in rows if r and r["ratio"]]
    cells = [f"{r3(r['ratio'])} [{r3(r['ratio_min'])}-{r3(r['ratio_max'])}]"
             for _, r, _ in rows]
    w = max([len(c) + 1 for c in cells] + [20])
    wi = max([len(instr(r)) + 1 for _, r, _ in rows] + [8])
    L.append(f"  {fs:<20}{'default':>{w}}" + "".join(f"{o:>7}" for o in others)
             + f"{'floor':>7}{'instr':>{wi}}" + (f"{'lookup':>12}" if others == ["lookup"] else ""))
    for (name, r, wl), cell in zip(rows, cells):
        line = f"  {name:<20}{cell:>{w}}"
        for o in others:
            ro = ratios.get((wl, fs, o))
            line += f"{r3(ro['ratio']):>7}" if ro and ro["ratio"] else f"{'-':>7}"
        line += f"{r3(r['noise_ratio']):>7}" if r["noise_ratio"] else f"{'-':>7}"
        line += f"{instr(r):>{wi}}"
        if others == ["lookup"]:
            ro = ratios.get((wl, fs, "lookup"))
            line += f"{instr(ro):>12}" if ro and ro["ratio"] else f"{'-':>12}"
        L.append(line)
    # rows whose own floor does not resolve them (the instrument's goal)
    loose = [(name, r) for name, r, _ in rows
             if r["noise_ratio"] and abs(float(r["noise_ratio"]) - 1) > FLOOR_GOAL]
    if loose:
        L += [""] + textwrap.wrap(
            "Stock against stock strays by more than "
            f"{FLOOR_GOAL * 100:g} % in "
            + ", ".join(f"{name} (floor {r3(r['noise_ratio'])}, from {r3(r['noise_min'])} "
                        f"to {r3(r['noise_max'])})" for name, r in loose)
            + ": its row cannot tell a difference that size from noise.", 72,
            initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False,
            break_long_words=False)
    # the reproducer's rounds (bench part mem): negative dentries left
    mem = read_csv(os.path.join(d, "mem.csv"))
    left = {}
    for k in ("stock", "patched"):
        rows = sorted((int(r["round"]), int(r["nr_negative"])) for r in mem
                      if r["kernel"] == k and r["fs"] == fs and r["policy"] == "default")
        if rows:
            left[k] = (rows[-1][1] - rows[0][1], rows[-1][0])
    if len(left) == 2:
        n = dict(kv.split("=", 1) for kv in cfg.get("mem_args", "").split() if "=" in kv)
        names = f"{int(n['N']):,} " if n.get("N", "").isdigit() else ""
        L += ["", f"  negative dentries left by {left['stock'][1]} rounds of {names}"
              "create+unlink:", f"  {left['patched'][0]:,} (stock: {left['stock'][0]:,})"]
    L += ["", TPUT_FOOTER.format(sample=sample)]
    return L


def tput_targets(base):
    """(file, filesystem) of the patches that start each filesystem's
    policy: subjects "ext2: free negative dentries...", "ext4: ...",
    "shmem: add negdentry=..."."""
    out = []
    for p in sorted(glob.glob(os.path.join(TOP, "patches", base, "0*.patch"))):
        with open(p) as f:
            head = f.read(2000)
        for fs, subj in (("ext2", "ext2: free negative dentries"),
                         ("ext4", "ext4: free negative dentries"),
                         ("tmpfs", "shmem: add negdentry=")):
            if f"] {subj}" in head:
                out.append((p, fs))
    return out


def main():
    if not sys.argv[1:] or sys.argv[1] not in ("--write", "--check"):
        print("usage: patch_numbers.py --write|--check [BASE...]", file=sys.stderr)
        return 2
    write, bad = sys.argv[1] == "--write", 0
    for base in bases(sys.argv[2:]):
        run = Run(os.path.join(TOP, "samples", base, "scale"))
        prev_dir = os.path.join(TOP, "samples", base, f"scale-{PREV_NAME}")
        prev = Run(prev_dir) if os.path.isdir(prev_dir) else None
        for path, fss, with_prev in targets(base):
            bad |= refresh(path, "Measured in", FOOTER.format(base=base),
                           section(run, base, fss, prev if with_prev else None), write,
                           "numbers", f"samples/{base}/scale/", base)
        sample = sample_place(base)
        if not os.path.isdir(os.path.join(TOP, sample)):
            continue
        for path, fs in tput_targets(base):
            bad |= refresh(path, TPUT_START, TPUT_FOOTER.format(sample=sample),
                           tput_section(base, fs), write, "tput numbers",
                           f"{sample}/", base)
    return bad


if __name__ == "__main__":
    sys.exit(main())
