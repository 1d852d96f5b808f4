#!/usr/bin/env python3
"""The generated blocks of the project's Markdown files.

    blocks.py --check [FILE...]   exit 1, naming file, line and source, if a
                                  block differs from its source
    blocks.py --write [FILE...]   refresh every block from its source

FILE defaults to every *.md file of the tree that has a block (README.md,
bench/README.md, ...).  A block is

    <!-- generated from PATH; do not edit (scripts/blocks.py) -->
    ...the text of PATH, relative to the top of the tree...
    <!-- end of PATH -->

and PATH is a file that a report generator wrote from a committed sample
(bench/report.py, bench/scale_report.py, fstests/report.py,
scripts/ci-time.sh).  So every measured number a reader sees in a Markdown
file comes from one place, and `make lint` fails when one was edited by
hand or its sample changed without the file.
"""
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"<!-- generated from (\S+); do not edit \(scripts/blocks\.py\) -->\n"
                   r"(.*?)<!-- end of \1 -->", re.S)


def source_text(path):
    with open(os.path.join(TOP, path)) as f:
        text = f.read()
    return text if text.endswith("\n") else text + "\n"


def files(args):
    if args:
        return args
    found = []
    for p in sorted(glob.glob(os.path.join(TOP, "**", "*.md"), recursive=True)):
        rel = os.path.relpath(p, TOP)
        if rel.split(os.sep)[0] in ("build", "results") or "/runs/" in rel:
            continue
        with open(p) as f:
            if BLOCK.search(f.read()):
                found.append(rel)
    return found


def refresh(path, write):
    """The blocks of PATH that differ from their sources, as messages;
    with WRITE, PATH is rewritten with every block refreshed."""
    with open(os.path.join(TOP, path)) as f:
        text = f.read()
    stale = []

    def fill(m):
        src = m.group(1)
        where = f"{path}:{text.count(chr(10), 0, m.start()) + 1}"
        if not os.path.isfile(os.path.join(TOP, src)):
            stale.append(f"{where}: the block's source {src} does not exist")
            return m.group(0)
        want = source_text(src)
        if m.group(2) != want:
            stale.append(f"{where}: the block differs from {src}")
        return m.group(0)[:m.start(2) - m.start()] + want + f"<!-- end of {src} -->"

    new = BLOCK.sub(fill, text)
    if write and new != text:
        with open(os.path.join(TOP, path), "w") as f:
            f.write(new)
    return stale


def write(paths=()):
    """Refresh the blocks of PATHS (default: every file that has one)."""
    for p in files(list(paths)):
        refresh(p, True)


def main(argv):
    if len(argv) < 2 or argv[1] not in ("--check", "--write"):
        sys.exit(__doc__)
    paths = files(argv[2:])
    if argv[1] == "--write":
        write(paths)
        return 0
    stale = [s for p in paths for s in refresh(p, False)]
    for s in stale:
        print(f"blocks.py: {s}: run the generator that writes it (or "
              "'python3 scripts/blocks.py --write')", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
