"""Read a Kineto (PyTorch profiler) trace into a :class:`~floorcalc.records.Trace`.

Accepts ``.json`` and ``.json.gz``. Reads the complete (``ph: X``) events of the categories
named in :data:`CATEGORIES` and the ``[memory]`` instant events; every other event is skipped
and counted in ``Trace.metadata["skipped_events"]`` (categories Kineto does not write at all are
also named in ``Trace.notes``).

Reading a file (:func:`load`), in bounded memory:

1. The ``traceEvents`` array is cut into batches of whole events by
   :class:`floorcalc.trace.jsonstream.EventStream`, exactly (a real JSON scanner where a fast
   cut is not proven; see that module), and the top-level fields around it are read once, as
   metadata. A damaged file keeps every whole event before the damage; the Trace says so in
   ``partial``. With no complete event at all it is an error.
2. Each batch is decoded by msgspec into typed structs that hold only the fields used; the
   shape fields of op args (``Input Dims``, ``Input type``, ``Concrete Inputs``: most of a
   trace's JSON values) are kept as raw JSON text, and only the distinct texts are parsed, once,
   when op calls are built: ops with the same name and texts share one OpCall. A batch whose
   events do not fit the types is decoded as plain JSON and each event checked field by field
   (:func:`_sanitize`), so a type error costs that batch its speed, never the trace its events.
3. The fields of the kept events go into columns (numpy arrays, name ids).

Validation at the trace boundary (:meth:`_Acc.finish`), each with a counted note in
``Trace.notes``:

- an event whose ``cat`` is not a string, or whose ``args`` is not an object, is skipped / read
  without args;
- an event without a start time, or whose duration is missing, negative or longer than
  :data:`MAX_DURATION_US` (NaN and Infinity cannot reach the columns: they are not JSON, and
  strings are not read as numbers), is dropped;
- an empty name is read as :data:`UNNAMED`; a transfer size below zero is dropped from its
  event;
- exact duplicates (every field read equal) are collapsed to one;
- the host events of several processes (ranks) in one file (cpu ops under more than one pid)
  are refused with one line naming the pids, unless ``pid=`` picks one: its host events are
  kept, with the device events on the devices it launched work to.

Dialects (named in ``Trace.notes`` when met): the capitalised categories of older Kineto
releases (``Kernel``, ``Runtime``, ``Memcpy``, ``Memset``, ``Operator``, with ``external id`` in
lower case), ROCm traces (``hip*`` runtime calls, read like their CUDA counterparts), MTIA and
other PrivateUse1 devices (``mtia_runtime`` / ``privateuse1_runtime`` calls, ``mtia_ccp_events``
device events: timeline only), and string pids/tids (hashed to stable negative ids).

The join (floorcalc.trace.join, format-neutral): the reader hands it the columns of the host
ops (``cpu_op``), runtime/driver calls (``cuda_runtime``, ``cuda_driver``; on ROCm the same
categories hold ``hip*`` calls) and device events (``kernel``, ``gpu_memcpy``, ``gpu_memset``),
checked and in microseconds, with the module ranges and the steps (the ``ProfilerStep#N``
ranges); it nests the host calls per thread, joins each device event to its launch through the
CUPTI ``correlation`` id (``External id`` where no call matches) and gives each op its step.
Other user ranges (``record_function``) are kept as :class:`UserRange` records. Every Kineto
name read (categories, args keys, top-level fields) is in floorcalc.trace.kineto_fields.

Times are microseconds. Whether a trace's timestamps are microseconds or nanoseconds is decided
from evidence (floorcalc.trace.timeunit: a declared unit, Unix-time nanoseconds, Kineto's own
memcpy bandwidths, the capture's unprofiled wall time, what no hardware does, launch calls),
never from "every time is a whole number" alone; a trace read as nanoseconds is scaled, and
``Trace.notes`` says why.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import re
import zlib
from itertools import compress, repeat
from operator import attrgetter, is_, itemgetter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import msgspec
import numpy as np

from floorcalc.util.errors import DocumentError, TraceError
from floorcalc.util.gcpause import paused
from floorcalc.util.memory import release_free_memory
from floorcalc.util.output import shown
from floorcalc.util.progress import NO_PROGRESS, Progress
from floorcalc.records import (DeviceSync, EventKind, GpuProperties, MemorySample, OpCall, ProfilerOverhead,
                               Step, Trace, UserRange)
from floorcalc.trace import collectives, timeunit
from floorcalc.trace.args import op_call_from_kineto
from floorcalc.trace.capture_info import KEY, read_capture_info
from floorcalc.trace.join import EVENT_KINDS, KIND_CODE, NO_ID, Joined, join
from floorcalc.trace.kineto_fields import (CATEGORIES, COMM_ARGS, COMPLETE, CONCRETE_INPUTS, COPY_ARGS,
                                           DEVICE_PROPERTIES, DEVICE_PROPERTY_FIELDS, DISTRIBUTED_INFO,
                                           GCN_ARCH_FIELDS, HOST_NAME, INPUT_DIMS, INPUT_STRIDES, INPUT_TYPES,
                                           INSTANT, INT_ARGS, KNOWN_UNUSED, MEMORY_EVENT, MODULE_RANGE_PREFIX,
                                           MTIA_COPY_EVENTS, MTIA_SYNC_EVENTS, OLD_CATEGORIES, SHAPE_ARGS,
                                           STEP_PREFIX, TORCH_MODULE_PREFIX, TRACE_EVENTS)

#: what a truncated GPU trace's ``partial`` adds when the cut left no device event
NO_DEVICE_EVENT = "no device event survived the cut (Kineto writes them after the host events)"
from floorcalc.trace.jsonstream import EventStream
from floorcalc.trace.paths import is_trace_folder, path_error


# event kinds (small ints keep the per-event work cheap); 0: a complete event of a category not
# read, -1: not a complete event
_OP, _RT, _KERNEL, _MEMCPY, _MEMSET, _ANNOT, _PY, _OVERHEAD, _SYNC, _MEM, _MTIA_DEV = range(1, 12)
_DEVICE_KINDS: Dict[int, EventKind] = {_KERNEL: "kernel", _MEMCPY: "memcpy", _MEMSET: "memset"}
#: a device kind's code in the join's ``kind`` column
_JOIN_KIND = {code: KIND_CODE[kind] for code, kind in _DEVICE_KINDS.items()}
_KIND_LABEL = {_OP: "op", _RT: "runtime call", _KERNEL: "kernel", _MEMCPY: "memcpy", _MEMSET: "memset",
               _ANNOT: "user range", _PY: "module range", _OVERHEAD: "profiler overhead event",
               _SYNC: "device sync", _MEM: "memory event", _MTIA_DEV: "device event"}

_KIND_OF = {"op": _OP, "runtime": _RT, "kernel": _KERNEL, "memcpy": _MEMCPY, "memset": _MEMSET,
            "annotation": _ANNOT, "python": _PY, "overhead": _OVERHEAD, "sync": _SYNC, "mtia_device": _MTIA_DEV}
_CAT_KIND = {cat: _KIND_OF[k] for cat, k in CATEGORIES.items()}
_CAT_KIND.update({old: _CAT_KIND[new] for old, new in OLD_CATEGORIES.items()})

#: The name given to an event whose name is empty.
UNNAMED = "(unnamed)"
#: The longest duration read (one day, in microseconds); longer ones are dropped as impossible.
MAX_DURATION_US = 86_400e6
#: The largest timestamp read (past it, even nanoseconds of Unix time are centuries away).
MAX_TIMESTAMP = 1e19

_STEP_RE = re.compile("^" + re.escape(STEP_PREFIX) + r"(\d+)$")
#: an Input Strides text with a zero stride in it (an expanded view; the others are not kept)
_ZERO_STRIDE = re.compile(rb"[\[,]\s*0\s*[,\]]")
_NONE = NO_ID        # "no id" in integer columns (floorcalc.trace.join)
_ID_LIMIT = 1 << 62  # ids at or beyond this (in size) are read as none


# ---------------------------------------------------------------------------------------------
# The fields read, as msgspec structs (reading step 2)

_NO_RAW = msgspec.Raw()


class _Args(msgspec.Struct, gc=False):
    """The ``args`` members used (any other member is skipped unread), named as
    floorcalc.trace.kineto_fields names them (its :data:`INT_ARGS`, :data:`SHAPE_ARGS`,
    :data:`COPY_ARGS`, :data:`COMM_ARGS`)."""

    ext: Optional[int] = msgspec.field(default=None, name=INT_ARGS["ext"])
    ext_old: Optional[int] = msgspec.field(default=None, name=INT_ARGS["ext_old"])
    correlation: Optional[int] = msgspec.field(default=None, name=INT_ARGS["correlation"])
    device: Optional[int] = msgspec.field(default=None, name=INT_ARGS["device"])
    stream: Optional[int] = msgspec.field(default=None, name=INT_ARGS["stream"])
    bytes: Optional[int] = msgspec.field(default=None, name=INT_ARGS["bytes"])
    dims: msgspec.Raw = msgspec.field(default=_NO_RAW, name=SHAPE_ARGS["dims"])
    dims_old: msgspec.Raw = msgspec.field(default=_NO_RAW, name=SHAPE_ARGS["dims_old"])
    types: msgspec.Raw = msgspec.field(default=_NO_RAW, name=SHAPE_ARGS["types"])
    concrete: msgspec.Raw = msgspec.field(default=_NO_RAW, name=SHAPE_ARGS["concrete"])
    strides: msgspec.Raw = msgspec.field(default=_NO_RAW, name=SHAPE_ARGS["strides"])
    # [memory] instants
    mem_bytes: Optional[int] = msgspec.field(default=None, name=INT_ARGS["mem_bytes"])
    total_allocated: Optional[int] = msgspec.field(default=None, name=INT_ARGS["total_allocated"])
    total_reserved: Optional[int] = msgspec.field(default=None, name=INT_ARGS["total_reserved"])
    device_type: Optional[int] = msgspec.field(default=None, name=INT_ARGS["device_type"])
    device_id: Optional[int] = msgspec.field(default=None, name=INT_ARGS["device_id"])
    # MTIA device events
    size: Optional[int] = msgspec.field(default=None, name=INT_ARGS["size"])
    # peer copies (CUPTI's memcpy2 records: Memcpy PtoP): the two ends and the device it ran on
    from_device: Optional[int] = msgspec.field(default=None, name=INT_ARGS["from_device"])
    to_device: Optional[int] = msgspec.field(default=None, name=INT_ARGS["to_device"])
    in_device: Optional[int] = msgspec.field(default=None, name=INT_ARGS["in_device"])
    # memcpys and memsets: the bandwidth Kineto computed (bytes / ns), a number or "N/A"
    bandwidth: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COPY_ARGS["bandwidth"])
    # collectives (floorcalc.trace.collectives.COMM_KEYS): raw JSON, decoded only for the events
    # that have a "Collective name"
    coll_name: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_name"])
    coll_dtype: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_dtype"])
    coll_in: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_in"])
    coll_out: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_out"])
    coll_size: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_size"])
    coll_pg: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_pg"])
    coll_pg_desc: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_pg_desc"])
    coll_ranks: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_ranks"])
    coll_seq: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_seq"])
    coll_rank: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_rank"])
    coll_src: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_src"])
    coll_dst: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_dst"])
    coll_in_split: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_in_split"])
    coll_out_split: msgspec.Raw = msgspec.field(default=_NO_RAW, name=COMM_ARGS["coll_out_split"])


class _Event(msgspec.Struct, gc=False):
    """One trace event's fields used (any other field is skipped unread)."""

    ph: str = ""
    cat: str = ""
    name: str = ""
    pid: Union[int, str] = 0
    tid: Union[int, str] = 0
    ts: Optional[float] = None
    dur: Optional[float] = None
    args: Optional[_Args] = None


