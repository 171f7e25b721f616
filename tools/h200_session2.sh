#!/usr/bin/env bash
# Second batch on the lent H200: device detection, calibration, reports with datasheet and
# calibrated ceilings, the Llama-style examples. Results packed into $OUT/h200_session2.tar.gz.
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 COLUMNS=160
OUT=${OUT:-/tmp/floorcalc-out}
R="$OUT/run"
mkdir -p "$R"
fc() { python3 -m floorcalc "$@"; }
echo "== device (NVML)"
fc device | tee "$R/device.txt" | head -40
echo "== calibrate"
/usr/bin/time -v python3 -m floorcalc calibrate -o "$R/h200-calibrated.yaml" --force 2> "$R/calibrate.err" | tee "$R/calibrate.txt"
grep -E "Elapsed|Maximum resident" "$R/calibrate.err"; tail -3 "$R/calibrate.err"
echo "== gpt2 with datasheet and calibrated ceilings"
fc report examples/gpt2.py --device cuda -q --trace-out "$R/gpt2.h200.trace.json.gz" -o "$R/gpt2.h200.json" --force
fc analyze "$R/gpt2.h200.trace.json.gz" --top 30 -o "$R/gpt2.h200.txt" --force
fc analyze "$R/gpt2.h200.trace.json.gz" --spec "$R/h200-calibrated.yaml" --top 30 -o "$R/gpt2.h200.calibrated.txt" --force
fc analyze "$R/gpt2.h200.trace.json.gz" --spec "$R/h200-calibrated.yaml" -o "$R/gpt2.h200.calibrated.json" --force
tail -22 "$R/gpt2.h200.calibrated.txt"
echo "== llama prefill and decode"
for m in llama llama_decode moe; do
  fc report examples/$m.py --device cuda -q --trace-out "$R/$m.h200.trace.json.gz" -o "$R/$m.h200.json" --force || echo "FAILED $m"
  python3 -c "import json; r=json.load(open('$R/$m.h200.json')); s=r['summary']; print('$m', 'uncounted_share', s['uncounted_share'], 'wall', s['wall_us'], 'busy', s['gpu_busy_us'], 'floor', s['floor_us'], 'mfu', s['mfu'], 'mbu', s['mbu'], [o['name'] for o in r['ops'] if o['bound']=='uncounted'])"
done
echo "== gpu tests"
python3 -m pytest -m gpu -q -p no:cacheprovider tests/gpu 2>&1 | tail -3
tar -C "$R" -czf "$OUT/h200_session2.tar.gz" .
ls -l "$OUT"
