"""`floorcalc analyze` over every trace of a folder: what a new user meets on traces recorded by others.

    python3 benchmarks/corpus.py /tmp/corpus                    # every .json / .json.gz below it
    python3 benchmarks/corpus.py /tmp/corpus --floorcalc /tmp/fc-main -j 2 --format md > table.md
    python3 benchmarks/corpus.py DIR --formulas 'b200/*=examples/formulas/gpt_oss_moe.py'

Steps:

1. Find the traces: every ``*.json`` and ``*.json.gz`` file under the folder, sorted by path.
   A trace beside a ``capture_traces/execution_details.json`` (TraceLens' layout for a
   CUDA-graph run: the replays in one trace, their capture in another) is analysed with
   ``--capture capture_traces/FILE`` when the checkout's ``analyze`` has that option.
2. Run ``floorcalc analyze TRACE --format json`` for each, in its own subprocess, with the
   floorcalc of ``--floorcalc DIR`` (default: this checkout) first on ``PYTHONPATH``, so a
   table of an older commit is made the same way (a temporary ``git worktree`` of it). Up to
   ``-j`` run at once; each run's wall seconds are measured around its subprocess.
3. Read each report: its device (spec key) and how it was found (the ``device:`` note of a
   newer report; else ``--spec``, ``derived`` or ``name``), the device events analysed, and
   these shares of the op time (``summary.op_time_us``: device time on a GPU trace):
   *uncounted* (ops with no count at all), *bytes-only* (ops counted from their shapes alone:
   they count as counted), *unattributed* (device time no op launched), and the three longest
   uncounted ops with their shares. A run that fails gives its exit code and the first line it
   printed.
4. Print one row per trace (``--format table``, ``md`` or ``json``) and the floorcalc commit
   it ran on.

Nothing here is asserted: the corpus is not committed (fetch HolisticTraceAnalysis'
``tests/data`` and TraceLens' ``tests/traces``; docs/examples/corpus.md says how).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Row:
    """One trace's run. Shares are fractions of ``op_time_us`` (None when the run failed or
    the report has no op time); ``seconds`` is the subprocess's wall time."""

    path: str
    exit_code: int
    seconds: float
    events: Optional[int] = None
    target: str = ""
    device: str = ""
    how: str = ""
    uncounted: Optional[float] = None
    bytes_only: Optional[float] = None
    unattributed: Optional[float] = None
    top_uncounted: List[Tuple[str, float]] = field(default_factory=list)
    capture: str = ""
    formulas: str = ""
    message: str = ""


def find_traces(folder: Path) -> List[Path]:
    """Every ``*.json`` / ``*.json.gz`` file under ``folder``, sorted (step 1)."""
    out = [p for p in folder.rglob("*") if p.is_file() and (p.name.endswith(".json") or p.name.endswith(".json.gz"))]
    return sorted(out)


def capture_of(trace: Path) -> Optional[Path]:
    """The capture trace TraceLens keeps beside a graph-replay trace, or None (step 1)."""
    details = trace.parent / "capture_traces" / "execution_details.json"
    if trace.parent.name == "capture_traces" or not details.is_file():
        return None
    try:
        entries = json.loads(details.read_text())
    except (OSError, ValueError):
        return None
    for e in entries if isinstance(entries, list) else []:
        f = trace.parent / "capture_traces" / str(e.get("file", ""))
        if f.is_file():
            return f
    return None


def _supports(checkout: Path, env: Dict[str, str], option: str) -> bool:
    r = subprocess.run([sys.executable, "-m", "floorcalc", "analyze", "--help"], capture_output=True, text=True,
                       env=env, cwd=str(checkout))
    return option in r.stdout


def _how(report: dict, stderr: str, spec_given: bool) -> str:
    for n in report.get("notes", []):
        n = n.get("text", "") if isinstance(n, dict) else n   # {kind, text}; a string in older reports
        if isinstance(n, str) and n.startswith("device: "):
            # "device: KEY (how it was found)", or "device: no spec (why)"
            rest = n[len("device: "):]
            cut = rest.find(" (")
            return rest[cut + 2:-1] if cut >= 0 and rest.endswith(")") else rest
    if spec_given:
        return "--spec"
    if "derived" in stderr:
        return "derived (warning)"
    return "name" if report.get("target") == "cuda" else "this host's CPU"


def read_report(row: Row, report: dict, stderr: str, spec_given: bool) -> None:
    """Fill ``row`` from a report's JSON (step 3)."""
    s = report.get("summary", {})
    op_time = s.get("op_time_us") or 0.0
    passes = s.get("passes") or 1
    row.target = report.get("target", "")
    dev = report.get("device")
    row.device = (dev or {}).get("key", "") if isinstance(dev, dict) else ""
    if not row.device:
        row.device = "(none)"
    row.how = _how(report, stderr, spec_given)
    if row.target == "cuda":
        row.events = round(sum(k.get("calls", 0) for k in report.get("kernels", [])) * passes)
    else:
        row.events = round(sum(o.get("calls", 0) for o in report.get("ops", [])) * passes)
    if op_time > 0:
        ops = report.get("ops", [])
        row.uncounted = sum(o["duration_us"] for o in ops if o.get("bound") == "uncounted") / op_time
        row.bytes_only = sum(o["duration_us"] for o in ops if o.get("formula") == "bytes-only") / op_time
        row.unattributed = (s.get("unattributed_us") or 0.0) / op_time
        by_name: Dict[str, float] = {}
        for o in ops:
            if o.get("bound") == "uncounted":
                by_name[o["name"]] = by_name.get(o["name"], 0.0) + o["duration_us"]
        top = sorted(by_name.items(), key=lambda kv: -kv[1])[:3]
        row.top_uncounted = [(n, d / op_time) for n, d in top]


