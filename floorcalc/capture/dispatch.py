"""Record a model's forward op by op without a GPU: every aten op call, with its argument shapes
and the module it ran in, under a TorchDispatchMode, on the meta device.

Steps of :func:`record`:

1. Build the model under ``torch.device("meta")`` (parameters get shapes and dtypes, no
   storage: a 7B-parameter model costs nothing), passing ``device="meta"`` to the model file's
   functions. Inputs from ``get_inputs()`` are made as the file makes them and moved to meta
   (inputs it makes on meta are taken as they are).
2. Run the forward in ``torch.inference_mode()`` (as ``floorcalc report`` does) under
   :class:`Recorder`. In inference mode the mode sees composite ops as the profiler shows them
   at the top of a trace (``aten::linear``, ``aten::scaled_dot_product_attention``). An op with
   a formula is recorded and run whole; an op without one is decomposed under the recorder
   (``OpOverload.decompose``), so its parts are recorded instead: the outermost op with a
   formula on every chain is what is counted, as in a trace. ``aten::_to_copy``, which has no
   decomposition, is recorded as the ``aten::copy_`` it performs.
3. Forward pre/post hooks keep the dotted path of the innermost module running.
4. If the model cannot be built or run on meta (a data-dependent shape, ``.item()``,
   ``.tolist()``, an op without a meta kernel), the file is loaded again and run for real on
   the CPU under the same recorder, and :attr:`Recording.notice` says so; with
   ``fallback=False`` a :class:`ModelRunError` is raised instead.

Each call becomes an :class:`~floorcalc.records.OpCall` with its arguments in schema order,
keyword-only ones included, as the profiler records them (see ``floorcalc/trace/args.py``):
tensors as ``TensorMeta``, tensor lists as tuples, dtypes as ScalarType codes, devices,
layouts and memory formats as None, other scalars and strings as they are.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from floorcalc.capture.modelfile import ModelFile, call_user, load_model_file
from floorcalc.counting import has_formula
from floorcalc.counting.shapes import SCALAR_TYPE_CODES
from floorcalc.counting.attention import FLEX_ATTENTION
from floorcalc.trace.args import expanded_strides
from floorcalc.util.errors import CountingError, FloorcalcError, ModelFileError, ModelRunError, describe_exception
from floorcalc.records import ModuleInfo, OpCall, RecordedOp, Recording, TensorMeta
from floorcalc.capture.run import ModuleHooks, model_inputs

_CODES = {name: code for code, name in SCALAR_TYPE_CODES.items()}

#: Ops that carry no work and are not aten ops a trace would show: not recorded.
_SKIP_NAMESPACES = ("prim", "profiler")

#: Composite-explicit ops with no decomposition that do a known copy: recorded as what they do.
_LOWERED = {"aten::_to_copy": "aten::copy_"}


def dtype_name(dtype: Any) -> str:
    """``torch.float32`` -> ``"float32"``."""
    return str(dtype).replace("torch.", "")


def convert_arg(value: Any) -> Any:
    """One argument as an OpCall argument (see the module notes)."""
    import torch

    if isinstance(value, torch.Tensor):
        shape = tuple(int(s) for s in value.shape)
        try:
            strides = tuple(int(s) for s in value.stride())
        except (RuntimeError, TypeError):  # sparse and nested tensors have no strides
            strides = None
        return TensorMeta(shape, dtype_name(value.dtype), expanded_strides(shape, strides))
    if isinstance(value, (list, tuple)):
        items = tuple(convert_arg(v) for v in value)
        return items
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, torch.dtype):
        return _CODES.get(dtype_name(value))
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        kind = int if isinstance(value, torch.SymInt) else float if isinstance(value, torch.SymFloat) else bool
        try:
            return kind(value)
        except Exception:  # an unbacked symbol: unknown
            return None
    return None  # device, layout, memory_format, generator, complex...


def schema_args(func: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[Any, ...]:
    """The call's arguments in schema order, keyword-only ones and defaults included."""
    out = []
    for i, a in enumerate(func._schema.arguments):
        if a.kwarg_only or i >= len(args):
            if a.name in kwargs:
                v = kwargs[a.name]
            else:
                v = a.default_value if a.has_default_value() else None
        else:
            v = args[i]
        out.append(convert_arg(v))
    return tuple(out)


def op_name(func: Any) -> str:
    """``aten.add.Tensor`` -> ``"aten::add"`` (the profiler's name: no overload)."""
    return func._schema.name


