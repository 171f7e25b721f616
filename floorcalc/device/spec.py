"""Device specs: read, validate and merge the YAML files that give a device's ceilings.

A spec file (format: ``docs/spec-format.md``) gives the dense peak FLOP/s per unit and dtype,
the DRAM bandwidth and the launch latency of one device, every figure with its source. Three
places hold spec files, in precedence order:

1. the file the user names (``--spec FILE.yaml``);
2. the user config folder: ``$FLOORCALC_CONFIG_DIR/devices`` when that variable is set, else
   ``$XDG_CONFIG_HOME/floorcalc/devices``, else ``~/.config/floorcalc/devices``;
3. the packaged folder: the repository's top-level ``devices/`` in a source tree, or
   ``floorcalc/_devices`` inside an installed wheel.

A file may say ``base: KEY`` (or ``base: path.yaml``) and give only the fields it changes; the
loader merges it over the base field by field (:func:`load_file`). Every error is a
:class:`~floorcalc.util.errors.SpecError` whose one-line message names the file, the key and the
bad value.

Pure Python and PyYAML: nothing here imports torch or touches a GPU.
"""

from __future__ import annotations

import math
import os
import re
import reprlib
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Protocol, Sequence, Tuple, TypeVar, Union

import yaml

from floorcalc.util.errors import SpecError, UsageError
from floorcalc.records import BASES, INTERCONNECT_KEYS, NO_SPEC_KEY, Basis, DeviceKind, DeviceSpec, Figure, MemoryLevel

#: The one schema version this loader reads.
SCHEMA_VERSION = 1

#: Device kinds a spec may declare.
KINDS: Tuple[DeviceKind, ...] = ("gpu", "cpu")

#: Units and dtypes a ``peak_flop_per_s`` key may name, as ``"<unit>.<dtype>"``. ``float8``
#: covers every 8-bit float format; ``int8`` peaks are in integer ops/s.
PEAK_UNITS = ("tensor", "vector")
PEAK_DTYPES = ("float64", "float32", "tfloat32", "bfloat16", "float16", "float8", "int8")

#: Top-level keys of a spec file; anything else is an error (a typo would otherwise be ignored).
TOP_LEVEL_KEYS = (
    "schema_version",
    "key",
    "name",
    "kind",
    "base",
    "vendor",
    "architecture",
    "compute_capability",
    "nvml_names",
    "sources",
    "peak_flop_per_s",
    "mem_bytes_per_s",
    "launch_latency_us",
    "l2_bytes_per_s",
    "host_link_bytes_per_s",
    "cache_levels",
    "interconnect",
    "details",
    "notes",
)

#: Cache level names a ``cache_levels`` section may give, and the keys of each.
CACHE_LEVEL_NAMES = ("l1", "l2", "l3")
CACHE_LEVEL_KEYS = ("capacity_bytes", "bytes_per_s")
CACHE_CAPACITY_RANGE = (1e3, 1e12)
CACHE_BANDWIDTH_RANGE = (1e8, 1e15)

#: ``interconnect`` keys: (lowest, highest, unit in words).
INTERCONNECT_RANGES: Mapping[str, Tuple[float, float, str]] = {
    k: ((1, 64, "links") if k == "nvlink_links" else (0.1, 1e5, "microseconds") if k.endswith("_us")
        else (1e8, 1e14, "bytes/s, one direction"))
    for k in INTERCONNECT_KEYS
}

#: Keys a figure mapping may hold.
FIGURE_KEYS = ("value", "source", "basis", "note")

#: Keys a ``sources`` entry may hold.
SOURCE_KEYS = ("url", "where", "basis")

#: ``details`` keys: (lowest, highest, unit in words). Details are descriptive; the floor does
#: not read them.
DETAIL_RANGES: Mapping[str, Tuple[float, float, str]] = {
    "compute_capability": (1.0, 20.0, "a CUDA compute capability such as 9.0"),
    "sm_count": (1, 2000, "streaming multiprocessors (compute units on AMD)"),
    "boost_clock_mhz": (100, 6000, "MHz"),
    "memory_bytes": (1e8, 1e13, "bytes"),
    "memory_bus_bits": (16, 16384, "bits"),
    "l2_bytes": (1e4, 1e10, "bytes"),
    "pcie_gen": (1, 7, "PCIe generation"),
    "pcie_lanes": (1, 32, "PCIe lanes"),
    "nvlink_total_bytes_per_s": (1e9, 1e14, "bytes/s, both directions, all links"),
    "cores": (1, 10000, "physical cores"),
    "clock_mhz": (100, 10000, "MHz"),
    "fp32_flop_per_cycle_per_core": (1, 4096, "FLOP per cycle per core"),
    # written by `floorcalc calibrate` (floorcalc/device/calibration.py)
    "d2h_pinned_bytes_per_s": (1e6, 1e13, "bytes/s, one direction"),
    "h2d_pageable_bytes_per_s": (1e6, 1e13, "bytes/s, one direction"),
    "d2h_pageable_bytes_per_s": (1e6, 1e13, "bytes/s, one direction"),
    "launch_graph_us": (0.01, 1000, "microseconds per kernel"),
    "launch_stream_us": (0.01, 1000, "microseconds per kernel"),
    "launch_host_us": (0.01, 1000, "microseconds per launch"),
}

# Range limits of the ceilings (see docs/spec-format.md, "Ranges").
PEAK_RANGE = (1e9, 1e17)
BANDWIDTH_RANGE = (1e9, 1e14)
CPU_BANDWIDTH_LOW = 1e8
LATENCY_RANGE_US = (0.1, 1000.0)
L2_BANDWIDTH_RANGE = (1e9, 1e15)

_KEY_RE = re.compile(r"^[a-z0-9][a-z0-9._+-]*$")
_PEAK_KEY_RE = re.compile(r"^(%s)\.(%s)$" % ("|".join(PEAK_UNITS), "|".join(PEAK_DTYPES)))

#: Message tail of the error raised when no spec matches a GPU.
SPEC_HINT = "pass --spec FILE.yaml (see docs/spec-format.md)"


# --------------------------------------------------------------------------------------------
# Where spec files live