def run_one(trace: Path, base: Path, checkout: Path, env: Dict[str, str], capture_ok: bool,
            formulas: Sequence[Tuple[str, str]], timeout_s: float) -> Row:
    """Analyse one trace in a subprocess (step 2) and read its report (step 3)."""
    rel = str(trace.relative_to(base))
    cmd = [sys.executable, "-m", "floorcalc", "analyze", str(trace), "--format", "json"]
    row = Row(path=rel, exit_code=0, seconds=0.0)
    cap = capture_of(trace) if capture_ok else None
    if cap is not None:
        cmd += ["--capture", str(cap)]
        row.capture = str(cap.relative_to(base))
    used = [f for pattern, f in formulas if fnmatch.fnmatch(rel, pattern)]
    for f in used:
        cmd += ["--formulas", f]
    row.formulas = ", ".join(Path(f).name for f in used)
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(checkout), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        row.exit_code, row.seconds, row.message = -1, time.perf_counter() - t0, f"timed out after {timeout_s:.0f} s"
        return row
    row.seconds = time.perf_counter() - t0
    row.exit_code = r.returncode
    err_lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    if r.returncode != 0:
        row.message = (err_lines[-1] if err_lines else "")[:160]
        return row
    try:
        report = json.loads(r.stdout)
    except ValueError as e:
        row.message = f"report is not JSON: {e}"
        return row
    read_report(row, report, r.stderr, spec_given=False)
    return row


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _top(row: Row) -> str:
    return "; ".join(f"{n} {_pct(s)}" for n, s in row.top_uncounted) or ("-" if row.exit_code == 0 else row.message)


HEADER = ("trace", "exit", "s", "events", "device (how)", "uncounted", "bytes-only", "unattributed",
          "top uncounted ops (or the error)")


def cells(row: Row) -> Tuple[str, ...]:
    name = row.path + (f" + --capture {Path(row.capture).name}" if row.capture else "")
    name += f" + --formulas {row.formulas}" if row.formulas else ""
    dev = f"{row.device} ({row.how})" if row.device else "-"
    return (name, str(row.exit_code), f"{row.seconds:.1f}", "-" if row.events is None else str(row.events), dev,
            _pct(row.uncounted), _pct(row.bytes_only), _pct(row.unattributed), _top(row))


def markdown(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + " --- |" * len(HEADER)]
    for r in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |")
    return "\n".join(lines) + "\n"


def table(rows: Sequence[Row]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(*HEADER, show_lines=False)
    for r in rows:
        t.add_row(*cells(r))
    Console().print(t)


def _commit(checkout: Path) -> str:
    r = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (r.stdout.strip() or "unknown") + (" (with uncommitted changes)" if dirty else "")


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", type=Path, help="folder of Kineto traces (searched recursively)")
    p.add_argument("--floorcalc", type=Path, default=ROOT, help="the floorcalc checkout to run (default: this one)")
    p.add_argument("-j", "--jobs", type=int, default=1, help="traces analysed at once (default 1)")
    p.add_argument("--format", choices=("table", "md", "json"), default="table")
    p.add_argument("--formulas", action="append", default=[], metavar="GLOB=FILE.py",
                   help="pass --formulas FILE.py for the traces whose path (relative to the folder) matches GLOB")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds before one analysis is stopped")
    args = p.parse_args(argv)
    checkout = args.floorcalc.resolve()
    env = dict(os.environ, PYTHONPATH=str(checkout) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    formulas = []
    for spec in args.formulas:
        pattern, _, f = spec.partition("=")
        formulas.append((pattern, str(Path(f).resolve())))
    traces = find_traces(args.folder)
    capture_ok = _supports(checkout, env, "--capture")
    jobs = [(t, ()) for t in traces]
    # a trace that matches a --formulas glob is also run without it, so both figures show
    jobs += [(t, tuple(formulas)) for t in traces if formulas
             and any(fnmatch.fnmatch(str(t.relative_to(args.folder)), g) for g, _ in formulas)]
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        rows = list(pool.map(lambda j: run_one(j[0], args.folder, checkout, env, capture_ok, j[1], args.timeout),
                             jobs))
    rows.sort(key=lambda r: (r.path, r.formulas))
    commit = _commit(checkout)
    if args.format == "json":
        print(json.dumps({"floorcalc_commit": commit, "rows": [asdict(r) for r in rows]}, indent=1))
    elif args.format == "md":
        print(f"floorcalc {commit}; {len(rows)} runs over {len(traces)} files under {args.folder}\n")
        print(markdown(rows))
    else:
        print(f"floorcalc {commit}; {len(rows)} runs over {len(traces)} files under {args.folder}")
        table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