_TYPED = msgspec.json.Decoder(List[_Event])
# an _Args's shape texts, read together by map (no Python code per op: _Acc._refs_of)
_A_SHAPES = attrgetter("dims", "dims_old", "types", "concrete", "strides")
_A_COLL_NAME, _E_CAT = attrgetter("coll_name"), attrgetter("cat")
_NUL = b"\0"
_EMPTY_ARGS = _Args()
#: Kineto's name of an args member -> its _Args attribute (floorcalc.trace.kineto_fields)
_INT_ARGS = {key: attr for attr, key in INT_ARGS.items()}
#: the collective args kept (floorcalc.trace.collectives.COMM_KEYS) -> their _Args attribute
_COMM_ATTRS = {key: attr for attr, key in COMM_ARGS.items()}
_RAW_ARGS = {**{key: attr for attr, key in SHAPE_ARGS.items()}, **{key: attr for attr, key in COPY_ARGS.items()},
             **_COMM_ATTRS}
_JSON = msgspec.json.Encoder()


def _sanitize(ev: Any, problems: Dict[str, int]) -> Optional[_Event]:
    """A plain-JSON event as an :class:`_Event`, each field checked (step 2's slow path).

    Fields of the wrong type are counted in ``problems`` (the key is the note's text) and read
    as absent; None for an element that is not an event at all.
    """
    if type(ev) is not dict:
        return None
    ph = ev.get("ph")
    cat = ev.get("cat", "")
    if type(cat) is not str:
        problems["events whose category is not a string skipped"] = problems.get(
            "events whose category is not a string skipped", 0) + 1
        return None
    name = ev.get("name", "")
    if type(name) is not str:
        name = "" if name is None else (_json_text(name) or b"").decode()
        problems["events whose name is not a string read as its JSON text"] = problems.get(
            "events whose name is not a string read as its JSON text", 0) + 1
    out = _Event(ph=ph if type(ph) is str else "", cat=cat, name=name, pid=_id_value(ev.get("pid")),
                 tid=_id_value(ev.get("tid")), ts=_number(ev.get("ts")), dur=_number(ev.get("dur")))
    a = ev.get("args")
    if type(a) is dict:
        fields: Dict[str, Any] = {}
        for key, attr in _INT_ARGS.items():
            if key in a:
                fields[attr] = _int_arg(a[key])
        for key, attr in _RAW_ARGS.items():
            if key in a:
                raw = _json_text(a[key])
                if raw is not None:
                    fields[attr] = msgspec.Raw(raw)
        out.args = _Args(**fields)
    elif a is not None:
        problems["events whose args are not a JSON object read without args"] = problems.get(
            "events whose args are not a JSON object read without args", 0) + 1
    return out


