"""Hardware counters beside the floors: an Nsight Compute CSV read into typed records
(:mod:`floorcalc.counters.ncu_csv`) and joined, as a pure function, to a report's work units
(:mod:`floorcalc.counters.join`); the verdict of each kernel (:mod:`floorcalc.counters.verdict`).
No GPU and no ncu here: :mod:`floorcalc.capture.ncu` records the CSV.
"""
