"""How an awk run fails: an error busybox reports (exit 1), or something not modelled (exit 2)."""
from __future__ import annotations


class AwkError(Exception):
    """A run-time error busybox reports as `awk: PROG:LINE: message` (exit 1)."""


class NotModelled(Exception):
    """Something fakecri does not model, named by the message: reported as such (exit 2)."""


class Fatal(Exception):
    """An error busybox reports without the program's line: `awk: message` (exit 1)."""
