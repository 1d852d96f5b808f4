#!/usr/bin/env python3
"""The report's text and plots (bench/report.py): the headline, the
summary with every table, the gnuplot figures."""
import os
import statistics
import subprocess
import sys

from goals import *  # noqa: F401,F403


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        print(f"report.py: gnuplot failed: {err}", file=sys.stderr)
        return False


def plot_mem(run):
    d = run.d
    series = []
    for (k, fs, pol), pts in sorted(run.mem.items()):
        name = f"mem-{k}-{fs}-{pol}.dat"
        base = pts[0]
        with open(os.path.join(d, "plotdata", name), "w") as f:
            f.write("# round nr_negative_delta nr_dentry_delta slab_active_MiB_delta\n")
            for r, nd, nn, act, tot, size in pts:
                f.write(f"{r} {nn - base[2]} {nd - base[1]} "
                        f"{(act - base[3]) * size / 2**20:.4f}\n")
        series.append((k, fs, pol, name))
    if not series:
        return None
    style = {("stock", "default"): "lc rgb '#d62728' lw 2 pt 7",
             ("patched", "default"): "lc rgb '#1f77b4' lw 2 pt 5",
             ("patched", "all"): "lc rgb '#ff7f0e' lw 1 dt 2 pt 4",
             ("patched", "none"): "lc rgb '#2ca02c' lw 1 dt 3 pt 6"}
    g = [f"set terminal pngcairo size 1500,1100 font ',10'",
         f"set output '{d}/mem.png'",
         "set multiplot layout 3,2 title \"2002 reproducer: growth after each round "
         f"of {run.cfg.get('mem_args', '')} (counts are exact)\"",
         "set grid", "set key top left", "set xlabel 'round'"]
    for fs in FSS:
        for col, ylabel in ((2, "negative dentries (delta)"), (4, "dentry slab MiB (active, delta)")):
            plots = []
            for k, f_, pol, name in series:
                if f_ != fs:
                    continue
                lab = k if k == "stock" else f"patched {policy_name(fs, pol)}"
                plots.append(f"'{d}/plotdata/{name}' using 1:{col} with linespoints "
                             f"{style.get((k, pol), '')} title '{lab}'")
            if plots:
                g.append(f"set title '{fs}'")
                g.append(f"set ylabel '{ylabel}'")
                g.append("plot " + ", ".join(plots))
    g.append("unset multiplot")
    return "mem.png" if gnuplot("\n".join(g) + "\n") else None


# negdir ratios below this are left out of the plots (see plot_ratios)
NEGDIR_PLOT_MIN = 0.5


def plot_ratios(run, comps, policies, out, title, smp=False):
    d = run.d
    # negdir's ratios under lookup (a walk of every cached miss against
    # none: about 0.01 and 0.0001) would squash the scale: they are in
    # summary.md and the headline.  Under tmpfs's default (none) they are
    # about 1 and plotted.  The two-CPU rows (plain TCG, host time) get a
    # plot of their own (smp=True).
    rows = [c for c in comps if c["policy"] in policies
            and not (c["workload"].startswith("negdir") and c["ratio_min"] < NEGDIR_PLOT_MIN)
            and (c["workload"] in SMP) == smp]
    if not rows:
        return None
    name = out.replace(".png", ".dat")
    with open(os.path.join(d, "plotdata", name), "w") as f:
        f.write("# idx label ratio min max noise noise_min noise_max\n")
        for i, c in enumerate(rows):
            n = c.get("noise") if c["policy"] == "default" else None
            lab = f"{c['workload']} {c['fs']}"
            if c["policy"] != "default":
                lab += f" ({c['policy']})"
            f.write(f"{i} \"{lab}\" {c['ratio']:.5f} {c['ratio_min']:.5f} {c['ratio_max']:.5f} "
                    + (f"{n['ratio']:.5f} {n['ratio_min']:.5f} {n['ratio_max']:.5f}\n"
                       if n else "NaN NaN NaN\n"))
    lo = min([c["ratio_min"] for c in rows] + [0.9])
    hi = max([c["ratio_max"] for c in rows] + [1.1])
    g = [f"set terminal pngcairo size {max(900, 28 * len(rows) + 200)},650 font ',9'",
         f"set output '{d}/{out}'",
         f"set title \"{title}\"",
         "set ylabel 'throughput ratio patched/stock (median of per-repetition ratios, bar: min-max)'",
         f"set yrange [{lo - 0.02:.3f}:{hi + 0.02:.3f}]",
         "set xtics rotate by -60 font ',8'", "set grid ytics", "set key top left",
         "set xrange [-1:%d]" % len(rows),
         "set arrow from -1,1 to %d,1 nohead lc rgb 'black'" % len(rows),
         "set arrow from -1,0.97 to %d,0.97 nohead lc rgb 'gray' dt 2" % len(rows),
         "set arrow from -1,0.98 to %d,0.98 nohead lc rgb 'gray' dt 3" % len(rows),
         "set boxwidth 0.35",
         f"plot '{d}/plotdata/{name}' using ($1-0.18):3:xtic(2) with boxes fs solid 0.6 "
         "lc rgb '#1f77b4' title 'patched/stock', "
         f"'' using ($1-0.18):3:4:5 with yerrorbars lc rgb 'black' pt 0 notitle, "
         f"'' using ($1+0.18):6 with boxes fs solid 0.4 lc rgb '#999999' "
         "title 'noise floor: stock/stock', "
         f"'' using ($1+0.18):6:7:8 with yerrorbars lc rgb 'black' pt 0 notitle"]
    return out if gnuplot("\n".join(g) + "\n") else None


