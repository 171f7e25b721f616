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
RANGES: Dict[str, str] = {}
# --- end ---


def validated(scenario: str) -> str:
    """The measured error range of ``scenario`` (:data:`RANGES`), "" when none was measured."""
    return RANGES.get(scenario, "")
