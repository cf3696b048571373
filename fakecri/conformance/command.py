"""`fakecri conformance`: run the property suite against a CRI endpoint and print the table.

`conformance_command(in_process_runtime=...)` builds the click command. With no
--endpoint it judges the runtime `in_process_runtime()` starts (the fakecri CLI passes
a factory for an in-process fakecri); the conformance package itself never imports a
server.
"""
from __future__ import annotations

import contextlib
import json
import shlex
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import click

from fakecri.client.endpoint import parse_endpoint
from fakecri.client.errors import InvalidEndpointError
from fakecri.conformance.profiles import PROFILES

if TYPE_CHECKING:
    from fakecri.conformance.progress import LineProgress


class InProcessRuntime(Protocol):
    """What the command needs of a runtime it started itself."""

    @property
    def endpoint(self) -> str: ...

    def stop(self) -> None: ...



def _check_endpoint(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse an endpoint no CRI client could dial, before anything starts."""
    if value is not None:
        try:
            parse_endpoint(value)
        except InvalidEndpointError as exc:
            raise click.BadParameter(str(exc), ctx, param) from None
    return value

def _list_properties() -> None:
    from fakecri.conformance.properties import ALL, NAMES

    width = max(len(n) for n in NAMES)
    for p in ALL:
        click.echo(f"{p.name:<{width}}  {p.level:<6}  {p.item:<7}  {p.summary()}")


DEFAULTS = {"--image": "busybox", "--profile": "current", "--max-examples": 20, "--steps": 10,
            "--runtime-handler": ""}


def replay_command(given: Mapping[str, object], seed: int) -> str:
    """The command that replays `seed` with the options of this run that are not defaults."""
    words = ["fakecri", "conformance"]
    for flag, value in given.items():
        if value is None or value == DEFAULTS.get(flag) or value == ():
            continue
        for one in value if isinstance(value, tuple) else (value,):
            words += [flag, shlex.quote(str(one))]
    return " ".join([*words, "--seed", str(seed)])


class MissingExtra(click.ClickException):
    """An optional dependency this command needs is not installed (exit 2: it cannot run)."""

    exit_code = 2


def _reporter(quiet: bool, total: int) -> LineProgress | None:
    """What shows the run's progress on stderr: nothing (--quiet), a live view on a
    terminal, else one line per phase and per example."""
    from fakecri.conformance.progress import LineProgress, TerminalProgress

    if quiet:
        return None
    if sys.stderr.isatty():
        try:
            return TerminalProgress(total=total)
        except ImportError:  # no rich (the lean install): lines instead of the live view
            pass
    return LineProgress()


def conformance_command(in_process_runtime: Callable[[], InProcessRuntime] | None = None) -> click.Command:
    """The `conformance` command; `in_process_runtime` starts the runtime judged when no
    --endpoint is given (None: --endpoint is required)."""
    default_help = ("Default: start a fakecri in-process and judge it, so a run needs no setup (give the "
                    "endpoint of a running fakecri, containerd or CRI-O to judge that)."
                    if in_process_runtime is not None else "Required.")

    @click.command("conformance")
    @click.option("--endpoint", default=None, metavar="URL", callback=_check_endpoint,
                  help=f"CRI endpoint to judge (unix:///path or tcp://host:port). {default_help}")
    @click.option("--image", default="busybox", show_default=True,
                  help="Image the containers run (pulled first unless ImageStatus shows it).")
    @click.option("--no-pull", is_flag=True,
                  help="Never pull the image: use it if present, else exit 2 (for offline runtimes).")
    @click.option("--max-examples", type=click.IntRange(1), default=20, show_default=True,
                  help="Random examples (call sequences) Hypothesis runs.")
    @click.option("--steps", type=click.IntRange(1), default=10, show_default=True,
                  help="Most rules (steps) per example.")
    @click.option("--seed", type=int, default=None, help="Hypothesis seed (default: derandomized, same every run).")
    @click.option("--profile", type=click.Choice(PROFILES), default="current", show_default=True,
                  help="Which kubelet semantics judge the relist path: current (relist 1 s, STOPPED -> targeted "
                       "relist) or legacy-evented (events write the cache; relist scaled to 2 s).")
    @click.option("--property", "properties", multiple=True, metavar="NAME",
                  help="Run only these properties (repeatable). See --list.")
    @click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="Write a JSON report here.")
    @click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="Write a JUnit XML report here.")
    @click.option("--burst", type=click.IntRange(1), default=300, show_default=True,
                  help="Most containers in the slow-subscriber burst (4 events each); the burst makes only as many as"
                       " it takes to fall behind, within --burst-time at the runtime's measured pace.")
    @click.option("--burst-time", type=click.FloatRange(1), default=20.0, show_default=True,
                  help="Seconds the burst may take at the pace the runtime showed in the examples.")
    @click.option("--runtime-handler", default="", metavar="NAME",
                  help="RunPodSandbox's runtime handler (a kubelet sends its RuntimeClass's; default: the runtime's"
                       " default handler).")
    @click.option("--log-root", default=None, metavar="DIR",
                  help="Where pod log directories are made, as the kubelet's /var/log/pods (default: a temporary"
                       " directory when the endpoint is a unix socket, none for tcp; '' for none).")
    @click.option("--explore", "explore_runs", type=click.IntRange(0), default=0, show_default=True,
                  help="After the derandomized run, run the suite on this many fresh seeds, print each failing seed"
                       " and the command that replays it.")
    @click.option("--explore-time", type=click.FloatRange(1), default=600.0, show_default=True,
                  help="Seconds exploring may take: no seed starts after this.")
    @click.option("--no-shrink", is_flag=True, help="Report the first failing call sequence without shrinking it.")
    @click.option("--shrink-time", type=click.FloatRange(1), default=20.0, show_default=True,
                  help="Seconds Hypothesis may spend shrinking one kind of failure.")
    @click.option("--shrink-budget", type=click.FloatRange(0), default=40.0, show_default=True,
                  help="Seconds all shrinking together may take; failures beyond it are reported unshrunk.")
    @click.option("--strict", is_flag=True, help="Exit 1 on SHOULD failures too (default: only MUST failures).")
    @click.option("--list", "list_only", is_flag=True, help="List the properties and exit.")
    @click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
    @click.option("--json", "json_mode", is_flag=True,
                  help="Print one JSON object per property verdict, then a summary object, on stdout (for CI) "
                       "instead of the table. Progress still goes to stderr.")
    def conformance(endpoint: str | None, image: str, no_pull: bool, max_examples: int, steps: int,
                    seed: int | None, profile: str, properties: tuple[str, ...], report_path: Path | None,
                    junit_path: Path | None, burst: int, burst_time: float, runtime_handler: str,
                    log_root: str | None, explore_runs: int, explore_time: float, no_shrink: bool,
                    shrink_time: float, shrink_budget: float, strict: bool, list_only: bool, quiet: bool,
                    json_mode: bool) -> None:
        """Judge a CRI runtime by the property suite.

        Exit status: 0 when every MUST property passes (every property with --strict),
        1 when one fails, 2 when the runtime cannot be used.

        Progress goes to stderr: a line per phase and per example, and on a terminal a live
        line with the call being made.
        """
        from fakecri.conformance.options import Options
        from fakecri.conformance.results import to_json, to_json_lines, to_junit

        if list_only:
            _list_properties()
            return
        try:
            from fakecri.conformance.runner import run_suite
        except ImportError as exc:
            raise MissingExtra(str(exc).split(" (", 1)[0] + ": pip install 'fakecri[conformance]'") from None

        reporter = _reporter(quiet, max_examples)

        from fakecri.conformance.properties import NAMES

        unknown = [p for p in properties if p not in NAMES]
        if unknown:
            raise click.BadParameter(f"no property named {', '.join(unknown)}; see --list", param_hint="--property")
        server = None
        try:  # from the start of the in-process runtime: a SIGTERM at any point after still stops it
            if endpoint is None:
                if in_process_runtime is None:
                    raise click.UsageError("--endpoint is required")
                server = in_process_runtime()
                endpoint = server.endpoint
                if reporter is not None:
                    reporter.phase(f"started an in-process fakecri at {endpoint}")
            opts = Options(endpoint=endpoint, image=image, profile=profile, max_examples=max_examples, steps=steps,
                           seed=seed, properties=list(properties) or None, shrink=not no_shrink,
                           shrink_time=shrink_time, shrink_budget=shrink_budget, pull=not no_pull, slow_burst=burst,
                           burst_seconds=burst_time, runtime_handler=runtime_handler, log_root=log_root,
                           progress=reporter.phase if reporter is not None else None,
                           on_call=reporter.call if reporter is not None else None)
            found = None
            try:
                with reporter or contextlib.nullcontext():
                    result = run_suite(opts)
                    if explore_runs:
                        from fakecri.conformance.explore import explore

                        given = {"--endpoint": None if server is not None else endpoint, "--image": image,
                                 "--profile": profile, "--max-examples": max_examples, "--steps": steps,
                                 "--runtime-handler": runtime_handler, "--property": properties}
                        found = explore(opts, explore_runs, explore_time, lambda s: replay_command(given, s))
            except ConnectionError as exc:
                click.echo(f"error: {exc}", err=True)
                sys.exit(2)
        finally:
            if server is not None:
                server.stop()
        if json_mode:
            for line in to_json_lines(result, strict=strict):
                click.echo(line)
            if found is not None:
                click.echo(json.dumps({"kind": "explore", **found.as_dict()}))
        else:
            click.echo(result.table())
            if found is not None:
                click.echo("\n" + found.text())
        if report_path is not None:
            data = json.loads(to_json(result))
            if found is not None:
                data["explore"] = found.as_dict()
            report_path.write_text(json.dumps(data, indent=2) + "\n")
        if junit_path is not None:
            junit_path.write_text(to_junit(result))
        sys.exit(1 if result.failed(strict) or (found is not None and found.failed(strict)) else 0)

    return conformance
