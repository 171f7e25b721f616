"""The byte check: floorcalc's counted bytes and floors beside Nsight Compute's DRAM bytes and
times for the same kernels of one pass.

    python3 tools/ncu_check.py run MODEL.py OUTDIR          # on a CUDA machine with ncu: all of it
    python3 tools/ncu_check.py pass MODEL.py                # the workload ncu profiles (one pass)
    python3 tools/ncu_check.py compare NCU.csv[.gz] TRACE   # the table, from files (no GPU)

``run`` records a floorcalc trace of MODEL.py (``floorcalc report --trace-out``), runs
``ncu --clock-control none --profile-from-start off --csv --metrics`` :data:`METRICS` over
``pass`` (the model warmed up, then one pass between ``cudaProfilerStart`` and
``cudaProfilerStop``, so ncu sees exactly one pass), and writes ``OUTDIR/ncu.csv`` and
``OUTDIR/compare.txt``. It takes about 4 minutes for examples/gpt2.py on an H200 (ncu replays
each kernel).

``compare`` matches ncu's kernels to the first ProfilerStep's kernels of the trace in launch
order (it counts name mismatches; the names are spelt differently by Kineto and ncu) and prints,
per op: kernels, counted bytes and DRAM bytes measured, counted reads and DRAM reads, the floor,
and the kernel time by ncu and by the profiler. The floors and counts are the ones ``floorcalc
analyze TRACE`` reports (same spec, same launch latency, same TF32 setting). ncu's default cache
control flushes the caches before each kernel, so its DRAM reads are cold reads; writes still
in L2 when a kernel ends are not counted by it (docs/examples/README.md, the ncu section).

The committed run: ``compare docs/examples/ncu_gpt2.h200.csv.gz docs/examples/gpt2.h200.trace.json.gz``
(tests/integration/test_tools.py checks its totals).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
#: what ncu measures per kernel: DRAM bytes read and written, and the kernel's duration
METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum")
#: ncu's units -> bytes (for byte metrics) or microseconds (for time metrics)
_SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "nsecond": 1e-3, "ns": 1e-3, "usecond": 1,
          "us": 1, "msecond": 1e3, "ms": 1e3}


def read_ncu(path: Path) -> List[Tuple[str, Dict[str, float]]]:
    """ncu's ``--csv`` output (plain or gzipped) as (kernel name, {metric: value}) in launch
    order; bytes in bytes, times in microseconds. Lines that are not CSV rows (ncu's own log
    lines, the workload's output) are skipped."""
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()
    rows: Dict[int, Dict[str, float]] = defaultdict(dict)
    names: Dict[int, str] = {}
    for r in csv.DictReader(io.StringIO("".join(ln for ln in text.splitlines(True) if ln.startswith('"')))):
        i = int(r["ID"])
        names[i] = r["Kernel Name"]
        rows[i][r["Metric Name"]] = float(r["Metric Value"].replace(",", "")) * _SCALE.get(r["Metric Unit"], 1)
    return [(names[i], rows[i]) for i in sorted(rows)]


def _norm(name: str) -> str:
    """Kineto and ncu spell namespaces differently; compare names without them and spaces."""
    for a, b in (("at::native::", "at::"), ("(anonymous namespace)", "<unnamed>"), (" ", "")):
        name = name.replace(a, b)
    return name


def first_pass_kernels(trace_path: Path):
    """The first ProfilerStep's kernels in launch order, each with the work unit (op, count,
    floor) of ``floorcalc analyze TRACE``'s report (:attr:`floorcalc.records.Report.units`)."""
    import floorcalc

    rep = floorcalc.analyze(trace_path)
    tr = rep.trace
    first = min(s.number for s in tr.steps)
    owner = {e.index: u for u in rep.record.units if u.op is not None and u.op.step == first for e in u.events}
    kernels = sorted((tr.gpu[i] for i in owner if tr.gpu[i].kind == "kernel"), key=lambda e: e.ts_us)
    return [(k, owner[k.index]) for k in kernels]


#: the table's columns: (header, width, format)
COLUMNS = (("kernels", 7, "d"), ("counted MB", 11, ".3f"), ("DRAM MB", 9, ".3f"), ("DRAM/counted", 12, ".2f"),
           ("read: counted", 13, ".3f"), ("DRAM", 8, ".3f"), ("floor us", 9, ".1f"), ("ncu us", 8, ".1f"),
           ("kineto us", 9, ".1f"))


def compare(ncu_csv: Path, trace_path: Path) -> str:
    """The comparison table (module notes) as text."""
    ncu = read_ncu(ncu_csv)
    kernels = first_pass_kernels(trace_path)
    lines = []
    if len(kernels) != len(ncu):
        lines.append(f"kernel counts differ: trace {len(kernels)}, ncu {len(ncu)}; matching the common prefix")
    # per op: kernels, counted bytes, DRAM bytes, floor, ncu us, profiler us, counted reads, DRAM reads
    by_op: Dict[str, List[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    seen = set()
    mismatches = 0
    for (k, u), (ncu_name, m) in zip(kernels, ncu):
        mismatches += _norm(k.name)[:30] != _norm(ncu_name)[:30]
        a = by_op[u.op.name]
        a[0] += 1
        a[2] += m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0)
        a[4] += m.get("gpu__time_duration.sum", 0)
        a[5] += k.duration_us
        a[7] += m.get("dram__bytes_read.sum", 0)
        if id(u) not in seen and u.count is not None:  # a unit's count and floor once, however many kernels
            seen.add(id(u))
            a[1] += u.count.bytes
            a[3] += u.floor.floor_us
            a[6] += u.count.bytes_read
    lines.append(f"name mismatches in matched order: {mismatches}")
    lines.append(f"{'op':40s} " + " ".join(f"{h:>{w}s}" for h, w, _ in COLUMNS))

    def row(label: str, a: List[float]) -> str:
        ratio = a[2] / a[1] if a[1] else float("nan")
        cells = (int(a[0]), a[1] / 1e6, a[2] / 1e6, ratio, a[6] / 1e6, a[7] / 1e6, a[3], a[4], a[5])
        return f"{label:40s} " + " ".join(f"{v:{w}{f}}" for v, (_, w, f) in zip(cells, COLUMNS))

    total = [0.0] * 8
    for op, a in sorted(by_op.items(), key=lambda kv: -kv[1][4]):
        lines.append(row(op, a))
        total = [x + y for x, y in zip(total, a)]
    lines.append(row("total", total))
    return "\n".join(lines) + "\n"


def one_pass(model: Path, warmup: int = 3) -> None:
    """Warm the model file's step up on CUDA, then run one pass between cudaProfilerStart and
    cudaProfilerStop (what ``ncu --profile-from-start off`` profiles)."""
    import torch

    from floorcalc.capture.modelfile import load_model_file
    from floorcalc.capture.run import build_step

    step, _model = build_step(load_model_file(model), "cuda")
    with torch.inference_mode():
        for _ in range(warmup):
            step()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        step()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()


def run(model: Path, outdir: Path, ncu: str = "ncu", timeout_s: int = 480) -> int:
    """Trace, ncu, compare (module notes); everything under ``outdir``, which must not exist yet."""
    outdir.mkdir(parents=True)
    trace = outdir / f"{model.stem}.trace.json.gz"
    subprocess.run([sys.executable, "-m", "floorcalc", "report", str(model), "--device", "cuda", "-q",
                    "--trace-out", str(trace), "-o", str(outdir / f"{model.stem}.json")], check=True, cwd=ROOT)
    with open(outdir / "ncu.csv", "wb") as out, open(outdir / "ncu.err", "wb") as err:
        rc = subprocess.run([ncu, "--clock-control", "none", "--profile-from-start", "off", "--csv",
                             "--metrics", ",".join(METRICS), sys.executable, __file__, "pass", str(model)],
                            stdout=out, stderr=err, timeout=timeout_s, cwd=ROOT).returncode
    if rc != 0:
        print(f"ncu exited {rc}; see {outdir / 'ncu.err'}", file=sys.stderr)
        return rc
    text = compare(outdir / "ncu.csv", trace)
    (outdir / "compare.txt").write_text(text)
    sys.stdout.write(text)
    return 0


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(prog="tools/ncu_check.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run", help="trace MODEL.py, run ncu over one pass, compare (CUDA and ncu)")
    r.add_argument("model", type=Path)
    r.add_argument("outdir", type=Path, help="a new folder for the trace, ncu.csv and compare.txt")
    r.add_argument("--ncu", default="ncu", help="the ncu executable (default: ncu on PATH)")
    o = sub.add_parser("pass", help="the workload ncu profiles: warm-up, then one pass between profiler start/stop")
    o.add_argument("model", type=Path)
    o.add_argument("--warmup", type=int, default=3)
    c = sub.add_parser("compare", help="the comparison table from an ncu CSV and a floorcalc trace (no GPU)")
    c.add_argument("ncu_csv", type=Path)
    c.add_argument("trace", type=Path)
    args = p.parse_args(argv)
    if args.what == "run":  # its commands run from the repository root: paths made absolute first
        return run(args.model.resolve(), args.outdir.resolve(), args.ncu)
    if args.what == "pass":
        one_pass(args.model, args.warmup)
        return 0
    sys.stdout.write(compare(args.ncu_csv, args.trace))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
