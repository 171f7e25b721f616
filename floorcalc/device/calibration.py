"""Turn calibration samples into fitted figures with confidence intervals, and into a spec YAML.

No torch here: the samples come from :mod:`floorcalc.capture.calibrate`. Kinds of figure:

* a **rate** (GEMM FLOP/s): repeated timings of the same work; the figure is work / mean time,
  with a 95% confidence interval from Student's t on the times (scipy.stats.t);
* a **sweep of rates** (:func:`best_rate`): a rate for each shape of a sweep; the figure is the
  highest of them, with the shape that reached it (a ceiling is the most the device was seen
  to sustain, not one shape's figure);
* a **fit** (bandwidth and fixed cost): timings over a size sweep, fitted as
  ``time = L + bytes / W`` by least squares (scipy.stats.linregress); W = 1 / slope and L the
  intercept, each with a 95% confidence interval from the fit's standard errors. L is a time
  and cannot be negative: when the unconstrained fit's intercept is negative (a fit artefact,
  typical of pageable copies whose cost grows faster than linearly at small sizes), the fit is
  redone through the origin and L is reported as not measured;
* a **swept bandwidth** (:func:`sweep_bandwidth`): the fit's W or the highest bytes / time of
  any one size, whichever is higher, with what reached it;
* a **bus bandwidth** (:func:`bus_bandwidth`): collective times over message sizes turned into
  nccl-tests' bus bandwidth (:data:`BUS_FACTORS`), the highest over sizes with its CI.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import yaml

from floorcalc.counting.collectives import BUS_FACTORS as ALL_BUS_FACTORS


@dataclass(frozen=True)
class Measured:
    """One calibrated figure: ``value`` with a 95% CI ``[low, high]`` in ``unit``; ``method``
    says how it was measured; ``intercept_us`` (fits only) is the fixed cost L of the fit, None
    when it could not be measured (``intercept_note`` says why)."""

    name: str
    value: float
    low: float
    high: float
    unit: str
    method: str
    intercept_us: Optional[float] = None
    intercept_ci_us: Optional[Tuple[float, float]] = None
    samples: int = 0
    #: the shape or size of a sweep that reached ``value`` ("" for a single measurement)
    reached_by: str = ""
    #: why ``intercept_us`` is None in a fit (L not measured), "" otherwise
    intercept_note: str = ""


def rate(name: str, work: float, times_s: Sequence[float], unit: str, method: str) -> Measured:
    """``work / mean(times)`` with a 95% CI from the spread of ``times_s`` (seconds)."""
    from scipy import stats

    n = len(times_s)
    mean = sum(times_s) / n
    if n > 1:
        sd = math.sqrt(sum((t - mean) ** 2 for t in times_s) / (n - 1))
        half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    else:
        half = 0.0
    lo_t, hi_t = max(mean - half, 1e-12), mean + half
    return Measured(name, work / mean, work / hi_t, work / lo_t, unit, method, samples=n)


def fit_bandwidth(name: str, sizes_bytes: Sequence[float], times_s: Sequence[float], method: str) -> Measured:
    """Fit ``time = L + bytes / W`` over the samples, with L >= 0; W in bytes/s, L in microseconds.

    When the least-squares intercept is negative the fit is redone through the origin
    (``time = bytes / W``; the non-negative least-squares solution), ``intercept_us`` is None
    and ``intercept_note`` gives the rejected value. Raises ValueError when the time does not
    grow with size (a non-positive slope).
    """
    from scipy import stats

    n = len(sizes_bytes)
    res = stats.linregress(sizes_bytes, times_s)
    tq = stats.t.ppf(0.975, n - 2) if n > 2 else float("nan")
    slope, se = res.slope, res.stderr
    if slope <= 0:
        raise ValueError(f"{name}: time does not grow with size (slope {slope:.3g} s/byte)")
    if res.intercept < 0:
        sxx = sum(x * x for x in sizes_bytes)
        slope0 = sum(x * t for x, t in zip(sizes_bytes, times_s)) / sxx
        resid = sum((t - slope0 * x) ** 2 for x, t in zip(sizes_bytes, times_s))
        se0 = math.sqrt(resid / max(n - 1, 1) / sxx)
        tq0 = stats.t.ppf(0.975, n - 1) if n > 1 else float("nan")
        lo_s, hi_s = slope0 - tq0 * se0, slope0 + tq0 * se0
        note = (f"L not measured: the unconstrained fit's intercept was {res.intercept * 1e6:.1f} us, negative "
                "(a fit artefact, not a latency); W fitted through the origin")
        return Measured(name, 1 / slope0, 1 / hi_s, 1 / lo_s if lo_s > 0 else float("inf"), "bytes/s",
                        method + "; fit constrained to L >= 0", samples=n, intercept_note=note)
    lo_s, hi_s = slope - tq * se, slope + tq * se
    high = 1 / lo_s if lo_s > 0 else float("inf")
    icpt = res.intercept * 1e6
    ihalf = tq * res.intercept_stderr * 1e6
    return Measured(name, 1 / slope, 1 / hi_s, high, "bytes/s", method, intercept_us=icpt,
                    intercept_ci_us=(max(icpt - ihalf, 0.0), icpt + ihalf), samples=n)


def _mean_ci(values: Sequence[float]) -> Tuple[float, float, float]:
    """(mean, low, high): the 95% Student's t interval of the mean of ``values``."""
    from scipy import stats

    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return mean, max(mean - half, 0.0), mean + half


