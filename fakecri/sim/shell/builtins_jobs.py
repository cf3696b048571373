"""ash's builtins for a shell's own process and jobs, as busybox 1.35 has them in a script:
`ulimit`, `hash`, `jobs`, `fg`, `bg`, `history`, and the job specs (`%1 %% %+ %-`) that `kill`
and `wait` take too.

`ulimit` reads and sets the shell's simulated resource limits (a subshell gets a copy). They
start as a containerd 2 node's containers have them: containerd sets none of its own, so each
is what systemd gives a service (open files 1024, up to 524288; core files 0, up to unlimited)
or the kernel's default (stack 8 MiB, locked memory 8 MiB, message queues 819200 bytes). Raising
a hard limit needs CAP_SYS_RESOURCE, which a container lacks unless given it (and open files
stop at the kernel's nr_open, 1048576, even then). Nothing enforces the limits: no write fails
past `-f`, no program is refused a descriptor past `-n`.

A script's shell has no job control: `fg` and `bg` say so; `jobs` lists the background jobs,
most recent first, and forgets a finished one once it has shown it.
"""
from __future__ import annotations

from collections.abc import Callable, Generator

from fakecri.sim.shell import hooks, jobs, search
from fakecri.sim.shell.state import Shell
from fakecri.sim.steps import Process, Reply, Step

Builtin = Callable[[list[str], Shell], Process]
UNLIMITED = -1
NR_OPEN = 1 << 20
# letter -> (what `ulimit -a` calls it, unit in bytes (1: a count), soft, hard), in busybox's order
LIMITS: dict[str, tuple[str, int, int, int]] = {
    "c": ("core file size (blocks)", 512, 0, UNLIMITED),
    "d": ("data seg size (kb)", 1024, UNLIMITED, UNLIMITED),
    "e": ("scheduling priority", 1, 0, 0),
    "f": ("file size (blocks)", 512, UNLIMITED, UNLIMITED),
    "i": ("pending signals", 1, 63379, 63379),
    "l": ("max locked memory (kb)", 1024, 8 << 20, 8 << 20),
    "m": ("max memory size (kb)", 1024, UNLIMITED, UNLIMITED),
    "n": ("open files", 1, 1024, 524288),
    "q": ("POSIX message queues (bytes)", 1, 819200, 819200),
    "r": ("real-time priority", 1, 0, 0),
    "s": ("stack size (kb)", 1024, 8 << 20, UNLIMITED),
    "t": ("cpu time (seconds)", 1, UNLIMITED, UNLIMITED),
    "u": ("max user processes", 1, 63379, 63379),
    "v": ("virtual memory (kb)", 1024, UNLIMITED, UNLIMITED),
    "x": ("file locks", 1, UNLIMITED, UNLIMITED),
}
DEAD = {128 + 15: "Terminated", 128 + 9: "Killed", 128 + 1: "Hangup", 128 + 2: "Interrupt", 128 + 3: "Quit",
        128 + 6: "Aborted", 128 + 13: "Broken pipe", 128 + 14: "Alarm clock"}


def _limit(sh: Shell, letter: str) -> tuple[int, int]:
    if letter in sh.limits:
        return sh.limits[letter]
    _, _, soft, hard = LIMITS[letter]
    return soft, hard


