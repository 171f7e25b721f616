"""Outputs that cannot be written: one line on stderr, the README's exit code, nothing written
and nothing half-written."""

import json
from pathlib import Path

import pytest

import golden
from floorcalc.cli import main

GPT2 = str(golden.DATA / "h200_gpt2.trace.json.gz")
TINY = str(golden.DATA / "h200_tiny_ops.trace.json.gz")


def run(argv):
    """main(argv), with argparse's own exit (a usage error) turned into its code."""
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


def _one_line_error(capsys, code, expected_code, needle):
    err = capsys.readouterr().err.strip().splitlines()
    assert code == expected_code, err
    assert len(err) == 1 and err[0].startswith("floorcalc: error: ") and needle in err[0], err


@pytest.mark.parametrize("extra, code, needle", [
    (["-o", "{d}/missing/out.json"], 8, "output folder does not exist"),
    (["--plot", "{d}/missing/roof.png"], 8, "output folder does not exist"),
    (["--annotate-trace", "{d}/missing/t.json.gz"], 8, "output folder does not exist"),
    (["--format", "xlsx"], 2, "invalid choice: 'xlsx'"),
    (["-o", "{d}/out.xlsx"], 2, "cannot infer a format from 'out.xlsx'"),
    (["--plot", "{d}/roof.gif"], 2, "name a .png, .svg or .pdf file"),
    (["--annotate-trace", "{d}/t.txt"], 2, "name a .json.gz (or .json) file"),
    (["--annotate-trace", TINY], 2, "is also an input"),
    (["-o", "{d}/same.json", "--plot", "{d}/x.png", "--annotate-trace", "{d}/same.json"], 2, "-o and --annotate-trace name one file"),
    (["-o", "{d}", "--format", "json"], 8, "is a directory"),
    (["-o", "/dev/null", "--format", "json", "--force"], 8, "not a regular file"),
])
def test_unwritable_outputs_fail_before_any_work(tmp_path, capsys, extra, code, needle):
    args = [a.format(d=tmp_path) for a in extra]
    got = run(["analyze", TINY, *args])
    _one_line_error(capsys, got, code, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_report_names_two_outputs_on_one_file_as_such(tmp_path, capsys):
    # GIVEN report's -o and --trace-out naming one file (both outputs: nothing is read from it)
    out = tmp_path / "a.json"
    got = run(["report", str(Path(__file__).resolve().parents[2] / "examples" / "mlp.py"), "-o", str(out), "--trace-out", str(out)])
    # THEN the error says two outputs name one file, not that it is an input, before any work
    _one_line_error(capsys, got, 2, "-o and --trace-out name one file")
    assert not out.exists()


def test_two_outputs_on_one_file_are_named_as_given(tmp_path, capsys, monkeypatch):
    # GIVEN relative names in the working folder: the error shows the name as given, not its absolute path
    monkeypatch.chdir(tmp_path)
    got = run(["report", str(Path(__file__).resolve().parents[2] / "examples" / "mlp.py"), "-o", "a.json", "--trace-out", "a.json"])
    _one_line_error(capsys, got, 2, "-o and --trace-out name one file, a.json; name two files")
    assert not (tmp_path / "a.json").exists()


def test_existing_output_is_kept_without_force(tmp_path, capsys):
    out = tmp_path / "r.md"
    out.write_text("mine")
    _one_line_error(capsys, main(["analyze", TINY, "-o", str(out)]), 8, "exists; pass --force")
    assert out.read_text() == "mine"
    assert main(["analyze", TINY, "-o", str(out), "--force"]) == 0
    assert out.read_text().startswith("# floorcalc")


def test_csv_refuses_when_a_sibling_exists(tmp_path, capsys):
    (tmp_path / "r.kernels.csv").write_text("mine")
    _one_line_error(capsys, main(["analyze", TINY, "-o", str(tmp_path / "r.csv")]), 8, "r.kernels.csv exists")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.kernels.csv"]
    assert (tmp_path / "r.kernels.csv").read_text() == "mine"


def test_a_failure_while_rendering_writes_nothing(tmp_path, capsys, monkeypatch, user_mode):
    """Every output is rendered before the first is written: the JSON is not left without its plot."""
    from floorcalc.render import plot

    def broken(self, report, fmt="png"):
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(plot.RooflinePlot, "render", broken)
    code = main(["analyze", TINY, "-o", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png")])
    assert code == 70 and "plotting failed" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_leaves_no_partial_file(tmp_path, monkeypatch):
    import errno
    import os

    from floorcalc.util.errors import OutputError
    from floorcalc.util.output import write_atomic

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match="cannot write output .*x.json: no space left on the device"):
        write_atomic(tmp_path / "x.json", "{}")
    assert list(tmp_path.iterdir()) == []


def test_written_files_get_ordinary_permissions(tmp_path):
    assert main(["analyze", TINY, "-o", str(tmp_path / "r.json")]) == 0
    mode = (tmp_path / "r.json").stat().st_mode & 0o777
    assert mode & 0o644 == 0o644 or mode == 0o666 & ~_umask()


def _umask():
    import os

    m = os.umask(0)
    os.umask(m)
    return m


def test_format_from_extension(tmp_path):
    for ext, start in ((".json", "{"), (".md", "# floorcalc"), (".tex", "% floorcalc"), (".csv", "name,module"),
                       (".txt", "floorcalc")):
        out = tmp_path / f"r{ext}"
        assert main(["analyze", TINY, "-o", str(out)]) == 0
        assert out.read_text().startswith(start), ext
    assert json.loads((tmp_path / "r.json").read_text())["schema_version"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["r.json", "r.md", "r.tex", "r.csv", "r.kernels.csv", "r.groups.csv", "r.summary.csv", "r.txt"])


def test_count_keeps_its_own_formats(tmp_path, capsys):
    """count reads only table and json: the report formats are not offered there."""
    code = run(["count", str(Path(__file__).resolve().parents[2] / "examples" / "mlp.py"), "--format", "csv"])
    assert code == 2 and "invalid choice: 'csv'" in capsys.readouterr().err


def test_plot_without_matplotlib_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    code = main(["analyze", TINY, "--plot", str(tmp_path / "r.png"), "-o", str(tmp_path / "r.json")])
    _one_line_error(capsys, code, 2, "--plot needs matplotlib")
    assert list(tmp_path.iterdir()) == []


def test_output_under_a_file_or_unwritable_folder_is_exit_8(tmp_path, capsys):
    f = tmp_path / "afile.json"
    f.write_text("{}")
    assert main(["analyze", TINY, "-o", str(f / "x.json")]) == 8
    assert main(["analyze", TINY, "-o", "/proc/floorcalc-x.json"]) == 8
    err = capsys.readouterr().err
    assert "internal error" not in err and err.count("floorcalc: error:") == 2