def _number(x: Any) -> Optional[float]:
    """A JSON number as a finite float; None for anything else (strings are not numbers)."""
    if type(x) is float:
        return x if math.isfinite(x) else None
    if type(x) is int:
        try:
            return float(x)
        except OverflowError:
            return None
    return None


def _id_value(x: Any) -> Union[int, str]:
    """A pid or tid: an int, or a string (hashed later); other JSON values as their text."""
    if type(x) is int or type(x) is str:
        return x
    if x is None:
        return 0
    return (_json_text(x) or b"").decode()


def _json_text(x: Any) -> Optional[bytes]:
    """``x`` (a value loaded from JSON) as JSON text; None where it cannot be written (a lone
    surrogate a lenient loader let through, a nesting too deep)."""
    try:
        return _JSON.encode(x)
    except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, RecursionError, TypeError, ValueError):
        return None


def _int_arg(x: Any) -> Optional[int]:
    """An integer arg (an id, a device, a byte count): a JSON integer, an integral float or a
    string of digits; None for anything else."""
    if type(x) is int:
        return x
    if type(x) is float and x.is_integer():
        return int(x)
    if type(x) is str:
        try:
            return int(x.strip())
        except ValueError:
            return None
    return None


def _int(x: Any) -> Optional[int]:
    if x is None or isinstance(x, bool):
        return None
    try:
        return int(x)
    except (TypeError, ValueError, OverflowError):
        return None


def _tid(x: Any) -> int:
    """Kineto thread/pid ids are ints, or strings for synthetic lanes; hash those stably."""
    if type(x) is int:
        return x if -_ID_LIMIT < x < _ID_LIMIT else -(zlib.crc32(str(x).encode()) & 0x7FFFFFFF) - 1
    i = _int(x)
    if i is not None and -_ID_LIMIT < i < _ID_LIMIT:
        return i
    return -(zlib.crc32(str(x).encode()) & 0x7FFFFFFF) - 1


def _ids(values: List[Optional[int]]) -> np.ndarray:
    """An int64 column of ids (:data:`_NONE` for none, or for one out of range)."""
    if None not in values:
        try:
            col = np.array(values, dtype=np.int64)
            if len(col) == 0 or (int(col.min()) > -_ID_LIMIT and int(col.max()) < _ID_LIMIT):
                return col
        except (OverflowError, ValueError, TypeError):
            pass
    return np.array([_NONE if v is None or not (-_ID_LIMIT < v < _ID_LIMIT) else v for v in values], dtype=np.int64)


def _lanes(values: List[Union[int, str]], seen: Optional[set] = None) -> np.ndarray:
    """An int64 column of pids or tids (strings hashed: see :func:`_tid`; those met are added to
    ``seen``)."""
    try:
        col = np.array(values, dtype=np.int64)
        if len(col) == 0 or (int(col.min()) > -_ID_LIMIT and int(col.max()) < _ID_LIMIT):
            return col
    except (OverflowError, ValueError, TypeError):
        pass
    if seen is not None and len(seen) < 8:
        seen.update(v for v in values if type(v) is str)
    return np.array([_tid(v) for v in values], dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# JSON files read whole (specs of other kinds, annotate's copy of the trace)


def _loads(raw: bytes) -> Any:
    return msgspec.json.decode(raw)


def _check_file(p: Path) -> None:
    """A trace file that can be opened: raises :class:`TraceError` for anything else (a missing
    path, a directory, and :func:`path_error`'s causes)."""
    if is_trace_folder(p):
        raise TraceError(f"trace is a directory, not a file: {shown(p)}")


def read_json(path: str | Path) -> Dict[str, Any]:
    """Load a ``.json`` or ``.json.gz`` file into a dict, whole (see :func:`load` for traces).

    Raises :class:`TraceError` when the file is missing, unreadable, truncated, or not a JSON
    object.
    """
    p = Path(path)
    _check_file(p)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise path_error(p, e) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error):
            raise TraceError(f"trace {p} is a truncated or corrupt gzip file") from None
    if not raw.strip():
        raise TraceError(f"trace {p} is empty")
    try:
        data = _loads(raw)
    except (msgspec.DecodeError, RecursionError) as e:
        raise TraceError(f"trace {p} is not valid JSON (truncated?): {e}") from None
    if not isinstance(data, dict):
        raise TraceError(f"trace {p} is not a Kineto trace: the top level is not a JSON object")
    return data


def load(path: str | Path, *, pid: Optional[int] = None, progress: Progress = NO_PROGRESS) -> Trace:
    """Parse the Kineto trace at ``path`` (see the module notes for how).

    ``pid``: the process whose host events to read, for a file that holds several (ranks).
    ``progress``: where the reading is shown (floorcalc.util.progress): the file's bytes read of its
    size, with the events read so far.

    Raises :class:`TraceError` for a missing, empty or non-Kineto file (no ``traceEvents``
    list, or no complete events at all), one cut off before its first complete event, one that
    holds several processes' host events when ``pid`` is not given, and a ``pid`` it lacks.
    """
    p = Path(path)
    _check_file(p)
    with paused(), progress.task(f"reading {p.name}", total=_size(p), unit="bytes") as task:
        stream = EventStream(p, _TYPED, task=task)
        acc = _Acc()
        for batch, typed in stream:
            if typed:
                acc.feed_typed(batch)
            else:
                acc.feed_plain(batch)
            del batch
        task.update(stream.bytes_read, description=f"indexing {p.name}", detail=f"{stream.count:,} events")
        notes = list(stream.notes)
        trace = acc.finish(stream.metadata, str(p), partial=stream.partial, pid=pid, notes=notes)
        del acc, stream
    # what the read freed goes back to the system before the analysis allocates (util/memory.py)
    release_free_memory()
    return trace


def _size(p: Path) -> Optional[int]:
    """The size of the file at ``p`` in bytes (None if it cannot be read: the reader says why)."""
    try:
        return p.stat().st_size
    except OSError:
        return None


def parse(data: Dict[str, Any], path: str = "<memory>", *, pid: Optional[int] = None) -> Trace:
    """Build a :class:`Trace` from an already loaded Kineto JSON object (see :func:`load`)."""
    events = data.get(TRACE_EVENTS)
    if not isinstance(events, list):
        raise TraceError(f"trace {path} is not a Kineto trace: no 'traceEvents' list")
    with paused():
        acc = _Acc()
        for i in range(0, len(events), 20000):
            acc.feed_plain(events[i:i + 20000])
        return acc.finish(data, path, pid=pid)


