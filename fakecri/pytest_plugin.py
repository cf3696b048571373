"""pytest plugin for fakecri (registered through the pytest11 entry point).

Fixtures: `fakecri` (one server per session, reset before each test), `cri_client`,
`cri_endpoint` and `make_fakecri` (extra independent servers). Marker
`@pytest.mark.fakecri(faults=[...], seed=N, quirks=[...])`. Options (each with an ini
key): `--cri-endpoint`, `--fakecri-seed`, `--fakecri-log-level`.

Only pytest and the standard library are imported when the plugin loads; grpc and
the server are imported the first time a fixture needs them.
"""
from __future__ import annotations

import itertools
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from fakecri.testing import FakeCRI

LOG_LEVELS = ("debug", "info", "warning", "error")
_socket_dirs = itertools.count()
_handle_key = pytest.StashKey["FakeCRI"]()


# ---------------------------------------------------------------- options


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fakecri", "fake CRI runtime")
    group.addoption("--cri-endpoint", dest="cri_endpoint", default=None,
                    help="Run the cri_* fixtures against this external CRI runtime (unix:///path or tcp://host:port); "
                         "tests that need fakecri itself are skipped.")
    group.addoption("--fakecri-seed", dest="fakecri_seed", default=None,
                    help="Seed of the session fakecri (ids and fault decisions). Default 0.")
    group.addoption("--fakecri-log-level", dest="fakecri_log_level", default=None, choices=LOG_LEVELS,
                    help="Log level of the in-process fakecri (info and debug log one line per RPC). "
                         "Unset: fakecri logs nothing and leaves the logging set-up alone.")
    parser.addini("cri_endpoint", "External CRI endpoint for the cri_* fixtures (see --cri-endpoint).", default="")
    parser.addini("fakecri_seed", "Seed of the session fakecri (see --fakecri-seed).", default="")
    parser.addini("fakecri_log_level", "Log level of the in-process fakecri (see --fakecri-log-level).", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fakecri(faults=None, seed=None, quirks=None): configure fakecri for this test: faults as dicts, "
        "Fault objects or flag strings ('--error RunPodSandbox=UNAVAILABLE'); a seed other than the session's "
        "gives the test a fresh server of its own; quirks by name.",
    )
    config.stash[_settings_key] = _Settings.from_config(config)


def pytest_report_header(config: pytest.Config) -> list[str]:
    s = config.stash.get(_settings_key, None)
    if s is None:
        return []
    if s.external:
        return [f"cri endpoint: {s.external} (external runtime; tests that need fakecri are skipped)"]
    return [f"fakecri: endpoint unix://{s.socket_path}, seed {s.seed}, log level {s.log_level or 'off'}"]


def pytest_unconfigure(config: pytest.Config) -> None:
    s = config.stash.get(_settings_key, None)
    if s is not None and s.socket_dir_made:
        shutil.rmtree(os.path.dirname(s.socket_path), ignore_errors=True)


class _Settings:
    """The plugin's options, resolved once: flag, then ini key, then default."""

    def __init__(self, external: str, seed: int, log_level: str) -> None:
        self.external = external
        self.seed = seed
        self.log_level = log_level
        # Short and known in advance (for the header); the directory is made on first use.
        self.socket_path = f"/tmp/fakecri-{os.getpid()}-{next(_socket_dirs)}/cri.sock"
        self.socket_dir_made = False

    @classmethod
    def from_config(cls, config: pytest.Config) -> _Settings:
        def pick(name: str) -> str:
            value = config.getoption(name)
            return str(value) if value not in (None, "") else str(config.getini(name) or "")

        seed_text = pick("fakecri_seed") or "0"
        try:
            seed = int(seed_text)
        except ValueError:
            raise pytest.UsageError(
                f"fakecri seed {seed_text!r} (--fakecri-seed / fakecri_seed) is not an integer") from None
        level = pick("fakecri_log_level").lower()
        if level and level not in LOG_LEVELS:
            raise pytest.UsageError(
                f"fakecri log level {level!r} (fakecri_log_level) is not one of {', '.join(LOG_LEVELS)}")
        return cls(pick("cri_endpoint"), seed, level)

    def make_socket_dir(self) -> str:
        """The session socket's directory, private to this user; a fresh one if the name is taken."""
        directory = os.path.dirname(self.socket_path)
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            st = os.lstat(directory)
            if st.st_uid != os.getuid() or not os.path.isdir(directory) or os.path.islink(directory):
                import tempfile

                directory = tempfile.mkdtemp(prefix="fc-", dir="/tmp")
                self.socket_path = os.path.join(directory, "cri.sock")
        self.socket_dir_made = True
        return self.socket_path


