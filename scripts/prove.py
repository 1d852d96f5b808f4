#!/usr/bin/env python3
"""Judge and record make prove-tests: each prefix of the series, held to
the full series, must fail exactly the tests scripts/prove-rules declares.

    prove.py judge RUN      print the verdict of a prove-tests run
    prove.py publish RUN    judge it and write samples/BASE/prove-tests/
                            README.md (the record)
    prove.py --check        every record is of the series and rules now in
                            the tree, and says every prefix was as declared

RUN is results/BASE/prove-tests-DATE/ (scripts/prove-tests.sh): one
folder per kernel (stock, step-1, ...) holding its check.sh run, and
KERNEL.log, check.sh's output.  BASE comes from the environment (default
6.1), as for every script here.

A test fails if its TAP file has a "not ok", a "Bail out!" or an unmet
plan (scripts/summary.py's parse_tap).  A prefix is as declared when the
set of (suite/group, test) that fail is exactly the declared one, every
test that another prefix ran or that the fs suite runs by default
(fs-images/*.conf x guest/TESTS) ran on it, and no guest crashed, hung
or warned (guest-status 124/125).  The record keeps the sha256 of the
series' code (the patches patches/BASE/series lists, in order, each from
its first "diff --git": a commit message can change without a new run)
and of scripts/prove-rules: --check (make lint) fails when either
changed since the record was made, naming what to remake.
"""
import datetime
import functools
import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summary  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(TOP, 'scripts', 'prove-rules')
STATES = ('stock', 'partial', 'series')
def read_drivers():
    """scripts/drivers: the drivers in order, the driver of each patch
    subject prefix, the driver of each mount type."""
    drivers, prefix, fstype = [], {}, {}
    with open(os.path.join(TOP, 'scripts', 'drivers')) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            d, p, *types = line.split()
            drivers.append(d)
            prefix[p] = d
            fstype.update((t, d) for t in types)
    return tuple(drivers), prefix, fstype


DRIVERS, PREFIX_DRIVER, FSTYPE_DRIVER = read_drivers()
SUBJECT = re.compile(r'^Subject: \[PATCH[^]]*\] *([a-z0-9]*):', re.M)
GUEST_BROKEN = {'124', '125'}
MARK = 'prove-tests record:'


def die(msg):
    sys.exit(f'prove.py: error: {msg}')


def base():
    return os.environ.get('BASE', '6.1')


def series(b):
    """The patch file names of patches/B/series, in order."""
    path = os.path.join(TOP, 'patches', b, 'series')
    if not os.path.isfile(path):
        die(f'no series for BASE={b}: {path} missing')
    with open(path) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith('#')]


def series_hash(b):
    """sha256 of the series' code: the order of its patches and each
    one's diff (from its first "diff --git"), not the commit messages,
    whose numbers sections bench/patch_numbers.py rewrites."""
    h = hashlib.sha256()
    for name in series(b):
        with open(os.path.join(TOP, 'patches', b, name), 'rb') as f:
            text = f.read()
        at = text.find(b'\ndiff --git ')
        if at < 0:
            die(f'patches/{b}/{name} has no diff')
        h.update(name.encode() + b'\0' + text[at:])
    return h.hexdigest()


