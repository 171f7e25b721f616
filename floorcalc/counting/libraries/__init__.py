"""Formulas for the custom ops of serving engines and kernel libraries, one module per library.

=================  ===========================================================================
module             ops (namespace as the profiler records it)
=================  ===========================================================================
:mod:`.vllm`       ``_C::`` (RMS norms, fused add+norm, norm+quant, rotary, ``*_and_mul``
                   activations, fp8/int8 quantisation, paged attention v1/v2, CUTLASS/GPTQ/AWQ/
                   Marlin GEMMs, the CUTLASS MoE grouped GEMM), ``_C_cache_ops::`` (KV-cache writes), ``_moe_C::`` (routing,
                   alignment, sums), ``vllm::`` (fused MoE experts, ROCm GEMM)
:mod:`.sgl_kernel` ``sgl_kernel::`` (norms, activations, rotary, quantisation, scaled GEMMs,
                   MoE routing), ``sglang::`` (fused MoE experts, KV-cache store)
:mod:`.flash_attn` ``flash_attn::`` (dense and varlen forward), FlashAttention-3
                   (``flash_attn_3::fwd``), vLLM's builds (``_vllm_fa2_C::varlen_fwd``,
                   ``_vllm_fa3_C::fwd``)
:mod:`.flashinfer` ``flashinfer::`` single and batch decode and prefill (names generated per
                   compiled variant: matched by pattern)
:mod:`.aiter`      ``aiter::`` (norms, group norm, GEMM, dense, varlen and batch-prefill
                   attention)
=================  ===========================================================================

Each formula reads the argument layout of the library's own op schema (cited in the module),
as checked against public Kineto traces of vLLM, SGLang and xDiT runs. The conventions are
those of docs/counting.md. Where the arguments do not give the work (sequence lengths held in
data, MoE routing), the count says in its note what it assumed.

A wrapper an engine puts around a library op (``vllm::unified_attention_with_output``,
``vllm::moe_forward``, ``vllm::rocm_aiter_rms_norm``) has no formula here: the op beneath it,
whose arguments carry the shapes, is what gets counted. A wrapper whose work runs in kernels
that are not torch ops (``vllm::moe_forward`` over FlashInfer's TRT-LLM MoE) stays uncounted,
unless the user registers a formula for it with their model's sizes (docs/counting.md, "Your
own formulas").
"""

from floorcalc.counting.libraries import aiter, flash_attn, flashinfer, sgl_kernel, vllm  # noqa: F401
