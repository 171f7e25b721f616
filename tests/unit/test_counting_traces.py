"""End to end on real CPU traces: run each case under torch.profiler(record_shapes=True), read
the exported Kineto JSON with op_call_from_kineto, count the outermost op with a formula in
each call chain, and compare the sums with hand-derived values. This is what proves the
formulas read the argument positions torch really records.

All cases run in one profiling session (each inside a ``record_function("case:<name>")``
range), parsed once per module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402

from floorcalc.counting import count, has_formula  # noqa: E402
from floorcalc.records import Count, OpCall  # noqa: E402
from floorcalc.trace.args import op_call_from_kineto  # noqa: E402


# --------------------------------------------------------------------------------------------
# the outermost-with-formula rule over a real trace


@dataclass
class Op:
    name: str
    ts: float
    end: float
    call: Optional[OpCall]
    children: List["Op"] = field(default_factory=list)


@dataclass
class Traced:
    """The counted ops of one case: the outermost op with a formula on each chain."""

    counted: List[Tuple[Op, Count]]
    uncounted: List[str]
    tops: List[Op]

    @property
    def flop(self) -> int:
        return sum(c.flop for _, c in self.counted)

    @property
    def bytes(self) -> int:
        return sum(c.bytes for _, c in self.counted)

    def flop_of(self, unit: str) -> int:
        return sum(c.flop for _, c in self.counted if c.unit == unit)

    def names(self) -> List[str]:
        return [op.name for op, _ in self.counted]

    def find(self, name: str) -> List[Op]:
        out, todo = [], list(self.tops)
        while todo:
            op = todo.pop(0)
            if op.name == name:
                out.append(op)
            todo.extend(op.children)
        return out


def _walk(ops: List[Op], counted: List[Tuple[Op, Count]], uncounted: List[str]) -> bool:
    """Count the outermost ops with a formula; return whether any op below had one."""
    any_formula = False
    for op in ops:
        if has_formula(op.name):
            c = count(op.call) if op.call is not None else None
            assert c is not None, f"{op.name} has a formula but did not count {op.call}"
            counted.append((op, c))
            any_formula = True
            continue
        below: List[Tuple[Op, Count]] = []
        below_unc: List[str] = []
        if _walk(op.children, below, below_unc):
            counted.extend(below)
            uncounted.extend(below_unc)
            any_formula = True
        else:
            uncounted.append(op.name)
    return any_formula


def _nest(events: List[dict]) -> List[Op]:
    events = sorted(events, key=lambda e: (e["ts"], -e["dur"]))
    roots: List[Op] = []
    stack: List[Op] = []
    for e in events:
        op = Op(e["name"], e["ts"], e["ts"] + e["dur"], op_call_from_kineto(e["name"], e.get("args", {})))
        while stack and op.ts >= stack[-1].end:
            stack.pop()
        (stack[-1].children if stack else roots).append(op)
        stack.append(op)
    return roots


# --------------------------------------------------------------------------------------------
# the cases: each returns the function to profile (inputs are built outside the profiler)

CASES: Dict[str, Callable[[], Callable[[], object]]] = {}


def case(name: str):
    def register(make):
        CASES[name] = make
        return make
    return register


@case("K01")
def _k01():
    m, x = nn.ConvTranspose2d(32, 1, 3), torch.randn(1, 32, 1, 1)
    return lambda: m(x)


@case("K02")
def _k02():
    m, x = nn.ConvTranspose2d(3, 1, 2, stride=2), torch.randn(1, 3, 2, 2)
    return lambda: m(x)


K03 = {"K03a": dict(cin=4, cout=6, k=4, s=2, p=1, op=0, g=1),
       "K03b": dict(cin=4, cout=4, k=3, s=2, p=1, op=1, g=4),
       "K03c": dict(cin=6, cout=6, k=2, s=2, p=0, op=0, g=3)}

for _name, _a in K03.items():
    case(_name)(lambda a=_a: (lambda m, x: lambda: m(x))(
        nn.ConvTranspose2d(a["cin"], a["cout"], a["k"], a["s"], a["p"], output_padding=a["op"], groups=a["g"]),
        torch.randn(2, a["cin"], 8, 8)))

#: Transposed convs of every form: (dims, Cin, Cout, kernel, stride, padding, output_padding,
#: groups, dilation, bias, input spatial size)
CONV_T_SWEEP = [
    (1, 2, 4, 3, 1, 0, 0, 1, 1, True, 5),
    (1, 4, 6, 5, 3, 2, 2, 2, 1, False, 7),
    (1, 3, 3, 3, 2, 1, 1, 3, 2, True, 6),
    (2, 3, 5, 3, 2, 1, 1, 1, 1, True, 6),
    (2, 4, 8, (3, 2), (2, 1), (1, 0), (1, 0), 4, (1, 2), True, 5),
    (2, 8, 8, 4, 2, 1, 0, 8, 1, False, 4),
    (3, 2, 4, 3, 2, 1, 1, 2, 2, True, 4),
    (3, 4, 2, 2, 2, 0, 0, 1, 1, True, 3),
]
_CONV_T = {1: nn.ConvTranspose1d, 2: nn.ConvTranspose2d, 3: nn.ConvTranspose3d}
for _i, (_d, _ci, _co, _k, _s, _p, _op, _g, _dl, _b, _n) in enumerate(CONV_T_SWEEP):
    case(f"convT{_i}")(lambda d=_d, ci=_ci, co=_co, k=_k, s=_s, p=_p, op=_op, g=_g, dl=_dl, b=_b, n=_n: (
        lambda m, x: lambda: m(x))(_CONV_T[d](ci, co, k, s, p, op, g, b, dl), torch.randn(2, ci, *([n] * d))))

#: Regular convs: (dims, Cin, Cout, kernel, stride, padding, groups, dilation, bias, size)
CONV_SWEEP = [
    (1, 3, 8, 3, 1, 1, 1, 1, True, 10),
    (2, 3, 8, 3, 2, 1, 1, 1, True, 9),
    (2, 8, 8, 3, 1, 1, 8, 1, False, 8),    # depthwise
    (2, 4, 6, 3, 1, 2, 2, 2, True, 8),     # grouped, dilated
    (2, 4, 6, 3, 1, "same", 1, 1, True, 8),
    (3, 2, 4, 3, 2, 1, 1, 1, True, 6),
]
_CONV = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}
for _i, (_d, _ci, _co, _k, _s, _p, _g, _dl, _b, _n) in enumerate(CONV_SWEEP):
    case(f"conv{_i}")(lambda d=_d, ci=_ci, co=_co, k=_k, s=_s, p=_p, g=_g, dl=_dl, b=_b, n=_n: (
        lambda m, x: lambda: m(x))(_CONV[d](ci, co, k, s, p, dl, g, b), torch.randn(2, ci, *([n] * d))))

#: Grouped GEMMs (K15 and the other three forms of torch._grouped_mm), bfloat16 on the CPU:
#: (a shape, b shape as stored (b is transposed for the 2-D b forms), offs, FLOPs, bytes)
GROUPED = {
    "K15": ((12, 16), (3, 16, 8), (4, 9, 12), 3_072, 384 + 768 + 12 + 192),
    "grouped3x2": ((3, 5, 16), (24, 16), (8, 16, 24), 2 * 5 * 24 * 16, (240 + 384) * 2 + 12 + 5 * 24 * 2),
    "grouped2x2": ((5, 24), (8, 24), (8, 16, 24), 2 * 5 * 8 * 24, (120 + 192) * 2 + 12 + 3 * 5 * 8 * 2),
    "grouped3x3": ((3, 5, 16), (3, 16, 8), None, 2 * 3 * 5 * 8 * 16, (240 + 384 + 120) * 2),
}
for _name, (_a, _b, _offs, _f, _by) in GROUPED.items():
    case(_name)(lambda a=_a, b=_b, offs=_offs: (lambda x, w, o: lambda: torch._grouped_mm(x, w, offs=o))(
        torch.randn(*a, dtype=torch.bfloat16),
        torch.randn(*b, dtype=torch.bfloat16) if len(b) == 3 else torch.randn(*b, dtype=torch.bfloat16).t(),
        torch.tensor(offs, dtype=torch.int32) if offs else None))


Q4 = None  # built lazily (inputs are made outside the profiled region)


def _sdpa_case(name: str, backend: Optional[SDPBackend], sq=64, hk=12, mask=False, causal=False, gqa=False):
    def make():
        q = torch.randn(1, 12, sq, 64)
        k = torch.randn(1, hk, 64, 64)
        m = torch.ones(sq, 64, dtype=torch.bool).tril() if mask else None

        def run():
            if backend is None:
                return F.scaled_dot_product_attention(q, k, k, attn_mask=m, is_causal=causal, enable_gqa=gqa)
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, k, attn_mask=m, is_causal=causal, enable_gqa=gqa)
        return run
    CASES[name] = make


for _be_name, _be in (("default", None), ("math", SDPBackend.MATH), ("flash", SDPBackend.FLASH_ATTENTION)):
    _sdpa_case(f"K04-{_be_name}", _be)
    _sdpa_case(f"causal-{_be_name}", _be, causal=True)
    _sdpa_case(f"causal48-{_be_name}", _be, sq=48, causal=True)
    _sdpa_case(f"mask-{_be_name}", _be, mask=True)
    _sdpa_case(f"gqa-{_be_name}", _be, hk=4, gqa=True)


@case("K05")
def _k05():
    a, b = torch.randn(2, 3), torch.randn(2, 3)
    return lambda: (a + b, a - b)


@case("K06")
def _k06():
    m, x = nn.Linear(8, 16), torch.randn(4, 8)
    return lambda: m(x)


@case("K07a")
def _k07a():
    a, b = torch.randn(8), torch.randn(8)
    return lambda: torch.matmul(a, b)


@case("K07b")
def _k07b():
    a, b = torch.randn(4, 8), torch.randn(8)
    return lambda: torch.matmul(a, b)


@case("K07c")
def _k07c():
    a, b = torch.randn(2, 1, 4, 8), torch.randn(3, 8, 5)
    return lambda: torch.matmul(a, b)


@case("K07d")
def _k07d():
    a, b = torch.randn(8), torch.randn(2, 8, 5)
    return lambda: torch.matmul(a, b)


@case("K08")
def _k08():
    bias, a, b = torch.randn(5), torch.randn(4, 8), torch.randn(8, 5)
    return lambda: torch.addmm(bias, a, b)


@case("K09-size")
def _k09a():
    x = torch.randn(8, 3, 32, 32)
    return lambda: F.interpolate(x, size=(64, 64))


@case("K09-int")
def _k09b():
    x = torch.randn(8, 3, 32, 32)
    return lambda: F.interpolate(x, size=64)


@case("K09-scale")
def _k09c():
    x = torch.randn(8, 3, 32, 32)
    return lambda: F.interpolate(x, scale_factor=2)


@case("K09-5d")
def _k09d():
    x = torch.randn(2, 3, 8, 8, 8)
    return lambda: F.interpolate(x, size=16)


@case("K10")
def _k10():
    mlp = nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                        nn.Linear(512, 10))
    x = torch.randn(1, 1, 28, 28)
    return lambda: mlp(x)


class SelfAttention(nn.Module):
    """K11: q, k, v, out projections Linear(512, 512) without bias, 8 heads of 64."""

    def __init__(self) -> None:
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(512, 512, bias=False) for _ in range(4))

    def forward(self, x):
        b, s, _ = x.shape
        split = lambda t: t.view(b, s, 8, 64).transpose(1, 2)  # noqa: E731
        y = F.scaled_dot_product_attention(split(self.q(x)), split(self.k(x)), split(self.v(x)))
        return self.o(y.transpose(1, 2).reshape(b, s, 512))


for _s in (1024, 2048):
    case(f"K11-{_s}")(lambda s=_s: (lambda m, x: lambda: m(x))(SelfAttention(), torch.randn(1, s, 512)))


def _frozen(module: nn.Module) -> nn.Module:
    module.eval()
    for p in module.parameters():
        p.requires_grad_(False)
    return module


@case("K12")
def _k12():
    layer = _frozen(nn.TransformerEncoderLayer(d_model=512, nhead=4, dim_feedforward=512, batch_first=True))
    x = torch.randn(1, 64, 512)
    return lambda: layer(x)


for _h in (4, 8):
    case(f"K12-mha{_h}")(lambda h=_h: (lambda m, x: lambda: m(x, x, x))(
        _frozen(nn.MultiheadAttention(512, h, batch_first=True)), torch.randn(1, 64, 512)))


@case("cnn")
def _cnn():
    net = _frozen(nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                nn.Conv2d(8, 16, 3, stride=2), nn.GroupNorm(4, 16), nn.SiLU(),
                                nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(16, 10)))
    x = torch.randn(2, 3, 16, 16)
    return lambda: net(x)


@case("misc")
def _misc():
    emb = nn.Embedding(100, 32)
    ln = nn.LayerNorm(32)
    rms = nn.RMSNorm(32)
    idx = torch.randint(0, 100, (2, 7))
    x = torch.randn(2, 7, 32)
    target = torch.randint(0, 96, (14,))

    def run():
        h = ln(emb(idx)) + rms(x)
        h = F.gelu(h) * torch.sigmoid(h)
        h = torch.cat([h, h.softmax(-1), F.log_softmax(h, 1)], dim=-1)
        s = h.sum(-1).mean() + h.amax(-1).sum() + h.var(1).sum()
        z = torch.zeros(3) + torch.arange(3) + torch.full((3,), 2.0) + torch.ones(3)
        c = h.clone().contiguous().transpose(0, 1).contiguous()
        loss = F.cross_entropy(h.reshape(14, 96), target) + F.mse_loss(x, x.flip(0)) + x.aminmax()[0]
        return s, z, c, loss, F.interpolate(x.unsqueeze(1), scale_factor=2, mode="bilinear"), h.topk(3)
    return run


# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def traced(tmp_path_factory) -> Dict[str, Traced]:
    """Run every case once under the profiler; the counted ops of each, by case name."""
    torch.manual_seed(0)
    runs = {name: make() for name, make in CASES.items()}
    with torch.no_grad():
        for fn in runs.values():  # warm up (first-call allocations, backend selection)
            fn()
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            for name, fn in runs.items():
                with record_function(f"case:{name}"):
                    fn()
    path = tmp_path_factory.mktemp("trace") / "cases.json"
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    ranges = [e for e in events if e.get("ph") == "X" and str(e.get("name", "")).startswith("case:")]
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    out: Dict[str, Traced] = {}
    for r in ranges:
        inside = [e for e in ops if e["tid"] == r["tid"] and r["ts"] <= e["ts"] and e["ts"] + e["dur"] <= r["ts"] + r["dur"]]
        tops = _nest(inside)
        counted: List[Tuple[Op, Count]] = []
        uncounted: List[str] = []
        _walk(tops, counted, uncounted)
        out[r["name"][len("case:"):]] = Traced(counted, uncounted, tops)
    assert set(out) == set(CASES)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_op_of_every_case_is_counted(traced, name):
    # every op of the traced cases has a formula (itself or the ops beneath it)
    assert traced[name].uncounted == []


def test_k01(traced):
    t = traced["K01"]
    assert (t.flop, t.bytes) == (585, 1320)
    assert t.names() == ["aten::conv_transpose2d"]


def test_k02(traced):
    assert traced["K02"].flop == 112


@pytest.mark.parametrize("name, flop", [("K03a", 101_376), ("K03b", 11_264), ("K03c", 15_360)])
def test_k03(traced, name, flop):
    assert traced[name].flop == flop


def _module_and_output(make):
    fn = make()
    cell = {"out": None}
    with torch.no_grad():
        cell["out"] = fn()
    return cell["out"]


@pytest.mark.parametrize("i", range(len(CONV_T_SWEEP)))
def test_transposed_conv_sweep(traced, i):
    d, ci, co, k, s, p, op, g, dl, b, n = CONV_T_SWEEP[i]
    out = _module_and_output(CASES[f"convT{i}"])
    ks = k if isinstance(k, tuple) else (k,) * d
    macs = 2 * ci * n ** d * (co // g) * torch.tensor(ks).prod().item()
    t = traced[f"convT{i}"]
    assert t.flop == 2 * macs + (out.numel() if b else 0)
    # the output size derived from stride/padding/output_padding/dilation is torch's
    (_, c), = t.counted
    assert c.bytes_written == out.numel() * 4


@pytest.mark.parametrize("i", range(len(CONV_SWEEP)))
def test_regular_conv_sweep(traced, i):
    d, ci, co, k, s, p, g, dl, b, n = CONV_SWEEP[i]
    out = _module_and_output(CASES[f"conv{i}"])
    t = traced[f"conv{i}"]
    assert t.flop == 2 * out.numel() * (ci // g) * k ** d + (out.numel() if b else 0)
    (_, c), = t.counted
    assert c.bytes_written == out.numel() * 4


K04_FLOP, K04_BYTES = 12_582_912, 786_432


@pytest.mark.parametrize("backend", ["default", "math", "flash"])
def test_k04_same_count_on_every_cpu_backend(traced, backend):
    t = traced[f"K04-{backend}"]
    assert (t.flop, t.bytes) == (K04_FLOP, K04_BYTES)
    assert t.names() == ["aten::scaled_dot_product_attention"]


@pytest.mark.parametrize("kind, flop", [
    ("causal", 2 * 12 * (64 * 65 // 2) * 128),
    ("causal48", 2 * 12 * (48 * 49 // 2) * 128),
    ("mask", K04_FLOP),
    ("gqa", K04_FLOP),
])
@pytest.mark.parametrize("backend", ["default", "math", "flash"])
def test_sdpa_variants_on_every_cpu_backend(traced, kind, flop, backend):
    t = traced[f"{kind}-{backend}"]
    assert t.flop == flop
    # the backend op one level down, counted on its own, agrees
    sdpa, = t.find("aten::scaled_dot_product_attention")
    backend_op, = [op for op in sdpa.children if has_formula(op.name)
                   and op.name.startswith("aten::_scaled_dot_product")]
    assert count(backend_op.call).flop == flop
    expected_backend = {"math": "aten::_scaled_dot_product_attention_math"}.get(
        backend, "aten::_scaled_dot_product_flash_attention_for_cpu")
    if kind == "gqa" and backend == "default":
        expected_backend = backend_op.name  # the CPU picks its own kernel for GQA
    assert backend_op.name == expected_backend


def test_k05(traced):
    t = traced["K05"]
    assert [c.flop for _, c in t.counted] == [6, 6]
    assert [c.bytes for _, c in t.counted] == [72, 72]


def test_k06(traced):
    assert traced["K06"].flop == 1088


@pytest.mark.parametrize("name, flop", [("K07a", 16), ("K07b", 64), ("K07c", 1920), ("K07d", 160)])
def test_k07(traced, name, flop):
    t = traced[name]
    assert t.flop == flop and t.names() == ["aten::matmul"]


def test_k08(traced):
    assert traced["K08"].flop == 340


@pytest.mark.parametrize("name, out_elems, read_bytes", [
    ("K09-size", 98_304, 98_304), ("K09-int", 98_304, 98_304), ("K09-scale", 98_304, 98_304),
    ("K09-5d", 24_576, 2 * 3 * 8 ** 3 * 4),
])
def test_k09(traced, name, out_elems, read_bytes):
    t = traced[name]
    (op, c), = t.counted
    assert op.name.startswith("aten::upsample_nearest")
    assert c.bytes_written == out_elems * 4 and c.bytes_read == read_bytes
    assert (c.flop, c.unit) == (0, "none")  # a gather: memory-bound on any device
    if name != "K09-5d":
        assert c.bytes == 491_520


def test_k10(traced):
    t = traced["K10"]
    assert t.flop_of("tensor") == 1_337_344 + 1_034
    assert t.flop_of("vector") == 1_024
    weights = (784 * 512 + 512 + 512 * 512 + 512 + 512 * 10 + 10) * 4
    assert weights == 2_678_824
    activations = (784 + 512) * 4 + 2 * 2048 + (512 + 512) * 4 + 2 * 2048 + (512 + 10) * 4
    assert t.bytes == weights + activations


def test_k11(traced):
    small, large = traced["K11-1024"], traced["K11-2048"]
    assert small.flop == 4_294_967_296
    assert large.flop / small.flop == 3.0
    assert "aten::scaled_dot_product_attention" in small.names()


def test_k12_fast_path_matmuls(traced):
    t = traced["K12"]
    # the fused fast path really ran
    assert t.find("aten::_transformer_encoder_layer_fwd") and t.find("aten::_native_multi_head_attention")
    # matrix-unit work: the matmuls (209,715,200 FLOPs) plus the bias adds fused into the three
    # addmm-family GEMMs and the ReLU fused into the first feed-forward one (64*512 each)
    assert t.flop_of("tensor") == 209_715_200 + 4 * 64 * 512
    gemms = {op.name for op, c in t.counted if c.unit == "tensor"}
    assert gemms == {"aten::mm", "aten::bmm", "aten::addmm", "aten::_addmm_activation"}
    # the multiply-adds alone, recomputed here from each GEMM's recorded operand shapes
    macs = 0
    for op, c in t.counted:
        if c.unit != "tensor":
            continue
        a, b = (op.call.args[0], op.call.args[1]) if op.name in ("aten::mm", "aten::bmm") else op.call.args[1:3]
        macs += (a.shape[0] if len(a.shape) == 3 else 1) * a.shape[-2] * a.shape[-1] * b.shape[-1]
    assert 2 * macs == 209_715_200  # 104,857,600 MACs


def test_k12_heads_do_not_change_the_matmul_count(traced):
    assert traced["K12-mha4"].flop_of("tensor") == traced["K12-mha8"].flop_of("tensor") > 0


def test_misc_losses_reach_their_kernels(traced):
    names = traced["misc"].names()
    assert {"aten::log_softmax", "aten::nll_loss_forward", "aten::mse_loss", "aten::aminmax"} <= set(names)
    nll, = [c for op, c in traced["misc"].counted if op.name == "aten::nll_loss_forward"]
    assert nll.flop == 14 and nll.bytes == 14 * 8 + 14 * 4 + 4


def test_cnn_and_misc_have_no_zero_counted_compute(traced):
    # a small CNN in eval: every conv/norm/activation/pool is counted with its own formula
    kinds = {c.formula for _, c in traced["cnn"].counted}
    assert {"conv2d", "batch_norm", "group_norm", "pool", "gemm", "elementwise", "view"} <= kinds
    assert traced["cnn"].flop > 0 and traced["misc"].flop > 0


@pytest.mark.parametrize("name", sorted(GROUPED))
def test_k15_grouped_gemms_count_once_not_per_group(traced, name):
    # the CPU kernel of torch._grouped_mm shows one aten::mm per group beneath it: the grouped op
    # is what is counted, once, every group included, and its weights once
    t = traced[name]
    assert t.names() == ["aten::_grouped_mm"]
    assert (t.flop, t.bytes) == GROUPED[name][3:]