_settings_key = pytest.StashKey[_Settings]()
_logging_key = pytest.StashKey[bool]()  # structlog set up for this pytest run


class _CurrentStderr:
    """Writes to whatever sys.stderr is at the moment, so pytest captures server logs per test."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return False


# ---------------------------------------------------------------- servers


def _start_server(settings: _Settings, **config: Any) -> FakeCRI:
    from fakecri.testing import FakeCRI

    # With the log level unset ("off" in the header) a server writes no line at all.
    config.setdefault("quiet", not settings.log_level)
    # A test run is reproducible from its seed, ids included (no kubelet outlives the run).
    config.setdefault("deterministic_ids", True)
    # Each call in the log only at debug or info; a setting of the node, given when it is built.
    config.setdefault("log_rpcs", settings.log_level in ("debug", "info"))
    return FakeCRI.start(**config)


def _configure_logging_once(config: pytest.Config, settings: _Settings) -> None:
    if settings.log_level and not config.stash.get(_logging_key, False):
        from fakecri.logs import configure_logging

        configure_logging("console", settings.log_level, stream=_CurrentStderr())  # type: ignore[arg-type]
        config.stash[_logging_key] = True


@pytest.fixture(scope="session")
def _fakecri_session(pytestconfig: pytest.Config) -> Iterator[FakeCRI | None]:
    settings = pytestconfig.stash[_settings_key]
    if settings.external:
        yield None
        return
    _configure_logging_once(pytestconfig, settings)
    handle = _start_server(settings, socket=settings.make_socket_dir(), seed=settings.seed)
    yield handle
    handle.stop()


def _skip_external(settings: _Settings) -> None:
    if settings.external:
        pytest.skip(f"needs fakecri, but --cri-endpoint points at an external runtime ({settings.external})")


@pytest.fixture
def fakecri(request: pytest.FixtureRequest, pytestconfig: pytest.Config) -> Iterator[FakeCRI]:
    """The session fakecri, reset for this test (or a fresh one if the marker asks for another seed)."""
    settings = pytestconfig.stash[_settings_key]
    _skip_external(settings)
    marker = request.node.get_closest_marker("fakecri")
    opts = _marker_options(marker)
    session: FakeCRI = request.getfixturevalue("_fakecri_session")
    own = None
    if opts["seed"] is not None and opts["seed"] != session.seed:
        own = handle = _start_server(settings, seed=opts["seed"])
    else:
        handle = session
        handle.reset()
    added: list[str] = []
    request.node.stash[_handle_key] = handle
    try:
        for item in opts["faults"]:
            added += _marker_fault(handle.add_fault, item)
        if opts["quirks"]:
            added += _marker_fault(lambda q: handle.add_quirks(*q), opts["quirks"])
        yield handle
        handle.check()  # errors raised while other fixtures tore down
    finally:
        request.node.stash[_handle_key] = None
        if own is not None:
            own.stop()
        else:
            _remove_faults(handle, added)


def _marker_fault(add: Callable[[Any], list[dict[str, Any]]], item: Any) -> list[str]:
    """Add one marker item; a malformed one, or one the server refuses, is a usage error naming it."""
    import grpc

    from fakecri.faults.model import FaultSpecError

    try:
        return [f["name"] for f in add(item)]
    except FaultSpecError as exc:
        raise pytest.UsageError(f"@pytest.mark.fakecri: {exc}") from None
    except grpc.RpcError as exc:
        raise pytest.UsageError(f"@pytest.mark.fakecri: {item!r} was refused: {exc.details()}") from None


def _remove_faults(handle: FakeCRI, names: list[str]) -> None:
    present = {f["name"] for f in handle.list_faults()}
    for name in names:
        if name in present:
            handle.remove_fault(name)


def _marker_options(marker: pytest.Mark | None) -> dict[str, Any]:
    opts: dict[str, Any] = {"faults": [], "seed": None, "quirks": []}
    if marker is None:
        return opts
    if marker.args:
        raise pytest.UsageError("@pytest.mark.fakecri takes keywords only: faults=[...], seed=N, quirks=[...]")
    unknown = sorted(set(marker.kwargs) - set(opts))
    if unknown:
        raise pytest.UsageError(f"@pytest.mark.fakecri: unknown keyword(s) {', '.join(unknown)}; "
                                "use faults, seed or quirks")
    faults = marker.kwargs.get("faults") or []
    opts["faults"] = list(faults) if isinstance(faults, (list, tuple)) else [faults]
    quirks = marker.kwargs.get("quirks") or []
    opts["quirks"] = [quirks] if isinstance(quirks, str) else list(quirks)
    seed = marker.kwargs.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise pytest.UsageError(f"@pytest.mark.fakecri: seed must be an int, not {seed!r}")
    opts["seed"] = seed
    return opts


@pytest.fixture
def cri_endpoint(request: pytest.FixtureRequest, pytestconfig: pytest.Config) -> str:
    """The CRI endpoint under test: --cri-endpoint if given, else the fakecri's."""
    settings = pytestconfig.stash[_settings_key]
    if settings.external and request.node.get_closest_marker("fakecri") is None:
        return settings.external
    return str(request.getfixturevalue("fakecri").endpoint)


