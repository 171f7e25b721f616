"""How `floorcalc analyze` scales with trace size: its CPU time and peak memory against a bare
parse of the same file (gunzip + ``orjson.loads``), and optionally HolisticTraceAnalysis.

    python3 benchmarks/analyze_scale.py                     # 100k, 300k and 1M events, 3 repeats
    python3 benchmarks/analyze_scale.py --sizes 1000000 --repeat 5
    python3 benchmarks/analyze_scale.py --source h200_llama_decode_eager   # another committed trace
    python3 benchmarks/analyze_scale.py --keep /tmp/scale --hta            # keep the traces; add HTA
    python3 benchmarks/analyze_scale.py --sizes 10000000 --tools floorcalc   # 10M events: floorcalc alone

Steps:

1. Build each trace by repeating the events of a committed real trace (default
   tests/data/h200_gpt2.trace.json.gz, a real H200 GPT-2 prefill, 2 ProfilerStep passes, about
   3,600 events): copy k is shifted in time by k times the span of the original plus 1 ms, its
   correlation, External id and flow ids are offset so they stay unique, and its
   ProfilerStep#N ranges are renumbered N + 2k. Metadata events (``ph: M``) are written once. The
   file is gzipped Kineto JSON, one event per line.
2. Run each tool on each trace in its own child process, the tools taking turns (bare, floorcalc,
   bare, floorcalc...: a machine shared with others drifts, and each pair sees the same drift),
   and read the child's CPU time (user + system, ``os.wait4``'s resource usage: what
   ``resource.getrusage`` gives for children) and peak resident set size (``ru_maxrss``). Each
   child's figures include its interpreter start and imports. Before the first, floorcalc is
   byte-compiled and run once untimed (benchmarks/_warm.py): the state of its second run.

   * bare: ``orjson.loads(gzip.decompress(open(TRACE, "rb").read()))``, nothing else: the floor
     of any tool that loads the whole file into Python objects.
   * floorcalc: ``floorcalc analyze TRACE --format json -o OUT`` (the whole analysis: read,
     attribution, counting, floors, timeline, JSON).
   * HTA (``--hta``): ``TraceAnalysis(trace_dir=DIR)`` then ``get_idle_time_breakdown()``
     (``pip install HolisticTraceAnalysis``; not a floorcalc dependency).

   ``--tools`` picks the tools (default ``bare,floorcalc``): the bare parse of a 10M-event
   trace (3.2 GB of JSON) needs about 27 GB, more than the project's machine has, so at that
   size floorcalc runs alone.

3. Print one row per size: the medians over the repeats of each tool's CPU seconds, its largest
   peak RSS, and the median of floorcalc's CPU time over the bare parse's in the same pair; then
   the load average (a shared machine's figures are read against it).

No number here is asserted anywhere: timings depend on the machine. Wall time is not reported:
on a shared machine it measures the neighbours.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

# benchmarks/_warm.py: byte-compiled, the method cache filled
try:
    from benchmarks._warm import child_env, warm
except ImportError:  # run as a script: benchmarks/ is the first folder on sys.path
    from _warm import child_env, warm

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "h200_gpt2.trace.json.gz"
_STEP = re.compile(r"^ProfilerStep#(\d+)$")


def _dumps(obj) -> bytes:
    try:
        import orjson

        return orjson.dumps(obj)
    except ImportError:  # pragma: no cover
        import json

        return json.dumps(obj).encode()


def build(n_events: int, path: Path) -> int:
    """Write a trace of about ``n_events`` events (whole copies of the source) to ``path``.

    Returns the number of events written.
    """
    import json

    src = json.loads(gzip.decompress(SOURCE.read_bytes()))
    events = src.pop("traceEvents")
    meta_events = [e for e in events if e.get("ph") == "M"]
    body = [e for e in events if e.get("ph") != "M" and e.get("cat") != "Trace"]
    t0 = min(e["ts"] for e in body if "ts" in e)
    t1 = max(e["ts"] + e.get("dur", 0) for e in body if "ts" in e)
    span = t1 - t0 + 1000.0
    max_corr = max(int((e.get("args") or {}).get("correlation", 0) or 0) for e in body)
    max_corr = max(max_corr, max(int(e.get("id", 0)) for e in body if e.get("cat") == "ac2g"))
    max_ext = max(int((e.get("args") or {}).get("External id", 0) or 0) for e in body)
    n_steps = sum(1 for e in body if e.get("cat") == "user_annotation" and _STEP.match(e["name"]))
    copies = max(1, round((n_events - len(meta_events)) / len(body)))
    written = 0
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0) as gz:
        head = {k: v for k, v in src.items()}
        head_text = _dumps(head)[:-1]  # without the closing brace
        gz.write(head_text + b', "traceEvents": [\n')
        first = True
        for e in meta_events:
            gz.write((b"" if first else b",\n") + _dumps(e))
            first = False
            written += 1
        for k in range(copies):
            chunk = []
            for e in body:
                e2 = dict(e)
                if "ts" in e2:
                    e2["ts"] = e["ts"] + k * span
                args = e.get("args")
                if args:
                    a2 = dict(args)
                    if "correlation" in a2 and a2["correlation"] is not None:
                        a2["correlation"] = int(a2["correlation"]) + k * (max_corr + 1)
                    if "External id" in a2 and a2["External id"] is not None:
                        a2["External id"] = int(a2["External id"]) + k * (max_ext + 1)
                    e2["args"] = a2
                if e.get("cat") == "ac2g":
                    e2["id"] = int(e["id"]) + k * (max_corr + 1)
                m = _STEP.match(e.get("name", ""))
                if m and e.get("cat") in ("user_annotation", "gpu_user_annotation"):
                    e2["name"] = f"ProfilerStep#{int(m.group(1)) + k * n_steps}"
                chunk.append(_dumps(e2))
            gz.write(b",\n" + b",\n".join(chunk))
            written += len(chunk)
        gz.write(b'\n], "traceName": "analyze_scale"}\n')
    return written


def _run(cmd: List[str], env: Dict[str, str] | None = None) -> Tuple[float, float, int, str]:
    """Run ``cmd``; return (CPU seconds, peak RSS in MB, exit code, stderr tail)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err_bytes = p.stderr.read() if p.stderr else b""
    _, status, ru = os.wait4(p.pid, 0)
    if p.stderr:
        p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    cpu = ru.ru_utime + ru.ru_stime
    # ru_maxrss is in kilobytes on Linux
    return cpu, ru.ru_maxrss / 1024.0, p.returncode, err_bytes.decode(errors="replace")[-400:]


