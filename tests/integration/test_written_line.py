"""A command that writes its document to ``-o`` says where it went: one line on stderr per
output written, ``floorcalc: wrote out.json (json, 12.35 kB)``, never on stdout, and none with
``--quiet`` (floorcalc.cli.common.say_written)."""

import re
from pathlib import Path

import pytest

from floorcalc.cli import main
from floorcalc.util.numbers import rate

DATA = Path(__file__).resolve().parents[1] / "data"
TRACE = DATA / "h200_tiny_ops.trace.json.gz"
RUN = DATA / "distributed" / "h200x2_tp_mlp_balanced"


def wrote(err):
    return [line for line in err.splitlines() if line.startswith("floorcalc: wrote ")]


def test_analyze_to_a_file_names_it_and_its_size_on_stderr(tmp_path, monkeypatch, capsys):
    # GIVEN the working folder, WHEN analyze writes its report to -o
    monkeypatch.chdir(tmp_path)
    assert main(["analyze", str(TRACE), "-o", str(tmp_path / "out.json")]) == 0
    cap = capsys.readouterr()
    # THEN stdout stays empty (it may be piped) and the last line on stderr says where it went
    size = (tmp_path / "out.json").stat().st_size
    assert cap.out == ""
    assert cap.err.splitlines()[-1] == f"floorcalc: wrote out.json (json, {rate(size, 'B')})"
    # AND with --quiet it says nothing of it
    assert main(["analyze", str(TRACE), "-o", str(tmp_path / "out.json"), "--force", "-q"]) == 0
    assert wrote(capsys.readouterr().err) == []


def test_every_output_is_named_and_a_path_outside_the_folder_whole(tmp_path, monkeypatch, capsys):
    # GIVEN -o of a format that writes four files, a roofline and an annotated trace, one of them
    # outside the working folder
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    monkeypatch.chdir(work)
    assert main(["analyze", str(TRACE), "-o", str(work / "sub" / "r.csv"), "--plot", str(work / "r.svg"),
                 "--annotate-trace", str(tmp_path / "a.json.gz")]) == 0
    lines = wrote(capsys.readouterr().err)
    # THEN each is named, where it is: relative to the working folder under it, else whole
    assert len(lines) == 3, lines
    assert re.fullmatch(r"floorcalc: wrote sub/r\.csv, sub/r\.kernels\.csv, sub/r\.groups\.csv, "
                        r"sub/r\.summary\.csv \(csv, [0-9.]+ kB\)", lines[0]), lines[0]
    assert re.fullmatch(r"floorcalc: wrote r\.svg \(roofline, svg, [0-9.]+ kB\)", lines[1]), lines[1]
    assert re.fullmatch(rf"floorcalc: wrote {re.escape(str(tmp_path / 'a.json.gz'))} "
                        r"\(annotated trace, [0-9.]+ kB\)", lines[2]), lines[2]


def test_stdout_output_says_nothing_of_a_file(capsys):
    assert main(["analyze", str(TRACE), "--format", "json"]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("{") and wrote(cap.err) == []


@pytest.mark.parametrize("quiet", [False, True])
def test_a_run_of_several_ranks_names_its_file_too(tmp_path, monkeypatch, capsys, quiet):
    monkeypatch.chdir(tmp_path)
    assert main(["analyze", str(RUN), "-o", "run.json", "--workers", "1"] + (["-q"] if quiet else [])) == 0
    cap = capsys.readouterr()
    size = (tmp_path / "run.json").stat().st_size
    assert cap.out == ""
    assert wrote(cap.err) == ([] if quiet else [f"floorcalc: wrote run.json (json, {rate(size, 'B')})"])


@pytest.mark.parametrize("given, named", [("out.json", "out.json"), ("sub/../out.json", "sub/../out.json"),
                                          ("../work/out.json", "../work/out.json"), ("ABS", "ABS"),
                                          ("ABS_UNDER", "out.json")])
def test_a_refused_output_is_named_as_the_written_line_names_it(given, named, tmp_path, monkeypatch, capsys):
    # GIVEN an output named relative to the working folder, through a folder above it, or whole
    # (outside the working folder, or under it: named relative to it, as every stderr line does)
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    monkeypatch.chdir(work)
    given = {"ABS": str(tmp_path / "out.json"), "ABS_UNDER": str(work / "out.json")}.get(given, given)
    named = given if named == "ABS" else named
    # WHEN it is written, then asked for again without --force
    assert main(["analyze", str(TRACE), "-o", given]) == 0
    [line] = wrote(capsys.readouterr().err)
    assert main(["analyze", str(TRACE), "-o", given]) == 8
    err = capsys.readouterr().err.splitlines()[-1]
    # THEN both name it as given (the refusal named the absolute path the CLI made of it)
    assert line.startswith(f"floorcalc: wrote {named} (json, ")
    assert err == f"floorcalc: error: output {named} exists; pass --force to overwrite it"
    # AND with --absolute-paths both name it whole
    whole = given if given.startswith("/") else str(work / given)
    assert main(["analyze", str(TRACE), "-o", given, "--force", "--absolute-paths"]) == 0
    assert wrote(capsys.readouterr().err)[0].startswith(f"floorcalc: wrote {whole} (json, ")
    assert main(["analyze", str(TRACE), "-o", given, "--absolute-paths"]) == 8
    assert capsys.readouterr().err.splitlines()[-1] == f"floorcalc: error: output {whole} exists; pass --force to overwrite it"


def test_the_files_beside_a_named_output_are_named_from_its_folder_as_given(tmp_path, monkeypatch, capsys):
    # GIVEN -o of the CSV format (four files) through a folder above the working one
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["analyze", str(TRACE), "-o", "../r.csv"]) == 0
    [line] = wrote(capsys.readouterr().err)
    # THEN each is named in that folder as given, and a refusal names the first it finds there
    assert line.startswith("floorcalc: wrote ../r.csv, ../r.kernels.csv, ../r.groups.csv, ../r.summary.csv (csv, ")
    (tmp_path / "r.csv").unlink()
    assert main(["analyze", str(TRACE), "-o", "../r.csv"]) == 8
    assert capsys.readouterr().err.splitlines()[-1] == "floorcalc: error: output ../r.kernels.csv exists; pass --force to overwrite it"
