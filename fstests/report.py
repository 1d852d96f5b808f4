#!/usr/bin/env python3
"""fstests results: TAP for the harness, and the stock-vs-patched report.

  report.py tap RESULTS EXCLUDE TEST...
      (in the guest) fstests' RESULTS/result.xml as TAP, one line per TEST:
      ok, not ok with fstests' failure message, or SKIP with fstests' own
      "not run" reason, or the reason of EXCLUDE (an fstests -E file); a
      test that is in neither is "not ok ... did not run".  A test named in
      RESULTS/timed-out (guest.sh's watchdog) is "not ok ... killed".

  report.py summary RUN... [--out FILE]
      (on the host) per configuration, each kernel's run, passed, failed and
      not run side by side, then every test whose outcome differs between
      stock and another kernel, and every failure.  ext4-all, ext4-none and
      tmpfs-lookup exist only on kernels with the series: they are compared
      with stock's ext4 and tmpfs (BASELINE).  Exits 1 if a test that passes
      on stock fails on another kernel, or if a configuration has no results.

      Several RUNs make one report when each ran other configurations of
      the same kernels (a full run takes longer than a working session;
      FSTESTS_CONFIGS splits it): each kernel's source (RUN/KERNEL/source,
      the tree and config fragments it was built from) must be the same in
      every RUN, and no configuration may have results from two RUNs.

  report.py publish [--partial] RUN...
      (make fstests-sample BASE=...) the summary of the RUNs as
      samples/BASE/fstests/summary.md, and its table, differences and
      regression count as excerpt.md beside it, which samples/README.md quotes in a
      block of scripts/blocks.py; the files of each RUN the report reads in
      samples/BASE/fstests/runs/RUN/, so that a later run can be joined with
      them (RUN=samples/BASE/fstests/runs/RUN).  Refuses runs of another
      base's kernels, and runs that lack a configuration of fstests/configs,
      unless --partial: then the sample says which configurations it lacks.
"""
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

TAP_LINE = re.compile(r'^(ok|not ok) \d+ - (\S+)(?: # SKIP (.*))?(?:: (.*))?$')


def tap(results, exclude, tests):
    outcome = {}
    xml = os.path.join(results, 'result.xml')
    if os.path.exists(xml):
        for case in ET.parse(xml).getroot().iter('testcase'):
            name = case.get('name')
            fail = case.find('failure')
            skip = case.find('skipped')
            if fail is not None:
                outcome[name] = ('fail', fail.get('message') or 'failed')
            elif skip is not None:
                outcome[name] = ('notrun', skip.get('message') or 'not run')
            else:
                outcome[name] = ('pass', case.get('time') + ' s')
    killed = {}
    dog = os.path.join(results, 'timed-out')
    if os.path.exists(dog):
        for line in open(dog):
            t, _, secs = line.strip().partition(' ')
            killed[t] = secs
    for t, secs in killed.items():
        outcome[t] = ('fail', 'killed by the watchdog after %s s (FSTESTS_TEST_TIMEOUT): %s'
                      % (secs, outcome.get(t, (None, 'no result'))[1]))
    excluded = {}
    if os.path.exists(exclude):
        for line in open(exclude):
            t, _, why = line.partition('#')
            if t.strip():
                excluded[t.strip()] = why.strip()
    print('TAP version 13')
    print('1..%d' % len(tests))
    for i, t in enumerate(tests, 1):
        st, msg = outcome.get(t, (None, None))
        msg = (msg or '').replace('\n', ' ').replace('#', '')[:300]
        if st == 'pass':
            print('ok %d - %s: %s' % (i, t, msg))
        elif st == 'notrun':
            print('ok %d - %s # SKIP not run: %s' % (i, t, msg))
        elif st == 'fail':
            print('not ok %d - %s: %s' % (i, t, msg))
        elif t in excluded:
            print('ok %d - %s # SKIP excluded (fstests/exclude): %s' % (i, t, excluded[t]))
        else:
            print('not ok %d - %s: did not run (no result in %s)' % (i, t, xml))


