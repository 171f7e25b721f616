"""Every file floorcalc writes is whole or absent, never written over another without --force,
and lands where the user asked (issue 13 item 5): the issue's examples, each with its answer.

- Ctrl-C while the trace is gzipped, a full disk: no file, no hidden leftovers.
- A folder under /proc or /sys, a name too long for the file system, a symlink loop: one line,
  exit 8 for an output (3 for a model file), before any work.
- Two runs given the same ``-o``: one writes it, the other exits 8 and the first's file stays.
- Default trace names: two traces of the same model written in the same second get two names.
- A model whose get_model() changes the working folder: every file still lands where asked.
"""

import errno
import gzip
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import golden
from floorcalc.cli import main
from floorcalc.util.errors import OutputError
from floorcalc.util.output import AtomicFile, check_new_file, write_atomic

ROOT = Path(__file__).resolve().parents[2]
GPT2 = str(golden.DATA / "h200_gpt2.trace.json.gz")
TINY = str(golden.DATA / "h200_tiny_ops.trace.json.gz")
LONG = "n" * 300  # longer than any common file system's 255-byte names


def one_error_line(err: str, code_ok: bool = True) -> str:
    """The stderr of a run without the profiler's own log lines (Kineto's ``USDT:`` lines);
    asserts it is one ``floorcalc: error:`` line and returns it."""
    lines = [x for x in err.splitlines() if x.strip() and not x.startswith(("USDT:", "ERROR:", "WARNING:"))]
    assert len(lines) == 1 and lines[0].startswith("floorcalc: error: "), lines
    assert "Traceback" not in err
    return lines[0]


def leftovers(folder: Path):
    """Hidden partial files floorcalc left in ``folder``."""
    return [p.name for p in folder.iterdir() if p.name.endswith(".partial")]


def floorcalc(*args, cwd, preexec_fn=None, timeout=300, tmpdir=None):
    """``python -m floorcalc ARGS`` in a process of its own (its TMPDIR ``tmpdir`` when given):
    (exit code, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    p = subprocess.run([sys.executable, "-m", "floorcalc", *map(str, args)], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=timeout, preexec_fn=preexec_fn)
    return p.returncode, p.stdout, p.stderr


def model_file(folder: Path, body: str, name: str = "m.py") -> Path:
    p = folder / name
    p.write_text("import torch\n" + body)
    return p


LINEAR = """
def get_model():
    return torch.nn.Linear(8, 8)

def get_inputs():
    return (torch.randn(4, 8),)
