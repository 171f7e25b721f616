"""Rendering of a :class:`~floorcalc.compare.Comparison` (``floorcalc diff A.json B.json``):
text tables, Markdown, or JSON (``kind`` ``floorcalc.diff``, :data:`DIFF_SCHEMA_VERSION`,
documented in docs/cli.md). Every figure is per pass; times in microseconds.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Set

from floorcalc.compare import Comparison, OpChange, OpSide, RunInfo, TotalChange
from floorcalc.render.base import Renderer
from floorcalc.render.terminal import printable

#: the layout of the diff's JSON output
DIFF_SCHEMA_VERSION = 1


def _us(x: Optional[float], signed: bool = False) -> str:
    if x is None:
        return "-"
    s = f"{x:+,.1f}" if signed else f"{x:,.1f}"
    return s if abs(x) >= 10 or x == 0 else (f"{x:+.2f}" if signed else f"{x:.2f}")


def _pct(x: Optional[float], signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:+.1f} pt" if signed else f"{100 * x:.1f}%"


def _total_cells(t: TotalChange) -> List[str]:
    if t.unit == "ratio":
        return [t.label, _pct(t.a), _pct(t.b), _pct(t.change, True), ""]
    rel = f"{t.change / t.a:+.1%}" if t.change is not None and t.a else ""
    return [t.label + " (us)", _us(t.a), _us(t.b), _us(t.change, True), rel]


def _op_cells(i: int, c: OpChange) -> List[str]:
    return [str(i), c.name, c.module or "(top)", _us(c.a.duration_us if c.a else None),
            _us(c.b.duration_us if c.b else None), _us(c.time_change_us, True),
            _us(c.a.floor_us if c.a else None), _us(c.b.floor_us if c.b else None),
            _pct(c.a.efficiency if c.a else None), _pct(c.b.efficiency if c.b else None),
            _pct(c.efficiency_change, True), "" if c.status == "both" else c.status]


_OP_HEADER = ["#", "op", "module", "A us", "B us", "change us", "A floor", "B floor", "A eff", "B eff", "eff change",
              "status"]


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
        lines += ["", f"ops matched by name and module, ranked by |change in measured time|, then in floor, then in "
                      f"efficiency ({len(c.ops)} in all, "
                      f"{len(appeared)} appeared, {len(vanished)} vanished)"]
        lines += ["  " + x for x in _text_table(_OP_HEADER, [_op_cells(i, o) for i, o in enumerate(c.ops[: self.top], 1)],
                                                {0, 3, 4, 5, 6, 7, 8, 9, 10})]
        rest = c.ops[self.top:]
        if rest:
            lines.append(f"  ... {len(rest)} more ops, {_us(sum(o.time_change_us for o in rest), True)} us in all")
        for label, group in (("appeared (only in B)", appeared), ("vanished (only in A)", vanished)):
            if group:
                names = ", ".join(f"{o.name} ({o.module or 'top'})" for o in group[:8])
                more = f" and {len(group) - 8} more" if len(group) > 8 else ""
                lines.append(printable(f"{label}: {len(group)} ops, {_us(sum(abs(o.time_change_us) for o in group))} "
                                       f"us: {names}{more}"))
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
        lines += ["", "## Ops, ranked by the change in measured time", "", row(_OP_HEADER),
                  "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        lines += [row(_op_cells(i, o)) for i, o in enumerate(c.ops[: self.top], 1)]
        if len(c.ops) > self.top:
            lines.append(f"\n{len(c.ops) - self.top} more ops not shown.")
        return "\n".join(lines) + "\n"


def _side(s: Optional[OpSide]) -> Optional[Dict[str, Any]]:
    if s is None:
        return None
    return {"duration_us": s.duration_us, "floor_us": s.floor_us, "efficiency": s.efficiency, "calls": s.calls}


def _run(r: RunInfo) -> Dict[str, Any]:
    return {"path": r.source, "device": r.device_key, "tool_version": r.tool_version, "command": r.command,
            "capture_mode": r.capture_mode}


def to_dict(c: Comparison) -> Dict[str, Any]:
    """The comparison as a JSON-ready dict: every op (not only the top ones) and every total."""
    from floorcalc import __version__

    return {
        "schema_version": DIFF_SCHEMA_VERSION, "kind": "floorcalc.diff",
        "tool": {"name": "floorcalc", "version": __version__},
        "a": _run(c.a), "b": _run(c.b), "warnings": list(c.warnings), "notes": list(c.notes),
        "totals": [{"figure": t.figure, "label": t.label, "unit": t.unit, "a": t.a, "b": t.b, "change": t.change}
                   for t in c.totals],
        "ops": [{"name": o.name, "module": o.module, "status": o.status, "a": _side(o.a), "b": _side(o.b),
                 "change": {"duration_us": o.time_change_us, "floor_us": o.floor_change_us,
                            "efficiency": o.efficiency_change}} for o in c.ops],
    }


class DiffJsonRenderer(Renderer):
    """The comparison as JSON (:func:`to_dict`)."""

    def render(self, c: Comparison) -> str:
        return json.dumps(to_dict(c), indent=1) + "\n"
