"""Read a Kineto (PyTorch profiler) trace into a :class:`~floorcalc.records.Trace`.

Accepts ``.json`` and ``.json.gz``. Reads the complete (``ph: X``) events of the categories
named in :data:`CATEGORIES` and the ``[memory]`` instant events; every other event is skipped
and counted in ``Trace.metadata["skipped_events"]`` (categories Kineto does not write at all are
also named in ``Trace.notes``).

Reading a file (:func:`load`), in bounded memory:

1. The file is decompressed in pieces and the ``traceEvents`` array is cut into chunks of whole
   events (at ``}, {`` boundaries; a chunk that does not parse is joined to the next one), each
   parsed on its own. The top-level fields around the array are parsed once, as metadata.
2. Before a chunk is parsed, the shape fields of op args (``Concrete Inputs``, ``Input type``,
   ``Input Strides``, ``Input Dims``: most of a trace's JSON values) are cut out as text and
   replaced by a reference into a table of the distinct texts. Only distinct texts are parsed,
   once, when op calls are built, and ops with the same name and texts share one OpCall.
3. Of each event only the fields used are kept, in columns (arrays of numbers, interned names).
4. A file that ends inside the array (a truncated trace) keeps the events read before the cut;
   the Trace says so in ``partial``. With no complete event at all it is an error.

Steps of the join, per trace:

1. Host ops (``cpu_op``), runtime/driver calls (``cuda_runtime``, ``cuda_driver``; on ROCm the
   same categories hold ``hip*`` calls) and module ranges are swept per thread in start-time
   order with a stack, which gives each op its parent op, each runtime call its enclosing op,
   and each op its innermost ``nn.Module``.
2. Each device event (``kernel``, ``gpu_memcpy``, ``gpu_memset``) is joined to the host call that
   issued it through the CUPTI ``correlation`` id, and from there to the op enclosing that call.
   Where no host call matches, the event's ``External id`` is tried against the ops'. An event
   still without an op is kept as unattributed (``op is None``), never dropped.
3. Steps are the ``ProfilerStep#N`` ranges; each op gets the step whose range contains its start.
   Other user ranges (``record_function``) are kept as :class:`UserRange` records.

Times are microseconds. A trace that declares ``"timeUnit": "ns"``, or whose times are all
whole numbers with durations too long to be microseconds (or timestamps past 1e17, Unix time in
ns), is read as nanoseconds and scaled; ``Trace.notes`` says so.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from array import array
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from floorcalc.errors import TraceError
from floorcalc.records import (CpuOp, DeviceSync, EventKind, GpuEvent, GpuProperties, MemorySample, OpCall, ProfilerOverhead,
                               RuntimeCall, Step, Trace, UserRange)
from floorcalc.trace.args import op_call_from_kineto

# event kinds (small ints keep the per-event loop cheap)
_OP, _RT, _KERNEL, _MEMCPY, _MEMSET, _ANNOT, _PY, _OVERHEAD, _SYNC = range(1, 10)
_DEVICE_KINDS: Dict[int, EventKind] = {_KERNEL: "kernel", _MEMCPY: "memcpy", _MEMSET: "memset"}

#: Categories read; the names Kineto has used for them across torch versions.
CATEGORIES = {
    "cpu_op": "op",
    "operator": "op",
    "cuda_runtime": "runtime",
    "cuda_driver": "runtime",
    "runtime": "runtime",
    "kernel": "kernel",
    "gpu_memcpy": "memcpy",
    "gpu_memset": "memset",
    "user_annotation": "annotation",
    "python_function": "python",
    "overhead": "overhead",
    "cuda_sync": "sync",
}
_KIND_OF = {"op": _OP, "runtime": _RT, "kernel": _KERNEL, "memcpy": _MEMCPY, "memset": _MEMSET,
            "annotation": _ANNOT, "python": _PY, "overhead": _OVERHEAD, "sync": _SYNC}
_CAT_KIND = {cat: _KIND_OF[k] for cat, k in CATEGORIES.items()}

#: Categories Kineto writes that floorcalc does not use (skipped without a note).
KNOWN_UNUSED = {
    "Trace", "ac2g", "fwdbwd", "gpu_user_annotation", "cpu_instant_event", "external_correlation",
    "cuda_profiler_range", "glow_runtime", "mtia_runtime", "mtia_ccp_events", "mtia_insight",
    "hpu_op", "xpu_runtime", "xpu_driver", "privateuse1_runtime", "privateuse1_driver", "collective_comm",
    "gpu_pm_counter", "cuda_graph", "cuda_event", "gpu_mem",
}

#: Prefix of the module ranges floorcalc's capture records around each ``nn.Module`` call.
MODULE_RANGE_PREFIX = "module: "
#: Prefix of the module ranges torch.profiler's ``with_modules=True`` records.
TORCH_MODULE_PREFIX = "nn.Module: "

_STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")

# ---------------------------------------------------------------------------------------------
# Shape fields cut out of op args before JSON parsing (reading step 2)

_SHAPE_FIELDS = (b"Concrete Inputs", b"Input type", b"Input Strides", b"Input Dims")
_SHAPE_KEY = {f: f"_fc{i}".encode() for i, f in enumerate(_SHAPE_FIELDS, 1)}
_FIELD_NAMES = rb"Concrete Inputs|Input (?:type|Strides|Dims)"
#: A run of consecutive shape fields: from a shape key to the ``]`` that is followed by the end
#: of the args object or by a key that is not a shape field. (A string value holding such a
#: sequence would cut the run short; the chunk then does not parse and is parsed uncut.)
_SHAPE_RUN = re.compile(rb'"(' + _FIELD_NAMES + rb')"\s*+:\s*+\[(?:[^\]]*+\])+?'
                        rb'(?=\s*+(?:\}|,\s*+"(?!(?:' + _FIELD_NAMES + rb')")))')
_BOUNDARY = re.compile(rb'\}\s*,\s*\{')
_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')

_CHUNK_BYTES = 4 << 20   # events parsed at a time
_READ_BYTES = 1 << 20    # compressed bytes read at a time


class _ShapeTable:
    """The distinct shape-field texts of a trace, and the OpCalls built from them."""

    def __init__(self) -> None:
        self.ids: Dict[bytes, int] = {}
        self.texts: List[bytes] = []
        self._parsed: Dict[int, Dict[str, Any]] = {}
        self._calls: Dict[Tuple[str, Any], Optional[OpCall]] = {}

    def cut(self, chunk: bytes) -> bytes:
        """``chunk`` with every run of shape fields replaced by ``"_fcK": id``."""
        ids, texts, keys = self.ids, self.texts, _SHAPE_KEY

        def repl(m: "re.Match[bytes]") -> bytes:
            t = m.group(0)
            i = ids.get(t)
            if i is None:
                i = ids[t] = len(texts)
                texts.append(t)
            return b'"%s":%d' % (keys[m.group(1)], i)

        return _SHAPE_RUN.sub(repl, chunk)

    def fields(self, i: int) -> Dict[str, Any]:
        """The shape fields of text ``i`` (none if the text is not whole JSON fields)."""
        d = self._parsed.get(i)
        if d is None:
            try:
                d = _loads(b"{" + self.texts[i] + b"}")
            except ValueError:
                d = {}
            self._parsed[i] = d if isinstance(d, dict) else {}
            d = self._parsed[i]
        return d

    def call(self, name: str, ref: Any) -> Optional[OpCall]:
        """The OpCall of op ``name`` whose shape reference is ``ref`` (see :meth:`_Acc.feed`)."""
        if ref is None:
            return None
        if isinstance(ref, tuple):
            key = (name, ref)
            if key in self._calls:
                return self._calls[key]
            args: Dict[str, Any] = {}
            for i in ref:
                if i is not None:
                    args.update(self.fields(i))
            c = self._calls[key] = op_call_from_kineto(name, args)
            return c
        # a dict of args (a trace parsed whole, or fields the cutter left in place)
        if any(k.startswith("_fc") for k in ref):
            args = {k: v for k, v in ref.items() if not k.startswith("_fc")}
            for k, v in ref.items():
                if k.startswith("_fc") and isinstance(v, int):
                    args.update(self.fields(v))
            ref = args
        return op_call_from_kineto(name, ref)


# ---------------------------------------------------------------------------------------------
# JSON


def _loads(raw: bytes) -> Any:
    try:
        import orjson
    except ImportError:  # orjson is a declared dependency, but the source tree may run without it
        return json.loads(raw)
    return orjson.loads(raw)


def _check_file(p: Path) -> None:
    if not p.exists():
        raise TraceError(f"trace not found: {p}")
    if p.is_dir():
        raise TraceError(f"trace is a directory, not a file: {p}")


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
        raise TraceError(f"cannot read trace {p}: {e.strerror or e}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error):
            raise TraceError(f"trace {p} is a truncated or corrupt gzip file") from None
    return _object(raw, p)


def _object(raw: bytes, p: Any) -> Dict[str, Any]:
    if not raw.strip():
        raise TraceError(f"trace {p} is empty")
    try:
        data = _loads(raw)
    except ValueError as e:
        raise TraceError(f"trace {p} is not valid JSON (truncated?): {e}") from None
    if not isinstance(data, dict):
        raise TraceError(f"trace {p} is not a Kineto trace: the top level is not a JSON object")
    return data


class _Pieces:
    """The decompressed bytes of a trace file, a piece at a time.

    ``truncated`` is set when a gzip stream ends early or is corrupt (the pieces before the
    fault are still given).
    """

    def __init__(self, p: Path) -> None:
        self.p = p
        self.truncated = ""

    def __iter__(self) -> Iterator[bytes]:
        try:
            f = open(self.p, "rb")
        except OSError as e:
            raise TraceError(f"cannot read trace {self.p}: {e.strerror or e}") from None
        with f:
            head = f.read(_READ_BYTES)
            if head[:2] != b"\x1f\x8b":
                while head:
                    yield head
                    head = f.read(_READ_BYTES)
                return
            d = zlib.decompressobj(wbits=31)
            block = head
            while True:
                try:
                    out = d.decompress(block)
                except zlib.error:
                    self.truncated = "its gzip stream is corrupt"
                    return
                if out:
                    yield out
                if d.eof:
                    rest = d.unused_data
                    if rest and rest[:2] == b"\x1f\x8b":   # concatenated gzip members
                        d = zlib.decompressobj(wbits=31)
                        block = rest
                        continue
                    return
                block = f.read(_READ_BYTES)
                if not block:
                    tail = d.flush()
                    if tail:
                        yield tail
                    self.truncated = "its gzip stream ends early"
                    return


class _NoCycleCollection:
    """The cyclic garbage collector paused while a trace is read: the reader makes a million
    objects and no reference cycles, and each collection would scan them all again."""

    def __enter__(self) -> None:
        import gc

        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: Any) -> None:
        import gc

        if self.was:
            gc.enable()


def load(path: str | Path) -> Trace:
    """Parse the Kineto trace at ``path`` (see the module notes for how).

    Raises :class:`TraceError` for a missing, empty or non-Kineto file (no ``traceEvents``
    list, or no complete events at all), and for one cut off before its first complete event.
    """
    with _NoCycleCollection():
        return _load(Path(path))


def _load(p: Path) -> Trace:
    """:func:`load` with the collector paused."""
    _check_file(p)
    pieces = _Pieces(p)
    acc = _Acc()
    buf = b""
    it = _ahead(iter(pieces))
    start = -1
    # find the traceEvents array
    for piece in it:
        buf += piece
        m = _EVENTS_KEY.search(buf)
        if m and buf.lstrip()[:1] == b"{":
            start = m.end()
            break
        if len(buf) > (64 << 20) and buf.lstrip()[:1] != b"{":
            break
    if start < 0:
        for piece in it:
            buf += piece
        if pieces.truncated:
            raise TraceError(f"trace {p} is a truncated or corrupt gzip file")
        data = _object(buf, p)
        return parse(data, str(p))
    head, buf = buf[:m.start()], buf[start:]  # type: ignore[union-attr]
    eof = False
    broken = ""
    failed = 0       # the first cut of a chunk that did not parse
    retry = 0        # the last cut tried: the next try extends past it
    tries = 0

    def more() -> None:
        nonlocal buf, eof
        piece = next(it, None)
        if piece is None:
            eof = True
        else:
            buf += piece

    while True:
        while not eof and len(buf) < 2 * _CHUNK_BYTES:
            more()
        if retry:                                  # the boundary was inside an event: a longer chunk
            nxt = _BOUNDARY.search(buf, retry)
            cut = nxt.start() + 1 if nxt else 0
        else:
            cut = _last_boundary(buf, len(buf) if eof else _CHUNK_BYTES)
            if cut == 0:
                first = _BOUNDARY.search(buf)      # an event longer than a chunk
                cut = first.start() + 1 if first else 0
        if cut == 0:
            if eof:
                if failed:
                    broken = _salvage(buf[:failed], acc)
                break
            more()
            continue
        events = _try_events(buf[:cut], acc.shapes)
        if events is None:
            tries += 1
            failed = failed or cut
            retry = cut
            if tries > 16:
                broken = _salvage(buf[:failed], acc)
                break
            continue
        acc.feed(events)
        buf = buf[cut:].lstrip(b" \t\r\n,")
        failed = retry = tries = 0
    # buf holds the last event, the array's end and the top-level fields after it
    tail = None if broken else _close(buf, acc)
    count = acc.events_read
    partial = ""
    if tail is None:
        if count == 0:
            if pieces.truncated:
                raise TraceError(f"trace {p} is a truncated or corrupt gzip file")
            raise TraceError(f"trace {p} is not valid JSON (truncated?): no complete event in its traceEvents array")
        why = pieces.truncated or broken or "its traceEvents array is not closed"
        partial = f"the trace is truncated ({why}): read the first {count:,} events; figures cover only them"
        tail = b"}"
    meta = _metadata(head, tail)
    return acc.finish(meta, str(p), partial=partial)


def _salvage(text: bytes, acc: "_Acc") -> str:
    """Feed the longest run of whole events at the start of ``text`` (a chunk that does not
    parse); return why the rest cannot be read."""
    cuts = [m.start() + 1 for m in _BOUNDARY.finditer(text)]
    lo, hi, best = 0, len(cuts) - 1, None
    while lo <= hi:                 # the longest prefix, at an event boundary, that parses
        mid = (lo + hi) // 2
        events = _try_events(text[:cuts[mid]], acc.shapes)
        if events is None:
            hi = mid - 1
        else:
            lo, best = mid + 1, events
    if best:
        acc.feed(best)
    return f"it is not valid JSON after event {acc.events_read:,}"


def _ahead(it: Iterator[bytes], depth: int = 4) -> Iterator[bytes]:
    """``it`` run in a thread a few pieces ahead: reading and decompressing (which release the
    GIL) overlap the parsing. An exception in the thread is raised here."""
    import queue
    import threading

    q: "queue.Queue[Any]" = queue.Queue(maxsize=depth)
    done = object()
    stop = threading.Event()

    def run() -> None:
        try:
            for piece in it:
                while not stop.is_set():
                    try:
                        q.put(piece, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put(done)
        except BaseException as e:  # handed to the reader
            q.put(e)

    t = threading.Thread(target=run, name="floorcalc-read", daemon=True)
    t.start()
    try:
        while True:
            piece = q.get()
            if piece is done:
                return
            if isinstance(piece, BaseException):
                raise piece
            yield piece
    finally:
        stop.set()


def _last_boundary(buf: bytes, limit: int) -> int:
    """Position just after the last ``}`` of an event boundary before ``limit`` (0: none)."""
    k = buf.rfind(b"}", 0, limit)
    while k > 0:
        if _BOUNDARY.match(buf, k):
            return k + 1
        k = buf.rfind(b"}", 0, k)
    return 0


def _try_events(chunk: bytes, shapes: Optional[_ShapeTable] = None) -> Optional[list]:
    """The events of ``chunk`` (whole events separated by commas), shape fields cut out when
    ``shapes`` is given; None if it does not parse."""
    if shapes is not None:
        out = _try_events(shapes.cut(chunk))
        if out is not None:
            return out
    try:
        out = _loads(b"[" + chunk + b"]")
    except ValueError:
        return None
    return out if isinstance(out, list) else None


def _close(buf: bytes, acc: "_Acc") -> Optional[bytes]:
    """Parse the last events and find the array's end in ``buf``; return the text after it.

    None when no ``]`` closes the array (a truncated file).
    """
    q = buf.find(b"]")
    tries = 0
    while q >= 0 and tries < 256:
        events = _try_events(buf[:q], acc.shapes)
        if events is not None:
            acc.feed(events)
            return buf[q + 1:]
        q = buf.find(b"]", q + 1)
        tries += 1
    return None


def _metadata(head: bytes, tail: bytes) -> Dict[str, Any]:
    """The top-level fields around the traceEvents array."""
    text = head + b'"traceEvents": []' + tail
    try:
        d = _loads(text)
        return d if isinstance(d, dict) else {}
    except ValueError:
        pass
    try:  # a truncated file: the fields before the array
        d = _loads(head.rstrip().rstrip(b",") + b"}")
        return d if isinstance(d, dict) else {}
    except ValueError:
        return {}


def parse(data: Dict[str, Any], path: str = "<memory>") -> Trace:
    """Build a :class:`Trace` from an already loaded Kineto JSON object (see :func:`load`)."""
    events = data.get("traceEvents")
    if not isinstance(events, list):
        raise TraceError(f"trace {path} is not a Kineto trace: no 'traceEvents' list")
    with _NoCycleCollection():
        acc = _Acc()
        acc.feed(events)
        return acc.finish(data, path)


# ---------------------------------------------------------------------------------------------
# Accumulating events into columns (reading step 3)


def _int(x: Any) -> Optional[int]:
    if x is None:
        return None
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def _tid(x: Any) -> int:
    """Kineto thread/pid ids are ints, or strings for synthetic lanes; hash those stably."""
    if isinstance(x, int):
        return x
    i = _int(x)
    if i is not None:
        return i
    return -(zlib.crc32(str(x).encode()) & 0x7FFFFFFF) - 1


_NONE = -(1 << 62)   # "no id" in integer columns


def _col(v: Any) -> int:
    """An int for an integer column (:data:`_NONE` for a missing or malformed value)."""
    if type(v) is int:
        return v
    i = _int(v)
    return _NONE if i is None else i


class _Acc:
    """Columns of the events of one trace, filled chunk by chunk."""

    def __init__(self) -> None:
        self.shapes = _ShapeTable()
        self.names: Dict[str, str] = {}
        self.refs: Dict[tuple, tuple] = {}
        # host ops
        self.op_ts, self.op_dur = array("d"), array("d")
        self.op_pid, self.op_tid, self.op_ext = array("q"), array("q"), array("q")
        self.op_name: List[str] = []
        self.op_ref: List[Any] = []
        # runtime calls
        self.rt_ts, self.rt_dur = array("d"), array("d")
        self.rt_pid, self.rt_tid, self.rt_corr, self.rt_ext = array("q"), array("q"), array("q"), array("q")
        self.rt_name: List[str] = []
        # device events
        self.dev_kind = array("b")
        self.dev_ts, self.dev_dur = array("d"), array("d")
        self.dev_corr, self.dev_ext, self.dev_device, self.dev_stream, self.dev_bytes = (
            array("q"), array("q"), array("q"), array("q"), array("q"))
        self.dev_name: List[str] = []
        # module ranges, user ranges, steps, profiler overhead, device syncs, memory
        self.modules: List[Tuple[float, float, int, int, str]] = []
        self.ranges: List[Tuple[float, float, int, int, str]] = []
        self.steps: List[Tuple[int, float, float]] = []
        self.overhead: List[Tuple[str, float, float]] = []
        self.syncs: List[Tuple[str, float, float, int, Optional[int]]] = []
        self.memory: List[Tuple[float, Any, Any, Any, Any, Any]] = []
        self.skipped = 0
        self.unknown: Dict[str, int] = {}
        self.events_read = 0
        self.all_whole = True       # every ts/dur a whole number (a hint of nanoseconds)

    def _name(self, n: Any) -> str:
        if type(n) is not str:
            n = "" if n is None else str(n)
        return self.names.setdefault(n, n)

    def feed(self, events: Iterable[Any]) -> None:  # noqa: C901 - one hot loop, kept flat
        """Add a list of event dicts to the columns."""
        cat_kind = _CAT_KIND
        names = self.names
        refs = self.refs
        n = 0
        for ev in events:
            n += 1
            if type(ev) is not dict:
                self.skipped += 1
                continue
            ph = ev.get("ph")
            if ph != "X":
                if (ph == "i" or ph == "I") and ev.get("name") == "[memory]":
                    self._memory(ev)
                else:
                    self.skipped += 1
                continue
            cat = ev.get("cat")
            kind = cat_kind.get(cat)  # type: ignore[arg-type]
            if kind is None:
                self.skipped += 1
                if cat not in KNOWN_UNUSED:
                    c = str(cat)
                    self.unknown[c] = self.unknown.get(c, 0) + 1
                continue
            ts = ev.get("ts")
            dur = ev.get("dur", 0.0)
            if type(ts) is not float or type(dur) is not float:
                try:
                    ts = float(ts)  # type: ignore[arg-type]
                    dur = float(dur if dur is not None else 0.0)
                except (TypeError, ValueError):
                    self.skipped += 1
                    continue
            elif self.all_whole and (ts % 1.0 or dur % 1.0):
                self.all_whole = False
            name = ev.get("name", "")
            if type(name) is not str:
                name = "" if name is None else str(name)
            name = names.setdefault(name, name)
            args = ev.get("args")
            if kind == _OP:
                pid, tid = ev.get("pid"), ev.get("tid")
                self.op_ts.append(ts)
                self.op_dur.append(dur)
                self.op_pid.append(pid if type(pid) is int else _tid(pid))
                self.op_tid.append(tid if type(tid) is int else _tid(tid))
                self.op_name.append(name)
                if args:
                    ext = args.get("External id")
                    self.op_ext.append(ext if type(ext) is int else _col(ext))
                    ref = (args.get("_fc1"), args.get("_fc2"), args.get("_fc3"), args.get("_fc4"))
                    if ref == (None, None, None, None):
                        ref = args if "Input Dims" in args else None  # type: ignore[assignment]
                    elif "Input Dims" in args or "Input type" in args or "Concrete Inputs" in args:
                        ref = args
                    else:
                        ref = refs.setdefault(ref, ref)
                    self.op_ref.append(ref)
                else:
                    self.op_ext.append(_NONE)
                    self.op_ref.append(None)
            elif kind == _RT:
                pid, tid = ev.get("pid"), ev.get("tid")
                self.rt_ts.append(ts)
                self.rt_dur.append(dur)
                self.rt_pid.append(pid if type(pid) is int else _tid(pid))
                self.rt_tid.append(tid if type(tid) is int else _tid(tid))
                self.rt_name.append(name)
                if args:
                    c, e = args.get("correlation"), args.get("External id")
                    self.rt_corr.append(c if type(c) is int else _col(c))
                    self.rt_ext.append(e if type(e) is int else _col(e))
                else:
                    self.rt_corr.append(_NONE)
                    self.rt_ext.append(_NONE)
            elif kind <= _MEMSET:
                args = args or {}
                self.dev_kind.append(kind)
                self.dev_ts.append(ts)
                self.dev_dur.append(dur)
                self.dev_name.append(name)
                for col, key in ((self.dev_corr, "correlation"), (self.dev_ext, "External id"),
                                 (self.dev_device, "device"), (self.dev_stream, "stream"), (self.dev_bytes, "bytes")):
                    v = args.get(key)
                    col.append(v if type(v) is int else _col(v))
            elif kind == _ANNOT:
                m = _STEP_RE.match(name) if name.startswith("ProfilerStep#") else None
                if m:
                    self.steps.append((int(m.group(1)), ts, dur))
                elif name.startswith(MODULE_RANGE_PREFIX):
                    self.modules.append((ts, dur, _tid(ev.get("pid")), _tid(ev.get("tid")),
                                         self._name(name[len(MODULE_RANGE_PREFIX):])))
                else:
                    self.ranges.append((ts, dur, _tid(ev.get("pid")), _tid(ev.get("tid")), name))
            elif kind == _PY:
                if name.startswith(TORCH_MODULE_PREFIX):
                    self.modules.append((ts, dur, _tid(ev.get("pid")), _tid(ev.get("tid")),
                                         self._name(name[len(TORCH_MODULE_PREFIX):])))
                else:
                    self.skipped += 1
            elif kind == _OVERHEAD:
                self.overhead.append((name, ts, dur))
            else:  # _SYNC
                args = args or {}
                self.syncs.append((name, ts, dur, _int(args.get("stream")) or 0, _int(args.get("correlation"))))
        self.events_read += n

    def _memory(self, ev: Dict[str, Any]) -> None:
        a = ev.get("args") or {}
        try:
            ts = float(ev.get("ts"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            self.skipped += 1
            return
        self.memory.append((ts, a.get("Bytes"), a.get("Total Allocated"), a.get("Total Reserved"),
                            a.get("Device Type"), a.get("Device Id")))

    # -----------------------------------------------------------------------------------------

    def finish(self, data: Dict[str, Any], path: str, partial: str = "") -> Trace:
        """The Trace of the columns (joining steps 1-3 of the module notes)."""
        import numpy as np

        n_ops, n_dev = len(self.op_ts), len(self.dev_ts)
        if not n_ops and not n_dev:
            if partial:
                raise TraceError(f"trace {path} is truncated before any profiler event (no cpu_op, kernel or memcpy events)")
            raise TraceError(f"trace {path} has no profiler events (no cpu_op, kernel or memcpy events): not a Kineto trace?")
        notes: List[str] = []
        if partial and not n_dev and (data.get("deviceProperties") or any(
                n.startswith(("cuda", "cu", "hip")) for n in self.rt_name[:1000])):
            partial += ("; no device event survived the cut (Kineto writes them after the host events), "
                        "so only host-side figures remain")
        scale, why = _time_scale(data, self)
        if scale != 1.0:
            notes.append(why)
        op_ts = np.frombuffer(self.op_ts, dtype=np.float64) * scale
        op_dur = np.frombuffer(self.op_dur, dtype=np.float64) * scale
        rt_ts = np.frombuffer(self.rt_ts, dtype=np.float64) * scale
        rt_dur = np.frombuffer(self.rt_dur, dtype=np.float64) * scale
        steps = sorted((Step(num, ts * scale, dur * scale) for num, ts, dur in self.steps), key=lambda s: s.ts_us)
        modules = [(ts * scale, dur * scale, pid, tid, name) for ts, dur, pid, tid, name in self.modules]

        ops, runtime = self._host(np, op_ts, op_dur, rt_ts, rt_dur, modules, steps)
        gpu = self._device(np, scale, ops, runtime)
        devices = _device_properties(data.get("deviceProperties"))
        has_shapes = any(op.call is not None for op in ops)
        metadata = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in data.items()
                    if k not in ("traceEvents", "deviceProperties")}
        metadata["skipped_events"] = str(self.skipped)
        if scale != 1.0:
            metadata["time_scale"] = str(scale)
        if self.unknown:
            listed = ", ".join(f"{c} ({k:,})" for c, k in sorted(self.unknown.items(), key=lambda x: -x[1])[:8])
            notes.append(f"skipped {sum(self.unknown.values()):,} events of categories floorcalc does not know: {listed}")
        if any(r.name.startswith("hip") for r in runtime[:2000]) or any(r.name.startswith("hip") for r in runtime[-2000:]):
            notes.append("ROCm trace: hip* runtime calls are read like their CUDA counterparts "
                         "(hipLaunchKernel as cudaLaunchKernel, hipMemcpyAsync as cudaMemcpyAsync...)")
        ranges = tuple(sorted((UserRange(name, ts * scale, dur * scale, tid) for ts, dur, _pid, tid, name in self.ranges),
                              key=lambda r: r.ts_us))
        overhead = tuple(sorted((ProfilerOverhead(n, ts * scale, d * scale) for n, ts, d in self.overhead),
                                key=lambda o: o.ts_us))
        syncs = tuple(sorted((DeviceSync(n, ts * scale, d * scale, s, c) for n, ts, d, s, c in self.syncs),
                             key=lambda s: s.ts_us))
        memory = tuple(sorted(_memory_samples(self.memory, scale), key=lambda m: m.ts_us))
        from floorcalc.trace.capture_info import KEY, read_capture_info
        from floorcalc.trace.graphs import attribute_graph_replays

        return attribute_graph_replays(Trace(
            path=path, ops=tuple(ops), runtime=tuple(runtime), gpu=tuple(gpu), steps=tuple(steps), devices=devices,
            has_shapes=has_shapes, metadata=metadata, ranges=ranges, memory=memory, overhead=overhead,
            device_syncs=syncs, notes=tuple(notes), partial=partial, capture=read_capture_info(data.get(KEY))))

    def _host(self, np, op_ts, op_dur, rt_ts, rt_dur, modules, steps) -> Tuple[List[CpuOp], List[RuntimeCall]]:
        """Nest ops, runtime calls and module ranges per thread (join step 1)."""
        n_mod, n_ops, n_rt = len(modules), len(op_ts), len(rt_ts)
        mod_ts = np.array([m[0] for m in modules], dtype=np.float64)
        mod_dur = np.array([m[1] for m in modules], dtype=np.float64)
        mod_pid = np.array([m[2] for m in modules], dtype=np.int64)
        mod_tid = np.array([m[3] for m in modules], dtype=np.int64)
        ts = np.concatenate([mod_ts, op_ts, rt_ts])
        dur = np.concatenate([mod_dur, op_dur, rt_dur])
        pid = np.concatenate([mod_pid, np.frombuffer(self.op_pid, dtype=np.int64), np.frombuffer(self.rt_pid, dtype=np.int64)])
        tid = np.concatenate([mod_tid, np.frombuffer(self.op_tid, dtype=np.int64), np.frombuffer(self.rt_tid, dtype=np.int64)])
        pid_i = np.unique(pid, return_inverse=True)[1].reshape(-1)
        tid_i = np.unique(tid, return_inverse=True)[1].reshape(-1)
        thread = pid_i.astype(np.int64) * (int(tid_i.max(initial=0)) + 1) + tid_i
        end = ts + dur
        op_parent, op_module, rt_op = _nest_stack(np, ts, end, dur, thread, modules, n_mod, n_ops, n_rt)

        # Final op order: by start time, longer first (ties keep file order); indices renumbered.
        op_order = np.lexsort((-op_dur, op_ts)) if n_ops else np.zeros(0, np.int64)
        new_index = np.empty(n_ops, dtype=np.int64)
        new_index[op_order] = np.arange(n_ops)
        new_l = new_index.tolist()
        starts = [s.ts_us for s in steps]
        step_of = [None] * n_ops
        if steps:
            k = np.searchsorted(np.array(starts), op_ts, side="right") - 1
            ends = np.array([s.end_us for s in steps])
            ok = (k >= 0) & (op_ts <= ends[np.maximum(k, 0)])
            nums = [s.number for s in steps]
            step_of = [nums[kk] if good else None for kk, good in zip(k.tolist(), ok.tolist())]
        shapes = self.shapes
        call = shapes.call
        op_ts_l, op_dur_l = op_ts.tolist(), op_dur.tolist()
        ext_l = self.op_ext.tolist()
        pid_o, tid_o = self.op_pid.tolist(), self.op_tid.tolist()
        names, refs = self.op_name, self.op_ref
        ops: List[CpuOp] = []
        append = ops.append
        for k, raw in enumerate(op_order.tolist()):
            p = op_parent[raw]
            e = ext_l[raw]
            name = names[raw]
            # positional (the fields' order): index, name, ts_us, duration_us, pid, tid,
            # external_id, parent, call, module, step
            append(CpuOp(k, name, op_ts_l[raw], op_dur_l[raw], pid_o[raw], tid_o[raw], None if e == _NONE else e,
                         new_l[p] if p >= 0 else None, call(name, refs[raw]), op_module[raw], step_of[raw]))
        runtime: List[RuntimeCall] = []
        rt_ts_l, rt_dur_l = rt_ts.tolist(), rt_dur.tolist()
        corr_l, rext_l, rtid_l = self.rt_corr.tolist(), self.rt_ext.tolist(), self.rt_tid.tolist()
        for i in range(n_rt):
            p = rt_op[i]
            c, e = corr_l[i], rext_l[i]
            runtime.append(RuntimeCall(
                name=self.rt_name[i], ts_us=rt_ts_l[i], duration_us=rt_dur_l[i], tid=rtid_l[i],
                correlation=None if c == _NONE else c, external_id=None if e == _NONE else e,
                op=new_l[p] if p >= 0 else None,
            ))
        return ops, runtime

    def _device(self, np, scale: float, ops: List[CpuOp], runtime: List[RuntimeCall]) -> List[GpuEvent]:
        """Join device events to their launch call and op (join step 2)."""
        by_corr: Dict[int, int] = {}
        for i, r in enumerate(runtime):
            if r.correlation is not None:
                by_corr[r.correlation] = i
        by_ext: Dict[int, int] = {}
        for op in ops:
            if op.external_id is not None and op.external_id not in by_ext:
                by_ext[op.external_id] = op.index
        n = len(self.dev_ts)
        ts = np.frombuffer(self.dev_ts, dtype=np.float64) * scale
        dur = np.frombuffer(self.dev_dur, dtype=np.float64) * scale
        order = np.argsort(ts, kind="stable").tolist()
        ts_l, dur_l = ts.tolist(), dur.tolist()
        kind_l = self.dev_kind.tolist()
        corr_l, ext_l = self.dev_corr.tolist(), self.dev_ext.tolist()
        dev_l, stream_l, bytes_l = self.dev_device.tolist(), self.dev_stream.tolist(), self.dev_bytes.tolist()
        out: List[GpuEvent] = []
        for i in order:
            corr = None if corr_l[i] == _NONE else corr_l[i]
            ext = None if ext_l[i] == _NONE else ext_l[i]
            launch = by_corr.get(corr) if corr is not None else None
            op = runtime[launch].op if launch is not None else None  # type: ignore[assignment]
            if op is None and ext is not None:
                op = by_ext.get(ext)
            kind = _DEVICE_KINDS[kind_l[i]]
            nbytes = None if bytes_l[i] == _NONE or kind == "kernel" else bytes_l[i]
            out.append(GpuEvent(
                index=len(out), kind=kind, name=self.dev_name[i], ts_us=ts_l[i], duration_us=dur_l[i],
                device=0 if dev_l[i] == _NONE else dev_l[i], stream=0 if stream_l[i] == _NONE else stream_l[i],
                correlation=corr, external_id=ext, bytes=nbytes, launch=launch, op=op,  # type: ignore[arg-type]
            ))
        assert len(out) == n
        return out


def _nest_stack(np, ts, end, dur, thread, modules, n_mod, n_ops, n_rt):
    """Join step 1: each op's parent op and innermost module, each runtime call's innermost op,
    by a stack sweep per thread (lists indexed like the raw columns; -1 / "" for none)."""
    rank = np.concatenate([np.zeros(n_mod, np.int8), np.ones(n_ops, np.int8), np.full(n_rt, 2, np.int8)])
    # Order: thread, then start time, then longer first (a parent before its children), then
    # modules before ops before runtime calls at the same start (a module range encloses its ops).
    order = np.lexsort((rank, -dur, ts, thread)).tolist()
    ts_l, end_l = ts.tolist(), end.tolist()
    thread_l = thread.tolist()
    off_op, off_rt = n_mod, n_mod + n_ops
    op_parent = [-1] * n_ops
    op_module = [""] * n_ops
    rt_op = [-1] * n_rt
    cur = None
    s_end: List[float] = []
    s_idx: List[int] = []
    m_end: List[float] = []
    m_name: List[str] = []
    for j in order:
        if thread_l[j] != cur:
            cur = thread_l[j]
            s_end, s_idx, m_end, m_name = [], [], [], []
        t = ts_l[j]
        if j < off_op:
            while m_end and m_end[-1] <= t:
                m_end.pop()
                m_name.pop()
            m_end.append(end_l[j])
            m_name.append(modules[j][4])
            continue
        while s_end and s_end[-1] <= t:
            s_end.pop()
            s_idx.pop()
        if j < off_rt:
            i = j - off_op
            if s_idx:
                op_parent[i] = s_idx[-1]
            while m_end and m_end[-1] <= t:
                m_end.pop()
                m_name.pop()
            if m_name:
                op_module[i] = m_name[-1]
            s_end.append(end_l[j])
            s_idx.append(i)
        elif s_idx:
            rt_op[j - off_rt] = s_idx[-1]
    return op_parent, op_module, rt_op


def _memory_samples(rows, scale: float) -> Iterator[MemorySample]:
    for ts, nbytes, alloc, reserved, dtype, dev in rows:
        yield MemorySample(ts_us=ts * scale, bytes=_int(nbytes) or 0, total_allocated_bytes=_int(alloc),
                           total_reserved_bytes=_int(reserved), device_type=_int(dtype) or 0,
                           device=_int(dev) if _int(dev) is not None else -1)  # type: ignore[arg-type]


def _time_scale(data: Dict[str, Any], acc: _Acc) -> Tuple[float, str]:
    """Factor that turns the trace's ``ts``/``dur`` into microseconds, and why (see module notes).

    Kineto writes microseconds (``displayTimeUnit`` only sets how viewers display them). A trace
    that declares ``"timeUnit": "ns"`` at the top level is scaled by 1e-3, and so is one whose
    times look like nanoseconds: timestamps past 1e17 (Unix time in ns; in us that is the year
    5000), or timestamps past 1e9 that are all whole numbers with 99% of the durations of its
    ops, runtime calls and kernels above 100 (in microseconds a launch call or a small op lasts a
    few us; in ns, a few thousand; Kineto's own microseconds carry three decimals).
    """
    unit = data.get("timeUnit") or data.get("time_unit")
    if unit == "ns":
        return 1e-3, "timestamps read as nanoseconds (the trace says timeUnit: ns) and scaled to microseconds"
    if unit == "us":
        return 1.0, ""
    import numpy as np

    firsts = [a[0] for a in (acc.op_ts, acc.rt_ts, acc.dev_ts) if len(a)]
    if firsts and min(firsts) > 1e17:
        return 1e-3, ("timestamps read as nanoseconds and scaled to microseconds: they are past 1e17, "
                      "Unix time in ns (in microseconds that would be the year 5000)")
    if not acc.all_whole or not firsts or min(firsts) < 1e9:
        return 1.0, ""
    durs = [np.frombuffer(a, dtype=np.float64) for a in (acc.op_dur, acc.rt_dur, acc.dev_dur) if len(a)]
    if not durs:
        return 1.0, ""
    d = np.concatenate(durs)
    d = d[d > 0]
    if len(d) < 10:
        return 1.0, ""
    low = float(np.percentile(d, 1))
    if low > 100.0:
        return 1e-3, (f"timestamps read as nanoseconds and scaled to microseconds: every time is a whole number "
                      f"and 99% of durations exceed {low:,.0f} (ops and launch calls take a few us, a few "
                      f"thousand ns)")
    return 1.0, ""


def _device_properties(props: Any) -> Tuple[GpuProperties, ...]:
    if not isinstance(props, list):
        return ()
    out = []
    for p in props:
        if not isinstance(p, dict):
            continue
        major, minor = p.get("computeMajor"), p.get("computeMinor")
        out.append(GpuProperties(
            id=_int(p.get("id")) or 0,
            name=str(p.get("name", "")),
            total_memory_bytes=_int(p.get("totalGlobalMem")),
            sm_count=_int(p.get("numSms")),
            compute_capability=f"{major}.{minor}" if major is not None else None,
            warp_size=_int(p.get("warpSize")),
            gcn_arch_name=str(p.get("gcnArchName") or p.get("gcnArch") or "") or None,
        ))
    return tuple(out)


def children_index(ops: Iterable[CpuOp]) -> Dict[int, List[int]]:
    """Map op index -> indices of its direct children."""
    kids: Dict[int, List[int]] = {}
    for op in ops:
        if op.parent is not None:
            kids.setdefault(op.parent, []).append(op.index)
    return kids