# ---------------------------------------------------------------------------------------------
# Columns (reading step 3)


def _raw(r: msgspec.Raw) -> bytes:
    return bytes(r)


class _Acc:
    """Columns of the events of one trace, filled batch by batch."""

    def __init__(self) -> None:
        self.name_id: Dict[str, int] = {}
        self.names: List[str] = []
        self.ref_id: Dict[tuple, int] = {}
        self.refs: List[tuple] = []          # (name, dims, types, concrete, strides) raw JSON texts
        self.zero_stride: Dict[bytes, bytes] = {}   # an Input Strides text -> itself if it has a 0 stride, else b""
        self.shape_ref: Dict[Tuple[int, bytes], int] = {}   # (name id, the shape texts joined) -> ref (_refs_of)
        self.op: List[Dict[str, np.ndarray]] = []
        self.rt: List[Dict[str, np.ndarray]] = []
        self.dev: List[Dict[str, np.ndarray]] = []
        # few events: rows of Python values
        self.modules: List[Tuple[float, float, int, int, str]] = []
        self.ranges: List[Tuple[float, float, int, int, str]] = []
        self.steps: List[Tuple[int, float, float, int]] = []
        self.overhead: List[Tuple[str, float, float, int]] = []
        self.syncs: List[Tuple[str, float, float, int, Optional[int], int]] = []
        self.memory: List[Tuple[float, Any, Any, Any, Any, Any, int]] = []
        self.skipped = 0
        self.unknown: Dict[str, int] = {}
        self.old_cats: Dict[str, int] = {}
        self.problems: Dict[str, int] = {}
        self.dropped: Dict[Tuple[str, str], int] = {}
        self.events_read = 0
        self.mtia = 0
        self.privateuse1 = 0
        self.string_ids: set = set()     # string pids/tids met (a few, for the note)
        # collective args (floorcalc.trace.collectives): each distinct set of raw texts once; the
        # "comm" column of ops and device events indexes it (-1: none)
        self.comm_id: Dict[bytes, int] = {}   # the texts joined by NUL -> id
        self.comm_raw: List[tuple] = []
        self.range_args: Dict[tuple, Tuple[bytes, bytes]] = {}   # gloo:* ranges: (Input Dims, Input type)

    def _ids_of(self, names: List[str]) -> np.ndarray:
        """Name ids (each distinct name numbered once, in :attr:`names`)."""
        table, names_l = self.name_id, self.names
        for n in dict.fromkeys(names):
            if n not in table:
                table[n] = len(names_l)
                names_l.append(n)
        return np.fromiter(map(table.__getitem__, names), dtype=np.int64, count=len(names))

    def _comm_of(self, args: List[_Args]) -> np.ndarray:
        """The collective-args id of each event (-1: none), distinct texts numbered once."""
        out = np.full(len(args), -1, dtype=np.int64)
        table, raw = self.comm_id, self.comm_raw
        texts = attrgetter(*_COMM_ATTRS.values())
        # only the events with a "Collective name" are looked at (compress: no Python code per event)
        for i in compress(range(len(args)), map(_A_COLL_NAME, args)):
            parts = texts(args[i])
            joined = _NUL.join(parts)      # looked up as one bytes (NUL: JSON text holds none)
            k = table.get(joined)
            if k is None:
                k = table[joined] = len(raw)
                raw.append(tuple(map(bytes, parts)))
            out[i] = k
        return out

    def comm_args(self, k: int) -> Dict[str, Any]:
        """The collective args of id ``k``, decoded (a value that is not JSON left out)."""
        out: Dict[str, Any] = {}
        for key, text in zip(_COMM_ATTRS, self.comm_raw[k]):
            if text:
                try:
                    out[key] = msgspec.json.decode(text)
                except msgspec.DecodeError:
                    pass
        return out

    def _refs_of(self, name_ids: np.ndarray, args: List[_Args]) -> np.ndarray:
        """The shape reference of each op (-1: no shapes), distinct texts numbered once, in the
        order they are first met.

        A reference is (name, Input Dims (else the older name's), Input type, Concrete Inputs,
        Input Strides when one of them is 0, else nothing). Each op's five shape texts are looked
        up joined in one bytes (NUL between them: JSON text holds none) by ``map``, with no Python
        code per op; only an op whose texts are new to the trace is read one by one."""
        seen, table, refs, names = self.shape_ref, self.ref_id, self.refs, self.names
        keys = list(zip(name_ids.tolist(), map(_NUL.join, map(_A_SHAPES, args))))
        out = list(map(seen.get, keys))
        if None in out:
            zero = self.zero_stride
            for i in compress(range(len(keys)), map(is_, out, repeat(None))):
                key = keys[i]
                k = seen.get(key)
                if k is None:
                    a = args[i]
                    d = a.dims or a.dims_old
                    if not d:
                        k = -1
                    else:
                        st = bytes(a.strides)
                        kept = zero.get(st)
                        if kept is None:
                            kept = zero[st] = st if st and _ZERO_STRIDE.search(st) else b""
                        ref = (key[0], bytes(d), bytes(a.types), bytes(a.concrete), kept)
                        k = table.get(ref)
                        if k is None:
                            k = table[ref] = len(refs)
                            refs.append((names[key[0]],) + ref[1:])
                    seen[key] = k
                out[i] = k
        return np.array(out, dtype=np.int64)

    # -----------------------------------------------------------------------------------------

    def feed_plain(self, events: List[Any]) -> None:
        """Add a batch of plain-JSON events, each checked (see :func:`_sanitize`)."""
        typed = []
        for ev in events:
            e = _sanitize(ev, self.problems)
            if e is None:
                self.skipped += 1
                self.events_read += 1
            else:
                typed.append(e)
        self.feed_typed(typed)

    def feed_typed(self, evs: List[_Event]) -> None:
        """Add a batch of events decoded into :class:`_Event` structs."""
        self.events_read += len(evs)
        cat_kind, complete, instant, memory = _CAT_KIND, COMPLETE, INSTANT, MEMORY_EVENT
        kinds = np.array([cat_kind.get(e.cat, 0) if e.ph == complete else
                          (_MEM if e.name == memory and e.ph in instant else -1) for e in evs],
                         dtype=np.int8)
        # the kinds met, ascending (a count per kind: np.unique sorts a copy, 0.3 ms a batch)
        per_kind = np.bincount(kinds.astype(np.intp) + 1)
        present = set((np.flatnonzero(per_kind) - 1).tolist())
        # each kind's rows, in row order: one stable sort of the kinds, cut at the counts
        by_kind = np.argsort(kinds, kind="stable")
        cuts = np.concatenate([[0], np.cumsum(per_kind)]).tolist()

        def pick(kind: int) -> List[_Event]:
            idx = by_kind[cuts[kind + 1]:cuts[kind + 2]].tolist()
            return [evs[idx[0]]] if len(idx) == 1 else list(itemgetter(*idx)(evs))

        if -1 in present:
            self.skipped += int(per_kind[0])
        if 0 in present:
            cats0 = list(map(_E_CAT, pick(0)))
            self.skipped += len(cats0)
            for c in dict.fromkeys(cats0):   # in the order first met, as the notes list ties
                if c not in KNOWN_UNUSED:
                    self.unknown[c] = self.unknown.get(c, 0) + cats0.count(c)

        for kind in present:
            if kind <= 0:
                continue
            sub = pick(kind)
            cats = set(map(_E_CAT, sub))
            for c in cats & OLD_CATEGORIES.keys():
                self.old_cats[c] = self.old_cats.get(c, 0) + sum(1 for e in sub if e.cat == c)
            if kind == _OP:
                self.op.append(self._host_columns(sub, ops=True))
            elif kind == _RT:
                if "mtia_runtime" in cats:
                    self.mtia += 1
                if cats & {"privateuse1_runtime", "privateuse1_driver"}:
                    self.privateuse1 += 1
                self.rt.append(self._host_columns(sub, ops=False))
            elif kind in (_KERNEL, _MEMCPY, _MEMSET):
                self.dev.append(self._device_columns(sub, np.full(len(sub), _JOIN_KIND[kind], dtype=np.int8)))
            elif kind == _MTIA_DEV:
                self.mtia += 1
                self._mtia(sub)
            else:
                self._few(kind, sub)

    def _host_columns(self, sub: List[_Event], ops: bool) -> Dict[str, np.ndarray]:
        args = [e.args or _EMPTY_ARGS for e in sub]
        name_ids = self._ids_of([e.name for e in sub])
        cols = {
            "ts": np.array([e.ts for e in sub], dtype=np.float64),
            "dur": np.array([e.dur for e in sub], dtype=np.float64),
            "pid": _lanes([e.pid for e in sub], self.string_ids),
            "tid": _lanes([e.tid for e in sub], self.string_ids),
            "name": name_ids,
            "ext": _ids([a.ext if a.ext is not None else a.ext_old for a in args]),
        }
        if ops:
            cols["ref"] = self._refs_of(name_ids, args)
            cols["comm"] = self._comm_of(args)
        else:
            cols["corr"] = _ids([a.correlation for a in args])
        return cols

    def _device_columns(self, sub: List[_Event], kind: np.ndarray) -> Dict[str, np.ndarray]:
        args = [e.args or _EMPTY_ARGS for e in sub]
        nbytes = _ids([a.bytes if a.bytes is not None else a.size for a in args])
        negative = nbytes < 0
        negative &= nbytes != _NONE
        if negative.any():
            k = int(np.count_nonzero(negative))
            key = "device events with a negative byte count read without one"
            self.problems[key] = self.problems.get(key, 0) + k
            nbytes[negative] = _NONE
        device = _ids([a.device if a.device is not None else a.in_device for a in args])
        src, dst = _ids([a.from_device for a in args]), _ids([a.to_device for a in args])
        # a copy between two devices: the end other than the one it ran on
        peer = np.where((src != _NONE) & (dst != _NONE) & (src != dst), np.where(dst == device, src, dst), _NONE)
        pid = np.array([p if type(p) is int and 0 <= p < (1 << 31) else _NONE for p in (e.pid for e in sub)],
                       dtype=np.int64)
        device = np.where(device == _NONE, pid, device)   # Kineto's device lanes: pid = device index
        return {
            "kind": kind,
            "ts": np.array([e.ts for e in sub], dtype=np.float64),
            "dur": np.array([e.dur for e in sub], dtype=np.float64),
            "name": self._ids_of([e.name for e in sub]),
            "corr": _ids([a.correlation for a in args]),
            "ext": _ids([a.ext if a.ext is not None else a.ext_old for a in args]),
            "device": device,
            "stream": _ids([a.stream for a in args]),
            "bytes": nbytes,
            "comm": self._comm_of(args),
            "bw": np.array([_raw_number(a.bandwidth) for a in args], dtype=np.float64),
            "peer": peer,
        }

    def _mtia(self, sub: List[_Event]) -> None:
        """MTIA device events: DMA requests as memcpys, event records/waits as device syncs,
        the rest as kernels (timeline only: no op launched them through a correlation id)."""
        work = [e for e in sub if e.name not in MTIA_SYNC_EVENTS]
        if work:
            kind = np.array([_JOIN_KIND[_MEMCPY] if e.name in MTIA_COPY_EVENTS else _JOIN_KIND[_KERNEL] for e in work],
                            dtype=np.int8)
            self.dev.append(self._device_columns(work, kind))
        for e in sub:
            if e.name in MTIA_SYNC_EVENTS:
                a = e.args or _EMPTY_ARGS
                self.syncs.append((e.name, _f(e.ts), _f(e.dur), _int(a.stream) or 0, None, _tid(e.pid)))

    def _few(self, kind: int, sub: List[_Event]) -> None:
        """Annotations, python functions, overhead, syncs and memory instants: rows."""
        for e in sub:
            name = e.name
            ts, dur = _f(e.ts), _f(e.dur)
            if kind == _ANNOT:
                pid, tid = _tid(e.pid), _tid(e.tid)
                m = _STEP_RE.match(name) if name.startswith(STEP_PREFIX) else None
                if m:
                    self.steps.append((int(m.group(1)), ts, dur, pid))
                elif name.startswith(MODULE_RANGE_PREFIX):
                    self.modules.append((ts, dur, pid, tid, name[len(MODULE_RANGE_PREFIX):]))
                else:
                    self.ranges.append((ts, dur, pid, tid, name))
                    if e.args is not None and name.startswith(collectives.RANGE_PREFIXES):
                        self.range_args[(ts, dur, tid, name)] = (bytes(e.args.dims), bytes(e.args.types))
            elif kind == _PY:
                if name.startswith(TORCH_MODULE_PREFIX):
                    self.modules.append((ts, dur, _tid(e.pid), _tid(e.tid), name[len(TORCH_MODULE_PREFIX):]))
                else:
                    self.skipped += 1
            elif kind == _OVERHEAD:
                self.overhead.append((name, ts, dur, _tid(e.pid)))
            elif kind == _SYNC:
                a = e.args or _EMPTY_ARGS
                self.syncs.append((name, ts, dur, _int(a.stream) or 0, _int(a.correlation), _tid(e.pid)))
            else:  # _MEM
                a = e.args or _EMPTY_ARGS
                self.memory.append((ts, a.mem_bytes, a.total_allocated, a.total_reserved, a.device_type,
                                    a.device_id, _tid(e.pid)))

    # -----------------------------------------------------------------------------------------
    # Validation, duplicates, processes (see the module notes), then the join

    def _drop(self, label: str, why: str, k: int) -> None:
        if k:
            self.dropped[(label, why)] = self.dropped.get((label, why), 0) + k

    def _check_times(self, label: str, ts: np.ndarray, dur: Optional[np.ndarray], scale: float) -> np.ndarray:
        """The rows whose times are valid (module notes); the others are counted as dropped."""
        ok = np.isfinite(ts) & (np.abs(ts) < MAX_TIMESTAMP)
        self._drop(label, "without a valid start time", int(np.count_nonzero(~ok)))
        if dur is None:
            return ok
        missing = ok & np.isnan(dur)
        self._drop(label, "without a duration", int(np.count_nonzero(missing)))
        ok &= ~missing
        negative = ok & (dur < 0)
        self._drop(label, "with a negative duration", int(np.count_nonzero(negative)))
        ok &= ~negative
        long = ok & (dur * scale > MAX_DURATION_US)
        self._drop(label, "with a duration over a day", int(np.count_nonzero(long)))
        return ok & ~long

    def _check_rows(self, label: str, rows: list, ts_at: int, dur_at: Optional[int], scale: float) -> list:
        if not rows:
            return rows
        ts = np.array([r[ts_at] for r in rows], dtype=np.float64)
        dur = None if dur_at is None else np.array([r[dur_at] for r in rows], dtype=np.float64)
        ok = self._check_times(label, ts, dur, scale).tolist()
        return [r for r, good in zip(rows, ok) if good]

    def _unique_rows(self, label: str, rows: list) -> list:
        seen: set = set()
        out = []
        for r in rows:
            if r in seen:
                self._dupes[label] = self._dupes.get(label, 0) + 1
            else:
                seen.add(r)
                out.append(r)
        return out

    def finish(self, data: Dict[str, Any], path: str, partial: str = "", pid: Optional[int] = None,
               notes: Optional[List[str]] = None) -> Trace:
        """The Trace of the columns (validation, then joining steps 1-3 of the module notes)."""
        notes = list(notes or [])
        self._dupes: Dict[str, int] = {}
        op, rt, dev = (_concat(self.op, _OP_COLS), _concat(self.rt, _RT_COLS), _concat(self.dev, _DEV_ALL))
        self.op = self.rt = self.dev = []
        try:
            capture = read_capture_info(data.get(KEY))
        except DocumentError as e:  # a figure out of range: refused, as a spec's is
            raise TraceError(f"trace {path}: {e} (the trace's '{KEY}' metadata, recorded by floorcalc's capture: "
                             "edited, or written by another tool?)") from None
        scale, why = timeunit.decide(data, op, rt, dev, kernel_kind=KIND_CODE["kernel"],
                                     transfer_kinds=(KIND_CODE["memcpy"], KIND_CODE["memset"]),
                                     steps=[(ts, dur) for _n, ts, dur, _p in self.steps],
                                     bare_wall_us=capture.bare_wall_us)
        if why:
            notes.append(why)
        # 1. times, names
        op = _take(op, self._check_times("op", op["ts"], op["dur"], scale))
        rt = _take(rt, self._check_times("runtime call", rt["ts"], rt["dur"], scale))
        keep = np.ones(len(dev["ts"]), dtype=bool)
        for code, kind_name in enumerate(EVENT_KINDS):
            sel = dev["kind"] == code
            if sel.any():
                keep[sel] = self._check_times(kind_name, dev["ts"][sel], dev["dur"][sel], scale)
        dev = _take(dev, keep)
        self.steps = self._check_rows("ProfilerStep range", self.steps, 1, 2, scale)
        self.modules = self._check_rows("module range", self.modules, 0, 1, scale)
        self.ranges = self._check_rows("user range", self.ranges, 0, 1, scale)
        self.overhead = self._check_rows("profiler overhead event", self.overhead, 1, 2, scale)
        self.syncs = self._check_rows("device sync", self.syncs, 1, 2, scale)
        self.memory = self._check_rows("memory event", self.memory, 0, None, scale)
        unnamed = self.name_id.get("")
        if unnamed is not None:
            self.names[unnamed] = UNNAMED
            for what, cols in (("op", op), ("runtime call", rt), ("device event", dev)):
                n_unnamed = int(np.count_nonzero(cols["name"] == unnamed))
                if n_unnamed:
                    self.problems[f"{what}s without a name read as {UNNAMED}"] = n_unnamed
        self.ranges = [r if r[4] else r[:4] + (UNNAMED,) for r in self.ranges]
        # 2. exact duplicates
        op = _take(op, self._first_copies("op", op, _OP_COLS))
        rt = _take(rt, self._first_copies("runtime call", rt, _RT_COLS))
        dev = _take(dev, self._first_copies("device event", dev, _DEV_COLS))
        self.steps = self._unique_rows("ProfilerStep range", self.steps)
        self.modules = self._unique_rows("module range", self.modules)
        self.ranges = self._unique_rows("user range", self.ranges)
        self.overhead = self._unique_rows("profiler overhead event", self.overhead)
        self.syncs = self._unique_rows("device sync", self.syncs)
        self.memory = self._unique_rows("memory event", self.memory)
        # 3. processes
        op, rt, dev = self._one_process(op, rt, dev, pid, path, notes)

        n_ops, n_dev = len(op["ts"]), len(dev["ts"])
        if not n_ops and not n_dev:
            if partial:
                raise TraceError(f"trace {path} is truncated before any profiler event (no cpu_op, kernel or "
                                 "memcpy events)")
            if self.steps:
                raise TraceError(f"trace {path}: its {len(self.steps)} ProfilerStep range(s) ran no op and no device "
                                 "work: there is nothing to analyse (did the step run the model?)")
            raise TraceError(f"trace {path} has no profiler events (no cpu_op, kernel or memcpy events): not a "
                             "Kineto trace?")
        names = self.names
        if partial and not n_dev and (data.get(DEVICE_PROPERTIES) or any(
                names[i].startswith(("cuda", "cu", "hip")) for i in rt["name"][:1000].tolist())):
            partial += f"; {NO_DEVICE_EVENT}, so only host-side figures remain"
        notes.extend(self._notes())
        for c in ("ts", "dur"):
            op[c] = op[c] * scale
            rt[c] = rt[c] * scale
            dev[c] = dev[c] * scale
        steps = sorted((Step(num, ts * scale, dur * scale) for num, ts, dur, _p in self.steps), key=lambda s: s.ts_us)
        modules = [(ts * scale, dur * scale, p, tid, name) for ts, dur, p, tid, name in self.modules]

        # the format-neutral join (floorcalc.trace.join): the op calls are the shape texts' calls
        op["call"] = op["ref"]
        joined: Joined = join(self.names, op, rt, dev, modules, steps, self._calls(op["ref"]))
        ops, runtime, gpu = joined.ops, joined.runtime, joined.gpu
        self._op_comm = op["comm"][joined.op_order]
        self._dev_comm = dev["comm"][joined.device_order]
        devices = _device_properties(data.get(DEVICE_PROPERTIES))
        op_cols = ops.columns()
        has_shapes = any(op_cols.calls[c] is not None for c in np.unique(op_cols.call[op_cols.call >= 0]).tolist())
        del op_cols
        metadata = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in data.items()
                    if k not in (TRACE_EVENTS, DEVICE_PROPERTIES)}
        metadata["skipped_events"] = str(self.skipped)
        if scale != 1.0:
            metadata["time_scale"] = str(scale)
        # the runtime calls keep the columns' order (join): their first and last 2,000 names, each once
        ends = set(rt["name"][:2000].tolist()) | set(rt["name"][-2000:].tolist())
        if any(names[i].startswith("hip") for i in ends):
            notes.append("ROCm trace: hip* runtime calls are read like their CUDA counterparts "
                         "(hipLaunchKernel as cudaLaunchKernel, hipMemcpyAsync as cudaMemcpyAsync...)")
        range_rows = sorted(self.ranges, key=lambda r: r[0])
        ranges = tuple(UserRange(name, ts * scale, dur * scale, tid) for ts, dur, _pid, tid, name in range_rows)
        overhead = tuple(sorted((ProfilerOverhead(n, ts * scale, d * scale) for n, ts, d, _p in self.overhead),
                                key=lambda o: o.ts_us))
        syncs = tuple(sorted((DeviceSync(n, ts * scale, d * scale, s, c) for n, ts, d, s, c, _p in self.syncs),
                             key=lambda s: s.ts_us))
        memory = tuple(sorted(_memory_samples(self.memory, scale), key=lambda m: m.ts_us))
        from floorcalc.trace.graphs import attribute_graph_replays

        dist, why = collectives.read_distributed_info(data.get(DISTRIBUTED_INFO))
        host = data.get(HOST_NAME)
        if dist is not None and isinstance(host, str) and host:
            dist = dataclasses.replace(dist, host=host)
        if why:
            notes.append(f"distributedInfo not read: {why}")
        comms = collectives.build(ops, gpu, self._final_comm(self._op_comm), self._final_comm(self._dev_comm), dist,
                                  ranges=ranges, range_args=self._range_args(range_rows))
        return attribute_graph_replays(Trace(
            path=path, ops=ops, runtime=runtime, gpu=tuple(gpu), steps=tuple(steps), devices=devices,
            has_shapes=has_shapes, metadata=metadata, ranges=ranges, memory=memory, overhead=overhead,
            device_syncs=syncs, notes=tuple(notes), partial=partial, capture=capture,
            collectives=comms, distributed=dist))

    def _final_comm(self, ids: np.ndarray) -> Dict[int, Dict[str, Any]]:
        """Index (in the final records) -> collective args, for the events that have them; each
        distinct set decoded once and its dict shared (collectives.build only reads them)."""
        at = np.flatnonzero(ids >= 0)
        decoded = {k: self.comm_args(k) for k in np.unique(ids[at]).tolist()}
        return dict(zip(at.tolist(), map(decoded.__getitem__, ids[at].tolist())))

    def _range_args(self, rows: List[Tuple[float, float, int, int, str]]) -> Dict[int, Dict[str, Any]]:
        """Index in the sorted ranges -> the args of a gloo:* range (floorcalc.trace.collectives)."""
        out: Dict[int, Dict[str, Any]] = {}
        for i, (ts, dur, _pid, tid, name) in enumerate(rows):
            raw = self.range_args.get((ts, dur, tid, name))
            if raw is None:
                continue
            args: Dict[str, Any] = {}
            for key, text in zip((INPUT_DIMS, INPUT_TYPES), raw):
                if text:
                    try:
                        args[key] = msgspec.json.decode(text)
                    except msgspec.DecodeError:
                        pass
            out[i] = args
        return out

    def _notes(self) -> List[str]:
        """What the reader dropped, repaired and recognised, one counted note each."""
        out = []
        for (label, why), k in sorted(self.dropped.items()):
            out.append(f"{k:,} {_plural(label, k)} {why} dropped")
        for text, k in sorted(self.problems.items()):
            out.append(f"{k:,} {text}")
        if self._dupes:
            parts = ", ".join(f"{k:,} {_plural(label, k)}" for label, k in sorted(self._dupes.items()))
            out.append(f"exact duplicate events collapsed to one: {parts} (every field read was equal)")
        if self.unknown:
            listed = ", ".join(f"{c} ({k:,})" for c, k in sorted(self.unknown.items(), key=lambda x: -x[1])[:8])
            out.append(f"skipped {sum(self.unknown.values()):,} events of categories floorcalc does not know: {listed}")
        if self.old_cats:
            listed = ", ".join(f"{c} as {OLD_CATEGORIES[c]}" for c in sorted(self.old_cats))
            out.append(f"older Kineto format: categories read as today's ({listed}; 'external id' as 'External id')")
        if self.string_ids:
            listed = ", ".join(repr(v) for v in sorted(self.string_ids)[:4])
            out.append(f"string pids/tids ({listed}...) read as stable numeric ids")
        if self.mtia:
            out.append("MTIA trace: mtia_runtime calls are read as runtime calls and mtia_ccp_events as device "
                       "events (DMA requests as memcpys, event records and waits as syncs): timeline only, "
                       "no op is joined to them")
        elif self.privateuse1:
            out.append("PrivateUse1 device trace: privateuse1_runtime calls are read as runtime calls")
        return out

    def _first_copies(self, label: str, cols: Dict[str, np.ndarray], keys: Tuple[str, ...]) -> np.ndarray:
        """Rows that are not an exact copy of an earlier row (every column equal)."""
        n = len(cols["ts"])
        keep = np.ones(n, dtype=bool)
        if n < 2:
            return keep
        # a copy shares its start with the row it copies: only rows whose start repeats can be one
        # (a stable sort of the starts, which come nearly sorted, is quick; the hash's sort is not)
        ts = cols["ts"]
        by_ts = np.argsort(ts, kind="stable")
        repeat_ts = ts[by_ts[1:]] == ts[by_ts[:-1]]
        if not repeat_ts.any():
            return keep
        rows = np.unique(np.concatenate([by_ts[1:][repeat_ts], by_ts[:-1][repeat_ts]]))
        # a cheap hash of every column of those rows; only rows whose hash repeats are compared in full
        h = np.zeros(len(rows), dtype=np.uint64)
        for i, k in enumerate(keys):
            v = cols[k][rows]
            v = v.view(np.uint64) if v.dtype == np.float64 else v.astype(np.int64).view(np.uint64)
            h ^= (v + np.uint64(0x9E3779B97F4A7C15 + i)) * np.uint64(0xBF58476D1CE4E5B9)
            h = (h << np.uint64(7)) | (h >> np.uint64(57))
        order = np.argsort(h, kind="stable")
        hs = h[order]
        same = hs[1:] == hs[:-1]
        if not same.any():
            return keep
        cand = rows[np.unique(np.concatenate([order[1:][same], order[:-1][same]]))]
        values = list(zip(*(cols[k][cand].tolist() for k in keys)))
        seen: set = set()
        for i, r in zip(cand.tolist(), values):
            if r in seen:
                keep[i] = False
            else:
                seen.add(r)
        n_copies = int(np.count_nonzero(~keep))
        if n_copies:
            self._dupes[label] = self._dupes.get(label, 0) + n_copies
        return keep

    def _one_process(self, op, rt, dev, pid: Optional[int], path: str, notes: List[str]):
        """The columns of one process's host events (see the module notes)."""
        # the processes that ran ops (runtime calls where there is no op: a device lane may
        # hold runtime calls of its own, and a stray range another pid)
        host = set(np.unique(op["pid"] if len(op["pid"]) else rt["pid"]).tolist())
        if pid is None:
            if len(host) <= 1:
                return op, rt, dev
            listed = ", ".join(str(p) for p in sorted(host)[:16]) + (" ..." if len(host) > 16 else "")
            raise TraceError(f"trace {path} holds the host events of {len(host)} processes (pids {listed}): "
                             "floorcalc reads one process at a time; choose one with --pid PID")
        if pid not in host:
            listed = ", ".join(str(p) for p in sorted(host)[:16])
            raise TraceError(f"trace {path} has no host events of pid {pid} (its processes: {listed or 'none'})")
        op = _take(op, op["pid"] == pid)
        rt = _take(rt, rt["pid"] == pid)
        corr = rt["corr"][rt["corr"] != _NONE]
        used = np.unique(dev["device"][np.isin(dev["corr"], corr)])
        dev = _take(dev, np.isin(dev["device"], used))
        used_l = set(used.tolist())
        self.steps = [s for s in self.steps if s[3] == pid]
        self.modules = [m for m in self.modules if m[2] == pid]
        self.ranges = [r for r in self.ranges if r[2] == pid]
        self.overhead = [o for o in self.overhead if o[3] == pid]
        corr_l = set(corr.tolist())
        self.syncs = [s for s in self.syncs if s[4] in corr_l or (s[4] is None and s[5] in used_l)]
        self.memory = [m for m in self.memory if m[6] == pid]
        if len(host) > 1:
            others = ", ".join(str(p) for p in sorted(host - {pid})[:16])
            devs = ", ".join(str(d) for d in sorted(used_l)) or "none"
            notes.append(f"read the host events of pid {pid} only (the trace also holds pids {others}), with the "
                         f"device events on the device(s) it launched work to ({devs})")
        return op, rt, dev

    def _calls(self, refs: np.ndarray) -> List[Optional[OpCall]]:
        """The OpCall of each shape reference id (the join's ``calls``), built once per distinct
        (name, shape texts) among ``refs``, the ops' references; None where none is built."""
        table: List[Optional[OpCall]] = [None] * len(self.refs)
        decode = msgspec.json.decode
        texts: Dict[bytes, Any] = {}

        def value(raw: bytes) -> Any:
            if not raw:
                return None
            v = texts.get(raw, texts)
            if v is texts:
                try:
                    v = decode(raw)
                except (msgspec.DecodeError, RecursionError):
                    v = None
                texts[raw] = v
            return v

        for r in np.unique(refs).tolist():
            if r < 0:
                continue
            name, dims, types, concrete, strides = self.refs[r]
            args = {INPUT_DIMS: value(dims)}
            if types:
                args[INPUT_TYPES] = value(types)
            if concrete:
                args[CONCRETE_INPUTS] = value(concrete)
            if strides:  # kept only when a stride is 0 (an expanded view): floorcalc.trace.args
                args[INPUT_STRIDES] = value(strides)
            try:
                table[r] = op_call_from_kineto(name, args)
            except (TypeError, ValueError, OverflowError, RecursionError):
                table[r] = None
        return table


