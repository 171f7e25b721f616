"""The report table writes every time one way and every rate one way: thousands separators and
the same decimals for measured, median, min-max, floor and outlier; rates in fixed point with
three significant figures, never an exponent."""

import dataclasses
import re
from pathlib import Path

import pytest

import floorcalc
from floorcalc.classify.grouping import group_ops
from floorcalc.records import OpRow
from floorcalc.render.figures import format_us
from floorcalc.render.table import TableRenderer, _rate

GPT2 = Path(__file__).resolve().parents[2] / "docs" / "examples" / "gpt2.h200.trace.json.gz"


def row(module, us, floor, flop=1e6, nbytes=1e5):
    return OpRow(name="aten::mm", module=module, calls=1.0, kernels=1.0, duration_us=us, flop=flop, bytes=nbytes,
                 compute_us=floor, memory_us=0.0, overhead_us=0.0, floor_us=floor, bound="compute",
                 efficiency=floor / us, shapes="64x64, 64x64", level="dram")


@pytest.mark.parametrize("x, text", [(9368.0, "9,368"), (14335.2, "14,335"), (5630.2, "5,630"), (213.14, "213.1"),
                                     (4.374, "4.37"), (None, "-")])
def test_one_time_format(x, text):
    assert format_us(x) == text


@pytest.mark.parametrize("x, text", [(8.13e-5, "0.0001"), (0.0043, "0.0043"), (0.0188, "0.0188"), (4.17, "4.17"),
                                     (42.37, "42.4"), (989.5, "990"), (4800.0, "4,800"), (1e-9, "<0.0001"),
                                     (0.0, "0"), (None, "-")])
def test_one_rate_format(x, text):
    assert _rate(x, 1.0) == text


def test_the_grouped_table_writes_times_alike(monkeypatch):
    # GIVEN a group of layers from 4,984 to 14,335 us, one far from the median
    rows = [row(f"layers.{i}.attn", 5600.0 + i, 100.0) for i in range(6)]
    rows += [row("layers.6.attn", 4983.9, 100.0), row("layers.7.attn", 14335.2, 100.0, flop=1.0, nbytes=1.0)]
    rep = floorcalc.analyze(str(GPT2)).record
    rep = dataclasses.replace(rep, ops=tuple(rows), grouping=group_ops(rows, "layer"), reference=None)
    out = TableRenderer(width=200).render(rep)
    line = next(x for x in out.splitlines() if "layers.*.attn" in x)
    # THEN measured, median, min-max and outlier all use thousands separators and no decimals
    assert "4,984-14,335" in line and " 5,602 " in line and "layers.7.attn 14,335 us" in line, line
    assert not re.search(r"\d{4}\.\d", line) and "e-" not in line, line
