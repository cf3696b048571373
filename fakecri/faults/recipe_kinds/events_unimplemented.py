"""`events-unimplemented`: a runtime without container events: GetContainerEvents answers
UNIMPLEMENTED."""
from __future__ import annotations

from fakecri.faults.kinds.error import ERROR
from fakecri.faults.recipe_kinds.common import RecipeSpec, fault

SPEC = RecipeSpec(
    "events-unimplemented",
    "GetContainerEvents answers UNIMPLEMENTED, as CRI-O would have with cri-o#7257 and as runtimes "
    "without events do; a kubelet with EventedPLEG must fall back to relisting.",
    ("cri-o/cri-o#7257", "kubernetes/kubernetes#129827"),
    (fault(ERROR, "GetContainerEvents", code="UNIMPLEMENTED"),))
