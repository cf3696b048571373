"""The commands that look into a container's userland: identity, environment, files, sysctls.

They extend the shell's command table for processes that run in a container (the
runtime hands them to the shell with the container's `Userland`). Messages and exit
codes are busybox's.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from fakecri.sim.shell import Command, Io, Process, Sleep
from fakecri.sim.userland.file_tools import FILE_TOOL_COMMANDS
from fakecri.sim.userland.files import FILE_COMMANDS, checked
from fakecri.sim.userland.identity import accounts
from fakecri.sim.userland.procs import PROCESS_COMMANDS
from fakecri.sim.userland.spec import sysctl_name, sysctl_path
from fakecri.sim.userland.system import SYSTEM_COMMANDS
from fakecri.sim.userland.world import FileError, Userland

NS_PER_S = 1_000_000_000


def _world(io: Io) -> Userland:
    if io.ctx.userland is None:
        raise RuntimeError("a userland command runs only inside a container")
    world: Userland = io.ctx.userland()
    return world


def _split_flags(args: list[str]) -> tuple[set[str], list[str]]:
    flags: set[str] = set()
    rest: list[str] = []
    for a in args:
        if a.startswith("-") and len(a) > 1 and not rest:
            flags.update(a[1:])
        else:
            rest.append(a)
    return flags, rest


def _etc(world: Userland, path: str) -> str:
    try:
        return world.read(path).decode(errors="replace")
    except FileError:
        return ""


def _account(world: Userland, who: str) -> tuple[int, int, str, list[int]] | None:
    """`id NAME`'s user as the container's /etc/passwd names it (busybox takes no number here):
    uid, primary gid, name, and the groups (the primary first, then those /etc/group lists it in)."""
    users = accounts(_etc(world, "/etc/passwd"), False)
    found = next((u for u in users if u.name == who), None)
    if found is None:
        return None
    extra = [g.id for g in accounts(_etc(world, "/etc/group"), True) if found.name in g.members and g.id != found.gid]
    return found.id, found.gid, found.name, [found.gid, *extra]


def _id(args: list[str], io: Io) -> Process:
    world = _world(io)
    flags, rest = _split_flags(args)
    uid, gid, user_name, groups = world.uid, world.gid, world.user_name, list(world.groups)
    if rest:
        other = _account(world, rest[0])
        if other is None:
            yield from io.error(f"id: unknown user {rest[0]}\n")
            return 1
        uid, gid, user_name, groups = other
    names = "n" in flags

    def user(uid: int) -> str:
        return (world.user_named(uid) or str(uid)) if names else str(uid)

    def group(gid: int) -> str:
        return (world.group_named(gid) or str(gid)) if names else str(gid)

    if "u" in flags:
        if names and user_name:
            yield from io.write(user_name + "\n")
        else:
            yield from io.write(user(uid) + "\n")
    elif "g" in flags:
        yield from io.write(group(gid) + "\n")
    elif "G" in flags:
        yield from io.write(" ".join(group(g) for g in groups) + "\n")
    else:
        def labelled(n: int, name: str) -> str:
            return f"{n}({name})" if name else str(n)

        line = (f"uid={labelled(uid, user_name)} gid={labelled(gid, world.group_named(gid))} "
                f"groups=" + ",".join(labelled(g, world.group_named(g)) for g in groups))
        yield from io.write(line + "\n")
    return 0


def _whoami(args: list[str], io: Io) -> Process:
    world = _world(io)
    if not world.user_name:
        yield from io.error(f"whoami: unknown uid {world.uid}\n")
        return 1
    yield from io.write(world.user_name + "\n")
    return 0


def _groups(args: list[str], io: Io) -> Process:
    world = _world(io)
    yield from io.write(" ".join(world.group_named(g) or str(g) for g in world.groups) + "\n")
    return 0


def _brctl(args: list[str], io: Io) -> Process:
    if not args or args[0] in ("show", "showmacs", "showstp"):
        yield from io.write("bridge name\tbridge id\t\tSTP enabled\tinterfaces\n")
        return 0
    if not _world(io).privilege.may("NET_ADMIN"):
        target = args[1] if len(args) > 1 else ""
        yield from io.error(f"brctl: bridge {target}: Operation not permitted\n")
        return 1
    return 0


def _ping(args: list[str], io: Io) -> Process:
    flags: dict[str, str] = {}
    hosts = []
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a in ("-c", "-W", "-w", "-i", "-s") and rest:
            flags[a] = rest.pop(0)
        elif not a.startswith("-"):
            hosts.append(a)
    if not hosts:
        yield from io.error("BusyBox ping: missing host\n")
        return 1
    host = hosts[0]
    yield from io.write(f"PING {host} ({host}): 56 data bytes\n")
    if not _world(io).privilege.may("NET_RAW"):
        yield from io.error("ping: permission denied (are you root?)\n")
        return 1
    try:
        count = max(0, int(flags.get("-c", "0")))
    except ValueError:
        count = 0
    if not count:
        yield Sleep(None)  # pings until stopped; nothing more is modelled than that it runs
        return 0
    for seq in range(min(count, 1000)):
        yield from io.write(f"64 bytes from {host}: seq={seq} ttl=64 time=0.050 ms\n")
        if seq + 1 < count:
            yield Sleep(NS_PER_S)
    yield from io.write(f"\n--- {host} ping statistics ---\n{count} packets transmitted, {count} packets received, "
                        f"0% packet loss\nround-trip min/avg/max = 0.050/0.050/0.050 ms\n")
    return 0


def _env(args: list[str], io: Io) -> Process:
    world = _world(io)
    yield from io.write("".join(f"{k}={v}\n" for k, v in world.env().items()))
    return 0


def _printenv(args: list[str], io: Io) -> Process:
    env = _world(io).env()
    if not args:
        return (yield from _env(args, io))
    missing = 0
    for name in args:
        if name in env:
            yield from io.write(env[name] + "\n")
        else:
            missing = 1
    return missing


def _sysctl(args: list[str], io: Io) -> Process:
    world = _world(io)
    flags, names = _split_flags(args)
    if "a" in flags and not names:
        names = sorted(sysctl_name(path) for path, _ in world.spec.sysctls)
    status = 0
    for name in names:
        if "=" in name or "w" in flags:
            yield from io.error(f"sysctl: error setting key '{name.split('=')[0]}': {_readonly_message()}\n")
            status = 1
            continue
        try:
            value = world.read("/proc/sys/" + sysctl_path(name)).decode().rstrip("\n")
        except FileError:
            yield from io.error(f"sysctl: error: '{name}' is an unknown key\n")
            status = 1
            continue
        yield from io.write(value + "\n" if "n" in flags else f"{sysctl_name(sysctl_path(name))} = {value}\n")
    return status


def _readonly_message() -> str:
    return "Read-only file system"


def _pwd(args: list[str], io: Io) -> Process:
    yield from io.write((_world(io).spec.working_dir or "/") + "\n")
    return 0


def _nnp(args: list[str], io: Io) -> Process:
    """The no-new-privileges test program: setuid root, it prints the effective uid it gets."""
    world = _world(io)
    if "nnp" not in world.content.setuid_root:
        yield from io.error(f"{io.shell}: nnp: not found\n")
        return 127
    euid = world.uid if world.spec.no_new_privs else 0  # no_new_privs: the setuid bit is ignored
    yield from io.write(f"Effective uid: {euid}\n")
    return 0


_SIZE_SUFFIX = {"": 1, "c": 1, "w": 2, "b": 512, "k": 1024, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}


def _dd_size(text: str) -> int | None:
    m = re.fullmatch(r"(\d+)([cwbkKMG]?)", text)
    return int(m.group(1)) * _SIZE_SUFFIX[m.group(2)] if m else None


def _dd(args: list[str], io: Io) -> Process:
    """dd copies `count` blocks of `bs` bytes (after `skip` of them) from `if` (standard input) to
    `of` (standard output) and counts them on stderr. It allocates one block of `bs` bytes; beyond
    the container's memory limit the kernel kills it (SIGKILL, 137) and the cgroup records an OOM kill."""
    world = _world(io)
    plain = [a for a in args if "=" not in a]
    opts = dict(a.split("=", 1) for a in args if "=" in a)
    unmodelled = sorted(set(opts) - {"if", "of", "bs", "count", "skip"})
    if plain or unmodelled:
        yield from io.error(f"dd: {(plain or unmodelled)[0]}: not modelled by fakecri\n")
        return 1
    sizes = {k: _dd_size(opts[k]) for k in ("bs", "count", "skip") if k in opts}
    bad = next((k for k, v in sizes.items() if v is None), None)
    if bad is not None:
        yield from io.error(f"dd: invalid number '{opts[bad]}'\n")
        return 1
    block = sizes.get("bs") or 512
    count = sizes.get("count")
    limit = world.cgroup.now().resources.memory_limit_in_bytes  # as last set (a resize moves it)
    if 0 < limit <= block:
        world.oom_killed = True
        return 137
    source, target = opts.get("if", "-"), opts.get("of", "-")
    if count is None and source in ("/dev/zero", "/dev/urandom", "/dev/random"):
        yield Sleep(None)  # an endless source: it copies until stopped
        return 0
    try:
        if source in ("-", "/dev/stdin"):
            chunks = []
            while (chunk := (yield from io.stdin.read())) is not None:
                chunks.append(chunk)
            data = b"".join(chunks)
        elif source == "/dev/zero":
            data = bytes(block * (count or 0))
        else:
            data = world.read(source)
    except FileError as exc:
        yield from io.error(f"dd: can't open '{source}': {exc.reason}\n")
        return 1
    data = data[(sizes.get("skip") or 0) * block:]
    if count is not None:
        data = data[:count * block]
    try:
        if target in ("-", "/dev/stdout"):
            yield from io.write(data.decode("utf-8", "surrogateescape"))
        elif target != "/dev/null":
            world.write(target, data)
    except FileError as exc:
        yield from io.error(f"dd: can't open '{target}': {exc.reason}\n")
        return 1
    whole, part = divmod(len(data), block)
    records = f"{whole}+{1 if part else 0}"
    yield from io.error(f"{records} records in\n{records} records out\n{len(data)} bytes ({len(data)}B) copied, "
                        f"0.000100 seconds, 0B/s\n")
    return 0


