"""The shell's builtins, as ash has them: they run inside the shell and change its state.

`BUILTINS` maps a name to `(args, shell) -> process`; `SPECIAL` are POSIX's special
builtins (their prefix assignments stay, they are found before functions). The traps,
`read`, `getopts`, `wait` and `kill` are in fakecri.sim.shell.builtins_io; `test` in
fakecri.sim.shell.testing. Builtins ash has that fakecri does not model are refused
(fakecri.sim.shell.session.refuse)."""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from fakecri.sim.shell import builtins_io, builtins_jobs, hooks, testing
from fakecri.sim.shell.interp import run_text
from fakecri.sim.shell.io import ShellExit
from fakecri.sim.shell.lexer import is_name
from fakecri.sim.shell.state import OPTION_LETTERS, UMASK, Break, Continue, Return, Shell, ShellError
from fakecri.sim.steps import LOOK, Process

Builtin = Callable[[list[str], Shell], Process]
ECHO_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def _colon(args: list[str], sh: Shell) -> Process:
    return 0
    yield


def _false(args: list[str], sh: Shell) -> Process:
    return 1
    yield


def escape_sequence(text: str, i: int) -> tuple[str, int]:
    """busybox's bb_process_escape_sequence on text[i:] (just after a backslash): up to three
    octal digits while the value stays a byte, `x` and up to two hex digits, one of `abefnrtv\\`;
    anything else is the backslash itself, the character after it left to be read."""
    base, j, n, digits = 8, i, 0, 0
    if text[j:j + 1] == "x":
        base, j, digits = 16, j + 1, 1
    while digits < 3 and j < len(text):
        d = int(text[j], 16) if text[j] in "0123456789abcdefABCDEF" else 99
        if d >= base or n * base + d > 0xFF:
            break
        n, j, digits = n * base + d, j + 1, digits + 1
    if base == 16 and digits == 1:
        return "\\", i  # (\x and no hex digit: the backslash, then x)
    if digits:
        return chr(n), j
    if text[i:i + 1] in ECHO_ESCAPES:
        return ECHO_ESCAPES[text[i]], i + 1
    return "\\", i


def echo_text(args: list[str]) -> tuple[str, bool]:
    """busybox echo: -n, -e, -E (also combined); with -e, backslash escapes (\\c ends the output).
    (the text, whether output stopped at \\c)"""
    newline, escapes = True, False
    while args and len(args[0]) > 1 and args[0][0] == "-" and set(args[0][1:]) <= set("neE"):
        for c in args[0][1:]:
            newline = newline and c != "n"
            escapes = True if c == "e" else False if c == "E" else escapes
        args = args[1:]
    text = " ".join(args)
    if escapes and "\\" in text:
        out: list[str] = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch != "\\":
                out.append(ch)
                i += 1
                continue
            i += 1
            if text[i:i + 1] == "c":
                return "".join(out), True
            if text[i:i + 1] == "0" and text[i + 1:i + 2] in tuple("01234567"):
                i += 1  # \0NNN: the 0 is skipped, as SUSv3 has it
            c, i = escape_sequence(text, i)
            out.append(c)
        text = "".join(out)
    return text + ("\n" if newline else ""), False


def _echo(args: list[str], sh: Shell) -> Process:
    text, _ = echo_text(args)
    yield from sh.io.write(text)
    return 0


def _number(builtin: str, text: str, sh: Shell) -> int:
    try:
        if not text.isdigit():
            raise ValueError(text)
        return int(text)
    except ValueError:
        raise ShellError(f"{builtin}: line {sh.line}: Illegal number: {text}") from None


def _exit(args: list[str], sh: Shell) -> Process:
    if args:
        code = _number("exit", args[0], sh) & 0xFF
    else:  # in a trap's action, ash exits with the status the trap began with
        code = sh.status if sh.trap_status is None else sh.trap_status
    raise ShellExit(code)
    yield


def _return(args: list[str], sh: Shell) -> Process:
    code = _number("return", args[0], sh) & 0xFF if args else sh.status
    if not sh.calls and not sh.in_trap and not sh.sourcing:
        raise ShellExit(code)  # ash: `return` outside a function and a `.` script ends a script
    raise Return(code)
    yield