class ModuleStack(ModuleHooks):
    """Forward hooks that keep the dotted path of the innermost module running (:attr:`current`)."""

    @property
    def current(self) -> str:
        return self._stack[-1] if self._stack else ""


def _real_layout(name: str, args: Tuple[Any, ...], out: Any) -> Any:
    """``out`` with the memory layout the real kernels give it, where meta's differs.

    SDPA on meta runs the math decomposition, whose 4-D output is a contiguous [B, H, Sq, Dv].
    The fused kernels (CPU flash, which PyTorch picks on the CPU whenever it can, and CUDA
    flash) allocate their output like q (``empty_like``: q's dim order when q is dense, else
    contiguous), so after the usual ``y.transpose(1, 2).reshape(b, s, d)``, or the
    ``permute(2, 0, 1, 3).contiguous()`` of ``nn.MultiheadAttention`` (K16), the copy the
    math path would need is not made. The fused path is taken when q, k and v are 4-D with a
    unit last stride and Dqk == Dv; the output then gets q's layout (checked against the CPU
    kernel over every dim order of q and k, masks, causal, GQA and dtypes). CUDA's
    memory-efficient kernel always returns [B, Sq, H, Dv] transposed instead: for q made by
    ``view(b, s, h, d).transpose(1, 2)`` (the common case) that is the same layout.
    """
    import torch

    if name != "aten::scaled_dot_product_attention" or not isinstance(out, torch.Tensor) \
            or out.device.type != "meta" or out.dim() != 4 or len(args) < 3:
        return out
    q, k, v = args[:3]
    if not all(isinstance(t, torch.Tensor) and t.dim() == 4 and t.stride(-1) == 1 for t in (q, k, v)):
        return out
    if q.shape[-1] != v.shape[-1] or tuple(out.shape) != tuple(q.shape):
        return out
    return torch.empty_like(q)


def flex_attention_pairs(args: Tuple[Any, ...]) -> Optional[int]:
    """The (query, key) pairs a flex_attention call's block mask computes, summed over every
    (batch, query head), or None when its block counts are not known (meta tensors).

    ``args``: the higher-order operator's (query, key, value, score_mod, block_mask, ...), with
    ``block_mask`` as ``BlockMask.as_tuple()`` gives it: (Q_LEN, KV_LEN, kv_num_blocks,
    kv_indices, full_kv_num_blocks, full_kv_indices, ..., BLOCK_SIZE_Q, BLOCK_SIZE_KV, mask_mod)
    (the middle entries vary between torch versions; the ends do not). Each of the
    ``kv_num_blocks + full_kv_num_blocks`` blocks of a query block row covers
    rows x BLOCK_SIZE_KV pairs, at most KV_LEN per row; a mask of one batch or head broadcasts.
    """
    import torch

    q, bm = args[0], args[4] if len(args) > 4 else None
    if not isinstance(q, torch.Tensor) or q.dim() != 4 or not isinstance(bm, (tuple, list)) or len(bm) < 7:
        return None
    ends = [i for i, x in enumerate(bm) if callable(x) and not isinstance(x, torch.Tensor)]
    last = ends[-1] if ends else len(bm)
    q_len, kv_len, bq, bkv = bm[0], bm[1], bm[last - 2], bm[last - 1]
    blocks = [t for t in (bm[2], bm[4]) if isinstance(t, torch.Tensor)]
    if not all(isinstance(x, int) and x > 0 for x in (q_len, kv_len, bq, bkv)) or not blocks:
        return None
    if any(t.device.type == "meta" or t.dim() != 3 for t in blocks):
        return None
    n = sum(t.to(torch.int64) for t in blocks)  # [B or 1, H or 1, query blocks]
    rows = torch.clamp(q_len - torch.arange(n.shape[-1]) * bq, min=0, max=bq)
    per_row = torch.clamp(n * bkv, max=kv_len) * rows
    b, h = q.shape[0], q.shape[1]
    scale = (b // n.shape[0] if n.shape[0] in (1, b) else 0) * (h // n.shape[1] if n.shape[1] in (1, h) else 0)
    return int(per_row.sum()) * scale if scale else None


class NeedsRealData(Exception):
    """A call whose meaning depends on tensor values, met on meta: the real CPU run is needed."""


#: Higher-order operators that call one subgraph: name -> where the callable is (its operands follow)
_ONE_SUBGRAPH = {"wrap": 0, "tag_activation_checkpoint": 0, "invoke_subgraph": 0, "wrap_with_autocast": 4,
                 "wrap_with_set_grad_enabled": 1}


def _subgraph_call(name: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]):
    """(callable, args, kwargs) that a higher-order operator's call comes down to, for the ones
    whose meaning is one subgraph call: ``cond(pred, true_fn, false_fn, operands)`` (the branch
    ``pred`` picks: a data-dependent value, so on meta it raises and the real CPU run is used),
    and :data:`_ONE_SUBGRAPH`; None for any other."""
    import torch

    if name == "cond" and len(args) == 4:
        pred = args[0]
        if isinstance(pred, torch.Tensor) and pred.device.type == "meta":
            raise NeedsRealData("torch.cond's predicate is a tensor: which branch runs depends on its value")
        take = bool(pred.item()) if isinstance(pred, torch.Tensor) else bool(pred)
        return (args[1] if take else args[2]), tuple(args[3]), {}
    at = _ONE_SUBGRAPH.get(name)
    if at is None or len(args) <= at or not callable(args[at]):
        return None
    rest = args[at + 1:]
    if name == "invoke_subgraph":
        rest = rest[1:]  # (subgraph, identifier, *operands)
    return args[at], tuple(rest), dict(kwargs)


