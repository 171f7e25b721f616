"""tools/: the scripts a maintainer runs, checked as far as a machine without a GPU can."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import golden

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"


def _module(name):
    spec = importlib.util.spec_from_file_location(f"tools_{name}", TOOLS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def test_ncu_check_reproduces_the_committed_comparison(capsys):
    # GIVEN the committed ncu run of one GPT-2 pass and the floorcalc trace of the same model
    ncu = _module("ncu_check")
    # WHEN the two are compared
    text = ncu.compare(ROOT / "docs/examples/ncu_gpt2.h200.csv.gz", ROOT / "docs/examples/gpt2.h200.trace.json.gz")
    # THEN all 126 kernels match by name in launch order, and the byte totals are those
    # docs/examples/README.md quotes (counted reads 344.0 MB against 346.6 MB read from DRAM)
    lines = text.splitlines()
    assert lines[0] == "name mismatches in matched order: 0"
    total = lines[-1].split()
    assert total[0] == "total" and total[1:7] == ["126", "456.283", "361.223", "0.79", "344.042", "346.590"], total
    assert sum(int(ln.split()[1]) for ln in lines[2:-1]) == 126


def test_fixture_recorder_has_a_recipe_for_every_golden_fixture():
    rec = _module("record_fixtures")
    assert [f.name for f in rec.FIXTURES] == golden.FIXTURES
    for f in rec.FIXTURES:
        assert (ROOT / f.model).is_file(), f
    out = subprocess.run([sys.executable, str(TOOLS / "record_fixtures.py"), "--list"], capture_output=True,
                         text=True, check=True).stdout
    assert "h200_gpt2" in out and "floorcalc report examples/gpt2.py --device cuda --iters 2" in out


def test_fixture_recorder_records_and_sets_the_run_beside_its_golden(tmp_path):
    # GIVEN no GPU here: the recipe of one fixture run on the CPU, into a relative folder
    r = subprocess.run([sys.executable, str(TOOLS / "record_fixtures.py"), "out", "h200_tiny_ops", "--device", "cpu"],
                       capture_output=True, text=True, cwd=tmp_path)
    # THEN the trace and report are in that folder, and a line sets them beside the golden
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["h200_tiny_ops.json", "h200_tiny_ops.trace.json.gz"]
    (line,) = [ln for ln in r.stdout.splitlines() if ln.startswith("h200_tiny_ops ")]
    assert "ops " in line and "wall_us " in line and "/" in line


def test_fixture_recorder_never_writes_into_a_folder_with_files(tmp_path):
    (tmp_path / "old.trace.json.gz").write_text("kept")
    r = subprocess.run([sys.executable, str(TOOLS / "record_fixtures.py"), str(tmp_path), "h200_gpt2"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "is not empty" in r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["old.trace.json.gz"]


def _verify(*args, env_out=None):
    env = {"PATH": "/usr/bin:/bin", "OUT": str(env_out or "/nonexistent")}
    return subprocess.run(["bash", str(TOOLS / "gpu_verify.sh"), *args], capture_output=True, text=True, env=env)


def test_gpu_verify_lists_its_sections():
    assert subprocess.run(["bash", "-n", str(TOOLS / "gpu_verify.sh")]).returncode == 0
    r = _verify("--list")
    assert r.returncode == 0, r.stderr
    names = [ln.split()[0] for ln in r.stdout.splitlines()]
    assert names[0] == "env" and {"gputests", "fixtures", "ncu", "examples"} <= set(names)
    # every section is documented in tools/README.md
    readme = (TOOLS / "README.md").read_text()
    assert all(f"| `{n}` |" in readme for n in names), names


def test_gpu_verify_refuses_an_unknown_section_before_running_anything(tmp_path):
    r = _verify("gputests", "nonsense", env_out=tmp_path)
    assert r.returncode == 2 and "no section 'nonsense'" in r.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", sorted(p.name for p in TOOLS.iterdir() if p.name not in ("README.md", "__pycache__")))
def test_every_tool_is_in_the_readme(name):
    assert f"`{name}`" in (TOOLS / "README.md").read_text()
