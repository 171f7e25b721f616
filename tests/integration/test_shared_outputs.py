"""Outputs that can be shared, every input checked before the first pass, and an interrupted
run that says what it kept (issue 27)."""

import json
from pathlib import Path

import pytest

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.py"
RUN = ["--device", "cpu", "--warmup", "0", "--iters", "1", "-q"]


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    d = tmp_path_factory.mktemp("shared")
    t = d / "mlp.trace.json.gz"
    assert main(["report", str(MLP), *RUN, "--trace-out", str(t), "-o", str(d / "r.json")]) == 0
    return t


def test_outputs_carry_no_path_of_this_machine(trace, tmp_path, monkeypatch):
    # GIVEN the trace in another folder than the working one, and absolute paths on the command line
    monkeypatch.chdir(tmp_path)
    for name in ("r.json", "r.md", "r.tex", "r.html"):
        assert main(["analyze", str(trace), "-o", str(tmp_path / name)]) == 0
        text = (tmp_path / name).read_text()
        # THEN no output holds the trace's folder, this folder or the repository's path
        for path in (str(trace.parent), str(tmp_path), str(ROOT)):
            assert path not in text, (name, path)
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["capture"]["trace"] == "mlp.trace.json.gz"            # outside the working folder: its name
    assert doc["capture"]["command"] == f"floorcalc analyze mlp.trace.json.gz -o r.json"
    assert doc["capture"]["capture_command"].startswith("floorcalc report mlp.py ")
    # --absolute-paths keeps them
    assert main(["analyze", str(trace), "-o", str(tmp_path / "abs.json"), "--absolute-paths"]) == 0
    assert json.loads((tmp_path / "abs.json").read_text())["capture"]["trace"] == str(trace)


def test_a_path_under_the_working_folder_is_written_relative_to_it(trace, tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    copy = tmp_path / "sub" / "t.trace.json.gz"
    copy.write_bytes(trace.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert main(["analyze", str(copy), "-o", "r.json"]) == 0
    assert json.loads(Path("r.json").read_text())["capture"]["trace"] == "sub/t.trace.json.gz"


@pytest.mark.parametrize("extra, code, words", [
    (["--spec", "h200"], 7, "spec 'h200' describes a gpu, but this run is on the CPU"),
    (["--spec", "no-such.yaml"], 7, "no such spec file"),
    (["--timeline", "t.png"], 2, "a CPU run has none"),
    (["--plot", "p.gif"], 2, "--plot 'p.gif'"),
    (["-o", "r.xlsx"], 2, "cannot infer a format"),
])
def test_every_input_is_checked_before_the_first_pass(tmp_path, monkeypatch, capsys, extra, code, words):
    # GIVEN a model file that would say so if it were ever imported
    model = tmp_path / "m.py"
    model.write_text("raise SystemExit('imported')\n")
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(model), *RUN, *extra]) == code
    err = capsys.readouterr().err
    assert words in err and "imported" not in err and list(tmp_path.glob("*.trace.json.gz")) == [], err


def test_an_interrupted_report_says_what_it_kept(tmp_path, monkeypatch, capsys):
    import floorcalc.analysis.driver as driver

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(driver, "analyze", interrupted)  # Ctrl-C once the trace is written
    (tmp_path / "here" / "sub").mkdir(parents=True)
    (tmp_path / "there").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    # a trace under the working folder (named by its absolute path) is named relative to it,
    # as the stage lines and 'floorcalc: wrote' name it
    t = tmp_path / "here" / "sub" / "kept.trace.json.gz"
    assert main(["report", str(MLP), *RUN, "--trace-out", str(t), "-o", "r.json"]) == 130
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == ("floorcalc: interrupted; kept trace sub/kept.trace.json.gz (a file being written was removed); "
                   "floorcalc analyze sub/kept.trace.json.gz makes the report of the trace")
    assert t.exists() and not (tmp_path / "here" / "r.json").exists()
    # AND one outside it whole (its name alone could not be opened from here)
    t = tmp_path / "there" / "kept.trace.json.gz"
    assert main(["report", str(MLP), *RUN, "--trace-out", str(t), "-o", "r.json"]) == 130
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == (f"floorcalc: interrupted; kept trace {t} (a file being written was removed); "
                   f"floorcalc analyze {t} makes the report of the trace")


