"""The C heap of a ``floorcalc`` process told to keep the memory it frees: :func:`keep_freed_memory`.

Reading a trace allocates and frees the same few kinds of blocks over and over: a batch's
decoded text (256 kB), its columns (numpy arrays of a few kB to tens of MB), the analysis's
temporary arrays. glibc's malloc, by default, serves a block over its *mmap threshold* (128 kB
at first, raised towards 32 MB as such blocks are freed) with a fresh ``mmap`` and returns it
with ``munmap`` when freed, and gives the top of its heap back to the kernel whenever more than
its *trim threshold* (twice the mmap threshold) is free there. Each block taken again from the
kernel is zero-filled page by page on first touch: on the 1M-event benchmark trace
(benchmarks/analyze_scale.py, 2026-12-04, the project's 2-core machine) ``analyze`` took 190k
page faults, 0.52-0.66 s of system time, of 4.4-4.5 CPU s.

With the mmap threshold fixed at 32 MB (glibc's largest; blocks above it are the biggest
columns, still given back when freed) and the trim threshold at 256 MB, the same run took
100k faults and 0.24-0.27 s of system time, 3.97-3.99 CPU s in all, and its peak RSS grew from
313 to 351 MB (memory freed is kept for the next batch instead of being handed back).

Process-wide, so only a process that is floorcalc's own calls it (:func:`floorcalc.cli.console`):
the library's functions leave the caller's allocator as it is. A no-op where the C library is
not glibc (musl, macOS, Windows) or ``mallopt`` refuses.
"""

from __future__ import annotations

import ctypes
import sys

__all__ = ["keep_freed_memory", "MMAP_THRESHOLD_BYTES", "TRIM_THRESHOLD_BYTES"]

#: blocks at or above this are mmapped (glibc's maximum on 64-bit: 4 MB x sizeof(long))
MMAP_THRESHOLD_BYTES = 32 << 20
#: free memory kept at the heap's top before it is given back to the kernel
TRIM_THRESHOLD_BYTES = 256 << 20

# glibc's <malloc.h>
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def keep_freed_memory() -> bool:
    """Set the mmap and trim thresholds of glibc's malloc (see the module notes); whether both
    were set. Never raises: where they cannot be set the process keeps its defaults."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        # the process's own symbols, the C library's among them (ctypes.util.find_library would
        # run ldconfig in a child process: 10 ms of each command)
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mmap first: setting it turns off glibc's dynamic thresholds, which would move the trim one
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES))
