"""Option values the commands share: file modes, HOST:PORT addresses, durations with units,
pod CIDRs, socket paths and groups. Each refuses a bad value with a message click prints
as one line naming the option."""
from __future__ import annotations

import os
from abc import ABC, abstractmethod

import click

# The one default socket: where `fakecri serve` listens when given neither --socket nor
# --listen, and where ctl, health and watch look when given no endpoint (FAKECRI_SOCKET
# moves it for all of them).
DEFAULT_SOCKET = "/run/fakecri/fakecri.sock"


def default_endpoint(farm: bool = False) -> str:
    """The endpoint of the fakecri `serve` would start now: FAKECRI_SOCKET, else (with `farm`, for
    the control API) the farm's socket in FAKECRI_SOCKET_DIR, else DEFAULT_SOCKET."""
    socket = os.environ.get("FAKECRI_SOCKET")
    if not socket and farm and os.environ.get("FAKECRI_SOCKET_DIR"):
        from fakecri.server.host.sockets import FARM_SOCKET

        socket = os.path.join(os.environ["FAKECRI_SOCKET_DIR"], FARM_SOCKET)
    return f"unix://{os.path.abspath(socket or DEFAULT_SOCKET)}"


class OctalMode(click.ParamType[int]):
    name = "MODE"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            mode = value
        else:
            try:
                mode = int(str(value), 8)
            except ValueError:
                self.fail(f"{value!r} is not an octal file mode such as 0660", param, ctx)
        if not 0 <= mode <= 0o777:
            hint = "; in a config file write it as a string, \"0660\"" if isinstance(value, int) else ""
            self.fail(f"{value!r} is not a socket mode (permission bits, 0 to 777 in octal){hint}", param, ctx)
        return mode


class _CheckedText(click.ParamType[str], ABC):
    """Text kept as given (stripped) once `check` accepts it; its ValueError is the message."""

    @abstractmethod
    def check(self, value: object) -> None:
        """Raise ValueError, with the message to show, when `value` is refused."""

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            self.check(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        return str(value).strip()


class Address(_CheckedText):
    """HOST:PORT with a port from 0 to 65535; kept as the text given."""

    name = "HOST:PORT"

    def check(self, value: object) -> None:
        from fakecri.server.config import parse_address

        parse_address(value, "address")


class Duration(click.ParamType[float]):
    """A duration with a unit (500ms, 30s, 2m, 1m30s) or a plain number of seconds."""

    name = "DURATION"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        from fakecri.faults.model import FaultSpecError
        from fakecri.faults.values import parse_duration

        if isinstance(value, (int, float)) and not isinstance(value, bool):
            seconds = float(value)
        else:
            try:
                seconds = parse_duration(str(value))
            except FaultSpecError as exc:
                self.fail(str(exc), param, ctx)
        if not (0 <= seconds < float("inf")):
            self.fail(f"{value!r} is not a duration of zero or more", param, ctx)
        return seconds


class Cidr(_CheckedText):
    """A pod CIDR (10.88.0.0/16); kept as the text given."""

    name = "CIDR"

    def check(self, value: object) -> None:
        from fakecri.server.config import check_cidr

        check_cidr(value)


class SocketPath(click.Path[str]):
    """A unix socket path. A missing parent directory is created at start-up; here it is only
    refused when something on the way is a file."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, path_type=str)

    def convert(self, value: str | os.PathLike[str], param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        path = super().convert(value, param, ctx)
        probe = os.path.dirname(os.path.abspath(path))
        while not os.path.lexists(probe):
            probe = os.path.dirname(probe)
        if not os.path.isdir(probe):
            self.fail(f"{path}: {probe} is not a directory", param, ctx)
        return path


class RootDirectory(click.Path[str]):
    """A directory fakecri owns: an existing one is used as it is, a missing one is made now;
    refused when it cannot be made or written."""

    def __init__(self) -> None:
        super().__init__(file_okay=False, path_type=str)

    def convert(self, value: str | os.PathLike[str], param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        from fakecri.server.host.disk import usable_root

        path = super().convert(value, param, ctx)
        try:
            usable_root(path)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        return path


class GroupName(click.ParamType[int]):
    """A group that exists on this machine, by name or number; the value is the gid."""

    name = "GROUP"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        import grp

        if isinstance(value, int) and not isinstance(value, bool):
            text = str(value)
        else:
            text = str(value).strip()
        try:
            return grp.getgrgid(int(text)).gr_gid if text.isdigit() else grp.getgrnam(text).gr_gid
        except (KeyError, OverflowError):
            self.fail(f"no group {text!r} on this machine", param, ctx)


class CatalogFile(click.Path[str]):
    """An image catalog file, read and checked now, so a bad one is one line naming the option."""

    def __init__(self) -> None:
        super().__init__(exists=True, dir_okay=False, path_type=str)

    def convert(self, value: str | os.PathLike[str], param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        from fakecri.engine.errors import InvalidArgument
        from fakecri.server.host.catalog_file import load_catalog

        path = super().convert(value, param, ctx)
        try:
            load_catalog(path)
        except InvalidArgument as exc:
            self.fail(exc.message, param, ctx)
        return path


def _int_range(low: int, high: int) -> click.IntRange:
    kind = click.IntRange(low, high)
    kind.name = "N"
    return kind


def _bounded_types() -> dict[str, click.ParamType[object]]:
    from fakecri.server.config import GRPC_MESSAGE_MAX, INT64_MAX

    return {"int64": _int_range(-INT64_MAX - 1, INT64_MAX), "message-size": _int_range(1, GRPC_MESSAGE_MAX)}


VALUE_TYPES: dict[str, click.ParamType[object]] = {
    "mode": OctalMode(), "address": Address(), "cidr": Cidr(), "path": click.Path(dir_okay=False),
    "file": click.Path(exists=True, dir_okay=False), "directory": click.Path(file_okay=False),
    "root": RootDirectory(), "group": GroupName(), "catalog": CatalogFile(), **_bounded_types(),
}
