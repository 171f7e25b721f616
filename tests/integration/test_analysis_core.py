"""One analysis core behind every entry point and every output (issue 10): the capture record is
read once, each event's floor is computed once and every output shows that one, and the Python
API and the CLI refuse the same inputs."""

import csv
import dataclasses
import glob
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

import golden
import floorcalc
from builders import KinetoBuilder
from floorcalc.analysis.driver import analyze
from floorcalc.cli import main
from floorcalc.device import load_spec
from floorcalc.util.errors import UsageError
from floorcalc.trace import load

ROOT = Path(__file__).resolve().parents[2]
MLP = golden.DATA / "h200_mlp_eager.trace.json.gz"   # 3 ProfilerSteps


# ---------------------------------------------------------------------------------------------
# the cuDNN TF32 flag, through every output


def conv_trace(path: Path, cudnn_allow_tf32: bool) -> Path:
    """One pass of a float32 conv2d (x [8, 64, 56, 56], w [64, 64, 3, 3], bias, stride 1,
    padding 1) launching one 400 us kernel, captured with cuDNN TF32 on or off."""
    b = KinetoBuilder()
    b.meta["floorcalc"] = {"device": "cuda", "gpu_name": "NVIDIA H200", "warmup": 3, "iters": 1,
                           "allow_tf32": False, "cudnn_allow_tf32": cudnn_allow_tf32, "torch_version": "2.11.0",
                           "cuda_version": "13.0", "model_file": "conv.py", "launch_latency_us": 2.0,
                           "launch_latency_source": "test"}
    b.step(0, 0.0, 500.0)
    args = {"Input Dims": [[8, 64, 56, 56], [64, 64, 3, 3], [64], [], [], [], []],
            "Input type": ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
            "Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"]}
    ext = b.op("aten::conv2d", 10.0, 20.0, args)
    b.launch(12.0, 40.0, 400.0, "cudnn_conv_fprop_fp32", ext=ext)
    return b.write(path)


def conv_outputs(tmp_path: Path, tf32: bool) -> dict:
    trace = conv_trace(tmp_path / f"conv_{tf32}.trace.json", tf32)
    out = {}
    for fmt, ext in (("json", "json"), ("table", "txt"), ("csv", "csv"), ("md", "md"), ("latex", "tex")):
        path = tmp_path / f"conv_{tf32}.{ext}"
        extra = ["--annotate-trace", str(tmp_path / f"conv_{tf32}.annotated.json")] if fmt == "json" else []
        assert main(["analyze", str(trace), "--spec", "h200", "--format", fmt, "-o", str(path), *extra]) == 0
        out[fmt] = path
    out["annotated"] = tmp_path / f"conv_{tf32}.annotated.json"
    return out


def test_conv_floored_at_the_vector_peak_in_every_output_when_cudnn_tf32_was_off(tmp_path):
    # GIVEN a float32 convolution captured with torch.backends.cudnn.allow_tf32 = False
    spec = load_spec("h200")
    off, on = conv_outputs(tmp_path, False), conv_outputs(tmp_path, True)
    rep = json.loads(off["json"].read_text())
    (row,) = [r for r in rep["ops"] if r["name"] == "aten::conv2d"]
    # THEN the report floors it at the FP32 vector peak: F / P_vector + one L
    assert row["peak_key"] == "vector.float32"
    expected = row["flop"] / spec.peak_flop_per_s["vector.float32"].value * 1e6 + 2.0
    assert row["floor_us"] == pytest.approx(expected, rel=1e-12) and 10 < expected < 1000
    rep_on = json.loads(on["json"].read_text())
    (row_on,) = [r for r in rep_on["ops"] if r["name"] == "aten::conv2d"]
    assert row_on["peak_key"] == "tensor.tfloat32" and row_on["floor_us"] < expected / 4  # the flag matters
    # and every other output shows that floor
    (kernel,) = rep["kernels"]
    assert kernel["floor_us"] == pytest.approx(expected, rel=1e-12)
    with off["csv"].open() as f:
        (csv_row,) = list(csv.DictReader(f))
    assert csv_row["peak_key"] == "vector.float32" and float(csv_row["floor_us"]) == pytest.approx(expected, rel=1e-9)
    shown = f"{expected:.1f}"
    for fmt in ("table", "md", "latex"):
        text = off[fmt].read_text()
        assert shown in text, fmt
        assert f"{row_on['floor_us']:.1f}" not in text, fmt
    events = json.loads(off["annotated"].read_text())["traceEvents"]
    (ev,) = [e for e in events if e.get("cat") == "kernel"]
    assert ev["args"]["floorcalc.peak_key"] == "vector.float32"
    assert ev["args"]["floorcalc.floor_us"] == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# the annotated trace and the report: one floor per event, on every committed trace

COMMITTED = sorted(glob.glob(str(ROOT / "tests/data/*.trace.json.gz"))
                   + glob.glob(str(ROOT / "tests/data/plain/**/*.trace.json.gz"), recursive=True)
                   + glob.glob(str(ROOT / "docs/examples/*.trace.json.gz")))


