"""Rendering a run of several ranks (:class:`~floorcalc.records.RunReport`): the cross-rank
table, the collectives, the longest waits and what the late ranks were doing.

One function gives the rows every format shares (:func:`rank_dict`, :func:`collective_dict`,
:func:`instance_dict`; their keys are the JSON keys of docs/json-schema.md, "Runs"); each format
is a :class:`~floorcalc.render.base.Renderer` of its own, registered as the ``run`` document in
floorcalc.render.registry: :class:`RunTableRenderer` (terminal, rich), :class:`RunJsonRenderer`
(with each rank's own report), :class:`RunCsvRenderer` (three files), :class:`RunMarkdownRenderer`,
:class:`RunLatexRenderer` (booktabs); :class:`RunPlot` draws each rank's decomposition as a bar
(``--plot``). Figures are per pass; times in microseconds.
"""

from __future__ import annotations

import dataclasses
import io
import json
import typing
import zlib
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from floorcalc.records import (CollectiveInstance, CollectiveRow, Decomposition, LateRank, RankReports, RankSummary,
                               Report, ReportPiece, RunReport, record_builder)
from floorcalc.records.documents import (InstanceDocument, LateDocument, RankDocument, RankParts, RunDocument, TimeOn,
                                         ToolInfo, WaitDocument)
from floorcalc.util.codec import encode, read_document
from floorcalc.render.base import FileData, Renderer, captured
from floorcalc.render.figures import format_us

#: The decomposition parts of a rank, in display order: (attribute, label).
PARTS = (("floor_us", "hardware floor"), ("excess_us", "kernel excess"), ("data_movement_us", "data movement"),
         ("communication_us", "communication"), ("peer_wait_us", "waiting on peers"),
         ("host_overhead_us", "host overhead"), ("blocking_us", "blocking"), ("other_us", "other"))


def _size(n: Optional[float]) -> str:
    if n is None:
        return "-"
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= k:
            return f"{n / k:.4g} {unit}"
    return f"{n:.0f} B"


def op_label(kind: str, group: str, ranks: Optional[int] = None) -> str:
    """``all_reduce x8 (group 1)``, ``send/recv x2``: the operation, its ranks when given, and
    its process group unless it is the default one ("" or "0")."""
    k = "send/recv" if kind in ("send", "recv") else kind
    return k + (f" x{ranks}" if ranks else "") + (f" (group {group})" if group not in ("", "0") else "")


def _signed(extra: Sequence[Tuple[str, float]]) -> str:
    """``host launch in aten::mm +86.0; GPU: aten::matmul -10.0`` (us, signed)."""
    return "; ".join(f"{a} {format_us(v, signed=True)}" for a, v in extra)


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def decomposition_parts(d: Optional[Decomposition]) -> Dict[str, Optional[float]]:
    return {attr: (getattr(d, attr) if d is not None else None) for attr, _ in PARTS}


#: TimeOn(what, us) without the frozen __init__'s cost (a run writes one per activity of every
#: collective instance: 13 for each of 12,500 instances of a rank is 160k)
_TIME_ON = record_builder(TimeOn, ("what", "us"))
_INSTANCE = record_builder(InstanceDocument, tuple(f.name for f in dataclasses.fields(InstanceDocument)))


def _time_on(pairs: Sequence[Tuple[str, float]]) -> Tuple[TimeOn, ...]:
    return tuple([_TIME_ON(a, v) for a, v in pairs])


def rank_document(r: RankSummary) -> RankDocument:
    """One rank's row of the document."""
    d = r.decomposition
    return RankDocument(
        rank=r.rank, path=r.path, status=r.status, problem=r.problem or None, passes=r.passes, wall_us=r.wall_us,
        busy_us=r.busy_us, floor_us=r.floor_us, comm_us=r.comm_us, hidden_us=r.hidden_us, transfer_us=r.transfer_us,
        peer_wait_us=r.peer_wait_us, waited_on=r.waited_on, waited_on_us=r.waited_on_us,
        clock_offset_us=r.clock_offset_us, collectives=r.collectives, bound=d.bound if d is not None else None,
        decomposition=RankParts(**decomposition_parts(d)) if d is not None else None,
        waits=tuple(WaitDocument(peer=w.peer, wait_us=w.wait_us, instances=w.instances, activity=_time_on(w.activity),
                                 extra=_time_on(w.extra)) for w in r.waits))


