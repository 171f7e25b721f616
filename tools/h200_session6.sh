#!/usr/bin/env bash
# Sixth batch: torch.compile runs with generated kernels counted from Inductor's records.
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 COLUMNS=160
OUT=${OUT:-/tmp/floorcalc-out}
R="$OUT/run"
mkdir -p "$R"
{
for m in mlp llama_decode; do
  python3 -m floorcalc report examples/$m.py --device cuda -q --iters 3 --compile \
    --trace-out "$R/h200_${m}_compiled.trace.json.gz" -o "$R/h200_${m}_compiled.json" 2>&1 | grep -v USDT
  python3 -c "import json; r=json.load(open('$R/h200_${m}_compiled.json')); s=r['summary']; print('$m compiled', {k: s[k] for k in ('wall_us','bare_wall_us','gpu_busy_us','floor_us','flop','bytes','mbu','uncounted_share','unattributed_us')}); print([n for n in r['notes'] if 'compile' in n]); print([(o['name'][:50], o['calls'], round(o['duration_us'],1), o['flop'], o['bound']) for o in r['ops'][:12]])"
done
python3 -m pytest -m gpu -q -p no:cacheprovider tests/gpu 2>&1 | grep -v USDT | tail -6
} > "$R/session6.log" 2>&1
cat "$R/session6.log"
tar -C "$R" -czf "$OUT/h200_session6.tar.gz" .
