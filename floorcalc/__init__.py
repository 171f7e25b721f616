"""floorcalc: how far each kernel of a PyTorch forward pass is from the hardware floor.

The pipeline, one package or module a stage::

    capture -> trace -> counting -> device -> floor -> classify -> render

Only :mod:`floorcalc.capture` imports torch at call time; the later stages work on the typed
records of :mod:`floorcalc.records` and can be driven by hand.
"""

__version__ = "0.1.0"
