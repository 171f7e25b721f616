"""Trace stage: read Kineto traces into :class:`floorcalc.records.Trace` records."""

from floorcalc.trace.join import children_index
from floorcalc.trace.kineto import load, parse, read_json

__all__ = ["load", "parse", "read_json", "children_index"]
