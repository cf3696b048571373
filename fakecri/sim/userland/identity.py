"""Who a container's process runs as: uid, gid and groups, from its security context and
its image (the image's default user, /etc/passwd and /etc/group).

The rules are containerd's: RunAsUser, else RunAsUserName, else the image's User; the
primary group is RunAsGroup, else the user's group in /etc/passwd; the supplementary
groups are the primary group, SupplementalGroups and, unless the policy is Strict, the
groups /etc/group makes the user a member of. The kernel keeps them sorted.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from fakecri.sim.image_content import ImageContent


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    id: int
    gid: int = 0
    home: str = "/"
    members: tuple[str, ...] = ()


@lru_cache(maxsize=64)
def accounts(text: str, group: bool) -> tuple[Account, ...]:
    """The entries of an /etc/passwd (`group` False) or /etc/group text; odd lines skipped."""
    out = []
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) < 4 or not parts[2].isdigit():
            continue
        if group:
            out.append(Account(parts[0], int(parts[2]), members=tuple(m for m in parts[3].split(",") if m)))
        elif len(parts) >= 6 and parts[3].isdigit():
            out.append(Account(parts[0], int(parts[2]), int(parts[3]), parts[5]))
    return tuple(out)


@lru_cache(maxsize=64)
def _users(passwd: str) -> tuple[dict[str, Account], dict[int, Account]]:
    users = accounts(passwd, False)
    return {u.name: u for u in users}, {u.id: u for u in users}


@lru_cache(maxsize=256)
def _member_of(group: str, name: str) -> tuple[int, ...]:
    return tuple(g.id for g in accounts(group, True) if name in g.members)


@dataclass(frozen=True, slots=True)
class Identity:
    uid: int
    gid: int
    user_name: str  # "" when /etc/passwd does not name the uid
    home: str
    supplemental: tuple[int, ...]  # sorted, the primary group included

    @property
    def groups(self) -> list[int]:
        """As `id -G` prints them: the primary group, then the others."""
        return [self.gid] + [g for g in self.supplemental if g != self.gid]


@lru_cache(maxsize=1024)  # containers of one spec share one answer
def identity(content: ImageContent, *, run_as_user: int | None, run_as_group: int | None, run_as_username: str,
             supplemental_groups: tuple[int, ...], strict: bool) -> Identity:
    by_name, by_uid = _users(content.passwd)
    image_user, _, image_group = content.user.partition(":")
    uid = 0
    if run_as_user is not None:
        uid = run_as_user
    elif run_as_username:
        uid = by_name[run_as_username].id if run_as_username in by_name else 0
    elif image_user.isdigit():
        uid = int(image_user)
    elif image_user in by_name:
        uid = by_name[image_user].id
    account = by_uid.get(uid)
    name = run_as_username or (account.name if account else "")
    if run_as_group is not None:
        gid = run_as_group
    elif run_as_user is None and not run_as_username and image_group.isdigit():
        gid = int(image_group)
    else:
        gid = account.gid if account else 0
    ids = {gid, *supplemental_groups}
    if not strict and name:
        ids.update(_member_of(content.group, name))
    return Identity(uid, gid, name, account.home if account else "/", tuple(sorted(ids)))
