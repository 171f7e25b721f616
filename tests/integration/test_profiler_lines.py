"""torch's profiler start/stop lines are dropped from standard error while floorcalc drives the
profiler, at the file-descriptor level, and nothing else is (issue 14, item 5)."""

import subprocess
import sys
from pathlib import Path

from floorcalc.capture.profiler_lines import PROFILER_LINE

ROOT = Path(__file__).resolve().parents[2]

FILTER_SCRIPT = r"""
import os, sys, torch
from torch.profiler import profile, ProfilerActivity
from floorcalc.capture.profiler_lines import quiet_profiler_lines
os.write(2, b"before\n")
with quiet_profiler_lines():
    with profile(activities=[ProfilerActivity.CPU]):
        torch.ones(3) + 1
    os.write(2, b"USDT:2026-12-01 13:42:29 1:1 SyncActivityProfilerHandler.cpp:52] profiler_start\n")
    os.write(2, b"USDT: a line of another kind\n")
    print("python stderr", file=sys.stderr)
    os.write(2, b"c level\nprofiler_stop\n")
    with quiet_profiler_lines():
        os.write(2, b"nested\n")
    os.write(2, b"partial, no newline")
os.write(2, b"|after\n")
with profile(activities=[ProfilerActivity.CPU]):
    torch.ones(3) + 1
"""


def test_only_the_profiler_lines_are_dropped_in_order():
    # GIVEN a process writing to fd 2 from C and Python inside and outside the filter
    r = subprocess.run([sys.executable, "-c", FILTER_SCRIPT], capture_output=True, cwd=ROOT, timeout=120,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    lines = r.stderr.decode().splitlines()
    # THEN inside, every line but Kineto's start/stop is kept, in order; outside, nothing is filtered
    inside = ["before", "USDT: a line of another kind", "python stderr", "c level", "profiler_stop", "nested",
              "partial, no newline|after"]
    assert [x for x in lines if not PROFILER_LINE.match(x.encode())] == inside
    dropped = [x for x in lines if PROFILER_LINE.match(x.encode())]
    assert dropped == [x for x in lines[lines.index("partial, no newline|after"):] if x.startswith("USDT:")]
    assert len(dropped) == 2  # the unfiltered session after the block still prints its start and stop


def test_report_prints_no_profiler_lines(tmp_path):
    # GIVEN a model that writes to stderr itself, a line like torch's included
    model = tmp_path / "noisy.py"
    model.write_text("import os, torch\ndef get_model():\n    os.write(2, b'model says hi\\n')\n"
                     "    return torch.nn.Linear(8, 8)\ndef get_inputs():\n    return (torch.randn(2, 8),)\n")
    # WHEN floorcalc report runs it (the whole CLI, in its own process)
    r = subprocess.run([sys.executable, "-m", "floorcalc", "report", str(model), "--device", "cpu", "--warmup", "1",
                        "--iters", "1", "--trace-out", str(tmp_path / "t.trace.json.gz"), "-o",
                        str(tmp_path / "r.json")], capture_output=True, cwd=tmp_path, timeout=300,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    # THEN its stderr has floorcalc's lines and the model's, and none of torch's start/stop lines
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "model says hi" in err and "floorcalc: profiling 1 pass" in err
    assert "profiler_start" not in err and "profiler_stop" not in err
