"""floorcalc.util.memory: giving freed C-heap pages back never fails and frees nothing live."""

import platform
import sys

from floorcalc.util.memory import release_free_memory


def test_release_runs_where_glibc_is_and_keeps_live_objects():
    kept = [bytes(1000) for _ in range(2000)]
    freed = [bytes(1000) for _ in range(20000)]
    del freed
    ran = release_free_memory()
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert ran is glibc                                          # glibc's malloc_trim ran; elsewhere nothing
    assert len(kept) == 2000 and all(len(b) == 1000 and not any(b[:8]) for b in kept)
    assert release_free_memory() is ran                          # the library looked up once, same answer