BOOT_NAMES = {"stock": "stock", "patched": "patched", "patched-all": "patched negdentry=all",
              "patched-none": "patched negdentry=none",
              "patched-lookup": "patched negdentry=lookup (tmpfs)",
              "stock-b": "stock again (noise floor)"}


def reps_ran(run, boots, cells=()):
    """How many repetitions ran, from the data: 'N repetitions' if every
    boot in BOOTS has results in N, else the minimum and each boot's
    count; CELLS (comparisons) add the fewest pairs a ratio rests on."""
    ran = {b: len(run.reps_ran[b]) for b in boots if b in run.reps_ran}
    conf = run.cfg.get("reps", "?")
    if not ran:
        return "0 repetitions"
    n = min(ran.values())
    if len(set(ran.values())) == 1:
        text = f"{n} repetitions"
        if str(n) != conf:
            text += f" (of {conf} configured)"
    else:
        text = (f"{n} repetitions (the minimum; they differ: "
                + ", ".join(f"{BOOT_NAMES.get(b, b)} {k}" for b, k in ran.items())
                + f"; {conf} configured)")
    pairs = [c["n"] for c in cells]
    if pairs and min(pairs) < n:
        text += f", some ratios over only {min(pairs)} (partial boots)"
    return text


def failed_text(run):
    return "; ".join(f"`{b}` ({why})" for b, why in sorted(run.failed.items()))


