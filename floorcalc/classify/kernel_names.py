"""What a device event's kind and name say about the work it does.

Two questions are answered here, both from the profiler's record of one device event (its kind,
``kernel``/``memset``/``memcpy``, and the kernel's demangled name), with no other input:

1. **Its role inside the op that launched it** (:func:`event_role`). A GEMM op may launch, beside
   the kernel that does its multiply-adds, a memset of a workspace, a split-K reduction, a
   cuBLAS beta-scaling kernel or a separate epilogue. Each such event gets the floor of what it
   alone must do (floorcalc.classify.units.event_floors); only the op's *main* events share its FLOPs.
2. **Which float32 path a matrix kernel took** (:func:`float32_path`): TF32 tensor cores or
   FP32 FMA on the CUDA cores, when the library's naming says so.

Roles (:data:`~floorcalc.records.KernelRole`):

* ``main``: does the op's arithmetic and moves its counted bytes (every event that no rule
  below matches; an op whose events all match a rule has them all as ``main``);
* ``memset``: a memset event: writes the bytes the trace records for it;
* ``memcpy``: a memcpy event beside main kernels: moves the bytes the trace records;
* ``reduce``: writes the op's output once more after its main kernel: a split-K or split-KV
  reduction, a separate epilogue, a beta scaling of the output;
* ``setup``: auxiliary work of a size the trace does not give (offset tables, layout
  conversions, filter transforms): its floor is the launch term alone.

The name patterns, each with where the name comes from (seen in the committed H200 traces under
tests/data and docs/examples, or in the library's public sources):

=================================================  =========  ==========================================
pattern (substring of the demangled name)          role       source
=================================================  =========  ==========================================
``splitKreduce_kernel``                            reduce     cuBLASLt split-K reduction
                                                              (``cublasLt::splitKreduce_kernel<...>``,
                                                              tests/data/h200_two_streams, h200_mlp_*)
``cutlass::reduction::kernel::ReduceSplitK``       reduce     CUTLASS split-K reduction
                                                              (cutlass/reduction/kernel/reduce_split_k.h)
``cublasLt::epilogue::impl::globalKernel``         reduce     cuBLASLt separate bias epilogue
                                                              (tests/data/h200_cold_mlp)
``scal_kernel``                                    reduce     cuBLAS beta scaling of C
                                                              (tests/data/h200_cold_mlp)
``lean_reduction_kernel``                          reduce     cuDNN SDPA split-KV reduction
                                                              (tests/data/h200_llama_decode_*)
``flash_fwd_splitkv_combine_kernel``               reduce     FlashAttention split-KV combine
                                                              (flash-attention csrc/flash_attn)
``computeOffsetsKernel``, ``computeBOffsetsKernel``  setup    cuDNN implicit-GEMM offset tables
``nchwToNhwcKernel``, ``nhwcToNchwKernel``         setup      cuDNN layout conversion
``generateWinogradTilesKernel``, ``flip_filter``   setup      cuDNN filter transforms
=================================================  =========  ==========================================

Float32 paths (:func:`float32_path`), from the library's naming:

* TF32 tensor cores: ``tf32`` anywhere in the name (cuBLAS ``sm80_xmma_gemm_f32f32_tf32f32_f32_...``,
  ``sm90_xmma_gemm_f32f32_tf32f32_...``; CUTLASS ``..._s1688tf32gemm_...``, ``..._tf32gemm_...``);
  or a CUTLASS ``tensorop`` kernel on float32 data (``cutlass_80_tensorop_s1688gemm_...``, which
  CUTLASS's example 27 describes as 3xTF32, three TF32 products per multiply-add: its rate is at
  most the TF32 peak, so that peak still bounds it).
* FP32 on the CUDA cores: ``ffma`` (cuBLAS ``sm80_xmma_gemm_f32f32_f32f32_f32_..._ffma_...``),
  ``simt`` (CUTLASS ``cutlass_80_simt_sgemm_...``), ``sgemm`` (cuBLAS ``sgemm_largek_lds64``,
  ``ampere_sgemm_128x64_nn``), ``gemv`` (cuBLAS ``gemv2T_kernel_val``...), cuDNN
  ``implicit_convolve_sgemm`` / ``explicit_convolve_sgemm``.

CUTLASS's own description of these names: examples/27_ampere_3xtf32_fast_accurate_tensorop_gemm
(``sgemm``: CUDA-core SIMT FP32; ``s1688gemm``: 3xTF32; ``s1688tf32gemm``: 1xTF32).
"""

from __future__ import annotations

import re
from typing import Iterable, Optional, Tuple

from floorcalc.records import EventKind, KernelRole

__all__ = ["event_role", "float32_path", "REDUCE_PATTERNS", "SETUP_PATTERNS"]

#: Kernels that write the op's output once more after its main kernel.
REDUCE_PATTERNS: Tuple[str, ...] = (
    "splitKreduce_kernel",
    "cutlass::reduction::kernel::ReduceSplitK",
    "cublasLt::epilogue::impl::globalKernel",
    "scal_kernel",
    "lean_reduction_kernel",
    "flash_fwd_splitkv_combine_kernel",
)

#: Auxiliary kernels whose size the trace does not give.
SETUP_PATTERNS: Tuple[str, ...] = (
    "computeOffsetsKernel",
    "computeBOffsetsKernel",
    "nchwToNhwcKernel",
    "nhwcToNchwKernel",
    "generateWinogradTilesKernel",
    "flip_filter",
)

_TF32 = re.compile(r"tf32", re.IGNORECASE)
_TENSOROP = re.compile(r"tensorop|wgmma", re.IGNORECASE)
_FP32 = re.compile(r"ffma|simt|sgemm|gemv", re.IGNORECASE)


def event_role(kind: EventKind, name: str) -> KernelRole:
    """The role a device event of ``kind`` named ``name`` plays inside its op (module notes),
    before the op's other events are seen: ``main`` unless a rule matches. A memcpy is
    ``memcpy`` here; floorcalc.classify.units makes it ``main`` when its op launched nothing else."""
    if kind == "memset":
        return "memset"
    if kind == "memcpy":
        return "memcpy"
    for p in REDUCE_PATTERNS:
        if p in name:
            return "reduce"
    for p in SETUP_PATTERNS:
        if p in name:
            return "setup"
    return "main"


def float32_path(names: Iterable[str]) -> Tuple[Optional[bool], str]:
    """Whether float32 matrix work ran on TF32 tensor cores, read from its kernels' names.

    Returns ``(True, name)`` when a name says TF32 (or tensor-core work on float32 data),
    ``(False, name)`` when a name says FP32 FMA on the CUDA cores and none says TF32, and
    ``(None, "")`` when no name says either (module notes give the patterns and their sources).
    """
    fp32 = ""
    for n in names:
        if _TF32.search(n) or _TENSOROP.search(n):
            return True, n
        if not fp32 and _FP32.search(n):
            fp32 = n
    return (False, fp32) if fp32 else (None, "")
