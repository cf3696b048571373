"""Images: their references, what a registry answers for one, and the store of pulled ones.

A reference is parsed and normalised the way containerd and docker do: `busybox` becomes
`docker.io/library/busybox:latest`; a reference with a digest keeps it; a first path part
with a dot, a colon or equal to `localhost` is a registry host. Anything outside the
grammar is InvalidArgument.

What a reference pulls (its digest, id, size, how long the pull takes, whether it needs
credentials) is the registry's answer (`Registry`, a port the sim's catalog fills in); the
store records what was pulled, looked up by tag, digest, id or id prefix. Pulls are instant
here; the server waits `pull_duration_s` before calling `pull`.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from fakecri.engine.codec import from_data, to_data
from fakecri.engine.errors import InvalidArgument, NotFound, ResourceExhausted, Unauthenticated
from fakecri.engine.records import Image

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


# ------------------------------------------------------------ the registry


@dataclass(frozen=True, slots=True)
class Pullable:
    """What a pull of one reference brings: the registry's answer."""

    digest: str  # the manifest digest, "sha256:<64 hex>"
    id: str  # the image id, "sha256:<64 hex>"
    size: int
    pull_duration_s: float
    pinned: bool = False
    username: str = ""  # the image config's user, by name or by uid
    uid: int | None = None


class Registry(Protocol):
    def lookup(self, ref: NormalizedRef, auth: Mapping[str, str] | None) -> Pullable:
        """What `ref` pulls; NotFound or Unauthenticated when the pull would fail."""


class NoRegistry:
    """A registry with nothing in it (for engine-only use)."""

    def lookup(self, ref: NormalizedRef, auth: Mapping[str, str] | None) -> Pullable:
        raise NotFound(f"image {ref} not found in the registry")


# ------------------------------------------------------------ the store


IMAGE_FS_MOUNTPOINT = "/var/lib/fakecri/images"
BYTES_PER_INODE = 16 * 1024  # a plausible average file size inside an image
_HEX_RE = re.compile(r"(?:sha256:)?[0-9a-f]+")


@dataclass(frozen=True, slots=True)
class FsUsage:
    """Usage of one filesystem, as runtime.v1.FilesystemUsage reports it."""

    used_bytes: int
    inodes_used: int
    mountpoint: str
    timestamp_ns: int


