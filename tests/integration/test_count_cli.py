"""`floorcalc count` end to end: the bundled examples count on meta with no uncounted op, and
every bad input is one line with its exit code (meta counts against real CPU traces:
test_count_matches_report.py)."""

import json
from pathlib import Path

import pytest

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"

#: Small configs so the suite stays fast.
SMALL = {"FLOORCALC_LLAMA": "tiny", "FLOORCALC_LLAMA_SEQ": "32", "FLOORCALC_LLAMA_CACHE": "100",
         "FLOORCALC_UNET_SIZE": "64", "FLOORCALC_MOE_SEQ": "64", "FLOORCALC_GPT2_SEQ": "32"}


@pytest.fixture
def small(monkeypatch):
    for k, v in SMALL.items():
        monkeypatch.setenv(k, v)


def count_json(tmp_path, model, *extra, name=None):
    out = tmp_path / (name or f"{Path(model).stem}.count.json")
    rc = main(["count", str(model), "-q", "-o", str(out), *extra])
    assert rc == 0
    return json.loads(out.read_text())


def test_mlp_counts_k10_batched(tmp_path):
    doc = count_json(tmp_path, EX / "mlp.py", "--depth", "1")
    t = doc["totals"]
    # K10 batched by 64: GEMMs 2*64*668,672 + bias adds 64*1,034 + ReLUs 64*1,024
    assert t["flop"] == 2 * 64 * 668_672 + 64 * 1_034 + 64 * 1_024
    assert t["params"] == 669_706 and t["param_bytes"] == 2_678_824 and not t["lower_bound"]
    rows = {m["path"]: m for m in doc["modules"]}
    assert list(rows) == ["", "0", "1", "2", "3", "4", "5"]
    assert rows["1"]["flop"] == 2 * 64 * 784 * 512 + 64 * 512 and rows["1"]["params"] == 784 * 512 + 512
    assert rows["1"]["intensity_flop_per_byte"] == pytest.approx(rows["1"]["flop"] / rows["1"]["bytes"])
    assert doc["run"] == "meta" and doc["schema"] == "floorcalc.count" and doc["compare"] is None
    assert doc["by_family"]["matmul"] == 2 * 64 * 668_672 + 64 * 1_034


@pytest.mark.parametrize("name", ["llama", "llama_decode", "resnet50", "vit", "unet", "gpt2"])
def test_examples_count_on_meta_with_nothing_uncounted(tmp_path, small, name):
    doc = count_json(tmp_path, EX / f"{name}.py")
    assert doc["run"] == "meta" and doc["uncounted"] == [] and doc["totals"]["flop"] > 0
    assert doc["totals"]["params"] > 0


def test_moe_falls_back_to_a_real_cpu_run_and_says_so(tmp_path, small, capsys):
    doc = count_json(tmp_path, EX / "moe.py")
    err = capsys.readouterr().err
    assert doc["run"] == "cpu" and "real CPU run" in doc["notice"] and "floorcalc: note:" in err
    assert doc["uncounted"] == []
    names = {o["name"] for o in doc["ops"]}
    assert {"aten::topk", "aten::index_select", "aten::index_add_", "aten::gather", "aten::scatter_"} <= names


def test_no_fallback_fails_in_one_line(tmp_path, small, capsys):
    rc = main(["count", str(EX / "moe.py"), "--no-fallback"])
    err = capsys.readouterr().err
    assert rc == 4 and "cannot run on the meta device" in err and err.count("\n") == 1


def test_dtype_cast(tmp_path):
    f32 = count_json(tmp_path, EX / "mlp.py")
    bf16 = count_json(tmp_path, EX / "mlp.py", "--dtype", "bfloat16", name="bf16.json")
    assert bf16["totals"]["flop"] == f32["totals"]["flop"]
    assert bf16["totals"]["param_bytes"] * 2 == f32["totals"]["param_bytes"]
    assert bf16["totals"]["bytes"] * 2 == f32["totals"]["bytes"]


