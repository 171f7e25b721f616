"""Tally stage of ``floorcalc count``: sum the counts of recorded op calls per module, per op
and per family, without running anything on a device.

capture (``floorcalc.capture.dispatch``: every aten op of one forward, with the module it ran
in) -> :func:`tally` -> :class:`CountReport` -> render

Notes on the method:

1. **Which calls.** The recording holds the outermost op with a formula on each call chain
   (the dispatch recorder lets an op without a formula decompose and records its parts), so
   summing every recorded call counts each piece of work once, as ``floorcalc report`` does.
2. **Uncounted.** A call whose op has no formula, or whose formula cannot read it, is listed
   with how often it occurs; it adds nothing to the totals, which are then a lower bound.
3. **Modules.** Each call belongs to the innermost ``nn.Module`` running it; a module's row is
   inclusive (its own calls and all its submodules'). Parameters are counted once each (tied
   weights once), inclusive.
4. **Families.** Each counted op belongs to the family of the formula module that counts it
   (``matmul``, ``conv``, ``attention``, ``elementwise``, ``reduction``, ``norm``, ``pooling``,
   ``memory``); comparisons with other counters are made per family.

Nothing here imports torch.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from typing import Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from floorcalc.counting import count as count_call
from floorcalc.counting.registry import Uncountable, formula_of
from floorcalc.counting.registry import family_of as registry_family
from floorcalc.records import (FAMILIES, Comparison, Count, CountReport, Family, ModuleInfo, ModuleRow, OpCall, OpTotal,
                               OracleResult, RecordedOp, Recording, TensorMeta, UncountedOp)

__all__ = ["FAMILIES", "FVCORE_FAMILY", "Comparison", "CountReport", "ModuleInfo", "ModuleRow", "OpTotal",
           "OracleResult", "RecordedOp", "Recording", "UncountedOp", "attention_full", "compare", "count_or_reason",
           "describe", "family_of", "gemm_only", "tally"]

# --------------------------------------------------------------------------------------------
# counting one call


def family_of(name: str, c: Optional[Count] = None) -> Union[Family, Literal[""]]:
    """The family of the formula that counts ``name`` (:data:`FAMILIES`), "" without one.

    The registry holds each formula's family (its module's, or the one a user's formula
    names). With its count ``c``: a data-movement op that adds (``index_add``,
    ``scatter_add``, ``embedding_bag``: unit ``vector``) is ``vector``, so ``memory`` stays 0
    FLOPs.
    """
    fam = registry_family(name)
    if fam is None:
        return "" if c is None else "vector"
    if fam == "memory" and c is not None and c.unit == "vector":
        return "vector"
    return fam


def count_or_reason(call: OpCall) -> Tuple[Optional[Count], str]:
    """The call's count, or None and why not (no formula, or what its formula could not read)."""
    c = count_call(call)
    if c is not None:
        return c, ""
    fn = formula_of(call.name)
    if fn is None:
        return None, "no formula"
    try:
        fn(call)
    except Uncountable as why:
        return None, str(why)
    except Exception as err:  # noqa: BLE001 - the same errors count() turns into None
        return None, f"{type(err).__name__}: {err}"
    return None, "formula gave no count"


def describe(call: OpCall) -> str:
    """A short text of a call's arguments: tensors as ``float32[4, 8]``."""
    parts = []
    for a in call.args:
        if isinstance(a, TensorMeta):
            parts.append(f"{a.dtype}{list(a.shape)}")
        elif isinstance(a, tuple) and a and all(isinstance(t, TensorMeta) or t is None for t in a):
            parts.append("[" + ", ".join(f"{t.dtype}{list(t.shape)}" if isinstance(t, TensorMeta) else "None"
                                         for t in a) + "]")
        else:
            parts.append(repr(a))
    return f"{call.name}({', '.join(parts)})"


# Where the fused epilogue of a GEMM or convolution sits: (argument index, value that drops it).
# addmm-family ops drop their bias with beta = 0 (argument 3); linear and the convolutions with
# bias = None.
_EPILOGUE_ARG = {
    "aten::linear": (2, None), "aten::addmm": (3, 0), "aten::addmm_": (3, 0), "aten::baddbmm": (3, 0),
    "aten::baddbmm_": (3, 0), "aten::addbmm": (3, 0), "aten::addmv": (3, 0), "aten::addmv_": (3, 0),
    "aten::_addmm_activation": (3, 0),
}
_CONV_BIAS_ARG = 2


