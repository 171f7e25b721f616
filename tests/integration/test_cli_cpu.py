"""The CLI end to end on CPU: report on a real model, analyze its trace, and every bad input."""

import json
import os
import shutil
from pathlib import Path

import pytest

from builders import KinetoBuilder, tensor_args
from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.py"


@pytest.fixture(scope="module")
def mlp_run(tmp_path_factory):
    """One real CPU report of examples/mlp.py: (exit code, trace path, JSON dict)."""
    d = tmp_path_factory.mktemp("mlp")
    trace, out = d / "mlp.trace.json.gz", d / "mlp.json"
    code = main(["report", str(MLP), "--device", "cpu", "--warmup", "1", "--iters", "2", "-q",
                 "--trace-out", str(trace), "-o", str(out)])
    return code, trace, json.loads(out.read_text()) if out.exists() else None


def test_report_on_cpu_writes_trace_and_json(mlp_run):
    code, trace, rep = mlp_run
    assert code == 0 and trace.exists() and trace.read_bytes()[:2] == b"\x1f\x8b"
    assert rep["schema_version"] == 2 and rep["target"] == "cpu" and rep["summary"]["passes"] == 2
    ops = {(o["name"], o["module"]): o for o in rep["ops"]}
    # the three Linear layers are counted at aten::linear with their module paths
    lin = ops[("aten::linear", "1")]
    assert lin["flop"] == 2 * 64 * 784 * 512 + 64 * 512
    assert lin["bound"] in ("compute", "memory", "overhead") and lin["floor_us"] > 0
    assert ops[("aten::linear", "5")]["flop"] == 2 * 64 * 512 * 10 + 64 * 10
    # every hardware figure says where it came from
    figs = rep["device"]["figures"]
    assert figs["launch_latency_us"]["basis"] == "measured" and "probe" in figs["launch_latency_us"]["source"]
    assert figs["mem_bytes_per_s"]["basis"] == "measured"
    s = rep["summary"]
    assert s["wall_us"] > 0 and s["bare_wall_us"] > 0
    # measured only beyond the bare sets' own spread (a loaded CPU can make it noise: null, and a note says so)
    from floorcalc.classify.units import profiler_distortion

    runs = rep["capture"]["bare_wall_us_runs"]
    expected = profiler_distortion(s["wall_us"], s["bare_wall_us"], runs)
    assert s["profiler_distortion"] == (pytest.approx(expected) if expected is not None else None)
    notes = " ".join(n["text"] if isinstance(n, dict) else n for n in rep["notes"])
    if expected is None and "profiler distortion:" in notes:
        assert "not measurable with shapes and module ranges" in notes
    # K10 batched by 64: GEMMs 2*64*668,672 + bias adds 64*1,034 + ReLUs 64*1,024
    assert s["floor_us"] > 0 and s["flop"] == 2 * 64 * 668_672 + 64 * 1_034 + 64 * 1_024


def test_analyze_reproduces_the_report_from_its_trace(mlp_run, tmp_path):
    _, trace, rep = mlp_run
    out = tmp_path / "again.json"
    assert main(["analyze", str(trace), "-o", str(out)]) == 0
    again = json.loads(out.read_text())
    assert [(o["name"], o["module"], o["flop"]) for o in again["ops"]] == \
           [(o["name"], o["module"], o["flop"]) for o in rep["ops"]]
    assert again["summary"]["wall_us"] == pytest.approx(rep["summary"]["wall_us"])
    assert again["device"]["launch_latency_us"] == pytest.approx(rep["device"]["launch_latency_us"])


def test_table_output(mlp_run, capsys):
    _, trace, _ = mlp_run
    assert main(["analyze", str(trace), "--top", "1"]) == 0
    out = capsys.readouterr().out
    for needle in ("aten::linear", "pass summary", "sum of floors", "more groups"):
        assert needle in out, needle


