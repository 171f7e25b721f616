"""The second form of model file (docs/model-files.md): ``setup()`` runs once, before
``get_model()``, so the model ``get_model()`` returns may be the one ``setup()`` built (issue 14)."""

import json

from floorcalc.capture.dispatch import prepare
from floorcalc.capture.modelfile import load_model_file
from floorcalc.capture.run import build_step
from floorcalc.cli import main

SETUP_BUILDS_THE_MODEL = """
import torch
calls = []
model = None
x = None
def setup(device='cpu'):
    global model, x
    calls.append('setup')
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU()).to(device)
    x = torch.randn(4, 16, device=device)
def get_model():
    calls.append('get_model')
    return model
def step():
    return model(x)
"""


def test_setup_runs_before_get_model_in_report_and_count(tmp_path):
    # GIVEN a step() file whose get_model() returns what setup() built (None before it)
    p = tmp_path / "built_in_setup.py"
    p.write_text(SETUP_BUILDS_THE_MODEL)
    # WHEN report's and count's preparations load it
    mf = load_model_file(p)
    step, model = build_step(mf, "cpu")
    # THEN setup() ran first, once, and the model is the one step() runs
    assert mf.module.calls == ["setup", "get_model"]
    assert model is mf.module.model
    assert step().shape == (4, 32)
    mf = load_model_file(p)
    prep = prepare(mf, "meta")
    assert mf.module.calls == ["setup", "get_model"] and prep.model is mf.module.model


def test_report_labels_ops_with_the_modules_setup_built(tmp_path):
    p = tmp_path / "built_in_setup.py"
    p.write_text(SETUP_BUILDS_THE_MODEL)
    out = tmp_path / "r.json"
    assert main(["report", str(p), "--device", "cpu", "-q", "--warmup", "1", "--iters", "1",
                 "--trace-out", str(tmp_path / "t.trace.json.gz"), "-o", str(out)]) == 0
    ops = json.loads(out.read_text())["ops"]
    assert any(o["name"] == "aten::linear" and o["module"] == "0" for o in ops)