def read_tap(path):
    """{test: (status, reason)} with status pass, fail, notrun."""
    res = {}
    if not os.path.exists(path):
        return res
    for line in open(path):
        m = TAP_LINE.match(line.rstrip('\n'))
        if not m or '/' not in m.group(2):
            continue
        name = m.group(2).rstrip(':')
        if m.group(3) is not None:
            res[name] = ('notrun', m.group(3))
        elif m.group(1) == 'ok':
            res[name] = ('pass', '')
        else:
            res[name] = ('fail', m.group(4) or '')
    return res


def host_time(runs):
    try:
        s = sum(int(open(os.path.join(r, 'host-seconds')).read()) for r in runs)
    except (OSError, ValueError):
        return ''
    return ' (%d min of host time, the kernels side by side)' % round(s / 60)


def read_line(path):
    try:
        return open(path).read().strip()
    except OSError:
        return None


TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def declared():
    """fstests/configs: every configuration of make fstests in report
    order; those that mount with a negdentry= policy (NEEDS a driver's
    series: a SKIP on stock), and the configuration of stock each is
    compared with (BASELINE)."""
    configs, needs, baseline = [], {}, {}
    with open(os.path.join(TOP, 'fstests', 'configs')) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            name, _, need, base = line.split()[:4]
            configs.append(name)
            baseline[name] = base
            if need != '-':
                needs[name] = need
    return configs, needs, baseline


CONFIGS, NEEDS, BASELINE = declared()


def words(names):
    """NAMES as "a, b and c"."""
    return ' and '.join([', '.join(names[:-1]), names[-1]] if len(names) > 1 else names)


