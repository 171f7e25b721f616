"""Record traces of compiled and graph-captured execution on a GPU, for issue 7 (offline work).

    python3 tools/record_issue7.py OUTDIR

Writes, for the MLP (examples/mlp.py, bf16) and the Llama decode step (examples/llama_decode.py):
eager, torch.compile (default mode) and CUDA-graph replay traces (2 profiled passes each, record_shapes,
ProfilerStep ranges), the graph *capture* traced too, and Inductor's debug output (generated code
with each kernel's inductor_meta, provenance mappings) under OUTDIR/inductor/. Prints step times.
"""
import json
import os
import runpy
import sys
import time
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, record_function

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
root = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(root / "examples"))
os.environ.setdefault("TORCH_COMPILE_DEBUG_DIR", str(out / "inductor"))
import torch._inductor.config as ic  # noqa: E402

ic.trace.enabled = True
ic.trace.debug_dir = str(out / "inductor")
for name in ("provenance_tracking_level",):
    if hasattr(ic.trace, name):
        setattr(ic.trace, name, 1)
if hasattr(ic.trace, "provenance_tracking"):
    ic.trace.provenance_tracking = True
ic.benchmark_kernel = True  # inductor_meta then carries kernel_num_gb


def trace(step, name, iters=2):
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(20):
        step()
    torch.cuda.synchronize()
    bare = (time.perf_counter() - t0) / 20 * 1e6
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as p:
        for i in range(iters):
            with record_function(f"ProfilerStep#{i}"):
                step()
        torch.cuda.synchronize()
        p.add_metadata_json("floorcalc", json.dumps({"bare_wall_us": bare, "iters": iters, "allow_tf32": False,
                                                     "note": f"tools/record_issue7.py {name}"}))
    path = out / f"{name}.trace.json.gz"
    p.export_chrome_trace(str(path))
    print(f"{name}: bare {bare:.1f} us per step -> {path.name}", flush=True)


def graph_of(step, name):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as p:
        with torch.cuda.graph(g):
            step()
        torch.cuda.synchronize()
    p.export_chrome_trace(str(out / f"{name}.capture.trace.json.gz"))
    return g.replay


with torch.inference_mode():
    mlp = runpy.run_path(str(root / "examples" / "mlp.py"))
    model = mlp["get_model"]().cuda().to(torch.bfloat16).eval()
    (x,) = mlp["get_inputs"]()
    x = x.cuda().to(torch.bfloat16)
    trace(lambda: model(x), "mlp_eager")
    cm = torch.compile(model)
    trace(lambda: cm(x), "mlp_compiled")
    trace(graph_of(lambda: model(x), "mlp_graph"), "mlp_graph")

    dec = runpy.run_path(str(root / "examples" / "llama_decode.py"))
    dec["setup"]("cuda")
    step = dec["step"]
    trace(step, "decode_eager")
    m = dec["get_model"]("cuda")
    cstep_model = torch.compile(m)
    tok = torch.zeros((1, 1), dtype=torch.long, device="cuda")
    pos = dec["cache_len"]()
    trace(lambda: cstep_model(tok, start_pos=pos), "decode_compiled")
    trace(graph_of(step, "decode_graph"), "decode_graph")
print("done")
