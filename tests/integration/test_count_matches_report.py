"""`floorcalc count` (the model on meta tensors) against `floorcalc report` (a real CPU run, read
back from its Kineto trace): the same FLOPs and bytes, op by op, on every committed example
model and on the K15 and K16 cases.

The one difference allowed is an argument the profiler does not record: gelu's
``approximate="tanh"`` (a string) is known to `count`, which counts the tanh form's 9 FLOPs per
element, while a trace can only give the erf form's 5 (docs/counting.md). For such an op the
test checks that exact ratio, so any other difference fails.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.py") if not p.stem.startswith("_"))  # _x.py: helpers
MODELS = ROOT / "tests" / "data" / "models"

#: Small configs so the suite stays fast.
SMALL = {"FLOORCALC_LLAMA": "tiny", "FLOORCALC_LLAMA_SEQ": "32", "FLOORCALC_LLAMA_CACHE": "100",
         "FLOORCALC_UNET_SIZE": "64", "FLOORCALC_MOE_SEQ": "64", "FLOORCALC_GPT2_SEQ": "32"}

#: Ops whose formula reads an argument the profiler leaves out, with the ratio of `count`'s
#: FLOPs to the trace's: gelu(approximate="tanh") is 9 per element, the erf form 5.
UNRECORDED_ARGS = {"gpt2": {"aten::gelu": (9, 5)}}


@pytest.fixture
def small(monkeypatch):
    for k, v in SMALL.items():
        monkeypatch.setenv(k, v)


def _count_and_report(tmp_path: Path, model: Path):
    c_out, r_out = tmp_path / "count.json", tmp_path / "report.json"
    assert main(["count", str(model), "-q", "-o", str(c_out)]) == 0
    assert main(["report", str(model), "--device", "cpu", "--warmup", "1", "--iters", "1", "-q",
                 "--trace-out", str(tmp_path / "t.json.gz"), "-o", str(r_out)]) == 0
    return json.loads(c_out.read_text()), json.loads(r_out.read_text())


def _by_op(rows, flop_key="flop", bytes_key="bytes"):
    out = defaultdict(lambda: [0, 0])
    for r in rows:
        out[r["name"]][0] += r[flop_key] or 0
        out[r["name"]][1] += r[bytes_key] or 0
    return {k: tuple(int(round(x)) for x in v) for k, v in out.items()}


def _compare(count_doc, report_doc, allowed=None):
    allowed = allowed or {}
    assert not [o["name"] for o in report_doc["ops"] if o["bound"] == "uncounted"]
    assert count_doc["uncounted"] == []
    c_ops = _by_op(count_doc["ops"])
    r_ops = {k: v for k, v in _by_op(report_doc["ops"]).items() if v != (0, 0)}
    c_ops = {k: v for k, v in c_ops.items() if v != (0, 0)}
    assert set(c_ops) == set(r_ops)
    for name, (c_flop, c_bytes) in c_ops.items():
        r_flop, r_bytes = r_ops[name]
        assert c_bytes == r_bytes, name
        if name in allowed:
            num, den = allowed[name]
            assert c_flop * den == r_flop * num, name
        else:
            assert c_flop == r_flop, name
    assert count_doc["totals"]["bytes"] == report_doc["summary"]["bytes"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_count_on_meta_equals_report_on_cpu_for_every_example(tmp_path, small, name):
    # GIVEN a bundled example WHEN counted on meta and profiled for real on the CPU
    count_doc, report_doc = _count_and_report(tmp_path, ROOT / "examples" / f"{name}.py")
    # THEN every op agrees to the FLOP and the byte (save arguments the trace cannot show)
    _compare(count_doc, report_doc, UNRECORDED_ARGS.get(name))
    if name not in UNRECORDED_ARGS:
        assert count_doc["totals"]["flop"] == report_doc["summary"]["flop"]


@pytest.mark.parametrize("model, flop, nbytes", [
    ("k15_grouped_mm.py", 3_072, 1_356),
    ("k16_mha_cross.py", 178_544, 84_168),
])
def test_k15_k16_through_count_and_report(tmp_path, model, flop, nbytes):
    count_doc, report_doc = _count_and_report(tmp_path, MODELS / model)
    assert count_doc["run"] == "meta"
    assert (count_doc["totals"]["flop"], count_doc["totals"]["bytes"]) == (flop, nbytes)
    assert (report_doc["summary"]["flop"], report_doc["summary"]["bytes"]) == (flop, nbytes)
    _compare(count_doc, report_doc)
