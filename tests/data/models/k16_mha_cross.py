"""K16 (shared/cases/counting.md): nn.MultiheadAttention cross-attention, called with and
without attention weights.

MultiheadAttention(32, 4, batch_first=True), q [2, 3, 32], k = v [2, 7, 32], once with
need_weights=True (the bmm path) and once with need_weights=False (SDPA), outputs added.
Right values: 178,544 FLOPs (projections 166,400, attention 5,376 per call); 84,168 bytes on
the CPU, where SDPA's output keeps q's layout and the reshape after it is a view. On CUDA
(H200, torch 2.11, 2026-12-01, tools/gpu_verify.sh counting) SDPA's output has another layout and
the reshape copies it: one more aten::clone of [2, 3, 32] fp32 (1,536 bytes), 85,704 in all.
"""

import torch
import torch.nn as nn


class Cross(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mha = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, q: torch.Tensor, kv: torch.Tensor) -> torch.Tensor:
        a, _ = self.mha(q, kv, kv, need_weights=True)
        b, _ = self.mha(q, kv, kv, need_weights=False)
        return a + b


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    return Cross()


def get_inputs(device: str = "cpu"):
    g = torch.Generator().manual_seed(0)
    return torch.randn(2, 3, 32, generator=g), torch.randn(2, 7, 32, generator=g)