class ImageStore:
    """Images by id, with tag and repo-digest indexes. Owned by the engine's single owner."""

    def __init__(self, registry: Registry, max_images: int | None = None) -> None:
        self.registry = registry
        self.max_images = max_images
        self.changes = 0  # bumped whenever an image is added, changed or removed
        self._images: dict[str, Image] = {}
        # The same dict, to read (an event takes its pod's images from it without a call).
        self.by_id: Mapping[str, Image] = self._images
        self._by_tag: dict[str, str] = {}  # repo:tag -> id
        self._by_digest: dict[str, str] = {}  # repo@digest -> id

    def __len__(self) -> int:
        return len(self._images)

    def clear(self) -> None:
        self._images.clear()
        self._by_tag.clear()
        self._by_digest.clear()
        self.changes += 1

    # ------------------------------------------------------------ pulling

    def _lookup(self, ref: str, auth: Mapping[str, str] | None) -> tuple[NormalizedRef, Pullable]:
        nref = normalize(ref)
        try:
            return nref, self.registry.lookup(nref, auth)
        except (NotFound, Unauthenticated) as exc:
            if ref == str(nref):
                raise
            raise type(exc)(f"{exc.message} (asked for as {ref!r})") from None

    def check_pull(self, ref: str, auth: Mapping[str, str] | None = None) -> float:
        """Raise what `pull(ref, auth)` would raise, without recording anything; else the
        seconds the pull takes."""
        return self._lookup(ref, auth)[1].pull_duration_s

    def pull(self, ref: str, auth: Mapping[str, str] | None = None) -> Image:
        """Record `ref` as pulled and return its image."""
        nref, got = self._lookup(ref, auth)
        img = self._images.get(got.id)
        if img is None:
            if self.max_images is not None and len(self._images) >= self.max_images:
                raise ResourceExhausted(
                    f"cannot pull image {ref!r}: the store already holds {self.max_images} images (max_images)"
                )
            img = Image(id=got.id, repo_tags=(), repo_digests=(), size=got.size, username=got.username, uid=got.uid)
        new = img
        if got.pinned and not img.pinned:
            new = dataclasses.replace(new, pinned=True)
        if nref.tag and nref.tagged not in new.repo_tags:
            self._release_tag(nref.tagged or "", new.id)
            new = dataclasses.replace(new, repo_tags=new.repo_tags + (nref.tagged or "",))
            self._by_tag[nref.tagged or ""] = new.id
        repo_digest = f"{nref.name}@{got.digest}"
        if repo_digest not in new.repo_digests:
            new = dataclasses.replace(new, repo_digests=new.repo_digests + (repo_digest,))
            self._by_digest[repo_digest] = new.id
        if new is not img or got.id not in self._images:
            self._put(new)
        return new

    def _put(self, img: Image) -> None:
        self._images[img.id] = img
        self.changes += 1

    def _release_tag(self, tag: str, new_owner: str) -> None:
        """Take `tag` from whichever other image held it."""
        old_id = self._by_tag.get(tag)
        if old_id is not None and old_id != new_owner:
            old = self._images[old_id]
            self._put(dataclasses.replace(old, repo_tags=tuple(t for t in old.repo_tags if t != tag)))

    # ------------------------------------------------------------ lookups

    def get(self, image_id: str) -> Image | None:
        """The image with exactly this id, or None."""
        return self._images.get(image_id)

    def status(self, ref_or_id: str) -> Image | None:
        """The image a tag, digest reference, id or unique id prefix names, or None."""
        if _SHA256_RE.fullmatch(ref_or_id):
            return self._images.get(ref_or_id)
        if len(ref_or_id) == 64 and _HEX_RE.fullmatch(ref_or_id):
            return self._images.get("sha256:" + ref_or_id)
        parse_error: InvalidArgument | None = None
        try:
            nref = normalize(ref_or_id)
        except InvalidArgument as e:
            parse_error = e
        else:
            key = nref.digested if nref.digest else nref.tagged
            found = (self._by_digest if nref.digest else self._by_tag).get(key or "")
            if found is not None:
                return self._images[found]
        if _HEX_RE.fullmatch(ref_or_id):
            return self._by_prefix(ref_or_id)
        if parse_error is not None:
            raise parse_error
        return None

    def _by_prefix(self, prefix: str) -> Image | None:
        full = prefix if prefix.startswith("sha256:") else "sha256:" + prefix
        hits = [img for iid, img in self._images.items() if iid.startswith(full)]
        if len(hits) > 1:
            raise InvalidArgument(f"image id prefix {prefix!r} is ambiguous: it matches {len(hits)} images")
        return hits[0] if hits else None

    def resolve(self, ref: str) -> Image:
        """Like `status`, but NotFound naming `ref` when there is no such image."""
        img = self.status(ref)
        if img is None:
            raise NotFound(f"image {ref!r} not found")
        return img

    def list(self, ref_filter: str = "") -> list[Image]:
        """All images, or those a filter names: an id or id prefix, a tag, a digest
        reference, or a repository without tag (`busybox`: every image of it)."""
        if not ref_filter:
            return list(self._images.values())
        if _HEX_RE.fullmatch(ref_filter):
            full = ref_filter if ref_filter.startswith("sha256:") else "sha256:" + ref_filter
            by_id = [img for iid, img in self._images.items() if iid.startswith(full)]
            if by_id:
                return by_id
        nref: NormalizedRef | None
        try:
            nref = normalize(ref_filter)
        except InvalidArgument:
            nref = None
        if nref is not None and nref.tag_implicit:
            prefix_tag, prefix_digest = nref.name + ":", nref.name + "@"
            return [
                img
                for img in self._images.values()
                if any(t.startswith(prefix_tag) for t in img.repo_tags)
                or any(d.startswith(prefix_digest) for d in img.repo_digests)
            ]
        img = self.status(ref_filter)
        return [img] if img is not None else []

    def remove(self, ref_or_id: str) -> None:
        """Forget the image (every tag of it). A missing image is not an error."""
        img = self.status(ref_or_id)
        if img is None:
            return
        for tag in img.repo_tags:
            self._by_tag.pop(tag, None)
        for rd in img.repo_digests:
            self._by_digest.pop(rd, None)
        del self._images[img.id]
        self.changes += 1

    def fs_usage(self, now_ns: int) -> FsUsage:
        """Image filesystem usage: the sum of image sizes."""
        used = sum(img.size for img in self._images.values())
        inodes = sum(max(1, img.size // BYTES_PER_INODE) for img in self._images.values())
        return FsUsage(used, inodes, IMAGE_FS_MOUNTPOINT, now_ns)

    # ------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        return {"images": [to_data(img) for img in self._images.values()]}

    def load(self, data: Mapping[str, Any], where: str = "images") -> None:
        """Replace what the store holds with `to_dict()` output; InvalidArgument (and nothing
        changed) when it is malformed."""
        items = data.get("images") if isinstance(data, Mapping) else None
        if not isinstance(items, list):
            raise InvalidArgument(f"{where}: expected an object with a list of images")
        loaded: dict[str, Image] = {}
        for i, d in enumerate(items):
            img = from_data(Image, d, f"{where}.images[{i}]")
            if not _SHA256_RE.fullmatch(img.id) or img.id in loaded or img.size <= 0:
                raise InvalidArgument(f"{where}.images[{i}]: a bad or repeated id, or a size <= 0")
            loaded[img.id] = img
        self.clear()
        for img in loaded.values():
            self._images[img.id] = img
            for tag in img.repo_tags:
                self._by_tag[tag] = img.id
            for rd in img.repo_digests:
                self._by_digest[rd] = img.id