def rules_hash():
    with open(RULES, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def patch_drivers(b):
    """The driver each patch of the series is for, in order."""
    out = []
    for name in series(b):
        with open(os.path.join(TOP, 'patches', b, name)) as f:
            m = SUBJECT.search(f.read())
        subj = m.group(1) if m else ''
        if subj not in PREFIX_DRIVER:
            die(f'patches/{b}/{name}: subject prefix "{subj}" is no PREFIX of scripts/drivers')
        out.append(PREFIX_DRIVER[subj])
    return out


def driver_states(b, n):
    """{driver: state} of the kernel with the first n patches."""
    drivers = patch_drivers(b)
    have = drivers[:n]
    states = {}
    for d in DRIVERS:
        if d not in have:
            states[d] = 'stock'
        elif have.count(d) < drivers.count(d):
            states[d] = 'partial'
        else:
            states[d] = 'series'
    return states


def read_rules():
    """[(suite, test, drivers, states)] from scripts/prove-rules."""
    rules = []
    for no, (suite, test, drivers, states) in summary.read_declarations(
            RULES, 'SUITE TEST DRIVERS STATES'):
        drivers, states = drivers.split(','), states.split(',')
        for d in drivers:
            if d not in DRIVERS:
                die(f'scripts/prove-rules:{no}: unknown driver {d}')
        for s in states:
            if s not in STATES[:2]:
                die(f'scripts/prove-rules:{no}: state {s} is not stock or partial')
        rules.append((suite, test, drivers, states))
    return rules


@functools.lru_cache(maxsize=None)
def variant_driver(variant):
    path = os.path.join(TOP, 'fs-images', variant + '.conf')
    if not os.path.isfile(path):
        die(f'no fs-images/{variant}.conf')
    with open(path) as f:
        m = re.search(r'^FSTYPE=(\S+)', f.read(), re.M)
    fstype = m.group(1) if m else ''
    return FSTYPE_DRIVER.get(fstype, fstype)


def group_driver(suite, group):
    if suite == 'nfs':
        if group == 'nfs-server':
            return None
        group = group.split('-v', 1)[0]
    return variant_driver(group)


def declared(rules, states, key):
    """Whether the test KEY = ("SUITE/GROUP", test) must fail."""
    suite, group = key[0].split('/', 1)
    drv = group_driver(suite, group)
    return any(suite == r[0] and key[1] == r[1] and drv in r[2] and states.get(drv) in r[3]
               for r in rules)


def default_fs_tests():
    confs = sorted(c[:-5] for c in os.listdir(os.path.join(TOP, 'fs-images'))
                   if c.endswith('.conf'))
    with open(os.path.join(TOP, 'guest', 'TESTS')) as f:
        tests = [ln.split()[0] for ln in f if ln.strip() and not ln.startswith('#')]
    # check.sh checks every image with e2fsck (fsck.tap); tmpfs has none
    return {(f'fs/{v}', t) for v in confs
            for t in tests + ([] if variant_driver(v) == 'tmpfs' else ['fsck'])}


def first_failure(results):
    for status, name in results:
        if status == 'fail':
            return name
    return ''


def judge(run):
    """(ok, report lines) for the prove-tests run RUN."""
    b = base()
    rules = read_rules()
    total = len(series(b))
    kernels = ['stock'] + [f'step-{n}' for n in range(1, total)]
    data, broken, release = {}, {}, {}
    for k in kernels:
        kdir = os.path.join(run, k, k)
        if not os.path.isdir(kdir):
            die(f'{run} has no run of {k} ({kdir})')
        data[k] = summary.collect(os.path.join(run, k), k)
        with open(os.path.join(kdir, 'release')) as f:
            release[k] = f.read().strip()
        broken[k] = []
        for suite in ('fs', 'nfs'):
            st = os.path.join(kdir, suite, 'guest-status')
            code = 'missing'
            if os.path.isfile(st):
                with open(st) as f:
                    code = f.read().strip()
            if code in GUEST_BROKEN or code == 'missing':
                broken[k].append(f'{suite}: {summary.GUEST_STATUS.get(code, "boot did not finish")}')
    everything = set().union(default_fs_tests(), *[set(d) for d in data.values()])
    ok = True
    rows, detail = [], []
    for n, k in enumerate(kernels):
        states = driver_states(b, n)
        want = {key for key in everything if declared(rules, states, key)}
        failed = {key for key, (res, _) in data[k].items()
                  if any(s == 'fail' for s, _ in res)}
        notrun = everything - set(data[k])
        missed = want - failed - notrun
        extra = failed - want
        good = not (missed or extra or notrun or broken[k])
        ok &= good
        rows.append(f'| {k} ({release[k]}) | ' +
                    ' | '.join(states[d] for d in DRIVERS) +
                    f' | {len(data[k])} | {len(want)} | {len(failed)} | '
                    f'{"as declared" if good else "**NOT as declared**"} |')
        detail.append(f'### {k}\n')
        for why in broken[k]:
            detail.append(f'- guest: {why}')
        for key in sorted(notrun):
            detail.append(f'- NOT RUN: {key[0]}: {key[1]}')
        for key in sorted(missed):
            detail.append(f'- declared to fail, PASSED: {key[0]}: {key[1]}')
        for key in sorted(extra):
            detail.append(f'- failed, NOT declared: {key[0]}: {key[1]}: '
                          f'{first_failure(data[k][key][0])}')
        # the declared failures that happened, by test, with one reason each
        by_test = {}
        for key in sorted(want & failed):
            by_test.setdefault((key[0].split('/')[0], key[1]), []).append(key)
        for (suite, test), keys in sorted(by_test.items()):
            groups = ', '.join(key[0].split('/', 1)[1] for key in keys)
            detail.append(f'- {suite} {test} failed as declared on {len(keys)}: {groups}; '
                          f'e.g. {keys[0][0]}: {first_failure(data[k][keys[0]][0])}')
        detail.append('')
    head = [
        f'Each prefix of the {b} series, and stock, booted and held to what the full',
        'series promises (`EXPECT=series`, suites fs and nfs), must fail exactly the',
        'tests `scripts/prove-rules` declares for the state it leaves each driver in',
        '(stock: none of its patches, partial: some, series: all). Counts of tests',
        'are of (suite/group, test) pairs: one TAP file each.',
        '',
        '| kernel | ext2 | ext4 | tmpfs | tests run | declared to fail | failed | verdict |',
        '|---|---|---|---|---|---|---|---|',
    ]
    verdict = ('every prefix failed exactly its declared tests' if ok
               else 'a prefix did NOT fail exactly its declared tests')
    return ok, head + rows + ['', f'Verdict: {verdict}.', ''] + detail


def cmd_judge(run):
    ok, lines = judge(run)
    print('\n'.join(lines))
    return 0 if ok else 1


def record_path(b):
    return os.path.join(TOP, 'samples', b, 'prove-tests', 'README.md')


def cmd_publish(run):
    b = base()
    ok, lines = judge(run)
    if not ok:
        print('\n'.join(lines))
        die(f'{run}: not every prefix failed as declared; nothing published')
    path = record_path(b)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    when = datetime.datetime.fromtimestamp(os.path.getmtime(run)).strftime('%Y-%m-%d')
    with open(path, 'w') as f:
        f.write(f'# make prove-tests, BASE={b}\n\n'
                f'<!-- {MARK} series {series_hash(b)} rules {rules_hash()} -->\n'
                f'Generated by `scripts/prove.py publish` from the run '
                f'`{os.path.basename(os.path.normpath(run))}` of {when} '
                '(QEMU TCG guests; no timing here). `make lint` checks that '
                f'patches/{b}/ and scripts/prove-rules are still those this '
                'record was made from.\n\n')
        f.write('\n'.join(lines).rstrip('\n') + '\n')
    print(f'wrote {os.path.relpath(path, TOP)}')
    return 0


def cmd_check():
    status = 0
    bases = sorted(d for d in os.listdir(os.path.join(TOP, 'patches'))
                   if os.path.isfile(os.path.join(TOP, 'patches', d, 'series')))
    for b in bases:
        path = record_path(b)
        rel = os.path.relpath(path, TOP)
        if not os.path.isfile(path):
            print(f'{rel}: missing: run make prove-tests BASE={b}, then '
                  f'make prove-sample BASE={b}', file=sys.stderr)
            status = 1
            continue
        with open(path) as f:
            text = f.read()
        m = re.search(MARK + r' series (\S+) rules (\S+) ', text)
        if not m:
            print(f'{rel}: no "{MARK}" line', file=sys.stderr)
            status = 1
            continue
        stale = []
        if m.group(1) != series_hash(b):
            stale.append(f'patches/{b}/')
        if m.group(2) != rules_hash():
            stale.append('scripts/prove-rules')
        if stale:
            print(f'{rel}: made from another {" and ".join(stale)}: run make prove-tests '
                  f'BASE={b}, then make prove-sample BASE={b}', file=sys.stderr)
            status = 1
        if 'Verdict: every prefix failed exactly its declared tests.' not in text:
            print(f'{rel}: its verdict is not "every prefix failed exactly its '
                  'declared tests"', file=sys.stderr)
            status = 1
    return status


def main(argv):
    if argv == ['--check']:
        return cmd_check()
    if len(argv) == 2 and argv[0] == 'judge':
        return cmd_judge(argv[1])
    if len(argv) == 2 and argv[0] == 'publish':
        return cmd_publish(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
