"""The image catalog: what the fake registry knows, and who may pull what.

A catalog is built from a dict (the server reads it from a JSON or YAML file):

    allow_unknown: true            # any well-formed reference pulls (default); false: only what
                                   # the images and `known` below cover, as a registry answers
    known: [docker.io/library/busybox, "registry.k8s.io/e2e-test-images/*"]
                                   # with allow_unknown false, these pull too (a repository: any tag);
                                   # a file lists none unless it says; the built-in catalog, KNOWN_REPOSITORIES
    default_pull_duration_s: 0.05
    pinned: [registry.k8s.io/pause]
    images:
      - tags: [busybox:latest, busybox:1.36]   # normalised when loaded
        digest: sha256:<64 hex>                # optional; derived when absent
        id: sha256:<64 hex>                    # optional; derived from the digest
        size: 4261550                          # optional; derived when absent
        pull_duration_s: 0.2
        username: nobody
        uid: 65534
        pinned: false
        content:                               # optional: what a container of it sees
          entrypoint: [/usr/local/bin/nnp]     # and cmd: the image's default command
          user: "1000"
          passwd: "root:x:0:0:root:/root:/bin/sh\\n..."   # /etc/passwd; group: /etc/group
          setuid_root: [nnp]                   # programs with the setuid bit, owned by root
          http_ports: [80]                     # its own command serves HTTP on these
    unknown: [docker.io/library/gone, "quay.io/old/*"]   # pulls are NotFound
    auth:
      - references: ["registry.example.com/*"]
        username: alice
        password: s3cret                       # or `auth` (base64 user:pass),
                                               # or `registry_token` / `identity_token`

A pattern without glob characters is a reference: with an explicit tag or digest it
matches exactly, without one it matches the whole repository. Glob patterns are
matched against the fully normalised form (`docker.io/library/busybox:latest`).
"""
from __future__ import annotations

import base64
import fnmatch
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakecri.engine.errors import InvalidArgument, NotFound, Unauthenticated
from fakecri.engine.images import NormalizedRef, Pullable, is_digest, normalize
from fakecri.sim.image_content import BUSYBOX, KNOWN, ImageContent, content_from_dict

DEFAULT_PULL_DURATION_S = 0.05
DEFAULT_PINNED = ("registry.k8s.io/pause",)
_MIB = 1024 * 1024

_TOP_KEYS = {"allow_unknown", "known", "default_pull_duration_s", "pinned", "images", "unknown", "auth"}
# What the built-in catalog pulls when unknown images are refused (`fakecri serve --pull-policy
# strict` without a catalog file): the images critest, the node e2e tests and the examples use,
# at any tag. Anything else is NotFound, as a registry answers for an image it does not have.
KNOWN_REPOSITORIES = (
    "docker.io/library/busybox", "docker.io/library/nginx", "docker.io/library/httpd", "docker.io/library/alpine",
    "registry.k8s.io/pause", "k8s.gcr.io/pause", "registry.k8s.io/busybox",
    "registry.k8s.io/e2e-test-images/*", "gcr.io/k8s-staging-cri-tools/*",
)
_IMAGE_KEYS = {"tags", "digest", "id", "size", "pull_duration_s", "username", "uid", "pinned", "content"}
_CRED_KEYS = ("username", "password", "auth", "registry_token", "identity_token")
_AUTH_KEYS = {"references", *_CRED_KEYS}


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def derived_digest(seed: str) -> str:
    """A stable manifest digest for something the catalog does not describe."""
    return "sha256:" + sha256_hex("fakecri-manifest\0" + seed)


def derived_id(digest: str) -> str:
    """A stable image (config) id for a manifest digest."""
    return "sha256:" + sha256_hex("fakecri-config\0" + digest)


def derived_size(digest: str) -> int:
    """A plausible, non-zero image size between 2 and 130 MiB."""
    return 2 * _MIB + int(digest[7:15], 16) % (128 * _MIB)


@dataclass(frozen=True, slots=True)
class CatalogImage:
    """One image the catalog describes; digest, id and size are always resolved."""

    tags: tuple[str, ...]
    digest: str
    id: str
    size: int
    pull_duration_s: float | None = None
    username: str = ""
    uid: int | None = None
    pinned: bool = False
    content: ImageContent | None = None  # None: known by repository, else busybox's