_OP_COLS = ("ts", "dur", "pid", "tid", "name", "ext", "ref", "comm")
_RT_COLS = ("ts", "dur", "pid", "tid", "name", "ext", "corr")
_DEV_COLS = ("kind", "ts", "dur", "name", "corr", "ext", "device", "stream", "bytes", "comm")
#: every device column: _DEV_COLS (which also tell duplicates), Kineto's memcpy bandwidth, a peer copy's other end
_DEV_ALL = _DEV_COLS + ("bw", "peer")
_DTYPES = {"ts": np.float64, "dur": np.float64, "kind": np.int8, "bw": np.float64}


def _concat(parts: List[Dict[str, np.ndarray]], keys: Tuple[str, ...]) -> Dict[str, np.ndarray]:
    if not parts:
        return {k: np.zeros(0, dtype=_DTYPES.get(k, np.int64)) for k in keys}
    if len(parts) == 1:
        return dict(parts[0])
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def _take(cols: Dict[str, np.ndarray], mask: np.ndarray) -> Dict[str, np.ndarray]:
    if mask.all():
        return cols
    return {k: v[mask] for k, v in cols.items()}


def _f(x: Optional[float]) -> float:
    return math.nan if x is None else x


def _raw_number(r: msgspec.Raw) -> float:
    """A raw JSON value as a finite float; NaN when it is absent or not a number ("N/A")."""
    if not r:
        return math.nan
    try:
        v = msgspec.json.decode(r)
    except msgspec.DecodeError:
        return math.nan
    return float(v) if type(v) in (int, float) and math.isfinite(v) else math.nan


