"""Issue 24's H200 runs for the what-if proof (docs/examples/whatif.md; the traces are committed
under tests/data/whatif/): ``floorcalc report`` of this checkout, its CLI called in one process
(to save the interpreter, torch and transformers start-ups), of compute-bound prefills
(tools/whatif_hf_prefill.py: Hugging Face transformers models built from configs, random weights,
bf16, SDPA; examples/llama.py; examples/llama_decode.py) at several batches and sequence lengths,
eager, compiled and replayed from CUDA graphs, each ``--warmup 2 --iters 2``.

    python3 tools/whatif_record.py OUT_DIR [--set first|final|check] [--dry]

``first``: the sweeps the rules were chosen on and checked against (batch 4, 512 tokens is the
source point of every projection); ``final``: the re-check, CUDA-graph sweeps and models held
out of every choice; ``check``: the fusion rules' last check, shapes recorded after they were
chosen (the traces end ``_r3``). ``--dry``: on the CPU, tiny shapes, to check the script. Each run writes
OUT_DIR/whatif/h200_<name>.trace.json.gz and its report JSON, and a line of runs.tsv (name, exit
code, seconds, trace bytes, the summary's wall, bare, busy and floor); once DEADLINE_S (default
200) seconds have gone the rest are skipped, and listed.
"""
import gc
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HF = str(HERE / "whatif_hf_prefill.py")
LLAMA = "examples/llama.py"
DECODE = "examples/llama_decode.py"


def first_runs(dry):
    """(name, model file, environment, extra flags), most needed first."""
    hf = ["llama", "gpt2m", "mistral", "qwen2"] if not dry else ["tiny"]
    points = [(4, 512), (1, 512), (2, 512), (8, 512), (16, 512), (4, 128), (4, 2048)]
    base = (4, 512)
    if dry:
        points, base = [(4, 32), (1, 32), (4, 8)], (4, 32)

    def run(m, b, s, mode):
        flags = {"eager": [], "compile": ["--compile"], "cuda-graphs": ["--cuda-graphs"],
                 "compile_cuda-graphs": ["--compile", "--cuda-graphs"]}[mode]
        return (f"{m}_b{b}_s{s}_{mode}", HF, {"FLOORCALC_HF": m, "FLOORCALC_HF_BATCH": b, "FLOORCALC_HF_SEQ": s}, flags)

    out = []
    tuned, held = hf[:2], hf[2:]
    out += [run(m, b, s, "eager") for m in tuned for b, s in points]          # tuning models
    out += [run(m, *base, "compile") for m in tuned]
    out += [run(m, b, s, "eager") for m in held for b, s in points]           # held out
    out += [run(m, *base, "cuda-graphs") for m in hf]
    out += [run(m, *base, "compile") for m in held]
    for b, s in ([(4, 512), (1, 512), (16, 512), (4, 128)] if not dry else [(4, 32)]):
        out.append((f"exllama_b{b}_s{s}_eager", LLAMA, {"FLOORCALC_LLAMA_BATCH": b, "FLOORCALC_LLAMA_SEQ": s}, []))
    if not dry:
        for c in (128, 1000):
            out.append((f"decode_b8_c{c}_cuda-graphs", DECODE, {"FLOORCALC_LLAMA_BATCH": 8, "FLOORCALC_LLAMA_CACHE": c},
                        ["--cuda-graphs"]))
        out += [run(m, *base, "compile_cuda-graphs") for m in tuned]
        out += [run("llama", 16, 512, "compile"), run("llama", 4, 2048, "compile")]
    return out


