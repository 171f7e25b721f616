"""`--formulas FILE.py` end to end: a model with a custom torch op of its own is uncounted, then
counted by `count` (on meta) and `report` (a real CPU trace) alike once the user gives its
formula."""

import json
import textwrap

import pytest

pytest.importorskip("torch")

from floorcalc.cli import main  # noqa: E402
from floorcalc.counting import plugins, registry  # noqa: E402

MODEL = textwrap.dedent('''
    import torch
    import torch.nn as nn

    try:  # a model file is imported more than once in one process: define the op once
        scale_rows = torch.ops.fctest.scale_rows
    except (AttributeError, RuntimeError):
        @torch.library.custom_op("fctest::scale_rows", mutates_args=())
        def scale_rows(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
            return x * s[:, None]

        @scale_rows.register_fake
        def _(x, s):
            return torch.empty_like(x)


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, s):
            return torch.ops.fctest.scale_rows(self.lin(x), s)


    def get_model(device="cpu"):
        torch.manual_seed(0)
        return M()


    def get_inputs(device="cpu"):
        return torch.randn(4, 8), torch.randn(4)
''')

FORMULA = textwrap.dedent('''
    from floorcalc.counting import formula
    from floorcalc.counting.shapes import make_count, out_tensor, tensor


    @formula("fctest::scale_rows", family="vector")
    def scale_rows(call):
        """x: [R, C], s: [R] -> [R, C]; 1 multiply per element."""
        x, s = tensor(call, 0), tensor(call, 1)
        return make_count(flop=x.numel, reads=(x, s), writes=(out_tensor(x.shape, x.dtype),), dtype=x.dtype,
                          unit="vector", formula="scale_rows")
''')


@pytest.fixture(autouse=True)
def clean_registry():
    snap = registry._snapshot()
    yield
    registry._restore(snap)
    plugins._FILES.clear()


def test_a_custom_op_counted_by_count_and_report_with_the_users_formula(tmp_path):
    model, formulas = tmp_path / "model.py", tmp_path / "formulas.py"
    model.write_text(MODEL)
    formulas.write_text(FORMULA)
    linear = 2 * 4 * 8 * 8 + 4 * 8
    # GIVEN no formula for the op: count lists it as uncounted
    assert main(["count", str(model), "-q", "-o", str(tmp_path / "c0.json")]) == 0
    c0 = json.loads((tmp_path / "c0.json").read_text())
    assert c0["totals"]["flop"] == linear and [u["name"] for u in c0["uncounted"]] == ["fctest::scale_rows"]
    # WHEN the user's file is given THEN count (meta) and report (CPU trace) both count it, alike
    assert main(["count", str(model), "-q", "--formulas", str(formulas), "-o", str(tmp_path / "c1.json")]) == 0
    c1 = json.loads((tmp_path / "c1.json").read_text())
    assert c1["uncounted"] == [] and c1["totals"]["flop"] == linear + 32 and c1["by_family"]["vector"] == 32
    assert main(["report", str(model), "--device", "cpu", "--warmup", "1", "--iters", "1", "-q", "--formulas",
                 str(formulas), "--trace-out", str(tmp_path / "t.json.gz"), "-o", str(tmp_path / "r.json")]) == 0
    r = json.loads((tmp_path / "r.json").read_text())
    assert r["summary"]["flop"] == c1["totals"]["flop"] and r["summary"]["bytes"] == c1["totals"]["bytes"]
    assert not [o for o in r["ops"] if o["bound"] == "uncounted"]
