#!/usr/bin/env python3
"""What the benchmarks measure, declared once: the filesystems and
policies, every timed workload of the tput and smp parts (one Workload
each: how it runs, its sizes, title, unit, goal, notes), and the goals
on counts.  Everything else is derived from these declarations:

- bench/run.sh takes the sizes (`workloads.py sizes quick|full`: the
  tput_args of config.txt) and the guest's run list (`workloads.py runs
  quick|full`: one line per ndbench call, which bench/guest.sh's tput
  part runs in order);
- the report (bench/report.py) takes the rows, their order and sections,
  the goals, the headline's names and the summary's notes.

Adding a timed workload is its function in bench/ndbench.c (with its
line in main()) and one Workload below; bench/README.md describes it
under its section number."""
import re
import sys
from dataclasses import dataclass, field

FSS = ["ext2", "ext4", "tmpfs"]
# The patched kernel's default policy per filesystem, as the series
# documents it (tmpfs: none, stock's behaviour; negdentry=lookup is its
# opt-in).  Declared here, not read from the results: every label "...
# (default)" comes from it, also for a run of an earlier version of the
# series (before the change, tmpfs's default was lookup).
DEFAULT_POLICY = {"ext2": "lookup", "ext4": "lookup", "tmpfs": "none"}
# the patched kernel's policies in a run: "default" (the boot patched),
# negdentry= values (patched-all, patched-none, patched-lookup)
POLICIES = ["default", "all", "none", "lookup"]
# the tput boots of every repetition (bench/run.sh, its config.txt
# "tput_boots="); a run made before patched-lookup (tmpfs's opt-in, tmpfs
# only) has no tput_boots line and these
TPUT_BOOTS_BEFORE = ["stock", "patched", "patched-all", "patched-none", "stock-b"]
# the filesystems whose default is not lookup, and the boot that runs them
# under negdentry=lookup (their opt-in): a section of their own in the
# headline
OPT_IN = [fs for fs in FSS if DEFAULT_POLICY[fs] != "lookup"]
STEADY_STATE = ", then the reclaim of what they left (steady state)"

# The tput part's sizes, in config.txt's order: KEY -> (quick, full).
# The ndbench workloads' runs below name them; bench/guest.sh reads the
# others (stress-ng's SNG_*, the tools' FSMARK_*, PM_*, DBENCH_*, and
# NEGDIR_* of the tmpfs readdir/rmdir test).
SIZES = {
    "MISS": (10000, 30000), "RELOCK": (500, 1500), "FILESET": (500, 1500),
    "WEBPROXY": (150, 400), "NEWNAMES": (500, 1500), "STAT": (8000, 30000),
    "OPENCLOSE": (5000, 15000),
    # the fileset's names, and the existing files stat and openclose use
    "NFILES": (500, 1000),
    # iterations of mixlock/mixlocksame at 1:1 (4:1 and 1:4 do 2/5 as
    # many: the same number of create+unlink cycles)
    "MIXLOCK": (250, 750), "HELDLOCK": (250, 750),
    "SHORTFILESET": (1000, 3000), "SHORT_NFILES": (100, 100),
    "SNG_DENTRY": (300, 500), "SNG_TOUCH": (300, 500), "SNG_FILENAME": (50, 100),
    "SNG_LINK": (1, 1), "SNG_RENAME": (300, 500), "SNG_DIR": (150, 300),
    "FSMARK_DIRS": (4, 4), "FSMARK_N": (250, 1000), "PM_NUMBER": (200, 500),
    "PM_TRANS": (800, 2000), "DBENCH_T": (2, 2), "DBENCH_CLIENTS": (1, 1),
    "NEGDIR_MISSES": (20000, 100000), "NEGDIR_FILES": (10, 10), "NEGDIR_PASSES": (100, 100),
    "NEGDIR_RMDIRS": (100, 100),
}


