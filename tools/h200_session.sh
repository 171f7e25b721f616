#!/usr/bin/env bash
# Everything floorcalc needs from a CUDA machine, in one batch (the lent H200 is short of time).
# Runs from the repository root with the machine's own torch; writes results under $OUT.
#   bash tools/h200_session.sh
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/floorcalc-out}
mkdir -p "$OUT"
fc() { python3 -m floorcalc "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee "$OUT/nvidia-smi.txt"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name())"

echo "== gpt2 report (docs/examples)"
fc report examples/gpt2.py --device cuda --trace-out "$OUT/gpt2.h200.trace.json.gz" -o "$OUT/gpt2.h200.json" --force
fc analyze "$OUT/gpt2.h200.trace.json.gz" --top 30 -o "$OUT/gpt2.h200.txt" --force
cat "$OUT/gpt2.h200.txt"

echo "== fixture: gpt2, 2 passes"
fc report examples/gpt2.py --device cuda --iters 2 -q --trace-out "$OUT/h200_gpt2.trace.json.gz" -o "$OUT/h200_gpt2.json" --force
ls -l "$OUT"

echo "== gpu tests"
python3 -m pytest -m gpu -q tests/gpu 2>&1 | tail -20
