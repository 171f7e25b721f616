"""The Python API: floorcalc.analyze on a committed H200 trace, floorcalc.report on a live module
(CPU), and what `import floorcalc` loads."""

import json
import subprocess
import sys

import pytest

import golden
import floorcalc

GPT2 = golden.DATA / "h200_gpt2.trace.json.gz"


@pytest.fixture(scope="module")
def rep():
    return floorcalc.analyze(GPT2)


def test_import_floorcalc_is_light():
    code = ("import sys, floorcalc; floorcalc.analyze; "
            "print(sorted(m for m in ('torch', 'matplotlib', 'pandas', 'rich', 'floorcalc.classify.units') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_analyze_returns_the_same_figures_as_the_cli(rep, tmp_path):
    from floorcalc.cli import main

    out = tmp_path / "r.json"
    assert main(["analyze", str(GPT2), "-o", str(out)]) == 0
    cli = json.loads(out.read_text())
    api = json.loads(rep.to_json())
    for part in ("summary", "ops", "kernels", "device"):
        assert golden.diff(api[part], cli[part]) == [], part
    assert rep.summary.mfu == pytest.approx(cli["summary"]["mfu"])
    assert len(rep.ops) == 114 and rep.ops[0].module == "lm_head" and rep.kernels[0].op == "aten::linear"
    assert rep.device.key == "h200" and rep.target == "cuda"  # record attributes read through
    assert "MFU 2.5%" in repr(rep) and rep.trace_path == str(GPT2)


def test_to_dataframe(rep):
    pd = pytest.importorskip("pandas")
    df = rep.to_dataframe()
    assert isinstance(df, pd.DataFrame) and len(df) == 114
    assert {"name", "module", "duration_us", "floor_us", "efficiency", "bound"} <= set(df.columns)
    assert df["duration_us"].sum() == pytest.approx(rep.summary.op_time_us)
    kdf = rep.to_dataframe("kernels")
    assert len(kdf) == len(rep.kernels)
    with pytest.raises(ValueError):
        rep.to_dataframe("gaps")


def test_writers(rep, tmp_path):
    pytest.importorskip("matplotlib")
    assert rep.plot(tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    assert rep.plot(tmp_path / "r.pdf", dpi=72).read_bytes()[:5] == b"%PDF-"
    paths = rep.to_csv(tmp_path / "r.csv")
    assert [p.name for p in paths] == ["r.csv", "r.kernels.csv", "r.groups.csv", "r.summary.csv"]
    rep.to_json(tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["schema_version"] == 1
    assert rep.annotate_trace(tmp_path / "t.json.gz").exists()
    assert rep.to_latex(top=3).count("\\texttt{aten::") == 3
    assert rep._repr_markdown_().startswith("# floorcalc")
    with pytest.raises(ValueError):
        rep.plot(tmp_path / "r.gif")


def test_analyze_with_a_spec_key_or_object(rep):
    from floorcalc.device import resolve_spec

    spec = resolve_spec("cuda", gpu_name="NVIDIA H200", spec_path=None, cpu=None)
    by_obj = floorcalc.analyze(GPT2, spec=spec)
    assert by_obj.device is spec and by_obj.summary.op_time_us == pytest.approx(rep.summary.op_time_us)
    assert by_obj.summary.bare_wall_us == rep.summary.bare_wall_us and by_obj.capture.warmup == 3
    assert floorcalc.analyze(GPT2, spec="h200").device.key == "h200"


def test_analyze_errors_are_floorcalc_errors(tmp_path):
    from floorcalc.util.errors import TraceError, UsageError

    with pytest.raises(TraceError):
        floorcalc.analyze(tmp_path / "nope.json")
    with pytest.raises(UsageError):
        floorcalc.analyze(GPT2, passes=7)


def test_report_profiles_a_live_module_on_cpu(tmp_path):
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    x = torch.randn(8, 16)
    trace = tmp_path / "seq.trace.json.gz"
    rep = floorcalc.report(model, x, device="cpu", warmup=1, iters=2, trace_out=trace)
    assert isinstance(rep, floorcalc.Report) and trace.exists()
    assert rep.target == "cpu" and rep.summary.passes == 2
    ops = {(r.name, r.module): r for r in rep.ops}
    assert ops[("aten::linear", "0")].flop == 2 * 8 * 16 * 32 + 8 * 32
    assert rep.capture.warmup == 1 and rep.capture.model_file == "<Sequential object>"
    assert x.device.type == "cpu"
    # keyword inputs, and the trace is never overwritten without force
    from floorcalc.util.errors import OutputError

    with pytest.raises(OutputError):
        floorcalc.report(model, {"input": x}, device="cpu", warmup=0, iters=1, trace_out=trace)


def test_report_rejects_what_is_not_a_module(tmp_path):
    pytest.importorskip("torch")
    from floorcalc.util.errors import UsageError

    with pytest.raises(UsageError, match="must be a torch.nn.Module"):
        floorcalc.report(lambda x: x, (), device="cpu", trace_out=tmp_path / "t.json.gz")