def packaged_dir(module_file: "os.PathLike[str] | str" = __file__) -> Path:
    """The folder of the specs shipped with floorcalc.

    Inside an installed wheel this is ``floorcalc/_devices`` (pyproject force-includes the
    repository's ``devices/`` there); in a source tree it is the top-level ``devices/``.
    ``module_file`` (this module's path) is a parameter for tests.
    """
    here = Path(module_file).resolve()
    installed = here.parents[1] / "_devices"
    if installed.is_dir():
        return installed
    return here.parents[2] / "devices"


def shown_origin(origin: Sequence[str]) -> str:
    """The files a spec was read from (``DeviceSpec.origin``) as text shows them: a shipped spec
    as ``devices/<key>.yaml`` (where it lives in the repository, whatever folder floorcalc is
    installed in), any other file as its path was given; ``"; "``-joined, ``""`` for none.
    The records and the JSON keep the full paths."""
    shipped = packaged_dir().resolve()
    shown = []
    for o in origin:
        p = Path(o)
        try:
            inside = p.is_absolute() and p.resolve().parent == shipped
        except (OSError, RuntimeError):
            inside = False
        shown.append(f"devices/{p.name}" if inside else o)
    return "; ".join(shown)


def user_config_dir() -> Path:
    """The user's spec folder (it need not exist).

    ``$FLOORCALC_CONFIG_DIR/devices`` if the variable is set, else
    ``$XDG_CONFIG_HOME/floorcalc/devices``, else ``~/.config/floorcalc/devices``.
    """
    root = os.environ.get("FLOORCALC_CONFIG_DIR")
    if root:
        return Path(root).expanduser() / "devices"
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "floorcalc" / "devices"


def _spec_files(folder: Path) -> List[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


# --------------------------------------------------------------------------------------------
# YAML reading


#: Limits of what a spec file may be (docs/spec-format.md, "Limits"): a shipped spec is about
#: 3 KB, nested 3 deep, with no alias. A file beyond them is refused before it is parsed whole.
MAX_SPEC_BYTES = 256 * 1024
MAX_DEPTH = 32
MAX_ALIASES = 64
#: Nodes the document would have with every alias expanded (a "billion laughs" file has 10^9).
MAX_NODES = 20_000
#: Characters of any user text echoed in an error message.
ECHO_CHARS = 200


class _Refused(Exception):
    """A limit of the safe loader was hit (converted to a SpecError with the file's name)."""


class _NoDuplicateKeys:
    """A YAML constructor mixin that refuses a mapping with a key given twice."""

    def construct_mapping(self, node, deep=False):  # type: ignore[no-untyped-def]
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)  # type: ignore[attr-defined]
                try:
                    duplicate = key in seen
                except TypeError:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark, "a key that is not text or a number",
                        key_node.start_mark) from None
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"duplicate key {_fmt(key)} (each key may appear once)", key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep)  # type: ignore[misc]


class _Loader(_NoDuplicateKeys, yaml.SafeLoader):
    """SafeLoader with limits: nesting depth, alias count, expanded size, no duplicate keys.

    It also reads ``4.8e12`` as a float (YAML 1.1 wants ``4.8e+12``).
    """

    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise _Refused(f"line {mark.line + 1}: more than {MAX_ALIASES} aliases (a spec needs none)")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise _Refused(f"line {mark.line + 1}: nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_Loader.yaml_implicit_resolvers = {k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.X,
    ),
    list("-+0123456789."),
)


#: The packaged specs' loader: libyaml's parser (PyYAML's C extension, where it was built with
#: it), the same resolvers and constructor as :class:`_Loader`. Reading the 25 shipped files
#: with the pure-Python parser took 0.1 CPU s of every report; these files ship with floorcalc,
#: so the limits :class:`_Loader` keeps against hostile YAML are not needed for them.
_PackagedLoader: Optional[type] = None
if getattr(yaml, "__with_libyaml__", False):
    class _CLoader(_NoDuplicateKeys, yaml.CSafeLoader):  # type: ignore[misc,name-defined,unused-ignore]
        yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers

    _PackagedLoader = _CLoader


def parse_packaged_text(text: str, shown: str) -> Dict[str, Any]:
    """A shipped spec's YAML as :func:`parse_spec_text` reads it, through libyaml where it is
    there (:data:`_PackagedLoader`); anything the fast path does not read as a mapping is read
    again by :func:`parse_spec_text`, which gives the error."""
    if _PackagedLoader is not None:
        try:
            loader = _PackagedLoader(text)
            try:
                data = loader.get_single_data()
            finally:
                loader.dispose()
            if isinstance(data, dict):
                return data
        except Exception:  # noqa: BLE001 - the careful loader below says what is wrong
            pass
    return parse_spec_text(text, shown)


def _expanded_nodes(root: yaml.Node, limit: int) -> int:
    """Nodes of ``root`` with every alias expanded (shared nodes counted once per use), stopping
    at ``limit``; linear in the distinct nodes."""
    memo: Dict[int, int] = {}
    order: List[yaml.Node] = []
    stack: List[Tuple[yaml.Node, bool]] = [(root, False)]
    while stack:  # post-order without recursion
        node, done = stack.pop()
        if id(node) in memo:
            continue
        if done:
            if isinstance(node, yaml.MappingNode):
                kids = [n for pair in node.value for n in pair]
            elif isinstance(node, yaml.SequenceNode):
                kids = list(node.value)
            else:
                kids = []
            memo[id(node)] = min(limit + 1, 1 + sum(memo[id(k)] for k in kids))
            order.append(node)
            continue
        stack.append((node, True))
        if isinstance(node, yaml.MappingNode):
            stack.extend((n, False) for pair in node.value for n in pair if id(n) not in memo)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((n, False) for n in node.value if id(n) not in memo)
    return memo[id(root)]


#: Byte-order marks, longest first (UTF-32's little-endian mark begins with UTF-16's).
_BOMS = (
    (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8-sig"), (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"),
)


