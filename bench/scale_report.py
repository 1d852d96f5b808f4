#!/usr/bin/env python3
"""The report of bench/run.sh's filebench and scale parts.

    scale_report.py RUN_DIR
    scale_report.py --publish RUN_DIR   also copy it to samples/BASE/scale/
                                        and its headline into samples/README.md's
                                        block for BASE (BASE from the
                                        environment, default 6.1); refused
                                        (exit 1) if a boot failed or a
                                        kernel is not BASE's

Reads RUN_DIR/filebench/rREP-BOOT/ and RUN_DIR/scale/BOOT/ (raw.txt,
boot-rc, fb-NAME.f: written by bench/guest.sh and bench/run.sh) and
RUN_DIR/config.txt; a folder without them (a published sample) is read
from its scale-*.csv files instead.  BOOT is
one of bench/run.sh's SCALE_BOOTS: stock, patched (the series' default
policy), patched-all (negdentry=all), prefix (the series without its
per-name patches: every unlinked name freed, commit 681ce8623567's rule),
patched-b (patched again) and stock-b (stock again).  Ratios are per
repetition (BOOT of repetition i / stock of repetition i), then median
[min-max].  Every timed row has two floors: stock again / stock, and
patched again / patched (patched-b of the same repetition, or, where a
part has no patched-b boot, as filebench, patched of repetition i+1 /
patched of repetition i).

Writes into RUN_DIR: scale.md (every table), scale-headline.md (the README
block), scale-results.csv, scale-counts.csv,
scale-personalities.csv, scale-releases.txt, filebench.png and
bigdir.png.
"""
import csv
import glob
import os
import re
import shutil
import statistics
import sys

# bench/report.py's helpers: reading boot folders, number format, gnuplot,
# publishing a sample
from report import fmt, gnuplot, kv_file, publish_sample, read_lines
# issue 25's reading of ">= 0.99" where negdentry=all is itself below it
from goals import ALL_MARGIN, within_all

# the parts of bench/run.sh this report reads: one folder per boot in each
# (filebench-few's results are filebench's: rows of their own names)
PARTS = ["filebench", "filebench-few", "scale", "mountmem"]
BOOTS = ["stock", "patched", "patched-all", "prefix", "patched-b", "stock-b"]
BOOT_TEXT = {"stock": "stock", "patched": "patched, default",
             "patched-all": "patched, `all`", "prefix": "without 4-5",
             "patched-b": "patched again", "stock-b": "stock again"}
# the series' default policy per filesystem (patches/*/0000-cover-letter)
DEFAULT = {"ext2": "lookup", "ext4": "lookup", "tmpfs": "none"}
# filebench's shipped personalities, in the report's order; a run's
# variants (NAME-tN: $nthreads=N) follow their personality
PERSONALITIES = ["webproxy", "fileserver", "varmail"]
# goals of the series (issue "Series v4"): throughput of the default
# policy against stock, and the share of a spool's negatives it may keep
GOAL_RATIO = 0.99
GOAL_SPOOL_KEPT = 0.01
GOAL_MILLION_KEPT = 0.001
TIMING = ("QEMU TCG, `-icount shift=0,sleep=off`, one vCPU, images in RAM disks: "
          "guest time = instructions executed (1 ns each); ops/s are emulated")


def med(vals):
    return statistics.median(vals) if vals else None


def fmt_spread(vals, digits=3):
    if not vals:
        return "n/a"
    if len(vals) == 1:
        return fmt(vals[0], digits)
    return f"{fmt(med(vals), digits)} [{fmt(min(vals), digits)}-{fmt(max(vals), digits)}]"


