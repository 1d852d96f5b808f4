#!/usr/bin/env python3
"""A model of negdentry=lookup's decisions on ext2 and ext4 (patches 4-5 of
the series), and of alternatives to its per-name table, replayed on the
scale part's busy spools (ndbench busyspool) and on filebench's fileset
rotation (webproxy.f, ndbench bigdir).  No kernel runs: it counts which
creates would find their negative dentry kept and how many spool names
would keep theirs, so that a change of the table can be judged before
it is written.  Its v5 rows agree with the measured samples
(samples/BASE/scale/: a lock beside a 10,000-name spool in the spool's
directory loses its negative dentry, in its own directory keeps it; a
few spool names in 10,000 keep theirs).

    python3 bench/policy_model.py > samples/model/policy-model.md

The model, as patches 4-5 implement it:
- the per-name table: 2^10 sets (8 KiB) chosen by the name's hash, four 16-bit
  fingerprints each, the name removed last first; a removal whose
  fingerprint is in its set is a name that comes back (KEPT_NAME);
- per directory: the fingerprint of the name removed last and a count
  of names coming back (+3 for a create that re-makes a removed name,
  -4 for a create of a new one, -1 for a removal the table does not
  know; at most 12); a removal is kept by the directory (KEPT_DIR) while
  the count is above zero, or if it is the directory's first removal.
Hashes are drawn from a seeded generator (the kernel's are the dcache's
salted hashes, as evenly spread)."""
import random
import sys

WAYS = 4
KEPT_NAME, KEPT_DIR = "name", "dir"
BACK, NEW, BACK_MAX = 3, 4, 12
SEEDS = range(5)


def tag_of(h):
    return ((h >> 16) | 1) & 0xffff


class LRUTable:
    """The series' table: 2^BITS sets (8 bytes each: 2^10 is the series'
    8 KiB), the name removed last first in its set."""

    def __init__(self, bits=10):
        self.n = 1 << bits
        self.sets = [[] for _ in range(self.n)]

    def has(self, h):
        return tag_of(h) in self.sets[h % self.n]

    def removed(self, h):
        s, t = self.sets[h % self.n], tag_of(h)
        hit = t in s
        if hit:
            s.remove(t)
        s.insert(0, t)
        del s[WAYS:]
        return hit


class SLRUTable:
    """PROTECTED of the ways hold names found again (a name found in the
    probationary ways moves there; the protected part's oldest goes back
    to probation), the others the names removed once; a name not found
    enters probation with probability ADMIT (1: always)."""

    def __init__(self, protected=2, admit=1.0, seed=1, bits=10):
        self.n = 1 << bits
        self.pr = [[] for _ in range(self.n)]
        self.pb = [[] for _ in range(self.n)]
        self.np, self.admit = protected, admit
        self.rng = random.Random(seed)

    def has(self, h):
        t = tag_of(h)
        return t in self.pr[h % self.n] or t in self.pb[h % self.n]

    def removed(self, h):
        pr, pb, t = self.pr[h % self.n], self.pb[h % self.n], tag_of(h)
        if t in pr:
            pr.remove(t)
            pr.insert(0, t)
            return True
        if t in pb:
            pb.remove(t)
            pr.insert(0, t)
            if len(pr) > self.np:
                pb.insert(0, pr.pop())
                del pb[WAYS - self.np:]
            return True
        if self.admit >= 1 or self.rng.random() < self.admit:
            pb.insert(0, t)
            del pb[WAYS - self.np:]
        return False


class Dir:
    def __init__(self):
        self.last, self.back = 0, 0


class FS:
    """One filesystem under negdentry=lookup: the table, and the negative
    dentries kept (directory, name) -> mark."""

    def __init__(self, table):
        self.table, self.kept = table, {}

    def create(self, d, name, h):
        """Whether the create finds its negative dentry kept."""
        mark = self.kept.pop((id(d), name), None)
        if mark != KEPT_NAME:
            back = mark == KEPT_DIR or d.last == tag_of(h) or self.table.has(h)
            d.back = min(d.back + BACK, BACK_MAX) if back else max(d.back - NEW, 0)
        return mark is not None

    def remove(self, d, name, h):
        """Whether the name's negative dentry is kept."""
        if self.table.removed(h):
            mark = KEPT_NAME
        else:
            mark = KEPT_DIR if d.back or not d.last else None
            if d.back:
                d.back -= 1
        d.last = tag_of(h)
        if mark:
            self.kept[(id(d), name)] = mark
        return mark is not None