def test_table_output(tmp_path, small):
    out = tmp_path / "llama.txt"
    assert main(["count", str(EX / "llama.py"), "-q", "--depth", "3", "-o", str(out)]) == 0
    text = out.read_text()
    for needle in ("modules (inclusive), to depth 3", "layers.0.attention", "by family", "aten::linear",
                   "uncounted ops: none", "(model)"):
        assert needle in text


def test_step_file_without_model(tmp_path):
    p = tmp_path / "step.py"
    p.write_text("import torch\nx = None\ndef setup(device='cpu'):\n    global x\n"
                 "    x = torch.randn(64, 64, device=device)\ndef step():\n    return (x @ x).relu()\n")
    doc = count_json(tmp_path, p)
    assert doc["run"] == "meta" and doc["totals"]["params"] is None
    assert doc["totals"]["flop"] == 2 * 64 ** 3 + 64 * 64


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("make, args, code, message", [
    (lambda d: d / "nope.py", [], 3, "model file not found"),
    (lambda d: write(d, "m.py", "x = 1\n"), [], 3, "defines neither step() nor get_model() and get_inputs()"),
    (lambda d: write(d, "m.py", "import torch\ndef get_model():\n    raise ValueError('boom')\n"
                               "def get_inputs():\n    return ()\n"), [], 4, "get_model() raised ValueError: boom"),
    (lambda d: write(d, "m.py", "import torch\ndef get_model():\n    return torch.nn.Linear(3, 3)\n"
                               "def get_inputs():\n    return (torch.randn(2, 5),)\n"), [], 4, "forward raised"),
    (lambda d: write(d, "m.py", "import torch\ndef get_model():\n    return 5\n"
                               "def get_inputs():\n    return ()\n"), [], 3, "not an nn.Module"),
    (lambda d: write(d, "m.py", "import torch\ndef get_model():\n    return torch.nn.Linear(3, 3)\n"
                               "def get_inputs():\n    return 5\n"), [], 3, "must return a tuple"),
    (lambda d: EX / "mlp.py", ["--depth", "-1"], 2, "--depth must be 0 or more"),
    (lambda d: EX / "mlp.py", ["-o", "/no/such/dir/x.json"], 8, "output folder does not exist"),
    (lambda d: EX / "mlp.py", ["-o", "x.weird"], 2, "cannot infer a format"),
])
def test_bad_inputs_are_one_line(tmp_path, capsys, make, args, code, message, user_mode):
    """One error line; when the user's own code raised (get_model() here), their frames of it
    follow that line (issue 27), never a Python traceback of floorcalc's."""
    path = make(tmp_path)
    rc = main(["count", str(path), "-q", *args])
    err = capsys.readouterr().err
    assert rc == code, err
    first, *rest = err.splitlines()
    assert message in first and "Traceback (most recent call last)" not in err, err
    if "get_model() raised" in message:
        assert rest[0].startswith("Traceback of your code") and f'File "{path}", line 3, in get_model' in rest[1], err
    else:
        assert rest == [], err


def test_existing_output_is_not_overwritten(tmp_path, capsys):
    out = write(tmp_path, "x.json", "keep me")
    assert main(["count", str(EX / "mlp.py"), "-q", "-o", str(out)]) == 8
    assert out.read_text() == "keep me" and "--force" in capsys.readouterr().err


def test_count_says_the_dtype_it_counted_in(tmp_path, capsys):
    # GIVEN examples/mlp.py, whose model and inputs are float32 unless cast
    assert main(["count", str(EX / "mlp.py"), "-q"]) == 0
    # THEN the first line names the dtype, and the JSON has it, after --dtype too
    assert "counted in float32" in capsys.readouterr().out.splitlines()[0]
    assert count_json(tmp_path, EX / "mlp.py")["dtypes"] == ["float32"]
    assert count_json(tmp_path, EX / "mlp.py", "--dtype", "bfloat16", name="bf16.json")["dtypes"] == ["bfloat16"]


