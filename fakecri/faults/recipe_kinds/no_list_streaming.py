"""`no-list-streaming`: a runtime from before KEP-5825: every Stream* list call answers
UNIMPLEMENTED (one fault, on the pattern `Stream*`)."""
from __future__ import annotations

from fakecri.faults.kinds.error import ERROR
from fakecri.faults.recipe_kinds.common import RecipeSpec, fault

SPEC = RecipeSpec(
    "no-list-streaming",
    "The Stream* list calls answer UNIMPLEMENTED, as runtimes older than KEP-5825 do; a kubelet with "
    "CRIListStreaming falls back to the unary List* calls.",
    ("kubernetes/enhancements#5825",),
    (fault(ERROR, "Stream*", code="UNIMPLEMENTED"),))
