"""How `floorcalc analyze` of many ranks scales: 64 rank traces of 100k events each, made from a
two-rank run, read by one process and by a local process pool.

    python3 benchmarks/run_scale.py --source RUN_FOLDER            # the two ranks' traces
    python3 benchmarks/run_scale.py --source RUN_FOLDER --workers 1,2,16 --ranks 64 --events 100000
    python3 benchmarks/run_scale.py --synthetic                    # no real run at hand: tests/builders' TP pair
    python3 benchmarks/run_scale.py --source RUN_FOLDER --keep /tmp/run64   # keep the built traces
    python3 benchmarks/run_scale.py --source RUN_FOLDER --workers 1,2 --repeat 3   # medians of 3 rounds

Steps:

1. Read the two traces of the source run (``rank-0`` and ``rank-1``: each trace's
   ``distributedInfo`` says which). Rank ``i`` of the built run is a copy of source rank
   ``i % 2``, its events repeated until it holds about ``--events`` events: copy ``k`` shifted in
   time by ``k`` times the source run's span (both ranks', one number, so the two ranks' copies
   stay together) plus 1 ms, every rank with as many copies, its correlation and External ids offset so
   they stay unique, its ProfilerStep#N ranges renumbered. Every collective's process group is
   widened to all the built ranks (``Group size``, ``Process Group Ranks``) and each rank's
   ``distributedInfo`` names its rank of the new world, so the collectives match across the 64
   ranks as they did across the two. Each rank's clock is shifted by ``i x 1,234.5`` us and its
   ``host_name`` is its own (``host-i``), as on separate hosts, so the clocks must be aligned
   (ranks naming one host share one clock and would be left as they are).
2. Run ``floorcalc analyze FOLDER --format json -o OUT --workers W`` in a subprocess for each
   ``W`` (1: one process, the map step in the parent; more: the local pool), ``--repeat`` rounds
   taking turns (W = 1, 2, 1, 2...: a shared machine drifts, and each round sees the same drift),
   and measure its wall time, its CPU time (user + system of the command and every process it
   started and waited for, the pool's workers included: ``getrusage(RUSAGE_CHILDREN)`` of a
   wrapper), and peak memory: the largest resident set of any one process (``ru_maxrss`` of the
   same) and the peak of the whole process tree's summed RSS (sampled every 50 ms with psutil,
   when it is installed). Before the first, floorcalc is byte-compiled and run once untimed
   (benchmarks/_warm.py): the state of its second run.
3. Print one row per W: ranks, medians over the rounds of the wall seconds, speed-up over the
   first W, CPU seconds and CPU seconds per rank, and the largest peak RSS of any round.

No number here is asserted anywhere: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

# benchmarks/_warm.py: byte-compiled, the method cache filled
try:
    from benchmarks._warm import child_env, warm
except ImportError:  # run as a script: benchmarks/ is the first folder on sys.path
    from _warm import child_env, warm

ROOT = Path(__file__).resolve().parents[1]
_STEP = re.compile(r"^ProfilerStep#(\d+)$")


def _dumps(obj: Any) -> bytes:
    try:
        import orjson

        return orjson.dumps(obj)
    except ImportError:  # pragma: no cover
        return json.dumps(obj).encode()


def _load(path: Path) -> Dict[str, Any]:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def source_ranks(folder: Path) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """The two ranks' trace documents of the source run (by their distributedInfo rank)."""
    docs = {}
    for p in sorted(folder.iterdir()):
        if p.name.endswith((".json", ".json.gz")):
            d = _load(p)
            info = d.get("distributedInfo") or {}
            docs[int(info.get("rank", len(docs)))] = d
    if sorted(docs)[:2] != [0, 1]:
        raise SystemExit(f"{folder}: need the traces of ranks 0 and 1 (found ranks {sorted(docs)})")
    return docs[0], docs[1]


def synthetic_source(folder: Path) -> Path:
    """tests/builders' tensor-parallel pair (issue 11's case, one rank late), 20 steps."""
    sys.path.insert(0, str(ROOT / "tests"))
    from builders import collective_run

    folder.mkdir(parents=True, exist_ok=True)
    for r, b in enumerate(collective_run(2, [("0", [0, 1])], late={1: 300.0}, steps=20)):
        b.write(folder / f"rank-{r}.json.gz")
    return folder


