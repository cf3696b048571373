"""The evaluator: walks a `Program`'s tree as a process (a generator of steps), so reading
input, writing output and running commands (`system`, pipes) happen as the shell's do.

Work is bounded: past MAX_STEPS loop rounds, function calls and records taken together the
program is stopped with a message (exit 2) rather than left to hold the server.
"""
from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

from fakecri.sim.applets.awk import ast as a
from fakecri.sim.applets.awk import builtins
from fakecri.sim.applets.awk.errors import AwkError, Fatal, NotModelled
from fakecri.sim.applets.awk.format import FormatError, conversions, sprintf
from fakecri.sim.applets.awk.machine import Place, Slot
from fakecri.sim.applets.awk.records import AwkArray, split_fields
from fakecri.sim.applets.awk.regex import BadRegex, compile_ere
from fakecri.sim.applets.awk.streams import Streams
from fakecri.sim.applets.awk.values import UNINIT, StrNum, Uninit, Value, compare, format_number, to_num, truth

MAX_STEPS = 1_000_000  # (about a second of CPU: a runaway stops here)
Gen = Generator[Any, Any, Value]


class _Next(Exception):
    pass


class _NextFile(Exception):
    pass


class _Exit(Exception):
    pass


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: Value) -> None:
        super().__init__()
        self.value = value




