"""A formula of your own: vLLM's ``vllm::moe_forward`` for gpt-oss-120b, tensor parallel.

vLLM's MoE layer op takes the hidden states, the router logits and the layer's *name*: the
expert weights are not among its arguments, so no built-in formula can count it (and on a
B200 its kernels, FlashInfer's TRT-LLM MoE, are not torch ops floorcalc could count instead).
You know your model's sizes; this file gives them:

    floorcalc analyze vllm_trace.json.gz --formulas examples/formulas/gpt_oss_moe.py

Sizes from gpt-oss-120b's config.json (huggingface.co/openai/gpt-oss-120b): hidden 2880,
expert intermediate 2880, 128 experts, 4 per token, SwiGLU experts; weights in MXFP4 (4-bit
values with one 8-bit scale per 32: 4.25 bits). With tensor parallelism the experts' columns
are split over TP ranks. The routing is data: uniform top-k routing is assumed for the
weights read, and the note says so.
"""

from floorcalc.counting import Uncountable, formula
from floorcalc.counting.shapes import make_count, tensor
from floorcalc.records import Count, OpCall

HIDDEN = 2880          # the model's hidden size (the op's input may be padded to 3072)
INTERMEDIATE = 2880    # each expert's intermediate size
EXPERTS = 128
TOP_K = 4
TP = 8                 # tensor-parallel ranks sharing each expert
BITS_PER_WEIGHT = 4.25  # MXFP4: 4-bit values, an 8-bit scale per 32


@formula("vllm::moe_forward", family="matmul")
def moe_forward(call: OpCall) -> Count:
    """hidden_states [T, H'], router_logits [T, E], layer_name -> [T, H'] (H' >= H, padded).

    Per token and chosen expert: gate and up GEMMs [H] x [H, 2I/TP], SwiGLU, down [I/TP] x
    [I/TP, H]: 2 * T * k * H * 3I/TP FLOPs (+ SwiGLU's 3 per intermediate element and the
    weighted sum's 2 per output). Bytes: x and the logits read, the output written, and the
    weights of the experts that receive tokens: E * (1 - (1 - k/E)^T) of them under uniform
    routing.
    """
    x, logits = tensor(call, 0, "hidden_states"), tensor(call, 1, "router_logits")
    if len(x.shape) != 2 or logits.shape[-1] != EXPERTS:
        raise Uncountable(f"not this model's MoE layer: x {x.shape}, logits {logits.shape}")
    t = x.shape[0]
    inter = INTERMEDIATE // TP
    pairs = t * TOP_K
    flop = 2 * pairs * HIDDEN * 3 * inter + pairs * (3 * inter + 2 * HIDDEN)
    touched = EXPERTS * (1 - (1 - TOP_K / EXPERTS) ** t)
    weight_bytes = int(touched * 3 * HIDDEN * inter * BITS_PER_WEIGHT / 8)
    # the experts run MXFP8 activations against MXFP4 weights: floored at the float8 tensor peak
    return make_count(flop=flop, reads=(x, logits), writes=(x,), dtype="float8_e4m3fn", unit="tensor",
                      formula="moe_forward (gpt-oss-120b)", extra_read_bytes=weight_bytes,
                      notes=(f"uniform top-{TOP_K} routing assumed: {touched:.1f} of {EXPERTS} experts' weights read",
                             f"sizes of gpt-oss-120b at TP={TP} (examples/formulas/gpt_oss_moe.py)"))
