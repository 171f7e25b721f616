#!/usr/bin/env bash
# Fifth batch: CUDA-graph replays attributed to captured ops; eager vs graphs fixtures.
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 COLUMNS=160
OUT=${OUT:-/tmp/floorcalc-out}
R="$OUT/run"
mkdir -p "$R"
{
python3 -m pytest -m gpu -q -p no:cacheprovider tests/gpu 2>&1 | grep -v USDT | tail -6
for m in mlp llama_decode; do
  for mode in eager graphs; do
    extra=""; [ $mode = graphs ] && extra="--cuda-graphs"
    python3 -m floorcalc report examples/$m.py --device cuda -q --iters 3 $extra \
      --trace-out "$R/h200_${m}_${mode}.trace.json.gz" -o "$R/h200_${m}_${mode}.json" 2>&1 | grep -v USDT
    python3 -c "import json; r=json.load(open('$R/h200_${m}_${mode}.json')); s=r['summary']; print('$m $mode', 'wall', round(s['wall_us'],1), 'bare', round(s['bare_wall_us'],1), 'busy', round(s['gpu_busy_us'],1), 'floor', round(s['floor_us'],1), 'flop', s['flop'], 'bytes', s['bytes'], 'mbu', s['mbu'], 'uncounted', s['uncounted_share'], 'unattr', s['unattributed_us'], 'ops', len(r['ops']), [n for n in r['notes'] if 'graph' in n.lower()])"
  done
done
} > "$R/session5.log" 2>&1
cat "$R/session5.log"
tar -C "$R" -czf "$OUT/h200_session5.tar.gz" .
