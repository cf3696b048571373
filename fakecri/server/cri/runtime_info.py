"""The runtime's own RPCs of runtime.v1.RuntimeService: Version, Status, RuntimeConfig and
UpdateRuntimeConfig (containerd's status.go, version.go, update_runtime_config.go)."""
from __future__ import annotations

from typing import Any, TypeAlias

from fakecri import __version__
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.server.cri.cri_node import CRINode

Context: TypeAlias = Any  # a grpc.aio.ServicerContext (grpc ships no types)


class RuntimeInfo:
    def __init__(self, node: CRINode) -> None:
        self.node = node
        self.runtime, self.config = node.runtime, node.config

    async def Version(self, request: pb.VersionRequest, context: Context) -> Any:
        return pb.VersionResponse(
            version="0.1.0", runtime_name="fakecri", runtime_version=__version__, runtime_api_version="v1"
        )

    async def Status(self, request: pb.StatusRequest, context: Context) -> Any:
        conditions = self.node.conditions()
        resp = pb.StatusResponse(
            status=pb.RuntimeStatus(
                conditions=[
                    pb.RuntimeCondition(type=name, status=c.status, reason=c.reason, message=c.message)
                    for name, c in conditions.items()
                ]
            ),
            runtime_handlers=[
                pb.RuntimeHandler(
                    name=h, features=pb.RuntimeHandlerFeatures(recursive_read_only_mounts=True, user_namespaces=True)
                )
                for h in self.config.runtime_handlers
            ],
            features=pb.RuntimeFeatures(supplemental_groups_policy=True, user_namespaces_host_network=True,
                                        mount_options=True),
        )
        if request.verbose:
            resp.info["config"] = self.node.describe_config()
        return resp

    async def RuntimeConfig(self, request: pb.RuntimeConfigRequest, context: Context) -> Any:
        driver = pb.CGROUPFS if self.config.cgroup_driver == "cgroupfs" else pb.SYSTEMD
        return pb.RuntimeConfigResponse(linux=pb.LinuxRuntimeConfiguration(cgroup_driver=driver))

    async def UpdateRuntimeConfig(self, request: pb.UpdateRuntimeConfigRequest, context: Context) -> Any:
        cidr = request.runtime_config.network_config.pod_cidr
        if cidr:
            self.runtime.set_pod_cidr(cidr)
        return pb.UpdateRuntimeConfigResponse()
