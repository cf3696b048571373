"""What a container "does": its plan, built from its command and `fakecri.io/` annotations.

A `Plan` says which lines it writes and when, when it exits and how, how it takes a
stop, whether it fails to start, and how its exec probes answer. `run_exec` runs one
exec command through the same interpreter, without a Runtime. docs/behaviour.md has
the annotation reference with examples.
"""
from __future__ import annotations

import math
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from fakecri.engine.durations import NS, parse_duration_ns
from fakecri.engine.errors import InvalidArgument
from fakecri.engine.exits import EXIT_KILLED, OOM_KILLED, reason_for
from fakecri.engine.program_plan import DEFAULT_TICK_LINE, Plan, ProbeRule
from fakecri.sim.programs import COMMANDS as PROGRAM_COMMANDS
from fakecri.sim.recording import Trace
from fakecri.sim.shell import SHELLS, Connect, Context, Process, Sleep, ast, record, sleep_ns, spawn
from fakecri.sim.shell import static as syntax
from fakecri.sim.signals import on_sigterm
from fakecri.sim.steps import of_pid1

PREFIX = "fakecri.io/"

EXIT_AFTER = PREFIX + "exit-after"
EXIT_CODE = PREFIX + "exit-code"
OOM_AFTER = PREFIX + "oom-after"
FAIL_START = PREFIX + "fail-start"
LOG = PREFIX + "log"
LOG_EVERY = PREFIX + "log-every"
LOG_EVERY_LINE = PREFIX + "log-every-line"
LOG_STREAM = PREFIX + "log-stream"
STOP_DELAY = PREFIX + "stop-delay"
STOP_EXIT_CODE = PREFIX + "stop-exit-code"
PROBES = PREFIX + "probes"

KEYS = (EXIT_AFTER, EXIT_CODE, OOM_AFTER, FAIL_START, LOG, LOG_EVERY, LOG_EVERY_LINE, LOG_STREAM,
        STOP_DELAY, STOP_EXIT_CODE, PROBES)
_KEYSET = frozenset(KEYS)

@dataclass(frozen=True, slots=True)
class ExecResult:
    stdout: bytes
    stderr: bytes
    exit_code: int
    duration_s: float  # how long the command takes, capped by the timeout; math.inf = never returns
    timed_out: bool
    to_log: tuple[tuple[str, str], ...] = ()  # (stream, text) it wrote to PID 1's output: the container's log


def behaviour_annotations(
    annotations: Mapping[str, str], sandbox_annotations: Mapping[str, str] | None, container_name: str,
    keys: frozenset[str] = _KEYSET,
) -> dict[str, str]:
    """The `fakecri.io/` settings of one container (those in `keys`: by default, its behaviour's).

    A pod can script its containers: sandbox annotation `fakecri.io/<key>` applies to every
    container, `fakecri.io/<key>.<container name>` to one; the container's own win.
    """
    out: dict[str, str] = {}
    if sandbox_annotations:
        suffix = "." + container_name
        specific: dict[str, str] = {}
        for key, value in sandbox_annotations.items():
            if not key.startswith(PREFIX):
                continue
            if key in keys:
                out[key] = value
            elif key.endswith(suffix) and key[: -len(suffix)] in keys:
                specific[key[: -len(suffix)]] = value
        out.update(specific)
    for key, value in annotations.items():
        if key in keys:
            out[key] = value
    return out


def _duration(settings: Mapping[str, str], key: str, *, allow_forever: bool = False) -> int | None:
    try:
        return parse_duration_ns(settings[key], allow_forever=allow_forever)
    except ValueError as exc:
        raise InvalidArgument(f"annotation {key}: {exc}") from None


def _int(settings: Mapping[str, str], key: str, lo: int, hi: int) -> int:
    text = settings[key].strip()
    try:
        value = int(text)
    except ValueError:
        raise InvalidArgument(f"annotation {key}: {text!r} is not an integer") from None
    if not lo <= value <= hi:
        raise InvalidArgument(f"annotation {key}: {value} is outside {lo}..{hi}")
    return value


def _stop(argv: tuple[str, ...], traced: Trace, settings: Mapping[str, str]) -> tuple[int | None, int, bool]:
    """(delay_ns or None, exit code, delivered) of a graceful stop: what the program does on
    SIGTERM as PID 1 (sim/signals.py), changed by the annotations. `stop-exit-code` alone says
    the program takes SIGTERM, at once unless it already takes a while. `delivered`: the signal
    goes into the program (a shell's trap), which then decides, unless an annotation does."""
    term = on_sigterm(argv, traced)
    delay, code = term.delay_ns, term.exit_code
    if STOP_EXIT_CODE in settings:
        code = _int(settings, STOP_EXIT_CODE, 0, 255)
        if delay is None:
            delay = 0
    if STOP_DELAY in settings:
        delay = _duration(settings, STOP_DELAY, allow_forever=True)
    return delay, code, term.delivered and STOP_DELAY not in settings and STOP_EXIT_CODE not in settings


