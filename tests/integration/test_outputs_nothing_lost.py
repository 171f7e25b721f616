"""Issue 25's "nothing lost": a write that fails (a full disk, a quota, a file-size limit) is exit 8
with one line and leaves no file, whole or partial, anywhere (Kineto's own temporary included);
a trace cut short is never taken for a whole one; SIGTERM while a trace is exported or gzipped
cleans up as Ctrl-C does.

A file-size limit (``RLIMIT_FSIZE`` on a subprocess, with SIGXFSZ ignored so that a write past
it fails with EFBIG) stands in for a disk that fills; ENOSPC and EDQUOT themselves are raised by
monkeypatching the write path.
"""

import errno
import gzip
import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import golden
from floorcalc.cli import main
from floorcalc.util.errors import OutputError

ROOT = Path(__file__).resolve().parents[2]

#: A CPU model whose trace (about 2 MB of JSON for 2 passes) is much larger than the launch-latency
#: probe's (under 0.4 MB): a limit between the two lets the probe through and stops the trace.
MANY_OPS = """import torch

class Many(torch.nn.Module):
    def forward(self, x):
        for _ in range({n}):
            x = x + 1
        return x

def get_model():
    return Many()

def get_inputs():
    return (torch.zeros(4),)
"""


def run_floorcalc(args, *, cwd, tmpdir, limit=None, timeout=600):
    """``python -m floorcalc ARGS`` in a process of its own with TMPDIR=``tmpdir`` and, when
    ``limit`` is given, files limited to that many bytes: (exit code, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir))

    def apply():
        if limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    p = subprocess.run([sys.executable, "-m", "floorcalc", *map(str, args)], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=timeout, preexec_fn=apply)
    return p.returncode, p.stdout, p.stderr


def every_file(folder: Path):
    """The names in ``folder``, less a model file's ``__pycache__`` (Python's bytecode, where it writes it)."""
    return sorted(p.name for p in folder.iterdir() if p.name != "__pycache__")


def left_in_tmp(folder: Path):
    """What is in the temporary folder, less torch's own caches (``torchinductor_USER``)."""
    return [n for n in every_file(folder) if not n.startswith("torchinductor_")]


@pytest.fixture
def dirs(tmp_path):
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    tmp.mkdir()
    return out, tmp


def test_a_trace_that_outgrows_the_disk_is_exit_8_in_one_line_and_leaves_nothing(dirs):
    # GIVEN a model whose trace is bigger than the files this process may write (the probe's fits)
    out, tmp = dirs
    model = out / "many.py"
    model.write_text(MANY_OPS.format(n=1500))
    # WHEN it is reported
    code, stdout, err = run_floorcalc(["report", model, "--device", "cpu", "--warmup", "0", "--iters", "2", "-q",
                                       "--trace-out", out / "t.trace.json.gz", "-o", out / "r.json"],
                                      cwd=out, tmpdir=tmp, limit=600_000)
    # THEN exit 8, one line on stderr (Kineto's own "Failed to write" line is not shown beside it)
    assert code == 8 and stdout == ""
    assert err.splitlines() == [err.strip()] and err.startswith("floorcalc: error: ")
    assert "could not write the whole trace" in err and str(out) in err
    # and nothing left: no trace, no report, no hidden file (Kineto's NAME.tmp neither)
    assert every_file(out) == ["many.py"] and left_in_tmp(tmp) == []


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "no space left on the device"),
                                         (errno.EDQUOT, "disk quota exceeded"),
                                         (errno.EFBIG, "file too large")])
def test_a_full_disk_or_quota_while_the_trace_is_gzipped(tmp_path, monkeypatch, code, words):
    from floorcalc.capture.run import write_trace

    real = gzip.GzipFile.write
    calls = []

    def fills(self, data):
        calls.append(len(data))
        if len(calls) == 2:
            raise OSError(code, os.strerror(code))
        return real(self, data)

    monkeypatch.setattr(gzip.GzipFile, "write", fills)
    with pytest.raises(OutputError, match=f"cannot write trace .*t.trace.json.gz: {words}"):
        write_trace(KinetoLike(60_000), tmp_path / "t.trace.json.gz")
    assert len(calls) == 2 and every_file(tmp_path) == []


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "no space left on the device"),
                                         (errno.EDQUOT, "disk quota exceeded")])
@pytest.mark.parametrize("option", ["-o", "--plot", "--annotate-trace"])
def test_a_full_disk_or_quota_while_an_output_is_written_is_exit_8(tmp_path, monkeypatch, capsys, code, words,
                                                                    option):
    import floorcalc.util.output as output

    def full(fd):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(output.os, "fsync", full)
    name = {"-o": "r.json", "--plot": "r.png", "--annotate-trace": "a.json.gz"}[option]
    rc = main(["analyze", str(golden.DATA / "h200_tiny_ops.trace.json.gz"), option, str(tmp_path / name), "-q"])
    err = capsys.readouterr().err
    assert rc == 8 and err.count("\n") == 1 and f"{name}: {words}" in err
    assert every_file(tmp_path) == []