def decode_spec_bytes(raw: bytes, shown: str) -> str:
    """The text of a spec file: UTF-8 (with or without a byte-order mark), or UTF-16/UTF-32
    detected from a byte-order mark or, without one, from the pattern of zero bytes that ASCII
    text has in them. Anything else (invalid UTF-8, binary data) is a SpecError."""
    encoding = next((enc for bom, enc in _BOMS if raw.startswith(bom)), None)
    strip_bom = encoding is not None and encoding != "utf-8-sig"
    if encoding is None and b"\x00" in raw[:4096]:
        head = raw[:4096]
        even, odd = head[0::2], head[1::2]
        if len(head) % 4 == 0 and head[1::4].count(0) == len(head) // 4 and head[2::4].count(0) == len(head) // 4:
            encoding = "utf-32-le" if head[3::4].count(0) == len(head) // 4 else None
        if encoding is None and odd.count(0) > 0.9 * len(odd):
            encoding = "utf-16-le"
        elif encoding is None and even.count(0) > 0.9 * len(even):
            encoding = "utf-16-be"
        if encoding is None:
            raise SpecError(f"{shown}: is not a text file (zero bytes in it); a spec is UTF-8 YAML")
    try:
        text = raw.decode(encoding or "utf-8")
    except UnicodeDecodeError as e:
        what = encoding.upper() if encoding else "UTF-8"
        raise SpecError(f"{shown}: is not valid {what} text (byte 0x{raw[e.start]:02x} at offset {e.start}); "
                        "save the spec as UTF-8") from None
    if strip_bom and text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        raise SpecError(f"{shown}: holds a zero character; a spec is UTF-8 YAML text")
    return text


#: Parsed files by (resolved path, mtime, size): the registry reads every file to find a key.
_CACHE: Dict[Tuple[str, int, int], Dict[str, Any]] = {}


def _read_yaml(path: Path, shown: str, packaged: bool = False) -> Dict[str, Any]:
    try:
        st = path.stat()
    except OSError:
        st = None
    cache_key = (str(path.resolve()), st.st_mtime_ns, st.st_size) if st is not None else None
    if cache_key is not None and cache_key in _CACHE:
        return _CACHE[cache_key]
    data = _parse_yaml(path, shown, packaged)
    if cache_key is not None:
        if len(_CACHE) > 512:
            _CACHE.clear()
        _CACHE[cache_key] = data
    return data


def _read_bytes(path: Path, shown: str) -> bytes:
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_SPEC_BYTES + 1)
    except FileNotFoundError:
        raise SpecError(f"{shown}: no such spec file; {SPEC_HINT}") from None
    except OSError as e:
        raise SpecError(f"{shown}: cannot read the spec file ({e.strerror or e})") from None
    if len(raw) > MAX_SPEC_BYTES:
        raise SpecError(f"{shown}: is larger than {MAX_SPEC_BYTES // 1024} KiB; a spec file is a few KB of YAML")
    return raw


def parse_spec_text(text: str, shown: str) -> Dict[str, Any]:
    """Parse the YAML of a spec with the safe loader's limits; the top-level mapping.

    Raises SpecError (one line, user text cut to 200 characters) for malformed YAML, a
    document nested deeper than MAX_DEPTH, more than MAX_ALIASES aliases, more than MAX_NODES
    nodes once aliases are expanded, a duplicate key, or a number Python cannot hold.
    """
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                raise SpecError(f"{shown}: the spec file is empty")
            if _expanded_nodes(node, MAX_NODES) > MAX_NODES:
                raise _Refused(f"more than {MAX_NODES:,} values once its aliases are expanded (an alias bomb?)")
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except _Refused as e:
        raise SpecError(f"{shown}: refused: {e}") from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{shown}:{mark.line + 1}" if mark is not None else shown
        problem = e.problem or e.context or "cannot be parsed"
        raise SpecError(f"{where}: malformed YAML: {_clip(problem)}") from None
    except yaml.YAMLError as e:
        raise SpecError(f"{shown}: malformed YAML: {_clip(str(e))}") from None
    except (ValueError, OverflowError) as e:  # an integer too long for int(), a date out of range
        raise SpecError(f"{shown}: a value cannot be read: {_clip(str(e))}") from None
    except RecursionError:
        raise SpecError(f"{shown}: refused: nested too deeply") from None
    if not isinstance(data, dict):
        raise SpecError(f"{shown}: a spec file must be a mapping of keys to values, not {type(data).__name__}")
    return data


def _parse_yaml(path: Path, shown: str, packaged: bool = False) -> Dict[str, Any]:
    text = decode_spec_bytes(_read_bytes(path, shown), shown)
    return parse_packaged_text(text, shown) if packaged else parse_spec_text(text, shown)


# --------------------------------------------------------------------------------------------
# Validation of single values


def _num(x: float) -> str:
    """``4800``, ``0.1``, ``1e9``, ``4.8e12``: short, and as a user would type it."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return {"nan": ".nan", "inf": ".inf", "-inf": "-.inf"}[repr(x)]
    if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-3):
        mantissa, exponent = f"{x:.6e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{int(exponent)}"
    return f"{x:g}"


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = ECHO_CHARS
_REPR.maxlong = 40
_REPR.maxlevel = 3


def _clip(text: Any, n: int = ECHO_CHARS) -> str:
    """``text`` on one line, cut to its first ``n`` characters ("..." marks a cut)."""
    s = " ".join(str(text).split())
    return s if len(s) <= n else s[:n] + "..."


def _fmt(value: Any) -> str:
    """A value as echoed in an error: numbers as a user types them, anything else its repr,
    never more than 200 characters (a huge structure is not rendered whole)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _clip(_REPR.repr(value))
    if isinstance(value, int) and abs(value) >= 10**40:
        return f"an integer of {len(str(abs(value)))} digits"
    return _num(value)


