"""``floorcalc count`` (capture.dispatch records the forward, floorcalc.counting.tally sums it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Tuple

from floorcalc.records.counting import OpCall, arithmetic_intensity
from floorcalc.records.kinds import CountRun, Family


@dataclass(frozen=True)
class RecordedOp:
    """One aten op call of a recorded forward.

    ``module`` is the dotted path of the innermost ``nn.Module`` running it ("" for the root,
    or when there is no model). ``oracle_flop`` holds, for ``--compare``, the FLOPs
    FlopCounterMode gave this call (and whatever it decomposed into), by FlopCounterMode's op
    name. ``within`` is, for a call made by the decomposition of an op without a formula (the
    bmm calls of an ``aten::einsum``), that outermost op's call and its serial number in the
    pass (one number per decomposed call, so repeated identical calls stay apart); None
    otherwise.
    """

    call: OpCall
    module: str = ""
    oracle_flop: Tuple[Tuple[str, int], ...] = ()
    within: Optional[Tuple[int, OpCall]] = None


@dataclass(frozen=True)
class ModuleInfo:
    """A module of the model: its dotted path ("" is the root) and its parameters, inclusive
    of its submodules, each parameter once (``params``: elements; ``param_bytes``: bytes)."""

    path: str
    params: int
    param_bytes: int


@dataclass(frozen=True)
class Recording:
    """Everything one counted forward produced.

    ``run`` is ``"meta"`` (shapes only, nothing allocated) or ``"cpu"`` (a real run, used when
    the forward needs real data); ``notice`` says why a real run was used. ``modules`` is in
    ``named_modules()`` order, root first, and empty when the model file has no model.
    """

    ops: Tuple[RecordedOp, ...]
    modules: Tuple[ModuleInfo, ...]
    run: CountRun
    notice: str = ""
    #: the dtypes of the model's parameters and floating inputs (``"float32"``...), sorted
    dtypes: Tuple[str, ...] = ()


@dataclass(frozen=True)
class ModuleRow:
    """A module's inclusive totals: op calls, FLOPs, bytes, parameters (None: no model)."""

    path: str
    depth: int
    calls: int
    flop: int
    bytes: int
    params: Optional[int]
    uncounted_calls: int = 0

    @property
    def intensity(self) -> Optional[float]:
        """Arithmetic intensity, FLOPs per byte (None when no bytes move)."""
        return arithmetic_intensity(self.flop, self.bytes)


@dataclass(frozen=True)
class OpTotal:
    """One op name's counted calls summed: ``family`` is its formula family."""

    name: str
    family: Family
    calls: int
    flop: int
    bytes: int


@dataclass(frozen=True)
class UncountedOp:
    """An op with no count: how often it occurs, where, one example of its arguments, and why."""

    name: str
    calls: int
    modules: Tuple[str, ...]
    example: str
    reason: str


@dataclass(frozen=True)
class OracleResult:
    """Another counter's answer, in FLOPs (fvcore's MACs already doubled).

    ``ran`` is False when it could not run here (``note`` says why). ``by_family`` maps the
    families of :data:`FAMILIES` to FLOPs. ``unsupported`` lists the ops it skipped, with how
    often (fvcore's own list), ``by_op`` its FLOPs by its own op names.
    """

    name: str
    ran: bool
    note: str = ""
    total: int = 0
    by_family: Mapping[Family, int] = field(default_factory=dict)
    by_op: Mapping[str, int] = field(default_factory=dict)
    unsupported: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Comparison:
    """floorcalc's totals beside fvcore's and FlopCounterMode's, per family, with each
    difference explained by op (``explanations``). ``run`` is where the comparison ran
    (``"cpu"`` or ``"meta"``); ``floorcalc`` its floorcalc FLOPs by family, ``gemm_only`` the
    same without the bias adds and activations fused into GEMMs and convolutions,
    ``attention_full`` the attention FLOPs with every (query, key) pair counted (causal
    masks ignored)."""

    run: CountRun
    floorcalc: Mapping[Family, int]
    gemm_only: Mapping[Family, int]
    attention_full: int
    oracles: Tuple[OracleResult, ...]
    explanations: Tuple[str, ...]


@dataclass(frozen=True)
class CountReport:
    """What ``floorcalc count`` prints: per-module rows to ``depth``, op totals, uncounted ops,
    totals (``flop``, ``bytes``, ``params``) and FLOPs per family."""

    model_file: str
    run: CountRun
    notice: str
    depth: int
    modules: Tuple[ModuleRow, ...]
    ops: Tuple[OpTotal, ...]
    uncounted: Tuple[UncountedOp, ...]
    flop: int
    bytes: int
    params: Optional[int]
    param_bytes: Optional[int]
    calls: int
    by_family: Mapping[Family, int]
    command: str = ""
    comparison: Optional[Comparison] = None
    #: the dtypes counted in: of the model's parameters and floating inputs, sorted
    #: (``("float32",)``); empty when the file gives neither (a ``step()`` alone)
    dtypes: Tuple[str, ...] = ()

    @property
    def intensity(self) -> Optional[float]:
        """Arithmetic intensity, FLOPs per byte (None when no bytes move)."""
        return arithmetic_intensity(self.flop, self.bytes)

    @property
    def uncounted_calls(self) -> int:
        return sum(u.calls for u in self.uncounted)