@dataclass
class Workload:
    """One timed result line of ndbench (result FS POLICY NAME OPS NS).

    run      the ndbench call of the tput part that prints it: "WORKLOAD
             ARGS", each {EXPR} an expression of SIZES (None: printed by
             another workload's call, or by bench/guest.sh's own code for
             the tools, readdir/rmdir and the smp part)
    every    run under every policy's boot (False: the default policy
             only: existing files never reach the policy switch)
    section  bench/README.md's measurement it is described under (the
             summary's tables come in this order)
    headline its name in the headline (and in the opt-in section)
    goal     minimum patched/stock under the default policy, on goal_fss
             (None: no goal)
    note     the summary's paragraph under its table
    spool    a spool + lock file workload: ndbench counts the negative
             dentries its spool left (count WORKLOAD negative_delta) and
             prints WORKLOAD-reclaim, its steady state, a row of its own
    late     its table comes after stress-ng's (the field's tools and the
             tmpfs readdir/rmdir test) and it shows its counts
    smp      the smp part's (2 vCPUs, plain TCG): tables, plot and
             headline rows of their own
    count_label  the count line its table shows (default: its own)
    count_goal   (maximum patched/stock, filesystems) of the negative
             dentries it left, default policy
    floor_why    why its noise floors may stray from 1.000 (the
             instrument's section lists a row outside FLOOR_GOAL with
             this, or as not explained)"""
    name: str
    title: str
    unit: str
    section: int
    headline: str
    run: str = None
    every: bool = True
    goal: float = None
    goal_fss: list = field(default_factory=lambda: FSS)
    note: str = None
    spool: bool = False
    late: bool = False
    smp: bool = False
    count_label: str = None
    count_goal: tuple = None
    floor_why: str = None


def spool_lock(name, title, headline, run):
    """A spool + lock file workload and its steady state: the goal is on the
    steady state (issue 25's table: freeing at unlink is the price of not
    keeping the spool's names, so the loop alone is reported without one)."""
    return [Workload(name, title, "iterations/s", 4, headline, run=run, spool=True),
            Workload(name + "-reclaim", title + STEADY_STATE, "iterations/s", 4,
                     headline + STEADY_STATE, goal=0.99, note=(
                         f"The `{name}` loop of the table above, plus `echo 2 > "
                         "/proc/sys/vm/drop_caches` right after it, timed together (as "
                         "`newnames-reclaim`): stock leaves one negative dentry per spool "
                         "name (ext2, ext4) and frees it here (as memory pressure would, "
                         "later); patched freed it at each unlink, inside the loop. The "
                         "table above's ratio is the short window, this one the steady "
                         "state; the negative dentries counted above were taken before the "
                         "reclaim."))]


def mixes(same):
    """mixlock (two directories) or mixlocksame (one) at 1:1, 4:1, 1:4."""
    w, where, short = (("mixlocksame", "one directory", "one dir") if same else
                       ("mixlock", "two directories", "two dirs"))
    out = []
    for spool, lock, n in ((1, 1, "{MIXLOCK}"), (4, 1, "{MIXLOCK*2//5}"),
                           (1, 4, "{MIXLOCK*2//5}")):
        out += spool_lock(f"{w}-{spool}:{lock}",
                          f"Spool + lock file, {spool}:{lock}, {where}",
                          f"spool + lock file, {spool}:{lock}, {short}",
                          f"{w} {spool} {lock} {n}")
    return out


SMP_NOTE = (
    "Two threads at once, each SMP_OPS x {what}, in a guest with 2 vCPUs under plain "
    "TCG (icount runs one vCPU), boots one at a time on an otherwise idle host: with "
    "`->d_delete` set, every final dput() takes the dentry's d_lock, which the two CPUs "
    "then share. Host time, not instructions: only a ratio outside the stock/stock noise "
    "floor means something. Default policy only.")


def smp_row(op, files, what, unit):
    n = "one file" if files == 1 else f"{files} files"
    title = f"2 vCPUs: two threads {op} {n}"
    return Workload(f"smp{'stat' if op == 'stat()' else 'open'}-{files}", title, unit, 10,
                    "2 vCPUs, plain TCG, noise floor in brackets: " + title.split(": ", 1)[1],
                    smp=True, note=SMP_NOTE.format(what=what.format(n=n)),
                    floor_why="host time: 2 vCPUs under plain TCG (icount has one)")


