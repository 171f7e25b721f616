"""What if: projected step times of one measured pass (issue 15; docs/method.md, "What if").

``basis.py`` reads what the projections need from the work units once (launches, the batch and
each op row's counts at another batch, the fusion chains) into a :class:`WhatIfBasis`;
``project.py`` is a pure function of the :class:`Report`, that basis and the specs a scenario
needs, to a :class:`WhatIf`. :func:`section` is the report's own section (analysis.build_report);
``floorcalc whatif REPORT.json`` calls ``project`` again on a report read back.
"""

from __future__ import annotations

from typing import Sequence

from floorcalc.util.errors import WhatIfError
from floorcalc.records import CpuOp, DeviceSpec, Report, WhatIf, WorkUnit

__all__ = ["section", "why_none"]


def section(report: Report, units: Sequence[WorkUnit], passes: int, spec: DeviceSpec,
            ops: Sequence[CpuOp] = ()) -> WhatIf | None:
    """The what-if section of a report built from ``units`` against ``spec`` (the spec in use,
    with its ``details``; ``ops``: the trace's CPU ops, whose recorded calls show a batched GEMM
    of a broadcast weight): None for a run with no device timeline or no ceilings."""
    from floorcalc.whatif.basis import basis
    from floorcalc.whatif.project import graph_cost, project

    if report.target != "cuda" or report.timeline is None or report.timeline.decomposition is None \
            or not spec.has_ceilings:
        return None
    b = basis(units, passes, ops)
    try:
        graph, missing = graph_cost(spec, spec.launch_latency_us), ""
    except WhatIfError as e:
        graph, missing = None, str(e)
    return project(report, b, graph=graph, graph_missing=missing)


def why_none(report: Report) -> str:
    """Why a report has no what-if section (floorcalc.whatif.section makes none), and what to do."""
    if report.target != "cuda":
        return (f"it is a {report.target} run, and what-if projects GPU changes (fewer launches, CUDA graphs, "
                "fused ops, another GPU, another batch) from the device timeline of a CUDA run; "
                "capture the model on a GPU (floorcalc report MODEL.py --device cuda) to get one")
    if not report.device.has_ceilings:
        return ("it was made with no device spec (no ceilings, no floors to project from); run floorcalc analyze "
                "on its trace with --spec KEY or FILE")
    if report.timeline is None or report.timeline.decomposition is None:
        return ("its trace has no device timeline in the window (no GPU work), so there is no time to project; "
                "capture a window with the model's GPU work in it")
    return "it was written before floorcalc had one: run floorcalc analyze on its trace again"
