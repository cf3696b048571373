"""A running shell's state: its variables, positional parameters, functions, options and
traps, the descriptors its commands write to (`io`), and the ways control leaves a command
early (`exit`, `return`, `break`, `continue`, a fatal error), as exceptions."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from fakecri.sim.shell.ast import FuncDef
from fakecri.sim.shell.io import Io, ShellExit

__all__ = ["Break", "Continue", "Return", "Shell", "ShellError", "ShellExit"]


class Break(Exception):
    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


class Continue(Break):
    pass


class Return(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class ShellError(Exception):
    """An error that ends a non-interactive shell (ash prints `sh: MESSAGE` and exits 2):
    a bad expansion, arithmetic, an unset variable under `set -u`, a read-only variable."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.placed = False  # its message already says in which eval or `.` file
        self.io: Io | None = None  # where ash writes the message (a command's redirected stderr), None: the shell's


UMASK = "\x00umask"  # the shell's umask, among its variables (a subshell copies it), named as no script can

# `set -o` names, in the order ash lists them; "" for those that have no letter
OPTION_LETTERS = {"errexit": "e", "noglob": "f", "ignoreeof": "", "monitor": "m", "noexec": "n", "xtrace": "x",
                  "verbose": "v", "noclobber": "C", "allexport": "a", "notify": "b", "nounset": "u",
                  "errtrace": "E", "vi": "", "pipefail": ""}


