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
    'no_host_overhead': 'device part -10% to -1% over 11 H200 projections (gemma, gpt2, gpt2m, llama, llama_decode, mistral, mlp, phi3, qwen2; 4 held out of every choice of rule), step -11% to -1% over the 7 whose measured step is device-bound (-6% to +4% over the 4 host-bound ones, whose host part moved from run to run) (docs/examples/whatif.md)',
    'fused_elementwise': "device part -16% to +13% over 17 H200 projections (gemma, gpt2, gpt2m, llama, llama_decode, mistral, mlp, phi3, qwen2; 9 held out of every choice of rule); +0% to +17% with the compiled run's own GEMM and attention time, which the compiler chose and a fusion projection keeps as eager, step not given (docs/examples/whatif.md)",
    'batch': 'device part -11% to +11% over 52 H200 projections (exllama, gemma, gpt2m, llama, llama_decode, mistral, phi3, qwen2; 26 held out of every choice of rule), step -9% to +2% over the 17 whose measured step is device-bound (-51% to +74% over the 35 host-bound ones, whose host part moved from run to run) (docs/examples/whatif.md)',
    'seq': 'device part -9% to +18% over 28 H200 projections (decode, exllama, gemma, gpt2m, llama, mistral, phi3, qwen2; 19 held out of every choice of rule), step -6% to +5% over the 10 whose measured step is device-bound (-53% to +39% over the 18 host-bound ones, whose host part moved from run to run) (docs/examples/whatif.md)',
    'fused_no_host': "device part -2% to +10% over 6 H200 projections (gemma, gpt2m, llama, mistral, phi3, qwen2; 4 held out of every choice of rule); +4% to +18% with the compiled run's own GEMM and attention time, which the compiler chose and a fusion projection keeps as eager, step -3% to +14% over the 6 whose measured step is device-bound (docs/examples/whatif.md)",
}
# --- end ---


def validated(scenario: str) -> str:
    """The measured error range of ``scenario`` (:data:`RANGES`), "" when none was measured."""
    return RANGES.get(scenario, "")
