"""The typed records that pass between floorcalc's pipeline stages, one module per domain.

Every stage takes and returns these frozen dataclasses; no raw dicts cross a module boundary.
Units are in the field names: ``*_us`` are microseconds, ``*_bytes``/``bytes*`` are bytes,
``flop`` is a count of floating-point operations (a multiply-add is 2), ``*_per_s`` are rates
per second. Only :mod:`floorcalc.capture` touches torch or a GPU; everything downstream can be
built by hand in tests.

The modules, each importing only those above it:

* ``builder``: ``record_builder`` (fast construction) and ``pickled_by_fields`` (a record that
  pickles as its fields, for those a worker of a run sends back by the thousand); it imports nothing;
* ``kinds``: the enumerations (``Literal`` types) and their values as tuples;
* ``counting``: dtypes, ``TensorMeta``, ``OpCall``, ``Count``, ``CommCount``;
* ``device``: ``Figure``, ``MemoryLevel``, ``DeviceSpec``;
* ``trace``: ``CpuOp``, ``RuntimeCall``, ``GpuEvent``, ``Step``, ``CaptureInfo``, ``Trace``, ``Window``...;
* ``optable``: ``OpTable``, a trace's host ops as columns (the reader's ``Trace.ops``), and
  ``op_columns``, the ops of any sequence as numpy arrays (``OpColumns``, imported from its
  module: not a document record; numpy imported only there);
* ``calltable``: ``CallTable``, a trace's runtime calls as columns (the reader's
  ``Trace.runtime``), and ``call_columns`` (``CallColumns``, imported from its module);
* ``columns``: ``ColumnTable``, what the two tables share (imported from its module);
* ``floor``: ``Floor``, ``EventFloor``;
* ``classify``: ``WorkUnit``, ``OpRow``, ``KernelRow``, ``Summary``, ``OpGroup``, ``Grouping``;
* ``timeline``: ``Gap``, ``Decomposition``, ``CollectiveTiming``, ``Timeline``...;
* ``whatif``: ``WhatIfBasis``, ``Projection``, ``WhatIf``...;
* ``counters``: ``KernelCounters``, ``NcuProfile``, ``Counters``... (floorcalc.counters);
* ``report``: ``Implausible``, ``Note``, ``Report``;
* ``distributed``: ``RankRecord``, ``RunReport``...;
* ``count``: ``floorcalc count``'s ``Recording``, ``CountReport``...;
* ``documents``: the JSON documents floorcalc writes, as records (``ReportDocument`` and its
  parts), written and read by floorcalc.util.codec; imported from their module
  (``from floorcalc.records.documents import ReportDocument``), not re-exported here.

Every public name of the other modules is re-exported here: ``from floorcalc.records import Trace``.
Field metadata ``NONNEGATIVE``/``POSITIVE`` (records.kinds) are range checks applied when a
document is read.
"""

from __future__ import annotations

from floorcalc.records.kinds import (
    Target, DeviceKind, EventKind, ComputeUnit, Basis, FloorBound, Bound, Level, Link, CollectiveKind,
    FloorSplit, KernelRole, GapCause, IdleTerm, WaitKind, SliceBound, CountRun, Family, ColdStartKind,
    ImplausibleLevel, ImplausibleCause, GroupBy, NoteKind, TARGETS, UNITS, BASES, BOUNDS, GAP_CAUSES, FAMILIES,
    IMPLAUSIBLE_CAUSES, GROUP_BYS, NOTE_KINDS, COLLECTIVE_KINDS, WhatIfScenario, WHATIF_SCENARIOS, TermBasis,
    RankStatus, CounterCache, CounterVerdict, COUNTER_VERDICTS,
)
from floorcalc.records.counting import (
    DTYPE_BYTES, UNKNOWN_DTYPE, dtype_bytes, TensorMeta, Arg, OpCall, Count, CommCount, arithmetic_intensity,
)
from floorcalc.records.device import (
    Figure, MemoryLevel, INTERCONNECT_KEYS, DeviceSpec, NO_SPEC_KEY, SpecChoice,
)
from floorcalc.records.trace import (
    CpuOp, RuntimeCall, GpuEvent, Step, GpuProperties, GeneratedKernel, ProcessGroup, DistributedInfo,
    CollectiveCall, LeanSet, LeanCapture, CaptureInfo, IncompleteReplay, Trace, UserRange, MemorySample,
    ProfilerOverhead, DeviceSync, Window,
)
from floorcalc.records.optable import (
    OpTable, op_columns,
)
from floorcalc.records.calltable import (
    CallTable, call_columns,
)
from floorcalc.records.floor import (
    Floor, EventFloor,
)
from floorcalc.records.classify import (
    UNATTRIBUTED, WorkUnit, OpRow, KernelRow, Spread, Summary, OpGroup, Grouping,
)
from floorcalc.records.timeline import (
    CAUSE_TERM, Gap, IdleSpans, IdleRow, HostWait, CopyRow, ColdStart, Decomposition, KernelLaunchRow,
    LaunchStats, InvariantCheck, RangeRow, MemoryStats, ActivitySpan, CollectiveTiming, CommunicationStats,
    StepTimes, Timeline, DeviceLane,
)
from floorcalc.records.whatif import (
    OpScaling, FusionChain, BroadcastGemm, WhatIfBasis, ProjectionTerm, Projection, WhatIf,
)
from floorcalc.records.counters import (
    KernelCounters, NcuProfile, KernelCounterRow, OpCounters, CounterGroup, CounterJoin, Counters,
)
from floorcalc.records.report import (
    Implausible, Note, Report,
)
from floorcalc.records.distributed import (
    RankRecord, RankFigures, RankReports, RankTiming, LeadIns, ReportPiece, PeerWait, RankSummary, CollectiveInstance, CollectiveRow,
    LateRank, RunReport,
)
from floorcalc.records.count import (
    RecordedOp, ModuleInfo, Recording, ModuleRow, OpTotal, UncountedOp, OracleResult, Comparison, CountReport,
)
from floorcalc.records.builder import (
    record_builder, pickled_by_fields, rebuild,
)

