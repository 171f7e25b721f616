#!/usr/bin/env bash
# The GPU verification run: everything floorcalc checks on a CUDA machine (an H200), in sections.
#
#   bash tools/gpu_verify.sh                        # every section, in the order below
#   bash tools/gpu_verify.sh fixtures gputests      # only these (env always runs first)
#   bash tools/gpu_verify.sh --list                 # the sections and what each does
#
# Runs from the repository root with the machine's own torch (PYTHONPATH=the checkout; nothing is
# installed). Each section writes into its own folder "$OUT/run/NAME" and its output to
# "$OUT/run/NAME.log"; "$OUT/run/sections.tsv" has each section's exit status and seconds; all of
# "$OUT/run" is packed into "$OUT/gpu_verify.tar.gz" at the end. A failing command fails its
# section (its line is logged as "FAILED: ...") and the run goes on with the next section; the
# script exits 1 if any section failed. OUT defaults to /tmp/floorcalc-verify; "$OUT/run" must be
# empty (a run never overwrites an earlier one).
#
# Adding a section: write a "## NAME: what it does (how long)" line and a section_NAME function
# below it. Inside, $D is the section's folder, $R the run's, fc runs floorcalc from the checkout;
# write every result under $D. Nothing else needs changing.

set -uo pipefail
SELF=$(realpath "${BASH_SOURCE[0]}")
ROOT=$(dirname "$(dirname "$SELF")")
cd "$ROOT" || exit 2
export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 COLUMNS=160
OUT=${OUT:-/tmp/floorcalc-verify}
R="$OUT/run"
fc() { python3 -m floorcalc "$@"; }

## env: the GPU, driver, torch and CUDA versions, the commit, which optional packages import (seconds)
section_env() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv \
    | tee "$D/nvidia-smi.csv"
  python3 - <<'PY' | tee "$D/python.txt"
import importlib.util, platform
import torch
p = torch.cuda.get_device_properties(0)
print("python", platform.python_version(), "torch", torch.__version__, "cuda", torch.version.cuda)
print(p.name, "SMs", p.multi_processor_count, "L2", getattr(p, "L2_cache_size", None), "memory", p.total_memory)
for m in ("numpy", "scipy", "yaml", "rich", "pynvml", "orjson", "msgspec", "fvcore", "matplotlib", "pytest"):
    print(f"{m:12s}", "yes" if importlib.util.find_spec(m) else "MISSING")
PY
  { git -C "$ROOT" log -1 --format='%H %s' 2>/dev/null || echo "(not a git checkout)"; } | tee "$D/commit.txt"
}

## gputests: the tests marked gpu (tests/gpu) on this GPU, JUnit XML beside the log (about 2 minutes)
section_gputests() {
  python3 -m pytest -m gpu -q -p no:cacheprovider tests/gpu --junitxml "$D/junit.xml" 2>&1 | tail -20
}

## device: what `floorcalc device` finds through NVML and which spec it matches (seconds)
section_device() {
  fc device | tee "$D/device.txt"
}

## calibrate: the GPU's ceilings into a spec usable with --spec: GEMM peak per dtype over a shape sweep (squares, tall-skinny, LLM projections) with the shape that reached it, bandwidth sweeps with L >= 0, launch costs; then every committed H200 trace against them (about 2.5 minutes)
section_calibrate() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v python3 -m floorcalc calibrate --no-collectives -o "$D/h200-calibrated.yaml" 2> "$D/calibrate.err" \
      | tee "$D/calibrate.txt"
    grep -E "Elapsed|Maximum resident|note:" "$D/calibrate.err" || true
  else
    fc calibrate --no-collectives -o "$D/h200-calibrated.yaml" | tee "$D/calibrate.txt"
  fi
  # issue 12: calibrated floors must hold on the committed real traces (0 rows below 0.95 x floor)
  python3 - "$D/h200-calibrated.yaml" <<'PY'
import sys
from pathlib import Path
from floorcalc.analysis.driver import analyze_file
spec = sys.argv[1]
total = 0
for trace in sorted(Path("tests/data").glob("h200_*.trace.json.gz")):
    rep, _ = analyze_file(trace, spec=spec)
    ops = [o for o in rep.ops if o.efficiency and o.efficiency > 1 / 0.95]
    kernels = [k for k in rep.kernels if getattr(k, "efficiency", None) and k.efficiency > 1 / 0.95]
    total += len(ops) + len(kernels)
    print(f"{trace.name:42s} ops below 0.95 x calibrated floor: {len(ops):3d}  kernels: {len(kernels):3d}",
          "".join(f"\n    {o.name} {o.shapes[:60]} {o.duration_us:.1f} us, floor {o.floor_us:.1f} us ({o.peak_key}, {o.level})"
                  for o in ops[:5]))