def _break(args: list[str], sh: Shell) -> Process:
    n = _number("break", args[0], sh) if args else 1
    if n < 1:
        raise ShellError(f"break: line {sh.line}: Illegal number: {args[0]}")
    if sh.loops:
        raise Break(min(n, sh.loops))
    return 0
    yield


def _continue(args: list[str], sh: Shell) -> Process:
    n = _number("continue", args[0], sh) if args else 1
    if n < 1:
        raise ShellError(f"continue: line {sh.line}: Illegal number: {args[0]}")
    if sh.loops:
        raise Continue(min(n, sh.loops))
    return 0
    yield


def _shift(args: list[str], sh: Shell) -> Process:
    n = _number("shift", args[0], sh) if args else 1
    if n > len(sh.positional) or n < 0:
        return 1
    sh.positional = sh.positional[n:]
    sh.optind, sh.optoff = 1, -1  # (ash's setparam and shift start getopts again)
    return 0
    yield


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


def _set(args: list[str], sh: Shell) -> Process:
    if not args:
        sh.load_env()
        yield from sh.io.write("".join(f"{k}={_quoted(v)}\n" for k, v in sorted(sh.vars.items())))
        return 0
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            sh.positional = args[i + 1:]
            sh.optind, sh.optoff = 1, -1  # (ash's setparam and shift start getopts again)
            return 0
        if arg in ("-o", "+o"):
            if i + 1 >= len(args):
                yield from sh.io.write("".join(f"{name:<16}{'on' if (letter or name) in sh.options else 'off'}\n"
                                               for name, letter in OPTION_LETTERS.items()))
                return 0
            name = args[i + 1]
            if name not in OPTION_LETTERS:
                yield from sh.io.error(sh.fail("set", f"Illegal option -o {name}"))
                raise ShellExit(2)
            flag = OPTION_LETTERS[name] or name
            (sh.options.add if arg == "-o" else sh.options.discard)(flag)
            i += 2
            continue
        if len(arg) > 1 and arg[0] in "-+":
            for c in arg[1:]:
                if c not in "efuxvnaCh":
                    yield from sh.io.error(sh.fail("set", f"Illegal option {arg[0]}{c}"))
                    raise ShellExit(2)  # a special builtin's error ends a script
                (sh.options.add if arg[0] == "-" else sh.options.discard)(c)
            i += 1
            continue
        if arg == "-":
            sh.options -= {"x", "v"}
            i += 1
            continue
        sh.positional = args[i:]
        sh.optind, sh.optoff = 1, -1  # (ash's setparam and shift start getopts again)
        return 0
    return 0


def _declare(builtin: str, args: list[str], sh: Shell, mark: set[str]) -> Process:
    names = [a for a in args if not a.startswith("-")]
    if not names:
        sh.load_env()
        shown = sorted(k for k in mark if k in sh.vars or builtin == "readonly")
        yield from sh.io.write("".join(f"{builtin} {k}={_quoted(sh.vars[k])}\n" if k in sh.vars else
                                       f"{builtin} {k}\n" for k in shown))
        return 0
    for arg in names:
        name, eq, value = arg.partition("=")
        if not is_name(name):
            yield from sh.io.error(sh.fail(builtin, f"{name}: bad variable name"))
            return 2
        if eq:
            if name in sh.readonly:  # (as ash's setvar says it, inside the builtin)
                raise ShellError(f"{builtin}: line {sh.line}: {name}: is read only")
            sh.set(name, value)
        mark.add(name)
    return 0


def _export(args: list[str], sh: Shell) -> Process:
    return (yield from _declare("export", args, sh, sh.exported))


def _readonly(args: list[str], sh: Shell) -> Process:
    names = [a for a in args if not a.startswith("-")]
    for arg in names:
        name, eq, value = arg.partition("=")
        if eq and is_name(name):
            if name in sh.readonly:
                raise ShellError(f"readonly: line {sh.line}: {name}: is read only")
            sh.set(name, value)
    status = yield from _declare("readonly", [a.partition("=")[0] for a in args], sh, sh.readonly)
    return status


def _unset(args: list[str], sh: Shell) -> Process:
    functions = "-f" in args
    for name in args:
        if name in ("-f", "-v"):
            continue
        if functions:
            sh.functions.pop(name, None)
        elif name in sh.readonly:
            yield from sh.io.error(sh.fail("unset", f"{name}: is read only"))
            raise ShellExit(2)
        else:
            sh.unset(name)
    return 0