def _make_recorder_class():
    from torch.utils._python_dispatch import TorchDispatchMode

    class Recorder(TorchDispatchMode):
        """Records the outermost op with a formula of every call chain (see the module notes).

        ``oracle``: a FlopCounterMode entered *before* (below) this mode; the FLOPs it adds
        while a recorded call runs are stored on that call.
        """

        def __init__(self, modules: ModuleStack, oracle: Any = None) -> None:
            super().__init__()
            self.modules = modules
            self.oracle = oracle
            self.ops: List[RecordedOp] = []
            #: the outermost op being decomposed (its serial number and call), or None
            self._within: Optional[Tuple[int, OpCall]] = None
            self._decomposed = 0

        def _oracle_counts(self) -> Dict[str, int]:
            return dict(self.oracle.flop_counts["Global"]) if self.oracle is not None else {}

        def _run(self, func: Any, args: Any, kwargs: Any, name: str, recorded_name: str) -> Any:
            module = self.modules.current
            before = self._oracle_counts()
            out = _real_layout(name, args, func(*args, **kwargs))
            if recorded_name in _LOWERED.values() and name in _LOWERED:
                call = OpCall(recorded_name, (convert_arg(out), convert_arg(args[0])))
            else:
                call = OpCall(recorded_name, schema_args(func, args, kwargs))
            delta: Tuple[Tuple[str, int], ...] = ()
            if self.oracle is not None:
                after = self._oracle_counts()
                delta = tuple((str(k), int(v - before.get(k, 0))) for k, v in after.items() if v != before.get(k, 0))
            self.ops.append(RecordedOp(call=call, module=module, oracle_flop=delta, within=self._within))
            return out

        #: higher-order operators (flex_attention, cond, wrap...) come here too (_higher_order)
        supports_higher_order_operators = True

        def _higher_order(self, func: Any, args: Any, kwargs: Any) -> Any:
            """A higher-order operator's call: flex_attention recorded whole (its formula, with
            the block mask's computed pairs); ``cond`` and the operators that call one subgraph
            (:func:`_subgraph_call`) run that subgraph under this recorder, so its ops are
            recorded; any other one runs as it is and is recorded uncounted. A failure here is
            floorcalc's, not the model's: :class:`CountingError`."""
            name = f"higher_order::{func.name()}"
            try:
                if has_formula(name):
                    out = func(*args, **kwargs)
                    extra = (flex_attention_pairs(args),) if name == FLEX_ATTENTION else ()
                    self.ops.append(RecordedOp(call=OpCall(name, tuple(convert_arg(a) for a in args[:3]) + extra),
                                               module=self.modules.current, within=self._within))
                    return out
                branch = _subgraph_call(func.name(), args, kwargs)
                if branch is not None:
                    fn, fargs, fkwargs = branch
                    with self:
                        return fn(*fargs, **fkwargs)
                out = func(*args, **kwargs)
                self.ops.append(RecordedOp(call=OpCall(name, tuple(convert_arg(a) for a in args)),
                                           module=self.modules.current, within=self._within))
                return out
            except (FloorcalcError, NeedsRealData):
                raise
            except Exception as e:
                raise CountingError(f"floorcalc count cannot record the higher-order operator {func.name()} "
                                    f"({describe_exception(e)}): a limit of floorcalc's recorder, not an error in "
                                    "the model; `floorcalc report` profiles it") from None

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            import torch

            if isinstance(func, torch._ops.HigherOrderOperator):
                return self._higher_order(func, args, kwargs)
            name = op_name(func)
            if name.split("::", 1)[0] in _SKIP_NAMESPACES:
                return func(*args, **kwargs)
            if has_formula(name):
                return self._run(func, args, kwargs, name, name)
            if name in _LOWERED:
                return self._run(func, args, kwargs, name, _LOWERED[name])
            # no formula: count its parts (the outermost op with a formula below it)
            outer = self._within is None
            if outer:
                self._decomposed += 1
                self._within = (self._decomposed, OpCall(name, schema_args(func, args, kwargs)))
            try:
                with self:
                    r = func.decompose(*args, **kwargs)
            finally:
                if outer:
                    self._within = None
            if r is not NotImplemented:
                return r
            return self._run(func, args, kwargs, name, name)  # recorded, and reported uncounted

    return Recorder


