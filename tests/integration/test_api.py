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
    with pytest.raises(ValueError, match="table must be one of ops, kernels"):
        rep.to_dataframe("no such table")


def test_every_table_is_a_dataframe(rep):
    """Issue 27: a DataFrame for every table (timeline parts, gaps, copies, waits, what-if), its
    columns the JSON's keys, its rows the report's records."""
    pytest.importorskip("pandas")
    t = rep.timeline
    dec = rep.to_dataframe("decomposition")
    assert list(dec["which"]) == ["pass"] + ["step"] * len(t.steps)
    assert dec.loc[0, "wall_us"] == pytest.approx(t.decomposition.wall_us)
    parts = ["floor_us", "excess_us", "data_movement_us", "host_overhead_us", "blocking_us", "other_us"]
    assert dec.loc[0, parts].sum() == pytest.approx(t.decomposition.wall_us, rel=1e-6)  # the parts add up
    assert rep.to_dataframe("timeline").equals(dec)
    gaps = rep.to_dataframe("gaps")
    assert len(gaps) == len(t.gaps) and gaps["duration_us"].tolist() == [g.duration_us for g in t.gaps]
    assert any(c.startswith("by_cause_us.") for c in gaps.columns)  # nested objects flattened
    assert len(rep.to_dataframe("copies")) == len(t.copies) and len(rep.to_dataframe("waits")) == len(t.waits)
    assert len(rep.to_dataframe("idle")) == len(t.idle_by_op)
    summary = rep.to_dataframe("summary")
    assert summary.set_index("figure").loc["mfu", "value"] == pytest.approx(rep.summary.mfu)
    w = rep.to_dataframe("whatif")
    assert w["measured"].tolist() == [True] + [False] * len(rep.whatif.projections)
    shown = [None if x != x else x for x in w["step_us"].tolist()]  # NaN where a projection has no step time
    assert shown == [rep.whatif.measured.step_us] + [p.step_us for p in rep.whatif.projections]
    assert "parts_us.floor_us" in w.columns


def test_project_adds_scenarios_as_floorcalc_whatif_does(rep):
    pytest.importorskip("pandas")
    more = rep.project(on=["b200"], batch=[16])
    labels = more.to_dataframe("whatif")["label"].tolist()
    assert "on b200" in labels and "at batch 16" in labels
    assert rep.whatif is not more.whatif and len(more.whatif.projections) == len(rep.whatif.projections) + 2


def test_a_cpu_report_has_no_device_tables_and_says_why(tmp_path):
    from floorcalc.util.errors import WhatIfError

    pytest.importorskip("pandas")
    torch = pytest.importorskip("torch")
    cpu = floorcalc.report(torch.nn.Linear(8, 8), torch.randn(2, 8), device="cpu", warmup=0, iters=1,
                           trace_out=tmp_path / "t.trace.json.gz")
    for table in ("gaps", "copies", "decomposition"):
        with pytest.raises(ValueError, match="a CPU run has no device timeline"):
            cpu.to_dataframe(table)
    with pytest.raises(ValueError, match="a CPU run has none"):
        cpu.to_dataframe("whatif")
    with pytest.raises(WhatIfError, match="it is a cpu run"):
        cpu.project(on=["b200"])
    assert len(cpu.to_dataframe("ops")) == len(cpu.ops)


def test_jupyter_shows_the_html_report_sections(rep):
    """_repr_html_: the HTML report's sections in one div, its styles scoped to it, the pictures
    inline (data: URIs; nothing fetched)."""
    pytest.importorskip("matplotlib")
    from floorcalc.render.html import HtmlRenderer

    frag = rep._repr_html_()
    page = HtmlRenderer(top=15).render(rep.record)
    assert frag.startswith('<div class="floorcalc-report">') and frag.rstrip().endswith("</div>")
    assert "<html" not in frag and "<body" not in frag
    heads = lambda text: [x.split("</h2>")[0] for x in text.split("<h2>")[1:]]  # noqa: E731
    assert heads(frag) == heads(page) and "Pass summary" in heads(frag) and "What if" in heads(frag)
    assert frag.count('src="data:image/png;base64,') == 2
    style = frag.split("<style>")[1].split("</style>")[0]
    rules = [r.split("{")[0] for r in style.split("}") if "{" in r]
    assert rules and all(sel.strip().startswith(".floorcalc-report") for r in rules for sel in r.split(","))
    import html

    assert "bound: the larger term of the op's floor" in html.unescape(frag)


def test_a_run_of_several_ranks_gives_its_tables():
    pytest.importorskip("pandas")
    folder = golden.DISTRIBUTED / "cpu_gloo_tp_llama_block_late"
    run = floorcalc.analyze(folder, spec=str(golden.RUN_SPEC))
    assert isinstance(run, floorcalc.Run) and run.world_size == 2
    ranks = run.to_dataframe("ranks")
    assert ranks["rank"].tolist() == [0, 1] and "peer_wait_us" in ranks.columns
    assert len(run.to_dataframe("collectives")) == len(run.collectives)
    assert len(run.to_dataframe("instances")) == len(run.instances)
    waits = run.to_dataframe("waits")
    assert set(waits.columns) >= {"rank", "peer", "wait_us"}
    assert run.rank(1).summary.passes == run.ranks[1].passes
    assert run._repr_markdown_().startswith("**floorcalc") and "| rank |" in run._repr_markdown_()


def test_writers(rep, tmp_path):
    pytest.importorskip("matplotlib")
    assert rep.plot(tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    assert rep.plot(tmp_path / "r.pdf", dpi=72).read_bytes()[:5] == b"%PDF-"
    paths = rep.to_csv(tmp_path / "r.csv")
    assert [p.name for p in paths] == ["r.csv", "r.kernels.csv", "r.groups.csv", "r.summary.csv"]
    rep.to_json(tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["schema_version"] == 2
    assert rep.annotate_trace(tmp_path / "t.json.gz").exists()
    assert rep.to_latex(top=3).count("\\texttt{aten::") == 3
    assert rep.to_markdown().startswith("# floorcalc") and "<h2>Pass summary</h2>" in rep.to_html()
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