def gemm_only(call: OpCall, c: Count) -> int:
    """The FLOPs of a matmul or convolution call without its fused bias add (and activation):
    what counters that count only multiply-adds report. Other calls: their FLOPs unchanged."""
    fam = family_of(call.name)
    if fam not in ("matmul", "conv"):
        return c.flop
    idx, drop = _EPILOGUE_ARG.get(call.name, (_CONV_BIAS_ARG, None) if fam == "conv" else (None, None))
    if idx is None or idx >= len(call.args):
        return c.flop
    args = list(call.args)
    args[idx] = drop
    if call.name == "aten::_addmm_activation":  # its activation is fused too: count it as mm
        bare = count_call(OpCall("aten::mm", (args[1], args[2])))
    else:
        bare = count_call(OpCall(call.name, tuple(args)))
    return bare.flop if bare is not None else c.flop


_CAUSAL_ARG = {
    "aten::scaled_dot_product_attention": 5, "aten::_scaled_dot_product_attention_math": 5,
    "aten::_scaled_dot_product_flash_attention_for_cpu": 4, "aten::_scaled_dot_product_flash_attention": 4,
    "aten::_scaled_dot_product_efficient_attention": 6, "aten::_scaled_dot_product_cudnn_attention": 6,
}


def attention_full(call: OpCall, c: Count) -> int:
    """An attention call's FLOPs with every (query, key) pair counted (``is_causal`` off): what
    counters that ignore the causal mask report."""
    idx = _CAUSAL_ARG.get(call.name)
    if idx is None or idx >= len(call.args) or not call.args[idx]:
        return c.flop
    args = list(call.args)
    args[idx] = False
    full = count_call(OpCall(call.name, tuple(args)))
    return full.flop if full is not None else c.flop


# --------------------------------------------------------------------------------------------
# the tally


def _depth(path: str) -> int:
    return 0 if not path else path.count(".") + 1


def _prefixes(path: str) -> List[str]:
    """"" and every dotted prefix of ``path``, itself included."""
    out = [""]
    if path:
        parts = path.split(".")
        out += [".".join(parts[: i + 1]) for i in range(len(parts))]
    return out


def tally(rec: Recording, *, depth: int = 2, model_file: str = "", command: str = "") -> CountReport:
    """Sum the recording (see the module notes). ``depth``: module rows down to this many
    dotted components (0: the root alone)."""
    calls: Dict[str, int] = defaultdict(int)
    flop: Dict[str, int] = defaultdict(int)
    nbytes: Dict[str, int] = defaultdict(int)
    unc_calls: Dict[str, int] = defaultdict(int)
    op_tot: Dict[str, List[int]] = {}
    op_family: Dict[str, Family] = {}
    unc: Dict[str, dict] = {}
    fam_tot: Dict[Family, int] = {f: 0 for f in FAMILIES}
    for r in rec.ops:
        c, reason = count_or_reason(r.call)
        prefixes = _prefixes(r.module)
        for p in prefixes:
            calls[p] += 1
        if c is None:
            for p in prefixes:
                unc_calls[p] += 1
            u = unc.setdefault(r.call.name, {"calls": 0, "modules": Counter(), "example": describe(r.call),
                                             "reason": reason})
            u["calls"] += 1
            u["modules"][r.module] += 1
            continue
        for p in prefixes:
            flop[p] += c.flop
            nbytes[p] += c.bytes
        fam = family_of(r.call.name, c) or "vector"  # a counted call always has a family
        op_family.setdefault(r.call.name, fam)
        t = op_tot.setdefault(r.call.name, [0, 0, 0])
        t[0] += 1
        t[1] += c.flop
        t[2] += c.bytes
        fam_tot[fam] += c.flop
    info = {m.path: m for m in rec.modules}
    paths = [m.path for m in rec.modules] or [""]
    seen = set(paths)
    paths += sorted(p for p in calls if p not in seen)  # ops in modules the model does not list
    rows = tuple(
        ModuleRow(path=p, depth=_depth(p), calls=calls.get(p, 0), flop=flop.get(p, 0), bytes=nbytes.get(p, 0),
                  params=info[p].params if p in info else None, uncounted_calls=unc_calls.get(p, 0))
        for p in paths if _depth(p) <= depth
    )
    ops = tuple(sorted((OpTotal(name=n, family=op_family[n], calls=v[0], flop=v[1], bytes=v[2])
                        for n, v in op_tot.items()), key=lambda o: (-o.flop, -o.bytes, o.name)))
    uncounted = tuple(sorted((UncountedOp(name=n, calls=u["calls"],
                                          modules=tuple(m for m, _ in u["modules"].most_common(3)),
                                          example=u["example"], reason=u["reason"])
                              for n, u in unc.items()), key=lambda u: (-u.calls, u.name)))
    root = info.get("")
    return CountReport(
        model_file=model_file, run=rec.run, notice=rec.notice, depth=depth, modules=rows, ops=ops,
        uncounted=uncounted, flop=flop.get("", 0), bytes=nbytes.get("", 0),
        params=root.params if root else None, param_bytes=root.param_bytes if root else None,
        calls=calls.get("", 0), by_family=fam_tot, command=command, dtypes=rec.dtypes,
    )


