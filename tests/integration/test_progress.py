"""The progress display (issue 18): floorcalc run under a pseudo-terminal shows its stages as they
go and leaves nothing of them on the screen; in a pipe it prints only its stage lines; user and
trace text comes out without colour codes inside it.

The CLI runs in a child process on a pty (tools/record_terminal.py's ``run_in_pty``); what it
wrote is fed to pyte, a terminal emulator, to read the screens a user saw.
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from builders import KinetoBuilder, tensor_args
from floorcalc import __version__

pytest.importorskip("pyte")

ROOT = Path(__file__).resolve().parents[2]
ESC = "\x1b"
BAR = "━"  # rich's bar, drawn by the progress display and nowhere else in floorcalc's output
STAGES = ("reading ", "finding the device spec", "building the report", "counting ops", "flooring ops")


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def drawn(rec):
    """Every progress line the display drew, in order: the frames in the bytes written (codes
    removed), each line holding the bar. (Screens read between two reads of the terminal would
    miss a frame drawn over in the same read.)"""
    text = ANSI.sub("", rec.data.decode("utf-8", "replace"))
    return [line.strip() for line in re.split(r"[\r\n]", text) if BAR in line]


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


record = _module(ROOT / "tools" / "record_terminal.py", "record_terminal")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("FLOORCALC_DEBUG", None)
    return env


def floorcalc(*args):
    return [sys.executable, "-m", "floorcalc", *map(str, args)]


@pytest.fixture(scope="module")
def big_trace(tmp_path_factory):
    """A 100k-event trace (benchmarks/analyze_scale.py's: the committed GPT-2 trace repeated),
    large enough that reading it and building its report take several frames."""
    scale = _module(ROOT / "benchmarks" / "analyze_scale.py", "analyze_scale")
    path = tmp_path_factory.mktemp("big") / "big.trace.json.gz"
    scale.build(100_000, path)
    return path


def test_analyze_in_a_terminal_shows_its_stages_and_leaves_no_trace_of_them(big_trace):
    # GIVEN a large trace, WHEN floorcalc analyzes it on a terminal
    rec = record.run_in_pty(floorcalc("analyze", big_trace), cols=110, rows=40, env=_env())
    assert rec.returncode == 0, rec.data[-2000:]
    # THEN the screens while it ran showed the reading (bytes of the file's size, events so far)
    # and the report being built (ops counted of their number)
    seen = drawn(rec)
    for _, screen in record.screens(rec):
        pass
    reading = [line for line in seen if line.startswith("reading big.trace.json.gz")]
    assert reading and any(re.search(r"[0-9.]+ [kM]B/[0-9.]+ MB", line) for line in reading), seen[:5]
    assert any(re.search(r"(counting|flooring) ops .*/[0-9,]+ ops", line) for line in seen), seen
    assert any("building the report" in line and "/5 steps" in line for line in seen)
    # AND the terminal holds the report, whole, and nothing of the display; the cursor is back
    final = record.all_lines(screen)
    assert final[0].startswith(f"floorcalc {__version__}"), final[:3]
    assert any(line.startswith("note: MFU uses") for line in final[-10:]), final[-10:]
    assert not any(BAR in line or line.startswith(STAGES) for line in final), [line for line in final if BAR in line]
    assert not screen.cursor.hidden


def test_analyze_in_a_pipe_writes_no_progress(big_trace, tmp_path):
    # GIVEN stdout and stderr that are pipes, WHEN floorcalc analyzes the trace
    r = subprocess.run(floorcalc("analyze", big_trace), capture_output=True, text=True, env=_env(), timeout=300)
    # THEN stderr is empty (analyze prints no stage lines), and stdout is the report, no codes
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert ESC not in r.stdout and BAR not in r.stdout
    assert r.stdout.startswith(f"floorcalc {__version__}")


def test_quiet_on_a_terminal_shows_no_progress(big_trace):
    rec = record.run_in_pty(floorcalc("analyze", big_trace, "--quiet"), cols=110, rows=40, env=_env())
    assert rec.returncode == 0
    text = rec.data.decode("utf-8", "replace")
    assert BAR not in text and "reading big" not in text and "building the report" not in text
    assert f"floorcalc {__version__}" in text


def _stage_lines(text):
    return [line for line in text.splitlines() if line.startswith("floorcalc: ")]


TINY = ROOT / "tests" / "data" / "models" / "tiny_ops.py"


def test_report_in_a_pipe_prints_only_its_stage_lines(tmp_path):
    # GIVEN a model, WHEN floorcalc report runs with stderr a pipe
    out = tmp_path / "r.json"
    r = subprocess.run(floorcalc("report", TINY, "--device", "cpu", "--warmup", "1", "--iters", "2",
                                 "--trace-out", tmp_path / "t.trace.json.gz", "-o", out),
                       capture_output=True, text=True, env=_env(), timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # THEN stderr holds the stage lines, nothing else, and no terminal code (torch's own profiler
    # start/stop lines are kept off it: floorcalc.capture.profiler_lines)
    assert ESC not in r.stderr and BAR not in r.stderr
    lines = r.stderr.splitlines()
    assert lines[:-1] == [
        # the paths as 'floorcalc: wrote' names them: relative to the working folder, else whole
        f"floorcalc: loading {TINY} on cpu", "floorcalc: warming up: 1 pass",
        "floorcalc: timing 2 passes without the profiler (3 sets)", "floorcalc: measuring launch latency",
        "floorcalc: timing 2 passes under the profiler without shapes", "floorcalc: profiling 2 passes",
        "floorcalc: writing trace t.trace.json.gz", "floorcalc: trace written: t.trace.json.gz"]
    # AND last, where -o went (the report's size varies with its timings)
    assert re.fullmatch(r"floorcalc: wrote r\.json \(json, [0-9.]+ kB\)", lines[-1]), lines[-1]


def test_report_in_a_terminal_counts_passes_and_keeps_only_the_stage_lines(tmp_path):
    # GIVEN a terminal, WHEN floorcalc report runs a model
    rec = record.run_in_pty(floorcalc("report", TINY, "--device", "cpu", "--warmup", "2", "--iters", "3",
                                      "--trace-out", tmp_path / "t.trace.json.gz", "-o", tmp_path / "r.json"),
                            cols=120, rows=40, env=_env(), cwd=str(tmp_path))
    assert rec.returncode == 0, rec.data[-2000:]
    # THEN each stage's pass counter was on screen while it ran
    text = "\n".join(drawn(rec))
    for _, screen in record.screens(rec):
        pass
    assert re.search(r"^warm-up .* [0-2]/2 passes", text, re.M), text
    assert re.search(r"^timing 3 passes without the profiler .* [0-3]/3 sets", text, re.M), text
    assert re.search(r"^profiled pass .* [0-3]/3 passes", text, re.M), text
    assert re.search(r"^reading t\.trace\.json\.gz ", text, re.M), text
    # AND the terminal holds the stage lines, in order, and no progress line
    final = record.all_lines(screen)
    assert not any(BAR in line for line in final), final
    stages = _stage_lines("\n".join(final))
    assert stages[1:3] == ["floorcalc: warming up: 2 passes", "floorcalc: timing 3 passes without the profiler (3 sets)"]
    assert stages[-2] == "floorcalc: trace written: t.trace.json.gz"
    assert re.fullmatch(r"floorcalc: wrote r\.json \(json, [0-9.]+ kB\)", stages[-1]), stages[-1]


def test_names_and_version_reach_the_terminal_without_colour_codes_inside(tmp_path):
    """Issue 18: on a colour terminal rich's highlighter coloured ``0.1.0`` in the header and the
    numbers inside op names; a file name with markup in the progress display must show as it is."""
    # GIVEN a trace whose op name holds a version and numbers, in a file whose name is markup
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    b.module("blocks.7", 1.0, 60.0)
    ext = b.op("mlp_v2.1.0_4096x1024", 2.0, 50.0, tensor_args([4, 8]))
    b.launch(3.0, 10.0, 20.0, "sm90_gemm_128x256_v3", ext=ext)
    path = b.write(tmp_path / "[bold]run 1.2.3.trace.json.gz")
    # WHEN floorcalc analyzes it on a terminal
    rec = record.run_in_pty(floorcalc("analyze", path, "--spec", "h200"), cols=160, rows=50, env=_env())
    assert rec.returncode == 0, rec.data[-2000:]
    raw = rec.data.decode("utf-8", "replace")
    # THEN each name and the version are there character for character, no escape code inside
    assert f"floorcalc {__version__}" in raw
    assert "mlp_v2.1.0_4096x1024" in raw
    assert "reading [bold]run 1.2.3.trace.json.gz" in raw  # the progress line: no markup read, no colour
    # AND the check can fail: rich's own default console splits the version with colour codes
    from rich.console import Console
    import io

    buf = io.StringIO()
    Console(file=buf, force_terminal=True, color_system="256").print(f"floorcalc {__version__} mlp_v2.1.0_4096x1024")
    assert f"floorcalc {__version__}" not in buf.getvalue() and "mlp_v2.1.0_4096x1024" not in buf.getvalue()


def test_calibrate_in_a_terminal_names_each_benchmark(tmp_path):
    # GIVEN a terminal, WHEN calibrate measures this CPU (quick sweep)
    env = {**_env(), "FLOORCALC_CACHE_DIR": str(tmp_path / "cache")}  # this machine's ceilings cache left alone
    rec = record.run_in_pty(floorcalc("calibrate", "--device", "cpu", "--quick", "-o", tmp_path / "cpu.yaml"),
                            cols=120, rows=40, env=env, cwd=str(tmp_path))
    assert rec.returncode == 0, rec.data[-2000:]
    # THEN each benchmark was shown as "benchmark i of N: NAME", in order, ending with the FP32 and BF16 rates
    shown = [re.search(r"benchmark (\d+) of (\d+): ([A-Z0-9]+ [a-z]+)", line) for line in drawn(rec)]
    names = list(dict.fromkeys((int(m[1]), int(m[2]), m[3]) for m in shown if m))
    n = names[-1][1]
    assert [i for i, _, _ in names] == list(range(1, n + 1)), names
    assert [x[2] for x in names[-3:]] == ["DRAM bandwidth", "FP32 rate", "BF16 rate"]
    # AND none of it is left on the terminal (its table of ceilings has a heavy rule of its own)
    for _, screen in record.screens(rec):
        pass
    final = record.all_lines(screen)
    assert not any(re.search(r"benchmark \d+ of|calibrating the CPU", line) for line in final), final
    assert any(line.startswith("floorcalc: wrote ") for line in final)


@pytest.mark.parametrize("name, steps", [
    ("analyze-300k", ["reading big.trace.json.gz", "finding the device spec", "building the report", "flooring ops"]),
    ("report-gpt2-cpu", ["warm-up", "timing 5 passes without the profiler", "profiled pass",
                         "reading gpt2.", "building the report"]),
])
def test_the_committed_recordings(name, steps):
    """docs/examples/terminal/: each cast is asciinema v2, shows its steps as they ran, and ends
    with none of them on the terminal."""
    import json

    lines = (ROOT / "docs" / "examples" / "terminal" / f"{name}.cast").read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    events = [json.loads(line) for line in lines[1:]]
    assert head["version"] == 2 and head["width"] == 120 and head["height"] == 32
    assert all(kind == "o" for _, kind, _ in events) and all(a[0] <= b[0] for a, b in zip(events, events[1:]))
    rec = record.Recording(chunks=[(t, text.encode()) for t, _, text in events], cols=120, rows=32)
    frames = drawn(rec)
    for step in steps:
        assert any(line.startswith(step) for line in frames), step
    for _, screen in record.screens(rec):
        pass
    final = record.all_lines(screen)
    assert not any(line.startswith(tuple(steps)) for line in final), [line for line in final if BAR in line]
    assert final[0].startswith("$ floorcalc ") and not screen.cursor.hidden
    assert any(line.startswith("floorcalc 0.") for line in final)  # the report's header, whole
