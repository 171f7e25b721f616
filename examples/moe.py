"""A mixture-of-experts block in plain torch, random weights: a router, top-k gating, and
experts that each run only on the tokens routed to them.

As in Mixtral-style sparse MoE layers (Jiang et al. 2024, "Mixtral of Experts"): a linear
router over E experts, softmax, top-k (k = 2) with the k weights renormalised, and SwiGLU
experts. Tokens are grouped by expert with an argsort of the (token, slot) assignments; each
expert gathers its tokens (index_select), runs, scales by its gate weights (gather) and adds
its output back (index_add_). The per-expert token counts come from a scatter into a
[tokens, E] mask, summed per expert.

How many tokens each expert gets depends on the data, so `floorcalc count` (which runs on the
meta device, without data) falls back to a real CPU run for this file, and says so.

Batch 1 x FLOORCALC_MOE_SEQ tokens (default 256), d_model 256, 8 experts of ffn 512, top-2.
float32 on CPU, bfloat16 on CUDA (FLOORCALC_DTYPE to change).

    floorcalc report examples/moe.py
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from _dtype import dtype

D, FFN, EXPERTS, TOP_K = 256, 512, 8, 2


class Expert(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w1 = nn.Linear(D, FFN, bias=False)
        self.w3 = nn.Linear(D, FFN, bias=False)
        self.w2 = nn.Linear(FFN, D, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class MoE(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.router = nn.Linear(D, EXPERTS, bias=False)
        self.experts = nn.ModuleList(Expert() for _ in range(EXPERTS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        h = x.view(-1, d)                                        # [T, D]
        probs = F.softmax(self.router(h), dim=-1)                # [T, E]
        top_w, top_e = torch.topk(probs, TOP_K, dim=-1)         # [T, k]
        top_w = top_w / top_w.sum(dim=-1, keepdim=True)
        # tokens per expert: scatter the choices into a [T, E] mask and sum it per expert
        mask = torch.zeros_like(probs).scatter_(1, top_e, 1.0)
        counts = mask.sum(dim=0).to(torch.long).tolist()         # data-dependent
        # group the T*k (token, slot) assignments by expert
        order = torch.argsort(top_e.reshape(-1), stable=True)   # [T*k]
        token_of = torch.div(order, TOP_K, rounding_mode="floor")
        gate = top_w.reshape(-1).gather(0, order)                # [T*k]
        out = torch.zeros_like(h)
        start = 0
        for e, n in enumerate(counts):
            if n == 0:
                continue
            idx = token_of[start:start + n]
            y = self.experts[e](h.index_select(0, idx)) * gate[start:start + n, None]
            out.index_add_(0, idx, y)
            start += n
        return out.view(b, s, d)


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    model = MoE()
    return model.to(dtype(device))


def get_inputs(device: str = "cpu"):
    seq = int(os.environ.get("FLOORCALC_MOE_SEQ", "256"))
    x = torch.randn(1, seq, D, generator=torch.Generator().manual_seed(1))
    return (x.to(dtype(device)),)
