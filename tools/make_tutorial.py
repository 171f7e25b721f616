"""Write docs/examples/tutorial.ipynb (its cells, below) and run it top to bottom, so that the
committed notebook holds the outputs of a real run:

    .venv/bin/python tools/make_tutorial.py          # about 30 s on a CPU

It runs in a temporary folder holding a copy of docs/examples/gpt2.h200.trace.json.gz (the
traces the notebook writes land there, not in the repository). CI runs the committed notebook
again the same way (tests/integration/test_tutorial_notebook.py).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "examples" / "tutorial.ipynb"
#: what the notebook reads besides what it makes
INPUTS = [ROOT / "docs" / "examples" / "gpt2.h200.trace.json.gz"]

CELLS = [
    ("md", """# floorcalc in your own profiler code

You already profile with `torch.profiler`: keep your code, your schedule and your options, and hand
the profiler to floorcalc. It tells you, for every op of the step, how far it is from its hardware
floor `max(F/P, B/W) + L`, and where the rest of the wall time goes.

This notebook runs on a CPU in seconds (a small model); the second half reads a trace recorded on an
NVIDIA H200, where floorcalc also has a device timeline (gaps, copies, the decomposition) and
what-if projections."""),
    ("code", """import torch
from torch.profiler import ProfilerActivity, profile, schedule

import floorcalc

torch.manual_seed(0)


class Block(torch.nn.Module):
    \"\"\"A small pre-norm transformer block: attention, then an MLP.\"\"\"

    def __init__(self, d=128, heads=4):
        super().__init__()
        self.norm1 = torch.nn.LayerNorm(d)
        self.attn = torch.nn.MultiheadAttention(d, heads, batch_first=True)
        self.norm2 = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


model = torch.nn.Sequential(Block(), Block()).eval()
x = torch.randn(4, 64, 128)"""),
    ("md", """## 1. Your profiler, as you write it

A schedule (skip one step, warm up one, record three), `record_shapes=True` (floorcalc counts FLOPs
and bytes from the shapes) and `prof.step()` after each step. The one line of floorcalc's,
`floorcalc.label_modules(model)`, is optional: it records which module each op ran in (as
`floorcalc report` does), so the report can group the ops by layer."""),
    ("code", """activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])

with torch.inference_mode(), floorcalc.label_modules(model), \\
        profile(activities=activities, record_shapes=True, schedule=schedule(wait=1, warmup=1, active=3, repeat=1)) as prof:
    for _ in range(5):
        model(x)
        prof.step()"""),
    ("md", """## 2. Hand it to floorcalc

`floorcalc.analyze(prof)` writes the profiler's trace (here to `tutorial.trace.json.gz`; never over
another file unless `force=True`), reads it back and returns a report. In a notebook the report shows
itself as the HTML report: the pass summary, the what-if section (GPU runs), the pictures, the ops
grouped by layer, the ceilings and the notes.

Two figures need floorcalc's own runs and are marked *not measured* here: the step's time without the
profiler and the profiler's distortion (`floorcalc report MODEL.py` or `floorcalc.report(model, x)`
measure them)."""),
    ("code", """rep = floorcalc.analyze(prof, trace_out="tutorial.trace.json.gz", force=True)
rep"""),
    ("md", """## 3. Every table as a DataFrame

`to_dataframe()` gives the ops (the default), and `to_dataframe(name)` every other table: `kernels`,
`groups`, `summary`, `decomposition`, `gaps`, `idle`, `copies`, `waits`, `ranges`, `collectives`,
`whatif`. The columns are the JSON report's keys, units in their names. `bound` is the larger term of
the floor (what would limit the op at its floor), not what limits it now."""),
    ("code", """ops = rep.to_dataframe()
ops[["name", "module", "calls", "duration_us", "floor_us", "efficiency", "bound"]].head(8)"""),
    ("code", """rep.to_dataframe("summary")[["label", "value", "unit"]]"""),
    ("md", """## 4. Every cycle of a schedule: `on_trace_ready`

With a schedule that repeats, pass `floorcalc.on_trace_ready(folder)` as the profiler's
`on_trace_ready`: each cycle's trace goes into the folder under a new name (TensorBoard's profiler
plugin reads them), is analysed, and its report kept (`handler.reports`) and, if asked, written beside
it (`formats=("html", "json")`)."""),
    ("code", """handler = floorcalc.on_trace_ready("traces", formats=("json",), worker_name="tutorial")
with torch.inference_mode(), floorcalc.label_modules(model), \\
        profile(activities=activities, record_shapes=True, on_trace_ready=handler,
                schedule=schedule(wait=1, warmup=1, active=2, repeat=2)) as prof:
    for _ in range(8):
        model(x)
        prof.step()

[(r.summary.passes, round(r.summary.wall_us), r.ops[0].name) for r in handler.reports]"""),
    ("md", """## 5. On a GPU: where the wall time goes, and what if

A trace recorded on an NVIDIA H200 (GPT-2 small, a 256-token prefill; `docs/examples/README.md` says
how it was made). On a GPU the report also splits each pass into hardware floor, kernel excess, data
movement, host overhead, blocking and other, and puts each idle gap down to what the host was
doing."""),
    ("code", """gpu = floorcalc.analyze("gpt2.h200.trace.json.gz")
gpu.to_dataframe("decomposition")[["which", "label", "wall_us", "floor_us", "excess_us", "data_movement_us",
                                   "host_overhead_us", "blocking_us", "other_us", "bound"]]"""),
    ("code", """gaps = gpu.to_dataframe("gaps")
gaps[["at_us", "duration_us", "cause", "op", "after", "before"]].head(5)"""),
    ("code", """gpu.to_dataframe("copies")[["name", "direction", "bytes", "duration_us", "achieved_bytes_per_s", "floor_us"]].head(5)"""),
    ("md", """What if: the report's own projections (no host overhead as with CUDA graphs, fused elementwise
chains, every kernel at its floor), and with `project()` the same pass on another GPU or at another
batch size, each with the figures it rests on."""),
    ("code", """more = gpu.project(on=["b200"], batch=[16])
more.to_dataframe("whatif")[["label", "step_us", "parts_us.floor_us", "parts_us.excess_us", "parts_us.host_overhead_us"]]"""),
    ("md", """The whole GPU report, as it shows itself (the picture of one pass and the roofline inline):"""),
    ("code", """gpu"""),
]


def build() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for kind, text in CELLS:
        nb.cells.append(nbformat.v4.new_markdown_cell(text) if kind == "md" else nbformat.v4.new_code_cell(text))
    return nb


def execute(nb: nbformat.NotebookNode, timeout: int = 300) -> float:
    """Run ``nb`` in place, in a fresh temporary folder holding :data:`INPUTS`; seconds taken."""
    with tempfile.TemporaryDirectory(prefix="floorcalc-tutorial-") as d:
        for f in INPUTS:
            shutil.copy(f, d)
        t0 = time.perf_counter()
        NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": d}}).execute()
        return time.perf_counter() - t0


def main() -> int:
    nb = build()
    took = execute(nb)
    for i, cell in enumerate(nb.cells):  # ids that do not change from one run to the next
        cell["id"] = f"cell-{i}"
        if cell.cell_type == "code":
            cell["execution_count"] = None
            for out in cell.get("outputs", []):
                if "execution_count" in out:
                    out["execution_count"] = None
    nbformat.write(nb, NOTEBOOK)
    print(f"wrote {NOTEBOOK.relative_to(ROOT)} ({NOTEBOOK.stat().st_size / 1e3:.0f} kB) in {took:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
