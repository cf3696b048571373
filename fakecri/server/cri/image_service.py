"""runtime.v1.ImageService over the engine's image store."""
from __future__ import annotations

import asyncio
from typing import Any, TypeAlias

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine import errors
from fakecri.server.codec import encode
from fakecri.server.codec.encode import FragmentCache, batches
from fakecri.server.codec.stats_replies import container_filesystem, image_filesystem
from fakecri.server.cri.cri_node import CRINode
from fakecri.server.exceptions import DeadlineExceeded

Context: TypeAlias = Any  # a grpc.aio.ServicerContext (grpc ships no types)

STREAM_BATCH = 5000


def _auth(msg: pb.AuthConfig) -> dict[str, str] | None:
    fields = {
        "username": msg.username,
        "password": msg.password,
        "auth": msg.auth,
        "server_address": msg.server_address,
        "identity_token": msg.identity_token,
        "registry_token": msg.registry_token,
    }
    fields = {k: v for k, v in fields.items() if v}
    return fields or None


class ImageService:
    def __init__(self, node: CRINode) -> None:
        self.node = node
        self.runtime, self.sim, self.plan = node.runtime, node.sim, node.plan
        self.config, self.disk = node.config, node.disk
        self.images = self.runtime.images
        self._fragments_of = FragmentCache(encode.image_item)

    def _fragments(self, f: pb.ImageFilter) -> list[bytes]:
        return self._fragments_of.every(self.images.list(f.image.image))

    async def ListImages(self, request: pb.ListImagesRequest, context: Context) -> Any:
        return b"".join(self._fragments(request.filter))

    async def StreamImages(self, request: pb.StreamImagesRequest, context: Context) -> Any:
        for chunk in batches(self._fragments(request.filter), STREAM_BATCH, self.config.max_message_bytes):
            yield chunk

    async def ImageStatus(self, request: pb.ImageStatusRequest, context: Context) -> Any:
        ref = request.image.image
        if not ref:
            raise errors.InvalidArgument("ImageStatus: image.image is required")
        img = self.images.status(ref)
        if img is None:
            # CRI: a missing image is an empty response, not an error.
            return pb.ImageStatusResponse()
        resp = pb.ImageStatusResponse(image=encode.image_item(img))
        if request.verbose:
            resp.info.update(encode.image_info(img))
        return resp

    async def PullImage(self, request: pb.PullImageRequest, context: Context) -> Any:
        ref = request.image.image
        if not ref:
            raise errors.InvalidArgument("PullImage: image.image is required")
        images = self.images
        auth = _auth(request.auth) if request.HasField("auth") else None
        duration = images.check_pull(ref, auth)  # fails before any waiting
        action = self.plan.on_pull(ref)
        duration += action.delay_s if action else 0.0
        remaining = context.time_remaining()
        if remaining is not None and duration > remaining:
            await asyncio.sleep(max(0.0, remaining))
            raise DeadlineExceeded(f"PullImage {ref}: the deadline passed before the pull finished")
        await self.node.wait(duration)
        if action is not None and action.error is not None:
            code, message = action.error
            raise errors.from_code(code, message or f"PullImage {ref}: failed by a fault")
        img = images.pull(ref, auth)
        # The image id, as containerd answers: the same string as Image.id for every name of it.
        return pb.PullImageResponse(image_ref=img.id)

    async def RemoveImage(self, request: pb.RemoveImageRequest, context: Context) -> Any:
        ref = request.image.image
        if not ref:
            raise errors.InvalidArgument("RemoveImage: image.image is required")
        self.images.remove(ref)
        return pb.RemoveImageResponse()

    async def ImageFsInfo(self, request: pb.ImageFsInfoRequest, context: Context) -> Any:
        now = self.node.now_ns()
        image_fs = image_filesystem(self.images.fs_usage(now), self.disk)
        container_fs = container_filesystem(self.runtime, now, self.disk, self.sim.stats_script)
        return pb.ImageFsInfoResponse(image_filesystems=[image_fs], container_filesystems=[container_fs])
