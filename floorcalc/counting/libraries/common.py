"""Building blocks shared by the library formulas: fused norms, gated activations,
quantisation, rotary embedding, KV-cache writes, fused MoE experts.

FLOPs per element, following docs/counting.md:

============================  ==============================================================
RMS norm                      3 (square, add, multiply) + 1 with a weight (+ 1 more for
                              Gemma's ``1 + weight``); a fused residual add + 1
static quantisation           1 (the scale); a saturating cast is not arithmetic
dynamic quantisation          2 (the absolute maximum, the scale) per element; the scales
                              are written
``silu_and_mul``              3 per output (silu 2, multiply 1); ``gelu_and_mul`` 6 (gelu 5);
                              ``gelu_tanh_and_mul`` 10 (tanh gelu 9); ``fatrelu_and_mul`` 2;
                              ``swigluoai_and_mul`` 7 (clamps 3, sigmoid of a scaled gate 2,
                              +1, multiply); ``gelu_new``/``gelu_fast`` 9, ``gelu_quick`` 3
rotary embedding              3 per rotated element (a pair takes 4 multiplies and 2 adds)
============================  ==============================================================

Unit ``vector`` for all of these; fused MoE experts are ``tensor``.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from floorcalc.counting.registry import Uncountable
from floorcalc.counting.shapes import compute_dtype, make_count, numel, out_tensor
from floorcalc.records import Count, TensorMeta

VECTOR = "vector"


def rms_norm(*, x: TensorMeta, weight: Optional[TensorMeta], out: Optional[TensorMeta] = None,
             residual: Optional[TensorMeta] = None, residual_out: Optional[TensorMeta] = None,
             gemma: bool = False, quant: int = 0,
             scale_read: Optional[TensorMeta] = None, scales_written: Optional[TensorMeta] = None,
             name: str = "rms_norm") -> Count:
    """x: [*, H] (with residual: [*, H], added first; the sum is written to ``residual_out``,
    by default back into ``residual``) -> out [*, H] (the quantised dtype of ``out`` when
    given, else x's). ``quant``: FLOPs per element of a fused quantisation (1 static, 2
    dynamic)."""
    if weight is not None and weight.shape and x.shape and weight.shape[-1] != x.shape[-1]:
        raise Uncountable(f"weight {weight.shape} does not match input {x.shape}")
    per = 3 + (weight is not None) + (weight is not None and gemma) + (residual is not None) + quant
    result = out if out is not None else out_tensor(x.shape, x.dtype)
    if result.numel != x.numel:
        raise Uncountable(f"output {result.shape} does not match input {x.shape}")
    writes = [out_tensor(x.shape, result.dtype)]
    if residual is not None:
        writes.append(residual_out if residual_out is not None else residual)
    return make_count(flop=per * x.numel, reads=(x, residual, weight, scale_read),
                      writes=tuple(writes) + (scales_written,), dtype=x.dtype, unit=VECTOR, formula=name)


#: FLOPs per output element of the gated activations ``act(x[..., :d]) * x[..., d:]``.
GATED = {"silu": 3, "gelu": 6, "gelu_tanh": 10, "fatrelu": 2, "swigluoai": 7, "mul_silu": 3, "silu_clamp": 7}


def gated_activation(*, out: TensorMeta, x: TensorMeta, kind: str, quant: int = 0,
                     scale_read: Optional[TensorMeta] = None, name: str) -> Count:
    """x: [*, 2d] -> out: [*, d]; ``GATED[kind]`` (+ ``quant``) FLOPs per output element."""
    if not x.shape or x.shape[-1] % 2 or out.numel * 2 != x.numel:
        raise Uncountable(f"gated activation of {x.shape} into {out.shape}")
    return make_count(flop=(GATED[kind] + quant) * out.numel, reads=(x, scale_read), writes=(out,),
                      dtype=x.dtype, unit=VECTOR, formula=name)


def unary_activation(*, out: TensorMeta, x: TensorMeta, per_element: int, name: str) -> Count:
    """x: [*] -> out: [*]; ``per_element`` FLOPs each."""
    if out.numel != x.numel:
        raise Uncountable(f"activation of {x.shape} into {out.shape}")
    return make_count(flop=per_element * x.numel, reads=(x,), writes=(out,), dtype=x.dtype, unit=VECTOR,
                      formula=name)


def quantize(*, x: TensorMeta, out: TensorMeta, per_element: int, reads: Sequence[Optional[TensorMeta]] = (),
             writes: Sequence[Optional[TensorMeta]] = (), name: str = "quantize") -> Count:
    """x: [*] -> out: [*] in a narrow dtype; scales read (static) or written (dynamic)."""
    if out.numel != x.numel and not (out.itemsize == 1 and out.numel * 2 == x.numel):
        raise Uncountable(f"quantising {x.shape} into {out.shape}")
    return make_count(flop=per_element * x.numel, reads=(x,) + tuple(reads), writes=(out,) + tuple(writes),
                      dtype=x.dtype, unit=VECTOR, formula=name)


def rotary(*, positions: TensorMeta, q: TensorMeta, k: Optional[TensorMeta], head_size: int,
           cache: TensorMeta, q_out: Optional[TensorMeta] = None, k_out: Optional[TensorMeta] = None,
           name: str = "rotary") -> Count:
    """positions: [T] (or [B, S]), q: [T, Hq*D] or [T, Hq, D], k: [T, Hk*D] or None,
    cos_sin_cache: [max_position, rot_dim] -> q and k rotated in place (or into q_out, k_out).

    The first ``rot_dim`` of each head's ``head_size`` elements rotate: 3 FLOPs each. Bytes:
    positions, the T rows of the cache a step reads (at most all of it), and the rotated
    part of q and k read and written.
    """
    tokens = positions.numel
    rot = cache.shape[-1] if cache.shape else 0
    if tokens == 0 or head_size <= 0 or rot <= 0 or rot > head_size:
        raise Uncountable(f"rotary of {q.shape} with head_size {head_size}, cache {cache.shape}")
    heads = []
    for t in (q, k):
        if t is None:
            continue
        if t.numel % (tokens * head_size):
            raise Uncountable(f"{t.shape} is not {tokens} tokens of heads of {head_size}")
        heads.append(t.numel // (tokens * head_size))
    rotated = tokens * rot * sum(heads)
    rows = min(tokens, cache.shape[0]) if len(cache.shape) == 2 else 1
    part = [out_tensor((tokens * rot * h,), t.dtype) for h, t in zip(heads, [t for t in (q, k) if t is not None])]
    cache_rows = out_tensor((rows, rot), cache.dtype)
    writes = part if q_out is None else [out_tensor((tokens * rot * h,), t.dtype)
                                         for h, t in zip(heads, [t for t in (q_out, k_out) if t is not None])]
    return make_count(flop=3 * rotated, reads=[positions, cache_rows] + part, writes=writes,
                      dtype=compute_dtype(q), unit=VECTOR, formula=name)


def cache_write(*, key: TensorMeta, value: Optional[TensorMeta], cache: TensorMeta,
                slots: Optional[TensorMeta], reads: Sequence[Optional[TensorMeta]] = (),
                name: str = "kv_cache_write") -> Count:
    """key: [T, Hk, D] (value likewise, or None for a latent cache) written into the slots of
    ``cache``: T rows each, in the cache's dtype. A narrower cache dtype (fp8) is a scaled
    conversion: 1 FLOP per element; otherwise a copy (0 FLOPs). Every slot is taken to be
    written (padding slots, -1, are skipped by the kernel but not known here)."""
    elems = key.numel + (value.numel if value is not None else 0)
    narrow = cache.itemsize < key.itemsize
    return make_count(flop=elems if narrow else 0, reads=(key, value, slots) + tuple(reads),
                      writes=(out_tensor((elems,), cache.dtype),), dtype=key.dtype,
                      unit=VECTOR if narrow else "none", formula=name,
                      notes=("scaled into a narrower cache dtype" if narrow else "",))


def expected_experts(experts: int, tokens: int, top_k: int) -> float:
    """Experts that receive at least one of ``tokens`` tokens when each picks ``top_k`` of
    ``experts`` uniformly at random: ``E * (1 - (1 - k/E)^T)``."""
    if experts <= 0:
        return 0.0
    k = min(top_k, experts)
    return experts * (1.0 - (1.0 - k / experts) ** tokens)


def fused_experts(*, x: TensorMeta, w1: TensorMeta, w2: TensorMeta, topk_weights: TensorMeta,
                  topk_ids: TensorMeta, out: Optional[TensorMeta] = None,
                  extra: Sequence[Optional[TensorMeta]] = (), experts_total: Optional[int] = None,
                  name: str = "fused_moe") -> Count:
    """A MoE layer's experts in one op: x: [T, H], w1: [E, N1, H'] (N1 = 2I for a gated
    activation, I otherwise), w2: [E, H, I'], topk_weights and topk_ids: [T, k] -> [T, H].
    Weights packed two 4-bit values per byte (int4, mxfp4) have H' = H/2 and I' = I/2.

    FLOPs: every (token, expert) assignment runs both GEMMs, ``2*T*k*H*(N1 + I)``, whatever the
    routing; + the gated activation (3 per intermediate element) and the weighted sum of the
    k outputs (2 per output element per assignment). Bytes: x, the routing, the output, and
    the weights of the experts that receive tokens: with uniform top-k routing assumed,
    ``E * (1 - (1 - k/E)^T)`` of the E experts (all of them once T*k >> E). With expert
    parallelism (``experts_total`` > E, the global count), a uniform share E/E_total of the
    assignments is local.
    """
    if len(x.shape) != 2 or len(w1.shape) != 3 or len(w2.shape) != 3:
        raise Uncountable(f"fused experts of x {x.shape}, w1 {w1.shape}, w2 {w2.shape}")
    t, h = x.shape
    e, n1, h1 = w1.shape
    k = topk_ids.shape[-1] if topk_ids.shape else 1
    pack = 2 if h1 * 2 == h and w1.itemsize == 1 else 1
    if h1 * pack != h or w2.shape[0] != e or w2.shape[1] != h:
        raise Uncountable(f"expert weights w1 {w1.shape}, w2 {w2.shape} do not fit x {x.shape}")
    inter = w2.shape[2] * pack
    gated = n1 == 2 * inter
    assignments: float = t * k
    notes = [f"uniform top-{k} routing assumed for the weights read"]
    if experts_total and experts_total > e:
        assignments = assignments * e / experts_total
        notes.append(f"expert parallel: {e} of {experts_total} experts local, a uniform share of the tokens")
    macs = assignments * h * (n1 + inter)
    flop = 2 * macs + assignments * ((3 if gated else 1) * inter + 2 * h)
    total_e = experts_total if experts_total and experts_total > e else e
    p = min(k, total_e) / total_e
    touched = e * (1.0 - (1.0 - p) ** t)
    frac = touched / e if e else 0.0
    weights = int(round(frac * (w1.nbytes + w2.nbytes)))
    scales = [s for s in extra if s is not None]
    scale_bytes = int(round(frac * sum(s.nbytes for s in scales if s.shape and s.shape[0] == e)))
    other = [s for s in scales if not (s.shape and s.shape[0] == e)]
    notes.append(f"{touched:.1f} of {e} experts' weights read")
    result = out if out is not None else out_tensor((t, h), x.dtype)
    return make_count(flop=int(round(flop)), reads=(x, topk_weights, topk_ids) + tuple(other),
                      writes=(result,), dtype=compute_dtype(x), unit="tensor", formula=name,
                      notes=notes, extra_read_bytes=weights + scale_bytes)


def packed_tokens(x: TensorMeta) -> Tuple[int, int]:
    """(rows, hidden) of x: [*, H]."""
    if not x.shape:
        raise Uncountable("a 0-d activation")
    return numel(x.shape[:-1]), x.shape[-1]
