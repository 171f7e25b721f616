"""Read a report of schema version 1 (what floorcalc wrote before its documents went through
floorcalc.util.codec: the same keys, written by hand) back into a
:class:`~floorcalc.records.Report`, for reports written before (floorcalc.render.jsonread.loads
calls :func:`from_dict` for ``schema_version: 1``). Writing the report again gives version 2.

Steps of :func:`from_dict`:

1. Check the document has an ``ops`` list, a ``summary`` and a ``device`` object.
2. Build each record from its object. Where the JSON has a record's fields by name (op and
   kernel rows, the summary, the timeline's rows) they are taken by field name, checked
   against the field's type (numbers stay as written, so an integer stays an integer), and
   keys the record lacks are skipped (they are derived: ``floor_violation``, ``achieved_*``,
   ``uncounted_share``); where the layout differs (the device spec, the capture, the timeline's
   groups) the mapping is written out below.
3. What the document does not hold is rebuilt where it is a function of what it holds, and
   left empty otherwise: ``Summary.mfu_peak_key``/``mfu_peak_flop_per_s`` by
   :func:`floorcalc.classify.units.mfu_peak` from the ops and the device (the function the analysis
   used); a spec's ``origin`` from its ``source``; its ``nvml_names`` and ``details`` empty;
   ``Report.units`` and ``window`` empty; a capture's fields the JSON leaves out None.
   ``summary.floor_us``, ``flop`` and ``bytes``, null when no op was counted, read as 0.
   ``Report.grouping`` by :func:`floorcalc.classify.grouping.group_ops` from the ops, the way
   ``groups.by`` names (the default grouping for a report written before groups were). A
   note written as a plain string (before notes had a kind) reads as a ``note``.

Every problem is one :class:`~floorcalc.util.errors.ReportFileError` line (exit code 6) naming the
file and the key: ``report A (run.json): ops[3].duration_us is 'x', not a number``.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import typing
from typing import Any, Dict, Mapping, Optional, Tuple, Type, TypeVar, Union

from floorcalc.util.errors import ReportFileError
from floorcalc.records import (NO_SPEC_KEY, UNKNOWN_DTYPE, CaptureInfo, ColdStart, CollectiveCall, CollectiveTiming,
                               CopyRow, Decomposition, DeviceLane, DeviceSpec, Figure, Gap, GroupBy, HostWait, IdleRow, Implausible,
                               InvariantCheck, KernelRow, LaunchStats, MemoryStats, Note, OpRow, RangeRow,
                               Report, Summary, Timeline, WhatIf)

__all__ = ["SCHEMA_VERSION", "from_dict"]

#: The version of the documents this module reads.
SCHEMA_VERSION = 1

R = TypeVar("R")


class _Bad(Exception):
    """A problem at a key of the document (turned into one ReportFileError line by loads)."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}" if where else what)


def from_dict(data: Dict[str, Any], who: str) -> Report:
    """The report of a version-1 document ``data`` (already parsed, its ``tool.name`` checked by
    floorcalc.render.jsonread.loads); ``who`` names it in errors. Raises
    :class:`ReportFileError` naming the key."""
    for key, kind in (("ops", list), ("summary", dict), ("device", dict)):
        if not isinstance(data.get(key), kind):
            raise ReportFileError(f"{who} has no {key!r} {kind.__name__}: truncated or edited?")
    try:
        return _report(data)
    except _Bad as e:
        raise ReportFileError(f"{who}: {e}; not what floorcalc writes (truncated or edited?)") from None


# --------------------------------------------------------------------------------------------
# values checked against a field's type


_HINTS: Dict[Any, Dict[str, Any]] = {}


