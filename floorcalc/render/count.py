"""Rendering of ``floorcalc count``'s :class:`~floorcalc.records.CountReport`: a rich table
(:class:`CountTableRenderer`) or JSON (:class:`CountJsonRenderer`, :func:`dumps`, schema ``floorcalc.count`` version 1,
documented in docs/counting.md).

FLOPs are floating-point operations (a multiply-add is 2), bytes are the compulsory bytes of
each op (every input read once, every output written once), parameters are elements.
"""

from __future__ import annotations

import json
import typing
from typing import Any, Dict, Literal, Optional, Union

from rich import box
from rich.console import Console

from floorcalc import __version__
from floorcalc.records import FAMILIES, Comparison, CountReport
from floorcalc.records.documents import (CountCompareDocument, CountDocument, CountModule, CountTotals,
                                         OracleDocument)
from floorcalc.render.base import Renderer, captured
from floorcalc.util.codec import encode, read_document
from floorcalc.render.terminal import PlainTable, make_console, plain, styled

SCHEMA: Literal["floorcalc.count"] = "floorcalc.count"
SCHEMA_VERSION: Literal[1] = 1


def si(x: Optional[float], unit: str = "") -> str:
    """``35210718184`` -> ``"35.21 G"`` (with ``unit`` appended)."""
    if x is None:
        return "-"
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.2f} {prefix}{unit}"
    return f"{x:.0f} {unit}".rstrip()


def _ai(x: Optional[float]) -> str:
    return "-" if x is None else (f"{x:.1f}" if x >= 10 else f"{x:.2f}")


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


class CountTableRenderer(Renderer):
    """Render a count report as rich tables: modules, totals, families, top ops, uncounted ops,
    and the comparison when there is one. ``top``: op rows shown; ``width``: console width
    (None: the terminal's on standard output, 160 in a file)."""

    def __init__(self, top: int = 15, width: Optional[int] = None) -> None:
        self.top = top
        self.width = width

    def render(self, r: CountReport) -> str:
        """The tables as plain text (no colour), ``width`` (default 160) columns wide."""
        return captured(lambda console: self.print(r, console), self.width)

    def render_terminal(self, r: CountReport) -> str:
        """The tables as the terminal shows them (its width and colours)."""
        return captured(lambda console: self.print(r, console), self.width, terminal=True)

    def print(self, r: CountReport, console: Optional[Console] = None) -> None:
        """Print the tables on ``console`` (default: standard output)."""
        console = console or make_console(width=self.width)
        where = ("meta device: shapes only, nothing allocated" if r.run == "meta"
                 else "a real CPU run")
        dtypes = f"counted in {', '.join(r.dtypes)}" if r.dtypes else "dtype not known: no model or inputs"
        console.print(styled((f"floorcalc {__version__} count", "bold"), "  ", plain(r.model_file),
                             f"  ({where}; {dtypes})"))
        if r.notice:
            console.print(styled(("note:", "yellow"), " ", plain(r.notice)))
        console.print()  # a blank line between sections (a table ends with one of its own)

        t = PlainTable(box=box.SIMPLE_HEAD, title=f"modules (inclusive), to depth {r.depth}", title_justify="left")
        t.add_column("module", overflow="fold")
        for col in ("FLOPs", "bytes", "params", "FLOP/byte", "op calls"):
            t.add_column(col, justify="right", no_wrap=True)
        for m in r.modules:
            name = ("  " * m.depth) + (m.path or "(model)")
            calls = f"{m.calls}" + (f" ({m.uncounted_calls} uncounted)" if m.uncounted_calls else "")
            t.add_row(name, si(m.flop), si(m.bytes, "B"), si(m.params) if m.params is not None else "-",
                      _ai(m.intensity), calls)
        console.print(t)

        params = "" if r.params is None else f", {si(r.params)} parameters ({si(r.param_bytes, 'B')})"
        console.print(styled(("total", "bold"), f": {si(r.flop, 'FLOP')}, {si(r.bytes, 'B')} moved{params}, "
                      f"{_ai(r.intensity)} FLOP/byte, {r.calls} op calls"))
        console.print(styled("by family: " + ", ".join(f"{f} {si(r.by_family.get(f, 0))} ({_pct(r.by_family.get(f, 0), r.flop)})"
                                                       for f in FAMILIES)))
        if r.uncounted:
            console.print(styled(("lower bound", "magenta"), f": {r.uncounted_calls} op calls have no count "
                                 "(listed below); they add nothing to these totals"))
        console.print()

        ops = PlainTable(box=box.SIMPLE_HEAD, title=f"top {min(self.top, len(r.ops))} ops by FLOPs", title_justify="left")
        ops.add_column("op", overflow="fold")
        ops.add_column("family", no_wrap=True)
        for col in ("calls", "FLOPs", "share", "bytes"):
            ops.add_column(col, justify="right", no_wrap=True)
        for o in r.ops[: self.top]:
            ops.add_row(o.name, o.family, str(o.calls), si(o.flop), _pct(o.flop, r.flop), si(o.bytes, "B"))
        console.print(ops)

        if r.uncounted:
            u = PlainTable(box=box.SIMPLE_HEAD, title="uncounted ops", title_justify="left")
            u.add_column("op", no_wrap=True)
            u.add_column("calls", justify="right")
            u.add_column("modules")
            u.add_column("why")
            u.add_column("example")
            for x in r.uncounted:
                u.add_row(x.name, str(x.calls), ", ".join(m or "(model)" for m in x.modules), x.reason, x.example)
            console.print(u)
        else:
            console.print(styled("uncounted ops: none"))
        if r.comparison is not None:
            if not r.uncounted:
                console.print()
            self._compare(r.comparison, console)

    def _compare(self, c: Comparison, console: Console) -> None:
        t = PlainTable(box=box.SIMPLE_HEAD, title=f"compare: FLOPs by family (run on {c.run}; fvcore's MACs x 2)",
                  title_justify="left")
        t.add_column("family", no_wrap=True)
        t.add_column("floorcalc", justify="right", no_wrap=True)
        for o in c.oracles:
            t.add_column(o.name, justify="right", no_wrap=True)
        for f in FAMILIES:
            t.add_row(f, si(c.floorcalc.get(f, 0)),
                      *[si(o.by_family.get(f, 0)) if o.ran else "-" for o in c.oracles])
        t.add_row("total", si(sum(c.floorcalc.values())), *[si(o.total) if o.ran else "not run" for o in c.oracles])
        console.print(t)
        if c.explanations:
            console.print(styled("differences:"))
            for e in c.explanations:
                console.print(styled("  - ", plain(e)))


