"""The container simulation of one node: what each container's program does and what a
command inside a container sees.

`Simulation` answers the engine's `Programs` port (a container's plan, its CPU use), runs exec
commands, takes a container's own command on live when it is given input, looks at its files
after its start or reaches the network (handing its network steps to its owner), delivers a
stop's SIGTERM into a shell that traps it, and knows what is inside each container (its
image's content, its userland, its processes, the servers its program runs and their sockets).
It reads the engine through a `RuntimeView` and the host through a `HostView`; it changes
neither: what it decides (a line written, an exit) comes back as values for its owner to apply.

Per-container state lives in one `Inside` per container, made on first need and dropped
by `forget` when the container is removed.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from fakecri.engine.clock import Clock, SystemClock
from fakecri.engine.errors import CoreError, FailedPrecondition, InvalidArgument, NotFound
from fakecri.engine.images import ImageStore
from fakecri.engine.program_plan import Plan
from fakecri.engine.records import Container, ContainerState, Image, Resources, RunAs, Sandbox
from fakecri.engine.specs import CONTAINER, POD, STRICT
from fakecri.sim import memory_limit, stats
from fakecri.sim.applets import APPLET_COMMANDS, names_applet
from fakecri.sim.applets.date import date_at
from fakecri.sim.applets.nmeter import nmeter_at
from fakecri.sim.behaviour import PREFIX, ExecResult, PlanCache, behaviour_annotations, build_plan, run_exec
from fakecri.sim.catalog import Catalog
from fakecri.sim.curves import Curve
from fakecri.sim.host_view import HostView, NoHost
from fakecri.sim.image_content import ImageContent
from fakecri.sim.live import Decision, LiveInput, LiveInputs
from fakecri.sim.programs import COMMANDS as PROGRAM_COMMANDS
from fakecri.sim.programs import may_serve, reads_userland, server_for
from fakecri.sim.programs.base import Here, Listen, Server
from fakecri.sim.shell import Command, Connect, Context, NetResult, Process, Sleep, Write, spawn
from fakecri.sim.stats_script import EMPTY, FIGURES, KEYS, StatsScript, parse_figures, script_from_settings
from fakecri.sim.userland import USERLAND_COMMANDS, Userland, has_private_host_mount, looks_inside, userland_spec
from fakecri.sim.userland.cgroupfs import Cgroup, CgroupNow
from fakecri.sim.userland.identity import identity
from fakecri.sim.userland.shared_mounts import SharedMounts

_RUNNING = ContainerState.RUNNING
_CREATED = ContainerState.CREATED
MAX_CONTENTS = 1024  # image contents kept by image (then it starts over)
STATS_KEYS = frozenset(KEYS)
MAX_CATCH_UP = 10_000  # rounds of live steps one tick runs when time jumped past several of them
# What a command inside a container can run beyond the shell's own commands.
INSIDE_COMMANDS: dict[str, Command] = {**PROGRAM_COMMANDS, **USERLAND_COMMANDS, **APPLET_COMMANDS}


class RuntimeView(Protocol):
    """What the simulation reads of the engine (fakecri.engine.runtime.Runtime has it)."""

    images: ImageStore

    def get_container(self, cid: str) -> Container: ...

    def get_sandbox(self, sid: str) -> Sandbox: ...

    def list_containers(self, *, id: str = "", state: ContainerState | None = None,
                        sandbox_id: str = "") -> list[Container]: ...


def host_pid(cid: str) -> int:
    """The pid a container's main process has on the node (stable: from its id)."""
    head = cid[:8]
    return 1000 + int(head, 16) % 4_000_000 if head and all(ch in "0123456789abcdef" for ch in head) else 1000


def _clocked(now_ns: int | None) -> dict[str, Command]:
    """The commands inside, with a `date` and an `nmeter` counting from `now_ns` (when the process
    starts) if known."""
    if now_ns is None:
        return INSIDE_COMMANDS
    return {**INSIDE_COMMANDS, "date": date_at(lambda: now_ns), "nmeter": nmeter_at(lambda: now_ns)}


