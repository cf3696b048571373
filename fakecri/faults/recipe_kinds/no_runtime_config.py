"""`no-runtime-config`: a runtime from before the RuntimeConfig call: it answers UNIMPLEMENTED."""
from __future__ import annotations

from fakecri.faults.kinds.error import ERROR
from fakecri.faults.recipe_kinds.common import RecipeSpec, fault

SPEC = RecipeSpec(
    "no-runtime-config",
    "RuntimeConfig answers UNIMPLEMENTED, as runtimes before it existed did; kubelet 1.36 falls back to "
    "its own cgroup driver setting, a kubelet without that fallback (planned for 1.38) will not start.",
    ("kubernetes/enhancements#6087", "kubernetes/kubernetes#136731"),
    (fault(ERROR, "RuntimeConfig", code="UNIMPLEMENTED"),))
