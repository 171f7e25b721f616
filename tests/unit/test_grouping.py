"""floorcalc.classify.grouping: op rows grouped by layer, module, op and shapes, with the instances'
spread and the outlier; hand-built rows, then the committed H200 Llama example read back."""

from pathlib import Path

import pytest

from floorcalc.classify.grouping import far_from_median, fold_layers, group_ops, layer_values, regroup
from floorcalc.records import OpRow

ROOT = Path(__file__).resolve().parents[2]


def row(name, module, us, floor=None, shapes="4x8", calls=1.0, bound=None, level="dram"):
    counted = floor is not None
    return OpRow(name=name, module=module, calls=calls, kernels=calls, duration_us=us,
                 flop=100.0 if counted else None, bytes=10.0 if counted else None,
                 compute_us=floor if counted else None, memory_us=0.0 if counted else None, overhead_us=0.0,
                 floor_us=floor, bound=bound or ("compute" if counted else "uncounted"),
                 efficiency=floor / us if counted else None, shapes=shapes, level=level if counted else "")


def test_layer_indices_fold_and_are_listed():
    assert fold_layers("model.layers.13.mlp.gate_proj") == "model.layers.*.mlp.gate_proj"
    assert fold_layers("h.3.experts.7.w1") == "h.*.experts.*.w1"
    assert fold_layers("0.conv") == "*.conv" and fold_layers("blocks.12") == "blocks.*"
    assert fold_layers("fc2.weight") == "fc2.weight" and fold_layers("") == ""  # a digit inside a name stays
    assert layer_values("h.3.experts.7.w1") == ("3", "7")


def test_layers_of_one_kind_are_one_row_with_sums_and_spread():
    # GIVEN sixteen layers of gate_proj and of down_proj, and a head
    rows = [row("aten::linear", f"model.layers.{i}.mlp.gate_proj", 10.0 + 0.1 * (i % 3), floor=5.0) for i in range(16)]
    rows += [row("aten::linear", f"model.layers.{i}.mlp.down_proj", 8.0, floor=2.0) for i in range(16)]
    rows.append(row("aten::linear", "lm_head", 300.0, floor=30.0))
    # WHEN grouped by layer
    g = group_ops(rows, "layer")
    # THEN one row per kind of layer, longest first, each with its instances summed
    assert g.by == "layer" and [(x.module, x.instances) for x in g.groups] == [
        ("lm_head", 1), ("model.layers.*.mlp.gate_proj", 16), ("model.layers.*.mlp.down_proj", 16)]
    gate = g.groups[1]
    assert gate.duration_us == pytest.approx(sum(r.duration_us for r in rows[:16]))
    assert gate.floor_us == pytest.approx(80.0) and gate.calls == 16 and gate.flop == 1600.0
    assert gate.efficiency == pytest.approx(80.0 / gate.duration_us)
    assert (gate.min_us, gate.median_us, gate.max_us) == pytest.approx((10.0, 10.1, 10.2))
    assert gate.outlier == "" and gate.outlier_us is None and gate.level == "dram"


def test_the_layer_far_from_the_median_is_named():
    # GIVEN 32 layers at about 5 us and one at 9 us
    rows = [row("aten::mm", f"layers.{i}.attn", 5.0 + 0.01 * (i % 4), floor=1.0) for i in range(32)]
    rows[7] = row("aten::mm", "layers.7.attn", 9.0, floor=1.0)
    (g,) = group_ops(rows, "layer").groups
    # THEN it is the outlier, with its time
    assert g.outlier == "layers.7.attn" and g.outlier_us == 9.0 and g.max_us == 9.0


def test_what_far_means():
    # more than 25% from the median AND a modified z-score above 3.5
    assert far_from_median([10, 10, 10, 13]) == 3              # MAD 0: the share decides
    assert far_from_median([10, 10, 10, 12]) is None           # 20%: not far
    assert far_from_median([10, 20, 30, 40, 50]) is None       # widely spread: none stands out
    assert far_from_median([10, 13]) is None                   # two: each as far as the other
    assert far_from_median([10, 10.2, 9.9, 10.1, 10, 14, 9.8]) == 5


def test_counted_and_uncounted_rows_are_not_summed_together():
    rows = [row("aten::foo", "l.0.x", 4.0, floor=1.0), row("aten::foo", "l.1.x", 4.0)]
    g = group_ops(rows, "layer").groups
    assert sorted(x.bound for x in g) == ["compute", "uncounted"]
    assert next(x for x in g if x.bound == "uncounted").floor_us is None


def test_op_grouping_is_by_name_and_input_shapes():
    rows = [row("aten::mul", "layers.0.attn", 3.0, floor=1.0, shapes="1x8x128x64, 128x64"),
            row("aten::mul", "layers.1.attn", 3.0, floor=1.0, shapes="1x8x128x64, 128x64"),
            row("aten::mul", "norm", 2.0, floor=1.0, shapes="1x128x512, 1x128x1"),
            row("aten::mul", "layers.0.ffn_norm", 2.5, floor=1.0, shapes="1x128x512, 1x128x1")]
    g = group_ops(rows, "op").groups
    assert [(x.name, x.shapes, x.instances) for x in g] == [("aten::mul", "1x8x128x64, 128x64", 2),
                                                            ("aten::mul", "1x128x512, 1x128x1", 2)]
    assert g[1].module == "norm, layers.*.ffn_norm"


