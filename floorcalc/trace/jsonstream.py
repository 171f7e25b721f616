"""Read the ``traceEvents`` array of a JSON trace file in bounded memory, exactly.

A trace is one JSON object whose ``traceEvents`` member is an array of events; the file may be
gzipped (one or more members). :class:`EventStream` yields the array's elements in batches of
a few megabytes and, when the file is damaged, every whole element before the damage.

How elements are cut into batches, and why it is exact:

1. The top-level object is walked key by key with a real JSON scanner (the standard library's)
   until the key ``traceEvents``; the values before it are skipped as JSON values, so text
   inside strings is never taken for structure.
2. Fast path. From a position ``s`` where an array element starts (known: right after ``[``, or
   after a ``,`` that followed an element), the batch is cut after the last ``}`` followed by
   ``,`` and ``{`` (white space allowed) before ``s`` + 4 MB, and ``"[" + text + "]"`` is
   decoded with msgspec. **If it decodes, the cut is an element boundary**: a JSON parser in the
   state "expecting an array element" at ``s`` reads the same tokens as the parser of the
   whole file, and it can accept the ``]`` after the cut only at depth 1, outside any string,
   right after a complete value. So the elements decoded are exactly the file's elements.
3. Exact path, when the fast path's decode fails (the cut fell inside a string or a nested
   object, the text is damaged, or no cut was found): elements are walked one at a time with
   the standard library's scanner (on the bytes read as Latin-1, so offsets are byte offsets;
   no structural character of JSON is a byte of a multi-byte UTF-8 sequence), which gives each
   element's end and the first byte that is not JSON. The walked elements are then decoded by
   msgspec like the fast path's; msgspec is the stricter of the two (it refuses invalid UTF-8,
   lone surrogates, ``NaN``, numbers out of the float range), and where it refuses an element
   that element is the damage (found by bisection over the walked ends).

So a file is read the same whatever its strings hold and however it is cut into pieces, and a
damaged one yields every element that is whole JSON before the first byte that is not (the
element that ends just before the damage included; a cut right after ``},`` loses nothing).

Gzip: a stream that ends early gives everything decompressed before the end; a stream corrupt
part-way gives everything decompressed before the corrupt block (a block that fails is fed
again in small slices from a saved decompressor, so the bytes just before the fault are kept).
A stream whose data check fails at its end was decompressed whole, but some byte in it is
wrong: every event is kept and :attr:`EventStream.partial` says so.
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

import msgspec

from floorcalc.util.errors import TraceError
from floorcalc.util.progress import Task
from floorcalc.trace.kineto_fields import TRACE_EVENTS
from floorcalc.trace.paths import path_error

#: how :attr:`EventStream.partial` begins for a file cut short (partial_line reads it)
TRUNCATED = "the trace is truncated"

#: The tool member every document floorcalc writes near its top (render/jsonfmt.py): a report
#: given where a trace is expected is named as one.
_FLOORCALC_DOC = re.compile(rb'"tool"\s*:\s*\{\s*"name"\s*:\s*"floorcalc"')


def partial_line(path: str, partial: str) -> str:
    """A trace's ``partial`` (why it was read only in part) as one clause about the file, without
    saying "trace" twice: ``trace run.json.gz is truncated (its traceEvents array is not closed):
    read the first 3,761 events``; another reason as ``trace run.json.gz: <partial>``."""
    if partial.startswith("the trace is "):
        return f"trace {path} is {partial[len('the trace is '):]}"
    return f"trace {path}: {partial}"

# The events decoded at a time: a batch of about a thousand events, whose structs the reader's
# column passes then read while they are still in the core's cache (L2 is 1 MB a core on the
# project's machine): 1M events read and fed in 1.64-1.66 s CPU in 256 KB batches against
# 2.32-2.34 s in 4 MB ones (0.125 MB: 1.74; 1 MB: 1.77-2.48), issue 28.
CHUNK_BYTES = 256 << 10
READ_BYTES = 1 << 20      # compressed bytes read at a time
HEAD_LIMIT = 256 << 20    # bytes searched for the traceEvents key

_CANDIDATE = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*\{")
_WS = re.compile(r"[ \t\r\n]*")
_WSB = re.compile(rb"[ \t\r\n]*")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_SCANNER = json.JSONDecoder(parse_constant=_reject_constant)
_GENERIC = msgspec.json.Decoder()


class Pieces:
    """The decompressed bytes of a file, a piece at a time (plain files are read as they are),
    each with the number of the file's own bytes read when it was made (compressed bytes, for a
    gzipped file: how far through the file the reading is).

    After iteration, ``damage`` says why the bytes stop early ("" when they do not).
    """

    def __init__(self, p: Path) -> None:
        self.p = p
        self.damage = ""

    def __iter__(self) -> Iterator[Tuple[bytes, int]]:
        try:
            f = open(self.p, "rb")
        except OSError as e:
            raise path_error(self.p, e) from None
        with f:
            try:
                for piece in self._read(f):
                    yield piece, f.tell()
            except OSError as e:
                raise TraceError(f"cannot read trace {self.p}: {e.strerror or e}") from None

    def _read(self, f: Any) -> Iterator[bytes]:
        head = f.read(READ_BYTES)
        if head[:2] != b"\x1f\x8b":
            while head:
                yield head
                head = f.read(READ_BYTES)
            return
        yield from self._gunzip(f, head)

    def _gunzip(self, f: Any, block: bytes) -> Iterator[bytes]:
        """Decompress with ISA-L (python-isal, about twice zlib's speed) where installed; on a
        fault, decompress again with zlib (whose decompressor can be copied, see
        :meth:`_gunzip_zlib`) from the start, skipping what was already given."""
        try:
            from isal import isal_zlib
        except ImportError:
            yield from self._gunzip_zlib(f, block, 0)
            return
        d = isal_zlib.decompressobj(wbits=31)
        done = 0
        while True:
            try:
                out = d.decompress(block)
            except Exception:             # isal_zlib.error: the stream is corrupt here
                f.seek(0)
                yield from self._gunzip_zlib(f, f.read(READ_BYTES), done)
                return
            if out:
                done += len(out)
                yield out
            if d.eof:
                rest = d.unused_data
                if rest[:2] == b"\x1f\x8b":      # another gzip member follows
                    d = isal_zlib.decompressobj(wbits=31)
                    block = rest
                    continue
                return
            block = f.read(READ_BYTES)
            if not block:
                tail = d.flush()
                if tail:
                    yield tail
                self.damage = "its gzip stream ends early"
                return

    def _gunzip_zlib(self, f: Any, block: bytes, skip: int) -> Iterator[bytes]:
        """zlib's decompression, the first ``skip`` bytes of output left out."""
        d = zlib.decompressobj(wbits=31)
        out_total = 0

        def give(out: bytes) -> Iterator[bytes]:
            nonlocal out_total
            start = max(0, skip - out_total)
            out_total += len(out)
            if start < len(out):
                yield out[start:] if start else out

        while True:
            saved = d.copy()
            try:
                out = d.decompress(block)
            except zlib.error as e:
                # feed the block again in slices, keeping what decompresses before the fault
                for out in self._salvage(saved, block):
                    yield from give(out)
                self.damage = f"its gzip stream is corrupt ({_zlib_reason(e)}) after {out_total:,} bytes"
                return
            if out:
                yield from give(out)
            if d.eof:
                rest = d.unused_data
                if rest[:2] == b"\x1f\x8b":      # another gzip member follows
                    d = zlib.decompressobj(wbits=31)
                    block = rest
                    continue
                return
            block = f.read(READ_BYTES)
            if not block:
                tail = d.flush()
                if tail:
                    yield from give(tail)
                self.damage = "its gzip stream ends early"
                return

    def _salvage(self, d: Any, block: bytes) -> Iterator[bytes]:
        step = 256
        i = 0
        while i < len(block):
            piece = block[i:i + step]
            saved = d.copy()
            try:
                out = d.decompress(piece)
            except zlib.error:
                if step == 1:
                    return
                d, step = saved, 1            # the same slice again, a byte at a time
                continue
            if out:
                yield out
            i += len(piece)
            if d.eof:
                return


def _zlib_reason(e: Exception) -> str:
    text = str(e)
    return text.split(": ", 1)[-1] if ": " in text else text


class EventStream:
    """The elements of a trace file's ``traceEvents`` array, in batches (see the module notes).

    Iterating yields ``(batch, typed)``: a list of elements decoded with ``typed`` (a msgspec
    decoder of ``List[SomeStruct]``) and ``True``, or, for a batch whose elements do not fit that
    type, the same elements decoded as plain JSON values and ``False``. After iteration:
    ``metadata`` holds the top-level members other than ``traceEvents``, ``count`` the elements
    yielded, ``partial`` why the array was read only in part ("" when whole), ``notes`` what else
    was noticed (a top-level object not closed after the array). ``bytes_read``: how many of the
    file's bytes have been read (compressed bytes, for a gzipped file), as ``task`` (a
    :class:`floorcalc.util.progress.Task`) is told each time the reading moves on, with the events
    yielded so far as its detail.

    Raises :class:`TraceError` for a file that is empty, not JSON, not a JSON object, has no
    ``traceEvents`` array, or is cut before the array starts.
    """

    def __init__(self, path: Path, typed: msgspec.json.Decoder, *, task: Task = Task()) -> None:
        self.p = path
        self.typed = typed
        self.task = task
        self.bytes_read = 0
        self.metadata: dict = {}
        self.count = 0
        self.partial = ""
        self.notes: List[str] = []

    # -----------------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[Tuple[list, bool]]:
        pieces = Pieces(self.p)
        it = iter(pieces)
        self._it, self._pieces = it, pieces
        self.buf = bytearray()
        self.eof = False
        start, head = self._find_array()
        pos = start
        closed = -1
        damage = ""
        while True:
            while not self.eof and len(self.buf) - pos < 2 * CHUNK_BYTES:
                self._more()
            pos = _skip_ws(self.buf, pos)
            if self.count == 0 and self.buf[pos:pos + 1] == b"]":
                closed = pos
                break
            batch = self._fast(pos)
            if batch is not None:
                items, typed, nxt = batch
                self.count += len(items)
                yield items, typed
                pos = nxt
                if pos > CHUNK_BYTES:
                    del self.buf[:pos]
                    pos = 0
                continue
            ends, state, at = self._walk(pos)
            if ends:
                batches, bad = self._decode_walked(pos, ends)
                for items, typed in batches:
                    self.count += len(items)
                    yield items, typed
                if bad:
                    damage = f"it is not valid JSON after event {self.count:,}"
                    break
            if state == "closed":
                closed = at
                break
            if state == "error":
                damage = f"it is not valid JSON after event {self.count:,}"
                break
            if state == "eof":
                break
            if state == "more" and not ends:
                self._more_until(2 * max(len(self.buf), READ_BYTES))
            pos = at
            if pos > CHUNK_BYTES:
                del self.buf[:pos]
                pos = 0
        if closed >= 0:
            while not self.eof:
                self._more()
            tail = bytes(self.buf[closed + 1:])
            self.buf = bytearray()
            self.metadata = self._top_level(head, tail)
            if "check" in pieces.damage:           # the data or length check failed at the end
                self.partial = (f"{pieces.damage.replace('its gzip', 'the gzip')}: every event was read, but "
                                "some byte of the file is wrong, so an event may be altered")
            elif pieces.damage:
                self.notes.append(f"the trace's gzip stream is damaged after its events ({pieces.damage}): the "
                                  "fields after the events were not all read")
            return
        self.buf = bytearray()
        why = pieces.damage or damage or "its traceEvents array is not closed"
        if self.count == 0:
            if pieces.damage:
                raise TraceError(f"trace {self.p} is a truncated or corrupt gzip file "
                                 f"({pieces.damage}) before its first complete event")
            raise TraceError(f"trace {self.p} is not valid JSON (truncated?): no complete event in its "
                             f"traceEvents array")
        self.partial = f"{TRUNCATED} ({why}): read the first {self.count:,} events"
        self.metadata = self._top_level(head, None)

    # -----------------------------------------------------------------------------------------
    # bytes in

    def _more(self) -> None:
        item = next(self._it, None)
        if item is None:
            self.eof = True
        else:
            piece, at = item
            self.buf += piece
            if at > self.bytes_read:
                self.bytes_read = at
                self.task.update(at, detail=f"{self.count:,} events")

    def _more_until(self, n: int) -> None:
        while not self.eof and len(self.buf) < n:
            self._more()

    # -----------------------------------------------------------------------------------------
    # the top-level object up to the array (reading step 1)

    def _find_array(self) -> Tuple[int, bytes]:
        """Index in ``buf`` just after the ``[`` of traceEvents, and the text before the key."""
        want = READ_BYTES
        while True:
            self._more_until(want)
            r = _walk_top_prefix(self.buf, self.eof)
            if isinstance(r, tuple):
                return r
            if r == "more" and not self.eof and len(self.buf) < HEAD_LIMIT:
                want = 2 * max(len(self.buf), want)
                continue
            self._fail_head(r)

    def _fail_head(self, r: str) -> None:
        p, buf = self.p, self.buf
        if self._pieces.damage and r != "closed":
            raise TraceError(f"trace {p} is a truncated or corrupt gzip file ({self._pieces.damage})")
        if not bytes(buf).strip():
            raise TraceError(f"trace {p} is empty")
        if r == "not-json":
            if buf.startswith(b"\xef\xbb\xbf"):
                raise TraceError(f"trace {p} is not JSON: it starts with a UTF-8 byte-order mark, which floorcalc "
                                 "does not read (remove its first 3 bytes)")
            raise TraceError(f"trace {p} is not JSON: it does not start with a JSON object "
                             f"(its first bytes: {_first_bytes(buf)})")
        if r == "not-object":
            raise TraceError(f"trace {p} is not a Kineto trace: the top level is not a JSON object")
        if r in ("not-array", "closed"):
            if _FLOORCALC_DOC.search(bytes(buf[:1 << 16])):
                raise TraceError(f"{p} is a floorcalc report, not a Kineto trace: `floorcalc diff A.json B.json` "
                                 "compares two reports, `floorcalc whatif REPORT.json` projects from one")
            raise TraceError(f"trace {p} is not a Kineto trace: no 'traceEvents' list")
        if r == "more" and len(buf) >= HEAD_LIMIT:
            raise TraceError(f"trace {p} is not a Kineto trace: no 'traceEvents' list in its first "
                             f"{HEAD_LIMIT >> 20} MB")
        raise TraceError(f"trace {p} is not valid JSON (truncated?) before its traceEvents array")

    def _top_level(self, head: bytes, tail: Optional[bytes]) -> dict:
        """The top-level members around the array (reading the tail; a broken tail is noted)."""
        if tail is not None:
            try:
                d = _GENERIC.decode(head + b'"' + TRACE_EVENTS.encode() + b'": []' + tail)
                if isinstance(d, dict):
                    return d
            except msgspec.DecodeError:
                pass
            self.notes.append("the trace's top level is not valid JSON after its traceEvents array: "
                              "the fields after the events were not read")
        try:  # the members before the array
            d = _GENERIC.decode(head.rstrip().rstrip(b",") + b"}")
            return d if isinstance(d, dict) else {}
        except msgspec.DecodeError:
            return {}

    # -----------------------------------------------------------------------------------------
    # batches (reading steps 2 and 3)

    def _decode(self, start: int, end: int) -> Optional[Tuple[list, bool]]:
        """``[buf[start:end]]`` decoded typed, else as plain JSON; None if it is not a JSON array.
        The text is copied once, into the bracketed bytes (a view of the buffer, released before
        the buffer can grow or shrink)."""
        with memoryview(self.buf) as view:
            raw = b"".join((b"[", view[start:end], b"]"))
        try:
            return self.typed.decode(raw), True
        except msgspec.ValidationError:
            pass
        except msgspec.DecodeError:
            return None
        try:
            out = _GENERIC.decode(raw)
        except msgspec.DecodeError:
            return None
        return out, False

    def _fast(self, pos: int) -> Optional[Tuple[list, bool, int]]:
        """Step 2: a batch ending at the last candidate boundary, or None."""
        buf = self.buf
        limit = min(len(buf), pos + CHUNK_BYTES)
        k = buf.rfind(b"}", pos, limit)
        while k >= pos:
            m = _CANDIDATE.match(buf, k)
            if m:
                break
            k = buf.rfind(b"}", pos, k)
        else:
            return None
        out = self._decode(pos, k + 1)
        if out is None:
            return None
        return out[0], out[1], m.end() - 1       # the next element starts at the "{"

    def _walk(self, pos: int) -> Tuple[List[int], str, int]:
        """Step 3: element ends (offsets from ``pos``) and how the walk stopped.

        States: ``closed`` (``at``: index of the array's ``]``), ``error`` (the text after the
        last end is not JSON), ``eof`` (the file ends inside the array), ``more`` (the buffer
        ends inside an element: read more), ``paused`` (a chunk's length walked). For ``more``
        and ``paused``, ``at`` is where the element after the last end starts.
        """
        text = self.buf[pos:].decode("latin-1")
        n = len(text)
        ends: List[int] = []
        i = 0
        nxt = 0
        while True:
            i = _ws(text, i)
            if i >= n:
                return ends, ("eof" if self.eof else "more"), pos + nxt
            try:
                _, j = _SCANNER.raw_decode(text, i)
            except json.JSONDecodeError as e:
                if not self.eof and (e.msg.startswith("Unterminated string") or e.pos >= n - 16):
                    return ends, "more", pos + nxt
                return ends, ("eof" if e.pos >= n else "error"), 0
            except (ValueError, RecursionError):
                return ends, "error", 0
            k = _ws(text, j)
            if k >= n:
                if self.eof:                       # whole, with the file cut right after it
                    ends.append(j)
                    return ends, "eof", 0
                return ends, "more", pos + nxt
            ends.append(j)
            c = text[k]
            if c == "]":
                return ends, "closed", pos + k
            if c != ",":
                return ends, "error", 0
            i = nxt = k + 1
            if j >= CHUNK_BYTES:
                return ends, "paused", pos + nxt

    def _decode_walked(self, pos: int, ends: List[int]) -> Tuple[List[Tuple[list, bool]], bool]:
        """The walked elements decoded like the fast path's; and whether msgspec refused one
        (the damage: the elements before it are returned)."""
        out = self._decode(pos, pos + ends[-1])
        if out is not None:
            return [out], False
        lo, hi = 0, len(ends) - 1        # the first element msgspec refuses
        while lo < hi:
            mid = (lo + hi) // 2
            if self._decode(pos, pos + ends[mid]) is None:
                hi = mid
            else:
                lo = mid + 1
        good = self._decode(pos, pos + ends[lo - 1]) if lo else None
        return ([good] if good else []), True


def _skip_ws(buf: "bytes | bytearray", i: int) -> int:
    m = _WSB.match(buf, i)
    return m.end() if m else i


def _ws(text: str, i: int) -> int:
    m = _WS.match(text, i)
    return m.end() if m else i


_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERAL = re.compile(r"true|false|null")
_AFTER_TOKEN = frozenset(" \t\r\n,]}:")


def _starts_value(text: str, i: int, depth: int = 0) -> bool:
    """Whether ``text`` at ``i`` (not white space) begins a JSON value, as far as its first
    tokens show: a text that ends there, or a string, counts as one. What tells a file that is
    not JSON at all (Markdown, a binary file) from one that is JSON cut short or damaged
    further on."""
    c = text[i]
    if c == '"':
        return True
    if c in "{[":
        j = _ws(text, i + 1)
        if j >= len(text):
            return True
        if c == "{":
            return text[j] in '"}'
        return text[j] == "]" or (depth < 8 and _starts_value(text, j, depth + 1))
    rest = text[i:i + 6]
    if len(rest) < 6 and (rest == "-" or any(w.startswith(rest) for w in ("true", "false", "null"))):
        return True                       # the text ends inside the token
    m = _NUMBER.match(text, i) if c in "-0123456789" else _LITERAL.match(text, i)
    return m is not None and (m.end() >= len(text) or text[m.end()] in _AFTER_TOKEN)


def _first_bytes(buf: "bytes | bytearray", k: int = 16) -> str:
    """The first ``k`` bytes of ``buf`` after any white space, quoted, for a message."""
    i = _skip_ws(buf, 0)
    b = bytes(buf[i:i + k])
    return ascii(b.decode("latin-1")) + (" ..." if len(buf) > i + k else "")


#: the first prefix of the buffer :func:`_walk_top_prefix` walks (a trace's top-level fields
#: before its events are a few kB; the first buffer holds megabytes of events after them)
TOP_PREFIX_BYTES = 64 << 10


def _walk_top_prefix(buf: "bytes | bytearray", eof: bool) -> Any:
    """:func:`_walk_top` of growing prefixes of ``buf`` (64 kB, then 4x), so that the events
    after the array's ``[`` are not decoded to text for nothing (6-9 ms of a 9 MB first buffer).
    Only the array's position is taken from a prefix: the walk reads left to right and a member
    is accepted only when the text after it (a ``,``) is in the prefix, so it is the one the whole
    buffer gives; any other answer is the whole buffer's."""
    n = TOP_PREFIX_BYTES
    while n < len(buf):
        r = _walk_top(buf[:n], False)
        if isinstance(r, tuple):
            return r
        n *= 4
    return _walk_top(buf, eof)


def _walk_top(buf: "bytes | bytearray", eof: bool) -> Any:
    """Walk the top-level object's members to the traceEvents array (reading step 1).

    Returns ``(index after its "[", text before the key)``, or why not: ``more`` (the text
    ends first), ``not-json`` (the text does not start as JSON: a Markdown or binary file),
    ``not-object`` (it starts as a JSON value that is not an object), ``not-array``
    (traceEvents is not an array), ``closed`` (the object ends without the key), ``error``
    (not JSON further on).
    """
    text = buf.decode("latin-1")
    n = len(text)
    i = _ws(text, 0)
    if i >= n:
        return "more" if not eof else "error"
    if not _starts_value(text, i):
        return "not-json"
    if text[i] != "{":
        return "not-object"
    i += 1
    first = True
    while True:
        i = _ws(text, i)
        if i >= n:
            return "more"
        if text[i] == "}" and first:
            return "closed"
        if text[i] != '"':
            return "error"
        key_start = i
        try:
            key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        except json.JSONDecodeError:
            return "more" if not eof else "error"
        i = _ws(text, i)
        if i >= n:
            return "more"
        if text[i] != ":":
            return "error"
        i = _ws(text, i + 1)
        if i >= n:
            return "more"
        if key == TRACE_EVENTS:
            if text[i] != "[":
                return "not-array"
            return i + 1, bytes(buf[:key_start])
        try:
            _, i = _SCANNER.raw_decode(text, i)
        except json.JSONDecodeError as e:
            if e.msg.startswith("Unterminated string") or e.pos >= n - 16:
                return "more" if not eof else "error"
            return "error"
        except (ValueError, RecursionError):
            return "error"
        i = _ws(text, i)
        if i >= n:
            return "more"
        if text[i] == "}":
            return "closed"
        if text[i] != ",":
            return "error"
        i += 1
        first = False
