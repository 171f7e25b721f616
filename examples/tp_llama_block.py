"""A tensor-parallel Llama-style decoder block, random weights: one prefill pass over the ranks.

Megatron-LM's split (Shoeybi et al. 2019, "Megatron-LM", section 3): each rank holds a slice of
the heads and of the MLP's hidden units. Attention: a column-parallel fused QKV projection (this
rank's query heads and KV heads), rotary embeddings, causal grouped-query attention
(F.scaled_dot_product_attention), a row-parallel output projection, then an all_reduce (sum) of
the partial outputs. MLP (SwiGLU): a column-parallel fused gate/up projection, a row-parallel
down projection, an all_reduce. Pre-norm RMSNorm and residuals are replicated. Two all_reduces
of [tokens, d_model] per block; every rank gets the same input.

Configs (_parallel.size: ``realistic`` on CUDA, ``small`` elsewhere, or FLOORCALC_EXAMPLE_SIZE):

* ``realistic``: Llama-3-8B's layer shapes (d_model 4096, 32 query / 8 KV heads of 128, MLP
  14336), 4096 tokens, bfloat16: each all_reduce moves 32 MiB; heads, KV heads and MLP split
  over 1, 2, 4 or 8 ranks.
* ``small``: d_model 128, 16 / 8 heads of 8, MLP 256, 64 tokens, float32 (CPU with gloo).

One rank can be made late on purpose (FLOORCALC_EXAMPLE_LATE_RANK, _LATE_MS; see _parallel.py).

    floorcalc report examples/tp_llama_block.py --nproc-per-node 2
    FLOORCALC_EXAMPLE_LATE_RANK=1 floorcalc report examples/tp_llama_block.py --nproc-per-node 2

Without --nproc-per-node it runs as one rank holding every head (no all_reduce).
"""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

import _parallel as par

CONFIGS = {
    "small": dict(d_model=128, heads=16, kv_heads=8, ffn=256, tokens=64),
    "realistic": dict(d_model=4096, heads=32, kv_heads=8, ffn=14336, tokens=4096),
}
ROPE_THETA = 500000.0  # Llama 3


def rope_tables(tokens: int, head_dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin [tokens, head_dim]: angle(p, i) = p * theta^(-2i/head_dim), halves repeated."""
    inv_freq = 1.0 / ROPE_THETA ** (torch.arange(0, head_dim, 2).float() / head_dim)
    angles = torch.outer(torch.arange(tokens).float(), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos(), angles.sin()


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class ParallelAttention(nn.Module):
    """Column-parallel QKV, local attention over this rank's heads, row-parallel output."""

    def __init__(self, cfg: dict, tp: int) -> None:
        super().__init__()
        d = cfg["d_model"]
        self.head_dim = d // cfg["heads"]
        self.tp = tp
        self.heads = cfg["heads"] // tp          # this rank's query heads
        self.kv_heads = cfg["kv_heads"] // tp    # this rank's KV heads
        self.wqkv = nn.Linear(d, (self.heads + 2 * self.kv_heads) * self.head_dim, bias=False)  # column-parallel
        self.wo = nn.Linear(self.heads * self.head_dim, d, bias=False)                           # row-parallel

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        hd = self.head_dim
        q, k, v = self.wqkv(x).split([self.heads * hd, self.kv_heads * hd, self.kv_heads * hd], dim=-1)
        # [b, s, h*hd] -> [b, h, s, hd]
        q = q.view(b, s, self.heads, hd).transpose(1, 2)
        k = k.view(b, s, self.kv_heads, hd).transpose(1, 2)
        v = v.view(b, s, self.kv_heads, hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=self.kv_heads != self.heads)
        out = self.wo(y.transpose(1, 2).reshape(b, s, self.heads * hd))  # this rank's partial sum
        if self.tp > 1:
            dist.all_reduce(out)
        return out


class ParallelMLP(nn.Module):
    """SwiGLU with a column-parallel fused gate/up projection and a row-parallel down projection."""

    def __init__(self, cfg: dict, tp: int) -> None:
        super().__init__()
        self.tp = tp
        self.ffn = cfg["ffn"] // tp
        self.w13 = nn.Linear(cfg["d_model"], 2 * self.ffn, bias=False)  # column-parallel: gate | up
        self.w2 = nn.Linear(self.ffn, cfg["d_model"], bias=False)       # row-parallel

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.w13(x).chunk(2, dim=-1)
        out = self.w2(F.silu(gate) * up)
        if self.tp > 1:
            dist.all_reduce(out)
        return out


class Block(nn.Module):
    """One pre-norm decoder block, its attention and MLP split over ``tp`` ranks (``tp`` 1: whole).
    ``late_pause``: the block is the whole model, and pauses on the late rank (_parallel.py)."""

    def __init__(self, cfg: dict, tp: int = 1, late_pause: bool = False) -> None:
        super().__init__()
        self.late_pause = late_pause
        d = cfg["d_model"]
        self.attention_norm = nn.RMSNorm(d, eps=1e-5)
        self.attention = ParallelAttention(cfg, tp)
        self.ffn_norm = nn.RMSNorm(d, eps=1e-5)
        self.feed_forward = ParallelMLP(cfg, tp)
        cos, sin = rope_tables(cfg["tokens"], d // cfg["heads"])
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.late_pause:
            par.late_rank_pause(x)
        s = x.shape[1]
        cos, sin = self.rope_cos[:s], self.rope_sin[:s]
        x = x + self.attention(self.attention_norm(x), cos, sin)
        return x + self.feed_forward(self.ffn_norm(x))


def config(device: str) -> dict:
    cfg = CONFIGS[par.size(device)]
    for name in ("heads", "kv_heads", "ffn"):
        par.shard(name, cfg[name])
    return cfg


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(par.rank())  # each rank's own shard of the weights
    with torch.device(device):     # built where it runs: no multi-GB copy from the host
        block = Block(config(device), tp=par.world(), late_pause=True)
    return block.to(par.dtype(device))


def get_inputs(device: str = "cpu"):
    cfg = config(device)
    g = torch.Generator().manual_seed(1)  # the same activations on every rank
    return (torch.randn(1, cfg["tokens"], cfg["d_model"], generator=g).to(par.dtype(device)),)