def _number(shown: str, field: str, value: Any) -> float:
    """``value`` as a positive finite float, or a SpecError naming the file and the field."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(f"{shown}: {field} = {_fmt(value)} is not a number")
    try:
        v = float(value)
    except OverflowError:
        raise SpecError(f"{shown}: {field} = {_fmt(value)} is not a finite number (too large)") from None
    if math.isnan(v):
        raise SpecError(f"{shown}: {field} = {_fmt(value)} is not a finite number")
    if math.isinf(v):
        raise SpecError(f"{shown}: {field} = {_fmt(value)} is not a finite number (infinite, or beyond 1.8e308)")
    if v <= 0:
        raise SpecError(f"{shown}: {field} = {_fmt(value)} must be a positive number")
    return v


def _unit_hint(kind: str, v: float) -> str:
    """A guess at the unit mix-up behind an out-of-range value ("" when there is none)."""
    if kind == "peak":
        if v < 1e4:
            return "; a value in TFLOP/s?"
        if v < 1e7:
            return "; a value in GFLOP/s?"
        if v > PEAK_RANGE[1]:
            return "; check the exponent"
    elif kind == "bandwidth":
        if v < 100:
            return "; a value in TB/s?"
        if v < 1e6:
            return "; a value in GB/s?"
        if v > BANDWIDTH_RANGE[1]:
            return "; a value in bits/s?"
    elif kind == "latency":
        if v > LATENCY_RANGE_US[1]:
            return "; a value in ns?"
        if v < LATENCY_RANGE_US[0]:
            return "; a value in ms or s?"
    return ""


def check_range(shown: str, field: str, value: Any, lo: float, hi: float, unit: str, hint_kind: str = "") -> float:
    """Check that ``value`` is a number in ``[lo, hi]``; return it as a float.

    The error names the file (``shown``), the field and the value, and guesses a unit mix-up:
    ``h200-mine.yaml: mem_bytes_per_s.value = 4800 is out of range (expected bytes/s between
    1e9 and 1e14; a value in GB/s?)``.
    """
    v = _number(shown, field, value)
    if not (lo <= v <= hi):
        hint = _unit_hint(hint_kind, v)
        raise SpecError(f"{shown}: {field} = {_fmt(value)} is out of range (expected {unit} between {_num(lo)} and {_num(hi)}{hint})")
    return v


def _figure_limits(slot: str, kind: str) -> Tuple[float, float, str, str]:
    """(lowest, highest, unit, hint kind) for a figure in ``slot``."""
    if slot == "peak_flop_per_s":
        return PEAK_RANGE[0], PEAK_RANGE[1], "FLOP/s", "peak"
    if slot in ("mem_bytes_per_s", "host_link_bytes_per_s"):
        lo = CPU_BANDWIDTH_LOW if kind == "cpu" else BANDWIDTH_RANGE[0]
        return lo, BANDWIDTH_RANGE[1], "bytes/s", "bandwidth"
    if slot == "l2_bytes_per_s":
        return L2_BANDWIDTH_RANGE[0], L2_BANDWIDTH_RANGE[1], "bytes/s", "bandwidth"
    if slot == "launch_latency_us":
        return LATENCY_RANGE_US[0], LATENCY_RANGE_US[1], "microseconds", "latency"
    if slot.startswith("details."):
        lo, hi, unit = DETAIL_RANGES[slot.split(".", 1)[1]]
        return lo, hi, unit, ""
    if slot.startswith("interconnect."):
        lo, hi, unit = INTERCONNECT_RANGES[slot.split(".", 1)[1]]
        return lo, hi, unit, "bandwidth" if unit.startswith("bytes") else ""
    if slot == "cache.capacity_bytes":
        return CACHE_CAPACITY_RANGE[0], CACHE_CAPACITY_RANGE[1], "bytes", ""
    if slot == "cache.bytes_per_s":
        return CACHE_BANDWIDTH_RANGE[0], CACHE_BANDWIDTH_RANGE[1], "bytes/s", "bandwidth"
    raise KeyError(slot)


def check_figure(shown: str, field: str, figure: Figure, slot: str, kind: str) -> Figure:
    """Validate a :class:`Figure` built in code (a measured bandwidth, a derived peak).

    ``slot`` is where it goes (``"mem_bytes_per_s"``, ``"peak_flop_per_s"``,
    ``"launch_latency_us"``, ``"details.sm_count"``...), ``kind`` the device kind. Raises
    SpecError naming ``shown`` and ``field``; returns the figure.
    """
    lo, hi, unit, hint = _figure_limits(slot, kind)
    check_range(shown, f"{field}.value", figure.value, lo, hi, unit, hint)
    if figure.basis not in BASES:
        raise SpecError(f"{shown}: {field}.basis = {_fmt(figure.basis)} is not one of {', '.join(BASES)}")
    if not isinstance(figure.source, str) or not figure.source.strip():
        raise SpecError(f"{shown}: {field}.source is empty; say where the figure comes from")
    return figure


# --------------------------------------------------------------------------------------------
# One file -> figures


class _FileContext:
    """What the figures of one file need to know while they are read."""

    def __init__(self, path: Path, shown: str, packaged: bool, sources: Mapping[str, Mapping[str, str]], kind: str):
        self.path = path
        self.shown = shown
        self.packaged = packaged
        self.sources = sources
        self.kind = kind
        self.default_basis: Basis = "datasheet" if packaged else "user"


def _parse_sources(shown: str, raw: Any) -> Dict[str, Dict[str, str]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SpecError(f"{shown}: sources must be a mapping of names to {{url, where}}, not {_fmt(raw)}")
    out: Dict[str, Dict[str, str]] = {}
    for name, entry in raw.items():
        field = f"sources.{_clip(name, 60)}"
        if not isinstance(entry, dict):
            raise SpecError(f"{shown}: {field} must be a mapping with url and where, not {_fmt(entry)}")
        unknown = sorted(set(entry) - set(SOURCE_KEYS))
        if unknown:
            raise SpecError(f"{shown}: {field}.{_clip(unknown[0], 60)} is not a known key (expected one of {', '.join(SOURCE_KEYS)})")
        url = entry.get("url")
        if not isinstance(url, str) or not url.strip():
            raise SpecError(f"{shown}: {field}.url is missing; give the address of the document")
        where = entry.get("where", "")
        if not isinstance(where, str):
            raise SpecError(f"{shown}: {field}.where = {_fmt(where)} must be text (a page or table)")
        basis = entry.get("basis", None)
        if basis is not None and basis not in BASES:
            raise SpecError(f"{shown}: {field}.basis = {_fmt(basis)} is not one of {', '.join(BASES)}")
        out[str(name)] = {"url": url.strip(), "where": where.strip(), "basis": basis or ""}
    return out


def _figure(ctx: _FileContext, field: str, slot: str, raw: Any) -> Figure:
    """Read one figure (a mapping, or a bare number in a user file)."""
    if isinstance(raw, dict):
        unknown = sorted(set(raw) - set(FIGURE_KEYS))
        if unknown:
            raise SpecError(f"{ctx.shown}: {field}.{_clip(unknown[0], 60)} is not a known key (expected one of {', '.join(FIGURE_KEYS)})")
        if "value" not in raw:
            raise SpecError(f"{ctx.shown}: {field}.value is missing")
        value, source, basis, note = raw["value"], raw.get("source"), raw.get("basis"), raw.get("note")
    elif ctx.packaged:
        raise SpecError(f"{ctx.shown}: {field} = {_fmt(raw)} must be a mapping with value and source")
    else:
        value, source, basis, note = raw, None, None, None
    lo, hi, unit, hint = _figure_limits(slot, ctx.kind)
    v = check_range(ctx.shown, f"{field}.value", value, lo, hi, unit, hint)

    if note is not None and not isinstance(note, str):
        raise SpecError(f"{ctx.shown}: {field}.note = {_fmt(note)} must be text")
    if source is not None and (not isinstance(source, str) or not source.strip()):
        raise SpecError(f"{ctx.shown}: {field}.source = {_fmt(source)} must be a source name or a sentence")
    if source is None and ctx.packaged:
        raise SpecError(f"{ctx.shown}: {field}.source is missing; every shipped figure names its source")

    entry = ctx.sources.get(source.strip()) if source else None
    if basis is None:
        basis = (entry or {}).get("basis") or ctx.default_basis
    if basis not in BASES:
        raise SpecError(f"{ctx.shown}: {field}.basis = {_fmt(basis)} is not one of {', '.join(BASES)}")

    if entry is not None:
        text = entry["url"] + (f", {entry['where']}" if entry["where"] else "")
    elif source:
        text = source.strip()
    else:
        text = ""
    if note:
        text = f"{text}: {note.strip()}" if text else note.strip()
    if not ctx.packaged:
        text = f"{text} (set in {ctx.shown})" if text else f"set in {ctx.shown}"
    return Figure(value=v, basis=basis, source=text)


def _figure_or_none(ctx: _FileContext, data: Mapping[str, Any], key: str) -> Any:
    """The figure under ``key``; ``None`` if the key is absent; ``_REMOVE`` if it is null."""
    if key not in data:
        return None
    if data[key] is None:
        return _REMOVE
    return _figure(ctx, key, key, data[key])


class _Remove:
    def __repr__(self) -> str:
        return "<remove>"


#: A figure given as ``null``: remove the base's figure.
_REMOVE = _Remove()


def _figure_map(ctx: _FileContext, data: Mapping[str, Any], section: str) -> Dict[str, Any]:
    raw = data.get(section)
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SpecError(f"{ctx.shown}: {section} must be a mapping of names to figures, not {_fmt(raw)}")
    out: Dict[str, Any] = {}
    for name, fig in raw.items():
        name = str(name)
        field = f"{section}.{_clip(name, 60)}"
        if section == "peak_flop_per_s" and not _PEAK_KEY_RE.match(name):
            raise SpecError(
                f"{ctx.shown}: {field} is not a known peak (expected <unit>.<dtype> with unit in "
                f"{'/'.join(PEAK_UNITS)} and dtype in {'/'.join(PEAK_DTYPES)})"
            )
        if section == "details" and name not in DETAIL_RANGES:
            raise SpecError(f"{ctx.shown}: {field} is not a known detail (expected one of {', '.join(DETAIL_RANGES)})")
        if section == "interconnect" and name not in INTERCONNECT_RANGES:
            raise SpecError(f"{ctx.shown}: {field} is not a known interconnect figure "
                            f"(expected one of {', '.join(INTERCONNECT_RANGES)})")
        if fig is None:
            out[name] = _REMOVE
            continue
        slot = "peak_flop_per_s" if section == "peak_flop_per_s" else f"{section}.{name}"
        out[name] = _figure(ctx, field, slot, fig)
    return out


def _cache_levels(ctx: _FileContext, data: Mapping[str, Any]) -> Dict[str, Any]:
    """``cache_levels:`` as {name: MemoryLevel or _REMOVE}."""
    raw = data.get("cache_levels")
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SpecError(f"{ctx.shown}: cache_levels must be a mapping of l1/l2/l3 to levels, not {_fmt(raw)}")
    out: Dict[str, Any] = {}
    for name, entry in raw.items():
        field = f"cache_levels.{_clip(name, 60)}"
        if name not in CACHE_LEVEL_NAMES:
            raise SpecError(f"{ctx.shown}: {field} is not a known level (expected one of {', '.join(CACHE_LEVEL_NAMES)})")
        if entry is None:
            out[name] = _REMOVE
            continue
        if not isinstance(entry, dict):
            raise SpecError(f"{ctx.shown}: {field} must be a mapping with capacity_bytes and bytes_per_s, not {_fmt(entry)}")
        unknown = sorted(str(k) for k in entry if k not in CACHE_LEVEL_KEYS)
        if unknown:
            raise SpecError(f"{ctx.shown}: {field}.{_clip(unknown[0], 60)} is not a known key "
                            f"(expected {' and '.join(CACHE_LEVEL_KEYS)})")
        figs = {}
        for key in CACHE_LEVEL_KEYS:
            if key not in entry or entry[key] is None:
                raise SpecError(f"{ctx.shown}: {field}.{key} is missing")
            figs[key] = _figure(ctx, f"{field}.{key}", f"cache.{key}", entry[key])
        out[name] = MemoryLevel(name, figs["capacity_bytes"], figs["bytes_per_s"])
    return out


def _text(shown: str, data: Mapping[str, Any], key: str) -> Optional[str]:
    if key not in data or data[key] is None:
        return None
    value = data[key]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key == "compute_capability":
        value = f"{value}"
    if not isinstance(value, str) or not value.strip():
        raise SpecError(f"{shown}: {key} = {_fmt(value)} must be non-empty text")
    return value.strip()


# --------------------------------------------------------------------------------------------
# Loading with merging


def _shown(path: Path) -> str:
    """A path as error messages show it (its first 200 characters)."""
    return _clip(path)


def load_file(path: "os.PathLike[str] | str", *, packaged: Optional[bool] = None, _chain: Tuple[Path, ...] = ()) -> DeviceSpec:
    """Read, validate and (when it says ``base:``) merge one spec file.

    ``packaged`` marks a shipped file (figures default to basis ``"datasheet"``, must name a
    source, and ``key`` must equal the file's stem); by default it is true for files in
    :func:`packaged_dir`. In other files a figure defaults to basis ``"user"`` and its source
    says which file set it. ``DeviceSpec.origin`` lists the files read, this one first.
    """
    p = Path(path)
    shown = _shown(p)
    resolved = p.resolve()
    if packaged is None:
        packaged = resolved.parent == packaged_dir().resolve()
    if resolved in _chain:
        loop = " -> ".join(str(c) for c in (*_chain, resolved))
        raise SpecError(f"{shown}: base makes a cycle ({loop}); a base may not lead back to this file")
    data = _read_yaml(p, shown, packaged)

    unknown = [k for k in data if k not in TOP_LEVEL_KEYS]
    if unknown:
        raise SpecError(f"{shown}: {_clip(unknown[0])} is not a known top-level key (see docs/spec-format.md)")

    if "schema_version" not in data:
        raise SpecError(f"{shown}: schema_version is missing (expected schema_version: {SCHEMA_VERSION})")
    sv = data["schema_version"]
    if isinstance(sv, bool) or sv != SCHEMA_VERSION:
        raise SpecError(f"{shown}: schema_version = {_fmt(sv)} is not supported (this floorcalc reads schema_version {SCHEMA_VERSION})")

    base_ref = _text(shown, data, "base")
    base: Optional[DeviceSpec] = None
    if base_ref is not None:
        if packaged:
            raise SpecError(f"{shown}: base is for user overrides; a shipped spec gives every figure")
        base = _load_base(base_ref, p, (*_chain, resolved))

    key = _text(shown, data, "key")
    if key is None:
        if packaged:
            raise SpecError(f"{shown}: key is missing (expected key: {p.stem})")
        key = p.stem
    if not _KEY_RE.match(key):
        raise SpecError(f"{shown}: key = {_fmt(key)} must be lower-case letters, digits and . _ + -")
    if packaged and key != p.stem:
        raise SpecError(f"{shown}: key = {_fmt(key)} must equal the file name's stem {_fmt(p.stem)}")

    name = _text(shown, data, "name") or (base.name if base else None)
    kind = _text(shown, data, "kind") or (base.kind if base else None)
    for field, value in (("name", name), ("kind", kind)):
        if value is None:
            raise SpecError(f"{shown}: {field} is missing")
    if kind not in KINDS:
        raise SpecError(f"{shown}: kind = {_fmt(kind)} is not one of {', '.join(KINDS)}")

    for field in ("vendor", "architecture", "compute_capability"):
        _text(shown, data, field)
    if "notes" in data and data["notes"] is not None and not isinstance(data["notes"], str):
        raise SpecError(f"{shown}: notes = {_fmt(data['notes'])} must be text")

    nvml_names: Tuple[str, ...]
    if "nvml_names" in data and data["nvml_names"] is not None:
        raw_names = data["nvml_names"]
        if isinstance(raw_names, str):
            raw_names = [raw_names]
        if not isinstance(raw_names, list) or not all(isinstance(n, str) and n.strip() for n in raw_names):
            raise SpecError(f"{shown}: nvml_names = {_fmt(data['nvml_names'])} must be a list of device names")
        nvml_names = tuple(n.strip() for n in raw_names)
    else:
        nvml_names = base.nvml_names if base else ()

    ctx = _FileContext(p, shown, packaged, _parse_sources(shown, data.get("sources")), kind)
    peaks = _figure_map(ctx, data, "peak_flop_per_s")
    details = _figure_map(ctx, data, "details")
    interconnect = _figure_map(ctx, data, "interconnect")
    levels = _cache_levels(ctx, data)
    singles = {k: _figure_or_none(ctx, data, k) for k in ("mem_bytes_per_s", "launch_latency_us", "l2_bytes_per_s", "host_link_bytes_per_s")}

    cc = _text(shown, data, "compute_capability")
    if cc is not None and "compute_capability" not in details:
        try:
            cc_value = float(cc)
        except ValueError:
            raise SpecError(f"{shown}: compute_capability = {_fmt(cc)} must look like 9.0") from None
        arch = _text(shown, data, "architecture")
        what = f"{arch} architecture, compute capability {cc}" if arch else f"compute capability {cc}"
        details["compute_capability"] = Figure(cc_value, ctx.default_basis, f"{what} (top-level fields of {p.name})")

    merged_peaks = _merge_map(base.peak_flop_per_s if base else {}, peaks)
    merged_details = _merge_map(base.details if base else {}, details)
    merged_interconnect = _merge_map(base.interconnect if base else {}, interconnect)
    merged_levels = _merge_map({lv.name: lv for lv in (base.cache_levels if base else ())}, levels)

    def pick(field: str) -> Optional[Figure]:
        given = singles[field]
        if given is _REMOVE:
            return None
        if given is not None:
            return given
        return getattr(base, field) if base else None

    mem, lat = pick("mem_bytes_per_s"), pick("launch_latency_us")
    if not merged_peaks:
        raise SpecError(f"{shown}: peak_flop_per_s is missing; give at least one dense peak such as tensor.bfloat16")
    for field, value in (("mem_bytes_per_s", mem), ("launch_latency_us", lat)):  # type: ignore[assignment]
        if value is None:
            raise SpecError(f"{shown}: {field} is missing")

    # A base's figures were range-checked for the base's kind; check again if the kind changed.
    if base is not None and kind != base.kind:
        check_figure(shown, "mem_bytes_per_s", mem, "mem_bytes_per_s", kind)  # type: ignore[arg-type]

    return DeviceSpec(
        key=key,
        name=name,  # type: ignore[arg-type]
        kind=kind,
        peak_flop_per_s=merged_peaks,
        mem_bytes_per_s=mem,  # type: ignore[arg-type]
        launch_latency_us=lat,  # type: ignore[arg-type]
        nvml_names=nvml_names,
        l2_bytes_per_s=pick("l2_bytes_per_s"),
        host_link_bytes_per_s=pick("host_link_bytes_per_s"),
        details=merged_details,
        origin=(str(p),) + (base.origin if base else ()),
        cache_levels=tuple(merged_levels[k] for k in CACHE_LEVEL_NAMES if k in merged_levels),
        interconnect=merged_interconnect,
    )


_V = TypeVar("_V")


def _merge_map(base: Mapping[str, _V], over: Mapping[str, Any]) -> Dict[str, _V]:
    out = dict(base)
    for k, v in over.items():
        if v is _REMOVE:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def _looks_like_path(ref: str) -> bool:
    return ref.endswith((".yaml", ".yml")) or os.sep in ref or "/" in ref


def _load_base(ref: str, child: Path, chain: Tuple[Path, ...]) -> DeviceSpec:
    if _looks_like_path(ref):
        path = Path(ref).expanduser()
        if not path.is_absolute():
            path = child.parent / path
        return load_file(path, _chain=chain)
    looped = None
    for path in _registry_paths():
        try:
            key = _file_key(path)
        except SpecError:
            continue  # a broken file elsewhere in the registry is not this file's error
        if key != ref:
            continue
        if path.resolve() in chain:
            looped = looped or path  # a user file shadowing a packaged one of the same key
            continue
        return load_file(path, _chain=chain)
    if looped is not None:
        loop = " -> ".join(str(c) for c in (*chain, looped.resolve()))
        raise SpecError(f"{_shown(child)}: base = {_fmt(ref)} makes a cycle ({loop}); a base may not lead back to this file")
    raise SpecError(f"{_shown(child)}: base = {_fmt(ref)} names no known spec (known: {', '.join(_known_keys())})")


# --------------------------------------------------------------------------------------------
# The registry: user config folder, then packaged folder


def _registry_paths() -> List[Path]:
    return _spec_files(user_config_dir()) + _spec_files(packaged_dir())


def _file_key(path: Path) -> str:
    """A file's key without merging (its ``key:``, else its stem)."""
    data = _read_yaml(path, _shown(path), path.resolve().parent == packaged_dir().resolve())
    key = data.get("key")
    return key.strip() if isinstance(key, str) and key.strip() else path.stem


def _known_keys() -> List[str]:
    seen: List[str] = []
    for path in _registry_paths():
        try:
            k = _file_key(path)
        except SpecError:
            continue
        if k not in seen:
            seen.append(k)
    return seen


def load_spec(ref: str) -> DeviceSpec:
    """Load a spec by key (``"h200"``) or by path to a YAML file.

    A key is looked up in the user config folder first, then among the packaged specs.
    """
    if not isinstance(ref, str) or not ref.strip():
        raise SpecError(f"no device spec named {_fmt(ref)}; {SPEC_HINT}")
    ref = ref.strip()
    if _looks_like_path(ref) or Path(ref).is_file():
        return load_file(Path(ref).expanduser())
    for path in _registry_paths():
        if _file_key(path) == ref:
            return load_file(path)
    raise SpecError(f"no device spec with key {_fmt(ref)} (known: {', '.join(_known_keys())}); {SPEC_HINT}")


def _user_specs() -> List[DeviceSpec]:
    return [load_file(p, packaged=False) for p in _spec_files(user_config_dir())]


def _packaged_specs() -> List[DeviceSpec]:
    return [load_file(p, packaged=True) for p in _spec_files(packaged_dir())]


def list_specs() -> List[DeviceSpec]:
    """Every spec: the user config folder's first, then the packaged ones they do not shadow."""
    user = _user_specs()
    keys = {s.key for s in user}
    return user + [s for s in _packaged_specs() if s.key not in keys]


class _Header(NamedTuple):
    """What :func:`_match_in` reads of a packaged spec file (``key``, ``name``, ``nvml_names``,
    as :func:`load_file` would make them), read from those three top-level entries only."""

    path: Path
    key: str
    name: str
    nvml_names: Tuple[str, ...]


#: A line of a spec file that starts a top-level entry with a plain key (``name: ...``).
_TOP_KEY_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?:[ \t]|$)")
_HEADER_KEYS = ("key", "name", "nvml_names")