# The timed workloads, in the order the tput part runs them (bench/guest.sh);
# the report shows them by section, in this order within one.
DECLARED = [
    Workload("miss", "Lookup misses (PATH-like stat of missing names)", "stat calls/s", 3,
             "lookup misses", run="miss {MISS}", goal=0.99, goal_fss=["ext2", "ext4"]),
    Workload("relock", "Delete-then-create, same name at once (lock file)",
             "create+unlink/s", 4, "delete-then-create, same name at once (lock file)",
             run="relock {RELOCK}", goal=0.99),
    Workload("fileset", "Delete-then-create, names back after others (fileset)",
             "delete+create/s", 4, "delete-then-create, names back after others (fileset)",
             run="fileset {NFILES} {FILESET}", goal=0.99),
    Workload("webproxy", "Delete-then-create with data and reads (webproxy-like)",
             "iterations/s", 4, "webproxy-like (fileset + write + reads)",
             run="webproxy {NFILES} {WEBPROXY}", goal=0.99),
    Workload("newnames", "Always-new names (create, close, unlink)", "create+unlink/s", 5,
             "always-new names", run="newnames {NEWNAMES}"),
    # the goal is on the steady state, as on the spool rows
    Workload("newnames-reclaim",
             "Always-new names, then the reclaim of what they left (steady state)",
             "create+unlink/s", 5, "always-new names" + STEADY_STATE, goal=0.99, note=(
                 "The always-new names loop of section 5, plus `echo 2 > "
                 "/proc/sys/vm/drop_caches` right after it, timed together: stock leaves "
                 "one negative dentry per name and frees it here (as memory pressure would, "
                 "later); patched freed it at each unlink, inside the loop. Section 5's ratio "
                 "is the short window, this one the steady state.")),
    # a spool next to a lock file (SPOOL:LOCK per iteration), in two
    # directories and in one; a lock file unlinked while open; a short
    # fileset of names that come back soon
    *mixes(False), *mixes(True),
    *spool_lock("heldlock", "Lock file unlinked while open, + spool",
                "spool + lock file unlinked while open", "heldlock {HELDLOCK}"),
    Workload("shortfileset", "Short fileset (random create/unlink of few names)", "toggles/s",
             4, "short fileset (random create/unlink of few names)",
             run="shortfileset {SHORT_NFILES} {SHORTFILESET}", goal=0.99),
    Workload("stat", "stat() of existing files (cost of ->d_delete)", "stat/s", 6,
             "stat() of existing files", run="stat {NFILES} {STAT}", every=False, goal=0.98),
    Workload("openclose", "open()+close() of existing files (cost of ->d_delete)",
             "open+close/s", 6, "open+close of existing files",
             run="openclose {NFILES} {OPENCLOSE}", every=False, goal=0.98),
    # the field's tools (bench/guest.sh's tools(): default policy only)
    Workload("fsmark", "fs_mark: create empty files in 4 directories (one thread each), then "
             "unlink them all", "files/s", 8, "fs_mark create + unlink (files/s)", goal=0.99,
             late=True, count_goal=(0.01, ["ext2", "ext4"]), note=(
                 "`fs_mark -S0 -k -s 0 -n FSMARK_N -L 1 -d DIR1 .. -d DIR4` (no sync, empty "
                 "files, one thread per directory), then every file it made unlinked; "
                 "files/s = FSMARK_DIRS x FSMARK_N over the guest time of both (timed from "
                 "outside: fs_mark's own files/s covers only the creates). Default policy "
                 "only. On ext2 some windows run 8-17 % longer with no idle time, no "
                 "virtio interrupt and no more RCU softirqs in them, on both kernels: more "
                 "guest instructions, from a source not yet found (see floor_why); the "
                 "ext2 row's floors show it."),
             floor_why=("on ext2 some fs_mark windows run 8-17 % longer: more guest "
                        "instructions, with no idle time, no host interrupt and no more RCU "
                        "softirqs. Ruled out by ad hoc runs (stock 6.1, 6-8 runs per "
                        "variant): its names (the clock set to the same second and random() "
                        "seeded alike before each run), its four processes (one process in "
                        "one directory spreads as much) and the directories' block group "
                        "(the image's bench/ folder); source not found. Elsewhere its "
                        "windows stray by less than 1 %, not investigated")),
    Workload("postmark", "postmark: mail-spool load (create, delete, read, append)",
             "transactions/s", 8, "postmark (transactions/s)", goal=0.99, late=True,
             count_goal=(0.01, ["ext2", "ext4"]), note=(
                 "`set number PM_NUMBER`, `set transactions PM_TRANS`, `set size PM_SIZE`, "
                 "`set seed 42`, location on the filesystem; transactions/s = PM_TRANS over "
                 "the guest time of the whole run (initial creates, transactions, deletes), "
                 "timed from outside: postmark's own rates are in whole seconds. Default "
                 "policy only.")),
    Workload("dbench", "dbench: file-server load (client.txt), dbench's own throughput",
             "kB/s", 8, "dbench (its MB/s)", goal=0.99, late=True, note=(
                 "`dbench -c /usr/share/dbench/client.txt -t DBENCH_T DBENCH_CLIENTS`: "
                 "dbench's own `Throughput` (MB/s x 1000 = kB/s), measured by dbench in guest "
                 "time (DBENCH_T guest seconds); dbench cleans up (deltree) at the end. "
                 "Default policy only.")),
    # the cached misses of negdentry=lookup on tmpfs stay in the
    # directory's children, which readdir and rmdir walk: tmpfs's default
    # (none) must not pay for them ({misses}: NEGDIR_MISSES of the run)
    Workload("negdir-readdir", "tmpfs: readdir of a small directory after lookup misses in it",
             "readdirs/s", 9, "readdir of a small directory after {misses} lookup misses "
             "in it (tmpfs)", goal=0.95, goal_fss=["tmpfs"], late=True,
             count_label="negdir-misses", note=(
                 "tmpfs only: NEGDIR_FILES files in a directory, stat() of NEGDIR_MISSES "
                 "never-existing names in it (untimed), then NEGDIR_PASSES x "
                 "opendir+readdir+closedir; ns/op = one readdir (readdir walks the "
                 "directory's negative children, the cached misses: dcache_readdir on 6.1, "
                 "offset_iterate_dir on 6.12). Stock tmpfs caches no misses, nor does "
                 "patched tmpfs under its default (none: goal >= 0.95 of stock); under "
                 "negdentry=lookup, its opt-in, it keeps them (boot patched-lookup, tmpfs "
                 "only: see Throughput mode above). Not run under all and none.")),
    Workload("negdir-rmdir", "tmpfs: rmdir of small directories after lookup misses in them",
             "rmdir/s", 9, "rmdir of small directories, their files unlinked, after "
             "{misses} lookup misses in them (tmpfs)", goal=0.95,
             goal_fss=["tmpfs"], late=True, note=(
                 "tmpfs only: NEGDIR_RMDIRS directories of NEGDIR_FILES files each, "
                 "NEGDIR_MISSES / NEGDIR_RMDIRS never-existing names stat()ed in each and "
                 "the files unlinked (untimed), then an rmdir of each (ns/op: one rmdir; "
                 "vfs_rmdir's shrink_dcache_parent frees the cached misses, and "
                 "simple_empty walks them first). One rmdir of an empty directory is a few "
                 "thousand instructions, and on 6.12 it took one of a few values 8 % apart "
                 "from boot to boot; NEGDIR_RMDIRS of them average that out. Default "
                 "policy (goal >= 0.95) and negdentry=lookup, as the readdirs.")),
    # the smp part (bench/run.sh: plain TCG, 2 vCPUs): ndbench smp N
    # prints both rows of N files
    smp_row("stat()", 1, "stat() of {n}", "stat/s"),
    smp_row("stat()", 8, "stat() of {n}, round robin", "stat/s"),
    smp_row("open()+close()", 1, "open(O_RDONLY)+close() of {n}", "open+close/s"),
    smp_row("open()+close()", 8, "open(O_RDONLY)+close() of {n}, round robin",
            "open+close/s"),
]
# the report's order: by section, the declaration's within one
REPORT = sorted(DECLARED, key=lambda w: w.section)
BY_NAME = {w.name: w for w in REPORT}

