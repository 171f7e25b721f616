"""floorcalc.util.heap: the C heap of a floorcalc process keeps blocks under 32 MB out of mmap
(glibc's counters say where a block went), and the call is a no-op where it cannot apply."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from floorcalc.util import heap

ROOT = Path(__file__).resolve().parents[2]

# In a child (the setting is process-wide): 4 MB taken with malloc, then how many blocks glibc
# holds mmapped (mallinfo2's hblks) while it is held, with the heap told or not.
_CHILD = r"""
import ctypes, json, sys
from floorcalc.util import heap
told = heap.keep_freed_memory() if sys.argv[1] == "on" else None

class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)
libc.mallinfo2.restype = Info
before = libc.mallinfo2().hblks
p = libc.malloc(4 << 20)
during = libc.mallinfo2().hblks
libc.free(p)
print(json.dumps({"told": told, "mmapped": during - before}))
"""

glibc = pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                           reason="glibc's malloc only")


def _child(mode: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env = {k: v for k, v in env.items() if not k.startswith("MALLOC_")}   # glibc's own settings
    out = subprocess.run([sys.executable, "-c", _CHILD, mode], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@glibc
def test_a_4_mb_block_comes_from_the_heap_once_told_and_from_mmap_before():
    assert _child("off") == {"told": None, "mmapped": 1}       # glibc's default: 128 kB threshold
    assert _child("on") == {"told": True, "mmapped": 0}


@glibc
def test_the_console_entry_tells_the_heap(monkeypatch):
    import atexit

    import floorcalc.cli as cli
    from floorcalc.util import methodcache

    calls = []
    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: None)   # this process's handlers are pytest's
    monkeypatch.setattr(methodcache, "install", lambda: False)
    monkeypatch.setattr(cli, "_one_blas_thread", lambda argv: None)
    monkeypatch.setattr(heap, "keep_freed_memory", lambda: calls.append(1) or True)
    monkeypatch.setattr(cli, "main", lambda: 0)
    monkeypatch.setattr(cli.os, "_exit", lambda code: calls.append(("exit", code)))
    cli.console()
    assert calls == [1, ("exit", 0)]


def test_other_systems_keep_their_allocator(monkeypatch):
    monkeypatch.setattr(heap.sys, "platform", "darwin")
    assert heap.keep_freed_memory() is False
