"""floorcalc: how far each kernel of a PyTorch forward pass is from the hardware floor.

The pipeline, one package a stage, each importing only the stages before it (docs/architecture.md
draws it; tests/unit/test_layout.py checks the import graph)::

    records, util                                  the typed records between stages; infrastructure
    trace -> counting -> device -> floor           a trace file; counts, specs and floors of work
      -> classify -> timeline -> whatif            work units, rows, where the time goes, what if
      -> counters                                  Nsight Compute's counters joined to the kernels
      -> analysis -> compare -> render             the Report; two compared; every output format
      -> distributed -> capture -> cli, api        many ranks; running a model; the entry points

:mod:`floorcalc.capture` runs first in time (it profiles the model and writes the trace) and is
the only stage that imports torch at call time; every other one works on the records of
:mod:`floorcalc.records` and can be driven by hand.
"""

__version__ = "0.1.0"

#: the Python API (floorcalc/api.py), imported on first use so that ``import floorcalc`` stays light
_API = ("report", "analyze", "analyze_run", "on_trace_ready", "label_modules", "load_report", "diff", "Report", "Run", "TraceHandler")


def __getattr__(name: str):
    if name in _API:
        from floorcalc import api

        return getattr(api, name)
    raise AttributeError(f"module 'floorcalc' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))