# the names the report's parts use
WORKLOADS = [(w.name, w.title, w.unit) for w in REPORT]
STRESSORS = ["dentry", "touch", "filename", "link", "rename", "dir"]
STRESS_FLOOR_WHY = ("stress-ng's own rate (bogo ops over its worker's clock, its fork and "
                    "exit included); not investigated: a field tool, shown as it runs")
# the workloads that print "count WORKLOAD negative_delta N": the negative
# dentries their spools left (nr_negative after the timed loop - before)
COUNTED = [w.name for w in REPORT if w.spool]
# their steady state, as newnames-reclaim (ndbench's "result WORKLOAD-reclaim":
# the timed loop, then echo 2 > drop_caches, timed together from the same
# start): runs made before them have none
MIX_RECLAIM = {w + "-reclaim": w for w in COUNTED}
LATE = [w.name for w in REPORT if w.late]
# workloads whose tables show the negative dentries left (count lines):
# the mix workloads, the tools (nr_negative after the tool and, for
# fs_mark, the unlink of its files - before) and negdir (after rmdir -
# before the misses)
SHOWN_COUNTS = COUNTED + LATE
SMP = [w.name for w in REPORT if w.smp]
COUNT_LABEL = {w.name: w.count_label for w in REPORT if w.count_label}
# (workload, filesystems, minimum ratio patched/stock), default policy
GOALS = [(w.name, w.goal_fss, w.goal) for w in REPORT if w.goal is not None]
# (workload, maximum ratio patched/stock, filesystems) of the negative
# dentries a workload left, default policy
COUNT_GOALS = [(w.name,) + w.count_goal for w in REPORT if w.count_goal]
# (filesystems, maximum ratio patched/stock) of the spools' sum, default policy
COUNT_GOAL = (["ext2", "ext4"], 0.01)


