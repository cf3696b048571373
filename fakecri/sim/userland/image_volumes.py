"""Image volumes: a CRI mount with `image` set shows that image's files at its container
path, read-only (containerd mounts the image's snapshot there). What an image holds is the
catalog's data (`ImageContent.files`); `image_sub_path` shows only that directory of it.
"""
from __future__ import annotations

import posixpath
from collections.abc import Callable

from fakecri.engine.specs import Mount
from fakecri.sim.image_content import ImageContent
from fakecri.sim.userland.fs import FsStat


def image_mounts(mounts: tuple[Mount, ...]) -> list[Mount]:
    return [m for m in mounts if m.image and not m.host_path and m.container_path]


def image_files(mounts: tuple[Mount, ...], content_of: Callable[[str], ImageContent]
                ) -> tuple[dict[str, bytes], set[str], set[str]]:
    """(files by container path, the directories they need, the mount points) of the image volumes."""
    files: dict[str, bytes] = {}
    dirs: set[str] = set()
    roots: set[str] = set()
    for m in image_mounts(mounts):
        root = posixpath.normpath(m.container_path)
        roots.add(root)
        dirs.add(root)
        sub = "/" + m.image_sub_path.strip("/") if m.image_sub_path.strip("/") else ""
        for path, text in content_of(m.image).files:
            if sub and not path.startswith(sub + "/"):
                continue
            full = posixpath.normpath(root + "/" + path[len(sub):].lstrip("/"))
            files[full] = text.encode()
            parent = posixpath.dirname(full)
            while parent != root and parent not in ("/", ""):
                dirs.add(parent)
                parent = posixpath.dirname(parent)
    return files, dirs, roots


def mount_line(m: Mount) -> FsStat:
    """The mount table's line for an image volume: the image's read-only overlay."""
    return FsStat("overlay", posixpath.normpath(m.container_path), "overlay", "ro,relatime")
