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

## calibrate: measure the GPU's ceilings into a spec usable with --spec, with time and peak memory (about 30 s)
section_calibrate() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v python3 -m floorcalc calibrate -o "$D/h200-calibrated.yaml" 2> "$D/calibrate.err" \
      | tee "$D/calibrate.txt"
    grep -E "Elapsed|Maximum resident" "$D/calibrate.err" || true
  else
    fc calibrate -o "$D/h200-calibrated.yaml" | tee "$D/calibrate.txt"
  fi
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
    ok = c["flop"] == s["flop"] and c["bytes"] == s["bytes"] and not unc
    bad += not ok
    print(f"{m}: count {c['flop']} FLOPs {c['bytes']} B; report {s['flop']:.0f} FLOPs {s['bytes']:.0f} B; "
          f"uncounted {unc}; {'agree' if ok else 'DIFFER'}")
sys.exit(1 if bad else 0)
PY
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
