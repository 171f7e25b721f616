"""Render stage: turn a :class:`floorcalc.records.Report` into text, tables or files.

Each renderer takes a Report and its own options; nothing else knows about output formats.
"""
