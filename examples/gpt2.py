"""GPT-2 small (124M parameters) in plain torch, random weights: one prefill pass.

Architecture as in Radford et al. 2019 / the released "gpt2" checkpoint: 12 layers, 12 heads,
d_model 768, vocab 50257, context 1024, pre-LayerNorm blocks, GELU (tanh) MLP of 4*d, tied
input/output embeddings. Attention goes through F.scaled_dot_product_attention (causal).

Runs in float32 on CPU and bfloat16 on CUDA (FLOORCALC_DTYPE to change). Batch 1, 256 tokens (FLOORCALC_GPT2_SEQ to change),
12 layers (FLOORCALC_GPT2_LAYERS to change: fewer make a short run, e.g. under Nsight Compute).

    floorcalc report examples/gpt2.py
"""

import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from _dtype import dtype

VOCAB, CTX, D, HEADS = 50257, 1024, 768, 12
LAYERS = int(os.environ.get("FLOORCALC_GPT2_LAYERS", "12"))
SEQ = int(os.environ.get("FLOORCALC_GPT2_SEQ", "256"))
BATCH = 1


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c_attn = nn.Linear(D, 3 * D)
        self.c_proj = nn.Linear(D, D)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q, k, v = self.c_attn(x).split(D, dim=2)
        # [b, s, d] -> [b, heads, s, d/heads]
        q, k, v = (t.view(b, s, HEADS, D // HEADS).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, s, D))


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c_fc = nn.Linear(D, 4 * D)
        self.c_proj = nn.Linear(4 * D, D)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(D)
        self.attn = Attention()
        self.ln_2 = nn.LayerNorm(D)
        self.mlp = MLP()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.wte = nn.Embedding(VOCAB, D)
        self.wpe = nn.Embedding(CTX, D)
        self.h = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as in GPT-2
        for p in self.parameters():
            nn.init.normal_(p, std=0.02) if p.dim() > 1 else nn.init.zeros_(p)
        for blk in self.h:  # GPT-2's scaled init of the residual projections
            nn.init.normal_(blk.attn.c_proj.weight, std=0.02 / math.sqrt(2 * LAYERS))

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for blk in self.h:
            x = blk(x)
        return self.lm_head(self.ln_f(x))


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    model = GPT2()
    return model.to(dtype(device))


def get_inputs(device: str = "cpu"):
    g = torch.Generator().manual_seed(1)
    return (torch.randint(0, VOCAB, (BATCH, SEQ), generator=g),)