def test_existing_trace_is_never_overwritten(mlp_run, tmp_path, capsys):
    _, trace, _ = mlp_run
    before = trace.read_bytes()
    code = main(["report", str(MLP), "--device", "cpu", "-q", "--trace-out", str(trace)])
    assert code == 8 and trace.read_bytes() == before
    assert "exists; pass --force" in capsys.readouterr().err


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("make, code, message, where", [
    (lambda d: d / "nope.py", 3, "model file not found", None),
    (lambda d: write(d, "m.py", "x = 1\n"), 3, "defines neither step() nor get_model() and get_inputs()", None),
    (lambda d: write(d, "m.py", "def get_model(:\n"), 3, "syntax error", None),
    (lambda d: write(d, "m.py", "import no_such_module_xyz\n"), 3, "failed to import", "line 1, in <module>"),
    (lambda d: write(d, "m.py", "import torch\ndef get_model():\n    raise ValueError('boom')\n"
                               "def get_inputs():\n    return ()\n"), 4, "get_model() raised ValueError: boom",
     "line 3, in get_model"),
    # the forward is torch's own (no frame of the user's): the error line alone
    (lambda d: write(d, "m.py", "import torch\ndef get_model():\n    return torch.nn.Linear(3, 3)\n"
                               "def get_inputs():\n    return (torch.randn(2, 5),)\n"), 4, "forward raised", None),
    (lambda d: write(d, "m.py", "import torch\ndef get_model():\n    return torch.nn.Linear(3, 3)\n"
                               "def get_inputs():\n    return 5\n"), 3, "must return a tuple", None),
])
def test_bad_model_files(tmp_path, capsys, make, code, message, where, user_mode):
    """One error line; when the user's code raised, their frames of it after that line (issue 27),
    never a Python traceback of floorcalc's."""
    path = make(tmp_path)
    rc = main(["report", str(path), "--device", "cpu", "-q", "--warmup", "0", "--iters", "1",
               "--trace-out", str(tmp_path / "t.json.gz")])
    err = capsys.readouterr().err
    assert rc == code, err
    first, *rest = err.splitlines()
    assert first.startswith("floorcalc: error: ") and message in first, err
    if where is None:
        assert rest == [], err
    else:
        assert rest[0].startswith("Traceback of your code") and f'File "{path}", {where}' in rest[1], err
        assert "Traceback (most recent call last)" not in err and "floorcalc" + os.sep not in "\n".join(rest), err


