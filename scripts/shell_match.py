#!/usr/bin/env python3
"""How closely fakecri's container shell does what the real busybox does: runs the oracle corpus
(tests/oracle/corpus) and N scripts from the grammar (tests/oracle/grammar.py) through both, and
prints the match rate per category and the first mismatches.

    .venv/bin/python scripts/shell_match.py                       # corpus only, a server of its own
    .venv/bin/python scripts/shell_match.py --generated 2000 --seed 1 --jobs 3
    .venv/bin/python scripts/shell_match.py --socket /run/fakecri.sock   # a running `fakecri serve`
    .venv/bin/python scripts/shell_match.py --notes notes.md      # also append a markdown section

Needs /usr/bin/busybox (Debian's busybox-static); as root it runs busybox in a chroot shaped
like the container (tests/oracle/busybox_side.py).
"""
from __future__ import annotations

import argparse
import datetime
import re
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from oracle.busybox_side import BusyboxSide, available
from oracle.compare import Case, Judge, Outcome
from oracle.corpus import OWNERS, load
from oracle.fakecri_side import CONTAINER_ENV, POD_NAME, FakecriSide
from oracle.grammar import generate
from oracle.known_mismatches import KNOWN_MISMATCHES


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--socket", help="a running fakecri's unix socket (default: start one in this process)")
    p.add_argument("--generated", type=int, default=0, metavar="N", help="also judge N generated scripts")
    p.add_argument("--seed", type=int, default=0, help="first seed of the generated scripts")
    p.add_argument("--no-corpus", action="store_true", help="judge only generated scripts")
    p.add_argument("--category", action="append", help="only these corpus categories")
    p.add_argument("--jobs", type=int, default=2, help="scripts judged at once (default 2)")
    p.add_argument("--show", type=int, default=10, help="mismatches printed (default 10)")
    p.add_argument("--notes", help="append a dated markdown section of the mismatches to this file")
    p.add_argument("--notes-limit", type=int, default=40, help="mismatches in the notes section (default 40)")
    p.add_argument("--known", action="store_true",
                   help="print the mismatching corpus scripts as a KNOWN_MISMATCHES table, a reason drawn for each")
    p.add_argument("--label", default="", help="what was judged, for the notes section's heading")
    args = p.parse_args(argv)
    if not available():
        print("shell_match: /usr/bin/busybox is missing (apt-get install busybox-static)", file=sys.stderr)
        return 2

    cases: list[Case] = []
    if not args.no_corpus:
        cases = [c for c in load() if not args.category or c.category in args.category]
    cases += [Case(f"generated/seed-{s}", "generated", generate(s))
              for s in range(args.seed, args.seed + args.generated)]

    server = None
    if args.socket:
        target = "unix:" + args.socket
    else:
        from fakecri.server.process.app import FakeCRIServer

        server = FakeCRIServer(seed=7)
        server.start()
        if server.node is not None:
            server.node.log_rpcs = False
        target = f"unix:{server.config.socket}"
    fakecri = FakecriSide(target)
    busybox = BusyboxSide(fakecri.etc_files(), CONTAINER_ENV, POD_NAME)
    judge = Judge(busybox, fakecri)
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            outcomes = list(pool.map(judge.judge, cases))
    finally:
        busybox.close()
        fakecri.close()
        if server is not None:
            server.stop()
    elapsed = time.monotonic() - started
    report(outcomes, args.show, elapsed, busybox.chroot)
    if args.known:
        print(known_table(outcomes))
    if args.notes:
        with open(args.notes, "a") as f:
            f.write(notes_section(outcomes, args.notes_limit, args.label))
    return 0


def _rates(outcomes: list[Outcome]) -> dict[str, tuple[int, int]]:
    by: dict[str, list[bool]] = defaultdict(list)
    for o in outcomes:
        by[o.case.category].append(o.match)
    return {cat: (sum(ms), len(ms)) for cat, ms in sorted(by.items())}