def test_flex_attention_is_counted_through_the_higher_order_operator(tmp_path):
    # issue 23 (f): count exited 4 blaming the model ("NotImplementedError ... HigherOrderOperator
    # flex_attention") after its own recorder failed on the higher-order operator
    doc = count_json(tmp_path, ROOT / "tests" / "data" / "models" / "flex_causal.py")
    ops = {o["name"]: o for o in doc["ops"]}
    # THEN flex_attention is counted from its causal block mask: 3 of 4 blocks of 128 x 128, on
    # 2 heads: 2 * 3 * 16,384 * 2 pairs * (16 + 16) FLOPs; q, k, v read and the output written
    flex = ops["higher_order::flex_attention"]
    assert flex["flop"] == 2 * 3 * 16_384 * 2 * 32 == 6_291_456
    assert flex["bytes"] == 4 * (1 * 2 * 256 * 16) * 4
    assert doc["uncounted"] == []
    # AND torch.cond, a higher-order operator with no formula, is counted through its branch: the
    # [1, 2, 256, 16] @ [16, 16] matmul
    assert ops["aten::matmul"]["flop"] == 2 * 2 * 256 * 16 * 16


def test_a_failure_of_the_recorder_is_floorcalcs_not_the_models(tmp_path, monkeypatch, capsys):
    from floorcalc.capture import dispatch

    def broken(args):
        raise RuntimeError("block mask layout not understood")

    monkeypatch.setattr(dispatch, "flex_attention_pairs", broken)
    rc = main(["count", str(ROOT / "tests" / "data" / "models" / "flex_causal.py"), "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    # THEN exit 9, one line that says whose the failure is (not exit 4, "the model's forward raised")
    assert rc == 9
    assert err[-1].startswith("floorcalc: error: floorcalc count cannot record the higher-order operator flex_attention")
    assert "not an error in the model" in err[-1] and "0x" not in err[-1]


MLP_BODY = """import torch

def get_model():
    return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 64))

def get_inputs():
    return ({inputs},)
"""


@pytest.mark.parametrize("inputs", ['torch.empty(8, 64, device="meta")', 'torch.randn(8, 64, device="meta")'])
def test_inputs_made_on_meta_are_counted_as_real_ones(tmp_path, inputs, capsys):
    # GIVEN the same model file twice: inputs made on the CPU, and made on the meta device
    # (count runs on meta anyway; issue 25: it refused them)
    real = tmp_path / "real.py"
    real.write_text(MLP_BODY.format(inputs="torch.randn(8, 64)"))
    meta = tmp_path / "meta.py"
    meta.write_text(MLP_BODY.format(inputs=inputs))
    # WHEN both are counted, THEN the meta one counts on meta exactly as the real one
    a, b = count_json(tmp_path, real), count_json(tmp_path, meta)
    assert b["run"] == "meta" and not b.get("notice")
    assert (b["totals"], b["ops"]) == (a["totals"], a["ops"])
    assert a["totals"]["flop"] > 0


def test_meta_inputs_with_compare_run_flop_counter_on_meta_and_say_why_fvcore_did_not(tmp_path):
    meta = tmp_path / "meta.py"
    meta.write_text(MLP_BODY.format(inputs='torch.empty(8, 64, device="meta")'))
    doc = count_json(tmp_path, meta, "--compare")
    assert doc["run"] == "meta" and doc["compare"]["run"] == "meta"
    oracles = {o["name"]: o for o in doc["compare"]["oracles"]}
    assert oracles["FlopCounterMode"]["ran"] and "on meta" in oracles["FlopCounterMode"]["note"]
    assert not oracles["fvcore"]["ran"] and "get_inputs() makes meta tensors" in oracles["fvcore"]["note"]


def test_meta_inputs_of_a_model_that_needs_real_data_are_one_line(tmp_path, capsys):
    # a forward that needs data (.item()) cannot run on meta, and its meta inputs cannot run on the CPU
    m = tmp_path / "m.py"
    m.write_text("import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                 "        return x * x.sum().item()\n\ndef get_model():\n    return M()\n\n"
                 "def get_inputs():\n    return (torch.empty(4, device='meta'),)\n")
    rc = main(["count", str(m), "-q"])
    err = capsys.readouterr().err
    assert rc == 4 and err.count("\n") == 1
    assert "cannot run on the meta device" in err and "meta tensors, which cannot run on the CPU either" in err
