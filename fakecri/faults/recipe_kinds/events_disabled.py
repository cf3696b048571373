"""`events-disabled`: the event stream a runtime with its pod events switched off gives (CRI-O's
`enable_pod_events=false`): GetContainerEvents ends at once, OK, with nothing sent."""
from __future__ import annotations

from fakecri.faults.kinds.cut_stream import CUT_STREAM
from fakecri.faults.recipe_kinds.common import RecipeSpec, fault

SPEC = RecipeSpec(
    "events-disabled",
    "GetContainerEvents ends at once with OK and no event, as CRI-O does with enable_pod_events=false; "
    "a kubelet with EventedPLEG must fall back to relisting.",
    ("cri-o/cri-o#7164", "cri-o/cri-o#7257"),
    (fault(CUT_STREAM, after="0", code="OK"),))
