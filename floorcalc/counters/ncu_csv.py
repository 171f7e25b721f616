"""Read an Nsight Compute CSV into :class:`floorcalc.records.KernelCounters`, one per kernel.

Two layouts are read, plain or gzipped:

* ncu's *raw* page (``ncu --import REP --csv --page raw``, what ``report --counters`` writes):
  a header row of metric names, then a row of units, then one row per kernel;
* its *details* page (``ncu --csv --metrics ...`` printed while profiling, as
  tools/ncu_check.py records): one row per (kernel, metric) with ``Metric Name``, ``Metric Unit``
  and ``Metric Value``.

Lines that are not CSV rows (ncu's ``==PROF==`` lines, the workload's own output) are skipped.
A first line ``# floorcalc: cache=flush|keep command=...`` (written by ``report --counters``)
says how ncu treated the caches. Units are scaled to bytes, microseconds, percent and hertz
(ncu's ``--print-units auto`` writes Kbyte, Mbyte, usecond...: decimal prefixes, as ncu's
documentation states). Pure Python; no ncu, no GPU.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import re
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple, cast

from floorcalc.util.errors import FloorcalcError
from floorcalc.records import CounterCache, KernelCounters, NcuProfile

#: bytes in one L2 sector (NVIDIA's L2 is addressed in 32-byte sectors: Nsight Compute
#: Profiling Guide, "Memory Tables", sectors)
SECTOR_BYTES = 32

_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "k": 1e3}
_TIME = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}


class CountersFileError(FloorcalcError):
    """An ncu CSV is missing, unreadable, or holds no kernel rows (exit code 6, as a bad trace)."""

    exit_code = 6
    kind = "counters file"


def scale(unit: str) -> Optional[float]:
    """The factor taking a value in ncu's ``unit`` to floorcalc's (bytes, microseconds, percent,
    hertz, or a plain number); None for a unit it does not know."""
    u = unit.strip()
    if u in ("", "%", "percent", "block", "thread", "register/thread", "warp", "SM", "cycle", "inst", "sector",
             "request", "wave", "warp/cycle"):
        return 1.0
    if u in _TIME:
        return _TIME[u]
    m = re.fullmatch(r"([KMGTk]?)byte(?:/block)?", u)
    if m:
        return _PREFIX[m.group(1)]
    m = re.fullmatch(r"cycle/(n|u|m|)second", u)  # a clock: cycles per time unit, to hertz
    if m:
        return {"n": 1e9, "u": 1e6, "m": 1e3, "": 1.0}[m.group(1)]
    m = re.fullmatch(r"([KMGT]?)hz", u, flags=re.IGNORECASE)
    if m:
        return _PREFIX[m.group(1).upper()]
    m = re.fullmatch(r"([KMGT]?)byte/second", u)
    if m:
        return _PREFIX[m.group(1)]
    return None


def _number(text: str) -> Optional[float]:
    t = text.strip().replace(",", "")
    if not t or t.lower() in ("n/a", "nan", "-"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _header(first: str) -> Tuple[CounterCache, str]:
    """The ``# floorcalc:`` line's cache mode and command."""
    m = re.match(r"#\s*floorcalc:\s*cache=(\w+)(?:\s+command=(.*))?", first.strip())
    if not m:
        return "unknown", ""
    cache = m.group(1) if m.group(1) in ("flush", "keep") else "unknown"
    return cast(CounterCache, cache), (m.group(2) or "").strip()


def _rows(text: str) -> List[List[str]]:
    lines = [ln for ln in text.splitlines(True) if ln.startswith('"')]
    return list(csv.reader(io.StringIO("".join(lines))))


def _metrics_raw(rows: List[List[str]]) -> List[Tuple[int, str, Dict[str, float]]]:
    head = rows[0]
    units = rows[1] if len(rows) > 1 and rows[1] and rows[1][0] == "" else None
    body = rows[2:] if units is not None else rows[1:]
    col = {name: i for i, name in enumerate(head)}
    out = []
    for r in body:
        if len(r) != len(head) or _number(r[col["ID"]]) is None:
            continue
        vals: Dict[str, float] = {}
        for name, i in col.items():
            if "__" not in name:
                continue
            v = _number(r[i])
            f = scale(units[i]) if units is not None else 1.0
            if v is not None and f is not None:
                vals[name] = v * f
        out.append((int(_number(r[col["ID"]]) or 0), r[col["Kernel Name"]], vals))
    return out


