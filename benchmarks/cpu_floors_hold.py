"""Do CPU floors hold on this machine? Each bundled example (or those named) is reported on the
CPU in float32 and in bfloat16 (FLOORCALC_DTYPE, examples/_dtype.py), and every op instance of
the profiled passes is checked against its floor: one that ran in less than 0.95 x its floor
breaks it (the floor is a lower bound; the peaks and bandwidths it divides by are this
machine's measured ceilings, `floorcalc calibrate --device cpu`).

    python benchmarks/cpu_floors_hold.py [--dtypes float32,bfloat16] [--out DIR] [EXAMPLE ...]

Prints one line per example and dtype: instances, how many broke the floor, the worst few
(op, measured us, floor us, the bound and the peak key); exit 1 when any broke it. A run takes
a minute or so per example on a 2-core machine. By hand, not in CI: the figures depend on the
machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's floorcalc, in the reports (cwd) and in the check
HOLD = 0.95
#: The single-process examples (the distributed ones run with --nproc-per-node: see their files).
DEFAULT = ("mlp", "gpt2", "llama", "llama_decode", "resnet50", "vit", "unet", "moe")


def check(trace: Path) -> tuple[int, list[str]]:
    """(op instances floored, lines for those below HOLD x their floor, worst first)."""
    try:
        from floorcalc.analysis.driver import analyze
    except ImportError:  # a checkout from before floorcalc/analysis/ was a package
        from floorcalc.analysis import analyze  # type: ignore[attr-defined,no-redef]
    from floorcalc.trace import load

    rep = analyze(load(trace))
    below, n = [], 0
    for u in rep.units:
        if u.floor is None or u.floor.floor_us <= 0:
            continue
        n += 1
        if u.duration_us < HOLD * u.floor.floor_us:
            below.append((u.duration_us / u.floor.floor_us,
                          f"{u.name} {u.count.dtype if u.count else ''} {u.duration_us:.1f} us < floor "
                          f"{u.floor.floor_us:.1f} us ({u.floor.bound}, {u.floor.peak_key or ''}, "
                          f"{u.count.flop if u.count else 0:.3g} FLOP, {u.count.bytes if u.count else 0:.3g} B)"))
    return n, [f"{r:.2f}x {line}" for r, line in sorted(below)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("examples", nargs="*", default=list(DEFAULT))
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--out", default=None, help="folder for the traces (default: a temporary one)")
    ap.add_argument("--iters", default="5")
    args = ap.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="floorcalc-cpu-floors-"))
    out.mkdir(parents=True, exist_ok=True)
    broke = 0
    for name in args.examples:
        for dt in args.dtypes.split(","):
            trace = out / f"{name}.{dt}.trace.json.gz"
            env = {**os.environ, "FLOORCALC_DTYPE": dt}
            r = subprocess.run([sys.executable, "-m", "floorcalc", "report", str(ROOT / "examples" / f"{name}.py"),
                                "--device", "cpu", "--iters", args.iters, "--trace-out", str(trace), "--force",
                                "--quiet", "-o", str(out / f"{name}.{dt}.json")], env=env, capture_output=True, text=True,
                               cwd=ROOT)
            if r.returncode != 0:
                print(f"{name} {dt}: report failed ({r.returncode}): {r.stderr.strip().splitlines()[-1:]}")
                broke += 1
                continue
            n, below = check(trace)
            broke += bool(below)
            print(f"{name} {dt}: {n} op instances, {len(below)} below {HOLD} x floor"
                  + "".join(f"\n    {line}" for line in below[:6]), flush=True)
    print(f"traces in {out}")
    return 1 if broke else 0


if __name__ == "__main__":
    sys.exit(main())
