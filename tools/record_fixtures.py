"""Record the committed real-GPU test fixtures again, on a CUDA machine.

    python3 tools/record_fixtures.py OUTDIR                 # every fixture
    python3 tools/record_fixtures.py OUTDIR h200_gpt2 plain  # the named ones
    python3 tools/record_fixtures.py --list

Each fixture in :data:`FIXTURES` is one ``floorcalc report`` of a model file (the recipe its
trace was recorded with): OUTDIR gets ``NAME.trace.json.gz`` and the report ``NAME.json``, and a
table sets each new report's pass figures beside the committed golden's
(tests/data/golden/NAME.json), so a reader sees at once whether the new run looks like the old.
``plain`` records tests/data/plain/ again: traces made with bare torch.profiler calls (no
floorcalc metadata) of eager, torch.compile and CUDA-graph runs, the graph captures, and
Inductor's debug output (:func:`record_plain`).

Nothing is written outside OUTDIR and nothing there is overwritten. To adopt a new recording,
copy the traces over tests/data/ (``plain/`` over tests/data/plain/), run
``python3 tests/golden.py --update`` and review the golden diff like code (tests/golden.py).
Runs from the repository root with the machine's own torch; about 4 minutes for all on an H200.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Tuple

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "golden"


@dataclass(frozen=True)
class Fixture:
    """``tests/data/NAME.trace.json.gz``: ``floorcalc report MODEL --device cuda -q ARGS``."""

    name: str
    model: str
    args: Tuple[str, ...]
    what: str


#: every fixture tests/golden.py checks, with the recipe it was recorded with
FIXTURES = (
    Fixture("h200_gpt2", "examples/gpt2.py", ("--iters", "2"), "GPT-2 small, bf16, 2 passes"),
    Fixture("h200_k13_pageable_copy", "tests/data/models/k13_pageable_copy.py", ("--iters", "2"),
            "a pageable host-to-device copy between kernels"),
    Fixture("h200_k14_item", "tests/data/models/k14_item.py", ("--iters", "2"), "a .item() sync mid-pass"),
    Fixture("h200_two_streams", "tests/data/models/two_streams.py", ("--iters", "2"), "work on two streams"),
    Fixture("h200_tiny_ops", "tests/data/models/tiny_ops.py", ("--iters", "2"), "launch-bound tiny kernels"),
    Fixture("h200_cold_mlp", "examples/mlp.py", ("--warmup", "0", "--iters", "1"), "the MLP with no warm-up"),
    Fixture("h200_mlp_eager", "examples/mlp.py", ("--iters", "3"), "the MLP, eager"),
    Fixture("h200_mlp_graphs", "examples/mlp.py", ("--iters", "3", "--cuda-graphs"), "the MLP, CUDA-graph replays"),
    Fixture("h200_mlp_compiled", "examples/mlp.py", ("--iters", "3", "--compile"), "the MLP, torch.compile"),
    Fixture("h200_llama_decode_eager", "examples/llama_decode.py", ("--iters", "3"), "a Llama decode step, eager"),
    Fixture("h200_llama_decode_graphs", "examples/llama_decode.py", ("--iters", "3", "--cuda-graphs"),
            "a Llama decode step, CUDA-graph replays"),
    Fixture("h200_llama_decode_compiled", "examples/llama_decode.py", ("--iters", "3", "--compile"),
            "a Llama decode step, torch.compile"),
)
#: the recording made with bare torch.profiler calls (tests/data/plain/)
PLAIN = "plain"
NAMES = tuple(f.name for f in FIXTURES) + (PLAIN,)


def record_report_fixture(f: Fixture, outdir: Path, device: str = "cuda") -> Path:
    """Run ``f``'s recipe; returns the report JSON written."""
    out = outdir / f"{f.name}.json"
    cmd = [sys.executable, "-m", "floorcalc", "report", f.model, "--device", device, "-q", *f.args,
           "--trace-out", str(outdir / f"{f.name}.trace.json.gz"), "-o", str(out)]
    print("$ python3 " + " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)
    return out


#: the pass figures set beside the golden's
FIGURES = ("wall_us", "gpu_busy_us", "floor_us", "uncounted_share", "mbu")


def beside_golden(name: str, report: Path) -> str:
    """One line: the new report's pass figures / the golden's, and the op counts."""
    new = json.loads(report.read_text())
    old_path = GOLDEN / f"{name}.json"
    old = json.loads(old_path.read_text()) if old_path.exists() else {"summary": {}, "ops": []}

    def fig(v):
        return "-" if v is None else f"{v:.4g}"

    cells = [f"{k} {fig(new['summary'].get(k))}/{fig(old['summary'].get(k))}" for k in FIGURES]
    return f"{name:28s} ops {len(new['ops'])}/{len(old['ops'])}  " + "  ".join(cells)


def record_plain(outdir: Path) -> None:
    """Traces made without floorcalc (what a user brings to ``floorcalc analyze``), under
    ``outdir``: for the MLP (examples/mlp.py, bf16) and the Llama decode step
    (examples/llama_decode.py), eager, torch.compile (default mode) and CUDA-graph replay traces
    (2 passes each, record_shapes, ProfilerStep ranges), each graph's capture traced on its own
    (``*_graph.capture``), and Inductor's debug output (generated code with each kernel's
    inductor_meta, provenance mappings) under ``outdir/inductor/``. Prints step times."""
    import os
    import runpy
    import time

    import torch
    from torch.profiler import ProfilerActivity, profile, record_function

    outdir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TORCH_COMPILE_DEBUG_DIR", str(outdir / "inductor"))
    import torch._inductor.config as ic

    ic.trace.enabled = True
    ic.trace.debug_dir = str(outdir / "inductor")
    if hasattr(ic.trace, "provenance_tracking_level"):
        ic.trace.provenance_tracking_level = 1
    if hasattr(ic.trace, "provenance_tracking"):
        ic.trace.provenance_tracking = True
    ic.benchmark_kernel = True  # inductor_meta then carries kernel_num_gb
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]

    def trace(step, name, iters=2):
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(20):
            step()
        torch.cuda.synchronize()
        bare = (time.perf_counter() - t0) / 20 * 1e6
        with profile(activities=acts, record_shapes=True) as p:
            for i in range(iters):
                with record_function(f"ProfilerStep#{i}"):
                    step()
            torch.cuda.synchronize()
            p.add_metadata_json("floorcalc", json.dumps({"bare_wall_us": bare, "iters": iters, "allow_tf32": False,
                                                         "note": f"tools/record_fixtures.py plain {name}"}))
        p.export_chrome_trace(str(outdir / f"{name}.trace.json.gz"))
        print(f"{name}: bare {bare:.1f} us per step", flush=True)

    def graph_of(step, name):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with profile(activities=acts, record_shapes=True) as p:
            with torch.cuda.graph(g):
                step()
            torch.cuda.synchronize()
        p.export_chrome_trace(str(outdir / f"{name}.capture.trace.json.gz"))
        return g.replay

    sys.path.insert(0, str(ROOT / "examples"))
    with torch.inference_mode():
        mlp = runpy.run_path(str(ROOT / "examples" / "mlp.py"))
        model = mlp["get_model"]().cuda().to(torch.bfloat16).eval()
        (x,) = mlp["get_inputs"]()
        x = x.cuda().to(torch.bfloat16)
        trace(lambda: model(x), "mlp_eager")
        compiled = torch.compile(model)
        trace(lambda: compiled(x), "mlp_compiled")
        trace(graph_of(lambda: model(x), "mlp_graph"), "mlp_graph")

        dec = runpy.run_path(str(ROOT / "examples" / "llama_decode.py"))
        dec["setup"]("cuda")
        step = dec["step"]
        trace(step, "decode_eager")
        compiled_dec = torch.compile(dec["get_model"]("cuda"))
        tok = torch.zeros((1, 1), dtype=torch.long, device="cuda")
        pos = dec["cache_len"]()
        trace(lambda: compiled_dec(tok, start_pos=pos), "decode_compiled")
        trace(graph_of(step, "decode_graph"), "decode_graph")


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(prog="tools/record_fixtures.py", description=__doc__.split("\n\n")[0])
    p.add_argument("outdir", type=Path, nargs="?", help="a new (or empty) folder for the recordings")
    p.add_argument("names", nargs="*", metavar="NAME", help=f"fixtures to record (default: all): {', '.join(NAMES)}")
    p.add_argument("--list", action="store_true", help="list the fixtures and their recipes")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                   help="cpu: run the recipes on the CPU, only to test this script on a machine without a GPU")
    args = p.parse_args(argv)
    if args.list:
        for f in FIXTURES:
            print(f"{f.name:28s} floorcalc report {f.model} --device cuda {' '.join(f.args)}   ({f.what})")
        print(f"{PLAIN:28s} bare torch.profiler: eager, compiled and graph traces, Inductor debug output")
        return 0
    if args.outdir is None:
        p.error("name OUTDIR")
    unknown = [n for n in args.names if n not in NAMES]
    if unknown:
        p.error(f"unknown fixture(s) {', '.join(unknown)}; see --list")
    args.outdir = args.outdir.resolve()  # the recipes run from the repository root
    if args.outdir.exists() and any(args.outdir.iterdir()):
        p.error(f"{args.outdir} is not empty; name a new folder (recordings are never overwritten)")
    args.outdir.mkdir(parents=True, exist_ok=True)
    names = args.names or list(NAMES)
    lines, failed = [], []
    for f in FIXTURES:
        if f.name in names:
            try:
                lines.append(beside_golden(f.name, record_report_fixture(f, args.outdir, args.device)))
            except subprocess.CalledProcessError as e:
                failed.append(f"{f.name} (exit {e.returncode})")
    if PLAIN in names:
        record_plain(args.outdir / PLAIN)
    if lines:
        print(f"\nnew / golden, per pass ({', '.join(FIGURES)}):")
        print("\n".join(lines))
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
