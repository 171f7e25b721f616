"""GPU path for real: run on a machine with CUDA via `pytest -m gpu`."""

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]

ROOT = Path(__file__).resolve().parents[2]


def run_report(tmp_path, model, *extra):
    from floorcalc.cli import main

    out = tmp_path / "r.json"
    code = main(["report", str(ROOT / "examples" / model), "--device", "cuda", "-q", "--iters", "3",
                 "--trace-out", str(tmp_path / "t.trace.json.gz"), "-o", str(out), *extra])
    assert code == 0
    return json.loads(out.read_text())


def test_mlp_on_cuda_every_kernel_is_owned(tmp_path):
    rep = run_report(tmp_path, "mlp.py")
    assert rep["target"] == "cuda" and rep["device"]["key"] != "cpu-generic"
    # no device work without a launching op in a plain eager forward
    assert rep["summary"]["unattributed_us"] == 0
    names = {o["name"] for o in rep["ops"]}
    assert "aten::linear" in names
    # L was measured on this GPU: a few microseconds
    fig = rep["device"]["figures"]["launch_latency_us"]
    assert fig["basis"] == "measured" and 0.3 < fig["value"] < 20
    # the floor is below the measured time for the GEMMs
    for o in rep["ops"]:
        if o["name"] == "aten::linear":
            assert o["efficiency"] is not None and 0 < o["efficiency"] <= 1.0
    s = rep["summary"]
    assert 0 < s["gpu_busy_us"] <= s["wall_us"] and s["bare_wall_us"] > 0


def test_gpt2_on_cuda_is_counted(tmp_path):
    rep = run_report(tmp_path, "gpt2.py")
    s = rep["summary"]
    assert s["uncounted_share"] < 0.01, [o for o in rep["ops"] if o["bound"] == "uncounted"]
    # 12 blocks x 4 linears + lm_head: 2*tokens*768*(2304+768+3072+3072)*12 + 2*tokens*768*50257 (+ biases)
    tokens = 256
    gemm = 2 * tokens * 768 * 9216 * 12 + 2 * tokens * 768 * 50257
    lin = sum(o["flop"] for o in rep["ops"] if o["name"] == "aten::linear")
    assert lin == pytest.approx(gemm, rel=0.01)


def test_device_detects_the_gpu_through_nvml(capsys):
    from floorcalc.cli import main
    from floorcalc.device import detect_gpu, match_spec

    detected = detect_gpu()
    assert detected is not None and detected.name == torch.cuda.get_device_name()
    assert match_spec(detected.name) is not None
    assert main(["device"]) == 0
    assert detected.name in capsys.readouterr().out


def test_calibrate_quick_writes_a_usable_spec(tmp_path):
    from floorcalc.cli import main
    from floorcalc.device import load_file

    out = tmp_path / "cal.yaml"
    assert main(["calibrate", "--quick", "-o", str(out)]) == 0
    spec = load_file(out)
    assert spec.peak_flop_per_s["tensor.bfloat16"].basis == "measured"
    assert 1e12 < spec.peak_flop_per_s["tensor.bfloat16"].value < 5e15
    assert 1e11 < spec.mem_bytes_per_s.value < 2e13
    assert spec.l2_bytes_per_s is not None and spec.l2_bytes_per_s.value > 0
    assert 0.1 < spec.launch_latency_us.value < 20


def test_cuda_graph_replays_are_attributed_like_eager(tmp_path):
    """--cuda-graphs: every replayed kernel owned by a captured op, counted FLOPs as in eager."""
    (tmp_path / "e").mkdir()
    (tmp_path / "g").mkdir()
    eager = run_report(tmp_path / "e", "mlp.py")
    graphs = run_report(tmp_path / "g", "mlp.py", "--cuda-graphs")
    assert graphs["summary"]["unattributed_us"] == 0 and graphs["summary"]["uncounted_share"] == 0
    assert graphs["summary"]["flop"] == eager["summary"]["flop"]
    assert {(o["name"], o["module"], o["calls"]) for o in graphs["ops"]} == \
           {(o["name"], o["module"], o["calls"]) for o in eager["ops"]}
    assert any("CUDA graphs" in n for n in graphs["timeline"]["notes"])


@pytest.mark.parametrize("model", ["mlp.py", "llama_decode.py"])
def test_compiled_kernels_are_counted_like_eager(tmp_path, model):
    """--compile: Triton kernels counted from Inductor's records; FLOPs within 1% of eager, and
    no uncounted kernels above 1% of GPU time."""
    (tmp_path / "e").mkdir()
    (tmp_path / "c").mkdir()
    eager = run_report(tmp_path / "e", model)
    comp = run_report(tmp_path / "c", model, "--compile")
    assert comp["summary"]["flop"] == pytest.approx(eager["summary"]["flop"], rel=0.01)
    assert comp["summary"]["uncounted_share"] < 0.01
    assert any(n["text"].startswith("torch.compile:") for n in comp["notes"])  # Note records {kind, text}


def test_quick_on_cuda_runs_one_lean_set_and_says_so(tmp_path):
    """report --quick on a GPU: 1 warm-up + one unprofiled set of 3 passes, one lean set of 3
    (after its untimed pass), the profiled session's untimed pass + 1 profiled pass; the lean
    set joined (the figures of the unprofiled step), and the note names the one lean set."""
    from floorcalc.cli import main

    model = tmp_path / "counting.py"
    log = tmp_path / "calls.txt"
    model.write_text(f'''
import torch

X = None


def setup(device):
    global X
    X = torch.randn(256, 256, device=device)


def step():
    with open({str(log)!r}, "a") as f:
        f.write("%d\\n" % torch.autograd.profiler._is_profiler_enabled)
    return X @ X
''')
    out = tmp_path / "q.json"
    assert main(["report", str(model), "--device", "cuda", "-q", "--quick", "--trace-out",
                 str(tmp_path / "q.trace.json.gz"), "-o", str(out)]) == 0
    calls = log.read_text().split()
    assert (calls.count("0"), calls.count("1")) == (4, 4 + 2), calls
    rep = json.loads(out.read_text())
    q = rep["capture"]["quick"]
    assert q["unprofiled_sets"] == 1 and any("one lean set" in x for x in q["without_spread"])
    notes = [n["text"] for n in rep["notes"]]
    assert any(t.startswith("quick report (1 warm-up pass, one unprofiled set of 3 passes, one lean set of as many")
               for t in notes), notes
    st = rep["timeline"]["step_times"]
    assert st["basis"] == "unprofiled" and st["lean"]["samples"] == 1, st