def policy_name(fs, pol):
    """A patched policy as the report shows it: "lookup (default)" on ext2,
    "none (default)" on tmpfs, else the negdentry= value."""
    return f"{DEFAULT_POLICY[fs]} (default)" if pol == "default" else pol


def default_text():
    """The default policies in words: "`negdentry=lookup` on ext2 and ext4,
    `none` on tmpfs"."""
    by = {}
    for fs in FSS:
        by.setdefault(DEFAULT_POLICY[fs], []).append(fs)
    parts = []
    for i, (pol, fss) in enumerate(by.items()):
        names = fss[0] if len(fss) == 1 else ", ".join(fss[:-1]) + " and " + fss[-1]
        parts.append(f"`{'negdentry=' if i == 0 else ''}{pol}` on {names}")
    return ", ".join(parts)


def sizes(kind):
    """SIZES of a quick or full run."""
    return {k: v[kind == "full"] for k, v in SIZES.items()}


def runs(kind):
    """The tput part's ndbench calls, in order: (every, [WORKLOAD, ARGS...])."""
    s = sizes(kind)
    return [(w.every, re.sub(r"\{([^}]*)\}", lambda m: str(eval(m.group(1), {}, s)),
                             w.run).split())
            for w in DECLARED if w.run]


def main(argv):
    """workloads.py sizes|runs quick|full: what bench/run.sh gives the guest."""
    if len(argv) != 2 or argv[0] not in ("sizes", "runs") or argv[1] not in ("quick", "full"):
        print("usage: workloads.py sizes|runs quick|full", file=sys.stderr)
        return 2
    if argv[0] == "sizes":
        for k, v in sizes(argv[1]).items():
            print(f"{k}={v}")
    else:
        for every, words in runs(argv[1]):
            print("every" if every else "default", *words)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
