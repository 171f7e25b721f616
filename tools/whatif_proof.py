"""The what-if proof (issues 15 and 24): projections from one committed H200 trace against the
run that did it for real (docs/examples/whatif.md, docs/examples/whatif.proof.json), and each
scenario's error range written into floorcalc/whatif/validation.py, which every projection of
that scenario then carries (``Projection.validated``).

    python3 tools/whatif_proof.py            # print the table (Markdown) and the ranges
    python3 tools/whatif_proof.py --write    # rewrite whatif.proof.json and validation.RANGES

Each pair: a trace the projection is made from, the scenario (and its argument), the trace of the
run that did it for real, and whether the pair's model was held out of every choice of rule
(the rules were chosen on the Llama-style and GPT-2-medium-style prefills only). Two errors per
row: the **device** part's (the source run's device busy time changed by what the projection
changes in its device parts, against the measured run's device busy time) and the **step**'s
(the projected step against the measured run's bare, unprofiled step, as its capture timed it;
"not known" where the projection gives no step). A step is **device-bound** when the measured
run's device was busy for at least :data:`DEVICE_BOUND` of its bare step. Scenario "measured"
projects nothing: two runs of the same work, whose difference is the run-to-run spread.
tests/integration/test_whatif_proof.py recomputes every pair from the committed traces and
fails when a projection, the table or the ranges drift.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PROOF = ROOT / "docs" / "examples" / "whatif.proof.json"
VALIDATION = ROOT / "floorcalc" / "whatif" / "validation.py"
#: issue 24's runs (tools/whatif_record.py): tests/data/whatif/h200_<model>_b<B>_s<S>_<mode>
RUNS = ROOT / "tests" / "data" / "whatif"

#: a measured step is device-bound when its device was busy this share of it or more
DEVICE_BOUND = 0.9

#: the models no rule was chosen on (their pairs are marked held out)
HELD_OUT = ("mistral", "qwen2", "exllama", "decode", "phi3", "gemma")
#: runs of the second recording session (tools/whatif_record.py --set final) end in this
SECOND = "_r2"

#: the prefills of issue 24: model, and its recorded (batch, sequence) points
PREFILLS = ("llama", "gpt2m", "mistral", "qwen2")
BATCHES = (1, 2, 8, 16)
SEQS = (128, 2048)

Pair = Tuple[str, str, Optional[str], str]

#: the third session's prefills (model, batch, tokens), eager and compiled
#: (tools/whatif_record.py --set check): shapes recorded after the fusion rules were chosen,
#: their last check
CHECK = [("gemma", 16, 512), ("phi3", 4, 2048), ("qwen2", 8, 1024), ("mistral", 2, 2048), ("llama", 8, 256)]
#: runs of the third recording session end in this
THIRD = "_r3"


def _prefill_pairs() -> List[Pair]:
    out: List[Pair] = []
    for m in PREFILLS:
        src = f"h200_{m}_b4_s512_eager"
        out += [(src, "batch", str(b), f"h200_{m}_b{b}_s512_eager") for b in BATCHES]
        out += [(src, "seq", str(s), f"h200_{m}_b4_s{s}_eager") for s in SEQS]
    src = "h200_exllama_b4_s512_eager"
    out += [(src, "batch", str(b), f"h200_exllama_b{b}_s512_eager") for b in (1, 16)]
    out += [(src, "seq", "128", "h200_exllama_b4_s128_eager")]
    # a decode step against another cache length (attention linear in the positions), graph replay
    out += [("h200_decode_b8_c128_cuda-graphs", "seq", "1001", "h200_decode_b8_c1000_cuda-graphs"),
            ("h200_decode_b8_c1000_cuda-graphs", "seq", "129", "h200_decode_b8_c128_cuda-graphs")]
    for m in PREFILLS:
        src = f"h200_{m}_b4_s512_eager"
        out += [(src, "no_host_overhead", None, f"h200_{m}_b4_s512_cuda-graphs"),
                (src, "fused_elementwise", None, f"h200_{m}_b4_s512_compile")]
    for m in PREFILLS[:2]:
        out += [(f"h200_{m}_b4_s512_eager", "fused_no_host", None, f"h200_{m}_b4_s512_compile_cuda-graphs")]
    out += [("h200_llama_b16_s512_eager", "fused_elementwise", None, "h200_llama_b16_s512_compile"),
            ("h200_llama_b4_s2048_eager", "fused_elementwise", None, "h200_llama_b4_s2048_compile")]
    # the second session: the same sweeps replayed from CUDA graphs (device-bound steps)
    r2 = SECOND
    for m in PREFILLS:
        src = f"h200_{m}_b4_s512_cuda-graphs{r2}"
        out += [(src, "batch", str(b), f"h200_{m}_b{b}_s512_cuda-graphs{r2}") for b in BATCHES]
        out += [(src, "seq", str(s), f"h200_{m}_b4_s{s}_cuda-graphs{r2}") for s in SEQS]
    # models no rule was chosen on, eager and replayed, and their fused runs
    for m in ("phi3", "gemma"):
        for mode in ("eager", "cuda-graphs"):
            src = f"h200_{m}_b4_s512_{mode}{r2}"
            out += [(src, "batch", str(b), f"h200_{m}_b{b}_s512_{mode}{r2}") for b in (1, 16)]
            out += [(src, "seq", str(s), f"h200_{m}_b4_s{s}_{mode}{r2}") for s in SEQS]
        src = f"h200_{m}_b4_s512_eager{r2}"
        out += [(src, "no_host_overhead", None, f"h200_{m}_b4_s512_cuda-graphs{r2}"),
                (src, "fused_elementwise", None, f"h200_{m}_b4_s512_compile{r2}"),
                (src, "fused_no_host", None, f"h200_{m}_b4_s512_compile_cuda-graphs{r2}")]
    for m in ("mistral", "qwen2"):  # eager from the first session, compiled with graphs from the second
        out += [(f"h200_{m}_b4_s512_eager", "fused_no_host", None, f"h200_{m}_b4_s512_compile_cuda-graphs{r2}")]
    # the third session: shapes recorded after the fusion rules were chosen (whatif_record.py --set check)
    for m, b, s in CHECK:
        out += [(f"h200_{m}_b{b}_s{s}_eager{THIRD}", "fused_elementwise", None, f"h200_{m}_b{b}_s{s}_compile{THIRD}")]
    # the tuned Llama from another source point
    src = f"h200_llama_b2_s1024_eager{r2}"
    out += [(src, "batch", "8", f"h200_llama_b8_s1024_eager{r2}"), (src, "seq", "256", f"h200_llama_b2_s256_eager{r2}")]
    return out


#: (projected from, scenario, argument, measured run); traces under tests/data/ (issue 15's) or
#: tests/data/whatif/ (issue 24's)
PAIRS: List[Pair] = [
    ("h200_llama_decode_eager", "no_host_overhead", None, "h200_llama_decode_graphs"),
    ("h200_mlp_eager", "no_host_overhead", None, "h200_mlp_graphs"),
    ("h200_gpt2_eager", "no_host_overhead", None, "h200_gpt2_cuda-graphs"),
    ("h200_llama_decode_b8_eager", "no_host_overhead", None, "h200_llama_decode_b8_cuda-graphs"),
    ("h200_llama_decode_b8_eager_r2", "no_host_overhead", None, "h200_llama_decode_b8_cuda-graphs_r2"),
    ("h200_llama_decode_eager", "fused_elementwise", None, "h200_llama_decode_compiled"),
    ("h200_mlp_eager", "fused_elementwise", None, "h200_mlp_compiled"),
    ("h200_gpt2_eager", "fused_elementwise", None, "h200_gpt2_compile"),
    ("h200_llama_decode_b8_eager", "fused_elementwise", None, "h200_llama_decode_b8_compile"),
    ("h200_llama_decode_b8_eager", "batch", "4", "h200_llama_decode_b4_eager"),
    ("h200_llama_decode_b8_eager", "batch", "16", "h200_llama_decode_b16_eager"),
    ("h200_llama_decode_b8_eager", "batch", "1", "h200_llama_decode_b1_eager"),
    ("h200_llama_decode_b4_eager", "batch", "16", "h200_llama_decode_b16_eager"),
    # batch where the step is device time: CUDA-graph runs (section whatif_batch; _r2 the batch-8
    # run of that section, the first one from section whatif)
    ("h200_llama_decode_b8_cuda-graphs_r2", "batch", "4", "h200_llama_decode_b4_cuda-graphs"),
    ("h200_llama_decode_b8_cuda-graphs_r2", "batch", "16", "h200_llama_decode_b16_cuda-graphs"),
    ("h200_llama_decode_b8_cuda-graphs", "batch", "4", "h200_llama_decode_b4_cuda-graphs"),
    ("h200_llama_decode_b8_cuda-graphs", "batch", "16", "h200_llama_decode_b16_cuda-graphs"),
    ("h200_llama_decode_b4_cuda-graphs", "batch", "16", "h200_llama_decode_b16_cuda-graphs"),
] + _prefill_pairs() + [
    # no projection: the same work recorded twice or more, the run-to-run spread
    ("h200_llama_decode_eager", "measured", None, "h200_llama_decode_b1_eager"),
    ("h200_llama_decode_b8_eager", "measured", None, "h200_llama_decode_b8_eager_r2"),
    ("h200_llama_decode_b8_eager", "measured", None, "h200_llama_decode_b8_eager_r3"),
    ("h200_llama_decode_b8_cuda-graphs", "measured", None, "h200_llama_decode_b8_cuda-graphs_r2"),
]

#: issue 24's targets: batch and sequence within 10% on the device part, 15% on a device-bound
#: step; fusion's device part within 10% of torch.compile's busy time; the CUDA-graph step 15%
DEVICE_TARGET = 0.10
STEP_TARGET = 0.15
#: issue 15's target, kept for its rows (the graph step, the decode batch device part)
TARGET = 0.15


def trace_path(name: str) -> Path:
    """The committed trace of run ``name``."""
    for p in (ROOT / "tests" / "data" / f"{name}.trace.json.gz", RUNS / f"{name}.trace.json.gz"):
        if p.exists():
            return p
    return ROOT / name


def model_of(name: str) -> str:
    """The model a run's name says (``h200_<model>_...``): one of :data:`PREFILLS`, ``exllama``,
    ``decode``, or the issue-15 fixture's stem."""
    m = re.match(r"h200_(llama_decode|[a-z0-9]+)_", name)
    return m.group(1) if m else name


