"""Side-by-side rendering of one step run in several execution modes (eager, compile,
cuda-graphs): ``floorcalc report MODEL.py --modes eager,compile,cuda-graphs``.

Per mode, per pass: the step timed without the profiler, GPU busy time, the sum of floors,
counted FLOPs and bytes, MFU and MBU (over the bare wall time), the share of the profiled wall
time the device sat idle while the host launched or ran Python (host overhead), and the
uncounted share. Each mode's full report is in the JSON (floorcalc.records.documents.ModesDocument,
docs/schema/modes.schema.json; :func:`loads` reads it back checked).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from floorcalc.analysis.notes import QUICK_NOTE
from floorcalc.records import Report
from floorcalc.records.documents import ModeReport, ModesDocument, ModeSummary
from floorcalc.util.codec import encode, read_document
from floorcalc.render.base import Renderer, captured
from floorcalc.render.figures import format_us

#: the document ``report --modes`` renders: (mode, its report), in the order run
ModeReports = Sequence[Tuple[str, Report]]


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def host_overhead_share(r: Report) -> Optional[float]:
    """Host overhead over the profiled wall time, from the latency decomposition (or None)."""
    t = r.timeline
    d = getattr(t, "decomposition", None) if t is not None else None
    if d is None or not d.wall_us:
        return None
    return d.host_overhead_us / d.wall_us


def rows(reports: Sequence[Tuple[str, Report]]):
    """(mode, bare us, GPU busy us, floor us, FLOP, bytes, MFU, MBU, host overhead, uncounted)."""
    out = []
    for mode, r in reports:
        s = r.summary
        out.append((mode, s.bare_wall_us, s.gpu_busy_us, s.floor_us, s.flop, s.bytes, s.mfu, s.mbu,
                    host_overhead_share(r), s.uncounted_share))
    return out


def render_table(reports: Sequence[Tuple[str, Report]], console=None) -> None:
    from floorcalc.render.terminal import PlainTable, make_console, plain

    console = console or make_console()
    t = PlainTable(title="the same step in each mode, per pass", title_justify="left")
    for col in ("mode", "step us\n(no profiler)", "GPU busy\nus", "floor\nus", "counted\nGFLOP", "counted\nMB",
                "MFU", "MBU", "host\noverhead", "uncounted"):
        t.add_column(col, justify="right" if col != "mode" else "left", no_wrap=True)
    for mode, bare, busy, floor, flop, nbytes, mfu, mbu, host, unc in rows(reports):
        t.add_row(mode, format_us(bare), format_us(busy) if dict(reports)[mode].target == "cuda" else "-",
                  format_us(floor), f"{flop / 1e9:.3f}", f"{nbytes / 1e6:.2f}", _pct(mfu), _pct(mbu), _pct(host),
                  _pct(unc))
    console.print(t)
    console.print(plain("step us: the step timed without the profiler; MFU/MBU over it; host overhead: share of the "
                        "profiled wall time the device was idle while the host launched or ran Python; the traces: "
                        + ", ".join(f"{m}: {r.capture.trace}" for m, r in reports), style="dim"))
    # a quick capture's note (what it left out) is said here too: the table shows no other note
    quick = [(m, n.text) for m, r in reports for n in r.notes if n.text.startswith(QUICK_NOTE)]
    if len({t for _, t in quick}) == 1:
        console.print(plain(f"note: {quick[0][1]}" + ("" if len(quick) == len(reports) else
                                                      f" (modes {', '.join(m for m, _ in quick)})")))
    else:
        for m, text in quick:
            console.print(plain(f"note ({m}): {text}"))


class ModesTableRenderer(Renderer):
    """The modes side by side in one rich table (:func:`render_table`). ``width``: console
    width (None: the terminal's on standard output, 160 in a file)."""

    def __init__(self, width: Optional[int] = None) -> None:
        self.width = width

    def render(self, reports: ModeReports) -> str:
        return captured(lambda console: render_table(reports, console), self.width)

    def render_terminal(self, reports: ModeReports) -> str:
        return captured(lambda console: render_table(reports, console), self.width, terminal=True)


class ModesJsonRenderer(Renderer):
    """Every mode's full report (docs/json-schema.md) under ``modes``, with its host overhead
    share added to its summary (:func:`dumps`)."""

    def render(self, reports: ModeReports) -> str:
        return dumps(reports)


def _fields(record: Any) -> Dict[str, Any]:
    """A record's fields by name, as they are (not copied)."""
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}


def to_document(reports: Sequence[Tuple[str, Report]]) -> ModesDocument:
    """Every mode's report as its document record (floorcalc.records.documents.ModesDocument):
    each mode's ReportDocument, its summary with the host overhead share added."""
    from floorcalc.render.jsonfmt import to_document as report_document

    modes: Dict[str, ModeReport] = {}
    for mode, r in reports:
        d = report_document(r)
        summary = ModeSummary(**_fields(d.summary), host_overhead_share=host_overhead_share(r))
        modes[mode] = ModeReport(**{**_fields(d), "summary": summary})
    return ModesDocument(schema_version=1, modes=modes)


def dumps(reports: Sequence[Tuple[str, Report]]) -> str:
    """The modes document as indented JSON text (:func:`to_document`, written by floorcalc.util.codec)."""
    return json.dumps(encode(to_document(reports)), indent=1, allow_nan=False) + "\n"


def loads(text: Union[str, bytes], name: str = "<text>") -> ModesDocument:
    """The modes document in the JSON ``text`` (what :func:`dumps` writes), decoded and checked
    by floorcalc.util.codec. Raises :class:`~floorcalc.util.errors.ReportFileError` (exit code
    6) naming ``name`` and the key."""
    return read_document(ModesDocument, text, "modes", name)
