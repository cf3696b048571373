"""Image references, parsed and normalised the way containerd and docker do.

`busybox` becomes `docker.io/library/busybox:latest`; a reference with a digest
keeps it; a first path part with a dot, a colon or equal to `localhost` is a
registry host. Anything outside the grammar is InvalidArgument.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from fakecri.engine.errors import InvalidArgument

DEFAULT_DOMAIN = "docker.io"
LEGACY_DOMAIN = "index.docker.io"
OFFICIAL_PREFIX = "library/"
DEFAULT_TAG = "latest"
MAX_NAME_LENGTH = 255

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_PATH_RE = re.compile(rf"{_COMPONENT}(?:/{_COMPONENT})*")
_HOST_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_RE = re.compile(rf"(?:{_HOST_PART}(?:\.{_HOST_PART})*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?")
_TAG_RE = re.compile(r"[\w][\w.-]{0,127}")
_DIGEST_RE = re.compile(r"[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,}")
_SHA256_RE = re.compile(r"sha256:[0-9a-f]{64}")
_BARE_ID_RE = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class NormalizedRef:
    """A fully qualified reference: `domain/path[:tag][@digest]`."""

    domain: str
    path: str
    tag: str | None = None
    digest: str | None = None
    tag_implicit: bool = False  # True when `latest` was added by normalisation

    @property
    def name(self) -> str:
        """The repository: `docker.io/library/busybox`."""
        return f"{self.domain}/{self.path}"

    @property
    def tagged(self) -> str | None:
        """`repository:tag`, or None for a digest-only reference."""
        return f"{self.name}:{self.tag}" if self.tag else None

    @property
    def digested(self) -> str | None:
        """`repository@digest`, or None when there is no digest."""
        return f"{self.name}@{self.digest}" if self.digest else None

    def __str__(self) -> str:
        out = self.name
        if self.tag:
            out += f":{self.tag}"
        if self.digest:
            out += f"@{self.digest}"
        return out


def is_digest(text: str) -> bool:
    """True for a well-formed `algorithm:hex` digest (sha256 must be 64 lowercase hex)."""
    if text.startswith("sha256:"):
        return bool(_SHA256_RE.fullmatch(text))
    return bool(_DIGEST_RE.fullmatch(text))


@functools.lru_cache(maxsize=4096)  # a node sees few distinct references, each many times
def normalize(ref: str) -> NormalizedRef:
    """Parse and fully qualify `ref`; InvalidArgument naming it if malformed."""
    if not isinstance(ref, str) or not ref:
        raise InvalidArgument(f"image reference {ref!r} is empty")
    if ref != ref.strip():
        raise InvalidArgument(f"image reference {ref!r} has surrounding whitespace")
    if _BARE_ID_RE.fullmatch(ref):
        raise InvalidArgument(f"image reference {ref!r} is a 64-character hex id, not a repository name")

    rest, digest = ref, None
    if "@" in rest:
        rest, digest = rest.split("@", 1)
        if not is_digest(digest):
            raise InvalidArgument(f"image reference {ref!r} has a malformed digest {digest!r}")

    tag = None
    slash, colon = rest.rfind("/"), rest.rfind(":")
    if colon > slash:
        rest, tag = rest[:colon], rest[colon + 1 :]
        if not _TAG_RE.fullmatch(tag):
            raise InvalidArgument(f"image reference {ref!r} has a malformed tag {tag!r}")

    domain, path = _split_domain(rest, ref)
    if not _PATH_RE.fullmatch(path):
        detail = "must be lowercase" if path.lower() != path else "is malformed"
        raise InvalidArgument(f"image reference {ref!r}: repository path {path!r} {detail}")
    if not _DOMAIN_RE.fullmatch(domain):
        raise InvalidArgument(f"image reference {ref!r} has a malformed registry host {domain!r}")
    if len(domain) + 1 + len(path) > MAX_NAME_LENGTH:
        raise InvalidArgument(f"image reference {ref!r} is longer than {MAX_NAME_LENGTH} characters")

    implicit = tag is None and digest is None
    if implicit:
        tag = DEFAULT_TAG
    return NormalizedRef(domain, path, tag, digest, implicit)


def _split_domain(name: str, ref: str) -> tuple[str, str]:
    if not name:
        raise InvalidArgument(f"image reference {ref!r} has no repository name")
    first, sep, remainder = name.partition("/")
    looks_like_host = "." in first or ":" in first or first == "localhost" or first.lower() != first
    if sep and looks_like_host:
        domain, path = first, remainder
    else:
        domain, path = DEFAULT_DOMAIN, name
    if domain == LEGACY_DOMAIN:
        domain = DEFAULT_DOMAIN
    if domain == DEFAULT_DOMAIN and "/" not in path:
        path = OFFICIAL_PREFIX + path
    return domain, path
