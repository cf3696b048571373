"""`slow-container-start`: creating and starting a container take seconds (two latency faults),
which holds a new container in CREATED long enough for a relist to see it there."""
from __future__ import annotations

from fakecri.faults.kinds.latency import LATENCY
from fakecri.faults.recipe_kinds.common import RecipeSpec, fault

SPEC = RecipeSpec(
    "slow-container-start",
    "CreateContainer takes 1 s and StartContainer 3 s, so a new container is seen CREATED for seconds: the "
    "window in which kubelets with EventedPLEG created duplicate containers.",
    ("kubernetes/kubernetes#121003", "kubernetes/kubernetes#121349", "kubernetes/kubernetes#123087",
     "kubernetes/kubernetes#122721"),
    (fault(LATENCY, "CreateContainer", delay="1s"), fault(LATENCY, "StartContainer", delay="3s")))
