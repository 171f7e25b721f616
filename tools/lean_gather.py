"""Issue 22, first GPU batch: what floorcalc's lean timing capture must be built and checked against.

    python3 tools/lean_gather.py NAME MODEL.py OUTDIR [--device cuda] [--iters 5] [--sets 4]

For one model file, after a warm-up, ``--sets`` rounds of four sets of ``--iters`` passes each,
interleaved in this order: unprofiled (bare), CUDA activity only (lean), CPU + CUDA activity
without shapes (cpu), and the rich pass (CPU + CUDA, shapes, module ranges, ProfilerStep
ranges). Each profiled set is its own profiler session with one untimed pass first (its buffer
set-up), then a synchronise. Every set is timed as floorcalc times its bare sets (synchronise,
passes, synchronise); the host clocks (monotonic, perf_counter, time) are taken at each pass's
start and after the set's final synchronise, so the lean traces' clock can be matched to them.

Writes into OUTDIR: ``times.json`` (every set), every lean set's trace (``lean.setR.json.gz``),
the first cpu set's trace, the last rich set's trace (``rich.trace.json.gz``, with floorcalc's
capture metadata, so ``floorcalc analyze`` reads it), and prints one summary line.

    python3 tools/lean_gather.py --embed RESULTS OUTDIR

then turns each model folder of RESULTS (what the runs above wrote) into one trace with lean
passes, ``OUTDIR/NAME.trace.json.gz``: the rich trace with its lean sets' device events as
columns in its capture metadata (floorcalc.capture.lean.columns, as ``floorcalc report`` keeps
them), the unprofiled and no-shapes sets' times beside them. tests/data/h200_device_bound,
h200_prefetch and h200_hf_gpt2_32 were made so (issue 22's first H200 batch, 2026-12-01).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path


def clocks():
    return [time.monotonic_ns(), time.perf_counter_ns(), time.time_ns()]


def embed(results: Path, out: Path) -> int:
    """The ``--embed`` mode (module notes): one trace with lean passes per model folder."""
    import dataclasses

    from floorcalc.capture.lean import capture_of, columns
    from floorcalc.trace import kineto
    from floorcalc.trace.capture_info import capture_metadata, read_capture_info

    out.mkdir(parents=True, exist_ok=True)
    for d in sorted(p for p in results.iterdir() if p.is_dir() and (p / "rich.trace.json.gz").exists()):
        t = json.loads((d / "times.json").read_text())
        names: dict = {}
        sets = []
        for r, s in enumerate(x for x in t["sets"] if x["kind"] == "lean"):
            try:
                sets.append(columns(kineto.load(d / f"lean.set{r}.json.gz"), [p[1] for p in s["pass_starts"]],
                                    s["start"][1], s["end"][1], names))
            except ValueError as e:
                print(f"{d.name}: lean set {r} left out: {e}")
        raw = json.loads(gzip.decompress((d / "rich.trace.json.gz").read_bytes()))
        bare = tuple(s["wall_us"] for s in t["sets"] if s["kind"] == "bare")
        ns = tuple(s["wall_us"] for s in t["sets"] if s["kind"] == "cpu")
        info = dataclasses.replace(read_capture_info(raw.get("floorcalc")), lean=capture_of(sets, names) if sets else None,
                                   bare_wall_us=statistics.median(bare), bare_wall_us_runs=bare,
                                   profiled_no_shapes_wall_us=statistics.median(ns), profiled_no_shapes_wall_us_runs=ns)
        raw["floorcalc"] = json.dumps(capture_metadata(info))
        dest = out / f"{d.name}.trace.json.gz"
        if dest.exists():
            print(f"{dest} exists: left as it is")
            continue
        dest.write_bytes(gzip.compress(json.dumps(raw).encode(), 9, mtime=0))
        print(f"{d.name}: {len(sets)} lean sets -> {dest}")
    return 0


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--embed":
        return embed(Path(sys.argv[2]), Path(sys.argv[3]))
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--sets", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=False)
    t_start = time.time()
    rec = {"name": a.name, "model": a.model, "device": a.device, "iters": a.iters, "warmup": a.warmup,
           "sets": [], "error": None}
    try:
        gather(a, out, rec)
    except BaseException as e:  # record what failed, keep what was gathered
        rec["error"] = "".join(traceback.format_exception(type(e), e, e.__traceback__))[-3000:]
    rec["seconds"] = time.time() - t_start
    (out / "times.json").write_text(json.dumps(rec, indent=1))
    med = {}
    for kind in ("bare", "lean", "cpu", "rich"):
        ws = [s["wall_us"] for s in rec["sets"] if s["kind"] == kind]
        if ws:
            med[kind] = (min(ws), statistics.median(ws), max(ws))
    line = " ".join(f"{k}={v[1]:.0f}[{v[0]:.0f}-{v[2]:.0f}]" for k, v in med.items())
    print(f"{a.name}: {line} ({rec['seconds']:.1f} s){' ERROR ' + rec['error'].splitlines()[-1] if rec['error'] else ''}",
          flush=True)
    return 0


def export(prof, dest: Path, meta=None) -> int:
    fd, raw = tempfile.mkstemp(suffix=".json", dir=str(dest.parent))
    os.close(fd)
    try:
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as src, gzip.open(dest, "wb", compresslevel=9) as gz:
            shutil.copyfileobj(src, gz, 1 << 20)
    finally:
        os.unlink(raw)
    return dest.stat().st_size


def gather(a, out: Path, rec) -> None:
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function

    from floorcalc.capture import calibrate
    from floorcalc.capture.modelfile import load_model_file
    from floorcalc.capture.run import ModuleRanges, build_step
    from floorcalc.records import CaptureInfo
    from floorcalc.trace.capture_info import KEY, capture_metadata

    cuda = a.device == "cuda"
    rec["torch"] = torch.__version__
    rec["gpu"] = torch.cuda.get_device_name() if cuda else None

    def sync():
        if cuda:
            torch.cuda.synchronize()

    calibrate.quiet_profiler_warnings()
    mf = load_model_file(a.model)
    with torch.inference_mode():
        step, model = build_step(mf, a.device)
        for _ in range(a.warmup):
            step()
        sync()
        launch = calibrate.launch_latency(a.device)
        rec["launch_latency_us"] = launch.value
        cpu = [ProfilerActivity.CPU]
        lean_acts = [ProfilerActivity.CUDA] if cuda else cpu
        both = cpu + ([ProfilerActivity.CUDA] if cuda else [])

        def timed(kind, r, steps=False):
            starts = []
            sync()
            c0 = clocks()
            for i in range(a.iters):
                starts.append(clocks())
                if steps:
                    with record_function(f"ProfilerStep#{i}"):
                        step()
                else:
                    step()
            host_end = clocks()
            sync()
            c1 = clocks()
            s = {"kind": kind, "round": r, "start": c0, "pass_starts": starts, "host_end": host_end, "end": c1,
                 "wall_us": (c1[1] - c0[1]) / 1e3 / a.iters}
            rec["sets"].append(s)
            (out / "times.json").write_text(json.dumps(rec, indent=1))  # kept if a later set times out
            return s

        for r in range(a.sets):
            timed("bare", r)
            with profile(activities=lean_acts) as prof:
                w0 = clocks()
                step()
                sync()
                s = timed("lean", r)
                s["warm_start"] = w0
            s["trace_bytes"] = export(prof, out / f"lean.set{r}.json.gz")
            with profile(activities=both) as prof:
                step()
                sync()
                s = timed("cpu", r)
            if r == 0:
                s["trace_bytes"] = export(prof, out / "cpu.set0.json.gz")
            ranges = ModuleRanges(model)
            try:
                with profile(activities=both, record_shapes=True) as prof:
                    step()
                    sync()
                    s = timed("rich", r, steps=True)
                    if r == a.sets - 1:
                        bare = [x["wall_us"] for x in rec["sets"] if x["kind"] == "bare"]
                        noshape = [x["wall_us"] for x in rec["sets"] if x["kind"] == "cpu"]
                        info = CaptureInfo(
                            recorded=True, capture_command=f"tools/lean_gather.py {a.name}",
                            floorcalc_version="issue22-gather", device="cuda" if cuda else "cpu",
                            gpu_name=rec["gpu"], model_file=a.model, warmup=a.warmup, iters=a.iters,
                            torch_version=torch.__version__, cuda_version=torch.version.cuda,
                            allow_tf32=bool(torch.backends.cuda.matmul.allow_tf32) if cuda else False,
                            cudnn_allow_tf32=bool(torch.backends.cudnn.allow_tf32) if cuda else False,
                            float32_matmul_precision=torch.get_float32_matmul_precision(),
                            sm_count=torch.cuda.get_device_properties(0).multi_processor_count if cuda else None,
                            compute_capability=("{}.{}".format(*torch.cuda.get_device_capability()) if cuda else None),
                            bare_wall_us=statistics.median(bare), bare_wall_us_runs=tuple(bare),
                            profiled_no_shapes_wall_us=statistics.median(noshape), launch_latency=launch)
                        prof.add_metadata_json(KEY, json.dumps(capture_metadata(info)))
            finally:
                ranges.remove()
            if r == a.sets - 1:
                s["trace_bytes"] = export(prof, out / "rich.trace.json.gz")


if __name__ == "__main__":
    sys.exit(main())
