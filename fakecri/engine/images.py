"""The image store: pulled images, looked up by tag, digest, id or id prefix.

What a reference pulls (its digest, id, size, how long the pull takes, whether it needs
credentials) is the registry's answer (`ports.Registry`); the store records what was
pulled. Pulls are instant here; the server waits `pull_duration_s` before calling `pull`.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakecri.engine.codec import from_data, to_data
from fakecri.engine.errors import InvalidArgument, NotFound, ResourceExhausted, Unauthenticated
from fakecri.engine.ports import Pullable, Registry
from fakecri.engine.records import Image
from fakecri.engine.references import NormalizedRef, normalize

IMAGE_FS_MOUNTPOINT = "/var/lib/fakecri/images"
BYTES_PER_INODE = 16 * 1024  # a plausible average file size inside an image
_ID_RE = re.compile(r"sha256:[0-9a-f]{64}")
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
        if _ID_RE.fullmatch(ref_or_id):
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
            if not _ID_RE.fullmatch(img.id) or img.id in loaded or img.size <= 0:
                raise InvalidArgument(f"{where}.images[{i}]: a bad or repeated id, or a size <= 0")
            loaded[img.id] = img
        self.clear()
        for img in loaded.values():
            self._images[img.id] = img
            for tag in img.repo_tags:
                self._by_tag[tag] = img.id
            for rd in img.repo_digests:
                self._by_digest[rd] = img.id
