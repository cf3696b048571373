"""`lose-every-container`: a restart with no trigger point that wipes the state: the runtime goes
down as the fault is added and comes back with no sandbox or container."""
from __future__ import annotations

from fakecri.faults.kinds.restart import RESTART
from fakecri.faults.recipe_kinds.common import RecipeSpec, fault

SPEC = RecipeSpec(
    "lose-every-container",
    "The runtime restarts at once and comes back with no sandbox or container (a wipe): every pod's "
    "containers vanish in one relist period, a burst of lifecycle events for the generic PLEG.",
    ("kubernetes/kubernetes#136408", "kubernetes/kubernetes#106390"),
    (fault(RESTART, downtime="1s", wipe="true"),))