def _hints(cls: Any) -> Dict[str, Any]:
    """The resolved field types of a record class (cached: each class is read once)."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _value(hint: Any, v: Any, where: str) -> Any:
    """``v`` checked against the type ``hint``; lists become tuples where the field is a tuple,
    nested objects become records; numbers and strings are kept as they are."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any or hint is object:
        return v
    if origin is Union:
        if v is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        for a in options[:-1]:
            try:
                return _value(a, v, where)
            except _Bad:
                pass
        return _value(options[-1], v, where)  # its error is the one shown
    if origin is typing.Literal:
        if v not in args:
            raise _Bad(where, f"{_show(v)} is not one of {', '.join(map(str, args))}")
        return v
    if hint is bool:
        if not isinstance(v, bool):
            raise _Bad(where, f"{_show(v)} is not true or false")
        return v
    if hint in (int, float):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _Bad(where, f"{_show(v)}, not a number")
        return v
    if hint is str:
        if not isinstance(v, str):
            raise _Bad(where, f"{_show(v)}, not a string")
        return v
    if origin is tuple:
        if not isinstance(v, list):
            raise _Bad(where, f"{_show(v)}, not a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_value(args[0], x, f"{where}[{i}]") for i, x in enumerate(v))
        if len(v) != len(args):
            raise _Bad(where, f"{len(v)} items, not {len(args)}")
        return tuple(_value(a, x, f"{where}[{i}]") for i, (a, x) in enumerate(zip(args, v)))
    if origin in (dict, collections.abc.Mapping):
        if not isinstance(v, dict):
            raise _Bad(where, f"{_show(v)}, not an object")
        return {k: _value(args[1], x, f"{where}.{k}") for k, x in v.items()}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record(hint, v, where)
    raise _Bad(where, f"cannot read a {hint!r}")  # a field type this reader does not know: a bug here


#: the fields that floorcalc never writes below zero: times, counts, FLOPs, bytes, floors,
#: efficiencies, shares (a report with one is damaged; the profiler distortion and the
#: timeline's residuals and growths may be negative, and are not listed)
_NONNEGATIVE: Dict[type, Tuple[str, ...]] = {
    OpRow: ("calls", "kernels", "duration_us", "flop", "bytes", "compute_us", "memory_us", "overhead_us", "floor_us",
            "efficiency", "reference_floor_us", "reference_efficiency"),
    KernelRow: ("calls", "duration_us", "floor_us", "efficiency"),
    Summary: ("passes", "wall_us", "gpu_busy_us", "idle_us", "floor_us", "uncounted_us", "op_time_us", "flop", "bytes",
              "mfu", "mbu", "bare_wall_us", "unattributed_us", "reference_floor_us"),
}


def _record(cls: Type[R], obj: Any, where: str, **given: Any) -> R:
    """The record ``cls`` from the object ``obj``: each field from the key of its name (checked
    against its type, and for :data:`_NONNEGATIVE` fields against zero), ``given`` fields as
    they are; a field with a default may be missing."""
    if not isinstance(obj, dict):
        raise _Bad(where, f"{_show(obj)}, not an object")
    hints = _hints(cls)
    kwargs: Dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]  # cls is a dataclass
        if not f.init:
            continue
        if f.name in given:
            kwargs[f.name] = given[f.name]
        elif f.name in obj:
            kwargs[f.name] = _value(hints[f.name], obj[f.name], f"{where}.{f.name}" if where else f.name)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise _Bad(where or "the document", f"no {f.name!r}")
    for name in _NONNEGATIVE.get(cls, ()):
        v = kwargs.get(name)
        if isinstance(v, (int, float)) and v < 0:
            raise _Bad(f"{where}.{name}" if where else name, f"{_show(v)} is negative")
    return cls(**kwargs)


def _get(obj: Mapping[str, Any], key: str, where: str, kind: type = dict) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise _Bad(where, f"no {key!r}")
    v = obj[key]
    if not isinstance(v, kind):
        raise _Bad(f"{where}.{key}" if where else key, f"{_show(v)}, not a{'n object' if kind is dict else ' list'}")
    return v


# --------------------------------------------------------------------------------------------
# the document's parts (the inverse of jsonfmt.to_dict)