def _local(args: list[str], sh: Shell) -> Process:
    if not sh.calls:
        yield from sh.io.error(sh.fail("local", "not in a function"))
        raise ShellExit(2)
    for arg in args:
        name, eq, value = arg.partition("=")
        if not is_name(name):
            yield from sh.io.error(sh.fail("local", f"{name}: bad variable name"))
            return 2
        sh.make_local(name)
        if eq:
            sh.set(name, value)
        else:
            sh.vars.pop(name, None)  # ash: `local x` starts x unset
            if name == "OPTIND":
                sh.reset_getopts("")
    return 0


def _eval(args: list[str], sh: Shell) -> Process:
    text = " ".join(args)
    if not text.strip():
        return 0
    sh.depth += 1
    try:
        return (yield from run_text(text, sh, "eval"))
    finally:
        sh.depth -= 1


def _source(args: list[str], sh: Shell) -> Process:
    if not args:
        yield from sh.io.error(sh.fail(".", "filename argument required"))
        return 2
    path = args[0]
    if sh.io.ctx.userland is None:
        yield from sh.io.error(sh.fail(".", f"can't open '{path}'"))
        raise ShellExit(2)
    yield LOOK
    world = sh.io.ctx.userland()
    full = path if path.startswith("/") else posixpath.join(sh.cwd(), path)
    try:
        text = world.read(full).decode("utf-8", "surrogateescape")
    except Exception as exc:  # the userland's FileError
        reason = getattr(exc, "reason", "No such file or directory")
        yield from sh.io.error(sh.fail(".", f"can't open '{path}': {reason}"))
        raise ShellExit(2) from None
    saved = sh.positional
    if len(args) > 1:
        sh.positional = args[1:]
    sh.depth += 1
    sh.sourcing += 1
    try:
        return (yield from run_text(text, sh, path))
    except Return as r:
        return r.code
    finally:
        sh.depth -= 1
        sh.sourcing -= 1
        if len(args) > 1:
            sh.positional = saved


def _exec(args: list[str], sh: Shell) -> Process:
    from dataclasses import replace

    if not args:
        sh.io = replace(sh.io)  # its redirections stay for the rest of the script
        return 0
    sh.io.inbox.hand_over(sh.traps)  # (signals from outside are the program's now)
    code = yield from hooks.run_external(args, sh, {}, replacing=True)
    raise ShellExit(code)


def _cd(args: list[str], sh: Shell) -> Process:
    args = [a for a in args if a not in ("-L", "-P")]
    target = args[0] if args else (sh.get("HOME") or "/")
    if target == "-":
        target = sh.get("OLDPWD") or "/"
    here = current_dir(sh)
    path = posixpath.normpath(posixpath.join(here, target))
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if sh.io.ctx.userland is not None:
        yield LOOK
        world = sh.io.ctx.userland()
        if not world.is_dir(path):
            reason = "No such file or directory" if not world.exists(path) else "Not a directory"
            yield from sh.io.error(sh.fail("cd", f"can't cd to {target}: {reason}"))
            return 2
    sh.set("OLDPWD", here)
    sh.exported.add("OLDPWD")  # ash exports both as cd sets them
    sh.set("PWD", path)
    for name, (index, _) in sh.hashed.items():
        sh.hashed[name] = (index, True)  # (each looked for again at its next use: `hash` shows a `*`)
    if args and args[0] == "-":
        yield from sh.io.write(path + "\n")
    return 0


def current_dir(sh: Shell) -> str:
    return sh.cwd()


def _pwd(args: list[str], sh: Shell) -> Process:
    path = current_dir(sh)
    physical = [a for a in args if a in ("-L", "-P")][-1:] == ["-P"]
    if physical and sh.io.ctx.userland is not None:  # -P: the directory with its symlinks resolved
        yield LOOK
        try:
            path = sh.io.ctx.userland().resolve(path)
        except Exception:  # the userland's FileError
            pass  # (a directory that went away: the logical path, as ash keeps it)
    yield from sh.io.write(path + "\n")
    return 0