@dataclass(slots=True, eq=False)
class Shell:
    io: Io
    name: str = "sh"  # $0, and the name its messages start with
    vars: dict[str, str] = field(default_factory=dict)
    exported: set[str] = field(default_factory=set)
    readonly: set[str] = field(default_factory=set)
    positional: list[str] = field(default_factory=list)
    functions: dict[str, FuncDef] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    # ash expands aliases as it reads a line: those there when the running line was read (None: all),
    # and for each function those there when its definition was read
    line_aliases: dict[str, str] | None = None
    function_aliases: dict[str, dict[str, str] | None] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # a function's definition as written
    options: set[str] = field(default_factory=set)  # the letters set: e f u x ... and "pipefail"
    status: int = 0  # $?
    last_bg: int | None = None  # $!
    pid: int = 1  # $$
    traps: dict[str, str] = field(default_factory=dict)  # signal name (EXIT, TERM...) -> action
    jobs: list[int] = field(default_factory=list)  # pids of its background jobs
    interactive: bool = False
    command_mode: bool = False  # run with -c (for $-)
    locals: list[dict[str, str | None]] = field(default_factory=list)  # per function call: the outer values
    loops: int = 0  # loops it is inside (for break/continue)
    calls: int = 0  # function calls it is inside
    depth: int = 0  # evaluation nesting (functions, eval, $(...)), bounded
    env_loader: Callable[[], dict[str, str]] | None = None  # the container's environment, read on first need
    errexit_off: int = 0  # inside a condition, `set -e` does not apply
    in_trap: bool = False
    in_place: object = None  # the simple command `sh -c` runs last, in its own place (ash forks none for it)
    trap_status: int | None = None  # inside a trap's action: `$?` when it began (what a bare `exit` exits with)
    in_alias: bool = False
    seed: int = 1  # $RANDOM's state
    substitutions: int = 0  # command substitutions run so far (an assignment's status is its last one's)
    sub_status: int = 0  # the status of the last of them
    line: int = 0  # the line of the command running (0 first), as builtins' messages name it
    line_base: int = 0  # what a line of the text running counts from (eval: its line; `.`: 1)
    source: str = ""  # the text running: "eval", the file `.` reads, "" (the script), as ash names it
    # descriptors a pushed redirection changed -> their value before (see redirect.push)
    pushed: dict[int, tuple[object, object]] = field(default_factory=dict)
    job_numbers: dict[int, int] = field(default_factory=dict)  # a background job's pid -> its number (%N)
    limits: dict[str, tuple[int, int]] = field(default_factory=dict)  # `ulimit` letter -> (soft, hard) set
    # `hash`: name -> (the index in PATH of the directory it was found in, whether a cd made it stale)
    hashed: dict[str, tuple[int, bool]] = field(default_factory=dict)
    # signals its subshells sent it (`kill $$` there): (name, number), one list shared with them all
    signals: list[tuple[str, int]] = field(default_factory=list)
    # a background job of one simple command, which ash's forked child runs in its own place: a
    # signal that ends that command is for `wait` to report, not for the job
    job_command: bool = False
    subshell: bool = False  # a copy of a shell (a subshell, a pipeline's stage, a job, `$(...)`)
    # getopts' place, ash's shellparam.optind/optoff: the next word, and the letter within the word
    # it is in (-1: a fresh word). Assigning or unsetting OPTIND resets it (ash's getoptsreset).
    optind: int = 1
    sourcing: int = 0  # how many `.` scripts it is inside (`return` there ends the `.` script)
    optoff: int = -1

    def fail(self, builtin: str, message: str) -> str:
        """A builtin's error message, as ash words it."""
        return f"{self.name}: {builtin}: line {self.line}: {message}\n"

    def copy(self) -> Shell:
        """A subshell: the same state, copied (its changes stay inside)."""
        self.load_env()
        return replace(self, vars=dict(self.vars), exported=set(self.exported), readonly=set(self.readonly),
                       positional=list(self.positional), functions=dict(self.functions), aliases=dict(self.aliases),
                       function_aliases=dict(self.function_aliases),
                       sources=dict(self.sources), options=set(self.options),
                       traps={k: v for k, v in self.traps.items() if v == ""}, jobs=[],
                       locals=[dict(d) for d in self.locals], pushed=dict(self.pushed),
                       job_numbers={}, limits=dict(self.limits), hashed=dict(self.hashed), subshell=True,
                       job_command=False)

    def load_env(self) -> None:
        if self.env_loader is not None:
            loader, self.env_loader = self.env_loader, None
            env = loader()
            for k, v in env.items():
                if k not in self.vars:
                    self.vars[k] = v
                    self.exported.add(k)
            if "PATH" not in self.vars:  # ash's default when the environment has none (not exported)
                self.vars["PATH"] = "/sbin:/usr/sbin:/bin:/usr/bin"
            # as ash starts: SHLVL one up, PWD where it is (both exported)
            if "SHLVL" not in self.vars or self.vars.get("SHLVL") == env.get("SHLVL"):
                level = env.get("SHLVL", "0")
                self.vars["SHLVL"] = str(int(level) + 1 if level.isdigit() else 1)
                self.exported.add("SHLVL")
            if "PWD" not in self.vars and self.io.ctx.userland is not None:
                spec = getattr(self.io.ctx.userland(), "spec", None)
                self.vars["PWD"] = getattr(spec, "working_dir", "") or "/"
                self.exported.add("PWD")

    def get(self, name: str) -> str | None:
        value = self.vars.get(name)
        if value is None and self.env_loader is not None:
            self.load_env()
            value = self.vars.get(name)
        return value

    def set(self, name: str, value: str) -> None:
        if name in self.readonly:
            raise ShellError(f"{name}: is read only")
        if self.env_loader is not None and name not in self.vars:
            self.load_env()
        if name == "PATH":
            self.hashed.clear()  # (ash's changepath: any assignment of PATH empties the `hash` table)
        self.vars[name] = value
        if "a" in self.options:
            self.exported.add(name)
        if name == "OPTIND":
            self.reset_getopts(value)

    def reset_getopts(self, value: str) -> None:
        """ash's getoptsreset: getopts starts again at word OPTIND (1 when it is not a number or 0)."""
        self.optind = int(value) if value.isdigit() and int(value) else 1
        self.optoff = -1

    def unset(self, name: str) -> None:
        if name in self.readonly:
            raise ShellError(f"{name}: is read only")
        self.load_env()
        if name == "PATH":
            self.hashed.clear()
        self.vars.pop(name, None)
        self.exported.discard(name)
        if name == "OPTIND":
            self.reset_getopts("")

    def make_local(self, name: str) -> None:
        if not self.locals:
            raise ShellError("local: not in a function")
        frame = self.locals[-1]
        if name not in frame:
            frame[name] = self.get(name)

    def environ(self) -> dict[str, str]:
        """The exported variables, as a program it runs gets them."""
        self.load_env()
        return {k: v for k, v in self.vars.items() if k in self.exported}

    def flags(self) -> str:
        """`$-`."""
        letters = [c for c in "uaCvxn" if c in self.options] + (["i"] if self.interactive else []) + \
            (["c"] if self.command_mode else []) + [c for c in "fe" if c in self.options]
        return "".join(letters)

    def cwd(self) -> str:
        """The working directory: $PWD, else the container's working directory, else /."""
        pwd = self.get("PWD")
        if pwd:
            return pwd
        if self.io.ctx.userland is not None:
            spec = getattr(self.io.ctx.userland(), "spec", None)
            return getattr(spec, "working_dir", "") or "/"
        return "/"

    def random(self) -> int:
        """$RANDOM: 0..32767 from a generator seeded by the shell's pid (the same run after run)."""
        self.seed = (self.seed * 1103515245 + 12345 + self.pid) & 0x7FFFFFFF
        return (self.seed >> 16) & 0x7FFF

    def where(self) -> str:
        """What ash puts before the shell's messages inside eval or `.` (`eval: line 3: `)."""
        return f"{self.source}: line {self.line}: " if self.source else ""

    def umask(self) -> int:
        return int(self.vars.get(UMASK, "0022"), 8)

    def ifs(self) -> str:
        value = self.get("IFS")
        return " \t\n" if value is None else value


def exit_of(exc: ShellExit) -> int:
    return exc.code & 0xFF