# --------------------------------------------------------------------------------------------
# comparing with other counters


def _fmt(x: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.4g} {unit}"
    return f"{x:.0f}"


def compare(rec: Recording, oracles: Sequence[OracleResult]) -> Comparison:
    """floorcalc's families from ``rec`` beside the ``oracles``, each difference explained.

    ``rec`` carries, per call, FlopCounterMode's FLOPs for that call (when FlopCounterMode
    ran alongside), so FlopCounterMode's total is split into floorcalc's families exactly.
    """
    fc: Dict[Family, int] = {f: 0 for f in FAMILIES}
    gemm: Dict[Family, int] = {f: 0 for f in FAMILIES}
    att_full = 0
    causal_calls = 0
    fcm_fam: Dict[Family, int] = {f: 0 for f in FAMILIES}
    fcm_ops: Dict[Family, Dict[str, int]] = {f: defaultdict(int) for f in FAMILIES}
    names_by_family: Dict[Family, Counter[str]] = {f: Counter() for f in FAMILIES}
    einsums: Dict[int, EinsumUse] = {}  # the einsum calls of 3+ operands, by serial number
    for r in rec.ops:
        c = count_call(r.call)
        fam = family_of(r.call.name, c) or "vector"
        if r.within is not None and r.within[1].name == "aten::einsum" and c is not None:
            use = einsums.get(r.within[0]) or einsum_use(r.within[1])
            if use is not None:
                einsums[r.within[0]] = replace(use, torch_flop=use.torch_flop + c.flop)
        for op, v in r.oracle_flop:
            fcm_fam[fam] += v
            fcm_ops[fam][op] += v
        if c is None:
            continue
        fc[fam] += c.flop
        gemm[fam] += gemm_only(r.call, c)
        names_by_family[fam][r.call.name] += 1
        if fam == "attention":
            full = attention_full(r.call, c)
            att_full += full
            causal_calls += full != c.flop
    fixed: List[OracleResult] = []
    for o in oracles:
        if o.name == "FlopCounterMode" and o.ran and not o.by_family:
            o = replace(o, by_family=dict(fcm_fam))
        fixed.append(o)
    notes: List[str] = []
    for o in fixed:
        if not o.ran:
            notes.append(f"{o.name}: not run ({o.note})")
            continue
        for fam in FAMILIES:
            mine, theirs = fc[fam], int(o.by_family.get(fam, 0))
            if mine == theirs:
                continue
            notes.append(f"{o.name}, {fam}: {_fmt(theirs)} vs floorcalc {_fmt(mine)}: "
                         + _explain(o, fam, mine, theirs, gemm[fam], att_full, causal_calls,
                                    names_by_family[fam], fcm_ops[fam], tuple(einsums.values())))
    return Comparison(run=rec.run, floorcalc=fc, gemm_only=gemm, attention_full=att_full, oracles=tuple(fixed),
                      explanations=tuple(notes))


#: fvcore's operator names (``FlopCountAnalysis.by_operator()`` keys) by floorcalc family;
#: any other name it counts is a per-element handle (norms, pooling, upsampling): ``vector``.
FVCORE_FAMILY: Dict[str, Family] = {"linear": "matmul", "matmul": "matmul", "addmm": "matmul", "bmm": "matmul", "mm": "matmul",
                 "einsum": "matmul", "baddbmm": "matmul", "conv": "conv", "_convolution": "conv",
                 "scaled_dot_product_attention": "attention"}


def _names(c: Counter, n: int = 4) -> str:
    return ", ".join(f"{k} x{v}" for k, v in c.most_common(n)) + (", ..." if len(c) > n else "")


