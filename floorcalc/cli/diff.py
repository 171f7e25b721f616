"""Compare two floorcalc JSON reports (A, then B): per op and in total, the change in measured
time, floor and efficiency, ops ranked by the absolute change in time.

Ops are matched by name and module (the rows of one op split by counted/uncounted are summed);
an op only in B has appeared, one only in A has vanished. When the two runs used different
devices or ceilings (spec key, peaks, bandwidth, launch latency) a warning says so on stderr and
in the output: their floors and efficiencies are then not comparable as they stand.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from floorcalc.errors import TraceError, UsageError

NAME = "diff"
HELP = "compare two JSON reports: per op and in total, the change in time, floor and efficiency"

FORMATS = ("table", "json", "md")
_EXT_FORMAT = {".json": "json", ".md": "md", ".txt": "table"}
#: the layout of the diff's own JSON output
DIFF_SCHEMA_VERSION = 1


class ReportFileError(TraceError):
    """A report given to ``diff`` is missing, not JSON, not a floorcalc report, or of a
    schema_version this floorcalc does not read (exit code 6, as for an unreadable trace)."""

    kind = "report"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", type=Path, help="the first report (JSON from report/analyze -o FILE.json)")
    p.add_argument("b", type=Path, help="the second report, compared with the first")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: table, or inferred from -o's extension)")
    p.add_argument("-o", "--output", type=Path, default=None, help="write the comparison to this file")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--top", type=int, default=25, help="op rows shown in the table (default 25; json has all)")


# --------------------------------------------------------------------------------------------
# reading


def load_report(path: Path, label: str) -> Dict[str, Any]:
    """A floorcalc JSON report as a dict; :class:`ReportFileError` when it is not one."""
    from floorcalc.analysis import SCHEMA_VERSION

    if not path.exists():
        raise ReportFileError(f"report {label} not found: {path}")
    if path.is_dir():
        raise ReportFileError(f"report {label} is a directory: {path}")
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise ReportFileError(f"report {label} ({path}) is not valid JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tool"), dict) or data["tool"].get("name") != "floorcalc":
        raise ReportFileError(f"{path} is not a floorcalc report (no tool.name 'floorcalc'); "
                              "diff compares the JSON that report/analyze write with -o FILE.json")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ReportFileError(f"report {label} ({path}) has schema_version {version!r}; this floorcalc "
                              f"({_version()}) reads schema_version {SCHEMA_VERSION}: re-run analyze on its trace")
    for key, kind in (("ops", list), ("summary", dict), ("device", dict)):
        if not isinstance(data.get(key), kind):
            raise ReportFileError(f"report {label} ({path}) has no {key!r} {kind.__name__}: truncated or edited?")
    return data


def _version() -> str:
    from floorcalc import __version__

    return __version__


# --------------------------------------------------------------------------------------------
# comparing


@dataclass(frozen=True)
class OpSide:
    """One op (name, module) in one report, per pass: rows of the same op summed."""

    duration_us: float
    floor_us: Optional[float]
    calls: float

    @property
    def efficiency(self) -> Optional[float]:
        if self.floor_us is None or self.duration_us <= 0:
            return None
        return self.floor_us / self.duration_us


@dataclass(frozen=True)
class OpChange:
    name: str
    module: str
    a: Optional[OpSide]
    b: Optional[OpSide]

    @property
    def status(self) -> str:
        return "appeared" if self.a is None else "vanished" if self.b is None else "both"

    @property
    def time_change_us(self) -> float:
        return (self.b.duration_us if self.b else 0.0) - (self.a.duration_us if self.a else 0.0)

    @property
    def floor_change_us(self) -> Optional[float]:
        fa = self.a.floor_us if self.a else 0.0
        fb = self.b.floor_us if self.b else 0.0
        if fa is None or fb is None or (self.a is None and self.b is None):
            return None
        return fb - fa

    @property
    def efficiency_change(self) -> Optional[float]:
        if self.a is None or self.b is None or self.a.efficiency is None or self.b.efficiency is None:
            return None
        return self.b.efficiency - self.a.efficiency


def _ops(rep: Dict[str, Any]) -> Dict[Tuple[str, str], OpSide]:
    acc: Dict[Tuple[str, str], List[float]] = {}
    floors: Dict[Tuple[str, str], Optional[float]] = {}
    for o in rep["ops"]:
        key = (str(o.get("name", "")), str(o.get("module", "")))
        a = acc.setdefault(key, [0.0, 0.0])
        a[0] += float(o.get("duration_us") or 0.0)
        a[1] += float(o.get("calls") or 0.0)
        f = o.get("floor_us")
        if f is not None:
            floors[key] = (floors.get(key) or 0.0) + float(f)
        else:
            floors.setdefault(key, None)
    return {k: OpSide(duration_us=v[0], floor_us=floors.get(k), calls=v[1]) for k, v in acc.items()}


def compare_ops(a: Dict[str, Any], b: Dict[str, Any]) -> List[OpChange]:
    """Every op of either report, ranked by the absolute change in measured time (largest
    first; ties by name, module)."""
    oa, ob = _ops(a), _ops(b)
    keys = set(oa) | set(ob)
    changes = [OpChange(name=k[0], module=k[1], a=oa.get(k), b=ob.get(k)) for k in keys]
    changes.sort(key=lambda c: (-abs(c.time_change_us), c.name, c.module))
    return changes


#: (summary key, label, unit) of the totals compared
TOTALS = (
    ("wall_us", "wall time", "us"), ("bare_wall_us", "wall, no profiler", "us"), ("gpu_busy_us", "GPU busy", "us"),
    ("op_time_us", "op time", "us"), ("floor_us", "sum of floors", "us"), ("uncounted_us", "uncounted", "us"),
    ("mfu", "MFU", "ratio"), ("mbu", "MBU", "ratio"),
)


def compare_totals(a: Dict[str, Any], b: Dict[str, Any]) -> List[Dict[str, Any]]:
    out = []
    sa, sb = a["summary"], b["summary"]
    for key, label, unit in TOTALS:
        va, vb = sa.get(key), sb.get(key)
        if va is None and vb is None:
            continue
        change = (vb - va) if va is not None and vb is not None else None
        out.append({"figure": key, "label": label, "unit": unit, "a": va, "b": vb, "change": change})
    fa, fb = sa.get("floor_us"), sb.get("floor_us")
    ta, tb = sa.get("op_time_us"), sb.get("op_time_us")
    ea = fa / ta if fa is not None and ta else None
    eb = fb / tb if fb is not None and tb else None
    out.append({"figure": "efficiency", "label": "efficiency (floors / op time)", "unit": "ratio", "a": ea, "b": eb,
                "change": eb - ea if ea is not None and eb is not None else None})
    return out


def _close(x: Any, y: Any) -> bool:
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    return x == y


def device_warnings(a: Dict[str, Any], b: Dict[str, Any]) -> List[str]:
    """What differs between the two runs' devices and ceilings (nothing: empty list)."""
    da, db = a["device"], b["device"]
    out = []
    if a.get("target") != b.get("target"):
        out.append(f"the runs analysed different targets: A {a.get('target')}, B {b.get('target')}")
    diffs = []
    pa, pb = da.get("peak_flop_per_s") or {}, db.get("peak_flop_per_s") or {}
    for k in sorted(set(pa) | set(pb)):
        if not _close(pa.get(k), pb.get(k)):
            diffs.append(f"peak {k} {_rate(pa.get(k), 'FLOP/s')} -> {_rate(pb.get(k), 'FLOP/s')}")
    if not _close(da.get("mem_bytes_per_s"), db.get("mem_bytes_per_s")):
        diffs.append(f"DRAM bandwidth {_rate(da.get('mem_bytes_per_s'), 'B/s')} -> {_rate(db.get('mem_bytes_per_s'), 'B/s')}")
    la, lb = (da.get("figures") or {}).get("l2_bytes_per_s"), (db.get("figures") or {}).get("l2_bytes_per_s")
    if not _close((la or {}).get("value"), (lb or {}).get("value")):
        diffs.append(f"L2 bandwidth {_rate((la or {}).get('value'), 'B/s')} -> {_rate((lb or {}).get('value'), 'B/s')}")
    if not _close(da.get("launch_latency_us"), db.get("launch_latency_us")):
        diffs.append(f"launch latency L {da.get('launch_latency_us')} us -> {db.get('launch_latency_us')} us")
    shown = "; ".join(diffs[:6]) + (f"; and {len(diffs) - 6} more" if len(diffs) > 6 else "")
    if da.get("key") != db.get("key"):
        out.append(f"the runs used different device specs: A {da.get('key')} ({da.get('name')}), "
                   f"B {db.get('key')} ({db.get('name')})" + (f"; ceilings: {shown}" if diffs else "")
                   + "; floors and efficiencies are not comparable as they stand")
    elif diffs:
        out.append(f"the runs used different ceilings on {da.get('key')}: {shown}; floors and efficiencies "
                   "differ for that reason too")
    return out