_TRUNCATE_SUFFIX = {"": 1, "k": 1024, "K": 1024, "kB": 1000, "KB": 1000, "M": 1024 ** 2, "MB": 1000 ** 2,
                    "G": 1024 ** 3, "GB": 1000 ** 3}


def _truncate(args: list[str], io: Io) -> Process:
    """busybox truncate [-c] -s SIZE FILE...: each file cut or zero-extended to SIZE (created
    unless -c)."""
    world = _world(io)
    create, size_text, files = True, None, []
    words = list(args)
    while words:
        a = words.pop(0)
        if a == "--":
            files.extend(words)
            break
        if not a.startswith("-") or a == "-" or files:
            files.append(a)
            continue
        letters = a[1:]
        while letters:
            ch, letters = letters[0], letters[1:]
            if ch == "c":
                create = False
            elif ch == "s":
                if not letters and not words:
                    yield from io.error("truncate: option requires an argument -- 's'\n")
                    return 1
                size_text, letters = (letters or words.pop(0)), ""
            else:
                yield from io.error(f"truncate: unrecognized option: {ch}\n")
                return 1
    if size_text is None or not files:
        yield from io.error("Usage: truncate [-c] -s SIZE FILE...\n")
        return 1
    m = re.fullmatch(r"(\d+)(k|K|kB|KB|M|MB|G|GB)?", size_text)
    if m is None:
        yield from io.error(f"truncate: invalid number '{size_text}'\n")
        return 1
    size = int(m.group(1)) * _TRUNCATE_SUFFIX[m.group(2) or ""]
    status = 0
    for path in files:
        try:
            if not world.exists(path):
                if not create:
                    continue
                old = b""
            elif world.is_dir(path):
                raise FileError("Is a directory")
            else:
                old = world.read(path)
            world.write(path, old[:size] + bytes(max(0, size - len(old))))
        except FileError as exc:
            yield from io.error(f"truncate: {path}: open: {exc.reason}\n")
            status = 1
    return status