def _explain(o: OracleResult, fam: str, mine: int, theirs: int, gemm: int, att_full: int, causal_calls: int,
             names: Counter, fcm_ops: Mapping[str, int], einsums: Sequence["EinsumUse"] = ()) -> str:
    """Why ``o`` gives ``theirs`` where floorcalc gives ``mine`` for family ``fam``.
    ``einsums``: the pass's einsum calls of three or more operands (fvcore counts them along
    its own contraction order)."""
    fv = o.name == "fvcore"
    if fam in ("matmul", "conv"):
        if theirs == gemm and mine > gemm:
            return (f"{o.name} counts the multiply-adds only{' (MACs, doubled here)' if fv else ''}; floorcalc adds "
                    f"1 FLOP per output for the bias add (or activation) fused into the op: {_fmt(mine - gemm)}")
        if fam == "matmul" and fv and einsums:
            return _explain_einsum(einsums, theirs - mine)
        if fam == "matmul" and not fv and theirs > gemm and att_full:
            return ("FlopCounterMode's bmm count includes work floorcalc files under another family "
                    f"(difference {_fmt(theirs - mine)}); see the attention line")
        return f"unexplained difference of {_fmt(theirs - mine)} (floorcalc's GEMM-only count is {_fmt(gemm)})"
    if fam == "attention":
        if theirs == 0:
            if fv:
                skipped = [k for k in o.unsupported if "attention" in k]
                return ("fvcore has no handle for scaled_dot_product_attention "
                        f"({', '.join(skipped) or 'it is among its unsupported ops'}): attention counted 0")
            return ("FlopCounterMode: SDPA on CPU = 0 (its registry has no formula for the CPU backend op, "
                    "aten::_scaled_dot_product_flash_attention_for_cpu, which SDPA runs on CPU)")
        if theirs == att_full and causal_calls:
            return (f"{o.name} ignores the causal mask and counts every (query, key) pair; floorcalc counts "
                    f"the unmasked pairs only ({causal_calls} causal calls)")
        return f"unexplained difference of {_fmt(theirs - mine)}"
    if fam == "vector":
        if theirs == 0:
            if fv:
                return f"fvcore: elementwise ops not counted (skipped: {_names(names)})"
            return f"FlopCounterMode counts only matmul, convolution and attention ({_names(names)} not counted)"
        if fv:
            counted = sorted(k for k in o.by_op if FVCORE_FAMILY.get(k, "vector") == "vector")
            skipped = sorted(k for k in o.unsupported if "attention" not in k)
            short = {k.split("::", 1)[-1] for k in skipped} | set(counted)
            ignored = sorted(k for k in names if k.split("::", 1)[-1] not in short)
            text = f"fvcore counts {', '.join(counted)} at its own per-element rates"
            if skipped:
                text += f"; skips {', '.join(skipped)} (its unsupported ops)"
            if ignored:
                text += f"; ignores {', '.join(ignored)}"
            return text
        return f"{o.name} counted {', '.join(sorted(fcm_ops))} here"
    if fam == "memory":
        return "data movement is 0 FLOPs in floorcalc"
    return f"difference of {_fmt(theirs - mine)}"


# --------------------------------------------------------------------------------------------
# einsum of three or more operands: the contraction order decides the FLOPs


@dataclass(frozen=True)
class EinsumUse:
    """One ``aten::einsum`` call of three or more operands in a recorded pass.

    ``equation`` as written (spaces removed), ``shapes`` its operands' shapes; ``torch_flop``
    what floorcalc counted for the calls torch decomposed it into (the order torch ran);
    ``left_to_right_flop`` the FLOPs of contracting the operands left to right (what
    ``torch.einsum`` does without opt_einsum); ``path`` numpy's optimal contraction order
    (``np.einsum_path(..., optimize="optimal")``, pairs of positions in the shrinking operand
    list, each result appended at the end); ``numpy_flop`` numpy's estimate of that path's
    FLOPs and ``fvcore_flop`` fvcore's figure from it: numpy's estimate as printed (4
    significant figures), halved to MACs and floored (fvcore/nn/jit_handles.py,
    ``einsum_flop_jit``), doubled back here as every fvcore figure is.
    """

    equation: str
    shapes: Tuple[Tuple[int, ...], ...]
    path: Tuple[Tuple[int, ...], ...]
    left_to_right_flop: int
    numpy_flop: int
    fvcore_flop: int
    torch_flop: int = 0