def _rate(v: Any, unit: str) -> str:
    if v is None:
        return "none"
    from floorcalc.render.figures import rate

    return rate(float(v), unit)


# --------------------------------------------------------------------------------------------
# rendering


def to_dict(a: Dict[str, Any], b: Dict[str, Any], pa: Path, pb: Path) -> Dict[str, Any]:
    def side(s: Optional[OpSide]) -> Optional[Dict[str, Any]]:
        if s is None:
            return None
        return {"duration_us": s.duration_us, "floor_us": s.floor_us, "efficiency": s.efficiency, "calls": s.calls}

    def run(rep: Dict[str, Any], p: Path) -> Dict[str, Any]:
        return {"path": str(p), "device": rep["device"].get("key"), "tool_version": rep["tool"].get("version"),
                "command": (rep.get("capture") or {}).get("command")}

    return {
        "schema_version": DIFF_SCHEMA_VERSION, "kind": "floorcalc.diff",
        "tool": {"name": "floorcalc", "version": _version()},
        "a": run(a, pa), "b": run(b, pb), "warnings": device_warnings(a, b),
        "totals": compare_totals(a, b),
        "ops": [{"name": c.name, "module": c.module, "status": c.status, "a": side(c.a), "b": side(c.b),
                 "change": {"duration_us": c.time_change_us, "floor_us": c.floor_change_us,
                            "efficiency": c.efficiency_change}} for c in compare_ops(a, b)],
    }