def _shown(value: int, unit: int) -> str:
    return "unlimited" if value == UNLIMITED else str(value // unit)


def _may_raise(sh: Shell) -> bool:
    world = sh.io.ctx.userland
    return world is not None and bool(world().who.has("SYS_RESOURCE"))


def _ulimit(args: list[str], sh: Shell) -> Process:
    which = ""  # H, S or "" (both)
    letters: list[str] = []
    every = False
    rest = list(args)
    while rest and rest[0].startswith("-") and len(rest[0]) > 1:
        for c in rest.pop(0)[1:]:
            if c in "HS":
                which = c
            elif c == "a":
                every = True
            elif c in LIMITS:
                letters.append(c)
            else:
                yield from sh.io.error(f"ulimit: invalid option -- '{c}'\n")
                return 1
    if every:
        letters = list(LIMITS)
    letters = letters or ["f"]
    if rest and not every:
        return (yield from _set_limit(letters[-1], rest[0], which, sh))
    labelled = len(letters) > 1
    out = []
    for c in letters:
        soft, hard = _limit(sh, c)
        value = _shown(hard if which == "H" else soft, LIMITS[c][1])
        out.append(f"{LIMITS[c][0]:<32}(-{c}) {value}\n" if labelled else value + "\n")
    yield from sh.io.write("".join(out))
    return 0


def _set_limit(letter: str, text: str, which: str, sh: Shell) -> Process:
    unit = LIMITS[letter][1]
    if text == "unlimited":
        value = UNLIMITED
    elif text.isdigit():
        value = int(text) * unit
    else:
        yield from sh.io.error(f"{sh.name}: invalid number '{text}'\n")
        return 1
    soft, hard = _limit(sh, letter)
    new_soft = soft if which == "H" else value
    new_hard = hard if which == "S" else value

    def above(a: int, b: int) -> bool:  # a > b, with unlimited above everything
        return a != b and (a == UNLIMITED or (b != UNLIMITED and a > b))

    problem = ""
    if above(new_soft, new_hard):
        problem = "Invalid argument"
    elif above(new_hard, hard) and (not _may_raise(sh) or (letter == "n" and above(new_hard, NR_OPEN))):
        problem = "Operation not permitted"
    if problem:
        yield from sh.io.error(f"{sh.name}: error setting limit: {problem}\n")
        return 1
    sh.limits[letter] = (new_soft, new_hard)
    return 0


def _hash(args: list[str], sh: Shell) -> Process:
    """ash's table of the programs it found on PATH (search.py): `hash` lists it, `hash -r` empties
    it, `hash NAME` looks NAME up afresh (a builtin, a function or an applet is not noted)."""
    status = 0
    if args[:1] == ["-r"]:
        sh.hashed.clear()
        return 0
    if args[:1] == ["--"]:
        args = args[1:]
    elif args and args[0].startswith("-") and len(args[0]) > 1:
        yield from sh.io.error(sh.fail("hash", f"illegal option {args[0][:2]}"))
        return 2
    if not args:
        yield from sh.io.write(search.listing(sh))
        return 0
    for name in args:
        sh.hashed.pop(name, None)  # (looked up afresh)
        if name in sh.functions or name in hooks.builtins or "/" in name:
            continue
        if hooks.get("find_command")(name, sh.io) is not None:
            continue  # (an applet: busybox runs it without PATH, and notes nothing)
        if hooks.get("path_of")(name, sh) is not None:
            continue
        yield from sh.io.error(sh.fail("hash", f"{name}: not found"))
        status = 1
    return status


def job_pid(spec: str, sh: Shell) -> int | None:
    """The pid of the job `spec` names (`%N`, `%%`, `%+`, `%-`), None when there is none."""
    numbered = sorted(sh.job_numbers.items(), key=lambda kv: sh.jobs.index(kv[0]) if kv[0] in sh.jobs else -1)
    if spec in ("%%", "%+", "%") and numbered:
        return numbered[-1][0]
    if spec == "%-" and len(numbered) > 1:
        return numbered[-2][0]
    if spec[1:].isdigit():
        return next((pid for pid, n in sh.job_numbers.items() if n == int(spec[1:])), None)
    return None


def _state(pid: int) -> Generator[Step, Reply, int | None]:
    """The job's exit status, None while it runs."""
    running = yield from jobs.ask(jobs.Signal(0, pid, 0))
    if running == 0:
        return None
    return (yield from jobs.ask(jobs.WaitFor(0, (pid,))))


def _jobs(args: list[str], sh: Shell) -> Process:
    pids_only = "-p" in args
    with_pid = "-l" in args
    specs = [a for a in args if not a.startswith("-")]
    chosen = []
    for spec in specs:
        pid = job_pid(spec, sh)
        if pid is None:
            yield from sh.io.error(sh.fail("jobs", f"{spec}: no such job"))
            return 2
        chosen.append(pid)
    order = [pid for pid in reversed(sh.jobs) if pid in sh.job_numbers and (not specs or pid in chosen)]
    out = []
    for pid in order:
        status = yield from _state(pid)
        live = [p for p in reversed(sh.jobs) if p in sh.job_numbers]
        mark = "+" if live[:1] == [pid] else "-" if live[1:2] == [pid] else " "
        if pids_only:
            out.append(f"{pid}\n")
        else:
            state = "Running" if status is None else "Done" if status == 0 else DEAD.get(status, f"Done({status})")
            head = f"[{sh.job_numbers[pid]}]{mark}  " + (f"{pid} " if with_pid else "") + state
            out.append(head.ljust(33) + "\n")
        if status is not None:
            del sh.job_numbers[pid]  # shown as done: forgotten
            sh.jobs.remove(pid)
    yield from sh.io.write("".join(out))
    return 0


def _no_job_control(name: str) -> Builtin:
    def run(args: list[str], sh: Shell) -> Process:
        spec = args[0] if args else ""
        if not spec:
            message = "job (null) not created under job control" if sh.job_numbers else "No current job"
        elif spec == "%-" and len(sh.job_numbers) < 2:
            message = "No previous job"
        elif spec.startswith("%") and job_pid(spec, sh) is not None:
            message = f"job {spec} not created under job control"
        else:
            message = f"{spec}: no such job"
        yield from sh.io.error(sh.fail(name, message))
        return 2
    return run


def _history(args: list[str], sh: Shell) -> Process:
    return 0  # a script's shell keeps no history
    yield


BUILTINS: dict[str, Builtin] = {"ulimit": _ulimit, "hash": _hash, "jobs": _jobs, "fg": _no_job_control("fg"),
                                "bg": _no_job_control("bg"), "history": _history}
