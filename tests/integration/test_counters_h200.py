"""The counters of real H200 runs (tests/data/counters/: ncu CSVs of one warmed-up pass of the
bundled examples at small sizes, recorded on 2026-12-01 with ``floorcalc.capture.ncu`` beside
each trace): the join, the split and what the counters show, offline.

The runs: GPT-2 (2 layers, 128 tokens) eager and ``--compile``, each with ncu's cache flush
(``flush``) and without it (``keep``, application replay); the Llama prefill (small config, 1
layer, 128 tokens), the MoE block (128 tokens) and Llama-2-7B's shapes with one layer (its
``lm_head`` moves 262 MB, over 2 x L2), each with the flush.
"""

from pathlib import Path

import pytest

import floorcalc
from floorcalc.analysis.driver import with_counters
from floorcalc.cli import main
from floorcalc.counters.ncu_csv import read_ncu_csv

DATA = Path(__file__).resolve().parents[1] / "data" / "counters"
RUNS = [("gpt2", "flush"), ("gpt2", "keep"), ("gpt2_compile", "flush"), ("gpt2_compile", "keep"),
        ("llama", "flush"), ("moe", "flush"), ("llama7b1", "flush")]
KERNELS = {"gpt2": 28, "gpt2_compile": 20, "llama": 44, "moe": 79, "llama7b1": 45}


def _counters(name, cache):
    rep = floorcalc.analyze(DATA / f"h200_{name}.trace.json.gz").record
    return rep, with_counters(rep, read_ncu_csv(DATA / f"h200_{name}.{cache}.ncu.csv.gz")).counters


@pytest.fixture(scope="module")
def runs():
    return {(n, c): _counters(n, c) for n, c in RUNS}


@pytest.mark.parametrize("name,cache", RUNS)
def test_every_kernel_is_joined_by_name_with_its_ratios_and_verdict(runs, name, cache):
    _rep, c = runs[(name, cache)]
    j = c.join
    assert j.ncu_kernels == j.trace_kernels == j.matched == KERNELS[name] and j.passes == 2
    assert j.name_mismatches == 0, j.mismatched
    assert c.profile.cache == cache
    for k in c.kernels:
        assert k.dram_ratio is not None and k.l2_ratio is not None and k.verdict != "unmeasured", k
        assert k.traffic_us + k.rest_us == pytest.approx(k.excess_us, abs=1e-9)


@pytest.mark.parametrize("name,cache", RUNS)
def test_each_op_s_split_adds_up_to_its_excess(runs, name, cache):
    rep, c = runs[(name, cache)]
    rows = {(o.name, o.module): o for o in rep.ops}
    assert c.ops
    for o in c.ops:
        r = rows[(o.name, o.module)]
        assert o.excess_us == pytest.approx(r.duration_us - r.floor_us, abs=1e-9)
        assert o.traffic_us + o.rest_us + o.unmeasured_us == pytest.approx(o.excess_us, abs=1e-9)
        assert o.traffic_us >= 0


def test_kernels_over_twice_l2_have_ratio_and_verdict(runs):
    # GIVEN Llama-2-7B's lm_head (32000 x 4096 bf16 weights, 262 MB): the one kernel over 2 x L2
    rep, c = runs[("llama7b1", "flush")]
    l2 = rep.device.details["l2_bytes"].value
    big = [k for k in c.kernels if k.counted_bytes and k.counted_bytes > 2 * l2]
    assert [k.module for k in big] == ["output"]
    (k,) = big
    # THEN it streams its compulsory bytes from DRAM once (the flush cannot change that), at 3/4 of
    # the datasheet bandwidth: the bandwidth is not reached, and extra traffic explains little of it
    # (its 3.6 MB of activations read cold); its grid of 126 blocks leaves 6 of the 132 SMs idle
    assert 0.95 < k.dram_ratio < 1.05 and k.dram_bw_share is not None and 0.6 < k.dram_bw_share < 0.9
    assert k.verdict == "bandwidth not reached" and k.traffic_us < 0.1 * k.excess_us
    assert k.counters.grid_size == 126 and "0.95 waves/SM (SMs idle)" in k.why


def test_the_cache_flush_makes_elementwise_reads_cold(runs):
    # GIVEN GPT-2's residual adds, the same kernels profiled with and without ncu's cache flush
    def adds(cache):
        _rep, c = runs[("gpt2", cache)]
        return [k for k in c.kernels if k.op == "aten::add" and k.module.startswith("h.")]

    flushed, kept = adds("flush"), adds("keep")
    assert len(flushed) == len(kept) == 4
    for f, k in zip(flushed, kept):
        # THEN with the flush they read their inputs from DRAM (their outputs stay in L2: 2/3 of
        # the counted bytes); without it the inputs the previous kernels left in L2 are read there
        assert 0.6 < f.dram_ratio < 0.75 and k.dram_ratio < 0.15
        # AND the L2 bytes, what the SMs asked L2 for, are the compulsory bytes either way
        assert f.l2_ratio == pytest.approx(1.0, abs=0.01) and k.l2_ratio == pytest.approx(1.0, abs=0.01)


