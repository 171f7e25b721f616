# AOT ID: ['1_inference']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p


# kernel path: /tmp/torchinductor_root/qi/cqihld4wuff4khoxxta6b4yzufp76dhkhvigudeus72is6jflcsq.py
# Topologically Sorted Source Nodes: [x, pow_1, mean, add, rsqrt, mul, mul_1], Original ATen: [aten.embedding, aten.pow, aten.mean, aten.add, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add => add
#   mean => mean
#   mul => mul
#   mul_1 => mul_1
#   pow_1 => pow_1
#   rsqrt => rsqrt
#   x => embedding
# Graph fragment:
#   %arg0_1 : Tensor "i64[1, 1][1, 1]cuda:0" = PlaceHolder[target=arg0_1]
#   %arg1_1 : Tensor "bf16[32000, 512][512, 1]cuda:0" = PlaceHolder[target=arg1_1]
#   %buf0 : Tensor "f32[1, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=buf0]
#   %arg4_1 : Tensor "bf16[512][1]cuda:0" = PlaceHolder[target=arg4_1]
#   %embedding : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.embedding.default](args = (%arg1_1, %arg0_1), kwargs = {})
#   %pow_1 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%embedding, 2), kwargs = {})
#   %mean : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_1, [-1], True), kwargs = {})
#   %add : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean, 1e-05), kwargs = {})
#   %rsqrt : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add,), kwargs = {})
#   %mul : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%embedding, %rsqrt), kwargs = {})
#   %mul_1 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul, %arg4_1), kwargs = {})
#   return %buf0,%mul_1
triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0 = async_compile.triton('triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*i64', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'out_ptr1': '*bf16', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 3072}, 'kernel_num_gb': 3.08e-06, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0(in_ptr0, in_ptr1, in_ptr2, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_ptr0 + (0))
    tmp1 = tl.broadcast_to(tmp0, [1, 1])
    tmp20 = tl.load(in_ptr2 + (r0_0), None).to(tl.float32)
    tmp2 = tl.full([1, 1], 32000, tl.int32)
    tmp3 = tmp1 + tmp2
    tmp4 = tmp1 < 0
    tmp5 = tl.where(tmp4, tmp3, tmp1)
    tl.device_assert((0 <= tmp5) & (tmp5 < 32000), "index out of bounds: 0 <= tmp5 < 32000")
    tmp7 = tl.load(in_ptr1 + (r0_0 + 512*tmp5), None).to(tl.float32)
    tmp8 = tmp7 * tmp7
    tmp9 = tmp8.to(tl.float32)
    tmp10 = tl.broadcast_to(tmp9, [XBLOCK, R0_BLOCK])
    tmp12 = tl.sum(tmp10, 1)[:, None].to(tl.float32)
    tmp13 = tl.full([1, 1], 512.0, tl.float32)
    tmp14 = (tmp12 / tmp13)
    tmp15 = tmp14.to(tl.float32)
    tmp16 = tl.full([1, 1], 1e-05, tl.float32)
    tmp17 = tmp15 + tmp16
    tmp18 = libdevice.rsqrt(tmp17)
    tmp19 = tmp7 * tmp18
    tmp21 = tmp19 * tmp20
    tl.store(out_ptr1 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp21, None)


