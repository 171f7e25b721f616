"""What floorcalc's capture records in a trace, both ways: :func:`capture_metadata` writes a
:class:`~floorcalc.records.CaptureInfo` as the JSON object capture stores under the trace's
top-level ``floorcalc`` key (``prof.add_metadata_json``), and :func:`read_capture_info` reads it
back, once, when the trace is loaded (:attr:`floorcalc.records.Trace.capture`). No other
module reads that key.

The metadata keys are the record's field names, except ``command`` (the record's
``capture_command``), ``launch_latency_us``/``launch_latency_source`` and
``cpu_bandwidth_bytes_per_s``/``cpu_bandwidth_source`` (a measured Figure each), and
``cpu_peak_flop_per_s`` (peak key -> ``[value, basis, source]``): the record
:class:`floorcalc.records.documents.CaptureMetadata` (its schema docs/schema/capture.schema.json),
written by floorcalc.util.codec. Reading is lenient on types (a value of the wrong type is left
out, and said in ``problems``) and strict on ranges: a figure out of its field's range (a
negative launch latency, a zero peak) is refused, as a spec's is.
"""

from __future__ import annotations

import json
import math
import typing
from typing import Any, Dict, List, Mapping, Optional, Tuple

from floorcalc.records import (BASES, TARGETS, UNITS, Basis, CaptureInfo, Figure, GeneratedKernel, LeanCapture,
                               LeanSet, Target)
from floorcalc.records.documents import CaptureMetadata
from floorcalc.util.codec import check_key, checked_fields, encode
from floorcalc.util.errors import DocumentError

#: the metadata key floorcalc's capture writes its record under
KEY = "floorcalc"


