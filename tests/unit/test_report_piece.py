"""render.run.compress/decompress, the zlib format of a rank's report piece: ISA-L's where it is
installed, zlib's where not; each reads the other's, and zlib.decompress reads both."""

from __future__ import annotations

import random
import sys
import zlib

import pytest

from floorcalc.render import run


def _texts():
    rng = random.Random(3)
    yield b""
    yield b"{}\n"
    yield b"".join(b'{"a": %d, "b": %r}\n' % (rng.randrange(1000), rng.random()) for _ in range(20000))
    yield bytes(rng.randrange(256) for _ in range(5000))


@pytest.mark.parametrize("k", range(4))
def test_a_piece_reads_back_whichever_compressed_it(k, monkeypatch):
    data = list(_texts())[k]
    fast = run.compress(data)
    assert zlib.decompress(fast) == data and run.decompress(fast) == data
    assert run.decompress(zlib.compress(data, 1)) == data
    monkeypatch.setitem(sys.modules, "isal", None)     # python-isal not installed: zlib's
    slow = run.compress(data)
    assert slow == zlib.compress(data, 1) and run.decompress(fast) == data and run.decompress(slow) == data


def test_isal_compresses_where_installed():
    pytest.importorskip("isal")
    data = list(_texts())[2]
    assert run.compress(data) != zlib.compress(data, 1)    # ISA-L's stream, not zlib's
    assert type(run.compress(data)) is bytes and type(run.decompress(run.compress(data))) is bytes