def _probes(text: str) -> tuple[ProbeRule, ...]:
    rules = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, sep, outcome = line.rpartition("=")
        pattern, words = pattern.strip(), outcome.split()
        if not sep or not pattern or not words:
            raise InvalidArgument(f"annotation {PROBES}: line {n} {line!r} is not '<command glob> = <outcome>'")
        kind = words[0]
        if kind in ("ok", "fail") and len(words) == 1:
            rules.append(ProbeRule(pattern, kind))
        elif kind in ("fail-after", "ok-after") and len(words) == 2:
            try:
                after = parse_duration_ns(words[1])
            except ValueError as exc:
                raise InvalidArgument(f"annotation {PROBES}: line {n}: {exc}") from None
            rules.append(ProbeRule(pattern, kind, after or 0))
        else:
            raise InvalidArgument(
                f"annotation {PROBES}: line {n} outcome {outcome.strip()!r} is not one of "
                "ok, fail, fail-after <duration>, ok-after <duration>"
            )
    return tuple(rules)


def build_plan(command: Sequence[str], args: Sequence[str], settings: Mapping[str, str],
               ctx: Context | None = None,
               live: Callable[[Process, int, Connect | Sleep | None], None] | None = None) -> Plan:
    """The plan of a container; InvalidArgument naming the annotation on a bad value.

    `ctx`: where the command runs (its container's userland), for a command that looks
    into it; without one the plan depends on the command and annotations only. `live`: takes
    the command over where only a live run can carry it on: when it looks at its files after
    time has passed (they may have changed by then), takes a network step, or sleeps with a
    trap for SIGTERM set (a stop delivers the signal into it). `live(process, offset, step)`
    gets the process stopped there (`step`: the network step it waits on, or the sleep it is
    in, which began at that offset), to run on live from that offset; the plan then holds what
    it did before and runs until stopped.
    """
    argv = tuple(command) + tuple(args)
    loop = logging_loop(argv)
    if loop is not None and LOG_EVERY not in settings:
        # A logging loop runs until stopped; its lines come from the periodic timer below,
        # not from tracing thousands of rounds up front.
        own = Trace((), None, 0)
        reason = ""
    else:
        proc = spawn(argv, ctx or Context(main=True, commands=PROGRAM_COMMANDS))
        own = record(proc, None, hand_over=live is not None)
        if own.live_at_ns is not None and live is not None:
            live(proc, own.live_at_ns, own.connect or own.asleep)
        reason = reason_for(own.exit_code)
    outputs = own.outputs
    end_ns, exit_code, input_at_ns = own.end_ns, own.exit_code, own.input_at_ns
    if end_ns is not None and ctx is not None and ctx.userland is not None and ctx.userland().oom_killed:
        reason = OOM_KILLED  # its cgroup saw an OOM kill: containerd reports the exit so
    stream = settings.get(LOG_STREAM, "stdout").strip()
    if stream not in ("stdout", "stderr"):
        raise InvalidArgument(f"annotation {LOG_STREAM}: {stream!r} is not stdout or stderr")
    if LOG in settings:
        outputs = ((0, stream, settings[LOG] + "\n"),) + outputs
    scripted: list[tuple[int, int, str]] = []
    if EXIT_AFTER in settings:
        code = _int(settings, EXIT_CODE, 0, 255) if EXIT_CODE in settings else 0
        scripted.append((_duration(settings, EXIT_AFTER) or 0, code, reason_for(code)))
    elif EXIT_CODE in settings:
        raise InvalidArgument(f"annotation {EXIT_CODE} needs {EXIT_AFTER} too")
    if OOM_AFTER in settings:
        scripted.append((_duration(settings, OOM_AFTER) or 0, EXIT_KILLED, OOM_KILLED))
    if scripted:  # a scripted exit replaces the command's own end
        end_ns, exit_code, reason = min(scripted, key=lambda s: s[0])
    log_every, log_line = None, settings.get(LOG_EVERY_LINE, DEFAULT_TICK_LINE)
    if loop is not None and LOG_EVERY not in settings:  # the command is a logging loop
        log_every, loop_stream, text, echo_first = loop
        if echo_first:  # a line at once; sleep first: the first comes with the periodic ones
            outputs = outputs + ((0, loop_stream, text),)
        stream, log_line = loop_stream, text[:-1]
    if LOG_EVERY in settings:
        log_every = _duration(settings, LOG_EVERY)
        if not log_every:
            raise InvalidArgument(f"annotation {LOG_EVERY}: the interval must be above zero")
    stop_delay, stop_code, term_delivered = _stop(argv, own, settings)
    fail_start = None
    if FAIL_START in settings:
        value = settings[FAIL_START].strip()
        if value.lower() in ("", "false", "no", "0"):
            fail_start = None
        else:
            fail_start = "scripted start failure" if value.lower() in ("true", "yes", "1") else value
    return Plan(
        outputs=outputs,
        end_ns=end_ns,
        exit_code=exit_code,
        reason=reason,
        log_every_ns=log_every,
        log_every_line=log_line,
        log_stream=stream,
        stop_delay_ns=stop_delay,
        stop_exit_code=stop_code,
        fail_start=fail_start,
        probes=_probes(settings[PROBES]) if PROBES in settings else (),
        input_at_ns=input_at_ns,
        term_delivered=term_delivered,
    )


