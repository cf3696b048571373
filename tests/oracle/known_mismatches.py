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
    "files/realpath-and-pwd-p":
        "shell: `pwd -P` after `cd` through a symlink prints the logical path, busybox the physical one",
    "system/env-sorted":
        "shell: ash exports OLDPWD once `cd` sets it; fakecri's environment lacks it",
    "files/ln-hard": "applets: hard links (`ln` without -s) are refused as not modelled",
    "files/truncate-file": "applets: truncate is not modelled",
    "files/dd-small": "applets: `dd if=F of=G bs= count=` writes no output file",
    "system/env-with-var": "applets: `env -i` keeps HOME in the new environment (busybox's is empty)",
    "system/env-u-unsets": "applets: `env -u NAME` is not modelled (read as a command named -u)",
    "system/id-other-user": "applets: `id NAME` says unknown user for accounts in the image's /etc/passwd",
    "text/cmp-and-diff": "applets: cmp and diff are not modelled",
}
