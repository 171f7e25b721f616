#!/usr/bin/env bash
# Third batch: GPU tests of everything so far, and traces of compiled / graph-captured runs for issue 7.
set -uo pipefail
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 COLUMNS=160
OUT=${OUT:-/tmp/floorcalc-out}
R="$OUT/run"
mkdir -p "$R"
python3 -m pytest -m gpu -q -p no:cacheprovider tests/gpu 2>&1 | tail -5
timeout 400 python3 tools/record_issue7.py "$R/issue7" 2>&1 | grep -v "^USDT" | tail -20
for t in "$R"/issue7/*.trace.json.gz; do
  echo "== $(basename $t)"; python3 -m floorcalc analyze "$t" --top 6 2>&1 | grep -v "^ *$" | head -14
done
tar -C "$R" -czf "$OUT/h200_session3.tar.gz" .
ls -l "$OUT"