__all__ = [
    "Target", "DeviceKind", "EventKind", "ComputeUnit", "Basis", "FloorBound", "Bound", "Level", "Link",
    "CollectiveKind", "FloorSplit", "KernelRole", "GapCause", "IdleTerm", "WaitKind", "SliceBound", "CountRun",
    "Family", "ColdStartKind", "ImplausibleLevel", "ImplausibleCause", "GroupBy", "NoteKind", "TARGETS",
    "UNITS", "BASES", "BOUNDS", "GAP_CAUSES", "FAMILIES", "IMPLAUSIBLE_CAUSES", "GROUP_BYS", "NOTE_KINDS",
    "COLLECTIVE_KINDS", "WhatIfScenario", "WHATIF_SCENARIOS", "TermBasis", "RankStatus", "CounterCache",
    "CounterVerdict", "COUNTER_VERDICTS", "DTYPE_BYTES", "UNKNOWN_DTYPE", "dtype_bytes", "TensorMeta", "Arg",
    "OpCall", "Count", "CommCount", "arithmetic_intensity", "Figure", "MemoryLevel", "INTERCONNECT_KEYS",
    "DeviceSpec", "NO_SPEC_KEY", "SpecChoice", "OpTable", "op_columns", "CallTable", "call_columns", "CpuOp", "RuntimeCall", "GpuEvent", "Step", "GpuProperties",
    "GeneratedKernel", "ProcessGroup", "DistributedInfo", "CollectiveCall", "LeanSet", "LeanCapture",
    "CaptureInfo", "IncompleteReplay", "Trace", "UserRange", "MemorySample", "ProfilerOverhead", "DeviceSync",
    "Window", "Floor", "EventFloor", "UNATTRIBUTED", "WorkUnit", "OpRow", "KernelRow", "Spread", "Summary",
    "OpGroup", "Grouping", "CAUSE_TERM", "Gap", "IdleSpans", "IdleRow", "HostWait", "CopyRow", "ColdStart",
    "Decomposition", "KernelLaunchRow", "LaunchStats", "InvariantCheck", "RangeRow", "MemoryStats",
    "ActivitySpan", "CollectiveTiming", "CommunicationStats", "StepTimes", "Timeline", "DeviceLane",
    "OpScaling", "FusionChain", "BroadcastGemm", "WhatIfBasis", "ProjectionTerm", "Projection", "WhatIf", "KernelCounters",
    "NcuProfile", "KernelCounterRow", "OpCounters", "CounterGroup", "CounterJoin", "Counters", "Implausible",
    "Note", "Report", "RankRecord", "RankFigures", "RankReports", "RankTiming", "LeadIns", "ReportPiece", "PeerWait", "RankSummary", "CollectiveInstance", "CollectiveRow",
    "LateRank", "RunReport", "RecordedOp", "ModuleInfo", "Recording", "ModuleRow", "OpTotal", "UncountedOp",
    "OracleResult", "Comparison", "CountReport", "record_builder", "pickled_by_fields", "rebuild",
]
