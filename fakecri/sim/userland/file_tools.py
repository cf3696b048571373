"""Commands that walk and name a container's files: `find`, `mktemp`, `realpath`, `rmdir`,
`du`, and `touch -c` (and, in their table, `ls` from ls.py and `cp`, `mv` from copying.py).

Messages and exit codes are busybox's. Directories are walked in the order the userland
lists them (busybox walks in the order the kernel's readdir gives, which is the file
system's own; fakecri lists names sorted). `mktemp` names are drawn from a
fixed sequence (the first name of it not taken), so a run names its files the same each
time. What is not modelled (`find -atime -ctime`, `-regex`; `touch -d/-t/-r`) says so, exit 2.
"""
from __future__ import annotations

import fnmatch
import posixpath
import random
from collections.abc import Generator
from dataclasses import dataclass, field

from fakecri.sim.applets.common import BadUsage, not_modelled, options, usage_error
from fakecri.sim.applets.date import parse_datestr
from fakecri.sim.shell import Command, Io, Process, Step, run_argv
from fakecri.sim.usage import usage_text
from fakecri.sim.userland.copying import cp, mv, refused
from fakecri.sim.userland.files import looking, split_flags
from fakecri.sim.userland.fs import FileStat, X
from fakecri.sim.userland.ls import ls
from fakecri.sim.userland.modes import parse_mode
from fakecri.sim.userland.world import FileError, Userland

_ACTIONS = frozenset({"-print", "-print0", "-exec", "-delete", "-quit"})
_WITH_VALUE = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-type", "-perm", "-user", "-group",
                         "-size", "-newer", "-maxdepth", "-mindepth", "-links", "-inum", "-mtime", "-mmin"})
_NOT_MODELLED = frozenset({"-atime", "-ctime", "-amin", "-cmin", "-regex", "-iregex",
                           "-samefile", "-ok", "-context", "-fprint"})


class _Unrecognized(Exception):
    pass


class _NotModelled(Exception):
    pass


class _Quit(Exception):
    pass


def _join(path: str, name: str) -> str:
    return path + name if path.endswith("/") else f"{path}/{name}"


def _id(name: str, table: str) -> int | None:
    if name.isdigit():
        return int(name)
    for line in table.splitlines():
        parts = line.split(":")
        if len(parts) > 2 and parts[0] == name and parts[2].isdigit():
            return int(parts[2])
    return None


