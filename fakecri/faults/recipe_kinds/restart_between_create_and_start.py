"""`restart-between-create-and-start`: the runtime restarts, keeping its state, just as the first
StartContainer comes in, so the container it had created stays CREATED."""
from __future__ import annotations

from fakecri.faults.kinds.restart import RESTART
from fakecri.faults.recipe_kinds.common import RecipeSpec, fault

SPEC = RecipeSpec(
    "restart-between-create-and-start",
    "The runtime restarts (state kept, 2 s down) when the first StartContainer arrives: the container "
    "was created, its start answers UNAVAILABLE and it stays CREATED (a CRI invariant with no test).",
    ("kubernetes/kubernetes#110429",),
    (fault(RESTART, "StartContainer", at="1", downtime="2s"),))