def rank_dict(r: RankSummary) -> Dict[str, Any]:
    """One rank's row (JSON keys)."""
    return typing.cast(Dict[str, Any], encode(rank_document(r)))


def collective_dict(c: CollectiveRow) -> Dict[str, Any]:
    """One row of ``collectives`` (``CollectiveRow.__json_layout__``)."""
    return typing.cast(Dict[str, Any], encode(c))


def instance_document(i: CollectiveInstance) -> InstanceDocument:
    """One instance of ``instances`` (InstanceDocument's fields in order, built by record_builder)."""
    return _INSTANCE(i.group, i.kind, i.ordinal, i.seq, i.ranks, i.arrival_us, i.duration_us, i.waits_us, i.late_rank,
                     i.skew_us, i.transfer_us, i.message_bytes, i.link_bytes, i.floor_us, i.efficiency,
                     _time_on(i.late_activity), _time_on(i.late_extra))


def instance_dict(i: CollectiveInstance) -> Dict[str, Any]:
    return typing.cast(Dict[str, Any], encode(instance_document(i)))


def late_document(v: LateRank) -> LateDocument:
    return LateDocument(rank=v.rank, group=v.group, kind=v.kind, position=v.position, per_pass=v.per_pass,
                        passes=v.passes, min_skew_us=v.min_skew_us, median_skew_us=v.median_skew_us, share=v.share,
                        waiting=v.waiting, activity=_time_on(v.activity), extra=_time_on(v.extra))


def late_dict(v: LateRank) -> Dict[str, Any]:
    return typing.cast(Dict[str, Any], encode(late_document(v)))


def to_document(run: RunReport, reports: bool = True) -> RunDocument:
    """The run as its document record (floorcalc.records.documents.RunDocument); ``reports``:
    with each readable rank's own report (a ReportDocument, by rank)."""
    from floorcalc.render.jsonfmt import device_document
    from floorcalc.render.jsonfmt import to_document as report_document

    return RunDocument(
        schema_version=1, kind="run", tool=ToolInfo(name="floorcalc", version=run.tool_version), command=run.command,
        world_size=run.world_size, device=device_document(run.device) if run.device is not None else None,
        reference_rank=run.reference_rank, clock=run.clock, partial=run.partial or None,
        ranks=tuple(rank_document(r) for r in run.ranks), collectives=run.collectives,
        instances=tuple(instance_document(i) for i in run.instances), instance_count=run.instance_count,
        unmatched=run.unmatched, late=tuple(late_document(v) for v in run.late), notes=run.notes,
        reports={k: report_document(v) for k, v in sorted(run.reports.items())} if reports else {})


def to_dict(run: RunReport, reports: bool = True) -> Dict[str, Any]:
    """The run as a JSON-ready dict (:func:`to_document`, written by floorcalc.util.codec)."""
    return typing.cast(Dict[str, Any], encode(to_document(run, reports)))


def loads(text: Union[str, bytes], name: str = "<text>") -> RunDocument:
    """The run document in the JSON ``text`` (what :func:`dumps` writes), decoded and checked by
    floorcalc.util.codec: every key by its field's type and range. Raises
    :class:`~floorcalc.util.errors.ReportFileError` (exit code 6) naming ``name`` and the key."""
    return read_document(RunDocument, text, "run", name, kind="run")


#: orjson's options for a run's document: indented 2 a level (one newline at the end of the document)
_INDENT = 2
#: how deep a rank's report lies in the run's document (``{"reports": {"<rank>": {...``): its
#: lines after the first are indented this much more than the report's own document
_PIECE_INDENT = b" " * (2 * _INDENT)


def report_piece(report: Report) -> bytes:
    """One rank's report as the run's document holds it under ``reports``: its document
    (floorcalc.render.jsonfmt.to_document) as orjson writes it two levels deep, UTF-8, not
    compressed (floorcalc.records.ReportPiece holds it compressed). orjson writes a newline in a
    string as ``\\n``, so every newline of its output starts a line of the layout."""
    import orjson

    from floorcalc.render.jsonfmt import to_document as report_document

    text = orjson.dumps(encode(report_document(report)), default=str, option=orjson.OPT_INDENT_2)
    return text.replace(b"\n", b"\n" + _PIECE_INDENT)


