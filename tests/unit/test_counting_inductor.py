"""Counting Inductor's generated kernels from its debug output (committed from an H200 run)."""

from pathlib import Path

from floorcalc.counting.inductor import counts_for_folders, find_graph_folders, kernel_counts, parse_graph

INDUCTOR = Path(__file__).resolve().parents[1] / "data" / "plain" / "inductor"


def test_fx_graph_nodes_become_op_calls_with_shapes():
    g = parse_graph((INDUCTOR / "model__0_inference_0.0" / "fx_graph_readable.py").read_text())
    call, out = g["addmm"]
    assert call.name == "aten::addmm" and [t.shape for t in call.tensors()] == [(512,), (64, 784), (784, 512)]
    assert out.shape == (64, 512) and out.dtype == "bfloat16"


def test_mlp_kernels_counted_from_their_nodes():
    ks = {k.handle: k for k in kernel_counts(INDUCTOR / "model__0_inference_0.0")}
    # extern addmm [64,784] x [784,512] + bias: 2*64*784*512 + 64*512
    assert ks["extern_kernels.addmm:1"].flop == 2 * 64 * 784 * 512 + 64 * 512
    # generated relu over [64, 512]: 1 FLOP per element; bytes from Inductor's kernel_num_gb
    relu = ks["triton_poi_fused_relu_0:2"]
    assert relu.flop == 64 * 512 and relu.bytes == 131072 and relu.nodes == ("relu",)
    assert "kernel_num_gb" in relu.method


def test_table_keeps_generated_kernels_only_in_launch_order():
    table = counts_for_folders(find_graph_folders(INDUCTOR))
    assert "triton_poi_fused_relu_0" in table and len(table["triton_poi_fused_relu_0"]) == 2
    assert not any(k.startswith("extern_kernels") for k in table)
    # the Llama decode graph: every generated kernel has bytes, the fused RMSNorm has FLOPs
    assert all(e["bytes"] > 0 for launches in table.values() for e in launches)
    rms = table["triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0"][0]
    assert rms["flop"] > 0 and rms["unit"] == "vector"


def test_folders_without_inductor_records_give_no_counts(tmp_path):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "output_code.py").write_text("# no kernels\n")  # provenance and graph missing
    assert counts_for_folders(find_graph_folders(tmp_path)) == {}
    import pytest

    with pytest.raises(FileNotFoundError):
        kernel_counts(tmp_path / "g")