def _contraction_flop(terms: Sequence[str], out: str, size: Mapping[str, int], path: Sequence[Sequence[int]]) -> int:
    """The FLOPs of contracting ``terms`` (index strings) to ``out`` along ``path``, by numpy's
    convention (numpy/_core/einsumfunc.py, ``_flop_count``): each step costs the product of the
    sizes of every index it touches, times (terms in the step - 1, at least 1), plus one more
    when the step sums an index away (2 per multiply-add for a pairwise contraction)."""
    ops = list(terms)
    flop = 0
    for step in path:
        picked = [ops[i] for i in step]
        for i in sorted(step, reverse=True):
            del ops[i]
        touched = set("".join(picked))
        rest = set("".join(ops)) | set(out)
        kept = "".join(sorted(touched & rest))
        factor = max(1, len(picked) - 1) + (1 if touched - rest else 0)
        flop += math.prod(size[c] for c in touched) * factor
        ops.append(kept)
    return flop


def einsum_use(call: OpCall) -> Optional[EinsumUse]:
    """An :class:`EinsumUse` for an ``aten::einsum`` call of three or more operands (with an
    explicit or implicit output, no ellipsis), or None for any other call."""
    if len(call.args) < 2 or not isinstance(call.args[0], str) or not isinstance(call.args[1], tuple):
        return None
    equation = call.args[0].replace(" ", "")
    shapes = tuple(t.shape for t in call.args[1] if isinstance(t, TensorMeta))
    lhs, _, out = equation.partition("->")
    terms = lhs.split(",")
    if len(shapes) < 3 or len(terms) != len(shapes) or "." in equation or len(shapes) > 6:
        return None
    if any(len(t) != len(s) for t, s in zip(terms, shapes)):
        return None
    if "->" not in equation:  # implicit output: the indices that appear once, sorted
        seen = Counter("".join(terms))
        out = "".join(sorted(c for c, k in seen.items() if k == 1))
    size: Dict[str, int] = {}
    for t, s in zip(terms, shapes):
        for c, n in zip(t, s):
            size[c] = max(size.get(c, 1), n)
    import numpy as np

    operands = [np.lib.stride_tricks.as_strided(np.zeros(1), shape=s, strides=(0,) * len(s)) for s in shapes]
    steps, _text = np.einsum_path(f"{lhs}->{out}", *operands, optimize="optimal")
    path = tuple(tuple(int(i) for i in step) for step in steps[1:])
    numpy_flop = _contraction_flop(terms, out, size, path)
    printed = float(f"{numpy_flop:.3e}")  # numpy prints its estimate with %.3e; fvcore reads that
    return EinsumUse(equation=f"{lhs}->{out}", shapes=shapes, path=path,
                     left_to_right_flop=_contraction_flop(terms, out, size, [(0, 1)] * (len(terms) - 1)),
                     numpy_flop=numpy_flop, fvcore_flop=2 * math.floor(printed / 2))


def _order(path: Sequence[Sequence[int]], n: int) -> str:
    """A contraction path in words: ``operands 2 and 3 first`` (operands counted from 1)."""
    first = path[0] if path else ()
    if tuple(first) == (0, 1) and all(tuple(s) == (0, 1) for s in path):
        return "left to right"
    return f"operands {' and '.join(str(i + 1) for i in first)} first"


def _explain_einsum(einsums: Sequence[EinsumUse], diff: int) -> str:
    """fvcore's matmul count against floorcalc's where the pass has einsums of 3+ operands."""
    fv = sum(e.fvcore_flop for e in einsums)
    torch_ = sum(e.torch_flop for e in einsums)
    e = einsums[0]
    n = len(e.shapes)
    ran = "left to right" if e.torch_flop == e.left_to_right_flop else "in the order torch chose"
    if all(x.torch_flop == x.numpy_flop for x in einsums):
        ran = "in the same order (the difference is numpy's rounding)"
    text = (f"{len(einsums)} einsum call{'s' if len(einsums) != 1 else ''} of {n}+ operands (e.g. "
            f"'{e.equation}' on {' x '.join(str(list(s)) for s in e.shapes)}): fvcore counts each along numpy's "
            f"optimal contraction order ({_order(e.path, n)}), from numpy's FLOP estimate printed to 4 significant "
            f"figures: {_fmt(fv)}; torch contracted {ran}, and floorcalc counts the calls torch made: "
            f"{_fmt(torch_)}")
    rest = diff - (fv - torch_)
    return text + (f"; the other {_fmt(rest)} unexplained" if rest else "")
