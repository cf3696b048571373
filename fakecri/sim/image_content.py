"""What is inside an image, as far as a container of it can tell: its default command,
its default user, its account files, the setuid programs it ships and the web server it
runs, and the files an image volume of it shows.

An image the catalog describes carries its own `ImageContent`; the images that critest
and the Kubernetes node e2e tests run inside containers are known here by repository
name, whatever the tag; any other image looks like busybox (no default command we can
see into, root, busybox's /etc/passwd and /etc/group). One `ImageContent` is shared by
every container of an image.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from fakecri.engine.errors import InvalidArgument

# busybox's account files
BUSYBOX_PASSWD = """root:x:0:0:root:/root:/bin/sh
daemon:x:1:1:daemon:/usr/sbin:/bin/false
bin:x:2:2:bin:/bin:/bin/false
sys:x:3:3:sys:/dev:/bin/false
sync:x:4:100:sync:/bin:/bin/sync
mail:x:8:8:mail:/var/spool/mail:/bin/false
www-data:x:33:33:www-data:/var/www:/bin/false
operator:x:37:37:Operator:/var:/bin/false
nobody:x:65534:65534:nobody:/home:/bin/false
"""
BUSYBOX_GROUP = """root:x:0:
daemon:x:1:
bin:x:2:
sys:x:3:
adm:x:4:
tty:x:5:
disk:x:6:
lp:x:7:
mail:x:8:
kmem:x:9:
wheel:x:10:root
cdrom:x:11:
dialout:x:18:
floppy:x:19:
video:x:28:
audio:x:29:
tape:x:32:
www-data:x:33:
operator:x:37:
utmp:x:43:
plugdev:x:46:
staff:x:50:
lock:x:54:
netdev:x:82:
users:x:100:
nogroup:x:65534:
"""


@dataclass(frozen=True, slots=True)
class ImageContent:
    entrypoint: tuple[str, ...] = ()  # the image config's Entrypoint
    cmd: tuple[str, ...] = ()  # its Cmd
    user: str = ""  # its User: "", "1000", "name" or "uid:gid"
    passwd: str = BUSYBOX_PASSWD  # /etc/passwd
    group: str = BUSYBOX_GROUP  # /etc/group
    setuid_root: tuple[str, ...] = ()  # programs (base names) owned by root with the setuid bit
    http_ports: tuple[int, ...] = ()  # ports its own command serves HTTP on, once it runs
    http_server: str = "nginx"  # which server answers there: "nginx" or "httpd"
    programs: tuple[str, ...] = ()  # programs beyond busybox's applets it ships (curl...)
    files: tuple[tuple[str, str], ...] = ()  # (path, text) of files it holds that an image volume shows

    def argv(self, command: tuple[str, ...], args: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(command, args) that run, as Kubernetes combines a config with the image: a command
        replaces the entrypoint and drops the image's Cmd; args replace the Cmd."""
        if command:
            return command, args
        return self.entrypoint, args or self.cmd


BUSYBOX = ImageContent()

_NGINX_PASSWD = BUSYBOX_PASSWD + "nginx:x:101:101:nginx:/var/cache/nginx:/sbin/nologin\n"
_NGINX_GROUP = BUSYBOX_GROUP + "nginx:x:101:nginx\n"
_NGINX = ImageContent(cmd=("nginx", "-g", "daemon off;"), passwd=_NGINX_PASSWD, group=_NGINX_GROUP,
                      http_ports=(80,))