class Interp:
    def __init__(self, program: a.Program, streams: Streams) -> None:
        self.program = program
        self.streams = streams
        self.vars: dict[str, Slot] = {}
        self.frames: list[list[Slot]] = []
        self.record = ""
        self.fields: list[Value] | None = []  # (an assigned field keeps its value, a number too, as busybox's)
        self.record_fs = " ", False
        self.exit_code = 0
        self.line = 1
        self.steps = MAX_STEPS
        self.ranges: dict[int, bool] = {}
        self.seed = 0.0
        self.rng: Any = None

    # ---------------------------------------------------------------- bookkeeping

    def tick(self) -> None:
        self.steps -= 1
        if self.steps <= 0:
            raise NotModelled(f"a program running more than {MAX_STEPS} loop rounds, calls and records is")

    def get(self, name: str) -> Value:
        if name == "NF":
            return float(len(self.split()))
        v = self.vars.get(name, UNINIT)
        return UNINIT if isinstance(v, AwkArray) else v  # an array as a scalar: "", as busybox has it

    def count(self, name: str) -> None:
        """NR or FNR, one more."""
        self.vars[name] = to_num(self.get(name)) + 1

    def put(self, name: str, value: Value) -> None:
        if name == "NF":
            n = int(to_num(value))
            fields = self.split()
            self.fields = (fields + [""] * n)[:n] if n >= 0 else fields
            self.rebuild()
            return
        self.vars[name] = value

    def array(self, ref: a.Var | a.Local) -> AwkArray:
        if isinstance(ref, a.Local):
            frame = self.frames[-1]
            slot = frame[ref.index]
            if not isinstance(slot, AwkArray):
                slot = frame[ref.index] = AwkArray()
            return slot
        found = self.vars.get(ref.name)
        if isinstance(found, AwkArray):
            return found
        made = self.vars[ref.name] = AwkArray()
        return made

    def str_of(self, v: Value) -> str:
        if isinstance(v, float):
            return format_number(v, self.str_var("CONVFMT"), self.format)
        return v

    def out_of(self, v: Value) -> str:
        if isinstance(v, float):
            return format_number(v, self.str_var("OFMT"), self.format)
        return v

    def str_var(self, name: str) -> str:
        v = self.vars.get(name, UNINIT)
        return self.str_of(v) if not isinstance(v, AwkArray) else ""

    def format(self, fmt: str, args: list[Value]) -> str:
        try:
            return sprintf(fmt, args, self.str_of)
        except FormatError as exc:
            raise AwkError(str(exc)) from None

    def format_args(self, fmt: str, args: list[a.Expr]) -> Generator[Any, Any, list[Value]]:
        """The arguments a printf format takes, evaluated; those past them are not (as busybox)."""
        values = []
        for arg in args[:conversions(fmt)]:
            values.append((yield from self.ev(arg)))
        return values

    def regex(self, v: Value | a.Regex) -> Any:
        source = v.source if isinstance(v, a.Regex) else self.str_of(v)
        try:
            return compile_ere(source)
        except BadRegex as exc:
            raise Fatal(f"bad regex '{source}': {exc}") from None

    # ---------------------------------------------------------------- the record and its fields

    def set_record(self, text: str) -> None:
        """A new $0, cut into fields (when asked) by FS as it is now."""
        self.record = text
        self.fields = None
        self.record_fs = self.str_var("FS"), self.str_var("RS") == ""

    def split(self) -> list[Value]:
        if self.fields is None:
            self.fields = [StrNum(f) for f in split_fields(self.record, *self.record_fs)]
        return self.fields

    def rebuild(self) -> None:
        self.record = self.str_var("OFS").join(self.str_of(f) for f in self.split())

    def field(self, n: float) -> Value:
        i = int(n)
        if i < 0:
            raise AwkError("Access to negative field")
        if i == 0:
            return StrNum(self.record)
        fields = self.split()
        return fields[i - 1] if i <= len(fields) else UNINIT

    def set_field(self, n: float, value: Value) -> None:
        i = int(n)
        if i < 0:
            raise AwkError("Access to negative field")
        if i == 0:
            self.set_record(self.str_of(value))
            return
        fields = self.split()
        if i > len(fields):
            fields += [""] * (i - len(fields))
        fields[i - 1] = UNINIT if isinstance(value, Uninit) else value
        self.rebuild()

    # ---------------------------------------------------------------- expressions

    def subscript(self, subs: list[a.Expr]) -> Generator[Any, Any, str]:
        if len(subs) == 1:
            return self.str_of((yield from self.ev(subs[0])))
        parts = []
        for s in subs:
            parts.append(self.str_of((yield from self.ev(s))))
        return self.str_var("SUBSEP").join(parts)

    def place(self, target: a.Expr) -> Generator[Any, Any, Place]:
        """An lvalue with its subscript or field number worked out (once, before its value)."""
        if isinstance(target, a.Field):
            return target, to_num((yield from self.ev(target.index)))
        if isinstance(target, a.Index):
            key = yield from self.subscript(target.subscripts)
            self.array(target.array).get(key)  # (the element is made now, before the value: busybox's order)
            return target, key
        return target, None

    def load(self, place: Place) -> Value:
        target, key = place
        if isinstance(target, a.Field):
            return self.field(float(key or 0.0))
        if isinstance(target, a.Index):
            return self.array(target.array).get(str(key))
        if isinstance(target, a.Var):
            return self.get(target.name)
        if isinstance(target, a.Local):
            v = self.frames[-1][target.index]
            return UNINIT if isinstance(v, AwkArray) else v
        raise AwkError("Unexpected token")  # pragma: no cover - the parser lets only lvalues through

    def store(self, place: Place, value: Value) -> None:
        target, key = place
        if isinstance(target, a.Var):
            self.put(target.name, value)
        elif isinstance(target, a.Local):
            self.frames[-1][target.index] = value
        elif isinstance(target, a.Field):
            self.set_field(float(key or 0.0), value)
        elif isinstance(target, a.Index):
            self.array(target.array).set(str(key), value)

    def assign_to(self, target: a.Expr, value: Value) -> Generator[Any, Any, None]:
        self.store((yield from self.place(target)), value)

    def ev(self, e: a.Expr) -> Gen:
        if isinstance(e, a.Num):
            return e.value
        if isinstance(e, a.Str):
            return e.value
        if isinstance(e, a.Var):
            return self.get(e.name)
        if isinstance(e, a.Local):
            v = self.frames[-1][e.index]
            return UNINIT if isinstance(v, AwkArray) else v
        if isinstance(e, a.Field):
            return self.field(to_num((yield from self.ev(e.index))))
        if isinstance(e, a.Group):
            return (yield from self.ev(e.inner))
        if isinstance(e, a.Binary):
            x = yield from self.ev(e.left)
            y = yield from self.ev(e.right)
            if e.op == " ":
                return self.str_of(x) + self.str_of(y)
            return self.arith(e.op, to_num(x), to_num(y))
        if isinstance(e, a.Compare):
            x = yield from self.ev(e.left)
            y = yield from self.ev(e.right)
            c = compare(x, y, self.str_of)
            op = e.op
            ok = c < 0 if op == "<" else c <= 0 if op == "<=" else c == 0 if op == "==" else c != 0 if op == "!=" \
                else c > 0 if op == ">" else c >= 0
            return 1.0 if ok else 0.0
        if isinstance(e, a.Index):
            key = yield from self.subscript(e.subscripts)
            return self.array(e.array).get(key)
        if isinstance(e, a.Assign):
            return (yield from self.assign(e))
        if isinstance(e, a.Regex):
            return 1.0 if self.regex(e).search(self.record) else 0.0
        if isinstance(e, a.Match):
            subject = self.str_of((yield from self.ev(e.subject)))
            pat = e.pattern if isinstance(e.pattern, a.Regex) else (yield from self.ev(e.pattern))
            found = self.regex(pat).search(subject) is not None
            return 1.0 if found != e.negate else 0.0
        if isinstance(e, a.Logical):
            left = truth((yield from self.ev(e.left)))
            if e.op == "&&" and not left or e.op == "||" and left:
                return 1.0 if left else 0.0
            return 1.0 if truth((yield from self.ev(e.right))) else 0.0
        if isinstance(e, a.Not):
            return 0.0 if truth((yield from self.ev(e.operand))) else 1.0
        if isinstance(e, a.Unary):
            n = to_num((yield from self.ev(e.operand)))
            return -n if e.op == "-" else n
        if isinstance(e, a.Cond):
            return (yield from self.ev(e.yes if truth((yield from self.ev(e.test))) else e.no))
        if isinstance(e, a.IncDec):
            where = yield from self.place(e.target)
            old = to_num(self.load(where))
            new = old + 1 if e.op == "++" else old - 1
            self.store(where, new)
            return new if e.prefix else old
        if isinstance(e, a.In):
            key = yield from self.subscript(e.subscripts)
            return 1.0 if key in self.array(e.array) else 0.0
        if isinstance(e, a.Call):
            return (yield from self.call(e))
        if isinstance(e, a.Builtin):
            self.line = e.line
            return (yield from builtins.call(self, e))
        if isinstance(e, a.Getline):
            return (yield from self.getline(e))
        raise NotModelled(f"the expression {type(e).__name__} is")  # pragma: no cover

    def arith(self, op: str, x: float, y: float) -> float:
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if op == "/":
            if y == 0:
                raise AwkError("Division by zero")
            return x / y
        if op == "%":
            if y == 0:
                raise AwkError("Division by zero")
            q = x / y  # busybox: x - (long long)(x / y) * y, the cast as x86 makes it (out of range: INT64_MIN)
            whole = math.trunc(q) if q == q and -(2 ** 63) <= q < 2 ** 63 else -(2 ** 63)
            return x - float(whole) * y
        try:
            return math.pow(x, y)
        except OverflowError:
            return math.inf
        except (ValueError, ZeroDivisionError):
            return math.nan

    def assign(self, e: a.Assign) -> Gen:
        where = yield from self.place(e.target)  # (busybox works out the target first)
        if e.op == "=":
            value = yield from self.ev(e.value)
            if isinstance(value, Uninit):
                value = UNINIT
            self.store(where, value)
            return value
        left = to_num(self.load(where))
        right = to_num((yield from self.ev(e.value)))
        result = self.arith(e.op[0], left, right)
        self.store(where, result)
        return result

    def call(self, e: a.Call) -> Gen:
        fn = self.program.functions.get(e.name)
        self.line = e.line
        if fn is None:
            raise AwkError("Call to undefined function")
        self.tick()
        frame: list[Slot] = []
        for i, arg in enumerate(e.args):
            if isinstance(arg, (a.Var, a.Local)):
                slot = self.vars.get(arg.name) if isinstance(arg, a.Var) else self.frames[-1][arg.index]
                if isinstance(slot, AwkArray):
                    frame.append(slot)
                    continue
                if (slot is None or isinstance(slot, Uninit)) and i in fn.arrays and i < len(fn.params):
                    frame.append(self.array(arg))
                    continue
            frame.append((yield from self.ev(arg)))
        frame = frame[:len(fn.params)] + [UNINIT] * (len(fn.params) - len(frame))
        if len(self.frames) > 200:
            raise NotModelled("function calls nested more than 200 deep are")
        self.frames.append(frame)
        try:
            yield from self.block(fn.body)
        except _Return as r:
            return r.value
        finally:
            self.frames.pop()
        return UNINIT

    def getline(self, e: a.Getline) -> Gen:
        if e.command is not None:
            source = self.str_of((yield from self.ev(e.command)))
            text = yield from self.streams.command_record(source, self.str_var("RS"))
        elif e.file is not None:
            source = self.str_of((yield from self.ev(e.file)))
            text = yield from self.streams.file_record(source, self.str_var("RS"))
        else:
            text = yield from self.next_main_record()
        if not isinstance(text, str):
            return float(text)
        if e.file is None and e.command is None:  # (busybox counts the main input's records only)
            self.count("NR")
            self.count("FNR")
        if e.target is None:
            self.set_record(text)
        else:
            yield from self.assign_to(e.target, StrNum(text))
        return 1.0

    def next_main_record(self) -> Generator[Any, Any, str | float]:
        text = yield from self.streams.main_record(self)
        return 0.0 if text is None else text

    # ---------------------------------------------------------------- statements

    def block(self, b: a.Block) -> Generator[Any, Any, None]:
        for s in b.body:
            yield from self.run(s)

    def run(self, s: a.Stmt) -> Generator[Any, Any, None]:
        if isinstance(s, a.ExprStmt):
            self.line = s.line
            yield from self.ev(s.expr)
        elif isinstance(s, a.Print):
            self.line = s.line
            yield from self.print(s)
        elif isinstance(s, a.Block):
            yield from self.block(s)
        elif isinstance(s, a.If):
            if truth((yield from self.ev(s.test))):
                yield from self.run(s.then)
            elif s.otherwise is not None:
                yield from self.run(s.otherwise)
        elif isinstance(s, a.While):
            while truth((yield from self.ev(s.test))):
                self.tick()
                try:
                    yield from self.run(s.body)
                except _Break:
                    break
                except _Continue:
                    pass
        elif isinstance(s, a.DoWhile):
            while True:
                self.tick()
                try:
                    yield from self.run(s.body)
                except _Break:
                    break
                except _Continue:
                    pass
                if not truth((yield from self.ev(s.test))):
                    break
        elif isinstance(s, a.For):
            if s.init is not None:
                yield from self.ev(s.init)
            while s.test is None or truth((yield from self.ev(s.test))):
                self.tick()
                try:
                    yield from self.run(s.body)
                except _Break:
                    break
                except _Continue:
                    pass
                if s.step is not None:
                    yield from self.ev(s.step)
        elif isinstance(s, a.ForIn):
            arr = self.array(s.array)
            for key in arr.keys():
                if key not in arr:
                    continue
                self.tick()
                yield from self.assign_to(s.var, StrNum(key))
                try:
                    yield from self.run(s.body)
                except _Break:
                    break
                except _Continue:
                    pass
        elif isinstance(s, a.Simple):
            raise {"next": _Next, "nextfile": _NextFile, "break": _Break, "continue": _Continue}[s.word]()
        elif isinstance(s, a.Exit):
            self.line = s.line
            if s.value is not None:
                self.exit_code = int(to_num((yield from self.ev(s.value))))
            raise _Exit()
        elif isinstance(s, a.Return):
            value = UNINIT if s.value is None else (yield from self.ev(s.value))
            raise _Return(value)
        elif isinstance(s, a.Delete):
            arr = self.array(s.array)
            if s.subscripts is None:
                arr.clear()
            else:
                arr.delete((yield from self.subscript(s.subscripts)))

    def print(self, s: a.Print) -> Generator[Any, Any, None]:
        values = []
        for arg in s.args[:1] if s.printf else s.args:
            values.append((yield from self.ev(arg)))
        if s.printf:
            values += yield from self.format_args(self.str_of(values[0]), s.args[1:])
            text = self.format(self.str_of(values[0]), values[1:])
        elif not values:
            text = self.record + self.str_var("ORS")
        else:
            text = self.str_var("OFS").join(self.out_of(v) for v in values) + self.str_var("ORS")
        if s.dest is None:
            yield from self.streams.out(text)
            return
        dest = self.str_of((yield from self.ev(s.dest)))
        yield from self.streams.to(s.redirect, dest, text)

    # ---------------------------------------------------------------- the whole program

    def matches(self, index: int, item: a.Item) -> Generator[Any, Any, bool]:
        if item.pattern is None:
            return True
        if item.end is None:
            return truth((yield from self.ev(item.pattern)))
        if self.ranges.get(index):
            if truth((yield from self.ev(item.end))):
                self.ranges[index] = False
            return True
        if truth((yield from self.ev(item.pattern))):
            self.ranges[index] = not truth((yield from self.ev(item.end)))
            return True
        return False

    def main(self) -> Generator[Any, Any, int]:
        """Run BEGIN, the records, END; the exit status."""
        exiting = False
        try:
            for b in self.program.begin:
                yield from self.block(b)
        except _Exit:
            exiting = True
        except (_Next, _NextFile):
            raise AwkError("next used in BEGIN or END") from None
        if not exiting and (self.program.items or self.program.end):
            try:
                yield from self.records()
            except _Exit:
                pass
        try:
            for b in self.program.end:
                yield from self.block(b)
        except _Exit:
            pass
        except (_Next, _NextFile):
            raise AwkError("next used in BEGIN or END") from None
        return self.exit_code & 0xFF  # (as the C library's exit takes it: -1 is 255)

    def records(self) -> Generator[Any, Any, None]:
        while True:
            text = yield from self.streams.main_record(self)
            if text is None:
                return
            self.tick()
            self.count("NR")
            self.count("FNR")
            self.set_record(text)
            try:
                for i, item in enumerate(self.program.items):
                    if (yield from self.matches(i, item)):
                        if item.action is None:
                            yield from self.streams.out(self.record + self.str_var("ORS"))
                        else:
                            yield from self.block(item.action)
            except _Next:
                pass
            except _NextFile:
                self.streams.skip_file()