print("TOTAL rows below 0.95 x calibrated floor:", total)
PY
}

## collectives: on 2+ GPUs (the nvidia-h200-x2 kind), all_reduce/all_gather/reduce_scatter/all_to_all bus bandwidth over 8 KiB and 1 MiB..1 GiB by floorcalc calibrate (one NCCL process per GPU, NVLS off), beside a plain torch.distributed all_reduce timing loop (about 1.5 minutes)
section_collectives() {
  local n
  n=$(python3 -c "import torch; print(torch.cuda.device_count())")
  if [ "$n" -lt 2 ]; then
    echo "collectives: torch sees $n GPU(s); this section needs 2 or more (the nvidia-h200-x2 kind)"
    return 1
  fi
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  fc calibrate --collectives-only -o "$D/h200x${n}-collectives.yaml" | tee "$D/collectives.txt"
  grep -A3 "^interconnect:" -m1 "$D/h200x${n}-collectives.yaml" || true
  # the reference: a plain loop, no floorcalc code (torch.multiprocessing, NCCL, perf_counter around
  # 20 synchronised all_reduces per size), bus bandwidth by nccl-tests' 2(n-1)/n
  python3 - "$n" <<'PY' | tee "$D/plain_all_reduce.txt"
import os, sys, time
import torch, torch.distributed as dist, torch.multiprocessing as mp

def run(rank, world, port):
    os.environ.update(NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    for mib in (1, 16, 64, 256, 1024):
        x = torch.ones(mib * 2**20 // 4, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(20):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        t = (time.perf_counter() - t0) / 20
        if rank == 0:
            print(f"plain loop all_reduce {mib:5d} MiB: {t * 1e6:9.1f} us, algbw {mib * 2**20 / t / 1e9:7.1f} GB/s, "
                  f"busbw {mib * 2**20 / t * 2 * (world - 1) / world / 1e9:7.1f} GB/s", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    import socket
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    n = int(sys.argv[1])
    mp.spawn(run, args=(n, port), nprocs=n, join=True)
PY
  grep -E "all_reduce bus bandwidth" "$D/collectives.txt" || true
}

## fixtures: record every committed H200 fixture and the plain-profiler traces again, each beside its golden (tools/record_fixtures.py; about 5 minutes)
section_fixtures() {
  python3 tools/record_fixtures.py "$D/recorded"
}

## examples: docs/examples again: GPT-2 against datasheet and calibrated ceilings, its timeline with memory and roofline; Llama prefill and decode, MoE; the decode step in three modes (about 5 minutes)
section_examples() {
  local cal="$R/calibrate/h200-calibrated.yaml"
  [ -f "$cal" ] || cal=docs/examples/h200-calibrated.yaml   # the calibrate section's, when it ran first
  fc report examples/gpt2.py --device cuda -q --trace-out "$D/gpt2.h200.trace.json.gz" -o "$D/gpt2.h200.json"
  fc analyze "$D/gpt2.h200.trace.json.gz" --top 30 -o "$D/gpt2.h200.txt"
  fc analyze "$D/gpt2.h200.trace.json.gz" --spec "$cal" --top 30 -o "$D/gpt2.h200.calibrated.txt"
  fc analyze "$D/gpt2.h200.trace.json.gz" --spec "$cal" -o "$D/gpt2.h200.calibrated.json"
  fc report examples/gpt2.py --device cuda -q --spec "$cal" --trace-out "$D/gpt2.calibrated.trace.json.gz" \
    -o "$D/gpt2.h200.report-calibrated.txt"
  fc report examples/gpt2.py --device cuda -q --profile-memory --trace-out "$D/gpt2.memory.trace.json.gz" \
    -o "$D/gpt2.h200.timeline.txt" --plot "$D/gpt2.h200.roofline.png"
  local m
  for m in llama llama_decode moe; do
    fc report "examples/$m.py" --device cuda -q --trace-out "$D/$m.h200.trace.json.gz" -o "$D/$m.h200.json"
  done
  fc report examples/llama_decode.py --device cuda -q --modes eager,compile,cuda-graphs \
    --trace-out "$D/llama_decode.trace.json.gz" -o "$D/llama_decode.h200.modes.json"
  python3 - "$D" <<'PY'
import json, sys
from pathlib import Path
for p in sorted(Path(sys.argv[1]).glob("*.h200.json")):
    r = json.loads(p.read_text())
    s = r["summary"]
    print(f"{p.name:28s}", {k: s[k] for k in ("wall_us", "bare_wall_us", "gpu_busy_us", "floor_us", "uncounted_share",
                                             "mfu", "mbu")}, "uncounted:", [o["name"] for o in r["ops"] if o["bound"] == "uncounted"])
PY
}

## readme: every README use line with --device cuda (the --modes line included), run exactly as written in a folder of its own; each line's stdout kept as lineN.stdout (about 3 minutes)
section_readme() {
  mkdir -p "$D/bin"
  ln -s "$ROOT/examples" "$D/examples"
  printf '#!/bin/sh\nexec python3 -m floorcalc "$@"\n' > "$D/bin/floorcalc"
  chmod +x "$D/bin/floorcalc"
  python3 - "$ROOT/README.md" > "$D/lines.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
block = re.search(r"^## Use\n+```bash\n(.*?)^```", text, re.S | re.M).group(1)
for line in block.splitlines():
    line = line.split("#", 1)[0].strip()
    if "--device cuda" in line:
        print(line)
PY
  local n=0 line
  while IFS= read -r line; do
    n=$((n + 1))
    echo "--- line$n: $line"
    (cd "$D" && PATH="$D/bin:$PATH" bash -c "$line" > "$D/line$n.stdout")
    echo "--- line$n: exit $?"
    cat "$D/line$n.stdout"
  done < "$D/lines.txt"
  [ "$n" -gt 0 ]
}

## ncu: the byte model against Nsight Compute's DRAM bytes for one GPT-2 pass (tools/ncu_check.py; about 4 minutes)
section_ncu() {
  if ! command -v ncu > /dev/null; then
    echo "ncu is not on PATH"
    return 1
  fi
  python3 tools/ncu_check.py run examples/gpt2.py "$D/gpt2"
}

## api: the Python API on CUDA: floorcalc.report on a live nn.Module (seconds)
section_api() {
  python3 - "$D" <<'PY'
import runpy, sys
import floorcalc
m = runpy.run_path("examples/mlp.py")
rep = floorcalc.report(m["get_model"](), m["get_inputs"](), device="cuda", iters=3,
                       trace_out=f"{sys.argv[1]}/api.trace.json.gz")
s = rep.summary
print("API on cuda:", rep.device.key, "wall", s.wall_us, "busy", s.gpu_busy_us, "ops", len(rep.ops),
      "first", rep.ops[0].name, rep.ops[0].bound)
PY
}

## progress: issue 18 on the GPU: `calibrate --quick` and `report examples/gpt2.py` run on a pseudo-terminal (tools/record_terminal.py), their progress display kept as asciinema casts (calibrate.cast, report-gpt2-cuda.cast) and, where pyte is installed, PNG screens; then checked: every benchmark i of 9 and every profiled pass shown, nothing of the display left at the end (about 1.5 minutes)
section_progress() {
  local with_png=()
  python3 -c "import pyte" 2> /dev/null && with_png=(--png-dir "$D/png-calibrate")
  python3 tools/record_terminal.py "$D/calibrate.cast" --cols 120 --rows 32 --prompt "floorcalc calibrate --quick" \
    ${with_png[@]+"${with_png[@]}"} --shot "benchmark 1 of=1-gemm-bf16" --shot "benchmark 6 of=6-dram" \
    -- python3 -m floorcalc calibrate --quick --no-collectives -o "$D/calibrated.yaml"
  [ ${#with_png[@]} -eq 0 ] || with_png=(--png-dir "$D/png-report")
  python3 tools/record_terminal.py "$D/report-gpt2-cuda.cast" --cols 120 --rows 32 \
    --prompt "floorcalc report examples/gpt2.py" ${with_png[@]+"${with_png[@]}"} --shot "warm-up =1-warm-up" \
    --shot "profiled pass=2-profiled-passes" --shot "building the report=3-building" \
    -- python3 -m floorcalc report examples/gpt2.py --device cuda --trace-out "$D/gpt2.trace.json.gz"
  python3 - "$D" <<'PY'
import importlib.util, json, re, sys
from pathlib import Path
spec = importlib.util.spec_from_file_location("record_terminal", "tools/record_terminal.py")
rt = importlib.util.module_from_spec(spec); sys.modules["record_terminal"] = rt; spec.loader.exec_module(rt)
ansi = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
for name, want in (("calibrate", [f"benchmark {i} of 9" for i in range(1, 10)]),
                   ("report-gpt2-cuda", ["warm-up", "profiled pass", "reading gpt2", "building the report"])):
    lines = (Path(sys.argv[1]) / f"{name}.cast").read_text().splitlines()
    chunks = [(e[0], e[2].encode()) for e in map(json.loads, lines[1:])]
    text = ansi.sub("", "".join(c.decode() for _, c in chunks))
    frames = [f for f in re.split(r"[\r\n]", text) if "\u2501" in f]
    missing = [w for w in want if not any(w in f for f in frames)]
    print(name, len(frames), "progress frames; missing:", missing or "none")
    assert not missing, missing
    try:
        import pyte  # noqa: F401
    except ImportError:
        print(name, "end of the terminal not checked: pyte is not installed")
        continue
    for _, screen in rt.screens(rt.Recording(chunks=chunks, cols=120, rows=32)):
        pass
    left = [l for l in rt.all_lines(screen) if any(l.startswith(w) for w in want + ["calibrating the GPU"])]
    print(name, "progress lines left on the terminal:", left or "none")
    assert not left, left
PY
}

## counting: K15 (torch._grouped_mm), a Mixtral-size grouped-GEMM MoE and K16 (MultiheadAttention cross-attention) through `report` on CUDA against `count` on meta: FLOPs and bytes must agree (about 2 minutes)
section_counting() {
  local m
  for m in k15_grouped_mm moe_grouped_mm k16_mha_cross; do
    fc count "tests/data/models/$m.py" -q -o "$D/$m.count.json"
    fc report "tests/data/models/$m.py" --device cuda -q --trace-out "$D/$m.trace.json.gz" -o "$D/$m.report.json"
  done
  python3 - "$D" <<'PY' | tee "$D/agreement.txt"
import json, sys
from pathlib import Path
d, bad = Path(sys.argv[1]), 0
for m in ("k15_grouped_mm", "moe_grouped_mm", "k16_mha_cross"):
    try:
        c = json.loads((d / f"{m}.count.json").read_text())["totals"]
        r = json.loads((d / f"{m}.report.json").read_text())
    except (OSError, ValueError, KeyError) as e:
        print(f"{m}: missing ({e})"); bad += 1; continue
    s = r["summary"]
    unc = [o["name"] for o in r["ops"] if o["bound"] == "uncounted"]
    # count on meta follows the CPU's dispatch; on CUDA an op may return another layout, so a
    # later reshape copies (K16: SDPA's output, one more aten::clone). Those layout copies are
    # listed, every other op must agree to the byte.
    layout = ("aten::clone", "aten::contiguous", "aten::copy_")
    def per_op(rows):
        out = {}
        for o in rows:
            out[o["name"]] = out.get(o["name"], 0) + o["bytes"]
        return out
    cb, rb = per_op(json.loads((d / f"{m}.count.json").read_text())["ops"]), per_op(r["ops"])
    moved = {k: (cb.get(k, 0), rb.get(k, 0)) for k in set(cb) | set(rb) if cb.get(k, 0) != rb.get(k, 0)}
    other = {k: v for k, v in moved.items() if k not in layout}
    ok = c["flop"] == s["flop"] and not other and not unc
    bad += not ok
    print(f"{m}: count {c['flop']} FLOPs {c['bytes']} B; report {s['flop']:.0f} FLOPs {s['bytes']:.0f} B; "
          f"uncounted {unc}; {'agree' if ok else 'DIFFER'}"
          + "".join(f"\n    {k}: count {a} B, report {b:.0f} B ({'layout copy on this device' if k in layout else 'DIFFERS'})"
                    for k, (a, b) in sorted(moved.items())))
sys.exit(1 if bad else 0)
PY
}

## distributed: report --nproc-per-node on the tensor-, pipeline- and expert-parallel examples, balanced and with rank 1 late by 3 ms; rank traces kept as fixtures, each run read back by analyze (about 4 minutes on two H200s; NPROC=8 for eight GPUs)
section_distributed() {
  # NPROC ranks (default 2), one per GPU; DIST_MODELS picks examples (issue 16 at 8 GPUs:
  # DIST_MODELS="tp_llama_block ep_moe" NPROC=8). Each run's folder, $D/h200x<N>_<model>_<mode>/,
  # holds only its rank traces (gzipped, 3 passes): copy it to tests/data/distributed/ to commit.
  # DIST_DEVICE=cpu tries the section without a GPU (gloo, the examples' small sizes).
  local n=${NPROC:-2} models=${DIST_MODELS:-"tp_llama_block pp_two_stage ep_moe"} device=${DIST_DEVICE:-cuda}
  local gpus m mode run start t
  gpus=$(python3 -c 'import torch; print(torch.cuda.device_count())')
  if [ "$device" = cuda ] && [ "$gpus" -lt "$n" ]; then
    echo "the distributed section needs $n GPUs (NPROC=$n); torch sees $gpus"
    return 1
  fi
  for m in $models; do
    for mode in balanced late; do
      run="$D/h200x${n}_${m}_${mode}"
      [ "$device" = cuda ] || run="$D/${device}x${n}_${m}_${mode}"
      start=$SECONDS
      if [ "$mode" = late ]; then
        env FLOORCALC_EXAMPLE_LATE_RANK=1 FLOORCALC_EXAMPLE_LATE_MS=3 python3 -m floorcalc report "examples/$m.py" \
          --device "$device" --nproc-per-node "$n" --warmup 3 --iters 3 -q --trace-out "$run" > "$run.report.txt"
      else
        env -u FLOORCALC_EXAMPLE_LATE_RANK python3 -m floorcalc report "examples/$m.py" \
          --device "$device" --nproc-per-node "$n" --warmup 3 --iters 3 -q --trace-out "$run" > "$run.report.txt"
      fi
      echo "$(basename "$run"): report $((SECONDS - start)) s"
      # the cross-rank report of the folder; per rank while analyze takes one trace only
      if fc analyze "$run" > "$run.analyze.txt" 2> "$run.analyze.err"; then
        echo "$(basename "$run"): analyze FOLDER ok"
      else
        echo "$(basename "$run"): analyze FOLDER failed ($(tail -1 "$run.analyze.err")); each rank's trace instead"
        for t in "$run"/*.trace.json.gz; do
          fc analyze "$t" > "$run.$(basename "$t" .trace.json.gz).analyze.txt"
        done
      fi
    done
  done
  # per run and rank: size, passes, and the NCCL kernels of each pass (the late run's peers wait in them)
  python3 - "$D" <<'PY' | tee "$D/summary.txt"
import gzip, json, statistics, sys
from pathlib import Path
for run in sorted(p for p in Path(sys.argv[1]).iterdir() if p.is_dir()):
    for t in sorted(run.glob("*.trace.json.gz")):
        doc = json.load(gzip.open(t))
        ev = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
        steps = sorted((e for e in ev if e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])
        kern = [e for e in ev if e.get("cat") == "kernel"]
        per_pass = []
        for s in steps:
            inside = [k for k in kern if s["ts"] <= k["ts"] < s["ts"] + s["dur"] and "nccl" in k["name"].lower()]
            per_pass.append((len(inside), sum(k["dur"] for k in inside), max((k["dur"] for k in inside), default=0)))
        info = doc.get("distributedInfo", {})
        print(f"{run.name:34s} rank {info.get('rank')}/{info.get('world_size')} {t.stat().st_size / 1024:6.1f} KB "
              f"{len(doc['traceEvents']):5d} events  passes {len(steps)}  pass us (median) "
              f"{statistics.median(s['dur'] for s in steps) if steps else 0:9.1f}  kernels {len(kern):4d}  "
              f"NCCL per pass: n/sum us/max us {[(n, round(a), round(b)) for n, a, b in per_pass]}")
PY
  du -sh "$D"/*x"$n"_*/ | tee "$D/sizes.txt"
}

## runscale: 64 rank traces of 100k events each, read by one process and by pools of 2, 8 and 16 (benchmarks/run_scale.py; CPU only: the machine's 16 cores; needs psutil for the process tree's peak memory; about 10 minutes)
section_runscale() {
  local src=""
  # a committed real two-rank run: an H200 pair's when there is one, else the gloo run on the CPU
  for f in tests/data/distributed/*x2_*/ tests/data/distributed/cpu_gloo_*_balanced/; do
    [ -d "$f" ] && ls "$f" | grep -q rank && { src="$f"; break; }
  done
  if [ -n "$src" ]; then
    python3 benchmarks/run_scale.py --source "$src" --workers 1,2,8,16 | tee "$D/run_scale.txt"
  else
    echo "no real two-rank run under tests/data/distributed: the synthetic pair of tests/builders" | tee "$D/run_scale.txt"
    python3 benchmarks/run_scale.py --synthetic --workers 1,2,8,16 | tee -a "$D/run_scale.txt"
  fi
}

## floors: issue 12 on this GPU: float32 matmuls and a conv with TF32 on and off, recorded by plain torch.profiler (no capture record, so only the kernel names can say which path ran); a fresh process whose first matmul creates the cuBLAS handle inside the window (cold start, no warm pass); then every trace of this run checked for kernels below 0.95 x floor on the datasheet and the calibrated spec (about 2 minutes)
section_floors() {
  # 1. TF32 on/off, each in its own process (the flags are process-wide), traces kept as fixtures
  for tf32 in on off; do
    python3 - "$D/tf32_$tf32.trace.json.gz" "$tf32" <<'PY'
import sys, torch
from torch.profiler import ProfilerActivity, profile, record_function
path, on = sys.argv[1], sys.argv[2] == "on"
torch.backends.cuda.matmul.allow_tf32 = on
torch.backends.cudnn.allow_tf32 = on
a, b = torch.randn(4096, 4096, device="cuda"), torch.randn(4096, 4096, device="cuda")
x, w = torch.randn(4096, 8192, device="cuda"), torch.randn(8192, 2048, device="cuda")
img, k = torch.randn(8, 64, 56, 56, device="cuda"), torch.randn(64, 64, 3, 3, device="cuda")
def step():
    (a @ b).relu_(); x @ w; torch.nn.functional.conv2d(img, k, padding=1)
for _ in range(3):
    step()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as p:
    for i in range(2):
        with record_function(f"ProfilerStep#{i}"):
            step()
    torch.cuda.synchronize()
p.export_chrome_trace(path)
print("wrote", path, "allow_tf32", on)
PY
    fc analyze "$D/tf32_$tf32.trace.json.gz" --spec h200 -o "$D/tf32_$tf32.json"
    python3 - "$D/tf32_$tf32.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
for o in rep["ops"]:
    if o["peak_key"] in ("tensor.tfloat32", "vector.float32") and o["flop"]:
        print(f"  {o['name']:16s} {o['shapes'][:40]:40s} {o['duration_us']:9.1f} us  floor {o['floor_us']:9.1f} us  "
              f"{o['peak_key']:16s} {o['note'][-110:]}")
for k in rep["kernels"][:6]:
    print(f"    kernel {k['name'][:90]}")
PY
  done
  # 2. cold start: a fresh process, the profiler on before the first matmul of the process (the
  #    context exists, cuBLAS's handle does not); one pass, so no pass is warm
  python3 - "$D/cold_handle.trace.json.gz" <<'PY'
import sys, torch
from torch.profiler import ProfilerActivity, profile, record_function
x = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as p:
    torch.zeros(1, device="cuda").add_(1)          # the profiler's first buffer request, outside the step
    torch.cuda.synchronize()
    with record_function("ProfilerStep#0"):
        y = torch.nn.functional.linear(x, x).relu()
        z = torch.empty(512 * 2**20, dtype=torch.uint8, device="cuda")   # allocator growth
        torch.cuda.synchronize()
p.export_chrome_trace(sys.argv[1])
print("wrote", sys.argv[1])
PY
  fc analyze "$D/cold_handle.trace.json.gz" --spec h200 -o "$D/cold_handle.json"
  python3 - "$D/cold_handle.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["timeline"]
c = t["cold_start"]
print("cold start pieces:", c["count"], "warm passes:", c["warm_passes"])
for x in c["listed"]:
    print(f"  {x['kind']:14s} {x['name'][:40]:40s} in {x['op'][:24]:24s} host {x['duration_us']:9.1f} us  device idle {x['idle_us']:9.1f} us")
print("\n".join(n for n in t["notes"] if n.startswith("warning")))
PY
  # 3. kernels below 0.95 x floor on every trace this run recorded (and the committed ones)
  python3 - "$R" <<'PY'
import sys
from pathlib import Path
from floorcalc.analysis.driver import analyze_file
R = Path(sys.argv[1])
cal = R / "calibrate" / "h200-calibrated.yaml"
specs = {"datasheet": None, "calibrated": str(cal if cal.exists() else "docs/examples/h200-calibrated.yaml")}
traces = sorted(R.rglob("*.trace.json.gz")) + sorted(Path("tests/data").rglob("*.trace.json.gz"))
total = {k: 0 for k in specs}
for t in traces:
    for name, spec in specs.items():
        try:
            rep, _ = analyze_file(t, spec=spec)
        except Exception as e:  # a rank trace of another GPU, a capture-only trace...
            print(f"{str(t)[-70:]:70s} {name:10s} not analysed: {str(e)[:80]}")
            continue
        below = [(ev.name, ev.duration_us, p.floor_us, p.role, u.name) for u in rep.units if u.floor is not None
                 for ev, p in zip(u.events, u.event_parts) if ev.duration_us < 0.95 * p.floor_us]
        total[name] += len(below)
        print(f"{str(t)[-70:]:70s} {name:10s} kernels below 0.95 x floor: {len(below):4d}  warnings: "
              + ", ".join(f"{w.level}/{w.figure}/{w.cause}x{w.count}" for w in rep.warnings))
        for b in below[:3]:
            print(f"      {b[0][:70]} ({b[3]}, op {b[4]}): {b[1]:.3f} us, floor {b[2]:.3f} us")
print("TOTAL kernels below 0.95 x floor:", total)
PY
}

## whatif: issue 15's measured runs for the what-if projections: GPT-2 eager, with CUDA graphs and compiled; the Llama decode step eager at batch 1, 4, 8 and 16 (FLOORCALC_LLAMA_BATCH) and with CUDA graphs and compiled at batch 8; each a gzipped trace (--iters 3, as the fixtures) and its report JSON; then `floorcalc whatif` of each eager run where this checkout has it (about 4 minutes)
section_whatif() {
  local m b
  for m in eager cuda-graphs compile; do
    local flag=""; [ "$m" = eager ] || flag="--$m"
    fc report examples/gpt2.py --device cuda -q --iters 3 $flag \
      --trace-out "$D/h200_gpt2_$m.trace.json.gz" -o "$D/h200_gpt2_$m.json"
  done
  for b in 1 4 8 16; do
    FLOORCALC_LLAMA_BATCH=$b fc report examples/llama_decode.py --device cuda -q --iters 3 \
      --trace-out "$D/h200_llama_decode_b${b}_eager.trace.json.gz" -o "$D/h200_llama_decode_b${b}_eager.json"
  done
  for m in cuda-graphs compile; do
    FLOORCALC_LLAMA_BATCH=8 fc report examples/llama_decode.py --device cuda -q --iters 3 "--$m" \
      --trace-out "$D/h200_llama_decode_b8_$m.trace.json.gz" -o "$D/h200_llama_decode_b8_$m.json"
  done
  python3 - "$D" <<'PY'
import json, sys
from pathlib import Path
for p in sorted(Path(sys.argv[1]).glob("*.json")):
    s = json.loads(p.read_text())["summary"]
    print(f"{p.name:36s}", {k: s.get(k) for k in ("wall_us", "bare_wall_us", "gpu_busy_us", "floor_us")})
PY
  ls -la "$D" | tee "$D/sizes.txt"
  if fc whatif --help > /dev/null 2>&1; then
    for f in "$D"/h200_gpt2_eager.json "$D"/h200_llama_decode_b*_eager.json; do
      fc whatif "$f" --batch 4 | tee "${f%.json}.whatif.txt"
    done
  fi
}

## whatif_batch: issue 15's batch proof where the step is device time: the Llama decode step with CUDA graphs at batch 4, 8 and 16 (FLOORCALC_LLAMA_BATCH; batch 8 recorded again beside section whatif's to measure run-to-run spread), then eager at batch 8 twice more (the host-bound step's run-to-run spread); each a gzipped trace (--iters 3, as the fixtures) and its report JSON, the bare pass times of each, and `floorcalc whatif --batch 4 --batch 16` of the batch-8 runs (about 3 minutes)
section_whatif_batch() {
  local b n
  for b in 4 8 16; do
    n="h200_llama_decode_b${b}_cuda-graphs"; [ "$b" = 8 ] && n="${n}_r2"  # whatif has b8's first
    FLOORCALC_LLAMA_BATCH=$b fc report examples/llama_decode.py --device cuda -q --iters 3 --cuda-graphs \
      --trace-out "$D/$n.trace.json.gz" -o "$D/$n.json"
  done
  for b in r2 r3; do
    FLOORCALC_LLAMA_BATCH=8 fc report examples/llama_decode.py --device cuda -q --iters 3 \
      --trace-out "$D/h200_llama_decode_b8_eager_$b.trace.json.gz" -o "$D/h200_llama_decode_b8_eager_$b.json"
  done
  python3 - "$D" <<'PY'
import json, sys
from pathlib import Path
for p in sorted(Path(sys.argv[1]).glob("*.json")):
    d = json.loads(p.read_text())
    s = d["summary"]
    print(f"{p.name:44s}", {k: s.get(k) for k in ("wall_us", "bare_wall_us", "gpu_busy_us", "floor_us")},
          "bare passes", d["capture"].get("bare_wall_us_runs"))
PY
  ls -la "$D" | tee "$D/sizes.txt"
  for f in "$D"/h200_llama_decode_b8_*.json; do
    fc whatif "$f" --batch 4 --batch 16 | tee "${f%.json}.whatif.txt"
  done
}

# --------------------------------------------------------------------------------------------
# the runner: everything below reads the "## NAME:" lines above and needs no change

list_sections() { sed -nE 's/^## ([a-z0-9_]+): .*/\1/p' "$SELF"; }

run_section() {  # run_section NAME: its output to stdout and NAME.log, its status and time to sections.tsv
  local name=$1 start=$SECONDS rc
  local D="$R/$name"
  mkdir -p "$D"
  echo "=== $name: $(sed -nE "s/^## $name: //p" "$SELF")"
  (
    set -E
    failed=0
    trap 'failed=1; echo "FAILED (line $LINENO): $BASH_COMMAND" >&2' ERR
    "section_$name"
    exit "$failed"
  ) 2>&1 | { grep --line-buffered -v '^USDT:' || true; } | tee "$R/$name.log"
  rc=${PIPESTATUS[0]}
  printf '%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - start))" >> "$R/sections.tsv"
  echo "=== $name: exit $rc, $((SECONDS - start)) s"
  return "$rc"
}

main() {
  local all name
  all=$(list_sections)
  for name in $all; do
    declare -F "section_$name" > /dev/null || { echo "gpu_verify.sh: no function section_$name" >&2; exit 2; }
  done
  if [ "${1:-}" = "--list" ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    sed -nE 's/^## ([a-z0-9_]+): (.*)/\1\t\2/p' "$SELF" | column -t -s $'\t' 2> /dev/null \
      || sed -nE 's/^## ([a-z0-9_]+): (.*)/\1: \2/p' "$SELF"
    exit 0
  fi
  local chosen=("$@")
  [ $# -gt 0 ] || read -r -a chosen <<< "$(echo $all)"
  for name in "${chosen[@]}"; do
    grep -qx "$name" <<< "$all" || { echo "gpu_verify.sh: no section '$name' (sections: $(echo $all))" >&2; exit 2; }
  done
  if [ -d "$R" ] && [ -n "$(ls -A "$R")" ]; then
    echo "gpu_verify.sh: $R is not empty; set OUT to a new folder (a run never overwrites another)" >&2
    exit 2
  fi
  mkdir -p "$R"
  printf 'section\texit\tseconds\n' > "$R/sections.tsv"
  local failed=()
  [ "${chosen[0]}" = env ] || chosen=(env "${chosen[@]}")
  for name in "${chosen[@]}"; do
    run_section "$name"  # not in an || list: bash would turn the section's ERR trap off
    [ "$?" = 0 ] || failed+=("$name")
  done
  tar -C "$R" -czf "$OUT/gpu_verify.tar.gz" .
  echo "=== sections (exit status, seconds):"
  cat "$R/sections.tsv"
  echo "=== results: $OUT/gpu_verify.tar.gz ($(du -h "$OUT/gpu_verify.tar.gz" | cut -f1))"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "=== FAILED: ${failed[*]}"
    exit 1
  fi
}

main "$@"