def busyspool(fs, spool, cycles, same, rng):
    """ndbench busyspool: a warm-up cycle, then CYCLES of SPOOL always-new
    names created and removed, then the lock file once, in its own
    directory or the spool's.  (share of lock creates that find their
    negative dentry, spool names kept, spool names)."""
    sd = Dir()
    ld = sd if same else Dir()
    lock = rng.getrandbits(32)
    found = kept = n = 0
    for c in range(cycles + 1):
        for i in range(spool):
            h = rng.getrandbits(32)
            fs.create(sd, (c, i), h)
            k = fs.remove(sd, (c, i), h)
            if c:
                kept, n = kept + k, n + 1
        hit = fs.create(ld, "lock", lock)
        fs.remove(ld, "lock", lock)
        if c:
            found += hit
    return found / cycles, kept, n


def fileset(fs, nfiles, pairs, rng):
    """filebench's fileset in one directory (webproxy.f, ndbench bigdir):
    80 % of NFILES present, delete+create pairs picked in rotation, a name
    back NFILES/5 pairs after its removal; after a warm-up of
    max(2 x NFILES, PAIRS/4) pairs, the share of PAIRS creates that find
    their negative dentry."""
    d = Dir()
    h = [rng.getrandbits(32) for _ in range(nfiles)]
    present = list(range(nfiles * 4 // 5))
    absent = list(range(nfiles * 4 // 5, nfiles))
    for i in present:
        fs.create(d, i, h[i])
    warm, found = max(2 * nfiles, pairs // 4), 0
    for p in range(warm + pairs):
        x = present.pop(0)
        fs.remove(d, x, h[x])
        absent.append(x)
        y = absent.pop(0)
        hit = fs.create(d, y, h[y])
        present.append(y)
        if p >= warm:
            found += hit
    return found / pairs


TABLES = [
    ("series v5: LRU, 4 ways, 8 KiB", LRUTable),
    ("LRU, 4 ways, 16 KiB", lambda: LRUTable(bits=11)),
    ("SLRU: 2 protected + 2 probationary ways, 8 KiB", SLRUTable),
    ("SLRU, a new name admitted with probability 1/8, 8 KiB", lambda: SLRUTable(admit=1 / 8)),
    ("SLRU, a new name admitted with probability 1/8, 16 KiB",
     lambda: SLRUTable(admit=1 / 8, bits=11)),
    ("SLRU, a new name admitted with probability 1/32, 8 KiB", lambda: SLRUTable(admit=1 / 32)),
]


def main():
    out = ["# negdentry=lookup's table, modelled (no kernel runs)", "",
           "Written by `python3 bench/policy_model.py` (see its header: what it models and "
           f"how). Every cell sums {len(SEEDS)} seeds of the name hashes. A model, not a "
           "measurement: what it shows is which creates find their negative dentry kept, "
           "not what that costs (the samples of `make bench-scale` measure it).", "",
           "## A lock file beside a busy spool (ndbench busyspool), 20 cycles", "",
           "| table | spool names per lock cycle | lock's directory | lock creates that find "
           "their negative dentry | spool names that keep theirs |", "|---|---|---|---|---|"]
    for name, make in TABLES:
        for spool in (1000, 10000, 100000):
            for same in (False, True):
                rs = [busyspool(FS(make()), spool, 20, same, random.Random(s)) for s in SEEDS]
                found = sum(r[0] for r in rs) / len(rs)
                kept, n = sum(r[1] for r in rs), sum(r[2] for r in rs)
                out.append(f"| {name} | {spool:,} | {'the spool' if same else 'its own'} | "
                           f"{found:.3f} | {kept:,} of {n:,} ({kept / n:.5f}) |")
    out += ["", "## A fileset in one directory (filebench's rotation), 20,000 pairs after the "
            "warm-up", "", "| table | names | creates that find their negative dentry |",
            "|---|---|---|"]
    for name, make in TABLES:
        for nfiles in (1000, 10000):
            r = sum(fileset(FS(make()), nfiles, 20000, random.Random(s)) for s in SEEDS)
            out.append(f"| {name} | {nfiles:,} | {r / len(SEEDS):.3f} |")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