def test_gemms_reread_their_operands_from_l2(runs):
    # GEMM tiles read each operand once per tile row or column: their L2 traffic exceeds the
    # compulsory bytes, while elementwise kernels ask L2 for exactly theirs
    _rep, c = runs[("gpt2", "flush")]
    gemms = [k for k in c.kernels if k.name.startswith("nvjet")]
    assert len(gemms) == 8 and all(1.3 < k.l2_ratio < 2.5 for k in gemms)
    gelu = [k for k in c.kernels if k.op == "aten::gelu"]
    assert gelu and all(k.l2_ratio == pytest.approx(1.0, abs=0.01) for k in gelu)


def test_a_fused_kernel_moves_less_than_the_eager_ops_it_replaced(runs):
    # GIVEN layer 0's residual add and ln_2 in eager mode, and the one Triton kernel --compile
    # fused them into (triton_per_fused_add_native_layer_norm_..., the first of its name)
    _rep, eager = runs[("gpt2", "flush")]
    _rep, comp = runs[("gpt2_compile", "flush")]
    add = next(k for k in eager.kernels if k.op == "aten::add" and k.module == "h.0")
    ln2 = next(k for k in eager.kernels if k.op == "aten::layer_norm" and k.module == "h.0.ln_2")
    fused = next(k for k in comp.kernels if k.op.startswith("triton_per_fused_add_native_layer_norm"))
    compulsory = add.counted_bytes + ln2.counted_bytes
    eager_l2 = add.counters.l2_bytes + ln2.counters.l2_bytes
    # THEN against the eager ops' compulsory bytes, the eager pair moves more than them through L2
    # and the fused kernel less: its traffic ratio on the same work is below theirs
    assert eager_l2 / compulsory > 1.0
    assert fused.counters.l2_bytes / compulsory < 0.8 < eager_l2 / compulsory
    assert fused.counters.dram_bytes < add.counters.dram_bytes + ln2.counters.dram_bytes


def test_analyze_counters_on_the_fixtures_gives_the_table(capsys):
    # the table `analyze --counters` prints in CI from the committed files
    code = main(["analyze", str(DATA / "h200_llama7b1.trace.json.gz"), "--counters",
                 str(DATA / "h200_llama7b1.flush.ncu.csv.gz"), "-q", "--top", "5"])
    out = capsys.readouterr().out
    assert code == 0
    assert "(45 of 45 kernels joined; caches flushed before each kernel)" in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("aten::linear") and " output " in ln)
    assert "0.98x" in line and "bandwidth not reached" in line


def test_kernels_whose_answer_the_flush_changes_are_marked(runs):
    # a kernel floored at DRAM with fewer than 2 x L2 bytes, profiled after a flush: marked cold,
    # and its why says so; over 2 x L2, or without the flush, or floored at L2: not
    rep, c = runs[("llama7b1", "flush")]
    l2 = rep.device.details["l2_bytes"].value
    for k in c.kernels:
        want = k.level != "l2" and k.counted_bytes < 2 * l2
        assert k.cold == want and ("DRAM reads cold" in k.why) == want, k.position
    assert c.cold_kernels == sum(k.cold for k in c.kernels) > 0
    assert not next(k for k in c.kernels if k.module == "output").cold
    _rep, kept = runs[("gpt2", "keep")]
    assert kept.cold_kernels == 0 and not any(k.cold for k in kept.kernels)


GOLDEN = [("h200_llama7b1", "flush"), ("h200_gpt2", "flush"), ("h200_gpt2_compile", "flush")]


def counters_section(trace, csv):
    """The counters section of ``floorcalc analyze TRACE --counters CSV -o X.txt`` (its tables,
    as the table renderer prints them on a 160-column page, then the report's counters notes)."""
    from floorcalc.render.base import captured
    from floorcalc.render.counters_table import render_counters

    rep = floorcalc.analyze(trace, counters=csv).record
    notes = [f"note: {n.text}" for n in rep.notes if n.text.startswith("counters: ")]
    return captured(lambda console: render_counters(rep.counters, console)) + "\n".join(notes) + "\n"


@pytest.mark.parametrize("name,cache", GOLDEN)
def test_analyze_counters_reproduces_the_committed_table(tmp_path, monkeypatch, name, cache):
    # the counters section analyze --counters prints, from the repository root, is the committed
    # tests/data/counters/NAME.CACHE.txt (written by this same function: python -c "import
    # test_counters_h200 as t; ..." from tests/integration, or by hand from the report)
    root = DATA.parents[2]
    monkeypatch.chdir(root)
    rel = DATA.relative_to(root)
    text = counters_section(rel / f"{name}.trace.json.gz", rel / f"{name}.{cache}.ncu.csv.gz")
    assert text == (DATA / f"{name}.{cache}.txt").read_text()
    # and the whole report carries the same section
    out = tmp_path / "full.txt"
    assert main(["analyze", str(rel / f"{name}.trace.json.gz"), "--counters", str(rel / f"{name}.{cache}.ncu.csv.gz"),
                 "-q", "-o", str(out)]) == 0
    full = out.read_text()
    assert text.split("\n")[0] in full and all(line in full for line in text.splitlines() if line.startswith("note:"))