def _metrics_details(rows: List[List[str]]) -> List[Tuple[int, str, Dict[str, float]]]:
    head = rows[0]
    col = {name: i for i, name in enumerate(head)}
    names: Dict[int, str] = {}
    vals: Dict[int, Dict[str, float]] = {}
    for r in rows[1:]:
        if len(r) != len(head):
            continue
        i = _number(r[col["ID"]])
        v = _number(r[col["Metric Value"]])
        f = scale(r[col["Metric Unit"]])
        if i is None:
            continue
        names[int(i)] = r[col["Kernel Name"]]
        d = vals.setdefault(int(i), {})
        if v is not None and f is not None:
            d[r[col["Metric Name"]]] = v * f
    return [(i, names[i], vals[i]) for i in sorted(vals)]


def _get(m: Mapping[str, float], *names: str) -> Optional[float]:
    for n in names:
        if n in m:
            return m[n]
    return None


def _sectors(m: Mapping[str, float], *names: str) -> Optional[float]:
    if all(n in m for n in names):
        return sum(m[n] for n in names) * SECTOR_BYTES
    return None


def _int(v: Optional[float]) -> Optional[int]:
    return None if v is None else int(round(v))


def kernel_counters(index: int, name: str, m: Mapping[str, float]) -> KernelCounters:
    """One kernel's record from its metrics (names as ncu spells them, values already scaled)."""
    l2_read = _sectors(m, "lts__t_sectors_srcunit_tex_op_read.sum")
    l2_write = _sectors(m, "lts__t_sectors_srcunit_tex_op_write.sum")
    if l2_read is None or l2_write is None:
        l2_read = _sectors(m, "lts__t_sectors_op_read.sum")
        l2_write = _sectors(m, "lts__t_sectors_op_write.sum")
    tensor = [v for v in (_get(m, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"),
                          _get(m, "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed"))
              if v is not None]
    return KernelCounters(
        index=index, name=name,
        duration_us=_get(m, "gpu__time_duration.sum"),
        dram_read_bytes=_get(m, "dram__bytes_read.sum"),
        dram_write_bytes=_get(m, "dram__bytes_write.sum"),
        l2_read_bytes=l2_read, l2_write_bytes=l2_write,
        l2_hit_rate_pct=_get(m, "lts__t_sector_hit_rate.pct"),
        dram_throughput_pct=_get(m, "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
        l2_throughput_pct=_get(m, "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
        sm_throughput_pct=_get(m, "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        tensor_pipe_pct=max(tensor) if tensor else None,
        achieved_occupancy_pct=_get(m, "sm__warps_active.avg.pct_of_peak_sustained_active"),
        theoretical_occupancy_pct=_get(m, "sm__maximum_warps_per_active_cycle_pct"),
        waves_per_sm=_get(m, "launch__waves_per_multiprocessor"),
        grid_size=_int(_get(m, "launch__grid_size")),
        block_size=_int(_get(m, "launch__block_size")),
        registers_per_thread=_int(_get(m, "launch__registers_per_thread")),
        sm_clock_hz=_get(m, "sm__cycles_elapsed.avg.per_second"),
    )


def parse_ncu_csv(text: str, path: str = "<text>", cache: Optional[CounterCache] = None) -> NcuProfile:
    """:func:`read_ncu_csv` of text already read. ``cache`` overrides the header's mode.
    Raises :class:`CountersFileError` when no kernel row is found."""
    first = text.split("\n", 1)[0]
    head_cache, command = _header(first)
    rows = _rows(text)
    if not rows or "ID" not in rows[0] or "Kernel Name" not in rows[0]:
        raise CountersFileError(f"{path}: not an Nsight Compute CSV (no header row with ID and Kernel Name)")
    parsed = _metrics_details(rows) if "Metric Name" in rows[0] else _metrics_raw(rows)
    if not parsed:
        raise CountersFileError(f"{path}: an Nsight Compute CSV with no kernel rows")
    metrics = sorted({k for _, _, m in parsed for k in m})
    kernels = tuple(kernel_counters(i, name, m) for i, name, m in sorted(parsed, key=lambda t: t[0]))
    return NcuProfile(path=path, kernels=kernels, cache=cache or head_cache, command=command,
                      metrics=tuple(metrics))


def read_ncu_csv(path: Path, cache: Optional[CounterCache] = None) -> NcuProfile:
    """The kernels of an ncu CSV (module notes), in ncu's ID order. ``cache``: how ncu treated
    the caches, when the caller knows (else the file's ``# floorcalc:`` line, else unknown).
    Raises :class:`CountersFileError` for a missing or unreadable file, or one with no kernels."""
    try:
        raw = Path(path).read_bytes()
        text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8", errors="replace")
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise CountersFileError(f"cannot read the counters file {path}: {e}") from None
    return parse_ncu_csv(text, str(path), cache)
