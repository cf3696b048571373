"""The judge itself: the oracle's root looks like the container, the normalising rewrites only what
differences.py names, the corpus parses, the grammar's scripts end, and the docs list every
difference."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from .compare import Case
from .corpus import OWNERS, load, parse
from .differences import DIFFERENCES, normalise
from .grammar import generate

DOCS = Path(__file__).resolve().parents[2] / "docs" / "shell.md"


def test_the_oracle_runs_as_the_container_runs(judge):
    """The chroot's environment, user, groups, hostname and /etc are the container's (only where
    the oracle can chroot: the fallback says what differs)."""
    if not judge.busybox.chroot:
        pytest.skip("fallback oracle (not root): host /etc and hostname")
    r = judge.busybox.run("env | sort; id; hostname; pwd; umask; echo $0; ls /; cat /etc/hostname")
    assert r.rc == 0, r
    assert r.stdout.splitlines() == [
        "HOME=/root", "HOSTNAME=oracle", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "PWD=/", "SHLVL=1",
        "uid=0(root) gid=0(root) groups=0(root),10(wheel)", "oracle", "/", "0022", "sh",
        "bin", "dev", "etc", "home", "proc", "root", "sys", "tmp", "usr", "var", "oracle",
    ]


def test_each_script_gets_a_fresh_directory_on_the_oracle(judge):
    first = judge.busybox.run(judge.prefixed(judge.busybox.scratch_parent(), 10_001, "touch mine; ls"))
    second = judge.busybox.run(judge.prefixed(judge.busybox.scratch_parent(), 10_002, "ls | wc -l"))
    assert (first.stdout, second.stdout.strip()) == ("mine\n", "0")


def test_normalising_rewrites_the_present_and_keeps_given_dates():
    t = time.time()
    now = time.strftime("%b %e %H:%M", time.gmtime(t))
    text = (f"-rw-r--r-- 1 root root 3 {now} f\nTue Nov 14 22:13:20 UTC 2023\n{int(t)} 1700000000\n"
            "/tmp/tmp.aB3dE9\nInode: 1234 Device: 803h\nBusyBox v1.35.0 (Debian 1:1.35.0-4) multi-call binary.\n"
            "/bin/ls\nls is /bin/ls\ncd is a shell builtin\n")
    assert normalise(text, (t, t + 1)).splitlines() == [
        "-rw-r--r-- 1 root root 3 <time> f", "Tue Nov 14 22:13:20 UTC 2023", "<now> 1700000000",
        "/tmp/tmp.XXXXXX", "Inode: <n> Device: <n>", "BusyBox vX multi-call binary.",
        "ls", "ls is ls", "cd is a shell builtin",
    ]


def test_the_corpus_parses_and_every_category_has_an_owner_or_is_the_shells():
    cases = load()
    assert len(cases) >= 200
    assert {c.category for c in cases} >= {"variables", "expansion", "text", "awk", "files", "files-find"}
    assert set(OWNERS.values()) <= {"shell", "applets", "awk"}
    [case] = parse("# header\n### name !stderr\necho a\n\n", "cat")
    assert case == Case("cat/name", "cat", "echo a", stderr=False)
    with pytest.raises(ValueError):
        parse("echo stray\n### x\ntrue\n", "cat")
    stopped, graced = parse("### a TERM@0.5\nsleep 1\n### b !stderr TERM@1/3\nsleep 9\n", "signals")
    assert (stopped.signal_after_s, stopped.grace_s, stopped.stderr) == (0.5, 2.0, True)
    assert (graced.signal_after_s, graced.grace_s, graced.stderr) == (1.0, 3.0, False)


def test_generated_scripts_end_quickly_and_parse_on_the_oracle(judge):
    started = time.monotonic()
    for seed in range(40):
        r = judge.busybox.run(judge.prefixed(judge.busybox.scratch_parent(), 20_000 + seed, generate(seed)), 5)
        assert r.rc != -1, f"seed {seed} did not end"
        assert "syntax error" not in r.stderr, (seed, generate(seed), r.stderr)
    assert time.monotonic() - started < 30


def test_the_grammar_is_deterministic():
    assert generate(5) == generate(5) and generate(5) != generate(6)


def test_docs_list_every_difference():
    text = DOCS.read_text()
    section = text.split("## Differences from busybox", 1)[1].split("\n## ", 1)[0]
    for d in DIFFERENCES:
        assert re.search(re.escape(d.name), section, re.IGNORECASE), f"docs/shell.md lacks {d.name!r}"


def test_the_fallback_runs_busybox_sh_from_a_scratch_directory(monkeypatch):
    """Without root the oracle is `busybox sh` on the host, PATH only the applet links."""
    from . import busybox_side

    if not busybox_side.available():
        pytest.skip("the oracle /usr/bin/busybox is missing")
    monkeypatch.setattr(busybox_side, "_chroot_possible", lambda: False)
    side = busybox_side.BusyboxSide({}, {"PATH": "/nowhere", "HOME": "/root"}, "oracle")
    try:
        parent = side.scratch_parent()
        r = side.run(f"mkdir -p {parent}/oracle-1 && cd {parent}/oracle-1 && touch x && ls && pwd && echo $PATH")
        assert r.rc == 0, r
        out = normalise(r.stdout, scratch=parent).splitlines()
        assert out[:2] == ["x", "/tmp/oracle-1"] and out[2].endswith("/applets")
    finally:
        side.close()
