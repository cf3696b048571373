"""Corpus scripts where fakecri is known to differ from busybox, each with the reason. The corpus
test judges these apart and the run's summary counts them; a name here that is not a corpus script
fails, and one that matches again is named in a warning (take it off the list).
Empty is the goal: an entry is a bug to fix, not a difference (those are in differences.py).
Owners: `shell` fakecri/sim/shell, `applets` fakecri/sim/applets and the userland's commands."""
from __future__ import annotations

KNOWN_MISMATCHES: dict[str, str] = {
    "builtins/trap-exit-of-subshell-in-redirected-group":
        "shell: ash restores a group's redirections before a subshell's EXIT trap runs when the subshell "
        "is not the group's last command, so the trap writes to the shell's own stdout; fakecri writes "
        "it into the group's file",
    "files/ln-hard":
        "userland: hard links (`ln` without -s) are refused as not modelled: the userland keeps a file's bytes "
        "by path (world.py), with no inode that a second name could share",
}