def _report(d: Dict[str, Any]) -> Report:
    from floorcalc.classify.units import mfu_peak
    from floorcalc.classify.grouping import DEFAULT, group_ops

    device = _device(d["device"], "device")
    ops = tuple(_record(OpRow, o, f"ops[{i}]") for i, o in enumerate(d["ops"]))
    kernels = tuple(_record(KernelRow, k, f"kernels[{i}]") for i, k in enumerate(_get(d, "kernels", "", list)))
    ref = d.get("reference_device")
    s = d["summary"]
    # null when no op was counted (the writer shows an unknown sum, not 0)
    zeros = {k: 0.0 for k in ("floor_us", "flop", "bytes") if s.get(k) is None}
    key, peak = mfu_peak(ops, device)
    summary = _record(Summary, s, "summary", mfu_peak_key=key, mfu_peak_flop_per_s=peak, **zeros)
    timeline = d.get("timeline")
    groups = d.get("groups")
    by: GroupBy = DEFAULT
    if groups is not None:
        by = _value(GroupBy, _get(d, "groups", "").get("by"), "groups.by")
    return Report(
        schema_version=_value(int, d["schema_version"], "schema_version"),
        tool_version=_value(str, d["tool"].get("version", ""), "tool.version"),
        target=_value(_hints(Report)["target"], d.get("target"), "target"),
        device=device, ops=ops, kernels=kernels, summary=summary,
        capture=_capture(_get(d, "capture", ""), "capture"),
        notes=tuple(_note(n, f"notes[{i}]") for i, n in enumerate(_get(d, "notes", "", list) if "notes" in d else [])),
        reference=_device(ref, "reference_device") if ref is not None else None,
        timeline=_timeline(timeline, "timeline") if timeline is not None else None,
        warnings=tuple(_record(Implausible, w, f"warnings[{i}]") for i, w in enumerate(_get(d, "warnings", "", list)))
        if "warnings" in d else (),
        grouping=group_ops(ops, by),
        whatif=_record(WhatIf, d["whatif"], "whatif") if d.get("whatif") is not None else None,
    )


def _note(n: Any, where: str) -> Note:
    """A note: ``{kind, text}``, or a plain string (a note, as floorcalc wrote them before notes
    had a kind)."""
    if isinstance(n, str):
        return Note("note", n)
    return _record(Note, n, where)


def _figure(obj: Any, where: str, value: Any = None) -> Figure:
    if value is None:
        return _record(Figure, obj, where)
    return _record(Figure, obj, where, value=_value(float, value, where.replace("figures.", "", 1)))


def _device(d: Any, where: str) -> DeviceSpec:
    """A spec from the ``device`` object: each figure's value from its top-level key (what a
    reader of the JSON reads), its basis and source from ``figures``."""
    if not isinstance(d, dict):
        raise _Bad(where, f"{_show(d)}, not an object")
    if d.get("key") == NO_SPEC_KEY:  # a run with no spec (jsonfmt.device_dict)
        from floorcalc.device.spec import no_spec

        source = _value(str, d.get("source", ""), f"{where}.source")
        return no_spec(_value(str, d.get("name"), f"{where}.name"), source[len("no spec: "):],
                       _value(_hints(DeviceSpec)["kind"], d.get("kind"), f"{where}.kind"))
    figs = _get(d, "figures", where)
    peaks_top = _get(d, "peak_flop_per_s", where)
    peaks = {k: _figure(figs.get(f"peak_flop_per_s.{k}"), f"{where}.figures.peak_flop_per_s.{k}", v)
             for k, v in peaks_top.items()}
    optional = {k: _figure(figs[k], f"{where}.figures.{k}") if figs.get(k) is not None else None
                for k in ("l2_bytes_per_s", "host_link_bytes_per_s")}
    # source = "; ".join(origin) + " (bases: ...)" (jsonfmt.device_dict)
    source = _value(str, d.get("source", ""), f"{where}.source")
    cut = source.rfind(" (bases: ")
    origins = source[:cut] if cut >= 0 and source.endswith(")") else source
    return DeviceSpec(
        key=_value(str, d.get("key"), f"{where}.key"), name=_value(str, d.get("name"), f"{where}.name"),
        kind=_value(_hints(DeviceSpec)["kind"], d.get("kind"), f"{where}.kind"), peak_flop_per_s=peaks,
        mem_bytes_per_s=_figure(figs.get("mem_bytes_per_s"), f"{where}.figures.mem_bytes_per_s",
                                d.get("mem_bytes_per_s")),
        launch_latency_us=_figure(figs.get("launch_latency_us"), f"{where}.figures.launch_latency_us",
                                  d.get("launch_latency_us")),
        l2_bytes_per_s=optional["l2_bytes_per_s"], host_link_bytes_per_s=optional["host_link_bytes_per_s"],
        origin=tuple(origins.split("; ")) if origins else (),
    )