def _has_settings(annotations: Mapping[str, str]) -> bool:
    """Whether any of `annotations` is a `fakecri.io/` setting."""
    return any(key.startswith(PREFIX) for key in annotations)


@functools.lru_cache(maxsize=1024)
def _needs_own_plan(argv: tuple[str, ...]) -> bool:
    """Whether a command line may read its userland (a plan of its own, built with it): a pure
    function of the command line, asked at every start."""
    return looks_inside(argv) or reads_userland(argv) or names_applet(argv)


def _probe_process(code: int, err: bytes) -> Process:
    if err:
        yield Write("stderr", err.decode())
    return code


@dataclass(slots=True)
class Inside:
    """What the simulation keeps for one container."""

    userland: Userland | None = None
    own_plan: Plan | None = None  # the plan of a command that reads its userland
    # its command, left by the plan where it goes on live (a look, a network step, a sleep), that offset, the step
    resume: tuple[Process, int, Connect | Sleep | None] | None = None
    mounts_at_start: frozenset[str] | None = None  # for a private host mount: the host's mounts at start
    server: Server | None = None  # what its program serves (made on first need)
    server_made: bool = False
    oom_score_adj: int | None = None  # what its process started with, once an update asked for another


class Simulation:
    def __init__(self, catalog: Catalog | None = None, host: HostView | None = None, *, cgroup_version: int = 2,
                 swap_bytes: int | None = None, clock: Clock | None = None) -> None:
        """`cgroup_version`: the cgroup file system containers see (2, or 1); `swap_bytes`: the
        node's swap as containers' /proc/meminfo shows it (None: the host's); `clock`: the node's
        (the engine's own), which `date`, file times and stats inside read, so the simulation never
        asks the engine for the time (default: the system clock)."""
        self.catalog = catalog if catalog is not None else Catalog()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.host: HostView = host if host is not None else NoHost()
        self.cgroup_version = cgroup_version
        self.swap_bytes = swap_bytes
        self.shared_mounts = SharedMounts()  # tmpfs mounts containers propagated to the host's side
        self.view: RuntimeView | None = None  # the engine it reads; set by the owner once both exist
        self.live = LiveInputs()
        # told the name of each thing the shell refuses (not modelled): the node counts them
        self.refused: Callable[[str], None] | None = None
        self._plans = PlanCache(refused=self._refuse)
        self._inside: dict[str, Inside] = {}
        self._resuming: set[str] = set()  # containers whose command a plan left to go on live, not yet live
        self._signalled: set[str] = set()  # containers whose program a stop signal was delivered into
        self._contents: dict[str, ImageContent] = {}
        self._users: dict[tuple[int, int, tuple[int, ...]], RunAs] = {}  # one RunAs per distinct user
        self._runs_as: dict[tuple[object, ...], RunAs] = {}  # the user, by image and the spec's run_as_*
        self._scripts: dict[str, StatsScript | None] = {}  # each container's stats script, once read
        self._set: dict[str, list[tuple[int, dict[str, Curve]]]] = {}  # what SetStats set, by container

    def _refuse(self, name: str) -> None:
        if self.refused is not None:
            self.refused(name)

    def watch(self, view: RuntimeView) -> None:
        self.view = view

    def _view(self) -> RuntimeView:
        if self.view is None:
            raise RuntimeError("the simulation reads no runtime yet: call watch(runtime)")
        return self.view

    def _of(self, cid: str) -> Inside:
        inside = self._inside.get(cid)
        if inside is None:
            inside = self._inside[cid] = Inside()
        return inside

    # ------------------------------------------------------------ the engine's Programs port

    def check_sandbox(self, sandbox: Sandbox) -> None:
        """The pod's `fakecri.io/` settings, for every container and for each one it names,
        hold (a bad one would fail every CreateContainer in it later)."""
        names = {""} | {key.rpartition(".")[2] for key in sandbox.annotations
                        if key.startswith(PREFIX) and "." in key[len(PREFIX):]}
        for name in names:
            settings = behaviour_annotations({}, sandbox.annotations, name)
            if settings:
                self._plans.get(("sleep", "infinity"), (), settings)
            script_from_settings(behaviour_annotations({}, sandbox.annotations, name, STATS_KEYS))

    def check(self, container: Container, sandbox: Sandbox, image: Image | None) -> RunAs:
        """InvalidArgument on a bad `fakecri.io/` annotation (looked for only when the container
        or its pod has one); else the user the container runs as, from its image's account files
        (the image record is handed over) and its spec, worked out once per image and spec."""
        if _has_settings(container.annotations) or _has_settings(sandbox.annotations):
            settings = behaviour_annotations(container.annotations, sandbox.annotations, container.name)
            self._plans.get(container.command, container.args, settings)  # InvalidArgument on a bad annotation
            script_from_settings(behaviour_annotations(container.annotations, sandbox.annotations, container.name,
                                                       STATS_KEYS))
        spec = container.spec
        asked = (container.image_id or container.image, spec.run_as_user, spec.run_as_group, spec.run_as_username,
                 spec.supplemental_groups, spec.supplemental_groups_policy)
        user = self._runs_as.get(asked)
        if user is not None:
            return user
        who = identity(self._content(container, image), run_as_user=spec.run_as_user,
                       run_as_group=spec.run_as_group, run_as_username=spec.run_as_username,
                       supplemental_groups=spec.supplemental_groups, strict=spec.supplemental_groups_policy == STRICT)
        key = (who.uid, who.gid, who.supplemental)
        user = self._users.get(key)
        if user is None:  # thousands of containers run as one user: they share its record
            if len(self._users) >= MAX_CONTENTS:
                self._users.clear()
            user = self._users[key] = RunAs(*key)
        if len(self._runs_as) >= MAX_CONTENTS:
            self._runs_as.clear()
        self._runs_as[asked] = user
        return user

    def plan(self, container: Container, sandbox: Sandbox, image: Image | None) -> Plan:
        """What the container's program does once started, from what the engine hands over
        (the container, its sandbox and its image record): the engine is not read back."""
        c = container
        if has_private_host_mount(c):  # what the host mounts after the start stays unseen
            inside = self._of(c.id)
            if inside.mounts_at_start is None:
                inside.mounts_at_start = self.host.mount_points() | self.shared_mounts.points()
        settings = behaviour_annotations(c.annotations, sandbox.annotations, c.name)
        command, args = self._content(c, image).argv(c.command, c.args)
        if not _needs_own_plan(command + args):
            return self._plans.get(command, args, settings)
        inside = self._of(c.id)
        if inside.own_plan is None:  # a command that reads its userland has a plan of its own

            def take_on(proc: Process, offset: int, step: Connect | Sleep | None) -> None:
                inside.resume = (proc, offset, step)
                self._resuming.add(c.id)
            # the plan is made as the container starts (its started_at is not set yet): its clock starts now
            started = c.started_at or self.clock.now_ns()
            ctx = replace(Context(main=True), userland=lambda: self._userland(c, sandbox, image),
                          commands=_clocked(started), refused=self._refuse)
            inside.own_plan = build_plan(command, args, settings, ctx, take_on)
        return inside.own_plan

    def cpu_used_ns(self, container: Container, sandbox: Sandbox, now_ns: int) -> int:
        return stats.cpu_total_ns(container, now_ns, self.stats_script(container, sandbox))

    # ------------------------------------------------------------ scripted stats

    def stats_script(self, c: Container, sandbox: Sandbox | None = None) -> StatsScript | None:
        """The container's scripted figures (its annotations, its pod's, what SetStats set);
        None when nothing is scripted. Read once per container: its annotations never change.
        The engine hands over the sandbox; the owner may leave it to be looked up."""
        if c.id in self._scripts:
            return self._scripts[c.id]
        if sandbox is not None:
            sandbox_annotations: Mapping[str, str] = sandbox.annotations
        else:
            try:
                sandbox_annotations = self._view().get_sandbox(c.sandbox_id).annotations
            except (NotFound, RuntimeError):
                sandbox_annotations = {}
        try:
            script = script_from_settings(behaviour_annotations(c.annotations, sandbox_annotations, c.name,
                                                                STATS_KEYS))
        except InvalidArgument:  # checked at create; a restored record from an older fakecri: unscripted
            script = None
        for since, curves in self._set.get(c.id, ()):
            script = (script or EMPTY).with_curves(curves, since)
        self._scripts[c.id] = script
        return script

    def set_stats(self, c: Container, figures: dict[str, str], now_ns: int, *, clear: bool = False) -> None:
        """Script figures of `c` from `now_ns` on (or from its start, if it has not started):
        `figures` keyed as FIGURES names them, each a value or a curve (sim/curves.py).
        `clear` first forgets what earlier calls set. InvalidArgument naming the figure."""
        unknown = sorted(set(figures) - set(FIGURES))
        if unknown:
            raise InvalidArgument(f"SetStats: unknown figure {unknown[0]!r} (known: {', '.join(FIGURES)})")
        if not figures and not clear:
            raise InvalidArgument("SetStats: give at least one figure (cpu, memory, ...) or clear")
        curves = parse_figures(figures, lambda name: f"SetStats: {name.replace('-', '_')}")
        if c.state not in (ContainerState.CREATED, _RUNNING):
            raise FailedPrecondition(f"SetStats: container {c.id} is {c.state.name}: its figures no longer change")
        done = [] if clear else self._set.get(c.id, [])
        self._set[c.id] = done + ([(now_ns, curves)] if curves else [])
        self._scripts.pop(c.id, None)

    # ------------------------------------------------------------ what is inside a container

    def content_of(self, c: Container) -> ImageContent:
        """What is inside the container's image: looked up by the image the engine resolved
        (its tags and digests), else by the reference the caller gave."""
        content = self._contents.get(c.image_id or c.image)
        if content is not None:
            return content
        return self._content(c, self.view.images.get(c.image_id) if self.view is not None else None)

    def _content(self, c: Container, img: Image | None) -> ImageContent:
        """`content_of`, with the image record given (as the engine hands it to the port)."""
        key = c.image_id or c.image
        content = self._contents.get(key)
        if content is None:
            content = self._content_for(img, c.image)
            if len(self._contents) >= MAX_CONTENTS:
                self._contents.clear()
            self._contents[key] = content
        return content

    def image_content(self, ref: str) -> ImageContent:
        """What is inside the image `ref` names (an id, a tag or a digest; an image volume's)."""
        try:
            img: Image | None = self._view().images.resolve(ref)
        except CoreError:
            img = None
        return self._content_for(img, ref)

    def _content_for(self, img: Image | None, ref: str) -> ImageContent:
        names = (list(img.repo_tags) + list(img.repo_digests)) if img is not None else []
        return self.catalog.content_of_image(names, ref)

    def argv_of(self, c: Container) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(command, args) the container runs: its config's, completed by its image's default."""
        return self.content_of(c).argv(c.command, c.args)

    def title(self, c: Container) -> str:
        """A container's main process as `ps` shows it (nginx names its master process)."""
        argv = sum(self.argv_of(c), ())
        line = " ".join(argv) or "sh"
        return "nginx: master process " + line if argv and argv[0].rsplit("/", 1)[-1] == "nginx" else line

    def processes_seen_from(self, cid: str) -> list[tuple[int, str]]:
        """(pid, command line) of the processes a container's PID namespace shows, pid 1 first:
        its own command (NamespaceMode CONTAINER), the pod's pause and containers (POD), or
        the node's init and every running container's command (NODE)."""
        view = self._view()
        c = view.get_container(cid)
        sb = view.get_sandbox(c.sandbox_id)
        mode = sb.spec.namespaces.pid
        if mode == CONTAINER:
            return [(1, self.title(c))]
        if mode == POD:
            return [(1, "/pause")] + [(n + 2, self.title(other)) for n, other in
                                      enumerate(view.list_containers(sandbox_id=sb.id)) if other.state == _RUNNING]
        return [(1, "/sbin/init")] + sorted((host_pid(other.id), self.title(other))
                                            for other in view.list_containers(state=_RUNNING))

    def server_of(self, c: Container) -> Server | None:
        """What the container's program serves while it runs (None: it serves nothing); one
        `Server` per container, holding the program's state."""
        inside = self._of(c.id)
        if not inside.server_made:
            command, args = self.argv_of(c)
            content = self.content_of(c)
            argv = command + args
            inside.server = server_for(argv, dict(c.spec.envs), content) if may_serve(argv, content) else None
            inside.server_made = True
        return inside.server

    def listeners(self, c: Container) -> tuple[Listen, ...]:
        """The sockets the container's program listens on (none unless it is running)."""
        if c.state != _RUNNING:
            return ()
        server = self.server_of(c)
        return server.listens if server is not None else ()

    def here(self, c: Container, now_ns: int) -> Here:
        """Where a request to the container's server is answered."""
        sb = self._view().get_sandbox(c.sandbox_id)
        cid = c.id
        return Here(cid, now_ns, c.started_at, sb.hostname, sb.ip,
                    shell=lambda argv: spawn(argv, self._context(c, now_ns=now_ns)),
                    userland=lambda: self.userland_of(cid))

    def userland_of(self, cid: str) -> Userland:
        """The container's simulated userland, built from its config the first time it is asked for."""
        inside = self._of(cid)
        if inside.userland is None:
            view = self._view()
            c = view.get_container(cid)
            return self._userland(c, view.get_sandbox(c.sandbox_id), None)
        return inside.userland

    def _userland(self, c: Container, sb: Sandbox, img: Image | None) -> Userland:
        """`userland_of`, from the records given (the engine's, in a call of its port)."""
        inside = self._of(c.id)
        if inside.userland is None:
            cid = c.id
            online = self.host.proc_file("/sys/devices/system/cpu/online").decode("ascii", "replace").strip()
            cgroup = Cgroup(self.cgroup_version, online or "0", self.swap_bytes, lambda: self.cgroup_now(cid))
            inside.userland = Userland(userland_spec(c, sb), ip=sb.ip, content=self._content(c, img),
                                       processes=lambda: self.processes_seen_from(cid),
                                       mounts_at_start=inside.mounts_at_start, host=self.host, cgroup=cgroup,
                                       images=self.image_content, now=self.clock.now_ns,
                                       shared=self.shared_mounts)
        return inside.userland

    def resize(self, c: Container, new: Resources) -> list[Decision]:
        """What the kernel makes of a lower memory limit for running container `c` before the engine
        stores it (sim/memory_limit.py), by what its scripted stats say it holds; the default figures
        (its program's, sim/footprint.py) are kept under any limit and never block."""
        if c.state == _RUNNING and new.oom_score_adj != c.resources.oom_score_adj:
            inside = self._of(c.id)  # runc does not change a running process's oom_score_adj
            if inside.oom_score_adj is None:
                inside.oom_score_adj = c.resources.oom_score_adj
        limit, old = new.memory_limit_in_bytes, c.resources.memory_limit_in_bytes
        script = self.stats_script(c)
        if (c.state != _RUNNING or limit <= 0 or 0 < old <= limit  # no new limit, or not a lower one
                or script is None or script.get("memory") is None):
            return []
        decisions = memory_limit.lowered(c.id, limit, self.cgroup_now(c.id), self.cgroup_version, self.clock.now_ns())
        userland = self._of(c.id).userland
        if decisions and userland is not None:
            userland.oom_killed = True
        return decisions

    def cgroup_now(self, cid: str) -> CgroupNow:
        """What container `cid`'s cgroup holds now: its resources as last set, and the usage its
        stats report at this moment (so a reading inside agrees with ContainerStats)."""
        view = self._view()
        c = view.get_container(cid)
        figures = stats.container_stats(c, self.clock.now_ns(), self.stats_script(c))
        mem = figures.memory
        inside = self._of(cid)
        return CgroupNow(c.resources, mem.usage_bytes, mem.working_set_bytes, mem.rss_bytes, mem.page_faults,
                         mem.major_page_faults, figures.cpu.usage_core_nano_seconds, (1,),
                         int(inside.userland is not None and inside.userland.oom_killed), inside.oom_score_adj)

    def _context(self, c: Container, ctx: Context | None = None, now_ns: int | None = None) -> Context:
        """Where a command in `c` runs: its userland (built on first use) and the commands that read it;
        `now_ns`, when the process starts (its `date` counts from it)."""
        cid = c.id
        return replace(ctx or Context(), userland=lambda: self.userland_of(cid), commands=_clocked(now_ns),
                       refused=self._refuse)

    # ------------------------------------------------------------ exec

    def _plan_now(self, c: Container) -> Plan:
        """The plan, for the owner's calls (exec, input, a stop): its records looked up."""
        view = self._view()
        return self.plan(c, view.get_sandbox(c.sandbox_id), view.images.get(c.image_id) if c.image_id else None)

    def _probe(self, c: Container, argv: Sequence[str], now_ns: int) -> tuple[int, bytes] | None:
        """What a scripted probe answers for `argv` (exit code, stderr), None when none covers it."""
        rule = self._plan_now(c).probe_for(argv)
        if rule is None:
            return None
        code = rule.exit_code(now_ns - c.started_at)
        err = b"" if code == 0 else f"fakecri: scripted probe failure for {' '.join(argv)}\n".encode()
        return code, err

    def exec_sync(self, c: Container, argv: Sequence[str], now_ns: int, timeout_s: float = 0.0,
                  stdin: bytes = b"") -> ExecResult:
        """Run `argv` in running container `c` to its end at once (the caller checked `c` may exec)."""
        if not argv:
            raise InvalidArgument(f"exec in container {c.id}: the command is empty")
        probe = self._probe(c, argv, now_ns)
        if probe is not None:
            return ExecResult(b"", probe[1], probe[0], 0.0, False)
        return run_exec(argv, timeout_s, stdin, self._context(c, now_ns=now_ns))

    def exec_process(self, c: Container, argv: Sequence[str], now_ns: int, ctx: Context | None = None) -> Process:
        """`argv` as a live process in running container `c`, for the streaming server to drive."""
        if not argv:
            raise InvalidArgument(f"exec in container {c.id}: the command is empty")
        probe = self._probe(c, argv, now_ns)
        if probe is not None:
            return _probe_process(*probe)
        return spawn(argv, self._context(c, ctx, now_ns))

    # ------------------------------------------------------------ input to a container's own command

    def reads_input(self, c: Container) -> bool:
        """Whether the container's own command waits for input (attach can feed it)."""
        return self._plan_now(c).input_at_ns is not None

    def feed_input(self, c: Container, data: bytes | None, now_ns: int) -> list[Decision]:
        """Give running container `c`'s command input (None: its input ends). Input to a command
        that does not read is dropped, as a process that never reads its stdin leaves it unread."""
        plan = self._plan_now(c)
        live = self.live.get(c.id)
        if plan.input_at_ns is None:  # it never read in its plan; one taken on live may read now
            if live is None:
                return []
            live.pending += data or b""
            live.eof = live.eof or data is None
            return self.live.step(c.id, now_ns) if live.waiting else []
        if live is None:
            command, args = self.argv_of(c)
            live = LiveInput.take_on(spawn(command + args, self._context(c, Context(main=True), c.started_at or None)))
            if live is None:
                return []
            self.live.add(c.id, live)
        if data is None:
            live.eof = True
        else:
            live.pending += data
        due = c.started_at + plan.input_at_ns
        if live.waiting and due <= now_ns:
            return self.live.step(c.id, now_ns)
        if live.waiting and live.due_ns is None:
            self.live.arm(c.id, due)  # it has not reached its read yet: take the input when it does
        return []

    def _take_on(self) -> None:
        """Run on live the commands their plans left to go on live, from that offset after their
        start (known once the engine started them); one left at a network step at its start
        waits for its owner to carry the step out (`pending`), unarmed."""
        for cid in list(self._resuming):
            inside = self._inside.get(cid)
            try:
                c = self._view().get_container(cid)
            except CoreError:
                c = None
            if inside is None or inside.resume is None or c is None or c.state not in (_RUNNING, _CREATED):
                self._resuming.discard(cid)
                if inside is not None and inside.resume is not None:
                    inside.resume[0].close()
                    inside.resume = None
                continue
            if c.state == _RUNNING:
                proc, offset, step = inside.resume
                inside.resume = None
                self._resuming.discard(cid)
                self.live.resume(cid, proc, step, c.started_at, offset)

    def signalled(self, c: Container, now_ns: int,
                  timeout_ns: int) -> tuple[list[Decision], tuple[int | None, int] | None]:
        """SIGTERM reaches running container `c` as a graceful stop with `timeout_ns` of grace
        begins. A program that takes the signal into itself (the plan's `term_delivered`: a shell
        with a trap for it) gets it where it is now (`LiveInputs.deliver`). Returns the decisions
        of now and how it ends (see Plan.stop_outcome), or None when its plan's stop outcome
        stands (another program; it ended already; a signal was delivered to it before)."""
        cid = c.id
        if c.state != _RUNNING or timeout_ns <= 0 or cid in self._signalled or not self._plan_now(c).term_delivered:
            return [], None
        command, args = self.argv_of(c)
        got = self.live.deliver(cid, lambda: spawn(command + args, self._main_context(c)), now_ns - c.started_at,
                                now_ns, timeout_ns)
        if got is None:
            return [], None
        self._signalled.add(cid)
        self._resuming.discard(cid)
        return got

    def _main_context(self, c: Container) -> Context:
        """Where the container's own command runs, as its plan had it (see `plan`; what it refuses
        was counted with its plan)."""
        command, args = self.argv_of(c)
        if not _needs_own_plan(command + args):
            return Context(main=True, commands=PROGRAM_COMMANDS)
        view = self._view()
        sb = view.get_sandbox(c.sandbox_id)
        img = view.images.get(c.image_id) if c.image_id else None
        return replace(Context(main=True), userland=lambda: self._userland(c, sb, img),
                       commands=_clocked(c.started_at), refused=self._refuse)

    def pending(self) -> tuple[list[tuple[str, Connect]], int | None]:
        """What the live programs wait for after a change, asked once: (container id, step) of
        those waiting on the network, each handed out once, and the next deadline."""
        if self._resuming:
            self._take_on()
        if not self.live.processes:
            return [], None
        return self.live.network_steps(), self.live.next_deadline_ns()

    def network_answered(self, cid: str, result: NetResult, now_ns: int) -> list[Decision]:
        """What the network answered a container's program: it runs on (its decisions come back)."""
        return self.live.answered(cid, result, now_ns)

    def next_deadline_ns(self) -> int | None:
        if self._resuming:
            self._take_on()
        return self.live.next_deadline_ns() if self.live.processes else None

    def tick(self, now_ns: int) -> list[Decision]:
        """Step every live process whose time has come."""
        if self._resuming:
            self._take_on()
        out: list[Decision] = []
        for _ in range(MAX_CATCH_UP):  # a step that sleeps less than the jump is due again at once
            due = self.live.due(now_ns)
            if not due:
                break
            for cid, at in due:
                out += self.live.step(cid, at)
        return out

    # ------------------------------------------------------------ lifecycle

    def stopped(self, cid: str) -> None:
        """The container stopped: its live process ends with it."""
        self.live.forget(cid)
        self._signalled.discard(cid)

    def forget(self, cid: str) -> None:
        """The container is gone: drop everything kept for it."""
        self.live.forget(cid)
        self._signalled.discard(cid)
        self._inside.pop(cid, None)
        self._scripts.pop(cid, None)
        self._set.pop(cid, None)
        self._resuming.discard(cid)

    def reset(self) -> None:
        self.live.clear()
        self._inside.clear()
        self.shared_mounts.clear()
        self._resuming.clear()
        self._signalled.clear()
        self._contents.clear()
        self._runs_as.clear()
        self._scripts.clear()
        self._set.clear()


Applier = Callable[[Decision], None]