def _us(x: Optional[float], signed: bool = False) -> str:
    if x is None:
        return "-"
    s = f"{x:+,.1f}" if signed else f"{x:,.1f}"
    return s if abs(x) >= 10 or x == 0 else (f"{x:+.2f}" if signed else f"{x:.2f}")


def _pct(x: Optional[float], signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:+.1f} pt" if signed else f"{100 * x:.1f}%"


def _total_cells(t: Dict[str, Any]) -> List[str]:
    if t["unit"] == "ratio":
        return [t["label"], _pct(t["a"]), _pct(t["b"]), _pct(t["change"], True), ""]
    rel = f"{t['change'] / t['a']:+.1%}" if t["change"] is not None and t["a"] else ""
    return [t["label"] + " (us)", _us(t["a"]), _us(t["b"]), _us(t["change"], True), rel]


def _op_cells(i: int, c: OpChange) -> List[str]:
    return [str(i), c.name, c.module or "(top)", _us(c.a.duration_us if c.a else None),
            _us(c.b.duration_us if c.b else None), _us(c.time_change_us, True),
            _us(c.a.floor_us if c.a else None), _us(c.b.floor_us if c.b else None),
            _pct(c.a.efficiency if c.a else None), _pct(c.b.efficiency if c.b else None),
            _pct(c.efficiency_change, True), "" if c.status == "both" else c.status]


_OP_HEADER = ["#", "op", "module", "A us", "B us", "change us", "A floor", "B floor", "A eff", "B eff", "eff change",
              "status"]


