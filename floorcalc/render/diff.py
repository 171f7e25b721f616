"""Rendering of a :class:`~floorcalc.compare.reports.Comparison` (``floorcalc diff A.json B.json``):
text tables, Markdown, or JSON (``kind`` ``floorcalc.diff``, :data:`DIFF_SCHEMA_VERSION`,
documented in docs/cli.md). Every figure is per pass; times in microseconds.
"""

from __future__ import annotations

import json
import typing
from typing import Any, Dict, List, Literal, Optional, Set, Union

from floorcalc.compare.reports import Comparison, OpChange, OpSide, RunInfo, TotalChange
from floorcalc.records.documents import (DiffChangeFigures, DiffDocument, DiffGroup, DiffGroupSide, DiffOp, DiffRun,
                                         DiffSide, DiffTotal, ToolInfo)
from floorcalc.render.base import Renderer
from floorcalc.util.codec import encode, read_document
from floorcalc.render.figures import format_us
from floorcalc.render.terminal import printable

#: the layout of the diff's JSON output
DIFF_SCHEMA_VERSION: Literal[1] = 1


_us = format_us   # diff writes times as every other text output does


def _pct(x: Optional[float], signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:+.1f} pt" if signed else f"{100 * x:.1f}%"


def _pt(a: Optional[float], b: Optional[float]) -> str:
    """The change from ratio ``a`` to ``b`` in percentage points, from the values as
    :func:`_pct` shows them (to 0.1 %), so ``1.6% -> 1.8%`` reads ``+0.2 pt`` however the
    unrounded values differ; the JSON keeps the exact change. ``-`` without both."""
    if a is None or b is None:
        return "-"
    shown_a, shown_b = round(100 * a, 1), round(100 * b, 1)
    return f"{shown_b - shown_a:+.1f} pt"


def _total_cells(t: TotalChange) -> List[str]:
    if t.unit == "ratio":
        return [t.label, _pct(t.a), _pct(t.b), _pt(t.a, t.b), ""]
    rel = f"{t.change / t.a:+.1%}" if t.change is not None and t.a else ""
    return [t.label + " (us)", _us(t.a), _us(t.b), _us(t.change, True), rel]


def _instances(c: OpChange) -> str:
    """``x12`` (the group's instances, in both runs), ``x12 -> x11`` (A's, then B's)."""
    na, nb = (c.a.instances if c.a else None), (c.b.instances if c.b else None)
    if na is None or nb is None or na == nb:
        return f"x{na if na is not None else nb}"
    return f"x{na} -> x{nb}"


def _op_cells(i: int, c: OpChange, grouped: bool = False) -> List[str]:
    ea, eb = (c.a.efficiency if c.a else None), (c.b.efficiency if c.b else None)
    return ([str(i), c.name, c.module or "(top)"] + ([_instances(c)] if grouped else [])
            + [_us(c.a.duration_us if c.a else None),
               _us(c.b.duration_us if c.b else None), _us(c.time_change_us, True),
               _us(c.a.floor_us if c.a else None), _us(c.b.floor_us if c.b else None),
               _pct(ea), _pct(eb), _pt(ea, eb), "" if c.status == "both" else c.status])


_OP_HEADER = ["#", "op", "module", "A us", "B us", "change us", "A floor", "B floor", "A eff", "B eff", "eff change",
              "status"]


def _header(grouped: bool) -> List[str]:
    return _OP_HEADER[:3] + ["n"] + _OP_HEADER[3:] if grouped else list(_OP_HEADER)


def _right(grouped: bool) -> Set[int]:
    """The right-aligned (numeric) columns of :func:`_header`."""
    return {0} | {i + (1 if grouped else 0) for i in range(3, 11)}


#: what a row is, by grouping: (one, many, how rows are matched)
_ROWS = {
    "none": ("op", "ops", "ops matched by name and module"),
    "layer": ("group", "groups", "op rows grouped by layer (module paths differ only in layer indices; n: instances), "
                                 "matched by op, module pattern and input shapes"),
    "module": ("group", "groups", "op rows grouped by module (layer indices folded; n: instances), matched by module "
                                  "pattern and the ops it runs"),
    "op": ("group", "groups", "op rows grouped by op and input shapes (n: instances), matched by op and input shapes"),
}


def _text_table(header: List[str], rows: List[List[str]], right: Set[int]) -> List[str]:
    rows = [[printable(c) for c in r] for r in rows]  # names from traces: one line, no terminal codes
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]

    def line(r: List[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))

    return [line(header).rstrip(), "  ".join("-" * w for w in widths)] + [line(r).rstrip() for r in rows]