@dataclass(frozen=True, slots=True)
class AuthRule:
    """References behind credentials, and the credentials that open them."""

    patterns: tuple[str, ...]
    username: str = ""
    password: str = ""
    auth: str = ""
    registry_token: str = ""
    identity_token: str = ""

    def accepts(self, creds: Mapping[str, Any] | None) -> bool:
        """True when `creds` (keys as in runtime.v1.AuthConfig) satisfy this rule."""
        if not creds:
            return False
        given = {k: str(creds.get(k) or "") for k in _CRED_KEYS}
        if given["auth"] and not given["username"]:
            given["username"], given["password"] = _decode_basic(given["auth"])
        if self.auth and not self.username:
            user, password = _decode_basic(self.auth)
        else:
            user, password = self.username, self.password
        if user and given["username"] == user and given["password"] == password:
            return True
        if self.registry_token and given["registry_token"] == self.registry_token:
            return True
        return bool(self.identity_token) and given["identity_token"] == self.identity_token


def _decode_basic(auth: str) -> tuple[str, str]:
    try:
        user, _, password = base64.b64decode(auth, validate=True).decode().partition(":")
    except (ValueError, UnicodeDecodeError):
        return "", ""
    return user, password


def matches(pattern: str, ref: NormalizedRef) -> bool:
    """Does `pattern` (a reference or a glob) cover `ref`?"""
    if any(c in pattern for c in "*?["):
        forms = {str(ref), ref.name, ref.tagged or "", ref.digested or ""} - {""}
        return any(fnmatch.fnmatchcase(f, pattern) for f in forms)
    pat = normalize(pattern)
    if pat.name != ref.name:
        return False
    if pat.digest:
        return pat.digest == ref.digest
    return pat.tag_implicit or pat.tag == ref.tag