def get_args():
    arg_0 = rand_strided((1, 1), (1, 1), device='cuda:0', dtype=torch.int64)
    arg_1 = rand_strided((32000, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((512,), (1,), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, 1, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 3.08e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/z2/cz2bti7h5lvz5zi6uueqvyt4nix2yxcrgkykxd3j57qhjbi3pjlw.py
# Topologically Sorted Source Nodes: [linear_1, view_1, k, chunk_1, cos, sin, setitem, mul_4, neg_1, cat_1, mul_5, k_1, ], Original ATen: [aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.slice, aten.mul, aten.neg, aten.cat, aten.add, aten.copy]
# Source node to ATen node mapping:
#    => copy__default, slice_tensor
#   cat_1 => cat_1
#   chunk_1 => split_1
#   cos => slice_1
#   k => permute_3
#   k_1 => add_2
#   linear_1 => view_4
#   mul_4 => mul_4
#   mul_5 => mul_5
#   neg_1 => neg_1
#   setitem => copy, slice_3
#   sin => slice_2
#   view_1 => view_5
# Graph fragment:
#   %mm_1 : Tensor "bf16[1, 128][128, 1]cuda:0" = PlaceHolder[target=mm_1]
#   %arg2_1 : Tensor "bf16[1024, 64][64, 1]cuda:0" = PlaceHolder[target=arg2_1]
#   %arg3_1 : Tensor "bf16[1024, 64][64, 1]cuda:0" = PlaceHolder[target=arg3_1]
#   %copy : Tensor "bf16[1, 2, 1, 64][128, 64, 128, 1]cuda:0" = PlaceHolder[target=copy]
#   %arg8_1 : Tensor "bf16[1, 2, 1024, 64][131072, 65536, 64, 1]cuda:0" = PlaceHolder[target=arg8_1]
#   %view_4 : Tensor "bf16[1, 1, 128][128, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_1, [1, 1, 128]), kwargs = {})
#   %view_5 : Tensor "bf16[1, 1, 2, 64][128, 128, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%view_4, [1, 1, 2, 64]), kwargs = {})
#   %permute_3 : Tensor "bf16[1, 2, 1, 64][128, 64, 128, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.permute.default](args = (%view_5, [0, 2, 1, 3]), kwargs = {})
#   %split_1 : [num_users=2] = call_function[target=torch.ops.aten.split.Tensor](args = (%permute_3, 32, -1), kwargs = {})
#   %slice_1 : Tensor "bf16[1, 64][64, 1]cuda:0"[num_users=8] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg2_1, 0, 512, 513), kwargs = {})
#   %slice_2 : Tensor "bf16[1, 64][64, 1]cuda:0"[num_users=8] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg3_1, 0, 512, 513), kwargs = {})
#   %slice_3 : Tensor "bf16[1, 2, 1, 64][131072, 65536, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg8_1, 2, 512, 513), kwargs = {})
#   %mul_4 : Tensor "bf16[1, 2, 1, 64][128, 64, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%permute_3, %slice_1), kwargs = {})
#   %neg_1 : Tensor "bf16[1, 2, 1, 32][64, 32, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%getitem_3,), kwargs = {})
#   %cat_1 : Tensor "bf16[1, 2, 1, 64][128, 64, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%neg_1, %getitem_2], -1), kwargs = {})
#   %mul_5 : Tensor "bf16[1, 2, 1, 64][128, 64, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%cat_1, %slice_2), kwargs = {})
#   %add_2 : Tensor "bf16[1, 2, 1, 64][128, 64, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_4, %mul_5), kwargs = {})
#   %copy : Tensor "bf16[1, 2, 1, 64][131072, 65536, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.copy.default](args = (%slice_3, %add_2), kwargs = {})
#   %slice_tensor : Tensor "bf16[1, 2, 1, 64][131072, 65536, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg8_1, 2, 512, 513), kwargs = {})
#   %copy__default : Tensor "bf16[1, 2, 1, 64][131072, 65536, 64, 1]cuda:0"[num_users=0] = call_function[target=torch.ops.aten.copy_.default](args = (%slice_tensor, %copy), kwargs = {})
#   return %copy,%buf5
triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1 = async_compile.triton('triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.pointwise(
    size_hints={'x': 128}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'out_ptr1': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1', 'mutated_arg_names': ['out_ptr1'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 5, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 1536}, 'kernel_num_gb': 1.024e-06, 'kernel_flop': 0},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1(in_ptr0, in_ptr1, in_ptr2, out_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 128
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x0 = (xindex % 64)
    x1 = xindex // 64
    tmp0 = tl.load(in_ptr0 + (x2), xmask).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (32768 + x0), xmask, eviction_policy='evict_last').to(tl.float32)
    tmp17 = tl.load(in_ptr2 + (32768 + x0), xmask, eviction_policy='evict_last').to(tl.float32)
    tmp2 = tmp0 * tmp1
    tmp3 = x0
    tmp4 = tl.full([1], 0, tl.int64)
    tmp5 = tmp3 >= tmp4
    tmp6 = tl.full([1], 32, tl.int64)
    tmp7 = tmp3 < tmp6
    tmp8 = tl.load(in_ptr0 + (32 + 64*x1 + (x0)), tmp7 & xmask, eviction_policy='evict_last', other=0.0).to(tl.float32)
    tmp9 = -tmp8
    tmp10 = tl.full(tmp9.shape, 0.0, tmp9.dtype)
    tmp11 = tl.where(tmp7, tmp9, tmp10)
    tmp12 = tmp3 >= tmp6
    tmp13 = tl.full([1], 64, tl.int64)
    tmp14 = tmp3 < tmp13
    tmp15 = tl.load(in_ptr0 + (64*x1 + ((-32) + x0)), tmp12 & xmask, eviction_policy='evict_last', other=0.0).to(tl.float32)
    tmp16 = tl.where(tmp7, tmp11, tmp15)
    tmp18 = tmp16 * tmp17
    tmp19 = tmp2 + tmp18
    tl.store(out_ptr1 + (32768 + x0 + 65536*x1), tmp19, xmask)


def get_args():
    arg_0 = rand_strided((1, 128), (128, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1024, 64), (64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((1024, 64), (64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, 128,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 1.024e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/j4/cj45qt7ew47y4frgacuiozdbd7bnowleyrlfoe6ratbewpjvcxxa.py
# Topologically Sorted Source Nodes: [setitem_1, linear_2, view_2, v, ], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.copy]
# Source node to ATen node mapping:
#    => copy__default_1, slice_tensor_1
#   linear_2 => view_7
#   setitem_1 => copy_1, slice_5
#   v => permute_5
#   view_2 => view_8
# Graph fragment:
#   %mm_2 : Tensor "bf16[1, 128][128, 1]cuda:0" = PlaceHolder[target=mm_2]
#   %arg9_1 : Tensor "bf16[1, 2, 1024, 64][131072, 65536, 64, 1]cuda:0" = PlaceHolder[target=arg9_1]
#   %slice_5 : Tensor "bf16[1, 2, 1, 64][131072, 65536, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg9_1, 2, 512, 513), kwargs = {})
#   %view_7 : Tensor "bf16[1, 1, 128][128, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_2, [1, 1, 128]), kwargs = {})
#   %view_8 : Tensor "bf16[1, 1, 2, 64][128, 128, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%view_7, [1, 1, 2, 64]), kwargs = {})
#   %permute_5 : Tensor "bf16[1, 2, 1, 64][128, 64, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%view_8, [0, 2, 1, 3]), kwargs = {})
#   %copy_1 : Tensor "bf16[1, 2, 1, 64][131072, 65536, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.copy.default](args = (%slice_5, %permute_5), kwargs = {})
#   %slice_tensor_1 : Tensor "bf16[1, 2, 1, 64][131072, 65536, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg9_1, 2, 512, 513), kwargs = {})
#   %copy__default_1 : Tensor "bf16[1, 2, 1, 64][131072, 65536, 64, 1]cuda:0"[num_users=0] = call_function[target=torch.ops.aten.copy_.default](args = (%slice_tensor_1, %copy_1), kwargs = {})
#   return %buf7
triton_poi_fused__unsafe_view_copy_slice_transpose_view_2 = async_compile.triton('triton_poi_fused__unsafe_view_copy_slice_transpose_view_2', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.pointwise(
    size_hints={'x': 128}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__unsafe_view_copy_slice_transpose_view_2', 'mutated_arg_names': ['out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 768}, 'kernel_num_gb': 5.12e-07, 'kernel_flop': 0},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__unsafe_view_copy_slice_transpose_view_2(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 128
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x0 = (xindex % 64)
    x1 = xindex // 64
    tmp0 = tl.load(in_ptr0 + (x2), xmask).to(tl.float32)
    tl.store(out_ptr0 + (32768 + x0 + 65536*x1), tmp0, xmask)


def get_args():
    arg_0 = rand_strided((1, 128), (128, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, 128,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_poi_fused__unsafe_view_copy_slice_transpose_view_2.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_poi_fused__unsafe_view_copy_slice_transpose_view_2.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 5.12e-07
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/vp/cvpd7hrzga54efdb2j6t5pkdc6mxx52jqddkprq53goesxvwsqh2.py
# Topologically Sorted Source Nodes: [linear, view, q, chunk, cos, mul_2, neg, cat, sin, mul_3, q_1, y], Original ATen: [aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.slice, aten.mul, aten.neg, aten.cat, aten.add, aten._scaled_dot_product_cudnn_attention]
# Source node to ATen node mapping:
#   cat => cat
#   chunk => split
#   cos => slice_1
#   linear => view_1
#   mul_2 => mul_2
#   mul_3 => mul_3
#   neg => neg
#   q => permute_1
#   q_1 => add_1
#   sin => slice_2
#   view => view_2
#   y => _scaled_dot_product_cudnn_attention, slice_10, slice_9
# Graph fragment:
#   %mm : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm]
#   %arg2_1 : Tensor "bf16[1024, 64][64, 1]cuda:0" = PlaceHolder[target=arg2_1]
#   %arg3_1 : Tensor "bf16[1024, 64][64, 1]cuda:0" = PlaceHolder[target=arg3_1]
#   %view_1 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm, [1, 1, 512]), kwargs = {})
#   %view_2 : Tensor "bf16[1, 1, 8, 64][512, 512, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%view_1, [1, 1, 8, 64]), kwargs = {})
#   %permute_1 : Tensor "bf16[1, 8, 1, 64][512, 64, 512, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.permute.default](args = (%view_2, [0, 2, 1, 3]), kwargs = {})
#   %split : [num_users=2] = call_function[target=torch.ops.aten.split.Tensor](args = (%permute_1, 32, -1), kwargs = {})
#   %slice_1 : Tensor "bf16[1, 64][64, 1]cuda:0"[num_users=8] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg2_1, 0, 512, 513), kwargs = {})
#   %mul_2 : Tensor "bf16[1, 8, 1, 64][512, 64, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%permute_1, %slice_1), kwargs = {})
#   %neg : Tensor "bf16[1, 8, 1, 32][256, 32, 32, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%getitem_1,), kwargs = {})
#   %cat : Tensor "bf16[1, 8, 1, 64][512, 64, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%neg, %getitem], -1), kwargs = {})
#   %slice_2 : Tensor "bf16[1, 64][64, 1]cuda:0"[num_users=8] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg3_1, 0, 512, 513), kwargs = {})
#   %mul_3 : Tensor "bf16[1, 8, 1, 64][512, 64, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%cat, %slice_2), kwargs = {})
#   %add_1 : Tensor "bf16[1, 8, 1, 64][512, 64, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_2, %mul_3), kwargs = {})
#   %slice_9 : Tensor "bf16[1, 2, 513, 64][131072, 65536, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg8_1, 2, 0, 513), kwargs = {})
#   %slice_10 : Tensor "bf16[1, 2, 513, 64][131072, 65536, 64, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%arg9_1, 2, 0, 513), kwargs = {})
#   %_scaled_dot_product_cudnn_attention : [num_users=1] = call_function[target=torch.ops.aten._scaled_dot_product_cudnn_attention.default](args = (%add_1, %slice_9, %slice_10, None, False), kwargs = {})
#   return %buf8
triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3 = async_compile.triton('triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.pointwise(
    size_hints={'x': 512}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 5, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 5376}, 'kernel_num_gb': 4.096e-06, 'kernel_flop': 0},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3(in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 512
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x0 = (xindex % 64)
    x1 = xindex // 64
    tmp0 = tl.load(in_ptr0 + (x2), xmask).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (32768 + x0), xmask, eviction_policy='evict_last').to(tl.float32)
    tmp17 = tl.load(in_ptr2 + (32768 + x0), xmask, eviction_policy='evict_last').to(tl.float32)
    tmp2 = tmp0 * tmp1
    tmp3 = x0
    tmp4 = tl.full([1], 0, tl.int64)
    tmp5 = tmp3 >= tmp4
    tmp6 = tl.full([1], 32, tl.int64)
    tmp7 = tmp3 < tmp6
    tmp8 = tl.load(in_ptr0 + (32 + 64*x1 + (x0)), tmp7 & xmask, eviction_policy='evict_last', other=0.0).to(tl.float32)
    tmp9 = -tmp8
    tmp10 = tl.full(tmp9.shape, 0.0, tmp9.dtype)
    tmp11 = tl.where(tmp7, tmp9, tmp10)
    tmp12 = tmp3 >= tmp6
    tmp13 = tl.full([1], 64, tl.int64)
    tmp14 = tmp3 < tmp13
    tmp15 = tl.load(in_ptr0 + (64*x1 + ((-32) + x0)), tmp12 & xmask, eviction_policy='evict_last', other=0.0).to(tl.float32)
    tmp16 = tl.where(tmp7, tmp11, tmp15)
    tmp18 = tmp16 * tmp17
    tmp19 = tmp2 + tmp18
    tl.store(out_ptr0 + (x2), tmp19, xmask)


def get_args():
    arg_0 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1024, 64), (64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((1024, 64), (64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((1, 8, 1, 64), (512, 64, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 4.096e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/rx/crxzsr3udhrz7a52f7qmworegqjij762hml3l62exz5ovs4uipkb.py
# Topologically Sorted Source Nodes: [x, linear_3, x_1, pow_2, mean_1, add_4, rsqrt_1, mul_6, mul_7], Original ATen: [aten.embedding, aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add_4 => add_4
#   linear_3 => view_11
#   mean_1 => mean_1
#   mul_6 => mul_6
#   mul_7 => mul_7
#   pow_2 => pow_2
#   rsqrt_1 => rsqrt_1
#   x => embedding
#   x_1 => add_3
# Graph fragment:
#   %arg0_1 : Tensor "i64[1, 1][1, 1]cuda:0" = PlaceHolder[target=arg0_1]
#   %arg1_1 : Tensor "bf16[32000, 512][512, 1]cuda:0" = PlaceHolder[target=arg1_1]
#   %mm_3 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_3]
#   %buf15 : Tensor "f32[1, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=buf15]
#   %arg11_1 : Tensor "bf16[512][1]cuda:0" = PlaceHolder[target=arg11_1]
#   %embedding : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.embedding.default](args = (%arg1_1, %arg0_1), kwargs = {})
#   %view_11 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_3, [1, 1, 512]), kwargs = {})
#   %add_3 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%embedding, %view_11), kwargs = {})
#   %pow_2 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%add_3, 2), kwargs = {})
#   %mean_1 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_2, [-1], True), kwargs = {})
#   %add_4 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean_1, 1e-05), kwargs = {})
#   %rsqrt_1 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_4,), kwargs = {})
#   %mul_6 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_3, %rsqrt_1), kwargs = {})
#   %mul_7 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_6, %arg11_1), kwargs = {})
#   return %buf15,%mul_7
triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_4 = async_compile.triton('triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_4', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*i64', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'out_ptr1': '*bf16', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_4', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 4096}, 'kernel_num_gb': 4.104e-06, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_4(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_ptr0 + (0))
    tmp1 = tl.broadcast_to(tmp0, [1, 1])
    tmp8 = tl.load(in_ptr2 + (r0_0), None).to(tl.float32)
    tmp22 = tl.load(in_ptr3 + (r0_0), None).to(tl.float32)
    tmp2 = tl.full([1, 1], 32000, tl.int32)
    tmp3 = tmp1 + tmp2
    tmp4 = tmp1 < 0
    tmp5 = tl.where(tmp4, tmp3, tmp1)
    tl.device_assert((0 <= tmp5) & (tmp5 < 32000), "index out of bounds: 0 <= tmp5 < 32000")
    tmp7 = tl.load(in_ptr1 + (r0_0 + 512*tmp5), None).to(tl.float32)
    tmp9 = tmp7 + tmp8
    tmp10 = tmp9 * tmp9
    tmp11 = tmp10.to(tl.float32)
    tmp12 = tl.broadcast_to(tmp11, [XBLOCK, R0_BLOCK])
    tmp14 = tl.sum(tmp12, 1)[:, None].to(tl.float32)
    tmp15 = tl.full([1, 1], 512.0, tl.float32)
    tmp16 = (tmp14 / tmp15)
    tmp17 = tmp16.to(tl.float32)
    tmp18 = tl.full([1, 1], 1e-05, tl.float32)
    tmp19 = tmp17 + tmp18
    tmp20 = libdevice.rsqrt(tmp19)
    tmp21 = tmp9 * tmp20
    tmp23 = tmp21 * tmp22
    tl.store(out_ptr1 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp23, None)


def get_args():
    arg_0 = rand_strided((1, 1), (1, 1), device='cuda:0', dtype=torch.int64)
    arg_1 = rand_strided((32000, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((512,), (1,), device='cuda:0', dtype=torch.bfloat16)
    arg_4 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, arg_4, 1, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_4.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_4.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 4.104e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/22/c22hubem44xhyufsja5gs76jsdbycubiqz22eshokxy3iomf5wvp.py
# Topologically Sorted Source Nodes: [linear_4, silu, linear_5, mul_8], Original ATen: [aten._unsafe_view, aten.silu, aten.mul]
# Source node to ATen node mapping:
#   linear_4 => view_13
#   linear_5 => view_15
#   mul_8 => mul_8
#   silu => add_5, convert_element_type_10, convert_element_type_11, div, exp, neg_2
# Graph fragment:
#   %mm_4 : Tensor "bf16[1, 1408][1408, 1]cuda:0" = PlaceHolder[target=mm_4]
#   %mm_5 : Tensor "bf16[1, 1408][1408, 1]cuda:0" = PlaceHolder[target=mm_5]
#   %view_13 : Tensor "bf16[1, 1, 1408][1408, 1408, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_4, [1, 1, 1408]), kwargs = {})
#   %convert_element_type_10 : Tensor "f32[1, 1, 1408][1408, 1408, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%view_13, torch.float32), kwargs = {})
#   %neg_2 : Tensor "f32[1, 1, 1408][1408, 1408, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%convert_element_type_10,), kwargs = {})
#   %exp : Tensor "f32[1, 1, 1408][1408, 1408, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.exp.default](args = (%neg_2,), kwargs = {})
#   %add_5 : Tensor "f32[1, 1, 1408][1408, 1408, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%exp, 1), kwargs = {})
#   %div : Tensor "f32[1, 1, 1408][1408, 1408, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.div.Tensor](args = (%convert_element_type_10, %add_5), kwargs = {})
#   %convert_element_type_11 : Tensor "bf16[1, 1, 1408][1408, 1408, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%div, torch.bfloat16), kwargs = {})
#   %view_15 : Tensor "bf16[1, 1, 1408][1408, 1408, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_5, [1, 1, 1408]), kwargs = {})
#   %mul_8 : Tensor "bf16[1, 1, 1408][1408, 1408, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type_11, %view_15), kwargs = {})
#   return %mul_8
triton_poi_fused__unsafe_view_mul_silu_5 = async_compile.triton('triton_poi_fused__unsafe_view_mul_silu_5', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.pointwise(
    size_hints={'x': 2048}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*bf16', 'in_ptr0': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__unsafe_view_mul_silu_5', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 11264}, 'kernel_num_gb': 8.448e-06, 'kernel_flop': 0},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__unsafe_view_mul_silu_5(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 1408
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_out_ptr0 + (x0), xmask).to(tl.float32)
    tmp8 = tl.load(in_ptr0 + (x0), xmask).to(tl.float32)
    tmp1 = tmp0.to(tl.float32)
    tmp2 = -tmp1
    tmp3 = libdevice.exp(tmp2)
    tmp4 = tl.full([1], 1.0, tl.float32)
    tmp5 = tmp3 + tmp4
    tmp6 = (tmp1 / tmp5)
    tmp7 = tmp6.to(tl.float32)
    tmp9 = tmp7 * tmp8
    tl.store(in_out_ptr0 + (x0), tmp9, xmask)


def get_args():
    arg_0 = rand_strided((1, 1, 1408), (1408, 1408, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1, 1408), (1408, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, 1408,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_poi_fused__unsafe_view_mul_silu_5.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_poi_fused__unsafe_view_mul_silu_5.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 8.448e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/sl/csltzovqj7nqri5vhqitjrr6vrqmzxhlsnik4ytgfp3qr5rrvyqw.py
# Topologically Sorted Source Nodes: [x, linear_3, x_1, linear_6, x_2, pow_3, mean_2, add_6, rsqrt_2, mul_9, mul_10], Original ATen: [aten.embedding, aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add_6 => add_7
#   linear_3 => view_11
#   linear_6 => view_17
#   mean_2 => mean_2
#   mul_10 => mul_10
#   mul_9 => mul_9
#   pow_3 => pow_3
#   rsqrt_2 => rsqrt_2
#   x => embedding
#   x_1 => add_3
#   x_2 => add_6
# Graph fragment:
#   %arg0_1 : Tensor "i64[1, 1][1, 1]cuda:0" = PlaceHolder[target=arg0_1]
#   %arg1_1 : Tensor "bf16[32000, 512][512, 1]cuda:0" = PlaceHolder[target=arg1_1]
#   %mm_3 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_3]
#   %mm_6 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_6]
#   %buf21 : Tensor "f32[1, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=buf21]
#   %arg15_1 : Tensor "bf16[512][1]cuda:0" = PlaceHolder[target=arg15_1]
#   %embedding : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.embedding.default](args = (%arg1_1, %arg0_1), kwargs = {})
#   %view_11 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_3, [1, 1, 512]), kwargs = {})
#   %add_3 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%embedding, %view_11), kwargs = {})
#   %view_17 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_6, [1, 1, 512]), kwargs = {})
#   %add_6 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_3, %view_17), kwargs = {})
#   %pow_3 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%add_6, 2), kwargs = {})
#   %mean_2 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_3, [-1], True), kwargs = {})
#   %add_7 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean_2, 1e-05), kwargs = {})
#   %rsqrt_2 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_7,), kwargs = {})
#   %mul_9 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_6, %rsqrt_2), kwargs = {})
#   %mul_10 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_9, %arg15_1), kwargs = {})
#   return %buf21,%mul_10
triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_6 = async_compile.triton('triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_6', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*i64', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'in_ptr4': '*bf16', 'out_ptr1': '*bf16', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_6', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 4, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 5120}, 'kernel_num_gb': 5.128e-06, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_6(in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_ptr0 + (0))
    tmp1 = tl.broadcast_to(tmp0, [1, 1])
    tmp8 = tl.load(in_ptr2 + (r0_0), None).to(tl.float32)
    tmp10 = tl.load(in_ptr3 + (r0_0), None).to(tl.float32)
    tmp24 = tl.load(in_ptr4 + (r0_0), None).to(tl.float32)
    tmp2 = tl.full([1, 1], 32000, tl.int32)
    tmp3 = tmp1 + tmp2
    tmp4 = tmp1 < 0
    tmp5 = tl.where(tmp4, tmp3, tmp1)
    tl.device_assert((0 <= tmp5) & (tmp5 < 32000), "index out of bounds: 0 <= tmp5 < 32000")
    tmp7 = tl.load(in_ptr1 + (r0_0 + 512*tmp5), None).to(tl.float32)
    tmp9 = tmp7 + tmp8
    tmp11 = tmp9 + tmp10
    tmp12 = tmp11 * tmp11
    tmp13 = tmp12.to(tl.float32)
    tmp14 = tl.broadcast_to(tmp13, [XBLOCK, R0_BLOCK])
    tmp16 = tl.sum(tmp14, 1)[:, None].to(tl.float32)
    tmp17 = tl.full([1, 1], 512.0, tl.float32)
    tmp18 = (tmp16 / tmp17)
    tmp19 = tmp18.to(tl.float32)
    tmp20 = tl.full([1, 1], 1e-05, tl.float32)
    tmp21 = tmp19 + tmp20
    tmp22 = libdevice.rsqrt(tmp21)
    tmp23 = tmp11 * tmp22
    tmp25 = tmp23 * tmp24
    tl.store(out_ptr1 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp25, None)


def get_args():
    arg_0 = rand_strided((1, 1), (1, 1), device='cuda:0', dtype=torch.int64)
    arg_1 = rand_strided((32000, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_4 = rand_strided((512,), (1,), device='cuda:0', dtype=torch.bfloat16)
    arg_5 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, arg_4, arg_5, 1, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_6.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_6.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 5.128e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/xb/cxbukitueium7s5bx4fr673rvbewubpgxwjvhoiwaefnqagzbgca.py
# Topologically Sorted Source Nodes: [x, linear_3, x_1, linear_6, x_2, linear_10, x_3, pow_4, mean_3, add_10, rsqrt_3, mul_15, mul_16], Original ATen: [aten.embedding, aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add_10 => add_11
#   linear_10 => view_29
#   linear_3 => view_11
#   linear_6 => view_17
#   mean_3 => mean_3
#   mul_15 => mul_15
#   mul_16 => mul_16
#   pow_4 => pow_4
#   rsqrt_3 => rsqrt_3
#   x => embedding
#   x_1 => add_3
#   x_2 => add_6
#   x_3 => add_10
# Graph fragment:
#   %arg0_1 : Tensor "i64[1, 1][1, 1]cuda:0" = PlaceHolder[target=arg0_1]
#   %arg1_1 : Tensor "bf16[32000, 512][512, 1]cuda:0" = PlaceHolder[target=arg1_1]
#   %mm_3 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_3]
#   %mm_6 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_6]
#   %mm_10 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_10]
#   %add_10 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0" = PlaceHolder[target=add_10]
#   %buf37 : Tensor "f32[1, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=buf37]
#   %arg22_1 : Tensor "bf16[512][1]cuda:0" = PlaceHolder[target=arg22_1]
#   %embedding : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.embedding.default](args = (%arg1_1, %arg0_1), kwargs = {})
#   %view_11 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_3, [1, 1, 512]), kwargs = {})
#   %add_3 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%embedding, %view_11), kwargs = {})
#   %view_17 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_6, [1, 1, 512]), kwargs = {})
#   %add_6 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_3, %view_17), kwargs = {})
#   %view_29 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_10, [1, 1, 512]), kwargs = {})
#   %add_10 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_6, %view_29), kwargs = {})
#   %pow_4 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%add_10, 2), kwargs = {})
#   %mean_3 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_4, [-1], True), kwargs = {})
#   %add_11 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean_3, 1e-05), kwargs = {})
#   %rsqrt_3 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_11,), kwargs = {})
#   %mul_15 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_10, %rsqrt_3), kwargs = {})
#   %mul_16 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_15, %arg22_1), kwargs = {})
#   return %add_10,%buf37,%mul_16
triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_7 = async_compile.triton('triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_7', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*bf16', 'in_ptr0': '*i64', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'in_ptr4': '*bf16', 'out_ptr1': '*bf16', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_7', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 5, 'num_store': 2, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 8192}, 'kernel_num_gb': 7.176e-06, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_7(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_ptr0 + (0))
    tmp1 = tl.broadcast_to(tmp0, [1, 1])
    tmp8 = tl.load(in_out_ptr0 + (r0_0), None).to(tl.float32)
    tmp10 = tl.load(in_ptr2 + (r0_0), None).to(tl.float32)
    tmp12 = tl.load(in_ptr3 + (r0_0), None).to(tl.float32)
    tmp26 = tl.load(in_ptr4 + (r0_0), None).to(tl.float32)
    tmp2 = tl.full([1, 1], 32000, tl.int32)
    tmp3 = tmp1 + tmp2
    tmp4 = tmp1 < 0
    tmp5 = tl.where(tmp4, tmp3, tmp1)
    tl.device_assert((0 <= tmp5) & (tmp5 < 32000), "index out of bounds: 0 <= tmp5 < 32000")
    tmp7 = tl.load(in_ptr1 + (r0_0 + 512*tmp5), None).to(tl.float32)
    tmp9 = tmp7 + tmp8
    tmp11 = tmp9 + tmp10
    tmp13 = tmp11 + tmp12
    tmp14 = tmp13 * tmp13
    tmp15 = tmp14.to(tl.float32)
    tmp16 = tl.broadcast_to(tmp15, [XBLOCK, R0_BLOCK])
    tmp18 = tl.sum(tmp16, 1)[:, None].to(tl.float32)
    tmp19 = tl.full([1, 1], 512.0, tl.float32)
    tmp20 = (tmp18 / tmp19)
    tmp21 = tmp20.to(tl.float32)
    tmp22 = tl.full([1, 1], 1e-05, tl.float32)
    tmp23 = tmp21 + tmp22
    tmp24 = libdevice.rsqrt(tmp23)
    tmp25 = tmp13 * tmp24
    tmp27 = tmp25 * tmp26
    tl.store(in_out_ptr0 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp13, None)
    tl.store(out_ptr1 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp27, None)


def get_args():
    arg_0 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1, 1), (1, 1), device='cuda:0', dtype=torch.int64)
    arg_2 = rand_strided((32000, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_4 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_5 = rand_strided((512,), (1,), device='cuda:0', dtype=torch.bfloat16)
    arg_6 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, arg_4, arg_5, arg_6, 1, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_7.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_7.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 7.176e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/y7/cy7bkw4btlpljvtcd5fscz6kkukyjikvuzkfrw5rwlxukftkclue.py
# Topologically Sorted Source Nodes: [linear_13, x_4, pow_5, mean_4, add_12, rsqrt_4, mul_18, mul_19], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add_12 => add_14
#   linear_13 => view_35
#   mean_4 => mean_4
#   mul_18 => mul_18
#   mul_19 => mul_19
#   pow_5 => pow_5
#   rsqrt_4 => rsqrt_4
#   x_4 => add_13
# Graph fragment:
#   %add_10 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0" = PlaceHolder[target=add_10]
#   %mm_13 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_13]
#   %buf43 : Tensor "f32[1, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=buf43]
#   %arg26_1 : Tensor "bf16[512][1]cuda:0" = PlaceHolder[target=arg26_1]
#   %view_35 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_13, [1, 1, 512]), kwargs = {})
#   %add_13 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_10, %view_35), kwargs = {})
#   %pow_5 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%add_13, 2), kwargs = {})
#   %mean_4 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_5, [-1], True), kwargs = {})
#   %add_14 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean_4, 1e-05), kwargs = {})
#   %rsqrt_4 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_14,), kwargs = {})
#   %mul_18 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_13, %rsqrt_4), kwargs = {})
#   %mul_19 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_18, %arg26_1), kwargs = {})
#   return %buf43,%mul_19
triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_8 = async_compile.triton('triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_8', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'out_ptr1': '*bf16', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_8', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 5120}, 'kernel_num_gb': 4.096e-06, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_8(in_ptr0, in_ptr1, in_ptr2, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_ptr0 + (r0_0), None).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (r0_0), None).to(tl.float32)
    tmp15 = tl.load(in_ptr2 + (r0_0), None).to(tl.float32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp2 * tmp2
    tmp4 = tmp3.to(tl.float32)
    tmp5 = tl.broadcast_to(tmp4, [XBLOCK, R0_BLOCK])
    tmp7 = tl.sum(tmp5, 1)[:, None].to(tl.float32)
    tmp8 = tl.full([1, 1], 512.0, tl.float32)
    tmp9 = (tmp7 / tmp8)
    tmp10 = tmp9.to(tl.float32)
    tmp11 = tl.full([1, 1], 1e-05, tl.float32)
    tmp12 = tmp10 + tmp11
    tmp13 = libdevice.rsqrt(tmp12)
    tmp14 = tmp2 * tmp13
    tmp16 = tmp14 * tmp15
    tl.store(out_ptr1 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp16, None)


def get_args():
    arg_0 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((512,), (1,), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, 1, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_8.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_8.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 4.096e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/hy/chytmukrnf2blfy2yxzhzu5n26tikh7g5fagqmxoc6rksjpqkogx.py
# Topologically Sorted Source Nodes: [linear_13, x_4, linear_17, x_5, pow_6, mean_5, add_16, rsqrt_5, mul_24, mul_25], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add_16 => add_18
#   linear_13 => view_35
#   linear_17 => view_47
#   mean_5 => mean_5
#   mul_24 => mul_24
#   mul_25 => mul_25
#   pow_6 => pow_6
#   rsqrt_5 => rsqrt_5
#   x_4 => add_13
#   x_5 => add_17
# Graph fragment:
#   %add_10 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0" = PlaceHolder[target=add_10]
#   %mm_13 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_13]
#   %mm_17 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_17]
#   %buf58 : Tensor "f32[1, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=buf58]
#   %arg33_1 : Tensor "bf16[512][1]cuda:0" = PlaceHolder[target=arg33_1]
#   %view_35 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_13, [1, 1, 512]), kwargs = {})
#   %add_13 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_10, %view_35), kwargs = {})
#   %view_47 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_17, [1, 1, 512]), kwargs = {})
#   %add_17 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_13, %view_47), kwargs = {})
#   %pow_6 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%add_17, 2), kwargs = {})
#   %mean_5 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_6, [-1], True), kwargs = {})
#   %add_18 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean_5, 1e-05), kwargs = {})
#   %rsqrt_5 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_18,), kwargs = {})
#   %mul_24 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_17, %rsqrt_5), kwargs = {})
#   %mul_25 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_24, %arg33_1), kwargs = {})
#   return %buf58,%mul_25
triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_9 = async_compile.triton('triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_9', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'out_ptr1': '*bf16', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_9', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 4, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 6144}, 'kernel_num_gb': 5.12e-06, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_9(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_ptr0 + (r0_0), None).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (r0_0), None).to(tl.float32)
    tmp3 = tl.load(in_ptr2 + (r0_0), None).to(tl.float32)
    tmp17 = tl.load(in_ptr3 + (r0_0), None).to(tl.float32)
    tmp2 = tmp0 + tmp1
    tmp4 = tmp2 + tmp3
    tmp5 = tmp4 * tmp4
    tmp6 = tmp5.to(tl.float32)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.sum(tmp7, 1)[:, None].to(tl.float32)
    tmp10 = tl.full([1, 1], 512.0, tl.float32)
    tmp11 = (tmp9 / tmp10)
    tmp12 = tmp11.to(tl.float32)
    tmp13 = tl.full([1, 1], 1e-05, tl.float32)
    tmp14 = tmp12 + tmp13
    tmp15 = libdevice.rsqrt(tmp14)
    tmp16 = tmp4 * tmp15
    tmp18 = tmp16 * tmp17
    tl.store(out_ptr1 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp18, None)


def get_args():
    arg_0 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((512,), (1,), device='cuda:0', dtype=torch.bfloat16)
    arg_4 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, arg_4, 1, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_9.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_9.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 5.12e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/24/c24sw5vkas3h655325amyyigjw6jq5zbv2thazlzxtapnn2dvgyw.py
# Topologically Sorted Source Nodes: [linear_13, x_4, linear_17, x_5, linear_20, x_6, pow_7, mean_6, add_18, rsqrt_6, mul_27, mul_28], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add_18 => add_21
#   linear_13 => view_35
#   linear_17 => view_47
#   linear_20 => view_53
#   mean_6 => mean_6
#   mul_27 => mul_27
#   mul_28 => mul_28
#   pow_7 => pow_7
#   rsqrt_6 => rsqrt_6
#   x_4 => add_13
#   x_5 => add_17
#   x_6 => add_20
# Graph fragment:
#   %add_10 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0" = PlaceHolder[target=add_10]
#   %mm_13 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_13]
#   %mm_17 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_17]
#   %mm_20 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_20]
#   %buf64 : Tensor "f32[1, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=buf64]
#   %arg37_1 : Tensor "bf16[512][1]cuda:0" = PlaceHolder[target=arg37_1]
#   %view_35 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_13, [1, 1, 512]), kwargs = {})
#   %add_13 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_10, %view_35), kwargs = {})
#   %view_47 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_17, [1, 1, 512]), kwargs = {})
#   %add_17 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_13, %view_47), kwargs = {})
#   %view_53 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_20, [1, 1, 512]), kwargs = {})
#   %add_20 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_17, %view_53), kwargs = {})
#   %pow_7 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%add_20, 2), kwargs = {})
#   %mean_6 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_7, [-1], True), kwargs = {})
#   %add_21 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean_6, 1e-05), kwargs = {})
#   %rsqrt_6 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_21,), kwargs = {})
#   %mul_27 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_20, %rsqrt_6), kwargs = {})
#   %mul_28 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_27, %arg37_1), kwargs = {})
#   return %buf64,%mul_28
triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_10 = async_compile.triton('triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_10', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'in_ptr4': '*bf16', 'out_ptr1': '*bf16', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_10', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 5, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 7168}, 'kernel_num_gb': 6.144e-06, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_10(in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_ptr0 + (r0_0), None).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (r0_0), None).to(tl.float32)
    tmp3 = tl.load(in_ptr2 + (r0_0), None).to(tl.float32)
    tmp5 = tl.load(in_ptr3 + (r0_0), None).to(tl.float32)
    tmp19 = tl.load(in_ptr4 + (r0_0), None).to(tl.float32)
    tmp2 = tmp0 + tmp1
    tmp4 = tmp2 + tmp3
    tmp6 = tmp4 + tmp5
    tmp7 = tmp6 * tmp6
    tmp8 = tmp7.to(tl.float32)
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.sum(tmp9, 1)[:, None].to(tl.float32)
    tmp12 = tl.full([1, 1], 512.0, tl.float32)
    tmp13 = (tmp11 / tmp12)
    tmp14 = tmp13.to(tl.float32)
    tmp15 = tl.full([1, 1], 1e-05, tl.float32)
    tmp16 = tmp14 + tmp15
    tmp17 = libdevice.rsqrt(tmp16)
    tmp18 = tmp6 * tmp17
    tmp20 = tmp18 * tmp19
    tl.store(out_ptr1 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp20, None)


def get_args():
    arg_0 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_4 = rand_strided((512,), (1,), device='cuda:0', dtype=torch.bfloat16)
    arg_5 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, arg_4, arg_5, 1, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_10.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_10.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 6.144e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/f7/cf75e7iorvjyrix75g5wwybnxlne7xt7tlfc34k632pvccbvp3b5.py
# Topologically Sorted Source Nodes: [linear_13, x_4, linear_17, x_5, linear_20, x_6, linear_24, x_7, pow_8, mean_7, add_22, rsqrt_7, mul_33, mul_34], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add_22 => add_25
#   linear_13 => view_35
#   linear_17 => view_47
#   linear_20 => view_53
#   linear_24 => view_65
#   mean_7 => mean_7
#   mul_33 => mul_33
#   mul_34 => mul_34
#   pow_8 => pow_8
#   rsqrt_7 => rsqrt_7
#   x_4 => add_13
#   x_5 => add_17
#   x_6 => add_20
#   x_7 => add_24
# Graph fragment:
#   %add_10 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0" = PlaceHolder[target=add_10]
#   %mm_13 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_13]
#   %mm_17 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_17]
#   %mm_20 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_20]
#   %mm_24 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_24]
#   %add_24 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0" = PlaceHolder[target=add_24]
#   %buf80 : Tensor "f32[1, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=buf80]
#   %arg44_1 : Tensor "bf16[512][1]cuda:0" = PlaceHolder[target=arg44_1]
#   %view_35 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_13, [1, 1, 512]), kwargs = {})
#   %add_13 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_10, %view_35), kwargs = {})
#   %view_47 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_17, [1, 1, 512]), kwargs = {})
#   %add_17 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_13, %view_47), kwargs = {})
#   %view_53 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_20, [1, 1, 512]), kwargs = {})
#   %add_20 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_17, %view_53), kwargs = {})
#   %view_65 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_24, [1, 1, 512]), kwargs = {})
#   %add_24 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_20, %view_65), kwargs = {})
#   %pow_8 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%add_24, 2), kwargs = {})
#   %mean_7 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_8, [-1], True), kwargs = {})
#   %add_25 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean_7, 1e-05), kwargs = {})
#   %rsqrt_7 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_25,), kwargs = {})
#   %mul_33 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_24, %rsqrt_7), kwargs = {})
#   %mul_34 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_33, %arg44_1), kwargs = {})
#   return %add_24,%buf80,%mul_34
triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_11 = async_compile.triton('triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_11', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*bf16', 'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'in_ptr4': '*bf16', 'out_ptr1': '*bf16', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_11', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 6, 'num_store': 2, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 10240}, 'kernel_num_gb': 8.192e-06, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_11(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_out_ptr0 + (r0_0), None).to(tl.float32)
    tmp1 = tl.load(in_ptr0 + (r0_0), None).to(tl.float32)
    tmp3 = tl.load(in_ptr1 + (r0_0), None).to(tl.float32)
    tmp5 = tl.load(in_ptr2 + (r0_0), None).to(tl.float32)
    tmp7 = tl.load(in_ptr3 + (r0_0), None).to(tl.float32)
    tmp21 = tl.load(in_ptr4 + (r0_0), None).to(tl.float32)
    tmp2 = tmp0 + tmp1
    tmp4 = tmp2 + tmp3
    tmp6 = tmp4 + tmp5
    tmp8 = tmp6 + tmp7
    tmp9 = tmp8 * tmp8
    tmp10 = tmp9.to(tl.float32)
    tmp11 = tl.broadcast_to(tmp10, [XBLOCK, R0_BLOCK])
    tmp13 = tl.sum(tmp11, 1)[:, None].to(tl.float32)
    tmp14 = tl.full([1, 1], 512.0, tl.float32)
    tmp15 = (tmp13 / tmp14)
    tmp16 = tmp15.to(tl.float32)
    tmp17 = tl.full([1, 1], 1e-05, tl.float32)
    tmp18 = tmp16 + tmp17
    tmp19 = libdevice.rsqrt(tmp18)
    tmp20 = tmp8 * tmp19
    tmp22 = tmp20 * tmp21
    tl.store(in_out_ptr0 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp8, None)
    tl.store(out_ptr1 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp22, None)


def get_args():
    arg_0 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_3 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_4 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_5 = rand_strided((512,), (1,), device='cuda:0', dtype=torch.bfloat16)
    arg_6 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, arg_3, arg_4, arg_5, arg_6, 1, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_11.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_11.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 8.192e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


# kernel path: /tmp/torchinductor_root/mn/cmnwgjpe4bzjbj4diefipsamtohxn5lczxi6dfxwxqo6k7jol7j4.py
# Topologically Sorted Source Nodes: [linear_27, x_8, pow_9, mean_8, add_24, rsqrt_8, mul_36, mul_37], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
# Source node to ATen node mapping:
#   add_24 => add_28
#   linear_27 => view_71
#   mean_8 => mean_8
#   mul_36 => mul_36
#   mul_37 => mul_37
#   pow_9 => pow_9
#   rsqrt_8 => rsqrt_8
#   x_8 => add_27
# Graph fragment:
#   %add_24 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0" = PlaceHolder[target=add_24]
#   %mm_27 : Tensor "bf16[1, 512][512, 1]cuda:0" = PlaceHolder[target=mm_27]
#   %buf86 : Tensor "f32[1, 1, 1][1, 1, 1]cuda:0" = PlaceHolder[target=buf86]
#   %arg48_1 : Tensor "bf16[512][1]cuda:0" = PlaceHolder[target=arg48_1]
#   %view_71 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.reshape.default](args = (%mm_27, [1, 1, 512]), kwargs = {})
#   %add_27 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_24, %view_71), kwargs = {})
#   %pow_9 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%add_27, 2), kwargs = {})
#   %mean_8 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_9, [-1], True), kwargs = {})
#   %add_28 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean_8, 1e-05), kwargs = {})
#   %rsqrt_8 : Tensor "bf16[1, 1, 1][1, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add_28,), kwargs = {})
#   %mul_36 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add_27, %rsqrt_8), kwargs = {})
#   %mul_37 : Tensor "bf16[1, 1, 512][512, 512, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%mul_36, %arg48_1), kwargs = {})
#   return %buf86,%mul_37
triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_12 = async_compile.triton('triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_12', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

from torch._dynamo.testing import rand_strided
from torch._C import _cuda_getCurrentRawStream as get_raw_stream
import torch

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*bf16', 'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_12', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 5120}, 'kernel_num_gb': 4.096e-06, 'kernel_flop': 0}
)
@triton.jit
def triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_12(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    tmp0 = tl.load(in_out_ptr0 + (r0_0), None).to(tl.float32)
    tmp1 = tl.load(in_ptr0 + (r0_0), None).to(tl.float32)
    tmp15 = tl.load(in_ptr1 + (r0_0), None).to(tl.float32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp2 * tmp2
    tmp4 = tmp3.to(tl.float32)
    tmp5 = tl.broadcast_to(tmp4, [XBLOCK, R0_BLOCK])
    tmp7 = tl.sum(tmp5, 1)[:, None].to(tl.float32)
    tmp8 = tl.full([1, 1], 512.0, tl.float32)
    tmp9 = (tmp7 / tmp8)
    tmp10 = tmp9.to(tl.float32)
    tmp11 = tl.full([1, 1], 1e-05, tl.float32)
    tmp12 = tmp10 + tmp11
    tmp13 = libdevice.rsqrt(tmp12)
    tmp14 = tmp2 * tmp13
    tmp16 = tmp14 * tmp15
    tl.store(in_out_ptr0 + (tl.broadcast_to(r0_0, [XBLOCK, R0_BLOCK])), tmp16, None)


def get_args():
    arg_0 = rand_strided((1, 1, 512), (512, 512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_1 = rand_strided((1, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg_2 = rand_strided((512,), (1,), device='cuda:0', dtype=torch.bfloat16)
    return arg_0, arg_1, arg_2, 1, 512,


def call(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        stream0 = get_raw_stream(0)
        triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_12.run(*args, stream=stream0)


def benchmark_all_configs(args):
    with torch.cuda._DeviceGuard(0):
        torch.cuda.set_device(0)
        return triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_12.benchmark_all_configs(*args)


if __name__ == '__main__':
    from torch._inductor.runtime.benchmarking import benchmarker

    args = get_args()
    ms = benchmarker.benchmark(lambda: call(args), device='cuda', rep=40)
    num_gb = 4.096e-06
    gb_per_s = num_gb / (ms / 1e3)
    print(f"{ms:.3f}ms    {num_gb:.3f}GB    {gb_per_s:.2f}GB/s")
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1, arg12_1, arg13_1, arg14_1, arg15_1, arg16_1, arg17_1, arg18_1, arg19_1, arg20_1, arg21_1, arg22_1, arg23_1, arg24_1, arg25_1, arg26_1, arg27_1, arg28_1, arg29_1, arg30_1, arg31_1, arg32_1, arg33_1, arg34_1, arg35_1, arg36_1, arg37_1, arg38_1, arg39_1, arg40_1, arg41_1, arg42_1, arg43_1, arg44_1, arg45_1, arg46_1, arg47_1, arg48_1, arg49_1 = args
        args.clear()
        assert_size_stride(arg0_1, (1, 1), (1, 1))
        assert_size_stride(arg1_1, (32000, 512), (512, 1))
        assert_size_stride(arg2_1, (1024, 64), (64, 1))
        assert_size_stride(arg3_1, (1024, 64), (64, 1))
        assert_size_stride(arg4_1, (512, ), (1, ))
        assert_size_stride(arg5_1, (512, 512), (512, 1))
        assert_size_stride(arg6_1, (128, 512), (512, 1))
        assert_size_stride(arg7_1, (128, 512), (512, 1))
        assert_size_stride(arg8_1, (1, 2, 1024, 64), (131072, 65536, 64, 1))
        assert_size_stride(arg9_1, (1, 2, 1024, 64), (131072, 65536, 64, 1))
        assert_size_stride(arg10_1, (512, 512), (512, 1))
        assert_size_stride(arg11_1, (512, ), (1, ))
        assert_size_stride(arg12_1, (1408, 512), (512, 1))
        assert_size_stride(arg13_1, (1408, 512), (512, 1))
        assert_size_stride(arg14_1, (512, 1408), (1408, 1))
        assert_size_stride(arg15_1, (512, ), (1, ))
        assert_size_stride(arg16_1, (512, 512), (512, 1))
        assert_size_stride(arg17_1, (128, 512), (512, 1))
        assert_size_stride(arg18_1, (128, 512), (512, 1))
        assert_size_stride(arg19_1, (1, 2, 1024, 64), (131072, 65536, 64, 1))
        assert_size_stride(arg20_1, (1, 2, 1024, 64), (131072, 65536, 64, 1))
        assert_size_stride(arg21_1, (512, 512), (512, 1))
        assert_size_stride(arg22_1, (512, ), (1, ))
        assert_size_stride(arg23_1, (1408, 512), (512, 1))
        assert_size_stride(arg24_1, (1408, 512), (512, 1))
        assert_size_stride(arg25_1, (512, 1408), (1408, 1))
        assert_size_stride(arg26_1, (512, ), (1, ))
        assert_size_stride(arg27_1, (512, 512), (512, 1))
        assert_size_stride(arg28_1, (128, 512), (512, 1))
        assert_size_stride(arg29_1, (128, 512), (512, 1))
        assert_size_stride(arg30_1, (1, 2, 1024, 64), (131072, 65536, 64, 1))
        assert_size_stride(arg31_1, (1, 2, 1024, 64), (131072, 65536, 64, 1))
        assert_size_stride(arg32_1, (512, 512), (512, 1))
        assert_size_stride(arg33_1, (512, ), (1, ))
        assert_size_stride(arg34_1, (1408, 512), (512, 1))
        assert_size_stride(arg35_1, (1408, 512), (512, 1))
        assert_size_stride(arg36_1, (512, 1408), (1408, 1))
        assert_size_stride(arg37_1, (512, ), (1, ))
        assert_size_stride(arg38_1, (512, 512), (512, 1))
        assert_size_stride(arg39_1, (128, 512), (512, 1))
        assert_size_stride(arg40_1, (128, 512), (512, 1))
        assert_size_stride(arg41_1, (1, 2, 1024, 64), (131072, 65536, 64, 1))
        assert_size_stride(arg42_1, (1, 2, 1024, 64), (131072, 65536, 64, 1))
        assert_size_stride(arg43_1, (512, 512), (512, 1))
        assert_size_stride(arg44_1, (512, ), (1, ))
        assert_size_stride(arg45_1, (1408, 512), (512, 1))
        assert_size_stride(arg46_1, (1408, 512), (512, 1))
        assert_size_stride(arg47_1, (512, 1408), (1408, 1))
        assert_size_stride(arg48_1, (512, ), (1, ))
        assert_size_stride(arg49_1, (32000, 512), (512, 1))
        with torch.cuda._DeviceGuard(0):
            torch.cuda.set_device(0)
            buf1 = empty_strided_cuda((1, 1, 512), (512, 512, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [x, pow_1, mean, add, rsqrt, mul, mul_1], Original ATen: [aten.embedding, aten.pow, aten.mean, aten.add, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0:1
            stream0 = get_raw_stream(0)
            triton_per_fused_add_embedding_mean_mul_pow_rsqrt_0.run(arg0_1, arg1_1, arg4_1, buf1, 1, 512, stream=stream0)
            del arg4_1
            buf2 = empty_strided_cuda((1, 512), (512, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [x, pow_1, mean, add, rsqrt, mul, mul_1, linear], Original ATen: [aten.embedding, aten.pow, aten.mean, aten.add, aten.rsqrt, aten.mul, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:2
            extern_kernels.mm(reinterpret_tensor(buf1, (1, 512), (0, 1), 0), reinterpret_tensor(arg5_1, (512, 512), (1, 512), 0), out=buf2)
            del arg5_1
            buf3 = empty_strided_cuda((1, 128), (128, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear_1], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:3
            extern_kernels.mm(reinterpret_tensor(buf1, (1, 512), (512, 1), 0), reinterpret_tensor(arg6_1, (512, 128), (1, 512), 0), out=buf3)
            del arg6_1
            # Topologically Sorted Source Nodes: [linear_1, view_1, k, chunk_1, cos, sin, setitem, mul_4, neg_1, cat_1, mul_5, k_1, ], Original ATen: [aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.slice, aten.mul, aten.neg, aten.cat, aten.add, aten.copy]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1:4
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1.run(buf3, arg2_1, arg3_1, arg8_1, 128, stream=stream0)
            buf6 = buf3; del buf3  # reuse
            # Topologically Sorted Source Nodes: [linear_2], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:5
            extern_kernels.mm(reinterpret_tensor(buf1, (1, 512), (512, 1), 0), reinterpret_tensor(arg7_1, (512, 128), (1, 512), 0), out=buf6)
            del arg7_1
            # Topologically Sorted Source Nodes: [setitem_1, linear_2, view_2, v, ], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.copy]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_copy_slice_transpose_view_2:6
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_copy_slice_transpose_view_2.run(buf6, arg9_1, 128, stream=stream0)
            buf8 = reinterpret_tensor(buf1, (1, 8, 1, 64), (512, 64, 64, 1), 0); del buf1  # reuse
            # Topologically Sorted Source Nodes: [linear, view, q, chunk, cos, mul_2, neg, cat, sin, mul_3, q_1, y], Original ATen: [aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.slice, aten.mul, aten.neg, aten.cat, aten.add, aten._scaled_dot_product_cudnn_attention]
            # [Provenance debug handles] triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3:7
            stream0 = get_raw_stream(0)
            triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3.run(buf2, arg2_1, arg3_1, buf8, 512, stream=stream0)
            # Topologically Sorted Source Nodes: [linear, view, q, chunk, cos, mul_2, neg, cat, sin, mul_3, q_1, y], Original ATen: [aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.slice, aten.mul, aten.neg, aten.cat, aten.add, aten._scaled_dot_product_cudnn_attention]
            # [Provenance debug handles] torch.ops.aten._scaled_dot_product_cudnn_attention.default:8
            buf9 = torch.ops.aten._scaled_dot_product_cudnn_attention.default(buf8, reinterpret_tensor(arg8_1, (1, 2, 513, 64), (131072, 65536, 64, 1), 0), reinterpret_tensor(arg9_1, (1, 2, 513, 64), (131072, 65536, 64, 1), 0), None, False)
            del arg8_1
            del arg9_1
            buf10 = buf9[0]
            assert_size_stride(buf10, (1, 8, 1, 64), (512, 64, 64, 1), 'torch.ops.aten._scaled_dot_product_cudnn_attention.default')
            assert_alignment(buf10, 16, 'torch.ops.aten._scaled_dot_product_cudnn_attention.default')
            del buf9
            buf14 = reinterpret_tensor(buf8, (1, 512), (512, 1), 0); del buf8  # reuse
            # Topologically Sorted Source Nodes: [transpose_3, reshape, linear_3], Original ATen: [aten.transpose, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:9
            extern_kernels.mm(reinterpret_tensor(buf10, (1, 512), (512, 1), 0), reinterpret_tensor(arg10_1, (512, 512), (1, 512), 0), out=buf14)
            del arg10_1
            buf16 = reinterpret_tensor(buf10, (1, 1, 512), (512, 512, 1), 0); del buf10  # reuse
            # Topologically Sorted Source Nodes: [x, linear_3, x_1, pow_2, mean_1, add_4, rsqrt_1, mul_6, mul_7], Original ATen: [aten.embedding, aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_4:10
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_4.run(arg0_1, arg1_1, buf14, arg11_1, buf16, 1, 512, stream=stream0)
            del arg11_1
            buf17 = empty_strided_cuda((1, 1408), (1408, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear_4], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:11
            extern_kernels.mm(reinterpret_tensor(buf16, (1, 512), (512, 1), 0), reinterpret_tensor(arg12_1, (512, 1408), (1, 512), 0), out=buf17)
            del arg12_1
            buf18 = empty_strided_cuda((1, 1408), (1408, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear_5], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:12
            extern_kernels.mm(reinterpret_tensor(buf16, (1, 512), (512, 1), 0), reinterpret_tensor(arg13_1, (512, 1408), (1, 512), 0), out=buf18)
            del arg13_1
            buf19 = reinterpret_tensor(buf17, (1, 1, 1408), (1408, 1408, 1), 0); del buf17  # reuse
            # Topologically Sorted Source Nodes: [linear_4, silu, linear_5, mul_8], Original ATen: [aten._unsafe_view, aten.silu, aten.mul]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_mul_silu_5:13
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_mul_silu_5.run(buf19, buf18, 1408, stream=stream0)
            del buf18
            buf20 = reinterpret_tensor(buf16, (1, 512), (512, 1), 0); del buf16  # reuse
            # Topologically Sorted Source Nodes: [linear_4, silu, linear_5, mul_8, linear_6], Original ATen: [aten._unsafe_view, aten.silu, aten.mul, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:14
            extern_kernels.mm(reinterpret_tensor(buf19, (1, 1408), (0, 1), 0), reinterpret_tensor(arg14_1, (1408, 512), (1, 1408), 0), out=buf20)
            del arg14_1
            del buf19
            buf22 = reinterpret_tensor(buf2, (1, 1, 512), (512, 512, 1), 0); del buf2  # reuse
            # Topologically Sorted Source Nodes: [x, linear_3, x_1, linear_6, x_2, pow_3, mean_2, add_6, rsqrt_2, mul_9, mul_10], Original ATen: [aten.embedding, aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_6:15
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_6.run(arg0_1, arg1_1, buf14, buf20, arg15_1, buf22, 1, 512, stream=stream0)
            del arg15_1
            buf23 = empty_strided_cuda((1, 512), (512, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear_7], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:16
            extern_kernels.mm(reinterpret_tensor(buf22, (1, 512), (512, 1), 0), reinterpret_tensor(arg16_1, (512, 512), (1, 512), 0), out=buf23)
            del arg16_1
            buf24 = buf6; del buf6  # reuse
            # Topologically Sorted Source Nodes: [linear_8], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:17
            extern_kernels.mm(reinterpret_tensor(buf22, (1, 512), (512, 1), 0), reinterpret_tensor(arg17_1, (512, 128), (1, 512), 0), out=buf24)
            del arg17_1
            # Topologically Sorted Source Nodes: [cos, sin, linear_8, view_4, k_2, chunk_3, setitem_2, mul_13, neg_3, cat_3, mul_14, k_3, ], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.mul, aten.neg, aten.cat, aten.add, aten.copy]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1:18
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1.run(buf24, arg2_1, arg3_1, arg19_1, 128, stream=stream0)
            buf27 = buf24; del buf24  # reuse
            # Topologically Sorted Source Nodes: [linear_9], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:19
            extern_kernels.mm(reinterpret_tensor(buf22, (1, 512), (512, 1), 0), reinterpret_tensor(arg18_1, (512, 128), (1, 512), 0), out=buf27)
            del arg18_1
            # Topologically Sorted Source Nodes: [setitem_3, linear_9, view_5, v_1, ], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.copy]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_copy_slice_transpose_view_2:20
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_copy_slice_transpose_view_2.run(buf27, arg20_1, 128, stream=stream0)
            buf29 = reinterpret_tensor(buf22, (1, 8, 1, 64), (512, 64, 64, 1), 0); del buf22  # reuse
            # Topologically Sorted Source Nodes: [cos, sin, linear_7, view_3, q_2, chunk_2, mul_11, neg_2, cat_2, mul_12, q_3, y_1], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.mul, aten.neg, aten.cat, aten.add, aten._scaled_dot_product_cudnn_attention]
            # [Provenance debug handles] triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3:21
            stream0 = get_raw_stream(0)
            triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3.run(buf23, arg2_1, arg3_1, buf29, 512, stream=stream0)
            # Topologically Sorted Source Nodes: [cos, sin, linear_7, view_3, q_2, chunk_2, mul_11, neg_2, cat_2, mul_12, q_3, y_1], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.mul, aten.neg, aten.cat, aten.add, aten._scaled_dot_product_cudnn_attention]
            # [Provenance debug handles] torch.ops.aten._scaled_dot_product_cudnn_attention.default:22
            buf30 = torch.ops.aten._scaled_dot_product_cudnn_attention.default(buf29, reinterpret_tensor(arg19_1, (1, 2, 513, 64), (131072, 65536, 64, 1), 0), reinterpret_tensor(arg20_1, (1, 2, 513, 64), (131072, 65536, 64, 1), 0), None, False)
            del arg19_1
            del arg20_1
            buf31 = buf30[0]
            assert_size_stride(buf31, (1, 8, 1, 64), (512, 64, 64, 1), 'torch.ops.aten._scaled_dot_product_cudnn_attention.default')
            assert_alignment(buf31, 16, 'torch.ops.aten._scaled_dot_product_cudnn_attention.default')
            del buf30
            buf35 = reinterpret_tensor(buf29, (1, 512), (512, 1), 0); del buf29  # reuse
            # Topologically Sorted Source Nodes: [transpose_7, reshape_1, linear_10], Original ATen: [aten.transpose, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:23
            extern_kernels.mm(reinterpret_tensor(buf31, (1, 512), (512, 1), 0), reinterpret_tensor(arg21_1, (512, 512), (1, 512), 0), out=buf35)
            del arg21_1
            buf36 = reinterpret_tensor(buf14, (1, 1, 512), (512, 512, 1), 0); del buf14  # reuse
            buf38 = reinterpret_tensor(buf31, (1, 1, 512), (512, 512, 1), 0); del buf31  # reuse
            # Topologically Sorted Source Nodes: [x, linear_3, x_1, linear_6, x_2, linear_10, x_3, pow_4, mean_3, add_10, rsqrt_3, mul_15, mul_16], Original ATen: [aten.embedding, aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_7:24
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_add_embedding_mean_mul_pow_rsqrt_7.run(buf36, arg0_1, arg1_1, buf20, buf35, arg22_1, buf38, 1, 512, stream=stream0)
            del arg0_1
            del arg1_1
            del arg22_1
            buf39 = empty_strided_cuda((1, 1408), (1408, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [pow_4, mean_3, add_10, rsqrt_3, mul_15, mul_16, linear_11], Original ATen: [aten.pow, aten.mean, aten.add, aten.rsqrt, aten.mul, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:25
            extern_kernels.mm(reinterpret_tensor(buf38, (1, 512), (0, 1), 0), reinterpret_tensor(arg23_1, (512, 1408), (1, 512), 0), out=buf39)
            del arg23_1
            buf40 = empty_strided_cuda((1, 1408), (1408, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear_12], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:26
            extern_kernels.mm(reinterpret_tensor(buf38, (1, 512), (512, 1), 0), reinterpret_tensor(arg24_1, (512, 1408), (1, 512), 0), out=buf40)
            del arg24_1
            buf41 = reinterpret_tensor(buf39, (1, 1, 1408), (1408, 1408, 1), 0); del buf39  # reuse
            # Topologically Sorted Source Nodes: [linear_11, silu_1, linear_12, mul_17], Original ATen: [aten._unsafe_view, aten.silu, aten.mul]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_mul_silu_5:27
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_mul_silu_5.run(buf41, buf40, 1408, stream=stream0)
            del buf40
            buf42 = reinterpret_tensor(buf38, (1, 512), (512, 1), 0); del buf38  # reuse
            # Topologically Sorted Source Nodes: [linear_11, silu_1, linear_12, mul_17, linear_13], Original ATen: [aten._unsafe_view, aten.silu, aten.mul, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:28
            extern_kernels.mm(reinterpret_tensor(buf41, (1, 1408), (0, 1), 0), reinterpret_tensor(arg25_1, (1408, 512), (1, 1408), 0), out=buf42)
            del arg25_1
            del buf41
            buf44 = reinterpret_tensor(buf35, (1, 1, 512), (512, 512, 1), 0); del buf35  # reuse
            # Topologically Sorted Source Nodes: [linear_13, x_4, pow_5, mean_4, add_12, rsqrt_4, mul_18, mul_19], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_8:29
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_8.run(buf36, buf42, arg26_1, buf44, 1, 512, stream=stream0)
            del arg26_1
            buf45 = buf20; del buf20  # reuse
            # Topologically Sorted Source Nodes: [linear_13, x_4, pow_5, mean_4, add_12, rsqrt_4, mul_18, mul_19, linear_14], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:30
            extern_kernels.mm(reinterpret_tensor(buf44, (1, 512), (0, 1), 0), reinterpret_tensor(arg27_1, (512, 512), (1, 512), 0), out=buf45)
            del arg27_1
            buf46 = buf27; del buf27  # reuse
            # Topologically Sorted Source Nodes: [linear_15], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:31
            extern_kernels.mm(reinterpret_tensor(buf44, (1, 512), (512, 1), 0), reinterpret_tensor(arg28_1, (512, 128), (1, 512), 0), out=buf46)
            del arg28_1
            # Topologically Sorted Source Nodes: [cos, sin, linear_15, view_7, k_4, chunk_5, setitem_4, mul_22, neg_5, cat_5, mul_23, k_5, ], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.mul, aten.neg, aten.cat, aten.add, aten.copy]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1:32
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1.run(buf46, arg2_1, arg3_1, arg30_1, 128, stream=stream0)
            buf49 = buf46; del buf46  # reuse
            # Topologically Sorted Source Nodes: [linear_16], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:33
            extern_kernels.mm(reinterpret_tensor(buf44, (1, 512), (512, 1), 0), reinterpret_tensor(arg29_1, (512, 128), (1, 512), 0), out=buf49)
            del arg29_1
            # Topologically Sorted Source Nodes: [setitem_5, linear_16, view_8, v_2, ], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.copy]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_copy_slice_transpose_view_2:34
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_copy_slice_transpose_view_2.run(buf49, arg31_1, 128, stream=stream0)
            buf51 = reinterpret_tensor(buf44, (1, 8, 1, 64), (512, 64, 64, 1), 0); del buf44  # reuse
            # Topologically Sorted Source Nodes: [cos, sin, linear_14, view_6, q_4, chunk_4, mul_20, neg_4, cat_4, mul_21, q_5, y_2], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.mul, aten.neg, aten.cat, aten.add, aten._scaled_dot_product_cudnn_attention]
            # [Provenance debug handles] triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3:35
            stream0 = get_raw_stream(0)
            triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3.run(buf45, arg2_1, arg3_1, buf51, 512, stream=stream0)
            # Topologically Sorted Source Nodes: [cos, sin, linear_14, view_6, q_4, chunk_4, mul_20, neg_4, cat_4, mul_21, q_5, y_2], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.mul, aten.neg, aten.cat, aten.add, aten._scaled_dot_product_cudnn_attention]
            # [Provenance debug handles] torch.ops.aten._scaled_dot_product_cudnn_attention.default:36
            buf52 = torch.ops.aten._scaled_dot_product_cudnn_attention.default(buf51, reinterpret_tensor(arg30_1, (1, 2, 513, 64), (131072, 65536, 64, 1), 0), reinterpret_tensor(arg31_1, (1, 2, 513, 64), (131072, 65536, 64, 1), 0), None, False)
            del arg30_1
            del arg31_1
            buf53 = buf52[0]
            assert_size_stride(buf53, (1, 8, 1, 64), (512, 64, 64, 1), 'torch.ops.aten._scaled_dot_product_cudnn_attention.default')
            assert_alignment(buf53, 16, 'torch.ops.aten._scaled_dot_product_cudnn_attention.default')
            del buf52
            buf57 = reinterpret_tensor(buf51, (1, 512), (512, 1), 0); del buf51  # reuse
            # Topologically Sorted Source Nodes: [transpose_11, reshape_2, linear_17], Original ATen: [aten.transpose, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:37
            extern_kernels.mm(reinterpret_tensor(buf53, (1, 512), (512, 1), 0), reinterpret_tensor(arg32_1, (512, 512), (1, 512), 0), out=buf57)
            del arg32_1
            buf59 = reinterpret_tensor(buf53, (1, 1, 512), (512, 512, 1), 0); del buf53  # reuse
            # Topologically Sorted Source Nodes: [linear_13, x_4, linear_17, x_5, pow_6, mean_5, add_16, rsqrt_5, mul_24, mul_25], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_9:38
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_9.run(buf36, buf42, buf57, arg33_1, buf59, 1, 512, stream=stream0)
            del arg33_1
            buf60 = empty_strided_cuda((1, 1408), (1408, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear_18], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:39
            extern_kernels.mm(reinterpret_tensor(buf59, (1, 512), (512, 1), 0), reinterpret_tensor(arg34_1, (512, 1408), (1, 512), 0), out=buf60)
            del arg34_1
            buf61 = empty_strided_cuda((1, 1408), (1408, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear_19], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:40
            extern_kernels.mm(reinterpret_tensor(buf59, (1, 512), (512, 1), 0), reinterpret_tensor(arg35_1, (512, 1408), (1, 512), 0), out=buf61)
            del arg35_1
            buf62 = reinterpret_tensor(buf60, (1, 1, 1408), (1408, 1408, 1), 0); del buf60  # reuse
            # Topologically Sorted Source Nodes: [linear_18, silu_2, linear_19, mul_26], Original ATen: [aten._unsafe_view, aten.silu, aten.mul]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_mul_silu_5:41
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_mul_silu_5.run(buf62, buf61, 1408, stream=stream0)
            del buf61
            buf63 = reinterpret_tensor(buf59, (1, 512), (512, 1), 0); del buf59  # reuse
            # Topologically Sorted Source Nodes: [linear_18, silu_2, linear_19, mul_26, linear_20], Original ATen: [aten._unsafe_view, aten.silu, aten.mul, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:42
            extern_kernels.mm(reinterpret_tensor(buf62, (1, 1408), (0, 1), 0), reinterpret_tensor(arg36_1, (1408, 512), (1, 1408), 0), out=buf63)
            del arg36_1
            del buf62
            buf65 = reinterpret_tensor(buf45, (1, 1, 512), (512, 512, 1), 0); del buf45  # reuse
            # Topologically Sorted Source Nodes: [linear_13, x_4, linear_17, x_5, linear_20, x_6, pow_7, mean_6, add_18, rsqrt_6, mul_27, mul_28], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_10:43
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_10.run(buf36, buf42, buf57, buf63, arg37_1, buf65, 1, 512, stream=stream0)
            del arg37_1
            buf66 = buf23; del buf23  # reuse
            # Topologically Sorted Source Nodes: [linear_21], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:44
            extern_kernels.mm(reinterpret_tensor(buf65, (1, 512), (512, 1), 0), reinterpret_tensor(arg38_1, (512, 512), (1, 512), 0), out=buf66)
            del arg38_1
            buf67 = buf49; del buf49  # reuse
            # Topologically Sorted Source Nodes: [linear_22], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:45
            extern_kernels.mm(reinterpret_tensor(buf65, (1, 512), (512, 1), 0), reinterpret_tensor(arg39_1, (512, 128), (1, 512), 0), out=buf67)
            del arg39_1
            # Topologically Sorted Source Nodes: [cos, sin, linear_22, view_10, k_6, chunk_7, setitem_6, mul_31, neg_7, cat_7, mul_32, k_7, ], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.mul, aten.neg, aten.cat, aten.add, aten.copy]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1:46
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_add_cat_copy_mul_neg_slice_split_transpose_view_1.run(buf67, arg2_1, arg3_1, arg41_1, 128, stream=stream0)
            buf70 = buf67; del buf67  # reuse
            # Topologically Sorted Source Nodes: [linear_23], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:47
            extern_kernels.mm(reinterpret_tensor(buf65, (1, 512), (512, 1), 0), reinterpret_tensor(arg40_1, (512, 128), (1, 512), 0), out=buf70)
            del arg40_1
            # Topologically Sorted Source Nodes: [setitem_7, linear_23, view_11, v_3, ], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.copy]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_copy_slice_transpose_view_2:48
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_copy_slice_transpose_view_2.run(buf70, arg42_1, 128, stream=stream0)
            del buf70
            buf72 = reinterpret_tensor(buf65, (1, 8, 1, 64), (512, 64, 64, 1), 0); del buf65  # reuse
            # Topologically Sorted Source Nodes: [cos, sin, linear_21, view_9, q_6, chunk_6, mul_29, neg_6, cat_6, mul_30, q_7, y_3], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.mul, aten.neg, aten.cat, aten.add, aten._scaled_dot_product_cudnn_attention]
            # [Provenance debug handles] triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3:49
            stream0 = get_raw_stream(0)
            triton_poi_fused__scaled_dot_product_cudnn_attention__unsafe_view_add_cat_mul_neg_slice_split_transpose_view_3.run(buf66, arg2_1, arg3_1, buf72, 512, stream=stream0)
            del arg2_1
            del arg3_1
            del buf66
            # Topologically Sorted Source Nodes: [cos, sin, linear_21, view_9, q_6, chunk_6, mul_29, neg_6, cat_6, mul_30, q_7, y_3], Original ATen: [aten.slice, aten._unsafe_view, aten.view, aten.transpose, aten.split, aten.mul, aten.neg, aten.cat, aten.add, aten._scaled_dot_product_cudnn_attention]
            # [Provenance debug handles] torch.ops.aten._scaled_dot_product_cudnn_attention.default:50
            buf73 = torch.ops.aten._scaled_dot_product_cudnn_attention.default(buf72, reinterpret_tensor(arg41_1, (1, 2, 513, 64), (131072, 65536, 64, 1), 0), reinterpret_tensor(arg42_1, (1, 2, 513, 64), (131072, 65536, 64, 1), 0), None, False)
            del arg41_1
            del arg42_1
            buf74 = buf73[0]
            assert_size_stride(buf74, (1, 8, 1, 64), (512, 64, 64, 1), 'torch.ops.aten._scaled_dot_product_cudnn_attention.default')
            assert_alignment(buf74, 16, 'torch.ops.aten._scaled_dot_product_cudnn_attention.default')
            del buf73
            buf78 = reinterpret_tensor(buf72, (1, 512), (512, 1), 0); del buf72  # reuse
            # Topologically Sorted Source Nodes: [transpose_15, reshape_3, linear_24], Original ATen: [aten.transpose, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:51
            extern_kernels.mm(reinterpret_tensor(buf74, (1, 512), (512, 1), 0), reinterpret_tensor(arg43_1, (512, 512), (1, 512), 0), out=buf78)
            del arg43_1
            buf79 = buf36; del buf36  # reuse
            buf81 = reinterpret_tensor(buf74, (1, 1, 512), (512, 512, 1), 0); del buf74  # reuse
            # Topologically Sorted Source Nodes: [linear_13, x_4, linear_17, x_5, linear_20, x_6, linear_24, x_7, pow_8, mean_7, add_22, rsqrt_7, mul_33, mul_34], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_11:52
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_11.run(buf79, buf42, buf57, buf63, buf78, arg44_1, buf81, 1, 512, stream=stream0)
            del arg44_1
            del buf42
            del buf57
            del buf63
            del buf78
            buf82 = empty_strided_cuda((1, 1408), (1408, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [pow_8, mean_7, add_22, rsqrt_7, mul_33, mul_34, linear_25], Original ATen: [aten.pow, aten.mean, aten.add, aten.rsqrt, aten.mul, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:53
            extern_kernels.mm(reinterpret_tensor(buf81, (1, 512), (0, 1), 0), reinterpret_tensor(arg45_1, (512, 1408), (1, 512), 0), out=buf82)
            del arg45_1
            buf83 = empty_strided_cuda((1, 1408), (1408, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear_26], Original ATen: [aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:54
            extern_kernels.mm(reinterpret_tensor(buf81, (1, 512), (512, 1), 0), reinterpret_tensor(arg46_1, (512, 1408), (1, 512), 0), out=buf83)
            del arg46_1
            buf84 = reinterpret_tensor(buf82, (1, 1, 1408), (1408, 1408, 1), 0); del buf82  # reuse
            # Topologically Sorted Source Nodes: [linear_25, silu_3, linear_26, mul_35], Original ATen: [aten._unsafe_view, aten.silu, aten.mul]
            # [Provenance debug handles] triton_poi_fused__unsafe_view_mul_silu_5:55
            stream0 = get_raw_stream(0)
            triton_poi_fused__unsafe_view_mul_silu_5.run(buf84, buf83, 1408, stream=stream0)
            del buf83
            buf85 = reinterpret_tensor(buf81, (1, 512), (512, 1), 0); del buf81  # reuse
            # Topologically Sorted Source Nodes: [linear_25, silu_3, linear_26, mul_35, linear_27], Original ATen: [aten._unsafe_view, aten.silu, aten.mul, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:56
            extern_kernels.mm(reinterpret_tensor(buf84, (1, 1408), (0, 1), 0), reinterpret_tensor(arg47_1, (1408, 512), (1, 1408), 0), out=buf85)
            del arg47_1
            del buf84
            buf87 = buf79; del buf79  # reuse
            # Topologically Sorted Source Nodes: [linear_27, x_8, pow_9, mean_8, add_24, rsqrt_8, mul_36, mul_37], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul]
            # [Provenance debug handles] triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_12:57
            stream0 = get_raw_stream(0)
            triton_per_fused__unsafe_view_add_mean_mul_pow_rsqrt_12.run(buf87, buf85, arg48_1, 1, 512, stream=stream0)
            del arg48_1
            del buf85
            buf88 = empty_strided_cuda((1, 32000), (32000, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [linear_27, x_8, pow_9, mean_8, add_24, rsqrt_8, mul_36, mul_37, linear_28], Original ATen: [aten._unsafe_view, aten.add, aten.pow, aten.mean, aten.rsqrt, aten.mul, aten.view, aten.t, aten.mm]
            # [Provenance debug handles] extern_kernels.mm:58
            extern_kernels.mm(reinterpret_tensor(buf87, (1, 512), (0, 1), 0), reinterpret_tensor(arg49_1, (512, 32000), (1, 512), 0), out=buf88)
            del arg49_1
            del buf87
        return (reinterpret_tensor(buf88, (1, 1, 32000), (32000, 32000, 1), 0), )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    arg0_1 = rand_strided((1, 1), (1, 1), device='cuda:0', dtype=torch.int64)
    arg1_1 = rand_strided((32000, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg2_1 = rand_strided((1024, 64), (64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg3_1 = rand_strided((1024, 64), (64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg4_1 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    arg5_1 = rand_strided((512, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg6_1 = rand_strided((128, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg7_1 = rand_strided((128, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg8_1 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg9_1 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg10_1 = rand_strided((512, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg11_1 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    arg12_1 = rand_strided((1408, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg13_1 = rand_strided((1408, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg14_1 = rand_strided((512, 1408), (1408, 1), device='cuda:0', dtype=torch.bfloat16)
    arg15_1 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    arg16_1 = rand_strided((512, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg17_1 = rand_strided((128, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg18_1 = rand_strided((128, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg19_1 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg20_1 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg21_1 = rand_strided((512, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg22_1 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    arg23_1 = rand_strided((1408, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg24_1 = rand_strided((1408, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg25_1 = rand_strided((512, 1408), (1408, 1), device='cuda:0', dtype=torch.bfloat16)
    arg26_1 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    arg27_1 = rand_strided((512, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg28_1 = rand_strided((128, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg29_1 = rand_strided((128, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg30_1 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg31_1 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg32_1 = rand_strided((512, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg33_1 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    arg34_1 = rand_strided((1408, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg35_1 = rand_strided((1408, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg36_1 = rand_strided((512, 1408), (1408, 1), device='cuda:0', dtype=torch.bfloat16)
    arg37_1 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    arg38_1 = rand_strided((512, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg39_1 = rand_strided((128, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg40_1 = rand_strided((128, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg41_1 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg42_1 = rand_strided((1, 2, 1024, 64), (131072, 65536, 64, 1), device='cuda:0', dtype=torch.bfloat16)
    arg43_1 = rand_strided((512, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg44_1 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    arg45_1 = rand_strided((1408, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg46_1 = rand_strided((1408, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    arg47_1 = rand_strided((512, 1408), (1408, 1), device='cuda:0', dtype=torch.bfloat16)
    arg48_1 = rand_strided((512, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    arg49_1 = rand_strided((32000, 512), (512, 1), device='cuda:0', dtype=torch.bfloat16)
    return [arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1, arg11_1, arg12_1, arg13_1, arg14_1, arg15_1, arg16_1, arg17_1, arg18_1, arg19_1, arg20_1, arg21_1, arg22_1, arg23_1, arg24_1, arg25_1, arg26_1, arg27_1, arg28_1, arg29_1, arg30_1, arg31_1, arg32_1, arg33_1, arg34_1, arg35_1, arg36_1, arg37_1, arg38_1, arg39_1, arg40_1, arg41_1, arg42_1, arg43_1, arg44_1, arg45_1, arg46_1, arg47_1, arg48_1, arg49_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