#: the capture keys a report made from a trace read back writes when the trace recorded them
#: (jsonfmt.capture_dict), in its order
_RECORDED = ("model_file", "warmup", "iters", "torch_version", "cuda_version", "allow_tf32", "bare_wall_us_runs")


def _capture(c: Dict[str, Any], where: str) -> CaptureInfo:
    """A capture record from the ``capture`` object. A report made by the run that captured
    (``live``) writes every field and no ``capture_command``; one made from a trace read back
    writes ``capture_command`` and the fields the trace recorded (jsonfmt.capture_dict)."""
    live = "capture_command" not in c
    known = ("command", "trace", "gpu_name", "device") + _RECORDED if live else ("command", "trace") + _RECORDED
    fields = {k: c[k] for k in known + ("cuda_graphs",) if k in c}
    if "quick" in c:  # a quick capture (jsonfmt.capture_dict)
        q = _get(c, "quick", where)
        fields.update(quick=True, timed_passes=q.get("unprofiled_passes"),
                      quick_not_measured=q.get("not_measured", []), quick_without_spread=q.get("without_spread", []))
    if not live:
        fields["capture_command"] = c["capture_command"] if c["capture_command"] is not None else ""
        # a CPU build of torch records no CUDA version: written as null beside the torch version
        if fields.get("cuda_version") is None:
            fields.pop("cuda_version", None)
    record = _record(CaptureInfo, fields, where)
    recorded = live or bool(record.capture_command) or any(k in c for k in _RECORDED)
    return dataclasses.replace(record, live=live, recorded=recorded)


def _decomposition(d: Any, where: str) -> Optional[Decomposition]:
    return None if d is None else _record(Decomposition, d, where)


def _cold_start(c: Any, where: str) -> Dict[str, Any]:
    """The Timeline's cold-start fields from the ``cold_start`` object (absent in older reports)."""
    if c is None:
        return {"cold_start": (), "cold_start_count": 0, "warm_passes": None}
    return {"cold_start": tuple(_record(ColdStart, x, f"{where}.listed[{i}]")
                                for i, x in enumerate(_get(c, "listed", where, list))),
            "cold_start_count": _value(int, c.get("count", 0), f"{where}.count"),
            "warm_passes": _value(Optional[int], c.get("warm_passes"), f"{where}.warm_passes")}


