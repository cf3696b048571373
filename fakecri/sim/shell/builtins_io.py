"""The builtins that deal with input, signals and other processes: `read`, `trap`,
`wait`, `kill`, `getopts`, `command`, `type`.

A trap on SIGTERM tells the driver that the signal now goes into the shell (a `Trap` step):
a stop then delivers it into the running interpreter (jobs.py), which runs the action as
ash does, and sees how the shell ends from there.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Generator

from fakecri.sim.shell import hooks, jobs
from fakecri.sim.shell.builtins_jobs import job_pid
from fakecri.sim.shell.interp import take_signal
from fakecri.sim.shell.io import Input, ReadTimedOut, Signalled
from fakecri.sim.shell.lexer import is_name
from fakecri.sim.shell.parser import RESERVED
from fakecri.sim.shell.state import Shell, ShellError
from fakecri.sim.steps import Process, Reply, Step, Trap

SIGNALS = {"EXIT": 0, "HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8,
           "KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15, "STKFLT": 16,
           "CHLD": 17, "CONT": 18, "STOP": 19, "TSTP": 20, "TTIN": 21, "TTOU": 22, "URG": 23, "XCPU": 24,
           "XFSZ": 25, "VTALRM": 26, "PROF": 27, "WINCH": 28, "POLL": 29, "PWR": 30, "SYS": 31}
NUMBERS = {n: name for name, n in SIGNALS.items()}
DIED_OF = {128 + 15: "Terminated\n", 128 + 9: "Killed\n", 128 + 1: "Hangup\n"}


def signal_name(text: str) -> str | None:
    t = text.upper()
    if t.startswith("SIG"):
        t = t[3:]
    if t.isdigit():
        return NUMBERS.get(int(t))
    return t if t in SIGNALS else None


# ---------------------------------------------------------------- read


_TIMEOUT = re.compile(r"\d+(\.\d*)?|\.\d+")


def _read_options(args: list[str], sh: Shell) -> tuple[dict[str, str], list[str]] | str:
    """busybox's `read` options (getopt "p:t:u:n:d:rs"): (them, the names), or the error."""
    opts: dict[str, str] = {}
    i = 0
    while i < len(args) and args[i].startswith("-") and len(args[i]) > 1:
        a = args[i]
        i += 1
        if a == "--":
            break
        j = 1
        while j < len(a):
            c = a[j]
            if c in "rs":
                opts[c] = ""
                j += 1
                continue
            if c not in "ptund":
                return sh.fail("read", f"illegal option -{c}")
            value = a[j + 1:]
            if not value:
                if i >= len(args):
                    return sh.fail("read", f"no arg for -{c} option")
                value = args[i]
                i += 1
            opts[c] = value
            break
    return opts, args[i:]


def _read(args: list[str], sh: Shell) -> Process:
    """`read [-rs] [-p PROMPT] [-t SECONDS] [-n COUNT] [-d DELIM] [-u FD] [NAME]...`. With `-t` a
    read from a pipe gives up once that much simulated time has passed (busybox's: status 1, the
    names untouched, what had come of the line lost; `-t 0` only asks and succeeds); the real
    input of an exec or a terminal is waited for as without one."""
    parsed = _read_options(args, sh)
    if isinstance(parsed, str):
        yield from sh.io.error(parsed)
        return 2
    opts, names = parsed
    raw, prompt = "r" in opts, opts.get("p", "")
    if "t" in opts and not _TIMEOUT.fullmatch(opts["t"]):
        yield from sh.io.error(sh.fail("read", "invalid timeout"))
        return 2
    for key in ("n", "u"):
        if key in opts and not opts[key].isdigit():
            yield from sh.io.error(sh.fail("read", "invalid count" if key == "n" else "invalid file descriptor"))
            return 2
    names = names or ["REPLY"]
    for name in names:
        if not is_name(name):
            yield from sh.io.error(sh.fail("read", f"'{name}': not a valid identifier"))
            return 2
    if "t" in opts and float(opts["t"]) == 0:
        return 0  # (only asks whether input is there)
    source = sh.io.stdin
    if "u" in opts and int(opts["u"]) != 0:
        found = sh.io.inputs.get(int(opts["u"]))
        if found is None:
            return 1
        source = found
    if prompt and sh.io.ctx.tty:
        yield from sh.io.error(prompt)
    delim = (opts["d"][:1] or "\0") if "d" in opts else "\n"
    left = int(opts["n"]) if "n" in opts else None
    until = None
    if "t" in opts:
        now = yield from jobs.ask(jobs.Now(0))
        whole, _, frac = opts["t"].partition(".")
        until = None if now < 0 else now + (int(whole or 0) * 1000 + int((frac + "00")[:3])) * 1_000_000
    try:
        text, eof = yield from _read_line(source, delim, left, raw, until)
    except ReadTimedOut:
        return 1
    _assign_fields(text, names, raw, sh)
    return 1 if eof else 0