def make_piece(report: Report, paths_base: Optional[str] = None) -> ReportPiece:
    """:func:`report_piece`, zlib-compressed (:func:`compress`), as a
    :class:`~floorcalc.records.ReportPiece`; ``paths_base``: the folder the report's paths were
    made relative to, None when they were not (floorcalc.util.sharing)."""
    return ReportPiece(data=compress(report_piece(report)), paths_base=paths_base, device=report.device,
                       reference=report.reference)


def compress(data: bytes) -> bytes:
    """``data`` in zlib's format at level 1: by ISA-L where it is installed (python-isal, as the
    trace reader decompresses: a rank's 2.3 MB report of benchmarks/run_scale.py in 0.4 ms CPU,
    to 66 KB; zlib's own took 4.2 ms, to 98 KB), else by zlib. Either is read back by
    :func:`decompress` (and by ``zlib.decompress``)."""
    try:
        from isal import isal_zlib
    except ImportError:
        return zlib.compress(data, 1)
    return bytes(isal_zlib.compress(data, 1))


def decompress(data: bytes) -> bytes:
    """What :func:`compress` compressed (any zlib stream): by ISA-L where installed, else zlib."""
    try:
        from isal import isal_zlib
    except ImportError:
        return zlib.decompress(data)
    return bytes(isal_zlib.decompress(data))


def read_piece(piece: ReportPiece) -> Report:
    """The :class:`~floorcalc.records.Report` a piece holds, read back as a report's JSON is
    (floorcalc.render.jsonread.loads: no work units, no window; of its collectives' timings the
    longest, as the JSON lists them), with the piece's specs as they were. Raises
    :class:`~floorcalc.util.errors.ReportFileError` for a piece that is not a report's JSON."""
    from floorcalc.render.jsonread import loads as read_report

    report = read_report(decompress(piece.data), name="a rank's report in the run")
    if piece.device is not None:
        report = dataclasses.replace(report, device=piece.device, reference=piece.reference)
    return report


def rank_reports(pieces: Mapping[int, ReportPiece]) -> RankReports:
    """The run's reports by rank, kept as their pieces (:class:`~floorcalc.records.RankReports`,
    read back by :func:`read_piece` when asked for)."""
    return RankReports(pieces, read_piece)


