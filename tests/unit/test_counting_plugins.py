"""Formulas of the user's own: ``--formulas FILE.py`` and the ``floorcalc.formulas`` entry point
group, under the registry's rules; the worked example of docs/counting.md."""

import json
import logging
from pathlib import Path

import pytest

from floorcalc.counting import count, has_formula, plugins, registry
from floorcalc.util.errors import FormulaError
from floorcalc.records import OpCall
from builders import KinetoBuilder, tensor_args
from builders import tensor_meta as T

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "formulas" / "gpt_oss_moe.py"

GOOD = '''
from floorcalc.counting import formula
from floorcalc.counting.shapes import make_count, tensor


@formula("mylib::fused_mlp", family="matmul")
def fused_mlp(call):
    """x: [M, K], w1: [K, N], w2: [N, K] -> [M, K]; 2*M*N*K twice."""
    x, w1 = tensor(call, 0), tensor(call, 1)
    m, k = x.shape
    n = w1.shape[1]
    return make_count(flop=4 * m * n * k, reads=(x, w1, tensor(call, 2)), writes=(x,), dtype=x.dtype,
                      unit="tensor", formula="fused_mlp")
'''


@pytest.fixture(autouse=True)
def clean_registry():
    snap = registry._snapshot()
    files = dict(plugins._FILES)
    yield
    registry._restore(snap)
    plugins._FILES.clear()
    plugins._FILES.update(files)


