"""awk as busybox 1.35 runs it: `awk [-F SEP] [-v VAR=VAL]... [-f PROGFILE | -e PROG | PROG] [FILE|VAR=VAL]...`.

The program is cut into tokens (`lexer`), parsed to a tree (`parser`, `ast`) and walked
(`interp`, with `builtins`, `format` for printf, `records` for RS/FS and arrays, `streams`
for files and commands). Messages and exit codes are busybox's: a syntax or run-time error
is `awk: cmd. line:N: message` (or `awk: PROGFILE:N: ...`), exit 1. What is not modelled
says so on one line (`awk: ... not modelled by fakecri`), exit 2.
"""
from __future__ import annotations

from fakecri.sim.applets.awk.errors import AwkError, Fatal, NotModelled
from fakecri.sim.applets.awk.interp import Interp
from fakecri.sim.applets.awk.lexer import AwkSyntaxError, unescape
from fakecri.sim.applets.awk.parser import parse
from fakecri.sim.applets.awk.records import AwkArray
from fakecri.sim.applets.awk.streams import InputMissing, OpenFailed, Streams
from fakecri.sim.applets.awk.values import StrNum, from_text
from fakecri.sim.shell import Command, Io, Process
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.world import FileError

USAGE = """BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.

Usage: awk [OPTIONS] [AWK_PROGRAM] [FILE]...

\t-v VAR=VAL\tSet variable
\t-F SEP\t\tUse SEP as field separator
\t-f FILE\t\tRead program from FILE
\t-e AWK_PROGRAM
"""


def _unescape(text: str) -> str:
    """A -v or operand value, its escapes taken as in a string."""
    try:
        return unescape(text.replace("\n", "\\n") + '"', 0, '"')[0]
    except AwkSyntaxError:
        return text


def _options(args: list[str]) -> tuple[dict[str, list[str]], list[str]] | str:
    """({option: values}, operands), or the bad option."""
    opts: dict[str, list[str]] = {"F": [], "v": [], "f": [], "e": []}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return opts, args[i + 1:]
        if not arg.startswith("-") or arg == "-":
            break
        j = 1
        while j < len(arg):
            ch = arg[j]
            if ch not in opts:
                return ch
            value = arg[j + 1:]
            if not value:
                i += 1
                if i >= len(args):
                    return ch
                value = args[i]
            opts[ch].append(value)
            break
        i += 1
    return opts, args[i:]


def awk(args: list[str], io: Io) -> Process:
    parsed = _options([from_text(x) for x in args])
    if isinstance(parsed, str):
        if parsed not in "Fvfe":
            yield from io.error(f"awk: invalid option -- '{parsed}'\n")
        yield from io.error(USAGE)
        return 1
    opts, operands = parsed
    progname = "cmd. line"
    if opts["f"]:
        world = yield from looking(io)
        texts = []
        for path in opts["f"]:
            try:
                texts.append(from_text(world.read(path).decode("utf-8", "surrogateescape")))
            except FileError as exc:
                yield from io.error(f"awk: can't open '{path}': {exc.reason}\n")
                return 1
        progname = opts["f"][-1]
        text = "\n".join(texts + opts["e"])
    elif opts["e"]:
        text = "\n".join(opts["e"])
    elif operands:
        text, operands = operands[0], operands[1:]
    else:
        yield from io.error(USAGE)
        return 1
    if any("=" not in v for v in opts["v"]):
        yield from io.error(USAGE)
        return 1
    try:
        program = parse(text)
    except AwkSyntaxError as exc:
        yield from io.error(f"awk: {progname}:{exc.line}: {exc.message}\n")
        return 1
    except RecursionError:
        yield from io.error("awk: a program nested this deep is not modelled by fakecri\n")
        return 2
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, ArithmeticError) as exc:
        yield from io.error(f"awk: this program ({type(exc).__name__}: {exc}) is not modelled by fakecri\n")
        return 2
    streams = Streams(io, _unescape)
    interp = Interp(program, streams)
    _set_up(interp, io, opts, operands)
    status = 0
    try:
        status = yield from interp.main()
        yield from streams.finish()
    except AwkError as exc:
        yield from streams.error(f"awk: {progname}:{interp.line}: {exc}\n")
        return 1
    except (OpenFailed, InputMissing, Fatal) as exc:
        yield from streams.error(f"awk: {exc}\n")
        return 1
    except NotModelled as exc:
        yield from streams.error(f"awk: {exc} not modelled by fakecri\n")
        return 2
    except RecursionError:
        yield from streams.error("awk: calls nested this deep are not modelled by fakecri\n")
        return 2
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, ArithmeticError) as exc:
        # (a case the evaluator does not handle: said so, never a traceback in the container)
        yield from streams.error(f"awk: this program ({type(exc).__name__}: {exc}) is not modelled by fakecri\n")
        return 2
    return status


def _set_up(interp: Interp, io: Io, opts: dict[str, list[str]], operands: list[str]) -> None:
    v = interp.vars
    v.update(FS=" ", OFS=" ", ORS="\n", RS="\n", SUBSEP="\034", CONVFMT="%.6g", OFMT="%.6g", NR=0.0, FNR=0.0)
    if opts["F"]:
        fs = _unescape(opts["F"][-1])
        v["FS"] = fs
    env = AwkArray()
    exported = getattr(io, "environ", None)  # the shell's exported variables, where its Io carries them
    environ = exported() if callable(exported) else io.ctx.userland().env() if io.ctx.userland is not None else {}
    for key, value in environ.items():
        env.set(from_text(key), StrNum(from_text(value)))
    v["ENVIRON"] = env
    argv = AwkArray()
    argv.set("0", "awk")
    for i, operand in enumerate(operands, 1):
        argv.set(str(i), StrNum(operand))
    v["ARGV"] = argv
    v["ARGC"] = float(len(operands) + 1)
    for assignment in opts["v"]:
        name, _, value = assignment.partition("=")
        v[name] = StrNum(_unescape(value))


AWK_COMMANDS: dict[str, Command] = {"awk": awk}
