"""Turn calibration samples into fitted figures with confidence intervals, and into a spec YAML.

No torch here: the samples come from :mod:`floorcalc.capture.calibrate`. Two kinds of figure:

* a **rate** (GEMM FLOP/s): repeated timings of the same work; the figure is work / mean time,
  with a 95% confidence interval from Student's t on the times (scipy.stats.t);
* a **fit** (bandwidth and fixed cost): timings over a size sweep, fitted as
  ``time = L + bytes / W`` by least squares (scipy.stats.linregress); W = 1 / slope and L the
  intercept, each with a 95% confidence interval from the fit's standard errors.
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import yaml


@dataclass(frozen=True)
class Measured:
    """One calibrated figure: ``value`` with a 95% CI ``[low, high]`` in ``unit``; ``method``
    says how it was measured; ``intercept_us`` (fits only) is the fixed cost L of the fit."""

    name: str
    value: float
    low: float
    high: float
    unit: str
    method: str
    intercept_us: Optional[float] = None
    intercept_ci_us: Optional[Tuple[float, float]] = None
    samples: int = 0


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
    """Fit ``time = L + bytes / W`` over the samples; W in bytes/s, L in microseconds.

    Raises ValueError when the fit has a non-positive slope (times do not grow with size).
    """
    from scipy import stats

    res = stats.linregress(sizes_bytes, times_s)
    n = len(sizes_bytes)
    tq = stats.t.ppf(0.975, n - 2) if n > 2 else float("nan")
    slope, se = res.slope, res.stderr
    if slope <= 0:
        raise ValueError(f"{name}: time does not grow with size (slope {slope:.3g} s/byte)")
    lo_s, hi_s = slope - tq * se, slope + tq * se
    high = 1 / lo_s if lo_s > 0 else float("inf")
    icpt = res.intercept * 1e6
    ihalf = tq * res.intercept_stderr * 1e6
    return Measured(name, 1 / slope, 1 / hi_s, high, "bytes/s", method, intercept_us=icpt,
                    intercept_ci_us=(icpt - ihalf, icpt + ihalf), samples=n)


@dataclass
class Calibration:
    """Everything `floorcalc calibrate` measured on one device."""

    device_name: str
    base_key: Optional[str]
    date: str = field(default_factory=lambda: _dt.date.today().isoformat())
    peaks: Dict[str, Measured] = field(default_factory=dict)        # "tensor.bfloat16" -> GEMM rate
    figures: Dict[str, Measured] = field(default_factory=dict)      # dram, l2, h2d..., launch...
    environment: Dict[str, str] = field(default_factory=dict)


def _fig(m: Measured, date: str, env: str, value: Optional[float] = None) -> Dict[str, object]:
    v = m.value if value is None else value
    ci = f"95% CI [{m.low:.4g}, {m.high:.4g}] {m.unit}" if m.unit != "us" else f"95% CI [{m.low:.3g}, {m.high:.3g}] us"
    return {"value": float(f"{v:.6g}"), "basis": "measured",
            "source": f"floorcalc calibrate {date} ({env}): {m.method}; {ci}, {m.samples} samples"}


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
    doc["peak_flop_per_s"] = {k: _fig(m, cal.date, env) for k, m in sorted(cal.peaks.items())}
    f = cal.figures
    if "dram" in f:
        doc["mem_bytes_per_s"] = _fig(f["dram"], cal.date, env)
    if "l2" in f:
        doc["l2_bytes_per_s"] = _fig(f["l2"], cal.date, env)
    if "h2d_pinned" in f:
        doc["host_link_bytes_per_s"] = _fig(f["h2d_pinned"], cal.date, env)
    if "launch_kernel" in f:
        doc["launch_latency_us"] = _fig(f["launch_kernel"], cal.date, env)
    details = {}
    for k in ("d2h_pinned", "h2d_pageable", "d2h_pageable", "launch_graph", "launch_stream", "launch_host"):
        if k in f:
            details[k if f[k].unit != "bytes/s" else f"{k}_bytes_per_s"] = _fig(f[k], cal.date, env)
    if details:
        doc["details"] = {(k if k.endswith("_bytes_per_s") else f"{k}_us"): v for k, v in details.items()}
    header = (f"# Written by `floorcalc calibrate` on {cal.date} for {cal.device_name}.\n"
              f"# Use with --spec; every figure here is measured and replaces the base spec's.\n")
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
        rows.append((f"peak {k}", fmt(m.value, m.unit), f"{fmt(m.low, m.unit)} .. {fmt(m.high, m.unit)}",
                     fmt(ds.value, m.unit) if ds else "-", f"{m.value / ds.value:.0%}" if ds else "-"))
    ref = {"dram": base.mem_bytes_per_s if base else None,
           "l2": base.l2_bytes_per_s if base else None,
           "h2d_pinned": base.host_link_bytes_per_s if base else None,
           "d2h_pinned": base.host_link_bytes_per_s if base else None,
           "launch_kernel": base.launch_latency_us if base else None}
    for k, m in cal.figures.items():
        ds = ref.get(k)
        extra = f" (L {m.intercept_us:.2f} us)" if m.intercept_us is not None else ""
        rows.append((k, fmt(m.value, m.unit) + extra, f"{fmt(m.low, m.unit)} .. {fmt(m.high, m.unit)}",
                     f"{fmt(ds.value, m.unit)} ({ds.basis})" if ds else "-",
                     f"{m.value / ds.value:.0%}" if ds else "-"))
    return rows
