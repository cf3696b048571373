"""The image store: pulled images, looked up by tag, digest, id or id prefix.

Pulls are instant here; the simulated time (`pull_duration_s`) is for the server
to wait before calling `pull`. Ids, digests and sizes are deterministic: the same
reference always yields the same image, and an image's id follows from its
manifest digest, so pulling one digest twice (or a tag and then its digest) gives
one image.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakecri.sim.catalog import Catalog, CatalogImage, derived_digest, derived_id, derived_size
from fakecri.engine.clock import Clock
from fakecri.engine.errors import InvalidArgument, NotFound, ResourceExhausted, Unauthenticated
from fakecri.engine.records import Image
from fakecri.engine.references import NormalizedRef, normalize

__all__ = ["Catalog", "FsUsage", "ImageStore", "NormalizedRef", "normalize"]

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
    """Images by id, with tag and repo-digest indexes. Owned by one event loop."""

    def __init__(self, clock: Clock, catalog: Catalog | None = None, max_images: int | None = None) -> None:
        self.clock = clock
        self.catalog = catalog or Catalog()
        self.max_images = max_images
        self.generation = 0  # bumped whenever an image is added, changed or removed
        self._images: dict[str, Image] = {}
        self._by_tag: dict[str, str] = {}  # repo:tag -> id
        self._by_digest: dict[str, str] = {}  # repo@digest -> id

    def __len__(self) -> int:
        return len(self._images)

    # ------------------------------------------------------------ pulling

    def normalize(self, ref: str) -> NormalizedRef:
        return normalize(ref)

    def pull_duration_s(self, ref: str) -> float:
        """Simulated seconds a pull of `ref` takes."""
        return self.catalog.pull_duration_s(normalize(ref))

    def check_pull(self, ref: str, auth: Mapping[str, Any] | None = None) -> NormalizedRef:
        """Raise what `pull(ref, auth)` would raise, without recording anything."""
        nref = normalize(ref)
        cat = self.catalog
        if cat.is_unknown(nref) or (not cat.allow_unknown and cat.find(nref) is None):
            raise NotFound(f"image {ref!r} ({nref}) not found in the registry")
        rule = cat.auth_rule(nref)
        if rule is not None and not rule.accepts(auth):
            why = "credentials were rejected" if auth else "credentials are required"
            raise Unauthenticated(f"pulling image {ref!r} ({nref}): {why}")
        return nref

    def pull(self, ref: str, auth: Mapping[str, Any] | None = None) -> Image:
        """Record `ref` as pulled and return its image."""
        nref = self.check_pull(ref, auth)
        entry = self.catalog.find(nref)
        digest, image_id, size = _identity(nref, entry)
        img = self._images.get(image_id)
        if img is None:
            if self.max_images is not None and len(self._images) >= self.max_images:
                raise ResourceExhausted(
                    f"cannot pull image {ref!r}: the store already holds {self.max_images} images (max_images)"
                )
            img = Image(id=image_id, repo_tags=[], repo_digests=[], size=size)
            if entry is not None and (entry.username or entry.uid is not None):
                img.username, img.uid = entry.username, entry.uid
            else:  # the User of the image's config, as far as it is known
                user = self.catalog.content_for(nref).user.partition(":")[0]
                if user.isdigit():
                    img.uid = int(user)
                else:
                    img.username = user
            self._images[image_id] = img
        img.pinned = img.pinned or self.catalog.is_pinned(nref) or bool(entry and entry.pinned)
        if nref.tag and nref.tagged not in img.repo_tags:
            self._take_tag(nref.tagged, img)
        repo_digest = f"{nref.name}@{digest}"
        if repo_digest not in img.repo_digests:
            img.repo_digests.append(repo_digest)
            self._by_digest[repo_digest] = img.id
        self._touch(img)
        return img

    def image_ref(self, ref: str, img: Image) -> str:
        """What PullImage answers for `ref`: the repo digest in ref's repository,
        else the first repo digest, else the image id."""
        name = normalize(ref).name + "@"
        for rd in img.repo_digests:
            if rd.startswith(name):
                return rd
        return img.repo_digests[0] if img.repo_digests else img.id

    def _take_tag(self, tag: str, img: Image) -> None:
        """Give `tag` to `img`, taking it from whichever image held it."""
        old_id = self._by_tag.get(tag)
        if old_id is not None and old_id != img.id:
            old = self._images[old_id]
            old.repo_tags.remove(tag)
            self._touch(old)
        img.repo_tags.append(tag)
        self._by_tag[tag] = img.id

    # ------------------------------------------------------------ lookups

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
        self.generation += 1

    def fs_usage(self, now_ns: int | None = None) -> FsUsage:
        """Image filesystem usage: the sum of image sizes."""
        used = sum(img.size for img in self._images.values())
        inodes = sum(max(1, img.size // BYTES_PER_INODE) for img in self._images.values())
        ts = self.clock.now_ns() if now_ns is None else now_ns
        return FsUsage(used, inodes, IMAGE_FS_MOUNTPOINT, ts)

    def _touch(self, img: Image) -> None:
        img.rev += 1
        img.wire = None
        self.generation += 1

    # ------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        return {
            "images": [
                {
                    "id": img.id,
                    "repo_tags": list(img.repo_tags),
                    "repo_digests": list(img.repo_digests),
                    "size": img.size,
                    "pinned": img.pinned,
                    "username": img.username,
                    "uid": img.uid,
                }
                for img in self._images.values()
            ]
        }

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        clock: Clock,
        catalog: Catalog | None = None,
        max_images: int | None = None,
    ) -> ImageStore:
        """Rebuild a store from `to_dict()`; InvalidArgument on a malformed snapshot."""
        store = cls(clock, catalog, max_images)
        try:
            for i, d in enumerate(data["images"]):
                img = Image(
                    id=str(d["id"]),
                    repo_tags=[str(t) for t in d["repo_tags"]],
                    repo_digests=[str(r) for r in d["repo_digests"]],
                    size=int(d["size"]),
                    pinned=bool(d.get("pinned", False)),
                    username=str(d.get("username") or ""),
                    uid=None if d.get("uid") is None else int(d["uid"]),
                )
                if not _ID_RE.fullmatch(img.id) or img.id in store._images or img.size <= 0:
                    raise ValueError(f"images[{i}] has a bad or repeated id or a size <= 0")
                store._images[img.id] = img
                for tag in img.repo_tags:
                    store._by_tag[tag] = img.id
                for rd in img.repo_digests:
                    store._by_digest[rd] = img.id
        except (KeyError, TypeError, ValueError) as e:
            raise InvalidArgument(f"image state snapshot is malformed: {e}") from e
        return store


def _identity(nref: NormalizedRef, entry: CatalogImage | None) -> tuple[str, str, int]:
    """(manifest digest, image id, size) for a pull of `nref`."""
    if entry is not None:
        return entry.digest, entry.id, entry.size
    digest = nref.digest or derived_digest(nref.tagged or str(nref))
    return digest, derived_id(digest), derived_size(digest)