# alpine's account files (the base of agnhost and the alpine-based e2e images)
ALPINE_PASSWD = """root:x:0:0:root:/root:/bin/sh
bin:x:1:1:bin:/bin:/sbin/nologin
daemon:x:2:2:daemon:/sbin:/sbin/nologin
lp:x:4:7:lp:/var/spool/lpd:/sbin/nologin
sync:x:5:0:sync:/sbin:/bin/sync
shutdown:x:6:0:shutdown:/sbin:/sbin/shutdown
halt:x:7:0:halt:/sbin:/sbin/halt
mail:x:8:12:mail:/var/mail:/sbin/nologin
news:x:9:13:news:/usr/lib/news:/sbin/nologin
uucp:x:10:14:uucp:/var/spool/uucppublic:/sbin/nologin
cron:x:16:16:cron:/var/spool/cron:/sbin/nologin
ftp:x:21:21::/var/lib/ftp:/sbin/nologin
sshd:x:22:22:sshd:/dev/null:/sbin/nologin
games:x:35:35:games:/usr/games:/sbin/nologin
ntp:x:123:123:NTP:/var/empty:/sbin/nologin
guest:x:405:100:guest:/dev/null:/sbin/nologin
nobody:x:65534:65534:nobody:/:/sbin/nologin
"""
ALPINE_GROUP = """root:x:0:root
bin:x:1:root,bin,daemon
daemon:x:2:root,bin,daemon
sys:x:3:root,bin
adm:x:4:root,daemon
tty:x:5:
disk:x:6:root
lp:x:7:lp
kmem:x:9:
wheel:x:10:root
floppy:x:11:root
mail:x:12:mail
news:x:13:news
uucp:x:14:uucp
cron:x:16:cron
audio:x:18:
cdrom:x:19:
dialout:x:20:root
ftp:x:21:
sshd:x:22:
input:x:23:
tape:x:26:root
video:x:27:root
netdev:x:28:
kvm:x:34:kvm
games:x:35:
shadow:x:42:
www-data:x:82:
users:x:100:games
ntp:x:123:
abuild:x:300:
utmp:x:406:
ping:x:999:
nogroup:x:65533:
nobody:x:65534:
"""
ALPINE = ImageContent(passwd=ALPINE_PASSWD, group=ALPINE_GROUP)
# agnhost: `/agnhost pause` by default; a user (1000) its /etc/group puts in group 50000.
_AGNHOST = ImageContent(
    entrypoint=("/agnhost",), cmd=("pause",), programs=("agnhost", "agnhost-2", "curl", "nc", "ip", "bash"),
    passwd=ALPINE_PASSWD + "user-defined-in-image:x:1000:1000:Linux User,,,:/home/user-defined-in-image:/bin/sh\n",
    group=ALPINE_GROUP + "user-defined-in-image:x:1000:\ngroup-defined-in-image:x:50000:user-defined-in-image\n")
_PAUSE = ImageContent(entrypoint=("/pause",), user="65535:65535", programs=("pause",))

# The images critest and the node e2e tests look into, by repository.
# /etc/os-release of the alpine release agnhost 2.25 is built on
ALPINE_OS_RELEASE = ('NAME="Alpine Linux"\nID=alpine\nVERSION_ID=3.12.0\nPRETTY_NAME="Alpine Linux v3.12"\n'
                     'HOME_URL="https://alpinelinux.org/"\nBUG_REPORT_URL="https://bugs.alpinelinux.org/"\n')
# kitten: agnhost 2.25 with kitten.jpg and data.json at its root (the picture's bytes are a stand-in)
_KITTEN = replace(_AGNHOST, cmd=("test-webserver",), files=(
    ("/etc/os-release", ALPINE_OS_RELEASE), ("/data.json", '{"image": "kitten.jpg"}\n'),
    ("/kitten.jpg", "(a JPEG picture of a kitten)\n")))

