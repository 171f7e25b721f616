"""Numbers worded for people, by every stage that writes a sentence (notes, warnings) as well
as by the renderers."""

from __future__ import annotations

__all__ = ["rate"]


def rate(value: float, unit: str) -> str:
    """``989.5e12, "FLOP/s"`` -> ``"989.5 TFLOP/s"`` (SI prefixes, 4 significant figures)."""
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.4g} {prefix}{unit}"
    return f"{value:.4g} {unit}"