def logging_loop(argv: Sequence[str]) -> tuple[int, str, str, bool] | None:
    """`sh -c 'while true; do echo X; sleep N; done'` (also `while :`, sleep before echo):
    (period_ns, stream, text, echo_first), a line every N seconds forever; None for
    anything else. Such a loop, as a container's command, is scripted as a periodic line
    rather than worked out round by round."""
    words = syntax.strip_prefixes([str(a) for a in argv])
    if len(words) != 3 or posixpath.basename(words[0]) not in SHELLS or words[1] != "-c":
        return None
    node = syntax.tree(words[2])
    if not isinstance(node, ast.Loop) or node.until or not isinstance(node.cond, ast.Simple):
        return None
    if syntax.argv_of(node.cond) not in (["true"], [":"]) or node.cond.redirs or node.cond.assigns:
        return None
    body = node.body
    if not isinstance(body, ast.Sequence) or len(body.items) != 2 or any(bg for _, bg in body.items):
        return None
    commands = [n for n, _ in body.items]
    if not all(isinstance(c, ast.Simple) and c.words and not c.assigns and all(syntax.is_static(w) for w in c.words)
               for c in commands):
        return None
    kinds = [syntax.argv_of(c)[0] for c in commands if isinstance(c, ast.Simple)]
    if sorted(kinds) != ["echo", "sleep"]:
        return None
    echo_at = kinds.index("echo")
    echo_cmd, sleep_cmd = commands[echo_at], commands[1 - echo_at]
    assert isinstance(echo_cmd, ast.Simple) and isinstance(sleep_cmd, ast.Simple)
    stream = _echo_stream(echo_cmd.redirs)
    if sleep_cmd.redirs or stream is None:
        return None
    echo, sleep = syntax.argv_of(echo_cmd), syntax.argv_of(sleep_cmd)
    try:
        period = sleep_ns(sleep[1:])
    except ValueError:
        return None
    if not period or (len(echo) > 1 and echo[1].startswith("-")):
        return None
    text = " ".join(echo[1:]) + "\n"
    if "{n}" in text:  # the periodic line would be numbered
        return None
    return period, stream, text, echo_at == 0


def _echo_stream(redirs: tuple[ast.Redir, ...]) -> str | None:
    """Where an echo with these redirections writes: "stdout", "stderr", or None (a file, or more)."""
    if not redirs:
        return "stdout"
    if len(redirs) == 1 and redirs[0].fd == 1 and redirs[0].op == ">&" and syntax.word_text(redirs[0].target) == "2":
        return "stderr"
    if len(redirs) == 1 and redirs[0].fd == 1 and redirs[0].op in (">", ">>") \
            and syntax.word_text(redirs[0].target) in ("/dev/stderr", "/proc/1/fd/2", "/proc/self/fd/2"):
        return "stderr"
    return None


class PlanCache:
    """Plans keyed by (command, args, settings); pods of one spec share one plan. `refused`
    is told what the shell refused while a plan was worked out (once per plan)."""

    def __init__(self, size: int = 512, refused: Callable[[str], None] | None = None) -> None:
        self._size = size
        self._plans: dict[tuple[object, ...], Plan] = {}
        self._ctx = Context(main=True, commands=PROGRAM_COMMANDS, refused=refused) if refused is not None else None

    def get(self, command: Sequence[str], args: Sequence[str], settings: Mapping[str, str]) -> Plan:
        key = (tuple(command), tuple(args), tuple(sorted(settings.items())))
        plan = self._plans.get(key)
        if plan is None:
            plan = build_plan(command, args, settings, self._ctx)
            if len(self._plans) >= self._size:
                self._plans.clear()
            self._plans[key] = plan
        return plan


def run_exec(argv: Sequence[str], timeout_s: float = 0.0, stdin: bytes = b"", ctx: Context | None = None) -> ExecResult:
    """Run one exec command through the interpreter (an unknown program: exit 127).

    `duration_s` is how long it would take, capped by a non-zero `timeout_s`; `timed_out`
    says the command would have outlasted it (exit code then is 137, output so far kept).
    """
    done = record(spawn(argv, ctx), stdin)
    total_ns = math.inf if done.end_ns is None else done.end_ns
    limit_ns = timeout_s * NS["s"] if timeout_s > 0 else math.inf
    timed_out = total_ns > limit_ns
    cut = min(total_ns, limit_ns)
    out, err = bytearray(), bytearray()
    to_log: list[tuple[str, str]] = []
    for offset, stream, text in done.outputs:
        if offset > cut:
            continue
        pid1 = of_pid1(stream)
        if pid1 is not None:
            to_log.append((pid1, text))
        else:
            (out if stream == "stdout" else err).extend(text.encode("utf-8", "surrogateescape"))
    duration_s = math.inf if cut == math.inf else cut / NS["s"]
    return ExecResult(bytes(out), bytes(err), EXIT_KILLED if timed_out else done.exit_code, duration_s, timed_out,
                      tuple(to_log))