class Catalog:
    """Lookup over catalog images, unknown references and auth rules."""

    def __init__(
        self,
        images: tuple[CatalogImage, ...] | None = None,
        *,
        unknown: tuple[str, ...] = (),
        auth: tuple[AuthRule, ...] = (),
        allow_unknown: bool = True,
        known: tuple[str, ...] | None = None,
        default_pull_duration_s: float = DEFAULT_PULL_DURATION_S,
        pinned: tuple[str, ...] = DEFAULT_PINNED,
    ) -> None:
        if images is None:  # the default catalog: the public images fakecri knows by heart
            images = default_images()
            known = KNOWN_REPOSITORIES if known is None else known
        self.images = images
        self.unknown = unknown
        self.auth = auth
        self.allow_unknown = allow_unknown
        self.known = known or ()
        self.default_pull_duration_s = default_pull_duration_s
        self.pinned = pinned
        self._by_tag = {t: img for img in images for t in img.tags}
        self._by_digest = {img.digest: img for img in images}

    def find(self, ref: NormalizedRef) -> CatalogImage | None:
        """The catalog image `ref` names: by digest when it has one, else by tag."""
        if ref.digest:
            return self._by_digest.get(ref.digest)
        return self._by_tag.get(ref.tagged or "")

    def content_for(self, ref: NormalizedRef) -> ImageContent:
        """What is inside the image `ref` names: the catalog's word, else what is known of its
        repository, else busybox."""
        entry = self.find(ref)
        if entry is not None and entry.content is not None:
            return entry.content
        return KNOWN.get(ref.name, BUSYBOX)

    def content_of_reference(self, ref: str) -> ImageContent:
        """`content_for` a reference as a caller wrote it (busybox's for one that does not parse)."""
        try:
            return self.content_for(normalize(ref))
        except InvalidArgument:
            return BUSYBOX

    def content_of_image(self, names: list[str], ref: str) -> ImageContent:
        """What is inside an image known by `names` (its tags and digests) that a caller named
        `ref`: the first name the catalog or the known images say more of than busybox, else
        what `ref` names."""
        for name in names + [ref]:
            try:
                content = self.content_for(normalize(name))
            except InvalidArgument:
                continue
            if content is not BUSYBOX or name == ref:
                return content
        return BUSYBOX

    def is_unknown(self, ref: NormalizedRef) -> bool:
        return any(matches(p, ref) for p in self.unknown)

    def has(self, ref: NormalizedRef) -> bool:
        """Whether the registry has `ref`: always when unknown images are allowed; else when an
        image entry or a `known` pattern covers it. `unknown` patterns are never had."""
        if self.is_unknown(ref):
            return False
        return self.allow_unknown or self.find(ref) is not None or any(matches(p, ref) for p in self.known)

    def strict(self) -> Catalog:
        """This catalog with unknown images refused (`--pull-policy strict`)."""
        return Catalog(self.images, unknown=self.unknown, auth=self.auth, allow_unknown=False, known=self.known,
                       default_pull_duration_s=self.default_pull_duration_s, pinned=self.pinned)

    def auth_rule(self, ref: NormalizedRef) -> AuthRule | None:
        return next((r for r in self.auth if any(matches(p, ref) for p in r.patterns)), None)

    def is_pinned(self, ref: NormalizedRef) -> bool:
        return any(matches(p, ref) for p in self.pinned)

    def pull_duration_s(self, ref: NormalizedRef) -> float:
        entry = self.find(ref)
        if entry is not None and entry.pull_duration_s is not None:
            return entry.pull_duration_s
        return self.default_pull_duration_s

    def lookup(self, ref: NormalizedRef, auth: Mapping[str, str] | None) -> Pullable:
        """What a pull of `ref` brings (the engine's Registry port); NotFound for a reference
        the registry does not have, Unauthenticated without the credentials it needs."""
        if not self.has(ref):  # worded as containerd reports a registry's 404
            name = str(ref)
            raise NotFound(f'failed to pull and unpack image "{name}": failed to resolve reference "{name}": '
                           f"{name}: not found")
        rule = self.auth_rule(ref)
        if rule is not None and not rule.accepts(auth):
            why = "credentials were rejected" if auth else "credentials are required"
            raise Unauthenticated(f"pulling image {str(ref)!r}: {why}")
        entry = self.find(ref)
        if entry is not None:
            digest, image_id, size = entry.digest, entry.id, entry.size
        else:
            digest = ref.digest or derived_digest(ref.tagged or str(ref))
            image_id, size = derived_id(digest), derived_size(digest)
        username, uid = (entry.username, entry.uid) if entry is not None else ("", None)
        if not username and uid is None:  # the User of the image's config, as far as it is known
            user = self.content_for(ref).user.partition(":")[0]
            username, uid = ("", int(user)) if user.isdigit() else (user, None)
        return Pullable(digest=digest, id=image_id, size=size, pull_duration_s=self.pull_duration_s(ref),
                        pinned=self.is_pinned(ref) or bool(entry and entry.pinned), username=username, uid=uid)

    # ------------------------------------------------------------ loading

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "<dict>") -> Catalog:
        """Validate and build; InvalidArgument names the source and the bad key."""
        where = f"image catalog {source}"
        if not isinstance(data, Mapping):
            raise InvalidArgument(f"{where}: the top level must be a mapping")
        _no_extra(data, _TOP_KEYS, where)
        images = tuple(
            _image(entry, f"{where}: images[{i}]") for i, entry in enumerate(_list(data, "images", where))
        )
        unknown = tuple(_pattern(p, f"{where}: unknown") for p in _list(data, "unknown", where))
        known = tuple(_pattern(p, f"{where}: known") for p in _list(data, "known", where))
        pinned = tuple(_pattern(p, f"{where}: pinned") for p in data.get("pinned", DEFAULT_PINNED) or ())
        rules = tuple(_auth_rule(r, f"{where}: auth[{i}]") for i, r in enumerate(_list(data, "auth", where)))
        allow = data.get("allow_unknown", True)
        if not isinstance(allow, bool):
            raise InvalidArgument(f"{where}: allow_unknown must be true or false")
        duration = _duration(data.get("default_pull_duration_s", DEFAULT_PULL_DURATION_S), where,
                             "default_pull_duration_s")
        return cls(images, unknown=unknown, auth=rules, allow_unknown=allow, known=known,
                   default_pull_duration_s=duration, pinned=pinned)