KNOWN: dict[str, ImageContent] = {
    # busybox's default command is its shell (which reads its input)
    "docker.io/library/busybox": ImageContent(cmd=("sh",)),
    "registry.k8s.io/e2e-test-images/busybox": ImageContent(cmd=("sh",)),
    "registry.k8s.io/e2e-test-images/agnhost": _AGNHOST,
    "k8s.gcr.io/e2e-test-images/agnhost": _AGNHOST,
    "gcr.io/kubernetes-e2e-test-images/agnhost": _AGNHOST,
    "registry.k8s.io/e2e-test-images/kitten": _KITTEN,
    "registry.k8s.io/pause": _PAUSE,
    "k8s.gcr.io/pause": _PAUSE,
    # debian-base with `USER 1234` (no account of that uid)
    "registry.k8s.io/e2e-test-images/nonroot": ImageContent(user="1234"),
    "registry.k8s.io/e2e-test-images/ipc-utils": ALPINE,
    # A user (uid 1000) that the image's /etc/group makes a member of group 50000.
    "gcr.io/k8s-staging-cri-tools/test-image-predefined-group": ImageContent(
        user="1000",
        passwd=BUSYBOX_PASSWD + "default-user:x:1000:1000:Linux User,,,:/home/default-user:/bin/sh\n",
        group=BUSYBOX_GROUP + "default-user:x:1000:\ngroup-defined-in-image:x:50000:default-user\n",
    ),
    # Images whose config names a user, for the image status fields.
    "gcr.io/k8s-staging-cri-tools/test-image-user-uid": ImageContent(user="1002"),
    "gcr.io/k8s-staging-cri-tools/test-image-user-username": ImageContent(user="www-data"),
    "gcr.io/k8s-staging-cri-tools/test-image-user-uid-group": ImageContent(user="1003:1004"),
    "gcr.io/k8s-staging-cri-tools/test-image-user-username-group": ImageContent(user="www-data:www-data"),
    # Its command is a setuid-root program that prints the effective uid it runs with.
    "registry.k8s.io/e2e-test-images/nonewprivs": ImageContent(
        cmd=("nnp",), setuid_root=("nnp",), passwd=ALPINE_PASSWD, group=ALPINE_GROUP),
    "registry.k8s.io/e2e-test-images/nginx": _NGINX,
    "docker.io/library/nginx": _NGINX,
    "registry.k8s.io/e2e-test-images/httpd": ImageContent(
        cmd=("httpd-foreground",), http_ports=(80,), http_server="httpd",
        passwd=BUSYBOX_PASSWD.replace("www-data:x:33:33:www-data:/var/www:/bin/false",
                                      "www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin")),
    "docker.io/library/httpd": ImageContent(cmd=("httpd-foreground",), http_ports=(80,), http_server="httpd"),
    # nginx on the host network, listening on 12003
    "gcr.io/k8s-staging-cri-tools/hostnet-nginx-amd64": ImageContent(
        cmd=("nginx", "-g", "daemon off;"), passwd=_NGINX_PASSWD, group=_NGINX_GROUP, http_ports=(12003,)),
}

_KEYS = {"entrypoint", "cmd", "user", "passwd", "group", "setuid_root", "http_ports", "http_server", "programs",
         "files"}
WEB_SERVERS = ("nginx", "httpd")
# programs that start the image's web server
SERVER_PROGRAMS = frozenset({"nginx", "httpd", "httpd-foreground", "apache2", "apache2-foreground"})


def content_from_dict(data: Mapping[str, Any], where: str) -> ImageContent:
    """The `content` of a catalog image; InvalidArgument naming `where` and the bad key."""
    if not isinstance(data, Mapping):
        raise InvalidArgument(f"{where}: content must be a mapping")
    extra = sorted(set(data) - _KEYS)
    if extra:
        raise InvalidArgument(f"{where}: content has unknown key {extra[0]!r} (known: {', '.join(sorted(_KEYS))})")

    def words(key: str) -> tuple[str, ...]:
        value = data.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidArgument(f"{where}: content.{key} must be a list of strings")
        return tuple(value)

    def text(key: str, default: str) -> str:
        value = data.get(key, default)
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise InvalidArgument(f"{where}: content.{key} must be a string")
        return str(value)

    ports = data.get("http_ports") or []
    if not isinstance(ports, list) or not all(isinstance(p, int) and not isinstance(p, bool) and 0 < p < 65536
                                              for p in ports):
        raise InvalidArgument(f"{where}: content.http_ports must be a list of ports 1..65535")
    server = text("http_server", "nginx")
    if server not in WEB_SERVERS:
        raise InvalidArgument(f"{where}: content.http_server must be one of {', '.join(WEB_SERVERS)}")
    files = data.get("files") or {}
    if not isinstance(files, Mapping) or not all(isinstance(k, str) and k.startswith("/") and isinstance(v, str)
                                                 for k, v in files.items()):
        raise InvalidArgument(f"{where}: content.files must map absolute paths to their text")
    return ImageContent(entrypoint=words("entrypoint"), cmd=words("cmd"), user=text("user", ""),
                        passwd=text("passwd", BUSYBOX_PASSWD), group=text("group", BUSYBOX_GROUP),
                        setuid_root=words("setuid_root"), http_ports=tuple(ports), http_server=server,
                        programs=words("programs"), files=tuple(sorted(files.items())))