def write_headline(run, comps):
    """headline.md: one row per measurement, one column per filesystem."""
    by = {(c["workload"], c["fs"], c["policy"]): c for c in comps}
    rounds = dict(a.split("=") for a in run.cfg.get("mem_args", "").split() if "=" in a)
    rows = []

    def mem_cell(fs, idx):
        g = mem_growth(run, fs, idx)
        if not g:
            return "not run"
        sd, pd = g
        if idx == 3:
            ratio = f"{pd / sd:.4f} " if sd >= 2**20 else ""
            return f"{ratio}({fmt(pd / 1e6, 3)} MB vs {fmt(sd / 1e6, 3)} MB)"
        return f"{fmt(pd, 0)} vs {fmt(sd, 0)}"

    rows.append([f"negative dentries after {rounds.get('ROUNDS', '?')} x {rounds.get('N', '?')} "
                 "create+delete (patched vs stock)", "<= 0.01"]
                + [mem_cell(fs, 2) for fs in FSS])
    rows.append(["dentry slab growth after the same (ratio where stock grows 1 MiB)", "<= 0.01"]
                + [mem_cell(fs, 3) for fs in FSS])

    def pc_cell(fs):
        s, p = run.pc.get(("stock", fs)), run.pc.get(("patched", fs))
        if not s or not p:
            return "not run"
        key = "delta_workingset_refault_file"
        return f"{fmt(p.get(key, 0), 0)} vs {fmt(s.get(key, 0), 0)}"

    rows.append(["hot-file pages refaulted, 256 MiB guest, spool (patched vs stock)", ""]
                + [pc_cell(fs) for fs in FSS])

    def count_cell(fs):
        g = run.count_sum(fs, "patched", "default")
        if not g:
            return "not run"
        sd, pd = g
        cell = f"{fmt(pd, 0)} vs {fmt(sd, 0)}"
        return f"**{cell}**" if fs in COUNT_GOAL[0] and pd > COUNT_GOAL[1] * sd else cell

    rows.append(["negative dentries the spools left, spool + lock file workloads "
                 "(patched vs stock)", f"<= {COUNT_GOAL[1]:.2f}"]
                + [count_cell(fs) for fs in FSS])

    def tool_count_cell(wl, fs):
        sd = run.count("stock", fs, "default", wl)
        pd = run.count("patched", fs, "default", wl)
        if sd is None or pd is None:
            return "not run"
        cell = f"{fmt(pd, 0)} vs {fmt(sd, 0)}"
        goal, fss = BY_NAME[wl].count_goal
        return f"**{cell}**" if fs in fss and pd > goal * sd else cell

    for wl, goal, _ in COUNT_GOALS:
        rows.append([f"negative dentries {wl} left (patched vs stock)",
                     f"<= {goal:.2f}"] + [tool_count_cell(wl, fs) for fs in FSS])
    names = headline_names(run)
    for wl, fss, goal in GOALS:
        row = [names.get(wl, wl), f">= {goal:.2f}"]
        for fs in FSS:
            c = by.get((wl, fs, "default"))
            if not c:
                # negdir: tmpfs only, by design
                row.append("not run" if fs in fss else "-")
                continue
            cell = f"{c['ratio']:.4f} [{c['ratio_min']:.4f}-{c['ratio_max']:.4f}]"
            a = by.get((wl, fs, "all"))
            if fs in fss and c["ratio"] < goal:
                if within_all(c["ratio"], a and a["ratio"], goal):
                    cell += f" (`all` {a['ratio']:.4f})"
                else:
                    cell = f"**{cell}**"
            row.append(cell)
        rows.append(row)
    # no goal: the loop-only windows of always-new names and of the
    # spools (their goal is on the steady state: freeing at unlink is the
    # price of not keeping the names), and the two-CPU rows with their own
    # noise floor (plain TCG: host time); a row without data in any column
    # (a run made before it) is left out
    extra = [(w.name, names[w.name]) for w in REPORT if w.goal is None]
    for wl, label in extra:
        row = [label, "-"]
        for fs in FSS:
            c = by.get((wl, fs, "default"))
            if not c:
                row.append("not run")
                continue
            cell = f"{c['ratio']:.4f} [{c['ratio_min']:.4f}-{c['ratio_max']:.4f}]"
            n = c.get("noise")
            if wl in SMP and n:
                cell += f" (noise {n['ratio']:.3f} [{n['ratio_min']:.3f}-{n['ratio_max']:.3f}])"
            row.append(cell)
        if any(x != "not run" for x in row[2:]):
            rows.append(row)
    shown = {wl for wl, _, _ in GOALS}
    cells = [c for c in comps if c["policy"] == "default" and c["workload"] in shown]
    noise = [c["noise"] for c in cells if c.get("noise")]
    L = []
    if run.failed:
        L.append(f"**FAILED BOOTS: {failed_text(run)}. Their results are missing: "
                 "this run is incomplete.**\n")
    L += [f"Mode: **{run.mode}** (emulated time), "
          f"{reps_ran(run, ['stock', 'patched', 'stock-b'], cells + noise)}; "
          f"kernels `{run.release['stock']}` and `{run.release['patched']}`. Ratios: "
          f"patched under its default policy ({default_text()}) / stock throughput of the "
          "same repetition, median [min-max] of these per-repetition ratios; counts are "
          "exact.\n",
          md_table(["measurement", "goal", "ext2", "ext4", "tmpfs"], rows)]
    if noise:
        med = [n["ratio"] for n in noise]
        L.append(f"Bold: goal missed. A cell followed by (`all` X) is short of its goal "
                 f"but within {ALL_MARGIN:.1%} of the same kernel under negdentry=all, X, "
                 f"itself below the goal: issue 25 counts that as met (the hook's cost, "
                 f"which no policy can avoid). Noise floor of these workloads (stock/stock: second "
                 f"stock boot / first of the same repetition, same mode): medians "
                 f"{min(med):.3f}-{max(med):.3f}, single repetitions "
                 f"{min(n['ratio_min'] for n in noise):.3f}-"
                 f"{max(n['ratio_max'] for n in noise):.3f}"
                 + patched_floor_text(cells) + ".\n")
    L += opt_in_section(run, comps, names)
    with open(os.path.join(run.d, "headline.md"), "w") as f:
        f.write("\n".join(L))