def final_runs(dry):
    """(name, model file, environment, extra flags), most needed first: the models no rule was
    chosen on (phi3, gemma) eager, replayed from CUDA graphs and compiled, then the batch and
    sequence sweeps of the other prefills replayed from CUDA graphs (the step is then device
    time), the tuned llama from another source point, and the other compiled replays."""
    hf = ["llama", "gpt2m", "mistral", "qwen2"] if not dry else ["tiny"]
    new = ["phi3", "gemma"] if not dry else ["tiny"]
    points = [(4, 512), (1, 512), (2, 512), (8, 512), (16, 512), (4, 128), (4, 2048)]
    base = (4, 512)
    if dry:
        points, base = [(4, 32), (1, 32), (4, 8)], (4, 32)

    def run(m, b, s, mode):
        flags = {"eager": [], "compile": ["--compile"], "cuda-graphs": ["--cuda-graphs"],
                 "compile_cuda-graphs": ["--compile", "--cuda-graphs"]}[mode]
        return (f"{m}_b{b}_s{s}_{mode}", HF, {"FLOORCALC_HF": m, "FLOORCALC_HF_BATCH": b, "FLOORCALC_HF_SEQ": s}, flags)

    five = [p for p in points if p not in ((2, 512), (8, 512))]
    out = [run(m, b, s, "eager") for m in new for b, s in five]
    out += [run(m, b, s, "cuda-graphs") for m in new for b, s in five]
    out += [run(m, *base, "compile") for m in new]
    out += [run(m, *base, "compile_cuda-graphs") for m in new]
    out += [run(m, b, s, "cuda-graphs") for m in hf for b, s in points]
    if not dry:
        out += [run("llama", b, s, "eager") for b, s in ((2, 1024), (8, 1024), (2, 256))]
    if not dry:
        out += [run(m, *base, "compile_cuda-graphs") for m in ("mistral", "qwen2")]
    return out


def check_runs(dry):
    """(name, model file, environment, extra flags): whatif_proof.CHECK, eager then compiled."""
    from whatif_proof import CHECK  # tools/, this script's folder

    points = CHECK if not dry else [("tiny", 2, 16)]
    out = []
    for m, b, s in points:
        env = {"FLOORCALC_HF": m, "FLOORCALC_HF_BATCH": b, "FLOORCALC_HF_SEQ": s}
        out += [(f"{m}_b{b}_s{s}_eager", HF, env, []), (f"{m}_b{b}_s{s}_compile", HF, env, ["--compile"])]
    return out


def main():
    dest = Path(sys.argv[1]) / "whatif"
    dry = "--dry" in sys.argv
    which = sys.argv[sys.argv.index("--set") + 1] if "--set" in sys.argv else "first"
    runs = {"first": first_runs, "final": final_runs, "check": check_runs}[which]
    dest.mkdir(parents=True, exist_ok=True)
    deadline = float(os.environ.get("DEADLINE_S", "200"))
    from floorcalc.cli import main as fc
    import torch

    t_start = time.time()
    tsv = open(dest / "runs.tsv", "w")
    skipped = []
    keys = set()
    for name, model, env, flags in runs(dry):
        if time.time() - t_start > deadline:
            skipped.append(name)
            continue
        for k in keys:
            os.environ.pop(k, None)
        for k, v in env.items():
            os.environ[k] = str(v)
        keys = set(env)
        trace = dest / f"h200_{name}.trace.json.gz"
        report = dest / f"h200_{name}.json"
        t0 = time.time()
        rc = fc(["report", model, "--device", "cpu" if dry else "cuda", "-q", "--warmup", "2", "--iters", "2",
                 "--trace-out", str(trace), "-o", str(report), *flags])
        took = time.time() - t0
        size = trace.stat().st_size if trace.exists() else 0
        summ = {}
        if report.exists():
            s = json.loads(report.read_text())["summary"]
            summ = {k: s.get(k) for k in ("wall_us", "bare_wall_us", "gpu_busy_us", "floor_us")}
        line = f"{name}\t{rc}\t{took:.1f}\t{size}\t{json.dumps(summ)}"
        print(line, flush=True)
        tsv.write(line + "\n")
        tsv.flush()
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
        if "--compile" in flags:
            torch._dynamo.reset()
    print(f"total {time.time() - t_start:.0f} s; skipped (deadline {deadline:.0f} s): {' '.join(skipped) or 'none'}")
    (dest / "skipped.txt").write_text("\n".join(skipped) + "\n")


if __name__ == "__main__":
    main()
