#!/usr/bin/env python3
"""Summarise a results folder written by check.sh.

    summary.py RUNDIR KERNEL...

Reads RUNDIR/KERNEL/SUITE/GROUP/TEST.tap for every kernel and prints:
  - one line per kernel and variant (tests, failures, skips),
  - a table test x kernel ("-": that kernel did not run the suite), then
    the failures by name,
  - the "# metric NAME VALUE" numbers of all kernels side by side,
  - last, "N passed, N failed[, N skipped]".
A TAP file whose plan is not met counts the missing tests as failures; a
guest that crashed or hung counts as one failure of its kernel.  So does a
KERNEL/SUITE folder without guest-status (the boot did not finish) or
without any TAP file.  The kernels that ran a suite (have its folder; the
stress suite runs only on the debug kernel) must have the same TAP files:
a test that one of them lacks is a failure of that kernel ("NOT RUN"),
unless every kernel that has it failed all of it (files such as mount.tap
are written only on failure).

A metric may carry a cross-kernel expectation, checked when both the stock
and the patched kernel ran and counted like a test:
  "# metric NAME VALUE expect=same"   patched within 1% of stock (or 1)
  "# metric NAME VALUE expect=equal"  patched exactly stock (0/1 outcomes)
  "# metric NAME VALUE expect=max:R"  patched at most R times stock
  "# metric NAME VALUE expect=delta:N" patched - stock within max(1, 1% of
                                      N) of N (where the series' default
                                      is to keep N more, or with -N fewer,
                                      than stock)
An expectation either kernel states is checked; a metric that only one
kernel reported fails it.  Which rules each test must print is declared in
scripts/cross-rules: a declared rule that a kernel's test did not print
with exactly that RULE, or a printed rule not declared there, fails.
A test case that one kernel skips and another runs fails (SKIP parity),
unless the skip's reason starts with "declared: " (a skip the harness
decided from what it declares of that kernel, e.g. negdentry= on stock).
Exit status 1 if anything failed.
"""
import fnmatch
import os
import re
import sys

RESULT = re.compile(r'^(ok|not ok)\s+(\d+)\s*-?\s*(.*?)(?:\s+#\s*(SKIP|TODO)\b\s*(.*))?$',
                    re.IGNORECASE)
PLAN = re.compile(r'^1\.\.(\d+)')
METRIC = re.compile(r'^#\s*metric\s+(\S+)\s+(-?[\d.]+)(?:\s+expect=(\S+))?')
# SUMMARY_METRICS: a regular expression; only matching metrics are listed.
METRIC_FILTER = os.environ.get('SUMMARY_METRICS', '')
GUEST_STATUS = {'124': 'guest HUNG (timeout)',
                '125': 'guest kernel CRASHED, oopsed or warned'}


def parse_tap(path):
    """Return (list of (status, name), metrics dict)."""
    results, metrics, plan, bailed = [], {}, None, None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = RESULT.match(line)
            if m:
                status = 'fail' if m.group(1) == 'not ok' else 'pass'
                if m.group(4) and m.group(4).upper() == 'SKIP':
                    status = 'skip'
                    metrics['skip:' + m.group(3)] = m.group(5) or ''
                results.append((status, m.group(3)))
                continue
            m = PLAN.match(line)
            if m:
                plan = int(m.group(1))
                continue
            m = METRIC.match(line)
            if m:
                metrics[m.group(1)] = m.group(2)
                if m.group(3):
                    metrics['expect:' + m.group(1)] = m.group(3)
                continue
            if line.startswith('Bail out!'):
                bailed = line
    if bailed:
        results.append(('fail', bailed))
    if plan is None:
        results.append(('fail', 'no TAP plan (test did not run or crashed)'))
    elif len(results) < plan:
        results.extend([('fail', 'missing result (test died)')] *
                       (plan - len(results)))
    return results, metrics


def subdirs(path):
    return sorted(d for d in os.listdir(path)
                  if os.path.isdir(os.path.join(path, d)) and d != 'images')


def collect(run, kernel):
    """{("SUITE/GROUP", test): (results, metrics)} for one kernel."""
    out = {}
    kdir = os.path.join(run, kernel)
    if not os.path.isdir(kdir):
        return out
    for suite in subdirs(kdir):
        for group in subdirs(os.path.join(kdir, suite)):
            gdir = os.path.join(kdir, suite, group)
            for name in sorted(os.listdir(gdir)):
                if name.endswith('.tap'):
                    out[(f'{suite}/{group}', name[:-4])] = \
                        parse_tap(os.path.join(gdir, name))
    return out


def cross_check(expect, stock, patched):
    """Whether patched/stock meets @expect; None if it cannot be judged."""
    try:
        s, p = float(stock), float(patched)
    except ValueError:
        return None
    if expect == 'same':
        return abs(p - s) <= max(1.0, 0.01 * abs(s))
    if expect == 'equal':
        return p == s
    try:
        if expect.startswith('max:'):
            return p <= float(expect[4:]) * s
        if expect.startswith('delta:'):
            n = float(expect[6:])
            return abs((p - s) - n) <= max(1.0, 0.01 * abs(n))
    except ValueError:
        return None
    return None