def report(outcomes: list[Outcome], show: int, elapsed: float, chroot: bool) -> None:
    print(f"oracle: busybox {'in a chroot' if chroot else 'fallback (not root): busybox sh on the host'}; "
          f"{len(outcomes)} scripts in {elapsed:.1f}s")
    corpus = [o for o in outcomes if o.case.category != "generated"]
    generated = [o for o in outcomes if o.case.category == "generated"]
    for cat, (ok, n) in _rates(outcomes).items():
        print(f"  {cat:<16} {ok:>5}/{n:<5} {100 * ok / n:5.1f}%")
    for label, group in (("corpus", corpus), ("generated", generated)):
        if group:
            ok = sum(o.match for o in group)
            loose = sum(o.stdout_and_rc_match for o in group)
            print(f"{label}: {ok}/{len(group)} match ({100 * ok / len(group):.1f}%); "
                  f"stdout and exit code alone: {loose}/{len(group)}")
    known = sum(1 for o in corpus if o.case.name in KNOWN_MISMATCHES)
    if known:
        print(f"known mismatches listed: {known}")
    bad = [o for o in outcomes if not o.match]
    for o in bad[:show]:
        print("-" * 72)
        print(o.describe())


_AWK_HELPER = dict.fromkeys(("awk", "find", "cp", "mv", "mktemp", "ls"), "awk")
_BUILTINS = frozenset(("alias", "unalias", "getopts", "ulimit", "times", "hash", "fc", "jobs", "fg", "bg"))


def reason(o: Outcome) -> str:
    """A first reason for a mismatch, from what fakecri said (to be read and corrected by a person)."""
    owner = OWNERS.get(o.case.category, "shell")
    fc, bb = o.fakecri, o.busybox
    missing = re.search(r"(\S+): not modelled by fakecri", fc.stderr)
    if missing:
        name = missing.group(1).rsplit("/", 1)[-1]
        return f"{_AWK_HELPER.get(name, 'shell' if name in _BUILTINS else 'applets')}: {name} is not modelled"
    if "can't open" in fc.stderr or "No such file" in fc.stderr and "No such file" not in bb.stderr:
        return f"{owner}: a file the script made is not found ({fc.stderr.splitlines()[0][:80]})"
    if fc.rc != bb.rc:
        return f"{owner}: exit {fc.rc} where busybox exits {bb.rc}"
    if fc.stdout != bb.stdout:
        return f"{owner}: stdout differs"
    first = (fc.stderr.splitlines() or [""])[0][:80]
    return f"{owner}: stderr differs ({first!r} where busybox says {(bb.stderr.splitlines() or [''])[0][:80]!r})"


def known_table(outcomes: list[Outcome]) -> str:
    rows = [f"    {o.case.name!r}: {reason(o)!r}," for o in outcomes
            if o.case.category != "generated" and not o.match]
    return "KNOWN_MISMATCHES: dict[str, str] = {\n" + "\n".join(rows) + "\n}"


def _spread(group: list[Outcome], n: int) -> list[Outcome]:
    """Up to n of `group`, taken in turn from each category, so every category is seen."""
    by_cat: dict[str, list[Outcome]] = defaultdict(list)
    for o in group:
        by_cat[o.case.category].append(o)
    queues = [by_cat[c] for c in sorted(by_cat)]
    taken: list[Outcome] = []
    while len(taken) < n and any(queues):
        for q in queues:
            if q and len(taken) < n:
                taken.append(q.pop(0))
    return sorted(taken, key=lambda o: o.case.category)


def notes_section(outcomes: list[Outcome], limit: int, label: str = "") -> str:
    """A dated markdown section: the rates, then the mismatches grouped by owner and category
    (each owner gets a share of `limit`)."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"\n## {stamp}{' - ' + label if label else ''}\n"]
    rates = _rates(outcomes)
    total_ok = sum(ok for ok, _ in rates.values())
    lines.append(f"Match rate {total_ok}/{len(outcomes)}: "
                 + ", ".join(f"{cat} {ok}/{n}" for cat, (ok, n) in rates.items()) + "\n")
    bad = [o for o in outcomes if not o.match]
    by_owner: dict[str, list[Outcome]] = defaultdict(list)
    for o in bad:
        by_owner[OWNERS.get(o.case.category, "shell")].append(o)
    share = max(8, limit // max(1, len(by_owner)))
    for owner in sorted(by_owner):
        group = by_owner[owner]
        counts = ", ".join(f"{cat} {n}" for cat, n in sorted(Counter(o.case.category for o in group).items()))
        shown = _spread(group, share)
        more = f"; {len(shown)} shown" if len(shown) < len(group) else ""
        lines.append(f"### {owner}: {len(group)} mismatches ({counts}){more}\n")
        for o in shown:
            lines.append("```\n" + o.describe(width=240) + "\n```")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