def _text_table(header: List[str], rows: List[List[str]], right: set) -> List[str]:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    return [fmt(header).rstrip(), "  ".join("-" * w for w in widths)] + [fmt(r).rstrip() for r in rows]


def render_text(a: Dict[str, Any], b: Dict[str, Any], pa: Path, pb: Path, top: int) -> str:
    lines = [f"floorcalc diff, per pass: A = {pa} ({a['device'].get('key')}), B = {pb} ({b['device'].get('key')})"]
    lines += [f"warning: {w}" for w in device_warnings(a, b)]
    lines += ["", "totals"]
    lines += ["  " + x for x in _text_table(["figure", "A", "B", "change", ""],
                                            [_total_cells(t) for t in compare_totals(a, b)], {1, 2, 3, 4})]
    changes = compare_ops(a, b)
    appeared = [c for c in changes if c.status == "appeared"]
    vanished = [c for c in changes if c.status == "vanished"]
    lines += ["", f"ops matched by name and module, ranked by |change in measured time| ({len(changes)} in all, "
                  f"{len(appeared)} appeared, {len(vanished)} vanished)"]
    lines += ["  " + x for x in _text_table(_OP_HEADER, [_op_cells(i, c) for i, c in enumerate(changes[:top], 1)],
                                            {0, 3, 4, 5, 6, 7, 8, 9, 10})]
    rest = changes[top:]
    if rest:
        lines.append(f"  ... {len(rest)} more ops, {_us(sum(c.time_change_us for c in rest), True)} us in all")
    for label, group in (("appeared (only in B)", appeared), ("vanished (only in A)", vanished)):
        if group:
            names = ", ".join(f"{c.name} ({c.module or 'top'})" for c in group[:8])
            more = f" and {len(group) - 8} more" if len(group) > 8 else ""
            lines.append(f"{label}: {len(group)} ops, {_us(sum(abs(c.time_change_us) for c in group))} us: {names}{more}")
    return "\n".join(lines) + "\n"


def render_md(a: Dict[str, Any], b: Dict[str, Any], pa: Path, pb: Path, top: int) -> str:
    def row(cells: List[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    lines = [f"# floorcalc diff: `{pa}` (A) against `{pb}` (B)", "", "Every figure per pass."]
    lines += [f"\n> **Warning:** {w}" for w in device_warnings(a, b)]
    lines += ["", "## Totals", "", row(["figure", "A", "B", "change", "relative"]), "| --- | ---: | ---: | ---: | ---: |"]
    lines += [row(_total_cells(t)) for t in compare_totals(a, b)]
    changes = compare_ops(a, b)
    lines += ["", "## Ops, ranked by the change in measured time", "", row(_OP_HEADER),
              "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    lines += [row(_op_cells(i, c)) for i, c in enumerate(changes[:top], 1)]
    if len(changes) > top:
        lines.append(f"\n{len(changes) - top} more ops not shown.")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from floorcalc.cli.common import _write_atomic, check_output

    if args.top < 1:
        raise UsageError(f"--top must be at least 1 (got {args.top})")
    fmt = args.format
    if fmt is None and args.output is not None:
        fmt = _EXT_FORMAT.get(args.output.suffix.lower())
        if fmt is None:
            raise UsageError(f"cannot infer a format from {args.output.name!r}; pass --format {{{','.join(FORMATS)}}}")
    fmt = fmt or "table"
    check_output(args)
    a = load_report(args.a, "A")
    b = load_report(args.b, "B")
    for w in device_warnings(a, b):
        print(f"floorcalc: warning: {w}", file=sys.stderr)
    if fmt == "json":
        text = json.dumps(to_dict(a, b, args.a, args.b), indent=1) + "\n"
    elif fmt == "md":
        text = render_md(a, b, args.a, args.b, args.top)
    else:
        text = render_text(a, b, args.a, args.b, args.top)
    if args.output is None:
        sys.stdout.write(text)
    else:
        _write_atomic(args.output, text)
    return 0
