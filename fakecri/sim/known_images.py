"""Public images whose identity fakecri knows without a catalog file.

Conformance suites (critest) check facts about these: that the same image reached
under several tags or registries is one image with one id, and that an image's
configured user (uid or username) comes back in Image.uid / Image.username. The
default catalog holds them; a catalog file replaces the default entirely.
"""
from __future__ import annotations

from typing import Any

_CRI_TOOLS = "gcr.io/k8s-staging-cri-tools/"

KNOWN_IMAGES: tuple[dict[str, Any], ...] = (
    # The pause image under its current and its retired registry: one image.
    {"tags": ["registry.k8s.io/pause:3.9", "k8s.gcr.io/pause:3.9"],
     "digest": "sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097",
     "size": 321520},
    {"tags": ["registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10.1"], "size": 320368},
    # Three tags of one image.
    {"tags": [_CRI_TOOLS + f"test-image-tags:{n}" for n in (1, 2, 3)]},
    # Images whose config names a user.
    {"tags": [_CRI_TOOLS + "test-image-user-uid:latest"], "uid": 1002},
    {"tags": [_CRI_TOOLS + "test-image-user-username:latest"], "username": "www-data"},
    {"tags": [_CRI_TOOLS + "test-image-user-uid-group:latest"], "uid": 1003},
    {"tags": [_CRI_TOOLS + "test-image-user-username-group:latest"], "username": "www-data"},
    {"tags": [_CRI_TOOLS + "test-image-predefined-group:latest"], "uid": 1000},
)