def held_out(name: str) -> bool:
    """A run of a model no rule was chosen on, or one recorded after every rule was chosen."""
    return model_of(name) in HELD_OUT or name.endswith(THIRD)


def _report(name: str, cache: Dict[str, Any]) -> Any:
    from floorcalc.analysis.driver import analyze_file

    if name not in cache:
        cache[name] = analyze_file(trace_path(name))[0]
    return cache[name]


def available(pairs: List[Pair]) -> List[Pair]:
    """The pairs whose two traces are committed (a run a GPU job did not get to is left out)."""
    return [p for p in pairs if trace_path(p[0]).exists() and trace_path(p[3]).exists()]


def pairs(cache: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
    """Every pair of :data:`PAIRS` whose traces are committed, projected and measured, per pass
    (microseconds)."""
    from floorcalc.whatif.project import DEVICE_PARTS, graph_cost, project

    cache = {} if cache is None else cache
    out = []
    for src, scenario, arg, measured in available(PAIRS):
        rep = _report(src, cache)
        w = rep.whatif
        if scenario == "batch":
            w = project(rep, w.basis, batches=[int(arg or 0)])
        elif scenario == "seq":
            w = project(rep, w.basis, seqs=[int(arg or 0)])
        elif scenario == "device":
            from floorcalc.device.spec import load_spec

            w = project(rep, w.basis, on=[load_spec(arg or "")])
        elif scenario == "fused_no_host" and not any(p.scenario == scenario for p in w.projections):
            w = project(rep, w.basis, graph=graph_cost(rep.device, rep.device.launch_latency_us))
        # "measured": the source as measured against another run of the same work (run-to-run spread)
        proj = w.measured if scenario == "measured" else next(p for p in w.projections if p.scenario == scenario)
        target = _report(measured, cache)
        got = target.summary
        m = got.bare_wall_us or got.wall_us
        # device busy time: the source's, changed by what the projection changes in its device parts
        busy = rep.summary.gpu_busy_us + sum(proj.parts_us[k] - w.measured.parts_us[k] for k in DEVICE_PARTS)
        out.append({"from": src, "scenario": scenario, "argument": arg, "measured_run": measured,
                    "held_out": held_out(src),
                    "from_us": w.measured.step_us, "projected_us": proj.step_us, "measured_us": m,
                    "error": proj.step_us / m - 1 if proj.step_us is not None else None,
                    "device_bound": got.gpu_busy_us >= DEVICE_BOUND * m,
                    "from_busy_us": rep.summary.gpu_busy_us, "projected_busy_us": busy,
                    "measured_busy_us": got.gpu_busy_us, "busy_error": busy / got.gpu_busy_us - 1,
                    "measured_bare_runs_us": list(target.capture.bare_wall_us_runs or ()) if target.capture else [],
                    # fusion: how much the compiler changed the kernels the projection keeps
                    "compute_change": (compute_us(target) / compute_us(rep) - 1
                                       if scenario.startswith("fused") and compute_us(rep) > 0 else None),
                    # fusion: the device part with the compiled run's own GEMM and attention time in
                    # place of the projected one (the eager run's, less the folded broadcast GEMMs),
                    # against the compiled run: the error of what the projection models (the
                    # elementwise chains), apart from the compiler's choice of GEMM and attention
                    # kernels, which no projection from an eager run sees
                    "busy_error_same_compute": ((busy - compute_us(rep) + _folded_us(w.basis) + compute_us(target))
                                                / got.gpu_busy_us - 1 if scenario.startswith("fused") else None)})
    return out


def _folded_us(basis: Any) -> float:
    """What a fusion projection takes off the broadcast-weight batched GEMMs (their time less
    time / B), per pass: part of the GEMM time it projects."""
    return sum(g.duration_us * (1 - 1 / g.batch) for g in basis.broadcast_gemms)


#: the formula families a fusion projection holds fixed (it fuses the elementwise ops between them)
COMPUTE_FAMILIES = ("matmul", "attention", "conv")


def compute_us(rep: Any) -> float:
    """The device time per pass of a report's op rows of :data:`COMPUTE_FAMILIES` (GEMMs,
    attention, convolutions: the kernels a fusion projection keeps as measured)."""
    from floorcalc.counting.registry import family_of

    return sum(r.duration_us for r in rep.ops if family_of(r.name) in COMPUTE_FAMILIES)


def _pct(x: Optional[float]) -> str:
    return "not known" if x is None else f"{x:+.1%}"


def table(rows: List[Dict[str, Any]]) -> str:
    """The rows as docs/examples/whatif.md's Markdown table."""
    lines = ["| projected from | scenario | measured run | held out | device: projected / measured (us) | device error "
             "| step: projected / measured (us) | step error | device-bound | GEMM + attention time changed "
             "| device error, the compiled GEMM + attention time |",
             "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
    for r in rows:
        what = r["scenario"] + (f" {r['argument']}" if r["argument"] else "")
        step = ("not known" if r["projected_us"] is None else f"{r['projected_us']:,.1f}") + f" / {r['measured_us']:,.1f}"
        lines.append(f"| `{r['from']}` | {what} | `{r['measured_run']}` | {'yes' if r['held_out'] else 'no'} | "
                     f"{r['projected_busy_us']:,.1f} / {r['measured_busy_us']:,.1f} | {_pct(r['busy_error'])} | "
                     f"{step} | {_pct(r['error'])} | {'yes' if r['device_bound'] else 'no'} | "
                     f"{'' if r['compute_change'] is None else _pct(r['compute_change'])} | "
                     f"{'' if r.get('busy_error_same_compute') is None else _pct(r['busy_error_same_compute'])} |")
    return "\n".join(lines)


def _span(xs: List[float]) -> str:
    lo, hi = (f"{x:+.0%}".replace("-0%", "+0%") for x in (min(xs), max(xs)))
    return lo if lo == hi else f"{lo} to {hi}"


def ranges(rows: List[Dict[str, Any]]) -> Dict[str, str]:
    """Each projected scenario's measured error range, one sentence (floorcalc.whatif.validation)."""
    out: Dict[str, str] = {}
    for scenario in dict.fromkeys(r["scenario"] for r in rows):
        if scenario == "measured":
            continue
        rs = [r for r in rows if r["scenario"] == scenario]
        models = sorted({model_of(r["from"]) for r in rs})
        held = sum(1 for r in rs if r["held_out"])
        text = (f"device part {_span([r['busy_error'] for r in rs])} over {len(rs)} H200 projections "
                f"({', '.join(models)}; {held} held out of every choice of rule)")
        same = [r["busy_error_same_compute"] for r in rs if r.get("busy_error_same_compute") is not None]
        if same:
            text += (f"; {_span(same)} with the compiled run's own GEMM and attention time, which the "
                     "compiler chose and a fusion projection keeps as eager")
        steps = [r["error"] for r in rs if r["error"] is not None and r["device_bound"]]
        if steps:
            text += f", step {_span(steps)} over the {len(steps)} whose measured step is device-bound"
            host = [r["error"] for r in rs if r["error"] is not None and not r["device_bound"]]
            if host:
                text += (f" ({_span(host)} over the {len(host)} host-bound ones, whose host part moved from run "
                         "to run)")
        elif all(r["error"] is None for r in rs):
            text += ", step not given"
        else:
            text += ", step not checked (no measured step device-bound)"
        out[scenario] = text + " (docs/examples/whatif.md)"
    return out


def write_ranges(r: Dict[str, str]) -> None:
    text = VALIDATION.read_text()
    body = "RANGES: Dict[str, str] = {\n" + "".join(f"    {k!r}: {v!r},\n" for k, v in r.items()) + "}\n"
    new = re.sub(r"(# --- written by tools/whatif_proof.py --write: do not edit ---\n).*?(# --- end ---)",
                 lambda m: m.group(1) + body + m.group(2), text, flags=re.S)
    VALIDATION.write_text(new)


def main(argv: List[str]) -> int:
    rows = pairs()
    print(table(rows))
    print()
    for k, v in ranges(rows).items():
        print(f"* {k}: {v}")
    if "--write" in argv:
        PROOF.write_text(json.dumps(rows, indent=1) + "\n")
        write_ranges(ranges(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