_RECORDER = None


def recorder(modules: ModuleStack, oracle: Any = None):
    """A new :class:`Recorder` mode (the class is built on first use, so importing this module
    does not import torch)."""
    global _RECORDER
    if _RECORDER is None:
        _RECORDER = _make_recorder_class()
    return _RECORDER(modules, oracle)


# --------------------------------------------------------------------------------------------
# building and running a model file


def _to(obj: Any, device: str) -> Any:
    """Every tensor in ``obj`` (nested tuples, lists, dicts) moved to ``device``."""
    from floorcalc.capture.run import _to_device

    return _to_device(obj, device)


def _cast(obj: Any, dtype: Any) -> Any:
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(dtype) if obj.is_floating_point() else obj
    if isinstance(obj, tuple):
        return tuple(_cast(o, dtype) for o in obj)
    if isinstance(obj, list):
        return [_cast(o, dtype) for o in obj]
    if isinstance(obj, dict):
        return {k: _cast(v, dtype) for k, v in obj.items()}
    return obj


def module_infos(model: Any) -> Tuple[ModuleInfo, ...]:
    """Inclusive unique parameter counts of every module of ``model``, root first."""
    if model is None:
        return ()
    out = []
    for name, mod in model.named_modules():
        seen, n, nb = set(), 0, 0
        for p in mod.parameters():
            if id(p) in seen:
                continue
            seen.add(id(p))
            n += p.numel()
            nb += p.numel() * p.element_size()
        out.append(ModuleInfo(path=name, params=n, param_bytes=nb))
    return tuple(out)


@dataclass
class Prepared:
    """A model file made ready to run once: the pass, and the model whose modules label ops."""

    forward: Callable[[], Any]
    model: Any
    inputs: Any = None


def prepare(mf: ModelFile, device: str, dtype: Optional[str] = None) -> Prepared:
    """Build the model file's model and inputs (or run its ``setup()``) for ``device``
    (``"meta"``: under ``torch.device("meta")``, nothing allocated; ``"cpu"``: for real).

    Raises :class:`ModelRunError` when one of the file's functions raises, and
    :class:`ModelFileError` when ``get_model()``/``get_inputs()`` return the wrong kind.
    """
    import torch

    tdtype = getattr(torch, dtype) if dtype else None
    ctx = torch.device("meta") if device == "meta" else contextlib.nullcontext()
    model = None
    with torch.inference_mode():
        if mf.has_step and mf.fn("setup"):  # setup() may build the model get_model() returns
            with ctx:
                call_user(mf.fn("setup"), device, "setup()")
        if mf.fn("get_model"):
            with ctx:
                model = call_user(mf.fn("get_model"), device, "get_model()")
            if not isinstance(model, torch.nn.Module):
                raise ModelFileError(f"get_model() in {mf.path} returned {type(model).__name__}, not an nn.Module")
            try:
                model = model.to(device).eval()
                if tdtype is not None:
                    model = model.to(tdtype)
            except Exception as e:
                raise ModelRunError(f"moving the model to {device} raised {type(e).__name__}: {e}") from e
        if mf.has_step:
            user_step = mf.fn("step")

            def step() -> Any:
                with ctx:
                    return call_user(user_step, device, "step()")

            return Prepared(step, model)
        inputs = call_user(mf.fn("get_inputs"), device, "get_inputs()")
    inputs = _to(model_inputs(inputs, mf.path), device)
    if tdtype is not None:
        inputs = _cast(inputs, tdtype)
    if model is None:
        raise ModelFileError(f"model file {mf.path} defines get_inputs() but no get_model()")

    def forward() -> Any:
        try:
            return model(**inputs) if isinstance(inputs, dict) else model(*inputs)
        except FloorcalcError:
            raise  # floorcalc's own (the recorder's CountingError): not the model's
        except Exception as e:
            raise ModelRunError(f"the model's forward raised {type(e).__name__}: {e}") from e

    return Prepared(forward, model, inputs)