def best_rate(name: str, candidates: Sequence[Tuple[str, float, Sequence[float]]], unit: str, method: str) -> Measured:
    """The highest sustained rate over a sweep: ``candidates`` are (label, work, times in s),
    one per shape; each shape's rate is work / mean time (:func:`rate`), and the figure is the
    highest, with its CI and ``reached_by`` its label. ``method`` gets every shape's rate.
    Raises ValueError with no candidate."""
    rated = [(label, rate(name, work, ts, unit, method)) for label, work, ts in candidates if ts]
    if not rated:
        raise ValueError(f"{name}: no shape of the sweep could be timed")
    label, best = max(rated, key=lambda item: item[1].value)
    scale = 1e12 if unit == "FLOP/s" else 1e9
    others = ", ".join(f"{lb} {m.value / scale:.1f}" for lb, m in rated)
    return Measured(name, best.value, best.low, best.high, unit,
                    f"{method}; highest of the sweep ({'TFLOP/s' if unit == 'FLOP/s' else 'GB/s'}: {others})",
                    samples=best.samples, reached_by=label)


def sweep_bandwidth(name: str, sizes_bytes: Sequence[float], times_s: Sequence[float], method: str) -> Measured:
    """A bandwidth ceiling from a size sweep: the fit's W (:func:`fit_bandwidth`) or the highest
    bytes / mean time of one size, whichever is higher, with ``reached_by`` saying which. The
    fit's L (or why it is not measured) is kept."""
    fit = fit_bandwidth(name, sizes_bytes, times_s, method)
    by_size: Dict[float, List[float]] = {}
    for b, t in zip(sizes_bytes, times_s):
        by_size.setdefault(b, []).append(b / t)
    size, rates = max(by_size.items(), key=lambda kv: sum(kv[1]) / len(kv[1]))
    mean, lo, hi = _mean_ci(rates)
    if mean > fit.value:
        return dataclasses.replace(fit, value=mean, low=lo, high=hi, samples=len(rates),
                                   reached_by=f"{_size_text(size)} (bytes / time; fit W {fit.value / 1e9:.1f} GB/s)")
    return dataclasses.replace(fit, reached_by=f"fit over {_size_text(min(by_size))} to {_size_text(max(by_size))}")


def _size_text(nbytes: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g} {unit}"
    return f"{nbytes:g} B"