def summary(runs, out, want=()):
    """The report of one run, or of several runs of the same kernels; the
    configurations in @want count as missing where no run has them."""
    if isinstance(runs, str):
        runs = [runs]
    kernels = []
    for run in runs:
        here = [k for k in sorted(os.listdir(run))
                if os.path.isdir(os.path.join(run, k, 'fstests'))]
        kernels += [k for k in here if k not in kernels]
    order = ['stock', 'patched', 'debug']
    kernels.sort(key=lambda k: (order.index(k) if k in order else len(order), k))
    if 'stock' not in kernels:
        sys.exit('report.py: no stock/fstests in %s' % ' '.join(runs))
    # the run each (kernel, configuration) comes from: one, never two
    where = {}
    configs = []
    asked_in = {}
    for run in runs:
        for k in kernels:
            d = os.path.join(run, k, 'fstests')
            for c in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                if not os.path.exists(os.path.join(d, c, 'fstests.tap')):
                    continue
                if (k, c) in where:
                    sys.exit('report.py: %s %s has results in both %s and %s'
                             % (k, c, where[(k, c)], run))
                where[(k, c)] = run
                if c not in configs:
                    configs.append(c)
        # the configurations asked for (fstests/run.sh): one that never
        # ran has no folder, and must still count as missing
        asked = (read_line(os.path.join(run, 'configs')) or '').split()
        configs += [c for c in asked if c not in configs]
        for c in asked:
            asked_in.setdefault(c, run)
    # several runs are one report only if each kernel is the same in all
    release, source = {}, {}
    for k in kernels:
        for run in runs:
            if not os.path.isdir(os.path.join(run, k)):
                continue
            rel = read_line(os.path.join(run, k, 'release')) or '?'
            src = read_line(os.path.join(run, k, 'source'))
            if len(runs) > 1 and not src:
                sys.exit('report.py: %s/%s/source missing: cannot tell whether its %s '
                         'kernel is the one of the other runs' % (run, k, k))
            if k in release and (release[k], source[k]) != (rel, src):
                sys.exit('report.py: the %s kernel differs between the runs: %s (%s) in '
                         'one, %s (%s) in %s' % (k, release[k], source[k], rel, src, run))
            release[k], source[k] = rel, src
    configs += [c for c in want if c not in configs]
    configs.sort(key=lambda c: (CONFIGS.index(c) if c in CONFIGS else len(CONFIGS), c))

    def tap_path(k, c):
        return os.path.join(where.get((k, c), runs[-1]), k, 'fstests', c, 'fstests.tap')

    res = {(k, c): read_tap(tap_path(k, c)) for k in kernels for c in configs}

    def counts(r):
        n = [sum(1 for s, _ in r.values() if s == x) for x in ('pass', 'fail', 'notrun')]
        return '%d / %d / %d / %d' % (len(r), *n)

    def baseline(c):
        return BASELINE.get(c, c)

    lines = ['# fstests: stock and patched side by side', '',
             '%s: %s; kernels: %s; configurations: %s. fstests kdave/xfstests '
             '63a29724a85f, the tests of fstests/tests, in QEMU TCG guests%s.' % (
                 'Runs' if len(runs) > 1 else 'Run',
                 ', '.join('`%s`' % os.path.basename(os.path.realpath(r)) for r in runs),
                 ', '.join('%s %s' % (k, release[k]) for k in kernels), ' '.join(configs),
                 host_time(runs)), '',
             'Each cell: run / passed / failed / not run. %s (negdentry=%s) exist '
             "only with the series (stock: the option is refused) and are compared "
             "with stock's %s." % (
                 words(list(NEEDS)), ', '.join(c.split('-', 1)[1] for c in NEEDS),
                 words(sorted(set(BASELINE[c] for c in NEEDS), key=CONFIGS.index))), '',
             '| configuration | ' + ' | '.join(kernels) + ' |',
             '|---|' + '---|' * len(kernels)]
    missing = []
    for c in configs:
        cells = []
        for k in kernels:
            r = res[(k, c)]
            if r:
                cells.append(counts(r))
                continue
            t = tap_path(k, c)
            skip = open(t).read() if os.path.exists(t) else ''
            if '# SKIP' in skip:
                cells.append('n/a: ' + skip.split('# SKIP', 1)[1].strip())
            elif c not in asked_in:
                cells.append('**not run yet**')
                missing.append('- %s %s: in none of the runs' % (k, c))
            else:
                cells.append('**no results**')
                missing.append('- %s %s: no results (see %s/%s/fstests/guest.log)'
                               % (k, c, asked_in[c], k))
        lines.append('| %s | %s |' % (c, ' | '.join(cells)))
    if not configs:
        missing.append('- no configuration has results (see %s/stock/fstests/guest.log)'
                       % runs[-1])
    regress = []
    diffs = []
    fails = []
    uncompared = []
    for c in configs:
        # stock's baseline: none if the runs lack it (FSTESTS_CONFIGS)
        base = res.get(('stock', baseline(c)), {})
        if not base and baseline(c) != c and any(res[(k, c)] for k in kernels):
            uncompared.append('- %s: not compared: stock has no results on %s'
                              % (c, baseline(c)))
        for k in kernels:
            r = res[(k, c)]
            for t, (s, why) in sorted(r.items()):
                if s == 'fail':
                    fails.append('- %s %s %s: %s' % (k, c, t, why))
                if k == 'stock' or t not in base:
                    continue
                b = base[t][0]
                if b != s:
                    d = '- %s: %s on stock %s, %s on %s %s%s' % (
                        t, b, baseline(c), s, k, c, (' (%s)' % why) if why else '')
                    diffs.append(d)
                    if b == 'pass' and s == 'fail':
                        regress.append(d)
    lines += ['', '## Outcomes that differ from stock', '']
    lines += diffs or ['None in the configurations compared.' if uncompared else
                       'None: every test has the same outcome on every kernel.']
    if uncompared:
        lines += [''] + uncompared
    lines += ['', '## Failures', '']
    lines += fails or ['None.']
    notrun = {}
    for (k, c), r in res.items():
        for t, (s, why) in r.items():
            if s == 'notrun':
                notrun.setdefault((t, why), []).append('%s %s' % (k, c))
    lines += ['', '## Not run, with fstests\' reason', '']
    for (t, why), where in sorted(notrun.items()):
        lines.append('- %s: %s (%s)' % (t, why, ', '.join(sorted(where))))
    if not notrun:
        lines.append('None.')
    if missing:
        lines += ['', '## Configurations without results', ''] + missing
    lines += ['', 'Regressions (passes on stock, fails with the series): %d' % len(regress)]
    text = '\n'.join(lines) + '\n'
    if out:
        with open(out, 'w') as f:
            f.write(text)
    if out is not False:
        sys.stdout.write(text)
    return 1 if regress or missing else 0, text, missing, len(regress)


