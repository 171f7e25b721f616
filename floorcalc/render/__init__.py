"""Render stage: turn a document (a :class:`floorcalc.records.Report`, a
:class:`floorcalc.compare.reports.Comparison`, a count) into text, tables or files.

Each format is a :class:`floorcalc.render.base.Renderer` with its own options, listed once in
:mod:`floorcalc.render.registry`; nothing else knows about output formats. The report's JSON is
read back by :mod:`floorcalc.render.jsonread`.
"""
