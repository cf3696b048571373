"""A CRI mount with `image` set shows that image's files (the catalog's data) read-only at its
path, as containerd mounts the image's snapshot; `image_sub_path` shows one directory of it."""
from __future__ import annotations

import pytest

from fakecri.engine.specs import ContainerSpec, Mount

KITTEN = "registry.k8s.io/e2e-test-images/kitten:1.7"


@pytest.fixture
def sh(joined, pods):
    image = joined.runtime.images.pull(KITTEN)
    spec = ContainerSpec(mounts=(Mount(container_path="/volume", image=image.id),
                                 Mount(container_path="/etc-only", image=KITTEN, image_sub_path="etc")))
    c = pods.running(pods.sandbox(), spec=spec)

    def run(cmd: str) -> tuple[int, str, str]:
        r = joined.exec_sync(c.id, ["sh", "-c", cmd])
        return r.exit_code, r.stdout.decode(), r.stderr.decode()
    return run


def test_an_image_volume_shows_the_images_files(sh):
    code, out, _ = sh("cat /volume/data.json /volume/etc/os-release")
    assert code == 0 and "kitten.jpg" in out and 'NAME="Alpine Linux"' in out
    assert sh("ls /volume") == (0, "data.json\netc\nkitten.jpg\n", "")
    assert sh("ls /etc-only") == (0, "os-release\n", "")


def test_an_image_volume_is_read_only_and_in_the_mount_table(sh):
    assert sh("touch /volume/x") == (1, "", "touch: /volume/x: Read-only file system\n")
    assert sh("rm /volume/data.json") == (1, "", "rm: can't remove '/volume/data.json': Read-only file system\n")
    assert "overlay on /volume type overlay (ro,relatime)\n" in sh("mount")[1]