_BARE = "import gzip, sys, orjson; orjson.loads(gzip.decompress(open(sys.argv[1], 'rb').read()))"


def run_bare(trace: Path, out_dir: Path) -> Tuple[float, float, int, str]:
    return _run([sys.executable, "-c", _BARE, str(trace)])


def run_floorcalc(trace: Path, out_dir: Path) -> Tuple[float, float, int, str]:
    return _run([sys.executable, "-m", "floorcalc", "analyze", str(trace), "--format", "json",
                 "-o", str(out_dir / "out.json"), "--force"], child_env())


_HTA = """
import sys
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1])
r = a.get_idle_time_breakdown(visualize=False)
print(r)
"""


def run_hta(trace: Path, work: Path) -> Tuple[float, float, int, str]:
    d = work / f"hta_{trace.stem}"
    d.mkdir(exist_ok=True)
    link = d / "rank0.trace.json.gz"
    if not link.exists():
        os.symlink(trace, link)
    return _run([sys.executable, "-c", _HTA, str(d)])


def main(argv: List[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000, 1_000_000])
    p.add_argument("--repeat", type=int, default=3, help="runs of each tool per size (medians reported)")
    p.add_argument("--source", default="h200_gpt2", help="the committed trace tests/data/NAME.trace.json.gz repeated")
    p.add_argument("--tools", default="bare,floorcalc", help="comma list of the tools to run: bare, floorcalc")
    p.add_argument("--hta", action="store_true", help="also run HolisticTraceAnalysis (installed separately)")
    p.add_argument("--keep", type=Path, default=None, help="build the traces in this folder and keep them")
    args = p.parse_args(argv)
    global SOURCE
    SOURCE = ROOT / "tests" / "data" / f"{args.source}.trace.json.gz"
    work = args.keep or Path(tempfile.mkdtemp(prefix="analyze_scale."))
    work.mkdir(parents=True, exist_ok=True)
    known = {"bare": run_bare, "floorcalc": run_floorcalc}
    picked = [t.strip() for t in args.tools.split(",") if t.strip()]
    if not picked or any(t not in known for t in picked):
        p.error(f"--tools: a comma list of {', '.join(known)} (got {args.tools!r})")
    tools = [(name, known[name]) for name in picked]
    if args.hta:
        tools.append(("hta", run_hta))
    print(f"source: {SOURCE.name}; {args.repeat} runs per tool and size; CPU = user + system of the child process")
    cols = "".join(f" {name + ' CPU s':>14} {name + ' MB':>12}" for name, _ in tools)
    warm()
    print(f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    print(f"{'events':>10} {'file MB':>8}{cols} {'floorcalc/bare':>15}  status")
    for n in args.sizes:
        trace = work / f"scale_{args.source}_{n}.trace.json.gz"
        counted = trace.with_name(trace.name + ".events")
        if trace.exists() and counted.exists():
            count = int(counted.read_text())
        else:
            count = build(n, trace)
            counted.write_text(str(count))
        size_mb = trace.stat().st_size / 1e6
        cpu: Dict[str, List[float]] = {name: [] for name, _ in tools}
        rss: Dict[str, List[float]] = {name: [] for name, _ in tools}
        status = []
        for _ in range(args.repeat):
            for name, fn in tools:
                c, r, code, err = fn(trace, work)
                cpu[name].append(c)
                rss[name].append(r)
                if code != 0:
                    status.append(f"{name} exit {code}: {err.strip().splitlines()[-1] if err.strip() else ''}")
        ratio = (f"{statistics.median(f / b for f, b in zip(cpu['floorcalc'], cpu['bare'])):>15.2f}"
                 if "floorcalc" in cpu and "bare" in cpu else f"{'-':>15}")
        figures = "".join(f" {statistics.median(cpu[name]):>14.2f} {max(rss[name]):>12.0f}" for name, _ in tools)
        print(f"{count:>10,} {size_mb:>8.1f}{figures} {ratio}  {'; '.join(status) or 'ok'}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} at the end", flush=True)
    if args.keep is None:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