class Run:
    def __init__(self, d):
        self.d = d
        self.cfg = kv_file(os.path.join(d, "config.txt"))
        self.failed = {}
        # results: (part, rep, boot, fs, policy, workload, ops, ns)
        # counts: (part, rep, boot, fs, policy, workload, key, value)
        self.results, self.counts, self.nfiles = [], [], {}
        if any(glob.glob(os.path.join(d, part, "*")) for part in PARTS):
            self.load_boots()
        elif os.path.isfile(os.path.join(d, "scale-results.csv")):
            self.load_csvs()
        else:
            sys.exit(f"scale_report.py: {d} has neither filebench/ nor scale/ boot folders "
                     "nor a published sample's scale-results.csv")

    def load_boots(self):
        folders = [(part, bd) for part in PARTS
                   for bd in glob.glob(os.path.join(self.d, part, "*")) if os.path.isdir(bd)]
        for folder, bd in sorted(folders):
            name = os.path.basename(bd)
            part = "filebench" if folder == "filebench-few" else folder
            m = re.match(r"r(\d+)-(.+)$", name)
            rep, boot = (int(m.group(1)), m.group(2)) if m else (1, name)
            rc = read_lines(os.path.join(bd, "boot-rc"))
            if not rc or rc[0][0] != "0":
                self.failed[f"{folder}/{name}"] = (f"boot exit {rc[0][0]}" if rc else
                                                 "no boot-rc (boot did not finish)")
            for l in read_lines(os.path.join(bd, "raw.txt")):
                if l[0] == "result" and len(l) == 6:
                    self.results.append((part, rep, boot, l[1], l[2], l[3], int(l[4]),
                                         int(float(l[5]))))
                elif l[0] == "count" and len(l) == 6:
                    self.counts.append((part, rep, boot, l[1], l[2], l[3], l[4], int(l[5])))
            for f in glob.glob(os.path.join(bd, "fb-*.f")):
                w = os.path.basename(f)[3:-2]
                for l in read_lines(f):
                    if len(l) > 1 and l[0] == "set" and l[1].startswith("$nfiles="):
                        self.nfiles[w] = int(l[1].split("=", 1)[1])
        self.release = {}
        for k in ("stock", "patched"):
            r = read_lines(os.path.join(self.d, f"release-{k}"))
            self.release[k] = r[0][0] if r else "?"
        # config.txt: "prefix=step-N RELEASE"
        self.release["prefix"] = self.cfg.get("prefix", "?").split()[-1]

    def load_csvs(self):
        with open(os.path.join(self.d, "scale-results.csv"), newline="") as f:
            for r in csv.DictReader(f):
                self.results.append((r["part"], int(r["rep"]), r["boot"], r["fs"], r["policy"],
                                     r["workload"], int(r["ops"]), int(r["guest_ns"])))
        with open(os.path.join(self.d, "scale-counts.csv"), newline="") as f:
            for r in csv.DictReader(f):
                self.counts.append((r["part"], int(r["rep"]), r["boot"], r["fs"], r["policy"],
                                    r["workload"], r["key"], int(r["value"])))
        with open(os.path.join(self.d, "scale-personalities.csv"), newline="") as f:
            for r in csv.DictReader(f):
                self.nfiles[r["personality"]] = int(r["nfiles"])
        self.release = {k: v for k, v in (l[0].split("=", 1) for l in
                                          read_lines(os.path.join(self.d, "scale-releases.txt")))}

    def write_csvs(self):
        with open(os.path.join(self.d, "scale-results.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["part", "rep", "boot", "fs", "policy", "workload", "ops", "guest_ns"])
            w.writerows(self.results)
        with open(os.path.join(self.d, "scale-counts.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["part", "rep", "boot", "fs", "policy", "workload", "key", "value"])
            w.writerows(self.counts)
        with open(os.path.join(self.d, "scale-personalities.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["personality", "nfiles"])
            w.writerows(sorted(self.nfiles.items()))
        with open(os.path.join(self.d, "scale-releases.txt"), "w") as f:
            for k, v in sorted(self.release.items()):
                f.write(f"{k}={v.replace(' ', '_')}\n")

    # ---- lookups --------------------------------------------------------
    def reps(self, part):
        return sorted({r[1] for r in self.results if r[0] == part})

    def result(self, part, rep, boot, fs, workload):
        """(ops, ns) of one boot's workload, or None."""
        for r in self.results:
            if r[:3] == (part, rep, boot) and r[3] == fs and r[5] == workload:
                return r[6], r[7]
        return None

    def count(self, part, rep, boot, fs, workload, key):
        vals = [c[7] for c in self.counts if c[:3] == (part, rep, boot) and c[3] == fs
                and c[5] == workload and c[6] == key]
        return vals

    def ns_per_op(self, part, boot, fs, workload):
        vals = []
        for rep in self.reps(part):
            r = self.result(part, rep, boot, fs, workload)
            if r and r[0]:
                vals.append(r[1] / r[0])
        return vals

    def ratios(self, part, boot, fs, workload, ref="stock"):
        """Throughput of BOOT / REF's, per repetition (REF's ns over BOOT's)."""
        vals = [self.ratio(part, (rep, ref), (rep, boot), fs, workload)
                for rep in self.reps(part)]
        return [v for v in vals if v is not None]

    def ratio(self, part, ref, boot, fs, workload):
        """Throughput of BOOT / REF, each a (repetition, boot), or None."""
        s = self.result(part, *ref, fs, workload)
        b = self.result(part, *boot, fs, workload)
        if s and b and s[0] and b[0] and b[1]:
            return (s[1] / s[0]) / (b[1] / b[0])
        return None

    def patched_floor(self, part, fs, workload):
        """patched again / patched: patched-b of each repetition, or, in a
        part without patched-b boots, patched of the next repetition."""
        vals = self.ratios(part, "patched-b", fs, workload, ref="patched")
        if vals:
            return vals
        reps = self.reps(part)
        vals = [self.ratio(part, (a, "patched"), (b, "patched"), fs, workload)
                for a, b in zip(reps, reps[1:])]
        return [v for v in vals if v is not None]

    def workloads(self, part, fs, prefix):
        """The workloads of PART on FS named PREFIX..., in the guest's order."""
        return list(dict.fromkeys(r[5] for r in self.results if r[0] == part and r[3] == fs
                                  and r[5].startswith(prefix)))


# a row whose stock/stock floor strays further than this from 1.000 (any
# repetition) cannot tell a 1 % goal from noise
FLOOR_RESOLVES = 0.01


def met(vals, goal, floor=None, all_vals=None):
    """met or missed; with a floor that strays by d > 1 %, only a median
    further than d from the goal counts, else "not resolved".  A median
    short of the goal but within ALL_MARGIN of negdentry=all's (ALL_VALS),
    itself below the goal, is met: the hook's cost (goals.within_all)."""
    if not vals:
        return "n/a"
    d = max(abs(f - 1) for f in floor) if floor else 0
    m = med(vals)
    if d <= FLOOR_RESOLVES:
        if m >= goal:
            return "met"
        if within_all(m, med(all_vals) if all_vals else None, goal):
            return f"met (within {ALL_MARGIN:.1%} of `all`, itself below {goal:g})"
        return "**missed**"
    if m < goal - d:
        return "**missed**"
    return "met" if m - d >= goal else f"not resolved (floor ±{d:.3f})"


def personalities(run):
    """The filebench personalities of RUN (fb-NAME[-tN] without fb-):
    PERSONALITIES' order, each followed by its variants by threads."""
    have = {r[5][3:] for r in run.results if r[0] == "filebench" and r[5].startswith("fb-")}

    def key(w):
        name, _, t = w.partition("-t")
        i = PERSONALITIES.index(name) if name in PERSONALITIES else len(PERSONALITIES)
        return (i, name, int(t) if t.isdigit() else 0)
    return sorted(have, key=key)


def personality_label(w):
    """fb-NAME[-tN] without fb-, as a row label: NAME.f[, N thread(s)]."""
    name, _, t = w.partition("-t")
    if not t.isdigit():
        return f"{w}.f"
    return f"{name}.f, {t} thread{'s' if t != '1' else ''}"


def fss(run, part):
    order = ["ext4", "ext2", "tmpfs"]
    have = {r[3] for r in run.results + run.counts if r[0] == part}
    return [f for f in order if f in have]


def no_goal(wl):
    """The rows issue 25's table sets no goal on: a lookup of names the
    series frees at unlink (bigdir-N-relookup) measures the price of
    freeing them, which stock does not pay (its negative dentries answer)."""
    return wl.endswith("-relookup")


def floors(run, part, fs, wl):
    """Both floors of a row: stock again / stock, patched again / patched."""
    return run.ratios(part, "stock-b", fs, wl), run.patched_floor(part, fs, wl)


def ratio_cells(run, part, fs, wl):
    """The columns every timed row shares: each boot's ratio to stock, the
    two floors, then the default policy's verdict (resolved at the wider
    of the floors)."""
    sf, pf = floors(run, part, fs, wl)
    return (" | ".join(fmt_spread(run.ratios(part, b, fs, wl))
                       for b in ("patched", "patched-all", "prefix"))
            + f" | {fmt_spread(sf)} | {fmt_spread(pf)}"
            + " | " + ("no goal (the price of a freed name)" if no_goal(wl) else
                       met(run.ratios(part, 'patched', fs, wl), GOAL_RATIO, sf + pf,
                           run.ratios(part, 'patched-all', fs, wl))))


FLOOR_COLUMNS = ("stock again / stock (floor) | patched again / patched (floor) "
                 "| goal (default >= 0.99; floors within 1 %) |")


def filebench_table(run):
    L = ["| personality | fs | stock ops/s | patched, default / stock | patched, `all` / stock "
         "| without 4-5 / stock | " + FLOOR_COLUMNS
         + " patched: removals per name before the window | patched: first removals' share "
         "of the window's (at most) |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for w in personalities(run):
        wl = f"fb-{w}"
        for fs in fss(run, "filebench"):
            stock = [1e9 / v for v in run.ns_per_op("filebench", "stock", fs, wl)]
            if not stock:
                continue
            per_name, first = warmup(run, fs, w)
            L.append(f"| {personality_label(w)} | {fs} | {fmt_spread(stock)} | "
                     f"{ratio_cells(run, 'filebench', fs, wl)} "
                     f"| {fmt_spread(per_name, 1)} | {fmt_spread(first)} |")
    return L


def warmup(run, fs, w):
    """Per repetition of the patched boot (default policy): the removals
    each of the personality's names had before the measured window, and
    the share of the window's removals that can be a name's first (no
    negative dentry to keep under any policy): at most the names not yet
    removed, max(0, names - removals before) / removals in the window.
    A run without a warm-up period (no removals_warmup count) measured
    from the first removal: every name's first is in the window."""
    n = run.nfiles.get(w)
    per_name, first = [], []
    if not n:
        return per_name, first
    for rep in run.reps("filebench"):
        rem = run.count("filebench", rep, "patched", fs, f"fb-{w}", "removals")
        before = run.count("filebench", rep, "patched", fs, f"fb-{w}", "removals_warmup")
        if not rem or not rem[0]:
            continue
        b = before[0] if before else 0
        per_name.append(b / n)
        first.append(max(0, n - b) / rem[0] if before else min(n, rem[0]) / rem[0])
    return per_name, first


def ratio_table(run, part, prefix, title_col):
    L = [f"| {title_col} | fs | ops timed | stock ns/op | patched, default / stock "
         "| patched, `all` / stock | without 4-5 / stock | " + FLOOR_COLUMNS,
         "|---|---|---|---|---|---|---|---|---|---|"]
    for fs in fss(run, part):
        for wl in run.workloads(part, fs, prefix):
            stock = run.ns_per_op(part, "stock", fs, wl)
            ops = {r[6] for r in run.results if r[0] == part and r[3] == fs and r[5] == wl}
            L.append(f"| {wl} | {fs} | {'/'.join(f'{o:,}' for o in sorted(ops))} | "
                     f"{fmt_spread(stock, 0)} | {ratio_cells(run, part, fs, wl)} |")
    return L


def kept_workloads(run, fs, prefix, names_key):
    """The scale workloads PREFIX... on FS that count their unlinked names
    under NAMES_KEY, in the guest's order."""
    return list(dict.fromkeys(c[5] for c in run.counts if c[0] == "scale" and c[3] == fs
                              and c[5].startswith(prefix) and c[6] == names_key))


def kept(run, boot, fs, wl):
    """The negative dentries BOOT's workload WL left on FS, or None."""
    v = run.count("scale", 1, boot, fs, wl, "negative_delta")
    return v[0] if v else None


def kept_table(run, prefix, names_key, goal):
    """Negative dentries kept per boot against the names unlinked."""
    L = ["| workload | fs | names unlinked | " + " | ".join(BOOT_TEXT[b] for b in BOOTS)
         + f" | default kept / stock's (goal <= {goal:g}) |",
         "|---|---|---|" + "---|" * len(BOOTS) + "---|"]
    for fs in fss(run, "scale"):
        for wl in kept_workloads(run, fs, prefix, names_key):
            names = run.count("scale", 1, "stock", fs, wl, names_key)
            left = {b: kept(run, b, fs, wl) for b in BOOTS}
            s, p = left["stock"], left["patched"]
            if s is not None and s > 0 and p is not None:
                share = p / s
                verdict = f"{share:.4f} ({'met' if share <= goal else '**missed**'})"
            else:
                verdict = "n/a (stock keeps none)"
            L.append(f"| {wl} | {fs} | {names[0] if names else '?':,} | "
                     + " | ".join(f"{v:,}" if v is not None else "n/a" for v in left.values())
                     + f" | {verdict} |")
    return L


def memory_table(run):
    L = ["| fs | " + " | ".join(f"{BOOT_TEXT[b]}" for b in BOOTS)
         + " | patched, default - stock (medians) |",
         "|---|" + "---|" * len(BOOTS) + "---|"]
    for fs in fss(run, "mountmem"):
        vals = {b: run.count("mountmem", 1, b, fs, "mount", "kmalloc_bytes") for b in BOOTS}
        diff = (med(vals["patched"]) - med(vals["stock"])
                if vals["patched"] and vals["stock"] else None)
        L.append(f"| {fs} | " + " | ".join(fmt_spread(v, 0) for v in vals.values())
                 + f" | {f'{diff:+,.0f}' if diff is not None else 'n/a'} |")
    caches = list(dict.fromkeys(c[6] for c in run.counts if c[5] == "objsize"))
    if caches:
        L += ["", "| object size (bytes) | " + " | ".join(BOOT_TEXT[b] for b in BOOTS) + " |",
              "|---|" + "---|" * len(BOOTS)]
        for cache in caches:
            cells = []
            for b in BOOTS:
                v = sorted({c[7] for c in run.counts if c[2] == b and c[5] == "objsize"
                            and c[6] == cache})
                cells.append("/".join(str(x) for x in v) if v else "n/a")
            L.append(f"| {cache} | " + " | ".join(cells) + " |")
    return L


def plot_filebench(run):
    """ops/s per boot, one panel per personality and filesystem."""
    ws = personalities(run)
    panels = [(w, fs) for w in ws for fs in fss(run, "filebench")
              if run.ns_per_op("filebench", "stock", fs, f"fb-{w}")]
    if not panels:
        return None
    os.makedirs(os.path.join(run.d, "scale-plotdata"), exist_ok=True)
    g = ["set terminal pngcairo size 1500,900 font ',10'",
         f"set output '{run.d}/filebench.png'",
         f"set multiplot layout {len(ws)},{len(fss(run, 'filebench'))} "
         "title 'filebench personalities (as shipped unless a thread count is named): "
         "ops/s per kernel (median, min-max; "
         "QEMU TCG -icount: emulated time)'",
         "set style data histogram", "set style histogram errorbars gap 1 lw 1",
         "set style fill solid 0.6", "set boxwidth 0.8", "set grid ytics",
         "set yrange [0:*]", "unset key", "set xtics font ',8'"]
    for w, fs in panels:
        name = f"fb-{w}-{fs}.dat"
        with open(os.path.join(run.d, "scale-plotdata", name), "w") as f:
            for b in BOOTS:
                v = [1e9 / x for x in run.ns_per_op("filebench", b, fs, f"fb-{w}")]
                if v:
                    f.write(f"\"{BOOT_TEXT[b].replace('`', '')}\" {med(v):.1f} {min(v):.1f} {max(v):.1f}\n")
        g.append(f"set title '{personality_label(w)} on {fs}'")
        g.append(f"plot '{run.d}/scale-plotdata/{name}' using 2:3:4:xtic(1) lc rgb '#1f77b4'")
    g.append("unset multiplot")
    return "filebench.png" if gnuplot("\n".join(g) + "\n") else None


def plot_bigdir(run):
    """Instructions per lookup miss of a freed name, against directory size."""
    series = []
    os.makedirs(os.path.join(run.d, "scale-plotdata"), exist_ok=True)
    for fs in fss(run, "scale"):
        for b in ("stock", "patched", "patched-all", "prefix"):
            pts = []
            for wl in run.workloads("scale", fs, "bigdir-"):
                m = re.match(r"bigdir-(\d+)-relookup$", wl)
                v = run.ns_per_op("scale", b, fs, wl)
                if m and v:
                    pts.append((int(m.group(1)), med(v)))
            if pts:
                name = f"bigdir-{fs}-{b}.dat"
                with open(os.path.join(run.d, "scale-plotdata", name), "w") as f:
                    f.writelines(f"{n} {v:.1f}\n" for n, v in sorted(pts))
                series.append((fs, b, name))
    if not series:
        return None
    g = ["set terminal pngcairo size 1200,500 font ',10'",
         f"set output '{run.d}/bigdir.png'",
         f"set multiplot layout 1,{len(fss(run, 'scale'))} title 'stat() of a name unlinked "
         "before, in a directory of N other entries: guest ns (= instructions, -icount) per miss'",
         "set logscale xy", "set grid", "set key top left", "set xlabel 'other entries'"]
    for fs in fss(run, "scale"):
        g.append(f"set title '{fs}'")
        g.append("plot " + ", ".join(f"'{run.d}/scale-plotdata/{n}' using 1:2 with linespoints "
                                     f"title '{BOOT_TEXT[b].replace('`', '')}'"
                                     for f_, b, n in series if f_ == fs))
    g.append("unset multiplot")
    return "bigdir.png" if gnuplot("\n".join(g) + "\n") else None


def kept_share(run, fs, prefix, names_key):
    """Largest default-kept / stock-kept over the workloads PREFIX..."""
    shares = []
    for wl in kept_workloads(run, fs, prefix, names_key):
        s, p = kept(run, "stock", fs, wl), kept(run, "patched", fs, wl)
        if s is not None and s > 0 and p is not None:
            shares.append((p / s, p, s))
    return max(shares) if shares else None


def scale_summary(run):
    """One row per scale measurement, the filesystems side by side:
    patched (default) / stock, and the stock/stock floor in parentheses."""
    fs_list = fss(run, "scale")
    if not fs_list:
        return []
    L = ["| scale row, patched (default) / stock (floors: stock again / stock; "
         "patched again / patched) | " + " | ".join(fs_list) + " |",
         "|---|" + "---|" * len(fs_list)]
    for wl in run.workloads("scale", fs_list[0], "calib") + \
            run.workloads("scale", fs_list[0], "bigdir-") + \
            run.workloads("scale", fs_list[0], "busyspool-"):
        L.append(f"| {wl} | " + " | ".join(
            f"{fmt_spread(run.ratios('scale', 'patched', fs, wl))} "
            f"({'; '.join(fmt_spread(f) for f in floors(run, 'scale', fs, wl))})"
            for fs in fs_list) + " |")
    for label, prefix, key in (("busy spools: negative dentries kept, the largest share of stock's "
                                f"(goal <= {GOAL_SPOOL_KEPT:g})", "busyspool-", "spool_names"),
                               ("always-new names: kept of stock's "
                                f"(goal <= {GOAL_MILLION_KEPT:g})", "million", "names")):
        cells = []
        for fs in fs_list:
            k = kept_share(run, fs, prefix, key)
            cells.append(f"{k[0]:.4f} ({k[1]:,} of {k[2]:,})" if k else "n/a (stock keeps none)")
        L.append(f"| {label} | " + " | ".join(cells) + " |")
    cells = []
    for fs in fs_list:
        size = {b: sorted({c[7] for c in run.counts if c[2] == b and c[3] == fs
                           and c[5] == "objsize" and c[6] != "dentry"}) for b in ("stock", "patched")}
        cells.append(f"{'/'.join(map(str, size['patched']))} vs {'/'.join(map(str, size['stock']))}"
                     if size["stock"] and size["patched"] else "n/a")
    L.append("| inode cache object size in bytes, patched vs stock (exact) | "
             + " | ".join(cells) + " |")
    cells = []
    for fs in fs_list:
        st = run.count("mountmem", 1, "stock", fs, "mount", "kmalloc_bytes")
        pa = run.count("mountmem", 1, "patched", fs, "mount", "kmalloc_bytes")
        al = run.count("mountmem", 1, "patched-all", fs, "mount", "kmalloc_bytes")
        cells.append(f"{med(pa) - med(st):+,.0f} ({med(al) - med(st):+,.0f})"
                     if st and pa and al else "n/a")
    L.append("| kmalloc bytes of a mount, patched minus stock, medians: default (`all`) | "
             + " | ".join(cells) + " |")
    return L


def fb_sizes(run):
    """The filebench parts' sizes from config.txt (filebench-few's after)."""
    few = run.cfg.get("filebench_few_args")
    return run.cfg.get("filebench_args", "?") + (f"; filebench-few {few}" if few else "")


def headline(run):
    L = [f"Filebench personalities as shipped (a row naming its threads: `$nthreads` changed "
         f"too) and the scale rows, {run.release.get('stock', '?')}: "
         f"patched/stock, median [min-max] of {len(run.reps('filebench'))} repetition(s); "
         f"{TIMING}. `stock again` / `patched again` are the same run's stock/stock and "
         f"patched/patched floors (filebench's patched/patched: one repetition's patched "
         f"boot against the next's; n/a in a run with one repetition and no patched-b boot). "
         f"Sizes: filebench "
         f"`{fb_sizes(run)}`, scale `{run.cfg.get('scale_args', '?')}`. "
         f"Every table: `samples/{os.environ.get('BASE') or '6.1'}/scale/scale.md`.", ""]
    L += filebench_table(run)
    L += [""] + scale_summary(run)
    return L


def write_reports(run):
    pngs = [p for p in (plot_filebench(run), plot_bigdir(run)) if p]
    shutil.rmtree(os.path.join(run.d, "scale-plotdata"), ignore_errors=True)
    L = ["# Negative dentry series: filebench and scale report", ""]
    if run.failed:
        L.append(f"> **FAILED BOOTS**: {', '.join(f'{b} ({w})' for b, w in sorted(run.failed.items()))}")
        L.append("")
    L.append(f"- Kernels: stock `{run.release.get('stock')}`, patched `{run.release.get('patched')}`, "
             f"without patches 4-5 `{run.release.get('prefix')}`.")
    L.append(f"- Timing: {TIMING}. Counts are exact.")
    L.append(f"- Sizes: filebench `{fb_sizes(run)}`; scale "
             f"`{run.cfg.get('scale_args', '?')}`; date {run.cfg.get('date', '?')}.")
    L.append("- Boots: stock; patched under its default policy (lookup on ext2/ext4, none on "
             "tmpfs); patched under negdentry=all (every negative dentry kept: the hook alone); "
             "the series without its per-name patches (every unlinked name freed: commit "
             "681ce8623567's rule on ext2/ext4); patched again, scale and mountmem only "
             "(the patched/patched floor; filebench's is one repetition's patched boot "
             "against the next one's); stock again (the stock/stock floor). Ratios are "
             "throughput against stock of the same repetition: above 1 is faster. A goal is "
             "judged only where both floors stay within 1 % of 1.000, or where the median "
             "misses by more than the floors' spread.")
    L += ["", "## filebench, as shipped", "",
          "Only `set $dir=` changed (and `set $nthreads=` in a row that names its threads: "
          "part filebench-few, boots of its own, which shows what the shipped threads "
          "do on one vCPU), the shipped `run` line dropped and `psrun -W W+N` "
          "appended (`run N` in a run without FB_WARM): filebench's own statistics every W s "
          "of guest time, cleared after each; the first period is the warm-up, the ops/s "
          "are over the other N s (the measured window; sizes above). A name's first removal "
          "has no negative dentry to keep under any policy: the last columns say how many "
          "removals each name had before the window and what share of the window's removals "
          "can still be first ones.", ""]
    L += filebench_table(run)
    L += ["", "## Idle check", "",
          "`calib`: a loop without system calls, timed after a settle before each "
          "filesystem's rows. It executes the same instructions on every kernel: a ratio "
          "other than 1.000 means the boot had other work running beside its timed "
          "loops, and its rows below cannot be read at 1 %.", ""]
    if any(run.workloads("scale", fs, "calib") for fs in fss(run, "scale")):
        L += ratio_table(run, "scale", "calib", "workload")
    else:
        L.append("None in this run (made before bench/run.sh had it).")
    L += ["", "## Big directories", "",
          "`bigdir-N-toggle`: 1,000 names deleted and created again in rotation in a directory "
          "of N other entries (every name removed twice before the clock starts); "
          "`-relookup`: stat() of 1,000 names unlinked there (stock keeps their negative "
          "dentries); `-recreate`: creating them again.", ""]
    L += ratio_table(run, "scale", "bigdir-", "workload")
    L += ["", "## Lock files beside busy spools: the lock cycle", "",
          "`busyspool-S-other|same-lock`: one create+close+unlink of a lock file after every S "
          "always-new spool names (other directory or the spool's); only the lock cycles are "
          "timed, each after a sync and an idle pause (the spool's deferred work runs "
          "before the clock starts).", ""]
    L += ratio_table(run, "scale", "busyspool-", "workload")
    L += ["", "## Negative dentries kept", "",
          "nr_negative after the timed loop minus before it (spool and lock together; "
          "`million`: 1,000,000 always-new names).", ""]
    L += kept_table(run, "busyspool-", "spool_names", GOAL_SPOOL_KEPT)
    L += [""] + kept_table(run, "million", "names", GOAL_MILLION_KEPT)
    L += ["", "## Memory per mount", "",
          "Bytes in use in the kmalloc caches (active objects x object size, "
          "/proc/slabinfo) after a mount minus before it, median [min-max] of the mounts, "
          "in boots of their own under `slub_debug=F,kmalloc-*`: SLUB then keeps no CPU "
          "slab for those caches, so that every object allocated counts (without it, an "
          "allocation shows only when it opens a new slab). The object sizes of the inode "
          "and dentry caches (from the scale boots) are exact.", ""]
    L += memory_table(run)
    if pngs:
        L += ["", "## Plots", ""] + [f"![{p}]({p})" for p in pngs]
    with open(os.path.join(run.d, "scale.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    with open(os.path.join(run.d, "scale-headline.md"), "w") as f:
        f.write("\n".join(headline(run)) + "\n")


def publish(run, base):
    """The scale report as BASE's sample (samples/BASE/scale)."""
    return publish_sample("scale_report.py", run, base, "scale",
                          ("scale.md", "scale-headline.md", "scale-results.csv",
                           "scale-counts.csv", "scale-personalities.csv", "filebench.png",
                           "bigdir.png", "config.txt", "scale-releases.txt"))


def main():
    args = sys.argv[1:]
    do_publish = args[:1] == ["--publish"]
    args = args[1:] if do_publish else args
    if len(args) != 1:
        print("usage: scale_report.py [--publish] RUN_DIR", file=sys.stderr)
        return 2
    run = Run(args[0])
    if not run.results and not run.counts:
        print(f"scale_report.py: {args[0]} has no filebench or scale results", file=sys.stderr)
        return 1
    run.write_csvs()
    write_reports(run)
    print(f"report: {os.path.join(run.d, 'scale.md')}")
    if run.failed:
        print(f"scale_report.py: WARNING: failed boots: {sorted(run.failed)}", file=sys.stderr)
    return publish(run, os.environ.get("BASE") or "6.1") if do_publish else 0


if __name__ == "__main__":
    sys.exit(main())
