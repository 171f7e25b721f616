#!/usr/bin/env bash
# Everything floorcalc needs from a CUDA machine, in one batch (the lent H200 is short of time).
# Runs from the repository root with the machine's own torch; writes results under $OUT and
# packs them into $OUT/h200_session.tar.gz (the device tool returns at most 8 files).
#   bash tools/h200_session.sh
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 COLUMNS=160
OUT=${OUT:-/tmp/floorcalc-out}
R="$OUT/run"
mkdir -p "$R"
fc() { python3 -m floorcalc "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
python3 -c "import torch; p=torch.cuda.get_device_properties(0); print('torch', torch.__version__, 'cuda', torch.version.cuda, p.name, 'SMs', p.multi_processor_count, 'L2', getattr(p, 'L2_cache_size', None))"

echo "== gpt2 report (docs/examples)"
fc report examples/gpt2.py --device cuda --trace-out "$R/gpt2.h200.trace.json.gz" -o "$R/gpt2.h200.json" --force
fc analyze "$R/gpt2.h200.trace.json.gz" --top 30 -o "$R/gpt2.h200.txt" --force
head -50 "$R/gpt2.h200.txt"

echo "== fixtures"
fc report examples/gpt2.py --device cuda --iters 2 -q --trace-out "$R/h200_gpt2.trace.json.gz" -o "$R/h200_gpt2.json" --force
for m in k13_pageable_copy k14_item two_streams tiny_ops; do
  fc report tests/data/models/$m.py --device cuda --iters 2 -q --trace-out "$R/h200_$m.trace.json.gz" --format json -o "$R/h200_$m.json" --force || echo "FAILED $m"
done
fc report examples/mlp.py --device cuda --warmup 0 --iters 1 -q --trace-out "$R/h200_cold_mlp.trace.json.gz" --format json -o "$R/h200_cold_mlp.json" --force
ls -l "$R"

echo "== gpu tests"
python3 -m pytest -m gpu -q -p no:cacheprovider tests/gpu 2>&1 | tail -4

echo "== ncu: DRAM bytes and time per kernel of one gpt2 pass"
timeout 240 ncu --clock-control none --profile-from-start off \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum --csv \
  python3 tools/ncu_gpt2.py > "$R/ncu_gpt2.csv" 2> "$R/ncu_gpt2.err"; echo "ncu rc=$?"
wc -l "$R/ncu_gpt2.csv"
tar -C "$R" -czf "$OUT/h200_session.tar.gz" .
ls -l "$OUT"
