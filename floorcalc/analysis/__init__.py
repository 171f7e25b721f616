"""Analysis stage: from a parsed trace and the user's options to a :class:`~floorcalc.records.Report`.

* :mod:`floorcalc.analysis.driver`: the entry points every command and the Python API share
  (:func:`~floorcalc.analysis.driver.analyze`, ``analyze_file``; a run of several ranks:
  floorcalc.distributed.analyze_run), the checks of
  the options against the trace, and the assembly of the report from the stages.
* :mod:`floorcalc.analysis.notes`: the report's notes, one small function each (``NOTES``), and
  its one list of notes and warnings.
* :mod:`floorcalc.analysis.plausibility`: the figures no hardware can produce, each with its
  likely cause, and trace defects clipped before classify.
"""
