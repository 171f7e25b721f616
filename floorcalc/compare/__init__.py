"""Compare stage, after analysis: two :class:`~floorcalc.records.Report` records (made by the
analysis, or read back from JSON) to a :class:`~floorcalc.compare.reports.Comparison`
(:mod:`floorcalc.compare.reports`), which ``floorcalc diff`` renders."""
