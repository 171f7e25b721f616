"""Every table of a report (and of a run of several ranks) as rows of plain values, for
:meth:`floorcalc.api.Report.to_dataframe` and :meth:`floorcalc.api.Run.to_dataframe`: one list
of dicts per table, keyed as the JSON document keys them (docs/json-schema.md: the same names,
units in the names), so a DataFrame's columns are the JSON's. Nested objects (a gap's idle time
by cause, a projection's parts) are flattened by pandas into dotted columns
(``by_cause_us.launch``).

A table the report does not have (a CPU run has no device timeline, so no gaps, copies or
decomposition; a report with no what-if section) is a :class:`ValueError` naming why, never an
empty table that could be read as "none found".
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Tuple

from floorcalc.records import Projection, Report, RunReport, Timeline

__all__ = ["REPORT_TABLES", "RUN_TABLES", "report_rows", "run_rows"]

Rows = List[Dict[str, Any]]


def _timeline(report: Report, table: str, device: bool = True) -> Timeline:
    """The report's timeline; ValueError when it has none, or (``device``: a table of the device
    timeline, gaps, copies, waits, the decomposition) when it is a CPU run's, which holds only
    the host-side figures (user ranges, gloo collectives)."""
    t = report.timeline
    if t is None or (device and t.target == "cpu"):
        why = ("a CPU run has no device timeline" if report.target == "cpu"
               else "this report has no device timeline (no GPU work in the window)")
        raise ValueError(f"no {table!r} table: {why}")
    return t


def _ops(report: Report) -> Rows:
    from floorcalc.render.jsonfmt import op_dict

    return [op_dict(r) for r in report.ops]


def _kernels(report: Report) -> Rows:
    from floorcalc.render.jsonfmt import kernel_dict

    return [kernel_dict(k) for k in report.kernels]


def _groups(report: Report) -> Rows:
    from floorcalc.render.jsonfmt import group_dict

    return [group_dict(g) for g in (report.grouping.groups if report.grouping is not None else ())]


def _summary(report: Report) -> Rows:
    from floorcalc.render.figures import pass_figures

    return [{"figure": f.key, "label": f.label, "value": f.value, "unit": f.unit, "definition": f.definition}
            for f in pass_figures(report)]


def _decomposition(report: Report) -> Rows:
    """The pass's decomposition, then each ProfilerStep's: one row each, the parts as columns."""
    from floorcalc.render.timeline_json import decomposition_dict

    t = _timeline(report, "decomposition")
    if t.decomposition is None:
        raise ValueError("no 'decomposition' table: the window has no device timeline to split")
    rows = [{"which": "pass", **(decomposition_dict(t.decomposition) or {})}]
    rows += [{"which": "step", **(decomposition_dict(s) or {})} for s in t.steps]
    return rows


def _gaps(report: Report) -> Rows:
    t = _timeline(report, "gaps")
    return [{**dataclasses.asdict(g), "by_cause_us": dict(g.by_cause_us)} for g in t.gaps]


def _idle(report: Report) -> Rows:
    return [dataclasses.asdict(r) for r in _timeline(report, "idle").idle_by_op]


def _copies(report: Report) -> Rows:
    return [dataclasses.asdict(c) for c in _timeline(report, "copies").copies]


def _waits(report: Report) -> Rows:
    return [dataclasses.asdict(w) for w in _timeline(report, "waits").waits]


def _ranges(report: Report) -> Rows:
    from floorcalc.render.timeline_json import decomposition_dict

    return [{"name": r.name, "calls": r.calls, "wall_us": r.wall_us, "ops": r.ops, "kernels": r.kernels,
             "device_us": r.device_us, "decomposition": decomposition_dict(r.decomposition)}
            for r in _timeline(report, "ranges", device=False).ranges]


def _collectives(report: Report) -> Rows:
    return [dataclasses.asdict(c) for c in _timeline(report, "collectives", device=False).collectives]


def _projection(p: Projection, measured: bool) -> Dict[str, Any]:
    return {"scenario": p.scenario, "label": p.label, "measured": measured, "step_us": p.step_us,
            "parts_us": dict(p.parts_us), "assumption": p.assumption,
            "basis": "; ".join(f"{t.part} {t.basis}" for t in p.terms)}


def _whatif(report: Report) -> Rows:
    """The measured pass, then each projection: step time, its parts, what each part rests on."""
    w = report.whatif
    if w is None:
        why = ("a CPU run has none (what-if projects GPU changes from a device timeline)" if report.target == "cpu"
               else "this report has no what-if section")
        raise ValueError(f"no 'whatif' table: {why}")
    return [_projection(w.measured, True)] + [_projection(p, False) for p in w.projections]


#: the tables of a report: name -> (what it holds, its rows)
REPORT_TABLES: Dict[str, Tuple[str, Callable[[Report], Rows]]] = {
    "ops": ("one row per op (name, module), ranked by measured time", _ops),
    "kernels": ("one row per device event name under each op", _kernels),
    "groups": ("the op rows grouped (Report.group_by), longest first", _groups),
    "summary": ("the pass figures, each with its unit and definition", _summary),
    "decomposition": ("where the wall time goes: the pass, then each ProfilerStep, parts as columns", _decomposition),
    "gaps": ("the longest GPU idle gaps, their idle time by cause", _gaps),
    "idle": ("GPU idle time by the host op running meanwhile", _idle),
    "copies": ("the copies and memsets listed, with bandwidth and floor", _copies),
    "waits": ("host waits (syncs, blocking copies) with what they waited for", _waits),
    "ranges": ("your record_function ranges, each with its decomposition", _ranges),
    "collectives": ("each collective of the window: its exposed time and what ran beside it", _collectives),
    "whatif": ("the measured pass and each what-if projection, parts as columns", _whatif),
}


def report_rows(report: Report, table: str) -> Rows:
    """The rows of ``table`` (:data:`REPORT_TABLES`); ValueError for another name, or for a
    table this report does not have (the message says why)."""
    if table == "timeline":  # the name the issue and docs/timeline.md give the parts
        table = "decomposition"
    if table not in REPORT_TABLES:
        raise ValueError(f"table must be one of {', '.join(REPORT_TABLES)}, not {table!r}")
    return REPORT_TABLES[table][1](report)


def _ranks(run: RunReport) -> Rows:
    from floorcalc.render.run import rank_dict

    return [rank_dict(r) for r in run.ranks]


def _run_collectives(run: RunReport) -> Rows:
    from floorcalc.render.run import collective_dict

    return [collective_dict(c) for c in run.collectives]


def _run_instances(run: RunReport) -> Rows:
    from floorcalc.render.run import instance_dict

    return [instance_dict(i) for i in run.instances]


def _run_waits(run: RunReport) -> Rows:
    return [{"rank": r.rank, "peer": w.peer, "wait_us": w.wait_us, "instances": w.instances,
             "activity": "; ".join(f"{a} {v:.1f} us" for a, v in w.activity)} for r in run.ranks for w in r.waits]


def _run_late(run: RunReport) -> Rows:
    from floorcalc.render.run import late_dict

    return [late_dict(v) for v in run.late]


#: the tables of a run of several ranks: name -> (what it holds, its rows)
RUN_TABLES: Dict[str, Tuple[str, Callable[[RunReport], Rows]]] = {
    "ranks": ("one row per rank: wall, busy, floor, collective time, hidden, transfer, waits", _ranks),
    "collectives": ("one row per collective of the run: skew, transfer, floor, the rank most often late",
                    _run_collectives),
    "instances": ("every matched collective instance: its ranks' arrival and the late one", _run_instances),
    "waits": ("each rank's waits on its peers: on which rank, how long, what that rank was doing", _run_waits),
    "late": ("the ranks late at the same collective of every pass", _run_late),
}


def run_rows(run: RunReport, table: str) -> Rows:
    """The rows of ``table`` (:data:`RUN_TABLES`); ValueError for another name."""
    if table not in RUN_TABLES:
        raise ValueError(f"table must be one of {', '.join(RUN_TABLES)}, not {table!r}")
    return RUN_TABLES[table][1](run)
