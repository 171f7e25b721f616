"""flex_attention with a causal block mask (issue 23 f), 1 x 2 heads x 256 tokens x 16, float32,
the attention compiled as flex_attention is meant to be called; and a torch.cond (a
higher-order operator with no formula) around a matmul. Default BLOCK_SIZE 128: 2 query
blocks, causal, so 1 + 2 of the 4 blocks are computed: 75% of the pairs, 6,291,456 FLOPs."""
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

B, H, S, D = 1, 2, 256, 16
_flex = torch.compile(flex_attention)


def causal(b, h, q, kv):
    return q >= kv


class Attn(torch.nn.Module):
    def forward(self, q, k, v, w):
        bm = create_block_mask(causal, B, H, S, S, device=q.device)
        y = _flex(q, k, v, block_mask=bm)
        return torch.cond(y.sum() > 0, lambda t: t @ w, lambda t: t @ w.t(), (y,))


def get_model():
    return Attn()


def get_inputs():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, generator=g) for _ in range(3))
    return (q, k, v, torch.randn(D, D, generator=g))