def _read_header(path: Path) -> Optional[_Header]:
    """The header of a packaged spec file from its ``key``, ``name`` and ``nvml_names`` entries
    alone (each entry's lines, up to the next top-level key, parsed as YAML; no ``nvml_names``:
    none), or None where the file is laid out in any other way than a block mapping of plain
    keys at column 0, or ``key`` or ``name`` is missing, or an entry is repeated or not what
    :func:`load_file` accepts: the caller then reads every file whole."""
    shown = _shown(path)
    try:
        text = decode_spec_bytes(_read_bytes(path, shown), shown)
    except SpecError:
        return None
    chunks: Dict[str, List[str]] = {}
    current: Optional[List[str]] = None
    for line in text.splitlines():
        if not line or line[0] in " #":
            if current is not None:
                current.append(line)
            continue
        m = _TOP_KEY_RE.match(line)
        if m is None:  # a document marker, a block sequence at column 0, a quoted or complex key...
            return None
        current = None
        if m.group(1) in _HEADER_KEYS:
            if m.group(1) in chunks:
                return None
            current = chunks[m.group(1)] = [line]
    if "key" not in chunks or "name" not in chunks:
        return None
    try:
        data = parse_packaged_text("\n".join(line for k in _HEADER_KEYS for line in chunks.get(k, ())) + "\n", shown)
    except SpecError:
        return None
    key, name, names = data.get("key"), data.get("name"), data.get("nvml_names", [])
    if names is None:
        names = []
    elif isinstance(names, str):
        names = [names]
    if (not isinstance(key, str) or key.strip() != path.stem or not isinstance(name, str) or not name.strip()
            or not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names)):
        return None
    return _Header(path, key.strip(), name.strip(), tuple(n.strip() for n in names))


