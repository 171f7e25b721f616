"""CSV rendering of a Report: three tables, one file each.

``-o run.csv`` writes the ops to ``run.csv`` and, beside it, ``run.kernels.csv`` (one row per
device event name under each op), ``run.groups.csv`` (the op rows grouped as the report groups
them, floorcalc.classify.grouping; a ``by`` column says how) and ``run.summary.csv`` (the pass figures, MFU and MBU among
them, each with its definition; then the report's notes and warnings, one a row: ``figure``
``note`` or ``warning``, the text under ``definition``). To stdout (``--format csv`` without ``-o``) only the ops table
is written. Columns are the JSON keys (docs/json-schema.md), units in their names; empty cells
mean "not known" (JSON null). Figures are per pass.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Dict, Iterable, List, Sequence

from floorcalc.records import Report
from floorcalc.render.base import Renderer
from floorcalc.render.figures import pass_figures

#: the columns of the summary table
SUMMARY_COLUMNS = ("figure", "value", "unit", "definition")


def sibling_paths(ops_path: Path) -> Dict[str, Path]:
    """The files ``-o ops_path`` writes: ``ops``, ``kernels``, ``groups`` and ``summary`` -> path."""
    stem = ops_path.name[: -len(ops_path.suffix)] if ops_path.suffix else ops_path.name
    return {
        "ops": ops_path,
        "kernels": ops_path.with_name(f"{stem}.kernels.csv"),
        "groups": ops_path.with_name(f"{stem}.groups.csv"),
        "summary": ops_path.with_name(f"{stem}.summary.csv"),
    }


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def _table(columns: Sequence[str], rows: Iterable[Dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_cell(r.get(c)) for c in columns])
    return buf.getvalue()


class CsvRenderer(Renderer):
    """Render a report as CSV text: :meth:`render` is the ops table (what standard output gets);
    ``-o FILE.csv`` writes the ops, the kernels and the summary (:meth:`files`).
    ``float_format``: a format spec for floats (``".6g"``), or None for Python's shortest
    round-tripping repr (the default: nothing is lost)."""

    def __init__(self, float_format: str | None = None) -> None:
        self.float_format = float_format

    def _fmt(self, row: Dict[str, Any]) -> Dict[str, Any]:
        if self.float_format is None:
            return row
        return {k: (format(v, self.float_format) if isinstance(v, float) else v) for k, v in row.items()}

    def render(self, report: Report) -> str:
        return self.ops(report)

    def paths(self, path: Path) -> List[Path]:
        return list(sibling_paths(path).values())

    def ops(self, report: Report) -> str:
        from floorcalc.render.jsonfmt import op_dict

        rows: List[Dict[str, Any]] = [self._fmt(op_dict(r)) for r in report.ops]
        columns = list(op_dict(report.ops[0]).keys()) if report.ops else list(_OP_COLUMNS)
        return _table(columns, rows)

    def kernels(self, report: Report) -> str:
        from floorcalc.render.jsonfmt import kernel_dict

        rows = [self._fmt(kernel_dict(k)) for k in report.kernels]
        columns = list(kernel_dict(report.kernels[0]).keys()) if report.kernels else list(_KERNEL_COLUMNS)
        return _table(columns, rows)

    def groups(self, report: Report) -> str:
        from floorcalc.render.figures import groups_of
        from floorcalc.render.jsonfmt import group_dict

        by = report.grouping.by if report.grouping is not None else "none"
        rows = [self._fmt({"by": by, **group_dict(g)}) for g in groups_of(report)]
        return _table(list(rows[0].keys()) if rows else list(_GROUP_COLUMNS), rows)

    def summary(self, report: Report) -> str:
        rows = [self._fmt({"figure": f.key, "value": f.value, "unit": f.unit, "definition": f.definition})
                for f in pass_figures(report)]
        rows.append({"figure": "passes", "value": report.summary.passes, "unit": "count",
                     "definition": "passes the window was divided into; every figure above is per pass"})
        if report.whatif is not None:  # the what-if section: one row per projection (floorcalc.whatif)
            for p in (report.whatif.measured,) + report.whatif.projections:
                if p.step_us is not None:
                    rows.append(self._fmt({"figure": f"whatif.{p.scenario}", "value": p.step_us, "unit": "us",
                                           "definition": f"{p.label}: {p.assumption}"}))
                rows.append(self._fmt({"figure": f"whatif.{p.scenario}.device", "value": p.device_us, "unit": "us",
                                       "definition": f"{p.label}, device part (floor, excess, copies, "
                                                     "communication)"}))
        rows += [{"figure": n.kind, "definition": n.text} for n in report.notes]
        return _table(SUMMARY_COLUMNS, rows)

    def files(self, report: Report, ops_path: Path) -> Dict[Path, str]:
        """What ``-o ops_path`` writes: path -> text."""
        p = sibling_paths(ops_path)
        return {p["ops"]: self.ops(report), p["kernels"]: self.kernels(report), p["groups"]: self.groups(report),
                p["summary"]: self.summary(report)}


# the columns of an empty table (the JSON keys; kept in step with jsonfmt by a test)
_OP_COLUMNS = ("name", "module", "calls", "kernels", "duration_us", "flop", "bytes", "compute_us", "memory_us",
               "overhead_us", "floor_us", "bound", "efficiency", "floor_violation", "achieved_flop_per_s",
               "achieved_bytes_per_s", "peak_key", "level", "formula", "shapes", "note")
_KERNEL_COLUMNS = ("name", "kind", "op", "module", "stream", "calls", "duration_us", "floor_us", "bound",
                   "efficiency", "floor_violation", "floor_split", "role")
_GROUP_COLUMNS = ("by", "name", "module", "shapes", "instances", "calls", "duration_us", "floor_us", "flop", "bytes",
                  "efficiency", "floor_violation", "bound", "level", "median_us", "min_us", "max_us", "outlier",
                  "outlier_us")