def _ids(events: List[Dict[str, Any]]) -> Tuple[int, int]:
    corr = ext = 0
    for e in events:
        a = e.get("args") or {}
        for key, cur in (("correlation", "corr"), ("External id", "ext")):
            v = a.get(key)
            if isinstance(v, int):
                if cur == "corr":
                    corr = max(corr, v)
                else:
                    ext = max(ext, v)
        if e.get("cat") == "ac2g" and isinstance(e.get("id"), int):
            corr = max(corr, e["id"])
    return corr, ext


def _body(src: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [e for e in src["traceEvents"] if e.get("ph") != "M" and "ts" in e]


def run_span(sources: Sequence[Dict[str, Any]]) -> float:
    """The source run's span (us): first event of any rank to last end of any rank, plus 1 ms."""
    bodies = [_body(s) for s in sources]
    return (max(e["ts"] + e.get("dur", 0) for b in bodies for e in b) - min(e["ts"] for b in bodies for e in b)
            + 1000.0)


def build_rank(src: Dict[str, Any], rank: int, world: int, copies: int, span: float, path: Path) -> int:
    """Write rank ``rank`` of a ``world``-rank run built from one source rank's trace: ``copies``
    copies, the k-th shifted by ``k x span`` (step 1); returns the number of events written."""
    events = src["traceEvents"]
    meta = [e for e in events if e.get("ph") == "M"]
    body = _body(src)
    max_corr, max_ext = _ids(body)
    n_steps = sum(1 for e in body if _STEP.match(str(e.get("name", ""))))
    ranks_text = str(list(range(world)))
    shift = rank * 1234.5
    head = {k: v for k, v in src.items() if k != "traceEvents"}
    info = dict(head.get("distributedInfo") or {"backend": "nccl"})
    info.update({"rank": rank, "world_size": world, "pg_count": 1,
                 "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                                "pg_size": world, "ranks": list(range(world))}]})
    head["distributedInfo"] = info
    head["host_name"] = f"host-{rank}"
    written = 0
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0) as gz:
        ordered = {"distributedInfo": head.pop("distributedInfo"), **head}
        gz.write(_dumps(ordered)[:-1] + b', "traceEvents": [\n')
        first = True
        for e in meta:
            gz.write((b"" if first else b",\n") + _dumps(e))
            first = False
            written += 1
        for k in range(copies):
            dt = k * span + shift
            for e in body:
                c = dict(e)
                c["ts"] = e["ts"] + dt
                a = e.get("args")
                if a:
                    a = dict(a)
                    if isinstance(a.get("correlation"), int):
                        a["correlation"] += k * (max_corr + 1)
                    if isinstance(a.get("External id"), int):
                        a["External id"] += k * (max_ext + 1)
                    if "Collective name" in a:
                        a["Group size"] = world
                        a["Process Group Ranks"] = ranks_text
                        a["Process Group Name"] = "0"
                    c["args"] = a
                if e.get("cat") == "ac2g" and isinstance(e.get("id"), int):
                    c["id"] = e["id"] + k * (max_corr + 1)
                m = _STEP.match(str(e.get("name", "")))
                if m:
                    c["name"] = f"ProfilerStep#{int(m.group(1)) + k * n_steps}"
                gz.write((b"" if first else b",\n") + _dumps(c))
                first = False
                written += 1
        gz.write(b"\n]}\n")
    return written


def build(source: Path, folder: Path, ranks: int, n_events: int) -> int:
    src = source_ranks(source)
    folder.mkdir(parents=True, exist_ok=True)
    span = run_span(src)
    copies = max(1, round(n_events / len(src[0]["traceEvents"])))
    n = 0
    for r in range(ranks):
        n = build_rank(src[r % 2], r, ranks, copies, span, folder / f"rank-{r}.trace.json.gz")
    return n


def _tree_rss(pid: int) -> int:
    import psutil

    try:
        p = psutil.Process(pid)
        procs = [p] + p.children(recursive=True)
    except psutil.Error:
        return 0
    total = 0
    for q in procs:
        try:
            total += q.memory_info().rss
        except psutil.Error:
            pass
    return total


#: Runs a command and prints, last, the largest RSS (kB) of any process it started and their CPU
#: seconds (user + system). It is the subreaper of everything below it (Linux's
#: PR_SET_CHILD_SUBREAPER): a process orphaned there, such as the pool's forkserver, which
#: outlives the command and has reaped the workers, is its child, and it reaps them all, so
#: each process's time is counted once, in RUSAGE_CHILDREN, whoever reaped it.
_WRAP = """
import ctypes, os, resource, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
c = subprocess.run(sys.argv[1:]).returncode
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(u.ru_maxrss, u.ru_utime + u.ru_stime, file=sys.stderr)
sys.exit(c)
"""


def run(folder: Path, workers: int, out: Path, spec: Optional[str]) -> Tuple[float, float, Optional[float], int, float]:
    """(wall s, max RSS of one process MB, peak summed RSS of the tree MB or None, exit code,
    CPU s of the command and its workers)."""
    cmd = [sys.executable, "-m", "floorcalc", "analyze", str(folder), "--format", "json", "-o", str(out),
           "--force", "--workers", str(workers)]
    if spec:
        cmd += ["--spec", spec]
    env = child_env()
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _WRAP, *cmd], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    peak = [0]
    th: Optional[threading.Thread] = None
    try:
        import psutil  # noqa: F401

        def sample() -> None:
            while proc.poll() is None:
                peak[0] = max(peak[0], _tree_rss(proc.pid))
                time.sleep(0.05)

        th = threading.Thread(target=sample, daemon=True)
        th.start()
    except ImportError:
        pass
    _, err = proc.communicate()
    wall = time.perf_counter() - t
    if th is not None:
        th.join()
    lines = err.decode().strip().splitlines()
    if proc.returncode:
        sys.stderr.write("\n".join(lines[-20:]) + "\n")
    last = lines[-1].split() if lines else []
    one = float(last[0]) / 1024.0 if len(last) == 2 and last[0].isdigit() else float("nan")
    cpu = float(last[1]) if len(last) == 2 else float("nan")
    return wall, one, (peak[0] / 2**20 if th is not None else None), proc.returncode, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, help="folder with the two ranks' traces of a real run")
    ap.add_argument("--synthetic", action="store_true", help="use tests/builders' two-rank TP run as the source")
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--events", type=int, default=100_000, help="events per rank trace (about)")
    ap.add_argument("--workers", default="1,2", help="comma list of --workers values to time")
    ap.add_argument("--spec", default=None, help="--spec for floorcalc analyze")
    ap.add_argument("--keep", type=Path, default=None, help="build the traces here and keep them")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of every W, taking turns (medians reported)")
    args = ap.parse_args()
    if not args.source and not args.synthetic:
        ap.error("give --source RUN_FOLDER (a real two-rank run) or --synthetic")
    tmp = tempfile.TemporaryDirectory()
    base = Path(tmp.name)
    source = args.source or synthetic_source(base / "source")
    folder = args.keep or base / "run"
    if not (folder.exists() and any(folder.iterdir())):
        t = time.perf_counter()
        n = build(source, folder, args.ranks, args.events)
        size = sum(p.stat().st_size for p in folder.iterdir()) / 2**20
        print(f"built {args.ranks} ranks of {n:,} events each ({size:,.0f} MB gzipped) from {source} "
              f"in {time.perf_counter() - t:.1f} s", flush=True)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cpus} CPUs; python {sys.version.split()[0]}", flush=True)
    warm()
    widths = [int(x) for x in args.workers.split(",")]
    rounds: Dict[int, List[Tuple[float, float, Optional[float], int, float]]] = {w: [] for w in widths}
    for i in range(args.repeat):
        for w in widths:
            rounds[w].append(run(folder, w, base / f"out{w}.json", args.spec))
            wall, one, tree, code, cpu = rounds[w][-1]
            print(f"  round {i + 1}, {w} workers: {wall:.1f} s wall, {cpu:.1f} s CPU, {one:.0f} MB/proc, "
                  f"{(f'{tree:.0f}' if tree is not None else '-')} MB tree" + (f" (exit {code})" if code else ""),
                  flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} at the end", flush=True)
    print(f"{'workers':>8} {'ranks':>6} {'wall s':>9} {'speed-up':>9} {'CPU s':>8} {'CPU s/rank':>11} "
          f"{'max RSS/proc MB':>16} {'peak RSS tree MB':>17}")
    first = None
    for w in widths:
        wall = statistics.median(r[0] for r in rounds[w])
        cpu = statistics.median(r[4] for r in rounds[w])
        one = max(r[1] for r in rounds[w])
        trees = [r[2] for r in rounds[w] if r[2] is not None]
        codes = sorted({r[3] for r in rounds[w] if r[3]})
        first = first or wall
        print(f"{w:>8} {args.ranks:>6} {wall:>9.1f} {first / wall:>8.2f}x {cpu:>8.1f} {cpu / args.ranks:>11.2f} "
              f"{one:>16.0f} {(f'{max(trees):.0f}' if trees else '-'):>17}"
              + (f"  (exit {codes})" if codes else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