def keep(run, dest):
    """The files of @run a report reads (TAP, release, source, configs,
    host time), copied to @dest: a later run of the same kernels can be
    joined with them although results/ is not kept."""
    for dirpath, _, files in os.walk(run):
        rel = os.path.relpath(dirpath, run)
        parts = rel.split(os.sep)
        for f in files:
            if (rel == '.' and f in ('configs', 'host-seconds')) or \
               (len(parts) == 1 and rel != '.' and f in ('release', 'source')) or \
               (len(parts) == 3 and parts[1] == 'fstests' and f == 'fstests.tap'):
                os.makedirs(os.path.join(dest, rel), exist_ok=True)
                shutil.copyfile(os.path.join(dirpath, f), os.path.join(dest, rel, f))


def publish(runs, partial=False):
    """samples/BASE/fstests/summary.md, its excerpt and the blocks quoting
    it; BASE is the make variable, and the runs' kernels must be its."""
    base = os.environ.get('BASE') or '6.1'
    rc, text, missing, regressions = summary(runs, False, CONFIGS)
    run = ' '.join(runs)
    if missing and not partial:
        sys.exit('report.py: refusing to publish %s: configurations without results:\n%s'
                 % (run, '\n'.join(missing)))
    if not any(os.path.isdir(os.path.join(r, 'patched', 'fstests')) for r in runs):
        sys.exit('report.py: refusing to publish %s: no patched kernel in it' % run)
    for r in runs:
        for k in os.listdir(r):
            rel = read_line(os.path.join(r, k, 'release'))
            if rel is not None and not rel.startswith(base + '.'):
                sys.exit("report.py: refusing to publish %s as BASE=%s's sample: its %s "
                         'kernel is %s' % (r, base, k, rel))
    where = os.path.join('samples', base, 'fstests')
    sample = os.path.join(TOP, where)
    # the runs' own files first: a run may come from the old sample
    kept = sample + '.new'
    if os.path.isdir(kept):
        shutil.rmtree(kept)
    for r in runs:
        keep(r, os.path.join(kept, 'runs', os.path.basename(os.path.realpath(r))))
    if os.path.isdir(sample):
        shutil.rmtree(sample)
    os.rename(kept, sample)
    with open(os.path.join(sample, 'summary.md'), 'w') as f:
        f.write(text)
    # the excerpt: the intro, the table, the differences, what is missing
    # and the last line
    body = text.split('\n## Failures', 1)[0].split('\n', 2)[2].strip()
    if missing:
        body += '\n\n**Configurations without results**\n\n' + '\n'.join(missing)
    body = re.sub(r'(?m)^## (.*)$', r'**\1**', body)
    excerpt = (body + '\n\n' + text.rstrip('\n').rsplit('\n', 1)[1]
               + ' (all of it: %s/summary.md).' % where)
    with open(os.path.join(sample, 'excerpt.md'), 'w') as f:
        f.write(excerpt + '\n')
    sys.path.insert(0, os.path.join(TOP, 'scripts'))
    import blocks  # scripts/blocks.py: samples/README.md's block of excerpt.md
    blocks.write()
    print('published %s: %s/summary.md, excerpt.md and the blocks of it' % (run, where))
    if partial:
        # what is missing was asked for: only a regression fails
        return 1 if regressions else 0
    return rc


def main(argv):
    if len(argv) >= 3 and argv[1] == 'tap':
        tap(argv[2], argv[3], argv[4:])
        return 0
    if len(argv) >= 3 and argv[1] == 'summary':
        runs, out = argv[2:], None
        if len(runs) >= 2 and runs[-2] == '--out':
            runs, out = runs[:-2], runs[-1]
        if runs and '--out' not in runs:
            return summary(runs, out)[0]
    if len(argv) >= 4 and argv[1:3] == ['publish', '--partial']:
        return publish(argv[3:], partial=True)
    if len(argv) >= 3 and argv[1] == 'publish':
        return publish(argv[2:])
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
