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
from floorcalc.records import DeviceSpec, Report, WhatIf, WorkUnit

__all__ = ["section"]


def section(report: Report, units: Sequence[WorkUnit], passes: int, spec: DeviceSpec) -> WhatIf | None:
    """The what-if section of a report built from ``units`` against ``spec`` (the spec in use,
    with its ``details``): None for a run with no device timeline or no ceilings."""
    from floorcalc.whatif.basis import basis
    from floorcalc.whatif.project import graph_cost, project

    if report.target != "cuda" or report.timeline is None or report.timeline.decomposition is None \
            or not spec.has_ceilings:
        return None
    b = basis(units, passes)
    try:
        graph, missing = graph_cost(spec, spec.launch_latency_us), ""
    except WhatIfError as e:
        graph, missing = None, str(e)
    return project(report, b, graph=graph, graph_missing=missing)
