"""Hostile model files (issue 13 item 5): a model that prints, changes the working folder, ends
the process, hands over meta tensors or raises an exception that cannot be printed. Each gets
one line and the model's exit code (3: the model file, 4: the model run), and floorcalc's own
output stays what it says."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from floorcalc.cli import main

# what a user sees when their code raises: the error line and their frames only, as without
# FLOORCALC_DEBUG (the session sets it; test_floorcalc_debug_shows_the_whole_chain sets it again)
pytestmark = pytest.mark.usefixtures("user_mode")

ROOT = Path(__file__).resolve().parents[2]
RUN = ["--device", "cpu", "--warmup", "1", "--iters", "1", "-q"]


def model_file(folder: Path, body: str) -> Path:
    p = folder / "m.py"
    p.write_text("import os, sys, ctypes, threading, torch\n" + body)
    return p


def linear_with(forward_body: str, get_inputs: str = "return (torch.randn(4, 8),)") -> str:
    return f"""
class M(torch.nn.Linear):
    def forward(self, x):
{forward_body}
        return super().forward(x)

def get_model():
    return M(8, 8)

def get_inputs():
    {get_inputs}
"""


#: how the CLI heads the user's frames it prints after the error line (floorcalc.capture.guard)
USER_TB = "Traceback of your code"


def _lines(err: str):
    """stderr without the profiler's own log lines (Kineto's ``USDT:`` lines)."""
    return [x for x in err.splitlines() if x.strip() and not x.startswith(("USDT:", "ERROR:", "WARNING:"))]


def error_lines(err: str):
    """stderr's lines before the user's traceback (the error line, when there is one)."""
    lines = _lines(err)
    at = next((i for i, x in enumerate(lines) if x.startswith(USER_TB)), len(lines))
    return lines[:at]


def user_frames(err: str):
    """The user's traceback the CLI printed after the error line ([] when none), without the
    lines of carets under a frame's code (Python 3.11 on; not in 3.10)."""
    lines = _lines(err)
    at = next((i for i, x in enumerate(lines) if x.startswith(USER_TB)), len(lines))
    return [x for x in lines[at:] if x.strip(" ^~")]


@pytest.fixture
def no_real_exit(monkeypatch):
    """If the guard failed to catch os._exit, this test fails instead of ending pytest."""

    class RealExitCalled(BaseException):
        pass

    def refuse(code=0):
        raise RealExitCalled(f"the real os._exit({code}) was reached")

    monkeypatch.setattr(os, "_exit", refuse)
    import posix

    monkeypatch.setattr(posix, "_exit", refuse)


