"""Issue 15's proof: what-if projections from one committed H200 trace against the measured
step time of another (docs/examples/whatif.md, docs/examples/whatif.proof.json).

    python3 tools/whatif_proof.py            # print the table (Markdown)
    python3 tools/whatif_proof.py --write    # rewrite docs/examples/whatif.proof.json

Each pair: a trace the projection is made from, the scenario (and its argument), the trace of the
run that did it for real, and the measured step time of that run (its bare, unprofiled wall, as
the capture timed it). tests/integration/test_whatif_proof.py recomputes every pair from the
committed traces and fails when a projection drifts from the committed file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PROOF = ROOT / "docs" / "examples" / "whatif.proof.json"

#: (projected from, scenario, argument, measured run); traces under tests/data/ unless a path
PAIRS: List[Tuple[str, str, Optional[str], str]] = [
    ("h200_llama_decode_eager", "no_host_overhead", None, "h200_llama_decode_graphs"),
    ("h200_mlp_eager", "no_host_overhead", None, "h200_mlp_graphs"),
    ("h200_llama_decode_eager", "fused_elementwise", None, "h200_llama_decode_compiled"),
    ("h200_mlp_eager", "fused_elementwise", None, "h200_mlp_compiled"),
]


def _trace(name: str) -> Path:
    p = ROOT / "tests" / "data" / f"{name}.trace.json.gz"
    return p if p.exists() else ROOT / name


def _report(name: str, cache: Dict[str, Any]) -> Any:
    from floorcalc.analysis import analyze_file

    if name not in cache:
        cache[name] = analyze_file(_trace(name))[0]
    return cache[name]


def pairs() -> List[Dict[str, Any]]:
    """Every pair of :data:`PAIRS`, projected and measured, per pass (microseconds)."""
    from floorcalc.whatif.project import project

    cache: Dict[str, Any] = {}
    out = []
    for src, scenario, arg, measured in PAIRS:
        rep = _report(src, cache)
        w = rep.whatif
        if scenario == "batch":
            w = project(rep, w.basis, batches=[int(arg)])
        elif scenario == "device":
            from floorcalc.device.spec import load_spec

            w = project(rep, w.basis, on=[load_spec(arg)])
        proj = next(p for p in w.projections if p.scenario == scenario)
        got = _report(measured, cache).summary
        m = got.bare_wall_us or got.wall_us
        out.append({"from": src, "scenario": scenario, "argument": arg, "measured_run": measured,
                    "from_us": w.measured.step_us, "projected_us": proj.step_us, "measured_us": m,
                    "error": proj.step_us / m - 1})
    return out


def table(rows: List[Dict[str, Any]]) -> str:
    lines = ["| projected from | scenario | from (us) | projected (us) | measured run | measured (us) | error |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: |"]
    for r in rows:
        what = r["scenario"] + (f" {r['argument']}" if r["argument"] else "")
        lines.append(f"| `{r['from']}` | {what} | {r['from_us']:.1f} | {r['projected_us']:.1f} | "
                     f"`{r['measured_run']}` | {r['measured_us']:.1f} | {r['error']:+.1%} |")
    return "\n".join(lines)


def main(argv: List[str]) -> int:
    rows = pairs()
    print(table(rows))
    if "--write" in argv:
        PROOF.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
