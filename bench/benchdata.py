#!/usr/bin/env python3
"""The report's data (bench/report.py): a run folder read into a Run
(boot folders, or a published sample's CSV files), the CSV files written
from it, and the patched/stock ratios with their floors."""
import csv
import glob
import os
import re
import statistics

from workloads import *  # noqa: F401,F403


def read_lines(path):
    try:
        with open(path) as f:
            return [l.split() for l in f if l.strip()]
    except FileNotFoundError:
        return []


def kv_file(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    out[k] = v
    except FileNotFoundError:
        pass
    return out


def fmt(x, digits=3):
    if x is None:
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def spread(vals):
    return (min(vals), max(vals)) if vals else (None, None)


class Run:
    def __init__(self, d):
        self.d = d
        self.cfg = kv_file(os.path.join(d, "config.txt"))
        self.mode = self.cfg.get("mode", "icount")
        self.release = {}
        for k in ("stock", "patched"):
            try:
                with open(os.path.join(d, f"release-{k}")) as f:
                    self.release[k] = f.read().strip()
            except FileNotFoundError:
                self.release[k] = "?"
        # A run folder from bench/run.sh has one folder per boot
        # (tput/, mem/, pc/); a published report (samples/BASE/bench/) keeps
        # only the CSV files written from them: read those instead.
        self.from_csv = (not any(os.path.isdir(os.path.join(d, p))
                                 for p in ("tput", "mem", "pc", "smp"))
                         and os.path.isfile(os.path.join(d, "data.csv")))
        self.failed = {}  # boot ("tput/r3-patched", "pc/stock-ext4") -> why
        self.parts = self.cfg.get("parts", "mem pc tput").split()
        if self.from_csv:
            self.load_csvs()
        else:
            self.load_tput()
            self.load_mem()
            self.load_pc()
        self.check_tput()
        self.check_mem()
        self.check_pc()

    # ---- timed results ------------------------------------------------
    def load_tput(self):
        # rows: (rep, label, fs, policy, workload, ops, ns)
        self.rows = []
        # counts: (rep, label, fs, policy, workload, key, value)
        self.counts = []
        # the smp part's boots (smp/rREP-BOOT) give rows of the same form
        for bd in sorted(glob.glob(os.path.join(self.d, "tput", "r*-*")) +
                         glob.glob(os.path.join(self.d, "smp", "r*-*"))):
            m = re.match(r"r(\d+)-(.+)$", os.path.basename(bd))
            if not m:
                continue
            rep, label = int(m.group(1)), m.group(2)
            # patched-all, patched-none, patched-lookup: one boot per
            # policy; the policy is in each result line
            if label.startswith("patched-"):
                label = "patched"
            self.check_rc(bd)
            for l in read_lines(os.path.join(bd, "raw.txt")):
                if l[0] == "result" and len(l) == 6:
                    self.rows.append((rep, label, l[1], l[2], l[3],
                                      int(l[4]), int(float(l[5]))))
                elif l[0] == "count" and len(l) == 6:
                    self.counts.append((rep, label, l[1], l[2], l[3], l[4], int(l[5])))

    def check_rc(self, bd):
        """A boot folder whose boot-rc is missing or not 0 is a failed boot."""
        rc = read_lines(os.path.join(bd, "boot-rc"))
        if not rc or rc[0][0] != "0":
            self.failed[os.path.relpath(bd, self.d)] = (
                f"boot exit {rc[0][0]}" if rc else "no boot-rc (boot did not finish)")
            return False
        return True

    def load_csvs(self):
        """The same data from data.csv, mem.csv and pc.csv (a published
        report): they hold every row the boot folders gave."""
        self.rows, self.mem, self.pc, self.counts = [], {}, {}, []
        with open(os.path.join(self.d, "data.csv"), newline="") as f:
            for r in csv.DictReader(f):
                self.rows.append((int(r["rep"]), r["boot"], r["fs"], r["policy"],
                                  r["workload"], int(r["ops"]), int(r["guest_ns"])))
        try:
            with open(os.path.join(self.d, "counts.csv"), newline="") as f:
                for r in csv.DictReader(f):
                    self.counts.append((int(r["rep"]), r["boot"], r["fs"], r["policy"],
                                        r["workload"], r["key"], int(r["value"])))
        except FileNotFoundError:
            pass
        try:
            with open(os.path.join(self.d, "mem.csv"), newline="") as f:
                for r in csv.DictReader(f):
                    self.mem.setdefault((r["kernel"], r["fs"], r["policy"]), []).append(
                        tuple(int(r[k]) for k in ("round", "nr_dentry", "nr_negative",
                                                  "dentry_slab_active_objs",
                                                  "dentry_slab_num_objs", "objsize")))
        except FileNotFoundError:
            pass
        try:
            with open(os.path.join(self.d, "pc.csv"), newline="") as f:
                for r in csv.DictReader(f):
                    vals = self.pc.setdefault((r["kernel"], r["fs"]), {})
                    v = int(r["value"])
                    vals[r["key"]] = bool(v) if r["key"] == "boot_ok" else v
        except FileNotFoundError:
            pass

    @staticmethod
    def boot_name(label, policy):
        """The boot a timed result came from: stock, patched, patched-all,
        patched-none, patched-lookup or stock-b (bench/run.sh's
        tput/rREP-BOOT)."""
        return f"patched-{policy}" if label == "patched" and policy != "default" else label

    def check_tput(self):
        """Failed timed boots, derived from the data: a repetition that
        lacks results of a boot that other repetitions have (all of them,
        or some: the boot died or a workload failed).  Also sets
        self.reps_ran: {boot: [repetitions with results]}."""
        got = {}  # (boot, rep) -> {(fs, policy, workload)}
        for rep, label, fs, pol, wl, ops, ns in self.rows:
            got.setdefault((self.boot_name(label, pol), rep), set()).add((fs, pol, wl))
        boots = self.cfg.get("tput_boots", " ".join(TPUT_BOOTS_BEFORE)).split()
        if "tput" not in self.parts:
            boots = []
        boots += sorted({b for b, _ in got} - set(boots))
        try:
            nreps = int(self.cfg.get("reps", "0"))
        except ValueError:
            nreps = 0
        reps = range(1, max([nreps] + [r for _, r in got]) + 1)
        self.reps_ran = {}
        for b in boots:
            want = set().union(*[got.get((b, r), set()) for r in reps])
            self.reps_ran[b] = [r for r in reps if got.get((b, r))]
            for r in reps:
                have = got.get((b, r), set())
                name = f"tput/r{r}-{b}"
                if not have:
                    why = "no results"
                elif have != want:
                    why = (f"partial: {len(want - have)} of {len(want)} results missing "
                           f"({', '.join(sorted(' '.join(k) for k in want - have)[:3])}"
                           f"{', ...' if len(want - have) > 3 else ''})")
                else:
                    continue
                self.failed[name] = (self.failed[name] + "; " + why
                                     if name in self.failed else why)

    def check_mem(self):
        """The reproducer: one boot per kernel and policy, every filesystem,
        every round; a boot with fewer than the others failed."""
        if "mem" not in self.parts:
            return
        fss = {fs for _, fs, _ in self.mem}
        rounds = max([len(v) for v in self.mem.values()] + [0])
        for k, pol in (("stock", "default"), ("patched", "default"),
                       ("patched", "all"), ("patched", "none")):
            short = [fs for fs in sorted(fss) if len(self.mem.get((k, fs, pol), [])) < rounds]
            name = f"mem/{k}-{pol}"
            if not fss or len(short) == len(fss):
                why = "no results"
            elif short:
                why = f"partial: {', '.join(short)} missing or short of {rounds} rounds"
            else:
                continue
            self.failed[name] = self.failed[name] + "; " + why if name in self.failed else why

    def check_pc(self):
        """Page cache: one boot per kernel and filesystem of pc_args' fs=."""
        if "pc" not in self.parts:
            return
        m = re.search(r"\bfs=(.*)$", self.cfg.get("pc_args", ""))
        fss = m.group(1).split() if m else sorted({fs for _, fs in self.pc})
        for fs in fss:
            for k in ("stock", "patched"):
                v = self.pc.get((k, fs))
                name = f"pc/{k}-{fs}"
                if name in self.failed:
                    continue
                if not v or "delta_workingset_refault_file" not in v:
                    self.failed[name] = "no results"
                elif not v.get("boot_ok", True):
                    self.failed[name] = "boot failed (boot_ok=0)"

    def series(self, label, fs, policy, workload):
        """{rep: (ops/s, ns/op)}"""
        out = {}
        for rep, lab, f, p, w, ops, ns in self.rows:
            if (lab, f, p, w) == (label, fs, policy, workload) and ns > 0:
                out[rep] = (ops * 1e9 / ns, ns / ops)
        return out

    def compare(self, fs, policy, workload, base="stock", other="patched"):
        """Medians, spreads and per-repetition ratios of other vs base
        (base always under the default policy: stock has no other)."""
        s = self.series(base, fs, "default", workload)
        p = self.series(other, fs, policy, workload)
        if not s or not p:
            return None
        sv = [v[0] for v in s.values()]
        pv = [v[0] for v in p.values()]
        # repetitions paired as the run interleaves them: other of
        # repetition i over base of repetition i
        ratios = [p[r][0] / s[r][0] for r in sorted(p) if r in s]
        if not ratios:
            return None
        c = {
            "fs": fs, "policy": policy, "workload": workload,
            "base": base, "other": other, "n": len(ratios),
            "base_median": statistics.median(sv), "base_min": min(sv), "base_max": max(sv),
            "other_median": statistics.median(pv), "other_min": min(pv), "other_max": max(pv),
            "base_nsop": statistics.median(v[1] for v in s.values()),
            "other_nsop": statistics.median(v[1] for v in p.values()),
        }
        # the ratio is the median of the per-repetition ratios (not the
        # ratio of the medians), with their min-max
        c["ratio"] = statistics.median(ratios)
        c["ratio_min"], c["ratio_max"] = spread(ratios)
        c["ratios"] = ratios
        return c

    def repeat(self, fs, policy, workload, label="patched"):
        """The LABEL/LABEL floor: LABEL's throughput in repetition i+1
        over repetition i (two boots of the same kernel and policy, as
        stock again / stock is; a run has one boot of each per
        repetition), or None with fewer than two repetitions."""
        s = self.series(label, fs, policy, workload)
        reps = sorted(s)
        ratios = [s[b][0] / s[a][0] for a, b in zip(reps, reps[1:])]
        if not ratios:
            return None
        lo, hi = spread(ratios)
        return {"ratio": statistics.median(ratios), "ratio_min": lo, "ratio_max": hi,
                "n": len(ratios), "ratios": ratios}

    def count(self, label, fs, policy, workload, key="negative_delta"):
        """Median over repetitions of a count line's value, or None."""
        vals = [v for rep, lab, f, p, w, k, v in self.counts
                if (lab, f, p, w, k) == (label, fs, policy, workload, key)]
        return statistics.median(vals) if vals else None

    def count_values(self, workload, key, fs=None):
        """A count line's values over every boot and policy, and every
        filesystem or FS's."""
        return [v for rep, lab, f, p, w, k, v in self.counts
                if (w, k) == (workload, key) and fs in (None, f)]

    def count_sum(self, fs, label, policy):
        """(stock, LABEL under POLICY): sums over the COUNTED workloads
        both have of the median negative dentries left; None if none."""
        s = p = 0
        found = False
        for wl in COUNTED:
            a = self.count("stock", fs, "default", wl)
            b = self.count(label, fs, policy, wl)
            if a is not None and b is not None:
                s, p, found = s + a, p + b, True
        return (s, p) if found else None

    # ---- memory (the 2002 reproducer) -------------------------------
    def load_mem(self):
        self.mem = {}  # (kernel, fs, policy) -> [(round, nr_dentry, nr_neg, act, tot, size)]
        for bd in sorted(glob.glob(os.path.join(self.d, "mem", "*"))):
            k = os.path.basename(bd).split("-")[0]
            self.check_rc(bd)
            for l in read_lines(os.path.join(bd, "raw.txt")):
                if l[0] == "mem" and len(l) == 9:
                    key = (k, l[1], l[2])
                    self.mem.setdefault(key, []).append(tuple(int(x) for x in l[3:]))

    # ---- page cache protection ----------------------------------------
    def load_pc(self):
        self.pc = {}  # (kernel, fs) -> {key: value}
        for bd in sorted(glob.glob(os.path.join(self.d, "pc", "*-*"))):
            k, fs = os.path.basename(bd).split("-", 1)
            vals = {}
            for l in read_lines(os.path.join(bd, "raw.txt")):
                if l[0] == "pc" and len(l) == 5:
                    vals[l[3]] = int(l[4])
                elif l[0] == "mem" and len(l) == 9:
                    vals["nr_dentry_end"] = int(l[4])
                    vals["nr_negative_end"] = int(l[5])
                    vals["dentry_slab_end"] = int(l[6]) * int(l[8])
                elif l[0] == "result" and len(l) == 6:
                    vals["spool_ops"] = int(l[4])
                    vals["spool_ns"] = int(l[5])
            vals["boot_ok"] = self.check_rc(bd)
            self.pc[(k, fs)] = vals


def write_csvs(run):
    d = run.d
    with open(os.path.join(d, "data.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "rep", "boot", "kernel", "fs", "policy", "workload",
                    "ops", "guest_ns", "ops_per_s", "guest_ns_per_op"])
        for rep, label, fs, pol, wl, ops, ns in sorted(run.rows):
            w.writerow([run.mode, rep, label, label.replace("-b", ""), fs, pol, wl,
                        ops, ns, f"{ops * 1e9 / ns:.3f}" if ns else "",
                        f"{ns / ops:.1f}" if ops else ""])
    if run.counts:
        with open(os.path.join(d, "counts.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["mode", "rep", "boot", "kernel", "fs", "policy", "workload",
                        "key", "value"])
            for rep, label, fs, pol, wl, key, v in sorted(run.counts):
                w.writerow([run.mode, rep, label, label.replace("-b", ""), fs, pol, wl,
                            key, v])
    with open(os.path.join(d, "mem.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "fs", "policy", "round", "nr_dentry", "nr_negative",
                    "dentry_slab_active_objs", "dentry_slab_num_objs", "objsize",
                    "dentry_slab_active_bytes", "dentry_slab_total_bytes"])
        for (k, fs, pol), pts in sorted(run.mem.items()):
            for r, nd, nn, act, tot, size in pts:
                w.writerow([k, fs, pol, r, nd, nn, act, tot, size, act * size, tot * size])
    with open(os.path.join(d, "pc.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "fs", "key", "value"])
        for (k, fs), vals in sorted(run.pc.items()):
            for key, v in vals.items():
                w.writerow([k, fs, key, int(v) if isinstance(v, bool) else v])


def all_comparisons(run):
    comps = []
    for wl, _, _ in WORKLOADS:
        for fs in FSS:
            for pol in POLICIES:
                c = run.compare(fs, pol, wl)
                if c:
                    c["noise"] = run.compare(fs, "default", wl, "stock", "stock-b")
                    c["pnoise"] = run.repeat(fs, pol, wl)
                    comps.append(c)
    for s in STRESSORS:
        c = run.compare("ext4", "default", "stress-" + s)
        if c:
            c["noise"] = run.compare("ext4", "default", "stress-" + s, "stock", "stock-b")
            c["pnoise"] = run.repeat("ext4", "default", "stress-" + s)
            comps.append(c)
    with open(os.path.join(run.d, "ratios.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "workload", "fs", "policy", "reps", "stock_median", "stock_min",
                    "stock_max", "patched_median", "patched_min", "patched_max",
                    "ratio", "ratio_min", "ratio_max", "stock_ns_per_op",
                    "patched_ns_per_op", "noise_ratio", "noise_min", "noise_max",
                    "patched_noise_ratio", "patched_noise_min", "patched_noise_max"])
        for c in comps:
            n = c.get("noise") if c["policy"] == "default" else None
            pn = c.get("pnoise")
            w.writerow([run.mode, c["workload"], c["fs"], c["policy"], c["n"],
                        f"{c['base_median']:.3f}", f"{c['base_min']:.3f}", f"{c['base_max']:.3f}",
                        f"{c['other_median']:.3f}", f"{c['other_min']:.3f}", f"{c['other_max']:.3f}",
                        f"{c['ratio']:.4f}", f"{c['ratio_min']:.4f}", f"{c['ratio_max']:.4f}",
                        f"{c['base_nsop']:.1f}", f"{c['other_nsop']:.1f}",
                        f"{n['ratio']:.4f}" if n else "", f"{n['ratio_min']:.4f}" if n else "",
                        f"{n['ratio_max']:.4f}" if n else "",
                        f"{pn['ratio']:.4f}" if pn else "", f"{pn['ratio_min']:.4f}" if pn else "",
                        f"{pn['ratio_max']:.4f}" if pn else ""])
    return comps


def mem_growth(run, fs, idx):
    """Growth over the reproducer's rounds under the default policy, as
    (stock, patched): idx 2 = nr_negative, 3 = active dentry slab in bytes.
    None if either kernel did not run it."""
    s = run.mem.get(("stock", fs, "default"))
    p = run.mem.get(("patched", fs, "default"))
    if not s or not p:
        return None
    sd, pd = s[-1][idx] - s[0][idx], p[-1][idx] - p[0][idx]
    if idx == 3:
        sd, pd = sd * s[-1][5], pd * p[-1][5]
    return sd, pd
