"""floorcalc: how far each kernel of a PyTorch forward pass is from the hardware floor.

The pipeline, one package or module a stage::

    capture -> trace -> counting -> device -> floor -> classify -> render

Only :mod:`floorcalc.capture` imports torch at call time; the later stages work on the typed
records of :mod:`floorcalc.records` and can be driven by hand.
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
