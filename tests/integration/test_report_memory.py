"""`floorcalc report --profile-memory` on CPU: the allocator events reach the timeline."""

import json
from pathlib import Path

from floorcalc.cli import main

MLP = Path(__file__).resolve().parents[2] / "examples" / "mlp.py"


def test_profile_memory_gives_peak_per_pass_and_growth(tmp_path):
    trace, out = tmp_path / "mlp.trace.json.gz", tmp_path / "mlp.json"
    code = main(["report", str(MLP), "--device", "cpu", "--warmup", "1", "--iters", "2", "-q", "--profile-memory",
                 "--trace-out", str(trace), "-o", str(out)])
    assert code == 0
    rep = json.loads(out.read_text())
    (cpu,) = [m for m in rep["timeline"]["memory"] if m["device"] == "cpu"]
    assert len(cpu["peak_allocated_bytes"]) == 2 and min(cpu["peak_allocated_bytes"]) > 0
    assert cpu["samples"] > 0
    assert cpu["growth_bytes"] == cpu["end_allocated_bytes"] - cpu["start_allocated_bytes"]