def test_no_gpu_for_device_cuda(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    rc = main(["report", str(MLP), "--device", "cuda", "-q", "--trace-out", str(tmp_path / "t.json.gz")])
    assert rc == 5 and "sees no CUDA GPU" in capsys.readouterr().err


def test_bad_traces(tmp_path, capsys):
    assert main(["analyze", str(tmp_path / "missing.json")]) == 6
    (tmp_path / "trunc.json").write_text('{"traceEvents": [{"ph": "X"')
    assert main(["analyze", str(tmp_path / "trunc.json")]) == 6
    (tmp_path / "other.json").write_text('{"hello": "world"}')
    assert main(["analyze", str(tmp_path / "other.json")]) == 6
    err = capsys.readouterr().err
    assert err.count("floorcalc: error:") == 3 and "Traceback" not in err


def test_unknown_gpu_without_spec(tmp_path, capsys):
    # GIVEN a GPU no spec names, whose deviceProperties say Hopper (9.0), 132 SMs, 150 GB
    b = KinetoBuilder(gpu_name="NVIDIA Imaginary 9000")
    b.step(0, 0.0, 10.0)
    ext = b.op("aten::relu", 1.0, 5.0, tensor_args([4]))
    b.launch(2.0, 3.0, 2.0, ext=ext)
    p = b.write(tmp_path / "t.json")
    # THEN a spec is derived from the nearest Hopper spec, with a warning that says so (issue 17)
    assert main(["analyze", str(p), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert "NVIDIA Imaginary 9000" in err and "derived" in err and "--spec" in err
    assert json.loads(out)["device"]["key"] == "derived-nvidia-imaginary-9000"
    # with a packaged spec named explicitly it is that one (--spec wins)
    assert main(["analyze", str(p), "--spec", "h200", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["device"]["key"] == "h200"
    # a GPU with nothing to derive from (no properties) is analysed without a spec: the timeline
    # and the counts, the note saying what a spec would add (item 6; tests/integration/test_no_spec.py)
    data = json.loads(p.read_text())
    data["deviceProperties"] = [{"id": 0, "name": "NVIDIA Imaginary 9000"}]
    p.write_text(json.dumps(data))
    assert main(["analyze", str(p), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["device"]["key"] == "none" and report["device"]["name"] == "NVIDIA Imaginary 9000"
    assert any("a spec would add" in n["text"] for n in report["notes"])


def test_output_errors(tmp_path, capsys, mlp_run):
    _, trace, _ = mlp_run
    assert main(["analyze", str(trace), "-o", str(tmp_path / "no" / "dir" / "x.json")]) == 8
    existing = write(tmp_path, "x.json", "keep me")
    assert main(["analyze", str(trace), "-o", str(existing)]) == 8
    assert existing.read_text() == "keep me"
    assert main(["analyze", str(trace), "-o", str(tmp_path / "x.unknownext")]) == 2
    assert main(["analyze", str(trace), "-o", str(existing), "--force"]) == 0
    assert json.loads(existing.read_text())["schema_version"] == 2


def test_device_command_offline(capsys):
    assert main(["device", "--name", "NVIDIA H200"]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA H200" in out and "ridge points" in out and "206.1" in out  # 989.5e12 / 4.8e12


def test_device_command_cpu(capsys):
    assert main(["device", "--device", "cpu"]) == 0
    assert "derived" in capsys.readouterr().out


def test_calibrate_without_gpu(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert main(["calibrate", "--device", "cuda"]) == 5
    assert "needs a CUDA GPU" in capsys.readouterr().err


def test_calibrate_on_cpu_measures_levels_and_keeps_them(tmp_path, monkeypatch, capsys):
    # GIVEN no ceilings cached yet (a fresh cache folder)
    monkeypatch.setenv("FLOORCALC_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "cpu.yaml"
    # WHEN calibrate runs on the CPU
    assert main(["calibrate", "--device", "cpu", "--quick", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "DRAM" in captured.out and "kept as this machine's CPU ceilings" in captured.err
    # THEN the spec it wrote loads, with measured L2/L3/DRAM and the derived L1
    from floorcalc.device import cpu_spec, load_file

    spec = load_file(out)
    assert spec.kind == "cpu" and spec.mem_bytes_per_s.basis == "measured"
    levels = {lv.name: lv for lv in spec.cache_levels}
    if levels:  # sysfs has cache folders on this machine
        # L1 is derived from the identified part's load width; where the measured FP32 rate rules
        # the table's part out (a rate no clock of it reaches: on this 2-vCPU VM when the machine
        # is idle), the width comes from the flags, and the figure says so and is "assumed"
        l1 = levels["l1"].bytes_per_s
        unknown = "microarchitecture unknown" in l1.source
        assert l1.basis == ("assumed" if unknown else "derived"), l1.source
        assert all(lv.bytes_per_s.basis == "measured" for k, lv in levels.items() if k != "l1")
    # AND every later CPU spec of this machine reads the cache instead of measuring again
    assert cpu_spec().mem_bytes_per_s.value == pytest.approx(spec.mem_bytes_per_s.value, rel=1e-5)
    assert (tmp_path / "cache" / "cpu-ceilings-2.json").is_file()
    # AND the FP32 and BF16 peaks are the rates it measured (issue 23)
    for key in ("tensor.float32", "tensor.bfloat16"):
        assert spec.peak_flop_per_s[key].basis == "measured", key
    assert "peak FP32" in captured.out and "BF16" in captured.out
    # an existing output is not overwritten without --force
    assert main(["calibrate", "--device", "cpu", "--quick", "-o", str(out)]) == 8


def test_unknown_gpu_on_this_machine_gets_a_derived_spec(monkeypatch, capsys):
    """NVML (faked) sees the GPU no spec matches: peaks derived from its clocks, with a warning."""
    from floorcalc.device import DetectedGpu
    from floorcalc.device.choice import choose_spec

    gpu = DetectedGpu(index=0, name="NVIDIA Imaginary 9000", sm_clock_max_mhz=2000, mem_clock_max_mhz=2600,
                      memory_bus_width_bits=5120, pcie_gen_max=5, pcie_width_max=16, compute_capability="9.0")
    monkeypatch.setattr("floorcalc.device.detect_gpu", lambda index=0: gpu)
    choice = choose_spec("cuda", "NVIDIA Imaginary 9000", None, sm_count=100, compute_capability="9.0")
    assert choice.spec.peak_flop_per_s["tensor.bfloat16"].basis == "derived"
    assert choice.how == "derived from this machine's NVML clocks"
    assert any("derived from NVML clocks" in w for w in choice.warnings)
    assert capsys.readouterr().err == ""  # a warning of the report, not a line of its own
    # a GPU that is not on this machine (a trace from elsewhere) is still an error
    with pytest.raises(Exception, match="no device spec matches"):
        choose_spec("cuda", "NVIDIA Other 1", None)


def test_modes_side_by_side_on_cpu(tmp_path, capsys):
    """--modes eager (the one mode a CPU runs here) gives a side-by-side table and a JSON per mode."""
    out = tmp_path / "modes.json"
    assert main(["report", str(MLP), "--device", "cpu", "-q", "--warmup", "1", "--iters", "1", "--modes", "eager",
                 "--trace-out", str(tmp_path / "m.trace.json.gz"), "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert list(doc["modes"]) == ["eager"] and doc["modes"]["eager"]["summary"]["flop"] > 0
    assert (tmp_path / "m.eager.trace.json.gz").exists()
    assert main(["report", str(MLP), "--device", "cpu", "-q", "--modes", "eager,cuda-graphs"]) == 2
    assert main(["report", str(MLP), "--device", "cpu", "-q", "--modes", "fast"]) == 2
    assert "--modes" in capsys.readouterr().err


def test_cuda_graphs_without_a_gpu_is_a_usage_error(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    rc = main(["report", str(MLP), "--device", "cpu", "-q", "--cuda-graphs", "--trace-out", str(tmp_path / "t.json.gz")])
    err = capsys.readouterr().err
    assert rc == 2 and "--cuda-graphs needs a CUDA device" in err and err.count("\n") == 1
    assert not (tmp_path / "t.json.gz").exists()


def test_modes_take_a_default_trace_name_each_with_the_mode_in_it(tmp_path, monkeypatch):
    # GIVEN no --trace-out (the README's --modes line), run twice within the same second
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        assert main(["report", str(MLP), "--device", "cpu", "-q", "--warmup", "1", "--iters", "1",
                     "--modes", "eager", "-o", str(tmp_path / f"m{_}.json")]) == 0
    # THEN each mode's trace is named for the model and the mode, and no run refused the other's name
    names = sorted(p.name for p in tmp_path.glob("*.trace.json.gz"))
    assert len(names) == 2 and all(n.startswith("mlp.eager.") for n in names), names
