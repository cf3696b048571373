"""awk's built-in functions, busybox's way.

`substr(s, m, n)` truncates m and n toward zero and starts no earlier than the first
character; `index(s, "")` is 0; in `sub`/`gsub` replacements `&` is the match, `\\&` a
plain `&`, `\\\\&` a backslash and the match, and `\\0`-`\\9` the match and its groups (a
busybox extension). `and or xor lshift rshift compl` work on 64-bit unsigned integers.
`rand()` is a seeded generator of fakecri's own (Python's Mersenne Twister; busybox's host C
library differs), seed 0 until `srand(n)`; `srand()` seeds with the simulated clock's
seconds. The math functions (`sqrt exp log sin cos atan2`, `^`) are modelled as busybox
with its math option gives them (the host's Debian build has them compiled out).
"""
from __future__ import annotations

import math
import random
import re
from collections.abc import Generator
from typing import Any

from fakecri.sim.applets.awk import ast as a
from fakecri.sim.applets.awk.errors import AwkError, NotModelled
from fakecri.sim.applets.awk.machine import Machine
from fakecri.sim.applets.awk.records import AwkArray, split_by, split_fields
from fakecri.sim.applets.awk.values import Value, lower, to_num, upper

_ARITY = {"length": (0, 1), "substr": (2, 3), "index": (2, 2), "split": (2, 3), "sub": (2, 3), "gsub": (2, 3),
          "match": (2, 2), "sprintf": (0, 255), "tolower": (1, 1), "toupper": (1, 1), "int": (1, 1),
          "sqrt": (1, 1), "exp": (1, 1), "log": (1, 1), "sin": (1, 1), "cos": (1, 1), "atan2": (2, 2),
          "rand": (0, 0), "srand": (0, 1), "system": (1, 1), "close": (1, 1), "fflush": (0, 1),
          "and": (2, 2), "or": (2, 2), "xor": (2, 2), "lshift": (2, 2), "rshift": (2, 2), "compl": (1, 1),
          "systime": (0, 0)}
_MASK = (1 << 64) - 1


def _uint(x: float) -> int:
    if x != x or math.isinf(x):
        return 0
    return int(x) & _MASK


def _math(name: str, x: float, y: float = 0.0) -> float:
    try:
        if name == "sqrt":
            return math.sqrt(x) if x >= 0 else math.nan
        if name == "exp":
            return math.exp(x)
        if name == "log":
            return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
        if name == "sin":
            return math.sin(x)
        if name == "cos":
            return math.cos(x)
        return math.atan2(x, y)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def replacement(repl: str, m: re.Match[str]) -> str:
    """The text a match is replaced by: busybox's reading of `&`, `\\&` and `\\N`."""
    out: list[str] = []
    backslashes = 0
    for c in repl:
        out.append(c)
        if c == "\\":
            backslashes += 1
            continue
        if c == "&" or c.isdigit():
            del out[len(out) - ((backslashes + 3) >> 1):]
            group = 0
            if c != "&":
                group = int(c)
                backslashes += 1
            if backslashes % 2:
                out.append(c)
            elif group <= (m.re.groups or 0):
                out.append(m.group(group) or "")
        backslashes = 0
    return "".join(out)


def substitute(interp: Machine, pattern: re.Pattern[str], repl: str, text: str, every: bool) -> tuple[str, int]:
    out: list[str] = []
    pos = 0
    count = 0
    for m in pattern.finditer(text):
        out.append(text[pos:m.start()])
        out.append(replacement(repl, m))
        pos = m.end()
        count += 1
        if not every:
            break
    out.append(text[pos:])
    return "".join(out), count


