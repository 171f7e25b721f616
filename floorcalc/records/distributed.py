"""Runs of several ranks (floorcalc.distributed): one small record per rank (the map), then the
cross-rank report (the reduce).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, Iterator, Mapping, Optional, Tuple

from floorcalc.records.builder import pickled_by_fields
from floorcalc.records.device import DeviceSpec
from floorcalc.records.kinds import CollectiveKind, RankStatus
from floorcalc.records.report import Report
from floorcalc.records.timeline import Decomposition
from floorcalc.records.trace import DistributedInfo


@dataclass(frozen=True)
class ReportPiece:
    """One rank's own report as the run's JSON document holds it under ``reports``, made where
    the rank was analysed (floorcalc.render.run.report_piece), so that a worker sends back these
    bytes, not the report's records.

    ``data``: zlib-compressed (level 1, by ISA-L where installed: floorcalc.render.run.compress)
    UTF-8 JSON of the report's document, exactly the bytes of ``reports."<rank>"`` in the run's
    document (orjson, indented 2 a level, its lines after
    the first indented 4 more: two levels deep). ``paths_base``: the folder its paths were
    written relative to (floorcalc.util.sharing); None: as the trace and the spec gave them.
    ``device``, ``reference``: the report's specs as they are (the JSON leaves out their links
    and collective latency, which its text prints), put back on the report read from ``data``.
    """

    data: bytes
    paths_base: Optional[str] = None
    device: Optional[DeviceSpec] = None
    reference: Optional[DeviceSpec] = None


@dataclass(frozen=True)
class LeadIns:
    """A rank's collectives' lead-ins (``CollectiveTiming.lead_in``) as the cross-rank step reads
    them, in columns, collective by collective (the ``index`` of its :class:`RankTiming`), made
    by floorcalc.distributed.rank.rank_timings: 21,500 spans of one rank of the 64-rank benchmark
    in 0.6 MB, not 3.6 MB of records.

    ``labels``: the texts the spans and sums are labelled with
    (floorcalc.distributed.crossrank.activity_label), indexed by ``label`` and ``since_label``.
    The columns are the bytes of C arrays (``memoryview(b).cast(...)`` reads them: ``i`` 32-bit
    ints, ``d`` doubles): ``span_at`` (i), where each collective's spans begin in the span
    columns (one more entry: the end); ``start_us``, ``end_us``, ``share`` (d), ``label`` (i):
    each span's (``ActivitySpan``'s fields, times from its collective's start), in lead-in
    order. ``since_at`` (i), ``since_label`` (i), ``since_us`` (d): the same for what each
    collective's rank did since its previous collective on the rank (in start order), by
    label, in the order first met (floorcalc.distributed.crossrank._since_previous, worked out
    where the rank was analysed); ``since_known``: a byte per collective, 1 where that could be
    said, 0 where not (it started before its previous collective ended, its lead-in does not
    reach back that far, or it is the rank's first).
    """

    labels: Tuple[str, ...]
    span_at: bytes
    start_us: bytes
    end_us: bytes
    share: bytes
    label: bytes
    since_at: bytes
    since_label: bytes
    since_us: bytes
    since_known: bytes


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class RankTiming:
    """One collective of a rank as the cross-rank step reads it: its ``CollectiveTiming``
    (floorcalc.records.timeline) without the rank's records, made where the rank was analysed
    (floorcalc.distributed.rank.rank_timings); about 0.4 KB, a sixth of the timing's.

    ``kind``, ``group_name``, ``group_ranks``, ``seq``, ``peer``: its call's
    (``CollectiveCall``); ``ordinal``, ``ts_us``, ``duration_us``, ``message_bytes``,
    ``link_bytes``, ``floor_us``, ``exposed``: the timing's. ``lead_ins``: its rank's
    :class:`LeadIns` (one object for all the rank's timings), ``index``: its place in them.
    """

    kind: CollectiveKind
    group_name: str
    group_ranks: Tuple[int, ...]
    seq: Optional[int]
    peer: Optional[int]
    ordinal: int
    ts_us: float
    duration_us: float
    message_bytes: Optional[int]
    link_bytes: Optional[float]
    floor_us: Optional[float]
    exposed: Tuple[Tuple[float, float, str], ...]
    lead_ins: LeadIns
    index: int

    @property
    def end_us(self) -> float:
        return self.ts_us + self.duration_us


@dataclass(frozen=True)
class RankFigures:
    """What the cross-rank step (floorcalc.distributed.crossrank.combine) reads of one rank's
    own report (made by floorcalc.distributed.rank.rank_figures; times per pass unless named
    otherwise, microseconds).

    ``passes``: the passes of its window (``Summary.passes``); ``wall_us``, ``busy_us``
    (``Summary.gpu_busy_us``), ``floor_us``: from its summary. ``comm_us``, ``hidden_us``: its
    collectives' time and the part of it hidden under compute (0 without a timeline).
    ``decomposition``: its pass decomposition (None: no device timeline). ``collectives``: its
    collectives' timings (``Timeline.collectives`` as :class:`RankTiming`; empty without a
    timeline). ``device``: the
    spec it was analysed against. ``quick_notes``: its notes of a quick capture
    (floorcalc.analysis.notes.QUICK_NOTE), which the run's notes repeat once.
    """

    passes: int
    wall_us: float
    busy_us: Optional[float]
    floor_us: Optional[float]
    comm_us: float
    hidden_us: float
    decomposition: Optional[Decomposition]
    collectives: Tuple[RankTiming, ...]
    device: Optional[DeviceSpec]
    quick_notes: Tuple[str, ...] = ()


class RankReports(Mapping[int, Report]):
    """Each readable rank's own report, by rank (``RunReport.reports``), kept as the run's JSON
    holds it (:class:`ReportPiece`, compressed) and read back when asked for: ``decode`` turns
    a piece into the :class:`Report` (floorcalc.render.run.read_piece, the report JSON reader),
    a new one each time, nothing kept. ``pieces``: the pieces by rank, as the run's JSON
    renderer writes them. ``paths_base``: the folder every piece's paths are relative to (None:
    none, or the pieces differ)."""

    def __init__(self, pieces: Mapping[int, ReportPiece], decode: Callable[[ReportPiece], Report]) -> None:
        self.pieces: Dict[int, ReportPiece] = dict(pieces)
        self._decode = decode

    @property
    def paths_base(self) -> Optional[str]:
        bases = {p.paths_base for p in self.pieces.values()}
        return bases.pop() if len(bases) == 1 else None

    def __getitem__(self, rank: int) -> Report:
        return self._decode(self.pieces[rank])

    def __iter__(self) -> Iterator[int]:
        return iter(self.pieces)

    def __len__(self) -> int:
        return len(self.pieces)


@dataclass(frozen=True)
class RankRecord:
    """What the cross-rank step reads of one rank's trace (output of
    floorcalc.distributed.rank_record, a pure function of one file): small and picklable, so that
    a process pool or a Dask cluster can return it.

    ``path``: the trace. ``distributed``: its ``distributedInfo`` (None: absent). ``rank``: its
    rank, from there or, failing that, from the file name (``rank_source`` says which: ``trace``,
    ``file name`` or ""). ``figures``: what the cross-rank step reads of the rank's own report
    (:class:`RankFigures`, its collectives' timings among them) and ``piece``: that report as
    the run's JSON holds it (:class:`ReportPiece`); both None when it could not be read:
    ``error`` then says why on one line, and ``exit_code`` is the error's. ``partial``: why it
    was read only in part. ``identity``: what says which run it came from (floorcalc's capture
    command and model file, torch version, NCCL version, process groups), compared across
    ranks. ``window_start_us``: its window's start on its own clock.
    """

    path: str
    rank: Optional[int]
    world_size: Optional[int]
    distributed: Optional[DistributedInfo]
    figures: Optional[RankFigures]
    piece: Optional[ReportPiece] = None
    error: str = ""
    exit_code: int = 0
    partial: str = ""
    rank_source: str = ""
    identity: Mapping[str, str] = field(default_factory=dict)
    window_start_us: Optional[float] = None


@dataclass(frozen=True)
class PeerWait:
    """How long rank ``rank`` waited, per pass, in collectives for which ``peer`` arrived last,
    and what ``peer`` was doing meanwhile: ``activity`` as (what, microseconds per pass), the
    longest first (``GPU: aten::mm``, ``host python in aten::randn``...; see docs/timeline.md).
    ``extra``: what ``peer`` spent more time on than ``rank`` between leaving their previous
    collective and arriving at the one waited for (negative: less), as (what, microseconds per
    collective waited for: the mean over the instances where both came from the same previous
    collective), the largest differences first (floorcalc.distributed.crossrank.extra_activity):
    why it arrived later."""

    rank: int
    peer: int
    wait_us: float
    instances: int
    activity: Tuple[Tuple[str, float], ...] = ()
    extra: Tuple[Tuple[str, float], ...] = ()


@dataclass(frozen=True)
class RankSummary:
    """One rank in the cross-rank table; times are per pass (window totals / its passes).

    ``status``: ``ok``, ``partial`` (its trace is cut short: ``problem`` says where),
    ``unreadable`` (``problem`` says why) or ``missing`` (no trace). ``wall_us``, ``busy_us``,
    ``floor_us`` (the sum of its floors, collectives' included): from its own report.
    ``comm_us``: its collectives' time; ``hidden_us``: the part of it hidden under compute;
    ``transfer_us``: its collectives' time once the last rank had arrived; ``peer_wait_us``: the
    exposed part of its waits for later ranks (the decomposition's ``peer_wait_us``);
    ``waited_on``: the rank it waited on longest (None: none), ``waited_on_us`` how long.
    ``clock_offset_us``: what was added to its times to put them on the reference rank's clock.
    ``decomposition``: its pass decomposition with waiting split from communication.
    ``waits``: per peer it waited on (:class:`PeerWait`).
    """

    rank: int
    path: str
    status: RankStatus
    problem: str = ""
    passes: int = 0
    wall_us: Optional[float] = None
    busy_us: Optional[float] = None
    floor_us: Optional[float] = None
    comm_us: Optional[float] = None
    hidden_us: Optional[float] = None
    transfer_us: Optional[float] = None
    peer_wait_us: Optional[float] = None
    waited_on: Optional[int] = None
    waited_on_us: float = 0.0
    clock_offset_us: float = 0.0
    collectives: int = 0
    decomposition: Optional[Decomposition] = None
    waits: Tuple[PeerWait, ...] = ()


@dataclass(frozen=True)
class CollectiveInstance:
    """One collective matched across the ranks that took part (times in microseconds, on the
    reference rank's clock, from the run's start).

    ``group``: process group name ("" where the traces name none: the default group); ``kind``
    (``send`` for a matched send and recv); ``ordinal``: its position among the group's
    collectives of the window; ``seq``: torch's sequence number when the traces give it.
    ``ranks``: the ranks matched, in order; ``arrival_us``/``duration_us``: each one's start and
    length; ``waits_us``: how long each waited for the last to arrive (0 for the last);
    ``late_rank``: the last to arrive; ``skew_us``: last arrival minus first; ``transfer_us``:
    its length on the late rank (the time the data took once all were there).
    ``message_bytes``/``link_bytes``/``floor_us``: its count and floor (the late rank's; None:
    uncounted). ``late_activity``: what the late rank did during the longest wait, as (what,
    microseconds). ``late_extra``: what the late rank spent more time on (negative: less) than
    the first to arrive, since both left their previous collective (the same one), as (what,
    microseconds), the largest differences first; empty when they came from different ones
    (or none: the first of the window).
    """

    group: str
    kind: CollectiveKind
    ordinal: int
    seq: Optional[int]
    ranks: Tuple[int, ...]
    arrival_us: Tuple[float, ...]
    duration_us: Tuple[float, ...]
    waits_us: Tuple[float, ...]
    late_rank: int
    skew_us: float
    transfer_us: float
    message_bytes: Optional[int]
    link_bytes: Optional[float]
    floor_us: Optional[float]
    late_activity: Tuple[Tuple[str, float], ...] = ()
    late_extra: Tuple[Tuple[str, float], ...] = ()

    @property
    def efficiency(self) -> Optional[float]:
        """Floor over transfer time (may exceed 1; None without a floor)."""
        return self.floor_us / self.transfer_us if self.floor_us is not None and self.transfer_us > 0 else None


@dataclass(frozen=True)
class CollectiveRow:
    """The instances of one (group, kind, message size), summed: ``calls`` per pass, and means
    over instances of the slowest rank's ``measured_us`` (start to end on the earliest rank, the
    longest any rank spent in it), ``transfer_us``, ``skew_us`` (and ``max_skew_us``),
    ``floor_us``; ``wait_us``: the summed waits of all ranks per pass; ``late_rank``: the rank
    most often last, and ``late_share``: in what share of the instances."""

    group: str
    kind: CollectiveKind
    ranks: int
    message_bytes: Optional[int]
    calls: float
    measured_us: float
    transfer_us: float
    skew_us: float
    max_skew_us: float
    wait_us: float
    floor_us: Optional[float]
    late_rank: Optional[int]
    late_share: float
    #: the order of the JSON document's keys (floorcalc.util.codec), ``efficiency`` derived
    __json_layout__ = ("group", "kind", "ranks", "message_bytes", "calls", "measured_us", "transfer_us", "floor_us",
                       "efficiency", "skew_us", "max_skew_us", "wait_us", "late_rank", "late_share")

    @property
    def efficiency(self) -> Optional[float]:
        """Floor over mean transfer time (None without a floor)."""
        return self.floor_us / self.transfer_us if self.floor_us is not None and self.transfer_us > 0 else None


@dataclass(frozen=True)
class LateRank:
    """A rank the others waited for at the same collective of every pass (the cross-rank
    step 6, floorcalc.distributed.crossrank): what a run means by "rank R is late".

    ``rank``: the rank that arrived last; ``group`` and ``kind``: the collective's process group
    and operation; ``position``: its place among the group's collectives of one pass (0: the
    first) of ``per_pass``; ``passes``: the passes it was last in (every pass of the window);
    ``min_skew_us``, ``median_skew_us``: how long after the first rank it arrived, the smallest
    and the median over those passes; ``share``: the smallest skew over the median wall time
    per pass of the ranks that waited; ``waiting``: those ranks; ``activity``: what the late
    rank was doing during the longest wait of each pass, (what, us per pass), largest first;
    ``extra``: what it spent more time on than the first to arrive since their previous
    collective (:attr:`CollectiveInstance.late_extra`), us per pass, the largest differences first.
    """

    rank: int
    group: str
    kind: CollectiveKind
    position: int
    per_pass: int
    passes: int
    min_skew_us: float
    median_skew_us: float
    share: float
    waiting: Tuple[int, ...]
    activity: Tuple[Tuple[str, float], ...] = ()
    extra: Tuple[Tuple[str, float], ...] = ()


@dataclass(frozen=True)
class RunReport:
    """The cross-rank report of a distributed run (output of floorcalc.distributed.analyze_run).

    ``world_size``: from the traces' ``distributedInfo``. ``ranks``: one :class:`RankSummary`
    per rank of the world, missing and unreadable ones included. ``collectives``: per (group,
    kind, size), the longest waits first; ``instances``: the instances with the longest waits
    (at most floorcalc.distributed.LIST_INSTANCES), of ``instance_count`` matched
    (``unmatched``: collectives some rank of their group lacks). ``reference_rank``: the rank
    whose clock the others were put on; ``clock``: how the clocks were aligned, in words.
    ``partial``: why the result covers less than the whole run ("" when it does not).
    ``late``: the ranks late at the same collective in every pass (:class:`LateRank`; empty:
    none is, or the window has fewer than two passes).
    ``reports``: each readable rank's own report, by rank (in the run's JSON document under
    ``reports``; a :class:`RankReports` from floorcalc.distributed.combine, read back from the
    document's pieces when asked for).
    """

    schema_version: int
    tool_version: str
    world_size: int
    ranks: Tuple[RankSummary, ...]
    collectives: Tuple[CollectiveRow, ...]
    instances: Tuple[CollectiveInstance, ...]
    instance_count: int
    unmatched: int
    reference_rank: Optional[int]
    clock: str
    device: Optional[DeviceSpec] = None
    partial: str = ""
    notes: Tuple[str, ...] = ()
    command: str = ""
    late: Tuple[LateRank, ...] = ()
    reports: Mapping[int, "Report"] = field(default_factory=dict, compare=False, repr=False)