def default_images() -> tuple[CatalogImage, ...]:
    """The catalog entries of fakecri.sim.known_images."""
    from fakecri.sim.known_images import KNOWN_IMAGES

    return tuple(_image(entry, f"known image {entry['tags'][0]}") for entry in KNOWN_IMAGES)


def _no_extra(d: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(d) - allowed)
    if extra:
        raise InvalidArgument(f"{where}: unknown key {extra[0]!r} (known: {', '.join(sorted(allowed))})")


def _list(d: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = d.get(key) or []
    if not isinstance(value, list):
        raise InvalidArgument(f"{where}: {key} must be a list")
    return value


def _pattern(p: Any, where: str) -> str:
    if not isinstance(p, str) or not p:
        raise InvalidArgument(f"{where}: pattern {p!r} must be a non-empty string")
    if not any(c in p for c in "*?["):
        _normalized(p, where)
    return p


def _normalized(ref: str, where: str) -> NormalizedRef:
    try:
        return normalize(ref)
    except InvalidArgument as e:
        raise InvalidArgument(f"{where}: {e.message}") from e


def _duration(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InvalidArgument(f"{where}: {key} must be a number of seconds >= 0, not {value!r}")
    return float(value)


def _image(entry: Any, where: str) -> CatalogImage:
    if not isinstance(entry, Mapping):
        raise InvalidArgument(f"{where} must be a mapping")
    _no_extra(entry, _IMAGE_KEYS, where)
    tags: list[str] = []
    for t in entry.get("tags") or []:
        ref = _normalized(str(t), f"{where}: tags")
        if ref.digest or not ref.tag:
            raise InvalidArgument(f"{where}: tag {t!r} must be a tagged reference without a digest")
        tags.append(ref.tagged or "")
    digest = entry.get("digest")
    if digest is not None and (not isinstance(digest, str) or not is_digest(digest)):
        raise InvalidArgument(f"{where}: digest {digest!r} is not an algorithm:hex digest")
    image_id = entry.get("id")
    if image_id is not None:
        if isinstance(image_id, str) and len(image_id) == 64:
            image_id = "sha256:" + image_id
        if not isinstance(image_id, str) or not image_id.startswith("sha256:") or not is_digest(image_id):
            raise InvalidArgument(f"{where}: id {entry.get('id')!r} is not sha256:<64 lowercase hex>")
    if not tags and digest is None:
        raise InvalidArgument(f"{where} needs at least one tag or a digest")
    if digest is None:
        digest = derived_digest(image_id or tags[0] or "")
    size = entry.get("size")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size <= 0):
        raise InvalidArgument(f"{where}: size must be a positive integer, not {size!r}")
    uid = entry.get("uid")
    if uid is not None and (isinstance(uid, bool) or not isinstance(uid, int) or uid < 0):
        raise InvalidArgument(f"{where}: uid must be an integer >= 0, not {uid!r}")
    duration = entry.get("pull_duration_s")
    return CatalogImage(
        tags=tuple(tags),
        digest=digest,
        id=image_id or derived_id(digest),
        size=size or derived_size(digest),
        pull_duration_s=None if duration is None else _duration(duration, where, "pull_duration_s"),
        username=str(entry.get("username") or ""),
        uid=uid,
        pinned=bool(entry.get("pinned", False)),
        content=content_from_dict(entry["content"], where) if "content" in entry else None,
    )


def _auth_rule(entry: Any, where: str) -> AuthRule:
    if not isinstance(entry, Mapping):
        raise InvalidArgument(f"{where} must be a mapping")
    _no_extra(entry, _AUTH_KEYS, where)
    patterns = tuple(_pattern(p, f"{where}: references") for p in entry.get("references") or [])
    if not patterns:
        raise InvalidArgument(f"{where}: references must list at least one reference or pattern")
    creds = {k: str(entry.get(k) or "") for k in _CRED_KEYS}
    if not (creds["username"] or creds["auth"] or creds["registry_token"] or creds["identity_token"]):
        raise InvalidArgument(f"{where} needs username/password, auth, registry_token or identity_token")
    return AuthRule(patterns, **creds)