class KinetoLike:
    """Stands in for torch.profiler's ``profile``: exports a trace laid out as Kineto writes it
    (events, then ``"traceName"`` after the array), whole or cut at ``cut`` bytes from its end."""

    def __init__(self, n: int = 1000, cut: int = 0) -> None:
        self.n, self.cut = n, cut

    def text(self) -> str:
        events = ",\n".join(textwrap.dedent(f"""\
          {{
            "ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
            "ts": {i}, "dur": 1,
            "args": {{"Input Dims": [[4], [4]], "Ev Idx": {i}}}
          }}""") for i in range(self.n))
        return '{\n  "schemaVersion": 1,\n  "traceEvents": [\n' + events + '\n  ],"traceName": "x.json" }'

    def export_chrome_trace(self, path: str) -> None:
        text = self.text()
        Path(path).write_text(text[: len(text) - self.cut] if self.cut else text)


def test_a_trace_cut_after_a_whole_event_is_not_taken_for_whole(tmp_path):
    # the cut falls right after one event's closing brace: the file ends in "}" as a whole one does
    from floorcalc.capture.run import write_trace

    whole = KinetoLike(50)
    cut = len(whole.text()) - whole.text().rindex("}", 0, whole.text().rindex("]")) - 1
    assert KinetoLike(50, cut).text()[: len(whole.text()) - cut].endswith("}")
    with pytest.raises(OutputError, match="could not write the whole trace"):
        write_trace(KinetoLike(50, cut), tmp_path / "t.trace.json.gz")
    assert every_file(tmp_path) == []
    # while the whole one is written, and reads back whole
    path = write_trace(whole, tmp_path / "t.trace.json.gz")
    assert len(json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]) == 50


SIGTERM_IN_GZIP = """
import gzip, os, signal, sys
sys.path[:0] = [{tests!r}, {tests!r} + "/integration"]
from pathlib import Path
from test_outputs_nothing_lost import KinetoLike
from floorcalc.capture.run import write_trace

real = gzip.GzipFile.write
calls = []

def write(self, data):
    calls.append(1)
    if len(calls) == 2:          # part-way through the gzip: a real SIGTERM to this process
        os.kill(os.getpid(), signal.SIGTERM)
    return real(self, data)

gzip.GzipFile.write = write
try:
    write_trace(KinetoLike(30_000), Path({dest!r}))
except KeyboardInterrupt as e:
    print(type(e).__name__, e.signum)
    sys.exit(3)
"""


def test_sigterm_while_the_trace_is_gzipped_leaves_no_file(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    script = SIGTERM_IN_GZIP.format(tests=str(ROOT / "tests"), dest=str(out / "t.trace.json.gz"))
    p = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                       capture_output=True, text=True, timeout=300)
    # the signal became an interrupt (before the fix SIGTERM ended the process on the spot)...
    assert p.returncode == 3 and p.stdout.split() == ["Terminated", str(int(signal.SIGTERM))], (p.returncode, p.stderr)
    # ...so the hidden .partial files went, as they do for Ctrl-C
    assert every_file(out) == []


def test_sigterm_while_report_exports_its_trace(tmp_path):
    """A real SIGTERM to `floorcalc report` once it says it writes the trace (a big one: its
    export takes a while): exit 143, one line, the trace whole or absent and no hidden file."""
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    tmp.mkdir()
    model = out / "many.py"
    model.write_text(MANY_OPS.format(n=4000))
    trace = out / "t.trace.json.gz"
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp))
    p = subprocess.Popen([sys.executable, "-m", "floorcalc", "report", str(model), "--device", "cpu", "--warmup", "0",
                          "--iters", "3", "--trace-out", str(trace), "--format", "json"], cwd=out, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert p.stderr is not None
    sent = False
    for line in p.stderr:
        if line.startswith("floorcalc: writing trace"):
            time.sleep(0.05)            # into the export
            p.send_signal(signal.SIGTERM)
            sent = True
            break
    rest = p.stderr.read()
    code = p.wait(timeout=300)
    assert sent and code in (0, 143), rest
    if code == 143:
        assert rest.strip().splitlines()[-1].startswith("floorcalc: terminated (SIGTERM); nothing was written") and "Traceback" not in rest
        assert not trace.exists()
    else:                               # the signal came after the trace was written
        assert json.loads(gzip.decompress(trace.read_bytes()))["traceEvents"]
    assert [n for n in every_file(out) if n.startswith(".")] == [] and left_in_tmp(tmp) == []


class KinetoFailing:
    """Fails as Kineto does on a full disk: its NAME.tmp holds part of the trace, never renamed."""

    def export_chrome_trace(self, path: str) -> None:
        Path(path + ".tmp").write_text(KinetoLike(200).text()[:5000])
        os.unlink(path)


def test_every_export_of_a_trace_leaves_nothing_when_kineto_fails(tmp_path):
    # the shared export (the captured trace, and each lean set's trace on a GPU) cleans up what
    # Kineto leaves behind, and reads nothing back
    from floorcalc.capture.export import exported_trace
    from floorcalc.capture.run import write_trace

    with pytest.raises(OutputError, match="could not write the whole trace"):
        with exported_trace(KinetoFailing(), tmp_path, "floorcalc-lean"):
            pytest.fail("a cut trace was handed on")
    assert every_file(tmp_path) == []
    with pytest.raises(OutputError, match="could not write the whole trace"):
        write_trace(KinetoFailing(), tmp_path / "t.trace.json.gz")
    assert every_file(tmp_path) == []