def json_chunks(run: RunReport) -> Iterator[bytes]:
    """The run's JSON document (:func:`dumps_bytes`) in pieces: everything before its
    ``reports``, then each rank's report (its piece decompressed, when ``run.reports`` is a
    :class:`~floorcalc.records.RankReports`; else its document encoded), then the end, so that a
    file gets the document without it being held whole."""
    import orjson

    head = orjson.dumps(to_dict(run, reports=False), default=str, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    if not run.reports:
        yield head
        return
    empty = b"{}\n}\n"
    assert head.endswith(b'"reports": ' + empty)
    yield head[: -len(empty)] + b"{\n"
    pieces = run.reports.pieces if isinstance(run.reports, RankReports) else None
    keys = sorted(run.reports)
    for n, k in enumerate(keys):
        body = decompress(pieces[k].data) if pieces is not None else report_piece(run.reports[k])
        yield b'    "%d": ' % k + body + (b",\n" if n + 1 < len(keys) else b"\n")
    yield b"  }\n}\n"


def dumps_bytes(run: RunReport) -> bytes:
    """The run as indented JSON, UTF-8 bytes (:func:`json_chunks` joined). orjson, not the json
    module: with an indent the standard encoder runs in Python, and a run of 4 ranks of 100k
    events (12,500 collectives each, every instance and lead-in in the document) took 14.7 s of
    its 54 s there (cProfile, 2026-12-01)."""
    return b"".join(json_chunks(run))


def dumps(run: RunReport) -> str:
    """The run as indented JSON text (:func:`dumps_bytes`, decoded)."""
    return dumps_bytes(run).decode()


class RunJsonRenderer(Renderer):
    """The run as JSON (docs/json-schema.md, "Runs"; docs/schema/run.schema.json). A file gets
    orjson's bytes as they are (:meth:`files`), not text decoded from them and encoded again;
    the CLI writes it as it is made (:meth:`streams`: :func:`json_chunks`): the JSON of a run
    holds every rank's own report (145 MB for 64 ranks of 83,543 events,
    benchmarks/run_scale.py), kept compressed until then (floorcalc.records.RankReports)."""

    def render(self, run: RunReport) -> str:
        return dumps(run)

    def files(self, run: RunReport, path: Path) -> Mapping[Path, FileData]:
        return {path: dumps_bytes(run)}

    def streams(self, run: RunReport, path: Path) -> Mapping[Path, Union[FileData, Iterable[bytes]]]:
        return {path: json_chunks(run)}


def _waiter_line(r: RankSummary) -> str:
    if not r.waits:
        return "-"
    w = r.waits[0]
    return f"rank {w.peer} ({format_us(w.wait_us)})"


# ---------------------------------------------------------------------------------------------
# terminal


class RunTableRenderer(Renderer):
    """The run as rich tables: ranks, collectives, the longest waits, what the late ranks did.

    ``top``: rows of the collectives and waits tables; ``rank``: also print that rank's own
    report after the run's tables (None: none); ``width``: the page width of :meth:`render`
    (the terminal's for :meth:`render_terminal`).
    """

    def __init__(self, top: int = 10, rank: Optional[int] = None, width: Optional[int] = None) -> None:
        self.top = top
        self.rank = rank
        self.width = width

    def render(self, run: RunReport) -> str:
        return captured(lambda c: self.print(run, c), width=self.width)

    def render_terminal(self, run: RunReport) -> str:
        return captured(lambda c: self.print(run, c), width=self.width, terminal=True)

    def print(self, run: RunReport, console: Any) -> None:
        """Print the tables on a rich Console."""
        from rich import box
        from rich.text import Text

        from floorcalc.render.terminal import PlainTable as Table
        from floorcalc.render.terminal import plain, styled

        dev = f"{run.device.name} ({run.device.key})" if run.device is not None else "-"
        console.print(styled((f"floorcalc {run.tool_version}", "bold"), f"  run of {run.world_size} ranks  device: ",
                             plain(dev)))
        if run.partial:
            console.print(styled(("PARTIAL:", "bold red"), " ", plain(run.partial)))
        console.print()  # a blank line between sections (a table ends with one of its own)
        wide, narrow = console.width >= 140, console.width < 110
        t = Table(box=box.SIMPLE_HEAD, title="ranks, per pass (us)", title_justify="left")
        cols = [("rank", "right"), ("status", "left"), ("wall", "right")]
        cols += [("busy", "right"), ("floor", "right")] if wide else []
        cols += [("collec-\ntives", "right"), ("hidden", "right")] if not narrow else []
        cols += [("transfer", "right"), ("waiting\non peers", "right"), ("waited on\nmost (us)", "left"),
                 ("bound", "left")]
        cols += [("clock offset", "right")] if wide else []
        for col, just in cols:
            t.add_column(col, justify=just, no_wrap=True)  # type: ignore[arg-type]
        for r in run.ranks:
            if r.status in ("missing", "unreadable"):
                t.add_row(str(r.rank), Text(r.status, style="red"), *["-"] * (len(cols) - 2))
                continue
            cells: List[Any] = [str(r.rank), Text(r.status, style="yellow" if r.status == "partial" else ""),
                                format_us(r.wall_us)]
            cells += [format_us(r.busy_us), format_us(r.floor_us)] if wide else []
            cells += [format_us(r.comm_us), format_us(r.hidden_us)] if not narrow else []
            cells += [format_us(r.transfer_us), format_us(r.peer_wait_us), _waiter_line(r),
                      r.decomposition.bound if r.decomposition is not None else "-"]
            cells += [("+" if r.clock_offset_us >= 0 else "") + format_us(r.clock_offset_us)] if wide else []
            t.add_row(*cells)
        console.print(t)
        problems = [r for r in run.ranks if r.status in ("missing", "unreadable", "partial") and r.problem]
        for r in problems:
            console.print(styled(f"  rank {r.rank} {r.status}: ", plain(r.problem)), style="dim")
        if problems:
            console.print()
        if run.collectives:
            ct = Table(box=box.SIMPLE_HEAD, title="collectives, per pass (us; measured: the longest rank's time)",
                       title_justify="left")
            ccols = ["op", "size"] + (["calls", "measured"] if not narrow else []) + ["transfer", "floor", "eff"]
            ccols += ["skew"] if not narrow else []
            ccols += ["skew max", "waits"] if wide else []
            ccols += ["late rank"]
            for col in ccols:
                ct.add_column(col, justify="left" if col in ("group", "op", "late rank") else "right", no_wrap=True)
            for c in run.collectives[: self.top]:
                late = f"{c.late_rank} ({c.late_share:.0%})" if c.late_rank is not None else "-"
                row: List[Any] = [op_label(c.kind, c.group, c.ranks), _size(c.message_bytes)]
                row += [f"{c.calls:g}", format_us(c.measured_us)] if not narrow else []
                row += [format_us(c.transfer_us), format_us(c.floor_us), _pct(c.efficiency)]
                row += [format_us(c.skew_us)] if not narrow else []
                row += [format_us(c.max_skew_us), format_us(c.wait_us)] if wide else []
                ct.add_row(*row, late)
            console.print(ct)
        waits = [i for i in run.instances if max(i.waits_us, default=0.0) > 0]
        if waits:
            wt = Table(box=box.SIMPLE_HEAD, title=f"longest waits (of {run.instance_count:,} collectives matched)",
                       title_justify="left")
            with_why = any(i.late_extra for i in waits[: self.top])
            wcols = ["collective", "late\nrank", "skew", "transfer", "floor", "the late rank was doing (us)"]
            wcols += ["beside the first rank, since\ntheir previous collective (us)"] if with_why else []
            for col in wcols:
                wt.add_column(col, justify="left" if col[0] in "ctb" and col != "transfer" else "right",
                              no_wrap=not col.startswith(("the", "beside")))
            for i in waits[: self.top]:
                doing = "; ".join(f"{a} {format_us(v)}" for a, v in i.late_activity[:3])
                cells = [f"{op_label(i.kind, i.group)} #{i.ordinal}", str(i.late_rank), format_us(i.skew_us),
                         format_us(i.transfer_us), format_us(i.floor_us), doing]
                cells += [_signed(i.late_extra)] if with_why else []
                wt.add_row(*cells)
            console.print(wt)
        self._decompositions(run, console)
        waited = False
        for r in run.ranks:
            for w in r.waits[:2]:
                waited = True
                doing = "; ".join(f"{a} {format_us(v)} us" for a, v in w.activity[:4])
                why = (f"; per collective, since their previous one, rank {w.peer} spent beside rank {r.rank}: "
                       + ", ".join(f"{a} {format_us(v, signed=True)} us" for a, v in w.extra)
                       if w.extra else "")
                console.print(styled(f"rank {r.rank} waited {format_us(w.wait_us)} us per pass on rank {w.peer} "
                                     f"({w.instances} collectives); rank {w.peer} was doing: ", plain(doing + why)))
        if waited:
            console.print()
        for note in run.notes:
            console.print(styled("note: ", plain(note)), style="dim")
        if self.rank is not None:
            rep = run.reports.get(self.rank)
            if rep is None:
                console.print(styled((f"rank {self.rank} has no report", "red")))
            else:
                from floorcalc.render.table import TableRenderer

                console.rule(f"rank {self.rank}")
                TableRenderer(top=25).print(rep, console)

    @staticmethod
    def _decompositions(run: RunReport, console: Any) -> None:
        from rich.text import Text

        from floorcalc.render.timeline_table import bar
        from floorcalc.render.timeline_table import PARTS as TPARTS

        ranks = [r for r in run.ranks if r.decomposition is not None]
        if not ranks:
            return
        console.print(Text("where each rank's time goes, per pass", style="bold"))
        width = max(20, min(60, console.width - 40))
        for r in ranks:
            d = r.decomposition
            assert d is not None
            console.print(Text(f"  rank {r.rank:>3} ") + bar(d, width) + Text(f" {format_us(d.wall_us)} us, {d.bound}"))
        legend = Text("  ")
        for _attr, label, glyph, style, _what in TPARTS:
            legend.append(glyph, style=style)
            legend.append(f" {label}  ")
        console.print(legend)
        console.print()


# ---------------------------------------------------------------------------------------------
# csv, markdown, latex


def csv_paths(path: Path) -> Dict[str, Path]:
    """The files ``-o path`` writes for a run: ``ranks`` (path), ``collectives``, ``instances``."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return {"ranks": path, "collectives": path.with_name(f"{stem}.collectives.csv"),
            "instances": path.with_name(f"{stem}.instances.csv")}


def _flat_rank(r: RankSummary) -> Dict[str, Any]:
    d = rank_dict(r)
    parts = d.pop("decomposition") or {}
    waits = d.pop("waits")
    d.update({f"decomposition.{k}": v for k, v in parts.items()})
    d["waited_on_doing"] = "; ".join(f"{a['what']} {a['us']:.1f} us" for a in waits[0]["activity"]) if waits else ""
    d["waited_on_extra"] = "; ".join(f"{a['what']} {a['us']:+.1f} us" for a in waits[0]["extra"]) if waits else ""
    return d


class RunCsvRenderer(Renderer):
    """The run as CSV: :meth:`render` is the ranks table (with their decomposition); ``-o``
    writes it, the collectives and the instances, one file each (:func:`csv_paths`)."""

    def render(self, run: RunReport) -> str:
        return self.ranks(run)

    def paths(self, path: Path) -> List[Path]:
        return list(csv_paths(path).values())

    def _table(self, rows: Sequence[Dict[str, Any]]) -> str:
        import csv

        buf = io.StringIO()
        if not rows:
            return ""
        w = csv.writer(buf, lineterminator="\n")
        cols = list(rows[0].keys())
        w.writerow(cols)
        for r in rows:
            w.writerow(["" if r.get(c) is None else (json.dumps(r[c]) if isinstance(r[c], (list, dict)) else r[c])
                        for c in cols])
        return buf.getvalue()

    def ranks(self, run: RunReport) -> str:
        return self._table([_flat_rank(r) for r in run.ranks])

    def files(self, run: RunReport, path: Path) -> Mapping[Path, FileData]:
        p = csv_paths(path)
        return {p["ranks"]: self.ranks(run),
                p["collectives"]: self._table([collective_dict(c) for c in run.collectives]) or "group\n",
                p["instances"]: self._table([instance_dict(i) for i in run.instances]) or "group\n"}


class RunMarkdownRenderer(Renderer):
    """The run as Markdown tables (ranks, collectives, longest waits) and its notes."""

    def __init__(self, top: int = 10) -> None:
        self.top = top

    def render(self, run: RunReport) -> str:
        from floorcalc.render.markdown import _cell, _table

        dev = f"{run.device.name} (`{run.device.key}`)" if run.device is not None else "-"
        out = [f"**floorcalc {run.tool_version}**, run of {run.world_size} ranks on {dev}; per pass, microseconds", ""]
        if run.partial:
            out += [f"**PARTIAL:** {_cell(run.partial)}", ""]
        rows = []
        for r in run.ranks:
            times = (r.wall_us, r.busy_us, r.floor_us, r.comm_us, r.hidden_us, r.transfer_us, r.peer_wait_us)
            rows.append([str(r.rank), r.status, *map(format_us, times), _cell(_waiter_line(r)),
                         r.decomposition.bound if r.decomposition is not None else "-"])
        out += _table(["rank", "status", "wall", "busy", "floor", "collectives", "hidden", "transfer",
                       "waiting on peers", "waited on most", "bound"], "rlrrrrrrrll", rows) + [""]
        if run.collectives:
            rows = [[c.group or "(default)", "send/recv" if c.kind == "send" else c.kind, str(c.ranks),
                     _size(c.message_bytes), f"{c.calls:g}", format_us(c.measured_us), format_us(c.transfer_us),
                     format_us(c.floor_us), _pct(c.efficiency), format_us(c.skew_us), format_us(c.wait_us),
                     f"{c.late_rank} ({c.late_share:.0%})" if c.late_rank is not None else "-"]
                    for c in run.collectives[: self.top]]
            out += _table(["group", "op", "ranks", "size", "calls", "measured", "transfer", "floor", "eff", "skew",
                           "waits", "late rank"], "lllrrrrrrrrl", rows) + [""]
        waits = [i for i in run.instances if max(i.waits_us, default=0.0) > 0][: self.top]
        if waits:
            rows = [[f"{op_label(i.kind, i.group)} #{i.ordinal}", str(i.late_rank), format_us(i.skew_us),
                     format_us(i.transfer_us), format_us(i.floor_us),
                     _cell(", ".join(f"{a} {format_us(v)}" for a, v in i.late_activity[:3])),
                     _cell(_signed(i.late_extra).replace("; ", ", "))] for i in waits]
            out += _table(["collective", "late rank", "skew", "transfer", "floor", "the late rank was doing",
                           "beside the first rank, since their previous collective"], "lrrrrll", rows) + [""]
        out += [f"- {_cell(n)}" for n in run.notes]
        return "\n".join(out) + "\n"


class RunLatexRenderer(Renderer):
    """The cross-rank table as a booktabs ``table`` (per pass, microseconds)."""

    def __init__(self, label: str = "tab:floorcalc-run") -> None:
        self.label = label

    def render(self, run: RunReport) -> str:
        from floorcalc.render.latex import _num, escape

        dev = escape(run.device.name) if run.device is not None else "--"
        out = [f"% floorcalc {run.tool_version}; needs \\usepackage{{booktabs}}", "\\begin{table}[htbp]",
               "\\centering", "\\small",
               f"\\caption{{Where each of {run.world_size} ranks spends a pass on the {dev}: "
               "waiting on peers told apart from communication ($\\mu$s per pass).}",
               f"\\label{{{self.label}}}", "\\begin{tabular}{@{}rrrrrrrl@{}}", "\\toprule",
               "Rank & Wall & Busy & Floor & Transfer & Hidden & Waiting & Waited on \\\\", "\\midrule"]
        for r in run.ranks:
            if r.status in ("missing", "unreadable"):
                out.append(f"{r.rank} & \\multicolumn{{7}}{{l}}{{{escape(r.status)}}} \\\\")
                continue
            waited = f"rank {r.waited_on}" if r.waited_on is not None else "--"
            out.append(" & ".join([str(r.rank) + ("$^{*}$" if r.status == "partial" else ""), _num(r.wall_us),
                                   _num(r.busy_us), _num(r.floor_us), _num(r.transfer_us), _num(r.hidden_us),
                                   _num(r.peer_wait_us), waited]) + " \\\\")
        out += ["\\bottomrule", "\\end{tabular}", "", "\\smallskip",
                "\\begin{minipage}{\\linewidth}\\footnotesize\\raggedright",
                "\\textit{Note:} transfer: collective time once the last rank had arrived; waiting: exposed "
                "collective time before it (on clocks aligned on collective end times); hidden: collective time "
                "under compute. Collective floors: link bytes by nccl-tests' bus-bandwidth factors over the link "
                "bandwidth, plus the collective latency."
                + (" $^{*}$Trace cut short." if any(r.status == "partial" for r in run.ranks) else ""),
                "\\end{minipage}", "\\end{table}"]
        return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# plot


class RunPlot:
    """Each rank's pass as one horizontal bar split into its decomposition parts (per pass).
    ValueError when no rank has a decomposition (a CPU run): nothing to draw."""

    COLOURS = {"floor_us": "#009E73", "excess_us": "#F0E442", "data_movement_us": "#56B4E9",
               "communication_us": "#0072B2", "peer_wait_us": "#D55E00", "host_overhead_us": "#CC79A7",
               "blocking_us": "#E69F00", "other_us": "0.7"}

    def render(self, run: RunReport, fmt: str = "png") -> bytes:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        matplotlib.rcParams["svg.hashsalt"] = "floorcalc"
        ranks = [r for r in run.ranks if r.decomposition is not None]
        if not ranks:  # never an empty picture
            raise ValueError("no rank has a device timeline to split (a CPU run, or no GPU work in the window)")
        fig = Figure(figsize=(9.0, 1.6 + 0.32 * max(len(ranks), 1)), dpi=150)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.09, 0.3, 0.88, 0.58))
        for y, r in enumerate(ranks):
            d = r.decomposition
            assert d is not None
            left = 0.0
            for attr, label in PARTS:
                v = max(getattr(d, attr), 0.0)
                ax.barh(y, v, left=left, color=self.COLOURS[attr], edgecolor="white", linewidth=0.4,
                        label=label if y == 0 else None)
                left += v
        ax.set_yticks(range(len(ranks)), [f"rank {r.rank}" for r in ranks])
        ax.invert_yaxis()
        ax.set_xlabel("microseconds per pass")
        dev = run.device.name if run.device is not None else ""
        ax.set_title(f"Where each rank's pass goes ({run.world_size} ranks{', ' + dev if dev else ''})",
                     fontsize=10, loc="left")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=4, fontsize=7.5, frameon=False)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, metadata={"Software": None} if fmt == "png" else None)
        return buf.getvalue()