@dataclass
class _Find:
    world: Userland
    io: Io
    expr: tuple[object, ...]
    maxdepth: int | None = None
    mindepth: int = 0
    follow: bool = False
    post_order: bool = False
    xdev: bool = False
    status: int = 0
    batches: dict[int, tuple[list[str], list[str]]] = field(default_factory=dict)
    pruned: bool = False

    def test(self, node: tuple[object, ...], path: str, st: FileStat) -> Generator[Step, bytes | None, bool]:
        kind = node[0]
        if kind == "and":
            return (yield from self.test(node[1], path, st)) and (yield from self.test(node[2], path, st))  # type: ignore[arg-type]
        if kind == "or":
            return (yield from self.test(node[1], path, st)) or (yield from self.test(node[2], path, st))  # type: ignore[arg-type]
        if kind == "not":
            return not (yield from self.test(node[1], path, st))  # type: ignore[arg-type]
        arg = str(node[1]) if len(node) > 1 else ""
        base = posixpath.basename(path.rstrip("/")) or path
        if kind == "-name":
            return fnmatch.fnmatchcase(base, arg)
        if kind == "-iname":
            return fnmatch.fnmatchcase(base.lower(), arg.lower())
        if kind in ("-path", "-wholename"):
            return fnmatch.fnmatchcase(path, arg)
        if kind == "-ipath":
            return fnmatch.fnmatchcase(path.lower(), arg.lower())
        if kind == "-type":
            return {"f": "file", "d": "dir", "l": "link"}.get(arg, "?") == st.kind
        if kind == "-empty":
            if st.kind == "dir":
                return not self.world.listdir(path)
            return st.kind == "file" and st.size == 0
        if kind == "-size":
            return _size_matches(arg, st.size)
        if kind == "-perm":
            mode = int(str(node[2]))
            bits = st.mode & 0o7777
            return bits & mode == mode if arg[:1] == "-" else bool(bits & mode) if arg[:1] in "/+" else bits == mode
        if kind == "-user":
            return _id(arg, self.world.content.passwd) == st.uid
        if kind == "-group":
            return _id(arg, self.world.content.group) == st.gid
        if kind == "-links":
            return _compare(arg, st.nlink)
        if kind == "-inum":
            return _compare(arg, st.inode)
        if kind in ("-mmin", "-mtime"):  # whole minutes or days since it changed, on the node's clock
            age = (self.world.now() - st.mtime_ns) // 1_000_000_000
            return _compare(arg, age // (60 if kind == "-mmin" else 86400))
        if kind == "-newer":
            newer = node[2]
            assert isinstance(newer, int)
            return st.mtime_ns // 1_000_000_000 > newer // 1_000_000_000  # (busybox compares st_mtime: seconds)
        if kind == "-executable":
            return self.world.may(path, X)
        if kind == "-prune":
            self.pruned = True
            return True
        if kind in ("-true",):
            return True
        if kind == "-false":
            return False
        if kind == "-print":
            yield from self.io.write(path + "\n")
            return True
        if kind == "-print0":
            yield from self.io.write(path + "\0")
            return True
        if kind == "-quit":
            raise _Quit()
        if kind == "-delete":
            try:
                if st.kind == "dir" and self.world.listdir(path):
                    raise FileError("Directory not empty")
                self.world.remove(path, recursive=True)
            except FileError as exc:
                yield from self.io.error(f"find: {path}: {exc.reason}\n")
                self.status = 1
                return False
            return True
        if kind == "-exec":
            words, plus = node[1], node[2]
            assert isinstance(words, list)
            if plus:
                self.batches.setdefault(id(node), (words, []))[1].append(path)
                return True
            argv = [w.replace("{}", path) for w in words]
            return (yield from run_argv(argv, self.io)) == 0
        raise _Unrecognized(kind)  # pragma: no cover - the parser lets only these through

    def walk(self, path: str, depth: int, top: bool, device: int) -> Generator[Step, bytes | None, None]:
        try:
            st = self.world.stat(path, follow=self.follow or top)
        except FileError as exc:
            yield from self.io.error(f"find: {path}: {exc.reason}\n")
            self.status = 1
            return
        act = depth >= self.mindepth
        self.pruned = False
        if act and not self.post_order:
            yield from self.test(self.expr, path, st)
        if st.kind == "dir" and not self.pruned and (self.maxdepth is None or depth < self.maxdepth) and not (
                self.xdev and not top and st.device != device):
            try:
                names = self.world.listdir(path)
            except FileError as exc:
                yield from self.io.error(f"find: {path}: {exc.reason}\n")
                self.status = 1
                names = []
            for name in names:
                yield from self.walk(_join(path, name), depth + 1, False, st.device if top else device)
        if act and self.post_order:
            yield from self.test(self.expr, path, st)


def _compare(arg: str, value: int) -> bool:
    n = int(arg.lstrip("+-"))
    return value > n if arg[:1] == "+" else value < n if arg[:1] == "-" else value == n


def _size_matches(arg: str, size: int) -> bool:
    units = {"c": 1, "w": 2, "b": 512, "k": 1024, "M": 1 << 20, "G": 1 << 30}
    unit = units.get(arg[-1:], 0)
    number = arg[:-1] if unit else arg
    blocks = size // (unit or 512) if unit else (size + 511) // 512
    return _compare(number, blocks)


class _FindParser:
    def __init__(self, words: list[str], world: Userland) -> None:
        self.words = words
        self.i = 0
        self.world = world
        self.options: dict[str, object] = {}
        self.has_action = False

    def parse(self) -> tuple[object, ...]:
        if not self.words:
            return ("-true",)
        node = self.or_expr()
        if self.i < len(self.words):
            raise _Unrecognized(self.words[self.i])
        return node

    def or_expr(self) -> tuple[object, ...]:
        left = self.and_expr()
        while self.i < len(self.words) and self.words[self.i] in ("-o", "-or"):
            self.i += 1
            left = ("or", left, self.and_expr())
        return left

    def and_expr(self) -> tuple[object, ...]:
        left = self.unary()
        while self.i < len(self.words) and self.words[self.i] not in ("-o", "-or", ")"):
            if self.words[self.i] in ("-a", "-and"):
                self.i += 1
            left = ("and", left, self.unary())
        return left

    def unary(self) -> tuple[object, ...]:
        if self.i >= len(self.words):
            raise _Unrecognized(self.words[-1] if self.words else "")
        w = self.words[self.i]
        self.i += 1
        if w in ("!", "-not"):
            return ("not", self.unary())
        if w == "(":
            node = self.or_expr()
            if self.i >= len(self.words) or self.words[self.i] != ")":
                raise _Unrecognized("(")
            self.i += 1
            return node
        if w in _NOT_MODELLED:
            raise _NotModelled(w)
        if w in _ACTIONS:
            self.has_action = True
        if w in ("-maxdepth", "-mindepth"):
            self.options[w] = int(self.value(w))
            return ("-true",)
        if w in ("-depth", "-xdev", "-follow"):
            self.options[w] = True
            return ("-true",)
        if w == "-exec":
            words: list[str] = []
            while self.i < len(self.words) and self.words[self.i] not in (";", "+"):
                words.append(self.words[self.i])
                self.i += 1
            if self.i >= len(self.words) or not words:
                raise _Unrecognized("-exec")
            plus = self.words[self.i] == "+"
            self.i += 1
            return ("-exec", words, plus)
        if w == "-perm":
            spec = self.value(w)
            try:
                return ("-perm", spec, parse_mode(spec.lstrip("-/+"), 0))
            except ValueError:
                raise _Unrecognized(f"invalid mode '{spec}'") from None
        if w == "-newer":
            other = self.value(w)
            return ("-newer", other, self.world.stat(other).mtime_ns)
        if w in _WITH_VALUE:
            return (w, self.value(w))
        if w in ("-print", "-print0", "-delete", "-quit", "-prune", "-empty", "-executable", "-true", "-false"):
            if w == "-delete":
                self.options["-depth"] = True
            return (w,)
        raise _Unrecognized(w)

    def value(self, w: str) -> str:
        if self.i >= len(self.words):
            raise _Unrecognized(w)
        self.i += 1
        return self.words[self.i - 1]


def _find(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    follow = False
    while args and args[0] in ("-L", "-H", "-P"):
        follow = args[0] == "-L"
        args = args[1:]
    split = next((i for i, a in enumerate(args) if a.startswith("-") or a in ("!", "(")), len(args))
    paths, words = args[:split] or ["."], args[split:]
    parser = _FindParser(words, world)
    try:
        expr = parser.parse()
    except _Unrecognized as exc:
        yield from io.error(f"find: unrecognized: {exc}\n" + usage_text("find"))
        return 1
    except _NotModelled as exc:
        yield from io.error(f"find: {exc} is not modelled by fakecri\n")
        return 2
    except (FileError, ValueError) as exc:
        yield from io.error(f"find: {getattr(exc, 'reason', exc)}\n")
        return 1
    if not parser.has_action:
        expr = ("and", expr, ("-print",))
    o = parser.options
    run = _Find(world, io, expr, maxdepth=o.get("-maxdepth"), mindepth=int(o.get("-mindepth", 0)),  # type: ignore[arg-type,call-overload]
                follow=follow or bool(o.get("-follow")), post_order=bool(o.get("-depth")), xdev=bool(o.get("-xdev")))
    try:
        for path in paths:
            yield from run.walk(path, 0, True, 0)
    except _Quit:
        pass
    for words, found in run.batches.values():
        argv: list[str] = []
        for w in words:
            argv += found if w == "{}" else [w]
        if (yield from run_argv(argv, io)) != 0:
            run.status = 1
    return run.status


# ---------------------------------------------------------------- mktemp, realpath, rmdir, du, touch

_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _mktemp(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, values, rest = split_flags(args, "p")
    problem = refused("mktemp", flags, "dtuqp", "dtuqp")
    if problem:
        yield from io.error(problem)
        return 1 if "invalid" in problem else 2
    template = rest[0] if rest else "tmp.XXXXXX"
    xs = len(template) - len(template.rstrip("X"))
    if xs < 6 or "/" in template[len(template) - xs:]:
        if "q" not in flags:
            yield from io.error("mktemp: (null): Invalid argument\n")
        return 1
    if "p" in values or "t" in flags or not rest:
        base = values.get("p") or world.env().get("TMPDIR") or "/tmp"
        template = _join(base, template)
    rng = random.Random(template)  # a fixed sequence per template: the first free name of it is taken
    for _ in range(100):
        name = template[:len(template) - xs] + "".join(rng.choice(_NAME_CHARS) for _ in range(xs))
        if not world.lexists(name):
            break
    else:
        yield from io.error(f"mktemp: {template}: File exists\n")
        return 1
    try:
        if "u" not in flags:
            if "d" in flags:
                world.mkdir(name, mode=0o700)
            else:
                world.write(name, b"", mode=0o600)
    except FileError as exc:
        if "q" not in flags:
            yield from io.error(f"mktemp: {template}: {exc.reason}\n")
        return 1
    yield from io.write(name + "\n")
    return 0


def _realpath(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    _, _, paths = split_flags(args)
    status = 0
    for path in paths or ["."]:
        if not world.exists(path):
            yield from io.error(f"realpath: {path}: No such file or directory\n")
            status = 1
            continue
        yield from io.write(world.resolve(path) + "\n")
    return status


def _rmdir(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, _, paths = split_flags(args)
    problem = refused("rmdir", flags, "p", "p")
    if problem:
        yield from io.error(problem)
        return 1 if "invalid" in problem else 2
    if not paths:
        yield from io.error(usage_text("rmdir"))
        return 1
    status = 0
    for path in paths:
        chain = [path]
        if "p" in flags:
            while posixpath.dirname(chain[-1].rstrip("/")) not in ("", "/", "."):
                chain.append(posixpath.dirname(chain[-1].rstrip("/")))
        for p in chain:
            try:
                if not world.lexists(p):
                    raise FileError("No such file or directory")
                if not world.is_dir(p) or world.stat(p, follow=False).kind == "link":
                    raise FileError("Not a directory")
                if world.listdir(p):
                    raise FileError("Directory not empty")
                world.remove(p, recursive=True)
            except FileError as exc:
                yield from io.error(f"rmdir: '{p}': {exc.reason}\n")
                status = 1
                break
    return status


def _du_size(world: Userland, path: str, out: list[tuple[int, str]], every: bool, depth: int,
             max_depth: int | None) -> int:
    st = world.stat(path, follow=False)
    total = st.blocks
    if st.kind == "dir":
        for name in world.listdir(path):
            total += _du_size(world, _join(path, name), out, every, depth + 1, max_depth)
    if (st.kind == "dir" or every or depth == 0) and (max_depth is None or depth <= max_depth):
        out.append((total, path))
    return total


def _human(kb: int) -> str:
    size = float(kb) * 1024
    for unit in "KMGT":
        size /= 1024
        if size < 1024 or unit == "T":
            return (f"{size:.1f}{unit}" if size < 10 and unit != "K" or size != int(size) and size < 10
                    else f"{size:.0f}{unit}")
    return str(kb)  # pragma: no cover


def _du(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, values, paths = split_flags(args, "d")
    problem = refused("du", flags, "ashdk", "aHLdclsxhmk")
    if problem:
        yield from io.error(problem)
        return 1 if "invalid" in problem else 2
    status = 0
    max_depth = 0 if "s" in flags else int(values["d"]) if "d" in values else None
    for path in paths or ["."]:
        found: list[tuple[int, str]] = []
        try:
            _du_size(world, path, found, "a" in flags, 0, max_depth)
        except FileError as exc:
            yield from io.error(f"du: {path}: {exc.reason}\n")
            status = 1
            continue
        for blocks, p in found:
            kb = blocks // 2
            shown = _human(kb) if "h" in flags else str(kb)
            yield from io.write(f"{shown}\t{p}\n")
    return status


_TOUCH_LONGS = {"no-create": "c", "no-dereference": "h", "reference": "r", "date": "d"}


def _touch(args: list[str], io: Io) -> Process:
    """`touch [-cm] [-d DATE] [-t DATE] [-r FILE] FILE...` as busybox's: -d and -t take the same
    forms as `date -d` (busybox's parse_datestr, the time of day now's where a form leaves it out),
    -r the file's time. Fakecri's files keep one time, so -a (the access time alone) and -h (a
    link's own time) are not modelled."""
    world = yield from looking(io)
    o = yield from options(io, "touch", args, "chr:d:t:amf", "[-cham] [-d DATE] [-t DATE] [-r FILE] FILE...",
                           longs=_TOUCH_LONGS)
    if isinstance(o, int):
        return o
    for flag in "ah":
        if o.has(flag):
            return (yield from not_modelled(io, "touch", f"-{flag}", 2))
    if not o.operands or (o.has("r") and o.has("t")):
        return (yield from usage_error(io, "touch", "[-cham] [-d DATE] [-t DATE] [-r FILE] FILE...", BadUsage("")))
    when: int | None = None
    if o.has("r"):
        ref = o.last("r") or ""
        try:
            when = world.stat(ref).mtime_ns
        except FileError as exc:
            yield from io.error(f"touch: can't stat '{ref}': {exc.reason}\n")
            return 1
    stamp = o.last("t") if o.has("t") else o.last("d")
    if stamp is not None:
        seconds = parse_datestr(stamp, world.now() // 1_000_000_000, midnight=False)
        if seconds is None:
            yield from io.error(f"touch: invalid date '{stamp}'\n")
            return 1
        when = seconds * 1_000_000_000
    status = 0
    for path in o.operands:
        if o.has("c") and not world.lexists(path):
            continue
        try:
            world.touch(path, when)
        except FileError as exc:
            yield from io.error(f"touch: {path}: {exc.reason}\n")
            status = 1
    return status


FILE_TOOL_COMMANDS: dict[str, Command] = {
    "find": _find, "cp": cp, "mv": mv, "mktemp": _mktemp, "realpath": _realpath, "rmdir": _rmdir,
    "du": _du, "touch": _touch, "ls": ls,
}