def to_document(r: CountReport) -> CountDocument:
    """The count report as its document record (floorcalc.records.documents.CountDocument)."""
    c = r.comparison
    compare = None
    if c is not None:
        compare = CountCompareDocument(
            run=c.run, floorcalc={**{str(k): v for k, v in c.floorcalc.items()}, "total": sum(c.floorcalc.values())},
            gemm_only=c.gemm_only,
            attention_full=c.attention_full,
            oracles=tuple(OracleDocument(name=o.name, ran=o.ran, note=o.note, total=o.total if o.ran else None,
                                         by_family=o.by_family, by_op=o.by_op, unsupported=o.unsupported)
                          for o in c.oracles),
            explanations=c.explanations)
    return CountDocument(
        schema=SCHEMA, schema_version=SCHEMA_VERSION, tool_version=__version__, command=r.command,
        model_file=r.model_file, run=r.run, dtypes=r.dtypes, notice=r.notice, depth=r.depth,
        totals=CountTotals(flop=r.flop, bytes=r.bytes, params=r.params, param_bytes=r.param_bytes,
                           intensity_flop_per_byte=r.intensity, calls=r.calls, uncounted_calls=r.uncounted_calls,
                           lower_bound=bool(r.uncounted)),
        by_family=r.by_family,
        modules=tuple(CountModule(path=m.path, depth=m.depth, calls=m.calls, flop=m.flop, bytes=m.bytes,
                                  params=m.params, intensity_flop_per_byte=m.intensity,
                                  uncounted_calls=m.uncounted_calls) for m in r.modules),
        ops=r.ops, uncounted=r.uncounted, compare=compare)


def to_dict(r: CountReport) -> Dict[str, Any]:
    """The JSON document of a count report (schema ``floorcalc.count`` version 1; :func:`to_document`
    written by floorcalc.util.codec)."""
    return typing.cast(Dict[str, Any], encode(to_document(r)))


def loads(text: Union[str, bytes], name: str = "<text>") -> CountDocument:
    """The count document in the JSON ``text`` (what :func:`dumps` writes), decoded and checked
    by floorcalc.util.codec. Raises :class:`~floorcalc.util.errors.ReportFileError` (exit code 6)
    naming ``name`` and the key."""
    return read_document(CountDocument, text, "count", name)


def dumps(r: CountReport) -> str:
    return json.dumps(to_dict(r), indent=1) + "\n"


class CountJsonRenderer(Renderer):
    """Render a count report as JSON (schema ``floorcalc.count``, docs/counting.md)."""

    def render(self, r: CountReport) -> str:
        return dumps(r)