def call(interp: Machine, e: a.Builtin) -> Generator[Any, Any, Value]:
    name, args = e.name, e.args
    low, high = _ARITY[name]
    if len(args) < low:
        raise AwkError("Too few arguments")
    if len(args) > high:
        raise AwkError("Too many arguments")
    if name == "length":
        if not args:
            return float(len(interp.record))
        arg = args[0]
        if isinstance(arg, (a.Var, a.Local)):
            slot = interp.vars.get(arg.name) if isinstance(arg, a.Var) else interp.frames[-1][arg.index]
            if isinstance(slot, AwkArray):
                return float(len(slot))
        return float(len(interp.str_of((yield from interp.ev(arg)))))
    if name == "split":
        text = interp.str_of((yield from interp.ev(args[0])))
        target = args[1]
        if not isinstance(target, (a.Var, a.Local)):
            raise AwkError("Not an array")
        if len(args) > 2 and isinstance(args[2], a.Regex):
            parts = split_by(interp.regex(args[2]), text) if text else []
        else:
            fs = interp.str_of((yield from interp.ev(args[2]))) if len(args) > 2 else interp.str_var("FS")
            parts = split_fields(text, fs)
        interp.array(target).fill(parts)
        return float(len(parts))
    if name in ("sub", "gsub"):
        pat = args[0] if isinstance(args[0], a.Regex) else (yield from interp.ev(args[0]))
        repl = interp.str_of((yield from interp.ev(args[1])))
        target = args[2] if len(args) > 2 else a.Field(a.Num(0.0))
        if isinstance(target, a.LVALUES):
            where = yield from interp.place(target)
            text = interp.str_of(interp.load(where))
        else:
            text = interp.str_of((yield from interp.ev(target)))
        result, count = substitute(interp, interp.regex(pat), repl, text, name == "gsub")
        if isinstance(target, a.LVALUES):  # (busybox stores it even when nothing matched: $0 is cut again)
            interp.store(where, result)
        return float(count)
    if name == "match":
        text = interp.str_of((yield from interp.ev(args[0])))
        pat = args[1] if isinstance(args[1], a.Regex) else (yield from interp.ev(args[1]))
        m = interp.regex(pat).search(text)
        start, length = (m.start() + 1, m.end() - m.start()) if m else (0, -1)
        interp.vars["RSTART"], interp.vars["RLENGTH"] = float(start), float(length)
        return float(start)
    if name == "sprintf":
        if not args:
            return ""
        fmt = interp.str_of((yield from interp.ev(args[0])))
        text = interp.format(fmt, (yield from interp.format_args(fmt, args[1:])))
        return text.split("\0", 1)[0]  # (a C string: it ends at a NUL, which printf itself writes)
    values: list[Value] = []
    for arg in args:
        values.append((yield from interp.ev(arg)))
    if name == "substr":
        s = interp.str_of(values[0])
        start = to_num(values[1]) - 1
        i = int(start) if start == start and not math.isinf(start) else 0
        i = min(max(i, 0), len(s))
        n = len(s) - i
        if len(values) > 2:
            length = to_num(values[2])
            n = int(length) if length == length and not math.isinf(length) else (n if length > 0 else 0)
        return s[i:i + max(n, 0)]
    if name == "index":
        s, t = interp.str_of(values[0]), interp.str_of(values[1])
        return float(s.find(t) + 1) if t else 0.0
    if name in ("tolower", "toupper"):
        s = interp.str_of(values[0])
        return lower(s) if name == "tolower" else upper(s)
    if name == "int":
        x = to_num(values[0])
        return float(math.trunc(x)) if x == x and not math.isinf(x) else x
    if name in ("sqrt", "exp", "log", "sin", "cos"):
        return _math(name, to_num(values[0]))
    if name == "atan2":
        return _math(name, to_num(values[0]), to_num(values[1]))
    if name == "rand":
        if interp.rng is None:
            interp.rng = random.Random(interp.seed)
        return float(interp.rng.random())
    if name == "srand":
        previous = interp.seed
        interp.seed = to_num(values[0]) if values else float(interp.streams.io.clock[0] // 1_000_000_000)
        interp.rng = random.Random(interp.seed)
        return previous
    if name == "system":
        return float((yield from interp.streams.system(interp.str_of(values[0]))))
    if name == "close":
        closed: Value = yield from interp.streams.close(interp.str_of(values[0]))
        return closed
    if name == "fflush":
        yield from interp.streams.flush_all()
        return 0.0
    if name in ("and", "or", "xor", "lshift", "rshift"):
        x, y = _uint(to_num(values[0])), _uint(to_num(values[1]))
        r = x & y if name == "and" else x | y if name == "or" else x ^ y if name == "xor" else \
            (x << y) & _MASK if name == "lshift" else x >> y
        return float(r)
    if name == "compl":
        return float(~_uint(to_num(values[0])) & _MASK)
    raise NotModelled(f"{name}() is")
