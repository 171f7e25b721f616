"""Each what-if scenario's error range measured on real runs: written by ``python3
tools/whatif_proof.py --write`` from the table of docs/examples/whatif.md (never by hand);
tests/integration/test_whatif_proof.py fails when it and the table differ.

:data:`RANGES` maps a scenario (:data:`floorcalc.records.WhatIfScenario`) to one sentence: the
error range of its device part and of its step against the runs that did it for real, how many
projections, on which models, and which of them were held out from tuning.
"""

from __future__ import annotations

from typing import Dict

__all__ = ["RANGES", "validated"]

# --- written by tools/whatif_proof.py --write: do not edit ---
RANGES: Dict[str, str] = {
    'no_host_overhead': 'device part -10% to -1% over 9 H200 projections (gpt2, gpt2m, llama, llama_decode, mistral, mlp, qwen2; 2 on models held out of tuning), step -11% to -1% over the 5 whose measured step is device-bound (docs/examples/whatif.md)',
    'fused_elementwise': 'device part -15% to +24% over 10 H200 projections (gpt2, gpt2m, llama, llama_decode, mistral, mlp, qwen2; 2 on models held out of tuning), step not given (docs/examples/whatif.md)',
    'batch': 'device part -11% to +11% over 27 H200 projections (exllama, gpt2m, llama, llama_decode, mistral, qwen2; 10 on models held out of tuning), step +1% over the 1 whose measured step is device-bound (docs/examples/whatif.md)',
    'seq': 'device part -9% to +18% over 11 H200 projections (decode, exllama, gpt2m, llama, mistral, qwen2; 7 on models held out of tuning), step +1% over the 1 whose measured step is device-bound (docs/examples/whatif.md)',
    'fused_no_host': 'device part +3% to +9% over 2 H200 projections (gpt2m, llama; 0 on models held out of tuning), step +2% to +9% over the 2 whose measured step is device-bound (docs/examples/whatif.md)',
}
# --- end ---


def validated(scenario: str) -> str:
    """The measured error range of ``scenario`` (:data:`RANGES`), "" when none was measured."""
    return RANGES.get(scenario, "")