def tput_arg(run, key, default="?"):
    """A size from config.txt's tput_args (NEGDIR_MISSES=100000 ...)."""
    args = dict(a.split("=", 1) for a in run.cfg.get("tput_args", "").split() if "=" in a)
    return args.get(key, default)


def misses(run):
    """NEGDIR_MISSES, as "100,000"."""
    n = tput_arg(run, "NEGDIR_MISSES")
    return f"{int(n):,}" if n.isdigit() else n


def headline_names(run):
    """The headline's name of each workload (workloads.py), {misses} as the
    run's NEGDIR_MISSES."""
    return {w.name: w.headline.format(misses=misses(run)) for w in REPORT}


def opt_in_section(run, comps, names):
    """headline.md's lines on each filesystem whose default policy is not
    lookup (tmpfs) under negdentry=lookup, its opt-in (boot
    patched-lookup): every workload that boot ran, patched/stock against
    the same stock boots as the default, next to the default's ratio; a
    note where the run has no such boot (a run made before it)."""
    by = {(c["workload"], c["fs"], c["policy"]): c for c in comps}
    L = []

    def cell(c):
        if not c:
            return "not run"
        return f"{c['ratio']:.4f} [{c['ratio_min']:.4f}-{c['ratio_max']:.4f}]"

    for fs in OPT_IN:
        pol, dflt = "lookup", DEFAULT_POLICY[fs]
        wls = [w for w, _, _ in WORKLOADS if (w, fs, pol) in by]
        head = (f"**{fs} under `negdentry={pol}`**, its opt-in (the default is "
                f"`{dflt}`, stock's behaviour)")
        if not wls:
            if "tput_boots" in run.cfg:
                why = "the boot failed"
            else:
                # DEFAULT_POLICY is what the series documents now, not
                # what this run's kernel did
                why = (f"the run was made before that boot was added, and its kernel may "
                       f"be of the series before {fs}'s default became `{dflt}`: its {fs} "
                       f"column above then measured `{pol}`")
            L.append(f"{head}: not in this run (no `patched-{pol}` boot with results: "
                     f"{why}).\n")
            continue
        cells = [by[(w, fs, pol)] for w in wls]
        L.append(f"{head}: boot `patched-{pol}`, which runs {fs}'s workloads and then the "
                 f"readdir/rmdir test, {fs} only; "
                 f"{reps_ran(run, ['stock', 'patched-' + pol], cells)}. Ratios: patched "
                 "/ stock of the same repetition (the same stock boots as above), median "
                 "[min-max]; no goals: the gain on lookup misses, and what the cached "
                 "misses cost readdir and rmdir of their directory.\n")
        rows = [[names.get(w, w), cell(by.get((w, fs, "default"))), cell(by[(w, fs, pol)])]
                for w in wls]
        sc = run.count("stock", fs, "default", "negdir-misses")
        if sc is not None:
            def negs(p):
                n = run.count("patched", fs, p, "negdir-misses")
                return "not run" if n is None else f"{fmt(n, 0)} vs {fmt(sc, 0)}"
            rows.append([f"negative dentries the {misses(run)} lookup misses left, before "
                         "the readdirs (patched vs stock)", negs("default"), negs(pol)])
        L.append(md_table(["measurement", f"{fs}, `{dflt}` (default) / stock",
                           f"{fs}, `{pol}` (opt-in) / stock"], rows))
    return L


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def write_summary(run, comps, pngs):
    d = run.d
    mode = run.mode
    timing = ("QEMU TCG with `-icount shift=0`, one CPU: guest time = instructions "
              "executed (1 ns each); ops/s are emulated" if mode == "icount" else
              "plain QEMU TCG (no icount), one CPU: ops/s are emulated and depend on the "
              "host's load (the host is shared)")
    L = []
    L.append(f"# Negative dentry series: benchmark report\n")
    if run.failed:
        L.append(f"> **FAILED BOOTS** ({len(run.failed)}): {failed_text(run)}.\n>\n"
                 "> Their results are missing or partial: the tables below rest on the "
                 "boots that worked, some ratios on fewer repetitions. `report.py "
                 "--publish` refuses this run.\n")
    L.append(f"- Kernels: stock `{run.release['stock']}`, patched `{run.release['patched']}`")
    L.append(f"- QEMU: {run.cfg.get('qemu', '?')}; host: {run.cfg.get('host_cpus', '?')} CPUs "
             f"({run.cfg.get('host_cpu', '?')})")
    L.append(f"- Throughput mode: **{mode}** ({timing}). Repetitions that ran: "
             f"{reps_ran(run, list(run.reps_ran))}; "
             "boots interleaved stock, patched (default policy), patched under negdentry=all, "
             "patched under negdentry=none, patched under negdentry=lookup on tmpfs only "
             "(tmpfs's opt-in; runs made before it lack it), stock (the second stock boot is "
             "the noise floor); each boot runs its own policy's workloads first, at the same "
             "point of the boot. The tmpfs-only boot reaches tmpfs's workloads without "
             "ext2's and ext4's before them, and its readdir/rmdir test without the tools; "
             "its ratios compare it with the same stock boots, which had them.")
    L.append(f"- Counts (memory, page cache) come from plain TCG boots (one CPU); they "
             "do not depend on timing and are exact.")
    L.append(f"- Date {run.cfg.get('date', '?')}; whole run took "
             f"{kv_file(os.path.join(d, 'config.txt')) and open_or(os.path.join(d, 'host-seconds'))} s "
             f"of host time (jobs={run.cfg.get('jobs')}, quick={run.cfg.get('quick')}).")
    L.append(f"- Sizes: tput `{run.cfg.get('tput_args')}`; mem `{run.cfg.get('mem_args')}`; "
             f"pc `{run.cfg.get('pc_args')}`.")
    L.append("")
    L.append("**What the timings are.** Every ops/s below is emulated guest time. Under "
             "icount it counts instructions: it shows path length (extra code, extra "
             "directory searches, extra allocations) exactly, but models no cache "
             "misses, no memory latency, no lock contention and no multi-core effects "
             "(one vCPU): the d_lock that 6.1's `fast_dput()` takes for a dentry with "
             "`->d_delete` costs only its instructions here, never a contended cache "
             f"line. \"policy\" is the patched kernel's `negdentry=` (the default: "
             f"{default_text()}, as the series documents it); "
             "stock is always its default and is the denominator of every ratio. "
             "Ratios are per repetition, patched/stock of the same repetition (the "
             "noise floor: the second stock boot over the first of the same "
             "repetition); a ratio cell is the median of these per-repetition ratios "
             "and their min-max, not the ratio of the two medians. Throughput cells "
             "are median [min-max] over repetitions. ns/op under icount = guest instructions per "
             "operation (user + kernel).\n")
    L.append(f"## Goals (patched/stock, default policy: {default_text()})\n")
    L.append(md_table(["measurement", "goal", "patched/stock [min-max]", "result"],
                      goal_rows(run, comps)))
    judged, outside, frows = floor_rows(run, comps)
    L.append("## The instrument: noise floors\n")
    L.append(f"Issue 24's goal for the instrument: each row's stock/stock median within "
             f"{FLOOR_GOAL * 100:.1f} % of 1.000 (the second stock boot of a repetition "
             f"over the first), its spread stated. **{judged - outside} of {judged} rows** "
             f"have it and every patched/patched median (each policy's patched boot, "
             f"repetition i+1 over i) within it too. The {outside} others are listed here "
             f"with what is known of why (**outside**: the stock/stock median misses). "
             f"The sections below give every row's floors and spread.\n")
    if frows:
        L.append(md_table(["workload", "fs", "stock/stock median [min-max]",
                           "patched/patched outside the goal, per policy",
                           "most idle ms / virtio interrupts in one window; RCU softirqs "
                           "per window, min-max", "why"],
                          frows))

    # ---- memory
    L.append("## 1. Memory: the 2002 reproducer\n")
    L.append(f"{run.cfg.get('mem_args', '')}: each round creates N random names "
             "(8 hex digits, like `>$RANDOM`) and deletes them all; counters from "
             "/proc/sys/fs/dentry-state and the `dentry` line of /proc/slabinfo, "
             "**slab bytes = active_objs x objsize** (num_objs x objsize in mem.csv). "
             "Counters are global; the table shows growth since round 0 on a quiet guest "
             "(the filesystem is freshly mounted for each run and unmounted after). "
             "Counts are exact (not timings).\n")
    mrows = []
    for fs in FSS:
        for k, pol in (("stock", "default"), ("patched", "default"), ("patched", "all"),
                       ("patched", "none")):
            pts = run.mem.get((k, fs, pol))
            if not pts:
                continue
            b, e = pts[0], pts[-1]
            sd = run.mem.get(("stock", fs, "default"))
            neg = e[2] - b[2]
            slab = (e[3] - b[3]) * e[5]
            ratio_neg = ratio_slab = "-"
            if sd and k == "patched":
                sneg = sd[-1][2] - sd[0][2]
                sslab = (sd[-1][3] - sd[0][3]) * sd[-1][5]
                ratio_neg = f"{neg / sneg:.4f}" if sneg >= 1000 else "n/a"
                ratio_slab = f"{slab / sslab:.4f}" if sslab >= 2**20 else "n/a"
            polname = policy_name(fs, pol) if k == "patched" else pol
            mrows.append((fs, k, polname, len(pts) - 1, fmt(neg, 0), fmt(e[1] - b[1], 0),
                          f"{slab / 2**20:.2f}", ratio_neg, ratio_slab))
    L.append(md_table(["fs", "kernel", "policy", "rounds", "nr_negative growth",
                       "nr_dentry growth", "dentry slab growth MiB", "ratio negatives",
                       "ratio slab"], mrows))
    if "mem.png" in pngs:
        L.append("![memory over rounds](mem.png)\n")

    # ---- page cache
    L.append("## 2. Page cache protection\n")
    L.append(f"256 MiB guest (plain TCG, one CPU), `{run.cfg.get('pc_args', '')}`: a "
             "hot file on ext4 (HOT_MIB) is read twice, then a spool workload creates and "
             "unlinks SPOOL_OPS always-new 250-byte names (each negative dentry also holds "
             "an external name buffer, so stock fills memory sooner), reading the whole hot "
             "file after every CHUNK. Evicted = hot pages re-read from disk "
             "(`workingset_refault_file` delta, in pages) and the lowest mincore() "
             "residency seen before a re-read. Counts, not timings.\n")
    prow = []
    for fs in FSS:
        for k in ("stock", "patched"):
            v = run.pc.get((k, fs))
            if not v:
                continue
            hot = v.get("hot_pages", 0) or 1
            rmin = v.get("resident_min", 0)
            prow.append((fs, k, v.get("hot_pages", "?"),
                         fmt(v.get("delta_workingset_refault_file", 0), 0),
                         f"{100 * v.get('delta_workingset_refault_file', 0) / hot / max(1, v.get('hot_reads', 1)):.2f}%",
                         f"{100 * (hot - rmin) / hot:.2f}%",
                         fmt(v.get("delta_pgpgin", 0) / 1024, 1),
                         fmt(v.get("delta_pgscan_kswapd", 0) + v.get("delta_pgscan_direct", 0), 0),
                         fmt(v.get("delta_allocstall_movable", 0) + v.get("delta_allocstall_normal", 0), 0),
                         fmt(v.get("nr_negative_end", 0), 0),
                         fmt(v.get("sreclaimable_after_kb", 0) / 1024, 1),
                         "ok" if v.get("boot_ok") else "FAILED"))
    L.append(md_table(["spool fs", "kernel", "hot pages", "refaults (pages)",
                       "refaults per hot read", "max evicted (mincore)", "MiB read from disk",
                       "pages scanned", "alloc stalls", "nr_negative at end",
                       "SReclaimable at end MiB", "boot"], prow))

    # ---- throughput tables
    unit_mode = "emulated, " + ("icount" if mode == "icount" else "plain TCG")
    workload_tables(L, run, comps, [w for w in REPORT if not (w.late or w.smp)], unit_mode)
    stress_table(L, comps, unit_mode)
    workload_tables(L, run, comps, [w for w in REPORT if w.late], unit_mode)
    workload_tables(L, run, comps, [w for w in REPORT if w.smp],
                    "emulated, plain TCG, 2 vCPUs: host time, see the noise floor")
    if "ratios.png" in pngs:
        L.append("## Plots\n")
        L.append("![throughput ratios](ratios.png)\n")
    if "policies.png" in pngs:
        L.append("![ratios under negdentry=all, none and lookup](policies.png)\n")
    if "smp.png" in pngs:
        L.append("![two threads on 2 vCPUs](smp.png)\n")
    L.append("## Files\n")
    L.append("data.csv (every timed result), ratios.csv, mem.csv, pc.csv, config.txt, "
             "plotdata/ (gnuplot inputs); per boot: mem/KERNEL/, pc/KERNEL-FS/, "
             "tput/rREP-BOOT/ with console.log, guest.log, raw.txt, mounts.txt, "
             "stress-ng YAML and the tools' output (fsmark-FS.log, postmark-FS.log, "
             "dbench-FS.log).\n")
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write("\n".join(L))