def run_recorded(prep: Prepared, oracle: Any = None) -> List[RecordedOp]:
    """Run one pass of ``prep`` in inference mode under a recorder; the recorded calls.

    ``oracle``: a FlopCounterMode to run below the recorder (its FLOPs per recorded call are
    kept on each call).
    """
    import torch

    modules = ModuleStack(prep.model)
    rec = recorder(modules, oracle)
    # torch.compile refuses to run under a dispatch mode of a user's (fullgraph=True raises, as
    # flex_attention's own eager wrapper does): every compiled function runs eager here, so the
    # recorder sees its ops, as it sees the rest of the forward
    stance = torch.compiler.set_stance("force_eager") if hasattr(torch, "compiler") and hasattr(
        torch.compiler, "set_stance") else contextlib.nullcontext()
    try:
        with torch.inference_mode(), stance:
            with (oracle if oracle is not None else contextlib.nullcontext()):
                with rec:
                    prep.forward()
    finally:
        modules.remove()
    return rec.ops


def _short(e: object) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= 160 else text[:157] + "..."


def _dtypes(prep: Prepared) -> Tuple[str, ...]:
    """The dtypes of ``prep``'s model parameters and floating input tensors, sorted
    (``("bfloat16",)``; torch's names without ``torch.``)."""
    import torch

    seen = set()
    if isinstance(prep.model, torch.nn.Module):
        seen |= {str(p.dtype).replace("torch.", "") for p in prep.model.parameters()}

    def walk(obj: Any) -> None:
        if isinstance(obj, torch.Tensor):
            if obj.is_floating_point():
                seen.add(str(obj.dtype).replace("torch.", ""))
        elif isinstance(obj, (tuple, list)):
            for o in obj:
                walk(o)
        elif isinstance(obj, dict):
            for o in obj.values():
                walk(o)

    walk(prep.inputs)
    return tuple(sorted(seen))


def record(path: Path, *, dtype: Optional[str] = None, fallback: bool = True) -> Recording:
    """Record one forward of the model file at ``path`` on meta, or on the CPU when it needs
    real data (see the module notes; the recording's ``notice`` then says why).

    Raises :class:`ModelFileError` for a bad file, :class:`ModelRunError` when the model fails
    on meta and ``fallback`` is False, or fails on the CPU too.
    """
    mf = load_model_file(path)
    try:
        prep = prepare(mf, "meta", dtype)
        ops = run_recorded(prep)
        return Recording(ops=tuple(ops), modules=module_infos(prep.model), run="meta", dtypes=_dtypes(prep))
    except (ModelFileError, CountingError):
        raise
    except Exception as e:  # ModelRunError from the user's code, or torch refusing meta
        why = _short(e if isinstance(e, ModelRunError) else f"{type(e).__name__}: {e}")
        if not fallback:
            raise ModelRunError(f"the model cannot run on the meta device ({why}); "
                                "drop --no-fallback to count a real CPU run instead") from None
    notice = f"the model could not run on the meta device ({why}): counted a real CPU run instead"
    mf = load_model_file(path)  # a fresh import: module state made on meta is gone
    try:
        prep = prepare(mf, "cpu", dtype)
    except ModelFileError as e:
        if "meta device" not in str(e):
            raise
        raise ModelRunError(f"the model cannot run on the meta device ({why}), and get_inputs() makes meta "
                            "tensors, which cannot run on the CPU either") from None
    ops = run_recorded(prep)
    return Recording(ops=tuple(ops), modules=module_infos(prep.model), run="cpu", notice=notice,
                     dtypes=_dtypes(prep))


# --------------------------------------------------------------------------------------------
# the other counters, for --compare