def _read_line(source: Input, delim: str, left: int | None, raw: bool,
               until: int | None) -> Generator[Step, Reply, tuple[str, bool]]:
    """What `read` takes: (the text without its delimiter, whether the input ended first)."""
    delim_b = delim.encode("utf-8", "surrogateescape")
    text = ""
    eof = False
    while True:
        got = yield from source.read_upto(delim_b, left, until)
        if got is None:
            eof = True
            break
        chunk = got.decode("utf-8", "surrogateescape")
        ended = chunk.endswith(delim)
        if ended:
            chunk = chunk[:-len(delim)]
        if left is not None:
            left -= len(got)
        if not raw and ended and delim == "\n" and chunk.endswith("\\") and not chunk.endswith("\\\\") \
                and left != 0:
            text += chunk[:-1]
            continue
        text += chunk
        eof = not ended and left != 0
        break
    return text, eof


def _assign_fields(text: str, names: list[str], raw: bool, sh: Shell) -> None:
    ifs = sh.ifs()
    white = "".join(c for c in ifs if c in " \t\n")
    # characters a backslash quoted stay as they are; here they are marked, then unmarked
    chars: list[tuple[str, bool]] = []
    i = 0
    while i < len(text):
        if not raw and text[i] == "\\" and i + 1 < len(text):
            chars.append((text[i + 1], True))
            i += 2
            continue
        if not raw and text[i] == "\\":
            i += 1
            continue
        chars.append((text[i], False))
        i += 1
    pos = 0

    def skip_white() -> None:
        nonlocal pos
        while pos < len(chars) and not chars[pos][1] and chars[pos][0] in white:
            pos += 1

    skip_white()
    for n, name in enumerate(names):
        if n == len(names) - 1:
            rest = chars[pos:]
            while rest and not rest[-1][1] and rest[-1][0] in white:
                rest.pop()
            if rest and not rest[-1][1] and rest[-1][0] in ifs and len(names) > 1:
                # a single trailing non-white separator goes
                body = rest[:-1]
                if not any(not q and c in ifs and c not in white for c, q in body):
                    rest = body
            sh.set(name, "".join(c for c, _ in rest))
            break
        field: list[str] = []
        while pos < len(chars) and (chars[pos][1] or chars[pos][0] not in ifs):
            field.append(chars[pos][0])
            pos += 1
        if pos < len(chars) and chars[pos][0] in ifs and chars[pos][0] not in white:
            pos += 1
            skip_white()
        else:
            skip_white()
            if pos < len(chars) and not chars[pos][1] and chars[pos][0] in ifs and chars[pos][0] not in white:
                pos += 1
                skip_white()
        sh.set(name, "".join(field))


# ---------------------------------------------------------------- trap


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


def _trap(args: list[str], sh: Shell) -> Process:
    if args and args[0] == "--":
        args = args[1:]
    if not args or args == ["-p"]:
        for name in sorted(sh.traps, key=lambda n: SIGNALS.get(n, 99)):
            yield from sh.io.write(f"trap -- {_quote(sh.traps[name])} {name}\n")
        return 0
    if args[0] == "-l":
        yield from sh.io.write("".join(f"{n}) {name}\n" for n, name in sorted(NUMBERS.items())))
        return 0
    if len(args) == 1:
        action, sigs = "-", args  # `trap SIG`: back to the default
    else:
        action, sigs = args[0], args[1:]
        if signal_name(action) is not None and action.isdigit():
            action, sigs = "-", args
    status = 0
    for sig in sigs:
        found = signal_name(sig)
        if found is None:
            yield from sh.io.error(sh.fail("trap", f"{sig}: invalid signal specification"))
            status = 1
            continue
        name = found
        if action == "-":
            sh.traps.pop(name, None)
        else:
            sh.traps[name] = action
        if name == "TERM":
            yield term_trap(sh)
    return status


def term_trap(sh: Shell) -> Trap:
    """What the shell says of SIGTERM now: a trap with an action takes the signal into the
    shell (a stop runs it on from the moment the signal comes to see how it ends); none, or
    an empty one, and the signal does nothing to a container's PID 1."""
    action = sh.traps.get("TERM")
    return Trap(None, 0) if not action else Trap(None, None, delivered=True)