def workload_tables(L, run, comps, workloads, unit_mode):
    for w in workloads:
        wl, title, unit = w.name, w.title, w.unit
        rows = []
        for c in comps:
            if c["workload"] != wl:
                continue
            n = c.get("noise") if c["policy"] == "default" else None
            extra = []
            if wl in SHOWN_COUNTS:
                cl = COUNT_LABEL.get(wl, wl)
                sc = run.count("stock", c["fs"], "default", cl)
                pc = run.count("patched", c["fs"], c["policy"], cl)
                extra = [f"{fmt(sc, 0) if sc is not None else '-'} / "
                         f"{fmt(pc, 0) if pc is not None else '-'}"]
            rows.append(tuple(extra) + (c["fs"], policy_name(c["fs"], c["policy"]),
                         f"{fmt(c['base_median'])} [{fmt(c['base_min'])}-{fmt(c['base_max'])}]",
                         f"{fmt(c['other_median'])} [{fmt(c['other_min'])}-{fmt(c['other_max'])}]",
                         f"**{c['ratio']:.4f}** [{c['ratio_min']:.4f}-{c['ratio_max']:.4f}]"
                         + few(c, comps),
                         f"{c['base_nsop']:,.0f} / {c['other_nsop']:,.0f} "
                         f"({c['other_nsop'] - c['base_nsop']:+,.0f})",
                         floor_cell(n) + few(n, comps) if n else "-",
                         floor_cell(c.get("pnoise"))))
        if not rows:
            continue
        # counts first in the tuple: move them to the last column
        if wl in SHOWN_COUNTS:
            rows = [r[1:] + r[:1] for r in rows]
        L.append(f"## {w.section}. {title}\n")
        ns = sorted({c["n"] for c in comps if c["workload"] == wl})
        L.append(f"{unit} ({unit_mode}); median [min-max] over "
                 f"{ns[0] if len(ns) == 1 else f'{ns[0]}-{ns[-1]}'} repetitions; ratio: "
                 "median [min-max] of the per-repetition ratios.\n")
        if w.note:
            L.append(w.note + "\n")
        idle = run.count_values(wl, "idle_ms")
        if idle:
            irqs = run.count_values(wl, "virtio_irqs")
            host = (f" Virtio interrupts inside it (virtio_irqs: the host root's 9p "
                    f"replies): {min(irqs):,}-{max(irqs):,}." if irqs else "")
            rcu = run.count_values(wl, "rcu_softirqs")
            if rcu:
                host += (f" RCU softirqs inside it (rcu_softirqs: RCU's core work and the "
                         f"callbacks that free what unlinks released): "
                         f"{min(rcu):,}-{max(rcu):,}.")
            L.append(f"Idle time inside the timed window (ndbench's count idle_ms, from "
                     f"/proc/stat: 10 ms steps), over every boot and filesystem: median "
                     f"{statistics.median(idle):,.0f} ms, {min(idle):,}-{max(idle):,} ms. "
                     f"Under -icount sleep=off an idle vCPU moves the guest clock to its "
                     f"next timer: a window with idle time waited for something, and its "
                     f"ratio carries that wait.{host}\n")
        first = max(run.count_values(wl, "first_removals"), default=None)
        if first is not None:
            ops = max(r[5] for r in run.rows if r[4] == wl)
            L.append(f"Measured in the steady state: the timed pairs follow a warm-up of "
                     f"max(5 x NFILES, OPS/4) pairs, so that the window's removals are "
                     f"rarely a name's first (which no policy can keep a negative dentry "
                     f"for). The most of them in any boot, filesystem and policy: "
                     f"{first} of the window's {ops:,} removals ({first / ops:.4f}).\n")
        if wl in COUNTED:
            L.append("Last column: negative dentries left by the timed loop "
                     "(nr_negative after - before, median over repetitions), stock / "
                     "patched under the row's policy; the spool's always-new names "
                     "make up all but at most one of them (the lock file's).\n")
        elif wl in SHOWN_COUNTS:
            L.append("Last column: negative dentries left (global nr_negative after - "
                     "before, median over repetitions; exact counts), stock / patched."
                     + (" For readdir: those the misses left, before the readdirs; for "
                        "rmdir: after the rmdir, against before the misses."
                        if wl.startswith("negdir") else "") + "\n")
        L.append(md_table(["fs", "patched policy", f"stock {unit}", f"patched {unit}",
                           "ratio patched/stock", "guest ns/op stock / patched (diff)",
                           "noise floor stock/stock", PATCHED_FLOOR]
                          + (["negative dentries left, stock / patched"]
                             if wl in SHOWN_COUNTS else []), rows))


