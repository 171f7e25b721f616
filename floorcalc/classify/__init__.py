"""Classify stage: measured work attributed to ops, counted and floored once, then the rows.

* :mod:`floorcalc.classify.units`: :func:`~floorcalc.classify.units.classify` (a trace's
  :class:`~floorcalc.records.WorkUnit` records, each device event's part of the floor) and the
  per-pass op rows, kernel rows and summary built from them.
* :mod:`floorcalc.classify.fallback`: what no formula counts, counted from the op tree (free
  views, long stacks, bytes-only floors).
* :mod:`floorcalc.classify.kernel_names`: a device event's role inside its op, read from its
  kind and name.
* :mod:`floorcalc.classify.grouping`: the op rows grouped (by layer, op, module), a pure
  function of the rows.
"""