# ---------------------------------------------------------------- jobs


def _wait(args: list[str], sh: Shell) -> Process:
    pids: list[int] = []
    for a in args:
        if a.startswith("%"):
            job = job_pid(a, sh)
            if job is None:
                yield from sh.io.error(sh.fail("wait", f"{a}: no such job"))
                return 2
            a = str(job)
        if not a.isdigit():
            yield from sh.io.error(sh.fail("wait", f"Illegal number: {a}"))
            return 2
        pids.append(int(a))
    if not args:
        try:
            yield from jobs.ask(jobs.WaitFor(0, tuple(sh.jobs), by=sh.signals))
        except Signalled:
            return 128 + (sh.signals[0][1] if sh.signals else 15)
        return 0
    try:
        got = yield from jobs.ask(jobs.WaitFor(0, tuple(pids), by=sh.signals))
    except Signalled:  # a trapped signal ends the wait (its trap runs once the wait is done)
        return 128 + (sh.signals[0][1] if sh.signals else 15)
    status = got if got >= 0 else 127
    if status in DIED_OF:
        yield from sh.io.error(DIED_OF[status])  # as ash reports a job a signal ended
    return status


def _kill(args: list[str], sh: Shell) -> Process:
    sig = "TERM"
    if args and args[0] == "-l":
        if len(args) > 1:  # the name of a signal (or of the signal a status 128+N says)
            for a in args[1:]:
                n = int(a) if a.isdigit() else -1
                name = NUMBERS.get(n - 128 if n > 128 else n)
                if name is None or name == "EXIT":
                    yield from sh.io.error(f"{sh.name}: kill: bad signal number '{a}'\n" if a.isdigit() else
                                           f"{sh.name}: kill: bad signal name '{a}'\n")
                    return 1
                yield from sh.io.write(name + "\n")
            return 0
        yield from sh.io.write("".join(f"{n:2d}) {name}\n" for n, name in sorted(NUMBERS.items()) if n))
        return 0
    if args and args[0] == "-s" and len(args) > 1:
        sig, args = args[1], args[2:]
    elif args and args[0].startswith("-") and len(args[0]) > 1:
        sig, args = args[0][1:], args[1:]
    name = "EXIT" if sig == "0" else signal_name(sig)
    if name is None:
        yield from sh.io.error(f"{sh.name}: kill: bad signal name '{sig}'\n" if not sig.isdigit() else
                               f"{sh.name}: kill: bad signal number '{sig}'\n")
        return 1
    if not args:
        yield from sh.io.error(f"{sh.name}: you need to specify whom to kill\n")
        return 1
    status = 0
    for target in args:
        if target.startswith("%"):
            job = job_pid(target, sh)
            if job is None:
                yield from sh.io.error(sh.fail("kill", f"{target}: no such job"))
                status = 2
                continue
            target = str(job)
        if not target.lstrip("-").isdigit():
            yield from sh.io.error(f"{sh.name}: kill: invalid number '{target}'\n")
            status = 1
            continue
        pid = int(target)
        if pid == sh.pid and sh.subshell and name != "EXIT":  # `$$` is the shell that made the subshell
            sh.signals.append((name, SIGNALS[name]))
            yield from jobs.ask(jobs.Notify(0, 0))
            continue
        if pid == sh.pid:
            if name == "EXIT":
                continue
            yield from _signal_self(name, sh)
            continue
        got = yield from jobs.ask(jobs.Signal(0, pid, 0 if name == "EXIT" else 128 + SIGNALS[name]))
        if got != 0:
            yield from sh.io.error(f"{sh.name}: can't kill pid {pid}: No such process\n")
            status = 1
    return status


def _signal_self(name: str, sh: Shell) -> Process:
    """A signal to the shell itself: its trap runs, or (no trap) it dies of it."""
    return (yield from take_signal(sh, name, SIGNALS[name]))


# ---------------------------------------------------------------- getopts, command, type