class DiffTableRenderer(Renderer):
    """The comparison as text: the totals, then the ``top`` ops ranked by the change in measured
    time (the rest summed in one line), then the ops that appeared and vanished."""

    def __init__(self, top: int = 25) -> None:
        self.top = top

    def render(self, c: Comparison) -> str:
        lines = [printable(f"floorcalc diff, per pass: A = {c.a.source} ({c.a.device_key}), "
                           f"B = {c.b.source} ({c.b.device_key})")]
        lines += [printable(f"warning: {w}") for w in c.warnings]
        lines += [printable(f"note: {n}") for n in c.notes]
        lines += ["", "totals"]
        lines += ["  " + x for x in _text_table(["figure", "A", "B", "change", "relative"],
                                                [_total_cells(t) for t in c.totals], {1, 2, 3, 4})]
        appeared, vanished = c.appeared, c.vanished
        grouped = c.group_by != "none"
        _one, many, how = _ROWS[c.group_by]
        rows = c.rows
        lines += ["", f"{how}, ranked by |change in measured time|, then in floor, then in "
                      f"efficiency ({len(rows)} in all, "
                      f"{len(appeared)} appeared, {len(vanished)} vanished)"]
        lines += ["  " + x for x in _text_table(_header(grouped),
                                                [_op_cells(i, o, grouped) for i, o in enumerate(rows[: self.top], 1)],
                                                _right(grouped))]
        rest = rows[self.top:]
        if rest:
            lines.append(f"  ... {len(rest)} more {many}, {_us(sum(o.time_change_us for o in rest), True)} us in all")
        for label, group in (("appeared (only in B)", appeared), ("vanished (only in A)", vanished)):
            if group:
                names = ", ".join(f"{o.name} ({o.module or 'top'}{' ' + _instances(o) if grouped else ''})"
                                  for o in group[:8])
                more = f" and {len(group) - 8} more" if len(group) > 8 else ""
                lines.append(printable(f"{label}: {len(group)} {many}, "
                                       f"{_us(sum(abs(o.time_change_us) for o in group))} us: {names}{more}"))
        return "\n".join(lines) + "\n"


class DiffMarkdownRenderer(Renderer):
    """The comparison as Markdown: the warnings, the totals, the ``top`` ops."""

    def __init__(self, top: int = 25) -> None:
        self.top = top

    def render(self, c: Comparison) -> str:
        def row(cells: List[str]) -> str:
            return "| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |"

        lines = [f"# floorcalc diff: `{c.a.source}` (A) against `{c.b.source}` (B)", "", "Every figure per pass."]
        lines += [f"\n> **Warning:** {w}" for w in c.warnings]
        lines += [f"\n> **Note:** {n}" for n in c.notes]
        lines += ["", "## Totals", "", row(["figure", "A", "B", "change", "relative"]),
                  "| --- | ---: | ---: | ---: | ---: |"]
        lines += [row(_total_cells(t)) for t in c.totals]
        grouped = c.group_by != "none"
        _one, many, how = _ROWS[c.group_by]
        header = _header(grouped)
        right = _right(grouped)
        lines += ["", f"## {many.capitalize()}, ranked by the change in measured time", "", f"{how[0].upper()}{how[1:]}.",
                  "", row(header), "| " + " | ".join("---:" if i in right else "---" for i in range(len(header))) + " |"]
        lines += [row(_op_cells(i, o, grouped)) for i, o in enumerate(c.rows[: self.top], 1)]
        if len(c.rows) > self.top:
            lines.append(f"\n{len(c.rows) - self.top} more {many} not shown.")
        return "\n".join(lines) + "\n"


def _side(s: Optional[OpSide]) -> Optional[DiffSide]:
    if s is None:
        return None
    return DiffSide(duration_us=s.duration_us, floor_us=s.floor_us, efficiency=s.efficiency, calls=s.calls)


def _group_side(s: Optional[OpSide]) -> Optional[DiffGroupSide]:
    if s is None:
        return None
    return DiffGroupSide(duration_us=s.duration_us, floor_us=s.floor_us, efficiency=s.efficiency, calls=s.calls,
                         instances=s.instances)


def _figures(o: OpChange) -> DiffChangeFigures:
    return DiffChangeFigures(duration_us=o.time_change_us, floor_us=o.floor_change_us,
                             efficiency=o.efficiency_change)


def _run(r: RunInfo) -> DiffRun:
    return DiffRun(path=r.source, device=r.device_key, tool_version=r.tool_version, command=r.command,
                   capture_mode=r.capture_mode)


def to_document(c: Comparison) -> DiffDocument:
    """The comparison as its document record (floorcalc.records.documents.DiffDocument): every op
    (not only the top ones), every total, and every grouped row (``groups``, grouped by
    ``group_by``; for ``none`` the ops again, each of one instance)."""
    from floorcalc import __version__

    return DiffDocument(
        schema_version=DIFF_SCHEMA_VERSION, kind="floorcalc.diff", tool=ToolInfo(name="floorcalc", version=__version__),
        a=_run(c.a), b=_run(c.b), warnings=c.warnings, notes=c.notes,
        totals=tuple(DiffTotal(figure=t.figure, label=t.label, unit=t.unit, a=t.a, b=t.b, change=t.change)
                     for t in c.totals),
        ops=tuple(DiffOp(name=o.name, module=o.module, status=o.status, a=_side(o.a), b=_side(o.b),
                         change=_figures(o)) for o in c.ops),
        group_by=c.group_by,
        groups=tuple(DiffGroup(name=o.name, module=o.module, shapes=o.shapes, status=o.status, a=_group_side(o.a),
                               b=_group_side(o.b), change=_figures(o)) for o in c.rows))


def to_dict(c: Comparison) -> Dict[str, Any]:
    """The comparison as a JSON-ready dict (:func:`to_document`, written by floorcalc.util.codec)."""
    return typing.cast(Dict[str, Any], encode(to_document(c)))


def loads(text: Union[str, bytes], name: str = "<text>") -> DiffDocument:
    """The diff document in the JSON ``text`` (what :class:`DiffJsonRenderer` writes), decoded and
    checked by floorcalc.util.codec. Raises :class:`~floorcalc.util.errors.ReportFileError`
    (exit code 6) naming ``name`` and the key."""
    return read_document(DiffDocument, text, "diff", name)


class DiffJsonRenderer(Renderer):
    """The comparison as JSON (:func:`to_dict`)."""

    def render(self, c: Comparison) -> str:
        return json.dumps(to_dict(c), indent=1) + "\n"
