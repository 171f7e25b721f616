"""K15 (shared/cases/counting.md): three experts in one grouped GEMM.

torch._grouped_mm(x [12, 16] bf16, w [3, 16, 8] bf16, offs=[4, 9, 12] int32): the experts get
4, 5 and 3 tokens. Right values: 2 x 12 x 16 x 8 = 3,072 FLOPs; x 384 + w 768 + offs 12 +
out 192 = 1,356 bytes, from `floorcalc count` (meta) and `floorcalc report` alike.
"""

import torch
import torch.nn as nn


class Experts(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 16, 8, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor, offs: torch.Tensor) -> torch.Tensor:
        return torch._grouped_mm(x, self.w, offs=offs)


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    return Experts()


def get_inputs(device: str = "cpu"):
    return torch.randn(12, 16, dtype=torch.bfloat16), torch.tensor([4, 9, 12], dtype=torch.int32)
