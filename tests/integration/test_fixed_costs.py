"""The fixed costs of a small run (issue 28, step 1): floorcalc's profiler sessions do not import
Inductor, and the command ends without the interpreter's teardown yet loses no output, exit
code or atexit handler."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}

SESSION = r"""
import sys, torch
from torch.profiler import ProfilerActivity
from floorcalc.capture.profiling import profile
with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    torch.ones(3) + 1
names = {e.name for e in prof.events()}
print("aten::add" in names, "torch._inductor" in sys.modules, hasattr(torch, "_dynamo") and "_inductor" in torch._lazy_modules)
"""

TORCH_SESSION = r"""
import sys, torch
from torch.profiler import ProfilerActivity, profile
with profile(activities=[ProfilerActivity.CPU]):
    torch.ones(3) + 1
print("torch._inductor" in sys.modules)
"""


def test_floorcalc_profile_records_without_importing_inductor():
    # GIVEN a process that has not imported Inductor
    # WHEN floorcalc's profiler session records an op
    r = subprocess.run([sys.executable, "-c", SESSION], capture_output=True, cwd=ROOT, timeout=300, env=ENV)
    assert r.returncode == 0, r.stderr
    # THEN the op is recorded, Inductor was not imported, and torch's lazy modules are as they were
    assert r.stdout.decode().split() == ["True", "False", "True"]


def test_torch_profile_imports_inductor_which_is_what_floorcalc_avoids():
    # GIVEN torch's own profiler in a fresh process: the cost floorcalc.capture.profiling avoids is real
    r = subprocess.run([sys.executable, "-c", TORCH_SESSION], capture_output=True, cwd=ROOT, timeout=300, env=ENV)
    assert r.returncode == 0, r.stderr
    # THEN starting it imported Inductor (if a later torch stops doing so, the wrapper is moot)
    assert r.stdout.decode().split() == ["True"]


def test_console_exit_keeps_output_code_and_atexit(tmp_path):
    # GIVEN a --formulas file that registers an atexit handler writing a file, and prints
    marker = tmp_path / "atexit.txt"
    formulas = tmp_path / "f.py"
    formulas.write_text(textwrap.dedent(f'''
        import atexit, pathlib
        from floorcalc.counting import formula
        atexit.register(lambda: pathlib.Path({str(marker)!r}).write_text("ran"))

        @formula("fctest::never_called", family="vector")
        def never_called(call):
            """An op no trace has: the file only has to register a formula."""
            raise AssertionError
    '''))
    trace = ROOT / "tests" / "data" / "h200_tiny_ops.trace.json.gz"
    # WHEN the command runs to its end (python -m floorcalc: floorcalc.cli.console)
    r = subprocess.run([sys.executable, "-m", "floorcalc", "analyze", str(trace), "--formulas", str(formulas),
                        "--format", "json"], capture_output=True, cwd=tmp_path, timeout=300, env=ENV)
    # THEN its whole output came out, the exit code is main's and the handler ran
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)  # whole: every byte flushed before the process ended
    assert report["ops"] and report["tool"]["name"] == "floorcalc"
    assert marker.read_text() == "ran"
    # AND an error still exits with its own code and one line
    bad = subprocess.run([sys.executable, "-m", "floorcalc", "analyze", str(tmp_path / "missing.json")],
                         capture_output=True, cwd=tmp_path, timeout=300, env=ENV)
    assert bad.returncode == 6 and bad.stderr.decode().count("\n") == 1


BLAS = r"""
import os, sys
from floorcalc.cli import _one_blas_thread
_one_blas_thread(sys.argv[1:])
print(os.environ.get("OPENBLAS_NUM_THREADS", "unset"), "numpy" in sys.modules)
"""


def test_commands_without_a_model_start_numpy_with_one_blas_thread():
    # GIVEN fresh processes, numpy not yet imported
    def blas(*argv: str, **env: str) -> str:
        r = subprocess.run([sys.executable, "-c", BLAS, *argv], capture_output=True, cwd=ROOT, timeout=300,
                           env={**ENV, **env})
        assert r.returncode == 0, r.stderr
        return r.stdout.decode().strip()

    # WHEN the console entry sees analyze / diff: one OpenBLAS thread (floorcalc's numpy does no BLAS)
    assert blas("analyze", "t.json") == "1 False"
    assert blas("diff", "a.json", "b.json") == "1 False"
    # AND a command that runs the user's model, or benchmarks, keeps the environment as it is
    assert blas("report", "m.py") == "unset False"
    assert blas("calibrate") == "unset False"
    # AND the user's own setting wins
    assert blas("analyze", "t.json", OPENBLAS_NUM_THREADS="4") == "4 False"
