"""`restart-between-stop-and-remove-sandbox`: the runtime restarts, keeping its state, just as the
first RemovePodSandbox comes in, after the sandbox was stopped."""
from __future__ import annotations

from fakecri.faults.kinds.restart import RESTART
from fakecri.faults.recipe_kinds.common import RecipeSpec, fault

SPEC = RecipeSpec(
    "restart-between-stop-and-remove-sandbox",
    "The runtime restarts (state kept, 2 s down) when the first RemovePodSandbox arrives: the sandbox "
    "was stopped, its removal answers UNAVAILABLE.",
    ("kubernetes/kubernetes#110429",),
    (fault(RESTART, "RemovePodSandbox", at="1", downtime="2s"),))
