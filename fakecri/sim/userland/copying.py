"""`cp` and `mv` on a container's files, as busybox 1.35's: `cp [-arRPLHpfind] SRC... DEST`
(into a directory, several sources; `-R` copies links as links, `-p`/`-a` keep mode and owner),
`mv [-fin] SRC... DEST` (a rename within the container's own files, keeping the inode and its
hard links; a copy and a removal elsewhere, as busybox does across file systems). `-i` asks on
standard error and reads the answer; `-n` keeps what is there.
Options busybox has that are not modelled (`-l -s -T -u`) say so, exit 2.
"""
from __future__ import annotations

import posixpath
from collections.abc import Generator

from fakecri.sim.shell import Io, Process, Step
from fakecri.sim.usage import invalid_option, usage_text
from fakecri.sim.userland.files import looking, split_flags
from fakecri.sim.userland.world import FileError, Userland


def _join(path: str, name: str) -> str:
    return path + name if path.endswith("/") else f"{path}/{name}"


def _copy(world: Userland, src: str, dst: str, *, recursive: bool, keep: bool, links: bool, top: bool) -> None:
    st = world.stat(src, follow=not links)
    if st.kind == "link":
        if world.lexists(dst) and not world.is_dir(dst):
            world.remove(dst)
        world.symlink(st.target, dst)
        return
    if st.kind == "dir":
        if not recursive:
            raise FileError(f"omitting directory '{src}'")
        if not world.is_dir(dst):
            world.mkdir(dst, mode=st.mode & 0o7777 & ~world.umask)
        for name in world.listdir(src):
            _copy(world, _join(src, name), _join(dst, name), recursive=True, keep=keep, links=True, top=False)
    else:
        if world.is_dir(dst):
            raise FileError(f"cannot overwrite directory '{dst}'")
        world.write(dst, world.read(src), mode=st.mode & 0o777 & ~world.umask)
    if keep:
        world.chmod(dst, st.mode & 0o7777)
        try:
            world.chown(dst, st.uid, st.gid, follow=False)
        except FileError:
            pass  # (busybox, not root, keeps what it may)


def _overwrite(verb: str, world: Userland, target: str, flags: set[str], io: Io) -> Generator[Step, bytes | None,
                                                                                            bool]:
    """Whether an existing `target` may be replaced: not with -n; with -i, as the answer to busybox's prompt."""
    if not world.lexists(target) or world.is_dir(target):
        return True
    if "n" in flags:
        return False
    if "i" in flags:
        yield from io.error(f"{verb}: overwrite '{target}'? ")
        answer = yield from io.stdin.readline()
        return answer is not None and answer.lstrip()[:1] in (b"y", b"Y")
    return True


def refused(verb: str, flags: set[str], modelled: str, known: str) -> str:
    """busybox's complaint about an option it lacks (its usage after it), or ours about one we do not model ("" when
    all are fine)."""
    for flag in sorted(flags):
        if flag not in known:
            return invalid_option(verb, flag, known)
        if flag not in modelled:
            return f"{verb}: -{flag} is not modelled by fakecri\n"
    return ""


def cp(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, _, paths = split_flags(args)
    problem = refused("cp", flags, "arRPLHpfind", "arRPLHpfinlsTud")
    if problem:
        yield from io.error(problem)
        return 1 if "invalid" in problem else 2
    if len(paths) < 2:
        yield from io.error(usage_text("cp"))
        return 1
    *sources, dest = paths
    recursive = bool(flags & {"r", "R", "a"})
    keep = bool(flags & {"p", "a"})
    links = bool(flags & {"a", "d", "P"}) or recursive and "L" not in flags  # (-R copies links as links)
    status = 0
    into = world.is_dir(dest) or len(sources) > 1
    for src in sources:
        target = _join(dest, posixpath.basename(src.rstrip("/"))) if into else dest
        if not world.lexists(src):
            yield from io.error(f"cp: can't stat '{src}': No such file or directory\n")
            status = 1
            continue
        if into and not world.is_dir(dest):
            what, reason = ("stat", "Not a directory") if world.lexists(dest) else \
                ("create", "No such file or directory")
            yield from io.error(f"cp: can't {what} '{target}': {reason}\n")
            status = 1
            continue
        if not (yield from _overwrite("cp", world, target, flags, io)):
            continue
        try:
            _copy(world, src, target, recursive=recursive, keep=keep, links=links, top=True)
        except FileError as exc:
            message = exc.reason if exc.reason.startswith(("omitting", "cannot")) else \
                f"can't create '{target}': {exc.reason}"
            yield from io.error(f"cp: {message}\n")
            status = 1
    return status


def mv(args: list[str], io: Io) -> Process:
    world = yield from looking(io)
    flags, _, paths = split_flags(args)
    problem = refused("mv", flags, "fin", "finT")
    if problem:
        yield from io.error(problem)
        return 1 if "invalid" in problem else 2
    if len(paths) < 2:
        yield from io.error(usage_text("mv"))
        return 1
    *sources, dest = paths
    status = 0
    into = world.is_dir(dest) or len(sources) > 1
    for src in sources:
        target = _join(dest, posixpath.basename(src.rstrip("/"))) if into else dest
        if not world.lexists(src):
            yield from io.error(f"mv: can't rename '{src}': No such file or directory\n")
            status = 1
            continue
        if not (yield from _overwrite("mv", world, target, flags, io)):
            continue
        try:
            if world.lexists(target) and world.is_dir(target) != world.is_dir(src):
                raise FileError("Is a directory" if world.is_dir(target) else "Not a directory")
            if world.lexists(target):
                world.remove(target, recursive=True)
            if not world.rename(src, target):  # (across file systems, busybox copies and removes too)
                _copy(world, src, target, recursive=True, keep=True, links=True, top=False)
                world.remove(src, recursive=True)
        except FileError as exc:
            yield from io.error(f"mv: can't rename '{src}': {exc.reason}\n")
            status = 1
    return status
