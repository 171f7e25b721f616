#!/usr/bin/env bash
# Fourth batch: the GPU tests on the finished tree, a memory-profiled report, the Python API on CUDA.
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 COLUMNS=160
OUT=${OUT:-/tmp/floorcalc-out}
R="$OUT/run"
mkdir -p "$R"
{
python3 -m pytest -m gpu -q -p no:cacheprovider tests/gpu 2>&1 | grep -v USDT | tail -8
python3 -m floorcalc report examples/gpt2.py --device cuda -q --profile-memory --trace-out "$R/gpt2.mem.trace.json.gz" \
  -o "$R/gpt2.mem.txt" --plot "$R/gpt2.mem.roofline.png" 2>&1 | grep -v USDT
grep -iE "memory|peak|growth|decomposition|host overhead|blocking|floor " "$R/gpt2.mem.txt" | head -30
python3 - <<'PY' 2>&1 | grep -v USDT
import runpy, floorcalc, torch
m = runpy.run_path("examples/mlp.py")
rep = floorcalc.report(m["get_model"](), m["get_inputs"](), device="cuda", iters=3, trace_out="/tmp/api.trace.json.gz")
print("API on cuda:", rep.summary.wall_us, rep.summary.gpu_busy_us, len(rep.ops), rep.ops[0].name, rep.ops[0].bound)
PY
} > "$R/session4.log" 2>&1
cat "$R/session4.log"
tar -C "$R" -czf "$OUT/h200_session4.tar.gz" .