def test_a_model_that_prints_leaves_json_on_stdout(tmp_path, capfd):
    """The issue's example: a model that prints corrupted --format json on stdout. Python's
    print, a write to fd 1 and C's printf all go to stderr while the model runs."""
    model = model_file(tmp_path, 'print("at import")\n' + linear_with(
        '        print("from forward")\n'
        '        os.write(1, b"raw fd 1\\n")\n'
        '        ctypes.CDLL(None).printf(b"from printf\\n")'))
    assert main(["report", str(model), *RUN, "--format", "json", "--trace-out", str(tmp_path / "t.json.gz")]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["schema_version"] == 2
    for line in ("at import", "from forward", "raw fd 1", "from printf"):
        assert line in err and line not in out
    print("after: stdout is ours again")
    assert capfd.readouterr().out == "after: stdout is ours again\n"


def test_os_exit_in_the_forward_is_exit_4(tmp_path, capsys, no_real_exit):
    """The issue's example: os._exit() inside the model left exit 0 and no output."""
    model = model_file(tmp_path, linear_with("        os._exit(0)"))
    trace = tmp_path / "t.json.gz"
    assert main(["report", str(model), *RUN, "--trace-out", str(trace)]) == 4
    stderr = capsys.readouterr().err
    err = error_lines(stderr)
    assert len(err) == 1 and "the model called os._exit(0) while warming up" in err[0], err
    # then where the user's code called it: their file and line, no frame of floorcalc's
    tb = user_frames(stderr)
    assert tb[0].startswith(USER_TB) and f'"{model}", line 5, in forward' in tb[1] and tb[-1] == "os._exit(0)", tb
    assert not any("floorcalc/" in x for x in tb[1:]), tb
    assert not trace.exists() and os._exit.__name__ == "refuse"  # the test's own stand-in is back


@pytest.mark.parametrize("where, call", [
    ("get_model", "sys.exit(0)"),
    ("forward", "sys.exit(3)"),
    ("get_inputs", "raise SystemExit"),
])
def test_sys_exit_anywhere_in_the_model_is_exit_4(tmp_path, capsys, where, call):
    body = {"get_model": ("        pass", call, "return (torch.randn(4, 8),)"),
            "forward": (f"        {call}", "pass", "return (torch.randn(4, 8),)"),
            "get_inputs": ("        pass", "pass", call)}[where]
    src = linear_with(body[0], body[2]).replace("def get_model():\n", f"def get_model():\n    {body[1]}\n")
    model = model_file(tmp_path, src)
    assert main(["report", str(model), *RUN, "--trace-out", str(tmp_path / "t.json.gz")]) == 4
    err = error_lines(capsys.readouterr().err)
    assert len(err) == 1 and "SystemExit" in err[0] and "Traceback" not in err[0], err


@pytest.mark.parametrize("forward, words", [
    ("        t = threading.Thread(target=os._exit, args=(0,))\n        t.start()\n        t.join()",
     "the model called os._exit(0) on a thread while warming up"),
    ("        ctypes.pythonapi.Py_Exit(0)", "the model ended the process while warming up"),
])
def test_a_model_that_ends_the_process_another_way(tmp_path, forward, words):
    """os._exit on a thread of the model, and an extension ending Python (Py_Exit: caught by the
    atexit guard): one line, exit 4, in a process of its own."""
    model = model_file(tmp_path, linear_with(forward))
    trace = tmp_path / "t.json.gz"
    p = subprocess.run([sys.executable, "-m", "floorcalc", "report", str(model), *RUN, "--format", "json",
                        "--trace-out", str(trace)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    err = error_lines(p.stderr)
    assert p.returncode == 4 and p.stdout == ""
    assert len(err) == 1 and words in err[0], err
    assert not trace.exists() and [x for x in os.listdir(tmp_path) if x.endswith(".partial")] == []


def test_meta_inputs_are_exit_3(tmp_path, capsys):
    """The issue's example: inputs on the meta device ended in exit 70."""
    model = model_file(tmp_path, linear_with("        pass", 'return (torch.randn(4, 8, device="meta"),)'))
    assert main(["report", str(model), *RUN, "--trace-out", str(tmp_path / "t.json.gz")]) == 3
    err = error_lines(capsys.readouterr().err)
    assert len(err) == 1 and "meta device" in err[0] and "floorcalc count" in err[0], err


def test_a_model_on_the_meta_device_is_exit_3(tmp_path, capsys):
    model = model_file(tmp_path, """
def get_model():
    return torch.nn.Linear(8, 8, device="meta")

def get_inputs():
    return (torch.randn(4, 8),)
""")
    assert main(["report", str(model), *RUN, "--trace-out", str(tmp_path / "t.json.gz")]) == 3
    assert "parameters on the meta device" in capsys.readouterr().err


def test_an_exception_whose_str_raises_is_one_line(tmp_path, capsys):
    """The issue's example: an exception whose __str__ raises ended in exit 70."""
    model = model_file(tmp_path, """
class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")
""" + linear_with("        raise Unprintable()"))
    assert main(["report", str(model), *RUN, "--trace-out", str(tmp_path / "t.json.gz")]) == 4
    err = error_lines(capsys.readouterr().err)
    assert err == ["floorcalc: error: the model's forward raised Unprintable (its message could not be read: "
                   "its __str__ raised)"]


def test_unprintable_exceptions_at_import_and_in_floorcalc(tmp_path, capsys, monkeypatch, user_mode):
    model = model_file(tmp_path, """
class Unprintable(Exception):
    def __str__(self):
        raise ValueError
raise Unprintable()
""")
    assert main(["report", str(model), *RUN]) == 3
    assert "failed to import: Unprintable (its message could not be read" in capsys.readouterr().err

    class Bug(Exception):
        def __str__(self):
            raise RuntimeError

    def broken(args):
        raise Bug()

    from floorcalc.cli import analyze

    monkeypatch.setattr(analyze, "run", broken)
    assert main(["analyze", "x.json"]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: Bug (its message could not be read" in err


def test_describe_exception_cuts_long_messages():
    from floorcalc.util.errors import MESSAGE_CHARS, describe_exception

    text = describe_exception(ValueError("x" * 10_000))
    assert text.startswith("ValueError: xxx") and len(text) < MESSAGE_CHARS + 50 and "10000 characters" in text
    assert describe_exception(KeyError()) == "KeyError"


def test_the_guard_restores_what_it_changed():
    from floorcalc.capture.guard import UserCode

    real_exit, real_stdout, fd1 = os._exit, sys.stdout, os.fstat(1)
    with pytest.raises(Exception, match=r"os._exit\(7\)"):
        with UserCode() as g:
            g.stage = "testing"
            assert sys.stdout is sys.stderr and os._exit is not real_exit
            os._exit(7)
    assert os._exit is real_exit and sys.stdout is real_stdout
    assert os.fstat(1).st_ino == fd1.st_ino


def test_a_formulas_file_that_prints_and_exits(tmp_path, capfd):
    """--formulas files are the user's code too: a print at import goes to stderr, sys.exit()
    is exit 10 in one line."""
    f = tmp_path / "mine.py"
    f.write_text("print('loading my formulas')\nimport sys\nsys.exit(3)\n")
    trace = str(Path(__file__).resolve().parents[1] / "data" / "h200_tiny_ops.trace.json.gz")
    assert main(["analyze", trace, "--formulas", str(f), "--format", "json"]) == 10
    out, err = capfd.readouterr()
    assert out == "" and "loading my formulas" in err
    lines = error_lines(err.replace("loading my formulas\n", ""))
    assert len(lines) == 1 and "a --formulas file called sys.exit(3)" in lines[0], lines


# -- the user's traceback (issue 27): their frames after the error line, every frame with FLOORCALC_DEBUG=1

RAISING = """import torch

def scale(x):
    return x @ torch.ones(3, 3)

class M(torch.nn.Module):
    def forward(self, x):
        return scale(x)

def get_model():
    return M()

def get_inputs():
    return (torch.ones(2, 4),)
"""


def test_a_model_that_raises_shows_its_own_frames_after_the_error_line(tmp_path, capsys):
    model = tmp_path / "m.py"
    model.write_text(RAISING)
    assert main(["report", str(model), *RUN, "--trace-out", str(tmp_path / "t.json.gz")]) == 4
    stderr = capsys.readouterr().err
    err, tb = error_lines(stderr), user_frames(stderr)
    assert len(err) == 1 and err[0].startswith("floorcalc: error: the model's forward raised RuntimeError"), err
    # the user's two frames, innermost last, then the exception as Python prints it
    assert tb[0].startswith(USER_TB), tb
    assert f'"{model}", line 8, in forward' in tb[1] and "return scale(x)" in tb[2], tb
    assert f'"{model}", line 4, in scale' in tb[3] and "x @ torch.ones(3, 3)" in tb[4], tb
    assert tb[-1].startswith("RuntimeError:"), tb
    assert not any("floorcalc" + os.sep in x or "torch" + os.sep + "nn" in x for x in tb), tb


def test_floorcalc_debug_shows_the_whole_chain(tmp_path):
    """Under FLOORCALC_DEBUG=1 the traceback goes on through floorcalc's own frames (the model's
    exception is the cause of floorcalc's, not hidden by it)."""
    model = tmp_path / "m.py"
    model.write_text(RAISING)
    env = {**os.environ, "FLOORCALC_DEBUG": "1"}
    r = subprocess.run([sys.executable, "-m", "floorcalc", "report", str(model), *RUN, "--trace-out",
                        str(tmp_path / "t.json.gz")], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode != 0
    err = r.stderr
    assert f'File "{model}", line 4, in scale' in err and "torch" + os.sep + "nn" + os.sep + "modules" in err, err[-3000:]
    assert "The above exception was the direct cause of the following exception" in err, err[-3000:]
    assert "floorcalc.util.errors.ModelRunError: the model's forward raised RuntimeError" in err, err[-3000:]


def test_a_model_file_that_fails_to_import_shows_where(tmp_path, capsys):
    model = tmp_path / "m.py"
    model.write_text("import torch\n\ndef helper():\n    return undefined_name\n\nhelper()\n")
    assert main(["report", str(model), *RUN]) == 3
    stderr = capsys.readouterr().err
    assert error_lines(stderr)[0].startswith("floorcalc: error: model file") and "NameError" in error_lines(stderr)[0]
    tb = user_frames(stderr)
    assert f'"{model}", line 6, in <module>' in tb[1] and f'"{model}", line 4, in helper' in tb[3], tb
    assert tb[-1].startswith("NameError:"), tb


def test_an_error_of_floorcalc_own_has_no_user_traceback(tmp_path, capsys):
    assert main(["report", str(tmp_path / "missing.py"), *RUN]) == 3
    assert user_frames(capsys.readouterr().err) == []