def test_the_walk_finds_every_committed_trace():
    names = {Path(p).name for p in COMMITTED}
    assert len(COMMITTED) >= 20 and "h200_gpt2.trace.json.gz" in names and "gpt2.h200.trace.json.gz" in names
    assert "decode_graph.capture.trace.json.gz" in names


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(Path(p).relative_to(ROOT)))
def test_annotated_trace_and_report_give_the_same_floor_for_every_event(path, tmp_path):
    # GIVEN the report and the annotated trace of a committed trace, from one analyze run
    out, ann = tmp_path / "r.json", tmp_path / "a.json"
    assert main(["analyze", path, "-o", str(out), "--annotate-trace", str(ann)]) == 0
    rep = json.loads(out.read_text())
    data = json.loads(ann.read_text())
    trace = load(path)
    report = analyze(trace)
    passes = rep["summary"]["passes"]
    if report.target == "cuda":
        cats = ("kernel", "gpu_memcpy", "gpu_memset")
        # the floor each device event got in the report (classify's WorkUnit.event_floors_us)
        floors = {(e.name, e.ts_us, e.duration_us): (f, u) for u in report.units
                  for e, f in zip(u.events, u.event_floors_us)}
        unfloored = {(e.name, e.ts_us, e.duration_us) for u in report.units if u.floor is None for e in u.events}
    else:
        cats = ("cpu_op",)
        floors = {(u.op.name, u.op.ts_us, u.op.duration_us): (u.floor.floor_us, u) for u in report.units
                  if u.floor is not None and u.op is not None}
        unfloored = {(u.op.name, u.op.ts_us, u.op.duration_us) for u in report.units
                     if u.floor is None and u.op is not None}
    scale = 1e-3 if data.get("timeUnit") == "ns" else 1.0
    seen = 0
    by_row = defaultdict(float)
    for e in data["traceEvents"]:
        if e.get("ph") != "X" or e.get("cat") not in cats or "floorcalc.bound" not in e.get("args", {}):
            continue
        key = (e["name"], float(e["ts"]) * scale, float(e.get("dur", 0.0)) * scale)
        a = e["args"]
        if key in unfloored:
            assert a["floorcalc.floor_us"] is None and a["floorcalc.bound"] == "uncounted"
            continue
        floor, unit = floors[key]
        # THEN the annotated event carries exactly the floor the report used
        assert a["floorcalc.floor_us"] == floor
        assert a["floorcalc.bound"] == unit.floor.bound and a["floorcalc.peak_key"] == unit.floor.peak_key
        if report.target == "cuda":
            by_row[(e["name"], unit.name, unit.module, e["args"].get("stream"))] += floor
        seen += 1
    assert seen == len(floors)
    # AND the events' floors add up to the report's kernel rows
    for k in rep["kernels"]:
        if k["floor_us"] is not None:
            assert by_row[(k["name"], k["op"], k["module"], k["stream"])] / passes == pytest.approx(k["floor_us"])


# ---------------------------------------------------------------------------------------------
# one driver: the API refuses what the CLI refuses


def test_a_spec_object_is_refused_a_wrong_passes_like_a_spec_key():
    with pytest.raises(UsageError) as by_key:
        floorcalc.analyze(MLP, spec="h200", passes=7)
    with pytest.raises(UsageError) as by_obj:
        floorcalc.analyze(MLP, spec=load_spec("h200"), passes=7)
    assert str(by_obj.value) == str(by_key.value) == (
        "trace has 3 ProfilerStep ranges, which are its passes; --passes is for traces without them")
    with pytest.raises(UsageError):
        floorcalc.analyze(MLP, spec=load_spec("h200"), passes=0)
    # and the CLI says the same, with UsageError's exit code
    assert main(["analyze", str(MLP), "--passes", "7"]) == UsageError.exit_code


def test_a_spec_object_gets_the_same_capture_record_as_a_key():
    by_key = floorcalc.analyze(MLP, spec="h200")
    by_obj = floorcalc.analyze(MLP, spec=load_spec("h200"))
    assert by_obj.capture == dataclasses.replace(by_key.capture, command=by_obj.capture.command)
    assert by_obj.capture.bare_wall_us_runs == (139.03233333441753, 138.11599999987342, 133.7763333329652)
    a, b = by_key.to_dict()["capture"], by_obj.to_dict()["capture"]
    assert {k: v for k, v in a.items() if k != "command"} == {k: v for k, v in b.items() if k != "command"}


def test_import_floorcalc_api_pulls_in_no_cli_module():
    code = ("import sys, floorcalc.api, floorcalc.analysis.driver; "
            "print(sorted(m for m in sys.modules if m == 'floorcalc.cli' or m.startswith('floorcalc.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_nothing_outside_cli_imports_floorcalc_cli():
    offenders = []
    for p in (ROOT / "floorcalc").rglob("*.py"):
        rel = p.relative_to(ROOT / "floorcalc")
        if rel.parts[0] == "cli" or rel == Path("__main__.py"):  # the CLI and its entry point
            continue
        if re.search(r"^\s*(from floorcalc\.cli|import floorcalc\.cli|from floorcalc import cli)", p.read_text(), re.M):
            offenders.append(str(rel))
    assert offenders == []


def test_the_capture_metadata_is_parsed_in_one_place():
    """Only floorcalc/trace/capture_info.py reads the trace's ``floorcalc`` metadata."""
    readers = []
    for p in (ROOT / "floorcalc").rglob("*.py"):
        text = p.read_text()
        if re.search(r"metadata(\.get\(|\[)\s*[\"']floorcalc[\"']", text):
            readers.append(str(p.relative_to(ROOT)))
    assert readers == []
    assert "read_capture_info(data.get(KEY))" in (ROOT / "floorcalc/trace/kineto.py").read_text()
