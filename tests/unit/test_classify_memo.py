"""classify's memos (floorcalc.classify.units._Floors): a unit of several events with at most one
main event, and a collective, are floored once per distinct key; every unit is the same as when
each is floored on its own (the memos off), on random hand-built traces. A counted collective
is not counted again by the fallback (_needs_fallback): the units are the same as when it is."""

from __future__ import annotations

import random

import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.classify import units as U
from floorcalc.trace import parse

_GEMM = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_execute_split_k_kernel__5x_cublas"
_REDUCE = "void cublasLt::splitKreduce_kernel<32, 16, int, float>(...)"

#: the kernels one op launches: a GEMM and its split-K reduction (one main), a memset and a GEMM
#: (one main), two main kernels (split by their times: never memoised), a lone kernel
_SHAPES = [((_GEMM, "kernel"), (_REDUCE, "kernel")), (("Memset (Device)", "memset"), (_GEMM, "kernel")),
           (("k1", "kernel"), ("k2", "kernel")), (("k1", "kernel"),), (("Memcpy DtoD", "memcpy"), ("k2", "kernel"))]


def _trace(rng: random.Random, n: int = 60):
    b = KinetoBuilder()
    b.step(0, 0.0, 40.0 * n + 50.0)
    t, g = 1.0, 100.0
    for i in range(n):
        shape = rng.choice([[64, 64], [128, 64], [1000, 1000]])
        ext = b.op(rng.choice(["aten::mm", "aten::relu"]), t, 10.0,
                   tensor_args(shape, shape[::-1]) if rng.random() < 0.5 else tensor_args(shape))
        for name, kind in rng.choice(_SHAPES):
            dur = rng.choice([1.0, 2.5, 40.0, rng.uniform(1.0, 500.0)])
            b.launch(t + 1.0, g, dur, name, ext=ext, kind=kind, nbytes=rng.choice([4, 4096]) if kind != "kernel" else None)
            g += dur + 1.0
        if rng.random() < 0.2:
            b.collective(t + 12.0, g, rng.choice([10.0, 30.0]), nelems=rng.choice([1 << 10, 1 << 20]))
            g += 40.0
        t += 40.0
    return parse(b.to_dict())


class _Never(dict):
    """A memo that keeps nothing: every unit floored on its own."""

    def get(self, key, default=None):
        return default

    def __setitem__(self, key, value):
        pass


def _every_uncounted(u, spec):
    """The fallback's old choice: every uncounted unit with an op and no generated kernel."""
    return u.count is None and u.op is not None and not u.kernel


def _classify(trace, *, memo: bool, spec=None):
    from floorcalc.trace.window import window

    win = window(trace)
    spec = spec or toy_spec(nvlink=1e11, collective_latency_us=5.0)
    if memo:
        return U.classify(trace, win, spec, reference=toy_spec(bw=2e9, nvlink=2e11))
    real = U._Floors.__init__

    def init(self, *a, **k):
        real(self, *a, **k)
        self.lone, self.collective = _Never(), _Never()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(U._Floors, "__init__", init)
        mp.setattr(U, "_needs_fallback", _every_uncounted)
        return U.classify(trace, win, spec, reference=toy_spec(bw=2e9, nvlink=2e11))


@pytest.mark.parametrize("seed", range(12))
def test_memoised_floors_are_the_floors_of_each_unit(seed):
    trace = _trace(random.Random(seed))
    fast, slow = _classify(trace, memo=True), _classify(trace, memo=False)
    assert fast == slow
    assert any(u.collective is not None and u.floor is not None for u in fast)


def test_the_memo_is_taken_for_one_main_event_and_not_for_two(monkeypatch):
    b = KinetoBuilder()
    b.step(0, 0.0, 200.0)
    for i in range(4):   # four GEMMs split in two, and four ops of two main kernels, of the same shapes
        ext = b.op("aten::mm", 1.0 + 30 * i, 10.0, tensor_args([64, 64], [64, 64]))
        b.launch(2.0 + 30 * i, 1000.0 + 100 * i, 10.0 + i, _GEMM, ext=ext)
        b.launch(3.0 + 30 * i, 1020.0 + 100 * i, 5.0 + i, _REDUCE, ext=ext)
        ext = b.op("aten::mm", 15.0 + 30 * i, 10.0, tensor_args([64, 64], [64, 64]))
        b.launch(16.0 + 30 * i, 1040.0 + 100 * i, 10.0 + i, "k1", ext=ext)
        b.launch(17.0 + 30 * i, 1060.0 + 100 * i, 20.0 - i, "k2", ext=ext)
    trace = parse(b.to_dict())
    calls = []
    real = U._floored

    def floored(u, *a, **k):
        calls.append(tuple(ev.name for ev in u.events))
        return real(u, *a, **k)

    monkeypatch.setattr(U, "_floored", floored)
    units = _classify(trace, memo=True)
    assert len(units) == 8
    assert calls.count((_GEMM, _REDUCE)) == 1    # floored once, then from the memo
    assert calls.count(("k1", "k2")) == 4        # split by their times: each floored
    shares = {tuple(round(s, 6) for s in u.event_shares) for u in units if u.events[0].name == "k1"}
    assert len(shares) == 4


@pytest.mark.parametrize("seed", range(4))
def test_counted_collectives_skip_the_fallback_and_change_nothing(seed, monkeypatch):
    from floorcalc.classify import fallback
    from floorcalc.device.spec import no_spec

    trace = _trace(random.Random(100 + seed))
    for spec in (None, toy_spec()):   # toy_spec(): no link figure, so the collectives are not floored
        assert _classify(trace, memo=True, spec=spec) == _classify(trace, memo=False, spec=spec)
    asked = []
    real = fallback.last_resort

    def last_resort(trace, kids, following, op, **k):
        asked.append(op.name)
        return real(trace, kids, following, op, **k)

    monkeypatch.setattr(fallback, "last_resort", last_resort)
    _classify(trace, memo=True)
    assert "c10d::allreduce_" not in asked          # the fast path: not asked about a counted collective
    asked.clear()
    units = _classify(trace, memo=True, spec=no_spec("Toy GPU", "test"))
    assert "c10d::allreduce_" in asked             # against no spec its units keep what the fallback counts
    assert any(u.op is not None and u.op.name == "c10d::allreduce_" for u in units)