def _netstat(args: list[str], io: Io) -> Process:
    """The listening sockets: the host's on the host network, else those of the pod's own servers."""
    world = _world(io)
    yield from io.write("Active Internet connections (only servers)\n"
                        "Proto Recv-Q Send-Q Local Address           Foreign Address         State       \n")
    for proto, address in world.listening():
        foreign = ":::*" if ":" in address.rsplit(":", 1)[0] else "0.0.0.0:*"
        yield from io.write(f"{proto:<5} {0:>6} {0:>6} {address:<23} {foreign:<23} LISTEN      \n")
    return 0


def _ps(args: list[str], io: Io) -> Process:
    """busybox ps: the processes of the container's PID namespace, then ps itself."""
    world = _world(io)
    procs = world.processes()
    user = world.user_name or str(world.uid)
    rows = procs + [(max(pid for pid, _ in procs) + 1, "ps " + " ".join(args) if args else "ps")]
    yield from io.write("PID   USER     TIME  COMMAND\n" + "".join(
        f"{pid:>5} {user[:8]:<8}  0:00 {line}\n" for pid, line in rows))
    return 0


def _pidof(args: list[str], io: Io) -> Process:
    names = {a for a in args if not a.startswith("-")}
    pids = [str(pid) for pid, line in reversed(_world(io).processes())
            if line.split(":", 1)[0].split(" ", 1)[0].rsplit("/", 1)[-1] in names]
    if pids:
        yield from io.write(" ".join(pids) + "\n")
    return 0 if pids else 1


