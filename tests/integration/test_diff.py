"""`floorcalc diff A.json B.json` on reports of the committed H200 traces."""

import json
from pathlib import Path

import pytest

import golden
from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(argv):
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """JSON reports: gpt2 (datasheet spec), gpt2 against the calibrated spec, cold_mlp."""
    d = tmp_path_factory.mktemp("diff")
    out = {}
    for name, trace, extra in (
        ("gpt2", "h200_gpt2", []),
        ("gpt2_cal", "h200_gpt2", ["--spec", str(ROOT / "docs" / "examples" / "h200-calibrated.yaml")]),
        ("mlp", "h200_cold_mlp", []),
    ):
        p = d / f"{name}.json"
        assert main(["analyze", str(golden.DATA / f"{trace}.trace.json.gz"), "-o", str(p), *extra]) == 0
        out[name] = p
    return out


def test_a_report_against_itself_changes_nothing(reports, capsys, tmp_path):
    out = tmp_path / "d.json"
    assert main(["diff", str(reports["gpt2"]), str(reports["gpt2"]), "-o", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    d = json.loads(out.read_text())
    assert d["kind"] == "floorcalc.diff" and d["warnings"] == []
    assert len(d["ops"]) == 114 and {o["status"] for o in d["ops"]} == {"both"}
    assert all(o["change"]["duration_us"] == 0 and o["change"]["floor_us"] in (0, None) for o in d["ops"])
    assert all(o["change"]["efficiency"] in (0, None) for o in d["ops"])
    assert all(t["change"] in (0, None) for t in d["totals"])


def test_table_against_itself(reports, capsys):
    assert main(["diff", str(reports["gpt2"]), str(reports["gpt2"]), "--top", "5", "--group-by", "none"]) == 0
    out = capsys.readouterr().out
    assert "0 appeared, 0 vanished" in out and "109 more ops, +0.0 us in all" in out
    assert "MFU" in out and "sum of floors (us)" in out


def _op_table(out):
    """The rows of diff's op (or group) table: the lines after the dashed rule, split."""
    lines = out.splitlines()
    rule = next(i for i, x in enumerate(lines) if x.strip().startswith("#  op")) + 1
    rows = []
    for x in lines[rule + 1:]:
        if not x.strip() or x.strip().startswith("..."):
            break
        rows.append(x.split())
    return lines[rule - 1].split(), rows


def test_layers_are_grouped_by_default_and_none_gives_one_row_per_op(capsys, tmp_path):
    # GIVEN the committed GPT-2 reports (12 blocks) against the datasheet and calibrated specs
    a, b = ROOT / "docs" / "examples" / "gpt2.h200.json", ROOT / "docs" / "examples" / "gpt2.h200.calibrated.json"
    # WHEN diffed with the default grouping
    assert main(["diff", str(a), str(b)]) == 0
    header, rows = _op_table(capsys.readouterr().out)
    # THEN each layer is one row with its 12 instances, as analyze shows it, and no h.5... row is left
    assert header[:4] == ["#", "op", "module", "n"]
    by_module = {(r[1], r[2]): r for r in rows}
    assert by_module[("aten::linear", "h.*.mlp.c_fc")][3] == "x12"
    assert by_module[("aten::linear", "lm_head")][3] == "x1"
    assert not any(r[2].startswith("h.5.") for r in rows)
    # AND its times are the sums of the 12 instances' rows (from the per-op JSON of the same diff)
    out = tmp_path / "d.json"
    assert main(["diff", str(a), str(b), "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["group_by"] == "layer" and len(d["ops"]) == 114  # every op row kept
    fc = [o for o in d["ops"] if o["name"] == "aten::linear" and o["module"].endswith(".mlp.c_fc")]
    group = next(g for g in d["groups"] if (g["name"], g["module"]) == ("aten::linear", "h.*.mlp.c_fc"))
    assert len(fc) == 12 and group["a"]["instances"] == group["b"]["instances"] == 12 and group["status"] == "both"
    assert group["a"]["duration_us"] == pytest.approx(sum(o["a"]["duration_us"] for o in fc))
    assert group["b"]["floor_us"] == pytest.approx(sum(o["b"]["floor_us"] for o in fc))
    assert len(d["groups"]) == len(rows)  # 15 groups, all shown under the default --top 25
    # AND --group-by none gives one row per op and module, as before grouping
    assert main(["diff", str(a), str(b), "--group-by", "none", "--top", "200"]) == 0
    header, rows = _op_table(capsys.readouterr().out)
    assert header[:4] == ["#", "op", "module", "A"] and len(rows) == 114
    assert ("aten::linear", "h.5.mlp.c_fc") in {(r[1], r[2]) for r in rows}
    assert main(["diff", str(a), str(b), "--group-by", "none", "--format", "json"]) == 0
    d_none = json.loads(capsys.readouterr().out)
    assert d_none["ops"] == d["ops"] and [(g["name"], g["module"]) for g in d_none["groups"]] == \
        [(o["name"], o["module"]) for o in d["ops"]]


def test_groups_of_a_changed_model_appear_and_vanish_with_their_instances(reports, capsys):
    # GIVEN the cold MLP against GPT-2 (no layer in common) WHEN diffed by layer, in Markdown
    assert main(["diff", str(reports["mlp"]), str(reports["gpt2"]), "--format", "md", "--top", "40"]) == 0
    md = capsys.readouterr().out
    # THEN the table has the instance column and GPT-2's 12 blocks appear as one row each
    assert "| # | op | module | n | A us |" in md
    assert "| aten::linear | h.*.mlp.c_fc | x12 |" in md and "appeared |" in md


def test_the_point_change_reads_from_the_values_shown(reports, capsys):
    # GIVEN one trace against the datasheet and calibrated specs: MFU, MBU, efficiencies move
    assert main(["diff", str(reports["gpt2"]), str(reports["gpt2_cal"]), "--group-by", "none", "--top", "200"]) == 0
    out = capsys.readouterr().out
    checked = 0
    for line in out.splitlines():
        cells = line.split()
        # THEN every "A%  B%  +x pt" in the totals and the op rows is B - A as shown
        for i in range(len(cells) - 3):
            if cells[i].endswith("%") and cells[i + 1].endswith("%") and cells[i + 3] == "pt":
                a, b = float(cells[i][:-1].replace(",", "")), float(cells[i + 1][:-1].replace(",", ""))
                assert float(cells[i + 2]) == pytest.approx(b - a, abs=1e-9), line
                checked += 1
    mfu = next(x.split() for x in out.splitlines() if x.strip().startswith("MFU"))
    assert checked > 100 and mfu[1] != mfu[2], out


def test_two_different_runs_show_ops_that_appear_and_vanish(reports, capsys, tmp_path):
    out = tmp_path / "d.json"
    assert main(["diff", str(reports["mlp"]), str(reports["gpt2"]), "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    status = {(o["name"], o["module"]): o["status"] for o in d["ops"]}
    mlp = json.loads(reports["mlp"].read_text())
    gpt2 = json.loads(reports["gpt2"].read_text())
    only_a = {(o["name"], o["module"]) for o in mlp["ops"]} - {(o["name"], o["module"]) for o in gpt2["ops"]}
    only_b = {(o["name"], o["module"]) for o in gpt2["ops"]} - {(o["name"], o["module"]) for o in mlp["ops"]}
    assert only_a and only_b
    assert {k for k, v in status.items() if v == "vanished"} == only_a
    assert {k for k, v in status.items() if v == "appeared"} == only_b
    # ranked by the absolute change in measured time; lm_head (213 us, only in B) leads
    changes = [abs(o["change"]["duration_us"]) for o in d["ops"]]
    assert changes == sorted(changes, reverse=True)
    assert (d["ops"][0]["name"], d["ops"][0]["module"], d["ops"][0]["status"]) == ("aten::linear", "lm_head", "appeared")
    total = {t["figure"]: t for t in d["totals"]}
    assert total["op_time_us"]["change"] == pytest.approx(gpt2["summary"]["op_time_us"] - mlp["summary"]["op_time_us"])
    # the table names them too
    assert main(["diff", str(reports["mlp"]), str(reports["gpt2"]), "--group-by", "none"]) == 0
    text = capsys.readouterr().out
    assert f"appeared (only in B): {len(only_b)} ops" in text
    assert "vanished (only in A)" in text


def test_different_ceilings_are_warned_about(reports, capsys):
    assert main(["diff", str(reports["gpt2"]), str(reports["gpt2_cal"])]) == 0
    cap = capsys.readouterr()
    warn = [line for line in cap.err.splitlines() if line.startswith("floorcalc: warning: ")]
    assert len(warn) == 1 and "different device specs: A h200 (NVIDIA H200 SXM 141GB), B h200-calibrated" in warn[0]
    assert "peak tensor.bfloat16 989.5 TFLOP/s -> 843.8 TFLOP/s" in warn[0]  # docs/examples/h200-calibrated.yaml
    assert "warning: the runs used different device specs" in cap.out
    # same ops, same times: only the floors moved
    d_out = json.loads(_json_diff(reports["gpt2"], reports["gpt2_cal"]))
    assert all(o["change"]["duration_us"] == 0 for o in d_out["ops"])
    assert any(o["change"]["floor_us"] for o in d_out["ops"])


def test_equal_times_rank_ops_by_the_change_in_floor_and_the_totals_columns_are_named(reports, capsys):
    # GIVEN one trace against two specs: no time changes, floors and efficiencies do
    assert main(["diff", str(reports["gpt2"]), str(reports["gpt2_cal"]), "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    # THEN the ops are ranked by |change in floor| (lm_head's moved most), then in efficiency
    floor_moves = [abs(o["change"]["floor_us"] or 0.0) for o in d["ops"]]
    assert floor_moves == sorted(floor_moves, reverse=True) and floor_moves[0] > 3.0
    assert (d["ops"][0]["name"], d["ops"][0]["module"]) == ("aten::linear", "lm_head")
    assert d["notes"] == [] and d["a"]["capture_mode"] is None  # this trace records no capture command or mode
    # AND the table leads with lm_head and names its fifth totals column
    assert main(["diff", str(reports["gpt2"]), str(reports["gpt2_cal"]), "--top", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(x for x in lines if x.strip().startswith("figure"))
    assert header.split() == ["figure", "A", "B", "change", "relative"], header
    first = lines[lines.index(next(x for x in lines if x.strip().startswith("#  op"))) + 2]
    assert first.split()[:3] == ["1", "aten::linear", "lm_head"], first


def test_reports_of_two_capture_modes_matching_no_op_say_only_totals_compare(tmp_path, capsys):
    # GIVEN GPT-2 captured eager and with torch.compile on the H200 (no op name in common)
    paths = {}
    for mode in ("eager", "compile"):
        paths[mode] = tmp_path / f"{mode}.json"
        trace = golden.DATA / f"h200_gpt2_{mode}.trace.json.gz"
        assert main(["analyze", str(trace), "-o", str(paths[mode]), "-q"]) == 0
    # WHEN they are compared THEN one note names both modes and says only the totals compare
    assert main(["diff", str(paths["eager"]), str(paths["compile"]), "--group-by", "none"]) == 0
    out = capsys.readouterr().out
    notes = [x for x in out.splitlines() if x.startswith("note: ")]
    assert notes == ["note: no op of A matches one of B by name and module: the runs differ in capture mode "
                     "(A eager, B torch.compile): other kernels, other names; only the totals compare"], out
    assert "12 appeared, 114 vanished" in out
    # AND a report against itself has no such note
    assert main(["diff", str(paths["eager"]), str(paths["eager"])]) == 0
    assert "note: " not in capsys.readouterr().out


def _json_diff(a, b):
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["diff", str(a), str(b), "--format", "json"]) == 0
    return buf.getvalue()


def test_same_spec_other_ceilings_are_warned_about(reports, tmp_path, capsys):
    other = json.loads(reports["gpt2"].read_text())
    other["device"]["mem_bytes_per_s"] = 4.2e12
    other["device"]["launch_latency_us"] = 1.5
    p = tmp_path / "slow.json"
    p.write_text(json.dumps(other))
    assert main(["diff", str(reports["gpt2"]), str(p)]) == 0
    err = capsys.readouterr().err
    assert "different ceilings on h200: DRAM bandwidth 4.8 TB/s -> 4.2 TB/s; launch latency L 0.799 us -> 1.5 us" in err


def test_different_devices_are_warned_about(reports, tmp_path, capsys):
    other = json.loads(reports["gpt2"].read_text())
    other["device"]["key"], other["device"]["name"] = "h100-sxm", "NVIDIA H100 SXM"
    p = tmp_path / "h100.json"
    p.write_text(json.dumps(other))
    assert main(["diff", str(reports["gpt2"]), str(p), "--format", "md"]) == 0
    cap = capsys.readouterr()
    assert "different device specs: A h200 (NVIDIA H200 SXM 141GB), B h100-sxm (NVIDIA H100 SXM)" in cap.err
    assert "> **Warning:**" in cap.out and "| figure | A | B | change | relative |" in cap.out


@pytest.mark.parametrize("content, needle", [
    (None, "report A not found"),
    ("{not json", "is not valid JSON"),
    ('{"traceEvents": []}', "is a Kineto trace, not a floorcalc report: floorcalc diff reads the JSON reports that "
     "`floorcalc analyze TRACE -o X.json`"),
    ("[1, 2]", "is not a floorcalc report"),
    ('{"tool": {"name": "floorcalc"}, "schema_version": 3, "ops": [], "summary": {}, "device": {}}',
     "has schema_version 3; this floorcalc"),
    ('{"tool": {"name": "floorcalc"}, "schema_version": 1, "summary": {}, "device": {}}', "has no 'ops' list"),
])
def test_bad_reports_are_one_line_errors(reports, tmp_path, capsys, content, needle):
    bad = tmp_path / "a.json"
    if content is not None:
        bad.write_text(content)
    assert main(["diff", str(bad), str(reports["gpt2"])]) == 6
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("floorcalc: error: ") and needle in err[0], err


def test_a_gzipped_trace_given_to_diff_says_what_diff_reads(reports, capsys):
    # GIVEN the committed GPT-2 trace (gzipped) where a report belongs
    trace = ROOT / "docs" / "examples" / "gpt2.h200.trace.json.gz"
    # WHEN diff reads it THEN one line says what diff reads, not a UTF-8 decoding error
    assert main(["diff", str(trace), str(reports["gpt2"])]) == 6
    err = capsys.readouterr().err.strip().splitlines()
    # (Python's words for one: "'utf-8' codec can't decode"; not "codec" alone, which a path may hold)
    assert len(err) == 1 and "codec can't" not in err[0], err
    assert err[0].startswith(f"floorcalc: error: report A ({trace}) is a gzipped file (a trace?), not a floorcalc "
                             "report: floorcalc diff reads the JSON reports that `floorcalc analyze TRACE -o X.json` "
                             "or `floorcalc report MODEL.py -o X.json` write"), err


def test_diff_output_rules(reports, tmp_path, capsys):
    out = tmp_path / "d.txt"
    out.write_text("mine")
    assert main(["diff", str(reports["gpt2"]), str(reports["gpt2"]), "-o", str(out)]) == 8
    assert out.read_text() == "mine"
    assert run(["diff", str(reports["gpt2"]), str(reports["gpt2"]), "-o", str(tmp_path / "d.xlsx")]) == 2
    assert run(["diff", str(reports["gpt2"]), str(reports["gpt2"]), "--format", "latex"]) == 2
    assert run(["diff", str(reports["gpt2"])]) == 2


def test_diff_never_overwrites_its_own_input(tmp_path, capsys):
    from floorcalc.cli import main

    rep = tmp_path / "a.json"
    assert main(["analyze", str(ROOT / "tests" / "data" / "h200_tiny_ops.trace.json.gz"), "-o", str(rep)]) == 0
    before = rep.read_text()
    assert main(["diff", str(rep), str(rep), "-o", str(rep), "--force"]) == 2
    assert rep.read_text() == before and "also an input" in capsys.readouterr().err
