"""A Llama-style decoder in plain torch, random weights: one prefill pass that fills a KV cache.

Architecture as in Touvron et al. 2023 ("Llama 2"): pre-norm blocks with RMSNorm, rotary
position embeddings (rotate-half form), grouped-query attention through
F.scaled_dot_product_attention(enable_gqa=True) over a static KV cache, a SwiGLU MLP, untied
input and output embeddings, no biases.

Configs (FLOORCALC_LLAMA): ``tiny`` (tests), ``small`` (default: 4 layers, d_model 512,
GQA 8 query / 2 KV heads, a few hundred ms per pass on a laptop CPU) and ``7b`` (d_model 4096,
32 layers, 32 heads, ffn 11008, vocab 32000: Llama-2-7B's shapes; count it with
``floorcalc count``, which builds it on the meta device). Batch FLOORCALC_LLAMA_BATCH (default 1),
FLOORCALC_LLAMA_SEQ tokens (default 128); FLOORCALC_LLAMA_LAYERS overrides the config's layer count
(fewer make a short run, e.g. under Nsight Compute). float32 on CPU, bfloat16 on CUDA (FLOORCALC_DTYPE to change).

    floorcalc report examples/llama.py
    FLOORCALC_LLAMA=7b floorcalc count examples/llama.py

A decode step against the cache is examples/llama_decode.py.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from _dtype import dtype

CONFIGS = {
    "tiny": dict(vocab=512, d_model=64, layers=2, heads=4, kv_heads=2, ffn=176, max_seq=1024),
    "small": dict(vocab=32000, d_model=512, layers=4, heads=8, kv_heads=2, ffn=1408, max_seq=1024),
    "7b": dict(vocab=32000, d_model=4096, layers=32, heads=32, kv_heads=32, ffn=11008, max_seq=4096),
}
def batch() -> int:
    """The batch size, FLOORCALC_LLAMA_BATCH (default 1; read at call time, so tests can switch it)."""
    value = os.environ.get("FLOORCALC_LLAMA_BATCH", "1")
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"FLOORCALC_LLAMA_BATCH={value!r}: a positive whole number")
    return int(value)


def config() -> dict:
    """The config named by FLOORCALC_LLAMA (read at call time, so tests can switch it)."""
    name = os.environ.get("FLOORCALC_LLAMA", "small")
    if name not in CONFIGS:
        raise ValueError(f"FLOORCALC_LLAMA={name!r}: choose one of {', '.join(CONFIGS)}")
    layers = os.environ.get("FLOORCALC_LLAMA_LAYERS", "")
    if not layers:
        return CONFIGS[name]
    if not layers.isdigit() or int(layers) < 1:
        raise ValueError(f"FLOORCALC_LLAMA_LAYERS={layers!r}: a positive whole number")
    return dict(CONFIGS[name], layers=int(layers))


def seq_len() -> int:
    return int(os.environ.get("FLOORCALC_LLAMA_SEQ", "128"))


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x * rsqrt(mean(x^2) + eps) * weight, as Llama's reference code does it
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        d, self.heads, self.kv_heads = cfg["d_model"], cfg["heads"], cfg["kv_heads"]
        self.head_dim = d // self.heads
        self.wq = nn.Linear(d, self.heads * self.head_dim, bias=False)
        self.wk = nn.Linear(d, self.kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(d, self.kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(self.heads * self.head_dim, d, bias=False)
        # the static KV cache: [batch, kv_heads, max_seq, head_dim]
        shape = (batch(), self.kv_heads, cfg["max_seq"], self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape), persistent=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, start: int) -> torch.Tensor:
        b, s, _ = x.shape
        # [b, s, h*hd] -> [b, h, s, hd]
        q = self.wq(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        end = start + s
        self.k_cache[:b, :, start:end] = k
        self.v_cache[:b, :, start:end] = v
        keys, values = self.k_cache[:b, :, :end], self.v_cache[:b, :, :end]
        # a prefill from position 0 is causal (Sq == Sk); one new token sees the whole cache
        y = F.scaled_dot_product_attention(q, keys, values, is_causal=bool(s > 1),
                                           enable_gqa=self.kv_heads != self.heads)
        return self.wo(y.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))


class MLP(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        self.w1 = nn.Linear(cfg["d_model"], cfg["ffn"], bias=False)  # gate
        self.w3 = nn.Linear(cfg["d_model"], cfg["ffn"], bias=False)  # up
        self.w2 = nn.Linear(cfg["ffn"], cfg["d_model"], bias=False)  # down

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        self.attention_norm = RMSNorm(cfg["d_model"])
        self.attention = Attention(cfg)
        self.ffn_norm = RMSNorm(cfg["d_model"])
        self.feed_forward = MLP(cfg)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, start: int) -> torch.Tensor:
        x = x + self.attention(self.attention_norm(x), cos, sin, start)
        return x + self.feed_forward(self.ffn_norm(x))


class Llama(nn.Module):
    def __init__(self, cfg: dict, rope_theta: float = 10000.0) -> None:
        super().__init__()
        d, heads = cfg["d_model"], cfg["heads"]
        self.max_seq = cfg["max_seq"]
        self.tok_embeddings = nn.Embedding(cfg["vocab"], d)
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg["layers"]))
        self.norm = RMSNorm(d)
        self.output = nn.Linear(d, cfg["vocab"], bias=False)
        # rotary tables [max_seq, head_dim]: angle(p, i) = p * theta^(-2i/head_dim), halves repeated
        hd = d // heads
        inv_freq = 1.0 / rope_theta ** (torch.arange(0, hd, 2).float() / hd)
        angles = torch.outer(torch.arange(self.max_seq).float(), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("rope_cos", angles.cos(), persistent=False)
        self.register_buffer("rope_sin", angles.sin(), persistent=False)

    def forward(self, tokens: torch.Tensor, start_pos: int = 0) -> torch.Tensor:
        s = tokens.shape[1]
        if s > 1 and start_pos != 0:
            raise ValueError("a multi-token pass must start at position 0 (causal mask is top-left aligned)")
        if start_pos + s > self.max_seq:
            raise ValueError(f"positions {start_pos}..{start_pos + s} exceed max_seq {self.max_seq}")
        x = self.tok_embeddings(tokens)
        cos = self.rope_cos[start_pos:start_pos + s]
        sin = self.rope_sin[start_pos:start_pos + s]
        for layer in self.layers:
            x = layer(x, cos, sin, start_pos)
        return self.output(self.norm(x))


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    model = Llama(config())
    return model.to(dtype(device))


def get_inputs(device: str = "cpu"):
    g = torch.Generator().manual_seed(1)
    return (torch.randint(0, config()["vocab"], (batch(), seq_len()), generator=g),)