#: Parameter bytes above which --compare does not make a real CPU copy of the model.
REAL_RUN_LIMIT_BYTES = 2 << 30


def compare_run(path: Path, recording: Recording, *, dtype: Optional[str] = None,
                log: Callable[[str], None] = lambda s: None):
    """Run fvcore's FlopCountAnalysis and torch's FlopCounterMode on the model file; the
    recording that FlopCounterMode ran beside, and both results.

    Both run on a real CPU copy of the model (what a user gets on a CPU machine) unless its
    parameters exceed :data:`REAL_RUN_LIMIT_BYTES` or ``get_inputs()`` makes meta tensors;
    then FlopCounterMode runs on meta and fvcore, whose jit trace cannot run on meta tensors,
    is skipped, with the reason.
    """
    from torch.utils.flop_counter import FlopCounterMode

    from floorcalc.records import OracleResult

    size = sum(m.param_bytes for m in recording.modules[:1])
    real = recording.run == "cpu" or size <= REAL_RUN_LIMIT_BYTES
    meta_inputs = False
    mf = load_model_file(path)
    if real:
        try:
            prep = prepare(mf, "cpu", dtype)
        except ModelFileError as e:   # get_inputs() makes meta tensors: nothing to run for real
            if "meta device" not in str(e) or recording.run == "cpu":
                raise
            real, meta_inputs = False, True
            mf = load_model_file(path)
    device = "cpu" if real else "meta"
    if not real:
        prep = prepare(mf, "meta", dtype)
    log(f"compare: running FlopCounterMode{' and fvcore' if real else ''} on {device}")
    fcm = FlopCounterMode(display=False)
    ops = run_recorded(prep, oracle=fcm)
    rec = Recording(ops=tuple(ops), modules=recording.modules, run="meta" if device == "meta" else "cpu")
    total = int(fcm.get_total_flops())
    fcm_res = OracleResult(name="FlopCounterMode", ran=True, total=total,
                           by_op={str(k): int(v) for k, v in fcm.get_flop_counts().get("Global", {}).items()},
                           note=f"torch.utils.flop_counter, on {device}")
    if meta_inputs:
        fv = OracleResult(name="fvcore", ran=False,
                          note="its jit trace needs real tensors, and get_inputs() makes meta tensors")
    elif not real:
        fv = OracleResult(name="fvcore", ran=False,
                          note=f"its jit trace needs real tensors, and the parameters take {size / 2**30:.1f} GiB "
                               f"(over {REAL_RUN_LIMIT_BYTES / 2**30:.0f} GiB)")
    elif isinstance(prep.inputs, dict):
        fv = OracleResult(name="fvcore", ran=False,
                          note="its jit trace takes positional inputs only, and get_inputs() returns keyword "
                               "arguments (a dict)")
    elif prep.inputs is None or not isinstance(prep.inputs, tuple):
        fv = OracleResult(name="fvcore", ran=False,
                          note="it needs get_model() and positional get_inputs(); a step() file has neither")
    else:
        fv = _fvcore(prep)
    return rec, (fv, fcm_res)


def _fvcore(prep: Prepared):
    import logging
    import warnings

    import torch

    from floorcalc.records import FAMILIES, Family, OracleResult
    from floorcalc.counting.tally import FVCORE_FAMILY

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # fvcore's import uses the deprecated torch.jit.script
            from fvcore.nn import FlopCountAnalysis
    except ImportError:
        return OracleResult(name="fvcore", ran=False, note="not installed (pip install fvcore)")
    logging.getLogger("fvcore").setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            a = FlopCountAnalysis(prep.model, prep.inputs)
            a.unsupported_ops_warnings(False)
            a.uncalled_modules_warnings(False)
            a.tracer_warnings("none")
            by_op = {k: 2 * int(v) for k, v in a.by_operator().items()}
            unsupported = dict(a.unsupported_ops())
    except Exception as e:  # fvcore's jit trace fails on some models: say so, never 0
        return OracleResult(name="fvcore", ran=False, note=f"FlopCountAnalysis raised {type(e).__name__}: {_short(e)}")
    fam: Dict[Family, int] = {f: 0 for f in FAMILIES}
    for k, v in by_op.items():
        fam[FVCORE_FAMILY.get(k, "vector")] += v
    return OracleResult(name="fvcore", ran=True, total=sum(by_op.values()), by_family=fam, by_op=by_op,
                        unsupported=unsupported, note="FlopCountAnalysis (MACs, x2 here), on cpu")