def _timeline(t: Any, where: str) -> Timeline:
    """The inverse of timeline_json.timeline_dict."""
    if not isinstance(t, dict):
        raise _Bad(where, f"{_show(t)}, not an object")
    gaps = _get(t, "gaps", where)
    copies = _get(t, "copies", where)
    dec = _get(t, "decomposition", where)
    launch = t.get("launch")
    la = None
    if launch is not None:
        over = _get(launch, "queue_depth_over_time", f"{where}.launch")
        la = _record(LaunchStats, launch, f"{where}.launch",
                     queue_depth_buckets=_value(Tuple[int, ...], over.get("max", []), f"{where}.launch.queue_depth_over_time.max"),
                     queue_depth_bucket_us=_value(float, over.get("bucket_us", 0.0),
                                                  f"{where}.launch.queue_depth_over_time.bucket_us"))
    spread = {k: (v.get("min"), v.get("median"), v.get("max")) if isinstance(v, dict) else v
              for k, v in _get(dec, "spread", f"{where}.decomposition").items()}
    hints = _hints(Timeline)
    return _record(
        Timeline, t, where,
        idle_us_by_cause=_value(hints["idle_us_by_cause"], gaps.get("idle_us_by_cause", {}), f"{where}.gaps.idle_us_by_cause"),
        gap_count=_value(int, gaps.get("count"), f"{where}.gaps.count"),
        gap_count_by_cause=_value(hints["gap_count_by_cause"], gaps.get("count_by_cause", {}), f"{where}.gaps.count_by_cause"),
        gaps=tuple(_record(Gap, g, f"{where}.gaps.longest[{i}]") for i, g in enumerate(_get(gaps, "longest", f"{where}.gaps", list))),
        idle_by_op=tuple(_record(IdleRow, r, f"{where}.gaps.by_op[{i}]") for i, r in enumerate(_get(gaps, "by_op", f"{where}.gaps", list))),
        waits=tuple(_record(HostWait, w, f"{where}.waits[{i}]") for i, w in enumerate(_get(t, "waits", where, list))),
        copies=tuple(_record(CopyRow, c, f"{where}.copies.listed[{i}]")
                     for i, c in enumerate(_get(copies, "listed", f"{where}.copies", list))),
        copy_count=_value(int, copies.get("count"), f"{where}.copies.count"),
        copy_totals=_value(hints["copy_totals"], copies.get("by_direction", {}), f"{where}.copies.by_direction"),
        decomposition=_decomposition(dec.get("pass"), f"{where}.decomposition.pass"),
        steps=tuple(_record(Decomposition, s, f"{where}.decomposition.steps[{i}]")
                    for i, s in enumerate(_get(dec, "steps", f"{where}.decomposition", list))),
        step_spread=_value(hints["step_spread"], {k: list(v) if isinstance(v, tuple) else v for k, v in spread.items()},
                           f"{where}.decomposition.spread"),
        launch=la,
        invariants=tuple(_record(InvariantCheck, x, f"{where}.invariants[{i}]")
                         for i, x in enumerate(_get(t, "invariants", where, list))),
        ranges=tuple(_record(RangeRow, r, f"{where}.ranges[{i}]",
                             decomposition=_decomposition(r.get("decomposition") if isinstance(r, dict) else None,
                                                          f"{where}.ranges[{i}].decomposition"))
                     for i, r in enumerate(_get(t, "ranges", where, list))),
        memory=tuple(_record(MemoryStats, m, f"{where}.memory[{i}]") for i, m in enumerate(_get(t, "memory", where, list))),
        **_cold_start(t.get("cold_start"), f"{where}.cold_start"),
        notes=_value(Tuple[str, ...], t.get("notes", []), f"{where}.notes"),
        partial=t.get("partial") or "",
        collectives=_collectives(t.get("communication"), f"{where}.communication"),
        devices=tuple(_record(DeviceLane, x, f"{where}.devices[{i}]",
                              decomposition=_decomposition(x.get("decomposition") if isinstance(x, dict) else None,
                                                           f"{where}.devices[{i}].decomposition"))
                      for i, x in enumerate(_get(t, "devices", where, list) if "devices" in t else [])),
    )


def _collectives(c: Any, where: str) -> Tuple[CollectiveTiming, ...]:
    """The collectives the ``communication`` object lists (its ``longest``), as timings: what
    the document holds of them (no clock times, no lead-in; their exposed time as one stretch),
    enough to render them again."""
    if not isinstance(c, dict):
        return ()
    out = []
    for i, x in enumerate(_get(c, "longest", where, list)):
        w = f"{where}.longest[{i}]"
        if not isinstance(x, dict):
            raise _Bad(w, f"{_show(x)}, not an object")
        call = CollectiveCall(
            kind=_value(_hints(CollectiveCall)["kind"], x.get("kind"), f"{w}.kind"),
            name=_value(str, x.get("name", ""), f"{w}.name"), dtype=UNKNOWN_DTYPE, in_elements=None,
            out_elements=None, group_size=_value(Optional[int], x.get("group_size"), f"{w}.group_size"),
            group_name=_value(str, x.get("group", ""), f"{w}.group"), group_ranks=(),
            seq=_value(Optional[int], x.get("seq"), f"{w}.seq"), peer=_value(Optional[int], x.get("peer"), f"{w}.peer"),
            event=None, op=None)
        at = _value(float, x.get("at_us"), f"{w}.at_us")
        exposed = _value(float, x.get("exposed_us", 0.0), f"{w}.exposed_us")
        out.append(CollectiveTiming(
            call=call, ordinal=_value(int, x.get("ordinal", 0), f"{w}.ordinal"), ts_us=at, at_us=at,
            duration_us=_value(float, x.get("duration_us"), f"{w}.duration_us"),
            op=_value(str, x.get("op", ""), f"{w}.op"),
            message_bytes=_value(Optional[int], x.get("message_bytes"), f"{w}.message_bytes"),
            link_bytes=_value(Optional[float], x.get("link_bytes"), f"{w}.link_bytes"),
            floor_us=_value(Optional[float], x.get("floor_us"), f"{w}.floor_us"),
            exposed=((0.0, exposed, "communication"),) if exposed > 0 else (), lead_in=()))
    return tuple(out)