def match_by_name(gpu_name: str) -> Optional[DeviceSpec]:
    """The spec ``match_spec(gpu_name, list_specs())`` gives, reading whole only the user
    config folder's specs and the one packaged file that matches: the packaged files are
    matched by their headers (:func:`_read_header`; every file read whole where one cannot be).
    Unlike :func:`list_specs`, a packaged file that is malformed beyond its header is not
    noticed unless it is the match (the shipped files are checked by the tests)."""
    user = _user_specs()
    keys = {s.key for s in user}
    headers = [_read_header(p) for p in _spec_files(packaged_dir())]
    if any(h is None for h in headers):
        return match_spec(gpu_name, list_specs())
    if not gpu_name or not gpu_name.strip():
        return None
    candidates: List[Union[DeviceSpec, _Header]] = [*user, *(h for h in headers if h is not None and h.key not in keys)]
    found = _match_in(gpu_name, candidates)
    if isinstance(found, _Header):
        return load_file(found.path, packaged=True)
    return found


# --------------------------------------------------------------------------------------------
# Matching a device name (NVML, or a trace's deviceProperties) to a spec

#: Words that say nothing about which device it is.
_NOISE = {"nvidia", "geforce", "tesla", "quadro", "amd", "instinct", "radeon", "gpu", "tensor", "core", "graphics", "card"}
#: Variant words that must agree between the name and the spec: a PCIe or NVL part is not the
#: SXM part, a Ti is not the plain card.
_VARIANT_RE = re.compile(r"^(nvl|pcie|ti|super|d|mobile|laptop|max-q|maxq|\d+gb)$")
#: Form-factor words that the plain datacenter name implies ("NVIDIA H200" is the SXM part).
_DEFAULT_FORM_RE = re.compile(r"^sxm\d*$")


