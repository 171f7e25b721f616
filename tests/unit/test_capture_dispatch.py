"""The dispatch recorder of `floorcalc count` against the profiler: the same ops, run for real on
the CPU, must count the same whether their calls come from a Kineto trace (what `floorcalc
report` reads) or from the TorchDispatchMode (what `floorcalc count` records). This proves the
recorder maps arguments to the positions the formulas read (schema order, keyword-only ones
included, dtypes as ScalarType codes) and that its outermost-op-with-a-formula rule matches the
trace's. Then the same on meta tensors, where nothing runs.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from floorcalc.capture.dispatch import Prepared, convert_arg, run_recorded  # noqa: E402
from builders import toy_spec  # noqa: E402
from floorcalc.classify.units import classify  # noqa: E402
from floorcalc.counting import count  # noqa: E402
from floorcalc.records import OpCall, TensorMeta  # noqa: E402
from floorcalc.trace.window import window  # noqa: E402
from floorcalc.trace import load  # noqa: E402


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


def _cases():
    x = torch.randn(2, 16, 32, generator=_g())
    img = torch.randn(2, 4, 16, 16, generator=_g(1))
    q = torch.randn(1, 8, 24, 16, generator=_g(2))
    kv = torch.randn(1, 2, 24, 16, generator=_g(3))
    lin = nn.Linear(32, 48)
    conv = nn.Conv2d(4, 8, 3, stride=2, padding=1)
    convt = nn.ConvTranspose2d(3, 1, 2, stride=2)
    bn = nn.BatchNorm2d(4).eval()
    gn = nn.GroupNorm(2, 4)
    emb = nn.Embedding(100, 32)
    idx = torch.tensor([3, 1, 4, 1, 5])
    return {
        "linear": lambda: lin(x),
        "conv2d": lambda: conv(img),
        "conv_transpose2d (K02)": lambda: convt(torch.randn(1, 3, 2, 2, generator=_g(4))),
        "sdpa causal gqa": lambda: F.scaled_dot_product_attention(q, kv, kv, is_causal=True, enable_gqa=True),
        "sdpa mask": lambda: F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(24, 24, dtype=torch.bool)),
        "layer_norm": lambda: F.layer_norm(x, (32,)),
        "batch_norm eval": lambda: bn(img),
        "group_norm": lambda: gn(img),
        "softmax dtype": lambda: F.softmax(x, dim=-1, dtype=torch.float64),
        "to bfloat16": lambda: x.to(torch.bfloat16),
        "cat": lambda: torch.cat([x, x], dim=1),
        "factories": lambda: (torch.zeros(3, 4, dtype=torch.int64), torch.arange(10), torch.full((2, 2), 1.5),
                              torch.ones(5, dtype=torch.bfloat16)),
        "reductions": lambda: (x.mean(dim=(1, 2), keepdim=True), x.sum(dtype=torch.float64), x.amax(-1)),
        "add alpha, addmm beta": lambda: (torch.add(x, x, alpha=2), torch.addmm(torch.randn(5), torch.randn(4, 8),
                                                                               torch.randn(8, 5), beta=0.5)),
        "gathers and scatters": lambda: (x.index_select(1, idx), emb(idx), x.gather(2, torch.zeros(2, 16, 3, dtype=torch.long)),
                                         torch.zeros(16, 32).index_add_(0, idx, torch.ones(5, 32)),
                                         torch.zeros(5, 8).scatter_(1, torch.zeros(5, 2, dtype=torch.long), 1.0)),
        "topk argsort": lambda: (torch.topk(x, 3, dim=-1), torch.argsort(x, dim=-1, stable=True)),
        "interpolate pools": lambda: (F.interpolate(img, scale_factor=2, mode="bilinear"), F.max_pool2d(img, 2),
                                      F.adaptive_avg_pool2d(img, 1)),
        "reshape copies": lambda: x.transpose(1, 2).reshape(2, -1),
        "einsum decomposes": lambda: torch.einsum("bij,bkj->bik", x, x),
        "silu mul pow rsqrt": lambda: F.silu(x) * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5),
    }


CASES = _cases()


def _sum(counts):
    flop = sum(c.flop for c in counts)
    nbytes = sum(c.bytes for c in counts)
    return flop, nbytes


def _from_trace(fn, tmp_path):
    with torch.inference_mode(), profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        fn()
    p = tmp_path / "t.json"
    prof.export_chrome_trace(str(p))
    trace = load(p)
    units = classify(trace, window(trace), toy_spec(kind="cpu"))
    counts = [count(u.op.call) for u in units if u.op is not None and u.op.call is not None]
    assert None not in counts, [u.op.name for u in units if u.op is not None and count(u.op.call) is None]
    return _sum(counts)


def _from_recorder(fn):
    ops = run_recorded(Prepared(forward=fn, model=None))
    counts = [count(r.call) for r in ops]
    assert None not in counts, [r.call for r in ops if count(r.call) is None]
    return _sum(counts), ops


@pytest.mark.parametrize("name", list(CASES))
def test_recorder_counts_what_the_trace_counts(name, tmp_path):
    fn = CASES[name]
    (flop, nbytes), ops = _from_recorder(fn)
    assert (flop, nbytes) == _from_trace(fn, tmp_path)
    assert ops, "nothing recorded"


def test_composites_are_recorded_whole_and_others_decompose():
    # GIVEN a linear, an SDPA and an einsum WHEN recorded THEN linear and SDPA are one call
    # each (as at the top of a trace), the einsum (no formula) its bmm
    lin = nn.Linear(8, 4)
    q = torch.randn(1, 2, 4, 8)

    def fn():
        lin(torch.randn(3, 8))
        F.scaled_dot_product_attention(q, q, q)
        torch.einsum("ij,jk->ik", torch.randn(2, 3), torch.randn(3, 4))

    names = [r.call.name for r in run_recorded(Prepared(forward=fn, model=None))]
    assert "aten::linear" in names and "aten::scaled_dot_product_attention" in names
    assert "aten::addmm" not in names and "aten::einsum" not in names and "aten::bmm" in names


def test_strings_the_profiler_drops_are_kept():
    # the trace records gelu's approximate as None (counted as the erf form, 5/element); the
    # recorder keeps "tanh" (9/element)
    x = torch.randn(4, 8)
    ops = run_recorded(Prepared(forward=lambda: F.gelu(x, approximate="tanh"), model=None))
    (gelu,) = [r.call for r in ops if r.call.name == "aten::gelu"]
    assert gelu.args[1] == "tanh" and count(gelu).flop == 9 * 32


def test_index_with_tensor_indices_is_counted():
    # aten::index is uncounted in traces (Tensor?[] not recorded); the recorder sees its indices
    x, idx = torch.randn(10, 4), torch.tensor([1, 2, 2])
    ops = run_recorded(Prepared(forward=lambda: x[idx], model=None))
    (call,) = [r.call for r in ops if r.call.name == "aten::index"]
    c = count(call)
    assert c is not None and c.bytes_written == 3 * 4 * 4


def test_meta_counts_equal_real_counts():
    # GIVEN a small transformer-ish block WHEN recorded on meta and for real THEN equal counts
    lin = nn.Linear(64, 192)
    proj = nn.Linear(64, 64)

    def block(x):
        b, s, _ = x.shape
        q, k, v = lin(x).view(b, s, 3, 4, 16).permute(2, 0, 3, 1, 4).unbind(0)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return proj(y.transpose(1, 2).reshape(b, s, 64)) + x

    real = _from_recorder(lambda: block(torch.randn(2, 10, 64)))[0]
    with torch.device("meta"):
        lin_m, proj_m = nn.Linear(64, 192), nn.Linear(64, 64)
    lin.weight, lin.bias, proj.weight, proj.bias = lin_m.weight, lin_m.bias, proj_m.weight, proj_m.bias
    meta = _from_recorder(lambda: block(torch.randn(2, 10, 64, device="meta")))[0]
    # SDPA's meta output gets the fused kernels' layout, so the reshape is a view there too
    assert meta == real


def test_convert_arg():
    assert convert_arg(torch.zeros(2, 3, dtype=torch.bfloat16)) == TensorMeta((2, 3), "bfloat16")
    assert convert_arg(torch.float32) == 6 and convert_arg(torch.int64) == 4 and convert_arg(torch.bool) == 11
    assert convert_arg([torch.zeros(1), None]) == (TensorMeta((1,), "float32"), None)
    assert convert_arg([2, 3]) == (2, 3)
    assert convert_arg(torch.device("cpu")) is None and convert_arg(torch.contiguous_format) is None
    assert convert_arg("tanh") == "tanh" and convert_arg(1.5) == 1.5 and convert_arg(True) is True


def test_to_copy_is_recorded_as_the_copy_it_does():
    x = torch.randn(4, 8)
    ops = run_recorded(Prepared(forward=lambda: (x.to(torch.float16), x.to(torch.float32)), model=None))
    calls = [r.call for r in ops]
    # the float32 -> float32 .to() returns x itself: nothing recorded for it
    assert calls == [OpCall("aten::copy_", (TensorMeta((4, 8), "float16"), TensorMeta((4, 8), "float32")))]
