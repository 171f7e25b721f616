"""ViT-B/16 at 224x224 in plain torch, random weights.

Dosovitskiy et al. 2021, "An Image is Worth 16x16 Words", as torchvision builds ``vit_b_16``
(torchvision/models/vision_transformer.py): a 16x16/16 patch convolution to 768 channels, a
class token, learned position embeddings, 12 pre-norm encoder blocks (LayerNorm eps 1e-6,
12-head self-attention, a 3072-wide GELU MLP), a final LayerNorm and a 1000-way head on the
class token: 86,567,656 parameters, as torchvision's model table lists. Attention goes through
F.scaled_dot_product_attention on a fused qkv projection (the same parameters as
nn.MultiheadAttention's in_proj).

Batch 1 (FLOORCALC_VIT_BATCH), float32 on CPU, bfloat16 on CUDA (FLOORCALC_DTYPE to change).

    floorcalc report examples/vit.py
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from _dtype import dtype

IMAGE, PATCH, D, LAYERS, HEADS, MLP_DIM, CLASSES = 224, 16, 768, 12, 12, 3072, 1000


class SelfAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        # [b, s, 3d] -> 3 x [b, heads, s, d/heads]
        q, k, v = self.qkv(x).view(b, s, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4).unbind(0)
        y = F.scaled_dot_product_attention(q, k, v)
        return self.proj(y.transpose(1, 2).reshape(b, s, D))


class EncoderBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(D, eps=1e-6)
        self.self_attention = SelfAttention()
        self.ln_2 = nn.LayerNorm(D, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(D, MLP_DIM), nn.GELU(), nn.Linear(MLP_DIM, D))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attention(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class VisionTransformer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv_proj = nn.Conv2d(3, D, PATCH, stride=PATCH)
        seq = (IMAGE // PATCH) ** 2 + 1
        self.class_token = nn.Parameter(torch.zeros(1, 1, D))
        self.pos_embedding = nn.Parameter(torch.empty(1, seq, D).normal_(std=0.02))
        self.layers = nn.Sequential(*(EncoderBlock() for _ in range(LAYERS)))
        self.ln = nn.LayerNorm(D, eps=1e-6)
        self.head = nn.Linear(D, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[0]
        x = self.conv_proj(x).flatten(2).transpose(1, 2)  # [n, 768, 14, 14] -> [n, 196, 768]
        x = torch.cat([self.class_token.expand(n, -1, -1), x], dim=1) + self.pos_embedding
        x = self.ln(self.layers(x))
        return self.head(x[:, 0])


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    model = VisionTransformer()
    return model.to(dtype(device))


def get_inputs(device: str = "cpu"):
    batch = int(os.environ.get("FLOORCALC_VIT_BATCH", "1"))
    x = torch.randn(batch, 3, IMAGE, IMAGE, generator=torch.Generator().manual_seed(1))
    return (x.to(dtype(device)),)
