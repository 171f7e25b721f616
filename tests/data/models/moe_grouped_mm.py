"""A mixture-of-experts layer's experts in grouped GEMMs, at Mixtral-8x7B's sizes: the default
expert path of Mixtral in current transformers (torch._grouped_mm).

x [T, 4096] bf16 routed to 8 experts, T/8 tokens each (offs), gate+up [8, 4096, 2*14336] then
down [8, 14336, 4096], SiLU-and-multiply between. T = FLOORCALC_MOE_TOKENS (default 4096).
Right values: 2*T*4096*(2*14336) + 2*T*14336*4096 = 6*T*4096*14336 GEMM FLOPs, plus the
SwiGLU (silu 2, multiply 1 per intermediate element); both grouped GEMMs read every expert's
weights once. Used on a GPU (tools/gpu_verify.sh, section counting); too large for the CPU tests.
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

D, FFN, EXPERTS = 4096, 14336, 8


class Experts(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w13 = nn.Parameter(torch.randn(EXPERTS, D, 2 * FFN, dtype=torch.bfloat16) * 0.01)
        self.w2 = nn.Parameter(torch.randn(EXPERTS, FFN, D, dtype=torch.bfloat16) * 0.01)

    def forward(self, x: torch.Tensor, offs: torch.Tensor) -> torch.Tensor:
        h = torch._grouped_mm(x, self.w13, offs=offs)
        gate, up = h.chunk(2, dim=-1)
        return torch._grouped_mm(F.silu(gate) * up, self.w2, offs=offs)


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    return Experts()


def get_inputs(device: str = "cpu"):
    tokens = int(os.environ.get("FLOORCALC_MOE_TOKENS", "4096"))
    offs = torch.arange(1, EXPERTS + 1, dtype=torch.int32) * (tokens // EXPERTS)
    return torch.randn(tokens, D, dtype=torch.bfloat16), offs