def _ipcs(args: list[str], io: Io) -> Process:
    """busybox ipcs -m: the shared memory segments of the container's IPC namespace (the host's
    with host IPC; none made inside are modelled)."""
    world = _world(io)
    try:
        lines = world.read("/proc/sysvipc/shm").decode().splitlines()[1:]
    except FileError:
        lines = []
    out = ("\n------ Shared Memory Segments --------\n"
           "key        shmid      owner      perms      bytes      nattch     status      \n")
    for line in lines:
        f = line.split()
        if len(f) >= 9:
            out += f"0x{int(f[0]) & 0xFFFFFFFF:08x} {f[1]:<10} {world.user_named(int(f[7])) or f[7]:<10} " \
                   f"{f[2]:<10} {f[3]:<10} {f[6]:<10}\n"
    yield from io.write(out + "\n")
    return 0


USERLAND_COMMANDS: dict[str, Command] = {
    "ps": checked("ps", "o", _ps, with_value="o", modelled=""), "pidof": _pidof, "ipcs": _ipcs,
    "nnp": _nnp, "dd": _dd, "truncate": _truncate, "netstat": _netstat,
    "id": checked("id", "gnruG", _id, operands=(0, 1)),  # (-r: the real ids are the effective ones)
    "whoami": checked("whoami", "", _whoami, operands=(0, 0)), "groups": _groups,
    "printenv": _printenv, "sysctl": _sysctl, "pwd": _pwd,
    "brctl": _brctl, "ping": _ping,
    **FILE_COMMANDS,
    **FILE_TOOL_COMMANDS,
    **PROCESS_COMMANDS,
    **SYSTEM_COMMANDS,
}


_WORD = re.compile(r"[\w\[.-]+")


def looks_inside(argv: Sequence[str]) -> bool:
    """Whether a container's own command may read its userland (a `$`, a redirection, or one
    of these commands by name): such a command gets a plan of its own, built with it."""
    text = " ".join(argv)
    if "$" in text or ">" in text or _CAT_FILE.search(text):
        return True
    return any(word.rsplit("/", 1)[-1] in _LOOKING for word in _WORD.findall(text.replace("/", " /")))


_LOOKING = frozenset(USERLAND_COMMANDS) - {"cat"}  # a plain `cat` reads its input, not files
# `cat FILE` does read the userland (`cat /dev/...` is a stream, not a file of the container)
_CAT_FILE = re.compile(r"(?:^|[\s;&|(`])(?:\S*/)?cat\s+(?!/dev/)[^\s|;&<>-]")
