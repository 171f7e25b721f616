"""Turn a bus-bandwidth sweep measured outside `floorcalc calibrate` into a calibrated spec overlay.

    python3 tools/nccl_sweep_spec.py SWEEP.json -o OUT.yaml --device "NVIDIA H200" --base h200 \\
        --date 2026-11-30 --how "timed with CUDA events, 5 warm-up, mean of 20" [--force]

SWEEP.json is the sweep the H200 pair's job wrote (tests/data/distributed/h200x2_nccl_sweep.json):
``{"world": N, "sweep": [{"op", "bytes", "s", "algbw", "busbw"}, ...], "nccl": [major, minor,
patch]}``, one mean time ``s`` (seconds) per collective and size, sizes by nccl-tests' convention.
The figures are made exactly as `floorcalc calibrate --collectives-only` makes its own
(floorcalc.device.calibration.bus_bandwidth: per collective the size with the highest bus
bandwidth, the nccl-tests factors of floorcalc.counting.collectives) and written by the same
``to_yaml``: ``interconnect.<collective>_bus_bytes_per_s`` over ``base``, each with its source.
A sweep without a message of at most 64 KiB measures no latency, so the overlay gives no
``collective_latency_us`` and the base spec's stays. The file's own ``busbw`` must agree with
the one recomputed from ``bytes`` and ``s`` (to 0.1%), or the sweep used other conventions and is
refused.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from floorcalc.counting.collectives import BUS_FACTORS  # noqa: E402
from floorcalc.device.calibration import Calibration, bus_bandwidth, to_yaml  # noqa: E402
from floorcalc.util.output import write_atomic  # noqa: E402


def calibration(sweep: Mapping[str, Any], *, device: str, base: str, date: str, how: str, source: str) -> Calibration:
    """The :class:`Calibration` (collectives only) of ``sweep`` (the format of the module notes).

    ``source``: where the sweep file is kept (named in every figure's source). Raises ValueError
    for a sweep of fewer than 2 ranks, an unknown collective, or a ``busbw`` that the nccl-tests
    factor does not give from ``bytes`` and ``s``."""
    world = int(sweep["world"])
    if world < 2:
        raise ValueError(f"a bus-bandwidth sweep needs at least 2 ranks, not {world}")
    times: Dict[str, Dict[int, List[float]]] = {}
    for row in sweep["sweep"]:
        op, size, t = str(row["op"]), int(row["bytes"]), float(row["s"])
        if op not in BUS_FACTORS:
            raise ValueError(f"unknown collective {op!r} in the sweep")
        busbw = size / t * BUS_FACTORS[op](world)
        if "busbw" in row and not math.isclose(busbw, float(row["busbw"]), rel_tol=1e-3):
            raise ValueError(f"{op} {size} B: the sweep's busbw {row['busbw']:.4g} is not bytes / s x the nccl-tests "
                             f"factor ({busbw:.4g}): other conventions")
        times.setdefault(op, {}).setdefault(size, []).append(t)
    nccl = ".".join(str(x) for x in sweep.get("nccl", ()))
    cal = Calibration(device_name=device, base_key=base, date=date, world_size=world,
                      measured_by=f"the sweep in {source}")
    cal.environment = {"NCCL": nccl} if nccl else {}
    for op, by_size in sorted(times.items()):
        method = (f"torch.distributed NCCL {op} over {world} ranks, one process per GPU, {how}; "
                  f"{len(by_size)} sizes, {min(by_size)} to {max(by_size)} bytes")
        cal.collectives[op] = bus_bandwidth(op, world, by_size, method)
    return cal


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sweep", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument("--device", required=True, help="the GPU's name, as the spec's name says it")
    p.add_argument("--base", required=True, help="the spec key the overlay goes over (h200)")
    p.add_argument("--date", required=True, help="when the sweep was measured (YYYY-MM-DD)")
    p.add_argument("--how", required=True, help="how each time was taken, in words")
    p.add_argument("--source", default=None, help="where the sweep is kept (default: its path)")
    p.add_argument("--force", action="store_true")
    a = p.parse_args(argv)
    cal = calibration(json.loads(a.sweep.read_text()), device=a.device, base=a.base, date=a.date, how=a.how,
                      source=a.source or str(a.sweep))
    write_atomic(a.output, to_yaml(cal), force=a.force)
    for op, m in sorted(cal.collectives.items()):
        print(f"{op}: {m.value / 1e9:.1f} GB/s bus bandwidth (reached by {m.reached_by})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