def _tokens(name: str) -> List[str]:
    out = []
    for tok in re.split(r"[\s\-_/(),]+", name.lower()):
        if tok and tok not in _NOISE:
            out.append(tok)
    return out


def _model_token(tokens: Sequence[str]) -> Optional[str]:
    for tok in tokens:
        if any(c.isdigit() for c in tok) and not re.fullmatch(r"\d+gb", tok):
            return tok
    return None


def _fuzzy_cost(query: Sequence[str], candidate: Sequence[str]) -> Optional[float]:
    """How far ``candidate`` (a spec's name) is from ``query`` (a device's); None: no match."""
    model = _model_token(query)
    if model is None or model not in candidate or _model_token(candidate) != model:
        return None
    q, c = set(query), set(candidate)
    if any(_VARIANT_RE.match(t) and t not in c for t in q):
        return None
    if any(_DEFAULT_FORM_RE.match(t) and t not in c for t in q):
        return None
    cost = 0.0
    for t in c - q:
        if _VARIANT_RE.match(t):
            cost += 0.1 if t.endswith("gb") else 1.0
        elif _DEFAULT_FORM_RE.match(t):
            cost += 0.0
        else:
            cost += 0.01
    return cost


class _Named(Protocol):
    """What :func:`_match_in` reads of a spec: a :class:`DeviceSpec` or a file's :class:`_Header`."""

    @property
    def key(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def nvml_names(self) -> Tuple[str, ...]: ...


_N = TypeVar("_N", bound=_Named)


def _match_in(gpu_name: str, specs: Sequence[_N]) -> Optional[_N]:
    name = gpu_name.strip()
    for spec in specs:
        if name in spec.nvml_names:
            return spec
    folded = name.casefold()
    for spec in specs:
        if any(folded == n.casefold() for n in spec.nvml_names):
            return spec
    query = _tokens(name)
    best: List[Tuple[float, _N]] = []
    for spec in specs:
        costs = [c for c in (_fuzzy_cost(query, _tokens(t)) for t in (*spec.nvml_names, spec.name)) if c is not None]
        if costs:
            best.append((min(costs), spec))
    if not best:
        return None
    best.sort(key=lambda item: item[0])
    if len(best) > 1 and best[1][0] - best[0][0] < 1e-9 and best[1][1].key != best[0][1].key:
        return None  # two specs fit equally well: refuse to guess
    return best[0][1]


def match_spec(gpu_name: str, specs: Optional[Iterable[DeviceSpec]] = None) -> Optional[DeviceSpec]:
    """The spec for a device name as NVML or a trace's ``deviceProperties`` reports it.

    Exact ``nvml_names`` first (then case-insensitive), then a normalised match on the model
    token ("h200", "a100", "4090") in which variant words must agree (PCIe, NVL, Ti, a memory
    size such as 40GB) and the plain datacenter name means the SXM part: "NVIDIA H200" matches
    ``h200``, never ``h200-nvl``. Returns None when nothing fits or two specs fit equally.
    ``specs`` defaults to the user config folder's specs, tried before the packaged ones.
    """
    if not gpu_name or not gpu_name.strip():
        return None
    if specs is not None:
        return _match_in(gpu_name, list(specs))
    user = _user_specs()
    found = _match_in(gpu_name, user) if user else None
    return found if found is not None else _match_in(gpu_name, _packaged_specs())


def resolve_spec(
    target: str,
    gpu_name: Optional[str] = None,
    spec_path: Optional[str] = None,
    cpu: Optional[DeviceSpec] = None,
) -> DeviceSpec:
    """The spec to use for a run on ``target`` (``"cuda"`` or ``"cpu"``).

    cuda: ``spec_path`` (the user's ``--spec`` file) > a match for ``gpu_name`` in the user
    config folder > a match among the packaged specs; no match is a SpecError.
    cpu: ``spec_path`` if given, else ``cpu`` (a spec derived for this host), else
    ``cpu-generic``.
    """
    if target == "cuda":
        if spec_path:
            return load_spec(spec_path)
        if not gpu_name:
            raise SpecError(f"no GPU name to match a device spec to; {SPEC_HINT}")
        spec = match_spec(gpu_name)
        if spec is None:
            raise SpecError(f"no device spec matches {_fmt(gpu_name)}; {SPEC_HINT}")
        return spec
    if target == "cpu":
        if spec_path:
            return load_spec(spec_path)
        if cpu is not None:
            return cpu
        return load_spec("cpu-generic")
    raise UsageError(f"unknown target {_fmt(target)}; expected 'cuda' or 'cpu'")


#: What a report made without a device spec (:func:`no_spec`) says it lacks, in one line.
NO_SPEC_NOTE = ("no device spec (pass --spec FILE.yaml or a packaged key such as h100): a spec would add the floors, "
                "efficiencies and bounds of ops and kernels, MFU and MBU, the floor/inefficiency split of kernel time "
                "and copy floors; the timeline (gaps, syncs, copies, launches, the rest of the decomposition), the "
                "counts (FLOPs, bytes) and achieved rates here need none")


def no_spec(name: str, why: str, kind: DeviceKind = "gpu") -> DeviceSpec:
    """The stand-in for a run no spec fits and none can be derived for (an unnamed GPU, a part no
    spec matches with too few properties in its trace, an accelerator floorcalc has no figures
    for): key :data:`~floorcalc.records.NO_SPEC_KEY`, ``name`` as the trace names the device
    (or "unknown GPU"), no peaks, and placeholder figures of 0 with basis ``assumed`` and
    ``why`` as their source. :attr:`DeviceSpec.has_ceilings` is False: classify counts but floors
    nothing against it, the timeline reads only what needs no ceiling, and every output says
    what a spec would add (:data:`NO_SPEC_NOTE`). Raises nothing."""
    placeholder = Figure(0.0, "assumed", f"no spec: {why}")
    return DeviceSpec(key=NO_SPEC_KEY, name=name or "unknown GPU", kind=kind, peak_flop_per_s={},
                      mem_bytes_per_s=placeholder, launch_latency_us=placeholder, origin=(f"no spec: {why}",))
