"""Run examples/gpt2.py warmed up, then one pass inside cudaProfilerStart/Stop, for
`ncu --profile-from-start off` to measure each kernel's DRAM bytes and duration.

    ncu --clock-control none --profile-from-start off --metrics dram__bytes_read.sum,\
dram__bytes_write.sum,gpu__time_duration.sum --csv python3 tools/ncu_gpt2.py
"""
import runpy
import sys
from pathlib import Path

import torch

root = Path(__file__).resolve().parents[1]
mod = runpy.run_path(str(root / "examples" / "gpt2.py"))
with torch.inference_mode():
    model = mod["get_model"](device="cuda").cuda().eval()
    (idx,) = mod["get_inputs"](device="cuda")
    idx = idx.cuda()
    for _ in range(3):
        model(idx)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    model(idx)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
print("done", file=sys.stderr)
