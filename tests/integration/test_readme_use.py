"""Every use line of README.md that needs no GPU runs as written (issue 14, item 3).

The lines are read from README's ``## Use`` block, not copied here. Each runs in a shell in a
folder of its own, with ``floorcalc`` on the PATH (this checkout) and ``examples/`` linked in;
the files a line names as made earlier or elsewhere (``gpt2.20261129-101500.trace.json.gz``,
``trace.json``, ``my-gpu.yaml``, ``before.json``...) are put there first, each from a committed
H200 trace or device file. A line with ``--device cuda`` needs a GPU: tools/gpu_verify.sh's
``readme`` section runs those. ``calibrate`` on a machine without a GPU measures the CPU
(its ceilings cache goes to the test's own HOME).
"""

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def use_lines():
    """The commands of README's ``## Use`` block, comments cut."""
    text = README.read_text()
    block = re.search(r"^## Use\n+```bash\n(.*?)^```", text, re.S | re.M).group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def needs_gpu(line):
    return "--device cuda" in line


def test_the_use_block_is_found_and_sorted():
    lines = use_lines()
    assert len(lines) >= 10 and all(re.match(r"^(\w+=\S+ )*floorcalc ", x) for x in lines)
    gpu = [x for x in lines if needs_gpu(x)]
    assert gpu and len(gpu) < len(lines)
    # the GPU lines are run by tools/gpu_verify.sh's readme section, which reads them from README too
    assert "section_readme" in (ROOT / "tools" / "gpu_verify.sh").read_text()


@pytest.fixture(scope="module")
def stage(tmp_path_factory):
    """A folder holding what the lines read, and a PATH with ``floorcalc`` on it."""
    d = tmp_path_factory.mktemp("readme")
    (d / "examples").symlink_to(ROOT / "examples")
    gpt2 = ROOT / "docs" / "examples" / "gpt2.h200.trace.json.gz"
    for name in ("gpt2.20261129-101500.trace.json.gz", "run.trace.json.gz"):
        shutil.copy(gpt2, d / name)
    shutil.copy(ROOT / "docs" / "examples" / "ncu_gpt2.h200.csv.gz", d / "run.ncu.csv.gz")  # its ncu counters
    # a trace without ProfilerStep ranges: the committed decode trace with them taken out
    doc = json.loads(gzip.decompress((ROOT / "tests/data/h200_llama_decode_eager.trace.json.gz").read_bytes()))
    doc["traceEvents"] = [e for e in doc["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep")]
    (d / "trace.json").write_text(json.dumps(doc))
    shutil.copy(ROOT / "devices" / "h200.yaml", d / "my-gpu.yaml")
    bin_ = d / "bin"
    bin_.mkdir()
    (bin_ / "floorcalc").write_text(f"#!/bin/sh\nexec {sys.executable} -m floorcalc \"$@\"\n")
    (bin_ / "floorcalc").chmod(0o755)
    env = {"PATH": f"{bin_}:/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(d / "home"), "COLUMNS": "200"}
    (d / "home").mkdir()
    run = lambda *a: subprocess.run([sys.executable, "-m", "floorcalc", *a], cwd=d, env=env, capture_output=True,
                                    timeout=300, check=True)
    run("analyze", str(ROOT / "tests/data/h200_llama_decode_eager.trace.json.gz"), "-o", "before.json")
    run("analyze", str(ROOT / "tests/data/h200_llama_decode_compiled.trace.json.gz"), "-o", "after.json")
    return d, env


@pytest.mark.parametrize("line", [x for x in use_lines() if not needs_gpu(x)])
def test_readme_use_line_runs(stage, line):
    d, env = stage
    if "traces/tp2/" in line and not (d / "traces" / "tp2").is_dir():
        # the folder of a distributed run: the README's own --nproc-per-node line makes one
        made = sorted(p for p in d.iterdir() if p.is_dir() and p.name.startswith("tp_llama_block."))
        assert made, "run after the README's --nproc-per-node line (it makes the rank traces)"
        (d / "traces").mkdir(exist_ok=True)
        made[-1].rename(d / "traces" / "tp2")
    r = subprocess.run(["bash", "-c", line], cwd=d, env=env, capture_output=True, timeout=600)
    assert r.returncode == 0, f"{line}\n{r.stderr.decode()[-3000:]}"
    assert r.stdout or list(d.glob("*.json")) or "-o" in line
    for out in re.findall(r"(?:-o|--plot|--annotate-trace) (\S+)", line):
        assert (d / out).stat().st_size > 0, out


def test_cli_md_lists_every_command_and_every_csv_file():
    """docs/cli.md's command table names each command ``floorcalc --help`` lists, and its csv
    paragraph as many files as ``-o run.csv`` writes."""
    from floorcalc.cli import build_parser
    from floorcalc.render.csvfmt import sibling_paths

    text = (ROOT / "docs" / "cli.md").read_text()
    table = text.split("\n\n")[2]
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert "whatif" in sub.choices
    for name in sub.choices:
        assert f"[`{name}" in table, name
    files = sibling_paths(Path("run.csv"))
    words = {3: "three", 4: "four", 5: "five"}
    assert f"`-o run.csv` writes {words[len(files)]} files" in text
    for p in files.values():
        assert f"`{p.name}`" in text, p.name
    assert any(x.startswith("floorcalc whatif ") for x in use_lines())