def _umask(args: list[str], sh: Shell) -> Process:
    """ash's umask: `-S` shows it as `u=rwx,g=rx,o=`; a number is taken as it is, a symbolic mode
    (`u=rwx,g=rx,o=`, `g-w`, `a+r`) says what new files may have; a bad one is `illegal mode`."""
    symbolic = False
    while args and args[0] == "-S":
        symbolic, args = True, args[1:]
    mask = int(sh.vars.get(UMASK, "0022"), 8)
    if not args:
        if symbolic:
            yield from sh.io.write(",".join(who + "=" + "".join(p for p, bit in (("r", 4), ("w", 2), ("x", 1))
                                                                if not mask >> shift & bit)
                                             for who, shift in (("u", 6), ("g", 3), ("o", 0))) + "\n")
        else:
            yield from sh.io.write(f"{mask:04o}\n")
        return 0
    text = args[0]
    new = _umask_mode(text, mask)
    if new is None:
        yield from sh.io.error(sh.fail("umask", f"illegal mode: {text}"))
        return 2
    sh.vars[UMASK] = f"{new:04o}"
    return 0


def _umask_mode(text: str, mask: int) -> int | None:
    """busybox's bb_parse_mode as umask uses it: octal as it is, else clauses on the bits new files
    may have (the mask inverted), the result inverted back."""
    if text[:1].isdigit():
        return int(text, 8) if text.isdigit() and all(c < "8" for c in text) and int(text, 8) <= 0o777 else None
    allowed = ~mask & 0o777
    for clause in text.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwx]*)", clause)
        if m is None:
            return None
        who = sum({"u": 0o700, "g": 0o070, "o": 0o007, "a": 0o777}[c] for c in set(m.group(1))) or 0o777
        bits = sum({"r": 0o444, "w": 0o222, "x": 0o111}[c] for c in set(m.group(3))) & who
        if m.group(2) == "=":
            allowed = allowed & ~who | bits
        elif m.group(2) == "+":
            allowed |= bits
        else:
            allowed &= ~bits
    return ~allowed & 0o777


def _alias(args: list[str], sh: Shell) -> Process:
    if not args:
        yield from sh.io.write("".join(f"{k}={_quoted(v)}\n" for k, v in sorted(sh.aliases.items())))
        return 0
    status = 0
    for arg in args:
        name, eq, value = arg.partition("=")
        if eq:
            sh.aliases[name] = value
        elif name in sh.aliases:
            yield from sh.io.write(f"{name}={_quoted(sh.aliases[name])}\n")
        else:
            yield from sh.io.error(f"alias: {name} not found\n")
            status = 1
    return status


def _unalias(args: list[str], sh: Shell) -> Process:
    if args[:1] == ["-a"]:
        sh.aliases.clear()
        return 0
    status = 0
    for name in args:
        if sh.aliases.pop(name, None) is None:
            yield from sh.io.error(f"unalias: {name} not found\n")
            status = 1
    return status


def _times(args: list[str], sh: Shell) -> Process:
    """The shell's and its children's CPU times: a simulated process uses none."""
    yield from sh.io.write("0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n")
    return 0


def _let(args: list[str], sh: Shell) -> Process:
    from fakecri.sim.shell.arith import ArithError, evaluate

    if not args:
        yield from sh.io.error(sh.fail("let", "expression expected"))
        return 1
    value = 0
    for expr in args:
        try:
            value = evaluate(expr, sh.get, sh.set)
        except ArithError as exc:
            raise ShellError(exc.message) from None
    return int(value == 0)


BUILTINS: dict[str, Builtin] = {
    ":": _colon, "true": _colon, "false": _false, "echo": _echo, "exit": _exit, "return": _return,
    "break": _break, "continue": _continue, "shift": _shift, "set": _set, "export": _export,
    "readonly": _readonly, "unset": _unset, "local": _local, "eval": _eval, ".": _source, "source": _source,
    "exec": _exec, "cd": _cd, "chdir": _cd, "pwd": _pwd, "umask": _umask, "let": _let,
    "alias": _alias, "unalias": _unalias, "times": _times,
    "test": testing.test, "[": testing.bracket, **builtins_io.BUILTINS, **builtins_jobs.BUILTINS,
}
SPECIAL = frozenset({":", ".", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set",
                     "shift", "trap", "unset", "local", "source", "times"})
