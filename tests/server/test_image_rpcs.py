"""ImageService over a real socket."""
from __future__ import annotations

import grpc
import pytest

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.runtime.v1 import api_pb2 as pb


def pull(img, ref, timeout=None):
    return img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=ref)), timeout=timeout).image_ref


def status(img, ref, verbose=False):
    return img.ImageStatus(pb.ImageStatusRequest(image=pb.ImageSpec(image=ref), verbose=verbose))


def test_pull_normalises_like_containerd(img):
    ref = pull(img, "busybox")
    st = status(img, "docker.io/library/busybox:latest").image
    assert ref == st.id, "PullImage answers the image id, as containerd does"
    assert st.repo_tags == ["docker.io/library/busybox:latest"]
    assert st.repo_digests[0].startswith("docker.io/library/busybox@sha256:")
    assert st.id.startswith("sha256:") and len(st.id) == 71 and st.size > 0
    assert status(img, "busybox").image.id == st.id
    assert pull(img, "busybox") == ref, "pulls are deterministic"


def test_one_image_under_several_registries_is_one_id(img):
    a = pull(img, "registry.k8s.io/pause:3.9")
    b = pull(img, "k8s.gcr.io/pause:3.9")
    assert a == b
    st = status(img, "k8s.gcr.io/pause:3.9").image
    assert st.id == a and sorted(st.repo_tags) == ["k8s.gcr.io/pause:3.9", "registry.k8s.io/pause:3.9"]
    assert sorted(d.split("@")[0] for d in st.repo_digests) == ["k8s.gcr.io/pause", "registry.k8s.io/pause"]
    assert len(img.ListImages(pb.ListImagesRequest()).images) == 1
    img.RemoveImage(pb.RemoveImageRequest(image=pb.ImageSpec(image="registry.k8s.io/pause:3.9")))
    assert not status(img, "k8s.gcr.io/pause:3.9").HasField("image")


def test_tags_of_one_image_share_its_id_and_go_together(img):
    names = [f"gcr.io/k8s-staging-cri-tools/test-image-tags:{n}" for n in (1, 2, 3)]
    assert len({pull(img, n) for n in names}) == 1
    (only,) = img.ListImages(pb.ListImagesRequest()).images
    assert sorted(only.repo_tags) == names
    img.RemoveImage(pb.RemoveImageRequest(image=pb.ImageSpec(image=names[1])))
    assert list(img.ListImages(pb.ListImagesRequest()).images) == []


def test_known_images_carry_their_configured_user(img):
    pull(img, "gcr.io/k8s-staging-cri-tools/test-image-user-uid")
    st = status(img, "gcr.io/k8s-staging-cri-tools/test-image-user-uid").image
    assert st.uid.value == 1002 and st.username == ""
    pull(img, "gcr.io/k8s-staging-cri-tools/test-image-user-username")
    st = status(img, "gcr.io/k8s-staging-cri-tools/test-image-user-username").image
    assert st.username == "www-data" and not st.HasField("uid")


def test_pull_by_digest_has_no_tags(img):
    pull(img, "quay.io/x/y:1")
    digest = status(img, "quay.io/x/y:1").image.repo_digests[0]
    by_digest = "registry.example/z@sha256:" + "ab" * 32
    pull(img, by_digest)
    st = status(img, by_digest).image
    assert list(st.repo_tags) == [] and st.repo_digests == [by_digest]
    assert digest.startswith("quay.io/x/y@sha256:")


def test_missing_image_status_is_empty_and_remove_is_idempotent(img):
    resp = status(img, "nothing:here", verbose=True)
    assert not resp.HasField("image")
    img.RemoveImage(pb.RemoveImageRequest(image=pb.ImageSpec(image="nothing:here")))
    pull(img, "alpine:3")
    assert status(img, "alpine:3", verbose=True).info
    img.RemoveImage(pb.RemoveImageRequest(image=pb.ImageSpec(image="alpine:3")))
    img.RemoveImage(pb.RemoveImageRequest(image=pb.ImageSpec(image="alpine:3")))
    assert not status(img, "alpine:3").HasField("image")


def test_list_images_filter_and_stream_twin(img):
    pull(img, "busybox")
    pull(img, "nginx:1.27")
    all_ids = {i.id for i in img.ListImages(pb.ListImagesRequest()).images}
    assert len(all_ids) == 2
    only = img.ListImages(pb.ListImagesRequest(filter=pb.ImageFilter(image=pb.ImageSpec(image="nginx:1.27"))))
    assert [i.repo_tags[0] for i in only.images] == ["docker.io/library/nginx:1.27"]
    streamed = {i.id for m in img.StreamImages(pb.StreamImagesRequest()) for i in m.images}
    assert streamed == all_ids


def test_malformed_reference_is_invalid_argument(img):
    with pytest.raises(grpc.RpcError) as info:
        pull(img, "UPPER/Case::bad")
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "UPPER" in info.value.details()


def test_image_fs_info_sums_image_sizes(img):
    before = img.ImageFsInfo(pb.ImageFsInfoRequest())
    pull(img, "busybox")
    size = status(img, "busybox").image.size
    after = img.ImageFsInfo(pb.ImageFsInfoRequest())
    fs = after.image_filesystems[0]
    assert fs.used_bytes.value - before.image_filesystems[0].used_bytes.value == size
    assert fs.fs_id.mountpoint and fs.timestamp > 10**18 and fs.inodes_used.value > 0
    assert after.container_filesystems and after.container_filesystems[0].timestamp > 0


def test_slow_pull_past_the_deadline_records_nothing(img, ctl):
    ctl.AddFault(cpb.AddFaultRequest(fault=cpb.Fault(type="slow_pull", target="*slowpoke*",
                                                      attributes={"delay": "2s"})))
    with pytest.raises(grpc.RpcError) as info:
        pull(img, "slowpoke:1", timeout=0.3)
    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert not status(img, "slowpoke:1").HasField("image")


def test_container_status_reports_the_image_tag_when_created_by_id(rt, img):
    """The kubelet creates containers by image id; containerd's ContainerStatus answers the
    image's first repo tag (containerStatuses[].image), while ListContainers keeps the id."""
    from helpers.cri import container_config, sandbox_config

    image_id = img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox:1.36"))).image_ref
    cfg = sandbox_config("by-id")
    sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
    cid = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=sid, config=container_config(
        image=image_id, command=["sleep", "60"]), sandbox_config=cfg)).container_id
    status = rt.ContainerStatus(pb.ContainerStatusRequest(container_id=cid)).status
    assert status.image.image == "docker.io/library/busybox:1.36" and status.image_id == image_id
    [listed] = rt.ListContainers(pb.ListContainersRequest(filter=pb.ContainerFilter(id=cid))).containers
    assert listed.image.image == image_id