RULES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cross-rules')


def read_declarations(path, columns):
    """[(line number, words)] of a declaration file: whitespace-separated
    columns, "#" comments; exits naming the line when one does not have
    the columns named in @columns ("SUITE/GROUP TEST METRIC RULE")."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            if len(words) != len(columns.split()):
                sys.exit(f"{path}:{n}: want {columns}, not {line.strip()!r}")
            out.append((n, words))
    return out


def declared_rules():
    """[(group pattern, test, metric, rule)] of scripts/cross-rules."""
    return [tuple(words) for _, words in
            read_declarations(RULES_FILE, 'SUITE/GROUP TEST METRIC RULE')]


def rule_failures(data, rules):
    """The declared rules each test of both stock and patched lacks or
    prints differently, and the rules printed that are not declared."""
    out = []
    for key in sorted(set(data['stock']) & set(data['patched'])):
        group, test = key
        want = {m: r for pat, t, m, r in rules if t == test and fnmatch.fnmatchcase(group, pat)}
        for k in ('stock', 'patched'):
            printed = {n[len('expect:'):]: e for n, e in data[k][key][1].items()
                       if n.startswith('expect:')}
            for m, r in sorted(want.items()):
                if printed.get(m) != r:
                    got = f"printed expect={printed[m]}" if m in printed else "did not print it"
                    out.append(f"{group}/{test}: {k}: rule {m} expect={r} is declared in "
                               f"scripts/cross-rules; the test {got}")
            for m in sorted(set(printed) - set(want)):
                out.append(f"{group}/{test}: {k}: printed rule {m} expect={printed[m]}, which "
                           "scripts/cross-rules does not declare for this group")
    return out


# A SKIP whose reason starts with this was decided by the harness from what
# it declares of the kernel (e.g. fstests' negdentry= configurations on a
# kernel declared without the series), not by the kernel under test.
DECLARED_SKIP = 'declared: '


def skip_parity(kernels, data):
    """Failures for each test case that some kernels skipped and others ran
    (passed or failed), unless each skip's reason is one the harness
    declared: a kernel must not skip its way through what the other one
    runs (an error code it does not support, an NFS version its nfsd does
    not offer, fstests' "not run")."""
    out = []
    for key in sorted(set().union(*[set(data[k]) for k in kernels])):
        have = [k for k in kernels if key in data[k]]
        if len(have) < 2:
            continue
        status = {}
        for k in have:
            seen = {}
            for st, name in data[k][key][0]:
                n = seen[name] = seen.get(name, 0) + 1
                status.setdefault((name, n), {})[k] = st
        for (name, _), by in status.items():
            skipped = [k for k, st in by.items() if st == 'skip']
            ran = [k for k, st in by.items() if st != 'skip']
            if not skipped or not ran:
                continue
            undeclared = [k for k in skipped if not data[k][key][1].get(
                'skip:' + name, '').startswith(DECLARED_SKIP)]
            if undeclared:
                out.append(f"{key[0]}/{key[1]}: {name}: SKIP on {', '.join(undeclared)} "
                           f"({data[undeclared[0]][key][1].get('skip:' + name, '')}), "
                           f"run on {', '.join(ran)}: a skip only one kernel makes, and the "
                           "harness did not declare it")
    return out


def counts(results):
    c = {'pass': 0, 'fail': 0, 'skip': 0}
    for status, _ in results:
        c[status] += 1
    return c


def cell(c):
    if c['fail']:
        return f"{c['fail']} FAILED"
    s = f"{c['pass']} ok"
    return s + (f", {c['skip']} skip" if c['skip'] else '')


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    fmt = '  '.join('{:<%d}' % w for w in widths)
    print(fmt.format(*header))
    print(fmt.format(*['-' * w for w in widths]))
    for r in rows:
        print(fmt.format(*r))


def suite_of(variant):
    return variant.split('/', 1)[0]


def missing_tests(kernels, suites, data):
    """{kernel: {(SUITE/GROUP, test): [kernels that have it]}}: the tests
    that other kernels which ran the same suite have and this one lacks.
    A test that every kernel having it failed entirely is not required."""
    missing = {k: {} for k in kernels}
    for k in kernels:
        for suite in suites[k]:
            peers = [o for o in kernels if suite in suites[o]]
            for o in peers:
                for key, (results, _) in data[o].items():
                    if (suite_of(key[0]) != suite or key in data[k]
                            or results and all(st == 'fail' for st, _ in results)):
                        continue
                    missing[k].setdefault(key, []).append(o)
    return missing


def main():
    run, kernels = sys.argv[1], sys.argv[2:]
    data = {k: collect(run, k) for k in kernels}
    suites = {k: subdirs(os.path.join(run, k)) if os.path.isdir(os.path.join(run, k))
              else [] for k in kernels}
    missing = missing_tests(kernels, suites, data)
    total = {'pass': 0, 'fail': 0, 'skip': 0}
    failures = []
    releases = {}

    print()
    for k in kernels:
        rel = os.path.join(run, k, 'release')
        releases[k] = open(rel).read().strip() if os.path.exists(rel) else k
        if not os.path.isdir(os.path.join(run, k)):
            total['fail'] += 1
            failures.append(f"{k}: no results folder {os.path.join(run, k)}")
        for suite in suites[k]:
            sdir = os.path.join(run, k, suite)
            if not any(suite_of(group) == suite for group, _ in data[k]):
                total['fail'] += 1
                failures.append(f"{k}/{suite}: no TAP file: the suite wrote no results: see "
                                f"{os.path.join(sdir, 'guest.log')} and console.log")
            st_path = os.path.join(sdir, 'guest-status')
            if not os.path.exists(st_path):
                total['fail'] += 1
                failures.append(f"{k}/{suite}: no guest-status: the boot did not finish: see "
                                f"{os.path.join(sdir, 'console.log')}")
                continue
            status = open(st_path).read().strip()
            suite_failed = any(st == 'fail'
                               for (group, _), (results, _) in data[k].items()
                               if group.startswith(suite + '/')
                               for st, _ in results)
            if status in GUEST_STATUS or (status != '0' and not suite_failed):
                what = GUEST_STATUS.get(status, f'guest command exited {status}')
                total['fail'] += 1
                failures.append(f"{k}/{suite}: {what}: see "
                                f"{os.path.join(run, k, suite, 'guest.log')} and console.log")
        per_variant = {}
        for (variant, test), (results, _) in data[k].items():
            for key, n in counts(results).items():
                per_variant.setdefault(variant, {'pass': 0, 'fail': 0, 'skip': 0})[key] += n
            for status, name in results:
                total[status] += 1
                if status == 'fail':
                    failures.append(f"{k}/{variant}/{test}: {name}")
        for (variant, test), others in sorted(missing[k].items()):
            per_variant.setdefault(variant, {'pass': 0, 'fail': 0, 'skip': 0})['fail'] += 1
            total['fail'] += 1
            failures.append(f"{k}/{variant}/{test}: NOT RUN: no {test}.tap, which "
                            f"{', '.join(others)} ran")
        for variant, c in sorted(per_variant.items()):
            n = sum(c.values())
            print(f"{k}/{variant}: {n} tests, {c['fail']} failures, {c['skip']} skipped")
    print()

    keys = sorted(set().union(*[set(d) for d in data.values()]))
    rows = []
    for variant, test in keys:
        row = [variant, test]
        for k in kernels:
            r = data[k].get((variant, test))
            if r:
                row.append(cell(counts(r[0])))
            elif suite_of(variant) not in suites[k]:
                row.append('-')     # this kernel did not run the suite
            elif (variant, test) in missing[k]:
                row.append('NOT RUN')
            else:
                row.append('not run')
        rows.append(row)
    print('Results (kernel x suite/filesystem x test):')
    table(['suite/group', 'test'] + [f"{k} ({releases[k]})" for k in kernels], rows)

    mrows = []
    for variant, test in keys:
        names = []
        for k in kernels:
            for name in data[k].get((variant, test), ([], {}))[1]:
                if name not in names and not name.startswith(('expect:', 'skip:')):
                    names.append(name)
        for name in names:
            if not re.search(METRIC_FILTER, name):
                continue
            vals = [data[k].get((variant, test), ([], {}))[1].get(name, '-') for k in kernels]
            mark = '' if len(set(vals)) == 1 else 'changed'
            mrows.append([variant, test, name] + vals + [mark])
    for f in skip_parity(kernels, data):
        total['fail'] += 1
        failures.append(f)
    if 'stock' in kernels and 'patched' in kernels:
        for f in rule_failures(data, declared_rules()):
            total['fail'] += 1
            failures.append(f)
        crows = []
        for key in keys:
            sm = data['stock'].get(key, ([], {}))[1]
            pm = data['patched'].get(key, ([], {}))[1]
            expects = {n[len('expect:'):]: e for m in (pm, sm)
                       for n, e in m.items() if n.startswith('expect:')}
            for name, expect in sorted(expects.items()):
                sv, pv = sm.get(name, '-'), pm.get(name, '-')
                ok = cross_check(expect, sv, pv)
                status = 'pass' if ok else 'fail'
                total[status] += 1
                crows.append([key[0], key[1], name, sv, pv, expect, 'ok' if ok else 'FAILED'])
                if not ok:
                    failures.append(f"{key[0]}/{key[1]}: {name}: stock {sv}, "
                                    f"patched {pv}, expected {expect}")
        if crows:
            print()
            print('Stock vs patched (patched relative to stock):')
            table(['suite/group', 'test', 'metric', 'stock', 'patched', 'expect', ''], crows)

    if mrows:
        print()
        print('Measured counts (exact; each kernel asserts its own policy in the TAP above):')
        table(['suite/group', 'test', 'metric'] + list(kernels) + [''], mrows)

    if failures:
        print()
        print('Failures:')
        for f in failures:
            print('  ' + f)
    print()
    line = f"{total['pass']} passed, {total['fail']} failed"
    if total['skip']:
        line += f", {total['skip']} skipped"
    print(line)
    return 1 if total['fail'] else 0


if __name__ == '__main__':
    sys.exit(main())