class _Reader:
    def __init__(self, meta: Mapping[str, Any]) -> None:
        self.meta = meta
        self.problems: List[str] = []

    def _bad(self, key: str, want: str) -> None:
        self.problems.append(f"capture metadata: {key} = {self.meta[key]!r:.60} is not {want}; ignored")

    def get_str(self, key: str) -> Optional[str]:
        v = self.meta.get(key)
        if v is None:
            return None
        if isinstance(v, str):
            return v
        self._bad(key, "a string")
        return None

    def get_int(self, key: str) -> Optional[int]:
        v = self.meta.get(key)
        if v is None:
            return None
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
        self._bad(key, "an integer")
        return None

    def get_float(self, key: str) -> Optional[float]:
        v = self.meta.get(key)
        if v is None:
            return None
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            return float(v)
        self._bad(key, "a finite number")
        return None

    def get_bool(self, key: str) -> Optional[bool]:
        v = self.meta.get(key)
        return None if v is None else bool(v)

    def get_floats(self, key: str) -> Optional[Tuple[float, ...]]:
        v = self.meta.get(key)
        if v is None:
            return None
        if isinstance(v, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            return tuple(float(x) for x in v)
        self._bad(key, "a list of numbers")
        return None

    def get_strs(self, key: str) -> Tuple[str, ...]:
        v = self.meta.get(key)
        if v is None:
            return ()
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return tuple(v)
        self._bad(key, "a list of strings")
        return ()

    def get_measured(self, value_key: str, source_key: str) -> Optional[Figure]:
        """A figure capture measured: present when its value is a non-zero number."""
        v = self.meta.get(value_key)
        if not v:
            return None
        value = self.get_float(value_key)
        return Figure(value, "measured", str(self.meta.get(source_key, ""))) if value is not None else None

    def get_peaks(self, key: str) -> Dict[str, Figure]:
        v = self.meta.get(key)
        if not v:
            return {}
        out: Dict[str, Figure] = {}
        if isinstance(v, dict):
            for k, f in v.items():
                if (isinstance(f, (list, tuple)) and len(f) == 3 and isinstance(f[0], (int, float))
                        and f[1] in BASES):
                    basis: Basis = f[1]
                    out[str(k)] = Figure(float(f[0]), basis, str(f[2]))
                else:
                    self.problems.append(f"capture metadata: {key}.{k} is not [value, basis, source]; ignored")
            return out
        self._bad(key, "a mapping of peak key to [value, basis, source]")
        return {}

    def get_kernels(self, key: str) -> Dict[str, Tuple[GeneratedKernel, ...]]:
        v = self.meta.get(key)
        if not v:
            return {}
        if not isinstance(v, dict):
            self._bad(key, "a mapping of kernel name to its launches")
            return {}
        out: Dict[str, Tuple[GeneratedKernel, ...]] = {}
        for name, entries in v.items():
            try:
                launches = tuple(_kernel(e) for e in entries)
            except (KeyError, TypeError, ValueError) as e:
                self.problems.append(f"capture metadata: {key}[{name!r:.60}] is unreadable ({type(e).__name__}: {e}); "
                                     "its launches are counted as the ops that launched them")
                continue
            if launches:
                out[str(name)] = launches
        return out


    def get_lean(self, key: str) -> Optional[LeanCapture]:
        """The lean timing passes (:class:`LeanCapture`), or None (absent, or unreadable: said in
        ``problems``, and the report falls back to the profiled pass)."""
        v = self.meta.get(key)
        if v is None:
            return None
        try:
            return _lean(v)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:  # any damage: named, dropped
            self.problems.append(f"capture metadata: {key} is unreadable ({type(e).__name__}: {e}); "
                                 "the figures are the profiled pass's")
            return None


def _num(x: Any, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{what} holds {x!r:.20}, not a number")
    return float(x)


def _lean(v: Any) -> LeanCapture:
    names = tuple(str(n) for n in v["names"])
    sets = []
    for k, s in enumerate(v["sets"]):
        cols = s["events"]
        n = len(cols["ts_us"])
        got: Dict[str, Tuple[Any, ...]] = {}
        for c in LeanSet.COLUMNS:
            col = cols[c]
            if not isinstance(col, list) or len(col) != n:
                raise ValueError(f"sets[{k}].events.{c} is not a list of {n} values")
            if c in ("device", "stream", "kind", "name", "bytes"):
                ints = tuple(int(_num(x, c)) for x in col)
                if c == "name" and any(not 0 <= i < len(names) for i in ints):
                    raise ValueError(f"sets[{k}].events.name indexes past the {len(names)} names")
                got[c] = ints
            else:
                got[c] = tuple(_num(x, c) for x in col)
        starts = tuple(_num(x, "pass_starts_us") for x in s["pass_starts_us"])
        wall, length = _num(s["wall_us"], "wall_us"), _num(s["length_us"], "length_us")
        if not (wall > 0 and length > 0 and starts) or any(not math.isfinite(x) for x in starts + (wall, length)):
            raise ValueError(f"sets[{k}] has no passes or a wall time that is not positive")
        if any(not (0 <= d < 1e11) for d in got["duration_us"]) or any(
                not math.isfinite(t) for t in got["ts_us"] + got["launch_us"] + got["launch_duration_us"]):
            raise ValueError(f"sets[{k}] holds a negative duration or a time that is not finite")
        sets.append(LeanSet(wall_us=wall, length_us=length, pass_starts_us=starts,
                            clock_check_us=_num(s.get("clock_check_us", 0.0), "clock_check_us"), **got))
    if not sets:
        raise ValueError("no sets")
    return LeanCapture(names=names, sets=tuple(sets), activities=str(v.get("activities", "cuda")))


def lean_metadata(lean: LeanCapture) -> Dict[str, Any]:
    """The JSON object :func:`capture_metadata` stores for ``lean`` (times rounded to the
    nanosecond, as Kineto writes them)."""
    def col(c: str, xs: Tuple[Any, ...]) -> List[Any]:
        if c in ("device", "stream", "kind", "name", "bytes"):
            return list(xs)
        return [round(x, 3) for x in xs]

    return {"activities": lean.activities, "names": list(lean.names), "sets": [
        {"wall_us": s.wall_us, "length_us": round(s.length_us, 3), "clock_check_us": round(s.clock_check_us, 3),
         "pass_starts_us": [round(x, 3) for x in s.pass_starts_us],
         "events": {c: col(c, getattr(s, c)) for c in LeanSet.COLUMNS}} for s in lean.sets]}


def _kernel(e: Any) -> GeneratedKernel:
    unit = str(e["unit"])
    if unit not in UNITS:
        raise ValueError(f"unit {unit!r}")
    return GeneratedKernel(flop=int(e["flop"]), bytes=int(e["bytes"]), dtype=str(e["dtype"]), unit=unit,
                           method=str(e["method"]), graph=str(e.get("graph", "")))


def _check_ranges(meta: Mapping[str, Any]) -> None:
    """Refuse a figure of the right type out of its range (the ranges of
    :class:`~floorcalc.records.documents.CaptureMetadata`'s fields: a launch latency below zero,
    a peak or a bandwidth of zero): :class:`DocumentError` naming the key, as a spec's figure
    out of range is refused. A value of the wrong type is left to the reader (ignored, said)."""
    for key in checked_fields(CaptureMetadata):
        v = meta.get(key)
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            continue
        try:
            check_key(CaptureMetadata, key, v, f"capture metadata: {key}")
        except DocumentError as e:
            if e.out_of_range:
                raise


def read_capture_info(raw: Any) -> CaptureInfo:
    """The :class:`CaptureInfo` of a trace's ``floorcalc`` metadata value: the JSON object
    capture stored (a dict, or its JSON text), or None for a trace floorcalc did not capture
    (an empty record). A value of the wrong type is ignored and said in ``problems``; a figure
    out of its range (:class:`~floorcalc.records.documents.CaptureMetadata`: a negative launch
    latency, a zero peak) raises :class:`~floorcalc.util.errors.DocumentError` naming the key
    (the trace reader makes it a one-line TraceError naming the trace, exit code 6)."""
    if raw is None or raw == "":
        return CaptureInfo()
    meta = raw
    if isinstance(raw, (str, bytes)):
        try:
            meta = json.loads(raw)
        except ValueError:
            return CaptureInfo(problems=("capture metadata: the 'floorcalc' field is not JSON; ignored",))
    if not isinstance(meta, dict):
        return CaptureInfo(problems=("capture metadata: the 'floorcalc' field is not a JSON object; ignored",))
    _check_ranges(meta)
    r = _Reader(meta)
    device = r.get_str("device")
    target: Optional[Target] = None
    if device in TARGETS:
        target = device
    elif device is not None:
        r.problems.append(f"capture metadata: device = {device!r:.40} is neither cuda nor cpu; ignored")
    return CaptureInfo(
        recorded=True,
        capture_command=r.get_str("command") or "",
        floorcalc_version=r.get_str("floorcalc_version"),
        device=target,
        gpu_name=r.get_str("gpu_name"),
        model_file=r.get_str("model_file"),
        warmup=r.get_int("warmup"),
        iters=r.get_int("iters"),
        torch_version=r.get_str("torch_version"),
        cuda_version=r.get_str("cuda_version"),
        allow_tf32=r.get_bool("allow_tf32"),
        cudnn_allow_tf32=r.get_bool("cudnn_allow_tf32"),
        float32_matmul_precision=r.get_str("float32_matmul_precision"),
        sm_count=r.get_int("sm_count"),
        compute_capability=r.get_str("compute_capability"),
        bare_wall_us=r.get_float("bare_wall_us"),
        bare_wall_us_runs=r.get_floats("bare_wall_us_runs"),
        profiled_no_shapes_wall_us=r.get_float("profiled_no_shapes_wall_us"),
        launch_latency=r.get_measured("launch_latency_us", "launch_latency_source"),
        cpu_bandwidth=r.get_measured("cpu_bandwidth_bytes_per_s", "cpu_bandwidth_source"),
        cpu_name=r.get_str("cpu_name"),
        cpu_peak_flop_per_s=r.get_peaks("cpu_peak_flop_per_s"),
        cuda_graphs=r.get_bool("cuda_graphs"),
        compile=r.get_bool("compile"),
        compile_fallback=r.get_str("compile_fallback"),
        inductor_kernels=r.get_kernels("inductor_kernels"),
        note=r.get_str("note") or "",
        lean=r.get_lean("lean"),
        profiled_no_shapes_wall_us_runs=r.get_floats("profiled_no_shapes_wall_us_runs"),
        profiler=r.get_str("profiler") or "",
        quick=bool(r.get_bool("quick")),
        timed_passes=r.get_int("timed_passes"),
        quick_not_measured=r.get_strs("quick_not_measured"),
        quick_without_spread=r.get_strs("quick_without_spread"),
        problems=tuple(r.problems),
    )


def capture_metadata(info: CaptureInfo) -> Dict[str, Any]:
    """The JSON object capture stores under the trace's ``floorcalc`` key for ``info`` (its
    capture part, as a :class:`~floorcalc.records.documents.CaptureMetadata` written by
    floorcalc.util.codec; :func:`read_capture_info` reads it back to an equal record)."""
    la, bw = info.launch_latency, info.cpu_bandwidth
    doc = CaptureMetadata(
        floorcalc_version=info.floorcalc_version, device=info.device, gpu_name=info.gpu_name, warmup=info.warmup,
        iters=info.iters, torch_version=info.torch_version, cuda_version=info.cuda_version,
        allow_tf32=info.allow_tf32, float32_matmul_precision=info.float32_matmul_precision,
        cudnn_allow_tf32=info.cudnn_allow_tf32, sm_count=info.sm_count, compute_capability=info.compute_capability,
        model_file=info.model_file, bare_wall_us=info.bare_wall_us, bare_wall_us_runs=info.bare_wall_us_runs,
        command=info.capture_command, cuda_graphs=info.cuda_graphs, compile=info.compile,
        compile_fallback=info.compile_fallback, inductor_kernels=info.inductor_kernels if info.compile else {},
        launch_latency_us=la.value if la is not None else None, launch_latency_source=la.source if la is not None else None,
        cpu_bandwidth_bytes_per_s=bw.value if bw is not None else None,
        cpu_bandwidth_source=bw.source if bw is not None else None, cpu_name=info.cpu_name,
        cpu_peak_flop_per_s={k: (f.value, f.basis, f.source) for k, f in info.cpu_peak_flop_per_s.items()},
        profiled_no_shapes_wall_us=info.profiled_no_shapes_wall_us,
        profiled_no_shapes_wall_us_runs=info.profiled_no_shapes_wall_us_runs,
        lean=lean_metadata(info.lean) if info.lean is not None else None, note=info.note, profiler=info.profiler,
        quick=info.quick, timed_passes=info.timed_passes, quick_not_measured=info.quick_not_measured,
        quick_without_spread=info.quick_without_spread)
    return typing.cast(Dict[str, Any], encode(doc))