def stress_table(L, comps, unit_mode):
    rows = []
    for c in comps:
        if not c["workload"].startswith("stress-"):
            continue
        n = c.get("noise")
        rows.append((c["workload"][7:],
                     f"{fmt(c['base_median'])} [{fmt(c['base_min'])}-{fmt(c['base_max'])}]",
                     f"{fmt(c['other_median'])} [{fmt(c['other_min'])}-{fmt(c['other_max'])}]",
                     f"**{c['ratio']:.4f}** [{c['ratio_min']:.4f}-{c['ratio_max']:.4f}]"
                     + few(c, comps),
                     floor_cell(n) + few(n, comps) if n else "-",
                     floor_cell(c.get("pnoise"))))
    if rows:
        L.append("## 7. stress-ng on ext4 (default policy)\n")
        L.append(f"bogo-ops/s ({unit_mode}) over each stressor's own wall clock in the guest "
                 "(guest time), one instance, fixed `--<stressor>-ops`; median [min-max]; "
                 "ratio: median [min-max] of the per-repetition ratios. "
                 "Where a stressor waits for I/O the guest idles, and under icount idle "
                 "time runs at host speed: such stressors carry host noise (see the noise "
                 "floor).\n")
        L.append(md_table(["stressor", "stock bogo-ops/s", "patched bogo-ops/s",
                           "ratio patched/stock", "noise floor stock/stock", PATCHED_FLOOR],
                          rows))


# the patched/patched floor's column: the patched boot of the row's policy
# in one repetition against the next (benchdata.Run.repeat)
PATCHED_FLOOR = "noise floor patched/patched (repetition i+1 / i)"


def floor_cell(n):
    return f"{n['ratio']:.4f} [{n['ratio_min']:.4f}-{n['ratio_max']:.4f}]" if n else "-"


def patched_floor_text(cells):
    """The patched/patched floor of the headline's rows, as a clause."""
    pn = [c["pnoise"] for c in cells if c.get("pnoise")]
    if not pn:
        return ""
    med = [n["ratio"] for n in pn]
    return (f"; patched/patched (repetition i+1 / i, default policy): medians "
            f"{min(med):.3f}-{max(med):.3f}, single pairs "
            f"{min(n['ratio_min'] for n in pn):.3f}-{max(n['ratio_max'] for n in pn):.3f}")


def few(c, comps):
    """' (N reps)' after a ratio that rests on fewer repetitions than others."""
    most = max(x["n"] for x in comps)
    return f" ({c['n']} reps)" if c["n"] < most else ""


def open_or(path, default="?"):
    try:
        with open(path) as f:
            return f.read().strip()
    except FileNotFoundError:
        return default