def write(tmp_path, text, name="mine.py"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_a_formula_file_registers_its_ops_with_their_origin(tmp_path):
    p = write(tmp_path, GOOD)
    assert plugins.load_file(p) == ("mylib::fused_mlp",)
    c = count(OpCall("mylib::fused_mlp", (T(4, 8), T(8, 16), T(16, 8))))
    assert c.flop == 4 * 4 * 16 * 8 and c.formula == "fused_mlp"
    assert c.note == f"formula from {p}"  # every row it counts says where its formula came from
    assert registry.origin_of("mylib::fused_mlp") == str(p)
    assert registry.family_of("mylib::fused_mlp") == "matmul"
    # loading it again is a no-op
    assert plugins.load_file(p) == ("mylib::fused_mlp",)


@pytest.mark.parametrize("text, message", [
    ("raise RuntimeError('boom')", "RuntimeError: boom"),
    ("def broken(:\n", "SyntaxError"),
    # the registry's rules hold for a user's formula as for floorcalc's own
    ("from floorcalc.counting import formula\n@formula('aten::mm', family='matmul')\n"
     "def mm(call):\n    '''a: [M, K] -> a second mm'''\n", "two formulas for aten::mm"),
    ("from floorcalc.counting import formula\n@formula('fused_mlp', family='matmul')\n"
     "def f(call):\n    '''x'''\n", "qualified"),
    ("from floorcalc.counting import formula\n@formula('mylib::nodoc', family='matmul')\n"
     "def f(call):\n    pass\n", "no docstring"),
    ("from floorcalc.counting import formula\n@formula('mylib::nofamily')\n"
     "def f(call):\n    '''x: [*]'''\n", "family"),
])
def test_a_bad_formula_file_is_one_line_and_leaves_no_formula(tmp_path, text, message):
    p = write(tmp_path, GOOD + "\n" + text)
    with pytest.raises(FormulaError, match=message) as e:
        plugins.load_file(p)
    assert "\n" not in str(e.value) and e.value.exit_code == 10
    assert not has_formula("mylib::fused_mlp")  # registered before the failure, then removed
    assert count(OpCall("aten::mm", (T(2, 3), T(3, 4)))).formula == "gemm"


def test_a_file_that_registers_nothing_is_refused(tmp_path):
    with pytest.raises(FormulaError, match="registers no formula"):
        plugins.load_file(write(tmp_path, "x = 1\n"))


def test_missing_and_non_python_files(tmp_path):
    with pytest.raises(FormulaError, match="not found"):
        plugins.load_file(tmp_path / "nope.py")
    with pytest.raises(FormulaError, match="not a Python file"):
        plugins.load_file(write(tmp_path, GOOD, "mine.txt"))


def test_override_replaces_a_built_in_formula(tmp_path):
    p = write(tmp_path, "from floorcalc.counting import formula\nfrom floorcalc.records import Count\n"
                        "@formula('aten::gelu', override=True)\n"
                        "def gelu(call):\n    '''x: [*] -> [*]; 8 FLOPs per element (my convention).'''\n"
                        "    x = call.args[0]\n    return Count(8 * x.numel, 0, 0, x.dtype, 'vector', 'gelu8')\n")
    plugins.load_file(p)
    assert count(OpCall("aten::gelu", (T(10),))).flop == 80
    assert registry.family_of("aten::gelu") == "vector"  # inherited from the formula it replaces


class _EP:
    def __init__(self, name, target):
        self.name, self.target = name, target
        self.dist = type("D", (), {"name": "mypkg"})()

    def load(self):
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


def test_entry_points_load_once_and_a_broken_one_is_skipped(monkeypatch, caplog):
    def register():
        """Register mypkg's formulas."""
        @registry.formula("mypkg::op", family="vector")
        def op(call):
            """x: [*] -> [*]; 1 FLOP per element."""
            from floorcalc.records import Count
            return Count(call.args[0].numel, 0, 0, "float32", "vector", "mine")

    monkeypatch.setattr(plugins, "_ENTRY_POINTS_LOADED", False)
    monkeypatch.setattr(plugins.metadata, "entry_points",
                        lambda group: [_EP("good", register), _EP("bad", ImportError("no module named x"))]
                        if group == plugins.ENTRY_POINT_GROUP else [])
    with caplog.at_level(logging.WARNING, logger="floorcalc.counting"):
        assert plugins.load_entry_points() == ["good"]
    assert any("entry point bad (mypkg) left out: ImportError" in r.getMessage() for r in caplog.records)
    assert count(OpCall("mypkg::op", (T(5),))).flop == 5
    assert registry.origin_of("mypkg::op") == "entry point good (mypkg)"
    assert plugins.load_entry_points() == []  # once per process


def test_no_plugins_environment_switch(monkeypatch):
    monkeypatch.setattr(plugins, "_ENTRY_POINTS_LOADED", False)
    monkeypatch.setenv("FLOORCALC_NO_PLUGINS", "1")
    monkeypatch.setattr(plugins.metadata, "entry_points", lambda group: pytest.fail("entry points read"))
    assert plugins.load_entry_points() == []


# --------------------------------------------------------------------------------------------
# the worked example, end to end through the CLI


def _vllm_step(path: Path) -> Path:
    """One vLLM step with the B200 trace's argument layouts: a fused add+norm (counted by
    floorcalc), a MoE layer (vllm::moe_forward: needs the user's formula), each with one kernel."""
    b = KinetoBuilder(gpu_name="NVIDIA B200")
    b.step(1, 0.0, 400.0)
    ext = b.op("_C::fused_add_rms_norm", 10.0, 20.0,
               tensor_args([888, 2880], [888, 2880], [2880], dtype="bfloat16", scalars=["1e-05"]))
    b.launch(11.0, 50.0, 10.0, "vllm::fused_add_rms_norm_kernel", ext=ext)
    ext = b.op("vllm::moe_forward", 40.0, 100.0,
               {"Input Dims": [[888, 3072], [888, 128], []], "Input type": ["c10::BFloat16", "c10::BFloat16", ""],
                "Concrete Inputs": ["", "", ""]})
    b.launch(41.0, 70.0, 90.0, "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_swiGlu", ext=ext)
    return b.write(path)


def _analyze(tmp_path, trace, *extra):
    from floorcalc.cli import main

    out = tmp_path / f"r{len(extra)}.json"
    rc = main(["analyze", str(trace), "--spec", "b200", "-o", str(out), *extra])
    return rc, (json.loads(out.read_text()) if rc == 0 else None)


def test_worked_example_counts_vllm_moe_forward(tmp_path, capsys):
    trace = _vllm_step(tmp_path / "step.json")
    rc, before = _analyze(tmp_path, trace)
    assert rc == 0
    rows = {o["name"]: o for o in before["ops"]}
    # without the file: counted from its shapes alone (bytes-only; floorcalc.classify.fallback), no FLOPs
    assert rows["vllm::moe_forward"]["formula"] == "bytes-only" and rows["vllm::moe_forward"]["flop"] == 0
    assert rows["_C::fused_add_rms_norm"]["flop"] == 5 * 888 * 2880
    assert before["summary"]["uncounted_share"] == 0
    assert before["summary"]["bytes_only_share"] == pytest.approx(90 / 100)
    rc, after = _analyze(tmp_path, trace, "--formulas", str(EXAMPLE))
    assert rc == 0 and after["summary"]["uncounted_share"] == 0
    moe = next(o for o in after["ops"] if o["name"] == "vllm::moe_forward")
    # 888 tokens x 4 experts x 2880 x 3 x 360 multiply-adds x 2, + SwiGLU and the weighted sum
    assert moe["flop"] == 2 * 888 * 4 * 2880 * 3 * 360 + 888 * 4 * (3 * 360 + 2 * 2880)
    assert "uniform top-4 routing" in moe["note"]


def test_a_bad_formula_file_on_the_command_line_exits_10(tmp_path, capsys, user_mode):
    trace = _vllm_step(tmp_path / "step.json")
    bad = write(tmp_path, "raise ValueError('bad')")
    rc, _ = _analyze(tmp_path, trace, "--formulas", str(bad))
    err = capsys.readouterr().err
    first, *rest = err.splitlines()
    assert rc == 10 and "ValueError: bad" in first, err
    # then where the file raised (issue 27): its own frame, no Python traceback of floorcalc's
    assert rest[0].startswith("Traceback of your code") and f'File "{bad}", line ' in rest[1], err
    assert rest[-1] == "ValueError: bad" and "Traceback (most recent call last)" not in err, err
