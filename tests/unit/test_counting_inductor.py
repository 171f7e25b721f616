"""Counting Inductor's generated kernels from its debug output (committed from an H200 run)."""

import json
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


def test_a_flex_attention_node_is_counted_at_the_dense_bound():
    # issue 23 (f): a compiled flex_attention is a tuple-valued node with no annotation, as
    # Inductor's post-grad graph prints it; its block mask's values are not in the graph
    from floorcalc.counting import count
    from floorcalc.counting.inductor import parse_graph

    text = (
        'class <lambda>(torch.nn.Module):\n'
        '    def forward(self, arg0_1: "bf16[1, 8, 1024, 64][524288, 64, 512, 1]cuda:0", '
        'arg1_1: "i32[1, 1, 8][8, 8, 1]cuda:0"):\n'
        '        select: "bf16[1, 8, 1024, 64][524288, 64, 512, 1]cuda:0" = torch.ops.aten.select.int(arg0_1, 0, 0)\n'
        '        sdpa_score0 = self.sdpa_score0\n'
        '        sdpa_mask0 = self.sdpa_mask0\n'
        "        flex_attention = torch.ops.higher_order.flex_attention(select, select, select, sdpa_score0, "
        "(1024, 1024, arg1_1, arg1_1, arg1_1, arg1_1, arg1_1, arg1_1, arg1_1, arg1_1, 128, 128, sdpa_mask0), 0.125, "
        "{'BACKEND': 'AUTO', 'PRESCALE_QK': False, 'OUTPUT_LOGSUMEXP': False}, (), ());  select = None\n"
        '        getitem: "bf16[1, 8, 1024, 64][524288, 65536, 64, 1]cuda:0" = flex_attention[0];  flex_attention = None\n'
    )
    nodes = parse_graph(text)
    call, _out = nodes["flex_attention"]
    assert call.name == "higher_order::flex_attention" and len(call.args) == 9
    c = count(call)
    # every (query, key) pair: 2 * 8 * 1024 * 1024 * (64 + 64), said to be the dense bound
    assert c.flop == 2 * 8 * 1024 * 1024 * 128 and "dense bound" in c.note


def test_a_fallback_kernels_node_is_not_counted_again_in_the_kernel_that_prepares_its_inputs():
    """The Llama decode graph (H200, torch 2.11): SDPA runs as a fallback to
    aten::_scaled_dot_product_cudnn_attention (the trace shows and counts it as that op), and the
    provenance of the Triton kernel that applies RoPE to its query names the attention node too.
    Counting it there doubled the attention's FLOPs (report --compile 63,780,370 against eager
    59,563,282 on the H200)."""
    ks = kernel_counts(INDUCTOR / "model__1_inference_1.1")
    graph = parse_graph((INDUCTOR / "model__1_inference_1.1" / "fx_graph_readable.py").read_text())
    prep = [k for k in ks if k.kernel.startswith("triton_") and "_scaled_dot_product_cudnn_attention" in k.nodes]
    assert prep, "the fixture's RoPE kernel names the attention node"
    for k in prep:
        counted = [n for n in k.nodes if graph.get(n) and graph[n][0].name == "aten::_scaled_dot_product_cudnn_attention"]
        assert counted and k.flop < 10_000, (k.kernel, k.flop)   # RoPE's few multiplies and adds, not the attention's
    fallback = [k for k in ks if k.kernel.startswith("torch.ops.aten._scaled_dot_product_cudnn_attention")]
    assert fallback and fallback[0].flop > 1_000_000   # counted once, where it runs


def test_a_fallback_launch_leaves_the_nodes_of_its_inputs_to_the_generated_kernel(tmp_path):
    """A fallback's provenance lists the nodes that made its inputs (here a mul and an add that a
    C++ kernel computed): those stay counted in the generated kernel."""
    g = tmp_path / "model__0_inference_0.0"
    g.mkdir()
    (g / "fx_graph_readable.py").write_text(
        "class <lambda>(torch.nn.Module):\n"
        '    def forward(self, arg0_1: "f32[1, 4, 4, 16]"):\n'
        '        mul: "f32[1, 4, 4, 16]" = torch.ops.aten.mul.Tensor(arg0_1, 2)\n'
        '        add: "f32[1, 4, 4, 16]" = torch.ops.aten.add.Tensor(mul, 1);  mul = None\n'
        "        _scaled_dot_product_flash_attention_for_cpu = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(add, arg0_1, arg0_1);  add = arg0_1 = None\n")
    (g / "inductor_provenance_tracking_node_mappings.json").write_text(json.dumps({"cppCodeToPost": {
        "cpp_fused__scaled_dot_product_flash_attention_for_cpu_add_mul_0:1": ["_scaled_dot_product_flash_attention_for_cpu", "add", "mul"],
        "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default:2": ["_scaled_dot_product_flash_attention_for_cpu", "add", "mul"]}}))
    (g / "output_code.py").write_text("# no Triton kernels\n")
    ks = {k.handle: k for k in kernel_counts(g)}
    assert ks["cpp_fused__scaled_dot_product_flash_attention_for_cpu_add_mul_0:1"].flop == 2 * 4 * 4 * 16
    assert set(counts_for_folders([g])) == {"cpp_fused__scaled_dot_product_flash_attention_for_cpu_add_mul_0"}