def test_module_grouping_sums_every_op_of_a_module():
    rows = [row("aten::linear", f"h.{i}.mlp", 6.0, floor=2.0) for i in range(3)]
    rows += [row("aten::gelu", f"h.{i}.mlp", 1.0, floor=0.5, bound="overhead") for i in range(3)]
    (g,) = group_ops(rows, "module").groups
    assert g.name == "aten::linear, aten::gelu" and g.module == "h.*.mlp" and g.instances == 3
    assert g.median_us == 7.0 and g.duration_us == 21.0 and g.bound == "compute"


def test_none_keeps_every_row_and_unknown_groupings_are_refused():
    rows = [row("aten::linear", f"h.{i}.mlp", 6.0, floor=2.0) for i in range(3)]
    assert [x.module for x in group_ops(rows, "none").groups] == ["h.0.mlp", "h.1.mlp", "h.2.mlp"]
    with pytest.raises(ValueError, match="group by 'layers'"):
        group_ops(rows, "layers")  # type: ignore[arg-type]


def test_the_h200_llama_example_is_one_row_per_kind_of_layer():
    """docs/examples/llama.h200.json (examples/llama.py at its default size, 4 layers), read back
    through the JSON reader: every layer's op is one group of 4 instances with its spread."""
    from floorcalc.render.jsonread import load

    rep = load(ROOT / "docs" / "examples" / "llama.h200.json")
    groups = rep.grouping.groups
    layered = [g for g in groups if "layers.*" in g.module]
    assert layered and all(g.instances == 4 for g in layered)
    assert len(groups) < len(rep.ops) / 3  # 111 rows become a few dozen
    kinds = {(g.name, g.module) for g in layered}
    assert ("aten::linear", "layers.*.feed_forward.w1") in kinds and \
        ("aten::scaled_dot_product_attention", "layers.*.attention") in kinds
    w1 = next(g for g in layered if g.module == "layers.*.feed_forward.w1")
    members = [r.duration_us for r in rep.ops if r.name == "aten::linear" and r.module.endswith("feed_forward.w1")]
    assert (w1.min_us, w1.max_us, w1.duration_us) == pytest.approx((min(members), max(members), sum(members)))
    assert regroup(rep, "none").grouping.groups[0].module == rep.ops[0].module


def test_layers_of_different_sizes_in_a_sequential_are_not_one_row():
    """examples/mlp.py: nn.Sequential(Flatten, Linear(784, 512), ReLU, Linear(512, 512), ReLU,
    Linear(512, 10)): three Linear layers doing different work, children named 1, 3 and 5."""
    rows = [row("aten::linear", "1", 120.0, floor=100.0, shapes="64x784, 512x784, 512"),
            row("aten::linear", "3", 80.0, floor=60.0, shapes="64x512, 512x512, 512"),
            row("aten::linear", "5", 10.0, floor=2.0, shapes="64x512, 10x512, 10"),
            row("aten::relu", "2", 3.0, floor=1.0, shapes="64x512"),
            row("aten::relu", "4", 3.1, floor=1.0, shapes="64x512")]
    g = group_ops(rows, "layer").groups
    # THEN each layer is its own row, shown with its own path, and none is an outlier
    assert [(x.name, x.module, x.instances) for x in g] == [
        ("aten::linear", "1", 1), ("aten::linear", "3", 1), ("aten::linear", "5", 1),
        ("aten::relu", "4", 1), ("aten::relu", "2", 1)]
    assert all(x.outlier == "" for x in g)
    assert fold_layers("3") == "3"


def test_layers_fold_only_when_their_shapes_match():
    # GIVEN four layers of one kind, one of them fed a longer sequence
    rows = [row("aten::mm", f"layers.{i}.attn", 5.0, floor=1.0, shapes="128x64, 64x64") for i in range(3)]
    rows.append(row("aten::mm", "layers.3.attn", 9.0, floor=2.0, shapes="256x64, 64x64"))
    g = group_ops(rows, "layer").groups
    # THEN the three alike are one row and the odd one is a row of its own, under its own path
    assert sorted((x.module, x.instances, x.shapes) for x in g) == [
        ("layers.*.attn", 3, "128x64, 64x64"), ("layers.3.attn", 1, "256x64, 64x64")]


def test_modules_fold_only_when_they_did_the_same_work():
    rows = [row("aten::linear", f"h.{i}.mlp", 6.0, floor=2.0, shapes="8x16") for i in range(2)]
    rows.append(row("aten::linear", "h.2.mlp", 9.0, floor=3.0, shapes="8x32"))
    g = group_ops(rows, "module").groups
    assert sorted((x.module, x.instances) for x in g) == [("h.*.mlp", 2), ("h.2.mlp", 1)]