def test_plot_of_cpu_ranks_is_refused_before_any_rank_starts(tmp_path, capsys):
    assert main(["report", str(ROOT / "examples" / "tp_llama_block.py"), "--nproc-per-node", "2", *RUN,
                 "--plot", str(tmp_path / "p.png")]) == 2
    assert "ranks on the CPU have none" in capsys.readouterr().err and not (tmp_path / "p.png").exists()


def test_diff_writes_the_reports_paths_relative_to_the_working_folder(trace, tmp_path, monkeypatch, capsys):
    # GIVEN two reports named by absolute paths, one under the working folder and one outside it
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["analyze", str(trace), "-o", str(tmp_path / "sub" / "a.json")]) == 0
    out = tmp_path / "d.json"
    assert main(["diff", str(tmp_path / "sub" / "a.json"), str(trace.parent / "r.json"), "-o", str(out)]) == 0
    # THEN diff's JSON names them as the reports name their paths: relative here, else the file name
    doc = json.loads(out.read_text())
    assert [doc["a"]["path"], doc["b"]["path"]] == ["sub/a.json", "r.json"]
    assert str(tmp_path) not in out.read_text()
    # AND --absolute-paths (as the other commands have it) keeps them as given
    assert main(["diff", str(tmp_path / "sub" / "a.json"), str(trace.parent / "r.json"), "--format", "json",
                 "--absolute-paths"]) == 0
    kept = json.loads(capsys.readouterr().out)
    assert [kept["a"]["path"], kept["b"]["path"]] == [str(tmp_path / "sub" / "a.json"), str(trace.parent / "r.json")]


def test_the_stage_lines_name_paths_as_the_wrote_line_does(tmp_path, monkeypatch, capsys):
    # GIVEN the working folder, and a model and a trace named by absolute paths, under it and not
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    argv = ["report", str(MLP), "--device", "cpu", "--warmup", "0", "--iters", "1"]
    assert main([*argv, "-o", str(tmp_path / "here" / "r.json"),
                 "--trace-out", str(tmp_path / "here" / "t.trace.json.gz")]) == 0
    # THEN a file under the working folder is named relative to it
    lines = capsys.readouterr().err.splitlines()
    assert "floorcalc: trace written: t.trace.json.gz" in lines
    assert str(tmp_path) not in "\n".join(lines), lines
    # AND one outside it whole, as the 'floorcalc: wrote' line names a file there (a path the
    # user can open, not its name alone: that is for the outputs, which are shared)
    out, trace = tmp_path / "there" / "r2.json", tmp_path / "there" / "t2.trace.json.gz"
    assert main([*argv, "-o", str(out), "--trace-out", str(trace)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert f"floorcalc: loading {MLP} on cpu" in lines
    assert [f"floorcalc: writing trace {trace}", f"floorcalc: trace written: {trace}"] == \
        [line for line in lines if "trace" in line and not line.startswith("floorcalc: wrote")]
    assert any(line.startswith(f"floorcalc: wrote {out} (json, ") for line in lines), lines
    # AND --absolute-paths writes every one whole
    assert main([*argv, "-o", str(tmp_path / "here" / "r3.json"), "--trace-out",
                 str(tmp_path / "here" / "t3.trace.json.gz"), "--absolute-paths"]) == 0
    assert f"floorcalc: trace written: {tmp_path / 'here' / 't3.trace.json.gz'}" in capsys.readouterr().err.splitlines()


def test_count_writes_its_paths_as_the_reports_do(tmp_path, monkeypatch, capsys):
    # GIVEN count of a model outside the working folder, its output named by an absolute path
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "c.json"
    assert main(["count", str(MLP), "-q", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    # THEN the model file is its name and the command line holds no path of this machine
    assert doc["model_file"] == "mlp.py" and doc["command"] == "floorcalc count mlp.py -q -o c.json"
    assert str(tmp_path) not in out.read_text() and str(ROOT) not in out.read_text()
    # AND --absolute-paths keeps them
    assert main(["count", str(MLP), "-q", "--absolute-paths", "--format", "json"]) == 0
    kept = json.loads(capsys.readouterr().out)
    assert kept["model_file"] == str(MLP) and str(MLP) in kept["command"]