def _getopts(args: list[str], sh: Shell) -> Process:
    """ash's getopts: its place is sh.optind/optoff (OPTIND is only written, except that assigning
    it starts again); OPTARG is "" for an option without a value, unset at the end and after an
    error that is reported, the letter after one that is not (a leading `:` or OPTERR=0)."""
    if len(args) < 2:
        yield from sh.io.error(sh.fail("getopts", "usage: getopts optstring var [arg]"))
        return 2
    spec, name = args[0], args[1]
    params = args[2:] if len(args) > 2 else sh.positional
    if sh.optind > len(params) + 1:
        sh.optind, sh.optoff = 1, -1
    ind, off = sh.optind, sh.optoff
    quiet = spec.startswith(":") or sh.get("OPTERR") == "0"
    nxt = ind - 1  # the index in params of the next word
    c = "?"
    done = 0
    word = params[nxt - 1] if ind > 1 and off >= 0 and len(params[nxt - 1]) >= off else None
    pos = off
    if word is None or pos >= len(word):
        word = params[nxt] if nxt < len(params) else None
        if word is None or not word.startswith("-") or word == "-" or word == "--":
            if word == "--":
                nxt += 1
            sh.vars.pop("OPTARG", None)
            word, done = None, 1
        else:
            nxt += 1
            pos = 1
    if word is not None:
        c = word[pos]
        pos += 1
        at = spec.find(c) if c != ":" else -1
        if at < 0:
            if quiet:
                sh.set("OPTARG", c)
            else:
                yield from sh.io.error(f"Illegal option -{c}\n")
                sh.vars.pop("OPTARG", None)
            c = "?"
        elif spec[at + 1:at + 2] == ":":
            if pos >= len(word) and nxt >= len(params):
                if quiet:
                    sh.set("OPTARG", c)
                    c = ":"
                else:
                    yield from sh.io.error(f"No arg for -{c} option\n")
                    sh.vars.pop("OPTARG", None)
                    c = "?"
            else:
                if pos >= len(word):
                    value = params[nxt]
                    nxt += 1
                else:
                    value = word[pos:]
                sh.set("OPTARG", value)
                word = None
        else:
            sh.set("OPTARG", "")
    ind = nxt + 1
    sh.vars["OPTIND"] = str(ind)  # (written without the reset an assignment makes)
    sh.set(name, c)
    sh.optoff = pos if word is not None and not done else -1
    sh.optind = ind
    return done


def describe(name: str, sh: Shell) -> tuple[str, str] | None:
    """What `name` is: ("function" | "builtin" | "command" | "reserved", its path or name; or
    "alias" and its text: ash looks at aliases after the keywords)."""
    if name in RESERVED or name in ("then", "done", "fi", "esac"):
        return "reserved", name
    if name in sh.aliases:
        return "alias", sh.aliases[name]
    if name in sh.functions:
        return "function", name
    if name in hooks.builtins:
        return ("special" if name in hooks.special else "builtin"), name
    if "/" in name:
        return ("command", name) if hooks.get("applet_path")(name, sh.io) else None
    if hooks.get("find_command")(name, sh.io) is not None:
        return "command", "/bin/" + name
    found = hooks.get("path_of")(name, sh)
    return None if found is None else ("command", found)


def _command(args: list[str], sh: Shell) -> Process:
    if args and args[0] in ("-v", "-V"):
        verbose = args[0] == "-V"
        status = 0
        for name in args[1:]:
            what = describe(name, sh)
            if what is None:
                if verbose:
                    yield from sh.io.error(f"{name}: not found\n")
                status = 127
                continue
            kind, path = what
            if verbose:
                yield from sh.io.write(_type_line(name, kind, path))
            elif kind == "alias":
                yield from sh.io.write(f"alias {name}={_quote(path)}\n")
            else:
                yield from sh.io.write((path if kind == "command" else name) + "\n")
        return status
    if args and args[0] == "-p":
        args = args[1:]
    if not args:
        return 0
    if args[0] in hooks.builtins:
        return (yield from hooks.builtins[args[0]](args[1:], sh))
    return (yield from hooks.run_external(args, sh, {}))


def _type_line(name: str, kind: str, path: str) -> str:
    return {"function": f"{name} is a function\n", "builtin": f"{name} is a shell builtin\n",
            "reserved": f"{name} is a shell keyword\n", "special": f"{name} is a special shell builtin\n",
            "alias": f"{name} is an alias for {path}\n"}.get(kind, f"{name} is {path}\n")


def _type(args: list[str], sh: Shell) -> Process:
    status = 0
    for name in args:
        what = describe(name, sh)
        if what is None:
            yield from sh.io.write(f"{name}: not found\n")
            status = 127
            continue
        yield from sh.io.write(_type_line(name, *what))
    return status


def _raise(message: str) -> Callable[[list[str], Shell], Process]:
    def run(args: list[str], sh: Shell) -> Process:
        raise ShellError(message)
        yield

    return run


BUILTINS = {"read": _read, "trap": _trap, "wait": _wait, "kill": _kill, "getopts": _getopts,
            "command": _command, "type": _type}
