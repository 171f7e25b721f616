"""torch.profiler sessions that do not import Inductor: :func:`profile`.

``torch.profiler.profile.prepare_trace`` (torch 2.1 on) asks ``hasattr(torch, "_inductor")``
to read ``torch._inductor.config.triton.cudagraphs``; ``torch._inductor`` is one of torch's
lazy modules, so that question imports Inductor, Dynamo and sympy: 1.6 CPU seconds on the
project's 2-core machine (torch 2.13, measured 2026-12-01), more than the rest of a CPU
``report`` of a small model. When Inductor has not been imported, nothing compiled with it
can run, and the flag it would read stays at the profiler's own default (``has_cudagraphs``
False); so while such a session starts, ``_inductor`` is left out of torch's lazy modules and
the question is answered no without the import. With Inductor imported already (``--compile``,
the user's own compiled model), the session starts exactly as torch starts it.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Iterator

__all__ = ["profile"]


@contextlib.contextmanager
def _inductor_not_lazy() -> Iterator[None]:
    """While inside, ``hasattr(torch, "_inductor")`` is False unless Inductor is imported."""
    import torch

    lazy = getattr(torch, "_lazy_modules", None)
    if "torch._inductor" in sys.modules or not isinstance(lazy, set) or "_inductor" not in lazy:
        yield
        return
    lazy.discard("_inductor")
    try:
        yield
    finally:
        lazy.add("_inductor")


def profile(*args: Any, **kwargs: Any) -> Any:
    """A ``torch.profiler.profile(*args, **kwargs)`` whose start does not import Inductor
    (module notes); use it as torch's, in a ``with`` block. Raises what torch's raises."""
    from torch.profiler import profile as torch_profile

    prof = torch_profile(*args, **kwargs)
    start = prof.start  # what __enter__ calls: prepare_trace (the lazy import) and start_trace

    def start_without_inductor() -> None:
        with _inductor_not_lazy():
            start()

    prof.start = start_without_inductor
    return prof