#: nccl-tests' bus-bandwidth factors, busbw = algbw x factor(n), algbw = size / time, where size
#: is the buffer of nccl-tests' convention (all_reduce: the reduced buffer; all_gather: the
#: gathered output, n x each rank's input; reduce_scatter: the input, n x each rank's output;
#: all_to_all: each rank's whole send buffer). Source: NVIDIA nccl-tests, doc/PERFORMANCE.md
#: (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md). The factors' one home is
#: floorcalc.counting.collectives (which counts a traced collective's link bytes with them); the
#: four calibrate measures:
BUS_FACTORS = {k: ALL_BUS_FACTORS[k] for k in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")}
BUS_SOURCE = "nccl-tests doc/PERFORMANCE.md bus-bandwidth convention (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)"
#: The largest message (bytes) whose time is taken as a collective's latency: calibrate's sweep
#: starts at 8 KiB, whose transfer over NVLink or PCIe is a fraction of a microsecond. A sweep
#: whose smallest message is larger (1 MiB: a few microseconds of transfer on NVLink, more on
#: PCIe) measures no latency, and a spec made from it keeps its base's.
LATENCY_MAX_BYTES = 64 * 1024


def bus_bandwidth(collective: str, world_size: int, samples: Mapping[int, Sequence[float]], method: str) -> Measured:
    """The bus bandwidth of ``collective`` on ``world_size`` ranks from ``samples``: message size
    (bytes, nccl-tests' convention) -> times in seconds (each the slowest rank's). Per size,
    busbw = size / time x :data:`BUS_FACTORS`; the figure is the size with the highest mean
    busbw, with its 95% CI and the size in ``reached_by``; ``intercept_us`` is the mean time
    of the smallest size (the collective's latency at that size) when that size is at most
    :data:`LATENCY_MAX_BYTES`, else None (no latency measured). Raises ValueError for an
    unknown collective or no samples."""
    if collective not in BUS_FACTORS:
        raise ValueError(f"unknown collective {collective!r} (known: {', '.join(BUS_FACTORS)})")
    if world_size < 2:
        raise ValueError("a bus bandwidth needs at least 2 ranks")
    factor = BUS_FACTORS[collective](world_size)
    per_size = {size: _mean_ci([size / t * factor for t in ts]) for size, ts in samples.items() if ts}
    if not per_size:
        raise ValueError(f"{collective}: no timings")
    size, (mean, lo, hi) = max(per_size.items(), key=lambda kv: kv[1][0])
    smallest = min(size for size, ts in samples.items() if ts)
    lat = sum(samples[smallest]) / len(samples[smallest]) * 1e6 if smallest <= LATENCY_MAX_BYTES else None
    table = ", ".join(f"{_size_text(sz)} {m / 1e9:.1f}" for sz, (m, _, _) in sorted(per_size.items()))
    return Measured(collective, mean, lo, hi, "bytes/s",
                    f"{method}; bus bandwidth = size / time x {factor:.3g} ({BUS_SOURCE}); GB/s by size: {table}",
                    intercept_us=lat, samples=len(samples[size]), reached_by=_size_text(size))


@dataclass
class Calibration:
    """Everything `floorcalc calibrate` measured on one device."""

    device_name: str
    base_key: Optional[str]
    date: str = field(default_factory=lambda: _dt.date.today().isoformat())
    peaks: Dict[str, Measured] = field(default_factory=dict)        # "tensor.bfloat16" -> GEMM rate
    figures: Dict[str, Measured] = field(default_factory=dict)      # dram, l2, h2d..., launch...
    environment: Dict[str, str] = field(default_factory=dict)
    collectives: Dict[str, Measured] = field(default_factory=dict)  # "all_reduce" -> bus bandwidth
    world_size: int = 1
    #: who measured (each figure's source starts with it): calibrate, or a sweep made elsewhere
    measured_by: str = "floorcalc calibrate"


def _fig(m: Measured, date: str, env: str, value: Optional[float] = None,
         by: str = "floorcalc calibrate") -> Dict[str, object]:
    v = m.value if value is None else value
    ci = f"95% CI [{m.low:.4g}, {m.high:.4g}] {m.unit}" if m.unit != "us" else f"95% CI [{m.low:.3g}, {m.high:.3g}] us"
    reached = f"; reached by {m.reached_by}" if m.reached_by else ""
    spread = f"{ci}, {m.samples} samples" if m.samples >= 2 else "one timing per size, so no confidence interval"
    return {"value": float(f"{v:.6g}"), "basis": "measured",
            "source": f"{by} {date} ({env}): {m.method}{reached}; {spread}"}


def to_yaml(cal: Calibration) -> str:
    """A spec file that overrides the base spec's ceilings with the measured ones (usable as --spec).

    Peaks, DRAM and L2 bandwidth, the host link (pinned host-to-device, the faster direction a
    copy can take), and the launch latency L. Other measurements go to ``details``.
    """
    env = ", ".join(f"{k} {v}" for k, v in cal.environment.items())
    doc: Dict[str, object] = {"schema_version": 1}
    if cal.base_key:
        doc["base"] = cal.base_key
    doc["name"] = f"{cal.device_name} (calibrated {cal.date})"
    doc["kind"] = "gpu"
    doc["peak_flop_per_s"] = {k: _fig(m, cal.date, env, by=cal.measured_by) for k, m in sorted(cal.peaks.items())}
    f = cal.figures
    if "dram" in f:
        doc["mem_bytes_per_s"] = _fig(f["dram"], cal.date, env, by=cal.measured_by)
    if "l2" in f:
        doc["l2_bytes_per_s"] = _fig(f["l2"], cal.date, env, by=cal.measured_by)
    if "h2d_pinned" in f:
        doc["host_link_bytes_per_s"] = _fig(f["h2d_pinned"], cal.date, env, by=cal.measured_by)
    if "launch_kernel" in f:
        doc["launch_latency_us"] = _fig(f["launch_kernel"], cal.date, env, by=cal.measured_by)
    details = {}
    for k in ("d2h_pinned", "h2d_pageable", "d2h_pageable", "launch_graph", "launch_stream", "launch_host"):
        if k in f:
            details[k if f[k].unit != "bytes/s" else f"{k}_bytes_per_s"] = _fig(f[k], cal.date, env, by=cal.measured_by)
    if details:
        doc["details"] = {(k if k.endswith("_bytes_per_s") else f"{k}_us"): v for k, v in details.items()}
    inter: Dict[str, object] = {}
    if "p2p" in f:
        inter["p2p_bytes_per_s"] = _fig(f["p2p"], cal.date, env + ", cuda:0 to cuda:1")
    if cal.collectives:
        for k, m in sorted(cal.collectives.items()):
            inter[f"{k}_bus_bytes_per_s"] = _fig(m, cal.date, env + f", {cal.world_size} GPUs", by=cal.measured_by)
        lats = [(m.intercept_us, k) for k, m in cal.collectives.items() if m.intercept_us]
        if lats:
            lat, k = min(lats)
            inter["collective_latency_us"] = {
                "value": float(f"{lat:.4g}"), "basis": "measured",
                "source": (f"{cal.measured_by} {cal.date} ({env}, {cal.world_size} GPUs): mean time of the "
                           f"smallest {k} of the sweep, the lowest of the collectives measured")}
    if inter:
        doc["interconnect"] = inter
    if cal.measured_by == "floorcalc calibrate":
        header = f"# Written by `floorcalc calibrate` on {cal.date} for {cal.device_name}.\n"
    else:
        header = f"# Written by floorcalc.device.calibration.to_yaml from {cal.measured_by} ({cal.date}, {cal.device_name}).\n"
    header += "# Use with --spec; every figure here is measured and replaces the base spec's.\n"
    return header + yaml.safe_dump(doc, sort_keys=False, width=200)


def summary_rows(cal: Calibration, base) -> List[Tuple[str, str, str, str, str]]:
    """(figure, measured, 95% CI, datasheet, measured/datasheet) rows for the terminal."""
    rows = []

    def fmt(v: float, unit: str) -> str:
        if unit == "FLOP/s":
            return f"{v / 1e12:.1f} TFLOP/s"
        if unit == "bytes/s":
            return f"{v / 1e9:.1f} GB/s"
        return f"{v:.3g} us"

    for k, m in sorted(cal.peaks.items()):
        ds = base.peak_flop_per_s.get(k) if base else None
        by = f" [{m.reached_by}]" if m.reached_by else ""
        rows.append((f"peak {k}", fmt(m.value, m.unit) + by, f"{fmt(m.low, m.unit)} .. {fmt(m.high, m.unit)}",
                     fmt(ds.value, m.unit) if ds else "-", f"{m.value / ds.value:.0%}" if ds else "-"))
    ref = {"dram": base.mem_bytes_per_s if base else None,
           "l2": base.l2_bytes_per_s if base else None,
           "h2d_pinned": base.host_link_bytes_per_s if base else None,
           "d2h_pinned": base.host_link_bytes_per_s if base else None,
           "launch_kernel": base.launch_latency_us if base else None}
    for k, m in cal.figures.items():
        ds = ref.get(k)
        if m.intercept_us is not None:
            extra = f" (L {m.intercept_us:.2f} us)"
        elif m.intercept_note:
            extra = " (L not measured: fit intercept < 0)"
        else:
            extra = ""
        by = f" [{m.reached_by}]" if m.reached_by else ""
        rows.append((k, fmt(m.value, m.unit) + extra + by, f"{fmt(m.low, m.unit)} .. {fmt(m.high, m.unit)}",
                     f"{fmt(ds.value, m.unit)} ({ds.basis})" if ds else "-",
                     f"{m.value / ds.value:.0%}" if ds else "-"))
    link = base.interconnect.get("nvlink_bytes_per_s") if base else None
    for k, m in sorted(cal.collectives.items()):
        rows.append((f"{k} bus bandwidth", f"{fmt(m.value, m.unit)} [{m.reached_by}]"
                     + (f" (smallest: {m.intercept_us:.1f} us)" if m.intercept_us is not None else ""),
                     f"{fmt(m.low, m.unit)} .. {fmt(m.high, m.unit)}",
                     f"NVLink {fmt(link.value, 'bytes/s')} ({link.basis})" if link else "-",
                     f"{m.value / link.value:.0%}" if link else "-"))
    return rows


def cpu_spec_yaml(spec) -> str:
    """A CPU DeviceSpec (floorcalc.device.cpu.cpu_spec with measured ceilings) as a spec file
    usable with ``--spec``: every figure with its basis and source, cache levels included."""

    def fig(f) -> Dict[str, object]:
        return {"value": float(f"{f.value:.6g}"), "basis": f.basis, "source": f.source}

    doc: Dict[str, object] = {"schema_version": 1, "key": "cpu-host-calibrated", "name": spec.name, "kind": "cpu"}
    doc["peak_flop_per_s"] = {k: fig(f) for k, f in sorted(spec.peak_flop_per_s.items())}
    doc["mem_bytes_per_s"] = fig(spec.mem_bytes_per_s)
    doc["launch_latency_us"] = fig(spec.launch_latency_us)
    if spec.cache_levels:
        doc["cache_levels"] = {lv.name: {"capacity_bytes": fig(lv.capacity_bytes), "bytes_per_s": fig(lv.bytes_per_s)}
                               for lv in spec.cache_levels}
    doc["details"] = {k: fig(f) for k, f in sorted(spec.details.items())}
    header = (f"# Written by `floorcalc calibrate` on {_dt.date.today().isoformat()} for {spec.name}.\n"
              "# FP32 and BF16 peaks measured here (the others derived from the microarchitecture); bandwidths and the "
              "per-op latency measured here.\n")
    return header + yaml.safe_dump(doc, sort_keys=False, width=200)