@pytest.fixture(scope="session")
def _cri_clients() -> Iterator[dict[str, Any]]:
    """Clients kept for the session, by endpoint (closing a grpc channel takes a while)."""
    clients: dict[str, Any] = {}
    yield clients
    for client in clients.values():
        client.close()


@pytest.fixture
def cri_client(cri_endpoint: str, pytestconfig: pytest.Config, _cri_clients: dict[str, Any]) -> Iterator[Any]:
    """fakecri's CRIClient connected to `cri_endpoint`. The client of the session's server (or of
    --cri-endpoint) is shared by the tests; one for a test's own server is closed after it."""
    from fakecri.client.sync_client import CRIClient

    settings = pytestconfig.stash[_settings_key]
    shared = cri_endpoint == settings.external or cri_endpoint == f"unix://{settings.socket_path}"
    client = _cri_clients.get(cri_endpoint) if shared else None
    if client is None or client.closed:
        client = CRIClient(cri_endpoint, timeout=60.0)
        client.wait_ready(timeout=30.0)
        if shared:
            _cri_clients[cri_endpoint] = client
    yield client
    if not shared:
        client.close()


@pytest.fixture
def make_fakecri(pytestconfig: pytest.Config) -> Iterator[Callable[..., FakeCRI]]:
    """Start extra independent servers: make_fakecri(seed=1, fake_clock=True, ...) takes
    ServerConfig fields. Each is stopped (and checked for server errors) after the test."""
    settings = pytestconfig.stash[_settings_key]
    _skip_external(settings)
    _configure_logging_once(pytestconfig, settings)
    made: list[FakeCRI] = []

    def make(**config: Any) -> FakeCRI:
        config.setdefault("seed", settings.seed)
        handle = _start_server(settings, **config)
        made.append(handle)
        return handle

    yield make
    failures = []
    for handle in made:
        try:
            handle.check()
        except AssertionError as exc:
            failures.append(f"{handle!r}: {exc}")
        finally:
            handle.stop()
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)


# ---------------------------------------------------------------- server errors fail the test


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After the test body: a handler that raised inside fakecri fails the test with its traceback."""
    try:
        result = yield
    except BaseException:
        errors = _take_server_errors(item)
        if errors:
            item.add_report_section("call", "fakecri server errors", "\n".join(errors))
        raise
    errors = _take_server_errors(item)
    if errors:
        pytest.fail("fakecri raised inside a handler during this test:\n" + "\n".join(errors), pytrace=False)
    return result


def _take_server_errors(item: pytest.Item) -> list[str]:
    """The tracebacks of handlers that raised since the reset, cleared so they are reported once."""
    handle = item.stash.get(_handle_key, None)
    if handle is None or handle.server.node is None:
        return []

    return list(handle.server.call(handle.node.take_errors))  # on the server's loop, which owns the node