def _plural(label: str, k: int) -> str:
    if k == 1:
        return label
    return label[:-1] + "ies" if label.endswith("y") and not label.endswith("ey") else label + "s"


def _memory_samples(rows, scale: float) -> Iterator[MemorySample]:
    for ts, nbytes, alloc, reserved, dtype, dev, _pid in rows:
        yield MemorySample(ts_us=ts * scale, bytes=_int(nbytes) or 0, total_allocated_bytes=_int(alloc),
                           total_reserved_bytes=_int(reserved), device_type=_int(dtype) or 0,
                           device=_int(dev) if _int(dev) is not None else -1)  # type: ignore[arg-type]


def _device_properties(props: Any) -> Tuple[GpuProperties, ...]:
    """The GPUs of a trace's ``deviceProperties`` (kineto_fields.DEVICE_PROPERTY_FIELDS)."""
    if not isinstance(props, list):
        return ()
    f = DEVICE_PROPERTY_FIELDS
    out = []
    for p in props:
        if not isinstance(p, dict):
            continue
        major, minor = p.get(f["compute_major"]), p.get(f["compute_minor"])
        out.append(GpuProperties(
            id=_int(p.get(f["id"])) or 0,
            name=str(p.get(f["name"], "")),
            total_memory_bytes=_int(p.get(f["total_memory_bytes"])),
            sm_count=_int(p.get(f["sm_count"])),
            compute_capability=f"{major}.{minor}" if major is not None else None,
            warp_size=_int(p.get(f["warp_size"])),
            gcn_arch_name=str(next((v for v in map(p.get, GCN_ARCH_FIELDS) if v), "")) or None,
        ))
    return tuple(out)