"""


class FakeProfiler:
    """Stands in for torch.profiler's ``profile``: exports a JSON trace of ``n`` events."""

    def __init__(self, n: int = 30_000, whole: bool = True) -> None:
        self.n, self.whole = n, whole

    def export_chrome_trace(self, path: str) -> None:
        events = ",".join(f'{{"ph": "X", "name": "aten::op{i}", "ts": {i}, "dur": 1}}' for i in range(self.n))
        text = '{"traceEvents": [' + events + "]}\n"
        Path(path).write_text(text if self.whole else text[: len(text) // 2])


# -- Ctrl-C and a full disk -------------------------------------------------------------------


def test_ctrl_c_while_the_trace_is_gzipped_leaves_no_file(tmp_path, monkeypatch):
    """The issue's example: Ctrl-C during the gzip step left a 3.7 MB corrupt .trace.json.gz."""
    from floorcalc.capture.run import write_trace

    real = gzip.GzipFile.write
    calls = []

    def interrupted(self, data):
        calls.append(len(data))
        if len(calls) == 2:  # part-way: one 1 MiB chunk already compressed
            raise KeyboardInterrupt
        return real(self, data)

    monkeypatch.setattr(gzip.GzipFile, "write", interrupted)
    dest = tmp_path / "run.trace.json.gz"
    with pytest.raises(KeyboardInterrupt):
        write_trace(FakeProfiler(60_000), dest)
    assert len(calls) == 2 and list(tmp_path.iterdir()) == []


def test_sigint_while_report_writes_its_trace(tmp_path):
    """A real Ctrl-C (SIGINT) as soon as `report` says it writes the trace: the trace is then
    either whole (the signal came after) or absent, and nothing hidden is left behind."""
    model = model_file(tmp_path, """
class Many(torch.nn.Module):
    def forward(self, x):
        for _ in range(1500):
            x = x + 1
        return x

def get_model():
    return Many()

def get_inputs():
    return (torch.randn(4),)
""")
    trace = tmp_path / "t.trace.json.gz"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "floorcalc", "report", str(model), "--device", "cpu", "--warmup", "0",
                          "--iters", "2", "--trace-out", str(trace), "--format", "json"], cwd=tmp_path, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert p.stderr is not None
    for line in p.stderr:
        if line.startswith("floorcalc: writing trace"):
            p.send_signal(signal.SIGINT)
            break
    rest = p.stderr.read()
    code = p.wait(timeout=120)
    assert code in (0, 130), rest
    if code == 130:
        assert "floorcalc: interrupted" in rest
    if trace.exists():  # the signal came after the trace was written (during the analysis, say)
        assert json.loads(gzip.decompress(trace.read_bytes()))["traceEvents"]
    assert leftovers(tmp_path) == []


def _file_size_limit(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_full_disk_is_one_line_and_no_partial_file(tmp_path):
    """The issue's example: a full disk ended in exit 70 and left a partial file. A process
    limited to 64 kB files stands in for the full disk (the 180 kB report cannot be written)."""
    code, _, err = floorcalc("analyze", GPT2, "-o", tmp_path / "r.json", cwd=tmp_path,
                             preexec_fn=_file_size_limit(64_000))
    assert code == 8
    assert "cannot write output" in one_error_line(err) and "r.json" in err
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_while_the_trace_is_exported(tmp_path):
    """Kineto writes the raw trace itself and reports no short write: the cut JSON is refused."""
    from floorcalc.capture.run import write_trace

    with pytest.raises(OutputError, match="could not write the whole trace"):
        write_trace(FakeProfiler(1000, whole=False), tmp_path / "t.trace.json.gz")
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_during_a_report_run(tmp_path):
    # 1 kB: the launch-latency probe's trace, in the temporary folder, is the first that fails
    model = model_file(tmp_path, LINEAR)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    code, out, err = floorcalc("report", model, "--device", "cpu", "--warmup", "0", "--iters", "1", "-q",
                               "--trace-out", tmp_path / "t.trace.json.gz", "--format", "json", cwd=tmp_path,
                               preexec_fn=_file_size_limit(1_000), tmpdir=tmp)
    assert code == 8 and out == ""
    assert "trace" in one_error_line(err)
    assert err.strip().splitlines() == [one_error_line(err)]   # Kineto's own "Failed to write" line is not shown
    # (the model file's __pycache__, where Python writes bytecode, is Python's own)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == ["m.py", "tmp"]
    # nothing left in the temporary folder either: not the probe's file, not Kineto's NAME.tmp beside it
    assert [p.name for p in tmp.iterdir() if not p.name.startswith("torchinductor_")] == []


# -- paths that cannot be written -----------------------------------------------------------


@pytest.mark.parametrize("option, path, needle", [
    ("-o", "/proc/floorcalc.json", "does not take new files"),
    ("-o", "/proc/self/floorcalc.json", "does not take new files"),
    ("-o", "/sys/floorcalc.json", "/sys/floorcalc.json"),
    ("-o", "{d}/" + LONG + ".json", "more than the file system's"),
    ("--plot", "{d}/" + LONG + ".png", "more than the file system's"),
    ("--annotate-trace", "{d}/" + LONG + ".json.gz", "more than the file system's"),
    ("-o", "{d}/loop", "symlink loop"),
    ("-o", "{d}/loop/r.json", "symlink loop"),
    ("-o", "{d}/dangling.json", "symbolic link to a missing file"),
])
def test_unwritable_paths_are_exit_8_before_any_work(tmp_path, capsys, option, path, needle):
    if path.startswith("/sys") and not Path("/sys").is_dir():
        pytest.skip("no /sys here")
    os.symlink("loop", tmp_path / "loop")
    os.symlink("missing", tmp_path / "dangling.json")
    before = sorted(p.name for p in tmp_path.iterdir())
    args = ["analyze", TINY, option, path.format(d=tmp_path)] + (["--format", "json"] if option == "-o" else [])
    assert main(args) == 8
    assert needle in one_error_line(capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("target, needle", [(LONG + ".py", "cannot open model file"), ("loop", "cannot open model file")])
def test_unreadable_model_paths_are_exit_3(tmp_path, capsys, target, needle):
    os.symlink("loop", tmp_path / "loop")
    assert main(["report", str(tmp_path / target), "--device", "cpu", "-q"]) == 3
    assert needle in one_error_line(capsys.readouterr().err)


def test_a_trace_out_too_long_fails_before_the_model_runs(tmp_path, capsys):
    model = model_file(tmp_path, "raise SystemExit('the model must not even be imported')\n")
    assert main(["report", str(model), "--device", "cpu", "-q", "--trace-out", str(tmp_path / (LONG + ".json.gz"))]) == 8
    assert "trace" in one_error_line(capsys.readouterr().err)


# -- never over another file ------------------------------------------------------------------


def test_two_runs_given_the_same_output(tmp_path):
    """The issue's example: both exited 0 and the second silently replaced the first's output.
    Started together, one writes it and the other exits 8, however they interleave."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = tmp_path / "same.json"
    cmd = [sys.executable, "-m", "floorcalc", "analyze", GPT2, "-o", str(out)]
    procs = [subprocess.Popen(cmd, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
    assert sorted(code for code, _ in results) == [0, 8], results
    err = next(e for code, e in results if code == 8)
    assert "exists" in one_error_line(err)
    assert json.loads(out.read_text())["schema_version"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["same.json"]


def test_the_existence_check_and_the_write_are_one_step(tmp_path):
    """Both writers passed the early check; the second to finish gets exit 8, the first's file stays."""
    path = tmp_path / "r.json"
    check_new_file(path, force=False)
    check_new_file(path, force=False)
    first, second = AtomicFile(path), AtomicFile(path)
    first.__enter__().write(b"first")
    second.__enter__().write(b"second")
    first.__exit__(None, None, None)
    with pytest.raises(OutputError, match="exists; not overwritten"):
        second.__exit__(None, None, None)
    assert path.read_bytes() == b"first"
    with pytest.raises(OutputError, match="exists; not overwritten"):
        write_atomic(path, "third")
    write_atomic(path, "forced", force=True)
    assert path.read_bytes() == b"forced" and leftovers(tmp_path) == []


def test_default_trace_names_in_the_same_second(tmp_path, monkeypatch):
    """The issue's example: two runs started in the same second collided on the default name."""
    import datetime as dt

    from floorcalc.capture import run

    class Frozen(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls(2025, 1, 2, 3, 4, 5)

    monkeypatch.setattr(run._dt, "datetime", Frozen)
    dest = run._TraceDest(None, False, "gpt2", tmp_path)
    first = run.write_trace(FakeProfiler(10), dest)
    second = run.write_trace(FakeProfiler(20), dest)
    assert (first.name, second.name) == ("gpt2.20250102-030405.trace.json.gz", "gpt2.20250102-030405-1.trace.json.gz")
    assert len(json.loads(gzip.decompress(second.read_bytes()))["traceEvents"]) == 20


# -- where the files land -------------------------------------------------------------------


def test_a_model_that_changes_the_working_folder(tmp_path, monkeypatch):
    """The issue's example: get_model() changing the working folder made floorcalc write its
    trace and -o relative to the new folder (exit 0, nothing where the user asked)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    here = tmp_path / "here"
    here.mkdir()
    model = model_file(tmp_path, f"""
import os

def get_model():
    os.chdir({str(elsewhere)!r})
    return torch.nn.Linear(8, 8)

def get_inputs():
    return (torch.randn(4, 8),)
""")
    monkeypatch.chdir(here)
    assert main(["report", str(model), "--device", "cpu", "--warmup", "0", "--iters", "1", "-q", "-o", "r.json"]) == 0
    default = list(here.glob("m.*.trace.json.gz"))  # the trace, under its default name
    assert len(default) == 1 and list(elsewhere.iterdir()) == []
    assert sorted(p.name for p in here.iterdir()) == sorted([default[0].name, "r.json"])
    # the report names the trace as the user can share it: relative to the folder they started in
    assert json.loads((here / "r.json").read_text())["capture"]["trace"] == default[0].name


def test_a_spec_file_named_relative_to_the_start(tmp_path, monkeypatch):
    """--spec FILE is read again after the capture: it is made absolute first too."""
    from floorcalc.cli import build_parser
    from floorcalc.cli.common import absolute_paths

    (tmp_path / "my.yaml").write_text("x")
    monkeypatch.chdir(tmp_path)
    args = build_parser().parse_args(["analyze", "t.json", "--spec", "my.yaml", "-o", "r.json"])
    absolute_paths(args)
    assert args.spec == str(tmp_path / "my.yaml") and args.output == tmp_path / "r.json"
    args = build_parser().parse_args(["analyze", "t.json", "--spec", "h200"])
    absolute_paths(args)
    assert args.spec == "h200"  # a packaged key stays a key


def test_the_writers_error_words(tmp_path):
    from floorcalc.util.output import os_error, shown

    e = os_error(tmp_path / "x", OSError(errno.ENOSPC, "No space left on device"))
    assert str(e) == f"cannot write output {tmp_path / 'x'}: no space left on the device" and e.exit_code == 8
    assert len(shown("/" + "a" * 5000)) < 260


@pytest.mark.parametrize("where", ["fdopen", "fsync", "link", "unlink"])
def test_ctrl_c_at_any_step_of_a_write_leaves_nothing_half_done(tmp_path, monkeypatch, where):
    """A Ctrl-C landing right after the hidden file is created (before its descriptor is even
    wrapped), while it is flushed, while it is named, or while the hidden name is removed: the
    interrupt reaches the caller, and the folder holds either nothing or the whole file."""
    real = {"fdopen": os.fdopen, "fsync": os.fsync, "link": os.link, "unlink": os.unlink}
    fired = []

    def interrupt_once(*args, **kwargs):
        if not fired:
            fired.append(where)
            if where == "unlink":  # the removal itself happens, the interrupt comes after it
                real["unlink"](*args, **kwargs)
            raise KeyboardInterrupt
        return real[where](*args, **kwargs)

    monkeypatch.setattr(os, where, interrupt_once)
    path = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "whole")
    assert fired == [where]
    assert leftovers(tmp_path) == []
    assert [p.name for p in tmp_path.iterdir()] in ([], ["r.json"])
    if path.exists():
        assert path.read_text() == "whole"
